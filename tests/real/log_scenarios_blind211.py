"""The two-hundred-and-eleventh batch's scenarios (tests/fixtures/corpus/fresh210): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind211.py OUT

Themes: back-to-back launches of an optimisation sweep - a script that stops one configuration
and starts the next in the same shell as fast as it can. The recorded log is the NEXT launch's;
the previous engine is started by the scenario's `before` step (the same settings, or the
sweep's previous point), brought up, given one request, then stopped the way such scripts stop
it, and the next launch follows at once. The previous engine's output goes to
/tmp/blind211/prev/NAME.log; its whole process group (orphans included) is SIGKILLed when the
scenario's act ends. Kept: vLLM's API server SIGKILLed alone (`kill -9 $PID`) after serving, its
engine core and worker left running as orphans holding their KV cache, then the same launch on
the same port (at the default --gpu-memory-utilization 0.25, and at a sweep point of 0.5); an
engine-comparison sweep whose previous point was such an orphaned vLLM (0.7 and 0.5) and whose
next point is SGLang on the same port.

Earlier batches already had (not repeated): two servers side by side on one port or address
(118th and earlier port-taken scenarios); restart loops of one command under systemd,
supervisord and scripts (135th), a Python launcher restarting once (105th); an earlier run's
Prometheus multiprocess files (93rd); a shared compile cache cleared by another job while vLLM
compiles (118th); --gpu-memory-utilization 0.95 on the idle host (fresh109/co105) and a node
whose meminfo shows little free (fresh189/fr104), the same vLLM refusal as gn102 for other
reasons.

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings (a later
--gpu-memory-utilization wins). SIGINT and SIGQUIT are set back to their defaults before each
launch (as the 133rd batch's dfl_signals does).

Recorded 2026-12-07 in three invocations (raw1: the first seven scenarios planned, of which six
ran before I stopped that recorder while it waited for its seventh turn; raw2:
v-kill9-api-orphan-core-util-0.5; raw3: s-after-vllm-orphan-util-0.7 and -0.5, the last three
added once the first logs showed nothing), taking turns with two other helpers' recorders; each
scenario once. About 6 minutes of recording (vLLM 52+39+42+29 s, SGLang 50+47+45+37+48 s, each
including the previous engine's startup). 4 kept (final files gn101-gn104). Dropped, each
recorded once and removed from the table because its log shows nothing of the fault (a clean
startup that serves, as on an idle host): v-sigterm-streams-relaunch-same-port (the previous
vLLM SIGTERMed with two long streams open, relaunched 0.5 s later on its port: the port was
already free and the engine had let go of its memory, `Available RAM: 21.40 GiB`);
v-compile-cache-killed-midwrite (meant to SIGKILL the previous vLLM in its torch.compile with a
shared VLLM_CACHE_ROOT; my needle matched too early a line and the kill came after the previous
run was up, so the cache was whole - the fault was never made); s-kill9-launcher-orphans-same-
nccl-port, s-kill9-launcher-busy-orphans-next-port (SGLang's launcher SIGKILLed alone after
serving, or with two 1,500-token generations in flight; SGLang's scheduler and detokenizer die
with their launcher, so the next launch, with the same --port and --nccl-port or on the next
port, found 20.9 GB free and served) and s-sigterm-relaunch-same-port (SGLang SIGTERMed and
relaunched 0.3 s later on its port: gone by the time the next one bound it). Not recorded:
s-kill9-group-warmup-same-nccl-port (the whole SGLang group SIGKILLed in its warm-up window,
relaunched with the same ports), given up to finish in time.

What the engines did: vLLM's engine core and worker outlive their API server's SIGKILL with their
KV cache held (the next launch's loader logs `Available RAM: 15.71 GiB` instead of 21.8), while
the HTTP port is free at once. At the default utilisation (0.25 of 23.54 GiB) the next vLLM
starts and serves regardless (gn101: ready); at 0.5 its worker refuses at construction,
`ValueError: Available memory on node 0 (10.15/23.54 GiB) on startup is less than desired CPU
memory utilization (0.5, 11.77 GiB)` (gn102: crashed in launch). SGLang after such an orphan
does not refuse: it sizes its pool from what is free (`avail mem=4.17 GB` and a 3.0 GB pool
after a 0.7 orphan, 8.96 GB and 6.4 GB after a 0.5 orphan, against 20.9 GB and 15 GB otherwise)
and serves, with no warning (gn103, gn104: ready in serving). Every vLLM launch here, on a clean
cache too, warns `Compiling model again due to a load failure ... 'function' object has no
attribute`: the build's, not the fault's.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, VLLM  # noqa: E402

ROOT = Path("/tmp/blind211")
PREV = ROOT / "prev"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V_UTIL_05 = [*VLLM_BASE, "--gpu-memory-utilization", "0.5"]
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
           "DO_NOT_TRACK": "1"}
PREVS: dict[str, subprocess.Popen] = {}
PREV.mkdir(parents=True, exist_ok=True)


def dfl_signals() -> None:
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def request(port: int, path: str, body: dict | None = None, timeout: float = 60) -> int:
    url = f"http://127.0.0.1:{port}{path}"
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


def v_cmd(port: int, args: list[str]) -> list[str]:
    return [str(VLLM.python), "-m", "vllm.entrypoints.openai.api_server", "--model",
            str(LLAMA.dir), "--host", "127.0.0.1", "--port", str(port), *args]


def start_prev(name: str, argv: list[str], env: dict[str, str], work: Path) -> subprocess.Popen:
    log = open(PREV / f"{name}.log", "wb")  # noqa: SIM115 (closed with the process)
    p = subprocess.Popen(argv, stdout=log, stderr=subprocess.STDOUT, stdin=subprocess.DEVNULL,
                         start_new_session=True, env={**os.environ, **OFFLINE, **env}, cwd=work)
    PREVS[name] = p
    return p


def prev_text(name: str) -> str:
    return (PREV / f"{name}.log").read_text(errors="replace")


def prev_wait(name: str, needles: list[str], timeout: float = 240) -> str | None:
    p = PREVS[name]
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = prev_text(name)
        found = next((n for n in needles if n in text), None)
        if found is not None or p.poll() is not None:
            return found
        time.sleep(0.2)
    return None


def kill_prev(name: str) -> None:
    p = PREVS.pop(name, None)
    if p is None:
        return
    for sig in (signal.SIGCONT, signal.SIGKILL):
        try:
            os.killpg(p.pid, sig)
        except ProcessLookupError:
            pass
    try:
        p.wait(20)
    except subprocess.TimeoutExpired:
        pass


# --- the previous point, stopped as the sweep stops it ----------------------------------------

PrevStep = Callable[[str, Ctx], None]


def v_point_orphaned(util: str) -> PrevStep:
    """The sweep's previous point was vLLM (--gpu-memory-utilization ``util``), its API server
    SIGKILLed after a completion, its engine core left holding its KV cache."""
    def prev(name: str, ctx: Ctx) -> None:
        args = VLLM_BASE if util == "0.25" else [*VLLM_BASE, "--gpu-memory-utilization", util]
        p = start_prev(name, v_cmd(ctx.port, args), {}, ctx.work)
        if prev_wait(name, [READY_LINE]):
            request(ctx.port, "/v1/completions", {"model": str(LLAMA.dir), "prompt": "fox",
                                                   "max_tokens": 16})
            time.sleep(1)
        os.kill(p.pid, signal.SIGKILL)
        time.sleep(0.2)
    return prev


# --- the next launch, recorded --------------------------------------------------------------

def v_next(ctx: Ctx) -> None:
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_next(ctx: Ctx) -> None:
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            request(ctx.port, "/generate", {"text": "fox",
                                            "sampling_params": {"max_new_tokens": 8}})
        linger(ctx, 8)


def sweep(name: str, engine: str, what: str, args: list[str], prev: PrevStep,
          env: dict[str, str] | None = None) -> Scenario:
    def before(ctx: Ctx) -> None:
        dfl_signals()
        prev(name, ctx)

    def act(ctx: Ctx) -> None:
        try:
            (v_next if engine == "vllm" else s_next)(ctx)
        finally:
            kill_prev(name)

    return Scenario(name, engine, what, args, env=env or {}, before=before, act=act)


SCENARIOS = [
    sweep("v-kill9-api-orphan-core-same-port", "vllm", "a sweep's previous vLLM (same settings, "
          "same port) served a completion, then its API server alone got SIGKILL (kill -9 $PID), "
          "its engine core left running; this launch 0.2 s later", VLLM_BASE,
          v_point_orphaned("0.25")),
    sweep("v-kill9-api-orphan-core-util-0.5", "vllm", "a sweep's previous vLLM point "
          "(--gpu-memory-utilization 0.5, which on CPU reserves half the host's memory for the KV "
          "cache; same port) served a completion, then its API server alone got SIGKILL, its "
          "engine core left running with its KV cache; this launch, the same settings, 0.2 s "
          "later", V_UTIL_05, v_point_orphaned("0.5")),
    sweep("s-after-vllm-orphan-util-0.7", "sglang", "an engine-comparison sweep: the previous "
          "point was vLLM (--gpu-memory-utilization 0.7, same port), which served a completion, "
          "then its API server alone got SIGKILL, its engine core left running with its KV "
          "cache; this SGLang launch 0.2 s later", SG, v_point_orphaned("0.7")),
    sweep("s-after-vllm-orphan-util-0.5", "sglang", "an engine-comparison sweep: the previous "
          "point was vLLM (--gpu-memory-utilization 0.5, same port), which served a completion, "
          "then its API server alone got SIGKILL, its engine core left running with its KV "
          "cache; this SGLang launch 0.2 s later", SG, v_point_orphaned("0.5")),
]
