"""The seventy-sixth batch's scenarios (tests/fixtures/corpus/fresh75): faults chosen, recorded
and labelled by a helper who had not read the classifier's rules, given only the recorder, its
building blocks, the earlier tables (not to repeat them) and the corpus's labelling rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind76.py OUT

Kept as it was run (the scenarios dropped are listed at the end). The broken model copies went
to the recorder's OUT/.work (named in the logs' source lines), WORK holds the helper files.
"""

from __future__ import annotations

import json
import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    json_edit,
    linger,
    sg_until_exit,
    signal_quietly,
    signal_serving,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
WORK = Path("/tmp/blind76/rec/.work")
WORK.mkdir(parents=True, exist_ok=True)


def launcher_signal_after_child(child: str, sig: int, delay: float = 1.0, after_s: float = 60):
    """``sig`` to the launcher process itself once its child ``child`` has taken its name."""
    def act(ctx: Ctx) -> None:
        end = time.monotonic() + 60
        while not ctx.children(child) and time.monotonic() < end and ctx.proc.poll() is None:
            time.sleep(0.2)
        time.sleep(delay)
        signal_quietly(ctx.proc, sig)
        linger(ctx, after_s)
    return act


def shard_case(name: str):
    """model.safetensors.index.json names shard 2 as model-00002-OF-00004.safetensors (upper
    case; the file on disk is lower case)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "model.safetensors.index.json"
        idx = json.loads(f.read_text())
        for k, v in idx["weight_map"].items():
            if v == "model-00002-of-00004.safetensors":
                idx["weight_map"][k] = "model-00002-OF-00004.safetensors"
        f.write_text(json.dumps(idx, indent=2))
        return d
    return make


def yaml_config(ctx: Ctx) -> None:
    (WORK / "serve.yaml").write_text("max-num-seqs: many\nenforce-eager: true\n")


SCENARIOS = [
    # vLLM
    Scenario("v-gloo-ifname-bogus", "vllm", "GLOO_SOCKET_IFNAME naming a network interface that "
             "does not exist (nosuch0)", BASE, env={"GLOO_SOCKET_IFNAME": "nosuch0"},
             act=until_exit),
    Scenario("v-torch-dist-debug-bogus", "vllm", "TORCH_DISTRIBUTED_DEBUG set to a value torch "
             "does not know (LOUD)", BASE, env={"TORCH_DISTRIBUTED_DEBUG": "LOUD"},
             act=until_exit),
    Scenario("v-partial-prefills-long-over", "vllm", "--max-num-partial-prefills 1 with "
             "--max-long-partial-prefills 4 (above it)",
             [*BASE, "--max-num-partial-prefills", "1", "--max-long-partial-prefills", "4"],
             act=until_exit),
    Scenario("v-config-yaml-bad-value", "vllm", "--config YAML file giving max-num-seqs a word",
             [*BASE, "--config", str(WORK / "serve.yaml")], before=yaml_config,
             act=until_exit),
    Scenario("v-dtype-float64", "vllm", "--dtype float64 on the CPU build",
             ["--max-model-len", "256", "--gpu-memory-utilization", "0.25", "--dtype",
              "float64"], act=until_exit),
    Scenario("v-rope-theta-string", "vllm", "config.json rope_theta \"10000\" (a string)", BASE,
             model=json_edit("rope-theta-str", "config.json", rope_theta="10000"),
             act=until_exit),
    Scenario("v-index-shard-case", "vllm", "model.safetensors.index.json naming shard 2 in upper "
             "case (-OF-) while the file on disk is lower case", BASE,
             model=shard_case("shard-case"), act=until_exit),
    Scenario("v-fpe-core-serving", "vllm", "served two completions, then SIGFPE to the "
             "EngineCore process; one more request", BASE,
             act=signal_serving("EngineCore", signal.SIGFPE)),
    # SGLang
    Scenario("s-gloo-ifname-bogus", "sglang", "GLOO_SOCKET_IFNAME naming a network interface "
             "that does not exist (nosuch0)", SG, env={"GLOO_SOCKET_IFNAME": "nosuch0"},
             act=sg_until_exit),
    Scenario("s-torch-dist-debug-bogus", "sglang", "TORCH_DISTRIBUTED_DEBUG set to a value torch "
             "does not know (LOUD)", SG, env={"TORCH_DISTRIBUTED_DEBUG": "LOUD"},
             act=sg_until_exit),
    Scenario("s-tmpdir-missing", "sglang", "TMPDIR naming a folder that does not exist", SG,
             env={"TMPDIR": "/nonexistent/tmp"}, act=sg_until_exit),
    Scenario("s-rope-theta-string", "sglang", "config.json rope_theta \"10000\" (a string)", SG,
             model=json_edit("rope-theta-str-sg", "config.json", rope_theta="10000"),
             act=sg_until_exit),
    Scenario("s-sigquit-launcher-init", "sglang", "SIGQUIT to the launcher process itself 1 s "
             "after the scheduler subprocess takes its process name", SG,
             act=launcher_signal_after_child("sglang::scheduler", signal.SIGQUIT, 1.0, 45)),
    Scenario("s-file-storage-proc", "sglang", "--file-storage-path under /proc (not writable)",
             [*SG, "--file-storage-path", "/proc/sglang_storage"], act=sg_until_exit),
]


def config_bom(name: str):
    """config.json saved with a UTF-8 byte-order mark (as some Windows editors write it)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "config.json"
        f.write_bytes(b"\xef\xbb\xbf" + f.read_bytes())
        return d
    return make


def logprobs_requests(ctx: Ctx) -> None:
    """Two plain completions, two asking for 5 logprobs, one more plain."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(2)
        for i in range(2):
            ctx.post("/v1/completions", {"model": name, "prompt": f"fox {i}", "max_tokens": 8,
                                         "logprobs": 5})
        ctx.complete(1)
        time.sleep(12)


SCENARIOS += [
    Scenario("v-config-bom", "vllm", "config.json saved with a UTF-8 byte-order mark", BASE,
             model=config_bom("config-bom"), act=until_exit),
    Scenario("v-logprobs-over-max", "vllm", "--max-logprobs 2; completions, then two asking "
             "for 5 logprobs", [*BASE, "--max-logprobs", "2"], act=logprobs_requests),
    Scenario("s-config-bom", "sglang", "config.json saved with a UTF-8 byte-order mark", SG,
             model=config_bom("config-bom-sg"), act=sg_until_exit),
]


def tokenizer_bom(name: str):
    """tokenizer.json saved with a UTF-8 byte-order mark."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "tokenizer.json"
        f.write_bytes(b"\xef\xbb\xbf" + f.read_bytes())
        return d
    return make


def sighup_dfl(ctx: Ctx) -> None:
    """The recorder runs under nohup (SIGHUP ignored, inherited): restore the default."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)


def worker_signal_when(child: str, needle: str, sig: int, delay: float = 1.0,
                       after_s: float = 45):
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(needle, 240):
            return
        time.sleep(delay)
        for p in ctx.children(child):
            signal_quietly(p, sig)
        linger(ctx, after_s)
    return act


SCENARIOS += [
    Scenario("v-sigterm-worker-compile", "vllm", "SIGTERM to the worker process alone 1 s into "
             "its torch.compile warm-up", BASE,
             act=worker_signal_when("Worker", "Warming up model for the compilation",
                                    signal.SIGTERM)),
    Scenario("s-tokenizer-json-bom", "sglang", "tokenizer.json saved with a UTF-8 byte-order "
             "mark", SG, model=tokenizer_bom("tok-bom-sg"), act=sg_until_exit),
    Scenario("s-ep-size-over-tp", "sglang", "--ep-size 2 with --tp-size 1",
             [*SG, "--ep-size", "2"], act=sg_until_exit),
    Scenario("s-sighup-launcher-init", "sglang", "SIGHUP (default action) to the launcher process "
             "itself 1 s after the scheduler subprocess takes its process name", SG,
             before=sighup_dfl,
             act=launcher_signal_after_child("sglang::scheduler", signal.SIGHUP, 1.0, 45)),
]

# Recorded but left out of the batch: v-partial-prefills-long-over (the flags no longer exist in
# 0.32.0: "unrecognized arguments", as v-removed-flag), v-dtype-float64 (an argparse invalid
# choice, as v-bad-choice), s-tmpdir-missing, s-rope-theta-string and s-file-storage-proc (the
# fault never showed: each died of the stock "No module named 'vllm'" after "Load weight begin").
