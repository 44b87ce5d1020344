"""The hundred-and-fifty-second batch's scenarios (tests/fixtures/corpus/fresh151): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind152.py OUT

Themes: streaming responses and their options, as chat UIs and SDKs send them, to a server that
is up and serving well-behaved requests alongside (two completions and a streamed chat request
before and after each fault). vLLM: --stream-interval 0 (its scheduler field is ge=1);
stream_options include_usage and continuous_usage_stats on non-streamed chat and completion
requests; streamed chat and completion requests asking for more logprobs (top_logprobs 50,
logprobs 30) than the default max_logprobs 20; a client that reads two SSE events of a streamed
completion and then sends a second request on the same keep-alive connection. SGLang:
--stream-interval 100000 with streamed /generate and chat requests of 120 tokens; a streamed
native /generate with return_logprob and top_logprobs_num 1000 (the tiny model's vocabulary is
512); --incremental-streaming-output (this SGLang's name for streamed output as disjoint
segments) with a streamed chat request of n 2, logprobs and top_logprobs 5; the same keep-alive
client as vLLM's. Both engines get --chat-template /tmp/blind152/chat.jinja (written when this
table is loaded; the tiny model has none); vLLM runs with VLLM_BASE's settings, SGLang with
--device cpu --model-impl transformers. What each client saw is written beside the logs
(/tmp/blind152/client-NAME.txt), for the labeller only.

Earlier batches already had (not repeated): SGLang's --stream-interval 0 (83rd), vLLM's
--stream-interval 8 under a burst (108th), streamed completions with logprobs and stream_options
include_usage (128th), streaming clients that hang up (67th, 111th, 141st), streams open at a
stop (70th, 109th, 129th), tool_choice auto streamed (91st).

Recorded 2026-12-06 in one invocation (raw1: five vLLM, four SGLang), taking turns with two
other helpers' recorders; each scenario once. About 9 minutes of recording (vLLM 8+52+48+49+51 s,
SGLang 114+61+101+68 s). 8 kept (final files ee101-ee108). Dropped: v-stream-n3-echo-json-schema
(a streamed chat request with n 3 and response_format json_schema, and a streamed completion with
n 3 and echo, both with stream_options: vLLM served both, 71 and 26 SSE events, and the log shows
nothing but `200 OK` access lines - the same log as any serving run, the fault not in it);
removed from the table.

What the engines did. vLLM refuses --stream-interval 0 at launch in pydantic's words
(`ValidationError: 1 validation error for SchedulerConfig` / `stream_interval` / `Input should
be greater than or equal to 1`). stream_options without stream is a bare `400 Bad Request`
access line (the reason, `Stream options can only be defined when stream=True`, goes only to the
client). Logprobs over max_logprobs in a streamed request are not refused up front: the access
line says `200 OK`, the API server logs at ERROR `Error in chat completion stream generator.` /
`Error in completion stream generator.` with a traceback ending `VLLMValidationError: Requested
sample logprobs of 50, which is greater than max allowed: 20`, the client gets an SSE error event
(code 400) and [DONE], and the server serves on. A request pipelined on a keep-alive connection
mid-stream is answered after the stream in both engines, without a word: only two access lines
from the same client port show it. SGLang's top_logprobs_num over the vocabulary kills the
server: `Scheduler hit an exception` with a traceback through the sampler ending
`logprobs.topk(max_k, dim=-1)` / `RuntimeError: selected index k out of range`, then `SIGQUIT
received ... It usually means one child failed.` and `kill_process_tree called`. SGLang's
--stream-interval 100000 and --incremental-streaming-output serve without a word (server_args
alone shows them); a 100000 interval sends a 120-token stream as the first token and then the
rest at the finish (3 and 5 SSE events), and n 2 with logprobs streams fine under incremental
output.
"""

from __future__ import annotations

import http.client
import json
import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger, until_exit  # noqa: E402

ROOT = Path("/tmp/blind152")
SG_READY = "The server is fired up and ready to roll!"
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")
SG = ["--device", "cpu", "--model-impl", "transformers", "--chat-template", str(CHAT_TEMPLATE)]
V = [*VLLM_BASE, "--chat-template", str(CHAT_TEMPLATE)]


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)


_setup()


def note(ctx: Ctx, text: str) -> None:
    """What the client saw, for the labeller (the engine's log is the record)."""
    with open(ROOT / f"client-{ctx.log.stem}.txt", "a") as f:
        f.write(text.rstrip() + "\n")


def call(ctx: Ctx, path: str, body: dict, timeout: float = 90) -> None:
    """POST ``body`` and read the whole answer (an SSE stream to its end); note what came."""
    conn = http.client.HTTPConnection("127.0.0.1", ctx.port, timeout=timeout)
    try:
        conn.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
        r = conn.getresponse()
        data = r.read().decode(errors="replace")
        events = [ln for ln in data.splitlines() if ln.startswith("data:")]
        errs = [e for e in events if '"error"' in e]
        note(ctx, f"{path} {json.dumps(body)[:160]} -> {r.status}, {len(events)} events, "
                  f"{len(errs)} error events; head {data[:300]!r}; tail {data[-300:]!r}")
    except (OSError, http.client.HTTPException) as e:
        note(ctx, f"{path} {json.dumps(body)[:160]} -> client error {e!r}")
    finally:
        conn.close()


def good(ctx: Ctx, engine: str, n: int = 2) -> None:
    """Well-behaved traffic: plain completions and a plain streamed chat request."""
    name = ctx.model_name()
    for i in range(n):
        call(ctx, "/v1/completions", {"model": name, "prompt": f"fox {i}", "max_tokens": 12})
    call(ctx, "/v1/chat/completions", {"model": name, "max_tokens": 12, "stream": True,
                                       "messages": [{"role": "user", "content": "hello"}]})


def when_up(engine: str, bad: list[tuple[str, dict]], tail_s: float = 12):
    """Once ready: good traffic, the bad requests (model name filled in), good traffic again."""
    def act(ctx: Ctx) -> None:
        ready = READY_LINE if engine == "vllm" else SG_READY
        if not ctx.wait_for(ready, 300) or (ctx.proc and ctx.proc.poll() is not None):
            linger(ctx, 5)
            return
        good(ctx, engine)
        name = ctx.model_name()
        for path, body in bad:
            call(ctx, path, {"model": name, **body} if path.startswith("/v1") else body)
            time.sleep(1)
        good(ctx, engine)
        linger(ctx, tail_s)
    return act


def keepalive_second_request(engine: str):
    """Once ready: a streamed request on a raw keep-alive connection; after two SSE events the
    client sends a second (plain) request on the same connection, then reads what comes."""
    def act(ctx: Ctx) -> None:
        ready = READY_LINE if engine == "vllm" else SG_READY
        if not ctx.wait_for(ready, 300) or (ctx.proc and ctx.proc.poll() is not None):
            linger(ctx, 5)
            return
        good(ctx, engine)
        name = ctx.model_name()

        def req(body: dict) -> bytes:
            b = json.dumps(body).encode()
            return (f"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:{ctx.port}\r\n"
                    "Content-Type: application/json\r\nConnection: keep-alive\r\n"
                    f"Content-Length: {len(b)}\r\n\r\n").encode() + b
        s = socket.create_connection(("127.0.0.1", ctx.port), timeout=60)
        got = b""
        try:
            s.sendall(req({"model": name, "prompt": "story", "max_tokens": 200, "stream": True,
                           "ignore_eos": True}))
            while got.count(b"data:") < 2:
                chunk = s.recv(4096)
                if not chunk:
                    break
                got += chunk
            s.sendall(req({"model": name, "prompt": "second", "max_tokens": 8}))
            end = time.monotonic() + 60
            while time.monotonic() < end:
                chunk = s.recv(65536)
                if not chunk:
                    break
                got += chunk
        except OSError as e:
            note(ctx, f"keep-alive client error {e!r}")
        finally:
            s.close()
        note(ctx, f"keep-alive: {got.count(b'HTTP/1.1')} responses, {got.count(b'data:')} "
                  f"events, {len(got)} bytes; tail {got[-400:]!r}")
        good(ctx, engine)
        linger(ctx, 12)
    return act


CHAT_MSG = [{"role": "user", "content": "Tell me about foxes."}]
USAGE = {"include_usage": True, "continuous_usage_stats": True}


def v(name: str, what: str, args: list[str], act) -> Scenario:
    return Scenario(name, "vllm", what, args, act=act)


def s(name: str, what: str, args: list[str], act) -> Scenario:
    return Scenario(name, "sglang", what, args, act=act)


SCENARIOS = [
    v("v-stream-interval-0", "--stream-interval 0 (streamed tokens sent every 0 tokens)",
      [*V, "--stream-interval", "0"], until_exit),
    v("v-stream-options-without-stream", "served; then stream_options include_usage and "
      "continuous_usage_stats on a non-streamed chat request and a non-streamed completion, "
      "as an SDK that always sends them", V,
      when_up("vllm", [
          ("/v1/chat/completions", {"messages": CHAT_MSG, "max_tokens": 8, "stream": False,
                                    "stream_options": USAGE}),
          ("/v1/completions", {"prompt": "fox", "max_tokens": 8, "stream_options": USAGE})])),
    v("v-stream-top-logprobs-over-max", "served; then streamed chat requests with logprobs "
      "and top_logprobs 50 and a streamed completion with logprobs 30 (over the default "
      "max_logprobs 20)", V,
      when_up("vllm", [
          ("/v1/chat/completions", {"messages": CHAT_MSG, "max_tokens": 8, "stream": True,
                                    "logprobs": True, "top_logprobs": 50}),
          ("/v1/completions", {"prompt": "fox", "max_tokens": 8, "stream": True,
                               "logprobs": 30})])),
    v("v-keepalive-second-request-mid-stream", "served; a client reads two SSE events of a "
      "streamed 200-token completion, then sends a second request on the same keep-alive "
      "connection", V, keepalive_second_request("vllm")),
    s("s-stream-interval-100000", "--stream-interval 100000; streamed chat and /generate "
      "requests of 120 tokens", [*SG, "--stream-interval", "100000"],
      when_up("sglang", [
          ("/generate", {"text": "fox", "stream": True, "sampling_params": {
              "max_new_tokens": 120, "ignore_eos": True}}),
          ("/v1/chat/completions", {"messages": CHAT_MSG, "max_tokens": 120, "stream": True,
                                    "stream_options": USAGE})])),
    s("s-generate-stream-top-logprobs-1000", "served; then streamed /generate with "
      "return_logprob and top_logprobs_num 1000 (the model's vocabulary is 512)", SG,
      when_up("sglang", [
          ("/generate", {"text": "fox", "stream": True, "return_logprob": True,
                         "top_logprobs_num": 1000,
                         "sampling_params": {"max_new_tokens": 16}})])),
    s("s-incremental-stream-chat-n2-logprobs", "--incremental-streaming-output; streamed chat "
      "with n 2, logprobs and top_logprobs 5", [*SG, "--incremental-streaming-output"],
      when_up("sglang", [
          ("/v1/chat/completions", {"messages": CHAT_MSG, "max_tokens": 16, "stream": True,
                                    "n": 2, "logprobs": True, "top_logprobs": 5,
                                    "stream_options": USAGE})])),
    s("s-keepalive-second-request-mid-stream", "served; a client reads two SSE events of a "
      "streamed 200-token completion, then sends a second request on the same keep-alive "
      "connection", SG, keepalive_second_request("sglang")),
]
