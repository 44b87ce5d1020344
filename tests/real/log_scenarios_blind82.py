"""The eighty-second batch's scenarios (tests/fixtures/corpus/fresh81): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind82.py OUT

Broken model copies go to OUT/.work.
"""

from __future__ import annotations

import json
import resource
import shutil
import signal
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
    json_edit,
    linger,
    sg_until_exit,
    signal_serving,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]


def tokcfg_edit(name: str, **changes: object):
    return json_edit(name, "tokenizer_config.json", **changes)


BAD_ADDED = {"added_tokens_decoder": {"pad": {"content": "<pad>", "lstrip": False,
                                              "normalized": False, "rstrip": False,
                                              "single_word": False, "special": True}}}


def cwd_deleted(then):
    """The run's working directory removed (and a new one made at its path) 1 s after launch."""
    def act(ctx: Ctx) -> None:
        time.sleep(1.0)
        shutil.rmtree(ctx.work, ignore_errors=True)
        ctx.work.mkdir(parents=True, exist_ok=True)
        then(ctx)
    return act


def nofile_serving(ctx: Ctx) -> None:
    """Two completions served, then the API server's open-file limit cut to what it holds now
    (prlimit on the running process, as a supervisor tightening limits would); more requests."""
    if up(ctx, 240):
        ctx.complete(2)
        import psutil
        assert ctx.proc is not None
        p = psutil.Process(ctx.proc.pid)
        n = p.num_fds()
        try:
            p.rlimit(resource.RLIMIT_NOFILE, (n, n))
        except psutil.Error:
            pass
        time.sleep(1)
        ctx.complete(3)
        linger(ctx, 15)


SCENARIOS = [
    # vLLM
    Scenario("v-pythonmalloc-bogus", "vllm", "PYTHONMALLOC=jemalloc (an allocator name Python "
             "does not know)", BASE, env={"PYTHONMALLOC": "jemalloc"}, act=until_exit),
    Scenario("v-inductor-threads-text", "vllm", "TORCHINDUCTOR_COMPILE_THREADS=auto (not a "
             "number)", BASE, env={"TORCHINDUCTOR_COMPILE_THREADS": "auto"}, act=until_exit),
    Scenario("v-padding-side-bad", "vllm", "tokenizer_config.json padding_side \"center\"", BASE,
             model=tokcfg_edit("padding-side-v", padding_side="center"), act=until_exit),
    Scenario("v-added-tokens-key", "vllm", "tokenizer_config.json added_tokens_decoder keyed by "
             "a name instead of a token id", BASE, model=tokcfg_edit("added-key-v", **BAD_ADDED),
             act=until_exit),
    Scenario("v-attention-bias-true", "vllm", "config.json attention_bias true (the weights have "
             "no q/k/v/o biases)", BASE, model=json_edit("attn-bias-v", "config.json",
                                                         attention_bias=True), act=until_exit),
    Scenario("v-kv-transfer-json-cut", "vllm", "--kv-transfer-config JSON cut short",
             [*BASE, "--kv-transfer-config", '{"kv_connector": "SharedStorageConnector", '
              '"kv_role'], act=until_exit),
    Scenario("v-max-logprobs-text", "vllm", "--max-logprobs lots",
             [*BASE, "--max-logprobs", "lots"], act=until_exit),
    Scenario("v-cwd-deleted", "vllm", "the working directory deleted 1 s after launch", BASE,
             act=cwd_deleted(until_exit)),
    Scenario("v-tstp-core-warmup", "vllm", "SIGTSTP (default action: stop) to the EngineCore "
             "process 1 s into its compile warm-up", BASE,
             act=child_signal_when("EngineCore", ["Warming up model for the"], signal.SIGTSTP,
                                   1.0, 45)),
    Scenario("v-nofile-serving", "vllm", "two completions served, then the API server's "
             "open-file limit cut to the files it holds; three more requests", BASE,
             act=nofile_serving),
    Scenario("v-quit-worker-serving", "vllm", "two completions served, then SIGQUIT (default "
             "action: core dump) to the worker process; one more request", BASE,
             act=signal_serving("Worker", signal.SIGQUIT)),
    # SGLang
    Scenario("s-padding-side-bad", "sglang", "tokenizer_config.json padding_side \"center\"", SG,
             model=tokcfg_edit("padding-side-s", padding_side="center"), act=sg_until_exit),
    Scenario("s-added-tokens-key", "sglang", "tokenizer_config.json added_tokens_decoder keyed "
             "by a name instead of a token id", SG, model=tokcfg_edit("added-key-s", **BAD_ADDED),
             act=sg_until_exit),
    Scenario("s-inductor-threads-text", "sglang", "TORCHINDUCTOR_COMPILE_THREADS=auto (not a "
             "number)", SG, env={"TORCHINDUCTOR_COMPILE_THREADS": "auto"}, act=sg_until_exit),
    Scenario("s-completion-template-missing", "sglang", "--completion-template names a file "
             "that is not there", [*SG, "--completion-template", "/srv/templates/fim.json"],
             act=sg_until_exit),
    Scenario("s-nnodes-0", "sglang", "--nnodes 0", [*SG, "--nnodes", "0"], act=sg_until_exit),
    Scenario("s-max-running-text", "sglang", "--max-running-requests many",
             [*SG, "--max-running-requests", "many"], act=sg_until_exit),
    Scenario("s-cwd-deleted", "sglang", "the working directory deleted 1 s after launch", SG,
             act=cwd_deleted(sg_until_exit)),
    Scenario("s-prof-scheduler-init", "sglang", "SIGPROF (default action: terminate) to the "
             "scheduler subprocess 0.5 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGPROF, 0.5, 60)),
    Scenario("s-quit-detokenizer-init", "sglang", "SIGQUIT (default action: core dump) to the "
             "detokenizer subprocess 0.5 s after it names itself", SG,
             act=child_signal_when("sglang::detokenizer", None, signal.SIGQUIT, 0.5, 60)),
    Scenario("s-tstp-scheduler-init", "sglang", "SIGTSTP (default action: stop) to the "
             "scheduler subprocess 0.5 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGTSTP, 0.5, 50)),
]


# --- second round (the detokenizer's SIGQUIT and the scheduler's SIGTSTP never showed: the stock
# failure came first) ---------------------------------------------------------------------------

SCENARIOS += [
    Scenario("v-home-proc", "vllm", "HOME=/proc/self (a home where nothing can be created)",
             BASE, env={"HOME": "/proc/self"}, act=until_exit),
    Scenario("v-chat-template-int", "vllm", "tokenizer_config.json chat_template a number (42)",
             BASE, model=tokcfg_edit("chat-int-v", chat_template=42), act=until_exit),
    Scenario("s-home-proc", "sglang", "HOME=/proc/self (a home where nothing can be created)",
             SG, env={"HOME": "/proc/self"}, act=sg_until_exit),
    Scenario("s-chat-template-int", "sglang", "tokenizer_config.json chat_template a number "
             "(42)", SG, model=tokcfg_edit("chat-int-s", chat_template=42), act=sg_until_exit),
    Scenario("s-quit-scheduler-init", "sglang", "SIGQUIT (default action: core dump) to the "
             "scheduler subprocess 0.2 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGQUIT, 0.2, 60)),
    Scenario("s-sampling-defaults-bogus", "sglang", "--sampling-defaults hf",
             [*SG, "--sampling-defaults", "hf"], act=sg_until_exit),
]


# --- third round (one fault while the weights load) ---------------------------------------------

def shard_shape_swapped(work: Path) -> Path:
    """Shard 2's model.layers.0.mlp.down_proj.weight declared [512, 256] instead of [256, 512]
    (an exporter that wrote one tensor transposed; same bytes, header shape swapped)."""
    import struct
    d = copy_model(work, "shard-shape-swap")
    f = d / "model-00002-of-00004.safetensors"
    raw = f.read_bytes()
    n = struct.unpack("<Q", raw[:8])[0]
    header = json.loads(raw[8:8 + n])
    t = header["model.layers.0.mlp.down_proj.weight"]
    assert t["shape"] == [256, 512]
    t["shape"] = [512, 256]
    new = json.dumps(header, separators=(",", ":")).encode()
    new += b" " * (n - len(new))
    assert len(new) == n
    f.write_bytes(raw[:8] + new + raw[8 + n:])
    return d


SCENARIOS += [
    Scenario("v-shard-shape-swap", "vllm", "one tensor of shard 2 (layer 0's mlp down_proj) "
             "declared with its two dimensions swapped", BASE, model=shard_shape_swapped,
             act=until_exit),
]

# Recorded but left out of the batch: s-quit-detokenizer-init and s-tstp-scheduler-init (the
# stock "No module named 'vllm'" after "Load weight begin" came first; the signal showed nothing),
# v-tstp-core-warmup (SIGTSTP is discarded for the recorder's orphaned process group: the engine
# came up untouched, no traffic), v-nofile-serving (silent: every request answered),
# s-quit-scheduler-init (showed - scheduler died with exit code -3 during init - but it is
# s-prof-scheduler-init's log again with another signal number).
# Kept though silent (labelled for what the log shows, ready): v-inductor-threads-text,
# v-attention-bias-true.
