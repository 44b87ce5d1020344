"""The hundred-and-ninety-second batch's scenarios (tests/fixtures/corpus/fresh191): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind192.py OUT

Themes: weights stored in dtypes the config does not say - what a person meets after a conversion
or export script wrote tensors in another type. Copies of the tiny model (made under the
recorder's work folder by /tmp/blind192/retype.py, run with vLLM's interpreter) whose tensors are:
every shard float64 (vLLM); every projection's weight float8_e4m3fn with no quantization config
(both engines); every projection's weight int8 (symmetric per-tensor, round(w / absmax * 127),
no scales) with no quantization config (SGLang); the embedding int64 (the same rounding: an
integer tensor where a float belongs; vLLM). config.json says bfloat16 throughout. A run that
serves is sent a greedy completion, a sampled one and a plain one; the completions' texts are
kept in /tmp/blind192/out-NAME.txt, to judge whether the output looks sane.

Earlier batches already had (not repeated): one shard saved in float32 under a bfloat16 config
(vLLM, 131st) and every shard float32 (SGLang, 179th), a shard header declaring F32 over bf16
data (69th), an int8 tensor without a quantization config (vLLM, 138th), ModelOpt FP8 with
bfloat16 tensors (161st), --dtype float16 over the bfloat16 checkpoint (108th), config.json's
dtype float16 over bfloat16 shards (131st).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in one invocation (raw1: all eight scenarios then in the table, in order),
taking turns with two other helpers' recorders; each scenario once. About 7m40s of recording
(vLLM 60+59+58+60 s, SGLang 56+55+55+56 s). 5 kept (final files ft101-ft105). Dropped, and
removed from the table: v-qkv-three-dtypes (layer 0's q_proj float16, k_proj float64, v_proj
float32 under the bfloat16 config; recorded, 59 s: vLLM's fused qkv loader cast the three
without a word - no warning, served three completions - the fault never shows in the log),
s-shards-four-dtypes (the four shards float16, float64, bfloat16, float32; recorded, 56 s:
SGLang loaded, served and said nothing - the same silent cast the 179th batch's float32 shards
showed, a repeat of its log) and s-norms-bool (every RMSNorm weight bool; recorded, 56 s: served
without a word - and this checkpoint's norms are all 1.0, so True cast back to 1.0 is the very
same model: a fault with nothing to show).

What the engines did: neither refuses or crashes on any of these dtypes; both cast every tensor
to the configured bfloat16 and serve (all completions 200 OK; the texts are the random tiny
model's usual bytes and fragments, the int8 copy's differing in words but not in kind). vLLM's
only word is `Attempted to load weight X with dtype torch.float64|float8_e4m3fn|int64 into
parameter with dtype torch.bfloat16` from its default weight loader, for the parameters it does
not fuse (embed_tokens, o_proj, down_proj, the norms, lm_head) - the fused qkv_proj and
gate_up_proj loaders cast silently, so a checkpoint whose only odd tensors are q/k/v or gate/up
leaves no trace. It does not take float8_e4m3fn or int8 tensors for a quantized checkpoint when
config.json has no quantization_config. SGLang's transformers backend casts everything without a
line: its logs are those of a sound model (`Load weight end`, `KV Cache is allocated. dtype:
torch.bfloat16`, `The server is fired up and ready to roll!`).
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

ROOT = Path("/tmp/blind192")
RETYPE = ROOT / "retype.py"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

RETYPER = r'''"""Save tensors of a model copy again in other dtypes: retype.py DIR OP [OP ...]

KEY:DTYPE          every tensor whose name holds KEY ("*": every tensor) saved as DTYPE
shard:N:DTYPE      every tensor of the N-th shard (sorted) saved as DTYPE
Integer dtypes take round(w / absmax * qmax) (uint8: offset by 128); bool takes w != 0.
"""
import glob
import sys

import torch
from safetensors.torch import load_file, save_file


def conv(v, name):
    dt = getattr(torch, name)
    if dt == torch.bool:
        return v != 0
    if dt in (torch.int8, torch.int16, torch.int32, torch.int64, torch.uint8):
        f = v.float()
        q = torch.round(f / f.abs().max().clamp(min=1e-12) * 127)
        if dt == torch.uint8:
            q = q + 128
        return q.to(dt)
    return v.to(dt)


d, ops = sys.argv[1], sys.argv[2:]
shards = sorted(glob.glob(d + "/model-*.safetensors"))
for op in ops:
    parts = op.split(":")
    for i, f in enumerate(shards):
        t = load_file(f)
        if parts[0] == "shard":
            if i != int(parts[1]):
                continue
            hit = list(t)
            dt = parts[2]
        else:
            hit = [k for k in t if parts[0] == "*" or parts[0] in k]
            dt = parts[1]
        if not hit:
            continue
        for k in hit:
            t[k] = conv(t[k], dt)
            print(f"retype: {k} -> {dt}")
        save_file(t, f, metadata={"format": "pt"})
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    RETYPE.write_text(RETYPER)


_setup()


def retyped(name: str, *ops: str) -> Callable[[Path], Path]:
    """A copy of the tiny model with ``ops`` applied to its tensors (config.json untouched)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        subprocess.run([str(VLLM.python), str(RETYPE), str(d), *ops], check=True,
                       stdout=subprocess.DEVNULL)
        return d
    return make


GREEDY = {"prompt": "The quick brown fox", "max_tokens": 16, "temperature": 0}
SAMPLED = {"prompt": "A transistor is", "max_tokens": 16, "temperature": 0.8, "top_k": 20,
           "seed": 7}
PLAIN = {"prompt": "fox 0", "max_tokens": 8}


def _post_keep(ctx: Ctx, name: str, body: dict, out: Path) -> None:
    import urllib.error
    import urllib.request
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}/v1/completions",
                                 data=json.dumps({"model": ctx.model_name(), **body}).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            text = f"{r.status} {r.read()[:600]!r}"
    except urllib.error.HTTPError as e:
        text = f"{e.code} {e.read()[:600]!r}"
    except (OSError, TimeoutError) as e:
        text = f"error {e!r}"
    with out.open("a") as fh:
        fh.write(f"{name}: {json.dumps(body)}\n  {text}\n")


def serve(ready: str, wait: float = 240) -> Callable[[Ctx], None]:
    """Once ``ready`` is logged: greedy, sampled and plain completions (texts kept), a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([ready], wait)
        if ctx.proc is None or ctx.proc.poll() is not None or ready not in ctx.text():
            linger(ctx, 5)
            return
        out = ROOT / f"out-{ctx.log.stem}.txt"
        for b in (GREEDY, SAMPLED, PLAIN):
            _post_keep(ctx, ctx.log.stem, b, out)
            time.sleep(1)
        linger(ctx, 12)
    return act


PROJ = "_proj."

SCENARIOS = [
    Scenario("v-shards-float64", "vllm", "every tensor of the four shards saved as float64 "
             "beside config.json's dtype bfloat16 (a conversion script's torch.float64)",
             VLLM_BASE, model=retyped("f64", "*:float64"), act=serve(READY_LINE)),
    Scenario("s-int8-proj-no-quant-config", "sglang", "every projection weight saved as int8 "
             "(round(w / absmax * 127), no scales) with no quantization_config in config.json",
             SG, model=retyped("i8", f"{PROJ}:int8"), act=serve(SG_READY)),
    Scenario("v-fp8-e4m3-proj-no-quant-config", "vllm", "every projection weight saved as "
             "float8_e4m3fn with no quantization_config in config.json", VLLM_BASE,
             model=retyped("fp8v", f"{PROJ}:float8_e4m3fn"), act=serve(READY_LINE)),
    Scenario("s-fp8-e4m3-proj-no-quant-config", "sglang", "every projection weight saved as "
             "float8_e4m3fn with no quantization_config in config.json", SG,
             model=retyped("fp8s", f"{PROJ}:float8_e4m3fn"), act=serve(SG_READY)),
    Scenario("v-embed-int64", "vllm", "model.embed_tokens.weight saved as int64 "
             "(round(w / absmax * 127)): an integer tensor where a float belongs", VLLM_BASE,
             model=retyped("emb64", "embed_tokens:int64"), act=serve(READY_LINE)),
]
