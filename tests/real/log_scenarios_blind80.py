"""The eightieth batch's scenarios (tests/fixtures/corpus/fresh79): faults chosen, recorded
and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind80.py OUT

Broken model copies go to OUT/.work; helper files (junk libraries) live in /tmp/blind80. One
scenario puts the engine's process tree into a memory cgroup (v1) of its own, named blind80-*.
"""

from __future__ import annotations

import json
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
    child_signal_when,
    copy_model,
    json_edit,
    linger,
    sg_until_exit,
    signal_quietly,
    until_exit,
    up,
)
from setup_engines import VLLM  # noqa: E402

BASE = VLLM_BASE
SG = ["--device", "cpu"]
HERE = Path("/tmp/blind80")
CG = Path("/sys/fs/cgroup")


# --- helpers ------------------------------------------------------------------------------------

def tree_pids(ctx: Ctx) -> list[int]:
    assert ctx.proc is not None
    try:
        root = psutil.Process(ctx.proc.pid)
        return [root.pid, *(p.pid for p in root.children(recursive=True))]
    except psutil.Error:
        return []


def memcg_squeeze_when(name: str, needle: str, headroom_mb: int, after_s: float = 90):
    """Once ``needle`` is logged, the run's whole tree moved into a memory cgroup whose limit is
    what it uses at that moment plus ``headroom_mb`` MiB (a container sized to the loaded model)."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(needle, 240):
            return
        d = CG / "memory" / f"blind80-{name}"
        d.mkdir(exist_ok=True)
        for pid in tree_pids(ctx):
            try:
                (d / "cgroup.procs").write_text(str(pid))
            except OSError:
                pass
        usage = int((d / "memory.usage_in_bytes").read_text())
        try:
            (d / "memory.limit_in_bytes").write_text(str(usage + (headroom_mb << 20)))
        except OSError:
            pass
        linger(ctx, after_s)
        if ctx.proc is not None and ctx.proc.poll() is None and "Application startup complete" \
                in ctx.text():
            ctx.complete(2)
            time.sleep(8)
    return act


def n_requests(ctx: Ctx) -> None:
    """Two plain completions, then two asking for n=12 choices each (over --max-num-seqs 4)."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(2)
        for i in range(2):
            ctx.post("/v1/completions", {"model": name, "prompt": f"fox {i}", "max_tokens": 8,
                                         "n": 12, "temperature": 0.8})
        ctx.complete(1)
        time.sleep(12)


# --- model breakers -----------------------------------------------------------------------------

def shard_extra_tensor(work: Path) -> Path:
    """A shard holding an extra tensor for a layer the model does not have (layers.7)."""
    d = copy_model(work, "shard-extra-tensor")
    code = ("import sys, glob, torch\nfrom safetensors.torch import load_file, save_file\n"
            "f = sorted(glob.glob(sys.argv[1] + '/model-*.safetensors'))[-1]\n"
            "t = load_file(f)\n"
            "t['model.layers.7.input_layernorm.weight'] = torch.ones(256, dtype=torch.bfloat16)\n"
            "save_file(t, f, metadata={'format': 'pt'})\n"
            "import json\nip = sys.argv[1] + '/model.safetensors.index.json'\n"
            "idx = json.load(open(ip))\n"
            "idx['weight_map']['model.layers.7.input_layernorm.weight'] = f.rsplit('/', 1)[1]\n"
            "json.dump(idx, open(ip, 'w'), indent=2)\n")
    subprocess.run([str(VLLM.python), "-c", code, str(d)], check=True)
    return d


def json_as_list(name: str, file: str):
    """``file`` rewritten as a JSON list holding its object (a tool that batches configs)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / file
        f.write_text(json.dumps([json.loads(f.read_text())], indent=2))
        return d
    return make


def config_nul_tail(name: str):
    """config.json followed by 4 KiB of NUL bytes (a power loss after the size was written)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "config.json"
        f.write_bytes(f.read_bytes() + b"\0" * 4096)
        return d
    return make


def dangling_model_link(work: Path) -> Path:
    """The model path is a symlink to a snapshot folder that was garbage-collected."""
    link = work / "model-current"
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to(work / "snapshots" / "3f9a1c0")
    return link


SCENARIOS = [
    # vLLM
    Scenario("v-ld-library-path-gomp", "vllm", "LD_LIBRARY_PATH naming a folder whose "
             "libgomp.so.1 is an empty file (a half-copied library)", BASE,
             env={"LD_LIBRARY_PATH": str(HERE / "gomp")}, act=until_exit),
    Scenario("v-vocab-size-text", "vllm", "config.json vocab_size the string \"512\"", BASE,
             model=json_edit("vocab-size-text", "config.json", vocab_size="512"),
             act=until_exit),
    Scenario("v-tokenizer-config-list", "vllm", "tokenizer_config.json rewritten as a JSON list "
             "holding its object", BASE,
             model=json_as_list("tokconfig-list", "tokenizer_config.json"), act=until_exit),
    Scenario("v-shard-extra-tensor", "vllm", "the last shard (and the index) holding an extra "
             "tensor for layer 7 of a 2-layer model", BASE, model=shard_extra_tensor,
             act=until_exit),
    Scenario("v-ignore-patterns-all", "vllm", "--ignore-patterns matching every weight file "
             "(*.safetensors)", [*BASE, "--ignore-patterns", "*.safetensors"], act=until_exit),
    Scenario("v-loader-extra-config-bad", "vllm", "--model-loader-extra-config with a key the "
             "default loader does not take", [*BASE, "--model-loader-extra-config",
                                              '{"prefetch_shards": 4}'], act=until_exit),
    Scenario("v-kv-events-foreign", "vllm", "--kv-events-config enabling zmq KV-cache events on an "
             "endpoint at an address not on this host (192.0.2.1)",
             [*BASE, "--kv-events-config", '{"enable_kv_cache_events": true, "publisher": "zmq", '
              '"endpoint": "tcp://192.0.2.1:5557"}'], act=until_exit),
    Scenario("v-n-over-max-seqs", "vllm", "--max-num-seqs 4; completions, then two asking for "
             "n=12 choices", [*BASE, "--max-num-seqs", "4"], act=n_requests),
    Scenario("v-memcg-kv-squeeze", "vllm", "once the worker's compile warm-up is done, the whole "
             "tree moved into a memory cgroup limited to its usage plus 256 MiB (a container "
             "sized to the loaded model), before the KV cache is allocated",
             BASE, act=memcg_squeeze_when("kv-v", "Warming up done", 256, 90)),
    Scenario("v-sigsys-core-kvcache", "vllm", "SIGSYS (default action: core dump) to the "
             "EngineCore process 2 s after it logs the KV cache size it will allocate", BASE,
             act=child_signal_when("EngineCore", ["CPU KV cache size"], signal.SIGSYS, 2.0, 60)),
    Scenario("v-faulthandler-segv-compile", "vllm", "PYTHONFAULTHANDLER=1; SIGSEGV to the "
             "worker process 1 s into its compile warm-up", BASE,
             env={"PYTHONFAULTHANDLER": "1"},
             act=child_signal_when("Worker", ["Warming up model for the"], signal.SIGSEGV,
                                   1.0, 60)),
    Scenario("v-stop-worker-kvcache", "vllm", "SIGSTOP to the worker process 1 s after the "
             "engine logs the KV cache size it will allocate; left 120 s, then killed", BASE,
             act=child_signal_when("Worker", ["CPU KV cache size"], signal.SIGSTOP, 1.0, 120)),
    # SGLang
    Scenario("s-ld-library-path-stdcxx", "sglang", "LD_LIBRARY_PATH naming a folder whose "
             "libstdc++.so.6 is an empty file", SG,
             env={"LD_LIBRARY_PATH": str(HERE / "stdcxx")}, act=sg_until_exit),
    Scenario("s-dp-size-0", "sglang", "--dp-size 0", [*SG, "--dp-size", "0"],
             act=sg_until_exit),
    Scenario("s-env-sglang-port-text", "sglang", "SGLANG_PORT=auto (not a number)", SG,
             env={"SGLANG_PORT": "auto"}, act=sg_until_exit),
    Scenario("s-config-nul-tail", "sglang", "config.json followed by 4 KiB of NUL bytes", SG,
             model=config_nul_tail("config-nul-sg"), act=sg_until_exit),
    Scenario("s-tokenizer-config-list", "sglang", "tokenizer_config.json rewritten as a JSON "
             "list holding its object", SG,
             model=json_as_list("tokconfig-list-sg", "tokenizer_config.json"),
             act=sg_until_exit),
    Scenario("s-vocab-size-text", "sglang", "config.json vocab_size the string \"512\"", SG,
             model=json_edit("vocab-size-text-sg", "config.json", vocab_size="512"),
             act=sg_until_exit),
    Scenario("s-model-dangling-link", "sglang", "the model path a symlink to a snapshot folder "
             "that no longer exists", SG, model=dangling_model_link, act=sg_until_exit),
    Scenario("s-segv-detokenizer-init", "sglang", "SIGSEGV to the detokenizer subprocess 0.5 s "
             "after it names itself", SG,
             act=child_signal_when("sglang::detokenizer", None, signal.SIGSEGV, 0.5, 60)),
    Scenario("s-pipe-scheduler-init", "sglang", "SIGPIPE (default action) to the scheduler "
             "subprocess 0.5 s after it names itself", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGPIPE, 0.5, 60)),
    Scenario("s-faulthandler-fpe-scheduler", "sglang", "PYTHONFAULTHANDLER=1; SIGFPE to the "
             "scheduler subprocess 1 s after it names itself", SG,
             env={"PYTHONFAULTHANDLER": "1"},
             act=child_signal_when("sglang::scheduler", None, signal.SIGFPE, 1.0, 60)),
]


# --- second round (SGLang faults that act before the model is built) ---------------------------

def config_fifo(name: str):
    """config.json replaced by a named pipe no one writes to (a sync tool's placeholder)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        (d / "config.json").unlink()
        os.mkfifo(d / "config.json")
        return d
    return make


def memcg_squeeze_now(name: str, needle: str, headroom_mb: int, after_s: float = 60):
    """Like memcg_squeeze_when, for SGLang: no serving follows."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(needle, 120):
            return
        d = CG / "memory" / f"blind80-{name}"
        d.mkdir(exist_ok=True)
        for pid in tree_pids(ctx):
            try:
                (d / "cgroup.procs").write_text(str(pid))
            except OSError:
                pass
        usage = int((d / "memory.usage_in_bytes").read_text())
        try:
            (d / "memory.limit_in_bytes").write_text(str(usage + (headroom_mb << 20)))
        except OSError:
            pass
        linger(ctx, after_s)
    return act


SCENARIOS += [
    Scenario("s-config-fifo", "sglang", "config.json replaced by a named pipe that no one writes "
             "to; left 90 s, then killed", SG, model=config_fifo("config-fifo-sg"),
             act=lambda ctx: linger(ctx, 90)),
    Scenario("s-dist-timeout-negative", "sglang", "--dist-timeout -5",
             [*SG, "--dist-timeout", "-5"], act=sg_until_exit),
    Scenario("s-base-gpu-id-negative", "sglang", "--base-gpu-id -1",
             [*SG, "--base-gpu-id", "-1"], act=sg_until_exit),
    Scenario("s-memcg-squeeze-init", "sglang", "once the scheduler starts its parallel init, the "
             "whole tree moved into a memory cgroup limited to its usage plus 48 MiB",
             SG, act=memcg_squeeze_now("init-s", "Init parallel begin", 48, 60)),
]


# --- third round (vLLM) ------------------------------------------------------------------------

def api_signal_serving(sig: int):
    """Two completions served, then ``sig`` to the API server process itself; one more request."""
    def act(ctx: Ctx) -> None:
        if up(ctx, 240):
            ctx.complete(2)
            time.sleep(1)
            assert ctx.proc is not None
            signal_quietly(ctx.proc, sig)
            time.sleep(2)
            ctx.complete(1)
            linger(ctx, 25)
    return act


SCENARIOS += [
    Scenario("v-config-fifo", "vllm", "config.json replaced by a named pipe that no one writes "
             "to; left 90 s, then killed", BASE, model=config_fifo("config-fifo-v"),
             act=lambda ctx: linger(ctx, 90)),
    Scenario("v-model-dangling-link", "vllm", "the model path a symlink to a snapshot folder that "
             "no longer exists", BASE, model=dangling_model_link, act=until_exit),
    Scenario("v-xfsz-api-serving", "vllm", "two completions served, then SIGXFSZ (default action: "
             "core dump) to the API server process; one more request", BASE,
             act=api_signal_serving(signal.SIGXFSZ)),
]

# Recorded but left out of the batch (the fault never showed): v-ignore-patterns-all (a local
# model's weights load regardless of --ignore-patterns; it served), v-xfsz-api-serving (Python
# ignores SIGXFSZ: it served on), s-dp-size-0, s-env-sglang-port-text (both died of the stock
# "No module named 'vllm'" after "Load weight begin"), s-pipe-scheduler-init (Python ignores
# SIGPIPE), s-segv-detokenizer-init (the detokenizer had not started before the stock failure;
# no signal was sent). v-kv-events-foreign and v-n-over-max-seqs are kept: they served (ready).
