"""Spinning hangs: how long after the last line the verdict comes, and what looking costs.

    .venv/bin/python bench/spin_latency.py [--runs 5] [--silence 6] [--tp 2]

Each run launches the emulator with ``spin:cuda_graph_capture`` (ranks busy-wait in a
collective, fake GPUs 100 % busy at low power) under the real daemon and measures:
- latency: from the run's last output line (the capture phase's first lines) to the hung
  verdict (the floor is ``silence``);
- the stack samples the daemon took and their wall time (its own cost of looking);
- the daemon's CPU time over the whole run, against an idle-hang run of the same length
  (``hang:cuda_graph_capture``: nothing is busy, so no stacks are sampled) in the same session.
"""

from __future__ import annotations

import argparse
import json
import statistics
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import cpu_s  # noqa: E402
from tests.e2e.harness import (  # noqa: E402
    Daemon,
    cleanup,
    emulator_profile,
    free_port,
    short_tmpdir,
)


def one(fault: str, silence: float, tp: int) -> dict[str, float]:
    tmp = short_tmpdir()
    (tmp / "p").mkdir()
    (tmp / "state").mkdir()
    (tmp / "p" / "x.toml").write_text(emulator_profile(
        "x", port=free_port(), fault=fault, silence=silence).replace(
            "tp-size = 2", f"tp-size = {tp}"))
    d = Daemon(tmp / "p", tmp / "state", tmp / "s.sock", fake_gpus=max(tp, 1)).start()
    try:
        cpu0 = cpu_s(d.proc.pid)
        res = d.ctl("switch", "x", "--wait", "--timeout", str(silence * 6), "--json",
                    timeout=silence * 8)
        cpu1 = cpu_s(d.proc.pid)
        out = json.loads(res.stdout)
        run = out["run"]
        v = out["verdict"]
        assert v and v["status"] == "hung", v
        # The capture phase's first lines are the last output; the hung status event is the
        # verdict (before the kill and its grace).
        capture = next(p["started"] for p in run["phases"]
                       if p["phase"] == "cuda_graph_capture")
        events = [json.loads(x) for x in d.ctl("events", "-n", "200", "--json").stdout
                  .splitlines()]
        hung = next(e["ts"] for e in events if e["kind"] == "status"
                    and e["data"].get("status") == "hung")
        return {"latency_s": hung - capture,
                "samples": run["activity"]["stack_samples"],
                "sample_cost_s": run["activity"]["stack_cost_s"],
                "daemon_cpu_s": cpu1 - cpu0, "cause": v["cause"]}  # type: ignore[dict-item]
    finally:
        d.stop()
        cleanup(tmp)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=5)
    ap.add_argument("--silence", type=float, default=6.0)
    ap.add_argument("--tp", type=int, default=2)
    args = ap.parse_args()
    spin = [one("spin:cuda_graph_capture", args.silence, args.tp) for _ in range(args.runs)]
    idle = [one("hang:cuda_graph_capture", args.silence, args.tp) for _ in range(args.runs)]

    def med(rows: list[dict[str, float]], key: str) -> float:
        return round(statistics.median(r[key] for r in rows), 3)

    report = {
        "silence_s": args.silence, "tp": args.tp, "runs": args.runs,
        "spin": {k: med(spin, k) for k in ("latency_s", "samples", "sample_cost_s",
                                           "daemon_cpu_s")},
        "idle_hang": {k: med(idle, k) for k in ("latency_s", "samples", "daemon_cpu_s")},
        "spin_causes": sorted({str(r["cause"]) for r in spin}),
        "latency_max_s": round(max(r["latency_s"] for r in spin), 3),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
