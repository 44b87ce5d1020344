"""The hundred-and-sixty-second batch's scenarios (tests/fixtures/corpus/fresh161): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind162.py OUT

Themes: prefill sizing and chunked prefill - what a person tuning time-to-first-token sets.
vLLM: a long-prefill threshold above the context (--long-prefill-token-threshold 512 over
--max-model-len 256); a step budget below the number of sequences (--max-num-batched-tokens 8);
a step budget far above the context with two sequences (--max-num-batched-tokens 65536
--max-num-seqs 2) under four prompts. SGLang: the prefill-only mode without a KV cache
(--is-embedding --prefill-only-disable-kv-cache) left with chunked prefill on; a chunk of one
token (--chunked-prefill-size 1) under a long prompt; --max-prefill-tokens 32 below a 64-token
chunk under three long prompts at once; an odd chunk (37) with --enable-mixed-chunk under long
prompts arriving while others decode.

Earlier batches already had (not repeated): --max-num-batched-tokens 64 below --max-model-len
with chunking (104th) and without (90th, 121st: 100), 1,000,000,000 (71st), 32 with a burst and
--long-prefill-token-threshold 16 with a burst (108th), 32 with a long prompt and 4096/8192 with
long contexts (115th), 16 with --max-num-seqs 1 and chunking off at 300/300 (139th),
--max-num-partial-prefills (76th, 90th: the flag is gone in 0.32), --max-num-seqs 300 over the
budget (68th); SGLang --chunked-prefill-size 0 (73rd), `big` (83rd), -5 in a config file (95th),
32 with a burst and --enable-mixed-chunk with a burst (108th), 64 with a 1,900-token prompt and
-1 with --max-prefill-tokens 256 (115th), --max-prefill-tokens 0 (75th), a chunk not divisible
by --page-size (155th).

vLLM runs with VLLM_BASE's settings (a later --max-model-len wins where a scenario gives one);
SGLang with --device cpu --model-impl transformers. Prompts are words of a fixed list (the tiny
tokenizer makes about 5.6 tokens of each of these words: 30 words are about 170 tokens, 200
words about 1,120).

Recorded 2026-12-07 in one invocation (raw1: the table in order; a first start was stopped
while it still waited for the lock, to shorten prompts that would have run past the contexts),
waiting turns with two other helpers' recorders; each scenario once. About 7.5 minutes of
recording (vLLM 8+55+55+62 s, SGLang 11+117+58+76 s). 7 kept (final files eo101-eo107).
Dropped: v-adaptive-threshold-4-long (--max-model-len 2048 --max-num-batched-tokens 128
--long-prefill-token-threshold 32 --long-prefill-token-threshold-adaptive, four ~1,500-token
prompts at once: all four answered 200 in about 10 s; the threshold and its adaptive flag appear
only in the `non-default args` line - the fault never shows, and the rest is the 108th's and
115th's small-budget serving log); removed from SCENARIOS.

What the engines did: vLLM refuses a long-prefill threshold above the context while building
its config, before any engine process (`ValidationError: 1 validation error for
SchedulerConfig` / `long_prefill_token_threshold (512) cannot be greater than the max_model_len
(256)`, launch). It takes an eight-token step budget with no --max-num-seqs without a word (no
`must be greater than or equal to max_num_seqs` error: it serves, prompt throughput 31.8
tokens/s), and a 65,536-token budget over two sequences of 256 with only a warning
(`max_num_batched_tokens (65536) exceeds max_num_seqs * max_model_len (512). This may lead to
unexpected behavior.`) and serves. SGLang refuses --prefill-only-disable-kv-cache (with
--is-embedding) while resolving its arguments unless chunking is off (`ValueError:
--prefill-only-disable-kv-cache requires --chunked-prefill-size=-1 so the FA backend takes the
fa_skip_kv_cache path`, launch). It serves a one-token chunk (a 392-token prompt prefilled in 392
`Prefill batch ... #new-token: 1` lines over 52 s, 200 OK), lets a 64-token chunk override
--max-prefill-tokens 32 without a warning (every chunk `#new-token: 64`), and chunks odd sizes
(37, remainders 11-14) with --enable-mixed-chunk, though the four staggered requests never
overlapped, so no chunk was mixed with a decode. Every served log ends ready in serving.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind162")
ROOT.mkdir(parents=True, exist_ok=True)

SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
V = VLLM_BASE
WORDS = ("river stone garden window yellow morning quiet engine silver market number "
         "winter paper forest bright little orange harbor").split()


def prompt(words: int, seed: int = 0) -> str:
    return " ".join(WORDS[(i * 7 + seed) % len(WORDS)] for i in range(words))


def concurrent(ctx: Ctx, n: int, words: int, max_tokens: int, timeout: float = 150,
               stagger: float = 0.0) -> None:
    name = ctx.model_name()
    threads = []
    for i in range(n):
        t = threading.Thread(target=ctx.post, args=("/v1/completions", {
            "model": name, "prompt": prompt(words, i), "max_tokens": max_tokens}, timeout))
        t.start()
        threads.append(t)
        time.sleep(stagger)
    for t in threads:
        t.join(timeout + 10)


def exit_or_prompts(n: int, words: int, max_tokens: int = 16, ready: str = READY_LINE,
                    stagger: float = 0.0):
    """Wait for the run to end by itself or serve; if it serves, ``n`` prompts of ``words``
    words at once, then a pause for a stats line."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([ready], 240)
        if ctx.proc is not None and ctx.proc.poll() is None and ready in ctx.text():
            concurrent(ctx, n, words, max_tokens, stagger=stagger)
            linger(ctx, 12)
        else:
            linger(ctx, 15)
    return act


SCENARIOS = [
    Scenario("v-long-prefill-over-len", "vllm", "--long-prefill-token-threshold 512 above "
             "--max-model-len 256", [*V, "--long-prefill-token-threshold", "512"],
             act=exit_or_prompts(2, 40)),
    Scenario("v-batched-8-below-seqs", "vllm", "--max-num-batched-tokens 8 (a step budget "
             "below the default number of sequences), then two 30-word prompts",
             [*V, "--max-num-batched-tokens", "8"], act=exit_or_prompts(2, 30)),
    Scenario("v-batched-65536-seqs-2", "vllm", "--max-num-batched-tokens 65536 with "
             "--max-num-seqs 2 (budget far above 2 x 256), then four 30-word prompts at once",
             [*V, "--max-num-batched-tokens", "65536", "--max-num-seqs", "2"],
             act=exit_or_prompts(4, 30)),
    Scenario("s-prefill-only-kv-chunked", "sglang", "--is-embedding "
             "--prefill-only-disable-kv-cache with chunked prefill left at its default",
             [*SG, "--is-embedding", "--prefill-only-disable-kv-cache"],
             act=exit_or_prompts(1, 20, ready=SG_READY)),
    Scenario("s-chunk-1-long-prompt", "sglang", "--chunked-prefill-size 1, then one 70-word "
             "prompt", [*SG, "--chunked-prefill-size", "1"],
             act=exit_or_prompts(1, 70, 8, ready=SG_READY)),
    Scenario("s-max-prefill-32-chunk-64-long", "sglang", "--max-prefill-tokens 32 below "
             "--chunked-prefill-size 64, then three 250-word prompts at once",
             [*SG, "--max-prefill-tokens", "32", "--chunked-prefill-size", "64"],
             act=exit_or_prompts(3, 250, ready=SG_READY)),
    Scenario("s-mixed-chunk-37-staggered", "sglang", "--enable-mixed-chunk "
             "--chunked-prefill-size 37, then four 200-word prompts 1 s apart, 48 tokens each",
             [*SG, "--enable-mixed-chunk", "--chunked-prefill-size", "37"],
             act=exit_or_prompts(4, 200, 48, ready=SG_READY, stagger=1.0)),
]
