"""A/B of exit -> verdict latency: this tree's daemon against another copy of supervisor/.

    python bench/ab_exit.py --base /tmp/gns-ab-base [-n 20] [--reps 2]
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SrcDaemon, pct  # noqa: E402
from bench.run import bench_exit, write_profiles  # noqa: E402


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("-n", type=int, default=20)
    ap.add_argument("--reps", type=int, default=2)
    args = ap.parse_args()
    repo = Path(__file__).resolve().parents[1]
    tmp = Path(tempfile.mkdtemp(prefix="gns-abx-", dir="/tmp"))
    daemons = {}
    for name, src in (("base", args.base), ("new", repo)):
        (tmp / name / "p").mkdir(parents=True)
        write_profiles(tmp / name / "p", tmp / name, 1000, "abx")
        daemons[name] = SrcDaemon(src, tmp / name / "p", tmp / name / "state",
                                  tmp / name / "s.sock", fake_gpus=8).start()
    res: dict[str, dict[str, list[float]]] = {k: {} for k in daemons}
    try:
        for _ in range(args.reps):
            for name, d in daemons.items():
                r = bench_exit(d, None, tmp / name, args.n)
                for k in ("mine_ms", "publish_ms", "raw_ms"):
                    res[name].setdefault(k, []).extend(r[k])
    finally:
        for d in daemons.values():
            d.stop()
    for name, r in res.items():
        print(name, "  ".join(f"{k}: p50 {pct(v, 50):.1f} p90 {pct(v, 90):.1f}"
                              for k, v in r.items()))


if __name__ == "__main__":
    main()
