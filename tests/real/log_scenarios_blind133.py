"""The hundred-and-thirty-third batch's scenarios (tests/fixtures/corpus/fresh132): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind133.py OUT

Themes: signals at precise moments of startup and shutdown - one signal to one process of the
engine's tree, sent the moment a chosen log line appears (the log polled every 50 ms). vLLM:
SIGQUIT to the EngineCore during the worker's torch.compile warm-up; SIGINT to the API server
alone during that warm-up (a `kill -INT` of the main pid); SIGABRT to the API server alone as
the engine logs its KV cache size; SIGSEGV to the EngineCore the moment uvicorn says
`Application startup complete`; and, with four long completions draining after a SIGTERM to
the API server (--shutdown-timeout 30), a second SIGTERM to the API server, or a SIGSEGV to the
model worker, while the drain runs. SGLang: SIGKILL to the scheduler and SIGSEGV to the
detokenizer in the window between `Uvicorn running on` and `The server is fired up and ready to
roll!` (its own warm-up request); SIGSEGV to the scheduler while it allocates its KV cache
(after `Load weight end`); SIGINT to the launcher alone at `Load weight begin`; and SIGABRT to
the scheduler with the first user request in flight.

Earlier batches already had (not repeated): SIGKILL/SIGTERM/SIGABRT/SIGSEGV/SIGSTOP/SIGBUS/
SIGILL/SIGHUP/SIGIO/SIGSYS to vLLM's worker or EngineCore at weight loading, compile and KV
cache sizing (v-kill-core-compile, v-bus-worker-compile, v-sigterm-worker-compile,
v-faulthandler-segv-compile, v-kill-core-kvcache, v-term-core-kvcache, v-sigsys-core-kvcache,
v-segv-worker-kvcache, v-abrt-core-load, ...); vLLM's API server SIGKILLed/SIGTERMed at
`init engine ... took`, SIGSTOPped at KV cache sizing, SIGTERMed during load; Ctrl-C twice to
vLLM's group with requests running; --shutdown-timeout 1 with streams; SGLang's scheduler,
detokenizer and launcher signalled as they name themselves (SIGKILL, SIGTERM, SIGINT, SIGSEGV,
SIGABRT, SIGBUS, SIGQUIT, SIGHUP, SIGIO, SIGPIPE), SIGABRT to the scheduler at `Load weight
begin`, SIGSTOP to scheduler/detokenizer/launcher in the warm-up window and at KV cache
allocation, SIGTERM to the group in the warm-up window and at the memory baseline, and the
launcher SIGTERMed twice with streams open.

vLLM runs with VLLM_BASE's settings (the shutdown scenarios with --max-model-len 2048 and
--shutdown-timeout 30, so that four 1,800-token completions are still draining); SGLang with
--device cpu --model-impl transformers. Each scenario first sets SIGINT and SIGQUIT back to their
default actions (dfl_signals): a recorder started in the background by a shell inherits both
ignored, and so would the engine.

Recorded 2026-12-06 in three invocations taking turns with three other helpers' recorders
(raw1: four vLLM; raw2: none kept; raw3: two vLLM, five SGLang), each kept scenario once. About
9 minutes of recording (vLLM 32+43+47+45+23+40 s, SGLang 27+28+50+91+58 s). 11 kept (final
files dl101-dl111). Not kept as logs of their faults, and re-recorded once: a first pass of the
six vLLM scenarios started before setup had generated the tiny model (every one ended at once in
`HFValidationError: Repo id must be in the form ...`, nothing signalled), and a first take of
v-quit-core-compile, v-int-api-compile and s-int-launcher-load whose SIGQUIT / SIGINT the
engines ignored (the recorder ran from a background shell, which leaves both ignored; the runs
served as if nothing had been sent) - the table then gained dfl_signals. raw1's four vLLM
scenarios (SIGABRT, SIGSEGV, SIGTERM) were recorded before that, with SIGINT/SIGQUIT still
ignored, which none of them sends. Dropped: s-quit-launcher-shutdown (SIGTERM to SGLang's
launcher with three long generations running, then SIGQUIT to it while its shutdown waits on
them): never recorded, stopped while it waited for the lock, to finish within the time given;
removed from the table.

What the engines did. vLLM: SIGQUIT to the EngineCore during the compile warm-up kills it
without a word - the API server's `Engine core initialization failed ... Failed core proc(s): {}`
(kv_cache_alloc, crashed). SIGINT to the API server alone during that warm-up is held until the
engine is up (`init engine ... took`), then lands: the process manager SIGTERMs and force-kills
the engine core and the startup unwinds into `KeyboardInterrupt` (stopped in warmup). SIGABRT to
the API server at `CPU KV cache size` leaves nothing at all: the log just ends there (incomplete).
SIGSEGV to the EngineCore at `Application startup complete` prints `!!!!!!! Segfault encountered
!!!!!!!`, `engine core exited unexpectedly`, `EngineDeadError`, a 500 for the next completion and
uvicorn's shutdown (crashed at ready). During a 30 s drain a second SIGTERM to the API server
leaves no trace (the drain completes, stopped in serving), and a SIGSEGV to the worker met it on
its way out (`Parent process exited`), its segfault dump followed by `all workers exited
gracefully` (stopped in serving). SGLang: SIGINT to the launcher at `Load weight begin` ends in
its `KeyboardInterrupt` in _wait_for_scheduler_ready after `Load weight end` (stopped,
kv_cache_alloc); SIGSEGV to the scheduler while it allocates the KV cache gives a faulthandler
dump in memory_pool._zeros and `Rank 0 scheduler died during initialization (exit code: -11)`;
SIGKILL to the scheduler and SIGSEGV to the detokenizer in the warm-up window give `Subprocess
... crashed with exit code -9 / -11. Triggering SIGQUIT for cleanup...` (after -11 the launcher
waits 60 s `for CUDA coredumps` on a CPU host); SIGABRT to the scheduler with the first request
decoding gives `Fatal Python error: Aborted` in the decode step and `crashed with exit code -6`.
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
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

ROOT = Path("/tmp/blind133")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V_DRAIN = [*VLLM_BASE, "--max-model-len", "2048", "--shutdown-timeout", "30"]


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch: a recorder started
    in the background by a shell inherits them ignored, and the engine would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def wait_fast(ctx: Ctx, needles: list[str], timeout: float = 300) -> str | None:
    """The first of ``needles`` the log shows below its header (whose source line names the
    needle), polled every 50 ms (None: none, or the run ended)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = ctx.text().partition("\n\n")[2]
        found = next((n for n in needles if n in text), None)
        if found is not None:
            return found
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return None
        time.sleep(0.05)
    return None


def targets(ctx: Ctx, who: str) -> list:
    """``main``: the process started (vLLM's API server, SGLang's launcher); else the
    children whose name or command line holds ``who``."""
    assert ctx.proc is not None
    if who == "main":
        return [ctx.proc]
    return ctx.children(who)


def request(ctx: Ctx, path: str, body: dict, timeout: float = 90) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def in_threads(ctx: Ctx, calls: list[tuple[str, dict]], timeout: float = 90) -> None:
    for p, b in calls:
        threading.Thread(target=request, args=(ctx, p, b, timeout), daemon=True).start()


def signal_at(needles: list[str], who: str, sig: int, delay: float = 0.0, after_s: float = 50,
              then: Callable[[Ctx], None] | None = None) -> Callable[[Ctx], None]:
    """``sig`` to ``who`` once one of ``needles`` is logged (after ``delay`` s); then ``then``
    (a request, say) if the run is still there, and the run lingers ``after_s`` s."""
    def act(ctx: Ctx) -> None:
        if wait_fast(ctx, needles) is None:
            linger(ctx, 5)
            return
        time.sleep(delay)
        for p in targets(ctx, who):
            signal_quietly(p, sig)
        if then is not None and ctx.proc is not None and ctx.proc.poll() is None:
            time.sleep(2)
            then(ctx)
        linger(ctx, after_s)
    return act


def v_one_completion(ctx: Ctx) -> None:
    ctx.complete(1, max_tokens=16)


def v_drain_then(who: str, sig: int) -> Callable[[Ctx], None]:
    """Served one completion; four 1,800-token completions, SIGTERM to the API server 2 s in;
    once the engine core says it is draining them, ``sig`` to ``who`` (0.5 s later)."""
    def act(ctx: Ctx) -> None:
        if wait_fast(ctx, [READY_LINE], 300) is None:
            linger(ctx, 5)
            return
        name = ctx.model_name()
        ctx.complete(1, max_tokens=16)
        body = {"model": name, "prompt": "fox", "max_tokens": 1800, "ignore_eos": True}
        in_threads(ctx, [("/v1/completions", body)] * 4)
        time.sleep(2)
        assert ctx.proc is not None
        signal_quietly(ctx.proc, signal.SIGTERM)
        if wait_fast(ctx, ["draining in-flight requests"], 20) is not None:
            time.sleep(0.5)
            for p in targets(ctx, who):
                signal_quietly(p, sig)
        linger(ctx, 60)
    return act


def s_first_request_then(who: str, sig: int) -> Callable[[Ctx], None]:
    """Once fired up: the first user request (a 1,500-token generation), and ``sig`` to ``who``
    1 s into it; one more short request."""
    def act(ctx: Ctx) -> None:
        if wait_fast(ctx, [SG_READY], 300) is None:
            linger(ctx, 5)
            return
        body = {"text": "fox", "sampling_params": {"max_new_tokens": 1500, "ignore_eos": True}}
        in_threads(ctx, [("/generate", body)])
        time.sleep(1)
        for p in targets(ctx, who):
            signal_quietly(p, sig)
        time.sleep(2)
        request(ctx, "/generate", {"text": "dog", "sampling_params": {"max_new_tokens": 8}},
                timeout=30)
        linger(ctx, 40)
    return act


SCENARIOS = [
    # vLLM: startup
    Scenario("v-quit-core-compile", "vllm", "SIGQUIT (default action: core dump) to the "
             "EngineCore process 1 s into the worker's torch.compile warm-up (`Warming up model "
             "for the compilation`)", VLLM_BASE,
             before=dfl_signals,
             act=signal_at(["Warming up model for the compilation"], "EngineCore",
                           signal.SIGQUIT, 1.0)),
    Scenario("v-int-api-compile", "vllm", "SIGINT to the API server process alone (kill -INT of "
             "the main pid) 1 s into the worker's torch.compile warm-up", VLLM_BASE,
             before=dfl_signals,
             act=signal_at(["Warming up model for the compilation"], "main", signal.SIGINT,
                           1.0)),
    Scenario("v-abrt-api-kvcache", "vllm", "SIGABRT to the API server process alone the moment "
             "the engine logs its CPU KV cache size", VLLM_BASE,
             before=dfl_signals,
             act=signal_at(["CPU KV cache size"], "main", signal.SIGABRT)),
    Scenario("v-segv-core-ready", "vllm", "SIGSEGV to the EngineCore process the moment uvicorn "
             "logs `Application startup complete`; a completion 2 s later", VLLM_BASE,
             before=dfl_signals,
             act=signal_at([READY_LINE], "EngineCore", signal.SIGSEGV, then=v_one_completion,
                           after_s=30)),
    # vLLM: shutdown
    Scenario("v-term-twice-api-drain", "vllm", "--shutdown-timeout 30; four 1,800-token "
             "completions, SIGTERM to the API server 2 s in, and a second SIGTERM to it 0.5 s "
             "after the engine core says it is draining them", V_DRAIN,
             before=dfl_signals,
             act=v_drain_then("main", signal.SIGTERM)),
    Scenario("v-segv-worker-drain", "vllm", "--shutdown-timeout 30; four 1,800-token "
             "completions, SIGTERM to the API server 2 s in, and SIGSEGV to the model worker "
             "0.5 s after the engine core says it is draining them", V_DRAIN,
             before=dfl_signals,
             act=v_drain_then("VLLM::Worker", signal.SIGSEGV)),
    # SGLang: startup
    Scenario("s-int-launcher-load", "sglang", "SIGINT to the launcher process alone (kill -INT "
             "of the main pid) the moment the scheduler logs `Load weight begin`", SG,
             before=dfl_signals,
             act=signal_at(["Load weight begin"], "main", signal.SIGINT)),
    Scenario("s-segv-scheduler-kvcache", "sglang", "SIGSEGV to the scheduler subprocess 1 s "
             "after `Load weight end` (while it allocates its KV cache)", SG,
             before=dfl_signals,
             act=signal_at(["Load weight end"], "sglang::scheduler", signal.SIGSEGV, 1.0)),
    Scenario("s-kill-scheduler-warmup", "sglang", "SIGKILL to the scheduler subprocess the "
             "moment `Uvicorn running on` is logged (SGLang's own warm-up request under way)",
             SG, before=dfl_signals,
             act=signal_at(["Uvicorn running on"], "sglang::scheduler", signal.SIGKILL)),
    Scenario("s-segv-detokenizer-warmup", "sglang", "SIGSEGV to the detokenizer subprocess the "
             "moment `Uvicorn running on` is logged (SGLang's own warm-up request under way)",
             SG, before=dfl_signals,
             act=signal_at(["Uvicorn running on"], "sglang::detokenizer", signal.SIGSEGV)),
    # SGLang: first request
    Scenario("s-abrt-scheduler-first-request", "sglang", "once fired up, the first user request "
             "(a 1,500-token generation) and SIGABRT to the scheduler 1 s into it; one more "
             "request", SG, before=dfl_signals,
             act=s_first_request_then("sglang::scheduler", signal.SIGABRT)),
]
