"""The two-hundred-and-twenty-third batch's scenarios (tests/fixtures/corpus/fresh222): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind223.py OUT

Themes: a model class of one's own registered with the engine, as a person porting a new
architecture does it, with ONE porting mistake each. vLLM: a general plugin (`vllm.general_plugins`
entry point, a dist-info on PYTHONPATH) whose register() calls
`ModelRegistry.register_model("MyLlamaForCausalLM", "mypkg.model:MyLlama")`, the tiny model's
config.json naming MyLlamaForCausalLM; MyLlama is vLLM's own LlamaForCausalLM subclassed (or
rebuilt from its LlamaModel) with: a load_weights that renames a checkpoint tensor to a
parameter that does not exist; a hand-written load_weights whose stacked mapping gives q/k/v
integer shard ids into qkv_proj (as for a merged column layer); a forward with vLLM V0's
signature (kv_caches, attn_metadata); a class rebuilt from LlamaModel and lm_head that has no
compute_logits. SGLang: SGLANG_EXTERNAL_MODEL_PACKAGE=mypkg (on PYTHONPATH), a module exporting
EntryClass, a subclass of SGLang's own TransformersForCausalLM (the implementation that runs on
this CPU host) under the name MyLlamaForCausalLM, with: an import error inside the module (a
misspelt name imported from sglang); a forward that returns the hidden states without the logits
processor; a forward whose hidden states come back reshaped to (tokens, heads, head_dim).

Earlier batches already had (not repeated): a vLLM plugin's model module importing a package not
installed, an entry point with a typo so nothing is registered, a general plugin that raises, two
platform plugins; SGLANG_EXTERNAL_MODEL_PACKAGE not installed, an external class raising in
__init__, two modules exporting one EntryClass (166th); auto_map remote code of many kinds
(73rd, 101st, 112th, 122nd).

The plugin packages are plain folders under /tmp/blind223/site-* written when this table is
loaded; nothing goes into the engines' venvs. vLLM runs VLLM_BASE's settings; SGLang runs
--device cpu with its default --model-impl (with transformers the external class would never be
looked up).

Recorded 2026-12-07 in 1 invocation (raw1: the four vLLM scenarios, then the four SGLang ones,
taking turns with other helpers' recorders); each scenario once. About 4m40s of recording (277 s:
vLLM 38+37+36+19 s, SGLang 23+24+45+55 s). 7 kept (final files gz101-gz107). Dropped:
s-ext-entry-class-name-mismatch (EntryClass a class named MyLlama while config.json names
MyLlamaForCausalLM: SGLang keys the external registry by the class's __name__ and says nothing of
it, so the log is fresh63/au121's unknown architecture again - 'ValueError: Cannot find model
module. 'MyLlamaForCausalLM' is not a registered model in the Transformers library ...' - a
repeat); removed from the table.

What the engines did: vLLM resolves the plugin's architecture at once ('Resolved architecture:
MyLlamaForCausalLM'). A load_weights renaming a checkpoint tensor ends weight loading in the
worker with AutoWeightsLoader's 'ValueError: There is no module or parameter named
'layers.0.ffn_norm' in LlamaModel. The available parameters ... are ...' (gz101); integer shard
ids into qkv_proj with 'ValueError: Shard id for QKVParallelLinear should be 'q', 'k', or 'v',
got shard id 1.' (gz102); both then 'WorkerProc failed to start' / 'Engine core initialization
failed'. A forward with V0's signature passes loading ('Loading weights took') and dies in the
profile run ('Warming up model for the compilation...', 'TypeError: MyLlama.forward() got an
unexpected keyword argument 'inputs_embeds'', gz103, kv_cache_alloc). A class without
compute_logits is refused before any engine process, silently inspected, as pydantic's
'This model does not support `--runner generate`.' (gz104, launch, 19 s). SGLang swallows an
ImportError in the external module as a warning ('Ignore import error when loading
mypkg.my_llama: cannot import name ...') and dies in get_model_architecture on the architecture
it then lacks (gz105, launch). A forward that skips the logits processor, and hidden states of
the wrong shape, both load, allocate the KV cache and start uvicorn, then kill the scheduler on
SGLang's own warmup request, before 'The server is fired up': 'AttributeError: 'Tensor' object
has no attribute 'next_token_logits'' (gz106) and 'RuntimeError: mat1 and mat2 shapes cannot be
multiplied (4x64 and 256x512)' in the LM head (gz107), then 'SIGQUIT received ... one child
failed' - warmup.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Scenario, config_with, linger  # noqa: E402

ROOT = Path("/tmp/blind223")
SG_READY = "The server is fired up and ready to roll!"
ARCH = "MyLlamaForCausalLM"

V_REGISTER = '''"""mypkg: registers MyLlama with vLLM."""


def register():
    from vllm import ModelRegistry

    ModelRegistry.register_model("MyLlamaForCausalLM", "mypkg.model:MyLlama")
'''

V_HEAD = '''"""MyLlama: vLLM's Llama, ported."""
from collections.abc import Iterable

import torch
from vllm.model_executor.models.llama import LlamaForCausalLM
'''

V_MODELS = {
    "v-bad-name": V_HEAD + '''

class MyLlama(LlamaForCausalLM):
    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> set[str]:
        # our checkpoint calls the MLP's norm ffn_norm
        renamed = ((n.replace("post_attention_layernorm", "ffn_norm"), w) for n, w in weights)
        return super().load_weights(renamed)
''',
    "v-qkv-int": V_HEAD + '''from vllm.model_executor.model_loader.weight_utils import default_weight_loader


class MyLlama(LlamaForCausalLM):
    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> set[str]:
        stacked = [(".qkv_proj", ".q_proj", 0), (".qkv_proj", ".k_proj", 1),
                   (".qkv_proj", ".v_proj", 2), (".gate_up_proj", ".gate_proj", 0),
                   (".gate_up_proj", ".up_proj", 1)]
        params = dict(self.named_parameters())
        loaded = set()
        for name, w in weights:
            if "rotary_emb.inv_freq" in name:
                continue
            for packed, part, shard in stacked:
                if part in name:
                    name = name.replace(part, packed)
                    param = params[name]
                    param.weight_loader(param, w, shard)
                    break
            else:
                param = params[name]
                getattr(param, "weight_loader", default_weight_loader)(param, w)
            loaded.add(name)
        return loaded
''',
    "v-fwd-v0": V_HEAD + '''

class MyLlama(LlamaForCausalLM):
    def forward(self, input_ids, positions, kv_caches, attn_metadata,
                intermediate_tensors=None):
        return self.model(input_ids, positions, intermediate_tensors)
''',
    "v-no-logits": '''"""MyLlama: built from vLLM's LlamaModel and an LM head."""
from collections.abc import Iterable

import torch
from torch import nn
from vllm.model_executor.layers.vocab_parallel_embedding import ParallelLMHead
from vllm.model_executor.models.llama import LlamaModel
from vllm.model_executor.models.utils import AutoWeightsLoader, maybe_prefix


class MyLlama(nn.Module):
    def __init__(self, *, vllm_config, prefix=""):
        super().__init__()
        config = vllm_config.model_config.hf_config
        self.config = config
        self.model = LlamaModel(vllm_config=vllm_config, prefix=maybe_prefix(prefix, "model"))
        self.lm_head = ParallelLMHead(config.vocab_size, config.hidden_size,
                                      prefix=maybe_prefix(prefix, "lm_head"))

    def embed_input_ids(self, input_ids):
        return self.model.embed_input_ids(input_ids)

    def forward(self, input_ids, positions, intermediate_tensors=None, inputs_embeds=None):
        return self.model(input_ids, positions, intermediate_tensors, inputs_embeds)

    def load_weights(self, weights: Iterable[tuple[str, torch.Tensor]]) -> set[str]:
        return AutoWeightsLoader(self).load_weights(weights)
''',
}

S_HEAD = '''"""MyLlama for SGLang: SGLang's Transformers-backed causal LM, ported."""
import torch
from sglang.srt.models.transformers import TransformersForCausalLM
'''

S_MODELS = {
    "s-import": '''"""MyLlama for SGLang: SGLang's Transformers-backed causal LM, ported."""
from sglang.srt.models.transformers import TransformersForCausalLm


class MyLlamaForCausalLM(TransformersForCausalLm):
    pass


EntryClass = MyLlamaForCausalLM
''',
    "s-no-logits": S_HEAD + '''

class MyLlamaForCausalLM(TransformersForCausalLM):
    @torch.no_grad()
    def forward(self, input_ids, positions, forward_batch, pp_proxy_tensors=None,
                input_embeds=None, get_embedding=False):
        return self._forward_hidden_states(input_ids=input_ids, positions=positions,
                                           forward_batch=forward_batch,
                                           input_embeds=input_embeds)


EntryClass = MyLlamaForCausalLM
''',
    "s-shape": S_HEAD + '''

class MyLlamaForCausalLM(TransformersForCausalLM):
    def _forward_hidden_states(self, *args, **kwargs):
        h = super()._forward_hidden_states(*args, **kwargs)
        cfg = self.text_config
        return h.view(-1, cfg.num_attention_heads, cfg.hidden_size // cfg.num_attention_heads)


EntryClass = MyLlamaForCausalLM
''',
}


def _dist(site: str, files: dict[str, str], entry_points: str = "") -> str:
    base = ROOT / site
    for rel, text in files.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    di = base / "mypkg-0.1.0.dist-info"
    di.mkdir(parents=True, exist_ok=True)
    (di / "METADATA").write_text("Metadata-Version: 2.1\nName: mypkg\nVersion: 0.1.0\n")
    (di / "RECORD").write_text("")
    if entry_points:
        (di / "entry_points.txt").write_text(entry_points)
    return str(base)


def _setup() -> dict[str, str]:
    ROOT.mkdir(parents=True, exist_ok=True)
    sites = {}
    for key, code in V_MODELS.items():
        sites[key] = _dist(f"site-{key}", {"mypkg/__init__.py": V_REGISTER,
                                           "mypkg/model.py": code},
                           "[vllm.general_plugins]\nmypkg = mypkg:register\n")
    for key, code in S_MODELS.items():
        sites[key] = _dist(f"site-{key}", {"mypkg/__init__.py": "", "mypkg/my_llama.py": code})
    return sites


SITES = _setup()


def my_model(name: str):
    def make(work: Path) -> Path:
        return config_with(work, name, architectures=[ARCH])
    return make


def v_until(ctx) -> None:
    """Until the run ends; if it serves, two completions, a short pause."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(6)


def s_until(ctx) -> None:
    """SGLang: until it ends or is fired up (two completions); a pause."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


PLUGIN = ("a general plugin (vllm.general_plugins entry point mypkg, on PYTHONPATH) registers "
          "ModelRegistry.register_model('MyLlamaForCausalLM', 'mypkg.model:MyLlama'); the model "
          "copy's config.json names MyLlamaForCausalLM; ")
EXT = ("SGLANG_EXTERNAL_MODEL_PACKAGE=mypkg (on PYTHONPATH), module mypkg.my_llama exporting "
       "EntryClass, a subclass of SGLang's TransformersForCausalLM; the model copy's config.json "
       "names MyLlamaForCausalLM; default --model-impl; ")


def v(name: str, what: str, site: str) -> Scenario:
    return Scenario(name, "vllm", PLUGIN + what, VLLM_BASE, model=my_model(f"my-{site}"),
                    env={"PYTHONPATH": SITES[site]}, act=v_until)


def s(name: str, what: str, site: str) -> Scenario:
    return Scenario(name, "sglang", EXT + what, ["--device", "cpu"], model=my_model(f"my-{site}"),
                    env={"PYTHONPATH": SITES[site], "SGLANG_EXTERNAL_MODEL_PACKAGE": "mypkg"},
                    act=s_until)


SCENARIOS = [
    v("v-oot-load-weights-renamed-param", "MyLlama (a LlamaForCausalLM subclass) overrides "
      "load_weights to rename post_attention_layernorm to ffn_norm, a parameter that does not "
      "exist", "v-bad-name"),
    v("v-oot-qkv-int-shard-ids", "MyLlama's hand-written load_weights maps q/k/v_proj into "
      "qkv_proj with integer shard ids 0/1/2 (as for gate_up_proj) instead of 'q'/'k'/'v'",
      "v-qkv-int"),
    v("v-oot-forward-v0-signature", "MyLlama overrides forward with vLLM V0's signature "
      "(input_ids, positions, kv_caches, attn_metadata, intermediate_tensors)", "v-fwd-v0"),
    v("v-oot-no-compute-logits", "MyLlama is an nn.Module built from vLLM's LlamaModel and a "
      "ParallelLMHead, with forward and load_weights but no compute_logits", "v-no-logits"),
    s("s-ext-import-error", "the module imports TransformersForCausalLm (misspelt) from "
      "sglang.srt.models.transformers", "s-import"),
    s("s-ext-forward-skips-logits-processor", "MyLlamaForCausalLM's forward returns the "
      "backbone's hidden states, never calling self.logits_processor", "s-no-logits"),
    s("s-ext-hidden-states-wrong-shape", "MyLlamaForCausalLM's hidden states come back "
      "reshaped to (tokens, heads, head_dim) instead of (tokens, hidden)", "s-shape"),
]
