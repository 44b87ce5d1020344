"""The hundred-and-seventy-second batch's scenarios (tests/fixtures/corpus/fresh171): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind172.py OUT

Themes: the Responses API and server-side conversation state, as a person moving a client from
chat completions to /v1/responses meets them. vLLM: VLLM_ENABLE_RESPONSES_API_STORE=true (the
word a person writes for a boolean; vLLM reads the variable with int()); background mode with
the store on, polled with GET /v1/responses/{id} and cancelled while it runs; --tool-server demo
(the built-in demo tools, without the gpt_oss package); a previous_response_id naming a
response made with store true on a server whose store is off (the default). SGLang:
--tool-server demo; background mode with --enable-response-store, polled and cancelled; `input`
as a list holding an item of a type the server does not know; max_output_tokens at the edges (0
and more than the context holds).

Earlier batches already had (not repeated): the Responses API as OpenAI's clients use it - a
plain input, a streamed one, an unknown previous_response_id, background without a store, a
web_search_preview tool, GET of an unknown id (128th, both engines); --tool-server naming a port
nothing listens on (116th, both engines).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings. Both
get a plain chat template written to /tmp/blind172/chat.jinja when this table is loaded (the
tiny model has none). Each serving scenario sends one plain completion once the server is up,
the scenario's requests, one more completion, and lets it run about 12 s more.

Recorded 2026-12-07 in one invocation (raw1: all eight, in the table's order), taking turns with
two other helpers' recorders; each scenario once. About 6 minutes of recording (368 s: vLLM
27+59+43+44 s, SGLang 54+54+43+44 s). 8 kept (final files ey101-ey108). Dropped: none. Close to
an earlier log: v-responses-previous-unstored ends in the same bare 404 access lines as the 128th
batch's unknown previous_response_id, but here the id is one the server itself had just issued
(store true ignored, GET of it 404 too) and the request logger shows the request, so it is kept.
What the engines did: only VLLM_ENABLE_RESPONSES_API_STORE=true ended a launch - vLLM's worker
evaluates every VLLM_* variable as it is built (`enable_envs_cache`) right after `Loading weights
took`, logs `WorkerProc failed to start.` ending `ValueError: invalid literal for int() with base
10: 'true'`, and the API server dies with `RuntimeError: Engine core initialization failed`
(weight_loading). Everything else served on. With the store on (=1) vLLM warns that the store
never frees responses; its background response had finished before the cancel (400, no reason
logged), and the follow-up naming it got 400 too. SGLang with --enable-response-store cancelled
a running background response (200, a deprecation warning quoting `create_error_response("Client
disconnected")`) and carried the stored turn into the follow-up (200). --tool-server demo starts
in both with no tools: vLLM warns `EXA_API_KEY is not set, browsing is disabled` and `gpt_oss is
not installed properly ..., code interpreter is disabled` and logs `DemoToolServer initialized
with tools: []`; SGLang says the same two things at INFO. SGLang logs a whole traceback for an
input item of an unknown type (`Error in preprocessing prompt inputs` / `ValueError: Unsupported
Responses API input item type: 'image_generation_call'`) and answers 400, serving on; it answers
max_output_tokens 0 and 1000000 with 400 and no reason. vLLM logs no reason at INFO for any 4xx.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind172")
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers", "--chat-template", str(CHAT_TEMPLATE)]
VB = [*VLLM_BASE, "--chat-template", str(CHAT_TEMPLATE)]
V = "vllm"
S = "sglang"

ROOT.mkdir(parents=True, exist_ok=True)
CHAT_TEMPLATE.write_text(CHAT_JINJA)


# --- requests --------------------------------------------------------------------------------

def call(ctx: Ctx, path: str, body: dict | None = None, timeout: float = 60) -> dict:
    """POST ``body`` (GET when None); the answer's JSON ({} when none), its status under _status."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}", data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            raw = resp.read()
            status = resp.status
    except urllib.error.HTTPError as e:
        raw, status = e.read(), e.code
    except (OSError, TimeoutError):
        return {"_status": 0}
    try:
        out = json.loads(raw)
    except ValueError:
        out = {}
    if not isinstance(out, dict):
        out = {}
    out["_status"] = status
    return out


def gen(ctx: Ctx) -> None:
    call(ctx, "/generate", {"text": "the quick brown fox",
                            "sampling_params": {"max_new_tokens": 8}})


def v_serving(send: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    """vLLM: until it ends; once up, one completion, ``send``'s requests, one more, ~12 s."""
    def act(ctx: Ctx) -> None:
        if up(ctx, 200):
            name = ctx.model_name()
            ctx.complete(1, max_tokens=8)
            send(ctx, name)
            ctx.complete(1, max_tokens=8)
            linger(ctx, 12)
        else:
            linger(ctx, 10)
    return act


def sg_serving(send: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    """SGLang: until it ends; once fired up, one generation, ``send``'s requests, one more."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(SG_READY, 200):
            name = ctx.model_name()
            gen(ctx)
            send(ctx, name)
            gen(ctx)
            linger(ctx, 12)
        else:
            linger(ctx, 10)
    return act


def plain_response(ctx: Ctx, name: str) -> None:
    call(ctx, "/v1/responses", {"model": name, "input": "Say hello.", "max_output_tokens": 8})


def background_cancel(ctx: Ctx, name: str) -> None:
    """A background response, polled twice, cancelled while it runs, polled again."""
    r = call(ctx, "/v1/responses", {"model": name, "input": "Write a long story about a fox.",
                                    "instructions": "You are a storyteller.", "store": True,
                                    "background": True, "max_output_tokens": 200})
    rid = r.get("id")
    if not rid:
        return
    for _ in range(2):
        time.sleep(0.5)
        call(ctx, f"/v1/responses/{rid}")
    call(ctx, f"/v1/responses/{rid}/cancel", {})
    time.sleep(1)
    call(ctx, f"/v1/responses/{rid}")
    call(ctx, "/v1/responses", {"model": name, "input": "Go on.", "previous_response_id": rid,
                                "max_output_tokens": 8})


def tools_response(ctx: Ctx, name: str) -> None:
    call(ctx, "/v1/responses", {"model": name, "input": "Weather in Paris?",
                                "max_output_tokens": 16,
                                "tools": [{"type": "function", "name": "get_weather",
                                           "parameters": {"type": "object", "properties": {
                                               "city": {"type": "string"}}}}]})


def chained_unstored(ctx: Ctx, name: str) -> None:
    """store true on a server whose store is off, then the follow-up naming that response."""
    r = call(ctx, "/v1/responses", {"model": name, "input": "My name is Ada.", "store": True,
                                    "max_output_tokens": 8})
    rid = r.get("id") or "resp_missing"
    call(ctx, f"/v1/responses/{rid}")
    call(ctx, "/v1/responses", {"model": name, "input": "What is my name?",
                                "previous_response_id": rid, "max_output_tokens": 8})


def unknown_item(ctx: Ctx, name: str) -> None:
    call(ctx, "/v1/responses", {"model": name, "max_output_tokens": 8, "input": [
        {"type": "message", "role": "user", "content": "Hi."},
        {"type": "image_generation_call", "id": "ig_1", "status": "completed",
         "result": "aGVsbG8="}]})


def max_output_edges(ctx: Ctx, name: str) -> None:
    call(ctx, "/v1/responses", {"model": name, "input": "Say hello.", "max_output_tokens": 0})
    call(ctx, "/v1/responses", {"model": name, "input": "Say hello.",
                                "max_output_tokens": 1000000})


def v_until_ready(ctx: Ctx) -> None:
    """Until it ends; if it serves, a plain Responses request and a pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        plain_response(ctx, ctx.model_name())
        linger(ctx, 10)


SCENARIOS = [
    Scenario("v-responses-store-env-true", V, "VLLM_ENABLE_RESPONSES_API_STORE=true (a word "
             "where vLLM reads an integer), then a Responses request if it serves", VB,
             env={"VLLM_ENABLE_RESPONSES_API_STORE": "true"}, act=v_until_ready),
    Scenario("s-tool-server-demo", S, "--tool-server demo (the built-in demo browser/python "
             "tools for the Responses API; no gpt_oss package installed), then a Responses "
             "request with a function tool if it serves", [*SG, "--tool-server", "demo"],
             act=sg_serving(tools_response)),
    Scenario("v-responses-background-cancel", V, "VLLM_ENABLE_RESPONSES_API_STORE=1; a "
             "background response (store true, 200 output tokens) polled with GET twice, "
             "cancelled while it runs, polled again, then a follow-up naming it", VB,
             env={"VLLM_ENABLE_RESPONSES_API_STORE": "1"}, act=v_serving(background_cancel)),
    Scenario("s-responses-background-cancel", S, "--enable-response-store; a background "
             "response (store true, 200 output tokens) polled with GET twice, cancelled while it "
             "runs, polled again, then a follow-up naming it",
             [*SG, "--enable-response-store"], act=sg_serving(background_cancel)),
    Scenario("v-tool-server-demo", V, "--tool-server demo (the built-in demo browser/python "
             "tools; no gpt_oss package installed), then a Responses request with a function "
             "tool if it serves", [*VB, "--tool-server", "demo"], act=v_serving(tools_response)),
    Scenario("s-responses-unknown-item", S, "/v1/responses with `input` a list holding a "
             "message and an item of a type the server does not handle (image_generation_call)",
             SG, act=sg_serving(unknown_item)),
    Scenario("v-responses-previous-unstored", V, "a Responses request with store true on a "
             "server whose store is off (the default), GET of its id, then a follow-up naming it "
             "as previous_response_id (--enable-log-requests)", [*VB, "--enable-log-requests"],
             act=v_serving(chained_unstored)),
    Scenario("s-responses-max-output-edges", S, "/v1/responses with max_output_tokens 0, then "
             "1000000 (more than the context holds)", SG, act=sg_serving(max_output_edges)),
]
