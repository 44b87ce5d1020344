"""The ninety-fourth batch's scenarios (tests/fixtures/corpus/fresh93): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind94.py OUT

Themes: engine features switched on by flags whose values are names or JSON - load formats the
checkpoint is not in (sharded_state, mistral's consolidated files, pt), JSON-valued flags of the
wrong shape or with values of the wrong type (--hf-overrides and --json-model-override-args a
list, --speculative-config a list or an ngram config without its token count,
--compilation-config's capture sizes a word, --kv-transfer-config naming an unknown role,
--preferred-sampling-params with a misspelt key), policy and mode names the engine lacks
(--scheduling-policy lifo, --logprobs-mode logits), a reasoning parser whose tags the tokenizer
lacks, random (dummy) weights, a pooling runner, a classifier conversion or embedding mode asked
of a generative model, speculative decoding whose draft is the model itself; and requests that
exercise sampling features (beam search, best_of, n above one, prompt_logprobs, a regex with
one option).

Recorded 2026-12-05: v-kv-role-bogus was first recorded with kv_role kv_both (a valid role; it
died on the connector name, a fault an earlier batch had) and re-recorded with kv_sender. The
chat scenarios write a plain chat template to /tmp/blind94/chat.jinja (the tiny model has none).

SGLang's own Llama module cannot be built on this host (it imports vllm), so its scenarios run
the model through the Transformers backend (--model-impl transformers), with which it serves
here; a fault that does not bite then shows as a server that serves.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    up,
)
from setup_engines import LLAMA  # noqa: E402

BASE = VLLM_BASE
SG = ["--device", "cpu"]
SG_SERVE = [*SG, "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"

# the tiny model ships no chat template: a plain one, written by the scenarios that chat
CHAT_TEMPLATE = Path("/tmp/blind94/chat.jinja")
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
CHAT = ["--chat-template", str(CHAT_TEMPLATE)]


def write_template(ctx: Ctx) -> None:
    CHAT_TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)


# --- vLLM steps ---------------------------------------------------------------------------------

def v_until_exit_or_serve(ctx: Ctx) -> None:
    """Wait for the run to end by itself (fast: 150 s); if it serves, two completions."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        linger(ctx, 10)


def pooling_requests(ctx: Ctx) -> None:
    """If it serves: an embeddings request, a /pooling request, a completion."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is None or ctx.proc.poll() is not None or READY_LINE not in ctx.text():
        return
    name = ctx.model_name()
    ctx.post("/v1/embeddings", {"model": name, "input": "the quick brown fox"})
    ctx.post("/pooling", {"model": name, "input": "the quick brown fox"})
    ctx.complete(1)
    linger(ctx, 10)


def sampling_feature_requests(ctx: Ctx) -> None:
    """A completion; beam search (n 3), best_of 4 with n 2, n 8, prompt_logprobs 5 and 50,
    echo with logprobs; a completion."""
    if not up(ctx, 240):
        return
    name = ctx.model_name()
    ctx.complete(1)
    base = {"model": name, "prompt": "the quick brown fox", "max_tokens": 8}
    ctx.post("/v1/completions", {**base, "use_beam_search": True, "n": 3})
    ctx.post("/v1/completions", {**base, "best_of": 4, "n": 2, "temperature": 0.9})
    ctx.post("/v1/completions", {**base, "n": 8, "temperature": 0.9})
    ctx.post("/v1/completions", {**base, "prompt_logprobs": 5})
    ctx.post("/v1/completions", {**base, "prompt_logprobs": 50})
    ctx.post("/v1/completions", {**base, "echo": True, "logprobs": 3})
    ctx.complete(1)
    linger(ctx, 12)


def chat_requests(ctx: Ctx, name: str, extra: dict | None = None) -> None:
    for q in ("hi", "think first: what is 2+2?"):
        ctx.post("/v1/chat/completions", {"model": name, "max_tokens": 16, **(extra or {}),
                                          "messages": [{"role": "user", "content": q}]})
    ctx.post("/v1/chat/completions", {"model": name, "max_tokens": 16, "stream": True,
                                      "messages": [{"role": "user", "content": "stream"}]})


def reasoning_chat(ctx: Ctx) -> None:
    """A completion, three chat requests (one streamed), a completion."""
    if not up(ctx, 240):
        return
    name = ctx.model_name()
    ctx.complete(1)
    chat_requests(ctx, name)
    ctx.complete(1)
    linger(ctx, 12)


def classify_requests(ctx: Ctx) -> None:
    """If it serves: /classify, a completion, /v1/embeddings."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is None or ctx.proc.poll() is not None or READY_LINE not in ctx.text():
        return
    name = ctx.model_name()
    ctx.post("/classify", {"model": name, "input": ["the quick brown fox", "hello"]})
    ctx.complete(1)
    ctx.post("/v1/embeddings", {"model": name, "input": "fox"})
    linger(ctx, 10)


# --- SGLang steps -------------------------------------------------------------------------------

def sg_generate(ctx: Ctx, n: int = 2, **extra: object) -> None:
    for i in range(n):
        ctx.post("/generate", {"text": f"fox {i}",
                               "sampling_params": {"max_new_tokens": 8, **extra}})


def sg_until_exit_or_serve(ctx: Ctx) -> None:
    """Wait for the run to end by itself (180 s); if it serves, two generations."""
    ctx.wait_any([SG_READY], 180)
    if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in ctx.text():
        sg_generate(ctx, 2)
        linger(ctx, 10)


def sg_embedding_requests(ctx: Ctx) -> None:
    """If it serves: an embeddings request, a /generate, an OpenAI completion."""
    ctx.wait_any([SG_READY], 200)
    if ctx.proc is None or ctx.proc.poll() is not None or SG_READY not in ctx.text():
        return
    ctx.post("/v1/embeddings", {"model": "default", "input": "the quick brown fox"})
    sg_generate(ctx, 1)
    ctx.post("/v1/completions", {"model": "default", "prompt": "fox", "max_tokens": 8})
    linger(ctx, 10)


def sg_sampling_feature_requests(ctx: Ctx) -> None:
    """A generation; n 3; best_of 3 with n 1 (OpenAI); n 4 with a one-option regex; a
    logprob request from the prompt's start; a generation."""
    ctx.wait_any([SG_READY], 200)
    if ctx.proc is None or ctx.proc.poll() is not None or SG_READY not in ctx.text():
        return
    sg_generate(ctx, 1)
    ctx.post("/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8, "n": 3,
                                                              "temperature": 0.9}})
    ctx.post("/v1/completions", {"model": "default", "prompt": "fox", "max_tokens": 8,
                                 "best_of": 3, "n": 1})
    ctx.post("/generate", {"text": "answer:", "sampling_params": {"max_new_tokens": 4, "n": 4,
                                                                  "regex": "(yes)"}})
    ctx.post("/generate", {"text": "the quick brown fox", "return_logprob": True,
                           "logprob_start_len": 0, "top_logprobs_num": 5,
                           "sampling_params": {"max_new_tokens": 4}})
    sg_generate(ctx, 1)
    linger(ctx, 12)


def sg_reasoning_chat(ctx: Ctx) -> None:
    """A generation, three chat requests (one streamed, separate_reasoning), a generation."""
    ctx.wait_any([SG_READY], 200)
    if ctx.proc is None or ctx.proc.poll() is not None or SG_READY not in ctx.text():
        return
    sg_generate(ctx, 1)
    chat_requests(ctx, "default", {"separate_reasoning": True})
    sg_generate(ctx, 1)
    linger(ctx, 12)


SCENARIOS = [
    # --- vLLM ---------------------------------------------------------------------------------
    Scenario("v-load-sharded-state", "vllm", "--load-format sharded_state on a plain "
             "safetensors checkpoint (no per-rank model-rank-*-part-* files)",
             [*BASE, "--load-format", "sharded_state"], act=v_until_exit_or_serve),
    Scenario("v-load-format-mistral", "vllm", "--load-format mistral on a Hugging Face "
             "checkpoint (no consolidated*.safetensors)",
             [*BASE, "--load-format", "mistral"], act=v_until_exit_or_serve),
    Scenario("v-hf-overrides-list", "vllm", "--hf-overrides given a JSON list of an object "
             "([{\"max_position_embeddings\": 1024}]) instead of the object",
             [*BASE, "--hf-overrides", '[{"max_position_embeddings": 1024}]'], wait_s=90),
    Scenario("v-spec-config-list", "vllm", "--speculative-config given a JSON list "
             "([\"ngram\", 3]) instead of an object",
             [*BASE, "--speculative-config", '["ngram", 3]'], wait_s=90),
    Scenario("v-spec-ngram-no-k", "vllm", "--speculative-config {\"method\": \"ngram\"} "
             "without num_speculative_tokens",
             [*BASE, "--speculative-config", '{"method": "ngram"}'],
             act=v_until_exit_or_serve),
    Scenario("v-compile-sizes-word", "vllm", "--compilation-config with cudagraph_capture_sizes "
             "the word \"all\" where a list of batch sizes goes",
             [*BASE, "--compilation-config", '{"cudagraph_capture_sizes": "all"}'],
             wait_s=90),
    Scenario("v-kv-role-bogus", "vllm", "--kv-transfer-config with a known connector and an "
             "unknown kv_role (kv_sender; the roles are kv_producer, kv_consumer, kv_both)",
             [*BASE, "--kv-transfer-config",
              '{"kv_connector": "SharedStorageConnector", "kv_role": "kv_sender"}'],
             act=v_until_exit_or_serve),
    Scenario("v-sched-policy-lifo", "vllm", "--scheduling-policy lifo (the policies are fcfs "
             "and priority)", [*BASE, "--scheduling-policy", "lifo"], wait_s=90),
    Scenario("v-logprobs-mode-bogus", "vllm", "--logprobs-mode logits (the modes are "
             "raw_/processed_ logits and logprobs)", [*BASE, "--logprobs-mode", "logits"],
             wait_s=90),
    Scenario("v-runner-pooling", "vllm", "--runner pooling on the generative Llama checkpoint; "
             "if it serves, an embeddings request, a /pooling request and a completion",
             [*BASE, "--runner", "pooling"], act=pooling_requests),
    Scenario("v-sampling-feature-requests", "vllm", "served, then completions using sampling "
             "features: beam search with n 3, best_of 4 with n 2, n 8, prompt_logprobs 5 and 50, "
             "echo with logprobs", BASE, act=sampling_feature_requests),
    Scenario("v-reasoning-r1-no-think", "vllm", "--reasoning-parser deepseek_r1 on a model "
             "whose tokenizer has no <think> tokens (with a plain --chat-template); a "
             "completion, three chat requests (one streamed), a completion",
             [*BASE, *CHAT, "--reasoning-parser", "deepseek_r1"], before=write_template,
             act=reasoning_chat),
    Scenario("v-convert-classify", "vllm", "--convert classify on the generative Llama "
             "checkpoint (no classifier head); if it serves, /classify, a completion, an "
             "embeddings request", [*BASE, "--convert", "classify"], act=classify_requests),
    # --- SGLang -------------------------------------------------------------------------------
    Scenario("s-override-args-list", "sglang", "--model-impl transformers; "
             "--json-model-override-args given a JSON list of an object "
             "([{\"max_position_embeddings\": 1024}])",
             [*SG_SERVE, "--json-model-override-args", '[{"max_position_embeddings": 1024}]'],
             act=sg_until_exit_or_serve),
    Scenario("s-preferred-sampling-typo", "sglang", "--model-impl transformers; "
             "--preferred-sampling-params with a misspelt key ({\"temprature\": 0.2}); two "
             "generations", [*SG_SERVE, "--preferred-sampling-params", '{"temprature": 0.2}'],
             act=sg_until_exit_or_serve),
    Scenario("s-load-sharded-state", "sglang", "--model-impl transformers; --load-format "
             "sharded_state on a plain safetensors checkpoint",
             [*SG_SERVE, "--load-format", "sharded_state"], act=sg_until_exit_or_serve),
    Scenario("s-load-format-pt", "sglang", "--model-impl transformers; --load-format pt on a "
             "checkpoint that has only safetensors files",
             [*SG_SERVE, "--load-format", "pt"], act=sg_until_exit_or_serve),
    Scenario("s-spec-standalone-self", "sglang", "--model-impl transformers; "
             "--speculative-algorithm STANDALONE with the served model itself as the draft",
             [*SG_SERVE, "--speculative-algorithm", "STANDALONE",
              "--speculative-draft-model-path", str(LLAMA.dir),
              "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
              "--speculative-num-draft-tokens", "3"], act=sg_until_exit_or_serve),
    Scenario("s-is-embedding", "sglang", "--model-impl transformers; --is-embedding on the "
             "generative Llama checkpoint; an embeddings request, a generation, a completion",
             [*SG_SERVE, "--is-embedding"], act=sg_embedding_requests),
    Scenario("s-sampling-feature-requests", "sglang", "--model-impl transformers; served, then "
             "generations using sampling features: n 3, best_of 3 (OpenAI completions), n 4 "
             "with a one-option regex, logprobs from the prompt's start",
             SG_SERVE, act=sg_sampling_feature_requests),
    Scenario("s-override-layers-list", "sglang", "--model-impl transformers; "
             "--json-model-override-args with num_hidden_layers a list ([2])",
             [*SG_SERVE, "--json-model-override-args", '{"num_hidden_layers": [2]}'],
             act=sg_until_exit_or_serve),
    Scenario("s-load-dummy", "sglang", "--model-impl transformers; --load-format dummy (random "
             "weights, a benchmark setting left in a launch script); two generations",
             [*SG_SERVE, "--load-format", "dummy"], act=sg_until_exit_or_serve),
    Scenario("s-reasoning-r1-no-think", "sglang", "--model-impl transformers; --reasoning-parser "
             "deepseek-r1 on a model whose tokenizer has no <think> tokens (with a plain "
             "--chat-template); a generation, three chat requests with separate_reasoning (one "
             "streamed), a generation",
             [*SG_SERVE, *CHAT, "--reasoning-parser", "deepseek-r1"], before=write_template,
             act=sg_reasoning_chat),
]
