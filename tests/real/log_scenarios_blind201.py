"""The two-hundred-and-first batch's scenarios (tests/fixtures/corpus/fresh200): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind201.py OUT

Themes: fragments, as people paste them into issues. Whole runs with ordinary faults of several
kinds on both engines are recorded here; the final logs are each ONE contiguous run of whole lines
of the recorded log, cut as a person pasting it would cut (from the first error to the end, the
last lines, the traceback alone, a stretch of traffic), their source lines saying which lines.

Earlier batches already had (not repeated as whole logs; the fragment is the point here): an
EngineCore SIGKILLed while serving, a SIGTERM after traffic, client errors while serving, a tensor
missing from a shard, a shard cut in half, a SGLang scheduler killed while serving, SGLang's hard
watchdog with CPU hogs, a tiny --mem-fraction-static.

Recorded 2026-12-07 in one invocation (raw1, all eight scenarios, taking turns with two other
helpers' recorders); each scenario once. About 6 minutes of recording (vLLM 38+54+43+44 s,
SGLang 44+22+22+107 s). 7 kept (final files gc101-gc107), each a fragment: "lines A-B of N"
counts the lines of the log text after the header's blank line. Dropped: v-missing-tensor (a
shard missing layers.1.mlp.down_proj's tensor; vLLM loaded it without a word and served two
completions - the fault never shows), removed from SCENARIOS (it was
`Scenario("v-missing-tensor", "vllm", ..., [*VLLM_BASE], model=missing_tensor, act=until_exit)`).

What the engines did (whole runs; the fragments cut from them are in each file's note). vLLM:
SIGKILL to the EngineCore while serving - `AsyncLLM output_handler failed` / `EngineDeadError`,
the next completion 500, uvicorn shuts down (serving); a SIGTERM after traffic prints the same
`EngineDeadError` traceback during its own shutdown, after `EngineCore: trigger received
signal=SIGTERM` (serving, stopped); client errors while serving are only 400/404 access lines.
SGLang: SIGKILL to the scheduler - `Subprocess scheduler_0 ... crashed with exit code -9`
(serving; the completions were answered before the ready line, which never came); a shard cut
in half - `SafetensorError: Error while deserializing header: incomplete metadata` in the
loader (weight_loading); --mem-fraction-static 0.0001 - `ValueError: Loaded weights leave no GPU
memory for the KV cache` (kv_cache_alloc); --watchdog-timeout 0.05 - `Scheduler watchdog timeout
(self.watchdog_timeout=0.05, self.soft=False)` on the first long batch, the ready line, then
`SIGQUIT received`, more watchdog dumps and a 60 s wait for CUDA coredumps before the tree is
killed (serving).
"""

from __future__ import annotations

import signal
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    serve_bad_requests,
    serve_then_sigterm,
    sg_until_exit,
    signal_serving,
    truncated_shard,
    up,
)

ROOT = Path("/tmp/blind201")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
LONG_PROMPT = "the quick brown fox jumps over the lazy dog " * 160


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch (a recorder started
    in the background by a shell inherits them ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def sg_watchdog_burst(ctx: Ctx) -> None:
    """Once up: two CPU-hog processes, then four long prompts at once; the hogs end after."""
    if not up(ctx, 240):
        return
    ctx.complete(1, max_tokens=8)
    hogs = [subprocess.Popen([sys.executable, "-c", "while True: pass"]) for _ in range(2)]
    try:
        name = ctx.model_name()
        threads = [threading.Thread(target=ctx.post, args=("/v1/completions", {
            "model": name, "prompt": f"{i} {LONG_PROMPT}", "max_tokens": 64}, 90))
            for i in range(4)]
        for t in threads:
            t.start()
        for t in threads:
            t.join(100)
        time.sleep(3)
    finally:
        for h in hogs:
            h.kill()
            h.wait()
    ctx.complete(1, max_tokens=8)
    linger(ctx, 15)


SCENARIOS = [
    Scenario("v-kill-core-serving", "vllm", "served two completions, then SIGKILL to the "
             "EngineCore process; one more request", [*VLLM_BASE], before=dfl_signals,
             act=signal_serving("EngineCore", signal.SIGKILL)),
    Scenario("s-kill-scheduler-serving", "sglang", "served two completions, then SIGKILL to the "
             "scheduler process; one more request", [*SG], before=dfl_signals,
             act=signal_serving("scheduler", signal.SIGKILL)),
    Scenario("s-truncated-shard", "sglang", "the last safetensors shard cut to half its size",
             [*SG], model=truncated_shard, before=dfl_signals, act=sg_until_exit),
    Scenario("v-sigterm-after-traffic", "vllm", "served three completions, then SIGTERM to the "
             "process group (a clean stop)", [*VLLM_BASE], before=dfl_signals,
             act=serve_then_sigterm),
    Scenario("s-mem-fraction-tiny", "sglang", "--mem-fraction-static 0.0001 (no room left for "
             "the KV cache)", [*SG, "--mem-fraction-static", "0.0001"], before=dfl_signals,
             act=sg_until_exit),
    Scenario("v-bad-requests-serving", "vllm", "served, with client errors (a chat request "
             "with no chat template, 5000 max_tokens, an unknown model name)", [*VLLM_BASE],
             before=dfl_signals, act=serve_bad_requests),
    Scenario("s-watchdog-hogs-long-prompts", "sglang", "--watchdog-timeout 0.05; once up, two "
             "CPU-hog processes and four long prompts at once",
             [*SG, "--watchdog-timeout", "0.05"], before=dfl_signals, act=sg_watchdog_burst),
]
