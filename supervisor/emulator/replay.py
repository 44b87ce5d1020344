"""``--replay FILE [--speed X]``: replay a real log with its timing.

Bytes are written as they are in the file (``\\r`` included) to stderr. The gap between two
timestamped lines (``[YYYY-MM-DD HH:MM:SS ...]``, or the diffusion runtime's ``[MM-DD HH:MM:SS]``)
is slept, divided by ``speed`` and capped at ``5 s / speed``. A labelled fixture's ``#`` header
(up to and including the first blank line) is skipped. At the end: a log that looks crashed ends
the way SGLang's process does (SIGKILL to self, exit status -9); anything else exits 0.

``SGLANG_EMULATOR_REPLAY_END=live`` ends the way the logged process did instead, so that the
daemon watching the replay sees what it would have seen live: a crash dies (SIGKILL to self
after SGLang's own kill markers, otherwise exit status 1, a Python error's); a log that ends
ready, serving, hung or cut off leaves the process running, silent, until it is stopped, and a
server that was up answers HTTP on ``--port`` (200 to everything: the daemon's health probe).
What the process did is the fixture header's ``outcome`` label where there is one (the markers
otherwise). Once the whole log is out, the process title (``/proc/PID/comm``) is
``replay-done``: a test knows the end was reached without a line of its own in the log.
"""

from __future__ import annotations

import os
import re
import signal
import threading
import time
from datetime import datetime
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from supervisor.emulator import logfmt

MAX_GAP_S = 5.0
_TS = re.compile(rb"\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})|\[(\d{2}-\d{2} \d{2}:\d{2}:\d{2})\]")
CRASH_MARKERS = (b"Received sigquit from a child", b"SIGQUIT received", b"hit an exception",
                 b"scheduler is dead", b"Fatal Python error", b"terminate called after throwing",
                 b"Initialization failed.", b"Watchdog timeout (", b"\nKilled")
_OUTCOME = re.compile(rb"# outcome: (\w+)")
END_ENV = "SGLANG_EMULATOR_REPLAY_END"
DONE_TITLE = "replay-done"


def _stamp(m: re.Match) -> float | None:
    try:
        if m.group(1):
            return datetime.strptime(m.group(1).decode(), "%Y-%m-%d %H:%M:%S").timestamp()
        return datetime.strptime("2000-" + m.group(2).decode(), "%Y-%m-%d %H:%M:%S").timestamp()
    except ValueError:
        return None


def strip_header(lines: list[bytes]) -> list[bytes]:
    if not lines or not lines[0].startswith(b"#"):
        return lines
    for i, ln in enumerate(lines):
        if not ln.strip():
            return lines[i + 1:]
        if not ln.startswith(b"#"):
            return lines[i:]
    return []


def looks_crashed(data: bytes) -> bool:
    return any(m in data for m in CRASH_MARKERS)


def labelled_outcome(lines: list[bytes]) -> str | None:
    """A labelled fixture's ``# outcome: X`` (what the logged process did), or None."""
    for ln in lines:
        if not ln.startswith(b"#"):
            return None
        m = _OUTCOME.match(ln)
        if m:
            return m[1].decode()
    return None


def _end_live(lines: list[bytes], body: bytes, port: int | None) -> int:
    """End as the logged process did: die on a crash, otherwise stay up until SIGTERM."""
    label = labelled_outcome(lines)
    crashed = label == "crashed" if label is not None else looks_crashed(body)
    if not crashed:
        if label == "ready" and port:
            _serve_ok(port)
        _set_title(DONE_TITLE)
        while True:
            signal.pause()
    if looks_crashed(body):
        os.kill(os.getpid(), signal.SIGKILL)
    return 1


class _Ok(BaseHTTPRequestHandler):
    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        self.send_response(200)
        self.send_header("Content-Length", "0")
        self.end_headers()

    do_POST = do_GET  # noqa: N815

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass  # not a line of the replayed log


def _serve_ok(port: int) -> None:
    try:
        server = ThreadingHTTPServer(("127.0.0.1", port), _Ok)
    except OSError as e:
        logfmt.emit(f"supervisor.emulator: replay cannot listen on port {port}: {e}")
        return
    threading.Thread(target=server.serve_forever, daemon=True).start()


def _set_title(title: str) -> None:
    try:
        with open("/proc/self/comm", "w") as f:
            f.write(title)
    except OSError:
        pass  # no /proc: only a test's way of knowing the end is lost


def replay(path: str, speed: float = 1.0, port: int | None = None) -> int:
    signal.signal(signal.SIGTERM, lambda *_: os._exit(0))
    try:
        with open(path, "rb") as f:
            data = f.read()
    except OSError as e:
        logfmt.emit(f"supervisor.emulator: cannot replay {path}: {e}")
        return 2
    speed = speed if speed > 0 else 1.0
    lines = data.split(b"\n")
    if lines and lines[-1] == b"":
        lines.pop()
    header, lines = lines, strip_header(lines)
    prev: float | None = None
    for ln in lines:
        m = _TS.search(ln)
        t = _stamp(m) if m else None
        if t is not None:
            if prev is not None and t > prev:
                time.sleep(min(t - prev, MAX_GAP_S) / speed)
            prev = t
        logfmt.write(ln + b"\n")
    body = b"\n" + b"\n".join(lines)
    if os.environ.get(END_ENV) == "live":
        return _end_live(header, body, port)
    if looks_crashed(body):
        os.kill(os.getpid(), signal.SIGKILL)
    return 0
