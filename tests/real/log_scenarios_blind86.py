"""The eighty-sixth batch's scenarios (tests/fixtures/corpus/fresh85): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind86.py OUT

Broken model copies go to OUT/.work. A read-only bind mount is made at /tmp/blind86/ro (root).
"""

from __future__ import annotations

import json
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
    copy_model,
    linger,
    sg_until_exit,
    until_exit,
    up,
)
from setup_engines import LLAMA, VLLM  # noqa: E402

BASE = VLLM_BASE
SG = ["--device", "cpu"]
ROOT = Path("/tmp/blind86")
RO = ROOT / "ro"
TLS = {"GLIBC_TUNABLES": "glibc.rtld.optional_static_tls=0"}


def read_only_dir(ctx: Ctx) -> None:
    """An empty folder on a read-only bind mount (a container's readOnlyRootFilesystem)."""
    RO.mkdir(parents=True, exist_ok=True)
    if subprocess.run(["findmnt", str(RO)], capture_output=True).returncode != 0:
        subprocess.run(["mount", "--bind", str(RO), str(RO)], check=True)
        subprocess.run(["mount", "-o", "remount,ro,bind", str(RO)], check=True)


def lora_adapter(name: str, target: list[str], in_dim: int, out_dim: int, r: int = 8):
    """A PEFT LoRA adapter folder made for another base model (its shapes) or other modules."""
    def make(ctx: Ctx) -> None:
        ad = ROOT / name
        ad.mkdir(parents=True, exist_ok=True)
        (ad / "adapter_config.json").write_text(json.dumps({
            "peft_type": "LORA", "r": r, "lora_alpha": 16, "target_modules": target,
            "lora_dropout": 0.0, "bias": "none", "task_type": "CAUSAL_LM",
            "base_model_name_or_path": "some-org/other-base"}, indent=2))
        code = ("import sys, torch\nfrom safetensors.torch import save_file\n"
                "t = {}\n"
                "for i in range(2):\n"
                "    for m in sys.argv[2].split(','):\n"
                "        p = f'base_model.model.model.layers.{i}.self_attn.{m}'\n"
                "        t[p + '.lora_A.weight'] = torch.zeros(int(sys.argv[5]), int(sys.argv[3]))\n"
                "        t[p + '.lora_B.weight'] = torch.zeros(int(sys.argv[4]), int(sys.argv[5]))\n"
                "save_file(t, sys.argv[1] + '/adapter_model.safetensors', metadata={'format': 'pt'})\n")
        subprocess.run([str(VLLM.python), "-c", code, str(ad), ",".join(target), str(in_dim),
                        str(out_dim), str(r)], check=True)
    return make


def jinja_in_model(name: str):
    """The model folder ships a chat_template.jinja whose for-loop is never closed."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        (d / "chat_template.jinja").write_text(
            "{% for message in messages %}<|{{ message['role'] }}|>{{ message['content'] }}\n"
            "{% if add_generation_prompt %}<|assistant|>{% endif %}\n")
        return d
    return make


def tokenizer_decoder(name: str):
    """tokenizer.json whose decoder names a type the tokenizers library does not know."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "tokenizer.json"
        tok = json.loads(f.read_text())
        tok["decoder"] = {"type": "ByteFallbackV2"}
        f.write_text(json.dumps(tok))
        return d
    return make


def serve_then_chat(ctx: Ctx) -> None:
    """Two completions, then two chat completions (which use the chat template)."""
    if up(ctx, 240):
        ctx.complete(2)
        name = ctx.model_name()
        for _ in range(2):
            ctx.post("/v1/chat/completions", {"model": name, "max_tokens": 8,
                                              "messages": [{"role": "user", "content": "hi"}]})
        ctx.complete(1)
        linger(ctx, 12)


def serve_with_lora(ctx: Ctx) -> None:
    """If it comes up: a completion on the base model, then one on the adapter."""
    if up(ctx, 240):
        ctx.complete(1)
        ctx.post("/v1/completions", {"model": "ad", "prompt": "fox", "max_tokens": 8})
        linger(ctx, 12)


def nofile_when(child: str, needles: list[str], extra: int = 3, after_s: float = 90):
    """The ``child`` processes' open-file limit set to what they hold now plus ``extra``,
    once a needle is logged."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if ctx.wait_any(needles, 240) is None:
            return
        for p in ctx.children(child):
            try:
                n = p.num_fds() + extra
                p.rlimit(psutil.RLIMIT_NOFILE, (n, n))
            except psutil.Error:
                pass
        end = time.monotonic() + after_s
        while time.monotonic() < end and ctx.proc.poll() is None:
            if "Application startup complete" in ctx.text():
                ctx.complete(2)
                linger(ctx, 12)
                return
            time.sleep(0.5)
    return act


def prom_file(ctx: Ctx) -> None:
    (ROOT / "prom-file").write_text("not a folder\n")


def spec(cfg: dict) -> list[str]:
    return ["--speculative-config", json.dumps(cfg)]


SCENARIOS = [
    # vLLM
    Scenario("v-glibc-static-tls", "vllm", "GLIBC_TUNABLES sets glibc.rtld.optional_static_tls "
             "to 0 (no surplus static TLS for libraries loaded later)", BASE, env=TLS,
             act=until_exit),
    Scenario("v-cache-root-readonly", "vllm", "VLLM_CACHE_ROOT an empty folder on a read-only "
             "bind mount", BASE, env={"VLLM_CACHE_ROOT": str(RO)}, before=read_only_dir,
             act=until_exit),
    Scenario("v-spec-suffix", "vllm", "speculative decoding by the suffix method (its package "
             "not installed)", [*BASE, *spec({"method": "suffix", "num_speculative_tokens": 2})],
             act=until_exit),
    Scenario("v-spec-mtp-llama", "vllm", "speculative decoding by MTP on a Llama checkpoint "
             "(no MTP layers)", [*BASE, *spec({"method": "mtp", "num_speculative_tokens": 1})],
             act=until_exit),
    Scenario("v-spec-draft-self", "vllm", "a draft model (the same tiny model) for speculative "
             "decoding on the CPU build", [*BASE, *spec({"model": str(LLAMA.dir),
                                                         "num_speculative_tokens": 2})],
             act=until_exit),
    Scenario("v-lora-other-base", "vllm", "a static LoRA adapter trained for another base "
             "model (hidden size 1024, tensors of other shapes)",
             [*BASE, "--enable-lora", "--max-lora-rank", "8", "--lora-modules",
              f"ad={ROOT / 'lora-other-base-v'}"],
             before=lora_adapter("lora-other-base-v", ["q_proj", "v_proj"], 1024, 1024),
             act=serve_with_lora),
    Scenario("v-lora-target-bogus", "vllm", "a static LoRA adapter whose target module is "
             "named wq (another model family's name)",
             [*BASE, "--enable-lora", "--max-lora-rank", "8", "--lora-modules",
              f"ad={ROOT / 'lora-target-bogus-v'}"],
             before=lora_adapter("lora-target-bogus-v", ["wq"], 256, 256),
             act=serve_with_lora),
    Scenario("v-jinja-in-model", "vllm", "the model folder ships a chat_template.jinja with an "
             "unclosed for-loop; completions, then chat requests", BASE,
             model=jinja_in_model("jinja-in-model-v"), act=serve_then_chat),
    Scenario("v-tokenizer-decoder-unknown", "vllm", "tokenizer.json's decoder of an unknown "
             "type", BASE, model=tokenizer_decoder("tokenizer-decoder-v"), act=until_exit),
    Scenario("v-nofile-worker-compile", "vllm", "the model worker's open-file limit cut to what "
             "it holds plus 3 as the compile warm-up starts", BASE,
             act=nofile_when("VLLM::Worker", ["Warming up model for the"])),
    # SGLang
    Scenario("s-glibc-static-tls", "sglang", "GLIBC_TUNABLES sets glibc.rtld.optional_static_tls "
             "to 0 (no surplus static TLS for libraries loaded later)", SG, env=TLS,
             act=sg_until_exit),
    Scenario("s-spec-ngram-cpu", "sglang", "--speculative-algorithm NGRAM on the CPU device",
             [*SG, "--speculative-algorithm", "NGRAM"], act=sg_until_exit),
    Scenario("s-lora-target-bogus", "sglang", "--lora-paths naming an adapter whose target "
             "module is named wq (another model family's name)",
             [*SG, "--enable-lora", "--lora-paths", f"ad={ROOT / 'lora-target-bogus-s'}"],
             before=lora_adapter("lora-target-bogus-s", ["wq"], 256, 256), act=sg_until_exit),
    Scenario("s-jinja-in-model", "sglang", "the model folder ships a chat_template.jinja with an "
             "unclosed for-loop", SG, model=jinja_in_model("jinja-in-model-s"),
             act=sg_until_exit),
    Scenario("s-tokenizer-decoder-unknown", "sglang", "tokenizer.json's decoder of an unknown "
             "type", SG, model=tokenizer_decoder("tokenizer-decoder-s"), act=sg_until_exit),
    Scenario("s-prom-dir-file", "sglang", "--enable-metrics with PROMETHEUS_MULTIPROC_DIR naming "
             "a regular file", [*SG, "--enable-metrics"],
             env={"PROMETHEUS_MULTIPROC_DIR": str(ROOT / "prom-file")}, before=prom_file,
             act=sg_until_exit),
    Scenario("s-dist-addr-ipv6", "sglang", "--dist-init-addr an IPv6 loopback with port "
             "([::1]:29533)", [*SG, "--dist-init-addr", "[::1]:29533"], act=sg_until_exit),
    Scenario("s-lora-other-base", "sglang", "--lora-paths naming an adapter trained for another "
             "base model (hidden size 1024)",
             [*SG, "--enable-lora", "--lora-paths", f"ad={ROOT / 'lora-other-base-s'}"],
             before=lora_adapter("lora-other-base-s", ["q_proj", "v_proj"], 1024, 1024),
             act=sg_until_exit),
]


# --- second round: more speculative/LoRA settings (the SGLang ones above mostly never showed) --

def lora_config_only(name: str):
    """A LoRA adapter folder with adapter_config.json but no weights file (a partial download)."""
    def make(ctx: Ctx) -> None:
        ad = ROOT / name
        ad.mkdir(parents=True, exist_ok=True)
        (ad / "adapter_config.json").write_text(json.dumps({
            "peft_type": "LORA", "r": 8, "lora_alpha": 16, "target_modules": ["q_proj", "v_proj"],
            "lora_dropout": 0.0, "bias": "none", "task_type": "CAUSAL_LM"}, indent=2))
    return make


SCENARIOS += [
    Scenario("v-spec-eagle-plain-draft", "vllm", "EAGLE speculative decoding with a plain Llama "
             "checkpoint (the tiny model) as the EAGLE head",
             [*BASE, *spec({"method": "eagle", "model": str(LLAMA.dir),
                            "num_speculative_tokens": 2})], act=until_exit),
    Scenario("v-spec-draft-tp2", "vllm", "a draft model with draft_tensor_parallel_size 2 on a "
             "target of tensor-parallel size 1",
             [*BASE, *spec({"model": str(LLAMA.dir), "num_speculative_tokens": 2,
                            "draft_tensor_parallel_size": 2})], act=until_exit),
    Scenario("v-lora-no-weights", "vllm", "a static LoRA adapter folder with its config but no "
             "weights file (a partial download)",
             [*BASE, "--enable-lora", "--max-lora-rank", "8", "--lora-modules",
              f"ad={ROOT / 'lora-no-weights-v'}"],
             before=lora_config_only("lora-no-weights-v"), act=serve_with_lora),
    Scenario("s-lora-target-flag-bogus", "sglang", "--enable-lora --max-lora-rank 8 "
             "--lora-target-modules wq (another model family's module name)",
             [*SG, "--enable-lora", "--max-lora-rank", "8", "--lora-target-modules", "wq"],
             act=sg_until_exit),
    Scenario("s-lora-no-weights", "sglang", "--lora-paths naming an adapter folder with its "
             "config but no weights file (a partial download)",
             [*SG, "--enable-lora", "--lora-paths", f"ad={ROOT / 'lora-no-weights-s'}"],
             before=lora_config_only("lora-no-weights-s"), act=sg_until_exit),
]


# --- third round: a port surprise for SGLang's metrics server -------------------------------

METRICS_PORT = 29677


def take_metrics_port(ctx: Ctx) -> None:
    """Another process (a node exporter, say) already listens on the metrics port."""
    import socket
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", METRICS_PORT))
    s.listen(1)
    ctx.keep.append(s)


SCENARIOS += [
    Scenario("s-metrics-port-taken", "sglang", "--enable-metrics --metrics-port naming a port "
             "another process already listens on", [*SG, "--enable-metrics", "--metrics-port",
                                                     str(METRICS_PORT)],
             before=take_metrics_port, act=sg_until_exit),
    Scenario("v-metrics-dir-file", "vllm", "PROMETHEUS_MULTIPROC_DIR naming a regular file",
             BASE, env={"PROMETHEUS_MULTIPROC_DIR": str(ROOT / "prom-file")}, before=prom_file,
             act=until_exit),
]

# Recorded once each (2026-12-05). Kept, as final files bq101-bq120: every vLLM scenario (two of
# them silent and labelled for what the log shows: v-glibc-static-tls and v-spec-draft-self
# served) and six SGLang ones, three of which never showed (s-spec-ngram-cpu, s-lora-other-base,
# s-jinja-in-model: the host's `No module named 'vllm'` ends them, labelled for that). Dropped as
# silent (the same host failure, nothing of the fault): s-glibc-static-tls, s-lora-target-bogus,
# s-dist-addr-ipv6, s-lora-no-weights, s-metrics-port-taken (SGLang's metrics server starts
# after the model is built).
