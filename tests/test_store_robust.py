"""The history store on real SQLite files: corrupted, unopenable, old, large, and read from a thread."""

from __future__ import annotations

import os
import sqlite3
import threading
from pathlib import Path

import pytest

from supervisor.store import Store


def corrupt(path: Path) -> None:
    """Every page but the schema's overwritten behind the open store's back (see the e2e test)."""
    db = sqlite3.connect(path, isolation_level=None, timeout=10)
    db.execute("PRAGMA wal_checkpoint(TRUNCATE)")
    page = db.execute("PRAGMA page_size").fetchone()[0]
    with open(path, "r+b") as f:
        for n in range(1, os.path.getsize(path) // page):
            f.seek(n * page)
            f.write(b"\xa5" * page)
    db.execute("CREATE TABLE poke (x)")
    db.close()


def new_run(store: Store, **kw: object) -> int:
    return store.create_run(token=os.urandom(8).hex(), profile="p", status="starting",
                            phase="launch", started=1.0, **kw)


@pytest.fixture
def store(tmp_path: Path):
    s = Store(tmp_path / "history.sqlite3")
    yield s
    s.close()


def test_writes_on_a_corrupted_file_are_counted_not_raised(store: Store) -> None:
    run_id = new_run(store)
    for i in range(200):
        store.add_event("log", {"i": i}, run_id)
    store.set_meta("last_profile", "p")
    assert store.statistics()["errors"] == 0 and store.problem() is None
    corrupt(store.path)

    store.add_event("status", {"status": "ready"}, run_id)
    store.update_run(run_id, status="ready")
    store.phase_started(run_id, "ready", 2.0)
    store.phases_closed(run_id, 3.0)
    store.audit(uid=0, gid=0, pid=1, cmd="stop", args={}, ok=True, result="ok")
    store.update_item(store.add_item(run_id=run_id, key=None, title="t", status="pending",
                                     evidence=[], auto=False), status="done")
    store.set_meta("last_profile", "q")
    stats = store.statistics()
    assert stats["errors"] >= 7
    assert "malformed" in stats["last_error"] and str(store.path) in stats["last_error"]
    assert "history store" in stats["problem"] and "move history.sqlite3 aside" in stats["problem"]
    # Reads answer empty (or what this daemon wrote) rather than raise.
    assert store.events(10) == [] and store.history(10) == [] and store.list_runs() == []
    assert store.get_run(run_id) is None and store.phases(run_id) == []
    assert store.get_meta("last_profile") == "q"


def test_run_ids_stay_unique_when_inserts_fail(store: Store) -> None:
    first = new_run(store)
    corrupt(store.path)
    failed = [new_run(store) for _ in range(3)]
    assert failed == [first + 1, first + 2, first + 3]
    assert store.statistics()["errors"] >= 3


def test_ids_continue_after_reopening(tmp_path: Path) -> None:
    s = Store(tmp_path / "h.sqlite3")
    ids = [new_run(s) for _ in range(3)]
    s.db.execute("DELETE FROM runs WHERE id=?", (ids[-1],))
    s.close()
    s = Store(tmp_path / "h.sqlite3")
    assert new_run(s) == ids[-1] + 1  # never an id an earlier run had
    s.close()


def test_an_unopenable_file_keeps_history_in_memory(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    path.write_bytes(b"this is not a database" * 500)
    s = Store(path)
    try:
        assert s.in_memory and s.statistics()["errors"] == 1
        assert "in memory only" in s.problem()
        run_id = new_run(s)
        s.phase_started(run_id, "launch", 1.0)
        assert [r["id"] for r in s.history(5)] == [run_id]
        assert s.history(5)[0]["phases"][0]["phase"] == "launch"
    finally:
        s.close()
    assert path.read_bytes().startswith(b"this is not a database")  # left for the operator


def test_an_old_history_gets_its_indexes_on_open(tmp_path: Path) -> None:
    path = tmp_path / "history.sqlite3"
    Store(path).close()
    db = sqlite3.connect(path)
    db.execute("DROP INDEX checklist_run")
    db.commit()
    db.close()
    s = Store(path)
    try:
        plan = s.db.execute("EXPLAIN QUERY PLAN SELECT * FROM checklist WHERE run_id BETWEEN 1 AND 9"
                            ).fetchall()
        assert any("checklist_run" in str(row) for row in plan), plan
    finally:
        s.close()


def test_history_in_three_queries_matches_the_per_run_reads(store: Store) -> None:
    ids = []
    for i in range(12):
        run_id = new_run(store, changes=[f"c{i}"] if i % 2 else [], evidence=["e"])
        store.phase_started(run_id, "launch", 1.0 + i)
        store.phase_started(run_id, "ready", 2.0 + i)
        if i % 3 == 0:
            store.add_item(run_id=run_id, key="k", title=f"item {i}", status="done",
                           evidence=["x"], auto=True)
        ids.append(run_id)
    store.add_item(run_id=None, key=None, title="operator note", status="pending", evidence=[],
                   auto=False)
    got = store.history(5)
    assert [r["id"] for r in got] == ids[-5:]
    for run in got:
        row = store.get_run(run["id"])
        assert {k: run[k] for k in ("profile", "changes", "status", "evidence")} == {
            k: row[k] for k in ("profile", "changes", "status", "evidence")}
        assert run["phases"] == store.phases(run["id"])
        assert run["checklist"] == store.items(run_id=run["id"])
    assert store.history(100)[0]["id"] == ids[0]


@pytest.mark.parametrize("kind", ["file", "memory"])
def test_history_reads_from_a_thread_while_the_loop_writes(tmp_path: Path, kind: str) -> None:
    path = tmp_path / "history.sqlite3"
    if kind == "memory":
        path.write_bytes(b"not a database" * 500)
    store = Store(path)
    assert store.in_memory is (kind == "memory")
    errors_before = store.statistics()["errors"]
    for _ in range(50):
        new_run(store)
    errors: list[BaseException] = []

    def read() -> None:
        try:
            for _ in range(50):
                assert len(store.history(50)) == 50
                store.events(20)
        except BaseException as exc:  # noqa: BLE001 - reported below
            errors.append(exc)

    reader = threading.Thread(target=read)
    reader.start()
    for i in range(300):
        store.add_event("log", {"i": i}, 1)
    reader.join(30)
    assert not errors and store.statistics()["errors"] == errors_before
    store.close()


def test_history_pages_back_in_time(tmp_path) -> None:
    from supervisor.store import Store

    store = Store(tmp_path / "h.sqlite3")
    ids = [store.create_run(token=f"t{i}", profile="p", changes=[], hash="h", resolved={},
                            argv=["x"], env={}, request_id=1, reason="r", status="stopped",
                            phase="launch", started=float(i)) for i in range(7)]
    first = store.history(3)
    assert [r["id"] for r in first] == ids[-3:]
    second = store.history(3, before=first[0]["id"])
    assert [r["id"] for r in second] == ids[-6:-3]
    assert [r["id"] for r in store.history(3, before=second[0]["id"])] == ids[:1]
