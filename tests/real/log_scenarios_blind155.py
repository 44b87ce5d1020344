"""The hundred-and-fifty-fifth batch's scenarios (tests/fixtures/corpus/fresh154): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind155.py OUT

Themes: KV-cache layout settings as a person tuning memory sets them - vLLM's --block-size and
--kv-cache-dtype on the CPU build, --kv-cache-memory-bytes with a --block-size that leaves less
than one block; SGLang's --page-size, --kv-cache-dtype and --max-total-tokens smaller than one
page. Then a few requests where a setting starts.

Earlier batches already had (not repeated): vLLM --block-size 8 with a burst (108th),
--kv-cache-dtype fp8 and turboquant_4bit_nc (138th), --kv-cache-memory-bytes 64 KiB, 1 MiB,
512 KiB and 70G (104th, 70th, 115th, 110th); SGLang --page-size 0 (71st) and 16 (108th),
--kv-cache-dtype fp8_e5m2 (108th), fp8_e4m3 (138th), int3 (79th), nvfp4 (67th), mxfp8 (90th),
--max-total-tokens 16, 300, 1024, 1200, 4096 (73rd, 104th, 139th, 115th).

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm);
vLLM with VLLM_BASE's settings (--max-model-len 256). A run that serves is given two
completions and a chat request (vLLM) or two completions (SGLang), then a pause.

Recorded 2026-12-06 in two invocations (raw1: eight scenarios, four vLLM then four SGLang;
raw2: v-kv-dtype-fp16, added once raw1's first logs showed a repeat), taking turns with two
other helpers' recorders; each scenario once. About 4m40s of recording (vLLM 10+49+51+47+10 s,
SGLang 14+50+36+9 s). 7 kept (final files eh101-eh107). Dropped, both repeats, and removed from
SCENARIOS: v-kv-bytes-under-one-block (--block-size 256 with --kv-cache-memory-bytes 131072,
half of one block: weights, compile, `Explicitly set (0.0/23.54) GiB for KV cache`, then
_check_enough_kv_cache_memory's `ValueError: No available memory for the cache blocks` - the
same log as fresh63/au111's --kv-cache-memory-bytes 65536; the block size changes nothing in
it) and s-kv-dtype-fp16 (--kv-cache-dtype fp16: argparse's `invalid choice: 'fp16' (choose from
'auto', 'fp8_e5m2', 'fp8_e4m3', 'mxfp8', 'bf16', 'bfloat16', 'nvfp4', 'fp4_mx_block16')`, the
same log as fresh78/bj114's int3). What the engines did: vLLM refuses --block-size 0 while
building its config (pydantic's `1 validation error for CacheConfig` / `block_size` / `Input
should be greater than 0`) and --kv-cache-dtype fp16 in argparse (`invalid choice: 'fp16'`,
at launch); it takes --kv-cache-dtype bfloat16 (the model's own dtype; the CPU attention
backend's list of KV dtypes is never consulted in the log) and fp8_ds_mla on a Llama model with
no MLA (`Using fp8_ds_mla data type to store kv cache`, the CPU KV cache doubling to 10,918,272
tokens) and serves both without a warning. SGLang refuses --page-size 3 at launch
(`AssertionError: chunked_prefill_size must be divisible by page_size`), takes --page-size 4096
over a 2048-token context and serves (a 4-token request's decode batch shows `#token: 4096`),
and with --page-size 64 --max-total-tokens 32 dies after `Load weight end` sizing its KV pool
(`RuntimeError: Not enough memory. Please try to increase --mem-fraction-static.`, with 20.6 GB
free).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind155")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a chat request, a short pause."""
    ctx.wait_any([READY_LINE], 180)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        ctx.post("/v1/chat/completions", {"model": ctx.model_name(), "max_tokens": 8,
                                          "messages": [{"role": "user", "content": "hi"}]})
        time.sleep(6)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions); a pause."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2, max_tokens=24)
        linger(ctx, 10)


def v(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=v_until)


def s(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=s_until)


SCENARIOS = [
    v("v-block-size-0", "--block-size 0 (a block size of zero tokens)", ["--block-size", "0"]),
    v("v-kv-dtype-bfloat16", "--kv-cache-dtype bfloat16 on the CPU build (its CPU attention "
      "lists auto, fp8, fp8_e4m3, fp8_e5m2)", ["--kv-cache-dtype", "bfloat16"]),
    v("v-kv-dtype-fp8-ds-mla", "--kv-cache-dtype fp8_ds_mla (DeepSeek's MLA cache format) on a "
      "Llama model, CPU build", ["--kv-cache-dtype", "fp8_ds_mla"]),
    v("v-kv-dtype-fp16", "--kv-cache-dtype fp16 (a word the flag lacks: it takes float16, "
      "bfloat16, fp8, ...)", ["--kv-cache-dtype", "fp16"]),
    s("s-page-size-3", "--page-size 3 (an odd KV page size)", ["--page-size", "3"]),
    s("s-page-size-4096", "--page-size 4096 (a KV page larger than the 2048-token context)",
      ["--page-size", "4096"]),
    s("s-max-total-under-page", "--page-size 64 with --max-total-tokens 32 (a KV pool smaller "
      "than one page)", ["--page-size", "64", "--max-total-tokens", "32"]),
]
