"""Helpers of bench/run.py: process accounting, a raw control-socket client, supervisord."""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import textwrap
import time
import xmlrpc.client
from pathlib import Path
from typing import Any

BENCH = Path(__file__).resolve().parent
REPO = BENCH.parent
CHILDREN = BENCH / "children"
SV_VENV = BENCH / ".venv-supervisord"
CLK = os.sysconf("SC_CLK_TCK")
PY = sys.executable  # the children run with the project's interpreter on both sides


# -- numbers ---------------------------------------------------------------------------------
def pct(values: list[float], q: float) -> float:
    """Nearest-rank percentile (q in 0..100)."""
    if not values:
        return float("nan")
    s = sorted(values)
    k = max(0, min(len(s) - 1, int(round(q / 100 * len(s) + 0.5)) - 1))
    return s[k]


def median(values: list[float]) -> float:
    s = sorted(values)
    if not s:
        return float("nan")
    m = len(s) // 2
    return s[m] if len(s) % 2 else (s[m - 1] + s[m]) / 2


# -- processes -------------------------------------------------------------------------------
def cpu_s(pid: int) -> float:
    """User + system CPU seconds of a process (all its threads)."""
    with open(f"/proc/{pid}/stat", "rb") as f:
        stat = f.read()
    fields = stat[stat.rfind(b")") + 2:].split()
    return (int(fields[11]) + int(fields[12])) / CLK


def rss_mb(pid: int) -> float:
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            if line.startswith("VmRSS:"):
                return int(line.split()[1]) / 1024
    return float("nan")


def pids_with_env(item: bytes) -> list[int]:
    """Live (non-zombie) processes whose environment contains ``item`` (b"KEY=value")."""
    from tests.e2e.harness import processes_with_env  # the one /proc scanner of the tests

    key, _, value = item.decode().partition("=")
    return [pid for pid, v in processes_with_env(key).items() if v == value]


def kill_pids(pids: list[int]) -> None:
    for pid in pids:
        try:
            os.kill(pid, signal.SIGKILL)
        except OSError:
            pass


def wait_for(pred: Any, timeout: float, what: str, interval: float = 0.01) -> Any:
    deadline = time.monotonic() + timeout
    while True:
        v = pred()
        if v:
            return v
        if time.monotonic() > deadline:
            raise RuntimeError(f"timed out after {timeout:g} s waiting for {what}")
        time.sleep(interval)


# -- the daemon's control socket, without the async client's overhead ------------------------
class RawClient:
    def __init__(self, path: Path | str) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.connect(os.fspath(path))
        self.buf = b""
        self.ids = 0
        self.hello = json.loads(self._line())

    def _line(self) -> bytes:
        while b"\n" not in self.buf:
            data = self.sock.recv(1 << 20)
            if not data:
                raise ConnectionError("daemon closed the connection")
            self.buf += data
        line, _, self.buf = self.buf.partition(b"\n")
        return line

    def request(self, cmd: str, **args: Any) -> Any:
        self.ids += 1
        rid = self.ids
        self.sock.sendall(json.dumps({"id": rid, "cmd": cmd, "args": args}).encode() + b"\n")
        while True:
            msg = json.loads(self._line())
            if msg.get("id") == rid:
                if not msg.get("ok"):
                    raise RuntimeError(f"{cmd}: {msg.get('error')}")
                return msg.get("result")

    def close(self) -> None:
        self.sock.close()


# -- supervisord -----------------------------------------------------------------------------
def ensure_supervisord() -> Path:
    """bench/.venv-supervisord with supervisor from PyPI (never in the project's venv: its
    import name ``supervisor`` would shadow ours)."""
    exe = SV_VENV / "bin" / "supervisord"
    if not exe.exists():
        print("installing supervisord into bench/.venv-supervisord ...", file=sys.stderr)
        subprocess.run(["python3", "-m", "venv", str(SV_VENV)], check=True)
        subprocess.run([str(SV_VENV / "bin" / "pip"), "install", "-q", "supervisor"], check=True)
    return exe


def sv_version() -> str:
    res = subprocess.run([str(SV_VENV / "bin" / "supervisord"), "--version"],
                         capture_output=True, text=True)
    return res.stdout.strip()


class Supervisord:
    """supervisord doing the same jobs: the same children, its own log copy and listener."""

    def __init__(self, tmp: Path, port: int, lines: int, marker: str) -> None:
        self.tmp = tmp
        self.port = port
        self.stamps = tmp / "sv-exit-stamps"       # written by the child
        self.arrivals = tmp / "sv-listener-stamps"  # written by the event listener
        self.flood_result = tmp / "sv-flood.json"
        self.flood_log = tmp / "sv-flood.log"
        self.marker = marker
        env_common = f'BENCH_MARK="{marker}"'
        # The log children: full speed (█ bars, or ASCII ones) to one log copy, and paced.
        floods = "".join(textwrap.dedent(f"""\
            [program:{name}]
            command = {PY} -I -S {CHILDREN}/flood.py
            environment = {env},{env_common}
            autostart = false
            autorestart = false
            startsecs = 0
            redirect_stderr = true
            stdout_logfile = {log}
            stdout_logfile_maxbytes = 0

            """) for name, env, log in (
            ("flood", f'BENCH_LINES="{lines}",BENCH_RESULT="{self.flood_result}"',
             self.flood_log),
            ("flood_ascii", f'BENCH_LINES="{lines}",BENCH_ASCII="1",'
                            f'BENCH_RESULT="{self.flood_result}"', self.flood_log),
            ("paced", 'BENCH_RATE="10000"', tmp / "sv-paced.log")))
        conf = f"""\
[inet_http_server]
port = 127.0.0.1:{port}

[supervisord]
nodaemon = true
logfile = {tmp}/supervisord.log
pidfile = {tmp}/supervisord.pid
childlogdir = {tmp}

[rpcinterface:supervisor]
supervisor.rpcinterface_factory = supervisor.rpcinterface:make_main_rpcinterface

[supervisorctl]
serverurl = http://127.0.0.1:{port}

[program:exit]
command = {PY} -I -S {CHILDREN}/exit_child.py
environment = BENCH_STAMP="{self.stamps}",{env_common}
autostart = false
autorestart = false
startsecs = 0
startretries = 0
stdout_logfile = {tmp}/sv-exit.log

{floods}[program:tree]
command = {PY} -I -S {CHILDREN}/tree.py
environment = BENCH_TREE="sv-{marker}",{env_common}
autostart = false
autorestart = false
startsecs = 0
stopasgroup = true
killasgroup = true
stopwaitsecs = 2
stdout_logfile = {tmp}/sv-tree.log

[program:idle]
command = {PY} -I -S -c "import time; time.sleep(1e9)"
environment = {env_common}
autostart = true
startsecs = 0
stdout_logfile = {tmp}/sv-idle.log

[eventlistener:stamp]
command = {PY} -I -S {CHILDREN}/sv_listener.py
environment = BENCH_SV_STAMPS="{self.arrivals}",{env_common}
events = PROCESS_STATE_EXITED
stderr_logfile = {tmp}/sv-listener.err
"""
        self.conf = tmp / "supervisord.conf"
        self.conf.write_text(conf)
        self.proc: subprocess.Popen[bytes] | None = None
        self.rpc = xmlrpc.client.ServerProxy(f"http://127.0.0.1:{port}/RPC2")

    def start(self) -> Supervisord:
        self.proc = subprocess.Popen([str(SV_VENV / "bin" / "supervisord"), "-n", "-c",
                                      str(self.conf)], cwd=self.tmp,
                                     stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)

        def up() -> bool:
            try:
                info = {p["name"]: p["statename"] for p in self.rpc.supervisor.getAllProcessInfo()}
            except OSError:
                return False
            return info.get("stamp") == "RUNNING" and info.get("idle") == "RUNNING"
        wait_for(up, 30, "supervisord and its listener", 0.05)
        return self

    @property
    def pid(self) -> int:
        assert self.proc is not None
        return self.proc.pid

    def state(self, name: str) -> str:
        return str(self.rpc.supervisor.getProcessInfo(name)["statename"])

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(20)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)
        kill_pids(pids_with_env(f"BENCH_MARK={self.marker}".encode()))


class SrcDaemon:
    """The daemon run from another copy of ``supervisor/`` (A/B against this tree)."""

    def __new__(cls, src: Path, *a: Any, **kw: Any) -> Any:
        from tests.e2e.harness import Daemon, socket_accepting, test_env, wait_until

        class _D(Daemon):
            def start(self) -> Any:
                argv = [sys.executable, "-m", "supervisor.cli.daemon", "--socket",
                        str(self.sock), "--profiles", str(self.profiles), "--state-dir",
                        str(self.state), "--fake-gpus", str(self.fake_gpus)]
                env = test_env(self.marker)
                env["PYTHONPATH"] = str(src)
                self.proc = subprocess.Popen(argv, cwd=src, env=env, stdout=subprocess.DEVNULL,
                                             stderr=subprocess.DEVNULL)
                wait_until(lambda: socket_accepting(self.sock), 20, "socket")
                return self
        return _D(*a, **kw)
