"""Titled child processes, prctl, and killing process trees (stdlib only, via /proc)."""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
from pathlib import Path

PKG_ROOT = str(Path(__file__).resolve().parents[2])

# argv[0] is the title, so the interpreter cannot locate a virtualenv from it: put our package
# on sys.path explicitly (children need only the stdlib and this package).
_BOOT = ("import sys; sys.path.insert(0, {root!r}); "
         "from supervisor.emulator.child import main; main(sys.argv[1])")

PR_SET_PDEATHSIG = 1
PR_SET_NAME = 15


def _prctl(option: int, arg) -> bool:
    try:
        import ctypes

        libc = ctypes.CDLL(None, use_errno=True)
        return libc.prctl(option, arg, 0, 0, 0) == 0
    except Exception:  # noqa: BLE001 - best effort (non-Linux, no libc)
        return False


def set_comm(name: str) -> bool:
    """/proc/self/comm (what top and psutil.name() show), truncated to 15 bytes."""
    import ctypes

    return _prctl(PR_SET_NAME, ctypes.c_char_p(name.encode()[:15]))


def die_with_parent(sig: int = signal.SIGKILL) -> bool:
    """prctl(PR_SET_PDEATHSIG), as SGLang's kill_itself_when_parent_died()."""
    return _prctl(PR_SET_PDEATHSIG, int(sig))


def spawn_child(title: str, cfg: dict) -> subprocess.Popen:
    """Start ``supervisor.emulator.child`` with /proc/PID/cmdline starting with ``title``."""
    cfg = dict(cfg, title=title, parent=os.getpid(), executable=sys.executable)
    return subprocess.Popen(
        [title, "-c", _BOOT.format(root=PKG_ROOT), json.dumps(cfg)],
        executable=sys.executable, stdin=subprocess.PIPE, close_fds=True)


def _ppid_map() -> dict[int, list[int]]:
    children: dict[int, list[int]] = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        fields = stat[stat.rfind(b")") + 2:].split()
        if len(fields) > 1:
            children.setdefault(int(fields[1]), []).append(int(name))
    return children


def descendants(pid: int) -> list[int]:
    """All descendants of ``pid`` by parent links (session changes included)."""
    tree = _ppid_map()
    out, todo = [], list(tree.get(pid, []))
    while todo:
        p = todo.pop()
        out.append(p)
        todo.extend(tree.get(p, []))
    return out


def kill_pids(pids, sig: int = signal.SIGKILL) -> None:
    for p in pids:
        try:
            os.kill(p, sig)
        except OSError:
            pass


def kill_process_tree(pid: int, include_parent: bool = True) -> None:
    """SGLang's kill_process_tree: SIGKILL every descendant, then the process itself."""
    kill_pids(descendants(pid))
    if include_parent:
        os.kill(pid, signal.SIGKILL)
