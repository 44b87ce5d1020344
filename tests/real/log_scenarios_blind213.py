"""The two-hundred-and-thirteenth batch's scenarios (tests/fixtures/corpus/fresh212): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind213.py OUT

Themes: a launch copied from an older release's guide or blog post. A vLLM flag of 0.6-0.10
(--guided-decoding-backend outlines), an environment variable of the ROCm-era guides
(VLLM_USE_TRITON_FLASH_ATTN=0) and an old client's guided_json request field sent to a server
that is up; an SGLang 0.2 flag (--disable-disk-cache), the old short spelling --mem-fraction 0.5,
and an old /generate body (sampling_params with 0.1-0.2's `dtype: "int"`).

Earlier batches already had (not repeated): --use-v2-block-manager, --worker-use-ray,
--num-lookahead-slots, --tokenizer-pool-size, --task, --disable-log-requests,
--disable-flashinfer, --enable-overlap-schedule, VLLM_ATTENTION_BACKEND=XFORMERS and SGL_
variables (98th); VLLM_ATTENTION_BACKEND=FLEX (204th); --swap-space (83rd, 165th);
--max-seq-len-to-capture (173rd); --enable-torch-compile (108th and later); guided_choice
(200th); VLLM_WORKER_MULTIPROC_METHOD (68th, 127th, 208th).

SGLang scenarios run with --device cpu --model-impl transformers, vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in one invocation (raw1: all nine, waiting its turn twice behind another
helper's recorder); each scenario once. About 3m17s of recording (197 s: vLLM 8+8+8+37+42 s,
SGLang 6+6+38+44 s). 6 kept (final files gp101-gp106). Dropped, and removed from the table:
v-engine-use-ray (--engine-use-ray), v-num-scheduler-steps (--num-scheduler-steps 8) and
s-attention-reduce-in-fp32 (--attention-reduce-in-fp32) - each recorded and refused by argparse
exactly as the kept gp101/gp102 are (`unrecognized arguments: --FLAG` after the usage text,
exit 2 in 6-8 s), which is the 98th batch's log for --worker-use-ray and --disable-flashinfer
with only the flag's name changed: one of each engine kept, the rest repeats.

What the engines did: every removed flag stops at argparse before any engine process (vLLM's
api_server.py, SGLang's `sglang serve` usage: crashed at launch). SGLang takes --mem-fraction as
an abbreviation of --mem-fraction-static without a word and serves with half the memory pool.
vLLM warns `Unknown vLLM environment variable detected: VLLM_USE_TRITON_FLASH_ATTN` and serves.
A guided_json request gets vLLM's `Request contains the removed guided-decoding field(s)
['guided_json'], which are ignored; output will NOT be constrained` and is answered 200 OK.
SGLang answers the old `dtype` sampling parameter with `400 Bad Request` (the log gives no
reason) and keeps serving. Every kept serving log is ready in serving, cause none.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind213")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def s_until(ctx: Ctx) -> None:
    """SGLang: until the run ends or is fired up; if it serves, two completions, a pause."""
    ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in ctx.text():
        ctx.complete(2)
        linger(ctx, 6)


def v_until(ctx: Ctx) -> None:
    """vLLM: until the run ends or is up; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(6)


SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}}, "required": ["name"]}


def v_guided_json(ctx: Ctx) -> None:
    """vLLM up: one completion, then two with an old client's guided_json field, one more."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        name = ctx.model_name()
        ctx.complete(1)
        for _ in range(2):
            ctx.post("/v1/completions", {"model": name, "prompt": "A JSON person:",
                                         "max_tokens": 24, "guided_json": SCHEMA})
        ctx.complete(1)
        time.sleep(12)


def s_old_generate(ctx: Ctx) -> None:
    """SGLang up: /generate as an old client sends it (sampling_params' dtype), then a plain one."""
    ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in ctx.text():
        ctx.post("/generate", {"text": "The answer is", "sampling_params":
                               {"max_new_tokens": 8, "temperature": 0, "dtype": "int"}})
        ctx.post("/generate", {"text": "Count:", "sampling_params":
                               {"max_new_tokens": 8, "dtype": "int"}})
        ctx.post("/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
        linger(ctx, 8)


def v(name: str, what: str, extra: list[str], env: dict[str, str] | None = None,
      act=v_until) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *extra], env=env or {}, act=act)


def s(name: str, what: str, extra: list[str], env: dict[str, str] | None = None,
      act=s_until) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *extra], env=env or {}, act=act)


SCENARIOS = [
    s("s-disable-disk-cache", "--disable-disk-cache, from an SGLang 0.2 guide (outlines' disk "
      "cache flag, since renamed)", ["--disable-disk-cache"]),
    v("v-guided-decoding-backend", "--guided-decoding-backend outlines, from a 0.6-era "
      "structured-output guide (since --structured-outputs-config)",
      ["--guided-decoding-backend", "outlines"]),
    s("s-mem-fraction", "--mem-fraction 0.5, an old guide's short spelling of "
      "--mem-fraction-static", ["--mem-fraction", "0.5"]),
    v("v-env-triton-flash-attn", "VLLM_USE_TRITON_FLASH_ATTN=0, from an old ROCm guide's "
      "environment", [], env={"VLLM_USE_TRITON_FLASH_ATTN": "0"}),
    v("v-guided-json-request", "an old OpenAI client's guided_json field (vLLM 0.4-0.10's "
      "structured output) in /v1/completions requests to a server that is up", [],
      act=v_guided_json),
    s("s-old-generate-dtype", "an SGLang 0.1-0.2 client's /generate body: sampling_params with "
      "dtype \"int\", to a server that is up", [], act=s_old_generate),
]

ROOT.mkdir(parents=True, exist_ok=True)
