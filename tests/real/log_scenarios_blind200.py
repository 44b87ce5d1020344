"""The two-hundredth batch's scenarios (tests/fixtures/corpus/fresh199): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind200.py OUT

Themes: the openai Python SDK (openai 3.63.0, run from vLLM's venv) against a server that is up,
as applications use it, with its defaults and common options: a short client timeout that makes
the SDK abandon a long (ignore_eos) completion and send it again (max_retries) while the first
still runs; a streamed chat completion with stream_options include_usage whose loop breaks after
three chunks and closes the stream; extra_body with a field the engine does not (or no longer)
take or that clashes with another (vLLM's removed guided_choice; SGLang's regex beside a strict
json_schema response_format). Each scenario, once the server is ready, sends a plain completion,
runs the SDK client (/tmp/blind200/client.py, written when this table is loaded, with
OPENAI_LOG=debug; what it saw goes to /tmp/blind200/clients/NAME.txt, not into the log), sends
one more plain completion and lets the run go on 10 s. vLLM runs with VLLM_BASE's settings,
SGLang with --device cpu --model-impl transformers; both with --chat-template
/tmp/blind200/chat.jinja (the tiny model has none).

Earlier batches already had (not repeated): stream_options, response_format, logprobs and
top_logprobs sent with raw HTTP (128th, 152nd), streaming clients that hang up (67th, 111th,
141st: the SDK's early close here reads the same in both engines, kept for the SDK's own close),
structured output and tools (67th, 74th, 91st, 116th, 120th, 181st), tool_choice required (91st,
120th and later), priority without priority scheduling (128th, dropped there). No earlier batch
drove the servers through the SDK, sent guided_choice to this vLLM, or two structured-output
constraints at once.

Recorded 2026-12-07 in three invocations (raw1: the first seven scenarios, four vLLM and three
SGLang as first written; raw2: v-sdk-timeout-50ms-retries, added when raw1's 0.4 s timeout never
fired on vLLM; raw3: s-sdk-json-schema-and-regex, added when two SGLang scenarios showed nothing),
taking turns with two other helpers' recorders; each scenario once. About 6 minutes of recording
(vLLM 45+54+44+45+47 s, SGLang 56+55+46+45+47 s). 6 kept (final files gb101-gb106). Dropped and
removed from the table: v-sdk-timeout-retries (OpenAI(timeout=0.4, max_retries=3): vLLM served
the 220 tokens in under 0.4 s, the SDK never retried - the fault never happened); s-sdk-extra-
body-regex (extra_body regex '(yes|no)[0-9]{3}': honoured, 'no264', a plain 200 in the log);
v-sdk-tools-required-no-parallel (one tool, tool_choice required, parallel_tool_calls False: a
bare `400 Bad Request` access line - the client's reason, `tool_choice="required" requires
--tool-call-parser to be set`, not in the log - a repeat of earlier batches' tool_choice
required); s-sdk-separate-reasoning (extra_body separate_reasoning on a server without
--reasoning-parser: ignored without a word, a plain 200). Never recorded: s-sdk-json-schema-n-
logprobs (json_schema with n 3, logprobs and seed), cut before recording to keep 7-8.

What the engines did: every run came up and served to the end; none crashed (all six ready in
serving). SGLang ran all four copies of the abandoned 220-token completion to their end, one after
another (each retry's prefill `#cached-token: 13`), with no access line for any; vLLM logged the
SDK's two attempts as one 200 OK, the abandoned one only in the stats' token counts. A stream the
SDK closed early: vLLM logs its 200 OK and nothing else (the stats show the tokens not made);
SGLang logs its prefill and 200 OK and no decode batch after. vLLM warns at WARNING level that
`guided_choice` is a removed guided-decoding field, ignored, output NOT constrained, and serves it
200. SGLang refuses a regex beside a json_schema with a bare 400 in the log (its reason only in the
response) and a FastAPIDeprecationWarning from serving_chat.py's error path.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind200")
CLIENTS = ROOT / "clients"
CLIENT = ROOT / "client.py"
SG_READY = "The server is fired up and ready to roll!"
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
SG = ["--device", "cpu", "--model-impl", "transformers", "--chat-template", str(CHAT_TEMPLATE)]
V = [*VLLM_BASE, "--chat-template", str(CHAT_TEMPLATE)]

CLIENT_PY = r'''"""The SDK client of one scenario: python client.py BASE_URL MODEL MODE."""
import sys
import time
import traceback

import openai

base, model, mode = sys.argv[1:4]
MSG = [{"role": "user", "content": "Tell me a long story about a fox."}]
LONG = {"ignore_eos": True}


def show(*a):
    print(time.strftime("%H:%M:%S"), *a, flush=True)


def run():
    if mode == "timeout-retry":
        c = openai.OpenAI(base_url=base, api_key="EMPTY", timeout=0.4, max_retries=3)
        r = c.completions.create(model=model, prompt="Once upon a time", max_tokens=220,
                                 extra_body=LONG)
        show("completion", r.usage)
    elif mode == "timeout-retry-50ms":
        c = openai.OpenAI(base_url=base, api_key="EMPTY", timeout=0.05, max_retries=2)
        r = c.completions.create(model=model, prompt="Once upon a time", max_tokens=220,
                                 extra_body=LONG)
        show("completion", r.usage)
    elif mode == "stream-break":
        c = openai.OpenAI(base_url=base, api_key="EMPTY")
        s = c.chat.completions.create(model=model, messages=MSG, max_tokens=200, stream=True,
                                      stream_options={"include_usage": True}, extra_body=LONG)
        for i, chunk in enumerate(s):
            show("chunk", i, chunk.choices[0].delta.content if chunk.choices else chunk.usage)
            if i == 2:
                show("breaking out, closing the stream")
                s.close()
                break
        time.sleep(8)
    elif mode == "guided-choice":
        c = openai.OpenAI(base_url=base, api_key="EMPTY")
        r = c.chat.completions.create(model=model, messages=MSG, max_tokens=16,
                                      extra_body={"guided_choice": ["yes", "no"]})
        show("chat", repr(r.choices[0].message.content))
    elif mode == "tools-required":
        c = openai.OpenAI(base_url=base, api_key="EMPTY")
        tools = [{"type": "function", "function": {
            "name": "get_weather", "description": "weather of a city",
            "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                           "required": ["city"]}}}]
        r = c.chat.completions.create(model=model, messages=MSG, max_tokens=60, tools=tools,
                                      tool_choice="required", parallel_tool_calls=False)
        show("chat", r.choices[0].message)
    elif mode == "regex":
        c = openai.OpenAI(base_url=base, api_key="EMPTY")
        r = c.chat.completions.create(model=model, messages=MSG, max_tokens=24,
                                      extra_body={"regex": "(yes|no)[0-9]{3}"})
        show("chat", repr(r.choices[0].message.content))
    elif mode == "json-schema-and-regex":
        c = openai.OpenAI(base_url=base, api_key="EMPTY")
        schema = {"type": "object", "properties": {"answer": {"type": "string"}},
                  "required": ["answer"]}
        r = c.chat.completions.create(model=model, messages=MSG, max_tokens=40,
                                      response_format={"type": "json_schema", "json_schema": {
                                          "name": "a", "schema": schema, "strict": True}},
                                      extra_body={"regex": "(yes|no)"})
        show("chat", repr(r.choices[0].message.content))
    elif mode == "separate-reasoning":
        c = openai.OpenAI(base_url=base, api_key="EMPTY")
        r = c.chat.completions.create(model=model, messages=MSG, max_tokens=24,
                                      extra_body={"separate_reasoning": True,
                                                  "stream_reasoning": False})
        show("chat", r.choices[0].message)
    elif mode == "json-schema-n-logprobs":
        c = openai.OpenAI(base_url=base, api_key="EMPTY")
        schema = {"type": "object", "properties": {"answer": {"type": "string"}},
                  "required": ["answer"]}
        r = c.chat.completions.create(model=model, messages=MSG, max_tokens=40, n=3,
                                      logprobs=True, top_logprobs=5, seed=7,
                                      response_format={"type": "json_schema", "json_schema": {
                                          "name": "a", "schema": schema, "strict": True}})
        for ch in r.choices:
            show("choice", ch.index, repr(ch.message.content))


t0 = time.monotonic()
try:
    run()
except Exception:
    show("client error after", round(time.monotonic() - t0, 1), "s")
    traceback.print_exc()
show("done after", round(time.monotonic() - t0, 1), "s")
'''


def _setup() -> None:
    CLIENTS.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)
    CLIENT.write_text(CLIENT_PY)


_setup()


def sdk(engine: str, mode: str, tail_s: float = 10):
    """Once ready: a plain completion, the SDK client of ``mode`` (its output, with the SDK's
    debug log, in /tmp/blind200/clients/NAME.txt), one more plain completion, a pause."""
    def act(ctx: Ctx) -> None:
        ready = READY_LINE if engine == "vllm" else SG_READY
        if not ctx.wait_for(ready, 300) or (ctx.proc and ctx.proc.poll() is not None):
            linger(ctx, 5)
            return
        ctx.complete(1, max_tokens=12)
        with open(CLIENTS / f"{ctx.log.stem}.txt", "w") as out:
            try:
                subprocess.run([str(VLLM.python), str(CLIENT),
                                f"http://127.0.0.1:{ctx.port}/v1", ctx.model_name(), mode],
                               stdout=out, stderr=subprocess.STDOUT, timeout=120,
                               env={"OPENAI_LOG": "debug", "PATH": "/usr/bin:/bin"})
            except subprocess.TimeoutExpired:
                out.write("client timed out (120 s)\n")
        time.sleep(1)
        ctx.complete(1, max_tokens=12)
        linger(ctx, tail_s)
    return act


def v(name: str, what: str, mode: str) -> Scenario:
    return Scenario(name, "vllm", f"openai SDK client: {what}", V, act=sdk("vllm", mode))


def s(name: str, what: str, mode: str) -> Scenario:
    return Scenario(name, "sglang", f"openai SDK client: {what}", SG, act=sdk("sglang", mode))


TIMEOUT = ("OpenAI(timeout=0.4, max_retries=3): a 220-token completion (ignore_eos) the client "
           "abandons at 0.4 s and sends again, three times, while the first ones still run")
BREAK = ("a streamed chat completion of 200 tokens with stream_options include_usage; the loop "
         "breaks after three chunks and closes the stream")

SCENARIOS = [
    s("s-sdk-timeout-retries", TIMEOUT, "timeout-retry"),
    v("v-sdk-extra-body-guided-choice", "chat completion with extra_body guided_choice "
      "['yes','no'] (the field older vLLM took for structured output)", "guided-choice"),
    v("v-sdk-stream-break-usage", BREAK, "stream-break"),
    s("s-sdk-stream-break-usage", BREAK, "stream-break"),
    v("v-sdk-timeout-50ms-retries", "OpenAI(timeout=0.05, max_retries=2): a 220-token "
      "completion (ignore_eos) the client abandons at 50 ms and sends again, twice, while the "
      "first ones still run", "timeout-retry-50ms"),
    s("s-sdk-json-schema-and-regex", "chat completion with response_format json_schema "
      "(strict) and extra_body regex '(yes|no)' at once (two structured-output constraints)",
      "json-schema-and-regex"),
]
