"""The two-hundred-and-twenty-first batch's scenarios (tests/fixtures/corpus/fresh220): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind221.py OUT

Themes: models of other layer kinds than plain attention, as a person tries the newest
architectures: tiny hybrid and state-space checkpoints (Mamba2, Falcon-H1's attention + Mamba2
layers, Qwen3-Next's gated-delta-net + attention hybrid with MoE) and a Gemma-3 text model with
per-layer attention types whose sliding window (32 tokens) is smaller than the context, each
built from a config with random weights by /tmp/blind221/make_models.py (written when this table
is loaded; the vLLM environment's transformers 5.19, bfloat16, vocab 512, the tiny Llama's
tokenizer files beside them), then served by each engine: whether this CPU build serves the
architecture at all, the SSM cache settings a person changes (vLLM's --mamba-block-size without
prefix caching; prefix caching on a hybrid model with chunked prefill turned off), and a
181-token prompt past the 32-token window.

Earlier batches already had (not repeated): Mamba (v1) in both engines, Gemma-2 with soft capping
and a sliding window, Mistral with a sliding window, Mixtral and Qwen2-MoE, Falcon (v1), T5, BERT
(101st); a layer_types list with another release's name for a layer kind (112th).

SGLang runs with --device cpu --model-impl transformers (its own modules import vllm, which is
not in its environment here); vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in three invocations (raw1: v-mamba2-serve, v-qwen3-next-serve; raw2: the
two Falcon-H1 flag faults; raw3: the SGLang scenarios and v-gemma3-window-long-prompt), waiting
turns with two other helpers' recorders; each scenario once. The first two invocations were
stopped between scenarios, no engine running (raw1 by a model build held back, so that it failed
before its third launch; raw2 by SIGTERM while it waited for the lock), so that the table could
change: a longer prompt (the first was only 64 tokens), a Falcon-H1 prefix-caching scenario
replaced by the two flag faults below (vLLM turns prefix caching on by default for hybrid
models, so the flag alone changes nothing), and the SGLang scenarios moved ahead. About 5m44s
of recording (344 s: vLLM 83+72+16+9+69 s, SGLang 20+11+10+54 s). 7 kept (final files gx101-gx107).
Dropped: s-jamba-serve (recorded, 20 s: SGLang's Transformers backend refuses JambaForCausalLM
while building the model, `ValueError: ... does not support custom attention backends
(_supports_attention_backend=False)`, word for word the 101st batch's refusal of Falcon and T5,
fresh100/cf121: a repeat) and s-falcon-h1-mamba-ssm-dtype (recorded, 10 s: --mamba-ssm-dtype
float16 never came into play; the launch died on the same assert as s-qwen3-next-serve before
any dtype was read - the same log, the fault not shown); both removed from the table.

What the engines did: vLLM's CPU build serves Mamba2 and Qwen3-Next (`Reset SSM cache type to
float32 for accelerated GDN mamba backend`, CPU SSU and GDN kernels; for Qwen3-Next it turns
prefix caching into `Mamba cache mode ... 'align'`, sets the attention block size to 256 and pads
the mamba page by 86.86%), and refuses in VllmConfig's validation `--mamba-block-size can only be
set with --enable-prefix-caching` and, with chunked prefill off, `Chunked prefill is required for
mamba cache mode 'align'` (after warning that the model does not support disabling it); both end
at launch. SGLang 0.5.23 on CPU refuses every hybrid SSM model at argument resolution, before
anything loads: its default radix-cache strategy for them asserts `extra_buffer requires platform
support for Mamba cache state snapshots`. SGLang serves Gemma-3 with its sliding window after
`Disable hybrid SWA memory for Gemma3ForCausalLM as it is not yet supported` (the 181-token
prompt is answered); vLLM's CPU build serves it too, its two layer kinds in two KV cache groups
(`kv cache group sizes (128, 128)`), and answers the long prompt.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind221")
SG_READY = "The server is fired up and ready to roll!"
SG_TF = ["--device", "cpu", "--model-impl", "transformers"]

MAKE_MODELS = r'''import shutil, sys
from pathlib import Path
import torch
from transformers import AutoConfig, AutoModelForCausalLM
TOK = Path.home() / ".cache/gpu-node-supervisor/models/llama-tiny-v3"
OUT = Path("/tmp/blind221/models")
V = 512
def build(name, mtype, **kw):
    d = OUT / name
    if (d / "config.json").exists():
        return d
    cfg = AutoConfig.for_model(mtype, vocab_size=V, bos_token_id=0, eos_token_id=1, **kw)
    torch.manual_seed(0)
    m = AutoModelForCausalLM.from_config(cfg).to(torch.bfloat16)
    m.save_pretrained(d, safe_serialization=True)
    for f in ("tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        shutil.copy(TOK / f, d / f)
    print("built", name, sorted(p.name for p in d.iterdir()), flush=True)
    return d
S = {
 "mamba2": lambda: build("mamba2", "mamba2", hidden_size=128, num_hidden_layers=2, num_heads=4, head_dim=64, expand=2, n_groups=1, state_size=16, conv_kernel=4, chunk_size=64, pad_token_id=2),
 "jamba": lambda: build("jamba", "jamba", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, intermediate_size=256, attn_layer_period=2, attn_layer_offset=1, expert_layer_period=2, expert_layer_offset=1, num_experts=1, num_experts_per_tok=1, mamba_d_state=16, mamba_d_conv=4, mamba_expand=2, use_mamba_kernels=False, max_position_embeddings=512, pad_token_id=2),
 "falcon-h1": lambda: build("falcon-h1", "falcon_h1", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=64, intermediate_size=256, mamba_d_ssm=256, mamba_n_heads=4, mamba_d_head=64, mamba_n_groups=1, mamba_d_state=16, mamba_d_conv=4, mamba_chunk_size=64, max_position_embeddings=512, pad_token_id=2),
 "qwen3-next": lambda: build("qwen3-next", "qwen3_next", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=64, intermediate_size=256, full_attention_interval=2, linear_num_value_heads=2, linear_num_key_heads=2, linear_key_head_dim=64, linear_value_head_dim=64, linear_conv_kernel_dim=4, num_experts=4, num_experts_per_tok=2, moe_intermediate_size=64, shared_expert_intermediate_size=64, decoder_sparse_step=1, max_position_embeddings=512),
 "gemma3-sw": lambda: build("gemma3-sw", "gemma3_text", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=64, intermediate_size=256, sliding_window=32, layer_types=["sliding_attention", "full_attention"], max_position_embeddings=512, pad_token_id=2),
}
for k in (sys.argv[1:] or S):
    try:
        S[k]()
    except Exception as e:
        print("FAIL", k, type(e).__name__, e, flush=True)
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    maker = ROOT / "make_models.py"
    if not maker.is_file():
        maker.write_text(MAKE_MODELS)


_setup()


def built(name: str):
    """The tiny checkpoint ``name`` under /tmp/blind221/models (built when absent)."""
    def make(work: Path) -> Path:
        d = ROOT / "models" / name
        if not (d / "config.json").is_file():
            subprocess.run([str(VLLM.python), str(ROOT / "make_models.py"), name], check=True)
        return d
    return make


# 181 tokens of the tiny tokenizer: over five times the 32-token window, inside 256 with 32 more
LONG_PROMPT = " ".join(["the quick brown fox jumps over the lazy dog"] * 20)


def serve_or_end(ready: str):
    """Wait for the ready line (or the end); if it serves, two completions and a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([ready], 240)
        if ctx.proc is not None and ctx.proc.poll() is None and ready in ctx.text():
            ctx.complete(2, max_tokens=16)
            time.sleep(12)
        else:
            linger(ctx, 10)
    return act


def long_prompt(ready: str):
    """Served: one short completion, then a prompt longer than the sliding window."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([ready], 240)
        if ctx.proc is not None and ctx.proc.poll() is None and ready in ctx.text():
            ctx.complete(1, max_tokens=8)
            ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": LONG_PROMPT,
                                         "max_tokens": 32}, timeout=120)
            ctx.complete(1, max_tokens=8)
            time.sleep(12)
        else:
            linger(ctx, 10)
    return act


SCENARIOS = [
    Scenario("v-mamba2-serve", "vllm",
             "a tiny Mamba2 (state-space) checkpoint served by the CPU build",
             [*VLLM_BASE], model=built("mamba2"), act=serve_or_end(READY_LINE)),
    Scenario("v-qwen3-next-serve", "vllm",
             "a tiny Qwen3-Next (gated delta net + attention hybrid, MoE) checkpoint served",
             [*VLLM_BASE], model=built("qwen3-next"), act=serve_or_end(READY_LINE)),
    Scenario("v-falcon-h1-mamba-block-size", "vllm",
             "Falcon-H1 hybrid, --mamba-block-size 64 with prefix caching turned off",
             [*VLLM_BASE, "--mamba-block-size", "64", "--no-enable-prefix-caching"],
             model=built("falcon-h1"), act=serve_or_end(READY_LINE)),
    Scenario("v-falcon-h1-prefix-no-chunked", "vllm",
             "Falcon-H1 hybrid, --enable-prefix-caching with --no-enable-chunked-prefill",
             [*VLLM_BASE, "--enable-prefix-caching", "--no-enable-chunked-prefill"],
             model=built("falcon-h1"), act=serve_or_end(READY_LINE)),
    Scenario("s-qwen3-next-serve", "sglang",
             "a tiny Qwen3-Next (gated delta net hybrid) served through the Transformers backend",
             [*SG_TF, "--context-length", "256"], model=built("qwen3-next"),
             act=serve_or_end(SG_READY)),
    Scenario("s-gemma3-window-long-prompt", "sglang",
             "Gemma-3 text, sliding window 32 < context 256, a 181-token prompt",
             [*SG_TF, "--context-length", "256"], model=built("gemma3-sw"),
             act=long_prompt(SG_READY)),
    Scenario("v-gemma3-window-long-prompt", "vllm",
             "Gemma-3 text, sliding window 32 < max-model-len 256, a 181-token prompt",
             [*VLLM_BASE], model=built("gemma3-sw"), act=long_prompt(READY_LINE)),
]
