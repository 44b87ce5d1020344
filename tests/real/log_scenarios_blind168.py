"""The hundred-and-sixty-eighth batch's scenarios (tests/fixtures/corpus/fresh167): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind168.py OUT

Themes: request logging and request identity - what a person meets turning on per-request logs
and tracing requests through a proxy. vLLM: --enable-log-outputs without --enable-log-requests;
--max-log-len 0 (meant as "no limit") with request and output logging on and chat requests;
--enable-request-id-headers with a client (a proxy) sending a 70,006-character X-Request-Id; two
completions sent at once carrying the same `request_id` in their bodies. SGLang: a batched
/generate whose rid list is shorter than its text list; a batched /generate whose rids repeat; a
numeric rid with --log-requests --log-requests-format json; --crash-dump-folder with request
logging on when the scheduler dies (SIGKILL) while serving.

Earlier batches already had (not repeated): a reused X-Request-Id header on concurrent requests
(116th), the same rid on two separate /generate requests at once (149th), --log-requests-level 9,
--crash-dump-folder unwritable (95th), --log-requests-level 3 with long prompts (137th),
--log-requests-target unmakeable (116th), --log-requests with a stopped scheduler (104th),
--enable-log-requests with PYTHONIOENCODING=ascii (160th, dropped), a logging format naming
%(request_id)s (137th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. Each
scenario first sets SIGINT and SIGQUIT back to their default actions (dfl_signals, as the 133rd
table does). The crash-dump folder /tmp/blind168/dumps and a plain chat template
/tmp/blind168/chat.jinja (the tiny model has none) are made when this table is loaded.

Recorded 2026-12-07 in 2 invocations (raw1: the eight scenarios first written; raw2:
v-max-log-len-0-chat, added after raw1's v-max-log-len-negative showed nothing), taking turns with
two other helpers' recorders; each scenario once. About 7.5 minutes of recording (vLLM
9+51+44+43+43 s, the 51 s the dropped take's, SGLang 79+48+63+39 s). 8 kept (final files
eu101-eu108). Dropped, and removed from the table: v-max-log-len-negative (--enable-log-requests
--enable-log-outputs --max-log-len -1, a completion and a streamed completion): vLLM took -1
without a word (only `'max_log_len': -1` in the non-default args) and its completions route logs no
outputs at all, only `Received request ... params:` lines, so the fault never shows; replaced by
v-max-log-len-0-chat on the chat route, which logs outputs.

What the engines did. vLLM refuses --enable-log-outputs alone before anything starts (`TypeError:
Error: --enable-log-outputs requires --enable-log-requests`, launch, 9 s). Every other fault here
was served on (ready in serving): vLLM takes a 70,006-character X-Request-Id whole as the request
id (the `Received request cmpl-trace-...` and `Added request` lines are about 70,000 characters; no
431, no warning); two bodies with request_id "job-7" are both logged as `cmpl-job-7-0` and made
distinct only by async_llm's random suffix; --max-log-len 0 logs every chat output as `output: ''`
(streamed deltas too). This build logs outputs only on its chat and responses routes:
--enable-log-outputs adds nothing to /v1/completions. SGLang refuses a rid list of the wrong length
(`[http_server] Error: The specified rids length mismatch with the batch_size for batch
processing.`) and a rid repeated within one batch (`Duplicate request IDs detected within the
request: ['job-9']`) with 400s, but a numeric rid with a bare 400 and no word but a
FastAPIDeprecationWarning. With --crash-dump-folder, a scheduler SIGKILLed while serving gives
`Subprocess scheduler_0 ... crashed with exit code -9`, SIGQUIT, `Dumped 3 finished and 0
unfinished requests before crash to /tmp/blind168/dumps/vm/crash_dump_...pkl` (a hostname folder
under the one named) and kill_process_tree.
"""

from __future__ import annotations

import http.client
import json
import signal
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    signal_quietly,
)

ROOT = Path("/tmp/blind168")
DUMPS = ROOT / "dumps"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


CHAT_TEMPLATE = ROOT / "chat.jinja"


def _setup() -> None:
    DUMPS.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n"
                             "{% endfor %}assistant:")


_setup()


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch: a recorder started
    in the background by a shell inherits them ignored, and the engine would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def call(ctx: Ctx, path: str, body: object, headers: dict[str, str] | None = None,
         timeout: float = 90) -> int:
    """POST ``body`` as JSON with ``headers``; the status (0: no answer)."""
    try:
        c = http.client.HTTPConnection("127.0.0.1", ctx.port, timeout=timeout)
        c.request("POST", path, body=json.dumps(body).encode(),
                  headers={"Content-Type": "application/json", **(headers or {})})
        r = c.getresponse()
        r.read()
        c.close()
        return r.status
    except (OSError, http.client.HTTPException):
        return 0


def at_once(*fns: Callable[[], object]) -> None:
    ts = [threading.Thread(target=f) for f in fns]
    for t in ts:
        t.start()
    for t in ts:
        t.join(120)


def serving(ready: str, traffic: Callable[[Ctx], None], tail: float = 12) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([ready], 240) == ready and ctx.proc is not None \
                and ctx.proc.poll() is None:
            traffic(ctx)
            linger(ctx, tail)
        else:
            linger(ctx, 5)
    return act


def v_until_exit(ctx: Ctx) -> None:
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        linger(ctx, 8)


# --- vLLM traffic -------------------------------------------------------------------------------

def v_chat(ctx: Ctx) -> None:
    name = ctx.model_name()
    for i, stream in enumerate((False, True, False)):
        call(ctx, "/v1/chat/completions", {"model": name, "max_tokens": 12, "stream": stream,
                                           "messages": [{"role": "user",
                                                         "content": f"Tell me a story {i}"}]})


def v_long_request_id(ctx: Ctx) -> None:
    name = ctx.model_name()
    call(ctx, "/v1/completions", {"model": name, "prompt": "fox 0", "max_tokens": 8},
         headers={"X-Request-Id": "trace-" + "a1b2c3d4" * 8750})
    call(ctx, "/v1/completions", {"model": name, "prompt": "fox 1", "max_tokens": 8},
         headers={"X-Request-Id": "trace-short-1"})


def v_body_request_id_dup(ctx: Ctx) -> None:
    name = ctx.model_name()
    body = {"model": name, "prompt": "Once upon a time there was", "max_tokens": 120,
            "request_id": "job-7", "ignore_eos": True}
    at_once(lambda: call(ctx, "/v1/completions", body), lambda: call(ctx, "/v1/completions", body))
    call(ctx, "/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8})


# --- SGLang traffic -----------------------------------------------------------------------------

def gen(ctx: Ctx, **body: object) -> int:
    return call(ctx, "/generate", {"sampling_params": {"max_new_tokens": 12}, **body})


def s_rid_short_list(ctx: Ctx) -> None:
    gen(ctx, text=["The quick brown fox", "Once upon a time", "In the beginning"],
        rid=["batch-1-a", "batch-1-b"])
    gen(ctx, text="A plain request after the batch")


def s_rid_repeated_in_batch(ctx: Ctx) -> None:
    gen(ctx, text=["The quick brown fox", "Once upon a time"], rid=["job-9", "job-9"])
    gen(ctx, text="A plain request after the batch")


def s_rid_numeric(ctx: Ctx) -> None:
    gen(ctx, text="The quick brown fox", rid=12345)
    gen(ctx, text="A plain request with a string rid", rid="req-12346")


def s_kill_scheduler(ctx: Ctx) -> None:
    gen(ctx, text="The quick brown fox", rid="before-crash-1")
    gen(ctx, text="Once upon a time", rid="before-crash-2")
    for p in ctx.children("scheduler")[-1:]:
        signal_quietly(p, signal.SIGKILL)
    time.sleep(2)
    gen(ctx, text="After the crash", rid="after-crash-1")


def v(name: str, what: str, args: list[str], act: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], before=dfl_signals, act=act)


def s(name: str, what: str, args: list[str], act: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], before=dfl_signals, act=act)


LOG_V = ["--enable-log-requests", "--enable-log-outputs"]

SCENARIOS = [
    v("v-log-outputs-without-log-requests", "--enable-log-outputs given without "
      "--enable-log-requests", ["--enable-log-outputs"], v_until_exit),
    s("s-rid-list-shorter-than-batch", "--log-requests; a batched /generate of three texts "
      "with a rid list of two", ["--log-requests"], serving(SG_READY, s_rid_short_list)),
    s("s-rid-repeated-in-batch", "--log-requests; a batched /generate of two texts whose rid "
      "list repeats one id (job-9, job-9)", ["--log-requests"],
      serving(SG_READY, s_rid_repeated_in_batch)),
    v("v-request-id-header-70k", "--enable-request-id-headers --enable-log-requests; a proxy "
      "sends an X-Request-Id of 70,006 characters, then a short one",
      ["--enable-request-id-headers", "--enable-log-requests"],
      serving(READY_LINE, v_long_request_id)),
    s("s-rid-numeric-json-log", "--log-requests --log-requests-format json; a /generate whose "
      "rid is the number 12345, then one with a string rid",
      ["--log-requests", "--log-requests-format", "json"], serving(SG_READY, s_rid_numeric)),
    v("v-body-request-id-duplicate", "--enable-log-requests --enable-log-outputs; two "
      "completions sent at once with the same request_id (job-7) in their bodies", LOG_V,
      serving(READY_LINE, v_body_request_id_dup)),
    v("v-max-log-len-0-chat", "--enable-log-requests --enable-log-outputs --max-log-len 0 "
      "(meant as 'no limit'); a plain chat template; two chat completions and a streamed one",
      [*LOG_V, "--max-log-len", "0", "--chat-template", str(CHAT_TEMPLATE)],
      serving(READY_LINE, v_chat)),
    s("s-crash-dump-scheduler-killed", "--crash-dump-folder /tmp/blind168/dumps --log-requests; "
      "two requests served, then the scheduler SIGKILLed, then one more request",
      ["--log-requests", "--crash-dump-folder", str(DUMPS)],
      serving(SG_READY, s_kill_scheduler, tail=40)),
]
