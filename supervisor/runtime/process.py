"""Find, sample and kill every process of a run, including ones that left its group.

Three nets, from the strongest:
- the run's cgroup (``cgroups.py``), where the daemon may create one: nothing escapes it;
- otherwise the process tree: the daemon is a child subreaper, so a descendant whose parent
  dies is reparented to the daemon rather than to init, and stays findable as "ours";
- always, the run token ``RUN_ENV_VAR=<token>`` in the environment and the process group:
  these also find a run's processes after a daemon restart.
"""

from __future__ import annotations

import logging
import os
import signal
import time
from collections.abc import Callable
from dataclasses import dataclass

import anyio
import psutil

from . import cgroups

RUN_ENV_VAR = "GPU_NODE_SUPERVISOR_RUN"
STATE_ENV_VAR = "GPU_NODE_SUPERVISOR_STATE"   # the state dir of the daemon that started it
log = logging.getLogger(__name__)
PR_SET_CHILD_SUBREAPER = 36
# Main processes of runs: asyncio reaps these itself; every other zombie child is an orphan.
_MAIN_PIDS: set[int] = set()


def become_subreaper() -> bool:
    """Orphaned descendants of our runs become our children, not init's (Linux 3.4+)."""
    import ctypes

    try:
        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(PR_SET_CHILD_SUBREAPER, 1, 0, 0, 0) == 0
    except (OSError, AttributeError):
        return False


def register_main(pid: int) -> None:
    _MAIN_PIDS.add(pid)


def unregister_main(pid: int | None) -> None:
    _MAIN_PIDS.discard(pid or 0)


def _stat(pid: int) -> tuple[int, int, str] | None:
    """(ppid, session id, state) from /proc/PID/stat."""
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            raw = f.read()
    except OSError:
        return None
    fields = raw[raw.rfind(b")") + 2:].split()
    try:
        return int(fields[1]), int(fields[3]), fields[0].decode()
    except (IndexError, ValueError):
        return None


def tree_pids(roots: set[int], *, orphans: bool) -> set[int]:
    """Descendants of ``roots`` and, with ``orphans``, our children in a session of their own
    that we did not start as a run's main process (escapees reparented to us, the subreaper)."""
    me = os.getpid()
    my_sid = os.getsid(0)
    children: dict[int, list[int]] = {}
    found: set[int] = set()
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        pid = int(name)
        st = _stat(pid)
        if st is None or pid == me:
            continue
        ppid, sid, state = st
        if ppid == me and pid not in _MAIN_PIDS and sid != my_sid:
            if state == "Z":
                _reap(pid)
                continue
            if orphans:
                found.add(pid)
        children.setdefault(ppid, []).append(pid)
    todo = [p for p in roots | found]
    while todo:
        for child in children.get(todo.pop(), ()):
            if child not in found:
                found.add(child)
                todo.append(child)
    return {p for p in found | roots if not _is_zombie(p)}


def _reap(pid: int) -> None:
    try:
        os.waitpid(pid, os.WNOHANG)
    except ChildProcessError:
        pass


def state_dir_runs(state_dir: str) -> dict[str, set[int]]:
    """token -> live pids of every run started by a daemon on ``state_dir`` (their
    environment carries both marks), whatever history says."""
    mark = f"{STATE_ENV_VAR}={state_dir}".encode()
    prefix = f"{RUN_ENV_VAR}=".encode()
    found: dict[str, set[int]] = {}
    me = os.getpid()
    for name in os.listdir("/proc"):
        if not name.isdigit() or int(name) == me:
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            continue
        if mark not in env or _is_zombie(int(name)):
            continue
        for item in env:
            if item.startswith(prefix):
                found.setdefault(item[len(prefix):].decode(errors="replace"), set()).add(
                    int(name))
    return found


def run_pids(token: str, pgid: int | None = None, *, tree: bool = False) -> set[int]:
    """Every live process of the run: its cgroup's members, the processes carrying the run
    token or in its process group and, with ``tree`` (the live run), its process tree."""
    found = {p for p in cgroups.members(cgroups.path_for(token)) if not _is_zombie(p)}
    found |= _token_pids(token, pgid)
    if tree and pgid is not None:
        found |= tree_pids({pgid} | found, orphans=True)
    return found


def _token_pids(token: str, pgid: int | None) -> set[int]:
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
            if not _is_zombie(pid):  # dead, waiting for a parent to reap it: not alive
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
        self.cgroup = cgroups.path_for(token)

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
        found = {p for p, ours in seen.items() if ours and not _is_zombie(p)}
        if self.cgroup is not None:
            return found | {p for p in cgroups.members(self.cgroup) if not _is_zombie(p)}
        if pgid is not None:  # no cgroup: follow the tree (escapees that shed the token)
            found |= tree_pids({pgid} | found, orphans=True)
        return found

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


MAX_GRACE = 3600.0  # a profile's stop_grace is validated; this only guards the kill itself


async def kill_run(token: str, pgid: int | None, *, grace: float,
                   main_exited: anyio.Event | None = None, tree: bool = False,
                   before_signals: Callable[[], None] | None = None) -> set[int]:
    """SIGTERM the group, wait up to ``grace``, then SIGKILL everything of the run.

    The grace ends early once the main process has exited (when ``main_exited`` is given) and
    nothing of the run is left. It never waits longer: a main process that ignores SIGTERM is
    killed with the rest. ``before_signals`` runs in a worker thread before the SIGTERM and
    before the SIGKILL (what the processes hold is still readable then). Returns the pids
    still alive at the end (empty on success). Shielded by the caller.
    """
    if not 0 <= grace <= MAX_GRACE:  # NaN included
        grace = MAX_GRACE if grace > MAX_GRACE else 0.0

    def alive() -> set[int]:
        return run_pids(token, pgid, tree=tree)

    await _look_before_signals(before_signals)
    signal_group(pgid, signal.SIGTERM)
    # A stopped process (a hang frozen under a debugger or for a stack dump, an operator's ^Z)
    # acts on SIGTERM only once continued: continue it, so it shuts down cleanly - its shared
    # memory and sockets unlinked - instead of waiting out the grace for the SIGKILL (as
    # systemd follows its SIGTERM with SIGCONT). For the live tree, its members outside the
    # group too.
    signal_group(pgid, signal.SIGCONT)
    if tree:
        signal_pids(await anyio.to_thread.run_sync(alive), signal.SIGCONT)
    deadline = time.monotonic() + grace
    interval = 0.02
    while time.monotonic() < deadline:
        if (main_exited is None or main_exited.is_set()) and not await anyio.to_thread.run_sync(
                alive):
            return _done(token)
        await anyio.sleep(min(interval, max(0.0, deadline - time.monotonic())))
        interval = min(interval * 1.5, 0.25)
    # Grace is over: everything of the run dies now.
    await _look_before_signals(before_signals)
    for _ in range(50):
        pids = await anyio.to_thread.run_sync(alive)
        if not pids:
            return _done(token)
        cgroups.kill_all(cgroups.path_for(token))
        signal_group(pgid, signal.SIGKILL)
        signal_pids(pids, signal.SIGKILL)
        await anyio.sleep(0.05)
    left = await anyio.to_thread.run_sync(alive)
    return left if left else _done(token)


async def _look_before_signals(look: Callable[[], None] | None) -> None:
    """Run the caller's look at the processes (worker thread); whatever it raises, the kill
    goes on: nothing may stand between a stop and its signals."""
    if look is None:
        return
    try:
        await anyio.to_thread.run_sync(look)
    except Exception:  # noqa: BLE001 - logged; the stop must not depend on it
        log.exception("looking at the run's processes before signalling them failed")


def _done(token: str) -> set[int]:
    cgroups.remove(cgroups.path_for(token))
    return set()


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
