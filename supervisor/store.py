"""History in SQLite (WAL): runs, phase timings, verdicts, checklists, benchmarks, events, audit.

All writes are small and synchronous; WAL with synchronous=NORMAL keeps them cheap and a
SIGKILLed daemon loses at most the last transaction, never the file.

History serves supervision, never the other way round: a write the database refuses (a
corrupted page, a full disk, a locked file) is counted and remembered in ``statistics()`` and
the caller carries on; a read that fails returns empty. Run ids come from the daemon's own
counter, so a run the database could not record still gets a usable, unique id.
"""

from __future__ import annotations

import functools
import json
import logging
import sqlite3
import threading
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any, TypeVar

log = logging.getLogger(__name__)

SCHEMA = """
CREATE TABLE IF NOT EXISTS runs (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    token TEXT NOT NULL UNIQUE,
    profile TEXT NOT NULL,
    changes TEXT NOT NULL DEFAULT '[]',
    hash TEXT,
    resolved TEXT,
    argv TEXT,
    env TEXT,
    request_id INTEGER,
    reason TEXT,
    status TEXT NOT NULL,
    phase TEXT NOT NULL,
    cause TEXT,
    evidence TEXT NOT NULL DEFAULT '[]',
    exit_code INTEGER,
    pid INTEGER,
    pgid INTEGER,
    log_path TEXT,
    started REAL NOT NULL,
    ended REAL,
    benchmark TEXT
);
CREATE TABLE IF NOT EXISTS phases (
    run_id INTEGER NOT NULL REFERENCES runs(id),
    phase TEXT NOT NULL,
    started REAL NOT NULL,
    ended REAL,
    PRIMARY KEY (run_id, phase)
);
CREATE TABLE IF NOT EXISTS events (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    run_id INTEGER,
    kind TEXT NOT NULL,
    data TEXT NOT NULL
);
CREATE TABLE IF NOT EXISTS checklist (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    run_id INTEGER,
    key TEXT,
    title TEXT NOT NULL,
    status TEXT NOT NULL,
    evidence TEXT NOT NULL DEFAULT '[]',
    auto INTEGER NOT NULL DEFAULT 0,
    created REAL NOT NULL,
    updated REAL NOT NULL
);
CREATE TABLE IF NOT EXISTS audit (
    id INTEGER PRIMARY KEY AUTOINCREMENT,
    ts REAL NOT NULL,
    uid INTEGER,
    gid INTEGER,
    pid INTEGER,
    cmd TEXT NOT NULL,
    args TEXT NOT NULL,
    ok INTEGER NOT NULL,
    result TEXT
);
CREATE TABLE IF NOT EXISTS meta (key TEXT PRIMARY KEY, value TEXT NOT NULL);
CREATE INDEX IF NOT EXISTS events_run ON events(run_id);
CREATE INDEX IF NOT EXISTS checklist_run ON checklist(run_id);
CREATE INDEX IF NOT EXISTS runs_status ON runs(status);
"""

RUN_COLUMNS = (
    "id", "token", "profile", "changes", "hash", "resolved", "argv", "env", "request_id",
    "reason", "status", "phase", "cause", "evidence", "exit_code", "pid", "pgid", "log_path",
    "started", "ended", "benchmark",
)
_JSON_COLUMNS = {"changes", "resolved", "argv", "env", "evidence", "benchmark"}


HISTORY_COLUMNS = ("id", "profile", "changes", "status", "phase", "cause", "started", "ended",
                   "exit_code", "hash", "request_id", "reason", "evidence", "benchmark")

_T = TypeVar("_T")


def _survives(default: Callable[[], Any], *, reader: bool = False) -> Callable[[_T], _T]:
    """A store method whose database error is reported (``statistics``), not raised.

    ``reader``: it reads on the reader connection, from any thread."""
    def wrap(fn: Any) -> Any:
        @functools.wraps(fn)
        def guarded(self: Store, *args: Any, **kw: Any) -> Any:
            try:
                with self._reader_lock if reader else self._db_lock:
                    return fn(self, *args, **kw)
            except sqlite3.Error as exc:
                self._failed(fn.__name__, exc)
                return default()
        return guarded
    return wrap  # type: ignore[return-value]


class Store:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.in_memory = False
        self.errors = 0
        self.last_error: str | None = None
        self.last_error_at: float | None = None
        self._errors_lock = threading.Lock()
        self._meta: dict[str, Any] = {}  # what set_meta wrote: get_meta's answer if reads fail
        self._reader: sqlite3.Connection | None = None
        # One lock per connection: the daemon's writes (event loop) and long reads (a worker
        # thread) each have theirs; uncontended, a lock costs a fraction of a microsecond.
        self._db_lock = threading.Lock()
        self._reader_lock = threading.Lock()
        try:
            self.db = self._connect(self.path)
            self.db.executescript(SCHEMA)
        except sqlite3.Error as exc:
            # A daemon that cannot keep history can still supervise: keep it in memory.
            self._failed("open", exc)
            self.in_memory = True
            self.db = self._connect(":memory:")
            self.db.executescript(SCHEMA)
            self._reader_lock = self._db_lock  # the reader is this same connection
        self._last_run_id = self._highest_run_id()

    @staticmethod
    def _connect(path: str | Path) -> sqlite3.Connection:
        db = sqlite3.connect(path, isolation_level=None, check_same_thread=False)
        db.execute("PRAGMA journal_mode=WAL")
        db.execute("PRAGMA synchronous=NORMAL")
        db.execute("PRAGMA busy_timeout=5000")
        return db

    def _highest_run_id(self) -> int:
        """Ids are never reused, even those of deleted rows (AUTOINCREMENT's sequence)."""
        try:
            top = self.db.execute("SELECT max(id) FROM runs").fetchone()[0] or 0
            seq = self.db.execute(
                "SELECT seq FROM sqlite_sequence WHERE name='runs'").fetchone()
        except sqlite3.Error as exc:
            self._failed("open", exc)
            return 0
        return max(int(top), int(seq[0]) if seq else 0)

    def close(self) -> None:
        for db in (self._reader, self.db):
            if db is not None:
                try:
                    db.close()
                except sqlite3.Error as exc:
                    self._failed("close", exc)

    # -- problems ---------------------------------------------------------------------
    def _failed(self, op: str, exc: BaseException) -> None:
        text = f"{op} failed on {self.path}: {exc}"
        with self._errors_lock:
            self.errors += 1
            self.last_error = text
            self.last_error_at = time.time()
            n = self.errors
        if n == 1 or n % 1000 == 0:  # a broken file fails every write: do not flood the log
            log.error("history store: %s (%d error(s) so far); supervision goes on", text, n)

    def statistics(self) -> dict[str, Any]:
        """For `status`: whether history is being kept, and the latest error if not."""
        with self._errors_lock:
            out: dict[str, Any] = {"path": str(self.path), "in_memory": self.in_memory,
                                   "errors": self.errors, "last_error": self.last_error,
                                   "last_error_at": self.last_error_at}
        out["problem"] = self.problem()
        return out

    def problem(self) -> str | None:
        """One line for an operator, or None while every database call has succeeded."""
        if not self.errors:
            return None
        where = " (history is kept in memory only)" if self.in_memory else ""
        return (f"history store: {self.errors} database error(s){where}, the latest: "
                f"{self.last_error}. Supervision goes on but history is incomplete; check the "
                f"disk, then stop the daemon and move {self.path.name} aside to start afresh")

    # -- runs -------------------------------------------------------------------------
    def create_run(self, **fields: Any) -> int:
        """The new run's id, recorded or not (a failed insert is reported, not raised)."""
        self._last_run_id += 1
        run_id = self._last_run_id
        self._insert_run(run_id, fields)
        return run_id

    @_survives(lambda: None)
    def _insert_run(self, run_id: int, fields: dict[str, Any]) -> None:
        cols = ["id", *(c for c in RUN_COLUMNS if c in fields and c != "id")]
        vals = [run_id, *(_enc(c, fields[c]) for c in cols[1:])]
        self.db.execute(
            f"INSERT INTO runs ({','.join(cols)}) VALUES ({','.join('?' * len(cols))})", vals)

    @_survives(lambda: None)
    def update_run(self, run_id: int, **fields: Any) -> None:
        cols = [c for c in fields if c in RUN_COLUMNS and c != "id"]
        if not cols:
            return
        sets = ",".join(f"{c}=?" for c in cols)
        self.db.execute(f"UPDATE runs SET {sets} WHERE id=?",
                        [_enc(c, fields[c]) for c in cols] + [run_id])

    @_survives(lambda: None)
    def get_run(self, run_id: int) -> dict[str, Any] | None:
        row = self.db.execute(
            f"SELECT {','.join(RUN_COLUMNS)} FROM runs WHERE id=?", (run_id,)
        ).fetchone()
        return _run_row(row) if row else None

    @_survives(list)
    def list_runs(self, n: int = 20, since: float | None = None) -> list[dict[str, Any]]:
        """Newest ``n`` runs (optionally started at or after ``since``), oldest first."""
        where, params = ("WHERE started >= ?", [since]) if since is not None else ("", [])
        rows = self.db.execute(
            f"SELECT {','.join(RUN_COLUMNS)} FROM runs {where} ORDER BY id DESC LIMIT ?",
            [*params, n],
        ).fetchall()
        return [_run_row(r) for r in reversed(rows)]

    @_survives(list)
    def active_runs(self, statuses: tuple[str, ...]) -> list[dict[str, Any]]:
        marks = ",".join("?" * len(statuses))
        rows = self.db.execute(
            f"SELECT {','.join(RUN_COLUMNS)} FROM runs WHERE status IN ({marks}) ORDER BY id",
            statuses,
        ).fetchall()
        return [_run_row(r) for r in rows]

    # -- long reads (any thread) ------------------------------------------------------
    @_survives(list, reader=True)
    def history(self, n: int, before: int | None = None) -> list[dict[str, Any]]:
        """The newest ``n`` runs (with ids below ``before``: the next page), oldest first, each
        with its phases and checklist.

        Safe to call from a worker thread: it reads on its own connection (WAL readers never
        block the daemon's writes), three queries whatever ``n``.
        """
        db = self._reader_db()
        rows = db.execute(f"SELECT {','.join(HISTORY_COLUMNS)} FROM runs WHERE id < ?"
                          " ORDER BY id DESC LIMIT ?",
                          (before if before is not None else 2**62, n)).fetchall()
        if not rows:
            return []
        # The newest n ids: every id between the lowest and the highest is one of them.
        lo, hi = rows[-1][0], rows[0][0]
        phases = db.execute("SELECT run_id, phase, started, ended FROM phases"
                            " WHERE run_id BETWEEN ? AND ? ORDER BY run_id, started",
                            (lo, hi)).fetchall()
        items = db.execute("SELECT id, run_id, key, title, status, evidence, auto"
                           " FROM checklist WHERE run_id BETWEEN ? AND ? ORDER BY id",
                           (lo, hi)).fetchall()
        return _join_history(rows, phases, items)

    def _reader_db(self) -> sqlite3.Connection:
        if self.in_memory:
            return self.db  # one in-memory database: no second connection can see it
        if self._reader is None:
            self._reader = self._connect(self.path)
        return self._reader

    # -- phases -----------------------------------------------------------------------
    @_survives(lambda: None)
    def phase_started(self, run_id: int, phase: str, ts: float) -> None:
        self.db.execute("UPDATE phases SET ended=? WHERE run_id=? AND ended IS NULL", (ts, run_id))
        self.db.execute("INSERT OR REPLACE INTO phases (run_id, phase, started) VALUES (?,?,?)",
                        (run_id, phase, ts))

    @_survives(lambda: None)
    def phases_closed(self, run_id: int, ts: float) -> None:
        self.db.execute("UPDATE phases SET ended=? WHERE run_id=? AND ended IS NULL", (ts, run_id))

    @_survives(list)
    def phases(self, run_id: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT phase, started, ended FROM phases WHERE run_id=? ORDER BY started", (run_id,)
        ).fetchall()
        return [_phase_row(p, s, e) for p, s, e in rows]

    # -- events and audit -------------------------------------------------------------
    @_survives(lambda: None)
    def add_event(self, kind: str, data: Any, run_id: int | None = None,
                  ts: float | None = None) -> None:
        self.db.execute("INSERT INTO events (ts, run_id, kind, data) VALUES (?,?,?,?)",
                        (ts or time.time(), run_id, kind, json.dumps(data, default=str)))

    @_survives(list, reader=True)
    def events(self, n: int = 100, run_id: int | None = None) -> list[dict[str, Any]]:
        """The newest ``n`` events, oldest first; safe from a worker thread."""
        where, params = ("WHERE run_id=?", [run_id]) if run_id is not None else ("", [])
        rows = self._reader_db().execute(
            f"SELECT ts, run_id, kind, data FROM events {where} ORDER BY id DESC LIMIT ?",
            [*params, n]).fetchall()
        return [{"ts": t, "run_id": r, "kind": k, "data": json.loads(d)}
                for t, r, k, d in reversed(rows)]

    @_survives(lambda: None)
    def audit(self, *, uid: int | None, gid: int | None, pid: int | None, cmd: str,
              args: dict[str, Any], ok: bool, result: str) -> None:
        self.db.execute(
            "INSERT INTO audit (ts, uid, gid, pid, cmd, args, ok, result) VALUES (?,?,?,?,?,?,?,?)",
            (time.time(), uid, gid, pid, cmd, json.dumps(args, default=str)[:4000], int(ok),
             result[:4000]))

    @_survives(list)
    def audit_rows(self, n: int = 50) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT ts, uid, gid, pid, cmd, args, ok, result FROM audit ORDER BY id DESC LIMIT ?",
            (n,)).fetchall()
        keys = ("ts", "uid", "gid", "pid", "cmd", "args", "ok", "result")
        return [dict(zip(keys, r)) for r in reversed(rows)]

    # -- checklist --------------------------------------------------------------------
    @_survives(lambda: 0)
    def add_item(self, *, run_id: int | None, key: str | None, title: str, status: str,
                 evidence: list[str], auto: bool) -> int:
        now = time.time()
        cur = self.db.execute(
            "INSERT INTO checklist (run_id, key, title, status, evidence, auto, created, updated)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (run_id, key, title, status, json.dumps(evidence), int(auto), now, now))
        return int(cur.lastrowid or 0)

    @_survives(lambda: None)
    def update_item(self, item_id: int, *, status: str | None = None,
                    evidence: list[str] | None = None) -> None:
        if status is not None:
            self.db.execute("UPDATE checklist SET status=?, updated=? WHERE id=?",
                            (status, time.time(), item_id))
        if evidence is not None:
            self.db.execute("UPDATE checklist SET evidence=?, updated=? WHERE id=?",
                            (json.dumps(evidence), time.time(), item_id))

    @_survives(list)
    def items(self, run_id: int | None = None,
              ids: list[int] | None = None) -> list[dict[str, Any]]:
        if ids is not None:
            if not ids:
                return []
            where, params = f"WHERE id IN ({','.join('?' * len(ids))})", list(ids)
        elif run_id is not None:
            where, params = "WHERE run_id=?", [run_id]
        else:
            where, params = "", []
        rows = self.db.execute(
            f"SELECT id, run_id, key, title, status, evidence, auto FROM checklist {where}"
            " ORDER BY id", params).fetchall()
        return [_item_row(row) for row in rows]

    # -- meta -------------------------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        self._meta[key] = value
        self._write_meta(key, value)

    @_survives(lambda: None)
    def _write_meta(self, key: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                        (key, json.dumps(value, default=str)))

    def get_meta(self, key: str, default: Any = None) -> Any:
        try:
            with self._db_lock:
                row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        except sqlite3.Error as exc:
            self._failed("get_meta", exc)
            return self._meta.get(key, default)
        return json.loads(row[0]) if row else self._meta.get(key, default)


def _phase_row(phase: str, started: float, ended: float | None) -> dict[str, Any]:
    return {"phase": phase, "started": started, "ended": ended,
            "duration": (ended - started) if ended is not None else None}


def _item_row(row: tuple[Any, ...]) -> dict[str, Any]:
    i, r, k, t, s, e, a = row
    return {"id": i, "run_id": r, "key": k, "title": t, "status": s,
            "evidence": json.loads(e), "auto": bool(a)}


def _join_history(rows: list[tuple[Any, ...]], phases: list[tuple[Any, ...]],
                  items: list[tuple[Any, ...]]) -> list[dict[str, Any]]:
    runs: dict[int, dict[str, Any]] = {}
    for row in reversed(rows):
        run = dict(zip(HISTORY_COLUMNS, row))
        for col in _JSON_COLUMNS.intersection(HISTORY_COLUMNS):
            if run[col] is not None:
                run[col] = json.loads(run[col])
        runs[run["id"]] = run | {"phases": [], "checklist": []}
    for run_id, phase, started, ended in phases:
        if run_id in runs:
            runs[run_id]["phases"].append(_phase_row(phase, started, ended))
    for item in items:
        if item[1] in runs:
            runs[item[1]]["checklist"].append(_item_row(item))
    return list(runs.values())


def _enc(col: str, value: Any) -> Any:
    if col in _JSON_COLUMNS and value is not None:
        return json.dumps(value, default=str)
    return value


def _run_row(row: tuple[Any, ...]) -> dict[str, Any]:
    out = dict(zip(RUN_COLUMNS, row))
    for col in _JSON_COLUMNS:
        if out[col] is not None:
            out[col] = json.loads(out[col])
    return out
