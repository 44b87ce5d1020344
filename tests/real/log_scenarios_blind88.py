"""The eighty-eighth batch's scenarios (tests/fixtures/corpus/fresh87): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind88.py OUT

Three kinds of fault act on the whole recorder, which is run for them inside a namespace of its own:
  *-lo-down:       unshare -n sh -c 'exec .venv/bin/python tests/real/record_logs.py ...' (a network
                   namespace whose loopback was never brought up: a container runtime that forgot lo)
  *-shm-readonly:  unshare -m sh -c 'mount --make-rprivate / && mount -o remount,bind,ro /dev/shm && exec ...'
                   (a container whose /dev/shm is mounted read-only)
  *-cpuinfo-empty: unshare -m sh -c 'mount --make-rprivate / && mount --bind EMPTY /proc/cpuinfo && exec ...'
                   (a sandbox that masks /proc/cpuinfo with an empty file, as gVisor-like runtimes do)
"""

from __future__ import annotations

import signal
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    child_signal_when,
    linger,
    sg_until_exit,
    signal_quietly,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
ROOT = Path("/tmp/blind88")


def tilde_path(work: Path) -> Path:
    """The model path given as a quoted '~/...' string, which no shell expanded."""
    return Path("~/.cache/gpu-node-supervisor/models/llama-tiny-v3")


def linger_s(seconds: float):
    def act(ctx: Ctx) -> None:
        linger(ctx, seconds)
    return act


def sampling_oov_ids(ctx: Ctx) -> None:
    """Served, then requests whose sampling parameters name token ids far outside the
    vocabulary (logit_bias, allowed_token_ids, stop_token_ids, bad_words); one good request."""
    if up(ctx, 240):
        ctx.complete(2)
        name = ctx.model_name()
        bad = [{"logit_bias": {"999999": 5}}, {"allowed_token_ids": [999999, 3]},
               {"stop_token_ids": [999999]}, {"logit_bias": {"-4": 100}},
               {"allowed_token_ids": []}, {"bad_words": ["zzzq"]}]
        for b in bad:
            ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8, **b})
        time.sleep(2)
        ctx.complete(1)
        linger(ctx, 12)


def launcher_signal_when_child(child: str, sig: int, delay: float = 0.5):
    """``sig`` to the launcher (the process the user started) once ``child`` has named itself."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        end = time.monotonic() + 90
        while not ctx.children(child) and time.monotonic() < end and ctx.proc.poll() is None:
            time.sleep(0.2)
        time.sleep(delay)
        signal_quietly(ctx.proc, sig)
        linger(ctx, 40)
    return act


SCENARIOS = [
    # vLLM
    Scenario("v-lo-down", "vllm", "loopback interface down (a network namespace whose lo was "
             "never brought up)", BASE, act=linger_s(80)),
    Scenario("v-shm-readonly", "vllm", "/dev/shm mounted read-only (a container's shm made "
             "read-only; the recorder runs in a mount namespace of its own)", BASE,
             act=until_exit),
    Scenario("v-cpuinfo-empty", "vllm", "/proc/cpuinfo masked by an empty file (a sandboxed "
             "runtime; the recorder runs in a mount namespace of its own)", BASE,
             act=until_exit),
    Scenario("v-loopback-ip-foreign", "vllm", "VLLM_LOOPBACK_IP set to an address no interface "
             "of this host has (copied from another machine's env file)", BASE,
             env={"VLLM_LOOPBACK_IP": "10.213.7.41"}, act=until_exit),
    Scenario("v-allowed-media-missing", "vllm", "--allowed-local-media-path naming a folder "
             "that does not exist", [*BASE, "--allowed-local-media-path",
                                     str(ROOT / "no-media-dir")], act=until_exit),
    Scenario("v-tool-plugin-missing", "vllm", "--tool-parser-plugin naming a Python file that "
             "is not there", [*BASE, "--tool-parser-plugin", str(ROOT / "my_tool_parser.py"),
                             "--enable-auto-tool-choice", "--tool-call-parser", "my_parser"],
             act=until_exit),
    Scenario("v-model-path-tilde", "vllm", "the model path quoted with a leading tilde, which "
             "no shell expanded", BASE, model=tilde_path, act=until_exit),
    Scenario("v-prof-worker-load", "vllm", "SIGPROF (default action: terminate) to the model "
             "worker as it starts loading the model", BASE,
             act=child_signal_when("VLLM::Worker", ["Starting to load model"], signal.SIGPROF,
                                   delay=0.5, after_s=60)),
    Scenario("v-sampling-oov-ids", "vllm", "served, then requests whose logit_bias, "
             "allowed_token_ids, stop_token_ids name token ids far outside the vocabulary",
             BASE, act=sampling_oov_ids),
    Scenario("v-h11-tiny-serving", "vllm", "--h11-max-incomplete-event-size 64 (a header limit "
             "far below a client's request headers), then served", [
                 *BASE, "--h11-max-incomplete-event-size", "64"], act=until_exit),
    # SGLang
    Scenario("s-lo-down", "sglang", "loopback interface down (a network namespace whose lo was "
             "never brought up)", SG, act=linger_s(80)),
    Scenario("s-shm-readonly", "sglang", "/dev/shm mounted read-only (a container's shm made "
             "read-only; the recorder runs in a mount namespace of its own)", SG,
             act=sg_until_exit),
    Scenario("s-cpuinfo-empty", "sglang", "/proc/cpuinfo masked by an empty file (a sandboxed "
             "runtime; the recorder runs in a mount namespace of its own)", SG,
             act=sg_until_exit),
    Scenario("s-model-path-tilde", "sglang", "the model path quoted with a leading tilde, which "
             "no shell expanded", SG, model=tilde_path, act=sg_until_exit),
    Scenario("s-prof-detokenizer-init", "sglang", "SIGPROF (default action: terminate) to the "
             "detokenizer once it has its process name", SG,
             act=child_signal_when("sglang::detokenizer", None, signal.SIGPROF, delay=0.5,
                                   after_s=60)),
    Scenario("s-prof-launcher-init", "sglang", "SIGPROF (default action: terminate) to the "
             "launcher (the process the user started) once the scheduler has its process name",
             SG, act=launcher_signal_when_child("sglang::scheduler", signal.SIGPROF)),
]

# Second round: a host without lscpu (a slim container image without util-linux). PATH is
# /tmp/blind88/bin: links to every program of the usual PATH folders but lscpu.
NO_LSCPU = {"PATH": str(ROOT / "bin")}
SCENARIOS += [
    Scenario("v-lscpu-missing", "vllm", "no lscpu on the PATH (a slim image without "
             "util-linux)", BASE, env=NO_LSCPU, act=until_exit),
    Scenario("s-lscpu-missing", "sglang", "no lscpu on the PATH (a slim image without "
             "util-linux)", SG, env=NO_LSCPU, act=sg_until_exit),
]

# Third round: a signal while the KV cache is set up, and /proc/meminfo masked by an empty file
#   *-meminfo-empty: unshare -m sh -c 'mount --make-rprivate / && mount --bind EMPTY /proc/meminfo && exec ...'
SCENARIOS += [
    Scenario("v-prof-worker-kvcache", "vllm", "SIGPROF (default action: terminate) to the model "
             "worker 1 s after the engine sized its CPU KV cache", BASE,
             act=child_signal_when("VLLM::Worker", ["CPU KV cache size"], signal.SIGPROF,
                                   delay=1.0, after_s=60)),
    Scenario("v-meminfo-empty", "vllm", "/proc/meminfo masked by an empty file (a sandboxed "
             "runtime; the recorder runs in a mount namespace of its own)", BASE,
             act=until_exit),
    Scenario("s-meminfo-empty", "sglang", "/proc/meminfo masked by an empty file (a sandboxed "
             "runtime; the recorder runs in a mount namespace of its own)", SG,
             act=sg_until_exit),
]

# Recorded once each (2026-12-05). Kept, as final files bs101-bs119: every vLLM scenario (five
# silent and labelled for what the log shows, ready in serving: v-loopback-ip-foreign,
# v-allowed-media-missing, v-cpuinfo-empty, v-h11-tiny-serving, v-sampling-oov-ids) and six
# SGLang ones. Dropped as the fault never showed: s-prof-detokenizer-init (the run died of the
# host's `No module named 'vllm'` after `Load weight begin` with no trace of the signal) and
# s-shm-readonly (only a `load snapshot writer init failed: [Errno 30] Read-only file system`
# line, then the same missing-vllm failure).
