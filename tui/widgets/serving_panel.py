"""Serving: how the ready server serves, one line per metric (a sparkline and the value now).

Shown only while the run reports ``serving`` (the engine's own stats lines, after ready). The
series is a bounded deque: filled once from the ``metrics`` command, then extended with each
newer ``status.run.serving`` the screen binds down. GPU power and utilisation come from the
GPUs' own history (the ``gpus`` topic). A busy GPU drawing little power is a spin, not
compute: that line says so.
"""

from __future__ import annotations

from collections import deque
from typing import Any

from rich.console import Group
from rich.text import Text
from textual.reactive import reactive
from textual.widgets import Static

from .. import formatting as fmt

HISTORY = 600          # rows kept (the daemon samples at most once a second)
LABEL = 10             # width of the label column
SPIN_UTIL = 90.0       # utilisation at or above this with ...
SPIN_POWER = 0.3       # ... less than this share of the power limit reads "busy, low power"
STALE_S = 15.0         # older figures are flagged: vLLM logs stats every 10 s while busy


def column(rows: list[dict[str, Any]], key: str) -> list[float]:
    return [v for v in (fmt.num(r.get(key)) for r in rows) if v is not None]


def row(label: str, sparks: list[tuple[list[float], float | None]], value: Text,
        width: int) -> Text:
    """``label``, its sparklines sharing what room the value leaves, then the value: the
    value is never what gets cut."""
    out = Text(no_wrap=True, overflow="ellipsis")
    out.append(label.ljust(LABEL), "bold")
    room = max(3 * len(sparks), min(60, width - LABEL - value.cell_len - len(sparks)))
    each = room // len(sparks)
    for i, (values, top) in enumerate(sparks):
        if i:
            out.append(" ")
        # right-aligned: the newest sample sits next to the value now
        out.append(fmt.sparkline(values, each, top=top).rjust(each), "cyan")
    out.append(" ")
    out.append_text(value)
    return out


def _gpu_series(gpus: list[Any], key: str) -> list[float]:
    """The GPUs' history of ``key`` combined: utilisation averaged, power summed."""
    hists = [fmt.as_list(fmt.as_dict(fmt.as_dict(g).get("history")).get(key)) for g in gpus]
    n = min((len(h) for h in hists), default=0)
    out = []
    for i in range(-n, 0):
        vals = [v for v in (fmt.num(h[i]) for h in hists) if v is not None]
        if vals:
            out.append(sum(vals) / len(vals) if key == "util" else sum(vals))
    return out


def gpu_line(gpus: list[Any], width: int) -> Text | None:
    gs = [fmt.as_dict(g) for g in fmt.as_list(gpus)]
    if not gs:
        return None
    power = [p for p in (fmt.num(g.get("power_w")) for g in gs) if p is not None]
    limit = [p for p in (fmt.num(g.get("power_limit_w")) for g in gs) if p is not None]
    util = [u for u in (fmt.num(g.get("utilization_gpu")) for g in gs) if u is not None]
    top = sum(limit) if len(limit) == len(gs) and limit else None
    watts = sum(power) if power else None
    value = Text(f"{watts:.0f}W" if watts is not None else "–W")
    if watts is not None and top:
        value.append(f" ({watts / top:.0%} of limit)", "dim")
    mean_util = sum(util) / len(util) if util else None
    value.append(f" util {mean_util:.0f}%" if mean_util is not None else " util –")
    if (mean_util is not None and watts is not None and top and mean_util >= SPIN_UTIL
            and watts / top < SPIN_POWER):
        value.append(" busy at low power: a spin?", "bold yellow")
    return row("GPU W/%", [(_gpu_series(gs, "power"), top), (_gpu_series(gs, "util"), 100.0)],
               value, width)


def serving_lines(serving: Any, rows: list[dict[str, Any]], gpus: list[Any],
                  width: int) -> list[Text]:
    """The panel's lines for a panel ``width`` columns wide (inside its border)."""
    now = fmt.as_dict(serving)

    def value(key: str) -> float | None:
        v = fmt.num(now.get(key))
        if v is None:
            col = column(rows, key)
            v = col[-1] if col else None
        return v

    lines: list[Text] = []
    gen, prompt = value("gen_throughput"), value("prompt_throughput")
    shown = Text(f"{gen:,.0f} gen" if gen is not None else "– gen")
    if prompt is not None:
        shown.append(f" · {prompt:,.0f} prompt", "dim")
    lines.append(row("tok/s", [(column(rows, "gen_throughput"), None)], shown, width))

    running, queued = value("running"), value("queued")
    shown = Text(f"{fmt.text(running)} running · {fmt.text(queued)} queued")
    lines.append(row("run/queue", [(column(rows, "running"), None),
                                   (column(rows, "queued"), None)], shown, width))

    usage, hit = value("token_usage"), value("cache_hit_rate")
    shown = Text(f"{usage:.0%} used" if usage is not None else "– used")
    if hit is not None:
        shown.append(f" · hit {hit:.0%}", "dim")
    lines.append(row("KV cache", [(column(rows, "token_usage"), 1.0)], shown, width))

    accept, rate = value("accept_len"), value("accept_rate")
    if accept is not None:  # only with speculative decoding
        shown = Text(f"{accept:.2f} tokens/step")
        if rate is not None:
            shown.append(f" · {rate:.0%}", "dim")
        lines.append(row("accept", [(column(rows, "accept_len"), None)], shown, width))

    answers = now.get("answers")
    if isinstance(answers, dict) and any(answers.values()):
        refused = (answers.get("4xx") or 0) + (answers.get("5xx") or 0)
        shown = Text(no_wrap=True, overflow="ellipsis")
        shown.append("answers ", "dim")
        shown.append(f"{answers.get('2xx') or 0} ok")
        if refused:
            shown.append(f" · {answers.get('4xx') or 0} 4xx · {answers.get('5xx') or 0} 5xx",
                         "bold yellow" if not answers.get("2xx") else "yellow")
        lines.append(shown)
        last = now.get("last_refused")
        if refused and isinstance(last, str):
            lines.append(Text(f"  last: {last}", "dim", no_wrap=True, overflow="ellipsis"))

    gl = gpu_line(gpus, width)
    if gl is not None:
        lines.append(gl)
    for sign in fmt.str_list(now.get("hang_signs"))[-1:]:
        warn = Text(no_wrap=True, overflow="ellipsis")
        warn.append("⚠ hang sign: ", "bold yellow")
        warn.append(sign)
        lines.append(warn)
    return lines


def serving_title(serving: dict[str, Any], now: float) -> str:
    """``serving · sglang from its log``, and how old the newest stats line is once that is
    more than a stats interval: SGLang prints nothing when it goes idle, so "1 running" and
    the last throughput stay on screen long after the request ended."""
    engine = fmt.text(serving.get("engine"), "")
    source = fmt.text(serving.get("source"), "")
    title = "serving" + (f" · {engine}" if engine else "") + (
        f" from its {source}" if source else "")
    times = [t for t in (fmt.num(serving.get(k)) for k in ("updated", "scraped")) if t]
    if times and now - max(times) >= STALE_S:
        title += f", newest figures {fmt.fmt_duration(now - max(times))} old"
    elif not times and serving:
        title += ", no stats line yet"
    return title


class ServingPanel(Static):
    """Hidden until the run reports serving metrics; keeps their recent series."""

    DEFAULT_CSS = """
    ServingPanel {
        display: none;
        height: auto;
        padding: 0 1;
        border: round $primary-darken-2;
        border-title-color: $text-muted;
    }
    ServingPanel.-shown { display: block; }
    ServingPanel.-compact { border: none; padding: 0; }
    """

    run: reactive[dict[str, Any] | None] = reactive(None, layout=True)
    gpus: reactive[list[Any]] = reactive(list, layout=True)
    # (run id, rows) from the ``metrics`` command: the first fill of the series
    serving_fill: reactive[tuple[Any, list[Any]] | None] = reactive(None)
    now: reactive[float] = reactive(0.0)  # wall clock, from the app's tick

    def __init__(self, **kwargs: Any) -> None:
        super().__init__(**kwargs)
        self.rows: deque[dict[str, Any]] = deque(maxlen=HISTORY)
        self._run_id: Any = None

    def on_mount(self) -> None:
        self.border_title = "serving"

    @property
    def serving(self) -> dict[str, Any]:
        return fmt.as_dict(fmt.as_dict(self.run).get("serving"))

    def _follow_run(self, run_id: Any) -> None:
        if run_id != self._run_id:
            self._run_id = run_id
            self.rows.clear()

    def watch_serving_fill(self, fill: tuple[Any, list[Any]] | None) -> None:
        if not fill:
            return
        run_id, rows = fill
        self._follow_run(run_id)
        have = {fmt.num(r.get("t")) for r in self.rows}
        merged = [fmt.as_dict(r) for r in rows if fmt.num(fmt.as_dict(r).get("t")) is not None]
        merged = [r for r in merged if r["t"] not in have] + list(self.rows)
        self.rows.clear()
        self.rows.extend(sorted(merged, key=lambda r: r["t"]))
        self.refresh(layout=True)

    def watch_run(self, run: dict[str, Any] | None) -> None:
        r = fmt.as_dict(run)
        self._follow_run(r.get("id"))
        serving = self.serving
        self.set_class(bool(serving), "-shown")
        t = fmt.num(serving.get("updated"))
        last = fmt.num(self.rows[-1].get("t")) if self.rows else None
        if t is not None and (last is None or t > last):
            self.rows.append({"t": t, **serving})
        self._set_title()

    def watch_now(self, now: float) -> None:
        self._set_title()

    def _set_title(self) -> None:
        self.border_title = serving_title(self.serving, self.now)

    def render(self) -> Group:
        width = self.size.width or 76
        return Group(*serving_lines(self.serving, list(self.rows), fmt.as_list(self.gpus),
                                    width))
