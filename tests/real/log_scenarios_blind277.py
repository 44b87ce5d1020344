"""The two-hundred-and-seventy-seventh batch's scenarios (tests/fixtures/corpus/fresh276): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind277.py OUT

Themes: process and thread limits, a new round - what a person meets on a host or in a container
whose limits are tight, at different phases. vLLM (VLLM_BASE's settings): `ulimit -s unlimited`
(RLIMIT_STACK soft and hard) from the start, met by a burst of twelve concurrent completions;
MKL_NUM_THREADS set to the literal `$(nproc)` (a unit file's Environment= line no shell expands),
met at import; the model worker's open-files limit set with prlimit to the descriptors it holds
the moment it logs `Starting to load model` (counted, not guessed). SGLang (--device cpu
--model-impl transformers): OMP_NUM_THREADS set to the literal `$(nproc)`; `ulimit -v` 12 GiB
(RLIMIT_AS, a value the imports and the weights fit in, the KV pool not); the scheduler's
open-files limit set to the descriptors it holds the moment it logs `Load weight begin`;
`ulimit -l 0` (RLIMIT_MEMLOCK) from the start, met by a burst of twelve concurrent completions.
The rlimits from the start are set by WRAP, a `python -c` start script (the recorder's source
line quotes its code, newlines included) that sets them, soft and hard, and execs the engine's
interpreter on its module, so every process inherits them; the prlimit ones by the act, on the
running child (psutil's rlimit, prlimit(2)), its descriptors counted with num_fds() and written
to /tmp/blind277/nofile-PID.txt. systemd-run --scope (TasksMax) does not work here: systemd is
not running (`systemctl is-system-running`: offline); RLIMIT_NPROC binds root only through a
service account (176th), so `ulimit -u` was left out.

Earlier batches already had (not repeated): RLIMIT_NOFILE 64 / 32 for the whole server (67th,
69th), 256 met by a connection burst (113th), lowered once serving (82nd, 99th) and the vLLM
worker's cut as its compile warm-up began (86th); RLIMIT_AS 16, 6, 1 GiB for vLLM and 3 GiB for
SGLang at launch (67th, 72nd), cut to the current size while serving (69th, 83rd, 85th);
RLIMIT_STACK 192 / 256 KiB (72nd, 78th); RLIMIT_DATA, RLIMIT_CPU, RLIMIT_FSIZE (70th, 71st,
77th, 78th); RLIMIT_NPROC for a service account (176th); pids cgroups at launch, once up and
before the workers start (71st, 91st, 113th, 199th); OMP_NUM_THREADS 0, auto, 2048 and
OMP_STACKSIZE 64G and 16K (70th, 75th, 81st, 144th, 176th); VLLM_CPU_OMP_THREADS_BIND and
SGLANG_CPU_OMP_THREADS_BIND values (70th, 98th, 118th, 144th); taskset to one core and to absent
cores, nice 19 beside hogs, chrt --idle (105th, 144th); renice while serving (99th); CPU quotas
and cpu.shares (79th, 100th, 113th, 199th).

Recorded 2026-12-07/08 on the 2-core host (no GPU), vllm-cpu 0.32.0 and SGLang 0.5.23, in one
invocation (/tmp/blind277/raw1, the seven scenarios in table order), taking turns with other
helpers' recorders for the lock; each scenario once: 57, 46, 41, 55, 28, 34 and 68 s. All seven
logs kept (final files /tmp/blind277/final/jb101-jb107); none dropped. Three of them show nothing
of their fault (jb101, jb102, jb107) and are kept as fair ready logs of the ground. The WRAP
scenarios' source lines hold the script's newlines; the final files write them `\\n`, so that
the source stays one line.

What the engines did. v-stack-unlimited-burst: nothing of the stack; vLLM starts as usual and
answers all fifteen completions, burst included (ready, serving). v-mkl-threads-unexpanded: no
word of MKL from torch, MKL or vLLM; the engine core's `Reducing Torch threads from 2 to 1` line
is missing; two completions answered (ready, serving). v-nofile-worker-at-load: the worker (61
descriptors) still loads the four shards (`Loading weights took 0.01 seconds`), then dies setting
up its message queue, `shared_memory` raising `OSError: [Errno 24] Too many open files`;
`Engine core initialization failed` (crashed in weight_loading). s-omp-threads-unexpanded:
libgomp prints `Invalid value for environment variable OMP_NUM_THREADS` three times and goes on;
SGLang binds its own threads and serves (ready, serving). s-as-limit-12g: imports and weights fit;
the KV pool's `torch.zeros` of 7,997,233,152 bytes fails, `DefaultCPUAllocator: can't allocate
memory ... Error code 12`, `Received sigquit from a child process` (crashed in kv_cache_alloc).
s-nofile-scheduler-at-load: the scheduler (73 descriptors) cannot list the model folder:
`RuntimeError: Cannot find any model weights with ...`, its traceback printed without source
lines, then `OSError: [Errno 24] Too many open files: '/proc/.../stat'` in its handler and
`Rank 0 scheduler died during initialization (exit code: 1)` (crashed in weight_loading).
s-memlock-zero-burst: nothing of the limit; SGLang serves the burst (12 running) and all fifteen
completions (ready, serving). No run hung.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind277")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
HOSTPORT = ["--host", "127.0.0.1", "--port", "{port}"]
VLLM_MOD = ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", *HOSTPORT,
            *VLLM_BASE]
SG_MOD = ["-m", "sglang.launch_server", "--model-path", "{model}", *HOSTPORT, *SG]

# `ulimit -X N && exec python ...` as a start script does it: the limits (soft and hard) set in
# the launching process, then the engine's interpreter exec'd, so every process inherits them.
# argv[1] is `RLIMIT_NAME=VALUE[,...]` (VALUE `inf` for unlimited).
WRAP = ("import os, sys, resource as r\n"
        "for item in sys.argv[1].split(','):\n"
        "    k, v = item.split('=')\n"
        "    n = r.RLIM_INFINITY if v == 'inf' else int(v)\n"
        "    r.setrlimit(getattr(r, k), (n, n))\n"
        "os.execv(sys.executable, [sys.executable] + sys.argv[2:])\n")


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def limited(spec: str, module: list[str]) -> list[str]:
    return ["-c", WRAP, spec, *module]


def _ready_line(ctx: Ctx) -> str:
    return SG_READY if "sglang" in ctx.text().split("\n", 1)[0] else READY_LINE


def ends_or_serves(ctx: Ctx) -> None:
    """Let the run end by itself; if it serves instead, two completions and a pause."""
    ready = _ready_line(ctx)
    found = ctx.wait_any([ready], 240)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        time.sleep(10)
    else:
        linger(ctx, 20)


def serve_burst(ctx: Ctx) -> None:
    """Up: two completions, then a burst of twelve concurrent ones (64 tokens each), one more
    completion and a pause."""
    if ctx.wait_for(_ready_line(ctx), 240) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        name = ctx.model_name()
        threads = [threading.Thread(target=ctx.post, args=(
            "/v1/completions", {"model": name, "prompt": f"the fox number {i} says",
                                "max_tokens": 64}, 120)) for i in range(12)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(130)
        ctx.complete(1)
        time.sleep(12)
    else:
        linger(ctx, 20)


def nofile_at(child: str, needle: str):
    """`prlimit --nofile=N:N` on the process named ``child`` the moment ``needle`` is logged, N
    the descriptors it holds then (counted, not guessed): its next open fails. The log is polled
    every 10 ms (a tiny model's load takes a tenth of a second)."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        end = time.monotonic() + 240
        while time.monotonic() < end and ctx.proc.poll() is None:
            if needle in ctx.output():
                break
            time.sleep(0.01)
        else:
            return
        for p in ctx.children(child):
            try:
                n = p.num_fds()
                p.rlimit(psutil.RLIMIT_NOFILE, (n, n))
                (ROOT / f"nofile-{p.pid}.txt").write_text(f"{p.name()} {n}\n")
            except psutil.Error:
                pass
        ends_or_serves(ctx)
    return act


SCENARIOS = [
    Scenario("v-stack-unlimited-burst", "vllm",
             "`ulimit -s unlimited` (RLIMIT_STACK soft and hard unlimited) for the server from its "
             "start; once up, two completions and a burst of twelve concurrent ones",
             limited("RLIMIT_STACK=inf", VLLM_MOD), entry="python", act=serve_burst),
    Scenario("v-mkl-threads-unexpanded", "vllm",
             "MKL_NUM_THREADS='$(nproc)' (a unit file's Environment= line, never expanded by a "
             "shell); once up, two completions",
             VLLM_MOD, entry="python", env={"MKL_NUM_THREADS": "$(nproc)"}, act=ends_or_serves),
    Scenario("v-nofile-worker-at-load", "vllm",
             "the model worker's open-files limit (prlimit --nofile) set to the descriptors it "
             "holds the moment it logs `Starting to load model`",
             VLLM_MOD, entry="python", act=nofile_at("Worker", "Starting to load model")),
    Scenario("s-omp-threads-unexpanded", "sglang",
             "OMP_NUM_THREADS='$(nproc)' (a unit file's Environment= line, never expanded by a "
             "shell); if up, two completions",
             SG_MOD, entry="python", env={"OMP_NUM_THREADS": "$(nproc)"}, act=ends_or_serves),
    Scenario("s-as-limit-12g", "sglang",
             "`ulimit -v 12582912` (address space 12 GiB, soft and hard) for the launcher from "
             "its start; if up, two completions",
             limited(f"RLIMIT_AS={12 << 30}", SG_MOD), entry="python", act=ends_or_serves),
    Scenario("s-nofile-scheduler-at-load", "sglang",
             "the scheduler's open-files limit (prlimit --nofile) set to the descriptors it holds "
             "the moment it logs `Load weight begin`",
             SG_MOD, entry="python", act=nofile_at("scheduler", "Load weight begin")),
    Scenario("s-memlock-zero-burst", "sglang",
             "`ulimit -l 0` (RLIMIT_MEMLOCK soft and hard 0) for the launcher from its start; once "
             "up, two completions and a burst of twelve concurrent ones",
             limited("RLIMIT_MEMLOCK=0", SG_MOD), entry="python", act=serve_burst),
]
