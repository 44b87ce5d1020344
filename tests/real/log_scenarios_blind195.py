"""The hundred-and-ninety-fifth batch's scenarios (tests/fixtures/corpus/fresh194): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind195.py OUT

Themes: the CPU instruction-set dispatch and math-library settings around the engine, as a
person sets them after reading a performance guide or copying an environment from another
machine (this host: AMD EPYC with AVX-512 and AVX512_BF16, no AMX). Kept: ATEN_CPU_CAPABILITY
set to a level that does not exist (avx1024; vLLM), OMP_WAIT_POLICY=spin (libgomp knows ACTIVE
and PASSIVE; SGLang), VLLM_CPU_ATTN_SPLIT_KV=yes (a word where vLLM wants 0/1), and
TORCH_CPP_LOG_LEVEL=INFO (a debugging guide's setting; SGLang).

Earlier batches already had (not repeated): VLLM_CPU_OMP_THREADS_BIND (0, 1, 0|1, 2-3, 1-0,
all, {0...}), VLLM_CPU_KVCACHE_SPACE (1, 40, 64, -4), VLLM_CPU_NUM_OF_RESERVED_CPU (2, 4),
OMP_NUM_THREADS (0, auto, 2048), OMP_STACKSIZE=16K, OMP_PROC_BIND=compact, OMP_CPU_AFFINITY.

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers.
Where the server comes up, three completions are sent.

Recorded 2026-12-07 in two invocations (raw1: v-aten-cap-avx1024, s-dnnl-isa-avx2-bf16; raw2:
s-omp-wait-policy-spin, v-cpu-attn-split-kv-yes, s-torch-cpp-log-level-info), taking turns with
two other helpers' recorders (most of the half hour was spent waiting for the lock); each
scenario once. About 4m30s of recording (58 + 63 + 55 + 36 + 56 s). 4 kept (final files
fw101-fw104), fewer than asked: the batch ran out of its half hour waiting for turns. Dropped:
s-dnnl-isa-avx2-bf16 (recorded: DNNL_MAX_CPU_ISA=AVX2 with --dtype bfloat16; SGLang served
three completions at the usual speed, 23 token/s, without a word of oneDNN or the ISA - the
fault never shows). Not recorded, for want of time (the first recorder was stopped while it
waited for the lock and a second started on the rest; that one was stopped likewise at the
half hour): v-onednn-isa-sse41 (ONEDNN_MAX_CPU_ISA=SSE41, skipped as likely as silent as the
DNNL run), v-iomp-kmp-block-copied (LD_PRELOAD of vLLM's libiomp5.so with
KMP_AFFINITY=granularity=fine,explicit,proclist=[8-15] and KMP_BLOCKTIME=-1) and
s-aten-cap-upper-avx2 (ATEN_CPU_CAPABILITY=AVX2); all three removed from the table with the
dropped one.

What the engines did: vLLM takes ATEN_CPU_CAPABILITY=avx1024 with `UserWarning: ignoring
invalid value for ATEN_CPU_CAPABILITY: avx1024` from torch's DispatchStub.cpp in the engine core
and worker, and eight more from Inductor's cpu_vec_isa.py while it compiles in warmup, then
serves (ready in serving). SGLang with OMP_WAIT_POLICY=spin prints `libgomp: Invalid value for
environment variable OMP_WAIT_POLICY` three times (once per process loading torch) and serves at
the usual speed. VLLM_CPU_ATTN_SPLIT_KV=yes passes the API server and engine core and kills the
worker right after `Loading weights took` (`enable_envs_cache` -> `ValueError: invalid literal
for int() with base 10: 'yes'`), then `EngineCore failed to start` and `RuntimeError: Engine
core initialization failed` (crashed in weight_loading, invalid_config). TORCH_CPP_LOG_LEVEL=INFO
adds one glog-style C++ line to SGLang's log (`[I1207 ... socket.cpp:955] [c10d] The client
socket has connected ...`) and it serves.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind195")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, three completions and a pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(3, max_tokens=24)
        linger(ctx, 12)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (three completions), then a pause."""
    found = ctx.wait_any([SG_READY], 180)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(3, max_tokens=24)
        linger(ctx, 10)
    time.sleep(0.1)


def v(name: str, what: str, env: dict[str, str]) -> Scenario:
    return Scenario(name, "vllm", what, list(VLLM_BASE), env=env, act=v_until)


def s(name: str, what: str, env: dict[str, str], args: list[str] | None = None) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *(args or [])], env=env, act=s_until)


SCENARIOS = [
    v("v-aten-cap-avx1024", "ATEN_CPU_CAPABILITY=avx1024, a level that does not exist",
      {"ATEN_CPU_CAPABILITY": "avx1024"}),
    s("s-omp-wait-policy-spin", "OMP_WAIT_POLICY=spin (libgomp knows ACTIVE and PASSIVE)",
      {"OMP_WAIT_POLICY": "spin"}),
    v("v-cpu-attn-split-kv-yes", "VLLM_CPU_ATTN_SPLIT_KV=yes (vLLM reads it as an integer 0/1)",
      {"VLLM_CPU_ATTN_SPLIT_KV": "yes"}),
    s("s-torch-cpp-log-level-info", "TORCH_CPP_LOG_LEVEL=INFO, from a debugging guide",
      {"TORCH_CPP_LOG_LEVEL": "INFO"}),
]
