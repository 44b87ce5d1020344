"""Silence versus activity: is a quiet server working or hung?

A 547 GB weight load reads at GB/s for minutes without a log line; a hung NCCL collective
prints nothing and does nothing. The tracker keeps the last time the tree showed output, CPU
use, disk reads or GPU utilisation, and calls it hung only when all have been still for the
whole silence window.
"""

from __future__ import annotations

from dataclasses import dataclass, field

from ..runtime.process import TreeSample

# Below these, a change is noise (an idle Python process still ticks a little).
CPU_ACTIVE_FRACTION = 0.03   # 3 % of one core over the sampling interval
READ_ACTIVE_BPS = 1 * 2**20  # 1 MiB/s
GPU_ACTIVE_PERCENT = 5.0


@dataclass
class ActivityTracker:
    started: float
    last_output: float = 0.0
    last_activity: float = 0.0
    cpu_percent: float = 0.0
    read_mb_s: float = 0.0
    gpu_util: float | None = None
    reasons: list[str] = field(default_factory=list)
    _prev: TreeSample | None = None

    def __post_init__(self) -> None:
        self.last_output = self.last_output or self.started
        self.last_activity = self.last_activity or self.started

    def output_seen(self, when: float) -> None:
        self.last_output = max(self.last_output, when)

    def sample(self, tree: TreeSample, gpu_util: float | None) -> None:
        """Feed one tree sample (cumulative counters) and the GPUs' recent utilisation."""
        prev, self._prev = self._prev, tree
        self.gpu_util = gpu_util
        self.reasons = []
        if prev is not None and tree.when > prev.when:
            dt = tree.when - prev.when
            cpu = max(0.0, tree.cpu_s - prev.cpu_s) / dt
            read = max(0, tree.read_bytes - prev.read_bytes) / dt
            self.cpu_percent = round(cpu * 100, 1)
            self.read_mb_s = round(read / 2**20, 2)
            if cpu >= CPU_ACTIVE_FRACTION:
                self.reasons.append(f"CPU {self.cpu_percent}%")
            if read >= READ_ACTIVE_BPS:
                self.reasons.append(f"reading {self.read_mb_s} MB/s")
        if gpu_util is not None and gpu_util >= GPU_ACTIVE_PERCENT:
            self.reasons.append(f"GPU {gpu_util:.0f}%")
        if self.reasons:
            self.last_activity = tree.when

    def quiet_for(self, now: float) -> float:
        """Seconds without output."""
        return max(0.0, now - self.last_output)

    def still_for(self, now: float) -> float:
        """Seconds without output and without any activity."""
        return max(0.0, now - max(self.last_output, self.last_activity))

    def state(self, now: float, silence: float) -> str:
        """'working' (output lately), 'quiet' (no output, but activity), 'silent' (neither)."""
        quiet = self.quiet_for(now)
        if quiet < min(5.0, silence / 3):
            return "working"
        return "quiet" if self.still_for(now) < quiet else "silent"

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
            "signs": list(self.reasons),
            "silence_s": silence,  # the budget: hung once still_s reaches it (while starting)
        }
