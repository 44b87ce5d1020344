"""The two-hundred-and-thirty-fourth batch's scenarios (tests/fixtures/corpus/fresh233): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind234.py OUT

Themes: time limits around a request, set by the server, the client or a proxy - what a person
meets when generations are long and something in the path gives up or a timer is set to an odd
value. vLLM: uvicorn's keep-alive set to zero (VLLM_HTTP_TIMEOUT_KEEP_ALIVE=0, meant as "no
limit") under a client that keeps one connection for several requests; eight proxy-like clients
that half-close their sockets (FIN after the body) while waiting for a non-streamed 1,500-token
completion; a proxy whose 3 s upstream timer abandons a streamed 1,500-token completion and
retries it, three times. SGLang: the scheduler's queue timeout (SGLANG_REQ_WAITING_TIMEOUT=3)
with one running slot under six long completions; the scheduler watchdog set tight
(--watchdog-timeout 0.5) against eight concurrent streamed 1,500-token generations; the
tokenizer manager's per-request wait (SGLANG_REQUEST_STATE_WAIT_TIMEOUT=0, meant as "no limit");
24 non-streamed clients, most still queued behind --max-running-requests 2, whose 3 s timeouts
run out at the same moment. Plain completions come before and after each fault.

Earlier batches already had (not repeated): the hard watchdog at 0.05 s with CPU hogs, the soft
watchdog, SGLANG_WARMUP_TIMEOUT, SGLANG_REQ_RUNNING_TIMEOUT, SGLANG_HEALTH_CHECK_TIMEOUT=0,
VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS against a stalled worker, the chat template's render timeout,
--shutdown-timeout draining streams, VLLM_WORKER_SHUTDOWN_TIMEOUT_SECONDS (129th); 50 clients
resetting at once, a slow reader, pipelined keep-alive requests (141st); streaming clients
disconnecting while queued, SIGTERM/SIGINT with streams open, a load balancer's sub-second probe
(111th); clients giving up under --max-num-seqs 1 / --max-running-requests 1 (139th); a request
cancelled in the queue and while decoding (191st); the openai SDK's timeout and retries (200th);
SGLANG_TIMEOUT_KEEP_ALIVE=1 with an idle connection reused (171st); VLLM_HTTP_TIMEOUT_KEEP_ALIVE=5s
(72nd) and VLLM_ENGINE_ITERATION_TIMEOUT_S as text (74th, 84th); 12 vLLM streams dropped (67th).

Recorded 2026-12-07 in one invocation (raw1: the table in order), taking turns with other
helpers' recorders; each scenario once. vLLM 53, 71 and 66 s; SGLang 60, 92, 185 and 68 s.
All seven kept (final files hk101-hk107); none dropped. s-watchdog-tight-long-gen's fault never
showed (kept as a fair log of the ground, labelled ready).

What the engines did. vLLM printed nothing of any of its three faults: with keep-alive 0 the
server closed the kept connection after each answer (the client met BrokenPipeError twice and
reconnected) and the log shows only `200 OK` lines; the half-closing clients got no bytes and
their POSTs leave no access line, no abort and no error (the long requests never ran); the
proxy's three abandoned streams show as three `200 OK` lines, a stats line showing one still
running after its client went. Ready in serving: hk101, hk102, hk103. SGLang: the queue timeout
answered the five waiting requests `503 Service Unavailable` about 3 s in, with no line saying
why, and served on (hk104, ready); the 0.5 s watchdog never fired, eight streams of 1,500 tokens
decoded in 30 s (hk105, ready); with the state wait at zero the server never finished its own
warm-up request (its prefill line, then silence: no ready line, no error, for two minutes; a
later client request prefilled and was never answered; the act's four giving-up clients were
never sent, as the server never said it was ready) (hk106, incomplete in warmup); the 24
clients giving up at once left no access line and no abort message, only one
FastAPIDeprecationWarning from `create_error_response` and the queue emptying, and it served on (hk107, ready). None crashed.
"""

from __future__ import annotations

import http.client
import json
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind234")
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


def raw_post(ctx: Ctx, body: dict, path: str = "/v1/completions") -> socket.socket:
    """A POST written on a raw socket, left open for the caller."""
    data = json.dumps(body).encode()
    s = socket.create_connection(("127.0.0.1", ctx.port), timeout=10)
    s.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1:{ctx.port}\r\n"
              f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n\r\n".encode()
              + data)
    return s


def long_body(ctx: Ctx, tokens: int, stream: bool = False) -> dict:
    return {"model": ctx.model_name(), "prompt": LONG, "max_tokens": tokens,
            "ignore_eos": True, "temperature": 0.8, "stream": stream}


def give_up_after(ctx: Ctx, name: str, body: dict, after_s: float, tag: str) -> None:
    """A client whose read timeout runs out: it reads for ``after_s`` s, then closes cleanly."""
    try:
        s = raw_post(ctx, body)
    except OSError as e:
        note(name, f"{tag}: connect failed {e!r}")
        return
    got = b""
    end = time.monotonic() + after_s
    s.settimeout(0.5)
    while time.monotonic() < end:
        try:
            chunk = s.recv(65536)
        except TimeoutError:
            continue
        except OSError:
            break
        if not chunk:
            break
        got += chunk
    s.close()
    note(name, f"{tag}: gave up after {after_s} s with {len(got)} bytes: {got[:80]!r}")


# --- vLLM -----------------------------------------------------------------------------------

def keepalive_zero(ctx: Ctx) -> None:
    """VLLM_HTTP_TIMEOUT_KEEP_ALIVE=0: a client keeping one connection for several requests."""
    name = "v-keepalive-zero"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(2)
    model = ctx.model_name()
    conn = http.client.HTTPConnection("127.0.0.1", ctx.port, timeout=60)
    for i in range(6):
        if i == 4:
            time.sleep(2)
        try:
            conn.request("POST", "/v1/completions", json.dumps(
                {"model": model, "prompt": f"fox {i}", "max_tokens": 200 if i == 5 else 16,
                 "ignore_eos": True}), {"Content-Type": "application/json"})
            r = conn.getresponse()
            r.read()
            note(name, f"request {i} on the kept connection: {r.status} "
                       f"Connection: {r.getheader('Connection')}")
        except (OSError, http.client.HTTPException) as e:
            note(name, f"request {i} on the kept connection failed: {e!r}; reconnecting")
            conn.close()
            conn = http.client.HTTPConnection("127.0.0.1", ctx.port, timeout=60)
    conn.close()
    ctx.complete(2)
    time.sleep(12)


def half_close(ctx: Ctx) -> None:
    """Eight proxy-like clients that send a long non-streamed completion and then shut down
    their sending side (FIN after the body), waiting for the answer."""
    name = "v-half-close-after-send"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(2)
    socks = []
    for _ in range(8):
        try:
            s = raw_post(ctx, long_body(ctx, 1500))
            s.shutdown(socket.SHUT_WR)
            socks.append(s)
        except OSError as e:
            note(name, f"send failed {e!r}")
    end = time.monotonic() + 40
    for i, s in enumerate(socks):
        s.settimeout(max(0.5, end - time.monotonic()))
        got = b""
        try:
            while chunk := s.recv(65536):
                got += chunk
        except OSError as e:
            note(name, f"client {i}: {e!r}")
        s.close()
        note(name, f"client {i}: {len(got)} bytes: {got[:60]!r}")
    ctx.complete(2)
    time.sleep(12)


def proxy_retry_stream(ctx: Ctx) -> None:
    """A proxy with a 3 s upstream timeout that retries a streamed 1,500-token completion three
    times, closing each attempt's connection when its timer runs out."""
    name = "v-proxy-retry-stream"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(1)
    body = long_body(ctx, 1500, stream=True)
    for attempt in range(3):
        give_up_after(ctx, name, body, 3, f"attempt {attempt}")
    ctx.complete(2)
    time.sleep(12)


# --- SGLang ---------------------------------------------------------------------------------

def waiting_timeout_burst(ctx: Ctx) -> None:
    """Six concurrent 600-token completions on one running slot."""
    name = "s-req-waiting-timeout"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(1)
    body = long_body(ctx, 600)

    def one(i: int) -> None:
        note(name, f"request {i}: {ctx.post('/v1/completions', body, timeout=150)}")

    threads = [threading.Thread(target=one, args=(i,)) for i in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(160)
    ctx.complete(2)
    time.sleep(10)


def watchdog_long_gen(ctx: Ctx) -> None:
    """Eight concurrent streamed 1,500-token generations, read for up to 60 s."""
    name = "s-watchdog-tight-long-gen"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(1)
    body = long_body(ctx, 1500, stream=True)
    threads = [threading.Thread(target=give_up_after, args=(ctx, name, body, 60, f"stream {i}"))
               for i in range(8)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(70)
    ctx.complete(2)
    linger(ctx, 10)


def state_wait_zero(ctx: Ctx) -> None:
    """SGLANG_REQUEST_STATE_WAIT_TIMEOUT=0: plain requests, then clients giving up."""
    name = "s-state-wait-timeout-zero"
    if ctx.wait_any([SG_READY], 150) is None:
        if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
            note(name, "no ready line; one completion anyway: "
                       f"{ctx.post('/v1/completions', {'model': 'x', 'prompt': 'fox', 'max_tokens': 8}, timeout=20)}")
        linger(ctx, 15)
        return
    note(name, "completion: " + str(ctx.post(
        "/v1/completions", {"model": ctx.model_name(), "prompt": "fox", "max_tokens": 16},
        timeout=20)))
    body = long_body(ctx, 1500)
    threads = [threading.Thread(target=give_up_after, args=(ctx, name, body, 3, f"client {i}"))
               for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(10)
    time.sleep(5)
    note(name, "completion after: " + str(ctx.post(
        "/v1/completions", {"model": ctx.model_name(), "prompt": "fox", "max_tokens": 16},
        timeout=20)))
    linger(ctx, 10)


def queued_give_up(ctx: Ctx) -> None:
    """24 non-streamed 800-token clients, most queued behind two running slots, all giving up
    at the same moment (3 s), then plain completions."""
    name = "s-queued-clients-give-up"
    if not ready(ctx):
        linger(ctx, 20)
        return
    ctx.complete(1)
    body = long_body(ctx, 800)
    threads = [threading.Thread(target=give_up_after, args=(ctx, name, body, 3, f"client {i}"))
               for i in range(24)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(15)
    time.sleep(8)
    ctx.complete(2)
    linger(ctx, 10)


V2K = [*VLLM_BASE, "--max-model-len", "2048"]

SCENARIOS = [
    Scenario("v-keepalive-zero", "vllm",
             "VLLM_HTTP_TIMEOUT_KEEP_ALIVE=0 (meant as no limit) with a client that keeps one "
             "connection for six requests, the fifth after a 2 s pause",
             VLLM_BASE, env={"VLLM_HTTP_TIMEOUT_KEEP_ALIVE": "0"}, act=keepalive_zero),
    Scenario("v-half-close-after-send", "vllm",
             "--max-model-len 2048; eight proxy-like clients send a non-streamed 1,500-token "
             "completion and half-close their socket (FIN) after the body, waiting for the answer",
             V2K, act=half_close),
    Scenario("v-proxy-retry-stream", "vllm",
             "--max-model-len 2048; a proxy with a 3 s upstream timeout retries a streamed "
             "1,500-token completion three times, closing each attempt when its timer runs out",
             V2K, act=proxy_retry_stream),
    Scenario("s-req-waiting-timeout", "sglang",
             "SGLANG_REQ_WAITING_TIMEOUT=3 with --max-running-requests 1; six concurrent "
             "600-token completions", [*SG, "--max-running-requests", "1"],
             env={"SGLANG_REQ_WAITING_TIMEOUT": "3"}, act=waiting_timeout_burst),
    Scenario("s-watchdog-tight-long-gen", "sglang",
             "--watchdog-timeout 0.5 against eight concurrent streamed 1,500-token generations",
             [*SG, "--watchdog-timeout", "0.5"], act=watchdog_long_gen),
    Scenario("s-state-wait-timeout-zero", "sglang",
             "SGLANG_REQUEST_STATE_WAIT_TIMEOUT=0 (meant as no limit); a completion, then four "
             "non-streamed 1,500-token clients that give up after 3 s, then a completion",
             SG, env={"SGLANG_REQUEST_STATE_WAIT_TIMEOUT": "0"}, act=state_wait_zero),
    Scenario("s-queued-clients-give-up", "sglang",
             "--max-running-requests 2; 24 non-streamed 800-token clients whose 3 s timeouts "
             "run out at once, most still queued", [*SG, "--max-running-requests", "2"],
             act=queued_give_up),
]
