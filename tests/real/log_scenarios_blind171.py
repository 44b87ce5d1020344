"""The hundred-and-seventy-first batch's scenarios (tests/fixtures/corpus/fresh170): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind171.py OUT

Themes: HTTP requests at the protocol's edges, sent with raw sockets to a server that is up, as
proxies and odd clients send them: a negative Content-Length, a gzip-encoded body the server
does not decode (Content-Encoding: gzip), HTTP/1.0 requests without a Host header (both
engines), a browser's CORS preflight OPTIONS with a TRACE and an OPTIONS * (both engines), and
five requests pipelined on one connection (SGLang). Well-behaved completions come before and
after each fault.

Earlier batches already had (not repeated): a 200 KB header and a body shorter than its
Content-Length (99th, both engines), --h11-max-incomplete-event-size 64 (88th, vLLM), a chunked
body cut mid-chunk with the socket held open and five pipelined requests (141st, vLLM), an
HTTP/1.0 POST without Content-Length and bodies that are not JSON (141st, SGLang), a second
request on a keep-alive connection after a stream (152nd).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings. The
replies each raw request got are written to /tmp/blind171/NAME-reply.txt.

Recorded 2026-12-07 in two invocations (raw1: the first table's eight scenarios in order; raw2:
s-options-trace and s-http10-no-host, added once two SGLang logs had to be dropped), taking turns
with two other helpers' recorders; each scenario once. About 7 minutes of recording (vLLM
51+52+59+47 s, SGLang 49+59+52+54+58+47 s). 7 kept (final files ex101-ex107). Dropped, and
removed from SCENARIOS: s-chunked-cut-close (a chunked POST /generate whose first chunk promises
0x400 bytes and carries 60, the socket then closed: SGLang logged nothing of it - the fault does
not show), s-content-length-short (a Content-Length 20 bytes short of the JSON body: SGLang's
`"POST /generate HTTP/1.1" 400 Bad Request` after starlette's FastAPIDeprecationWarning, the
reply a JSON decode error - the same log as fresh140/dt110's bodies that are not JSON; the 20
bytes left on the connection were never read as a request), s-keepalive-idle-1s
(SGLANG_TIMEOUT_KEEP_ALIVE=1, a keep-alive connection idle 7 s then reused: the server had
closed it, the client read EOF, and the log shows only the first request's 200 - the fault does
not show). What the engines did: every kept log ends as a served run, ready in serving, the
server answering the completions after the fault. A negative Content-Length is refused by h11
before any route: vLLM's uvicorn logs `WARNING:  Invalid HTTP request received.` and no access
line (the client gets a 400 with that text). A gzip-encoded body is not decoded: vLLM answers
a bare `400 Bad Request` access line (`There was an error parsing the body` in the reply). A
CORS preflight from an unlisted origin is a 400 in vLLM (`Disallowed CORS origin` in the reply)
but a 200 in SGLang, whose middleware allows any origin; TRACE / is a 404 in vLLM, a 405 in
SGLang; OPTIONS * a 404 in both. HTTP/1.0 without Host is served 200 by both, the access lines
saying `HTTP/1.0`. Five pipelined /generate requests: SGLang answers them in order, one prefill
batch of one sequence each, five 200 lines from one client port.
"""

from __future__ import annotations

import gzip
import json
import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind171")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def keep_reply(ctx: Ctx, text: bytes) -> None:
    f = ROOT / f"{ctx.log.stem}-reply.txt"
    with open(f, "ab") as out:
        out.write(text[:6000] + b"\n-----\n")


def raw(ctx: Ctx, data: bytes, wait: float = 8) -> bytes:
    """Send ``data`` on a fresh connection; what came back within ``wait`` s."""
    got = b""
    try:
        with socket.create_connection(("127.0.0.1", ctx.port), timeout=wait) as c:
            c.sendall(data)
            end = time.monotonic() + wait
            while time.monotonic() < end:
                try:
                    chunk = c.recv(65536)
                except TimeoutError:
                    break
                if not chunk:
                    break
                got += chunk
    except OSError as e:
        got += f"(client error {e!r})".encode()
    keep_reply(ctx, got)
    return got


def body(ctx: Ctx, engine: str) -> bytes:
    if engine == "sglang":
        return json.dumps({"text": "fox", "sampling_params": {"max_new_tokens": 8}}).encode()
    return json.dumps({"model": ctx.model_name(), "prompt": "fox", "max_tokens": 8}).encode()


def path_of(engine: str) -> str:
    return "/generate" if engine == "sglang" else "/v1/completions"


def served(engine: str, fault: Callable[[Ctx, str], None]) -> Callable[[Ctx], None]:
    """Once ready: two completions, the fault, one more completion, a pause."""
    def act(ctx: Ctx) -> None:
        ready = SG_READY if engine == "sglang" else READY_LINE
        if not ctx.wait_for(ready, 300):
            return
        ctx.complete(2, max_tokens=12)
        time.sleep(1)
        fault(ctx, engine)
        time.sleep(2)
        ctx.complete(1, max_tokens=12)
        linger(ctx, 12)
    return act


# --- faults ------------------------------------------------------------------------------------

def cl_negative(ctx: Ctx, engine: str) -> None:
    b = body(ctx, engine)
    raw(ctx, (f"POST {path_of(engine)} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              "Content-Type: application/json\r\nContent-Length: -20\r\n\r\n").encode() + b)




def gzip_body(ctx: Ctx, engine: str) -> None:
    z = gzip.compress(body(ctx, engine))
    raw(ctx, (f"POST {path_of(engine)} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              "Content-Type: application/json\r\nContent-Encoding: gzip\r\n"
              f"Content-Length: {len(z)}\r\n\r\n").encode() + z)


def options_trace(ctx: Ctx, engine: str) -> None:
    raw(ctx, (f"OPTIONS {path_of(engine)} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
              "Origin: http://ui.example\r\nAccess-Control-Request-Method: POST\r\n"
              "Access-Control-Request-Headers: content-type\r\n\r\n").encode(), wait=4)
    raw(ctx, b"TRACE / HTTP/1.1\r\nHost: 127.0.0.1\r\nMax-Forwards: 0\r\n\r\n", wait=4)
    raw(ctx, b"OPTIONS * HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n", wait=4)


def http10_no_host(ctx: Ctx, engine: str) -> None:
    b = body(ctx, engine)
    raw(ctx, b"GET /v1/models HTTP/1.0\r\n\r\n", wait=5)
    raw(ctx, (f"POST {path_of(engine)} HTTP/1.0\r\nContent-Type: application/json\r\n"
              f"Content-Length: {len(b)}\r\n\r\n").encode() + b, wait=30)




def pipelined_5(ctx: Ctx, engine: str) -> None:
    b = body(ctx, engine)
    one = (f"POST {path_of(engine)} HTTP/1.1\r\nHost: 127.0.0.1\r\n"
           f"Content-Type: application/json\r\nContent-Length: {len(b)}\r\n\r\n").encode() + b
    raw(ctx, one * 5, wait=30)




def v(name: str, what: str, fault: Callable[[Ctx, str], None], **env: str) -> Scenario:
    return Scenario(name, "vllm", what, list(VLLM_BASE), env=env, act=served("vllm", fault))


def s(name: str, what: str, fault: Callable[[Ctx, str], None], **env: str) -> Scenario:
    return Scenario(name, "sglang", what, list(SG), env=env, act=served("sglang", fault))


SERVED = "served two completions, then "

SCENARIOS = [
    v("v-content-length-negative", f"{SERVED}a raw POST /v1/completions with Content-Length: "
      "-20 and a JSON body, then one more completion", cl_negative),
    v("v-gzip-body", f"{SERVED}a raw POST /v1/completions whose JSON body is gzip-compressed "
      "(Content-Encoding: gzip), then one more completion", gzip_body),
    s("s-pipelined-5", f"{SERVED}five POST /generate requests pipelined on one keep-alive "
      "connection in one write, then one more completion", pipelined_5),
    v("v-options-trace", f"{SERVED}a CORS preflight OPTIONS /v1/completions, a TRACE / and an "
      "OPTIONS *, then one more completion", options_trace),
    v("v-http10-no-host", f"{SERVED}HTTP/1.0 requests without a Host header (GET /v1/models, "
      "POST /v1/completions), then one more completion", http10_no_host),
    s("s-options-trace", f"{SERVED}a CORS preflight OPTIONS /generate, a TRACE / and an "
      "OPTIONS *, then one more completion", options_trace),
    s("s-http10-no-host", f"{SERVED}HTTP/1.0 requests without a Host header (GET /v1/models, "
      "POST /generate), then one more completion", http10_no_host),
]
