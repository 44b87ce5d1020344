"""The hundred-and-twelfth batch's scenarios (tests/fixtures/corpus/fresh111): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind112.py OUT

Themes: the model's files written by another version of the tools than the engines' own
(transformers 5.19, tokenizers 0.23, the engines' LoRA and quantization readers). A tokenizer.json
of a newer tokenizers format (`"version": "2.0"`); a config.json whose text settings are nested
under `text_config` (as a multimodal wrapper or a newer save writes it) beside a plain Llama
architecture; a config.json `layer_types` list using another release's name for a layer kind
(`sliding_window_attention`, not `sliding_attention`); rope settings in the per-layer-type
`rope_parameters` form a newer release writes; a generation_config.json from a newer release (a
`cache_implementation` this one lacks, `compile_config`, transformers_version 6.2.0); a
processor-style `chat_template.json` (an older transformers' file) as the model's only chat
template; remote code (auto_map) written for transformers 4.x importing a name 5.x removed
(`is_torch_fx_available`); a PEFT adapter from a newer PEFT using DoRA (`use_dora`, magnitude
vectors); quantization_config blocks written by tools the engines do not support here: an
mlx-community conversion (`"quantization": {"group_size": 64, "bits": 4}`, no quant_method),
transformers' TorchAoConfig, transformers' HqqConfig.

Files are built from copies of the tiny model (never the original) when the recorder calls each
scenario's `model`; LoRA adapters and the chat requests' data go under /tmp/blind112/. SGLang
runs with --device cpu --model-impl transformers (its own Llama module imports vllm); vLLM with
VLLM_BASE's settings.

Recorded 2026-12-06 in five invocations (about 7 minutes of recording: vLLM 42 s and 3m00s,
SGLang 55 s and 1m10s, one of each engine 1m06s), each scenario once; all 20 kept. What the
engines did: both refuse tokenizer.json `"version": "2.0"` (`Unknown tokenizer version`), a
layer_types name transformers 5.19 lacks (StrictDataclassClassValidationError), a
generation_config cache_implementation it lacks (ValueError in GenerationConfig.validate, at
launch) and v4 remote config code importing is_torch_fx_available (ImportError; the module is
cached under ~/.cache/huggingface/modules/transformers_modules). vLLM refuses a config nested
under text_config (`The text_config extracted from the model config does not have
num_attention_heads`), knows torchao but lacks the package (`Please install torchao>=0.10.0`),
ignores an mlx-community quantization block and serves, comes up with a DoRA adapter and then
dies loading it (`vLLM does not yet support DoRA.`), and dies building the rotary embedding from
a per-layer-type rope_parameters (`TypeError: unhashable type: 'dict'`). SGLang refuses torchao,
hqq and the mlx block (no quant_method: `Unknown quantization method: .`) at argument
resolution, dies after loading the weights on DoRA (`LoRA serving currently doesn't support DoRA
adapters`) and in the Transformers backend on the per-layer-type rope block (`AttributeError:
'float' object has no attribute 'get'`). Neither reads a processor-style chat_template.json: both
serve and answer chat requests 400.
"""

from __future__ import annotations

import json
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
)
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind112")
SG = ["--device", "cpu", "--model-impl", "transformers"]
V_READY = "Application startup complete"
SG_READY = "The server is fired up and ready to roll"


# --- the model copies ------------------------------------------------------------------------

def edit(name: str, file: str, fn: Callable[[dict], None]) -> Callable[[Path], Path]:
    """A copy of the tiny model whose JSON ``file`` is changed in place by ``fn``."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / file
        data = json.loads(f.read_text())
        fn(data)
        f.write_text(json.dumps(data, indent=2))
        return d
    return make


def _tok_v2(t: dict) -> None:
    t["version"] = "2.0"


TEXT_KEYS = ("hidden_size", "intermediate_size", "num_attention_heads", "num_hidden_layers",
             "num_key_value_heads", "head_dim", "vocab_size", "rms_norm_eps",
             "max_position_embeddings", "rope_parameters", "hidden_act", "attention_bias",
             "mlp_bias", "tie_word_embeddings")


def _nest_text(c: dict) -> None:
    c["text_config"] = {"model_type": "llama", **{k: c.pop(k) for k in TEXT_KEYS if k in c}}


def _layer_types(c: dict) -> None:
    c["layer_types"] = ["full_attention", "sliding_window_attention"]
    c["sliding_window"] = 128


def _rope_per_type(c: dict) -> None:
    c["rope_parameters"] = {"full_attention": {"rope_type": "default", "rope_theta": 10000.0},
                            "sliding_attention": {"rope_type": "default", "rope_theta": 10000.0}}


def _genconfig_newer(g: dict) -> None:
    g.update(transformers_version="6.2.0", cache_implementation="paged_v2",
             compile_config={"fullgraph": True, "mode": "max-autotune"}, do_sample=True,
             temperature=0.6, top_p=0.95)


MLX_Q = {"group_size": 64, "bits": 4}


def _mlx(c: dict) -> None:
    c["quantization"] = dict(MLX_Q)
    c["quantization_config"] = dict(MLX_Q)


def _torchao(c: dict) -> None:
    c["quantization_config"] = {
        "quant_method": "torchao", "include_input_output_embeddings": False,
        "modules_to_not_convert": None, "untie_embedding_weights": False,
        "quant_type": {"default": {"_type": "Int4WeightOnlyConfig", "_version": 2,
                                   "_data": {"group_size": 128, "int4_packing_format": "plain",
                                             "set_inductor_config": True}}},
        "quant_type_kwargs": {}}


def _hqq(c: dict) -> None:
    c["quantization_config"] = {
        "quant_method": "hqq", "skip_modules": ["lm_head"],
        "quant_config": {"weight_quant_params": {"nbits": 4, "group_size": 64, "axis": 1,
                                                 "channel_wise": True, "optimize": True,
                                                 "round_zero": False, "view_as_float": False},
                         "scale_quant_params": None, "zero_quant_params": None,
                         "offload_meta": False}}


def chat_template_json(work: Path) -> Path:
    """transformers 4.4x's processor file: the template in chat_template.json, none elsewhere."""
    d = copy_model(work, "chat-template-json")
    (d / "chat_template.json").write_text(json.dumps({"chat_template": (
        "{% for m in messages %}<|{{ m['role'] }}|>\n{{ m['content'] }}</s>\n{% endfor %}"
        "{% if add_generation_prompt %}<|assistant|>\n{% endif %}")}, indent=2))
    return d


V4_CONFIG_PY = '''# coding=utf-8
# Copyright 2024 The TinyLM team. Written for transformers 4.40.
""" TinyLM model configuration"""

from transformers.configuration_utils import PretrainedConfig
from transformers.utils import is_torch_fx_available, logging

logger = logging.get_logger(__name__)

if is_torch_fx_available():
    logger.info("torch.fx is available: TinyLM supports symbolic tracing")


class TinyLMConfig(PretrainedConfig):
    model_type = "tinylm"
    keys_to_ignore_at_inference = ["past_key_values"]

    def __init__(self, vocab_size=512, hidden_size=256, intermediate_size=512,
                 num_hidden_layers=2, num_attention_heads=4, num_key_value_heads=2,
                 head_dim=64, hidden_act="silu", max_position_embeddings=2048,
                 rms_norm_eps=1e-6, rope_theta=10000.0, tie_word_embeddings=False, **kwargs):
        self.vocab_size = vocab_size
        self.hidden_size = hidden_size
        self.intermediate_size = intermediate_size
        self.num_hidden_layers = num_hidden_layers
        self.num_attention_heads = num_attention_heads
        self.num_key_value_heads = num_key_value_heads
        self.head_dim = head_dim
        self.hidden_act = hidden_act
        self.max_position_embeddings = max_position_embeddings
        self.rms_norm_eps = rms_norm_eps
        self.rope_theta = rope_theta
        super().__init__(tie_word_embeddings=tie_word_embeddings, **kwargs)
'''


def remote_v4(name: str) -> Callable[[Path], Path]:
    """auto_map config code written for transformers 4.x (imports is_torch_fx_available)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        (d / "configuration_tinylm.py").write_text(V4_CONFIG_PY)
        c = json.loads((d / "config.json").read_text())
        c.update(model_type="tinylm", architectures=["LlamaForCausalLM"],
                 auto_map={"AutoConfig": "configuration_tinylm.TinyLMConfig"},
                 transformers_version="4.40.2")
        (d / "config.json").write_text(json.dumps(c, indent=2))
        return d
    return make


def dora_adapter(name: str) -> Callable[[Ctx], None]:
    """A PEFT (0.13-style) LoRA adapter with DoRA: use_dora true and magnitude vectors."""
    def before(ctx: Ctx) -> None:
        ad = ROOT / "adapters" / name
        ad.mkdir(parents=True, exist_ok=True)
        (ad / "adapter_config.json").write_text(json.dumps({
            "alpha_pattern": {}, "auto_mapping": None, "base_model_name_or_path": "llama-tiny",
            "bias": "none", "fan_in_fan_out": False, "inference_mode": True,
            "init_lora_weights": True, "layer_replication": None, "layers_pattern": None,
            "layers_to_transform": None, "loftq_config": {}, "lora_alpha": 16,
            "lora_dropout": 0.05, "megatron_config": None, "megatron_core": "megatron.core",
            "modules_to_save": None, "peft_type": "LORA", "r": 8, "rank_pattern": {},
            "revision": None, "target_modules": ["q_proj", "v_proj"], "task_type": "CAUSAL_LM",
            "use_dora": True, "use_rslora": False}, indent=2))
        code = ("import sys, torch\nfrom safetensors.torch import save_file\nt = {}\n"
                "for i in range(2):\n"
                "    for m, out in (('q_proj', 256), ('v_proj', 128)):\n"
                "        p = f'base_model.model.model.layers.{i}.self_attn.{m}'\n"
                "        t[p + '.lora_A.weight'] = torch.randn(8, 256) * 0.01\n"
                "        t[p + '.lora_B.weight'] = torch.zeros(out, 8)\n"
                "        t[p + '.lora_magnitude_vector'] = torch.ones(out)\n"
                "save_file(t, sys.argv[1] + '/adapter_model.safetensors')\n")
        subprocess.run([str(VLLM.python), "-c", code, str(ad)], check=True)
    return before


# --- acts ------------------------------------------------------------------------------------

def body(ctx: Ctx) -> str:
    return ctx.text().split("\n\n", 1)[-1]


def wait_ready(ctx: Ctx, needle: str, timeout: float) -> bool:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if needle in body(ctx):
            return True
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return needle in body(ctx)
        time.sleep(0.5)
    return False


def chat(ctx: Ctx) -> None:
    ctx.post("/v1/chat/completions", {"model": ctx.model_name(), "max_tokens": 12,
                                      "messages": [{"role": "user", "content": "hi there"}]})


def end_or_serve(engine: str, timeout: float = 90, chats: int = 0) -> Callable[[Ctx], None]:
    """Wait for the launch to end; if it serves instead, two completions (and ``chats`` chat
    requests), then a short pause."""
    needle = V_READY if engine == "vllm" else SG_READY

    def act(ctx: Ctx) -> None:
        if wait_ready(ctx, needle, timeout):
            time.sleep(2)
            ctx.complete(2, max_tokens=12)
            for _ in range(chats):
                chat(ctx)
            linger(ctx, 8)
    return act


def v(name: str, what: str, args: list[str], model=None, before=None, timeout: float = 90,
      chats: int = 0) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], model=model, before=before,
                    act=end_or_serve("vllm", timeout, chats))


def s(name: str, what: str, args: list[str], model=None, before=None, timeout: float = 90,
      chats: int = 0) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], model=model, before=before,
                    act=end_or_serve("sglang", timeout, chats))


SCENARIOS = [
    # --- vLLM ------------------------------------------------------------------------------------
    v("v-tokenizer-json-v2", "tokenizer.json saved by a newer tokenizers release (format "
      "`\"version\": \"2.0\"`), which tokenizers 0.23 does not read", [],
      model=edit("tok-json-v2-v", "tokenizer.json", _tok_v2)),
    v("v-text-config-nested", "config.json with the text settings (hidden size, layers, heads, "
      "vocabulary, rope) nested under `text_config`, as a multimodal wrapper or a newer save "
      "writes them, beside a plain LlamaForCausalLM architecture and model_type llama",
      [], model=edit("text-config-v", "config.json", _nest_text)),
    v("v-layer-types-renamed", "config.json layer_types [\"full_attention\", "
      "\"sliding_window_attention\"] (another release's name for a sliding layer; transformers "
      "5.19 says sliding_attention)", [],
      model=edit("layer-types-v", "config.json", _layer_types)),
    v("v-genconfig-newer", "generation_config.json from a newer transformers (6.2.0): "
      "cache_implementation \"paged_v2\" (not one this release knows), compile_config, sampling "
      "defaults", [], model=edit("genconfig-newer-v", "generation_config.json", _genconfig_newer)),
    v("v-chat-template-json", "the chat template only in chat_template.json (the processor "
      "file older transformers releases wrote), which the tokenizer does not read; served, then "
      "chat requests", [], model=chat_template_json, chats=2, timeout=150),
    v("v-remote-config-v4-import", "config.json auto_map to configuration_tinylm.py written for "
      "transformers 4.40, which imports is_torch_fx_available (removed in 5.x); launched with "
      "--trust-remote-code", ["--trust-remote-code"], model=remote_v4("remote-v4-v")),
    v("v-lora-dora", "a static LoRA adapter saved by a newer PEFT with DoRA (use_dora true, "
      "lora_magnitude_vector tensors), given with --lora-modules",
      ["--enable-lora", "--max-lora-rank", "8", "--lora-modules",
       f"dora={ROOT / 'adapters' / 'dora-v'}"], before=dora_adapter("dora-v"), timeout=150),
    v("v-quant-torchao-config", "config.json quantization_config written by transformers' "
      "TorchAoConfig (Int4WeightOnlyConfig, version 2) over the plain bf16 weights; torchao is "
      "not installed", [], model=edit("torchao-v", "config.json", _torchao)),
    v("v-mlx-community-config", "config.json of an mlx-community conversion: "
      "`quantization` and `quantization_config` {group_size 64, bits 4}, no quant_method, over "
      "the plain bf16 weights", [], model=edit("mlx-v", "config.json", _mlx)),
    v("v-rope-per-layer-type", "config.json rope_parameters in the per-layer-type form a newer "
      "release writes ({full_attention: {...}, sliding_attention: {...}}) for a model without "
      "layer types", [], model=edit("rope-per-type-v", "config.json", _rope_per_type),
      timeout=150),
    # --- SGLang ----------------------------------------------------------------------------------
    s("s-tokenizer-json-v2", "tokenizer.json saved by a newer tokenizers release (format "
      "`\"version\": \"2.0\"`), which tokenizers 0.23 does not read", [],
      model=edit("tok-json-v2-s", "tokenizer.json", _tok_v2)),
    s("s-layer-types-renamed", "config.json layer_types [\"full_attention\", "
      "\"sliding_window_attention\"] (another release's name for a sliding layer)", [],
      model=edit("layer-types-s", "config.json", _layer_types)),
    s("s-rope-per-layer-type", "config.json rope_parameters in the per-layer-type form a newer "
      "release writes ({full_attention: {...}, sliding_attention: {...}}) for a model without "
      "layer types", [], model=edit("rope-per-type-s", "config.json", _rope_per_type),
      timeout=150),
    s("s-genconfig-newer", "generation_config.json from a newer transformers (6.2.0): "
      "cache_implementation \"paged_v2\" (not one this release knows), compile_config, sampling "
      "defaults", [], model=edit("genconfig-newer-s", "generation_config.json", _genconfig_newer),
      timeout=150),
    s("s-mlx-community-config", "config.json of an mlx-community conversion: `quantization` and "
      "`quantization_config` {group_size 64, bits 4}, no quant_method, over the plain bf16 "
      "weights", [], model=edit("mlx-s", "config.json", _mlx)),
    s("s-remote-config-v4-import", "config.json auto_map to configuration_tinylm.py written for "
      "transformers 4.40, which imports is_torch_fx_available (removed in 5.x); launched with "
      "--trust-remote-code", ["--trust-remote-code"], model=remote_v4("remote-v4-s")),
    s("s-chat-template-json", "the chat template only in chat_template.json (the processor "
      "file older transformers releases wrote), which the tokenizer does not read; served, then "
      "chat requests", [], model=chat_template_json, chats=2, timeout=150),
    s("s-lora-dora", "a LoRA adapter saved by a newer PEFT with DoRA (use_dora true, "
      "lora_magnitude_vector tensors), given with --lora-paths",
      ["--enable-lora", "--max-lora-rank", "8", "--lora-paths",
       f"dora={ROOT / 'adapters' / 'dora-s'}"], before=dora_adapter("dora-s")),
    s("s-quant-torchao-config", "config.json quantization_config written by transformers' "
      "TorchAoConfig (Int4WeightOnlyConfig, version 2) over the plain bf16 weights", [],
      model=edit("torchao-s", "config.json", _torchao)),
    s("s-quant-hqq-config", "config.json quantization_config written by transformers' HqqConfig "
      "(4 bits, group 64) over the plain bf16 weights, a method SGLang does not list", [],
      model=edit("hqq-s", "config.json", _hqq)),
]
