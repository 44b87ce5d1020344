"""gpu-node-supervisor against supervisord, side by side in one run (DESIGN §12, issue 7).

    python bench/run.py            # ~5-6 min on a 2-core machine
    python bench/run.py --quick    # < 2 min: fewer lines, shorter windows
    python bench/run.py --only exit,pipeline   # some sections (exit pipeline status idle stop tui)

Installs supervisord from PyPI into bench/.venv-supervisord on first use, starts the real
daemon (``supervisor.cli.daemon``) and supervisord on a temp dir with the same child programs
(bench/children/), measures, prints a Markdown table and writes bench/results/latest.json.
Every figure is a median of repeats taken interleaved with supervisord's, because the machine
may be shared and loaded: compare the ratios, not the absolute numbers.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import queue
import re
import shutil
import subprocess
import sys
import tempfile
import textwrap
import threading
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import (  # noqa: E402
    CHILDREN,
    PY,
    REPO,
    RawClient,
    Supervisord,
    cpu_s,
    ensure_supervisord,
    kill_pids,
    median,
    pct,
    pids_with_env,
    rss_mb,
    sv_version,
    wait_for,
)
from tests.e2e.harness import Daemon, free_port, test_env  # noqa: E402

SECTIONS = ("exit", "pipeline", "status", "idle", "stop", "tui")
FINAL = ("crashed", "hung", "timeout", "unhealthy", "stopped")


def log(msg: str) -> None:
    print(f"[bench {time.strftime('%H:%M:%S')}] {msg}", file=sys.stderr, flush=True)


# -- profiles --------------------------------------------------------------------------------
def write_profiles(pdir: Path, tmp: Path, lines: int, mark: str) -> None:
    big = ("launch = 3600\nweight_loading = 3600\nkv_cache_alloc = 3600\n"
           "cuda_graph_capture = 3600\nwarmup = 3600\nsilence = 600\nstop_grace = 2\n")

    def env(**kv: str) -> str:
        return "{ " + ", ".join(f'{k} = "{v}"' for k, v in {**kv, "BENCH_MARK": mark}.items()) \
            + " }"
    (pdir / "exit.toml").write_text(textwrap.dedent(f"""\
        engine = "command"
        [launch]
        command = ["{{python}}", "-I", "-S", "{CHILDREN}/exit_child.py"]
        port = {free_port()}
        env = {env(BENCH_STAMP=str(tmp / "d-exit-stamps"))}
        [timeouts]
        stop_grace = 2
        """))
    for name, kv in (("flood", {"BENCH_LINES": str(lines),
                                "BENCH_RESULT": str(tmp / "d-flood.json")}),
                     ("flood_ascii", {"BENCH_LINES": str(lines), "BENCH_ASCII": "1",
                                      "BENCH_RESULT": str(tmp / "d-flood.json")}),
                     ("paced", {"BENCH_RATE": "10000"})):
        (pdir / f"{name}.toml").write_text(
            'engine = "sglang"\n[launch]\n'
            f'command = ["{{python}}", "-I", "-S", "{CHILDREN}/flood.py"]\n'
            f'model = "bench/{name}"\nhost = "127.0.0.1"\nport = {free_port()}\n'
            f"env = {env(**kv)}\n[timeouts]\n{big}")
    (pdir / "tree.toml").write_text(textwrap.dedent(f"""\
        engine = "command"
        [launch]
        command = ["{{python}}", "-I", "-S", "{CHILDREN}/tree.py"]
        port = {free_port()}
        env = {env(BENCH_TREE="d-" + mark)}
        [timeouts]
        stop_grace = 2
        """))
    (pdir / "ready.toml").write_text(textwrap.dedent(f"""\
        description = "the emulator, ready and idle"
        engine = "sglang"
        [launch]
        command = ["{{python}}", "-m", "supervisor.emulator"]
        model = "bench/model"
        host = "127.0.0.1"
        port = {free_port()}
        args = {{ tp-size = 2 }}
        env = {env(SGLANG_EMULATOR_TIME_SCALE="0.01", SGLANG_EMULATOR_FAULT="none")}
        [timeouts]
        stop_grace = 5
        [health]
        interval = 10
        timeout = 5
        """))


class Farm:
    """N socket subscribers of the log topic in one process (bench/children/subscribers.py)."""

    def __init__(self, sock: Path, n: int, tmp: Path) -> None:
        self.result = tmp / f"farm-{n}-{time.monotonic_ns()}.json"
        self.proc = subprocess.Popen([PY, "-I", "-S", str(CHILDREN / "subscribers.py"),
                                      str(sock), str(n), str(self.result)],
                                     stdout=subprocess.PIPE, text=True)
        assert self.proc.stdout is not None
        if self.proc.stdout.readline().strip() != "ready":
            raise RuntimeError("subscriber farm did not start")

    def close(self) -> dict[str, Any]:
        self.proc.terminate()
        self.proc.wait(20)
        return json.loads(self.result.read_text())


# -- 1. exit -> verdict ----------------------------------------------------------------------
def bench_exit(d: Daemon, sv: Supervisord | None, tmp: Path, n: int) -> dict[str, Any]:
    ctl = subprocess.Popen([PY, "-m", "supervisor.cli.ctl", "--socket", str(d.sock), "events",
                            "-f", "--json"], stdout=subprocess.PIPE, text=True, cwd=REPO,
                           env=test_env())
    verdicts: queue.Queue[tuple[float, dict[str, Any]]] = queue.Queue()

    def reader() -> None:
        assert ctl.stdout is not None
        for line in ctl.stdout:
            t = time.time()
            if '"verdict"' in line:
                verdicts.put((t, json.loads(line)))
    threading.Thread(target=reader, daemon=True).start()
    raw_verdicts: queue.Queue[float] = queue.Queue()
    raw = RawClient(d.sock)
    raw.request("subscribe", topics=["run"])

    def raw_reader() -> None:  # the same events at a plain socket subscriber (no ctl hop)
        try:
            while True:
                line = raw._line()
                if b'"event":"verdict"' in line:
                    raw_verdicts.put(time.time())
        except OSError:
            pass
    threading.Thread(target=raw_reader, daemon=True).start()
    client = RawClient(d.sock)
    stamp = tmp / "d-exit-stamps"
    mine: list[float] = []
    theirs: list[float] = []
    inside: list[float] = []  # exit -> the daemon publishing the verdict (its event's ts)
    at_raw: list[float] = []  # exit -> arrival at a plain socket subscriber
    try:
        # round 0 warms up both sides (and waits for the ctl reader's subscription)
        for _attempt in range(10):  # until the ctl reader's subscription is in place
            client.request("switch", profile="exit")
            try:
                verdicts.get(timeout=3)
                break
            except queue.Empty:
                continue
        time.sleep(0.3)
        while not raw_verdicts.empty():
            raw_verdicts.get()
        for i in range(n + 1):
            stamp.unlink(missing_ok=True)
            client.request("switch", profile="exit")
            t_arr, ev = verdicts.get(timeout=10)
            t_raw = raw_verdicts.get(timeout=10)
            t_exit = float(stamp.read_text().split()[-1])
            if sv is None:  # bench/ab_exit.py: the daemon alone
                if i:
                    mine.append(t_arr - t_exit)
                    inside.append(ev["ts"] - t_exit)
                    at_raw.append(t_raw - t_exit)
                continue
            sv.stamps.unlink(missing_ok=True)
            before = sv.arrivals.read_text().count(" exit") if sv.arrivals.exists() else 0
            sv.rpc.supervisor.startProcess("exit", False)
            wait_for(lambda b=before: sv.arrivals.exists()  # type: ignore[misc]
                     and sv.arrivals.read_text().count(" exit") > b, 10, "listener")
            sv_arr = float([ln for ln in sv.arrivals.read_text().splitlines()
                            if ln.endswith(" exit")][-1].split()[0])
            sv_exit = float(sv.stamps.read_text().split()[-1])
            if i == 0:
                continue
            mine.append(t_arr - t_exit)
            inside.append(ev["ts"] - t_exit)
            at_raw.append(t_raw - t_exit)
            theirs.append(sv_arr - sv_exit)
    finally:
        client.close()
        raw.close()
        ctl.terminate()
        ctl.wait(10)
    return {"n": len(mine), "mine_ms": [x * 1000 for x in mine],
            "sv_ms": [x * 1000 for x in theirs], "publish_ms": [x * 1000 for x in inside],
            "raw_ms": [x * 1000 for x in at_raw]}


# -- 2. log pipeline -------------------------------------------------------------------------
def flood_report(result: Path) -> dict[str, Any]:
    """The flood child's own report (lines, bytes, start time, time blocked in write)."""
    wait_for(result.exists, 600, "the flood child's report", 0.02)
    return json.loads(result.read_text())


def copied_at(path: Path | str, nbytes: int, what: str) -> float:
    """When ``path`` (a log copy) holds all ``nbytes`` of the flood: the end of its journey."""
    try:
        wait_for(lambda: os.path.exists(path) and os.path.getsize(path) >= nbytes, 60, what,
                 0.005)
        return time.time()
    except RuntimeError:
        return float("nan")


def flood_figures(r: dict[str, Any], t_done: float, cpu: float) -> dict[str, Any]:
    return {"lines": r["lines"], "rate": r["lines"] / (t_done - r["t_start"]),
            "cpu_per_M": cpu / r["lines"] * 1e6, "blocked_s": r["blocked_s"],
            "max_write_ms": r["max_write_s"] * 1000, "wall_s": r["wall_s"]}


def daemon_flood(d: Daemon, tmp: Path, nsubs: int, profile: str = "flood") -> dict[str, Any]:
    client = RawClient(d.sock)
    farm = Farm(d.sock, nsubs, tmp) if nsubs else None
    result = tmp / "d-flood.json"
    result.unlink(missing_ok=True)
    c0 = cpu_s(d.proc.pid)
    client.request("switch", profile=profile)
    r = flood_report(result)
    log_path = client.request("status")["run"]["log_path"]
    t_done = copied_at(log_path, r["bytes"], "the run log")
    run = wait_for(lambda: (lambda x: x if x and x.get("ended") else None)(
        client.request("status")["run"]), 60, "the flood run's end", 0.05)
    c1 = cpu_s(d.proc.pid)
    stats = client.request("status")["daemon"]["protocol"]
    farm_stats = farm.close() if farm else {}
    client.close()
    os.unlink(log_path)
    return {**flood_figures(r, t_done, c1 - c0), "dropped": stats.get("dropped"),
            "farm_bytes": farm_stats.get("bytes"), "status": run["status"]}


def floor_flood(tmp: Path, nsubs: int, lines: int) -> dict[str, Any]:
    """The same flood and subscribers on the least fan-out there is (children/fanout.py)."""
    sock, log_path = tmp / f"fanout-{time.monotonic_ns()}.sock", tmp / "fanout.log"
    result, cpu_result = tmp / "f-flood.json", tmp / "f-cpu.json"
    for f in (result, cpu_result, log_path):
        f.unlink(missing_ok=True)
    proc = subprocess.Popen(
        [PY, "-I", "-S", str(CHILDREN / "fanout.py"), str(sock), str(nsubs), str(log_path),
         str(cpu_result), "--", PY, "-I", "-S", str(CHILDREN / "flood.py")],
        stdout=subprocess.PIPE, text=True,
        env={**os.environ, "BENCH_LINES": str(lines), "BENCH_RESULT": str(result)})
    assert proc.stdout is not None and proc.stdout.readline().strip() == "ready"
    farm = Farm(sock, nsubs, tmp)
    r = flood_report(result)
    t_done = copied_at(log_path, r["bytes"], "the floor's log copy")
    wait_for(cpu_result.exists, 60, "the floor's CPU report", 0.02)
    proc.wait(30)
    farm_stats = farm.close()
    log_path.unlink()
    return {**flood_figures(r, t_done, json.loads(cpu_result.read_text())["cpu_s"]),
            "farm_bytes": farm_stats.get("bytes")}


def sv_flood(sv: Supervisord, program: str = "flood") -> dict[str, Any]:
    sv.flood_result.unlink(missing_ok=True)
    sv.flood_log.unlink(missing_ok=True)
    c0 = cpu_s(sv.pid)
    sv.rpc.supervisor.startProcess(program, False)
    r = flood_report(sv.flood_result)
    t_done = copied_at(sv.flood_log, r["bytes"], "supervisord's log copy")
    wait_for(lambda: sv.state(program) == "EXITED", 60, "flood EXITED", 0.05)
    c1 = cpu_s(sv.pid)
    sv.flood_log.unlink(missing_ok=True)
    return flood_figures(r, t_done, c1 - c0)


def bench_pipeline(d: Daemon, sv: Supervisord, tmp: Path, reps: int,
                   lines: int) -> dict[str, Any]:
    out: dict[str, list[dict[str, Any]]] = {"sv": [], "sva": [], "d0": [], "d1": [],
                                            "d1a": [], "d50": [], "f1": [], "f50": []}
    for i in range(reps):
        out["sv"].append(sv_flood(sv))
        out["sva"].append(sv_flood(sv, "flood_ascii"))
        out["d0"].append(daemon_flood(d, tmp, 0))
        out["d1"].append(daemon_flood(d, tmp, 1))
        out["d1a"].append(daemon_flood(d, tmp, 1, "flood_ascii"))
        out["d50"].append(daemon_flood(d, tmp, 50))
        out["f1"].append(floor_flood(tmp, 1, lines))
        out["f50"].append(floor_flood(tmp, 50, lines))
        log(f"pipeline rep {i + 1}/{reps}: " + ", ".join(
            f"{k} {v[-1]['rate']:,.0f} lines/s {v[-1]['cpu_per_M']:.1f} CPU-s/M" for k, v in
            out.items()))
    return out


# -- 3. status round trip under load ---------------------------------------------------------
def bench_status(d: Daemon, sv: Supervisord, tmp: Path, window: float) -> dict[str, Any]:
    client = RawClient(d.sock)

    def rtts(fn: Any, seconds: float) -> list[float]:
        out = []
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            t = time.perf_counter()
            fn()
            out.append((time.perf_counter() - t) * 1000)
            time.sleep(0.01)
        return out
    idle = rtts(lambda: client.request("status"), min(3.0, window / 3))
    idle_ping = rtts(lambda: client.request("ping"), 1.0)
    client.request("switch", profile="paced")
    time.sleep(1.5)
    c0, t0 = cpu_s(d.proc.pid), time.monotonic()
    time.sleep(window / 2)
    cpu_nosub = (cpu_s(d.proc.pid) - c0) / (time.monotonic() - t0) * 100
    farm = Farm(d.sock, 50, tmp)
    # The floor, under the same load: a do-nothing asyncio server answering the same way,
    # `status` with a copy of the daemon's reply (so the client reads and parses as much).
    echo_sock = tmp / "echo.sock"
    (tmp / "status.json").write_text(json.dumps(client.request("status")))
    echo_proc = subprocess.Popen([PY, "-I", "-S", str(CHILDREN / "echo.py"), str(echo_sock),
                                  str(tmp / "status.json")],
                                 stdout=subprocess.PIPE, text=True)
    assert echo_proc.stdout is not None and echo_proc.stdout.readline().strip() == "ready"
    echo = RawClient(echo_sock)
    time.sleep(1)
    c0, t0 = cpu_s(d.proc.pid), time.monotonic()
    status_ms: list[float] = []
    ping_ms: list[float] = []
    echo_ms: list[float] = []
    echo_status_ms: list[float] = []
    end = time.monotonic() + window
    while time.monotonic() < end:  # interleaved, so that each sees the same moments of load
        status_ms += rtts(lambda: client.request("status"), 0.5)
        echo_status_ms += rtts(lambda: echo.request("status"), 0.5)
        ping_ms += rtts(lambda: client.request("ping"), 0.2)
        echo_ms += rtts(lambda: echo.request("ping"), 0.2)
    d_cpu = (cpu_s(d.proc.pid) - c0) / (time.monotonic() - t0) * 100
    echo.close()
    echo_proc.terminate()
    echo_proc.wait(10)
    protocol = client.request("status")["daemon"]["protocol"]
    dropped, handled = protocol.get("dropped"), protocol.get("handle_ms")
    farm_stats = farm.close()
    client.request("stop")
    client.close()
    sv.rpc.supervisor.startProcess("paced", False)
    time.sleep(2)
    c0, t0 = cpu_s(sv.pid), time.monotonic()
    sv_ms = rtts(lambda: sv.rpc.supervisor.getAllProcessInfo(), window)
    sv_cpu = (cpu_s(sv.pid) - c0) / (time.monotonic() - t0) * 100
    sv.rpc.supervisor.stopProcess("paced")
    return {"idle_ms": idle, "idle_ping_ms": idle_ping, "status_ms": status_ms,
            "ping_ms": ping_ms, "echo_ms": echo_ms, "echo_status_ms": echo_status_ms,
            "cpu_pct": d_cpu, "cpu_nosub_pct": cpu_nosub,
            "dropped": dropped, "handle_ms": handled,
            "farm_MB": farm_stats["bytes"] / 2**20, "sv_ms": sv_ms,
            "sv_cpu_pct": sv_cpu}


# -- 4. idle cost ----------------------------------------------------------------------------
def bench_idle(d: Daemon, sv: Supervisord, tmp: Path, window: float) -> dict[str, Any]:
    extra = {}
    for name, gpus in (("gpus32", 32), ("gpus8_norun", 8)):
        base = tmp / name
        (base / "p").mkdir(parents=True)
        extra[name] = Daemon(base / "p", base / "state", base / "s.sock", fake_gpus=gpus).start()
    try:
        client = RawClient(d.sock)
        client.request("switch", profile="ready")
        wait_for(lambda: (client.request("status")["run"] or {}).get("status") == "ready", 120,
                 "the emulator to be ready", 0.2)
        client.close()
        time.sleep(3)
        procs = {"main": d.proc.pid, "sv": sv.pid,
                 **{k: v.proc.pid for k, v in extra.items()}}  # type: ignore[union-attr]
        c0 = {k: cpu_s(p) for k, p in procs.items()}
        rss: dict[str, float] = {k: 0.0 for k in procs}
        t0 = time.monotonic()
        while time.monotonic() - t0 < window:
            time.sleep(1)
            for k, p in procs.items():
                rss[k] = max(rss[k], rss_mb(p))
        dt = time.monotonic() - t0
        return {"window_s": dt, "cpu_pct": {k: (cpu_s(p) - c0[k]) / dt * 100
                                            for k, p in procs.items()}, "rss_mb": rss}
    finally:
        for v in extra.values():
            v.stop()


# -- 5. stop of a 20-process tree ------------------------------------------------------------
def bench_stop(d: Daemon, sv: Supervisord, mark: str, reps: int) -> dict[str, Any]:
    d_item, sv_item = f"BENCH_TREE=d-{mark}".encode(), f"BENCH_TREE=sv-{mark}".encode()
    mine, theirs, sv_left, sv_stop = [], [], [], []
    client = RawClient(d.sock)
    for _ in range(reps):
        client.request("switch", profile="tree")
        wait_for(lambda: len(pids_with_env(d_item)) >= 20, 30, "the daemon's tree", 0.05)
        t0 = time.monotonic()
        client.request("stop")
        wait_for(lambda: not pids_with_env(d_item), 30, "the daemon's tree gone", 0.01)
        mine.append(time.monotonic() - t0)
        sv.rpc.supervisor.startProcess("tree", False)
        wait_for(lambda: len(pids_with_env(sv_item)) >= 20, 30, "supervisord's tree", 0.05)
        t0 = time.monotonic()
        sv.rpc.supervisor.stopProcess("tree", True)
        sv_stop.append(time.monotonic() - t0)
        try:
            wait_for(lambda: not pids_with_env(sv_item), 3, "supervisord's tree gone", 0.01)
            theirs.append(time.monotonic() - t0)
        except RuntimeError:
            theirs.append(float("inf"))
        left = pids_with_env(sv_item)
        sv_left.append(len(left))
        kill_pids(left)
    client.close()
    return {"mine_s": mine, "sv_gone_s": theirs, "sv_stopped_s": sv_stop, "sv_left": sv_left,
            "grace_s": 2.0}


# -- 6. TUI ----------------------------------------------------------------------------------
class Tmux:
    def __init__(self) -> None:
        self.sock = f"gns-bench-{os.getpid()}"

    def tm(self, *args: str) -> str:
        return subprocess.run(["tmux", "-L", self.sock, *args], capture_output=True,
                              text=True).stdout

    def start(self, cmd: str) -> None:
        self.tm("new-session", "-d", "-s", "tui", "-x", "120", "-y", "30", cmd)

    def screen(self) -> str:
        return self.tm("capture-pane", "-p", "-t", "tui")

    def pane_pid(self) -> int:
        return int(self.tm("list-panes", "-t", "tui", "-F", "#{pane_pid}").split()[0])

    def keys(self, *keys: str) -> None:
        self.tm("send-keys", "-t", "tui", *keys)

    def kill(self) -> None:
        self.tm("kill-session", "-t", "tui")

    def kill_server(self) -> None:
        self.tm("kill-server")
        Path(f"/tmp/tmux-{os.getuid()}/{self.sock}").unlink(missing_ok=True)


def key_lag(tmx: Tmux, cycles: int) -> list[float]:
    """'l' cycles the log level (all → info → warning → error → all; each re-filters the log
    view): seconds from the key to the new level on screen."""
    levels = ["info", "warning", "error", "all"]
    out = []
    for _ in range(cycles):
        for lv in levels:
            t0 = time.monotonic()
            tmx.keys("l")
            wait_for(lambda lv=lv: f"level {lv}" in tmx.screen(),  # type: ignore[misc]
                     10, f"level {lv}", 0.005)
            out.append(time.monotonic() - t0)
            time.sleep(0.2)
    return out


def bench_tui(d: Daemon, reps: int, window: float, cycles: int) -> dict[str, Any]:
    tmx = Tmux()
    tui = f"{REPO}/.venv/bin/supervisor-tui --socket {d.sock}"
    if not Path(tui.split()[0]).exists():
        tui = f"{PY} -m tui --socket {d.sock}"
    full = ("READY", "GPUs (8)", "ready")  # status, GPU panel, profile name

    def painted() -> bool:
        s = tmx.screen()
        return all(x in s for x in full)
    paints = []
    client = RawClient(d.sock)
    if (client.request("status")["run"] or {}).get("status") != "ready":
        client.request("switch", profile="ready")
        wait_for(lambda: (client.request("status")["run"] or {}).get("status") == "ready", 120,
                 "the emulator to be ready", 0.2)
    try:
        for _ in range(reps):
            t0 = time.monotonic()
            tmx.start(tui)
            wait_for(painted, 30, "the TUI's first full paint", 0.01)
            paints.append(time.monotonic() - t0)
            tmx.kill()
            time.sleep(0.5)
        tmx.start(tui)
        wait_for(painted, 30, "the TUI", 0.01)
        time.sleep(1)
        lag_idle = key_lag(tmx, cycles)
        client.request("switch", profile="paced")
        time.sleep(3)
        pid = tmx.pane_pid()
        c0, t0 = cpu_s(pid), time.monotonic()
        fresh, seen = [], []
        end = time.monotonic() + window
        while time.monotonic() < end:
            s = tmx.screen()
            now = time.time()
            ts = [float(x) for x in re.findall(r"t=(\d+\.\d+)", s)]
            seqs = [int(x) for x in re.findall(r"seq=(\d+)", s)]
            if ts:
                fresh.append(now - max(ts))
                seen.append(max(seqs))
            time.sleep(0.25)
        cpu = (cpu_s(pid) - c0) / (time.monotonic() - t0) * 100
        lag_load = key_lag(tmx, cycles)
        client.request("stop")
        client.close()
        rate = (seen[-1] - seen[0]) / (window - 0.25) if len(seen) > 1 else float("nan")
        return {"first_paint_s": paints, "lag_idle_s": lag_idle, "lag_10k_s": lag_load,
                "fresh_s": fresh, "tui_cpu_pct": cpu, "shown_rate": rate}
    finally:
        tmx.kill_server()


# -- the table -------------------------------------------------------------------------------
def table(res: dict[str, Any], cfg: dict[str, Any]) -> str:
    rows: list[tuple[str, str, str, str, str]] = []

    def ok(cond: bool) -> str:
        return "yes" if cond else "**no**"
    if "exit" in res:
        e = res["exit"]
        m, s = e["mine_ms"], e["sv_ms"]
        rows.append((f"1. child exit → verdict event at a `supervisor-ctl events -f --json` reader"
                     f" (n={e['n']}; supervisord: exit → event listener)",
                     f"p50 {pct(m, 50):.0f} ms, p90 {pct(m, 90):.0f} ms, max {max(m):.0f} ms "
                     f"(exit → published in the daemon: p50 {pct(e['publish_ms'], 50):.1f} ms; "
                     f"→ a plain socket subscriber: p50 {pct(e['raw_ms'], 50):.1f} ms, p90 "
                     f"{pct(e['raw_ms'], 90):.1f} ms)",
                     f"p50 {pct(s, 50):.0f} ms, p90 {pct(s, 90):.0f} ms, max {max(s):.0f} ms",
                     "p50 ≤ 5 ms, p90 ≤ 20 ms", ok(pct(m, 50) <= 5 and pct(m, 90) <= 20)))
    if "pipeline" in res:
        p = res["pipeline"]

        def received(runs: list[dict[str, Any]], n: int) -> str:
            got = median([(x.get("farm_bytes") or 0) / n / 2**20 for x in runs])
            return f"each subscriber received {got:.1f} MiB"
        for key, label in (("d0", "no subscriber"), ("d1", "1 subscriber"),
                           ("d1a", "1 subscriber"),
                           ("d50", "50 subscribers")):
            if key not in p:
                continue
            svk = "sva" if key == "d1a" and p.get("sva") else "sv"  # the same output copied
            sv_rate = median([x["rate"] for x in p[svk]])
            sv_cpu = median([x["cpu_per_M"] for x in p[svk]])
            sv_blk = max(x["max_write_ms"] for x in p[svk])
            rate = median([x["rate"] for x in p[key]])
            cpu = median([x["cpu_per_M"] for x in p[key]])
            blk = max(x["max_write_ms"] for x in p[key])
            drop = median([x["dropped"] or 0 for x in p[key]])
            rows.append((
                f"2. log pipeline, {cfg['lines']:,} SGLang-like lines (47 % of them `\\r` "
                f"progress-bar redraws, drawn with {'`#`' if key == 'd1a' else 'non-ASCII █'})"
                f" at full "
                f"speed, {label} (median of {len(p[key])})",
                f"{rate:,.0f} lines/s ({rate / sv_rate:.2f}×), {cpu:.2f} CPU-s per M lines "
                f"({cpu / sv_cpu:.2f}×); longest child write {blk:.0f} ms"
                + (f"; {drop:,.0f} log events dropped for slow subscribers" if drop else "")
                + (f"; {received(p[key], nsub)}" if (nsub := {"d1": 1, "d1a": 1, "d50": 50}
                                                     .get(key)) else "")
                + (f". Floor, the least fan-out there is (children/fanout.py: read, write, "
                   f"send raw bytes) to the same subscribers: "
                   f"{median([x['rate'] for x in p[fk]]):,.0f} lines/s, "
                   f"{median([x['cpu_per_M'] for x in p[fk]]):.2f} CPU-s per M lines, "
                   f"{received(p[fk], nsub)}"
                   if (fk := {"d1": "f1", "d50": "f50"}.get(key)) and p.get(fk) else ""),
                f"{sv_rate:,.0f} lines/s, {sv_cpu:.2f} CPU-s per M lines (copy to file only); "
                f"longest child write {sv_blk:.0f} ms",
                "≥ supervisord's rate, CPU ≤ 1.5×",
                ok(rate >= sv_rate and cpu <= 1.5 * sv_cpu)))
    if "status" in res:
        s = res["status"]
        m = s["status_ms"]
        rows.append((
            "3. `status` round trip while 50 subscribers follow a 10k lines/s log "
            f"(n={len(m)}; supervisord: XML-RPC getAllProcessInfo while copying 10k lines/s)",
            f"p50 {pct(m, 50):.1f} ms, p99 {pct(m, 99):.1f} ms (idle: p50 "
            f"{pct(s['idle_ms'], 50):.1f} ms; `ping` p50/p99 {pct(s['ping_ms'], 50):.1f}/"
            f"{pct(s['ping_ms'], 99):.1f} ms, idle {pct(s['idle_ping_ms'], 50):.1f}/"
            f"{pct(s['idle_ping_ms'], 99):.1f} ms); daemon CPU {s['cpu_pct']:.0f} % of a core "
            f"({s['cpu_nosub_pct']:.0f} % with no subscriber)"
            + (f"; the daemon's own share, from reading a request to its reply being ready "
               f"(its last {h['n']} requests, `status` and `ping`): p50/p99 "
               f"{h['p50']:.2f}/{h['p99']:.2f} ms" if (h := s.get("handle_ms")) else "")
            + (f"; floor, a do-nothing asyncio server under the same load, answering `ping` "
               f"p50/p99 {pct(s['echo_ms'], 50):.1f}/{pct(s['echo_ms'], 99):.1f} ms"
               if s.get("echo_ms") else "")
            + (f" and `status` with a copy of the daemon's reply p50/p99 "
               f"{pct(s['echo_status_ms'], 50):.1f}/{pct(s['echo_status_ms'], 99):.1f} ms"
               if s.get("echo_status_ms") else ""),
            f"p50 {pct(s['sv_ms'], 50):.1f} ms, p99 {pct(s['sv_ms'], 99):.1f} ms; "
            f"CPU {s['sv_cpu_pct']:.0f} % of a core",
            "p99 ≤ 5 ms", ok(pct(m, 99) <= 5)))
    if "idle" in res:
        i = res["idle"]
        c, r = i["cpu_pct"], i["rss_mb"]
        rows.append((
            f"4. idle: ready server, 8 fake GPUs at 1 Hz, {i['window_s']:.0f} s",
            f"CPU {c['main']:.2f} % of a core, RSS {r['main']:.0f} MB (no run: "
            f"{c['gpus8_norun']:.2f} %, {r['gpus8_norun']:.0f} MB; 32 GPUs, no run: "
            f"{c['gpus32']:.2f} %, {r['gpus32']:.0f} MB)",
            f"CPU {c['sv']:.2f} %, RSS {r['sv']:.0f} MB (one sleeping program, no GPUs)",
            "≤ 1 %, ≤ 80 MB", ok(c["main"] <= 1 and r["main"] <= 80)))
    if "stop" in res:
        s = res["stop"]
        sv_gone = [x for x in s["sv_gone_s"] if x != float("inf")]
        sv_txt = (f"stopProcess returns in {median(s['sv_stopped_s']):.2f} s; "
                  f"{median(s['sv_left']):.0f} of 20 processes left running "
                  f"(setsid escapes the group kill)" if max(s["sv_left"]) else
                  f"{median(sv_gone):.2f} s")
        rows.append((
            f"5. stop of a 20-process tree, 10 setsid + SIGTERM-ignoring grandchildren, "
            f"stop_grace = 2 s (n={len(s['mine_s'])})",
            f"nothing left after {median(s['mine_s']):.2f} s (max {max(s['mine_s']):.2f} s)",
            sv_txt, "≤ stop_grace + 1 s = 3 s", ok(max(s["mine_s"]) <= s["grace_s"] + 1)))
    if "tui" in res:
        t = res["tui"]
        rows.append((
            f"6a. TUI start → first full paint (status, GPUs, profile; tmux 120×30, "
            f"n={len(t['first_paint_s'])})",
            f"median {median(t['first_paint_s']):.2f} s, max {max(t['first_paint_s']):.2f} s",
            "–", "≤ 1 s", ok(median(t["first_paint_s"]) <= 1)))
        rows.append((
            "6b. TUI following a 10k lines/s log: key → screen (`l`, log level; re-filters the "
            "view), age of the newest line on screen",
            f"key lag median {median(t['lag_10k_s']) * 1000:.0f} ms (idle "
            f"{median(t['lag_idle_s']) * 1000:.0f} ms); newest line on screen "
            f"{median(t['fresh_s']):.2f} s old; TUI CPU {t['tui_cpu_pct']:.0f} %",
            "–", "10k lines/s without input lag",
            ok(median(t["lag_10k_s"]) <= max(0.2, 2 * median(t["lag_idle_s"])))))
    head = ("| what | gpu-node-supervisor | supervisord (same run) | target | met |\n"
            "|---|---|---|---|---|\n")
    return head + "\n".join("| " + " | ".join(r) + " |" for r in rows)


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--quick", action="store_true", help="< 2 minutes, smaller samples")
    ap.add_argument("--only", default=",".join(SECTIONS), help="comma-separated sections")
    ap.add_argument("--lines", type=int, help="lines per pipeline run (1,000,000; quick 200,000)")
    ap.add_argument("--reps", type=int, help="pipeline repeats (5; quick 2)")
    ap.add_argument("--exits", type=int, default=20, help="exits measured (≥ 20)")
    ap.add_argument("--idle", type=float, help="idle window in s (60; quick 15)")
    ap.add_argument("--json", type=Path, default=REPO / "bench" / "results" / "latest.json")
    args = ap.parse_args()
    only = [s for s in args.only.split(",") if s]
    cfg = {"lines": args.lines or (200_000 if args.quick else 1_000_000),
           "reps": args.reps or (2 if args.quick else 5),  # medians steady to ~10 %
           "idle": args.idle or (10.0 if args.quick else 60.0),
           "status_window": 4.0 if args.quick else 30.0,  # p99 of ~1,000 round trips
           "stop_reps": 2 if args.quick else 3,
           "tui_reps": 2 if args.quick else 3,
           "tui_window": 3.0 if args.quick else 8.0,
           "key_cycles": 1 if args.quick else 2,
           "exits": args.exits}
    ensure_supervisord()
    mark = os.urandom(4).hex()
    tmp = Path(tempfile.mkdtemp(prefix="gns-bench-", dir="/tmp"))
    (tmp / "p").mkdir()
    write_profiles(tmp / "p", tmp, cfg["lines"], mark)
    d = Daemon(tmp / "p", tmp / "state", tmp / "s.sock", fake_gpus=8,
               env={"BENCH_MARK": mark})
    sv = Supervisord(tmp, free_port(), cfg["lines"], mark)
    res: dict[str, Any] = {}
    t_start = time.monotonic()
    try:
        d.start()
        sv.start()
        log(f"daemon pid {d.proc.pid}, {sv_version() and 'supervisord ' + sv_version()} pid "
            f"{sv.pid}, tmp {tmp}")
        for name in only:
            t0 = time.monotonic()
            log(f"{name} ...")
            if name == "exit":
                res[name] = bench_exit(d, sv, tmp, cfg["exits"])
            elif name == "pipeline":
                res[name] = bench_pipeline(d, sv, tmp, cfg["reps"], cfg["lines"])
            elif name == "status":
                res[name] = bench_status(d, sv, tmp, cfg["status_window"])
            elif name == "idle":
                res[name] = bench_idle(d, sv, tmp, cfg["idle"])
            elif name == "stop":
                res[name] = bench_stop(d, sv, mark, cfg["stop_reps"])
            elif name == "tui":
                res[name] = bench_tui(d, cfg["tui_reps"], cfg["tui_window"], cfg["key_cycles"])
            else:
                raise SystemExit(f"unknown section {name!r}; known: {', '.join(SECTIONS)}")
            log(f"{name} done in {time.monotonic() - t0:.0f} s")
    finally:
        d.stop()
        sv.stop()
        kill_pids(pids_with_env(f"BENCH_MARK={mark}".encode()))
        shutil.rmtree(tmp, ignore_errors=True)
    load = os.getloadavg()
    meta = {"host": platform.node(), "cpus": os.cpu_count(), "python": platform.python_version(),
            "supervisord": sv_version(), "loadavg": load, "quick": args.quick, "config": cfg,
            "elapsed_s": time.monotonic() - t_start, "time": time.strftime("%Y-%m-%d %H:%M")}
    args.json.parent.mkdir(parents=True, exist_ok=True)
    args.json.write_text(json.dumps({"meta": meta, "results": res}, indent=1, default=str))
    print(f"\n{meta['time']}, {meta['cpus']} CPUs, load average {load[0]:.1f}, Python "
          f"{meta['python']}, supervisord {meta['supervisord']}, "
          f"{'--quick, ' if args.quick else ''}{meta['elapsed_s']:.0f} s\n")
    print(table(res, cfg))
    print(f"\nraw figures: {args.json}")


if __name__ == "__main__":
    main()
