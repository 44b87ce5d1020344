"""The eighty-ninth batch's scenarios (tests/fixtures/corpus/fresh88): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind89.py OUT

*-tmpdir-full: TMPDIR is /tmp/blind89/fulltmp, a 256 KiB tmpfs mounted there before the run and
filled to the last byte (a container whose small /tmp volume is full); unmounted afterwards.
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
    copy_model,
    json_edit,
    linger,
    sg_until_exit,
    signal_quietly,
    until_exit,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
ROOT = Path("/tmp/blind89")
FULL_TMP = {"TMPDIR": str(ROOT / "fulltmp")}


def tokenizer_json_object(work: Path) -> Path:
    """tokenizer.json replaced by an empty JSON object (a half-finished upload's placeholder)."""
    d = copy_model(work, "tokenizer-json-object")
    (d / "tokenizer.json").write_bytes(b"{}\n")
    return d


def utf16_file(name: str, file: str):
    """A copy whose ``file`` was re-saved as UTF-16 (with BOM) by a Windows editor."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / file
        f.write_bytes(f.read_text().encode("utf-16"))
        return d
    return make


sliding_negative = json_edit("sliding-window-negative", "config.json", sliding_window=-4096)
rope_llama3_partial = json_edit("rope-llama3-partial", "config.json",
                                rope_parameters={"rope_theta": 10000.0, "rope_type": "llama3",
                                                 "factor": 8.0})


def gen_config_file_flag(work: Path) -> Path:
    return copy_model(work, "gen-config-file")


def detokenize_oov(ctx: Ctx) -> None:
    """Served, then /detokenize with ids far outside the vocabulary, /tokenize of a long text, an
    embeddings request to the generative model; one good completion after."""
    if up(ctx, 240):
        ctx.complete(2)
        name = ctx.model_name()
        ctx.post("/detokenize", {"model": name, "tokens": [5, 999999999, -3]})
        ctx.post("/detokenize", {"model": name, "tokens": [2 ** 40]})
        ctx.post("/tokenize", {"model": name, "prompt": "fox " * 5000})
        ctx.post("/v1/embeddings", {"model": name, "input": "fox"})
        time.sleep(2)
        ctx.complete(1)
        linger(ctx, 12)


def signal_api_when(needles: list[str], sig: int, delay: float = 0.5):
    """``sig`` to the API server (the process the user started) once a needle is logged."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if ctx.wait_any(needles, 240) is None:
            return
        time.sleep(delay)
        signal_quietly(ctx.proc, sig)
        linger(ctx, 40)
    return act


def signal_serving_child(child: str, sig: int):
    def act(ctx: Ctx) -> None:
        if up(ctx, 240):
            ctx.complete(2)
            for p in ctx.children(child):
                signal_quietly(p, sig)
            time.sleep(2)
            ctx.complete(1)
            linger(ctx, 25)
    return act


SCENARIOS = [
    # vLLM
    Scenario("v-tokenizer-json-object", "vllm", "tokenizer.json replaced by an empty JSON "
             "object (a placeholder left by an unfinished upload)", BASE,
             model=tokenizer_json_object, act=until_exit),
    Scenario("v-config-utf16", "vllm", "config.json re-saved as UTF-16 with a BOM by a Windows "
             "editor", BASE, model=utf16_file("config-utf16", "config.json"), act=until_exit),
    Scenario("v-sliding-window-negative", "vllm", "config.json sliding_window set to -4096",
             BASE, model=sliding_negative, act=until_exit),
    Scenario("v-rope-llama3-partial", "vllm", "config.json rope_parameters of type llama3 with "
             "only a factor (low_freq_factor, high_freq_factor, original length left out)",
             BASE, model=rope_llama3_partial, act=until_exit),
    Scenario("v-gen-config-file", "vllm", "--generation-config naming the model's "
             "generation_config.json file itself instead of its folder",
             [*BASE, "--generation-config",
              str(ROOT / "out" / ".work" / "gen-config-file" / "generation_config.json")],
             model=gen_config_file_flag, act=until_exit),
    Scenario("v-served-name-empty", "vllm", "--served-model-name given an empty string (an "
             "unset shell variable in a launch script)", [*BASE, "--served-model-name", ""],
             act=until_exit),
    Scenario("v-tmpdir-full", "vllm", "TMPDIR on a 256 KiB tmpfs already full (a container's "
             "small /tmp volume)", BASE, env=FULL_TMP, act=until_exit),
    Scenario("v-detokenize-oov", "vllm", "served, then /detokenize with token ids far outside "
             "the vocabulary, a long /tokenize, an embeddings request to a generative model",
             BASE, act=detokenize_oov),
    Scenario("v-alrm-worker-serving", "vllm", "SIGALRM (default action: terminate) to the "
             "model worker process while it serves", BASE,
             act=signal_serving_child("VLLM::Worker", signal.SIGALRM)),
    Scenario("v-alrm-api-kvcache", "vllm", "SIGALRM (default action: terminate) to the API "
             "server process 1 s after the engine logged the size of its KV cache", BASE,
             act=signal_api_when(["CPU KV cache size"], signal.SIGALRM, delay=1.0)),
    # SGLang
    Scenario("s-tokenizer-json-object", "sglang", "tokenizer.json replaced by an empty JSON "
             "object (a placeholder left by an unfinished upload)", SG,
             model=tokenizer_json_object, act=sg_until_exit),
    Scenario("s-config-utf16", "sglang", "config.json re-saved as UTF-16 with a BOM by a "
             "Windows editor", SG, model=utf16_file("config-utf16", "config.json"),
             act=sg_until_exit),
    Scenario("s-genconfig-utf16", "sglang", "generation_config.json re-saved as UTF-16 with a "
             "BOM by a Windows editor", SG,
             model=utf16_file("genconfig-utf16", "generation_config.json"), act=sg_until_exit),
    Scenario("s-sliding-window-negative", "sglang", "config.json sliding_window set to -4096",
             SG, model=sliding_negative, act=sg_until_exit),
    Scenario("s-rope-llama3-partial", "sglang", "config.json rope_parameters of type llama3 "
             "with only a factor (low_freq_factor, high_freq_factor, original length left out)",
             SG, model=rope_llama3_partial, act=sg_until_exit),
    Scenario("s-tmpdir-full", "sglang", "TMPDIR on a 256 KiB tmpfs already full (a container's "
             "small /tmp volume)", SG, env=FULL_TMP, act=sg_until_exit),
    Scenario("s-served-name-empty", "sglang", "--served-model-name given an empty string (an "
             "unset shell variable in a launch script)", [*SG, "--served-model-name", ""],
             act=sg_until_exit),
]


def slow_clients(ctx: Ctx) -> None:
    """Served, then 60 client connections that send half a request header and stall (a
    slowloris-like client or a broken proxy), and good completions while they hang open."""
    import socket as _s
    if up(ctx, 240):
        ctx.complete(1)
        for _ in range(60):
            try:
                c = _s.create_connection(("127.0.0.1", ctx.port), timeout=5)
                c.sendall(b"POST /v1/completions HTTP/1.1\r\nHost: x\r\nContent-Length: 9999\r\n")
                ctx.keep.append(c)
            except OSError:
                break
        time.sleep(3)
        ctx.complete(2)
        linger(ctx, 15)


SCENARIOS += [
    Scenario("v-genconfig-utf16", "vllm", "generation_config.json re-saved as UTF-16 with a "
             "BOM by a Windows editor", BASE,
             model=utf16_file("genconfig-utf16", "generation_config.json"), act=until_exit),
    Scenario("v-slow-clients", "vllm", "served, then 60 client connections that send half a "
             "request header and stall, with good completions while they hang open", BASE,
             act=slow_clients),
    Scenario("s-index-utf16", "sglang", "model.safetensors.index.json re-saved as UTF-16 with a "
             "BOM by a Windows editor", SG,
             model=utf16_file("index-utf16", "model.safetensors.index.json"), act=sg_until_exit),
    Scenario("s-config-max-pos-float", "sglang", "config.json max_position_embeddings written "
             "as 2048.5 (a float from a conversion script)", SG,
             model=json_edit("max-pos-float", "config.json", max_position_embeddings=2048.5),
             act=sg_until_exit),
    Scenario("v-config-max-pos-float", "vllm", "config.json max_position_embeddings written "
             "as 2048.5 (a float from a conversion script)", BASE,
             model=json_edit("max-pos-float", "config.json", max_position_embeddings=2048.5),
             act=until_exit),
]


def trailing_space(work: Path) -> Path:
    """The model path with a trailing space (pasted from a document), which names no folder."""
    return Path(str(copy_model(work, "trailing-space")) + " ")


SCENARIOS += [
    Scenario("v-model-path-space", "vllm", "the model path given with a trailing space (pasted "
             "from a document, quoted in the launch script)", BASE, model=trailing_space,
             act=until_exit),
    Scenario("s-model-path-space", "sglang", "the model path given with a trailing space "
             "(pasted from a document, quoted in the launch script)", SG, model=trailing_space,
             act=sg_until_exit),
]


def tokenizer_socket(work: Path) -> Path:
    """tokenizer.json replaced by a Unix socket file (a sync tool that copied a socket in its
    place, as some backup tools do with special files)."""
    import socket as _s
    d = copy_model(work, "tokenizer-socket")
    (d / "tokenizer.json").unlink()
    s = _s.socket(_s.AF_UNIX, _s.SOCK_STREAM)
    s.bind(str(d / "tokenizer.json"))
    s.close()
    return d


SCENARIOS += [
    Scenario("v-tokenizer-socket", "vllm", "tokenizer.json replaced by a Unix socket file (a "
             "sync tool that copied a special file in its place)", BASE, model=tokenizer_socket,
             act=until_exit),
    Scenario("s-tokenizer-socket", "sglang", "tokenizer.json replaced by a Unix socket file (a "
             "sync tool that copied a special file in its place)", SG, model=tokenizer_socket,
             act=sg_until_exit),
]


def config_socket(work: Path) -> Path:
    """config.json replaced by a Unix socket file (a sync tool that copied a special file)."""
    import socket as _s
    d = copy_model(work, "config-socket")
    (d / "config.json").unlink()
    s = _s.socket(_s.AF_UNIX, _s.SOCK_STREAM)
    s.bind(str(d / "config.json"))
    s.close()
    return d


SCENARIOS += [
    Scenario("s-config-socket", "sglang", "config.json replaced by a Unix socket file (a sync "
             "tool that copied a special file in its place)", SG, model=config_socket,
             act=sg_until_exit),
]

# Recorded once each (2026-12-05). Kept, as final files bt101-bt122: fifteen vLLM scenarios (five
# silent and labelled for what the log shows, ready in serving: v-sliding-window-negative - only a
# negative `CPU KV cache size` shows it -, v-tmpdir-full, v-genconfig-utf16, v-detokenize-oov,
# v-slow-clients) and seven SGLang ones. Dropped as the fault never showed (each run died of the
# host's `No module named 'vllm'` after `Load weight begin` with no trace of the fault):
# s-genconfig-utf16, s-sliding-window-negative, s-tmpdir-full, s-served-name-empty, s-index-utf16.
