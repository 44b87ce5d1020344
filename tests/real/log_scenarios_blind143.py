"""The hundred-and-forty-third batch's scenarios (tests/fixtures/corpus/fresh142): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind143.py OUT

Themes: orchestrators that probe and kill - what Kubernetes, Nomad, docker and systemd do to a
server whose start is slower than they were told, written as small Python watchers in the
scenario's steps (no real orchestrator is installed here). A startup probe polling /health every
2 s whose failure threshold runs out during vLLM's or SGLang's weight loading, vLLM's compile
warm-up, or just after SGLang's ready line, followed by a termination grace period of 1 s shorter
than the engine's own shutdown (SIGTERM, then SIGKILL 1 s later, to the main PID only - its
children left to themselves - or to the whole process group); a liveness probe with a 1 s
timeout (vLLM's /health, SGLang's /health_generate) every 2 s under a burst of long requests,
three failures in a row and the server is SIGTERMed, SIGKILLed 30 s later if still there; a
container whose PID 1 is a shell wrapper without exec (`sh -c 'python -m ...; echo ...'` in a PID
namespace of its own, `unshare --pid --fork --mount-proc`): the SIGTERM of a stop is dropped by
the kernel (PID 1 without a handler) and the stop only lands as the SIGKILL 10 s later, which
tears the whole namespace down; and a 1 s grace period over SGLang draining a burst of streams.

Earlier batches already had (not repeated): a bash entrypoint polling /health with curl and
SIGKILLing vLLM's API server after 12 failures, a wrong probe path for SGLang, `timeout 20/30`
around a startup, a wrapper without exec trapping SIGTERM with `kill -9` of vLLM (105th); a load
balancer's sub-second /health probe during long prefills, SGLang's launcher SIGKILLed or
SIGTERMed twice with streams open (111th); single signals to one process at precise startup
lines - vLLM's API server SIGTERMed during load, SGLang's group SIGTERMed in the warm-up window
(133rd and before); restart loops under systemd, supervisord and scripts (135th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. The
PID-1 wrapper (/tmp/blind143/pid1.py) is written when this table is loaded. No watcher writes
a line into the log: an orchestrator's events are not in the container's own output.

Recorded 2026-12-06 in two invocations (raw1: the vLLM scenarios; raw2, started beside it to
take turns sooner, the SGLang ones), waiting turns with two other helpers' recorders for most of
the 35 minutes given; each scenario once. About 8 minutes of recording (vLLM 59+59+42+131+47 s,
SGLang 28+76+53 s). 7 kept (final files dv101-dv107: four vLLM, three SGLang).
Dropped: v-liveness-1s-burst (recorded, 131 s: vLLM answered all 45 liveness polls of /health
200 within the 1 s timeout while 48 200-token completions ran - the tiny model finishes them in
a few seconds - so the probe never failed and nothing was killed: the fault never shows).
Not recorded, for want of time behind the shared lock (removed from the table):
s-pid1-sh-no-forward (SGLang under the PID-1 shell wrapper, the stop only landing as the SIGKILL)
and s-grace1-group-streams (SIGTERM then SIGKILL 1 s later to SGLang's group draining eight
600-token streams). Stopping the two recorders between scenarios lost the race twice: raw1 had
just begun s-probe-grace1-main-load (a repeat of raw2's) and raw2 s-pid1-sh-no-forward; both
runs were killed by their process groups within seconds to a minute, not kept. s-liveness-1s-
healthgen-burst showed its fault (three polls past 1 s, SIGTERM) but SGLang drained and exited
0 before the 30 s grace ran out.

What the engines did. vLLM's API server SIGTERMed and SIGKILLed at `Starting to load model`
dies without a line; its engine core and worker, left to themselves, load, warm up and log
`init engine ... took 11.53 s`, then wait for an API server that is gone (the log reads as an
engine up, ready in warmup). SIGTERM to vLLM's group 1 s into the compile warm-up leaves only
`EngineCore: trigger received signal=SIGTERM` before the SIGKILL. While serving, vLLM's
shutdown (`mode=abort timeout=0s`, the engine core force-killed) finished well inside a 1 s
grace period: exit 0 before the SIGKILL. Under a PID-1 shell without exec the SIGTERM is
dropped and vLLM (`APIServer pid=2`) never says a word; the last line is unshare's. SGLang's
launcher SIGTERMed at `Load weight begin` dies of it (exit -15) and its children go with it,
silently; SIGTERM to SGLang's group just after `The server is fired up` makes the launcher log
`SIGTERM received ... Draining requests`, then read its detokenizer's -15 as a crash
(`Subprocess detokenizer ... crashed with exit code -15. Triggering SIGQUIT`, `Sleeping 5
seconds before crash diagnostics`), cut by the SIGKILL.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger, signal_quietly  # noqa: E402

ROOT = Path("/tmp/blind143")
PID1 = ROOT / "pid1.py"
SG_READY = "The server is fired up and ready to roll!"
SG_ARGS = ["--device", "cpu", "--model-impl", "transformers"]

PID1_WRAPPER = r'''"""A container's PID 1: `sh -c` without exec, in a PID namespace of its own."""
import os
import shlex
import sys

cmd = " ".join(shlex.quote(a) for a in [sys.executable, *sys.argv[1:]])
os.execv("/usr/bin/unshare", ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child",
                              "sh", "-c", cmd + '; echo "entrypoint: server exited with status $?"'])
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    PID1.write_text(PID1_WRAPPER)


_setup()


# --- the orchestrator's pieces ---------------------------------------------------------------

def wait_fast(ctx: Ctx, needles: list[str], timeout: float = 300) -> str | None:
    """The first of ``needles`` the log shows below its header, polled every 50 ms."""
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


def probe(ctx: Ctx, path: str, timeout: float) -> bool:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}{path}", timeout=timeout) as r:
            r.read()
            return r.status == 200
    except (urllib.error.URLError, OSError, TimeoutError, ValueError):
        return False


def request(ctx: Ctx, path: str, body: dict, timeout: float = 120) -> None:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
    except (urllib.error.URLError, OSError, TimeoutError, ValueError):
        pass


def burst(ctx: Ctx, n: int, max_tokens: int) -> None:
    """``n`` long completions at once, each in a thread of its own."""
    name = ctx.model_name()
    for i in range(n):
        body = {"model": name, "prompt": f"the fox {i}", "max_tokens": max_tokens,
                "ignore_eos": True}
        threading.Thread(target=request, args=(ctx, "/v1/completions", body),
                         daemon=True).start()


def stop(ctx: Ctx, grace: float, group: bool, after_s: float = 30) -> None:
    """SIGTERM, then SIGKILL ``grace`` s later if still running, to the main PID only or to the
    whole process group; the run then lingers ``after_s`` s (orphans left to themselves)."""
    assert ctx.proc is not None
    if group:
        with_group(ctx, signal.SIGTERM)
    else:
        signal_quietly(ctx.proc, signal.SIGTERM)
    try:
        ctx.proc.wait(grace)
    except subprocess.TimeoutExpired:
        pass
    if group:
        with_group(ctx, signal.SIGKILL)
    else:
        signal_quietly(ctx.proc, signal.SIGKILL)
    time.sleep(1)
    end = time.monotonic() + after_s
    while time.monotonic() < end and children_alive(ctx):
        time.sleep(0.5)


def children_alive(ctx: Ctx) -> bool:
    assert ctx.proc is not None
    try:
        os.killpg(ctx.proc.pid, 0)
        return True
    except ProcessLookupError:
        return False


def with_group(ctx: Ctx, sig: int) -> None:
    assert ctx.proc is not None
    try:
        os.killpg(ctx.proc.pid, sig)
    except ProcessLookupError:
        pass


def startup_probe_kill(needles: list[str], grace: float, group: bool,
                       delay: float = 0.0) -> Callable[[Ctx], None]:
    """A startup probe on /health every 2 s; its failure threshold runs out at the first probe
    after one of ``needles`` is logged (``delay`` s after it): stop(grace, group)."""
    def act(ctx: Ctx) -> None:
        if wait_fast(ctx, needles) is None:
            linger(ctx, 5)
            return
        time.sleep(delay)
        stop(ctx, grace, group)
    return act


def serve_then_stop(grace: float, group: bool, engine: str, streams: int = 8,
                    after_s: float = 30) -> Callable[[Ctx], None]:
    """Up, one short completion, ``streams`` long ones; 3 s into them stop(grace, group)."""
    def act(ctx: Ctx) -> None:
        if wait_fast(ctx, [SG_READY if engine == "sglang" else READY_LINE]) is None:
            linger(ctx, 5)
            return
        ctx.complete(1, max_tokens=8)
        burst(ctx, streams, 200 if engine == "vllm" else 600)
        time.sleep(3)
        stop(ctx, grace, group, after_s)
    return act


def liveness_under_burst(path: str, engine: str, streams: int) -> Callable[[Ctx], None]:
    """Up, then a burst of long completions and a liveness probe on ``path`` every 2 s with a
    1 s timeout; three failures in a row: SIGTERM to the main PID, SIGKILL to the group 30 s
    later. With no third failure in 90 s, the run lingers and ends."""
    def act(ctx: Ctx) -> None:
        if wait_fast(ctx, [SG_READY if engine == "sglang" else READY_LINE]) is None:
            linger(ctx, 5)
            return
        ctx.complete(1, max_tokens=8)
        burst(ctx, streams, 200 if engine == "vllm" else 600)
        fails, end = 0, time.monotonic() + 90
        while time.monotonic() < end and ctx.proc is not None and ctx.proc.poll() is None:
            t0 = time.monotonic()
            fails = 0 if probe(ctx, path, 1.0) else fails + 1
            if fails >= 3:
                assert ctx.proc is not None
                signal_quietly(ctx.proc, signal.SIGTERM)
                try:
                    ctx.proc.wait(30)
                except subprocess.TimeoutExpired:
                    with_group(ctx, signal.SIGKILL)
                linger(ctx, 5)
                return
            time.sleep(max(0.0, 2 - (time.monotonic() - t0)))
        linger(ctx, 5)
    return act


def pid1_stop(engine: str) -> Callable[[Ctx], None]:
    """Up and serving (long streams); `docker stop`: SIGTERM to PID 1 (the shell, dropped by the
    kernel: no handler), SIGKILL to it 10 s later (the namespace torn down)."""
    def act(ctx: Ctx) -> None:
        if wait_fast(ctx, [SG_READY if engine == "sglang" else READY_LINE]) is None:
            linger(ctx, 5)
            return
        ctx.complete(1, max_tokens=8)
        burst(ctx, 4, 200 if engine == "vllm" else 600)
        time.sleep(3)
        shells = []
        for p in ctx.children(""):
            try:
                if p.name() == "sh":
                    shells.append(p)
            except psutil.Error:
                continue
        for p in shells:
            signal_quietly(p, signal.SIGTERM)
        time.sleep(10)
        for p in shells:
            signal_quietly(p, signal.SIGKILL)
        linger(ctx, 10)
    return act


def v(name: str, what: str, act: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "vllm", what, VLLM_BASE, act=act)


def s(name: str, what: str, act: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "sglang", what, SG_ARGS, act=act)


def v_pid1(name: str, what: str) -> Scenario:
    return Scenario(name, "vllm", what, [str(PID1), "-m", "vllm.entrypoints.openai.api_server",
                                         "--model", "{model}", "--host", "127.0.0.1",
                                         "--port", "{port}", *VLLM_BASE],
                    act=pid1_stop("vllm"), entry="python")


def s_pid1(name: str, what: str) -> Scenario:
    return Scenario(name, "sglang", what, [str(PID1), "-m", "sglang.launch_server",
                                           "--model-path", "{model}", "--host", "127.0.0.1",
                                           "--port", "{port}", *SG_ARGS],
                    act=pid1_stop("sglang"), entry="python")


PROBE = "a startup probe (GET /health every 2 s) whose failure threshold runs out"

SCENARIOS = [
    # --- vLLM --------------------------------------------------------------------------------
    v("v-probe-grace1-main-load", f"{PROBE} as vLLM starts loading its weights: SIGTERM to the "
      "main PID (the API server), SIGKILL to it 1 s later (grace period 1 s), its children left",
      startup_probe_kill(["Starting to load model"], 1.0, group=False)),
    v("v-probe-grace1-group-compile", f"{PROBE} during vLLM's torch.compile warm-up: SIGTERM to "
      "the whole process group, SIGKILL to the group 1 s later (grace period 1 s)",
      startup_probe_kill(["Warming up model for the compilation"], 1.0, group=True, delay=1.0)),
    v("v-grace1-main-serving", "a stop while serving eight 200-token completions: SIGTERM to the "
      "main PID (the API server), SIGKILL to it 1 s later (grace period 1 s), its children left",
      serve_then_stop(1.0, group=False, engine="vllm")),
    v_pid1("v-pid1-sh-no-forward", "the container's PID 1 is `sh -c 'python -m ...; echo ...'` "
           "(no exec) in a PID namespace of its own; a stop while it serves four long "
           "completions: SIGTERM to PID 1 (dropped: no handler), SIGKILL 10 s later"),
    # --- SGLang ------------------------------------------------------------------------------
    s("s-probe-grace1-main-load", f"{PROBE} as SGLang begins loading its weights: SIGTERM to the "
      "main PID (the launcher), SIGKILL to it 1 s later (grace period 1 s), its children left",
      startup_probe_kill(["Load weight begin"], 1.0, group=False)),
    s("s-probe-grace1-group-after-ready", f"{PROBE} just after SGLang's ready line (the probe "
      "fails at its poll 0.5 s later): SIGTERM to the whole process group, SIGKILL to the group "
      "1 s later (grace period 1 s)", startup_probe_kill([SG_READY], 1.0, group=True, delay=0.5)),
    s("s-liveness-1s-healthgen-burst", "a liveness probe (GET /health_generate every 2 s, "
      "timeout 1 s, 3 failures) under a burst of 16 600-token completions; on the third failure "
      "SIGTERM to the main PID (the launcher), SIGKILL to the group 30 s later",
      liveness_under_burst("/health_generate", "sglang", 16)),
]
