"""The two-hundred-and-forty-seventh batch's scenarios (tests/fixtures/corpus/fresh246): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind247.py OUT

Themes: the tiny Llama's config.json hand-edited so that one of its numbers disagrees with
the others, with the launch or with the weights (a copy under /tmp/blind247: hidden 256, 4 heads,
2 KV heads, head_dim 64, intermediate 512, 2 layers, vocabulary 512, bfloat16 shards), one key
each. vLLM: dtype / torch_dtype "float64" with no --dtype flag (auto); head_dim 128 over weights
made with 64; max_position_embeddings 128 below --max-model-len 256; eos_token_id 70000, past
the vocabulary, then completions. SGLang (--device cpu --model-impl transformers): dtype /
torch_dtype "int8" with the default dtype auto; vocab_size 1024 over an embedding and lm_head
of 512 rows; rope_parameters of type yarn without its factor; tie_word_embeddings true over a
checkpoint with its own lm_head, then completions.

Earlier batches already had (not repeated): config.json dtype "float7" (68th, both engines),
dtype float16 over bfloat16 shards (131st), --dtype float64 as a flag (76th) and float64
shards (192nd); head_dim 32 (vLLM 77th, SGLang 178th) and a Gemma-2 config without head_dim
(233rd); max_position_embeddings "2k" (69th), -1 (74th), 2048.5 (89th), and 512 under a
longer length through --hf-overrides / --json-model-override-args (115th); eos_token_id
"</s>" (70th), generation_config.json eos_token_id [1, 70000] (70th), [1, 600] and "</s>"
(222nd); vocab_size 1024 (vLLM, log_scenarios.py), "512" (75th, 80th), -512 (SGLang 84th);
rope_parameters of an unknown type (67th), linear without a factor (vLLM 71st), llama3 with
only a factor (89th), rope_scaling a bare string (75th), rope_theta a string (76th);
tie_word_embeddings true (vLLM 68th); num_key_value_heads 3 / 0 / 8 (68th, 81st, 83rd) and
null (178th); num_attention_heads 0, "4", 6; intermediate_size 1024 and null;
num_hidden_layers 4 / 1 / 0 / -2 / 2.5; hidden_size 128 (67th-84th, 178th).

Recorded 2026-12-07 in one invocation (raw1: all eight, in the table's order, taking turns
under the shared lock with other helpers' recorders), each scenario once: vLLM 58+31+9+66 s,
SGLang 37+29+16+58 s. All 8 kept (final files hx101-hx108); none dropped.

What the engines did. vLLM took config.json's dtype float64 with two warnings ('Your device
'cpu' doesn't support torch.float64. Falling back to torch.bfloat16 for compatibility.',
'Casting torch.float64 to torch.bfloat16.') and served two completions (ready, hx101); it
accepted head_dim 128 and died loading the first shard, 'RuntimeError: start (0) + length (256)
exceeds dimension size (128).' in load_qkv_weight, then 'Engine core initialization failed'
(crashed, hx102); it refused max_position_embeddings 128 under --max-model-len 256 before any
engine core, pydantic's 'User-specified max_model_len (256) is greater than the derived
max_model_len (max_position_embeddings=128.0 ...)' (crashed, hx103); eos_token_id 70000 gave
only transformers' 'eos_token_id must be `None` or an integer within the vocabulary (between 0
and 511), got 70000' warning, twice, and the server served (ready, hx104). SGLang's
transformers backend died on dtype int8 right after 'Load weight begin', torch's 'TypeError:
only floating-point types are supported as the default type' from set_default_torch_dtype
(crashed, hx105); on vocab_size 1024 in the embedding's weight_loader, 'AssertionError:
self.org_vocab_size=1024 ... loaded_weight.shape[output_dim]=512' (crashed, hx106), each
followed by 'Received sigquit from a child process'; it died resolving its server arguments on
the yarn rope without a factor, 'KeyError: "Missing required keys in `rope_parameters` for
'rope_type'='yarn': {'factor'}"' (crashed at launch, hx107); and it served the config with
tie_word_embeddings true over an untied checkpoint without a word (the same KV pool, ready line,
two completions: ready, hx108). No run hung.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    json_edit,
    linger,
    until_exit,
)

ROOT = Path("/tmp/blind247")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
# vLLM without its --dtype flag, so that config.json's dtype is the one taken ("auto")
VLLM_AUTO_DTYPE = ["--max-model-len", "256", "--gpu-memory-utilization", "0.25"]


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions and a pause)."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def v(name: str, what: str, args: list[str] | None = None, **changes: object) -> Scenario:
    return Scenario(name, "vllm", what, VLLM_BASE if args is None else args,
                    model=json_edit(f"b247-{name}", "config.json", **changes), act=until_exit)


def s(name: str, what: str, args: list[str] | None = None, **changes: object) -> Scenario:
    return Scenario(name, "sglang", what, SG if args is None else args,
                    model=json_edit(f"b247-{name}", "config.json", **changes), act=s_until)


SCENARIOS = [
    v("v-config-dtype-float64", "config.json dtype and torch_dtype \"float64\" (a conversion "
      "script's), launched without --dtype (auto)", VLLM_AUTO_DTYPE,
      dtype="float64", torch_dtype="float64"),
    v("v-head-dim-128", "config.json head_dim 128 over weights made with head_dim 64 (4 heads, "
      "hidden 256)", head_dim=128),
    v("v-max-pos-128-len-256", "config.json max_position_embeddings 128, below the launch's "
      "--max-model-len 256", max_position_embeddings=128),
    v("v-eos-id-past-vocab", "config.json eos_token_id 70000, past the 512-token vocabulary; "
      "then completions", eos_token_id=70000),
    s("s-config-dtype-int8", "--model-impl transformers; config.json dtype and torch_dtype "
      "\"int8\" (a quantising script's), launched with the default --dtype auto",
      dtype="int8", torch_dtype="int8"),
    s("s-vocab-size-1024", "--model-impl transformers; config.json vocab_size 1024 over an "
      "embedding and lm_head of 512 rows", vocab_size=1024),
    s("s-rope-yarn-no-factor", "--model-impl transformers; config.json rope_parameters of type "
      "yarn with its factor left out (rope_theta kept)",
      rope_parameters={"rope_type": "yarn", "rope_theta": 10000.0}),
    s("s-tied-embeddings-true", "--model-impl transformers; config.json tie_word_embeddings "
      "true over a checkpoint with its own lm_head.weight; then completions",
      tie_word_embeddings=True),
]
