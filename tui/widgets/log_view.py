"""The live log: batched, bounded, filterable, searchable; pauses when the user scrolls up.

Lines arrive through :meth:`LogPanel.append` (cheap: a list append) and reach the ``Log``
widget in one ``write_lines`` per flush interval, so a flood of 10k lines/s costs a dozen
writes a second. Raw lines are kept in a bounded ring buffer for re-filtering, each beside
its level (worked out once, as it arrives), so changing the level filter never re-reads a line.
"""

from __future__ import annotations

from collections import deque
from collections.abc import Iterable

from rich.highlighter import Highlighter
from rich.text import Text
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import Vertical
from textual.reactive import reactive
from textual.widgets import Input, Log, Static

from .. import formatting as fmt


class NeedleHighlighter(Highlighter):
    """Marks every case-insensitive occurrence of the search text in a line."""

    STYLE = "bold black on yellow"

    def __init__(self) -> None:
        self.needle = ""

    def highlight(self, text: Text) -> None:
        if not self.needle:
            return
        low, needle, n = text.plain.lower(), self.needle.lower(), len(self.needle)
        start = low.find(needle)
        while start >= 0:
            text.stylize(self.STYLE, start, start + n)
            start = low.find(needle, start + n)


class LogPanel(Vertical):
    DEFAULT_CSS = """
    LogPanel {
        height: 1fr;
        border: round $primary-darken-2;
        border-title-color: $text-muted;
    }
    LogPanel > #log-bar { height: 1; padding: 0 1; background: $boost; }
    LogPanel > #log-bar.-paused { background: $warning 30%; }
    LogPanel > Input { display: none; height: 3; border: round $accent;
                       border-title-color: $text; }
    LogPanel > Input.-open { display: block; }
    LogPanel > Log { height: 1fr; }
    """

    BINDINGS = [
        Binding("end", "follow", "Follow", show=False),
        Binding("escape", "close_input", "Close", show=False),
        Binding("n", "search_next", "Next match", show=False),
    ]

    level: reactive[str] = reactive("all")
    needle: reactive[str] = reactive("")

    def __init__(self, *, max_lines: int = 5000, flush_interval: float = 0.08,
                 id: str | None = None) -> None:
        super().__init__(id=id)
        self.max_lines = max_lines
        self.flush_interval = flush_interval
        # (level rank, line) pairs: every kept line, and those not yet written to the Log.
        self._all: deque[tuple[int, str]] = deque(maxlen=max_lines)
        self._pending: deque[tuple[int, str]] = deque(maxlen=max_lines)
        self._bar_state: tuple[object, ...] | None = None
        self._new_while_paused = 0
        self._input_mode = ""
        self._search = ""
        self._match_line: int | None = None
        self._match_info = ""
        self.total_received = 0
        self.following = True

    def compose(self) -> ComposeResult:
        yield Static(id="log-bar")
        yield Input(id="log-input")
        log = Log(max_lines=self.max_lines, id="log")
        log.highlighter = self._marker = NeedleHighlighter()
        yield log

    def on_mount(self) -> None:
        self.border_title = "log"
        self.set_interval(self.flush_interval, self.flush)
        self.watch(self.query_one(Log), "scroll_y", self._scrolled, init=False)
        self._update_bar()

    def on_resize(self) -> None:
        """The panels above grew or shrank: a following log stays at its end (a relayout
        changes the end without a scroll event)."""
        if self.following:
            self.query_one(Log).scroll_end(animate=False)

    def _scrolled(self, old: float, new: float) -> None:
        """Scrolling up pauses; reaching the end again follows."""
        log = self.query_one(Log)
        if new < old - 0.5 and new < log.max_scroll_y:
            self.following = False
        elif new >= log.max_scroll_y:
            self.following = True
            self._new_while_paused = 0
        self._update_bar()

    # -- feeding ------------------------------------------------------------------------

    def append(self, lines: Iterable[str]) -> None:
        """Queue lines for the next flush (may be called at any rate)."""
        keep, pend, rank = self._all.append, self._pending.append, fmt.level_rank
        n = 0
        for line in lines:
            # Keep the control characters of a hostile log out of the terminal.
            clean = line.replace("\r", "").replace("\x1b", "␛") if isinstance(line, str) \
                else str(line)
            entry = (rank(clean), clean)
            keep(entry)
            pend(entry)
            n += 1
        self.total_received += n

    def replace(self, lines: Iterable[str]) -> None:
        """Start over with these lines (a fresh tail after a (re)connect)."""
        self._all.clear()
        self._pending.clear()
        self.append(lines)
        self._pending.clear()
        self._rebuild()

    def _select(self, entries: Iterable[tuple[int, str]]) -> list[str]:
        """The lines of ``entries`` that pass the level and text filters."""
        low = fmt.min_rank(self.level)
        needle = self.needle.lower()
        if needle:
            return [ln for r, ln in entries if r >= low and needle in ln.lower()]
        if low:
            return [ln for r, ln in entries if r >= low]
        return [ln for _, ln in entries]

    def flush(self) -> None:
        """Write pending lines that pass the filters, in one call."""
        if self._pending:
            lines = self._select(self._pending)
            self._pending.clear()
            if lines:
                log = self.query_one(Log)
                log.write_lines(lines, scroll_end=False)
                if self.following:
                    log.scroll_end(animate=False)
                else:
                    self._new_while_paused += len(lines)
                self._update_bar()

    def _rebuild(self) -> None:
        log = self.query_one(Log)
        lines = self._select(self._all)
        if lines != log.lines:  # (often the same: no DEBUG lines, or no error lines either)
            log.clear()
            log.write_lines(lines)
        self._pending.clear()  # all of them are in the view now
        self._recount_matches()
        self.following = True
        log.scroll_end(animate=False)
        self._new_while_paused = 0
        self._update_bar()

    @property
    def paused(self) -> bool:
        return not self.following

    @property
    def shown_lines(self) -> list[str]:
        return list(self.query_one(Log).lines)

    def _update_bar(self) -> None:
        paused = self.paused
        state = (paused, self._new_while_paused, self.level, self.needle, self._match_info)
        if state == self._bar_state:
            return  # (called on every flush and scroll; the bar rarely changes)
        self._bar_state = state
        bar = Text(no_wrap=True, overflow="ellipsis")
        if paused:
            bar.append("⏸ paused", "bold")
            if self._new_while_paused:
                bar.append(f" · {self._new_while_paused} new lines", "bold")
            bar.append(" (End: follow)")
        else:
            bar.append("● following", "green")
        bar.append(f" · level {self.level}")
        if self.needle:
            bar.append(" · filter ")
            bar.append(f"“{self.needle}”", "bold")
        if self._match_info:
            bar.append(f" · {self._match_info}")
        bar_widget = self.query_one("#log-bar", Static)
        bar_widget.update(bar, layout=False)  # (one line high whatever it says)
        bar_widget.set_class(paused, "-paused")

    def _recount_matches(self) -> None:
        """After the shown lines change as a whole, the old ``match i/n`` is wrong: count
        again and start from the top with ``n``."""
        self._match_line = None
        if self._search:
            needle = self._search.lower()
            hits = sum(1 for ln in self.query_one(Log).lines if needle in ln.lower())
            self._match_info = (f"{hits} match{'es' if hits != 1 else ''} for "
                                f"“{self._search}” (n: next)")
        else:
            self._match_info = ""

    def _mark(self, needle: str) -> None:
        """Highlight ``needle`` in the shown lines (nothing when empty)."""
        log = self.query_one(Log)
        self._marker.needle = needle
        log.highlight = bool(needle)
        log.refresh_lines(0, len(log.lines))

    # -- filters ------------------------------------------------------------------------

    def watch_level(self) -> None:
        if self.is_mounted:
            self._rebuild()

    def watch_needle(self) -> None:
        if self.is_mounted:
            self._rebuild()

    def cycle_level(self) -> None:
        levels = fmt.LEVELS
        self.level = levels[(levels.index(self.level) + 1) % len(levels)]

    def open_input(self, mode: str) -> None:
        """Show the input line for ``filter`` or ``search``."""
        self._input_mode = mode
        field = self.query_one(Input)
        if mode == "filter":
            field.border_title = "filter: show only lines containing"
            field.placeholder = "text (Enter applies, empty clears, Esc closes)"
        else:
            field.border_title = "search: find and highlight"
            field.placeholder = "text (Enter finds, then n for the next match, Esc closes)"
        field.value = self.needle if mode == "filter" else self._search
        field.add_class("-open")
        field.focus()

    def action_close_input(self) -> None:
        field = self.query_one(Input)
        if field.has_class("-open"):
            field.remove_class("-open")
            self.query_one(Log).focus()

    def on_input_changed(self, event: Input.Changed) -> None:
        event.stop()
        if self._input_mode == "filter":
            self.needle = event.value

    def on_input_submitted(self, event: Input.Submitted) -> None:
        event.stop()
        if self._input_mode == "filter":
            self.needle = event.value
            self.action_close_input()
        else:
            self._search = event.value
            self._match_line = None
            self._mark(self._search)
            self.action_close_input()
            if self._search:
                self.action_search_next()
            else:
                self._match_info = ""
                self._update_bar()

    def action_follow(self) -> None:
        self.following = True
        self.query_one(Log).scroll_end(animate=False)
        self._new_while_paused = 0
        self._update_bar()

    def action_search_next(self) -> None:
        """Jump to the next line containing the search text (wrapping), which pauses follow."""
        if not self._search:
            return
        log = self.query_one(Log)
        needle = self._search.lower()
        hits = [i for i, ln in enumerate(log.lines) if needle in ln.lower()]
        if not hits:
            self._match_info = f"no match for “{self._search}”"
            self._update_bar()
            return
        after = self._match_line if self._match_line is not None else -1
        nxt = next((i for i in hits if i > after), hits[0])
        self._match_line = nxt
        self._match_info = f"match {hits.index(nxt) + 1}/{len(hits)} at line {nxt + 1}"
        self.following = False
        log.scroll_to(y=max(0, nxt - 2), animate=False)
        self._update_bar()
