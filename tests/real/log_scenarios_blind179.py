"""The hundred-and-seventy-ninth batch's scenarios (tests/fixtures/corpus/fresh178): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind179.py OUT

Themes: checkpoints as training frameworks save them, served as they come off the trainer - what
a person meets pointing an engine at a fine-tune's output folder. Copies of the tiny model (made
under the recorder's work folder by /tmp/blind179/make.py, run with vLLM's interpreter): the
weights as one model.safetensors whose tensor names carry DDP's `module.` prefix (vLLM) or a
torch.compile'd model's `_orig_mod.` prefix (SGLang); a pytorch_model.bin saved by torch.save with
the run's `optimizer` state and an `epoch` number beside the tensors at the top level (both
engines); a Hugging Face Trainer `checkpoint-500` folder (weights and config plus optimizer.pt,
scheduler.pt, trainer_state.json, rng_state.pth, training_args.bin; vLLM); every shard saved in
float32 beside a config that says bfloat16 (SGLang).

Earlier batches already had (not repeated): a whole training checkpoint nested under a `model`
key and a state dict with an argparse.Namespace in its pickle (123rd), a garbage
pytorch_model.bin and bin-only checkpoints (98th, 123rd), one shard saved in float32 under a
bfloat16 config (vLLM, 131st), a folder with no weight files (vLLM, the first table), SGLang on a
folder of folders (158th), leftover quantization and adapter files (161st), a LoRA adapter's
folder as the model (134th, 177th).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in two invocations (raw1: the table's first eight as then written; raw2:
s-bin-optimizer-epoch-keys, added after raw1's first logs), taking turns with two other helpers'
recorders (the lock came every one to three minutes); each scenario once. About 4 minutes of
recording (vLLM 26+28+26+53 s, SGLang 22+11+22+21+46 s). 6 kept (final files ff101-ff106).
Dropped, each the same log an earlier batch has (the engine's response does not differ), and
removed from the table: s-run-output-folder (the trainer's output folder holding only
checkpoint-250/ and checkpoint-500/: SGLang's `ValueError: Unrecognized model in .../tiny-sft.
Should have a `model_type` key in its config.json.` at launch, as fresh158/el102's folder of
folders), v-fsdp-sharded-no-weights (pytorch_model_fsdp_0/__0_0.distcp and .metadata only:
vLLM's worker `RuntimeError: Cannot find any model weights with ...`, as fresh62/at122's folder
with no weights) and s-deepspeed-folder (global_step10/mp_rank_00_model_states.pt, `latest`,
zero_to_fp32.py: SGLang's scheduler `RuntimeError: Cannot find any model weights with ...` after
`Load weight begin`, as fresh122/db109 and fresh102/ch119): neither engine looks into a
framework's sharded folders, nor names them.

What the engines did. Tensor names with a wrapper's prefix stop both loaders in weight loading
within 25 s: vLLM's AutoWeightsLoader `ValueError: There is no module or parameter named
'module' in LlamaForCausalLM` (with the list of the names it has), SGLang's transformers backend
`ValueError: No module or parameter named 'model._orig_mod' in TransformersForCausalLM.` (its
mapper puts `model.` before the prefix). A pytorch_model.bin with optimizer and epoch keys beside
the tensors is read key by key, so the first non-tensor key stops the load: vLLM `There is no
module or parameter named 'optimizer' in LlamaForCausalLM`, SGLang `No module or parameter named
'model.optimizer'`. A Trainer checkpoint-500 folder serves in vLLM without a word of its
optimizer, scheduler, RNG or trainer-state files; float32 shards under a bfloat16 config serve in
SGLang, cast silently (`KV Cache is allocated. dtype: torch.bfloat16`).
"""

from __future__ import annotations

import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    linger,
    until_exit,
)
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind179")
MAKE = ROOT / "make.py"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"

MAKER = r'''"""Turn a copy of the tiny model into a checkpoint as a training framework saves it."""
import glob
import json
import os
import pickle
import sys

import torch
from safetensors.torch import load_file, save_file

d, mode = sys.argv[1], sys.argv[2]


def merged(remove=True):
    sd = {}
    for f in sorted(glob.glob(d + "/model-*.safetensors")):
        sd.update(load_file(f))
        if remove:
            os.remove(f)
    if remove:
        os.remove(d + "/model.safetensors.index.json")
    return sd


def trainer_extras(path, step):
    sd = {}
    for f in sorted(glob.glob(path + "/model-*.safetensors")):
        sd.update(load_file(f))
    opt = {"state": {i: {"step": torch.tensor(float(step)), "exp_avg": torch.zeros_like(t),
                         "exp_avg_sq": torch.zeros_like(t)} for i, t in enumerate(sd.values())},
           "param_groups": [{"lr": 2e-5, "betas": (0.9, 0.999), "eps": 1e-8,
                             "weight_decay": 0.0, "params": list(range(len(sd)))}]}
    torch.save(opt, path + "/optimizer.pt")
    torch.save({"base_lrs": [2e-5], "last_epoch": step, "_step_count": step + 1},
               path + "/scheduler.pt")
    torch.save({"python": None, "numpy": None, "cpu": torch.get_rng_state()},
               path + "/rng_state.pth")
    with open(path + "/training_args.bin", "wb") as f:
        pickle.dump({"output_dir": "/home/trainer/runs/tiny-sft", "learning_rate": 2e-5,
                     "num_train_epochs": 3, "bf16": True}, f)
    state = {"best_metric": None, "epoch": step / 250, "global_step": step,
             "log_history": [{"epoch": step / 250, "loss": 2.31, "step": step}],
             "max_steps": 750, "train_batch_size": 8}
    with open(path + "/trainer_state.json", "w") as f:
        json.dump(state, f, indent=2)


if mode == "trainer":
    trainer_extras(d, 500)
elif mode == "runout":
    # d holds the model's files: move them into checkpoint-250 and checkpoint-500
    import shutil
    files = os.listdir(d)
    for step in (250, 500):
        sub = f"{d}/checkpoint-{step}"
        os.makedirs(sub)
        for f in files:
            shutil.copy(f"{d}/{f}", sub)
        trainer_extras(sub, step)
    for f in files:
        os.remove(f"{d}/{f}")
elif mode.startswith("prefix:"):
    pre = mode.split(":", 1)[1]
    sd = merged()
    save_file({pre + k: v.contiguous() for k, v in sd.items()}, d + "/model.safetensors",
              metadata={"format": "pt"})
elif mode == "binextra":
    sd = merged()
    obj = dict(sd)
    obj["optimizer"] = {"state": {}, "param_groups": [{"lr": 2e-5, "params": []}]}
    obj["epoch"] = 3
    torch.save(obj, d + "/pytorch_model.bin")
elif mode == "deepspeed":
    sd = merged()
    os.makedirs(d + "/global_step10")
    torch.save({"module": sd, "buffer_names": [], "optimizer": None, "lr_scheduler": None,
                "global_steps": 10, "global_samples": 80, "dp_world_size": 1,
                "mp_world_size": 1, "ds_version": "0.16.4"},
               d + "/global_step10/mp_rank_00_model_states.pt")
    torch.save({"optimizer_state_dict": {"zero_stage": 2}, "ds_version": "0.16.4"},
               d + "/global_step10/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt")
    with open(d + "/latest", "w") as f:
        f.write("global_step10")
    with open(d + "/zero_to_fp32.py", "w") as f:
        f.write("# DeepSpeed's script to consolidate ZeRO shards into a state dict\n")
elif mode == "fsdp":
    import torch.distributed.checkpoint as dcp
    sd = merged()
    dcp.save({"model": sd}, checkpoint_id=d + "/pytorch_model_fsdp_0", no_dist=True)
elif mode == "float32":
    for f in sorted(glob.glob(d + "/model-*.safetensors")):
        t = load_file(f)
        save_file({k: v.float() for k, v in t.items()}, f, metadata={"format": "pt"})
    idx = json.load(open(d + "/model.safetensors.index.json"))
    idx.get("metadata", {}).pop("total_size", None)
    json.dump(idx, open(d + "/model.safetensors.index.json", "w"), indent=2)
else:
    raise SystemExit("unknown mode " + mode)
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    MAKE.write_text(MAKER)


_setup()


def made(name: str, mode: str, sub: str = "") -> Callable[[Path], Path]:
    """A copy of the tiny model turned into ``mode``'s checkpoint; ``sub``: the copy goes into
    that subfolder of a folder named ``name`` (a trainer's output folder)."""
    def make(work: Path) -> Path:
        base = work / name
        d = copy_model(base if sub else work, sub or name)
        subprocess.run([str(VLLM.python), str(MAKE), str(d), mode], check=True)
        return d
    return make


def sg_until(ctx: Ctx) -> None:
    """Until SGLang ends by itself; if it comes up instead, two completions and a pause."""
    if ctx.wait_any([SG_READY], 150) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        time.sleep(8)
    else:
        linger(ctx, 5)


def v(name: str, what: str, model: Callable[[Path], Path]) -> Scenario:
    return Scenario(name, "vllm", what, list(VLLM_BASE), model=model, act=until_exit)


def s(name: str, what: str, model: Callable[[Path], Path]) -> Scenario:
    return Scenario(name, "sglang", what, list(SG), model=model, act=sg_until)


SCENARIOS = [
    v("v-ddp-module-prefix", "the weights as one model.safetensors whose tensor names carry "
      "DDP's `module.` prefix (a state dict saved from the wrapped model)",
      made("ddp-prefix", "prefix:module.")),
    s("s-compiled-orig-mod-prefix", "the weights as one model.safetensors whose tensor names "
      "carry a torch.compile'd model's `_orig_mod.` prefix", made("orig-mod", "prefix:_orig_mod.")),
    v("v-bin-optimizer-epoch-keys", "the weights as one pytorch_model.bin saved by torch.save "
      "with the run's `optimizer` state and an `epoch` number beside the tensors at the top "
      "level", made("bin-extra", "binextra")),
    s("s-bin-optimizer-epoch-keys", "the weights as one pytorch_model.bin saved by torch.save "
      "with the run's `optimizer` state and an `epoch` number beside the tensors at the top "
      "level", made("bin-extra-s", "binextra")),
    v("v-trainer-checkpoint-500", "a Hugging Face Trainer checkpoint-500 folder as saved: "
      "config, tokenizer and weights plus optimizer.pt, scheduler.pt, trainer_state.json, "
      "rng_state.pth and training_args.bin", made("sft-run", "trainer", "checkpoint-500")),
    s("s-float32-weights-bf16-config", "every shard saved in float32 (twice the size) beside a "
      "config.json that says bfloat16", made("f32-weights", "float32")),
]
