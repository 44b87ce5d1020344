"""The two-hundred-and-fifteenth batch's scenarios (tests/fixtures/corpus/fresh214): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind215.py OUT

Themes: the engine itself as PID 1 of a container started without an init (`docker run`
without --init): /tmp/blind215/pid1.py (written when this table is loaded) execs `unshare --pid
--fork --mount-proc --kill-child` on the engine's own interpreter, so the engine's Python process
is exec'd as the first process of a PID namespace of its own (no shell, no tini). The kernel
then drops every signal PID 1 has no handler for, whether sent from outside the namespace (the
host's `docker kill -s`, `docker stop`) or from inside it (`docker exec ... kill -HUP 1`, here
`nsenter --target PID --pid --mount kill -s HUP 1`); when PID 1 exits the kernel kills whatever
is left in the namespace (the engine's own workers mid-flight); a child of PID 1 that dies is
reaped only if the engine waits for it. Signals are timed by log lines: at load (vLLM's
`Starting to load model`, SGLang's `Load weight begin`), after the ready line, and under a burst
of long completions.

Earlier batches already had (not repeated): a shell wrapper without exec as PID 1 (`sh -c
'python -m ...; echo'`, the SIGTERM of `docker stop` dropped, then the SIGKILL, 143rd: vLLM
recorded, SGLang not); SIGTERM/SIGINT to engines not in a PID namespace at startup lines and
while serving (133rd and before); the API server SIGKILLed while serving (log_faults).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. SIGINT
and SIGQUIT are reset to their default actions before each launch (dfl_signals, as the 133rd
batch's table does), so the engine's handlers are what a container's would be.

Recorded 2026-12-07 in two invocations (raw1: the first four scenarios; raw2: the rest, after
raw1 was stopped while it waited for the lock, to lengthen the bursts - vLLM's 300-token
completions would have been refused by --max-model-len 256, SGLang's had finished within 2 s),
waiting turns with two other helpers' recorders for most of the time; each scenario once. About
5m55s of recording (vLLM 45+52+37+38 s, SGLang 25+41+117 s). 6 kept (final files gr101-gr106:
three vLLM, three SGLang). Dropped, and removed from the table: v-pid1-core-sigkill-burst
(recorded, 38 s: SIGKILL to vLLM's EngineCore after serving gives `MPClient: engine core exited
unexpectedly`, `EngineDeadError` and uvicorn's shutdown - what an EngineCore kill without a
namespace gives (log_faults' serve_then_kill_engine_core), bar `APIServer pid=1`: a repeat, the
PID 1 changing nothing the log shows), and s-pid1-sighup-inside-load (SIGHUP from inside the namespace to SGLang
at `Load weight begin`: not recorded, stopped while it waited for the lock, for want of time).

What the engines did. vLLM as PID 1 sent SIGTERM from the host 1 s after `Starting to load
model` showed nothing of it: it loaded, warmed up and served (exit only by the recorder's kill;
vLLM sets a SIGTERM handler at init, so the kernel should have delivered it - why nothing
shows, the log does not say).
vLLM serving, SIGHUP from inside the namespace (`nsenter ... kill -s HUP 1`): dropped by the
kernel (no handler), no line; it served on. vLLM serving, SIGINT from the host: uvicorn's
handler takes it, `[shutdown] API server: shutdown triggered`, `mode=abort timeout=0s`, the
engine core force-killed, `Application shutdown complete.`, exit 0 (the eight 200-token
completions had finished within the 3 s). SGLang as PID 1, SIGINT from the host 1 s after
`Load weight begin` (weights already loaded): `kill_process_tree called: parent_pid=1,
include_parent=False, pid=1` and a KeyboardInterrupt traceback in `_wait_for_scheduler_ready`,
exit 1. SGLang serving, SIGTERM from the host: `SIGTERM received ... Draining requests`,
`Remaining number of requests 0`, exit 0. SGLang with its detokenizer SIGKILLed mid-burst:
`Subprocess detokenizer (pid=10) crashed with exit code -9. Triggering SIGQUIT`, a 60 s wait for
CUDA coredumps while the scheduler kept decoding the eight streams, then `kill_process_tree
called: parent_pid=1, include_parent=True` - its SIGKILL to itself is dropped (PID 1, from
inside), so the `sys.exit(0)` after it raises SystemExit inside uvicorn's loop: eight `Exception
in ASGI application` tracebacks and eight 500s before the process ends, where a launcher not
PID 1 would have died silently on its own SIGKILL.
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

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger, signal_quietly  # noqa: E402

ROOT = Path("/tmp/blind215")
PID1 = ROOT / "pid1.py"
SG_READY = "The server is fired up and ready to roll!"
SG_ARGS = ["--device", "cpu", "--model-impl", "transformers"]

PID1_WRAPPER = r'''"""A container without an init: the engine exec'd as PID 1 of a PID namespace of its own."""
import os
import sys

os.execv("/usr/bin/unshare", ["unshare", "--pid", "--fork", "--mount-proc", "--kill-child",
                              sys.executable, *sys.argv[1:]])
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    PID1.write_text(PID1_WRAPPER)


_setup()


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch: a recorder started
    in the background by a shell inherits them ignored, and the engine would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


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


def engine_pid1(ctx: Ctx) -> psutil.Process | None:
    """The engine: unshare's forked child, PID 1 inside its namespace."""
    assert ctx.proc is not None
    try:
        kids = psutil.Process(ctx.proc.pid).children()
    except psutil.Error:
        return None
    return kids[0] if kids else None


def children_of_pid1(ctx: Ctx, needle: str) -> list[psutil.Process]:
    out = []
    for p in ctx.children(needle):
        if ctx.proc is not None and p.pid != ctx.proc.pid:
            out.append(p)
    return out


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


def to_pid1(ctx: Ctx, sig: int, inside: bool) -> None:
    """``sig`` to the engine (PID 1 of its namespace): from the host (its host PID) or from
    inside the namespace (`nsenter ... kill -s SIG 1`, as a `docker exec` would)."""
    p = engine_pid1(ctx)
    if p is None:
        return
    if inside:
        subprocess.run(["nsenter", "--target", str(p.pid), "--pid", "--mount", "kill", "-s",
                        signal.Signals(sig).name.removeprefix("SIG"), "1"], timeout=20,
                       check=False)
    else:
        signal_quietly(p, sig)


def at_line(needles: list[str], sig: int, inside: bool = False, delay: float = 1.0,
            ready: str = READY_LINE, after_s: float = 60) -> Callable[[Ctx], None]:
    """``sig`` to PID 1 once one of ``needles`` is logged; then the run goes on ``after_s`` s
    (if it comes up, two completions)."""
    def act(ctx: Ctx) -> None:
        if wait_fast(ctx, needles) is None:
            linger(ctx, 5)
            return
        time.sleep(delay)
        to_pid1(ctx, sig, inside)
        if wait_fast(ctx, [ready], after_s) is not None:
            ctx.complete(2, max_tokens=16)
            linger(ctx, 8)
        else:
            linger(ctx, 5)
    return act


def serving(sig: int, ready: str, inside: bool = False, streams: int = 0, max_tokens: int = 300,
            target: str = "", after_s: float = 40) -> Callable[[Ctx], None]:
    """Up, two completions, ``streams`` long ones at once; 3 s in, ``sig`` to PID 1 (or to its
    child named ``target``); then one more completion and the run goes on ``after_s`` s."""
    def act(ctx: Ctx) -> None:
        if wait_fast(ctx, [ready]) is None:
            linger(ctx, 5)
            return
        ctx.complete(2, max_tokens=16)
        if streams:
            burst(ctx, streams, max_tokens)
        time.sleep(3)
        if target:
            for p in children_of_pid1(ctx, target)[-1:]:
                signal_quietly(p, sig)
        else:
            to_pid1(ctx, sig, inside)
        time.sleep(3)
        ctx.complete(1, max_tokens=16)
        linger(ctx, after_s)
    return act


def v(name: str, what: str, act: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "vllm", f"the engine exec'd as PID 1 of its own PID namespace (no "
                    f"init); {what}", [str(PID1), "-m", "vllm.entrypoints.openai.api_server",
                                       "--model", "{model}", "--host", "127.0.0.1", "--port",
                                       "{port}", *VLLM_BASE],
                    before=dfl_signals, act=act, entry="python")


def s(name: str, what: str, act: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "sglang", f"the engine exec'd as PID 1 of its own PID namespace (no "
                    f"init); {what}", [str(PID1), "-m", "sglang.launch_server", "--model-path",
                                       "{model}", "--host", "127.0.0.1", "--port", "{port}",
                                       *SG_ARGS],
                    before=dfl_signals, act=act, entry="python")


SCENARIOS = [
    v("v-pid1-sigterm-at-load", "SIGTERM from the host to it (docker stop) 1 s after `Starting "
      "to load model`, no SIGKILL after", at_line(["Starting to load model"], signal.SIGTERM)),
    s("s-pid1-sigint-at-load", "SIGINT from the host to it (docker kill -s INT) 1 s after "
      "`Load weight begin`", at_line(["Load weight begin"], signal.SIGINT, ready=SG_READY)),
    v("v-pid1-sighup-inside-serving", "served two completions, then SIGHUP to PID 1 from inside "
      "the namespace (a `docker exec ... kill -HUP 1` log-rotation reload), then a completion",
      serving(signal.SIGHUP, READY_LINE, inside=True, after_s=15)),
    s("s-pid1-sigterm-burst", "served two completions, then eight 300-token completions at "
      "once; 3 s in, SIGTERM from the host to it (docker stop), no SIGKILL after",
      serving(signal.SIGTERM, SG_READY, streams=8)),
    v("v-pid1-sigint-burst", "served two completions, then eight 200-token completions at once; "
      "3 s in, SIGINT from the host to it (docker kill -s INT)",
      serving(signal.SIGINT, READY_LINE, streams=8, max_tokens=200)),
    s("s-pid1-detok-sigkill-burst", "served two completions, then eight 1,500-token completions "
      "at once; 3 s in, SIGKILL to its detokenizer child",
      serving(signal.SIGKILL, SG_READY, streams=8, max_tokens=1500, target="detokenizer")),
]
