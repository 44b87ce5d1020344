"""The seventy-fifth batch's scenarios (tests/fixtures/corpus/fresh74): faults chosen, recorded
and labelled by a helper who had not read the classifier's rules, given only the recorder, its
building blocks, the earlier tables (not to repeat them) and the corpus's labelling rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind75.py OUT

Kept as it was run (the scenarios dropped are listed at the end). WORK is the folder the broken
copies and helper files go in (named in the logs' source lines).
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
WORK = Path("/tmp/blind75/rec/.work")
WORK.mkdir(parents=True, exist_ok=True)


def child_signal_when(child: str, needle: str | None, sig: int, delay: float = 0.0,
                      after_s: float = 60):
    def act(ctx: Ctx) -> None:
        if needle is not None and not ctx.wait_for(needle, 240):
            return
        end = time.monotonic() + 60
        targets = ctx.children(child)
        while not targets and time.monotonic() < end and ctx.proc.poll() is None:
            time.sleep(0.2)
            targets = ctx.children(child)
        time.sleep(delay)
        for p in targets:
            signal_quietly(p, sig)
        linger(ctx, after_s)
    return act


def system_role_chat(ctx: Ctx) -> None:
    """Completions, then chat requests: one plain, one with a system message."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(2)
        ctx.post("/v1/chat/completions", {"model": name, "max_tokens": 8,
                                          "messages": [{"role": "user", "content": "hi"}]})
        ctx.post("/v1/chat/completions", {"model": name, "max_tokens": 8, "messages": [
            {"role": "system", "content": "be brief"}, {"role": "user", "content": "hi"}]})
        ctx.complete(1)
        time.sleep(12)


def ghost_shard(name: str):
    """model.safetensors.index.json maps layer 1's tensors to a fifth shard that is not there."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = d / "model.safetensors.index.json"
        idx = json.loads(f.read_text())
        for k in idx["weight_map"]:
            if "layers.1." in k:
                idx["weight_map"][k] = "model-00005-of-00005.safetensors"
        f.write_text(json.dumps(idx, indent=2))
        return d
    return make


def special_map(name: str):
    """special_tokens_map.json with eos_token a number (a hand-edited file)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        (d / "special_tokens_map.json").write_text(json.dumps(
            {"bos_token": "<s>", "eos_token": 1, "unk_token": ["<unk>"]}, indent=2))
        return d
    return make


def raising_template(ctx: Ctx) -> None:
    (WORK / "no-system.jinja").write_text(
        "{% for m in messages %}{% if m['role'] == 'system' %}"
        "{{ raise_exception('System role not supported') }}{% endif %}"
        "{{ m['role'] + ': ' + m['content'] + '\\n' }}{% endfor %}assistant:")


SCENARIOS = [
    # vLLM: flags
    Scenario("v-spec-ngram-min-over-max", "vllm", "--speculative-config ngram with "
             "prompt_lookup_min 5 above prompt_lookup_max 2",
             [*BASE, "--speculative-config", '{"method": "ngram", "num_speculative_tokens": 3, '
              '"prompt_lookup_min": 5, "prompt_lookup_max": 2}'], act=until_exit),
    Scenario("v-tool-parser-bad", "vllm", "--enable-auto-tool-choice with --tool-call-parser "
             "naming a parser that does not exist",
             [*BASE, "--enable-auto-tool-choice", "--tool-call-parser", "nosuch"],
             act=until_exit),
    Scenario("v-logits-proc-missing", "vllm", "--logits-processors naming a class in a module "
             "that is not installed", [*BASE, "--logits-processors", "acme_bias.procs:BiasProc"],
             act=until_exit),
    Scenario("v-quant-gptq-plain", "vllm", "--quantization gptq on a model that is not GPTQ",
             [*BASE, "--quantization", "gptq"], act=until_exit),
    Scenario("v-chat-template-raises", "vllm", "--chat-template whose Jinja raises on a system "
             "message; chat requests with and without one", [*BASE, "--chat-template",
             str(WORK / "no-system.jinja")], before=raising_template, act=system_role_chat),
    # vLLM: environment
    Scenario("v-env-omp-threads-0", "vllm", "OMP_NUM_THREADS=0", BASE,
             env={"OMP_NUM_THREADS": "0"}, act=until_exit),
    # vLLM: model files
    Scenario("v-rope-scaling-string", "vllm", "config.json rope_scaling a bare string "
             "(\"linear\"), not an object", BASE,
             model=json_edit("rope-scaling-str", "config.json", rope_scaling="linear"),
             act=until_exit),
    Scenario("v-vocab-size-string", "vllm", "config.json vocab_size \"512\" (a string)", BASE,
             model=json_edit("vocab-str", "config.json", vocab_size="512"), act=until_exit),
    Scenario("v-index-ghost-shard", "vllm", "model.safetensors.index.json mapping layer 1's "
             "tensors to a fifth shard file that is not there", BASE,
             model=ghost_shard("ghost-shard"), act=until_exit),
    Scenario("v-special-map-eos-int", "vllm", "special_tokens_map.json with eos_token a number "
             "and unk_token a list", BASE, model=special_map("special-map"), act=until_exit),
    # vLLM: signals
    Scenario("v-usr2-worker-serving", "vllm", "served two completions, then SIGUSR2 to the "
             "worker process; one more request", BASE,
             act=signal_serving("Worker", signal.SIGUSR2)),
    Scenario("v-sigint-core-serving", "vllm", "served two completions, then SIGINT to the "
             "EngineCore process alone; one more request", BASE,
             act=signal_serving("EngineCore", signal.SIGINT)),
    # SGLang
    Scenario("s-spec-algo-bogus", "sglang", "--speculative-algorithm NOSUCH",
             [*SG, "--speculative-algorithm", "NOSUCH"], act=sg_until_exit),
    Scenario("s-reasoning-parser-bad", "sglang", "--reasoning-parser naming a parser that does "
             "not exist", [*SG, "--reasoning-parser", "nosuch"], act=sg_until_exit),
    Scenario("s-max-prefill-0", "sglang", "--max-prefill-tokens 0",
             [*SG, "--max-prefill-tokens", "0"], act=sg_until_exit),
    Scenario("s-nccl-port-70000", "sglang", "--nccl-port 70000 (above 65535)",
             [*SG, "--nccl-port", "70000"], act=sg_until_exit),
    Scenario("s-omp-threads-0", "sglang", "OMP_NUM_THREADS=0", SG,
             env={"OMP_NUM_THREADS": "0"}, act=sg_until_exit),
    Scenario("s-rope-scaling-string", "sglang", "config.json rope_scaling a bare string "
             "(\"linear\"), not an object", SG,
             model=json_edit("rope-scaling-str-sg", "config.json", rope_scaling="linear"),
             act=sg_until_exit),
    Scenario("s-special-map-eos-int", "sglang", "special_tokens_map.json with eos_token a "
             "number and unk_token a list", SG, model=special_map("special-map-sg"),
             act=sg_until_exit),
    Scenario("s-sigint-scheduler-start", "sglang", "SIGINT to the scheduler subprocess alone "
             "1 s after it takes its process name", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGINT, 1.0, 45)),
]

SCENARIOS += [
    Scenario("v-compile-mode-9", "vllm", "--compilation-config with mode 9 (the modes are 0-3)",
             [*BASE, "--compilation-config", '{"mode": 9}'], act=until_exit),
    Scenario("v-sigterm-worker-load", "vllm", "SIGTERM to the worker process alone as it starts "
             "loading the weights", BASE,
             act=child_signal_when("Worker", "Starting to load model", signal.SIGTERM, 0.0, 45)),
    Scenario("s-schedule-policy-bogus", "sglang", "--schedule-policy naming a policy that does "
             "not exist", [*SG, "--schedule-policy", "nosuch"], act=sg_until_exit),
    Scenario("s-vocab-size-string", "sglang", "config.json vocab_size \"512\" (a string)", SG,
             model=json_edit("vocab-str-sg", "config.json", vocab_size="512"),
             act=sg_until_exit),
]


def template_syntax(ctx: Ctx) -> None:
    (WORK / "broken.jinja").write_text(
        "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %"
        "assistant:")


SCENARIOS += [
    Scenario("s-tokenizer-hub-offline", "sglang", "--tokenizer-path a hub id "
             "(meta-llama/Llama-3.2-1B) with the hub offline and nothing cached",
             [*SG, "--tokenizer-path", "meta-llama/Llama-3.2-1B"], act=sg_until_exit),
    Scenario("s-chat-template-file-syntax", "sglang", "--chat-template naming a Jinja file "
             "with an unclosed tag", [*SG, "--chat-template", str(WORK / "broken.jinja")],
             before=template_syntax, act=sg_until_exit),
]

SCENARIOS += [
    Scenario("s-sigterm-scheduler-init", "sglang", "SIGTERM to the scheduler subprocess alone "
             "1 s after it takes its process name", SG,
             act=child_signal_when("sglang::scheduler", None, signal.SIGTERM, 1.0, 45)),
    Scenario("s-port-word", "sglang", "--port given as a word (http) where a number is expected; "
             "the last --port wins", [*SG, "--port", "http"], act=sg_until_exit),
]

# Recorded but left out of the batch: s-max-prefill-0, s-omp-threads-0 and
# s-chat-template-file-syntax (the fault never showed: each died of the stock "No module named
# 'vllm'" after "Load weight begin"); s-schedule-policy-bogus (an argparse invalid choice like
# s-reasoning-parser-bad); v-vocab-size-string and s-vocab-size-string (the same
# StrictDataclassFieldValidationError as the rope_scaling scenarios, another field).
