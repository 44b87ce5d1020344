"""The hundred-and-twenty-eighth batch's scenarios (tests/fixtures/corpus/fresh127): faults
chosen, recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind128.py OUT

Themes: multimodal inputs and the less-used OpenAI (and native) endpoints, sent to a running
server by a client that assumes more than the server was set up for. vLLM: the Responses API
(/v1/responses) used as a client of OpenAI's would use it (a plain input, a streamed one, a
`previous_response_id` the server never issued, `background` without a response store, a
built-in web_search_preview tool); `--limit-mm-per-prompt` given for images on the text-only
model, then chat requests with an image URL that cannot be fetched and a data: URL that is not
an image; /tokenize asked to render chat messages on a model with no chat template (and no
--chat-template), beside a plain /tokenize and /detokenize given strings instead of ids; valid
prompt embeddings (--enable-prompt-embeds) sent with echo, prompt_logprobs and streamed logprobs.
SGLang: /generate with `input_embeds` of the wrong width (100 numbers a row; the model's hidden
size is 256) with --disable-radix-cache as input_embeds require; chat requests with image parts
(an unreachable URL, a data: URL that is not an image) and a native /generate with image_data,
to the text-only model; the Responses API as for vLLM; requests carrying a `priority` to a
server started with --abort-on-priority-when-disabled and no priority scheduling; OpenAI
completions with `echo` and `logprobs` (a text prompt, two prompts with n 2, token ids, a
streamed one with stream_options); /v1/detokenize of a negative id, of an id past the
vocabulary, and of strings.

Earlier batches already had (not repeated): image and audio parts in vLLM chat (74th),
--mm-processor-kwargs cut short (83rd), priority requests under --scheduling-policy priority
(70th), prompt_embeds garbage or of the wrong width (71st, 78th), /detokenize of ids outside the
vocabulary and a long /tokenize (89th), echo with logprobs, prompt_logprobs, n and best_of (94th),
tools without a parser (67th, 74th, 91st, 116th, 120th), logprobs over the vocabulary (91st).

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm);
vLLM with VLLM_BASE's settings. Chat scenarios use a plain template written to
/tmp/blind128/chat.jinja when this table is loaded (the tiny model has none). Each serving
scenario sends its requests once the server is up, then a plain completion, and lets it run
about 12 s more (one periodic stats line) before the recorder ends it.

Recorded 2026-12-06 in four invocations (raw1: four SGLang; raw2: four vLLM; raw3: one vLLM, one
SGLang; raw4: one SGLang), taking turns with three other helpers' recorders; each scenario once.
About 7m33s of recording in all (453 s: vLLM 41+43+42+40+57 s, SGLang 29+43+41+40+38+39 s);
10 kept (final files dg101-dg110). Dropped: v-priority-fcfs (requests with priority 5, -1 and a
chat request with 3 to a server at the default fcfs policy; recorded, 41 s): vLLM 0.32 served
all three `200 OK` without a word, though its API docs say a non-zero priority is an error
without priority scheduling - the fault never shows in the log; removed from the table.
What the engines did: only one request here killed an engine - SGLang takes input_embeds of any
width and its scheduler dies in the first layer norm (`ValueError: Expected hidden_size to be
256, but found: 100`, then SIGQUIT and kill_process_tree). Everything else is answered with an
access line and the server serves on. vLLM logs no reason at INFO for any 4xx: the Responses
API's unknown previous_response_id and GET of an unknown id are 404, `background` without a
store 400, the web_search_preview tool is taken and ignored (200); --limit-mm-per-prompt on a
text-only model is taken silently and image chat requests get 400; /tokenize of chat messages
without a chat template and /detokenize of strings 400; prompt embeddings with echo or
prompt_logprobs 400 (plain and streamed-with-logprobs 200). SGLang: image parts in chat 400 but
image_data on /generate is ignored (200); the Responses API answers 400 (not 404) for unknown
ids and background; --abort-on-priority-when-disabled answers 503 Service Unavailable for every
request naming a priority, even 0; echo with logprobs is served after a plain notice line
(`Echo is not compatible with logprobs ...`); /v1/detokenize of a negative id logs `Error during
detokenization` with a whole traceback (`OverflowError: out of range integral type conversion
attempted`) and a 500, an id past the vocabulary decodes (200). SGLang 0.5.23 prints a
FastAPIDeprecationWarning (`ORJSONResponse is deprecated`) before most error answers.
"""

from __future__ import annotations

import base64
import json
import subprocess
import sys
import urllib.error
import urllib.request
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
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind128")
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V = "vllm"
S = "sglang"

ROOT.mkdir(parents=True, exist_ok=True)
CHAT_TEMPLATE.write_text(CHAT_JINJA)

NOT_AN_IMAGE = "data:image/png;base64," + base64.b64encode(b"<html>404 Not Found</html>").decode()
UNREACHABLE = "http://images.invalid/cat.png"


# --- requests --------------------------------------------------------------------------------

def call(ctx: Ctx, path: str, body: dict | None = None, timeout: float = 60) -> int:
    """POST ``body`` (GET when None) and read the whole answer (a stream to its end)."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}", data=data,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def v_serving(send: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    """vLLM: once up, one completion, ``send``'s requests, one completion, ~12 s more."""
    def act(ctx: Ctx) -> None:
        if up(ctx, 240):
            name = ctx.model_name()
            ctx.complete(1, max_tokens=8)
            send(ctx, name)
            ctx.complete(1, max_tokens=8)
            linger(ctx, 12)
    return act


def sg_serving(send: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    """SGLang: once fired up, one generation, ``send``'s requests, one more, ~12 s more."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(SG_READY, 240):
            name = ctx.model_name()
            gen(ctx)
            send(ctx, name)
            gen(ctx)
            linger(ctx, 12)
    return act


def gen(ctx: Ctx, **extra: object) -> int:
    return call(ctx, "/generate", {"text": "the quick brown fox",
                                   "sampling_params": {"max_new_tokens": 8}, **extra})


def sg_priorities(ctx: Ctx, name: str) -> None:
    gen(ctx, priority=5)
    call(ctx, "/v1/completions", {"model": name, "prompt": "urgent", "max_tokens": 8,
                                  "priority": -1})
    gen(ctx, priority=0)


def responses(ctx: Ctx, name: str) -> None:
    base = {"model": name, "max_output_tokens": 16}
    call(ctx, "/v1/responses", {**base, "input": "Say hello in one word."})
    call(ctx, "/v1/responses", {**base, "input": "Count to three.", "stream": True})
    call(ctx, "/v1/responses", {**base, "input": "And then?",
                                "previous_response_id": "resp_0123456789abcdef0123456789ab"})
    call(ctx, "/v1/responses", {**base, "input": "Write a long story.", "background": True})
    call(ctx, "/v1/responses", {**base, "input": "Weather in Paris today?",
                                "tools": [{"type": "web_search_preview"}]})
    call(ctx, "/v1/responses/resp_0123456789abcdef0123456789ab")


def image_chats(ctx: Ctx, name: str) -> None:
    for url in (UNREACHABLE, NOT_AN_IMAGE):
        call(ctx, "/v1/chat/completions", {"model": name, "max_tokens": 8, "messages": [
            {"role": "user", "content": [{"type": "text", "text": "What is in this picture?"},
                                         {"type": "image_url", "image_url": {"url": url}}]}]})
    call(ctx, "/v1/chat/completions", {"model": name, "max_tokens": 8, "messages": [
        {"role": "user", "content": [{"type": "text", "text": "Compare them."},
                                     *[{"type": "image_url", "image_url": {"url": NOT_AN_IMAGE}}
                                       for _ in range(3)]]}]})


def sg_images(ctx: Ctx, name: str) -> None:
    image_chats(ctx, name)
    gen(ctx, image_data=UNREACHABLE)
    gen(ctx, image_data=NOT_AN_IMAGE)


def tokenize_refusals(ctx: Ctx, name: str) -> None:
    msgs = [{"role": "user", "content": "hi"}]
    call(ctx, "/tokenize", {"model": name, "prompt": "the quick brown fox",
                            "return_token_strs": True})
    call(ctx, "/tokenize", {"model": name, "messages": msgs})
    call(ctx, "/tokenize", {"model": name, "messages": msgs, "add_generation_prompt": True,
                            "continue_final_message": True})
    call(ctx, "/detokenize", {"model": name, "tokens": ["the", "quick", "fox"]})


def echo_logprobs(ctx: Ctx, name: str) -> None:
    base = {"model": name, "max_tokens": 8, "echo": True}
    call(ctx, "/v1/completions", {**base, "prompt": "the quick brown fox", "logprobs": 3})
    call(ctx, "/v1/completions", {**base, "prompt": ["the quick", "a lazy dog"], "n": 2,
                                  "logprobs": 2})
    call(ctx, "/v1/completions", {**base, "prompt": [5, 17, 42, 99], "logprobs": 1})
    call(ctx, "/v1/completions", {**base, "prompt": "jumps over", "logprobs": 2, "stream": True,
                                  "stream_options": {"include_usage": True}})


EMBEDS_CODE = ("import base64, io, sys, torch; torch.manual_seed(0); "
               "t = torch.randn(6, 256, dtype=torch.bfloat16) * 0.02; b = io.BytesIO(); "
               "torch.save(t, b); sys.stdout.write(base64.b64encode(b.getvalue()).decode())")


def embeds_echo_logprobs(ctx: Ctx, name: str) -> None:
    """Valid prompt embeddings (6 x 256, made with the engine's torch), then with echo and
    prompt_logprobs, which a client's completion code turns on for every prompt."""
    emb = subprocess.run([str(VLLM.python), "-c", EMBEDS_CODE], capture_output=True, text=True,
                         timeout=120).stdout
    base = {"model": name, "max_tokens": 8, "prompt_embeds": emb}
    call(ctx, "/v1/completions", base)
    call(ctx, "/v1/completions", {**base, "echo": True, "logprobs": 2})
    call(ctx, "/v1/completions", {**base, "prompt_logprobs": 2})
    call(ctx, "/v1/completions", {**base, "logprobs": 2, "stream": True})


def sg_detokenize_refusals(ctx: Ctx, name: str) -> None:
    call(ctx, "/v1/tokenize", {"model": name, "prompt": "the quick brown fox"})
    call(ctx, "/v1/detokenize", {"model": name, "tokens": [5, -1, 17]})
    call(ctx, "/v1/detokenize", {"model": name, "tokens": [[5, 17], [70000]]})
    call(ctx, "/v1/detokenize", {"model": name, "tokens": ["the", "fox"]})


def wrong_width_embeds(ctx: Ctx, name: str) -> None:
    call(ctx, "/generate", {"input_embeds": [[0.01 * (i + j) for j in range(100)]
                                             for i in range(4)],
                            "sampling_params": {"max_new_tokens": 8}}, timeout=90)


SCENARIOS = [
    # vLLM
    Scenario("v-responses-api", V, "the Responses API as OpenAI's clients use it: a plain input, a "
             "streamed one, a previous_response_id never issued, background without a response "
             "store, a web_search_preview tool, then GET of the unknown response id",
             [*VLLM_BASE, "--chat-template", str(CHAT_TEMPLATE)], act=v_serving(responses)),
    Scenario("v-limit-mm-text-only", V, "--limit-mm-per-prompt '{\"image\": 2}' on the text-only "
             "model, then chat requests with an image URL that cannot be fetched, a data: URL that "
             "is not an image, and three such images",
             [*VLLM_BASE, "--chat-template", str(CHAT_TEMPLATE), "--limit-mm-per-prompt",
              '{"image": 2}'], act=v_serving(image_chats)),
    Scenario("v-tokenize-chat-no-template", V, "/tokenize asked to render chat messages on a model "
             "with no chat template and no --chat-template (plain and with add_generation_prompt "
             "and continue_final_message), beside a plain /tokenize and a /detokenize given "
             "strings instead of token ids",
             [*VLLM_BASE], act=v_serving(tokenize_refusals)),
    Scenario("v-prompt-embeds-echo-logprobs", V, "--enable-prompt-embeds; valid prompt "
             "embeddings (6 x 256) sent plainly, then with echo and logprobs, with prompt_logprobs, "
             "and streamed with logprobs",
             [*VLLM_BASE, "--enable-prompt-embeds"], act=v_serving(embeds_echo_logprobs)),
    # SGLang
    Scenario("s-input-embeds-width", S, "--disable-radix-cache (as input_embeds require); a "
             "generation, then /generate with input_embeds of 4 rows of 100 numbers (the model's "
             "hidden size is 256), then a generation",
             [*SG, "--disable-radix-cache"], act=sg_serving(wrong_width_embeds)),
    Scenario("s-images-text-only", S, "chat requests with image parts (an unreachable URL, a data: "
             "URL that is not an image, three such images) and /generate with image_data, to the "
             "text-only model (with a plain --chat-template)",
             [*SG, "--chat-template", str(CHAT_TEMPLATE)], act=sg_serving(sg_images)),
    Scenario("s-responses-api", S, "the Responses API as OpenAI's clients use it: a plain input, a "
             "streamed one, a previous_response_id never issued, background, a "
             "web_search_preview tool, then GET of the unknown response id (plain --chat-template)",
             [*SG, "--chat-template", str(CHAT_TEMPLATE)], act=sg_serving(responses)),
    Scenario("s-priority-abort-disabled", S, "--abort-on-priority-when-disabled without priority "
             "scheduling, then requests carrying a priority (5 on /generate, -1 on a completion, "
             "0 on /generate)",
             [*SG, "--abort-on-priority-when-disabled"], act=sg_serving(sg_priorities)),
    Scenario("s-completions-echo-logprobs", S, "OpenAI completions with echo and logprobs: a text "
             "prompt (logprobs 3), two prompts with n 2, a prompt of token ids, and a streamed one "
             "with stream_options include_usage",
             [*SG], act=sg_serving(echo_logprobs)),
    Scenario("s-detokenize-negative", S, "/v1/tokenize of a prompt, then /v1/detokenize of ids "
             "with a negative one ([5, -1, 17]), of a batch with an id past the vocabulary "
             "([[5, 17], [70000]]) and of strings instead of ids",
             [*SG], act=sg_serving(sg_detokenize_refusals)),
]
