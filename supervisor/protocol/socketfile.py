"""The daemon's socket file: bound only where it is safe, removed only while it is ours.

A daemon removes a socket file in two cases only: a stale one (nothing listens) before it
binds, and its own at exit, recognised by the inode it bound. A live socket, a file that is
not a socket, or a socket that replaced ours meanwhile are never touched.
"""

from __future__ import annotations

import os
import socket
import stat
from pathlib import Path

from .paths import SocketPathError, make_socket_folder

SOCKET_MODE = 0o660
BACKLOG = 65536  # the kernel caps it at net.core.somaxconn


def check_socket_path(path: Path) -> os.stat_result | None:
    """Make and check the folders; refuse a path that holds a live socket or another file.

    Returns the stale socket file's stat (nothing listens on it), or None when free.
    """
    make_socket_folder(path)
    try:
        st = os.lstat(path)
    except FileNotFoundError:
        return None
    if not stat.S_ISSOCK(st.st_mode):
        raise SocketPathError(f"{path} exists and is not a socket; remove it or choose "
                              "another --socket")
    if _socket_alive(path):
        raise SocketPathError(f"another daemon is listening on {path}; stop it or choose "
                              "another --socket")
    return st


class BoundSocket:
    """A listening Unix socket at ``path`` and the identity of the file it made."""

    def __init__(self, path: Path, gid: int | None = None) -> None:
        self.path = path
        self.sock = _bind(path)
        st = os.lstat(path)
        self._identity: tuple[int, int] | None = (st.st_dev, st.st_ino)
        try:
            os.chmod(path, SOCKET_MODE)
            if gid is not None:  # socket_group may connect
                os.chown(path, -1, gid)
            self.sock.listen(BACKLOG)
            self.sock.setblocking(False)
        except BaseException:
            self.sock.close()
            self.release()
            raise

    def release(self) -> None:
        """Remove the socket file if it still is the one bound here (at most once)."""
        identity, self._identity = self._identity, None
        if identity is None:
            return
        try:
            st = os.lstat(self.path)
            if (st.st_dev, st.st_ino) == identity:
                os.unlink(self.path)
        except OSError:
            pass


def _bind(path: Path) -> socket.socket:
    stale = check_socket_path(path)
    if stale is not None:
        _remove_stale(path, stale)
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        sock.bind(os.fspath(path))  # never replaces a file: EADDRINUSE if one appeared
    except OSError as exc:
        sock.close()
        raise SocketPathError(f"cannot bind {path}: {exc.strerror or exc} (another daemon "
                              "starting on it?); choose another --socket") from None
    return sock


def _remove_stale(path: Path, seen: os.stat_result) -> None:
    try:
        st = os.lstat(path)
        if (st.st_dev, st.st_ino) == (seen.st_dev, seen.st_ino):
            os.unlink(path)
    except FileNotFoundError:
        pass


def _socket_alive(path: Path) -> bool:
    """Only a refused connection proves a socket dead: a full backlog or a timeout is a
    daemon too busy to answer, not a file to remove."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(1.0)
        try:
            s.connect(os.fspath(path))
        except (ConnectionRefusedError, FileNotFoundError):
            return False
        except OSError:
            return True
    return True
