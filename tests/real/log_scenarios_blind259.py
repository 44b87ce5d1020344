"""The two-hundred-and-fifty-ninth batch's scenarios (tests/fixtures/corpus/fresh258): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind259.py OUT

Themes: tool calling and reasoning output, a new round - what a person meets wiring a server up
for an agent framework, with a plain chat request before and after each odd request where the
server comes up. vLLM (VLLM_BASE's settings): a --tool-parser-plugin file of one's own with a
typo (a def line without its colon), --tool-call-parser naming the parser it registers;
--tool-call-parser openai (gpt-oss's Harmony parser) on the Llama model with tool requests, plain
and streamed; --reasoning-parser granite with json_schema response_format requests, plain and
streamed (reasoning paired with structured output); --tool-call-parser llama3_json with tools an
agent framework generates (a recursive $defs/$ref schema, one function name offered twice) under
tool_choice required streamed with parallel_tool_calls false, then tool_choice none. SGLang
(--device cpu --model-impl transformers): --tool-call-parser llama3 with a chat template that has
no tool section, tool_choice auto and required; --reasoning-parser qwen3 with json_schema
requests, separate_reasoning, streamed with stream_reasoning false; --tool-call-parser kimi_k2 on
the Llama model, streamed tool_choice required with parallel_tool_calls; --tool-call-parser
deepseekv3 with --reasoning-parser deepseek-r1, tool_choice none with tools, then a named
tool_choice streamed with separate_reasoning and stream_reasoning false. Every scenario but the
template one gets /tmp/blind259/chat-tools.jinja (lists the tools, renders tool calls); the
template one gets /tmp/blind259/chat-plain.jinja (no tool section); both, and the plugin file,
are written when this table is loaded (the tiny model has no template).

Earlier batches already had (not repeated): parser names that do not exist on both engines
(67th, 73rd, 75th), --enable-auto-tool-choice without a parser (67th), a --tool-parser-plugin
file missing (88th) and plugins that fail in __init__ or while streaming (136th), hermes with
odd requests (91st), deepseek_v3's tool parser refused by vLLM for the tokenizer (116th), mistral
on SGLang (116th, 136th), malformed tool schemas, non-JSON history arguments, a named tool not
offered and required with max_tokens 3 (136th), tool_choice required and named on the
structured-output backends (120th), tools without a parser (74th), deepseek_r1 without think
tokens on both engines (94th), reasoning plugins, openai_gptoss, granite with effort fields,
k2_horizon, auto and the /separate_reasoning endpoint (153rd), separate_reasoning without a
parser (200th), the deprecated functions field (228th).

Recorded 2026-12-07 in one invocation (raw1: all eight, in the table's order, 20:00-20:18,
taking turns for the lock with other helpers' recorders); each scenario once. Seconds per
scenario: vLLM 9, 45, 47, 33; SGLang 79, 67, 59, 71. All eight kept (final files
ij101-ij108), none dropped, none re-recorded. v-tools-recursive-duplicate-required never
reached its requests: vLLM refused llama3_json for the tiny tokenizer after the engine was up,
so its log is of that parser refusal (kept: a fair log of the ground, a parser of the model's
own family name that the tokenizer cannot serve). The faults of v-reasoning-granite-json-schema,
s-reasoning-qwen3-json-schema, s-tool-kimi-k2-required-stream and s-tool-deepseekv3-none-named
never show beyond a launch warning or nothing at all (every request 200 OK): kept as fair logs of
the ground, labelled ready.

What the engines did. vLLM catches the plugin file's SyntaxError (`Failed to load module
'acme_tool_parser'`, `SyntaxError: expected ':'`, at ERROR) and dies 9 s in on
`KeyError: 'invalid tool call parser: acme_tools (chose from {...})'` (ij101, crashed at launch).
The openai (Harmony) tool parser on a Llama passes the launch with only `"auto" tool choice has
been enabled.` and answers both tool requests, plain and streamed, with a bare `400 Bad Request`
access line, serving the plain chats 200 (ij102, ready). granite's reasoning parser warns
`Auto-initialization of reasoning token IDs failed` twice and serves json_schema requests 200
without a word (ij103, ready). llama3_json is refused once the engine is up, as the API server
builds its renderer: `TypeError: --tool-call-parser llama3_json cannot be used with the
tokenizer of ...: Llama3JsonToolParser could not locate the bot token '<|python_tag|>' in the
tokenizer.` (ij104, crashed after `init engine ... took`). SGLang serves every request of its
four scenarios 200 OK: llama3 with a template that has no tool section logs only `Tool call
marker present but no complete call parsed from llama3 output; dropping the incomplete call` for
tool_choice required (ij105); qwen3 reasoning with json_schema, kimi_k2 forced streamed calls and
deepseekv3 + deepseek-r1 with tool_choice none and a named tool leave no line of their own
(ij106-ij108). Crashed: ij101, ij104; ready in serving: the other six. None hung.
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind259")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

# a chat template that lists the tools and renders an assistant's tool calls
TOOL_TEMPLATE = ROOT / "chat-tools.jinja"
TOOL_JINJA = (
    "{% if tools %}Tools: {{ tools | tojson }}\n{% endif %}"
    "{% for m in messages %}{{ m['role'] }}: {{ m['content'] or '' }}"
    "{% if m.get('tool_calls') %}{% for tc in m['tool_calls'] %} call {{ tc['function']['name'] }}"
    "({{ tc['function']['arguments'] | tojson }}){% endfor %}{% endif %}\n{% endfor %}"
    "{% if add_generation_prompt %}assistant:{% endif %}")
# a chat template copied from a plain chat model: no tool section at all
PLAIN_TEMPLATE = ROOT / "chat-plain.jinja"
PLAIN_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
               "{% if add_generation_prompt %}assistant:{% endif %}")

# a tool parser plugin with a typo: a `def` line without its colon (a SyntaxError on import)
PLUGIN_SYNTAX = ROOT / "acme_tool_parser.py"
PLUGIN_SYNTAX_CODE = '''\
from vllm.entrypoints.generate.base.protocol import DeltaMessage, ExtractedToolCallInformation
from vllm.tool_parsers.abstract_tool_parser import ToolParser, ToolParserManager


@ToolParserManager.register_module("acme_tools")
class AcmeToolParser(ToolParser):
    def extract_tool_calls(self, model_output, request)
        return ExtractedToolCallInformation(tools_called=False, tool_calls=[],
                                            content=model_output)

    def extract_tool_calls_streaming(self, previous_text, current_text, delta_text,
                                     previous_token_ids, current_token_ids, delta_token_ids,
                                     request):
        return DeltaMessage(content=delta_text)
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    TOOL_TEMPLATE.write_text(TOOL_JINJA)
    PLAIN_TEMPLATE.write_text(PLAIN_JINJA)
    PLUGIN_SYNTAX.write_text(PLUGIN_SYNTAX_CODE)


_setup()

TOOLS_CHAT = ["--chat-template", str(TOOL_TEMPLATE)]
PLAIN_CHAT = ["--chat-template", str(PLAIN_TEMPLATE)]

WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
TIME = {"type": "function", "function": {
    "name": "get_time", "description": "Local time in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}
TOOLS = [WEATHER, TIME]
# an agent framework's generated schemas: a recursive tree through $defs/$ref, and the same
# function name offered twice (a tool registered by two plugins of the framework)
ODD_TOOLS = [
    {"type": "function", "function": {
        "name": "make_tree", "description": "Build a tree of nodes",
        "parameters": {"type": "object", "$defs": {"Node": {
            "type": "object", "properties": {
                "label": {"type": "string"},
                "children": {"type": "array", "items": {"$ref": "#/$defs/Node"}}},
            "required": ["label", "children"]}},
            "properties": {"root": {"$ref": "#/$defs/Node"}}, "required": ["root"]}}},
    WEATHER,
    {"type": "function", "function": {
        "name": "get_weather", "description": "Weather, the second plugin's version",
        "parameters": {"type": "object", "properties": {"lat": {"type": "number"},
                                                        "lon": {"type": "number"}},
                       "required": ["lat", "lon"]}}},
]
USER = [{"role": "user", "content": "What is the weather and the time in Paris?"}]
PLAIN = [{"role": "user", "content": "Say hello."}]
PERSON = {"type": "json_schema", "json_schema": {"name": "person", "schema": {
    "type": "object", "properties": {"name": {"type": "string"}, "age": {"type": "integer"}},
    "required": ["name", "age"]}}}


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


def chat(ctx: Ctx, name: str, messages: list | None = None, **extra: object) -> int:
    body = {"model": name, "messages": messages or USER, "max_tokens": 32, **extra}
    return request(ctx, "/v1/chat/completions", body)


def plain_chat(ctx: Ctx, name: str) -> None:
    chat(ctx, name, PLAIN, max_tokens=8)


def served(ready: str, steps: list[dict]) -> Callable[[Ctx], None]:
    """Once the ready line is logged: for each odd request, a plain chat before it and after it;
    then a pause (one stats line). If the run ends or never gets ready, until it ends."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(ready, 240):
            linger(ctx, 20)
            return
        name = ctx.model_name()
        for extra in steps:
            if ctx.proc is not None and ctx.proc.poll() is not None:
                return
            plain_chat(ctx, name)
            chat(ctx, name, **extra)
        if ctx.proc is not None and ctx.proc.poll() is None:
            plain_chat(ctx, name)
            linger(ctx, 12)
    return act


SCENARIOS = [
    Scenario("v-tool-plugin-syntax-error", "vllm", "--tool-parser-plugin naming a parser file "
             "with a syntax error (a def line without its colon), --tool-call-parser naming the "
             "parser it registers",
             [*VLLM_BASE, *TOOLS_CHAT, "--tool-parser-plugin", str(PLUGIN_SYNTAX),
              "--enable-auto-tool-choice", "--tool-call-parser", "acme_tools"],
             act=served(READY_LINE, [{"tools": TOOLS, "tool_choice": "auto"}])),
    Scenario("v-tool-parser-openai-llama", "vllm", "--tool-call-parser openai (gpt-oss's "
             "Harmony parser) on a Llama model, chat requests with tools, auto and streamed",
             [*VLLM_BASE, *TOOLS_CHAT, "--enable-auto-tool-choice", "--tool-call-parser",
              "openai"],
             act=served(READY_LINE, [{"tools": TOOLS, "tool_choice": "auto"},
                                     {"tools": TOOLS, "tool_choice": "auto", "stream": True}])),
    Scenario("v-reasoning-granite-json-schema", "vllm", "--reasoning-parser granite with chat "
             "requests asking for a json_schema response_format, plain and streamed",
             [*VLLM_BASE, *TOOLS_CHAT, "--reasoning-parser", "granite"],
             act=served(READY_LINE, [{"response_format": PERSON},
                                     {"response_format": PERSON, "stream": True}])),
    Scenario("v-tools-recursive-duplicate-required", "vllm", "tools with a recursive $ref "
             "schema and one function name offered twice, tool_choice required streamed with "
             "parallel_tool_calls false, and the same with tool_choice none",
             [*VLLM_BASE, *TOOLS_CHAT, "--enable-auto-tool-choice", "--tool-call-parser",
              "llama3_json"],
             act=served(READY_LINE, [{"tools": ODD_TOOLS, "tool_choice": "required",
                                      "stream": True, "parallel_tool_calls": False},
                                     {"tools": ODD_TOOLS, "tool_choice": "none"}])),
    Scenario("s-tool-llama3-plain-template", "sglang", "--tool-call-parser llama3 with a chat "
             "template that has no tool section, chat requests with tools auto and required",
             [*SG, *PLAIN_CHAT, "--tool-call-parser", "llama3"],
             act=served(SG_READY, [{"tools": TOOLS, "tool_choice": "auto"},
                                   {"tools": TOOLS, "tool_choice": "required"}])),
    Scenario("s-reasoning-qwen3-json-schema", "sglang", "--reasoning-parser qwen3 with chat "
             "requests asking for a json_schema response_format, separate_reasoning, and "
             "streamed with stream_reasoning false",
             [*SG, *TOOLS_CHAT, "--reasoning-parser", "qwen3"],
             act=served(SG_READY, [{"response_format": PERSON, "separate_reasoning": True},
                                   {"response_format": PERSON, "separate_reasoning": True,
                                    "stream": True, "stream_reasoning": False}])),
    Scenario("s-tool-kimi-k2-required-stream", "sglang", "--tool-call-parser kimi_k2 (Kimi's "
             "format) on a Llama model, streamed tool_choice required with parallel tool calls",
             [*SG, *TOOLS_CHAT, "--tool-call-parser", "kimi_k2"],
             act=served(SG_READY, [{"tools": TOOLS, "tool_choice": "required", "stream": True,
                                    "parallel_tool_calls": True}])),
    Scenario("s-tool-deepseekv3-none-named", "sglang", "--tool-call-parser deepseekv3 with "
             "--reasoning-parser deepseek-r1 on a Llama model, tool_choice none with tools, then "
             "a named tool_choice streamed with separate_reasoning and stream_reasoning false",
             [*SG, *TOOLS_CHAT, "--tool-call-parser", "deepseekv3", "--reasoning-parser",
              "deepseek-r1"],
             act=served(SG_READY, [{"tools": TOOLS, "tool_choice": "none"},
                                   {"tools": TOOLS, "stream": True, "separate_reasoning": True,
                                    "stream_reasoning": False, "tool_choice": {
                                        "type": "function",
                                        "function": {"name": "get_time"}}}])),
]
