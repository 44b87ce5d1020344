"""The hundred-and-fifty-sixth batch's scenarios (tests/fixtures/corpus/fresh155): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind156.py OUT

Themes: served model names and the request's `model` field - what a person meets renaming a
model for clients or putting several names on one server. vLLM: two served names with clients
still naming the model by its path; `model` sent as a number, as a list and not at all; a LoRA
module given the same name as the served model. SGLang: two served names (as vLLM takes them); a
served name with a colon (a tag, `tiny:v2`); clients naming the model by its path, in other case
and with no model field beside the native /generate; `model` sent as a number and as a list.

Earlier batches already had (not repeated): --served-model-name given an empty string (89th, both
engines) and a served name split by the shell into three words (114th, both engines); a request
naming a model the server does not serve beside other client errors (log_faults'
serve_bad_requests).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. The LoRA
adapter (rank 8 on q_proj and v_proj, zeros) is written to /tmp/blind156/adapter before its run.

Recorded 2026-12-06 in 1 invocation (raw1: four vLLM, four SGLang), taking turns with two other
helpers' recorders; each scenario once. About 5m05s of recording (305 s: vLLM 53+47+49+28 s,
SGLang 10+14+51+53 s). 7 kept (final files ei101-ei107). Dropped: v-served-name-case-differs
(--served-model-name Llama-Tiny-V3, clients sending llama-tiny-v3 and LLAMA-TINY-V3: recorded, 47
s; vLLM answers both `404 Not Found` in uvicorn's access lines and logs nothing else - the same
log as v-two-names-client-sends-path's requests by path, so a repeat within this batch); removed
from the table. What the engines did: vLLM takes several served names (the engine config shows
only the first, `served_model_name=tiny-chat`), serves the second name, and answers a request by
the model's path, or by a name in other case, with a bare 404 access line; `model` as a number or
a list is a bare 400, and a request with no model field is served by the default. A LoRA module
named as the served model passes the engine's whole start-up (`init engine ... took`), then the
API server shuts the engine down and dies: `ValueError: The lora adapter 'tiny' conflicts with a
served base model.` SGLang's --served-model-name takes one value (`sglang serve: error:
unrecognized arguments: tiny-base`, exit 2 at launch) and refuses a colon in its own check
(`AssertionError: served_model_name cannot contain a colon (':') character. The colon is reserved
for the 'model:adapter' syntax used in LoRA adapter specification.`). Serving, SGLang ignores the
request's model name: the path, another case and no model field are all served 200 beside the
native /generate; a number or a list is a 400 with only starlette's FastAPIDeprecationWarning.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402
from setup_engines import LLAMA, VLLM  # noqa: E402

ROOT = Path("/tmp/blind156")
ADAPTER = ROOT / "adapter"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
PATH = str(LLAMA.dir)

ADAPTER_CODE = r'''
import json, sys, torch
from safetensors.torch import save_file
d = sys.argv[1]
cfg = {"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": 8, "lora_alpha": 16,
       "lora_dropout": 0.0, "bias": "none", "target_modules": ["q_proj", "v_proj"],
       "base_model_name_or_path": sys.argv[2], "fan_in_fan_out": False,
       "inference_mode": True}
json.dump(cfg, open(d + "/adapter_config.json", "w"), indent=2)
t = {}
for i in range(2):
    for m, out in (("q_proj", 256), ("v_proj", 128)):
        p = f"base_model.model.model.layers.{i}.self_attn.{m}"
        t[p + ".lora_A.weight"] = torch.zeros(8, 256, dtype=torch.bfloat16)
        t[p + ".lora_B.weight"] = torch.zeros(out, 8, dtype=torch.bfloat16)
save_file(t, d + "/adapter_model.safetensors", metadata={"format": "pt"})
'''


def make_adapter(ctx: Ctx) -> None:
    ADAPTER.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(VLLM.python), "-c", ADAPTER_CODE, str(ADAPTER), PATH], check=True)


ROOT.mkdir(parents=True, exist_ok=True)


def raw_post(ctx: Ctx, path: str, body: object, timeout: float = 60) -> int:
    """Like Ctx.post, but any JSON body (a `model` of any type, or none)."""
    return ctx.post(path, body, timeout)  # type: ignore[arg-type]


def get(ctx: Ctx, path: str) -> None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}{path}", timeout=10) as r:
            r.read()
    except OSError:
        pass


def comp(model: object, prompt: str = "fox", n: int = 12) -> dict:
    return {"model": model, "prompt": prompt, "max_tokens": n}


# --- vLLM acts -------------------------------------------------------------------------------

def v_requests(bodies: list[dict]) -> object:
    """Once up: /v1/models, one good completion by the first served name, then ``bodies``."""
    def act(ctx: Ctx) -> None:
        if not up(ctx, 240):
            linger(ctx, 20)
            return
        get(ctx, "/v1/models")
        ctx.complete(1)
        for b in bodies:
            raw_post(ctx, "/v1/completions", b)
        time.sleep(12)
    return act


# --- SGLang acts -----------------------------------------------------------------------------

def s_requests(bodies: list[dict], native: bool = False) -> object:
    def act(ctx: Ctx) -> None:
        found = ctx.wait_any([SG_READY], 240)
        if found is None or ctx.proc is None or ctx.proc.poll() is not None:
            linger(ctx, 10)
            return
        get(ctx, "/v1/models")
        if native:
            raw_post(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
        for b in bodies:
            raw_post(ctx, "/v1/completions", b)
        linger(ctx, 10)
    return act


def v(name: str, what: str, args: list[str], act: object, **kw: object) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=act,
                    **kw)  # type: ignore[arg-type]


def s(name: str, what: str, args: list[str], act: object) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=act)  # type: ignore[arg-type]


SCENARIOS = [
    v("v-two-names-client-sends-path", "--served-model-name tiny-chat tiny-base; clients still "
      "send the model's path as `model` (twice), then one completion by the second name",
      ["--served-model-name", "tiny-chat", "tiny-base"],
      v_requests([comp(PATH), comp(PATH, "dog"), comp("tiny-base")])),
    v("v-model-field-number-list", "a client sends `model` as a number (3) and as a list of the "
      "served name, then with no model field", ["--served-model-name", "tiny"],
      v_requests([comp(3), comp(["tiny"]), {"prompt": "fox", "max_tokens": 8}])),
    v("v-lora-name-equals-served", "--served-model-name tiny with --enable-lora --lora-modules "
      "tiny=ADAPTER (the LoRA module named as the base model), requests by that name",
      ["--served-model-name", "tiny", "--enable-lora", "--max-lora-rank", "8",
       "--lora-modules", f"tiny={ADAPTER}"],
      v_requests([comp("tiny"), comp("tiny", "dog")]), before=make_adapter),
    s("s-two-served-names", "--served-model-name tiny-chat tiny-base (two names, as vLLM takes "
      "them)", ["--served-model-name", "tiny-chat", "tiny-base"], s_requests([comp("tiny-chat")])),
    s("s-served-name-with-colon", "--served-model-name tiny:v2 (a tag after a colon); clients "
      "send that name", ["--served-model-name", "tiny:v2"],
      s_requests([comp("tiny:v2"), comp("tiny:v2", "dog")])),
    s("s-client-sends-path-case-none", "--served-model-name tiny-chat; native /generate, then "
      "completions naming the model by its path, as TINY-CHAT, and with no model field",
      ["--served-model-name", "tiny-chat"],
      s_requests([comp(PATH), comp("TINY-CHAT"), {"prompt": "fox", "max_tokens": 8}],
                 native=True)),
    s("s-model-field-number-list", "a client sends `model` as a number (3) and as a list of the "
      "served name", ["--served-model-name", "tiny"], s_requests([comp(3), comp(["tiny"])])),
]
