"""The failure causes (DESIGN.md §4) as SGLang prints them, and how the process tree dies.

One table, ``CAUSES``: for each cause, who fails (a scheduler rank or the main process), how it
dies, and the exact lines. Wording is copied from the real logs in ``shared/sglang-logs`` and from
the SGLang / torch / NCCL / transformers / uvicorn sources quoted in ``sglang-facts.md``; a
classifier is tested against these lines, so change them only to make them *more* faithful.

Death modes:

- ``sigquit``     a scheduler logs ``Scheduler hit an exception: Traceback ...`` (or, for the
                  watchdog, its own lines) and SIGQUITs the main process, which logs
                  ``Received sigquit from a child process. ...``, SIGKILLs the tree and itself
                  (exit status -9).
- ``dead_rank``   a scheduler dies from a signal with no Python traceback (C++ ``terminate`` →
                  SIGABRT, SIGBUS, or SIGKILL from outside). Before ready the main process logs
                  ``Rank N scheduler is dead. ...`` / ``Exit code: -S`` and exits 1; after ready
                  it stays up as a zombie service whose ``/health`` fails.
- ``main_exit1``  the main process raises (import, config, bind) and exits 1.
- ``main_kill``   the main process logs the error and SIGKILLs its tree and itself (-9), like
                  ``Initialization failed. warmup error: ...``.
"""

from __future__ import annotations

import signal
import time
from collections.abc import Callable
from dataclasses import dataclass

SG = "/usr/local/lib/python3.12/dist-packages/sglang"
TORCH = "/usr/local/lib/python3.12/dist-packages/torch"
PY = "/usr/lib/python3.12"

CUDA_HINT = [
    "CUDA kernel errors might be asynchronously reported at some other API call, so the "
    "stacktrace below might be incorrect.",
    "For debugging consider passing CUDA_LAUNCH_BLOCKING=1",
    "Compile with `TORCH_USE_CUDA_DSA` to enable device-side assertions.",
    "",
]

# srt/model_executor/cuda_graph_runner.py (0.5.5)
CUDA_GRAPH_CAPTURE_FAILED_MSG = [
    "Possible solutions:",
    "1. set --mem-fraction-static to a smaller value (e.g., 0.8 or 0.7)",
    "2. set --cuda-graph-max-bs to a smaller value (e.g., 16)",
    "3. disable torch compile by not using --enable-torch-compile",
    "4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge performance loss)",
    "Open an issue on GitHub https://github.com/sgl-project/sglang/issues/new/choose ",
    "",
]

Frame = tuple[str, int, str, str]  # (file, line, function, source line or "")


@dataclass(frozen=True)
class Ctx:
    """What a cause's lines may mention."""

    rank: int = 0
    tp_size: int = 1
    prefix: str = ""
    host: str = "127.0.0.1"
    port: int = 30000
    model_path: str = "/models/emulated"
    mem_fraction_static: float = 0.88
    watchdog_timeout: int = 300
    pid: int = 0


@dataclass(frozen=True)
class Cause:
    name: str
    death: str                      # sigquit | dead_rank | main_exit1 | main_kill
    lines: Callable[[str, Ctx], list[str]]
    key: str                        # the line a classifier should key on (documentation)
    signal: int = 0                 # dead_rank: the signal the rank dies from
    phase: str | None = None        # fixed phase for main-process causes (given one ignored)
    all_ranks: bool = False         # every rank prints it (watchdog)


# --- traceback helpers ----------------------------------------------------------------------


def tb(frames: list[Frame]) -> list[str]:
    out = ["Traceback (most recent call last):"]
    for f, n, fn, src in frames:
        out.append(f'  File "{f}", line {n}, in {fn}')
        if src:
            out.append(f"    {src}")
    return out


def faulthandler_frames(frames: list[Frame]) -> list[str]:
    """faulthandler's format: most recent first, ``File "x", line N in func``."""
    return [f'  File "{f}", line {n} in {fn}' for f, n, fn, _ in reversed(frames)]


SCHED_INIT: list[Frame] = [
    (f"{SG}/srt/managers/scheduler.py", 2989, "run_scheduler_process",
     "scheduler = Scheduler("),
    (f"{SG}/srt/managers/scheduler.py", 344, "__init__", "self.init_model_worker()"),
    (f"{SG}/srt/managers/scheduler.py", 532, "init_model_worker",
     "self.tp_worker = TpModelWorker("),
    (f"{SG}/srt/managers/tp_worker.py", 237, "__init__", "self._model_runner = ModelRunner("),
    (f"{SG}/srt/model_executor/model_runner.py", 323, "__init__",
     "self.initialize(min_per_gpu_memory)"),
]

PHASE_FRAMES: dict[str, list[Frame]] = {
    "launch": SCHED_INIT + [
        (f"{SG}/srt/model_executor/model_runner.py", 377, "initialize",
         "min_per_gpu_memory = self.init_torch_distributed()"),
        (f"{SG}/srt/model_executor/model_runner.py", 745, "init_torch_distributed",
         "initialize_model_parallel("),
        (f"{SG}/srt/distributed/parallel_state.py", 1461, "initialize_model_parallel",
         "_TP = init_model_parallel_group("),
        (f"{SG}/srt/distributed/parallel_state.py", 1226, "init_model_parallel_group",
         "return GroupCoordinator("),
        (f"{SG}/srt/distributed/parallel_state.py", 298, "__init__",
         "self.pynccl_comm = PyNcclCommunicator("),
    ],
    "weight_loading": SCHED_INIT + [
        (f"{SG}/srt/model_executor/model_runner.py", 391, "initialize", "self.load_model()"),
        (f"{SG}/srt/model_executor/model_runner.py", 809, "load_model",
         "self.model = get_model("),
        (f"{SG}/srt/model_loader/__init__.py", 28, "get_model", "return loader.load_model("),
        (f"{SG}/srt/model_loader/loader.py", 594, "load_model",
         "self.load_weights_and_postprocess("),
        (f"{SG}/srt/model_loader/loader.py", 602, "load_weights_and_postprocess",
         "model.load_weights(weights)"),
        (f"{SG}/srt/models/qwen2.py", 628, "load_weights",
         "weight_loader(param, loaded_weight, shard_id)"),
        (f"{SG}/srt/layers/linear.py", 886, "weight_loader",
         "param_data.copy_(loaded_weight)"),
    ],
    "kv_cache_alloc": SCHED_INIT + [
        (f"{SG}/srt/model_executor/model_runner.py", 435, "initialize",
         "self.init_memory_pool("),
        (f"{SG}/srt/model_executor/model_runner.py", 1623, "init_memory_pool",
         "self.token_to_kv_pool = MHATokenToKVPool("),
        (f"{SG}/srt/mem_cache/memory_pool.py", 603, "__init__", "self._create_buffers()"),
        (f"{SG}/srt/mem_cache/memory_pool.py", 640, "_create_buffers",
         "torch.zeros("),
    ],
    "cuda_graph_capture": SCHED_INIT + [
        (f"{SG}/srt/model_executor/model_runner.py", 470, "initialize",
         "self.init_device_graphs()"),
        (f"{SG}/srt/model_executor/model_runner.py", 2050, "init_device_graphs",
         "self.graph_runner = graph_runners[self.device](self)"),
        (f"{SG}/srt/model_executor/cuda_graph_runner.py", 378, "__init__", "self.capture()"),
        (f"{SG}/srt/model_executor/cuda_graph_runner.py", 497, "capture",
         ") = self.capture_one_batch_size(bs, forward)"),
        (f"{SG}/srt/model_executor/cuda_graph_runner.py", 669, "capture_one_batch_size",
         "run_once()"),
        (f"{SG}/srt/model_executor/cuda_graph_runner.py", 656, "run_once",
         "logits_output_or_pp_proxy_tensors = forward("),
    ],
}
_SERVING: list[Frame] = [
    (f"{SG}/srt/managers/scheduler.py", 2999, "run_scheduler_process",
     "scheduler.event_loop_overlap()"),
    (f"{TORCH}/utils/_contextlib.py", 120, "decorate_context", "return func(*args, **kwargs)"),
    (f"{SG}/srt/managers/scheduler.py", 1004, "event_loop_overlap",
     "batch_result = self.run_batch(batch)"),
    (f"{SG}/srt/managers/scheduler.py", 1971, "run_batch",
     "batch_result = self.model_worker.forward_batch_generation("),
    (f"{SG}/srt/managers/tp_worker.py", 371, "forward_batch_generation",
     "logits_output, can_run_cuda_graph = self.model_runner.forward("),
    (f"{SG}/srt/model_executor/model_runner.py", 2164, "forward", "output = self._forward_raw("),
    (f"{SG}/srt/model_executor/model_runner.py", 2219, "_forward_raw",
     "ret = self.forward_extend("),
    (f"{SG}/srt/model_executor/model_runner.py", 2103, "forward_extend",
     "return self.model.forward("),
]
for _p in ("warmup", "ready", "serving"):
    PHASE_FRAMES[_p] = _SERVING

# Frames between "the model's forward" and a kernel, for errors raised by kernels.
_MODEL_FWD: list[Frame] = [
    (f"{TORCH}/utils/_contextlib.py", 120, "decorate_context", "return func(*args, **kwargs)"),
    (f"{SG}/srt/models/qwen2.py", 473, "forward",
     "hidden_states = self.model(input_ids, positions, forward_batch, input_embeds)"),
    (f"{TORCH}/nn/modules/module.py", 1773, "_wrapped_call_impl",
     "return self._call_impl(*args, **kwargs)"),
    (f"{TORCH}/nn/modules/module.py", 1784, "_call_impl", "return forward_call(*args, **kwargs)"),
    (f"{SG}/srt/models/qwen2.py", 355, "forward",
     "hidden_states, residual = layer("),
]


def _kernel_frames(phase: str, kernel: list[Frame]) -> list[Frame]:
    """The phase's frames, then (for phases that run the model) its forward, then the kernel's."""
    if phase in ("launch", "weight_loading", "kv_cache_alloc"):
        return PHASE_FRAMES[phase] + kernel[-2:]
    return PHASE_FRAMES[phase] + _MODEL_FWD + kernel


def scheduler_exception(ctx: Ctx, body: list[str]) -> list[str]:
    """``[ts TPn] Scheduler hit an exception: Traceback ...`` — the traceback follows unprefixed."""
    head = f"[{time.strftime('%Y-%m-%d %H:%M:%S')}{ctx.prefix}] Scheduler hit an exception: "
    return [head + body[0]] + body[1:]


def _raise(phase: str, frames: list[Frame], error: list[str], wrap: bool = True) -> list[str]:
    """A traceback ending in ``error``; in graph capture, chained into CudaGraphRunner's
    ``Exception: Capture cuda graph failed: ...`` like SGLang 0.5.5 does for RuntimeErrors."""
    inner = tb(frames) + error
    if phase != "cuda_graph_capture" or not wrap:
        return inner
    msg = error[0].split(": ", 1)[1] if ": " in error[0] else error[0]
    outer = tb(PHASE_FRAMES["cuda_graph_capture"][:-4] + [
        (f"{SG}/srt/model_executor/cuda_graph_runner.py", 380, "__init__", "raise Exception("),
    ])
    tail = error[1:] if error[-1:] != [""] else error[1:-1]
    return (inner + ["", "During handling of the above exception, another exception occurred:",
                     ""] + outer + [f"Exception: Capture cuda graph failed: {msg}"] + tail
            + CUDA_GRAPH_CAPTURE_FAILED_MSG)


# --- the causes -----------------------------------------------------------------------------


def _cuda_oom(phase: str, ctx: Ctx) -> list[str]:
    err = [
        f"torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.75 GiB. GPU {ctx.rank} "
        "has a total capacity of 79.19 GiB of which 1.38 GiB is free. Process 4130 has 77.80 GiB "
        "memory in use. Of the allocated memory 76.95 GiB is allocated by PyTorch, and 183.42 MiB "
        "is reserved by PyTorch but unallocated. If reserved but unallocated memory is large try "
        "setting PYTORCH_CUDA_ALLOC_CONF=expandable_segments:True to avoid fragmentation.  See "
        "documentation for Memory Management  "
        "(https://pytorch.org/docs/stable/notes/cuda.html#environment-variables)",
    ]
    kernel = [(f"{TORCH}/utils/_device.py", 104, "__torch_function__",
               "return func(*args, **kwargs)")]
    return scheduler_exception(ctx, _raise(phase, PHASE_FRAMES[phase] + kernel, err))


def _kv_cache_oom(phase: str, ctx: Ctx) -> list[str]:
    frames = SCHED_INIT + [
        (f"{SG}/srt/model_executor/model_runner.py", 435, "initialize",
         "self.init_memory_pool("),
        (f"{SG}/srt/model_executor/model_runner.py", 1547, "init_memory_pool",
         "raise RuntimeError("),
    ]
    err = ["RuntimeError: Not enough memory. Please try to increase --mem-fraction-static. "
           f"Current value: self.server_args.mem_fraction_static={ctx.mem_fraction_static}"]
    return scheduler_exception(ctx, tb(frames) + err)


def _nccl_error(phase: str, ctx: Ctx) -> list[str]:
    if phase == "launch":  # fixture 06: pynccl communicator init
        frames = PHASE_FRAMES["launch"] + [
            (f"{SG}/srt/distributed/device_communicators/pynccl.py", 108, "__init__",
             "self.comm: ncclComm_t = self.nccl.ncclCommInitRank("),
            (f"{SG}/srt/distributed/device_communicators/pynccl_wrapper.py", 350,
             "ncclCommInitRank", "self.NCCL_CHECK("),
            (f"{SG}/srt/distributed/device_communicators/pynccl_wrapper.py", 329, "NCCL_CHECK",
             'raise RuntimeError(f"NCCL error: {error_str}")'),
        ]
        err = ["RuntimeError: NCCL error: unhandled system error (run with NCCL_DEBUG=INFO for "
               "details)"]
        return scheduler_exception(ctx, tb(frames) + err)
    kernel = [
        (f"{SG}/srt/distributed/parallel_state.py", 540, "all_reduce",
         "torch.distributed.all_reduce(input_, group=self.device_group)"),
        (f"{TORCH}/distributed/c10d_logger.py", 81, "wrapper", "return func(*args, **kwargs)"),
        (f"{TORCH}/distributed/distributed_c10d.py", 2810, "all_reduce",
         "work = group.allreduce([tensor], opts)"),
    ]
    err = [
        "torch.distributed.DistBackendError: NCCL error in: "
        "/pytorch/torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:3356, unhandled system error "
        "(run with NCCL_DEBUG=INFO for details), NCCL version 2.27.3",
        "ncclSystemError: System call (e.g. socket, malloc) or external library call failed or "
        "device error. ",
        "Last error:",
        "Error while creating shared memory segment /dev/shm/nccl-vzIpS6 (size 9637888)",
    ]
    return scheduler_exception(ctx, _raise(phase, _kernel_frames(phase, kernel), err, False))


def _c10d_ts() -> str:
    now = time.time()
    return time.strftime("%m%d %H:%M:%S", time.localtime(now)) + f".{int(now % 1 * 1e9):09d}"


def _nccl_timeout(phase: str, ctx: Ctx) -> list[str]:
    r = ctx.rank
    work = ("WorkNCCL(SeqNum=1522789, OpType=_ALLGATHER_BASE, NumelIn=298960, "
            "NumelOut=4783360, Timeout(ms)=600000)")
    what = (f"[PG ID 2 PG GUID 3 Rank {r}] Process group watchdog thread terminated with "
            f"exception: [Rank {r}] Watchdog caught collective operation timeout: {work} ran for "
            "600003 milliseconds before timing out.")
    lib = f"{TORCH}/lib"
    frames = [
        "Exception raised from checkTimeout at "
        "../torch/csrc/distributed/c10d/ProcessGroupNCCL.cpp:618 (most recent call first):",
        "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x96 "
        f"(0x7f55772b9446 in {lib}/libc10.so)",
        "frame #1: c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::chrono::"
        "duration<long, std::ratio<1l, 1000l> > >) + 0x282 "
        f"(0x7effaa1ce772 in {lib}/libtorch_cuda.so)",
        "frame #2: c10d::ProcessGroupNCCL::watchdogHandler() + 0x233 "
        f"(0x7effaa1d3bb3 in {lib}/libtorch_cuda.so)",
        "frame #3: c10d::ProcessGroupNCCL::ncclCommWatchdog() + 0x14d "
        f"(0x7effaa1d561d in {lib}/libtorch_cuda.so)",
        f"frame #4: <unknown function> + 0x145c0 (0x7efff6e015c0 in {lib}/libtorch.so)",
        "frame #5: <unknown function> + 0x94ac3 (0x7f0099294ac3 in "
        "/usr/lib/x86_64-linux-gnu/libc.so.6)",
        "frame #6: <unknown function> + 0x126850 (0x7f0099326850 in "
        "/usr/lib/x86_64-linux-gnu/libc.so.6)",
        "",
    ]
    c = f"[rank{r}]:[E{_c10d_ts()} ProcessGroupNCCL.cpp"
    return [
        f"{c}:632] [Rank {r}] Watchdog caught collective operation timeout: {work} ran for "
        "600003 milliseconds before timing out.",
        f"{c}:2268] [PG ID 2 PG GUID 3 Rank {r}]  failure detected by watchdog at work sequence "
        "id: 1522789 PG status: last enqueued work: 1522790, last completed work: 1522788",
        f"{c}:670] Stack trace of the failed collective not found, potentially because "
        "FlightRecorder is disabled. You can enable it by setting TORCH_NCCL_TRACE_BUFFER_SIZE "
        "to a non-zero value.",
        f"{c}:684] [Rank {r}] Some NCCL operations have failed or timed out. Due to the "
        "asynchronous nature of CUDA kernels, subsequent GPU operations might run on "
        "corrupted/incomplete data.",
        f"{c}:698] [Rank {r}] To avoid data inconsistency, we are taking the entire process "
        "down.",
        f"{c}:1595] {what}",
        *frames,
        "terminate called after throwing an instance of 'c10::DistBackendError'",
        f"  what():  {what}",
        *frames,
    ]


def _cuda_error(message: str, kernel: list[Frame]):
    def render(phase: str, ctx: Ctx) -> list[str]:
        err = [f"RuntimeError: CUDA error: {message}"] + CUDA_HINT
        return scheduler_exception(ctx, _raise(phase, _kernel_frames(phase, kernel), err))
    return render


_ATTN_KERNEL: list[Frame] = [
    (f"{SG}/srt/layers/radix_attention.py", 108, "forward",
     "return forward_batch.attn_backend.forward("),
    (f"{SG}/srt/layers/attention/base_attn_backend.py", 89, "forward",
     "return self.forward_decode("),
    (f"{SG}/srt/layers/attention/flashinfer_backend.py", 826, "forward_decode",
     "o = decode_wrapper.forward("),
]
_RMSNORM_KERNEL: list[Frame] = [
    (f"{SG}/srt/layers/layernorm.py", 139, "forward_cuda",
     "out = rmsnorm(x, self.weight.data, self.variance_epsilon)"),
    ("/usr/local/lib/python3.12/dist-packages/sgl_kernel/elementwise.py", 48, "rmsnorm",
     "torch.ops.sgl_kernel.rmsnorm.default(out, input, weight, eps, enable_pdl)"),
    (f"{TORCH}/_ops.py", 841, "__call__", "return self._op(*args, **kwargs)"),
]
_CUSTOM_AR_KERNEL: list[Frame] = [
    (f"{SG}/srt/distributed/communication_op.py", 13, "tensor_model_parallel_all_reduce",
     "return get_tp_group().all_reduce(input_)"),
    (f"{SG}/srt/distributed/parallel_state.py", 509, "all_reduce",
     "outplace_all_reduce_method = \"ca\""),
    (f"{SG}/srt/distributed/parallel_state.py", 571, "_all_reduce_out_place",
     "out = ca_comm.custom_all_reduce(input_)"),
    (f"{SG}/srt/distributed/device_communicators/custom_all_reduce.py", 403,
     "custom_all_reduce", "return self.all_reduce(input, registered=True)"),
    (f"{SG}/srt/distributed/device_communicators/custom_all_reduce.py", 371, "all_reduce",
     "ops.all_reduce(self._ptr, inp, out, self.buffer_ptrs[self.rank], self.max_size)"),
    (f"{SG}/srt/_custom_ops.py", 71, "all_reduce",
     "torch.ops.sgl_kernel.all_reduce.default(fa, inp, out, reg_buffer, reg_buffer_sz_bytes)"),
    (f"{TORCH}/_ops.py", 841, "__call__", "return self._op(*args, **kwargs)"),
]


def _custom_allreduce(phase: str, ctx: Ctx) -> list[str]:
    pre = []
    if phase == "cuda_graph_capture":  # fixture 04: the custom all-reduce registration line
        pre = [f"[{time.strftime('%Y-%m-%d %H:%M:%S')}{ctx.prefix}] "
               "Registering 0 cuda graph addresses"]
    err = ["RuntimeError: CUDA error: peer access is not supported between these two devices"]
    return pre + scheduler_exception(
        ctx, _raise(phase, _kernel_frames(phase, _CUSTOM_AR_KERNEL), err + CUDA_HINT))


FLASHINFER_OP = ("batch_prefill_with_kv_cache_dtype_q_bf16_dtype_kv_bf16_dtype_o_bf16_dtype_idx_"
                 "i32_head_dim_qk_128_head_dim_vo_128_posenc_0_use_swa_False_use_logits_cap_"
                 "False_f16qk_False")


def _flashinfer(phase: str, ctx: Ctx) -> list[str]:
    now = time.strftime("%Y-%m-%d %H:%M:%S") + f",{int(time.time() % 1 * 1000):03d}"
    pre = [
        f"{now} - INFO - flashinfer.jit: Loading JIT ops: {FLASHINFER_OP}",
        "FAILED: batch_prefill.cuda.o ",
        "/root/.cache/flashinfer/generated/batch_prefill.cu:1:10: fatal error: cuda_fp8.h: No "
        "such file or directory",
        "compilation terminated.",
        "ninja: build stopped: subcommand failed.",
    ]
    first = tb([
        (f"{TORCH}/utils/cpp_extension.py", 2104, "_run_ninja_build", "subprocess.run("),
        (f"{PY}/subprocess.py", 571, "run", "raise CalledProcessError(retcode, process.args,"),
    ]) + ["subprocess.CalledProcessError: Command '['ninja', '-v']' returned non-zero exit "
          "status 1.", "", "The above exception was the direct cause of the following exception:",
          ""]
    kernel = _ATTN_KERNEL[:2] + [
        (f"{SG}/srt/layers/attention/flashinfer_backend.py", 412, "init_forward_metadata",
         "self.indices_updater_prefill.update("),
        ("/usr/local/lib/python3.12/dist-packages/flashinfer/prefill.py", 1520, "plan",
         "self._cached_module = get_batch_prefill_module("),
        ("/usr/local/lib/python3.12/dist-packages/flashinfer/jit/core.py", 123, "build",
         "run_ninja(jit_env.FLASHINFER_JIT_DIR, self.ninja_path, verbose)"),
        (f"{TORCH}/utils/cpp_extension.py", 2120, "_run_ninja_build",
         "raise RuntimeError(message) from e"),
    ]
    err = [f"RuntimeError: Error building extension '{FLASHINFER_OP}'"]
    body = _raise(phase, _kernel_frames(phase, kernel), err)
    return pre + scheduler_exception(ctx, first + body)


def _triton(phase: str, ctx: Ctx) -> list[str]:
    kernel = [
        (f"{SG}/srt/layers/attention/triton_backend.py", 780, "forward_extend",
         "self.extend_attention_fwd("),
        (f"{SG}/srt/layers/attention/triton_ops/extend_attention.py", 412,
         "extend_attention_fwd", "_fwd_kernel[grid]("),
        ("/usr/local/lib/python3.12/dist-packages/triton/runtime/jit.py", 390, "<lambda>",
         "return lambda *args, **kwargs: self.run(grid=grid, warmup=False, *args, **kwargs)"),
        ("/usr/local/lib/python3.12/dist-packages/triton/runtime/jit.py", 617, "run",
         "kernel._init_handles()"),
        ("/usr/local/lib/python3.12/dist-packages/triton/compiler/compiler.py", 470,
         "_init_handles", "raise OutOfResources(self.metadata.shared, max_shared, "
                          "\"shared memory\")"),
    ]
    err = ["triton.runtime.errors.OutOfResources: out of resource: shared memory, Required: "
           "106496, Hardware limit: 101376. Reducing block sizes or `num_stages` may help."]
    return scheduler_exception(ctx, _raise(phase, _kernel_frames(phase, kernel), err, False))


def _watchdog(phase: str, ctx: Ctx) -> list[str]:
    p = f"[{time.strftime('%Y-%m-%d %H:%M:%S')}{ctx.prefix}]"
    return [
        f"{p} self.cur_batch.batch_size()=1",
        "self.cur_batch.reqs=[Req(rid=7b3f0c2a9e6d4e55a1c4d2f0b8e9a713, input_ids=[151644, 872, "
        "198, 9707, 11, 1246, 525, 498, 30, 151645], output_ids=[40, 2776, 3730])]",
        "",
        f"{p} Watchdog timeout (self.watchdog_timeout={ctx.watchdog_timeout})",
    ]


def _bus_error(phase: str, ctx: Ctx) -> list[str]:
    site = "/usr/local/lib/python3.12/dist-packages"
    frames = PHASE_FRAMES["weight_loading" if phase in ("launch", "weight_loading") else phase]
    boot: list[Frame] = [
        ("<string>", 1, "<module>", ""),
        (f"{PY}/multiprocessing/spawn.py", 122, "spawn_main", ""),
        (f"{PY}/multiprocessing/spawn.py", 135, "_main", ""),
        (f"{PY}/multiprocessing/process.py", 314, "_bootstrap", ""),
        (f"{PY}/multiprocessing/process.py", 108, "run", ""),
    ]
    return [
        "Fatal Python error: Bus error",
        "",
        "Thread 0x00007767e37fe640 (most recent call first):",
        f'  File "{PY}/threading.py", line 359 in wait',
        f'  File "{site}/tqdm/_monitor.py", line 60 in run',
        f'  File "{PY}/threading.py", line 1075 in _bootstrap_inner',
        f'  File "{PY}/threading.py", line 1032 in _bootstrap',
        "",
        "Current thread 0x00007769465bb740 (most recent call first):",
        *faulthandler_frames(boot + frames),
        "",
        "Extension modules: numpy._core._multiarray_umath, torch._C, torch._C._dynamo.autograd_"
        "compiler, torch._C._dynamo.eval_frame, torch._C._fft, torch._C._linalg, "
        "torch._C._nested, torch._C._nn, torch._C._sparse, torch._C._special, psutil._psutil_"
        "linux, zmq.backend.cython._zmq, sentencepiece._sentencepiece (total: 190)",
    ]


def _multinode(phase: str, ctx: Ctx) -> list[str]:
    frames = SCHED_INIT + [
        (f"{SG}/srt/model_executor/model_runner.py", 391, "initialize", "self.load_model()"),
        (f"{SG}/srt/model_executor/model_runner.py", 870, "load_model", "raise ValueError("),
    ]
    err = [f"ValueError: TP rank {ctx.rank} could finish the model loading, but there are other "
           "ranks that didn't finish loading. It is likely due to unexpected failures (e.g., OOM) "
           "or a slow node."]
    return scheduler_exception(ctx, tb(frames) + err)


def _speculative(phase: str, ctx: Ctx) -> list[str]:
    eagle = f"{SG}/srt/speculative"
    if phase in ("warmup", "ready", "serving"):
        frames = PHASE_FRAMES[phase][:4] + [
            (f"{SG}/srt/managers/scheduler.py", 1960, "run_batch",
             "batch_result = self.draft_worker.forward_batch_generation(batch)"),
            (f"{eagle}/eagle_worker.py", 282, "forward_batch_generation",
             "logits_output, verify_output, model_worker_batch, can_run_cuda_graph = self.verify("),
            (f"{eagle}/eagle_worker.py", 729, "verify",
             "res: EagleVerifyOutput = spec_info.verify("),
            (f"{eagle}/eagle_info.py", 301, "verify",
             "predict_shape = list(logits_output.next_token_logits.shape)[:-1]"),
        ]
    else:
        frames = SCHED_INIT[:3] + [
            (f"{SG}/srt/managers/scheduler.py", 560, "init_model_worker",
             "self.draft_worker = DraftWorkerClass("),
            (f"{eagle}/eagle_worker.py", 147, "__init__", "self.init_cuda_graphs()"),
            (f"{eagle}/eagle_worker.py", 231, "init_cuda_graphs",
             "self.cuda_graph_runner = EAGLEDraftCudaGraphRunner(self)"),
            (f"{eagle}/eagle_draft_cuda_graph_runner.py", 121, "__init__", "self.capture()"),
            (f"{eagle}/eagle_draft_cuda_graph_runner.py", 206, "capture_one_batch_size",
             "out = run_once()"),
            (f"{eagle}/eagle_worker.py", 452, "draft_forward",
             "score_list, token_list, parents_list = self.select_top_k_tokens("),
        ]
    err = ["RuntimeError: The size of tensor a (32) must match the size of tensor b (8) at "
           "non-singleton dimension 1"]
    return scheduler_exception(ctx, tb(frames) + err)


def _unknown(phase: str, ctx: Ctx) -> list[str]:
    kernel = [(f"{SG}/srt/layers/logits_processor.py", 318, "forward",
               "hidden_states = hidden_states[last_index]")]
    err = ["AttributeError: 'NoneType' object has no attribute 'shape'"]
    return scheduler_exception(ctx, tb(_kernel_frames(phase, kernel)) + err)


def _import_error(phase: str, ctx: Ctx) -> list[str]:
    site = "/usr/local/lib/python3.12/dist-packages"
    frames: list[Frame] = [
        ("<frozen runpy>", 198, "_run_module_as_main", ""),
        ("<frozen runpy>", 88, "_run_code", ""),
        (f"{SG}/launch_server.py", 7, "<module>",
         "from sglang.srt.entrypoints.http_server import launch_server"),
        (f"{SG}/srt/entrypoints/http_server.py", 52, "<module>",
         "from sglang.srt.entrypoints.engine import _launch_subprocesses"),
        (f"{SG}/srt/entrypoints/engine.py", 63, "<module>",
         "from sglang.srt.managers.scheduler import run_scheduler_process"),
        (f"{SG}/srt/managers/scheduler.py", 40, "<module>",
         "from sglang.srt.layers.moe import initialize_moe_config"),
        (f"{site}/sgl_kernel/__init__.py", 5, "<module>",
         "common_ops = _load_architecture_specific_ops()"),
        (f"{site}/sgl_kernel/load_utils.py", 188, "_load_architecture_specific_ops",
         "raise ImportError(error_msg)"),
    ]
    return tb(frames) + [  # fixture 27
        "ImportError: ",
        "[sgl_kernel] CRITICAL: Could not load any common_ops library!",
        "Attempted locations:",
        f"1. Architecture-specific pattern: {site}/sgl_kernel/sm100/common_ops.* - found files: "
        f"['{site}/sgl_kernel/sm100/common_ops.abi3.so']",
        f"2. Fallback pattern: {site}/sgl_kernel/common_ops.* - found files: []",
        "3. Standard Python import: common_ops - failed",
        "GPU Info:",
        "- Compute capability: 86",
        "- Expected variant: SM86 (precise math for compatibility)",
        "Please ensure sgl_kernel is properly installed with:",
        "pip install --upgrade sgl_kernel",
        "Error details from previous import attempts:",
        f"- ImportError: {site}/sgl_kernel/sm100/common_ops.abi3.so: undefined symbol: "
        "_ZNK3c106SymInt6sym_neERKS0_",
        "- ModuleNotFoundError: No module named 'common_ops'",
    ]


def _model_not_found(phase: str, ctx: Ctx) -> list[str]:
    tf = "/usr/local/lib/python3.12/dist-packages/transformers"
    frames: list[Frame] = [
        ("<frozen runpy>", 198, "_run_module_as_main", ""),
        ("<frozen runpy>", 88, "_run_code", ""),
        (f"{SG}/launch_server.py", 11, "<module>",
         "server_args = prepare_server_args(sys.argv[1:])"),
        (f"{SG}/srt/server_args.py", 3840, "prepare_server_args",
         "return ServerArgs.from_cli_args(raw_args)"),
        (f"{SG}/srt/server_args.py", 3525, "from_cli_args",
         "return cls(**{attr: getattr(args, attr) for attr in attrs})"),
        ("<string>", 300, "__init__", ""),
        (f"{SG}/srt/server_args.py", 560, "__post_init__",
         "self._handle_model_specific_adjustments()"),
        (f"{SG}/srt/server_args.py", 1012, "_handle_model_specific_adjustments",
         "hf_config = self.get_hf_config()"),
        (f"{SG}/srt/server_args.py", 3620, "get_hf_config", "hf_config = get_config("),
        (f"{SG}/srt/utils/hf_transformers_utils.py", 196, "get_config",
         "config = AutoConfig.from_pretrained("),
        (f"{tf}/models/auto/configuration_auto.py", 1197, "from_pretrained",
         "config_dict, unused_kwargs = PretrainedConfig.get_config_dict("
         "pretrained_model_name_or_path, **kwargs)"),
        (f"{tf}/configuration_utils.py", 608, "get_config_dict",
         "config_dict, kwargs = cls._get_config_dict(pretrained_model_name_or_path, **kwargs)"),
        (f"{tf}/configuration_utils.py", 667, "_get_config_dict",
         "resolved_config_file = cached_file("),
        (f"{tf}/utils/hub.py", 312, "cached_file",
         "file = cached_files(path_or_repo_id=path_or_repo_id, filenames=[filename], **kwargs)"),
        (f"{tf}/utils/hub.py", 502, "cached_files", "raise OSError("),
    ]
    return tb(frames) + [
        f"OSError: {ctx.model_path} is not a local folder and is not a valid model identifier "
        "listed on 'https://huggingface.co/models'",
        "If this is a private repository, make sure to pass a token having permission to this "
        "repo either by logging in with `hf auth login` or by passing `token=<your_token>`",
    ]


def _port_in_use(phase: str, ctx: Ctx) -> list[str]:
    # uvicorn: logger.error(exc); sys.exit(1) — asyncio's create_server message.
    return [f"[Errno 98] error while attempting to bind on address ('{ctx.host}', {ctx.port}): "
            "address already in use"]


def _warmup_failed(phase: str, ctx: Ctx) -> list[str]:
    frames: list[Frame] = [
        (f"{SG}/srt/entrypoints/http_server.py", 1402, "_execute_server_warmup",
         'assert res.status_code == 200, f"{res}"'),
    ]
    body = tb(frames) + ["AssertionError: <Response [502]>"]
    head = f"[{time.strftime('%Y-%m-%d %H:%M:%S')}] Initialization failed. warmup error: "
    return [head + body[0]] + body[1:]


def _host_oom(phase: str, ctx: Ctx) -> list[str]:
    return []  # the kernel's OOM killer says nothing in our log


# --- bad launch arguments and a damaged checkpoint (causes added with the real-log corpus) ---


def _invalid_config(phase: str, ctx: Ctx) -> list[str]:
    # argparse prints its usage block and one error line, and exits before any model work
    return ["usage: launch_server.py [-h] --model-path MODEL_PATH [--tokenizer-path "
            "TOKENIZER_PATH] [--host HOST] [--port PORT]",
            "launch_server.py: error: unrecognized arguments: --enable-reasoning"]


def _corrupt_checkpoint(phase: str, ctx: Ctx) -> list[str]:
    # a truncated safetensors shard (interrupted download): the header cannot be read
    frames = PHASE_FRAMES["weight_loading"][:5] + [
        (f"{SG}/srt/model_loader/weight_utils.py", 520, "safetensors_weights_iterator",
         'with safe_open(st_file, framework="pt") as f:')]
    err = ["safetensors_rust.SafetensorError: Error while deserializing header: "
           "MetadataIncompleteBuffer"]
    return scheduler_exception(ctx, tb(frames) + err)


CAUSES: dict[str, Cause] = {c.name: c for c in [
    Cause("cuda_oom", "sigquit", _cuda_oom, "torch.OutOfMemoryError: CUDA out of memory."),
    Cause("kv_cache_oom", "sigquit", _kv_cache_oom,
          "RuntimeError: Not enough memory. Please try to increase --mem-fraction-static."),
    Cause("nccl_error", "sigquit", _nccl_error,
          "NCCL error ... unhandled system error (RuntimeError at launch, "
          "torch.distributed.DistBackendError later)"),
    Cause("nccl_timeout", "dead_rank", _nccl_timeout,
          "Watchdog caught collective operation timeout: WorkNCCL(...) + terminate called after "
          "throwing an instance of 'c10::DistBackendError'", signal=signal.SIGABRT),
    Cause("custom_allreduce_error", "sigquit", _custom_allreduce,
          "custom_all_reduce.py frames + RuntimeError: CUDA error: peer access is not supported "
          "between these two devices"),
    Cause("illegal_memory_access", "sigquit",
          _cuda_error("an illegal memory access was encountered", _ATTN_KERNEL),
          "RuntimeError: CUDA error: an illegal memory access was encountered"),
    Cause("unsupported_arch", "sigquit",
          _cuda_error("no kernel image is available for execution on the device",
                      _RMSNORM_KERNEL),
          "RuntimeError: CUDA error: no kernel image is available for execution on the device"),
    Cause("gpu_fault", "sigquit", _cuda_error("unspecified launch failure", _ATTN_KERNEL),
          "RuntimeError: CUDA error: unspecified launch failure"),
    Cause("flashinfer_error", "sigquit", _flashinfer,
          "flashinfer.jit + ninja CalledProcessError + RuntimeError: Error building extension"),
    Cause("triton_compile_error", "sigquit", _triton,
          "triton.runtime.errors.OutOfResources: out of resource: shared memory"),
    Cause("import_error", "main_exit1", _import_error,
          "ImportError: [sgl_kernel] CRITICAL: Could not load any common_ops library! / "
          "undefined symbol", phase="launch"),
    Cause("watchdog_timeout", "sigquit", _watchdog,
          "Watchdog timeout (self.watchdog_timeout=300)", all_ranks=True),
    Cause("bus_error", "dead_rank", _bus_error,
          "Fatal Python error: Bus error (+ faulthandler dump)", signal=signal.SIGBUS),
    Cause("multinode_rank_failure", "sigquit", _multinode,
          "ValueError: TP rank 1 could finish the model loading, but there are other ranks that "
          "didn't finish loading."),
    Cause("warmup_failed", "main_kill", _warmup_failed,
          "Initialization failed. warmup error: Traceback ...", phase="warmup"),
    Cause("speculative_decoding_error", "sigquit", _speculative,
          "eagle_worker.py / eagle_draft_cuda_graph_runner.py frames + RuntimeError: The size "
          "of tensor a (32) must match the size of tensor b (8)"),
    Cause("port_in_use", "main_exit1", _port_in_use,
          "ERROR:    [Errno 98] error while attempting to bind on address ('HOST', PORT): "
          "address already in use", phase="warmup"),
    Cause("model_not_found", "main_exit1", _model_not_found,
          "OSError: MODEL is not a local folder and is not a valid model identifier listed on "
          "'https://huggingface.co/models'", phase="launch"),
    Cause("host_oom_killed", "dead_rank", _host_oom,
          "(no traceback) Rank 0 scheduler is dead. Please check if there are relevant logs. / "
          "Exit code: -9", signal=signal.SIGKILL),
    Cause("invalid_config", "main_exit1", _invalid_config,
          "launch_server.py: error: unrecognized arguments: --enable-reasoning", phase="launch"),
    Cause("corrupt_checkpoint", "sigquit", _corrupt_checkpoint,
          "safetensors_rust.SafetensorError: Error while deserializing header: "
          "MetadataIncompleteBuffer", phase="weight_loading"),
    Cause("unknown", "sigquit", _unknown,
          "AttributeError: 'NoneType' object has no attribute 'shape'"),
]}

# Causes of DESIGN §4 that are produced by another fault kind, not by crash:<phase>:<cause>.
PRODUCED_ELSEWHERE = {
    "health_check_failed": "use the 'unhealthy' fault",
    "slow_weight_loading": "use 'slow:weight_loading:<seconds>'",
    "collective_hang": "use 'spin:<phase>' (ranks stuck in a collective, seen in their stacks)",
    "serving_stall": "use the 'stall' fault (requests accepted, no tokens)",
}


def crash_rank(cause: str, tp_size: int) -> int:
    """Which rank fails: TP1 for the multi-node loading barrier (fixture 10), else rank 0."""
    return 1 if cause == "multinode_rank_failure" and tp_size > 1 else 0


def rank_dead_lines(rank: int, exit_code: int) -> list[str]:
    """0.5.5 ``_launch_subprocesses`` when a scheduler's pipe gives EOF (fixture 09), then the
    EOFError that launch_server dies of (exit 1 after killing the children)."""
    now = time.strftime("%Y-%m-%d %H:%M:%S")
    conn = f"{PY}/multiprocessing/connection.py"
    return [
        f"[{now}] Rank {rank} scheduler is dead. Please check if there are relevant logs.",
        f"[{now}] Exit code: {exit_code}",
        *tb([
            ("<frozen runpy>", 198, "_run_module_as_main", ""),
            ("<frozen runpy>", 88, "_run_code", ""),
            (f"{SG}/launch_server.py", 14, "<module>", "launch_server(server_args)"),
            (f"{SG}/srt/entrypoints/http_server.py", 1247, "launch_server",
             "tokenizer_manager, template_manager, scheduler_info, port_args = "
             "_launch_subprocesses("),
            (f"{SG}/srt/entrypoints/engine.py", 906, "_launch_subprocesses",
             "data = scheduler_pipe_readers[i].recv()"),
            (conn, 250, "recv", "buf = self._recv_bytes()"),
            (conn, 430, "_recv_bytes", "buf = self._recv(4)"),
            (conn, 399, "_recv", "raise EOFError"),
        ]),
        "EOFError",
    ]
