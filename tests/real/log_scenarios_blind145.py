"""The hundred-and-forty-fifth batch's scenarios (tests/fixtures/corpus/fresh144): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind145.py OUT

Themes: sampling and decoding parameters at their edges, sent per request to a server that is
up, with well-behaved requests alongside (two plain requests, then a batch of five sent at once
with the bad one in the middle, then one more good request) to show whether it keeps serving:
token ids past the 512-id vocabulary in the fields that reach SGLang's scheduler beside the text
(sampling_params.stop_token_ids with min_new_tokens, which feeds the min-new-tokens penalizer;
sampling_params.logit_bias; the top-level token_ids_logprob), the same stop id with min_tokens
on vLLM, n 1000 on both engines (vLLM's /v1/completions, SGLang's /generate sampling_params.n),
min_tokens 300 with no max_tokens on a 256-token context (vLLM), a temperature of 1e-30 (vLLM)
and of NaN (SGLang's /generate; Python's json writes it bare).

Earlier batches already had (not repeated): stop_token_ids, logit_bias and allowed_token_ids
past the vocabulary and min_tokens alone on vLLM (69th, 72nd, 88th), top_logprobs_num past the
vocabulary and a negative logprob_start_len on SGLang and 1000 logprobs on SGLang's OpenAI
endpoint (91st, 95th), temperature 1e30, top_k 1e6, seeds of 2**70, max_tokens 1e6, penalties
of 1e30, min above max on both engines (95th), temperature -1, top_p 1.7, 2000 stop strings
(87th), n and best_of 200 (111th), temperature NaN and Infinity and logit_bias 1e39 on vLLM
(131st), top_p 0 and a negative temperature through the Python API (96th, 127th), an empty
/generate text (142nd).

vLLM runs with VLLM_BASE's settings (--max-model-len 256); SGLang with --device cpu
--model-impl transformers (context 2,048). No helper files are needed (/tmp/blind145 holds the
raw logs only).

Recorded 2026-12-06 in three invocations (raw1: the table's first five scenarios; raw2:
v-min-tokens-past-context; raw3: v-temperature-1e-30, s-temperature-nan-native,
s-n-1000-native - each later invocation started after stopping, by its pid, this helper's own
recorder while it waited for the lock, to reorder what was left), taking turns with two other
helpers' recorders; each scenario once. About 8 minutes of recording (vLLM 49+48+48+51 s,
SGLang 72+84+54+57+59 s). 7 kept (final files dx101-dx107). Dropped: v-min-tokens-past-context
(min_tokens 300 and no max_tokens on a 256-token context; recorded, 48 s: one bare
`POST /v1/completions HTTP/1.1" 400 Bad Request` among 200s and nothing else - the same log as
dx102 and fresh141/du101, the fault not shown as itself) and s-temperature-nan-native
(sampling_params.temperature NaN on /generate; recorded, 57 s: a bare 400 after starlette's
exception handler's FastAPIDeprecationWarning - the body's bare NaN is refused as JSON before
SGLang's sampling checks, the same response as the 142nd batch's lone surrogate); both removed
from SCENARIOS. v-logprobs-21 (logprobs 21 over max_logprobs 20) was replaced before its turn by
v-temperature-1e-30: vLLM refuses such values with a bare 400 and no line of its own.

What the engines did: every kept log ends in serving. SGLang checks logit_bias keys
(`[http_server] Error: logit_bias must has keys in [0, 511], got 999999.`) and token_ids_logprob
(`token_ids_logprob contains out-of-vocabulary token id 999999; valid range is [0, 512).`)
before the scheduler and serves on, but not stop_token_ids: with min_new_tokens 4 the stop id
reaches the min-new-tokens penalizer (`min_new_tokens.py` `_prepare` `.scatter_add_(`),
`RuntimeError: index 999999 is out of bounds for dimension 1 with size 513` kills the scheduler
(`Scheduler hit an exception`, then `SIGQUIT received ... It usually means one child failed.` and
`kill_process_tree`). vLLM 0.32 refuses the same request (min_tokens with the stop id) with a
bare 400 and serves on. Neither engine limits n: SGLang admits the 1,000 copies in prefill
batches of 4, 93 and 907 and decodes 991 at once; vLLM answers n 1000 in seconds, its stats line
showing 476.7 prompt and 1126.9 generation tokens/s. vLLM clamps a temperature of 1e-30 with a
warning (`temperature 1e-30 is less than 0.01, which may cause numerical errors nan or inf in
tensors. We have maxed it out to 0.01.`) and serves it.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind145")
ROOT.mkdir(parents=True, exist_ok=True)
SG_ARGS = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
OOV = 999999            # the tiny model's vocabulary has 512 ids


def _batch(ctx: Ctx, path: str, bodies: list[dict], timeout: float = 120) -> None:
    """``bodies`` posted at once (one thread each), waited for."""
    threads = [threading.Thread(target=ctx.post, args=(path, b), kwargs={"timeout": timeout},
                                daemon=True) for b in bodies]
    for t in threads:
        t.start()
        time.sleep(0.05)
    for t in threads:
        t.join(timeout + 5)


def v_act(bad: dict, timeout: float = 120) -> object:
    """vLLM: up, two completions, a batch of five with ``bad`` in the middle, one more."""
    def act(ctx: Ctx) -> None:
        if not up(ctx, 240):
            return
        name = ctx.model_name()
        ctx.complete(2, max_tokens=8)

        def good(i: int) -> dict:
            return {"model": name, "prompt": f"the quick brown fox {i}", "max_tokens": 12}
        bodies = [good(1), good(2), {"model": name, "prompt": "the quick brown fox",
                                     **bad}, good(3), good(4)]
        _batch(ctx, "/v1/completions", bodies, timeout)
        time.sleep(2)
        ctx.complete(1, max_tokens=8)
        linger(ctx, 12)
    return act


def s_act(bad: dict, path: str = "/generate", timeout: float = 120) -> object:
    """SGLang: fired up, two /generate, a batch of five with ``bad`` in the middle, one more."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 240) != SG_READY or ctx.proc.poll() is not None:
            return

        def good(i: int) -> dict:
            return {"text": f"the quick brown fox {i}", "sampling_params": {"max_new_tokens": 12}}
        for i in range(2):
            ctx.post("/generate", good(10 + i))
        if path == "/generate":
            bodies = [good(1), good(2), bad, good(3), good(4)]
            _batch(ctx, "/generate", bodies, timeout)
        else:
            _batch(ctx, "/generate", [good(1), good(2)], timeout)
            ctx.post(path, bad, timeout=timeout)
            _batch(ctx, "/generate", [good(3), good(4)], timeout)
        time.sleep(2)
        ctx.post("/generate", good(5), timeout=30)
        linger(ctx, 12)
    return act


def V(name: str, what: str, bad: dict, timeout: float = 120) -> Scenario:
    return Scenario(name, "vllm", f"served, then {what}", list(VLLM_BASE),
                    act=v_act(bad, timeout))  # type: ignore[arg-type]


def S(name: str, what: str, bad: dict, path: str = "/generate") -> Scenario:
    return Scenario(name, "sglang", f"--model-impl transformers; served, then {what}",
                    list(SG_ARGS), act=s_act(bad, path))  # type: ignore[arg-type]


def sp(**params: object) -> dict:
    """A /generate body whose sampling_params hold ``params`` (max_new_tokens 12 unless given)."""
    return {"text": "the quick brown fox", "sampling_params": {"max_new_tokens": 12, **params}}


SCENARIOS = [
    S("s-min-new-tokens-stop-id-oov", "one /generate among good ones with min_new_tokens 4 and "
      f"stop_token_ids [{OOV}] (the vocabulary has 512 ids)",
      sp(min_new_tokens=4, stop_token_ids=[OOV])),
    V("v-min-tokens-stop-id-oov", "one completion among good ones with min_tokens 4, "
      f"max_tokens 12 and stop_token_ids [{OOV}] (the vocabulary has 512 ids)",
      {"max_tokens": 12, "min_tokens": 4, "stop_token_ids": [OOV]}),
    S("s-logit-bias-id-oov", "one /generate among good ones whose sampling_params.logit_bias "
      f"names id {OOV} (the vocabulary has 512 ids)", sp(logit_bias={str(OOV): 5.0})),
    V("v-n-1000", "one completion among good ones with n 1000 (max_tokens 12)",
      {"max_tokens": 12, "n": 1000}, timeout=240),
    S("s-token-ids-logprob-oov", f"one /generate among good ones with return_logprob and "
      f"token_ids_logprob [{OOV}] (the vocabulary has 512 ids)",
      {**sp(), "return_logprob": True, "token_ids_logprob": [5, OOV]}),
    V("v-temperature-1e-30", "one completion among good ones with temperature 1e-30 (a "
      "positive temperature far below any sensible one; max_tokens 12)",
      {"max_tokens": 12, "temperature": 1e-30}),
    S("s-n-1000-native", "one /generate among good ones with sampling_params.n 1000",
      sp(n=1000)),
]
