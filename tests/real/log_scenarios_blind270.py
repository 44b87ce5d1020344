"""The two-hundred-and-seventieth batch's scenarios (tests/fixtures/corpus/fresh269): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind270.py OUT

Themes: KV-cache memory settings and offloading, a new round - what a person sets to fit more
sequences or longer contexts, each met, where the server comes up, by one completion, a burst of
six or eight concurrent ~163-token prompts (ignore_eos, 60-100 new tokens) and one more
completion. vLLM (VLLM_BASE's settings): --block-size 512, one block longer than --max-model-len
256; VLLM_CPU_KVCACHE_SPACE=4GiB (the size written with a unit); --num-gpu-blocks-override 0
(meant as "no override"); --kv-cache-memory-bytes 300000 (meant as about one sequence of the
length). SGLang (--device cpu --model-impl transformers): --page-size 48 (not a power of two)
with --max-total-tokens 1000 (not a multiple of it); --kv-cache-dtype fp4_e2m1 (a Blackwell
guide's FP4 KV cache); --hicache-storage-backend file --hicache-size 1 without
--enable-hierarchical-cache (the switch forgotten); --page-size 128 with --max-total-tokens 1024
(eight pages) under eight concurrent prompts of two pages each.

Earlier batches already had (not repeated): --block-size 0 (155th), 8 (108th), 64 (198th,
219th); VLLM_CPU_KVCACHE_SPACE 40 (67th), -4 (74th), 0.5 (226th), 1 and 2 under cgroup limits
(216th, 235th) and quoted "1" (107th); --num-gpu-blocks-override 1 (78th), 5 (139th), 20 (245th);
--kv-cache-memory-bytes 1 MiB with --max-model-len 2048 (70th, 115th), 512 KiB with
--max-model-len -1 (115th), 65536 (104th), 70G (110th); --swap-space lots (83rd);
--cpu-offload-gb 64, 2, -2 (72nd, 78th, 165th); --kv-offloading-size and the lmcache backend
(165th), the simple CPU offloading connector (229th); vLLM's --kv-cache-dtype fp8, fp8_e4m3,
fp8_e5m2, fp8_inc, nvfp4, int3, mxfp8, turboquant_4bit_nc, fp8_ds_mla (67th to 250th);
SGLang's --page-size 0, 3, 16, 64, 4096 (71st, 108th, 155th, 198th, 202nd), --kv-cache-dtype
fp8_e4m3, fp8_e5m2, bfloat16, fp16 (108th, 138th, 155th, 198th), --max-total-tokens 16 to 4096
under bursts (115th, 139th, 245th, 255th, 256th), --mem-fraction-static 0, 0.0001, 0.1, 0.8,
0.85, 0.9, 1.5, nan; HiCache with --hicache-ratio 0.5 and 0, --hicache-size 4096, the mooncake
storage backend and plainly (125th, 165th), which cannot run on this CPU build (its host pool is
pinned through CUDA), so no scenario here turns HiCache on.

Recorded 2026-12-07 in one invocation (raw1: all eight scenarios in table order), taking turns
with other helpers' recorders for the machine's lock; each scenario once. About 4 minutes of
recording (vLLM 76+13+46+35 s, SGLang 14+7+40+37 s). 8 kept (final files iu101-iu108), none
dropped. Three faults never showed (vLLM's 512-token block, SGLang's forgotten HiCache switch and
its eight-page pool under the burst) and are kept as fair ready logs of the ground. The byte
count of v-kv-bytes-just-one-seq was sized for 1 KiB per token; the engine needs more per token
(it estimates 128 tokens for 300000 bytes), so the launch fails before the burst - kept as what
it shows.

What the engines did. vLLM: --block-size 512 over a 256-token length is taken silently (no
warning) and serves the burst, all 200s (ready, serving); VLLM_CPU_KVCACHE_SPACE=4GiB stops the
API server building VllmConfig (`ValueError ... invalid literal for int() with base 10: '4GiB'`,
crashed, launch); --num-gpu-blocks-override 0 is applied as a count ('Overriding
num_gpu_blocks=42567 with num_gpu_blocks_override=0') and the engine core dies `No available
memory for the cache blocks` (crashed, kv_cache_alloc); 300000 bytes give 'Explicitly set
(0.0/23.54) GiB for KV cache' and `To serve at least one request with the model's max seq len
(256) ... the estimated maximum model length is 128` (crashed, kv_cache_alloc). SGLang: page
size 48 is refused in check_server_args (`AssertionError: chunked_prefill_size must be divisible
by page_size`, crashed, launch); fp4_e2m1 is refused by argparse (`invalid choice`, crashed,
launch); the HiCache storage flags without the switch are ignored without a word
('hicache_attached=False') and the server serves the burst six at a time; the eight-page pool
serves the burst two requests at a time (token usage 0.50, the queue draining 6, 4, 2, 0) with no
retraction. Crashed: iu102, iu105, iu106 (launch), iu103, iu104 (kv_cache_alloc); ready in
serving: iu101, iu107, iu108; none hung.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind270")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
WORDS = "the quick brown fox jumps over a lazy dog and runs far away "


def _burst(ctx: Ctx, n: int, reps: int, max_tokens: int) -> None:
    """``n`` concurrent completions of a prompt of ``reps`` repetitions of WORDS, each asked
    for ``max_tokens`` tokens with ignore_eos, from threads; then a plain completion."""
    name = ctx.model_name()

    def one(i: int) -> None:
        ctx.post("/v1/completions", {"model": name, "prompt": f"{i} " + WORDS * reps,
                                     "max_tokens": max_tokens, "ignore_eos": True},
                 timeout=150)

    threads = [threading.Thread(target=one, args=(i,)) for i in range(n)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(160)
    ctx.complete(1)


def load(ready: str, n: int, reps: int, max_tokens: int):  # noqa: ANN201
    def act(ctx: Ctx) -> None:
        ctx.wait_any([ready], 240)
        if ctx.proc is not None and ctx.proc.poll() is None and ready in ctx.output():
            ctx.complete(1)
            _burst(ctx, n, reps, max_tokens)
            time.sleep(12)
        else:
            linger(ctx, 15)
    return act


def v(name: str, what: str, args: list[str], env: dict[str, str] | None = None,
      n: int = 6, reps: int = 7, max_tokens: int = 60) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], env=env or {},
                    act=load(READY_LINE, n, reps, max_tokens))


def s(name: str, what: str, args: list[str], n: int = 6, reps: int = 7,
      max_tokens: int = 80) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=load(SG_READY, n, reps, max_tokens))


SCENARIOS = [
    v("v-block-size-over-model-len", "--block-size 512, one KV block longer than "
      "--max-model-len 256, then six concurrent ~170-token prompts of 60 tokens",
      ["--block-size", "512"]),
    v("v-kvcache-space-unit-suffix", "VLLM_CPU_KVCACHE_SPACE=4GiB (the size written with a unit, "
      "as --kv-cache-memory-bytes takes it), then six concurrent prompts",
      [], env={"VLLM_CPU_KVCACHE_SPACE": "4GiB"}),
    v("v-num-gpu-blocks-override-zero", "--num-gpu-blocks-override 0 (meant as 'no override'), "
      "then six concurrent prompts", ["--num-gpu-blocks-override", "0"]),
    v("v-kv-bytes-just-one-seq", "--kv-cache-memory-bytes 300000 (about 290 tokens of the tiny "
      "model's 1 KiB per token: one sequence of the 256-token length), then eight concurrent "
      "~170-token prompts of 80 tokens each", ["--kv-cache-memory-bytes", "300000"],
      n=8, max_tokens=80),
    s("s-page-size-48-odd-pool", "--page-size 48 (not a power of two) with --max-total-tokens "
      "1000 (not a multiple of it), then six concurrent ~170-token prompts of 80 tokens",
      ["--page-size", "48", "--max-total-tokens", "1000"]),
    s("s-kv-cache-dtype-fp4", "--kv-cache-dtype fp4_e2m1 (a Blackwell GPU's FP4 KV cache) on "
      "the CPU build, then six concurrent prompts", ["--kv-cache-dtype", "fp4_e2m1",
                                                     "--max-total-tokens", "4096"]),
    s("s-hicache-storage-without-hicache", "--hicache-storage-backend file --hicache-size 1 "
      "without --enable-hierarchical-cache (the switch forgotten), then six concurrent prompts",
      ["--hicache-storage-backend", "file", "--hicache-size", "1",
       "--max-total-tokens", "4096"]),
    s("s-page-size-128-pool-8-pages", "--page-size 128 with --max-total-tokens 1024 (eight "
      "pages) under eight concurrent ~170-token prompts of 100 tokens (two pages each)",
      ["--page-size", "128", "--max-total-tokens", "1024"], n=8, max_tokens=100),
]
