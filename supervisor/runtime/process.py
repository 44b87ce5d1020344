"""Find, sample and kill every process of a run, including ones that left its group.

Each run's child gets ``RUN_ENV_VAR=<token>`` in its environment. Descendants inherit it even
when they call setsid(), so /proc/*/environ finds them all after the daemon restarts too.
"""

from __future__ import annotations

import os
import signal
import time
from dataclasses import dataclass

import anyio
import psutil

RUN_ENV_VAR = "GPU_NODE_SUPERVISOR_RUN"


def run_pids(token: str, pgid: int | None = None) -> set[int]:
    """Every live process carrying the run token, or in the run's process group."""
    needle = f"{RUN_ENV_VAR}={token}".encode() + b"\0"
    found: set[int] = set()
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        if pid == me:
            continue
        if pgid is not None and _pgid(pid) == pgid:
            found.add(pid)
            continue
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = b"\0" + f.read()
        except OSError:
            continue
        if b"\0" + needle in env and not _is_zombie(pid):
            found.add(pid)
    return found


class RunScanner:
    """run_pids for a periodic sampler: /proc/PID/environ is read once per new pid.

    A process's environment does not change its run token, so between two scans only pids
    that appeared need reading; pids that vanished are forgotten (pid reuse within one tick
    is not worth a read per process per second). Kills use the uncached run_pids.
    """

    def __init__(self, token: str) -> None:
        self.needle = b"\0" + f"{RUN_ENV_VAR}={token}".encode() + b"\0"
        self._known: dict[int, bool] = {}   # pid -> carries the token

    def scan(self, pgid: int | None = None) -> set[int]:
        me = os.getpid()
        seen: dict[int, bool] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            pid = int(name)
            if pid == me:
                continue
            ours = self._known.get(pid)
            if ours is None:
                ours = self._read(pid)
            seen[pid] = ours
        self._known = seen
        # Everything the run starts inherits the token; the group adds nothing for sampling.
        return {p for p, ours in seen.items() if ours and not _is_zombie(p)}

    def _read(self, pid: int) -> bool:
        try:
            with open(f"/proc/{pid}/environ", "rb") as f:
                return self.needle in b"\0" + f.read()
        except OSError:
            return False


def _pgid(pid: int) -> int | None:
    try:
        return os.getpgid(pid)
    except OSError:
        return None


def _is_zombie(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
        return stat[stat.rfind(b")") + 2:][:1] == b"Z"
    except OSError:
        return True


def signal_pids(pids: set[int], sig: int) -> None:
    for pid in pids:
        try:
            os.kill(pid, sig)
        except (ProcessLookupError, PermissionError):
            pass


def signal_group(pgid: int | None, sig: int) -> None:
    if pgid is None or pgid <= 1:
        return
    try:
        os.killpg(pgid, sig)
    except (ProcessLookupError, PermissionError):
        pass


async def kill_run(token: str, pgid: int | None, *, grace: float,
                   main_exited: anyio.Event | None = None) -> set[int]:
    """SIGTERM the group, wait up to ``grace``, then SIGKILL everything of the run.

    Returns the pids still alive at the end (empty on success). Shielded by the caller.
    """
    signal_group(pgid, signal.SIGTERM)
    deadline = time.monotonic() + grace
    interval = 0.02
    while time.monotonic() < deadline:
        if (main_exited is None or main_exited.is_set()) and not await anyio.to_thread.run_sync(
                run_pids, token, pgid):
            return set()
        await anyio.sleep(interval)
        interval = min(interval * 1.5, 0.25)
    # Grace is over: everything that carries the token or sits in the group dies now.
    for _ in range(50):
        pids = await anyio.to_thread.run_sync(run_pids, token, pgid)
        if not pids:
            return set()
        signal_group(pgid, signal.SIGKILL)
        signal_pids(pids, signal.SIGKILL)
        await anyio.sleep(0.05)
    return await anyio.to_thread.run_sync(run_pids, token, pgid)


@dataclass
class TreeSample:
    """Cumulative counters of a process tree at one moment."""

    when: float
    cpu_s: float
    read_bytes: int
    count: int


def sample_tree(pids: set[int]) -> TreeSample:
    cpu = 0.0
    read = 0
    n = 0
    for pid in pids:
        try:
            proc = psutil.Process(pid)
            with proc.oneshot():
                t = proc.cpu_times()
                cpu += t.user + t.system
                try:
                    # read_chars counts page-cache hits too: a cached model load is activity.
                    io = proc.io_counters()
                    read += getattr(io, "read_chars", io.read_bytes)
                except (psutil.AccessDenied, AttributeError):
                    pass
            n += 1
        except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
            continue
    return TreeSample(time.monotonic(), cpu, read, n)


def describe_processes(pids: set[int]) -> list[dict[str, object]]:
    """What each process of the run is and does (checklist evidence, `stacks`)."""
    out: list[dict[str, object]] = []
    for pid in sorted(pids):
        try:
            proc = psutil.Process(pid)
            with proc.oneshot():
                out.append({
                    "pid": pid, "ppid": proc.ppid(), "status": proc.status(),
                    "cmdline": " ".join(proc.cmdline())[:200],
                    "cpu_s": round(sum(proc.cpu_times()[:2]), 2),
                    "rss_mb": round(proc.memory_info().rss / 2**20, 1),
                    "threads": proc.num_threads(),
                })
        except (psutil.NoSuchProcess, psutil.ZombieProcess, psutil.AccessDenied):
            continue
    return out


def use_pidfd_child_watcher() -> bool:
    """Have asyncio learn of a child's exit from a pidfd on the loop itself.

    Python 3.11's default (ThreadedChildWatcher) blocks a thread per child in waitpid() and
    hands the exit to the loop through a thread switch: 1-2 ms after the exit, more when the
    loop is busy (bench/run.py, exit). 3.12+ uses pidfds on its own; on 3.11 we install
    asyncio's PidfdChildWatcher. Call from inside the running loop; False if not done.
    """
    import asyncio
    import sys
    import warnings

    if sys.version_info >= (3, 12) or not hasattr(os, "pidfd_open"):
        return False
    try:
        loop = asyncio.get_running_loop()
        os.close(os.pidfd_open(os.getpid()))  # the kernel supports pidfds (5.3+)
    except (RuntimeError, OSError):
        return False
    watcher = asyncio.PidfdChildWatcher()
    watcher.attach_loop(loop)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        asyncio.set_child_watcher(watcher)
    return True
