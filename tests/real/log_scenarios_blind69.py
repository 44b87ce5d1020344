"""The sixty-ninth batch's scenarios (tests/fixtures/corpus/fresh68): faults chosen, recorded
and labelled by a helper who had not read the classifier's rules (nor its tests or docs), given
only the recorder, its building blocks, the earlier tables (not to repeat them) and the corpus's
labelling rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind69.py OUT

Kept as it was run: WORK and TINYFS are the folders it made its broken copies and its small
file system in (named in the logs' source lines).
"""

from __future__ import annotations

import json
import os
import signal
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
from setup_engines import VLLM  # noqa: E402

BASE = VLLM_BASE
SG = ["--device", "cpu"]
WORK = Path("/tmp/blind69/rec/.work")
TINYFS = Path("/tmp/blind69/tinyfs")




# --- model breakers -------------------------------------------------------------------------

def hidden_act_bad(work: Path) -> Path:
    return config_with(work, "hidden-act-bad", hidden_act="swishglu")


def intermediate_1024(work: Path) -> Path:
    return config_with(work, "intermediate-1024", intermediate_size=1024)


def shard_dtype_header(work: Path) -> Path:
    """The second shard's header says one tensor is F32 while its bytes are bf16."""
    d = copy_model(work, "shard-dtype-header")
    shard = sorted(d.glob("model-*.safetensors"))[1]
    raw = bytearray(shard.read_bytes())
    n = int.from_bytes(raw[:8], "little")
    hdr = json.loads(raw[8:8 + n])
    key = next(k for k, v in hdr.items() if k != "__metadata__" and v.get("dtype") == "BF16")
    hdr[key]["dtype"] = "F32"
    new = json.dumps(hdr, separators=(",", ":")).encode()
    assert len(new) <= n
    raw[8:8 + n] = new + b" " * (n - len(new))
    shard.write_bytes(bytes(raw))
    return d


def nan_weights(work: Path) -> Path:
    """Layer 0's q_proj all NaN (a fine-tune that diverged)."""
    d = copy_model(work, "nan-weights")
    code = ("import sys, glob, torch\nfrom safetensors.torch import load_file, save_file\n"
            "for f in sorted(glob.glob(sys.argv[1] + '/model-*.safetensors')):\n"
            "    t = load_file(f)\n"
            "    k = [k for k in t if 'layers.0.self_attn.q_proj' in k]\n"
            "    if k:\n"
            "        t[k[0]] = torch.full_like(t[k[0]], float('nan'))\n"
            "        save_file(t, f, metadata={'format': 'pt'}); break\n")
    subprocess.run([str(VLLM.python), "-c", code, str(d)], check=True)
    return d


def tokenizer_class_bad(work: Path) -> Path:
    d = copy_model(work, "tokenizer-class-bad")
    tc = d / "tokenizer_config.json"
    data = json.loads(tc.read_text())
    data["tokenizer_class"] = "QwenTokenizerFastV9"
    tc.write_text(json.dumps(data, indent=2))
    return d


def no_tokenizer(work: Path) -> Path:
    return copy_model(work, "no-tokenizer", skip=("tokenizer*", "special_tokens_map.json"))


# --- before steps -----------------------------------------------------------------------------

def fill_tinyfs(ctx: Ctx) -> None:
    """A 2 MiB tmpfs, nearly full, as the cache folders' disk."""
    TINYFS.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["mountpoint", "-q", str(TINYFS)]).returncode != 0:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "size=2m", "tmpfs", str(TINYFS)], check=True)
    for p in TINYFS.iterdir():
        subprocess.run(["rm", "-rf", str(p)])
    (TINYFS / "filler").write_bytes(b"\0" * (2 * 1024 * 1024 - 64 * 1024))


def write_file(path: Path, text: str):
    def before(ctx: Ctx) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return before


# --- acts -------------------------------------------------------------------------------------

def sigterm_api_during_load(ctx: Ctx) -> None:
    if ctx.wait_any(["Starting to load model"], 240):
        assert ctx.proc is not None
        os.kill(ctx.proc.pid, signal.SIGTERM)
        try:
            ctx.proc.wait(60)
        except subprocess.TimeoutExpired:
            pass
        time.sleep(5)


def sigquit_serving(ctx: Ctx) -> None:
    """Ctrl-\\ (SIGQUIT to the group) with two long requests running."""
    if up(ctx, 240):
        ctx.complete(1)
        name = ctx.model_name()
        ts = [threading.Thread(target=ctx.post, args=("/v1/completions",
              {"model": name, "prompt": f"long {i}", "max_tokens": 200, "ignore_eos": True}),
              kwargs={"timeout": 60}, daemon=True) for i in range(2)]
        for t in ts:
            t.start()
        time.sleep(3)
        assert ctx.proc is not None
        os.killpg(ctx.proc.pid, signal.SIGQUIT)
        try:
            ctx.proc.wait(30)
        except subprocess.TimeoutExpired:
            pass
        time.sleep(5)


def oov_requests(ctx: Ctx) -> None:
    """Requests naming token ids outside the 512-token vocabulary."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(1)
        bad = [
            {"prompt": [3, 9999, 4], "max_tokens": 4},
            {"prompt": "fox", "max_tokens": 4, "logit_bias": {"9999": 5}},
            {"prompt": "fox", "max_tokens": 4, "allowed_token_ids": [2, 70000]},
            {"prompt": "fox", "max_tokens": 4, "stop_token_ids": [123456]},
            {"prompt": [-1, 5], "max_tokens": 4},
            {"prompt": "fox", "max_tokens": 4, "min_tokens": 50},
        ]
        for b in bad:
            ctx.post("/v1/completions", {"model": name, **b})
        ctx.complete(1)
        time.sleep(12)


def nan_requests(ctx: Ctx) -> None:
    if up(ctx, 240):
        ctx.complete(3, max_tokens=8)
        time.sleep(12)


def as_limit_serving(ctx: Ctx) -> None:
    """Once serving, the EngineCore's address space capped at what it uses now (prlimit -v),
    then longer requests."""
    if up(ctx, 240):
        ctx.complete(1)
        for p in ctx.children("EngineCore"):
            vms = p.memory_info().vms
            p.rlimit(psutil.RLIMIT_AS, (vms, vms))
        name = ctx.model_name()
        for _ in range(3):
            ctx.post("/v1/completions", {"model": name, "prompt": "the quick brown fox " * 40,
                                         "max_tokens": 32, "n": 4}, timeout=60)
        time.sleep(12)


def sigint_at_launch(ctx: Ctx) -> None:
    if ctx.wait_any(["server_args=", "ServerArgs("], 60):
        time.sleep(1)
        assert ctx.proc is not None
        os.killpg(ctx.proc.pid, signal.SIGINT)
        try:
            ctx.proc.wait(40)
        except subprocess.TimeoutExpired:
            pass


SCENARIOS = [
    # vLLM: flags and environment
    Scenario("v-quant-fp8-online", "vllm", "--quantization fp8 (online quantization) on the CPU "
             "build", [*BASE, "--quantization", "fp8"], act=until_exit),
    Scenario("v-external-launcher", "vllm", "--distributed-executor-backend external_launcher "
             "run without torchrun", [*BASE, "--distributed-executor-backend",
                                      "external_launcher"], act=until_exit),
    Scenario("v-worker-cls-missing", "vllm", "--worker-cls naming a plugin worker class that is "
             "not installed", [*BASE, "--worker-cls", "corp_plugins.workers.PinnedWorker"],
             act=until_exit),
    Scenario("v-ld-preload-missing", "vllm", "LD_PRELOAD naming a tcmalloc that is not installed "
             "(vLLM CPU docs' advice, wrong path)", BASE,
             env={"LD_PRELOAD": "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4"},
             act=serve_short),
    Scenario("v-rpc-path-missing", "vllm", "VLLM_RPC_BASE_PATH naming a folder that does not "
             "exist (ZMQ IPC sockets)", BASE, env={"VLLM_RPC_BASE_PATH": "/run/vllm-ipc"},
             act=until_exit),
    Scenario("v-cache-disk-full", "vllm", "VLLM_CACHE_ROOT and TORCHINDUCTOR_CACHE_DIR on a "
             "2 MiB filesystem with 64 KiB free", BASE,
             env={"VLLM_CACHE_ROOT": str(TINYFS / "vllm"),
                  "TORCHINDUCTOR_CACHE_DIR": str(TINYFS / "inductor")},
             before=fill_tinyfs, act=serve_short),
    # vLLM: checkpoint edits
    Scenario("v-hidden-act-bad", "vllm", "config.json hidden_act \"swishglu\" (no such "
             "activation)", BASE, model=hidden_act_bad, act=until_exit),
    Scenario("v-intermediate-mismatch", "vllm", "config.json intermediate_size 1024, "
             "checkpoint made with 512", BASE, model=intermediate_1024, act=until_exit),
    Scenario("v-shard-dtype-header", "vllm", "the second shard's header declaring one bf16 "
             "tensor F32 (header and data disagree)", BASE, model=shard_dtype_header,
             act=until_exit),
    Scenario("v-tokenizer-class-bad", "vllm", "tokenizer_config.json tokenizer_class naming a "
             "class transformers lacks", BASE, model=tokenizer_class_bad, act=until_exit),
    Scenario("v-nan-weights-raise", "vllm", "layer 0's q_proj all NaN, VLLM_RAISE_ON_LOGIT_NANS=1,"
             " then three requests", BASE, model=nan_weights,
             env={"VLLM_RAISE_ON_LOGIT_NANS": "1"}, act=nan_requests),
    # vLLM: runtime events and clients
    Scenario("v-sigterm-api-load", "vllm", "SIGTERM to the API server process alone while the "
             "engine core loads weights", BASE, act=sigterm_api_during_load),
    Scenario("v-sigquit-serving", "vllm", "Ctrl-\\ (SIGQUIT to the group) with two long "
             "requests running", BASE, act=sigquit_serving),
    Scenario("v-oov-requests", "vllm", "requests with token ids outside the vocabulary (prompt "
             "ids, logit_bias, allowed_token_ids, stop_token_ids, -1) and min_tokens > "
             "max_tokens", BASE, act=oov_requests),
    Scenario("v-as-limit-serving", "vllm", "the EngineCore's address space capped at its "
             "current size (prlimit -v) while serving, then n=4 requests", BASE,
             act=as_limit_serving),
    # SGLang
    Scenario("s-config-file-missing", "sglang", "--config naming a YAML file that does not "
             "exist", [*SG, "--config", "/etc/sglang/serve.yaml"], act=until_exit),
    Scenario("s-config-file-json", "sglang", "--config naming a JSON file",
             [*SG, "--config", str(WORK / "serve.json")],
             before=write_file(WORK / "serve.json", '{"mem_fraction_static": 0.8}\n'),
             act=until_exit),
    Scenario("s-config-yaml-syntax", "sglang", "--config YAML with a tab-indented line (syntax "
             "error)", [*SG, "--config", str(WORK / "serve.yaml")],
             before=write_file(WORK / "serve.yaml",
                               "mem_fraction_static: 0.8\nchunked_prefill_size:\n\t- 512\n"),
             act=until_exit),
    Scenario("s-tokenizer-class-bad", "sglang", "tokenizer_config.json tokenizer_class naming a "
             "class transformers lacks", SG, model=tokenizer_class_bad, act=until_exit),
    Scenario("s-no-tokenizer", "sglang", "the tokenizer files removed", SG,
             model=no_tokenizer, act=until_exit),
    Scenario("s-sigint-launch", "sglang", "Ctrl-C (SIGINT to the group) a second after the "
             "server arguments are logged", SG, act=sigint_at_launch),
]


def stale_socket(path: Path):
    """A unix socket file left behind by an earlier server that died (bound, never unlinked)."""
    def before(ctx: Ctx) -> None:
        import socket
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists():
            path.unlink()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(str(path))
        s.close()
    return before


def shard_bitrot(work: Path) -> Path:
    """64 KiB of random bytes written over the middle of the third shard's tensor data."""
    d = copy_model(work, "shard-bitrot")
    shard = sorted(d.glob("model-*.safetensors"))[2]
    raw = bytearray(shard.read_bytes())
    n = int.from_bytes(raw[:8], "little")
    start = 8 + n + (len(raw) - 8 - n) // 3
    raw[start:start + 65536] = os.urandom(65536)
    shard.write_bytes(bytes(raw))
    return d


def limited(res: int, value: int, step):
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        psutil.Process(ctx.proc.pid).rlimit(res, (value, value))
        step(ctx)
    return act


SCENARIOS += [
    Scenario("v-uds-stale", "vllm", "--uds naming a socket file an earlier server left behind",
             [*BASE, "--uds", str(WORK / "run" / "vllm.sock")],
             before=stale_socket(WORK / "run" / "vllm.sock"), act=until_exit),
    Scenario("v-shard-bitrot", "vllm", "64 KiB of random bytes over the third shard's tensor "
             "data (header intact)", BASE, model=shard_bitrot, act=serve_short),
    Scenario("s-nofile-limit", "sglang", "ulimit -n 32 (hard and soft) for the launcher",
             SG, act=limited(psutil.RLIMIT_NOFILE, 32, until_exit)),
]


def max_pos_string(work: Path) -> Path:
    return config_with(work, "max-pos-string", max_position_embeddings="2k")


def generation_config_cut(work: Path) -> Path:
    d = copy_model(work, "generation-config-cut")
    g = d / "generation_config.json"
    g.write_text(g.read_text()[:40])
    return d


SCENARIOS += [
    Scenario("s-max-pos-string", "sglang", "config.json max_position_embeddings \"2k\" (a "
             "string)", SG, model=max_pos_string, act=until_exit),
    Scenario("s-generation-config-cut", "sglang", "generation_config.json cut at 40 bytes",
             SG, model=generation_config_cut, act=until_exit),
]


def sigquit_dfl(ctx: Ctx) -> None:
    """The recorder runs in the background of a non-interactive shell, which ignores SIGQUIT;
    restore the default so the engine inherits it (as from a terminal)."""
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def sigquit_serving2(ctx: Ctx) -> None:
    """Ctrl-\\ (SIGQUIT to the group) with four long requests running."""
    if up(ctx, 240):
        ctx.complete(1)
        name = ctx.model_name()
        ts = [threading.Thread(target=ctx.post, args=("/v1/completions",
              {"model": name, "prompt": f"long {i}", "max_tokens": 240, "ignore_eos": True}),
              kwargs={"timeout": 60}, daemon=True) for i in range(4)]
        for t in ts:
            t.start()
        time.sleep(1.0)
        assert ctx.proc is not None
        os.killpg(ctx.proc.pid, signal.SIGQUIT)
        try:
            ctx.proc.wait(40)
        except subprocess.TimeoutExpired:
            pass
        time.sleep(5)


SCENARIOS += [
    Scenario("v-sigquit-serving2", "vllm", "Ctrl-\\ (SIGQUIT to the group, default action) "
             "with four long requests running", BASE, before=sigquit_dfl, act=sigquit_serving2),
]


def empty_architectures(work: Path) -> Path:
    return config_with(work, "empty-architectures", architectures=[])


SCENARIOS += [
    Scenario("v-empty-architectures", "vllm", "config.json \"architectures\": [] (an export "
             "that dropped the list)", BASE, model=empty_architectures, act=until_exit),
    Scenario("s-empty-architectures", "sglang", "config.json \"architectures\": []", SG,
             model=empty_architectures, act=until_exit),
]
