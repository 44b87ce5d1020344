"""The two-hundred-and-eighty-second batch's scenarios (tests/fixtures/corpus/fresh281): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind282.py OUT

Themes: a launch from an older release's guide, a new round - flags and environment blocks
copied from 2024 and early-2025 tutorials onto vLLM 0.32.0 and SGLang 0.5.23. vLLM: the 2024
speculative-decoding pair --speculative-model MODEL --num-speculative-tokens 3 (now
--speculative-config); early 2025's --enable-reasoning beside --reasoning-parser deepseek_r1;
`--enable-chunked-prefill False` written with a value after what is now a bare switch; a CPU
guide's VLLM_ATTENTION_BACKEND=TORCH_SDPA. SGLang: 2024's --disable-regex-jump-forward; an
early-2025 DeepSeek guide's --enable-ep-moe; 2024's --disable-flashinfer-sampling (now
--sampling-backend); a T4/V100 guide's --dtype half kept on the CPU launch.

Earlier batches already had (not repeated): --use-v2-block-manager, --worker-use-ray,
--num-lookahead-slots, --tokenizer-pool-size, --task, --disable-log-requests, --rope-scaling,
--disable-flashinfer, --enable-overlap-schedule, VLLM_ATTENTION_BACKEND=XFORMERS, SGL_ variables
(98th); --guided-decoding-backend outlines, VLLM_USE_TRITON_FLASH_ATTN=0, guided_json,
--disable-disk-cache, --mem-fraction 0.5, --engine-use-ray, --num-scheduler-steps (213th);
VLLM_ATTENTION_BACKEND=FLEX (204th); --max-logprobs (76th, 82nd, 212th, 226th); VLLM_USE_V1
(70th, 219th); --chunked-prefill-size -1 and its kin (73rd and later); --enable-torch-compile
(108th and later); --mem-fraction-static 0.9 (110th); --attention-backend flashinfer on SGLang
(110th, 148th); --ep-size 2 (119th); the old entry points (224th); vLLM's --dtype half on an fp32
copy (250th).

Recorded 2026-12-08 in one invocation (/tmp/blind282/raw1), each scenario once, waiting for
other helpers' recorders before most scenarios. About 3.5 minutes of recording (vLLM 10+9+55+48
s, SGLang 7+7+7+67 s). All 8 kept (final files jg101-jg108); none dropped. In
v-speculative-model-flag the table passed the draft model as the literal word {model} (the
recorder fills it only for entry="python"), which argparse took as the positional model_tag;
the fault shows the same (the flags are refused).

What the engines did. vLLM: both removed flags end in argparse's usage and `api_server.py: error:
unrecognized arguments: --speculative-model --num-speculative-tokens 3` / `... --enable-reasoning`
(exit 2, after the module's two DeprecationWarnings); `--enable-chunked-prefill False` is taken
silently as the switch on plus a stray positional model tag (`non-default args: {'model_tag':
'False', ..., 'enable_chunked_prefill': True}`) and it served two completions;
VLLM_ATTENTION_BACKEND only gets `Unknown vLLM environment variable detected:
VLLM_ATTENTION_BACKEND` and it served two completions. SGLang: the three removed flags end in
`sglang serve: error: unrecognized arguments: ...` (exit 2, after launch_server's UserWarning);
--dtype half is taken without a word (`KV Cache is allocated. dtype: torch.float16`) and it
served two completions. Crashed at launch: jg101, jg102, jg105, jg106, jg107; ready in serving:
jg103, jg104, jg108.
"""

from __future__ import annotations

import time
from pathlib import Path

from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger

ROOT = Path("/tmp/blind282")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def ends_or_serves(ctx: Ctx) -> None:
    """Let the run end by itself; if it serves instead, two completions and a pause."""
    found = ctx.wait_any([READY_LINE], 200)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        if "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 90)
        ctx.complete(2)
        time.sleep(10)
    else:
        linger(ctx, 20)


SCENARIOS = [
    Scenario("v-speculative-model-flag", "vllm",
             "a 2024 speculative-decoding guide's --speculative-model MODEL "
             "--num-speculative-tokens 3 (flags vLLM replaced by --speculative-config)",
             [*VLLM_BASE, "--speculative-model", "{model}", "--num-speculative-tokens", "3"],
             act=ends_or_serves),
    Scenario("v-enable-reasoning-flag", "vllm",
             "an early-2025 reasoning guide's --enable-reasoning --reasoning-parser deepseek_r1 "
             "(--enable-reasoning since removed)",
             [*VLLM_BASE, "--enable-reasoning", "--reasoning-parser", "deepseek_r1"],
             act=ends_or_serves),
    Scenario("v-chunked-prefill-false-word", "vllm",
             "an older guide's `--enable-chunked-prefill False` (a value after what is now a "
             "boolean switch)",
             [*VLLM_BASE, "--enable-chunked-prefill", "False"], act=ends_or_serves),
    Scenario("v-attention-backend-torch-sdpa-env", "vllm",
             "a 2024 CPU guide's environment block VLLM_ATTENTION_BACKEND=TORCH_SDPA (the old "
             "CPU backend's name)",
             [*VLLM_BASE], env={"VLLM_ATTENTION_BACKEND": "TORCH_SDPA"}, act=ends_or_serves),
    Scenario("s-disable-regex-jump-forward", "sglang",
             "a 2024 SGLang guide's --disable-regex-jump-forward (a flag since removed)",
             [*SG, "--disable-regex-jump-forward"], act=ends_or_serves),
    Scenario("s-enable-ep-moe", "sglang",
             "an early-2025 DeepSeek guide's --enable-ep-moe (since replaced by --ep-size and "
             "the MoE backend flags)",
             [*SG, "--enable-ep-moe"], act=ends_or_serves),
    Scenario("s-disable-flashinfer-sampling", "sglang",
             "a 2024 SGLang guide's --disable-flashinfer-sampling (since replaced by "
             "--sampling-backend)",
             [*SG, "--disable-flashinfer-sampling"], act=ends_or_serves),
    Scenario("s-dtype-half", "sglang",
             "a 2024 T4/V100 guide's --dtype half kept on today's CPU launch",
             [*SG, "--dtype", "half"], act=ends_or_serves),
]
