"""GPU watchdog: rules table, fake backend faults, no-NVML behaviour, the async monitor."""

from __future__ import annotations

import json
import os
import threading
import time
from typing import Any

import anyio
import pytest

from supervisor.gpu import (
    NA,
    FakeBackend,
    GpuBackend,
    GpuMonitor,
    GpuSample,
    NoGpuBackend,
    NvmlBackend,
    XidEvent,
    evaluate,
    open_backend,
)
from supervisor.gpu.rules import XID_TABLE, decode_throttle
from supervisor.gpu.types import is_na

FAST = {"gauge_interval": 0.05, "slow_interval": 0.05, "xid_poll": 0.05}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


def healthy(**kw: Any) -> GpuSample:
    base: dict[str, Any] = dict(
        index=0,
        uuid="GPU-x",
        name="H200",
        timestamp=1000.0,
        utilization_gpu=10.0,
        utilization_memory=5.0,
        memory_used_mib=1000.0,
        memory_total_mib=143771.0,
        temperature_c=40.0,
        power_w=100.0,
        power_limit_w=700.0,
        sm_clock_mhz=1980.0,
        max_sm_clock_mhz=1980.0,
        throttle_reasons=(),
        ecc_volatile_uncorrected=0,
        ecc_aggregate_uncorrected=0,
        remapped_rows_pending=False,
        remapped_rows_failure=False,
        remapped_rows_uncorrectable=0,
        pcie_replay_counter=0,
        pcie_link_gen=5,
        pcie_link_gen_max=5,
        pcie_link_width=16,
        pcie_link_width_max=16,
        recovery_action=0,
    )
    base.update(kw)
    return GpuSample(**base)


def xid(code: int, *, gpu: int = 0, ts: float = 999.0, desc: str = "") -> XidEvent:
    return XidEvent(
        gpu_index=gpu, xid=code, timestamp=ts, description=desc or XID_TABLE.get(code, ("?",))[0]
    )


# --- NA and value types ---------------------------------------------------------------------


def test_na_is_falsy_singleton_and_serialises_to_none() -> None:
    import copy
    import pickle

    assert not NA and repr(NA) == "NA" and is_na(NA)
    assert copy.deepcopy(NA) is NA and pickle.loads(pickle.dumps(NA)) is NA
    d = GpuSample(index=3).to_dict()
    assert d["index"] == 3 and d["temperature_c"] is None and d["throttle_reasons"] is None
    json.dumps(d)
    assert healthy(throttle_reasons=("hw_slowdown",)).to_dict()["throttle_reasons"] == [
        "hw_slowdown"
    ]


# --- rules: each threshold -----------------------------------------------------------------


def test_healthy_sample_is_ok() -> None:
    h = evaluate(healthy(), [])
    assert (h.level, h.flags, h.action) == ("ok", (), None)


def test_all_na_is_unknown_not_ok_or_bad() -> None:
    h = evaluate(GpuSample(index=0, timestamp=1.0), [])
    assert h.level == "unknown" and h.action is None


@pytest.mark.parametrize(
    "field",
    [
        "temperature_c",
        "ecc_volatile_uncorrected",
        "remapped_rows_pending",
        "throttle_reasons",
        "pcie_replay_counter",
        "recovery_action",
    ],
)
def test_na_metric_is_no_signal(field: str) -> None:
    assert evaluate(healthy(**{field: NA}), [], healthy(**{field: NA})).level == "ok"


def test_lost() -> None:
    h = evaluate(GpuSample(index=0, lost=True), [])
    assert h.level == "lost" and h.action == "reboot node"


@pytest.mark.parametrize(
    ("temp", "slowdown", "level"),
    [
        (84, NA, "ok"),
        (85, NA, "warn"),
        (89.5, NA, "warn"),
        (90, NA, "critical"),
        (92, NA, "critical"),
        (80, 87.0, "ok"),
        (83, 87.0, "warn"),
        (87, 87.0, "critical"),
    ],
)
def test_temperature(temp: float, slowdown: Any, level: str) -> None:
    h = evaluate(healthy(temperature_c=float(temp), temperature_slowdown_c=slowdown), [])
    assert h.level == level
    if level == "critical" and slowdown is NA:
        assert h.flags == (f"temperature {temp:g} C >= 90 C",)


def test_throttle_benign_vs_hardware() -> None:
    benign = ("gpu_idle", "applications_clocks", "sw_power_cap", "sync_boost", "display_clocks")
    assert evaluate(healthy(throttle_reasons=benign), []).level == "ok"
    for r in ("hw_slowdown", "hw_thermal", "hw_power_brake"):
        h = evaluate(healthy(throttle_reasons=("sw_power_cap", r)), [])
        assert h.level == "warn" and any(r in f for f in h.flags), h
    assert evaluate(healthy(throttle_reasons=("sw_thermal",)), []).level == "warn"


def test_decode_throttle_bits() -> None:
    assert decode_throttle(0x1 | 0x4 | 0x8 | 0x80) == (
        "gpu_idle",
        "sw_power_cap",
        "hw_slowdown",
        "hw_power_brake",
    )
    assert decode_throttle(0) == ()
    assert decode_throttle(1 << 20) == ("bit_0x100000",)


def test_ecc() -> None:
    h = evaluate(healthy(ecc_volatile_uncorrected=2), [])
    assert h.level == "critical" and "ECC uncorrected errors (volatile 2)" in h.flags
    assert h.action == "drain and reset GPU"
    # aggregate counts only as an increase against the baseline
    assert (
        evaluate(
            healthy(ecc_aggregate_uncorrected=7), [], healthy(ecc_aggregate_uncorrected=7)
        ).level
        == "ok"
    )
    assert (
        evaluate(
            healthy(ecc_aggregate_uncorrected=8), [], healthy(ecc_aggregate_uncorrected=7)
        ).level
        == "critical"
    )


def test_remapped_rows_and_retired_pages() -> None:
    assert evaluate(healthy(remapped_rows_pending=True), []).level == "warn"
    h = evaluate(healthy(remapped_rows_failure=True), [])
    assert h.level == "critical" and "RMA" in (h.action or "")
    assert evaluate(healthy(remapped_rows_uncorrectable=600), []).level == "warn"
    assert evaluate(healthy(remapped_rows_uncorrectable=10), []).level == "ok"
    assert evaluate(healthy(retired_pages_pending=True), []).level == "warn"


def test_pcie_replays_rate_vs_baseline() -> None:
    base = healthy(pcie_replay_counter=100, timestamp=1000.0)
    assert evaluate(healthy(pcie_replay_counter=100, timestamp=1060.0), [], base).level == "ok"
    assert (
        evaluate(healthy(pcie_replay_counter=105, timestamp=1060.0), [], base).level == "ok"
    )  # 5/min
    h = evaluate(healthy(pcie_replay_counter=120, timestamp=1060.0), [], base)
    assert h.level == "warn" and "PCIe replays +20" in h.flags[0]
    assert (
        evaluate(healthy(pcie_replay_counter=500), []).level == "ok"
    )  # absolute value alone: no signal


def test_pcie_link_downtrained() -> None:
    assert evaluate(healthy(pcie_link_width=8), []).level == "warn"
    assert (
        evaluate(healthy(pcie_link_gen=1, utilization_gpu=0.0), []).level == "ok"
    )  # idle downclock
    assert evaluate(healthy(pcie_link_gen=3, utilization_gpu=90.0), []).level == "warn"


@pytest.mark.parametrize(
    ("action", "level", "text"),
    [
        (1, "critical", "drain and reset GPU"),
        (2, "critical", "reboot node"),
        (4, "critical", "drain and reset GPU"),
        (7, "critical", "reboot node"),
        (0, "ok", None),
    ],
)
def test_recovery_action_field(action: int, level: str, text: str | None) -> None:
    h = evaluate(healthy(recovery_action=action), [])
    assert (h.level, h.action) == (level, text)


# --- rules: XID classes ----------------------------------------------------------------------


@pytest.mark.parametrize(
    ("code", "level", "action"),
    [
        (79, "critical", "reboot node"),
        (48, "critical", "drain and reset GPU"),
        (74, "critical", "drain and reset GPU"),
        (95, "critical", "drain and reset GPU"),
        (119, "critical", "drain and reset GPU"),
        (120, "critical", "drain and reset GPU"),
        (46, "critical", "drain and reset GPU"),
        (62, "critical", "drain and reset GPU"),
        (64, "critical", "drain and reset GPU; RMA candidate, keep out of service"),
        (63, "warn", "reset GPU at next idle window"),
        (92, "warn", "degrade GPU (avoid for new launches)"),
        (94, "warn", "restart the server"),
        (13, "warn", "restart the server"),
        (31, "warn", "restart the server"),
        (43, "warn", "restart the server"),
        (68, "warn", "restart the server"),
        (12345, "warn", "investigate XID (see NVIDIA XID catalog)"),
    ],
)
def test_xid_classes(code: int, level: str, action: str) -> None:
    h = evaluate(healthy(), [xid(code)])
    assert (h.level, h.action) == (level, action)
    assert h.flags[0].startswith(f"XID {code}: ")


def test_xid_79_flag_text() -> None:
    assert evaluate(healthy(), [xid(79)]).flags == ("XID 79: GPU fell off the bus",)


def test_xid_for_other_gpu_is_ignored() -> None:
    assert evaluate(healthy(), [xid(79, gpu=1)]).level == "ok"


def test_app_xid_ages_out_but_hardware_xid_stays() -> None:
    old = 1000.0 - 3600
    assert evaluate(healthy(), [xid(13, ts=old)]).level == "ok"
    assert evaluate(healthy(), [xid(48, ts=old)]).level == "critical"


def test_repeated_xid94_degrades() -> None:
    h = evaluate(healthy(), [xid(94, ts=100.0), xid(94, ts=990.0)])
    assert "XID 94 x2 within 24 h" in h.flags


@pytest.mark.parametrize(
    ("text", "action"),
    [
        (
            "GPU recovery action changed from 0x0 (None) to 0x2 (Node Reboot Required)",
            "reboot node",
        ),
        (
            "GPU recovery action changed from 0x0 (None) to 0x1 (GPU Reset Required)",
            "drain and reset GPU",
        ),
    ],
)
def test_xid_154_parses_target(text: str, action: str) -> None:
    h = evaluate(healthy(), [xid(154, desc=text)])
    assert (h.level, h.action) == ("critical", action)


def test_worst_flag_wins_and_all_flags_kept() -> None:
    h = evaluate(healthy(temperature_c=86.0, remapped_rows_pending=True), [xid(79)])
    assert h.level == "critical" and h.action == "reboot node"
    assert h.flags[0].startswith("XID 79") and len(h.flags) == 3


# --- fake backend ------------------------------------------------------------------------------


def test_fake_backend_defaults() -> None:
    b = FakeBackend(2, seed=1)
    assert isinstance(b, GpuBackend) and b.device_count() == 2
    s = b.sample(1)
    assert s.memory_total_mib == 143771 and s.power_limit_w == 700 and s.utilization_gpu == 0
    assert s.uuid != b.sample(0).uuid and s.uuid == FakeBackend(2, seed=1).sample(1).uuid
    assert evaluate(s, []).level == "ok"
    assert b.probe(0)["ecc"] and not b.probe(0)["retired_pages"]
    assert b.processes(0) == [] and b.wait_xid(0.0) == []
    assert is_na(b.sample(0, counters=False).ecc_volatile_uncorrected)


def test_fake_inject_each_fault() -> None:
    b = FakeBackend(2)
    b.inject("ecc:0:2")
    assert evaluate(b.sample(0), []).flags == ("ECC uncorrected errors (volatile 2)",)
    b.inject("temp:1:92")
    assert evaluate(b.sample(1), []).flags == ("temperature 92 C >= 90 C",)
    b.inject("clear")
    b.inject("throttle:0:hw_slowdown")
    assert "hw_slowdown" in b.sample(0).throttle_reasons  # type: ignore[operator]
    assert evaluate(b.sample(0), []).level == "warn"
    b.inject("remap:1")
    assert b.sample(1).remapped_rows_pending is True
    b.inject("foreign:1:4242:2048")
    assert b.processes(1)[0].pid == 4242 and b.sample(1).memory_used_mib == 2048
    b.inject("busy:1:97")
    utils = {b.sample(1).utilization_gpu for _ in range(5)}
    assert all(90 <= u <= 100 for u in utils) and len(utils) > 1  # type: ignore[operator]
    b.inject("xid:1:79")
    evs = b.wait_xid(1.0)
    assert [(e.gpu_index, e.xid, e.description) for e in evs] == [(1, 79, "GPU fell off the bus")]
    b.inject("lost:0")
    assert b.sample(0).lost and evaluate(b.sample(0), []).level == "lost" and b.processes(0) == []
    b.inject("clear:0")
    assert not b.sample(0).lost and b.sample(1).remapped_rows_pending is True
    b.inject("clear")
    assert evaluate(b.sample(1), []).level == "ok" and b.processes(1) == []


def test_fake_wait_xid_wakes_from_another_thread() -> None:
    b = FakeBackend(1)
    threading.Timer(0.05, b.inject, args=("xid:0:48",)).start()
    t0 = time.monotonic()
    assert [e.xid for e in b.wait_xid(5.0)] == [48]
    assert time.monotonic() - t0 < 2.0


@pytest.mark.parametrize(
    ("spec", "match"),
    [
        ("bogus:0", "unknown kind"),
        ("xid:0", "takes 2 argument"),
        ("xid:9:79", "no GPU 9"),
        ("xid:0:abc", "not an integer"),
        ("ecc:0:-1", ">= 0"),
        ("temp:0:hot", "not a number"),
        ("temp:0:500", "outside"),
        ("throttle:0:turbo", "unknown throttle reason"),
        ("foreign:0:12", "takes 3 argument"),
        ("busy:0:150", "outside"),
        ("clear:0:1", "at most"),
        ("", "unknown kind"),
    ],
)
def test_fake_bad_specs(spec: str, match: str) -> None:
    with pytest.raises(ValueError, match=match):
        FakeBackend(2).inject(spec)


# --- no NVML on this machine -----------------------------------------------------------------


def test_open_backend_without_driver_returns_no_gpu_backend() -> None:
    try:
        import pynvml

        pynvml.nvmlInit()
    except Exception:  # noqa: BLE001
        pass
    else:  # pragma: no cover - only on a GPU host
        pynvml.nvmlShutdown()
        pytest.skip("NVML is available here")
    b = open_backend(None)
    assert isinstance(b, NoGpuBackend) and b.name == "none" and b.device_count() == 0
    assert b.reason.startswith("NVML unavailable:")
    assert isinstance(open_backend(3), FakeBackend)


def test_nvml_backend_init_raises_clear_error_without_driver() -> None:
    from supervisor.gpu import NvmlUnavailable

    if not isinstance(open_backend(None), NoGpuBackend):  # pragma: no cover
        pytest.skip("NVML is available here")
    with pytest.raises(NvmlUnavailable, match="NVML unavailable"):
        NvmlBackend().init()


@pytest.mark.anyio
async def test_monitor_without_gpus() -> None:
    mon = GpuMonitor(NoGpuBackend("NVML unavailable: test"), **FAST)
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(5):
            await tg.start(mon.run)
        assert mon.status() == {
            "backend": "none",
            "available": False,
            "reason": "NVML unavailable: test",
            "count": 0,
        }
        assert mon.snapshot() == [] and mon.utilization() is None
        assert await mon.foreign_processes(None, set()) == []
        with pytest.raises(ValueError, match="needs --fake-gpus"):
            await mon.inject("xid:0:79")
        tg.cancel_scope.cancel()


# --- monitor with the fake backend ------------------------------------------------------------


async def wait_for(pred: Any, limit: float = 5.0) -> None:
    with anyio.fail_after(limit):
        while not pred():  # noqa: ASYNC110 - polling a snapshot is the point
            await anyio.sleep(0.01)


@pytest.mark.anyio
async def test_monitor_snapshot_history_and_health() -> None:
    updates: list[list[dict[str, Any]]] = []
    mon = GpuMonitor(FakeBackend(2), history=8, on_update=updates.append, **FAST)
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(5):
            await tg.start(mon.run)
        snap = mon.snapshot()  # filled before started()
        assert [g["index"] for g in snap] == [0, 1]
        assert snap[0]["health"] == {"level": "ok", "flags": [], "action": None}
        assert mon.status() == {"backend": "fake", "available": True, "reason": None, "count": 2}
        assert snap[0]["capabilities"]["ecc"] is True
        await wait_for(lambda: len(mon.snapshot()[0]["history"]["util"]) == 8)
        rounds = mon.statistics()["gauge_rounds"]  # history stays bounded as rounds go on
        await wait_for(lambda: mon.statistics()["gauge_rounds"] >= rounds + 3)
        hist = mon.snapshot()[0]["history"]
        assert {k: len(v) for k, v in hist.items()} == {"util": 8, "mem": 8, "temp": 8, "power": 8}
        assert updates and updates[-1][0]["memory_total_mib"] == 143771
        json.dumps(mon.snapshot())
        # counters from the slow loop are carried into gauge samples
        assert mon.snapshot()[0]["ecc_volatile_uncorrected"] == 0

        await mon.inject("temp:1:92")
        h = mon.snapshot()[1]["health"]
        assert h["level"] == "critical" and "temperature 92 C >= 90 C" in h["flags"]
        await mon.inject("ecc:0:2")
        await wait_for(
            lambda: "ECC uncorrected errors (volatile 2)" in mon.snapshot()[0]["health"]["flags"]
        )
        await mon.inject("lost:1")
        await wait_for(lambda: mon.snapshot()[1]["health"]["level"] == "lost")
        await mon.inject("clear")
        await wait_for(lambda: all(g["health"]["level"] == "ok" for g in mon.snapshot()))
        with pytest.raises(ValueError, match="bad fault spec"):
            await mon.inject("nonsense")
        st = mon.statistics()
        assert (
            st["samples"] > 0
            and st["gauge_rounds"] > 0
            and st["last_sample_duration_s"] is not None
        )
        tg.cancel_scope.cancel()


@pytest.mark.anyio
async def test_monitor_xid_reaches_on_xid_and_health() -> None:
    seen: list[XidEvent] = []
    mon = GpuMonitor(FakeBackend(2), on_xid=seen.append, **FAST)
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(5):
            await tg.start(mon.run)
        await mon.inject("xid:1:79")
        await wait_for(lambda: bool(seen), limit=3)
        assert (seen[0].gpu_index, seen[0].xid) == (1, 79)
        await wait_for(lambda: mon.snapshot()[1]["health"]["level"] == "critical")
        h = mon.snapshot()[1]["health"]
        assert h["flags"][0] == "XID 79: GPU fell off the bus" and h["action"] == "reboot node"
        assert mon.snapshot()[1]["xids"][0]["xid"] == 79
        assert mon.snapshot()[0]["health"]["level"] == "ok"
        assert mon.statistics()["xid_events"] == 1
        await mon.inject("clear:1")  # a reset clears the recorded XIDs too
        await wait_for(lambda: mon.snapshot()[1]["health"]["level"] == "ok")
        tg.cancel_scope.cancel()


@pytest.mark.anyio
async def test_monitor_foreign_processes_and_utilization() -> None:
    mon = GpuMonitor(FakeBackend(3), **FAST)
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(5):
            await tg.start(mon.run)
        assert mon.utilization() == 0.0
        ours = os.getpid()
        await mon.inject(f"foreign:0:{ours}:50000")
        await mon.inject("foreign:1:777:1024")
        await mon.inject("foreign:2:888:10")
        with anyio.fail_after(5):
            found = await mon.foreign_processes(None, {ours})
        assert sorted((p.gpu_index, p.pid, p.used_memory_mib) for p in found) == [
            (1, 777, 1024.0),
            (2, 888, 10.0),
        ]
        with anyio.fail_after(5):
            assert [p.pid for p in await mon.foreign_processes([0, 1], {ours})] == [777]
            assert await mon.foreign_processes([0], {ours}) == []
        assert mon.snapshot()[1]["processes"] == [
            {"pid": 777, "used_memory_mib": 1024.0, "gpu_index": 1}
        ]
        assert mon.snapshot()[1]["memory_used_mib"] == 1024.0

        await mon.inject("busy:2:88")
        await wait_for(lambda: (mon.utilization([2]) or 0) > 80)
        assert (mon.utilization() or 0) > 80
        assert mon.utilization([0, 1]) == 0.0
        assert mon.utilization([7]) is None
        tg.cancel_scope.cancel()


class _StallingBackend(FakeBackend):
    """Sample of GPU 0 stalls (a GPU being lost): the loop must not hang."""

    def __init__(self) -> None:
        super().__init__(2)
        self.stall = threading.Event()
        self.release = threading.Event()

    def sample(self, index: int, *, counters: bool = True) -> GpuSample:
        if index == 0 and self.stall.is_set():
            self.release.wait(5)
        return super().sample(index, counters=counters)


@pytest.mark.anyio
async def test_monitor_survives_a_stalled_call() -> None:
    b = _StallingBackend()
    mon = GpuMonitor(b, call_timeout=0.2, **FAST)
    try:
        async with anyio.create_task_group() as tg:
            with anyio.fail_after(5):
                await tg.start(mon.run)
            b.stall.set()
            await wait_for(lambda: mon.snapshot()[0]["stale"])
            h = mon.snapshot()[0]["health"]
            assert h["level"] == "warn" and any("timed out" in f for f in h["flags"])
            assert mon.statistics()["timeouts"] >= 1
            b.release.set()
            b.stall.clear()
            await wait_for(lambda: not mon.snapshot()[0]["stale"])
            tg.cancel_scope.cancel()
    finally:
        b.release.set()


def test_monitor_runs_under_plain_anyio_run() -> None:
    async def main() -> list[dict[str, Any]]:
        mon = GpuMonitor(FakeBackend(1), **FAST)
        async with anyio.create_task_group() as tg:
            with anyio.fail_after(5):
                await tg.start(mon.run)
            await anyio.sleep(0.15)
            tg.cancel_scope.cancel()
        return mon.snapshot()

    snap = anyio.run(main)
    assert len(snap) == 1 and snap[0]["health"]["level"] == "ok"


# --- cost of an idle monitor: one thread call per round, a cached snapshot ----------------------


def _reference_snapshot(mon: GpuMonitor) -> list[dict[str, Any]]:
    """The snapshot as built before caching (field by field): the cache must equal it."""
    from dataclasses import fields

    from supervisor.gpu.monitor import SHOWN_HISTORY
    from supervisor.gpu.types import json_safe

    out = []
    for i in sorted(mon._samples):
        s = mon._samples[i]
        d = {f.name: json_safe(getattr(s, f.name)) for f in fields(s)}
        h = mon._health.get(i)
        d["health"] = h.to_dict() if h else {"level": "unknown", "flags": [], "action": None}
        d["processes"] = [p.to_dict() for p in mon._procs.get(i, [])]
        d["history"] = {k: list(dq) for k, dq in mon._hist.get(i, {}).items()
                        if k in SHOWN_HISTORY}
        d["xids"] = [e.to_dict() for e in mon._xids.get(i, ())]
        d["capabilities"] = dict(mon._caps.get(i, {}))
        d["stale"] = i in mon._telemetry
        out.append(d)
    return out


def test_sample_to_dict_matches_fields_and_json_safe() -> None:
    from dataclasses import fields

    from supervisor.gpu.types import json_safe

    for s in (healthy(), healthy(throttle_reasons=("hw_slowdown",), power_w=NA), GpuSample(3)):
        d = s.to_dict()
        assert d == {f.name: json_safe(getattr(s, f.name)) for f in fields(s)}
        assert list(d) == [f.name for f in fields(s)]
        json.dumps(d)


@pytest.mark.anyio
async def test_gauge_round_is_one_thread_call_for_all_gpus() -> None:
    b = FakeBackend(8)
    mon = GpuMonitor(b, gauge_interval=0.02, slow_interval=3600, xid_poll=0.05)
    lanes: list[str] = []
    real_call = mon._call

    async def counting_call(fn: Any, *a: Any, lane: str = "sample", **kw: Any) -> Any:
        lanes.append(lane)
        return await real_call(fn, *a, lane=lane, **kw)

    mon._call = counting_call  # type: ignore[method-assign]
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(5):
            await tg.start(mon.run)
        r0, s0, n0 = mon.statistics()["gauge_rounds"], mon.statistics()["samples"], len(lanes)
        await wait_for(lambda: mon.statistics()["gauge_rounds"] >= r0 + 5)
        tg.cancel_scope.cancel()
    st = mon.statistics()
    rounds = st["gauge_rounds"] - r0
    sample_calls = lanes[n0:].count("sample")
    assert rounds >= 5 and rounds <= sample_calls <= rounds + 2  # + shutdown, a round in flight
    assert st["samples"] - s0 >= 8 * rounds


@pytest.mark.anyio
async def test_snapshot_is_cached_until_something_changes() -> None:
    updates: list[list[dict[str, Any]]] = []
    mon = GpuMonitor(FakeBackend(3), gauge_interval=3600, slow_interval=3600, xid_poll=0.05,
                     on_update=updates.append)
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(5):
            await tg.start(mon.run)
        a, b = mon.snapshot(), mon.snapshot()
        assert a == _reference_snapshot(mon) and a is not b
        assert all(x is y for x, y in zip(a, b, strict=True))  # not rebuilt
        a.append({"junk": 1})  # the list is the caller's own
        assert len(mon.snapshot()) == 3

        await mon.inject("xid:1:79")
        await wait_for(lambda: mon.snapshot()[1]["health"]["level"] == "critical")
        c = mon.snapshot()
        assert c == _reference_snapshot(mon) and c[1]["xids"][0]["xid"] == 79
        assert b[1]["xids"] == [] and b[1]["health"]["level"] == "ok"  # old dicts untouched

        await mon.inject("temp:2:95")  # inject -> slow round: every GPU re-sampled
        d = mon.snapshot()
        assert d == _reference_snapshot(mon) and d[2]["temperature_c"] == 95.0
        assert updates[-1] == d

        await mon.inject("foreign:0:4242:512")
        assert [p.pid for p in await mon.foreign_processes([0], set())] == [4242]
        e = mon.snapshot()
        assert e == _reference_snapshot(mon) and e[0]["processes"][0]["pid"] == 4242

        mon.clear_xids(1)
        f = mon.snapshot()
        assert f == _reference_snapshot(mon) and f[1]["xids"] == []
        tg.cancel_scope.cancel()


class _StallingGpu1(FakeBackend):
    def __init__(self) -> None:
        super().__init__(3)
        self.stall = threading.Event()
        self.release = threading.Event()

    def sample(self, index: int, *, counters: bool = True) -> GpuSample:
        if index == 1 and self.stall.is_set():
            self.release.wait(5)
        return super().sample(index, counters=counters)


@pytest.mark.anyio
async def test_stalled_round_keeps_gpus_done_and_flags_the_rest() -> None:
    b = _StallingGpu1()
    mon = GpuMonitor(b, call_timeout=0.2, gauge_interval=3600, slow_interval=3600, xid_poll=0.05)
    try:
        async with anyio.create_task_group() as tg:
            with anyio.fail_after(5):
                await tg.start(mon.run)
            before = mon.snapshot()
            b.stall.set()
            with anyio.fail_after(3):
                await mon._gauge_round()  # abandoned after the deadline, not hung
            snap = mon.snapshot()
            assert [g["stale"] for g in snap] == [False, True, True]
            assert snap[0]["timestamp"] > before[0]["timestamp"]  # done before the stall: used
            assert snap[1]["timestamp"] == before[1]["timestamp"]  # last good sample kept
            assert any("timed out" in f for f in snap[1]["health"]["flags"])
            assert snap == _reference_snapshot(mon)
            b.release.set()
            b.stall.clear()
            await anyio.sleep(0.1)
            await mon._gauge_round()
            assert [g["stale"] for g in mon.snapshot()] == [False, False, False]
            tg.cancel_scope.cancel()
    finally:
        b.release.set()


def test_fake_shutdown_ends_a_long_wait_xid() -> None:
    b = FakeBackend(1)
    b.init()
    got: list[list[XidEvent]] = []
    t = threading.Thread(target=lambda: got.append(b.wait_xid(30.0)))
    t.start()
    time.sleep(0.05)
    b.shutdown()
    t.join(2.0)
    assert not t.is_alive() and got == [[]]
    b.init()  # reopened
    b.inject("xid:0:79")
    assert [e.xid for e in b.wait_xid(1.0)] == [79]


def test_monitor_with_the_default_long_xid_wait_stops_promptly() -> None:
    b = FakeBackend(2)

    async def main() -> float:
        mon = GpuMonitor(b, gauge_interval=0.05)  # default xid_poll: a long blocking wait
        async with anyio.create_task_group() as tg:
            with anyio.fail_after(5):
                await tg.start(mon.run)
            await anyio.sleep(0.2)
            b.inject("xid:1:79")
            await wait_for(lambda: mon.snapshot()[1]["health"]["level"] == "critical", 2)
            t0 = time.monotonic()
            tg.cancel_scope.cancel()
        return t0

    t0 = anyio.run(main)
    assert time.monotonic() - t0 < 1.0  # includes the worker threads finishing


@pytest.mark.anyio
async def test_bytes_over_the_link_are_reported_and_a_spinning_gpu_moves_none(tmp_path) -> None:
    """activity() gives utilisation, power fraction and the PCIe byte rate: a GPU that
    computes moves data; one that spins on a flag (as a rank reports it) moves none."""
    backend = FakeBackend(2)
    mon = GpuMonitor(backend, gauge_interval=0.05, slow_interval=3600, xid_poll=0.05)
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(5):
            await tg.start(mon.run)
        await mon.inject("busy:0:90")
        await wait_for(lambda: (mon.activity([0]) or (0, 0, 0))[2] or 0)
        util, frac, link = mon.activity([0])
        assert util >= 85 and frac is not None and frac > 0.5 and link > 0
        await anyio.Path(backend.report_dir, "gpu1").write_text(f"100 0.15 {time.time() + 3600}")
        await wait_for(lambda: (mon.activity([1]) or (0,))[0] >= 99)
        util, frac, link = mon.activity([1])
        assert frac is not None and frac < 0.3 and link == 0
        tg.cancel_scope.cancel()
