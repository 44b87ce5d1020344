"""The hundred-and-twenty-ninth batch's scenarios (tests/fixtures/corpus/fresh128): faults
chosen, recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind129.py OUT

Themes: the engines' own timers set too small, with a load or a stall that makes them run out,
so that the log shows what the engine does when its own timeout fires - kills itself, warns,
drops a request, or nothing. SGLang: the scheduler's hard watchdog (--watchdog-timeout 0.05 s,
then long prompts while two CPU-hog processes share the two cores), its soft watchdog
(--soft-watchdog-timeout 1, which also watches the startup), the warm-up request's timeout
(SGLANG_WARMUP_TIMEOUT=0.2), the per-request running timeout (SGLANG_REQ_RUNNING_TIMEOUT=2 with
generations of 1,500 tokens), and the /health_generate probe's timeout set to zero
(SGLANG_HEALTH_CHECK_TIMEOUT=0, meant as "no limit"). vLLM: the executor's per-step RPC timeout
(VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=3) met by an 8 s stall of the worker (SIGSTOP, then SIGCONT:
a host pausing the process) with a request in flight; the chat template's render timeout
(VLLM_CHAT_TEMPLATE_RENDER_TIMEOUT=0.0001) under chat requests; the drain on SIGTERM
(--shutdown-timeout 1) with long streams open; the worker shutdown grace period
(VLLM_WORKER_SHUTDOWN_TIMEOUT_SECONDS=0) on a SIGTERM after serving.

vLLM runs with VLLM_BASE's settings (a later --max-model-len wins where a scenario gives one);
SGLang with --device cpu --model-impl transformers, with which it serves here. The chat
template is written to /tmp/blind129/chat.jinja (the tiny model has none). CPU hogs are plain
`while True: pass` processes this table starts and stops by pid.

Recorded 2026-12-06 in three invocations, taking turns with three other helpers' recorders
(about 8 minutes of recording: 114 s, 207 s + a take stopped after 10 s, 157 s), each
scenario once except as said here. Kept: v-execute-timeout-stall (second take), v-chat-render-
timeout, v-shutdown-timeout-1-streams, s-soft-watchdog-1, s-watchdog-0.05-long-prompts,
s-req-running-timeout-2, s-health-check-timeout-0. Dropped: the first take of
v-execute-timeout-stall (a 200-token request had finished before the worker was stopped: no
step in flight, nothing fired; re-recorded with 1,800 tokens and --max-model-len 2048); the first
watchdog take, at --watchdog-timeout 0.2 with 940-token prompts (every batch finished within
0.2 s and the watchdog never spoke: re-recorded at 0.05 with 1,900-token prompts);
s-warmup-timeout-0.2 (the warm-up request returned in time and the server served: the fault did
not show); v-worker-shutdown-timeout-0 (stopped by hand 10 s in, to stay within the recording
budget). What the engines did: SGLang's soft watchdogs (TokenizerManager, Scheduler) watch the
startup as well as batches, so a 1 s soft timeout prints `... watchdog timeout (self.watchdog_
timeout=1.0, self.soft=True)` with a failed py-spy dump (py-spy is not installed) every second
of the startup and then falls silent while serving; the hard watchdog's timeout is followed 5 s
later by `SIGQUIT received ... It usually means one child failed.` and a 60 s wait for CUDA
coredumps before exiting; SGLANG_REQ_RUNNING_TIMEOUT drops a request with a bare 503 and no log
line. vLLM's VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS turns an 8 s worker pause into `TimeoutError:
RPC call to sample_tokens timed out.` and the engine's death; a chat render timeout fails the
request (500, uvicorn's traceback ending in `Chat template rendering timed out after 0.0001s`)
and the server lives on; --shutdown-timeout 1 force-kills the engine core after the drain window
but leaves uvicorn `Waiting for connections to close` on the streams for good.
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
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    signal_quietly,
    up,
)

ROOT = Path("/tmp/blind129")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
CHAT_TEMPLATE = ROOT / "chat.jinja"
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "assistant:")
CHAT = ["--chat-template", str(CHAT_TEMPLATE)]
LONG_V = [*VLLM_BASE, "--max-model-len", "2048"]
# 941 tokens in SGLang's log
LONG_PROMPT = " ".join(f"fox{i % 97} jumps over the lazy dog" for i in range(120))
# about 1,890 tokens
LONGER_PROMPT = " ".join(f"fox{i % 97} jumps over the lazy dog" for i in range(240))


def write_template(ctx: Ctx) -> None:
    CHAT_TEMPLATE.parent.mkdir(parents=True, exist_ok=True)
    CHAT_TEMPLATE.write_text(CHAT_JINJA)


def request(ctx: Ctx, path: str, body: dict | None = None, timeout: float = 120) -> int:
    """A request whose whole body is read (a stream to its end); the status, 0 if none."""
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
    threads = [threading.Thread(target=request, args=(ctx, p, b, timeout), daemon=True)
               for p, b in calls]
    for t in threads:
        t.start()
    return threads


def hogs(n: int) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", "while True: pass"],
                             stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
            for _ in range(n)]


def stop_hogs(procs: list[subprocess.Popen]) -> None:
    for p in procs:
        p.kill()
        p.wait(10)


def sg_up(ctx: Ctx, timeout: float = 200) -> bool:
    return ctx.wait_for(SG_READY, timeout)


# --- SGLang acts -----------------------------------------------------------------------------

def sg_long_prompts_under_hogs(ctx: Ctx) -> None:
    """Once ready (if the watchdog lets it): two CPU hogs, then four long prompts at once."""
    if not sg_up(ctx):
        return
    request(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
    hs = hogs(2)
    try:
        body = {"text": LONGER_PROMPT, "sampling_params": {"max_new_tokens": 64}}
        ts = in_threads(ctx, [("/generate", body)] * 4, timeout=60)
        for t in ts:
            t.join(60)
        linger(ctx, 12)
    finally:
        stop_hogs(hs)


def sg_serve_burst(ctx: Ctx) -> None:
    if not sg_up(ctx):
        return
    body = {"text": LONG_PROMPT, "sampling_params": {"max_new_tokens": 32}}
    ts = in_threads(ctx, [("/generate", body)] * 3 + [("/v1/completions", {
        "model": ctx.model_name(), "prompt": "fox", "max_tokens": 16})], timeout=60)
    for t in ts:
        t.join(60)
    linger(ctx, 10)


def sg_long_generations(ctx: Ctx) -> None:
    if not sg_up(ctx):
        return
    request(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
    long = {"text": "fox", "sampling_params": {"max_new_tokens": 1500, "ignore_eos": True}}
    ts = in_threads(ctx, [("/generate", long)] * 2, timeout=90)
    for t in ts:
        t.join(90)
    request(ctx, "/generate", {"text": "dog", "sampling_params": {"max_new_tokens": 8}})
    linger(ctx, 8)


def sg_health_probes(ctx: Ctx) -> None:
    if not sg_up(ctx):
        return
    for _ in range(3):
        request(ctx, "/health_generate", timeout=30)
        request(ctx, "/health", timeout=10)
        time.sleep(1)
    request(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
    request(ctx, "/health_generate", timeout=30)
    linger(ctx, 6)


# --- vLLM acts -------------------------------------------------------------------------------

def v_stall_worker(ctx: Ctx) -> None:
    """Served two completions; then the worker stopped 8 s with a request in flight."""
    if not up(ctx, 240):
        return
    ctx.complete(2)
    name = ctx.model_name()
    ts = in_threads(ctx, [("/v1/completions", {"model": name, "prompt": "fox",
                                                "max_tokens": 1800, "ignore_eos": True})],
                    timeout=60)
    time.sleep(1)
    workers = ctx.children("Worker")
    for p in workers:
        signal_quietly(p, signal.SIGSTOP)
    time.sleep(8)
    for p in workers:
        signal_quietly(p, signal.SIGCONT)
    for t in ts:
        t.join(30)
    ctx.complete(1)
    linger(ctx, 12)


def v_chat_requests(ctx: Ctx) -> None:
    if not up(ctx, 240):
        return
    name = ctx.model_name()
    ctx.complete(1)
    for i in range(3):
        request(ctx, "/v1/chat/completions", {"model": name, "max_tokens": 16, "messages": [
            {"role": "user", "content": f"tell me about the fox {i}"}]}, timeout=60)
    ctx.complete(1)
    linger(ctx, 12)


def v_sigterm_with_streams(ctx: Ctx) -> None:
    if not up(ctx, 240):
        return
    name = ctx.model_name()
    ctx.complete(1)
    body = {"model": name, "prompt": "fox", "max_tokens": 1800, "ignore_eos": True,
            "stream": True}
    in_threads(ctx, [("/v1/completions", body)] * 4, timeout=90)
    time.sleep(3)
    assert ctx.proc is not None
    os.kill(ctx.proc.pid, signal.SIGTERM)
    try:
        ctx.proc.wait(60)
    except subprocess.TimeoutExpired:
        pass


def v_serve_then_sigterm(ctx: Ctx) -> None:
    if not up(ctx, 240):
        return
    ctx.complete(2)
    time.sleep(2)
    assert ctx.proc is not None
    os.kill(ctx.proc.pid, signal.SIGTERM)
    try:
        ctx.proc.wait(60)
    except subprocess.TimeoutExpired:
        pass


def sg_until_exit_or_ready(ctx: Ctx) -> None:
    if sg_up(ctx, 150):
        request(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
        linger(ctx, 8)


SCENARIOS = [
    # vLLM
    Scenario("v-execute-timeout-stall", "vllm", "VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS=3 (the "
             "executor's per-step RPC timeout cut from 300 s); served two completions, then the "
             "worker stopped (SIGSTOP) 8 s with an 1800-token request in flight and continued",
             LONG_V, env={"VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS": "3"}, act=v_stall_worker),
    Scenario("v-chat-render-timeout", "vllm", "VLLM_CHAT_TEMPLATE_RENDER_TIMEOUT=0.0001 (the "
             "chat template's render timeout far too small); a completion, three chat "
             "requests, a completion", [*VLLM_BASE, *CHAT],
             env={"VLLM_CHAT_TEMPLATE_RENDER_TIMEOUT": "0.0001"}, before=write_template,
             act=v_chat_requests),
    Scenario("v-shutdown-timeout-1-streams", "vllm", "--shutdown-timeout 1 (a drain window too "
             "short for the streams open); four streamed 1800-token completions, SIGTERM to "
             "the API server 3 s in", [*LONG_V, "--shutdown-timeout", "1"],
             act=v_sigterm_with_streams),
    Scenario("v-worker-shutdown-timeout-0", "vllm", "VLLM_WORKER_SHUTDOWN_TIMEOUT_SECONDS=0 (no "
             "grace period for the workers to exit); served two completions, then SIGTERM to "
             "the API server", VLLM_BASE, env={"VLLM_WORKER_SHUTDOWN_TIMEOUT_SECONDS": "0"},
             act=v_serve_then_sigterm),
    # SGLang
    Scenario("s-watchdog-0.05-long-prompts", "sglang", "--watchdog-timeout 0.05 (the "
             "scheduler's hard watchdog far too small); once ready, two CPU-hog processes and "
             "four 1,900-token prompts at once", [*SG, "--watchdog-timeout", "0.05"],
             act=sg_long_prompts_under_hogs),
    Scenario("s-soft-watchdog-1", "sglang", "--soft-watchdog-timeout 1 (the soft watchdog "
             "meant to dump stalled batches, set to one second); a burst of three long prompts "
             "and a completion", [*SG, "--soft-watchdog-timeout", "1"], act=sg_serve_burst),
    Scenario("s-warmup-timeout-0.2", "sglang", "SGLANG_WARMUP_TIMEOUT=0.2 (the warm-up "
             "request's timeout far too small for a CPU host)", SG,
             env={"SGLANG_WARMUP_TIMEOUT": "0.2"}, act=sg_until_exit_or_ready),
    Scenario("s-req-running-timeout-2", "sglang", "SGLANG_REQ_RUNNING_TIMEOUT=2 (a per-request "
             "running limit of 2 s); two 1,500-token generations at once, then a short one",
             SG, env={"SGLANG_REQ_RUNNING_TIMEOUT": "2"}, act=sg_long_generations),
    Scenario("s-health-check-timeout-0", "sglang", "SGLANG_HEALTH_CHECK_TIMEOUT=0 (meant as no "
             "limit); /health_generate and /health probes, a request, another probe", SG,
             env={"SGLANG_HEALTH_CHECK_TIMEOUT": "0"}, act=sg_health_probes),
]
