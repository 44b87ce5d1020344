"""The ninety-first batch's scenarios (tests/fixtures/corpus/fresh90): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind91.py OUT

Themes: the serving phase and its requests (grammars and schemas the structured-output backend
must refuse, a tool-call parser asked for tools, a prompt of megabytes and a batch of a
thousand prompts), a process stopped and continued and a pids limit reached while serving,
weight files cut under a running server, and environment variables a deployment sets (VLLM_*
with values of the wrong kind, libgomp's OMP_PROC_BIND / GOMP_CPU_AFFINITY copied from another
machine, a CA bundle path that is not there, an LD_PRELOAD from an unset CONDA_PREFIX, SGLang's
list of disabled model modules). SGLang's own Llama module cannot be built on this host (it imports
vllm), so most of its faults are those it meets before loading (environment and serving flags);
its three serving scenarios run the model through the Transformers backend
(--model-impl transformers), with which it serves here.

v-pids-squeeze-serving moves the run's process tree into a pids cgroup (v1) named
blind91-pids; the cgroup is removed by hand after the run. Broken model copies go to OUT/.work.
"""

from __future__ import annotations

import json
import sys
import threading
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    linger,
    serve_short,
    sg_until_exit,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
HUB_ID = Path("Qwen/Qwen2.5-0.5B-Instruct")
CG = Path("/sys/fs/cgroup")

# a hub id fetched online, with SSL_CERT_FILE naming a corporate CA bundle this image lacks
# the tiny model ships no chat template: a plain one (tools listed when given), written by
# the scenarios that chat
CHAT_TEMPLATE = Path("/tmp/blind91/chat.jinja")
CHAT_JINJA = ("{% if tools %}Tools: {{ tools | tojson }}\n{% endif %}"
              "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
CHAT = ["--chat-template", str(CHAT_TEMPLATE)]


def write_template(ctx: Ctx) -> None:
    CHAT_TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)


CA_ENV = {"HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0", "HF_HOME": "/tmp/blind91/hf-empty",
          "SSL_CERT_FILE": "/etc/ssl/corp/ca-bundle.pem"}


def in_background(ctx: Ctx, n: int, body: dict, path: str = "/v1/completions",
                  timeout: float = 120) -> list[threading.Thread]:
    ts = [threading.Thread(target=ctx.post, args=(path, body, timeout), daemon=True)
          for _ in range(n)]
    for t in ts:
        t.start()
    return ts


def grammar_requests(ctx: Ctx) -> None:
    """Two completions, then structured-output requests the backend must refuse: an EBNF
    grammar cut short, a JSON schema whose $ref names no definition, a structural tag whose
    schema is a number, a json_schema response format with no schema, a regex of a million
    repeats; then one plain completion."""
    if not up(ctx, 240):
        return
    name = ctx.model_name()
    ctx.complete(2)
    ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 16,
                                 "structured_outputs": {"grammar": 'root ::= ( "a" | '}})
    ctx.post("/v1/chat/completions", {
        "model": name, "max_tokens": 16, "messages": [{"role": "user", "content": "json"}],
        "response_format": {"type": "json_schema", "json_schema": {
            "name": "w", "schema": {"type": "object",
                                    "properties": {"a": {"$ref": "#/$defs/missing"}}}}}})
    ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 16,
                                 "structured_outputs": {"structural_tag": (
                                     '{"type": "structural_tag", "structures": [{"begin": "<f>",'
                                     ' "schema": 5, "end": "</f>"}], "triggers": ["<f>"]}')}})
    ctx.post("/v1/chat/completions", {
        "model": name, "max_tokens": 16, "messages": [{"role": "user", "content": "json"}],
        "response_format": {"type": "json_schema"}})
    ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 16,
                                 "structured_outputs": {"regex": "(a|aa)*b{1000000}"}},
             timeout=90)
    ctx.complete(1)
    linger(ctx, 12)


TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "weather of a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]


def tool_requests(ctx: Ctx) -> None:
    """Two completions, then chat requests with tools: a tool whose parameters are a string,
    tool_choice naming a function not offered, tool_choice required, tool_choice auto streamed;
    then one plain completion."""
    if not up(ctx, 240):
        return
    name = ctx.model_name()
    msgs = [{"role": "user", "content": "weather in Paris?"}]
    ctx.complete(2)
    ctx.post("/v1/chat/completions", {"model": name, "messages": msgs, "max_tokens": 32,
                                      "tool_choice": "required", "tools": [
                                          {"type": "function", "function": {
                                              "name": "get_weather",
                                              "parameters": "city: string"}}]})
    ctx.post("/v1/chat/completions", {"model": name, "messages": msgs, "max_tokens": 32,
                                      "tools": TOOLS, "tool_choice": {
                                          "type": "function",
                                          "function": {"name": "book_flight"}}})
    ctx.post("/v1/chat/completions", {"model": name, "messages": msgs, "max_tokens": 48,
                                      "tools": TOOLS, "tool_choice": "required"})
    ctx.post("/v1/chat/completions", {"model": name, "messages": msgs, "max_tokens": 48,
                                      "tools": TOOLS, "tool_choice": "auto", "stream": True})
    time.sleep(3)
    ctx.complete(1)
    linger(ctx, 12)


def huge_requests(ctx: Ctx) -> None:
    """Two completions, then one prompt of 4 MB (a file pasted whole), one request holding
    1,000 prompts, then one plain completion."""
    if not up(ctx, 240):
        return
    name = ctx.model_name()
    ctx.complete(2)
    ctx.post("/v1/completions", {"model": name, "prompt": "fox " * 1_000_000, "max_tokens": 4},
             timeout=180)
    ctx.post("/v1/completions", {"model": name, "prompt": [f"fox {i}" for i in range(1000)],
                                 "max_tokens": 4}, timeout=180)
    ctx.complete(1)
    linger(ctx, 12)


def stop_cont_core(ctx: Ctx) -> None:
    """Two completions, three 64-token requests sent, the EngineCore stopped (SIGSTOP) for 30 s
    under them, then continued (SIGCONT); two more completions."""
    if not up(ctx, 240):
        return
    name = ctx.model_name()
    ctx.complete(2)
    ts = in_background(ctx, 3, {"model": name, "prompt": "fox", "max_tokens": 64})
    time.sleep(0.5)
    cores = ctx.children("EngineCore")
    for p in cores:
        p.suspend()
    time.sleep(30)
    for p in cores:
        p.resume()
    for t in ts:
        t.join(60)
    ctx.complete(2)
    linger(ctx, 15)


def pids_squeeze_serving(ctx: Ctx) -> None:
    """Two completions, then the whole process tree moved into a pids cgroup whose limit is
    the number of tasks it already has (a container's pids limit reached), then six
    concurrent completions, two chat requests and one streamed."""
    if not up(ctx, 240):
        return
    name = ctx.model_name()
    ctx.complete(2)
    d = CG / "pids" / "blind91-pids"
    d.mkdir(exist_ok=True)
    assert ctx.proc is not None
    root = psutil.Process(ctx.proc.pid)
    for p in [root, *root.children(recursive=True)]:
        try:
            (d / "cgroup.procs").write_text(str(p.pid))
        except OSError:
            pass
    (d / "pids.max").write_text((d / "pids.current").read_text().strip())
    ts = in_background(ctx, 6, {"model": name, "prompt": "fox", "max_tokens": 32})
    ts += in_background(ctx, 2, {"model": name, "max_tokens": 16,
                                 "messages": [{"role": "user", "content": "hi"}]},
                        path="/v1/chat/completions")
    ts += in_background(ctx, 1, {"model": name, "prompt": "fox", "max_tokens": 16,
                                 "stream": True})
    for t in ts:
        t.join(90)
    ctx.complete(1)
    linger(ctx, 15)


def shards_truncated_serving(ctx: Ctx) -> None:
    """Two completions, then every safetensors shard of the model copy it serves truncated to
    0 bytes in place (a sync tool rewriting the files the server runs from); three more."""
    if not up(ctx, 240):
        return
    ctx.complete(2)
    for f in sorted((ctx.work / "shards-inplace").glob("*.safetensors")):
        with open(f, "r+b") as fh:
            fh.truncate(0)
    time.sleep(1)
    ctx.complete(3)
    linger(ctx, 12)


SG_READY = "The server is fired up and ready to roll!"
SG_SERVE = [*SG, "--model-impl", "transformers"]


def sg_generate(ctx: Ctx, text: object, timeout: float = 120, **extra: object) -> int:
    params = {"max_new_tokens": 16, **extra.pop("sampling_params", {})}  # type: ignore[dict-item]
    return ctx.post("/generate", {"text": text, "sampling_params": params, **extra}, timeout)


def sg_grammar_requests(ctx: Ctx) -> None:
    """Two generations, then constrained ones the grammar backend must refuse: an EBNF grammar
    cut short, a JSON schema whose $ref names no definition, a json_schema that is not JSON, a
    regex of a million repeats; then one plain generation."""
    if not ctx.wait_for(SG_READY, 240):
        return
    for _ in range(2):
        sg_generate(ctx, "fox")
    sg_generate(ctx, "fox", sampling_params={"ebnf": 'root ::= ( "a" | '})
    sg_generate(ctx, "fox", sampling_params={"json_schema": json.dumps(
        {"type": "object", "properties": {"a": {"$ref": "#/$defs/missing"}}})})
    sg_generate(ctx, "fox", sampling_params={"json_schema": "{type: object"})
    sg_generate(ctx, "fox", sampling_params={"regex": "(a|aa)*b{1000000}"}, timeout=90)
    sg_generate(ctx, "fox")
    linger(ctx, 12)


def sg_logprob_requests(ctx: Ctx) -> None:
    """Two generations, then logprob requests beyond the vocabulary (top_logprobs_num 100000
    of 512 tokens, a negative logprob_start_len, an OpenAI completion asking 1000 logprobs);
    then one plain generation."""
    if not ctx.wait_for(SG_READY, 240):
        return
    for _ in range(2):
        sg_generate(ctx, "fox")
    sg_generate(ctx, "fox", return_logprob=True, top_logprobs_num=100000)
    sg_generate(ctx, "fox", return_logprob=True, top_logprobs_num=5, logprob_start_len=-5)
    ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": "fox", "max_tokens": 8,
                                 "logprobs": 1000})
    sg_generate(ctx, "fox")
    linger(ctx, 12)


def sg_huge_requests(ctx: Ctx) -> None:
    """Two generations, then a 4 MB prompt and one request holding 1,000 prompts, then one
    plain generation."""
    if not ctx.wait_for(SG_READY, 240):
        return
    for _ in range(2):
        sg_generate(ctx, "fox")
    sg_generate(ctx, "fox " * 1_000_000, timeout=180, sampling_params={"max_new_tokens": 4})
    sg_generate(ctx, [f"fox {i}" for i in range(1000)], timeout=180,
                sampling_params={"max_new_tokens": 4})
    sg_generate(ctx, "fox")
    linger(ctx, 12)


SCENARIOS = [
    # vLLM: requests
    Scenario("v-grammar-requests", "vllm", "served, then structured-output requests the "
             "backend must refuse (an EBNF grammar cut short, a JSON schema with a dangling "
             "$ref, a structural tag whose schema is a number, a json_schema response format "
             "with no schema, a regex of a million repeats), then a plain completion",
             [*BASE, *CHAT], before=write_template, act=grammar_requests),
    Scenario("v-tool-hermes-requests", "vllm", "--enable-auto-tool-choice --tool-call-parser "
             "hermes on a model whose tokenizer has no tool-call tokens; chat requests with tools "
             "(parameters a string, tool_choice naming a function not offered, tool_choice "
             "required, auto streamed)",
             [*BASE, *CHAT, "--enable-auto-tool-choice", "--tool-call-parser", "hermes"],
             before=write_template, act=tool_requests),
    Scenario("v-huge-prompt-batch", "vllm", "served, then a 4 MB prompt and one request "
             "holding 1,000 prompts, then a plain completion", BASE, act=huge_requests),
    # vLLM: signals, limits, files while serving
    Scenario("v-stop-cont-core", "vllm", "served, then the EngineCore stopped (SIGSTOP) for 30 s "
             "with three requests in flight, then continued (SIGCONT); two more completions",
             BASE, act=stop_cont_core),
    Scenario("v-pids-squeeze-serving", "vllm", "served, then the process tree moved into a "
             "pids cgroup whose limit is the tasks it already has; nine concurrent requests",
             [*BASE, *CHAT], before=write_template, act=pids_squeeze_serving),
    Scenario("v-shards-truncated-serving", "vllm", "served, then every safetensors shard of "
             "the served model truncated to 0 bytes in place; three more completions", BASE,
             model=lambda work: copy_model(work, "shards-inplace"),
             act=shards_truncated_serving),
    # vLLM: environment
    Scenario("v-output-chunk-0", "vllm", "VLLM_V1_OUTPUT_PROC_CHUNK_SIZE=0 (a tuning value "
             "meant as 'no chunking'), then three completions", BASE,
             env={"VLLM_V1_OUTPUT_PROC_CHUNK_SIZE": "0"}, act=serve_short),
    Scenario("v-compile-cache-bool-word", "vllm", "VLLM_DISABLE_COMPILE_CACHE=true (a word "
             "where vLLM reads 0 or 1)", BASE, env={"VLLM_DISABLE_COMPILE_CACHE": "true"},
             act=until_exit),
    Scenario("v-matmul-precision-tf32", "vllm", "VLLM_FLOAT32_MATMUL_PRECISION=tf32 (a value "
             "of another API; vLLM takes highest, high or medium)", BASE,
             env={"VLLM_FLOAT32_MATMUL_PRECISION": "tf32"}, act=until_exit),
    Scenario("v-kv-layout-hnd", "vllm", "VLLM_KV_CACHE_LAYOUT=HND (a GPU guide's setting) on "
             "the CPU build, then three completions", BASE, env={"VLLM_KV_CACHE_LAYOUT": "HND"},
             act=serve_short),
    Scenario("v-gomp-affinity-absent", "vllm", "GOMP_CPU_AFFINITY=8-15 (cores this 2-core host "
             "lacks; a tuning line copied from a bigger machine)", BASE,
             env={"GOMP_CPU_AFFINITY": "8-15"}, act=until_exit),
    Scenario("v-omp-proc-bind-compact", "vllm", "OMP_PROC_BIND=compact (an Intel KMP_AFFINITY "
             "word, not one libgomp knows), then three completions", BASE,
             env={"OMP_PROC_BIND": "compact"}, act=serve_short),
    Scenario("v-ca-bundle-missing", "vllm", "a hub model id fetched online with SSL_CERT_FILE "
             "naming a corporate CA bundle the image lacks, empty HF_HOME", BASE,
             model=lambda work: HUB_ID, env=CA_ENV, act=until_exit),
    # SGLang: environment
    Scenario("s-disabled-arch-llama", "sglang", "SGLANG_DISABLED_MODEL_ARCHS=llama,qwen2 (model "
             "modules skipped to speed imports, listing the family it serves)", SG,
             env={"SGLANG_DISABLED_MODEL_ARCHS": "llama,qwen2"}, act=sg_until_exit),
    Scenario("s-gomp-affinity-absent", "sglang", "GOMP_CPU_AFFINITY=8-15 (cores this 2-core "
             "host lacks; a tuning line copied from a bigger machine)", SG,
             env={"GOMP_CPU_AFFINITY": "8-15"}, act=sg_until_exit),
    Scenario("s-omp-proc-bind-compact", "sglang", "OMP_PROC_BIND=compact (an Intel KMP_AFFINITY "
             "word, not one libgomp knows)", SG, env={"OMP_PROC_BIND": "compact"},
             act=sg_until_exit),
    Scenario("s-ca-bundle-missing", "sglang", "a hub model id fetched online with SSL_CERT_FILE "
             "naming a corporate CA bundle the image lacks, empty HF_HOME", SG,
             model=lambda work: HUB_ID, env=CA_ENV, act=sg_until_exit),
    Scenario("s-ld-preload-conda-unset", "sglang", "LD_PRELOAD=/lib/libiomp5.so:"
             "/lib/libtcmalloc.so (the CPU guide's ${CONDA_PREFIX}/lib/... with CONDA_PREFIX "
             "unset)", SG, env={"LD_PRELOAD": "/lib/libiomp5.so:/lib/libtcmalloc.so"},
             act=sg_until_exit),
    # SGLang: serving flags
    Scenario("s-chat-kwargs-list", "sglang", "--default-chat-template-kwargs given a JSON list "
             "(['enable_thinking', false]) instead of an object",
             [*SG, "--default-chat-template-kwargs", '["enable_thinking", false]'],
             act=sg_until_exit),
    Scenario("s-prompt-buckets-units", "sglang", "--enable-metrics --prompt-tokens-buckets "
             "custom 100 1k 10k (bucket values with a unit suffix)",
             [*SG, "--enable-metrics", "--prompt-tokens-buckets", "custom", "100", "1k", "10k"],
             act=sg_until_exit),
    Scenario("s-http2-no-granian", "sglang", "--enable-http2 (its HTTP/2 server package, "
             "granian, not installed)", [*SG, "--enable-http2"], act=sg_until_exit),
    Scenario("s-reuseport-one-worker", "sglang", "--enable-http-worker-reuseport with one "
             "tokenizer worker", [*SG, "--enable-http-worker-reuseport"], act=sg_until_exit),
]

# SGLang serving (found while recording s-disabled-arch-llama: its Transformers fallback serves)
SCENARIOS += [
    Scenario("s-grammar-requests", "sglang", "--model-impl transformers; served, then "
             "constrained generations the grammar backend must refuse (an EBNF grammar cut "
             "short, a JSON schema with a dangling $ref, a json_schema that is not JSON, a regex "
             "of a million repeats), then a plain generation", SG_SERVE, act=sg_grammar_requests),
    Scenario("s-logprob-requests", "sglang", "--model-impl transformers; served, then logprob "
             "requests beyond the vocabulary (top_logprobs_num 100000 of 512 tokens, a negative "
             "logprob_start_len, an OpenAI completion asking 1000 logprobs)", SG_SERVE,
             act=sg_logprob_requests),
    Scenario("s-huge-prompt-batch", "sglang", "--model-impl transformers; served, then a 4 MB "
             "prompt and one request holding 1,000 prompts, then a plain generation", SG_SERVE,
             act=sg_huge_requests),
]

# Recorded once each (2026-12-05; about 16 minutes of recording in all). Kept, as final files
# bv101-bv121: nine vLLM scenarios (four served on regardless and are labelled ready for what the
# log shows: v-grammar-requests, v-tool-hermes-requests, v-huge-prompt-batch, and
# v-shards-truncated-serving, whose fault left no trace; v-omp-proc-bind-compact served with
# libgomp's warnings) and all twelve SGLang ones. Dropped, as the fault never showed or never
# bit: v-pids-squeeze-serving (the limit was never reached: pids.events max 0, no task was
# created after the squeeze), v-kv-layout-hnd (the CPU build ignores the variable: `Using LBHNC
# KV cache layout`), v-gomp-affinity-absent (vLLM served with no libgomp line at all, unlike
# SGLang), v-stop-cont-core (the three requests had finished before the stop took hold; the log
# is a plain serving run).
