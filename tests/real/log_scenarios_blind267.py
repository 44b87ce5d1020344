"""The two-hundred-and-sixty-seventh batch's scenarios (tests/fixtures/corpus/fresh266): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind267.py OUT

Themes: weight formats and load formats, a new round - checkpoints written by other tools
and the --load-format values that read them, each launch meeting one. vLLM: --load-format
sharded_state on a folder laid out as save_sharded_state.py writes it (vLLM's fused names,
model-rank-0-part-N.safetensors) whose part 1 was lost in the copy; --load-format npcache on a
pytorch_model.bin checkpoint whose np/ cache is stale (left from an older save, embedding and
lm_head 448 rows against the model's 512); --load-format safetensors given a folder of
pytorch_model.bin only; --load-format gguf on a real F32 GGUF written with the gguf package from
the tiny model, --tokenizer the tiny model's folder. SGLang: --load-format gguf on the same GGUF,
which holds no tokenizer, and no --tokenizer-path; --load-format npcache on a bfloat16
pytorch_model.bin with no cache yet; --load-format pt on a pytorch_model.bin written by
torch.save(model) (the whole module pickled); --load-format dummy with config.json's hidden_act
'swiglu'. The checkpoints are written by /tmp/blind267/mk.py (this table's model steps run it
with the vLLM venv's torch, or SGLang's for the gguf package, which the vLLM venv lacks).

Earlier batches already had (not repeated): --load-format gguf on a safetensors checkpoint
(both engines, the first table), dummy (vLLM first table, SGLang 94th, left on in a real launch
240th), sharded_state on a plain safetensors checkpoint (94th, both), mistral (94th), pt on a
safetensors checkpoint (SGLang, 94th), npcache on a safetensors checkpoint (both, 123rd),
runai_streamer (84th, 182nd), fastsafetensors (123rd), tensorizer, bitsandbytes, layered and
remote (182nd); pytorch_model.bin with --pt-load-map-location cuda, a whole training checkpoint,
an argparse.Namespace pickled beside the tensors, a git-lfs pointer .bin and bin-only checkpoints
that load (98th, 123rd); --model-loader-extra-config faults (80th, 123rd, 182nd).

Recorded 2026-12-07 in one invocation (raw1), waiting turns with other helpers' recorders for
the shared lock; each scenario once. About 3.2 minutes of recording (vLLM 31+34+29+9 s, SGLang
16+25+23+25 s). All 8 kept (final files ir101-ir108); none dropped. One fault did not show as
meant: s-pt-whole-module's pickle was never read (SGLang's pt format looks for *.pt files, not
pytorch_model.bin), so its log shows the load format not finding the .bin - kept as a fair log
of the ground and labelled from what it shows.

What the engines did. vLLM: the sharded state's worker logs 'Loading weights took 0.00
seconds' then 'ValueError: Missing keys (... qkv_proj.weight, ... attn._k_scale, ...
model.norm.weight) in loaded state!' (part 0 also lacked the attention scale entries a real save
holds); the stale np/ cache is read instead of the .bin, and the embedding's weight_loader fails
its bare assertion `loaded_weight.shape[output_dim] == self.org_vocab_size` (AssertionError);
safetensors on a .bin folder ends 'RuntimeError: Cannot find any model weights with ...'; the
.gguf given as --model is read as a JSON config by the speculators check before any engine
process starts ('OSError: It looks like the config file at '.../tiny-f32.gguf' is not a valid
JSON file.'). SGLang: the GGUF without a tokenizer dies in the tokenizer manager ('ValueError:
Cannot build a tokenizer from a GGUF file stating tokenizer None.'); npcache on bfloat16 weights
dies writing the cache ('TypeError: Got unsupported ScalarType BFloat16' at np.save); pt on a
.bin folder ends 'RuntimeError: Cannot find any model weights with ...'; dummy with hidden_act
'swiglu' dies building the model ('KeyError: 'swiglu'' from ACT2FN). Every log crashed: at
launch ir104, ir105; in weight loading ir101, ir102, ir103, ir106, ir107, ir108. None served or
hung.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, SGLANG, VLLM  # noqa: E402

ROOT = Path("/tmp/blind267")
MK = ROOT / "mk.py"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def made(step: str, name: str, python: Path = VLLM.python, file: str = ""):
    """A checkpoint /tmp/blind267/mk.py's ``step`` writes from the tiny model into the work
    folder (``file``: the model path is that file inside it)."""
    def make(work: Path) -> Path:
        dest = work / name
        target = dest / file if file else dest
        subprocess.run([str(python), str(MK), step, str(LLAMA.dir), str(target)], check=True,
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
        return target
    return make


def ends_or_serves(ctx: Ctx) -> None:
    """Let the run end by itself; if it serves instead, three completions and a pause."""
    found = ctx.wait_any([READY_LINE], 240)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        if "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 120)
        ctx.complete(3, max_tokens=16)
        time.sleep(12)
    else:
        linger(ctx, 20)


GGUF = "tiny-f32.gguf"

SCENARIOS = [
    Scenario("v-sharded-state-part-lost", "vllm",
             "--load-format sharded_state on a save_sharded_state-style folder (vLLM's fused "
             "names, model-rank-0-part-0/1.safetensors) whose part 1 was lost in the copy",
             [*VLLM_BASE, "--load-format", "sharded_state"],
             model=made("sharded", "sharded-part-lost"), act=ends_or_serves),
    Scenario("v-npcache-stale", "vllm",
             "--load-format npcache on a pytorch_model.bin checkpoint whose np/ cache folder is "
             "left from an older save (embedding and lm_head 448 rows, the model now 512)",
             [*VLLM_BASE, "--load-format", "npcache"],
             model=made("np_stale", "npcache-stale"), act=ends_or_serves),
    Scenario("v-safetensors-on-bin", "vllm",
             "--load-format safetensors given a folder of pytorch_model.bin only",
             [*VLLM_BASE, "--load-format", "safetensors"],
             model=made("bin_ckpt", "bin-only"), act=ends_or_serves),
    Scenario("v-gguf-real-with-tokenizer", "vllm",
             "--load-format gguf on a real F32 GGUF written with the gguf package from the tiny "
             "model, --tokenizer the tiny model's folder",
             [*VLLM_BASE, "--load-format", "gguf", "--tokenizer", str(LLAMA.dir)],
             model=made("gguf_file", "gguf", python=SGLANG.python, file=GGUF),
             act=ends_or_serves),
    Scenario("s-gguf-real-no-tokenizer", "sglang",
             "--load-format gguf on the same real F32 GGUF, which holds no tokenizer, and no "
             "--tokenizer-path",
             [*SG, "--load-format", "gguf"],
             model=made("gguf_file", "gguf", python=SGLANG.python, file=GGUF),
             act=ends_or_serves),
    Scenario("s-npcache-bf16-bin", "sglang",
             "--load-format npcache on a bfloat16 pytorch_model.bin checkpoint (no cache yet: "
             "the engine writes np/ itself)",
             [*SG, "--load-format", "npcache"],
             model=made("bin_ckpt", "bin-bf16"), act=ends_or_serves),
    Scenario("s-pt-whole-module", "sglang",
             "--load-format pt on a pytorch_model.bin written by torch.save(model): the whole "
             "transformers module pickled, not its state dict",
             [*SG, "--load-format", "pt"],
             model=made("whole_module", "whole-module"), act=ends_or_serves),
    Scenario("s-dummy-bad-act", "sglang",
             "--load-format dummy (random weights, a dry run) with config.json's hidden_act "
             "'swiglu', a name from another framework",
             [*SG, "--load-format", "dummy"],
             model=made("dummy_swiglu", "dummy-swiglu"), act=ends_or_serves),
]
