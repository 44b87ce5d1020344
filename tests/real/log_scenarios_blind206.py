"""The two-hundred-and-sixth batch's scenarios (tests/fixtures/corpus/fresh205): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind206.py OUT

Themes: fragments, as people paste them into issues - a second batch, of other faults than the
201st's. Whole runs with ordinary faults on both engines (a model path that is not there, the
tokenizer files missing, the port taken, an out-of-range setting refused at launch, a KV pool
too small for the context, a server serving normally with a few client errors); each final log
is ONE contiguous run of whole lines of the recorded log, cut as a person pasting it would cut.

Earlier batches already had (not repeated; the 201st's fragments were of an EngineCore or
scheduler SIGKILLed while serving, a SIGTERM after traffic, vLLM's client errors, a shard cut in
half, a tiny --mem-fraction-static and SGLang's watchdog): these faults were recorded as whole
logs by earlier batches, the fragment is the point here.

Recorded 2026-12-07 in one invocation (raw1, all eight scenarios, taking turns with two other
helpers' recorders); each scenario once. About 5m40s of recording (vLLM 11+14+9+9 s, SGLang
210+14+24+51 s; s-port-taken held the lock 200 s because SGLang never exited). 8 kept (final
files gi101-gi108), each a fragment: "lines A-B of N" counts the whole lines (newline-ended; a
progress bar's carriage returns do not split a line) of the log text after the header's blank
line. Dropped: none (every fault showed).

What the engines did (whole runs; the fragments cut from them are in each file's note). vLLM: a
--model folder that is not there - `HFValidationError: Repo id must be in the form 'repo_name'
...` from `get_model_path` while the arguments are parsed; --gpu-memory-utilization 1.5 -
pydantic's `ValidationError: 1 validation error for CacheConfig` / `Input should be less than or
equal to 1`; the tokenizer files missing - `ValueError: Couldn't instantiate the backend tokenizer
from one of: ...` as the AsyncLLM builds its renderer; the port taken - `OSError: [Errno 98]
Address already in use` from `create_server_socket`, before any engine is built: all four at
launch within 15 s. SGLang: the port taken - it loads, allocates the KV cache, starts uvicorn,
logs `ERROR:    [Errno 98] error while attempting to bind on address ... address already in use`
and `Waiting for application shutdown.`, then prints nothing more and never exits (the scheduler
kept a core busy until the recorder killed the tree at 200 s); --tokenizer-path a folder not
there - four chained tracebacks as the tokenizer manager starts, the last `OSError: Repo id must
be in the form ...` (launch); --max-total-tokens 16 - the pool is allocated with a warning (`KV
pool holds 16 tokens, fewer than --context-length 256`), and the engine's own warmup request is
refused (`Input length (20 tokens) exceeds the maximum allowed length (10 tokens)`, 400), then
`Initialization failed. warmup error` and `kill_process_tree` (warmup). Client errors
while serving (5000 max_tokens, a chat message of a bogus role, temperature -2, max_new_tokens
-5) are four `400 Bad Request` access lines (only the last with its words: `max_new_tokens must
be at least 0, got -5.`), each under a FastAPIDeprecationWarning, between good completions; the
server answered on (serving, ready).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    missing_model,
    no_tokenizer,
    take_port,
)

ROOT = Path("/tmp/blind206")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"


def v_until(ctx: Ctx) -> None:
    """vLLM: until the run ends; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until the run ends or is fired up (then two completions); a short pause."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def s_bad_requests(ctx: Ctx) -> None:
    """SGLang serving, with client errors among ordinary completions; still up at the end."""
    if ctx.wait_any([SG_READY], 240) != SG_READY:
        return
    name = ctx.model_name()
    ctx.complete(2)
    ctx.post("/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 5000})
    ctx.post("/v1/chat/completions", {"model": name,
                                      "messages": [{"role": "bogus", "content": 3}]})
    ctx.post("/v1/completions", {"model": name, "prompt": "fox", "temperature": -2})
    ctx.post("/generate", {"text": "fox", "sampling_params": {"max_new_tokens": -5}})
    ctx.complete(2)
    time.sleep(12)


SCENARIOS = [
    Scenario("v-model-path-missing", "vllm", "--model names a folder that is not there",
             [*VLLM_BASE], model=missing_model, act=v_until),
    Scenario("s-port-taken", "sglang", "the port already bound and listening by another "
             "process", [*SG], before=take_port, act=s_until),
    Scenario("v-gpu-util-over-one", "vllm", "--gpu-memory-utilization 1.5 (out of range)",
             [*VLLM_BASE, "--gpu-memory-utilization", "1.5"], act=v_until),
    Scenario("s-tokenizer-path-missing", "sglang", "--tokenizer-path names a folder that is "
             "not there", [*SG, "--tokenizer-path", str(ROOT / "no-such-tokenizer")],
             act=s_until),
    Scenario("v-no-tokenizer", "vllm", "a model copy without its tokenizer files",
             [*VLLM_BASE], model=no_tokenizer, act=v_until),
    Scenario("s-max-total-tokens-tiny", "sglang", "--max-total-tokens 16 with --context-length "
             "256 (a KV pool smaller than one request)",
             [*SG, "--max-total-tokens", "16", "--context-length", "256"], act=s_until),
    Scenario("v-port-taken", "vllm", "the port already bound and listening by another process",
             [*VLLM_BASE], before=take_port, act=v_until),
    Scenario("s-bad-requests-serving", "sglang", "served, with client errors among completions "
             "(5000 max_tokens, a chat message of a bogus role, temperature -2, max_new_tokens "
             "-5)", [*SG], act=s_bad_requests),
]
