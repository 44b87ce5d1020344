"""The two-hundred-and-eighty-fourth batch's scenarios (tests/fixtures/corpus/fresh283): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind284.py OUT

Themes: hybrid, state-space and sliding-window models, a new round - what a person meets
serving a model that is not a plain transformer, with ONE slip each. Tiny random-weight
checkpoints (2 layers, hidden 128, vocab 512, bfloat16, the tiny Llama's tokenizer files) are
built from configs by /tmp/blind284/make_models.py (MAKE_MODELS below, the vLLM environment's
transformers 5.19; a config.json value edited after the save where the slip is the config's).
vLLM (VLLM_BASE's settings): a Gemma-3 text config.json saying num_hidden_layers 3 over its
2-entry layer_types list and 2 layers of weights; a Gemma-2 config.json with sliding_window null
while its layer_types still names sliding_attention layers; a Mamba2 with --mamba-ssm-cache-dtype
float16; a Jamba hybrid whose attn_layer_offset (3) points past its 2 layers (no attention layer
left). SGLang (--device cpu --model-impl transformers --context-length 256): a Mamba2 with
--mamba-radix-cache-strategy no_buffer (what a person tries after the CPU refuses the default
extra_buffer strategy); a Falcon-H1 hybrid with --disable-radix-cache; a Gemma-3 text config
whose layer_types has 3 entries for num_hidden_layers 2; a Gemma-3 text config with
sliding_window null. Each run that serves gets a short completion, a ~180-token prompt past the
32-token window (32 new tokens), another short one and a pause.

Earlier batches already had (not repeated): Mamba (v1), Gemma-2 with soft capping and a
sliding window, Mistral with a sliding window, Mixtral, Qwen2-MoE, Falcon, all as built (101st);
a layer_types list with another release's name for a layer kind (112th); vLLM capping the
length at a sliding window with --disable-sliding-window (115th); Mamba2 and Qwen3-Next served
by vLLM, Falcon-H1 with --mamba-block-size without prefix caching and with prefix caching but
no chunked prefill, SGLang refusing Qwen3-Next and Jamba at launch (the extra_buffer assert,
custom attention backends), --mamba-ssm-dtype float16 on SGLang (the same assert first), a
Gemma-3 window past a long prompt on both engines (221st); a Gemma-2 config without head_dim
(233rd); a Mistral-style sliding window under prefix caching (255th).

Recorded 2026-12-08 in one invocation (raw1: all eight scenarios, in table order), waiting
turns for the recorder's lock with other helpers' recorders before most scenarios; each
scenario once. About 4m15s of my own recording (vLLM 11+60+63+11 s, SGLang 22+21+11+56 s). All
8 kept (final files ji101-ji108), none dropped. Three faults never showed (vLLM's float16 SSM
cache, vLLM's null window on Gemma-2, SGLang's null window on Gemma-3): their logs are kept as
fair logs of the ground, labelled ready. The two SGLang cache-strategy runs get past the
221st batch's extra_buffer assert and then end on words the 101st batch's logs already show
(fresh100/cf119's TypeError for Mamba v1, cf121's custom-attention refusal for Falcon); they are
kept, the fault (the strategy setting a person tries next) being new, and labelled as those.

What the engines did. Both engines read config.json through transformers 5.19's strict config
classes, so a per-layer layout that disagrees with the layer count dies at launch, before any
weight: vLLM logs `Error parsing config ... Class validation error for validator
'validate_layer_type': ValueError: `num_hidden_layers` (3) must be equal to the number of
`layer_types` (2)`, retries once and dies (v-gemma3-types-short), and the same for Jamba's
`attention layer offset (3) must be smaller than attention layer period (2)` (validator
'validate_architecture', v-jamba-attn-offset-past); SGLang's argument resolution dies on the
same validator for a 3-entry list over 2 layers (s-gemma3-types-long) - three crashed at launch.
vLLM served Gemma-2 with sliding_window null (one KV cache group, no word of a window) and
Mamba2 with --mamba-ssm-cache-dtype float16 (`Using float16 SSM state storage for the CPU
accelerated GDN backend.`), each answering a short prompt, a ~180-token one and another short
one (ready, serving). SGLang took --mamba-radix-cache-strategy no_buffer for Mamba2 and
--disable-radix-cache for Falcon-H1 and got to `Load weight begin`, then crashed building the
model: Mamba2 on `TypeError: unsupported operand type(s) for %: 'NoneType' and 'int'` in
adjust_config_with_unaligned_cpu_tp (no attention heads), Falcon-H1 on `does not support custom
attention backends (_supports_attention_backend=False)` (crashed, weight_loading). SGLang served
Gemma-3 with sliding_window null (`Disable hybrid SWA memory for Gemma3ForCausalLM`, ready to
roll, the 181-token prompt answered: ready, serving). None hung.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind284")
SG_READY = "The server is fired up and ready to roll!"
SG_TF = ["--device", "cpu", "--model-impl", "transformers"]

MAKE_MODELS = r'''import json, shutil, sys
from pathlib import Path
import torch
from transformers import AutoConfig, AutoModelForCausalLM
TOK = Path.home() / ".cache/gpu-node-supervisor/models/llama-tiny-v3"
OUT = Path("/tmp/blind284/models")
V = 512
def build(name, mtype, edit=None, **kw):
    d = OUT / name
    if (d / "config.json").exists():
        return d
    cfg = AutoConfig.for_model(mtype, vocab_size=V, bos_token_id=0, eos_token_id=1, **kw)
    torch.manual_seed(0)
    m = AutoModelForCausalLM.from_config(cfg).to(torch.bfloat16)
    m.save_pretrained(d, safe_serialization=True)
    for f in ("tokenizer.json", "tokenizer_config.json", "generation_config.json"):
        shutil.copy(TOK / f, d / f)
    if edit:
        c = json.loads((d / "config.json").read_text())
        c.update(edit)
        (d / "config.json").write_text(json.dumps(c, indent=2))
    print("built", name, sorted(p.name for p in d.iterdir()), flush=True)
    return d
G3 = dict(hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=64, intermediate_size=256, sliding_window=32, layer_types=["sliding_attention", "full_attention"], max_position_embeddings=512, pad_token_id=2)
S = {
 # the layer-type list one short of num_hidden_layers (a layer removed by hand, list not cut)
 "gemma3-types-short": lambda: build("gemma3-types-short", "gemma3_text", edit={"num_hidden_layers": 3}, **G3),
 # a list one longer than the layers (a pruned checkpoint whose list was not cut)
 "gemma3-types-long": lambda: build("gemma3-types-long", "gemma3_text", edit={"layer_types": ["sliding_attention", "full_attention", "sliding_attention"]}, **G3),
 # sliding_window null while layer_types still names sliding layers
 "gemma3-window-null": lambda: build("gemma3-window-null", "gemma3_text", edit={"sliding_window": None}, **G3),
 "gemma2-window-null": lambda: build("gemma2-window-null", "gemma2", edit={"sliding_window": None}, hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=64, intermediate_size=256, sliding_window=32, max_position_embeddings=512, pad_token_id=2),
 "mamba2": lambda: build("mamba2", "mamba2", hidden_size=128, num_hidden_layers=2, num_heads=4, head_dim=64, expand=2, n_groups=1, state_size=16, conv_kernel=4, chunk_size=64, pad_token_id=2),
 # Jamba whose attention layer offset points past its 2 layers: no attention layer at all
 "jamba-offset-past": lambda: build("jamba-offset-past", "jamba", edit={"attn_layer_offset": 3}, hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, intermediate_size=256, attn_layer_period=2, attn_layer_offset=1, expert_layer_period=2, expert_layer_offset=1, num_experts=1, num_experts_per_tok=1, mamba_d_state=16, mamba_d_conv=4, mamba_expand=2, use_mamba_kernels=False, max_position_embeddings=512, pad_token_id=2),
 "falcon-h1": lambda: build("falcon-h1", "falcon_h1", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=64, intermediate_size=256, mamba_d_ssm=256, mamba_n_heads=4, mamba_d_head=64, mamba_n_groups=1, mamba_d_state=16, mamba_d_conv=4, mamba_chunk_size=64, max_position_embeddings=512, pad_token_id=2),
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
    """The tiny checkpoint ``name`` under /tmp/blind284/models (built when absent)."""
    def make(work: Path) -> Path:
        d = ROOT / "models" / name
        if not (d / "config.json").is_file():
            subprocess.run([str(VLLM.python), str(ROOT / "make_models.py"), name], check=True)
        return d
    return make


# about 180 tokens of the tiny tokenizer: past a 32-token window, inside 256 with 32 more
LONG_PROMPT = " ".join(["the quick brown fox jumps over the lazy dog"] * 20)


def long_prompt(ready: str):
    """If it serves: one short completion, a prompt past the sliding window, one more."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([ready], 240)
        if ctx.proc is not None and ctx.proc.poll() is None and ready in ctx.output():
            ctx.complete(1, max_tokens=8)
            ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": LONG_PROMPT,
                                         "max_tokens": 32}, timeout=120)
            ctx.complete(1, max_tokens=8)
            time.sleep(12)
        else:
            linger(ctx, 10)
    return act


SCENARIOS = [
    Scenario("v-gemma3-types-short", "vllm",
             "Gemma-3 text whose config.json says num_hidden_layers 3 over a 2-entry "
             "layer_types list (and 2 layers of weights)",
             [*VLLM_BASE], model=built("gemma3-types-short"), act=long_prompt(READY_LINE)),
    Scenario("v-gemma2-window-null", "vllm",
             "Gemma-2 whose config.json has sliding_window null, its layer_types still "
             "naming sliding_attention layers",
             [*VLLM_BASE], model=built("gemma2-window-null"), act=long_prompt(READY_LINE)),
    Scenario("v-mamba2-ssm-cache-fp16", "vllm",
             "a tiny Mamba2 with --mamba-ssm-cache-dtype float16",
             [*VLLM_BASE, "--mamba-ssm-cache-dtype", "float16"], model=built("mamba2"),
             act=long_prompt(READY_LINE)),
    Scenario("v-jamba-attn-offset-past", "vllm",
             "a Jamba hybrid whose config.json attn_layer_offset (3) points past its 2 layers",
             [*VLLM_BASE], model=built("jamba-offset-past"), act=long_prompt(READY_LINE)),
    Scenario("s-mamba2-no-buffer", "sglang",
             "a tiny Mamba2 with --mamba-radix-cache-strategy no_buffer (the CPU refuses the "
             "default extra_buffer)",
             [*SG_TF, "--context-length", "256", "--mamba-radix-cache-strategy", "no_buffer"],
             model=built("mamba2"), act=long_prompt(SG_READY)),
    Scenario("s-falcon-h1-no-radix", "sglang",
             "a Falcon-H1 hybrid with the radix cache turned off (--disable-radix-cache)",
             [*SG_TF, "--context-length", "256", "--disable-radix-cache"],
             model=built("falcon-h1"), act=long_prompt(SG_READY)),
    Scenario("s-gemma3-types-long", "sglang",
             "Gemma-3 text whose layer_types list has 3 entries for num_hidden_layers 2",
             [*SG_TF, "--context-length", "256"], model=built("gemma3-types-long"),
             act=long_prompt(SG_READY)),
    Scenario("s-gemma3-window-null", "sglang",
             "Gemma-3 text whose config.json has sliding_window null, layer_types still "
             "naming a sliding_attention layer",
             [*SG_TF, "--context-length", "256"], model=built("gemma3-window-null"),
             act=long_prompt(SG_READY)),
]
