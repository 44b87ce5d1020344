"""The hundred-and-sixty-fourth batch's scenarios (tests/fixtures/corpus/fresh163): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind164.py OUT

Themes: scheduling policies and request priority - what a person meets tuning which request runs
first. vLLM: --scheduling-policy priority under a concurrent burst of mixed priorities and
lengths (with --max-num-seqs 2, so requests queue), some priorities of the wrong type (1.5,
"7", null, a list); --scheduler-cls naming a class that is not a scheduler (vLLM's own priority
request queue) and one naming a module that is not installed. SGLang: --enable-priority-scheduling
with --schedule-policy lpm; --schedule-conservativeness -1; --retraction-policy priority without
priority scheduling; --enable-priority-scheduling --schedule-low-priority-values-first
--default-priority-value 0 --max-running-requests 2 under a burst of mixed priority and length
(wrong types among them); --schedule-policy priority without --enable-priority-scheduling.

Earlier batches already had (not repeated): vLLM --scheduling-policy priority with single requests
of priority 5, -3, "high" and 10**30 (70th), --scheduling-policy lifo (94th), priority without
priority scheduling (128th, dropped: nothing shown); SGLang --schedule-policy nosuch / fifo2
(75th, 81st), --schedule-conservativeness high (83rd), 0.05 and 50 (139th; the value is clamped
at 1.0 after scaling, so a huge one is the same as 50), dfs-weight burst (108th), lpm with the
radix cache disabled (125th), --abort-on-priority-when-disabled (128th).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings. Each
SGLang scenario first sets SIGINT and SIGQUIT back to their default actions (dfl_signals, as the
133rd table does).

Recorded 2026-12-07 in one invocation (raw1: all eight, in the table's order, taking turns with
two other helpers' recorders); each scenario once. About 4 minutes of recording (SGLang
14+13+13+45+32 s, vLLM 38+55+44 s). 8 kept (final files eq101-eq108). Dropped: none. Not
recorded (off ground or a repeat): --schedule-conservativeness huge (clamped to the same ratio as
the 139th's 50), a vLLM policy name that is not one (94th's lifo).

What the engines did. SGLang refuses three of the faults in check_server_args before anything
loads (launch, crashed, within 14 s): `AssertionError: To use priority scheduling,
schedule_policy must be 'fcfs' or 'lof'. 'lpm' is not supported.`, `AssertionError:
schedule_conservativeness must be non-negative`, `ValueError: --retraction-policy priority
requires --enable-priority-scheduling`. --schedule-policy priority, though its argparse offers
it, passes every check and dies only in the scheduler once the KV cache is allocated (`ValueError:
Unknown schedule_policy: policy='priority'`, `Received sigquit from a child process`; crashed in
kv_cache_alloc). Priority scheduling with low values first and two running requests served the
burst two at a time (`#queue-req: 4` draining to 0), answering the non-integer priorities 400
(ready, serving). vLLM resolves --scheduler-cls only after `init engine (profile, create kv cache,
warmup model) took`, so both scheduler-class faults crash in warmup: `TypeError:
PriorityRequestQueue.__init__() got an unexpected keyword argument 'vllm_config'` and
`ModuleNotFoundError: No module named 'acme_sched'`, then `Engine core initialization failed`.
Under --scheduling-policy priority a concurrent burst of mixed priorities was served with three
400s and not a word about the policy (ready, serving; close to the 70th's fresh69/ba110, here
concurrent behind --max-num-seqs 2).
"""

from __future__ import annotations

import json
import signal
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind164")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch: a recorder started
    in the background by a shell inherits them ignored, and the engine would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def post_raw(ctx: Ctx, path: str, body: dict, timeout: float = 120) -> None:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
    except (urllib.error.HTTPError, OSError, TimeoutError):
        pass


# priority, max tokens: mixed priorities and lengths, a few of the wrong type
MIX: list[tuple[object, int]] = [(0, 96), (10, 8), (-5, 64), (3, 16), (1.5, 16), ("7", 24),
                                 (None, 32), ([1], 8), (100, 8), (-100, 48), (2, 120), (1, 4)]


def burst(ctx: Ctx, path: str, bodies: list[dict]) -> None:
    threads = [threading.Thread(target=post_raw, args=(ctx, path, b)) for b in bodies]
    for t in threads:
        t.start()
        time.sleep(0.05)
    for t in threads:
        t.join(180)


def v_priority_burst(ctx: Ctx) -> None:
    if ctx.wait_for(READY_LINE, 240):
        name = ctx.model_name()
        ctx.complete(1)
        burst(ctx, "/v1/completions", [
            {"model": name, "prompt": f"the fox number {i} " * (1 + i % 4), "max_tokens": n,
             "priority": p} for i, (p, n) in enumerate(MIX)])
        time.sleep(12)


def s_priority_burst(ctx: Ctx) -> None:
    if ctx.wait_for(SG_READY, 300):
        bodies = [{"text": f"the fox number {i} " * (1 + i % 4),
                   "sampling_params": {"max_new_tokens": n, "temperature": 0},
                   "priority": p} for i, (p, n) in enumerate(MIX)]
        burst(ctx, "/generate", bodies)
        time.sleep(12)


def s_serve_or_exit(ctx: Ctx) -> None:
    """Ends by itself, or serves: a few requests (one of them with a priority), a pause."""
    if ctx.wait_any([SG_READY], 200) and ctx.proc is not None and ctx.proc.poll() is None:
        for i, p in enumerate((None, 5, -2)):
            body: dict = {"text": f"fox {i}", "sampling_params": {"max_new_tokens": 16}}
            if p is not None:
                body["priority"] = p
            post_raw(ctx, "/generate", body)
        time.sleep(12)
    else:
        linger(ctx, 30)


def v_until_exit(ctx: Ctx) -> None:
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(10)


def s(name: str, what: str, args: list[str], act=s_serve_or_exit) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], before=dfl_signals, act=act)


SCENARIOS = [
    s("s-priority-sched-lpm", "--enable-priority-scheduling with --schedule-policy lpm",
      ["--enable-priority-scheduling", "--schedule-policy", "lpm"]),
    Scenario("v-scheduler-cls-queue", "vllm", "--scheduler-cls naming vLLM's priority request "
             "queue, a class that is not a scheduler",
             [*VLLM_BASE, "--scheduler-cls",
              "vllm.v1.core.sched.request_queue.PriorityRequestQueue"], act=v_until_exit),
    s("s-conservativeness-negative", "--schedule-conservativeness -1",
      ["--schedule-conservativeness", "-1"]),
    Scenario("v-priority-mixed-burst", "vllm", "--scheduling-policy priority --max-num-seqs 2, "
             "then a burst of 12 completions of mixed priority (-100..100, 1.5, \"7\", null, [1]) "
             "and length (4-120 tokens)",
             [*VLLM_BASE, "--scheduling-policy", "priority", "--max-num-seqs", "2"],
             act=v_priority_burst),
    s("s-retraction-priority-no-prio", "--retraction-policy priority without "
      "--enable-priority-scheduling", ["--retraction-policy", "priority"]),
    Scenario("v-scheduler-cls-missing", "vllm", "--scheduler-cls naming a module that is not "
             "installed (acme_sched.PriorityFirstScheduler)",
             [*VLLM_BASE, "--scheduler-cls", "acme_sched.PriorityFirstScheduler"],
             act=v_until_exit),
    s("s-priority-low-first-burst", "--enable-priority-scheduling "
      "--schedule-low-priority-values-first --default-priority-value 0 --max-running-requests "
      "2, then a burst of 12 /generate requests of mixed priority (-100..100, 1.5, \"7\", null, "
      "[1]) and length (4-120 tokens)",
      ["--enable-priority-scheduling", "--schedule-low-priority-values-first",
       "--default-priority-value", "0", "--max-running-requests", "2"], act=s_priority_burst),
    s("s-policy-priority-not-enabled", "--schedule-policy priority without "
      "--enable-priority-scheduling", ["--schedule-policy", "priority"]),
]
