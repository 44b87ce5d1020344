"""The two-hundred-and-fifty-third batch's scenarios (tests/fixtures/corpus/fresh252): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind253.py OUT

Themes: structured output as applications ask for it, a new round - one odd constraint per run,
sent to a server that is up between plain requests (a plain completion or /generate before and
after), or one backend setting at launch. vLLM (VLLM_BASE's settings, a plain chat template at
/tmp/blind253/chat.jinja): JSON schemas with composition keywords (oneOf of overlapping
branches, a 'not' enum, patternProperties with additionalProperties false, anyOf with a 'not'
branch) on the default xgrammar backend; a back-reference in a schema's string pattern and in a
regex; a Lark grammar naming a rule it never defines and a left-recursive one on the guidance
backend; response_format of a type the engine lacks (regex, grammar) and a strict json_schema
with extra keys. SGLang (--device cpu --model-impl transformers): --grammar-backend
lm-format-enforcer (vLLM's backend name); --grammar-backend none met by JSON-schema, regex and
response_format requests; an EBNF grammar with an undefined rule and a left-recursive one on
xgrammar; a JSON schema whose one property is an enum of 20,000 strings, by /generate and as a
chat response_format.

Earlier batches already had (not repeated): recursive, huge and unsatisfiable (integer and
string bounds) JSON schemas, a regex no string matches, a choice of 2,000 words, json_object
with too few tokens, Lark and GBNF grammars (valid) on guidance, structural tags, a look-ahead
pattern on guidance, tool_choice required and named, bad backend packages, outlines without
whitespace, strict thinking with backend none, llguidance's whitespace pattern (120th); an EBNF
cut short, a $ref to nothing, a regex of a million repeats, json_schema without schema (91st);
an invalid regex, type 'nosuchtype', an empty choice, an unknown vLLM backend (67th);
lm-format-enforcer on vLLM (70th); a one-option regex (94th); the old --guided-decoding-backend
and guided_json (213th), guided_choice and regex beside a strict json_schema through the SDK
(200th); malformed tool schemas (136th); outlines' cache dir full or a file (146th, 181st);
llguidance broken (150th); a stop_regex that does not parse or compile (170th).

Recorded 2026-12-07 in two invocations (raw1: the first eight scenarios of the first table;
raw2: s-schema-enum-huge, added after raw1's s-schema-items-crossed was dropped), waiting turns
with other helpers' recorders; each scenario once. Seconds per scenario: vLLM 64, 56, 53, 53;
SGLang 9, 80, 62, 97. All eight kept (final files id101-id108). Dropped (removed from the
table): s-schema-items-crossed (JSON schemas whose array bounds cross - minItems 5 with maxItems
2, two prefixItems with items false and minItems 4): its run never reached the fault - uvicorn
could not bind the recorder's port ('ERROR: [Errno 98] error while attempting to bind on address
('127.0.0.1', 46707): address already in use', apparently held by another helper's run beside
this one), the server sat at 'Waiting for application shutdown.' until the recorder killed it
after 205 s; a log of a port clash, not of this ground.

What the engines did. vLLM answered every odd request per request and served on: xgrammar
approximated the composition keywords with its own warning ('json_schema_converter.cc:832:
Warning: oneOf with overlapping or non-provably-disjoint branches cannot be represented exactly;
falling back to anyOf semantics') and answered all three 200; the back-reference pattern and
regex, the Lark grammar with an undefined rule (guidance), and the response_format types regex
and grammar were bare '400 Bad Request' lines with no reason at INFO; the left-recursive Lark
grammar and the strict json_schema with extra keys were answered 200. SGLang refused
--grammar-backend lm-format-enforcer in argparse's words ('invalid choice: 'lm-format-enforcer'
(choose from 'xgrammar', 'outlines', 'llguidance', 'none')') and exited 2 at launch; with
--grammar-backend none it came up and refused each constrained request in its own words
('Grammar-based generation (json_schema, regex, ebnf, structural_tag) is not supported when the
server is launched with --grammar-backend none', 400); xgrammar refused the undefined EBNF rule
('EBNF parser error at line 1, column 23: Rule "name" is not defined', 400) and answered the
left-recursive grammar 200. The 20,000-string enum was answered 200 by both /generate and chat,
the first after 16 s with no line at all while xgrammar built it (prefill 'input throughput
(token/s): 0.06'). Crashed: id105 (at launch); ready in serving: the rest. No log hung, and
nothing here killed a serving server."""

from __future__ import annotations

import json
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

ROOT = Path("/tmp/blind253")
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% if tools %}Tools: {{ tools | tojson }}\n{% endif %}"
              "{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
CHAT = ["--chat-template", str(CHAT_TEMPLATE)]
V = "vllm"
S = "sglang"

ROOT.mkdir(parents=True, exist_ok=True)
CHAT_TEMPLATE.write_text(CHAT_JINJA)

# --- requests --------------------------------------------------------------------------------

MSGS = [{"role": "user", "content": "answer in JSON"}]
SIMPLE = {"type": "object", "properties": {"city": {"type": "string"}}, "required": ["city"]}
# composition keywords: not, oneOf with overlapping branches, patternProperties
NOT_ONEOF = {"type": "object", "properties": {
    "id": {"oneOf": [{"type": "integer"}, {"type": "number"}]},
    "name": {"type": "string", "not": {"enum": ["admin", "root"]}}},
    "required": ["id", "name"]}
PATTERN_PROPS = {"type": "object", "patternProperties": {"^x-[a-z]+$": {"type": "integer"}},
                 "additionalProperties": False, "minProperties": 1}
ANYOF_NOT = {"anyOf": [{"type": "string"}, {"not": {"type": "null"}}]}
# back-references: in a JSON-schema string pattern and in a regex
BACKREF_SCHEMA = {"type": "object", "properties": {
    "tag": {"type": "string", "pattern": r"^<([a-z]+)>[a-z]*</\1>$"}}, "required": ["tag"]}
BACKREF_REGEX = r"(ab|cd)\1-[0-9]{2}"
# Lark grammars for the guidance backend: a rule never defined, a left-recursive rule
LARK_UNDEFINED = 'start: greeting " " name\ngreeting: "hi" | "hello"\n'
LARK_LEFT_REC = 'start: expr\nexpr: expr "+" NUM | NUM\nNUM: /[0-9]+/\n'
# EBNF (xgrammar / GBNF) for SGLang: an undefined rule, a left recursion
EBNF_UNDEFINED = 'root ::= greeting " " name\ngreeting ::= "hi" | "hello"\n'
EBNF_LEFT_REC = 'root ::= expr\nexpr ::= expr "+" num | num\nnum ::= [0-9]+\n'


def chat(ctx: Ctx, name: str, max_tokens: int = 24, timeout: float = 120,
         **extra: object) -> int:
    return ctx.post("/v1/chat/completions", {"model": name, "messages": MSGS,
                                             "max_tokens": max_tokens, **extra}, timeout)


def comp(ctx: Ctx, name: str, so: dict, max_tokens: int = 16, timeout: float = 120) -> int:
    return ctx.post("/v1/completions", {"model": name, "prompt": "json:",
                                        "max_tokens": max_tokens, "structured_outputs": so},
                    timeout)


def schema_fmt(schema: dict, **extra: object) -> dict:
    return {"type": "json_schema", "json_schema": {"name": "out", "schema": schema, **extra}}


def v_served(body: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    """Served: a plain completion, the odd requests, a plain completion, 11 s more."""
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


def v_composition(ctx: Ctx, name: str) -> None:
    chat(ctx, name, 24, response_format=schema_fmt(NOT_ONEOF))
    comp(ctx, name, {"json": PATTERN_PROPS}, 16)
    comp(ctx, name, {"json": ANYOF_NOT}, 8)


def v_backref(ctx: Ctx, name: str) -> None:
    chat(ctx, name, 24, response_format=schema_fmt(BACKREF_SCHEMA))
    comp(ctx, name, {"regex": BACKREF_REGEX}, 8)


def v_lark(ctx: Ctx, name: str) -> None:
    comp(ctx, name, {"grammar": LARK_UNDEFINED}, 8)
    comp(ctx, name, {"grammar": LARK_LEFT_REC}, 8)


def v_format_types(ctx: Ctx, name: str) -> None:
    chat(ctx, name, 16, response_format={"type": "regex", "regex": "[a-z]+"})
    chat(ctx, name, 16, response_format={"type": "grammar", "grammar": 'root ::= "yes"'})
    chat(ctx, name, 24, response_format=schema_fmt(SIMPLE, strict=True, description="x",
                                                   additionalProperties=False))


def sg_gen(ctx: Ctx, params: dict, max_new: int = 16, timeout: float = 120) -> int:
    return ctx.post("/generate", {"text": "json:", "sampling_params": {
        "max_new_tokens": max_new, **params}}, timeout)


def sg_served(body: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    """Served: a plain generation, the odd requests, a plain generation, 11 s more."""
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


def sg_ebnf(ctx: Ctx, name: str) -> None:
    sg_gen(ctx, {"ebnf": EBNF_UNDEFINED}, 8)
    sg_gen(ctx, {"ebnf": EBNF_LEFT_REC}, 8)


ENUM_HUGE = {"type": "object", "properties": {
    "code": {"enum": [f"item-{i:05d}" for i in range(20000)]}}, "required": ["code"]}


def sg_enum(ctx: Ctx, name: str) -> None:
    sg_gen(ctx, {"json_schema": json.dumps(ENUM_HUGE)}, 16, timeout=150)
    chat(ctx, name, 16, timeout=150, response_format=schema_fmt(ENUM_HUGE))


def sg_none_requests(ctx: Ctx, name: str) -> None:
    sg_gen(ctx, {"json_schema": json.dumps(SIMPLE)}, 16)
    sg_gen(ctx, {"regex": r"[a-z]{3}-\d{2}"}, 8)
    chat(ctx, name, 16, response_format=schema_fmt(SIMPLE))


def sg_ends(ctx: Ctx) -> None:
    """A launch expected to fail: let it end by itself (90 s at most); if it serves instead,
    one constrained and one plain generation."""
    if ctx.wait_any([SG_READY], 90) is not None:
        sg_gen(ctx, {"json_schema": json.dumps(SIMPLE)})
        sg_gen(ctx, {}, 8)
        linger(ctx, 10)


SCENARIOS = [
    # vLLM (VLLM_BASE's settings, default xgrammar backend unless named)
    Scenario("v-schema-not-oneof-patternprops", V, "default (xgrammar) backend; served, then "
             "JSON schemas with composition keywords: oneOf integer|number with a string "
             "'not' enum (chat response_format), patternProperties with "
             "additionalProperties false, anyOf with a 'not' branch",
             [*VLLM_BASE, *CHAT], act=v_served(v_composition)),
    Scenario("v-pattern-backreference", V, "default (xgrammar) backend; served, then a JSON "
             "schema whose string pattern has a back-reference (^<([a-z]+)>[a-z]*</\\1>$) and "
             "a structured_outputs regex with one ((ab|cd)\\1-[0-9]{2})",
             [*VLLM_BASE, *CHAT], act=v_served(v_backref)),
    Scenario("v-guidance-lark-undefined-leftrec", V, "--structured-outputs-config backend "
             "guidance; served, then a Lark grammar naming a rule it never defines and a "
             "left-recursive Lark grammar",
             [*VLLM_BASE, "--structured-outputs-config", '{"backend": "guidance"}'],
             act=v_served(v_lark)),
    Scenario("v-response-format-types", V, "default backend; served, then chat requests whose "
             "response_format is of a type the engine lacks (regex, grammar) and a json_schema "
             "response_format with strict true and extra keys beside the schema",
             [*VLLM_BASE, *CHAT], act=v_served(v_format_types)),
    # SGLang (--device cpu --model-impl transformers)
    Scenario("s-grammar-backend-lmfe", S, "--grammar-backend lm-format-enforcer (vLLM's name "
             "for a backend this SGLang lacks)",
             [*SG, "--grammar-backend", "lm-format-enforcer"], act=sg_ends),
    Scenario("s-grammar-backend-none-requests", S, "--grammar-backend none; served, then a "
             "JSON-schema and a regex /generate and a json_schema chat response_format",
             [*SG, *CHAT, "--grammar-backend", "none"], act=sg_served(sg_none_requests)),
    Scenario("s-ebnf-undefined-leftrec", S, "default (xgrammar) backend; served, then an EBNF "
             "grammar naming a rule it never defines and a left-recursive EBNF grammar",
             SG, act=sg_served(sg_ebnf)),
    Scenario("s-schema-enum-huge", S, "default (xgrammar) backend; served, then a JSON-schema "
             "/generate whose one property is an enum of 20,000 strings, and the same schema "
             "as a chat response_format", [*SG, *CHAT], act=sg_served(sg_enum)),
]
