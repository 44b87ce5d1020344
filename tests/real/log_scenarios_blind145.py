"""The hundred-and-forty-fifth batch's scenarios (tests/fixtures/corpus/fresh144): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind145.py OUT

Themes: sampling and decoding parameters at their edges, sent per request to a server that is
up, with well-behaved requests alongside (a batch of five sent at once, the bad one in the
middle, then one more good request) to show whether it keeps serving.

TODO: results.
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
    V("v-min-tokens-past-context", "one completion among good ones with min_tokens 300 and no "
      "max_tokens (--max-model-len 256)", {"min_tokens": 300}),
    S("s-n-1000-native", "one /generate among good ones with sampling_params.n 1000",
      sp(n=1000)),
    V("v-logprobs-21", "one completion among good ones asking logprobs 21 (the server's "
      "max_logprobs is 20)", {"max_tokens": 12, "logprobs": 21}),
    S("s-temperature-nan-native", "one /generate among good ones with sampling_params."
      "temperature NaN (Python's json writes it bare)", sp(temperature=float("nan"))),
]
