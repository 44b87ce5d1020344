"""The two-hundred-and-sixty-third batch's scenarios (tests/fixtures/corpus/fresh262): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind263.py OUT

Themes: stops and signals at each phase, a new round - what a terminal hang-up, a stop script,
a service manager or a person's Ctrl-C sends to one engine process or to the group, at a moment
chosen from the log. vLLM: SIGUSR1 to the worker the moment it logs the KV cache it sizes
(v-usr1-worker-kvcache); SIGHUP to the API server alone 1.5 s into a streaming completion
(v-hup-api-streaming); SIGTERM to the API server with a stream in flight and, 0.5 s into its
shutdown, SIGKILL to the EngineCore (v-term-api-then-kill-core, a second signal during the
first one's shutdown); SIGUSR2 to the EngineCore right after the ready line, before any request
(v-usr2-core-after-ready). SGLang: SIGUSR1 to the detokenizer with a stream in flight
(s-usr1-detokenizer-streaming); SIGHUP to the launcher (HTTP server, tokenizer manager) once
uvicorn runs, before its warm-up request returns (s-hup-launcher-warmup); SIGTERM to the
scheduler alone with a stream in flight (s-term-scheduler-streaming); SIGINT to the launcher with
a stream in flight and, 1 s into that shutdown, SIGTERM to the whole process group
(s-int-launcher-then-group-term). Every scenario restores SIGHUP and SIGINT to their defaults in
the recorder first (it may run under nohup), so the engine gets them as from a terminal.

Earlier batches already had (not repeated): SIGHUP to the whole group while serving (67th), to
the launcher at init (76th), to vLLM's worker 3 s after the KV cache size (78th), to SGLang's
scheduler at init (83rd), from inside a PID namespace (215th), a terminal's hang-up and job
control (242nd); SIGUSR1 to vLLM's API server while serving (68th), to the EngineCore at load
(78th), to SGLang's scheduler at init (79th) and with faulthandler registered while serving
(121st); SIGUSR2 to vLLM's worker while serving (75th), to the API server at load (77th), to
the EngineCore at the compile warm-up (83rd), to SGLang's detokenizer at init (84th); SIGTERM to
the API server while streaming and a double Ctrl-C (70th), SIGTERM twice to the API server while
draining and SIGSEGV to the core at ready (133rd), SIGTERM to SGLang's scheduler at init (75th),
at warm-up and SIGSTOP to the detokenizer while serving (73rd), Ctrl-C and SIGTERM twice with
streams in flight (111th), SIGKILL to the scheduler while serving (201st), SIGQUIT in many
places (52 tables).

Recorded 2026-12-07 in one invocation (raw1), waiting turns with other helpers' recorders for
the machine's lock; each scenario once. About 34-36 s for each vLLM scenario, SGLang 35-146 s
(the detokenizer's death held the launcher 60 s waiting for CUDA coredumps). All eight kept
(final files in101-in108); none dropped. In the last two SGLang scenarios the 200-token stream
had already finished when the signal came (the tiny model decoded about 200 tokens/s there), so
the signals met an idle server with, in s-term-scheduler-streaming, the next request on its way.

What the engines did. vLLM: the worker SIGUSR1ed at the KV sizing dies (`Worker proc
VllmWorker-0 died unexpectedly (exit code: -10)`), the core fails to start (`RuntimeError:
cancelled` in `_initialize_kv_caches`) and the API server raises `Engine core initialization
failed` - crashed (in101); the API server SIGHUPed mid-stream just stops, the log ending on the
stream's `200 OK` - served, no word of the stop (in102); SIGTERM to the API server runs vLLM's
shutdown with `mode=abort timeout=0s`, which force-kills the core itself, so the later SIGKILL
shows nothing of its own - stopped (in103); the core SIGUSR2ed at ready dies without a word, the
API server logs `engine core exited unexpectedly`, `EngineDeadError`, answers both completions
500 and exits - crashed (in104). SGLang: the detokenizer's death is `Subprocess detokenizer
(pid=...) crashed with exit code -10. Triggering SIGQUIT for cleanup...`, the scheduler decoding
the orphaned stream on while the launcher waits 60 s for coredumps, then `kill_process_tree` -
crashed (in105); the launcher SIGHUPed after `Uvicorn running on` dies silently, no ready line -
incomplete (in106); the scheduler SIGTERMed is `Subprocess scheduler_0 (pid=...) crashed with
exit code -15`, then the same SIGQUIT cleanup - crashed (in107); the launcher's Ctrl-C then the
group's SIGTERM run uvicorn's `Shutting down`, `SIGTERM received ... Draining requests and shutting
down...`, `Application shutdown complete.`, a traceback ending `KeyboardInterrupt`, and last
`Subprocess detokenizer (pid=...) crashed with exit code -15` - stopped (in108). In s-term-
scheduler-streaming and s-int-launcher-then-group-term the stream had ended before the signal, so
no request was cut in flight. Crashed: in101, in104, in105, in107; ready in serving: in102;
stopped in serving: in103, in108; incomplete in warmup: in106; none hung.
"""

from __future__ import annotations

import json
import os
import signal
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    signal_quietly,
    up,
)

ROOT = Path("/tmp/blind263")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def default_signals(ctx: Ctx) -> None:
    """The engine gets SIGHUP and SIGINT at their defaults, as from a terminal or a manager
    (the recorder may have been started with them ignored, which a child would inherit)."""
    signal.signal(signal.SIGHUP, signal.SIG_DFL)
    signal.signal(signal.SIGINT, signal.default_int_handler)


def stream_in_background(ctx: Ctx, max_tokens: int = 200) -> threading.Thread:
    """A streaming completion (ignore_eos) read to its end in a thread: a request in flight."""
    def run() -> None:
        body = json.dumps({"model": ctx.model_name(), "prompt": "The quick brown fox",
                           "max_tokens": max_tokens, "stream": True, "ignore_eos": True,
                           "temperature": 0.8}).encode()
        req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}/v1/completions", data=body,
                                     headers={"Content-Type": "application/json"})
        try:
            with urllib.request.urlopen(req, timeout=90) as r:
                while r.readline():
                    pass
        except (OSError, ValueError):
            pass
    t = threading.Thread(target=run, daemon=True)
    t.start()
    return t


def sig_child(ctx: Ctx, child: str, sig: int) -> None:
    for p in ctx.children(child):
        signal_quietly(p, sig)


def worker_usr1_at_kvcache(ctx: Ctx) -> None:
    """SIGUSR1 to vLLM's worker the moment it logs the KV cache it sizes."""
    if ctx.wait_any(["GiB for KV cache", "CPU KV cache size"], 300):
        sig_child(ctx, "Worker", signal.SIGUSR1)
    linger(ctx, 60)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.output():
        ctx.complete(1)
        time.sleep(8)


def api_hup_streaming(ctx: Ctx) -> None:
    """SIGHUP to the API server process alone while a streaming completion runs."""
    if up(ctx, 300):
        ctx.complete(1)
        t = stream_in_background(ctx)
        time.sleep(1.5)
        assert ctx.proc is not None
        signal_quietly(ctx.proc, signal.SIGHUP)
        t.join(40)
        linger(ctx, 20)


def api_term_then_kill_core(ctx: Ctx) -> None:
    """SIGTERM to the API server with a stream in flight; 0.5 s into its shutdown, SIGKILL to
    the engine core (an impatient stop script)."""
    if up(ctx, 300):
        ctx.complete(1)
        t = stream_in_background(ctx)
        time.sleep(1.5)
        assert ctx.proc is not None
        signal_quietly(ctx.proc, signal.SIGTERM)
        time.sleep(0.5)
        sig_child(ctx, "EngineCore", signal.SIGKILL)
        t.join(30)
        linger(ctx, 40)


def core_usr2_after_ready(ctx: Ctx) -> None:
    """SIGUSR2 to the engine core right after the ready line, before any request; then two."""
    if up(ctx, 300):
        sig_child(ctx, "EngineCore", signal.SIGUSR2)
        time.sleep(2)
        ctx.complete(2)
        linger(ctx, 20)


def detok_usr1_streaming(ctx: Ctx) -> None:
    """SIGUSR1 to SGLang's detokenizer while a streaming completion runs; one more after."""
    if ctx.wait_for(SG_READY, 300):
        ctx.complete(1)
        t = stream_in_background(ctx)
        time.sleep(1.5)
        sig_child(ctx, "detokenizer", signal.SIGUSR1)
        t.join(40)
        ctx.complete(1)
        linger(ctx, 20)


def launcher_hup_warmup(ctx: Ctx) -> None:
    """SIGHUP to SGLang's launcher (HTTP server, tokenizer manager) once uvicorn is up, before
    its warm-up request has returned."""
    if ctx.wait_for("Uvicorn running on", 300):
        assert ctx.proc is not None
        signal_quietly(ctx.proc, signal.SIGHUP)
        linger(ctx, 45)


def scheduler_term_streaming(ctx: Ctx) -> None:
    """SIGTERM to SGLang's scheduler alone while a streaming completion runs."""
    if ctx.wait_for(SG_READY, 300):
        ctx.complete(1)
        t = stream_in_background(ctx)
        time.sleep(1.5)
        sig_child(ctx, "scheduler", signal.SIGTERM)
        t.join(40)
        ctx.complete(1)
        linger(ctx, 30)


def launcher_int_then_group_term(ctx: Ctx) -> None:
    """Ctrl-C to SGLang's launcher with a stream in flight, then, 1 s into that shutdown,
    SIGTERM to the whole process group (the service manager's stop)."""
    if ctx.wait_for(SG_READY, 300):
        ctx.complete(1)
        t = stream_in_background(ctx)
        time.sleep(1.5)
        assert ctx.proc is not None
        signal_quietly(ctx.proc, signal.SIGINT)
        time.sleep(1.0)
        try:
            os.killpg(ctx.proc.pid, signal.SIGTERM)
        except OSError:
            pass
        t.join(30)
        linger(ctx, 40)


VARGS = [*VLLM_BASE]

SCENARIOS = [
    Scenario("v-usr1-worker-kvcache", "vllm",
             "SIGUSR1 (default action) to the worker process the moment it logs the KV cache "
             "it sizes", VARGS, before=default_signals, act=worker_usr1_at_kvcache),
    Scenario("v-hup-api-streaming", "vllm",
             "served one completion, then SIGHUP (default action) to the API server process "
             "alone 1.5 s into a streaming completion (a terminal hang-up reaching only the "
             "front process)", VARGS, before=default_signals, act=api_hup_streaming),
    Scenario("v-term-api-then-kill-core", "vllm",
             "served one completion, then SIGTERM to the API server 1.5 s into a streaming "
             "completion and, 0.5 s into its shutdown, SIGKILL to the EngineCore",
             VARGS, before=default_signals, act=api_term_then_kill_core),
    Scenario("v-usr2-core-after-ready", "vllm",
             "SIGUSR2 (default action) to the EngineCore right after the ready line, before any "
             "request; then two completions", VARGS, before=default_signals,
             act=core_usr2_after_ready),
    Scenario("s-usr1-detokenizer-streaming", "sglang",
             "served one completion, then SIGUSR1 (default action) to the detokenizer process "
             "1.5 s into a streaming completion; one more completion", SG,
             before=default_signals, act=detok_usr1_streaming),
    Scenario("s-hup-launcher-warmup", "sglang",
             "SIGHUP (default action) to the launcher process (HTTP server, tokenizer manager) "
             "once uvicorn is running, before the warm-up request returns", SG,
             before=default_signals, act=launcher_hup_warmup),
    Scenario("s-term-scheduler-streaming", "sglang",
             "served one completion, then SIGTERM to the scheduler process alone 1.5 s into a "
             "streaming completion; one more completion", SG, before=default_signals,
             act=scheduler_term_streaming),
    Scenario("s-int-launcher-then-group-term", "sglang",
             "served one completion, then SIGINT to the launcher 1.5 s into a streaming "
             "completion and, 1 s into that shutdown, SIGTERM to the whole process group", SG,
             before=default_signals, act=launcher_int_then_group_term),
]
