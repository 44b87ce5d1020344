"""The hundred-and-seventy-seventh batch's scenarios (tests/fixtures/corpus/fresh176): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind177.py OUT

Themes: LoRA adapters named at launch, as a person serving a fine-tune beside its base sets them
up. vLLM (--enable-lora, static --lora-modules): a rank-16 adapter under --max-lora-rank 8; the
JSON form of --lora-modules written with SGLang's keys (lora_name, lora_path); an adapter whose
weights are only an adapter_model.bin (torch.save, no safetensors); --max-cpu-loras 2 below
--max-loras 4. SGLang (--enable-lora --lora-paths name=path, --max-lora-rank 8, torch_native
backend): a --lora-paths folder that is not there; an adapter_config.json hand-edited with a
trailing comma; an adapter whose target_modules and tensors are named wq and wv (Meta's original
layout; the 86th batch's wq was an adapter in vLLM and a flag in SGLang). Where the engine comes
up, a base completion and one naming the adapter are sent.

Earlier batches already had (not repeated): --max-lora-rank 3, --max-loras 0, --lora-modules
JSON cut, a static adapter whose path is missing, whose adapter_config.json is cut, with no
weights, for another base, targeting `wq`, with DoRA, a LoRA module named as the served model
(vLLM, 67th, 73rd, 74th, 86th, 112th, 156th); runtime loads and unloads (vLLM, 134th); --enable-lora
with no rank, --lora-target-modules wq, --lora-paths JSON cut, DoRA, an MLP adapter under
attention-only targets, a cut adapter_model.safetensors, no adapter_config.json, more
--lora-paths than --max-loaded-loras (SGLang, 67th, 74th, 112th, 134th); an adapter left in the
base model's folder (161st).

Adapters are written by /tmp/blind177/make_adapter.py (written when this table is loaded) with
the vLLM venv's torch and safetensors, as PEFT writes them, into /tmp/blind177/adapters by each
scenario's `before`. The tiny model: hidden 256, intermediate 512, 2 KV heads of 64. vLLM runs
with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers.

Recorded 2026-12-07 in two invocations (raw1: the first eight scenarios of the table as first
written; raw2: s-lora-adapter-targets-wq, added once two SGLang faults had not shown), taking
turns with two other helpers' recorders; each scenario once. About 4 minutes of recording (vLLM
30+8+36+8 s, SGLang 22+45+21+47+24 s). 7 kept (final files fd101-fd107). Dropped, and removed
from SCENARIOS: s-lora-rank16-over-max8 (a rank-16 adapter under --max-lora-rank 8) and
s-lora-bin-only (weights only in adapter_model.bin): SGLang took both adapters without a word,
allocated the KV cache and started uvicorn, and its own warm-up request died in the torch_native
LoRA backend's prepare_lora_batch (`.pin_memory()`: `RuntimeError: Found no NVIDIA driver on your
system`) - the host's lack of a GPU (the error fresh133/dm107 ended on), not the fault induced.

What the engines did. vLLM refuses LoRA flags while parsing or building its config (launch):
`api_server.py: error: Invalid fields for --lora-modules: ... unexpected keyword argument
'lora_name'` (exit 2) and pydantic's `max_cpu_loras (2) must be >= max_loras (4).` A static
adapter is loaded only after the engine is up (`init engine ... took`), by the API server's
init_static_loras: rank 16 under max 8 fails in the worker (`ValueError: LoRA rank 16 is greater
than max_lora_rank 8.`), the engine is shut down and the API server dies (crashed, warmup) -
unlike a runtime load of the same adapter (fresh133/dm101), which the server survives. A .bin-only
adapter is no fault for vLLM: `Loaded new LoRA adapter`, and a request naming it is served 200
(ready, serving). SGLang loads --lora-paths adapters in the scheduler after `Load weight end`
(kv_cache_alloc): a missing folder is taken for a hub repo id (`RuntimeError: Failed to load LoRA
adapter ad: Repo id must be in the form 'repo_name' or 'namespace/repo_name': '/tmp/...'`), the
trailing comma is json's `Expecting property name enclosed in double quotes`, and wq/wv targets
die sizing the LoRA memory pool (`NotImplementedError: get_hidden_dim not implemented for wq`);
it checks no adapter's rank against --max-lora-rank at launch and reads adapter_model.bin.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind177")
ADAPTERS = ROOT / "adapters"
MAKER = ROOT / "make_adapter.py"
SG_READY = "The server is fired up and ready to roll!"

MAKER_CODE = r'''"""Write a PEFT-style LoRA adapter: make_adapter.py DIR R FORMAT [comma|wq]."""
import json
import shutil
import sys
from pathlib import Path

import torch
from safetensors.torch import save_file

out, r, fmt = Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3]
flag = sys.argv[4] if len(sys.argv) > 4 else ""
comma = flag == "comma"
if out.exists():
    shutil.rmtree(out)
out.mkdir(parents=True)
dims = {"q_proj": (256, 256), "v_proj": (256, 128)}
if flag == "wq":
    # saved from a checkpoint in Meta's original layout: attention.wq / attention.wv
    dims = {"wq": (256, 256), "wv": (256, 128)}
torch.manual_seed(0)
t = {}
for i in range(2):
    for m, (d_in, d_out) in dims.items():
        p = f"base_model.model.model.layers.{i}.self_attn.{m}"
        t[p + ".lora_A.weight"] = (torch.randn(r, d_in) * 0.01).to(torch.bfloat16)
        t[p + ".lora_B.weight"] = (torch.randn(d_out, r) * 0.01).to(torch.bfloat16)
if fmt == "bin":
    torch.save(t, out / "adapter_model.bin")
else:
    save_file(t, str(out / "adapter_model.safetensors"), metadata={"format": "pt"})
text = json.dumps({
    "alpha_pattern": {}, "auto_mapping": None, "base_model_name_or_path": "llama-tiny",
    "bias": "none", "fan_in_fan_out": False, "inference_mode": True, "init_lora_weights": True,
    "lora_alpha": 2 * r, "lora_dropout": 0.05, "modules_to_save": None, "peft_type": "LORA",
    "r": r, "rank_pattern": {}, "revision": None, "target_modules": list(dims),
    "task_type": "CAUSAL_LM", "use_dora": False, "use_rslora": False}, indent=2)
if comma:
    # hand-edited: a key removed from the end, its comma left behind
    text = text.replace('"use_rslora": false\n}', '"use_rslora": false,\n}')
(out / "adapter_config.json").write_text(text)
'''


def _setup() -> None:
    ADAPTERS.mkdir(parents=True, exist_ok=True)
    MAKER.write_text(MAKER_CODE)


_setup()


def adapter(name: str, r: int = 8, fmt: str = "safetensors",
            flag: str = "") -> Callable[[Ctx], None]:
    def before(ctx: Ctx) -> None:
        extra = [flag] if flag else []
        subprocess.run([str(VLLM.python), str(MAKER), str(ADAPTERS / name), str(r), fmt, *extra],
                       check=True)
    return before


def nothing(ctx: Ctx) -> None:
    pass


def _post(ctx: Ctx, path: str, body: dict) -> None:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as r:
            r.read()
    except (urllib.error.URLError, OSError, TimeoutError):
        pass


def v_act(ctx: Ctx) -> None:
    """Until the launch ends; if it comes up, a base completion and one naming the adapter."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(1, max_tokens=8)
        _post(ctx, "/v1/completions", {"model": "ad", "prompt": "fox", "max_tokens": 8})
        time.sleep(8)


def s_act(ctx: Ctx) -> None:
    """Until the launch ends (150 s at most); if fired up, a base and an adapter generation."""
    if ctx.wait_any([SG_READY], 150) and ctx.proc is not None and ctx.proc.poll() is None:
        _post(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
        _post(ctx, "/generate", {"text": "fox", "lora_path": "ad",
                                 "sampling_params": {"max_new_tokens": 8}})
        linger(ctx, 8)


V_LORA = [*VLLM_BASE, "--enable-lora", "--max-lora-rank", "8"]
SG_LORA = ["--device", "cpu", "--model-impl", "transformers", "--enable-lora",
           "--max-lora-rank", "8", "--lora-backend", "torch_native"]


def v(name: str, what: str, args: list[str], before: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "vllm", what, args, before=before, act=v_act)


def s(name: str, what: str, args: list[str], before: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "sglang", what, args, before=before, act=s_act)


A = ADAPTERS
SCENARIOS = [
    v("v-lora-rank16-over-max8", "--enable-lora --max-lora-rank 8 --lora-modules ad=PATH, the "
      "adapter (q_proj, v_proj) of rank 16", [*V_LORA, "--lora-modules", f"ad={A / 'v-r16'}"],
      adapter("v-r16", r=16)),
    v("v-lora-modules-json-sglang-keys", "--enable-lora --lora-modules in its JSON form written "
      "with SGLang's keys (lora_name, lora_path) instead of name and path",
      [*V_LORA, "--lora-modules", json.dumps({"lora_name": "ad", "lora_path": str(A / "v-js")})],
      adapter("v-js")),
    v("v-lora-bin-only", "--enable-lora --lora-modules ad=PATH, the adapter's weights only an "
      "adapter_model.bin (torch.save of the same tensors, no safetensors)",
      [*V_LORA, "--lora-modules", f"ad={A / 'v-bin'}"], adapter("v-bin", fmt="bin")),
    v("v-max-cpu-loras-below-max-loras", "--enable-lora --max-loras 4 --max-cpu-loras 2 (the CPU "
      "cache smaller than the GPU slots) with one adapter",
      [*V_LORA, "--max-loras", "4", "--max-cpu-loras", "2", "--lora-modules",
       f"ad={A / 'v-cpu'}"], adapter("v-cpu")),
    s("s-lora-path-missing", "--enable-lora --lora-paths ad=PATH naming a folder that is not "
      "there (the adapter never copied)", [*SG_LORA, "--lora-paths", f"ad={A / 's-not-there'}"],
      nothing),
    s("s-lora-config-trailing-comma", "--enable-lora --lora-paths ad=PATH, the adapter's "
      "adapter_config.json hand-edited with a trailing comma before its closing brace",
      [*SG_LORA, "--lora-paths", f"ad={A / 's-comma'}"], adapter("s-comma", flag="comma")),
    s("s-lora-adapter-targets-wq", "--enable-lora --lora-paths ad=PATH, the adapter's "
      "target_modules and tensors named wq and wv (saved from Meta's original layout), modules "
      "this model does not have", [*SG_LORA, "--lora-paths", f"ad={A / 's-wq'}"],
      adapter("s-wq", flag="wq")),
]
