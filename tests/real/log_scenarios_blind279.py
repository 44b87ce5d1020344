"""The two-hundred-and-seventy-ninth batch's scenarios (tests/fixtures/corpus/fresh278): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind279.py OUT

Themes: checkpoints as training frameworks save them, a new round - what a person meets pointing
the engine straight at a training run's output. Copies of the tiny model (made under the
recorder's work folder by /tmp/blind279/make.py, written when this table is loaded and run with
vLLM's interpreter; the shared model folder is never touched): the weights written by
torch.save(state_dict, "model.safetensors"), a zip pickle under the safetensors name (both
engines); a merged model whose head was tied while training, saved without lm_head.weight while
config.json says tie_word_embeddings false - as one pytorch_model.bin (safe_serialization=False,
vLLM) and as one model.safetensors (SGLang); a Trainer + DeepSpeed ZeRO-3 checkpoint-500 saved
without stage3_gather_16bit_weights_on_model_save, its model.safetensors holding every tensor as
an empty placeholder of shape [0] beside global_step500/, latest, zero_to_fp32.py and the
trainer's files (vLLM); a state dict taken from an FSDP-wrapped model's named_parameters(), every
name carrying `_fsdp_wrapped_module.` at the root and inside each decoder layer (SGLang); a PEFT
run's output folder (adapter_config.json, adapter_model.safetensors, README.md) with the base
model's config.json, generation_config.json and tokenizer copied in and no base weights (vLLM);
a Trainer checkpoint-500 saved with save_safetensors=False - pytorch_model.bin beside
training_args.bin (a pickled dict of the run's arguments: TrainingArguments could not be built in
the venv), optimizer.pt, scheduler.pt, rng_state.pth and trainer_state.json (SGLang).

Earlier batches already had (not repeated): tensor names with DDP's `module.` prefix (vLLM) and
torch.compile's `_orig_mod.` prefix (SGLang), a pytorch_model.bin with optimizer and epoch keys
beside the tensors (both), a safetensors Trainer checkpoint-500 (vLLM), float32 shards under a
bfloat16 config, a trainer's run folder of checkpoint folders, FSDP `__0_0.distcp` files and a
DeepSpeed `global_step*/` folder with no consolidated weights (179th); a whole training
checkpoint nested under a `model` key, an argparse.Namespace in the pickle, a garbage
pytorch_model.bin (98th, 123rd); a LoRA adapter's folder as the model (134th, 177th) and an
adapter left in a base model's folder (161st); tie_word_embeddings true over a checkpoint with its
own lm_head (vLLM 68th, SGLang 247th); a tensor missing from a shard (the first table).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-08 in one invocation (raw1: the whole table), after about three minutes'
wait for another helper's recorder and taking turns with it; each scenario once, all eight kept
(final files jd101-jd108). About 6 minutes of recording (vLLM 30+73+33+31 s, SGLang
27+88+36+68 s). Nothing dropped.

What the engines did. A torch.save pickle under the safetensors name stops both loaders in weight
loading within 30 s on safetensors' own words, `SafetensorError: Error while deserializing header:
header too large` (vLLM's worker, SGLang's scheduler). A merged checkpoint without lm_head.weight
under an untied config serves in both engines without a word (vLLM from a pytorch_model.bin,
SGLang from a model.safetensors): no check of a parameter the checkpoint left unset. ZeRO-3's
empty placeholders stop vLLM's embedding loader on a bare `AssertionError` (the source line
`assert loaded_weight.shape[output_dim] == self.org_vocab_size`); FSDP's wrapper names stop
SGLang's transformers backend (`ValueError: No module or parameter named
'model._fsdp_wrapped_module' in TransformersForCausalLM.`); a PEFT output folder dressed with the
base config is loaded as a model's weights by vLLM (`There is no module or parameter named
'base_model' in LlamaForCausalLM`), nothing naming the adapter. A Trainer checkpoint-500 saved with
save_safetensors=False serves in SGLang, reading only pytorch_model.bin (`Multi-thread loading
pt checkpoint shards: 100% Completed | 1/1`) and saying nothing of training_args.bin or the other
trainer files. Crashed: jd101, jd102, jd105, jd106, jd107 (all in weight loading); served (ready,
then ended by the recorder): jd103, jd104, jd108; none hung.
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

ROOT = Path("/tmp/blind279")
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


def merged():
    """The tiny model's tensors; its shards and index removed from the copy."""
    sd = {}
    for f in sorted(glob.glob(d + "/model-*.safetensors")):
        sd.update(load_file(f))
        os.remove(f)
    os.remove(d + "/model.safetensors.index.json")
    return sd


def trainer_extras(step, bin_args=True):
    """What a Hugging Face Trainer writes beside the weights of checkpoint-STEP."""
    torch.save({"state": {}, "param_groups": [{"lr": 2e-5, "betas": (0.9, 0.999), "eps": 1e-8,
                                               "weight_decay": 0.0, "params": []}]},
               d + "/optimizer.pt")
    torch.save({"base_lrs": [2e-5], "last_epoch": step, "_step_count": step + 1},
               d + "/scheduler.pt")
    torch.save({"python": None, "numpy": None, "cpu": torch.get_rng_state()},
               d + "/rng_state.pth")
    args = None
    if bin_args:
        try:
            from transformers import TrainingArguments
            args = TrainingArguments(output_dir="/home/trainer/runs/tiny-sft", learning_rate=2e-5,
                                     num_train_epochs=3, save_safetensors=False,
                                     report_to=[])
        except Exception:  # noqa: BLE001 - a plain record where the class cannot be built
            args = None
    if args is not None:
        torch.save(args, d + "/training_args.bin")
    else:
        with open(d + "/training_args.bin", "wb") as f:
            pickle.dump({"output_dir": "/home/trainer/runs/tiny-sft", "learning_rate": 2e-5,
                         "num_train_epochs": 3}, f)
    state = {"best_metric": None, "epoch": step / 250, "global_step": step,
             "log_history": [{"epoch": step / 250, "loss": 2.31, "step": step}],
             "max_steps": 750, "train_batch_size": 8}
    with open(d + "/trainer_state.json", "w") as f:
        json.dump(state, f, indent=2)


if mode == "torchsave-st":
    # torch.save(model.state_dict(), "model.safetensors"): a zip pickle under the safetensors name
    sd = merged()
    torch.save(sd, d + "/model.safetensors")
elif mode == "nolmhead-bin":
    # merged and saved with safe_serialization=False from a model whose head was tied while
    # training: the head is not in the file, and the config says the head is untied
    sd = merged()
    del sd["lm_head.weight"]
    torch.save(sd, d + "/pytorch_model.bin")
elif mode == "nolmhead-st":
    sd = merged()
    del sd["lm_head.weight"]
    save_file({k: v.contiguous() for k, v in sd.items()}, d + "/model.safetensors",
              metadata={"format": "pt"})
elif mode == "zero3":
    # Trainer + DeepSpeed ZeRO-3 without stage3_gather_16bit_weights_on_model_save: the
    # saved model holds the partitioned parameters' empty placeholders
    sd = merged()
    save_file({k: torch.empty(0, dtype=v.dtype) for k, v in sd.items()},
              d + "/model.safetensors", metadata={"format": "pt"})
    os.makedirs(d + "/global_step500")
    torch.save({"module": {k: torch.empty(0, dtype=v.dtype) for k, v in sd.items()},
                "buffer_names": [], "global_steps": 500, "global_samples": 4000,
                "dp_world_size": 1, "mp_world_size": 1, "ds_version": "0.16.4"},
               d + "/global_step500/zero_pp_rank_0_mp_rank_00_model_states.pt")
    torch.save({"optimizer_state_dict": {"zero_stage": 3,
                                         "fp32_flat_groups": [torch.cat([v.float().flatten()
                                                                         for v in sd.values()])]},
                "ds_version": "0.16.4"},
               d + "/global_step500/bf16_zero_pp_rank_0_mp_rank_00_optim_states.pt")
    with open(d + "/latest", "w") as f:
        f.write("global_step500")
    with open(d + "/zero_to_fp32.py", "w") as f:
        f.write("# DeepSpeed's script to consolidate ZeRO shards into a state dict\n")
    trainer_extras(500, bin_args=False)
elif mode == "peft":
    # a PEFT run's output folder (the adapter alone), the base model's config and tokenizer
    # copied in beside it so that the engine would take it for a model
    merged()
    g = torch.Generator().manual_seed(0)
    t = {}
    for i in range(2):
        for m, out in (("q_proj", 256), ("v_proj", 128)):
            p = f"base_model.model.model.layers.{i}.self_attn.{m}."
            t[p + "lora_A.weight"] = (torch.randn(8, 256, generator=g) * 0.01).to(torch.bfloat16)
            t[p + "lora_B.weight"] = torch.zeros(out, 8, dtype=torch.bfloat16)
    save_file(t, d + "/adapter_model.safetensors", metadata={"format": "pt"})
    with open(d + "/adapter_config.json", "w") as f:
        json.dump({"base_model_name_or_path": "llama-tiny", "bias": "none",
                   "inference_mode": True, "lora_alpha": 16, "lora_dropout": 0.05,
                   "peft_type": "LORA", "r": 8, "target_modules": ["q_proj", "v_proj"],
                   "task_type": "CAUSAL_LM", "use_dora": False, "use_rslora": False}, f,
                  indent=2)
    with open(d + "/README.md", "w") as f:
        f.write("---\nbase_model: llama-tiny\nlibrary_name: peft\n---\n# tiny-sft-lora\n")
elif mode == "fsdp-names":
    # {n: p for n, p in fsdp_model.named_parameters()} saved as it came: FSDP's wrapper names
    # (the root module and each decoder layer wrapped) inside every tensor name
    sd = merged()
    out = {}
    for k, v in sd.items():
        k = k.replace("model.layers.", "model.layers.#")
        parts = k.split("#", 1)
        if len(parts) == 2:
            idx, rest = parts[1].split(".", 1)
            k = parts[0] + idx + "._fsdp_wrapped_module." + rest
        out["_fsdp_wrapped_module." + k] = v.contiguous()
    save_file(out, d + "/model.safetensors", metadata={"format": "pt"})
elif mode == "trainer-bin":
    # a Trainer checkpoint-500 saved with save_safetensors=False
    sd = merged()
    torch.save(sd, d + "/pytorch_model.bin")
    trainer_extras(500)
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
    v("v-torch-save-as-safetensors", "the weights written by torch.save(state_dict, "
      "'model.safetensors'): a torch zip pickle under the safetensors name, no shards or index",
      made("torchsave-st", "torchsave-st")),
    s("s-torch-save-as-safetensors", "the weights written by torch.save(state_dict, "
      "'model.safetensors'): a torch zip pickle under the safetensors name, no shards or index",
      made("torchsave-st-s", "torchsave-st")),
    v("v-merged-bin-no-lm-head", "a merged model saved with safe_serialization=False as one "
      "pytorch_model.bin without lm_head.weight (the head was tied while training), config.json "
      "saying tie_word_embeddings false", made("merged-bin", "nolmhead-bin")),
    s("s-merged-no-lm-head", "a merged model saved as one model.safetensors without "
      "lm_head.weight (the head was tied while training), config.json saying "
      "tie_word_embeddings false", made("merged-st", "nolmhead-st")),
    v("v-zero3-placeholder-weights", "a Trainer + DeepSpeed ZeRO-3 checkpoint-500 saved without "
      "stage3_gather_16bit_weights_on_model_save: model.safetensors holds every tensor as an "
      "empty placeholder (shape [0]), beside global_step500/, latest, zero_to_fp32.py and the "
      "trainer's files", made("zero3-run", "zero3", "checkpoint-500")),
    s("s-fsdp-wrapped-names", "the weights saved from an FSDP-wrapped model's named_parameters(): "
      "every tensor name carries `_fsdp_wrapped_module.` at the root and inside each decoder "
      "layer", made("fsdp-names", "fsdp-names")),
    v("v-peft-output-with-base-config", "a PEFT run's output folder (adapter_config.json, "
      "adapter_model.safetensors, README.md) with the base model's config.json, "
      "generation_config.json and tokenizer copied in, no base weights",
      made("peft-out", "peft")),
    s("s-trainer-checkpoint-bin", "a Hugging Face Trainer checkpoint-500 saved with "
      "save_safetensors=False: pytorch_model.bin beside training_args.bin, optimizer.pt, "
      "scheduler.pt, rng_state.pth and trainer_state.json",
      made("sft-bin-run", "trainer-bin", "checkpoint-500")),
]
