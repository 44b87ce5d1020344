"""A/B of the log pipeline: the daemon from this tree against the daemon from another copy of
``supervisor/`` (e.g. the commit before an optimisation), interleaved in one run.

    python bench/ab_pipeline.py --base /tmp/gns-ab-base [--lines 300000] [--reps 3] [--subs 1,50]
where /tmp/gns-ab-base/supervisor is the other source (``git worktree``/``git archive`` of it).
"""
from __future__ import annotations

import argparse
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import SrcDaemon, median  # noqa: E402
from bench.run import daemon_flood, write_profiles  # noqa: E402


def paced(daemons: dict, tmp: Path, args: argparse.Namespace) -> None:
    import time

    from bench.common import RawClient, cpu_s, pct
    from bench.run import Farm
    out: dict[str, dict[str, list[float]]] = {k: {"cpu": [], "status": [], "ping": []}
                                              for k in daemons}
    for _ in range(args.reps):
        for name, d in daemons.items():
            c = RawClient(d.sock)
            farm = Farm(d.sock, 50, tmp / name)
            c.request("switch", profile="paced")
            time.sleep(1.5)
            c0, t0 = cpu_s(d.proc.pid), time.monotonic()
            while time.monotonic() - t0 < args.paced:
                for cmd in ("status", "ping"):
                    t = time.perf_counter()
                    c.request(cmd)
                    out[name][cmd].append((time.perf_counter() - t) * 1000)
                    time.sleep(0.01)
            out[name]["cpu"].append((cpu_s(d.proc.pid) - c0) / (time.monotonic() - t0) * 100)
            farm.close()
            c.request("stop")
            c.close()
    for name, r in out.items():
        print(f"{name:4s} CPU {median(r['cpu']):.0f} % (runs {[round(x) for x in r['cpu']]}), "
              f"status p50/p99 {pct(r['status'], 50):.1f}/{pct(r['status'], 99):.1f} ms, "
              f"ping p50/p99 {pct(r['ping'], 50):.1f}/{pct(r['ping'], 99):.1f} ms")


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--base", type=Path, required=True)
    ap.add_argument("--lines", type=int, default=300_000)
    ap.add_argument("--reps", type=int, default=3)
    ap.add_argument("--subs", default="1,50")
    ap.add_argument("--paced", type=float, default=0,
                    help="instead: seconds of a 10k lines/s log with 50 subscribers (CPU, "
                         "status and ping round trips)")
    args = ap.parse_args()
    repo = Path(__file__).resolve().parents[1]
    tmp = Path(tempfile.mkdtemp(prefix="gns-ab-", dir="/tmp"))
    daemons = {}
    for name, src in (("base", args.base), ("new", repo)):
        (tmp / name / "p").mkdir(parents=True)
        write_profiles(tmp / name / "p", tmp / name, args.lines, "ab")
        daemons[name] = SrcDaemon(src, tmp / name / "p", tmp / name / "state",
                                  tmp / name / "s.sock", fake_gpus=8).start()
    if args.paced:
        try:
            paced(daemons, tmp, args)
        finally:
            for d in daemons.values():
                d.stop()
        return
    res: dict[tuple[str, int], list[dict]] = {}
    try:
        for rep in range(args.reps):
            for subs in [int(x) for x in args.subs.split(",")]:
                for name, d in daemons.items():
                    r = daemon_flood(d, tmp / name, subs)
                    res.setdefault((name, subs), []).append(r)
                    print(f"rep {rep} {name:4s} subs={subs:2d}: {r['rate']:9,.0f} lines/s "
                          f"{r['cpu_per_M']:5.2f} CPU-s/M  max write {r['max_write_ms']:.0f} ms  "
                          f"dropped {r['dropped']}  each follower got "
                          f"{(r['farm_bytes'] or 0) / max(subs, 1) / 2**20:.1f} MiB", flush=True)
    finally:
        for d in daemons.values():
            d.stop()
    for (name, subs), rs in sorted(res.items(), key=lambda x: (x[0][1], x[0][0])):
        print(f"median {name:4s} subs={subs:2d}: {median([r['rate'] for r in rs]):9,.0f} lines/s "
              f"{median([r['cpu_per_M'] for r in rs]):5.2f} CPU-s/M")


if __name__ == "__main__":
    main()
