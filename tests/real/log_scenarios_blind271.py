"""The two-hundred-and-seventy-first batch's scenarios (tests/fixtures/corpus/fresh270): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind271.py OUT

Themes: RoPE scaling and context extension, a new round - what a person does to serve the tiny
Llama (2048 positions, head_dim 64) past its trained context. vLLM: a config.json in a 2024
transformers' form (top-level rope_theta, torch_dtype, `rope_scaling` with `type`) giving linear
scaling factor 4, with --max-model-len 8192 and a 7,000-token prompt; a longrope block copied from
Phi-3 (short_factor and long_factor lists of 48 entries, Phi-3's head_dim 96, over this model's 64)
with max_position_embeddings 8192 and prompts of 1,000 and 3,000 tokens; --hf-overrides giving
a dynamic `rope_parameters` block with no rope_theta (the override replaces the model's block)
with --max-model-len 4096 and a 3,500-token prompt; a linear factor of 0.25 (llama.cpp's
--rope-freq-scale 0.25 written as the factor) with --max-model-len 2048. SGLang: a 2024-form
config.json with `rope_scaling` {"type": "dynamic", "factor": 2.0} and --context-length 4096
(no SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN), then a 3,500-token prompt;
--json-model-override-args `rope_scaling` linear with the factor quoted ("4", as a YAML-to-JSON
template writes it) and --context-length 8192; the same Phi-3 longrope lists given by
--json-model-override-args with --context-length 8192 and a 3,000-token prompt; Llama 3.1's rope
block and max_position_embeddings 131072 copied verbatim into config.json over weights trained on
2048 positions, then a 6,000-token prompt.

Earlier batches already had (not repeated): rope_parameters of an unknown type (67th), linear
without a factor (vLLM 71st), llama3 with only a factor (89th), yarn without its factor (SGLang
247th), rope_scaling a bare string (75th), rope_theta a string (76th), the per-layer-type
rope_parameters form (112th), the old `type` key with linear factor 2 at the default length
(98th), vLLM's removed --rope-scaling flag (98th); YaRN factor 4 and 2 through --hf-overrides and
--json-model-override-args for 8192 (115th), a recipe's yarn override (219th);
max_position_embeddings raised, lowered or edited (69th, 74th, 89th, 115th, 247th);
VLLM_ALLOW_LONG_MAX_MODEL_LEN with 4096 (71st) and eight million (115th), misspelt (114th);
--max-model-len and --context-length past the model's length without the variables and at odd
values (62nd, 135th, 248th and others); SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN with 8192 and
65536 (115th).

Prompts are words of a fixed list (about 3.26 tokens a word with the tiny tokenizer), sized in
tokens. Each run that comes up gets one short completion, its long prompts (16 new tokens each),
one more short completion and a pause. SGLang runs with --device cpu --model-impl transformers;
vLLM with VLLM_BASE's dtype and memory share and its own --max-model-len.

Recorded 2026-12-07 in one invocation (/tmp/blind271/raw1), waiting turns for the shared lock
with other helpers' recorders; each scenario once. Seconds per scenario: vLLM 64, 32, 49, 11;
SGLang 61, 23, 27, 49 (about 5.3 minutes of recording). All eight kept (final files iv101-iv108);
none dropped.

What the engines did. vLLM takes the 2024 form (`type` linear, factor 4) and counts the factor
into the length: `Using max model len 8192` with no variable, and a 7,000-token prompt answered
200 (iv101, served). The Phi-3 longrope lists draw transformers' warning `short_factor field must
have length 32, got 48` and then kill the worker building the rotary embedding in the loader:
`RuntimeError: The size of tensor a (48) must match the size of tensor b (32)` (iv102, crashed).
The dynamic override without rope_theta is taken (`Using max model len 4096`) and serves a short
completion; the 3,500-token prompt aborts the worker in inductor's kernel (`index out of bounds:
0 <= tmp9 < 2048L`, the rotary table still the trained 2048), exit -6, EngineDeadError, 500s and
the server ends (iv103, crashed while serving). Factor 0.25 draws `factor field must be a float
or int >= 1, got 0.25` and vLLM derives 512 positions: `User-specified max_model_len (2048) is
greater than the derived max_model_len (max_position_embeddings=512.0 ...)` (iv104, crashed at
launch). SGLang counts the dynamic factor too (`context_len=4096`) and serves the 3,500-token
prompt (iv105, served); the quoted factor dies in transformers' linear rope init, `TypeError:
unsupported operand type(s) for /=: 'Tensor' and 'str'` (iv106, crashed loading), and the Phi-3
lists given by override die the same way as vLLM's, in `_compute_longrope_parameters`, with no
warning first (iv107, crashed loading); Llama 3.1's block and 131072 positions are taken silently
(`context_len=131072`) and a 6,000-token prompt is answered 200 in two prefill chunks (iv108,
served). Crashed: iv102, iv103, iv104, iv106, iv107; ready in serving: iv101, iv105, iv108; none
hung.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    Step,
    copy_model,
    json_edit,
    linger,
)

ROOT = Path("/tmp/blind271")
V = VLLM_BASE[2:]          # dtype and memory share; each scenario gives its own length
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
WORDS = ("the quick brown fox jumps over a lazy dog while seven tired wizards quietly count "
         "their golden coins").split()


def words(tokens: int) -> str:
    """A prompt of about ``tokens`` tokens (3.26 tokens a word with the tiny tokenizer)."""
    n = int(tokens / 3.26)
    return " ".join(WORDS[i % len(WORDS)] for i in range(n))


def long_traffic(sizes: list[int], sg: bool = False, pause: float = 10) -> Step:
    """Once up: a short completion, prompts of ``sizes`` tokens, a short one, a pause."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(SG_READY if sg else READY_LINE, 150):
            linger(ctx, 5)
            return
        ctx.complete(1)
        name = ctx.model_name()
        for n in sizes:
            ctx.post("/v1/completions", {"model": name, "prompt": words(n), "max_tokens": 16},
                     timeout=90)
        ctx.complete(1)
        linger(ctx, pause)
    return act


def old_form(name: str, rope_scaling: dict):
    """A copy whose config.json is as a 2024 transformers (4.44) writes it: torch_dtype, a
    top-level rope_theta, no rope_parameters, and ``rope_scaling`` in the `type` form."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "config.json"
        cfg = json.loads(f.read_text())
        cfg.pop("dtype", None)
        rope = cfg.pop("rope_parameters", {}) or {}
        cfg["rope_theta"] = rope.get("rope_theta", 10000.0)
        cfg["torch_dtype"] = "bfloat16"
        cfg["transformers_version"] = "4.44.2"
        cfg["rope_scaling"] = rope_scaling
        f.write_text(json.dumps(cfg, indent=2))
        return d
    return make


# Phi-3-mini-128k's longrope lists have head_dim/2 = 48 entries; this model's head_dim is 64.
PHI3_SHORT = [1.0, 1.01, 1.01, 1.02, 1.04, 1.04, 1.04, 1.05, 1.05, 1.06, 1.07, 1.08, 1.08, 1.08,
              1.08, 1.09, 1.09, 1.12, 1.12, 1.13, 1.16, 1.2, 1.24, 1.29, 1.35, 1.47, 1.56, 1.63,
              1.77, 1.81, 1.84, 1.85, 1.87, 1.88, 1.91, 1.92, 1.93, 1.94, 1.95, 1.96, 1.96, 1.97,
              1.97, 1.97, 1.98, 1.99, 1.99, 2.0]
PHI3_LONG = [1.08, 1.11, 1.14, 1.34, 1.59, 1.6, 1.62, 2.62, 3.23, 3.28, 4.75, 7.69, 9.8, 11.0,
             11.6, 15.1, 15.8, 16.2, 16.5, 17.4, 19.5, 22.6, 23.9, 26.1, 26.6, 34.5, 36.7, 38.2,
             38.4, 38.5, 38.7, 40.7, 42.0, 42.3, 43.7, 44.2, 45.0, 45.1, 45.5, 46.3, 46.4, 46.5,
             46.6, 46.7, 47.1, 47.8, 48.2, 48.3]
LONGROPE = {"rope_type": "longrope", "rope_theta": 10000.0, "short_factor": PHI3_SHORT,
            "long_factor": PHI3_LONG, "original_max_position_embeddings": 2048}
LLAMA31 = {"rope_type": "llama3", "factor": 8.0, "low_freq_factor": 1.0, "high_freq_factor": 4.0,
           "original_max_position_embeddings": 8192, "rope_theta": 500000.0}

SCENARIOS = [
    # --- vLLM ---------------------------------------------------------------------------------
    Scenario("v-linear-2024-len-8k", "vllm", "config.json in a 2024 transformers' form with "
             "rope_scaling {\"type\": \"linear\", \"factor\": 4.0} and --max-model-len 8192, "
             "then a 7,000-token prompt",
             [*V, "--max-model-len", "8192"],
             model=old_form("b271-linear-2024", {"type": "linear", "factor": 4.0}),
             act=long_traffic([7000])),
    Scenario("v-longrope-phi3-lists", "vllm", "config.json rope_parameters longrope copied from "
             "Phi-3 (48-entry short_factor/long_factor lists over head_dim 64), "
             "max_position_embeddings 8192, --max-model-len 8192, then prompts of 1,000 and "
             "3,000 tokens",
             [*V, "--max-model-len", "8192"],
             model=json_edit("b271-longrope-v", "config.json", rope_parameters=LONGROPE,
                             max_position_embeddings=8192),
             act=long_traffic([1000, 3000])),
    Scenario("v-override-rope-no-theta", "vllm", "--hf-overrides '{\"rope_parameters\": "
             "{\"rope_type\": \"dynamic\", \"factor\": 2.0}}' (no rope_theta: the override "
             "replaces the model's block) with --max-model-len 4096, then a 3,500-token prompt",
             [*V, "--max-model-len", "4096", "--hf-overrides",
              json.dumps({"rope_parameters": {"rope_type": "dynamic", "factor": 2.0}})],
             act=long_traffic([3500])),
    Scenario("v-linear-factor-quarter", "vllm", "config.json rope_parameters linear with factor "
             "0.25 (llama.cpp's --rope-freq-scale 0.25 written as the factor) and "
             "--max-model-len 2048, then a 1,800-token prompt",
             [*V, "--max-model-len", "2048"],
             model=json_edit("b271-quarter", "config.json",
                             rope_parameters={"rope_type": "linear", "factor": 0.25,
                                              "rope_theta": 10000.0}),
             act=long_traffic([1800])),
    # --- SGLang -------------------------------------------------------------------------------
    Scenario("s-dynamic-2024-ctx-4k", "sglang", "config.json in a 2024 transformers' form with "
             "rope_scaling {\"type\": \"dynamic\", \"factor\": 2.0} and --context-length 4096 "
             "(no SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN), then a 3,500-token prompt",
             [*SG, "--context-length", "4096"],
             model=old_form("b271-dynamic-2024", {"type": "dynamic", "factor": 2.0}),
             act=long_traffic([3500], sg=True)),
    Scenario("s-override-factor-quoted", "sglang", "--json-model-override-args rope_scaling "
             "linear with the factor quoted (\"4\") and --context-length 8192, then a "
             "6,000-token prompt",
             [*SG, "--context-length", "8192", "--json-model-override-args",
              json.dumps({"rope_scaling": {"rope_type": "linear", "factor": "4"}})],
             act=long_traffic([6000], sg=True)),
    Scenario("s-override-longrope-phi3", "sglang", "--json-model-override-args longrope copied "
             "from Phi-3 (48-entry factor lists over head_dim 64) with max_position_embeddings "
             "8192 and --context-length 8192, then a 3,000-token prompt",
             [*SG, "--context-length", "8192", "--json-model-override-args",
              json.dumps({"rope_scaling": LONGROPE, "max_position_embeddings": 8192})],
             act=long_traffic([3000], sg=True)),
    Scenario("s-llama31-block-128k", "sglang", "config.json rope_parameters and "
             "max_position_embeddings 131072 of Llama 3.1 copied verbatim (llama3, factor 8, "
             "original 8192, theta 500000) over weights trained on 2048 positions, then a "
             "6,000-token prompt",
             SG,
             model=json_edit("b271-llama31", "config.json", rope_parameters=LLAMA31,
                             max_position_embeddings=131072),
             act=long_traffic([6000], sg=True)),
]
