"""``make demo ARGS=--no-tui``, as a person watches it: the seed's campaign. The baseline's
launch is shown as it happens and it is measured (a mean over 3 repetitions) before the hanging
profile starts; isolation serves NCCL alone; the campaign branches to EAGLE-3 and the demo ends
on the campaign's report (tok/s with their spread vs the baseline, the culprit, the branches)."""

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


def test_the_demo_runs_the_seeds_campaign_and_ends_on_its_report() -> None:
    env = dict(os.environ, PYTHONUNBUFFERED="1")
    proc = subprocess.Popen([sys.executable, str(REPO / "scripts" / "demo.py"), "--no-tui"],
                            cwd=REPO, env=env, stdout=subprocess.PIPE,
                            stderr=subprocess.STDOUT, text=True, start_new_session=True)
    out = Lines(proc)
    try:
        out.wait_for(r"^daemon pid \d+, socket ", 30)
        # The launch as it happens, not after the baseline is up.
        out.wait_for(r"run #1 demo-baseline: starting / launch", 30)
        out.wait_for(r"run #1 demo-baseline: ready", 60)
        # The campaign's steps, as the daemon's notes in the event stream.
        measured = (r"campaign seed: running, at fewchan_fusion: baseline demo-baseline "
                    r"measured: [\d.]+ \+/- [\d.]+ tok/s \(3 samples\)")
        out.wait_for(measured, 60)
        out.wait_for(r"run #2 demo-fewchan-fusion", 30)
        assert out.index(r"starting / launch") < out.index(r"run #1 demo-baseline: ready")
        assert out.index(measured) < out.index(r"run #2 demo-fewchan-fusion")
        out.wait_for(r"serving demo-fewchan-fusion \+ nccl_fewchan", 120)
        out.wait_for(r"campaign seed: running, at nccl_alone: fewchan_fusion: hung in "
                     r"cuda_graph_capture \(collective_hang\); next: nccl_alone", 60)
        out.wait_for(r"campaign seed: running, at eagle3_fewchan: nccl_alone: ready; next: "
                     r"eagle3_fewchan", 60)
        out.wait_for(r"run #\d+ demo-eagle3-fewchan \+ nccl_fewchan: ready", 60)
        # EAGLE-3 misses its criterion: the best that passed (NCCL alone) is launched again
        out.wait_for(r"run #\d+ demo-fewchan-fusion \+ nccl_fewchan: ready", 60)
        # It ends on the report: what a person reads last.
        out.wait_for(r"^# Campaign seed: completed$", 90)
        out.wait_for(r"^## Log$", 30)
        assert proc.wait(60) == 0
        out.thread.join(10)
        report = out.seen[out.index(r"^# Campaign seed: completed$"):]
        base = next(ln for ln in report if ln.startswith("Baseline demo-baseline"))
        assert re.search(r": [\d.]+ \+/- [\d.]+ \([\d.]+-[\d.]+\) tok/s", base), base
        assert "3 samples" in base and "throttling: none" in base
        rows = {ln.split(" | ")[1]: ln for ln in report if re.match(r"^\| \d \| ", ln)}
        assert list(rows) == ["fewchan_fusion", "nccl_alone", "eagle3_fewchan"]
        assert "| flashinfer_fusion |" in rows["fewchan_fusion"]
        assert "within the noise" in rows["nccl_alone"]   # 82 vs 82: no winner declared
        assert re.search(r"\| [\d.]+ \+/- [\d.]+ \([\d.-]+\) \(0\.\d\dx\) \|",
                         rows["eagle3_fewchan"]), rows["eagle3_fewchan"]
        assert re.search(r"^Serving at the end: demo-fewchan-fusion \+ nccl_fewchan \(run #\d+\), "
                         r"experiment nccl_alone: the best measured, launched again after the "
                         r"last experiment$", "\n".join(report), re.M), report
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
