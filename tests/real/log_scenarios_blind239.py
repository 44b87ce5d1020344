"""The two-hundred-and-thirty-ninth batch's scenarios (tests/fixtures/corpus/fresh238): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind239.py OUT

Themes: conversations as chat clients and agent frameworks build the `messages` list, sent to a
server that is up, each odd conversation between a plain completion and a well-formed chat
request before it and the same after it, to show whether the server keeps serving. vLLM: two
system messages in a row (a front end adding its own system prompt before the user's); a last
user turn whose content is null, with no tool calls (an empty input box sent as null); a `tool`
message whose tool_call_id matches no tool call (no assistant turn with tool_calls before it);
a history of 400 short alternating turns that was never trimmed, against --max-model-len 256.
SGLang: roles written in other casing ('System', 'User', 'ASSISTANT'); an assistant prefill
continued with continue_final_message true and add_generation_prompt false; a system message
last, after the user's turn (an agent appending its instruction); a history opening with the
assistant's greeting before the user's first turn (a chat widget's welcome message). Both
engines get a ChatML-style --chat-template written to /tmp/blind239/chat.jinja when this table is
loaded (the tiny model has none; the template renders every message in turn and raises on
nothing). vLLM runs with VLLM_BASE's settings, SGLang with --device cpu --model-impl
transformers; each scenario first sets SIGINT and SIGQUIT back to their defaults. What each
client saw is written to /tmp/blind239/client-PORT.txt (its lines naming the log), for the
labeller only.

Earlier batches already had (not repeated): templates raising on two user turns in a row, on a
system message and on a tool-role message, chat_template_kwargs missing, wrong-typed or unknown
for a template that needs them, continue_final_message on a template that cannot continue and
beside add_generation_prompt true (175th, vLLM for prefill); /tokenize with
continue_final_message on a model with no template (128th); chat_template_kwargs a template
ignores (153rd); histories with assistant tool calls whose arguments are not JSON (136th); the old
function-calling history (assistant function_call with content null, a `function` role) (228th);
LLM.chat given messages without a role (127th); content parts of unknown types (231st).

Recorded 2026-12-07 in one invocation (raw1: all eight, in the table's order, 15:08-15:25,
taking turns with other helpers' recorders); each scenario once. About 8 minutes of recording
(vLLM 62+53+50+51 s, SGLang 82+68+70+51 s), the rest of the 17 minutes spent waiting for the
lock. All 8 kept (final files hp101-hp108), none dropped, none re-recorded. Five of the faults
never show as anything but a request served (v-two-system-messages, s-assistant-prefill,
v-orphan-tool-message, s-system-last, s-assistant-first: answered 200 without a word): kept as
fair logs of the ground, labelled ready.

What the engines did. Every run came up, every odd conversation was answered or refused, and the
plain requests after it were answered 200: all eight logs end ready in serving, none crashed or
hung. vLLM 0.32.0 renders two system messages and an orphan tool message through the template and
answers 200 without a warning; it refuses a null user content (pydantic validation, 19 errors, in
the response only) and the 400-turn history (the client is told the maximum context length is 256
tokens) each with a bare `400 Bad Request` access line and nothing of its own. SGLang 0.5.23
serves the assistant prefill (continue_final_message), the system-last history and the
assistant-first history 200 after an ordinary `Prefill batch` line, and refuses the capitalised
roles with a 400 whose only other trace is starlette's FastAPIDeprecationWarning (ORJSONResponse)
from its exception handler - the validation error (role must be one of 'system', 'assistant',
...) is not logged.
"""

from __future__ import annotations

import json
import signal
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind239")
SG_READY = "The server is fired up and ready to roll!"
CHAT_TEMPLATE = ROOT / "chat.jinja"
# A ChatML-style template as many chat models ship it: every message rendered in turn.
CHAT_JINJA = ("{% for m in messages %}<|im_start|>{{ m['role'] }}\n{{ m['content'] }}<|im_end|>\n"
              "{% endfor %}{% if add_generation_prompt %}<|im_start|>assistant\n{% endif %}")


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)


_setup()
CHAT = ["--chat-template", str(CHAT_TEMPLATE)]


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def chat(ctx: Ctx, body: dict, label: str) -> None:
    """POST a chat request; what the client saw goes to ROOT/client-PORT.txt (labeller only)."""
    body = {"model": ctx.model_name(), "max_tokens": 12, **body}
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}/v1/chat/completions",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=90) as resp:
            got = f"{resp.status} {resp.read()[:600]!r}"
    except urllib.error.HTTPError as e:
        got = f"{e.code} {e.read()[:600]!r}"
    except (OSError, TimeoutError) as e:
        got = f"error {e!r}"
    with (ROOT / f"client-{ctx.port}.txt").open("a") as f:
        f.write(f"{ctx.log.name} {label}: {got}\n")


GOOD = {"messages": [{"role": "system", "content": "You are a helpful assistant."},
                     {"role": "user", "content": "Tell me about foxes."}]}


def conversation(ready: str, odd: dict) -> Callable[[Ctx], None]:
    """Up: a completion and a good chat request, the odd conversation, then a good chat request
    and a completion again, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([ready], 300) != ready or ctx.proc is None or ctx.proc.poll() is not None:
            linger(ctx, 5)
            return
        ctx.complete(1, max_tokens=8)
        chat(ctx, GOOD, "good-before")
        chat(ctx, odd, "odd")
        time.sleep(2)
        chat(ctx, GOOD, "good-after")
        ctx.complete(1, max_tokens=8)
        linger(ctx, 12)
    return act


# --- the odd conversations ----------------------------------------------------------------------

TWO_SYSTEM = {"messages": [
    {"role": "system", "content": "You are a helpful assistant."},
    {"role": "system", "content": "Always answer in French."},
    {"role": "user", "content": "Tell me about foxes."}]}

NULL_CONTENT = {"messages": [
    {"role": "user", "content": "Tell me about foxes."},
    {"role": "assistant", "content": "Foxes are small canids."},
    {"role": "user", "content": None}]}

ORPHAN_TOOL = {"messages": [
    {"role": "user", "content": "What is the weather in Paris?"},
    {"role": "tool", "tool_call_id": "call_does_not_exist", "content": "{\"temp\": 21}"},
    {"role": "user", "content": "So, should I take a coat?"}]}

LONG_HISTORY = {"messages": [
    {"role": "user" if i % 2 == 0 else "assistant", "content": f"turn {i} ok"}
    for i in range(400)] + [{"role": "user", "content": "Summarise our chat."}]}

ROLE_CASING = {"messages": [
    {"role": "System", "content": "You are a helpful assistant."},
    {"role": "User", "content": "Tell me about foxes."},
    {"role": "ASSISTANT", "content": "Foxes are small canids."},
    {"role": "User", "content": "And wolves?"}]}

PREFILL = {"messages": [
    {"role": "user", "content": "Write a JSON object describing a fox."},
    {"role": "assistant", "content": "{\"name\": \""}],
    "continue_final_message": True, "add_generation_prompt": False}

SYSTEM_LAST = {"messages": [
    {"role": "user", "content": "Tell me about foxes."},
    {"role": "assistant", "content": "Foxes are small canids."},
    {"role": "user", "content": "And wolves?"},
    {"role": "system", "content": "Answer in one sentence."}]}

ASSISTANT_FIRST = {"messages": [
    {"role": "assistant", "content": "Hi! How can I help you today?"},
    {"role": "user", "content": "Tell me about foxes."}]}


# --- the table ----------------------------------------------------------------------------------

def v(name: str, what: str, odd: dict) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *CHAT], before=dfl_signals,
                    act=conversation(READY_LINE, odd))


def s(name: str, what: str, odd: dict) -> Scenario:
    return Scenario(name, "sglang", what, ["--device", "cpu", "--model-impl", "transformers",
                    *CHAT], before=dfl_signals, act=conversation(SG_READY, odd))


PLAIN = ("a completion and a good chat request before and after (a ChatML-style template "
         "given)")

SCENARIOS = [
    v("v-two-system-messages", "a chat request with two system messages in a row (a front end "
      f"adding its own system prompt to the user's); {PLAIN}", TWO_SYSTEM),
    s("s-role-casing", "a chat history whose roles are written 'System', 'User', 'ASSISTANT' "
      f"(a client capitalising roles); {PLAIN}", ROLE_CASING),
    v("v-null-user-content", "a chat history whose last user turn has content null and no tool "
      f"calls (a front end sending an empty input box as null); {PLAIN}", NULL_CONTENT),
    s("s-assistant-prefill", "an assistant prefill ('{\"name\": \"') with continue_final_message "
      f"true and add_generation_prompt false; {PLAIN}", PREFILL),
    v("v-orphan-tool-message", "a `tool` message whose tool_call_id matches no tool call (no "
      f"assistant turn with tool_calls before it); {PLAIN}", ORPHAN_TOOL),
    s("s-system-last", "a chat history whose system message comes last, after the user's "
      f"turn (an agent appending its instruction); {PLAIN}", SYSTEM_LAST),
    v("v-long-history", "a chat history of 400 short alternating turns (a client that never "
      f"trims its history) against --max-model-len 256; {PLAIN}", LONG_HISTORY),
    s("s-assistant-first", "a chat history opening with the assistant's greeting before the "
      f"user's first turn (a chat widget's welcome message kept in the history); {PLAIN}",
      ASSISTANT_FIRST),
]
