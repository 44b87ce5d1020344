"""The eighty-seventh batch's scenarios (tests/fixtures/corpus/fresh86): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind87.py OUT

Broken model copies go to OUT/.work. Two kinds of fault act on the whole recorder, which is run
for them inside a namespace of its own:
  *-shm-tiny: unshare -m sh -c 'mount --make-rprivate / && mount -t tmpfs -o size=1m tmpfs
              /dev/shm && exec .venv/bin/python tests/real/record_logs.py ...' (docker's --shm-size
              set far too small)
  *-net-none: unshare -n sh -c 'ip link set lo up && exec ...' (a container with no network but
              the loopback, as docker --network none)
"""

from __future__ import annotations

import gzip
import signal
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    child_signal_when,
    copy_model,
    linger,
    sg_until_exit,
    signal_serving,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
ROOT = Path("/tmp/blind87")


def tokenizer_zeros(name: str):
    """tokenizer.json of the right size but all NUL bytes (a file left by a crash mid-write)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "tokenizer.json"
        f.write_bytes(b"\0" * f.stat().st_size)
        return d
    return make


def tokenizer_links_config(name: str):
    """tokenizer.json a symlink to the folder's config.json (a sync tool's wrong link)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        (d / "tokenizer.json").unlink()
        (d / "tokenizer.json").symlink_to("config.json")
        return d
    return make


def config_gzip(name: str):
    """config.json saved still gzip-compressed (a download kept its Content-Encoding)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "config.json"
        f.write_bytes(gzip.compress(f.read_bytes()))
        return d
    return make


def shards_lfs_pointers(work: Path) -> Path:
    """Every safetensors shard a git-lfs pointer (a git clone without git-lfs)."""
    d = copy_model(work, "shards-lfs-pointers")
    for f in sorted(d.glob("model-*.safetensors")):
        size = f.stat().st_size
        f.write_text("version https://git-lfs.github.com/spec/v1\n"
                     "oid sha256:4d7a214614ab2935c943f9e0ff69d22eadbb8f32b1258daaa5e2ca24d17e2393\n"
                     f"size {size}\n")
    return d


def odd_requests(ctx: Ctx) -> None:
    """Served, then requests with sampling values out of range and to endpoints this model
    does not serve; one good completion at the end."""
    if up(ctx, 240):
        ctx.complete(2)
        name = ctx.model_name()
        bad = [{"temperature": -1}, {"top_p": 1.7}, {"min_tokens": 20, "max_tokens": 4},
               {"repetition_penalty": 0}, {"logprobs": 50}, {"stop": ["x"] * 2000}]
        for b in bad:
            ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8, **b})
        ctx.post("/v1/embeddings", {"model": name, "input": "fox"})
        ctx.post("/detokenize", {"model": name, "tokens": [10 ** 9, -5]})
        ctx.post("/tokenize", {"model": name, "prompt": "fox " * 5000})
        ctx.complete(1)
        linger(ctx, 12)


def uds_file(ctx: Ctx) -> None:
    (ROOT / "api.sock").write_text("left over from another run\n")


def uds_probe(ctx: Ctx) -> None:
    """Wait for it to end or come up on the socket path (no TCP requests: it listens on --uds)."""
    ctx.wait_any(["Application startup complete"], 200)
    linger(ctx, 15)


PORT_TAKEN = 29561


def take_dist_port(ctx: Ctx) -> None:
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", PORT_TAKEN))
    s.listen(1)
    ctx.keep.append(s)


SIGRT = signal.SIGRTMIN + 3

SCENARIOS = [
    # vLLM
    Scenario("v-tokenizer-json-zeros", "vllm", "tokenizer.json of its size but all NUL bytes "
             "(a crash mid-write)", BASE, model=tokenizer_zeros("tok-zeros-v"), act=until_exit),
    Scenario("v-tokenizer-links-config", "vllm", "tokenizer.json a symlink to the folder's "
             "config.json", BASE, model=tokenizer_links_config("tok-link-v"), act=until_exit),
    Scenario("v-config-gzip", "vllm", "config.json saved still gzip-compressed", BASE,
             model=config_gzip("config-gzip-v"), act=until_exit),
    Scenario("v-shards-lfs-pointers", "vllm", "every safetensors shard a git-lfs pointer file "
             "(cloned without git-lfs)", BASE, model=shards_lfs_pointers, act=until_exit),
    Scenario("v-sigio-worker-load", "vllm", "SIGIO (default action: terminate) to the model "
             "worker as it starts loading the model", BASE,
             act=child_signal_when("VLLM::Worker", ["Starting to load model"], signal.SIGIO,
                                   delay=0.5, after_s=60)),
    Scenario("v-rtsig-worker-serving", "vllm", "a real-time signal (SIGRTMIN+3, default action: "
             "terminate) to the model worker while it serves",
             BASE, act=signal_serving("VLLM::Worker", SIGRT)),
    Scenario("v-odd-requests", "vllm", "requests with sampling values out of range (negative "
             "temperature, top_p over 1, min_tokens over max_tokens, 2000 stop strings) and to "
             "endpoints the model does not serve (embeddings, detokenize of ids out of range)",
             BASE, act=odd_requests),
    Scenario("v-uds-path-taken", "vllm", "--uds naming a path where a regular file already is",
             [*BASE, "--uds", str(ROOT / "api.sock")], before=uds_file, act=uds_probe),
    Scenario("v-shm-tiny", "vllm", "/dev/shm a 1 MB tmpfs (a container's shm size far too small; "
             "the recorder runs in a mount namespace of its own)", BASE, act=until_exit),
    Scenario("v-net-none", "vllm", "no network but the loopback (a network namespace with lo "
             "up only, as docker --network none)", BASE, act=until_exit),
    # SGLang
    Scenario("s-tokenizer-json-zeros", "sglang", "tokenizer.json of its size but all NUL bytes "
             "(a crash mid-write)", SG, model=tokenizer_zeros("tok-zeros-s"), act=sg_until_exit),
    Scenario("s-tokenizer-links-config", "sglang", "tokenizer.json a symlink to the folder's "
             "config.json", SG, model=tokenizer_links_config("tok-link-s"), act=sg_until_exit),
    Scenario("s-config-gzip", "sglang", "config.json saved still gzip-compressed", SG,
             model=config_gzip("config-gzip-s"), act=sg_until_exit),
    Scenario("s-sigio-scheduler-init", "sglang", "SIGIO (default action: terminate) to the "
             "scheduler once it has its process name", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGIO, delay=0.5,
                                   after_s=60)),
    Scenario("s-dist-addr-port-taken", "sglang", f"--dist-init-addr 127.0.0.1:{PORT_TAKEN}, a "
             "port another process already listens on",
             [*SG, "--dist-init-addr", f"127.0.0.1:{PORT_TAKEN}"], before=take_dist_port,
             act=sg_until_exit),
    Scenario("s-shm-tiny", "sglang", "/dev/shm a 1 MB tmpfs (a container's shm size far too "
             "small; the recorder runs in a mount namespace of its own)", SG, act=sg_until_exit),
    Scenario("s-net-none", "sglang", "no network but the loopback (a network namespace with lo "
             "up only, as docker --network none)", SG, act=sg_until_exit),
]


# --- second round: git-lfs pointers where JSON files should be -------------------------------

def json_lfs_pointer(name: str, file: str):
    """``file`` left as a git-lfs pointer (a repository that tracks *.json with git-lfs, cloned
    without it)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / file
        size = f.stat().st_size
        f.write_text("version https://git-lfs.github.com/spec/v1\n"
                     "oid sha256:9b3c5e3f0a1d2c4b5a6978877665544332211000ffeeddccbbaa998877665544\n"
                     f"size {size}\n")
        return d
    return make


SCENARIOS += [
    Scenario("v-index-lfs-pointer", "vllm", "model.safetensors.index.json left as a git-lfs "
             "pointer (cloned without git-lfs)", BASE,
             model=json_lfs_pointer("index-lfs-v", "model.safetensors.index.json"),
             act=until_exit),
    Scenario("s-genconfig-lfs-pointer", "sglang", "generation_config.json left as a git-lfs "
             "pointer (cloned without git-lfs)", SG,
             model=json_lfs_pointer("genconf-lfs-s", "generation_config.json"),
             act=sg_until_exit),
]

SCENARIOS += [
    Scenario("v-genconfig-lfs-pointer", "vllm", "generation_config.json left as a git-lfs "
             "pointer (cloned without git-lfs)", BASE,
             model=json_lfs_pointer("genconf-lfs-v", "generation_config.json"), act=until_exit),
    Scenario("s-tokconfig-lfs-pointer", "sglang", "tokenizer_config.json left as a git-lfs "
             "pointer (cloned without git-lfs)", SG,
             model=json_lfs_pointer("tokconf-lfs-s", "tokenizer_config.json"),
             act=sg_until_exit),
]

# Recorded once each (2026-12-05). Kept, as final files br101-br118: every vLLM scenario (two
# silent and labelled for what the log shows: v-net-none and v-genconfig-lfs-pointer served)
# and six SGLang ones. Dropped as silent (the host's `No module named 'vllm'` after `Load weight
# begin` ends them, nothing of the fault): s-genconfig-lfs-pointer, s-shm-tiny, s-net-none.
