"""Value types of the GPU watchdog: the ``NA`` sentinel and frozen samples.

Every metric of a :class:`GpuSample` may be :data:`NA` ("no signal"): the GPU does not
support it, we lack permission, or the call failed. ``NA`` is neither healthy nor
unhealthy; :func:`supervisor.gpu.rules.evaluate` simply skips it. On the wire (``to_dict``)
it becomes ``None``.
"""

from __future__ import annotations

from dataclasses import dataclass, fields
from typing import Any, Final, Protocol, TypeAlias, TypeVar, runtime_checkable

from ..protocol.vocabulary import GPU_LEVELS

__all__ = [
    "NA",
    "GpuBackend",
    "NAType",
    "GpuHealth",
    "GpuProcess",
    "GpuSample",
    "XidEvent",
    "is_na",
    "json_safe",
    "LEVELS",
]


class NAType:
    """Singleton "no signal" value (nvitop's ``NA`` idea). Falsy, never equal to a number."""

    _instance: NAType | None = None
    __slots__ = ()

    def __new__(cls) -> NAType:
        if cls._instance is None:
            cls._instance = super().__new__(cls)
        return cls._instance

    def __repr__(self) -> str:
        return "NA"

    def __bool__(self) -> bool:
        return False

    def __reduce__(self) -> str:
        return "NA"

    def __copy__(self) -> NAType:
        return self

    def __deepcopy__(self, memo: dict[int, Any]) -> NAType:
        return self


NA: Final = NAType()

T = TypeVar("T")
#: ``Maybe[int]`` reads "an int, or NA".
Maybe: TypeAlias = T | NAType

#: Health levels in rising order of severity ("unknown" = no signal at all).
LEVELS: Final = GPU_LEVELS


def is_na(value: object) -> bool:
    return value is NA


def json_safe(value: Any) -> Any:
    """NA -> None, tuples -> lists, recursively."""
    if value is NA:
        return None
    if isinstance(value, (tuple, list)):
        return [json_safe(v) for v in value]
    if isinstance(value, dict):
        return {k: json_safe(v) for k, v in value.items()}
    return value


@dataclass(frozen=True)
class GpuProcess:
    """A compute process on a GPU, as NVML lists it (host PID namespace)."""

    pid: int
    used_memory_mib: float | None
    gpu_index: int

    def to_dict(self) -> dict[str, Any]:
        return {
            "pid": self.pid,
            "used_memory_mib": self.used_memory_mib,
            "gpu_index": self.gpu_index,
        }


@dataclass(frozen=True)
class XidEvent:
    """One XID (NVIDIA driver error) reported for a GPU."""

    gpu_index: int
    xid: int
    timestamp: float
    description: str

    def to_dict(self) -> dict[str, Any]:
        return {
            "gpu_index": self.gpu_index,
            "xid": self.xid,
            "timestamp": self.timestamp,
            "description": self.description,
        }


@dataclass(frozen=True)
class GpuSample:
    """One GPU at one time. Units: MiB, %, degrees C, W, MHz. Any metric may be NA."""

    index: int
    uuid: Maybe[str] = NA
    name: Maybe[str] = NA
    timestamp: float = 0.0
    # gauges (fast loop)
    utilization_gpu: Maybe[float] = NA
    utilization_memory: Maybe[float] = NA
    memory_used_mib: Maybe[float] = NA
    memory_total_mib: Maybe[float] = NA
    temperature_c: Maybe[float] = NA
    temperature_slowdown_c: Maybe[float] = NA  # NVML slowdown threshold, for the margin rule
    power_w: Maybe[float] = NA
    power_limit_w: Maybe[float] = NA
    sm_clock_mhz: Maybe[float] = NA
    max_sm_clock_mhz: Maybe[float] = NA
    throttle_reasons: Maybe[tuple[str, ...]] = NA  # () = none active; NA = unsupported
    link_bytes: Maybe[int] = NA  # PCIe bytes sent + received since the driver loaded
    # counters (slow loop)
    ecc_volatile_uncorrected: Maybe[int] = NA
    ecc_aggregate_uncorrected: Maybe[int] = NA
    remapped_rows_pending: Maybe[bool] = NA
    remapped_rows_failure: Maybe[bool] = NA
    remapped_rows_uncorrectable: Maybe[int] = NA
    retired_pages_pending: Maybe[bool] = NA
    pcie_replay_counter: Maybe[int] = NA
    pcie_link_gen: Maybe[int] = NA
    pcie_link_gen_max: Maybe[int] = NA
    pcie_link_width: Maybe[int] = NA
    pcie_link_width_max: Maybe[int] = NA
    recovery_action: Maybe[int] = NA  # NVML_FI_DEV_GET_GPU_RECOVERY_ACTION (0 = none)
    lost: bool = False

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (NA -> None, tuples -> lists)."""
        names = _SAMPLE_FIELDS.get(type(self))
        if names is None:
            names = _SAMPLE_FIELDS[type(self)] = tuple(f.name for f in fields(self))
        d: dict[str, Any] = {}
        for name in names:
            v = getattr(self, name)
            if v is NA:
                v = None
            elif isinstance(v, (tuple, list, dict)):
                v = json_safe(v)
            d[name] = v
        return d


#: Field names per sample class, in declaration order (``fields()`` is slow to call per sample).
_SAMPLE_FIELDS: dict[type, tuple[str, ...]] = {}


#: Fields refreshed by the slow loop; the fast loop carries the last values forward.
COUNTER_FIELDS: Final = (
    "ecc_volatile_uncorrected",
    "ecc_aggregate_uncorrected",
    "remapped_rows_pending",
    "remapped_rows_failure",
    "remapped_rows_uncorrectable",
    "retired_pages_pending",
    "pcie_replay_counter",
    "pcie_link_gen",
    "pcie_link_gen_max",
    "pcie_link_width",
    "pcie_link_width_max",
    "recovery_action",
)


@dataclass(frozen=True)
class GpuHealth:
    """The rules' verdict for one GPU: the worst level, every flag, one recommended action."""

    index: int
    level: str  # one of LEVELS
    flags: tuple[str, ...] = ()
    action: str | None = None

    def to_dict(self) -> dict[str, Any]:
        return {"level": self.level, "flags": list(self.flags), "action": self.action}


@runtime_checkable
class GpuBackend(Protocol):
    """Synchronous GPU access; called only from the monitor's worker threads.

    Implementations: ``NvmlBackend`` ("nvml"), ``FakeBackend`` ("fake"), ``NoGpuBackend``
    ("none"). ``sample(counters=False)`` may leave the slow counters NA (the monitor carries
    the last counter values forward).
    """

    name: str

    def init(self) -> None: ...
    def shutdown(self) -> None: ...
    def device_count(self) -> int: ...
    def probe(self, index: int) -> dict[str, bool]: ...
    def sample(self, index: int, *, counters: bool = True) -> GpuSample: ...
    def processes(self, index: int) -> list[GpuProcess]: ...
    def wait_xid(self, timeout_s: float) -> list[XidEvent]: ...


#: Metric groups probed once per GPU; a False group is never called again (no signal).
PROBE_GROUPS = (
    "utilization",
    "memory",
    "temperature",
    "temperature_threshold",
    "power",
    "power_limit",
    "clocks",
    "throttle",
    "ecc",
    "remapped_rows",
    "retired_pages",
    "pcie_replay",
    "pcie_link",
    "link_bytes",
    "recovery_action",
    "processes",
    "xid_events",
)
