"""The two-hundred-and-eighty-seventh batch's scenarios (tests/fixtures/corpus/fresh286): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind287.py OUT

Themes: the server's own warm-up and its first requests, a new round - what a person meets in the
minute after the engine says it is up, when the first real requests reach paths the startup
never ran. vLLM (VLLM_BASE's settings): --override-generation-config '{"temperature": -1.0}', a
default sampling setting every request without its own temperature inherits, met by the first
plain completions sent the moment /health answers 200 (v-override-temperature-negative); four
response_format json_schema completions at once as the very first traffic, the structured-output
backend built by the first of them (v-first-json-schema-burst); the first request a streamed
completion asking for prompt_logprobs (v-first-stream-prompt-logprobs). SGLang (--device cpu
--model-impl transformers): four json_schema /generate requests at once as the first real
traffic, after SGLang's own warm-up (s-first-json-schema-burst); --context-length 64, which
SGLang's own warm-up request fits, then a first real prompt of about 600 tokens
(s-context-64-first-long-prompt); --skip-server-warmup with the first request a streamed
/generate asking for input logprobs from token 0 (s-skip-warmup-first-stream-logprobs);
--preferred-sampling-params '{"max_new_tokens": 0}', a default every request without its own
max_new_tokens inherits, met by the first requests (s-preferred-max-new-tokens-0).

Earlier batches already had (not repeated): --skip-server-warmup with a cold burst, --warmups
unknown / prefill_shapes / a list, --context-length 4 refusing the warm-up, --max-num-seqs 0, a
client's burst at the first 200 from /health with --max-num-seqs 4, compile_sizes [1024] and
[4] (187th, 108th); SGLANG_WARMUP_TIMEOUT (107th, 129th); signals during SGLang's warm-up
request (100th, 106th, 109th, 133rd, 263rd); --max-total-tokens 16 refusing the warm-up (73rd);
an API key the warm-up sends back (157th); a proxy the warm-up obeys (92nd); a burst at
`Uvicorn running on` before the warm-up returns and /health polls from launch (111th);
--override-generation-config stop_token_ids [-1], max_new_tokens 0 and 4096, a word for
temperature, a list, not JSON (68th, 77th, 170th, 219th, 230th); --preferred-sampling-params a
list, top_p 0.0, not JSON (73rd, 94th, 230th); structured outputs with an invalid regex, schema
or choice, backreferences, outlines/llguidance backends (67th, 120th, 150th, 253rd);
--skip-tokenizer-init first requests (78th, 154th, 189th); LoRA first requests (177th, 251st).

Recorded 2026-12-08 in one invocation (raw1, all seven scenarios), taking turns with other
helpers' recorders for the shared lock; each scenario once. About 6 minutes of recording (vLLM
59+43+45 s, SGLang 49+46+45+69 s). 7 kept (final files jl101-jl107), none dropped. Four faults
never showed (the first grammar requests of both engines, SGLang's cold first stream with input
logprobs, SGLang's preferred max_new_tokens 0): kept as fair logs of the ground, labelled ready.

What the engines did. vLLM took --override-generation-config temperature -1.0 with one warning
(`Default vLLM sampling parameters have been overridden by the model's generation_config.json:
{'temperature': -1.0}`) and answered the first two completions 400 Bad Request without saying
why; it served four json_schema completions at once as its first traffic (200 OK each, after a
compile-cache warning in its startup warm-up: `Compiling model again due to a load failure ...
'function' object has no attribute 'finalize_loading'`); it answered the streamed first request
with prompt_logprobs 400 and the plain stream 200. SGLang served four json_schema /generate
requests at once after its own warm-up (one prefill of 1, one of 3, all 200); took --context-length
64, ran its 20-token warm-up, then refused the 602-token first prompt (`[http_server] Error: The
input (602 tokens) is longer than the model's context length (64 tokens).`, 400) and served the
next; with --skip-server-warmup it was fired up in the second uvicorn started and served the
cold first stream with logprobs; it took --preferred-sampling-params max_new_tokens 0 silently and
answered every request 200. Crashed: none; hung: none; ready in serving: all seven (jl101-jl107).
"""

from __future__ import annotations

import json
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind287")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

ROOT.mkdir(parents=True, exist_ok=True)

SCHEMA = {"type": "object", "properties": {"name": {"type": "string"},
                                           "age": {"type": "integer"}},
          "required": ["name", "age"]}


def request(ctx: Ctx, path: str, body: dict | None = None, timeout: float = 120) -> int:
    """A request whose whole body is read (a stream to its end); the status, 0 if none."""
    url = f"http://127.0.0.1:{ctx.port}{path}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def at_once(ctx: Ctx, calls: list[tuple[str, dict]], timeout: float = 120) -> None:
    threads = [threading.Thread(target=request, args=(ctx, p, b, timeout), daemon=True)
               for p, b in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)


def alive(ctx: Ctx) -> bool:
    return ctx.proc is not None and ctx.proc.poll() is None


def health_200(ctx: Ctx, timeout: float = 240) -> bool:
    """Poll /health every 0.2 s from launch; True the moment it answers 200."""
    end = time.monotonic() + timeout
    while time.monotonic() < end and alive(ctx):
        if request(ctx, "/health", timeout=2) == 200:
            return True
        time.sleep(0.2)
    return False


# --- vLLM ------------------------------------------------------------------------------------

def v_first_plain(ctx: Ctx) -> None:
    """At the first 200 from /health: two plain completions (no sampling settings), a pause."""
    if not health_200(ctx):
        linger(ctx, 10)
        return
    name = ctx.model_name()
    for i in range(2):
        request(ctx, "/v1/completions", {"model": name, "prompt": f"fox {i}", "max_tokens": 8})
    linger(ctx, 12)


def v_first_json_burst(ctx: Ctx) -> None:
    """At the first 200 from /health: four structured-output completions at once (the grammar
    backend compiled by the first of them), then a plain one."""
    if not health_200(ctx):
        linger(ctx, 10)
        return
    name = ctx.model_name()
    body = {"model": name, "prompt": "A person as JSON:", "max_tokens": 24,
            "response_format": {"type": "json_schema",
                                "json_schema": {"name": "person", "schema": SCHEMA}}}
    at_once(ctx, [("/v1/completions", body)] * 4, timeout=150)
    ctx.complete(1)
    linger(ctx, 12)


def v_first_stream_prompt_logprobs(ctx: Ctx) -> None:
    """The first request a stream asking for prompt_logprobs; then a plain stream."""
    if not health_200(ctx):
        linger(ctx, 10)
        return
    name = ctx.model_name()
    request(ctx, "/v1/completions", {"model": name, "prompt": "The quick brown fox",
                                     "max_tokens": 8, "stream": True, "prompt_logprobs": 5})
    request(ctx, "/v1/completions", {"model": name, "prompt": "The quick brown fox",
                                     "max_tokens": 8, "stream": True})
    linger(ctx, 12)


# --- SGLang ----------------------------------------------------------------------------------

def sg_ready(ctx: Ctx) -> bool:
    return ctx.wait_any([SG_READY], 200) == SG_READY and alive(ctx)


def sg_first_json_burst(ctx: Ctx) -> None:
    """Fired up: four json_schema /generate requests at once (xgrammar, compiled lazily)."""
    if not sg_ready(ctx):
        linger(ctx, 10)
        return
    body = {"text": "A person as JSON:",
            "sampling_params": {"max_new_tokens": 24, "json_schema": json.dumps(SCHEMA)}}
    at_once(ctx, [("/generate", body)] * 4, timeout=150)
    ctx.complete(1)
    linger(ctx, 12)


def sg_first_long_prompt(ctx: Ctx) -> None:
    """Fired up: the first real request a prompt of about 600 tokens, then a short one."""
    if not sg_ready(ctx):
        linger(ctx, 10)
        return
    request(ctx, "/generate", {"text": "the quick brown fox jumps " * 120,
                               "sampling_params": {"max_new_tokens": 8}})
    request(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
    linger(ctx, 12)


def sg_first_stream_logprobs(ctx: Ctx) -> None:
    """Ready (no warm-up ran): the first request a stream with input logprobs from token 0."""
    if not sg_ready(ctx):
        linger(ctx, 10)
        return
    request(ctx, "/generate", {"text": "The quick brown fox", "stream": True,
                               "return_logprob": True, "top_logprobs_num": 5,
                               "logprob_start_len": 0,
                               "sampling_params": {"max_new_tokens": 16}})
    request(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
    linger(ctx, 12)


def sg_first_defaults(ctx: Ctx) -> None:
    """Fired up: requests that leave max_new_tokens to the server's defaults."""
    if not sg_ready(ctx):
        linger(ctx, 10)
        return
    request(ctx, "/generate", {"text": "The quick brown fox", "sampling_params": {}})
    ctx.post("/v1/completions", {"model": "default", "prompt": "fox"})
    request(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
    linger(ctx, 12)


def v(name: str, what: str, args: list[str], act) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=act)


def s(name: str, what: str, args: list[str], act) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=act)


SCENARIOS = [
    v("v-override-temperature-negative", "--override-generation-config '{\"temperature\": "
      "-1.0}' (a default every request without its own temperature inherits), met by the "
      "first plain completions sent the moment /health answers 200",
      ["--override-generation-config", '{"temperature": -1.0}'], v_first_plain),
    s("s-first-json-schema-burst", "served; the first real traffic four json_schema "
      "/generate requests at once (the default grammar backend compiled by the first)",
      [], sg_first_json_burst),
    v("v-first-json-schema-burst", "the first traffic, the moment /health answers 200, four "
      "response_format json_schema completions at once (the structured-output backend "
      "compiled by the first)", [], v_first_json_burst),
    s("s-context-64-first-long-prompt", "--context-length 64 (SGLang's own warm-up fits), "
      "the first real request a prompt of about 600 tokens",
      ["--context-length", "64"], sg_first_long_prompt),
    v("v-first-stream-prompt-logprobs", "the first request, the moment /health answers 200, "
      "a streamed completion asking for prompt_logprobs 5", [], v_first_stream_prompt_logprobs),
    s("s-skip-warmup-first-stream-logprobs", "--skip-server-warmup; the first request a "
      "streamed /generate with return_logprob, top_logprobs_num 5 and logprob_start_len 0",
      ["--skip-server-warmup"], sg_first_stream_logprobs),
    s("s-preferred-max-new-tokens-0", "--preferred-sampling-params '{\"max_new_tokens\": 0}' "
      "(a default every request without its own max_new_tokens inherits)",
      ["--preferred-sampling-params", '{"max_new_tokens": 0}'], sg_first_defaults),
]
