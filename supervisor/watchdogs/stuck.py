"""Where are the ranks stuck? Stack samples of a busy, quiet run, compared over time.

A run that shows no progress but keeps its CPUs or GPUs busy is either computing something
long (a compile: its stacks move) or spinning in a wait that never ends (a collective whose
peer never comes, a stream synchronize, a lock: its innermost frames stay put). The probe
takes a few py-spy samples of every process of the run, spaced out, and says which it is:

- ``moved``: some process's stacks differ between samples (work goes on);
- ``stuck``: every sampled process shows the same innermost frames in every sample, and those
  frames are a wait; the report names the frame and which processes sit in it;
- otherwise undecided (too few samples, no py-spy, frames that are not a wait).

The cost is bounded: at most ``MAX_PROCS`` processes a sample, one sample per ``interval``,
only while the watch loop asks (a quiet, busy run), and the last ``KEEP`` samples only.
"""

from __future__ import annotations

import json
import os
import re
import subprocess
import time
from collections import deque
from dataclasses import dataclass

from ..runtime.stacks import pyspy_path

KEEP = 3              # samples compared
BUSY_CPU_FRACTION = 0.03  # a process using this much of a core between samples is busy
CLK_TCK = os.sysconf("SC_CLK_TCK")
MAX_PROCS = 16        # processes sampled each time (ranks first: the busiest)
PYSPY_TIMEOUT = 5.0
TOP = 3               # innermost frames that make a stack's signature

# Innermost frames of a *spinning* wait: a collective, a synchronize, a flag poll. A process
# that burns CPU while parked in one of these across samples is stuck. Blocking waits (select,
# poll, recv, sleep, a lock) are not on the list: they use no CPU, so a busy process seen in
# one every time is alternating work with waiting (an event loop, a compile that polls its
# pipe), not stuck; an idle hang is the silence watchdog's to call.
WAIT_RE = re.compile(
    r"all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|broadcast|barrier|"
    r"nccl|gloo|collective|synchroni[sz]e|spin|flag|busy_?wait", re.I)
# A bare "wait" is a spinning wait only in distributed or communication code (c10d Work.wait).
_COMM_FILE_RE = re.compile(r"distributed|c10d|nccl|comm|collective", re.I)
COLLECTIVE_RE = re.compile(
    r"all_?reduce|all_?gather|reduce_?scatter|all_?to_?all|broadcast|barrier|nccl|gloo|"
    r"collective", re.I)

Frame = tuple[str, str]           # (function, file)


@dataclass(frozen=True)
class ProcStack:
    pid: int
    name: str
    threads: tuple[tuple[Frame, ...], ...]   # innermost TOP frames of each thread
    cpu_s: float = 0.0                       # the process's CPU time when sampled

    @property
    def innermost(self) -> Frame | None:
        """The innermost frame of the busiest-looking thread (the first one with frames)."""
        for frames in self.threads:
            if frames:
                return frames[0]
        return None


@dataclass(frozen=True)
class StackVerdict:
    moved: bool
    stuck: str | None              # where, in words, when stuck
    collective: bool = False


def parse_pyspy_json(pid: int, name: str, text: str, cpu_s: float = 0.0) -> ProcStack | None:
    try:
        threads = json.loads(text)
    except ValueError:
        return None
    sigs: list[tuple[Frame, ...]] = []
    # Active threads first: a spinning thread is active, parked helpers are not.
    for t in sorted(threads, key=lambda t: (not t.get("active"), t.get("thread_id", 0))):
        frames = tuple((str(f.get("name")), str(f.get("short_filename") or f.get("filename")))
                       for f in (t.get("frames") or [])[:TOP])
        sigs.append(frames)
    return ProcStack(pid, name, tuple(sigs), cpu_s)


def sample_stacks(procs: dict[int, str]) -> dict[int, ProcStack]:
    """One py-spy sample of each process (worker thread: blocking)."""
    pyspy = pyspy_path()
    out: dict[int, ProcStack] = {}
    if pyspy is None:
        return out
    for pid, name in list(procs.items())[:MAX_PROCS]:
        try:
            res = subprocess.run([pyspy, "dump", "--pid", str(pid), "--json"],
                                 capture_output=True, text=True, timeout=PYSPY_TIMEOUT)
        except (OSError, subprocess.TimeoutExpired):
            continue
        if res.returncode == 0:
            stack = parse_pyspy_json(pid, name, res.stdout, _cpu_s(pid))
            if stack is not None:
                out[pid] = stack
    return out


def _cpu_s(pid: int) -> float:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            fields = f.read().rsplit(b")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / CLK_TCK
    except (OSError, IndexError, ValueError):
        return 0.0


class StackProbe:
    """Keeps the last few samples of one run and judges them."""

    def __init__(self, interval: float) -> None:
        self.interval = interval
        self.samples: deque[tuple[float, dict[int, ProcStack]]] = deque(maxlen=KEEP)
        self.taken = 0
        self.cost_s = 0.0          # wall time spent sampling (the daemon's own cost)

    def due(self, now: float) -> bool:
        return not self.samples or now - self.samples[-1][0] >= self.interval

    def reset(self) -> None:
        self.samples.clear()

    def add(self, when: float, stacks: dict[int, ProcStack], cost_s: float) -> None:
        self.samples.append((when, stacks))
        self.taken += 1
        self.cost_s += cost_s

    def verdict(self) -> StackVerdict | None:
        """None until there are KEEP samples with common processes."""
        if len(self.samples) < KEEP:
            return None
        first = self.samples[0][1]
        common = set(first)
        for _, stacks in self.samples:
            common &= set(stacks)
        if not common:
            return None
        span = self.samples[-1][0] - self.samples[0][0]
        busy = self._busy(common, span) or common
        if any(len({stacks[p].threads for _, stacks in self.samples}) > 1 for p in busy):
            return StackVerdict(moved=True, stuck=None)
        latest = self.samples[-1][1]
        frames = {latest[p].innermost for p in busy}
        if not all(_spinning_wait(f) for f in frames):
            return StackVerdict(moved=False, stuck=None)   # busy in something long, not a wait
        # Name every process parked where the busy ones are (a rank that spins less, or
        # blocks, in the same collective is the same story), not only the busiest.
        parked = {p for p in common if latest[p].innermost in frames and
                  len({stacks[p].threads for _, stacks in self.samples}) == 1}
        return StackVerdict(moved=False, stuck=describe(latest, parked, span),
                            collective=any(COLLECTIVE_RE.search(f[0]) for f in frames if f))

    def _busy(self, pids: set[int], span: float) -> set[int]:
        """The processes that used CPU between the first and the last sample: the question is
        what *they* do (an idle launcher parked in a sleep says nothing)."""
        first, last = self.samples[0][1], self.samples[-1][1]
        need = BUSY_CPU_FRACTION * max(span, 1e-3)
        return {p for p in pids if last[p].cpu_s - first[p].cpu_s >= need}


def _spinning_wait(frame: Frame | None) -> bool:
    if frame is None:
        return False
    func, file = frame
    return bool(WAIT_RE.search(func)) or (
        func.endswith("wait") and bool(_COMM_FILE_RE.search(file)))


def describe(stacks: dict[int, ProcStack], pids: set[int], span: float) -> str:
    """'2 processes (sglang::scheduler_TP0, ...) in custom_all_reduce (child.py) ...'"""
    groups: dict[Frame, list[str]] = {}
    for pid in sorted(pids):
        frame = stacks[pid].innermost
        if frame is not None:
            groups.setdefault(frame, []).append(stacks[pid].name or str(pid))
    parts = []
    for (func, file), names in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        who = ", ".join(names[:4]) + (f" and {len(names) - 4} more" if len(names) > 4 else "")
        parts.append(f"{len(names)} process{'es' if len(names) > 1 else ''} ({who}) in "
                     f"{func} ({file})")
    lead = "; ".join(parts)
    odd = " (they differ: see which one is not with the others)" if len(groups) > 1 else ""
    return f"{lead}, unchanged over {span:.0f} s of stack samples{odd}"


def timed_sample(procs: dict[int, str]) -> tuple[dict[int, ProcStack], float]:
    t0 = time.monotonic()
    stacks = sample_stacks(procs)
    return stacks, time.monotonic() - t0
