"""Shared memory a run leaves behind: the /dev/shm files its processes mapped.

Engines keep their inter-process queues in POSIX shared memory: vLLM's message queues and
Python's ``SharedMemory`` (``psm_*``), multiprocessing's named semaphores (``sem.mp-*``),
NCCL's segments (``nccl-*``). A process that exits cleanly unlinks them; a SIGKILLed or
crashed one cannot, and they stay in /dev/shm - memory, not disk - until reboot. A host with a
few crashed runs a day fills it, and the next launch fails making its queues (NCCL's "unhandled
system error", vLLM's worker dying as it maps its ring buffer). systemd's ``RemoveIPC=`` does
this for a user's logins; here it is done for a run.

The ledger watches /dev/shm (one stat a tick while it is unchanged; a listing, inode numbers
coming with the names, when it changed) and, only when a new file appears, reads the run's
processes' memory maps to see whether one of them maps it shared and writable - a queue, not a
model file mapped to be read. Once nothing of the run is alive, a file is removed only if all of
these hold: it is a plain file directly in /dev/shm (where shm_open and sem_open put theirs), it
was not there before the launch, it is still the same inode, and no live process maps it.
"""

from __future__ import annotations

import json
import logging
import os
import stat
import threading
import time
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from pathlib import Path

from ..text import first_few

log = logging.getLogger(__name__)

SHM_ROOT = "/dev/shm"
# A new file is ours if a process of the run maps it within this long (SharedMemory and
# sem_open map at creation; a queue made by one process is mapped by its peers in seconds).
PENDING_S = 30.0
RECHECK_S = 5.0  # a pending file's maps are read again at most this often
_NEEDLE = b" /dev/shm/"


@dataclass(frozen=True)
class Removed:
    name: str
    size: int


class ShmLedger:
    """The /dev/shm files a run made and mapped; `clean` removes those it left."""

    def __init__(self, root: str = SHM_ROOT, *, record: Path | None = None) -> None:
        """``record``: a file keeping the run's files across daemon restarts (a daemon that
        restarts after its run died unwatched still knows what to remove); read if present."""
        self.root = root
        self.record = record
        self.dev: int | None = None
        self._listed: dict[str, int] = {}        # name -> inode, at the last look
        self._before: set[int] = set()           # inodes there before the launch
        self._pending: dict[int, float] = {}     # new inode -> when first seen
        self.owned: dict[str, int] = {}          # name -> inode: the run's mapped files
        self._recheck_at = 0.0
        self._mtime = -1
        self._lock = threading.Lock()            # the watch loop's thread and the reaper's
        try:
            self.dev = os.stat(root).st_dev
            self._listed = self._list()
        except OSError:  # no /dev/shm (or unreadable): nothing to watch
            self.dev = None
        self._before = set(self._listed.values())
        self._load()

    def _load(self) -> None:
        if self.record is None or self.dev is None:
            return
        try:
            saved = json.loads(self.record.read_text())
            if saved.get("dev") == self.dev:  # the same /dev/shm (same boot, same namespace)
                self.owned.update({str(n): int(i) for n, i in saved["files"].items()})
        except (OSError, ValueError, KeyError, TypeError, AttributeError):
            pass  # none yet, or unreadable: nothing known to remove

    def _save(self) -> None:
        if self.record is None:
            return
        tmp = self.record.with_suffix(".tmp")
        try:
            tmp.write_text(json.dumps({"dev": self.dev, "files": self.owned}))
            tmp.replace(self.record)
        except OSError as exc:
            log.warning("could not record the run's shared memory in %s: %s", self.record, exc)

    def _list(self) -> dict[str, int]:
        out: dict[str, int] = {}
        with os.scandir(self.root) as it:
            for entry in it:
                out[entry.name] = entry.inode()
        return out

    def observe(self, pids: Callable[[], Iterable[int]]) -> None:
        """Worker thread: note the new /dev/shm files that the run's processes (``pids()``,
        asked only when needed) map.

        Costs one stat while /dev/shm is unchanged, a listing when it changed; maps are read
        only while a new file waits to be placed.
        """
        if self.dev is None:
            return
        with self._lock:
            try:
                self._observe(pids)
            except Exception:  # noqa: BLE001 - a cleanup aid must never take a run down
                log.exception("watching %s for the run's shared memory failed", self.root)

    def _observe(self, pids: Callable[[], Iterable[int]]) -> None:
        try:
            # The folder's mtime moves with every name added or removed: an unchanged folder
            # (nearly every tick) costs one stat.
            mtime = os.stat(self.root).st_mtime_ns
            if mtime == self._mtime and not self._pending:
                return
            listed = self._list()
        except OSError:
            return
        self._mtime = mtime
        now = time.monotonic()
        known = set(self._listed.values())
        owned = set(self.owned.values())
        fresh = False
        for ino in listed.values():
            if ino not in known and ino not in self._before and ino not in owned:
                fresh = fresh or ino not in self._pending
                self._pending.setdefault(ino, now)
        self._listed = listed
        present = set(listed.values())
        self._pending = {ino: t for ino, t in self._pending.items()
                         if ino in present and now - t < PENDING_S}
        # A new file is looked for at once; one still unclaimed (another program's, or a
        # queue its peers have yet to map) only every RECHECK_S: reading maps is the cost.
        if not self._pending or not (fresh or now >= self._recheck_at):
            return
        self._recheck_at = now + RECHECK_S
        mapped = self._mapped_by(pids())
        by_ino = {ino: name for name, ino in listed.items()}
        claimed = [ino for ino in self._pending if ino in mapped]
        for ino in claimed:
            del self._pending[ino]
            self.owned[by_ino[ino]] = ino
        if claimed:
            self._save()

    def _mapped_by(self, pids: Iterable[int], *, writable_only: bool = True) -> set[int]:
        """Inodes of /dev/shm files (directly in it, on its file system) the processes map;
        with ``writable_only``, only shared writable mappings (rw-s)."""
        found: set[int] = set()
        for pid in pids:
            try:
                with open(f"/proc/{pid}/maps", "rb") as f:
                    data = f.read()
            except OSError:
                continue
            if _NEEDLE not in data:
                continue
            for line in data.splitlines():
                ino = self._shm_inode(line, writable_only)
                if ino is not None:
                    found.add(ino)
        return found

    def _shm_inode(self, line: bytes, writable_only: bool) -> int | None:
        """The inode of a maps line (``addr perms offset dev inode path``) if it maps a file
        directly in /dev/shm on our /dev/shm's file system."""
        at = line.find(_NEEDLE)
        if at < 0:
            return None
        name = line[at + len(_NEEDLE):]
        if b"/" in name or name.endswith(b" (deleted)"):
            return None
        fields = line[:at].split()
        if len(fields) < 5 or (writable_only and not fields[1].startswith(b"rw")):
            return None
        if writable_only and fields[1][3:4] != b"s":
            return None
        try:
            major, minor = (int(x, 16) for x in fields[3].split(b":"))
            ino = int(fields[4])
        except ValueError:
            return None
        return ino if os.makedev(major, minor) == self.dev else None

    def clean(self) -> list[Removed]:
        """Worker thread, once nothing of the run is alive: remove the run's files still
        there that no live process maps. Never raises."""
        if self.dev is None or not self.owned:
            return []
        try:
            with self._lock:
                return self._remove(self._left())
        except OSError as exc:  # /proc or /dev/shm unreadable: keep everything
            log.warning("could not clean the run's shared memory in %s: %s", self.root, exc)
            return []

    def _left(self) -> dict[str, int]:
        left: dict[str, int] = {}
        for name, ino in self.owned.items():
            try:
                st = os.lstat(os.path.join(self.root, name))
            except OSError:
                continue  # the engine removed it itself
            if stat.S_ISREG(st.st_mode) and st.st_ino == ino and st.st_dev == self.dev:
                left[name] = st.st_size
        return left

    def _remove(self, left: dict[str, int]) -> list[Removed]:
        if not left:
            return []
        in_use = self._mapped_by(_all_pids(), writable_only=False)
        removed: list[Removed] = []
        for name, size in sorted(left.items()):
            if self.owned[name] in in_use:
                continue  # another process (a peer, a client) still maps it
            try:
                os.unlink(os.path.join(self.root, name))
            except OSError as exc:
                log.warning("could not remove %s/%s left by a run: %s", self.root, name, exc)
                continue
            removed.append(Removed(name, size))
        self.owned = {n: i for n, i in self.owned.items() if n not in {r.name for r in removed}}
        if removed:
            self._save()
        return removed


def _all_pids() -> list[int]:
    me = os.getpid()
    return [int(n) for n in os.listdir("/proc") if n.isdigit() and int(n) != me]


def describe(removed: list[Removed], root: str = SHM_ROOT) -> str:
    """One line for the checklist and the daemon's log."""
    total = sum(r.size for r in removed)
    names = first_few([r.name for r in removed])
    return (f"removed {len(removed)} shared-memory file(s) the run left in {root} "
            f"({total / 2**20:.1f} MiB): {names}")
