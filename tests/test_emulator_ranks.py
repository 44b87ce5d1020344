"""The emulator's ranks: a real TCP rendezvous on --dist-init-addr; when a peer dies the
survivors print torch's c10d/NCCL timeout lines after the (scaled) dist timeout and exit."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

from supervisor.diagnosis.classifier import classify_lines
from tests.etcd_server import free_port

REPO = Path(__file__).resolve().parents[1]


def start_rank(tmp: Path, rank: int, nnodes: int, dist_port: int, *, timeout: int = 20,
               ) -> tuple[subprocess.Popen[bytes], Path]:
    log = tmp / f"rank{rank}.log"
    env = {**os.environ, "SGLANG_EMULATOR_TIME_SCALE": "0.01", "SGLANG_EMULATOR_FAULT": "none",
           "PYTHONPATH": str(REPO)}
    argv = [sys.executable, "-m", "supervisor.emulator", "--model-path", "m", "--host",
            f"127.0.0.{rank + 1}", "--port", str(free_port()), "--tp-size", "2",
            "--nnodes", str(nnodes), "--node-rank", str(rank),
            "--dist-init-addr", f"127.0.0.1:{dist_port}", "--dist-timeout", str(timeout)]
    with open(log, "wb") as f:
        proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, env=env,
                                start_new_session=True)
    return proc, log


def wait_for(pred, timeout: float, what: str, logs: list[Path] = ()) -> None:
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if pred():
            return
        time.sleep(0.05)
    tails = "".join(f"\n--- {log.name}, last lines ---\n"
                    + "".join(log.read_text(errors="replace").splitlines(True)[-15:])
                    for log in logs)
    raise AssertionError(f"timed out waiting for {what}{tails}")


def test_peer_death_ends_survivors_with_c10d_lines(tmp_path: Path) -> None:
    port = free_port()
    ranks = [start_rank(tmp_path, r, 3, port) for r in range(3)]
    try:
        wait_for(lambda: "fired up and ready" in ranks[0][1].read_text()
                 and all("node_rank=" in log.read_text() and "scheduler ready" in
                         log.read_text() for _, log in ranks[1:]), 30, "every rank up",
                 [log for _, log in ranks])
        os.killpg(ranks[2][0].pid, signal.SIGKILL)
        # dist timeout 20 s scaled by 0.01: rank 0 gives up 0.2 s after the peer's death
        assert ranks[0][0].wait(15) == 1
        assert ranks[1][0].wait(15) == 1
        log0, log1 = ranks[0][1].read_text(), ranks[1][1].read_text()
        assert "Watchdog caught collective operation timeout" in log0
        assert "TCPStore server has shut down" in log1
        assert classify_lines(log0.splitlines(), engine="sglang").cause.value == "nccl_timeout"
        assert classify_lines(log1.splitlines(), engine="sglang").cause.value == \
            "multinode_rank_failure"
    finally:
        for proc, _ in ranks:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)


def test_a_rank_that_never_comes_times_out_the_rendezvous(tmp_path: Path) -> None:
    proc, log = start_rank(tmp_path, 0, 2, free_port(), timeout=30)
    try:
        assert proc.wait(15) == 1
        text = log.read_text()
        assert "Timed out after 30 seconds waiting for clients. 1/2 clients joined." in text
        assert "fired up" not in text
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait(5)


def test_ranks_started_before_rank_0_still_join_at_a_fast_time_scale(tmp_path: Path) -> None:
    """Process start skew is real time: at scale 0.01 a 20 s dist timeout is 0.2 s of engine
    time, but the rendezvous must still wait for a rank 0 that starts a second late."""
    port = free_port()
    ranks = [start_rank(tmp_path, r, 3, port) for r in (1, 2)]
    time.sleep(1.5)
    ranks.insert(0, start_rank(tmp_path, 0, 3, port))
    try:
        wait_for(lambda: "fired up and ready" in ranks[0][1].read_text()
                 and all("scheduler ready" in log.read_text() for _, log in ranks[1:]), 30,
                 "every rank up", [log for _, log in ranks])
        assert all(proc.poll() is None for proc, _ in ranks)
    finally:
        for proc, _ in ranks:
            if proc.poll() is None:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
