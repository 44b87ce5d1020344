"""The hundred-and-forty-first batch's scenarios (tests/fixtures/corpus/fresh140): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind141.py OUT

Themes: clients that misbehave at the network level, as load generators, proxies and flaky
networks do, written with raw sockets where an HTTP library would be too polite: 50 clients that
close their sockets with a reset at once (vLLM: non-streamed 1,800-token completions 1 s in;
SGLang: streamed /generate requests after their first chunk); a reader so slow that the server's
send buffer fills (a streamed 1,800-token generation read a byte a second through a 4 KiB
receive buffer); a request body of 40 MB of JSON (a prompt of ten million token ids); a chunked
body cut mid-chunk with the socket held open (vLLM); five requests pipelined on one keep-alive
connection; an HTTP/1.0 POST that carries its body without a Content-Length; bodies that are not
JSON. Well-behaved completions are sent alongside or after each fault.

Earlier batches already had (not repeated): 12 vLLM streams dropped after the first chunks
(67th), 30 queued vLLM streams aborted (111th), a prompt of four million characters (91st, both
engines), 300 idle connections, a 200 KB header and a body shorter than its Content-Length
(99th, both engines), a cut JSON body and a form-encoded body to vLLM (68th).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings (a later
--max-model-len wins where a scenario gives one). Replies the acts read are kept under
/tmp/blind141/ (*-reply.txt, *-replies.txt); the chunked body's first chunk is 62 bytes (the
source lines say 60).

Recorded 2026-12-06 in two invocations (raw1: the table in order, with the two dropped below;
raw2: v-disconnect-50-long), taking turns with two other helpers' recorders (most of the half
hour went to waiting for the lock); each scenario once. About 11 minutes of recording (vLLM
48+84+60+77+44+49 s, SGLang 54+106+68+54+68 s). 10 kept (final files dt101-dt110). Dropped:
v-disconnect-50-nonstream (50 non-streamed 200-token completions reset 3 s in: all 50 had been
answered 200 within those 3 s - the tokens come at about 950/s here - so the reset landed on
nothing; re-taken as v-disconnect-50-long, 1,800 tokens reset 1 s in); s-chunked-cut-mid-chunk
(SGLang's chunked body cut mid-chunk: its turn came at the end of the time allowed and the run
was stopped by hand during startup, before the fault; not labelled). Both are removed from
SCENARIOS below. What the engines did: every fault here ends as a served run, the server
answering the well-behaved requests beside it. Neither engine logs a client that goes away: vLLM
gives a reset non-streamed request no access line at all (its stats line alone shows the prompts
taken in and the tokens cut short), SGLang logs a stream's 200 when its headers go out and drops
the reset streams before prefill or mid-decode without a word. A reader a byte a second does not
slow vLLM's engine (the whole 1,800 tokens were made within ten seconds and wait in the API
server) while SGLang's decode of that stream slowed to 9 tokens/s and stopped when the socket
closed. Ten million token ids (40 MB of JSON): vLLM a bare 400, SGLang `[http_server] Error: The
input (10000000 tokens) is longer than the model's context length (2048 tokens).` and a 400. An
HTTP/1.0 POST without Content-Length: SGLang reads no body, 400 (`Field required`). Five
pipelined requests: vLLM answers them in order, five 200 lines from one client port. A chunked
body cut mid-chunk and held open: vLLM logs nothing of it and serves beside it. Bodies that are
not JSON: SGLang answers each with a bare 400 (`JSON decode error` in the reply), no traceback.
Every log is labelled ready in serving, cause none.
"""

from __future__ import annotations

import json
import socket
import struct
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind141")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
LONG_V = [*VLLM_BASE, "--max-model-len", "2048"]


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


# --- raw sockets -------------------------------------------------------------------------------

def conn(ctx: Ctx, rcvbuf: int | None = None, timeout: float = 30) -> socket.socket:
    s = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
    if rcvbuf:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_RCVBUF, rcvbuf)
    s.settimeout(timeout)
    s.connect(("127.0.0.1", ctx.port))
    return s


def reset(s: socket.socket) -> None:
    """Close with a reset (SO_LINGER 0), as a client killed or a proxy timing out does."""
    try:
        s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
        s.close()
    except OSError:
        pass


def http(path: str, body: bytes, version: str = "1.1", extra: str = "",
         length: bool = True) -> bytes:
    head = f"POST {path} HTTP/{version}\r\n"
    if version == "1.1":
        head += "Host: 127.0.0.1\r\n"
    head += "Content-Type: application/json\r\n" + extra
    if length:
        head += f"Content-Length: {len(body)}\r\n"
    return head.encode() + b"\r\n" + body


def read_all(s: socket.socket, until: float = 60) -> bytes:
    out = b""
    end = time.monotonic() + until
    while time.monotonic() < end:
        try:
            chunk = s.recv(65536)
        except (TimeoutError, OSError):
            break
        if not chunk:
            break
        out += chunk
    return out


def sg_up(ctx: Ctx, timeout: float = 240) -> bool:
    return ctx.wait_for(SG_READY, timeout)


def ready(ctx: Ctx, engine: str) -> bool:
    return up(ctx, 240) if engine == "vllm" else sg_up(ctx)


def stream_body(ctx: Ctx, engine: str, prompt: str, tokens: int) -> tuple[str, bytes]:
    if engine == "vllm":
        return "/v1/completions", json.dumps({"model": ctx.model_name(), "prompt": prompt,
                                              "max_tokens": tokens, "ignore_eos": True,
                                              "stream": True}).encode()
    return "/generate", json.dumps({"text": prompt, "stream": True, "sampling_params": {
        "max_new_tokens": tokens, "ignore_eos": True}}).encode()


# --- acts ----------------------------------------------------------------------------------------

def v_disconnect_50(tokens: int = 200, after_s: float = 3):
    def act(ctx: Ctx) -> None:
        """50 non-streamed completions at once; every socket reset ``after_s`` in; then two."""
        if not up(ctx, 240):
            return
        ctx.complete(1)
        name = ctx.model_name()
        socks = []
        for i in range(50):
            body = json.dumps({"model": name, "prompt": f"story {i}", "max_tokens": tokens,
                               "ignore_eos": True}).encode()
            s = conn(ctx)
            s.sendall(http("/v1/completions", body))
            socks.append(s)
        time.sleep(after_s)
        for s in socks:
            reset(s)
        time.sleep(2)
        ctx.complete(2)
        linger(ctx, 12)
    return act


def s_disconnect_50(ctx: Ctx) -> None:
    """50 streamed 200-token /generate requests at once; each socket reset after its first
    chunk; then two completions."""
    if not sg_up(ctx):
        return
    ctx.complete(1)
    socks = []
    for i in range(50):
        path, body = stream_body(ctx, "sglang", f"story {i}", 200)
        s = conn(ctx, timeout=20)
        s.sendall(http(path, body))
        socks.append(s)
    for s in socks:
        try:
            s.recv(256)
        except (TimeoutError, OSError):
            pass
        reset(s)
    time.sleep(2)
    ctx.complete(2)
    linger(ctx, 12)


def slow_reader(engine: str):
    def act(ctx: Ctx) -> None:
        """A streamed 1,800-token generation read a byte a second through a 4 KiB receive
        buffer for 40 s, two completions sent meanwhile; then the socket closed, one more."""
        if not ready(ctx, engine):
            return
        ctx.complete(1)
        path, body = stream_body(ctx, engine, "fox", 1800)
        s = conn(ctx, rcvbuf=4096)
        s.sendall(http(path, body))
        side = threading.Thread(target=lambda: (time.sleep(8), ctx.complete(2)), daemon=True)
        side.start()
        end = time.monotonic() + 40
        while time.monotonic() < end:
            try:
                if not s.recv(1):
                    break
            except (TimeoutError, OSError):
                break
            time.sleep(1)
        side.join(60)
        s.close()
        time.sleep(2)
        ctx.complete(1)
        linger(ctx, 10)
    return act


def token_ids_40mb(engine: str):
    def act(ctx: Ctx) -> None:
        """A 40 MB JSON body: a prompt of ten million token ids (100, a valid id); then two."""
        if not ready(ctx, engine):
            return
        ctx.complete(1)
        ids = b"[" + b"100," * 9_999_999 + b"100]"
        if engine == "vllm":
            body = (b'{"model": "' + ctx.model_name().encode() + b'", "max_tokens": 4, '
                    b'"prompt": ' + ids + b"}")
            path = "/v1/completions"
        else:
            body = b'{"sampling_params": {"max_new_tokens": 4}, "input_ids": ' + ids + b"}"
            path = "/generate"
        s = conn(ctx, timeout=180)
        try:
            s.sendall(http(path, body))
            ROOT.joinpath(f"{engine}-40mb-reply.txt").write_bytes(read_all(s, 180)[:4000])
        except OSError:
            pass
        s.close()
        ctx.complete(2)
        linger(ctx, 12)
    return act


def chunked_cut(engine: str):
    def act(ctx: Ctx) -> None:
        """A chunked POST whose first chunk promises 0x400 bytes and sends 60; the socket held
        open 25 s (a completion sent meanwhile), then closed; one more completion."""
        if not ready(ctx, engine):
            return
        ctx.complete(1)
        path = "/v1/completions" if engine == "vllm" else "/generate"
        s = conn(ctx)
        s.sendall(http(path, b"400\r\n" + b'{"prompt": "fox", "max_tokens": 8, "text": "fox"'
                       b', "model": "mo', extra="Transfer-Encoding: chunked\r\n", length=False))
        time.sleep(5)
        ctx.complete(1)
        time.sleep(20)
        s.close()
        time.sleep(2)
        ctx.complete(1)
        linger(ctx, 10)
    return act


def v_pipelined_5(ctx: Ctx) -> None:
    """Five completions pipelined on one keep-alive socket (sent in one write), every reply
    read; then one ordinary completion."""
    if not up(ctx, 240):
        return
    ctx.complete(1)
    name = ctx.model_name()
    data = b"".join(http("/v1/completions", json.dumps({
        "model": name, "prompt": f"pipe {i}", "max_tokens": 16}).encode()) for i in range(5))
    s = conn(ctx, timeout=20)
    s.sendall(data)
    got = b""
    end = time.monotonic() + 60
    while got.count(b"HTTP/1.1 ") < 5 and time.monotonic() < end:
        try:
            chunk = s.recv(65536)
        except (TimeoutError, OSError):
            break
        if not chunk:
            break
        got += chunk
    ROOT.joinpath("pipelined-reply.txt").write_bytes(got[:8000])
    s.close()
    ctx.complete(1)
    linger(ctx, 12)


def s_http10_no_length(ctx: Ctx) -> None:
    """An HTTP/1.0 POST /generate with its JSON body but no Content-Length (the body ends with
    the client's half-close), and the same to /v1/completions; then two completions."""
    if not sg_up(ctx):
        return
    ctx.complete(1)
    bodies = [("/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}}),
              ("/v1/completions", {"model": ctx.model_name(), "prompt": "fox",
                                   "max_tokens": 8})]
    replies = []
    for path, body in bodies:
        s = conn(ctx, timeout=20)
        s.sendall(http(path, json.dumps(body).encode(), version="1.0", length=False))
        s.shutdown(socket.SHUT_WR)
        replies.append(read_all(s, 30)[:2000])
        s.close()
    ROOT.joinpath("http10-replies.txt").write_bytes(b"\n----\n".join(replies))
    ctx.complete(2)
    linger(ctx, 12)


def s_not_json(ctx: Ctx) -> None:
    """Bodies that are not JSON, with honest lengths: form-encoded to /generate, plain text to
    /v1/completions, a JSON body cut mid-key to /generate, bytes that are not UTF-8 to
    /v1/chat/completions; then two completions."""
    if not sg_up(ctx):
        return
    ctx.complete(1)
    sends = [("/generate", b"text=fox&max_new_tokens=8"),
             ("/v1/completions", b"please complete: the quick brown fox"),
             ("/generate", b'{"text": "fox", "sampling_params": {"max_new'),
             ("/v1/chat/completions", b"\xff\xfe\x00{\x9c\x80garbage")]
    replies = []
    for path, body in sends:
        s = conn(ctx, timeout=20)
        s.sendall(http(path, body))
        replies.append(read_all(s, 10)[:1500])
        s.close()
    ROOT.joinpath("notjson-replies.txt").write_bytes(b"\n----\n".join(replies))
    ctx.complete(2)
    linger(ctx, 12)


def v(name: str, what: str, act, args: list[str] | None = None) -> Scenario:
    return Scenario(name, "vllm", what, args or VLLM_BASE, act=act)


def s(name: str, what: str, act) -> Scenario:
    return Scenario(name, "sglang", what, SG, act=act)


SCENARIOS = [
    s("s-disconnect-50-streams", "one completion, then 50 streamed 200-token /generate "
      "requests sent at once on raw sockets, each reset (SO_LINGER 0) after its first chunk; "
      "two completions after", s_disconnect_50),
    v("v-slow-reader-stream", "--max-model-len 2048; a streamed 1,800-token completion read "
      "one byte a second through a 4 KiB receive buffer for 40 s (the server's send buffer "
      "fills), two completions meanwhile, then the socket closed and one more",
      slow_reader("vllm"), LONG_V),
    s("s-slow-reader-stream", "a streamed 1,800-token /generate read one byte a second "
      "through a 4 KiB receive buffer for 40 s (the server's send buffer fills), two "
      "completions meanwhile, then the socket closed and one more", slow_reader("sglang")),
    v("v-body-40mb-token-ids", "a 40 MB JSON body: a completion whose prompt is a list of ten "
      "million token ids; two completions after", token_ids_40mb("vllm")),
    s("s-body-40mb-input-ids", "a 40 MB JSON body: a /generate whose input_ids are ten million "
      "token ids; two completions after", token_ids_40mb("sglang")),
    v("v-chunked-cut-mid-chunk", "a chunked POST /v1/completions whose first chunk promises "
      "0x400 bytes and sends 60, the socket held open 25 s (a completion meanwhile), then "
      "closed; one more completion", chunked_cut("vllm")),
    s("s-http10-post-no-length", "HTTP/1.0 POSTs to /generate and /v1/completions carrying a "
      "JSON body with no Content-Length (ended by the client's half-close); two completions "
      "after", s_http10_no_length),
    v("v-pipelined-5", "five 16-token completions pipelined on one keep-alive socket (one "
      "write), every reply read; one ordinary completion after", v_pipelined_5),
    s("s-body-not-json", "bodies that are not JSON with honest lengths: form-encoded and a "
      "cut JSON object to /generate, plain text to /v1/completions, bytes not UTF-8 to "
      "/v1/chat/completions; two completions after", s_not_json),
    v("v-disconnect-50-long", "--max-model-len 2048; one completion, then 50 non-streamed "
      "1,800-token completions sent at once on raw sockets, every socket reset (SO_LINGER 0) "
      "1 s in, while all are still generating; two completions after", v_disconnect_50(1800, 1),
      LONG_V),
]
