"""The seventy-eighth batch's scenarios (tests/fixtures/corpus/fresh77): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind78.py OUT

Some scenarios put the engine's process group into a cgroup (v1: devices) of its own, as a
container's limits would; the cgroups are named blind78-*. rlimits are set on the launcher as
soon as it starts (its children inherit them). Broken model copies go to OUT/.work.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import psutil  # noqa: E402
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    child_signal_when,
    copy_model,
    linger,
    sg_until_exit,
    signal_quietly,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
CG = Path("/sys/fs/cgroup")


def cgroup(controller: str, name: str, settings: dict[str, str]) -> Path:
    d = CG / controller / f"blind78-{name}"
    d.mkdir(exist_ok=True)
    for k, v in settings.items():
        (d / k).write_text(v)
    return d


def in_cgroup(controller: str, name: str, settings: dict[str, str], step):
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        d = cgroup(controller, name, settings)
        (d / "cgroup.procs").write_text(str(ctx.proc.pid))
        step(ctx)
    return act


def rlimited(res: int, soft: int, hard: int, step):
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        psutil.Process(ctx.proc.pid).rlimit(res, (soft, hard))
        step(ctx)
    return act


def serve_some(ctx: Ctx) -> None:
    if up(ctx, 240):
        ctx.complete(3, max_tokens=16)
        time.sleep(12)


def serve_then_api_signal(sig: int):
    """Served two completions, then ``sig`` to the API server process alone; one more request."""
    def act(ctx: Ctx) -> None:
        if up(ctx, 240):
            ctx.complete(2)
            assert ctx.proc is not None
            signal_quietly(ctx.proc, sig)
            time.sleep(2)
            ctx.complete(1)
            linger(ctx, 20)
    return act


def oov_requests(ctx: Ctx) -> None:
    """Served two completions, then prompts of token ids beyond the vocabulary (512) and a
    logit_bias naming such an id, then one plain completion."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(2)
        ctx.post("/v1/completions", {"model": name, "prompt": [5, 7, 70000], "max_tokens": 8})
        ctx.post("/v1/completions", {"model": name, "prompt": [600, 601], "max_tokens": 8})
        ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8,
                                     "logit_bias": {"90000": 5}})
        ctx.complete(1)
        time.sleep(12)


def shards_vanish(needles: list[str]):
    """The model copy's safetensors shards deleted once one of ``needles`` is logged (a cleanup
    job, a sync removing them while the engine starts)."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any(needles, 200) is None:
            return
        for f in (ctx.work / "vanish").glob("*.safetensors"):
            f.unlink()
        until_exit(ctx)
    return act


# --- model breakers ----------------------------------------------------------------------------

def hidden_mismatch(work: Path) -> Path:
    """config.json hidden_size 128 over weights made with hidden 256 (head_dim kept 64)."""
    d = copy_model(work, "hidden-128")
    f = d / "config.json"
    f.write_text(json.dumps({**json.loads(f.read_text()), "hidden_size": 128}, indent=2))
    return d


def vanish(work: Path) -> Path:
    return copy_model(work, "vanish")


def added_tokens_cut(work: Path) -> Path:
    """An added_tokens.json cut short (a download interrupted) beside the tokenizer."""
    d = copy_model(work, "added-tokens-cut")
    (d / "added_tokens.json").write_text('{\n  "<|im_start|>": 512,\n  "<|im_e')
    return d


DENY_NULL = {"devices.deny": "c 1:3 rwm"}

SCENARIOS = [
    # vLLM
    Scenario("v-hidden-mismatch", "vllm", "config.json hidden_size 128 over weights made with "
             "hidden_size 256", BASE, model=hidden_mismatch, act=until_exit),
    Scenario("v-shards-vanish", "vllm", "the model copy's safetensors shards deleted once the "
             "engine core logs its config (before the worker loads them)", BASE, model=vanish,
             act=shards_vanish(["Initializing a V1 LLM engine"])),
    Scenario("v-gpu-blocks-1", "vllm", "--num-gpu-blocks-override 1 (a KV cache of one block)",
             [*BASE, "--num-gpu-blocks-override", "1"], act=until_exit),
    Scenario("v-model-impl-transformers", "vllm", "--model-impl transformers (the Transformers "
             "modelling backend); served three completions",
             [*BASE, "--model-impl", "transformers"], act=serve_some),
    Scenario("v-pythonoptimize-2", "vllm", "PYTHONOPTIMIZE=2 (asserts and docstrings stripped) "
             "in the environment", BASE, env={"PYTHONOPTIMIZE": "2"}, act=until_exit),
    Scenario("v-ioencoding-ascii", "vllm", "PYTHONIOENCODING=ascii (a minimal container "
             "locale); served three completions", BASE, env={"PYTHONIOENCODING": "ascii"},
             act=serve_some),
    Scenario("v-stack-256k", "vllm", "RLIMIT_STACK 256 KiB on the server from its start "
             "(children inherit it)", BASE,
             act=rlimited(psutil.RLIMIT_STACK, 256 * 1024, 256 * 1024, until_exit)),
    Scenario("v-data-limit-3g", "vllm", "RLIMIT_DATA 3 GiB on the server from its start "
             "(children inherit it)", BASE,
             act=rlimited(psutil.RLIMIT_DATA, 3 << 30, 3 << 30, until_exit)),
    Scenario("v-devnull-denied", "vllm", "the server in a devices cgroup denying /dev/null "
             "(c 1:3), as a container's device rules might", BASE,
             act=in_cgroup("devices", "nonull", DENY_NULL, until_exit)),
    Scenario("v-oov-requests", "vllm", "served two completions, then prompts of token ids "
             "beyond the vocabulary (70000; 600) and a logit_bias on id 90000, then one more "
             "completion", BASE, act=oov_requests),
    Scenario("v-usr1-core-load", "vllm", "SIGUSR1 (default action) to the EngineCore process "
             "as the worker starts to load the model", BASE,
             act=child_signal_when("EngineCore", ["Starting to load model"], signal.SIGUSR1,
                                   0.0)),
    Scenario("v-hup-worker-kvcache", "vllm", "SIGHUP (default action) to the worker process 3 s "
             "after the engine logs its KV cache size", BASE,
             act=child_signal_when("Worker", ["CPU KV cache size"], signal.SIGHUP, 3.0)),
    Scenario("v-pipe-api-serving", "vllm", "served two completions, then SIGPIPE (default "
             "action) to the API server process alone; one more request", BASE,
             act=serve_then_api_signal(signal.SIGPIPE)),
    # SGLang
    Scenario("s-added-tokens-cut", "sglang", "an added_tokens.json cut short beside the "
             "tokenizer", SG, model=added_tokens_cut, act=sg_until_exit),
    Scenario("s-pythonoptimize-2", "sglang", "PYTHONOPTIMIZE=2 (asserts and docstrings "
             "stripped) in the environment", SG, env={"PYTHONOPTIMIZE": "2"}, act=sg_until_exit),
    Scenario("s-ioencoding-ascii", "sglang", "PYTHONIOENCODING=ascii (a minimal container "
             "locale)", SG, env={"PYTHONIOENCODING": "ascii"}, act=sg_until_exit),
    Scenario("s-stack-192k", "sglang", "RLIMIT_STACK 192 KiB on the server from its start "
             "(children inherit it)", SG,
             act=rlimited(psutil.RLIMIT_STACK, 192 * 1024, 192 * 1024, sg_until_exit)),
    Scenario("s-data-limit-1g", "sglang", "RLIMIT_DATA 1 GiB on the server from its start "
             "(children inherit it)", SG,
             act=rlimited(psutil.RLIMIT_DATA, 1 << 30, 1 << 30, sg_until_exit)),
    Scenario("s-devnull-denied", "sglang", "the server in a devices cgroup denying /dev/null "
             "(c 1:3), as a container's device rules might", SG,
             act=in_cgroup("devices", "nonull-sg", DENY_NULL, sg_until_exit)),
    Scenario("s-kill-scheduler-init", "sglang", "SIGKILL to the scheduler subprocess 1 s after "
             "it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGKILL, 1.0, 60)),
    Scenario("s-kill-detokenizer-init", "sglang", "SIGKILL to the detokenizer subprocess as soon "
             "as it names itself", SG,
             act=child_signal_when("sglang::detokenizer", None, signal.SIGKILL, 0.0, 90)),
    Scenario("s-mem-fraction-over", "sglang", "--mem-fraction-static 1.5 (over the whole memory)",
             [*SG, "--mem-fraction-static", "1.5"], act=sg_until_exit),
]


def tokenizer_utf16(work: Path) -> Path:
    """tokenizer.json re-saved as UTF-16 (an editor's "Unicode" save)."""
    d = copy_model(work, "tok-utf16")
    f = d / "tokenizer.json"
    f.write_bytes(f.read_text().encode("utf-16"))
    return d


def hf_home_file(ctx: Ctx) -> None:
    (ctx.work / "hf-home-file").write_text("not a folder\n")


SCENARIOS += [
    Scenario("s-tokenizer-utf16", "sglang", "tokenizer.json re-saved as UTF-16 (with a BOM)", SG,
             model=tokenizer_utf16, act=sg_until_exit),
    Scenario("v-tokenizer-utf16", "vllm", "tokenizer.json re-saved as UTF-16 (with a BOM)", BASE,
             model=tokenizer_utf16, act=until_exit),
    Scenario("s-context-length-0", "sglang", "--context-length 0", [*SG, "--context-length", "0"],
             act=sg_until_exit),
    Scenario("s-sampling-flashinfer", "sglang", "--sampling-backend flashinfer on a CPU host",
             [*SG, "--sampling-backend", "flashinfer"], act=sg_until_exit),
    Scenario("s-hf-home-file", "sglang", "HF_HOME naming a plain file, not a folder", SG,
             env={"HF_HOME": "/tmp/blind78/out/.work/hf-home-file"}, before=hf_home_file,
             act=sg_until_exit),
]


def serve_text_prompts(ctx: Ctx) -> None:
    """Three text completions and a chat request (the client's usual traffic)."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(3, max_tokens=8)
        ctx.post("/v1/completions", {"model": name, "prompt": [5, 7, 9], "max_tokens": 8})
        time.sleep(12)


def garbage_embeds(ctx: Ctx) -> None:
    """Two completions, then prompt_embeds that are not a serialized tensor, then one more."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(2)
        import base64
        ctx.post("/v1/completions", {"model": name, "max_tokens": 8,
                                     "prompt_embeds": base64.b64encode(b"\x00garbage" * 64).decode()})
        ctx.complete(1)
        time.sleep(12)


def api_signal_when(needles: list[str], sig: int, delay: float = 0.0, after_s: float = 30):
    """``sig`` to the API server process alone once one of ``needles`` shows."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if ctx.wait_any(needles, 240) is None:
            return
        time.sleep(delay)
        signal_quietly(ctx.proc, sig)
        linger(ctx, after_s)
    return act


SCENARIOS += [
    Scenario("v-cpu-offload-gb", "vllm", "--cpu-offload-gb 2 on the CPU build",
             [*BASE, "--cpu-offload-gb", "2"], act=until_exit),
    Scenario("v-skip-tokenizer-init", "vllm", "--skip-tokenizer-init, then text completions "
             "(three) and one of token ids", [*BASE, "--skip-tokenizer-init"],
             act=serve_text_prompts),
    Scenario("v-prompt-embeds-garbage", "vllm", "--enable-prompt-embeds; two completions, then "
             "prompt_embeds that are base64 of garbage bytes, then one more completion",
             [*BASE, "--enable-prompt-embeds"], act=garbage_embeds),
    Scenario("v-kill-api-warmup", "vllm", "SIGKILL to the API server process alone as soon as the "
             "engine core logs how long its init (profile, KV cache, warm-up) took", BASE,
             act=api_signal_when(["init engine (profile"], signal.SIGKILL)),
]


def config_is_dir(work: Path) -> Path:
    """config.json a folder (an unpacking tool's mistake)."""
    d = copy_model(work, "config-dir-sg")
    (d / "config.json").unlink()
    (d / "config.json").mkdir()
    return d


def tokenizer_fifo(work: Path) -> Path:
    """tokenizer.json a named pipe nobody writes to (a FUSE/sync placeholder that blocks)."""
    d = copy_model(work, "tok-fifo-sg")
    (d / "tokenizer.json").unlink()
    os.mkfifo(d / "tokenizer.json")
    return d


def linger_40(ctx: Ctx) -> None:
    linger(ctx, 40)


SCENARIOS += [
    Scenario("s-config-is-dir", "sglang", "config.json a folder, not a file", SG,
             model=config_is_dir, act=sg_until_exit),
    Scenario("s-tokenizer-fifo", "sglang", "tokenizer.json a named pipe nobody writes to; the "
             "run left 40 s, then killed", SG, model=tokenizer_fifo, act=linger_40),
    Scenario("s-bus-scheduler-init", "sglang", "SIGBUS (default action) to the scheduler "
             "subprocess 1 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGBUS, 1.0, 60)),
]

# Recorded but left out of the batch (the fault never showed): s-ioencoding-ascii, s-stack-192k
# (only SGLang's own 'Fail to set RLIMIT_STACK' warning), s-kill-detokenizer-init,
# s-mem-fraction-over, s-context-length-0, s-sampling-flashinfer and s-hf-home-file (each died of
# the stock "No module named 'vllm'" after "Load weight begin"); v-stack-256k, v-pipe-api-serving
# (Python ignores SIGPIPE), v-cpu-offload-gb (served normally) and v-prompt-embeds-garbage (a 400,
# then served; too like v-oov-requests). v-kill-api-warmup's first try matched its needle in its
# own source line (the description quoted it) and was rerun with the description reworded.
