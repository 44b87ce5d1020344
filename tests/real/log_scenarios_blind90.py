"""The ninetieth batch's scenarios (tests/fixtures/corpus/fresh89): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind90.py OUT

Themes: two settings that disagree, less-used multi-process layouts (API server count, headless,
data-parallel locals, PD disaggregation), quantization configs over plain bf16 weights, a time
setting of the executor, and a development endpoint hit while serving.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    json_edit,
    linger,
    serve_short,
    sg_until_exit,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]

FP8_QCFG = {"quant_method": "fp8", "activation_scheme": "dynamic"}
fp8_serialized = json_edit("config-fp8-serialized", "config.json", quantization_config=FP8_QCFG)
fp8_cfg_for_flag = json_edit("quant-flag-vs-config", "config.json", quantization_config=FP8_QCFG)
ct_empty = json_edit("compressed-tensors-empty", "config.json",
                     quantization_config={"quant_method": "compressed-tensors",
                                          "format": "float-quantized", "config_groups": {}})


def collective_rpc_bogus(ctx: Ctx) -> None:
    """Served two completions, then the dev endpoint /collective_rpc asked to run a method the
    worker lacks; one completion after."""
    if up(ctx, 240):
        ctx.complete(2)
        ctx.post("/collective_rpc", {"method": "no_such_method_on_worker"})
        time.sleep(2)
        ctx.complete(1)
        linger(ctx, 15)


def headless_wait(ctx: Ctx) -> None:
    """A headless engine has no API server: let it run 100 s (it ends by itself or waits)."""
    linger(ctx, 100)


SCENARIOS = [
    # vLLM
    Scenario("v-chunked-off-batched-small", "vllm", "chunked prefill turned off while the "
             "per-step token budget is below the model length (two settings from two guides)",
             [*BASE, "--no-enable-chunked-prefill", "--max-num-batched-tokens", "64"],
             act=until_exit),
    Scenario("v-quant-flag-vs-config", "vllm", "--quantization gptq given for a checkpoint whose "
             "config.json declares fp8 quantization", [*BASE, "--quantization", "gptq"],
             model=fp8_cfg_for_flag, act=until_exit),
    Scenario("v-config-fp8-serialized", "vllm", "config.json declares an fp8 quantization_config "
             "(dynamic activations) over plain bf16 weights (a config copied from the fp8 "
             "release)", BASE, model=fp8_serialized, act=until_exit),
    Scenario("v-compressed-tensors-empty", "vllm", "config.json declares a compressed-tensors "
             "quantization_config with no config groups over plain bf16 weights", BASE,
             model=ct_empty, act=until_exit),
    Scenario("v-dp-local-over-size", "vllm", "--data-parallel-size-local 2 with "
             "--data-parallel-size 1 (local ranks above the total)",
             [*BASE, "--data-parallel-size", "1", "--data-parallel-size-local", "2"],
             act=until_exit),
    Scenario("v-headless-single", "vllm", "--headless on a single-node launch with no "
             "front-end node (the engine started without any API server)",
             [*BASE, "--headless"], act=headless_wait),
    Scenario("v-api-server-count-2", "vllm", "--api-server-count 2 (two API server processes "
             "in front of one engine), then a few completions", [*BASE, "--api-server-count", "2"],
             act=serve_short),
    Scenario("v-execute-timeout-0", "vllm", "VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=0 (a timeout "
             "meant to be off, set to zero), then a few completions", BASE,
             env={"VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS": "0"}, act=serve_short),
    Scenario("v-collective-rpc-bogus", "vllm", "VLLM_SERVER_DEV_MODE=1; served, then the dev "
             "endpoint /collective_rpc asked for a method the worker lacks", BASE,
             env={"VLLM_SERVER_DEV_MODE": "1"}, act=collective_rpc_bogus),
    # SGLang
    Scenario("s-hicache-no-radix", "sglang", "--enable-hierarchical-cache together with "
             "--disable-radix-cache", [*SG, "--enable-hierarchical-cache", "--disable-radix-cache"],
             act=sg_until_exit),
    Scenario("s-quant-flag-vs-config", "sglang", "--quantization gptq given for a checkpoint "
             "whose config.json declares fp8 quantization", [*SG, "--quantization", "gptq"],
             model=fp8_cfg_for_flag, act=sg_until_exit),
    Scenario("s-config-fp8-serialized", "sglang", "config.json declares an fp8 "
             "quantization_config (dynamic activations) over plain bf16 weights", SG,
             model=fp8_serialized, act=sg_until_exit),
    Scenario("s-compressed-tensors-empty", "sglang", "config.json declares a compressed-tensors "
             "quantization_config with no config groups over plain bf16 weights", SG,
             model=ct_empty, act=sg_until_exit),
    Scenario("s-dp-attention-tp1", "sglang", "--enable-dp-attention with --dp-size 2 and "
             "--tp-size 1", [*SG, "--enable-dp-attention", "--dp-size", "2", "--tp-size", "1"],
             act=sg_until_exit),
    Scenario("s-dp-lm-head-alone", "sglang", "--enable-dp-lm-head without data-parallel "
             "attention", [*SG, "--enable-dp-lm-head"], act=sg_until_exit),
    Scenario("s-pd-decode-nixl", "sglang", "--disaggregation-mode decode with the nixl "
             "transfer backend, no prefill server anywhere",
             [*SG, "--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "nixl"],
             act=sg_until_exit),
    Scenario("s-tokenizer-workers-2", "sglang", "--tokenizer-worker-num 2 (two tokenizer "
             "processes in front of the scheduler)", [*SG, "--tokenizer-worker-num", "2"],
             act=sg_until_exit),
]

SCENARIOS += [
    Scenario("s-tlru-threshold-below", "sglang", "--radix-eviction-policy tlru with a policy "
             "config whose threshold is below its next-prompt estimate",
             [*SG, "--radix-eviction-policy", "tlru", "--radix-eviction-policy-config",
              '{"threshold": 10, "next_prompt_estimate": 50}'], act=sg_until_exit),
    Scenario("s-retraction-backup-no-pd", "sglang", "--disaggregation-decode-retraction-backup "
             "host_pool on a plain (not PD decode) server",
             [*SG, "--disaggregation-decode-retraction-backup", "host_pool"], act=sg_until_exit),
]
SCENARIOS += [
    Scenario("v-partial-prefills-no-chunked", "vllm", "--max-num-partial-prefills 2 with "
             "chunked prefill turned off", [*BASE, "--no-enable-chunked-prefill",
                                            "--max-num-batched-tokens", "512",
                                            "--max-num-partial-prefills", "2"], act=until_exit),
]
SCENARIOS += [
    Scenario("s-prefill-dequant-no-nvfp4", "sglang", "--prefill-kv-cache-dequant-dtype "
             "fp8_e4m3 with the default (not nvfp4) KV cache dtype",
             [*SG, "--prefill-kv-cache-dequant-dtype", "fp8_e4m3"], act=sg_until_exit),
    Scenario("s-kv-mxfp8-cpu", "sglang", "--kv-cache-dtype mxfp8 (a Blackwell-only KV cache "
             "format) on a CPU host", [*SG, "--kv-cache-dtype", "mxfp8"], act=sg_until_exit),
]
fp8_block_odd = json_edit("fp8-block-odd", "config.json",
                          quantization_config={"quant_method": "fp8", "activation_scheme": "dynamic",
                                               "fmt": "e4m3", "weight_block_size": [96, 96]})
SCENARIOS += [
    Scenario("v-fp8-block-odd", "vllm", "config.json declares block-wise fp8 quantization with "
             "96x96 blocks, which do not divide the layers' sizes, over plain bf16 weights",
             BASE, model=fp8_block_odd, act=until_exit),
    Scenario("s-fp8-block-odd", "sglang", "config.json declares block-wise fp8 quantization "
             "with 96x96 blocks, which do not divide the layers' sizes, over plain bf16 weights",
             SG, model=fp8_block_odd, act=sg_until_exit),
]


def pause_never_resumed(ctx: Ctx) -> None:
    """Served two completions, then the dev route /pause?mode=keep (an RL trainer's weight
    update that never sends /resume); two more completions wait behind it."""
    import threading
    if up(ctx, 240):
        ctx.complete(2)
        ctx.post("/pause?mode=keep", {})
        ts = [threading.Thread(target=ctx.complete, args=(1,), daemon=True) for _ in range(2)]
        for t in ts:
            t.start()
        linger(ctx, 30)


SCENARIOS += [
    Scenario("v-pause-never-resumed", "vllm", "VLLM_SERVER_DEV_MODE=1; served, then the dev "
             "route that freezes generation (mode keep), never resumed, with two completions "
             "sent after it", BASE, env={"VLLM_SERVER_DEV_MODE": "1"}, act=pause_never_resumed),
]

# Recorded once each (2026-12-05). Kept, as final files bu101-bu120: eleven vLLM scenarios (six
# silent or survived, labelled for what the log shows: v-headless-single - ready, no traffic -,
# v-api-server-count-2, v-config-fp8-serialized, v-compressed-tensors-empty,
# v-collective-rpc-bogus, v-pause-never-resumed, all ready in serving) and nine SGLang ones.
# Dropped: v-partial-prefills-no-chunked (the flag no longer exists in 0.32: argparse's
# `unrecognized arguments`, a removed flag the corpus has), and, as the fault never showed (each
# run died of the host's `No module named 'vllm'` after `Load weight begin` with no trace of it):
# s-compressed-tensors-empty, s-dp-lm-head-alone, s-pd-decode-nixl, s-tokenizer-workers-2.
