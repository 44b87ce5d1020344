"""The hundred-and-eleventh batch's scenarios (tests/fixtures/corpus/fresh110): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind111.py OUT

Themes: traffic around a server's start and stop - requests that arrive when the server is least
ready for them. A client polling /health, /v1/models (and SGLang's /health_generate) from the
moment of launch, through loading, warm-up and serving; a burst fired the instant the server
says it is up (vLLM's `Application startup complete`, SGLang's `Uvicorn running on`, before its
warm-up request has returned); stops with streams open (SIGTERM to vLLM's API server with a
--shutdown-timeout to drain, SIGINT to vLLM's API server alone, Ctrl-C to SGLang's group,
SGLang's launcher SIGTERMed twice, SGLang's launcher SIGKILLed); the engine core or scheduler
SIGKILLed while requests wait in its queue (--max-num-seqs 1 / --max-running-requests 1);
dozens of streaming clients that disconnect while most of them are still queued; a load
balancer's health probe with a sub-second timeout during long prefills and generations; `n`,
`best_of` and prompts at the model's length with max_tokens past it while other streams run;
/metrics scraped every 0.2 s during a burst.

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm);
vLLM with VLLM_BASE's settings (a later --max-model-len wins where a scenario gives one).

Recorded 2026-12-06 in four invocations (about 15.5 minutes of recording: vLLM 4m23s, 4m51s and
1m47s, SGLang 3m12s and 1m14s); 16 of the 19 scenarios kept. Not recorded (no time left in the
budget): s-queued-aborts, s-probe-health-generate-load, s-n-bestof-at-length. Re-recorded:
v-burst-at-startup-line (the first take's burst used a wrong model name: 24 404s; the burst now
asks /v1/models first), v-probe-timeout-long-prefill and v-n-bestof-at-length (the tiny
tokenizer makes about 2.75 tokens of a word: the first takes' prompts were all over the length,
400s; now sized in tokens). What the engines did: neither logs a client's hang-up or a
sub-second probe's timeout; vLLM answered every /health probe 200 during long prefills, took
max_tokens past the length and n with best_of (200), refused only the prompt over the length
(a bare 400). vLLM 0.32's SIGTERM with --shutdown-timeout drains (`mode=drain`, `draining
in-flight requests count=6`); its SIGINT to the API server aborts (`mode=abort timeout=0s`,
force-kills the core and worker) - both end `Application shutdown complete`. The EngineCore
SIGKILLed with a queue: `engine core exited unexpectedly`, EngineDeadError, one traceback per
open stream. SGLang answers /health and /health_generate 503 until its warm-up is done, and
takes a burst that arrives between `Uvicorn running on` and its ready line (it serves it before
its own warm-up request). Ctrl-C to SGLang's group: KeyboardInterrupt tracebacks, then the
launcher calls it a crash (`Subprocess detokenizer ... crashed with exit code 1`). A second
SIGTERM during SGLang's drain only logs itself again. SGLang's launcher SIGKILLed leaves no
line at all (the log stops in a decode batch).
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import socket
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    signal_quietly,
)

SG = ["--device", "cpu", "--model-impl", "transformers"]
V_READY = "Application startup complete"
SG_UVICORN = "Uvicorn running on"
SG_READY = "The server is fired up and ready to roll"
LONG_V = [*VLLM_BASE, "--max-model-len", "2048"]
WORDS = ("the quick brown fox jumps over the lazy dog and then runs back into the wood "
         "where it lives with its family of seven foxes ").split()


def words(n: int) -> str:
    return " ".join(WORDS[i % len(WORDS)] for i in range(n))


def body_seen(ctx: Ctx, needle: str) -> bool:
    return needle in ctx.text().split("\n\n", 1)[-1]


def wait_body(ctx: Ctx, needles: list[str], timeout: float = 240) -> str | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        body = ctx.text().split("\n\n", 1)[-1]
        for n in needles:
            if n in body:
                return n
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return None
        time.sleep(0.1)
    return None


def get(ctx: Ctx, path: str, timeout: float = 5) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}{path}", timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, ValueError):
        return 0


def poller(ctx: Ctx, paths: list[str], every: float, timeout: float,
           stop: threading.Event) -> threading.Thread:
    def run() -> None:
        while not stop.is_set():
            for p in paths:
                get(ctx, p, timeout)
            time.sleep(every)
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def stream(ctx: Ctx, engine: str, prompt: str, max_tokens: int, drop_after: float | None = None,
           extra: dict | None = None, timeout: float = 90) -> threading.Thread:
    """A streamed completion in a thread; ``drop_after`` s: the client hangs up."""
    def run() -> None:
        try:
            c = http.client.HTTPConnection("127.0.0.1", ctx.port, timeout=timeout)
            if engine == "sglang":
                path = "/generate"
                body = {"text": prompt, "stream": True,
                        "sampling_params": {"max_new_tokens": max_tokens, "ignore_eos": True}}
            else:
                path = "/v1/completions"
                body = {"model": NAME.get(ctx.port, "model"), "prompt": prompt,
                        "max_tokens": max_tokens, "ignore_eos": True, "stream": True}
            body.update(extra or {})
            c.request("POST", path, json.dumps(body), {"Content-Type": "application/json"})
            if drop_after is not None:
                sock = c.sock

                def hang_up() -> None:
                    try:
                        sock.shutdown(socket.SHUT_RDWR)
                    except OSError:
                        pass
                threading.Timer(drop_after, hang_up).start()
            r = c.getresponse()
            while r.read1(256):
                pass
            c.close()
        except (OSError, http.client.HTTPException):
            pass
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


NAME: dict[int, str] = {}


def ready(ctx: Ctx, engine: str, timeout: float = 240) -> bool:
    if wait_body(ctx, [SG_READY if engine == "sglang" else V_READY], timeout) is None:
        return False
    NAME[ctx.port] = ctx.model_name()
    return True


def complete_async(ctx: Ctx, body: dict, path: str = "/v1/completions",
                   timeout: float = 60) -> threading.Thread:
    t = threading.Thread(target=ctx.post, args=(path, body, timeout), daemon=True)
    t.start()
    return t


def join_all(ts: list[threading.Thread], timeout: float) -> None:
    end = time.monotonic() + timeout
    for t in ts:
        t.join(max(0.1, end - time.monotonic()))


def children_of(ctx: Ctx, needle: str) -> list:
    return ctx.children(needle)


# --- acts ------------------------------------------------------------------------------------

def poll_from_launch(engine: str, paths: list[str]) -> Callable[[Ctx], None]:
    """Polls ``paths`` every 0.5 s (2 s timeout) from the launch on; once ready, two completions
    and 8 s more of polls."""
    def act(ctx: Ctx) -> None:
        stop = threading.Event()
        poller(ctx, paths, 0.5, 2, stop)
        if ready(ctx, engine):
            ctx.complete(2, max_tokens=16)
            linger(ctx, 8)
        stop.set()
    return act


def burst_at(engine: str, needle: str, n: int) -> Callable[[Ctx], None]:
    """``n`` streamed requests fired the instant ``needle`` is logged; wait for them."""
    def act(ctx: Ctx) -> None:
        if wait_body(ctx, [needle], 240) is None:
            return
        if engine == "vllm":
            NAME[ctx.port] = ctx.model_name()
        ts = [stream(ctx, engine, f"fox {i} " + words(20), 120, timeout=60) for i in range(n)]
        join_all(ts, 60)
        linger(ctx, 6)
    return act


def streams_then(engine: str, n: int, max_tokens: int, delay: float,
                 do: Callable[[Ctx], None], after: float = 30) -> Callable[[Ctx], None]:
    """Ready, one completion, ``n`` long streams; ``delay`` s in, ``do``; then linger."""
    def act(ctx: Ctx) -> None:
        if not ready(ctx, engine):
            return
        ctx.complete(1, max_tokens=8)
        for i in range(n):
            stream(ctx, engine, f"story {i} " + words(10), max_tokens, timeout=90)
        time.sleep(delay)
        do(ctx)
        linger(ctx, after)
    return act


def sig_main(sig: int) -> Callable[[Ctx], None]:
    def do(ctx: Ctx) -> None:
        assert ctx.proc is not None
        signal_quietly(ctx.proc, sig)
    return do


def sig_group(sig: int) -> Callable[[Ctx], None]:
    def do(ctx: Ctx) -> None:
        assert ctx.proc is not None
        try:
            os.killpg(ctx.proc.pid, sig)
        except ProcessLookupError:
            pass
    return do


def sigterm_twice(ctx: Ctx) -> None:
    assert ctx.proc is not None
    signal_quietly(ctx.proc, signal.SIGTERM)
    time.sleep(2)
    signal_quietly(ctx.proc, signal.SIGTERM)


def queued_then_kill(engine: str, child: str) -> Callable[[Ctx], None]:
    """Ready; eight 200-token requests at once (one runs at a time); 2 s in, SIGKILL ``child``;
    then one more request."""
    def act(ctx: Ctx) -> None:
        if not ready(ctx, engine):
            return
        ts = [stream(ctx, engine, f"queue {i} " + words(12), 200, timeout=40) for i in range(8)]
        time.sleep(2)
        for p in children_of(ctx, child):
            signal_quietly(p, signal.SIGKILL)
        time.sleep(3)
        if engine == "sglang":
            ctx.post("/generate", {"text": "after", "sampling_params": {"max_new_tokens": 8}}, 20)
        else:
            ctx.post("/v1/completions", {"model": NAME.get(ctx.port, "model"), "prompt": "after",
                                         "max_tokens": 8}, 20)
        join_all(ts, 20)
        linger(ctx, 10)
    return act


def queued_aborts(engine: str) -> Callable[[Ctx], None]:
    """Ready; 30 streamed 200-token requests, every client hanging up after 1.5 s (most still
    queued); then one completion."""
    def act(ctx: Ctx) -> None:
        if not ready(ctx, engine):
            return
        ctx.complete(1, max_tokens=8)
        ts = [stream(ctx, engine, f"drop {i} " + words(12), 200, drop_after=1.5)
              for i in range(30)]
        join_all(ts, 20)
        time.sleep(2)
        ctx.complete(1, max_tokens=8)
        linger(ctx, 10)
    return act


def probe_during_load(engine: str, path: str) -> Callable[[Ctx], None]:
    """Ready; six requests with 650-word (~1,800-token) prompts and 300 tokens each; meanwhile
    ``path`` probed every 0.5 s with a 0.3 s timeout (a load balancer's probe); 25 s of it."""
    def act(ctx: Ctx) -> None:
        if not ready(ctx, engine):
            return
        ctx.complete(1, max_tokens=8)
        stop = threading.Event()
        for i in range(6):
            stream(ctx, engine, f"doc {i} " + words(650), 300, timeout=60)
        poller(ctx, [path], 0.5, 0.3, stop)
        linger(ctx, 25)
        stop.set()
        linger(ctx, 5)
    return act


def n_and_long(engine: str) -> Callable[[Ctx], None]:
    """Ready; four long streams; meanwhile requests with n=3, best_of=4, a prompt at the
    model's length with max_tokens past it, a prompt over it."""
    def act(ctx: Ctx) -> None:
        if not ready(ctx, engine):
            return
        for i in range(4):
            stream(ctx, engine, f"bg {i} " + words(8), 150, timeout=60)
        time.sleep(1)
        near, over = words(84), words(110)   # about 230 and 300 tokens
        if engine == "sglang":
            m = NAME.get(ctx.port, "default")
            reqs = [
                ("/v1/completions", {"model": m, "prompt": "fox", "max_tokens": 32, "n": 3}),
                ("/v1/completions", {"model": m, "prompt": near, "max_tokens": 64, "n": 2}),
                ("/v1/completions", {"model": m, "prompt": over, "max_tokens": 16}),
                ("/generate", {"text": near, "sampling_params": {"max_new_tokens": 200, "n": 3}}),
                ("/v1/completions", {"model": m, "prompt": "fox", "max_tokens": 16,
                                     "best_of": 4}),
            ]
        else:
            m = NAME.get(ctx.port, "model")
            reqs = [
                ("/v1/completions", {"model": m, "prompt": "fox", "max_tokens": 32, "n": 3}),
                ("/v1/completions", {"model": m, "prompt": "fox", "max_tokens": 16, "n": 2,
                                     "best_of": 4}),
                ("/v1/completions", {"model": m, "prompt": near, "max_tokens": 64, "n": 2}),
                ("/v1/completions", {"model": m, "prompt": over, "max_tokens": 16}),
                ("/v1/completions", {"model": m, "prompt": near, "n": 3}),
            ]
        ts = [complete_async(ctx, b, p, 40) for p, b in reqs]
        join_all(ts, 40)
        linger(ctx, 8)
    return act


def scrape_during_burst(engine: str) -> Callable[[Ctx], None]:
    """Ready; 16 requests of 150 tokens at once, /metrics scraped every 0.2 s until done."""
    def act(ctx: Ctx) -> None:
        if not ready(ctx, engine):
            return
        stop = threading.Event()
        poller(ctx, ["/metrics"], 0.2, 5, stop)
        ts = [stream(ctx, engine, f"m {i} " + words(15), 150, timeout=60) for i in range(16)]
        join_all(ts, 60)
        linger(ctx, 6)
        stop.set()
    return act


# --- the table -------------------------------------------------------------------------------

def v(name: str, what: str, args: list[str], act: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "vllm", what, args, act=act)


def s(name: str, what: str, args: list[str], act: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "sglang", what, args, act=act)


SCENARIOS: list[Scenario] = [
    # vLLM
    v("v-poll-models-from-launch", "a client polling GET /v1/models and /health every 0.5 s "
      "(2 s timeout) from the launch on, through loading and compilation; once up, two "
      "completions and 8 s more of polls", VLLM_BASE,
      poll_from_launch("vllm", ["/v1/models", "/health"])),
    v("v-burst-at-startup-line", "24 streamed 120-token completions fired the instant "
      "`Application startup complete` is logged", VLLM_BASE,
      burst_at("vllm", V_READY, 24)),
    v("v-drain-sigterm-streams", "--shutdown-timeout 20 --max-model-len 2048; six streamed "
      "1500-token completions, and 3 s into them SIGTERM to the API server process (a rolling "
      "update's stop, meant to drain)", [*LONG_V, "--shutdown-timeout", "20"],
      streams_then("vllm", 6, 1500, 3, sig_main(signal.SIGTERM), 35)),
    v("v-sigint-api-streams", "--max-model-len 2048; four streamed 1500-token completions, "
      "and 3 s into them SIGINT to the API server process alone (not the group)", LONG_V,
      streams_then("vllm", 4, 1500, 3, sig_main(signal.SIGINT), 30)),
    v("v-queued-kill-core", "--max-num-seqs 1; eight streamed 200-token completions at once "
      "(seven queued), 2 s in the EngineCore SIGKILLed; one more request", [
          *VLLM_BASE, "--max-num-seqs", "1"], queued_then_kill("vllm", "EngineCore")),
    v("v-queued-aborts", "--max-num-seqs 2; 30 streamed 200-token completions whose clients "
      "all hang up after 1.5 s (most still queued); then one completion", [
          *VLLM_BASE, "--max-num-seqs", "2"], queued_aborts("vllm")),
    v("v-probe-timeout-long-prefill", "--max-model-len 2048; six completions with 650-word "
      "(about 1,800-token) prompts and 300 tokens each, while a load balancer's probe GETs "
      "/health every 0.5 s with a 0.3 s timeout", LONG_V, probe_during_load("vllm", "/health")),
    v("v-n-bestof-at-length", "--max-model-len 256; while four streams run: n=3, n=2 with "
      "best_of 4, an 84-word (about 230-token) prompt with max_tokens 64 and n=2, a "
      "110-word (about 300-token) prompt, the 230-token prompt with n=3 and no max_tokens",
      VLLM_BASE, n_and_long("vllm")),
    v("v-metrics-scrape-burst", "/metrics scraped every 0.2 s while 16 streamed 150-token "
      "completions run", VLLM_BASE, scrape_during_burst("vllm")),
    # SGLang
    s("s-poll-health-from-launch", "a client polling GET /health, /health_generate and "
      "/v1/models every 0.5 s (2 s timeout) from the launch on, through loading and warm-up; "
      "once ready, two completions and 8 s more of polls", SG,
      poll_from_launch("sglang", ["/health", "/health_generate", "/v1/models"])),
    s("s-burst-at-uvicorn-up", "16 streamed 120-token /generate requests fired the instant "
      "`Uvicorn running on` is logged (before SGLang's own warm-up request has returned)", SG,
      burst_at("sglang", SG_UVICORN, 16)),
    s("s-ctrl-c-streams", "four streamed 1500-token /generate requests, and 3 s into them "
      "Ctrl-C (SIGINT to the process group)", SG,
      streams_then("sglang", 4, 1500, 3, sig_group(signal.SIGINT), 30)),
    s("s-sigterm-twice-streams", "four streamed 1500-token /generate requests; 3 s into them "
      "SIGTERM to the launcher process, and a second SIGTERM 2 s later (an impatient stop)",
      SG, streams_then("sglang", 4, 1500, 3, sigterm_twice, 30)),
    s("s-kill-launcher-streams", "four streamed 1500-token /generate requests; 3 s into them "
      "the launcher process (HTTP server, tokenizer manager) SIGKILLed alone", SG,
      streams_then("sglang", 4, 1500, 3, sig_main(signal.SIGKILL), 15)),
    s("s-queued-kill-scheduler", "--max-running-requests 1; eight streamed 200-token "
      "/generate requests at once (seven queued), 2 s in the scheduler SIGKILLed; one more "
      "request", [*SG, "--max-running-requests", "1"],
      queued_then_kill("sglang", "scheduler")),
    s("s-queued-aborts", "--max-running-requests 2; 30 streamed 200-token /generate requests "
      "whose clients all hang up after 1.5 s (most still queued); then one completion",
      [*SG, "--max-running-requests", "2"], queued_aborts("sglang")),
    s("s-probe-health-generate-load", "six /generate requests with 650-word (about 1,800-token) "
      "prompts and 300 tokens each, while a load balancer's probe GETs /health_generate every "
      "0.5 s with a 0.3 s timeout", SG, probe_during_load("sglang", "/health_generate")),
    s("s-n-bestof-at-length", "--context-length 256; while four streams run: n=3, an "
      "84-word (about 230-token) prompt with max_tokens 64 and n=2, a 110-word (about 300-token) "
      "prompt, /generate with the 230-token prompt, 200 new tokens and n=3, best_of 4",
      [*SG, "--context-length", "256"], n_and_long("sglang")),
    s("s-metrics-scrape-burst", "--enable-metrics; /metrics scraped every 0.2 s while 16 "
      "streamed 150-token /generate requests run", [*SG, "--enable-metrics"],
      scrape_during_burst("sglang")),
]
