"""The two-hundred-and-eighty-ninth batch's scenarios (tests/fixtures/corpus/fresh288): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind289.py OUT

Themes: a production recipe copied whole, a new round - a vendor's or an engine guide's launch
(flags, settings file, environment block) pasted onto this 2-core CPU host and the tiny Llama
with only the model path and port changed, one recipe per scenario, none of the 219th's. vLLM
(VLLM_BASE's length, dtype and memory kept, as the 219th did): the GPT-OSS guide's Hopper
settings given as a YAML file to --config (async scheduling, no prefix caching,
max-cudagraph-capture-size 2048, 8192 batched tokens, stream-interval 20); the wide-EP
DeepSeek-R1 recipe (--data-parallel-size 8 --enable-expert-parallel, DeepGEMM / NCCL variables);
an 8-GPU Llama-3.1-8B throughput recipe, one data-parallel engine core per GPU
(--data-parallel-size 8, 512 sequences, 16384 batched tokens, prefix caching); the GPT-OSS
Blackwell recipe at tp 1 (FlashInfer MXFP4 variable, fp8 KV, async scheduling, a compilation
config with the 2025 pass_config keys enable_fi_allreduce_fusion and enable_noop). SGLang
(--device cpu --model-impl transformers added): the GPT-OSS Blackwell recipe at tp 1
(trtllm_mha attention, flashinfer_mxfp4 MoE runner, gpt-oss parsers, --enable-symm-mem, 16384
chunk); H100 throughput settings (32768 chunk, 65536 prefill tokens, 1024 running requests, lpm,
conservativeness 0.3, mixed chunk, 4 continuous decode steps) with the memory fraction left to
SGLang; a cluster recipe's communication and observability flags (--enable-nccl-nvls,
--disable-custom-all-reduce, metrics, watchdog 3600 s, 4096 running requests, decode log
interval 1). A run that comes up is sent two or three completions and given a pause.

Earlier batches already had (not repeated): the 219th's recipes (vLLM DeepSeek V3 with MTP and
tp 8, Llama 3.3 70B with a hub draft and tp 4; SGLang DeepSeek V3 with tp 8 / dp 8 and EAGLE,
Qwen3-235B with yarn and 131072 context) and their pruned forms; a GPU host's settings one at a
time (110th: FLASHINFER, gptq_marlin, --enable-expert-parallel with EPLB or DeepEP on the dense
model, --gpu-memory-utilization 0.95, --mem-fraction-static 0.9, NCCL variables, SGLang's
ambiguous --cuda-graph-max-bs); graph-capture settings (173rd); removed flags of older guides
one at a time (98th, 213th: --num-scheduler-steps; 76th, 90th: --max-num-partial-prefills;
282nd: --enable-ep-moe); pass_config given a word (126th); SGLang fa3 on CPU (203rd); vLLM data
parallel 2 (67th, 262nd); --enable-cache-report (191st).

Recorded 2026-12-08 in three invocations (raw1: the seven scenarios of the first table;
raw2: s-recipe-h100-throughput; raw4: v-recipe-llama8b-dp8, v-recipe-gptoss-b200,
s-recipe-nvls-metrics; a raw3 invocation named two scenarios not yet in the table and recorded
nothing), each kept scenario once; no long wait for the lock. Seconds per scenario: vLLM 70
(served, then killed), 9, 246 (cut by the recorder's 240 s wait), 11; SGLang 13, 26, 65 (served,
then killed). 7 kept (final files jn101-jn107). Dropped after recording, the refusal each met
repeating an earlier batch's one-flag fault (found in the earlier tables after recording):
v-recipe-mi300x-llama70b (AMD's MI300X Llama-3.1-70B recipe: `unrecognized arguments:
--num-scheduler-steps`, the 213th's), v-recipe-h100-throughput (vLLM's, with
--max-num-partial-prefills 4: `unrecognized arguments: --max-num-partial-prefills`, the 76th's
and 90th's), s-recipe-dsv3-2025-ep-moe (SGLang's 2025 DeepSeek V3 recipe: `unrecognized
arguments: --enable-ep-moe`, the 282nd's) and s-recipe-mi300x-aiter (AMD's MI300X SGLang recipe
with SGLANG_USE_AITER=1 and --attention-backend aiter: `ambiguous option: --cuda-graph-max-bs
could match --cuda-graph-max-bs-decode, --cuda-graph-max-bs-prefill`, the 110th's); they were
removed from the table and replaced by s-recipe-h100-throughput, v-recipe-llama8b-dp8,
v-recipe-gptoss-b200 and s-recipe-nvls-metrics. v-recipe-dsr1-dp8-ep was kept although its
refusal repeats the 110th's (fresh109/co108): the engine names it among a whole recipe's flags,
before the recipe's data-parallel size, as the 219th kept such logs.

What the engines did. Two served, four crashed, one hung. vLLM took the GPT-OSS Hopper YAML
whole (every key in `non-default args`), came up in 24 s and served: ready. The wide-EP
DeepSeek recipe died building VllmConfig (`Number of experts in the model must be greater than 0
when expert parallelism is enabled.`) before any engine core: crashed at launch. The data
parallel 8 recipe started a DP coordinator and eight engine cores, all bound to core 0; the
eight workers loaded the weights and began their compile warm-up, then only `No available shared
memory broadcast block found in 60 seconds` from every core until the recorder's wait ran out:
hung in kv_cache_alloc. The GPT-OSS Blackwell recipe was refused by the argument parser
(`2 validation errors for CompilationConfig` / `pass_config.enable_fi_allreduce_fusion
Unexpected keyword argument`, and enable_noop): crashed at launch. SGLang's GPT-OSS Blackwell
recipe disabled symmetric memory with a warning, set page size 64 for TensorRT-LLM MHA, then
died resolving its arguments (`ValueError: TRTLLM MHA backend for prefill requires Hopper
(SM90), Blackwell (SM100), or SM120 GPUs`): crashed at launch. The H100 throughput settings left
SGLang to derive a memory fraction of -1.068; the scheduler loaded the weights and died sizing
the KV pool (`Loaded weights leave no GPU memory for the KV cache under
--mem-fraction-static=-1.068`): crashed in kv_cache_alloc. The NVLS / metrics recipe was taken
silently (NVLS on a host without NCCL included) and served, a `Decode batch` line every step:
ready.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    until_exit,
    up,
)

ROOT = Path("/tmp/blind289")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG_CPU = ["--device", "cpu", "--model-impl", "transformers"]

# vLLM's GPT-OSS guide ships its Hopper settings as a YAML file given to --config.
GPTOSS_YAML = ROOT / "GPT-OSS_Hopper.yaml"
GPTOSS_YAML.write_text("async-scheduling: true\n"
                       "no-enable-prefix-caching: true\n"
                       "max-cudagraph-capture-size: 2048\n"
                       "max-num-batched-tokens: 8192\n"
                       "stream-interval: 20\n")

GPTOSS_B200_CC = json.dumps({"pass_config": {"enable_fi_allreduce_fusion": True,
                                             "enable_noop": True},
                             "custom_ops": ["+rms_norm"], "cudagraph_mode": "FULL_AND_PIECEWISE"})


def v_serve(ctx: Ctx) -> None:
    """If it comes up: three completions and a pause for a stats line; else wait for its end."""
    if up(ctx, 240):
        ctx.complete(3, max_tokens=24)
        time.sleep(12)
    linger(ctx, 5)


def sg_serve(ctx: Ctx) -> None:
    """Wait for the run to end by itself; if it serves instead, two completions and a pause."""
    if ctx.wait_any([SG_READY], 200) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        time.sleep(10)
    linger(ctx, 5)


SCENARIOS = [
    # --- vLLM ---------------------------------------------------------------------------------
    Scenario("v-recipe-gptoss-hopper-yaml", "vllm",
             "vLLM's GPT-OSS guide for Hopper pasted: --config GPT-OSS_Hopper.yaml (async "
             "scheduling, no prefix caching, max-cudagraph-capture-size 2048, 8192 batched "
             "tokens, stream-interval 20), tp 1",
             ["--config", str(GPTOSS_YAML), "--tensor-parallel-size", "1",
              "--served-model-name", "gpt-oss-120b", *VLLM_BASE],
             act=v_serve),
    Scenario("v-recipe-dsr1-dp8-ep", "vllm",
             "vLLM's wide-EP DeepSeek-R1 recipe pasted: --data-parallel-size 8 "
             "--enable-expert-parallel with its DeepGEMM / NCCL environment",
             ["--data-parallel-size", "8", "--enable-expert-parallel",
              "--max-num-batched-tokens", "8192", "--max-num-seqs", "512",
              "--trust-remote-code", "--served-model-name", "deepseek-r1", *VLLM_BASE],
             env={"VLLM_USE_DEEP_GEMM": "1", "VLLM_MOE_DP_CHUNK_SIZE": "256",
                  "NCCL_NVLS_ENABLE": "1"},
             act=until_exit),
    Scenario("v-recipe-llama8b-dp8", "vllm",
             "an 8-GPU throughput recipe for Llama-3.1-8B pasted: --data-parallel-size 8 (one "
             "engine core per GPU), 512 sequences, 16384 batched tokens, prefix caching",
             ["--data-parallel-size", "8", "--max-num-seqs", "512",
              "--max-num-batched-tokens", "16384", "--enable-prefix-caching",
              "--served-model-name", "llama-3.1-8b", *VLLM_BASE],
             act=v_serve),
    Scenario("v-recipe-gptoss-b200", "vllm",
             "vLLM's GPT-OSS Blackwell recipe pasted at tp 1: FlashInfer MXFP4 variable, fp8 KV, "
             "async scheduling, a compilation config with its 2025 pass_config keys "
             "(enable_fi_allreduce_fusion, enable_noop)",
             ["--tensor-parallel-size", "1", "--kv-cache-dtype", "fp8", "--async-scheduling",
              "--no-enable-prefix-caching", "--max-num-batched-tokens", "8192",
              "--compilation-config", GPTOSS_B200_CC, *VLLM_BASE],
             env={"VLLM_USE_FLASHINFER_MOE_MXFP4_MXFP8": "1"}, act=v_serve),
    # --- SGLang -------------------------------------------------------------------------------
    Scenario("s-recipe-gptoss-b200", "sglang",
             "SGLang's GPT-OSS Blackwell recipe pasted at tp 1 (trtllm_mha attention, "
             "flashinfer_mxfp4 MoE runner, gpt-oss parsers, symmetric memory, 16384 chunk)",
             ["--tp", "1", "--attention-backend", "trtllm_mha",
              "--moe-runner-backend", "flashinfer_mxfp4",
              "--reasoning-parser", "gpt-oss", "--tool-call-parser", "gpt-oss",
              "--mem-fraction-static", "0.85", "--chunked-prefill-size", "16384",
              "--max-running-requests", "256", "--enable-symm-mem", *SG_CPU],
             act=sg_serve),
    Scenario("s-recipe-h100-throughput", "sglang",
             "SGLang's H100 throughput settings pasted (32768 chunk, 65536 prefill tokens, 1024 "
             "running requests, lpm, conservativeness 0.3, mixed chunk, 4 continuous decode "
             "steps)",
             ["--chunked-prefill-size", "32768", "--max-prefill-tokens", "65536",
              "--max-running-requests", "1024", "--schedule-policy", "lpm",
              "--schedule-conservativeness", "0.3", "--enable-mixed-chunk",
              "--num-continuous-decode-steps", "4", *SG_CPU],
             act=sg_serve),
    Scenario("s-recipe-nvls-metrics", "sglang",
             "a SGLang serving recipe's communication and observability flags pasted "
             "(--enable-nccl-nvls, --disable-custom-all-reduce, metrics, watchdog 3600 s, 4096 "
             "running requests, decode log every step)",
             ["--enable-nccl-nvls", "--disable-custom-all-reduce", "--enable-metrics",
              "--watchdog-timeout", "3600", "--max-running-requests", "4096",
              "--decode-log-interval", "1", *SG_CPU],
             act=sg_serve),
]
