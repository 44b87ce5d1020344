"""The hundred-and-ninety-first batch's scenarios (tests/fixtures/corpus/fresh190): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind191.py OUT

Themes: admission limits under a burst - what a person sets to protect a server from more
requests than it can hold, and what clients then get. SGLang: --max-queued-requests 0 and 1
with --max-running-requests 1 under a burst of twelve concurrent completions (not streamed and
streamed), --enable-cache-report under the same burst, a client closing its connection while
its request waits in the queue. vLLM: --max-num-seqs 1 with a burst whose max_tokens exceed
what is left of the context, --return-tokens-as-token-ids under a streamed burst with logprobs,
a request cancelled by its client (the connection closed) while it waits in the queue, and one
cancelled while it decodes.

Earlier batches already had (not repeated): --max-running-requests 1 under ten long generations
and a scheduler SIGKILLed while requests wait (111th and later), --max-num-seqs 1/2/300 under
bursts (68th, 111th, 139th, 162nd), --max-num-seqs 1 with client timeouts on long generations and
long prompts, --max-num-batched-tokens limits, --max-total-tokens 16 (73rd). No earlier batch set
--max-queued-requests, --enable-cache-report or --return-tokens-as-token-ids.

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings. The
clients' side of each burst (the HTTP status of every request) is written to
/tmp/blind191/clients/<scenario>.txt, not into the log.

Recorded 2026-12-07 in one invocation (raw1: four SGLang, then four vLLM), taking turns for the
lock with two other helpers' recorders; each scenario once. About 7m30s of recording (SGLang
45+61+61+59 s, vLLM 68+53+52+51 s). 5 kept (final files fs101-fs105). Dropped, and removed from
SCENARIOS: s-cache-report-burst (--enable-cache-report --max-running-requests 1, twelve
concurrent completions, 61 s: served in turn with `#queue-req` up to 9, every request 200; the
cache report is in the responses only, so the log is the same as the 111th batch's
--max-running-requests 1 burst - a repeat), v-client-closes-queued (--max-num-seqs 1, eight
streamed 96-token completions whose clients close after 3 s idle, 52 s: vLLM served all eight
within 1.5 s, before any client gave up - the fault never happened) and v-client-closes-decoding
(--max-num-seqs 1, four streamed 200-token completions, the first closed by its client after five
streamed lines, 51 s: vLLM logged every request 200 OK and no word of the abort - the fault never
shows in the log).

What the engines did: SGLang's --max-queued-requests 0 refuses its own warm-up request (`POST
/generate HTTP/1.1" 503 Service Unavailable`, `Initialization failed. warmup error` ...
`AssertionError: {... "The request queue is full." ... 503}`, `kill_process_tree called`): the
server never reaches ready (crashed in warmup). With --max-queued-requests 1 it serves, but the
nine requests it sheds from a streamed burst are logged `200 OK` by uvicorn: the refusal (`The
request queue is full.`, SERVICE_UNAVAILABLE 503) is only inside the SSE body, and the log shows
it only as three prefills for twelve requests. SGLang prefills queued requests whose clients have
gone and drops them with no word. vLLM refuses max_tokens over --max-model-len before its queue,
`400 Bad Request` in the access log and no reason logged (`max_tokens=300 cannot be greater than
max_model_len=256` in the bodies), and serves on; --return-tokens-as-token-ids shows only in
`non-default args`. Both engines kept serving after every burst that reached them.
"""

from __future__ import annotations

import http.client
import json
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind191")
CLIENTS = ROOT / "clients"
SG_READY = "The server is fired up and ready to roll!"
CLIENTS.mkdir(parents=True, exist_ok=True)


def _one(ctx: Ctx, body: dict, out: list, i: int, close_after: float | None,
         chunks: int | None) -> None:
    """One request on its own connection; ``close_after`` s (or ``chunks`` chunks read) and the
    client closes the connection without reading the rest."""
    t0 = time.monotonic()
    conn = http.client.HTTPConnection("127.0.0.1", ctx.port, timeout=close_after or 120)
    try:
        conn.request("POST", "/v1/completions", json.dumps(body),
                     {"Content-Type": "application/json"})
        r = conn.getresponse()
        if chunks is not None:
            got = 0
            while got < chunks and r.readline():
                got += 1
            out[i] = f"{r.status} closed after {got} lines"
        else:
            data = r.read()
            out[i] = f"{r.status} {data[:160]!r}"
    except (OSError, TimeoutError) as e:
        out[i] = f"closed by client ({type(e).__name__}: {e})"
    finally:
        conn.close()
    out[i] += f" [{time.monotonic() - t0:.1f} s]"


def burst(n: int, max_tokens: int = 48, stream: bool = False, close_queued_after: float | None =
          None, cancel_first_after_chunks: int | None = None, **extra: object):
    """Up once ready, ``n`` concurrent completions; then a pause, one more request, a pause."""
    def act(ctx: Ctx) -> None:
        ready = SG_READY if "sglang.launch_server" in " ".join(ctx.proc.args) else READY_LINE  # type: ignore
        found = ctx.wait_any([ready], 240)
        if found is None or ctx.proc is None or ctx.proc.poll() is not None:
            return
        model = ctx.model_name()
        out: list = [""] * n
        threads = []
        for i in range(n):
            body = {"model": model, "prompt": f"The quick brown fox {i} jumps over", "stream":
                    stream, "max_tokens": max_tokens, "ignore_eos": True, **extra}
            close = close_queued_after if i > 0 else None
            chunks = cancel_first_after_chunks if i == 0 else None
            t = threading.Thread(target=_one, args=(ctx, body, out, i, close, chunks))
            t.start()
            threads.append(t)
            time.sleep(0.05)
        for t in threads:
            t.join(240)
        time.sleep(6)
        after: list = [""]
        _one(ctx, {"model": model, "prompt": "after the burst", "max_tokens": 8}, after, 0,
             None, None)
        (CLIENTS / f"{ctx.log.stem}.txt").write_text(
            "".join(f"{i}: {s}\n" for i, s in enumerate(out)) + f"after: {after[0]}\n")
        linger(ctx, 12)
    return act


SG = ["--device", "cpu", "--model-impl", "transformers"]
S1 = [*SG, "--max-running-requests", "1"]
V1 = [*VLLM_BASE, "--max-num-seqs", "1"]

SCENARIOS = [
    Scenario("s-queued-0-burst", "sglang", "--max-running-requests 1 --max-queued-requests 0; "
             "twelve concurrent 48-token completions, not streamed, then one more request",
             [*S1, "--max-queued-requests", "0"], act=burst(12)),
    Scenario("s-queued-1-stream-burst", "sglang", "--max-running-requests 1 "
             "--max-queued-requests 1; twelve concurrent streamed 48-token completions, then one "
             "more request", [*S1, "--max-queued-requests", "1"], act=burst(12, stream=True)),
    Scenario("s-client-closes-queued", "sglang", "--max-running-requests 1; eight concurrent "
             "streamed 96-token completions, the clients of the seven waiting in the queue close "
             "their connections after 3 s", S1,
             act=burst(8, max_tokens=96, stream=True, close_queued_after=3)),
    Scenario("v-seqs-1-max-tokens-over-context", "vllm", "--max-num-seqs 1 --max-model-len 256; "
             "twelve concurrent completions asking max_tokens 300 (more than the context has "
             "left)", V1, act=burst(12, max_tokens=300)),
    Scenario("v-token-ids-stream-burst", "vllm", "--return-tokens-as-token-ids --max-num-seqs 1; "
             "twelve concurrent streamed 48-token completions with logprobs 2",
             [*V1, "--return-tokens-as-token-ids"], act=burst(12, stream=True, logprobs=2)),
]
