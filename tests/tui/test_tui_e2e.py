"""End to end: the real ``supervisor-tui`` against the real daemon, under tmux and over SSH.

These start ``python -m supervisor.cli.daemon`` with the demo profiles and two fake GPUs. The
tmux test types into the real program and reads the screen with ``capture-pane``; the SSH test
runs a private sshd on loopback (its own host and user keys) and attaches through
``ssh HOST supervisor-ctl bridge``. They skip only when tmux or sshd cannot be found.
"""

from __future__ import annotations

import os
import re
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
VENV_BIN = Path(sys.executable).parent
pytestmark = pytest.mark.e2e


def wait_until(predicate, timeout: float, what: str, interval: float = 0.2):
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        value = predicate()
        if value:
            return value
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what}")


@pytest.fixture
def short_dir() -> Iterator[str]:
    path = tempfile.mkdtemp(prefix="gnse", dir="/tmp")
    try:
        yield path
    finally:
        shutil.rmtree(path, ignore_errors=True)


def _free_port() -> int:
    import socket

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


# Silent in graph capture: no output, no CPU, disk or GPU activity; hung after 12 s.
HANG_PROFILE = """\
description = "hangs in graph capture (silence 12 s)"
extends = "demo-baseline"

[launch]
env = { SGLANG_EMULATOR_FAULT = "hang:cuda_graph_capture" }

[timeouts]
cuda_graph_capture = 300
silence = 12
"""


@pytest.fixture
def daemon(short_dir: str) -> Iterator[str]:
    """The real daemon on a short socket path; yields the socket path."""
    yield from run_daemon(short_dir)


@pytest.fixture
def hang_daemon(short_dir: str) -> Iterator[str]:
    """The real daemon with the demo profiles and ``demo-hang-silent`` (HANG_PROFILE)."""
    yield from run_daemon(short_dir, {"demo-hang-silent.toml": HANG_PROFILE})


def run_daemon(short_dir: str, extra: dict[str, str] | None = None) -> Iterator[str]:
    sock = os.path.join(short_dir, "c.sock")
    state = os.path.join(short_dir, "state")
    os.makedirs(state)
    # The demo profiles, each on a free port: tests run in parallel with each other.
    profiles = os.path.join(short_dir, "profiles")
    os.makedirs(profiles)
    for src in sorted((REPO / "profiles" / "demo").glob("*.toml")):
        text = src.read_text()
        if "port = 31000" in text:
            text = text.replace("port = 31000", f"port = {_free_port()}")
        Path(profiles, src.name).write_text(text)
    for name, text in (extra or {}).items():
        Path(profiles, name).write_text(text)
    log = open(os.path.join(short_dir, "daemon.log"), "wb")
    proc = subprocess.Popen(
        [sys.executable, "-m", "supervisor.cli.daemon", "--socket", sock,
         "--profiles", profiles, "--state-dir", state, "--fake-gpus", "2"],
        cwd=REPO, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    try:
        try:
            wait_until(lambda: os.path.exists(sock) or proc.poll() is not None, 30,
                       "the daemon's socket")
        finally:
            log.flush()
        if proc.poll() is not None:
            raise AssertionError("the daemon exited: "
                                 + Path(short_dir, "daemon.log").read_text()[-2000:])
        yield sock
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            try:
                proc.wait(20)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        log.close()


class Tmux:
    """A private tmux server (its own -L socket) running one program in a fixed-size pane."""

    def __init__(self, name: str) -> None:
        self.name = name

    def run(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.name, *args], check=True,
                              capture_output=True, text=True, timeout=10).stdout

    def start(self, command: str, width: int = 120, height: int = 30) -> None:
        self.run("new-session", "-d", "-s", "tui", "-x", str(width), "-y", str(height),
                 "-c", str(REPO), command)

    def keys(self, *keys: str) -> None:
        for k in keys:
            self.run("send-keys", "-t", "tui", k)
            time.sleep(0.3)

    def screen(self) -> str:
        try:
            return self.run("capture-pane", "-p", "-t", "tui")
        except subprocess.CalledProcessError:
            return ""

    def wait_for(self, text: str, timeout: float = 30) -> str:
        try:
            return wait_until(lambda: (s := self.screen()) and text in s and s, timeout,
                              repr(text))
        except AssertionError:
            raise AssertionError(f"{text!r} never appeared; the screen:\n{self.screen()}") \
                from None

    def kill(self) -> None:
        subprocess.run(["tmux", "-L", self.name, "kill-server"], capture_output=True,
                       timeout=10)


def test_real_tui_under_tmux_attaches_and_switches(daemon: str, short_dir: str) -> None:
    if not shutil.which("tmux"):
        pytest.skip("tmux is not installed (scripts/ensure-test-tools.sh installs it)")
    tmux = Tmux(f"gnst{os.getpid()}")
    out = os.path.join(short_dir, "tui.out")
    cmd = (f"env TERM=xterm-256color {VENV_BIN / 'supervisor-tui'} --socket {daemon}"
           f"; echo TUI-EXITED $? > {out}; sleep 30")
    tmux.start(cmd)
    try:
        tmux.wait_for("● connected")
        tmux.wait_for("GPUs (2)")
        tmux.keys("p")
        tmux.wait_for("demo-baseline")
        # walk the list (it may hold other demo profiles) until the confirmation names ours
        tmux.keys("home")
        for _ in range(12):
            tmux.keys("s")
            time.sleep(0.5)
            if "Switch to demo-baseline?" in tmux.screen():
                break
            if "Switch to " in tmux.screen():
                tmux.keys("n")
            tmux.keys("down")
        tmux.wait_for("Switch to demo-baseline?")
        tmux.keys("y")
        tmux.keys("escape")
        tmux.wait_for("READY", timeout=90)
        screen = tmux.screen()
        assert "demo-baseline" in screen
        tmux.keys("q")
        wait_until(lambda: os.path.exists(out) and "TUI-EXITED" in Path(out).read_text(), 15,
                   "the TUI to exit")
        assert "TUI-EXITED 0" in Path(out).read_text(), Path(out).read_text()[-3000:]
    finally:
        tmux.kill()


def test_real_tui_counts_a_silent_hang_up_to_the_verdict(hang_daemon: str,
                                                         short_dir: str) -> None:
    """The activity line ticks while the server says nothing (no run event comes), names the
    budget, and the verdict follows; both screens go to the test's output."""
    if not shutil.which("tmux"):
        pytest.skip("tmux is not installed (scripts/ensure-test-tools.sh installs it)")
    tmux = Tmux(f"gnsh{os.getpid()}")
    tmux.start(f"env TERM=xterm-256color {VENV_BIN / 'supervisor-tui'} --socket {hang_daemon}",
               width=110, height=30)
    try:
        tmux.wait_for("● connected")
        subprocess.run([str(VENV_BIN / "supervisor-ctl"), "--socket", hang_daemon, "switch",
                        "demo-hang-silent"], check=True, capture_output=True, timeout=30)
        pattern = re.compile(r"silent (\d+) s of 12 s")

        def silent_for() -> int | None:
            m = pattern.search(" ".join(tmux.screen().split()))
            return int(m.group(1)) if m else None

        try:
            first = wait_until(silent_for, 60, "the silent count on screen")
        except AssertionError:
            raise AssertionError(f"no silent count; the screen:\n{tmux.screen()}") from None
        screen1 = tmux.screen()
        later = wait_until(lambda: (n := silent_for()) and n >= first + 3 and n, 10,
                           "the silent count to go up")
        screen2 = tmux.screen()
        print(f"--- capture 1 ---\n{screen1}\n--- capture 2 ---\n{screen2}")
        assert later > first
        assert "hung verdict in" in " ".join(screen2.split())
        tmux.wait_for("HUNG", timeout=30)
        wait_until(lambda: "killed by supervisor" in " ".join(tmux.screen().split()), 30,
                   "the exit shown as the supervisor's kill")
    finally:
        tmux.kill()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture
def sshd(short_dir: str) -> Iterator[str]:
    """A private sshd on loopback; yields an ssh config file whose host ``gnstest`` reaches it."""
    sshd_bin = shutil.which("sshd") or ("/usr/sbin/sshd" if os.path.exists("/usr/sbin/sshd")
                                        else None)
    if sshd_bin is None or not shutil.which("ssh") or not shutil.which("ssh-keygen"):
        pytest.skip("sshd/ssh not installed (apt-get install openssh-server; "
                    "scripts/ensure-test-tools.sh does it as root)")
    d = Path(short_dir)
    for key in ("host_key", "user_key"):
        subprocess.run(["ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-f", str(d / key)],
                       check=True, timeout=30)
    (d / "authorized_keys").write_text((d / "user_key.pub").read_text())
    os.chmod(d / "user_key", 0o600)
    port = _free_port()
    path_env = f"{VENV_BIN}:/usr/local/bin:/usr/bin:/bin"
    (d / "sshd_config").write_text(f"""\
Port {port}
ListenAddress 127.0.0.1
HostKey {d / 'host_key'}
AuthorizedKeysFile {d / 'authorized_keys'}
PasswordAuthentication no
KbdInteractiveAuthentication no
PubkeyAuthentication yes
UsePAM no
StrictModes no
PermitRootLogin yes
PidFile {d / 'sshd.pid'}
SetEnv PATH={path_env}
""")
    (d / "ssh_config").write_text(f"""\
Host gnstest
  HostName 127.0.0.1
  Port {port}
  User {os.environ.get('USER') or __import__('pwd').getpwuid(os.getuid()).pw_name}
  IdentityFile {d / 'user_key'}
  IdentitiesOnly yes
  StrictHostKeyChecking no
  UserKnownHostsFile /dev/null
  LogLevel ERROR
  BatchMode yes
""")
    try:
        os.makedirs("/run/sshd", exist_ok=True)
    except PermissionError:
        pass
    log = open(d / "sshd.log", "wb")
    proc = subprocess.Popen([sshd_bin, "-D", "-e", "-f", str(d / "sshd_config")],
                            stdout=log, stderr=subprocess.STDOUT)

    def listening() -> bool:
        if proc.poll() is not None:
            return True
        with socket.socket() as s:
            return s.connect_ex(("127.0.0.1", port)) == 0

    try:
        wait_until(listening, 15, "sshd to listen")
        if proc.poll() is not None:
            pytest.skip("sshd could not start here: " + (d / "sshd.log").read_text()[-500:])
        yield str(d / "ssh_config")
    finally:
        proc.terminate()
        try:
            proc.wait(10)
        except subprocess.TimeoutExpired:
            proc.kill()
        log.close()


@pytest.mark.anyio
async def test_tui_attaches_over_ssh(daemon: str, sshd: str) -> None:
    from tui.app import SupervisorApp
    from tui.connection import Target
    from tui.widgets.gpu_panel import GpuPanel

    app = SupervisorApp([Target.ssh("gnstest", daemon, ("-F", sshd))],
                        reconnect_delays=(0.5,))
    async with app.run_test(size=(120, 30)) as pilot:
        deadline = time.monotonic() + 60
        while not (app.connected and app.main.gpus) and time.monotonic() < deadline:
            await pilot.pause(0.1)
        assert app.connected, f"not connected over ssh: {app.banner}"
        assert app.hello.get("hello") == "gpu-node-supervisor"
        assert len(app.main.gpus) == 2
        assert "gnstest" in str(app.main.query_one("#topbar").content)
        assert app.main.query_one(GpuPanel).border_title == "GPUs (2)"
