"""The seventy-second batch's scenarios (tests/fixtures/corpus/fresh71): faults chosen, recorded
and labelled by a helper who had not read the classifier's rules, given only the recorder, its
building blocks, the earlier tables (not to repeat them) and the corpus's labelling rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind72.py OUT

Kept as it was run. WORK is the folder the broken copies and helper files go in (named in the
logs' source lines).
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import psutil  # noqa: E402
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
WORK = Path("/tmp/blind72/rec/.work")


# --- helpers -----------------------------------------------------------------------------------

def sg_until_exit(ctx: Ctx) -> None:
    assert ctx.proc is not None
    try:
        ctx.proc.wait(150)
    except subprocess.TimeoutExpired:
        pass


def rlimited(res: int, value: int, step):
    """The launched server's own limit, set as soon as it starts (children inherit it)."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        psutil.Process(ctx.proc.pid).rlimit(res, (value, value))
        step(ctx)
    return act


def stall_after(needles: list[str], seconds: float):
    """Let the run go on for ``seconds`` after one of ``needles`` shows (or it ends)."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any(needles, 180)
        end = time.monotonic() + seconds
        while time.monotonic() < end and ctx.proc is not None and ctx.proc.poll() is None:
            time.sleep(0.5)
    return act


# --- model breakers ----------------------------------------------------------------------------

def shard_fifo(work: Path) -> Path:
    """The third shard a named pipe nothing writes to (a stalled network mount's file)."""
    d = copy_model(work, "shard-fifo")
    shard = sorted(d.glob("model-*.safetensors"))[2]
    shard.unlink()
    os.mkfifo(shard)
    return d


# --- acts --------------------------------------------------------------------------------------

def segv_api_serving(ctx: Ctx) -> None:
    """SIGSEGV to the API server process (the launched one) while it serves."""
    if up(ctx, 240):
        ctx.complete(2)
        assert ctx.proc is not None
        os.kill(ctx.proc.pid, signal.SIGSEGV)
        ctx.complete(1)
        time.sleep(10)


def otlp_serve(ctx: Ctx) -> None:
    if up(ctx, 240):
        ctx.complete(3, max_tokens=16)
        time.sleep(15)


def logit_bias_requests(ctx: Ctx) -> None:
    """Requests with token ids outside the 512-token vocabulary in sampling fields."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(1)
        ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 4,
                                     "logit_bias": {"70000": 5}})
        ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 4,
                                     "allowed_token_ids": [3, 99999]})
        ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 4,
                                     "stop_token_ids": [123456789012]})
        ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 4,
                                     "min_tokens": 50})
        ctx.complete(1)
        time.sleep(12)


def stop_child_when(needle: str, delay: float, wait_s: float):
    """SIGSTOP to SGLang's subprocess whose command line holds ``needle``, ``delay`` s after it
    appears; the run is then left for ``wait_s`` s."""
    def act(ctx: Ctx) -> None:
        end = time.monotonic() + 90
        while time.monotonic() < end:
            if ctx.children(needle):
                time.sleep(delay)
                for p in ctx.children(needle):
                    try:
                        p.suspend()
                    except psutil.Error:
                        pass
                break
            if ctx.proc is not None and ctx.proc.poll() is not None:
                break
            time.sleep(0.2)
        t = time.monotonic() + wait_s
        while time.monotonic() < t and ctx.proc is not None and ctx.proc.poll() is None:
            time.sleep(0.5)
    return act


def term_child_when(needle: str, delay: float):
    def act(ctx: Ctx) -> None:
        end = time.monotonic() + 90
        while time.monotonic() < end:
            if ctx.children(needle):
                time.sleep(delay)
                for p in ctx.children(needle):
                    try:
                        p.terminate()
                    except psutil.Error:
                        pass
                break
            if ctx.proc is not None and ctx.proc.poll() is not None:
                break
            time.sleep(0.2)
        sg_until_exit(ctx)
    return act


GIB = 1 << 30

SCENARIOS = [
    # vLLM: environment
    Scenario("v-env-hashseed", "vllm", "PYTHONHASHSEED=abc (a deployment template's "
             "placeholder left in)", BASE, env={"PYTHONHASHSEED": "abc"}, act=until_exit),
    Scenario("v-env-warnings-error", "vllm", "PYTHONWARNINGS=error (a CI setting that turns "
             "every warning into an exception)", BASE, env={"PYTHONWARNINGS": "error"},
             act=until_exit),
    # vLLM: flags
    Scenario("v-quant-bnb", "vllm", "--quantization bitsandbytes (bitsandbytes not installed) "
             "on an unquantized checkpoint", [*BASE, "--quantization", "bitsandbytes"],
             act=until_exit),
    Scenario("v-cpu-offload-gb", "vllm", "--cpu-offload-gb 64 on the CPU build",
             [*BASE, "--cpu-offload-gb", "64"], act=until_exit),
    Scenario("v-otlp-unreachable", "vllm", "--otlp-traces-endpoint naming a collector that "
             "is not running (127.0.0.1:9), then requests",
             [*BASE, "--otlp-traces-endpoint", "http://127.0.0.1:9"], act=otlp_serve),
    # vLLM: checkpoint
    Scenario("v-shard-fifo", "vllm", "the third safetensors shard a named pipe nothing writes "
             "to (a file on a stalled network mount); left 60 s after loading starts", BASE,
             model=shard_fifo,
             act=stall_after(["Starting to load model", "Loading safetensors"], 60)),
    # vLLM: resources
    Scenario("v-as-limit-launch", "vllm", "ulimit -v 6 GiB (address space) for the server from "
             "its start, --gpu-memory-utilization 0.25 of 23 GiB", BASE,
             act=rlimited(psutil.RLIMIT_AS, 6 * GIB, until_exit)),
    Scenario("v-stack-limit", "vllm", "ulimit -s 192 (KiB) for the server from its start",
             BASE, act=rlimited(psutil.RLIMIT_STACK, 192 * 1024, until_exit)),
    # vLLM: signals and requests while serving
    Scenario("v-segv-api-serving", "vllm", "served, then SIGSEGV to the API server process",
             BASE, act=segv_api_serving),
    Scenario("v-oov-sampling-params", "vllm", "requests whose logit_bias, allowed_token_ids and "
             "stop_token_ids name token ids outside the vocabulary, and min_tokens above "
             "max_tokens", BASE, act=logit_bias_requests),
    # SGLang
    Scenario("s-env-warnings-error", "sglang", "PYTHONWARNINGS=error", SG,
             env={"PYTHONWARNINGS": "error"}, act=sg_until_exit),
    Scenario("s-quant-bnb", "sglang", "--quantization bitsandbytes (not installed) on an "
             "unquantized checkpoint", [*SG, "--quantization", "bitsandbytes"],
             act=sg_until_exit),
    Scenario("s-as-limit-launch", "sglang", "ulimit -v 3 GiB (address space) for the launcher "
             "from its start", SG, act=rlimited(psutil.RLIMIT_AS, 3 * GIB, sg_until_exit)),
    Scenario("s-stop-scheduler-init", "sglang", "SIGSTOP to the scheduler subprocess as soon as "
             "it names itself (a frozen process); left 60 s", SG,
             act=stop_child_when("scheduler", 0, 60)),
    Scenario("s-term-detokenizer-init", "sglang", "SIGTERM to the detokenizer subprocess as "
             "soon as it names itself", SG, act=term_child_when("detokenizer", 0)),
    Scenario("s-host-unresolvable", "sglang", "--host naming a host that does not resolve "
             "(model-server.internal)", SG, act=sg_until_exit),
]

SCENARIOS += [
    Scenario("v-env-keepalive-5s", "vllm", "VLLM_HTTP_TIMEOUT_KEEP_ALIVE=5s (a unit where an "
             "integer of seconds is expected)", BASE, env={"VLLM_HTTP_TIMEOUT_KEEP_ALIVE": "5s"},
             act=until_exit),
    Scenario("s-tokenizer-path-file", "sglang", "--tokenizer-path naming the model's "
             "tokenizer.json file rather than its folder",
             [*SG, "--tokenizer-path", "/root/.cache/gpu-node-supervisor/models/llama-tiny-v3/"
              "tokenizer.json"], act=sg_until_exit),
]



def layers_zero(work: Path) -> Path:
    from log_faults import config_with
    return config_with(work, "layers-zero", num_hidden_layers=0)


SCENARIOS += [
    Scenario("v-as-limit-1g", "vllm", "ulimit -v 1 GiB (address space) for the server from its "
             "start", BASE, act=rlimited(psutil.RLIMIT_AS, 1 * GIB, until_exit)),
    Scenario("s-layers-zero", "sglang", "config.json num_hidden_layers 0 (the checkpoint has 2)",
             SG, model=layers_zero, act=sg_until_exit),
]



def file_is_dir(name: str, file: str):
    """``file`` an empty folder: a container volume mount of a file that was not there."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        (d / file).unlink()
        (d / file).mkdir()
        return d
    return make


def genconfig_list(work: Path) -> Path:
    d = copy_model(work, "genconfig-list")
    (d / "generation_config.json").write_text('[{"bos_token_id": 0, "eos_token_id": 1}]\n')
    return d


SCENARIOS += [
    Scenario("v-config-is-dir", "vllm", "config.json an empty folder (a container bind mount of a "
             "file that did not exist on the host)", BASE,
             model=file_is_dir("config-is-dir", "config.json"), act=until_exit),
    Scenario("s-tokenizer-json-dir", "sglang", "tokenizer.json an empty folder (a bind mount of a "
             "missing file)", SG, model=file_is_dir("tokenizer-json-dir", "tokenizer.json"),
             act=sg_until_exit),
    Scenario("v-genconfig-list", "vllm", "generation_config.json a JSON list holding the object "
             "(valid JSON, wrong shape)", BASE, model=genconfig_list, act=until_exit),
]



def _free_port() -> int:
    import socket
    with socket.socket() as sk:
        sk.bind(("127.0.0.1", 0))
        return sk.getsockname()[1]


NCCL_PORT = _free_port()


def take_nccl_port(ctx: Ctx) -> None:
    import socket
    sk = socket.socket()
    sk.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    sk.bind(("0.0.0.0", NCCL_PORT))
    sk.listen(1)
    ctx.keep.append(sk)


SCENARIOS += [
    Scenario("s-nccl-port-taken", "sglang", "--nccl-port naming a port another process already "
             "listens on (the distributed init port)", [*SG, "--nccl-port", str(NCCL_PORT)],
             before=take_nccl_port, act=sg_until_exit),
]



def tokenizer_fifo(work: Path) -> Path:
    """tokenizer.json a named pipe nothing writes to (a file on a stalled network mount)."""
    d = copy_model(work, "tokenizer-fifo")
    (d / "tokenizer.json").unlink()
    os.mkfifo(d / "tokenizer.json")
    return d


SCENARIOS += [
    Scenario("v-tokenizer-fifo", "vllm", "tokenizer.json a named pipe nothing writes to (a file "
             "on a stalled network mount); left 50 s after the arguments are logged", BASE,
             model=tokenizer_fifo, act=stall_after(["non-default args"], 50)),
]

SCENARIOS += [
    Scenario("v-tokenizer-path-file", "vllm", "--tokenizer naming the model's tokenizer.json file "
             "rather than its folder",
             [*BASE, "--tokenizer", "/root/.cache/gpu-node-supervisor/models/llama-tiny-v3/"
              "tokenizer.json"], act=until_exit),
    Scenario("v-api-server-count-3", "vllm", "--api-server-count 3 on the 2-core CPU build",
             [*BASE, "--api-server-count", "3"], act=until_exit),
]

# --host is given by the recorder (127.0.0.1); a later --host overrides it
next(s for s in SCENARIOS if s.name == "s-host-unresolvable").args = [
    *SG, "--host", "model-server.internal"]
