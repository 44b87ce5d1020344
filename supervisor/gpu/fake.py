"""A deterministic fake GPU backend with injectable faults (tests and the demo).

N H200-like GPUs (143771 MiB, 700 W). Idle by default: utilisation 0, memory holds only
what injected processes hold. Faults are injected with short specs (see :meth:`inject`).
Thread-safe: the monitor calls it from worker threads, tests from the event loop.
"""

from __future__ import annotations

import os
import random
import shutil
import tempfile
import threading
import time
import weakref
from dataclasses import dataclass, field

from .rules import THROTTLE_BITS, describe_xid
from .types import PROBE_GROUPS, GpuProcess, GpuSample, XidEvent

__all__ = ["FakeBackend", "INJECT_HELP"]

MEMORY_TOTAL_MIB = 143771.0
POWER_LIMIT_W = 700.0
IDLE_POWER_W = 72.0
BASE_MEMORY_MIB = 0.0

# Processes on this host (the emulator's ranks) may report what "their" GPU does: a file
# gpu<N> in this folder holding "<util%> <power fraction> <epoch>"; a report older than
# REPORT_TTL_S is ignored (the reporter died). The daemon exports the folder to its runs.
REPORT_DIR_VAR = "GNS_FAKE_GPU_DIR"
REPORT_TTL_S = 2.0
LINK_BYTES_PER_UTIL = 2**20  # per sample and % of utilisation: a busy GPU moves data

INJECT_HELP = (
    "fault specs: xid:<gpu>:<code>, ecc:<gpu>:<count>, temp:<gpu>:<celsius>, "
    "throttle:<gpu>:<reason>, lost:<gpu>, foreign:<gpu>:<pid>:<mib>, busy:<gpu>:<util%>, "
    "remap:<gpu>, clear[:<gpu>]"
)


@dataclass
class _FakeGpu:
    index: int
    uuid: str
    temperature: float | None = None  # None: the idle baseline
    util: float = 0.0
    throttle: set[str] = field(default_factory=set)
    ecc_volatile: int = 0
    ecc_aggregate: int = 0
    remap_pending: bool = False
    lost: bool = False
    procs: dict[int, float] = field(default_factory=dict)  # pid -> MiB


class FakeBackend:
    name = "fake"

    def __init__(self, count: int, *, seed: int = 0) -> None:
        if count < 0:
            raise ValueError(f"fake GPU count must be >= 0, got {count}")
        self._count = count
        self._seed = seed
        self._rng = random.Random(seed)
        self._lock = threading.Lock()
        self._xid_cond = threading.Condition(self._lock)
        self._pending_xids: list[XidEvent] = []
        self._closed = False  # shutdown() ends a blocked wait_xid at once; init() reopens
        self._gpus = [
            _FakeGpu(index=i, uuid=f"GPU-fa4e{seed:04x}-{i:04x}-4000-8000-{i:012x}")
            for i in range(count)
        ]
        self._ticks = 0
        self._link: dict[int, int] = {}  # PCIe bytes moved so far, per GPU
        self.report_dir = tempfile.mkdtemp(prefix="gns-fake-gpus-")
        weakref.finalize(self, shutil.rmtree, self.report_dir, True)

    def export_reports(self) -> None:
        """Let this process's children (the runs) find the report folder."""
        os.environ[REPORT_DIR_VAR] = self.report_dir

    def _reported(self, index: int) -> tuple[float, float] | None:
        """(utilisation %, power fraction) a live process reports for this GPU, if any."""
        try:
            with open(os.path.join(self.report_dir, f"gpu{index}")) as f:
                util, frac, when = (float(x) for x in f.read().split())
        except (OSError, ValueError):
            return None
        if time.time() - when > REPORT_TTL_S:
            return None
        return max(0.0, min(100.0, util)), max(0.0, min(1.0, frac))

    # -- backend protocol --------------------------------------------------------------------

    def init(self) -> None:
        with self._xid_cond:
            self._closed = False

    def shutdown(self) -> None:
        with self._xid_cond:
            self._closed = True
            self._xid_cond.notify_all()

    def device_count(self) -> int:
        return self._count

    def probe(self, index: int) -> dict[str, bool]:
        g = self._gpu(index)
        caps = {k: not g.lost for k in PROBE_GROUPS}
        caps["retired_pages"] = False  # Hopper uses row remapping, not page retirement
        return caps

    def sample(self, index: int, *, counters: bool = True) -> GpuSample:
        with self._lock:
            g = self._gpu(index)
            now = time.time()
            name = "NVIDIA H200 (fake)"
            if g.lost:
                return GpuSample(index=index, uuid=g.uuid, name=name, timestamp=now, lost=True)
            self._ticks += 1
            util = g.util
            if util > 0:  # gentle deterministic wobble, only when busy
                util = max(0.0, min(100.0, util + self._rng.uniform(-2.0, 2.0)))
            temp = g.temperature if g.temperature is not None else 30.0 + index + util * 0.35
            power = IDLE_POWER_W + (POWER_LIMIT_W - IDLE_POWER_W) * util / 100.0 * 0.8
            reported = self._reported(index)
            if reported is not None:  # a rank spinning on it: busy, at low power
                util, frac = reported
                power = max(IDLE_POWER_W, POWER_LIMIT_W * frac)
            else:  # compute moves data over the link; a spin moves none
                self._link[index] = self._link.get(index, 0) + int(util * LINK_BYTES_PER_UTIL)
            reasons = set(g.throttle)
            if util == 0 and not reasons:
                reasons.add("gpu_idle")
            ordered = tuple(n for n in THROTTLE_BITS.values() if n in reasons)
            kw: dict[str, object] = {}
            if counters:
                kw = {
                    "ecc_volatile_uncorrected": g.ecc_volatile,
                    "ecc_aggregate_uncorrected": g.ecc_aggregate,
                    "remapped_rows_pending": g.remap_pending,
                    "remapped_rows_failure": False,
                    "remapped_rows_uncorrectable": 0,
                    "pcie_replay_counter": 0,
                    "pcie_link_gen": 5,
                    "pcie_link_gen_max": 5,
                    "pcie_link_width": 16,
                    "pcie_link_width_max": 16,
                    "recovery_action": 0,
                }
            return GpuSample(
                index=index,
                uuid=g.uuid,
                name=name,
                timestamp=now,
                utilization_gpu=round(util, 1),
                utilization_memory=round(util * 0.4, 1),
                memory_used_mib=BASE_MEMORY_MIB + sum(g.procs.values()),
                memory_total_mib=MEMORY_TOTAL_MIB,
                temperature_c=float(temp),
                temperature_slowdown_c=90.0,
                power_w=round(power, 1),
                power_limit_w=POWER_LIMIT_W,
                sm_clock_mhz=1980.0 if util > 0 else 345.0,
                max_sm_clock_mhz=1980.0,
                throttle_reasons=ordered,
                link_bytes=self._link.get(index, 0),
                **kw,  # type: ignore[arg-type]
            )

    def processes(self, index: int) -> list[GpuProcess]:
        with self._lock:
            g = self._gpu(index)
            if g.lost:
                return []
            return [
                GpuProcess(pid=p, used_memory_mib=m, gpu_index=index)
                for p, m in sorted(g.procs.items())
            ]

    def wait_xid(self, timeout_s: float) -> list[XidEvent]:
        deadline = time.monotonic() + max(0.0, timeout_s)
        with self._xid_cond:
            while not self._pending_xids:
                if self._closed:
                    return []
                left = deadline - time.monotonic()
                if left <= 0:
                    return []
                self._xid_cond.wait(left)
            out, self._pending_xids = self._pending_xids, []
            return out

    # -- faults --------------------------------------------------------------------------------

    def inject(self, spec: str) -> None:
        """Apply one fault spec (see :data:`INJECT_HELP`); ValueError on a bad one."""
        parts = spec.strip().split(":")
        kind, args = parts[0].lower(), parts[1:]
        arity = {
            "xid": 2,
            "ecc": 2,
            "temp": 2,
            "throttle": 2,
            "lost": 1,
            "foreign": 3,
            "busy": 2,
            "remap": 1,
        }
        with self._xid_cond:
            if kind == "clear":
                if len(args) > 1:
                    raise ValueError(
                        f"bad fault spec {spec!r}: clear takes at most a GPU index; {INJECT_HELP}"
                    )
                targets = (
                    [self._gpu(self._int(spec, args[0], "GPU index"))] if args else list(self._gpus)
                )
                for g in targets:
                    fresh = _FakeGpu(index=g.index, uuid=g.uuid)
                    g.__dict__.update(fresh.__dict__)
                idx = {g.index for g in targets}
                self._pending_xids = [e for e in self._pending_xids if e.gpu_index not in idx]
                return
            if kind not in arity:
                raise ValueError(f"bad fault spec {spec!r}: unknown kind {kind!r}; {INJECT_HELP}")
            if len(args) != arity[kind]:
                raise ValueError(
                    f"bad fault spec {spec!r}: {kind} takes {arity[kind]} argument(s); "
                    f"{INJECT_HELP}"
                )
            g = self._gpu(self._int(spec, args[0], "GPU index"))
            if kind == "xid":
                code = self._int(spec, args[1], "XID code")
                if code <= 0:
                    raise ValueError(f"bad fault spec {spec!r}: XID code must be positive")
                self._pending_xids.append(
                    XidEvent(
                        gpu_index=g.index,
                        xid=code,
                        timestamp=time.time(),
                        description=describe_xid(code),
                    )
                )
                self._xid_cond.notify_all()
            elif kind == "ecc":
                n = self._int(spec, args[1], "error count")
                if n < 0:
                    raise ValueError(f"bad fault spec {spec!r}: error count must be >= 0")
                g.ecc_volatile += n
                g.ecc_aggregate += n
            elif kind == "temp":
                g.temperature = self._float(spec, args[1], "temperature", -50, 150)
            elif kind == "throttle":
                reason = args[1].strip().lower()
                if reason not in THROTTLE_BITS.values():
                    raise ValueError(
                        f"bad fault spec {spec!r}: unknown throttle reason {reason!r} "
                        f"(one of {', '.join(THROTTLE_BITS.values())})"
                    )
                g.throttle.add(reason)
            elif kind == "lost":
                g.lost = True
            elif kind == "foreign":
                pid = self._int(spec, args[1], "pid")
                if pid <= 0:
                    raise ValueError(f"bad fault spec {spec!r}: pid must be positive")
                mib = self._float(spec, args[2], "MiB", 0, MEMORY_TOTAL_MIB)
                if mib == 0:
                    g.procs.pop(pid, None)
                else:
                    g.procs[pid] = mib
            elif kind == "busy":
                g.util = self._float(spec, args[1], "utilisation %", 0, 100)
            elif kind == "remap":
                g.remap_pending = True

    # -- helpers -------------------------------------------------------------------------------

    def _gpu(self, index: int) -> _FakeGpu:
        if not 0 <= index < self._count:
            raise ValueError(f"no GPU {index} (fake backend has {self._count})")
        return self._gpus[index]

    @staticmethod
    def _int(spec: str, text: str, what: str) -> int:
        try:
            return int(text)
        except ValueError:
            raise ValueError(
                f"bad fault spec {spec!r}: {what} {text!r} is not an integer"
            ) from None

    @staticmethod
    def _float(spec: str, text: str, what: str, lo: float, hi: float) -> float:
        try:
            v = float(text)
        except ValueError:
            raise ValueError(f"bad fault spec {spec!r}: {what} {text!r} is not a number") from None
        if not lo <= v <= hi:
            raise ValueError(f"bad fault spec {spec!r}: {what} {v:g} outside [{lo:g}, {hi:g}]")
        return v
