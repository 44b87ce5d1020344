"""The hundred-and-tenth batch's scenarios (tests/fixtures/corpus/fresh109): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind110.py OUT

Themes: a GPU host's settings on a host without a GPU - what a person meets when a launch
command, environment or container set-up written for a GPU node runs on this 2-core CPU host.
The device named by a GPU job scheduler's variables (CUDA_VISIBLE_DEVICES as a GPU UUID or -1,
vLLM's --device-ids); attention backends named for GPUs (vLLM's FLASHINFER, SGLang's triton
and flashinfer); quantization methods that need GPU kernels on an unquantized model
(gptq_marlin for vLLM; online fp8 and awq_marlin for SGLang); CUDA-graph settings left in the
command (vLLM's cudagraph_mode FULL_AND_PIECEWISE with capture sizes, SGLang's
--cuda-graph-max-bs); expert-parallel settings of a MoE deployment on a dense model (vLLM's
--enable-expert-parallel with EPLB or a DeepEP all-to-all backend, SGLang's --moe-a2a-backend
deepep); a memory fraction tuned for an 80 GB card (--gpu-memory-utilization 0.95,
--mem-fraction-static 0.9); NCCL / TORCH_NCCL / PyTorch CUDA allocator and CUDA_LAUNCH_BLOCKING
variables from a multi-GPU job's environment; an LD_LIBRARY_PATH naming the CUDA folders of a
GPU image, which are not there.

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm),
except where the device is the fault; vLLM with VLLM_BASE's settings. A run that serves is
given two completions and ended. v-kv-bytes-70g (--kv-cache-memory-bytes 70G, a KV cache sized
for an 80 GB card) was added after the first vLLM runs, as one that gets further.

Recorded 2026-12-06 in five invocations (vLLM 5+5+1, SGLang 5+5), each scenario once; all 21
kept; about 11 minutes of recording (672 s). What the engines did: vLLM's CPU build ignores
CUDA_VISIBLE_DEVICES, --device-ids, the NCCL variables and a missing CUDA LD_LIBRARY_PATH, says
`Cannot use AttentionBackendEnum.FLASHINFER backend on CPU.` at info level and serves, and drops
cudagraph_mode to NONE silently; it refuses gptq_marlin (`Cannot find the config file`), EPLB
(`only supported on CUDA devices or ROCm devices or XPU devices`) and expert parallelism on a
dense model at config time; --gpu-memory-utilization 0.95 fails in the worker's constructor (host
memory below the share asked for) and --kv-cache-memory-bytes 70G once the worker sizes the KV
cache. SGLang with --device cuda dies in its scheduler (`Found no NVIDIA driver`); its triton
attention backend and online fp8 quantization get up to uvicorn and die on the warmup request
(Triton: `0 active drivers`); flashinfer dies building the backend after the KV cache
(`NameError: name 'BatchPrefillWithRaggedKVCacheWrapper' is not defined`, the package is absent);
awq_marlin is refused at load_model; --mem-fraction-static 0.9, --moe-a2a-backend deepep on a
dense model, the NCCL variables and the CUDA allocator variables all serve; --cuda-graph-max-bs is
now ambiguous (split into -decode and -prefill).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
)

V_READY = "Application startup complete"
S_READY = "The server is fired up and ready to roll"
SG = ["--device", "cpu", "--model-impl", "transformers"]
GPU_UUID = "GPU-6f1c3e2a-9b7d-4c55-a1e8-2d0f7b3c9e41"

NCCL_JOB_ENV = {   # what a multi-GPU job's launcher exports
    "NCCL_DEBUG": "INFO",
    "NCCL_IB_DISABLE": "0",
    "NCCL_IB_HCA": "mlx5_0,mlx5_1",
    "NCCL_SOCKET_IFNAME": "ib0",
    "NCCL_P2P_LEVEL": "NVL",
    "NCCL_NVLS_ENABLE": "1",
    "TORCH_NCCL_ASYNC_ERROR_HANDLING": "1",
    "TORCH_NCCL_BLOCKING_WAIT": "1",
}


def body(ctx: Ctx) -> str:
    """The run's output, without the header (which quotes the description)."""
    return ctx.text().split("\n\n", 1)[-1]


def until_end_or_serve(ready: str, timeout: float):
    """Wait for the run to end by itself; if it serves instead, two completions and a pause."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        end = time.monotonic() + timeout
        while time.monotonic() < end:
            if ready in body(ctx):
                time.sleep(2)
                ctx.complete(2, max_tokens=12)
                linger(ctx, 4)
                return
            if ctx.proc.poll() is not None:
                return
            time.sleep(0.5)
    return act


def v(name, what, args, env=None, timeout=110.0) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], env=env or {},
                    act=until_end_or_serve(V_READY, timeout))


def s(name, what, args, env=None, timeout=100.0, base=True) -> Scenario:
    return Scenario(name, "sglang", what, [*(SG if base else []), *args], env=env or {},
                    act=until_end_or_serve(S_READY, timeout))


SCENARIOS = [
    # --- vLLM ------------------------------------------------------------------------------------
    v("v-cuda-visible-uuid", "CUDA_VISIBLE_DEVICES set to one GPU's UUID, as a GPU node's job "
      "scheduler sets it, on a host with no GPU", [], env={"CUDA_VISIBLE_DEVICES": GPU_UUID}),
    v("v-device-ids-gpus", "--device-ids 0,1 (the physical GPUs a GPU node's launch script "
      "picks) on a host with no GPU", ["--device-ids", "0,1"]),
    v("v-attn-flashinfer", "--attention-backend FLASHINFER, a GPU attention backend, on the CPU "
      "build", ["--attention-backend", "FLASHINFER"]),
    v("v-quant-gptq-marlin", "--quantization gptq_marlin (GPU Marlin kernels) on an unquantized "
      "model", ["--quantization", "gptq_marlin"]),
    v("v-gpu-util-095", "--gpu-memory-utilization 0.95 (tuned for an 80 GB card) on the CPU "
      "build, where it is a share of host memory", ["--gpu-memory-utilization", "0.95"]),
    v("v-cudagraph-full", "--compilation-config with cudagraph_mode FULL_AND_PIECEWISE and "
      "capture sizes up to 256, from a GPU node's launch, on the CPU build",
      ["--compilation-config", json.dumps({"cudagraph_mode": "FULL_AND_PIECEWISE",
                                           "cudagraph_capture_sizes": [1, 2, 4, 8, 16, 32,
                                                                       64, 128, 256]})]),
    v("v-ep-eplb-dense", "--enable-expert-parallel --enable-eplb (a MoE deployment's flags) on a "
      "dense model", ["--enable-expert-parallel", "--enable-eplb"]),
    v("v-ep-deepep", "--enable-expert-parallel --all2all-backend deepep_low_latency (DeepEP, not "
      "installed) on a dense model, on the CPU build",
      ["--enable-expert-parallel", "--all2all-backend", "deepep_low_latency"]),
    v("v-nccl-job-env", "a multi-GPU job's NCCL_* and TORCH_NCCL_* variables (NCCL_SOCKET_IFNAME=ib0, "
      "NCCL_IB_HCA=mlx5_0,mlx5_1, blocking wait) left in the environment of a one-rank CPU run",
      [], env=NCCL_JOB_ENV),
    v("v-ld-library-path-cuda", "LD_LIBRARY_PATH naming a GPU image's CUDA folders "
      "(/usr/local/cuda/lib64, /usr/local/nvidia/lib64), which are not there", [],
      env={"LD_LIBRARY_PATH": "/usr/local/cuda/lib64:/usr/local/nvidia/lib64:"
                              "/usr/local/cuda/extras/CUPTI/lib64"}),
    v("v-kv-bytes-70g", "--kv-cache-memory-bytes 70G (a KV cache sized for an 80 GB card) on the "
      "CPU build, on a host with 23.6 GiB of memory", ["--kv-cache-memory-bytes", "70G"]),
    # --- SGLang ----------------------------------------------------------------------------------
    s("s-device-cuda-visible-minus1", "--device cuda (a GPU node's command) with "
      "CUDA_VISIBLE_DEVICES=-1 on a host with no GPU",
      ["--device", "cuda", "--model-impl", "transformers"], env={"CUDA_VISIBLE_DEVICES": "-1"},
      base=False),
    s("s-attn-triton", "--attention-backend triton (Triton GPU kernels) with --device cpu",
      ["--attention-backend", "triton"]),
    s("s-attn-flashinfer", "--attention-backend flashinfer with --device cpu",
      ["--attention-backend", "flashinfer"]),
    s("s-quant-fp8-online", "--quantization fp8 (online FP8, GPU kernels) on an unquantized "
      "model with --device cpu", ["--quantization", "fp8"]),
    s("s-quant-awq-marlin", "--quantization awq_marlin (GPU Marlin kernels) on an unquantized "
      "model with --device cpu", ["--quantization", "awq_marlin"]),
    s("s-mem-fraction-09", "--mem-fraction-static 0.9 (tuned for an 80 GB card) with --device cpu",
      ["--mem-fraction-static", "0.9"]),
    s("s-moe-a2a-deepep", "--moe-a2a-backend deepep (DeepEP, a MoE deployment's all-to-all) on a "
      "dense model with --device cpu", ["--moe-a2a-backend", "deepep"]),
    s("s-cuda-graph-max-bs", "--cuda-graph-max-bs 512 (a GPU node's CUDA-graph tuning) with "
      "--device cpu", ["--cuda-graph-max-bs", "512"]),
    s("s-nccl-job-env", "a multi-GPU job's NCCL_* and TORCH_NCCL_* variables (NCCL_SOCKET_IFNAME=ib0, "
      "NCCL_IB_HCA=mlx5_0,mlx5_1, blocking wait) left in the environment of a one-rank CPU run",
      [], env=NCCL_JOB_ENV),
    s("s-cuda-alloc-env", "PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True,max_split_size_mb:512, "
      "CUDA_LAUNCH_BLOCKING=1 and CUDA_DEVICE_MAX_CONNECTIONS=1 from a GPU image's environment, "
      "with --device cpu", [],
      env={"PYTORCH_CUDA_ALLOC_CONF": "expandable_segments:True,max_split_size_mb:512",
           "CUDA_LAUNCH_BLOCKING": "1", "CUDA_DEVICE_MAX_CONNECTIONS": "1"}),
]
