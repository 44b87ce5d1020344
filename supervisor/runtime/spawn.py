"""Starting a server: checks that name what is wrong before the spawn, a shielded spawn in a
session of its own (and the run's cgroup, where one can be made)."""

from __future__ import annotations

import os
import shutil
import subprocess
import time
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio

from . import cgroups
from . import process as proc_mod
from .logpipe import open_pipe


@dataclass
class Spawned:
    process: Any          # anyio Process
    out_r: int            # read end of the pipe that carries stdout and stderr
    cgroup: Path | None   # the run's cgroup, when the server is really in it


def spawn_problem(argv: list[str], env: dict[str, str], cwd: str | None) -> OSError | None:
    """What would make the spawn fail, found before it: the cgroup wrapper would otherwise turn
    a missing program into an exit 127 of the shell."""
    if cwd and not os.path.isdir(cwd):
        return NotADirectoryError(2, f"working directory {cwd} does not exist "
                                     "(launch.cwd in the profile)")
    exe = argv[0]
    path = env.get("PATH", os.defpath)
    found = exe if os.sep in exe else shutil.which(exe, path=path)
    full = os.path.join(cwd or "", found) if found else None
    if full is None or not os.path.exists(full):
        return FileNotFoundError(2, f"{exe}: no such program (PATH={path})")
    if os.path.isdir(full) or not os.access(full, os.X_OK):
        return PermissionError(13, f"{exe}: not an executable file")
    return None


async def spawn(argv: list[str], env: dict[str, str], cwd: str | None,
                token: str) -> Spawned:
    """Start the server; raises OSError when it cannot be started.

    Shielded: a cancellation arriving while the process is being created must not leave a
    process that nothing knows about.
    """
    out_r, out_w = open_pipe()
    with anyio.CancelScope(shield=True):
        cgroup = await anyio.to_thread.run_sync(cgroups.create, token)
        try:
            process = await anyio.open_process(
                cgroups.spawn_prefix(cgroup) + argv, stdin=subprocess.DEVNULL, stdout=out_w,
                stderr=out_w, cwd=cwd, env=env, start_new_session=True)
        except (OSError, ValueError) as exc:  # ValueError: an argument Popen refuses (a NUL)
            os.close(out_r)
            cgroups.remove(cgroup)
            raise exc if isinstance(exc, OSError) else OSError(str(exc)) from None
        finally:
            os.close(out_w)  # the child has its copy: EOF comes when its tree is done with it
        proc_mod.register_main(process.pid)
        cgroup = await anyio.to_thread.run_sync(_confirm_cgroup, cgroup, process.pid)
    return Spawned(process, out_r, cgroup)


def _confirm_cgroup(cgroup: Path | None, pid: int) -> Path | None:
    """The cgroup is in force only if the server really landed in it."""
    if cgroup is None:
        return None
    for _ in range(100):  # the shell moves itself in before exec: a few ms at most
        if cgroups.contains(cgroup, pid):
            return cgroup
        if not os.path.exists(f"/proc/{pid}"):
            break
        time.sleep(0.002)
    cgroups.remove(cgroup)
    return None
