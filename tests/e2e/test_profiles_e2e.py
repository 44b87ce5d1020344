"""Profiles against the real daemon and the real supervisor-ctl: validate of hostile paths,
broken files in `profiles`, a broken edit of a profile in force, a deep extends chain under
SIGHUP."""

from __future__ import annotations

import json
import os
import signal
import socket
from pathlib import Path
from typing import Any

import pytest

from .conftest import write_profile
from .harness import Daemon, emulator_profile, free_port, wait_until

pytestmark = pytest.mark.e2e

IO_TIMEOUT = 20.0
COMMAND = 'engine = "command"\n[launch]\ncommand = ["sleep", "600"]\nport = {port}\n'


def ask(sock: Path, cmd: str, **args: Any) -> socket.socket:
    """Connect, read the hello, send one request; the reply is read by ``reply``."""
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.settimeout(IO_TIMEOUT)
    s.connect(str(sock))
    s.makefile("rb").readline()
    s.sendall(json.dumps({"id": 1, "cmd": cmd, "args": args}).encode() + b"\n")
    return s


def reply(s: socket.socket) -> dict[str, Any]:
    with s, s.makefile("rb") as f:
        while True:
            line = f.readline()
            assert line, "the daemon closed the connection without a reply"
            msg = json.loads(line)
            if msg.get("id") == 1:
                return msg


def proc_status(pid: int, key: str) -> int:
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(f"{key}:"):
            return int(line.split()[1])
    raise AssertionError(f"no {key} in /proc/{pid}/status")


def rows(d: Daemon) -> dict[str, dict[str, Any]]:
    return {r["name"]: r for r in d.ctl_json("profiles")["profiles"]}


def test_validate_of_a_fifo_or_dev_zero_neither_blocks_nor_bloats(workdir: Path,
                                                                   make_daemon) -> None:
    write_profile(workdir, "a", COMMAND.format(port=free_port()))
    d = make_daemon()
    evil = workdir / "evil"
    evil.mkdir()
    os.mkfifo(evil / "pipe")
    (evil / "pipe.toml").symlink_to(evil / "pipe")
    (evil / "zero.toml").symlink_to("/dev/zero")
    assert d.proc is not None
    rss_before = proc_status(d.proc.pid, "VmRSS")
    # Many read-only clients at once: every one is answered, none leaves a thread blocked.
    pending = [ask(d.sock, "validate", path=str(evil)) for _ in range(20)]
    pending += [ask(d.sock, "validate", path=str(evil / "zero.toml"))]
    answers = [reply(s) for s in pending]
    for msg in answers:
        assert msg["ok"] is True and msg["result"]["ok"] is False, msg
    folder = answers[0]["result"]["errors"]
    assert len(folder) == 2, folder
    assert any("pipe.toml" in e and "not a regular file (a FIFO" in e for e in folder), folder
    assert any("zero.toml" in e and "a character device" in e for e in folder), folder
    assert "a character device" in answers[-1]["result"]["errors"][0]
    grown_mb = (proc_status(d.proc.pid, "VmRSS") - rss_before) / 1024
    assert grown_mb < 64, f"the daemon's RSS grew {grown_mb:.0f} MB"
    assert d.status()["daemon"]["pid"] == d.proc.pid  # still answering
    # The client-side validate (no daemon) reads the same way.
    res = d.ctl("validate", str(evil), timeout=IO_TIMEOUT)
    assert res.returncode == 1 and "FIFO" in res.stdout and "character device" in res.stdout


def test_profiles_lists_a_file_with_a_toml_syntax_error(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", COMMAND.format(port=free_port()))
    bad = write_profile(workdir, "bad", 'description = "x"\n[launch]\nport = = 3\n')
    d = make_daemon()
    res = d.ctl("profiles")
    assert res.returncode == 0, res.stdout + res.stderr
    lines = res.stdout.splitlines()
    assert lines[0].startswith("bad ") and lines[2].startswith("good "), res.stdout
    assert lines[1].startswith(f"  INVALID, cannot be launched: {bad}:3: TOML syntax error")
    row = rows(d)["bad"]
    assert row["valid"] is False and row["error"].startswith(f"{bad}:3: ")


def test_a_broken_edit_is_shown_and_switch_says_it_launched_the_last_valid_version(
        workdir: Path, make_daemon) -> None:
    port = free_port()
    path = write_profile(workdir, "a", emulator_profile("a", port=port))
    d = make_daemon()
    assert rows(d)["a"]["pending_error"] is None
    broken = emulator_profile("a", port=free_port()).replace("stop_grace = 2", "stop_grace = inf")
    write_profile(workdir, "a", broken)
    line = broken.splitlines().index("stop_grace = inf") + 1
    row = wait_until(lambda: rows(d)["a"]["pending_error"] and rows(d)["a"], 15,
                     "the broken edit to be reported")
    assert row["valid"] is True and row["error"] is None  # the last valid version can launch
    assert row["pending_error"].startswith(f"{path}:{line}: timeouts.stop_grace: ")
    assert row["in_force"].startswith("last valid version, loaded at ")
    human = d.ctl("profiles").stdout
    assert f"  BROKEN EDIT, not in force: {path}:{line}: timeouts.stop_grace" in human, human
    assert "  in force: last valid version, loaded at " in human, human
    shown = d.ctl_json("show", "a")
    assert shown["profile"]["port"] == port and shown["pending"]["error"] == row["pending_error"]
    res = d.ctl("switch", "a", "--wait", "--timeout", "60")
    assert res.returncode == 0, res.stdout + res.stderr
    assert res.stderr.startswith("warning: launched the last valid version of a (loaded at "), \
        res.stderr
    assert f"your edit is broken and not in force: {path}:{line}: " in res.stderr, res.stderr
    assert d.run()["status"] == "ready"
    again = d.ctl_json("switch", "a")
    assert again["warning"] and again["warning"].startswith("launched the last valid version")


def test_a_1100_deep_extends_chain_under_sighup_is_an_error_not_a_crash(workdir: Path,
                                                                         make_daemon) -> None:
    write_profile(workdir, "root", emulator_profile("root", port=free_port()))
    d = make_daemon()
    d.ctl("switch", "root", "--wait", "--timeout", "60", check=True)
    run = d.run()
    names = [f"a{i:04}" for i in range(1100)]  # the leaf sorts first
    for i, name in enumerate(names):
        parent = names[i + 1] if i + 1 < len(names) else "root"
        (workdir / "profiles" / f"{name}.toml").write_text(f'extends = "{parent}"\n')
    assert d.proc is not None
    d.proc.send_signal(signal.SIGHUP)
    errors = wait_until(
        lambda: [e for e in d.ctl_json("profiles")["errors"] if "extends chain too deep" in e],
        60, "the depth error")
    assert len(errors) == 1 and "(33 levels; at most 32)" in errors[0], errors
    assert d.proc.poll() is None, "the daemon died"
    after = d.run()
    assert (after["id"], after["pid"], after["status"]) == (run["id"], run["pid"], "ready")
    d.proc.send_signal(signal.SIGHUP)  # and again, with the chain still there
    assert d.ctl_json("show", names[-32])["profile"]["name"] == names[-32]
    assert d.proc.poll() is None
