"""NvmlBackend against a scripted pynvml (no driver here): NA mapping, lost GPUs, XID events."""

from __future__ import annotations

import ctypes
import threading
import time
from types import SimpleNamespace
from typing import Any

import anyio
import pynvml
import pytest

from supervisor.gpu import NA, GpuMonitor, NvmlBackend, evaluate

MIB = 1024 * 1024


def err(code: int) -> pynvml.NVMLError:
    return pynvml.NVMLError(code)


class ScriptedNvml:
    """Two H200-like GPUs; ``fail[(gpu, fn_name)] = error code`` makes a call fail."""

    def __init__(self, monkeypatch: pytest.MonkeyPatch) -> None:
        self.fail: dict[tuple[int, str], int] = {}
        self.events: list[SimpleNamespace] = []
        self.handles = [ctypes.c_void_p(0x1000 + i) for i in range(2)]
        self.procs: dict[int, list[Any]] = {0: [], 1: []}
        self.registered: list[int] = []
        self.ecc = 0
        self.link = [0, 0]  # PCIe bytes counted per GPU (each of TX and RX)
        nv = pynvml

        def idx(h: Any) -> int:
            return int(h.value) - 0x1000

        def dev(name: str, value: Any) -> Any:
            def fn(h: Any, *a: Any) -> Any:
                code = self.fail.get((idx(h), name))
                if code is not None:
                    raise err(code)
                return value(idx(h), *a) if callable(value) else value

            fn.__name__ = name
            return fn

        patches: dict[str, Any] = {
            "nvmlInit": lambda: None,
            "nvmlShutdown": lambda: None,
            "nvmlSystemGetDriverVersion": lambda: "570.00",
            "nvmlDeviceGetCount": lambda: 2,
            "nvmlDeviceGetHandleByIndex": lambda i: self.handles[i],
            "nvmlDeviceGetUUID": dev("uuid", lambda i: f"GPU-{i}"),
            "nvmlDeviceGetName": dev("name", "NVIDIA H200"),
            "nvmlDeviceGetUtilizationRates": dev("util", SimpleNamespace(gpu=55, memory=20)),
            "nvmlDeviceGetMemoryInfo": dev(
                "mem", lambda i, *a: SimpleNamespace(used=2048 * MIB, total=143771 * MIB)
            ),
            "nvmlDeviceGetTemperatureV": dev("temp", 41),
            "nvmlDeviceGetTemperature": dev("temp_old", 41),
            "nvmlDeviceGetTemperatureThreshold": dev("temp_thr", 87),
            "nvmlDeviceGetPowerUsage": dev("power", 350_000),
            "nvmlDeviceGetEnforcedPowerLimit": dev("plimit", 700_000),
            "nvmlDeviceGetClockInfo": dev("clock", 1755),
            "nvmlDeviceGetMaxClockInfo": dev("maxclock", 1980),
            "nvmlDeviceGetCurrentClocksEventReasons": dev("reasons", 0x4 | 0x8),
            "nvmlDeviceGetTotalEccErrors": dev("ecc", lambda i, *a: self.ecc),
            "nvmlDeviceGetRemappedRows": dev("remap", (0, 0, 1, 0)),
            "nvmlDeviceGetRetiredPagesPendingStatus": dev("retired", 0),
            "nvmlDeviceGetPcieReplayCounter": dev("replay", 3),
            "nvmlDeviceGetCurrPcieLinkGeneration": dev("gen", 5),
            "nvmlDeviceGetMaxPcieLinkGeneration": dev("genmax", 5),
            "nvmlDeviceGetCurrPcieLinkWidth": dev("width", 16),
            "nvmlDeviceGetMaxPcieLinkWidth": dev("widthmax", 16),
            "nvmlDeviceGetFieldValues": dev(
                "fields",
                lambda i, ids: [
                    SimpleNamespace(nvmlReturn=nv.NVML_SUCCESS,
                                    value=SimpleNamespace(uiVal=0, ullVal=self.link[i]))
                    for _ in ids
                ],
            ),
            "nvmlDeviceGetComputeRunningProcesses": dev("procs", lambda i: self.procs[i]),
            "nvmlDeviceGetSupportedEventTypes": dev("evtypes", 0xFFFF),
            "nvmlDeviceRegisterEvents": dev(
                "register", lambda i, mask, es: self.registered.append(i)
            ),
            "nvmlEventSetCreate": lambda: "event-set",
            "nvmlEventSetFree": lambda es: None,
            "nvmlEventSetWait_v2": self._wait,
            "nvmlDeviceGetIndex": lambda h: idx(h),
        }
        for name, fn in patches.items():
            monkeypatch.setattr(pynvml, name, fn)

    def _wait(self, es: Any, timeout_ms: int) -> Any:
        if not self.events:
            time.sleep(timeout_ms / 1000)  # like the driver: block, then time out
            raise err(pynvml.NVML_ERROR_TIMEOUT)
        return self.events.pop(0)


@pytest.fixture
def nvml(monkeypatch: pytest.MonkeyPatch) -> ScriptedNvml:
    return ScriptedNvml(monkeypatch)


def test_full_sample_units_and_decoding(nvml: ScriptedNvml) -> None:
    b = NvmlBackend()
    b.init()
    b.init()  # idempotent
    assert b.device_count() == 2 and b.driver_version == "570.00"
    s = b.sample(0)
    assert (s.uuid, s.name, s.utilization_gpu, s.memory_used_mib) == (
        "GPU-0",
        "NVIDIA H200",
        55,
        2048,
    )
    assert (s.power_w, s.power_limit_w, s.temperature_slowdown_c) == (350.0, 700.0, 87.0)
    assert s.throttle_reasons == ("sw_power_cap", "hw_slowdown")
    assert s.remapped_rows_pending is True and s.recovery_action == 0 and s.pcie_link_width == 16
    assert is_na_all(b.sample(0, counters=False), "ecc_volatile_uncorrected", "pcie_replay_counter")
    h = evaluate(s, [])
    assert h.level == "warn" and "hardware slowdown (hw_slowdown)" in h.flags
    b.shutdown()


def is_na_all(s: Any, *names: str) -> bool:
    return all(getattr(s, n) is NA for n in names)


def test_not_supported_and_permission_are_no_signal(nvml: ScriptedNvml) -> None:
    nvml.fail[(1, "ecc")] = pynvml.NVML_ERROR_NOT_SUPPORTED
    nvml.fail[(1, "remap")] = pynvml.NVML_ERROR_NOT_SUPPORTED
    nvml.fail[(1, "power")] = pynvml.NVML_ERROR_NO_PERMISSION
    nvml.fail[(1, "reasons")] = pynvml.NVML_ERROR_UNKNOWN  # other errors: NA too, but counted
    b = NvmlBackend()
    b.init()
    caps = b.probe(1)
    assert caps["ecc"] is False and caps["remapped_rows"] is False and caps["power"] is False
    assert caps["utilization"] is True and caps["xid_events"] is True
    s = b.sample(1)
    assert is_na_all(
        s, "ecc_volatile_uncorrected", "remapped_rows_pending", "power_w", "throttle_reasons"
    )
    assert s.utilization_gpu == 55 and b.errors.get("NVMLError_Unknown", 0) >= 1
    assert b.probe(0)["ecc"] is True


def test_gpu_is_lost_marks_sample_lost(nvml: ScriptedNvml) -> None:
    b = NvmlBackend()
    b.init()
    b.probe(0)
    nvml.fail[(0, "util")] = pynvml.NVML_ERROR_GPU_IS_LOST
    s = b.sample(0)
    assert s.lost and s.uuid == "GPU-0" and evaluate(s, []).level == "lost"
    nvml.fail[(0, "procs")] = pynvml.NVML_ERROR_GPU_IS_LOST
    assert b.processes(0) == []


def test_reset_required_sets_recovery_action(nvml: ScriptedNvml) -> None:
    b = NvmlBackend()
    b.init()
    nvml.fail[(0, "temp")] = pynvml.NVML_ERROR_RESET_REQUIRED
    s = b.sample(0, counters=False)
    assert s.recovery_action == 1 and evaluate(s, []).action == "drain and reset GPU"


def test_processes_and_v2_fallback(nvml: ScriptedNvml, monkeypatch: pytest.MonkeyPatch) -> None:
    nvml.procs[1] = [
        SimpleNamespace(pid=4242, usedGpuMemory=1024 * MIB),
        SimpleNamespace(pid=7, usedGpuMemory=None),
    ]
    b = NvmlBackend()
    b.init()
    assert [(p.pid, p.used_memory_mib, p.gpu_index) for p in b.processes(1)] == [
        (4242, 1024.0, 1),
        (7, None, 1),
    ]

    def mismatch(h: Any) -> Any:
        raise pynvml.NVMLLibraryMismatchError("old driver")

    monkeypatch.setattr(pynvml, "nvmlDeviceGetComputeRunningProcesses", mismatch)
    monkeypatch.setattr(
        pynvml,
        "nvmlDeviceGetComputeRunningProcesses_v2",
        lambda h: [SimpleNamespace(pid=9, usedGpuMemory=MIB)],
    )
    assert [p.pid for p in b.processes(0)] == [9]


def test_xid_events_map_to_gpu_index(nvml: ScriptedNvml) -> None:
    b = NvmlBackend()
    b.init()
    assert nvml.registered == [0, 1] and b.xid_supported
    assert b.wait_xid(0.01) == []
    nvml.events = [
        SimpleNamespace(
            device=nvml.handles[1], eventType=pynvml.nvmlEventTypeXidCriticalError, eventData=79
        ),
        SimpleNamespace(
            device=nvml.handles[0], eventType=pynvml.nvmlEventTypeXidCriticalError, eventData=13
        ),
    ]
    evs = b.wait_xid(0.01)
    assert [(e.gpu_index, e.xid, e.description) for e in evs] == [
        (1, 79, "GPU fell off the bus"),
        (0, 13, "graphics engine exception"),
    ]


def test_xid_unsupported_waits_and_returns_nothing(nvml: ScriptedNvml) -> None:
    nvml.fail[(0, "register")] = pynvml.NVML_ERROR_NOT_SUPPORTED
    nvml.fail[(1, "register")] = pynvml.NVML_ERROR_NOT_SUPPORTED
    b = NvmlBackend()
    b.init()
    assert not b.xid_supported and b.probe(0)["xid_events"] is False
    assert b.wait_xid(0.01) == []


@pytest.mark.parametrize("anyio_backend", ["asyncio"])
@pytest.mark.anyio
async def test_monitor_over_scripted_nvml(nvml: ScriptedNvml, anyio_backend: str) -> None:
    seen: list[Any] = []
    mon = GpuMonitor(
        NvmlBackend(), gauge_interval=0.05, slow_interval=0.05, xid_poll=0.05, on_xid=seen.append
    )
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(5):
            await tg.start(mon.run)
        assert mon.status() == {"backend": "nvml", "available": True, "reason": None, "count": 2}
        assert mon.snapshot()[0]["health"]["level"] == "warn"  # hw_slowdown + remap pending
        nvml.ecc = 3
        nvml.events.append(
            SimpleNamespace(
                device=nvml.handles[1], eventType=pynvml.nvmlEventTypeXidCriticalError, eventData=48
            )
        )
        with anyio.fail_after(5):
            while not seen or mon.snapshot()[0]["ecc_volatile_uncorrected"] != 3:  # noqa: ASYNC110
                await anyio.sleep(0.01)
        assert seen[0].xid == 48 and mon.snapshot()[1]["health"]["level"] == "critical"
        assert "ECC uncorrected errors (volatile 3)" in mon.snapshot()[0]["health"]["flags"]
        assert mon.utilization([0]) == 55
        tg.cancel_scope.cancel()


def test_long_xid_wait_is_one_call_and_shutdown_ends_it(nvml: ScriptedNvml) -> None:
    """A long wait_xid runs in short NVML slices: events still arrive at once, and shutdown()
    (which needs the event lock) does not wait for the whole timeout."""
    b = NvmlBackend()
    b.init()
    got: list[Any] = []
    t = threading.Thread(target=lambda: got.append(b.wait_xid(30.0)))
    t.start()
    time.sleep(0.1)
    nvml.events.append(
        SimpleNamespace(
            device=nvml.handles[0], eventType=pynvml.nvmlEventTypeXidCriticalError, eventData=79
        )
    )
    t.join(2.0)
    assert not t.is_alive() and [e.xid for e in got[0]] == [79]

    t = threading.Thread(target=lambda: got.append(b.wait_xid(30.0)))
    t.start()
    time.sleep(0.1)
    t0 = time.monotonic()
    b.shutdown()
    t.join(2.0)
    assert not t.is_alive() and got[1] == []
    assert time.monotonic() - t0 < 1.5


def test_pcie_byte_counters_are_read_from_field_values(monkeypatch: pytest.MonkeyPatch) -> None:
    nv = ScriptedNvml(monkeypatch)
    b = NvmlBackend()
    b.init()
    nv.link[0] = 5_000
    assert b.probe(0)["link_bytes"] is True
    assert b.sample(0).link_bytes == 10_000  # TX + RX
    nv.fail[(0, "fields")] = pynvml.NVML_ERROR_NOT_SUPPORTED
    assert b.probe(0)["link_bytes"] is False and b.sample(0).link_bytes is NA
