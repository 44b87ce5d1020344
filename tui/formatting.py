"""Pure helpers that turn daemon replies into text: no widgets, no I/O, never raise.

Every daemon reply may lack keys or carry nulls or the wrong types (an older or newer daemon,
a half-started run). Everything here accepts ``Any`` and degrades to a dash, so a widget can
render whatever arrived.
"""

from __future__ import annotations

import math
import re
from collections.abc import Iterable
from typing import Any

from rich.text import Text

from supervisor.protocol.vocabulary import BENIGN_THROTTLE

PHASES = ("launch", "weight_loading", "kv_cache_alloc", "cuda_graph_capture", "warmup",
          "ready", "serving")
PHASE_SHORT = {"launch": "launch", "weight_loading": "weights", "kv_cache_alloc": "kv-cache",
               "cuda_graph_capture": "graphs", "warmup": "warmup", "ready": "ready",
               "serving": "serving"}
FAILED = frozenset({"crashed", "hung", "timeout", "unhealthy"})
LIVE = frozenset({"starting", "ready", "stopping"})
STATUS_STYLE = {
    "starting": "bold yellow",
    "ready": "bold green",
    "stopping": "bold yellow",
    "stopped": "dim",
    "crashed": "bold white on red",
    "hung": "bold white on dark_orange3",
    "timeout": "bold white on magenta",
    "unhealthy": "bold white on red",
}
CHECK_ICON = {"pending": ("·", "dim"), "in_progress": ("▶", "bold yellow"),
              "done": ("✔", "green"), "failed": ("✘", "bold red"), "skipped": ("–", "dim")}
LEVELS = ("all", "info", "warning", "error")
_LEVEL_RANK = {"debug": 0, "info": 1, "warning": 2, "error": 3}
_ERROR_RE = re.compile(r"(?i)\b(error|exception|traceback|fatal|critical|killed|sigquit)\b"
                       r"|Error:")
_WARN_RE = re.compile(r"(?i)\b(warn|warning)\b")
_DEBUG_RE = re.compile(r"\bDEBUG\b")
_SPARK = "▁▂▃▄▅▆▇█"
# The dot before a GPU's row, by its health level (every level in GPU_LEVELS has one).
LEVEL_STYLE = {"unknown": "dim", "ok": "green", "warn": "yellow", "critical": "bold red",
               "lost": "bold red"}


# -- tolerant accessors -------------------------------------------------------------------

def as_dict(value: Any) -> dict[str, Any]:
    return value if isinstance(value, dict) else {}


def as_list(value: Any) -> list[Any]:
    if isinstance(value, list):
        return value
    if isinstance(value, tuple):
        return list(value)
    return []


def num(value: Any) -> float | None:
    """A finite number, or None (bools, strings, NaN and nulls are not numbers)."""
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        return None
    return float(value) if math.isfinite(value) else None


def text(value: Any, default: str = "–") -> str:
    """Any value as words for a person: lists joined, numbers without float noise, never a
    Python repr (``None``, ``['a']``, ``{...}``)."""
    if value is None or value == "" or value == [] or value == {}:
        return default
    if isinstance(value, bool):
        return "yes" if value else "no"
    if isinstance(value, float):
        return f"{value:g}"
    if isinstance(value, (list, tuple)):
        return ", ".join(text(v) for v in value)
    if isinstance(value, dict):
        return ", ".join(f"{k} {text(v)}" for k, v in value.items())
    return str(value)


def value_text(value: Any) -> str:
    """A profile value as it is written in a TOML profile (strings quoted); unset values say
    so."""
    if value is None:
        return "(unset)"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (int, float)):
        return f"{value:g}" if isinstance(value, float) else str(value)
    if isinstance(value, str):
        return '"' + value.replace("\\", "\\\\").replace('"', '\\"') + '"'
    if isinstance(value, (list, tuple)):
        return "[" + ", ".join(value_text(v) for v in value) + "]"
    if isinstance(value, dict):
        inner = ", ".join(f"{k} = {value_text(v)}" for k, v in value.items())
        return "{ " + inner + " }" if inner else "{}"
    return str(value)


def flat_settings(value: Any, prefix: str = "") -> list[str]:
    """A nested settings table as ``a.b.c = value`` lines, sorted."""
    if not isinstance(value, dict) or (prefix and not value):
        return [f"{prefix} = {value_text(value)}"] if prefix else []
    out: list[str] = []
    for key in sorted(value, key=str):
        out += flat_settings(value[key], f"{prefix}.{key}" if prefix else str(key))
    return out


def str_list(value: Any) -> list[str]:
    """A list of strings from a list, a single string or nothing."""
    if isinstance(value, str):
        return [value] if value else []
    return [str(v) for v in as_list(value) if v is not None]


# -- formatting ---------------------------------------------------------------------------

def fmt_duration(seconds: Any) -> str:
    s = num(seconds)
    if s is None:
        return "–"
    s = max(0.0, s)
    if s < 10:
        return f"{s:.1f}s"
    if s < 60:
        return f"{s:.0f}s"
    m, sec = divmod(int(s), 60)
    if m < 60:
        return f"{m}m{sec:02d}s"
    h, m = divmod(m, 60)
    return f"{h}h{m:02d}m"


def fmt_clock(ts: Any) -> str:
    """Epoch seconds as a local ``YYYY-MM-DD HH:MM:SS``; a dash when absent."""
    import time as _time

    t = num(ts)
    if t is None:
        return "–"
    try:
        return _time.strftime("%Y-%m-%d %H:%M:%S", _time.localtime(t))
    except (OverflowError, OSError, ValueError):
        return "–"


def status_style(status: Any) -> str:
    return STATUS_STYLE.get(str(status), "bold")


def sparkline(values: Any, width: int = 12, top: float | None = None) -> str:
    """The last ``width`` values as block characters, scaled to ``top`` (or their maximum)."""
    nums = [n for n in (num(v) for v in as_list(values)) if n is not None][-width:]
    if not nums:
        return ""
    hi = top if top else max(nums)
    if not hi or hi <= 0:
        return _SPARK[0] * len(nums)
    out = []
    for n in nums:
        idx = int(round(max(0.0, min(1.0, n / hi)) * (len(_SPARK) - 1)))
        out.append(_SPARK[idx])
    return "".join(out)


# Non-ASCII characters that ``(?i)`` matches against ASCII letters (İ ı ſ K): a line with
# one of them skips the substring pre-check below and goes straight to the regexes.
_ODD_FOLD_RE = re.compile("[\u0130\u0131\u017f\u212a]")


def line_level(line: str) -> str:
    """``error``, ``warning``, ``debug`` or ``info``.

    Cheap substring checks first (a line that cannot match a regex skips it); the regexes
    decide. Called once per line as it arrives, so it must be fast at 10k lines/s.
    """
    if line.isascii() or not _ODD_FOLD_RE.search(line):
        low = line.lower()
        maybe_error = ("error" in low or "exception" in low or "traceback" in low
                       or "fatal" in low or "critical" in low or "killed" in low
                       or "sigquit" in low)
        maybe_warn = "warn" in low
    else:
        maybe_error = maybe_warn = True
    if maybe_error and _ERROR_RE.search(line):
        return "error"
    if maybe_warn and _WARN_RE.search(line):
        return "warning"
    if "DEBUG" in line and _DEBUG_RE.search(line):
        return "debug"
    return "info"


def level_rank(line: str) -> int:
    """The line's level as a number (debug 0 … error 3), for :func:`rank_passes`."""
    return _LEVEL_RANK[line_level(line)]


def min_rank(level: str) -> int:
    """The lowest line rank a level filter lets through (0: every line)."""
    return _LEVEL_RANK.get(level, 0) if level != "all" else 0


def passes(line: str, level: str, needle: str) -> bool:
    """Whether a log line passes the level and text filters (text: case-insensitive)."""
    if needle and needle.lower() not in line.lower():
        return False
    if level == "all":
        return True
    return _LEVEL_RANK[line_level(line)] >= _LEVEL_RANK.get(level, 0)


# -- the run ------------------------------------------------------------------------------

def phase_timeline(run: dict[str, Any], now: float) -> Text:
    """``launch 3.1s › weights 1m02s › [graphs 42s]``: each phase reached, with its duration."""
    out = Text()
    phases = [as_dict(p) for p in as_list(run.get("phases"))]
    current = run.get("phase")
    run_end = num(run.get("ended"))
    if run_end is not None:
        now = run_end  # a finished run's open phase ended with it
    seen: list[str] = []
    for p in phases:
        name = str(p.get("phase") or "?")
        dur = num(p.get("duration"))
        if dur is None:
            start, end = num(p.get("started")), num(p.get("ended"))
            if start is not None:
                dur = (end if end is not None else now) - start
        if seen:
            out.append(" › ", "dim")
        is_current = name == current and p.get("ended") is None
        out.append(PHASE_SHORT.get(name, name), "bold reverse" if is_current else "")
        out.append(f" {fmt_duration(dur)}", "cyan")
        seen.append(name)
    if current and current not in seen:
        if seen:
            out.append(" › ", "dim")
        out.append(PHASE_SHORT.get(str(current), str(current)), "bold reverse")
    if not out:
        out.append("no phase yet", "dim")
    return out


def phase_clock(run: dict[str, Any], now: float) -> Text:
    """Elapsed in the current phase against its deadline, coloured as it nears the budget."""
    since = num(run.get("phase_since"))
    deadline = num(run.get("deadline_s"))
    out = Text()
    if since is None:
        return out
    elapsed = max(0.0, now - since)
    out.append(f"{PHASE_SHORT.get(str(run.get('phase')), text(run.get('phase')))} for ")
    if deadline:
        ratio = elapsed / deadline
        style = "bold red" if ratio >= 0.9 else "yellow" if ratio >= 0.7 else "green"
        out.append(f"{fmt_duration(elapsed)} / {fmt_duration(deadline)}", style)
        out.append(f" ({min(ratio, 9.99):.0%} of budget)", "dim")
    else:
        out.append(fmt_duration(elapsed), "cyan")
        out.append(" (no deadline)", "dim")
    return out


def progress_text(progress: Any, width: int = 20) -> Text:
    p = as_dict(progress)
    done, total = num(p.get("done")), num(p.get("total"))
    out = Text()
    if done is None:
        return out
    kind = text(p.get("kind"), "progress")
    out.append(f"{kind} ")
    if total and total > 0:
        frac = max(0.0, min(1.0, done / total))
        filled = int(round(frac * width))
        out.append("█" * filled, "green")
        out.append("░" * (width - filled), "dim")
        out.append(f" {done:g}/{total:g}")
    else:
        out.append(f"{done:g}")
    return out


def secs(seconds: float) -> str:
    """Whole seconds as ``24 s`` (ticks once a second), ``1m05s`` past a minute."""
    s = max(0.0, seconds)
    return f"{int(s)} s" if s < 60 else fmt_duration(s)


def live_activity(activity: Any, elapsed: float) -> dict[str, Any]:
    """The daemon's activity report moved forward by ``elapsed`` seconds since it was taken.

    The daemon publishes a run only when something changes, so a silent server's report goes
    stale at once. Output and activity since then would come with a newer report, so the quiet
    and still times grow with the clock. The state is worked out from those times: working
    while output is recent, quiet while the tree still works (CPU, disk, GPU), silent when
    nothing has moved lately, which is what the hung verdict counts (``still_s``).
    """
    a = dict(as_dict(activity))
    dt = max(0.0, elapsed)
    quiet, still = num(a.get("quiet_s")), num(a.get("still_s"))
    if quiet is None:
        return a
    a["quiet_s"] = quiet + dt
    if still is not None:
        a["still_s"] = still + dt
    silence = num(a.get("silence_s"))
    if silence is not None and still is not None:
        # "Lately" as the daemon counts output; activity is sampled each second and reports
        # come every 2 s, so a busy tree is never older than 3 s here.
        lately = min(5.0, silence / 3)
        if a["quiet_s"] < lately:
            a["state"] = "working"
        elif a["still_s"] < max(lately, 3.0):
            a["state"] = "quiet"  # no output, but the tree works (a long load)
        else:
            a["state"] = "silent"  # counting towards the hung verdict
    return a


def _signs(a: dict[str, Any]) -> str:
    """What the tree did at the last sample, as text: ``CPU 12% · reads 40 MB/s · GPU 35%``;
    with the GPUs' power draw when known (``GPU 100% at 15% of power limit``: busy at low
    power is a spin, not compute)."""
    bits = []
    if (c := num(a.get("cpu_percent"))) is not None:
        bits.append(f"CPU {c:.0f}%")
    if (r := num(a.get("read_mb_s"))) is not None and r >= 0.5:
        bits.append(f"reads {r:.0f} MB/s")
    if (g := num(a.get("gpu_util"))) is not None:
        power = num(a.get("gpu_power_frac"))
        bits.append(f"GPU {g:.0f}%" + (f" at {power:.0%} of power limit"
                                        if power is not None else ""))
    return " · ".join(bits)


def activity_text(activity: Any, status: Any = "starting", elapsed: float = 0.0,
                  stale_after: float = 10.0) -> Text:
    """The activity line: how long the server has said nothing, whether it still works, and
    while it starts how close that silence is to a hung verdict (``silent 24 s of 30 s``)."""
    a = live_activity(activity, elapsed)
    out = Text()
    if not a:
        return out
    state = text(a.get("state"), "?")
    quiet, still = num(a.get("quiet_s")), num(a.get("still_s"))
    silence = num(a.get("silence_s"))
    watched = status == "starting"  # the hang watchdog runs only until the server is ready
    # Busy, but stack samples show every busy process parked in one wait: not work.
    stuck = bool(text(a.get("stuck"), ""))
    why = "busy but stuck" if stuck else "no CPU, disk or GPU activity"
    out.append("activity ")
    if state == "working":
        out.append("working", "green")
        if quiet is not None:
            out.append(f" · last output {secs(quiet)} ago")
    elif state == "quiet":
        out.append("quiet", "yellow")
        if quiet is not None:
            out.append(f" · no output for {secs(quiet)}")
        out.append(" · but busy, so not hung", "dim")
    elif state == "silent":
        if watched and silence and still is not None:
            ratio = still / silence
            style = "bold red" if ratio >= 0.7 else "bold yellow"
            out.append(f"silent {secs(still)} of {secs(silence)}", style)
            out.append(f" · no output, {why}")
            left = silence - still
            # Rounded up, so the two counts add up to the budget (24 s of 30 s: in 6 s).
            out.append(f" · hung verdict in {secs(math.ceil(left))}" if left > 0
                       else " · hung verdict due now", style)
        else:  # a ready server is judged by its health probes, not by its silence
            idle = "stuck" if stuck else "idle" if status == "ready" else "silent"
            out.append(idle, "yellow")
            if quiet is not None:
                out.append(f" · no output for {secs(quiet)}")
            out.append(f" · {why}")
    else:
        out.append(state)
    signs = _signs(a)
    if signs and (state != "silent" or stuck):
        out.append(" · " + signs, "dim")
    if elapsed > stale_after:
        out.append(f" · (last report {secs(elapsed)} ago)", "dim")
    return out


def stuck_line(activity: Any) -> Text | None:
    """Where the stack samples show the busy processes parked, one row (cut to the panel)."""
    where = text(as_dict(activity).get("stuck"), "")
    if not where:
        return None
    out = Text("  stuck: ", "bold yellow", no_wrap=True, overflow="ellipsis")
    out.append(where, "yellow")
    return out


def evidence_lines(evidence: list[str], most: int) -> list[Text]:
    """The watchdog's reason (the first line, whole), then the latest lines, one row each:
    the panel is short, and the full evidence is in the history and the checklist."""
    if not evidence or most <= 0:
        return []
    out = [Text("  │ " + evidence[0], "italic")]
    rest = evidence[1:]
    latest = rest[-(most - 1):] if most > 1 else []
    if len(rest) > len(latest):
        out.append(Text(f"  │ (+{len(rest) - len(latest)} more lines)", "dim"))
    out += [Text("  │ " + ev, "italic", no_wrap=True, overflow="ellipsis") for ev in latest]
    return out


def exit_text(run: Any) -> str:
    """How the process ended, when that says something: a crash's exit code or signal; for a
    watchdog verdict, that the supervisor killed it (its exit code is our kill, not the cause)."""
    r = as_dict(run)
    code = r.get("exit_code")
    if isinstance(code, bool) or not isinstance(code, int):
        return ""
    how = f"killed by signal {-code}" if code < 0 else f"exit {code}"
    status = r.get("status")
    if status == "crashed":
        return how
    if status in FAILED:
        return "killed by supervisor"  # our kill's exit code says nothing of the cause
    return ""


def run_lines(run: Any, fallback: Any, verdict: Any, now: float,
              max_evidence: int = 4, seen_at: float | None = None,
              connected: bool = True) -> list[Text]:
    """The run panel, one Text per line; ``seen_at``: when the run report arrived (same clock
    as ``now``), so the activity line can count on between reports."""
    r = as_dict(run)
    if not r:
        if not connected:
            return [Text("not connected: nothing is known of the runs (see the banner)", "dim")]
        return [Text("no run yet — open Profiles (p) to start one", "dim")]
    lines: list[Text] = []
    head = Text()
    head.append(text(r.get("profile"), "?"), "bold")
    changes = str_list(r.get("changes"))
    if changes:
        head.append(" + " + ", ".join(changes), "cyan")
    head.append("  ")
    status = text(r.get("status"), "unknown")
    head.append(f" {status.upper()} ", status_style(status))
    rid = r.get("id")
    if rid is not None:
        head.append(f"  run #{rid}", "dim")
    if r.get("pid") is not None:
        head.append(f" pid {r.get('pid')}", "dim")
    ended = exit_text(r)
    if ended:
        head.append(f" {ended}", "dim")
    lines.append(head)
    lines.append(phase_timeline(r, now))
    live = status in LIVE
    if live:
        clock = phase_clock(r, now)
        if clock:
            lines.append(clock)
    prog = progress_text(r.get("progress"))
    if prog:
        lines.append(prog)
    if live:
        elapsed = now - seen_at if seen_at is not None else 0.0
        act = activity_text(r.get("activity"), status, elapsed)
        if act:
            lines.append(act)
        stuck = stuck_line(r.get("activity"))
        if stuck is not None:
            lines.append(stuck)
    v = as_dict(verdict)
    if v and v.get("run_id") is not None and rid is not None and v.get("run_id") != rid:
        v = {}
    cause = r.get("cause") or v.get("cause")
    evidence = str_list(r.get("evidence")) or str_list(v.get("evidence"))
    if status in FAILED or cause:
        verdict_line = Text()
        verdict_line.append("verdict ", "bold")
        verdict_line.append(status.upper(), status_style(status))
        verdict_line.append(f" in {text(r.get('phase') or v.get('phase'))}")
        verdict_line.append(" — cause ")
        verdict_line.append(text(cause, "unknown"), "bold red")
        lines.append(verdict_line)
        lines.extend(evidence_lines(evidence, max_evidence))
    fb = as_dict(fallback)
    attempts = as_list(fb.get("attempts"))
    if fb and (fb.get("strategy") not in (None, "none") or len(attempts) > 1):
        line = Text()
        line.append("fallback ", "bold")
        line.append(text(fb.get("strategy")))
        if attempts:
            line.append(f" · {len(attempts)} attempt{'s' if len(attempts) != 1 else ''}")
        culprits = str_list(fb.get("culprits"))
        if culprits:
            line.append(" · culprit ")
            line.append(", ".join(culprits), "bold red")
        serving = as_dict(fb.get("serving"))
        if serving:
            line.append(" · serving ")
            name = text(serving.get("profile"), "?")
            sc = str_list(serving.get("changes"))
            line.append(name + (" + " + ",".join(sc) if sc else ""), "green")
        lines.append(line)
    return lines


# -- GPUs ---------------------------------------------------------------------------------

def gpu_line(gpu: Any, spark_width: int = 10) -> Text:
    g = as_dict(gpu)
    out = Text(no_wrap=True, overflow="ellipsis")
    health = as_dict(g.get("health"))
    level = text(health.get("level"), "?")
    dot = LEVEL_STYLE.get(level, "dim")
    out.append(f"{text(g.get('index'), '?'):>2}", "bold")
    out.append(" ●", dot)
    util = num(g.get("utilization_gpu"))
    out.append(f" {util:3.0f}%" if util is not None else "    –")
    hist = as_dict(g.get("history"))
    spark = sparkline(hist.get("util"), spark_width, top=100.0)
    out.append(" " + spark.ljust(spark_width), "cyan")
    used, total = num(g.get("memory_used_mib")), num(g.get("memory_total_mib"))
    if used is not None and total:
        out.append(f" {used / 1024:4.0f}/{total / 1024:.0f}G")
    elif used is not None:
        out.append(f" {used / 1024:4.0f}G")
    else:
        out.append("    –")
    temp = num(g.get("temperature_c"))
    hot = "red" if (temp or 0) >= 85 else ""
    out.append(f" {temp:3.0f}°C" if temp is not None else "    –", hot)
    power = num(g.get("power_w"))
    out.append(f" {power:4.0f}W" if power is not None else "     –")
    throttle = [t for t in str_list(g.get("throttle_reasons")) if t not in BENIGN_THROTTLE]
    if throttle:
        out.append(" THR", "bold yellow")
    return out


def gpu_detail(gpu: Any) -> Text | None:
    """A second line for a GPU that is not healthy or is throttled: its flags and action."""
    g = as_dict(gpu)
    health = as_dict(g.get("health"))
    flags = str_list(health.get("flags"))
    throttle = [t for t in str_list(g.get("throttle_reasons")) if t not in BENIGN_THROTTLE]
    if not flags and not throttle:
        return None
    out = Text("    ", no_wrap=True, overflow="ellipsis")
    if flags:
        out.append(" ".join(flags), LEVEL_STYLE.get(str(health.get("level")), "yellow"))
    if throttle:
        out.append(" throttle: " + ",".join(throttle), "yellow")
    if health.get("action"):
        out.append(f" → {health.get('action')}", "italic")
    return out


# -- checklist ----------------------------------------------------------------------------

def checklist_label(item: Any) -> Text:
    it = as_dict(item)
    icon, style = CHECK_ICON.get(str(it.get("status")), ("?", "dim"))
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(f"{icon} ", style)
    out.append(text(it.get("title"), "(untitled)"),
               "dim" if it.get("status") in ("done", "skipped") else "")
    if it.get("auto"):
        out.append(" auto", "dim italic")
    return out


def checklist_title(items: Any) -> str:
    """``checklist 6/17 done · 1 failed · 1 running · 9 to do``: the counts of a list that may
    not fit its panel (the panel scrolls)."""
    entries = [as_dict(it) for it in as_list(items)]
    if not entries:
        return "checklist"
    counts: dict[str, int] = {}
    for it in entries:
        status = str(it.get("status"))
        counts[status] = counts.get(status, 0) + 1
    title = f"checklist {counts.get('done', 0)}/{len(entries)} done"
    for status, word in (("failed", "failed"), ("in_progress", "running"),
                         ("pending", "to do"), ("skipped", "skipped")):
        if counts.get(status):
            title += f" · {counts[status]} {word}"
    return title


def checklist_evidence(item: Any) -> Text:
    it = as_dict(item)
    if not it:
        return Text("select an item to see its evidence", "dim")
    out = Text()
    out.append(f"#{text(it.get('id'))} {text(it.get('status'))}", "bold")
    ev = str_list(it.get("evidence"))
    if not ev:
        out.append("\nno evidence yet", "dim")
    for e in ev:
        out.append("\n" + e)
    return out


# -- history ------------------------------------------------------------------------------

def phase_durations(run: Any) -> dict[str, float | None]:
    out: dict[str, float | None] = {}
    for p in as_list(as_dict(run).get("phases")):
        p = as_dict(p)
        name = p.get("phase")
        if not isinstance(name, str):
            continue
        dur = num(p.get("duration"))
        if dur is None and num(p.get("started")) is not None and num(p.get("ended")) is not None:
            dur = num(p.get("ended")) - num(p.get("started"))  # type: ignore[operator]
        out[name] = dur
    return out


def benchmark_text(bench: Any, short: bool = False) -> str:
    """A benchmark result as a person reads it: ``82.1 tok/s · TTFT 120 ms · 128 tokens in
    1.6 s``; one that failed or did not complete says so, never as a rate."""
    if bench is None or bench == {}:
        return "–"
    if not isinstance(bench, dict):
        return text(bench)
    b = bench
    if b.get("error") or b.get("complete") is False:
        why = text(b.get("error"), "").removeprefix("did not complete: ")
        head = "did not complete" if b.get("complete") is False else "failed"
        return head if short or not why else f"{head}: {why}"
    parts = []
    if (tps := num(b.get("tokens_per_s"))) is not None:
        parts.append(f"{tps:.1f} tok/s")
    elif b.get("note") and "tokens" in b:  # too few tokens or too short for a rate
        parts.append("no rate" if short else text(b.get("note")))
    if (ttft := num(b.get("ttft_ms"))) is not None:
        parts.append(f"TTFT {ttft:.0f} ms")
    if not short and (n := num(b.get("tokens"))) is not None:
        took = num(b.get("e2e_s")) or num(b.get("duration_s"))
        parts.append(f"{n:.0f} tokens" + (f" in {took:.1f} s" if took is not None else ""))
    if not parts:  # a command benchmark: its own named numbers
        skip = {"kind", "started", "duration_s", "output"}
        parts = [f"{k} {x:g}" for k in b if k not in skip and (x := num(b[k])) is not None]
    return " · ".join(parts) or "–"


def join_names(names: Iterable[Any]) -> str:
    return ", ".join(str(n) for n in names) or "–"
