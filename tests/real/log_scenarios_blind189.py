"""The hundred-and-eighty-ninth batch's scenarios (tests/fixtures/corpus/fresh188): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind189.py OUT

Themes: tokens in, tokens out - a server driven with token ids instead of text, as an RL trainer
or a router that tokenizes itself drives it. vLLM started with --skip-tokenizer-init: token-id
completions, then a chat completion (text the server cannot make without a tokenizer); a
token-id completion with stop strings; a token-id prompt holding an id past the 512-id
vocabulary (no tokenizer to check it against); the same flag on a model copy that has no
tokenizer files at all; token-id completions asking for logprobs or a structured-output choice,
and a text Responses API request. SGLang started normally: /generate input_ids holding a negative id;
input_ids holding a float. SGLang started with --skip-tokenizer-init: an OpenAI chat completion;
/generate input_ids with stop strings. Good requests are sent before and after each bad one.

Earlier batches already had (not repeated): token ids past the vocabulary and a -1 in vLLM's
prompt on a server with its tokenizer (69th, 78th), vLLM's --skip-tokenizer-init with text
completions (78th), token ids past the vocabulary in SGLang's embedding requests (117th), SGLang's
--skip-tokenizer-init with a text /generate (154th), an empty text prompt (142nd), ten million
token ids (141st), prompt ids of 2**63 and 1.5 on vLLM (142nd, dropped there as bare 400s),
stop_token_ids negative or past the vocabulary (69th, 170th), /detokenize of bad ids (89th,
128th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. Each
scenario sends two good token-id requests once the server is up, the bad one, one more good one,
and lets the run go on 14 s (vLLM) or up to 30 s (SGLang) before the recorder ends it. What each
request got back is written to /tmp/blind189/answers.txt.

Recorded 2026-12-07 in four invocations (raw1: the first eight scenarios; raw2:
v-skip-tok-init-logprobs; raw3: v-skip-tok-init-structured-choice; raw4:
v-skip-tok-init-responses - the last three added to replace vLLM scenarios whose fault did not
show), taking turns with two other helpers' recorders; each scenario once. About 9m45s of
recording (vLLM 45+32+47+57+47+45+45 s, SGLang 39+91+71+64 s). 5 kept (final files
fq101-fq105): v-skip-tok-init-chat, s-input-ids-negative, v-skip-tok-init-oov-id,
s-skip-tok-init-stop-str, s-skip-tok-init-chat - two vLLM, three SGLang, fewer vLLM than the
three asked, since every other vLLM fault tried here left no word of itself in the log.
Dropped, and removed from the table: v-skip-tok-init-stop-strings (stop ['fox', '.'] on a token-id
completion under --skip-tokenizer-init: vLLM took the stop strings silently, `200 OK`, nothing
logged - the fault never shows); v-skip-tok-init-no-tokenizer-files (the same flag on a model
copy without tokenizer files: the log is fq101's line for line, paths aside - the missing files
make no difference once the tokenizer is skipped); v-skip-tok-init-logprobs (logprobs 2),
v-skip-tok-init-structured-choice (structured_outputs choice) and v-skip-tok-init-responses (a
text /v1/responses input), all under --skip-tokenizer-init: each a bare uvicorn `400 Bad
Request` among 200s, the reason only in the response body (`Unable to get tokenizer because
skip_tokenizer_init=True`, `Structured outputs requires a tokenizer so it can't be used with
'skip_tokenizer_init'`, `Tokenizer not available when skip_tokenizer_init=True`), as the 142nd
batch dropped its bare 400s; s-input-ids-float (input_ids [1, 45.5, 99] on /generate: a bare
`400 Bad Request` after a FastAPIDeprecationWarning, the pydantic message `contains non-int64
element` only in the body).

What the engines did. vLLM with --skip-tokenizer-init warns at startup `Chat template warmup
failed` (`ValueError: Tokenizer not available when skip_tokenizer_init=True`) and comes up; its
token-id completions answer `200 OK` with text "" and token_ids null (a client gets no output
unless it asks for token ids). A chat completion then fails on `assert tokenizer is not None`
(uvicorn's `Exception in ASGI application`, an empty 500) and the server serves on. A token-id
prompt holding 70000 (512-id vocabulary) is not checked without a tokenizer: the worker aborts in
the compiled model (`terminate called after throwing an instance of 'std::runtime_error'` /
`index out of bounds: 0 <= tmp3 < 512L`), `Worker proc VllmWorker-0 died unexpectedly`,
`EngineDeadError`, and the API server shuts down - crashed in serving. SGLang started normally
takes a negative input id unchecked: `Scheduler hit an exception` ... `F.embedding` /
`IndexError: index out of range in self`, SIGQUIT and kill_process_tree - crashed in serving.
SGLang with --skip-tokenizer-init refuses stop strings up front with a 400 and its own words
(`stop=['fox', '.'] is unavailable when skip_tokenizer_init=True`), but an OpenAI chat
completion reaches the missing tokenizer (`Error in request: 'NoneType' object has no attribute
'apply_chat_template'`, a 500) - both serve on. At startup it logs `Failed to get yes/no token IDs
dynamically` and falls back to ids 9693/2152, past this model's vocabulary.
"""

from __future__ import annotations

import json
import signal
import sys
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind189")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SKIP = ["--skip-tokenizer-init"]
GOOD_IDS = [1, 45, 99, 173]             # inside the 512-id vocabulary
OOV = 70000


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch: a recorder started
    in the background by a shell inherits them ignored, and the engine would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def send(ctx: Ctx, path: str, body: dict, timeout: float = 60) -> int:
    """POST ``body`` as JSON; the status (0: no answer). The body is recorded beside the raw
    logs, for the note."""
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            status, answer = r.status, r.read()[:600]
    except urllib.error.HTTPError as e:
        status, answer = e.code, e.read()[:600]
    except (OSError, TimeoutError) as e:
        status, answer = 0, repr(e).encode()
    with open(ROOT / "answers.txt", "a") as f:
        f.write(f"{ctx.log.name} {path} {json.dumps(body)[:200]} -> {status} "
                f"{answer.decode(errors='replace')}\n")
    return status


# --- vLLM ------------------------------------------------------------------------------------

def v_ids(ctx: Ctx, ids: list, **extra: object) -> int:
    return send(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": ids,
                                         "max_tokens": 8, **extra})


def v_serve(bad: dict) -> object:
    """Up; two token-id completions, the bad request (path and body), one more, a pause."""
    def act(ctx: Ctx) -> None:
        if not up(ctx, 240):
            linger(ctx, 20)
            return
        v_ids(ctx, GOOD_IDS)
        v_ids(ctx, GOOD_IDS[:2])
        body = {"model": ctx.model_name(), **bad["body"]}
        send(ctx, bad["path"], body)
        v_ids(ctx, GOOD_IDS)
        linger(ctx, 14)
    return act


# --- SGLang ----------------------------------------------------------------------------------

def s_gen(ctx: Ctx, ids: object, **sp: object) -> int:
    return send(ctx, "/generate", {"input_ids": ids,
                                   "sampling_params": {"max_new_tokens": 8, **sp}})


def s_serve(bad: dict) -> object:
    """Fired up; two input_ids /generate, the bad request, one more, a pause (or its end)."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 200) != SG_READY:
            linger(ctx, 20)
            return
        s_gen(ctx, GOOD_IDS)
        s_gen(ctx, GOOD_IDS[:2])
        body = bad["body"]
        if bad["path"].startswith("/v1/"):
            body = {"model": ctx.model_name(), **body}
        send(ctx, bad["path"], body)
        if ctx.proc is not None and ctx.proc.poll() is None:
            s_gen(ctx, GOOD_IDS)
        linger(ctx, 30)
    return act


def v(name: str, what: str, bad: dict, args: list[str] | None = None, **kw: object) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *(args or [])], before=dfl_signals,
                    act=v_serve(bad), **kw)  # type: ignore[arg-type]


def s(name: str, what: str, bad: dict, args: list[str] | None = None) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *(args or [])], before=dfl_signals,
                    act=s_serve(bad))


CHAT = {"path": "/v1/chat/completions",
        "body": {"messages": [{"role": "user", "content": "hi"}], "max_tokens": 8}}

SCENARIOS = [
    v("v-skip-tok-init-chat", "--skip-tokenizer-init; token-id completions, then a chat "
      "completion (text messages) among them", CHAT, SKIP),
    s("s-input-ids-negative", "served; /generate input_ids among good ones holding a negative id "
      "([1, -5, 99])", {"path": "/generate", "body": {
          "input_ids": [1, -5, 99], "sampling_params": {"max_new_tokens": 8}}}),
    v("v-skip-tok-init-oov-id", f"--skip-tokenizer-init; token-id completions, then one whose "
      f"prompt holds id {OOV} (the vocabulary has 512 ids; no tokenizer to check it against)",
      {"path": "/v1/completions", "body": {"prompt": [1, OOV, 99], "max_tokens": 8}}, SKIP),
    s("s-skip-tok-init-stop-str", "--skip-tokenizer-init; /generate input_ids, then one with "
      "stop strings ['fox', '.'] in its sampling params", {"path": "/generate", "body": {
          "input_ids": GOOD_IDS, "sampling_params": {"max_new_tokens": 8,
                                                     "stop": ["fox", "."]}}}, SKIP),
    s("s-skip-tok-init-chat", "--skip-tokenizer-init; /generate input_ids, then an OpenAI chat "
      "completion (text messages) among them", CHAT, SKIP),
]
