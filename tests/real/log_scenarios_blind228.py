"""The two-hundred-and-twenty-eighth batch's scenarios (tests/fixtures/corpus/fresh227): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind228.py OUT

Themes: clients written for the legacy OpenAI API and the 0.x SDK sent to a server that is up,
with two plain completions before and after each odd request to show whether it keeps serving.
vLLM: the 0.x SDK's `Completion.create(engine=...)` path, POST /v1/engines/MODEL/completions; a
chat request with the deprecated `functions` list and `function_call` naming one; logit_bias keyed
by words ({"fox": 5, "dog": -100}) instead of token ids; chat history in the old function-calling
shape (an assistant turn with `function_call` and content null, then a `function` role message
with `name`). SGLang: a /v1/completions body naming the model as `engine`, with no `model`; the
same old function-calling history; the same word-keyed logit_bias; a stop list of 200 strings (the
legacy API allowed 4). The chat scenarios give a plain template written to /tmp/blind228/chat.jinja
(the tiny model has none). vLLM runs with VLLM_BASE's settings, SGLang with --device cpu
--model-impl transformers; each scenario first sets SIGINT and SIGQUIT back to their defaults.

Earlier batches already had (not repeated): best_of with n and at the length (94th, 111th), echo
with logprobs on both engines (94th, 128th, 212th), suffix (84th, 86th, 91st, 103rd, 105th, 124th,
168th, 196th), logit_bias naming ids outside the vocabulary or negative (69th, 72nd, 78th, 88th,
SGLang 145th) and values of 1e39 (131st), tool calls with tools / tool_choice and malformed tool
schemas (120th, 136th, 175th, 200th), prompts of token-id lists and empty prompts (128th, 142nd,
212th), vLLM's old plain /generate body (224th).

Recorded 2026-12-07 in one invocation (raw1: all eight, in the table's order, 13:57-14:17,
taking turns with other helpers' recorders); each scenario once. About 9 minutes of recording
(vLLM 63+66+52+53 s, SGLang 106+72+69+67 s), most of the 20 minutes spent waiting for the lock.
All 8 kept (final files he101-he108), none dropped, none re-recorded. Four of the faults never
show as anything but an old client served (s-engine-field-no-model, v-functions-field,
s-function-role-messages, v-function-role-messages: each request answered 200 without a word):
kept as fair logs of the ground, labelled ready.

What the engines did. Every run came up, every odd request was answered or refused, and the
plain completions after it were answered 200: all eight logs end ready in serving, none crashed
or hung. vLLM 0.32.0 answers the 0.x SDK's /v1/engines/MODEL/completions 404 (its route list has
no /v1/engines; the model id being a path, the URL holds a double slash); it serves the chat with
`functions` / `function_call` and the old `function`-role history 200 without a warning (the
deprecated fields are ignored, no tool call forced); it refuses word-keyed logit_bias with a bare
`400 Bad Request` access line and nothing of its own. SGLang 0.5.23 serves a body with `engine`
and no `model` like any other completion (the field is optional), takes the old function-calling
history as a 65-token prefill and answers 200, and refuses both word-keyed logit_bias and the
200-string stop list with a 400 whose only other trace is starlette's FastAPIDeprecationWarning
(ORJSONResponse) at serving_completions.py's `create_error_response` - the error's text is not
logged.
"""

from __future__ import annotations

import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind228")
SG_READY = "The server is fired up and ready to roll!"
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
FUNCS = [{"name": "get_weather", "description": "Current weather in a city",
          "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                         "required": ["city"]}}]


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)


_setup()
CHAT = ["--chat-template", str(CHAT_TEMPLATE)]


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def legacy(ready: str, bad: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    """Up: two plain completions, the old client's request, two plain completions, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([ready], 300) != ready or ctx.proc is None or ctx.proc.poll() is not None:
            linger(ctx, 5)
            return
        ctx.complete(2, max_tokens=8)
        bad(ctx)
        time.sleep(2)
        ctx.complete(2, max_tokens=8)
        linger(ctx, 12)
    return act


# --- the old clients' requests ------------------------------------------------------------------

def engines_path(ctx: Ctx) -> None:
    """openai 0.x: Completion.create(engine=ID, ...) posts to /v1/engines/ID/completions."""
    name = ctx.model_name()
    ctx.post(f"/v1/engines/{name}/completions", {"prompt": "The quick brown fox",
             "max_tokens": 8, "temperature": 0.7})


def engine_field(ctx: Ctx) -> None:
    """An old client's body naming the model as `engine` (no `model`) on /v1/completions."""
    ctx.post("/v1/completions", {"engine": ctx.model_name(), "prompt": "The quick brown fox",
             "max_tokens": 8, "temperature": 0.7})


def functions_field(ctx: Ctx) -> None:
    """The deprecated chat `functions` list with `function_call` naming one."""
    ctx.post("/v1/chat/completions", {"model": ctx.model_name(), "messages": [
             {"role": "user", "content": "What is the weather in Paris?"}],
             "functions": FUNCS, "function_call": {"name": "get_weather"}, "max_tokens": 16})


def function_role_messages(ctx: Ctx) -> None:
    """The old function-calling history: an assistant turn with `function_call` and no content,
    then a `function` role message with `name`."""
    ctx.post("/v1/chat/completions", {"model": ctx.model_name(), "messages": [
             {"role": "user", "content": "What is the weather in Paris?"},
             {"role": "assistant", "content": None,
              "function_call": {"name": "get_weather", "arguments": "{\"city\": \"Paris\"}"}},
             {"role": "function", "name": "get_weather", "content": "{\"temp\": 21}"}],
             "max_tokens": 16})


def logit_bias_words(ctx: Ctx) -> None:
    """logit_bias keyed by words (the tokens' text) instead of token ids."""
    ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": "The quick brown fox",
             "max_tokens": 8, "logit_bias": {"fox": 5, "dog": -100}})


def stop_long_list(ctx: Ctx) -> None:
    """A stop list of 200 strings (the legacy API allowed 4)."""
    ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": "The quick brown fox",
             "max_tokens": 16, "stop": [f"stop-{i}" for i in range(200)]})


# --- the table ----------------------------------------------------------------------------------

def v(name: str, what: str, bad: Callable[[Ctx], None], *extra: str) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *extra], before=dfl_signals,
                    act=legacy(READY_LINE, bad))


def s(name: str, what: str, bad: Callable[[Ctx], None], *extra: str) -> Scenario:
    return Scenario(name, "sglang", what, ["--device", "cpu", "--model-impl", "transformers",
                    *extra], before=dfl_signals, act=legacy(SG_READY, bad))


PLAIN = "two plain completions before and after"

SCENARIOS = [
    v("v-engines-path", "the openai 0.x SDK's Completion.create(engine=...) path: POST "
      f"/v1/engines/MODEL/completions; {PLAIN}", engines_path),
    s("s-engine-field-no-model", "an old client's /v1/completions body naming the model as "
      f"`engine` and giving no `model`; {PLAIN}", engine_field),
    v("v-functions-field", "a chat request with the deprecated `functions` list and "
      f"`function_call` naming one (a plain chat template given); {PLAIN}", functions_field,
      *CHAT),
    s("s-function-role-messages", "chat history in the old function-calling shape: an assistant "
      "turn with `function_call` and content null, then a `function` role message with `name` (a "
      f"plain chat template given); {PLAIN}", function_role_messages, *CHAT),
    v("v-logit-bias-word-keys", "logit_bias keyed by words ({'fox': 5, 'dog': -100}) instead of "
      f"token ids; {PLAIN}", logit_bias_words),
    s("s-logit-bias-word-keys", "logit_bias keyed by words ({'fox': 5, 'dog': -100}) instead of "
      f"token ids on /v1/completions; {PLAIN}", logit_bias_words),
    v("v-function-role-messages", "chat history in the old function-calling shape: an assistant "
      "turn with `function_call` and content null, then a `function` role message with `name` (a "
      f"plain chat template given); {PLAIN}", function_role_messages, *CHAT),
    s("s-stop-long-list", "a /v1/completions request whose stop list holds 200 strings (the "
      f"legacy API allowed 4); {PLAIN}", stop_long_list),
]
