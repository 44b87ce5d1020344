"""Rank failure -> every other rank's stop begun, in a launch group of N daemons on one host.

A real etcd and N real daemons (nodes n0..n{N-1}, own state dirs, sockets and addresses
127.0.0.x), ranks run by the emulator. Each trial launches the group with one rank set to
crash in CUDA-graph capture (a different rank each trial); once the group has settled, the
rank records are read from etcd: each record's ``failed_at`` is the wall-clock moment its
daemon recorded the failure (the failing rank) or began stopping its rank (every other one).
The latency of a peer is its stop's start minus the failure (one host: one clock).

    python bench/group_stop.py [--nodes 8] [--trials 8]
"""

from __future__ import annotations

import argparse
import json
import os
import subprocess
import sys
from pathlib import Path

import anyio

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from bench.common import pct  # noqa: E402
from supervisor.cluster.etcd import Etcd  # noqa: E402
from supervisor.cluster.group import PREFIX  # noqa: E402
from tests.e2e.harness import (  # noqa: E402
    RUN_VAR,
    Daemon,
    cleanup,
    emulator_profile,
    free_port,
    kill_env_processes,
    short_tmpdir,
    wait_until,
)
from tests.etcd_server import EtcdServer  # noqa: E402


def start(root: Path, etcd: EtcdServer, n: int) -> tuple[list[Daemon], str]:
    nodes = [f"n{i}" for i in range(n)]
    port, dist = free_port(), free_port()
    daemons = []
    for i, node in enumerate(nodes):
        base = root / node
        (base / "profiles").mkdir(parents=True)
        (base / "state").mkdir()
        config = base / "supervisor.toml"
        config.write_text(f'[cluster]\netcd = "{etcd.url}"\nnode = "{node}"\n'
                          f'address = "127.0.0.{i + 1}"\nlease_ttl = 5\n')
        for k in range(n):  # grp-K: rank K crashes in capture
            text = emulator_profile(f"grp-{k}", port=port, scale=0.01,
                                    fault=f"crash:cuda_graph_capture:cuda_oom@GNS_TEST_N{k}")
            text = text.replace("tp-size = 2", "tp-size = 1") + (
                f"\n[group]\nnodes = {json.dumps(nodes)}\ndist_init_port = {dist}\n")
            (base / "profiles" / f"grp-{k}.toml").write_text(text)
        daemons.append(Daemon(base / "profiles", base / "state", base / "s.sock",
                              config=config, env={f"GNS_TEST_N{i}": "1"}))
    for d in daemons:
        d.start()
    wait_until(lambda: all(d.ctl_json("group", "status")["coordination"]["state"] == "ok"
                           for d in daemons), 30, "every daemon coordinating")
    return daemons, "+".join(nodes)


async def records(url: str, group: str) -> list[dict]:
    kvs, _ = await Etcd(url).get_prefix(f"{PREFIX}groups/{group}/ranks/")
    return [kv.json() for kv in kvs]


def trial(daemons: list[Daemon], url: str, group: str, k: int) -> list[float]:
    res = daemons[(k + 1) % len(daemons)].ctl("switch", f"grp-{k}", "--wait", "--timeout", "90",
                                              "--json", timeout=120)
    if res.returncode != 1:
        raise RuntimeError(f"trial {k}: switch exited {res.returncode}: {res.stdout[-2000:]}")
    verdict = json.loads(res.stdout)["verdict"]
    if verdict["rank"] != k:
        raise RuntimeError(f"trial {k}: verdict names rank {verdict['rank']}")
    attempt = json.loads(res.stdout)["group"]["attempt"]
    recs = [r for r in anyio.run(records, url, group) if r.get("attempt") == attempt]
    root = next(r for r in recs if r["rank"] == k)
    peers = [r for r in recs if r["rank"] != k]
    if len(peers) != len(daemons) - 1 or any(not r.get("failed_at") for r in peers):
        raise RuntimeError(f"trial {k}: not every peer began its stop: {peers}")
    return [r["failed_at"] - root["failed_at"] for r in peers]


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--nodes", type=int, default=8)
    ap.add_argument("--trials", type=int, default=8)
    ap.add_argument("--json", type=Path, help="write the figures here too")
    args = ap.parse_args()
    root = short_tmpdir()
    etcd = EtcdServer().start()
    daemons: list[Daemon] = []
    try:
        daemons, group = start(root, etcd, args.nodes)
        lat: list[float] = []
        for t in range(args.trials):
            got = trial(daemons, etcd.url, group, t % args.nodes)
            lat += got
            print(f"trial {t}: rank {t % args.nodes} crashed; peers' stop began after "
                  f"{min(got) * 1000:.0f}-{max(got) * 1000:.0f} ms", flush=True)
        out = {"nodes": args.nodes, "trials": args.trials, "samples": len(lat),
               "p50_ms": round(pct(lat, 50) * 1000, 1), "p99_ms": round(pct(lat, 99) * 1000, 1),
               "max_ms": round(max(lat) * 1000, 1), "cpus": os.cpu_count(),
               "etcd": subprocess.run([etcd.binary, "--version"], capture_output=True,
                                      text=True).stdout.splitlines()[0]}
        print(json.dumps(out))
        if args.json:
            args.json.write_text(json.dumps(out, indent=1) + "\n")
    finally:
        for d in daemons:
            try:
                d.stop()
            finally:
                d.kill()
            kill_env_processes(RUN_VAR, marker=d.marker)
        etcd.close()
        if not os.environ.get("GNS_KEEP_TMP"):
            cleanup(root)


if __name__ == "__main__":
    main()
