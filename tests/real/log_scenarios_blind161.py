"""The hundred-and-sixty-first batch's scenarios (tests/fixtures/corpus/fresh160): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind161.py OUT

Themes: extra and leftover files in the model folder - what a person meets after copying,
converting or merging into a folder that then holds more than one model's worth of files. The
hf_quant_config.json of a ModelOpt FP8 export left beside bf16 weights (both engines); a PEFT LoRA
adapter (adapter_config.json, adapter_model.safetensors) dropped into a single-file base model's
folder (model.safetensors, no index; both engines); a single-file save copied over a folder that
still holds an older, wider model's two shards (SGLang); a Mistral-format copy of the same model
(consolidated.safetensors, params.json) beside the Hugging Face files (vLLM); and the Mistral
files of a repository cloned without git-lfs (consolidated.safetensors real, tokenizer.model.v3 a
git-lfs pointer) beside the Hugging Face files, no params.json (vLLM).

Earlier batches already had (not repeated): a shard replaced by another model's checkpoint (67th),
a shard overwritten by another, an extra tensor in a shard and the index, index files naming
ghost, lower-case or one shard, an index of another split (SGLang), shards that are git-lfs
pointers, a garbage pytorch_model.bin and bin-only checkpoints (98th, 123rd), a Hugging Face
cache with an `.incomplete` blob (103rd, 132nd), --load-format mistral on an HF checkpoint (94th),
quantization_config blocks the engines refuse (112th and others), LoRA adapters given by flag or
at runtime (134th, 156th), and the tokenizer files' many faults.

Every model is a copy of the tiny Llama (hidden 256, 2 layers, four shards and an index) made in
the recorder's work folder; /tmp/blind161/mk.py (written when this table is loaded, run with the
vLLM venv's torch and safetensors) rewrites a copy into one model.safetensors, adds the adapter,
the old shards or the Mistral-format copy. SGLang runs with --device cpu --model-impl transformers
(its own Llama module imports vllm); vLLM with VLLM_BASE's settings. Each run waits for the ready
line (SGLang: `The server is fired up and ready to roll!`) or its end; if it serves, three
completions and a 12 s pause.

Recorded 2026-12-06/07 in two invocations (raw1: the first eight scenarios; raw2: the vLLM
tokenizer pointer, added once raw1's vLLM old-shards run was seen to be a repeat), waiting turns
with two other helpers' recorders; each scenario once. About 4m50s of recording (vLLM 30+26+27+65+
12 s, SGLang 21+21+22+64 s). 7 kept (final files en101-en107). Dropped, and removed from
SCENARIOS: v-old-shards-beside-single (27 s: `Loading safetensors checkpoint shards: 0/3`, then
the embedding weight_loader's `RuntimeError: The size of tensor a (256) must match the size of
tensor b (384) at non-singleton dimension 1` - the same log as fresh67/ay114's shard of another
model) and s-mistral-copy-beside-hf (64 s: SGLang took the index's four shards, ignored
consolidated.safetensors and params.json without a word, and served - the fault never shows).

What the engines did. A leftover hf_quant_config.json makes both engines treat bf16 weights as
ModelOpt FP8: vLLM (`quantization=modelopt`) loads them into float8 parameters with four `Attempted
to load weight ... with dtype torch.bfloat16 into parameter with dtype torch.float8_e4m3fn`
warnings and dies in the memory-profiling run (profile_run) on `AttributeError: '_OpNamespace'
'_C' object has no attribute 'silu_and_mul_quant'` (no fused FP8 op in the CPU build); SGLang says
`Detected ModelOpt FP8 checkpoint`, `Using ModelOptModelLoader` and dies loading weights on
`ValueError: Downcasting not allowed: target.dtype=torch.float8_e4m3fn, loaded_weight.dtype=
torch.bfloat16`. With no index, both engines load every *.safetensors in the folder: the adapter's
tensors end vLLM's load on `There is no module or parameter named 'base_model' in
LlamaForCausalLM` and SGLang's on `No module or parameter named 'model.base_model' in
TransformersForCausalLM`; the old shards end SGLang's on the embedding's size mismatch. With an
index, both filter the weight files by it, but vLLM's config detection prefers the Mistral format
whenever consolidated*.safetensors and params.json are both present: it resolved
MistralForCausalLM, loaded the one consolidated file and served. Its tokenizer_mode auto likewise
takes a tokenizer.model.v3 over tokenizer.json once a consolidated file is there, so a git-lfs
pointer in its place kills the API server before any engine process: `RuntimeError: INTERNAL:
could not parse ModelProto from .../tokenizer.model.v3`. All the crashes end within 30 s.
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

ROOT = Path("/tmp/blind161")
MK = ROOT / "mk.py"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"

# Run with the vLLM venv's interpreter (torch, safetensors): `mk.py WHAT FOLDER`.
MAKER = r'''"""Rewrite a copy of the tiny model into the layouts the scenarios need."""
import glob
import json
import os
import sys

import torch
from safetensors.torch import load_file, save_file

what, d = sys.argv[1], sys.argv[2]


def merged():
    t = {}
    for f in sorted(glob.glob(d + "/model-*.safetensors")):
        t.update(load_file(f))
    return t


def to_single():
    """One model.safetensors, no index: the layout of a model saved whole."""
    t = merged()
    for f in glob.glob(d + "/model-*.safetensors"):
        os.remove(f)
    os.remove(d + "/model.safetensors.index.json")
    save_file(t, d + "/model.safetensors", metadata={"format": "pt"})


if what == "adapter":
    # a PEFT LoRA adapter (rank 8, q_proj and v_proj) dropped into a single-file base folder
    to_single()
    a = {}
    for i in range(2):
        for p in ("q_proj", "v_proj"):
            out = 256 if p == "q_proj" else 128
            k = f"base_model.model.model.layers.{i}.self_attn.{p}"
            a[k + ".lora_A.weight"] = torch.randn(8, 256, dtype=torch.bfloat16) * 0.01
            a[k + ".lora_B.weight"] = torch.zeros(out, 8, dtype=torch.bfloat16)
    save_file(a, d + "/adapter_model.safetensors", metadata={"format": "pt"})
    json.dump({"peft_type": "LORA", "task_type": "CAUSAL_LM", "r": 8, "lora_alpha": 16,
               "lora_dropout": 0.05, "target_modules": ["q_proj", "v_proj"], "bias": "none",
               "base_model_name_or_path": "llama-tiny-v3", "inference_mode": True},
              open(d + "/adapter_config.json", "w"), indent=2)
elif what == "old-shards":
    # a new single-file save copied over a folder that held an older, wider model's two shards
    to_single()
    h, m, kv = 384, 768, 192
    old = {"model.embed_tokens.weight": (512, h), "model.norm.weight": (h,),
           "lm_head.weight": (512, h)}
    for i in range(2):
        p = f"model.layers.{i}."
        old.update({p + "self_attn.q_proj.weight": (h, h), p + "self_attn.k_proj.weight": (kv, h),
                    p + "self_attn.v_proj.weight": (kv, h), p + "self_attn.o_proj.weight": (h, h),
                    p + "mlp.gate_proj.weight": (m, h), p + "mlp.up_proj.weight": (m, h),
                    p + "mlp.down_proj.weight": (h, m), p + "input_layernorm.weight": (h,),
                    p + "post_attention_layernorm.weight": (h,)})
    names = sorted(old)
    half = len(names) // 2
    for n, part in ((1, names[:half]), (2, names[half:])):
        save_file({k: torch.randn(*old[k]).to(torch.bfloat16) for k in part},
                  d + f"/model-0000{n}-of-00002.safetensors", metadata={"format": "pt"})
elif what == "mistral":
    # a Mistral-format copy of the same model (consolidated.safetensors, params.json) beside
    # the Hugging Face files, as `huggingface-cli download` of the whole repository leaves it
    ren = {"model.embed_tokens.weight": "tok_embeddings.weight", "model.norm.weight": "norm.weight",
           "lm_head.weight": "output.weight"}
    sub = {"self_attn.q_proj": "attention.wq", "self_attn.k_proj": "attention.wk",
           "self_attn.v_proj": "attention.wv", "self_attn.o_proj": "attention.wo",
           "mlp.gate_proj": "feed_forward.w1", "mlp.down_proj": "feed_forward.w2",
           "mlp.up_proj": "feed_forward.w3", "input_layernorm": "attention_norm",
           "post_attention_layernorm": "ffn_norm"}
    out = {}
    for k, v in merged().items():
        if k in ren:
            out[ren[k]] = v
            continue
        n = k.removeprefix("model.")
        for a, b in sub.items():
            n = n.replace(a, b)
        out[n] = v
    save_file(out, d + "/consolidated.safetensors")
    json.dump({"dim": 256, "n_layers": 2, "head_dim": 64, "hidden_dim": 512, "n_heads": 4,
               "n_kv_heads": 2, "norm_eps": 1e-06, "vocab_size": 512, "rope_theta": 10000.0},
              open(d + "/params.json", "w"), indent=2)
else:
    raise SystemExit(f"unknown layout {what}")
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    MK.write_text(MAKER)


_setup()


def made(name: str, what: str) -> Callable[[Path], Path]:
    """A copy of the tiny model rewritten by mk.py into layout ``what``."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        subprocess.run([str(VLLM.python), str(MK), what, str(d)], check=True)
        return d
    return make


def hf_quant_config(name: str) -> Callable[[Path], Path]:
    """A copy holding the hf_quant_config.json a ModelOpt 0.29 FP8 export writes beside its
    weights (a quantized copy's file left in the folder the bf16 model was copied into)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        (d / "hf_quant_config.json").write_text(json.dumps({
            "producer": {"name": "modelopt", "version": "0.29.0"},
            "quantization": {"quant_algo": "FP8", "kv_cache_quant_algo": None,
                             "exclude_modules": ["lm_head"]}}, indent=4))
        return d
    return make


def mistral_tokenizer_pointer(work: Path) -> Path:
    """consolidated.safetensors and tokenizer.model.v3 of a Mistral-format download beside the
    Hugging Face files, the tokenizer a git-lfs pointer (cloned without git-lfs)."""
    d = made("mistral-tokenizer-pointer", "mistral")(work)
    (d / "params.json").unlink()
    (d / "tokenizer.model.v3").write_text(
        "version https://git-lfs.github.com/spec/v1\n"
        "oid sha256:37f00374dea48658ee8f5d0f21895b9bc55cb0103939607c8185bfd1c6ca1f89\n"
        "size 587404\n")
    return d


def serve_or_exit(ready: str) -> Callable[[Ctx], None]:
    """Wait for ``ready`` or the end of the run; if it serves, three completions and a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([ready], 240)
        if ctx.proc is not None and ctx.proc.poll() is None and ready in ctx.text():
            ctx.complete(3, max_tokens=16)
            time.sleep(12)
        else:
            linger(ctx, 5)
    return act


V_ACT = serve_or_exit(READY_LINE)
S_ACT = serve_or_exit(SG_READY)

SCENARIOS = [
    Scenario("v-hf-quant-config-leftover", "vllm", "hf_quant_config.json of a ModelOpt FP8 "
             "export (quant_algo FP8) left in the bf16 model's folder", VLLM_BASE,
             model=hf_quant_config("hf-quant-config"), act=V_ACT),
    Scenario("s-hf-quant-config-leftover", "sglang", "--model-impl transformers; "
             "hf_quant_config.json of a ModelOpt FP8 export (quant_algo FP8) left in the bf16 "
             "model's folder", SG, model=hf_quant_config("hf-quant-config"), act=S_ACT),
    Scenario("v-adapter-in-single-file-base", "vllm", "a PEFT LoRA adapter's "
             "adapter_config.json and adapter_model.safetensors dropped into a single-file base "
             "model's folder (model.safetensors, no index)", VLLM_BASE,
             model=made("adapter-in-base", "adapter"), act=V_ACT),
    Scenario("s-adapter-in-single-file-base", "sglang", "--model-impl transformers; a PEFT LoRA "
             "adapter's adapter_config.json and adapter_model.safetensors dropped into a "
             "single-file base model's folder (model.safetensors, no index)", SG,
             model=made("adapter-in-base", "adapter"), act=S_ACT),
    Scenario("s-old-shards-beside-single", "sglang", "--model-impl transformers; a single-file "
             "model.safetensors copied over a folder that still holds an older, wider model's "
             "two shards (model-0000N-of-00002.safetensors, hidden 384; no index)", SG,
             model=made("old-shards", "old-shards"), act=S_ACT),
    Scenario("v-mistral-copy-beside-hf", "vllm", "a Mistral-format copy of the model "
             "(consolidated.safetensors, params.json) beside the Hugging Face files and index",
             VLLM_BASE, model=made("mistral-beside-hf", "mistral"), act=V_ACT),
    Scenario("v-mistral-tokenizer-v3-pointer", "vllm", "consolidated.safetensors and a "
             "tokenizer.model.v3 that is a git-lfs pointer (a Mistral-format download cloned "
             "without git-lfs) beside the Hugging Face files and index; no params.json",
             VLLM_BASE, model=mistral_tokenizer_pointer, act=V_ACT),
]
