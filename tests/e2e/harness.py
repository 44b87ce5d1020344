"""Start the real supervisor-daemon as a subprocess and drive it with the real supervisor-ctl."""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[2]
RUN_VAR = "GPU_NODE_SUPERVISOR_RUN"
MARKER_VAR = "GNS_TEST_DAEMON"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class HostClock:
    """A thread of the test process ticking every ``period``: a gap far longer than that means
    this process stood still - the whole machine (a VM paused by its host, a machine loaded
    past its cores), not the daemon alone. A request the daemon did not answer within such a
    gap is asked again once, and the failure says how long the test itself stood still."""

    def __init__(self, period: float = 0.25) -> None:
        self.period = period
        self._lock = threading.Lock()
        self._gaps: list[tuple[float, float]] = []  # (when the tick came, gap before it)
        threading.Thread(target=self._tick, name="host-clock", daemon=True).start()

    def _tick(self) -> None:
        last = time.monotonic()
        while True:
            time.sleep(self.period)
            now = time.monotonic()
            if now - last > 4 * self.period:
                with self._lock:
                    self._gaps = [g for g in self._gaps if now - g[0] < 600] + [(now, now - last)]
            last = now

    def stood_still_since(self, t0: float) -> float:
        """The longest this process stood still (seconds) in gaps that ended after ``t0``."""
        with self._lock:
            return max((gap for at, gap in self._gaps if at > t0), default=0.0)


HOST_CLOCK = HostClock()


def wait_until(pred: Callable[[], Any], timeout: float, what: str, interval: float = 0.05) -> Any:
    """Poll ``pred`` until it returns something truthy; fail with ``what`` after ``timeout``."""
    deadline = time.monotonic() + timeout
    last: Any = None
    while time.monotonic() < deadline:
        last = pred()
        if last:
            return last
        time.sleep(interval)
    raise AssertionError(f"timed out after {timeout}s waiting for {what} (last: {last!r})")


def emulator_profile(name: str, *, port: int, fault: str = "none", scale: float = 0.01,
                     extra: str = "", timeouts: str = "", extends: str | None = None,
                     env: dict[str, str] | None = None, silence: float = 3) -> str:
    env_items = {"SGLANG_EMULATOR_TIME_SCALE": str(scale), "SGLANG_EMULATOR_FAULT": fault,
                 **(env or {})}
    env_toml = ", ".join(f'{k} = "{v}"' for k, v in env_items.items())
    head = f'extends = "{extends}"\n' if extends else ""
    return textwrap.dedent(f"""\
        {head}description = "test profile {name}"
        engine = "sglang"

        [launch]
        command = ["{{python}}", "-m", "supervisor.emulator"]
        model = "test/model"
        host = "127.0.0.1"
        port = {port}
        args = {{ tp-size = 2 }}
        env = {{ {env_toml} }}

        [timeouts]
        silence = {silence}
        stop_grace = 2
        {timeouts}

        [health]
        interval = 0.5
        timeout = 1
        failures = 2
        """) + extra


class Daemon:
    def __init__(self, profiles: Path, state: Path, sock: Path, fake_gpus: int = 2,
                 config: Path | None = None, env: dict[str, str] | None = None) -> None:
        self.extra_env = env or {}
        self.profiles = profiles
        self.state = state
        self.sock = sock
        self.fake_gpus = fake_gpus
        self.config = config
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = state.parent / "daemon.log"
        # Every process the daemon starts inherits this, so tests running in parallel only
        # ever look at their own daemon's processes.
        self.marker = os.urandom(6).hex()

    def run_processes(self) -> dict[int, str]:
        """pid -> run token of every live process of this daemon's runs."""
        return processes_with_env(RUN_VAR, marker=self.marker)

    def start(self) -> Daemon:
        argv = [sys.executable, "-m", "supervisor.cli.daemon", "--socket", str(self.sock),
                "--profiles", str(self.profiles), "--state-dir", str(self.state),
                "--fake-gpus", str(self.fake_gpus)]
        if self.config:
            argv += ["--config", str(self.config)]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, cwd=REPO,
                                         env={**test_env(self.marker), **self.extra_env})
        # Accepting, not just there: the file appears at bind(), a moment before listen().
        wait_until(lambda: socket_accepting(self.sock) or self.proc.poll() is not None, 20,
                   "the daemon's socket")
        if self.proc.poll() is not None:
            raise AssertionError(f"daemon exited {self.proc.returncode}: {self.log.read_text()}")
        return self

    def ctl(self, *args: str, timeout: float = 60, check: bool = False,
            ) -> subprocess.CompletedProcess[str]:
        res = subprocess.run([sys.executable, "-m", "supervisor.cli.ctl", "--socket",
                              str(self.sock), *args], capture_output=True, text=True,
                             timeout=timeout, cwd=REPO, env=test_env())
        if check and res.returncode != 0:
            raise AssertionError(f"ctl {args} -> {res.returncode}: {res.stdout}{res.stderr}")
        return res

    def ctl_json(self, *args: str, timeout: float = 60) -> Any:
        res = self.ctl(*args, "--json", timeout=timeout)
        assert res.returncode == 0, f"ctl {args} -> {res.returncode}: {res.stdout}{res.stderr}"
        return json.loads(res.stdout)

    def request(self, cmd: str, timeout: float = 60, **args: Any) -> Any:
        """One request over the control socket from this process: JSON lines, hello first.

        Polls use this, not a `supervisor-ctl` subprocess: an interpreter start costs about
        0.15 s of CPU, so a wait polling every 0.1 s kept a core busy, and under a CPU engine's
        load on 2 cores each start took 15-25 s (once over a minute in CI). The CLI itself is
        tested through ``ctl``.

        A daemon that does not answer within ``timeout`` is a failure that says why: what the
        daemon's threads were doing then (py-spy) and the end of its log."""
        t0 = time.monotonic()
        try:
            return self._request(cmd, timeout, args)
        except TimeoutError:
            still = HOST_CLOCK.stood_still_since(t0)
        if still >= timeout / 2:  # the machine stood still, not the daemon alone: once more
            try:
                return self._request(cmd, timeout, args)
            except TimeoutError:
                pass
        raise AssertionError(f"the daemon did not answer {cmd!r} within {timeout:g} s (this "
                             f"test process itself stood still for {still:.1f} s meanwhile).\n"
                             f"{self.unanswered_report()}")

    def unanswered_report(self) -> str:
        """The daemon's stacks now and its log's last lines, for a request it did not answer."""
        pid = self.proc.pid if self.proc is not None else None
        pyspy = shutil.which("py-spy") or str(Path(sys.executable).with_name("py-spy"))
        try:
            dump = subprocess.run([pyspy, "dump", "--pid", str(pid)], capture_output=True,
                                  text=True, timeout=30)
            stacks = dump.stdout + dump.stderr
        except (OSError, subprocess.TimeoutExpired) as exc:
            stacks = f"(py-spy dump of pid {pid} failed: {exc})"
        try:
            tail = "".join(self.log.read_text(errors="replace").splitlines(True)[-40:])
        except OSError as exc:
            tail = f"(no daemon log: {exc})"
        with open("/proc/loadavg") as f:
            load = f.read().strip()
        return (f"load average {load}\n--- py-spy dump of the daemon (pid {pid}) ---\n"
                f"{stacks}\n--- the daemon's log, last lines ---\n{tail}")

    def _request(self, cmd: str, timeout: float, args: dict[str, Any]) -> Any:
        with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
            s.settimeout(timeout)
            s.connect(os.fspath(self.sock))
            s.sendall(json.dumps({"id": 1, "cmd": cmd, "args": args}).encode() + b"\n")
            buf = b""
            while True:
                while b"\n" not in buf:
                    data = s.recv(1 << 20)
                    if not data:
                        raise AssertionError(f"the daemon closed the socket before answering "
                                             f"{cmd!r}")
                    buf += data
                line, buf = buf.split(b"\n", 1)
                msg = json.loads(line)
                if msg.get("id") == 1:
                    break
        assert msg.get("ok"), f"{cmd} -> {msg.get('error')}"
        return msg["result"]

    def status(self) -> dict[str, Any]:
        return self.request("status")

    def run(self) -> dict[str, Any] | None:
        return self.status()["run"]

    def events(self, run_id: int | None = None, n: int = 200) -> list[dict[str, Any]]:
        """The daemon's stored events (oldest first), with the daemon's own timestamps."""
        rows = [json.loads(line) for line in
                self.ctl("events", "-n", str(n), "--json", check=True).stdout.splitlines()]
        return [e for e in rows if run_id is None or e["run_id"] == run_id]

    def verdict_after(self, run: dict[str, Any], since: float) -> float:
        """Seconds from wall time ``since`` to the daemon's verdict on ``run``, by the daemon's
        own clock: when it began dumping stacks for a watchdog verdict (the dumps, seconds of
        py-spy on a slow host, are evidence taken after the decision), else when the status
        left starting/ready. A test's status polls are subprocesses a loaded machine delays."""
        events = self.events(run["id"])
        dumps = [e["data"]["began"] for e in events if e["kind"] == "stacks" and
                 e["data"].get("began", 0) >= since]
        changed = [e["ts"] for e in events if e["kind"] == "status" and e["ts"] >= since and
                   e["data"].get("status") not in ("starting", "ready")]
        assert dumps or changed, f"no verdict event for run {run['id']}: {events[-5:]}"
        return min(dumps or changed) - since

    def wait_run(self, pred: Callable[[dict[str, Any]], bool], timeout: float, what: str,
                 ) -> dict[str, Any]:
        def check() -> dict[str, Any] | None:
            run = self.run()
            return run if run is not None and pred(run) else None
        return wait_until(check, timeout, what, interval=0.1)

    def stop(self, timeout: float = 30) -> int:
        if self.proc is None or self.proc.poll() is not None:
            return self.proc.returncode if self.proc else 0
        self.proc.send_signal(signal.SIGTERM)
        try:
            return self.proc.wait(timeout)
        except subprocess.TimeoutExpired:
            self.proc.kill()
            self.proc.wait(5)
            raise AssertionError("daemon did not exit within 30 s of SIGTERM") from None

    def kill(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait(10)


def socket_accepting(path: Path) -> bool:
    """Whether something listens on the Unix socket at ``path`` (connect succeeds)."""
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        try:
            s.connect(os.fspath(path))
        except OSError:
            return False
    return True


def test_env(marker: str | None = None) -> dict[str, str]:
    env = dict(os.environ)
    if marker:
        env[MARKER_VAR] = marker
    env["PYTHONPATH"] = str(REPO) + os.pathsep + env.get("PYTHONPATH", "")
    env.pop("NOTIFY_SOCKET", None)
    return env


def short_tmpdir() -> Path:
    return Path(tempfile.mkdtemp(dir="/tmp", prefix="gns-"))


def processes_with_env(var: str, marker: str | None = None) -> dict[int, str]:
    """pid -> value of ``var`` for every live process that has it (and ``marker``)."""
    out: dict[int, str] = {}
    prefix = f"{var}=".encode()
    mark = f"{MARKER_VAR}={marker}".encode() if marker else None
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            with open(f"/proc/{name}/environ", "rb") as f:
                env = f.read().split(b"\0")
            with open(f"/proc/{name}/stat", "rb") as f:
                stat = f.read()
        except OSError:
            continue
        if stat[stat.rfind(b")") + 2:][:1] == b"Z":
            continue
        if mark is not None and mark not in env:
            continue
        for item in env:
            if item.startswith(prefix):
                out[int(name)] = item[len(prefix):].decode()
    return out


def kill_env_processes(var: str, value: str | None = None, marker: str | None = None) -> None:
    for pid, val in processes_with_env(var, marker).items():
        if value is None or val == value:
            try:
                os.kill(pid, signal.SIGKILL)
            except OSError:
                pass


def cleanup(path: Path) -> None:
    shutil.rmtree(path, ignore_errors=True)
