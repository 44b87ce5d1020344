"""End-to-end: the real daemon, real emulator processes, the real socket and supervisor-ctl."""

from __future__ import annotations

import json
import os
import signal
import socket
import threading
import time
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import emulator_profile, free_port, wait_until

pytestmark = pytest.mark.e2e


def test_profile_becomes_ready_with_phase_timings(workdir: Path, make_daemon) -> None:
    port = free_port()
    write_profile(workdir, "good", emulator_profile("good", port=port))
    d = make_daemon()
    res = d.ctl("switch", "good", "--wait", "--timeout", "60", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    out = json.loads(res.stdout)
    assert out["ok"] is True and out["requested"] == "good"
    run = d.run()
    assert run["status"] == "ready" and run["phase"] in ("ready", "serving")
    phases = [p["phase"] for p in run["phases"]]
    assert phases[:6] == ["launch", "weight_loading", "kv_cache_alloc", "cuda_graph_capture",
                          "warmup", "ready"]
    # The server really answers.
    with socket.create_connection(("127.0.0.1", port), timeout=5) as s:
        s.sendall(b"GET /health HTTP/1.0\r\n\r\n")
        assert b" 200 " in s.recv(100)
    hist = d.ctl_json("history")["runs"]
    assert hist[-1]["id"] == run["id"] and hist[-1]["status"] == "ready"
    assert all(p["duration"] is not None for p in hist[-1]["phases"][:5])
    res = d.ctl("logs", "-n", "500", "--json")
    lines = [json.loads(x) for x in res.stdout.splitlines()]
    assert {x["run_id"] for x in lines} == {run["id"]}
    text = [x["line"] for x in lines]
    assert any("The server is fired up and ready to roll!" in t for t in text)
    assert any("Load weight begin" in t for t in text)


def test_crash_in_weight_loading_is_classified(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "oom", emulator_profile(
        "oom", port=free_port(), fault="crash:weight_loading:cuda_oom"))
    d = make_daemon()
    res = d.ctl("switch", "oom", "--wait", "--timeout", "60", "--json")
    assert res.returncode == 1, res.stdout + res.stderr
    out = json.loads(res.stdout)
    assert out["ok"] is False
    v = out["verdict"]
    assert v["status"] == "crashed" and v["phase"] == "weight_loading"
    assert v["cause"] == "cuda_oom"
    assert any("out of memory" in e.lower() for e in v["evidence"])
    run = d.run()
    assert run["exit_code"] == -9  # SGLang SIGKILLs itself after a child fails
    items = d.status()["checklist"]
    assert any("root error" in i["title"] and i["status"] == "done" for i in items)
    assert d.run_processes() == {}


def test_switch_never_runs_two_servers(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "a", emulator_profile("a", port=free_port()))
    write_profile(workdir, "b", emulator_profile("b", port=free_port()))
    d = make_daemon()
    d.ctl("switch", "a", "--wait", "--timeout", "60", check=True)
    seen_together = []
    stop = threading.Event()

    def watch() -> None:
        while not stop.is_set():
            tokens = set(d.run_processes().values())
            if len(tokens) > 1:
                seen_together.append(tokens)
            time.sleep(0.01)

    t = threading.Thread(target=watch)
    t.start()
    try:
        d.ctl("switch", "b", "--wait", "--timeout", "60", check=True)
        d.ctl("switch", "a", "--wait", "--timeout", "60", check=True)
    finally:
        stop.set()
        t.join()
    assert not seen_together, f"two runs alive at once: {seen_together[:3]}"
    runs = d.ctl_json("history")["runs"]
    assert [r["profile"] for r in runs[-3:]] == ["a", "b", "a"]
    assert [r["status"] for r in runs[-3:]] == ["stopped", "stopped", "ready"]
    for prev, nxt in zip(runs[-3:], runs[-2:]):
        assert prev["ended"] <= nxt["started"]


def test_stop_leaves_nothing_even_with_leaked_grandchildren(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "leaky", emulator_profile("leaky", port=free_port(), fault="leak"))
    d = make_daemon()
    d.ctl("switch", "leaky", "--wait", "--timeout", "60", check=True)
    run = d.run()
    token_pids = d.run_processes()
    sids = {os.getsid(p) for p in token_pids if _alive(p)}
    assert len(sids) >= 2, "the leak fault should leave grandchildren in their own session"
    t0 = time.monotonic()
    res = d.ctl_json("stop")
    took = time.monotonic() - t0
    assert res["status"] == "stopped" and res["leftovers"] == []
    assert d.run_processes() == {}
    assert took < 2 + 5  # stop_grace + margin for a loaded machine
    assert d.run()["id"] == run["id"]


def _alive(pid: int) -> bool:
    try:
        os.kill(pid, 0)
        return True
    except OSError:
        return False


def test_status_answers_while_a_client_never_reads_a_flood(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "flood", emulator_profile("flood", port=free_port(),
                                                     fault="flood:20000"))
    d = make_daemon()
    d.ctl("switch", "flood", "--wait", "--timeout", "60", check=True)
    lazy = socket.socket(socket.AF_UNIX)
    lazy.connect(str(d.sock))
    lazy.sendall(b'{"id":1,"cmd":"subscribe","args":{"topics":["log"]}}\n')
    try:
        # the flood piles up behind the client that never reads, until output is skipped
        wait_until(lambda: d.status()["daemon"]["protocol"]["log_bytes_skipped"] > 0, 30,
                   "log output skipped for the client that never reads")
        for _ in range(5):
            t0 = time.monotonic()
            st = d.status()
            assert st["run"]["status"] == "ready"
            assert time.monotonic() - t0 < 10
        # bounded: what it never read was not even built into events for it
        assert st["daemon"]["protocol"]["log_bytes_skipped"] > 0
        # the daemon's own share of each round trip, from read to reply
        handled = st["daemon"]["protocol"]["handle_ms"]
        assert handled["n"] >= 5 and 0 < handled["p50"] <= handled["p99"] < 10_000
        assert d.ctl("logs", "-n", "1").stdout.strip()
    finally:
        lazy.close()
    assert d.proc.poll() is None


def test_malformed_and_oversize_messages_get_errors(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    d = make_daemon()
    s = socket.socket(socket.AF_UNIX)
    s.settimeout(10)
    s.connect(str(d.sock))
    f = s.makefile("rb")
    hello = json.loads(f.readline())
    assert hello["hello"] == "gpu-node-supervisor" and hello["protocol"] == 1
    bad = [b"not json\n", b"[1,2,3]\n", b'{"cmd": 5}\n', b'{"id": 1, "cmd": "nope"}\n',
           b'{"id": 2, "cmd": "show", "args": {"profile": 7}}\n',
           b'{"id": 3, "cmd": "history", "args": {"n": "x"}}\n',
           b"\xff\xfe\x00garbage\n", b"x" * (2 << 20) + b"\n"]
    for msg in bad:
        s.sendall(msg)
        reply = json.loads(f.readline())
        assert reply["ok"] is False and reply["error"]["code"] in (
            "bad_json", "bad_request", "unknown_command", "too_large"), reply
    s.sendall(b'{"id": 9, "cmd": "ping"}\n')
    assert json.loads(f.readline())["result"]["pong"] is True
    s.close()
    assert d.status()["daemon"]["pid"] == d.proc.pid


def test_bad_profile_refused_and_running_server_untouched(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    d = make_daemon()
    d.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
    run = d.run()
    bad = write_profile(workdir, "bad", 'engine = "sglang"\n[launch]\nport = "abc"\n')
    val = d.ctl("validate", str(bad), "--json")
    assert val.returncode == 1
    errs = json.loads(val.stdout)["errors"]
    assert any("bad.toml:3" in e and "launch.port" in e for e in errs), errs
    os.kill(d.proc.pid, signal.SIGHUP)
    wait_until(lambda: any("bad.toml" in e for e in d.ctl_json("profiles")["errors"]), 20,
               "the reload to report bad.toml")
    res = d.ctl("switch", "bad", "--json")
    assert res.returncode == 1
    assert "bad.toml" in res.stdout + res.stderr
    after = d.run()
    assert after["id"] == run["id"] and after["status"] == "ready" and after["pid"] == run["pid"]


def test_sigterm_stops_the_server_then_exits(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    d = make_daemon()
    d.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
    assert d.run_processes()
    assert d.stop() == 0
    assert d.run_processes() == {}
    assert not d.sock.exists()


def test_sd_notify_ready_status_watchdog_reloading_stopping(workdir: Path,
                                                            make_daemon) -> None:
    notify = workdir / "notify"
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(str(notify))
    sock.settimeout(0.2)
    seen: list[str] = []
    done = threading.Event()

    def collect() -> None:  # read as promptly as systemd does
        while not done.is_set():
            try:
                seen.append(sock.recv(4096).decode())
            except TimeoutError:
                continue

    reader = threading.Thread(target=collect)
    reader.start()

    def wait_for(pred, what: str) -> None:
        deadline = time.monotonic() + 30
        while not any(pred(m) for m in list(seen)):
            assert time.monotonic() < deadline, f"no {what}; got {seen[-5:]}"
            time.sleep(0.05)

    try:
        write_profile(workdir, "good", emulator_profile("good", port=free_port()))
        d = make_daemon(env={"NOTIFY_SOCKET": str(notify), "WATCHDOG_USEC": "400000"})
        wait_for(lambda m: m.startswith("READY=1"), "READY=1")
        d.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
        wait_for(lambda m: "STATUS=good: ready" in m, "STATUS with the ready profile")
        assert any(m.startswith("STATUS=good: starting") for m in seen)
        wait_for(lambda m: m == "WATCHDOG=1", "WATCHDOG=1 from the main loop")
        d.proc.send_signal(signal.SIGHUP)
        wait_for(lambda m: m.startswith("RELOADING=1\nMONOTONIC_USEC="), "RELOADING=1")
        d.proc.send_signal(signal.SIGTERM)
        wait_for(lambda m: m == "STOPPING=1", "STOPPING=1")
        assert d.proc.wait(30) == 0
    finally:
        done.set()
        reader.join()
        sock.close()



def test_profiles_show_and_json_flag_positions(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "base", emulator_profile("base", port=free_port()))
    write_profile(workdir, "child", emulator_profile(
        "child", port=free_port(), extends="base",
        extra='[[changes]]\nname = "fewchan"\nenv = { NCCL_MAX_NCHANNELS = "2" }\n'))
    d = make_daemon()
    before = d.ctl("--json", "profiles")
    after = d.ctl("profiles", "--json")
    assert before.returncode == after.returncode == 0
    assert json.loads(before.stdout) == json.loads(after.stdout)
    names = {p["name"] for p in json.loads(after.stdout)["profiles"]}
    assert names == {"base", "child"}
    shown = d.ctl_json("show", "child")
    assert shown["parent"] == "base" and shown["profile"]["changes"] == ["fewchan"]
    keys = {x["key"] for x in shown["diff"]}
    assert any("NCCL_MAX_NCHANNELS" in k for k in keys)
    assert "--model-path" in shown["profile"]["argv"]
    missing = d.ctl("show", "nope", "--json")
    assert missing.returncode == 1 and "not_found" in missing.stderr + missing.stdout
    assert d.ctl("frobnicate").returncode == 2
    assert d.ctl("--socket", str(workdir / "nothing.sock"), "status").returncode == 2


def test_logs_follow_gets_every_line_in_order(workdir: Path, make_daemon) -> None:
    """Own pipe -> \\r/\\n split -> batched, spread fan-out -> `supervisor-ctl logs -f`."""
    import subprocess
    import sys

    from .harness import REPO, test_env

    n = 30_000
    script = workdir / "count.py"
    script.write_text(
        "import sys, time\n"
        "time.sleep(1.0)\n"
        f"for i in range({n}):\n"
        "    sys.stdout.write(f'n={i}' + ('\\r' if i % 7 == 0 else '\\n'))\n"
        "sys.stdout.write('done\\n'); sys.stdout.flush(); time.sleep(60)\n")
    write_profile(workdir, "count", f'description = "numbered output"\nengine = "command"\n'
                  f'[launch]\ncommand = ["{{python}}", "{script}"]\nport = {free_port()}\n'
                  f'[timeouts]\nsilence = 120\n')
    d = make_daemon()
    follow = subprocess.Popen([sys.executable, "-m", "supervisor.cli.ctl", "--socket",
                               str(d.sock), "logs", "-f", "--json"], stdout=subprocess.PIPE,
                              text=True, cwd=REPO, env=test_env())
    got: list[str] = []
    finished = threading.Event()

    def read() -> None:
        assert follow.stdout is not None
        for raw in follow.stdout:
            line = json.loads(raw)["line"]
            got.append(line)
            if line == "done":
                finished.set()
                return
    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    try:
        deadline = time.monotonic() + 20
        while d.status()["daemon"]["protocol"]["clients"] < 2:  # the follower, and status
            assert time.monotonic() < deadline, "supervisor-ctl logs -f did not connect"
            time.sleep(0.05)
        d.ctl("switch", "count", check=True)
        assert finished.wait(60), f"got {len(got)} lines, last {got[-3:]}"
    finally:
        follow.terminate()
        follow.wait(10)
        reader.join(10)
        assert follow.stdout is not None
        follow.stdout.close()
    numbers = [int(x[2:]) for x in got if x.startswith("n=")]
    assert numbers == list(range(n)), "every line once, in order (\\r ends a line too)"
    raw = Path(d.run()["log_path"]).read_bytes()
    assert b"n=0\rn=1\n" in raw  # the file keeps the bytes as written


def test_sigterm_does_not_wait_out_stop_grace_when_the_server_dies_at_once(
        workdir: Path, make_daemon) -> None:
    """Shutdown cancels the run's supervision mid-wait; the reaper must still learn of the
    exit at once instead of waiting the whole stop_grace (30 s by default) for it."""
    script = workdir / "idle.py"
    script.write_text("import time\nprint('up', flush=True)\ntime.sleep(600)\n")
    write_profile(workdir, "idle", f'engine = "command"\n[launch]\n'
                  f'command = ["{{python}}", "{script}"]\nport = {free_port()}\n')
    d = make_daemon()
    d.ctl("switch", "idle", check=True)
    deadline = time.monotonic() + 20
    while not (d.run() or {}).get("pid"):
        assert time.monotonic() < deadline, "the run did not start"
        time.sleep(0.05)
    assert d.proc is not None
    t0 = time.monotonic()
    d.proc.send_signal(signal.SIGTERM)
    d.proc.wait(20)
    took = time.monotonic() - t0
    assert d.proc.returncode == 0
    assert took < 10, f"shutdown took {took:.1f} s (stop_grace is 30 s)"
    assert d.run_processes() == {}
