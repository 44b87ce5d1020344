"""The two-hundred-and-fiftieth batch's scenarios (tests/fixtures/corpus/fresh249): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind250.py OUT

Themes: precision as a person picks it on a CPU host - the weights', activations' and KV
cache's dtypes, spelt in flags, in config.json and in the environment, and checkpoints converted to
other dtypes (copies of the tiny model made under /tmp/blind250/models by /tmp/blind250/make.py,
MAKE_PY below, run with vLLM's interpreter when this table is loaded). vLLM: --kv-cache-dtype fp8
with --calculate-kv-scales (an older guide's flag for run-time fp8 scales); --kv-cache-dtype
fp8_inc (Intel Neural Compressor's fp8, chosen on a CPU host); config.json dtype / torch_dtype
written "bf16" (the flags' shorthand) with --dtype auto; a checkpoint of mixed dtypes (shards 1
and 3 float16, 2 and 4 bfloat16, config bfloat16) with --dtype auto. SGLang (--device cpu
--model-impl transformers): --dtype fp16 (the shorthand the flag does not take);
SGLANG_CPU_QUANTIZATION=1 (the environment switch of SGLang's CPU loader, read in its source) on
the bfloat16 model; a float32 copy of the model (config dtype float32) launched with --dtype half
(the flag against the config). Where the server comes up it is sent a greedy, a sampled and a
plain completion.

Earlier batches already had (not repeated): vLLM --dtype float8 (an invalid choice) and float16
on the CPU build, --dtype float16 with a burst, a float32 Phi-3 served as float16, node 1 of two
with --dtype float32; --kv-cache-dtype fp8, fp8 with --block-size 64, bfloat16, fp16 (not a
choice), fp8_ds_mla and turboquant_4bit_nc on CPU; SGLang --kv-cache-dtype fp8_e5m2 (burst and
with --page-size 64), fp8_e4m3, nvfp4, mxfp8, int3 and --prefill-kv-cache-dequant-dtype; float16
overflow from RMSNorm weights of 60,000 and from 1e5 weights under a float16 config (both
engines); shards saved float32 under a bfloat16 config (both engines), float64 shards, fp8 /
int8 / int64 tensors with no quantization config; config.json dtype float64 (vLLM) and int8
(SGLang); ATEN_CPU_CAPABILITY=avx1024 and the other ISA and OpenMP settings of the 195th batch;
the production recipes' fp8 KV settings of the 219th.

Recorded 2026-12-07 in one invocation (raw1: all seven scenarios), waiting turns with other
helpers' recorders for the shared lock; each scenario once. About 5.3 minutes of recording
(vLLM 10+80+15+77 s, SGLang 10+63+63 s). 7 kept (final files ia101-ia107), none dropped: two
faults never showed (SGLANG_CPU_QUANTIZATION=1 and the float32 copy run as half), and their
logs are kept as fair logs of the ground, labelled ready.

What the engines did. vLLM: --calculate-kv-scales is gone from 0.32.0 (`api_server.py: error:
unrecognized arguments: --calculate-kv-scales` after the usage block, exit 2); fp8_inc is taken
without a word on the CPU build (`Using fp8_inc data type to store kv cache`, a cache of
10,903,552 tokens, one byte per value) and serves; the "bf16" config dtype ends config parsing
(`Error parsing config ...: module 'torch' has no attribute 'bf16', retrying 1 of 2`, then the
traceback into transformers' `getattr(torch, self.dtype)`, `AttributeError`, exit 1); the
mixed-dtype checkpoint loads with six `Attempted to load weight ... with dtype torch.float16 into
parameter with dtype torch.bfloat16` warnings and serves. SGLang: --dtype fp16 is refused by
argparse (`invalid choice: 'fp16' (choose from 'auto', 'half', 'float16', 'bfloat16', 'float',
'float32')`, exit 2); SGLANG_CPU_QUANTIZATION=1 leaves no trace (a bfloat16 KV cache, Transformers
backend) and serves; the float32 copy under --dtype half allocates a float16 KV cache and serves
with no overflow shown. Crashed at launch: ia101, ia103, ia105; ready in serving: ia102, ia104,
ia106, ia107; none hung.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, VLLM  # noqa: E402

ROOT = Path("/tmp/blind250")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
V_AUTO = [a for a in VLLM_BASE if a not in ("--dtype", "bfloat16")] + ["--dtype", "auto"]

# Run with vLLM's interpreter (torch, safetensors): the converted copies of the tiny model.
MAKE_PY = r'''
import json, shutil, sys
from pathlib import Path
import torch
from safetensors.torch import load_file, save_file

src, root = Path(sys.argv[1]), Path(sys.argv[2])

def copy(name):
    d = root / name
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(src, d, ignore=shutil.ignore_patterns(".complete"))
    return d

def config(d, **changes):
    f = d / "config.json"
    f.write_text(json.dumps({**json.loads(f.read_text()), **changes}, indent=2))

def retype(d, pick):
    for i, shard in enumerate(sorted(d.glob("model-*.safetensors"))):
        t = load_file(str(shard))
        save_file({k: v.to(pick(i, k, v)) for k, v in t.items()}, str(shard),
                  metadata={"format": "pt"})

# config.json's dtype spelt the way the flags' shorthand is: "bf16"
d = copy("config-bf16-word")
config(d, dtype="bf16", torch_dtype="bf16")
# shards 1 and 3 float16, shards 2 and 4 bfloat16 (a merge of two exports); config bfloat16
d = copy("mixed-fp16-bf16")
retype(d, lambda i, k, v: torch.float16 if i % 2 == 0 else torch.bfloat16)
# every tensor converted to float32 and the config saying so
d = copy("fp32-copy")
retype(d, lambda i, k, v: torch.float32)
config(d, dtype="float32", torch_dtype="float32")
(root / ".made").write_text("ok\n")
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    script = ROOT / "make.py"
    if not script.exists():
        script.write_text(MAKE_PY)
    if not (ROOT / ".made").exists():
        subprocess.run([str(VLLM.python), str(script), str(LLAMA.dir), str(ROOT / "models")],
                       check=True, capture_output=True)


_setup()


def made(name: str):
    def model(work: Path) -> Path:
        return ROOT / "models" / name
    return model


def ends_or_serves(ctx: Ctx) -> None:
    """Let the run end by itself; if it serves, a greedy, a sampled and a plain completion."""
    found = ctx.wait_any([READY_LINE], 240)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        if "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 90)
        name = ctx.model_name()
        ctx.post("/v1/completions", {"model": name, "prompt": "The quick brown fox",
                                     "max_tokens": 24, "temperature": 0.0})
        ctx.post("/v1/completions", {"model": name, "prompt": "Once upon a time",
                                     "max_tokens": 24, "temperature": 0.8, "top_p": 0.9,
                                     "seed": 7})
        ctx.complete(1, max_tokens=24)
        time.sleep(12)
    else:
        linger(ctx, 20)


def v(name: str, what: str, args: list[str], **kw: object) -> Scenario:
    return Scenario(name, "vllm", what, args, act=ends_or_serves, **kw)  # type: ignore[arg-type]


def s(name: str, what: str, args: list[str], **kw: object) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=ends_or_serves,
                    **kw)  # type: ignore[arg-type]


SCENARIOS = [
    v("v-kv-fp8-calculate-scales", "--kv-cache-dtype fp8 with --calculate-kv-scales (an older "
      "guide's way to get the fp8 scales computed at run time) on the CPU build",
      [*VLLM_BASE, "--kv-cache-dtype", "fp8", "--calculate-kv-scales"]),
    v("v-kv-fp8-inc", "--kv-cache-dtype fp8_inc (Intel Neural Compressor's fp8, picked on an "
      "Intel-minded CPU host) on the CPU build", [*VLLM_BASE, "--kv-cache-dtype", "fp8_inc"]),
    v("v-config-dtype-bf16-word", "config.json dtype and torch_dtype written \"bf16\" (the "
      "shorthand) over bfloat16 shards, launched with --dtype auto", V_AUTO,
      model=made("config-bf16-word")),
    v("v-mixed-fp16-bf16-shards", "a checkpoint of mixed dtypes (shards 1 and 3 float16, 2 and "
      "4 bfloat16; config bfloat16), launched with --dtype auto", V_AUTO,
      model=made("mixed-fp16-bf16")),
    s("s-dtype-fp16-word", "--dtype fp16 (the shorthand; the flag takes half or float16)",
      ["--dtype", "fp16"]),
    s("s-cpu-quantization-env", "SGLANG_CPU_QUANTIZATION=1 (SGLang's CPU loader quantizes the "
      "weights itself) on the bfloat16 model", [], env={"SGLANG_CPU_QUANTIZATION": "1"}),
    s("s-fp32-copy-dtype-half", "a float32 copy of the model (config dtype float32) launched "
      "with --dtype half", ["--dtype", "half"], model=made("fp32-copy")),
]
