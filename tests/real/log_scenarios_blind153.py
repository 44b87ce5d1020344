"""The hundred-and-fifty-third batch's scenarios (tests/fixtures/corpus/fresh152): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind153.py OUT

Themes: reasoning ("thinking") settings and the requests that use them, as people serve
reasoning models - met by a tiny Llama whose tokenizer has no think tokens and whose output is
random. vLLM: a --reasoning-parser-plugin file that raises at import (a licence key it wants from
the environment) with --reasoning-parser naming the parser it would have registered; a plugin
whose parser was written for an older vLLM (extract_reasoning_content[_streaming] instead of the
abstract extract_reasoning / extract_reasoning_streaming); openai_gptoss's parser (boundary
detection only, parsing left to Harmony) on a model that is no gpt-oss; granite's parser with
chat requests carrying include_reasoning false, reasoning_effort 'extreme' and
chat_template_kwargs thinking / thinking_budget on a template that ignores them. SGLang:
--reasoning-parser k2_horizon with reasoning_effort 'extreme' and separate_reasoning;
--reasoning-parser auto on a chat template that names no reasoning family; the native
/separate_reasoning endpoint given vLLM's parser spelling (deepseek_r1) and a body without text.

Earlier batches already had (not repeated): an unknown --reasoning-parser name on vLLM (67th) and
SGLang (75th), deepseek_r1 / deepseek-r1 without think tokens on both engines (94th: vLLM refuses
it at launch, SGLang serves), SGLang's gpt-oss tool and reasoning parsers together (136th, never
recorded), separate_reasoning with tool requests (136th).

Helper files (a plain chat template, the two plugins) are written to /tmp/blind153 when this
table is loaded. vLLM runs VLLM_BASE's settings; SGLang runs --device cpu --model-impl
transformers, with which it serves here. Every scenario passes the plain --chat-template (the
tiny model has none).

Recorded 2026-12-06 in two invocations (raw1: the five vLLM and four SGLang scenarios first
planned; raw2: s-reasoning-parser-auto, added once two SGLang logs had shown nothing), taking
turns with two other helpers' recorders; each scenario once. About 9 minutes of recording (vLLM
12+46+46+47+53 s, SGLang 88+61+55+65+58 s). 7 kept (final files ef101-ef107). Dropped, and
removed from SCENARIOS: v-reasoning-qwen3-no-think (--reasoning-parser qwen3 on the Llama
tokenizer, chat requests with chat_template_kwargs enable_thinking false: vLLM 0.32 accepts
qwen3 without a word - unlike deepseek_r1, which the 94th batch saw refused at launch, and
unlike the other parsers here it logs not even the token-ID warning - and answered everything
200 OK: the fault never shows), s-reasoning-gpt-oss-on-llama (--reasoning-parser gpt-oss,
separate_reasoning chat requests: every request 200 OK, the parser named only in server_args)
and s-reasoning-qwen3-stream-off (--reasoning-parser qwen3, separate_reasoning with
stream_reasoning false and enable_thinking false / thinking_budget 0: all 200 OK, nothing
logged) - the fault never shows in either.

What the engines did: only the plugin that raises ends a launch (ef101: vLLM catches the
plugin's RuntimeError and logs it at ERROR as 'Failed to load module ...', twice, then dies 12 s
in building its VllmConfig on 'KeyError: "Reasoning parser 'acme_think' not found. Available
parsers: ..."'); every other kept log is ready in serving with no cause. vLLM registers a
plugin's parser lazily, so a parser class that cannot be instantiated passes the launch and
answers the non-streamed chat request with a bare 400 (ef102), and openai_gptoss on a Llama
answers it with '501 Not Implemented' (ef103), the streamed ones 200 OK, with no traceback; with
every parser that got past the config but qwen3 it warns at launch 'Auto-initialization of reasoning token IDs failed.
Please check whether your reasoning parser has implemented the `reasoning_start_str` and
`reasoning_end_str`.' reasoning_effort 'extreme' is a bare 400 in both engines (ef104, ef105);
chat_template_kwargs that the template ignores pass silently. SGLang's auto parser says
'--reasoning-parser=auto specified but could not detect reasoning parser from chat template.
Disabling reasoning parser.' and serves (ef106); its /separate_reasoning endpoint turns an
unknown parser name into a 500 with uvicorn's whole traceback ending 'ValueError: Unsupported
model type: deepseek_r1' (the handler only catches ValueError around its native text parser)
and keeps serving (ef107).
"""

from __future__ import annotations

import json
import sys
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind153")
CHAT_TPL = ROOT / "chat.jinja"
PLUGIN_RAISES = ROOT / "acme_think_raises.py"
PLUGIN_OLD_API = ROOT / "acme_think_old_api.py"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

PLAIN_TEMPLATE = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                  "{% if add_generation_prompt %}assistant:{% endif %}")

RAISES = '''"""A reasoning-parser plugin that needs a licence key from the environment."""
import os

from vllm.reasoning import ReasoningParserManager  # noqa: F401

if "ACME_THINK_KEY" not in os.environ:
    raise RuntimeError("acme_think: ACME_THINK_KEY is not set; cannot load the think parser")
'''

OLD_API = '''"""A reasoning-parser plugin written for an older vLLM (extract_reasoning_content)."""
from vllm.reasoning import ReasoningParser, ReasoningParserManager


@ReasoningParserManager.register_module("acme_think")
class AcmeThinkParser(ReasoningParser):
    def __init__(self, tokenizer, *args, **kwargs):
        super().__init__(tokenizer, *args, **kwargs)
        self.start, self.end = "<think>", "</think>"

    def extract_reasoning_content(self, model_output, request):
        if self.end not in model_output:
            return None, model_output
        r, _, c = model_output.partition(self.end)
        return r.replace(self.start, ""), c or None

    def extract_reasoning_content_streaming(self, previous_text, current_text, delta_text,
                                            previous_token_ids, current_token_ids,
                                            delta_token_ids):
        return None
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    CHAT_TPL.write_text(PLAIN_TEMPLATE)
    PLUGIN_RAISES.write_text(RAISES)
    PLUGIN_OLD_API.write_text(OLD_API)


_setup()

CHAT = ["--chat-template", str(CHAT_TPL)]


# --- requests ---------------------------------------------------------------------------------

def post_read(ctx: Ctx, path: str, body: dict, timeout: float = 90) -> int:
    """POST and read the whole answer (a stream to its end)."""
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def chat_body(name: str, q: str, **extra: object) -> dict:
    return {"model": name, "max_tokens": 16, "messages": [{"role": "user", "content": q}],
            **extra}


def v_chats(extras: list[dict]) -> callable:
    """vLLM: until it ends; if it serves, a completion, one chat request per ``extras`` (each
    also streamed), a completion, a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([READY_LINE], 240)
        if ctx.proc is None or ctx.proc.poll() is not None or READY_LINE not in ctx.text():
            linger(ctx, 5)
            return
        name = ctx.model_name()
        ctx.complete(1)
        for i, extra in enumerate(extras):
            post_read(ctx, "/v1/chat/completions", chat_body(name, f"think {i}: 2+2?", **extra))
            post_read(ctx, "/v1/chat/completions",
                      chat_body(name, f"stream {i}", stream=True, **extra))
        ctx.complete(1)
        linger(ctx, 12)
    return act


def s_chats(extras: list[dict], endpoint: list[dict] | None = None) -> callable:
    """SGLang: until it ends (180 s); if fired up, a generation, one chat request per
    ``extras`` (each also streamed), any /separate_reasoning bodies, a generation, a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([SG_READY], 180)
        if ctx.proc is None or ctx.proc.poll() is not None or SG_READY not in ctx.text():
            linger(ctx, 5)
            return
        gen = {"text": "fox", "sampling_params": {"max_new_tokens": 8}}
        post_read(ctx, "/generate", gen)
        for i, extra in enumerate(extras):
            post_read(ctx, "/v1/chat/completions", chat_body("default", f"think {i}", **extra))
            post_read(ctx, "/v1/chat/completions",
                      chat_body("default", f"stream {i}", stream=True, **extra))
        for body in endpoint or []:
            post_read(ctx, "/separate_reasoning", body)
        post_read(ctx, "/generate", gen)
        linger(ctx, 12)
    return act


def v(name: str, what: str, args: list[str], act, **kw) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *CHAT, *args], act=act, **kw)


def s(name: str, what: str, args: list[str], act, **kw) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *CHAT, *args], act=act, **kw)


PLAIN = ("(a plain --chat-template that ignores thinking switches; the tokenizer has no think "
         "tokens)")

SCENARIOS = [
    # --- vLLM ---------------------------------------------------------------------------------
    v("v-reasoning-plugin-raises", "--reasoning-parser-plugin naming a file that raises "
      "RuntimeError at import (a licence key it wants from the environment), with "
      f"--reasoning-parser acme_think, the name it would register {PLAIN}",
      ["--reasoning-parser-plugin", str(PLUGIN_RAISES), "--reasoning-parser", "acme_think"],
      v_chats([{}])),
    v("v-reasoning-plugin-old-api", "--reasoning-parser-plugin whose parser was written for an "
      "older vLLM (extract_reasoning_content[_streaming], not the abstract extract_reasoning "
      "and extract_reasoning_streaming, nor is_reasoning_end / extract_content_ids), "
      f"registered as acme_think; chat requests {PLAIN}",
      ["--reasoning-parser-plugin", str(PLUGIN_OLD_API), "--reasoning-parser", "acme_think"],
      v_chats([{}])),
    v("v-reasoning-gptoss-on-llama", "--reasoning-parser openai_gptoss (gpt-oss's, which "
      "only detects boundaries and leaves parsing to Harmony) on the Llama model; chat "
      f"requests {PLAIN}", ["--reasoning-parser", "openai_gptoss"], v_chats([{}])),
    v("v-reasoning-granite-effort-fields", "--reasoning-parser granite on the Llama model; "
      "chat requests with include_reasoning false, then reasoning_effort 'extreme' (not "
      "low/medium/high), then chat_template_kwargs thinking true with thinking_budget 64 "
      f"{PLAIN}", ["--reasoning-parser", "granite"],
      v_chats([{"include_reasoning": False}, {"reasoning_effort": "extreme"},
               {"chat_template_kwargs": {"thinking": True, "thinking_budget": 64}}])),
    # --- SGLang -------------------------------------------------------------------------------
    s("s-reasoning-k2-horizon-effort", "--reasoning-parser k2_horizon (K2-v3's, which needs "
      "forced reasoning and maps reasoning_effort to think tags) on the Llama model; chat "
      f"requests with reasoning_effort 'extreme' {PLAIN}", ["--reasoning-parser", "k2_horizon"],
      s_chats([{"reasoning_effort": "extreme", "separate_reasoning": True}])),
    s("s-reasoning-parser-auto", "--reasoning-parser auto (offered by the flag's choices) on "
      "the Llama model, whose family no parser is detected for; chat requests with "
      f"separate_reasoning {PLAIN}", ["--reasoning-parser", "auto"],
      s_chats([{"separate_reasoning": True}])),
    s("s-separate-reasoning-endpoint-bad", "no --reasoning-parser; POST /separate_reasoning "
      "with reasoning_parser 'deepseek_r1' (vLLM's spelling; SGLang's is deepseek-r1), then "
      f"with no text field {PLAIN}", [],
      s_chats([], endpoint=[{"text": "<think>a</think>b", "reasoning_parser": "deepseek_r1"},
                            {"reasoning_parser": "qwen3"}])),
]
