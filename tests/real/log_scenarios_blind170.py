"""The hundred-and-seventieth batch's scenarios (tests/fixtures/corpus/fresh169): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind170.py OUT

Themes: stop conditions per request, sent to a server that is up (one good completion before
the bad request and one after, to show whether it keeps serving): on vLLM a negative
stop_token_ids entry per request and the same id as every request's default
(--override-generation-config), and a default max_tokens of 0 the same way; on SGLang's native
/generate sampling_params a stop_regex that does not parse ('('), one that parses but does not
compile ('(?<=a+)b', a look-behind of variable width), and max_new_tokens -1.

Earlier batches already had (not repeated): stop_token_ids past the vocabulary on vLLM (69th,
72nd, 88th) and with min_new_tokens on SGLang (145th), min_tokens over max_tokens on both
engines (87th, 95th), min_tokens alone and past the context on vLLM (72nd, 145th), 2000 stop
strings (87th), max_tokens 1e6 (95th), ignore_eos on long generations (106th, 109th, 139th and
many more as load).

vLLM runs with VLLM_BASE's settings (--max-model-len 256); SGLang with --device cpu
--model-impl transformers. No helper files are needed (/tmp/blind170 holds the raw logs only).

Recorded 2026-12-07 in five invocations (raw1: v-stop-token-ids-negative,
s-stop-regex-invalid-native, v-stop-empty-string, then stopped by its pid while it waited for
the lock, to replace what was left; raw2: s-stop-token-ids-negative-native,
v-ignore-eos-no-max-tokens, s-max-new-tokens-negative-native, v-stop-string-200k-chars,
s-stop-empty-string-native; raw3: s-stop-regex-lookbehind-native; raw4:
v-genconfig-stop-token-ids-negative; raw5: v-genconfig-max-new-tokens-0), taking turns with two
other helpers' recorders; each scenario once. About 9m20s of recording (vLLM 45+45+49+46+60+56
s, SGLang 43+45+59+62+51 s). 6 kept (final files ew101-ew106). Dropped, and removed from
SCENARIOS: v-stop-empty-string (stop [""] with include_stop_str_in_output; recorded, 45 s: a
bare `POST /v1/completions HTTP/1.1" 400 Bad Request` between 200s, the same log as ew101 and
fresh144/dx102); s-stop-token-ids-negative-native (stop_token_ids [-1] on /generate; 45 s:
SGLang answered it 200 without a word - the fault never shows); v-ignore-eos-no-max-tokens
(ignore_eos with max_tokens null; 49 s: three 200s and a stats line of about 37 generated tokens
- by that count a default of 16 tokens ended it, nothing of the fault shows);
v-stop-string-200k-chars (one stop string of 200,000 characters; 46 s: 200 OK, nothing else);
s-stop-empty-string-native (stop [""] with no_stop_trim; 51 s: 200 OK, nothing else).
v-max-tokens-zero was replaced before its turn (vLLM's check, max_tokens at least 1, would
have given ew101's bare 400 again).

What the engines did: every kept log ends in serving, the server alive. vLLM refuses a bad stop
field per request with a bare 400 and no line of its own (ew101), but takes
--override-generation-config's stop_token_ids [-1] at launch without a word and serves 200s
(ew105), while a default max_new_tokens of 0 given the same way is taken as silently and then
every completion is refused with a bare 400, those that ask max_tokens 12 as well (ew106).
SGLang's ingress parses stop_regex with sre_parse: an unbalanced '(' escapes as uvicorn's
`Exception in ASGI application` traceback ending `re.error: missing ), unterminated subpattern
at position 0` and a 500 (ew102), while '(?<=a+)b' parses (`Got unhandled regex token: ASSERT`),
reaches the scheduler, and its seatbelt aborts that request only (`invalid stop_regex '(?<=a+)b'
(look-behind requires fixed-width pattern); aborting the request`, then a 400, ew104).
max_new_tokens -1 is refused in SGLang's words (`[http_server] Error: max_new_tokens must be at
least 0, got -1.`, ew103).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"


def v_bad(extra: dict) -> object:
    """vLLM: up, one good completion, the bad one, one good one, a pause."""
    def act(ctx: Ctx) -> None:
        if up(ctx, 240):
            name = ctx.model_name()
            ctx.complete(1, max_tokens=12)
            ctx.post("/v1/completions", {"model": name, "prompt": "the fox", **extra},
                     timeout=90)
            time.sleep(1)
            ctx.complete(1, max_tokens=12)
            linger(ctx, 12)
    return act


def s_bad(params: dict) -> object:
    """SGLang: fired up, one good /generate, the bad one, one good one, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 300) == SG_READY:
            good = {"text": "the fox", "sampling_params": {"max_new_tokens": 12}}
            ctx.post("/generate", good)
            ctx.post("/generate", {"text": "the fox", "sampling_params": params}, timeout=90)
            time.sleep(1)
            ctx.post("/generate", good)
            linger(ctx, 12)
    return act


def v(name: str, what: str, extra: dict) -> Scenario:
    return Scenario(name, "vllm", what, list(VLLM_BASE), act=v_bad(extra))  # type: ignore[arg-type]


def s(name: str, what: str, params: dict) -> Scenario:
    return Scenario(name, "sglang", what, list(SG), act=s_bad(params))  # type: ignore[arg-type]


SCENARIOS = [
    v("v-stop-token-ids-negative", "served; then a /v1/completions request whose "
      "stop_token_ids is [-1] (max_tokens 16), then a good one", {"max_tokens": 16,
                                                                 "stop_token_ids": [-1]}),
    s("s-stop-regex-invalid-native", "served; then a /generate request whose "
      "sampling_params.stop_regex is '(' (an unbalanced group), then a good one",
      {"max_new_tokens": 16, "stop_regex": "("}),
    s("s-max-new-tokens-negative-native", "served; then a /generate request whose "
      "sampling_params.max_new_tokens is -1, then a good one", {"max_new_tokens": -1}),
    s("s-stop-regex-lookbehind-native", "served; then a /generate request whose "
      "sampling_params.stop_regex is '(?<=a+)b' (parses, but a look-behind of variable width "
      "does not compile), then a good one", {"max_new_tokens": 16, "stop_regex": "(?<=a+)b"}),
    Scenario("v-genconfig-stop-token-ids-negative", "vllm", "launched with "
             "--override-generation-config '{\"stop_token_ids\": [-1]}' (a default stop id for "
             "every request); served: a good completion, one more, one more",
             [*VLLM_BASE, "--override-generation-config", '{"stop_token_ids": [-1]}'],
             act=v_bad({"max_tokens": 16})),  # type: ignore[arg-type]
    Scenario("v-genconfig-max-new-tokens-0", "vllm", "launched with "
             "--override-generation-config '{\"max_new_tokens\": 0}' (a default max_tokens of "
             "0); served: a good completion, one with no max_tokens, a good one",
             [*VLLM_BASE, "--override-generation-config", '{"max_new_tokens": 0}'],
             act=v_bad({})),  # type: ignore[arg-type]
]
