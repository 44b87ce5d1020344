"""The two-hundred-and-eightieth batch's scenarios (tests/fixtures/corpus/fresh279): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind280.py OUT

Themes: mixture-of-experts models and expert settings, a new round - what a person meets serving
a MoE model. Tiny MoE checkpoints with random bf16 weights (Mixtral, Qwen2-MoE with a shared expert
and Qwen3-MoE style, 2 layers, hidden 64, 4 experts, 2 per token, the tiny Llama's tokenizer files)
are built with the vLLM environment's transformers and safetensors by /tmp/blind280/make_models.py
(run when the table is loaded and a model is absent), with three broken copies made from their
safetensors. vLLM: a Mixtral whose safetensors lack one expert (layer 0's expert 3); a Qwen3-MoE
whose router (mlp.gate.weight) has 3 rows for 4 experts; a Qwen2-MoE whose config names a shared
expert that the weights lack; config.json's norm_topk_prob the string "false"; --enable-eplb with
an --eplb-config JSON (32 redundant experts) on one CPU rank. SGLang: --moe-a2a-backend mooncake
without the Mooncake package; --moe-runner-backend flashinfer-cutlass (a hyphen for the
underscore); --moe-dense-tp-size 8 (from an 8-GPU DeepSeek launch) at tp 1.

Earlier batches already had (not repeated): Mixtral and Qwen2-MoE served plainly by vLLM, and
Mixtral through SGLang's Transformers backend (101st); --enable-expert-parallel, --all2all-backend pplx / deepep_low_latency, --enable-eplb on
the dense model (110th, 188th); config.json num_local_experts 8 over 4 experts' weights and
num_experts_per_tok 6 over 4 experts in vLLM (188th); SGLang --enable-eplb at ep size 1,
--ep-dispatch-algorithm static, --moe-runner-backend triton and flashinfer_cutlass (valid values)
on the dense model, --moe-a2a-backend deepep, --ep-num-redundant-experts (110th, 188th, 204th);
SGLang --ep-size 2 at tp 1 (76th, 119th; fresh75/bg112).

Recorded 2026-12-08 in four invocations (raw1: the first table's eight scenarios; raw2, raw3,
raw4: one SGLang replacement each, added as earlier ones were dropped), waiting turns for the lock
with other helpers' recorders; each scenario once. About 5 minutes of recording (vLLM 70+36+80+12+9
s, SGLang 13+25+9+30+29+14 s). 8 kept (final files je101-je108). Dropped (removed from SCENARIOS):
s-qwen3moe-ep-size-2 (--ep-size 2 at tp 1 on the tiny Qwen3-MoE: refused before the model is read,
`ValueError: parallel topology is inconsistent (set by override_permanently): tp_size ==
moe_ep_size * moe_dp_size * moe_tp_size` / `1 != 2 * 1 * 0 (= 0)` - the same refusal as the
dense model's --ep-size 2 of fresh75/bg112, a repeat); s-mixtral-topk-over-experts (config.json's
num_experts_per_tok 6 over 4 experts through SGLang's Transformers backend: `Load weight begin`,
then `RuntimeError: No accelerator (CUDA, XPU, HPU, NPU, MUSA, MPS) or platform plugin is
available.` from the backend's `_init_parameters` - the 101st batch's Mixtral log, the fault never
showing); s-mixtral-runner-deep-gemm (--moe-runner-backend deep_gemm on the tiny Mixtral: the same
`No accelerator` error at the same place, the setting never showing).

What the engines did. vLLM serves a Mixtral missing one expert's three tensors and a Qwen2-MoE
missing every shared-expert tensor without a word (`Loading weights took 0.01 seconds`, two
completions answered 200: je101, je103 ready in serving); refuses a router of 3 rows for 4 experts
in weight loading (`AssertionError: Tried to load weights of size torch.Size([3, 64])to a
parameter of size torch.Size([4, 64])`, je102); refuses norm_topk_prob "false" while reading the
config (`StrictDataclassFieldValidationError: Validation error for field 'norm_topk_prob'` /
`TypeError: Field 'norm_topk_prob' expected bool, got str (value: 'false')`, after one retry,
je104); parses the EPLB JSON and refuses EPLB on the CPU platform (`Expert parallelism load
balancing is only supported on CUDA devices or ROCm devices or XPU devices now.`, je105). SGLang
takes --moe-a2a-backend mooncake and dies building the first MoE layer after `Load weight begin`
(`ModuleNotFoundError: No module named 'mooncake'`, then `ImportError: Mooncake EP is not
installed. ...`, je106); refuses the hyphenated runner name in argparse (`invalid choice:
'flashinfer-cutlass'`, je107); and refuses --moe-dense-tp-size 8 in check_server_args
(`AssertionError: moe_dense_tp_size only supports None, 1, or tp_size currently`, je108). Crashed:
je102 (weight_loading), je104, je105, je107, je108 (launch), je106 (weight_loading); ready in
serving: je101, je103; none hung.
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

ROOT = Path("/tmp/blind280")
MODELS = ROOT / "models"
SG_READY = "The server is fired up and ready to roll!"
SG_TF = ["--device", "cpu", "--model-impl", "transformers"]
BUILT = ("mixtral4", "qwen2moe4", "qwen3moe4", "mixtral-no-expert3", "qwen3moe-gate3",
         "qwen2moe-no-shared")


def _setup() -> None:
    """Build the tiny MoE checkpoints (and their broken copies) with /tmp/blind280/make_models.py,
    run by the vLLM environment's python, when any is absent."""
    MODELS.mkdir(parents=True, exist_ok=True)
    if all((MODELS / n / "config.json").is_file() for n in BUILT):
        return
    subprocess.run([str(VLLM.python), str(ROOT / "make_models.py")], check=True)


_setup()


def model(base: str, name: str = "", **changes: object) -> Callable[[Path], Path]:
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
    """Until the run ends; if it serves, two plain completions and a short pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two plain completions); a short pause."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        time.sleep(8)


def v(name: str, what: str, args: list[str], mdl: Callable[[Path], Path]) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], model=mdl, act=v_until)


def s(name: str, what: str, args: list[str], mdl: Callable[[Path], Path]) -> Scenario:
    return Scenario(name, "sglang", what, [*SG_TF, *args], model=mdl, act=s_until)


MIX = "the tiny Mixtral (hidden 64, 4 experts, top-2, random weights)"
Q2 = "the tiny Qwen2-MoE (hidden 64, 4 experts, top-2, a shared expert, random weights)"
Q3 = "the tiny Qwen3-MoE (hidden 64, 4 experts, top-2, random weights)"
EPLB_JSON = '{"num_redundant_experts": 32, "window_size": 1000, "log_balancedness": true}'

SCENARIOS = [
    v("v-mixtral-expert3-missing", f"{MIX} whose safetensors lack layer 0's expert 3 "
      "(w1, w2, w3 removed)", [], model("mixtral-no-expert3")),
    v("v-qwen3moe-gate-3-rows", f"{Q3} whose layer 1 router (mlp.gate.weight) has 3 rows for "
      "its 4 experts", [], model("qwen3moe-gate3")),
    v("v-qwen2moe-shared-expert-absent", f"{Q2} config naming a shared expert "
      "(shared_expert_intermediate_size 128) but the safetensors lack every shared_expert "
      "tensor", [], model("qwen2moe-no-shared")),
    v("v-qwen3moe-norm-topk-string", f"{Q3} with config.json's norm_topk_prob the string "
      "\"false\" instead of a boolean", [],
      model("qwen3moe4", "qwen3moe-normtopk-str", norm_topk_prob="false")),
    v("v-qwen3moe-eplb-config", f"--enable-expert-parallel --enable-eplb --eplb-config "
      f"'{EPLB_JSON}' (a DeepSeek recipe's EPLB JSON) on {Q3}, one CPU rank",
      ["--enable-expert-parallel", "--enable-eplb", "--eplb-config", EPLB_JSON],
      model("qwen3moe4")),
    s("s-mixtral-a2a-mooncake", f"--moe-a2a-backend mooncake (an expert all-to-all backend) "
      f"on {MIX} on a CPU host", ["--moe-a2a-backend", "mooncake"], model("mixtral4")),
    s("s-qwen2moe-runner-typo", f"--moe-runner-backend flashinfer-cutlass (hyphen for the "
      f"underscore) on {Q2}", ["--moe-runner-backend", "flashinfer-cutlass"],
      model("qwen2moe4")),
    s("s-qwen2moe-moe-dense-tp-8", f"--moe-dense-tp-size 8 (from an 8-GPU DeepSeek launch) on "
      f"{Q2} at tp 1", ["--moe-dense-tp-size", "8"], model("qwen2moe4")),
]
