"""A real etcd server for tests: free loopback ports, a temp data dir, stopped afterwards.

Tests that need one skip with a reason when the etcd binary is missing
(scripts/ensure-test-tools.sh installs it when run as root, as `make test` does).
"""

from __future__ import annotations

import shutil
import signal
import socket
import subprocess
import tempfile
import time
import urllib.request
from pathlib import Path


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def etcd_binary() -> str | None:
    return shutil.which("etcd") or (
        "/usr/bin/etcd" if Path("/usr/bin/etcd").exists() else None)


class EtcdServer:
    def __init__(self) -> None:
        binary = etcd_binary()
        if binary is None:
            raise RuntimeError("etcd is not installed (apt-get install etcd-server)")
        self.binary = binary
        self.dir = Path(tempfile.mkdtemp(prefix="gns-etcd-", dir="/tmp"))
        self.port = free_port()
        self.peer_port = free_port()
        self.url = f"http://127.0.0.1:{self.port}"
        self.proc: subprocess.Popen[bytes] | None = None
        self.log = self.dir / "etcd.log"

    def start(self, timeout: float = 20.0) -> EtcdServer:
        argv = [self.binary, "--name", "test", "--data-dir", str(self.dir / "data"),
                "--listen-client-urls", self.url, "--advertise-client-urls", self.url,
                "--listen-peer-urls", f"http://127.0.0.1:{self.peer_port}",
                "--initial-advertise-peer-urls", f"http://127.0.0.1:{self.peer_port}",
                "--initial-cluster", f"test=http://127.0.0.1:{self.peer_port}",
                "--log-level", "warn", "--logger", "zap"]
        with open(self.log, "ab") as log:
            self.proc = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT)
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(f"etcd exited {self.proc.returncode}: "
                                   f"{self.log.read_text()[-2000:]}")
            if self.healthy():
                return self
            time.sleep(0.05)
        raise RuntimeError(f"etcd not healthy after {timeout} s: {self.log.read_text()[-2000:]}")

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"{self.url}/health", timeout=1) as res:
                return b'"true"' in res.read()
        except OSError:
            return False

    def stop(self) -> None:
        if self.proc is not None and self.proc.poll() is None:
            self.proc.send_signal(signal.SIGTERM)
            try:
                self.proc.wait(10)
            except subprocess.TimeoutExpired:
                self.proc.kill()
                self.proc.wait(5)

    def close(self) -> None:
        self.stop()
        shutil.rmtree(self.dir, ignore_errors=True)
