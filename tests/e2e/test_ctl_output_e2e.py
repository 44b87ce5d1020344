"""What a person reads from supervisor-ctl: the real ctl against the real daemon.

Human output is text (never a Python repr), names a trial by its profile and every change,
keeps quiet when its reader goes away, and never lets a server drive the terminal.
"""

from __future__ import annotations

import os
import pty
import re
import select
import signal
import subprocess
import sys
import textwrap
import threading
import time
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import REPO, Daemon, emulator_profile, free_port, wait_until
from .harness import test_env as ctl_env

pytestmark = pytest.mark.e2e

# What a Python repr looks like in a line of text.
REPR = re.compile(r"\bNone\b|\['|\[\]|\{'|': ")
CHANGES = ("alpha_nccl_fewer_channels", "beta_flashinfer_allreduce_fusion")


def trial_profiles(workdir: Path) -> None:
    """base; trial = base + two changes (ready); trial-oom = the same, crashing."""
    write_profile(workdir, "base", emulator_profile("base", port=free_port()))
    changes = "".join(f'\n[[changes]]\nname = "{c}"\nenv = {{ MARK_{i} = "1" }}\n'
                      for i, c in enumerate(CHANGES))
    write_profile(workdir, "trial", emulator_profile("trial", port=free_port(),
                                                     extends="base") + changes)
    write_profile(workdir, "trial-oom", emulator_profile(
        "trial-oom", port=free_port(), extends="base",
        fault="crash:weight_loading:cuda_oom") + changes)


def ctl_cmd(sock: Path, *args: str) -> list[str]:
    return [sys.executable, "-m", "supervisor.cli.ctl", "--socket", str(sock), *args]


def no_repr(text: str) -> None:
    bad = [line for line in text.splitlines() if REPR.search(line)]
    assert not bad, "Python reprs in human output:\n" + "\n".join(bad)


def following(d: Daemon, lines: list[str]) -> None:
    """Return once ``events -f`` is subscribed: it shows an item added to the checklist."""
    for _ in range(10):
        d.ctl("checklist", "add", "follower is listening", check=True)
        try:
            wait_until(lambda: any("follower is listening" in ln for ln in lines), 2,
                       "events -f to show the new checklist item")
            return
        except AssertionError:
            continue
    raise AssertionError(f"events -f never showed the checklist item: {lines}")


def test_status_history_show_events_read_as_text(workdir: Path, make_daemon) -> None:
    trial_profiles(workdir)
    d = make_daemon()
    follow = subprocess.Popen(ctl_cmd(d.sock, "events", "-f"), stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True, cwd=REPO, env=ctl_env())
    lines: list[str] = []
    reader = threading.Thread(target=lambda: lines.extend(follow.stdout), daemon=True)
    reader.start()
    try:
        following(d, lines)
        res = d.ctl("switch", "trial-oom", "--wait", "--timeout", "60")
        assert res.returncode == 1, res.stdout + res.stderr
        no_repr(res.stdout)
        res = d.ctl("switch", "trial", "--wait", "--timeout", "60")
        assert res.returncode == 0, res.stdout + res.stderr
        assert f"serving:   trial + {', '.join(CHANGES)} (run " in res.stdout
        no_repr(res.stdout)
    finally:
        follow.send_signal(signal.SIGINT)
        try:
            follow.wait(30)
        finally:  # a follower that outlived its SIGINT fails this test, not the next one
            follow.kill()
            reader.join(10)
            errors = follow.stderr.read()
            follow.stdout.close()
            follow.stderr.close()
    assert not errors
    events = "".join(lines)
    full = f"trial + {', '.join(CHANGES)}"

    # events -f: each run line names the trial with all its changes; the checklist says
    # which item changed instead of repeating a count.
    no_repr(events)
    assert re.search(rf"run #\d+ {re.escape(full)}: ready / ", events), events
    assert re.search(rf"VERDICT run #\d+ trial-oom \+ {CHANGES[0]}, {CHANGES[1]}: crashed in "
                     r"weight_loading, cause cuda_oom", events), events
    checklist = [ln for ln in events.splitlines() if " checklist: " in ln]
    assert any("read the log for the root error" in ln for ln in checklist), events
    counts = [ln for ln in checklist if re.search(r"checklist: \d+ item\(s\)", ln)]
    assert len(counts) <= 2, events
    progress = [ln for ln in events.splitlines() if "weight shards" in ln]
    assert not progress, "progress ticks drown the story:\n" + "\n".join(progress)

    status = d.ctl("status", check=True).stdout
    no_repr(status)
    assert "run:      #" in status and full in status

    history = d.ctl("history", check=True).stdout
    no_repr(history)
    rows = [ln for ln in history.splitlines() if ln.strip()[:1].isdigit()]
    assert rows[-1].endswith(full) or f"{full}  (" in rows[-1], history
    assert f"trial-oom + {', '.join(CHANGES)}" in rows[0], history

    show = d.ctl("show", "trial", check=True).stdout
    no_repr(show)
    assert "  env.MARK_0: (unset) -> 1" in show, show

    gpus = d.ctl("gpus", check=True).stdout
    no_repr(gpus)
    assert gpus.startswith("GPU0 ") and " MiB" in gpus

    # A reload is recorded without a run: its line is text, not "run None reload {...}".
    write_profile(workdir, "extra", emulator_profile("extra", port=free_port()))
    stored = wait_until(lambda: (out := d.ctl("events", "-n", "200").stdout)
                        and "profiles reloaded" in out and out, 20, "the reload event")
    no_repr(stored)
    assert re.search(r"profiles reloaded \(.+\): added extra", stored), stored


@pytest.mark.parametrize("what", [["events", "-f"], ["logs", "-f"]])
def test_a_follower_ends_on_ctrl_c_whenever_it_comes(workdir: Path, make_daemon,
                                                       what: list[str]) -> None:
    """Ctrl-C ends a follower at any moment: at once after it connected, or while it waits
    for the next event (exit 1, as an interrupt anywhere else; nothing on stderr)."""
    d = make_daemon()
    for delay in (0.3, 0.6, 1.0, 1.5, 2.5):
        follow = subprocess.Popen(ctl_cmd(d.sock, *what), stdout=subprocess.DEVNULL,
                                  stderr=subprocess.PIPE, text=True, cwd=REPO, env=ctl_env())
        try:
            time.sleep(delay)  # the moment of the interrupt is what varies
            follow.send_signal(signal.SIGINT)
            _, err = follow.communicate(timeout=15)
        finally:
            follow.kill()
        assert (follow.returncode, err) in ((1, ""), (-signal.SIGINT, "")), (delay, err)


def test_start_of_an_unknown_profile_says_so(workdir: Path, make_daemon) -> None:
    trial_profiles(workdir)
    d = make_daemon()
    d.ctl("switch", "trial", "--wait", "--timeout", "60", check=True)
    res = d.ctl("start", "nosuch")
    assert res.returncode == 1
    assert "conflict" not in res.stderr
    assert "unknown profile 'nosuch'" in res.stderr
    assert "known profiles: base, trial, trial-oom" in res.stderr
    res = d.ctl("start", "trail")
    assert res.returncode == 1
    assert "did you mean 'trial'" in res.stderr, res.stderr
    res = d.ctl("switch", "bse")
    assert res.returncode == 1 and "did you mean 'base'" in res.stderr, res.stderr
    res = d.ctl("show", "trial-om")
    assert res.returncode == 1 and "did you mean 'trial-oom'" in res.stderr, res.stderr
    # Nothing changed: the trial still serves.
    assert d.run()["profile"] == "trial" and d.run()["status"] == "ready"
    # A known profile while a run is up is still a conflict, and says what to do.
    res = d.ctl("start", "base")
    assert res.returncode == 1 and "use switch or stop first" in res.stderr, res.stderr


def test_no_daemon_says_where_it_looked_and_what_to_do(workdir: Path) -> None:
    sock = workdir / "nobody.sock"
    res = subprocess.run(ctl_cmd(sock, "status"), capture_output=True, text=True, cwd=REPO,
                         env=ctl_env(), timeout=30)
    assert res.returncode == 2 and res.stdout == ""
    assert f"cannot reach the daemon at {sock}: No such file or directory" in res.stderr
    assert "is it running?" in res.stderr and "--socket PATH or GNS_SOCKET" in res.stderr


def _closed_pipe() -> int:
    """The write end of a pipe whose reader has gone (like `| head` after its lines)."""
    r, w = os.pipe()
    os.close(r)
    return w


def test_reader_gone_exits_quietly(workdir: Path, make_daemon) -> None:
    trial_profiles(workdir)
    d = make_daemon()
    d.ctl("switch", "base", "--wait", "--timeout", "60", check=True)
    w = _closed_pipe()
    try:
        for args in (["status"], ["history"], ["logs", "-n", "50"], ["logs", "-f"]):
            res = subprocess.run(ctl_cmd(d.sock, *args), stdout=w, stderr=subprocess.PIPE,
                                 text=True, cwd=REPO, env=ctl_env(), timeout=30)
            assert (res.returncode, res.stderr) == (0, ""), args
        # events -f writes when something happens.
        follow = subprocess.Popen(ctl_cmd(d.sock, "events", "-f"), stdout=w,
                                  stderr=subprocess.PIPE, text=True, cwd=REPO, env=ctl_env())
        try:
            d.ctl("restart", check=True)
            _, err = follow.communicate(timeout=30)
        finally:
            follow.kill()
        assert (follow.returncode, err) == (0, "")
    finally:
        os.close(w)


def ctl_on_tty(sock: Path, *args: str, until: bytes | None = None,
               timeout: float = 30) -> bytes:
    """Run ctl with a terminal as stdout; read until it exits (or ``until`` is seen)."""
    master, slave = pty.openpty()
    proc = subprocess.Popen(ctl_cmd(sock, *args), stdin=subprocess.DEVNULL, stdout=slave,
                            stderr=slave, cwd=REPO, env=ctl_env())
    os.close(slave)
    got = b""
    deadline = time.monotonic() + timeout
    try:
        while time.monotonic() < deadline and not (until and until in got):
            ready, _, _ = select.select([master], [], [], 0.2)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                data = os.read(master, 65536)
            except OSError:  # EIO: the child closed the terminal
                break
            if not data:
                break
            got += data
    finally:
        proc.kill()
        proc.wait(10)
        os.close(master)
    assert time.monotonic() < deadline, f"ctl {args} on a terminal: {got!r}"
    return got


def test_terminal_gets_escape_sequences_escaped(workdir: Path, make_daemon) -> None:
    script = workdir / "noisy.py"
    script.write_text(textwrap.dedent("""\
        import sys, time
        sys.stdout.write("title \\x1b]0;owned\\x07 alt \\x1b[?1049h bidi \\u202e end\\n")
        sys.stdout.flush()
        time.sleep(600)
        """))
    write_profile(workdir, "noisy", textwrap.dedent(f"""\
        engine = "command"
        [launch]
        command = ["{{python}}", "{script}"]
        port = {free_port()}
        [timeouts]
        silence = 120
        stop_grace = 2
        """))
    write_profile(workdir, "odd\x1b[2Jname", emulator_profile("odd", port=free_port()))
    d = make_daemon()
    d.ctl("switch", "noisy", check=True)
    wait_until(lambda: "owned" in d.ctl("logs").stdout, 20, "the noisy line in the log")

    shown = r"title \x1b]0;owned\x07 alt \x1b[?1049h bidi \u202e end"
    for args in (["logs"], ["logs", "-f"]):
        out = ctl_on_tty(d.sock, *args, until=b" end")
        assert shown.encode() in out, out
        assert b"\x1b" not in out and "\u202e".encode() not in out, out
    out = ctl_on_tty(d.sock, "profiles")
    assert rb"odd\x1b[2Jname" in out and b"\x1b" not in out, out

    # A pipe gets the bytes as the server wrote them: scripts see the truth.
    piped = d.ctl("logs").stdout
    assert "title \x1b]0;owned\x07 alt \x1b[?1049h bidi \u202e end" in piped
    d.ctl("stop", check=True)
