"""The hundred-and-eighty-eighth batch's scenarios (tests/fixtures/corpus/fresh187): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind188.py OUT

Themes: mixture-of-experts and expert-parallel settings - what a person meets moving a launch
written for a MoE model onto another model or host. Tiny MoE checkpoints with random weights
(Mixtral and Qwen2-MoE style, 2 layers, hidden 128, 4 experts, top-2, the tiny Llama's tokenizer
files) are built with the vLLM environment's transformers by /tmp/blind188/make_models.py
(MAKE_MODELS below, written and run when the table is loaded and the models are absent); some
copies get a config.json whose expert counts disagree with the weights or are wrong in
themselves.

Earlier batches already had (not repeated): Mixtral and Qwen2-MoE served plainly by vLLM and
Mixtral through SGLang's Transformers backend (101st); --enable-expert-parallel --enable-eplb and
--enable-expert-parallel --all2all-backend deepep_low_latency on the dense model (110th); SGLang
--moe-a2a-backend deepep on the dense model (110th); SGLang --ep-size 2 with tp 1 on the dense
model (76th, 119th).

SGLang runs with --device cpu --model-impl transformers (its own Llama and Qwen2-MoE modules
import vllm, which is not in its environment here); vLLM with VLLM_BASE's settings. A run that
serves is given two completions and a short pause.

Recorded 2026-12-07 in three invocations (raw1: four vLLM, two SGLang, stopped by hand while it
waited its turn for the next scenario, since SGLang's own Qwen2-MoE module had shown it cannot
run here; raw2: three SGLang through the Transformers backend; raw3: one SGLang), waiting turns
with two other helpers' recorders; each scenario once. About 5m20s of recording (318 s: vLLM
58+39+27+37 s, SGLang 11+21+41+47+26+11 s). 7 kept (final files fo101-fo107). Dropped (removed
from SCENARIOS): s-qwen2moe-moe-runner-triton (--moe-runner-backend triton on the tiny Qwen2-MoE
through SGLang's own module: it died building the attention's rotary embedding, `from
vllm._custom_ops import rotary_embedding` / `ModuleNotFoundError: No module named 'vllm'`, before
any MoE layer - the fault never shows, and the missing vllm is every earlier batch's reason for
--model-impl transformers); s-deepep-low-latency-dense (--moe-a2a-backend deepep --deepep-mode
low_latency on the dense model: served two completions without a word, server_args holding both
values - the same log as the 110th batch's s-moe-a2a-deepep, a repeat);
s-qwen2moe-redundant-experts (--ep-num-redundant-experts 2 on the tiny Qwen2-MoE at tp 1 through
the Transformers backend: accepted silently, then `RuntimeError: No accelerator (CUDA, XPU, HPU,
NPU, MUSA, MPS) or platform plugin is available.` from the backend's `_init_parameters` - the
101st batch's Mixtral through the Transformers backend, the setting never showing). Not recorded:
s-qwen2moe-cfg-8-experts (num_experts 8 over 4 experts' weights in SGLang), dropped from the
table with the raw1 stop, since neither of SGLang's Qwen2-MoE paths gets as far as the weights
here.

What the engines did: vLLM's CPU build takes --enable-expert-parallel on a one-rank Mixtral and
serves (the worker renamed `Worker_EP0`, `Using CPUUnquantizedExperts MoE backend`); it warns
that the 'pplx' all2all backend `has been removed. Falling back to 'allgather_reducescatter'` and
serves; a config.json saying 8 experts over 4 experts' weights dies in weight loading
(`AssertionError: Tried to load weights of size torch.Size([4, 128])to a parameter of size
torch.Size([8, 128])`); num_experts_per_tok 6 over 4 experts is not checked and dies in the
profile run's torch.compile trace (`RuntimeError('k not in range for dimension')` on
`aten.topk`). SGLang refuses --enable-eplb at ep size 1 with a bare `assert
resolved_view(server_args).ep_size > 1` / `AssertionError` while resolving its server arguments;
takes --moe-runner-backend triton on the dense model silently and serves; and refuses
--ep-dispatch-algorithm static without an all-to-all backend while resolving its server
arguments (`ValueError: --ep-dispatch-algorithm static picks a different physical replica per
rank, ... Use --ep-dispatch-algorithm dynamic with --moe-a2a-backend none.`).
All three SGLang faults ended at launch or served; the vLLM faults ended in launch-time warnings
(served), weight_loading and kv_cache_alloc.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario  # noqa: E402
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind188")
MODELS = ROOT / "models"
SG_READY = "The server is fired up and ready to roll!"
SG_CPU = ["--device", "cpu"]
SG_TF = [*SG_CPU, "--model-impl", "transformers"]

MAKE_MODELS = r"""import json, shutil
from pathlib import Path
import torch
from transformers import AutoConfig, AutoModelForCausalLM
TOK = Path.home() / ".cache/gpu-node-supervisor/models/llama-tiny-v3"
OUT = Path("/tmp/blind188/models")
def build(name, mtype, **kw):
    d = OUT / name
    if (d / "config.json").exists():
        return d
    cfg = AutoConfig.for_model(mtype, vocab_size=512, bos_token_id=0, eos_token_id=1, **kw)
    torch.manual_seed(0)
    m = AutoModelForCausalLM.from_config(cfg).to(torch.bfloat16)
    m.save_pretrained(d, safe_serialization=True)
    for f in ("tokenizer.json", "tokenizer_config.json"):
        shutil.copy(TOK / f, d / f)
    print("built", name, sorted(p.name for p in d.iterdir()))
    return d
build("mixtral4", "mixtral", hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
      num_key_value_heads=1, intermediate_size=128, max_position_embeddings=512,
      num_local_experts=4, num_experts_per_tok=2)
build("qwen2moe4", "qwen2_moe", hidden_size=128, num_hidden_layers=2, num_attention_heads=2,
      num_key_value_heads=1, intermediate_size=256, moe_intermediate_size=64,
      shared_expert_intermediate_size=128, num_experts=4, num_experts_per_tok=2,
      max_position_embeddings=512)
"""


def _setup() -> None:
    MODELS.mkdir(parents=True, exist_ok=True)
    if all((MODELS / n / "config.json").is_file() for n in ("mixtral4", "qwen2moe4")):
        return
    (ROOT / "make_models.py").write_text(MAKE_MODELS)
    subprocess.run([str(VLLM.python), str(ROOT / "make_models.py")], check=True)


_setup()


def variant(base: str, name: str, **changes: object) -> Callable[[Path], Path]:
    """The built checkpoint ``base``, or a copy of it whose config.json has ``changes``."""
    def make(work: Path) -> Path:
        src = MODELS / base
        if not changes:
            return src
        d = MODELS / name
        if not d.exists():
            d.mkdir()
            for f in src.iterdir():
                (d / f.name).symlink_to(f)
            (d / "config.json").unlink()
            cfg = json.loads((src / "config.json").read_text())
            (d / "config.json").write_text(json.dumps({**cfg, **changes}, indent=2))
        return d
    return make


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions); a short pause."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        time.sleep(8)


def v(name: str, what: str, args: list[str], model: Callable[[Path], Path] | None = None
      ) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], model=model, act=v_until)


def s(name: str, what: str, args: list[str], model: Callable[[Path], Path] | None = None
      ) -> Scenario:
    return Scenario(name, "sglang", what, args, model=model, act=s_until)


MIX = "the tiny Mixtral (4 experts, top-2, random weights)"
QMOE = "the tiny Qwen2-MoE (4 experts, top-2, a shared expert, random weights)"

SCENARIOS = [
    v("v-mixtral-expert-parallel", f"--enable-expert-parallel on {MIX}, tp 1",
      ["--enable-expert-parallel"], variant("mixtral4", "")),
    v("v-mixtral-all2all-pplx", f"--enable-expert-parallel --all2all-backend pplx on {MIX}",
      ["--enable-expert-parallel", "--all2all-backend", "pplx"], variant("mixtral4", "")),
    v("v-mixtral-cfg-8-experts", f"{MIX} with config.json saying num_local_experts 8 over the "
      "4 experts' weights", [], variant("mixtral4", "mixtral-cfg8", num_local_experts=8)),
    v("v-qwen2moe-topk-over-experts", f"{QMOE} with config.json's num_experts_per_tok 6, more "
      "than its 4 experts", [], variant("qwen2moe4", "qwen2moe-topk6", num_experts_per_tok=6)),
    s("s-enable-eplb-dense", "--enable-eplb (a MoE deployment's expert load balancer) on the "
      "dense tiny Llama", [*SG_TF, "--enable-eplb"]),
    s("s-moe-runner-triton-dense", "--moe-runner-backend triton (a MoE launch's expert kernel "
      "choice) on the dense tiny Llama", [*SG_TF, "--moe-runner-backend", "triton"]),
    s("s-qwen2moe-ep-dispatch-static", f"--ep-dispatch-algorithm static (from a DeepEP "
      f"deployment's launch) on {QMOE}, without its all-to-all backend",
      [*SG_TF, "--ep-dispatch-algorithm", "static"], variant("qwen2moe4", "")),
]
