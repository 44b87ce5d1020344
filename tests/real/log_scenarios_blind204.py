"""The two-hundred-and-fourth batch's scenarios (tests/fixtures/corpus/fresh203): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind204.py OUT

Themes: kernel and backend choices - the attention and MoE-runner backends a person names
after reading a tuning guide, on this CPU host where only some exist. vLLM: --attention-backend
FLASH_ATTN (a CUDA backend its registry knows), --attention-backend FLASH_ATTENTION (a
misspelling of FLASH_ATTN), --mm-encoder-attn-backend XFORMERS (the vision encoder's backend an
older guide names) on the text model, and the one backend named twice (--attention-backend
CPU_ATTN with --attention-config '{"backend": "CPU_ATTN"}'). SGLang: --attention-backend fa3 and
flex_attention, and --moe-runner-backend flashinfer_cutlass on the dense tiny Llama.

Earlier batches already had (not repeated): vLLM's FLASHINFER backend and SGLang's triton and
flashinfer attention backends (110th), SGLang's intel_amx (126th), deterministic inference with
several SGLang backends (148th), VLLM_ATTENTION_BACKEND=XFORMERS (98th), the head_dim-16 model
under vLLM's CPU kernel (67th, 121st), SGLang's --sampling-backend flashinfer (78th), a bogus
SGLang --attention-backend (81st), SGLang --moe-runner-backend triton on the dense model (188th),
SGLang's grammar backends outlines, llguidance and none (120th, 146th, 150th, 181st).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. A run
that serves is given two completions and ended.

Recorded 2026-12-07 in 2 invocations (raw1: v-attn-flash-attn, after which the recorder was
stopped while it waited for the lock, to replace two vLLM scenarios found to be repeats by
reading the engine; raw2: the other seven by name), taking turns with two other helpers'
recorders; each scenario once. About 5m20s of recording (vLLM 58+8+45+8 s, SGLang 45+49+66+49 s).
7 kept (final files gf101-gf107). Dropped: s-sampling-ascend (--sampling-backend ascend: the
server_args line already shows 'sampling_backend': 'pytorch', SGLang replaced the value without a
word, and it served - the fault never shows). Not recorded (removed before their turn, as the
installed vLLM showed they would repeat earlier logs): v-attn-triton (--attention-backend
TRITON_ATTN: vLLM's CPU platform answers every backend but CPU_ATTN with the same info line, as
gf101 and the 110th's FLASHINFER show) and v-env-attn-flex (VLLM_ATTENTION_BACKEND is no longer
read by vLLM 0.32.0: the 98th's XFORMERS variable's unknown-variable warning). All three are
removed from SCENARIOS.

What the engines did. vLLM's CPU build logs `Cannot use AttentionBackendEnum.FLASH_ATTN backend on
CPU.` at info level and serves on its CPU backend (as the 110th's FLASHINFER); a misspelt backend
dies in create_engine_config (`ValueError: Unknown attention backend: 'FLASH_ATTENTION'. Valid
options are: ...`), and so does a backend named by both the flag and --attention-config
(`ValueError: attention_backend and attention_config.backend are mutually exclusive`), both at
launch before any engine core; --mm-encoder-attn-backend XFORMERS on a text model is shown in
`non-default args` only (the multimodal config whose validator refuses XFORMERS is never built)
and the server serves. SGLang with fa3 loads the weights and allocates the KV cache, then its
scheduler dies building the attention backend (`AssertionError: FlashAttention v3 Backend requires
SM>=80 and SM<=90. Please use --attention-backend flashinfer.`); flex_attention disables CUDA
graphs, compiles on the warmup request (16 s) and serves; --moe-runner-backend flashinfer_cutlass
on the dense model is taken silently and serves (as the 188th's triton).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind204")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions); a short pause."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 8)


def v(name: str, what: str, args: list[str], **env: str) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], env=env, act=v_until)


def s(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=s_until)


SCENARIOS = [
    v("v-attn-flash-attn", "--attention-backend FLASH_ATTN (FlashAttention, a CUDA backend) on "
      "the CPU build", ["--attention-backend", "FLASH_ATTN"]),
    s("s-attn-fa3", "--attention-backend fa3 (FlashAttention 3, Hopper) on the CPU device",
      ["--attention-backend", "fa3"]),
    v("v-attn-misspelt", "--attention-backend FLASH_ATTENTION (a misspelling of FLASH_ATTN)",
      ["--attention-backend", "FLASH_ATTENTION"]),
    s("s-attn-flex", "--attention-backend flex_attention (torch's FlexAttention) on the CPU "
      "device", ["--attention-backend", "flex_attention"]),
    v("v-mm-encoder-attn-xformers", "--mm-encoder-attn-backend XFORMERS (the vision encoder's "
      "attention backend an older guide names) on the text model",
      ["--mm-encoder-attn-backend", "XFORMERS"]),
    v("v-attn-backend-both-ways", "--attention-backend CPU_ATTN and --attention-config "
      "'{\"backend\": \"CPU_ATTN\"}' (the same backend named by both the flag and the config)",
      ["--attention-backend", "CPU_ATTN", "--attention-config", '{"backend": "CPU_ATTN"}']),
    s("s-moe-runner-flashinfer-cutlass", "--moe-runner-backend flashinfer_cutlass (a MoE "
      "launch's expert kernel) on the dense tiny Llama", ["--moe-runner-backend",
                                                          "flashinfer_cutlass"]),
]
