"""The seventieth batch's scenarios (tests/fixtures/corpus/fresh69): faults chosen, recorded
and labelled by a helper who had not read the classifier's rules (nor its tests or docs), given
only the recorder, its building blocks, the earlier tables (not to repeat them) and the corpus's
labelling rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind70.py OUT

Kept as it was run: WORK is the folder it made its broken copies in (named in the logs' source
lines).
"""

from __future__ import annotations

import json
import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import psutil  # noqa: E402
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

BASE = VLLM_BASE
SG = ["--device", "cpu"]
WORK = Path("/tmp/blind70/rec/.work")



def sg_until_exit(ctx: Ctx) -> None:
    """SGLang: until the launcher ends (or 150 s)."""
    assert ctx.proc is not None
    try:
        ctx.proc.wait(150)
    except subprocess.TimeoutExpired:
        pass



def _threads(ctx: Ctx, bodies: list[dict], timeout: float = 120) -> list[threading.Thread]:
    ts = [threading.Thread(target=ctx.post, args=("/v1/completions", b),
                           kwargs={"timeout": timeout}, daemon=True) for b in bodies]
    for t in ts:
        t.start()
    return ts


# --- model breakers -------------------------------------------------------------------------

def eos_string(work: Path) -> Path:
    return config_with(work, "eos-string", eos_token_id="</s>")


def rms_eps_string(work: Path) -> Path:
    return config_with(work, "rms-eps-string", rms_norm_eps="1e-6")


def genconf_eos_oov(work: Path) -> Path:
    """generation_config.json's eos_token_id outside the 512-token vocabulary."""
    d = copy_model(work, "genconf-eos-oov")
    g = d / "generation_config.json"
    g.write_text(json.dumps({**json.loads(g.read_text()), "eos_token_id": [1, 70000]}, indent=2))
    return d


def special_token_oov(work: Path) -> Path:
    """tokenizer_config.json's eos_token a chat token the tokenizer's vocabulary lacks."""
    d = copy_model(work, "special-token-oov")
    tc = d / "tokenizer_config.json"
    data = json.loads(tc.read_text())
    data["eos_token"] = "<|im_end|>"
    data["pad_token"] = "<|endoftext|>"
    tc.write_text(json.dumps(data, indent=2))
    return d


def shard_is_dir(work: Path) -> Path:
    """The third shard an empty folder of the same name (a download tool's leftover)."""
    d = copy_model(work, "shard-is-dir")
    shard = sorted(d.glob("model-*.safetensors"))[2]
    shard.unlink()
    shard.mkdir()
    return d


def empty_dir(work: Path) -> Path:
    d = work / "empty-model"
    d.mkdir(parents=True, exist_ok=True)
    return d


# --- before steps -----------------------------------------------------------------------------

def take_port(port: int):
    def before(ctx: Ctx) -> None:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen(1)
        ctx.keep.append(s)
    return before


def dfl_signals(ctx: Ctx) -> None:
    """The recorder runs in the background of a non-interactive shell; restore the default
    dispositions so the engine inherits them as from a terminal."""
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


# --- acts -------------------------------------------------------------------------------------

def priority_requests(ctx: Ctx) -> None:
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(1)
        for body in ({"priority": 5}, {"priority": -3}, {"priority": "high"},
                     {"priority": 10**30}):
            ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8, **body})
        ctx.complete(1)
        time.sleep(12)


def double_ctrl_c(ctx: Ctx) -> None:
    """Ctrl-C twice, 0.4 s apart, with four long requests running."""
    if up(ctx, 240):
        ctx.complete(1)
        name = ctx.model_name()
        _threads(ctx, [{"model": name, "prompt": f"long {i}", "max_tokens": 240,
                        "ignore_eos": True} for i in range(16)], timeout=60)
        time.sleep(0.6)
        assert ctx.proc is not None
        os.killpg(ctx.proc.pid, signal.SIGINT)
        time.sleep(0.4)
        try:
            os.killpg(ctx.proc.pid, signal.SIGINT)
        except ProcessLookupError:
            pass
        try:
            ctx.proc.wait(40)
        except subprocess.TimeoutExpired:
            pass
        time.sleep(3)


def cpu_limit_core(ctx: Ctx) -> None:
    """Once serving, the CPU-time limit (ulimit -t) of the engine's worker and core processes
    set 3 s above what each has used, then waves of long requests: the kernel sends SIGXCPU."""
    if up(ctx, 240):
        ctx.complete(1)
        for p in ctx.children("Worker") + ctx.children("EngineCore"):
            try:
                used = int(sum(p.cpu_times()[:2])) + 3
                p.rlimit(psutil.RLIMIT_CPU, (used, used + 60))
            except psutil.Error:
                pass
        name = ctx.model_name()
        end = time.monotonic() + 70
        while time.monotonic() < end:
            ts = _threads(ctx, [{"model": name, "prompt": f"long {i}", "max_tokens": 240,
                                 "ignore_eos": True} for i in range(8)], timeout=60)
            for t in ts:
                t.join(65)
            if ctx.proc is not None and ctx.proc.poll() is not None:
                break
        ctx.complete(1)
        time.sleep(12)


def sigterm_api_streaming(ctx: Ctx) -> None:
    """SIGTERM to the API server process alone with streaming requests running."""
    if up(ctx, 240):
        ctx.complete(1)
        name = ctx.model_name()
        _threads(ctx, [{"model": name, "prompt": f"story {i}", "max_tokens": 200,
                        "ignore_eos": True, "stream": True} for i in range(3)], timeout=60)
        time.sleep(2)
        assert ctx.proc is not None
        os.kill(ctx.proc.pid, signal.SIGTERM)
        try:
            ctx.proc.wait(40)
        except subprocess.TimeoutExpired:
            pass
        time.sleep(5)


def preempting_burst(ctx: Ctx) -> None:
    """16 concurrent long generations into a KV cache that holds about four."""
    if up(ctx, 240):
        ctx.complete(1)
        name = ctx.model_name()
        ts = _threads(ctx, [{"model": name, "prompt": "the quick brown fox " * 6,
                             "max_tokens": 200, "ignore_eos": True} for _ in range(16)],
                      timeout=200)
        for t in ts:
            t.join(220)
        time.sleep(12)


def sigterm_launcher_alone(ctx: Ctx) -> None:
    """SIGTERM to SGLang's launcher process alone once it has started its subprocesses."""
    if ctx.wait_any(["server_args=", "ServerArgs("], 60):
        time.sleep(6)
        assert ctx.proc is not None
        os.kill(ctx.proc.pid, signal.SIGTERM)
        try:
            ctx.proc.wait(40)
        except subprocess.TimeoutExpired:
            pass
        time.sleep(5)


NCCL_PORT = 29517

SCENARIOS = [
    # vLLM: flags and environment
    Scenario("v-prefix-hash-xxhash", "vllm", "--enable-prefix-caching --prefix-caching-hash-algo "
             "xxhash without the xxhash package installed, then requests",
             [*BASE, "--enable-prefix-caching", "--prefix-caching-hash-algo", "xxhash"],
             act=serve_short),
    Scenario("v-seed-huge", "vllm", "--seed 99999999999999999999 (above 2**64)",
             [*BASE, "--seed", "99999999999999999999"], act=until_exit),
    Scenario("v-priority-requests", "vllm", "--scheduling-policy priority, requests with "
             "priorities 5, -3, \"high\" and 10**30", [*BASE, "--scheduling-policy", "priority"],
             act=priority_requests),
    Scenario("v-env-omp-threads-text", "vllm", "OMP_NUM_THREADS=auto (not a number)", BASE,
             env={"OMP_NUM_THREADS": "auto"}, act=serve_short),
    Scenario("v-env-use-v1-0", "vllm", "VLLM_USE_V1=0 (the V0 engine of earlier releases)",
             BASE, env={"VLLM_USE_V1": "0"}, act=serve_short),
    # vLLM: checkpoint edits
    Scenario("v-eos-string", "vllm", "config.json eos_token_id \"</s>\" (a token string, not an "
             "id)", BASE, model=eos_string, act=serve_short),
    Scenario("v-rms-eps-string", "vllm", "config.json rms_norm_eps \"1e-6\" (a string)", BASE,
             model=rms_eps_string, act=serve_short),
    Scenario("v-genconf-eos-oov", "vllm", "generation_config.json eos_token_id [1, 70000] "
             "(70000 outside the 512-token vocabulary), then requests", BASE,
             model=genconf_eos_oov, act=serve_short),
    Scenario("v-special-token-oov", "vllm", "tokenizer_config.json eos_token \"<|im_end|>\" and "
             "pad_token \"<|endoftext|>\", tokens the vocabulary lacks, then requests", BASE,
             model=special_token_oov, act=serve_short),
    Scenario("v-shard-is-dir", "vllm", "the third safetensors shard an empty folder of the "
             "same name", BASE, model=shard_is_dir, act=until_exit),
    # vLLM: runtime events, limits and clients
    Scenario("v-double-ctrl-c", "vllm", "Ctrl-C twice 0.4 s apart (SIGINT to the group) with "
             "sixteen 240-token requests sent 0.6 s before", BASE, before=dfl_signals, act=double_ctrl_c),
    Scenario("v-cpu-limit-core", "vllm", "the CPU-time limit (ulimit -t) of the worker and "
             "EngineCore processes set 3 s above their use while serving, then waves of long requests", BASE, act=cpu_limit_core),
    Scenario("v-sigterm-api-streaming", "vllm", "SIGTERM to the API server process alone with "
             "three streaming requests running", BASE, act=sigterm_api_streaming),
    Scenario("v-kv-preemption", "vllm", "--kv-cache-memory-bytes 1 MiB (about four full "
             "sequences), 16 concurrent 200-token generations",
             [*BASE, "--kv-cache-memory-bytes", "1048576"], act=preempting_burst),
    # SGLang
    Scenario("s-nccl-port-taken", "sglang", f"--nccl-port {NCCL_PORT}, a port another process "
             "holds", [*SG, "--nccl-port", str(NCCL_PORT)], before=take_port(NCCL_PORT),
             act=sg_until_exit),
    Scenario("s-eos-string", "sglang", "config.json eos_token_id \"</s>\" (a token string)", SG,
             model=eos_string, act=sg_until_exit),
    Scenario("s-special-token-oov", "sglang", "tokenizer_config.json eos_token \"<|im_end|>\" "
             "and pad_token \"<|endoftext|>\", tokens the vocabulary lacks", SG,
             model=special_token_oov, act=sg_until_exit),
    Scenario("s-override-layers-text", "sglang", "--json-model-override-args "
             "'{\"num_hidden_layers\": \"two\"}' (valid JSON, a string for a count)",
             [*SG, "--json-model-override-args", '{"num_hidden_layers": "two"}'],
             act=sg_until_exit),
    Scenario("s-max-running-0", "sglang", "--max-running-requests 0",
             [*SG, "--max-running-requests", "0"], act=sg_until_exit),
    Scenario("s-model-empty-dir", "sglang", "--model-path naming an existing empty folder", SG,
             model=empty_dir, act=sg_until_exit),
    Scenario("s-sigterm-launcher", "sglang", "SIGTERM to the launcher process alone 6 s after "
             "the server arguments are logged", SG, act=sigterm_launcher_alone),
]


def json_schema_requests(ctx: Ctx) -> None:
    """Plain requests, then two asking for JSON-schema-constrained output, then plain again."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(1)
        schema = {"type": "object", "properties": {"name": {"type": "string"}},
                  "required": ["name"]}
        for _ in range(2):
            ctx.post("/v1/completions", {"model": name, "prompt": "json:", "max_tokens": 16,
                                         "structured_outputs": {"json": schema}}, timeout=90)
        ctx.complete(1)
        time.sleep(12)


SCENARIOS += [
    Scenario("v-lmfe-json-requests", "vllm", "--structured-outputs-config backend "
             "lm-format-enforcer (its transformers integration does not import here), then "
             "JSON-schema requests",
             [*BASE, "--structured-outputs-config", '{"backend": "lm-format-enforcer"}'],
             act=json_schema_requests),
]


def chat_template_syntax(work: Path) -> Path:
    d = copy_model(work, "chat-template-syntax")
    tc = d / "tokenizer_config.json"
    data = json.loads(tc.read_text())
    data["chat_template"] = ("{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] }}"
                             "{% endfor %{% if add_generation_prompt %}<|assistant|>{% endif %}")
    tc.write_text(json.dumps(data, indent=2))
    return d


SCENARIOS += [
    Scenario("v-prom-dir-missing", "vllm", "PROMETHEUS_MULTIPROC_DIR naming a folder that does "
             "not exist (a Kubernetes manifest's leftover)", BASE,
             env={"PROMETHEUS_MULTIPROC_DIR": "/var/run/prometheus-multiproc"}, act=serve_short),
    Scenario("s-prom-dir-missing", "sglang", "--enable-metrics with PROMETHEUS_MULTIPROC_DIR "
             "naming a folder that does not exist", [*SG, "--enable-metrics"],
             env={"PROMETHEUS_MULTIPROC_DIR": "/var/run/prometheus-multiproc"},
             act=sg_until_exit),
    Scenario("s-chat-template-syntax", "sglang", "tokenizer_config.json chat_template with a "
             "Jinja syntax error", SG, model=chat_template_syntax, act=sg_until_exit),
    Scenario("s-dist-init-unresolvable", "sglang", "--dist-init-addr naming a host that does not "
             "resolve (a multi-node launch line reused on one node), --dist-timeout 30",
             [*SG, "--dist-init-addr", "sglang-head.cluster.invalid:5000", "--dist-timeout",
              "30"], act=sg_until_exit),
]


SCENARIOS += [
    Scenario("s-omp-bind-bad", "sglang", "SGLANG_CPU_OMP_THREADS_BIND=8-15 (cores this 2-core "
             "host lacks; a tuning line copied from a bigger machine)", SG,
             env={"SGLANG_CPU_OMP_THREADS_BIND": "8-15"}, act=sg_until_exit),
    Scenario("s-pp2-cpu", "sglang", "--pp-size 2 on the CPU device", [*SG, "--pp-size", "2"],
             act=sg_until_exit),
]


def heads_zero(work: Path) -> Path:
    return config_with(work, "heads-zero", num_attention_heads=0)


def tokenizer_model_type(work: Path) -> Path:
    """tokenizer.json that parses as JSON but names a tokenizer model type that does not exist
    (written by a newer tokenizers release)."""
    d = copy_model(work, "tokenizer-model-type")
    t = d / "tokenizer.json"
    data = json.loads(t.read_text())
    data["model"]["type"] = "BPE2"
    t.write_text(json.dumps(data))
    return d


SCENARIOS += [
    Scenario("v-heads-zero", "vllm", "config.json num_attention_heads 0", BASE, model=heads_zero,
             act=until_exit),
    Scenario("v-tokenizer-model-type", "vllm", "tokenizer.json (valid JSON) naming a tokenizer "
             "model type \"BPE2\" that the tokenizers library lacks", BASE,
             model=tokenizer_model_type, act=until_exit),
    Scenario("s-tokenizer-model-type", "sglang", "tokenizer.json (valid JSON) naming a tokenizer "
             "model type \"BPE2\" that the tokenizers library lacks", SG,
             model=tokenizer_model_type, act=sg_until_exit),
]


def write_pem_junk(ctx: Ctx) -> None:
    d = WORK / "tls"
    d.mkdir(parents=True, exist_ok=True)
    (d / "key.pem").write_text("-----BEGIN PRIVATE KEY-----\nnot a key\n-----END PRIVATE KEY-----\n")
    (d / "cert.pem").write_text("-----BEGIN CERTIFICATE-----\nnot a cert\n-----END CERTIFICATE-----\n")


SCENARIOS += [
    Scenario("v-ssl-pem-junk", "vllm", "--ssl-keyfile/--ssl-certfile naming PEM files whose "
             "bodies are not a key or certificate",
             [*BASE, "--ssl-keyfile", str(WORK / "tls" / "key.pem"), "--ssl-certfile",
              str(WORK / "tls" / "cert.pem")], before=write_pem_junk, act=until_exit),
    Scenario("s-ssl-key-only", "sglang", "--ssl-keyfile without --ssl-certfile",
             [*SG, "--ssl-keyfile", "/etc/sglang/tls/key.pem"], act=sg_until_exit),
]
