"""Soak: try for N minutes to make the daemon lose control of a run. Not a timed test.

    .venv/bin/python bench/soak.py [--minutes 10] [--json FILE]

One real daemon (its own state dir and socket in /tmp), loopback only. Load, all at once:
- hang-up storms: connect, send `switch`, hang up within 0-5 ms;
- 10 clients sending `switch` / `stop` / `switch --wait` at random, each waiting for its reply;
- profiles that crash, hang, leak SIGTERM-ignoring grandchildren, or ignore SIGTERM themselves
  and leave a grandchild that sheds its process group, run token and parent (that one also
  maps a queue in /dev/shm, which its SIGKILL leaves behind).

A sampler reads /proc every 10 ms and the daemon's history (read-only SQLite) every 100 ms.
It fails on:
- two run trees alive at once;
- a run `stopping` longer than stop_grace + 2 s, or `starting` with no process that long;
- a process of a run alive stop_grace + 2 s after the run reached a final status;
- daemon growth beyond the stated bounds (RSS, open fds, threads) between the first and last
  minute; a daemon that does not exit with nothing left on SIGTERM at the end; and a
  killed run's /dev/shm queue still there at the end (the daemon removes what runs leave).
Exit 0 when nothing was violated, 1 otherwise; the figures go to stdout (and --json).
"""

from __future__ import annotations

import argparse
import json
import os
import random
import signal
import socket
import sqlite3
import sys
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from tests.e2e.harness import (  # noqa: E402
    RUN_VAR,
    Daemon,
    cleanup,
    emulator_profile,
    free_port,
    short_tmpdir,
)

STOP_GRACE = 2.0
SLACK = 2.0                      # the bound: stop_grace + 2 s
BOUNDS = {"rss_mb": 30.0, "fds": 16, "threads": 12}   # growth, first minute -> last
SHED_MARK = "gns-soak-shed:"     # the shedding grandchild carries its run token in argv

SHM_MARK = "gns-soak-"           # the stubborn run's queue in /dev/shm: /dev/shm/gns-soak-TOKEN

STUBBORN = """\
import mmap, os, signal, sys, time
signal.signal(signal.SIGTERM, signal.SIG_IGN)
token = os.environ["GPU_NODE_SUPERVISOR_RUN"]
fd = os.open("/dev/shm/{shm}" + token, os.O_RDWR | os.O_CREAT, 0o600)
os.ftruncate(fd, 4096)
queue = mmap.mmap(fd, 4096, mmap.MAP_SHARED)  # SIGKILLed at the end of its grace: never unlinked
if os.fork() == 0:
    if os.fork() == 0:
        os.setsid()
        code = "import signal, time\\nsignal.signal(15, signal.SIG_IGN)\\ntime.sleep(1000)\\n"
        os.execve(sys.executable, [sys.executable, "-c", code, "{mark}" + token], {{}})
    os._exit(0)
print("up", flush=True)
time.sleep(1000)
"""


def write_profiles(folder: Path, scripts: Path) -> list[str]:
    timeouts = f"stop_grace = {STOP_GRACE:g}"
    profiles = {
        "ok": emulator_profile("ok", port=free_port(), scale=0.02, timeouts=""),
        "crash": emulator_profile("crash", port=free_port(), scale=0.02,
                                  fault="crash:kv_cache_alloc:cuda_oom"),
        "hang": emulator_profile("hang", port=free_port(), scale=0.02,
                                 fault="hang:cuda_graph_capture", silence=2),
        "leak": emulator_profile("leak", port=free_port(), scale=0.02, fault="leak"),
    }
    stubborn = scripts / "stubborn.py"
    stubborn.write_text(STUBBORN.format(mark=SHED_MARK, shm=SHM_MARK))
    profiles["stubborn"] = textwrap.dedent(f"""\
        engine = "command"
        [launch]
        command = ["{sys.executable}", "{stubborn}"]
        port = {free_port()}
        [timeouts]
        {timeouts}
        """)
    for name, text in profiles.items():
        (folder / f"{name}.toml").write_text(text.replace("stop_grace = 2", timeouts))
    return list(profiles)


class Sampler:
    """/proc every 10 ms: which run tokens have live processes."""

    def __init__(self, marker: str) -> None:
        self.marker = f"GNS_TEST_DAEMON={marker}".encode()
        self.cache: dict[tuple[int, bytes], str | None] = {}
        self.samples = 0
        self.max_ms = 0.0
        self.total_ms = 0.0

    def tokens(self) -> dict[str, set[int]]:
        t0 = time.perf_counter()
        live: dict[str, set[int]] = {}
        seen: dict[tuple[int, bytes], str | None] = {}
        for name in os.listdir("/proc"):
            if not name.isdigit():
                continue
            pid = int(name)
            try:
                with open(f"/proc/{pid}/stat", "rb") as f:
                    stat = f.read()
            except OSError:
                continue
            rest = stat[stat.rfind(b")") + 2:].split()
            if rest[0] == b"Z":
                continue
            key = (pid, rest[19])  # pid + start time: a reused pid is another process
            token = self.cache[key] if key in self.cache else self._token(pid)
            seen[key] = token
            if token:
                live.setdefault(token, set()).add(pid)
        self.cache = seen
        ms = (time.perf_counter() - t0) * 1000
        self.samples += 1
        self.total_ms += ms
        self.max_ms = max(self.max_ms, ms)
        return live

    def _token(self, pid: int) -> str | None:
        try:
            with open(f"/proc/{pid}/cmdline", "rb") as f:
                argv = f.read().split(b"\0")
            for arg in argv:
                if arg.startswith(SHED_MARK.encode()):
                    return arg[len(SHED_MARK):].decode()
            with open(f"/proc/{pid}/environ", "rb") as f:
                env = f.read().split(b"\0")
        except OSError:
            return None
        if self.marker not in env:
            return None
        for item in env:
            if item.startswith(f"{RUN_VAR}=".encode()):
                return item.split(b"=", 1)[1].decode()
        return None


class Soak:
    def __init__(self, d: Daemon, names: list[str], seconds: float) -> None:
        self.d = d
        self.names = names
        self.deadline = time.monotonic() + seconds
        self.violations: dict[str, list[str]] = {}
        self.counts: dict[str, int] = {}
        self.lock = threading.Lock()
        self.final_since: dict[str, float] = {}    # token -> when its run was first final
        self.state_since: dict[int, tuple[str, float]] = {}
        self.runs: dict[str, dict[str, Any]] = {}   # token -> row
        self.usage: list[tuple[float, float, int, int]] = []

    # -- bookkeeping ---------------------------------------------------------------------
    def count(self, what: str) -> None:
        with self.lock:
            self.counts[what] = self.counts.get(what, 0) + 1

    def violate(self, kind: str, text: str) -> None:
        with self.lock:
            lst = self.violations.setdefault(kind, [])
            if len(lst) < 20:
                lst.append(text)
            self.counts[f"violation:{kind}"] = self.counts.get(f"violation:{kind}", 0) + 1

    def running(self) -> bool:
        return time.monotonic() < self.deadline

    # -- load ----------------------------------------------------------------------------
    def hang_ups(self) -> None:
        while self.running():
            try:
                with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
                    s.settimeout(5)
                    s.connect(os.fspath(self.d.sock))
                    s.recv(4096)
                    msg = {"id": 1, "cmd": "switch", "args": {"profile": random.choice(
                        self.names)}}
                    s.sendall(json.dumps(msg).encode() + b"\n")
                    time.sleep(random.uniform(0, 0.005))
                self.count("hang-up switches")
            except OSError as exc:
                self.violate("client error", f"hang-up client: {exc}")
            time.sleep(random.uniform(0.2, 1.5))

    def client(self, n: int) -> None:
        from bench.common import RawClient

        rng = random.Random(n)
        while self.running():
            try:
                c = RawClient(self.d.sock)
                c.sock.settimeout(120)
                for _ in range(rng.randint(1, 5)):
                    if not self.running():
                        break
                    self._one_request(c, rng)
                    time.sleep(rng.uniform(0.1, 2.0))
                c.close()
            except (OSError, ConnectionError) as exc:
                self.violate("client error", f"client {n}: {exc}")
                time.sleep(1)

    def _one_request(self, c: Any, rng: random.Random) -> None:
        roll = rng.random()
        try:
            if roll < 0.55:
                c.request("switch", profile=rng.choice(self.names))
                self.count("switches")
            elif roll < 0.85:
                c.request("stop")
                self.count("stops")
            else:
                c.request("switch", profile=rng.choice(self.names), wait=True, timeout=30)
                self.count("switch --wait")
        except RuntimeError as exc:  # an error reply: fine if it says why (timeout, conflict)
            text = str(exc)
            if "timeout" in text or "conflict" in text or "cancelled" in text:
                self.count("answered with an error")
            else:
                self.violate("unexpected error reply", text[:300])

    # -- checks --------------------------------------------------------------------------
    def watch_proc(self, sampler: Sampler) -> None:
        while self.running():
            live = sampler.tokens()
            if len(live) > 1:
                self.violate("two run trees alive at once",
                             ", ".join(f"{t[:6]}: {sorted(p)}" for t, p in live.items()))
            now = time.monotonic()
            for token, pids in live.items():
                since = self.final_since.get(token)
                if since is not None and now - since > STOP_GRACE + SLACK:
                    row = self.runs.get(token, {})
                    self.violate("process of a stopped run alive",
                                 f"run {row.get('id')} ({row.get('status')}) pids {sorted(pids)}"
                                 f" {now - since:.1f} s after its final status")
            time.sleep(0.01)

    def watch_history(self) -> None:
        db = sqlite3.connect(f"file:{self.d.state}/history.sqlite3?mode=ro", uri=True, timeout=5)
        db.row_factory = sqlite3.Row
        while self.running():
            try:
                rows = db.execute("SELECT id, token, status, pid FROM runs ORDER BY id DESC "
                                  "LIMIT 20").fetchall()
            except sqlite3.Error:
                time.sleep(0.1)
                continue
            now = time.monotonic()
            for row in rows:
                self._check_row(dict(row), now)
            time.sleep(0.1)

    def _check_row(self, row: dict[str, Any], now: float) -> None:
        self.runs[row["token"]] = row
        status = row["status"]
        if status in ("stopped", "crashed", "hung", "timeout", "unhealthy"):
            self.final_since.setdefault(row["token"], now)
            return
        key = (status, row["pid"] is None)
        prev = self.state_since.get(row["id"])
        if prev is None or prev[0] != str(key):
            self.state_since[row["id"]] = (str(key), now)
            return
        stuck = now - prev[1]
        if stuck > STOP_GRACE + SLACK and (status == "stopping" or row["pid"] is None):
            self.violate("run stuck", f"run {row['id']} {status} (pid {row['pid']}) for "
                                      f"{stuck:.1f} s")
            self.state_since[row["id"]] = (str(key), now)  # report again only if it lasts

    def watch_usage(self) -> None:
        pid = self.d.proc.pid
        while self.running():
            try:
                with open(f"/proc/{pid}/status") as f:
                    st = dict(line.split(":", 1) for line in f if ":" in line)
                rss = int(st["VmRSS"].split()[0]) / 1024
                threads = int(st["Threads"])
                fds = len(os.listdir(f"/proc/{pid}/fd"))
                self.usage.append((time.monotonic(), rss, fds, threads))
            except (OSError, KeyError, ValueError):
                self.violate("daemon gone", f"daemon pid {pid} vanished mid-soak")
                return
            time.sleep(1)

    def growth(self, minute: float) -> dict[str, Any]:
        if not self.usage:
            return {}
        t0 = self.usage[0][0]
        t1 = self.usage[-1][0]
        first = [u for u in self.usage if u[0] - t0 <= minute] or self.usage[:1]
        last = [u for u in self.usage if t1 - u[0] <= minute] or self.usage[-1:]
        out: dict[str, Any] = {}
        for i, key in ((1, "rss_mb"), (2, "fds"), (3, "threads")):
            a = max(u[i] for u in first)
            b = max(u[i] for u in last)
            out[key] = {"first": round(a, 1), "last": round(b, 1),
                        "max": round(max(u[i] for u in self.usage), 1),
                        "growth": round(b - a, 1), "bound": BOUNDS[key]}
            if b - a > BOUNDS[key]:
                self.violate("daemon growth", f"{key} grew {a:.1f} -> {b:.1f}")
        return out


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--minutes", type=float, default=10.0)
    ap.add_argument("--json", type=Path)
    args = ap.parse_args()
    tmp = short_tmpdir()
    (tmp / "profiles").mkdir()
    (tmp / "state").mkdir()
    names = write_profiles(tmp / "profiles", tmp)
    d = Daemon(tmp / "profiles", tmp / "state", tmp / "s.sock").start()
    soak = Soak(d, names, args.minutes * 60)
    sampler = Sampler(d.marker)
    workers = [threading.Thread(target=soak.watch_proc, args=(sampler,)),
               threading.Thread(target=soak.watch_history),
               threading.Thread(target=soak.watch_usage),
               threading.Thread(target=soak.hang_ups)]
    workers += [threading.Thread(target=soak.client, args=(n,)) for n in range(10)]
    t0 = time.monotonic()
    for w in workers:
        w.daemon = True
        w.start()
    for w in workers:
        w.join(timeout=args.minutes * 60 + 180)
    growth = soak.growth(min(60.0, args.minutes * 60 / 4))
    code = end_daemon(d, soak, sampler)
    report = {"minutes": round((time.monotonic() - t0) / 60, 2), "counts": soak.counts,
              "violations": soak.violations, "growth": growth,
              "runs": len(soak.runs), "proc_samples": sampler.samples,
              "proc_sample_ms": {"mean": round(sampler.total_ms / max(1, sampler.samples), 2),
                                 "max": round(sampler.max_ms, 1)},
              "daemon_exit": code}
    print(json.dumps(report, indent=2))
    if args.json:
        args.json.write_text(json.dumps(report, indent=2))
    ok = not soak.violations and code == 0
    print("soak:", "no violation" if ok else "VIOLATIONS (see above)")
    if ok:
        cleanup(tmp)
    else:
        print(f"state and daemon log kept in {tmp}")
    return 0 if ok else 1


def end_daemon(d: Daemon, soak: Soak, sampler: Sampler) -> int:
    """SIGTERM: the daemon must exit with nothing of any run left."""
    t0 = time.monotonic()
    try:
        code = d.stop(timeout=STOP_GRACE + 30)
    except AssertionError as exc:
        soak.violate("shutdown", str(exc))
        code = -1
    left = sampler.tokens()
    if left:
        soak.violate("shutdown", f"processes outlived the daemon: {left}")
        for pids in left.values():
            for pid in pids:
                try:
                    os.kill(pid, signal.SIGKILL)
                except OSError:
                    pass
    soak.counts["shutdown_s"] = round(time.monotonic() - t0, 2)  # type: ignore[assignment]
    # Every stubborn run was SIGKILLed holding its queue: the daemon must have removed each.
    queues = list(Path("/dev/shm").glob(SHM_MARK + "*"))
    if queues:
        soak.violate("shm", f"{len(queues)} shared-memory file(s) of killed runs left in "
                     f"/dev/shm, e.g. {queues[0].name}")
        for q in queues:
            q.unlink(missing_ok=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
