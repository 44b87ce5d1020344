"""The hundred-and-seventy-eighth batch's scenarios (tests/fixtures/corpus/fresh177): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind178.py OUT

Themes: the model's config.json hand-edited so that its numbers disagree with each other or with
the weights (a copy of the tiny Llama: hidden 256, 4 heads, 2 KV heads, head_dim 64,
intermediate 512, 2 layers), one field each. vLLM: num_attention_heads 6 (does not divide hidden
256; head_dim 64 kept), intermediate_size null, num_key_value_heads null. SGLang (--model-impl
transformers): hidden_act "swiglu" (no such activation), intermediate_size 1024 over weights of
512, num_hidden_layers 4 over weights of 2, head_dim 32 over weights made with 64.

Earlier batches already had (not repeated): vLLM's hidden_act "swishglu", intermediate_size
1024, head_dim 32, hidden_size 128, num_hidden_layers 4 / 1 / 0 / -2 / 2.5, vocab_size 1024 and
"512", num_attention_heads 0, num_key_value_heads 3 / 0 / 8, rms_norm_eps "1e-6"; SGLang's
num_key_value_heads 3 / 0 / 8, num_attention_heads "4", num_hidden_layers 0 / -2 / 2.5,
vocab_size "512" / -512 (67th-84th batches).

Recorded 2026-12-07 in one invocation (raw1: all eight, in the table's order, taking turns with
two other helpers' recorders); each scenario once. About 4m16s of recording (256 s: vLLM
10+55+10+28 s, SGLang 24+23+59+47 s). 7 kept (final files fe101-fe107). Dropped:
v-rms-eps-negative (config.json rms_norm_eps -1.0: vLLM loaded, compiled and served two
completions with 200 OK and not a word of the value - whatever the answers were, nothing in the
log shows the fault; removed from the table). What the engines did: vLLM refuses two edits at
config time, before any engine core starts, through transformers' strict config validation
(`StrictDataclassClassValidationError ... The hidden size (256) is not a multiple of the number
of attention heads (6).`; `StrictDataclassFieldValidationError: Validation error for field
'intermediate_size': TypeError: Field 'intermediate_size' expected int, got NoneType`), each
logged twice as `Error parsing config ..., retrying 1 of 2` first. A null num_key_value_heads
passes (taken as 4, the heads' count) and vLLM dies loading the k/v weights: `RuntimeError:
start (0) + length (256) exceeds dimension size (128).` SGLang's transformers backend dies in
the loader on a missing activation (`KeyError: 'swiglu'` from ACT2FN while building LlamaMLP)
and on an MLP wider than its weights (`RuntimeError: start (0) + length (1024) exceeds
dimension size (512).`), each followed by `Received sigquit from a child process`; but it serves
a config with 4 layers over 2 layers' weights and one with head_dim 32 over 64-wide weights
without a word, the only trace being the KV pool's token count (half, resp. twice, the 15.6 M
tokens a true launch gets) - where vLLM crashed on the first (67th batch) and served the second
(77th).
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

ROOT = Path("/tmp/blind178")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions and a pause)."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def v(name: str, what: str, **changes: object) -> Scenario:
    return Scenario(name, "vllm", what, VLLM_BASE,
                    model=json_edit(f"b178-{name}", "config.json", **changes), act=until_exit)


def s(name: str, what: str, **changes: object) -> Scenario:
    return Scenario(name, "sglang", what, SG,
                    model=json_edit(f"b178-{name}", "config.json", **changes), act=s_until)


SCENARIOS = [
    v("v-heads-6-hidden-256", "config.json num_attention_heads 6, which does not divide "
      "hidden_size 256 (head_dim 64 and the weights of 4 heads kept)", num_attention_heads=6),
    v("v-intermediate-null", "config.json intermediate_size null (a conversion script wrote "
      "None)", intermediate_size=None),
    v("v-kv-heads-null", "config.json num_key_value_heads null (weights made with 2 KV heads "
      "of 4)", num_key_value_heads=None),
    s("s-hidden-act-swiglu", "config.json hidden_act \"swiglu\" (no such activation)",
      hidden_act="swiglu"),
    s("s-intermediate-1024", "config.json intermediate_size 1024 over weights made with 512",
      intermediate_size=1024),
    s("s-more-layers-4", "config.json num_hidden_layers 4 over weights holding 2",
      num_hidden_layers=4),
    s("s-head-dim-32", "config.json head_dim 32 over weights made with head_dim 64 (4 heads, "
      "hidden 256)", head_dim=32),
]
