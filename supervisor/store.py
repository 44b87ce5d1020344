"""History in SQLite (WAL): runs, phase timings, verdicts, checklists, benchmarks, events, audit.

All writes are small and synchronous; WAL with synchronous=NORMAL keeps them cheap and a
SIGKILLed daemon loses at most the last transaction, never the file.
"""

from __future__ import annotations

import json
import sqlite3
import time
from pathlib import Path
from typing import Any

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
"""

RUN_COLUMNS = (
    "id", "token", "profile", "changes", "hash", "resolved", "argv", "env", "request_id",
    "reason", "status", "phase", "cause", "evidence", "exit_code", "pid", "pgid", "log_path",
    "started", "ended", "benchmark",
)
_JSON_COLUMNS = {"changes", "resolved", "argv", "env", "evidence", "benchmark"}


class Store:
    def __init__(self, path: str | Path) -> None:
        self.path = Path(path)
        self.db = sqlite3.connect(self.path, isolation_level=None, check_same_thread=False)
        self.db.execute("PRAGMA journal_mode=WAL")
        self.db.execute("PRAGMA synchronous=NORMAL")
        self.db.execute("PRAGMA busy_timeout=5000")
        self.db.executescript(SCHEMA)

    def close(self) -> None:
        self.db.close()

    # -- runs -------------------------------------------------------------------------
    def create_run(self, **fields: Any) -> int:
        cols = [c for c in RUN_COLUMNS if c in fields]
        vals = [_enc(c, fields[c]) for c in cols]
        cur = self.db.execute(
            f"INSERT INTO runs ({','.join(cols)}) VALUES ({','.join('?' * len(cols))})", vals
        )
        return int(cur.lastrowid or 0)

    def update_run(self, run_id: int, **fields: Any) -> None:
        cols = [c for c in fields if c in RUN_COLUMNS and c != "id"]
        if not cols:
            return
        sets = ",".join(f"{c}=?" for c in cols)
        self.db.execute(f"UPDATE runs SET {sets} WHERE id=?",
                        [_enc(c, fields[c]) for c in cols] + [run_id])

    def get_run(self, run_id: int) -> dict[str, Any] | None:
        row = self.db.execute(
            f"SELECT {','.join(RUN_COLUMNS)} FROM runs WHERE id=?", (run_id,)
        ).fetchone()
        return _run_row(row) if row else None

    def list_runs(self, n: int = 20, since: float | None = None) -> list[dict[str, Any]]:
        """Newest ``n`` runs (optionally started at or after ``since``), oldest first."""
        where, params = ("WHERE started >= ?", [since]) if since is not None else ("", [])
        rows = self.db.execute(
            f"SELECT {','.join(RUN_COLUMNS)} FROM runs {where} ORDER BY id DESC LIMIT ?",
            [*params, n],
        ).fetchall()
        return [_run_row(r) for r in reversed(rows)]

    def active_runs(self, statuses: tuple[str, ...]) -> list[dict[str, Any]]:
        marks = ",".join("?" * len(statuses))
        rows = self.db.execute(
            f"SELECT {','.join(RUN_COLUMNS)} FROM runs WHERE status IN ({marks}) ORDER BY id",
            statuses,
        ).fetchall()
        return [_run_row(r) for r in rows]

    # -- phases -----------------------------------------------------------------------
    def phase_started(self, run_id: int, phase: str, ts: float) -> None:
        self.db.execute("UPDATE phases SET ended=? WHERE run_id=? AND ended IS NULL", (ts, run_id))
        self.db.execute("INSERT OR REPLACE INTO phases (run_id, phase, started) VALUES (?,?,?)",
                        (run_id, phase, ts))

    def phases_closed(self, run_id: int, ts: float) -> None:
        self.db.execute("UPDATE phases SET ended=? WHERE run_id=? AND ended IS NULL", (ts, run_id))

    def phases(self, run_id: int) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT phase, started, ended FROM phases WHERE run_id=? ORDER BY started", (run_id,)
        ).fetchall()
        return [{"phase": p, "started": s, "ended": e,
                 "duration": (e - s) if e is not None else None} for p, s, e in rows]

    # -- events and audit -------------------------------------------------------------
    def add_event(self, kind: str, data: Any, run_id: int | None = None,
                  ts: float | None = None) -> None:
        self.db.execute("INSERT INTO events (ts, run_id, kind, data) VALUES (?,?,?,?)",
                        (ts or time.time(), run_id, kind, json.dumps(data, default=str)))

    def events(self, n: int = 100, run_id: int | None = None) -> list[dict[str, Any]]:
        where, params = ("WHERE run_id=?", [run_id]) if run_id is not None else ("", [])
        rows = self.db.execute(
            f"SELECT ts, run_id, kind, data FROM events {where} ORDER BY id DESC LIMIT ?",
            [*params, n]).fetchall()
        return [{"ts": t, "run_id": r, "kind": k, "data": json.loads(d)}
                for t, r, k, d in reversed(rows)]

    def audit(self, *, uid: int | None, gid: int | None, pid: int | None, cmd: str,
              args: dict[str, Any], ok: bool, result: str) -> None:
        self.db.execute(
            "INSERT INTO audit (ts, uid, gid, pid, cmd, args, ok, result) VALUES (?,?,?,?,?,?,?,?)",
            (time.time(), uid, gid, pid, cmd, json.dumps(args, default=str)[:4000], int(ok),
             result[:4000]))

    def audit_rows(self, n: int = 50) -> list[dict[str, Any]]:
        rows = self.db.execute(
            "SELECT ts, uid, gid, pid, cmd, args, ok, result FROM audit ORDER BY id DESC LIMIT ?",
            (n,)).fetchall()
        keys = ("ts", "uid", "gid", "pid", "cmd", "args", "ok", "result")
        return [dict(zip(keys, r)) for r in reversed(rows)]

    # -- checklist --------------------------------------------------------------------
    def add_item(self, *, run_id: int | None, key: str | None, title: str, status: str,
                 evidence: list[str], auto: bool) -> int:
        now = time.time()
        cur = self.db.execute(
            "INSERT INTO checklist (run_id, key, title, status, evidence, auto, created, updated)"
            " VALUES (?,?,?,?,?,?,?,?)",
            (run_id, key, title, status, json.dumps(evidence), int(auto), now, now))
        return int(cur.lastrowid or 0)

    def update_item(self, item_id: int, *, status: str | None = None,
                    evidence: list[str] | None = None) -> None:
        if status is not None:
            self.db.execute("UPDATE checklist SET status=?, updated=? WHERE id=?",
                            (status, time.time(), item_id))
        if evidence is not None:
            self.db.execute("UPDATE checklist SET evidence=?, updated=? WHERE id=?",
                            (json.dumps(evidence), time.time(), item_id))

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
        return [{"id": i, "run_id": r, "key": k, "title": t, "status": s,
                 "evidence": json.loads(e), "auto": bool(a)} for i, r, k, t, s, e, a in rows]

    # -- meta -------------------------------------------------------------------------
    def set_meta(self, key: str, value: Any) -> None:
        self.db.execute("INSERT OR REPLACE INTO meta (key, value) VALUES (?, ?)",
                        (key, json.dumps(value, default=str)))

    def get_meta(self, key: str, default: Any = None) -> Any:
        row = self.db.execute("SELECT value FROM meta WHERE key=?", (key,)).fetchone()
        return json.loads(row[0]) if row else default


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
