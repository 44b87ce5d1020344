"""The hundred-and-twentieth batch's scenarios (tests/fixtures/corpus/fresh119): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind120.py OUT

Themes: structured-output backends and the requests that use them - what a person meets
choosing and using constrained decoding. Backend settings: vLLM's --structured-outputs-config
asking outlines to drop JSON whitespace (an option only xgrammar and guidance have); SGLang's
--enable-strict-thinking with --grammar-backend none; SGLang's llguidance backend given a JSON
whitespace pattern that is not a regex. Backend packages of another version or broken: the
outlines_core of the other engine's environment first on PYTHONPATH (vLLM 0.32 wants the 0.2
API, SGLang's outlines 0.1.11 the 0.1 one), and an xgrammar copy whose compiled bindings
(libxgrammar_bindings.so) are missing (a partial install) first on PYTHONPATH. Requests while
serving: recursive, huge and unsatisfiable JSON schemas, a regex no string matches, a choice of
2,000 words, json_object with max_tokens too small to close the object, Lark and GBNF grammars
on the guidance backend, structural tags, and tool calls with tool_choice required or a named
tool, on xgrammar (default), guidance, outlines and llguidance (for vLLM's outlines backend: tool calls,
a recursive schema and a GBNF grammar).

The package copies are made under /tmp/blind120/pkgs when this table is loaded (nothing is
installed into the cached engines). SGLang serving runs use --device cpu --model-impl
transformers (its own Llama module imports vllm); vLLM runs VLLM_BASE's settings. Chat
scenarios use a plain template written to /tmp/blind120/chat.jinja (the tiny model has none).

Recorded 2026-12-06 in four invocations (about 7 minutes of recording: vLLM 3m23s, SGLang
3m47s), each scenario once; all 12 kept (final files cy101-cy112). What the engines did: vLLM
0.32 imports xgrammar at the API server's start (vllm/parser/abstract_parser.py) whatever the
backend, and SGLang imports it in the launcher (function_call/base_format_detector.py), so a
broken xgrammar kills either before anything starts (tvm_ffi's RuntimeError, not ImportError).
vLLM's outlines backend is built in the engine core on the first constrained request that gets
past the front end: with outlines_core 0.1 the JSON-schema request was a 400 and the regex one a
500 (AttributeError ... 'Vocabulary'), and the engine served on. SGLang builds its grammar backend
in the scheduler after the KV cache is allocated: strict thinking without a backend and outlines
with outlines_core 0.2 both die there. vLLM answers most refused constrained requests with a bare
400 (no reason at INFO); a regex no string matches is a 500 in vLLM ('grammar rejected tokens
[0] ... Terminating request') but served (200) by SGLang's xgrammar. SGLang's outlines backend
refuses EBNF and structural tags ('Skip unsupported key_type'); llguidance reports a bad JSON
whitespace pattern per request ('regex parse error ... unclosed character class'). Nothing here
killed a server while it served.
"""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    up,
)
from setup_engines import SGLANG, VLLM  # noqa: E402

ROOT = Path("/tmp/blind120")
PKGS = ROOT / "pkgs"
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% if tools %}Tools: {{ tools | tojson }}\n{% endif %}"
              "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def _site(python: Path) -> Path:
    return next((python.parent.parent / "lib").glob("python3*/site-packages"))


def _copy(src: Path, dest: Path, names: list[str], drop: str | None = None) -> None:
    if dest.exists():
        return
    dest.mkdir(parents=True)
    for n in names:
        shutil.copytree(src / n, dest / n, ignore=shutil.ignore_patterns("__pycache__"))
    if drop:
        (dest / drop).unlink()


def _write_files() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)
    sv, ss = _site(VLLM.python), _site(SGLANG.python)
    oc_v = sorted(p.name for p in sv.glob("outlines_core*"))
    oc_s = sorted(p.name for p in ss.glob("outlines_core*"))
    _copy(ss, PKGS / "oc-from-sglang", oc_s)   # outlines_core 0.1.26 for vLLM
    _copy(sv, PKGS / "oc-from-vllm", oc_v)     # outlines_core 0.2.14 for SGLang
    _copy(sv, PKGS / "xgr-nobind-v", sorted(p.name for p in sv.glob("xgrammar*")),
          drop="xgrammar/libxgrammar_bindings.so")
    _copy(ss, PKGS / "xgr-nobind-s", sorted(p.name for p in ss.glob("xgrammar*")),
          drop="xgrammar/libxgrammar_bindings.so")


_write_files()

# --- requests --------------------------------------------------------------------------------

TOOLS = [{"type": "function", "function": {
    "name": "get_weather", "description": "weather of a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]
TREE = {"$defs": {"node": {"type": "object", "properties": {
    "v": {"type": "integer"}, "kids": {"type": "array", "items": {"$ref": "#/$defs/node"}}},
    "required": ["v", "kids"]}}, "$ref": "#/$defs/node"}
HUGE = {"type": "object", "properties": {f"p{i}": {"type": "string"} for i in range(3000)},
        "required": [f"p{i}" for i in range(3000)]}
NO_INT = {"type": "object", "properties": {"n": {"type": "integer", "minimum": 10,
                                                 "maximum": 5}}, "required": ["n"]}
NO_STR = {"type": "object", "properties": {"s": {"type": "string", "minLength": 5,
                                                 "maxLength": 2}}, "required": ["s"]}
SIMPLE = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
WORDS = [f"word{i}" for i in range(2000)]
MSGS = [{"role": "user", "content": "weather in Paris? answer in JSON"}]


def chat(ctx: Ctx, name: str, max_tokens: int = 32, timeout: float = 120, **extra: object) -> int:
    return ctx.post("/v1/chat/completions", {"model": name, "messages": MSGS,
                                             "max_tokens": max_tokens, **extra}, timeout)


def comp(ctx: Ctx, name: str, so: dict, max_tokens: int = 16, timeout: float = 120) -> int:
    return ctx.post("/v1/completions", {"model": name, "prompt": "json:",
                                        "max_tokens": max_tokens, "structured_outputs": so},
                    timeout)


def schema_fmt(schema: dict) -> dict:
    return {"type": "json_schema", "json_schema": {"name": "out", "schema": schema}}


def v_served(body: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        if not up(ctx, 200):
            linger(ctx, 5)
            return
        name = ctx.model_name()
        ctx.complete(1, max_tokens=8)
        body(ctx, name)
        ctx.complete(1, max_tokens=8)
        linger(ctx, 11)
    return act


def v_hard_schemas(ctx: Ctx, name: str) -> None:
    chat(ctx, name, 40, response_format=schema_fmt(TREE))
    comp(ctx, name, {"json": HUGE}, 16)
    comp(ctx, name, {"json": NO_INT}, 16)
    comp(ctx, name, {"json": NO_STR}, 16)
    chat(ctx, name, 2, response_format={"type": "json_object"})
    comp(ctx, name, {"choice": WORDS}, 8)
    comp(ctx, name, {"regex": r"[^\s\S]"}, 8, timeout=60)


def v_guidance_requests(ctx: Ctx, name: str) -> None:
    chat(ctx, name, 48, tools=TOOLS, tool_choice="required")
    chat(ctx, name, 48, tools=TOOLS,
         tool_choice={"type": "function", "function": {"name": "get_weather"}})
    comp(ctx, name, {"grammar": 'start: "yes" | "no"'}, 4)
    comp(ctx, name, {"grammar": 'root ::= "yes" | "no"'}, 4)
    chat(ctx, name, 32, response_format={"type": "structural_tag", "format": {
        "type": "triggered_tags", "triggers": ["<f>"], "tags": [
            {"begin": "<f>", "content": {"type": "json_schema", "json_schema": SIMPLE},
             "end": "</f>"}]}})
    comp(ctx, name, {"json": {"type": "string", "pattern": r"^(?=.*\d).+$"}}, 8)


def v_outlines_requests(ctx: Ctx, name: str) -> None:
    chat(ctx, name, 48, tools=TOOLS, tool_choice="required")
    chat(ctx, name, 48, tools=TOOLS,
         tool_choice={"type": "function", "function": {"name": "get_weather"}})
    chat(ctx, name, 40, response_format=schema_fmt(TREE))
    chat(ctx, name, 2, response_format={"type": "json_object"})
    comp(ctx, name, {"grammar": 'root ::= "yes" | "no"'}, 4)


def v_json_requests(ctx: Ctx, name: str) -> None:
    comp(ctx, name, {"json": SIMPLE}, 16)
    comp(ctx, name, {"regex": r"[a-z]{3}-\d{2}"}, 8)


def sg_gen(ctx: Ctx, params: dict, max_new: int = 16, timeout: float = 120) -> int:
    return ctx.post("/generate", {"text": "json:", "sampling_params": {
        "max_new_tokens": max_new, **params}}, timeout)


def sg_served(body: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 200) is None:
            linger(ctx, 5)
            return
        name = ctx.model_name()
        sg_gen(ctx, {}, 8)
        body(ctx, name)
        sg_gen(ctx, {}, 8)
        linger(ctx, 11)
    return act


def sg_outlines_requests(ctx: Ctx, name: str) -> None:
    sg_gen(ctx, {"json_schema": json.dumps(SIMPLE)})
    sg_gen(ctx, {"json_schema": json.dumps(TREE)}, 40)
    sg_gen(ctx, {"ebnf": 'root ::= "yes" | "no"'}, 4)
    sg_gen(ctx, {"structural_tag": json.dumps({
        "type": "structural_tag", "structures": [{"begin": "<f>", "schema": SIMPLE,
                                                  "end": "</f>"}], "triggers": ["<f>"]})})
    sg_gen(ctx, {"json_schema": json.dumps(SIMPLE)}, 3)


def sg_whitespace_requests(ctx: Ctx, name: str) -> None:
    sg_gen(ctx, {"json_schema": json.dumps(SIMPLE)})
    sg_gen(ctx, {"regex": r"[a-z]{3}-\d{2}"}, 8)
    sg_gen(ctx, {"json_schema": json.dumps(SIMPLE)})


def sg_xgrammar_requests(ctx: Ctx, name: str) -> None:
    sg_gen(ctx, {"json_schema": json.dumps(TREE)}, 40)
    sg_gen(ctx, {"json_schema": json.dumps(HUGE)}, 16)
    sg_gen(ctx, {"json_schema": json.dumps(NO_INT)})
    sg_gen(ctx, {"regex": r"[^\s\S]"}, 8, timeout=60)
    sg_gen(ctx, {"regex": "(" + "|".join(WORDS) + ")"}, 8)
    chat(ctx, name, 48, tools=TOOLS, tool_choice="required")
    chat(ctx, name, 48, tools=TOOLS,
         tool_choice={"type": "function", "function": {"name": "get_weather"}})
    chat(ctx, name, 2, response_format={"type": "json_object"})


def sg_ends(ctx: Ctx) -> None:
    """A launch expected to fail: let it end by itself (90 s at most); if it serves instead,
    one constrained and one plain generation."""
    if ctx.wait_any([SG_READY], 90) is not None:
        sg_gen(ctx, {"json_schema": json.dumps(SIMPLE)})
        sg_gen(ctx, {}, 8)
        linger(ctx, 10)


V = "vllm"
S = "sglang"
CHAT = ["--chat-template", str(CHAT_TEMPLATE)]

SCENARIOS = [
    # vLLM
    Scenario("v-outlines-no-whitespace", V, "--structured-outputs-config asking the outlines "
             "backend for disable_any_whitespace (an option only xgrammar and guidance have)",
             [*VLLM_BASE, "--structured-outputs-config",
              '{"backend": "outlines", "disable_any_whitespace": true}'], wait_s=90),
    Scenario("v-outlines-core-old", V, "--structured-outputs-config backend outlines with "
             "SGLang's outlines_core 0.1.26 first on PYTHONPATH (vLLM 0.32 uses the 0.2 API); "
             "served, then a JSON-schema and a regex completion",
             [*VLLM_BASE, "--structured-outputs-config", '{"backend": "outlines"}'],
             env={"PYTHONPATH": str(PKGS / "oc-from-sglang")}, act=v_served(v_json_requests)),
    Scenario("v-xgrammar-no-bindings", V, "a copy of xgrammar 0.2.8 whose compiled bindings "
             "(libxgrammar_bindings.so) are missing first on PYTHONPATH (a partial install), "
             "default backend; served, then a JSON-schema and a regex completion", VLLM_BASE,
             env={"PYTHONPATH": str(PKGS / "xgr-nobind-v")}, act=v_served(v_json_requests)),
    Scenario("v-hard-schemas-xgrammar", V, "default (xgrammar) backend; served, then a recursive "
             "JSON schema, a schema of 3,000 required properties with max_tokens 16, an integer "
             "with minimum 10 and maximum 5, a string with minLength 5 and maxLength 2, "
             "json_object with max_tokens 2, a choice of 2,000 words, a regex no string "
             "matches ([^\\s\\S])", [*VLLM_BASE, *CHAT], act=v_served(v_hard_schemas)),
    Scenario("v-guidance-tools-grammars", V, "--structured-outputs-config backend guidance; "
             "served, then chat with tools and tool_choice required, a named tool, a Lark "
             "grammar, a GBNF grammar (another backend's syntax), a structural_tag "
             "response_format, a JSON string pattern with a look-ahead",
             [*VLLM_BASE, *CHAT, "--structured-outputs-config", '{"backend": "guidance"}'],
             act=v_served(v_guidance_requests)),
    Scenario("v-outlines-tools-recursive", V, "--structured-outputs-config backend outlines; "
             "served, then chat with tools and tool_choice required, a named tool, a recursive "
             "JSON schema, json_object with max_tokens 2, an EBNF grammar",
             [*VLLM_BASE, *CHAT, "--structured-outputs-config", '{"backend": "outlines"}'],
             act=v_served(v_outlines_requests)),
    # SGLang
    Scenario("s-strict-thinking-no-grammar", S, "--enable-strict-thinking with --grammar-backend "
             "none (strict thinking filters tokens through the grammar backend)",
             [*SG, "--enable-strict-thinking", "--grammar-backend", "none"], act=sg_ends),
    Scenario("s-outlines-core-newer", S, "--grammar-backend outlines with vLLM's outlines_core "
             "0.2.14 first on PYTHONPATH (SGLang's outlines 0.1.11 imports outlines_core.fsm)",
             [*SG, "--grammar-backend", "outlines"],
             env={"PYTHONPATH": str(PKGS / "oc-from-vllm")}, act=sg_ends),
    Scenario("s-xgrammar-no-bindings", S, "a copy of xgrammar 0.2.7 whose compiled bindings "
             "(libxgrammar_bindings.so) are missing first on PYTHONPATH (a partial install), "
             "default backend", SG, env={"PYTHONPATH": str(PKGS / "xgr-nobind-s")},
             act=sg_ends),
    Scenario("s-outlines-requests", S, "--grammar-backend outlines; served, then a JSON "
             "schema, a recursive JSON schema, an EBNF grammar, a structural tag, a JSON schema "
             "with max_new_tokens 3", [*SG, "--grammar-backend", "outlines"],
             act=sg_served(sg_outlines_requests)),
    Scenario("s-llguidance-ws-pattern-bad", S, "--grammar-backend llguidance with "
             "--constrained-json-whitespace-pattern '[ \\t' (not a regex: the class is not "
             "closed); served, then JSON-schema and regex generations",
             [*SG, "--grammar-backend", "llguidance", "--constrained-json-whitespace-pattern",
              "[ \\t"], act=sg_served(sg_whitespace_requests)),
    Scenario("s-hard-schemas-xgrammar", S, "default (xgrammar) backend with a chat template; "
             "served, then a recursive JSON schema, 3,000 required properties with 16 tokens, "
             "an integer with minimum 10 and maximum 5, a regex no string matches, an "
             "alternation of 2,000 words, chat with tools and tool_choice required, a named "
             "tool, json_object with max_tokens 2", [*SG, *CHAT],
             act=sg_served(sg_xgrammar_requests)),
]
