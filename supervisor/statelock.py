"""One state dir, one daemon: an exclusive flock on STATE_DIR/daemon.lock for the daemon's life.

Taken before anything reads or changes the state (the store, the recovery of leftover runs),
so that a second daemon on the same state dir refuses before it can kill the first one's
server. The kernel drops the lock when the daemon dies, however it dies; the descriptor is
not inherited by the runs' processes (close-on-exec), so a leftover server does not keep it.
"""

from __future__ import annotations

import errno
import fcntl
import os
from pathlib import Path

LOCK_NAME = "daemon.lock"


class StateLockError(Exception):
    """The state dir's lock cannot be taken; the message says why and what to do."""


class StateLock:
    def __init__(self, state_dir: Path) -> None:
        self.path = state_dir / LOCK_NAME
        self._fd: int | None = None

    def acquire(self) -> None:
        """Take the lock and write our pid in the file, or raise StateLockError at once."""
        try:
            fd = os.open(self.path, os.O_RDWR | os.O_CREAT | os.O_NOFOLLOW | os.O_CLOEXEC,
                         0o644)
        except OSError as exc:
            raise StateLockError(f"cannot open the state dir's lock {self.path}: "
                                 f"{exc.strerror or exc}; check the state dir") from None
        try:
            fcntl.flock(fd, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except OSError as exc:
            os.close(fd)
            if exc.errno not in (errno.EWOULDBLOCK, errno.EAGAIN):
                raise StateLockError(f"cannot lock {self.path}: {exc.strerror}") from None
            raise StateLockError(self._busy_message()) from None
        os.ftruncate(fd, 0)
        os.write(fd, f"{os.getpid()}\n".encode())
        self._fd = fd

    def release(self) -> None:
        """Drop the lock (the file stays: removing it would race with the next daemon)."""
        if self._fd is not None:
            os.close(self._fd)
            self._fd = None

    def _busy_message(self) -> str:
        holder = _read_pid(self.path)
        who = f"pid {holder}" if holder else "a process that has not written its pid yet"
        return (f"state dir {self.path.parent} is in use by another supervisor-daemon "
                f"({who}, lock {self.path}); stop that daemon or choose another --state-dir")


def _read_pid(path: Path) -> int | None:
    try:
        with open(path, "rb") as f:
            return int(f.read(32).strip() or 0) or None
    except (OSError, ValueError):
        return None
