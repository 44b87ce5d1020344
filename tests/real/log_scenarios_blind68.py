"""The sixty-eighth batch's scenarios (tests/fixtures/corpus/fresh67): faults chosen, recorded
and labelled by a helper who had not read the classifier's rules (nor its tests or docs), given
only the recorder, its building blocks, the earlier tables (not to repeat them) and the corpus's
labelling rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind68.py OUT

Kept as it was run: WORK is the folder it made its broken copies in (named in the logs' source
lines).
"""

from __future__ import annotations

import http.client
import json
import os
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    config_with,
    copy_model,
    serve_short,
    until_exit,
    up,
)
from setup_engines import LLAMA_HD16  # noqa: E402

BASE = VLLM_BASE
NODTYPE = ["--max-model-len", "256", "--gpu-memory-utilization", "0.25"]
WORK = Path("/tmp/blind68/rec/.work")




# --- model breakers ---------------------------------------------------------------------------

def config_dtype_bad(work: Path) -> Path:
    return config_with(work, "config-dtype-float7", dtype="float7")


def kv_heads_3(work: Path) -> Path:
    return config_with(work, "kv-heads-3", num_key_value_heads=3)


def tied_embeddings(work: Path) -> Path:
    return config_with(work, "tied-embeddings", tie_word_embeddings=True)


def index_one_shard(work: Path) -> Path:
    d = copy_model(work, "index-one-shard")
    idx = d / "model.safetensors.index.json"
    data = json.loads(idx.read_text())
    first = sorted(d.glob("model-*.safetensors"))[0].name
    data["weight_map"] = {k: first for k in data["weight_map"]}
    idx.write_text(json.dumps(data, indent=2))
    return d


def shard_from_other_model(work: Path) -> Path:
    d = copy_model(work, "shard-from-other-model")
    target = sorted(d.glob("model-*.safetensors"))[1]
    shutil.copy(LLAMA_HD16.dir / "model.safetensors", target)
    return d


def make_dir(path: Path):
    def before(ctx: Ctx) -> None:
        path.mkdir(parents=True, exist_ok=True)
    return before


# --- acts ------------------------------------------------------------------------------------

def stop_core_during_load(ctx: Ctx) -> None:
    """SIGSTOP the EngineCore as it starts loading weights; left stopped for 90 s."""
    if ctx.wait_any(["Starting to load model"], 240):
        for p in ctx.children("EngineCore"):
            p.suspend()
        time.sleep(90)


def group_stop_cont(ctx: Ctx) -> None:
    """The whole group stopped (Ctrl-Z) for 25 s while serving, then continued."""
    if up(ctx, 240):
        ctx.complete(2)
        assert ctx.proc is not None
        os.killpg(ctx.proc.pid, signal.SIGSTOP)
        time.sleep(25)
        os.killpg(ctx.proc.pid, signal.SIGCONT)
        ctx.complete(2)
        time.sleep(12)


def sigusr1_api(ctx: Ctx) -> None:
    if up(ctx, 240):
        ctx.complete(2)
        assert ctx.proc is not None
        os.kill(ctx.proc.pid, signal.SIGUSR1)
        time.sleep(3)
        ctx.complete(1)
        time.sleep(15)


def _raw(ctx: Ctx, body: bytes, ctype: str, path: str = "/v1/completions") -> None:
    try:
        c = http.client.HTTPConnection("127.0.0.1", ctx.port, timeout=60)
        c.request("POST", path, body, {"Content-Type": ctype})
        c.getresponse().read()
        c.close()
    except OSError:
        pass


def hostile_client(ctx: Ctx) -> None:
    """Malformed JSON, wrong content type, logprobs 100, n=50, a 6,000-word prompt."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(1)
        _raw(ctx, b'{"model": "' + name.encode() + b'", "prompt": "fox", ', "application/json")
        _raw(ctx, b"prompt=fox&max_tokens=5", "application/x-www-form-urlencoded")
        ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 4,
                                     "logprobs": 100})
        ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8, "n": 50})
        ctx.post("/v1/completions", {"model": name, "prompt": "fox " * 6000, "max_tokens": 4})
        ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": -3})
        ctx.complete(1)
        time.sleep(12)


def burst(ctx: Ctx) -> None:
    """24 concurrent requests against --max-num-seqs 2: a queue builds."""
    if up(ctx, 240):
        name = ctx.model_name()
        ts = [threading.Thread(target=ctx.post, args=("/v1/completions",
              {"model": name, "prompt": f"story {i}", "max_tokens": 48, "ignore_eos": True}),
              kwargs={"timeout": 120}, daemon=True) for i in range(24)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(120)
        time.sleep(12)


def tiny_len_requests(ctx: Ctx) -> None:
    """--max-model-len 12: ordinary requests exceed it."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 4})
        ctx.complete(2, max_tokens=32)
        ctx.post("/v1/completions", {"model": name, "prompt": "the quick brown fox jumps over "
                                     "the lazy dog again and again", "max_tokens": 2})
        time.sleep(12)


def kill_core_at_compile(ctx: Ctx) -> None:
    """SIGKILL to the EngineCore after weights load, once compile/profiling begins."""
    if ctx.wait_any(["Model loading took", "Loading weights took"], 240):
        ctx.wait_any(["torch.compile", "Dynamo bytecode", "Compiling", "compil"], 30)
        for p in ctx.children("EngineCore"):
            p.kill()
        time.sleep(30)


SCENARIOS = [
    # flags
    Scenario("v-compilation-config-key", "vllm", "--compilation-config JSON with an unknown key",
             [*BASE, "--compilation-config", '{"no_such_option": 1}'], act=until_exit),
    Scenario("v-override-gen-not-json", "vllm", "--override-generation-config not JSON "
             "(unquoted key)", [*BASE, "--override-generation-config", "{temperature: 0.5}"],
             act=until_exit),
    Scenario("v-seqs-over-batched", "vllm", "--max-num-seqs 300 with --max-num-batched-tokens 256",
             [*BASE, "--max-num-seqs", "300", "--max-num-batched-tokens", "256"], act=until_exit),
    Scenario("v-chat-template-dir", "vllm", "--chat-template naming a directory",
             [*BASE, "--chat-template", str(WORK / "template-dir")],
             before=make_dir(WORK / "template-dir"), act=until_exit),
    Scenario("v-max-model-len-12", "vllm", "--max-model-len 12, then ordinary requests",
             ["--max-model-len", "12", "--dtype", "bfloat16", "--gpu-memory-utilization", "0.25"],
             act=tiny_len_requests),
    Scenario("v-burst-max-seqs-2", "vllm", "--max-num-seqs 2, 24 concurrent requests",
             [*BASE, "--max-num-seqs", "2"], act=burst),
    # environment
    Scenario("v-env-logging-level", "vllm", "VLLM_LOGGING_LEVEL=LOUD", BASE,
             env={"VLLM_LOGGING_LEVEL": "LOUD"}, act=until_exit),
    Scenario("v-env-mp-method", "vllm", "VLLM_WORKER_MULTIPROC_METHOD=forkserver2", BASE,
             env={"VLLM_WORKER_MULTIPROC_METHOD": "forkserver2"}, act=until_exit),
    Scenario("v-env-ready-timeout", "vllm", "VLLM_ENGINE_READY_TIMEOUT_S=3 (engine start "
             "takes longer)", BASE, env={"VLLM_ENGINE_READY_TIMEOUT_S": "3"}, act=until_exit),
    Scenario("v-tmpdir-missing", "vllm", "TMPDIR naming a folder that does not exist", BASE,
             env={"TMPDIR": "/nonexistent/tmp"}, act=serve_short),
    # checkpoint edits
    Scenario("v-config-dtype-bad", "vllm", "config.json dtype \"float7\" with --dtype auto",
             NODTYPE, model=config_dtype_bad, act=until_exit),
    Scenario("v-kv-heads-3", "vllm", "config.json num_key_value_heads 3 (4 heads, checkpoint "
             "made with 2)", BASE, model=kv_heads_3, act=until_exit),
    Scenario("v-index-one-shard", "vllm", "model.safetensors.index.json mapping every tensor to "
             "the first shard", BASE, model=index_one_shard, act=until_exit),
    Scenario("v-shard-other-model", "vllm", "the second shard replaced by another model's "
             "single-file checkpoint", BASE, model=shard_from_other_model, act=until_exit),
    Scenario("v-tied-embeddings", "vllm", "config.json tie_word_embeddings true on a checkpoint "
             "with its own lm_head", BASE, model=tied_embeddings, act=serve_short),
    # runtime events and clients
    Scenario("v-sigstop-core-load", "vllm", "SIGSTOP to the EngineCore as it starts loading "
             "weights, left stopped 90 s", BASE, act=stop_core_during_load),
    Scenario("v-group-stop-cont", "vllm", "SIGSTOP to the group for 25 s while serving, then "
             "SIGCONT and more requests", BASE, act=group_stop_cont),
    Scenario("v-sigusr1-api", "vllm", "SIGUSR1 to the API server process while serving", BASE,
             act=sigusr1_api),
    Scenario("v-hostile-client", "vllm", "malformed JSON, form-encoded body, logprobs 100, n=50, "
             "a 6,000-word prompt, max_tokens -3", BASE, act=hostile_client),
    Scenario("v-kill-core-compile", "vllm", "SIGKILL to the EngineCore after weight loading, "
             "as compilation starts", BASE, act=kill_core_at_compile),
    # SGLang: argument/config resolution
    Scenario("s-log-level-bad", "sglang", "--log-level LOUD", ["--device", "cpu", "--log-level",
             "LOUD"], act=until_exit),
    Scenario("s-config-dtype-bad", "sglang", "config.json dtype \"float7\"", ["--device", "cpu"],
             model=config_dtype_bad, act=until_exit),
    Scenario("s-chat-template-dir", "sglang", "--chat-template naming a directory",
             ["--device", "cpu", "--chat-template", str(WORK / "template-dir")],
             before=make_dir(WORK / "template-dir"), act=until_exit),
    Scenario("s-kv-heads-3", "sglang", "config.json num_key_value_heads 3",
             ["--device", "cpu"], model=kv_heads_3, act=until_exit),
]

SCENARIOS += [
    Scenario("v-media-path-missing", "vllm", "--allowed-local-media-path naming a folder that "
             "does not exist", [*BASE, "--allowed-local-media-path", "/nonexistent/media"],
             act=until_exit),
    Scenario("v-dp2-cpu", "vllm", "--data-parallel-size 2 on the 2-core CPU build",
             [*BASE, "--data-parallel-size", "2"], act=until_exit),
    Scenario("v-env-reserved-cpus", "vllm", "VLLM_CPU_NUM_OF_RESERVED_CPU=4 on a 2-core host",
             BASE, env={"VLLM_CPU_NUM_OF_RESERVED_CPU": "4"}, act=until_exit),
    Scenario("v-generation-config-dir", "vllm", "--generation-config naming a folder that does "
             "not exist", [*BASE, "--generation-config", "/nonexistent/genconf"], act=until_exit),
]
