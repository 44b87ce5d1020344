"""The eighty-fourth batch's scenarios (tests/fixtures/corpus/fresh83): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind84.py OUT

Broken model copies go to OUT/.work.
"""

from __future__ import annotations

import json
import signal
import sys
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


def tokenizer_json_list(name: str):
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        (d / "tokenizer.json").write_text("[]\n")
        return d
    return make


def config_edit(name: str, **changes: object):
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "config.json"
        f.write_text(json.dumps({**json.loads(f.read_text()), **changes}, indent=2))
        return d
    return make


def config_trailing_comma(name: str):
    """config.json hand-edited: a trailing comma after the last key (JSON refuses it)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "config.json"
        text = f.read_text().rstrip()
        assert text.endswith("}")
        f.write_text(text[:-1].rstrip() + ",\n}\n")
        return d
    return make


def shard_header_garbage(work: Path) -> Path:
    """Shard 2's JSON header overwritten with 'x' bytes of the same length (a disk's bad block)."""
    d = copy_model(work, "shard-header-garbage")
    f = sorted(d.glob("model-*.safetensors"))[1]
    raw = bytearray(f.read_bytes())
    n = int.from_bytes(raw[:8], "little")
    raw[8:8 + n] = b"x" * n
    f.write_bytes(bytes(raw))
    return d


def signal_worker_when(needles: list[str], sig: int, delay: float, after_s: float = 45):
    """``sig`` to the VllmWorker process (the one that runs the model) once a needle is logged."""
    return child_signal_when("VLLM::Worker", needles, sig, delay, after_s)


def stop_api_serving(ctx: Ctx) -> None:
    """Two completions served, then SIGSTOP to the API server process; one more request that
    times out; the run is killed at the end."""
    if up(ctx, 240):
        ctx.complete(2)
        assert ctx.proc is not None
        import os
        os.kill(ctx.proc.pid, signal.SIGSTOP)
        ctx.post("/v1/completions", {"model": "x", "prompt": "fox", "max_tokens": 8}, timeout=20)
        linger(ctx, 5)


SCENARIOS = [
    # vLLM
    Scenario("v-int-max-str-digits", "vllm", "PYTHONINTMAXSTRDIGITS=5 (below Python's minimum)",
             BASE, env={"PYTHONINTMAXSTRDIGITS": "5"}, act=until_exit),
    Scenario("v-load-format-runai", "vllm", "--load-format runai_streamer (its package not "
             "installed)", [*BASE, "--load-format", "runai_streamer"], act=until_exit),
    Scenario("v-layers-negative", "vllm", "config.json num_hidden_layers -2", BASE,
             model=config_edit("layers-negative-v", num_hidden_layers=-2), act=until_exit),
    Scenario("v-tokenizer-json-list", "vllm", "tokenizer.json holds an empty JSON list", BASE,
             model=tokenizer_json_list("tokenizer-json-list-v"), act=until_exit),
    Scenario("v-shard-header-garbage", "vllm", "shard 2's safetensors JSON header overwritten "
             "with x bytes of the same length", BASE, model=shard_header_garbage,
             act=until_exit),
    Scenario("v-config-trailing-comma", "vllm", "config.json with a trailing comma after its "
             "last key", BASE, model=config_trailing_comma("config-trailing-comma-v"),
             act=until_exit),
    Scenario("v-max-model-len-suffix", "vllm", "--max-model-len 1x (a bad size suffix)",
             [*[a for a in BASE if a not in ("--max-model-len", "256")], "--max-model-len", "1x"],
             act=until_exit),
    Scenario("v-iteration-timeout-text", "vllm", "VLLM_ENGINE_ITERATION_TIMEOUT_S=soon (not a "
             "number)", BASE, env={"VLLM_ENGINE_ITERATION_TIMEOUT_S": "soon"}, act=until_exit),
    Scenario("v-int-worker-warmup", "vllm", "SIGINT to the model worker process only, 1 s into "
             "the compile warm-up", BASE,
             act=signal_worker_when(["Warming up model for the"], signal.SIGINT, 1.0)),
    Scenario("v-abrt-worker-kvcache", "vllm", "SIGABRT (default action: core dump) to the model "
             "worker process 0.2 s after the KV cache size is reported", BASE,
             act=signal_worker_when(["CPU KV cache size"], signal.SIGABRT, 0.2)),
    Scenario("v-quit-worker-load", "vllm", "SIGQUIT (default action: core dump) to the model "
             "worker process as soon as it starts to load the model", BASE,
             act=signal_worker_when(["Starting to load model"], signal.SIGQUIT, 0.0)),
    Scenario("v-stop-api-serving", "vllm", "two completions served, then SIGSTOP to the API "
             "server process; one more request times out", BASE, act=stop_api_serving),
    Scenario("v-async-scheduling-cpu", "vllm", "--async-scheduling on the CPU build",
             [*BASE, "--async-scheduling"], act=until_exit),
    # SGLang
    Scenario("s-tracemalloc-text", "sglang", "PYTHONTRACEMALLOC=lots (not a number of frames)",
             SG, env={"PYTHONTRACEMALLOC": "lots"}, act=sg_until_exit),
    Scenario("s-tokenizer-json-list", "sglang", "tokenizer.json holds an empty JSON list", SG,
             model=tokenizer_json_list("tokenizer-json-list-s"), act=sg_until_exit),
    Scenario("s-layers-negative", "sglang", "config.json num_hidden_layers -2", SG,
             model=config_edit("layers-negative-s", num_hidden_layers=-2), act=sg_until_exit),
    Scenario("s-config-trailing-comma", "sglang", "config.json with a trailing comma after its "
             "last key", SG, model=config_trailing_comma("config-trailing-comma-s"),
             act=sg_until_exit),
    Scenario("s-int-scheduler-init", "sglang", "SIGINT to the scheduler subprocess only, 0.3 s "
             "after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGINT, 0.3, 60)),
    Scenario("s-usr2-detokenizer-init", "sglang", "SIGUSR2 (default action: terminate) to the "
             "detokenizer subprocess 0.2 s after it names itself", SG,
             act=child_signal_when("sglang::detokenizer", None, signal.SIGUSR2, 0.2, 60)),
    Scenario("s-pwr-scheduler-init", "sglang", "SIGPWR (default action: terminate) to the "
             "scheduler subprocess 0.2 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGPWR, 0.2, 60)),
    Scenario("s-abrt-detokenizer-init", "sglang", "SIGABRT (default action: core dump) to the "
             "detokenizer subprocess 0.2 s after it names itself", SG,
             act=child_signal_when("sglang::detokenizer", None, signal.SIGABRT, 0.2, 60)),
]


# --- second round (SGLang: SIGINT to the scheduler, SIGUSR2 and SIGABRT to the detokenizer never
# showed before the host's stock failure; the first round's worker signals named a process
# "VllmWorker" that this build calls "VLLM::Worker", so they were re-recorded) -------------------

def config_without(name: str, key: str):
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "config.json"
        cfg = json.loads(f.read_text())
        del cfg[key]
        f.write_text(json.dumps(cfg, indent=2))
        return d
    return make


SCENARIOS += [
    Scenario("s-model-type-missing", "sglang", "config.json without its model_type key", SG,
             model=config_without("model-type-missing-s", "model_type"), act=sg_until_exit),
    Scenario("s-vocab-size-negative", "sglang", "config.json vocab_size -512", SG,
             model=config_edit("vocab-size-negative-s", vocab_size=-512), act=sg_until_exit),
    Scenario("s-sys-scheduler-init", "sglang", "SIGSYS (default action: core dump) to the "
             "scheduler subprocess 0.2 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGSYS, 0.2, 60)),
]

# Recorded but left out of the batch: v-int-worker-load (first round: the signal step looked for a
# process named "VllmWorker", which this build calls "VLLM::Worker", so no signal was sent; the
# scenario was replaced by v-int-worker-warmup), v-abrt-worker-kvcache's first try (same, stopped
# before it ended) and s-int-scheduler-init, s-usr2-detokenizer-init, s-abrt-detokenizer-init
# (nothing showed before the host's stock "No module named 'vllm'" after "Load weight begin").
# Kept though silent (labelled for what the log shows): v-iteration-timeout-text (the variable is
# unknown to this vLLM), v-quit-worker-load, v-stop-api-serving, v-async-scheduling-cpu.
