"""The log pipeline of a run: read merged output, normalise \\r, write, keep, fan out.

The child must never block on us, so the reader does as little as possible, and only per read
(up to CHUNK bytes, thousands of lines), never per line: the raw bytes go to the run's log file
unchanged; \\r becomes \\n; the complete lines of the read go, as one ``\\n``-terminated bytes
chunk, to a ring of recent chunks and to the chunk callback (phase tracker, activity,
subscribers). Lines are split and decoded only where someone needs them as text: the tracker
(before the server is serving), a subscriber's event, ``tail``.

The child's stdout and stderr are one pipe of our own (:func:`open_pipe`), read with
``os.read`` when the loop says it is readable: no asyncio transport and StreamReader in
between, which would copy every byte twice more.
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

from .memory import note_output

CHUNK = 1 << 20
MAX_PARTIAL = 64 * 1024
# The child's pipe is grown from 64 KiB to this (Linux allows up to
# /proc/sys/fs/pipe-max-size, 1 MiB by default, without privileges): a burst then waits in the
# kernel instead of blocking the child, and a reader that falls behind takes it in reads of up
# to CHUNK bytes, so the per-read costs (a loop iteration, an event, one send per subscriber)
# are paid once per ~8000 lines (bench/run.py, pipeline).
PIPE_SIZE = 1 << 20
# The ring keeps at least this much of the newest output: `logs -n`, the verdict's tail.
RING_BYTES = 2 * 2**20


def open_pipe(size: int = PIPE_SIZE) -> tuple[int, int]:
    """A pipe for a child's merged output: (read end, non-blocking; write end, for the child).

    Both ends are close-on-exec; the spawn dup2()s the write end onto the child's 1 and 2.
    """
    r, w = os.pipe2(os.O_CLOEXEC)
    os.set_blocking(r, False)
    try:
        fcntl.fcntl(r, fcntl.F_SETPIPE_SZ, size)  # type: ignore[attr-defined]
    except (OSError, AttributeError):  # over the limit, or not Linux: keep the default
        pass
    return r, w


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
    def __init__(self, log: RunLog, *, ring_bytes: int = RING_BYTES,
                 on_chunk: Callable[[bytes], None] | None = None) -> None:
        self.log = log
        self.ring: deque[bytes] = deque()   # complete lines, each chunk \\n-terminated
        self.ring_bytes = 0
        self.ring_limit = ring_bytes
        self.on_chunk = on_chunk
        self.bytes = 0
        self.last_output = time.monotonic()
        self.eof = anyio.Event()
        self._partial = b""
        # Reads land in one reused buffer, right after the unfinished line of the last read:
        # no fresh 1 MiB object (and page faults) per read, no joining of the two.
        self._buf = bytearray(MAX_PARTIAL + CHUNK)
        self._view = memoryview(self._buf)

    async def pump(self, fd: int) -> None:
        """Read the pipe ``fd`` (non-blocking) until EOF; the caller closes it afterwards.

        EOF comes when every holder of the write end has exited or closed it.
        """
        try:
            while True:
                start = self._load_partial()
                try:
                    n = os.readv(fd, [self._view[start:start + CHUNK]])
                except BlockingIOError:
                    await anyio.wait_readable(fd)
                    continue
                except OSError:
                    break
                if not n:
                    break
                self._took(start, n)
                await anyio.lowlevel.checkpoint()  # a flood must not starve the loop
        finally:
            self.flush()
            self.eof.set()

    def feed(self, data: bytes) -> None:
        """Output that did not come through ``pump`` (the daemon's own notes; tests)."""
        for i in range(0, len(data), CHUNK):
            piece = data[i:i + CHUNK]
            start = self._load_partial()
            self._view[start:start + len(piece)] = piece
            self._took(start, len(piece))

    def _load_partial(self) -> int:
        """Put the unfinished line at the buffer's start; the new data goes after it."""
        n = len(self._partial)
        if n:
            self._view[:n] = self._partial
        return n

    def _took(self, start: int, n: int) -> None:
        """``n`` new bytes are in the buffer at ``start``, after the unfinished line."""
        total = start + n
        self.last_output = time.monotonic()
        self.bytes += n
        note_output(n)
        self.log.write(self._view[start:total])
        # A line ends at \n or at \r (a progress bar's redraw): both ASCII, never inside a
        # UTF-8 sequence. \r becomes \n below; \r\n then makes an empty line, which every
        # reader skips: one single-byte replace is ten times cheaper than two passes.
        # The unfinished line holds neither, so the last \r found (if any) is in the chunk.
        last_cr = self._buf.rfind(b"\r", start, total)
        end = max(self._buf.rfind(b"\n", start, total), last_cr) + 1
        if end == 0:
            self._partial = bytes(self._view[:total])
        else:
            chunk = bytes(self._view[:end])
            self._partial = bytes(self._view[end:total])
            if last_cr >= 0:
                chunk = chunk.replace(b"\r", b"\n")
            self._emit(chunk)
        if len(self._partial) > MAX_PARTIAL:  # a line this long is cut (the file has it whole)
            self.flush()

    def flush(self) -> None:
        if self._partial:
            chunk, self._partial = self._partial + b"\n", b""
            self._emit(chunk)

    def seed(self, lines: list[str]) -> None:
        """Put earlier output into the ring (an adopted run's tail, read from its file)."""
        if lines:
            self._keep(("\n".join(lines) + "\n").encode())

    def _emit(self, chunk: bytes) -> None:
        self._keep(chunk)
        if self.on_chunk is not None:
            self.on_chunk(chunk)

    def _keep(self, chunk: bytes) -> None:
        self.ring.append(chunk)
        self.ring_bytes += len(chunk)
        while self.ring_bytes - len(self.ring[0]) >= self.ring_limit:
            self.ring_bytes -= len(self.ring.popleft())

    def tail(self, n: int) -> list[str]:
        """The last ``n`` non-empty lines kept (fewer if the ring holds fewer)."""
        parts: list[list[str]] = []  # newest first; joined once (no front inserts)
        have = 0
        for chunk in reversed(self.ring):
            if have >= n:
                break
            lines = lines_of(chunk)[-(n - have):]
            parts.append(lines)
            have += len(lines)
        return [line for lines in reversed(parts) for line in lines]


def lines_of(chunk: bytes) -> list[str]:
    """The non-empty lines of a chunk, as text."""
    return [x for x in chunk.decode("utf-8", "replace").split("\n") if x]
