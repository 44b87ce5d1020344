"""``make demo ARGS=--no-tui``, as a person watches it: the baseline's launch is shown as it
happens, the baseline is measured before the hanging profile starts, and the brief compares the
fallback with it ("vs baseline" filled in)."""

from __future__ import annotations

import os
import queue
import re
import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
pytestmark = pytest.mark.e2e


class Lines:
    """The demo's stdout, line by line, read on a thread."""

    def __init__(self, proc: subprocess.Popen[str]) -> None:
        self.seen: list[str] = []
        self._q: queue.Queue[str | None] = queue.Queue()
        self.thread = threading.Thread(target=self._read, args=(proc,), daemon=True)
        self.thread.start()

    def _read(self, proc: subprocess.Popen[str]) -> None:
        assert proc.stdout is not None
        for line in proc.stdout:
            self._q.put(line.rstrip("\n"))
        self._q.put(None)

    def wait_for(self, pattern: str, timeout: float) -> str:
        deadline = time.monotonic() + timeout
        while True:
            for line in self.seen:
                if re.search(pattern, line):
                    return line
            left = deadline - time.monotonic()
            if left <= 0:
                break
            try:
                line = self._q.get(timeout=left)
            except queue.Empty:
                break
            if line is None:
                break
            self.seen.append(line)
        raise AssertionError(f"{pattern!r} never came; the demo said:\n" + "\n".join(self.seen))

    def index(self, pattern: str) -> int:
        return next(i for i, ln in enumerate(self.seen) if re.search(pattern, ln))


def test_the_demo_shows_the_baseline_launch_measures_it_and_compares_with_it() -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, str(REPO / "scripts" / "demo.py"), "--no-tui"],
                            cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    out = Lines(proc)
    try:
        first = out.wait_for(r"^daemon pid \d+, socket ", 30)
        sock = re.search(r"socket (\S+),", first).group(1)  # type: ignore[union-attr]
        # The launch as it happens, not after the baseline is up.
        out.wait_for(r"run #1 demo-baseline: starting / launch", 30)
        out.wait_for(r"run #1 demo-baseline: ready", 60)
        out.wait_for(r"demo: baseline measured: [\d.]+ tok/s", 60)
        out.wait_for(r"run #2 demo-fewchan-fusion", 30)
        assert out.index(r"starting / launch") < out.index(r"run #1 demo-baseline: ready")
        assert out.index(r"baseline measured") < out.index(r"run #2 demo-fewchan-fusion")
        out.wait_for(r"serving demo-fewchan-fusion \+ nccl_fewchan", 120)
        # The fallback's own benchmark follows its ready; the brief then compares the two.
        deadline = time.monotonic() + 60
        rows: list[str] = []
        while not rows and time.monotonic() < deadline:
            brief = subprocess.run([sys.executable, "-m", "supervisor.cli.ctl", "--socket",
                                    sock, "brief"], cwd=REPO, capture_output=True, text=True,
                                   timeout=30)
            rows = [ln for ln in brief.stdout.splitlines()
                    if ln.startswith("| demo-fewchan-fusion | nccl_fewchan |")]
            time.sleep(0.5)
        assert rows, f"no benchmark row for the fallback:\n{brief.stdout}"
        assert re.search(r"\| [\d.]+× demo-baseline \|$", rows[0]), rows[0]
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)  # the demo stops its daemon on SIGTERM
            try:
                proc.wait(40)
            except subprocess.TimeoutExpired:
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait(5)
        out.thread.join(10)  # the pipe's end: then it can be closed
        assert proc.stdout is not None
        proc.stdout.close()
