"""``--replay FILE [--speed X]``: replay a real log with its timing.

Bytes are written as they are in the file (``\\r`` included) to stderr. The gap between two
timestamped lines (``[YYYY-MM-DD HH:MM:SS ...]``, or the diffusion runtime's ``[MM-DD HH:MM:SS]``)
is slept, divided by ``speed`` and capped at ``5 s / speed``. A labelled fixture's ``#`` header
(up to and including the first blank line) is skipped. At the end: a log that looks crashed ends
the way SGLang's process does (SIGKILL to self, exit status -9); anything else exits 0.
"""

from __future__ import annotations

import os
import re
import signal
import time
from datetime import datetime

from supervisor.emulator import logfmt

MAX_GAP_S = 5.0
_TS = re.compile(rb"\[(\d{4}-\d{2}-\d{2} \d{2}:\d{2}:\d{2})|\[(\d{2}-\d{2} \d{2}:\d{2}:\d{2})\]")
CRASH_MARKERS = (b"Received sigquit from a child", b"SIGQUIT received", b"hit an exception",
                 b"scheduler is dead", b"Fatal Python error", b"terminate called after throwing",
                 b"Initialization failed.", b"Watchdog timeout (", b"\nKilled")


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


def replay(path: str, speed: float = 1.0) -> int:
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
    lines = strip_header(lines)
    prev: float | None = None
    for ln in lines:
        m = _TS.search(ln)
        t = _stamp(m) if m else None
        if t is not None:
            if prev is not None and t > prev:
                time.sleep(min(t - prev, MAX_GAP_S) / speed)
            prev = t
        logfmt.write(ln + b"\n")
    if looks_crashed(b"\n" + b"\n".join(lines)):
        os.kill(os.getpid(), signal.SIGKILL)
    return 0
