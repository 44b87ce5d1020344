"""A cgroup (v2) per run, where the daemon may create one: membership a child cannot shed.

A process can leave its process group (setsid), drop the run token from its environment
(execve with a clean environment) and be reparented away from its parent; it cannot leave its
cgroup without write access to another one. So where the daemon may create cgroups (root, or a
systemd unit with ``Delegate=yes``), each run's server starts inside ``<daemon's cgroup>/
gns-run-<token>``, and "every process of the run" is that cgroup's member list. The folder is
named by the run token, so a restarted daemon finds a previous run's cgroup too.

No controllers are enabled: the cgroups only group processes (no limits, no accounting), which
cgroup v2 allows beside the daemon's own processes in the parent.
"""

from __future__ import annotations

import functools
import os
import signal
from pathlib import Path

PREFIX = "gns-run-"


def _v2_mount() -> Path | None:
    """Where the unified (v2) hierarchy is mounted, if anywhere."""
    try:
        with open("/proc/self/mountinfo", encoding="utf-8") as f:
            for line in f:
                left, _, right = line.partition(" - ")
                if right.split(" ", 1)[0] == "cgroup2":
                    return Path(left.split()[4])
    except OSError:
        pass
    return None


def _own_path() -> str | None:
    """This process's path in the v2 hierarchy ("0::/path" in /proc/self/cgroup)."""
    try:
        with open("/proc/self/cgroup", encoding="utf-8") as f:
            for line in f:
                if line.startswith("0::"):
                    return line[3:].strip()
    except OSError:
        pass
    return None


@functools.lru_cache(maxsize=1)
def base() -> Path | None:
    """The folder under which run cgroups are created, or None where we may not create them."""
    if os.environ.get("GNS_PROCESS_TRACKING") == "tree":  # forced fallback (tests, odd hosts)
        return None
    mount, own = _v2_mount(), _own_path()
    if mount is None or own is None:
        return None
    folder = mount / own.lstrip("/")
    probe = folder / f"gns-probe-{os.getpid()}"
    try:
        probe.mkdir()
    except OSError:
        return None
    try:
        ok = (probe / "cgroup.procs").exists()
    finally:
        _rmdir(probe)
    return folder if ok else None


def mechanism() -> str:
    """What tracks a run's processes here, as status reports it."""
    return "cgroup" if base() is not None else "process-tree"


def path_for(token: str) -> Path | None:
    root = base()
    return None if root is None else root / f"{PREFIX}{token}"


def create(token: str) -> Path | None:
    """The run's cgroup, made now; None where cgroups are not ours to make."""
    path = path_for(token)
    if path is None:
        return None
    try:
        path.mkdir(exist_ok=True)
    except OSError:
        return None
    return path


def members(path: Path | None) -> set[int]:
    """Every process in the cgroup and in any cgroup the server made under it."""
    if path is None:
        return set()
    found: set[int] = set()
    try:
        for folder, _dirs, _files in os.walk(path):
            try:
                with open(os.path.join(folder, "cgroup.procs"), encoding="ascii") as f:
                    found.update(int(x) for x in f.read().split())
            except (OSError, ValueError):
                continue
    except OSError:
        pass
    return found


def kill_all(path: Path | None) -> None:
    """SIGKILL every member at once (cgroup.kill, Linux 5.14+), else one by one."""
    if path is None:
        return
    try:
        (path / "cgroup.kill").write_text("1")
        return
    except OSError:
        pass
    for pid in members(path):
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def remove(path: Path | None) -> None:
    """Delete the (empty) cgroup and any sub-cgroups the server made; errors are harmless."""
    if path is None or not path.exists():
        return
    for folder, dirs, _files in os.walk(path, topdown=False):
        for d in dirs:
            _rmdir(Path(folder) / d)
    _rmdir(path)


def _rmdir(path: Path) -> None:
    try:
        path.rmdir()
    except OSError:
        pass


def spawn_prefix(path: Path | None) -> list[str]:
    """argv that moves the process into ``path`` and then execs the real command.

    The shell writes its own pid ("0") into cgroup.procs before exec, so the server is in its
    cgroup before it runs a single instruction of its own: no fork can slip out in between.
    If the write fails the server still starts (status then says the cgroup is not in force).
    """
    if path is None:
        return []
    return ["/bin/sh", "-c", 'echo 0 > "$0" 2>/dev/null; exec "$@"', str(path / "cgroup.procs")]


def contains(path: Path | None, pid: int) -> bool:
    return path is not None and pid in members(path)
