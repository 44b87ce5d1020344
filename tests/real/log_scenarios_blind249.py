"""The two-hundred-and-forty-ninth batch's scenarios (tests/fixtures/corpus/fresh248): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind249.py OUT

Themes: speculative decoding as a person tunes it for speed, a new round - one speculative
setting or companion feature per run, on a launch that otherwise serves here. vLLM (VLLM_BASE's
settings): --speculative-config n-gram with num_speculative_tokens the word "three" (a wrong
type), n-gram with its lookup window 0 (prompt_lookup_min and _max 0), n-gram with
--enable-prefix-caching and requests sharing a long prefix, n-gram with sampled requests asking
n=3 and logprobs 5. SGLang (--device cpu --model-impl transformers): STANDALONE (the tiny model
as draft, 2 steps, topk 1, 3 draft tokens) with --enable-lora, STANDALONE with
--speculative-draft-window-size 0, a draft model path and step count given without
--speculative-algorithm, STANDALONE with --speculative-use-block-verification. Where a run
serves, three greedy completions on a repetitive prompt (or the scenario's own requests), then
15 s for the periodic stats that show whether drafting ran.

Earlier batches already had (not repeated): a draft path that does not exist, EAGLE without a
draft or with a plain Llama, MTP on Llama, Medusa from a plain Llama, the suffix method, the
tiny model as its own draft, a draft tensor-parallel size 2, a draft of another vocabulary or
head size, a draft shard cut short, --speculative-config not JSON / a list / ngram without its
token count / ngram min above max / num_speculative_tokens 0 and 300 / a misspelt key / a
speculative max_model_len above the draft's (75th, 86th, 94th, 124th); n-gram alone and under a
burst (108th), with chunked prefill and with --async-scheduling (198th), with --runner pooling
(202nd), a recipe's MTP and hub draft (219th); SGLang NGRAM on the CPU device (with and without
the transformers backend, without the radix cache, with mixed chunk), an unknown algorithm,
EAGLE topk without steps, STANDALONE with rejection sampling, a sink size without a window,
EAGLE3 with a plain draft, STANDALONE with a cut draft.

Recorded 2026-12-07 in one invocation (raw1, all eight scenarios in table order), waiting
turns for the recorder's lock with other helpers' recorders; each scenario once, about 4.4
minutes of my own recording (vLLM 11+14+83+60 s, SGLang 24+16+68+15 s). All 8 kept (final files
hz101-hz108). None dropped; one scenario replaced before recording (v-ngram-json-schema,
structured output with n-gram, taken out of the table unrecorded to keep eight). The
prefix-caching scenario's shared prefix (five repeats of a 16-word phrase, about 290 tokens)
was over --max-model-len 256, a slip of this table's request, not the engine's doing: its six
completions were refused 400 before reaching the engine, so that log shows the pair start and
serve but not drafting on cached prefixes.

What the engines did. vLLM refuses at configuration, before any engine core, with pydantic's
`ValidationError ... for SpeculativeConfig`: the word "three" (`Input should be a valid
integer, unable to parse string as an integer`) and the lookup window 0 (`prompt_lookup_max /
prompt_lookup_min Input should be greater than or equal to 1`) - both crashed at launch. n-gram
with prefix caching starts without a word about the pair (`Async scheduling not supported with
ngram-based speculative decoding and will be disabled.`, `Loading drafter model...`,
`Application startup complete.`) and answers the over-long requests with bare `400 Bad
Request` lines - served. n-gram with n=3 and logprobs 5 serves all three requests `200 OK` and
drafts (`SpecDecoding metrics: Mean acceptance length: 2.67, ... Avg Draft acceptance rate:
83.3%`) - served, the fault never showing. SGLang refuses in its argument checks, before any
scheduler: STANDALONE with LoRA (`ValueError: LoRA is only compatible with NGRAM, EAGLE, NEXTN,
EAGLE3, DFLASH, or DSPARK speculative decoding, not STANDALONE.`, from check_server_args), the
draft window 0 (`ValueError: --speculative-draft-window-size must be positive, got 0.`) and
block verification with STANDALONE (`ValueError: --speculative-use-block-verification only
supports EAGLE / EAGLE3 / NEXTN / DFLASH / DSPARK.`) - three crashed at launch. A draft path
without an algorithm is ignored silently (`'speculative_algorithm': None` in server_args, one
model loaded, plain prefill/decode batches) and the server serves three completions `200 OK`
without drafting. No run hung.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind249")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
READY_NEEDLES = ["Application startup complete", SG_READY]


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def spec(cfg: dict) -> list[str]:
    return ["--speculative-config", json.dumps(cfg)]


NGRAM = {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_min": 2,
         "prompt_lookup_max": 4}
REPEAT = "one two three four one two three four one two three four one two three"


def _requests(ctx: Ctx, extra: dict | None = None, n: int = 3) -> None:
    name = ctx.model_name()
    for i in range(n):
        body = {"model": name, "prompt": f"{REPEAT} {i}", "max_tokens": 24,
                "temperature": 0.0}
        body.update(extra or {})
        ctx.post("/v1/completions", body)


def serve_spec(ctx: Ctx) -> None:
    """If it serves: three greedy completions on a repetitive prompt (where n-gram drafting
    can hit), then 15 s for the engine's periodic metrics; else let it end."""
    found = ctx.wait_any(READY_NEEDLES, 240)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        if "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 90)
        _requests(ctx)
        time.sleep(15)
    else:
        linger(ctx, 20)


def serve_prefix_repeat(ctx: Ctx) -> None:
    """Six completions sharing one long prefix (the prefix cache's case), then 15 s."""
    if up(ctx, 240):
        name = ctx.model_name()
        prefix = " ".join([REPEAT] * 5)
        for i in range(6):
            ctx.post("/v1/completions", {"model": name, "prompt": f"{prefix} {i % 2}",
                                         "max_tokens": 24, "temperature": 0.0})
        time.sleep(15)
    else:
        linger(ctx, 20)


def serve_n3_logprobs(ctx: Ctx) -> None:
    """Two sampled completions asking n=3 and logprobs 5, then one plain one."""
    if up(ctx, 240):
        _requests(ctx, {"n": 3, "logprobs": 5, "temperature": 0.8}, n=2)
        _requests(ctx, n=1)
        time.sleep(15)
    else:
        linger(ctx, 20)


DRAFT = str(LLAMA.dir)
STANDALONE = ["--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path", DRAFT,
              "--speculative-num-steps", "2", "--speculative-eagle-topk", "1",
              "--speculative-num-draft-tokens", "3"]

SCENARIOS = [
    Scenario("v-ngram-tokens-word", "vllm",
             "--speculative-config n-gram with num_speculative_tokens given as the word "
             "\"three\" (a string where a number belongs)",
             [*VLLM_BASE, *spec({**NGRAM, "num_speculative_tokens": "three"})],
             act=serve_spec),
    Scenario("v-ngram-lookup-max-zero", "vllm",
             "--speculative-config n-gram with its lookup window 0 (prompt_lookup_min and "
             "prompt_lookup_max both 0)",
             [*VLLM_BASE, *spec({**NGRAM, "prompt_lookup_min": 0, "prompt_lookup_max": 0})],
             act=serve_spec),
    Scenario("v-ngram-prefix-caching", "vllm",
             "n-gram speculative decoding (3 tokens, lookup 2-4) with --enable-prefix-caching, "
             "then six completions sharing a long prefix",
             [*VLLM_BASE, "--enable-prefix-caching", *spec(NGRAM)], act=serve_prefix_repeat),
    Scenario("v-ngram-n3-logprobs", "vllm",
             "n-gram speculative decoding (3 tokens, lookup 2-4), then sampled completions "
             "asking n=3 with logprobs 5",
             [*VLLM_BASE, *spec(NGRAM)], act=serve_n3_logprobs),
    Scenario("s-standalone-lora", "sglang",
             "STANDALONE speculative decoding (the tiny model as draft, 2 steps, topk 1, 3 "
             "draft tokens) with --enable-lora (rank 8, q_proj v_proj)",
             [*SG, *STANDALONE, "--enable-lora", "--max-lora-rank", "8",
              "--lora-target-modules", "q_proj", "v_proj"], act=serve_spec),
    Scenario("s-standalone-window-zero", "sglang",
             "STANDALONE speculative decoding with --speculative-draft-window-size 0",
             [*SG, *STANDALONE, "--speculative-draft-window-size", "0"], act=serve_spec),
    Scenario("s-draft-path-no-algorithm", "sglang",
             "--speculative-draft-model-path (the tiny model) and --speculative-num-steps 2 "
             "given without --speculative-algorithm",
             [*SG, "--speculative-draft-model-path", DRAFT, "--speculative-num-steps", "2"],
             act=serve_spec),
    Scenario("s-standalone-block-verify", "sglang",
             "STANDALONE speculative decoding with --speculative-use-block-verification",
             [*SG, *STANDALONE, "--speculative-use-block-verification"], act=serve_spec),
]
