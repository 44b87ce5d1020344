"""The two-hundred-and-fifty-sixth batch's scenarios (tests/fixtures/corpus/fresh255): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind256.py OUT

Themes: the scheduler's own limits as a person tunes throughput - admission and batch limits
set at their edges, each met by a burst of concurrent clients where the server comes up. vLLM
(VLLM_BASE's settings): --max-num-seqs -1 (a negative count meant as "no limit");
--scheduler-cls naming a class that does not exist in vLLM's own scheduler module
(vllm.v1.core.sched.scheduler.FairScheduler: the module is there, the class is not);
--scheduling-policy priority --max-num-seqs 3 under a burst of 12 requests that carry no
priority; --long-prefill-token-threshold 1 (one prefill token per step) under a burst of 10.
SGLang (--device cpu --model-impl transformers): --max-running-requests 3
--max-queued-requests 2 under 12 concurrent clients; --chunked-prefill-size -1
--max-prefill-tokens 16 (a prefill budget smaller than any prompt, chunking off) under 6
long prompts; --schedule-conservativeness 0 over a 1,000-token pool (--max-total-tokens 1000)
under 10 generations of 300 tokens; --max-running-requests 100000 (more than the pool can ever
hold) under 16 clients. Each scenario first sets SIGINT and SIGQUIT back to their defaults. What
each client got (HTTP status and error body) is written to /tmp/blind256/clients/<scenario>.txt,
for the labeller only.

Earlier batches already had (not repeated): --max-num-seqs 0, 1, 2, 4, 8, 64, 256 and 300
(68th, 111th, 139th, 187th, ...); --max-num-batched-tokens 8 to 1,000,000,000 and
--long-prefill-token-threshold 16 and 512 (108th, 162nd); --max-num-partial-prefills /
--max-long-partial-prefills (76th, 90th, 180th); --scheduling-policy priority with single
requests of odd priorities (70th) and under a mixed-priority burst (164th), lifo (94th);
--scheduler-cls naming a module that is not installed and a class that is not a scheduler
(164th); --async-scheduling (84th, 180th, 198th, 249th); SGLang --max-running-requests -1, 0, 1,
2, 4, 128, 256 and `many`; --max-queued-requests 0 and 1 with --max-running-requests 1 (191st);
--max-prefill-tokens 0, 32 and 256; --chunked-prefill-size -1, 0, 1, 16, 32, 37, 64, 100, 4096,
8192 and `big`; --schedule-conservativeness -1, 0.05, 50 and `high`; --schedule-policy nosuch,
fifo2, lpm, dfs-weight and priority; --enable-priority-scheduling with lpm and with
low-values-first (164th). The 139th batch planned --chunked-prefill-size -1 --max-prefill-tokens
16 but never recorded it.

Recorded 2026-12-07 in one invocation (raw1: the table in order), waiting turns for the shared
lock with other helpers' recorders; each scenario once. Seconds per scenario: vLLM 15, 65, 69,
50; SGLang 96, 84, 50, 85. All eight kept (final files ig101-ig108); none dropped.
Two descriptions (and so their logs' source lines) say more than was sent: s-queued-2-running-3-burst's
clients all asked 200 new tokens (not 40-200), and s-prefill-16-chunk-off's prompts were 40-75
words (209-392 tokens), not 40-200; the labels follow the logs.

What the engines did. vLLM refuses --max-num-seqs -1 at launch in pydantic's words
(`2 validation errors for SchedulerConfig`: max_num_batched_tokens -256, derived from the count,
and max_num_seqs -1, each `Input should be greater than or equal to 1`): crashed at launch
(ig101). It resolves --scheduler-cls only after `init engine (profile, create kv cache, warmup
model) took 17.24 s`, then `EngineCore failed to start.` with `AttributeError: module
'vllm.v1.core.sched.scheduler' has no attribute 'FairScheduler'` and `Engine core
initialization failed`: crashed in warmup (ig103). The priority policy with requests without a
priority and the one-token long-prefill threshold both serve silently: every request 200, one
stats line with nothing waiting (the threshold shows only as 18 generated tokens/s against 56
in the priority run): ready in serving (ig105, ig107). SGLang with 3 running and 2 queued
refuses seven of twelve clients at once (`503 Service Unavailable`; the clients got `The request
queue is full.`) and serves the five (`#running-req: 3 ... #queue-req: 2`): ready (ig102). A
16-token prefill budget with chunking off admits each 209-392-token prompt alone in its own
prefill batch, over the budget, without a warning: ready (ig104). Conservativeness 0 over a
1,000-token pool admits five requests, fills the pool to 0.94 and retracts three times (`KV
cache pool is full. Retract requests. #retracted_reqs: 1, ... #new_token_ratio: 0.0000 ->
0.3231`), then runs two at a time and answers all ten: ready (ig106). --max-running-requests 100000 is kept as
given, with no warning (`max_running_requests=100000` beside a 15,120,866-token pool), and the
sixteen clients run together (`#running-req: 15`), all 200: ready (ig108). Crashed at launch:
ig101; crashed in warmup: ig103; ready in serving: ig102, ig104-ig108. None hung.
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

ROOT = Path("/tmp/blind256")
CLIENTS = ROOT / "clients"
CLIENTS.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
WORDS = ["fox", "river", "stone", "garden", "window", "silver", "market", "yellow", "thunder",
         "engine"]


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch (a recorder started
    in the background inherits them ignored, and the engine would inherit that)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def prompt(i: int, n_words: int) -> str:
    return " ".join(WORDS[(i + k) % len(WORDS)] for k in range(n_words))


def post_status(ctx: Ctx, path: str, body: dict, timeout: float = 150) -> str:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return str(r.status)
    except urllib.error.HTTPError as e:
        return f"{e.code} {e.read()[:200]!r}"
    except (OSError, TimeoutError) as e:
        return f"error {e!r}"


def burst(ctx: Ctx, path: str, bodies: list[dict], name: str) -> None:
    """Concurrent clients, one thread each; what each got goes to CLIENTS/<name>.txt."""
    results: list[str] = [""] * len(bodies)

    def one(i: int) -> None:
        results[i] = post_status(ctx, path, bodies[i])

    threads = [threading.Thread(target=one, args=(i,)) for i in range(len(bodies))]
    for t in threads:
        t.start()
        time.sleep(0.05)
    for t in threads:
        t.join(180)
    (CLIENTS / f"{name}.txt").write_text(
        "\n".join(f"{i}: {r}" for i, r in enumerate(results)) + "\n")


def v_ends_or_burst(name: str, n: int, words: tuple[int, int], max_tokens: int,
                    extra: dict | None = None) -> object:
    """vLLM: ends by itself, or serves: one completion, a burst of ``n``, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([READY_LINE], 240) and ctx.proc is not None and ctx.proc.poll() is None:
            model = ctx.model_name()
            ctx.complete(1)
            burst(ctx, "/v1/completions", [
                {"model": model, "prompt": prompt(i, words[0] + (i * 7) % (words[1] - words[0])),
                 "max_tokens": max_tokens, **(extra or {})} for i in range(n)], name)
            ctx.complete(1)
            time.sleep(12)
        else:
            linger(ctx, 20)
    return act


def s_ends_or_burst(name: str, n: int, words: tuple[int, int], max_tokens: int) -> object:
    """SGLang: ends by itself, or serves: a burst of ``n`` completions, one more, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 300) and ctx.proc is not None and ctx.proc.poll() is None:
            model = ctx.model_name()
            burst(ctx, "/v1/completions", [
                {"model": model, "prompt": prompt(i, words[0] + (i * 7) % (words[1] - words[0])),
                 "max_tokens": max_tokens, "temperature": 0} for i in range(n)], name)
            ctx.complete(1)
            time.sleep(12)
        else:
            linger(ctx, 20)
    return act


def v(name: str, what: str, args: list[str], act) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], before=dfl_signals, act=act)


def s(name: str, what: str, args: list[str], act) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], before=dfl_signals, act=act)


SCENARIOS = [
    v("v-max-num-seqs-negative", "--max-num-seqs -1 (meant as \"no limit\"), then a burst of 8 "
      "completions if it serves", ["--max-num-seqs", "-1"],
      v_ends_or_burst("v-max-num-seqs-negative", 8, (4, 20), 24)),
    s("s-queued-2-running-3-burst", "--max-running-requests 3 --max-queued-requests 2, then 12 "
      "concurrent clients of 40-200 new tokens", ["--max-running-requests", "3",
                                                  "--max-queued-requests", "2"],
      s_ends_or_burst("s-queued-2-running-3-burst", 12, (4, 40), 200)),
    v("v-scheduler-cls-missing-class", "--scheduler-cls naming a class that does not exist in "
      "vLLM's own scheduler module (vllm.v1.core.sched.scheduler.FairScheduler)",
      ["--scheduler-cls", "vllm.v1.core.sched.scheduler.FairScheduler"],
      v_ends_or_burst("v-scheduler-cls-missing-class", 4, (4, 20), 16)),
    s("s-prefill-16-chunk-off", "--chunked-prefill-size -1 --max-prefill-tokens 16 (a prefill "
      "budget smaller than one prompt, chunking off), then 6 concurrent clients of 40-200-word "
      "prompts", ["--chunked-prefill-size", "-1", "--max-prefill-tokens", "16"],
      s_ends_or_burst("s-prefill-16-chunk-off", 6, (40, 200), 32)),
    v("v-priority-policy-no-priority-burst", "--scheduling-policy priority --max-num-seqs 3, "
      "then a burst of 12 completions none of which carries a priority",
      ["--scheduling-policy", "priority", "--max-num-seqs", "3"],
      v_ends_or_burst("v-priority-policy-no-priority-burst", 12, (4, 30), 48)),
    s("s-conservativeness-0-burst", "--schedule-conservativeness 0 over a 1,000-token KV pool "
      "(--max-total-tokens 1000), then 10 concurrent clients of 300 new tokens",
      ["--schedule-conservativeness", "0", "--max-total-tokens", "1000"],
      s_ends_or_burst("s-conservativeness-0-burst", 10, (10, 40), 300)),
    v("v-long-prefill-threshold-1-burst", "--long-prefill-token-threshold 1 (every prompt "
      "'long', one token per step), then a burst of 10 prompts of 10-35 words",
      ["--long-prefill-token-threshold", "1"],
      v_ends_or_burst("v-long-prefill-threshold-1-burst", 10, (10, 35), 16)),
    s("s-max-running-100000-burst", "--max-running-requests 100000 (more than the KV pool can "
      "ever hold), then 16 concurrent clients", ["--max-running-requests", "100000"],
      s_ends_or_burst("s-max-running-100000-burst", 16, (4, 40), 64)),
]
