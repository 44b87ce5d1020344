"""The hundred-and-twenty-first batch's scenarios (tests/fixtures/corpus/fresh120): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind121.py OUT

Themes: debugging aids a person turns on to see what a server is doing, each with a fault (a
stall, a crash, a bad setting) or left on over a run that serves, so that the log mixes the
aid's own output with the engine's. Python's faulthandler armed from a sitecustomize.py on
PYTHONPATH: `dump_traceback_later(N, repeat=True)` (periodic stack dumps of a healthy server),
`dump_traceback_later(N, exit=True)` (the dump kills the process: a timer left in from a stall
hunt), `faulthandler.register(SIGUSR1)` with SIGUSR1 sent to SGLang's scheduler while it serves;
`PYTHONPROFILEIMPORTTIME=1` (`-X importtime`) over a launch refused at configuration;
`PYTHONDEVMODE=1` (`-X dev`) over a vLLM run whose engine core is SIGKILLed while serving;
`TORCH_SHOW_CPP_STACKTRACES=1` over a vLLM run of a model whose head size the CPU attention
kernel refuses on the first request; vLLM's `VLLM_TRACE_FUNCTION=1`, which traces every call of
the worker into files and crawls; Python's debugger left in a launch (`python -m pdb -m ...`):
SGLang's with its stdin at end of file (pdb quits at the first line), vLLM's with `c` piped in
over a truncated weight shard (pdb's post-mortem after the crash); `strace -f -e
trace=execve,kill,exit_group` around an SGLang launch that dies in its scheduler (`--device
cuda` on a host without a GPU); `py-spy dump` of SGLang's scheduler and launcher, pasted into
the log, after its detokenizer was stopped (SIGSTOP) with a request in flight.

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm)
except where the scenario says; vLLM with VLLM_BASE's settings. The sitecustomize files and the
trace folder are written under /tmp/blind121/ when this table is loaded.

Recorded 2026-12-06 in five invocations, waiting turns with five other helpers' recorders (about
6 minutes of recording in all, 374 s: SGLang 10 + 63 + 37 + 50 + 54 + 33 s, vLLM 8 + 20 + 9 + 47
+ 43 s; one invocation failed before recording, see below). All ten scenarios recorded are kept,
each from one take (cz101-cz110): s-pdb-eof, s-dumplater-exit-serving,
v-importtime-batched-tokens, v-dumplater-exit-startup, s-faulthandler-usr1-serving,
s-pyspy-detok-stopped, v-pdb-continue-truncated, s-strace-device-cuda (second take),
v-dumplater-repeat-serving, v-cpp-stacktraces-hd16. Not recorded, for the time budget (the
shared recorder's queue took most of the hour): v-trace-function and v-devmode-core-killed
(still in the table). s-strace-device-cuda's first take used `strace -f -o FILE`, which left no
line of strace's in the log (a run identical to fresh109's --device cuda one; strace's file was
105 MB in 37 s): re-recorded with strace's lines on stderr. Two invocations writing into the
same OUT folder break each other: the first to end removes OUT/.work, the other's next launch
then fails (`FileNotFoundError ... .work`) - give each invocation its own folder. What the
engines did: faulthandler's `dump_traceback_later` dumps start with `Timeout (0:00:15)!` and,
with exit=True, end the process with status 1 and no other line (vLLM's API server mid-startup,
after `Loading weights took`; SGLang's launcher while serving, followed only by
resource_tracker's leaked-semaphore warning); a dump registered on SIGUSR1 has no header line
and the scheduler serves on. vLLM under `python -m pdb` cannot start its engine core:
multiprocessing's spawn pickles pdb's __main__ (`TypeError: cannot pickle code objects`), then
pdb's post-mortem reads end of file and restarts the module, which stops at its first line (the
truncated shard is never read); SGLang under pdb with stdin at end of file logs only pdb's first
stop and exits 0. PYTHONPROFILEIMPORTTIME adds about 4,800 lines to a launch that fails in 8 s.
`strace -f` with its lines on stderr shows SGLang's failure path as kill() calls (scheduler
SIGQUIT to the launcher, then the launcher's SIGKILLs and `+++ killed by SIGKILL +++`). py-spy
dumps SGLang's processes here (as root, no ptrace restriction); with the detokenizer
stopped, scheduler and launcher both show idle.
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    serve_a_little,
    serve_then_kill_engine_core,
    signal_quietly,
    signal_serving,
    truncated_shard,
    up,
)
from setup_engines import SGLANG  # noqa: E402

ROOT = Path("/tmp/blind121")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
PYSPY = SGLANG.dir / "bin" / "py-spy"
HD16 = Path.home() / ".cache" / "gpu-node-supervisor" / "models" / "llama-hd16-v3"

SITES = {
    "later-repeat": "import faulthandler, sys\n"
                    "# debugging a slow start: dump every thread's stack every 15 s\n"
                    "faulthandler.dump_traceback_later(15, repeat=True, file=sys.stderr)\n",
    "later-exit-20": "import faulthandler, sys\n"
                     "# stall hunt: dump the stacks and exit if still running after 20 s\n"
                     "faulthandler.dump_traceback_later(20, exit=True, file=sys.stderr)\n",
    "later-exit-60": "import faulthandler, sys\n"
                     "# stall hunt: dump the stacks and exit if still running after 60 s\n"
                     "faulthandler.dump_traceback_later(60, exit=True, file=sys.stderr)\n",
    "usr1": "import faulthandler, signal, sys\n"
            "# `kill -USR1 <pid>` prints every thread's stack\n"
            "faulthandler.register(signal.SIGUSR1, file=sys.stderr, all_threads=True)\n",
}
for _name, _text in SITES.items():
    (ROOT / "site" / _name).mkdir(parents=True, exist_ok=True)
    (ROOT / "site" / _name / "sitecustomize.py").write_text(_text)
(ROOT / "tmp").mkdir(parents=True, exist_ok=True)
(ROOT / "strace").mkdir(parents=True, exist_ok=True)


def site(name: str) -> dict[str, str]:
    return {"PYTHONPATH": str(ROOT / "site" / name)}


# python -c FEED_C MODULE ARGS...: `c` (continue) on pdb's stdin, then `python -m pdb -m MODULE`
FEED_C = ("import os,sys; r,w=os.pipe(); os.write(w,b'c\\n'); os.close(w); os.dup2(r,0); "
          "os.execv(sys.executable,[sys.executable,'-m','pdb','-m',*sys.argv[1:]])")
# python -c STRACE ARGS...: the same interpreter under `strace -f -e trace=execve,kill,exit_group`
# (a first take with `-o FILE` left no line of strace's in the log)
STRACE = ("import os,sys; a=['strace','-f','-e','trace=execve,kill,exit_group',"
          "sys.executable,*sys.argv[1:]]; os.execvp('strace',a)")


# --- acts ------------------------------------------------------------------------------------

def up_within(seconds: float) -> Callable:
    """Serve one completion if the server comes up within ``seconds``; the run is cut then."""
    def act(ctx: Ctx) -> None:
        if up(ctx, seconds):
            ctx.complete(2)
            time.sleep(8)
    return act


def sg_serve_until_gone(ctx: Ctx) -> None:
    """SGLang served one completion at a time until its processes end (at most ~100 s)."""
    if ctx.wait_for(SG_READY, 90):
        end = time.monotonic() + 60
        while time.monotonic() < end and ctx.proc is not None and ctx.proc.poll() is None:
            ctx.complete(1, max_tokens=16)
            time.sleep(3)
        linger(ctx, 10)


def sg_serve_then_usr1(ctx: Ctx) -> None:
    if ctx.wait_for(SG_READY, 90):
        signal_serving("sglang::scheduler", signal.SIGUSR1)(ctx)


def pyspy_detok_stopped(ctx: Ctx) -> None:
    """Served two completions; the detokenizer stopped (SIGSTOP), a request sent (it hangs);
    20 s later `py-spy dump` of the scheduler and of the launcher, pasted into the log."""
    if not ctx.wait_for(SG_READY, 90):
        return
    ctx.complete(2, max_tokens=16)
    for p in ctx.children("sglang::detokenizer"):
        signal_quietly(p, signal.SIGSTOP)
    threading.Thread(target=ctx.post, daemon=True,
                     args=("/v1/completions", {"model": ctx.model_name(), "prompt": "stuck?",
                                               "max_tokens": 16}, 60)).start()
    time.sleep(20)
    assert ctx.proc is not None
    targets = [*ctx.children("sglang::scheduler")[-1:], ctx.proc.pid]
    for t in targets:
        pid = t if isinstance(t, int) else t.pid
        out = subprocess.run([str(PYSPY), "dump", "--pid", str(pid)], capture_output=True,
                             text=True, timeout=60)
        with open(ctx.log, "a") as f:
            f.write(f"$ py-spy dump --pid {pid}\n{out.stdout}{out.stderr}\n")
    time.sleep(5)


# --- the table -------------------------------------------------------------------------------

V, S = "vllm", "sglang"
SCENARIOS = [
    # vLLM
    Scenario("v-importtime-batched-tokens", V, "PYTHONPROFILEIMPORTTIME=1 (-X importtime: one "
             "stderr line per module imported); --max-num-batched-tokens 100 with chunked "
             "prefill off, under the --max-model-len 256",
             [*VLLM_BASE, "--max-num-batched-tokens", "100", "--no-enable-chunked-prefill"],
             env={"PYTHONPROFILEIMPORTTIME": "1"}, wait_s=60),
    Scenario("v-dumplater-repeat-serving", V, "a sitecustomize.py on PYTHONPATH arms "
             "faulthandler.dump_traceback_later(15, repeat=True) in every Python process (stack "
             "dumps every 15 s); the server serves three completions", VLLM_BASE,
             env=site("later-repeat"), act=serve_a_little),
    Scenario("v-dumplater-exit-startup", V, "a sitecustomize.py on PYTHONPATH arms "
             "faulthandler.dump_traceback_later(20, exit=True) (left in from a stall hunt): "
             "the API server dumps its stacks and exits 20 s after it started", VLLM_BASE,
             env=site("later-exit-20"), wait_s=60),
    Scenario("v-pdb-continue-truncated", V, "launched under the debugger (python -m pdb -m "
             "vllm.entrypoints.openai.api_server) with `c` piped to its stdin; the model's last "
             "weight shard cut to half its size",
             ["-c", FEED_C, "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
              "127.0.0.1", "--port", "{port}", *VLLM_BASE],
             model=truncated_shard, entry="python", wait_s=90),
    Scenario("v-trace-function", V, "VLLM_TRACE_FUNCTION=1 (every function call of the worker "
             "traced into a file under $TMPDIR/root/vllm/): the run cut after 85 s if not up",
             VLLM_BASE, env={"VLLM_TRACE_FUNCTION": "1", "TMPDIR": str(ROOT / "tmp")},
             act=up_within(85)),
    Scenario("v-devmode-core-killed", V, "PYTHONDEVMODE=1 (-X dev: asyncio debug mode, "
             "ResourceWarnings shown); two completions served, then the EngineCore process "
             "SIGKILLed, one more request", VLLM_BASE, env={"PYTHONDEVMODE": "1"},
             act=serve_then_kill_engine_core),
    Scenario("v-cpp-stacktraces-hd16", V, "TORCH_SHOW_CPP_STACKTRACES=1; the tiny model with "
             "head_dim 16 (llama-hd16-v3), which the CPU attention kernel refuses; completions "
             "once up", VLLM_BASE, model=lambda work: HD16,
             env={"TORCH_SHOW_CPP_STACKTRACES": "1"}, act=up_within(150)),
    # SGLang
    Scenario("s-pdb-eof", S, "launched under the debugger (python -m pdb -m "
             "sglang.launch_server) with stdin at end of file (a service with no terminal)",
             ["-m", "pdb", "-m", "sglang.launch_server", "--model-path", "{model}", "--host",
              "127.0.0.1", "--port", "{port}", *SG], entry="python", wait_s=30),
    Scenario("s-dumplater-exit-serving", S, "a sitecustomize.py on PYTHONPATH arms "
             "faulthandler.dump_traceback_later(60, exit=True) (left in from a stall hunt); "
             "completions one at a time from the ready line on", SG,
             env=site("later-exit-60"), act=sg_serve_until_gone),
    Scenario("s-faulthandler-usr1-serving", S, "a sitecustomize.py on PYTHONPATH registers "
             "faulthandler on SIGUSR1 (all threads); two completions served, then SIGUSR1 to the "
             "scheduler, one more completion", SG, env=site("usr1"), act=sg_serve_then_usr1),
    Scenario("s-pyspy-detok-stopped", S, "two completions served, then the detokenizer stopped "
             "(SIGSTOP) and a completion sent (it hangs); 20 s later `py-spy dump` of the "
             "scheduler and of the launcher pasted into the log", SG, act=pyspy_detok_stopped),
    Scenario("s-strace-device-cuda", S, "launched under `strace -f -e "
             "trace=execve,kill,exit_group` (its lines on stderr, in the log); --device cuda on a "
             "host without a GPU",
             ["-c", STRACE, "-m", "sglang.launch_server", "--model-path", "{model}", "--host",
              "127.0.0.1", "--port", "{port}", "--device", "cuda", "--model-impl",
              "transformers"], entry="python", wait_s=90),
]
