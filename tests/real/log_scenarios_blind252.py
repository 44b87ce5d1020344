"""The two-hundred-and-fifty-second batch's scenarios (tests/fixtures/corpus/fresh251): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind252.py OUT

Themes: quantized checkpoints and quantization flags on this CPU host, a new round - real
packed checkpoints this time, not quantization_config blocks over plain bf16 weights. Copies of
the tiny model made under /tmp/blind252/models by /tmp/blind252/make.py (MAKE_PY below, run with
vLLM's interpreter when this table is loaded): the projections quantized and packed by hand
(GPTQ: qweight int32 [in/8, out], qzeros, float16 scales, g_idx; AWQ: qweight int32 [in, out/8];
compressed-tensors int8 with weight_scale; float8_e4m3fn), the rest float16, one
model.safetensors, config dtype float16, and a quantization_config written by hand. vLLM: a GPTQ
pack of 4 bits whose config says bits 8; AWQ with its scales saved float32; AWQ whose quant_method
is written "AWQ" in capitals; an FP8 checkpoint (dynamic activations) saved without its
weight_scale tensors. SGLang (--device cpu --model-impl transformers): GPTQ with desc_act true
and no g_idx tensors; a compressed-tensors W8A8 int8 checkpoint (channel-wise weights, dynamic
per-token activations); --quantization awq given for a well-formed GPTQ checkpoint. Where the
server comes up it is sent a greedy, a sampled and a plain completion.

Earlier batches already had (not repeated): quantization_config blocks over plain bf16
weights - an unknown quant_method (67th, both engines), fp8 serialized, compressed-tensors with
no config groups, a gptq flag over an fp8 config (90th, both), AWQ with 8 bits, GPTQ with
group_size 48, compressed-tensors W4A16 pack-quantized and NVFP4 (138th), an mlx-community
block, TorchAoConfig and HqqConfig (112th), ModelOpt's hf_quant_config.json left beside bf16
weights (161st); flags on the unquantized model - vLLM --quantization fp8, bitsandbytes, gptq,
gptq_marlin, deepspeedfp, int8_per_channel_weight_only, SGLang awq, bitsandbytes, int3, fp8,
awq_marlin, w8a8_int8, mlx_q4, --torchao-config int4wo-128 (69th, 72nd, 75th, 83rd, 98th,
110th, 138th); KV-cache dtypes (fp8, fp8_inc, fp8_e4m3, fp8_e5m2, nvfp4, mxfp8, turboquant;
138th, 250th); fp8, int8 and int64 tensors with no quantization config (71st, 192nd);
SGLANG_CPU_QUANTIZATION=1 (250th).

Recorded 2026-12-07 in one invocation (raw1: all seven scenarios), waiting turns with other
helpers' recorders for the shared lock; each scenario once. About 5.6 minutes of recording
(vLLM 36+74+77+85 s, SGLang 17+32+16 s). 7 kept (final files ic101-ic107), none dropped: three
faults never showed in vLLM (float32 AWQ scales, "AWQ" in capitals, FP8 without weight_scale:
ready) and one was hidden in SGLang behind the method's refusal (desc_act without g_idx: SGLang
refuses gptq itself); those logs are kept as fair logs of the ground.

What the engines did. vLLM: the GPTQ config with bits 8 is refused while the layers are built
(`ValueError: Marlin does not support weight_bits = uint8b128. Only types = [ScalarType.uint4b8]
are supported`, `Engine core initialization failed`, exit 1) before any tensor is read; the AWQ
checkpoint with float32 scales loads with four `Attempted to load weight ... scales with dtype
torch.float32 into parameter with dtype torch.float16` warnings (CPUWNA16LinearKernel) and
serves; "AWQ" in capitals is taken without a word and serves; the FP8 checkpoint without
weight_scale tensors loads silently (PerTensorTorchFP8ScaledMMLinearKernel) and serves. SGLang:
the GPTQ checkpoint is refused while the arguments are resolved (`ValueError: Unknown
quantization method: gptq. Must be one of [... 'gptq_marlin', ...]`, exit 1), so its missing
g_idx never matters; the compressed-tensors W8A8 int8 checkpoint dies in the scheduler after
`Load weight begin` (`ValueError: Unable to find matching target for
model.layers.0.self_attn.q_proj in the compressed-tensors config.`, then `Received sigquit from a
child process`); --quantization awq over the GPTQ checkpoint is refused at launch (`Quantization
method specified in the model config (gptq) does not match the quantization method specified in
the `quantization` argument (awq).`). Crashed at launch: ic105, ic107; crashed in weight
loading: ic101, ic106; ready in serving: ic102, ic103, ic104; none hung.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, VLLM  # noqa: E402

ROOT = Path("/tmp/blind252")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
V_AUTO = [a for a in VLLM_BASE if a not in ("--dtype", "bfloat16")] + ["--dtype", "auto"]

# Run with vLLM's interpreter (torch, safetensors): quantized copies of the tiny model, the
# packed tensors and quantization_config written by hand.
MAKE_PY = r'''
import json, shutil, sys
from pathlib import Path
import torch
from safetensors.torch import load_file, save_file

src, root = Path(sys.argv[1]), Path(sys.argv[2])
LINEAR = ("q_proj", "k_proj", "v_proj", "o_proj", "gate_proj", "up_proj", "down_proj")
torch.manual_seed(0)

def weights():
    t = {}
    for shard in sorted(src.glob("model-*.safetensors")):
        t.update(load_file(str(shard)))
    return t

def is_linear(k):
    return k.endswith(".weight") and any(f".{m}." in k for m in LINEAR)

def write(name, tensors, qcfg):
    d = root / name
    if d.exists():
        shutil.rmtree(d)
    d.mkdir(parents=True)
    for f in src.iterdir():
        if f.name.startswith("model") or f.name in ("config.json", ".complete"):
            continue
        shutil.copy(f, d / f.name)
    cfg = json.loads((src / "config.json").read_text())
    cfg["dtype"] = "float16"
    if qcfg is not None:
        cfg["quantization_config"] = qcfg
    (d / "config.json").write_text(json.dumps(cfg, indent=2))
    save_file({k: v.contiguous() for k, v in tensors.items()}, str(d / "model.safetensors"),
              metadata={"format": "pt"})

def pack8(q, dim):
    """Eight 4-bit values into one int32 along ``dim`` (GPTQ: rows; AWQ: columns)."""
    q = q.to(torch.int32)
    if dim == 0:
        q = q.reshape(q.shape[0] // 8, 8, q.shape[1])
        out = torch.zeros(q.shape[0], q.shape[2], dtype=torch.int32)
        for i in range(8):
            out |= q[:, i, :] << (4 * i)
    else:
        q = q.reshape(q.shape[0], q.shape[1] // 8, 8)
        out = torch.zeros(q.shape[0], q.shape[1], dtype=torch.int32)
        for i in range(8):
            out |= q[:, :, i] << (4 * i)
    return out

def quant4(w, group):
    """w [out, in] -> 4-bit codes [in, out], scales [in/group, out] (zero point 8)."""
    wt = w.float().t()                                   # [in, out]
    g = wt.reshape(wt.shape[0] // group, group, wt.shape[1])
    scales = (g.abs().amax(dim=1) / 7).clamp(min=1e-6)  # [in/group, out]
    q = (g / scales[:, None, :]).round().clamp(-8, 7) + 8
    return q.reshape(wt.shape).to(torch.int32), scales

def gptq(group=128, g_idx=True):
    out = {}
    for k, v in weights().items():
        if not is_linear(k):
            out[k] = v.to(torch.float16)
            continue
        base = k[: -len(".weight")]
        q, s = quant4(v, group)
        n_in, n_out = q.shape
        out[base + ".qweight"] = pack8(q, 0)
        out[base + ".qzeros"] = pack8(torch.full((n_in // group, n_out), 7), 1)
        out[base + ".scales"] = s.to(torch.float16)
        if g_idx:
            out[base + ".g_idx"] = torch.arange(n_in, dtype=torch.int32) // group
    return out

def awq(group=128, scale_dtype=torch.float16):
    out = {}
    for k, v in weights().items():
        if not is_linear(k):
            out[k] = v.to(torch.float16)
            continue
        base = k[: -len(".weight")]
        q, s = quant4(v, group)
        n_in, n_out = q.shape
        out[base + ".qweight"] = pack8(q, 1)
        out[base + ".qzeros"] = pack8(torch.full((n_in // group, n_out), 8), 1)
        out[base + ".scales"] = s.to(scale_dtype)
    return out

def gptq_cfg(**kw):
    return {"quant_method": "gptq", "bits": 4, "group_size": 128, "desc_act": False,
            "sym": True, "true_sequential": True, "damp_percent": 0.01, **kw}

def awq_cfg(**kw):
    return {"quant_method": "awq", "bits": 4, "group_size": 128, "zero_point": True,
            "version": "gemm", **kw}

# GPTQ packed at 4 bits, config says 8 bits (an edited config of a re-quantization)
write("gptq-bits8-pack4", gptq(), gptq_cfg(bits=8))
# AWQ whose scales were saved float32 (the export skipped the .half())
write("awq-scales-fp32", awq(scale_dtype=torch.float32), awq_cfg())
# AWQ whose quant_method is written in capitals
write("awq-method-upper", awq(), awq_cfg(quant_method="AWQ"))
# FP8 (per-tensor, dynamic activations): float8_e4m3fn weights, weight_scale tensors left out
fp8 = {}
for k, v in weights().items():
    fp8[k] = v.to(torch.float8_e4m3fn) if is_linear(k) else v.to(torch.float16)
write("fp8-no-weight-scale", fp8, {"quant_method": "fp8", "activation_scheme": "dynamic"})
# GPTQ with act-order (desc_act true) in the config, the g_idx tensors not saved
write("gptq-desc-act-no-gidx", gptq(g_idx=False), gptq_cfg(desc_act=True))
# compressed-tensors W8A8 int8 (channel-wise weights, dynamic per-token activations)
ct = {}
for k, v in weights().items():
    if is_linear(k):
        w = v.float()
        s = (w.abs().amax(dim=1, keepdim=True) / 127).clamp(min=1e-8)
        ct[k] = (w / s).round().clamp(-128, 127).to(torch.int8)
        ct[k[: -len(".weight")] + ".weight_scale"] = s.to(torch.float16)
    else:
        ct[k] = v.to(torch.float16)
write("ct-w8a8-int8", ct, {
    "quant_method": "compressed-tensors", "format": "int-quantized",
    "quantization_status": "compressed", "ignore": ["lm_head"],
    "config_groups": {"group_0": {
        "targets": ["Linear"],
        "weights": {"num_bits": 8, "type": "int", "symmetric": True, "strategy": "channel",
                    "dynamic": False},
        "input_activations": {"num_bits": 8, "type": "int", "symmetric": True,
                              "strategy": "token", "dynamic": True}}}})
# a plain, well-formed GPTQ checkpoint (for the --quantization awq flag)
write("gptq-plain", gptq(), gptq_cfg())
(root / ".made").write_text("ok\n")
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    script = ROOT / "make.py"
    if not script.exists():
        script.write_text(MAKE_PY)
    if not (ROOT / ".made").exists():
        subprocess.run([str(VLLM.python), str(script), str(LLAMA.dir), str(ROOT / "models")],
                       check=True, capture_output=True)


_setup()


def made(name: str):
    def model(work: Path) -> Path:
        return ROOT / "models" / name
    return model


def ends_or_serves(ctx: Ctx) -> None:
    """Let the run end by itself; if it serves, a greedy, a sampled and a plain completion."""
    found = ctx.wait_any([READY_LINE], 240)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        if "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 90)
        name = ctx.model_name()
        ctx.post("/v1/completions", {"model": name, "prompt": "The quick brown fox",
                                     "max_tokens": 24, "temperature": 0.0})
        ctx.post("/v1/completions", {"model": name, "prompt": "Once upon a time",
                                     "max_tokens": 24, "temperature": 0.8, "top_p": 0.9,
                                     "seed": 7})
        ctx.complete(1, max_tokens=24)
        time.sleep(12)
    else:
        linger(ctx, 20)


def v(name: str, what: str, args: list[str], **kw: object) -> Scenario:
    return Scenario(name, "vllm", what, args, act=ends_or_serves, **kw)  # type: ignore[arg-type]


def s(name: str, what: str, args: list[str], **kw: object) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=ends_or_serves,
                    **kw)  # type: ignore[arg-type]


SCENARIOS = [
    v("v-gptq-bits8-pack4", "a GPTQ checkpoint packed at 4 bits (qweight int32 [in/8, out]) "
      "whose config.json quantization_config says bits 8", V_AUTO,
      model=made("gptq-bits8-pack4")),
    v("v-awq-scales-fp32", "an AWQ 4-bit checkpoint whose scales tensors were saved float32 "
      "(the rest float16)", V_AUTO, model=made("awq-scales-fp32")),
    v("v-awq-method-upper", "an AWQ 4-bit checkpoint whose quantization_config says "
      "quant_method \"AWQ\" (capitals)", V_AUTO, model=made("awq-method-upper")),
    v("v-fp8-no-weight-scale", "an FP8 checkpoint (float8_e4m3fn projections, quant_method fp8, "
      "dynamic activations) saved without its weight_scale tensors", V_AUTO,
      model=made("fp8-no-weight-scale")),
    s("s-gptq-desc-act-no-gidx", "a GPTQ 4-bit checkpoint whose config says desc_act true, "
      "saved without the g_idx tensors", [], model=made("gptq-desc-act-no-gidx")),
    s("s-ct-w8a8-int8", "a compressed-tensors W8A8 int8 checkpoint (int8 weights with "
      "channel-wise weight_scale, dynamic per-token activations) on the CPU build", [],
      model=made("ct-w8a8-int8")),
    s("s-awq-flag-on-gptq", "--quantization awq given for a well-formed GPTQ 4-bit checkpoint",
      ["--quantization", "awq"], model=made("gptq-plain")),
]
