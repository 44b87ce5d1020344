"""A campaign's one report: Markdown for people, JSON (the same state) for scripts."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Any


def write_report(state: dict[str, Any], folder: Path) -> tuple[Path, Path, str]:
    """Write ``ID-NAME.md`` into ``folder``; returns (markdown path, json path, markdown)."""
    folder.mkdir(parents=True, exist_ok=True)
    stem = f"{state['id']}-{state['campaign']}"
    text = markdown(state)
    md = folder / f"{stem}.md"
    md.write_text(text)
    return md, folder / f"{stem}.json", text


def markdown(state: dict[str, Any]) -> str:
    plan = state.get("plan") or {}
    took = (state.get("ended") or time.time()) - state["started"]
    lines = [f"# Campaign {state['campaign']}: {state['status']}", ""]
    if plan.get("description"):
        lines += [plan["description"], ""]
    lines += [f"- plan: {plan.get('source')}",
              f"- started {_clock(state['started'])}, took {took:.0f} s of a "
              f"{plan.get('time_budget', 0):g} s budget",
              f"- {state.get('note') or ''}", ""]
    lines += _baseline(state.get("baseline")) + [""]
    lines += ["| # | experiment | profile + changes | verdict | culprit | tok/s (vs baseline) "
              "| TTFT ms (vs baseline) | criterion | branch | evidence |",
              "|---|---|---|---|---|---|---|---|---|---|"]
    for i, row in enumerate(state.get("experiments") or [], start=1):
        lines.append(_row(i, row))
    if not state.get("experiments"):
        lines.append("| | (no experiment ran) | | | | | | | | |")
    lines += ["", f"Serving at the end: {_serving(state.get('serving'))}"
              f"{_why_serving(state.get('finish'))}", "", _how_read(state)]
    log = state.get("log") or []
    if log:
        lines += ["", "## Log", "", *[f"- {entry}" for entry in log[-40:]]]
    return "\n".join(lines) + "\n"


def _baseline(base: dict[str, Any] | None) -> list[str]:
    if not base:
        return ["Baseline: not measured."]
    bench = base.get("benchmark") or {}
    lines = [f"Baseline {base['profile']} (run #{base.get('run_id')}): "
             f"{_rate(bench)} tok/s, TTFT {_num(bench.get('ttft_ms'))} ms "
             f"({_samples(base.get('samples', 0))}, measured {_clock(base.get('measured_at'))}; "
             f"GPUs: {_gpu(bench.get('gpu'))})"]
    for old in base.get("previous") or []:
        lines.append(f"- earlier baseline run #{old.get('run_id')} "
                     f"({_clock(old.get('measured_at'))}): {_rate(old)} tok/s; "
                     f"GPUs: {_gpu(old.get('gpu'))}")
    if base.get("remeasured"):
        lines.append(f"- re-measured because {base['remeasured']}: "
                     f"{(base.get('drift') or {}).get('text', '')}")
    return lines


def _rate(bench: dict[str, Any]) -> str:
    """A mean with its spread: '82.1 +/- 0.4 (81.7-82.6)'; a lone sample as it is."""
    spread = (bench.get("spread") or {})
    spread = spread.get("tokens_per_s") if "tokens_per_s" in spread else spread
    tps = _num(bench.get("tokens_per_s"))
    if not spread or spread.get("stdev") is None:
        return tps
    return f"{tps} +/- {_num(spread.get('stdev'))} ({_num(spread['min'])}-{_num(spread['max'])})"


def _count(bench: dict[str, Any]) -> int:
    """Repetitions behind a rate: a row says how many, a benchmark lists them."""
    samples = bench.get("samples")
    return samples if isinstance(samples, int) else len(samples or ()) or 1


def _samples(n: int) -> str:
    return f"{n} sample" + ("" if n == 1 else "s")


def _gpu(gpu: dict[str, Any] | None) -> str:
    if not gpu or not gpu.get("samples"):
        return "no telemetry"
    clock = gpu.get("sm_clock_mhz") or {}
    temp = gpu.get("temperature_c") or {}
    throttle = ", ".join(gpu.get("throttle_reasons") or []) or "none"
    return (f"SM {_num(clock.get('min'))}-{_num(clock.get('max'))} MHz, up to "
            f"{_num(temp.get('max'))} C, throttling: {throttle}")


def _how_read(state: dict[str, Any]) -> str:
    benches = [(state.get("baseline") or {}).get("benchmark") or {}]
    benches += [row.get("benchmark") or {} for row in state.get("experiments") or []]
    n = [_count(b) for b in benches if b.get("tokens_per_s") is not None]
    if any(k < 2 for k in n):
        return ("Some numbers are one benchmark sample: no spread was measured for them, so "
                "differences of a few percent are not evidence of a winner (set repeat = N in "
                "the profiles' [benchmark]).")
    return ("tok/s are means over each benchmark's repetitions, +/- their standard deviation "
            "(min-max); a difference within the noise (overlapping ranges, or within twice "
            "the larger deviation) is marked so and declares no winner.")


def _row(i: int, row: dict[str, Any]) -> str:
    bench = row.get("benchmark") or {}
    what = row["profile"] + (" + " + ", ".join(row["changes"]) if row.get("changes") else "")
    branch = row.get("branch") or {}
    evidence = f"run #{row.get('run_id')}" if row.get("run_id") else ""
    if (row.get("evidence") or {}).get("log"):
        evidence += f" [log]({row['evidence']['log']})"
    cells = [str(i), row["name"], what, row["verdict"], ", ".join(row.get("culprits") or []) or "-",
             f"{_rate(bench)} ({_ratio(bench.get('vs_baseline'))}"
             + (", within the noise" if bench.get("within_noise") else "") + ")",
             f"{_num(bench.get('ttft_ms'))} ({_ratio(bench.get('ttft_vs_baseline'))})",
             ("met" if row.get("ok") else "not met") + f": {row.get('why', '')}",
             f"{branch.get('taken', '')} -> {branch.get('next') or 'end'} "
             f"({branch.get('why', '')})",
             evidence.strip()]
    return "| " + " | ".join(c.replace("|", "/") for c in cells) + " |"


def _serving(serving: dict[str, Any] | None) -> str:
    if not serving:
        return "nothing"
    changes = ", ".join(serving.get("changes") or [])
    return f"{serving['profile']}" + (f" + {changes}" if changes else "") + \
        f" (run #{serving.get('run_id')})"


def _why_serving(finish: dict[str, Any] | None) -> str:
    """Why that configuration (plan key finish = "best"): the best measured step."""
    if not finish:
        return ""
    what = f"experiment {finish['experiment']}" if finish.get("experiment") else "the baseline"
    if not finish.get("relaunched"):
        return f", {what}: the best measured, left serving"
    if finish.get("ok"):
        return f", {what}: the best measured, launched again after the last experiment"
    return f"; {what}, the best measured, was launched again and did not come up"


def _num(value: Any) -> str:
    return "-" if value is None else f"{value:g}" if isinstance(value, float) else str(value)


def _ratio(value: Any) -> str:
    return "-" if value is None else f"{value:.2f}x"


def _clock(ts: float | None) -> str:
    return "-" if ts is None else time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))
