"""The hundred-and-sixty-fifth batch's scenarios (tests/fixtures/corpus/fresh164): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind165.py OUT

Themes: offloading weights and memory to the host - what a person meets squeezing a model into
too little accelerator memory, here on the CPU build where the host is the device. vLLM: the
native KV offloading tier (--kv-offloading-size 4), the same tier through the LMCache backend
(--kv-offloading-backend lmcache, not installed), the prefetch weight-offload backend
(--offload-backend prefetch with a group size) and a negative --cpu-offload-gb. SGLang: layer-wise
weight offloading (--offload-group-size 2 --offload-num-in-group 1), a hierarchical cache with
--hicache-ratio 0 (a host tier of no size) and one whose host tier (--hicache-size 4096, in GB) is
larger than the host.

Earlier batches already had (not repeated): vLLM --cpu-offload-gb 64 and 2 (72nd, 78th),
--swap-space (removed from this build, 83rd), VLLM_CPU_KVCACHE_SPACE=40 under a memory limit
(67th), -4 (74th) and "1" quoted (107th), VLLM_KVCACHE_SPACE misspelt (83rd), LMCache and NIXL
named through --kv-transfer-config (125th); SGLang --mem-fraction-static 0, 0.9, 1.5 and 80%
(73rd, 83rd, 110th, 78th, 107th), --max-total-tokens 16, 32, 300, 1024, 1200, 4096 (73rd, 104th,
155th, 139th, 115th), --enable-hierarchical-cache plainly, with --hicache-ratio 0.5, with a
mooncake backend and without the radix cache (125th, 90th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers.

Recorded 2026-12-07 in three invocations (raw1: the first table of eight, four vLLM and four
SGLang; raw2: v-kv-offloading-lmcache and raw3: s-offload-group-2, both added to the table while
raw1 waited its turns), taking turns with two other helpers' recorders; each scenario once. About
4m40s of recording (vLLM 48+26+8+34+13 s, SGLang 59+24+22+21+23 s). 7 kept (final files
er101-er107). Dropped, and removed from SCENARIOS: v-kvcache-space-over-host
(VLLM_CPU_KVCACHE_SPACE=64 on a 23 GiB host: after warm-up `ValueError: Available memory on node 0
(22.1/23.54 GiB) on kv cache allocation is less than requested memory for kv (64.0 GiB)` - the same
log as fresh66/ax114's 40 GiB, a repeat), s-cpu-offload-gb-4 (`'cpu_offload_gb': 4` in server_args,
then SGLang served four completions without a word of offloading: the fault never shows, as the 78th
batch found for vLLM's --cpu-offload-gb 2) and s-max-total-tokens-negative (--max-total-tokens -512:
after `Load weight end`, `RuntimeError: Not enough memory. Please try to increase
--mem-fraction-static.` through the same frames as fresh154/eh107's --max-total-tokens 32 under
--page-size 64, a repeat). A first s-hicache-ratio-1 was replaced by s-hicache-ratio-0 before
anything was recorded (a ratio of 1 leaves a host tier that fits, which dies as fresh124/dd106 did).

What the engines did: vLLM refuses a negative --cpu-offload-gb at launch (pydantic
`UVAOffloadConfig ... Input should be greater than or equal to 0`); the LMCache backend fails at
launch in VllmConfig's check of the connector class (`No module named 'lmcache'`), unlike the
125th's --kv-transfer-config, which failed only after the KV cache was sized; the native KV
offloading tier gets past KV-cache sizing and dies registering the caches with its
CPUOffloadingSpec (`Exception: CPU Offloading is currently only supported on CUDA-alike and XPU
GPUs`); the prefetch weight offloader dies as the model is built in load_model (`AssertionError:
Module parameters should not already be on CPU (offloader handles CPU placement)`). SGLang's
layer-wise offloader dies in load_model's post-load step with a bare `IndexError: list index out
of range` (no `Load weight end`); --hicache-ratio 0 is accepted as a one-token host tier with a
warning, and then the tier's pinning through CUDA fails (`Found no NVIDIA driver`); --hicache-size
4096 is refused against the host's free memory (`Not enough host memory available. Requesting
4096.00 GB but only have 9.38 GB free`). Both HiCache faults end in kv_cache_alloc, after the
device pool is allocated.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind165")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, three completions and a pause for a stats line."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(3, max_tokens=24)
        time.sleep(12)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then three completions); a short pause."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(3, max_tokens=24)
        linger(ctx, 10)


def v(name: str, what: str, args: list[str], **env: str) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], env=env, act=v_until)


def s(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=s_until)


SCENARIOS = [
    v("v-kv-offloading-native-4", "--kv-offloading-size 4 (GiB of host memory for vLLM's native "
      "KV offloading tier) on the CPU build", ["--kv-offloading-size", "4"]),
    v("v-offload-prefetch-group", "--offload-backend prefetch --offload-group-size 2 "
      "--offload-num-in-group 1 (prefetch weight offloading) on the CPU build",
      ["--offload-backend", "prefetch", "--offload-group-size", "2",
       "--offload-num-in-group", "1"]),
    v("v-cpu-offload-gb-negative", "--cpu-offload-gb -2 (a negative amount of weights to "
      "offload)", ["--cpu-offload-gb", "-2"]),
    v("v-kv-offloading-lmcache", "--kv-offloading-size 2 --kv-offloading-backend lmcache (KV "
      "offloading through LMCache, which is not installed)",
      ["--kv-offloading-size", "2", "--kv-offloading-backend", "lmcache"]),
    s("s-offload-group-2", "--offload-group-size 2 --offload-num-in-group 1 (layer-wise weight "
      "offloading to the host, one layer of each two) on the CPU build",
      ["--offload-group-size", "2", "--offload-num-in-group", "1"]),
    s("s-hicache-ratio-0", "--enable-hierarchical-cache --hicache-ratio 0 (a host tier of no "
      "size; --mem-fraction-static 0.1)",
      ["--enable-hierarchical-cache", "--hicache-ratio", "0", "--mem-fraction-static", "0.1"]),
    s("s-hicache-size-over-host", "--enable-hierarchical-cache --hicache-size 4096 (a host KV "
      "tier of 4 TB on a host of 23 GiB; device pool cut to --mem-fraction-static 0.1)",
      ["--enable-hierarchical-cache", "--hicache-size", "4096", "--mem-fraction-static", "0.1"]),
]
