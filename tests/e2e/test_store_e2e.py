"""The history store against the real daemon: a corrupted file, and a large history read."""

from __future__ import annotations

import http.client
import json
import os
import socket
import sqlite3
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import write_profile
from .harness import emulator_profile, free_port, wait_until

pytestmark = pytest.mark.e2e


def corrupt_every_table(db_path: Path) -> None:
    """Overwrite every page but the first (the schema) while the daemon has the file open.

    Everything goes into the main file first (checkpoint), then a commit from this connection
    changes the WAL index, so the daemon drops its cached pages and reads the garbage.
    """
    db = sqlite3.connect(db_path, isolation_level=None, timeout=10)
    try:
        db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
        page = db.execute("PRAGMA page_size").fetchone()[0]
        pages = os.path.getsize(db_path) // page
        with open(db_path, "r+b") as f:
            for n in range(1, pages):
                f.seek(n * page)
                f.write(b"\xa5" * page)
        db.execute("CREATE TABLE poke (x)")  # touches page 1 only: a WAL commit
    finally:
        db.close()


def chat(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", "/v1/chat/completions", json.dumps(
            {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 4}),
            {"Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        return resp.status
    finally:
        conn.close()


def test_corrupted_store_degrades_to_a_reported_problem(workdir: Path, make_daemon) -> None:
    port = free_port()
    write_profile(workdir, "good", emulator_profile("good", port=port))
    d = make_daemon()
    d.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
    run = d.run()
    assert run["status"] == "ready"

    corrupt_every_table(d.state / "history.sqlite3")
    # The server keeps logging (the pump writes phases and events), an operator adds an item
    # (a store write and an audit row): none of it may end supervision.
    assert chat(port) == 200
    res = d.ctl("checklist", "add", "look at the disk")
    assert res.returncode == 0, res.stdout + res.stderr
    st = d.status()
    assert st["run"]["id"] == run["id"] and st["run"]["status"] == "ready"
    store = st["daemon"]["store"]
    assert store["errors"] > 0 and "malformed" in store["last_error"], store
    assert any("history store" in p for p in st["daemon"]["problems"]), st["daemon"]["problems"]
    assert st["daemon"]["loop"]["stall_s"] == 5 and st["daemon"]["loop"]["stalls"] >= 0
    # and an operator reading `status` sees it, not only a script reading --json
    text = d.ctl("status", check=True).stdout
    assert "problem:  history store:" in text and "database error" in text, text
    assert d.proc.poll() is None

    res = d.ctl("stop", "--json", timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr
    assert json.loads(res.stdout)["status"] == "stopped"
    assert not d.run_processes()
    wait_until(lambda: d.run()["status"] == "stopped", 10, "the run to read stopped")
    # A failing read answers empty rather than an error.
    assert d.ctl_json("history")["runs"] == []
    assert d.proc.poll() is None


# -- a large history ----------------------------------------------------------------------------
def build_history(path: Path, runs: int, items: int) -> None:
    """An existing daemon's history: every run with six phases, every other one with a plan."""
    from supervisor.store import SCHEMA

    db = sqlite3.connect(path, isolation_level=None)
    db.execute("PRAGMA journal_mode=WAL")
    db.executescript(SCHEMA)
    db.execute("DROP INDEX IF EXISTS checklist_run")  # as written before the index existed
    db.execute("BEGIN")
    db.executemany(
        "INSERT INTO runs (id, token, profile, status, phase, started, ended, evidence)"
        " VALUES (?,?,?,?,?,?,?,?)",
        ((i, f"t{i}", "p", "stopped", "ready", 1e9 + i, 1e9 + i + 1, '["x"]')
         for i in range(1, runs + 1)))
    db.executemany("INSERT INTO phases (run_id, phase, started, ended) VALUES (?,?,?,?)",
                   ((i, ph, 1e9 + i, 1e9 + i) for i in range(1, runs + 1)
                    for ph in ("launch", "weight_loading", "warmup", "ready")))
    db.executemany("INSERT INTO checklist (run_id, title, status, created, updated)"
                   " VALUES (?,?,?,?,?)",
                   ((i, "item", "done", 1e9, 1e9) for i in range(2, runs + 1, 2)
                    for _ in range(items)))
    db.execute("COMMIT")
    db.close()


class Client:
    def __init__(self, path: Path) -> None:
        self.sock = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        self.sock.settimeout(120)
        self.sock.connect(os.fspath(path))
        self.file = self.sock.makefile("rb")
        json.loads(self.file.readline())  # hello

    def send(self, rid: int, cmd: str, **args: Any) -> None:
        self.sock.sendall(json.dumps({"id": rid, "cmd": cmd, "args": args}).encode() + b"\n")

    def reply(self) -> dict[str, Any]:
        return json.loads(self.file.readline())

    def close(self) -> None:
        self.file.close()
        self.sock.close()


def test_status_answers_while_a_large_history_read_is_in_flight(workdir: Path,
                                                                 make_daemon) -> None:
    build_history(workdir / "state" / "history.sqlite3", runs=20_000, items=8)
    d = make_daemon(fake_gpus=0)
    slow, fast = Client(d.sock), Client(d.sock)
    done: dict[str, float] = {}

    def read_history() -> None:
        res = slow.reply()
        done["history"] = time.monotonic()
        done["n"] = len(res["result"]["runs"])

    try:
        slow.send(1, "history", n=10_000)
        reader = threading.Thread(target=read_history)
        reader.start()
        fast.send(1, "status")
        fast.sock.settimeout(5)  # a loop blocked by the read would miss this
        assert fast.reply()["ok"] is True
        answered = time.monotonic()
        reader.join(120)
        assert done["n"] == 10_000
        assert answered < done["history"], "status was only answered after the history read"
    finally:
        slow.close()
        fast.close()
