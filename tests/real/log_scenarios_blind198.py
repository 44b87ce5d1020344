"""The hundred-and-ninety-eighth batch's scenarios (tests/fixtures/corpus/fresh197): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind198.py OUT

Themes: two tuning changes at once, each of which serves alone - what an optimisation campaign
meets when it combines changes that each passed. Each scenario starts from a launch that serves
here (vLLM with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers), sets
TWO settings of the kind a campaign tries together and, once the server says it is ready, sends a
burst of 12 concurrent completions from threads (every third streamed, prompts of 4 to 150
words, 8 to 64 new tokens), then one plain completion, so that the log shows how it serves, or
fails. A launch the pair stops never gets the burst.

Earlier batches already had (not repeated): each of these settings alone (the 108th batch:
n-gram speculative decoding, prefix caching, --block-size 8, --optimization-level 0, the
long-prefill threshold, chunked prefill with a 32-token budget, compile sizes, a shorter
context; SGLang mixed chunk, continuous decode steps, max running requests, chunked prefill
size, KV dtype fp8_e5m2, page size 16, dfs-weight); speculative decoding set up wrong (124th).

Recorded 2026-12-07 in one invocation (raw1, engines alternating), waiting turns with two other
helpers' recorders; each scenario once. About 6.2 minutes of recording (vLLM 62+12+71+41 s,
SGLang 61+27+50+50 s). 7 kept (final files fz101-fz107). Dropped: s-ngram-spec-no-radix (NGRAM speculative
decoding with --disable-radix-cache: SGLang dies making the n-gram worker, which imports
sgl_kernel - `ImportError: [sgl_kernel] CRITICAL: Could not load any common_ops library!`,
`libcuda.so.1` - the same log as the 124th batch's NGRAM with --model-impl transformers, whatever
the radix cache; a repeat), removed from the table.

What the engines did: most pairs served the burst whole, the tiny model on 2 cores being too
light for them to bite; one pair was refused. vLLM refuses --async-scheduling with n-gram
speculative decoding while it builds its config, before any engine process (`ValidationError: 1
validation error for VllmConfig / Value error, Currently, async scheduling is only supported with
EAGLE/MTP/Draft Model/NGram GPU/DSpark/DFlash kind of speculative decoding`), where n-gram alone
only disables the default async scheduling with a warning. n-gram with chunked prefill and a
32-token budget serves with `max_num_scheduled_tokens is set to 32 based on the speculative
decoding settings. This may lead to suboptimal performance`. --kv-cache-dtype fp8 with
--block-size 64 serves (a cache of twice the tokens; block 64 is a multiple of the CPU backend's
32, unlike the 108th's block 8). --optimization-level 0 with compile_sizes [4, 8] keeps both in
its config and compiles nothing (init 2.19 s), the sizes dropped under the general `Inductor
compilation was disabled by user settings` warning. In every vLLM run the burst's three
150-word prompts are answered 400 Bad Request (over --max-model-len 256 with their new tokens)
without a log line saying why. SGLang mixed chunk with --chunked-prefill-size 16 prefills the
burst in 14-16-token chunks (`#pending-token` falling from 1284) and serves it; fp8_e5m2 KV with
--page-size 64 serves (a 21-token request holds a 64-token page).
--num-continuous-decode-steps 4 with --disable-overlap-schedule serves the burst whole.
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
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    Step,
    linger,
)

ROOT = Path("/tmp/blind198")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
WORDS = ("the quick brown fox jumps over the lazy dog and then the cat sat on the mat while "
         "the bird sang a song about the sea and the sky and the long road home").split()
NGRAM = ('{"method": "ngram", "num_speculative_tokens": 4, "prompt_lookup_max": 4, '
         '"prompt_lookup_min": 2}')


def _prompt(n: int, repeat: bool = False) -> str:
    if repeat:      # repetitive text, where n-gram lookup finds its matches
        base = "one two three four five six seven eight".split()
        return " ".join(base[i % len(base)] for i in range(n))
    return " ".join(WORDS[i % len(WORDS)] for i in range(n))


def _one(ctx: Ctx, name: str, prompt: str, max_tokens: int, stream: bool) -> None:
    body = {"model": name, "prompt": prompt, "max_tokens": max_tokens, "temperature": 0.8,
            "stream": stream}
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}/v1/completions",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=60) as resp:
            resp.read()
    except (urllib.error.HTTPError, OSError, TimeoutError):
        pass


def burst(ready: str, repeat: bool = False, n: int = 12) -> Step:
    """Once ``ready`` is logged: ``n`` concurrent completions (every third streamed), prompts
    of 4-150 words, 8-64 new tokens; then one plain completion and a pause for the engine's
    periodic lines."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([ready], 240) is None:
            linger(ctx, 5)
            return
        time.sleep(1)
        name = ctx.model_name()
        lengths = [4, 12, 40, 150]
        news = [8, 16, 32, 64]
        threads = [threading.Thread(target=_one, daemon=True,
                                    args=(ctx, name, _prompt(lengths[i % 4], repeat),
                                          news[(i // 4 + i) % 4], i % 3 == 0))
                   for i in range(n)]
        for t in threads:
            t.start()
        end = time.monotonic() + 70
        for t in threads:
            t.join(max(0.1, end - time.monotonic()))
        if ctx.proc is not None and ctx.proc.poll() is None:
            _one(ctx, name, "the quick brown fox", 16, False)
        linger(ctx, 12)
    return act


def v(name: str, what: str, extra: list[str], repeat: bool = False) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *extra], act=burst(READY_LINE, repeat))


def s(name: str, what: str, extra: list[str], repeat: bool = False) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *extra], act=burst(SG_READY, repeat))


SCENARIOS = [
    # alternating engines, so that both get recorded early
    v("v-ngram-spec-chunked-32", "n-gram speculative decoding (4 tokens, lookup 2-4) with "
      "chunked prefill and a 32-token step budget (--enable-chunked-prefill "
      "--max-num-batched-tokens 32), then a burst of 12 completions on repetitive prompts and "
      "one plain one", ["--speculative-config", NGRAM, "--enable-chunked-prefill",
                        "--max-num-batched-tokens", "32"], repeat=True),
    s("s-mixed-chunk-prefill-16", "--enable-mixed-chunk with --chunked-prefill-size 16, then a "
      "burst of 12 completions with prompts up to 150 words and one plain one",
      ["--enable-mixed-chunk", "--chunked-prefill-size", "16"]),
    v("v-async-sched-ngram-spec", "--async-scheduling with n-gram speculative decoding (4 "
      "tokens, lookup 2-4), then a burst of 12 completions on repetitive prompts and one plain "
      "one", ["--async-scheduling", "--speculative-config", NGRAM], repeat=True),
    v("v-kv-fp8-block-64", "--kv-cache-dtype fp8 with --block-size 64 (a smaller KV cache in "
      "bigger blocks), then a burst of 12 completions and one plain one",
      ["--kv-cache-dtype", "fp8", "--block-size", "64"]),
    s("s-kv-fp8-page-64", "--kv-cache-dtype fp8_e5m2 with --page-size 64, then a burst of 12 "
      "completions and one plain one", ["--kv-cache-dtype", "fp8_e5m2", "--page-size", "64"]),
    v("v-opt-level-0-compile-sizes", "--optimization-level 0 (no torch.compile) with "
      "--compilation-config '{\"compile_sizes\": [4, 8]}' (Inductor compiles for batch sizes 4 "
      "and 8), then a burst of 12 completions and one plain one",
      ["--optimization-level", "0", "--compilation-config", '{"compile_sizes": [4, 8]}']),
    s("s-cont-decode-4-no-overlap", "--num-continuous-decode-steps 4 with "
      "--disable-overlap-schedule, then a burst of 12 completions and one plain one",
      ["--num-continuous-decode-steps", "4", "--disable-overlap-schedule"]),
]
