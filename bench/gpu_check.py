#!/usr/bin/env python3
"""One-shot device check for the GPU watchdog (reference/gpu-health.md §9). Bounded to ~4 min.

Run from the repository root on a GPU host:  python3 bench/gpu_check.py
Prints one JSON report on stdout (progress on stderr) and writes $OUT/gpu_check.json when
$OUT is set. Every section is independent: a failure is recorded under its "error" key and
the script goes on. Sections:

  env       python/driver/NVML/CUDA versions, uid, persistence mode, kernel-log access
  probe     NvmlBackend capability probe per GPU (which metric groups work on this SKU)
  sample    one full GpuSample per GPU and the rules' verdict on it
  latency   p50/p99/max per NVML call the monitor makes (~200 calls each, GPU 0)
  xid       event registration per GPU, wait_xid(2 s) and a raw nvmlEventSetWait_v2 timeout
  monitor   GpuMonitor for 5 s at 1 Hz: status, snapshot with health, statistics
  orphan    a parent spawns a CUDA child (own session, 1 GiB); SIGKILL the parent; NVML still
            lists the orphan holding memory; kill its group; time until the memory is released
"""

from __future__ import annotations

import json
import os
import signal
import statistics
import subprocess
import sys
import time
import traceback
from typing import Any

T_START = time.monotonic()
BUDGET_S = 240.0  # leave headroom under the 5-minute slot
REPO = os.path.dirname(os.path.dirname(os.path.abspath(__file__)))
if REPO not in sys.path:
    sys.path.insert(0, REPO)

REPORT: dict[str, Any] = {"script": "bench/gpu_check.py", "started_at": time.time(), "sections": {}}


def log(msg: str) -> None:
    print(f"[gpu_check {time.monotonic() - T_START:6.1f}s] {msg}", file=sys.stderr, flush=True)


def left() -> float:
    return BUDGET_S - (time.monotonic() - T_START)


def write_report() -> None:
    REPORT["elapsed_s"] = round(time.monotonic() - T_START, 2)
    out = os.environ.get("OUT")
    if out:
        try:
            os.makedirs(out, exist_ok=True)
            tmp = os.path.join(out, "gpu_check.json.tmp")
            with open(tmp, "w") as f:
                json.dump(REPORT, f, indent=2, default=str)
            os.replace(tmp, os.path.join(out, "gpu_check.json"))
        except OSError as e:
            log(f"cannot write $OUT report: {e}")


def section(name: str, min_left: float = 5.0):  # type: ignore[no-untyped-def]
    def deco(fn):  # type: ignore[no-untyped-def]
        def run() -> None:
            res: dict[str, Any] = {}
            REPORT["sections"][name] = res
            if left() < min_left:
                res["skipped"] = f"time budget exhausted ({left():.0f} s left)"
                return
            t0 = time.monotonic()
            log(f"section {name} ...")
            try:
                fn(res)
            except BaseException as e:  # noqa: BLE001 - record everything, keep going
                res["error"] = f"{type(e).__name__}: {e}"
                res["traceback"] = traceback.format_exc(limit=6)
                if isinstance(e, KeyboardInterrupt):
                    raise
            finally:
                res["duration_s"] = round(time.monotonic() - t0, 3)
                note = " (error)" if "error" in res else ""
                log(f"section {name} done in {res['duration_s']} s{note}")
                write_report()

        return run

    return deco


# --- dependencies -------------------------------------------------------------------------------


def ensure_deps() -> dict[str, Any]:
    info: dict[str, Any] = {}
    missing = []
    for mod, pkg in (("pynvml", "nvidia-ml-py"), ("psutil", "psutil"), ("anyio", "anyio")):
        try:
            __import__(mod)
        except ImportError:
            missing.append(pkg)
    if missing:
        info["pip_install"] = missing
        base = [sys.executable, "-m", "pip", "install", "--quiet", *missing]
        for extra in (
            [],
            ["--user"],
            ["--break-system-packages"],
            ["--user", "--break-system-packages"],
        ):
            try:
                r = subprocess.run(base + extra, capture_output=True, text=True, timeout=120)
            except (OSError, subprocess.TimeoutExpired) as e:
                info["pip_error"] = str(e)
                break
            if r.returncode == 0:
                info["pip_ok_with"] = extra
                break
            info["pip_error"] = r.stderr[-800:]
        import importlib
        import site

        importlib.invalidate_caches()
        try:
            usersite = site.getusersitepackages()
            if usersite not in sys.path:
                sys.path.append(usersite)
        except Exception:  # noqa: BLE001
            pass
    for mod in ("pynvml", "psutil", "anyio"):
        try:
            m = __import__(mod)
            info[f"{mod}_version"] = getattr(m, "__version__", None)
        except ImportError as e:
            info[f"{mod}_version"] = f"missing: {e}"
    try:
        from importlib.metadata import version

        info["nvidia_ml_py_version"] = version("nvidia-ml-py")
    except Exception as e:  # noqa: BLE001
        info["nvidia_ml_py_version"] = f"? ({e})"
    return info


# --- helpers ---------------------------------------------------------------------------------


def pct(values: list[float], q: float) -> float:
    s = sorted(values)
    k = min(len(s) - 1, max(0, int(round(q / 100.0 * (len(s) - 1)))))
    return s[k]


def time_calls(fn: Any, n: int = 200, cap_s: float = 3.0) -> dict[str, Any]:
    times: list[float] = []
    err = None
    t_end = time.monotonic() + cap_s
    for _ in range(n):
        t0 = time.perf_counter()
        try:
            fn()
        except Exception as e:  # noqa: BLE001
            err = f"{type(e).__name__}: {e}"
            times.append(time.perf_counter() - t0)
            break
        times.append(time.perf_counter() - t0)
        if time.monotonic() > t_end:
            break
    us = [t * 1e6 for t in times]
    out: dict[str, Any] = {"n": len(us)}
    if us:
        out.update(
            p50_us=round(statistics.median(us), 1),
            p99_us=round(pct(us, 99), 1),
            max_us=round(max(us), 1),
        )
    if err:
        out["error"] = err
    return out


STATE: dict[str, Any] = {}


def backend() -> Any:
    if "backend" not in STATE:
        from supervisor.gpu import NvmlBackend

        b = NvmlBackend()
        b.init()
        STATE["backend"] = b
    return STATE["backend"]


# --- sections ----------------------------------------------------------------------------------


@section("env")
def s_env(res: dict[str, Any]) -> None:
    res["python"] = sys.version
    res["uid"] = os.getuid()
    res["deps"] = ensure_deps()
    import pynvml as nv

    from supervisor.gpu import open_backend

    t0 = time.perf_counter()
    b = open_backend(None)
    res["open_backend"] = {
        "name": b.name,
        "reason": getattr(b, "reason", None),
        "s": round(time.perf_counter() - t0, 4),
    }
    if b.name == "nvml":
        STATE["backend"] = b
    res["driver_version"] = getattr(b, "driver_version", None)
    for key, fn in (
        ("nvml_version", lambda: nv.nvmlSystemGetNVMLVersion()),
        ("cuda_driver_version", lambda: nv.nvmlSystemGetCudaDriverVersion()),
        ("device_count", lambda: nv.nvmlDeviceGetCount()),
    ):
        try:
            res[key] = fn()
        except Exception as e:  # noqa: BLE001
            res[key] = f"error: {type(e).__name__}: {e}"
    gpus = []
    for i in range(b.device_count()):
        h = nv.nvmlDeviceGetHandleByIndex(i)
        g: dict[str, Any] = {"index": i}
        for key, fn in (
            ("name", nv.nvmlDeviceGetName),
            ("uuid", nv.nvmlDeviceGetUUID),
            ("persistence_mode", nv.nvmlDeviceGetPersistenceMode),
            ("ecc_mode", nv.nvmlDeviceGetEccMode),
            ("mig_mode", nv.nvmlDeviceGetMigMode),
            ("compute_mode", nv.nvmlDeviceGetComputeMode),
            ("pci_bus_id", lambda h: nv.nvmlDeviceGetPciInfo(h).busId),
            (
                "slowdown_temp",
                lambda h: nv.nvmlDeviceGetTemperatureThreshold(
                    h, nv.NVML_TEMPERATURE_THRESHOLD_SLOWDOWN
                ),
            ),
            (
                "shutdown_temp",
                lambda h: nv.nvmlDeviceGetTemperatureThreshold(
                    h, nv.NVML_TEMPERATURE_THRESHOLD_SHUTDOWN
                ),
            ),
            ("default_power_limit_mw", nv.nvmlDeviceGetPowerManagementDefaultLimit),
            ("memory_v2", lambda h: _mem_v2(nv, h)),
        ):
            try:
                v = fn(h)
                g[key] = v.decode() if isinstance(v, bytes) else v
            except Exception as e:  # noqa: BLE001
                g[key] = f"error: {type(e).__name__}: {e}"
        gpus.append(g)
    res["gpus"] = gpus
    # kernel log access (XID second source)
    try:
        with open("/proc/sys/kernel/dmesg_restrict") as f:
            res["dmesg_restrict"] = f.read().strip()
    except OSError as e:
        res["dmesg_restrict"] = f"error: {e}"
    try:
        fd = os.open("/dev/kmsg", os.O_RDONLY | os.O_NONBLOCK)
        try:
            os.read(fd, 8192)
            res["dev_kmsg_readable"] = True
        except BlockingIOError:
            res["dev_kmsg_readable"] = True
        finally:
            os.close(fd)
    except OSError as e:
        res["dev_kmsg_readable"] = f"no: {e}"


def _mem_v2(nv: Any, h: Any) -> dict[str, int]:
    m = nv.nvmlDeviceGetMemoryInfo(h, version=nv.nvmlMemory_v2)
    return {"total": m.total, "reserved": m.reserved, "free": m.free, "used": m.used}


@section("probe")
def s_probe(res: dict[str, Any]) -> None:
    b = backend()
    res["count"] = b.device_count()
    res["gpus"] = {}
    for i in range(b.device_count()):
        t0 = time.perf_counter()
        caps = b.probe(i)
        res["gpus"][str(i)] = {
            "supported": sorted(k for k, v in caps.items() if v),
            "not_supported": sorted(k for k, v in caps.items() if not v),
            "probe_s": round(time.perf_counter() - t0, 4),
        }
    res["backend_errors"] = dict(b.errors)


@section("sample")
def s_sample(res: dict[str, Any]) -> None:
    from supervisor.gpu import evaluate

    b = backend()
    res["gpus"] = []
    for i in range(b.device_count()):
        s = b.sample(i, counters=True)
        res["gpus"].append(
            {
                "sample": s.to_dict(),
                "health": evaluate(s, []).to_dict(),
                "processes": [p.to_dict() for p in b.processes(i)],
            }
        )


@section("latency", min_left=40)
def s_latency(res: dict[str, Any]) -> None:
    import pynvml as nv

    b = backend()
    if b.device_count() == 0:
        res["skipped"] = "no GPUs"
        return
    h = nv.nvmlDeviceGetHandleByIndex(0)
    fid = getattr(nv, "NVML_FI_DEV_GET_GPU_RECOVERY_ACTION", 230)
    reasons = (
        getattr(nv, "nvmlDeviceGetCurrentClocksEventReasons", None)
        or nv.nvmlDeviceGetCurrentClocksThrottleReasons
    )
    calls = {
        "nvmlDeviceGetUtilizationRates": lambda: nv.nvmlDeviceGetUtilizationRates(h),
        "nvmlDeviceGetMemoryInfo_v2": lambda: nv.nvmlDeviceGetMemoryInfo(
            h, version=nv.nvmlMemory_v2
        ),
        "nvmlDeviceGetTemperatureV": lambda: nv.nvmlDeviceGetTemperatureV(
            h, nv.NVML_TEMPERATURE_GPU
        ),
        "nvmlDeviceGetPowerUsage": lambda: nv.nvmlDeviceGetPowerUsage(h),
        "nvmlDeviceGetEnforcedPowerLimit": lambda: nv.nvmlDeviceGetEnforcedPowerLimit(h),
        "nvmlDeviceGetClockInfo_SM": lambda: nv.nvmlDeviceGetClockInfo(h, nv.NVML_CLOCK_SM),
        "nvmlDeviceGetCurrentClocksEventReasons": lambda: reasons(h),
        "nvmlDeviceGetTotalEccErrors_volatile_unc": lambda: nv.nvmlDeviceGetTotalEccErrors(
            h, nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nv.NVML_VOLATILE_ECC
        ),
        "nvmlDeviceGetTotalEccErrors_aggregate_unc": lambda: nv.nvmlDeviceGetTotalEccErrors(
            h, nv.NVML_MEMORY_ERROR_TYPE_UNCORRECTED, nv.NVML_AGGREGATE_ECC
        ),
        "nvmlDeviceGetRemappedRows": lambda: nv.nvmlDeviceGetRemappedRows(h),
        "nvmlDeviceGetRetiredPagesPendingStatus": lambda: nv.nvmlDeviceGetRetiredPagesPendingStatus(
            h
        ),
        "nvmlDeviceGetPcieReplayCounter": lambda: nv.nvmlDeviceGetPcieReplayCounter(h),
        "nvmlDeviceGetCurrPcieLinkGeneration": lambda: nv.nvmlDeviceGetCurrPcieLinkGeneration(h),
        "nvmlDeviceGetCurrPcieLinkWidth": lambda: nv.nvmlDeviceGetCurrPcieLinkWidth(h),
        "nvmlDeviceGetFieldValues_230": lambda: nv.nvmlDeviceGetFieldValues(h, [fid]),
        "nvmlDeviceGetComputeRunningProcesses": lambda: nv.nvmlDeviceGetComputeRunningProcesses(h),
        "backend.sample(counters=False)": lambda: b.sample(0, counters=False),
        "backend.sample(counters=True)": lambda: b.sample(0, counters=True),
        "backend.processes": lambda: b.processes(0),
    }
    res["calls"] = {}
    for name, fn in calls.items():
        if left() < 30:
            res["calls"][name] = {"skipped": "time budget"}
            continue
        res["calls"][name] = time_calls(fn)
    try:
        v = nv.nvmlDeviceGetFieldValues(h, [fid])[0]
        res["field_230_recovery_action"] = {"nvmlReturn": v.nvmlReturn, "uiVal": v.value.uiVal}
    except Exception as e:  # noqa: BLE001
        res["field_230_recovery_action"] = f"error: {type(e).__name__}: {e}"


@section("xid", min_left=20)
def s_xid(res: dict[str, Any]) -> None:
    import pynvml as nv

    b = backend()
    res["xid_supported"] = b.xid_supported
    res["registered_per_gpu"] = {str(k): v for k, v in b._xid_registered.items()}
    per_gpu = {}
    for i in range(b.device_count()):
        h = nv.nvmlDeviceGetHandleByIndex(i)
        try:
            mask = nv.nvmlDeviceGetSupportedEventTypes(h)
            per_gpu[str(i)] = {
                "supported_event_mask": hex(mask),
                "xid_bit": bool(mask & nv.nvmlEventTypeXidCriticalError),
            }
        except Exception as e:  # noqa: BLE001
            per_gpu[str(i)] = {"error": f"{type(e).__name__}: {e}"}
    res["supported_event_types"] = per_gpu
    t0 = time.monotonic()
    evs = b.wait_xid(2.0)
    res["wait_xid_2s"] = {
        "elapsed_s": round(time.monotonic() - t0, 3),
        "events": [e.to_dict() for e in evs],
    }
    # a raw event set of our own: does a 1 s wait time out cleanly (as non-root too)?
    try:
        es = nv.nvmlEventSetCreate()
        try:
            nv.nvmlDeviceRegisterEvents(
                nv.nvmlDeviceGetHandleByIndex(0), nv.nvmlEventTypeXidCriticalError, es
            )
            t0 = time.monotonic()
            try:
                d = nv.nvmlEventSetWait_v2(es, 1000)
                res["raw_wait_1s"] = {
                    "event": int(d.eventData),
                    "elapsed_s": round(time.monotonic() - t0, 3),
                }
            except nv.NVMLError_Timeout:
                res["raw_wait_1s"] = {"timeout": True, "elapsed_s": round(time.monotonic() - t0, 3)}
        finally:
            nv.nvmlEventSetFree(es)
    except Exception as e:  # noqa: BLE001
        res["raw_wait_1s"] = f"error: {type(e).__name__}: {e}"


@section("monitor", min_left=25)
def s_monitor(res: dict[str, Any]) -> None:
    import anyio

    from supervisor.gpu import GpuMonitor, NvmlBackend

    updates: list[int] = []
    xids: list[dict[str, Any]] = []

    async def main() -> None:
        mon = GpuMonitor(
            # its own instance: exercises init/probe/shutdown through the choke point
            NvmlBackend(),
            gauge_interval=1.0,
            slow_interval=2.0,
            on_update=lambda snap: updates.append(len(snap)),
            on_xid=lambda ev: xids.append(ev.to_dict()),
        )
        async with anyio.create_task_group() as tg:
            with anyio.fail_after(30):
                t0 = time.monotonic()
                await tg.start(mon.run)
                res["start_s"] = round(time.monotonic() - t0, 3)
            res["status"] = mon.status()
            await anyio.sleep(5.0)
            snap = mon.snapshot()
            for g in snap:
                g["history"] = {k: v[-6:] for k, v in g["history"].items()}
            res["snapshot"] = snap
            res["health"] = [{"index": g["index"], **g["health"]} for g in snap]
            res["utilization"] = mon.utilization()
            with anyio.fail_after(10):
                res["foreign_processes"] = [
                    p.to_dict() for p in await mon.foreign_processes(None, {os.getpid()})
                ]
            res["statistics"] = mon.statistics()
            tg.cancel_scope.cancel()

    anyio.run(main)
    res["on_update_calls"] = len(updates)
    res["xid_events"] = xids


CHILD_CTYPES = r"""
import ctypes, os, sys, time
try:
    cuda = ctypes.CDLL("libcuda.so.1")
except OSError:
    cuda = ctypes.CDLL("libcuda.so")
def ck(r, what):
    if r != 0:
        print(f"FAIL {what} {r}", flush=True); sys.exit(3)
ck(cuda.cuInit(0), "cuInit")
dev = ctypes.c_int()
ck(cuda.cuDeviceGet(ctypes.byref(dev), 0), "cuDeviceGet")
ctx = ctypes.c_void_p()
r = cuda.cuDevicePrimaryCtxRetain(ctypes.byref(ctx), dev)
if r == 0:
    ck(cuda.cuCtxSetCurrent(ctx), "cuCtxSetCurrent")
else:
    ck(cuda.cuCtxCreate_v2(ctypes.byref(ctx), 0, dev), "cuCtxCreate_v2")
ptr = ctypes.c_uint64()
ck(cuda.cuMemAlloc_v2(ctypes.byref(ptr), ctypes.c_size_t(1 << 30)), "cuMemAlloc_v2")
ck(cuda.cuMemsetD8_v2(ptr, ctypes.c_ubyte(1), ctypes.c_size_t(1 << 30)), "cuMemsetD8_v2")
ck(cuda.cuCtxSynchronize(), "cuCtxSynchronize")
print(f"READY {os.getpid()} ctypes", flush=True)
time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 120)
"""

CHILD_TORCH = r"""
import os, sys, time, torch
x = torch.ones(1 << 30, dtype=torch.uint8, device="cuda")
torch.cuda.synchronize()
print(f"READY {os.getpid()} torch", flush=True)
time.sleep(float(sys.argv[1]) if len(sys.argv) > 1 else 120)
"""

PARENT = r"""
import os, subprocess, sys
child = subprocess.Popen([sys.executable, "-c", sys.argv[1], "120"], stdout=subprocess.PIPE,
                         text=True, start_new_session=True)
line = child.stdout.readline().strip()
print(f"CHILD {child.pid} {line}", flush=True)
import time; time.sleep(120)
"""


def _read_line(proc: subprocess.Popen[str], timeout: float) -> str:
    import selectors

    sel = selectors.DefaultSelector()
    assert proc.stdout is not None
    sel.register(proc.stdout, selectors.EVENT_READ)
    if not sel.select(timeout):
        return ""
    return proc.stdout.readline().strip()


def _alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat") as f:
            state = f.read().rsplit(")", 1)[1].split()[0]
        return state != "Z"
    except OSError:
        return False


def _proc_info(pid: int) -> dict[str, Any]:
    info: dict[str, Any] = {"alive": _alive(pid)}
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                k, _, v = line.partition(":")
                if k in ("PPid", "NSpid", "State"):
                    info[k] = v.strip()
        info["pgid"] = os.getpgid(pid)
        info["sid"] = os.getsid(pid)
    except OSError as e:
        info["proc_error"] = str(e)
    return info


@section("orphan", min_left=35)
def s_orphan(res: dict[str, Any]) -> None:
    b = backend()
    if b.device_count() == 0:
        res["skipped"] = "no GPUs"
        return
    use_torch = False
    try:
        r = subprocess.run(
            [
                sys.executable,
                "-c",
                "import torch,sys; sys.exit(0 if torch.cuda.is_available() else 1)",
            ],
            capture_output=True,
            timeout=min(60.0, max(5.0, left() - 60)),
        )
        use_torch = r.returncode == 0
    except (OSError, subprocess.TimeoutExpired):
        use_torch = False
    res["method"] = "torch" if use_torch else "ctypes libcuda"
    code = CHILD_TORCH if use_torch else CHILD_CTYPES

    def used_mib() -> float:
        return sum(
            (b.sample(i, counters=False).memory_used_mib or 0.0) for i in range(b.device_count())
        )

    def nvml_pids() -> dict[int, float | None]:
        out: dict[int, float | None] = {}
        for i in range(b.device_count()):
            for p in b.processes(i):
                out[p.pid] = p.used_memory_mib
        return out

    res["before"] = {"memory_used_mib": used_mib(), "nvml_pids": nvml_pids()}
    parent = subprocess.Popen(
        [sys.executable, "-c", PARENT, code],
        stdout=subprocess.PIPE,
        text=True,
        start_new_session=True,
    )
    child_pid = None
    try:
        line = _read_line(parent, timeout=min(90.0, max(10.0, left() - 30)))
        res["parent_pid"] = parent.pid
        res["parent_line"] = line
        parts = line.split()
        if len(parts) < 3 or parts[0] != "CHILD" or parts[2] != "READY":
            raise RuntimeError(f"CUDA child did not come up: {line!r}")
        child_pid = int(parts[1])
        res["child_pid"] = child_pid
        res["child_before_parent_kill"] = _proc_info(child_pid)
        time.sleep(0.5)
        res["with_child"] = {"memory_used_mib": used_mib(), "nvml_pids": nvml_pids()}

        os.kill(parent.pid, signal.SIGKILL)
        parent.wait(timeout=10)
        res["parent_killed"] = True
        time.sleep(0.5)
        res["child_after_parent_kill"] = _proc_info(child_pid)
        t0 = time.monotonic()
        listed = None
        while time.monotonic() - t0 < 10:
            pids = nvml_pids()
            if child_pid in pids:
                listed = pids[child_pid]
                break
            time.sleep(0.2)
        res["orphan_listed_by_nvml"] = child_pid in nvml_pids()
        res["orphan_used_memory_mib"] = listed
        res["orphan_nvml_pids"] = nvml_pids()
        res["orphan_memory_used_mib"] = used_mib()
        # NVML lists host-namespace pids: in a container the pid may differ, memory does not
        res["orphan_memory_held"] = (
            res["orphan_memory_used_mib"] - res["before"]["memory_used_mib"] >= 900
        )
        # the monitor API the daemon uses before a launch
        try:
            import anyio

            from supervisor.gpu import GpuMonitor

            async def foreign() -> list[dict[str, Any]]:
                mon = GpuMonitor(b)
                mon._count = (
                    b.device_count()
                )  # no run(): reuse the initialised backend for one query
                with anyio.fail_after(10):
                    return [p.to_dict() for p in await mon.foreign_processes(None, {os.getpid()})]

            res["monitor_foreign_processes"] = anyio.run(foreign)
        except Exception as e:  # noqa: BLE001
            res["monitor_foreign_processes"] = f"error: {type(e).__name__}: {e}"

        # kill the orphan's group (its own session: pgid == pid) and time the release
        t_kill = time.monotonic()
        try:
            os.killpg(child_pid, signal.SIGKILL)
        except ProcessLookupError:
            os.kill(child_pid, signal.SIGKILL)
        released_at = None
        gone_at = None
        baseline = res["before"]["memory_used_mib"]
        while time.monotonic() - t_kill < 10:
            if gone_at is None and not _alive(child_pid) and child_pid not in nvml_pids():
                gone_at = time.monotonic() - t_kill
            if released_at is None and used_mib() <= baseline + 256:
                released_at = time.monotonic() - t_kill
            if gone_at is not None and released_at is not None:
                break
            time.sleep(0.1)
        res["after_kill"] = {
            "pid_gone_from_nvml_s": None if gone_at is None else round(gone_at, 3),
            "memory_released_s": None if released_at is None else round(released_at, 3),
            "memory_used_mib": used_mib(),
            "nvml_pids": nvml_pids(),
            "child": _proc_info(child_pid),
        }
    finally:
        for pid in (child_pid, parent.pid):
            if pid is None:
                continue
            try:
                os.killpg(pid, signal.SIGKILL)
            except (ProcessLookupError, PermissionError):
                pass
        try:
            parent.wait(timeout=5)
        except subprocess.TimeoutExpired:
            pass


def _alarm(signum: int, frame: Any) -> None:
    REPORT["aborted"] = "hard time limit reached"
    write_report()
    print(json.dumps(REPORT, indent=2, default=str), flush=True)
    os._exit(2)


def main() -> int:
    signal.signal(signal.SIGALRM, _alarm)
    signal.alarm(int(BUDGET_S + 40))
    for fn in (s_env, s_probe, s_sample, s_latency, s_xid, s_monitor, s_orphan):
        fn()
    try:
        if "backend" in STATE:
            STATE["backend"].shutdown()
    except Exception:  # noqa: BLE001
        pass
    signal.alarm(0)
    REPORT["errors"] = {k: v["error"] for k, v in REPORT["sections"].items() if "error" in v}
    write_report()
    print(json.dumps(REPORT, indent=2, default=str), flush=True)
    return 0


if __name__ == "__main__":
    sys.exit(main())
