"""`supervisor-ctl brief`: a Markdown handoff for whoever picks the work up next.

Written for a person or an AI agent arriving cold: what runs now, what happened since a time,
what was found (verdicts, culprits), what is known to work, what is measured, what is open,
and what the daemon suggests next.
"""

from __future__ import annotations

import time
from typing import Any

from .benchmark import compare


def _t(ts: float | None) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts)) if ts else "-"


def build_brief(arbiter: Any, since: float | None) -> str:
    status = arbiter.status()
    runs = arbiter.store.list_runs(500, since=since)
    out = [f"# Handoff — gpu-node-supervisor on pid {status['daemon']['pid']}",
           f"_Generated {_t(time.time())}; covering runs since "
           f"{_t(since) if since else 'the start'}._",
           ""]
    out += _now(status)
    out += _runs(runs)
    out += _findings(status, arbiter)
    out += _bench(runs, arbiter)
    out += _open_items(status)
    out += _next_steps(status, runs)
    return "\n".join(out).rstrip() + "\n"


def _now(status: dict[str, Any]) -> list[str]:
    run = status.get("run")
    if not run:
        return ["## Now", "Nothing runs.", ""]
    changes = f" + {', '.join(run['changes'])}" if run.get("changes") else ""
    lines = ["## Now",
             f"- Run #{run['id']}: **{run['profile']}{changes}** — status **{run['status']}**, "
             f"phase `{run['phase']}` since {_t(run.get('phase_since'))}, started "
             f"{_t(run.get('started'))}."]
    if run.get("cause"):
        lines.append(f"- Verdict: {run['status']} in `{run['phase']}`, cause `{run['cause']}`.")
    srv = (status.get("fallback") or {}).get("serving")
    lines.append(f"- Serving: {srv['profile']} {srv.get('changes') or ''} (run #{srv['run_id']})"
                 if srv else "- Serving: nothing.")
    return lines + [""]


def _runs(runs: list[dict[str, Any]]) -> list[str]:
    lines = ["## Runs", "| # | profile | changes | status | phase | cause | started | evidence |",
             "|---|---|---|---|---|---|---|---|"]
    for r in runs:
        ev = "; ".join((r.get("evidence") or [])[:2]).replace("|", "\\|")[:200]
        lines.append(f"| {r['id']} | {r['profile']} | {', '.join(r.get('changes') or []) or '-'}"
                     f" | {r['status']} | {r['phase']} | {r.get('cause') or '-'} | "
                     f"{_t(r['started'])} | {ev or '-'} |")
    if not runs:
        lines.append("| – | no runs in this window | | | | | | |")
    return lines + [""]


def _findings(status: dict[str, Any], arbiter: Any) -> list[str]:
    fb = status.get("fallback") or {}
    good = arbiter.store.get_meta("last_good")
    lines = ["## Findings"]
    if fb.get("culprits"):
        lines.append(f"- Culprit change(s) found by isolation: **{', '.join(fb['culprits'])}** "
                     f"(request for `{(fb.get('request') or {}).get('profile')}`).")
    else:
        lines.append("- No culprit change identified in the latest request.")
    for note in (fb.get("request") or {}).get("notes") or []:
        lines.append(f"- Note: {note}")
    if good:
        lines.append(f"- Last known good: **{good['profile']}** {good.get('changes') or ''} "
                     f"(hash `{good.get('hash')}`, run #{good.get('run_id')}).")
    return lines + [""]


def _bench(runs: list[dict[str, Any]], arbiter: Any) -> list[str]:
    rows = compare(runs, arbiter.root_profile)
    if not rows:
        return ["## Benchmarks", "No benchmark results in this window.", ""]
    lines = ["## Benchmarks", "| profile | changes | tok/s | TTFT ms | vs baseline |",
             "|---|---|---|---|---|"]
    for b in rows:
        ratio = f"{b['vs_baseline']:.2f}× {b['baseline']}" if b.get("vs_baseline") else "-"
        lines.append(f"| {b['profile']} | {', '.join(b['changes']) or '-'} | "
                     f"{b.get('tokens_per_s') or '-'} | {b.get('ttft_ms') or '-'} | {ratio} |")
    return lines + [""]


def _open_items(status: dict[str, Any]) -> list[str]:
    items = [i for i in status.get("checklist") or [] if i["status"] in ("pending", "in_progress")]
    lines = ["## Open checklist items"]
    lines += [f"- [ ] #{i['id']} {i['title']}" for i in items] or ["- none"]
    return lines + [""]


def _next_steps(status: dict[str, Any], runs: list[dict[str, Any]]) -> list[str]:
    steps: list[str] = []
    fb = status.get("fallback") or {}
    run = status.get("run") or {}
    if fb.get("culprits"):
        steps.append(f"Investigate {', '.join(fb['culprits'])} on its own (stack dumps and the "
                     "log of its failed run are in the run folder) before re-enabling it.")
    if run.get("status") in ("hung", "timeout"):
        steps.append("Read the stack dumps of the hung run (`supervisor-ctl history`, run folder"
                     " `stacks/`) to see where each rank waits.")
    if run.get("cause") in ("cuda_oom", "kv_cache_oom"):
        steps.append("Adjust memory: `mem-fraction-static`, `cuda-graph-max-bs`, context length.")
    if run.get("cause") == "port_in_use":
        steps.append("Free the port the profile uses (`ss -ltnp`) or change `launch.port`.")
    if run.get("cause") == "gpu_fault":
        steps.append("A GPU is failing or held by another process: see `supervisor-ctl gpus`.")
    if run.get("cause") == "import_error":
        steps.append("Fix the environment (torch / sgl-kernel / CUDA versions); other configs "
                     "of the same environment will fail the same way.")
    gpus = status.get("gpus") or []
    if any(g.get("health", {}).get("level") in ("warn", "critical") for g in gpus):
        steps.append("Check the GPUs flagged in `supervisor-ctl gpus` before the next launch.")
    if not steps and run.get("status") in ("crashed", "hung", "timeout", "unhealthy"):
        steps.append(f"Read the evidence of run #{run.get('id')} and its log "
                     f"(`supervisor-ctl logs --run {run.get('id')}`), then decide the next "
                     "experiment; the checklist holds what the daemon already checked.")
    if not steps:
        steps.append("Nothing is failing: continue the campaign with the next experiment "
                     "(`supervisor-ctl switch PROFILE --wait`).")
    return ["## Suggested next steps", *[f"1. {s}" for s in steps], ""]
