"""The harness's own judgement of an unanswered request: a daemon that stood still alone fails
the test with what it was doing; a machine that stood still (this process too) is asked again."""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time

import pytest

from .harness import REPO

_CHILD = """
import sys, time
sys.path.insert(0, "tests")
from e2e.harness import HOST_CLOCK
t0 = time.monotonic()
print("ticking", flush=True)
sys.stdin.readline()  # the parent stops and continues this process meanwhile
time.sleep(0.6)       # a tick after the gap
print(f"{HOST_CLOCK.stood_still_since(t0):.2f}", flush=True)
"""


def test_the_host_clock_sees_its_own_process_stand_still() -> None:
    with subprocess.Popen([sys.executable, "-c", _CHILD], cwd=REPO, text=True,
                          stdin=subprocess.PIPE, stdout=subprocess.PIPE) as child:
        try:
            assert child.stdout is not None and child.stdin is not None
            assert child.stdout.readline().strip() == "ticking"
            time.sleep(0.5)
            os.kill(child.pid, signal.SIGSTOP)
            time.sleep(2.5)
            os.kill(child.pid, signal.SIGCONT)
            child.stdin.write("\n")
            child.stdin.flush()
            stood = float(child.stdout.readline())
            assert 2.0 <= stood <= 10, stood
        finally:
            child.kill()


def test_a_daemon_standing_still_alone_fails_with_a_report(make_daemon) -> None:
    d = make_daemon()
    assert d.status()["daemon"]["loop"]["stalls"] == 0
    os.kill(d.proc.pid, signal.SIGSTOP)
    try:
        with pytest.raises(AssertionError) as failed:
            d.request("status", timeout=1.5)
    finally:
        os.kill(d.proc.pid, signal.SIGCONT)
    text = str(failed.value)
    assert "did not answer 'status' within 1.5 s" in text, text
    assert "stood still for 0.0 s" in text and "py-spy dump of the daemon" in text, text
    assert "the daemon's log, last lines" in text and "listening on" in text, text
    assert d.status()["daemon"]["pid"] == d.proc.pid  # and it answers once continued
