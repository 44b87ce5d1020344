"""py-spy the daemon while it takes a full-speed flood: where do the CPU seconds per line go?

    python bench/profile_pipeline.py [--lines 1000000] [--subs 1] [--out /tmp/x.txt]
Prints inclusive and self percentages of the hottest functions (collapsed stacks from py-spy).
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

from bench.run import daemon_flood, write_profiles  # noqa: E402
from tests.e2e.harness import Daemon  # noqa: E402

ap = argparse.ArgumentParser()
ap.add_argument("--lines", type=int, default=1_000_000)
ap.add_argument("--subs", type=int, default=1)
ap.add_argument("--out", default="/tmp/gns-pyspy.txt")
ap.add_argument("--top", type=int, default=30)
args = ap.parse_args()
tmp = Path(tempfile.mkdtemp(prefix="gns-prof-", dir="/tmp"))
(tmp / "p").mkdir()
write_profiles(tmp / "p", tmp, args.lines, "prof")
d = Daemon(tmp / "p", tmp / "state", tmp / "s.sock", fake_gpus=8).start()
try:
    spy = subprocess.Popen([str(Path(sys.executable).parent / "py-spy"), "record", "--pid",
                            str(d.proc.pid), "--format", "raw", "--rate", "1000", "--nonblocking",
                            "-o", args.out], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    time.sleep(1.5)
    r = daemon_flood(d, tmp, args.subs)
    spy.send_signal(2)
    spy.wait(30)
    print({k: r[k] for k in ("rate", "cpu_per_M", "max_write_ms", "dropped")})
finally:
    d.stop()
incl: collections.Counter[str] = collections.Counter()
self_: collections.Counter[str] = collections.Counter()
total = 0
for line in open(args.out):
    stack, _, n = line.rstrip().rpartition(" ")
    frames = stack.split(";")
    if not frames or "select" in frames[-1] and len(frames) < 6:
        pass
    total += int(n)
    seen = set()
    for f in frames:
        key = f.split(" (")[0] + " " + f.split("/")[-1].split(":")[0].rstrip(")")
        if key not in seen:
            incl[key] += int(n)
            seen.add(key)
    last = frames[-1]
    self_[last.split(" (")[0] + " " + last.split("/")[-1].rstrip(")")] += int(n)
print(f"{total} samples")
print("inclusive:")
for k, v in incl.most_common(args.top):
    print(f"  {100 * v / total:5.1f}%  {k}")
print("self:")
for k, v in self_.most_common(args.top):
    print(f"  {100 * v / total:5.1f}%  {k}")
