"""The two-hundred-and-twelfth batch's scenarios (tests/fixtures/corpus/fresh211): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind212.py OUT

Themes: an evaluation harness's requests (lm-evaluation-harness, OpenCompass, HELM-style
clients) sent to a server that is up, with plain completions before and after each to show
whether it keeps serving. SGLang: native /generate loglikelihood scoring with return_logprob and
a logprob_start_len past the prompt's length and max_new_tokens 0; OpenAI completions with echo,
logprobs 1 and max_tokens 0 over a batch of token-id lists; sixteen concurrent loglikelihood
requests (input_ids of 250 tokens, return_logprob, logprob_start_len 0, max_new_tokens 1) on a
--context-length 256 server; a generate_until request whose stop list holds an empty string,
with a seed. vLLM: loglikelihood through /v1/completions with echo, logprobs 1 and max_tokens 0
over a batch of four strings; a harness asking logprobs 5 of a server started with
--max-logprobs 1; sixteen concurrent echo requests of 250-token id prompts (max_tokens 1) at the
256-token --max-model-len; the empty stop string with a seed.

Earlier batches already had (not repeated): echo with logprobs, prompt_logprobs, n and best_of and
prompt_logprobs past the limit (94th), OpenAI completions with echo and logprobs on SGLang (a
text prompt, two prompts with n 2, token ids, streamed) (128th), a negative logprob_start_len and
top_logprobs_num past the vocabulary on SGLang (91st, 95th, 145th), streamed logprobs past the
default max_logprobs 20 (152nd), token-id prompts at vLLM's --max-model-len and empty prompts
(142nd), token-id completions with stop strings (189th), bursts under --max-num-seqs 1 /
--max-running-requests 1 (191st).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings. Each
scenario first sets SIGINT and SIGQUIT back to their default actions (dfl_signals, as the 133rd
table does).

Recorded 2026-12-07 in one invocation (raw1: all eight, in the table's order, taking turns with
two other helpers' recorders); each scenario once. About 6m45s of recording (404 s: SGLang
54+54+51+49 s, vLLM 46+57+47+46 s), most of the 24 minutes spent waiting for the lock. 6 kept
(final files go101-go106). Dropped, and removed from the table: v-loglik-echo-max-tokens-0-batch
(a batch of four strings with echo, logprobs 1, max_tokens 0: vLLM answered it 200 with no word,
a line like the plain completions around it - the fault never shows) and s-stop-empty-string-seed
(stop ['', '\n\n', 'Question:'] with seed 1234 on SGLang's /v1/completions: a 38-token prefill
answered 200, no word of the empty stop string - the fault never shows). The s-logprob-start-len
source line says "a 10-token prompt": SGLang counts it as 38 tokens.

What the engines did: every run came up and kept serving; each harness request was refused or
served, and the plain completion after it answered 200 (all six ready in serving, no cause).
SGLang names its refusals in the scheduler's words and answers 400: `req.logprob_start_len=1000
is higher than the number of input tokens len(req.origin_input_ids)=38. Please use a smaller
logprob_start_len.`; at --context-length 256 each of sixteen concurrent 250-token input_ids
requests got `Input length (250 tokens) exceeds the maximum allowed length (250 tokens). Use a
shorter input or enable --allow-auto-truncate.` (a limit of 250 refusing 250), though `Prefill
batch` lines of 1, 3 and 12 one-token sequences still ran between them. Its OpenAI completions
refused echo with max_tokens 0 over token-id lists with a bare 400 (only a FastAPI deprecation
warning from starlette's exception handler). vLLM refused logprobs 5 over --max-logprobs 1 and
the empty stop string with a bare `400 Bad Request` access line and nothing else, and served all
sixteen concurrent 250-id echo requests (logprobs 1, max_tokens 1) at --max-model-len 256, 380
prompt tokens/s.
"""

from __future__ import annotations

import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

SG_READY = "The server is fired up and ready to roll!"
IDS_250 = [(7 * i) % 480 + 20 for i in range(250)]
PROMPTS = ["Question: What is the capital of France?\nAnswer:",
           "The quick brown fox jumps over the lazy",
           "Q: 2 + 2 = ?\nA:",
           "Once upon a time there was a"]


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def at_once(ctx: Ctx, path: str, bodies: list[dict]) -> None:
    """Post ``bodies`` concurrently, as a harness with concurrency len(bodies) does."""
    threads = [threading.Thread(target=ctx.post, args=(path, b, 180)) for b in bodies]
    for t in threads:
        t.start()
    for t in threads:
        t.join(200)


def harness(ready: str, bad: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    """Up: a plain completion, the harness's requests, a plain completion, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([ready], 300) != ready or ctx.proc is None or ctx.proc.poll() is not None:
            linger(ctx, 5)
            return
        ctx.complete(1, max_tokens=8)
        bad(ctx)
        time.sleep(2)
        ctx.complete(1, max_tokens=8)
        linger(ctx, 12)
    return act


# --- the harness's requests ---------------------------------------------------------------------

def s_logprob_start_past(ctx: Ctx) -> None:
    ctx.post("/generate", {"text": PROMPTS[0], "sampling_params": {"max_new_tokens": 0,
             "temperature": 0}, "return_logprob": True, "logprob_start_len": 1000,
             "top_logprobs_num": 1})


def s_echo_max0_ids(ctx: Ctx) -> None:
    ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": [IDS_250[:40],
             IDS_250[40:90]], "echo": True, "logprobs": 1, "max_tokens": 0, "temperature": 0})


def s_conc16(ctx: Ctx) -> None:
    at_once(ctx, "/generate", [{"input_ids": IDS_250[i:] + IDS_250[:i], "sampling_params":
            {"max_new_tokens": 1, "temperature": 0}, "return_logprob": True,
            "logprob_start_len": 0, "top_logprobs_num": 1} for i in range(16)])


def stop_empty(ctx: Ctx) -> None:
    ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": PROMPTS[0],
             "max_tokens": 32, "temperature": 0, "seed": 1234,
             "stop": ["", "\n\n", "Question:"]})


def v_logprobs5(ctx: Ctx) -> None:
    ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": PROMPTS[:2], "echo": True,
             "logprobs": 5, "max_tokens": 1, "temperature": 0})


def v_conc16(ctx: Ctx) -> None:
    name = ctx.model_name()
    at_once(ctx, "/v1/completions", [{"model": name, "prompt": IDS_250[i:] + IDS_250[:i],
            "echo": True, "logprobs": 1, "max_tokens": 1, "temperature": 0} for i in range(16)])


# --- the table ----------------------------------------------------------------------------------

def server_s(*extra: str) -> list[str]:
    return ["--device", "cpu", "--model-impl", "transformers", *extra]


def v(name: str, what: str, bad: Callable[[Ctx], None], *extra: str) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *extra], before=dfl_signals,
                    act=harness(READY_LINE, bad))


def s(name: str, what: str, bad: Callable[[Ctx], None], *extra: str) -> Scenario:
    return Scenario(name, "sglang", what, server_s(*extra), before=dfl_signals,
                    act=harness(SG_READY, bad))


PLAIN = "a plain completion before and after"

SCENARIOS = [
    s("s-logprob-start-len-past-input", "native /generate loglikelihood scoring: return_logprob, "
      f"top_logprobs_num 1, max_new_tokens 0 and logprob_start_len 1000 on a 10-token prompt; {PLAIN}",
      s_logprob_start_past),
    s("s-echo-max-tokens-0-id-lists", "OpenAI completions of a batch of two token-id lists with "
      f"echo, logprobs 1, max_tokens 0; {PLAIN}", s_echo_max0_ids),
    v("v-logprobs-5-over-max-logprobs-1", "server started with --max-logprobs 1; a harness's "
      f"echo request of two prompts asking logprobs 5, max_tokens 1; {PLAIN}", v_logprobs5,
      "--max-logprobs", "1"),
    s("s-concurrency16-loglik-near-context", "--context-length 256; sixteen concurrent /generate "
      "requests of 250 input_ids with return_logprob, logprob_start_len 0, top_logprobs_num 1, "
      f"max_new_tokens 1 (a harness at concurrency 16); {PLAIN}", s_conc16,
      "--context-length", "256"),
    v("v-concurrency16-echo-near-limit", "sixteen concurrent /v1/completions of 250 token ids "
      "with echo, logprobs 1, max_tokens 1 at --max-model-len 256 (a harness at concurrency 16); "
      f"{PLAIN}", v_conc16),
    v("v-stop-empty-string-seed", "a generate_until request whose stop list holds an empty "
      f"string (stop ['', '\\n\\n', 'Question:']), seed 1234, max_tokens 32; {PLAIN}",
      stop_empty),
]
