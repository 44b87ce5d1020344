"""Human-readable renderings of daemon replies for supervisor-ctl (no --json)."""

from __future__ import annotations

import time
from typing import Any


def _ago(ts: float | None) -> str:
    if not ts:
        return "-"
    secs = max(0, time.time() - ts)
    if secs < 120:
        return f"{secs:.0f}s"
    if secs < 7200:
        return f"{secs / 60:.0f}m"
    return f"{secs / 3600:.1f}h"


def _clock(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts)) if ts else "-"


def format_run(run: dict[str, Any] | None) -> list[str]:
    if not run:
        return ["run:      none"]
    changes = f" + {', '.join(run['changes'])}" if run.get("changes") else ""
    out = [f"run:      #{run['id']} {run['profile']}{changes}",
           f"status:   {run['status']}" + (f"  cause: {run['cause']}" if run.get("cause") else ""),
           f"phase:    {run['phase']} for {_ago(run.get('phase_since'))}"
           + (f" (budget {run['deadline_s']:g}s)" if run.get("deadline_s") else "")]
    prog = run.get("progress")
    if prog:
        out.append(f"progress: {prog.get('kind')} {prog.get('done')}/{prog.get('total')}")
    act = run.get("activity") or {}
    if act and run["status"] == "starting":
        out.append(f"activity: {act.get('state')} (quiet {act.get('quiet_s')}s, CPU "
                   f"{act.get('cpu_percent')}%, reads {act.get('read_mb_s')} MB/s, GPU "
                   f"{act.get('gpu_util')})")
    for line in run.get("evidence") or []:
        out.append(f"  evidence: {line}")
    return out


def format_status(st: dict[str, Any]) -> str:
    d = st["daemon"]
    out = [f"daemon:   v{d['version']} pid {d['pid']} up {d['uptime_s']:.0f}s"]
    out += format_run(st.get("run"))
    fb = st.get("fallback") or {}
    if fb.get("attempts"):
        out.append(f"fallback: {fb['strategy']}, {len(fb['attempts'])} attempt(s)"
                   + (f", culprits: {', '.join(fb['culprits'])}" if fb.get("culprits") else ""))
        srv = fb.get("serving")
        out.append("serving:  " + (f"{srv['profile']} {srv.get('changes') or ''}" if srv
                                   else "nothing"))
    for item in st.get("checklist") or []:
        out.append(f"  [{item['status']}] {item['title']}")
    for g in st.get("gpus") or []:
        h = g.get("health") or {}
        out.append(f"GPU{g['index']}: {h.get('level', '?')} util {g.get('utilization_gpu')}% "
                   f"mem {g.get('memory_used_mib')} MiB {g.get('temperature_c')} C")
    return "\n".join(out)


def format_history(res: dict[str, Any]) -> str:
    rows = [f"{'id':>4}  {'profile':<28} {'status':<10} {'phase':<19} {'cause':<22} started"]
    for r in res["runs"]:
        name = r["profile"] + (f"+{'+'.join(r['changes'])}" if r.get("changes") else "")
        bench = r.get("benchmark") or {}
        extra = f"  {bench['tokens_per_s']:.1f} tok/s" if bench.get("tokens_per_s") else ""
        rows.append(f"{r['id']:>4}  {name[:28]:<28} {r['status']:<10} {r['phase']:<19} "
                    f"{(r.get('cause') or '-'):<22} {_clock(r['started'])}{extra}")
    bench = res.get("benchmarks") or []
    if bench:
        rows += ["", f"{'profile':<40} {'tok/s':>8} {'TTFT ms':>8} {'baseline':<20} "
                 f"{'base tok/s':>10} {'ratio':>6}"]
        for b in bench:
            name = b["profile"] + (f"+{'+'.join(b['changes'])}" if b.get("changes") else "")
            rows.append(f"{name[:40]:<40} {_num(b.get('tokens_per_s')):>8} "
                        f"{_num(b.get('ttft_ms')):>8} {b.get('baseline') or '-':<20} "
                        f"{_num(b.get('baseline_tokens_per_s')):>10} "
                        f"{_num(b.get('vs_baseline')):>6}")
    return "\n".join(rows)


def _num(x: Any) -> str:
    return "-" if x is None else f"{x:g}" if isinstance(x, (int, float)) else str(x)


def format_event(ev: dict[str, Any]) -> str:
    kind = ev.get("event")
    data = ev.get("data") or {}
    stamp = time.strftime("%H:%M:%S", time.localtime(ev.get("ts", time.time())))
    if kind == "run":
        prog = data.get("progress") or {}
        p = f" {prog.get('done')}/{prog.get('total')}" if prog else ""
        return (f"{stamp} run #{data.get('id')} {data.get('profile')}: {data.get('status')}"
                f" / {data.get('phase')}{p}")
    if kind == "verdict":
        ev_lines = "; ".join((data.get("evidence") or [])[:2])
        return (f"{stamp} VERDICT run #{data.get('run_id')}: {data.get('status')} in "
                f"{data.get('phase')}, cause {data.get('cause')} — {ev_lines}")
    if kind == "fallback":
        return (f"{stamp} fallback {data.get('strategy')}: {len(data.get('attempts') or [])} "
                f"attempt(s), culprits {data.get('culprits')}, serving {data.get('serving')}")
    if kind == "checklist":
        return f"{stamp} checklist: {len(data.get('items') or [])} item(s)"
    if kind == "dropped":
        return f"{stamp} ({data.get('count')} events dropped: this client reads too slowly)"
    return f"{stamp} {kind}: {data}"


def format_wait(r: dict[str, Any]) -> str:
    out = [f"requested: {r['requested']} -> {'READY' if r['ok'] else 'FAILED'}"]
    v = r.get("verdict")
    if v:
        out.append(f"verdict:   {v['status']} in {v['phase']}, cause {v['cause']}")
        out += [f"  evidence: {e}" for e in v.get("evidence") or []]
    if r.get("culprits"):
        out.append(f"culprits:  {', '.join(r['culprits'])}")
    srv = r.get("serving")
    out.append("serving:   " + (f"{srv['profile']}"
                                + (f" + {', '.join(srv['changes'])}" if srv.get("changes") else "")
                                + f" (run {srv['run_id']})" if srv else "nothing"))
    for n in r.get("notes") or []:
        out.append(f"note:      {n}")
    return "\n".join(out)


def format_profiles(r: dict[str, Any]) -> str:
    """One line per profile file; an invalid one says why, and a profile whose file holds a
    broken edit says that the last valid version is the one in force."""
    rows: list[str] = []
    for p in r.get("profiles") or []:
        ext = f" (extends {p['extends']})" if p.get("extends") else ""
        ch = f" changes: {', '.join(p['changes'])}" if p.get("changes") else ""
        rows.append(f"{p.get('name')!s:<32} {p.get('engine') or '-':<8}{ext}{ch}")
        if not p.get("valid", True):
            rows.append(f"  INVALID, cannot be launched: {p.get('error') or 'invalid'}")
        elif p.get("pending_error"):
            rows.append(f"  BROKEN EDIT, not in force: {p['pending_error']}")
            rows.append(f"  in force: {p.get('in_force') or 'the last valid version'}")
    sources = [f"{p['source']}:" for p in r.get("profiles") or [] if p.get("source")]
    # Errors of the folder itself (missing, too many files) belong to no profile row.
    rows += [f"error: {e}" for e in r.get("errors") or [] if not str(e).startswith(tuple(sources))]
    return "\n".join(rows) or "no profiles"


def switch_warning(r: dict[str, Any]) -> str | None:
    """The daemon's warning on a launch (a broken edit: the last valid version ran)."""
    warning = r.get("warning")
    return f"warning: {warning}" if warning else None
