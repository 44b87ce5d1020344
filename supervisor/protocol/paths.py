"""Where the control socket lives, and whether the folders on its path can be trusted.

One resolution for the daemon (where to bind), supervisor-ctl and the TUI (where to connect),
so that they never look in different places.

A socket is only as safe as the folders above it: whoever may write to one of them can rename
the daemon's socket away and put their own in its place, and a client would then talk to them.
So every folder on the path must belong to root or to us, one that others may write to must
have the sticky bit (like /tmp), and the folder holding the socket must be writable by its
owner alone.
"""

from __future__ import annotations

import os
import stat
from collections.abc import Mapping
from pathlib import Path

APP = "gpu-node-supervisor"
SYSTEM_SOCKET = Path("/run/gpu-node-supervisor/control.sock")
SOCKET_NAME = "control.sock"
FOLDER_MODE = 0o755  # folders the daemon creates: others may reach the socket, never write


class SocketPathError(OSError):
    """The socket's path cannot be used: a folder another user could write to, a file that is
    not a socket, another daemon's socket. The message says what was found and what to do."""


def user_socket(env: Mapping[str, str] | None = None, uid: int | None = None) -> Path:
    """The per-user socket: under $XDG_RUNTIME_DIR, else /tmp/gpu-node-supervisor-UID."""
    env, uid = _env(env), _uid(uid)
    runtime = env.get("XDG_RUNTIME_DIR") or f"/tmp/{APP}-{uid}"
    return Path(runtime) / APP / SOCKET_NAME


def daemon_socket(env: Mapping[str, str] | None = None, uid: int | None = None) -> Path:
    """Where a daemon binds when neither --socket nor the config names a socket."""
    env, uid = _env(env), _uid(uid)
    if env.get("GNS_SOCKET"):
        return Path(env["GNS_SOCKET"])
    return SYSTEM_SOCKET if uid == 0 else user_socket(env, uid)


def client_socket(env: Mapping[str, str] | None = None, uid: int | None = None) -> Path:
    """Where ctl and the TUI connect without --socket: the system daemon's socket when there
    is one (or when we are root), else our own daemon's."""
    env, uid = _env(env), _uid(uid)
    if env.get("GNS_SOCKET"):
        return Path(env["GNS_SOCKET"])
    if uid == 0 or SYSTEM_SOCKET.exists():
        return SYSTEM_SOCKET
    return user_socket(env, uid)


def make_socket_folder(path: Path, uid: int | None = None) -> None:
    """Create the missing folders above ``path`` (0755), each inside a folder already checked,
    then check them all (raises SocketPathError)."""
    uid = _uid(uid)
    existing = Path(os.path.abspath(path)).parent
    missing: list[Path] = []
    while not os.path.lexists(existing):
        missing.append(existing)
        existing = existing.parent
    _check_chain(existing, uid)
    _check_chain(Path(os.path.realpath(existing)), uid)
    for folder in reversed(missing):
        try:
            os.mkdir(folder, FOLDER_MODE)
        except FileExistsError:
            pass
        except OSError as exc:
            raise SocketPathError(f"cannot create {folder} for the socket: "
                                  f"{exc.strerror or exc}; create it or use another --socket",
                                  ) from None
    check_socket_folders(path, uid)


def check_socket_folders(path: str | os.PathLike[str], uid: int | None = None) -> None:
    """Raise SocketPathError unless only root and ``uid`` can replace the socket at ``path``.

    Both the path as written (a symlink on it must be root's or ours) and the real folders
    it leads to are checked. A missing folder raises the OSError that connect() would.
    """
    uid = _uid(uid)
    parent = Path(os.path.abspath(path)).parent
    _check_chain(parent, uid)
    real = Path(os.path.realpath(parent))
    _check_chain(real, uid)
    _check_holder(real, uid)


def _check_chain(folder: Path, uid: int) -> None:
    for each in [*reversed(folder.parents), folder]:
        st = os.lstat(each)
        if st.st_uid not in (0, uid):
            kind = "a symlink" if stat.S_ISLNK(st.st_mode) else "a folder"
            us = "root" if uid == 0 else f"uid {uid} (us) or root"
            raise SocketPathError(
                f"{each} ({kind} on the socket's path) belongs to uid {st.st_uid}, not to "
                f"{us}, so that user could replace the socket; remove it or use another "
                "--socket")
        if stat.S_ISDIR(st.st_mode) and _others_write(st) and not st.st_mode & stat.S_ISVTX:
            raise SocketPathError(
                f"{each} is {_writable_by(st)}-writable without the sticky bit (mode "
                f"{stat.S_IMODE(st.st_mode):04o}), so anyone could replace the socket below "
                f"it; run 'chmod go-w {each}' or use another --socket")


def _check_holder(folder: Path, uid: int) -> None:
    st = os.lstat(folder)
    if not stat.S_ISDIR(st.st_mode):
        raise SocketPathError(f"{folder} is not a folder; use another --socket")
    if _others_write(st):
        raise SocketPathError(
            f"{folder} holds the socket and is {_writable_by(st)}-writable (mode "
            f"{stat.S_IMODE(st.st_mode):04o}), so another user could put their own socket "
            f"there; run 'chmod go-w {folder}' or use another --socket")


def _others_write(st: os.stat_result) -> bool:
    return bool(st.st_mode & (stat.S_IWGRP | stat.S_IWOTH))


def _writable_by(st: os.stat_result) -> str:
    return "world" if st.st_mode & stat.S_IWOTH else "group"


def _env(env: Mapping[str, str] | None) -> Mapping[str, str]:
    return os.environ if env is None else env


def _uid(uid: int | None) -> int:
    return os.geteuid() if uid is None else uid
