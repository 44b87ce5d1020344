"""The hundred-and-first batch's scenarios (tests/fixtures/corpus/fresh100): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind101.py OUT

Themes: the engine pointed at a model of another family than the tiny Llama it is tested with,
as users point it at the model they were given. Tiny checkpoints with random weights (2 layers,
hidden 64-128, 2 heads, vocab 512, the tiny Llama's tokenizer files) are built with the vLLM
environment's transformers by /tmp/blind101/make_models.py (MAKE_MODELS below, written when absent):
GPT-2, OPT, GPT-NeoX with a head size of 32, Gemma-2 with soft capping and a sliding window,
Qwen3, Mistral with a sliding window, Falcon, Phi-3 saved in float32, Mixtral and Qwen2-MoE
(4 experts, top-2), Mamba (a state-space model), T5 (encoder-decoder), BERT (encoder-only, served
for generation and for embeddings), and a Qwen3 copy whose config's auto_map points at custom
code shipped beside it (launched with and without --trust-remote-code). Some serve, some are
refused at launch, some die later: the labels are what each log shows.

SGLang runs with --device cpu and, except where the scenario says otherwise, --model-impl
transformers (its own Llama module imports vllm, which is not in its environment here).

Recorded 2026-12-05 in two invocations, one per engine (about 17 minutes of recording: vLLM
10m51s for 11 scenarios, SGLang 5m53s for 10); every take showed its fault and none was
dropped. What the engines did here: vLLM's CPU build served GPT-2, OPT, Gemma-2 (soft capping,
sliding window: two KV cache groups), Mixtral and Qwen2-MoE (its X86CPUUnquantizedExperts
backend), GPT-NeoX with head size 32, and a float32 Phi-3 downcast to float16 (loader warnings
only); it took BERT as a pooling model (`Supported tasks: ['token_classify']`, completions 404);
it died on Mamba in the profile run (an IndexError in its CPU Mamba mixer), on T5 building the
Transformers fallback (`Argument position_ids not found`), and refused the auto_map checkpoint
without --trust-remote-code at config parsing. SGLang served Qwen3 and Mistral through the
Transformers backend and GPT-2 with its own module (no --model-impl needed for GPT-2); its
Transformers backend refuses T5 and Falcon (`does not support custom attention backends`),
needs an accelerator for Mixtral's experts and for BERT (`No accelerator ... is available`),
crashes on Mamba's config (no attention heads: a TypeError), wants an auto_map AutoModel entry
for custom code, and dies on Gemma-2's final-logit soft cap in its own warmup request (a Triton
kernel: `0 active drivers`).
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    up,
)
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind101")
SG_READY = "The server is fired up and ready to roll!"
SG_CPU = ["--device", "cpu"]
SG_TF = [*SG_CPU, "--model-impl", "transformers"]
V_BASE = [a for a in VLLM_BASE]          # --max-model-len 256 --dtype bfloat16 --gpu-mem 0.25


MAKE_MODELS = r"""import json, shutil, sys
from pathlib import Path
import torch
from transformers import AutoConfig, AutoModelForCausalLM, AutoModel, AutoModelForSeq2SeqLM, AutoModelForMaskedLM
TOK = Path.home() / ".cache/gpu-node-supervisor/models/llama-tiny-v3"
OUT = Path("/tmp/blind101/models")
V = 512
def build(name, mtype, cls=AutoModelForCausalLM, dtype=torch.bfloat16, **kw):
    d = OUT / name
    if (d / "config.json").exists():
        return d
    cfg = AutoConfig.for_model(mtype, vocab_size=V, bos_token_id=0, eos_token_id=1, **kw)
    torch.manual_seed(0)
    m = cls.from_config(cfg)
    m = m.to(dtype)
    m.save_pretrained(d, safe_serialization=True)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(TOK / f, d / f)
    print("built", name, [p.name for p in d.iterdir()])
    return d
which = sys.argv[1:]
S = {
 "gpt2": lambda: build("gpt2", "gpt2", n_embd=128, n_layer=2, n_head=2, n_positions=512),
 "opt": lambda: build("opt", "opt", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, ffn_dim=256, word_embed_proj_dim=128, max_position_embeddings=512, pad_token_id=2),
 "neox-hd32": lambda: build("neox-hd32", "gpt_neox", hidden_size=64, num_hidden_layers=2, num_attention_heads=2, intermediate_size=128, max_position_embeddings=512),
 "gemma2": lambda: build("gemma2", "gemma2", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=64, intermediate_size=256, max_position_embeddings=512, sliding_window=64, attn_logit_softcapping=50.0, final_logit_softcapping=30.0),
 "qwen3": lambda: build("qwen3", "qwen3", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=64, intermediate_size=256, max_position_embeddings=512),
 "mixtral": lambda: build("mixtral", "mixtral", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, intermediate_size=128, max_position_embeddings=512, num_local_experts=4, num_experts_per_tok=2),
 "qwen2moe": lambda: build("qwen2moe", "qwen2_moe", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, intermediate_size=256, moe_intermediate_size=64, shared_expert_intermediate_size=128, num_experts=4, num_experts_per_tok=2, max_position_embeddings=512),
 "mamba": lambda: build("mamba", "mamba", hidden_size=64, num_hidden_layers=2, state_size=8, expand=2, conv_kernel=4),
 "t5": lambda: build("t5", "t5", cls=AutoModelForSeq2SeqLM, d_model=64, d_kv=32, d_ff=128, num_layers=2, num_heads=2, decoder_start_token_id=0, pad_token_id=0),
 "bert": lambda: build("bert", "bert", cls=AutoModelForMaskedLM, hidden_size=128, num_hidden_layers=2, num_attention_heads=2, intermediate_size=256, max_position_embeddings=512),
 "phi3-fp32": lambda: build("phi3-fp32", "phi3", dtype=torch.float32, hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2, intermediate_size=256, max_position_embeddings=512, pad_token_id=2),
 "mistral-sw": lambda: build("mistral-sw", "mistral", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=1, head_dim=64, intermediate_size=256, max_position_embeddings=512, sliding_window=32),
 "falcon": lambda: build("falcon", "falcon", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, new_decoder_architecture=False, multi_query=True, max_position_embeddings=512),
 "stablelm": lambda: build("stablelm", "stablelm", hidden_size=128, num_hidden_layers=2, num_attention_heads=2, num_key_value_heads=2, intermediate_size=256, max_position_embeddings=512),
}
for k in (which or S):
    try:
        S[k]()
    except Exception as e:
        print("FAIL", k, type(e).__name__, e)
"""


def built(name: str):
    """The tiny checkpoint ``name`` from /tmp/blind101/make_models.py (built when absent)."""
    def make(work: Path) -> Path:
        d = ROOT / "models" / name
        if not (d / "config.json").is_file():
            ROOT.mkdir(parents=True, exist_ok=True)
            if not (ROOT / "make_models.py").is_file():
                (ROOT / "make_models.py").write_text(MAKE_MODELS)
            subprocess.run([str(VLLM.python), str(ROOT / "make_models.py"), name], check=True)
        return d
    return make


ACME_CONFIG = '''from transformers.models.qwen3.configuration_qwen3 import Qwen3Config


class AcmeConfig(Qwen3Config):
    model_type = "acme"
'''
ACME_MODEL = '''from transformers.models.qwen3.modeling_qwen3 import Qwen3ForCausalLM
from .configuration_acme import AcmeConfig


class AcmeForCausalLM(Qwen3ForCausalLM):
    config_class = AcmeConfig
'''


def custom_code(work: Path) -> Path:
    """The Qwen3 checkpoint renamed to `acme`, its config's auto_map naming the two Python
    files shipped beside the weights (as a hub repository with custom code)."""
    import json
    src = built("qwen3")(work)
    d = work / "models" / "acme"
    if d.exists():
        shutil.rmtree(d)
    shutil.copytree(src, d)
    cfg = json.loads((d / "config.json").read_text())
    cfg.update(model_type="acme", architectures=["AcmeForCausalLM"],
               auto_map={"AutoConfig": "configuration_acme.AcmeConfig",
                         "AutoModelForCausalLM": "modeling_acme.AcmeForCausalLM"})
    (d / "config.json").write_text(json.dumps(cfg, indent=2))
    (d / "configuration_acme.py").write_text(ACME_CONFIG)
    (d / "modeling_acme.py").write_text(ACME_MODEL)
    return d


def v_serve(ctx: Ctx) -> None:
    """Two completions and a pause if it comes up; else until it ends (150 s at most)."""
    if up(ctx, 150):
        ctx.complete(2, max_tokens=16)
        time.sleep(11)


def s_serve(ctx: Ctx) -> None:
    if ctx.wait_for(SG_READY, 150):
        ctx.complete(2, max_tokens=16)
        time.sleep(6)


def s_embed(ctx: Ctx) -> None:
    if ctx.wait_for(SG_READY, 150):
        for i in range(2):
            ctx.post("/v1/embeddings", {"model": ctx.model_name(), "input": f"fox {i}"})
        ctx.complete(1)
        time.sleep(4)


def v(name, what, model, extra=(), base=V_BASE, act=v_serve, wait_s=90.0) -> Scenario:
    return Scenario(name, "vllm", what, [*base, *extra], model=model, act=act, wait_s=wait_s)


def s(name, what, model, extra=(), base=SG_TF, act=s_serve, wait_s=90.0) -> Scenario:
    return Scenario(name, "sglang", what, [*base, *extra], model=model, act=act, wait_s=wait_s)


NO_DTYPE = ["--max-model-len", "256", "--gpu-memory-utilization", "0.25"]

SCENARIOS = [
    v("v-gpt2", "a GPT-2 checkpoint (GPT2LMHeadModel, learned positions, 2 heads of 64)",
      built("gpt2")),
    v("v-opt", "an OPT checkpoint (OPTForCausalLM)", built("opt")),
    v("v-gemma2-softcap", "a Gemma-2 checkpoint with attention and final logit soft capping "
      "and a 64-token sliding window on alternate layers", built("gemma2")),
    v("v-mixtral-moe", "a Mixtral mixture of experts (4 experts, top-2)", built("mixtral")),
    v("v-qwen2-moe", "a Qwen2-MoE checkpoint (4 experts, top-2, a shared expert)",
      built("qwen2moe")),
    v("v-mamba", "a Mamba state-space checkpoint (MambaForCausalLM)", built("mamba")),
    v("v-t5-encdec", "a T5 encoder-decoder checkpoint (T5ForConditionalGeneration) served as "
      "a generator", built("t5")),
    v("v-bert-generate", "a BERT encoder-only checkpoint (BertForMaskedLM) served for "
      "generation", built("bert")),
    v("v-neox-head-32", "a GPT-NeoX checkpoint with a head size of 32 (hidden 64, 2 heads)",
      built("neox-hd32")),
    v("v-auto-map-no-trust", "a checkpoint whose config's auto_map names custom code shipped "
      "beside it (model_type acme), launched without --trust-remote-code", custom_code),
    v("v-phi3-fp32-as-fp16", "a Phi-3 checkpoint saved in float32, launched with --dtype "
      "float16", built("phi3-fp32"), base=NO_DTYPE, extra=["--dtype", "float16"]),
    s("s-qwen3", "a Qwen3 checkpoint (q/k norms, head_dim 64)", built("qwen3")),
    s("s-gpt2-native", "a GPT-2 checkpoint with SGLang's own model module (no --model-impl)",
      built("gpt2"), base=SG_CPU),
    s("s-mixtral-moe", "a Mixtral mixture of experts (4 experts, top-2)", built("mixtral")),
    s("s-gemma2-softcap", "a Gemma-2 checkpoint with soft capping and a sliding window",
      built("gemma2")),
    s("s-mistral-sliding", "a Mistral checkpoint with a 32-token sliding window",
      built("mistral-sw")),
    s("s-t5-encdec", "a T5 encoder-decoder checkpoint served as a generator", built("t5")),
    s("s-bert-embedding", "a BERT encoder-only checkpoint (BertForMaskedLM) served with "
      "--is-embedding", built("bert"), extra=["--is-embedding"], act=s_embed),
    s("s-mamba", "a Mamba state-space checkpoint (MambaForCausalLM)", built("mamba")),
    s("s-auto-map-trust", "a checkpoint whose config's auto_map names custom code shipped "
      "beside it (model_type acme), launched with --trust-remote-code", custom_code,
      extra=["--trust-remote-code"]),
    s("s-falcon", "a Falcon checkpoint (multi-query attention, parallel attention/MLP)",
      built("falcon")),
]
