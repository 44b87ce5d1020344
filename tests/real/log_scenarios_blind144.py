"""The hundred-and-forty-fourth batch's scenarios (tests/fixtures/corpus/fresh143): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind144.py OUT

Themes: CPU placement and threads - what a person meets moving an engine onto a shared or
pinned CPU host. The process's CPU set narrowed at launch (`taskset -c 0`, both engines); vLLM's
VLLM_CPU_OMP_THREADS_BIND written backwards (`1-0`), in OpenMP's OMP_PLACES syntax (`{0,1}`),
or naming core 1 while `taskset -c 0` leaves the process core 0 only; vLLM's
VLLM_CPU_NUM_OF_RESERVED_CPU=2 (every core of the host reserved); SGLang's
SGLANG_CPU_OMP_THREADS_BIND written backwards (`1-0`); OMP_NUM_THREADS=0 (SGLang); the engine
at `nice -n 19` beside a CPU hog (two busy loops, one per core, at nice 0, running from before
the launch: both engines); SGLang under `chrt --idle 0` serving, a hog started once it is up
(the last two were dropped for vLLM and SGLang respectively: see below).

Earlier batches already had (not repeated): `taskset -c 4-7` naming cores the host lacks
(105th); VLLM_CPU_OMP_THREADS_BIND=2-3 (absent cores) and `0|1` on one rank in both engines
(118th); SGLANG_CPU_OMP_THREADS_BIND=8-15 and OMP_NUM_THREADS=auto for vLLM (70th); CPU
quotas cut at a chosen step or once serving (100th, 113th); CPU hogs beside SGLang's watchdog
(129th); SGLang --dp-size/--pp-size 2 over one NUMA node (119th).

Each scenario runs entry="python" on /tmp/blind144/wrap.py (written when this table is
loaded), which execs its first argument's words (`taskset -c 0`, `nice -n 19`, `chrt --idle 0`,
or nothing) followed by the engine's interpreter on the engine's usual module. CPU hogs are
plain `while True: pass` processes this table starts and stops by their process group. SGLang
runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-06 in two invocations run side by side (raw1: six vLLM; raw2: five SGLang),
taking turns with two other helpers' recorders; each scenario once. About 11.5 minutes of
recording (vLLM 46+76+65+19+53+80 s, SGLang 92+67+62+80+50 s). 9 kept (final files
dw101-dw109). Dropped (and removed from SCENARIOS): v-nice19-beside-hog (vLLM at `nice -n 19`
beside the two hogs started up in its usual time - `init engine ... took 15.52 s` against
13.94 s unhogged - and reached `Application startup complete`: the fault never shows. The host
has the kernel's autogroup scheduling on (/proc/sys/kernel/sched_autogroup_enabled = 1) and the
recorder starts the engine, like the hogs here, in a session of its own, so nice only weighs the
engine against its own processes; SGLang's run at nice 19, which needs more CPU to start, did
show it).
s-chrt-idle-hog-serving (SGLang under `chrt --idle 0`, two hogs started once it was fired up:
its startup took the usual time - kv_cache_allocation=17.66 s - and the two completions sent
beside the hogs were answered within a second, a `Decode batch` at 9.81 tokens/s; SCHED_IDLE
within its own autogroup did not starve it, and the fault never shows).

What the engines did: nothing in this theme made SGLang fail on this host. Its CPU binding
(`init_threads_binding: ... local_omp_cpuid=...`) is only logged: `init_cpu_threads_env and
shared memory based AllReduce is disabled, only intel amx backend and arm64 are supported` (an
AMD EPYC without AMX), so `1-0` is logged as given (after its warning that the variable is set
for explicit control) and served; under `taskset -c 0` it reports `local_omp_cpuid=0` and serves
(KV cache allocation 41 s); OMP_NUM_THREADS=0 gives libgomp's `Invalid value for environment
variable OMP_NUM_THREADS` and nothing else. vLLM parses its core list itself: `{0,1}` dies in
the engine core (`ValueError: invalid literal for int() with base 10: '{0'` from
parse_id_list, `Engine core initialization failed`); a backwards range parses to `core ids=[]`
and vLLM sets OMP_NUM_THREADS to 0, which libgomp rejects seven times while the server starts and
serves; a core outside the taskset mask (`core ids=[1]`) is taken without a word and served.
Its auto binding under `taskset -c 0`, and VLLM_CPU_NUM_OF_RESERVED_CPU=2, both warn
`Selected CPU core number (N) should be greater than reserved CPU core number (N).` and then
reserve no core at all (`reserved_cpus=[]`) - the reservation is dropped, not enforced.
SGLang at nice 19 beside two hogs crawled: 31 s to `Init parallel begin` (11 s unhogged), then
silent after `Load weight end` until it was stopped at 80 s - a log that reads as a hang.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind144")
WRAP = ROOT / "wrap.py"
SG_READY = "The server is fired up and ready to roll!"

WRAPPER = r'''"""Exec the prefix's words (taskset, nice or none), then this interpreter."""
import os
import shlex
import sys

prefix = shlex.split(sys.argv[1])
argv = [*prefix, sys.executable, *sys.argv[2:]]
os.execvp(argv[0], argv)
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    WRAP.write_text(WRAPPER)


_setup()

_HOGS: list[subprocess.Popen] = []


def start_hogs(ctx: Ctx) -> None:
    """Two busy loops at nice 0, one per core, each in a session of its own."""
    for _ in range(2):
        _HOGS.append(subprocess.Popen([sys.executable, "-c", "while True: pass"],
                                      start_new_session=True, stdin=subprocess.DEVNULL,
                                      stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL))


def stop_hogs() -> None:
    while _HOGS:
        p = _HOGS.pop()
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        p.wait(10)


def v_serve(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a pause."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_serve(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions); a pause."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 8)


def hogged(seconds: float) -> object:
    """The run beside the hogs (started before the launch) for ``seconds`` s, then stopped."""
    def act(ctx: Ctx) -> None:
        try:
            linger(ctx, seconds)
        finally:
            stop_hogs()
    return act


def server_v() -> list[str]:
    return ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", *VLLM_BASE]


def server_s() -> list[str]:
    return ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
            "--port", "{port}", "--device", "cpu", "--model-impl", "transformers"]


def v(name: str, what: str, prefix: str = "", act: object = v_serve, before: object = None,
      **env: str) -> Scenario:
    return Scenario(name, "vllm", what, [str(WRAP), prefix, *server_v()], env=env,
                    act=act, before=before, entry="python")  # type: ignore[arg-type]


def s(name: str, what: str, prefix: str = "", act: object = s_serve, before: object = None,
      **env: str) -> Scenario:
    return Scenario(name, "sglang", what, [str(WRAP), prefix, *server_s()], env=env,
                    act=act, before=before, entry="python")  # type: ignore[arg-type]


HOG = "two busy loops (`while True: pass`, nice 0, one per core) running from before the launch"

SCENARIOS = [
    v("v-taskset-one-core", "the server launched under `taskset -c 0` (one of the host's two "
      "cores)", "taskset -c 0"),
    v("v-omp-bind-backwards", "VLLM_CPU_OMP_THREADS_BIND=1-0 (a range written backwards)",
      VLLM_CPU_OMP_THREADS_BIND="1-0"),
    v("v-omp-bind-outside-mask", "`taskset -c 0` with VLLM_CPU_OMP_THREADS_BIND=1 (a core "
      "outside the process's affinity mask)", "taskset -c 0", VLLM_CPU_OMP_THREADS_BIND="1"),
    v("v-omp-bind-places-syntax", "VLLM_CPU_OMP_THREADS_BIND={0,1} (OpenMP's OMP_PLACES syntax "
      "copied into vLLM's core list)", VLLM_CPU_OMP_THREADS_BIND="{0,1}"),
    v("v-reserved-cpus-all", "VLLM_CPU_NUM_OF_RESERVED_CPU=2 (every core of the 2-core host "
      "reserved for the other processes)", VLLM_CPU_NUM_OF_RESERVED_CPU="2"),
    s("s-taskset-one-core", "the server launched under `taskset -c 0` (one of the host's two "
      "cores)", "taskset -c 0"),
    s("s-omp-bind-backwards", "SGLANG_CPU_OMP_THREADS_BIND=1-0 (a range written backwards)",
      SGLANG_CPU_OMP_THREADS_BIND="1-0"),
    s("s-omp-num-threads-zero", "OMP_NUM_THREADS=0 (a value copied from a GPU guide)",
      OMP_NUM_THREADS="0"),
    s("s-nice19-beside-hog", f"the server at `nice -n 19` beside {HOG}; stopped after 80 s",
      "nice -n 19", act=hogged(80), before=start_hogs),
]
