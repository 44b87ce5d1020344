"""The seventy-first batch's scenarios (tests/fixtures/corpus/fresh70): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules (nor its tests or
docs), given only the recorder, its building blocks, the earlier tables (not to repeat them)
and the corpus's labelling rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind71.py OUT

Kept as it was run (the cgroup scenarios need root and cgroup v1 controllers). WORK is the folder it makes its broken copies and helper files in (named in the logs' source
lines). Some scenarios put the engine's process group into a cgroup (v1: memory, pids, blkio)
of their own, as a container's limits would; the cgroups are named blind71-*.
"""

from __future__ import annotations

import base64
import os
import signal
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import psutil  # noqa: E402
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    config_with,
    copy_model,
    serve_short,
    until_exit,
    up,
)
from setup_engines import VLLM  # noqa: E402

BASE = VLLM_BASE
SG = ["--device", "cpu"]
WORK = Path("/tmp/blind71/rec/.work")
CG = Path("/sys/fs/cgroup")
TP2_ENV = {"VLLM_CPU_OMP_THREADS_BIND": "0|1"}


# --- helpers -----------------------------------------------------------------------------------

def sg_until_exit(ctx: Ctx) -> None:
    assert ctx.proc is not None
    try:
        ctx.proc.wait(150)
    except subprocess.TimeoutExpired:
        pass


def cgroup(controller: str, name: str, settings: dict[str, str]) -> Path:
    d = CG / controller / f"blind71-{name}"
    d.mkdir(exist_ok=True)
    for k, v in settings.items():
        (d / k).write_text(v)
    return d


def in_cgroup(controller: str, name: str, settings: dict[str, str], step):
    """Put the launched server (and so every process it starts) into a cgroup of its own."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        d = cgroup(controller, name, settings)
        (d / "cgroup.procs").write_text(str(ctx.proc.pid))
        step(ctx)
    return act


def rlimited(res: int, value: int, step):
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        psutil.Process(ctx.proc.pid).rlimit(res, (value, value))
        step(ctx)
    return act


def engine_procs(ctx: Ctx) -> list[psutil.Process]:
    return ctx.children("Worker") or ctx.children("EngineCore")


# --- model breakers ----------------------------------------------------------------------------

def model_type_unknown(work: Path) -> Path:
    return config_with(work, "model-type-unknown", model_type="llama7")


def seq_cls_arch(work: Path) -> Path:
    return config_with(work, "seq-cls-arch", architectures=["LlamaForSequenceClassification"],
                       num_labels=2)


def int8_tensor(work: Path) -> Path:
    """Layer 0's o_proj saved as int8 (same shape), no quantization config: a bad conversion."""
    d = copy_model(work, "int8-tensor")
    code = ("import sys, glob, torch\nfrom safetensors.torch import load_file, save_file\n"
            "for f in sorted(glob.glob(sys.argv[1] + '/model-*.safetensors')):\n"
            "    t = load_file(f)\n"
            "    k = [k for k in t if 'layers.0.self_attn.o_proj' in k]\n"
            "    if k:\n"
            "        t[k[0]] = (t[k[0]].float() * 1000).clamp(-127, 127).to(torch.int8)\n"
            "        save_file(t, f, metadata={'format': 'pt'}); break\n")
    subprocess.run([str(VLLM.python), "-c", code, str(d)], check=True)
    return d


def slow_disk_model(work: Path) -> Path:
    """A fresh copy whose pages are dropped from the page cache (read from disk on load)."""
    d = copy_model(work, "slow-disk")
    for f in d.iterdir():
        fd = os.open(f, os.O_RDONLY)
        try:
            os.fsync(fd)
            os.posix_fadvise(fd, 0, 0, os.POSIX_FADV_DONTNEED)
        finally:
            os.close(fd)
    return d


# --- before steps ------------------------------------------------------------------------------

def shadow_package(pkg: str, files: dict[str, str]):
    """A stale, half-copied package of the same name on PYTHONPATH (ahead of site-packages)."""
    def before(ctx: Ctx) -> None:
        d = WORK / "pyshadow" / pkg
        d.mkdir(parents=True, exist_ok=True)
        for name, text in files.items():
            (d / name).write_text(text)
    return before


def fresh_cache(ctx: Ctx) -> None:
    d = WORK / "fresh-cache"
    subprocess.run(["rm", "-rf", str(d)])
    d.mkdir(parents=True)


def write_embeds(ctx: Ctx) -> None:
    """Prompt embeddings of the wrong width (100, the model's is 256), torch.save'd."""
    code = ("import torch, io, base64, sys\nb = io.BytesIO()\n"
            "torch.save(torch.randn(5, 100, dtype=torch.float32), b)\n"
            "open(sys.argv[1], 'w').write(base64.b64encode(b.getvalue()).decode())\n")
    WORK.mkdir(parents=True, exist_ok=True)
    subprocess.run([str(VLLM.python), "-c", code, str(WORK / "embeds.b64")], check=True)


# --- acts --------------------------------------------------------------------------------------

def long_prompt(ctx: Ctx) -> None:
    """A prompt of about 3,000 tokens, past the model's 2,048 positions."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(1)
        ctx.post("/v1/completions", {"model": name, "prompt": "fox jumps " * 1500,
                                     "max_tokens": 8}, timeout=120)
        ctx.complete(1)
        time.sleep(12)


def signal_engine_when(needles: list[str], sig: int, delay: float = 0.5):
    def act(ctx: Ctx) -> None:
        if ctx.wait_any(needles, 240):
            time.sleep(delay)
            for p in ctx.children("EngineCore"):
                try:
                    p.send_signal(sig)
                except psutil.Error:
                    pass
            ctx.wait_any([READY_LINE], 60)
            time.sleep(5)
    return act


def signal_worker_when(needles: list[str], sig: int, delay: float = 0.5):
    def act(ctx: Ctx) -> None:
        if ctx.wait_any(needles, 240):
            time.sleep(delay)
            for p in engine_procs(ctx)[-1:]:
                try:
                    p.send_signal(sig)
                except psutil.Error:
                    pass
            ctx.wait_any([READY_LINE], 60)
            time.sleep(5)
    return act


def prompt_embeds_requests(ctx: Ctx) -> None:
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(1)
        ctx.post("/v1/completions", {"model": name, "max_tokens": 4,
                                     "prompt_embeds": base64.b64encode(b"not a tensor").decode()})
        good = (WORK / "embeds.b64").read_text()
        ctx.post("/v1/completions", {"model": name, "max_tokens": 4, "prompt_embeds": good},
                 timeout=60)
        ctx.complete(1)
        time.sleep(12)


def seq_cls_requests(ctx: Ctx) -> None:
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        name = ctx.model_name()
        ctx.complete(1)
        ctx.post("/classify", {"model": name, "input": "the quick brown fox"})
        time.sleep(12)


def kill_scheduler_at_init(ctx: Ctx) -> None:
    """SIGKILL to SGLang's scheduler subprocess while it imports (as an OOM killer would)."""
    end = time.monotonic() + 90
    while time.monotonic() < end:
        procs = ctx.children("scheduler")
        if procs:
            time.sleep(4)
            for p in ctx.children("scheduler"):
                try:
                    p.kill()
                except psutil.Error:
                    pass
            break
        if ctx.proc is not None and ctx.proc.poll() is not None:
            break
        time.sleep(0.3)
    sg_until_exit(ctx)


SCENARIOS = [
    # vLLM: flags and environment
    Scenario("v-host-not-local", "vllm", "--host 10.99.99.99, an address this host does not "
             "have (a launch line copied from another machine)",
             ["--host", "10.99.99.99", *BASE], act=until_exit),
    Scenario("v-pythonpath-shadow", "vllm", "PYTHONPATH holding a stale, half-copied "
             "`safetensors` package (only an empty __init__.py) ahead of site-packages", BASE,
             env={"PYTHONPATH": str(WORK / "pyshadow")},
             before=shadow_package("safetensors", {"__init__.py": ""}), act=until_exit),
    Scenario("v-batched-tokens-huge", "vllm", "--max-num-batched-tokens 1000000000",
             [*BASE, "--max-num-batched-tokens", "1000000000"], act=until_exit),
    Scenario("v-long-len-rope", "vllm", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 with --max-model-len "
             "4096 over the model's 2048 positions, then a 3,000-token prompt",
             ["--max-model-len", "4096", "--max-num-batched-tokens", "4096", "--dtype",
              "bfloat16", "--gpu-memory-utilization", "0.25"],
             env={"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}, act=long_prompt),
    Scenario("v-prompt-embeds-bad", "vllm", "--enable-prompt-embeds, then prompt_embeds that "
             "are not a tensor and a tensor 100 wide (the model's hidden size is 256)",
             [*BASE, "--enable-prompt-embeds"], before=write_embeds,
             act=prompt_embeds_requests),
    Scenario("v-loopback-bogus-tp2", "vllm", "tensor parallel 2 with VLLM_LOOPBACK_IP="
             "192.0.2.1 (an address not on this host)", [*BASE, "--tensor-parallel-size", "2"],
             env={**TP2_ENV, "VLLM_LOOPBACK_IP": "192.0.2.1"}, act=until_exit, tp=2),
    # vLLM: checkpoint
    Scenario("v-model-type-unknown", "vllm", "config.json model_type \"llama7\" (a type this "
             "transformers does not know)", BASE, model=model_type_unknown, act=until_exit),
    Scenario("v-seq-cls-arch", "vllm", "config.json architectures "
             "LlamaForSequenceClassification (num_labels 2) over a causal-LM checkpoint",
             BASE, model=seq_cls_arch, act=seq_cls_requests),
    Scenario("v-int8-tensor", "vllm", "layer 0's o_proj stored as int8 (same shape, no "
             "quantization config), then requests", BASE, model=int8_tensor, act=serve_short),
    # vLLM: resources
    Scenario("v-memcg-3g", "vllm", "the server in a memory cgroup limited to 3 GiB (a "
             "container limit), --gpu-memory-utilization 0.25 of the host's 23 GiB", BASE,
             act=in_cgroup("memory", "mem3g", {"memory.limit_in_bytes": str(3 << 30)},
                           serve_short)),
    Scenario("v-pids-limit", "vllm", "the server in a pids cgroup allowing 40 tasks "
             "(processes and threads)", BASE,
             act=in_cgroup("pids", "pids40", {"pids.max": "40"}, until_exit)),
    Scenario("v-fsize-limit", "vllm", "ulimit -f 16 (KiB) for the server with a fresh "
             "VLLM_CACHE_ROOT (compile caches must be written)", BASE,
             env={"VLLM_CACHE_ROOT": str(WORK / "fresh-cache")}, before=fresh_cache,
             act=rlimited(psutil.RLIMIT_FSIZE, 16 * 1024, until_exit)),
    Scenario("v-slow-disk", "vllm", "the model read from disk (page cache dropped) through a "
             "blkio throttle of 40 KiB/s: a slow network volume", BASE, model=slow_disk_model,
             act=in_cgroup("blkio", "slow", {"blkio.throttle.read_bps_device": "254:0 40960"},
                           serve_short)),
    # vLLM: signals at moments
    Scenario("v-segv-worker-load", "vllm", "SIGSEGV to the worker process as it starts "
             "loading weights", BASE,
             act=signal_worker_when(["Starting to load model"], signal.SIGSEGV)),
    Scenario("v-sigterm-core-load", "vllm", "SIGTERM to the EngineCore process alone as the "
             "weights start loading", BASE,
             act=signal_engine_when(["Starting to load model"], signal.SIGTERM)),
    Scenario("v-sigill-worker-warmup", "vllm", "SIGILL to the worker process once the weights "
             "are loaded (compile/warmup), as an instruction the CPU lacks would", BASE,
             act=signal_worker_when(["Model loading took", "Loading weights took"],
                                    signal.SIGILL, delay=2)),
    # SGLang
    Scenario("s-model-type-unknown", "sglang", "config.json model_type \"llama7\"", SG,
             model=model_type_unknown, act=sg_until_exit),
    Scenario("s-pythonpath-shadow", "sglang", "PYTHONPATH holding a stale `transformers` "
             "folder (an empty __init__.py) ahead of site-packages", SG,
             env={"PYTHONPATH": str(WORK / "pyshadow-tf")},
             before=lambda ctx: (WORK / "pyshadow-tf" / "transformers").mkdir(
                 parents=True, exist_ok=True) or (WORK / "pyshadow-tf" / "transformers" /
                                                   "__init__.py").write_text(""),
             act=sg_until_exit),
    Scenario("s-node-rank-over", "sglang", "--nnodes 2 --node-rank 2 (ranks are 0 and 1)",
             [*SG, "--nnodes", "2", "--node-rank", "2", "--dist-init-addr", "127.0.0.1:29641"],
             act=sg_until_exit),
    Scenario("s-node-rank-over-tp2", "sglang", "--tp 2 --nnodes 2 --node-rank 2 (ranks are 0 "
             "and 1)", [*SG, "--tp", "2", "--nnodes", "2", "--node-rank", "2",
                        "--dist-init-addr", "127.0.0.1:29641"], act=sg_until_exit, tp=2),
    Scenario("s-page-size-0", "sglang", "--page-size 0", [*SG, "--page-size", "0"],
             act=sg_until_exit),
    Scenario("s-context-length-0", "sglang", "--context-length 0", [*SG, "--context-length",
             "0"], act=sg_until_exit),
    Scenario("s-dist-addr-unreachable", "sglang", "--dist-init-addr 192.0.2.10:5000 (an address "
             "nothing answers on), --dist-timeout 30",
             [*SG, "--dist-init-addr", "192.0.2.10:5000", "--dist-timeout", "30"],
             act=sg_until_exit),
    Scenario("s-kill-scheduler-init", "sglang", "SIGKILL to the scheduler subprocess 4 s after "
             "it starts (as the OOM killer would)", SG, act=kill_scheduler_at_init),
    Scenario("s-memcg-1g", "sglang", "the server in a memory cgroup limited to 1 GiB", SG,
             act=in_cgroup("memory", "sg1g", {"memory.limit_in_bytes": str(1 << 30)},
                           sg_until_exit)),
    Scenario("s-pids-limit", "sglang", "the server in a pids cgroup allowing 24 tasks", SG,
             act=in_cgroup("pids", "sgpids24", {"pids.max": "24"}, sg_until_exit)),
]


def rope_linear_no_factor(work: Path) -> Path:
    return config_with(work, "rope-linear-no-factor",
                       rope_parameters={"rope_type": "linear", "rope_theta": 10000.0})


def config_is_index(work: Path) -> Path:
    """config.json overwritten with model.safetensors.index.json's contents (files mixed up)."""
    d = copy_model(work, "config-is-index")
    (d / "config.json").write_text((d / "model.safetensors.index.json").read_text())
    return d


SCENARIOS += [
    Scenario("v-rope-linear-no-factor", "vllm", "config.json rope_parameters rope_type "
             "\"linear\" without its factor", BASE, model=rope_linear_no_factor, act=until_exit),
    Scenario("s-config-is-index", "sglang", "config.json overwritten with the contents of "
             "model.safetensors.index.json (two files mixed up in a copy)", SG,
             model=config_is_index, act=sg_until_exit),
]
