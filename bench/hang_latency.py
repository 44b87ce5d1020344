"""How long after a launch goes silent does the daemon call it hung? And exit -> verdict?

Starts the real daemon on a temp dir, runs N launches that hang in CUDA-graph capture with
silence = S, and N that crash in KV allocation; a subscriber stamps the arrival of the last
log line and of the verdict event.

    python bench/hang_latency.py [-n 5] [--silence 3]
"""

from __future__ import annotations

import argparse
import os
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from supervisor.protocol.client import connect_unix  # noqa: E402
from tests.e2e.harness import emulator_profile, free_port  # noqa: E402


async def measure(sock: Path, profile: str) -> tuple[float, float]:
    """(verdict arrival - last log line arrival, verdict arrival - switch) in seconds."""
    async with connect_unix(sock) as client:
        await client.request("subscribe", topics=["log", "run"])
        t0 = time.monotonic()
        await client.request("switch", profile=profile)
        last_log = t0
        with anyio.fail_after(120):
            async for ev in client.events():
                if ev["event"] == "log":
                    last_log = time.monotonic()
                elif ev["event"] == "verdict":
                    now = time.monotonic()
                    return now - last_log, now - t0
    raise RuntimeError("no verdict")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("-n", type=int, default=5)
    ap.add_argument("--silence", type=float, default=3.0)
    args = ap.parse_args()
    tmp = Path(tempfile.mkdtemp(prefix="gns-bench-", dir="/tmp"))
    (tmp / "p").mkdir()
    (tmp / "p" / "hang.toml").write_text(emulator_profile(
        "hang", port=free_port(), fault="hang:cuda_graph_capture", silence=args.silence))
    (tmp / "p" / "crash.toml").write_text(emulator_profile(
        "crash", port=free_port(), fault="crash:kv_cache_alloc:kv_cache_oom"))
    sock = tmp / "s.sock"
    daemon = subprocess.Popen([sys.executable, "-m", "supervisor.cli.daemon", "--socket",
                               str(sock), "--profiles", str(tmp / "p"), "--state-dir",
                               str(tmp / "state"), "--fake-gpus", "2"],
                              env={**os.environ, "PYTHONPATH": str(REPO)},
                              stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    try:
        while not sock.exists():
            time.sleep(0.05)
        hang = [anyio.run(measure, sock, "hang") for _ in range(args.n)]
        crash = [anyio.run(measure, sock, "crash") for _ in range(args.n)]
    finally:
        daemon.terminate()
        daemon.wait(30)
        shutil.rmtree(tmp, ignore_errors=True)
    silent = [h[0] for h in hang]
    exitv = [c[0] for c in crash]
    print(f"hang verdict after the last output line (silence = {args.silence:g} s), n={args.n}:"
          f" median {statistics.median(silent):.2f} s, max {max(silent):.2f} s "
          f"(excess over silence: median {statistics.median(silent) - args.silence:.2f} s)")
    print(f"crash: last log line -> verdict event, n={args.n}: median "
          f"{statistics.median(exitv) * 1000:.0f} ms, max {max(exitv) * 1000:.0f} ms")


if __name__ == "__main__":
    main()
