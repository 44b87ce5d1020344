"""Human-readable renderings of daemon replies for supervisor-ctl (no --json)."""

from __future__ import annotations

import os
import re
import time
from typing import Any

from ..text import first_few

# C0/C1 controls (ESC starts OSC, alt-screen, cursor moves), DEL and the bidi overrides:
# a server's log line or a file name must not drive the operator's terminal.
_UNSAFE = re.compile("[\x00-\x08\x0b-\x1f\x7f-\x9f\u202a-\u202e\u2066-\u2069]")


def term_safe(text: str) -> str:
    """``text`` with every control character but newline and tab shown as an escape."""
    return _UNSAFE.sub(lambda m: repr(m.group())[1:-1], text)


def text(value: Any, none: str = "-") -> str:
    """A value as a person reads it: no ``None``, brackets or quotes."""
    if value is None:
        return none
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple, set)):
        return ", ".join(text(v) for v in value) or "none"
    if isinstance(value, dict):
        return ", ".join(f"{k}={text(v)}" for k, v in value.items()) or "none"
    return str(value)


def with_changes(profile: Any, changes: Any) -> str:
    """``profile + change, change``: the name a trial is known by."""
    return f"{profile} + {', '.join(changes)}" if changes else str(profile)


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
    out = [f"run:      #{run['id']} {with_changes(run['profile'], run.get('changes'))}",
           f"status:   {run['status']}" + (f"  cause: {run['cause']}" if run.get("cause") else ""),
           f"phase:    {run['phase']} for {_ago(run.get('phase_since'))}"
           + (f" (budget {run['deadline_s']:g}s)" if run.get("deadline_s") else "")]
    prog = run.get("progress")
    if prog:
        out.append(f"progress: {_progress(prog)}")
    if run.get("serving"):
        out.append(f"serving:  {serving_line(run['serving'])}")
    act = run.get("activity") or {}
    if act and run["status"] == "starting":
        out.append(f"activity: {_activity(act)}")
    for line in run.get("evidence") or []:
        out.append(f"  evidence: {line}")
    return out


def _progress(prog: dict[str, Any]) -> str:
    kind = str(prog.get("kind") or "progress").replace("_", " ")
    total = prog.get("total")
    return f"{kind} {text(prog.get('done'))}" + (f"/{total}" if total is not None else "")


def _activity(act: dict[str, Any]) -> str:
    budget = act.get("silence_s")
    still = f"still {text(act.get('still_s'))} s" + (f" of {budget:g} s" if budget else "")
    gpu = act.get("gpu_util")
    return (f"{text(act.get('state'))}, quiet {text(act.get('quiet_s'))} s, {still}; "
            f"CPU {text(act.get('cpu_percent'))} %, reads {text(act.get('read_mb_s'))} MB/s"
            + (f", GPU {gpu:g} %" if isinstance(gpu, (int, float)) else ""))


def format_status(st: dict[str, Any]) -> str:
    d = st["daemon"]
    out = [f"daemon:   v{d['version']} pid {d['pid']} up {d['uptime_s']:.0f}s"]
    out += [f"problem:  {p}" for p in d.get("problems") or []]
    out += format_run(st.get("run"))
    fb = st.get("fallback") or {}
    if fb.get("attempts"):
        out.append(f"fallback: {fb['strategy']}, {len(fb['attempts'])} attempt(s)"
                   + (f", culprits: {', '.join(fb['culprits'])}" if fb.get("culprits") else ""))
        out.append(f"serving:  {_serving(fb.get('serving'))}")
    for item in st.get("checklist") or []:
        out.append(f"  [{item['status']}] {item['title']}")
    for g in st.get("gpus") or []:
        out.append(f"GPU{g['index']}: {gpu_line(g)}")
    return "\n".join(out)


def _serving(srv: dict[str, Any] | None) -> str:
    if not srv:
        return "nothing"
    run = f" (run {srv['run_id']})" if srv.get("run_id") is not None else ""
    return with_changes(srv.get("profile"), srv.get("changes")) + run


def gpu_line(g: dict[str, Any]) -> str:
    """Health, utilisation, memory, temperature, power: what is known of them."""
    h = g.get("health") or {}
    parts = [str(h.get("level") or "health unknown")]
    for key, unit in (("utilization_gpu", " %"), ("temperature_c", " C"), ("power_w", " W")):
        if g.get(key) is not None:
            parts.append(f"{text(g[key])}{unit}")
    used, total = g.get("memory_used_mib"), g.get("memory_total_mib")
    if used is not None:
        parts.append(f"mem {text(used)}" + (f"/{text(total)}" if total is not None else "")
                     + " MiB")
    flags = "; ".join(h.get("flags") or [])
    return "  ".join(parts) + (f"  {flags}" if flags else "")


def format_history(res: dict[str, Any]) -> str:
    """One row per run; the profile and its changes come last and are never cut."""
    rows = [f"{'id':>4}  {'status':<10} {'phase':<19} {'cause':<22} {'started':<19}  "
            "profile + changes"]
    for r in res["runs"]:
        bench = r.get("benchmark") or {}
        rate = f"  ({bench['tokens_per_s']:.1f} tok/s)" if bench.get("tokens_per_s") else ""
        rows.append(f"{r['id']:>4}  {text(r.get('status')):<10} {text(r.get('phase')):<19} "
                    f"{text(r.get('cause')):<22} {_clock(r.get('started')):<19}  "
                    f"{with_changes(r['profile'], r.get('changes'))}{rate}")
    bench = res.get("benchmarks") or []
    if bench:
        rows += ["", f"{'tok/s':>8} {'TTFT ms':>8} {'base tok/s':>10} {'ratio':>6}  "
                 "profile + changes (baseline)"]
        for b in bench:
            base = f"  (vs {b['baseline']})" if b.get("baseline") else ""
            rows.append(f"{_num(b.get('tokens_per_s')):>8} {_num(b.get('ttft_ms')):>8} "
                        f"{_num(b.get('baseline_tokens_per_s')):>10} "
                        f"{_num(b.get('vs_baseline')):>6}  "
                        f"{with_changes(b['profile'], b.get('changes'))}{base}"
                        + ("  within the noise" if b.get("within_noise") else ""))
    return "\n".join(rows)


def _num(x: Any) -> str:
    return "-" if x is None else f"{x:g}" if isinstance(x, (int, float)) else str(x)


class EventStory:
    """Renders pushed events as one line each, telling what changed.

    It remembers each run's profile and changes (a verdict names only the run) and the
    checklist last shown, so a checklist event prints its new or changed items, not a count.
    """

    ICONS = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]", "failed": "[!]",
             "skipped": "[-]"}

    def __init__(self) -> None:
        self.runs: dict[Any, str] = {}
        self.last_line: dict[Any, str] = {}
        self.checklist: dict[Any, tuple[str, str]] | None = None

    def lines(self, ev: dict[str, Any]) -> list[str]:
        kind = ev.get("event")
        data = ev.get("data") or {}
        stamp = time.strftime("%H:%M:%S", time.localtime(ev.get("ts", time.time())))
        render = getattr(self, f"_{kind}", None)
        body = render(data) if render else [f"{kind}: {text(data)}"]
        return [f"{stamp} {line}" for line in body]

    def _name(self, run_id: Any, profile: Any = None) -> str:
        return self.runs.get(run_id) or (str(profile) if profile else "")

    def _run(self, data: dict[str, Any]) -> list[str]:
        run_id = data.get("id")
        self.runs[run_id] = with_changes(data.get("profile"), data.get("changes"))
        # Progress ticks (every weight shard, every graph batch size) are left to `status`
        # and the TUI: a line here is a change of status or phase.
        return self._once(("run", run_id), f"run #{run_id} {self.runs[run_id]}: "
                          f"{text(data.get('status'))} / {text(data.get('phase'))}")

    def _once(self, key: Any, line: str) -> list[str]:
        """``[line]``, or nothing when it says what the last line for ``key`` said."""
        if self.last_line.get(key) == line:
            return []
        self.last_line[key] = line
        return [line]

    def _verdict(self, data: dict[str, Any]) -> list[str]:
        run_id = data.get("run_id")
        # The first evidence line, cut: the whole evidence is in `status` and `history`.
        evidence = _cut(((data.get("evidence") or [""])[0]), 160)
        return [f"VERDICT run #{run_id} {self._name(run_id, data.get('profile'))}: "
                f"{text(data.get('status'))} in {text(data.get('phase'))}, cause "
                f"{text(data.get('cause'))}" + (f" — {evidence}" if evidence else "")]

    def _fallback(self, data: dict[str, Any]) -> list[str]:
        culprits = data.get("culprits") or []
        return self._once("fallback", f"fallback {text(data.get('strategy'))}: "
                          f"{len(data.get('attempts') or [])} attempt(s)"
                          + (f", culprits: {', '.join(culprits)}" if culprits else "")
                          + f", serving {_serving(data.get('serving'))}")

    def _checklist(self, data: dict[str, Any]) -> list[str]:
        items = data.get("items") or []
        now = {i.get("id"): (str(i.get("status")), str(i.get("title"))) for i in items}
        before, self.checklist = self.checklist, now
        if before is None or not set(before) <= set(now):  # the first one seen, or a new plan
            if len(now) > 3:
                done = sum(1 for st, _ in now.values() if st == "done")
                return [f"checklist: {len(now)} item(s), {done} done "
                        "(supervisor-ctl checklist lists them)"]
            before = {}
        return [f"checklist: {self.ICONS.get(st, '[?]')} {title}"
                + ("" if item_id in before else " (new)")
                for item_id, (st, title) in now.items() if before.get(item_id) != (st, title)]

    def _daemon(self, data: dict[str, Any]) -> list[str]:
        if isinstance(data.get("campaign"), dict):
            return self._campaign(data["campaign"])
        if "reload" not in data:
            return [f"daemon: {text(data)}"]
        return [f"profiles reloaded ({text(data.get('why'))}): {reload_summary(data['reload'])}"]

    def _campaign(self, c: dict[str, Any]) -> list[str]:
        """A campaign's step: its status, where it is, and its latest note (once each)."""
        at = f", at {c['current']}" if c.get("current") else ""
        return self._once("campaign", f"campaign {text(c.get('campaign'))}: "
                                      f"{text(c.get('status'))}{at}: {text(c.get('note'))}")

    def _dropped(self, data: dict[str, Any]) -> list[str]:
        return [f"({text(data.get('count'))} events dropped: this client reads too slowly)"]


def _cut(line: str, width: int) -> str:
    return line if len(line) <= width else line[:width - 1] + "…"


def reload_summary(diff: dict[str, Any]) -> str:
    parts = [f"{key} {', '.join(diff[key])}" for key in ("added", "changed", "removed", "invalid")
             if diff.get(key)]
    errors = diff.get("errors") or []
    if errors:
        parts.append(f"{len(errors)} error(s), first: {errors[0]}")
    return "; ".join(parts) or "no change"


def format_event(ev: dict[str, Any]) -> str:
    """One event on its own (no memory of earlier ones)."""
    return "\n".join(EventStory().lines(ev))


def benchmark_summary(b: dict[str, Any]) -> str:
    if b.get("tokens_per_s"):
        return (f"{b['tokens_per_s']:g} tok/s, TTFT {text(b.get('ttft_ms'))} ms, "
                f"{text(b.get('tokens'))} tokens in {text(b.get('duration_s'))} s")
    if b.get("error"):
        return f"did not complete: {b['error']}"
    return text({k: v for k, v in b.items() if k != "started"})


def format_stored_event(ev: dict[str, Any], runs: dict[Any, str] | None = None) -> str:
    """A row of the daemon's event history: ``{ts, run_id, kind, data}``."""
    stamp = time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ev.get("ts") or 0))
    run_id = ev.get("run_id")
    who = ""
    if run_id is not None:
        who = f"run #{run_id}" + (f" {runs[run_id]}" if runs and run_id in runs else "") + ": "
    data = ev.get("data") or {}
    kind = ev.get("kind")
    if kind == "reload":
        return f"{stamp} {who}profiles reloaded ({text(data.get('why'))}): {reload_summary(data)}"
    if kind == "stacks" and data.get("files"):
        files = data["files"]
        took = f", {data['took_s']:g} s" if isinstance(data.get("took_s"), (int, float)) else ""
        return (f"{stamp} {who}stack dumps: {len(files)} file(s) in "
                f"{os.path.dirname(files[0])}{took}")
    if kind == "shm_removed" and data.get("files"):
        files = [str(f) for f in data["files"]]
        shown = first_few(files)
        size = data.get("bytes")
        mib = f" ({size / 2**20:.1f} MiB)" if isinstance(size, (int, float)) else ""
        return (f"{stamp} {who}removed {len(files)} shared-memory file(s) it left in "
                f"/dev/shm{mib}: {shown}")
    if kind == "benchmark":
        return f"{stamp} {who}benchmark: {benchmark_summary(data)}"
    if kind == "status":
        cause = f" (cause {data['cause']})" if data.get("cause") else ""
        return f"{stamp} {who}{text(data.get('status'))}{cause}"
    if kind == "ready" and data.get("how"):
        return f"{stamp} {who}ready because of the {text(data['how'])}"
    return f"{stamp} {who}{kind}" + (f": {text(data)}" if data else "")


def format_wait(r: dict[str, Any]) -> str:
    out = [f"requested: {r['requested']} -> {'READY' if r['ok'] else 'FAILED'}"]
    v = r.get("verdict")
    if v:
        out.append(f"verdict:   {text(v.get('status'))} in {text(v.get('phase'))}, cause "
                   f"{text(v.get('cause'))}")
        out += [f"  evidence: {e}" for e in v.get("evidence") or []]
    if r.get("culprits"):
        out.append(f"culprits:  {', '.join(r['culprits'])}")
    out.append(f"serving:   {_serving(r.get('serving'))}")
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


def unreachable(path: str, exc: BaseException) -> str:
    """Why the daemon could not be reached, and where to look (ctl and the MCP server)."""
    why = f"cannot reach the daemon at {path}: {getattr(exc, 'strerror', None) or exc}"
    if isinstance(exc, (FileNotFoundError, ConnectionRefusedError)):
        return (why + "; is it running? (systemctl status gpu-node-supervisor, or start "
                "supervisor-daemon); a daemon elsewhere: --socket PATH or GNS_SOCKET")
    return why


# -- serving metrics (supervisor-ctl metrics) ---------------------------------------------
_SERVING_COLS = (("gen_throughput", "gen tok/s", "{:.1f}"),
                 ("prompt_throughput", "prompt tok/s", "{:.1f}"),
                 ("running", "running", "{:.0f}"), ("queued", "queued", "{:.0f}"),
                 ("token_usage", "KV use", "{:.0%}"), ("cache_hit_rate", "cache hit", "{:.0%}"),
                 ("accept_len", "accept len", "{:.2f}"), ("gpu_util", "GPU %", "{:.0f}"),
                 ("gpu_power_frac", "GPU power", "{:.0%}"))
_METRICS_ROWS = 30


def serving_line(srv: dict[str, Any]) -> str:
    """The latest serving values in one line: ``gen 812.0 tok/s, running 3, ...``."""
    parts = [f"{label} {fmt.format(srv[key])}" for key, label, fmt in _SERVING_COLS
             if isinstance(srv.get(key), (int, float))]
    progress = srv.get("last_progress")
    parts.append(f"last progress {_ago(progress)} ago" if progress else "no progress yet")
    answered = answers_text(srv.get("answers"))
    if answered:
        parts.append(answered)
    return ", ".join(parts)


def answers_text(answers: Any) -> str | None:
    """``answers 120 ok, 35 refused (4xx), 2 failed (5xx)``; None before any request."""
    if not isinstance(answers, dict) or not any(answers.values()):
        return None
    out = [f"answers {answers.get('2xx', 0)} ok"]
    if answers.get("4xx"):
        out.append(f"{answers['4xx']} refused (4xx)")
    if answers.get("5xx"):
        out.append(f"{answers['5xx']} failed (5xx)")
    return ", ".join(out)


def format_metrics(r: dict[str, Any]) -> str:
    if r.get("run_id") is None:
        return "no run: nothing serves (start one with supervisor-ctl switch PROFILE)"
    head = f"run #{r['run_id']} {r['profile']} ({r['engine']}, {r['status']})"
    srv = r.get("serving")
    if not srv:
        why = ("the command engine logs no serving stats" if r["engine"] == "command"
               else "no batch or stats line since ready (no request yet?)")
        return f"{head}\nserving: none: {why}"
    out = [head, f"now:  {serving_line(srv)}"]
    for sign in srv.get("hang_signs") or []:
        out.append(f"engine warning: {sign}")
    if srv.get("last_refused"):
        out.append(f"last refused: {srv['last_refused']}")
    canary = srv.get("canary")
    if canary:
        out.append(f"canary: {canary.get('request')} -> {canary.get('answer')} "
                   f"{_ago(canary.get('t'))} ago ({canary.get('count')} sent, "
                   f"{canary.get('failures')} unanswered)")
    if srv.get("scrape_error"):
        out.append(f"engine /metrics: {srv['scrape_error']}")
    rows = r.get("series") or []
    cols = [c for c in _SERVING_COLS if any(c[0] in row for row in rows)]
    if not rows:
        return "\n".join(out + ["series: no samples in that window"])
    if len(rows) > _METRICS_ROWS:
        out.append(f"({len(rows) - _METRICS_ROWS} earlier samples not shown; --json has all)")
        rows = rows[-_METRICS_ROWS:]
    out.append("  ".join(["time    "] + [f"{label:>{len(label)}}" for _, label, _ in cols]))
    for row in rows:
        cells = [time.strftime("%H:%M:%S", time.localtime(row["t"]))]
        for key, label, fmt in cols:
            v = row.get(key)
            cells.append(f"{fmt.format(v) if v is not None else '-':>{len(label)}}")
        out.append("  ".join(cells))
    return "\n".join(out)

