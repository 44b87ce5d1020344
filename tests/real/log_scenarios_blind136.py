"""The hundred-and-thirty-sixth batch's scenarios (tests/fixtures/corpus/fresh135): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind136.py OUT

Themes: tool calling at request time - the parsers a person turns on for agents and the
requests agents send, met by a tiny model that emits random tokens. vLLM: a --tool-parser-plugin
whose parser indexes the request's tools as dicts (they are pydantic objects: fine at startup,
where no tools are given, wrong on every request with tools); a plugin whose streaming method
uses state it never set up; tools whose parameters are a malformed JSON schema (type 'strng',
minimum a string, required a string) with tool_choice required, a named tool, required streamed;
a conversation history whose assistant tool call carries arguments that are not JSON (a cut
Python dict repr). SGLang: the same malformed schema; tool_choice required and named with
max_tokens 3, too few to close the forced call; a named tool_choice that is not among the tools;
the same history with non-JSON arguments; --tool-call-parser mistral on a Llama model with tool
requests (never recorded by the 116th batch).

Earlier batches already had (not repeated): parser names that do not exist at launch (67th,
73rd, 75th), --enable-auto-tool-choice without a parser (67th), a missing plugin file (88th),
hermes with string parameters / an unoffered named function / required / streamed auto on vLLM
(91st), deepseek_v3's tool parser refused after the engine is up (116th), a deepseek_r1
reasoning parser without think tokens on both engines (94th: vLLM refuses it at launch, so a
reasoning parser on a model without think tokens is a launch refusal there, not a request-time
fault), tool_choice required and named on the structured-output backends with valid tools
(120th), tools without a parser (74th).

Helper files (the plugins, a chat template that lists tools and renders tool calls) are written
to /tmp/blind136 when this table is loaded. vLLM runs VLLM_BASE's settings; SGLang runs
--device cpu --model-impl transformers, with which it serves here.

Recorded 2026-12-06 in three invocations (raw1: six vLLM; raw2: five SGLang of six planned;
raw3: one vLLM added after the first logs), taking turns with three other helpers' recorders
(eight recorders at once, so turns came every two to four minutes); each scenario once. About
11.5 minutes of recording (vLLM 58+60+86+49+47+46+43 s, SGLang 73+58+56+57+56 s). 9 kept (final
files do101-do109). Dropped, and removed from SCENARIOS:
v-tool-plugin-regex-backtrack (a plugin whose regex ^(?:.+\\n?)+<tool_call> was to backtrack
exponentially on output without the tag and stall the API server: the chat request was answered
200 OK at once, /health and a completion after it too - the tiny model's answer was too short, or
vLLM did not hand it to the parser; the fault never showed), v-tool-required-max-tokens-3
(tool_choice required and named with max_tokens 3 on vLLM: every request 200 OK, not a word in
the log - the fault never showed; SGLang's same requests are kept, do106, as it logs them),
v-tool-plugin-json-unguarded (a plugin calling json.loads on the whole output without a try:
the two chat requests with tools are bare 400s, the same log as do101's plugin bug - a repeat
within this batch), and s-gpt-oss-parsers-llama
(--tool-call-parser gpt-oss --reasoning-parser gpt-oss on the Llama model, with tool requests:
never recorded - its recorder was stopped while waiting for the lock, to keep within the
helper's 45 minutes).

What the engines did: nothing here stopped a server; every kept log is ready in serving, with
no cause. vLLM 0.32 turns a tool parser plugin's exception in __init__ (do101) and a malformed
tool schema (do103) into a bare '400 Bad Request' with no word at INFO; an exception in the
plugin's streaming method is logged whole ('Error in chat completion stream generator.',
AttributeError, do102) while the stream's status is 200 OK; non-JSON arguments in a history's
tool call get 'WARNING ... has arguments that are not valid JSON ...; coercing to an empty
object so the conversation can continue.' and a 400 all the same (do104). SGLang answers a
malformed schema, an unoffered named function and non-JSON history arguments with bare 400s
(only FastAPI's deprecation warning for ORJSONResponse from serving_base.py shows an error
response was made); tool_choice required with max_tokens 3 logs 'Required tool call missing
from hermes output (3 chars)' and answers 200 (do106); the mistral parser on Llama's forced
output logs 'Tool call marker present but no complete call parsed from mistral output; dropping
the incomplete call' (do109).
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind136")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT = ["--chat-template", str(CHAT_TEMPLATE)]
CHAT_JINJA = (
    "{% if tools %}Tools: {{ tools | tojson }}\n{% endif %}"
    "{% for m in messages %}{{ m['role'] }}: {{ m['content'] or '' }}"
    "{% if m.get('tool_calls') %}{% for tc in m['tool_calls'] %} call {{ tc['function']['name'] }}"
    "({{ tc['function']['arguments'] | tojson }}){% endfor %}{% endif %}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}")

PLUGIN_HEAD = '''\
from vllm.entrypoints.generate.base.protocol import DeltaMessage, ExtractedToolCallInformation
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager
'''

# a parser that indexes the offered tools as plain dicts (vLLM hands it pydantic objects)
PLUGIN_INIT_BUG = PLUGIN_HEAD + '''

@ToolParserManager.register_module("acme_tools")
class AcmeToolParser(ToolParser):
    def __init__(self, tokenizer, tools=None):
        super().__init__(tokenizer, tools)
        self.by_name = {t["function"]["name"]: t for t in (tools or [])}

    def extract_tool_calls(self, model_output, request):
        return ExtractedToolCallInformation(tools_called=False, tool_calls=[],
                                            content=model_output)

    def extract_tool_calls_streaming(self, previous_text, current_text, delta_text,
                                     previous_token_ids, current_token_ids, delta_token_ids,
                                     request):
        return DeltaMessage(content=delta_text)
'''

# a parser whose streaming path appends to a buffer it never created
PLUGIN_STREAM_BUG = PLUGIN_HEAD + '''

@ToolParserManager.register_module("acme_stream")
class AcmeStreamParser(ToolParser):
    def extract_tool_calls(self, model_output, request):
        return ExtractedToolCallInformation(tools_called=False, tool_calls=[],
                                            content=model_output)

    def extract_tool_calls_streaming(self, previous_text, current_text, delta_text,
                                     previous_token_ids, current_token_ids, delta_token_ids,
                                     request):
        self.buffer += delta_text
        if "<call>" not in self.buffer:
            return DeltaMessage(content=delta_text)
        return None
'''

PLUGINS = {"init_bug": PLUGIN_INIT_BUG, "stream_bug": PLUGIN_STREAM_BUG}


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)
    for name, code in PLUGINS.items():
        (ROOT / f"acme_{name}.py").write_text(code)


_setup()


def plugin(name: str, parser: str) -> list[str]:
    return ["--tool-parser-plugin", str(ROOT / f"acme_{name}.py"), "--enable-auto-tool-choice",
            "--tool-call-parser", parser]


WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
TOOLS = [WEATHER]
# a schema written by hand for an agent framework: a misspelt type, `required` a string
BAD_SCHEMA_TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "strng"},
                                                    "days": {"type": "integer", "minimum": "1"}},
                   "required": "city"}}}]
USER = [{"role": "user", "content": "What is the weather in Paris?"}]
# an agent's history: its earlier tool call's arguments stored as a Python dict's repr, cut
HISTORY = [
    {"role": "user", "content": "What is the weather in Paris?"},
    {"role": "assistant", "content": None, "tool_calls": [{
        "id": "call_0", "type": "function",
        "function": {"name": "get_weather", "arguments": "{'city': 'Paris'"}}]},
    {"role": "tool", "tool_call_id": "call_0", "content": "18 C, cloudy"},
    {"role": "user", "content": "And tomorrow?"},
]


def request(ctx: Ctx, path: str, body: dict | None = None, timeout: float = 90) -> int:
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


def chat(ctx: Ctx, name: str, messages: list | None = None, timeout: float = 90,
         **extra: object) -> int:
    body = {"model": name, "messages": messages or USER, "max_tokens": 32, **extra}
    return request(ctx, "/v1/chat/completions", body, timeout)


def completion(ctx: Ctx, name: str) -> None:
    request(ctx, "/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8})


def served(ready: str, steps: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    """Once the ready line is logged: a completion, the scenario's requests, a completion and a
    pause (one stats line); if the run ends or never gets ready, until it ends."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(ready, 240):
            linger(ctx, 20)
            return
        name = ctx.model_name()
        completion(ctx, name)
        steps(ctx, name)
        if ctx.proc is not None and ctx.proc.poll() is None:
            completion(ctx, name)
            linger(ctx, 12)
    return act


# --- the scenarios' requests ------------------------------------------------------------------

def tools_plain_and_streamed(ctx: Ctx, name: str) -> None:
    chat(ctx, name)                                   # no tools: the parser gets none
    chat(ctx, name, tools=TOOLS, tool_choice="auto")
    chat(ctx, name, tools=TOOLS, tool_choice="auto", stream=True)


def tools_streamed_then_plain(ctx: Ctx, name: str) -> None:
    chat(ctx, name, tools=TOOLS, tool_choice="auto", stream=True)
    chat(ctx, name, tools=TOOLS, tool_choice="auto")
    chat(ctx, name, tools=TOOLS, tool_choice="auto", stream=True)


def bad_schema(ctx: Ctx, name: str) -> None:
    chat(ctx, name, tools=BAD_SCHEMA_TOOLS, tool_choice="required")
    chat(ctx, name, tools=BAD_SCHEMA_TOOLS,
         tool_choice={"type": "function", "function": {"name": "get_weather"}})
    chat(ctx, name, tools=BAD_SCHEMA_TOOLS, tool_choice="required", stream=True)


def required_tiny_max_tokens(ctx: Ctx, name: str) -> None:
    chat(ctx, name, tools=TOOLS, tool_choice="required", max_tokens=3)
    chat(ctx, name, tools=TOOLS, tool_choice="required", max_tokens=3, stream=True)
    chat(ctx, name, tools=TOOLS, max_tokens=3,
         tool_choice={"type": "function", "function": {"name": "get_weather"}})


def history_bad_arguments(ctx: Ctx, name: str) -> None:
    chat(ctx, name, HISTORY, tools=TOOLS, tool_choice="auto")
    chat(ctx, name, HISTORY, tools=TOOLS, tool_choice="auto", stream=True)
    chat(ctx, name, tools=TOOLS, tool_choice="auto")


def unknown_named_tool(ctx: Ctx, name: str) -> None:
    chat(ctx, name, tools=TOOLS,
         tool_choice={"type": "function", "function": {"name": "book_flight"}})
    chat(ctx, name, tools=TOOLS, stream=True,
         tool_choice={"type": "function", "function": {"name": "book_flight"}})
    chat(ctx, name, tools=TOOLS, tool_choice="auto")


def tool_requests_sg(ctx: Ctx, name: str) -> None:
    chat(ctx, name, tools=TOOLS, tool_choice="auto", max_tokens=48)
    chat(ctx, name, tools=TOOLS, tool_choice="auto", max_tokens=48, stream=True)
    chat(ctx, name, tools=TOOLS, tool_choice="required", max_tokens=48)
    chat(ctx, name, tools=TOOLS, tool_choice="auto", max_tokens=48, stream=True,
         separate_reasoning=True)


V = "vllm"
S = "sglang"
HERMES = ["--enable-auto-tool-choice", "--tool-call-parser", "hermes"]

SCENARIOS = [
    # vLLM
    Scenario("v-tool-plugin-tools-as-dicts", V, "--tool-parser-plugin with a parser whose "
             "__init__ indexes the offered tools as dicts (t['function']['name']; vLLM hands it "
             "pydantic objects); a chat without tools, then chat requests with tools (one "
             "streamed)", [*VLLM_BASE, *CHAT, *plugin("init_bug", "acme_tools")],
             act=served("Application startup complete", tools_plain_and_streamed)),
    Scenario("v-tool-plugin-stream-state", V, "--tool-parser-plugin with a parser whose "
             "streaming method appends to self.buffer, which it never created; chat requests "
             "with tools, streamed and not", [*VLLM_BASE, *CHAT, *plugin("stream_bug",
                                                                         "acme_stream")],
             act=served("Application startup complete", tools_streamed_then_plain)),
    Scenario("v-tool-required-bad-schema", V, "--enable-auto-tool-choice --tool-call-parser "
             "hermes; tools whose parameters schema is malformed (type 'strng', minimum '1', "
             "required a string) with tool_choice required, a named tool, required streamed",
             [*VLLM_BASE, *CHAT, *HERMES],
             act=served("Application startup complete", bad_schema)),
    Scenario("v-tool-history-args-not-json", V, "--enable-auto-tool-choice --tool-call-parser "
             "hermes; an agent's history whose assistant tool call has arguments that are not "
             "JSON (a cut Python dict repr), sent twice (once streamed), then a fresh chat",
             [*VLLM_BASE, *CHAT, *HERMES],
             act=served("Application startup complete", history_bad_arguments)),
    # SGLang
    Scenario("s-tool-required-bad-schema", S, "--tool-call-parser hermes; tools whose "
             "parameters schema is malformed (type 'strng', minimum '1', required a string) "
             "with tool_choice required, a named tool, required streamed",
             [*SG, *CHAT, "--tool-call-parser", "hermes"], act=served(SG_READY, bad_schema)),
    Scenario("s-tool-required-max-tokens-3", S, "--tool-call-parser hermes; tool_choice "
             "required (and a named tool) with max_tokens 3, too few to close the forced "
             "tool-call JSON (one streamed)", [*SG, *CHAT, "--tool-call-parser", "hermes"],
             act=served(SG_READY, required_tiny_max_tokens)),
    Scenario("s-tool-choice-unknown-function", S, "--tool-call-parser llama3; tool_choice "
             "naming a function (book_flight) that is not among the tools, plain and streamed, "
             "then auto", [*SG, *CHAT, "--tool-call-parser", "llama3"],
             act=served(SG_READY, unknown_named_tool)),
    Scenario("s-tool-history-args-not-json", S, "--tool-call-parser hermes; an agent's history "
             "whose assistant tool call has arguments that are not JSON (a cut Python dict "
             "repr), sent twice (once streamed), then a fresh chat",
             [*SG, *CHAT, "--tool-call-parser", "hermes"],
             act=served(SG_READY, history_bad_arguments)),
    Scenario("s-tool-parser-mistral-requests", S, "--tool-call-parser mistral on a Llama model "
             "(a plain --chat-template); chat requests with tools: auto, auto streamed, "
             "required, streamed with separate_reasoning",
             [*SG, *CHAT, "--tool-call-parser", "mistral"],
             act=served(SG_READY, tool_requests_sg)),
]
