"""Help: keys, what the colours and icons mean, and where the palette is.

Rendered by Rich's Markdown in one Static (Textual's Markdown widget mounts a widget per
block and table cell: ~0.3 s to open); the App installs one instance and reuses it.
"""

from __future__ import annotations

from rich.markdown import Markdown
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.screen import Screen
from textual.widgets import Footer, Static

HELP = """\
# supervisor-tui

Everything is in the **command palette** (`ctrl+p`): type a few letters of an action.

| key | action |
|---|---|
| `p` | profiles: resolved view, diff, switch (with confirmation) |
| `h` | history: runs side by side, phase timings, verdicts, benchmarks |
| `b` | the handoff brief |
| `c` | campaign: the plan as a tree, branches taken, results vs baseline, the report |
| `g` | launch group: ranks side by side, the group's verdict, coordination |
| `a` / `d` | add a checklist item / mark the selected one done |
| `f` / `/` / `n` | filter the log / search (matches highlighted) / next match |
| `l` | log level: all → info → warning → error |
| `End` | follow the log again after scrolling up |
| `tab` | move between panels (checklist, log) |
| `ctrl+n` | next node (when watching several) |
| `Esc` | back to the main screen; close the log's input line |
| `q` | quit |

**Status**: `STARTING` and `STOPPING` yellow, `READY` green, `CRASHED`/`UNHEALTHY` red,
`HUNG` orange, `TIMEOUT` magenta. The phase clock turns yellow at 70 % and red at 90 % of the
phase's deadline. *activity* counts every second how long the server has said nothing: while
it starts, `silent 24 s of 30 s` is how far a silence (no output and no CPU, disk or GPU
activity) has got towards the hung verdict; `quiet` is no output while the processes still work
(a long weight load); a ready server with nothing to do is `idle`. `busy but stuck`: the
processes use CPU or GPU, but stack samples show every one parked in the same wait (a
collective that never completes); that counts towards the verdict like silence, and the
`stuck:` row says where. `GPU 100% at 15% of power limit` is a GPU spinning, not computing.

**Serving** (shown once the ready server logs its stats): a sparkline of the recent values and
the value now for generation throughput, running vs queued requests, KV-cache use (and prefix
cache hits), speculative accept length, and GPU power vs utilisation; `busy at low power` is the
spin of a hung server. `⚠ hang sign` is the engine's own warning of a hang.

**Checklist**: `·` pending, `▶` in progress, `✔` done, `✘` failed, `–` skipped;
*auto* items are carried out by the daemon itself.

**Read-only**: when the daemon does not let this user change anything, the top bar says
`READ-ONLY` with the reason, and switch, start, stop and checklist edits are disabled.

The TUI reconnects by itself; a red banner says when it is disconnected and when it retries.
"""


class HelpScreen(Screen[None]):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back")]

    def __init__(self) -> None:
        super().__init__(id="help")

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static(Markdown(HELP), id="help-text")
        yield Footer()
