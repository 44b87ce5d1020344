"""The sixty-seventh batch's scenarios (tests/fixtures/corpus/fresh66): faults chosen, recorded
and labelled by a helper who had not read the classifier's rules (nor its tests or docs), given
only the recorder, its building blocks and the corpus's labelling rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind67.py OUT

Kept as it was run: WORK is the folder it made its broken copies in (named in the logs' source
lines).
"""

from __future__ import annotations

import http.client
import json
import os
import resource
import shutil
import signal
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    Ctx,
    Scenario,
    config_with,
    copy_model,
)
from setup_engines import LLAMA_HD16  # noqa: E402

BASE = ["--max-model-len", "256", "--dtype", "bfloat16", "--gpu-memory-utilization", "0.25"]
WORK = Path("/tmp/blind67/rec/.work")


# --- helpers --------------------------------------------------------------------------------

def _up(ctx: Ctx, timeout: float = 240) -> bool:
    return ctx.wait_any([READY_LINE], timeout) is not None


def serve_short(ctx: Ctx) -> None:
    """Serve three completions if it comes up (startup bounded at 240 s)."""
    if _up(ctx):
        ctx.complete(3, max_tokens=24)
        time.sleep(12)


def until_exit(ctx: Ctx) -> None:
    """A launch expected to fail: wait for the exit (or the ready line), at most 240 s."""
    ctx.wait_any([READY_LINE], 240)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(10)


# --- model breakers ------------------------------------------------------------------------

def config_from_hd16(work: Path) -> Path:
    """The tiny model's weights under the config.json of another model (hidden 64, head_dim 16)."""
    d = copy_model(work, "config-from-other-model")
    shutil.copy(LLAMA_HD16.dir / "config.json", d / "config.json")
    return d


def more_layers(work: Path) -> Path:
    return config_with(work, "more-layers", num_hidden_layers=4)


def fewer_layers(work: Path) -> Path:
    return config_with(work, "fewer-layers", num_hidden_layers=1)


def bad_rope(work: Path) -> Path:
    return config_with(work, "bad-rope", rope_parameters={"rope_type": "nosuch",
                                                           "rope_theta": 10000.0,
                                                           "factor": 2.0})


def bogus_quant(work: Path) -> Path:
    return config_with(work, "bogus-quant", quantization_config={"quant_method": "nosuchq",
                                                                  "bits": 4})


def bad_header(work: Path) -> Path:
    """The second shard's 8-byte header length overwritten (bit rot / a bad copy)."""
    d = copy_model(work, "bad-header")
    shard = sorted(d.glob("model-*.safetensors"))[1]
    data = bytearray(shard.read_bytes())
    data[:8] = b"\xff" * 8
    shard.write_bytes(bytes(data))
    return d


def dangling_symlink(work: Path) -> Path:
    """A hub-cache style folder whose third shard links to a blob that was pruned."""
    d = copy_model(work, "dangling-link")
    shard = sorted(d.glob("model-*.safetensors"))[2]
    shard.unlink()
    (work / "blobs").mkdir(exist_ok=True)
    shard.symlink_to(work / "blobs" / "3f9a0c1e-pruned")
    return d


def broken_chat_template(work: Path) -> Path:
    d = copy_model(work, "broken-chat-template")
    tc = d / "tokenizer_config.json"
    cfg = json.loads(tc.read_text())
    cfg["chat_template"] = ("{% for m in messages %}<|{{ m.role }}|>{{ m.content }"
                            "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}")
    tc.write_text(json.dumps(cfg, indent=2))
    return d


def bad_generation_values(work: Path) -> Path:
    """generation_config.json that parses but holds values no sampler accepts."""
    d = copy_model(work, "bad-generation-values")
    gc = d / "generation_config.json"
    cfg = json.loads(gc.read_text())
    cfg.update({"do_sample": True, "temperature": -0.7, "top_p": 1.8, "top_k": -5})
    gc.write_text(json.dumps(cfg, indent=2))
    return d


# --- before steps --------------------------------------------------------------------------

def make_empty_tokenizer_dir(ctx: Ctx) -> None:
    (WORK / "empty-tokenizer").mkdir(parents=True, exist_ok=True)


def make_cache_root_file(ctx: Ctx) -> None:
    WORK.mkdir(parents=True, exist_ok=True)
    (WORK / "vllm-cache-is-a-file").write_text("not a directory\n")


def limited(res: int, value: int, step):
    """Lower the server's own limit (soft and hard) right after it is spawned, as `ulimit`
    in its shell would; the limit is inherited by every process it starts."""
    import psutil

    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        psutil.Process(ctx.proc.pid).rlimit(res, (value, value))
        step(ctx)
    return act


# --- acts on a running server -------------------------------------------------------------

def kill_core_after_load(ctx: Ctx) -> None:
    """SIGKILL to the EngineCore process once its weights are loaded (before the server is up)."""
    if ctx.wait_any(["Model loading took", "Loading weights took"], 240):
        time.sleep(1)
        for p in ctx.children("EngineCore"):
            p.kill()
        ctx.wait_any([READY_LINE], 40)
        time.sleep(5)


def kill_api_during_load(ctx: Ctx) -> None:
    """SIGKILL to the API server process alone while the engine core loads the weights."""
    if ctx.wait_any(["Starting to load model"], 240):
        assert ctx.proc is not None
        os.kill(ctx.proc.pid, signal.SIGKILL)
        time.sleep(40)


def _long_requests(ctx: Ctx, n: int, max_tokens: int, timeout: float) -> list[threading.Thread]:
    name = ctx.model_name()
    ts = [threading.Thread(target=ctx.post, args=("/v1/completions",
                                                   {"model": name, "prompt": f"long story {i}",
                                                    "max_tokens": max_tokens,
                                                    "ignore_eos": True}),
                           kwargs={"timeout": timeout}, daemon=True) for i in range(n)]
    for t in ts:
        t.start()
    return ts


def sigint_with_requests_in_flight(ctx: Ctx) -> None:
    if _up(ctx):
        ctx.complete(1)
        _long_requests(ctx, 4, 200, 120)
        time.sleep(4)
        assert ctx.proc is not None
        os.killpg(ctx.proc.pid, signal.SIGINT)
        try:
            ctx.proc.wait(60)
        except Exception:
            pass


def sighup_serving(ctx: Ctx) -> None:
    """The terminal that started it closes: SIGHUP to the group while it serves."""
    if _up(ctx):
        ctx.complete(2)
        time.sleep(11)
        assert ctx.proc is not None
        os.killpg(ctx.proc.pid, signal.SIGHUP)
        time.sleep(15)


def sigterm_core_serving(ctx: Ctx) -> None:
    """SIGTERM to the EngineCore process alone while requests run."""
    if _up(ctx):
        ctx.complete(1)
        _long_requests(ctx, 2, 200, 60)
        time.sleep(3)
        for p in ctx.children("EngineCore"):
            p.terminate()
        time.sleep(5)
        ctx.complete(1)
        time.sleep(10)


def stream_and_drop(ctx: Ctx) -> None:
    """A burst of streaming clients that disconnect after the first chunks."""
    if _up(ctx):
        name = ctx.model_name()
        ctx.complete(1)

        def one(i: int) -> None:
            try:
                c = http.client.HTTPConnection("127.0.0.1", ctx.port, timeout=30)
                body = json.dumps({"model": name, "prompt": f"tell me {i}", "max_tokens": 220,
                                   "ignore_eos": True, "stream": True})
                c.request("POST", "/v1/completions", body,
                          {"Content-Type": "application/json"})
                r = c.getresponse()
                r.read(200)
                c.close()
            except OSError:
                pass

        ts = [threading.Thread(target=one, args=(i,), daemon=True) for i in range(12)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(60)
        ctx.complete(1)
        time.sleep(12)


def structured_requests(ctx: Ctx) -> None:
    """Structured output: a valid JSON schema, then an invalid regex, schema and empty choice."""
    if _up(ctx):
        name = ctx.model_name()
        ctx.complete(1)
        schema = {"type": "object", "properties": {"a": {"type": "integer"}}, "required": ["a"]}
        ctx.post("/v1/chat/completions", {
            "model": name, "messages": [{"role": "user", "content": "json"}], "max_tokens": 20,
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": "x", "schema": schema}}})
        ctx.post("/v1/completions", {"model": name, "prompt": "json:", "max_tokens": 20,
                                     "structured_outputs": {"json": schema}})
        ctx.post("/v1/completions", {"model": name, "prompt": "re:", "max_tokens": 10,
                                     "structured_outputs": {"regex": "([a-z"}})
        ctx.post("/v1/completions", {"model": name, "prompt": "js:", "max_tokens": 10,
                                     "structured_outputs": {"json": {"type": "nosuchtype"}}})
        ctx.post("/v1/completions", {"model": name, "prompt": "ch:", "max_tokens": 10,
                                     "structured_outputs": {"choice": []}})
        ctx.complete(1)
        time.sleep(12)


def chat_requests(ctx: Ctx) -> None:
    if _up(ctx):
        name = ctx.model_name()
        ctx.complete(1)
        for i in range(3):
            ctx.post("/v1/chat/completions", {"model": name, "max_tokens": 12,
                                              "messages": [{"role": "user",
                                                            "content": f"hi {i}"}]})
        ctx.complete(1)
        time.sleep(12)


def runtime_bad_lora(ctx: Ctx) -> None:
    """Loads an adapter at runtime whose rank exceeds --max-lora-rank and whose weights are junk."""
    if _up(ctx):
        ad = WORK / "bad-adapter"
        ad.mkdir(parents=True, exist_ok=True)
        (ad / "adapter_config.json").write_text(json.dumps({
            "peft_type": "LORA", "r": 64, "lora_alpha": 16, "target_modules": ["q_proj", "v_proj"],
            "base_model_name_or_path": "llama-tiny", "task_type": "CAUSAL_LM"}))
        (ad / "adapter_model.safetensors").write_bytes(b"\x00" * 64)
        ctx.complete(1)
        ctx.post("/v1/load_lora_adapter", {"lora_name": "ad", "lora_path": str(ad)})
        ctx.post("/v1/completions", {"model": "ad", "prompt": "fox", "max_tokens": 8})
        ctx.complete(1)
        time.sleep(12)


# --- the scenarios ------------------------------------------------------------------------

SCENARIOS = [
    # refused configurations: flags, values, environment, config.json contents
    Scenario("v-tool-choice-no-parser", "vllm", "--enable-auto-tool-choice without "
             "--tool-call-parser", [*BASE, "--enable-auto-tool-choice"], act=until_exit),
    Scenario("v-reasoning-parser-bad", "vllm", "--reasoning-parser naming a parser that does "
             "not exist", [*BASE, "--reasoning-parser", "nosuchparser"], act=until_exit),
    Scenario("v-gpu-util-over", "vllm", "--gpu-memory-utilization 1.5",
             ["--max-model-len", "256", "--dtype", "bfloat16", "--gpu-memory-utilization",
              "1.5"], act=until_exit),
    Scenario("v-middleware-missing", "vllm", "--middleware naming a module that is not "
             "installed", [*BASE, "--middleware", "corp_auth.middleware.TokenCheck"],
             act=until_exit),
    Scenario("v-ssl-files-missing", "vllm", "--ssl-keyfile/--ssl-certfile naming files that "
             "do not exist", [*BASE, "--ssl-keyfile", "/etc/vllm/tls/key.pem",
                              "--ssl-certfile", "/etc/vllm/tls/cert.pem"], act=until_exit),
    Scenario("v-env-logging-config", "vllm", "VLLM_LOGGING_CONFIG_PATH naming a file that "
             "does not exist", BASE, env={"VLLM_LOGGING_CONFIG_PATH": "/etc/vllm/logging.json"},
             act=until_exit),
    Scenario("v-structured-backend-bad", "vllm", "--structured-outputs-config with an unknown "
             "backend", [*BASE, "--structured-outputs-config", '{"backend": "nosuch"}'],
             act=until_exit),
    Scenario("v-sleep-mode-cpu", "vllm", "--enable-sleep-mode on the CPU build",
             [*BASE, "--enable-sleep-mode"], act=until_exit),
    Scenario("v-cache-root-file", "vllm", "VLLM_CACHE_ROOT pointing at a regular file",
             BASE, env={"VLLM_CACHE_ROOT": str(WORK / "vllm-cache-is-a-file")},
             before=make_cache_root_file, act=serve_short),
    Scenario("v-bad-rope", "vllm", "config.json rope_parameters with an unknown rope_type",
             BASE, model=bad_rope, act=until_exit),
    Scenario("v-bogus-quant-config", "vllm", "config.json with a quantization_config of an "
             "unknown quant_method", BASE, model=bogus_quant, act=until_exit),
    # checkpoint, tokenizer and file problems
    Scenario("v-head-dim-16", "vllm", "a model with head_dim 16 (hidden 64, 4 heads)", BASE,
             model=lambda work: LLAMA_HD16.dir, act=serve_short),
    Scenario("v-config-other-model", "vllm", "the weights of one model under the config.json "
             "of a smaller one", BASE, model=config_from_hd16, act=until_exit),
    Scenario("v-more-layers", "vllm", "config.json num_hidden_layers 4, checkpoint has 2",
             BASE, model=more_layers, act=until_exit),
    Scenario("v-fewer-layers", "vllm", "config.json num_hidden_layers 1, checkpoint has 2",
             BASE, model=fewer_layers, act=until_exit),
    Scenario("v-bad-header", "vllm", "the second shard's safetensors header length "
             "overwritten", BASE, model=bad_header, act=until_exit),
    Scenario("v-dangling-shard-link", "vllm", "the third shard a symlink to a pruned blob",
             BASE, model=dangling_symlink, act=until_exit),
    Scenario("v-tokenizer-empty-dir", "vllm", "--tokenizer naming an existing empty folder",
             [*BASE, "--tokenizer", str(WORK / "empty-tokenizer")],
             before=make_empty_tokenizer_dir, act=until_exit),
    Scenario("v-chat-template-syntax", "vllm", "tokenizer_config.json chat_template with a "
             "Jinja syntax error, then chat requests", BASE, model=broken_chat_template,
             act=chat_requests),
    Scenario("v-generation-values", "vllm", "generation_config.json with temperature -0.7, "
             "top_p 1.8, top_k -5", BASE, model=bad_generation_values, act=serve_short),
    # runtime events
    Scenario("v-kill-core-after-load", "vllm", "SIGKILL to the EngineCore once its weights "
             "are loaded, before the server is up", BASE, act=kill_core_after_load),
    Scenario("v-kill-api-during-load", "vllm", "SIGKILL to the API server process alone "
             "while the engine core loads weights", BASE, act=kill_api_during_load),
    Scenario("v-sigint-in-flight", "vllm", "Ctrl-C (SIGINT to the group) with four long "
             "requests in flight", BASE, act=sigint_with_requests_in_flight),
    Scenario("v-sighup-serving", "vllm", "SIGHUP to the group (terminal closed) while serving",
             BASE, before=lambda ctx: signal.signal(signal.SIGHUP, signal.SIG_DFL),
             act=sighup_serving),
    Scenario("v-sigterm-core-serving", "vllm", "SIGTERM to the EngineCore process alone with "
             "requests running", BASE, act=sigterm_core_serving),
    Scenario("v-stream-disconnects", "vllm", "12 streaming clients that disconnect after the "
             "first chunks", BASE, act=stream_and_drop),
    Scenario("v-structured-requests", "vllm", "structured-output requests: a JSON schema, an "
             "invalid regex, an invalid schema, an empty choice", BASE,
             act=structured_requests),
    Scenario("v-runtime-lora-bad", "vllm", "runtime LoRA loading of an adapter with rank 64 "
             "(max 8) and junk weights", [*BASE, "--enable-lora", "--max-lora-rank", "8"],
             env={"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "True"}, act=runtime_bad_lora),
    Scenario("v-nofile-limit", "vllm", "ulimit -n 64 (hard and soft) for the server",
             BASE, act=limited(resource.RLIMIT_NOFILE, 64, serve_short)),
    Scenario("v-kv-space-over-memlimit", "vllm", "VLLM_CPU_KVCACHE_SPACE=40 (GiB) under a "
             "16 GiB address-space limit (ulimit -v)", BASE,
             env={"VLLM_CPU_KVCACHE_SPACE": "40"},
             act=limited(resource.RLIMIT_AS, 16 << 30, serve_short)),
    # SGLang: faults at or before argument/config resolution
    Scenario("s-lora-no-rank", "sglang", "--enable-lora with no adapter paths, rank or target "
             "modules", ["--device", "cpu", "--enable-lora"], act=until_exit),
    Scenario("s-watchdog-text", "sglang", "--watchdog-timeout 5m (not a number)",
             ["--device", "cpu", "--watchdog-timeout", "5m"], act=until_exit),
    Scenario("s-kv-nvfp4-cpu", "sglang", "--kv-cache-dtype nvfp4 on the CPU device",
             ["--device", "cpu", "--kv-cache-dtype", "nvfp4"], act=until_exit),
    Scenario("s-bogus-quant-config", "sglang", "config.json with a quantization_config of an "
             "unknown quant_method", ["--device", "cpu"], model=bogus_quant, act=until_exit),
    Scenario("s-bad-rope", "sglang", "config.json rope_parameters with an unknown rope_type",
             ["--device", "cpu"], model=bad_rope, act=until_exit),
]
