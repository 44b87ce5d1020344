"""The hundred-and-twenty-third batch's scenarios (tests/fixtures/corpus/fresh122): faults
chosen, recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind123.py OUT

Themes: weight formats and load formats - a checkpoint stored in another way than the loader
expects, or a loader setting that does not fit the host or the files. Copies of the tiny model
(made under the recorder's work folder, never the cached model) whose weights are one
pytorch_model.bin: a plain state dict loaded with `--pt-load-map-location cuda` (a recipe from a
GPU host) on a host without CUDA; a training checkpoint saved whole (`{"model": state_dict,
"optimizer": ..., "epoch": 3}`) instead of its state dict; a state dict with the run's
argparse.Namespace pickled in beside the tensors (torch.load's weights_only refuses the global).
Load settings: `--load-format npcache` (a numpy cache of *.bin checkpoints only) on a
safetensors checkpoint; vLLM's `--safetensors-load-strategy torchao` without torchao installed;
SGLang's `--load-format fastsafetensors` without the package; SGLang's
`--model-loader-extra-config` asking for multithreaded loading with `num_threads` 0.

Earlier batches already had: --load-format gguf, dummy, sharded_state (both engines), mistral,
runai_streamer (vLLM), pt (SGLang); a bin-only checkpoint that loads (98th) and a garbage .bin;
--model-loader-extra-config with a key the default loader does not take (vLLM, 80th).

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm);
vLLM with VLLM_BASE's settings.

Recorded 2026-12-06 in four invocations (raw1: three vLLM; raw2: three SGLang; raw3: two vLLM;
raw4: two SGLang), taking turns with three other helpers' recorders; each scenario once, all ten
kept (final files db101-db110). About 4 minutes of recording in all (244 s: vLLM 25+29+22+27+29
s, SGLang 22+22+23+23+22 s). What the engines did: every fault here ends the launch in weight
loading, within 30 s. vLLM loads a pytorch_model.bin with torch.load(weights_only=True) in its
worker (`Loading pt checkpoint shards`): a map location of `cuda` gives torch's `Attempting to
deserialize object on a CUDA device but torch.cuda.is_available() is False`; an argparse.Namespace
in the pickle gives `Weights only load failed ... Unsupported global: GLOBAL argparse.Namespace`
(SGLang's multi-thread pt iterator says the same); a whole training checkpoint is read as tensors
named by its top-level keys (vLLM: `There is no module or parameter named '' in LlamaModel`;
SGLang: `No module or parameter named 'model.model' in TransformersForCausalLM`). npcache looks for
*.bin only, so both engines say `Cannot find any model weights with ...` over a safetensors
checkpoint. vLLM's torchao strategy without torchao raises `ValueError: Please use torchao version
>= 0.15.0 to load torchao safetensors checkpoint`; SGLang's fastsafetensors without the package
`ImportError: Please install fastsafetensors`; SGLang's num_threads 0 reaches ThreadPoolExecutor
(`ValueError: max_workers must be greater than 0`) after `Load weight begin`.
"""

from __future__ import annotations

import subprocess
import sys
import time
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

SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"

# the shards merged into one state dict, then saved as pytorch_model.bin in the given form
_BIN = """
import sys, glob, os, argparse, torch
from safetensors.torch import load_file
d, form = sys.argv[1], sys.argv[2]
sd = {}
for f in sorted(glob.glob(d + '/model-*.safetensors')):
    sd.update(load_file(f)); os.remove(f)
os.remove(d + '/model.safetensors.index.json')
if form == 'training':
    obj = {'model': sd, 'optimizer': {'state': {}, 'param_groups': [{'lr': 3e-4}]},
           'epoch': 3, 'global_step': 1200}
elif form == 'args':
    obj = dict(sd)
    obj['training_args'] = argparse.Namespace(lr=3e-4, epochs=3, output_dir='out/tiny')
else:
    obj = sd
torch.save(obj, d + '/pytorch_model.bin')
"""


def bin_copy(name: str, form: str):
    """A copy whose weights are one pytorch_model.bin (no safetensors): ``form`` plain, a whole
    training checkpoint (training), or the state dict with an argparse.Namespace in it (args)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        subprocess.run([str(VLLM.python), "-c", _BIN, str(d), form], check=True)
        return d
    return make


def sg_until(ctx: Ctx) -> None:
    """Until SGLang ends by itself; if it comes up instead, two completions and a pause."""
    if ctx.wait_any([SG_READY], 150) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        time.sleep(8)
    else:
        linger(ctx, 5)


def v(name: str, what: str, extra: list[str], model=None) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *extra], model=model, act=until_exit)


def s(name: str, what: str, extra: list[str], model=None) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *extra], model=model, act=sg_until)


SCENARIOS = [
    v("v-pt-map-location-cuda", "weights as one pytorch_model.bin, loaded with "
      "--pt-load-map-location cuda (a GPU host's recipe) on a host without CUDA",
      ["--pt-load-map-location", "cuda"], model=bin_copy("bin-map-cuda", "plain")),
    v("v-bin-training-ckpt", "pytorch_model.bin is a whole training checkpoint (model state "
      "dict under 'model', optimizer, epoch) instead of the state dict", [],
      model=bin_copy("bin-training-v", "training")),
    v("v-bin-pickled-args", "pytorch_model.bin holds the state dict plus the training run's "
      "argparse.Namespace (a global torch.load's weights_only refuses)", [],
      model=bin_copy("bin-args-v", "args")),
    v("v-load-format-npcache", "--load-format npcache (numpy cache of *.bin checkpoints) on a "
      "safetensors-only checkpoint", ["--load-format", "npcache"]),
    v("v-st-strategy-torchao", "--safetensors-load-strategy torchao (for torchao-quantized "
      "checkpoints) with torchao not installed, on a plain bf16 checkpoint",
      ["--safetensors-load-strategy", "torchao"]),
    s("s-loader-threads-zero", "--model-loader-extra-config asking for multithreaded loading "
      "with num_threads 0", ["--model-loader-extra-config",
                             '{"enable_multithread_load": true, "num_threads": 0}']),
    s("s-load-format-fastsafetensors", "--load-format fastsafetensors with the fastsafetensors "
      "package not installed", ["--load-format", "fastsafetensors"]),
    s("s-bin-pickled-args", "pytorch_model.bin holds the state dict plus the training run's "
      "argparse.Namespace (a global torch.load's weights_only refuses)", [],
      model=bin_copy("bin-args-s", "args")),
    s("s-load-format-npcache", "--load-format npcache (numpy cache of *.bin checkpoints) on a "
      "safetensors-only checkpoint", ["--load-format", "npcache"]),
    s("s-bin-training-ckpt", "pytorch_model.bin is a whole training checkpoint (model state "
      "dict under 'model', optimizer, epoch) instead of the state dict", [],
      model=bin_copy("bin-training-s", "training")),
]
