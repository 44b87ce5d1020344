"""py-spy an idle daemon (a ready emulator, 8 fake GPUs at 1 Hz): what runs when nothing happens?

    python bench/profile_idle.py [--seconds 30] [--gpus 8]
"""
from __future__ import annotations

import argparse
import collections
import subprocess
import sys
import tempfile
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import RawClient, cpu_s, wait_for  # noqa: E402
from bench.run import write_profiles  # noqa: E402
from tests.e2e.harness import Daemon  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--seconds", type=float, default=30)
ap.add_argument("--gpus", type=int, default=8)
ap.add_argument("--out", default="/tmp/gns-pyspy-idle.txt")
args = ap.parse_args()
tmp = Path(tempfile.mkdtemp(prefix="gns-prof-", dir="/tmp"))
(tmp / "p").mkdir()
write_profiles(tmp / "p", tmp, 1000, "prof")
d = Daemon(tmp / "p", tmp / "state", tmp / "s.sock", fake_gpus=args.gpus).start()
try:
    c = RawClient(d.sock)
    c.request("switch", profile="ready")
    wait_for(lambda: (c.request("status")["run"] or {}).get("status") == "ready", 120, "ready", .2)
    c.close()
    time.sleep(3)
    c0 = cpu_s(d.proc.pid)
    spy = subprocess.run([str(Path(sys.executable).parent / "py-spy"), "record", "--pid",
                          str(d.proc.pid), "--format", "raw", "--rate", "250", "--nonblocking",
                          "-d", str(int(args.seconds)), "-o", args.out],
                         stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    print(f"daemon CPU {100 * (cpu_s(d.proc.pid) - c0) / args.seconds:.2f} % during the profile")
finally:
    d.stop()
incl: collections.Counter[str] = collections.Counter()
total = 0
idle_words = ("select (selectors", "wait (threading", "_worker", "Condition.wait")
for line in open(args.out):
    stack, _, n = line.rstrip().rpartition(" ")
    frames = stack.split(";")
    if any(w in frames[-1] for w in idle_words):
        continue  # waiting, not running (py-spy without --idle drops most of these itself)
    total += int(n)
    for f in set(frames):
        incl[f.split(" (")[0] + " " + f.split("/")[-1].split(":")[0].rstrip(")")] += int(n)
print(f"{total} busy samples at 250 Hz over {args.seconds:g} s")
for k, v in incl.most_common(40):
    print(f"  {100 * v / total:5.1f}%  {k}")
