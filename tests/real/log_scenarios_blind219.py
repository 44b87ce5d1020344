"""The two-hundred-and-nineteenth batch's scenarios (tests/fixtures/corpus/fresh218): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind219.py OUT

Themes: a production recipe copied whole - the long launch command of an engine's deployment
guide for a large model (DeepSeek V3 on 8 GPUs, Llama 3.3 70B on 4, Qwen3-235B MoE on 8),
pasted with only the model path changed to the tiny Llama (4 heads, 2 KV heads, 2 layers) and
run on this 2-core host, with the recipe's environment variables; then the same recipe pruned
by a person, the first refused flag removed and run again.

Earlier batches already had (not repeated): a GPU host's settings one at a time (110th: FLASHINFER,
gptq_marlin, EPLB, expert parallel on a dense model, --gpu-memory-utilization 0.95, NCCL
variables, --moe-a2a-backend deepep), graph-capture settings (173rd), removed flags of older
docs (98th), benchmark clients and entry points with recipe settings (194th, 207th).

vLLM keeps VLLM_BASE's three host settings (--max-model-len 256, bfloat16, memory 0.25: the
person changed those for the host, and the recipe's length and memory lines were left out);
SGLang runs with --device cpu --model-impl transformers added at the end. A run that serves is
given two completions and a short pause (none did). The pruned scenarios were written after
their full recipe's log was read, removing what that log refused (so the table records exactly
the kept logs, full recipe then its pruned form). Some first refusals here are faults earlier
batches had one flag at a time (heads not divisible by the tensor-parallel size, a context
length over the model's, Triton's `0 active drivers` in the KV pool with speculative decoding,
as fresh93/by116): they are kept because here the engine names them among a whole recipe's
flags, which is this batch's question.

Recorded 2026-12-07 in three invocations (raw1: v-recipe-dsv3-full, s-recipe-dsv3-full,
v-recipe-llama70b-full, then stopped by this helper while it waited for the lock; raw2:
v-recipe-dsv3-no-spec; raw3: s-recipe-dsv3-no-parallel, v-recipe-llama70b-no-spec,
s-recipe-qwen3moe-no-parallel), taking turns for the lock with two other helpers' recorders;
each scenario once. About 2m50s of recording (vLLM 8+8+8+19 s, SGLang 62+39+11 s). 7 kept
(final files gv101-gv107). Dropped: s-recipe-qwen3moe-full (the Qwen3 recipe with its --tp 8
--ep-size 8, never recorded: after s-recipe-dsv3-full it would have met the same 8-rank NUMA
assertion; removed from the table, its pruned form recorded instead). No log was dropped.

What the engines did. Every recipe ended the launch with the engine's own error, none served.
vLLM resolves the speculative config before the parallel layout: both vLLM recipes died first on
it - DeepSeek's MTP (`method deepseek_mtp is deprecated and replaced with mtp`, then
`NotImplementedError: Unsupported speculative method: 'mtp'`) and Llama 70B's draft model, a hub
id on an offline host (`ValidationError: 1 validation error for SpeculativeConfig` / `Invalid
repository ID or local directory specified: 'meta-llama/Llama-3.2-1B-Instruct'`). Pruned of it,
DeepSeek's tp 8 is refused as VllmConfig is built (`Total number of attention heads (4) must be
divisible by tensor parallel size (8)`), and Llama's tp 4 (4 heads divide) passes the config,
the engine core starts (world_size=4) and the CPU executor asserts `Not enough allowed NUMA nodes
to bind threads of 4 local CPUWorkers`. vLLM only warns of the recipes' variables it does not
know (VLLM_ALL2ALL_BACKEND, VLLM_USE_FLASHINFER_MOE_FP8, VLLM_ATTENTION_BACKEND, VLLM_USE_V1),
takes the fp8 KV caches, and takes --quantization fp8 with a deprecation warning. SGLang spent
50 s starting eight schedulers for DeepSeek's --tp 8 --dp 8 before one asserted that 8 ranks
exceed the machine's 1 NUMA node without SGLANG_CPU_OMP_THREADS_BIND; pruned of the parallel
sizes, it took fa3, fp8_e4m3, EAGLE without a draft model (it loads the target a second time as
the draft) and died in kv_cache_alloc on a Triton kernel (`RuntimeError: 0 active drivers`). The
Qwen3 recipe without its parallel sizes died within a second on its --context-length 131072
(`User-specified context_length (131072) is greater than the derived context_length (2048)`):
the recipe's yarn override in --json-model-override-args did not raise the derived length; SGLang
warned `The tool_call_parser 'qwen25' is deprecated`.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, until_exit  # noqa: E402

ROOT = Path("/tmp/blind219")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG_CPU = ["--device", "cpu", "--model-impl", "transformers"]


def sg_until_exit(ctx: Ctx) -> None:
    """Wait for the run to end by itself; if it serves instead, two completions and a pause."""
    if ctx.wait_any([SG_READY], 200) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        time.sleep(10)
    linger(ctx, 5)


# --- vLLM: DeepSeek V3 (8 GPUs, expert parallel, MTP, fp8 KV) --------------------------------

V_DSV3_ENV = {"VLLM_USE_DEEP_GEMM": "1", "VLLM_ALL2ALL_BACKEND": "deepep_low_latency",
              "VLLM_USE_FLASHINFER_MOE_FP8": "1", "NCCL_IB_DISABLE": "0",
              "VLLM_WORKER_MULTIPROC_METHOD": "spawn"}
V_DSV3_PARALLEL = ["--tensor-parallel-size", "8", "--enable-expert-parallel"]
V_DSV3_REST = ["--trust-remote-code", "--served-model-name", "deepseek-v3",
               "--max-num-seqs", "256", "--max-num-batched-tokens", "8192",
               "--enable-chunked-prefill", "--block-size", "64", "--kv-cache-dtype", "fp8",
               "--enable-auto-tool-choice", "--tool-call-parser", "deepseek_v3",
               "--reasoning-parser", "deepseek_r1",
               "--speculative-config",
               json.dumps({"method": "deepseek_mtp", "num_speculative_tokens": 1}),
               "--compilation-config", json.dumps({"cudagraph_capture_sizes": [1, 2, 4, 8, 16]})]

# --- vLLM: Llama 3.3 70B (4 GPUs, fp8, draft model, llama3 tools) -------------------------

V_L70_ENV = {"VLLM_ATTENTION_BACKEND": "FLASHINFER", "VLLM_USE_V1": "1",
             "NCCL_P2P_DISABLE": "1", "CUDA_DEVICE_MAX_CONNECTIONS": "1"}
V_L70_REST = ["--served-model-name", "llama-3.3-70b-instruct", "--max-num-seqs", "64",
              "--max-num-batched-tokens", "8192", "--enable-prefix-caching",
              "--quantization", "fp8", "--kv-cache-dtype", "fp8_e4m3",
              "--enable-auto-tool-choice", "--tool-call-parser", "llama3_json",
              "--speculative-config",
              json.dumps({"model": "meta-llama/Llama-3.2-1B-Instruct",
                          "num_speculative_tokens": 5}),
              "--generation-config", "auto", "--override-generation-config",
              json.dumps({"temperature": 0.6, "top_p": 0.9})]

# --- SGLang: DeepSeek V3 (8 GPUs, DP attention, EAGLE/MTP, fa3) ---------------------------

S_DSV3_ENV = {"SGLANG_ENABLE_JIT_DEEPGEMM": "1", "NCCL_IB_DISABLE": "0",
              "SGLANG_TORCH_PROFILER_DIR": "/tmp/blind219/profile"}
S_DSV3_PARALLEL = ["--tp", "8", "--dp", "8", "--enable-dp-attention"]
S_DSV3_REST = ["--trust-remote-code", "--served-model-name", "deepseek-v3",
               "--mem-fraction-static", "0.8", "--chunked-prefill-size", "8192",
               "--max-running-requests", "256", "--kv-cache-dtype", "fp8_e4m3",
               "--attention-backend", "fa3",
               "--speculative-algorithm", "EAGLE", "--speculative-num-steps", "3",
               "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "4",
               "--tool-call-parser", "deepseekv3", "--reasoning-parser", "deepseek-r1"]

# --- SGLang: Qwen3-235B-A22B (8 GPUs, EP, yarn, qwen3 parsers, flashinfer) -----------------

S_QW3_ENV = {"SGLANG_USE_MODELSCOPE": "false", "NCCL_DEBUG": "WARN"}
S_QW3_PARALLEL = ["--tp", "8", "--ep-size", "8"]
S_QW3_REST = ["--served-model-name", "Qwen3-235B-A22B", "--trust-remote-code",
              "--context-length", "131072", "--json-model-override-args",
              json.dumps({"rope_scaling": {"rope_type": "yarn", "factor": 4.0,
                                           "original_max_position_embeddings": 32768}}),
              "--mem-fraction-static", "0.85", "--chunked-prefill-size", "4096",
              "--max-running-requests", "128", "--attention-backend", "flashinfer",
              "--kv-cache-dtype", "fp8_e5m2",
              "--reasoning-parser", "qwen3", "--tool-call-parser", "qwen25"]

SCENARIOS = [
    Scenario("v-recipe-dsv3-full", "vllm",
             "DeepSeek V3 recipe pasted whole (tp 8, EP, MTP, fp8 KV, parsers, env)",
             [*V_DSV3_PARALLEL, *V_DSV3_REST, *VLLM_BASE], env=V_DSV3_ENV, act=until_exit),
    Scenario("v-recipe-dsv3-no-spec", "vllm",
             "the DeepSeek V3 recipe pruned: --speculative-config (refused first) removed",
             [*V_DSV3_PARALLEL, *V_DSV3_REST[:-4], *V_DSV3_REST[-2:], *VLLM_BASE],
             env=V_DSV3_ENV, act=until_exit),
    Scenario("s-recipe-dsv3-full", "sglang",
             "DeepSeek V3 recipe pasted whole (tp 8, dp 8, DP attention, EAGLE, fa3, fp8 KV)",
             [*S_DSV3_PARALLEL, *S_DSV3_REST, *SG_CPU], env=S_DSV3_ENV, act=sg_until_exit),
    Scenario("s-recipe-dsv3-no-parallel", "sglang",
             "the DeepSeek V3 recipe pruned: --tp 8 --dp 8 --enable-dp-attention (refused first)"
             " removed",
             [*S_DSV3_REST, *SG_CPU], env=S_DSV3_ENV, act=sg_until_exit),
    Scenario("v-recipe-llama70b-full", "vllm",
             "Llama 3.3 70B recipe pasted whole (tp 4, fp8, draft model, llama3 tools, env)",
             ["--tensor-parallel-size", "4", *V_L70_REST, *VLLM_BASE], env=V_L70_ENV,
             act=until_exit),
    Scenario("v-recipe-llama70b-no-spec", "vllm",
             "the Llama 3.3 70B recipe pruned: --speculative-config (refused first) removed",
             ["--tensor-parallel-size", "4", *V_L70_REST[:14], *V_L70_REST[16:], *VLLM_BASE],
             env=V_L70_ENV, act=until_exit),
    Scenario("s-recipe-qwen3moe-no-parallel", "sglang",
             "Qwen3-235B MoE recipe pasted without its --tp 8 --ep-size 8 (yarn 131072, "
             "flashinfer, fp8 KV, parsers)",
             [*S_QW3_REST, *SG_CPU], env=S_QW3_ENV, act=sg_until_exit),
]
