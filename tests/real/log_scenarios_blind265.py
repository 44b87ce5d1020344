"""The two-hundred-and-sixty-fifth batch's scenarios (tests/fixtures/corpus/fresh264): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind265.py OUT

Themes: chat templates as people supply them, a new round - a --chat-template file, a template in
tokenizer_config.json or a chat_template.jinja beside the model, written by hand or copied from
another family - with a plain chat request before and after each odd request where the server
comes up. vLLM (VLLM_BASE's settings): a template that `{% include %}`s a part it was copied
without; --chat-template-content-format openai against a template that concatenates message
content as a string; a template whose nested loops repeat every message 300,000 times (a prompt
of megabytes); a template copied from a tool-calling family that reads tools[0] whether or not
tools are sent. SGLang (--device cpu --model-impl transformers): a template whose macro calls
itself without end; an empty (0-byte) chat_template.jinja beside the model; chat_template_kwargs
carrying keys the server sets itself (add_generation_prompt false, tokenize false); a base
model's tokenizer_config.json template that calls raise_exception on every render. The
templates are written under /tmp/blind265/ when this table is loaded (the tiny model has none).

Earlier batches already had (not repeated): template syntax errors in tokenizer_config.json, in a
--chat-template file and in a chat_template.jinja beside the model (67th, 70th, 75th, 86th), a
chat_template that is a number (82nd), lists of named templates with no default (92nd, 238th), a
filter Jinja lacks (92nd), templates in Latin-1 (85th, 160th), an ASCII locale reading a UTF-8
template (93rd), a directory, a missing file, a root-only file and a named pipe as --chat-template
(68th, 130th, 109th), the template file removed while serving (99th), a processor-style
chat_template.json (112th), --chat-template-content-format given an unknown value (116th), the
render timeout (129th), /tokenize of chat messages without a template (128th), templates raising
on roles (two user turns, a system message, a tool message), a template needing a variable only
chat_template_kwargs gives (missing, wrong-typed, unknown keys), continue_final_message on a
template that cannot continue and beside add_generation_prompt (175th), chat_template_kwargs a
template ignores (153rd), a prefill continued on SGLang (239th), a template without a tool
section under a tool parser (259th).

Recorded 2026-12-07 in one invocation (raw1: all eight, in the table's order, 20:45-20:59,
taking turns for the lock with other helpers' recorders); each scenario once. Seconds per
scenario: vLLM 35, 45, 46, 45; SGLang 48, 48, 50, 52. All eight kept (final files
ip101-ip108), none dropped, none re-recorded. s-empty-chat-template-jinja and
s-template-always-raises show nothing of their fault but a startup line and bare 400s: kept as
fair logs of the ground, labelled ready.

What the engines did. vLLM renders the chat template once at startup (`Chat template warmup
failed`, at WARNING, with a traceback) and starts anyway - except for the include:
`TypeError: no loader for this environment specified` is caught in the warmup, then raised
uncaught when the Anthropic route renders the template again (anthropic/serving.py
`_detect_merge_inline_system`), and the API server dies after `init engine ... took` (ip101,
crashed, exit 1). With content format openai every chat, string content too, is refused
`Chat template rejected the request: can only concatenate str (not "list") to str`, 400
(ip102); the enormous template's warmup ends `your prompt contains 2100005 input tokens`, and
each chat is a bare 400 (ip103); tools[0] without tools gives `UndefinedError: None has no
element 0` in the warmup and `Chat template rejected the request: None has no element 0`, 400,
per plain chat (ip104). SGLang does not render the template at startup: every scenario gets to
`The server is fired up and ready to roll!`. The recursive macro gives `Error in request:
maximum recursion depth exceeded` with two chained ~1,400-line RecursionError tracebacks and a
500 per chat (ip105); the empty chat_template.jinja reads as `No chat template found,
defaulting to 'string' content format` and every chat is a bare 400 (ip106); the reserved keys
give `Error in request: 'add_generation_prompt'` / `'tokenize'` (`apply_chat_template() got
multiple values for keyword argument ...`, then KeyError) and a 500 each while plain chats are
served 200 (ip107); the always-raising template gives bare 400s (ip108). Crashed: ip101; ready
in serving: the other seven. None hung.
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, json_edit, linger  # noqa: E402

ROOT = Path("/tmp/blind265")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

# the plain part every template here ends with: each message in turn, then the assistant's cue
BODY = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
        "{% if add_generation_prompt %}assistant:{% endif %}")
TEMPLATES = {
    # a template split in parts as some repositories ship it, copied without its include
    "include/chat.jinja": "{% include 'system_prompt.jinja' %}\n" + BODY,
    # written for string content only: concatenates the content as a string
    "concat.jinja": ("{% for m in messages %}{{ m['role'] + ': ' + m['content'] + '\\n' }}"
                     "{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}"),
    # an 'emphasis' loop left in: every message repeated 300,000 times (megabytes of prompt)
    "enormous.jinja": ("{% for m in messages %}{{ m['role'] }}: {% for i in range(1000) %}"
                       "{% for j in range(300) %}{{ m['content'] }} {% endfor %}{% endfor %}\n"
                       "{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}"),
    # copied from a tool-calling family: reads tools[0] whether or not tools were sent
    "tools-first.jinja": ("{{ 'Tool: ' + tools[0]['function']['name'] + '\\n' }}" + BODY),
    # a macro that calls itself with no end (Jinja's only way to loop forever)
    "recursive.jinja": ("{% macro expand(n) %}{{ expand(n + 1) }}{% endmacro %}"
                        "{{ expand(0) }}" + BODY),
    "plain.jinja": BODY,
}


def _setup() -> None:
    for rel, text in TEMPLATES.items():
        p = ROOT / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)


_setup()


def tpl(rel: str) -> list[str]:
    return ["--chat-template", str(ROOT / rel)]


def empty_jinja(work: Path) -> Path:
    """The model folder with a chat_template.jinja of 0 bytes beside it (a download cut)."""
    d = copy_model(work, "empty-chat-template-jinja")
    (d / "chat_template.jinja").write_text("")
    return d


# a base model's tokenizer_config.json whose template refuses every chat
always_raises = json_edit("template-always-raises", "tokenizer_config.json",
                          chat_template="{{ raise_exception('This is a base model: chat is not "
                                        "supported. Use /v1/completions.') }}")

PLAIN = [{"role": "user", "content": "Say hello."}]
PARTS = [{"role": "user", "content": [{"type": "text", "text": "Say hello."}]}]
WEATHER = {"type": "function", "function": {
    "name": "get_weather", "description": "Current weather in a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}


def request(ctx: Ctx, path: str, body: dict, timeout: float = 120) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def chat(ctx: Ctx, name: str, messages: list | None = None, **extra: object) -> int:
    body = {"model": name, "messages": messages or PLAIN, "max_tokens": 8, **extra}
    return request(ctx, "/v1/chat/completions", body)


def served(ready: str, steps: list[dict]) -> Callable[[Ctx], None]:
    """Once the ready line is logged: for each odd request a plain chat before it, one after
    the last; then a pause (one stats line). If the run ends or never gets ready, until it
    ends."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(ready, 240):
            linger(ctx, 20)
            return
        name = ctx.model_name()
        for extra in steps:
            if ctx.proc is not None and ctx.proc.poll() is not None:
                return
            chat(ctx, name)
            chat(ctx, name, **extra)
        if ctx.proc is not None and ctx.proc.poll() is None:
            chat(ctx, name)
            linger(ctx, 12)
    return act


SCENARIOS = [
    Scenario("v-template-include-missing", "vllm", "--chat-template file that includes "
             "'system_prompt.jinja' ({% include %}), copied without the part it includes",
             [*VLLM_BASE, *tpl("include/chat.jinja")],
             act=served(READY_LINE, [{}])),
    Scenario("v-content-format-openai-concat", "vllm", "--chat-template-content-format openai "
             "with a template that concatenates message content as a string, string and "
             "list-of-parts content",
             [*VLLM_BASE, *tpl("concat.jinja"), "--chat-template-content-format", "openai"],
             act=served(READY_LINE, [{"messages": PARTS}])),
    Scenario("v-template-enormous-render", "vllm", "--chat-template whose loop repeats every "
             "message 300,000 times (a prompt of megabytes)",
             [*VLLM_BASE, *tpl("enormous.jinja")],
             act=served(READY_LINE, [{}])),
    Scenario("v-template-tools-unconditional", "vllm", "--chat-template copied from a "
             "tool-calling family that reads tools[0] whether or not the request sends tools",
             [*VLLM_BASE, *tpl("tools-first.jinja")],
             act=served(READY_LINE, [{"tools": [WEATHER]}])),
    Scenario("s-template-recursive-macro", "sglang", "--chat-template whose macro calls itself "
             "without end (a render that never finishes by itself)",
             [*SG, *tpl("recursive.jinja")],
             act=served(SG_READY, [{}])),
    Scenario("s-empty-chat-template-jinja", "sglang", "the model folder's chat_template.jinja "
             "is empty (0 bytes), no --chat-template",
             [*SG], model=empty_jinja,
             act=served(SG_READY, [{}])),
    Scenario("s-kwargs-reserved-keys", "sglang", "chat_template_kwargs carrying keys the "
             "server sets itself (add_generation_prompt false, tokenize false) per request",
             [*SG, *tpl("plain.jinja")],
             act=served(SG_READY, [{"chat_template_kwargs": {"add_generation_prompt": False}},
                                   {"chat_template_kwargs": {"tokenize": False}}])),
    Scenario("s-template-always-raises", "sglang", "tokenizer_config.json's chat_template of a "
             "base model that calls raise_exception on every render, chat requests",
             [*SG], model=always_raises,
             act=served(SG_READY, [{}])),
]
