"""The two-hundred-and-forty-fifth batch's scenarios (tests/fixtures/corpus/fresh244): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind245.py OUT

Themes: many answers per request, and requests given up on half-way, sent to a server that is
up, with plain completions before and after each odd request to show whether it kept serving.
vLLM: n 12 with a seed on a server started with --max-num-seqs 2 (more samples than the batch
runs at once); n 16 of 200 tokens with ignore_eos on a KV cache cut to 20 blocks
(--num-gpu-blocks-override 20, 2,560 tokens); ten streamed completions of n 4 with seeds and
stream_options include_usage, all ten sockets reset at the same moment after three events each;
use_beam_search with n 3 and stream true. SGLang: /abort_request naming a rid no request has
while a generation runs; a request with its own rid, queued behind two long ones under
--max-running-requests 1, aborted by that rid while it waits; /generate with sampling_params n 8
of 200 tokens on a 512-token pool (--max-total-tokens 512); eight streamed /v1/completions of n 3
with seeds and include_usage, all eight sockets reset at once after two events each.

Earlier batches already had (not repeated): n 1000 on both engines (145th, 104th); n, best_of and beam
search as sampling features (94th, 128th, 212th) and n with best_of at the model's length under
load (111th); streamed n 2 with logprobs under incremental output (152nd); offline beam search
(127th); dozens of streaming clients disconnecting while queued or after the first chunks (67th,
111th, 141st), 50 streams reset mid-generation (141st); a request
cancelled in the queue and while decoding by closing its connection, and clients giving up under
--max-num-seqs 1 / --max-running-requests 1 (139th, 191st); /abort_request while requests run
(95th) and abort_all with requests in flight (95th); a streamed chat with include_usage whose
loop breaks after three chunks (200th); include_usage and continuous_usage_stats on non-streamed requests
(152nd); Responses API background cancels (172nd).

Recorded 2026-12-07 in one invocation (raw1: the whole table in order), after waiting for the
shared recording lock behind other helpers' recorders; each scenario once. About 8 minutes of
recording (vLLM 67+60+55+59 s, SGLang 67+62+47+59 s). 8 kept (final files hv101-hv108), none
dropped: every fault in this ground was served through, and each log is still a fair log of it
(labelled ready, as the brief asks of a fault that never shows).

What the engines did. vLLM: with --max-num-seqs 2 the n 12 request is answered 200 with no word
in the log; with 20 KV blocks it prints `Overriding num_gpu_blocks=42581 with
num_gpu_blocks_override=20` and `CPU KV cache size: 2,560 tokens`, then answers n 16 x 200 tokens
200 with no preemption warning; the ten reset n 4 streams are logged `200 OK` (at their start)
and nothing of the resets, the stats line after showing `Running: 0 reqs`; streamed beam search
is refused `400 Bad Request` with no reason in the log. Three of the four startups warn that the
worker is `Compiling model again due to a load failure` from the AOT compile cache and go on.
SGLang: /abort_request of an unknown rid is answered 200 and the running generation finishes;
the queued request aborted by rid returns 200 at once and the queue count drops to 0, no line
naming the abort; n 8 on the 512-token pool is admitted two samples at a time (`#new-seq: 2 ...
#queue-req: 6`, then 4, 2, 0) and ends 200; the 24 sequences of the eight reset n 3 streams are
admitted in one prefill, show in one `Decode batch, #running-req: 24` line and vanish without a
disconnect line. All eight logs are ready in serving; none crashed or hung.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind245")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
PROMPT = "The quick brown fox jumps over the lazy dog and then"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def sg_up(ctx: Ctx) -> bool:
    return ctx.wait_for(SG_READY, 300)


def good(ctx: Ctx, n: int = 2) -> None:
    ctx.complete(n, max_tokens=16)


def raw_stream(ctx: Ctx, path: str, body: dict, chunks: int, gate: threading.Barrier | None
               = None, reset: bool = True) -> None:
    """POST ``body`` on a raw socket, read until ``chunks`` SSE events have come, wait at
    ``gate`` (all clients together), then close the socket (reset with SO_LINGER 0)."""
    data = json.dumps(body).encode()
    s = socket.create_connection(("127.0.0.1", ctx.port), timeout=120)
    try:
        s.sendall(f"POST {path} HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json"
                  f"\r\nContent-Length: {len(data)}\r\n\r\n".encode() + data)
        got = b""
        while got.count(b"data:") < chunks:
            b = s.recv(4096)
            if not b:
                break
            got += b
        if gate is not None:
            try:
                gate.wait(60)
            except threading.BrokenBarrierError:
                pass
        if reset:
            s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, b"\x01\x00\x00\x00\x00\x00\x00\x00")
    except OSError:
        pass
    finally:
        s.close()


def in_background(ctx: Ctx, path: str, body: dict, timeout: float = 150) -> threading.Thread:
    t = threading.Thread(target=ctx.post, args=(path, body, timeout), daemon=True)
    t.start()
    return t


# --- vLLM -------------------------------------------------------------------------------------

def v_n_past_max_num_seqs(ctx: Ctx) -> None:
    """--max-num-seqs 2; one completion with n 12 and a seed (more samples than the batch)."""
    if up(ctx, 300):
        good(ctx)
        m = ctx.model_name()
        ctx.post("/v1/completions", {"model": m, "prompt": PROMPT, "max_tokens": 48, "n": 12,
                                     "seed": 7, "temperature": 0.9}, timeout=150)
        good(ctx)
        linger(ctx, 12)


def v_n_past_kv_blocks(ctx: Ctx) -> None:
    """--num-gpu-blocks-override 20 (320 tokens of cache); n 16 with 200 tokens each."""
    if up(ctx, 300):
        good(ctx)
        m = ctx.model_name()
        ctx.post("/v1/completions", {"model": m, "prompt": PROMPT, "max_tokens": 200, "n": 16,
                                     "temperature": 1.0, "ignore_eos": True}, timeout=200)
        good(ctx)
        linger(ctx, 12)


def v_n_stream_cancel_all(ctx: Ctx) -> None:
    """Ten streamed completions with n 4, seed and include_usage; all ten sockets reset at
    once after each has had three events."""
    if up(ctx, 300):
        good(ctx)
        m = ctx.model_name()
        gate = threading.Barrier(10)
        ts = [threading.Thread(target=raw_stream, daemon=True, args=(
            ctx, "/v1/completions",
            {"model": m, "prompt": f"{PROMPT} {i}", "max_tokens": 200, "n": 4, "seed": i,
             "stream": True, "ignore_eos": True, "stream_options": {"include_usage": True}},
            3, gate)) for i in range(10)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(120)
        time.sleep(2)
        good(ctx)
        linger(ctx, 12)


def v_beam_search_stream(ctx: Ctx) -> None:
    """use_beam_search with n 3 and stream true (beam search streamed)."""
    if up(ctx, 300):
        good(ctx)
        m = ctx.model_name()
        raw_stream(ctx, "/v1/completions",
                   {"model": m, "prompt": PROMPT, "max_tokens": 24, "n": 3,
                    "use_beam_search": True, "stream": True}, 1000, reset=False)
        good(ctx)
        linger(ctx, 12)


# --- SGLang -----------------------------------------------------------------------------------

LONG = {"text": PROMPT, "sampling_params": {"max_new_tokens": 400, "ignore_eos": True}}


def s_abort_unknown_rid(ctx: Ctx) -> None:
    """/abort_request naming a rid no request has, while a long generation runs."""
    if sg_up(ctx):
        good(ctx)
        t = in_background(ctx, "/generate", LONG)
        time.sleep(1.5)
        ctx.post("/abort_request", {"rid": "no-such-request-0042"})
        t.join(150)
        good(ctx)
        linger(ctx, 12)


def s_abort_queued_rid(ctx: Ctx) -> None:
    """--max-running-requests 1; two long generations, a third with its own rid queued behind
    them, aborted by that rid while it waits."""
    if sg_up(ctx):
        good(ctx)
        ts = [in_background(ctx, "/generate", LONG) for _ in range(2)]
        time.sleep(0.5)
        ts.append(in_background(ctx, "/generate", {**LONG, "rid": "queued-user-7"}))
        time.sleep(1.5)
        ctx.post("/abort_request", {"rid": "queued-user-7"})
        for t in ts:
            t.join(150)
        good(ctx)
        linger(ctx, 12)


def s_n_past_kv(ctx: Ctx) -> None:
    """--max-total-tokens 512; /generate with n 8 and 200 new tokens each (about 1,700)."""
    if sg_up(ctx):
        good(ctx)
        ctx.post("/generate", {"text": PROMPT, "sampling_params": {
            "max_new_tokens": 200, "n": 8, "temperature": 1.0, "ignore_eos": True}},
            timeout=200)
        good(ctx)
        linger(ctx, 12)


def s_n_stream_cancel_all(ctx: Ctx) -> None:
    """Eight streamed OpenAI completions with n 3, seed and include_usage; all eight sockets
    reset at once after two events each."""
    if sg_up(ctx):
        good(ctx)
        m = ctx.model_name()
        gate = threading.Barrier(8)
        ts = [threading.Thread(target=raw_stream, daemon=True, args=(
            ctx, "/v1/completions",
            {"model": m, "prompt": f"{PROMPT} {i}", "max_tokens": 200, "n": 3, "seed": i,
             "stream": True, "ignore_eos": True, "stream_options": {"include_usage": True}},
            2, gate)) for i in range(8)]
        for t in ts:
            t.start()
        for t in ts:
            t.join(120)
        time.sleep(2)
        good(ctx)
        linger(ctx, 12)


SCENARIOS = [
    Scenario("v-n-past-max-num-seqs", "vllm",
             "--max-num-seqs 2; served, then one completion with n 12, seed 7 and 48 tokens "
             "(more samples than the batch holds); good completions before and after",
             [*VLLM_BASE, "--max-num-seqs", "2"], act=v_n_past_max_num_seqs),
    Scenario("v-n-past-kv-blocks", "vllm",
             "--num-gpu-blocks-override 20 (20 blocks of KV cache); served, then one completion "
             "with n 16 and 200 tokens each, ignore_eos; good completions before and after",
             [*VLLM_BASE, "--num-gpu-blocks-override", "20"], act=v_n_past_kv_blocks),
    Scenario("v-n-stream-cancel-all", "vllm",
             "served; ten streamed completions with n 4, a seed and stream_options include_usage, "
             "all ten sockets reset at once after three events each; good completions after",
             VLLM_BASE, act=v_n_stream_cancel_all),
    Scenario("v-beam-search-stream", "vllm",
             "served; one streamed completion with use_beam_search and n 3; good completions "
             "before and after", VLLM_BASE, act=v_beam_search_stream),
    Scenario("s-abort-unknown-rid", "sglang",
             "served; /abort_request naming a rid that no request has, while a 400-token "
             "/generate runs; good completions before and after", SG,
             act=s_abort_unknown_rid),
    Scenario("s-abort-queued-rid", "sglang",
             "--max-running-requests 1; two 400-token /generate requests, a third with rid "
             "queued-user-7 behind them aborted by that rid while it waits; good completions "
             "before and after", [*SG, "--max-running-requests", "1"], act=s_abort_queued_rid),
    Scenario("s-n-past-kv", "sglang",
             "--max-total-tokens 512; /generate with sampling_params n 8 and 200 new tokens each "
             "(ignore_eos); good completions before and after",
             [*SG, "--max-total-tokens", "512"], act=s_n_past_kv),
    Scenario("s-n-stream-cancel-all", "sglang",
             "served; eight streamed /v1/completions with n 3, a seed and stream_options "
             "include_usage, all eight sockets reset at once after two events each; good "
             "completions after", SG, act=s_n_stream_cancel_all),
]
