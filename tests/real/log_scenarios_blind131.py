"""The hundred-and-thirty-first batch's scenarios (tests/fixtures/corpus/fresh130): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind131.py OUT

Themes: numerics - weights and settings whose numbers go wrong, and the requests that meet them.
Copies of the tiny model (made under the recorder's work folder, never the cached model) whose
tensors hold NaN (the embedding: a fine-tune that diverged), RMSNorm weights of 60,000 (inside
float16's range, but every normed activation above 1.09 overflows it) served with --dtype
float16, a config.json whose dtype (and torch_dtype) says float16 over bfloat16 shards holding values of
about 1e5 (beyond float16's 65,504) launched with the dtype left to the config, a shard saved in
float32 under a bfloat16 config; and requests that reach the numbers on a healthy model: a
temperature of NaN and of Infinity (what Python's json.dumps writes for float('nan') and
float('inf')), logit_bias values of 1e39 (past float32's range) - those three
planned, and dropped as said below. Each serving scenario sends a
greedy completion, a sampled one (temperature 0.8, top_k 20, min_p 0.05, seed 7) and one with
logprobs, in an order that puts the likeliest crasher last, then a plain completion.

Earlier batches already had (not repeated): layer 0's q_proj all NaN with
VLLM_RAISE_ON_LOGIT_NANS=1 (69th: `NaNs detected in logits`), a shard header declaring a tensor
F32 over bf16 data (69th), --dtype float16 over the bfloat16 checkpoint (108th) and a float32
Phi-3 downcast to float16 (101st), temperature 1e30, top_k beyond the vocabulary, penalties of
1e30 (95th), logit_bias naming ids outside the vocabulary (69th, 72nd), a negative temperature in
generation_config.json (67th).

The copies are written by /tmp/blind131/mutate.py (written when this table is loaded), run by
the vLLM environment's python (torch, safetensors). SGLang runs with --device cpu --model-impl
transformers (its own Llama module imports vllm); vLLM with VLLM_BASE's settings (a later
--dtype wins where a scenario gives one).

Recorded 2026-12-06 in two invocations (raw1: two vLLM; raw2: four SGLang, four vLLM, the last
scenario stopped before its turn), waiting long turns with three other helpers' recorders; each
scenario once. About 8m45s of recording (524 s: vLLM 62+68+62+49+61 s, SGLang 50+57+53+8+54 s).
7 kept (final files dj101-dj107), fewer than the eight asked for: the recording lock was shared by
seven queued recorders and the 45 minutes ran out. Dropped: s-logit-bias-1e39 (a greedy and then a
sampled completion with logit_bias 1e39 on two tokens; recorded, 57 s: all 200 OK without a
word - the fault never shows), v-temperature-nan-inf (temperature NaN with logprobs 3 and
temperature Infinity; recorded, 49 s: two bare `400 Bad Request` and nothing else, the same
response as the 95th batch's temperature 1e30 - a repeat), s-nan-embedding-detection (NaN
embedding with --enable-nan-detection; recorded, 8 s: SGLang 0.5.23 has no such flag, `sglang
serve: error: unrecognized arguments: --enable-nan-detection` - another fault than the one meant,
one earlier batches have), s-temperature-nan (not recorded: out of time). All four were removed
from SCENARIOS. What the engines did: neither checks weights for NaN/inf at load, and both serve
a greedy completion from NaN logits (nothing logged). SGLang's sampled path (top_k,
min_p: torch.multinomial) kills the scheduler on the first sampled request (`RuntimeError:
probability tensor contains either `inf`, `nan` or element < 0`, then SIGQUIT and
kill_process_tree) - whether the NaN comes from the checkpoint, from activations that overflow
float16 under --dtype float16, or from bfloat16 values past float16's range cast by a config whose
dtype says float16. vLLM's CPU sampler (Gumbel-max, no multinomial) never raises: it serves all
three, and only a request with logprobs shows anything - a bare `400 Bad Request` (NaN logprobs
cannot be written as JSON; the same request on sound weights, in v-shard-float32-under-bf16, is
200 OK). vLLM's load warns `Attempted to load weight ... with dtype torch.bfloat16 into parameter
with dtype torch.float16` (or float32 into bfloat16 for the float32 shard) and casts silently.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, linger  # noqa: E402
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind131")
MUTATE = ROOT / "mutate.py"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V_AUTO = [a for a in VLLM_BASE if a not in ("--dtype", "bfloat16")] + ["--dtype", "auto"]

MUTATOR = r'''"""Change tensors of a model copy in place: mutate.py DIR OP [OP ...]

fill:KEY:VALUE     every tensor whose name holds KEY set to VALUE (nan, inf, a number)
scale:KEY:FACTOR   every tensor whose name holds KEY multiplied by FACTOR (in float32)
shard:N:DTYPE      the N-th shard (sorted) saved again in DTYPE (float32, float16, ...)
"""
import glob
import sys

import torch
from safetensors.torch import load_file, save_file

d, ops = sys.argv[1], sys.argv[2:]
shards = sorted(glob.glob(d + "/model-*.safetensors"))
for op in ops:
    kind, a, b = op.split(":")
    if kind == "shard":
        f = shards[int(a)]
        t = load_file(f)
        save_file({k: v.to(getattr(torch, b)) for k, v in t.items()}, f, metadata={"format": "pt"})
        print(f"mutate: {f} saved as {b}")
        continue
    for f in shards:
        t = load_file(f)
        hit = [k for k in t if a in k]
        if not hit:
            continue
        for k in hit:
            if kind == "fill":
                t[k] = torch.full_like(t[k], float(b))
            else:
                t[k] = (t[k].float() * float(b)).to(t[k].dtype)
            print(f"mutate: {k} {kind} {b}")
        save_file(t, f, metadata={"format": "pt"})
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    MUTATE.write_text(MUTATOR)


_setup()


# --- model copies ------------------------------------------------------------------------------

def mutated(name: str, *ops: str, **config: object) -> Callable[[Path], Path]:
    """A copy of the tiny model with ``ops`` applied to its tensors and ``config`` merged into
    its config.json."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        if ops:
            subprocess.run([str(VLLM.python), str(MUTATE), str(d), *ops], check=True)
        if config:
            cfg = d / "config.json"
            cfg.write_text(json.dumps({**json.loads(cfg.read_text()), **config}, indent=2))
        return d
    return make


# --- requests ----------------------------------------------------------------------------------

GREEDY = {"prompt": "The quick brown fox", "max_tokens": 16, "temperature": 0}
SAMPLED = {"prompt": "A transistor is", "max_tokens": 16, "temperature": 0.8, "top_k": 20,
           "min_p": 0.05, "seed": 7}
LOGPROBS = {"prompt": "The lazy dog", "max_tokens": 8, "temperature": 0, "logprobs": 5}


def v_requests(*bodies: dict) -> Callable[[Ctx], None]:
    """vLLM: once up, ``bodies`` as /v1/completions in order, a plain completion, a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([READY_LINE], 240)
        if ctx.proc is None or ctx.proc.poll() is not None or READY_LINE not in ctx.text():
            linger(ctx, 5)
            return
        name = ctx.model_name()
        for b in bodies:
            ctx.post("/v1/completions", {"model": name, **b})
        ctx.complete(1, max_tokens=8)
        linger(ctx, 12)
    return act


def s_requests(*bodies: dict) -> Callable[[Ctx], None]:
    """SGLang: once fired up, ``bodies`` as /v1/completions in order, a plain completion, a
    pause (or the run's end)."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([SG_READY], 200)
        if ctx.proc is None or ctx.proc.poll() is not None or SG_READY not in ctx.text():
            linger(ctx, 5)
            return
        name = ctx.model_name()
        for b in bodies:
            ctx.post("/v1/completions", {"model": name, **b})
            time.sleep(1)
        ctx.complete(1, max_tokens=8)
        linger(ctx, 10)
    return act


REQS = "a greedy completion, a sampled one (temperature 0.8, top_k 20, min_p 0.05, seed 7)"
REQS_S = ("a greedy completion, one with logprobs 5, then a sampled one (temperature 0.8, top_k "
          "20, min_p 0.05, seed 7)")

SCENARIOS = [
    # vLLM
    Scenario("v-nan-embedding-served", "vllm", "embed_tokens all NaN in the checkpoint (a "
             f"diverged fine-tune); {REQS}, one with logprobs 5", VLLM_BASE,
             model=mutated("nan-embed", "fill:embed_tokens:nan"),
             act=v_requests(GREEDY, SAMPLED, LOGPROBS)),
    Scenario("v-fp16-overflow-norms", "vllm", "the decoder layers' RMSNorm weights 60000 (inside float16's "
             "range; the normed activations overflow it), served with --dtype float16; "
             f"{REQS}, one with logprobs 5", [*VLLM_BASE, "--dtype", "float16"],
             model=mutated("fp16-overflow", "fill:layernorm:60000"),
             act=v_requests(GREEDY, SAMPLED, LOGPROBS)),
    Scenario("v-config-fp16-big-weights", "vllm", "config.json dtype (and torch_dtype) float16 over "
             "bfloat16 shards whose layer-0 down_proj holds values near 1e5 (beyond float16's "
             f"65504), --dtype auto; {REQS}, one with logprobs 5", V_AUTO,
             model=mutated("cfg-fp16-big", "scale:layers.0.mlp.down_proj:5000000",
                           dtype="float16", torch_dtype="float16"),
             act=v_requests(GREEDY, SAMPLED, LOGPROBS)),
    Scenario("v-shard-float32-under-bf16", "vllm", "the second shard saved in float32 while "
             f"config.json's torch_dtype is bfloat16; {REQS}, one with logprobs 5", VLLM_BASE,
             model=mutated("shard-f32", "shard:1:float32"),
             act=v_requests(GREEDY, SAMPLED, LOGPROBS)),
    # SGLang
    Scenario("s-nan-embedding-sampled", "sglang", "embed_tokens all NaN in the checkpoint (a "
             f"diverged fine-tune); {REQS_S}", SG,
             model=mutated("nan-embed-s", "fill:embed_tokens:nan"),
             act=s_requests(GREEDY, LOGPROBS, SAMPLED)),
    Scenario("s-fp16-overflow-norms", "sglang", "the decoder layers' RMSNorm weights 60000 (inside float16's "
             "range; the normed activations overflow it), served with --dtype float16; "
             f"{REQS_S}", [*SG, "--dtype", "float16"],
             model=mutated("fp16-overflow-s", "fill:layernorm:60000"),
             act=s_requests(GREEDY, LOGPROBS, SAMPLED)),
    Scenario("s-config-fp16-big-weights", "sglang", "config.json dtype (and torch_dtype) float16 over "
             "bfloat16 shards whose layer-0 down_proj holds values near 1e5 (beyond float16's "
             f"65504), no --dtype; {REQS_S}", SG,
             model=mutated("cfg-fp16-big-s", "scale:layers.0.mlp.down_proj:5000000",
                           dtype="float16", torch_dtype="float16"),
             act=s_requests(GREEDY, LOGPROBS, SAMPLED)),
]
