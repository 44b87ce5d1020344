"""The two-hundred-and-thirty-third batch's scenarios (tests/fixtures/corpus/fresh232): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind233.py OUT

Themes: model families the engines treat in their own ways, met by a checkpoint built or edited
slightly wrong: tiny random-weight checkpoints of families other than Llama (2 layers, hidden
128, 4 heads, vocab 512, bfloat16, the tiny Llama's tokenizer files), built by
/tmp/blind233/make_models.py with each engine's own venv's transformers 5.19 in `before`, each
with ONE slip. vLLM: a Qwen2 checkpoint converted by a Llama script that drops the q/k/v biases;
a Gemma-2 config.json written by hand without head_dim (32 in the weights, 256 by Gemma2Config's
default); a GPT-2 config.json whose n_positions is edited to 128 over a 512-row learned position
table (no --max-model-len); an OLMo-2 checkpoint whose config.json names the older OLMo family
(model_type olmo, OlmoForCausalLM). SGLang (--model-impl transformers): a Starcoder2 checkpoint
served as built; a Phi-3 checkpoint saved with Llama's unfused tensor names (q/k/v_proj,
gate/up_proj).

Earlier batches already had (not repeated): GPT-2, OPT, GPT-NeoX with a head size of 32, Gemma-2
with soft capping and a sliding window, Qwen3, Mistral with a sliding window, Falcon, a float32
Phi-3, Mixtral, Qwen2-MoE, Mamba, T5, BERT, all as built (101st); Llama config.json fields edited
against the weights - heads, intermediate size, head_dim, layers, vocabulary (67th-84th, 178th);
a layer_types list with another release's names (112th); VLMs (220th); hybrid and state-space
models, Gemma-3 (221st); a model class of one's own (223rd).

Recorded 2026-12-07 in 1 invocation (raw1, taking turns with other helpers' recorders under the
shared lock), each scenario once: vLLM 78+44+41+42 s, SGLang 25+30+23 s. 6 kept (final files
hj101-hj106). Dropped: s-neox-rotary-pct-odd (a GPT-NeoX config.json with rotary_pct /
partial_rotary_factor 0.3): SGLang's Transformers backend died building the model before the
slip could show, with the very words of s-starcoder2-as-built ('No accelerator (CUDA, XPU, HPU,
NPU, MUSA, MPS) or platform plugin is available.' in _init_parameters) - a repeat; and
s-opt-word-embed-proj-dim (OPT's word_embed_proj_dim 64 over weights of 128): never recorded,
the helper's recorder stopped while it still waited for the shared lock, as time ran out. Both
removed from the table.

What the engines did. vLLM served the Qwen2 checkpoint without its q/k/v biases with no word
of them (loaded, KV cache, 'Application startup complete', two completions answered: ready,
hj101). The Gemma-2 config without head_dim died loading the first shard, 'RuntimeError: start
(0) + length (512) exceeds dimension size (64).' in load_qkv_weight (hj102); GPT-2 with
n_positions 128 over 512 positions, 'AssertionError: Attempted to load weight
(torch.Size([512, 128])) into parameter (torch.Size([128, 128]))' (hj103); the OLMo-2 weights
under an OLMo config, built by vLLM's Transformers backend, 'ValueError: There is no module or
parameter named 'model.layers.0.post_attention_layernorm.weight' in TransformersForCausalLM ...
(OlmoLayerNorm) are: set()' (hj104) - all three crashed in weight loading, then 'Engine core
initialization failed'. SGLang's Transformers backend crashed building both models right after
'Load weight begin' / 'Using Transformers backend.': Starcoder2 as built with 'RuntimeError: No
accelerator (CUDA, XPU, HPU, NPU, MUSA, MPS) or platform plugin is available.' from
_init_parameters (hj105), Phi-3 with 'ValueError: Unsupported TP style 'colwise_gather_output'
for Transformers backend.' from its TP-plan normaliser, before its tensor names were read
(hj106); each then 'Received sigquit from a child process'. No run hung.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Scenario, linger  # noqa: E402
from setup_engines import SGLANG, VLLM  # noqa: E402

ROOT = Path("/tmp/blind233")
SG_READY = "The server is fired up and ready to roll!"
# /tmp/blind233/make_models.py (written by the helper beside this table): tiny random-weight
# checkpoints (2 layers, hidden 128, 4 heads, vocab 512, bfloat16, the tiny Llama's tokenizer
# files), each built with AutoConfig.for_model / AutoModelForCausalLM.from_config /
# save_pretrained, then given its one slip (a config field dropped or edited, tensors renamed or
# dropped).
MAKE = ROOT / "make_models.py"


def model(name: str):
    def make(work: Path) -> Path:
        return ROOT / "models" / name
    return make


def build(name: str, env) -> callable:
    def before(ctx) -> None:
        subprocess.run([str(env.python), str(MAKE), name], check=True, cwd=str(ROOT),
                       stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    return before


def v_until(ctx) -> None:
    """Until the run ends; if it serves, two completions, a short pause."""
    ctx.wait_any([READY_LINE], 180)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_until(ctx) -> None:
    """SGLang: until it ends or is fired up (two completions); a pause."""
    found = ctx.wait_any([SG_READY], 180)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def v(name: str, what: str, ckpt: str, args: list[str] = VLLM_BASE) -> Scenario:
    return Scenario(name, "vllm", what, list(args), model=model(ckpt),
                    before=build(ckpt, VLLM), act=v_until)


def s(name: str, what: str, ckpt: str) -> Scenario:
    return Scenario(name, "sglang", what, ["--device", "cpu", "--model-impl", "transformers"],
                    model=model(ckpt), before=build(ckpt, SGLANG), act=s_until)


SCENARIOS = [
    v("v-qwen2-qkv-bias-dropped", "a tiny Qwen2 checkpoint (attention_bias true) converted by a "
      "Llama script that writes no q/k/v_proj.bias tensors", "qwen2-nobias"),
    v("v-gemma2-head-dim-missing", "a tiny Gemma-2 checkpoint made with head_dim 32 (hidden 128, "
      "4 heads) whose hand-written config.json leaves head_dim out (Gemma2Config's default: 256)",
      "gemma2-nohd"),
    v("v-gpt2-n-positions-edited", "a tiny GPT-2 checkpoint whose learned position table wpe "
      "holds 512 rows, its config.json's n_positions edited to 128; no --max-model-len",
      "gpt2-npos", VLLM_BASE[2:]),
    v("v-olmo2-config-says-olmo", "a tiny OLMo-2 checkpoint (q_norm/k_norm per layer) whose "
      "config.json says model_type olmo, architectures OlmoForCausalLM (the older family)",
      "olmo2-as-olmo"),
    s("s-starcoder2-as-built", "a tiny Starcoder2 checkpoint (sliding window 128, biases), served "
      "as built", "starcoder2"),
    s("s-phi3-llama-tensor-names", "a tiny Phi-3 checkpoint saved with Llama's unfused tensor "
      "names (q/k/v_proj, gate/up_proj) instead of Phi-3's qkv_proj and gate_up_proj",
      "phi3-llama-names"),
]
