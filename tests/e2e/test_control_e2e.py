"""End-to-end: the daemon never loses control of a run, whatever its clients or servers do.

Each test is a reproduction of a way the daemon was once broken from outside: a client that
hangs up mid-switch, a server that ignores SIGTERM, a grandchild that sheds every trace of its
run, a command that opens no port, a working directory that is missing.
"""

from __future__ import annotations

import json
import os
import signal
import socket
import sys
import textwrap
import time
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import emulator_profile, free_port, wait_until

pytestmark = pytest.mark.e2e


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:][:1] != b"Z"


def _command_profile(workdir: Path, name: str, code: str, *, grace: float = 1,
                     silence: float = 30, port: int | None = None) -> None:
    script = workdir / f"{name}.py"
    script.write_text(textwrap.dedent(code))
    write_profile(workdir, name, textwrap.dedent(f"""\
        engine = "command"
        [launch]
        command = ["{sys.executable}", "{script}"]
        port = {port or free_port()}
        [timeouts]
        silence = {silence}
        stop_grace = {grace}
        """))


def _hang_up_mid_switch(sock: Path, profile: str, delay: float) -> None:
    with socket.socket(socket.AF_UNIX, socket.SOCK_STREAM) as s:
        s.settimeout(5)
        s.connect(os.fspath(sock))
        s.recv(4096)  # the hello
        s.sendall(json.dumps({"id": 1, "cmd": "switch", "args": {"profile": profile}})
                  .encode() + b"\n")
        time.sleep(delay)


def test_hang_up_during_switch_never_wedges_the_daemon(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "e1", emulator_profile("e1", port=free_port(), scale=0.2))
    d = make_daemon()
    for delay in (0.0, 0.002, 0.005, 0.0, 0.05):
        _hang_up_mid_switch(d.sock, "e1", delay)
    # Whatever the hang-ups left, it is a supervised run: it has a process, or it is over.
    d.wait_run(lambda r: r["pid"] is not None and r["status"] in ("starting", "ready"),
               30, "a run of the switches with a process")
    res = d.ctl("stop", "--json", timeout=30)
    assert res.returncode == 0, res.stdout + res.stderr
    assert json.loads(res.stdout)["status"] == "stopped"
    assert not d.run_processes()
    res = d.ctl("switch", "e1", "--wait", "--timeout", "60", "--json", timeout=90)
    assert res.returncode == 0, res.stdout + res.stderr
    assert d.stop(timeout=20) == 0  # the first SIGTERM ends it


def test_stop_kills_a_main_process_that_ignores_sigterm(workdir: Path, make_daemon) -> None:
    _command_profile(workdir, "stubborn", """\
        import signal, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        print("up", flush=True)
        time.sleep(1000)
        """, grace=1)
    d = make_daemon()
    d.ctl("switch", "stubborn", check=True)
    # No port is ever opened: a command is ready after a few seconds of running.
    run = d.wait_run(lambda r: r["status"] == "ready", 20, "the command to be ready")
    events = d.events(n=50)
    assert any("no port open" in ev["data"].get("how", "") for ev in events
               if ev["kind"] == "ready"), f"ready for the wrong reason: {events}"
    t0 = time.monotonic()
    res = d.ctl("stop", "--json", timeout=30)
    took = time.monotonic() - t0
    assert res.returncode == 0, res.stdout + res.stderr
    out = json.loads(res.stdout)
    assert out["status"] == "stopped" and out["leftovers"] == []
    assert not _alive(run["pid"])
    assert took < 1 + 5, f"stop took {took:.1f} s with stop_grace = 1"


def test_a_hung_verdict_kills_a_server_that_ignores_sigterm(workdir: Path,
                                                            make_daemon) -> None:
    port = free_port()
    # Listens (so it is never "refused"), never answers, ignores SIGTERM, prints nothing.
    _command_profile(workdir, "mute", f"""\
        import signal, socket, time
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", {port}))
        s.listen(64)
        time.sleep(1000)
        """, grace=1, silence=2, port=port)
    d = make_daemon()
    res = d.ctl("switch", "mute", "--wait", "--timeout", "60", "--json", timeout=90)
    assert res.returncode == 1, res.stdout + res.stderr
    out = json.loads(res.stdout)
    assert out["verdict"]["status"] == "hung", out["verdict"]
    pid = out["run"]["pid"]
    wait_until(lambda: not _alive(pid), 10, "the hung server to be killed")
    assert not d.run_processes()


ESCAPE = """\
    import os, signal, sys, time
    pidfile = {pidfile!r}
    if os.fork() == 0:                      # child
        if os.fork() == 0:                  # grandchild: sheds group, token and parent
            os.setsid()
            code = ("import os, signal, time\\n"
                    "signal.signal(signal.SIGTERM, signal.SIG_IGN)\\n"
                    f"open({{pidfile!r}}, 'w').write(str(os.getpid()))\\n"
                    "time.sleep(1000)\\n")
            os.execve(sys.executable, [sys.executable, "-c", code], {{}})
        os._exit(0)                         # the child leaves: the grandchild is an orphan
    print("started", flush=True)
    time.sleep(1000)
    """


@pytest.mark.parametrize("tracking", ["default", "tree"])
def test_a_grandchild_that_sheds_group_token_and_parent_is_killed(
        workdir: Path, make_daemon, tracking: str) -> None:
    pidfile = workdir / f"escapee-{tracking}.pid"
    _command_profile(workdir, "escape", ESCAPE.format(pidfile=str(pidfile)), grace=1)
    env = {"GNS_PROCESS_TRACKING": "tree"} if tracking == "tree" else {}
    d = make_daemon(env=env)
    mech = d.status()["daemon"]["tracking"]
    assert mech in ("cgroup", "process-tree")
    if tracking == "tree":
        assert mech == "process-tree"
    d.ctl("switch", "escape", check=True)
    wait_until(lambda: pidfile.exists() and pidfile.read_text().strip(), 20,
               "the escapee to start")
    escapee = int(pidfile.read_text())
    try:
        assert d.run()["tracking"] == mech
        res = d.ctl("stop", "--json", timeout=30)
        assert res.returncode == 0, res.stdout + res.stderr
        assert json.loads(res.stdout)["leftovers"] == []
        assert not _alive(escapee), f"escapee {escapee} outlived stop ({mech})"
    finally:
        if _alive(escapee):
            os.kill(escapee, signal.SIGKILL)


def test_missing_working_directory_is_named(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "nowhere", textwrap.dedent(f"""\
        engine = "command"
        [launch]
        command = ["python3", "-c", "print(1)"]
        port = {free_port()}
        cwd = "{workdir}/no-such-folder"
        """))
    d = make_daemon()
    res = d.ctl("switch", "nowhere", "--wait", "--timeout", "30", "--json")
    assert res.returncode == 1, res.stdout + res.stderr
    v = json.loads(res.stdout)["verdict"]
    assert v["cause"] != "import_error"
    assert any("no-such-folder" in e and "does not exist" in e for e in v["evidence"]), v


def test_a_server_that_history_lost_is_found_and_stopped_after_a_restart(
        workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    first = make_daemon()
    first.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
    first.proc.send_signal(signal.SIGKILL)
    first.proc.wait(10)
    assert first.run_processes(), "the server outlives its killed daemon"
    # History is gone (a damaged disk, an operator who moved the file aside).
    for f in (workdir / "state").glob("history.sqlite3*"):
        f.unlink()
    second = make_daemon()
    assert first.run_processes() == {}, "recovery stopped the server nobody remembered"
    problems = second.status()["daemon"]["problems"]
    assert any("history does not list" in p for p in problems), problems
    second.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
    assert len(set(second.run_processes().values())) == 1
