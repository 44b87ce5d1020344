"""`history -n N` on a large history: how long it takes, and whether `status` still answers.

    .venv/bin/python bench/history_scale.py [--runs 30000] [--n 10000] [--items 8] [--src PATH]

Builds a history of ``--runs`` runs (six phases each, ``--items`` checklist items on every
other run as a failed run's plan has, a few events each) the way an existing daemon would
have left it (without the indexes this tree adds on open), starts the daemon from ``--src``
(default: this tree; give an exported older tree to compare) on it, and asks for
``history -n N`` while a second client sends `status` every 20 ms. Prints the history round
trip, the daemon's start-up time (it creates missing indexes on open) and the slowest
`status` answered while the history read was in flight.
"""

from __future__ import annotations

import argparse
import json
import sqlite3
import sys
import tempfile
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import REPO, RawClient, SrcDaemon, pct  # noqa: E402
from supervisor.store import SCHEMA  # noqa: E402

PHASES = ("launch", "weight_loading", "kv_cache_alloc", "cuda_graph_capture", "warmup", "ready")
# What this tree added; a history written before it has none of them.
NEW_INDEXES = ("checklist_run", "runs_status")


def build_history(path: Path, runs: int, items: int) -> None:
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    for name in NEW_INDEXES:
        db.execute(f"DROP INDEX IF EXISTS {name}")
    t0 = 1.7e9
    db.execute("BEGIN")
    for i in range(1, runs + 1):
        start = t0 + i * 60
        db.execute(
            "INSERT INTO runs (id, token, profile, changes, hash, resolved, argv, env, request_id,"
            " reason, status, phase, cause, evidence, exit_code, started, ended, benchmark)"
            " VALUES (?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?,?)",
            (i, f"tok{i:08x}", f"profile-{i % 7}", json.dumps(["nccl_fewchan"] if i % 3 else []),
             "h" * 16, json.dumps({"engine": "sglang", "args": {"tp-size": 8}}),
             json.dumps(["python3", "-m", "sglang.launch_server"]), json.dumps({"A": "1"}),
             i, "switch requested", "stopped" if i % 2 else "crashed", "ready",
             None if i % 2 else "cuda_oom", json.dumps(["evidence line"] * 3), 0, start,
             start + 50, json.dumps({"kind": "chat", "tokens_per_s": 100.0 + i % 10})))
        for k, phase in enumerate(PHASES):
            db.execute("INSERT INTO phases (run_id, phase, started, ended) VALUES (?,?,?,?)",
                       (i, phase, start + k, start + k + 1))
        for _ in range(items if i % 2 == 0 else 0):
            db.execute("INSERT INTO checklist (run_id, key, title, status, evidence, auto, created,"
                       " updated) VALUES (?,?,?,?,?,?,?,?)",
                       (i, "stacks", "dump stacks", "done", "[]", 1, start, start))
        for kind in ("status", "ready", "status"):
            db.execute("INSERT INTO events (ts, run_id, kind, data) VALUES (?,?,?,?)",
                       (start, i, kind, json.dumps({"status": "ready"})))
    db.execute("COMMIT")
    db.close()


def measure(src: Path, runs: int, n: int, items: int) -> dict[str, float]:
    work = Path(tempfile.mkdtemp(prefix="gns-hist-", dir="/tmp"))
    (work / "profiles").mkdir()
    (work / "state").mkdir()
    build_history(work / "state" / "history.sqlite3", runs, items)
    daemon = SrcDaemon(src, work / "profiles", work / "state", work / "s.sock", fake_gpus=0)
    t0 = time.monotonic()
    daemon.start()
    startup = time.monotonic() - t0
    try:
        return {"startup_s": startup, **_history_under_status(work / "s.sock", n)}
    finally:
        daemon.stop()


def _history_under_status(sock: Path, n: int) -> dict[str, float]:
    done = threading.Event()
    status_ms: list[float] = []

    def poll_status() -> None:
        client = RawClient(sock)
        try:
            while not done.is_set():
                t = time.monotonic()
                client.request("status")
                status_ms.append((time.monotonic() - t) * 1000)
                time.sleep(0.02)
        finally:
            client.close()

    poller = threading.Thread(target=poll_status)
    poller.start()
    time.sleep(0.2)
    client = RawClient(sock)
    t = time.monotonic()
    got = client.request("history", n=n)
    history_s = time.monotonic() - t
    client.close()
    done.set()
    poller.join()
    assert len(got["runs"]) == n, len(got["runs"])
    return {"history_s": history_s, "status_max_ms": max(status_ms),
            "status_p99_ms": pct(status_ms, 99), "status_n": len(status_ms)}


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--runs", type=int, default=30_000)
    ap.add_argument("--n", type=int, default=10_000)
    ap.add_argument("--items", type=int, default=8, help="checklist items of a failed run")
    ap.add_argument("--src", type=Path, default=REPO,
                    help="a tree holding supervisor/ to run the daemon from (default: this one)")
    a = ap.parse_args()
    res = measure(a.src, a.runs, a.n, a.items)
    print(f"{a.src}: {a.runs} runs ({a.items} checklist items per failed run), "
          f"history -n {a.n}: {res['history_s']:.2f} s; daemon start "
          f"{res['startup_s']:.2f} s; status while it ran: {int(res['status_n'])} answered, "
          f"p99 {res['status_p99_ms']:.1f} ms, max {res['status_max_ms']:.1f} ms")


if __name__ == "__main__":
    main()
