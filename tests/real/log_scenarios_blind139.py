"""The hundred-and-thirty-ninth batch's scenarios (tests/fixtures/corpus/fresh138): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind139.py OUT

Themes: the scheduler's capacity settings meeting load - limits on how much work runs at once,
set small as a person tuning for latency or memory does, then a burst of concurrent requests
(threads, prompts and generation lengths varied) that overruns them. vLLM: a KV cache of five
blocks (--num-gpu-blocks-override 5: 640 tokens, 2.5 requests of the length) under sixteen
long generations; one sequence at a time with a 16-token chunked-prefill budget (--max-num-seqs
1 --max-num-batched-tokens 16); one sequence at a time under eight 700-875-token generations
whose clients give up after 25 s; chunked prefill off with the step budget and the length both
300 and prompts near it. SGLang: --max-running-requests 1 under ten long generations whose
clients give up after 30 s; a KV pool just above one request (--max-total-tokens 300) under
eight long generations; --schedule-conservativeness 0.05 over a 1,200-token pool under sixteen
long generations; --schedule-conservativeness 50 under a burst of twelve.

Earlier batches already had (not repeated): --max-num-seqs 2 with 24 requests (68th), a 1 MiB
--kv-cache-memory-bytes preempting 16 generations (70th), --num-gpu-blocks-override 1 at launch
(78th), n over --max-num-seqs (80th), --max-num-batched-tokens 64 without chunking (90th,
121st), chunked prefill 32 with a burst, --max-running-requests 2 with a burst, SGLang chunked
prefill 32 with a burst, --max-model-len 64 with a burst (108th), queued requests killed or
aborted under --max-num-seqs 1 / --max-running-requests 1 (111th), --max-total-tokens 16 (73rd)
and 1024 with a long prompt, --max-prefill-tokens 256 without chunking and one long prompt
(115th), --max-running-requests 0, --chunked-prefill-size 0, --max-prefill-tokens 0 (70th,
73rd, 75th).

vLLM runs with VLLM_BASE's settings (a later --max-model-len wins where a scenario gives one);
SGLang with --device cpu --model-impl transformers. Prompts are words of a fixed list (the tiny
tokenizer, a 512-word vocabulary, makes about three tokens of a word).

Recorded 2026-12-06 in three invocations (raw1: the table in order, stopped after
s-conservativeness-50-burst to keep within the time budget; raw2: v-gpu-blocks-5-long-gens;
raw3: v-seqs-1-long-gens-client-timeouts), waiting turns with two other helpers' recorders
(most of the 28 minutes went to waiting); each scenario once. About 8.5 minutes of recording
(vLLM 37+56+58+54+43+96 s, SGLang 102+120+47+48 s). 8 kept (final files dr101-dr108). Dropped:
v-gpu-blocks-2-long-gens (--num-gpu-blocks-override 2: refused at launch in the engine core's
_check_enough_kv_cache_memory, `To serve at least one request with the model's max seq len
(256) ... the estimated maximum model length is 128`, the same log as the 78th batch's
v-gpu-blocks-1, fresh77/bi103 - a repeat; replaced by five blocks);
v-seqs-1-long-prompts-client-timeouts (--max-num-seqs 1 --max-model-len 2048, eight 1,450-token
prompts with 20 s clients: served in a few seconds, every request 200, no queue or timeout
visible - the fault did not show; replaced by the long-generation take). Not recorded (no time
left in the budget, the lock held by the other helpers' recorders): s-prefill-16-chunk-off-burst
(--chunked-prefill-size -1 --max-prefill-tokens 16). All three are removed from SCENARIOS.
v-gpu-blocks-5-long-gens's description (and its log's source line) says 64-token blocks, as
the first take's numbers suggested; the log shows 128-token blocks (640 tokens in five).

What the engines did: every kept log ends ready in serving - the tiny model on two cores is too
light for these limits to fail anything; what they change is how the burst is queued. vLLM's
CPU KV cache uses 128-token blocks, so --num-gpu-blocks-override 5 is `CPU KV cache size: 640
tokens, Maximum concurrency for 256 tokens per request: 2.50x`, and sixteen generations of up to
320 tokens are all answered 200 with no preemption logged; --max-num-seqs 1 shows only as
`Running: 1 reqs, Waiting: 2 reqs` in the periodic stats line (at about 400 tokens/s no 25 s
client gave up); chunked prefill off warns `This model does not officially support disabling
chunked prefill. Disabling this manually may cause the engine to crash or produce incorrect
outputs.` and serves. SGLang never retracted: with --max-total-tokens 300 it admits one request
at a time (`#queue-req: 7` ... `0`, `#pending-token: 339`) instead of over-filling the pool, and
even at --schedule-conservativeness 0.05 it runs at most two of sixteen at once over a
1,200-token pool (`token usage: 0.73`), after warning `KV pool holds 1200 tokens, fewer than
--context-length 2048`. --max-running-requests 1 queues nine (`#running-req: 1 ... #queue-req:
9`); clients that give up are logged as `[http_server] Error: Request is disconnected from the
client side (type 1). Abort request obj.rid=...`, one line each, and the server serves on.
--schedule-conservativeness 50 over the default pool of 15.7 million tokens admits ten of the
burst in one prefill batch (`#new-seq: 10`, `#running-req: 11`): no visible effect (kept as the
fourth SGLang log, a setting that serves unchanged).
"""

from __future__ import annotations

import json
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind139")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
WORDS = ("the quick brown fox jumps over the lazy dog and then the cat sat on the mat while "
         "the bird sang a song about the sea and the sky and the long road home").split()


def prompt(words: int, seed: int = 0) -> str:
    return " ".join(WORDS[(i + seed) % len(WORDS)] for i in range(words))


def request(ctx: Ctx, path: str, body: dict, timeout: float = 120) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def burst(ctx: Ctx, calls: list[tuple[str, dict]], timeout: float, join_s: float) -> None:
    ts = [threading.Thread(target=request, args=(ctx, p, b, timeout), daemon=True)
          for p, b in calls]
    for t in ts:
        t.start()
    end = time.monotonic() + join_s
    for t in ts:
        t.join(max(0.1, end - time.monotonic()))


def v_load(lengths: list[tuple[int, int]], timeout: float = 90, join_s: float = 100,
           ignore_eos: bool = True):
    """Once up: one completion, then a burst of (prompt words, max_tokens) completions."""
    def act(ctx: Ctx) -> None:
        if not up(ctx, 240):
            return
        name = ctx.model_name()
        ctx.complete(1, max_tokens=8)
        calls = [("/v1/completions", {"model": name, "prompt": prompt(w, i), "max_tokens": m,
                                      "ignore_eos": ignore_eos})
                 for i, (w, m) in enumerate(lengths)]
        burst(ctx, calls, timeout, join_s)
        ctx.complete(1, max_tokens=8)
        linger(ctx, 12)
    return act


def s_load(lengths: list[tuple[int, int]], timeout: float = 90, join_s: float = 100):
    """SGLang, once fired up: a burst of (prompt words, max_new_tokens) /generate requests."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(SG_READY, 200):
            linger(ctx, 5)
            return
        calls = [("/generate", {"text": prompt(w, i), "sampling_params": {
            "max_new_tokens": m, "ignore_eos": True}}) for i, (w, m) in enumerate(lengths)]
        burst(ctx, calls, timeout, join_s)
        request(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}},
                timeout=30)
        linger(ctx, 10)
    return act


LEN_2048 = [*VLLM_BASE, "--max-model-len", "2048"]

SCENARIOS = [
    # vLLM
    Scenario("v-gpu-blocks-5-long-gens", "vllm", "--num-gpu-blocks-override 5 (a KV cache of "
             "five 64-token blocks, just over one request of the 256-token length); sixteen "
             "concurrent completions, prompts of 5-40 words, 120-200 tokens each with "
             "ignore_eos", [*VLLM_BASE, "--num-gpu-blocks-override", "5"],
             act=v_load([(5 + 5 * (i % 8), 120 + 10 * (i % 9)) for i in range(16)],
                        timeout=150, join_s=160)),
    Scenario("v-seqs-1-chunk-16-burst", "vllm", "--max-num-seqs 1 --max-num-batched-tokens 16 "
             "with chunked prefill (tuned for latency); twelve concurrent completions, prompts "
             "of 10-60 words, 16-64 tokens", [*VLLM_BASE, "--max-num-seqs", "1",
                                              "--max-num-batched-tokens", "16",
                                              "--enable-chunked-prefill"],
             act=v_load([(10 + 5 * (i % 11), 16 + 4 * (i % 13)) for i in range(12)])),
    Scenario("v-seqs-1-long-gens-client-timeouts", "vllm", "--max-num-seqs 1 with "
             "--max-model-len 1024; eight concurrent completions of 700-900 tokens each "
             "(ignore_eos) whose clients give up after 25 s, then a short completion",
             [*VLLM_BASE, "--max-model-len", "1024", "--max-num-seqs", "1"],
             act=v_load([(20 + i, 700 + 25 * i) for i in range(8)], timeout=25, join_s=30)),
    Scenario("v-nochunk-budget-300-len-300-burst", "vllm", "chunked prefill off with "
             "--max-num-batched-tokens 300 and --max-model-len 300 (just above the prompts), "
             "--max-num-seqs 4; sixteen concurrent completions of 70-90 words asking 16-80 "
             "tokens", [*VLLM_BASE, "--max-model-len", "300", "--no-enable-chunked-prefill",
                        "--max-num-batched-tokens", "300", "--max-num-seqs", "4"],
             act=v_load([(70 + (i % 5) * 5, 16 + 16 * (i % 5)) for i in range(16)])),
    # SGLang
    Scenario("s-max-running-1-long-gens", "sglang", "--max-running-requests 1; ten concurrent "
             "/generate requests of 200-400 new tokens (ignore_eos) whose clients give up after "
             "30 s, then a short one", [*SG, "--max-running-requests", "1"],
             act=s_load([(5 + 3 * i, 200 + 50 * (i % 5)) for i in range(10)], timeout=30,
                        join_s=35)),
    Scenario("s-total-tokens-300-retract", "sglang", "--max-total-tokens 300 (a KV pool just "
             "above one request); eight concurrent /generate requests, prompts of 10-30 words, "
             "150-220 new tokens each (ignore_eos)", [*SG, "--max-total-tokens", "300"],
             act=s_load([(10 + 3 * i, 150 + 10 * i) for i in range(8)])),
    Scenario("s-conservativeness-0.05-retract", "sglang", "--schedule-conservativeness 0.05 "
             "(admit far more than the pool holds) over --max-total-tokens 1200; sixteen "
             "concurrent /generate requests of 300-450 new tokens (ignore_eos)",
             [*SG, "--schedule-conservativeness", "0.05", "--max-total-tokens", "1200"],
             act=s_load([(8 + 2 * i, 300 + 10 * i) for i in range(16)])),
    Scenario("s-conservativeness-50-burst", "sglang", "--schedule-conservativeness 50 (admit "
             "far less than the pool holds); twelve concurrent /generate requests of 30-140 new "
             "tokens", [*SG, "--schedule-conservativeness", "50"],
             act=s_load([(10 + 4 * i, 30 + 10 * i) for i in range(12)], timeout=60, join_s=65)),
]
