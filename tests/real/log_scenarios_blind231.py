"""The two-hundred-and-thirty-first batch's scenarios (tests/fixtures/corpus/fresh230): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind231.py OUT

Themes: tokenization and detokenization options per request, sent to a server that is up, with
two plain completions before and after each odd request to show whether it keeps serving - what a
client that controls how text becomes tokens and back meets. vLLM: /detokenize of an empty token
list; /detokenize of a list of 400000 valid ids; a completion whose prompt is token ids 360-375
(rows the tiny Llama's 512-row embedding has, past its tokenizer's 353 tokens) with echo and
logprobs; a streamed completion asking for raw tokens (return_tokens_as_token_ids, logprobs 3,
skip_special_tokens and spaces_between_special_tokens false, include_stop_str_in_output with stop
'</s>', stream_options include_usage and continuous_usage_stats). SGLang: /v1/detokenize of 400000
valid ids; native /generate with return_text_in_logprobs and token_ids_logprob naming ids past the
tokenizer (400, 511); /generate of a prompt holding `<s>` / `</s>` as text with
skip_special_tokens and spaces_between_special_tokens false, no_stop_trim and stop ['</s>', 'fox'];
a chat message whose content is a list of parts of types the chat API lacks or with a wrong value
type (`input_text`, a `text` part whose text is 42, `refusal`). The chat scenario gives
--chat-template /tmp/blind231/chat.jinja (written when this table is loaded; the tiny model has
none). vLLM runs with VLLM_BASE's settings, SGLang with --device cpu --model-impl transformers;
each scenario first sets SIGINT and SIGQUIT back to their defaults. What each client saw is written
to /tmp/blind231/client-PORT.txt (its first line the log's name), for the labeller only.

Earlier batches already had (not repeated): /detokenize of ids outside the vocabulary and a long
/tokenize (89th), /detokenize given strings and /tokenize of chat messages without a template
(128th), SGLang's /v1/detokenize of a negative id, of an id past the vocabulary and of strings
(128th); echo with logprobs, prompt_logprobs, n and best_of (94th, 128th, 212th), prompt_logprobs
past the limit (94th, 149th); token-id prompts past the 512-row embedding and holding -1 (69th,
78th), SGLang input_ids negative or a float (189th); truncate_prompt_tokens -1, 0, 1 and past
--max-model-len (175th); stop [""] with include_stop_str_in_output and with no_stop_trim (170th);
stream_options on non-streamed requests and streamed logprobs past max_logprobs (152nd), streamed
completions with logprobs and stream_options include_usage (128th); skip_special_tokens false with
stop "<|im_end|>" on a fine-tune's special tokens (222nd); top_logprobs_num past the vocabulary
(152nd); image, audio, video and file content parts (74th, 128th, 147th, 167th, 197th).

Recorded 2026-12-07 in one invocation (raw1: the eight scenarios in the table's order, vLLM and
SGLang alternating), taking turns with other helpers' recorders for the shared lock; each scenario
once. About 8m40s of recording (vLLM 60+59+52+57 s, SGLang 69+65+64+93 s). 8 kept (final files
hh101-hh108). Dropped: none. Six of the eight faults never show in their logs (the engines took
the odd request without a word), kept as fair ready logs of the ground.

What the engines did. Every server kept serving; every log is ready in serving, cut by the
recorder, and no log crashed or hung. vLLM: /detokenize of an empty list and of 400000 ids are
plain `200 OK` access lines (an empty prompt back; the long text back within a second); the
streamed raw-token completion is a `200 OK` with nothing logged of its options (the client got
`token_id:415` tokens and usage). The echo of a token-id prompt past the tokenizer is the one
error: `500 Internal Server Error`, uvicorn's `Exception in ASGI application` and a traceback
through `request_output_to_completion_response` ending `assert prompt_text is not None` /
`AssertionError` (the client an empty 500 message), the next completions 200. SGLang: /v1/detokenize
of 400000 ids, /generate with return_text_in_logprobs over ids past the tokenizer (empty or
replacement-character texts to the client) and /generate with skip_special_tokens false and
no_stop_trim (`<s>` texts kept) are `200 OK` after their Prefill/Decode batch lines; the chat
request with odd content parts is a bare `400 Bad Request` after starlette's
FastAPIDeprecationWarning (the client got 79 pydantic validation errors; the log none of them).
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

ROOT = Path("/tmp/blind231")
SG_READY = "The server is fired up and ready to roll!"
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
# ids inside the tiny Llama's 512 embedding rows but past its tokenizer's 353 tokens
GAP_IDS = list(range(360, 376))


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)


_setup()
CHAT = ["--chat-template", str(CHAT_TEMPLATE)]


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def call(ctx: Ctx, path: str, body: dict, timeout: float = 60) -> None:
    """POST ``body``; what the client saw goes to /tmp/blind231/client-PORT.txt (labeller only)."""
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            status, text = resp.status, resp.read(4000).decode(errors="replace")
    except urllib.error.HTTPError as e:
        status, text = e.code, e.read(4000).decode(errors="replace")
    except (OSError, TimeoutError) as e:
        status, text = 0, repr(e)
    with open(ROOT / f"client-{ctx.port}.txt", "a") as f:
        f.write(f"{time.strftime('%H:%M:%S')} {path} -> {status}\n{text[:1500]}\n\n")


def odd(ready: str, bad: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    """Up: two plain completions, the odd request, two plain completions, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([ready], 300) != ready or ctx.proc is None or ctx.proc.poll() is not None:
            linger(ctx, 5)
            return
        (ROOT / f"client-{ctx.port}.txt").write_text(f"{ctx.log.name}\n")
        ctx.complete(2, max_tokens=8)
        bad(ctx)
        time.sleep(2)
        ctx.complete(2, max_tokens=8)
        linger(ctx, 12)
    return act


# --- the odd requests ---------------------------------------------------------------------------

def v_detokenize_empty(ctx: Ctx) -> None:
    call(ctx, "/detokenize", {"model": ctx.model_name(), "tokens": []})


def v_detokenize_huge(ctx: Ctx) -> None:
    call(ctx, "/detokenize", {"model": ctx.model_name(), "tokens": [5, 17, 42, 99] * 100000},
         timeout=120)


def v_echo_gap_ids(ctx: Ctx) -> None:
    call(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": GAP_IDS, "echo": True,
                                  "max_tokens": 8, "logprobs": 1})


def v_raw_token_stream(ctx: Ctx) -> None:
    call(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": "The quick brown fox",
                                  "max_tokens": 24, "stream": True, "logprobs": 3,
                                  "return_tokens_as_token_ids": True,
                                  "skip_special_tokens": False,
                                  "spaces_between_special_tokens": False,
                                  "include_stop_str_in_output": True, "stop": ["</s>"],
                                  "stream_options": {"include_usage": True,
                                                     "continuous_usage_stats": True}})


def s_detokenize_huge(ctx: Ctx) -> None:
    call(ctx, "/v1/detokenize", {"model": ctx.model_name(),
                                 "tokens": [5, 17, 42, 99] * 100000}, timeout=120)


def s_logprob_gap_text(ctx: Ctx) -> None:
    call(ctx, "/generate", {"text": "The quick brown fox", "return_logprob": True,
                            "return_text_in_logprobs": True, "top_logprobs_num": 3,
                            "token_ids_logprob": [5, 400, 511], "logprob_start_len": 0,
                            "sampling_params": {"max_new_tokens": 8}})


def s_raw_special_tokens(ctx: Ctx) -> None:
    call(ctx, "/generate", {"text": "<s> The quick </s> brown fox </s>",
                            "sampling_params": {"max_new_tokens": 24, "skip_special_tokens": False,
                                                "spaces_between_special_tokens": False,
                                                "no_stop_trim": True, "stop": ["</s>", "fox"],
                                                "min_new_tokens": 4}})


def s_chat_part_types(ctx: Ctx) -> None:
    call(ctx, "/v1/chat/completions", {"model": ctx.model_name(), "max_tokens": 8, "messages": [
         {"role": "user", "content": [{"type": "input_text", "text": "Hello there"},
                                      {"type": "text", "text": 42},
                                      {"type": "refusal", "refusal": "no"}]}]})


# --- the table ----------------------------------------------------------------------------------

def v(name: str, what: str, bad: Callable[[Ctx], None], *extra: str) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *extra], before=dfl_signals,
                    act=odd(READY_LINE, bad))


def s(name: str, what: str, bad: Callable[[Ctx], None], *extra: str) -> Scenario:
    return Scenario(name, "sglang", what, ["--device", "cpu", "--model-impl", "transformers",
                    *extra], before=dfl_signals, act=odd(SG_READY, bad))


PLAIN = "two plain completions before and after"

SCENARIOS = [
    v("v-detokenize-empty-list", f"POST /detokenize with an empty token list; {PLAIN}",
      v_detokenize_empty),
    s("s-detokenize-huge-list", "POST /v1/detokenize with a list of 400000 valid token ids; "
      f"{PLAIN}", s_detokenize_huge),
    v("v-echo-ids-past-tokenizer", "a completion whose prompt is token ids 360-375 (inside the "
      "512-row embedding, past the tokenizer's 353 tokens) with echo and logprobs 1; "
      f"{PLAIN}", v_echo_gap_ids),
    s("s-logprob-text-ids-past-tokenizer", "/generate with return_logprob, "
      "return_text_in_logprobs, top_logprobs_num 3 and token_ids_logprob [5, 400, 511] (ids "
      f"past the tokenizer's 353 tokens); {PLAIN}", s_logprob_gap_text),
    v("v-detokenize-huge-list", "POST /detokenize with a list of 400000 valid token ids; "
      f"{PLAIN}", v_detokenize_huge),
    s("s-raw-special-tokens-no-stop-trim", "/generate of a prompt holding <s> and </s> as text "
      "with skip_special_tokens false, spaces_between_special_tokens false, no_stop_trim and "
      f"stop ['</s>', 'fox']; {PLAIN}", s_raw_special_tokens),
    v("v-raw-token-stream", "a streamed completion with logprobs 3, return_tokens_as_token_ids, "
      "skip_special_tokens false, spaces_between_special_tokens false, "
      "include_stop_str_in_output with stop '</s>' and stream_options include_usage and "
      f"continuous_usage_stats; {PLAIN}", v_raw_token_stream),
    s("s-chat-odd-part-types", "a chat message whose content is a list of parts of types the "
      "chat API lacks or with the wrong value type (an `input_text` part, a `text` part whose "
      f"text is 42, a `refusal` part; a plain chat template given); {PLAIN}",
      s_chat_part_types, *CHAT),
]
