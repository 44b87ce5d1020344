"""NVML backend (``nvidia-ml-py``, module ``pynvml``) and the no-GPU backend.

Synchronous: the monitor calls these methods from a worker thread only. Every NVML call
goes through :meth:`NvmlBackend._q`, which turns "unsupported" errors into :data:`NA`
and ``NVMLError_GpuIsLost`` into :class:`GpuLostError` (the sample then reads ``lost``).
Importing this module never touches the driver; ``pynvml`` itself is imported lazily.
"""

from __future__ import annotations

import logging
import threading
import time
from collections.abc import Callable
from typing import Any

from .rules import decode_throttle, describe_xid
from .types import NA, PROBE_GROUPS, GpuProcess, GpuSample, XidEvent

log = logging.getLogger(__name__)

__all__ = ["GpuLostError", "NoGpuBackend", "NvmlBackend", "NvmlUnavailable"]

MIB = 1024 * 1024
#: Longest single NVML event wait inside one ``wait_xid`` call (bounds how long shutdown waits).
XID_WAIT_SLICE_S = 0.5


class NvmlUnavailable(RuntimeError):
    """NVML could not be initialised (no driver, library missing, version mismatch)."""


class GpuLostError(RuntimeError):
    """NVML said the GPU is lost (NVMLError_GpuIsLost)."""


class NoGpuBackend:
    """The backend when NVML is unavailable: zero GPUs, and the reason why."""

    name = "none"

    def __init__(self, reason: str) -> None:
        self.reason = reason

    def init(self) -> None:
        return None

    def shutdown(self) -> None:
        return None

    def device_count(self) -> int:
        return 0

    def probe(self, index: int) -> dict[str, bool]:
        raise IndexError(f"no GPU {index}: {self.reason}")

    def sample(self, index: int, *, counters: bool = True) -> GpuSample:
        raise IndexError(f"no GPU {index}: {self.reason}")

    def processes(self, index: int) -> list[GpuProcess]:
        raise IndexError(f"no GPU {index}: {self.reason}")

    def wait_xid(self, timeout_s: float) -> list[XidEvent]:
        time.sleep(max(0.0, timeout_s))
        return []


class NvmlBackend:
    """Real GPUs through NVML. ``init()`` is idempotent; ``nvmlInit`` runs once."""

    name = "nvml"

    def __init__(self) -> None:
        self._nv: Any = None
        self._initialised = False
        self._handles: list[Any] = []
        self._static: list[dict[str, Any]] = []
        self._caps: dict[int, dict[str, bool]] = {}
        self._event_set: Any = None
        self._event_lock = threading.Lock()
        self._closing = threading.Event()  # set by shutdown(): a long wait_xid ends promptly
        self._handle_index: dict[int, int] = {}  # raw handle address -> index
        self._reset_required: set[int] = set()
        self._xid_registered: dict[int, bool] = {}
        self._not_supported: tuple[type[BaseException], ...] = ()
        self.errors: dict[str, int] = {}  # error class name -> count (beyond NotSupported)
        self.driver_version: str | None = None

    # -- lifecycle ---------------------------------------------------------------------------

    def init(self) -> None:
        if self._initialised:
            return
        self._closing.clear()
        try:
            import pynvml  # type: ignore[import-untyped,unused-ignore]
        except ImportError as e:  # pragma: no cover - dependency is declared
            raise NvmlUnavailable(f"NVML unavailable: nvidia-ml-py not installed ({e})") from e
        try:
            pynvml.nvmlInit()
        except pynvml.NVMLError as e:
            raise NvmlUnavailable(f"NVML unavailable: {e}") from e
        except OSError as e:  # pragma: no cover
            raise NvmlUnavailable(f"NVML unavailable: {e}") from e
        self._nv = pynvml
        self._not_supported = (
            pynvml.NVMLError_NotSupported,
            pynvml.NVMLError_NoPermission,
            pynvml.NVMLError_FunctionNotFound,
            pynvml.NVMLError_NoData,
            pynvml.NVMLError_NotReady,
            pynvml.NVMLError_InvalidArgument,
            pynvml.NVMLError_ArgumentVersionMismatch,
            pynvml.NVMLLibraryMismatchError,
        )
        self._initialised = True
        try:
            self.driver_version = _s(pynvml.nvmlSystemGetDriverVersion())
        except pynvml.NVMLError:
            self.driver_version = None
        count = pynvml.nvmlDeviceGetCount()
        self._handles = [pynvml.nvmlDeviceGetHandleByIndex(i) for i in range(count)]
        self._static = []
        for i, h in enumerate(self._handles):
            self._handle_index[_addr(h)] = i
            self._static.append(
                {
                    "uuid": self._q(i, pynvml.nvmlDeviceGetUUID, h, conv=_s),
                    "name": self._q(i, pynvml.nvmlDeviceGetName, h, conv=_s),
                }
            )
        self._register_events()

    def shutdown(self) -> None:
        if not self._initialised:
            return
        nv = self._nv
        self._closing.set()  # a wait_xid in progress gives the lock up after its current slice
        with self._event_lock:
            if self._event_set is not None:
                try:
                    nv.nvmlEventSetFree(self._event_set)
                except nv.NVMLError:
                    pass
                self._event_set = None
        try:
            nv.nvmlShutdown()
        except nv.NVMLError:
            pass
        self._initialised = False

    def device_count(self) -> int:
        return len(self._handles)

    # -- the choke point for NVML calls ---------------------------------------------------------

    def _q(
        self,
        index: int,
        fn: Callable[..., Any],
        *args: Any,
        conv: Callable[[Any], Any] | None = None,
    ) -> Any:
        """Call ``fn``: unsupported -> NA; GpuIsLost -> GpuLostError; other errors -> NA."""
        nv = self._nv
        try:
            value = fn(*args)
        except self._not_supported:
            return NA
        except nv.NVMLError_GpuIsLost as e:
            raise GpuLostError(f"GPU {index} is lost") from e
        except nv.NVMLError_ResetRequired:
            self._reset_required.add(index)
            return NA
        except nv.NVMLError as e:
            name = type(e).__name__
            self.errors[name] = self.errors.get(name, 0) + 1
            log.debug("GPU %d: %s failed: %s", index, getattr(fn, "__name__", fn), e)
            return NA
        return conv(value) if conv is not None else value

    def _h(self, index: int) -> Any:
        if not 0 <= index < len(self._handles):
            raise IndexError(f"no GPU {index} (NVML sees {len(self._handles)})")
        return self._handles[index]

    def _cap(self, index: int, group: str) -> bool:
        return self._caps.get(index, {}).get(group, True)

    # -- probe ---------------------------------------------------------------------------------

    def probe(self, index: int) -> dict[str, bool]:
        """Call one representative function per metric group; record which are supported."""
        self._caps.pop(index, None)  # probe with every group enabled
        try:
            s = self.sample(index, counters=True)
        except GpuLostError:
            caps = {g: False for g in PROBE_GROUPS}
            self._caps[index] = caps
            return dict(caps)
        if s.lost:
            caps = {g: False for g in PROBE_GROUPS}
            self._caps[index] = caps
            return dict(caps)
        try:
            procs = self._q(index, self._compute_procs, self._h(index))
        except GpuLostError:
            procs = NA
        caps = {
            "utilization": s.utilization_gpu is not NA,
            "memory": s.memory_total_mib is not NA,
            "temperature": s.temperature_c is not NA,
            "temperature_threshold": s.temperature_slowdown_c is not NA,
            "power": s.power_w is not NA,
            "power_limit": s.power_limit_w is not NA,
            "clocks": s.sm_clock_mhz is not NA,
            "throttle": s.throttle_reasons is not NA,
            "ecc": s.ecc_volatile_uncorrected is not NA,
            "remapped_rows": s.remapped_rows_pending is not NA,
            "retired_pages": s.retired_pages_pending is not NA,
            "pcie_replay": s.pcie_replay_counter is not NA,
            "pcie_link": s.pcie_link_width is not NA,
            "link_bytes": s.link_bytes is not NA,
            "recovery_action": s.recovery_action is not NA,
            "processes": procs is not NA,
            "xid_events": bool(self._xid_registered.get(index, False)),
        }
        self._caps[index] = caps
        return dict(caps)

    # -- sampling ------------------------------------------------------------------------------

    def sample(self, index: int, *, counters: bool = True) -> GpuSample:
        """One sample. ``counters=False`` skips the slow counters (left NA)."""
        h = self._h(index)
        st = self._static[index]
        now = time.time()
        try:
            return self._sample(index, h, st, now, counters)
        except GpuLostError:
            return GpuSample(
                index=index, uuid=st["uuid"], name=st["name"], timestamp=now, lost=True
            )

    def _sample(self, i: int, h: Any, st: dict[str, Any], now: float, counters: bool) -> GpuSample:
        nv = self._nv
        q = self._q
        c = self._cap
        v: dict[str, Any] = {}
        if c(i, "utilization"):
            u = q(i, nv.nvmlDeviceGetUtilizationRates, h)
            if u is not NA:
                v["utilization_gpu"] = float(u.gpu)
                v["utilization_memory"] = float(u.memory)
        if c(i, "memory"):
            m = q(i, nv.nvmlDeviceGetMemoryInfo, h, nv.nvmlMemory_v2)
            if m is NA:
                m = q(i, nv.nvmlDeviceGetMemoryInfo, h)
            if m is not NA:
                v["memory_used_mib"] = m.used / MIB
                v["memory_total_mib"] = m.total / MIB
        if c(i, "temperature"):
            t = q(i, nv.nvmlDeviceGetTemperatureV, h, nv.NVML_TEMPERATURE_GPU)
            if t is NA:
                t = q(i, nv.nvmlDeviceGetTemperature, h, nv.NVML_TEMPERATURE_GPU)
            if t is not NA:
                v["temperature_c"] = float(t)
        if c(i, "temperature_threshold"):
            if "slowdown" not in st:
                st["slowdown"] = q(
                    i,
                    nv.nvmlDeviceGetTemperatureThreshold,
                    h,
                    nv.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN,
                )
            if st["slowdown"] is not NA and st["slowdown"] > 0:
                v["temperature_slowdown_c"] = float(st["slowdown"])
        if c(i, "power"):
            p = q(i, nv.nvmlDeviceGetPowerUsage, h)
            if p is not NA:
                v["power_w"] = p / 1000.0
        if c(i, "power_limit"):
            p = q(i, nv.nvmlDeviceGetEnforcedPowerLimit, h)
            if p is not NA:
                v["power_limit_w"] = p / 1000.0
        if c(i, "clocks"):
            s = q(i, nv.nvmlDeviceGetClockInfo, h, nv.NVML_CLOCK_SM)
            if s is not NA:
                v["sm_clock_mhz"] = float(s)
            if "max_sm" not in st:
                st["max_sm"] = q(i, nv.nvmlDeviceGetMaxClockInfo, h, nv.NVML_CLOCK_SM)
            if st["max_sm"] is not NA:
                v["max_sm_clock_mhz"] = float(st["max_sm"])
        if c(i, "throttle"):
            fn = (
                getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None)
                or nv.nvmlDeviceGetCurrentClocksThrottleReasons
            )
            r = q(i, fn, h)
            if r is not NA:
                v["throttle_reasons"] = decode_throttle(int(r))
        if c(i, "link_bytes"):
            moved = self._link_bytes(i, h)
            if moved is not NA:
                v["link_bytes"] = moved
        if counters:
            v.update(self._counters(i, h))
        if i in self._reset_required and not v.get("recovery_action"):
            v["recovery_action"] = 1  # NVMLError_ResetRequired: GPU reset needed (row 3)
        return GpuSample(index=i, uuid=st["uuid"], name=st["name"], timestamp=now, **v)

    def _link_bytes(self, i: int, h: Any) -> Any:
        """PCIe bytes moved (TX + RX), one cheap field-values call (Hopper-era drivers): bytes
        that keep moving are work going on (weights to the GPU, NCCL over PCIe); a collective
        waiting for a peer moves none."""
        nv = self._nv
        ids = [getattr(nv, "NVML_FI_DEV_PCIE_COUNT_TX_BYTES", 197),
               getattr(nv, "NVML_FI_DEV_PCIE_COUNT_RX_BYTES", 198)]
        r = self._q(i, nv.nvmlDeviceGetFieldValues, h, ids)
        if r is NA or len(r) != 2:
            return NA
        if any(f.nvmlReturn != nv.NVML_SUCCESS for f in r):
            return NA
        return int(r[0].value.ullVal) + int(r[1].value.ullVal)

    def _counters(self, i: int, h: Any) -> dict[str, Any]:
        nv = self._nv
        q = self._q
        c = self._cap
        v: dict[str, Any] = {}
        if c(i, "ecc"):
            e = q(
                i,
                nv.nvmlDeviceGetTotalEccErrors,
                h,
                nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                nv.NVML_VOLATILE_ECC,
            )
            if e is not NA:
                v["ecc_volatile_uncorrected"] = int(e)
            e = q(
                i,
                nv.nvmlDeviceGetTotalEccErrors,
                h,
                nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED,
                nv.NVML_AGGREGATE_ECC,
            )
            if e is not NA:
                v["ecc_aggregate_uncorrected"] = int(e)
        if c(i, "remapped_rows"):
            r = q(i, nv.nvmlDeviceGetRemappedRows, h)
            if r is not NA:
                _corr, unc, pending, failure = r
                v["remapped_rows_uncorrectable"] = int(unc)
                v["remapped_rows_pending"] = bool(pending)
                v["remapped_rows_failure"] = bool(failure)
        if c(i, "retired_pages"):
            r = q(i, nv.nvmlDeviceGetRetiredPagesPendingStatus, h)
            if r is not NA:
                v["retired_pages_pending"] = bool(r)
        if c(i, "pcie_replay"):
            r = q(i, nv.nvmlDeviceGetPcieReplayCounter, h)
            if r is not NA:
                v["pcie_replay_counter"] = int(r)
        if c(i, "pcie_link"):
            for key, fn in (
                ("pcie_link_gen", nv.nvmlDeviceGetCurrPcieLinkGeneration),
                ("pcie_link_gen_max", nv.nvmlDeviceGetMaxPcieLinkGeneration),
                ("pcie_link_width", nv.nvmlDeviceGetCurrPcieLinkWidth),
                ("pcie_link_width_max", nv.nvmlDeviceGetMaxPcieLinkWidth),
            ):
                r = q(i, fn, h)
                if r is not NA:
                    v[key] = int(r)
        if c(i, "recovery_action"):
            fid = getattr(nv, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION", 230)
            r = q(i, nv.nvmlDeviceGetFieldValues, h, [fid])
            if r is not NA and len(r) and r[0].nvmlReturn == nv.NVML_SUCCESS:
                v["recovery_action"] = int(r[0].value.uiVal)
        return v

    # -- processes -----------------------------------------------------------------------------

    def _compute_procs(self, h: Any) -> list[Any]:
        nv = self._nv
        try:
            return list(nv.nvmlDeviceGetComputeRunningProcesses(h))
        except (nv.NVMLLibraryMismatchError, nv.NVMLError_FunctionNotFound):
            return list(nv.nvmlDeviceGetComputeRunningProcesses_v2(h))

    def processes(self, index: int) -> list[GpuProcess]:
        h = self._h(index)
        try:
            procs = self._q(index, self._compute_procs, h)
        except GpuLostError:
            return []
        if procs is NA:
            return []
        out = []
        for p in procs:
            mem = p.usedGpuMemory
            out.append(
                GpuProcess(
                    pid=int(p.pid),
                    used_memory_mib=None if mem is None else mem / MIB,
                    gpu_index=index,
                )
            )
        return out

    # -- XID events ----------------------------------------------------------------------------

    def _register_events(self) -> None:
        nv = self._nv
        self._xid_registered = {}
        try:
            es = nv.nvmlEventSetCreate()
        except nv.NVMLError as e:
            log.info("NVML event set unavailable: %s", e)
            return
        any_ok = False
        for i, h in enumerate(self._handles):
            try:
                supported = nv.nvmlDeviceGetSupportedEventTypes(h)
                if not supported & nv.nvmlEventTypeXidCriticalError:
                    self._xid_registered[i] = False
                    continue
                nv.nvmlDeviceRegisterEvents(h, nv.nvmlEventTypeXidCriticalError, es)
                self._xid_registered[i] = True
                any_ok = True
            except nv.NVMLError_Unknown as e:  # set is undefined now: free it (reference §3.6)
                log.warning("GPU %d: XID event registration failed: %s", i, e)
                self._xid_registered = {}
                try:
                    nv.nvmlEventSetFree(es)
                except nv.NVMLError:
                    pass
                return
            except nv.NVMLError as e:
                log.info("GPU %d: XID events not supported: %s", i, e)
                self._xid_registered[i] = False
        if any_ok:
            self._event_set = es
        else:
            try:
                nv.nvmlEventSetFree(es)
            except nv.NVMLError:
                pass

    @property
    def xid_supported(self) -> bool:
        return self._event_set is not None

    def wait_xid(self, timeout_s: float) -> list[XidEvent]:
        """Block up to ``timeout_s`` for XID events; drain whatever else is queued.

        The wait runs in slices of at most :data:`XID_WAIT_SLICE_S` inside this one call, so a
        long ``timeout_s`` costs the caller one thread hand-off, yet ``shutdown()`` (which needs
        the event lock) still gets it within one slice.
        """
        deadline = time.monotonic() + max(0.0, timeout_s)
        while True:
            left = max(0.0, deadline - time.monotonic())
            out = self._wait_xid_slice(min(left, XID_WAIT_SLICE_S))
            if out or left <= XID_WAIT_SLICE_S or self._closing.is_set():
                return out

    def _wait_xid_slice(self, timeout_s: float) -> list[XidEvent]:
        with self._event_lock:
            es = self._event_set
            if es is None or not self._initialised:
                self._closing.wait(max(0.0, timeout_s))
                return []
            nv = self._nv
            out: list[XidEvent] = []
            wait_ms = max(0, int(timeout_s * 1000))
            for _ in range(64):
                try:
                    d = nv.nvmlEventSetWait_v2(es, wait_ms)
                except nv.NVMLError_Timeout:
                    break
                except nv.NVMLError_GpuIsLost:
                    break  # the sampler marks the GPU lost
                except nv.NVMLError as e:
                    self.errors[type(e).__name__] = self.errors.get(type(e).__name__, 0) + 1
                    if not out:
                        time.sleep(min(timeout_s, 0.5))
                    break
                wait_ms = 0
                if not d.eventType & nv.nvmlEventTypeXidCriticalError:
                    continue
                idx = self._handle_index.get(_addr(d.device))
                if idx is None:
                    try:
                        idx = int(nv.nvmlDeviceGetIndex(d.device))
                    except nv.NVMLError:
                        idx = -1
                xid = int(d.eventData)
                out.append(
                    XidEvent(
                        gpu_index=idx, xid=xid, timestamp=time.time(), description=describe_xid(xid)
                    )
                )
            return out


def _s(v: Any) -> str:
    return v.decode() if isinstance(v, bytes) else str(v)


def _addr(handle: Any) -> int:
    import ctypes

    try:
        return int(ctypes.cast(handle, ctypes.c_void_p).value or 0)
    except Exception:  # noqa: BLE001
        return id(handle)
