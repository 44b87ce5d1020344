"""Stack samples of real processes: spinning in a wait (stuck), computing with moving stacks,
busy inside one long non-wait call (undecided: busy still counts as work)."""

from __future__ import annotations

import subprocess
import sys
import time

import pytest

from supervisor.runtime.stacks import pyspy_path
from supervisor.watchdogs.activity import ActivityTracker
from supervisor.watchdogs.stuck import KEEP, StackProbe, timed_sample

pytestmark = pytest.mark.skipif(pyspy_path() is None, reason="py-spy is a dependency")

SPIN = """
import time
def custom_all_reduce():
    x = 0
    while True:
        x += 1
        if x % 20000 == 0:
            time.sleep(0.002)
print("go", flush=True)
custom_all_reduce()
"""

# (each pass goes through a pass manager nested a random depth deep: a compiler's stacks differ
# from one sample to the next whatever the sampling interval and the host's load, where three
# fixed passes of fixed lengths could be sampled three times in the same place)
COMPILE = """
import itertools, random
def lower(n): return sum(i * i for i in range(n))
def optimise(n): return sorted(range(n), key=lambda i: -i)[:3]
def codegen(n): return "".join(str(i) for i in range(n))
def run_pass(step, n, depth):
    return run_pass(step, n, depth - 1) if depth else step(n)
print("go", flush=True)
for step in itertools.cycle([lower, optimise, codegen]):
    for _ in range(30):
        run_pass(step, 20000, random.randrange(8))
"""

LONG_CALL = """
def matmul_kernel():
    x = 0
    while True:
        x += 1
print("go", flush=True)
matmul_kernel()
"""


WORK_THEN_POLL = """
import select, time
def work():
    end = time.perf_counter() + 0.008
    while time.perf_counter() < end:
        pass
def poll_pipe():
    select.select([], [], [], 0.03)
print("go", flush=True)
while True:
    work()
    poll_pipe()
"""


def _stop(*procs: subprocess.Popen[bytes]) -> None:
    for p in procs:
        p.kill()
        p.wait()
        if p.stdout is not None:
            p.stdout.close()


def _start(code: str) -> subprocess.Popen[bytes]:
    proc = subprocess.Popen([sys.executable, "-c", code], stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline().strip() == b"go"
    return proc


def _probe(procs: list[subprocess.Popen[bytes]], interval: float = 0.3):
    probe = StackProbe(interval=interval)
    targets = {p.pid: f"rank{i}" for i, p in enumerate(procs)}
    for _ in range(KEEP):
        stacks, cost = timed_sample(targets)
        probe.add(time.monotonic(), stacks, cost)
        time.sleep(interval)
    return probe


def test_ranks_spinning_in_a_collective_are_stuck() -> None:
    procs = [_start(SPIN), _start(SPIN)]
    try:
        verdict = _probe(procs).verdict()
    finally:
        _stop(*procs)
    assert verdict is not None and not verdict.moved
    assert verdict.stuck is not None and "custom_all_reduce" in verdict.stuck
    assert "2 processes (rank0, rank1)" in verdict.stuck
    assert verdict.collective


def test_a_compile_with_moving_stacks_is_not_stuck() -> None:
    procs = [_start(COMPILE)]
    try:
        verdict = _probe(procs, interval=0.4).verdict()
    finally:
        _stop(*procs)
    assert verdict is not None and verdict.moved and verdict.stuck is None


def test_busy_in_one_long_call_that_is_not_a_wait_is_undecided() -> None:
    procs = [_start(LONG_CALL)]
    try:
        verdict = _probe(procs).verdict()
    finally:
        _stop(*procs)
    assert verdict is not None and not verdict.moved and verdict.stuck is None


def test_busy_counts_as_work_until_the_stacks_show_it_stuck() -> None:
    from supervisor.runtime.process import TreeSample

    a = ActivityTracker(started=0.0)
    a.sample(TreeSample(0.0, 0.0, 0, 1), (100.0, 0.12))
    for t in range(1, 11):  # ten seconds busy: CPU and a GPU at 12 % of its power limit
        a.sample(TreeSample(float(t), float(t), 0, 1), (100.0, 0.12))
    assert a.still_for(10.0) == 0 and not a.is_hung(10.0, 5)
    assert a.wants_stacks(10.0, 5)
    assert any("of its power limit" in r for r in a.reasons)
    a.stacks_stuck("2 processes in custom_all_reduce")
    assert a.is_hung(10.0, 5) and a.still_for(10.0) == 10.0
    a.output_seen(10.0)  # a line: whatever the stacks said, it is alive
    assert a.stuck is None and not a.is_hung(10.0, 5)


def test_a_gpu_drawing_power_is_progress() -> None:
    from supervisor.runtime.process import TreeSample

    a = ActivityTracker(started=0.0)
    a.sample(TreeSample(0.0, 0.0, 0, 1), (95.0, 0.8))
    a.sample(TreeSample(8.0, 0.0, 0, 1), (95.0, 0.8))
    a.stacks_stuck("whatever")  # compute power clears it at the next sample
    a.sample(TreeSample(9.0, 0.0, 0, 1), (95.0, 0.8))
    assert a.stuck is None and not a.is_hung(9.0, 5)


def test_the_verdict_says_where_each_process_is_and_which_one_is_stopped(tmp_path) -> None:
    import os
    import signal

    import anyio

    from supervisor.runtime.stacks import dump_stacks, where

    procs = [_start(SPIN), _start(LONG_CALL)]
    os.kill(procs[1].pid, signal.SIGSTOP)
    deadline = time.monotonic() + 5
    while time.monotonic() < deadline:  # the stop is delivered asynchronously
        with open(f"/proc/{procs[1].pid}/stat", "rb") as f:
            if f.read().rsplit(b")", 1)[1].split()[0] == b"T":
                break
        time.sleep(0.01)
    try:
        files = anyio.run(dump_stacks, {p.pid for p in procs}, tmp_path)
        line = where(sorted(files))
    finally:
        os.kill(procs[1].pid, signal.SIGCONT)
        _stop(*procs)
    assert line is not None and "in custom_all_reduce" in line, line
    assert "stopped (signal)" in line, line


def test_bytes_moving_over_the_gpu_link_are_progress() -> None:
    from supervisor.runtime.process import TreeSample

    a = ActivityTracker(started=0.0)
    a.sample(TreeSample(0.0, 0.0, 0, 1), (100.0, 0.12, 0.0))
    a.sample(TreeSample(8.0, 8.0, 0, 1), (100.0, 0.12, 0.0))
    a.stacks_stuck("2 processes in all_reduce")
    assert a.is_hung(8.0, 5)  # busy at low power, stuck, nothing moving
    a.sample(TreeSample(9.0, 9.0, 0, 1), (100.0, 0.12, 200 * 2**20))
    assert a.stuck is None and not a.is_hung(9.0, 5)
    assert any("GPU link 200 MB/s" in r for r in a.reasons)


def test_busy_between_blocking_polls_is_not_stuck() -> None:
    """An event loop or a compile that polls its pipe: CPU busy, and most samples land in the
    poll. A blocking wait uses no CPU, so busy + always seen in one is not a stuck spin."""
    procs = [_start(WORK_THEN_POLL)]
    try:
        verdict = _probe(procs).verdict()
    finally:
        _stop(*procs)
    assert verdict is not None and verdict.stuck is None, verdict
