"""GPU watchdog: NVML and fake backends, health rules, and the sampling monitor.

The daemon uses :func:`open_backend` and :class:`GpuMonitor`; everything NVML-specific
lives in :mod:`.nvml` and is only touched from the monitor's worker threads. Without a
driver, :func:`open_backend` returns a :class:`NoGpuBackend` carrying the reason, and the
rest of the daemon works without GPU signals.
"""

from __future__ import annotations

from .fake import INJECT_HELP, FakeBackend
from .monitor import GpuMonitor
from .nvml import NoGpuBackend, NvmlBackend, NvmlUnavailable
from .rules import XID_TABLE, describe_xid, evaluate
from .types import NA, GpuBackend, GpuHealth, GpuProcess, GpuSample, NAType, XidEvent, is_na

__all__ = [
    "INJECT_HELP",
    "NA",
    "XID_TABLE",
    "FakeBackend",
    "GpuBackend",
    "GpuHealth",
    "GpuMonitor",
    "GpuProcess",
    "GpuSample",
    "NAType",
    "NoGpuBackend",
    "NvmlBackend",
    "NvmlUnavailable",
    "XidEvent",
    "describe_xid",
    "evaluate",
    "is_na",
    "open_backend",
]


def open_backend(fake_gpus: int | None) -> GpuBackend:
    """``--fake-gpus N`` -> FakeBackend(N); else NVML; without a driver -> NoGpuBackend(reason).

    Never raises for a missing driver. Initialises NVML (once) to find out.
    """
    if fake_gpus is not None:
        fake = FakeBackend(fake_gpus)
        fake.export_reports()
        return fake
    backend = NvmlBackend()
    try:
        backend.init()
    except NvmlUnavailable as e:
        return NoGpuBackend(str(e))
    except Exception as e:  # noqa: BLE001 - an odd driver state is still "no GPU signal"
        return NoGpuBackend(f"NVML unavailable: {type(e).__name__}: {e}")
    return backend
