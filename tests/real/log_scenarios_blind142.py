"""The hundred-and-forty-second batch's scenarios (tests/fixtures/corpus/fresh141): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind142.py OUT

Themes: prompt contents at the edges, sent to a server that is up, with well-behaved requests
before and after to show whether it keeps serving - text that strains the tokenizer (a lone
UTF-16 surrogate written as a JSON escape, `\\ud83d`, which Python's JSON reader accepts and no
UTF-8 encoder can write; to vLLM's /v1/completions and /tokenize and SGLang's /generate), an
empty prompt (both engines), and a prompt of token ids exactly at vLLM's --max-model-len and one
token over it.

Earlier batches already had (not repeated): token ids past the vocabulary and a -1 in vLLM's
prompt (69th, 78th) and in SGLang's embedding requests (117th), a prompt of ten million token ids
(141st), a prompt of four million characters and a batch of 1,000 prompts (91st, both engines),
echo with logprobs (94th, 128th), bodies that are not UTF-8 or not JSON (141st), a prompt of about
3,000 tokens past the 2,048 positions (71st).

vLLM runs with VLLM_BASE's settings (--max-model-len 256); SGLang with --device cpu --model-impl
transformers (context 2,048). The tiny model's tokenizer is byte-level BPE, 512 ids.

Recorded 2026-12-06 in two invocations (raw1: the table's first five vLLM scenarios and two
SGLang; raw2: v-tokenize-lone-surrogate), taking turns with two other helpers' recorders (five
recorders on one lock: raw1 waited over 20 minutes in all); each scenario once. About 6 minutes
of recording (vLLM 46+49+43+43+43+44 s, SGLang 56+49 s). 6 kept (final files du101-du106): fewer
than the 7-12 asked, since the lock's turns ran out the time. Dropped: v-prompt-id-2pow63 (a
prompt of ids holding 2**63) and v-prompt-id-float (ids holding 1.5), both recorded, 43 s each:
each log is the same as du101's - one bare `400 Bad Request` among 200s, nothing else - so the
fault does not show as itself; removed from the table. Not recorded (the recorder was stopped
waiting for the lock, to finish in time), and removed: s-input-ids-at-context-len (2,047 and
2,048 input_ids on /generate), s-input-ids-2pow63 and s-input-ids-float (the same ids on
SGLang's /generate input_ids). What the engines did: vLLM refused every bad prompt (a lone
surrogate, "" and [], 256 ids with max_tokens 1 over a 256 limit, a surrogate to /tokenize) with
a bare uvicorn `400 Bad Request` and no line of its own, served the prompt exactly at the limit,
and went on serving. SGLang refused the surrogate with a 400 (only a FastAPIDeprecationWarning
from starlette's exception handler before it) and went on; but an empty /generate text reached
the model and killed the scheduler (`Scheduler hit an exception`, Transformers' Llama attention:
`RuntimeError: cannot reshape tensor of 0 elements into shape [1, 0, -1, 64] ...`), then
`SIGQUIT received ... It usually means one child failed.` and the server's exit."""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, Step, linger, up  # noqa: E402

ROOT = Path("/tmp/blind142")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SURROGATE = "the fox \ud83d jumps"      # a lone high surrogate (half of an emoji)


def send(ctx: Ctx, path: str, body: dict, timeout: float = 45) -> int:
    """POST ``body`` as JSON (ASCII, so a lone surrogate goes as its escape); the status."""
    data = json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}", data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def v_requests(*bodies: dict) -> Step:
    """vLLM: ready, a completion, ``bodies`` to /v1/completions, two completions, a pause."""
    def act(ctx: Ctx) -> None:
        if not up(ctx, 240):
            return
        name = ctx.model_name()
        ctx.complete(1, max_tokens=8)
        for b in bodies:
            send(ctx, "/v1/completions", {"model": name, "max_tokens": 8, **b})
        ctx.complete(2, max_tokens=8)
        linger(ctx, 8)
    return act


def v_tokenize_surrogate(ctx: Ctx) -> None:
    if not up(ctx, 240):
        return
    name = ctx.model_name()
    ctx.complete(1, max_tokens=8)
    send(ctx, "/tokenize", {"model": name, "prompt": "the fox jumps"})
    send(ctx, "/tokenize", {"model": name, "prompt": SURROGATE})
    ctx.complete(2, max_tokens=8)
    linger(ctx, 8)


def sg_generate(ctx: Ctx, text: str = "fox") -> int:
    return send(ctx, "/generate", {"text": text, "sampling_params": {"max_new_tokens": 8}})


def s_requests(*calls: tuple[str, dict]) -> Step:
    """SGLang: fired up, a generation, ``calls`` (path, body), two generations, a pause."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(SG_READY, 240):
            return
        sg_generate(ctx)
        for path, b in calls:
            if path == "/v1/completions":
                b = {"model": ctx.model_name(), **b}
            send(ctx, path, b)
        sg_generate(ctx, "dog")
        sg_generate(ctx, "cat")
        linger(ctx, 8)
    return act


GEN8 = {"max_new_tokens": 8}
REST = "a completion before, two after"
REST_S = "a generation before, two after"

SCENARIOS = [
    # vLLM
    Scenario("v-lone-surrogate-prompt", "vllm", "a completion whose prompt holds a lone UTF-16 "
             "surrogate (the JSON escape \\ud83d, half of an emoji); " + REST, VLLM_BASE,
             act=v_requests({"prompt": SURROGATE})),
    Scenario("v-empty-prompt", "vllm", "completions with an empty prompt (\"\"), then a prompt "
             "that is an empty list; " + REST, VLLM_BASE,
             act=v_requests({"prompt": ""}, {"prompt": []})),
    Scenario("v-prompt-ids-at-max-len", "vllm", "with --max-model-len 256: a prompt of 255 "
             "token ids and max_tokens 1 (exactly 256), then 256 ids and max_tokens 1 (one "
             "over); " + REST, VLLM_BASE,
             act=v_requests({"prompt": [100] * 255, "max_tokens": 1},
                            {"prompt": [100] * 256, "max_tokens": 1})),
    Scenario("v-tokenize-lone-surrogate", "vllm", "a /tokenize whose prompt holds a lone UTF-16 "
             "surrogate (the JSON escape \\ud83d, half of an emoji), as a client counting tokens "
             "sends it; " + REST, VLLM_BASE, act=v_tokenize_surrogate),
    # SGLang
    Scenario("s-generate-lone-surrogate", "sglang", "a /generate whose text holds a lone UTF-16 "
             "surrogate (the JSON escape \\ud83d, half of an emoji); " + REST_S, SG,
             act=s_requests(("/generate", {"text": SURROGATE, "sampling_params": GEN8}))),
    Scenario("s-generate-empty-text", "sglang", "a /generate with empty text (\"\"), then a "
             "/v1/completions with an empty prompt; " + REST_S, SG,
             act=s_requests(("/generate", {"text": "", "sampling_params": GEN8}),
                            ("/v1/completions", {"prompt": "", "max_tokens": 8}))),
]
