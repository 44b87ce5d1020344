"""The two-hundred-and-third batch's scenarios (tests/fixtures/corpus/fresh202): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind203.py OUT

Themes: late faults after long serving - a server that has answered hundreds of requests, then
fails. Every scenario launches a server that serves here, sends a steady mixed load for two
minutes (three client threads: completions and chat, some streamed, 3- to 90-word prompts, 4 to
48 new tokens; thousands of access lines and each engine's periodic throughput/batch lines),
induces ONE fault while the load still runs, then sends three more requests to show the state.
vLLM: the EngineCore SIGKILLed; the worker SIGSTOPped 30 s, longer than
VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS (set to 10 s), then continued. SGLang: the scheduler
SIGKILLed; the scheduler SIGSTOPped 45 s past the HTTP server's health-check timer
(SGLANG_HEALTH_CHECK_TIMEOUT=10, /health polled), then continued; the detokenizer SIGKILLed.

Earlier batches already had (not repeated as such): the same signals soon after startup, after
two or three requests (the 99th, 102nd, 113th, 133rd batches; the 129th's 8 s worker stall past a
3 s VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS), a memory cgroup lowered before any request (113th) and
one lowered after moving a server into it (99th, which cgroup v1 left without effect). Here each
fault lands after a long serving history and with requests in flight; the 129th's stall is
repeated because the engine's response differs (the RPC that times out is execute_model, not
sample_tokens, and over a hundred requests sent during the stall are answered 500).

Each scenario runs entry="python" on WRAP (`-c`): it moves its own pid into the memory cgroup
named in B203_CG where given (so every process of the run is charged there from its start), then
execs the engine's interpreter on the engine's usual module (no scenario kept uses the cgroup,
so WRAP only execs). vLLM with VLLM_BASE's settings; SGLang with --device cpu --model-impl
transformers. Both get --chat-template /tmp/blind203/chat.jinja (the tiny model's tokenizer has
none), written when this table loads.

Recorded 2026-12-07 in two invocations taking turns with two other helpers' recorders (raw1:
v-load-kill-enginecore, s-load-kill-scheduler, v-load-stop-worker-exec-timeout,
s-load-stop-scheduler-health, then stopped by hand while it waited for the lock, to finish within
the time given; raw2: s-load-kill-detokenizer); each scenario once. About 17 minutes of recording
(vLLM 174 + 199 s, SGLang 184 + 237 + 231 s). 5 kept (final files ge101-ge105). Dropped, never
recorded (no time left, each scenario takes 3-4 minutes with the two-minute load), and removed
from the table: v-load-kill-api-server (the API server's main pid SIGKILLed after the load),
v-load-memcg-tightened and s-load-memcg-tightened (the whole run in a memory cgroup from launch,
its limit cut after the load to what the run holds plus 48 MiB, then four ~1 MB prompts). So
vLLM has two scenarios here, SGLang three.

What the engines did. vLLM: the EngineCore SIGKILLed mid-load ends the server in serving with no
word of the core's own - `[shutdown] Process manager: send sigterm to process EngineCore`,
`MPClient: engine core exited unexpectedly`, `AsyncLLM output_handler failed` ...
`EngineDeadError`, 19 requests answered 500, uvicorn shuts down and the process exits 0. The
worker stopped 30 s past a 10 s VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS: ten seconds later the core
dumps its input and scheduler output and dies with `TimeoutError: RPC call to execute_model timed
out.`; 116 requests answered 500, the worker force-killed. SGLang: the scheduler or the
detokenizer SIGKILLed mid-load - the launcher's `Subprocess scheduler_0 (pid=...) crashed with
exit code -9` (or `Subprocess detokenizer ...`), SIGQUIT, crash diagnostics, `kill_process_tree`;
for the detokenizer it first tries py-spy on the scheduler and waits 60 s for CUDA coredumps. The
scheduler stopped 45 s: four `Health check failed. Server couldn't get a response from
detokenizer for last 10 seconds` with /health 503, and nothing else; once continued it served
on, so that log is ready in serving. In vLLM about a fifth of the load's requests were answered
400 (longer prompts with their max_tokens past --max-model-len 256; the log gives no reason);
SGLang (context 2048) answered every one 200.
"""

from __future__ import annotations

import json
import random
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger, signal_quietly  # noqa: E402

ROOT = Path("/tmp/blind203")
CHAT = ROOT / "chat.jinja"
SG_READY = "The server is fired up and ready to roll!"
LOAD_S = 120

WRAP = ("import os,sys; c=os.environ.get('B203_CG'); c and open(c+'/cgroup.procs','w')"
        ".write(str(os.getpid())); os.execv(sys.executable,[sys.executable]+sys.argv[1:])")
V_HEAD = ["-c", WRAP, "-m", "vllm.entrypoints.openai.api_server", "--model", "{model}",
          "--host", "127.0.0.1", "--port", "{port}", *VLLM_BASE, "--chat-template", str(CHAT)]
S_HEAD = ["-c", WRAP, "-m", "sglang.launch_server", "--model-path", "{model}", "--host",
          "127.0.0.1", "--port", "{port}", "--device", "cpu", "--model-impl", "transformers",
          "--chat-template", str(CHAT)]


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    CHAT.write_text("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                    "{% if add_generation_prompt %}assistant:{% endif %}")


_setup()

WORDS = ("the quick brown fox jumps over the lazy dog while a small model answers every "
         "question it is given about weather rivers engines and old songs").split()


# --- the load ----------------------------------------------------------------------------------

def send(ctx: Ctx, path: str, body: dict, timeout: float = 60) -> int:
    """POST ``body``; a streamed body is read to its end. The status (0: no answer)."""
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError, ValueError):
        return 0


def get(ctx: Ctx, path: str, timeout: float = 30) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}{path}", timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError, ValueError):
        return 0


def one_request(ctx: Ctx, rnd: random.Random, name: str, timeout: float = 60) -> int:
    n = rnd.choice((3, 6, 12, 40, 90))
    text = " ".join(rnd.choice(WORDS) for _ in range(n))
    stream = rnd.random() < 0.35
    max_tokens = rnd.choice((4, 8, 16, 32, 48))
    if rnd.random() < 0.5:
        body = {"model": name, "prompt": text, "max_tokens": max_tokens, "stream": stream,
                "temperature": 0.7}
        return send(ctx, "/v1/completions", body, timeout)
    body = {"model": name, "messages": [{"role": "user", "content": text}],
            "max_tokens": max_tokens, "stream": stream, "temperature": 0.7}
    return send(ctx, "/v1/chat/completions", body, timeout)


class Load:
    """Three client threads sending mixed requests until stopped."""

    def __init__(self, ctx: Ctx, clients: int = 3) -> None:
        self.ctx = ctx
        self.name = ctx.model_name()
        self.stop = threading.Event()
        self.threads = [threading.Thread(target=self.run, args=(i,), daemon=True)
                        for i in range(clients)]
        for t in self.threads:
            t.start()

    def run(self, i: int) -> None:
        rnd = random.Random(203 + i)
        while not self.stop.is_set():
            if one_request(self.ctx, rnd, self.name, timeout=45) == 0:
                time.sleep(1.0)

    def end(self, wait: float = 50) -> None:
        self.stop.set()
        for t in self.threads:
            t.join(wait)


def after(ctx: Ctx, n: int = 3, timeout: float = 30) -> None:
    """A few more requests to show the state, one at a time."""
    rnd = random.Random(7)
    name = ctx.model_name()
    for _ in range(n):
        one_request(ctx, rnd, name, timeout)
        time.sleep(1)


def ready(engine: str, ctx: Ctx) -> bool:
    line = READY_LINE if engine == "vllm" else SG_READY
    return ctx.wait_any([line], 300) == line and ctx.proc is not None and ctx.proc.poll() is None


def under_load(engine: str, fault: Callable[[Ctx, Load], None], tail_s: float = 15) -> Callable:
    """Up; the mixed load for LOAD_S s; the fault while it runs; the load stopped; a few more
    requests; a pause."""
    def act(ctx: Ctx) -> None:
        if not ready(engine, ctx):
            linger(ctx, 5)
            return
        load = Load(ctx)
        time.sleep(LOAD_S)
        fault(ctx, load)
        load.end()
        after(ctx)
        linger(ctx, tail_s)
    return act


# --- the faults --------------------------------------------------------------------------------

def kill_child(needle: str, sig: int = signal.SIGKILL) -> Callable[[Ctx, Load], None]:
    def fault(ctx: Ctx, load: Load) -> None:
        for p in ctx.children(needle)[-1:]:
            signal_quietly(p, sig)
        time.sleep(10)
    return fault


def stop_for(needle: str, seconds: float, poll_health: bool = False) -> Callable[[Ctx, Load],
                                                                                   None]:
    def fault(ctx: Ctx, load: Load) -> None:
        procs = ctx.children(needle)[-1:]
        for p in procs:
            signal_quietly(p, signal.SIGSTOP)
        end = time.monotonic() + seconds
        while time.monotonic() < end:
            if poll_health:
                get(ctx, "/health", timeout=15)
            time.sleep(2)
        for p in procs:
            signal_quietly(p, signal.SIGCONT)
        time.sleep(5)
    return fault


def v(name: str, what: str, fault: Callable[[Ctx, Load], None], env: dict | None = None,
      before: Callable[[Ctx], None] | None = None) -> Scenario:
    return Scenario(name, "vllm", what, list(V_HEAD), env=env or {}, before=before,
                    act=under_load("vllm", fault), entry="python")


def s(name: str, what: str, fault: Callable[[Ctx, Load], None], env: dict | None = None,
      before: Callable[[Ctx], None] | None = None) -> Scenario:
    return Scenario(name, "sglang", what, list(S_HEAD), env=env or {}, before=before,
                    act=under_load("sglang", fault), entry="python")


LOAD = ("served a steady mixed load for 120 s (three clients: completions and chat, some "
        "streamed, 3- to 90-word prompts, 4-48 new tokens)")

SCENARIOS = [
    v("v-load-kill-enginecore", f"{LOAD}; then the EngineCore process SIGKILLed with requests "
      "in flight; three more requests", kill_child("EngineCore")),
    s("s-load-kill-scheduler", f"{LOAD}; then the scheduler process SIGKILLed with requests in "
      "flight; three more requests", kill_child("scheduler")),
    v("v-load-stop-worker-exec-timeout", "VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=10; "
      f"{LOAD}; then the worker process (or EngineCore) SIGSTOPped 30 s with requests in "
      "flight, then continued; three more requests",
      stop_for("Worker", 30), env={"VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS": "10"}),
    s("s-load-stop-scheduler-health", "SGLANG_HEALTH_CHECK_TIMEOUT=10; "
      f"{LOAD}; then the scheduler SIGSTOPped 45 s with requests in flight while /health is "
      "polled, then continued; three more requests", stop_for("scheduler", 45, True),
      env={"SGLANG_HEALTH_CHECK_TIMEOUT": "10"}),
    s("s-load-kill-detokenizer", f"{LOAD}; then the detokenizer process SIGKILLed with "
      "requests in flight; three more requests", kill_child("detokenizer")),
]
