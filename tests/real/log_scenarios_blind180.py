"""The hundred-and-eightieth batch's scenarios (tests/fixtures/corpus/fresh179): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind180.py OUT

Themes: the engines' overlap and asynchronous scheduling settings, and the batch-shaping
switches a person turns on for throughput, met by a server on this CPU host under a little load.
Each scenario starts from a launch that serves here (vLLM with VLLM_BASE's settings; SGLang with
--device cpu --model-impl transformers), changes ONE setting, and once the server says it is
ready sends a burst of 10 concurrent completions from threads (every other one streamed, prompts
of 4 to 60 words, 8 to 64 new tokens), then waits for the answers and a pause. vLLM: the CUDA
graph settings on the CPU build (--cudagraph-capture-sizes 1 2 4 8, --max-cudagraph-capture-size
0, --compilation-config cudagraph_mode FULL). SGLang: --enable-two-batch-overlap,
--enable-dp-attention with one rank, --disable-overlap-schedule.

Earlier batches already had (not repeated): vLLM --async-scheduling launched with two
completions (84th; taken again under a burst, the same silent serving: dropped, below),
--max-num-partial-prefills / --max-long-partial-prefills (76th, 90th: gone in 0.32),
--stream-interval 0 (152nd) and 8 under a burst (108th); SGLang --enable-mixed-chunk and
--num-continuous-decode-steps 4 under a burst (108th), --enable-mixed-chunk with an odd chunk
and --max-prefill-tokens 32 below a 64-token chunk (162nd), --max-prefill-tokens 0 (75th), 256
without chunking (115th), --stream-interval 0 (83rd) and 100000 (152nd),
--enable-overlap-schedule (98th), --enable-dp-attention with --dp-size 2 (90th).

Recorded 2026-12-07 in two invocations (raw1: the first eight scenarios of the plan; raw2:
v-cudagraph-mode-full-burst, added to keep three vLLM logs), taking turns with two other
helpers' recorders; each scenario once. About 5m52s of recording (SGLang 14+53+51+7 s, vLLM
44+43+53+42+45 s). 6 kept (final files fg101-fg106). Dropped, and removed from SCENARIOS:
v-async-scheduling-burst (--async-scheduling, then the burst: served all ten silently, as the
84th's v-async-scheduling-cpu did with two completions - the same response, a repeat),
v-stream-interval-1000-burst (--stream-interval 1000: served all ten without a word, as the
108th's --stream-interval 8 did - the same response, a repeat) and s-stream-output-burst
(--stream-output: `sglang serve: error: unrecognized arguments: --stream-output` after the usage
text in 7 s - this SGLang has no such flag, and an unknown flag's argparse refusal is what the
98th batch's old SGLang names already show).

What the engines did. SGLang refuses --enable-two-batch-overlap at launch in its own argument
check (`check_two_batch_overlap` / `ValueError: When enabling two batch overlap without an EP a2a
backend (moe_a2a_backend='none'), attention DP (--attn-dp-size) is required (DeepSeek-V4 non-EP
DP TBO path).`, after `kill_process_tree called`), crashed at launch. --enable-dp-attention alone
is deprecated (`'--enable-dp-attention' is deprecated ... Use '--attn-dp-size <dp-size>'
instead.`) and turned into attn_dp_size 1 (server_args then shows 'enable_dp_attention': False);
it serves the burst. --disable-overlap-schedule serves the burst without a word (server_args
only). vLLM's CPU build takes every CUDA graph setting and drops it silently: the sizes 1 2 4 8
and FULL show in `non-default args`, the engine's config line then has 'cudagraph_mode':
<CUDAGraphMode.NONE: 0> and 'cudagraph_capture_sizes': []; all ten requests answered 200 OK.
Every served log ends ready in serving (the burst's 200s, then a stats or Decode batch line).
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
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, Step, linger  # noqa: E402

ROOT = Path("/tmp/blind180")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
WORDS = ("the quick brown fox jumps over the lazy dog and then the cat sat on the mat while "
         "the bird sang a song about the sea and the sky and the long road home").split()


def _prompt(n: int) -> str:
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


def burst(ready: str, n: int = 10) -> Step:
    """Once ``ready`` is logged: ``n`` concurrent completions (every other one streamed),
    prompts of 4-60 words, 8-64 new tokens; then a pause for the engine's periodic lines. A
    launch that ends first gets nothing."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([ready], 240) is None:
            linger(ctx, 5)
            return
        time.sleep(1)
        name = ctx.model_name()
        lengths = [4, 12, 30, 60]
        news = [8, 16, 32, 64]
        threads = [threading.Thread(target=_one, daemon=True,
                                    args=(ctx, name, _prompt(lengths[i % 4]),
                                          news[(i // 4 + i) % 4], i % 2 == 0))
                   for i in range(n)]
        for t in threads:
            t.start()
        end = time.monotonic() + 75
        for t in threads:
            t.join(max(0.1, end - time.monotonic()))
        linger(ctx, 10)
    return act


def v(name: str, what: str, extra: list[str]) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *extra], act=burst(READY_LINE))


def s(name: str, what: str, extra: list[str]) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *extra], act=burst(SG_READY))


ROOT.mkdir(parents=True, exist_ok=True)

SCENARIOS = [
    s("s-two-batch-overlap-burst", "--enable-two-batch-overlap (two micro-batches overlapped), "
      "then a burst of 10 completions, every other one streamed", ["--enable-two-batch-overlap"]),
    s("s-dp-attention-one-rank-burst", "--enable-dp-attention with one rank (dp 1, tp 1), then a "
      "burst of 10 completions, every other one streamed", ["--enable-dp-attention"]),
    v("v-cudagraph-sizes-cpu-burst", "--cudagraph-capture-sizes 1 2 4 8 (CUDA graph sizes) on "
      "the CPU build, then a burst of 10 completions, every other one streamed",
      ["--cudagraph-capture-sizes", "1", "2", "4", "8"]),
    s("s-disable-overlap-burst", "--disable-overlap-schedule (the overlap scheduler off), then "
      "a burst of 10 completions, every other one streamed", ["--disable-overlap-schedule"]),
    v("v-max-cudagraph-size-0-burst", "--max-cudagraph-capture-size 0, then a burst of 10 "
      "completions, every other one streamed", ["--max-cudagraph-capture-size", "0"]),
    v("v-cudagraph-mode-full-burst", "--compilation-config cudagraph_mode FULL (whole-step CUDA "
      "graphs) on the CPU build, then a burst of 10 completions, every other one streamed",
      ["--compilation-config", '{"cudagraph_mode": "FULL"}']),
]
