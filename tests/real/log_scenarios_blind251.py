"""The two-hundred-and-fifty-first batch's scenarios (tests/fixtures/corpus/fresh250): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind251.py OUT

Themes: LoRA adapters as a fine-tuning pipeline hands them over, a new round. Adapters for the
tiny model written by hand under /tmp/blind251/adapters (torch + safetensors, by
/tmp/blind251/make_adapter.py, run with vLLM's interpreter), given at launch: vLLM (--enable-lora
--max-lora-rank 8, static --lora-modules) - an adapter trained with modules_to_save
[embed_tokens, lm_head] (the full embedding and head in the file); one trained with bias "all"
and lora_bias (lora_B.bias vectors); one whose target_modules is a regex string, as PEFT writes
it when trained with one; --max-loras 1 with two adapters and six concurrent completions naming
them alternately (more adapters in one batch than slots). SGLang (--enable-lora --max-lora-rank 8
--lora-backend torch_native, --lora-paths): the regex target_modules; the modules_to_save
embedding and head; one name given to two different adapters (ad=PATH1 ad=PATH2); the bias
"all" adapter (recorded, dropped); --lora-paths in its JSON form written with vLLM's keys (name,
path), the replacement. Where the engine comes up, a base request and one naming the adapter
are sent.

Earlier batches already had (not repeated): --max-lora-rank 3, --max-loras 0, --lora-modules
JSON cut or with SGLang's keys, a static adapter missing, cut, without weights, for another base,
targeting wq, with DoRA, of rank 16, .bin-only, a LoRA module named as the served model,
--max-cpu-loras below --max-loras (vLLM: 67th, 73rd, 74th, 86th, 112th, 156th, 177th); runtime
loads of a rank-16, cut, config-less and other-base adapter, eviction with --max-loras 1 loaded in
turn, an unload mid-request (vLLM, 134th); --enable-lora with no rank, --lora-target-modules wq,
--lora-paths JSON cut, a missing path, a trailing comma, wq/wv targets, DoRA, an MLP adapter under
attention-only targets, a cut safetensors, no adapter_config.json, more --lora-paths than
--max-loaded-loras, rank 16 and .bin-only (SGLang: 67th, 74th, 86th, 112th, 134th, 177th); an
adapter left in the base model's folder (161st); LoRA beside speculative decoding (249th).

Recorded 2026-12-07 on the 2-core host, in two invocations (raw1: the first eight scenarios;
raw2: the replacement alone), each scenario once, 9-59 s each (plus waits for the shared
recording lock). Kept: seven of the first eight and the replacement. Dropped:
s-lora-bias-all - SGLang took the bias "all" adapter without a word and its scheduler died in
its own warm-up's batch on the torch_native LoRA backend's `.pin_memory()` (`RuntimeError: Found
no NVIDIA driver on your system`), the same lines (but for the path, times and pids) as
s-lora-modules-to-save-head (kept, ib106): the fault never showed, and a second copy of that
host error adds nothing.

What the engines did. vLLM loads static adapters in the API server after the engine is up
(`init engine ... took`): modules_to_save [embed_tokens, lm_head] is refused by
peft_helper.validate_legal (`ValueError: vLLM only supports modules_to_save being either None or
["classifier", "score"] for classification models.`), and so is bias "all" / lora_bias (`vLLM
does not support LoRA bias (lora_bias). Adapter bias is not supported.`); each kills the worker's
add_lora, the engine is shut down and the API server dies in init_static_loras (crashed,
warmup). A regex-string target_modules is taken without a word (`Loaded new LoRA adapter`, base
and adapter completions 200: ready, serving), and --max-loras 1 with six concurrent requests
for two adapters serves all six 200 with nothing printed (ready, serving). SGLang: the regex
string is refused building the LoRA manager after `Load weight end` (`RuntimeError: Failed to
load LoRA adapter ad: Only 'all' or 'all-linear' can be used as the string for target module`:
crashed, kv_cache_alloc); modules_to_save is accepted silently and the launch dies in its own
warm-up's batch on the LoRA backend's pin_memory (`Found no NVIDIA driver`: crashed, warmup),
the host's limit, not the adapter; one name for two adapters is refused in the launcher's
LoRARegistry (`ValueError: LoRA with name ad already exists.`: crashed, launch); the JSON
--lora-paths with vLLM's keys is refused by the argument parser's action (`AssertionError: '...'
looks like a JSON str, but it does not contain 'lora_name' and 'lora_path' keys.`: crashed,
launch). Six logs crashed, two served, none hung.
"""

from __future__ import annotations

import json
import subprocess
import sys
import threading
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind251")
ADAPTERS = ROOT / "adapters"
MAKER = ROOT / "make_adapter.py"
SG_READY = "The server is fired up and ready to roll!"

MAKER_CODE = r'''"""Write a PEFT-style LoRA adapter by hand: make_adapter.py DIR KIND (plain|regex|head|bias)."""
import json
import shutil
import sys
from pathlib import Path

import torch
from safetensors.torch import save_file

out, kind = Path(sys.argv[1]), sys.argv[2]
seed = int(sys.argv[3]) if len(sys.argv) > 3 else 0
if out.exists():
    shutil.rmtree(out)
out.mkdir(parents=True)
r = 8
dims = {"q_proj": (256, 256), "v_proj": (256, 128)}
torch.manual_seed(seed)
t = {}
for i in range(2):
    for m, (d_in, d_out) in dims.items():
        p = f"base_model.model.model.layers.{i}.self_attn.{m}"
        t[p + ".lora_A.weight"] = (torch.randn(r, d_in) * 0.01).to(torch.bfloat16)
        t[p + ".lora_B.weight"] = (torch.randn(d_out, r) * 0.01).to(torch.bfloat16)
        if kind == "bias":
            # trained with bias="all" and lora_bias: lora_B carries a bias vector
            t[p + ".lora_B.bias"] = (torch.randn(d_out) * 0.01).to(torch.bfloat16)
cfg = {
    "alpha_pattern": {}, "auto_mapping": None, "base_model_name_or_path": "llama-tiny",
    "bias": "none", "fan_in_fan_out": False, "inference_mode": True, "init_lora_weights": True,
    "lora_alpha": 16, "lora_dropout": 0.05, "modules_to_save": None, "peft_type": "LORA",
    "r": r, "rank_pattern": {}, "revision": None, "target_modules": list(dims),
    "task_type": "CAUSAL_LM", "use_dora": False, "use_rslora": False}
if kind == "regex":
    # PEFT takes a string as a regex matched against the full module name
    cfg["target_modules"] = r".*\.self_attn\.(q_proj|v_proj)$"
if kind == "head":
    # trained with the embedding and the head unfrozen (new tokens added to the vocabulary)
    cfg["modules_to_save"] = ["embed_tokens", "lm_head"]
    t["base_model.model.model.embed_tokens.weight"] = (torch.randn(512, 256) * 0.02).to(
        torch.bfloat16)
    t["base_model.model.lm_head.weight"] = (torch.randn(512, 256) * 0.02).to(torch.bfloat16)
if kind == "bias":
    cfg["bias"] = "all"
    cfg["lora_bias"] = True
save_file(t, str(out / "adapter_model.safetensors"), metadata={"format": "pt"})
(out / "adapter_config.json").write_text(json.dumps(cfg, indent=2))
'''


def _setup() -> None:
    ADAPTERS.mkdir(parents=True, exist_ok=True)
    MAKER.write_text(MAKER_CODE)


_setup()


def adapters(*made: tuple[str, str, int]) -> Callable[[Ctx], None]:
    """Make each (folder, kind, seed) adapter under ADAPTERS before the launch."""
    def before(ctx: Ctx) -> None:
        for name, kind, seed in made:
            subprocess.run([str(VLLM.python), str(MAKER), str(ADAPTERS / name), kind, str(seed)],
                           check=True)
    return before


def v_act(ctx: Ctx) -> None:
    """Until the launch ends; if it comes up, a base completion and one naming the adapter."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(1, max_tokens=8)
        ctx.post("/v1/completions", {"model": "ad", "prompt": "fox", "max_tokens": 8})
        linger(ctx, 8)


def v_two_at_once(ctx: Ctx) -> None:
    """If it comes up: six completions at once, alternately naming adapters a and b."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(1, max_tokens=8)
        threads = [threading.Thread(target=ctx.post, args=(
            "/v1/completions", {"model": "ab"[i % 2], "prompt": f"fox {i}", "max_tokens": 32}))
            for i in range(6)]
        for th in threads:
            th.start()
        for th in threads:
            th.join()
        linger(ctx, 8)


def s_act(ctx: Ctx) -> None:
    """Until the launch ends (150 s at most); if fired up, a base and an adapter generation."""
    if ctx.wait_any([SG_READY], 150) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.post("/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
        ctx.post("/generate", {"text": "fox", "lora_path": "ad",
                               "sampling_params": {"max_new_tokens": 8}})
        linger(ctx, 8)
    else:
        linger(ctx, 5)


V_LORA = [*VLLM_BASE, "--enable-lora", "--max-lora-rank", "8"]
SG_LORA = ["--device", "cpu", "--model-impl", "transformers", "--enable-lora",
           "--max-lora-rank", "8", "--lora-backend", "torch_native"]
A = ADAPTERS

SCENARIOS = [
    Scenario("v-lora-modules-to-save-head", "vllm", "--enable-lora --lora-modules ad=PATH, the "
             "adapter trained with modules_to_save [embed_tokens, lm_head] (full embedding and "
             "head tensors in adapter_model.safetensors beside the q_proj/v_proj LoRA pairs)",
             [*V_LORA, "--lora-modules", f"ad={A / 'v-head'}"],
             before=adapters(("v-head", "head", 0)), act=v_act),
    Scenario("v-lora-bias-all", "vllm", "--enable-lora --lora-modules ad=PATH, the adapter "
             "trained with bias \"all\" and lora_bias (lora_B.bias vectors in the file)",
             [*V_LORA, "--lora-modules", f"ad={A / 'v-bias'}"],
             before=adapters(("v-bias", "bias", 0)), act=v_act),
    Scenario("v-lora-target-modules-regex", "vllm", "--enable-lora --lora-modules ad=PATH, the "
             "adapter's target_modules a regex string (.*\\.self_attn\\.(q_proj|v_proj)$), as "
             "PEFT writes it when trained with one",
             [*V_LORA, "--lora-modules", f"ad={A / 'v-regex'}"],
             before=adapters(("v-regex", "regex", 0)), act=v_act),
    Scenario("v-lora-two-adapters-max-loras-1", "vllm", "--enable-lora --max-loras 1 with two "
             "static adapters (a, b) and six concurrent completions alternately naming them "
             "(more adapters in one batch than --max-loras)",
             [*V_LORA, "--max-loras", "1", "--lora-modules", f"a={A / 'v-a'}", f"b={A / 'v-b'}"],
             before=adapters(("v-a", "plain", 1), ("v-b", "plain", 2)), act=v_two_at_once),
    Scenario("s-lora-target-modules-regex", "sglang", "--enable-lora --lora-paths ad=PATH, the "
             "adapter's target_modules a regex string (.*\\.self_attn\\.(q_proj|v_proj)$)",
             [*SG_LORA, "--lora-paths", f"ad={A / 's-regex'}"],
             before=adapters(("s-regex", "regex", 0)), act=s_act),
    Scenario("s-lora-modules-to-save-head", "sglang", "--enable-lora --lora-paths ad=PATH, the "
             "adapter trained with modules_to_save [embed_tokens, lm_head] (full embedding and "
             "head tensors in the file)",
             [*SG_LORA, "--lora-paths", f"ad={A / 's-head'}"],
             before=adapters(("s-head", "head", 0)), act=s_act),
    Scenario("s-lora-name-reused", "sglang", "--enable-lora --lora-paths ad=PATH1 ad=PATH2: one "
             "name given to two different adapters (two fine-tunes' folders)",
             [*SG_LORA, "--lora-paths", f"ad={A / 's-one'}", f"ad={A / 's-two'}"],
             before=adapters(("s-one", "plain", 1), ("s-two", "plain", 2)), act=s_act),
    # s-lora-bias-all (recorded, dropped: see the docstring)
    Scenario("s-lora-paths-json-vllm-keys", "sglang", "--enable-lora --lora-paths in its JSON "
             "form written with vLLM's keys (name, path) instead of lora_name and lora_path",
             [*SG_LORA, "--lora-paths", json.dumps({"name": "ad", "path": str(A / "s-js")})],
             before=adapters(("s-js", "plain", 0)), act=s_act),
]
