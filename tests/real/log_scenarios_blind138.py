"""The hundred-and-thirty-eighth batch's scenarios (tests/fixtures/corpus/fresh137): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind138.py OUT

Themes: quantization settings on this CPU host - what a person meets serving a quantized
checkpoint or asking the engine to quantize. Copies of the tiny model (made under the
recorder's work folder, never the cached model) whose config.json carries a quantization_config
the plain bf16 weights beside it do not match or that the engine cannot take: AWQ with 8 bits
(both engines), GPTQ 4-bit with a group_size of 48 that does not divide the layers' input sizes
(256, 512) (both engines), compressed-tensors W4A16 pack-quantized (vLLM) and compressed-tensors
NVFP4 (W4A4 float, a scheme for Blackwell GPUs; vLLM). Flags: vLLM's online shorthand
`--quantization int8_per_channel_weight_only` on a dense model and `--kv-cache-dtype
turboquant_4bit_nc` on CPU; SGLang's `--quantization w8a8_int8` over bf16 weights with
--device cpu, `--quantization mlx_q4` without SGLANG_USE_MLX, `--kv-cache-dtype fp8_e4m3` on CPU
and the `--torchao-config int4wo-128` of older SGLang docs.

Earlier batches already had (not repeated): --quantization awq, fp8, bitsandbytes, gptq,
gptq_marlin, deepspeedfp (vLLM) and awq, bitsandbytes, int3, fp8, awq_marlin (SGLang);
--kv-cache-dtype fp8 (vLLM), nvfp4, mxfp8, int3, fp8_e5m2 (SGLang); config.json with an unknown
quant_method, fp8 serialized over bf16, compressed-tensors with no config groups, block-wise fp8
with odd blocks, a gptq flag over an fp8 config (both engines), transformers' TorchAoConfig and
an mlx-community block (both), HqqConfig (SGLang); an int8 tensor without a config (vLLM);
--safetensors-load-strategy torchao (vLLM).

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm);
vLLM with VLLM_BASE's settings. A run that serves is given two completions and a pause.

Recorded 2026-12-06 in two invocations started at once (raw1: the six vLLM scenarios; raw2: the
six SGLang ones), taking turns with three other helpers' recorders; each scenario once. About
6 minutes of recording (vLLM 14+31+27+29+55+52 s, SGLang 31+13+55+11+59+6 s). 12 kept (final
files dq101-dq112), none dropped. What the engines did: vLLM refuses AWQ with 8 bits while
building its config (`Unsupported num_bits = 8. Supported: 4. For 8-bit AWQ, use Marlin
backend`); GPTQ with group_size 48 in the worker's load_model (`Marlin does not support
group_size = 48. Only group_sizes = [-1, 32, 64, 128] are supported.`); compressed-tensors
NVFP4 in the worker's load_model (`Failed to find a kernel that can implement the NVFP4 linear
layer. Reasons: `, an empty list); it takes a compressed-tensors W4A16 config on CPU
(`Using CPUWNA16LinearKernel`) and dies reading the bf16 shards into it (`AttributeError:
'MergedColumnParallelLinear' object has no attribute 'data'`). It serves with
--quantization int8_per_channel_weight_only (`Quantizing 0 layers of types: ` - the shorthand
covers MoE experts only) and with --kv-cache-dtype turboquant_4bit_nc (a FlashAttention warning,
a KV cache of the same token count as bf16's). SGLang refuses AWQ with 8 bits after `Load weight
begin` (`Currently, only 4-bit weight quantization is supported for AWQ, but got 8 bits.`); does
not know plain `gptq` as a checkpoint method at all (`Unknown quantization method: gptq`, only
gptq_marlin is listed), so the group size is never checked; offers mlx_q4 among --quantization's
choices and then calls it unknown in ModelConfig; takes w8a8_int8 over bf16 weights without a
word, loads, allocates, and dies on its own warmup request in the int8 activation-quantization
Triton kernel (`RuntimeError: 0 active drivers ([]). There should only be one.`); serves an
fp8_e4m3 KV cache (`Using FP8 KV cache but no scaling factors provided. Defaulting to scaling
factors of 1.0.`); and no longer has --torchao-config (`unrecognized arguments`).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, json_edit, linger  # noqa: E402

ROOT = Path("/tmp/blind138")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

AWQ_8BIT = {"quant_method": "awq", "bits": 8, "group_size": 128, "zero_point": True,
            "version": "gemm", "modules_to_not_convert": None}
GPTQ_G48 = {"quant_method": "gptq", "bits": 4, "group_size": 48, "desc_act": False,
            "sym": True, "damp_percent": 0.01, "true_sequential": True,
            "static_groups": False, "checkpoint_format": "gptq"}
CT_W4A16 = {
    "quant_method": "compressed-tensors", "format": "pack-quantized",
    "quantization_status": "compressed", "ignore": ["lm_head"], "kv_cache_scheme": None,
    "config_groups": {"group_0": {
        "targets": ["Linear"], "format": "pack-quantized",
        "weights": {"num_bits": 4, "type": "int", "symmetric": True, "strategy": "group",
                    "group_size": 128, "dynamic": False, "actorder": None,
                    "observer": "minmax"},
        "input_activations": None, "output_activations": None}},
}
CT_NVFP4 = {
    "quant_method": "compressed-tensors", "format": "nvfp4-pack-quantized",
    "quantization_status": "compressed", "ignore": ["lm_head"], "kv_cache_scheme": None,
    "config_groups": {"group_0": {
        "targets": ["Linear"], "format": "nvfp4-pack-quantized",
        "weights": {"num_bits": 4, "type": "float", "symmetric": True,
                    "strategy": "tensor_group", "group_size": 16, "dynamic": False,
                    "observer": "minmax"},
        "input_activations": {"num_bits": 4, "type": "float", "symmetric": True,
                              "strategy": "tensor_group", "group_size": 16,
                              "dynamic": "local", "observer": "minmax"},
        "output_activations": None}},
}


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a pause."""
    ctx.wait_any([READY_LINE], 180)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        linger(ctx, 8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (two completions); a pause."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def v(name: str, what: str, args: list[str], qcfg: dict | None = None) -> Scenario:
    model = json_edit(name, "config.json", quantization_config=qcfg) if qcfg else None
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], model=model, act=v_until)


def s(name: str, what: str, args: list[str], qcfg: dict | None = None,
      env: dict[str, str] | None = None) -> Scenario:
    model = json_edit(name, "config.json", quantization_config=qcfg) if qcfg else None
    return Scenario(name, "sglang", what, [*SG, *args], model=model, env=env or {},
                    act=s_until)


OVER = "over the plain bf16 weights"

SCENARIOS = [
    # vLLM
    v("v-awq-config-8bit", f"config.json quantization_config AWQ with bits 8 (gemm) {OVER}", [],
      AWQ_8BIT),
    v("v-gptq-config-group-48", "config.json quantization_config GPTQ 4-bit with group_size 48, "
      f"which does not divide the layers' input sizes (256, 512), {OVER}", [], GPTQ_G48),
    v("v-ct-w4a16-over-bf16", "config.json quantization_config compressed-tensors W4A16 "
      f"pack-quantized (int4, group 128) {OVER}", [], CT_W4A16),
    v("v-ct-nvfp4-cpu", "config.json quantization_config compressed-tensors NVFP4 (W4A4 "
      f"float, a Blackwell scheme) on the CPU build, {OVER}", [], CT_NVFP4),
    v("v-quant-int8-weight-only", "--quantization int8_per_channel_weight_only (an online "
      "shorthand) on a dense model", ["--quantization", "int8_per_channel_weight_only"]),
    v("v-kv-turboquant-4bit", "--kv-cache-dtype turboquant_4bit_nc on the CPU build",
      ["--kv-cache-dtype", "turboquant_4bit_nc"]),
    # SGLang
    s("s-awq-config-8bit", f"config.json quantization_config AWQ with bits 8 (gemm) {OVER}", [],
      AWQ_8BIT),
    s("s-gptq-config-group-48", "config.json quantization_config GPTQ 4-bit with group_size 48, "
      f"which does not divide the layers' input sizes (256, 512), {OVER}", [], GPTQ_G48),
    s("s-quant-w8a8-int8-cpu", "--quantization w8a8_int8 with --device cpu on the plain bf16 "
      "checkpoint (no int8 weights or scales)", ["--quantization", "w8a8_int8"]),
    s("s-quant-mlx-q4-no-mlx", "--quantization mlx_q4 (Apple MLX on-the-fly 4-bit) on this "
      "Linux CPU host, SGLANG_USE_MLX unset", ["--quantization", "mlx_q4"]),
    s("s-kv-fp8-e4m3-cpu", "--kv-cache-dtype fp8_e4m3 with --device cpu",
      ["--kv-cache-dtype", "fp8_e4m3"]),
    s("s-torchao-config-int4wo", "--torchao-config int4wo-128, as older SGLang docs give it",
      ["--torchao-config", "int4wo-128"]),
]
