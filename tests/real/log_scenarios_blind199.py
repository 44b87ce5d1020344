"""The hundred-and-ninety-ninth batch's scenarios (tests/fixtures/corpus/fresh198): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind199.py OUT

Themes: control-group limits other than memory, as a container runtime, Kubernetes or a systemd
slice sets them (cgroup v1 here): cpu.shares at its minimum (2) beside a CPU hog in a group of
1024 shares; a CFS quota of 10% of a CPU set while long generations are in flight; a blkio read
throttle on /dev/vda (254:0) set as the weights start loading, the model copy evicted from the
page cache first; the freezer group frozen during loading (vLLM, with a short
VLLM_ENGINE_READY_TIMEOUT_S) or while serving (SGLang, with a short --watchdog-timeout) for
longer than the engine's timeout, then thawed; a pids limit set, just as the server is about to
start its worker processes, to the tasks it has plus one.

Earlier batches already had (not repeated): a pids cgroup at launch (71st: 40 tasks vLLM, 24
SGLang) and reached by requests once up (91st, 113th); a blkio throttle of 40 KiB/s for vLLM
from the launch (71st); every process frozen while loading or serving, then SIGKILLed while
frozen (77th); a CPU quota of 5% once vLLM loads (79th), 15% for SGLang from launch (79th), 1%
at compile / after loading with short ready or watchdog timeouts (100th), 0.5% / 0.1% once up
(113th); a cpuset of one CPU (77th); memory cgroups (many).

Each scenario runs entry="python" on WRAP (`-c`): it resets SIGINT and SIGQUIT to their default
actions (a recorder started in the background inherits them ignored), puts its own pid into the
cgroups listed in B199_CGS (so every process of the run is inside them from its start), then
execs the engine's interpreter on the engine's usual module. Groups are named
/sys/fs/cgroup/CONTROLLER/blind199-*; each act kills the run's process group itself at its end
and removes the groups. CPU hogs are `while True: pass` processes this table starts and stops by
pid. vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers.

Recorded 2026-12-07 in three invocations (raw1: the first table's seven scenarios in order; raw2:
v-cpu-shares-min-two-hogs-serving; raw3: s-cpu-quota-10pct-long-gens), taking turns with two
other helpers' recorders; each scenario once. About 14 minutes of recording (vLLM 53+94+114+21 s,
SGLang 52+143+243+106+21 s). 7 kept (final files ga101-ga107). Dropped: v-cpu-shares-min-hog
(cpu.shares 2 from launch beside one CPU hog of 1024 shares: vLLM pinned its OpenMP thread to
core 0 and reserved core 1, started in its usual time and served three completions at the usual
rate - the fault never shows) and s-cpu-quota-10pct-serving (the quota came 3 s after two
400-token generations were sent, which SGLang had finished in 2 s: nothing of the quota in the
log); the latter was re-recorded once as s-cpu-quota-10pct-long-gens (1,000-token generations,
the quota 0.5 s after them). Both removed from SCENARIOS. What the engines did: no engine
printed a word naming a limit except the pids one. A 50 s freeze during vLLM's model init shows
only as `Initializing model took 50.144641 seconds`, VLLM_ENGINE_READY_TIMEOUT_S=30 not firing
(the API server was frozen too), and it serves (ready); a 40 s freeze of SGLang mid-decode shows
as a 40 s gap and `gen throughput (token/s): 1.99`, its 15 s --watchdog-timeout silent (frozen
with the scheduler), and both requests finish (ready). Minimum cpu.shares beside two hogs gives
vLLM stats lines of 0.1 and 0.0 tokens/s with four requests running, which recover once the hogs
stop (ready). A 10% CFS quota in flight brings SGLang's decode throughput from ~450 to 5-11
tokens/s (ready in serving). A 64 KiB/s blkio read throttle from `Load weight begin` does not
slow the loader (`Load weight end. elapsed=0.06 s`) but everything after it: `scheduler_e2e=96.71`
and the warm-up request never answered within 110 s (incomplete in warmup). pids.max set to the
tasks plus one just before the engine core starts: vLLM's engine core dies in libzmq
(`Resource temporarily unavailable (src/thread.cpp:241)`) before any line of its own and the API
server raises `Engine core initialization failed ... Failed core proc(s): {}` (crashed at
launch). The same for SGLang's scheduler and detokenizer: a spawned child's OpenBLAS cannot start
its thread (`pthread_create failed ... Resource temporarily unavailable`), the scheduler dies at
`ProcessGroupGloo(` with `RuntimeError: Resource temporarily unavailable` and the launcher logs
`Received sigquit from a child process` - the last lines of the 71st batch's pids cgroup of 24
(fresh70/bb119), kept for the OpenBLAS lines and the interrupted child this run adds (crashed at
launch).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    linger,
    up,
)

ROOT = Path("/tmp/blind199")
CG = Path("/sys/fs/cgroup")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
DISK = "254:0"      # /dev/vda, which holds the model

WRAP = ("import os,signal,sys; signal.signal(signal.SIGINT, signal.SIG_DFL); "
        "signal.signal(signal.SIGQUIT, signal.SIG_DFL); [open(d + '/cgroup.procs', 'w')"
        ".write(str(os.getpid())) for d in os.environ.get('B199_CGS', '').split(':') if d]; "
        "os.execv(sys.executable, [sys.executable] + sys.argv[1:])")
V_CMD = ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host", "127.0.0.1",
         "--port", "{port}", *VLLM_BASE]
S_CMD = ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
         "--port", "{port}", *SG]

HOGS: list[subprocess.Popen] = []

ROOT.mkdir(parents=True, exist_ok=True)


# --- cgroups ----------------------------------------------------------------------------------

def group(controller: str, name: str) -> Path:
    return CG / controller / f"blind199-{name}"


def make_groups(groups: list[tuple[str, str]], settings: dict[str, str] | None = None) -> Callable:
    def before(ctx: Ctx) -> None:
        for controller, name in groups:
            d = group(controller, name)
            d.mkdir(exist_ok=True)
        for path, value in (settings or {}).items():
            (CG / path).write_text(value)
    return before


def cg_env(groups: list[tuple[str, str]], **extra: str) -> dict[str, str]:
    return {"B199_CGS": ":".join(str(group(c, n)) for c, n in groups), **extra}


def tree_pids(ctx: Ctx) -> list[int]:
    assert ctx.proc is not None
    out = [ctx.proc.pid]
    try:
        import psutil
        out += [p.pid for p in psutil.Process(ctx.proc.pid).children(recursive=True)]
    except Exception:  # noqa: BLE001
        pass
    return out


def finish(ctx: Ctx, groups: list[tuple[str, str]]) -> None:
    """Stop the hogs, thaw, kill the run's process group, remove the groups."""
    for h in HOGS:
        try:
            h.kill()
            h.wait(10)
        except (OSError, subprocess.TimeoutExpired):
            pass
    HOGS.clear()
    for controller, name in groups:
        d = group(controller, name)
        if controller == "freezer" and d.exists():
            try:
                (d / "freezer.state").write_text("THAWED")
            except OSError:
                pass
    assert ctx.proc is not None
    for sig in (signal.SIGCONT, signal.SIGKILL):
        try:
            os.killpg(ctx.proc.pid, sig)
        except ProcessLookupError:
            pass
    try:
        ctx.proc.wait(30)
    except subprocess.TimeoutExpired:
        pass
    for controller, name in [*groups, ("cpu", "hog")]:
        d = group(controller, name)
        end = time.monotonic() + 20
        while d.exists() and time.monotonic() < end:
            try:
                d.rmdir()
            except OSError:
                time.sleep(0.5)


def start_hog() -> None:
    d = group("cpu", "hog")
    d.mkdir(exist_ok=True)
    (d / "cpu.shares").write_text("1024")
    h = subprocess.Popen([sys.executable, "-c", "while True: pass"], start_new_session=True)
    (d / "cgroup.procs").write_text(str(h.pid))
    HOGS.append(h)


def background(ctx: Ctx, n: int, max_tokens: int, timeout: float = 120) -> list[threading.Thread]:
    name = ctx.model_name()
    ts = [threading.Thread(target=ctx.post, args=("/v1/completions", {
        "model": name, "prompt": f"the long story {i}", "max_tokens": max_tokens,
        "ignore_eos": True}, timeout), daemon=True) for i in range(n)]
    for t in ts:
        t.start()
    return ts


# --- model copies ----------------------------------------------------------------------------

def uncached(name: str) -> Callable[[Path], Path]:
    """A copy of the tiny model whose pages are dropped from the page cache (fsync, then
    POSIX_FADV_DONTNEED), so that the loader must read it from the disk."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        for f in d.iterdir():
            fd = os.open(f, os.O_RDONLY)
            try:
                os.fsync(fd)
                os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
            finally:
                os.close(fd)
        return d
    return make


# --- acts ------------------------------------------------------------------------------------

def v_shares_serving(groups: list[tuple[str, str]], hogs: int, hold_s: float) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        try:
            if not up(ctx, 200):
                return
            ctx.complete(2, max_tokens=16)
            for _ in range(hogs):
                start_hog()
            ts = background(ctx, 4, 200, 120)
            time.sleep(hold_s)
            for h in HOGS:
                h.kill()
                h.wait(10)
            HOGS.clear()
            for t in ts:
                t.join(60)
            linger(ctx, 12)
        finally:
            finish(ctx, groups)
    return act


def v_freeze_load(groups: list[tuple[str, str]], hold_s: float) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        d = group("freezer", "vfrz")
        try:
            if ctx.wait_any(["Starting to load model", "Loading weights"], 240) is None:
                return
            (d / "freezer.state").write_text("FROZEN")
            time.sleep(hold_s)
            (d / "freezer.state").write_text("THAWED")
            if ctx.wait_any([READY_LINE], 90) == READY_LINE and ctx.proc.poll() is None:
                ctx.complete(2, max_tokens=16)
                time.sleep(8)
            else:
                linger(ctx, 5)
        finally:
            finish(ctx, groups)
    return act


def pids_at_spawn(groups: list[tuple[str, str]], needles: list[str],
                  settle: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        d = group("pids", groups[0][1])
        try:
            if ctx.wait_any(needles, 120) is None:
                return
            n = int((d / "pids.current").read_text())
            (d / "pids.max").write_text(str(n + 1))
            print(f"pids.max set to {n + 1}", flush=True)
            settle(ctx)
        finally:
            finish(ctx, groups)
    return act


def v_settle(ctx: Ctx) -> None:
    if ctx.wait_any([READY_LINE], 120) == READY_LINE and ctx.proc.poll() is None:
        ctx.complete(2, max_tokens=16)
        time.sleep(8)
    else:
        linger(ctx, 10)


def s_settle(ctx: Ctx) -> None:
    if ctx.wait_any([SG_READY], 120) == SG_READY and ctx.proc.poll() is None:
        ctx.complete(2, max_tokens=16)
        time.sleep(8)
    else:
        linger(ctx, 10)


def s_quota_serving(groups: list[tuple[str, str]], quota_us: int, n: int = 2, tokens: int = 400,
                    delay: float = 3) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        d = group("cpu", "squota")
        try:
            if ctx.wait_any([SG_READY], 200) != SG_READY:
                return
            ctx.complete(2, max_tokens=16)
            ts = background(ctx, n, tokens, 100)
            time.sleep(delay)
            (d / "cpu.cfs_period_us").write_text("100000")
            (d / "cpu.cfs_quota_us").write_text(str(quota_us))
            for t in ts:
                t.join(75)
            linger(ctx, 5)
        finally:
            finish(ctx, groups)
    return act


def s_blkio_load(groups: list[tuple[str, str]], bps: int) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        d = group("blkio", "sblk")
        try:
            if ctx.wait_any(["Load weight begin"], 200) is None:
                return
            (d / "blkio.throttle.read_bps_device").write_text(f"{DISK} {bps}")
            if ctx.wait_any([SG_READY], 200) == SG_READY and ctx.proc.poll() is None:
                ctx.complete(2, max_tokens=16)
                time.sleep(8)
            else:
                linger(ctx, 5)
        finally:
            finish(ctx, groups)
    return act


def s_freeze_serving(groups: list[tuple[str, str]], hold_s: float) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        d = group("freezer", "sfrz")
        try:
            if ctx.wait_any([SG_READY], 200) != SG_READY:
                return
            ctx.complete(2, max_tokens=16)
            ts = background(ctx, 2, 400, 120)
            time.sleep(2)
            (d / "freezer.state").write_text("FROZEN")
            time.sleep(hold_s)
            (d / "freezer.state").write_text("THAWED")
            for t in ts:
                t.join(60)
            linger(ctx, 20)
        finally:
            finish(ctx, groups)
    return act


# --- the table -------------------------------------------------------------------------------

def v(name: str, what: str, groups: list[tuple[str, str]], act: Callable[[Ctx], None],
      settings: dict[str, str] | None = None, model: Callable[[Path], Path] | None = None,
      extra: tuple[str, ...] = (), **env: str) -> Scenario:
    return Scenario(name, "vllm", what, ["-c", WRAP, *V_CMD, *extra], model=model,
                    env=cg_env(groups, **env), before=make_groups(groups, settings), act=act,
                    entry="python")


def s(name: str, what: str, groups: list[tuple[str, str]], act: Callable[[Ctx], None],
      settings: dict[str, str] | None = None, model: Callable[[Path], Path] | None = None,
      extra: tuple[str, ...] = (), **env: str) -> Scenario:
    return Scenario(name, "sglang", what, ["-c", WRAP, *S_CMD, *extra], model=model,
                    env=cg_env(groups, **env), before=make_groups(groups, settings), act=act,
                    entry="python")


G_VSH2 = [("cpu", "vlow2")]
G_VFR = [("freezer", "vfrz")]
G_VPI = [("pids", "vpids")]
G_SQ = [("cpu", "squota")]
G_SBL = [("blkio", "sblk")]
G_SFR = [("freezer", "sfrz")]
G_SPI = [("pids", "spids")]

SCENARIOS = [
    v("v-cpu-shares-min-two-hogs-serving", "the run in a cpu cgroup with cpu.shares 2 (the "
      "least) from launch; served two completions, then two CPU hogs (one busy process per "
      "core) started in a group of 1024 shares and four 200-token generations sent; the hogs "
      "stopped 40 s later", G_VSH2, v_shares_serving(G_VSH2, 2, 40),
      {"cpu/blind199-vlow2/cpu.shares": "2"}),
    v("v-freeze-load-thaw-ready-timeout", "VLLM_ENGINE_READY_TIMEOUT_S=30; every process of the "
      "run frozen (cgroup freezer, as docker pause) once the worker starts loading the model, "
      "held 50 s, then thawed", G_VFR, v_freeze_load(G_VFR, 50),
      VLLM_ENGINE_READY_TIMEOUT_S="30"),
    v("v-pids-max-at-engine-spawn", "the run in a pids cgroup from launch; as the API server lists "
      "the arguments it was given (before it starts the engine core), pids.max set to the tasks it "
      "has plus one", G_VPI, pids_at_spawn(G_VPI, ["non-default args"], v_settle)),
    s("s-cpu-quota-10pct-long-gens", "served two completions; then two 1,000-token generations "
      "sent and, 0.5 s later, with them in flight, the run's cpu cgroup given a CFS quota of 10 ms "
      "per 100 ms (10% of a CPU)", G_SQ, s_quota_serving(G_SQ, 10000, 2, 1000, 0.5)),
    s("s-blkio-read-throttle-load", "the model copy evicted from the page cache; the run in a "
      "blkio cgroup whose reads of /dev/vda (254:0) are throttled to 64 KiB/s as the weights "
      "start loading (a slow network volume)", G_SBL,
      s_blkio_load(G_SBL, 65536), model=uncached("uncached-sg")),
    s("s-freeze-serving-thaw-watchdog", "--watchdog-timeout 15; served two completions, then with "
      "two 400-token generations in flight every process frozen (cgroup freezer, as docker "
      "pause) for 40 s, then thawed", G_SFR, s_freeze_serving(G_SFR, 40),
      extra=("--watchdog-timeout", "15")),
    s("s-pids-max-at-scheduler-spawn", "the run in a pids cgroup from launch; as the launcher "
      "logs its settings (before it starts the scheduler and detokenizer), pids.max set to "
      "the tasks it has plus one", G_SPI, pids_at_spawn(G_SPI, ["server_args="], s_settle)),
]
