"""Who owns the socket and the state dir, end to end against the real daemon.

A daemon removes only the socket file it bound; one state dir serves one daemon (a second
refuses before recovery could kill the first one's server); neither the daemon nor a client
uses a socket whose folders another user could write to; every refusal at start is one line.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import REPO, Daemon, emulator_profile, free_port, socket_accepting, wait_until
from .harness import test_env as _env

pytestmark = pytest.mark.e2e

OTHER_UID = 12345  # a user who is neither us nor root (tests run as root in CI)

needs_root = pytest.mark.skipif(os.geteuid() != 0,
                                reason="giving a folder to another uid needs root")


def start_refused(workdir: Path, sock: Path, state: Path, *extra: str, listens: bool = True,
                  ) -> subprocess.CompletedProcess[str]:
    """Start a daemon that must refuse at once: its exit status and its output. One that
    starts instead (its socket accepts; ``listens=False``: the socket is not its own) is
    stopped, and the test's checks then show what it did meanwhile."""
    argv = [sys.executable, "-m", "supervisor.cli.daemon", "--socket", str(sock),
            "--profiles", str(workdir / "profiles"), "--state-dir", str(state),
            "--fake-gpus", "0", *extra]
    proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
                            cwd=REPO, env=_env())
    try:
        wait_until(lambda: proc.poll() is not None or (listens and socket_accepting(sock)),
                   30, "the daemon to refuse")
    finally:
        if proc.poll() is None:
            proc.send_signal(signal.SIGTERM)
        out, err = proc.communicate(timeout=60)
    return subprocess.CompletedProcess(argv, proc.returncode, out, err)


def one_line(res: subprocess.CompletedProcess[str]) -> str:
    """A refusal is exit 1 and one plain line on stderr (no traceback, no ExceptionGroup)."""
    assert res.returncode != 0, res.stdout + res.stderr
    lines = [ln for ln in res.stderr.splitlines() if ln.strip()]
    assert len(lines) == 1, res.stderr
    assert lines[0].startswith("supervisor-daemon: "), res.stderr
    return lines[0]


def identity(path: Path) -> tuple[int, int]:
    st = os.lstat(path)
    return st.st_dev, st.st_ino


# -- B4: only ever unlink the socket this daemon bound ---------------------------------------

def test_refused_second_daemon_leaves_the_first_ones_socket(workdir: Path, make_daemon) -> None:
    first = make_daemon()
    before = identity(first.sock)
    res = start_refused(workdir, first.sock, workdir / "state2", listens=False)
    assert identity(first.sock) == before
    assert first.status()["daemon"]["pid"] == first.proc.pid
    line = one_line(res)
    assert "another daemon is listening" in line and str(first.sock) in line


def test_socket_path_that_is_a_regular_file_is_refused_and_kept(workdir: Path) -> None:
    victim = workdir / "notes.txt"
    victim.write_text("keep me\n")
    res = start_refused(workdir, victim, workdir / "state")
    assert victim.read_text() == "keep me\n"
    line = one_line(res)
    assert "is not a socket" in line and str(victim) in line


def test_exit_leaves_a_socket_that_replaced_ours(workdir: Path, make_daemon) -> None:
    d = make_daemon()
    # Someone else's socket now sits at the path (ours was removed by hand meanwhile).
    d.sock.unlink()
    other = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    try:
        other.bind(str(d.sock))
        other.listen(1)
        theirs = identity(d.sock)
        assert d.stop() == 0
        assert identity(d.sock) == theirs
        assert socket_accepting(d.sock)
    finally:
        other.close()


def test_exit_removes_its_own_socket(workdir: Path, make_daemon) -> None:
    d = make_daemon()
    assert d.stop() == 0
    assert not os.path.lexists(d.sock)


# -- B5: one state dir, one daemon -----------------------------------------------------------

def test_second_daemon_on_the_same_state_dir_refuses_and_touches_nothing(
        workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    first = make_daemon()
    assert first.ctl("switch", "good", "--wait", "--timeout", "60", "--json").returncode == 0
    run = first.run()
    pids = first.run_processes()
    assert run["status"] == "ready" and pids
    other_sock = workdir / "other.sock"
    res = start_refused(workdir, other_sock, first.state)
    # No recovery ran: the first daemon's server is the same, alive and still ready.
    assert first.run_processes() == pids
    after = first.run()
    assert (after["id"], after["status"], after["pid"]) == (run["id"], "ready", run["pid"])
    assert not os.path.lexists(other_sock)
    line = one_line(res)
    assert f"pid {first.proc.pid}" in line and str(first.state) in line, line


def test_state_dir_is_free_again_once_its_daemon_is_killed(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    first = make_daemon()
    assert first.ctl("switch", "good", "--wait", "--timeout", "60", "--json").returncode == 0
    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(10)
    assert first.run_processes(), "the server should have outlived the killed daemon"
    # The orphaned server does not hold the lock: a new daemon takes the state dir over.
    second = make_daemon()
    wait_until(lambda: second.ctl("status").returncode == 0, 30, "the new daemon")
    assert first.run_processes() == {}
    assert (first.state / "daemon.lock").read_text().strip() == str(second.proc.pid)


# -- B10: no socket in a folder another user can write to ------------------------------------

def _open_folder(workdir: Path) -> Path:
    folder = workdir / "open"
    folder.mkdir()
    folder.chmod(0o777)
    return folder / "control.sock"


def _sticky_holder(workdir: Path) -> Path:
    folder = workdir / "sticky"
    folder.mkdir()
    folder.chmod(0o1777)
    return folder / "control.sock"


def _below_open_folder(workdir: Path) -> Path:
    return _open_folder(workdir).parent / "made" / "control.sock"


def _group_writable(workdir: Path) -> Path:
    folder = workdir / "group"
    folder.mkdir()
    folder.chmod(0o770)
    return folder / "control.sock"


def _foreign_holder(workdir: Path) -> Path:
    folder = workdir / "foreign"
    folder.mkdir()
    os.chown(folder, OTHER_UID, OTHER_UID)
    return folder / "control.sock"


def _foreign_ancestor(workdir: Path) -> Path:
    folder = workdir / "theirs"
    folder.mkdir()
    os.chown(folder, OTHER_UID, OTHER_UID)
    return folder / "mine" / "control.sock"


def _foreign_symlink(workdir: Path) -> Path:
    real = workdir / "real"
    real.mkdir()
    link = workdir / "link"
    link.symlink_to(real)
    os.lchown(link, OTHER_UID, OTHER_UID)
    return link / "control.sock"


UNSAFE = [
    pytest.param(_open_folder, "world-writable", id="world-writable holder"),
    pytest.param(_sticky_holder, "world-writable", id="sticky world-writable holder"),
    pytest.param(_below_open_folder, "world-writable", id="folder to make under an open one"),
    pytest.param(_group_writable, "group-writable", id="group-writable holder"),
    pytest.param(_foreign_holder, "uid 12345", id="holder of another uid", marks=needs_root),
    pytest.param(_foreign_ancestor, "uid 12345", id="ancestor of another uid",
                 marks=needs_root),
    pytest.param(_foreign_symlink, "uid 12345", id="symlink of another uid", marks=needs_root),
]


@pytest.mark.parametrize(("make", "found"), UNSAFE)
def test_daemon_refuses_a_socket_folder_others_can_write(workdir: Path, make, found: str,
                                                          ) -> None:
    sock = make(workdir)
    before = sorted(p.name for p in sock.parent.parent.iterdir())
    res = start_refused(workdir, sock, workdir / "state")
    assert not os.path.lexists(sock)
    assert not os.path.lexists(sock.parent) or not any(sock.parent.iterdir())
    assert sorted(p.name for p in sock.parent.parent.iterdir()) == before
    assert not (workdir / "state" / "history.sqlite3").exists()
    line = one_line(res)
    assert found in line and "--socket" in line, line


def run_as(uid: int, *argv: str, **kw: object) -> subprocess.Popen[bytes]:
    """A process of another user (its uid and gid, no supplementary groups)."""
    env = {**_env(), "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.Popen(["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups",
                             "--", *argv], cwd=REPO, env=env, **kw)  # type: ignore[call-overload]


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="running a daemon as another user needs root and setpriv")
def test_clients_refuse_a_socket_in_another_users_folder(workdir: Path) -> None:
    """Another user's daemon listens in a folder that user owns (the hijack: a folder they
    made where our socket would go); our ctl and our TUI's connector refuse to talk to it."""
    workdir.chmod(0o755)
    theirs = workdir / "theirs"
    (theirs / "state").mkdir(parents=True)
    shutil.chown(theirs, OTHER_UID, OTHER_UID)
    shutil.chown(theirs / "state", OTHER_UID, OTHER_UID)
    sock = theirs / "control.sock"
    attacker = Daemon(workdir / "profiles", theirs / "state", sock)
    with open(workdir / "attacker.log", "wb") as log:
        proc = run_as(OTHER_UID, sys.executable, "-m", "supervisor.cli.daemon",
                      "--socket", str(sock), "--profiles", str(workdir / "profiles"),
                      "--state-dir", str(theirs / "state"), "--fake-gpus", "0",
                      stdout=log, stderr=subprocess.STDOUT)
    try:
        wait_until(lambda: socket_accepting(sock) or proc.poll() is not None, 20,
                   "the other user's daemon")
        assert proc.poll() is None, (workdir / "attacker.log").read_text()
        res = attacker.ctl("status")
        assert res.returncode == 2, res.stdout + res.stderr
        assert f"{theirs} (a folder on the socket's path) belongs to uid {OTHER_UID}" \
            in res.stderr, res.stderr
        assert res.stdout == ""
        tui_error = _tui_connect_error(sock)
        assert f"belongs to uid {OTHER_UID}" in tui_error and tui_error in res.stderr
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.wait(30)


def _tui_connect_error(sock: Path) -> str:
    code = ("import anyio, sys\n"
            "from tui.connection import Target, connect\n"
            "async def main():\n"
            "    async with connect(Target.unix(sys.argv[1])):\n"
            "        pass\n"
            "try:\n"
            "    anyio.run(main)\n"
            "except OSError as exc:\n"
            "    print(exc)\n")
    res = subprocess.run([sys.executable, "-c", code, str(sock)], capture_output=True,
                         text=True, timeout=30, cwd=REPO, env=_env())
    assert res.returncode == 0, res.stderr
    return res.stdout.strip()


# -- startup refusals: one line --------------------------------------------------------------

def test_bad_config_is_one_line(workdir: Path) -> None:
    cfg = workdir / "supervisor.toml"
    cfg.write_text("no_such_key = 1\n")
    line = one_line(start_refused(workdir, workdir / "s.sock", workdir / "state",
                                  "--config", str(cfg)))
    assert "unknown key(s): no_such_key" in line
