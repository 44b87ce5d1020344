"""Operations end to end (issue 6): access, crash-safe state, disk full, reload, metrics.

The real daemon and the real supervisor-ctl over the real socket; other users via ``setpriv``
when the tests run as root; SIGKILL of the real daemon process; a real tiny tmpfs.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import sqlite3
import stat
import subprocess
import sys
import time
import urllib.request
from pathlib import Path
from typing import Any

import pytest

from .conftest import write_profile
from .harness import REPO, Daemon, emulator_profile, free_port, wait_until
from .harness import test_env as _env

pytestmark = pytest.mark.e2e

NOBODY = 65534
STARTUP = ("launch", "weight_loading", "kv_cache_alloc", "cuda_graph_capture", "warmup")

needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="running a client as another user needs root and setpriv")


def write_config(workdir: Path, text: str) -> Path:
    path = workdir / "supervisor.toml"
    path.write_text(text)
    return path


def ctl_as(uid: int, sock: Path, *args: str, timeout: float = 60,
           ) -> subprocess.CompletedProcess[str]:
    """supervisor-ctl run as another user (its uid and gid, no supplementary groups)."""
    argv = ["setpriv", f"--reuid={uid}", f"--regid={uid}", "--clear-groups", "--",
            sys.executable, "-m", "supervisor.cli.ctl", "--socket", str(sock), *args]
    env = {**_env(), "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"}
    return subprocess.run(argv, capture_output=True, text=True, timeout=timeout, cwd=REPO,
                          env=env)


def audit_rows(state: Path) -> list[tuple[Any, ...]]:
    """The audit table, read straight from the daemon's SQLite file (WAL: readers are fine)."""
    db = sqlite3.connect(f"file:{state / 'history.sqlite3'}?mode=ro", uri=True, timeout=10)
    try:
        return db.execute("SELECT uid, cmd, ok, result FROM audit ORDER BY id").fetchall()
    finally:
        db.close()


def shared_socket_dir(workdir: Path) -> None:
    # mkdtemp makes 0700 folders; another user must be able to reach the socket.
    workdir.chmod(0o755)


# -- access ---------------------------------------------------------------------------------

@needs_root
def test_socket_modes_and_world_writable_dir_refused(workdir: Path, make_daemon) -> None:
    shared_socket_dir(workdir)
    cfg = write_config(workdir, 'socket_group = "nogroup"\n')
    d = make_daemon(config=cfg)
    d.status()  # listening (the socket file exists a moment before its mode is final)
    st = d.sock.stat()
    assert stat.S_ISSOCK(st.st_mode)
    assert stat.S_IMODE(st.st_mode) == 0o660, oct(st.st_mode)
    assert st.st_gid == NOBODY  # socket_group may connect, nobody else
    assert not stat.S_IMODE(d.sock.parent.stat().st_mode) & stat.S_IWOTH
    # A socket folder the daemon creates itself: 0755 at most.
    rt = workdir / "rt" / "ctl.sock"
    d2 = Daemon(workdir / "profiles", workdir / "state2", rt).start()
    try:
        d2.status()
        mode = stat.S_IMODE(rt.parent.stat().st_mode)
        assert not mode & (stat.S_IWOTH | stat.S_IWGRP), oct(mode)
        assert stat.S_IMODE(rt.stat().st_mode) == 0o660
    finally:
        d2.stop()
    # A world-writable folder (without the sticky bit) is refused with a clear error.
    open_dir = workdir / "open"
    open_dir.mkdir()
    open_dir.chmod(0o777)
    res = subprocess.run(
        [sys.executable, "-m", "supervisor.cli.daemon", "--socket", str(open_dir / "c.sock"),
         "--profiles", str(workdir / "profiles"), "--state-dir", str(workdir / "state3"),
         "--fake-gpus", "0"], capture_output=True, text=True, timeout=30, cwd=REPO,
        env=_env())
    assert res.returncode == 1, res.stderr
    assert "world-writable" in res.stderr
    assert not (open_dir / "c.sock").exists()


@needs_root
def test_mutating_command_from_other_uid_refused_and_audited(workdir: Path, make_daemon,
                                                             ) -> None:
    shared_socket_dir(workdir)
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    cfg = write_config(workdir, 'socket_group = "nogroup"\n')
    d = make_daemon(config=cfg)
    st = ctl_as(NOBODY, d.sock, "status", "--json")
    assert st.returncode == 0, st.stdout + st.stderr
    assert json.loads(st.stdout)["run"] is None
    for args in (("stop",), ("switch", "good"), ("restart",), ("checklist", "add", "x")):
        res = ctl_as(NOBODY, d.sock, *args, "--json")
        assert res.returncode == 1, (args, res.stdout, res.stderr)
        assert "not_permitted" in res.stdout + res.stderr, (args, res.stdout, res.stderr)
    assert d.run() is None  # nothing was started
    rows = audit_rows(d.state)
    refused = {(cmd, ok) for uid, cmd, ok, _ in rows if uid == NOBODY}
    assert {("stop", 0), ("switch", 0), ("restart", 0)} <= refused, rows
    assert all(ok == 0 for uid, _c, ok, _r in rows if uid == NOBODY)
    # The daemon's own user may.
    assert d.ctl("stop", "--json").returncode == 0
    assert (0, "stop", 1) in {(u, c, o) for u, c, o, _ in audit_rows(d.state)}


@needs_root
def test_allow_list_permits_other_uid(workdir: Path, make_daemon) -> None:
    shared_socket_dir(workdir)
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    cfg = write_config(workdir, f'socket_group = "nogroup"\nallow_uids = [{NOBODY}]\n')
    d = make_daemon(config=cfg)
    res = ctl_as(NOBODY, d.sock, "switch", "good", "--wait", "--timeout", "60", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    assert d.run()["status"] == "ready"
    res = ctl_as(NOBODY, d.sock, "stop", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    assert d.run()["status"] == "stopped"
    rows = audit_rows(d.state)
    assert (NOBODY, "switch", 1) in {(u, c, o) for u, c, o, _ in rows}
    assert (NOBODY, "stop", 1) in {(u, c, o) for u, c, o, _ in rows}


# -- crash-safe state -----------------------------------------------------------------------

def _wait_phase_event(sock: Path, phase: str, timeout: float) -> dict[str, Any]:
    """Follow run events on the socket (no polling gap) until the run is in ``phase``."""
    deadline = time.monotonic() + timeout
    with socket.socket(socket.AF_UNIX) as s:
        s.settimeout(timeout)
        s.connect(str(sock))
        f = s.makefile("rb")
        f.readline()  # hello
        s.sendall(b'{"id": 1, "cmd": "subscribe", "args": {"topics": ["run"]}}\n')
        s.sendall(b'{"id": 2, "cmd": "status"}\n')
        while time.monotonic() < deadline:
            s.settimeout(max(0.1, deadline - time.monotonic()))
            msg = json.loads(f.readline())
            run = msg.get("data") if msg.get("event") == "run" else (
                (msg.get("result") or {}).get("run") if msg.get("id") == 2 else None)
            if run and run.get("phase") == phase and run.get("status") == "starting":
                return run
    raise AssertionError(f"the run never showed phase {phase} within {timeout}s")


def _restart_daemon(make_daemon, **kw: Any) -> Daemon:
    d = make_daemon(**kw)
    # The killed daemon's socket file is still there: wait for the new one to answer.
    wait_until(lambda: d.ctl("status").returncode == 0 and d.status()["daemon"]["pid"]
               == d.proc.pid, 30, "the restarted daemon to answer", interval=0.2)
    return d


@pytest.mark.parametrize("phase", STARTUP)
def test_sigkill_during_phase_then_restart(workdir: Path, make_daemon, phase: str) -> None:
    slow = ",".join(f"slow:{p}:1.2" for p in STARTUP)
    write_profile(workdir, "slow", emulator_profile("slow", port=free_port(), fault=slow,
                                                    silence=20))
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    first = make_daemon()
    assert first.ctl("switch", "slow", "--json").returncode == 0
    run = _wait_phase_event(first.sock, phase, timeout=25)
    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(10)
    # The server outlived its supervisor (its own session): this is what recovery is for.
    orphans = first.run_processes()
    assert orphans, "the server should have outlived the killed daemon"

    second = _restart_daemon(make_daemon)
    # Recovery ran before the socket opened: nothing of the old server is left.
    assert first.run_processes() == {}
    hist = {r["id"]: r for r in second.ctl_json("history")["runs"]}
    old = hist[run["id"]]
    assert old["profile"] == "slow" and old["status"] == "stopped"
    assert old["phase"] == phase
    assert [p["phase"] for p in old["phases"]] == list(STARTUP[:STARTUP.index(phase) + 1])
    assert old["ended"] is not None
    assert any("after a daemon restart" in e for e in old["evidence"]), old["evidence"]
    assert any(f"run {run['id']}" in p for p in second.status()["daemon"]["problems"])
    # A new switch: exactly one server.
    res = second.ctl("switch", "good", "--wait", "--timeout", "60", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    assert len(set(second.run_processes().values())) == 1
    assert first.run_processes() == {}


def test_adopt_keeps_watching_a_ready_server_after_sigkill(workdir: Path,
                                                           make_daemon) -> None:
    import socket as socketlib

    cfg = write_config(workdir, 'on_restart = "adopt"\n')
    port = free_port()
    write_profile(workdir, "good", emulator_profile("good", port=port))
    first = make_daemon(config=cfg)
    first.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
    run = first.run()
    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(10)

    second = _restart_daemon(make_daemon, config=cfg)
    adopted = second.run()
    assert (adopted["id"], adopted["pid"], adopted["status"]) == (run["id"], run["pid"], "ready")
    assert any("adopted after a daemon restart" in e for e in adopted["evidence"])
    assert any("Load weight begin" in ln for ln in
               second.ctl("logs", "-n", "3000").stdout.splitlines())  # seeded from the file
    with socketlib.create_connection(("127.0.0.1", port), timeout=5) as s:  # still serving
        s.sendall(b"GET /health HTTP/1.0\r\n\r\n")
        assert b" 200 " in s.recv(100)
    # Its exit is still seen at once, through a pidfd (it is not the new daemon's child).
    os.kill(run["pid"], signal.SIGKILL)
    dead = second.wait_run(lambda r: r["status"] == "crashed", 15, "the adopted server's exit")
    assert "exit code is unknown" in dead["evidence"][0]
    wait_until(lambda: second.run_processes() == {}, 15, "nothing of the run left")


def test_adopted_server_can_be_stopped(workdir: Path, make_daemon) -> None:
    cfg = write_config(workdir, 'on_restart = "adopt"\n')
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    first = make_daemon(config=cfg)
    first.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(10)
    second = _restart_daemon(make_daemon, config=cfg)
    assert second.run()["status"] == "ready"
    res = second.ctl_json("stop")
    assert res["status"] == "stopped" and res["leftovers"] == []
    assert second.run_processes() == {}


# -- disk full ------------------------------------------------------------------------------

@pytest.fixture
def tiny_runs_fs(workdir: Path):
    runs = workdir / "state" / "runs"
    runs.mkdir(parents=True, exist_ok=True)
    if os.geteuid() != 0:
        pytest.skip("mounting a tmpfs needs root")
    res = subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1m,mode=0755", "tmpfs",
                          str(runs)], capture_output=True, text=True, timeout=10)
    if res.returncode != 0:
        pytest.skip(f"cannot mount a tmpfs here: {res.stderr.strip()}")
    try:
        yield runs
    finally:
        subprocess.run(["umount", "-l", str(runs)], capture_output=True, timeout=10)


def _fill(fs: Path) -> Path:
    filler = fs / "filler"
    with open(filler, "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    return filler


def test_disk_full_supervision_goes_on_and_logging_resumes(workdir: Path, tiny_runs_fs: Path,
                                                           make_daemon) -> None:
    write_profile(workdir, "chatty", emulator_profile("chatty", port=free_port(),
                                                      fault="flood:200"))
    d = make_daemon()
    d.ctl("switch", "chatty", "--wait", "--timeout", "60", check=True)
    run = d.run()
    log_path = Path(run["log_path"])
    assert log_path.parent.parent == tiny_runs_fs
    filler = _fill(tiny_runs_fs)
    full = d.wait_run(lambda r: "disk full" in (r.get("log_error") or ""), 20,
                      "the disk-full error in status")
    assert full["status"] == "ready" and full["id"] == run["id"]
    item = next(i for i in d.status()["checklist"] if "free space for the run log" in i["title"])
    assert item["status"] == "failed" and "disk full" in item["evidence"][0]
    # Supervision goes on: the live log still flows to clients, health still probed.
    first = d.ctl("logs", "-n", "1", "--json").stdout
    # (the flood's lines; the last one may be the emulator's access line for our health probe)
    assert "Decode batch" in d.ctl("logs", "-n", "20", "--json").stdout
    wait_until(lambda: d.ctl("logs", "-n", "1", "--json").stdout != first, 10,
               "new log lines while the disk is full")
    assert d.run()["status"] == "ready"
    # Space returns: the same run's log is written again.
    filler.unlink()
    size = log_path.stat().st_size
    d.wait_run(lambda r: r.get("log_error") is None, 20, "the log error to clear")
    item = next(i for i in d.status()["checklist"] if "free space for the run log" in i["title"])
    assert item["status"] == "done"
    wait_until(lambda: log_path.stat().st_size > size, 10, "the log file to grow again")
    # Full again, and the server dies: the verdict still comes, from the in-memory tail.
    filler = _fill(tiny_runs_fs)
    d.wait_run(lambda r: r.get("log_error"), 20, "the disk-full error again")
    os.kill(run["pid"], signal.SIGKILL)
    dead = d.wait_run(lambda r: r["status"] == "crashed", 20, "the crash verdict")
    assert dead["id"] == run["id"] and dead["cause"] and dead["evidence"]
    wait_until(lambda: d.status()["checklist"], 15, "the failure's checklist items")
    filler.unlink()
    d.stop()


# -- reload ---------------------------------------------------------------------------------

def _profiles(d: Daemon) -> dict[str, Any]:
    return d.ctl_json("profiles")


def test_profiles_reload_on_file_change(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "a", emulator_profile("a", port=free_port()))
    d = make_daemon()
    d.ctl("switch", "a", "--wait", "--timeout", "60", check=True)
    run = d.run()
    # A good edit: a new profile appears, no SIGHUP.
    write_profile(workdir, "b", emulator_profile("b", port=free_port()))
    wait_until(lambda: "b" in {p["name"] for p in _profiles(d)["profiles"]}, 15,
               "profile b to appear")
    # A bad new file: reported with file, key and line.
    write_profile(workdir, "bad", 'engine = "sglang"\n[launch]\nport = "abc"\n')
    errs = wait_until(lambda: [e for e in _profiles(d)["errors"] if "bad.toml" in e], 15,
                      "the bad file's error")
    assert any("bad.toml:3" in e and "launch.port" in e for e in errs), errs
    # A bad edit of the running profile's own file: reported, the server untouched.
    write_profile(workdir, "a", emulator_profile("a", port=free_port()).replace(
        "silence = 3", 'silence = "long"'))
    errs = wait_until(lambda: [e for e in _profiles(d)["errors"] if "a.toml" in e], 15,
                      "the running profile's bad edit to be reported")
    assert any("timeouts.silence" in e for e in errs), errs
    after = d.run()
    assert (after["id"], after["pid"], after["status"]) == (run["id"], run["pid"], "ready")
    assert d.run_processes()
    # Fixed again: the error goes away.
    write_profile(workdir, "a", emulator_profile("a", port=free_port()))
    wait_until(lambda: not [e for e in _profiles(d)["errors"] if "a.toml" in e], 15,
               "the fixed file's error to clear")
    assert d.run()["id"] == run["id"]


# -- metrics --------------------------------------------------------------------------------

def _scrape(port: int) -> dict[tuple[str, tuple[tuple[str, str], ...]], float]:
    from prometheus_client.parser import text_string_to_metric_families

    with urllib.request.urlopen(f"http://127.0.0.1:{port}/metrics", timeout=10) as resp:
        text = resp.read().decode()
    out: dict[tuple[str, tuple[tuple[str, str], ...]], float] = {}
    for fam in text_string_to_metric_families(text):
        for s in fam.samples:
            out[(s.name, tuple(sorted(s.labels.items())))] = s.value
    return out


def _value(m: dict[Any, float], name: str, **labels: str) -> float | None:
    want = set(labels.items())
    for (n, ls), v in m.items():
        if n == name and want <= set(ls):
            return v
    return None


def _listening_addresses(port: int) -> set[str]:
    found = set()
    for table in ("/proc/net/tcp", "/proc/net/tcp6"):
        try:
            lines = Path(table).read_text().splitlines()[1:]
        except OSError:
            continue
        for line in lines:
            local, state = line.split()[1], line.split()[3]
            addr, p = local.rsplit(":", 1)
            if int(p, 16) == port and state == "0A":
                found.add(addr)
    return found


def test_metrics_scraped_and_parsed(workdir: Path, make_daemon) -> None:
    pytest.importorskip("prometheus_client")
    mport = free_port()
    cfg = write_config(workdir, f"[metrics]\nmetrics_port = {mport}\n")
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    write_profile(workdir, "oom", emulator_profile("oom", port=free_port(),
                                                   fault="crash:weight_loading:cuda_oom"))
    d = make_daemon(config=cfg)
    assert not d.status()["daemon"]["problems"]  # listening, metrics endpoint up
    assert _listening_addresses(mport) == {"0100007F"}  # loopback only
    d.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
    m = wait_until(lambda: (lambda x: x if _value(x, "gns_gpu_temperature_celsius", gpu="1")
                            is not None else None)(_scrape(mport)), 15, "GPU gauges")
    assert _value(m, "gns_run_status", status="ready") == 1
    assert _value(m, "gns_run_status", status="starting") == 0
    assert _value(m, "gns_run_info", profile="good") == 1
    assert _value(m, "gns_runs_started_total", profile="good", trigger="request") == 1
    for p in STARTUP:
        assert _value(m, "gns_phase_duration_seconds_count", phase=p) == 1, p
        assert _value(m, "gns_last_phase_duration_seconds", phase=p) is not None
    for g in ("0", "1"):
        for name in ("gns_gpu_utilization_percent", "gns_gpu_memory_used_bytes",
                     "gns_gpu_memory_total_bytes", "gns_gpu_power_watts"):
            assert _value(m, name, gpu=g) is not None, (name, g)
    assert _value(m, "gns_protocol_connections_total") >= 1
    assert _value(m, "gns_protocol_clients") is not None
    assert _value(m, "gns_run_log_error") == 0

    res = d.ctl("switch", "oom", "--wait", "--timeout", "60", "--json")
    assert res.returncode == 1, res.stdout + res.stderr
    m = _scrape(mport)
    assert _value(m, "gns_verdicts_total", status="crashed", cause="cuda_oom",
                  phase="weight_loading") == 1
    assert _value(m, "gns_run_status", status="crashed") == 1
    assert _value(m, "gns_run_info", profile="oom") == 1
    assert _value(m, "gns_runs_started_total", profile="oom", trigger="request") == 1
    assert _value(m, "gns_phase_duration_seconds_count", phase="launch") == 2
    assert _value(m, "gns_daemon_process_resident_memory_bytes") > 0


# Makes a queue in /dev/shm as shm_open does (a file there, mapped shared and writable), then
# waits: killed with SIGKILL, it cannot unlink it.
SHM_MAKER = """\
import mmap, os, sys, time
fd = os.open("/dev/shm/" + sys.argv[1], os.O_RDWR | os.O_CREAT, 0o600)
os.ftruncate(fd, 1 << 20)
m = mmap.mmap(fd, 1 << 20, mmap.MAP_SHARED)
print("mapped", flush=True)
time.sleep(600)
"""


def test_shared_memory_of_a_run_that_died_unwatched_is_removed_at_restart(
        workdir: Path, make_daemon) -> None:
    """The daemon SIGKILLed, then its run killed too while nothing watched: the next daemon
    removes the shared memory the run had made, from what the first one recorded."""
    name = f"gns-{os.urandom(5).hex()}-queue"
    leftover = Path("/dev/shm") / name
    script = workdir / "shm_maker.py"
    script.write_text(SHM_MAKER)
    write_profile(workdir, "maker", f'engine = "command"\n[launch]\ncommand = '
                  f'["{sys.executable}", "{script}", "{name}"]\nport = {free_port()}\n'
                  '[timeouts]\nsilence = 60\n')
    try:
        first = make_daemon()
        assert first.ctl("switch", "maker", "--json").returncode == 0
        run = first.wait_run(lambda r: r["pid"] is not None, 20, "the run's process")
        record = first.state / "runs" / str(run["id"]) / "shm.json"
        wait_until(lambda: record.exists() and name in record.read_text(), 20,
                   "the daemon to record the run's shared memory")
        first.proc.send_signal(signal.SIGKILL)
        first.proc.wait(10)
        os.killpg(run["pid"], signal.SIGKILL)  # the run dies too, with no daemon to see it
        wait_until(lambda: first.run_processes() == {}, 15, "the run's processes to be gone")
        assert leftover.exists()  # nothing removed it: that is what the next daemon is for

        second = _restart_daemon(make_daemon)
        assert not leftover.exists()
        old = {r["id"]: r for r in second.ctl_json("history")["runs"]}[run["id"]]
        assert old["status"] == "stopped"
        assert any("had no live process left; removed 1 shared-memory file(s)" in e
                   and name in e for e in old["evidence"]), old["evidence"]
    finally:
        leftover.unlink(missing_ok=True)
