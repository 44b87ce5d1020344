"""One socket path for daemon, ctl and TUI in every environment; the folder checks."""

from __future__ import annotations

import argparse
import itertools
import os
import sys
from pathlib import Path

import pytest

from supervisor import config
from supervisor.cli import ctl
from supervisor.cli.daemon import refusal
from supervisor.protocol import paths
from supervisor.protocol.paths import SocketPathError, check_socket_folders, make_socket_folder
from supervisor.service import StartupRefused
from tui import connection
from tui.app import parse_targets

if sys.version_info < (3, 11):  # pragma: no cover - anyio brings the backport there
    from exceptiongroup import BaseExceptionGroup, ExceptionGroup

ENVIRONMENTS = list(itertools.product(
    (0, 1000),                     # root or not
    (None, "/run/user/1000"),      # XDG_RUNTIME_DIR
    (None, "/srv/gns.sock"),       # GNS_SOCKET
    (False, True),                 # a system daemon's socket exists
))


def env_id(case: tuple[object, ...]) -> str:
    uid, xdg, gns, system = case
    return "-".join([f"uid{uid}", "xdg" if xdg else "noxdg", "gns" if gns else "nogns",
                     "system" if system else "nosystem"])


@pytest.fixture
def environment(request: pytest.FixtureRequest, monkeypatch: pytest.MonkeyPatch,
                tmp_path: Path) -> tuple[int, str | None, str | None, Path | None]:
    uid, xdg, gns, system = request.param
    monkeypatch.setattr(os, "geteuid", lambda: uid)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))
    for var, value in (("XDG_RUNTIME_DIR", xdg), ("GNS_SOCKET", gns)):
        if value is None:
            monkeypatch.delenv(var, raising=False)
        else:
            monkeypatch.setenv(var, value)
    system_sock = tmp_path / "run" / "control.sock"
    if system:
        system_sock.parent.mkdir()
        system_sock.touch()
    monkeypatch.setattr(paths, "SYSTEM_SOCKET", system_sock)
    monkeypatch.setattr(config, "SYSTEM_CONFIG", tmp_path / "no-such.toml")
    return uid, xdg, gns, system_sock if system else None


def expected_client_socket(uid: int, xdg: str | None, gns: str | None,
                           system: Path | None) -> str:
    if gns:
        return gns
    if uid == 0 or system:
        return str(paths.SYSTEM_SOCKET)
    runtime = xdg or f"/tmp/gpu-node-supervisor-{uid}"
    return f"{runtime}/gpu-node-supervisor/control.sock"


@pytest.mark.parametrize("environment", ENVIRONMENTS, ids=env_id, indirect=True)
def test_ctl_and_tui_resolve_the_same_socket(environment) -> None:
    ctl_sock = ctl.socket_path(argparse.Namespace(socket=None))
    tui_sock = parse_targets([]).pop().address
    assert ctl_sock == tui_sock == connection.default_socket()
    assert ctl_sock == expected_client_socket(*environment)


@pytest.mark.parametrize("environment", ENVIRONMENTS, ids=env_id, indirect=True)
def test_the_daemon_binds_where_clients_look(environment) -> None:
    uid, _xdg, gns, system = environment
    daemon_sock = str(config.load().socket)
    client_sock = ctl.socket_path(argparse.Namespace(socket=None))
    if system and uid != 0 and not gns:
        # A user's own daemon binds its own socket; clients prefer the system daemon.
        assert daemon_sock != client_sock == str(system)
    else:
        assert daemon_sock == client_sock


# -- folder checks ---------------------------------------------------------------------------

def test_own_folder_and_sticky_ancestor_pass(tmp_path: Path) -> None:
    sticky = tmp_path / "tmp"
    sticky.mkdir()
    sticky.chmod(0o1777)
    make_socket_folder(sticky / "mine" / "deeper" / "control.sock")
    assert (sticky / "mine" / "deeper").is_dir()
    check_socket_folders(sticky / "mine" / "deeper" / "control.sock")


@pytest.mark.parametrize("mode", [0o777, 0o1777, 0o775, 0o1770])
def test_holder_others_can_write_is_refused(tmp_path: Path, mode: int) -> None:
    holder = tmp_path / "holder"
    holder.mkdir()
    holder.chmod(mode)
    with pytest.raises(SocketPathError, match=f"{holder} .*writable.*{mode:04o}"):
        check_socket_folders(holder / "control.sock")


def test_folders_are_checked_before_one_is_made_inside(tmp_path: Path) -> None:
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    with pytest.raises(SocketPathError, match="world-writable without the sticky bit"):
        make_socket_folder(open_dir / "new" / "control.sock")
    assert list(open_dir.iterdir()) == []


def test_a_missing_folder_is_what_connect_would_say(tmp_path: Path) -> None:
    with pytest.raises(FileNotFoundError):
        check_socket_folders(tmp_path / "absent" / "control.sock")


def test_symlink_to_an_open_folder_is_refused(tmp_path: Path) -> None:
    open_dir = tmp_path / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    (tmp_path / "link").symlink_to(open_dir)
    with pytest.raises(SocketPathError, match="world-writable"):
        check_socket_folders(tmp_path / "link" / "control.sock")


@pytest.mark.skipif(os.geteuid() != 0, reason="giving a folder to another uid needs root")
def test_another_users_folder_is_refused_for_us_but_root_is_trusted(tmp_path: Path) -> None:
    theirs = tmp_path / "theirs"
    theirs.mkdir()
    os.chown(theirs, 12345, 12345)
    with pytest.raises(SocketPathError, match="belongs to uid 12345, not to root"):
        check_socket_folders(theirs / "control.sock")
    # The same folder is that user's own; root's folders above it are trusted.
    check_socket_folders(theirs / "control.sock", uid=12345)
    with pytest.raises(SocketPathError, match="not to uid 999 \\(us\\) or root"):
        check_socket_folders(theirs / "control.sock", uid=999)


# -- startup refusals ------------------------------------------------------------------------

def test_refusal_inside_a_task_group_is_one_line() -> None:
    group = BaseExceptionGroup("x", [ExceptionGroup("y", [SocketPathError("bad folder")])])
    assert refusal(group) == "bad folder"
    assert refusal(StartupRefused("taken")) == "taken"
    assert refusal(ExceptionGroup("z", [RuntimeError("bug")])) is None  # a crash keeps its trace
