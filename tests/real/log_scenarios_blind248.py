"""The two-hundred-and-forty-eighth batch's scenarios (tests/fixtures/corpus/fresh247): faults
chosen, recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind248.py OUT

Themes: the context window at its edges, set at launch and asked for per request, with two plain
completions before and two after each odd request to show whether the server keeps serving.
vLLM: --max-model-len 0 (meant as "the model's own"); --max-model-len 32k (a unit suffix, over
the model's 2048 positions, no VLLM_ALLOW_LONG_MAX_MODEL_LEN); a chat request giving both
max_tokens 4 and max_completion_tokens 64; a prompt of exactly 256 token ids (the whole
--max-model-len 256) with no max_tokens. SGLang: a completion with max_tokens -1; a chat request
giving both max_tokens 4 and max_completion_tokens 64; a completion with truncate_prompt_tokens
5000, past the model's 2048-token context; --context-length 256 and a prompt of exactly 256
token ids with no max_tokens. The chat scenarios give --chat-template /tmp/blind248/chat.jinja
(written when this table is loaded; the tiny model has none). vLLM runs with VLLM_BASE's
settings (its --max-model-len replaced where a scenario gives one), SGLang with --device cpu
--model-impl transformers; each scenario first sets SIGINT and SIGQUIT back to their defaults.
What each client saw is written to /tmp/blind248/client-PORT.txt (its first line the log's
name), for the labeller only.

Earlier batches already had (not repeated): vLLM --max-model-len over the model's positions
without the variable (8192, 62nd; 4096 in a restart loop, 135th; 100000 split by a wrapper), with
VLLM_ALLOW_LONG_MAX_MODEL_LEN (4096 and a 3,000-token prompt, 71st; eight million, 115th) and
with it misspelt (114th); --max-model-len -5, 1x, -1, 12, 64, an en dash, an unset variable, 1e3
in YAML; SGLang --context-length 0, 4k, 4, 100000, 4096 with the variable misspelt, 8192 with
SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN, 65536 over a 4096-token pool; --max-num-batched-tokens
and --chunked-prefill-size below the context (64, 100, 32, 16, 37, 1, 0, -1, big); token-id
prompts of 255 + 1 and 256 + 1 at vLLM's --max-model-len (142nd); truncate_prompt_tokens -1, 0, 1
and past --max-model-len on vLLM (175th); min_tokens over max_tokens on both engines (87th,
95th); max_tokens 1e6 (95th), 5000 and -3 on vLLM; max_tokens 0 with echo and logprobs (212th);
max_completion_tokens alone in a batch file (151st).

Recorded 2026-12-07 in one invocation (raw1), waiting its turn behind another helper's
recorder; each scenario once. About 7.2 minutes of recording (vLLM 10+9+50+54 s, SGLang
71+102+76+60 s). All 8 kept (final files hy101-hy108), none dropped; three faults never showed
(both chat requests with the two limits, SGLang's truncate_prompt_tokens 5000) and are kept as
fair `ready` logs of the ground.

What the engines did. vLLM: --max-model-len 0 is taken by argparse and logged ('Using max model
len 0'), then ModelConfig's pydantic validation ends the launch (`max_model_len must be a
positive integer, got int: 0`); --max-model-len 32k is read as 32000 and refused the same way
(`User-specified max_model_len (32000) is greater than the derived max_model_len
(max_position_embeddings=2048.0 ...)`), both before any engine process; the chat request with
max_tokens 4 and max_completion_tokens 64 is answered 200 with no word (the longer limit won);
the prompt of exactly 256 ids with no max_tokens gets a bare `400 Bad Request` in the access log
(the client is told `max_tokens must be at least 1, got 0`) and the server serves on. SGLang: max_tokens
-1 gets a 400 (`max_tokens must be positive` to the client) after a FastAPIDeprecationWarning,
no line of its own; the chat request with both limits decodes about 60 tokens (`Decode batch ...
#token: 79`) and answers 200, silently; truncate_prompt_tokens 5000 is ignored (the 41-token
prompt prefilled whole, 200); with --context-length 256 a 256-id prompt gets 400 (`The input
(256 tokens) is longer than the model's context length (256 tokens).` to the client), the log
shows only the status. Crashed at launch: hy101, hy102; ready in serving, kept serving after
the odd request: hy103-hy108. None hung.
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

ROOT = Path("/tmp/blind248")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
V_NOLEN = [a for a in VLLM_BASE if a not in ("--max-model-len", "256")]
WORDS = "the quick brown fox jumps over the lazy dog".split()


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)


_setup()
CHAT = ["--chat-template", str(CHAT_TEMPLATE)]


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def call(ctx: Ctx, path: str, body: dict, timeout: float = 90) -> None:
    """POST ``body``; what the client saw goes to /tmp/blind248/client-PORT.txt (labeller only)."""
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
        f.write(f"{time.strftime('%H:%M:%S')} {path} {json.dumps(body)[:200]} -> {status}\n"
                f"{text[:1500]}\n\n")


def odd(ready: str, bad: Callable[[Ctx], None] | None = None) -> Callable[[Ctx], None]:
    """Up: two plain completions, the odd request, two plain completions, a pause. A run that
    does not come up is let end by itself."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([ready], 300) != ready or ctx.proc is None or ctx.proc.poll() is not None:
            linger(ctx, 20)
            return
        (ROOT / f"client-{ctx.port}.txt").write_text(f"{ctx.log.name}\n")
        for i in range(2):
            call(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": f"fox {i}",
                                          "max_tokens": 8})
        if bad is not None:
            bad(ctx)
        time.sleep(2)
        for i in range(2):
            call(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": f"dog {i}",
                                          "max_tokens": 8})
        linger(ctx, 12)
    return act


# --- the odd requests ---------------------------------------------------------------------------

def chat_both_limits(ctx: Ctx) -> None:
    """A chat request giving max_tokens 4 and max_completion_tokens 64 (they disagree)."""
    call(ctx, "/v1/chat/completions", {"model": ctx.model_name(), "max_tokens": 4,
                                       "max_completion_tokens": 64,
                                       "messages": [{"role": "user", "content": "tell a story"}]})


def ids_exactly(n: int) -> Callable[[Ctx], None]:
    """A prompt of exactly ``n`` token ids (the whole context) and no max_tokens."""
    def bad(ctx: Ctx) -> None:
        call(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": [100] * n})
    return bad


def max_tokens_negative(ctx: Ctx) -> None:
    call(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": "the fox",
                                  "max_tokens": -1})


def truncate_over_context(ctx: Ctx) -> None:
    """truncate_prompt_tokens 5000 on a 2048-token context, a 40-word prompt."""
    call(ctx, "/v1/completions", {"model": ctx.model_name(),
                                  "prompt": " ".join(WORDS[i % 9] for i in range(40)),
                                  "max_tokens": 8, "truncate_prompt_tokens": 5000})


V_UP = READY_LINE

SCENARIOS = [
    Scenario("v-max-model-len-0", "vllm", "--max-model-len 0 (meant as 'the model's own')",
             [*V_NOLEN, "--max-model-len", "0"], before=dfl_signals, act=odd(V_UP)),
    Scenario("v-max-model-len-32k", "vllm", "--max-model-len 32k (a unit suffix; 32000 over the "
             "model's 2048 positions, no VLLM_ALLOW_LONG_MAX_MODEL_LEN)",
             [*V_NOLEN, "--max-model-len", "32k"], before=dfl_signals, act=odd(V_UP)),
    Scenario("v-chat-max-tokens-vs-completion-tokens", "vllm", "a chat request with max_tokens 4 "
             "and max_completion_tokens 64 (both given, disagreeing) among plain completions",
             [*VLLM_BASE, *CHAT], before=dfl_signals, act=odd(V_UP, chat_both_limits)),
    Scenario("v-prompt-ids-exactly-len-no-max", "vllm", "a prompt of exactly 256 token ids "
             "(the whole --max-model-len 256) with no max_tokens, among plain completions",
             VLLM_BASE, before=dfl_signals, act=odd(V_UP, ids_exactly(256))),
    Scenario("s-max-tokens-negative", "sglang", "a completion with max_tokens -1 among plain "
             "completions", SG, before=dfl_signals, act=odd(SG_READY, max_tokens_negative)),
    Scenario("s-chat-max-tokens-vs-completion-tokens", "sglang", "a chat request with max_tokens "
             "4 and max_completion_tokens 64 (both given, disagreeing) among plain completions",
             [*SG, *CHAT], before=dfl_signals, act=odd(SG_READY, chat_both_limits)),
    Scenario("s-truncate-prompt-over-context", "sglang", "a completion with "
             "truncate_prompt_tokens 5000, past the model's 2048-token context, among plain "
             "completions", SG, before=dfl_signals, act=odd(SG_READY, truncate_over_context)),
    Scenario("s-prompt-ids-exactly-context-no-max", "sglang", "--context-length 256, then a "
             "prompt of exactly 256 token ids with no max_tokens, among plain completions",
             [*SG, "--context-length", "256"], before=dfl_signals,
             act=odd(SG_READY, ids_exactly(256))),
]
