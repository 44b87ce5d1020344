"""The hundred-and-sixth batch's scenarios (tests/fixtures/corpus/fresh105): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind106.py OUT

Themes: runs that stop making progress without dying - stalls a person must tell apart from a
slow load, met at different phases. An engine process stopped (SIGSTOP) at a step not used
before: vLLM's worker as it starts loading the weights, vLLM's API server once the engine core
has sized the KV cache, SGLang's scheduler once its weights are loaded (the KV cache being
allocated), SGLang's launcher (the HTTP server and its warmup thread) once uvicorn is up. A
model file replaced by a named pipe nobody writes to (the read blocks, as on a stalled network
mount): vLLM's generation_config.json and model.safetensors.index.json, SGLang's last
safetensors shard and its generation_config.json. A rendezvous that waits for a peer that
never comes: vLLM with data parallelism 2, one engine local and the other (a second node)
never started; SGLang as node 1 of 2 whose --dist-init-addr is a listener that accepts and
never answers. An engine whose stdout is a small pipe (4 KiB) that its wrapper never reads
(/tmp/blind106/unread.py, below): vLLM logs to stdout, SGLang's uvicorn access lines go there.
A request whose generation will not end soon (max_tokens near the context, ignore_eos), the
server then stopped with SIGTERM while it runs. And the recorder's own wait running out on a
healthy but slow startup (no fault in the engine at all).

vLLM runs with VLLM_BASE's settings (a longer --max-model-len where the scenario says);
SGLang with --device cpu --model-impl transformers, with which it serves here.

Recorded 2026-12-06 in three invocations (about 13 minutes of recording, shared with other
helpers' recorders), each scenario once; 8 kept, by the task's 40-minute limit. Kept:
v-stop-worker-load, v-stop-api-kvcache, v-genconf-fifo, v-dp2-remote-never, v-recorder-wait-out,
s-stop-scheduler-kvcache, s-stop-launcher-warmup, s-recorder-wait-out. Dropped: v-index-fifo
(vLLM served; the pipe was never read, as with generation_config.json - a non-regular file seems
to be skipped). Not recorded (no time): v-endless-gen-sigterm, v-stdout-unread, s-shard-fifo,
s-genconf-fifo, s-node1-silent-master, s-stdout-unread, s-endless-gen-sigterm. What the engines
did: a stopped vLLM worker at `Starting to load model` leaves 60 s of silence with no shared-memory
broadcast warning; vLLM's engine core finishes `init engine ... took` with its API server stopped
(the log then just ends); vLLM with data parallel 2 and one local engine logs `init engine` and
then `Waiting for READY message from DP Coordinator...` forever; SGLang's launcher stopped at
`Uvicorn running on` never sends its warmup request. A healthy SGLang startup took under 35 s
(ready at 34 s); vLLM's took over 25 s.
"""

from __future__ import annotations

import os
import signal
import socket
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
    copy_model,
    linger,
    signal_quietly,
)

ROOT = Path("/tmp/blind106")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
V_READY = "Application startup complete"

# A wrapper that runs the engine with its stdout on a 4 KiB pipe it never reads (stderr stays
# on the log). argv: the engine's argv, PY standing for
# the interpreter the wrapper runs on.
UNREAD = ROOT / "unread.py"
UNREAD.write_text('''"""unread.py - runs a command with stdout on a pipe nobody reads."""
import fcntl, os, subprocess, sys
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)          # F_SETPIPE_SZ: one page
cmd = [sys.executable if a == "PY" else a for a in sys.argv[1:]]
p = subprocess.Popen(cmd, stdout=w)
os.close(w)
sys.exit(p.wait())                  # r stays open, never read
''')


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def body(ctx: Ctx) -> str:
    """The log after its header (the header quotes the scenario's description)."""
    return ctx.text().split("\n\n", 1)[-1]


def wait_body(ctx: Ctx, needles: list[str], timeout: float = 240) -> str | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = body(ctx)
        found = next((n for n in needles if n in text), None)
        if found is not None:
            return found
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return next((n for n in needles if n in body(ctx)), None)
        time.sleep(0.2)
    return None


def stop_when(child: str | None, needles: list[str], after_s: float, delay: float = 0.0,
              sig: int = signal.SIGSTOP) -> Callable[[Ctx], None]:
    """``sig`` to the run's process(es) named ``child`` (None: the launched process itself)
    once one of ``needles`` is in the log; then ``after_s`` s more."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if wait_body(ctx, needles) is None:
            return
        time.sleep(delay)
        targets = [ctx.proc] if child is None else ctx.children(child)
        for p in targets:
            signal_quietly(p, sig)
        linger(ctx, after_s)
    return act


def fifo_model(name: str, file: str, last_shard: bool = False) -> Callable[[Path], Path]:
    """A copy of the tiny model whose ``file`` (or last safetensors shard) is a named pipe."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = sorted(d.glob("model-*.safetensors"))[-1] if last_shard else d / file
        f.unlink()
        os.mkfifo(f)
        return d
    return make


def silent_listener(ctx: Ctx) -> None:
    """A listener on the rendezvous port that accepts and never answers."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", SILENT_PORT))
    s.listen(16)
    ctx.keep.append(s)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            held.append(c)
    threading.Thread(target=accept, daemon=True).start()


def endless_then_term(engine: str) -> Callable[[Ctx], None]:
    """Ready, one short completion, then a request for ~2000 tokens with ignore_eos; while it
    runs (a stats or decode line), SIGTERM to the server's process group."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if wait_body(ctx, [SG_READY if engine == "sglang" else V_READY], 240) is None:
            return
        ctx.complete(1, max_tokens=8)
        if engine == "sglang":
            path, req = "/generate", {"text": "the quick brown fox",
                                      "sampling_params": {"max_new_tokens": 2000,
                                                          "ignore_eos": True}}
        else:
            path, req = "/v1/completions", {"model": ctx.model_name(),
                                            "prompt": "the quick brown fox",
                                            "max_tokens": 2000, "ignore_eos": True}
        threading.Thread(target=ctx.post, args=(path, req, 120), daemon=True).start()
        time.sleep(9)
        os.killpg(ctx.proc.pid, signal.SIGTERM)
        linger(ctx, 40)
    return act


def flood_then_hang(ctx: Ctx) -> None:
    """Ready, then many cheap requests (each one an access line on stdout), a completion, and a
    pause."""
    if wait_body(ctx, [SG_READY], 240) is None:
        return
    import urllib.request
    for _ in range(90):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}/v1/models", timeout=4).read()
        except OSError:
            break
    ctx.post("/v1/completions", {"model": "default", "prompt": "fox", "max_tokens": 8},
             timeout=20)
    linger(ctx, 25)


def stdout_unread_v(ctx: Ctx) -> None:
    """vLLM under unread.py: let it go 70 s (it serves, or stalls), then a request."""
    if wait_body(ctx, [V_READY], 70) is not None:
        ctx.complete(1)
    linger(ctx, 10)


SILENT_PORT = free_port()
DP_RPC_PORT = free_port()


def v(name: str, what: str, args: list[str], **kw: object) -> Scenario:
    return Scenario(name, "vllm", what, args, **kw)   # type: ignore[arg-type]


def s(name: str, what: str, args: list[str], **kw: object) -> Scenario:
    return Scenario(name, "sglang", what, args, **kw)   # type: ignore[arg-type]


def long_len(base: list[str]) -> list[str]:
    out = list(base)
    out[out.index("--max-model-len") + 1] = "2048"
    return out


SCENARIOS = [
    # --- vLLM ----------------------------------------------------------------------------------
    v("v-stop-worker-load", "the worker process SIGSTOPped as it logs that it starts to load the "
      "model; left stopped 60 s, then killed", VLLM_BASE,
      act=stop_when("Worker", ["Starting to load model"], 60)),
    v("v-stop-api-kvcache", "the API server process SIGSTOPped once the engine core logs the KV "
      "cache size it will allocate; left stopped 50 s, then killed", VLLM_BASE,
      act=stop_when(None, ["KV cache size"], 50)),
    v("v-genconf-fifo", "the model's generation_config.json replaced by a named pipe nobody "
      "writes to (a file on a stalled network mount); left 70 s", VLLM_BASE,
      model=fifo_model("genconf-fifo", "generation_config.json"), wait_s=70),
    v("v-index-fifo", "the model's model.safetensors.index.json replaced by a named pipe nobody "
      "writes to (a file on a stalled network mount); left 70 s", VLLM_BASE,
      model=fifo_model("index-fifo", "model.safetensors.index.json"), wait_s=70),
    v("v-dp2-remote-never", "data parallel 2 with one engine on this node "
      "(--data-parallel-size 2 --data-parallel-size-local 1): the second node, which would run "
      "the other engine, never started; left 75 s",
      [*VLLM_BASE, "--data-parallel-size", "2", "--data-parallel-size-local", "1",
       "--data-parallel-address", "127.0.0.1", "--data-parallel-rpc-port", str(DP_RPC_PORT)],
      wait_s=75),
    v("v-endless-gen-sigterm", "--max-model-len 2048; a completion for 2000 tokens with "
      "ignore_eos sent, and 9 s into it (still generating) the server SIGTERMed",
      long_len(VLLM_BASE), act=endless_then_term("vllm")),
    v("v-recorder-wait-out", "no fault in the engine: a healthy startup cut by the recorder's "
      "own wait running out after 25 s (too short a budget for this host)", VLLM_BASE,
      wait_s=25),
    v("v-stdout-unread", "run by a wrapper (unread.py) that gives the server a 4 KiB stdout pipe "
      "and never reads it (stderr still on the log); vLLM logs to stdout",
      [str(UNREAD), "PY", "-m", "vllm.entrypoints.openai.api_server", "--model",
       "{model}", "--host", "127.0.0.1", "--port", "{port}", *VLLM_BASE],
      entry="python", act=stdout_unread_v),
    # --- SGLang --------------------------------------------------------------------------------
    s("s-stop-scheduler-kvcache", "the scheduler process SIGSTOPped as it logs the end of weight "
      "loading (it goes on to allocate the KV cache); left stopped 50 s, then killed", SG,
      act=stop_when("sglang::scheduler", ["Load weight end"], 50)),
    s("s-stop-launcher-warmup", "the launcher process (HTTP server and its warmup thread) "
      "SIGSTOPped as uvicorn says it is running, before the warmup request ends; left stopped "
      "45 s, then killed", SG, act=stop_when(None, ["Uvicorn running on"], 45)),
    s("s-shard-fifo", "the model's last safetensors shard replaced by a named pipe nobody writes "
      "to (a file on a stalled network mount); left 90 s", SG,
      model=fifo_model("shard-fifo", "", last_shard=True), wait_s=90),
    s("s-genconf-fifo", "the model's generation_config.json replaced by a named pipe nobody "
      "writes to (a file on a stalled network mount); left 90 s", SG,
      model=fifo_model("genconf-fifo", "generation_config.json"), wait_s=90),
    s("s-node1-silent-master", "node 1 of 2 (--tp 2 --nnodes 2 --node-rank 1, "
      "--dist-timeout 45) whose --dist-init-addr is a listener that accepts connections and "
      "never answers; left 90 s",
      [*SG, "--tp", "2", "--nnodes", "2", "--node-rank", "1", "--dist-init-addr",
       f"127.0.0.1:{SILENT_PORT}", "--dist-timeout", "45"],
      env={"SGLANG_CPU_OMP_THREADS_BIND": "0|1"}, before=silent_listener, wait_s=90),
    s("s-stdout-unread", "run by a wrapper (unread.py) that gives the server a 4 KiB stdout pipe "
      "and never reads it (stderr still on the log); served, then 90 quick GET /v1/models "
      "(uvicorn's access lines go to stdout) and a completion",
      [str(UNREAD), "PY", "-m", "sglang.launch_server", "--model-path", "{model}",
       "--host", "127.0.0.1", "--port", "{port}", *SG],
      entry="python", act=flood_then_hang),
    s("s-endless-gen-sigterm", "a /generate request for 2000 new tokens with ignore_eos sent, "
      "and 9 s into it (still generating) the server SIGTERMed", SG,
      act=endless_then_term("sglang")),
    s("s-recorder-wait-out", "no fault in the engine: a healthy startup cut by the recorder's "
      "own wait running out after 35 s (too short a budget for this host)", SG, wait_s=35),
]
