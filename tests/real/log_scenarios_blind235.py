"""The two-hundred-and-thirty-fifth batch's scenarios (tests/fixtures/corpus/fresh234): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind235.py OUT

Themes: memory limits of a container (cgroup v1, this host) that count more than the process's
own memory - swap, tmpfs / /dev/shm pages, a soft limit, a limit that freezes instead of killing.
vLLM: memory.limit_in_bytes and memory.memsw.limit_in_bytes both 3 GiB (docker --memory 3g
--memory-swap 3g) with a 2 GiB KV cache (VLLM_CPU_KVCACHE_SPACE=2); oom_kill_disable 1 from launch,
the limit set to the group's usage plus 128 MiB once the weights are loaded (the group freezes
instead of being killed); a 4 GiB limit whose /dev/shm stand-in (a tmpfs) already holds 2.5 GiB of
stale segments written inside the group (an earlier run's leftovers, charged to the container);
only memory.soft_limit_in_bytes 512 MiB (docker --memory-reservation) with no hard limit. SGLang:
memory and memsw limits both 4 GiB with no --max-total-tokens (the KV pool sized from the host's
free memory, not the group's); oom_kill_disable 1 from launch, the limit set once up to usage plus
16 MiB and eight concurrent 180 KB prompts sent (a freeze under traffic); a 5 GiB limit whose /dev/shm
stand-in holds 3.5 GiB of stale segments charged to the group.

Earlier batches already had (not repeated): a 3 GiB memory cgroup under vLLM's 0.25 of the host's
KV cache and a 1 GiB one for SGLang (71st), a limit set just above the usage at weight loading or
after it, the OOM killer taking the run (80th, 100th), a limit lowered while serving (99th), a limit
64 MiB over the idle server met by long prompts (113th), a worker or TP1 scheduler moved into a
small cgroup (102nd), /dev/shm a private 256 MiB tmpfs filled by another process while loading
(100th), the OOM killer's choice between the engine and a hog sharing its group (216th), cgroups
of other controllers (199th), allocator settings (184th). None set memsw, oom_kill_disable, a soft
limit, or charged tmpfs pages to the engine's own group.

Each scenario runs entry="python" on /tmp/blind235/wrap.py (written when this table is loaded): it
moves its own pid into /sys/fs/cgroup/memory/blind235-NAME (made by the scenario's before=), writes
the stale segments where asked (1 MiB writes into /tmp/blind235/shm, a 6 GiB tmpfs mounted by
before=), resets SIGINT and SIGQUIT to their defaults and execs the engine's usual module. Each act
ends by killing the run's process group, lifting the group's limit and freeze, deleting the stale
segments, removing the group and unmounting the tmpfs. vLLM runs with VLLM_BASE's settings, SGLang
with --device cpu --model-impl transformers.

Recorded 2026-12-07 in one invocation (raw1: the seven scenarios in table order), taking turns
with other helpers' recorders for the lock: v-memsw-kv-cache 37 s, s-memsw-host-sized-pool 31 s,
v-oom-disabled-after-load 142 s, s-oom-disabled-traffic 44 s, v-stale-shm-counted 40 s,
s-stale-shm-counted 19 s, v-soft-limit-reservation 51 s. Each recorded once; all seven kept (final files
hl101-hl107), two of them logs where the fault never showed (labelled ready). Nothing dropped.

What the engines did. Both engines size themselves from the host's memory, never the group's
(vLLM `Available RAM: 21.77 GiB`, SGLang `avail mem=20.54 GB`); no log names the cgroup. memsw at
3 GiB with a 2 GiB KV cache: vLLM's worker was OOM-killed as the KV cache was made (dmesg:
VLLM::Worker, 2.3 GB anon) - `Worker proc VllmWorker-0 died unexpectedly (exit code: -9)`,
`RuntimeError: cancelled` through `_initialize_kv_caches`, `Engine core initialization failed`:
crashed. memsw at 4 GiB with SGLang's pool sized from the host: the scheduler was OOM-killed just
after `Load weight end` - `Rank 0 scheduler died during initialization (exit code: -9). If exit
code is -9 (SIGKILL), a common cause is the OS OOM killer.`: crashed. oom_kill_disable with vLLM's
limit set after loading: the worker froze as the KV cache was made; the EngineCore logged once `No
available shared memory broadcast block found in 60 seconds` and nothing more until killed: hung.
oom_kill_disable with SGLang under traffic: the eight 180 KB prompts were refused at once with 400
(longer than the context) before they took memory - the freeze never came; served. Stale tmpfs
segments charged to the group: vLLM (2.5 GiB of 4) died as with memsw, its worker only 0.7 GB
anon (`Failed core proc(s): {}`): crashed; SGLang (3.5 GiB of 5) lost its launcher to the OOM
killer four seconds in, after `No chat template found`, with no word at all: the log is a cut
startup. The soft limit of 512 MiB alone: nothing happened (a soft limit acts only under the host's
memory pressure, and there was none); vLLM came up, answered three completions and logged a
stats line: served. Crashed: hl101, hl102, hl105; cut startup: hl106; hung: hl103; served: hl104,
hl107.
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
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind235")
WRAP = ROOT / "wrap.py"
SHM = ROOT / "shm"               # a tmpfs standing in for the container's /dev/shm
CGROOT = Path("/sys/fs/cgroup/memory")
SG_READY = "The server is fired up and ready to roll!"
MIB = 1 << 20
GIB = 1 << 30

WRAPPER = r'''"""Into the scenario's memory cgroup, stale shm segments written where asked, then exec."""
import os
import signal
import sys

cg = os.environ.pop("B235_CG")
with open(f"/sys/fs/cgroup/memory/{cg}/cgroup.procs", "w") as f:
    f.write(str(os.getpid()))
stale = int(os.environ.pop("B235_STALE_MB", "0"))
if stale:
    # what crashed workers of an earlier run in the same container left in /dev/shm: tmpfs
    # pages, charged to the group that wrote them, never reclaimed (no swap)
    shm = os.environ.pop("B235_SHM")
    chunk = b"\x01" * (1 << 20)
    for i in range(stale // 256):
        with open(os.path.join(shm, f"psm_stale{i}"), "wb") as f:
            for _ in range(256):
                f.write(chunk)
signal.signal(signal.SIGINT, signal.SIG_DFL)
signal.signal(signal.SIGQUIT, signal.SIG_DFL)
os.execv(sys.executable, [sys.executable, *sys.argv[1:]])
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    WRAP.write_text(WRAPPER)


_setup()


def cg_name(name: str) -> str:
    return f"blind235-{name}"


def cg_dir(name: str) -> Path:
    return CGROOT / cg_name(name)


def make_cgroup(name: str, settings: list[tuple[str, int]], tmpfs: bool = False) -> Callable:
    """The scenario's own memory cgroup, its files written in the order given."""
    def before(ctx: Ctx) -> None:
        d = cg_dir(name)
        if not d.exists():
            d.mkdir()
        for file, value in settings:
            (d / file).write_text(str(value))
        if tmpfs:
            SHM.mkdir(exist_ok=True)
            if not os.path.ismount(SHM):
                subprocess.run(["mount", "-t", "tmpfs", "-o", "size=6g", "tmpfs", str(SHM)],
                               check=True)
    return before


def usage(name: str) -> int:
    return int((cg_dir(name) / "memory.usage_in_bytes").read_text())


def body_wait(ctx: Ctx, needles: list[str], timeout: float) -> str | None:
    """The first of ``needles`` the log shows below its header (the source line quotes it)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        body = ctx.text().split("\n\n", 1)[-1]
        found = next((n for n in needles if n in body), None)
        if found is not None or (ctx.proc is not None and ctx.proc.poll() is not None):
            return found
        time.sleep(0.2)
    return None


def burst(ctx: Ctx, n: int, prompt: str, max_tokens: int, timeout: float) -> list[threading.Thread]:
    name = ctx.model_name()
    ts = [threading.Thread(target=ctx.post, daemon=True, args=(
        "/v1/completions", {"model": name, "prompt": f"{i} {prompt}", "max_tokens": max_tokens}),
        kwargs={"timeout": timeout}) for i in range(n)]
    for t in ts:
        t.start()
    return ts


def cleanup(name: str, ctx: Ctx) -> None:
    """The run killed (a group frozen on its limit too: its OOM wait is killable), the limit and
    the freeze lifted, the stale segments removed, the group removed."""
    assert ctx.proc is not None
    try:
        os.killpg(ctx.proc.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    d = cg_dir(name)
    for file, value in (("memory.oom_control", "0"), ("memory.memsw.limit_in_bytes", "-1"),
                        ("memory.limit_in_bytes", "-1")):
        try:
            (d / file).write_text(value)
        except OSError:
            pass
    try:
        ctx.proc.wait(30)
    except subprocess.TimeoutExpired:
        pass
    for f in SHM.glob("psm_stale*"):
        f.unlink()
    time.sleep(2)
    for _ in range(10):
        try:
            d.rmdir()
            break
        except FileNotFoundError:
            break
        except OSError:
            time.sleep(1)
    if os.path.ismount(SHM):
        subprocess.run(["umount", str(SHM)], check=False)


def with_cleanup(name: str, step: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        try:
            step(ctx)
        finally:
            cleanup(name, ctx)
    return act


def serve(ready: str, up_s: float = 300) -> Callable[[Ctx], None]:
    """Up within ``up_s`` (or the run ends): three completions and a pause for a stats line."""
    def step(ctx: Ctx) -> None:
        if body_wait(ctx, [ready], up_s) == ready and ctx.proc.poll() is None:
            ctx.complete(3, max_tokens=24)
            linger(ctx, 15)
        else:
            linger(ctx, 10)
    return step


def freeze_at(name: str, needle: str, headroom_mb: int, ready: str) -> Callable[[Ctx], None]:
    """oom_kill_disable set at launch; once ``needle`` is logged the limit is set to the group's
    usage plus ``headroom_mb``; then 110 s for what follows (a frozen group logs nothing)."""
    def step(ctx: Ctx) -> None:
        if body_wait(ctx, [needle], 300) != needle:
            return
        (cg_dir(name) / "memory.limit_in_bytes").write_text(
            str(usage(name) + headroom_mb * MIB))
        if body_wait(ctx, [ready], 110) == ready and ctx.proc.poll() is None:
            ctx.complete(2, max_tokens=16)
            linger(ctx, 15)
    return step


def freeze_under_traffic(name: str, ready: str, headroom_mb: int) -> Callable[[Ctx], None]:
    """oom_kill_disable set at launch; once up, two completions, then the limit set to the
    group's usage plus ``headroom_mb`` and eight concurrent long prompts; 90 s more."""
    def step(ctx: Ctx) -> None:
        if body_wait(ctx, [ready], 300) != ready or ctx.proc.poll() is not None:
            linger(ctx, 10)
            return
        ctx.complete(2, max_tokens=16)
        time.sleep(3)
        (cg_dir(name) / "memory.limit_in_bytes").write_text(
            str(usage(name) + headroom_mb * MIB))
        ts = burst(ctx, 8, "the quick brown fox jumps over the lazy dog " * 4000, 64, 80)
        for t in ts:
            t.join(85)
        linger(ctx, 10)
    return step


V_ARGS = ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
          "127.0.0.1", "--port", "{port}", *VLLM_BASE]
S_ARGS = ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
          "--port", "{port}", "--device", "cpu", "--model-impl", "transformers"]


def v(name: str, what: str, settings: list[tuple[str, int]], step: Callable[[Ctx], None],
      env: dict[str, str] | None = None, tmpfs: bool = False) -> Scenario:
    return Scenario(name, "vllm", what, [str(WRAP), *V_ARGS],
                    env={"B235_CG": cg_name(name), **(env or {})},
                    before=make_cgroup(name, settings, tmpfs), act=with_cleanup(name, step),
                    entry="python")


def s(name: str, what: str, settings: list[tuple[str, int]], step: Callable[[Ctx], None],
      extra: list[str] | None = None, env: dict[str, str] | None = None,
      tmpfs: bool = False) -> Scenario:
    return Scenario(name, "sglang", what, [str(WRAP), *S_ARGS, *(extra or [])],
                    env={"B235_CG": cg_name(name), **(env or {})},
                    before=make_cgroup(name, settings, tmpfs), act=with_cleanup(name, step),
                    entry="python")


SCENARIOS = [
    v("v-memsw-kv-cache",
      "in a memory cgroup of its own with memory.limit_in_bytes and memory.memsw.limit_in_bytes "
      "both 3 GiB (docker --memory 3g --memory-swap 3g; no swap on the host), "
      "VLLM_CPU_KVCACHE_SPACE=2",
      [("memory.limit_in_bytes", 3 * GIB), ("memory.memsw.limit_in_bytes", 3 * GIB)],
      serve(READY_LINE), env={"VLLM_CPU_KVCACHE_SPACE": "2"}),
    s("s-memsw-host-sized-pool",
      "in a memory cgroup of its own with memory.limit_in_bytes and memory.memsw.limit_in_bytes "
      "both 4 GiB, no --max-total-tokens (the KV pool sized from the host's free memory, "
      "not the group's)",
      [("memory.limit_in_bytes", 4 * GIB), ("memory.memsw.limit_in_bytes", 4 * GIB)],
      serve(SG_READY)),
    v("v-oom-disabled-after-load",
      "in a memory cgroup of its own with memory.oom_control oom_kill_disable 1; its limit set "
      "to the group's usage plus 128 MiB once the weights are loaded",
      [("memory.oom_control", 1)],
      freeze_at("v-oom-disabled-after-load", "Loading weights took", 128, READY_LINE),
      env={"VLLM_CPU_KVCACHE_SPACE": "1"}),
    s("s-oom-disabled-traffic",
      "in a memory cgroup of its own with memory.oom_control oom_kill_disable 1; once up, its "
      "limit set to the group's usage plus 16 MiB, then eight concurrent prompts of about 180 KB",
      [("memory.oom_control", 1)],
      freeze_under_traffic("s-oom-disabled-traffic", SG_READY, 16),
      extra=["--max-total-tokens", "4096"]),
    v("v-stale-shm-counted",
      "in a memory cgroup of 4 GiB of its own whose /dev/shm stand-in (a tmpfs) holds 2.5 GiB of "
      "stale segments its wrapper wrote inside the group before exec (an earlier run's leftovers, "
      "charged to the group)",
      [("memory.limit_in_bytes", 4 * GIB)], serve(READY_LINE),
      env={"B235_STALE_MB": "2560", "B235_SHM": str(SHM), "VLLM_CPU_KVCACHE_SPACE": "1"},
      tmpfs=True),
    s("s-stale-shm-counted",
      "in a memory cgroup of 5 GiB of its own whose /dev/shm stand-in (a tmpfs) holds 3.5 GiB of "
      "stale segments its wrapper wrote inside the group before exec (an earlier run's leftovers, "
      "charged to the group)",
      [("memory.limit_in_bytes", 5 * GIB)], serve(SG_READY),
      extra=["--max-total-tokens", "4096"],
      env={"B235_STALE_MB": "3584", "B235_SHM": str(SHM)}, tmpfs=True),
    v("v-soft-limit-reservation",
      "in a memory cgroup of its own with only memory.soft_limit_in_bytes 512 MiB (docker "
      "--memory-reservation 512m), no hard limit, the host not under pressure",
      [("memory.soft_limit_in_bytes", 512 * MIB)], serve(READY_LINE),
      env={"VLLM_CPU_KVCACHE_SPACE": "1"}),
]
