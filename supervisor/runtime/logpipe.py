"""The log pipeline of a run: read merged output, split on \\r and \\n, write, keep, fan out.

The child must never block on us, so the reader does as little as possible per chunk: the raw
bytes go to the run's log file unchanged, complete lines go to a bounded ring buffer, to the
line callback (phase tracker) and, as one batch per chunk, to subscribers.
"""

from __future__ import annotations

import errno
import fcntl
import os
import time
from collections import deque
from collections.abc import Callable
from pathlib import Path

import anyio
from anyio.abc import ByteReceiveStream

CHUNK = 256 * 1024
MAX_PARTIAL = 64 * 1024
# The child's pipe is grown from 64 KiB to this (Linux allows up to
# /proc/sys/fs/pipe-max-size, 1 MiB by default, without privileges): a burst then waits in the
# kernel instead of blocking the child, and a reader that falls behind takes it in reads of up
# to CHUNK bytes, so the per-chunk costs (publish, JSON, one send per subscriber) are paid
# once per ~2000 lines instead of once per ~500 (bench/run.py, pipeline).
PIPE_SIZE = 1 << 20


def grow_pipe(stream: object, size: int = PIPE_SIZE) -> bool:
    """Best effort: enlarge the kernel buffer of the pipe behind an anyio process stream."""
    try:
        transport = stream._stream._transport  # type: ignore[attr-defined]
        fd = transport.get_extra_info("pipe").fileno()
        fcntl.fcntl(fd, fcntl.F_SETPIPE_SZ, size)  # type: ignore[attr-defined]
        return True
    except Exception:  # not a pipe, not Linux, over the limit: keep the default
        return False


class RunLog:
    """The run's log file, size-bounded by one rotation, tolerant of a full disk."""

    def __init__(self, path: Path, max_bytes: int = 256 * 2**20) -> None:
        self.path = path
        self.max_bytes = max_bytes
        self.written = 0
        self.error: str | None = None
        self._retry_at = 0.0
        self._file = self._open()

    def _open(self):  # type: ignore[no-untyped-def]
        try:
            f = open(self.path, "ab", buffering=0)
            self.written = f.tell()
            self.error = None
            return f
        except OSError as exc:
            self._fail(exc)
            return None

    def _fail(self, exc: OSError) -> None:
        what = "disk full" if exc.errno == errno.ENOSPC else exc.strerror or str(exc)
        self.error = f"cannot write {self.path}: {what}"
        self._retry_at = time.monotonic() + 5.0

    def write(self, data: bytes) -> None:
        if self._file is None:
            if time.monotonic() < self._retry_at:
                return
            self._file = self._open()
            if self._file is None:
                return
        try:
            if self.written + len(data) > self.max_bytes:
                self._rotate()
            self._file.write(data)
            self.written += len(data)
            self.error = None
        except OSError as exc:
            self._fail(exc)
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None

    def _rotate(self) -> None:
        assert self._file is not None
        self._file.close()
        os.replace(self.path, self.path.with_suffix(self.path.suffix + ".1"))
        self._file = open(self.path, "ab", buffering=0)
        self.written = 0

    def close(self) -> None:
        if self._file is not None:
            try:
                self._file.close()
            except OSError:
                pass
            self._file = None


class LogPipe:
    def __init__(self, log: RunLog, *, ring_size: int = 5000,
                 on_line: Callable[[str], None] | None = None,
                 on_batch: Callable[[list[str]], None] | None = None) -> None:
        self.log = log
        self.ring: deque[str] = deque(maxlen=ring_size)
        self.on_line = on_line
        self.on_batch = on_batch
        self.lines = 0
        self.bytes = 0
        self.last_output = time.monotonic()
        self.eof = anyio.Event()
        self._partial = ""

    async def pump(self, stream: ByteReceiveStream) -> None:
        """Read until EOF (every holder of the pipe has exited or closed it)."""
        grow_pipe(stream)
        try:
            while True:
                try:
                    data = await stream.receive(CHUNK)
                except (anyio.EndOfStream, anyio.ClosedResourceError, anyio.BrokenResourceError):
                    break
                self.feed(data)
        finally:
            self.flush()
            self.eof.set()

    def feed(self, data: bytes) -> None:
        self.last_output = time.monotonic()
        self.bytes += len(data)
        self.log.write(data)
        # \r and \r\n become \n on the bytes (ASCII: never inside a UTF-8 sequence), before
        # the decode widens the text; then one split.
        text = self._partial + data.replace(b"\r\n", b"\n").replace(b"\r", b"\n").decode(
            "utf-8", "replace")
        parts = text.split("\n")
        self._partial = parts.pop()
        if len(self._partial) > MAX_PARTIAL:
            parts.append(self._partial)
            self._partial = ""
        self._emit(parts)

    def flush(self) -> None:
        if self._partial:
            self._emit([self._partial])
            self._partial = ""

    def _emit(self, parts: list[str]) -> None:
        lines = [p for p in parts if p] if "" in parts else parts
        if not lines:
            return
        self.lines += len(lines)
        self.ring.extend(lines)
        if self.on_line is not None:
            for line in lines:
                self.on_line(line)
        if self.on_batch is not None:
            self.on_batch(lines)

    def tail(self, n: int) -> list[str]:
        if n >= len(self.ring):
            return list(self.ring)
        return list(self.ring)[-n:]
