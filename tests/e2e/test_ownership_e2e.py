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
from .harness import REPO, emulator_profile, free_port, socket_accepting, wait_until
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


VICTIM_UID = 23456  # a non-root user whose default socket folder someone else made first


def run_as(uid: int, *argv: str, timeout: float | None = 30,
           ) -> subprocess.CompletedProcess[str] | subprocess.Popen[str]:
    """``argv`` as another user (its uid and gid, no groups), in an environment without
    XDG_RUNTIME_DIR or GNS_SOCKET: the default socket is /tmp/gpu-node-supervisor-UID/...
    With a timeout: run to the end; without: started and returned."""
    env = {k: v for k, v in _env().items() if k not in ("XDG_RUNTIME_DIR", "GNS_SOCKET")}
    env.update(HOME="/tmp", PYTHONDONTWRITEBYTECODE="1")
    full = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--", *argv]
    if timeout is None:
        return subprocess.Popen(full, cwd=REPO, env=env, text=True, stdout=subprocess.PIPE,
                                stderr=subprocess.STDOUT)
    return subprocess.run(full, cwd=REPO, env=env, text=True, capture_output=True,
                          timeout=timeout)


TUI_CONNECT = """\
import anyio
from tui.app import parse_targets
from tui.connection import connect
async def main():
    async with connect(parse_targets([])[0]):
        print("connected")
try:
    anyio.run(main)
except OSError as exc:
    print(exc)
"""


@pytest.mark.skipif(os.geteuid() != 0 or shutil.which("setpriv") is None,
                    reason="running daemons and clients as other users needs root and setpriv")
def test_a_socket_folder_another_user_made_first_is_refused(workdir: Path) -> None:
    """The hijack: without XDG_RUNTIME_DIR a user's socket goes under
    /tmp/gpu-node-supervisor-UID; another user made that folder first (1777) and runs their
    own daemon there. The victim's ctl and TUI refuse to talk to it, and the victim's daemon
    refuses to start in it (leaving the other one's socket alone)."""
    runtime = Path(f"/tmp/gpu-node-supervisor-{VICTIM_UID}")
    shutil.rmtree(runtime, ignore_errors=True)  # a fake user's: only tests make it
    runtime.mkdir()
    runtime.chmod(0o1777)
    os.chown(runtime, OTHER_UID, OTHER_UID)
    sock = runtime / "gpu-node-supervisor" / "control.sock"
    workdir.chmod(0o755)
    for name, uid in (("attacker", OTHER_UID), ("victim", VICTIM_UID)):
        (workdir / name).mkdir()
        os.chown(workdir / name, uid, uid)
    daemon = [sys.executable, "-m", "supervisor.cli.daemon", "--profiles",
              str(workdir / "profiles"), "--fake-gpus", "0"]
    attacker = run_as(OTHER_UID, *daemon, "--socket", str(sock), "--state-dir",
                      str(workdir / "attacker"), timeout=None)
    assert isinstance(attacker, subprocess.Popen)
    try:
        wait_until(lambda: socket_accepting(sock) or attacker.poll() is not None, 20,
                   "the other user's daemon")
        assert attacker.poll() is None, attacker.communicate()[0]
        os.chmod(sock, 0o666)  # the other user lets anyone connect: the victim would get in
        found = f"{runtime} (a folder on the socket's path) belongs to uid {OTHER_UID}"
        ctl = run_as(VICTIM_UID, sys.executable, "-m", "supervisor.cli.ctl", "status")
        assert (ctl.returncode, ctl.stdout) == (2, ""), ctl.stdout + ctl.stderr
        assert found in ctl.stderr and str(sock) in ctl.stderr, ctl.stderr
        tui = run_as(VICTIM_UID, sys.executable, "-c", TUI_CONNECT)
        assert found in tui.stdout, tui.stdout + tui.stderr
        mine = run_as(VICTIM_UID, *daemon, "--state-dir", str(workdir / "victim"))
        assert socket_accepting(sock)
        assert found in one_line(mine)  # type: ignore[arg-type]
    finally:
        attacker.send_signal(signal.SIGTERM)
        attacker.communicate(timeout=30)
        shutil.rmtree(runtime, ignore_errors=True)


# -- startup refusals: one line --------------------------------------------------------------

def test_bad_config_is_one_line(workdir: Path) -> None:
    cfg = workdir / "supervisor.toml"
    cfg.write_text("no_such_key = 1\n")
    line = one_line(start_refused(workdir, workdir / "s.sock", workdir / "state",
                                  "--config", str(cfg)))
    assert "unknown key(s): no_such_key" in line
