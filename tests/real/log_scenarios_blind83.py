"""The eighty-third batch's scenarios (tests/fixtures/corpus/fresh82): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind83.py OUT

Broken model copies go to OUT/.work.
"""

from __future__ import annotations

import resource
import signal
import struct
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    child_signal_when,
    copy_model,
    linger,
    sg_until_exit,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]


def shard_header_huge(work: Path) -> Path:
    """Shard 1's 8-byte header length rewritten to 2**40 (a bit flip in a length field)."""
    d = copy_model(work, "shard-header-huge")
    f = sorted(d.glob("model-*.safetensors"))[0]
    raw = f.read_bytes()
    f.write_bytes(struct.pack("<Q", 1 << 40) + raw[8:])
    return d


def as_squeeze_core_serving(ctx: Ctx) -> None:
    """Two completions served, then the EngineCore's address-space limit cut to the size it has
    now (prlimit on the running process, as a supervisor tightening limits would); more
    requests with longer prompts."""
    if up(ctx, 240):
        ctx.complete(2)
        for p in ctx.children("EngineCore")[-1:]:
            try:
                vms = p.memory_info().vms
                p.rlimit(resource.RLIMIT_AS, (vms, vms))
            except Exception:
                pass
        time.sleep(1)
        name = ctx.model_name()
        for _i in range(3):
            ctx.post("/v1/completions", {"model": name, "prompt": "the quick brown fox " * 40,
                                         "max_tokens": 48})
        linger(ctx, 20)


SCENARIOS = [
    # vLLM
    Scenario("v-mm-kwargs-json-cut", "vllm", "--mm-processor-kwargs JSON cut short",
             [*BASE, "--mm-processor-kwargs", '{"num_crops": 4'], act=until_exit),
    Scenario("v-uvicorn-log-level-bogus", "vllm", "--uvicorn-log-level verbose (not a level)",
             [*BASE, "--uvicorn-log-level", "verbose"], act=until_exit),
    Scenario("v-swap-space-text", "vllm", "--swap-space lots", [*BASE, "--swap-space", "lots"],
             act=until_exit),
    Scenario("v-logging-stream-bogus", "vllm", "VLLM_LOGGING_STREAM=ext://sys.nowhere (a stream "
             "that does not exist)", BASE, env={"VLLM_LOGGING_STREAM": "ext://sys.nowhere"},
             act=until_exit),
    Scenario("v-msgpack-threshold-text", "vllm", "VLLM_MSGPACK_ZERO_COPY_THRESHOLD=big (not a "
             "number)", BASE, env={"VLLM_MSGPACK_ZERO_COPY_THRESHOLD": "big"}, act=until_exit),
    Scenario("v-shard-header-huge", "vllm", "shard 1's safetensors header length field set to "
             "2**40", BASE, model=shard_header_huge, act=until_exit),
    Scenario("v-term-core-kvcache", "vllm", "SIGTERM to the EngineCore process 0.3 s after it "
             "reports its KV cache size", BASE,
             act=child_signal_when("EngineCore", ["CPU KV cache size"], signal.SIGTERM, 0.3, 45)),
    Scenario("v-usr2-core-warmup", "vllm", "SIGUSR2 (default action: terminate) to the "
             "EngineCore process 1 s into its compile warm-up", BASE,
             act=child_signal_when("EngineCore", ["Warming up model for the"], signal.SIGUSR2,
                                   1.0, 45)),
    Scenario("v-as-squeeze-core-serving", "vllm", "two completions served, then the EngineCore's "
             "address-space rlimit cut to its current size; three longer requests", BASE,
             act=as_squeeze_core_serving),
    # SGLang
    Scenario("s-chunked-prefill-text", "sglang", "--chunked-prefill-size big",
             [*SG, "--chunked-prefill-size", "big"], act=sg_until_exit),
    Scenario("s-schedule-conservativeness-text", "sglang", "--schedule-conservativeness high",
             [*SG, "--schedule-conservativeness", "high"], act=sg_until_exit),
    Scenario("s-tokenizer-mode-bogus", "sglang", "--tokenizer-mode fastest (not a mode)",
             [*SG, "--tokenizer-mode", "fastest"], act=sg_until_exit),
    Scenario("s-quantization-bogus", "sglang", "--quantization int3 (no such method)",
             [*SG, "--quantization", "int3"], act=sg_until_exit),
    Scenario("s-modelscope-env", "sglang", "SGLANG_USE_MODELSCOPE=true (modelscope not "
             "installed)", SG, env={"SGLANG_USE_MODELSCOPE": "true"}, act=sg_until_exit),
    Scenario("s-gpu-id-step-0", "sglang", "--gpu-id-step 0", [*SG, "--gpu-id-step", "0"],
             act=sg_until_exit),
    Scenario("s-hup-scheduler-init", "sglang", "SIGHUP (default action: terminate) to the "
             "scheduler subprocess 0.2 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGHUP, 0.2, 60)),
    Scenario("s-ill-scheduler-init", "sglang", "SIGILL (default action: core dump) to the "
             "scheduler subprocess 0.2 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGILL, 0.2, 60)),
    Scenario("s-trap-detokenizer-init", "sglang", "SIGTRAP (default action: core dump) to the "
             "detokenizer subprocess 0.2 s after it names itself", SG,
             act=child_signal_when("sglang::detokenizer", None, signal.SIGTRAP, 0.2, 60)),
]


# --- second round (more faults; the first round's --swap-space proved a removed flag) -----------

def kv_heads_over(name: str):
    def make(work: Path) -> Path:
        import json
        d = copy_model(work, name)
        f = d / "config.json"
        cfg = json.loads(f.read_text())
        cfg["num_key_value_heads"] = 8
        f.write_text(json.dumps(cfg, indent=2))
        return d
    return make


SCENARIOS += [
    Scenario("v-environ-typo-strict", "vllm", "VLLM_KVCACHE_SPACE=4 (a misspelt variable) with "
             "--fail-on-environ-validation", [*BASE, "--fail-on-environ-validation"],
             env={"VLLM_KVCACHE_SPACE": "4"}, act=until_exit),
    Scenario("v-shutdown-timeout-text", "vllm", "--shutdown-timeout soon",
             [*BASE, "--shutdown-timeout", "soon"], act=until_exit),
    Scenario("v-kv-heads-over", "vllm", "config.json num_key_value_heads 8, more than its 4 "
             "attention heads", BASE, model=kv_heads_over("kv-heads-over-v"), act=until_exit),
    Scenario("s-kv-heads-over", "sglang", "config.json num_key_value_heads 8, more than its 4 "
             "attention heads", SG, model=kv_heads_over("kv-heads-over-s"), act=sg_until_exit),
    Scenario("s-stream-interval-0", "sglang", "--stream-interval 0",
             [*SG, "--stream-interval", "0"], act=sg_until_exit),
    Scenario("s-mem-fraction-zero", "sglang", "--mem-fraction-static 0",
             [*SG, "--mem-fraction-static", "0"], act=sg_until_exit),
    Scenario("s-log-exceeded-text", "sglang", "SGLANG_LOG_REQUEST_EXCEEDED_MS=soon (not a "
             "number)", SG, env={"SGLANG_LOG_REQUEST_EXCEEDED_MS": "soon"}, act=sg_until_exit),
]


# --- third round (the EngineCore's squeeze was silent: the model runs in the Worker process) -----

def as_squeeze_worker_serving(ctx: Ctx) -> None:
    """Two completions served, then the Worker's address-space limit cut to its current size;
    three longer requests."""
    if up(ctx, 240):
        ctx.complete(2)
        for p in ctx.children("Worker")[-1:] or ctx.children("EngineCore")[-1:]:
            try:
                vms = p.memory_info().vms
                p.rlimit(resource.RLIMIT_AS, (vms, vms))
            except Exception:
                pass
        time.sleep(1)
        name = ctx.model_name()
        for _i in range(3):
            ctx.post("/v1/completions", {"model": name, "prompt": "the quick brown fox " * 40,
                                         "max_tokens": 48})
        linger(ctx, 20)


SCENARIOS += [
    Scenario("v-as-squeeze-worker-serving", "vllm", "two completions served, then the worker "
             "process's address-space rlimit cut to its current size; three longer requests",
             BASE, act=as_squeeze_worker_serving),
]


# --- fourth round (SGLang: s-modelscope-env, s-kv-heads-over, s-hup-scheduler-init and
# s-trap-detokenizer-init never showed; the stock failure came first) ---------------------------

SCENARIOS += [
    Scenario("s-metrics-port-text", "sglang", "--enable-metrics --metrics-port eighty",
             [*SG, "--enable-metrics", "--metrics-port", "eighty"], act=sg_until_exit),
    Scenario("s-load-balance-bogus", "sglang", "--load-balance-method fastest (not a method)",
             [*SG, "--load-balance-method", "fastest"], act=sg_until_exit),
    Scenario("s-monokernel-amd-cpu", "sglang", "--monokernel-backend amd on a CPU host",
             [*SG, "--monokernel-backend", "amd"], act=sg_until_exit),
    Scenario("s-dp-attention-dp1", "sglang", "--enable-dp-attention with a data-parallel size "
             "of 1", [*SG, "--enable-dp-attention"], act=sg_until_exit),
]

# Recorded but left out of the batch: v-swap-space-text (this vLLM no longer has --swap-space:
# `unrecognized arguments`, the corpus's removed-flag again); s-modelscope-env, s-kv-heads-over,
# s-stream-interval-0, s-mem-fraction-zero, s-dp-attention-dp1, s-hup-scheduler-init and
# s-trap-detokenizer-init (nothing showed before the stock "No module named 'vllm'" after
# "Load weight begin"); s-log-exceeded-text (only a UserWarning, then the stock failure).
# Kept though silent (labelled for what the log shows, ready in serving): v-as-squeeze-core-serving.
