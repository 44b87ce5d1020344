"""The hundred-and-seventy-fifth batch's scenarios (tests/fixtures/corpus/fresh174): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind175.py OUT

Themes: chat templates that refuse what a request sends, and the request fields that steer
templates - what a person meets serving a model whose template is strict. vLLM: a template
calling raise_exception when roles do not alternate (two user turns in a row, as Mistral's
does); a template that needs a variable (`ctx`) only chat_template_kwargs can give, with
requests that send none, send it wrong-typed, send it right, and send an unknown key; a
template that cannot continue a final assistant message (it rewrites message text), with
continue_final_message on it and continue_final_message beside add_generation_prompt both true;
truncate_prompt_tokens at its edges (-1, 0, 1, more than --max-model-len) on chat and completion
requests. SGLang: the same templates - raise_exception on a system message, raise_exception on
a tool-role message (tool results sent back), and the template needing `ctx` with
chat_template_kwargs missing, wrong-typed and right.

Earlier batches already had (not repeated): vLLM's --chat-template raising on a system message
(75th), template syntax errors in tokenizer_config.json and in a --chat-template file (67th,
70th, 75th, 86th), a chat_template that is a number (82nd), a template file in Latin-1 (85th),
a directory or missing file as --chat-template (68th, 130th), a template file on a named pipe
(109th), chat_template_kwargs that the template ignores (153rd), /tokenize with
continue_final_message and add_generation_prompt on a model with no template (128th), the
template render timeout (129th).

The templates are written to /tmp/blind175/ when this table is loaded; what each client saw is
written to /tmp/blind175/client-NAME.txt, for the labeller only. vLLM runs with VLLM_BASE's
settings; SGLang with --device cpu --model-impl transformers. Each scenario sends a plain
completion once the server is up, its chat requests (each fault beside a request that is
well-formed), one more completion, and lets the run go about 8 s.

Recorded 2026-12-07 in 1 invocation (raw1: the four vLLM scenarios, then the three SGLang ones,
in the table's order), taking turns with two other helpers' recorders; each scenario once. About
4m45s of recording (vLLM 40+39+40+40 s, SGLang 43+42+41 s). 7 kept (final files fb101-fb107).
Dropped: none. Close to each other: the three SGLang logs differ only in their source lines and
in how many 400s they show, since SGLang logs no reason for a template's refusal.

What the engines did: every fault here was refused per request, and both engines kept serving;
every log is ready in serving, cut by the recorder. vLLM logs the template's own words at
WARNING (`Chat template rejected the request: Conversation roles must alternate ...`, `'ctx' is
undefined`, `can only concatenate str (not "int") to str`, `'str object' has no attribute
'persona'`, `continue_final_message is set but the final message does not appear in the chat
after applying the chat template!` with the rendered chat) and answers 400 (BadRequestError).
vLLM also renders the template once while building its routes: a template needing a
chat_template_kwargs variable logs `Chat template warmup failed` with a whole WARNING traceback
(jinja2 UndefinedError chained to VLLMValidationError) and starts anyway; templates that refuse
a system message, or do not start with one, make it warn `The chat template requires
system-first ordering` at startup. Some refusals vLLM logs without a word (a bare 400): both
continue_final_message and add_generation_prompt true (`Cannot set both ...`), and
truncate_prompt_tokens 0 (`The decoder prompt cannot be empty`) and 300 over --max-model-len 256
(-1 and 1 are served). SGLang answers every template refusal 400 (type BadRequest, the template's
words to the client) and logs only the access line after a FastAPIDeprecationWarning from
serving_base.py's create_error_response; it does not render the template at startup. Unknown
chat_template_kwargs keys pass silently on both engines. No 500 and no traceback to a client.
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
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario  # noqa: E402

ROOT = Path("/tmp/blind175")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

TEMPLATES = {
    # Mistral-style: roles must alternate user/assistant, starting with user
    "alternate.jinja": (
        "{% for m in messages %}"
        "{% if (m['role'] == 'user') != (loop.index0 % 2 == 0) %}"
        "{{ raise_exception('Conversation roles must alternate user/assistant/user/assistant/...')"
        " }}{% endif %}"
        "{% if m['role'] == 'user' %}[INST] {{ m['content'] }} [/INST]"
        "{% else %}{{ m['content'] }}</s>{% endif %}{% endfor %}"),
    "no-system.jinja": (
        "{% for m in messages %}{% if m['role'] == 'system' %}"
        "{{ raise_exception('System role not supported') }}{% endif %}"
        "{{ m['role'] + ': ' + m['content'] + '\\n' }}{% endfor %}"
        "{% if add_generation_prompt %}assistant:{% endif %}"),
    "no-tool.jinja": (
        "{% for m in messages %}"
        "{% if m['role'] not in ['system', 'user', 'assistant'] %}"
        "{{ raise_exception('Only user, assistant and system roles are supported, got ' + "
        "m['role']) }}{% endif %}"
        "{{ m['role'] + ': ' + (m['content'] or '') + '\\n' }}{% endfor %}"
        "{% if add_generation_prompt %}assistant:{% endif %}"),
    # needs `ctx` (a dict with a string `persona`) from chat_template_kwargs
    "needs-ctx.jinja": (
        "{{ 'persona: ' + ctx.persona + '\\n' }}"
        "{% for m in messages %}{{ m['role'] + ': ' + m['content'] + '\\n' }}{% endfor %}"
        "{% if add_generation_prompt %}assistant:{% endif %}"),
    # rewrites each message's text, so a final assistant message never appears verbatim
    "no-continue.jinja": (
        "{% for m in messages %}<|{{ m['role'] }}|>{{ m['content'] | trim | upper }}<|end|>\n"
        "{% endfor %}{% if add_generation_prompt %}<|assistant|>{% endif %}"),
}


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    for name, text in TEMPLATES.items():
        (ROOT / name).write_text(text)


_setup()


def call(ctx: Ctx, path: str, body: dict, out: list[str], timeout: float = 60) -> None:
    """POST ``body``; the status and the start of the answer go to the client's record."""
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, text = resp.status, resp.read().decode(errors="replace")
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read().decode(errors="replace")
    except (OSError, TimeoutError) as e:
        status, text = 0, repr(e)
    out.append(f"{path} {json.dumps(body)[:300]}\n  -> {status} {text[:400]}\n")


U = {"role": "user", "content": "Say hi."}
A = {"role": "assistant", "content": "Hello there"}
SYS = {"role": "system", "content": "You are terse."}


def chats(requests: list[tuple[list[dict], dict]], ready: str) -> Callable[[Ctx], None]:
    """Once up: a completion, the chat requests (messages, extra fields), a completion."""
    def act(ctx: Ctx) -> None:
        out: list[str] = []
        found = ctx.wait_any([ready], 300)
        if found is not None and ctx.proc is not None and ctx.proc.poll() is None:
            name = ctx.model_name()
            call(ctx, "/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8}, out)
            for msgs, extra in requests:
                call(ctx, "/v1/chat/completions",
                     {"model": name, "messages": msgs, "max_tokens": 8, **extra}, out)
            call(ctx, "/v1/completions", {"model": name, "prompt": "fox 2", "max_tokens": 8},
                 out)
            time.sleep(8)
        else:
            out.append(f"never up (found {found!r})\n")
        (ROOT / f"client-{ctx.log.stem}.txt").write_text("".join(out))
    return act


def truncate_edges(ctx: Ctx) -> None:
    out: list[str] = []
    if ctx.wait_any([READY_LINE], 300) is not None and ctx.proc and ctx.proc.poll() is None:
        name = ctx.model_name()
        long = " ".join(["fox"] * 120)
        for t in (-1, 0, 1, 300):
            call(ctx, "/v1/chat/completions",
                 {"model": name, "messages": [{"role": "user", "content": long}],
                  "max_tokens": 8, "truncate_prompt_tokens": t}, out)
            call(ctx, "/v1/completions", {"model": name, "prompt": long, "max_tokens": 8,
                                          "truncate_prompt_tokens": t}, out)
        call(ctx, "/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8}, out)
        time.sleep(8)
    else:
        out.append("never up\n")
    (ROOT / f"client-{ctx.log.stem}.txt").write_text("".join(out))


def tpl(name: str) -> list[str]:
    return ["--chat-template", str(ROOT / name)]


CTX_REQUESTS = [
    ([U], {}),
    ([U], {"chat_template_kwargs": {"ctx": {"persona": 7}}}),
    ([U], {"chat_template_kwargs": {"ctx": "pirate"}}),
    ([U], {"chat_template_kwargs": {"ctx": {"persona": "pirate"}}}),
    ([U], {"chat_template_kwargs": {"ctx": {"persona": "pirate"}, "no_such_key": True}}),
]

SCENARIOS = [
    Scenario("v-template-roles-alternate", "vllm", "--chat-template whose Jinja calls "
             "raise_exception unless roles alternate user/assistant (Mistral-style); chat "
             "requests with two user turns in a row, a system message first, and a good one",
             [*VLLM_BASE, *tpl("alternate.jinja")],
             act=chats([([U], {}), ([U, U], {}), ([SYS, U], {}), ([U, A, U], {})], READY_LINE)),
    Scenario("v-template-needs-kwarg", "vllm", "--chat-template needing a variable `ctx` only "
             "chat_template_kwargs gives; chat requests without it, with it wrong-typed (persona "
             "a number, ctx a string), right, and beside an unknown key",
             [*VLLM_BASE, *tpl("needs-ctx.jinja")], act=chats(CTX_REQUESTS, READY_LINE)),
    Scenario("v-continue-final-cannot-continue", "vllm", "--chat-template that rewrites message "
             "text (trim|upper), so it cannot continue a final assistant message; chat requests "
             "with continue_final_message (add_generation_prompt false), with both true, and a "
             "plain one",
             [*VLLM_BASE, *tpl("no-continue.jinja")],
             act=chats([([U, A], {"continue_final_message": True, "add_generation_prompt": False}),
                        ([U, A], {"continue_final_message": True, "add_generation_prompt": True}),
                        ([U], {})], READY_LINE)),
    Scenario("v-truncate-prompt-tokens-edges", "vllm", "chat and completion requests of a "
             "120-word prompt with truncate_prompt_tokens -1, 0, 1 and 300 (over --max-model-len "
             "256)", [*VLLM_BASE, *tpl("no-system.jinja")], act=truncate_edges),
    Scenario("s-template-no-system", "sglang", "--chat-template whose Jinja calls "
             "raise_exception on a system message; chat requests with and without one",
             [*SG, *tpl("no-system.jinja")],
             act=chats([([SYS, U], {}), ([U], {}), ([SYS, U], {"stream": False})], SG_READY)),
    Scenario("s-template-no-tool-role", "sglang", "--chat-template whose Jinja calls "
             "raise_exception on any role but system/user/assistant; a chat request sending a "
             "tool result back (role tool), and a plain one",
             [*SG, *tpl("no-tool.jinja")],
             act=chats([([U, {"role": "assistant", "content": "",
                              "tool_calls": [{"id": "call_1", "type": "function",
                                              "function": {"name": "get_time",
                                                           "arguments": "{}"}}]},
                          {"role": "tool", "tool_call_id": "call_1", "content": "12:00"}], {}),
                        ([U], {})], SG_READY)),
    Scenario("s-template-needs-kwarg", "sglang", "--chat-template needing a variable `ctx` "
             "only chat_template_kwargs gives; chat requests without it, with it wrong-typed "
             "(persona a number, ctx a string), right, and beside an unknown key",
             [*SG, *tpl("needs-ctx.jinja")], act=chats(CTX_REQUESTS, SG_READY)),
]
