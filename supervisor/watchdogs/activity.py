"""Silence versus progress: is a quiet server working, or hung?

A 547 GB weight load reads at GB/s for minutes without a log line; a hung NCCL collective
prints nothing. But a hang does not always go idle: ranks waiting in a collective for a peer
that never comes keep their GPUs at 100 % (at low power) and their host threads spinning.
So the tracker tells two kinds of sign apart:

- progress: output, disk reads, a GPU drawing power consistent with compute, stacks that
  change between samples;
- busy: CPU use, or a GPU busy at low power. Busy counts as progress until stack samples show
  every busy process parked in the same wait (``stuck``): busy-but-unchanging is not work.

The run is hung once it has shown no progress (and no un-disproved busyness) for the whole
silence window. The thresholds live here, in one place.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..runtime.process import TreeSample

# Below these, a change is noise (an idle Python process still ticks a little).
CPU_ACTIVE_FRACTION = 0.03   # 3 % of one core over the sampling interval
READ_ACTIVE_BPS = 1 * 2**20  # 1 MiB/s
GPU_ACTIVE_PERCENT = 5.0
# A GPU at high utilisation that draws under this fraction of its power limit is spinning on
# a flag, not computing. Not yet calibrated on real GPUs (an H200 idles near 10 % of its
# 700 W; dense compute at full utilisation draws well over half): per-model figures go here.
SPIN_POWER_FRACTION = 0.30
# Bytes moving over a GPU's PCIe link (NVML's counters, where the driver has them) at this
# rate or more are data going somewhere: weights, or a collective that is not stuck.
LINK_ACTIVE_BPS = 16 * 2**20
# When to look at stacks: after this fraction of the silence window without progress.
STACK_AFTER_FRACTION = 0.5


@dataclass
class ActivityTracker:
    started: float
    last_output: float = 0.0
    last_progress: float = 0.0
    last_busy: float = 0.0
    cpu_percent: float = 0.0
    read_mb_s: float = 0.0
    gpu_util: float | None = None
    gpu_power_frac: float | None = None
    gpu_link_mb_s: float | None = None
    reasons: list[str] = field(default_factory=list)
    stuck: str | None = None           # where stack samples show the busy processes parked
    stack_samples: int = 0             # taken for this run so far, and their wall time:
    stack_cost_s: float = 0.0          # the daemon's own cost of looking
    _prev: TreeSample | None = None

    def __post_init__(self) -> None:
        self.last_output = self.last_output or self.started
        self.last_progress = self.last_progress or self.started

    # -- signs ------------------------------------------------------------------------------
    def output_seen(self, when: float) -> None:
        self.last_output = max(self.last_output, when)
        self.stuck = None

    def stacks_moved(self, when: float) -> None:
        """Stack samples differ: the busy processes are doing something."""
        self.last_progress = max(self.last_progress, when)
        self.stuck = None

    def stacks_stuck(self, where: str) -> None:
        """Every busy process sits in the same wait across samples."""
        self.stuck = where

    def sample(self, tree: TreeSample, gpu: tuple[float | None, ...] | float | None) -> None:
        """Feed one tree sample (cumulative counters) and the GPUs' recent utilisation, power
        fraction and PCIe byte rate (a bare number: utilisation with no other reading)."""
        prev, self._prev = self._prev, tree
        util, frac, link = (tuple(gpu) + (None, None))[:3] if isinstance(gpu, tuple) else (
            gpu, None, None)
        self.gpu_util, self.gpu_power_frac, self.gpu_link_mb_s = util, frac, (
            None if link is None else round(link / 2**20, 1))
        self.reasons = []
        busy = progress = False
        if prev is not None and tree.when > prev.when:
            dt = tree.when - prev.when
            cpu = max(0.0, tree.cpu_s - prev.cpu_s) / dt
            read = max(0, tree.read_bytes - prev.read_bytes) / dt
            self.cpu_percent = round(cpu * 100, 1)
            self.read_mb_s = round(read / 2**20, 2)
            if cpu >= CPU_ACTIVE_FRACTION:
                self.reasons.append(f"CPU {self.cpu_percent}%")
                busy = True
            if read >= READ_ACTIVE_BPS:
                self.reasons.append(f"reading {self.read_mb_s} MB/s")
                progress = True
        if util is not None and util >= GPU_ACTIVE_PERCENT:
            if frac is not None and frac < SPIN_POWER_FRACTION:
                self.reasons.append(f"GPU {util:.0f}% at {frac:.0%} of its power limit")
                busy = True
            else:
                self.reasons.append(f"GPU {util:.0f}%")
                progress = True
        if link is not None and link >= LINK_ACTIVE_BPS:
            self.reasons.append(f"GPU link {link / 2**20:.0f} MB/s")
            progress = True
        if progress:
            self.last_progress = tree.when
            self.stuck = None
        if busy:
            self.last_busy = tree.when

    # -- judgement --------------------------------------------------------------------------
    def quiet_for(self, now: float) -> float:
        """Seconds without output."""
        return max(0.0, now - self.last_output)

    def still_for(self, now: float) -> float:
        """Seconds without output and without any sign of work (busyness counts as work
        until the stacks have shown it stuck)."""
        last = max(self.last_output, self.last_progress)
        if self.stuck is None:
            last = max(last, self.last_busy)
        return max(0.0, now - last)

    def wants_stacks(self, now: float, silence: float) -> bool:
        """Busy with no other sign of progress for a while: time to look at the stacks."""
        unproven = now - max(self.last_output, self.last_progress)
        return now - self.last_busy < 2.0 and unproven >= silence * STACK_AFTER_FRACTION

    def state(self, now: float, silence: float) -> str:
        """'working' (output lately), 'quiet' (no output, but activity), 'silent' (neither,
        or busy in a wait that never ends)."""
        recent = min(5.0, silence / 3)
        if self.quiet_for(now) < recent:
            return "working"
        # Quiet: some sign of work lately (not only right after the last line). Silent: none.
        return "quiet" if self.still_for(now) < recent else "silent"

    def is_hung(self, now: float, silence: float) -> bool:
        return self.still_for(now) >= silence

    def to_dict(self, now: float, silence: float) -> dict[str, object]:
        return {
            "state": self.state(now, silence),
            "quiet_s": round(self.quiet_for(now), 1),
            "still_s": round(self.still_for(now), 1),
            "cpu_percent": self.cpu_percent,
            "read_mb_s": self.read_mb_s,
            "gpu_util": self.gpu_util,
            "gpu_power_frac": (None if self.gpu_power_frac is None
                               else round(self.gpu_power_frac, 3)),
            "gpu_link_mb_s": self.gpu_link_mb_s,
            "signs": list(self.reasons),
            "stuck": self.stuck,
            "stack_samples": self.stack_samples,
            "stack_cost_s": round(self.stack_cost_s, 3),
            "silence_s": silence,  # the budget: hung once still_s reaches it (while starting)
        }
