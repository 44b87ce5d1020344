"""Give freed heap memory back to the OS after a flood of output.

A flood is read in 1 MiB buffers; glibc then raises its mmap threshold (it adapts to freed
mmapped blocks) and serves later big buffers from the heap, where free memory stays with the
process: the RSS after a 1M-line flood to 50 followers stayed at ~200 MB for an idle daemon
(bench/run.py, idle). ``malloc_trim`` returns free heap pages; it costs ~1 ms, so it is called
when a burst of output has gone quiet, and every TRIM_EVERY bytes of a long one, not per read.
"""

from __future__ import annotations

import ctypes
import ctypes.util
from collections.abc import Callable

import anyio

TRIM_EVERY = 128 * 2**20
QUIET_MIN = 8 * 2**20  # less output than this leaves too little behind to be worth a trim
QUIET_RATE = 64 * 1024  # bytes per interval that still count as quiet (a server's odd line)

_trim: Callable[[int], int] | None = None
_looked_up = False


def _lookup() -> Callable[[int], int] | None:
    global _trim, _looked_up
    if not _looked_up:
        _looked_up = True
        try:
            libc = ctypes.CDLL(ctypes.util.find_library("c") or "libc.so.6")
            _trim = libc.malloc_trim  # glibc only (musl has none: then this does nothing)
            _trim.argtypes = [ctypes.c_size_t]
            _trim.restype = ctypes.c_int
        except (OSError, AttributeError):
            _trim = None
    return _trim


def release_free_memory() -> bool:
    """Return free heap memory to the OS; False where the C library cannot."""
    trim = _lookup()
    if trim is None:
        return False
    trim(0)
    return True


class _Output:
    since_trim = 0    # bytes read since the last trim
    since_quiet = 0   # bytes read since the last trim after a burst


def note_output(nbytes: int) -> None:
    """The log pipeline read ``nbytes`` (called per read: two int adds)."""
    _Output.since_trim += nbytes
    _Output.since_quiet += nbytes


async def trim_loop(interval: float = 2.0) -> None:
    """Trim every TRIM_EVERY bytes of a long burst of output, and once more when a burst of
    at least QUIET_MIN has gone (nearly) quiet. Idle cost: one wake-up per ``interval``."""
    last = 0
    while True:
        await anyio.sleep(interval)
        n = _Output.since_quiet
        if _Output.since_trim >= TRIM_EVERY:
            release_free_memory()
            _Output.since_trim = 0
        elif n - last < QUIET_RATE and n >= QUIET_MIN:  # a burst, now (nearly) quiet
            release_free_memory()
            _Output.since_trim = _Output.since_quiet = n = 0
        last = n
