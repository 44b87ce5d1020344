"""The hundred-and-sixty-third batch's scenarios (tests/fixtures/corpus/fresh162): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind163.py OUT

Themes: the engines embedded in a program that already has threads, an event loop or state of
its own - vLLM's `LLM` / `AsyncLLM` and `sglang.Engine` called from a service, a notebook-like
script or a test harness. vLLM: AsyncLLM driven by two successive asyncio.run calls (a harness
that runs each test in a fresh loop), the script forking after LLM exists with the child
generating, a second LLM built in the same process while the first still holds its engine.
SGLang: sglang.Engine built inside a worker thread, Engine.generate called concurrently from a
thread pool, the script forking after the Engine exists with the child generating.

Earlier batches already had (not repeated): SGLang's synchronous Engine.generate inside a
running loop (`asyncio.run`) and the Engine used after engine.shutdown() (127th); a vLLM script
without the `__main__` guard under spawn (127th); scripts ending without del/shutdown, an Engine
made at import time without the guard (96th).

Each scenario runs entry="python" on a script written under /tmp/blind163/scripts when this
table is loaded. vLLM's LLM/AsyncLLM are built with VLLM_BASE's settings (max_model_len 256,
bfloat16, gpu_memory_utilization 0.25); SGLang's Engine with device='cpu',
model_impl='transformers'. The scripts print `[script] ...` markers (flushed) so the log shows
where the program was.

Recorded 2026-12-07 in 1 invocation (raw1: the four vLLM scenarios, then the four SGLang ones,
as first written), taking turns with two other helpers' recorders; each scenario once. About 7.5
minutes of recording (450 s: vLLM 51+38+84+68 s, SGLang 39+34+36+80 s). 6 kept (final files
ep101-ep106). Dropped, and removed from the table (script and entry): v-llm-built-in-thread (LLM
built inside a threading.Thread, then generate from the main thread: vLLM came up and generated
exactly as in a plain run, not a word about the thread - the fault never shows in the engine's
output) and s-engine-async-generate-new-loop (Engine.async_generate awaited under asyncio.run on
an Engine built before any loop ran: it generated and exited 0, the log the same as a plain
offline Engine run's).

What the engines did. vLLM's AsyncLLM used from a second asyncio.run after the first loop closed
fails the request at once in `AsyncLLM.add_request` with `EngineDeadError: EngineCore encountered
an issue. See stack trace (above) for the root cause.` - no trace above, the engine core alive
until the process manager shuts it down - and at exit `Exception ignored in: AsyncLLM.__del__ ...
TypeError: 'NoneType' object is not callable` (crashed, serving). A forked child calling
llm.generate / engine.generate with the inherited engine stalls silently in both engines (vLLM's
progress bar stays at `Processed prompts: 0%`; SGLang prints nothing) while the parent goes on
generating: ready in serving, the stall only in the script's lines. vLLM builds a second LLM in
the same process without a word - a second engine core with its own 5.19 GiB KV reservation
(`Available RAM` 21.77 then 15.77 GiB) - and both answer (ready, serving). SGLang's Engine built
in a worker thread comes up, and as the thread ends its subprocesses die: `Subprocess detokenizer
(pid=...) crashed with exit code -9. Triggering SIGQUIT for cleanup...`, `SIGQUIT received ...
It usually means one child failed.`, `No live scheduler processes found` (crashed; labelled
weight_loading, the engine's last progress line, and unknown with host_oom_killed in also: a -9
of the detokenizer, not the scheduler, with memory free). SGLang's synchronous Engine.generate
from four threads at once: the first request generates, the second dies in uvloop with
`RuntimeError: this event loop is already running.` (crashed, serving; the 127th batch's
asyncio.run case gives asyncio's own wording of the same error).
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import Scenario  # noqa: E402

ROOT = Path("/tmp/blind163")
SCRIPTS = ROOT / "scripts"

V_HEAD = """import os
import sys
import time
from vllm import LLM, SamplingParams

MODEL = sys.argv[1]
KW = dict(max_model_len=256, dtype='bfloat16', gpu_memory_utilization=0.25)


def say(msg):
    print('[script] ' + msg, flush=True)
"""

S_HEAD = """import os
import sys
import time
import sglang as sgl

MODEL = sys.argv[1]


def say(msg):
    print('[script] ' + msg, flush=True)


def make_engine():
    return sgl.Engine(model_path=MODEL, device='cpu', model_impl='transformers')
"""

FORK_WAIT = """
def fork_and_generate(gen):
    pid = os.fork()
    if pid == 0:
        say(f'child {os.getpid()}: generating with the inherited engine')
        try:
            say('child got ' + repr(gen(['child prompt'])))
        except BaseException as e:
            say(f'child failed: {type(e).__name__}: {e}')
            raise
        finally:
            sys.stdout.flush()
        os._exit(0)
    say(f'parent: forked child {pid}; waiting for it (45 s)')
    end = time.time() + 45
    while time.time() < end:
        done, status = os.waitpid(pid, os.WNOHANG)
        if done:
            say(f'parent: child exited, status {status}')
            break
        time.sleep(0.5)
    else:
        say('parent: child still running after 45 s; killing it')
        os.kill(pid, 9)
        os.waitpid(pid, 0)
    say('parent: generating again')
    say('parent got ' + repr(gen(['parent prompt'])))
"""

SCRIPT_BODIES = {
    # --- vLLM --------------------------------------------------------------------------------
    "v-asyncllm-two-asyncio-runs": V_HEAD + """
import asyncio
from vllm.engine.arg_utils import AsyncEngineArgs
from vllm.v1.engine.async_llm import AsyncLLM


async def ask(engine, rid, prompt):
    final = None
    async for out in engine.generate(prompt, SamplingParams(max_tokens=8), request_id=rid):
        final = out
    return final.outputs[0].text


if __name__ == '__main__':
    engine = AsyncLLM.from_engine_args(AsyncEngineArgs(model=MODEL, **KW))
    say('AsyncLLM built; first test: asyncio.run')
    say('first got ' + repr(asyncio.run(ask(engine, 'r1', 'the quick brown fox'))))
    say('second test: a fresh asyncio.run (the first loop is closed)')
    say('second got ' + repr(asyncio.run(asyncio.wait_for(ask(engine, 'r2', 'hello'), 60))))
    engine.shutdown()
    say('done')
""",
    "v-llm-fork-child-generates": V_HEAD + FORK_WAIT + """

if __name__ == '__main__':
    llm = LLM(model=MODEL, **KW)
    sp = SamplingParams(max_tokens=8)

    def gen(prompts):
        return [o.outputs[0].text for o in llm.generate(prompts, sp)]

    say('first got ' + repr(gen(['the quick brown fox'])))
    fork_and_generate(gen)
    say('done')
""",
    "v-llm-second-engine": V_HEAD + """

if __name__ == '__main__':
    sp = SamplingParams(max_tokens=8)
    first = LLM(model=MODEL, **KW)
    say('first got ' + repr(first.generate(['the quick brown fox'], sp)[0].outputs[0].text))
    say('building a second LLM without shutting the first down')
    second = LLM(model=MODEL, **KW)
    say('second got ' + repr(second.generate(['hello'], sp)[0].outputs[0].text))
    say('first again ' + repr(first.generate(['again'], sp)[0].outputs[0].text))
    say('done')
""",
    # --- SGLang ------------------------------------------------------------------------------
    "s-engine-built-in-thread": S_HEAD + """
import threading

box = {}


def build():
    say('worker thread: building sglang.Engine')
    box['engine'] = make_engine()
    say('worker thread: Engine built')


if __name__ == '__main__':
    t = threading.Thread(target=build, name='model-loader')
    t.start()
    t.join()
    engine = box.get('engine')
    if engine is None:
        say('no Engine was built in the thread')
        sys.exit(1)
    outs = engine.generate(['the quick brown fox', 'hello'], {'max_new_tokens': 8})
    for o in outs:
        say(repr(o['text']))
    engine.shutdown()
    say('done')
""",
    "s-engine-generate-threadpool": S_HEAD + """
from concurrent.futures import ThreadPoolExecutor


if __name__ == '__main__':
    engine = make_engine()
    say('Engine built; 4 request threads call engine.generate at once')

    def handle(i):
        out = engine.generate(f'request {i}: once upon a time', {'max_new_tokens': 48})
        return out['text']

    with ThreadPoolExecutor(max_workers=4) as pool:
        futs = [pool.submit(handle, i) for i in range(4)]
        for i, f in enumerate(futs):
            try:
                say(f'request {i} got ' + repr(f.result(timeout=90)))
            except Exception as e:
                say(f'request {i} failed: {type(e).__name__}: {e}')
                raise
    engine.shutdown()
    say('done')
""",
    "s-engine-fork-child-generates": S_HEAD + FORK_WAIT + """

if __name__ == '__main__':
    engine = make_engine()

    def gen(prompts):
        return [o['text'] for o in engine.generate(prompts, {'max_new_tokens': 8})]

    say('first got ' + repr(gen(['the quick brown fox'])))
    fork_and_generate(gen)
    engine.shutdown()
    say('done')
""",
}


def _write() -> dict[str, Path]:
    SCRIPTS.mkdir(parents=True, exist_ok=True)
    paths = {}
    for name, code in SCRIPT_BODIES.items():
        p = SCRIPTS / f"{name}.py"
        p.write_text(code)
        paths[name] = p
    return paths


PATHS = _write()


def script(name: str, engine: str, what: str, wait_s: float = 150) -> Scenario:
    return Scenario(name, engine, what, [str(PATHS[name]), "{model}"], entry="python",
                    wait_s=wait_s)


SCENARIOS = [
    script("v-asyncllm-two-asyncio-runs", "vllm", "a test harness driving one AsyncLLM from two "
           "successive asyncio.run calls (each test in a fresh loop; the first loop closed)", 150),
    script("v-llm-fork-child-generates", "vllm", "a script that forks (os.fork) after building "
           "vllm.LLM and generating once; the child calls llm.generate with the inherited "
           "engine, the parent waits 45 s for it, then generates again", 150),
    script("v-llm-second-engine", "vllm", "a script building a second vllm.LLM in the same process "
           "while the first is still alive (no shutdown), then generating with both", 150),
    script("s-engine-built-in-thread", "sglang", "a script building sglang.Engine inside a worker "
           "thread (threading.Thread, as a service loading its model in the background)", 120),
    script("s-engine-generate-threadpool", "sglang", "a service calling the synchronous "
           "Engine.generate from four ThreadPoolExecutor workers at once", 150),
    script("s-engine-fork-child-generates", "sglang", "a script that forks (os.fork) after "
           "building sglang.Engine and generating once; the child calls engine.generate with "
           "the inherited Engine, the parent waits 45 s for it, then generates again", 160),
]
