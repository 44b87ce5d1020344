"""Cause families read from the fourth batch's misses and the engines' own source.

Each case is a fragment the way the engine (or the library under it) prints it: the raised
message under a frame or two, or the runtime's own error lines. Without the family's rule the
cause was `unknown` (or, for the guards, another cause); the guards check what must not match.
"""

from __future__ import annotations

import pytest
from classifier_lines import (
    CORE,
    SG,
    TORCH,
    VL,
    cause_of,
    check,
    frame_lines,
    tb,
    verdict,
    verdict_of,
)

from supervisor.diagnosis.classifier import classify_text
from supervisor.states import Cause, Outcome, Phase

# --- kv_cache_oom: SGLang 0.5.x pool sizing, worded per pool kind ----------------------------

SGLANG_INIT = (f"{SG}/managers/scheduler.py", "__init__", "self.tp_worker = TpModelWorker(")


@pytest.mark.parametrize("error", [
    # mem_cache/kv_cache_configurator.py: the weights took what the static fraction allows
    "ValueError: Loaded weights leave no GPU memory for the KV cache under "
    "--mem-fraction-static=0.88. Raise --mem-fraction-static above 0.912 (minimum viable = 1 - "
    "available/pre = 0.9113). If using speculative decoding, draft weights are now counted.",
    # model_executor/pool_configurator.py: a sliding-window pool cap leaving nothing for the rest
    "RuntimeError: SWA pool cap (65536 tokens, 3.10 GiB) leaves no room for the full KV pool "
    "within the available 2.75 GiB. Reduce --max-running-requests, lower "
    "SGLANG_SWA_EVICTION_INTERVAL, or increase --mem-fraction-static.",
    # hybrid (mamba / linear-attention) models' state cache
    "RuntimeError: Not enough GPU memory for hybrid (mamba/linear-attention) state cache. "
    "Computed max_mamba_cache_size=0 (total_rest_memory=0.42 GB, mamba_cache_per_req=61.00 "
    "MB). Try: (1) reduce --max-running-requests, (2) increase --mem-fraction-static",
    "RuntimeError: Hybrid (mamba/linear-attention) state cache is too small to serve any "
    "requests. max_mamba_cache_size=0, mamba_ratio=2, resulting max_num_reqs=0.",
])
def test_sglang_pool_sizing_is_kv_cache_oom(error):
    load = ("[2026-07-02 10:00:00 TP0] Load weight end. type=DeepseekV4ForCausalLM, "
            "dtype=torch.bfloat16, avail mem=12.25 GB, mem usage=125.65 GB.\n")
    text = load + tb(SGLANG_INIT, (f"{SG}/model_executor/model_runner.py", "init_memory_pool",
                                   "self.max_total_num_tokens = self.profile_max_num_token("),
                     error=error)
    assert cause_of(text, "sglang") is Cause.KV_CACHE_OOM
    assert cause_of(error + "\n", "sglang") is Cause.KV_CACHE_OOM


def test_unprefixed_allocator_oom_is_kv_cache_oom_while_serving():
    """alloc_token_slots' own wording has no Decode/Prefill prefix."""
    text = ("[2026-03-01 10:00:00 TP0] Out of memory. Try to lower your batch size.\n"
            "Try to allocate 8192 tokens.\n"
            "[2026-03-01 10:00:00 TP0] Scheduler hit an exception: Traceback (most recent call "
            "last):\n"
            f'  File "{SG}/mem_cache/allocation.py", line 170, in alloc_token_slots\n'
            "    raise RuntimeError(error_msg)\n"
            "RuntimeError: Out of memory. Try to lower your batch size.\n")
    v = classify_text(text, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING, Cause.KV_CACHE_OOM)


# --- gpu_fault: an Ascend NPU the CANN runtime cannot open -----------------------------------

ASCEND_INIT = (f"{VL}/v1/worker/worker_base.py", "init_device", "self.worker.init_device()")


@pytest.mark.parametrize("driver_lines", [
    ["rtGetDeviceCount execution failed, reason=driver error:internal error"
     "[FUNC:FuncErrorReason][FILE:error_message_manage.cc][LINE:65]",
     "get device count failed, runtime result = 507899.[FUNC:ReportCallError]"
     "[FILE:log_inner.cpp][LINE:148]"],
    ["drv devId is invalid, drv devId=0, retCode=0x7020010[FUNC:SetDefaultDeviceId]"
     "[FILE:api_error.cc][LINE:5458]"],
    ["Device not found or invalid.",
     "Init device error msg handler failed, retCode=0x7020012.[FUNC:GetDevErrMsg]"],
])
def test_cann_runtime_refusing_the_device_is_gpu_fault(driver_lines):
    """torch_npu's error, then the CANN runtime's own trace of the driver calls under it."""
    text = tb(ASCEND_INIT, prefix="(EngineCore pid=118) ", error="RuntimeError: "
              "InitializeDevice:torch_npu/csrc/core/npu/sys_ctrl/npu_sys_ctrl.cpp:217 NPU "
              "function error: c10_npu::SetDevice(device_id_), error code is 507899")
    text += "(EngineCore pid=118)         TraceBack (most recent call last):\n" + "".join(
        f"(EngineCore pid=118)         {line}\n" for line in driver_lines)
    assert cause_of(text, "vllm") is Cause.GPU_FAULT


# --- import_error: an optional library the feature needs is missing --------------------------

@pytest.mark.parametrize("frame,error", [
    ((f"{VL}/distributed/kv_transfer/kv_connector/v1/nixl/base_worker.py", "__init__",
      'raise RuntimeError("NIXL is not available")'), "RuntimeError: NIXL is not available"),
    ((f"{VL}/distributed/kv_transfer/kv_connector/v1/mooncake/mooncake_connector.py",
      "__init__", 'raise RuntimeError("Mooncake is not available")'),
     "RuntimeError: Mooncake is not available"),
    ((f"{VL}/utils/deep_gemm.py", "get_num_sms", 'raise RuntimeError("DeepGEMM is not '
      'available")'), "RuntimeError: DeepGEMM is not available"),
    ((f"{SG}/layers/quantization/petit.py", "__init__", "raise ValueError("),
     "ValueError: Petit is not installed. Please install it with `pip install petit-kernel`."),
    ((f"{SG}/disaggregation/mooncake/conn.py", "__init__", "raise ImportError("),
     "RuntimeError: Please install mooncake by following the instructions at "
     "https://kvcache-ai.github.io/Mooncake/getting_started/build.html"),
])
def test_optional_library_not_available_is_import_error(frame, error):
    text = tb(frame, error=error, prefix=CORE)
    assert cause_of(text, "vllm") is Cause.IMPORT_ERROR


def test_a_dependency_older_than_the_release_needs_is_import_error():
    # SGLang's assert_pkg_version at launch
    text = tb((f"{SG}/utils.py", "assert_pkg_version", "raise Exception("),
              error="Exception: flashinfer is installed with version 0.1.2+cu121torch2.4, which "
              "is less than the minimum required version 0.1.5. Please uninstall the old version "
              "and reinstall the latest version by following the instructions at "
              "https://docs.flashinfer.ai/installation.html.")
    assert cause_of(text, "sglang") is Cause.IMPORT_ERROR


def test_a_routers_field_validation_is_invalid_config():
    text = tb(("/app/lib/python3.12/site-packages/sglang_router/router.py", "start",
               "self._router.start()"),
              error="ValueError: Configuration error: Invalid value for field 'worker_url': "
              "http://10.99.91.39:30000,8998 - Invalid URL format: invalid port number")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG


@pytest.mark.parametrize("error", [
    "AssertionError: remote_block_size(4) not divisible by kernel_size(128)",
    "RuntimeError: Runtime check failed at csrc/gemm/marlin_moe/moe_wna16_marlin.cuh:963: size_k "
    "= 704, is not divisible by b_scales.size(1) = 5",
    "ValueError: placement group bundle index 4 is invalid. Valid placement group indexes: 0-4",
])
def test_a_size_or_index_the_settings_cannot_lay_out_is_invalid_config(error):
    assert cause_of(tb((f"{VL}/worker/worker.py", "load_model", "x()"), error=error),
                    "vllm") is Cause.INVALID_CONFIG


def test_a_data_parallel_engine_the_front_end_never_answered_is_a_rank_failure():
    text = tb((f"{VL}/v1/engine/core.py", "startup_handshake", "raise RuntimeError("),
              error="RuntimeError: Did not receive response from front-end process within 5 "
              "minutes")
    assert cause_of(text, "vllm") is Cause.MULTINODE_RANK_FAILURE


def test_an_assertion_of_tritons_compiler_aborting_is_triton_compile_error():
    v = classify_text("INFO:     Application startup complete.\n"
                      "python: /project/lib/Analysis/Allocation.cpp:40: std::pair<long unsigned "
                      "int, long unsigned int> getCvtOrder(): Assertion `!(srcMmaLayout && "
                      "dstMmaLayout)' failed.\n", engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.TRITON_COMPILE_ERROR)


def test_a_device_feature_not_available_is_not_import_error():
    """UVA (pinned host memory the GPU can address) is a platform feature, not a package."""
    text = tb((f"{VL}/v1/worker/gpu/buffer_utils.py", "__init__",
               'raise RuntimeError("UVA is not available")'),
              error="RuntimeError: UVA is not available", prefix=CORE)
    assert cause_of(text, "vllm") is not Cause.IMPORT_ERROR


# --- invalid_config: arguments and environment the engine refuses ----------------------------

@pytest.mark.parametrize("error", [
    # vllm.LLM forwards its kwargs to EngineArgs: a removed argument from an older wrapper
    "TypeError: EngineArgs.__init__() got an unexpected keyword argument 'worker_use_ray'",
    "TypeError: AsyncEngineArgs.__init__() got an unexpected keyword argument 'disable_log_"
    "requests'",
    # sgl.Engine forwards its kwargs to ServerArgs
    "TypeError: ServerArgs.__init__() got an unexpected keyword argument 'enable_mixed_chunk_x'",
])
def test_unexpected_engine_argument_is_invalid_config(error):
    text = tb((f"{VL}/entrypoints/llm.py", "__init__", "engine_args = EngineArgs("), error=error)
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH, Cause.INVALID_CONFIG)


def test_unexpected_argument_of_model_code_is_not_invalid_config():
    """A model's forward called with an argument it lacks is a version mismatch in code."""
    text = tb((f"{VL}/model_executor/models/llama.py", "forward", "x = layer(positions, x)"),
              error="TypeError: forward() got an unexpected keyword argument 'positions'")
    assert cause_of(text, "vllm") is not Cause.INVALID_CONFIG


@pytest.mark.parametrize("error", [
    # Ray's runtime_env validation, vLLM's Ray executor passing the caller's environment
    "AssertionError: The env var, __RAY_WORKER_PROCESS_SETUP_HOOK_ENV_VAR, is not permitted "
    "because it is reserved for the internal use.",
    # vLLM envs.py: a variable with fixed choices
    "ValueError: Invalid value 'FLASH' for VLLM_ATTENTION_BACKEND. Valid options: "
    "['FLASH_ATTN', 'FLASHINFER', 'TRITON_ATTN'].",
    # vLLM envs.py: Kubernetes' service variables (VLLM_PORT=tcp://...)
    "ValueError: VLLM_PORT 'tcp://10.96.12.7:8000' appears to be a URI. This may be caused by "
    "a Kubernetes service discovery issue,check the warning in: https://docs.vllm.ai/en/latest/"
    "configuration/env_vars.html",
])
def test_refused_environment_variable_is_invalid_config(error):
    text = CORE + error + "\nRuntimeError: Engine core initialization failed. See root cause " \
        "above. Failed core proc(s): {}\n"
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG)


@pytest.mark.parametrize("error", [
    "AssertionError: 3-read Mamba conv transfer requires DS conv state layout. Set "
    "VLLM_SSM_CONV_STATE_LAYOUT=DS",
    "ValueError: DeepEP low-latency mode does not support chunked prefill; please set "
    "--chunked-prefill-size -1",
    "NotImplementedError: FP8 KV cache with this attention backend is not implemented. Use "
    "--attention-backend triton",
    "AssertionError: To allow overriding this maximum, set the env var "
    "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
])
def test_a_check_naming_the_setting_to_change_is_invalid_config(error):
    text = tb((f"{VL}/distributed/kv_transfer/kv_connector/v1/nixl/worker.py", "__init__",
               "assert is_conv_state_dim_first(), ("), error=error, prefix=CORE)
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


# --- triton_compile_error: compiling, not running what was compiled --------------------------


# --- a traceback cut at the raise --------------------------------------------------------------

SCHED = "[2026-05-02 10:00:00 TP0] "
LOOP = [(f"{SG}/managers/scheduler.py", "event_loop_overlap",
         "batch = self.get_next_batch_to_run()"),
        (f"{SG}/managers/schedule_batch.py", "prepare_for_extend",
         "out_cache_loc, req_pool_indices_tensor, _ = alloc_for_extend(self)"),
        (f"{SG}/mem_cache/common.py", "alloc_for_extend",
         "out_cache_loc = alloc_paged_token_slots_extend(...)")]


def test_traceback_cut_at_the_token_allocators_raise_is_kv_cache_oom():
    """SGLang's token allocator raises only its out-of-memory message: a paste cut right at
    its frame, before the message, was that error."""
    text = SCHED + "Scheduler hit an exception: " + tb(
        *LOOP, (f"{SG}/mem_cache/common.py", "alloc_paged_token_slots_extend",
                "raise RuntimeError(error_msg)"))
    v = classify_text(text, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING, Cause.KV_CACHE_OOM)


# --- frames Dynamo was tracing name no cause -----------------------------------------------------

PIECEWISE = ("Piecewise CUDA Graph is enabled by default as an experimental feature.\n"
             "To work around this error, add --disable-piecewise-cuda-graph to your launch "
             "command.\n")
FLASHINFER_JIT = "/usr/local/lib/python3.12/dist-packages/flashinfer/jit/cpp_ext.py"


def test_flashinfer_code_dynamo_was_tracing_is_not_a_flashinfer_error():
    text = tb((FLASHINFER_JIT, "is_cuda_version_at_least",
               "return get_cuda_version() >= Version(version_str)"),
              (f"{TORCH}/_dynamo/polyfills/__init__.py", "getattr_and_trace",
               "return fn(*args[2:], **kwargs)"),
              (FLASHINFER_JIT, "get_cuda_version",
               'txt = subprocess.check_output([nvcc, "--version"], text=True)'),
              ("/usr/lib/python3.12/subprocess.py", "__init__",
               "self._waitpid_lock = threading.Lock()"))
    text += "\nSet TORCHDYNAMO_VERBOSE=1 for the internal stack trace.\n\n" + PIECEWISE
    assert cause_of(text, "sglang") is Cause.UNKNOWN


# --- SGLang's KV-pool guess needs the memory to have been short -------------------------------

def _cut_after_weights(avail: float, usage: float) -> str:
    return (f"[2025-10-12 21:14:09] Load weight end. type=GptOssForCausalLM, "
            f"dtype=torch.bfloat16, avail mem={avail:.2f} GB, mem usage={usage:.2f} GB.\n"
            "[2025-10-12 21:14:09] Scheduler hit an exception: "
            + tb((f"{SG}/managers/scheduler.py", "run_scheduler_process",
                  "scheduler = Scheduler("),
                 (f"{SG}/managers/scheduler.py", "__init__", "self.tp_worker = TpWorkerClass(")))


def test_a_death_after_weights_that_left_most_memory_free_is_not_guessed_kv_cache_oom():
    """Weights took 14.5 GB and 163 GB stayed free: the pool's sizing had room."""
    v = classify_text(_cut_after_weights(163.13, 14.53), engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC,
                                             Cause.UNKNOWN)


def test_a_death_after_weights_that_left_little_memory_is_still_guessed_kv_cache_oom():
    v = classify_text(_cut_after_weights(3.64, 18.82), engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC,
                                             Cause.KV_CACHE_OOM)


@pytest.mark.parametrize("call", ["self.init_memory_pools()", "self.init_memory_pool("])
def test_a_traceback_dated_to_the_kv_pool_by_its_frames_alone_is_not_guessed(call):
    """No marker says the weights were done (a CI log's traceback only): the frames date the
    pool's setup, and nothing says memory was short."""
    text = ("[2026-06-17 16:25:18] Scheduler hit an exception: "
            + tb((f"{SG}/managers/scheduler.py", "__init__", "self.init_model_worker()"),
                 (f"{SG}/managers/scheduler.py", "init_model_worker", call)))
    v = classify_text(text, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC,
                                             Cause.UNKNOWN)


# --- health_check_failed: vLLM V0's engine process not answering its health RPC ----------------

@pytest.mark.parametrize("client", ["entrypoints/openai/rpc/client.py",
                                    "engine/multiprocessing/client.py"])
def test_a_health_rpc_the_engine_never_answered_is_health_check_failed(client):
    pre = "ERROR 10-10 01:53:56 client.py:412] "
    text = ("INFO:     Shutting down\n"
            "INFO:     Waiting for connections to close. (CTRL+C to force quit)\n"
            f"{pre}TimeoutError(\"Server didn't reply within 5000 ms\")\n"
            + tb((f"{VL}/{client}", "generate", "await self.check_health(socket=socket)"),
                 (f"{VL}/{client}", "check_health", "await self._send_one_way_rpc_request("),
                 (f"{VL}/{client}", "_send_one_way_rpc_request",
                  "response = await do_rpc_call(socket, request)"), prefix=pre))
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING,
                                             Cause.HEALTH_CHECK_FAILED)


# --- watchdog_timeout: SGLang's soft watchdog, which only reports ------------------------------

SOFT = ("[2026-05-22 23:27:33 DP2 TP2 EP2] Scheduler watchdog timeout "
        "(self.watchdog_timeout=300, self.soft=True)")


def test_a_log_that_ends_after_the_soft_watchdog_stalled_there():
    """Startup in capture, then the soft watchdog's report and its py-spy stack: hung, not dead."""
    text = ("[2026-05-22 23:20:01 DP2 TP2 EP2] Capture cuda graph begin. This can take up to "
            "several minutes. avail mem=20.10 GB\n" + SOFT + "\n"
            "Thread 0x7f2e (active): \"MainThread\"\n"
            "    capture (cuda_graph_runner.py:867)\n")
    v = classify_text(text, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.INCOMPLETE, Phase.CUDA_GRAPH_CAPTURE,
                                             Cause.WATCHDOG_TIMEOUT)


# --- families from the fifth batch's misses ---------------------------------------------------

V0_METRICS = ("INFO 06-12 07:32:47 metrics.py:341] Avg prompt throughput: 812.0 tokens/s, Avg "
              "generation throughput: 95.1 tokens/s, Running: 30 reqs, Swapped: 0 reqs, Pending: "
              "0 reqs, GPU KV cache usage: 15.0%, CPU KV cache usage: 0.0%.\n")


# --- watchdog_timeout: the engines' own step watchdogs -----------------------------------------

def test_vllm_v0_engine_iteration_timeout_is_the_engine_watchdog():
    """AsyncLLMEngine's ENGINE_ITERATION_TIMEOUT_S fired on a step (vLLM 0.4-0.6)."""
    pre = "ERROR 06-12 07:32:53 async_llm_engine.py:45] "
    text = (V0_METRICS
            + "ERROR 06-12 07:32:53 async_llm_engine.py:524] Engine iteration timed out. This "
            "should never happen!\n" + pre + "Engine background task failed\n"
            + tb((f"{VL}/engine/async_llm_engine.py", "engine_step",
                  "request_outputs = await self.engine.step_async()"), prefix=pre))
    assert verdict_of(text, "vllm") == (Outcome.CRASHED, Phase.SERVING, Cause.WATCHDOG_TIMEOUT)


@pytest.mark.parametrize("method", ["execute_model", "sample_tokens"])
def test_vllm_v1_step_rpc_timeout_is_the_engine_watchdog(method):
    """V1's multiprocessing executor gave up on its workers' reply to a step
    (VLLM_EXECUTE_MODEL_TIMEOUT_SECONDS); a fragment with only that was serving."""
    text = (CORE + "EngineCore encountered a fatal error.\n"
            + tb((f"{VL}/v1/executor/multiproc_executor.py", "collective_rpc",
                  'raise TimeoutError(f"RPC call to {method} timed out.") from e'),
                 error=f"TimeoutError: RPC call to {method} timed out.", prefix=CORE))
    assert verdict_of(text, "vllm") == (Outcome.CRASHED, Phase.SERVING, Cause.WATCHDOG_TIMEOUT)


def test_sglang_hard_watchdog_with_a_float_timeout():
    """--watchdog-timeout is a float: set on the command line it prints `=600.0`."""
    text = ("[2025-03-01 10:00:00 TP0] Scheduler watchdog timeout "
            "(self.watchdog_timeout=600.0, self.soft=False)\n")
    assert verdict_of(text, "sglang") == (Outcome.CRASHED, Phase.SERVING,
                                          Cause.WATCHDOG_TIMEOUT)


# --- corrupt_checkpoint: a local checkpoint folder without config.json --------------------------

@pytest.mark.parametrize("where", [
    "/models/huggingface-cache/hub/models--org--Model-7B/snapshots/43bf1965176b15634df97107863d",
    "./checkpoints/qwen2-7b-sft",
    "~/models/llama-3-8b",
])
def test_a_local_folder_missing_config_json_is_an_incomplete_checkpoint(where):
    """transformers' cached_file on a local folder: the checkpoint lacks a file it must have."""
    text = tb(("/usr/local/lib/python3.10/dist-packages/transformers/utils/hub.py",
               "cached_file", "raise EnvironmentError("),
              error=f"OSError: {where} does not appear to have a file named config.json. "
                    f"Checkout 'https://huggingface.co/{where}/None' for available files.")
    assert cause_of(text, "vllm") is Cause.CORRUPT_CHECKPOINT


# --- kv_cache_oom: a KV cache sized to nothing, reported by its size ----------------------------

V0_INIT = ("INFO 04-27 10:11:03 llm_engine.py:70] Initializing an LLM engine with config: "
           "model='/models/Qwen-7B', tokenizer='/models/Qwen-7B', dtype=torch.float16\n")


@pytest.mark.parametrize("size", [
    "INFO 04-27 10:13:05 llm_engine.py:275] # GPU blocks: 0, # CPU blocks: 256",
    # 0.7+: the device's name
    "INFO 02-01 10:13:05 executor_base.py:110] # cuda blocks: 0, # CPU blocks: 4096",
    # V1's worker, before kv_cache_utils raises `No available memory for the cache blocks`
    "(EngineCore_DP0 pid=2211) INFO 03-02 10:11:12 [gpu_worker.py:760] Available KV cache "
    "memory: -1.25 GiB",
])
def test_an_empty_kv_cache_by_its_size_is_kv_cache_oom(size):
    """The paste is cut after the size line (a traceback begins, its message lost)."""
    text = (V0_INIT + size + "\n2024-04-27 10:13:05 | ERROR | stderr | Traceback (most recent "
            "call last):\n")
    assert verdict_of(text, "vllm") == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC,
                                        Cause.KV_CACHE_OOM)


def test_no_swap_space_is_not_an_empty_kv_cache():
    """Guard: `# CPU blocks: 0` is --swap-space 0, the GPU cache is there."""
    text = (V0_INIT + "INFO 04-27 10:13:05 llm_engine.py:275] # GPU blocks: 1478, # CPU "
            "blocks: 0\n" + tb((f"{VL}/worker/model_runner.py", "capture",
                                "self.model(input_ids)"),
                               error="RuntimeError: Something went wrong in the model"))
    assert cause_of(text, "vllm") is not Cause.KV_CACHE_OOM


# --- nccl_timeout: the NCCL watchdog's timeout seen in its C++ frames ---------------------------

def _cpp_frames(*functions: str) -> str:
    lines = ["frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x98 (0x7f4e in "
             f"{TORCH}/lib/libc10.so)"]
    lines += [f"frame #{k}: {fn} + 0x23d (0x7f4d in {TORCH}/lib/libtorch_cuda.so)"
              for k, fn in enumerate(functions, 1)]
    return "\n".join(lines) + "\n\nterminate called after throwing an instance of " \
        "'c10::DistBackendError'\n"


# --- multinode_rank_failure: a peer node's death as Ray and vLLM's Ray executor report it -------

@pytest.mark.parametrize("line", [
    "2025-05-20 20:35:20,741 WARNING worker.py:1829 -- The node with node id: 5ad7fa5dd64fc1fe "
    "and address: 10.0.0.12 and node name: 10.0.0.12 has been marked dead because the detector "
    "has missed too many heartbeats from it. This can happen when a (1) raylet crashes "
    "unexpectedly (OOM, preempted node, etc.)",
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task. "
    "The actor died because its node has died. Node Id: 5ad7fa5dd64fc1fe",
    "ray.exceptions.NodeDiedError: Task failed due to the node (where this task was running) "
    "dying. Node IP: 10.0.0.12",
    "(EngineCore pid=652) ERROR 05-20 20:35:26 [ray_executor_v2.py:464] RayWorkerProc "
    "rank=[2] died unexpectedly, shutting down executor.",
])
def test_a_peer_nodes_death_is_a_multinode_rank_failure(line):
    text = (V0_METRICS + line + "\n(EngineCore pid=652) ERROR 05-20 20:35:26 [core.py:1161] "
            "EngineCore encountered a fatal error.\n")
    assert cause_of(text, "vllm") is Cause.MULTINODE_RANK_FAILURE


# --- speculative_decoding_error: a draft frame that is only on the path -------------------------

SPEC_LOOP = (f"{SG}/managers/scheduler.py", "event_loop_normal", "result = self.run_batch(batch)")
RUN_BATCH = (f"{SG}/managers/scheduler.py", "run_batch",
             ") = self.draft_worker.forward_batch_speculative_generation(batch)")
ENTRY = (f"{SG}/speculative/eagle_worker.py", "forward_batch_speculative_generation",
         "spec_info = self.draft(batch)")


def test_a_traceback_cut_at_the_speculative_batch_entry_names_no_cause():
    """Every served batch passes the draft worker's entry once speculative decoding is on."""
    text = ("[2025-07-25 07:53:08 TP2] Scheduler hit an exception: "
            + tb(SPEC_LOOP, RUN_BATCH, ENTRY))
    assert verdict_of(text, "sglang") == (Outcome.CRASHED, Phase.SERVING, Cause.UNKNOWN)


# --- sixth batch: kinds of the misses (docs/classifier.md "Cause families from the sixth batch")

SG_PREFILL = ("[2025-07-02 03:22:34] Prefill batch. #new-seq: 2, #new-token: 32, #cached-token: "
              "0, token usage: 0.01, #running-req: 45, #queue-req: 81\n")


@pytest.mark.parametrize("error", [
    "Exception: Capture cuda graph failed: Internal Triton PTX codegen error: \n"
    "ptxas fatal   : Value 'sm_120' is not defined for option 'gpu-name'",
    "triton.runtime.errors.PTXASError: PTXAS error: Internal Triton PTX codegen error",
    "RuntimeError: `ptxas` raised SIGSEGV",
])
def test_ptxas_failing_under_triton_is_a_triton_compile_error(error):
    """Triton's NVIDIA backend (make_cubin) raising PTXASError, as SGLang's capture wraps it."""
    text = tb((f"{SG}/model_executor/model_runner.py", "init_cuda_graphs",
               "self.cuda_graph_runner = CudaGraphRunner(self)"),
              (f"{SG}/model_executor/cuda_graph_runner.py", "__init__", "raise Exception("),
              error=error)
    assert cause_of(text, "sglang") is Cause.TRITON_COMPILE_ERROR


@pytest.mark.parametrize("line", [
    "Memory access fault by GPU node-2 (Agent handle: 0xdedb180) on address 0x7f57d9a00000. "
    "Reason: Unknown.",
    "Memory access fault by GPU node-9 (Agent handle: 0x5d3e1a0) on address 0x7ee1c7e00000. "
    "Reason: Page not present or supervisor privilege.",
    ":0:rocdevice.cpp            :2982: 4415829843 us: [pid:4113  tid:0x7f2a36dfe640] Callback: "
    "Queue 0x7f1c0a600000 aborting with error : HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The "
    "agent attempted to access memory beyond the largest legal address. code: 0x29",
    "RuntimeError: HIP error: hipErrorIllegalAddress",
])
def test_rocm_memory_faults_are_an_illegal_memory_access(line):
    """ROCr aborts the process on a kernel's bad address: no engine traceback follows."""
    v = classify_text(SG_PREFILL + line + "\n", engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING,
                                             Cause.ILLEGAL_MEMORY_ACCESS)


HUB = "/root/.cache/huggingface/hub/models--org--m"


@pytest.mark.parametrize("error", [
    f"FileNotFoundError: [Errno 2] No such file or directory: '{HUB}/blobs/853ac1edd51009c46ce28e"
    "457a389ef69206b27e3b9734a43ae0644e766553ac.incomplete'",
    "_pickle.UnpicklingError: invalid load key, 'v'.",
])
def test_a_download_cut_short_is_a_corrupt_checkpoint(error):
    """huggingface_hub's partial `.incomplete` file left where the checkpoint is read; an LFS
    pointer pickle."""
    text = tb((f"{VL}/model_executor/model_loader/weight_utils.py", "download_weights_from_hf",
               "hf_folder = snapshot_download("), error=error)
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.WEIGHT_LOADING,
                                             Cause.CORRUPT_CHECKPOINT)


def test_a_transfer_failing_the_hubs_own_size_check_is_the_transfer() -> None:
    """A mirror declaring half the file's size (jj101, the 285th batch): huggingface_hub's check
    of the transfer it just made fails - the network's or the mirror's failure, unknown, as a
    transfer cut short is labelled (fy101, fy105); not the checkpoint."""
    error = ("OSError: Consistency check failed: file should be of size 4986322256 but has size "
             "1730150400 (model-00002-of-00004.safetensors).")
    text = tb((f"{VL}/model_executor/model_loader/weight_utils.py", "download_weights_from_hf",
               "hf_folder = snapshot_download("), error=error)
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.WEIGHT_LOADING, Cause.UNKNOWN)


VLLM_SHARDS = "Loading safetensors checkpoint shards:  29% Completed | 2/7 [00:05<00:14,  2.96s/it]\n"


@pytest.mark.parametrize("line", [
    "(Worker_DP0_TP0 pid=1387) WARNING 04-03 16:05:24 [multiproc_executor.py:866] WorkerProc "
    "was terminated",
    "(Worker_TP1 pid=1388) DEBUG 04-03 16:05:24 [multiproc_executor.py:876] WorkerProc handling "
    "signal 2, raising SystemExit",
])
def test_a_vllm_worker_stopped_by_a_signal_is_a_stop_not_a_failure(line):
    """vLLM V1's workers on Ctrl-C / SIGTERM while loading: stopped, no cause."""
    v = classify_text(VLLM_SHARDS + line + "\n" + VLLM_SHARDS, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.INCOMPLETE, Phase.WEIGHT_LOADING, None)


@pytest.mark.parametrize("line", [
    "[rank2]:[E1102 10:11:12.123456 ProcessGroupNCCL.cpp:1834] [PG ID 0 PG GUID 0(default_pg) "
    "Rank 2] Received a dump signal due to a collective timeout from rank 10 and we will try "
    "our best to dump the debug info. Last enqueued NCCL work: 166, last completed NCCL work: "
    "166.",
    "[rank1]:[E621 08:01:02.000 ProcessGroupNCCL.cpp:1316] [PG 0 Rank 1] Received a global "
    "timeout from another rank and will start to dump the debug info. Last enqueued NCCL work: "
    "5653, last completed NCCL work: 5652.",
    "terminate called after throwing an instance of 'c10::DistBackendError'\n  what():  "
    "ProcessGroupNCCL's watchdog detected a collective timeout and notified current rank. This "
    "is most likely caused by incorrect usages of collectives",
])
def test_a_collective_timeout_reported_by_another_rank_is_an_nccl_timeout(line):
    """torch's heartbeat monitor relaying a timeout detected on another rank."""
    assert cause_of(V0_METRICS + line + "\nSIGQUIT received. signum=None, frame=None.\n",
                    "vllm") is Cause.NCCL_TIMEOUT


@pytest.mark.parametrize("line", [
    "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task. "
    "The actor is dead because its node has died. Node Id: 56b97436e67393f15565e024278867700",
    "torch.distributed.elastic.rendezvous.api.RendezvousClosedError",
])
def test_other_reports_of_a_peers_death_are_a_multinode_rank_failure(line):
    """Ray's GCS death cause (`is dead because its node has died`); torch elastic's closed
    rendezvous."""
    assert cause_of(V0_METRICS + line + "\n", "vllm") is Cause.MULTINODE_RANK_FAILURE


def _shards(done: int, total: int, clock: str, left: str, per: str) -> str:
    pct = done * 100 // total
    return (f"Loading safetensors checkpoint shards: {pct:3d}% Completed | {done}/{total} "
            f"[{clock}<{left}, {per}s/it]\n")


def test_a_long_load_inside_the_weight_loading_budget_names_no_cause():
    """71 shards in 26 minutes, done (`Loading weights took 1582 s`), then the paste ends: no
    deadline was passed, nothing failed."""
    text = (_shards(62, 71, "23:32", "03:18", "22.05") + _shards(71, 71, "26:21", "00:00", "22.27")
            + "(VllmWorkerProcess pid=570) INFO 04-12 08:20:41 [loader.py:458] Loading weights "
              "took 1581.87 seconds\n")
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.INCOMPLETE, Phase.WEIGHT_LOADING,
                                             Cause.UNKNOWN)


def test_a_load_projected_past_the_weight_loading_budget_is_slow():
    """Guard: 163 shards projected at 69 minutes (past the default 3600 s budget)."""
    v = classify_text(_shards(120, 163, "50:50", "18:10", "25.4"), engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, Cause.SLOW_WEIGHT_LOADING)


# --- the seventh batch: other vendors' device faults, other collectives' timeouts -------------

SG_DECODE = ("[2026-04-15 04:32:22 TP0 EP0] Decode batch, #running-req: 1, #token: 12126, token "
             "usage: 0.00, cuda graph: True, gen throughput (token/s): 23.10, #queue-req: 0\n")


def test_rocm_hardware_exception_aborting_a_queue_is_gpu_fault():
    """ROCr's queue callback on a wave's hardware exception, then the abort (k303's kind)."""
    text = (SG_DECODE + "GPU core dump failed\n"
            ":0:rocdevice.cpp            :3586: 11398051401 us:  Callback: Queue 0x7f4307e00000 "
            "aborting with error : HSA_STATUS_ERROR_EXCEPTION: An HSAIL operation resulted in a "
            "hardware exception. code: 0x1016\n")
    v = classify_text(text, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING, Cause.GPU_FAULT)


def test_rocm_memory_violation_of_the_same_callback_stays_illegal_memory_access():
    """Guard: the callback naming a memory violation (or an illegal instruction) says what the
    kernel did: illegal_memory_access, above the generic hardware exception."""
    for status in ("HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLATION: The agent attempted to access "
                   "memory beyond the largest legal address. code: 0x29",
                   "HSA_STATUS_ERROR_ILLEGAL_INSTRUCTION: The agent attempted to execute an "
                   "illegal shader instruction. code: 0x2a"):
        text = (SG_DECODE + ":0:rocdevice.cpp            :2881: 1234 us: Callback: Queue "
                f"0x7f0 aborting with error : {status}\n")
        assert cause_of(text, "sglang") is Cause.ILLEGAL_MEMORY_ACCESS, status


@pytest.mark.parametrize("error", [
    "RuntimeError: hipStreamSynchronize(stream) failed: hipErrorLaunchFailure",
    "RuntimeError: HIP error: hipErrorECCNotCorrectable",
])
def test_hip_launch_and_ecc_failures_are_gpu_fault(error):
    text = tb((f"{SG}/managers/scheduler.py", "run_batch", "self.tp_worker.forward()"),
              error=error)
    assert cause_of(SG_DECODE + text, "sglang") is Cause.GPU_FAULT


def test_gaudi_device_critical_error_is_a_fatal_gpu_fault():
    """The vLLM Gaudi fork's processes on Synapse's device critical error: each card's process
    says it will be killed; nothing else follows."""
    text = V0_METRICS + "".join(
        f"Synapse detected a device critical error that requires a restart. Killing process in "
        f"5 seconds (hl: {n}) 10:29:11 [No progress error]\n" for n in (6, 4, 1))
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.GPU_FAULT)


ASCEND_WORKER = "(Worker pid=129286) (Worker_DP1_TP5_EP13 pid=129286) "


@pytest.mark.parametrize("lines", [
    # k204's kind: the event query of a PD worker after the FFTS+ task of a collective timed out
    ["[ERROR] 2026-03-25-16:51:12 (PID:129286, Device:5, RankID:-1) ERR00100 PTA call acl api "
     "failed",
     "[Error]: The execution of the internal task times out.",
     "EE9999: Inner Error!",
     "EE9999[PID: 129286] 2026-03-25-16:51:12.650.531 (EE9999):  rtEventQueryStatus execution "
     "failed, reason=fftsplus timeout[FUNC:FuncErrorReason][FILE:error_message_manage.cc]"],
    ["EE9999  fftsplus task execute failed, dev_id=7, stream_id=7, task_id=5990, context_id=6, "
     "thread_id=0, err_type=13[hccl fftsplus timeout][FUNC:GetError][FILE:stream.cc][LINE:1512]"],
    ["EI0002: [PID: 13075] 2025-06-25-10:45:23.586.187 The wait execution of the Notify register "
     "times out. Reason: The Notify register has not received the Notify record from remote "
     "rank: [unknown]."],
    ["[E ProcessGroupGloo.cpp:144] [../third_party/gloo/gloo/transport/tcp/unbound_buffer.cc:81] "
     "Timed out waiting 1800000ms for recv operation to complete"],
])
def test_other_collective_libraries_timeouts_are_nccl_timeout(lines):
    """Ascend HCCL's task timeouts (FFTS+, notify wait) and Gloo's: a collective hung past its
    timeout, and the worker dies of it."""
    text = V0_METRICS + "".join(ASCEND_WORKER + line + "\n" for line in lines)
    assert cause_of(text, "vllm") is Cause.NCCL_TIMEOUT


@pytest.mark.parametrize("assertion,cause", [
    ("/pytorch/aten/src/ATen/native/cuda/Indexing.cu:1500: indexSelectSmallIndex: block: "
     "[32,0,0], thread: [63,0,0] Assertion `srcIndex < srcSelectDimSize` failed.",
     Cause.ILLEGAL_MEMORY_ACCESS),
    ("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:92: operator(): block: [5,0,0], thread: "
     "[64,0,0] Assertion `-sizes[i] <= index && index < sizes[i] && \"index out of bounds\"` "
     "failed.", Cause.ILLEGAL_MEMORY_ACCESS),
    ("/pytorch/aten/src/ATen/native/cuda/MultinomialKernel.cu:112: binarySearchForMultinomial: "
     "block: [0,0,0], thread: [0,0,0] Assertion `cumdist[size - 1] > static_cast<scalar_t>(0)` "
     "failed.", Cause.UNKNOWN),
])
def test_only_a_kernel_assert_on_an_index_is_a_memory_fault(assertion, cause):
    """An index checked against its bound is a read past a buffer; a sampling kernel's check
    of its probabilities is not."""
    text = SG_DECODE + assertion + "\n" + tb(
        (f"{SG}/managers/scheduler.py", "run_batch", "self.tp_worker.forward()"),
        error="RuntimeError: CUDA error: device-side assert triggered")
    assert cause_of(text, "sglang") is cause


# --- one fragment each, its cause (the family it belongs to, or a guard) --------------------

@pytest.mark.parametrize(("text", "engine", "cause"), [
    # kv_cache_oom: SGLang 0.5.x pool sizing, worded per pool kind:
    # torch's allocator message ("Tried to allocate") is not the token allocator's.
    pytest.param(
        ("torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has "
            "a total capacity of 79.10 GiB of which 1.02 GiB is free.\n"),
        "sglang", Cause.CUDA_OOM, id="torch-cuda-oom-advice-stays-cuda-oom"),
    # gpu_fault: an Ascend NPU the CANN runtime cannot open:
    pytest.param(
        ("        Device[0] lost heartbeat.[FUNC:SyncTask][FILE:direct_hwts_engine.cc]"
            "[LINE:407]\n"
            "        rtDeviceSynchronizeWithTimeout execution failed, reason=lost heartbeat\n"
            "RuntimeError: ACL stream synchronize failed, error code:507010\n"),
        "vllm", Cause.GPU_FAULT, id="npu-lost-heartbeat-is-gpu-fault"),
    # import_error: an optional library the feature needs is missing:
    # Only the raised message counts: a fallback warning is not the error.
    pytest.param(
        ("WARNING 03-02 10:11:10 [utils.py:12] xformers is not installed; falling back to "
            "the torch SDPA backend.\n"
            + tb((f"{VL}/model_executor/models/foo.py", "forward", "x = self.proj(x)"),
              error="IndexError: index 7 is out of bounds for dimension 0 with size 4")),
        "vllm", Cause.UNKNOWN, id="a-warning-that-a-package-is-not-installed-names-nothing"),
    # invalid_config: arguments and environment the engine refuses:
    pytest.param(
        (tb((f"{VL}/v1/worker/gpu_worker.py", "init_device", "assert x"),
            error="AssertionError: Expert parallel needs DP > 1 here. Set "
            "VLLM_ALL2ALL_BACKEND=naive", prefix=CORE)
            + "(Worker_TP1 pid=2212) RuntimeError: NCCL error: remote process exited or there "
            "was a network error, NCCL version 2.21.5\n"),
        "vllm", Cause.INVALID_CONFIG, id="advice-check-beats-the-nccl-errors-of-the-other-ranks"),
    pytest.param(
        tb(ASCEND_INIT, error="ValueError: No available memory for the cache blocks. Try "
            "increasing `gpu_memory_utilization` when initializing the engine.", prefix=CORE),
        "vllm", Cause.KV_CACHE_OOM, id="advice-in-a-kv-sizing-error-stays-kv-cache-oom"),
    # triton_compile_error: compiling, not running what was compiled:
    # vLLM's torch.compile'd forward runs the inductor module; a CUTLASS GEMM fails in it.
    pytest.param(
        tb((f"{VL}/compilation/cuda_graph.py", "__call__", "return self.runnable(*args)"),
            (f"{TORCH}/_inductor/output_code.py", "__call__",
            "return self.current_callable(inputs)"),
            (f"{TORCH}/_inductor/utils.py", "run", "out = model(new_inputs)"),
            ("/root/.cache/vllm/torch_compile_cache/ce110fd036/rank_0_0/inductor_cache/jb/"
            "cjbjcwrc4y363.py", "call", "torch.ops._C.cutlass_scaled_mm.default(buf3, buf4)"),
            (f"{TORCH}/_ops.py", "__call__", "return self._op(*args, **kwargs)"),
            error="RuntimeError: Error Internal", prefix=CORE),
        "vllm", Cause.UNKNOWN, id="an-op-failing-inside-a-compiled-graph-is-not-a-compile-error"),
    pytest.param(
        tb((f"{TORCH}/_inductor/async_compile.py", "triton", "return future.result()"),
            (f"{TORCH}/_inductor/codecache.py", "result", "self.static_autotuner.precompile("),
            (f"{TORCH}/_inductor/runtime/triton_heuristics.py", "precompile",
            "self._precompile_worker()"), error="IndexError: map::at", prefix=CORE),
        "vllm", Cause.TRITON_COMPILE_ERROR,
        id="inductor-compiling-a-kernel-is-still-a-compile-error"),
    # a traceback cut at the raise:
    # An assertion in the radix cache's eviction, called by the allocator: not the OOM.
    pytest.param(
        SCHED + "Scheduler hit an exception: " + tb(
            *LOOP, (f"{SG}/mem_cache/allocation.py", "alloc_paged_token_slots_extend",
             "evict_from_tree_cache(tree_cache, num_tokens)"),
            (f"{SG}/mem_cache/radix_cache.py", "evict", "assert node.lock_ref == 0"),
            error="AssertionError"),
        "sglang", Cause.UNKNOWN, id="an-error-deeper-than-the-allocator-is-not-its-oom"),
    # frames Dynamo was tracing name no cause:
    pytest.param(
        tb((f"{SG}/layers/attention/flashinfer_backend.py", "forward_extend",
            "o = self.prefill_wrapper.forward(q, k, v)"),
            ("/usr/local/lib/python3.12/dist-packages/flashinfer/prefill.py", "run",
            "self._cached_module.paged_run(*args)"),
            error="RuntimeError: BatchPrefillWithPagedKVCache failed with error code 9"),
        "sglang", Cause.FLASHINFER_ERROR,
        id="flashinfer-code-that-ran-and-raised-is-still-a-flashinfer-error"),
    # health_check_failed: vLLM V0's engine process not answering its health RPC:
    pytest.param(
        tb((f"{VL}/engine/multiprocessing/client.py", "check_health",
            "await self._send_get_data_rpc_request("),
            error="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 1.00 GiB"),
        "vllm", Cause.CUDA_OOM, id="the-engines-own-error-beats-the-failed-health-rpc"),
    # watchdog_timeout: SGLang's soft watchdog, which only reports:
    pytest.param(
        SOFT + "\n" + tb((f"{SG}/managers/scheduler.py", "event_loop_normal",
                          "result = self.run_batch(batch)"),
                         error="RuntimeError: CUDA error: an illegal memory access was "
                         "encountered"),
        "sglang", Cause.ILLEGAL_MEMORY_ACCESS, id="a-root-error-after-a-soft-watchdog-wins"),
    # watchdog_timeout: the engines' own step watchdogs:
    pytest.param(
        (V0_METRICS + "ERROR 06-12 07:32:53 async_llm_engine.py:524] Engine iteration timed "
            "out. This should never happen!\n"
            "[rank1]:[E612 07:32:50.1 ProcessGroupNCCL.cpp:607] [Rank 1] Watchdog caught "
            "collective operation timeout: WorkNCCL(SeqNum=52001, OpType=ALLREDUCE) ran for "
            "600004 milliseconds before timing out.\n"),
        "vllm", Cause.NCCL_TIMEOUT, id="an-nccl-timeout-beats-the-engine-watchdog-it-caused"),
    # corrupt_checkpoint: a local checkpoint folder without config.json:
    # Guard: for a repository id the same message means a wrong (non-Transformers) repo.
    pytest.param(
        tb(("/usr/local/lib/python3.10/dist-packages/transformers/utils/hub.py",
            "cached_file", "raise EnvironmentError("),
            error="OSError: TheBloke/Llama-2-7B-GGUF does not appear to have a file named "
                 "config.json. Checkout 'https://huggingface.co/TheBloke/Llama-2-7B-GGUF/"
                 "tree/None' for available files."),
        "vllm", Cause.MODEL_NOT_FOUND,
        id="a-hub-repository-missing-config-json-is-a-model-not-found"),
    # nccl_timeout: the NCCL watchdog's timeout seen in its C++ frames:
    pytest.param(
        _cpp_frames("c10d::ProcessGroupNCCL::WorkNCCL::checkTimeout(std::optional<std::"
                    "chrono::duration<long, std::ratio<1l, 1000l> > >)",
                    "c10d::ProcessGroupNCCL::watchdogHandler()",
                    "c10d::ProcessGroupNCCL::ncclCommWatchdog()"),
        "vllm", Cause.NCCL_TIMEOUT, id="the-watchdogs-check-timeout-frame-is-an-nccl-timeout"),
    # Guard: the same watchdog raising a failed (not timed-out) collective.
    pytest.param(
        _cpp_frames("c10d::ProcessGroupNCCL::WorkNCCL::checkAndSetException()",
                    "c10d::ProcessGroupNCCL::watchdogHandler()"),
        "vllm", Cause.NCCL_ERROR, id="an-nccl-failure-caught-by-the-watchdog-stays-an-nccl-error"),
    # multinode_rank_failure: a peer node's death as Ray and vLLM's Ray executor report it:
    # Guard: vLLM's multiprocessing executor (one node) losing a worker names no cause.
    pytest.param(
        (V0_METRICS + "ERROR 11-08 11:01:29 [multiproc_executor.py:135] Worker proc "
            "VllmWorker-3 died unexpectedly, shutting down executor.\n"),
        "vllm", Cause.UNKNOWN, id="a-local-workers-death-is-not-a-peer-node"),
    pytest.param(
        ("(raylet) [2025-05-20 20:35:25] node_manager.cc:3040: 1 Workers (tasks / actors) "
            "killed due to memory pressure (OOM), 0 Workers crashed due to other reasons at node "
            "(ID: 5ad7, IP: 10.0.0.12) over the last time period.\n"
            "(EngineCore pid=652) ERROR 05-20 20:35:26 [ray_executor_v2.py:464] RayWorkerProc "
            "rank=[2] died unexpectedly, shutting down executor.\n"),
        "vllm", Cause.HOST_OOM_KILLED, id="the-root-error-of-a-dead-ray-worker-wins"),
    pytest.param(
        ("ray.exceptions.OutOfMemoryError: Task was killed due to the node running low on "
            "memory.\nMemory on the node (IP: 10.0.0.12, ID: 5ad7) where the task (actor ID: "
            "a1, name=RayWorkerWrapper.__init__, pid=4242, memory used=120.3GB) was running was "
            "240.1GB / 251.0GB (0.956), which exceeds the memory usage threshold of 0.95.\n"),
        "vllm", Cause.HOST_OOM_KILLED, id="rays-memory-monitor-is-the-host-oom-killer"),
    # speculative_decoding_error: a draft frame that is only on the path:
    # Guard: a frame of the draft's own work (the draft forward) still names it.
    pytest.param(
        ("[2025-07-25 07:53:08 TP2] Scheduler hit an exception: "
            + tb(SPEC_LOOP, RUN_BATCH, ENTRY,
              (f"{SG}/speculative/eagle_worker.py", "draft",
               "score_list, token_list, parents_list = self.draft_forward(forward_batch)"),
              error="RuntimeError: shape mismatch")),
        "sglang", Cause.SPECULATIVE_DECODING_ERROR,
        id="a-failure-inside-the-draft-step-is-still-speculative"),
    # sixth batch: kinds of the misses (docs/classifier.md "Cause families from the sixth batch"):
    # CANN's device error dump for an NPU kernel touching an invalid address.
    pytest.param(
        ("[rank3]:[W1031 21:35:04.838006795 compiler_depend.ts:57] Warning: EZ9999: Inner "
            "Error!\nEZ9999: [PID: 696742] 2025-10-31-21:35:03.992.057 The error from device"
            "(chipId:7, dieId:0), serial number is 2, there is an exception of aivec error, core "
            "id is 9, error code = 0\n        TraceBack (most recent call last):\n"
            "       The extend info: errcode:(0, 0x200000000000000, 0) errorStr: The MPU address "
            "access is invalid. fixp_error0 info: 0xa0bfbd5, subErrType:4.[FUNC:ProcessStarsCore"
            "ErrorInfo][FILE:device_error_core_proc.cc][LINE:322]\n"),
        "sglang", Cause.ILLEGAL_MEMORY_ACCESS,
        id="an-ascend-mpu-address-fault-is-an-illegal-memory-access"),
    # Guard: a missing file with no `.incomplete` stays the missing-model family.
    pytest.param(
        tb((f"{VL}/config.py", "__init__", "hf_config = get_config("),
            error="FileNotFoundError: [Errno 2] No such file or directory: "
                 "'/models/m/config.json'"),
        "vllm", Cause.MODEL_NOT_FOUND,
        id="a-missing-weight-file-of-a-repository-is-still-model-not-found"),
    # Guard: the executor SIGTERMs the survivors after one worker's failure.
    pytest.param(
        (VLLM_SHARDS + "(Worker_TP1 pid=1388) ERROR 04-03 16:05:23 [multiproc_executor.py:"
            "671] WorkerProc failed to start.\n"
            + tb((f"{VL}/v1/worker/gpu_worker.py", "load_model", "self.model_runner.load_model()"),
              error="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB",
              prefix="(Worker_TP1 pid=1388) ")
            + "(Worker_TP0 pid=1387) WARNING 04-03 16:05:24 [multiproc_executor.py:866] "
            "WorkerProc was terminated\n"),
        "vllm", Cause.CUDA_OOM,
        id="a-worker-that-failed-before-its-siblings-were-terminated-is-still-a-crash"),
    # `.../sglang/srt/speculative/eagle_info.py", line 781, in merge_batch`: a frame.
    pytest.param(
        ('.../sglang/python/sglang/srt/speculative/eagle_info.py", line 781, in merge_batch\n'
            "    self.hidden_states = torch.cat(\n                         ^^^^^^^^^^\n"
            "RuntimeError: Sizes of tensors must match except in dimension 0. Expected size 4096 "
            "but got size 2048 for tensor number 1 in the list.\n\n"
            "[2025-11-22 10:52:56] SIGQUIT received. signum=None, frame=None. It usually means "
            "one child failed.\n"),
        "sglang", Cause.SPECULATIVE_DECODING_ERROR,
        id="a-frame-whose-path-head-the-paste-elided-still-names-the-draft"),
    # the seventh batch: other vendors' device faults, other collectives' timeouts:
    pytest.param(
        tb((f"{VL}/worker/hpu_worker.py", "init_device", "torch.hpu.set_device(self.device)"),
            error="RuntimeError: synStatus=20 [Device already acquired] Device acquire failed."),
        "vllm", Cause.GPU_FAULT, id="gaudi-device-acquire-failed-is-gpu-fault"),
    pytest.param(
        tb((f"{VL}/worker/worker.py", "init_device", "torch.cuda.set_device(self.device)"),
            error="RuntimeError: HIP error: hipErrorNoBinaryForGpu: Unable to find code "
                 "object for all current devices!"),
        "vllm", Cause.UNSUPPORTED_ARCH, id="hip-missing-code-object-is-unsupported-arch"),
    # The sticky `device-side assert triggered` relayed by torch's NCCL watchdog (k308's kind):
    # some kernel's check failed, which says nothing of the memory.
    pytest.param(
        ("[2025-11-17 21:22:10 DP0 TP0] Decode batch, #running-req: 9, #token: 82048, token "
            "usage: 0.23, accept len: 2.00, cuda graph: True, gen throughput (token/s): 412.3, "
            "#queue-req: 0\n"
            "[rank3]:[E1117 21:22:11.441603074 ProcessGroupNCCL.cpp:2068] [PG ID 2 PG GUID 3 "
            "Rank 3] Process group watchdog thread terminated with exception: CUDA error: "
            "device-side assert triggered\n"),
        "sglang", Cause.UNKNOWN, id="a-bare-device-side-assert-names-no-cause"),
])
def test_a_fragment_names_its_cause(text, engine, cause):
    assert cause_of(text, engine) is cause


# --- after the eighth batch: the CUDA runtime's, other vendors' and the hub's error tables -----

V0_ENGINE = "ERROR 02-19 07:03:11 engine.py:389] "
INIT_DEVICE = (f"{VL}/v1/worker/gpu_worker.py", "init_device",
               "current_platform.set_device(self.device)")
TORCH_INIT = "Unexpected error from cudaGetDeviceCount(). Did you run some cuda functions " \
             "before calling NumCudaDevices() that might have already set an error? "


@pytest.mark.parametrize("error", [
    # torch's c10/cuda/CUDAFunctions.cpp wrapping cudaGetDeviceCount's failure; the cudaError
    # strings of 804 (forward-compat libraries on a GPU that cannot use them), 802 (no fabric
    # manager on an NVSwitch host), 803
    f"RuntimeError: {TORCH_INIT}Error 804: forward compatibility was attempted on non "
    "supported HW",
    f"RuntimeError: {TORCH_INIT}Error 802: system not yet initialized",
    f"RuntimeError: {TORCH_INIT}Error 803: system has unsupported display driver / cuda "
    "driver combination",
    # error 35 and torch's own check of the driver's version
    "RuntimeError: CUDA error: CUDA driver version is insufficient for CUDA runtime version",
    "RuntimeError: The NVIDIA driver on your system is too old (found version 11040). Please "
    "update your GPU driver by downloading and installing a new version from the URL: "
    "http://www.nvidia.com/Download/index.aspx",
    "RuntimeError: CUDA unknown error - this may be due to an incorrectly set up environment, "
    "e.g. changing env variable CUDA_VISIBLE_DEVICES after program start. Setting the available "
    "devices to be zero.",
    # NVML after a driver upgrade without a reload; HIP with no device
    "pynvml.NVMLError_DriverNotLoaded: Driver Not Loaded",
    "RuntimeError: Failed to initialize NVML: Driver/library version mismatch",
    "RuntimeError: HIP error: no ROCm-capable device is detected",
])
def test_a_cuda_runtime_that_cannot_start_on_the_driver_is_gpu_fault(error):
    assert cause_of(tb(INIT_DEVICE, error=error, prefix=CORE), "vllm") is Cause.GPU_FAULT


def test_no_driver_found_where_the_launch_asks_for_cuda_is_the_setting():
    """torch finding no NVIDIA driver at all: a container started without its GPUs, `--device
    cuda` on a host with none (co112, cz108: both labelled so) - a process given no GPU, as
    `No CUDA GPUs are available` is; not a driver that is there and failing."""
    error = ("RuntimeError: Found no NVIDIA driver on your system. Please check that you have an "
             "NVIDIA GPU and installed a driver from http://www.nvidia.com/Download/index.aspx")
    assert cause_of(tb(INIT_DEVICE, error=error, prefix=CORE), "vllm") is Cause.INVALID_CONFIG


def test_vllm_v0_engine_logging_error_804_alone_is_gpu_fault():
    """l314's kind: the MQ engine logs the message, then the traceback under it, no exception
    line of its own at the end of the paste."""
    text = (f"{V0_ENGINE}{TORCH_INIT}Error 804: forward compatibility was attempted on non "
            "supported HW\n" + tb((f"{VL}/engine/multiprocessing/engine.py", "run_mp_engine",
                                   "engine = MQLLMEngine.from_engine_args(engine_args=engine_args,"),
                                  prefix=V0_ENGINE))
    assert classify_text(text, engine="vllm").cause is Cause.GPU_FAULT


def test_an_uncorrectable_nvlink_error_is_gpu_fault():
    error = ("RuntimeError: CUDA error: uncorrectable NVLink error detected during the "
             "execution\nCUDA kernel errors might be asynchronously reported at some other API "
             "call, so the stacktrace below might be incorrect.")
    text = tb((f"{VL}/distributed/parallel_state.py", "all_reduce",
               "return self.device_communicator.all_reduce(input_)"), error=error, prefix=CORE)
    assert cause_of(text, "vllm") is Cause.GPU_FAULT


@pytest.mark.parametrize("error", [
    # torch_npu's caching allocator, Intel's XPU allocator, HIP's runtime error name
    "RuntimeError: NPU out of memory. Tried to allocate 22.00 MiB (NPU 0; 60.97 GiB total "
    "capacity; 10.24 GiB already allocated; 10.24 GiB current active; 19.52 MiB free; 10.65 GiB "
    "reserved in total by PyTorch) If reserved memory is >> allocated memory try setting "
    "max_split_size_mb to avoid fragmentation.",
    "RuntimeError: XPU out of memory. Tried to allocate 1.50 GiB (GPU 0; 15.56 GiB total "
    "capacity; 14.01 GiB already allocated; 14.20 GiB reserved in total by PyTorch)",
    "RuntimeError: HIP error: out of memory\nHIP kernel errors might be asynchronously reported "
    "at some other API call, so the stacktrace below might be incorrect.",
])
def test_other_vendors_allocator_oom_is_cuda_oom(error):
    text = tb((f"{VL}/model_executor/layers/linear.py", "create_weights",
               "weight = Parameter(torch.empty(output_size_per_partition,"), error=error,
              prefix=CORE)
    assert cause_of(text, "vllm") is Cause.CUDA_OOM


def test_cublas_arch_mismatch_is_unsupported_arch():
    error = ("RuntimeError: CUDA error: CUBLAS_STATUS_ARCH_MISMATCH when calling "
             "`cublasLtMatmul( ltHandle, computeDesc.descriptor(), &alpha_val, mat1_ptr, "
             "Adesc.descriptor(), mat2_ptr, Bdesc.descriptor(), &beta_val, result_ptr, "
             "Cdesc.descriptor(), result_ptr, Cdesc.descriptor(), &heuristicResult.algo, "
             "workspace.mutable_data_ptr(), workspaceSize, at::cuda::getCurrentCUDAStream())`")
    text = tb((f"{VL}/model_executor/layers/quantization/utils/w8a8_utils.py", "apply_fp8_linear",
               "output = torch._scaled_mm(qinput, weight,"), error=error, prefix=CORE)
    assert cause_of(text, "vllm") is Cause.UNSUPPORTED_ARCH


NPU_WORKER = "(VllmWorker rank=0 pid=48) ERROR 02-24 17:09:23 [multiproc_executor.py:546] "
NPU_ALLREDUCE = (f"{TORCH}/distributed/distributed_c10d.py", "all_reduce",
                 "work = group.allreduce([tensor], opts)")


@pytest.mark.parametrize("error,cause", [
    # torch_npu's HCCL_CHECK_ERROR and its op runner; HCCL's own link error
    ("RuntimeError: create:build/CMakeFiles/torch_npu.dir/compiler_depend.ts:89 HCCL function "
     "error: HcclCommInitRootInfo(numRanks, &rootInfo, rank, &(comm->hcclComm_)), error code is "
     "11", Cause.NCCL_ERROR),
    ("RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function "
     "error: HcclAllreduce, error code is 6\n[ERROR] 2025-04-08-18:07:20 (PID:1292363, Device:1, "
     "RankID:1) ERR01100 OPS call acl api failed.", Cause.NCCL_ERROR),
    ("RuntimeError: InnerRunOpApi:torch_npu/csrc/framework/OpParamMaker.cpp:281 OPS function "
     "error: HcclAllreduce, error code is 6\nEI0006: [PID: 1292363] 2025-04-08-18:07:20.444.436 "
     "Getting socket times out. Reason: Remote Rank did not send the data in time. Please check "
     "the reason for the rank being stuck", Cause.NCCL_TIMEOUT),
    ("RuntimeError: HCCL function error: HcclGetRootInfo(&hcclID), error code is 9\n"
     "EI0009: [PID: 2225827] 2025-09-24-20:59:48.119.066 Transport init error. Reason: "
     "[Create][DestLink]Create Dest error!", Cause.NCCL_ERROR),
])
def test_ascend_hccl_errors_are_the_collective_family(error, cause):
    assert cause_of(tb(NPU_ALLREDUCE, error=error, prefix=NPU_WORKER), "vllm") is cause


HUB_GET = ("/usr/local/lib/python3.12/dist-packages/huggingface_hub/utils/_http.py",
           "hf_raise_for_status", "raise _format(RevisionNotFoundError, message, response) from e")


@pytest.mark.parametrize("error", [
    "huggingface_hub.errors.RevisionNotFoundError: 404 Client Error. (Request ID: Root=1-6789) "
    "Revision Not Found for url: https://huggingface.co/api/models/org/m/revision/v2.0.",
    "huggingface_hub.errors.EntryNotFoundError: 404 Client Error. (Request ID: Root=1-6789) "
    "Entry Not Found for url: https://huggingface.co/org/m/resolve/main/params.json.",
])
def test_a_revision_or_file_the_hub_repository_lacks_is_model_not_found(error):
    assert cause_of(tb(HUB_GET, error=error), "vllm") is Cause.MODEL_NOT_FOUND


@pytest.mark.parametrize("error", [
    # transformers' resolve_trust_remote_code, today's and before 4.40
    "ValueError: The repository for org/m contains custom code which must be executed to "
    "correctly load the model. You can inspect the repository content at "
    "https://hf.co/org/m.\nPlease pass the argument `trust_remote_code=True` to allow custom "
    "code to be run.",
    "ValueError: Loading /models/m requires you to execute the configuration file in that repo "
    "on your local machine. Make sure you have read the code there to avoid malicious use, then "
    "set the option `trust_remote_code=True` to remove this error.",
])
def test_custom_model_code_without_trust_remote_code_is_invalid_config(error):
    frame = ("/usr/local/lib/python3.12/dist-packages/transformers/dynamic_module_utils.py",
             "resolve_trust_remote_code", "raise ValueError(")
    assert verdict_of(tb(frame, error=error), "vllm") == (
        Outcome.CRASHED, Phase.LAUNCH, Cause.INVALID_CONFIG)


def test_tensors_the_checkpoint_lacks_are_a_corrupt_checkpoint():
    error = ("ValueError: Following weights were not initialized from checkpoint: "
             "{'model.layers.31.mlp.down_proj.weight', 'lm_head.weight'}")
    text = tb((f"{VL}/model_executor/model_loader/default_loader.py", "load_weights",
               "raise ValueError("), error=error, prefix=CORE)
    assert verdict_of(text, "vllm") == (
        Outcome.CRASHED, Phase.WEIGHT_LOADING, Cause.CORRUPT_CHECKPOINT)


@pytest.mark.parametrize("error", [
    "RuntimeError: CUDA error: invalid device ordinal\nCUDA kernel errors might be "
    "asynchronously reported at some other API call, so the stacktrace below might be "
    "incorrect.",
    "RuntimeError: HIP error: invalid device ordinal",
])
def test_a_device_index_past_the_visible_gpus_is_invalid_config(error):
    """More ranks than CUDA_VISIBLE_DEVICES leaves: the worker's set_device is refused."""
    text = tb((f"{VL}/v1/worker/gpu_worker.py", "init_device", "torch.cuda.set_device(self.device)"),
              error=error, prefix="(VllmWorker rank=2 pid=311) ")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


VLLM_C_WARNING = ("WARNING 05-01 10:00:00 [__init__.py:26] Failed to import from vllm._C with "
                  "ImportError('/usr/local/lib/python3.12/dist-packages/vllm/_C.abi3.so: undefined "
                  "symbol: _ZN3c104cuda9SetDeviceEi')\n")


def test_vllm_warning_that_its_op_library_did_not_import_is_no_cause_by_itself():
    """vLLM runs on without its _C where the platform does not need it: a later failure of
    another kind is not an import error."""
    text = VLLM_C_WARNING + tb((f"{VL}/model_executor/models/llama.py", "forward",
                                "hidden_states = self.mlp(hidden_states)"),
                               error="RuntimeError: The size of tensor a (4096) must match the "
                                     "size of tensor b (2048) at non-singleton dimension 1",
                               prefix=CORE)
    assert cause_of(text, "vllm") is Cause.UNKNOWN


def test_an_op_the_op_library_never_registered_is_an_import_error():
    """The same warning, then the first custom op fails: the library did not load."""
    text = VLLM_C_WARNING + tb(
        (f"{VL}/model_executor/layers/layernorm.py", "forward_cuda", "ops.rms_norm(out, x, w, e)"),
        (f"{TORCH}/_ops.py", "__getattr__", "raise AttributeError("),
        error="AttributeError: '_OpNamespace' '_C' object has no attribute 'rms_norm'",
        prefix=CORE)
    assert cause_of(text, "vllm") is Cause.IMPORT_ERROR


def test_cuda_ipc_outside_the_custom_all_reduce_is_not_a_custom_allreduce_error():
    """torch shares CUDA tensors between processes by IPC handle (RL weight updates, vLLM's
    multimodal inputs); only the all-reduce's own file or frames name that cause."""
    text = tb((f"{TORCH}/multiprocessing/reductions.py", "rebuild_cuda_tensor",
               "storage = storage_cls._new_shared_cuda("),
              error="RuntimeError: CUDA error: invalid argument (cudaIpcOpenMemHandle failed "
                    "to open the IPC handle)", prefix=CORE)
    assert cause_of(text, "vllm") is Cause.UNKNOWN


GENERIC_CRASH = tb((f"{VL}/model_executor/models/llama.py", "forward",
                    "hidden_states = self.mlp(hidden_states)"),
                   error="RuntimeError: The size of tensor a (4096) must match the size of "
                         "tensor b (2048) at non-singleton dimension 1", prefix=CORE)


@pytest.mark.parametrize("line", [
    # vLLM's sampler turning FlashInfer off on an older GPU (v1/sample/ops/topk_topp_sampler.py)
    "WARNING 05-01 10:00:00 [topk_topp_sampler.py:130] FlashInfer top-p/top-k sampling "
    "unavailable: unsupported compute capability 7.5; falling back. Set "
    "VLLM_USE_FLASHINFER_SAMPLER=0 to silence.",
    # SGLang's GDN backend choosing Triton where its CuTe DSL kernel needs SM10x
    "[2026-01-01 10:00:00 TP0] CuTe DSL GDN prefill is not supported on this GPU (requires "
    "SM10x). Falling back to Triton for prefill.",
])
def test_a_feature_turned_off_for_this_gpu_is_not_unsupported_arch(line):
    """The engine ran on without the feature; a later failure of another kind is not the GPU's
    architecture."""
    assert cause_of(line + "\n" + GENERIC_CRASH, "vllm") is Cause.UNKNOWN


def test_a_model_architecture_a_config_rejects_is_not_a_gpu_architecture():
    text = tb((f"{SG}/configs/internvl.py", "__init__", "raise ValueError("),
              error="ValueError: Unsupported architecture: Qwen3NextForCausalLM")
    assert cause_of(text, "sglang") is not Cause.UNSUPPORTED_ARCH


def test_a_kernel_refusing_the_gpu_architecture_is_still_unsupported_arch():
    text = tb((f"{SG}/layers/attention/trtllm_mla_backend.py", "forward_decode",
               "raise RuntimeError("),
              error="RuntimeError: Error in function 'TllmGenFmhaRunner' at "
                    "/workspace/include/flashinfer/trtllm/fmha/fmhaRunner.cuh:30: Unsupported "
                    "architecture")
    assert cause_of(text, "sglang") is Cause.UNSUPPORTED_ARCH


SG_DECODE = ("[2025-09-13 09:09:15 TP0] Decode batch. #running-req: 4, #token: 9071, token usage: "
             "0.01, cuda graph: True, gen throughput (token/s): 120.5, #queue-req: 0\n")


def test_the_request_slot_pool_running_out_is_kv_cache_oom_while_serving():
    text = SG_DECODE + tb(
        (f"{SG}/managers/schedule_batch.py", "prepare_for_extend",
         "req_pool_indices = alloc_req_slots(self.req_to_token_pool, bs, self.reqs)"),
        (f"{SG}/mem_cache/allocation.py", "alloc_req_slots", "raise RuntimeError("),
        error="RuntimeError: alloc_req_slots runs out of memory. Please set a smaller number for "
              "`--max-running-requests`. self.req_to_token_pool.available_size()=1, num_reqs=2,",
        prefix="[2025-09-13 09:09:16 TP0] ")
    assert verdict_of(text, "sglang") == (Outcome.CRASHED, Phase.SERVING, Cause.KV_CACHE_OOM)


def test_flashinfer_workspace_too_small_is_a_flashinfer_error():
    text = SG_DECODE + "[2024-11-20 16:40:55 TP0] Scheduler hit an exception: " + tb(
        (f"{SG}/layers/attention/flashinfer_backend.py", "call_begin_forward",
         "wrapper.begin_forward("),
        error="RuntimeError: Failed to allocate memory for batch_prefill_tmp_v with size "
              "435814400 and alignment 16 in AlignedAllocator")
    assert cause_of(text, "sglang") is Cause.FLASHINFER_ERROR


@pytest.mark.parametrize("frame,error", [
    ((f"{VL}/config/parallel.py", "__post_init__", "raise ValueError("),
     "ValueError: World size (8) is larger than the number of available GPUs (4) in this node. "
     "If this is intentional and you are using:"),
    ((f"{VL}/v1/executor/ray_utils.py", "_wait_until_pg_ready", "raise ValueError("),
     "ValueError: Cannot provide a placement group requiring 8 GPUs (placement_group_specs=[{"
     "'GPU': 1.0, 'node:10.0.0.1': 0.001}]) within 1800 seconds."),
    ((f"{VL}/executor/ray_utils.py", "initialize_ray_cluster", "raise ValueError("),
     "ValueError: The number of required GPUs exceeds the total number of available GPUs in the "
     "placement group."),
    # zero devices visible: a Ray worker or a container given none, CUDA_VISIBLE_DEVICES empty
    ((f"{TORCH}/cuda/__init__.py", "_lazy_init", "torch._C._cuda_init()"),
     "RuntimeError: No CUDA GPUs are available"),
    ((f"{TORCH}/cuda/__init__.py", "_lazy_init", "raise RuntimeError("),
     "RuntimeError: Cannot re-initialize CUDA in forked subprocess. To use CUDA with "
     "multiprocessing, you must use the 'spawn' start method"),
])
def test_a_launch_asking_for_gpus_it_was_not_given_is_invalid_config(frame, error):
    """More GPUs than the node or the Ray cluster has; CUDA started before the fork. Also
    the exception line alone, without the configuration frame that dates it."""
    assert cause_of(tb(frame, error=error), "vllm") is Cause.INVALID_CONFIG
    assert cause_of(error + "\n", "vllm") is Cause.INVALID_CONFIG


def test_windows_address_in_use_is_port_in_use():
    error = ("OSError: [WinError 10048] Only one usage of each socket address (protocol/network "
             "address/port) is normally permitted")
    text = tb(("C:\\Python312\\Lib\\asyncio\\base_events.py", "create_server", "sock.bind(sa)"),
              error=error)
    assert cause_of(text, "vllm") is Cause.PORT_IN_USE


# --- watchdog_timeout: vLLM V0's engine-iteration timeout, raised with no message ----------

ASYNC = "/usr/lib/python3.11/asyncio"
ENGINE_LOOP = (f"{VL}/engine/async_llm_engine.py", "run_engine_loop",
               "has_requests_in_progress = await asyncio.wait_for(")
REQUEST = (f"{VL}/engine/async_llm_engine.py", "generate", "async for request_output in stream:")


@pytest.mark.parametrize("frames,error", [
    # 0.4.0: asyncio.wait_for around the step, nothing logged before the raise
    ((REQUEST, ENGINE_LOOP, (f"{ASYNC}/tasks.py", "wait_for",
                             "raise exceptions.TimeoutError() from exc")),
     "asyncio.exceptions.TimeoutError"),
    # 0.4.1-0.6 on Python 3.11: `async with asyncio_timeout(...)` is asyncio.timeout
    (((f"{VL}/engine/async_llm_engine.py", "run_engine_loop",
       "async with asyncio_timeout(ENGINE_ITERATION_TIMEOUT_S):"),
      (f"{ASYNC}/timeouts.py", "__aexit__", "raise TimeoutError from exc_val")),
     "TimeoutError"),
    # ... and on older Pythons vLLM's own copy of async_timeout
    (((f"{VL}/engine/async_llm_engine.py", "run_engine_loop",
       "async with asyncio_timeout(ENGINE_ITERATION_TIMEOUT_S):"),
      (f"{VL}/engine/async_timeout.py", "__aexit__", "self._do_exit(exc_type)"),
      (f"{VL}/engine/async_timeout.py", "_do_exit", "raise asyncio.TimeoutError")),
     "asyncio.exceptions.TimeoutError"),
])
def test_vllm_v0_engine_iteration_timing_out_is_watchdog_timeout(frames, error):
    check(tb(*frames, error=error), "vllm", Phase.SERVING, Cause.WATCHDOG_TIMEOUT)
    # the bare exception line says nothing alone: the loop's frame is shown beside it
    evidence = classify_text(tb(*frames, error=error), engine="vllm").evidence
    assert evidence[0].strip() == error
    assert "in run_engine_loop" in evidence[1]


@pytest.mark.parametrize("frames,error", [
    # a client's own wait_for timing out: no engine watchdog
    ((("/home/u/bench.py", "main", "await asyncio.wait_for(send(), 30)"),
      (f"{ASYNC}/tasks.py", "wait_for", "raise exceptions.TimeoutError() from exc")),
     "asyncio.exceptions.TimeoutError"),
    # raised deeper in the step, with its own message: that code's timeout, not the loop's
    ((ENGINE_LOOP, (f"{VL}/distributed/device_communicators/shm_broadcast.py",
                    "acquire_read", "raise TimeoutError")),
     "TimeoutError"),
])
def test_a_timeout_error_anywhere_else_is_no_engine_watchdog(frames, error):
    assert verdict_of(tb(*frames, error=error), "vllm")[2] is not Cause.WATCHDOG_TIMEOUT


# --- kv_cache_oom: KV slots refused to the cache layers above the pool ----------------------

@pytest.mark.parametrize("error", [
    "ValueError: Failed to allocate token prealloc indices",
    "RuntimeError: HiSparse spec decode failed to allocate logical KV slots.",
])
def test_kv_slots_a_cache_layer_could_not_allocate_are_kv_cache_oom_in_serving(error):
    text = tb((f"{SG}/managers/scheduler.py", "get_new_batch_prefill",
               "req.init_next_round_input(self.tree_cache)"),
              (f"{SG}/mem_cache/radix_cache.py", "match_prefix_lmcache",
               "raise ValueError(msg)"), error=error)
    check(text, "sglang", Phase.SERVING, Cause.KV_CACHE_OOM)


def test_other_allocations_that_failed_are_no_kv_pool_exhaustion():
    for error in ["RuntimeError: Failed to allocate memory for workspace buffer",
                  "RuntimeError: failed to allocate 2 GiB of pinned host memory"]:
        assert verdict_of(error + "\n", "sglang")[2] is not Cause.KV_CACHE_OOM


# --- model_not_found: a path or repository without a model config ---------------------------

@pytest.mark.parametrize("error", [
    "ValueError: No supported config format found in Qwen/Qwen1.5-0.5B.",
    "ValueError: No supported config format found in /models/default_model_path",
])
def test_a_model_path_without_any_config_is_model_not_found(error):
    text = tb((f"{VL}/transformers_utils/config.py", "get_config",
               'raise ValueError(f"No supported config format found in {model}.")'),
              error=error)
    check(text, "vllm", Phase.LAUNCH, Cause.MODEL_NOT_FOUND)


# --- speculative decoding frames: the module's or function's name, not the install path -----

@pytest.mark.parametrize("path, func, cause", [
    # a cluster file system named eagle (ALCF's /eagle) holding an ordinary install
    ("/eagle/proj/envs/v064/lib/python3.11/site-packages/vllm/_custom_ops.py",
     "advance_step_flashattn", Cause.UNKNOWN),
    (f"{VL}/model_executor/models/llama_eagle.py", "forward",
     Cause.SPECULATIVE_DECODING_ERROR),
    (f"{VL}/v1/spec_decode/eagle.py", "propose", Cause.SPECULATIVE_DECODING_ERROR),
    (f"{SG}/model_executor/model_runner.py", "init_eagle_buffers",
     Cause.SPECULATIVE_DECODING_ERROR),
])
def test_an_eagle_frame_is_its_code_not_its_install_path(path, func, cause):
    text = tb((path, func, "x = op(y)"), error="RuntimeError: expected a tensor of rank 2")
    assert verdict_of(text, "vllm")[2] is cause


# --- multinode_rank_failure: Gloo's monitored barrier naming the peer that never came -------

@pytest.mark.parametrize("line", [
    "[rank6]:[E421 04:13:43.457389636 ProcessGroupGloo.cpp:143] Rank 6 successfully reached "
    "monitoredBarrier, but received errors while waiting for send/recv from rank 0. Please "
    "check rank 0 logs for faulty rank.",
    "[rank0]:[E421 04:13:43.457389636 ProcessGroupGloo.cpp:187] Ranks 1, 3 failed to pass "
    "monitoredBarrier in 1800000 ms",
])
def test_a_peer_missing_sglang_load_barrier_is_a_rank_failure_after_weights(line):
    text = line + "\n" + "[2025-04-21 04:13:43 TP6] Scheduler hit an exception: " + tb(
        (f"{SG}/managers/scheduler.py", "run_scheduler_process", "scheduler = Scheduler("))
    check(text, "sglang", Phase.WEIGHT_LOADING, Cause.MULTINODE_RANK_FAILURE)



# --- the eleventh batch's families -------------------------------------------------------------

def test_rocblas_without_a_tensile_library_for_the_gpu_arch_is_a_fatal_unsupported_arch():
    # rocBLAS's Tensile host prints this, lists what it has, and aborts: no Python traceback
    lines = ["(EngineCore_DP0 pid=166) INFO 11-11 10:02:43 [backends.py:281] Compiling a graph "
             "for dynamic shape takes 35.06 s",
             "rocBLAS error: Cannot read /opt/rocm/lib/rocblas/library/TensileLibrary.dat: "
             "Illegal seek for GPU arch : gfx1150",
             " List of available TensileLibrary Files : ",
             '"/opt/rocm/lib/rocblas/library/TensileLibrary_lazy_gfx1100.dat"']
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.UNSUPPORTED_ARCH), v
    # guard: rocBLAS naming no arch (a path problem it survives) proves nothing alone
    v = verdict(lines[0], "rocBLAS warning: Cannot read a tuning file", engine="vllm")
    assert v.outcome is Outcome.INCOMPLETE


@pytest.mark.parametrize("error", [
    "ValueError: CPU backend only supports V1.",
    "NotImplementedError: XPU platform only supports V1",
])
def test_a_platform_that_only_supports_v1_is_invalid_config(error):
    text = tb((f"{VL}/platforms/cpu.py", "get_attn_backend_cls",
               'raise ValueError("CPU backend only supports V1.")'), error=error)
    check(text, "vllm", Phase.LAUNCH, Cause.INVALID_CONFIG)


@pytest.mark.parametrize("error", [
    "jax.errors.JaxRuntimeError: RESOURCE_EXHAUSTED: XLA:TPU compile permanent error. Ran out "
    "of memory in memory space vmem. Used 76.58M of 64.00M vmem.",
    "jaxlib.xla_extension.XlaRuntimeError: RESOURCE_EXHAUSTED: Error allocating device buffer: "
    "Attempting to allocate 2.00G. That was not possible. There are 1.10G free.",
])
def test_xla_out_of_device_memory_is_cuda_oom_and_tpu_precompile_is_capture(error):
    text = tb(("/root/tpu-inference/tpu_inference/runner/compilation_manager.py",
               "_run_compilation", "result = fn(*args, **call_kwargs)"),
              ("/root/tpu-inference/tpu_inference/runner/compilation_manager.py",
               "model_fn_wrapper", "kv_caches, hidden_states, *_ = self.runner.model_fn("),
              error=error, prefix="(EngineCore pid=106339) ERROR 06-03 07:41:11 [core.py:1184] ")
    check(text, "vllm", Phase.CUDA_GRAPH_CAPTURE, Cause.CUDA_OOM)


def test_ranks_in_different_collectives_is_a_peer_rank_out_of_step():
    text = tb((f"{SG}/model_executor/cuda_graph_runner.py", "capture_one_batch_size",
               "self.model_runner.tp_group.barrier()"),
              (f"{TORCH}/distributed/distributed_c10d.py", "barrier", "work = group.barrier()"),
              error="RuntimeError: Detected mismatch between collectives on ranks. Rank 11 is "
                    "running collective: CollectiveFingerPrint(SequenceNumber=17OpType=BARRIER), "
                    "but Rank 0 is running collective: CollectiveFingerPrint(SequenceNumber=45"
                    "OpType=BARRIER)")
    check(text, "sglang", Phase.CUDA_GRAPH_CAPTURE, Cause.MULTINODE_RANK_FAILURE)


# --- the twelfth batch's families --------------------------------------------------------------

@pytest.mark.parametrize("lines", [
    # the MLIRCompilationError's message (triton-ascend's compiler/errors.py), pasted from its
    # first delimiter (the exception's name above it is matched on its own)
    ["///------------------[ERROR][Triton][BEG]------------------",
     "[ConvertLinalgRToBinary] encounters error:",
     "bishengir-compile: for the --target option: Cannot find option named 'Ascend910B4-1'!",
     "///------------------[ERROR][Triton][END]------------------",
     "[2026-01-04 01:51:58] Received sigquit from a child process. It usually means the child "
     "failed."],
    # a paste that keeps only its tail, then the process killed
    ["0.Program arguments: /usr/local/Ascend/ascend-toolkit/latest/bin/bishengir-compile "
     "/tmp/tmp2xcu41uh/kernel.ttadapter.mlir --enable-hfusion-compile=true -o /tmp/x/kernel",
     "///------------------[ERROR][Triton][END]------------------", "", "Killed"],
])
def test_triton_ascend_compile_failure_is_a_triton_compile_error(lines):
    assert cause_of("\n".join(lines) + "\n", "sglang") is Cause.TRITON_COMPILE_ERROR


def test_a_2026_placement_group_of_fractional_gpus_is_invalid_config():
    text = tb((f"{VL}/v1/executor/ray_utils.py", "_wait_until_pg_ready",
               "raise ValueError("),
              error="ValueError: Cannot provide a placement group requiring 4.0 GPUs "
                    "(placement_group_specs=[{'GPU': 1.0}, {'GPU': 1.0}, {'GPU': 1.0}, {'GPU': "
                    "1.0}]) within 1800 seconds.", prefix=CORE)
    check(text, "vllm", Phase.LAUNCH, Cause.INVALID_CONFIG)


_PIPE = f"{VL}/distributed/kv_transfer/kv_pipe/mooncake_distributed_pipe.py"


def test_a_pickle_error_in_a_kv_transfer_receive_is_no_checkpoint():
    text = tb((f"{VL}/engine/multiprocessing/engine.py", "run_engine_loop",
               "request_outputs = self.engine_step()"),
              (_PIPE, "_recv_impl", "return pickle.loads(data)"),
              error="_pickle.UnpicklingError: invalid load key, 'H'.")
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING, Cause.UNKNOWN), v
    # guard: the same error out of the loader reading a checkpoint is one
    text = tb((f"{VL}/model_executor/model_loader/weight_utils.py", "pt_weights_iterator",
               "state = torch.load(bin_file, map_location='cpu')"),
              (f"{TORCH}/serialization.py", "_legacy_load",
               "magic_number = pickle_module.load(f, **pickle_load_args)"),
              error="_pickle.UnpicklingError: invalid load key, 'v'.")
    assert cause_of(text, "vllm") is Cause.CORRUPT_CHECKPOINT


@pytest.mark.parametrize("text", [
    # torch's error from a stream synchronize in SGLang's overlap worker
    tb((f"{SG}/managers/tp_worker_overlap_thread.py", "forward_batch_generation",
        "self.scheduler_stream.synchronize()"),
       error="RuntimeError: CUDA error: device-side assert triggered"),
    # flashinfer's own CUDA error report, then the overlap thread's traceback
    "CUDA Error: device-side assert triggered (710) /tmp/flashinfer/include/flashinfer/"
    "attention/decode.cuh: line 749 at function cudaFuncSetAttribute(kernel, smem_size)\n"
    + tb((f"{SG}/managers/tp_worker_overlap_thread.py", "forward_thread_func",
          "self.forward_thread_func_()"),
         error="RuntimeError: CUDA error: device-side assert triggered"),
    # torch's hint naming the error code (vLLM V1's engine core)
    CORE + "RuntimeError: CUDA error: device-side assert triggered\n" + CORE +
    "Search for `cudaErrorAssert' in https://docs.nvidia.com/cuda/cuda-runtime-api/"
    "group__CUDART__TYPES.html for more information.\n",
])
def test_a_device_side_assert_raised_by_the_call_is_a_kernel_fault(text):
    assert cause_of(text, "sglang" if "sglang" in text else "vllm") is \
        Cause.ILLEGAL_MEMORY_ACCESS


def test_a_device_side_assert_relayed_by_the_nccl_watchdog_names_no_cause():
    text = ("[rank3]:[E1117 21:22:11.441603074 ProcessGroupNCCL.cpp:2068] [PG ID 2 PG GUID 3 "
            "Rank 3] Process group watchdog thread terminated with exception: CUDA error: "
            "device-side assert triggered\n")
    assert cause_of(text, "sglang") is Cause.UNKNOWN


def test_index_asserts_then_a_traceback_through_the_draft_capture_are_the_drafts():
    asserts = ("/pytorch/aten/src/ATen/native/cuda/IndexKernel.cu:93: operator(): block: "
               "[0,0,0], thread: [127,0,0] Assertion `-sizes[i] <= index && index < sizes[i] "
               "&& \"index out of bounds\"` failed.\n")
    hit = "[2025-07-17 11:39:45] Scheduler hit an exception: "
    capture = hit + tb((f"{SG}/speculative/eagle_draft_cuda_graph_runner.py", "__init__",
                        "self.capture()"),
                       (f"{SG}/model_executor/cuda_graph_runner.py", "capture",
                        ") = self.capture_one_batch_size(bs, forward)"))
    assert cause_of(asserts + capture, "sglang") is Cause.SPECULATIVE_DECODING_ERROR
    # guard: the same asserts under the target model's own capture are a memory fault
    target = hit + tb((f"{SG}/model_executor/cuda_graph_runner.py", "capture",
                       ") = self.capture_one_batch_size(bs, forward)"))
    assert cause_of(asserts + target, "sglang") is Cause.ILLEGAL_MEMORY_ACCESS


def test_tpu_runtime_unable_to_reserve_hbm_for_a_program_is_cuda_oom():
    text = ("RuntimeError: Bad StatusOr access: RESOURCE_EXHAUSTED: Error loading program: "
            "Attempting to reserve 1.04G at the bottom of memory. That was not possible. There "
            "are 905.37M free, 0B reserved, and 905.37M reservable.\n")
    assert cause_of(text, "vllm") is Cause.CUDA_OOM


def test_a_ray_worker_actor_that_died_unexpectedly_is_a_rank_failure():
    text = tb(("/usr/local/lib/python3.12/dist-packages/ray/_private/worker.py", "get_objects",
               "raise value"),
              error="ray.exceptions.ActorDiedError: The actor died unexpectedly before "
                    "finishing this task.", prefix="ERROR 05-06 14:20:15 [core.py:387] ")
    assert cause_of(text, "vllm") is Cause.MULTINODE_RANK_FAILURE
    # guard: an actor whose constructor raised died of its own error, not named here
    text = tb(("/usr/local/lib/python3.12/dist-packages/ray/_private/worker.py", "get_objects",
               "raise value"),
              error="ray.exceptions.ActorDiedError: The actor died because of an error raised "
                    "in its creation task, ray::LLMRayActor.__init__()")
    assert cause_of(text, "vllm") is not Cause.MULTINODE_RANK_FAILURE


@pytest.mark.parametrize("error", [
    "NameError: name 'torch_npu' is not defined",
    "RuntimeError: Worker failed with error 'vllm.vllm_flash_attn requires the CUDA flash "
    "attention extensions (_vllm_fa2_C or _vllm_fa3_C). On ROCm, use upstream flash_attn.', "
    "please check the stack trace above for the root cause",
])
def test_a_binding_module_or_op_library_that_did_not_import_is_an_import_error(error):
    text = tb((f"{SG}/hardware_backend/npu/utils.py", "npu_format_cast",
               "tmp = torch_npu.npu_format_cast(tensor, acl_format.value)"), error=error)
    assert cause_of(text, "sglang") is Cause.IMPORT_ERROR
    # guard: another undefined name is a bug, not an import
    text = tb((f"{SG}/hardware_backend/npu/utils.py", "npu_format_cast", "tmp = fmt(tensor)"),
              error="NameError: name 'fmt' is not defined")
    assert cause_of(text, "sglang") is not Cause.IMPORT_ERROR


def test_an_npu_that_cannot_be_started_is_the_no_device_family():
    pre = "(Worker pid=3600530) ERROR 09-15 13:02:43 [multiproc_executor.py:870] "
    text = tb(("/vllm-workspace/vllm-ascend/vllm_ascend/worker/worker_v1.py", "_init_device",
               "torch.npu.set_device(self.device)"),
              error="RuntimeError: [Error]: Failed to start the device.", prefix=pre) + \
        pre + "E39999: Inner Error!\n" + pre + "E39999[PID: 3600530] TsdOpen failed. devId=9, " \
        "tdt error=1[FUNC:PrintfTsdError][FILE:runtime.cc][LINE:2638]\n"
    assert cause_of(text, "vllm") is Cause.GPU_FAULT


def test_a_death_report_above_the_traffic_that_dates_it_keeps_its_cause():
    pre = "(EngineCore_0 pid=96) "
    text = (pre + "ERROR 10-21 11:25:49 [core.py:702] EngineCore encountered a fatal error.\n"
            + tb((f"{VL}/v1/engine/core.py", "run_busy_loop", "self._process_engine_step()"),
                 error="RuntimeError: CUDA error: no kernel image is available for execution "
                       "on the device", prefix=pre)
            + '(APIServer pid=7) INFO:     192.168.50.13:46482 - "POST /v1/chat/completions '
              'HTTP/1.1" 200 OK\n')
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == \
        (Outcome.CRASHED, Phase.SERVING, Cause.UNSUPPORTED_ARCH), v


@pytest.mark.parametrize("line", [
    "2024-01-23T03:26:45.560602035-05:00 /usr/bin/python3: Error while finding module "
    "specification for 'vllm.entrypoints.openai.api_server' (ModuleNotFoundError: No module "
    "named 'vllm')",
    "python3: No module named sglang.launch_server",
])
def test_the_interpreter_unable_to_find_the_module_to_run_is_a_fatal_import_error(line):
    v = classify_text(line + "\n", engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH, Cause.IMPORT_ERROR), v


def test_a_v0_worker_that_died_before_the_monitor_kills_the_rest_is_no_stop():
    text = ("ERROR multiproc_worker_utils.run: Worker VllmWorkerProcess pid 8773 died, exit "
            "code: -15\n"
            "INFO multiproc_worker_utils.run: Killing local vLLM worker processes\n"
            + tb((f"{VL}/engine/llm_engine.py", "__init__",
                  "self.model_executor = executor_class(vllm_config=vllm_config, )"),
                 error="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 64.00 MiB."
                       " GPU 0 has a total capacity of 79.20 GiB of which 48.62 MiB is free.")
            + "Loading safetensors checkpoint shards:  13% Completed | 2/15 [00:01<00:11, "
              "1.12it/s]\n")
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == \
        (Outcome.CRASHED, Phase.WEIGHT_LOADING, Cause.CUDA_OOM), v
    # guard: the kill alone, at a shutdown with every worker exiting 0, is a stop
    v = classify_text("INFO multiproc_worker_utils.run: Killing local vLLM worker processes\n",
                      engine="vllm")
    assert v.outcome is not Outcome.CRASHED, v


def test_the_custom_all_reduces_own_cuda_check_names_its_failure():
    ima = "Failed: Cuda error /workspace/csrc/custom_all_reduce.cuh:1735 'an illegal memory " \
          "access was encountered'\n"
    died = "(EngineCore pid=684) ERROR 09-07 03:15:57 [multiproc_executor.py:284] Worker proc " \
           "VllmWorker-7 died unexpectedly, shutting down executor.\n"
    assert cause_of(ima * 2 + died, "vllm") is Cause.CUSTOM_ALLREDUCE_ERROR
    # guard: the same check in another kernel's file is the memory-fault family
    other = ima.replace("custom_all_reduce.cuh", "moe_align_kernel.cu")
    assert cause_of(other + died, "vllm") is Cause.ILLEGAL_MEMORY_ACCESS


def test_a_triton_kernel_launch_is_no_compilation():
    pre = "(Worker_PP1_TP0 pid=347) ERROR 02-26 09:43:17 [multiproc_executor.py:863] "
    driver = "/usr/local/lib/python3.12/dist-packages/triton/backends/nvidia/driver.py"
    text = tb((driver, "__call__", "self.launch(gridX, gridY, gridZ, stream, function)"),
              error="ValueError: Pointer argument (at 0) cannot be accessed from Triton (cpu "
                    "tensor?)", prefix=pre) + \
        "(EngineCore_DP0 pid=258) ERROR 02-26 09:43:17 [core.py:1079] EngineCore failed to " \
        "start.\n"
    assert cause_of(text, "vllm") is Cause.UNKNOWN
    # guard: triton's compiler stays a compilation
    text = tb(("/usr/local/lib/python3.12/dist-packages/triton/backends/nvidia/compiler.py",
               "make_cubin", "raise PTXASError(error)"),
              error="RuntimeError: Internal Triton PTX codegen error", prefix=pre)
    assert cause_of(text, "vllm") is Cause.TRITON_COMPILE_ERROR


def test_a_ray_job_that_failed_after_rays_oom_report_is_a_host_oom_kill():
    text = ("2025-03-24 14:49:45,286\tINFO cli.py:83 -- Status message: Job entrypoint command "
            "failed with exit code 1, last available logs (truncated to 20,000 chars):\n"
            "(ActorModelRayActor pid=8249) 8800\t1.18\tray::ReferenceModelRayActor\n"
            "(ActorModelRayActor pid=8249) Refer to the documentation on how to address the out "
            "of memory issue: https://docs.ray.io/en/latest/ray-core/scheduling/"
            "ray-oom-prevention.html. Consider provisioning more memory on this node.\n"
            "Episode [1/10000]:   7%|▋         | 11/147 [3:34:08<44:07:37, 1168.07s/it]\n")
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == \
        (Outcome.CRASHED, Phase.SERVING, Cause.HOST_OOM_KILLED), v
    # guard: a job that succeeded is no death
    ok = text.replace("Job entrypoint command failed with exit code 1",
                      "Job finished successfully")
    ok = ok.replace("Refer to the documentation on how to address the out of memory issue",
                    "See the documentation")
    assert classify_text(ok, engine="vllm").outcome is Outcome.READY


def test_xinference_leaving_a_model_launch_on_an_error_is_a_failed_launch():
    text = ("2026-02-02 18:12:48,883 xinference.core.supervisor 75 ERROR    [request b525ad24] "
            "Leave launch_builtin_model, error: [address=0.0.0.0:44522, pid=257] Error cannot be "
            "pickled, error type: <class 'pydantic_core._pydantic_core.ValidationError'>, raw "
            "error:\n"
            "1 validation error for ModelConfig\n"
            "  Value error, The checkpoint you are trying to load has model type `qwen3_vl` but "
            "Transformers does not recognize this architecture.\n")
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH, Cause.INVALID_CONFIG), v
    # guard: leaving the call without an error is no failure
    ok = "2026-02-02 18:12:48,883 xinference.core.supervisor 75 DEBUG    Leave " \
         "launch_builtin_model, elapsed time: 12 s\n"
    assert classify_text(ok, engine="vllm").outcome is not Outcome.CRASHED


def test_a_kernel_librarys_cuda_check_that_exits_is_fatal():
    text = ("[2025-12-09 05:12:23 DP6 TP6] Capture cuda graph begin. This can take up to several "
            "minutes. avail mem=6.99 GB\n"
            "CUDA error (_deps/repo-flashmla-src/csrc/smxx/get_mla_metadata.cu:93): no kernel "
            "image is available for execution on the device\n")
    v = classify_text(text, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == \
        (Outcome.CRASHED, Phase.CUDA_GRAPH_CAPTURE, Cause.UNSUPPORTED_ARCH), v
    # guard: the words in prose are no check's report
    prose = text.replace("CUDA error (_deps/repo-flashmla-src/csrc/smxx/get_mla_metadata.cu:93)",
                         "note: a CUDA error (if any)")
    assert classify_text(prose, engine="sglang").outcome is not Outcome.CRASHED


# --- the model's config refused through Transformers -------------------------------------------

_HF = "/usr/local/lib/python3.10/dist-packages/transformers"


def test_a_model_type_the_installed_transformers_does_not_know_is_invalid_config() -> None:
    """The KeyError of Transformers' CONFIG_MAPPING lookup, its ValueError cut from the paste."""
    v = verdict(*frame_lines((f"{_HF}/models/auto/configuration_auto.py", "from_pretrained"),
                             (f"{_HF}/models/auto/configuration_auto.py", "__getitem__")),
                "KeyError: 'qwen2_5_vl'", engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v


def test_a_config_missing_a_field_the_engines_model_config_reads_is_invalid_config() -> None:
    lines = frame_lines((f"{SG}/configs/model_config.py", "__init__"),
                        (f"{_HF}/configuration_utils.py", "__getattribute__"))
    v = verdict(*lines, "AttributeError: 'InternVLChatConfig' object has no attribute "
                "'hidden_size'", engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v
    # the same AttributeError read by a model's forward is no configuration check
    lines = frame_lines((f"{SG}/models/llama.py", "forward"),
                        (f"{_HF}/configuration_utils.py", "__getattribute__"))
    v = verdict(*lines, "AttributeError: 'LlamaConfig' object has no attribute 'rope_x'",
                engine="sglang")
    assert v.cause is not Cause.INVALID_CONFIG, v
    # and a KeyError elsewhere is not a model type refused
    v = verdict(*frame_lines((f"{SG}/models/llama.py", "load_weights")),
                "KeyError: 'model.layers.0.mlp.weight'", engine="sglang")
    assert v.cause is not Cause.INVALID_CONFIG, v


# --- the twenty-eighth batch's families --------------------------------------------------------

def test_a_tma_descriptor_the_driver_does_not_support_is_an_unsupported_arch() -> None:
    """CUDA error 801 (not supported) encoding a TMA descriptor: a Hopper kernel on an older
    GPU (FlashAttention-3 on a Jetson Orin). Another code is a kernel's bad arguments."""
    dump = ["TMA Desc Addr:   0xfffe8d7f6a80", "format         9", "dim            4"]
    v = verdict(*dump, "Error: Failed to initialize the TMA descriptor 801", *dump,
                engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.UNSUPPORTED_ARCH), v
    v = verdict(*dump, "Error: Failed to initialize the TMA descriptor 1", *dump,
                engine="sglang")
    assert v.cause is not Cause.UNSUPPORTED_ARCH, v


def test_libibverbs_skipping_rdma_providers_it_cannot_load_is_no_import_error() -> None:
    warn = ("libibverbs: Warning: couldn't load driver 'libmlx4-rdmav34.so': libmlx4-rdmav34.so: "
            "cannot open shared object file: No such file or directory")
    assert verdict(warn, warn, engine="sglang").cause is not Cause.IMPORT_ERROR
    # the same words from a real import still are
    v = verdict("ImportError: libcudart.so.12: cannot open shared object file: No such file or "
                "directory", engine="sglang")
    assert v.cause is Cause.IMPORT_ERROR, v


def test_v0_preemption_with_no_cpu_swap_space_left_is_a_kv_cache_oom_in_serving() -> None:
    v = verdict("RuntimeError: Aborted due to the lack of CPU swap space. Please increase the "
                "swap space to avoid this error.", engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING,
                                             Cause.KV_CACHE_OOM), v


def test_the_v1_client_seeing_its_engine_core_die_is_a_crash() -> None:
    v = verdict("(APIServer pid=6209) ERROR 06-16 05:06:54 [core_client.py:606] Engine core proc "
                "EngineCore_DP0 died unexpectedly, shutting down client.",
                "(APIServer pid=6209) sys:1: DeprecationWarning: builtin type swigvarlink has no "
                "__module__ attribute", engine="vllm")
    assert v.outcome is Outcome.CRASHED, v


def test_a_size_that_must_be_divisible_and_is_not_is_invalid_config() -> None:
    v = verdict(*frame_lines((f"{VL}/model_executor/model_loader/utils.py", "initialize_model")),
                "AssertionError: n_physical_experts=256 must be divisible by ep_size=3. Adjust "
                "num_redundant_experts.", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v


def test_vllm_finding_no_platform_names_no_cause() -> None:
    """No GPU visible, a wheel without this platform, a plugin that did not import: the
    labelled logs that show it are unknown."""
    v = verdict(*frame_lines((f"{VL}/config.py", "__init__")),
                "RuntimeError: Failed to infer device type", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.UNKNOWN), v


def test_the_kv_connector_factory_refusing_the_configured_connector_is_invalid_config() -> None:
    v = verdict(*frame_lines((f"{VL}/distributed/kv_transfer/kv_connector/factory.py",
                              "create_connector_v1")), "AssertionError", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v


def test_a_capture_that_died_on_a_shown_cpp_exception_is_no_architecture_guess() -> None:
    """SGLang dying at its first captured batch with the error cut is guessed to be a kernel
    missing for the GPU; a C++ exception whose message is shown is its own error."""
    bar = "Capturing batches (bs=512 avail_mem=19.45 GB):   0%|          | 0/52 [00:00<?, ?it/s]"
    v = verdict(bar, "terminate called after throwing an instance of "
                "'nanobind::builtin_exception'", "  what():  Expected an MLIR object",
                "Fatal Python error: Aborted", engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.CUDA_GRAPH_CAPTURE,
                                             Cause.UNKNOWN), v


def test_the_custom_all_reduces_source_place_under_its_cuda_error_names_it() -> None:
    v = verdict("RuntimeError: invalid argument",
                "/sgl-kernel/csrc/allreduce/custom_all_reduce.cuh:350", engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.CUSTOM_ALLREDUCE_ERROR), v


def test_warnings_of_optional_parts_that_go_without_are_no_cause() -> None:
    ras = ("paula09:2528103:2528103 [0] ras/client_support.cc:160 NCCL WARN Call to bind failed: "
           "Address already in use")
    assert verdict(ras, engine="vllm").cause is not Cause.PORT_IN_USE
    camem = ("(EngineCore_DP0 pid=891) WARNING 05-14 01:44:20 [camem.py:66] Failed to import "
             "vllm_ascend_C:/x/libvllm_ascend_kernels.so: undefined symbol: aclrtCtx. Sleep mode "
             "will be disabled.")
    assert verdict(camem, "EngineCore failed to start.", engine="vllm").cause is Cause.UNKNOWN


# --- the thirty-second batch's families --------------------------------------------------------

def test_a_gpu_architecture_missing_from_a_table_is_an_unsupported_arch() -> None:
    v = verdict(*frame_lines(("/opt/aiter/jit/utils/chip_info.py", "get_gfx")),
                "KeyError: 'gfx1101'", engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.UNSUPPORTED_ARCH), v
    # guard: a KeyError of a checkpoint tensor is not
    v = verdict(*frame_lines((f"{SG}/models/llama.py", "load_weights")),
                "KeyError: 'model.layers.0.mlp.weight'", engine="sglang")
    assert v.cause is not Cause.UNSUPPORTED_ARCH, v


def test_more_devices_asked_for_than_a_jax_mesh_has_is_invalid_config() -> None:
    v = verdict("(EngineCore pid=289) ValueError: Insufficient devices for 2D mesh: found 1, "
                "expected 8 for mesh shape (1, 8).", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v


def test_an_import_chains_module_frames_hint_no_cause() -> None:
    """SGLang's http_server importing the pynccl allocator's module is no NCCL failure."""
    v = verdict(*frame_lines((f"{SG}/layers/dp_attention.py", "<module>"),
                             (f"{SG}/distributed/device_communicators/pynccl_allocator.py",
                              "<module>")), engine="sglang")
    assert v.cause is Cause.UNKNOWN, v


# --- the thirty-third batch's families ---------------------------------------------------------

def test_a_worker_given_a_device_its_visible_devices_lack_is_invalid_config() -> None:
    v = verdict("ERROR 02-26 09:45:37 worker_base.py:572]         The argument is invalid."
                "Reason: Set visible device failed, invalid device=1, input visible devices:1",
                engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v


def test_a_guarded_import_logged_with_its_repr_is_no_import_error() -> None:
    v = verdict("[2026-05-25 17:42:13 TP0] Failed to import amdsmi with ModuleNotFoundError(\"No "
                "module named 'amdsmi'\")", "[2026-05-25 17:42:16 TP0] Load weight begin. avail "
                "mem=31.46 GB", "KeyError: 'model.layers.0.mlp.experts.w2_qweight'",
                engine="sglang")
    assert v.cause is not Cause.IMPORT_ERROR, v
    # guard: the raised form still is one
    v = verdict("ModuleNotFoundError: No module named 'amdsmi'", engine="sglang")
    assert v.cause is Cause.IMPORT_ERROR, v


def test_the_shells_killed_alone_is_the_oom_killer() -> None:
    lines = ["INFO 01-23 07:32:42 model_runner.py:1071] Loading model weights took 4.3752 GB",
             "INFO 01-23 07:34:26 gpu_executor.py:122] # GPU blocks: 11836, # CPU blocks: 4681"]
    v = verdict(*lines, "Killed", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.HOST_OOM_KILLED), v
    # guard: after an error of the run's own (SGLang killing its tree), that error's cause
    v = verdict(*lines, "KeyError: 'model.layers.55.mlp.gate_up_proj.input_scale'",
                "Received sigquit from a child process. It usually means the child failed.",
                "Killed", engine="vllm")
    assert v.cause is not Cause.HOST_OOM_KILLED, v


# --- the thirty-fourth batch's families --------------------------------------------------------

def test_vllms_selector_refusing_the_chosen_attention_backend_is_invalid_config() -> None:
    v = verdict("(EngineCore_DP1 pid=1) ValueError: Selected backend AttentionBackendEnum."
                "CUTLASS_MLA is not valid for this configuration. Reason: ['sparse not "
                "supported']", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v


def test_a_traceback_cut_at_the_lora_adapters_check_is_invalid_config() -> None:
    lines = frame_lines(("/x/vllm/lora/worker_manager.py", "_load_adapter"))
    lines[-1] = "    peft_helper.validate_legal(self.lora_config)"
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v


def test_rocms_aperture_violation_cut_inside_its_name_is_a_memory_fault() -> None:
    v = verdict("INFO 02-20 20:24:20 async_llm.py:164] Added request cmpl-9d32-0.",
                ":0:rocdevice.cpp            :2984: 241135514725 us: [pid:872110 tid:0x7f33] "
                "Callback: Queue 0x7ef3dc200000 aborting with error : "
                "HSA_STATUS_ERROR_MEMORY_APERTURE_VIOLA", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.ILLEGAL_MEMORY_ACCESS), v


def test_the_shells_killed_then_workers_reporting_their_parent_gone_is_the_oom_killer() -> None:
    v = verdict("start.sh: line 38: 14328 Killed vllm serve /w/MiniMax --tensor-parallel-size 8",
                "(EngineCore_DP0 pid=14347) ERROR 06-24 06:50:23 [multiproc_executor.py:261] "
                "Worker proc VllmWorker-0 died unexpectedly, shutting down executor.",
                engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.HOST_OOM_KILLED), v


# --- the thirty-fifth batch's families ---------------------------------------------------------

def test_an_engine_switch_the_platform_refuses_is_invalid_config() -> None:
    v = verdict("INFO [__init__.py:243] Automatically detected platform cpu.",
                "NotImplementedError: VLLM_USE_V1=1 is not supported with device type=cpu.",
                engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v


def test_a_traceback_cut_at_v0s_cache_size_check_is_kv_cache_oom() -> None:
    lines = frame_lines(("/x/vllm/worker/worker.py", "initialize_cache"))
    lines[-1] = "    raise_if_cache_size_invalid(num_gpu_blocks,"
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.KV_CACHE_OOM), v


# --- a device its runtime found hung; a GPU the compiler has no target for ----------------

@pytest.mark.parametrize("lines", [
    ["(EngineCore_DP0 pid=288) ERROR 04-24 09:02:54 [core.py:1106] RuntimeError: TT_THROW @ "
     "/tt-metal/tt_metal/impl/dispatch/system_memory_manager.cpp:669: tt::exception",
     "(EngineCore_DP0 pid=288) ERROR 04-24 09:02:54 [core.py:1106] info:",
     "(EngineCore_DP0 pid=288) ERROR 04-24 09:02:54 [core.py:1106] TIMEOUT: device timeout in "
     "fetch queue wait, potential hang detected"],
    ["HW Exception by GPU node-1 (Agent handle: 0x5581f7e0) reason :GPU Hang"],
], ids=["tenstorrent-fetch-queue", "rocm-kfd"])
def test_a_device_its_runtime_found_hung_is_a_gpu_fault(lines):
    v = classify_text("\n".join(lines) + "\n", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.GPU_FAULT), v


def test_rocm_compiling_with_no_target_architecture_is_unsupported_arch():
    text = ("(EngineCore_DP0 pid=160843) ERROR 03-05 12:36:31 [core.py:1006] hip runtime failed "
            "to load.\n(EngineCore_DP0 pid=160843) ERROR 03-05 12:36:31 [core.py:1006] Error: "
            "Please provide architecture for which code is to be generated.\n")
    assert cause_of(text, "vllm") is Cause.UNSUPPORTED_ARCH


def test_c10d_trying_an_address_family_the_host_lacks_is_no_cause():
    """torch tries IPv6 first and warns; NCCL then comes up: a startup cut there names nothing."""
    warn = ("[W303 13:46:57.344950212 socket.cpp:767] [c10d] The client socket cannot be "
            "initialized to connect to [::ffff:10.99.91.59]:5000 (errno: 97 - Address family not "
            "supported by protocol).")
    v = classify_text(f"[2026-03-03 13:46:57 TP10] Init torch distributed begin.\n{warn}\n",
                      engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, Cause.UNKNOWN), v
    fatal = "RuntimeError: open: Address family not supported by protocol"
    assert cause_of(f"{warn}\n{fatal}\n", "sglang") is Cause.INVALID_CONFIG


def test_a_feature_that_requires_a_newer_gpu_is_unsupported_arch():
    text = tb((f"{SG}/layers/flashinfer_comm_fusion.py", "_resolve_backend", "raise ValueError("),
              error="ValueError: FlashInfer allreduce fusion requires SM90 or SM10X NVIDIA GPUs.")
    assert cause_of(text, "sglang") is Cause.UNSUPPORTED_ARCH
    # (a model that requires a setting is not a GPU's architecture)
    other = tb((f"{SG}/configs/model_config.py", "__init__", "raise ValueError("),
               error="ValueError: This model requires trust_remote_code=True.")
    assert cause_of(other, "sglang") is not Cause.UNSUPPORTED_ARCH


def test_llvm_fatal_error_after_a_request_is_a_triton_compile_error_and_a_death():
    """LLVM's report_fatal_error aborts the process: no traceback follows."""
    text = ("INFO 05-31 09:09:41 [logger.py:39] Received request cmpl-035fe3: prompt: 'San "
            "Francisco is a', params: SamplingParams(n=1)\n"
            "INFO 05-31 09:09:41 [engine.py:310] Added request cmpl-035fe3.\n"
            "LLVM ERROR: Failed to compute parent layout for slice layout.\n")
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == \
        (Outcome.CRASHED, Phase.SERVING, Cause.TRITON_COMPILE_ERROR), v


# --- a startup log that ends on an error line -------------------------------------------------


@pytest.mark.parametrize("last", [
    "[ERROR] Failed to activate environment",
    "rocblaslt error: Could not load /opt/torch/lib/hipblaslt/library/TensileLibrary_lazy_gfx942.dat",
    "(task, pid=34615) 2024-06-21 09:33:40.000866:  38168  ERROR ||NEURON_CC_WRAPPER||: Failed "
    "compilation with ['neuronx-cc', 'compile']",
    "        [Set][Options]OpCompileProcessor init failed![FUNC:ReportInnerError]",
    # the dynamic loader refusing to start the interpreter (a preloaded allocator that cannot be
    # linked: fk104, fk105)
    "/venv/bin/python: /lib/x86_64-linux-gnu/libc.so.6: version `GLIBC_2.38' not found "
    "(required by /opt/lib/libjemalloc.so.2)",
    "/venv/bin/python: error while loading shared libraries: libunwind.so.1: cannot open shared "
    "object file: No such file or directory",
])
def test_a_startup_that_ends_on_an_error_line_died_of_it(last):
    head = "[2025-06-19 15:12:20] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1)"
    v = verdict(head, last)
    assert v.outcome is Outcome.CRASHED, v
    assert last.strip()[:30] in v.evidence[0], v.evidence


@pytest.mark.parametrize("last", [
    # lower levels that mention an error, one request's failure, a known harmless ERROR line
    "(APIServer pid=44) WARNING 02-06 23:24:30 [system_utils.py:266] Found ulimit of 32768 and "
    "failed to automatically increase with error current limit exceeds maximum limit",
    "[Router (Rust)] 2025-03-08 02:33:09 - INFO - Worker http://0.0.0.0:31778 health check is "
    "pending with error: error sending request",
    "Prefill bootstrap failed for request rank=2 req.rid='d3fd6575' with exception KVTransferError",
    "ERROR 01-22 11:54:36 [config.py:32] Failed to import Triton kernels. Please make sure your "
    "triton version is compatible.",
    "2025-07-02 16:41:31 | ERROR | stderr | ",
])
def test_a_startup_cut_at_a_line_that_is_no_error_stays_incomplete(last):
    head = "[2025-06-19 15:12:20] server_args=ServerArgs(model_path='Qwen/Qwen3-8B', tp_size=1)"
    assert verdict(head, last).outcome is Outcome.INCOMPLETE
    # (the same error line with more progress after it is no end either)
    assert verdict(head, "[ERROR] Failed to activate environment",
                   "[2025-06-19 15:12:27] Load weight begin. avail mem=78.50 GB").outcome \
        is Outcome.INCOMPLETE


# --- a traceback through the speculative draft's code, cut before its exception line ----------

DRAFT_FRAMES = (
    (f"{SG}/managers/scheduler.py", "__init__", "self.draft_worker = EAGLEWorker("),
    (f"{SG}/speculative/eagle_worker.py", "__init__", "self.init_cuda_graphs()"),
    (f"{SG}/speculative/eagle_draft_cuda_graph_runner.py", "capture", "CudaGraphRunner.capture(self)"),
)


def test_draft_frames_cut_before_the_error_name_no_cause():
    text = "[2025-03-05 10:36:11 TP4] Scheduler hit an exception: " + tb(*DRAFT_FRAMES)
    assert cause_of(text, "sglang") is Cause.UNKNOWN
    # the error shown under the same frames: the draft failed
    shown = "[2025-03-05 10:36:11 TP4] Scheduler hit an exception: " + tb(
        *DRAFT_FRAMES, error="RuntimeError: shape mismatch: value tensor of shape [4, 2048]")
    assert cause_of(shown, "sglang") is Cause.SPECULATIVE_DECODING_ERROR


def test_a_triton_kernel_loading_its_binary_is_a_launch_not_a_compilation():
    loading = (
        (f"{SG}/layers/attention/triton_backend.py", "forward_decode",
         "decode_attention_fwd[grid]("),
        ("/usr/local/lib/python3.12/dist-packages/triton/runtime/jit.py", "run",
         "kernel.run(grid_0, grid_1, grid_2, stream)"),
        ("/usr/local/lib/python3.12/dist-packages/triton/compiler/compiler.py",
         "__getattribute__", "self._init_handles()"),
        ("/usr/local/lib/python3.12/dist-packages/triton/compiler/compiler.py", "_init_handles",
         "self.module, self.function = driver.active.utils.load_binary("),
    )
    error = "IndexError: map::at"  # (an error naming no cause: the frames name it)
    assert cause_of(tb(*loading, error=error), "sglang") is not Cause.TRITON_COMPILE_ERROR
    compiling = loading[:2] + (
        ("/usr/local/lib/python3.12/dist-packages/triton/compiler/compiler.py", "compile",
         "next_module = compile_ir(module, metadata)"),)
    assert cause_of(tb(*compiling, error=error), "sglang") is Cause.TRITON_COMPILE_ERROR


def test_a_checkpoint_tensor_under_a_module_the_class_lacks_is_the_checkpoint():
    """vLLM V0 logs the message alone above its traceback; V1 as the exception line. (Read
    invalid_config until the corpus README settled the family in round 2, session 41: the
    weights and the class built disagree, corrupt_checkpoint, as 13 of 15 such logs were
    labelled.)"""
    alone = (f"{CORE}There is no module or parameter named 'language_model' in "
             "Gemma3ForCausalLM\n" + tb((f"{VL}/model_executor/models/utils.py", "_load_module",
                                         "raise ValueError(msg)")))
    assert cause_of(alone, "vllm") is Cause.CORRUPT_CHECKPOINT
    raised = tb((f"{VL}/model_executor/models/utils.py", "_load_module", "raise ValueError(msg)"),
                error="ValueError: There is no module or parameter named 'score' in "
                      "Qwen2VLForConditionalGeneration")
    assert cause_of(raised, "vllm") is Cause.CORRUPT_CHECKPOINT


def test_a_check_stating_what_a_setting_requires_is_invalid_config():
    text = tb((f"{SG}/model_executor/model_runner.py", "init_memory_pool",
               "self.token_to_kv_pool_allocator = ElasticTokenToKVPoolAllocator("),
              error="ValueError: ElasticTokenToKVPoolAllocator requires elastic MHA pool")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG
    # (what a missing package or extension requires is still that)
    missing = tb((f"{VL}/vllm_flash_attn/__init__.py", "<module>", "from ._C import *"),
                 error="ModuleNotFoundError: No module named 'vllm._vllm_fa2_C'")
    assert cause_of(missing, "vllm") is Cause.IMPORT_ERROR


# --- deaths shown by native code and by a child process's header -------------------------------


def test_torch_21s_nccl_watchdog_terminating_is_a_death():
    text = ("(RayWorkerVllm pid=5304) [E ProcessGroupNCCL.cpp:916] [Rank 7] NCCL watchdog thread "
            "terminated with exception: CUDA error: unknown error\n"
            "(RayWorkerVllm pid=5304) Compile with `TORCH_USE_CUDA_DSA` to enable device-side "
            "assertions.\n")
    assert verdict(*text.splitlines(), engine="vllm").outcome is Outcome.CRASHED


def test_a_c10_error_backtrace_at_the_end_is_a_death():
    lines = ["[rank0]:[E329 11:57:50.830056524 compiler_depend.ts:422] setup failed!",
             "Exception raised from OperationSetup at build/op_plugin/compiler_depend.ts:131 "
             "(most recent call first):",
             "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0xb8 "
             "(0xffff7c3b7908 in /venv/lib/python3.10/site-packages/torch/lib/libc10.so)"]
    assert verdict(*lines, engine="vllm").outcome is Outcome.CRASHED


def test_multiprocessing_reporting_a_child_that_raised_is_a_death():
    lines = ["Rank 0: load weight begin.", "Rank 0: load weight end.",
             "Rank 0: max_total_num_token=14425, max_prefill_num_token=4096, context_len=4096,",
             "Process Process-1:"]
    v = verdict(*lines, engine="sglang")
    assert v.outcome is Outcome.CRASHED
    # (SGLang reported the KV pool it made: no guess that its sizing failed)
    assert v.cause is Cause.UNKNOWN
    assert verdict(*lines[:2], "Process Process-1:", engine="sglang").cause is Cause.KV_CACHE_OOM


def test_vllm_dumping_a_failed_steps_input_is_serving_even_without_its_header():
    lines = [
        "(EngineCore_DP0 pid=1025) INFO 11-28 12:33:21 [gpu_model_runner.py:3334] Model loading "
        "took 1.8929 GiB memory and 1.201215 seconds",
        "(EngineCore_DP0 pid=1025) INFO 11-28 12:33:29 [gpu_worker.py:359] Available KV cache "
        "memory: 59.82 GiB",
        "(EngineCore_DP0 pid=1025) ERROR 11-28 13:11:39 [dump_input.py:79]        "
        "dtype=torch.bfloat16), field=MultiModalBatchedField())}, modality='image')",
    ]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v


def test_a_traceback_cut_at_its_raise_statement_reads_the_message_written_there():
    frames = ((f"{VL}/v1/engine/core_client.py", "__init__",
               'raise TimeoutError("Timed out waiting for engines to send"'),)
    assert cause_of(tb(*frames), "vllm") is Cause.MULTINODE_RANK_FAILURE
    # (a raise whose message is not written there names nothing)
    other = ((f"{VL}/v1/engine/core_client.py", "__init__", "raise TimeoutError(msg)"),)
    assert cause_of(tb(*other), "vllm") is Cause.UNKNOWN


# --- launch settings the engine rejects, in more words -----------------------------------------


def test_a_value_over_a_settings_limit_is_invalid_config():
    text = tb((f"{VL}/lora/peft_helper.py", "validate_legal",
               "raise ValueError(f\"{' '.join(error_msg)}\")"),
              error="ValueError: LoRA rank 256 is greater than max_lora_rank 16.")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    # (the KV cache's own words for a context too long stay kv_cache_oom)
    kv = tb((f"{VL}/worker/worker.py", "raise_if_cache_size_invalid", "raise ValueError("),
            error="ValueError: The model's max seq len (32768) is larger than the maximum "
                  "number of tokens that can be stored in KV cache (25216).")
    assert cause_of(kv, "vllm") is Cause.KV_CACHE_OOM


def test_a_kubernetes_service_link_read_as_the_engines_port_is_invalid_config():
    text = tb((f"{VL}/envs.py", "<lambda>", "lambda: int(os.getenv('VLLM_PORT', '0'))"),
              error="ValueError: invalid literal for int() with base 10: "
                    "'tcp://172.16.168.90:8000'")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    other = tb((f"{VL}/v1/worker/gpu_model_runner.py", "_prepare_inputs", "n = int(value)"),
               error="ValueError: invalid literal for int() with base 10: 'abc'")
    assert cause_of(other, "vllm") is not Cause.INVALID_CONFIG


def test_pydantics_item_of_a_failed_divisibility_check_is_invalid_config():
    lines = ["pydantic.v1.error_wrappers.ValidationError: 1 validation error for VLLM",
             "__root__",
             "  13653 is not divisible by 4 (type=assertion_error)"]
    assert verdict(*lines, engine="vllm").cause is Cause.INVALID_CONFIG


def test_a_bare_assertion_error_of_a_divisibility_assert_is_invalid_config():
    text = "[2025-02-14 02:47:45 TP0] Scheduler hit an exception: " + tb(
        (f"{SG}/models/qwen2.py", "__init__", "assert self.total_num_heads % tp_size == 0"),
        error="AssertionError")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG
    other = "[2025-02-14 02:47:45 TP0] Scheduler hit an exception: " + tb(
        (f"{SG}/models/qwen2.py", "__init__", "assert self.head_dim in (64, 128)"),
        error="AssertionError")
    assert cause_of(other, "sglang") is Cause.UNKNOWN


def test_intel_unified_runtime_out_of_resources_is_the_devices_oom():
    text = tb((f"{TORCH}/utils/_device.py", "__torch_function__", "return func(*args, **kwargs)"),
              error="RuntimeError: UR backend failed. UR backend returns:40 "
                    "(UR_RESULT_ERROR_OUT_OF_RESOURCES)")
    assert cause_of(text, "vllm") is Cause.CUDA_OOM


def test_flashinfers_wrapper_called_with_another_releases_signature_is_flashinfer_error():
    text = tb((f"{SG}/managers/controller/model_runner.py", "init_flashinfer_args",
               "self.prefill_wrapper.begin_forward(*args)"),
              error="TypeError: BatchPrefillWithPagedKVCacheWrapper.begin_forward() missing 1 "
                    "required positional argument: 'page_size'")
    assert cause_of(text, "sglang") is Cause.FLASHINFER_ERROR


def test_flashinfers_wrappers_missing_where_the_backend_builds_them_is_flashinfer_error():
    # (the 110th batch's SGLang with --attention-backend flashinfer and no flashinfer installed)
    text = "[2026-12-06 06:20:01] Scheduler hit an exception: " + tb(
        (f"{SG}/layers/attention/flashinfer_backend.py", "__init__",
         "self.prefill_wrapper_ragged = BatchPrefillWithRaggedKVCacheWrapper("),
        error="NameError: name 'BatchPrefillWithRaggedKVCacheWrapper' is not defined")
    assert cause_of(text, "sglang") is Cause.FLASHINFER_ERROR
    other = "[2026-12-06 06:20:01] Scheduler hit an exception: " + tb(
        (f"{SG}/managers/scheduler.py", "__init__", "self.init_tokenizer()"),
        error="NameError: name 'get_tokenizer' is not defined")
    assert cause_of(other, "sglang") is not Cause.FLASHINFER_ERROR


def test_torch_refusing_an_address_or_device_the_settings_spelled_is_invalid_config():
    # (the 114th batch's --host with a port in it, and --device CPU in capitals)
    sched = "[2026-12-06 07:16:03] Scheduler hit an exception: "
    port = sched + tb(
        (f"{TORCH}/distributed/elastic/rendezvous/utils.py", "parse_rendezvous_endpoint",
         'raise ValueError('),
        error="ValueError: Port could not be cast to integer value as '30000:25761'")
    assert cause_of(port, "sglang") is Cause.INVALID_CONFIG
    device = sched + tb(
        (f"{TORCH}/utils/backend_registration.py", "get_device_module",
         "device = torch.device(device)"),
        error="RuntimeError: Expected one of cpu, cuda, ipu, xpu, mkldnn, opengl, opencl, ideep, "
              "hip, ve, fpga, maia, xla, lazy, vulkan, mps, meta, hpu, mtia, privateuseone "
              "device type at start of device string: CPU")
    assert cause_of(device, "sglang") is Cause.INVALID_CONFIG
    other = sched + tb(
        (f"{TORCH}/distributed/rendezvous.py", "_create_c10d_store",
         "return TCPStore("),
        error="RuntimeError: The server socket has failed to listen on any local network "
              "address. port: 30000, useIpv6: 0, code: -98, name: EADDRINUSE")
    assert cause_of(other, "sglang") is not Cause.INVALID_CONFIG


def test_a_lora_adapter_with_a_peft_feature_the_engine_refuses_is_invalid_config():
    # (the 112th batch's DoRA adapters, refused by vLLM's and SGLang's LoRA serving)
    vllm = tb((f"{VL}/lora/peft_helper.py", "validate_legal",
               'raise ValueError("vLLM does not yet support DoRA.")'),
              error="ValueError: vLLM does not yet support DoRA.")
    assert cause_of(vllm, "vllm") is Cause.INVALID_CONFIG
    sglang = "[2026-12-06 06:58:01] Scheduler hit an exception: " + tb(
        (f"{SG}/lora/lora_manager.py", "load_lora_adapter", "raise RuntimeError("),
        error="RuntimeError: Failed to load LoRA adapter dora: Failed to load dora because LoRA "
              "serving currently doesn't support DoRA adapters")
    assert cause_of(sglang, "sglang") is Cause.INVALID_CONFIG
    # (a LoRA kernel the GPU cannot run is no adapter's feature)
    other = tb((f"{VL}/lora/punica_wrapper/punica_gpu.py", "__init__", "raise RuntimeError("),
               error="RuntimeError: Punica kernels require compute capability 8.0 or above")
    assert cause_of(other, "vllm") is not Cause.INVALID_CONFIG


def test_a_generic_error_building_the_rotary_embedding_is_the_configs_rope_block():
    # (the 112th batch's rope block in a newer release's per-layer-type form)
    text = tb((f"{VL}/model_executor/models/llama.py", "_init_rotary_emb",
               "self.rotary_emb = get_rope("),
              (f"{VL}/model_executor/layers/rotary_embedding/__init__.py", "get_rope",
               "key = (head_size, rotary_dim, max_position, is_neox_style, rope_parameters_args"),
              error="TypeError: unhashable type: 'dict'")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    other = tb((f"{VL}/model_executor/models/llama.py", "__init__", "self.mlp = LlamaMLP("),
               error="TypeError: unhashable type: 'dict'")
    assert cause_of(other, "vllm") is Cause.UNKNOWN


def test_the_checkpoints_quantization_config_read_at_argument_resolution_is_launch():
    # (the 112th batch's torchao config with torchao missing: vLLM's engine config resolving
    # the checkpoint's quantization, before any engine process)
    v = verdict("(APIServer pid=31064) INFO 12-06 06:57:13 [model.py:733] Resolved architecture: "
                "LlamaForCausalLM",
                "Traceback (most recent call last):",
                f'  File "{VL}/engine/arg_utils.py", line 2838, in create_engine_config',
                f'  File "{VL}/config/vllm.py", line 895, in _get_quantization_config',
                f'  File "{VL}/model_executor/model_loader/weight_utils.py", line 274, in '
                "get_quant_config",
                f'  File "{VL}/model_executor/model_loader/weight_utils.py", line 232, in '
                "make_checkpoint_config",
                f'  File "{VL}/model_executor/layers/quantization/torchao.py", line 176, in '
                "from_config",
                "ImportError: Please install torchao>=0.10.0 via `pip install torchao>=0.10.0` "
                "to use torchao quantization.", engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.LAUNCH)
    # the loader reading it as it loads still dates a load
    w = verdict("Traceback (most recent call last):",
                f'  File "{VL}/model_executor/model_loader/default_loader.py", line 487, in '
                "load_weights",
                f'  File "{VL}/model_executor/model_loader/weight_utils.py", line 274, in '
                "get_quant_config",
                "ValueError: Cannot find the config file for awq", engine="vllm")
    assert w.phase is Phase.WEIGHT_LOADING


def test_a_log_ending_in_a_native_backtraces_frames_is_a_death():
    lines = ["frame #7: <unknown function> + 0x289da4 (0xffff86589da4 in "
             "/usr/local/Ascend/cann-9.0.0/lib64/libhccl.so)",
             "frame #8: <unknown function> + 0x80398 (0xffffa3030398 in "
             "/lib/aarch64-linux-gnu/libc.so.6)"]
    assert verdict(*lines, engine="vllm").outcome is Outcome.CRASHED


# --- the forty-first batch's kinds ----------------------------------------------------------


def test_canns_runtime_refusing_a_device_allocation_is_the_devices_oom():
    lines = [CORE + "RuntimeError: ACL stream synchronize failed, error code:507899",
             CORE + "        Possible Cause: Available memory is insufficient.",
             CORE + "        alloc device memory failed, runtime result = 207001"
                    "[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:162]"]
    assert verdict(*lines, engine="vllm").cause is Cause.CUDA_OOM


_PLUGIN = "/opt/models/DotsOCR/modeling_dots_ocr_vllm.py"


@pytest.mark.parametrize("outer", [
    # a script's top level importing a model's plugin
    ("/opt/conda/bin/vllm", "<module>", "from DotsOCR import modeling_dots_ocr_vllm"),
    # a function importing lazily (the engine core's worker importing its model runner)
    (f"{VL}/v1/worker/gpu_worker.py", "init_device", "from lightop import gemmopt"),
])
def test_an_error_raised_while_a_module_is_imported_is_import_error(outer):
    text = tb(outer, (_PLUGIN, "<module>", "patch_vllm_chat_placeholder()"),
              (_PLUGIN, "patch_vllm_chat_placeholder",
               "ori = BaseMultiModalItemTracker._placeholder_str"),
              error="AttributeError: type object 'BaseMultiModalItemTracker' has no attribute "
                    "'_placeholder_str'")
    assert cause_of(text, "vllm") is Cause.IMPORT_ERROR


def test_an_error_in_a_function_called_after_the_imports_is_not_import_error():
    # guard: the entry's top level calling main(), not importing
    text = tb(("/opt/conda/bin/vllm", "<module>", "sys.exit(main())"),
              (f"{VL}/entrypoints/cli/main.py", "main", "args.dispatch_function(args)"),
              error="AttributeError: 'NoneType' object has no attribute 'split'")
    assert cause_of(text, "vllm") is Cause.UNKNOWN
    # nor an import statement whose next frame is not the imported module's top level
    text = tb((f"{VL}/v1/worker/gpu_worker.py", "init_device", "from lightop import gemmopt"),
              (f"{VL}/v1/worker/gpu_worker.py", "helper", "x.split('.')"),
              error="AttributeError: 'NoneType' object has no attribute 'split'")
    assert cause_of(text, "vllm") is Cause.UNKNOWN


# An import chain: the API server's first imports reaching the platform's resolution (es104),
# SGLang's model runner importing its model registry (es107)
_ENGINE_IMPORTS = [
    (f"{VL}/entrypoints/openai/api_server.py", "<module>",
     "from vllm.engine.protocol import EngineClient"),
    (f"{VL}/engine/protocol.py", "<module>", "from vllm.config import ModelConfig"),
    (f"{VL}/config/compilation.py", "<module>", "from vllm.platforms import current_platform"),
]


@pytest.mark.parametrize(("frames", "error"), [
    (_ENGINE_IMPORTS + [
        (f"{VL}/platforms/__init__.py", "__getattr__",
         "platform_cls_qualname = resolve_current_platform_cls_qualname()"),
        (f"{VL}/platforms/__init__.py", "resolve_current_platform_cls_qualname",
         "raise RuntimeError(")],
     "RuntimeError: Only one platform plugin can be activated, but got: ['zeta', 'acme_npu']"),
    ([(f"{SG}/model_loader/utils.py", "get_model_architecture",
       "from sglang.srt.models.registry import ModelRegistry"),
      (f"{SG}/models/registry.py", "<module>",
       "ModelRegistry.models.update(import_model_classes(external_pkg))"),
      (f"{SG}/models/registry.py", "import_model_classes",
       "assert entry.__name__ not in model_arch_name_to_cls, (")],
     "AssertionError: Duplicated model implementation for AcmeLlamaForCausalLM"),
])
def test_an_engines_own_check_raised_during_an_import_is_invalid_config(frames, error):
    # the import only carried the check: the engine refusing what the launch installed or
    # named (two platform plugins, a model class exported twice), not a package failing to load
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG


@pytest.mark.parametrize(("last", "error"), [
    # guard: the same chain where a library other than the engine raised (a version skew)
    (("/x/site-packages/transformers/utils/import_utils.py", "_get_module",
      "raise RuntimeError("),
     "RuntimeError: Failed to import transformers.models.auto because of the following error"),
    # guard: the engine's own frame, but an attribute the installed code lacks (a broken
    # install, not a check)
    ((f"{VL}/platforms/__init__.py", "__getattr__", "return _current.cls"),
     "AttributeError: module 'vllm.platforms' has no attribute 'cls'"),
    # guard: the engine's op-library wrapper raising as its compiled library is missing
    ((f"{VL}/_custom_ops.py", "<module>", "raise RuntimeError("),
     "RuntimeError: Failed to load the compiled ops"),
])
def test_an_import_failing_outside_the_engines_checks_stays_import_error(last, error):
    text = tb(*_ENGINE_IMPORTS, last, error=error)
    assert cause_of(text, "vllm") is Cause.IMPORT_ERROR


@pytest.mark.parametrize("error", [
    "sqlite3.OperationalError: database or disk is full",
    "OSError: [Errno 28] No space left on device: '/cache/outlines/cache.db'",
])
def test_a_full_disk_under_a_modules_top_level_is_not_import_error(error):
    # SGLang importing its outlines backend, whose top level opens Outlines' disk cache on a
    # full disk (dy106): the host's storage, not a package that failed to import
    text = tb((f"{SG}/constrained/base_grammar_backend.py", "create_grammar_backend",
               "from sglang.srt.constrained.outlines_backend import OutlinesGrammarBackend"),
              (f"{SG}/constrained/outlines_backend.py", "<module>",
               "from sglang.srt.constrained.outlines_jump_forward import OutlinesJumpForwardMap"),
              (f"{SG}/constrained/outlines_jump_forward.py", "<module>", "@disk_cache()"),
              ("/x/site-packages/diskcache/core.py", "reset", "sql(statement)"),
              error=error)
    assert cause_of(text, "sglang") is Cause.UNKNOWN


@pytest.mark.parametrize(("frame", "cause"), [
    ((f"{VL}/distributed/device_communicators/pynccl.py", "__init__",
      "self.comm: ncclComm_t = self.nccl.ncclCommInitRank("), Cause.NCCL_ERROR),
    (("/usr/lib/python3/dist-packages/triton/compiler/compiler.py", "compile",
      "next_module = compile_ir(module, metadata)"), Cause.TRITON_COMPILE_ERROR),
])
def test_frames_cut_before_their_exception_name_no_cause(frame, cause):
    """Where a traceback failed is not why: the corpus labels a traceback the log cuts before
    its exception line unknown (its README), whatever family its frames suggest."""
    assert cause_of(tb(frame, prefix=CORE), "vllm") is Cause.UNKNOWN
    # with its exception line (one that names no cause itself) the frames name it
    assert cause_of(tb(frame, error="IndexError: map::at", prefix=CORE), "vllm") is cause
    # cut at its raise statement, the exception is in view
    raising = tb(frame, ("/usr/lib/python3.12/subprocess.py", "run",
                         "raise CalledProcessError(retcode, process.args,"), prefix=CORE)
    assert cause_of(raising, "vllm") is cause


def test_a_message_logged_at_error_level_reads_as_an_error():
    line = "ERROR 08-03 11:35:28 [nixl_connector.py:343] NIXL is not available"
    failed = [line, "ERROR 08-03 11:35:28 [core.py:519] EngineCore failed to start."]
    assert verdict(*failed, engine="vllm").cause is Cause.IMPORT_ERROR
    # guard: the same words at info level are no error of the run's
    info = [line.replace("ERROR", "INFO"), failed[1]]
    assert verdict(*info, engine="vllm").cause is Cause.UNKNOWN


def test_sglangs_own_kill_after_a_childs_sigquit_is_not_the_oom_killer():
    quit_ = ("[2026-05-16 13:05:37] Received sigquit from a child process. It usually means the "
             "child failed.")
    killed = ("./deepseek32.sh: line 28:  8891 Killed                  python3 -m "
              "sglang.launch_server --port 30000")
    assert verdict(quit_, killed, engine="sglang").cause is Cause.UNKNOWN
    # guard: the shell's Killed alone is the host's OOM killer
    assert verdict("[2026-05-16 13:05:30] Load weight begin. avail mem=70.1 GB", killed,
                   engine="sglang").cause is Cause.HOST_OOM_KILLED


def test_a_lora_adapter_missing_at_its_path_is_model_not_found():
    text = tb((f"{VL}/lora/worker_manager.py", "_load_adapter", "raise ValueError("),
              error='ValueError: Loading lora ["table_qc failed: No adapter found for '
                    '/data/train/output/checkpoint-57"]', prefix=CORE)
    assert cause_of(text, "vllm") is Cause.MODEL_NOT_FOUND


# --- the forty-fifth batch's kinds ----------------------------------------------------------


@pytest.mark.parametrize("error", [
    "RuntimeError: level_zero backend failed with error: 20 (UR_RESULT_ERROR_DEVICE_LOST)",
    "RuntimeError: ZE_RESULT_ERROR_DEVICE_LOST",
])
def test_a_device_lost_by_the_driver_is_a_gpu_fault(error: str) -> None:
    text = tb((f"{VL}/v1/worker/xpu_worker.py", "determine_available_memory", "x = y()"),
              error=error, prefix=CORE)
    assert cause_of(text, "vllm") is Cause.GPU_FAULT
    # guard: the same backend failing with another status is no fault of the device
    other = tb((f"{VL}/v1/worker/xpu_worker.py", "determine_available_memory", "x = y()"),
               error="RuntimeError: level_zero backend failed with error: 78 "
                     "(UR_RESULT_ERROR_INVALID_ARGUMENT)", prefix=CORE)
    assert cause_of(other, "vllm") is not Cause.GPU_FAULT


# --- the forty-sixth batch's kinds ----------------------------------------------------------


def test_an_import_chain_under_the_engines_own_traceback_is_import_error() -> None:
    engine = tb((f"{VL}/model_executor/warmup/kernel_warmup.py", "kernel_warmup",
                 "from vllm.model_executor.warmup.x_warmup import ("),
                (f"{VL}/model_executor/warmup/x_warmup.py", "<module>", "import flashinfer.comm"),
                ("/x/flashinfer/comm/fd_exchange.py", "<module>", "def f() -> array.array[int]:"),
                error="TypeError: type 'array.array' is not subscriptable", prefix=CORE)
    report = tb((f"{VL}/v1/engine/utils.py", "wait_for_engine_startup", "raise RuntimeError("),
                error="RuntimeError: Engine core initialization failed. See root cause above. "
                      "Failed core proc(s): {}", prefix="(APIServer pid=1) ")
    assert cause_of(engine + report, "vllm") is Cause.IMPORT_ERROR
    # guard: the same TypeError outside an import names no cause
    plain = tb((f"{VL}/model_executor/warmup/kernel_warmup.py", "kernel_warmup", "f()"),
               error="TypeError: type 'array.array' is not subscriptable", prefix=CORE)
    assert cause_of(plain + report, "vllm") is Cause.UNKNOWN


@pytest.mark.parametrize(("error", "cause"), [
    ("openai_harmony.HarmonyError: invalid tiktoken vocab file: hash mismatch: computed=e3b0c442, "
     "expected=446a9538", Cause.CORRUPT_CHECKPOINT),
    ('RuntimeError: nrt_tensor_allocate status=4 message="Allocation Failure"', Cause.CUDA_OOM),
    ("RuntimeError: oneCCL: ze_fd_manager.cpp:214 fill_device_fds: EXCEPTION: open failed: fd: -1",
     Cause.NCCL_ERROR),
    ("ValueError: moe_backend='triton' is not supported for NvFP4 MoE. Expected one of "
     "['cutlass', 'flashinfer_trtllm']", Cause.INVALID_CONFIG),
])
def test_the_forty_sixth_batchs_messages(error: str, cause: Cause) -> None:
    text = tb((f"{VL}/v1/worker/gpu_worker.py", "init_device", "x = y()"), error=error,
              prefix=CORE)
    assert cause_of(text, "vllm") is cause


def test_a_triton_kernels_compile_diagnostic_is_triton_compile_error() -> None:
    lines = ["INFO 10-15 08:53:00 model_runner.py:1071] Loading model weights took 14.9595 GB",
             "error: triton_flash_attention.py:211:0: stack frame size (164332) exceeds limit "
             "(131056) in function 'attn_fwd_0d1d2d3de45'"]
    assert cause_of("\n".join(lines) + "\n", "vllm") is Cause.TRITON_COMPILE_ERROR


# --- the forty-seventh batch's kinds --------------------------------------------------------


@pytest.mark.parametrize(("error", "cause"), [
    ("RuntimeError: Currently, block scaled fp8 gemm is not implemented for Blackwell",
     Cause.UNSUPPORTED_ARCH),
    ("OSError: Can't load image processor for 'org/model'. If you were trying to load it from "
     "'https://huggingface.co/models', make sure you don't have a local directory",
     Cause.CORRUPT_CHECKPOINT),
    ("ValueError: invalid literal for int() with base 10: 'GPU-64b90baa-0cf1-11f1-857b-fd56668b7053'",
     Cause.INVALID_CONFIG),
    ("libc++abi: terminating due to uncaught exception of type std::runtime_error: [METAL] Command "
     "buffer execution failed: Insufficient Memory (00000008:kIOGPUCommandBufferCallbackErrorOutOf"
     "Memory)", Cause.CUDA_OOM),
])
def test_the_forty_seventh_batchs_messages(error: str, cause: Cause) -> None:
    text = tb((f"{VL}/v1/worker/gpu_worker.py", "init_device", "x = y()"), error=error,
              prefix=CORE)
    assert cause_of(text, "vllm") is cause


def test_an_int_parse_of_a_plain_word_is_no_device_list() -> None:
    text = tb((f"{VL}/v1/worker/gpu_worker.py", "init_device", "x = y()"),
              error="ValueError: invalid literal for int() with base 10: 'auto'", prefix=CORE)
    assert cause_of(text, "vllm") is not Cause.INVALID_CONFIG


def test_a_launch_argument_naming_a_missing_file_is_invalid_config() -> None:
    text = tb((f"{VL}/entrypoints/openai/cli_args.py", "validate_parsed_serve_args",
               "validate_chat_template(args.chat_template)"),
              error="ValueError: The supplied chat template string (tool_use) appears path-like, "
                    "but doesn't exist!")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


# --- round 2, session 17: SGLang's capture dying with its error cut ---------------------------

_CAPTURE_START = [
    "[2025-06-19 15:12:27] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, "
    "avail mem=21.96 GB, mem usage=8.81 GB.",
    "[2025-06-19 15:12:27] KV Cache is allocated. #tokens: 132681, K size: 9.11 GB, V size: 9.11 GB",
    "[2025-06-19 15:12:27] Memory pool end. avail mem=3.46 GB",
    "[2025-06-19 15:12:27] Capture cuda graph begin. This can take up to several minutes. "
    "avail mem=2.85 GB",
    "Capturing batches (avail_mem=2.85 GB):   0%|          | 0/4 [00:00<?, ?it/s]",
    "[2025-06-19 15:12:27] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/x/sglang/srt/managers/scheduler.py", line 2546, in run_scheduler_process',
    "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, pp_rank, dp_rank)",
    '  File "/x/sglang/srt/managers/scheduler.py", line 312, in __init__',
    "    self.tp_worker = TpWorkerClass(",
]
_FIRST_BATCH = [
    '  File "/x/sglang/srt/model_executor/cuda_graph_runner.py", line 374, in capture',
    "    ) = self.capture_one_batch_size(bs, forward)",
    '  File "/x/sglang/srt/model_executor/cuda_graph_runner.py", line 502, in '
    "capture_one_batch_size",
]


def test_a_capture_cut_in_the_schedulers_constructor_names_no_cause() -> None:
    # the capture had begun, but the traceback stops before showing where it failed
    verdict = classify_text("\n".join(_CAPTURE_START) + "\n", engine="sglang")
    assert (verdict.outcome, verdict.phase) == (Outcome.CRASHED, Phase.CUDA_GRAPH_CAPTURE)
    assert verdict.cause is Cause.UNKNOWN


def test_a_capture_cut_in_its_first_batch_is_read_as_the_architecture() -> None:
    # ../sglang-logs/01's shape: the first batch's forward failing, the error cut
    text = "\n".join(_CAPTURE_START + _FIRST_BATCH) + "\n"
    assert cause_of(text, "sglang") is Cause.UNSUPPORTED_ARCH


# --- the forty-ninth batch's kinds ----------------------------------------------------------


def test_an_op_with_no_kernel_for_the_devices_backend_is_unsupported_arch() -> None:
    error = ("NotImplementedError: Could not run '_C::selective_scan_fwd' with arguments from "
             "the 'CUDA' backend.")
    assert cause_of(error + "\n", "vllm") is Cause.UNSUPPORTED_ARCH
    # guard: the Meta backend is torch.compile tracing an op without a fake kernel
    meta = ("NotImplementedError: Could not run 'vllm::fused_op' with arguments from the 'Meta' "
            "backend.")
    assert cause_of(meta + "\n", "vllm") is not Cause.UNSUPPORTED_ARCH


# --- the fiftieth batch's kinds -------------------------------------------------------------


def test_a_quantized_shape_the_tensor_parallel_split_breaks_is_invalid_config() -> None:
    error = ("ValueError: The input size is not aligned with the quantized weight shape. This "
             "can be caused by too large tensor parallel size.")
    text = tb((f"{VL}/model_executor/layers/linear.py", "__init__", "x = y()"), error=error)
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


def test_a_routers_probe_of_a_starting_worker_is_no_failure_of_the_run() -> None:
    line = ('WARN sglang_router_rs::core::worker: src/core/worker.rs:615: HTTP health check '
            'failed for grpc://192.168.1.200:31001: reqwest::Error { kind: Builder, source: '
            'BadScheme }')
    v = classify_text(line + "\n", engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, Cause.UNKNOWN)
    # guard: SGLang's own server failing its check is a started server that stopped answering
    own = ("[2026-07-28 09:34:37] Health check failed. Server couldn't get a response from "
           "detokenizer for last 20 seconds.")
    assert classify_text(own + "\n", engine="sglang").cause is Cause.HEALTH_CHECK_FAILED


def test_the_heartbeat_monitors_store_check_failing_is_a_rank_failure() -> None:
    # torch's C++ backtrace of the NCCL heartbeat monitor's TCPStore check, its message cut:
    # the store's host (rank 0's process) is gone
    frames = [
        "frame #3: <unknown function> + 0x5d6b49a (0x7fe50b81f49a in /usr/local/lib/python3.12/"
        "dist-packages/torch/lib/libtorch_cpu.so)",
        "frame #4: c10d::TCPStore::check(std::vector<std::__cxx11::basic_string<char> > const&) "
        "+ 0x2a (0x7fe50b8233aa in /usr/local/lib/python3.12/dist-packages/torch/lib/"
        "libtorch_cpu.so)",
        "frame #5: c10d::ProcessGroupNCCL::HeartbeatMonitor::runLoop() + 0x398 (0x7fe4cd9340c8 "
        "in /usr/local/lib/python3.12/dist-packages/torch/lib/libtorch_cuda.so)"]
    assert cause_of("\n".join(frames) + "\n", "sglang") is Cause.MULTINODE_RANK_FAILURE


_POOL_MADE = [
    "[2026-03-01 10:00:00 TP0] Load weight end. type=Qwen3ForCausalLM, dtype=torch.bfloat16, "
    "avail mem=4.10 GB, mem usage=26.01 GB.",
    "[2026-03-01 10:00:01 TP0] KV Cache is allocated. #tokens: 52000, K size: 1.2 GB, V size: "
    "1.2 GB",
    "[2026-03-01 10:00:01 TP0] Memory pool end. avail mem=1.40 GB",
    "[2026-03-01 10:00:02 TP0] Scheduler hit an exception: Traceback (most recent call last):",
    '  File "/x/sglang/srt/managers/scheduler.py", line 2546, in run_scheduler_process',
    "    scheduler = Scheduler(server_args, port_args, gpu_id, tp_rank, pp_rank, dp_rank)",
]


def test_a_cut_error_after_sglang_made_its_pool_is_not_the_pools_sizing() -> None:
    assert cause_of("\n".join(_POOL_MADE) + "\n", "sglang") is Cause.UNKNOWN
    # guard: cut right after the weights (../sglang-logs/23's shape), the pool sizing is the guess
    text = "\n".join(_POOL_MADE[:1] + _POOL_MADE[3:]) + "\n"
    assert cause_of(text, "sglang") is Cause.KV_CACHE_OOM


# --- the fifty-first batch's kinds ----------------------------------------------------------


def test_a_ray_node_listing_no_device_of_the_platform_is_invalid_config() -> None:
    error = ("ValueError: Current node has no NPU available. current_node_resource={'memory': "
             "2150000000.0, 'GPU': 8.0, 'CPU': 192.0}")
    text = tb((f"{VL}/executor/ray_utils.py", "initialize_ray_cluster", "x = y()"), error=error,
              prefix=CORE)
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


# --- the fifty-second batch's kinds ---------------------------------------------------------


@pytest.mark.parametrize("line", [
    # vLLM's Transformers fallback, reached by an architecture vLLM does not serve
    "ValueError: Cannot find model module. 'MiniMaxM1ForCausalLM' is not a registered model in "
    "the Transformers library (only relevant if the model is meant to be in Transformers)",
    # a tool-call parser this build does not have
    "KeyError: 'invalid tool call parser: kimi_k2 (chose from { deepseek_v3,hermes,mistral })'",
    # a checkpoint's compressed-tensors scheme this build cannot run
    "NotImplementedError: No compressed-tensors compatible scheme was found.",
])
def test_newer_wordings_of_a_config_the_engine_rejects(line: str) -> None:
    v = verdict(line, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH, Cause.INVALID_CONFIG)


# --- the fifty-third batch's kinds ----------------------------------------------------------


def test_a_kernel_library_without_its_gpu_build_is_import_error() -> None:
    lines = ("NotImplementedError: No operator found for `memory_efficient_attention_forward` "
             "with inputs:",
             "`cutlassF-pt` is not supported because:",
             "    xFormers wasn't build with CUDA support")
    assert verdict(*lines, engine="vllm").cause is Cause.IMPORT_ERROR
    assert verdict("AssertionError: Torch not compiled with CUDA enabled",
                   engine="vllm").cause is Cause.IMPORT_ERROR
    # guard: the same words as a probe's warning of a host without nvcc are no error
    v = verdict("Failed to get device capability: nvcc not found and PyTorch is not built "
                "with CUDA support.", engine="sglang")
    assert v.cause is not Cause.IMPORT_ERROR


# --- the fifty-sixth batch's kinds ----------------------------------------------------------


def test_the_nvidia_drivers_own_out_of_memory_is_cuda_oom() -> None:
    lines = ("18:03:00  (Worker_TP0) INFO [gpu_model_runner.py:5332] Loading drafter model...",
             "18:03:03  kernel: NVRM: nvCheckOkFailedNoLog: Check failed: Out of memory "
             "[NV_ERR_NO_MEMORY]",
             "18:03:38  (EngineCore) ERROR [core.py:1349] EngineCore")
    assert verdict(*lines, engine="vllm").cause is Cause.CUDA_OOM


def test_another_frameworks_ray_actor_dying_is_no_multinode_failure() -> None:
    died = "ray.exceptions.ActorDiedError: The actor died unexpectedly before finishing this task."
    verl = [died, "        class_name: create_colocated_worker_cls.<locals>.WorkerDict",
            "        actor_id: 5066c201b724a3936948a11201000000"]
    assert verdict(*verl, engine="vllm").cause is Cause.UNKNOWN
    # guard: vLLM's own rank worker on another node is
    vllm = [died, "        class_name: RayWorkerWrapper", verl[2]]
    assert verdict(*vllm, engine="vllm").cause is Cause.MULTINODE_RANK_FAILURE


# --- the fifty-seventh batch's kinds --------------------------------------------------------


_RAY_W = "(RayWorkerWrapper pid=5993) "


def test_abseils_report_of_a_fatal_signal_is_a_death() -> None:
    for sig in ("SIGSEGV", "SIGABRT"):
        v = verdict(f"{_RAY_W}*** {sig} received at time=1722289279 on cpu 61 ***",
                    f"{_RAY_W}    @     0x7f3c7fab6090  1954032864  (unknown)", engine="vllm")
        assert v.outcome is Outcome.CRASHED, sig
    # guard: SIGTERM's report is a stop asked for
    v = verdict(f"{_RAY_W}*** SIGTERM received at time=1722289279 on cpu 61 ***", engine="vllm")
    assert v.outcome is not Outcome.CRASHED


def test_a_fatal_signal_whose_pc_is_in_nccl_is_nccl_error() -> None:
    head = f"{_RAY_W}*** SIGSEGV received at time=1722289279 on cpu 61 ***"
    for func in ("addProxyOpIfNeeded", "ncclProxyProgress"):
        pc = f"{_RAY_W}PC: @     0x7f0c73d2944a  (unknown)  {func}()"
        assert verdict(head, pc, engine="vllm").cause is Cause.NCCL_ERROR, func
    # guard: a segfault elsewhere names no cause
    pc = f"{_RAY_W}PC: @     0x7f0c73d2944a  (unknown)  PyObject_Call()"
    assert verdict(head, pc, engine="vllm").cause is Cause.UNKNOWN


def test_rays_terminate_handler_reporting_an_exception_is_a_death() -> None:
    v = verdict("(pid=5623) [2023-08-25 00:42:40,265 E 5623 7733] logging.cc:97: Unhandled "
                "exception: N5boost10wrapexceptINS_6system12system_errorEEE. what(): thread: "
                "Resource temporarily unavailable [system:11]", engine="vllm")
    assert v.outcome is Outcome.CRASHED


def test_triton_loading_a_kernel_image_the_gpu_refuses_is_a_compile_error() -> None:
    v = verdict("(EngineCore_DP0 pid=114700) ERROR 07-31 15:52:26 [core.py:708] RuntimeError: "
                "Triton Error [CUDA]: device kernel image is invalid", engine="vllm")
    assert v.cause is Cause.TRITON_COMPILE_ERROR
    # guard: a CUDA build with no kernel for the GPU is its architecture
    v = verdict("RuntimeError: CUDA error: no kernel image is available for execution on the "
                "device", engine="vllm")
    assert v.cause is Cause.UNSUPPORTED_ARCH


# --- the fifty-eighth batch's kinds ---------------------------------------------------------


def test_torchs_oom_message_body_alone_is_a_cuda_oom_death() -> None:
    v = verdict("    Tried to allocate 136.00 MiB. GPU 0 has a total capacity of 22.36 GiB of",
                "    which 120.88 MiB is free.", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.CUDA_OOM)


# --- the fifty-ninth batch's kinds ----------------------------------------------------------


def test_a_feature_the_parallel_layout_cannot_run_is_invalid_config() -> None:
    for msg in ("ValueError: Prequant BitsAndBytes models with TP is not supported.Please try "
                "with PP.",
                "NotImplementedError: LoRA is not supported with pipeline parallelism"):
        assert verdict(msg, engine="sglang").cause is Cause.INVALID_CONFIG, msg
    # guard: a feature refused for the GPU is not the layout's
    assert verdict("ValueError: FP8 is not supported on this GPU",
                   engine="vllm").cause is not Cause.INVALID_CONFIG


def test_an_unknown_kv_connector_is_invalid_config() -> None:
    v = verdict("ERROR 05-13 08:41:45 [engine.py:598] Unsupported connector type: "
                "LMCacheConnectorV1", "ERROR 05-13 08:41:45 [engine.py:598] Traceback (most "
                "recent call last):", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG)


def test_v0_multiproc_worker_exiting_is_a_stop() -> None:
    line = "(VllmWorkerProcess pid=9486) INFO 08-15 11:37:35 multiproc_worker_utils.py:237] {}"
    v = verdict(line.format("Worker exiting"), engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, None)
    # guard: a worker that failed first is a failure
    v = verdict(line.format("Worker failed"), line.format("Traceback (most recent call last):"),
                line.format("RuntimeError: CUDA error: an illegal memory access was encountered"),
                line.format("Worker exiting"), engine="vllm")
    assert v.outcome is Outcome.CRASHED


# --- the sixtieth batch's kinds -------------------------------------------------------------


def test_neurons_out_of_bounds_execution_is_an_illegal_memory_access() -> None:
    v = verdict("(EngineCore_DP0 pid=243) ERROR 06-27 02:23:02 [core.py:1008] RuntimeError: "
                "Failed to execute the model status=1006 message=Execution Out-Of-Bounds Memory "
                "Access", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.ILLEGAL_MEMORY_ACCESS)


# --- the sixty-first batch's kinds ----------------------------------------------------------


def test_a_triton_compile_error_re_raised_by_a_wrapper_keeps_its_cause() -> None:
    # Triton's CompilationError message (`at L:C:` and the kernel's source) under another
    # exception's name: Unsloth's load_vllm re-raising it from vLLM's profile run
    v = verdict("Traceback (most recent call last):",
                '  File "/venv/lib/python3.10/site-packages/unsloth_zoo/vllm_utils.py", line '
                "1051, in load_vllm",
                "    raise RuntimeError(error)",
                "RuntimeError: at 63:4:",
                "    lora_index = tl.load(lora_indices + cur_batch)",
                "    if lora_index == -1:",
                "        return", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.TRITON_COMPILE_ERROR)
    # a time of day in an exception's message is not a kernel's place
    v = verdict("Traceback (most recent call last):",
                '  File "/srv/app.py", line 3, in <module>',
                "RuntimeError: deadline passed at 10:30:", engine="vllm")
    assert v.cause is not Cause.TRITON_COMPILE_ERROR


def test_v0s_engine_logging_the_cpu_platforms_refusal_before_its_traceback() -> None:
    # V0's run_mp_engine logs the exception's message alone, then its traceback (cut here)
    v = verdict("ERROR 08-29 11:24:10 [engine.py:467] CPU backend only supports V1.",
                "ERROR 08-29 11:24:10 [engine.py:467] Traceback (most recent call last):",
                'ERROR 08-29 11:24:10 [engine.py:467]   File "/venv/vllm/engine/multiprocessing/'
                'engine.py", line 455, in run_mp_engine',
                "ERROR 08-29 11:24:10 [engine.py:467]     engine = MQLLMEngine.from_vllm_config(",
                engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH,
                                             Cause.INVALID_CONFIG)


# --- the sixty-second batch's kinds ---------------------------------------------------------


def test_an_adapter_the_lora_manager_cannot_apply_is_invalid_config() -> None:
    e = "ERROR 10-11 16:03:09 engine.py:157]"
    v = verdict(f"{e} RuntimeError('Error in model execution: Loading lora /m/adapter failed')",
                f"{e} Traceback (most recent call last):",
                f'{e}   File "/vllm/vllm/lora/utils.py", line 113, in parse_fine_tuned_lora_name',
                f'{e}     raise ValueError(f"{{name}} is unsupported LoRA weight")',
                f"{e} ValueError: base_model.model.lm_head.weight is unsupported LoRA weight",
                engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG)
    v = verdict("Traceback (most recent call last):",
                '  File "/vllm/vllm/lora/models.py", line 250, in from_local_checkpoint',
                "ValueError: While loading /m/adapter, expected target modules in ['q_proj', "
                "'v_proj'] but received ['lm_head']. Please verify that the loaded LoRA module "
                "is correct", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG)


# --- the sixty-third batch's kinds (real engines run here, one fault each) ------------------

_SITE = "/venv/lib/python3.11/site-packages"


def test_a_model_file_that_is_not_json_is_a_corrupt_checkpoint() -> None:
    # transformers naming the file ...
    v = verdict("Traceback (most recent call last):",
                f'  File "{_SITE}/transformers/configuration_utils.py", line 991, in '
                "_dict_from_json_file",
                "json.decoder.JSONDecodeError: Unterminated string starting at: line 7 column 3",
                "",
                "During handling of the above exception, another exception occurred:",
                "",
                "Traceback (most recent call last):",
                f'  File "{_SITE}/transformers/configuration_utils.py", line 886, in '
                "_get_config_dict",
                "OSError: It looks like the config file at '/m/config.json' is not a valid JSON "
                "file.", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.CORRUPT_CHECKPOINT)
    # ... or only its reader's frame above the json module's (a tokenizer.json cut short)
    lines = ["Traceback (most recent call last):",
             f'  File "{_SITE}/transformers/tokenization_utils_base.py", line 1909, in '
             "_from_pretrained",
             "    tokenizer_config = json.load(f)",
             '  File "/usr/lib/python3.11/json/__init__.py", line 293, in load',
             "    return loads(fp.read(),",
             '  File "/usr/lib/python3.11/json/decoder.py", line 353, in raw_decode',
             "    obj, end = self.scan_once(s, idx)",
             "json.decoder.JSONDecodeError: Expecting ',' delimiter: line 113 column 13 (char "
             "2000)"]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.CORRUPT_CHECKPOINT)
    # the same error parsing something that is no model file (a server's answer) names nothing
    other = [line.replace("transformers/tokenization_utils_base.py", "myapp/client.py")
             for line in lines]
    assert verdict(*other, engine="vllm").cause is Cause.UNKNOWN


def test_an_index_naming_a_missing_shard_is_a_corrupt_checkpoint() -> None:
    w = "(Worker pid=7103) ERROR 12-04 16:11:02 [multiproc_executor.py:953]"
    v = verdict("(Worker pid=7103) INFO 12-04 16:11:02 [cpu_model_runner.py:68] Starting to load "
                "model /m...",
                f"{w} FileNotFoundError: Weight files referenced in index but missing: "
                "{'/m/model-00002-of-00004.safetensors'}",
                "RuntimeError: Engine core initialization failed. See root cause above.",
                engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.WEIGHT_LOADING,
                                             Cause.CORRUPT_CHECKPOINT)


def test_the_cpu_workers_kv_cache_share_left_empty_is_kv_cache_oom() -> None:
    v = verdict("RuntimeError: Worker failed with error 'Available memory on node 0 (18.79/20.46 "
                "GiB) on kv cache allocation is less than requested memory for kv (-0.58/0.1 "
                "GiB). Reduce CPU memory used by other processes.', please check the stack "
                "trace above for the root cause", engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC,
                                             Cause.KV_CACHE_OOM)


def test_more_ranks_than_numa_nodes_is_invalid_config() -> None:
    v = verdict("(EngineCore pid=2675) ERROR 12-04 15:45:05 [core.py:1510] AssertionError: Not "
                "enough allowed NUMA nodes to bind threads of 4 local CPUWorkers. Allowed NUMA "
                "nodes are [0]. Please try to bind threads manually or decrease DP/TP/PP.",
                engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG)
    v = verdict("[2026-12-04 16:01:35 TP1] Scheduler hit an exception: Traceback (most recent "
                "call last):",
                "AssertionError: SGLANG_CPU_OMP_THREADS_BIND is not set, in this case, the total "
                "number of ranks (dp_size * tp_size * pp_size = 2) should be smaller than or "
                "equal to number of numa node on the machine 1.", engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG)


def test_a_load_format_the_build_lacks_is_invalid_config() -> None:
    v = verdict("(Worker pid=6169) INFO 12-04 16:02:13 [cpu_model_runner.py:68] Starting to load "
                "model /m...",
                "(Worker pid=6169) ERROR 12-04 16:02:13 [multiproc_executor.py:953] ValueError: "
                "Load format `gguf` is not supported",
                "RuntimeError: Engine core initialization failed. See root cause above.",
                engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.WEIGHT_LOADING,
                                             Cause.INVALID_CONFIG)


def test_a_package_missing_under_its_own_name_is_import_error() -> None:
    for msg in ("importlib.metadata.PackageNotFoundError: No package metadata was found for vllm",
                "pkg_resources.DistributionNotFound: The 'triton' distribution was not found and "
                "is required by the application"):
        v = verdict("Traceback (most recent call last):",
                    '  File "/venv/bin/vllm", line 8, in <module>', msg, engine="vllm")
        assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.IMPORT_ERROR), msg


# --- the sixty-fourth batch's kinds (more real engine runs, other faults) -------------------


def test_a_weight_file_read_as_the_config_is_invalid_config() -> None:
    v = verdict("OSError: It looks like the config file at '/m/model-00001-of-00004.safetensors' "
                "is not a valid JSON file.", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG)
    v = verdict("OSError: It looks like the config file at '/m/config.json' is not a valid JSON "
                "file.", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.CORRUPT_CHECKPOINT)


def test_json_a_loader_or_a_launch_argument_could_not_parse() -> None:
    def tb(reader: str) -> list[str]:
        return ["Traceback (most recent call last):",
                f'  File "{_SITE}/{reader}", line 597, in reader',
                '  File "/usr/lib/python3.11/json/__init__.py", line 346, in loads',
                '  File "/usr/lib/python3.11/json/decoder.py", line 353, in raw_decode',
                "json.decoder.JSONDecodeError: Unterminated string starting at: line 9 column 46"]
    # a checkpoint's index read by the weight loader
    v = verdict(*tb("vllm/model_executor/model_loader/weight_utils.py"), engine="vllm")
    assert v.cause is Cause.CORRUPT_CHECKPOINT
    # a JSON-valued launch argument parsed where the server's arguments are resolved
    v = verdict(*tb("sglang/srt/configs/model_config.py"), engine="sglang")
    assert v.cause is Cause.INVALID_CONFIG


def test_launch_arguments_that_do_not_fit_are_invalid_config() -> None:
    for msg in ("RuntimeError: Chat template /x/t.jinja is not a built-in template name or a "
                "valid chat template file path.",
                "ValueError: No common block size for 7 (CPU_ATTN: [MultipleOf(32)]).",
                "ValueError: Cannot find the config file for awq",
                "ValueError: /models/llama-3-8b is not a file."):
        v = verdict("Traceback (most recent call last):",
                    '  File "/venv/sglang/srt/managers/scheduler.py", line 1, in __init__', msg,
                    engine="sglang")
        assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), msg


def test_a_local_folder_with_no_model_type_is_a_corrupt_checkpoint() -> None:
    v = verdict("ValueError: Unrecognized model in /models/qwen-7b. Should have a `model_type` "
                "key in its config.json, or contain one of the following strings in its name",
                engine="sglang")
    assert v.cause is Cause.CORRUPT_CHECKPOINT
    # a hub repository id in the same words: the repository is wrong
    v = verdict("ValueError: Unrecognized model in org/some-model. Should have a `model_type` "
                "key in its config.json", engine="sglang")
    assert v.cause is Cause.MODEL_NOT_FOUND
    # a path to one of the model's files (`--tokenizer /m/tokenizer.json`): a flag that named a
    # file where a folder belongs, not a folder lacking its config - the path is what is wrong
    # (el103: vLLM logs it while retrying, then dies of the hub's `Repo id must be ...`)
    v = verdict("ERROR 12-06 23:38:51 [repo_utils.py:124] Error parsing config for "
                "/models/tiny/tokenizer.json: Unrecognized model in /models/tiny/tokenizer.json. "
                "Should have a `model_type` key in its config.json.", engine="vllm")
    assert v.cause is Cause.MODEL_NOT_FOUND


def test_resolving_the_architecture_before_loading_is_launch() -> None:
    # SGLang's expert-location setup resolving the model class, before 'Load weight begin'
    v = verdict("[2026-12-04 16:27:09] Init parallel begin.",
                "[2026-12-04 16:27:10] Scheduler hit an exception: Traceback (most recent call "
                "last):",
                '  File "/venv/sglang/srt/model_executor/model_runner.py", line 762, in '
                "maybe_init_expert_location_metadata",
                '  File "/venv/sglang/srt/model_loader/utils.py", line 231, in '
                "get_model_architecture",
                "ValueError: Cannot find model module. 'TinyFooForCausalLM' is not a registered "
                "model in the Transformers library", engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH, Cause.INVALID_CONFIG)


# --- the sixty-fifth batch's kinds (real engines again) -------------------------------------


def test_an_address_or_device_the_host_does_not_have_is_invalid_config() -> None:
    v = verdict("(APIServer pid=15162) INFO 12-04 16:34:10 [api_utils.py:286] non-default args: "
                "{'host': '256.0.0.1'}",
                "Traceback (most recent call last):",
                '  File "/usr/lib/python3.11/socket.py", line 974, in getaddrinfo',
                "socket.gaierror: [Errno -2] Name or service not known", engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH, Cause.INVALID_CONFIG)
    # a DNS outage is the network's, not the launch's
    v = verdict("Traceback (most recent call last):",
                "socket.gaierror: [Errno -3] Temporary failure in name resolution", engine="vllm")
    assert v.cause is not Cause.INVALID_CONFIG
    # a CPU device reaching NCCL's communicator: the setting, not NCCL
    v = verdict("[2026-12-04 16:47:06 TP1] Scheduler hit an exception: Traceback (most recent "
                "call last):",
                '  File "/venv/sglang/srt/distributed/device_communicators/pynccl.py", line 116, '
                "in __init__",
                '  File "/venv/torch/cuda/_utils.py", line 630, in _get_device_index',
                "ValueError: Expected a cuda device, but got: cpu", engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG)


# --- the sixty-sixth batch's kinds (real engines, a fourth time) ----------------------------


def test_a_backends_package_missing_inside_a_validation_error_is_import_error() -> None:
    v = verdict("pydantic_core._pydantic_core.ValidationError: 1 validation error for "
                "ParallelConfig",
                "  Value error, Failed to import Ray: No module named 'ray'.Please install Ray "
                "with `pip install ray`. [type=value_error, input_value=ArgsKwargs((), {})]",
                engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.IMPORT_ERROR)


def test_a_weight_file_that_is_no_pickle_under_weights_only_is_corrupt() -> None:
    w = "(Worker pid=18696) ERROR 12-04 16:53:38 [multiproc_executor.py:953]"
    v = verdict(f"{w} _pickle.UnpicklingError: Weights only load failed. In PyTorch 2.6, we "
                "changed the default value of the `weights_only` argument in `torch.load`",
                f"{w} Please file an issue with the following so that we can make "
                "`weights_only=True` compatible with your use case: WeightsUnpickler error: ",
                f"{w} ",
                f"{w} Unsupported operand 118", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.CORRUPT_CHECKPOINT)


def test_a_weight_file_given_where_a_repository_id_is_read_is_invalid_config() -> None:
    v = verdict("huggingface_hub.errors.HFValidationError: Repo id must be in the form "
                "'repo_name' or 'namespace/repo_name': '/m/model-00001-of-00004.safetensors'. Use "
                "`repo_type` argument if needed.", engine="sglang")
    assert v.cause is Cause.INVALID_CONFIG
    # a folder path in the same words is still a model that is not there
    v = verdict("huggingface_hub.errors.HFValidationError: Repo id must be in the form "
                "'repo_name' or 'namespace/repo_name': '/models/no-such-model'. Use `repo_type` "
                "argument if needed.", engine="sglang")
    assert v.cause is Cause.MODEL_NOT_FOUND


# --- the sixty-seventh batch's kinds (real engines; faults chosen by a helper blind to the rules)

_UP = ("(EngineCore pid=18293) INFO 12-04 19:07:27 [core.py:402] init engine (profile, create kv "
       "cache, warmup model) took 24.86 s")
_API = "(APIServer pid=18216) INFO 12-04 19:07:27"
_CORE = "(EngineCore pid=18293) INFO 12-04 19:07:27"


def _own_teardown() -> list[str]:
    """vLLM 2026's API server tearing its engine down unasked, then its traceback."""
    return [f"{_API} [core_client.py:770] [shutdown] MPClient: start timeout=0s",
            f"{_API} [utils.py:628] [shutdown] Process manager: send sigterm to process EngineCore",
            f"{_CORE} [core.py:1454] [shutdown] EngineCore: trigger received signal=SIGTERM",
            f"{_CORE} [core.py:1499] [shutdown] EngineCore: exiting busy loop",
            f"{_API} [core_client.py:777] [shutdown] MPClient: complete"]


def test_an_api_servers_own_teardown_then_its_traceback_is_a_crash_not_a_stop() -> None:
    v = verdict(_UP, *_own_teardown(),
                *frame_lines((f"{VL}/entrypoints/launchers/app.py", "build_app"),
                             ("/usr/lib/python3.11/importlib/__init__.py", "import_module")),
                "ModuleNotFoundError: No module named 'corp_auth'", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.IMPORT_ERROR), v
    # a stop asked of the run first: the same lines are its shutdown, the traceback noise
    v = verdict(_UP, f"{_CORE} [core.py:1454] [shutdown] EngineCore: trigger received "
                "signal=SIGTERM", f"{_API} [launcher.py:254] [shutdown] API server: shutdown "
                "triggered", *_own_teardown(), *frame_lines((f"{VL}/entrypoints/launchers/"
                                                            "app.py", "build_app")),
                "ModuleNotFoundError: No module named 'corp_auth'", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.READY, None), v


def test_the_engine_core_stopped_alone_while_serving_is_a_death() -> None:
    lines = [_UP, "INFO:     Application startup complete.",
             'INFO:     127.0.0.1:49212 - "POST /v1/completions HTTP/1.1" 200 OK',
             f"{_CORE} [core.py:1454] [shutdown] EngineCore: trigger received signal=SIGTERM",
             f"{_CORE} [core.py:1499] [shutdown] EngineCore: exiting busy loop"]
    client = (f"{_API} [core_client.py:817] [shutdown] MPClient: engine core exited "
              "unexpectedly; starting cleanup")
    v = verdict(*lines, client, 'INFO:     127.0.0.1:55132 - "POST /v1/completions HTTP/1.1" '
                "500 Internal Server Error", engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    # the API server's own shutdown before the client's line: a stop of the run
    v = verdict(*lines, f"{_API} [launcher.py:254] [shutdown] API server: shutdown triggered",
                client, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.READY, None), v


def test_the_whole_group_signalled_before_the_api_server_was_up_is_a_stop() -> None:
    """`timeout` (or `docker stop`) signals the whole group as the engine core comes up: the
    core logs the signal, its worker exits 0 on its own (it got the signal too), the API
    server, still waiting for its core, only sees the core gone. A stop, not a death; the
    same lines with the core signalled alone (its worker asked to exit) are one."""
    core = [f"{_CORE} [core.py:402] init engine (profile, create kv cache, warmup model) took "
            "9.81 s",
            f"{_CORE} [core.py:1454] [shutdown] EngineCore: trigger received signal=SIGTERM"]
    worker = (f"{_CORE} [multiproc_executor.py:315] Worker proc VllmWorker-0 died unexpectedly "
              "(exit code: 0), shutting down executor.")
    asked = f"{_CORE} [multiproc_executor.py:479] [shutdown] Executor: waiting for worker exit"
    tail = [f"{_API} [core_client.py:817] [shutdown] MPClient: engine core exited unexpectedly; "
            "starting cleanup", f"{_API} [async_llm.py:906] AsyncLLM output_handler failed.",
            f"{_API} [async_llm.py:906] vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
            "encountered an issue. See stack trace (above) for the root cause."]
    v = verdict(_UP, *core, worker, *tail, engine="vllm")
    assert v.outcome is not Outcome.CRASHED and v.cause is None, v
    v = verdict(_UP, *core, asked, *tail, engine="vllm")
    assert v.outcome is Outcome.CRASHED, v
    # a worker dead of another signal after the core's: no sign the group was signalled
    v = verdict(_UP, *core, worker.replace("code: 0", "code: -9"), *tail, engine="vllm")
    assert v.outcome is Outcome.CRASHED, v


def test_a_chat_templates_warmup_render_failing_is_no_warmup_failure() -> None:
    v = verdict(_UP, f"{_API} [base.py:380] Chat template warmup failed",
                f"{_API} [base.py:380] jinja2.exceptions.TemplateSyntaxError: unexpected '}}'",
                "INFO:     Application startup complete.",
                'INFO:     127.0.0.1:55152 - "POST /v1/completions HTTP/1.1" 200 OK',
                engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.READY, None), v
    # SGLang's warmup request failing is still one
    v = verdict("[2026-01-01 10:00:00] Initialization failed. warmup error: Traceback",
                engine="sglang")
    assert v.cause is Cause.WARMUP_FAILED, v


@pytest.mark.parametrize("error", [
    "ValueError: Unknown RoPE scaling type nosuch",
    "KeyError: \"Reasoning parser 'nosuchparser' not found. Available parsers: deepseek_r1, "
    "granite, hunyuan_a13b\"",
    "NotADirectoryError: [Errno 20] Not a directory: '/var/cache/vllm/torch_compile_cache'",
    "zmq.error.ZMQError: Too many open files",
    "RuntimeError: ('Could not load logging config. File does not exist: %s', "
    "'/etc/vllm/logging.json')",
])
def test_a_settings_value_the_engine_has_no_code_for_is_invalid_config(error) -> None:
    assert cause_of(tb((f"{VL}/model_executor/models/llama.py", "__init__", "x = f()"),
                       error=error), "vllm") is Cause.INVALID_CONFIG


def test_the_open_file_warning_quoting_the_error_is_not_a_cause() -> None:
    text = ("(APIServer pid=1) WARNING 12-04 19:07:37 [system_utils.py:255] Found ulimit of 20000 "
            "and failed to automatically increase with error current limit exceeds maximum "
            "limit. This can cause fd limit errors like `OSError: [Errno 24] Too many open "
            "files`. Consider increasing with ulimit -n\n")
    text += tb((f"{VL}/model_executor/models/llama.py", "forward", "x = f()"),
               error="RuntimeError: boom")
    assert cause_of(text, "vllm") is Cause.UNKNOWN


@pytest.mark.parametrize("frame,error", [
    ((f"{SG}/arg_groups/lora_hook.py", "check_lora_server_args", "assert cfg.lora_paths"),
     "AssertionError: When no initial --lora-paths is provided, you need to specify both "
     "--max-lora-rank and --lora-target-modules for LoRA initialization."),
    ((f"{SG}/arg_groups/kv_cache_hook.py", "handle_nvfp4_prefill_kv_dequant_dtype", "raise X("),
     "ValueError: NVFP4 prefill supports an FP8 E4M3 workspace or native NVFP4, but backend "
     "'intel_amx' provides neither."),
    ((f"{VL}/entrypoints/launchers/cli_args.py", "validate_parsed_serve_args", "raise TypeError("),
     "TypeError: Error: --enable-auto-tool-choice requires --tool-call-parser"),
])
def test_a_refusal_raised_by_the_engines_argument_checks_is_invalid_config(frame, error) -> None:
    assert cause_of(tb(frame, error=error), "sglang" if SG in frame[0] else "vllm") \
        is Cause.INVALID_CONFIG


def test_a_missing_shard_of_a_found_checkpoint_is_corrupt() -> None:
    err = "FileNotFoundError: [Errno 2] No such file or directory: '/m/{}'"
    text = tb((f"{VL}/model_executor/model_loader/weight_utils.py", "safetensors_weights_iterator",
               "with safe_open(st_file) as f:"), error=err.format("model-00003-of-00004.safetensors"))
    assert cause_of(text, "vllm") is Cause.CORRUPT_CHECKPOINT
    text = tb((f"{VL}/transformers_utils/config.py", "get_config", "x = f()"),
              error=err.format("config.json"))
    assert cause_of(text, "vllm") is Cause.MODEL_NOT_FOUND


def test_tensors_of_other_shapes_in_a_weight_loader_are_a_corrupt_checkpoint() -> None:
    err = ("RuntimeError: The size of tensor a (64) must match the size of tensor b (256) at "
           "non-singleton dimension 1")
    text = tb((f"{VL}/model_executor/models/utils.py", "_load_param", "weight_loader(p, w)"),
              (f"{VL}/model_executor/layers/vocab_parallel_embedding.py", "weight_loader",
               "param.data.copy_(loaded_weight)"), error=err)
    assert cause_of(text, "vllm") is Cause.CORRUPT_CHECKPOINT
    # the same words from a forward pass are no checkpoint's
    text = tb((f"{VL}/model_executor/models/llama.py", "forward", "x = a + b"), error=err)
    assert cause_of(text, "vllm") is Cause.UNKNOWN


def test_an_ssl_file_the_server_cannot_load_is_invalid_config() -> None:
    text = _UP + "\n" + tb(("/venv/lib/python3.11/site-packages/uvicorn/config.py",
                            "create_ssl_context", "ctx.load_cert_chain(certfile, keyfile)"),
                           ("/usr/lib/python3.11/ssl.py", "load_cert_chain", "x = f()"),
                           error="FileNotFoundError: [Errno 2] No such file or directory")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


# --- the sixty-eighth batch's kinds (real engines; a second helper blind to the rules) ---------

@pytest.mark.parametrize("frame,error", [
    (("/usr/lib/python3.11/logging/__init__.py", "_checkLevel", "raise ValueError("),
     "ValueError: Unknown level: 'LOUD'"),
    ((f"{SG}/server_args.py", "prepare_server_args", "level=getattr(logging, x.upper()),"),
     "AttributeError: module 'logging' has no attribute 'LOUD'"),
    ((f"{SG}/parser/template_manager.py", "_load_json_chat_template", "assert False, ("),
     "AssertionError: unrecognized format of chat template file"),
])
def test_a_log_level_or_chat_template_the_launch_names_wrongly_is_invalid_config(frame, error):
    assert cause_of(tb(frame, error=error), "sglang") is Cause.INVALID_CONFIG


def test_a_dtype_name_torch_lacks_is_a_config_value_the_engine_refuses() -> None:
    # (config.json's own value, wrong in itself: invalid_config by the corpus README's rule)
    text = tb(("/venv/lib/python3.11/site-packages/transformers/configuration_utils.py",
               "__post_init__", "self.dtype = getattr(torch, dtype)"),
              ("/venv/lib/python3.11/site-packages/torch/__init__.py", "__getattr__",
               "raise AttributeError("),
              error="AttributeError: module 'torch' has no attribute 'float7'")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    # (another attribute torch lacks is no dtype: a version skew)
    text = tb((f"{VL}/model_executor/layers/linear.py", "forward", "torch.ops.x()"),
              error="AttributeError: module 'torch' has no attribute 'compiler_fence'")
    assert cause_of(text, "vllm") is not Cause.INVALID_CONFIG


# --- the sixty-ninth batch's kinds (real engines; a third helper blind to the rules) -----------

@pytest.mark.parametrize("engine,frame,error", [
    # a value the engine has no code for, by the kind's name (config.json's hidden_act)
    ("vllm", (f"{VL}/model_executor/layers/activation.py", "get_act_and_mul_fn",
              "raise ValueError("),
     "ValueError: Unsupported activation: swishglu. Only silu is supported for now."),
    # a process that expects a launcher (torchrun) run without one
    ("vllm", (f"{VL}/v1/executor/uniproc_executor.py", "_distributed_args",
              'rank = int(os.environ["RANK"])'), "KeyError: 'RANK'"),
    # an IPC folder the launch named that is not there
    ("vllm", ("/venv/lib/python3.11/site-packages/zmq/sugar/socket.py", "bind",
              "super().bind(addr)"),
     'zmq.error.ZMQError: No such file or directory for ipc path "/run/vllm-ipc/92fb". '
     "(addr='ipc:///run/vllm-ipc/92fb')"),
    # SGLang's --config file: missing, not YAML, not parsing
    ("sglang", (f"{SG}/utils/server_args_config_parser.py", "_validate_yaml_file",
                "raise ValueError("), "ValueError: Config file not found: /etc/sglang/x.yaml"),
    ("sglang", (f"{SG}/utils/server_args_config_parser.py", "_validate_yaml_file",
                "raise ValueError("), "ValueError: Config file must be YAML format, got: .json"),
    ("sglang", ("/venv/lib/python3.11/site-packages/yaml/scanner.py", "fetch_more_tokens",
                "raise ScannerError("),
     "yaml.scanner.ScannerError: while scanning for the next token"),
    # a config.json value of the wrong type, under a validated config
    ("sglang", ("/venv/lib/python3.11/site-packages/huggingface_hub/dataclasses.py",
                "__strict_setattr__", "raise StrictDataclassFieldValidationError("),
     "huggingface_hub.errors.StrictDataclassFieldValidationError: Validation error for field "
     "'max_position_embeddings':"),
    # an empty list in the model's config, indexed by SGLang's reader of it
    ("sglang", (f"{SG}/utils/hf_transformers/config.py", "parse",
                'if config.architectures[0] == "X":'), "IndexError: list index out of range"),
    # an op this build registered without a kernel (fp8 quantization on the CPU build)
    ("vllm", (f"{VL}/_custom_ops.py", "scaled_fp8_quant", "torch.ops._C.x(a, b, c, d)"),
     "RuntimeError: _C::static_scaled_fp8_quant() expected at most 0 argument(s) but received "
     "4 argument(s). Declaration: _C::static_scaled_fp8_quant() -> ()"),
])
def test_the_sixty_ninth_batch_s_refused_configurations(engine, frame, error):
    assert cause_of(tb(frame, error=error), engine) is Cause.INVALID_CONFIG


def test_the_sixty_ninth_batch_s_guards() -> None:
    # SGLang's MoE tuning warns of a kernel config file it lacks: no launch refused
    assert cause_of(tb((f"{SG}/layers/moe/fused_moe_triton/fused_moe.py", "get_config", "x()"),
                       error="RuntimeError: boom") + "\nWARNING Config file not found at "
                    "/x/configs/E=4.json, you can create them", "sglang") is Cause.UNKNOWN
    # an IndexError outside the config readers names no setting
    assert cause_of(tb((f"{SG}/managers/scheduler.py", "event_loop", "x = a[0]"),
                       error="IndexError: list index out of range"), "sglang") \
        is not Cause.INVALID_CONFIG
    # another KeyError of the environment is no launcher's variable
    assert cause_of(tb((f"{VL}/envs.py", "__getattr__", "x = os.environ[k]"),
                       error="KeyError: 'HOME'"), "vllm") is not Cause.INVALID_CONFIG


def test_a_tensor_narrower_than_its_config_says_is_a_corrupt_checkpoint() -> None:
    err = "RuntimeError: start (0) + length (1024) exceeds dimension size (512)."
    text = tb((f"{VL}/model_executor/layers/linear.py", "weight_loader_v2", "p.load(w)"),
              (f"{VL}/model_executor/parameter.py", "load_merged_column_weight",
               "loaded_weight = loaded_weight.narrow(self.output_dim, start, size)"), error=err)
    assert cause_of(text, "vllm") is Cause.CORRUPT_CHECKPOINT
    text = tb((f"{VL}/model_executor/models/llama.py", "forward", "x = t.narrow(0, 0, n)"),
              error=err)
    assert cause_of(text, "vllm") is not Cause.CORRUPT_CHECKPOINT


def test_a_full_disk_is_no_compiler_failure() -> None:
    text = tb(("/venv/lib/python3.11/site-packages/torch/_inductor/codecache.py", "write",
               "f.write(content)"),
              error="torch._inductor.exc.InductorError: OSError: [Errno 28] No space left on "
                    "device")
    verdict = classify_text(text, engine="vllm")
    assert verdict.cause is Cause.UNKNOWN
    assert "No space left on device" in verdict.evidence[0]


# --- a check of the engine's setup code, in words no rule knows (round 2, session 23) ----------

@pytest.mark.parametrize("engine,frame,error", [
    ("vllm", (f"{VL}/entrypoints/openai/cli_args.py", "validate", "raise ValueError(msg)"),
     "ValueError: the frobnicator wants a widget"),
    ("sglang", (f"{SG}/utils/common.py", "check_widget", "assert widget > 0, msg"),
     "AssertionError: widgets must be positive"),
    ("vllm", (f"{VL}/platforms/cpu.py", "check_and_update_config",
              "raise NotImplementedError("), "NotImplementedError: no widgets on this platform"),
])
def test_a_check_raised_by_the_engine_s_setup_code_at_launch_is_invalid_config(engine, frame,
                                                                                 error):
    assert cause_of(tb(frame, error=error), engine) is Cause.INVALID_CONFIG


@pytest.mark.parametrize("frame", [
    # the model's own code, or a kernel's: no check of the launch
    (f"{VL}/model_executor/models/llama.py", "__init__", "raise ValueError(msg)"),
    (f"{SG}/layers/attention/backend.py", "init", "assert x > 0, msg"),
    # a call that failed inside, or a runner re-raising what a child reported
    (f"{VL}/entrypoints/openai/api_server.py", "run_server", "engine = build(args)"),
    (f"{VL}/v1/engine/core.py", "run_engine_core", "raise e"),
    # not the engine's code
    ("/venv/lib/python3.11/site-packages/torch/cuda/__init__.py", "_lazy_init",
     "raise ValueError(msg)"),
])
def test_the_same_exception_elsewhere_names_no_cause(frame) -> None:
    assert cause_of(tb(frame, error="ValueError: the frobnicator wants a widget"),
                    "vllm") is Cause.UNKNOWN


def test_a_setup_check_after_launch_is_no_refused_launch() -> None:
    frame = (f"{VL}/utils/widgets.py", "validate", "raise ValueError(msg)")
    error = "ValueError: the frobnicator wants a widget"
    assert cause_of(tb(frame, error=error), "vllm") is Cause.INVALID_CONFIG
    assert cause_of(_UP + "\n" + tb(frame, error=error), "vllm") is Cause.UNKNOWN


# --- the seventieth batch's kinds (real engines; a fourth helper blind to the rules) -----------

@pytest.mark.parametrize("engine,frames,error", [
    # config.json's heads at 0: Transformers' own check of the config divides by them
    ("vllm", [("/venv/lib/python3.11/site-packages/huggingface_hub/dataclasses.py", "validate",
               "validator(self)"),
              ("/venv/lib/python3.11/site-packages/transformers/models/llama/"
               "configuration_llama.py", "validate_architecture",
               "if self.hidden_size % self.num_attention_heads != 0:")],
     "ZeroDivisionError: integer modulo by zero"),
    # PROMETHEUS_MULTIPROC_DIR naming a folder that is not there: the Prometheus client's files
    ("vllm", [("/venv/lib/python3.11/site-packages/prometheus_client/values.py", "__reset",
               "self._file = MmapedDict(filename)"),
              ("/venv/lib/python3.11/site-packages/prometheus_client/mmap_dict.py", "__init__",
               "self._f = open(filename, 'rb' if read_mode else 'a+b')")],
     "FileNotFoundError: [Errno 2] No such file or directory: '/var/run/prom/counter_27949.db'"),
    # ... or SGLang making its temporary folder under it
    ("sglang", [(f"{SG}/utils/common.py", "set_prometheus_multiproc_dir",
                 "prometheus_multiproc_dir = tempfile.TemporaryDirectory()"),
                ("/usr/lib/python3.11/tempfile.py", "mkdtemp", "_os.mkdir(file, 0o700)")],
     "FileNotFoundError: [Errno 2] No such file or directory: '/var/run/prom/tmpf5e3r3vu'"),
    # --seed above what the generator takes
    ("vllm", [("/venv/lib/python3.11/site-packages/numpy/random/mtrand.pyx", "seed", "x()")],
     "ValueError: Seed must be between 0 and 2**32 - 1"),
])
def test_the_seventieth_batch_s_refused_configurations(engine, frames, error):
    assert cause_of(tb(*frames, error=error), engine) is Cause.INVALID_CONFIG


@pytest.mark.parametrize("frame,error", [
    # a shard that is a folder, opened by safetensors' Rust reader
    ((f"{VL}/model_executor/model_loader/weight_utils.py", "safetensors_weights_iterator",
      "with safe_open(st_file, framework='pt') as f:"), "OSError: No such device (os error 19)"),
    # a tokenizer.json the tokenizers library cannot parse into a model it knows
    (("/venv/lib/python3.11/site-packages/transformers/tokenization_utils_fast.py", "__init__",
      "fast_tokenizer = TokenizerFast.from_file(fast_tokenizer_file)"),
     "Exception: data did not match any variant of untagged enum ModelUntagged at line 1 "
     "column 7324"),
])
def test_a_checkpoint_file_the_loader_cannot_read_as_one_is_corrupt(frame, error) -> None:
    assert cause_of(tb(frame, error=error), "vllm") is Cause.CORRUPT_CHECKPOINT


def test_the_seventieth_batch_s_guards() -> None:
    # a ZeroDivisionError in the model's forward is no config value's
    assert cause_of(tb((f"{VL}/model_executor/models/llama.py", "forward", "x = a % b"),
                       error="ZeroDivisionError: integer modulo by zero"), "vllm") \
        is not Cause.INVALID_CONFIG
    # a file not found outside the metrics' folder is not the metrics' setting
    assert cause_of(tb(("/venv/lib/python3.11/site-packages/foo/bar.py", "open", "open(x)"),
                       error="FileNotFoundError: [Errno 2] No such file or directory: '/x/y'"),
                    "vllm") is not Cause.INVALID_CONFIG


# --- the seventy-first batch's kinds (real engines; a fifth helper blind to the rules) --------

def test_an_address_this_host_does_not_have_is_a_refused_setting() -> None:
    # --host naming another machine's address: the server's bind fails with EADDRNOTAVAIL
    text = tb((f"{VL}/entrypoints/launchers/launcher.py", "create_server_socket",
               "sock.bind(addr)"), error="OSError: [Errno 99] Cannot assign requested address")
    check(text, "vllm", Phase.LAUNCH, Cause.INVALID_CONFIG)
    # (a transfer engine's connect failing for one request is that request's: no cause)
    mooncake = ("INFO:     127.0.0.1:5000 - \"POST /generate HTTP/1.1\" 200 OK\n"
                "E0430 16:02:26.014493   391 tcp_transport.cpp:542] TcpTransport::startTransfer "
                "encountered an ASIO exception. Exception: connect: Cannot assign requested "
                "address\n")
    assert classify_text(mooncake, engine="sglang").cause is not Cause.INVALID_CONFIG


def test_an_inductor_cpu_kernel_s_index_check_is_a_memory_fault() -> None:
    text = ("INFO:     127.0.0.1:40116 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"
            "terminate called after throwing an instance of 'std::runtime_error'\n"
            "  what():  kernel, /root/.cache/vllm/torch_compile_cache/x/inductor_cache/d6/"
            "cd6yh.main.cpp:40, index out of bounds: 0 <= tmp9 < 2048L\n"
            "(EngineCore pid=815) ERROR 12-05 01:56:05 [multiproc_executor.py:315] Worker proc "
            "VllmWorker-0 died unexpectedly (exit code: -6), shutting down executor.\n")
    assert cause_of(text, "vllm") is Cause.ILLEGAL_MEMORY_ACCESS


PARSE = ("(APIServer pid=2835) ERROR 12-05 02:03:48 [repo_utils.py:126] Error parsing config for "
         "/models/rope-linear: \"Missing required keys in `rope_parameters` for "
         "'rope_type'='linear': {'factor'}\", retrying 1 of 2\n")
ROPE_CHECK = ("/venv/lib/python3.11/site-packages/transformers/modeling_rope_utils.py",
              "_check_received_keys", "raise KeyError(f\"Missing required keys ...\")")


def test_the_error_vllm_reported_parsing_the_model_config_is_a_refused_configuration() -> None:
    error = ("KeyError: \"Missing required keys in `rope_parameters` for 'rope_type'='linear': "
             "{'factor'}\"")
    check(PARSE + tb(ROPE_CHECK, error=error), "vllm", Phase.LAUNCH, Cause.INVALID_CONFIG)
    # (the report alone, and a launch that then died of something else, name nothing)
    other = tb(("/venv/lib/python3.11/site-packages/foo/bar.py", "run", "go()"),
               error="KeyError: 'unrelated'")
    assert cause_of(PARSE + other, "vllm") is not Cause.INVALID_CONFIG


def test_a_launch_of_one_node_told_to_meet_elsewhere_got_the_address_wrong() -> None:
    args = ("[2026-12-05 01:52:34] server_args={'model_path': '/m', 'dist_timeout': 30, "
            "'dist_init_addr': '192.0.2.10:5000', 'nnodes': 1, 'node_rank': 0, 'tp_size': 1}\n"
            "[2026-12-05 01:52:35] Init parallel begin.\n")
    failed = ("[2026-12-05 01:53:40] Scheduler hit an exception: Traceback (most recent call "
              "last):\n" + tb((f"{TORCH}/distributed/rendezvous.py", "_create_c10d_store",
                               "return TCPStore("),
                              error="torch.distributed.DistNetworkError: The client socket has "
                                    "failed to connect to any network address of (192.0.2.10, "
                                    "5000)."))
    v = classify_text(args + failed, engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v
    assert "192.0.2.10" in v.evidence[0], v.evidence
    # two nodes: the master's side is a peer that may have failed
    two = args.replace("'nnodes': 1", "'nnodes': 2")
    assert cause_of(two + failed, "sglang") is Cause.MULTINODE_RANK_FAILURE
    # one node meeting at its own loopback: not an address from another machine
    local = args.replace("192.0.2.10:5000", "127.0.0.1:5000")
    assert cause_of(local + failed, "sglang") is Cause.MULTINODE_RANK_FAILURE


def test_a_setup_check_under_sglang_s_relay_of_its_scheduler_s_death() -> None:
    check_tb = tb((f"{SG}/managers/scheduler.py", "run_scheduler_process", "publish("),
                  (f"{SG}/runtime_context.py", "_validate_parallel", "raise ValueError("),
                  error="ValueError: parallel topology is inconsistent (set by "
                        "override_permanently):")
    relay = (tb(("/usr/lib/python3.11/multiprocessing/connection.py", "_recv", "raise EOFError"),
                error="EOFError")
             + "\nDuring handling of the above exception, another exception occurred:\n\n"
             + tb((f"{SG}/entrypoints/engine.py", "_wait_for_scheduler_ready",
                   "raise _scheduler_died_error(i, scheduler_procs[i])"),
                  error="RuntimeError: Rank 0 scheduler died during initialization (exit code: "
                        "1). If exit code is -9 (SIGKILL), a common cause is the OS OOM killer."))
    check("Process Process-1:\n" + check_tb + "  1 is not a rank of 1\n" + relay, "sglang",
          Phase.LAUNCH, Cause.INVALID_CONFIG)
    # the relay alone names nothing
    assert cause_of(relay, "sglang") is Cause.UNKNOWN


def test_an_engine_core_dead_before_the_api_server_was_up_is_no_serving() -> None:
    startup = ("(EngineCore pid=2461) INFO 12-05 02:02:14 [kv_cache_utils.py:2327] CPU KV cache "
               "size: 5,073,408 tokens, Maximum concurrency for 256 tokens per request: 19818.00x\n"
               "(EngineCore pid=2461) INFO 12-05 02:03:04 [core.py:402] init engine (profile, "
               "create kv cache, warmup model) took 56.77 s\n")
    dead = tb((f"{VL}/v1/engine/async_llm.py", "output_handler",
               "outputs = await engine_core.get_output_async()"),
              (f"{VL}/v1/engine/core_client.py", "get_output_async",
               "raise self._format_exception(outputs) from None"),
              error="vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.",
              prefix="(APIServer pid=2449) ERROR 12-05 02:03:09 [async_llm.py:906] ")
    v = classify_text(startup + dead, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.WARMUP), v
    # a fragment (no startup shown): the handler's death still dates it to serving
    assert classify_text(dead, engine="vllm").phase is Phase.SERVING


@pytest.mark.parametrize("frame,error,cause", [
    # a config.json value Transformers' own config check refuses, in its library's words
    (("/venv/lib/python3.11/site-packages/transformers/models/llama/configuration_llama.py",
      "validate_architecture", "if self.hidden_size % self.num_attention_heads != 0:"),
     "ZeroDivisionError: integer modulo by zero", Cause.INVALID_CONFIG),
    (("/venv/lib/python3.11/site-packages/transformers/modeling_rope_utils.py",
      "_check_received_keys", "raise KeyError(f'Missing required keys ...')"),
     "KeyError: \"Missing required keys in `rope_parameters`\"", Cause.INVALID_CONFIG),
    # the tokenizer's files refused by the libraries that read them
    (("/venv/lib/python3.11/site-packages/sentencepiece/__init__.py", "LoadFromFile",
      "return _sentencepiece.SentencePieceProcessor_LoadFromFile(self, arg)"),
     "TypeError: not a string", Cause.CORRUPT_CHECKPOINT),
    (("/venv/lib/python3.11/site-packages/transformers/tokenization_utils_fast.py", "__init__",
      "fast_tokenizer = TokenizerFast.from_file(fast_tokenizer_file)"),
     "Exception: data did not match any variant of untagged enum PreTokenizerWrapper",
     Cause.CORRUPT_CHECKPOINT),
])
def test_a_launch_dies_of_the_model_s_files_refused_by_the_library_reading_them(frame, error,
                                                                               cause) -> None:
    check(tb((f"{VL}/transformers_utils/config.py", "get_config", "config = cls(**d)"), frame,
             error=error), "vllm", Phase.LAUNCH, cause)


def test_a_library_reading_the_model_s_files_names_nothing_once_serving() -> None:
    # a request's own tokenizer error while the server serves is that request's
    served = ("INFO:     127.0.0.1:5000 - \"POST /v1/completions HTTP/1.1\" 200 OK\n"
              + tb(("/venv/lib/python3.11/site-packages/tokenizers/implementations/base.py",
                    "encode", "return self._tokenizer.encode(seq)"),
                   error="TypeError: TextEncodeInput must be Union[TextInputSequence]"))
    assert classify_text(served, engine="vllm").cause is not Cause.CORRUPT_CHECKPOINT


# --- the seventy-second batch's kinds (real engines; a sixth helper blind to the rules) -------

def test_an_import_chain_through_a_parser_s_module_is_no_request() -> None:
    # module top levels run as they are imported: an import traceback through vLLM's reasoning
    # parsers' module is a launch that died, not a request being handled
    text = tb((f"{VL}/entrypoints/openai/api_server.py", "<module>", "from x import y"),
              (f"{VL}/reasoning/abs_reasoning_parsers.py", "<module>", "from x import y"),
              ("/venv/lib/python3.11/site-packages/openai/__init__.py", "<module>",
               "from . import types"),
              error="SystemError: error return without exception set")
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.LAUNCH), v


def test_host_memory_refused_to_the_kv_cache_is_the_pool_s_size() -> None:
    error = ("RuntimeError: [enforce fail at alloc_cpu.cpp:127] err == 0. DefaultCPUAllocator: "
             "can't allocate memory: you tried to allocate 5209980928 bytes. Error code 12")
    kv = tb((f"{VL}/v1/worker/gpu_model_runner.py", "initialize_kv_cache_tensors",
             "kv_caches = allocate_kv_cache("),
            (f"{VL}/v1/worker/utils.py", "allocate_kv_cache", "torch.zeros(size)"), error=error)
    assert cause_of(kv, "vllm") is Cause.KV_CACHE_OOM
    # elsewhere, the host's memory
    other = tb((f"{VL}/model_executor/model_loader/default_loader.py", "load_weights",
                "param.copy_(w)"), error=error)
    assert cause_of(other, "vllm") is Cause.HOST_OOM_KILLED
    # SGLang's KV pool making its buffers in host memory (jb105, the 277th batch: `ulimit -v`)
    pool = tb((f"{SG}/mem_cache/memory_pool.py", "__init__", "self._create_buffers()"),
              (f"{SG}/mem_cache/memory_pool.py", "_create_buffers",
               "self._create_buffers_normal()"),
              (f"{SG}/mem_cache/memory_pool.py", "_create_buffers_normal",
               "self.k_buffer = [self._zeros(shape) for _ in range(n)]"),
              (f"{SG}/mem_cache/memory_pool.py", "_zeros", "return torch.zeros(shape)"),
              error=error)
    assert cause_of(pool, "sglang") is Cause.KV_CACHE_OOM
    other = tb((f"{SG}/model_loader/loader.py", "load_weights_and_postprocess",
                "model.load_weights(weights)"), error=error)
    assert cause_of(other, "sglang") is Cause.HOST_OOM_KILLED


def test_a_bad_alloc_abort_alone_is_host_memory() -> None:
    text = "terminate called after throwing an instance of 'std::bad_alloc'\n  what():  std::bad_alloc\n"
    assert cause_of(text, "sglang") is Cause.HOST_OOM_KILLED


def test_the_interpreter_refusing_its_environment_is_a_refused_setting() -> None:
    text = ('Fatal Python error: config_init_hash_seed: PYTHONHASHSEED must be "random" or an '
            'integer in range [0; 4294967295]\nPython runtime state: preinitialized\n')
    check(text, "vllm", Phase.LAUNCH, Cause.INVALID_CONFIG)


def test_an_engine_environment_variable_s_value_refused_by_its_parser() -> None:
    text = tb((f"{VL}/v1/executor/multiproc_executor.py", "__init__", "envs.enable_envs_cache()"),
              (f"{VL}/envs.py", "<lambda>", '"VLLM_HTTP_TIMEOUT_KEEP_ALIVE": lambda: int('),
              error="ValueError: invalid literal for int() with base 10: '5s'")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


@pytest.mark.parametrize("frames", [
    # the engine's own entry point warning at its top level...
    [("<frozen runpy>", "_run_code", ""),
     ("/venv/lib/python3.11/site-packages/sglang/launch_server.py", "<module>",
      "warnings.warn(")],
    # ... or a module an import chain reaches
    [(f"{VL}/entrypoints/openai/api_server.py", "<module>", "import torch._inductor"),
     (f"{TORCH}/jit/_script.py", "script_method", "warnings.warn(")],
])
def test_a_warning_raised_as_an_error_is_the_warnings_filter_the_launch_set(frames) -> None:
    text = tb(*frames, error="UserWarning: 'python -m sglang.launch_server' is still supported")
    assert classify_text(text, engine="sglang").cause is Cause.INVALID_CONFIG
    # a warning shown (its file and line first) is no error
    shown = (f"{VL}/entrypoints/openai/api_server.py:71: UserWarning: deprecated\n"
             "  warnings.warn(\n")
    assert classify_text(shown, engine="vllm").cause is not Cause.INVALID_CONFIG


def test_a_warning_raised_in_a_worker_is_the_filter_whatever_relays_it() -> None:
    # `-W error::FutureWarning` reaches vLLM's spawned worker, which dies of a warning every
    # ordinary run survives; the engine core and the API server only relay its death (ek107)
    worker = tb((f"{VL}/v1/worker/worker_base.py", "init_worker",
                 "current_platform.register_triton_kernel_overrides()"),
                ("/venv/lib/python3.11/site-packages/typing_extensions.py", "wrapper",
                 "warnings.warn(msg, category=category, stacklevel=stacklevel + 1)"),
                error="FutureWarning: `torch.distributed.reduce_op` is deprecated, please use "
                      "`torch.distributed.ReduceOp` instead",
                prefix="(VllmWorker-0 pid=9170) ERROR 12-06 23:53:51 [multiproc_executor.py:953] ")
    relay = ("(EngineCore pid=9157) ERROR 12-06 23:53:52 [core.py:1510] EngineCore failed to "
             "start.\n(EngineCore pid=9157) ERROR 12-06 23:53:52 [core.py:1510] Exception: "
             "WorkerProc initialization failed due to an exception in a background process. See "
             "stack trace for root cause.\n")
    api = tb((f"{VL}/v1/engine/core_client.py", "__init__", "raise RuntimeError("),
             error="RuntimeError: Engine core initialization failed. See root cause above. "
                   "Failed core proc(s): {'EngineCore': 1}")
    assert classify_text(worker + relay + api, engine="vllm").cause is Cause.INVALID_CONFIG
    # a warning raised and then another error of its own after it: that error is the death
    other = tb((f"{VL}/v1/worker/worker_base.py", "init_device", "torch.zeros(1)"),
               error="ZeroDivisionError: division by zero")
    assert classify_text(worker + other + api, engine="vllm").cause is not Cause.INVALID_CONFIG


def test_generation_config_of_the_wrong_shape_is_a_corrupt_checkpoint() -> None:
    text = tb((f"{VL}/transformers_utils/config.py", "try_get_generation_config",
               "return GenerationConfig.from_pretrained("),
              ("/venv/lib/python3.11/site-packages/transformers/generation/configuration_utils.py",
               "from_dict", "config = cls(**{**config_dict, **kwargs})"),
              error="TypeError: 'list' object is not a mapping")
    check(text, "vllm", Phase.LAUNCH, Cause.CORRUPT_CHECKPOINT)


BUILD = [(f"{SG}/model_loader/loader.py", "load_model", "model = _initialize_model("),
         (f"{SG}/model_loader/loader.py", "_initialize_model", "model = model_class(**kwargs)"),
         (f"{SG}/models/llama.py", "__init__", "self.layers = make_pp_layers("),
         (f"{SG}/utils/common.py", "make_layers",
          "assert not pp_size or num_hidden_layers >= pp_size")]


def test_a_check_refusing_the_config_while_the_model_is_built_is_invalid_config() -> None:
    head = "[2026-12-05 02:27:47] Load weight begin. avail mem=20.86 GB\n"
    check(head + tb(*BUILD, error="AssertionError"), "sglang", Phase.WEIGHT_LOADING,
          Cause.INVALID_CONFIG)
    # once weights are being read into it, a check may be the weights' (no such reading here)
    reading = [*BUILD[:1], (f"{SG}/models/llama.py", "load_weights", "assert name in params"),
               (f"{SG}/models/llama.py", "load_weights", "assert name in params")]
    assert cause_of(head + tb(*reading, error="AssertionError"), "sglang") \
        is not Cause.INVALID_CONFIG


# --- the seventy-third batch's kinds (real engines; a seventh helper blind to the rules) ------

TORCH_CXX = ("torch._inductor.exc.InductorError: InvalidCxxCompiler: No working C++ compiler "
             "found in torch._inductor.config.cpp.cxx: (None, {})")


def test_no_cxx_compiler_where_the_environment_named_one_is_invalid_config() -> None:
    frames = [(f"{VL}/v1/worker/cpu_worker.py", "determine_available_memory",
               "self.model_runner.profile_run()"),
              (f"{TORCH}/_inductor/cpp_builder.py", "get_cpp_compiler",
               "compiler = cpp_compiler_search(search)")]
    named = tb(*frames, error=TORCH_CXX.format("'/usr/local/bin/g++-13'"))
    assert cause_of(named, "vllm") is Cause.INVALID_CONFIG
    # inductor's default candidate, the bare g++: the toolchain is missing, the compile failed
    bare = tb(*frames, error=TORCH_CXX.format("'g++'"))
    assert cause_of(bare, "vllm") is Cause.TRITON_COMPILE_ERROR


SG_ARGS = ("[2026-12-05 04:51:18] server_args={'model_path': '/models/m', 'tokenizer_path': "
           "'/models/m', 'tp_size': %s, 'pp_size': 1, 'port': 30000}\n")
TIMINGS = ("[2026-12-05 04:51:18] Engine startup timings (s): load_weight=%s, "
           "kv_cache_allocation=%s, scheduler_e2e=%s, tokenizer_e2e=0.04\n")


def test_a_launch_asked_for_no_processes_is_invalid_config() -> None:
    died = tb((f"{SG}/entrypoints/engine.py", "_launch_subprocesses",
               "tokenizer_manager.max_req_input_len = scheduler_init_result.scheduler_infos["),
              error="IndexError: list index out of range")
    # every figure zero: no scheduler was built, nothing dates a later phase
    text = SG_ARGS % 0 + TIMINGS % ("0.00", "0.00", "0.00") + died
    v = classify_text(text, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH,
                                             Cause.INVALID_CONFIG), v
    assert v.evidence[-1] == "the launch asked for no processes: --tp-size 0", v.evidence
    # one process asked for: the same death names no cause, and real timings date warmup
    v = classify_text(SG_ARGS % 1 + TIMINGS % ("1.20", "0.31", "9.80") + died, engine="sglang")
    assert (v.phase, v.cause) == (Phase.WARMUP, Cause.UNKNOWN), v


HUB_REFUSED = ("huggingface_hub.errors.HFValidationError: Repo id must be in the form "
               "'repo_name' or 'namespace/repo_name': '{}'. Use `repo_type` argument if needed.")


def test_the_model_s_own_folder_without_its_tokenizer_is_a_checkpoint_incomplete() -> None:
    tokenizer = [(f"{SG}/utils/hf_transformers/tokenizer.py", "get_tokenizer",
                  "return _resolve_tokenizers_backend("),
                 (f"{SG}/utils/hf_transformers/common.py", "_resolve_local_or_cached_file",
                  "return hf_hub_download(")]
    own = SG_ARGS % 1 + tb(*tokenizer, error=HUB_REFUSED.format("/models/m"))
    assert cause_of(own, "sglang") is Cause.CORRUPT_CHECKPOINT
    # a tokenizer path of its own not there: a path not found
    other = SG_ARGS.replace("'tokenizer_path': '/models/m'", "'tokenizer_path': '/x/tok'") % 1
    assert cause_of(other + tb(*tokenizer, error=HUB_REFUSED.format("/x/tok")), "sglang") \
        is Cause.MODEL_NOT_FOUND
    # the model's folder refused while its config is read: not there at all
    config = [(f"{SG}/utils/hf_transformers/config.py", "get_config", "config = AutoConfig("),
              ("/venv/lib/python3.11/site-packages/transformers/utils/hub.py", "cached_file",
               "file = cached_files(")]
    assert cause_of(SG_ARGS % 1 + tb(*config, error=HUB_REFUSED.format("/models/m")),
                    "sglang") is Cause.MODEL_NOT_FOUND


# --- the seventy-fourth batch's kinds (real engines; an eighth helper blind to the rules) -----

JSON_CUT = "json.decoder.JSONDecodeError: Expecting property name enclosed in double quotes: " \
           "line 4 column 3 (char 70)"
PY_JSON = "/usr/lib/python3.11/json"


def test_a_lora_adapter_s_config_that_does_not_parse_is_its_checkpoint() -> None:
    adapter = tb((f"{VL}/lora/worker_manager.py", "_load_adapter",
                  "peft_helper = PEFTHelper.from_local_dir("),
                 (f"{VL}/lora/peft_helper.py", "from_local_dir", "config = json.load(f)"),
                 (f"{PY_JSON}/__init__.py", "load", "return loads(fp.read(),"),
                 (f"{PY_JSON}/decoder.py", "decode", "obj, end = self.raw_decode(s)"),
                 error=JSON_CUT)
    assert cause_of(adapter, "vllm") is Cause.CORRUPT_CHECKPOINT
    # the --lora-modules flag's own JSON, parsed with the arguments: the launch's setting
    flag = tb((f"{VL}/entrypoints/openai/cli_args.py", "__call__", "lora = json.loads(item)"),
              (f"{PY_JSON}/__init__.py", "loads", "return _default_decoder.decode(s)"),
              error=JSON_CUT)
    assert cause_of(flag, "vllm") is not Cause.CORRUPT_CHECKPOINT


def test_a_folder_made_where_a_file_stands_is_invalid_config() -> None:
    made = tb((f"{TORCH}/_inductor/runtime/cache_dir_utils.py", "cache_dir",
               "os.makedirs(cache_dir, exist_ok=True)"),
              ("<frozen os>", "makedirs", ""),
              error="FileExistsError: [Errno 17] File exists: '/srv/cache/inductor'")
    assert cause_of(made, "vllm") is Cause.INVALID_CONFIG
    # without exist_ok, two processes making one folder race (x316): no setting is wrong
    race = made.replace("os.makedirs(cache_dir, exist_ok=True)", "os.makedirs(dir_name)")
    assert cause_of(race, "vllm") is not Cause.INVALID_CONFIG


def test_a_port_no_socket_can_have_is_invalid_config() -> None:
    text = tb((f"{VL}/entrypoints/openai/api_server.py", "create_server_socket",
               "sock.bind(addr)"), error="OverflowError: bind(): port must be 0-65535.")
    check(text, "vllm", Phase.LAUNCH, Cause.INVALID_CONFIG)


# --- the seventy-fifth batch's kinds (real engines; a ninth helper blind to the rules) -------

TF = "/venv/lib/python3.11/site-packages/transformers"
EOS_INT = "TypeError: Special token eos_token has to be either str or AddedToken but got: " \
          "<class 'int'>"
TOKENIZER_INIT = [(f"{TF}/models/auto/tokenization_auto.py", "from_pretrained",
                   "return tokenizer_class.from_pretrained("),
                  (f"{TF}/tokenization_utils_base.py", "__init__",
                   'raise TypeError(f"Special token {key} has to be either str or AddedToken")')]


def test_a_tokenizer_file_s_value_of_the_wrong_type_is_invalid_config() -> None:
    assert cause_of(tb(*TOKENIZER_INIT, error=EOS_INT), "vllm") is Cause.INVALID_CONFIG
    # the same reader failing on data it could not handle (no type check of its own): the
    # tokenizer's files are damaged
    broken = [TOKENIZER_INIT[0], (f"{TF}/tokenization_utils_base.py", "_from_pretrained",
                                  "init_kwargs[key] = value[0]")]
    assert cause_of(tb(*broken, error="TypeError: 'int' object is not subscriptable"),
                    "vllm") is Cause.CORRUPT_CHECKPOINT


def test_the_error_a_wrapper_was_raised_from_is_the_root() -> None:
    # SGLang's tokenizer loader: `raise RuntimeError("Failed to load the tokenizer...") from e`
    inner = tb(*TOKENIZER_INIT, error=EOS_INT)
    outer = tb((f"{SG}/utils/hf_transformers/tokenizer.py", "_auto_tokenizer_from_pretrained",
                "raise RuntimeError(err_msg) from e"),
               error="RuntimeError: Failed to load the tokenizer. If you are using a LLaMA V1 "
                     "model consider using 'hf-internal-testing/llama-tokenizer' instead.")
    chained = inner + "\nThe above exception was the direct cause of the following exception:\n\n" \
        + outer
    assert cause_of(chained, "sglang") is Cause.INVALID_CONFIG


def test_torch_refusing_a_port_out_of_range_is_invalid_config() -> None:
    text = tb((f"{TORCH}/distributed/rendezvous.py", "_tcp_rendezvous_handler",
               "store = _create_c10d_store("), error="ValueError: Port out of range 0-65535")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG


SCHEDULER_CTRL_C = tb((f"{SG}/managers/scheduler.py", "run_scheduler_process",
                       "scheduler = Scheduler(server_args, port_args)"), error="KeyboardInterrupt")
LAUNCHER_RELAY = tb((f"{SG}/entrypoints/engine.py", "_wait_for_scheduler_ready",
                     "raise RuntimeError("),
                    error="RuntimeError: Rank 0 scheduler died during initialization (exit "
                          "code: 1).")


def test_a_ctrl_c_of_the_scheduler_alone_is_a_death_not_a_stop() -> None:
    v = classify_text("Process Process-1:\n" + SCHEDULER_CTRL_C + LAUNCHER_RELAY,
                      engine="sglang")
    assert v.outcome is Outcome.CRASHED, v
    # Ctrl-C of the whole run: the launcher ends in its own KeyboardInterrupt
    launcher = tb((f"{SG}/entrypoints/engine.py", "_wait_for_scheduler_ready",
                   "data = reader.recv()"), error="KeyboardInterrupt")
    v = classify_text("Process Process-1:\n" + SCHEDULER_CTRL_C + launcher + LAUNCHER_RELAY,
                      engine="sglang")
    assert v.outcome is not Outcome.CRASHED, v


# --- the seventy-sixth batch's kinds (real engines; a tenth helper blind to the rules) -------

def test_an_environment_value_a_library_refuses_on_import_is_invalid_config() -> None:
    text = tb((f"{VL}/__init__.py", "<module>", "import torch"),
              (f"{TORCH}/distributed/__init__.py", "<module>", "_set_debug_level()"),
              error="ValueError: The value of TORCH_DISTRIBUTED_DEBUG must be OFF, INFO, or "
                    "DETAIL.")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


def test_an_interface_this_host_does_not_have_is_invalid_config() -> None:
    text = tb((f"{TORCH}/distributed/distributed_c10d.py", "_new_process_group_helper",
               "backend_class = ProcessGroupGloo("),
              error="RuntimeError: [enforce fail at /pytorch/third_party/gloo/gloo/transport/"
                    "tcp/device.cc:84] ifa != nullptr. Unable to find address for: nosuch0")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG


# --- the seventy-seventh batch's kinds (real engines; an eleventh helper blind to the rules) -

LIST_GET = "AttributeError: 'list' object has no attribute 'get'"


def test_a_config_json_that_parses_into_a_list_is_a_corrupt_checkpoint() -> None:
    vllm = tb((f"{VL}/engine/arg_utils.py", "create_engine_config",
               "maybe_override_with_speculators("),
              (f"{VL}/transformers_utils/config.py", "maybe_override_with_speculators",
               'speculators_config = config_dict.get("speculators_config")'), error=LIST_GET)
    assert cause_of(vllm, "vllm") is Cause.CORRUPT_CHECKPOINT
    sglang = tb((f"{SG}/utils/hf_transformers/config.py", "parse",
                 "config = _try_load_longcat_config(model, revision, **kwargs)"),
                (f"{SG}/utils/hf_transformers/config.py", "_try_load_longcat_config",
                 'architectures = config_dict.get("architectures") or []'), error=LIST_GET)
    assert cause_of(sglang, "sglang") is Cause.CORRUPT_CHECKPOINT
    # the same words from code that reads no file (a scheduler's own data) name nothing
    other = tb((f"{SG}/managers/scheduler.py", "process_input_requests",
                "rid = recv_req.get('rid')"), error=LIST_GET)
    assert cause_of(other, "sglang") is not Cause.CORRUPT_CHECKPOINT


def test_a_unix_socket_in_a_folder_that_is_not_there_is_invalid_config() -> None:
    text = tb((f"{VL}/entrypoints/launchers/launcher.py", "setup_server",
               "sock = create_server_unix_socket(args.uds)"),
              (f"{VL}/entrypoints/launchers/launcher.py", "create_server_unix_socket",
               "sock.bind(path)"), error="FileNotFoundError: [Errno 2] No such file or directory")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    # the same error opening a file is no bind's: not read so
    opened = tb((f"{VL}/entrypoints/launchers/launcher.py", "setup_server",
                 "with open(path) as f:"),
                error="FileNotFoundError: [Errno 2] No such file or directory")
    assert cause_of(opened, "vllm") is not Cause.INVALID_CONFIG
    # a port given as a word (a Kubernetes service variable) at the bind: the same
    word = tb((f"{SG}/utils.py", "get_open_port", 's.bind(("", port))'),
              error="TypeError: 'str' object cannot be interpreted as an integer")
    assert cause_of(word, "sglang") is Cause.INVALID_CONFIG


def test_no_tokenizer_transformers_can_build_is_a_corrupt_checkpoint() -> None:
    text = tb((f"{TF}/tokenization_utils_fast.py", "__init__",
               "raise ValueError("),
              error="ValueError: Couldn't instantiate the backend tokenizer from one of: (1) a "
                    "`tokenizers` library serialization file, (2) a slow tokenizer instance to "
                    "convert or (3) an equivalent slow tokenizer class to instantiate and "
                    "convert. You need to have sentencepiece or tiktoken installed to convert a "
                    "slow tokenizer to a fast one.")
    assert cause_of(text, "sglang") is Cause.CORRUPT_CHECKPOINT


# --- the seventy-eighth batch's kinds (real engines; a twelfth helper blind to the rules) ----

def test_a_tokenizer_file_in_another_encoding_is_a_corrupt_checkpoint() -> None:
    text = tb((f"{TF}/tokenization_utils_base.py", "_from_pretrained",
               "tokenizer_file_handle = json.load(tokenizer_file_handle)"),
              ("/usr/lib/python3.12/json/__init__.py", "load", "return loads(fp.read(),"),
              ("<frozen codecs>", "decode", ""),
              error="UnicodeDecodeError: 'utf-8' codec can't decode byte 0xff in position 0: "
                    "invalid start byte")
    assert cause_of(text, "vllm") is Cause.CORRUPT_CHECKPOINT


IMPORTING_MODULE = [(f"{SG}/utils/hf_transformers_patches.py", "_patch_removed_symbols",
                     "from transformers.models.llama import modeling_llama"),
                    ("/usr/lib/python3.12/importlib/__init__.py", "import_module",
                     "return _bootstrap._gcd_import(name[level:], package, level)"),
                    (f"{TF}/models/llama/modeling_llama.py", "<module>", "class LlamaModel("),
                    (f"{TF}/utils/auto_docstring.py", "_prepare_return_docstring",
                     "raise ValueError(")]
NO_ARGS = "ValueError: No `Args` or `Parameters` section is found in the docstring of `Base`."


def test_an_error_raised_as_a_module_is_imported_is_import_error() -> None:
    assert cause_of(tb(*IMPORTING_MODULE, error=NO_ARGS), "sglang") is Cause.IMPORT_ERROR
    # the same error in the program's own script (run, not imported) is no import's
    script = [("/usr/bin/launch.py", "<module>", "main()"), IMPORTING_MODULE[-1]]
    assert cause_of(tb(*script, error=NO_ARGS), "sglang") is not Cause.IMPORT_ERROR


def test_python_refusing_host_memory_is_host_oom_killed() -> None:
    text = tb((f"{SG}/launch_server.py", "<module>", "load_plugins()"),
              ("/usr/lib/python3.12/email/feedparser.py", "_parsegen", "for line in self._input:"),
              error="MemoryError")
    assert cause_of(text, "sglang") is Cause.HOST_OOM_KILLED
    # torch's out of memory is the GPU's
    cuda = tb((f"{SG}/model_executor/model_runner.py", "load_model", "self.model.to(device)"),
              error="torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB")
    assert cause_of(cuda, "sglang") is Cause.CUDA_OOM


# --- the seventy-ninth batch's kinds (real engines; a thirteenth helper blind to the rules) --

def test_a_library_refusing_its_own_environment_variable_is_invalid_config() -> None:
    # TORCH_LOGS=+bogus, refused as torch is imported (the message on the lines after the
    # exception's, which names only `ValueError:`)
    text = tb((f"{VL}/env_override.py", "<module>", "import torch"),
              (f"{TORCH}/__init__.py", "<module>", "_logging._init_logs()"),
              (f"{TORCH}/_logging/_internal.py", "_update_log_state_from_env",
               "log_state = _parse_log_settings(log_setting)"),
              (f"{TORCH}/_logging/_internal.py", "_parse_log_settings",
               "raise ValueError(_invalid_settings_err_msg(settings))"),
              error="ValueError: ") + "Invalid log settings: +bogus, must be a comma separated list\n"
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    # the same import failing in code that reads no setting stays the import's
    plain = tb((f"{VL}/env_override.py", "<module>", "import torch"),
               (f"{TORCH}/__init__.py", "<module>", "_logging._init_logs()"),
               (f"{TORCH}/_logging/_internal.py", "_register_artifacts", "raise ValueError("),
               error="ValueError: artifact registered twice")
    assert cause_of(plain, "vllm") is Cause.IMPORT_ERROR


# --- the eightieth batch's kinds (real engines; a fourteenth helper blind to the rules) -----

def test_a_checkpoint_with_more_layers_than_its_config_is_a_corrupt_checkpoint() -> None:
    more = ("ValueError: There is no module or parameter named 'layers.7' in LlamaModel. The "
            "available parameters belonging to layers (ModuleList) are: {'layers.1.mlp.weight'}")
    text = tb((f"{VL}/model_executor/models/utils.py", "_load_module", "raise ValueError(msg)"),
              error=more)
    assert cause_of(text, "vllm") is Cause.CORRUPT_CHECKPOINT
    # guard: a stack the config builds empty is the config's own value (invalid_config)
    empty = tb((f"{VL}/model_executor/models/utils.py", "_load_module", "raise ValueError(msg)"),
               error="ValueError: There is no module or parameter named 'layers.0' in LlamaModel. "
                     "The available parameters belonging to layers (ModuleList) are: set()")
    assert cause_of(empty, "vllm") is Cause.INVALID_CONFIG


def test_a_value_out_of_its_range_is_invalid_config() -> None:
    text = tb((f"{SG}/distributed/parallel_state.py", "init_distributed_environment",
               'assert timeout > 0, "timeout must be positive"'),
              error="AssertionError: timeout must be positive")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG


# --- the eighty-first batch's kinds (real engines; a fifteenth helper blind to the rules) ----

def test_a_count_of_zero_met_as_the_model_is_built_is_invalid_config() -> None:
    building = [(f"{SG}/model_loader/loader.py", "load_model",
                 "model = _initialize_model(model_config, self.load_config)"),
                (f"{SG}/model_loader/loader.py", "_initialize_model",
                 "return model_class(config=hf_config)"),
                (f"{SG}/models/llama.py", "__init__",
                 "assert tp_size % self.total_num_kv_heads == 0")]
    text = tb(*building, error="ZeroDivisionError: integer modulo by zero")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG
    # the same error once weights are read into the model is no value of the config's
    reading = [*building[:2], (f"{SG}/models/llama.py", "load_weights",
                               "scale = loaded // shards")]
    assert cause_of(tb(*reading, error="ZeroDivisionError: integer division or modulo by zero"),
                    "sglang") is not Cause.INVALID_CONFIG


# --- the eighty-second batch's kinds (real engines; a sixteenth helper blind to the rules) ---

def test_the_interpreter_refusing_its_own_variable_is_invalid_config() -> None:
    v = verdict("Fatal Python error: preconfig_init_allocator: PYTHONMALLOC: unknown allocator",
                "Python runtime state: preinitializing", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v


def test_an_environment_value_refused_where_it_is_read_is_invalid_config() -> None:
    read = [(f"{TORCH}/_inductor/config.py", "<module>",
             "compile_threads = decide_compile_threads()"),
            (f"{TORCH}/_inductor/config.py", "decide_compile_threads",
             'compile_threads = int(os.environ["TORCHINDUCTOR_COMPILE_THREADS"])')]
    text = tb(*read, error="ValueError: invalid literal for int() with base 10: 'auto'")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG
    # the same conversion of a value no variable gave is the inductor's own
    other = [read[0], (f"{TORCH}/_inductor/config.py", "decide_compile_threads",
                       "compile_threads = int(cpu_count)")]
    assert cause_of(tb(*other, error="ValueError: invalid literal for int() with base 10: 'x'"),
                    "sglang") is not Cause.INVALID_CONFIG


def _makedirs(error: str) -> str:
    return ("Traceback (most recent call last):\n"
            f'  File "{TORCH}/_inductor/runtime/cache_dir_utils.py", line 20, in cache_dir\n'
            "    os.makedirs(cache_dir, exist_ok=True)\n"
            '  File "<frozen os>", line 215, in makedirs\n'
            "  [Previous line repeated 2 more times]\n"
            '  File "<frozen os>", line 225, in makedirs\n'
            f"{error}\n")


def test_a_cache_folder_that_cannot_be_made_where_it_was_pointed_is_invalid_config() -> None:
    assert cause_of(_makedirs("FileNotFoundError: [Errno 2] No such file or directory: "
                              "'/proc/self/.cache'"), "sglang") is Cause.INVALID_CONFIG
    # a disk full is no setting
    assert cause_of(_makedirs("OSError: [Errno 28] No space left on device: '/root/.cache'"),
                    "sglang") is not Cause.INVALID_CONFIG


def test_a_working_directory_removed_under_the_run_names_no_cause() -> None:
    text = ("Traceback (most recent call last):\n"
            f'  File "{TORCH}/_inductor/config.py", line 2562, in xpu\n'
            '    cutlass_dir = os.path.realpath(os.environ.get("TORCHINDUCTOR_CUTLASS_DIR", ""))\n'
            '  File "<frozen posixpath>", line 417, in realpath\n'
            '  File "<frozen posixpath>", line 404, in abspath\n'
            "FileNotFoundError: [Errno 2] No such file or directory\n")
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.UNKNOWN), v


def test_a_tokenizer_file_s_value_refused_by_its_reader_is_invalid_config() -> None:
    side = tb((f"{TF}/tokenization_utils_base.py", "__init__", "raise ValueError("),
              error="ValueError: Padding side should be selected between 'right' and 'left', "
                    "current value: center")
    assert cause_of(side, "vllm") is Cause.INVALID_CONFIG
    key = tb((f"{TF}/tokenization_utils_base.py", "_from_pretrained",
              "added_tokens_decoder[int(idx)] = token"),
             error="ValueError: invalid literal for int() with base 10: 'pad'")
    assert cause_of(key, "vllm") is Cause.INVALID_CONFIG


def test_a_chat_template_that_is_no_template_is_invalid_config() -> None:
    text = tb((f"{SG}/parser/template_manager.py", "load_chat_template",
               "detect_jinja_template_content_format(hf_template)"),
              (f"{SG}/parser/jinja_template_utils.py", "<genexpr>",
               "keyword in chat_template for keyword in ['image', 'audio']"),
              error="TypeError: argument of type 'int' is not iterable")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG


# --- the eighty-third batch's kinds (real engines; a seventeenth helper blind to the rules) ----

PY_LOGGING = "/usr/lib/python3.11/logging"


def test_logging_refusing_its_configuration_is_invalid_config_over_the_import_under_it() -> None:
    # VLLM_LOGGING_STREAM=ext://sys.nowhere: logging's resolver fails to import the name it was
    # given, then dictConfig refuses the handler - a setting, no package missing
    text = (tb((f"{PY_LOGGING}/config.py", "resolve", "self.importer(used)"),
               error="ModuleNotFoundError: No module named 'sys.nowhere'; 'sys' is not a "
                     "package")
            + "\nThe above exception was the direct cause of the following exception:\n\n"
            + tb((f"{VL}/logger.py", "_configure_vllm_root_logger", "dictConfig(logging_config)"),
                 (f"{PY_LOGGING}/config.py", "configure",
                  "raise ValueError('Unable to configure handler '"),
                 error="ValueError: Unable to configure handler 'vllm'"))
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    # a package missing under the engine's own import stays an import error
    missing = tb((f"{VL}/entrypoints/openai/api_server.py", "<module>", "import uvloop"),
                 error="ModuleNotFoundError: No module named 'uvloop'")
    assert cause_of(missing, "vllm") is Cause.IMPORT_ERROR


# --- the eighty-fourth batch's kinds (real engines; an eighteenth helper blind to the rules) ---

_NO_LAYER = ("(Worker pid=22265) ERROR 12-05 12:11:20 [multiproc_executor.py:953] ValueError: "
             "There is no module or parameter named 'layers.{n}' in LlamaModel. The available "
             "parameters belonging to layers (ModuleList) are: {available}")


def test_a_layer_stack_the_config_builds_empty_is_invalid_config() -> None:
    # num_hidden_layers -2: vLLM builds no layers at all, and the loader meets the first
    empty = _NO_LAYER.format(n=0, available="set()")
    assert cause_of(empty, "vllm") is Cause.INVALID_CONFIG
    # more layers in the weights than the config builds stays a checkpoint that disagrees
    more = _NO_LAYER.format(n=1, available="{'layers.0.mlp.down_proj.weight'}")
    assert cause_of(more, "vllm") is Cause.CORRUPT_CHECKPOINT


# --- the eighty-fifth batch's kinds (real engines; a nineteenth helper blind to the rules) -----

DEEP = "RecursionError: maximum recursion depth exceeded while decoding a JSON array from a " \
       "unicode string"


def test_a_model_file_nested_deeper_than_json_decodes_is_its_checkpoint() -> None:
    deep = tb((f"{TF}/configuration_utils.py", "_dict_from_json_file",
               "config_dict = json.loads(text)"),
              (f"{PY_JSON}/__init__.py", "loads", "return _default_decoder.decode(s)"),
              (f"{PY_JSON}/decoder.py", "raw_decode", "obj, end = self.scan_once(s, idx)"),
              error=DEEP)
    assert cause_of(deep, "vllm") is Cause.CORRUPT_CHECKPOINT
    # a recursion that is no JSON decoding names no file of the model's
    loop = tb((f"{VL}/model_executor/models/llama.py", "forward", "return self.forward(x)"),
              error="RecursionError: maximum recursion depth exceeded")
    assert cause_of(loop, "vllm") is not Cause.CORRUPT_CHECKPOINT


def test_a_socket_folder_too_deep_for_a_unix_address_is_invalid_config() -> None:
    text = tb((f"{VL}/utils/network_utils.py", "make_zmq_socket", "socket.bind(path)"),
              error='zmq.error.ZMQError: ipc path "/tmp/' + "t" * 120 + '/3d7c862e" is longer '
                    "than 107 characters (sizeof(sockaddr_un.sun_path)). zmq.IPC_PATH_MAX_LEN "
                    "constant can be used to check addr length (if it is defined).")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


# --- a checkpoint run as what it is not, chosen by the launch (known misses, session 27) -------

def test_the_mistral_tokenizer_mode_on_a_hugging_face_checkpoint_is_invalid_config() -> None:
    files = tb((f"{VL}/tokenizers/mistral.py", "from_pretrained",
                "tokenizer = TransformersMistralTokenizer.from_pretrained("),
               ("/venv/lib/python3.11/site-packages/mistral_common/tokens/tokenizers/utils.py",
                "get_one_valid_tokenizer_file", 'raise ValueError("No tokenizer file found.")'),
               error="ValueError: No tokenizer file found.")
    assert cause_of(files, "vllm") is Cause.INVALID_CONFIG
    processor = ("ERROR 05-16 10:53:31 [core.py:390] AttributeError: 'MistralTokenizer' object "
                 "has no attribute 'init_kwargs'")
    assert cause_of(processor, "vllm") is Cause.INVALID_CONFIG
    # Transformers finding no tokenizer file of its own kind stays the checkpoint's
    hf = "OSError: Can't load tokenizer for '/models/llama'. If you were trying to load it"
    assert cause_of(hf, "vllm") is Cause.CORRUPT_CHECKPOINT


def test_a_generative_model_run_for_a_pooling_task_is_invalid_config() -> None:
    text = ("ERROR 06-09 03:48:23 [engine.py:164] AttributeError(\"'Qwen3ForCausalLM' object has "
            "no attribute 'pooler'\")")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


def test_a_tokenizer_path_naming_a_file_sglang_reads_as_tiktoken_is_invalid_config() -> None:
    text = tb((f"{SG}/utils/hf_transformers/tokenizer.py", "get_tokenizer",
               "return TiktokenTokenizer(tokenizer_name)"),
              (f"{SG}/tokenizer/tiktoken_tokenizer.py", "__init__",
               'tokens = {t["bytes"]: t["token"] for t in tok_dict["regular_tokens"]}'),
              error="KeyError: 'regular_tokens'")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG
    # the Hugging Face tokenizer's own reader failing on its file stays the checkpoint's
    hf = tb((f"{SG}/utils/hf_transformers/tokenizer.py", "get_tokenizer",
             "tokenizer = AutoTokenizer.from_pretrained("),
            (f"{TF}/tokenization_utils_base.py", "_from_pretrained",
             "init_kwargs[key] = value[0]"),
            error="TypeError: 'int' object is not subscriptable")
    assert cause_of(hf, "sglang") is Cause.CORRUPT_CHECKPOINT


def test_a_processor_file_the_image_processor_cannot_resolve_is_the_checkpoint_s() -> None:
    text = tb((f"{SG}/managers/scheduler.py", "init_tokenizer", "self.processor = get_processor("),
              (f"{TF}/image_processing_base.py", "get_image_processor_dict",
               "resolved_image_processor_file = resolved_image_processor_files[0]"),
              error="TypeError: 'NoneType' object is not subscriptable")
    assert cause_of(text, "sglang") is Cause.CORRUPT_CHECKPOINT
    # the same error in the model's own code names no file
    model = tb((f"{SG}/models/llama4.py", "forward", "x = self.layers[0]"),
               error="TypeError: 'NoneType' object is not subscriptable")
    assert cause_of(model, "sglang") is not Cause.CORRUPT_CHECKPOINT


# --- the eighty-sixth batch's kinds (real engines; a twentieth helper blind to the rules) -----

_MAKEDIRS_RO = ("Traceback (most recent call last):\n"
                f'  File "{VL}/compilation/decorators.py", line 575, in __call__\n'
                "    os.makedirs(inductor_cache, exist_ok=True)\n"
                '  File "<frozen os>", line 215, in makedirs\n'
                '  File "<frozen os>", line 225, in makedirs\n'
                "{error}\n")


def test_a_cache_folder_on_a_read_only_file_system_is_invalid_config() -> None:
    # errno 30 is raised as plain OSError, not one of its named subclasses
    text = _MAKEDIRS_RO.format(error="OSError: [Errno 30] Read-only file system: "
                                     "'/srv/ro/torch_compile_cache'")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    full = _MAKEDIRS_RO.format(error="OSError: [Errno 28] No space left on device: "
                                     "'/srv/ro/torch_compile_cache'")
    assert cause_of(full, "vllm") is not Cause.INVALID_CONFIG


def test_the_compile_refused_a_file_by_the_process_limit_is_no_compile_failure() -> None:
    text = ("torch._inductor.exc.InductorError: OSError: [Errno 24] Too many open files\n")
    assert cause_of(text, "vllm") is Cause.UNKNOWN
    # a compile that fails on its own terms stays the compiler's
    own = "torch._inductor.exc.InductorError: CompilationError: at 12:4: unsupported op\n"
    assert cause_of(own, "vllm") is Cause.TRITON_COMPILE_ERROR


def test_a_lora_adapter_that_does_not_fit_or_holds_nothing_is_its_checkpoint() -> None:
    empty = "ValueError: /srv/adapters/a doesn't contain tensors"
    assert cause_of(empty, "vllm") is Cause.CORRUPT_CHECKPOINT
    other = ("ValueError: While loading /srv/adapters/a, expected target modules in {'q_proj', "
             "'v_proj'} but received ['model.layers.0.self_attn.wq']. Please verify that the "
             "loaded LoRA module is correct")
    assert cause_of(other, "vllm") is Cause.CORRUPT_CHECKPOINT
    placed = tb((f"{VL}/lora/model_manager.py", "activate_adapter",
                 "module.set_lora(index, module_lora.lora_a, module_lora.lora_b)"),
                (f"{VL}/lora/layers/column_parallel_linear.py", "set_lora",
                 "self.lora_a_stacked[0][index].copy_(lora_a)"),
                error="RuntimeError: The size of tensor a (256) must match the size of tensor "
                      "b (1024) at non-singleton dimension 1")
    assert cause_of(placed, "vllm") is Cause.CORRUPT_CHECKPOINT
    # the same mismatch in a served step's kernel names no file
    step = tb((f"{VL}/model_executor/layers/linear.py", "forward", "x = x + bias"),
              error="RuntimeError: The size of tensor a (256) must match the size of tensor "
                    "b (1024) at non-singleton dimension 1")
    assert cause_of(step, "vllm") is not Cause.CORRUPT_CHECKPOINT


# --- the eighty-eighth batch's kinds (real engines; a twenty-second helper blind to the rules) -

def test_a_plugin_file_vllm_could_not_load_is_import_error_over_the_name_refused() -> None:
    text = ("(APIServer pid=19219) ERROR 12-05 13:08:11 [import_utils.py:95] Failed to load module "
            "'my_tool_parser' from /srv/plugins/my_tool_parser.py.\n"
            + tb((f"{VL}/entrypoints/launchers/launcher.py", "validate_api_server_args",
                  "raise KeyError("),
                 error="KeyError: 'invalid tool call parser: my_parser (chose from { hermes,"
                       "llama3_json })'"))
    assert cause_of(text, "vllm") is Cause.IMPORT_ERROR
    # the parser's name alone refused (no plugin that failed) stays the launch's setting
    alone = tb((f"{VL}/entrypoints/launchers/launcher.py", "validate_api_server_args",
                "raise KeyError("),
               error="KeyError: 'invalid tool call parser: my_parser (chose from { hermes })'")
    assert cause_of(alone, "vllm") is Cause.INVALID_CONFIG


def test_a_program_the_host_does_not_have_is_import_error() -> None:
    text = tb((f"{SG}/utils/common.py", "parse_lscpu_topology",
               "output = subprocess.check_output("),
              ("/usr/lib/python3.11/subprocess.py", "_execute_child",
               "raise child_exception_type(errno_num, err_msg, err_filename)"),
              error="FileNotFoundError: [Errno 2] No such file or directory: 'lscpu'")
    assert cause_of(text, "sglang") is Cause.IMPORT_ERROR
    shell = ("subprocess.CalledProcessError: Command 'lscpu --json --extended=CPU,CORE,NODE "
             "--online' returned non-zero exit status 127.")
    assert cause_of(shell, "vllm") is Cause.IMPORT_ERROR
    # a file the engine opens that is not there is no program
    opened = tb((f"{SG}/utils/common.py", "read_meminfo", "with open(path) as f:"),
                error="FileNotFoundError: [Errno 2] No such file or directory: '/srv/meminfo'")
    assert cause_of(opened, "sglang") is not Cause.IMPORT_ERROR


_C10D_RETRY = ("[W1205 13:11:29.045379340 TCPStore.cpp:340] [c10d] TCP client failed to "
               "connect/validate to host 127.0.0.1:29875 - retrying (try=10, timeout=1800000ms, "
               "delay=24964ms): The client socket has failed to connect to any network address "
               "of (127.0.0.1, 29875).")
_C10D_STACK = ["Exception raised from run at /pytorch/torch/csrc/distributed/c10d/socket.cpp:820 "
               "(most recent call first):",
               "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x9d (0x7fa1 in "
               "/venv/lib/python3.11/site-packages/torch/lib/libc10.so)",
               "frame #2: c10::DistNetworkError::DistNetworkError(c10::SourceLocation, "
               "std::string) + 0x72 (0x7fa2 in /venv/lib/python3.11/site-packages/torch/lib/"
               "libc10.so)"]


def test_a_log_cut_while_c10d_retries_its_store_is_no_death() -> None:
    v = verdict("[2026-12-05 13:10:36] Init parallel begin.", _C10D_RETRY, *_C10D_STACK,
                engine="sglang")
    assert v.outcome is Outcome.INCOMPLETE
    # the store's final failure, raised into Python, is one
    dead = verdict("[2026-12-05 13:10:36] Init parallel begin.", _C10D_RETRY, *_C10D_STACK,
                   "torch.distributed.DistNetworkError: The client socket has timed out after "
                   "1800000ms while trying to connect to (127.0.0.1, 29875).", engine="sglang")
    assert dead.outcome is Outcome.CRASHED


# --- the ninetieth batch's kinds (real engines; a twenty-fourth helper blind to the rules) -----

_WORKER_CALL = ["(Worker pid=14789) ERROR 12-05 13:50:36 [multiproc_executor.py:1063] Traceback "
                "(most recent call last):",
                "(Worker pid=14789) ERROR 12-05 13:50:36 [multiproc_executor.py:1063]   File "
                f'"{VL}/v1/executor/multiproc_executor.py", line 1055, in _execute_worker_rpc',
                "(Worker pid=14789) ERROR 12-05 13:50:36 [multiproc_executor.py:1063] "
                "AttributeError: 'CPUWorker' object has no attribute 'no_such_method'",
                "(Worker pid=14789) ERROR 12-05 13:50:36 [multiproc_executor.py:1063] WorkerProc "
                "hit an exception.",
                "(EngineCore pid=14749) ERROR 12-05 13:50:36 [core.py:1750] Invocation of "
                "collective_rpc method failed",
                "(EngineCore pid=14749) ERROR 12-05 13:50:36 [core.py:1750] Traceback (most "
                "recent call last):",
                "(EngineCore pid=14749) ERROR 12-05 13:50:36 [core.py:1750]   File "
                f'"{VL}/v1/engine/core.py", line 1080, in collective_rpc',
                "(EngineCore pid=14749) ERROR 12-05 13:50:36 [core.py:1750] RuntimeError: Worker "
                "failed with error ''CPUWorker' object has no attribute 'no_such_method''",
                'INFO:     127.0.0.1:54160 - "POST /collective_rpc HTTP/1.1" 500 Internal Server '
                "Error"]
_SERVING_UP = ['INFO:     Application startup complete.',
       'INFO:     127.0.0.1:54132 - "POST /v1/completions HTTP/1.1" 200 OK']


def test_a_workers_error_in_a_utility_call_the_server_survives_is_no_death() -> None:
    answered = 'INFO:     127.0.0.1:43340 - "POST /v1/completions HTTP/1.1" 200 OK'
    v = verdict(*_SERVING_UP, *_WORKER_CALL, answered, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.READY, None)
    # with nothing answered after it, the worker's report stands
    cut = verdict(*_SERVING_UP, *_WORKER_CALL[:4], engine="vllm")
    assert cut.outcome is Outcome.CRASHED


# --- the ninety-first batch's kinds (real engines; a twenty-fifth helper blind to the rules) --

_API = "(APIServer pid=17552) ERROR 12-05 16:00:49 [async_llm.py:906]"
_HANDLER_DIED = [f"{_API} AsyncLLM output_handler failed.",
                 f"{_API} Traceback (most recent call last):",
                 f'{_API}   File "{VL}/v1/engine/async_llm.py", line 860, in output_handler',
                 f"{_API}     for start in range(0, num_outputs, chunk_size):",
                 f"{_API} ValueError: range() arg 3 must not be zero"]
_FAILED_500 = 'INFO:     127.0.0.1:51014 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error'
_SERVER_SHUT = ["INFO:     Shutting down", "INFO:     Waiting for application shutdown.",
                "INFO:     Application shutdown complete.", "INFO:     Finished server process [17552]",
                "(APIServer pid=17552) INFO 12-05 16:00:49 [utils.py:628] [shutdown] Process "
                "manager: send sigterm to process EngineCore",
                "(EngineCore pid=17598) INFO 12-05 16:00:49 [core.py:1454] [shutdown] EngineCore: "
                "trigger received signal=SIGTERM",
                "(EngineCore pid=17598) INFO 12-05 16:00:49 [core.py:1635] [shutdown] EngineCore: "
                "start mode=abort timeout=0s",
                "(EngineCore pid=17598) INFO 12-05 16:00:49 [core.py:1666] [shutdown] EngineCore: "
                "request processing complete; starting resource teardown",
                "(EngineCore pid=17598) INFO 12-05 16:00:49 [core.py:1499] [shutdown] EngineCore: "
                "exiting busy loop"]


def test_the_api_servers_output_handler_dying_is_a_death_however_requests_were_answered() -> None:
    """VLLM_V1_OUTPUT_PROC_CHUNK_SIZE=0 (bv105): AsyncLLM's output handler dies on the first
    request; the requests get 500s and the server shuts itself down."""
    v = verdict(*_SERVING_UP, *_HANDLER_DIED, _FAILED_500, _FAILED_500, *_SERVER_SHUT,
                engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    # the same request error with no word of the handler is one request's failure
    request = [line.replace("AsyncLLM output_handler failed.", "Error in request.")
               for line in _HANDLER_DIED]
    served = verdict(*_SERVING_UP, *request, _FAILED_500, _SERVING_UP[1], engine="vllm")
    assert served.outcome is Outcome.READY, served


_CA_FRAMES = ((f"{VL}/transformers_utils/config.py", "get_config", "config_dict, _ = "
               "PretrainedConfig.get_config_dict("),
              ("/venv/lib/python3.11/site-packages/huggingface_hub/utils/_http.py", "get_session",
               "return _get_session_from_cache(process_id=os.getpid())"),
              ("/venv/lib/python3.11/site-packages/httpx/_config.py", "create_ssl_context",
               "ctx = ssl.create_default_context(cafile=cafile)"))
_CA_ERROR = "FileNotFoundError: [Errno 2] No such file or directory"


def test_a_ca_bundle_the_environment_names_missing_is_a_setting() -> None:
    """SSL_CERT_FILE naming a file the image lacks (bv109, bv113): the hub client's TLS context
    cannot load it, as a model is fetched."""
    ssl_frame = ("/usr/lib/python3.11/ssl.py", "create_default_context",
                 "context.load_verify_locations(cafile, capath, cadata)")
    assert cause_of(tb(*_CA_FRAMES, ssl_frame, error=_CA_ERROR), "vllm") is Cause.INVALID_CONFIG
    # the same error under the hub client's own frames (no TLS context) is no setting of it
    assert cause_of(tb(*_CA_FRAMES[:2], error=_CA_ERROR), "vllm") is not Cause.INVALID_CONFIG


# --- the ninety-second batch's kinds (real engines; a twenty-sixth helper blind to the rules) -

_LAUNCHER = f"{VL}/entrypoints/launchers/launcher.py"


@pytest.mark.parametrize("error", ["OSError: [Errno 22] Invalid argument",
                                   "OSError: [Errno 99] Cannot assign requested address"])
def test_an_address_the_bind_refuses_is_a_setting(error: str) -> None:
    """--host fe80::... without its scope (EINVAL), an address this host lacks (bw103)."""
    bind = (_LAUNCHER, "create_server_socket", "sock.bind(addr)")
    assert cause_of(tb(bind, error=error), "vllm") is Cause.INVALID_CONFIG
    # a port in use at the same bind is that
    in_use = tb(bind, error="OSError: [Errno 98] Address already in use")
    assert cause_of(in_use, "vllm") is Cause.PORT_IN_USE


def test_uvicorn_refusing_the_address_is_a_setting_not_the_warmup_after_it() -> None:
    """--port 443 without the capability (bw115): uvicorn's bind error, then SGLang's warmup
    gives up on a server that never listened."""
    lines = ["INFO:     Application startup complete.",
             "ERROR:    [Errno 13] error while attempting to bind on address ('127.0.0.1', 443): "
             "permission denied",
             "INFO:     Waiting for application shutdown.",
             "[2026-12-05 16:30:11] Initialization failed. warmup error: Traceback (most recent "
             "call last):",
             "requests.exceptions.ConnectionError: HTTPConnectionPool(host='127.0.0.1', port=443)"
             ": Max retries exceeded with url: /model_info"]
    assert verdict(*lines, engine="sglang").cause is Cause.INVALID_CONFIG
    in_use = [lines[0], lines[1].replace("[Errno 13]", "[Errno 98]").replace(
        "permission denied", "address already in use"), *lines[2:]]
    assert verdict(*in_use, engine="sglang").cause is Cause.PORT_IN_USE


_LOADER = (f"{VL}/model_executor/model_loader/weight_utils.py", "safetensors_weights_iterator",
           "with safe_open(st_file, framework=\"pt\") as f:")
_SHARD = "/m/llama/model-00003-of-00004.safetensors"


@pytest.mark.parametrize("error", [
    f"FileNotFoundError: No such file or directory: {_SHARD}",
    f"OSError: [Errno 40] Too many levels of symbolic links: '{_SHARD}'",
    f"PermissionError: [Errno 13] Permission denied: '{_SHARD}'",
    "RuntimeError: model.safetensors.index.json references 4 shard file(s) missing from /m/llama "
    "(incomplete download?): ['model-00001-of-00005.safetensors']"],
    ids=["safetensors-unquoted", "link-loop", "unreadable", "sglang-index"])
def test_weight_files_that_cannot_be_read_are_the_checkpoints(error: str) -> None:
    """A shard mode 000 (bw109), a link to itself (bw108, bw118), an index naming another split
    (bw119): the checkpoint cannot be read whole."""
    assert cause_of(tb(_LOADER, error=error), "vllm") is Cause.CORRUPT_CHECKPOINT


def test_a_model_file_unreadable_is_the_checkpoints_a_folder_unlisted_is_not_found() -> None:
    reader = (f"{SG}/utils/hf_transformers/config.py", "get_config", "with open(path) as f:")
    denied = "PermissionError: [Errno 13] Permission denied: '/m/llama/config.json'"
    assert cause_of(tb(reader, error=denied), "sglang") is Cause.CORRUPT_CHECKPOINT
    # vLLM listing a folder it may not search, then its words for a model not there (bw110)
    listing = ("(APIServer pid=3972) ERROR 12-05 16:23:40 [repo_utils.py:124] Error retrieving "
               "file list: [Errno 13] Permission denied: '/m/llama/model-00003-of-00004."
               "safetensors'\n")
    refused = tb((f"{VL}/config/model.py", "__post_init__", "raise ValueError("),
                 error="pydantic_core._pydantic_core.ValidationError: 1 validation error for "
                       "ModelConfig\n  Value error, Invalid repository ID or local directory "
                       "specified: '/m/llama'")
    assert cause_of(listing + refused, "vllm") is Cause.MODEL_NOT_FOUND
    # a loop of links outside the model's files names no checkpoint
    elsewhere = "OSError: [Errno 40] Too many levels of symbolic links: '/etc/localtime'"
    assert cause_of(tb(reader, error=elsewhere), "sglang") is not Cause.CORRUPT_CHECKPOINT


def test_an_index_past_the_embedding_on_the_cpu_is_the_memory_fault_family() -> None:
    """Token ids past the embedding (bw123): eager torch's CPU check, the GPU's index assert."""
    embed = (f"{TORCH}/nn/functional.py", "embedding",
             "return torch.embedding(weight, input, padding_idx, scale_grad_by_freq, sparse)")
    assert cause_of(tb(embed, error="IndexError: index out of range in self"), "sglang") \
        is Cause.ILLEGAL_MEMORY_ACCESS
    other = "IndexError: list index out of range"
    assert cause_of(tb(embed, error=other), "sglang") is not Cause.ILLEGAL_MEMORY_ACCESS


_RETRY = ("[W1205 16:27:07.105637613 TCPStore.cpp:340] [c10d] TCP client failed to connect/"
          "validate to host 10.99.99.99:24888 - retrying (try=0, timeout=1800000ms, delay=431ms):"
          " Ping failed, invalid value returned from server. Expected: 7770, Got: 1347703880")
_RETRY_TRACE = ["Exception raised from ping at /pytorch/torch/csrc/distributed/c10d/TCPStore.cpp"
                ":337 (most recent call first):",
                "frame #0: c10::Error::Error(c10::SourceLocation, std::string) + 0x80 (0x7f in "
                "/venv/torch/lib/libc10.so)",
                "frame #2: c10::DistNetworkError::DistNetworkError(c10::SourceLocation, "
                "std::string) + 0x72 (0x7f in /venv/torch/lib/libtorch_cpu.so)"]
_GAI = ("[W1205 16:25:50.746447887 socket.cpp:764] [c10d] The IPv4 network addresses of "
        "(fe80::fc:ff:fe00:1, 29571) cannot be retrieved (gai error: -9 - Address family for "
        "hostname not supported).")
_PARALLEL = "[2026-12-05 16:27:06 TP0] Init parallel begin."


def test_a_log_cut_while_c10d_retries_is_a_startup_cut_naming_nothing() -> None:
    """The scheduler's store client retrying an address when the log is cut, with nothing to
    say the launch is of one node - incomplete, no cause yet (as bs118): a peer there may yet
    answer (a one-node launch's own address: the next test). A link-local
    address without its scope (bw113) is another matter: c10d's `Address family for hostname
    not supported` says no retry can reach it here - the address the launch gave (relabelled
    invalid_config in session 40, as gq104's `::1` with IPv6 off is labelled)."""
    v = verdict(_PARALLEL, _RETRY, *_RETRY_TRACE, _RETRY, *_RETRY_TRACE, engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, Cause.UNKNOWN), v
    gai = verdict(_PARALLEL, _GAI, _GAI, engine="sglang")
    assert (gai.outcome, gai.cause) == (Outcome.INCOMPLETE, Cause.INVALID_CONFIG), gai
    # once the store gives up, the rendezvous failed
    failed = tb((f"{TORCH}/distributed/rendezvous.py", "_create_c10d_store", "return TCPStore("),
                error="torch.distributed.DistNetworkError: The client socket has timed out after "
                      "1800000ms while trying to connect to (10.99.99.99, 24888).")
    end = verdict(_PARALLEL, _RETRY, *_RETRY_TRACE, failed, engine="sglang")
    assert (end.outcome, end.cause) == (Outcome.CRASHED, Cause.MULTINODE_RANK_FAILURE), end


_ONE_NODE_ARGS = ("[2026-12-07 13:53:40] server_args={'model_path': '/m', 'host': '%s', "
                  "'port': 30000, 'nnodes': %d, 'dist_init_addr': None}")


def test_a_one_node_launch_still_retrying_an_address_not_its_own_is_the_address() -> None:
    """`--host 10.0.3.17`, the node's address where the pod's was meant (hd107; bw114 the
    same, relabelled in session 41): SGLang meets at its --host, and a one-node launch has no
    peer there to wait for - the setting, named in the evidence, as its crash reads."""
    host = _RETRY.replace("10.99.99.99", "10.0.3.17")
    v = verdict(_ONE_NODE_ARGS % ("10.0.3.17", 1), _PARALLEL, host, *_RETRY_TRACE, host,
                *_RETRY_TRACE, engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, Cause.INVALID_CONFIG), v
    assert v.evidence == (host, "a launch of one node meeting at an address not this host's: "
                                "--host 10.0.3.17"), v.evidence
    # guard: a launch of two nodes may yet meet its peer there
    two = verdict(_ONE_NODE_ARGS % ("10.0.3.17", 2), _PARALLEL, host, *_RETRY_TRACE,
                  engine="sglang")
    assert two.cause is Cause.UNKNOWN, two
    # guard: retrying loopback (no local port free, lo down: gq106, bs118) names no setting
    loop = _RETRY.replace("10.99.99.99", "127.0.0.1")
    local = verdict(_ONE_NODE_ARGS % ("127.0.0.1", 1), _PARALLEL, loop, *_RETRY_TRACE,
                    engine="sglang")
    assert local.cause is Cause.UNKNOWN, local


def test_a_path_that_is_not_utf8_is_the_launchs_name() -> None:
    """A model folder named with a Latin-1 byte (bw107): the tokenizer cannot encode the path."""
    tok = (f"{VL}/tokenizers/hf.py", "from_pretrained",
           "tokenizer = TokenizerFast.from_file(fast_tokenizer_file)")
    error = ("UnicodeEncodeError: 'utf-8' codec can't encode character '\\udce8' in position 26:"
             " surrogates not allowed")
    assert cause_of(tb(tok, error=error), "vllm") is Cause.INVALID_CONFIG
    # a file's contents in another encoding fail to decode: not the launch's name
    decode = "UnicodeDecodeError: 'utf-8' codec can't decode byte 0xe8 in position 26"
    assert cause_of(tb(tok, error=decode), "vllm") is not Cause.INVALID_CONFIG


def test_the_ascii_codec_is_the_locale_the_launch_ran_in() -> None:
    """LANG=C with UTF-8 mode off (em101): importing vLLM reads torch inductor's templates with
    the ASCII codec - no compilation failed, the process's locale did."""
    text = tb((f"{VL}/env_override.py", "<module>", "_patch_inductor_fallback_allow_list()"),
              (f"{TORCH}/_inductor/kernel/mm_grouped.py", "<module>",
               'load_template("triton_mm_grouped")'),
              (f"{TORCH}/_inductor/utils.py", "load_template", "return f.read()"),
              error="UnicodeDecodeError: 'ascii' codec can't decode byte 0xe2 in position 602: "
                    "ordinal not in range(128)")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    # another codec failing under the same frames is a file's own bytes, not the locale
    other = text.replace("'ascii' codec", "'utf-8' codec")
    assert cause_of(other, "vllm") is not Cause.INVALID_CONFIG


# --- the ninety-third batch's kinds (real engines; a twenty-seventh helper blind to the rules) -

_LOG_WRITE = ["Traceback (most recent call last):",
              '  File "/usr/lib/python3.11/logging/__init__.py", line 1113, in emit',
              "    stream.write(msg + self.terminator)",
              "BrokenPipeError: [Errno 32] Broken pipe",
              "Call stack:",
              f'  File "{VL}/v1/engine/async_llm.py", line 1087, in do_log_stats',
              "    self.logger_manager.log()",
              f'  File "{VL}/v1/metrics/loggers.py", line 335, in log',
              "    log_fn(",
              "Message: 'Engine 000: Avg prompt throughput: %.1f tokens/s, Avg generation "
              "throughput: %.1f tokens/s, Running: %d reqs, Waiting: %d reqs'",
              "Arguments: (1.888031045190572, 7.552124180762288, 0, 0)"]


def test_a_record_logging_could_not_write_is_no_death() -> None:
    """stdout through a log shipper that died (bx101), or on a full disk: logging prints its
    handler's error and the server goes on."""
    v = verdict(*_SERVING_UP, "--- Logging error ---", *_LOG_WRITE, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None), v
    # the same traceback as the process's own error is its death
    dead = verdict(*_SERVING_UP, *_LOG_WRITE[:4], engine="vllm")
    assert dead.outcome is Outcome.CRASHED, dead


_UVICORN_FORMATTER = [
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.11/logging/config.py", line 482, in configure_custom',
    "    result = c(**kwargs)",
    '  File "/venv/lib/python3.11/site-packages/uvicorn/logging.py", line 42, in __init__',
    "    self.use_colors = sys.stdout.isatty()",
    "AttributeError: 'NoneType' object has no attribute 'isatty'",
    "",
    "The above exception was the direct cause of the following exception:",
    "",
    "Traceback (most recent call last):",
    '  File "/usr/lib/python3.11/logging/config.py", line 555, in configure',
    "    raise ValueError('Unable to configure '",
    "ValueError: Unable to configure formatter 'default'"]


def test_a_standard_stream_the_process_lacks_is_no_setting() -> None:
    """Started with stdout closed (bx113): uvicorn's formatter asks sys.stdout.isatty() of None,
    and logging.config refuses its own default configuration."""
    assert cause_of("\n".join(_UVICORN_FORMATTER) + "\n", "sglang") is Cause.UNKNOWN
    # a configuration the launch gave, refused for what it names, is the setting
    named = [line.replace("self.use_colors = sys.stdout.isatty()", "self.use_colors = cfg.tty()")
             for line in _UVICORN_FORMATTER]
    assert cause_of("\n".join(named) + "\n", "sglang") is Cause.INVALID_CONFIG


# --- the ninety-fourth batch's kinds (real engines; a twenty-eighth helper blind to the rules) -

def _args(**kw: str) -> str:
    shown = ", ".join(f"'{k}': '{v}'" for k, v in {"model": "/m/llama", **kw}.items())
    return f"(APIServer pid=1) INFO 12-05 17:13:00 [utils.py:233] non-default args: {{{shown}}}\n"


_NO_WEIGHTS = tb((f"{VL}/model_executor/model_loader/default_loader.py", "_prepare_weights",
                  "raise RuntimeError("),
                 error="RuntimeError: Cannot find any model weights with `/m/llama`")


@pytest.mark.parametrize("fmt", ["pt", "mistral"])
def test_no_weights_of_the_format_the_launch_chose_is_the_flag(fmt: str) -> None:
    """--load-format pt / mistral over a safetensors checkpoint (by102, by115)."""
    assert cause_of(_args(load_format=fmt) + _NO_WEIGHTS, "vllm") is Cause.INVALID_CONFIG
    # under the default format the same words are a folder without weights
    assert cause_of(_args() + _NO_WEIGHTS, "vllm") is Cause.CORRUPT_CHECKPOINT
    assert cause_of(_args(load_format="auto") + _NO_WEIGHTS, "vllm") is \
        Cause.CORRUPT_CHECKPOINT


def test_the_sharded_state_loader_over_a_plain_checkpoint_is_the_flag() -> None:
    """--load-format sharded_state (by101, by114)."""
    error = ("ValueError: Could not find checkpoint files '/m/llama/model-rank-0-part-*."
             "safetensors', only pre-sharded checkpoints are currently supported!")
    loader = (f"{VL}/model_executor/model_loader/sharded_state_loader.py", "load_weights",
              "raise ValueError(")
    assert cause_of(_args(load_format="sharded_state") + tb(loader, error=error), "vllm") is \
        Cause.INVALID_CONFIG


_READER = (f"{SG}/utils/hf_transformers/config.py", "get_config",
           "for key, value in model_override_args.items():")


def test_overrides_of_the_wrong_shape_are_the_flags_not_the_checkpoints() -> None:
    """--json-model-override-args given a JSON list (by112): the config reader walks it."""
    error = "AttributeError: 'list' object has no attribute 'items'"
    assert cause_of(tb(_READER, error=error), "sglang") is Cause.INVALID_CONFIG
    # the same reader walking the model's own config.json holding a list: the file's
    from_file = (_READER[0], _READER[1], "for key, value in config_dict.items():")
    assert cause_of(tb(from_file, error=error), "sglang") is Cause.CORRUPT_CHECKPOINT


_WARMUP_500 = [
    "[2026-12-05 17:17:15] server_args=ServerArgs(model_path='/m/llama', "
    "preferred_sampling_params='{\"temprature\": 0.2}', tp_size=1)",
    "[2026-12-05 17:17:15] INFO:     Application startup complete.",
    '[2026-12-05 17:17:15] INFO:     127.0.0.1:50316 - "POST /generate HTTP/1.1" 500 Internal '
    "Server Error",
    "ERROR:    Exception in ASGI application",
    "Traceback (most recent call last):",
    f'  File "{SG}/managers/tokenizer_manager.py", line 700, in _create_tokenized_object',
    "    sampling_params = self._get_sampling_params(obj)",
    "TypeError: Unexpected keyword argument 'temprature'",
    "[2026-12-05 17:17:16] Initialization failed. warmup error: Traceback (most recent call "
    "last):",
    f'  File "{SG}/entrypoints/http_server.py", line 1500, in _execute_server_warmup',
    "    assert res.status_code == 200, f\"{res.text}\"",
    "AssertionError: Internal Server Error"]


def test_a_warmup_refused_for_a_setting_of_the_launch_is_the_setting() -> None:
    """--preferred-sampling-params with a misspelt key (by113): SGLang's own warmup request
    meets it first."""
    assert verdict(*_WARMUP_500, engine="sglang").cause is Cause.INVALID_CONFIG
    # the same warmup failure naming nothing the launch set stays the warmup's
    other = [line.replace("'temprature'", "'frobnicate'") for line in _WARMUP_500[1:]]
    assert verdict(*other, engine="sglang").cause is Cause.WARMUP_FAILED


def test_a_parser_that_does_not_fit_the_tokenizer_is_the_launchs_choice() -> None:
    """--reasoning-parser deepseek_r1 on a tokenizer without <think> (by120)."""
    frames = ((f"{VL}/entrypoints/launchers/api_server/entry.py", "build_async_engine_client",
               "vllm_config = engine_args.create_engine_config(usage_context=usage_context)"),
              (f"{VL}/engine/arg_utils.py", "create_engine_config", "config = VllmConfig("),
              (f"{VL}/config/vllm.py", "__post_init__",
               "self.reasoning_config.initialize_token_ids(tokenizer)"),
              (f"{VL}/config/reasoning.py", "initialize_token_ids",
               "parser = parser_cls(tokenizer)"),
              (f"{VL}/reasoning/basic_parsers.py", "__init__", "raise RuntimeError("))
    error = ("RuntimeError: DeepSeekR1ReasoningParser reasoning parser could not locate think "
             "start/end tokens in the tokenizer!")
    launch = _args(reasoning_parser="deepseek_r1")
    assert cause_of(launch + tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG


# --- the ninety-fifth batch's kinds (real engines; a twenty-ninth helper blind to the rules) --

PY = "/usr/lib/python3.11"
_LOGGER = (f"{VL}/logger.py", "_configure_vllm_root_logger",
           "custom_config = json.loads(file.read())")
_JSON = ((f"{PY}/json/__init__.py", "loads", "return _default_decoder.decode(s)"),
         (f"{PY}/json/decoder.py", "raw_decode", "obj, end = self.scan_once(s, idx)"))
_CUT_JSON = "json.decoder.JSONDecodeError: Unterminated string starting at: line 20 column 16"


def test_a_logging_config_file_that_is_not_json_is_the_setting() -> None:
    """VLLM_LOGGING_CONFIG_PATH naming a cut JSON file (bz101): read by vLLM's logger."""
    assert cause_of(tb(_LOGGER, *_JSON, error=_CUT_JSON), "vllm") is Cause.INVALID_CONFIG
    # the same error under a reader of the model's files is the checkpoint's
    reader = (f"{VL}/transformers_utils/config.py", "get_config",
              "config_dict = json.loads(f.read())")
    assert cause_of(tb(reader, *_JSON, error=_CUT_JSON), "vllm") is Cause.CORRUPT_CHECKPOINT


_DICT_CONFIG = ((f"{VL}/logger.py", "_configure_vllm_root_logger", "dictConfig(logging_config)"),
                (f"{PY}/logging/config.py", "configure",
                 "raise ValueError('Unable to configure handler '"))


@pytest.mark.parametrize("resolve, cause", [
    # a handler class from a package this host lacks (bz102): the package is missing
    ("ValueError: Cannot resolve 'acme_logship.ShipHandler': No module named 'acme_logship'",
     Cause.IMPORT_ERROR),
    # a name whose parent is there (bn103's `ext://sys.nowhere`): a wrong name
    ("ValueError: Cannot resolve 'sys.nowhere': No module named 'sys.nowhere'; 'sys' is not a "
     "package", Cause.INVALID_CONFIG),
])
def test_a_logging_config_naming_code_not_installed_is_the_import(resolve: str,
                                                                  cause: Cause) -> None:
    text = (resolve + "\n\nThe above exception was the direct cause of the following "
            "exception:\n\n" + tb(*_DICT_CONFIG, error="ValueError: Unable to configure "
                                  "handler 'ship'"))
    assert cause_of(text, "vllm") is cause


_PATHLIB = "/usr/lib/python3.11/pathlib.py"


def _mkdir_tb(caller: tuple[str, str, str], error: str) -> list[str]:
    return ["Traceback (most recent call last):",
            f'  File "{caller[0]}", line 331, in {caller[1]}', f"    {caller[2]}",
            f'  File "{_PATHLIB}", line 1121, in mkdir',
            "    self.mkdir(mode, parents=False, exist_ok=exist_ok)",
            f'  File "{_PATHLIB}", line 1116, in mkdir', "    os.mkdir(self, mode)",
            "    ^^^^^^^^^^^^^^^^^^^^", error]


_PROFILE_DIR = (f"{SG}/managers/profiler_manager.py", "_stop_profile",
                "self.torch_profiler_output_dir.mkdir(parents=True, exist_ok=True)")
_NO_DIR = "FileNotFoundError: [Errno 2] No such file or directory: '/proc/sglang-profile'"


def test_a_folder_pathlib_cannot_make_is_where_it_was_pointed() -> None:
    """/start_profile's output_dir where no folder can be made (bz113): pathlib's mkdir."""
    lines = ["[2026-12-05 19:33:39] Scheduler hit an exception: Traceback (most recent call "
             "last):", *_mkdir_tb(_PROFILE_DIR, _NO_DIR)[1:]]
    assert verdict(*lines, engine="sglang").cause is Cause.INVALID_CONFIG
    # a mkdir not told a folder already there is fine: a path not there (no rule of a folder)
    plain = (_PROFILE_DIR[0], _PROFILE_DIR[1], "self.torch_profiler_output_dir.mkdir()")
    lines = [lines[0], *_mkdir_tb(plain, _NO_DIR)[1:]]
    assert verdict(*lines, engine="sglang").cause is not Cause.INVALID_CONFIG


def test_what_a_crash_handler_raises_is_not_the_cause() -> None:
    """--crash-dump-folder where no folder can be made (bz121): SGLang's SIGQUIT handler fails
    dumping the requests of a scheduler already dead of something else."""
    death = ["[2026-12-05 19:39:18] Scheduler hit an exception: Traceback (most recent call "
             "last):",
             f'  File "{SG}/layers/logprob_processor.py", line 106, in get_top_logprobs_raw',
             "    values, indices = logprobs.topk(max_k, dim=-1)",
             "RuntimeError: selected index k out of range",
             "[2026-12-05 19:39:18] SIGQUIT received. signum=None, frame=None. It usually means "
             "one child failed."]
    handler = ["[2026-12-05 19:39:18] Exception in callback <bound method SignalHandler."
               "running_phase_sigquit_handler of <SignalHandler object at 0x7f87>>",
               "Traceback (most recent call last):",
               f'  File "{SG}/managers/tokenizer_manager.py", line 4080, in '
               "running_phase_sigquit_handler",
               "    self.tokenizer_manager.dump_requests_before_crash()",
               f'  File "{SG}/managers/tokenizer_manager.py", line 3445, in '
               "dump_requests_before_crash",
               "    os.makedirs(os.path.dirname(filename), exist_ok=True)",
               '  File "<frozen os>", line 225, in makedirs',
               "FileNotFoundError: [Errno 2] No such file or directory: '/proc/sglang-crash'"]
    args = ("[2026-12-05 19:38:00] server_args=ServerArgs(model_path='/m/llama', "
            "crash_dump_folder='/proc/sglang-crash', tp_size=1)")
    v = verdict(args, *death, *handler, engine="sglang")
    assert v.cause is Cause.UNKNOWN and "selected index k" in v.evidence[0], v
    # the same makedirs raised by the launch's own code is the folder it was pointed at
    own = [line.replace("running_phase_sigquit_handler", "start_profile").replace(
        "dump_requests_before_crash", "make_dump_dir") for line in handler]
    assert verdict(args, *own[1:], engine="sglang").cause is Cause.INVALID_CONFIG


# --- the ninety-sixth batch's kinds (offline entry points; a thirtieth helper blind to the rules)

_MP = "(MainProcess pid=21909) "
_EC = "(EngineCore pid=22008) "
_OFFLINE_UP = [
    f"{_EC}INFO 12-05 19:52:00 [core.py:402] init engine (profile, create kv cache, warmup "
    "model) took 13.23 s"]
_CLIENT_CLOSES = [
    f"{_MP}INFO 12-05 19:52:04 [utils.py:628] [shutdown] Process manager: send sigterm to "
    "process EngineCore",
    f"{_EC}INFO 12-05 19:52:04 [core.py:1454] [shutdown] EngineCore: trigger received "
    "signal=SIGTERM",
    f"{_EC}INFO 12-05 19:52:06 [multiproc_executor.py:486] [shutdown] Executor: all workers "
    "exited gracefully",
    f"{_MP}WARNING 12-05 19:52:08 [core_client.py:817] [shutdown] MPClient: engine core exited "
    "unexpectedly; starting cleanup",
    f"{_MP}INFO 12-05 19:52:08 [core_client.py:777] [shutdown] MPClient: complete"]


def test_an_offline_llm_closing_its_engine_with_nothing_wrong_is_a_stop() -> None:
    """LLM.beam_search / generate in a script that ends (ca109, ca111): the client's own
    teardown says `engine core exited unexpectedly` of the core it stopped itself."""
    bar = "Processed prompts: 100%|##########| 2/2 [00:00<00:00, 105.33it/s]"
    v = verdict(*_OFFLINE_UP, bar, *_CLIENT_CLOSES, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None), v
    # with no bar (beam search logs none): up, as the client outlived the engine's making
    v = verdict(*_OFFLINE_UP, *_CLIENT_CLOSES, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.READY, None), v
    # the script's own error before the teardown: a death
    error = ["Traceback (most recent call last):",
             '  File "/tmp/script.py", line 9, in <module>', "    rate = len(outs) / 0",
             "ZeroDivisionError: division by zero"]
    assert verdict(*_OFFLINE_UP, bar, *error, *_CLIENT_CLOSES,
                   engine="vllm").outcome is Outcome.CRASHED
    # the core gone with no teardown asked: a death
    assert verdict(*_OFFLINE_UP, bar, *_CLIENT_CLOSES[3:],
                   engine="vllm").outcome is Outcome.CRASHED


_BATCH = f"{VL}/entrypoints/launchers/run_batch.py"
_BATCH_UP = [*_OFFLINE_UP, f"{_MP}INFO 12-05 19:54:41 [run_batch.py:828] Reading batch from "
             "/tmp/in.jsonl..."]


def test_the_batch_runners_bar_with_a_request_done_is_serving() -> None:
    """run_batch's own bar (ca103, ca104): `Running batch: 100% Completed | 1/1`."""
    done = "Running batch: 100% Completed | 1/1 [00:00<00:00, 27.30req/s]"
    v = verdict(*_BATCH_UP, "Running batch:   0% Completed | 0/1 [00:00<?, ?req/s]", done,
                *_CLIENT_CLOSES, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING), v
    # at 0 it ran nothing yet
    v = verdict(*_BATCH_UP, "Running batch:   0% Completed | 0/1 [00:00<?, ?req/s]",
                *_CLIENT_CLOSES, engine="vllm")
    assert v.phase is not Phase.SERVING, v


@pytest.mark.parametrize("frames, error", [
    # the input file named by -i is not there (ca102)
    (((_BATCH, "run_batch", "for request_json in (await read_file(args.input_file))"),
      (_BATCH, "read_file", 'with open(path_or_url, encoding="utf-8") as f:')),
     "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/requests.jsonl'"),
    # the output file's folder (-o) is not there (ca103)
    (((_BATCH, "write_file", "await write_local_file(path_or_url, batch_outputs)"),
      (_BATCH, "write_local_file", 'with open(output_path, "w", encoding="utf-8") as f:')),
     "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/results/out.jsonl'"),
    # a line of the input that is no request (ca101)
    (((_BATCH, "run_batch", "request = BatchRequestInput.model_validate_json(request_json)"),
      ("/usr/lib/python3/dist-packages/pydantic/main.py", "model_validate_json",
       "return cls.__pydantic_validator__.validate_json(")),
     "pydantic_core._pydantic_core.ValidationError: 1 validation error for BatchRequestInput"),
    # a benchmark's dataset (--dataset-path) that is not there (ca119)
    (((f"{SG[:-4]}/benchmark/datasets/sharegpt.py", "sample_sharegpt_requests",
       "with open(dataset_path) as f:"),),
     "FileNotFoundError: [Errno 2] No such file or directory: '/tmp/ShareGPT.json'"),
])
def test_the_files_an_offline_run_was_handed_are_its_configuration(frames, error) -> None:
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG


def test_a_file_a_model_reader_cannot_open_stays_the_checkpoints() -> None:
    """(guard for the rule above: the same FileNotFoundError under a model file's reader)"""
    reader = (f"{VL}/transformers_utils/config.py", "get_config", "with open(path) as f:")
    error = "FileNotFoundError: [Errno 2] No such file or directory: '/m/llama/config.json'"
    assert cause_of(tb(reader, error=error), "vllm") is not Cause.INVALID_CONFIG


def test_a_task_the_engine_says_needs_another_runner_is_the_configuration() -> None:
    """LLM.embed on a generative model (ca107): the error names the flag to pass."""
    error = ("ValueError: LLM.encode() is only supported for pooling models. Try passing "
             "`--runner pooling` to use the model as a pooling model.")
    frame = (f"{VL}/entrypoints/pooling/offline.py", "_verify_pooling_task", "raise ValueError(")
    text = "\n".join(_OFFLINE_UP) + "\n" + tb(frame, error=error)
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG


def test_sampling_parameters_a_script_built_refused_are_its_configuration() -> None:
    """SamplingParams(top_p=0.0) in a script (ca108): fatal only where a script built them."""
    frame = (f"{VL}/sampling_params.py", "_verify_args", "raise VLLMValidationError(")
    error = ("vllm.exceptions.VLLMValidationError: top_p must be in (0, 1], got 0.0. "
             "(parameter=top_p, value=0.0)")
    caller = ("/tmp/script.py", "<module>", "sp = SamplingParams(top_p=0.0, max_tokens=8)")
    assert cause_of(tb(caller, frame, error=error), "vllm") is Cause.INVALID_CONFIG


def test_the_offline_engines_unknown_keyword_is_a_setting_it_lacks() -> None:
    """sglang.Engine(..., tensor_parallel_size=1) (ca113)."""
    frames = (("/tmp/script.py", "<module>", "engine = sgl.Engine(model_path=MODEL, "
               "tensor_parallel_size=1)"),
              (f"{SG}/entrypoints/engine.py", "__init__",
               "server_args = self.server_args_class(**kwargs)"))
    error = "TypeError: Unexpected keyword argument 'tensor_parallel_size'"
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG


def test_a_request_through_the_offline_engine_is_served_not_warmed_up() -> None:
    """engine.generate(...) in a script (ca114): SGLang's request path after its weights'
    bar, with no ready line (the offline Engine logs at error level), is a caller's."""
    bar = "Multi-thread loading shards: 100% Completed | 4/4 [00:00<00:00, 1740.92it/s]"
    path = ((f"{SG}/managers/tokenizer_manager.py", "generate_request",
             "async for response in self._handle_batch_request("),
            (f"{SG}/managers/tokenizer_manager.py", "_create_tokenized_object",
             "sampling_params.verify(self.model_config.vocab_size)"))
    error = "RuntimeError: something in the request path"
    caller = (("/tmp/script.py", "<module>", "outs = engine.generate(['the quick brown fox'])"),
              (f"{SG}/entrypoints/engine.py", "generate",
               "ret = self.loop.run_until_complete(generator.__anext__())"))
    assert verdict(bar, *tb(*caller, *path, error=error).splitlines(),
                   engine="sglang").phase is Phase.SERVING
    # the same path without the Engine's call, after a startup marker: the warmup request
    load = "[2026-12-05 19:57:22] Load weight begin. avail mem=21.20 GB"
    assert verdict(load, bar, *tb(*path, error=error).splitlines(),
                   engine="sglang").phase is Phase.WARMUP


# --- the ninety-seventh batch's kinds (real engines; a thirty-first helper blind to the rules) -

@pytest.mark.parametrize("error", [
    # vLLM run as nobody with HOME=/root: inductor's lock under root's compile cache (cb102)
    "torch._inductor.exc.InductorError: PermissionError: [Errno 13] Permission denied: "
    "'/root/.cache/vllm/torch_compile_cache/torch_aot_compile/5dae/inductor_cache/locks/c5.lock'",
    # SGLang so: FlashInfer's JIT log under root's cache, written as it is imported (cb112)
    "PermissionError: [Errno 13] Permission denied: "
    "'/root/.cache/sglang/.cache/flashinfer/0.7.2/flashinfer_jit.log'",
    # a cache on a read-only file system
    "OSError: [Errno 30] Read-only file system: '/tmp/torchinductor_app/locks/x.lock'",
    # the hub download's lock in a --download-dir on a read-only mount (dz105)
    "OSError: [Errno 30] Read-only file system: "
    "'/mnt/ro-models/f342476b69f4714293de4f839084b846tiny-org-llama-tiny.lock'",
])
def test_a_cache_the_process_may_not_write_is_where_the_launch_put_it(error: str) -> None:
    frame = (f"{TORCH}/_inductor/codecache.py", "load", "with FileLock(lock_path, timeout=10):")
    assert cause_of(tb(frame, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: a model file refused to the same user is the checkpoint's
    model = "PermissionError: [Errno 13] Permission denied: '/models/llama/config.json'"
    reader = (f"{VL}/transformers_utils/config.py", "get_config", "with open(path) as f:")
    assert cause_of(tb(reader, error=model), "vllm") is not Cause.INVALID_CONFIG


# --- the ninety-eighth batch's kinds (real engines; a thirty-second helper blind to the rules) -

_OMP_BIND = ((f"{VL}/utils/ompmultiprocessing.py", "__init__",
              "self._parse_omp_threads_bind_env()"),
             (f"{VL}/utils/ompmultiprocessing.py", "_parse_omp_threads_bind_env",
              "self.cpu_lists = [cr_utils.parse_id_list(s) for s in omp_cpuids_list]"),
             (f"{VL}/utils/cpu_resource_utils.py", "parse_id_list", "result.append(int(part))"))


def test_a_value_refused_under_a_parser_of_an_environment_variable_is_the_variable() -> None:
    """VLLM_CPU_OMP_THREADS_BIND=all, an older release's syntax (cc113): the helper's int()
    refuses it, two frames under the function that parses the variable."""
    error = "ValueError: invalid literal for int() with base 10: 'all'"
    assert cause_of(tb(*_OMP_BIND, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: the same refusal under no such function names no setting
    plain = tuple((p, f.replace("_parse_omp_threads_bind_env", "_split_lists"),
                   src.replace("_parse_omp_threads_bind_env", "_split_lists"))
                  for p, f, src in _OMP_BIND)
    assert cause_of(tb(*plain, error=error), "vllm") is Cause.UNKNOWN


# --- the 100th batch's kinds (real engines; a thirty-fourth helper blind to the rules) ---------

_EIO = "OSError: [Errno 5] Input/output error"


@pytest.mark.parametrize("reader, engine", [
    # config.json on a failing disk, read by Transformers' config reader (ce107)
    ((f"{VL[:-5]}/transformers/configuration_utils.py", "_dict_from_json_file",
      "text = reader.read()"), "vllm"),
    # tokenizer.json so, read by the tokenizer's loader (ce110)
    ((f"{VL[:-5]}/transformers/tokenization_utils_base.py", "_from_pretrained",
      "tokenizer_file_handle = json.load(tokenizer_file_handle)"), "sglang"),
])
def test_a_model_file_the_disk_cannot_read_is_the_checkpoints(reader, engine) -> None:
    json_load = ("/usr/lib/python3.11/json/__init__.py", "load", "return loads(fp.read(),")
    assert cause_of(tb(reader, json_load, error=_EIO), engine) is Cause.CORRUPT_CHECKPOINT
    # guard: the same I/O error under code of no reader of the model's names nothing
    other = ("/srv/app/uploader.py", "send", "data = f.read()")
    assert cause_of(tb(other, error=_EIO), engine) is Cause.UNKNOWN


# --- the 101st batch's kinds (real engines; a thirty-fifth helper blind to the rules) ---------

_NO_ACCELERATOR = ("RuntimeError: No accelerator (CUDA, XPU, HPU, NPU, MUSA, MPS) or platform "
                   "plugin is available.")
_GET_DEVICE = (f"{SG}/utils/common.py", "get_device", "raise RuntimeError(")


def test_a_device_the_model_s_own_code_asks_for_is_the_hardware_s() -> None:
    """SGLang on --device cpu building a Transformers-backend MoE (cf114) or encoder (cf118):
    the model's init asks get_device for an accelerator the host lacks - this model's path
    has no implementation here."""
    build = ((f"{SG}/model_loader/loader.py", "_initialize_model",
              "return model_class(config=model_config.hf_config)"),
             (f"{SG}/models/transformers.py", "_init_parameters", "device = get_device()"),
             _GET_DEVICE)
    assert cause_of(tb(*build, error=_NO_ACCELERATOR), "sglang") is Cause.UNSUPPORTED_ARCH
    # guard: the same words at argument resolution (no --device on a host without one, at138)
    # are no model's
    resolve = ((f"{SG}/server_args.py", "_handle_missing_default_values",
                "self.device = get_device()"), _GET_DEVICE)
    assert cause_of(tb(*resolve, error=_NO_ACCELERATOR), "sglang") is not Cause.UNSUPPORTED_ARCH


def test_a_config_sglang_s_config_package_cannot_fit_is_the_settings() -> None:
    """A Mamba config without attention heads (cf119): SGLang's update_config.py fitting it to
    the CPU's tensor parallelism does arithmetic on None."""
    fit = (f"{SG}/configs/update_config.py", "adjust_config_with_unaligned_cpu_tp",
           "model_config.num_attention_heads % tp_size != 0")
    error = "TypeError: unsupported operand type(s) for %: 'NoneType' and 'int'"
    assert cause_of(tb(fit, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: the same error in the model's forward is no setting's
    forward = (f"{SG}/models/llama.py", "forward", "hidden = hidden % self.scale")
    assert cause_of(tb(forward, error=error), "sglang") is not Cause.INVALID_CONFIG


# --- the 104th batch's kinds (real engines; a thirty-eighth helper blind to the rules) --------

@pytest.mark.parametrize(("process", "cause"), [
    ("scheduler_0", Cause.HOST_OOM_KILLED),
    # the detokenizer holds no weights and no KV pool: the OOM killer, which takes the process
    # holding the most memory, would never pick it first - its SIGKILL came from elsewhere
    # (ep104: killed as the thread that started it ended; ci118 relabelled so)
    ("detokenizer", Cause.UNKNOWN),
    ("tokenizer_manager", Cause.UNKNOWN)])
def test_an_sglang_subprocess_gone_with_sigkill(process: str, cause: Cause) -> None:
    """SGLang 0.5's launcher reporting a subprocess dead while it serves (ci112: the scheduler),
    SIGKILLed with no traceback of its own: the host's OOM killer, as its older `Rank 0
    scheduler is dead` with -9 reads - where the process is the one holding the memory."""
    log = (f"[2026-12-05 23:48:04] Subprocess {process} (pid=22311) crashed with exit code -9. "
           "Triggering SIGQUIT for cleanup...\n"
           "[2026-12-05 23:48:04] SIGQUIT received. signum=None, frame=None. It usually means "
           "one child failed.\n")
    assert cause_of(log, "sglang") is cause
    # guard: the same report of a process that exited with an error code is no OOM kill
    assert cause_of(log.replace("code -9", "code 1"), "sglang") is not Cause.HOST_OOM_KILLED


# --- the 105th batch's kinds (real engines; a thirty-ninth helper blind to the rules) ---------

@pytest.mark.parametrize("line", [
    # bash's set -u on a variable the environment lacks (cj101)
    "/srv/start.sh: line 8: MAX_MODEL_LEN: unbound variable",
    # dash's words for the same
    "/srv/start.sh: 8: MAX_MODEL_LEN: parameter not set",
    # a settings file the script sources, not there (cj111)
    "/srv/start.sh: line 5: /etc/sglang/serve.env: No such file or directory",
    # GNU make refusing the Makefile holding the launch (cj119)
    "Makefile:7: *** missing separator (did you mean TAB instead of 8 spaces?).  Stop.",
    # taskset given CPUs the host lacks (cj107)
    "taskset: failed to set pid 28619's affinity: Invalid argument",
])
def test_a_launch_script_stopping_on_its_own_error_is_the_launch_s_set_up(line: str) -> None:
    log = "[start.sh] 2026-12-05T23:56:25Z starting the engine on port 30000\n" + line + "\n"
    v = classify_text(log, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH, Cause.INVALID_CONFIG)


def test_a_script_s_shell_lines_that_are_no_error_name_nothing() -> None:
    """guard: a script's line about a variable it set, or make's relay of a child's status,
    is no failure of the launch's set-up."""
    log = ("/srv/start.sh: line 8: export MAX_MODEL_LEN=4096\n"
           "make: *** [Makefile:3: serve] Error 1\n")
    assert classify_text(log, engine="vllm").cause is not Cause.INVALID_CONFIG


def test_python_without_its_program_name_failing_to_find_the_engine_is_the_install() -> None:
    """`env -i` leaves the interpreter no argv[0]: runpy's `: Error while finding module
    specification for 'sglang.launch_server' (ModuleNotFoundError: No module named 'sglang')`
    (cj116) is fatal as with `/usr/bin/python3:` before it."""
    log = (": Error while finding module specification for 'sglang.launch_server' "
           "(ModuleNotFoundError: No module named 'sglang')\n")
    v = classify_text(log, engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.IMPORT_ERROR)


def test_an_sglang_restarted_by_its_launcher_after_a_kill_is_the_last_run_s() -> None:
    """A launcher restarting SGLang once it died (cj114): SGLang 0.5 dumps its arguments as
    `server_args={...}`; the second run, serving, is the verdict's."""
    run = ["[2026-12-06 00:02:04] server_args={'model_path': '/m', 'port': 30000}",
           "[2026-12-06 00:02:44] Load weight begin. avail mem=20.00 GB",
           "[2026-12-06 00:02:48] The server is fired up and ready to roll!",
           '[2026-12-06 00:02:50] INFO:     127.0.0.1:33042 - "POST /v1/completions '
           'HTTP/1.1" 200 OK']
    death = ["[2026-12-06 00:02:54] Subprocess scheduler_0 (pid=30282) crashed with exit "
             "code -9. Triggering SIGQUIT for cleanup...",
             "2026-12-06 00:02:59,968 launcher INFO restarting sglang in 3 s (restart 1 of 1)"]
    v = classify_text("\n".join(run + death + run), engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)
    # guard: without the second run, the death stands
    v = classify_text("\n".join(run + death), engine="sglang")
    assert v.outcome is Outcome.CRASHED


# --- wrappers' health checks (the 105th batch's cj106 and cj115, tuned on this session) -------

SG_SERVING = ["[2026-12-06 00:04:40] Load weight begin. avail mem=20.00 GB",
              "[2026-12-06 00:04:47] The server is fired up and ready to roll!",
              '[2026-12-06 00:04:50] INFO:     10.0.0.5:33042 - "POST /v1/completions HTTP/1.1" '
              "200 OK"]
SG_SIGTERM = ["[2026-12-06 00:05:29] SIGTERM received. signum=None frame=None. Draining requests "
              "and shutting down...",
              "[2026-12-06 00:05:32] INFO:     Application shutdown complete."]


@pytest.mark.parametrize("line", [
    "[supervise.sh] 00:05:29 liveness probe failed 4 times, killing SGLang (pid 31424)",
    "[entrypoint] vLLM not healthy after 24s, killing pid 28305",
    "Warning  Unhealthy  pod/sglang-0  Container sglang failed liveness probe, will be restarted",
    "watchdog: health check failed 3 times in a row; terminating the server",
    "run.sh: killing the server: health checks failed for 60 s",
])
def test_a_wrapper_killing_the_engine_for_its_health_ends_the_run(line: str) -> None:
    """A script, supervisor or kubelet giving up on the engine's health and killing it: the run
    ended there (crashed, health_check_failed), though the engine's own lines after it are a
    clean shutdown on the SIGTERM it got."""
    v = classify_text("\n".join([*SG_SERVING, line, *SG_SIGTERM]), engine="sglang")
    assert (v.outcome, v.phase, v.cause) == \
        (Outcome.CRASHED, Phase.SERVING, Cause.HEALTH_CHECK_FAILED)


@pytest.mark.parametrize("line", [
    "[entrypoint] health check 3/12 failed",
    "Warning  Unhealthy  pod/sglang-0  Readiness probe failed: Get \"http://10.0.0.5:30000/"
    "health\": dial tcp 10.0.0.5:30000: connect: connection refused",
    "[supervise.sh] killing SGLang (pid 31424): the campaign is over",
])
def test_a_probe_failing_without_a_kill_or_a_kill_without_a_probe_names_no_health_failure(
        line: str) -> None:
    """guard: probes fail while an engine loads, and a script stops its engine for its own
    reasons: neither alone is a health check that ended the run."""
    v = classify_text("\n".join([*SG_SERVING, line, *SG_SIGTERM]), engine="sglang")
    assert v.cause is not Cause.HEALTH_CHECK_FAILED


# --- the 107th batch's kinds (real engines; a forty-first helper blind to the rules) ---------

_VLLM_ARGPARSE = "/venv/lib/python3.11/site-packages/vllm/utils/argparse_utils.py"


@pytest.mark.parametrize(("source", "error"), [
    # a --config file that is not there (a ConfigMap not mounted: cl103)
    ("    with open(file_path) as config_file:",
     "FileNotFoundError: [Errno 2] No such file or directory: '/etc/vllm/serve.yaml'"),
    # an empty one: yaml.safe_load gives None (cl104)
    ("    for key, value in config.items():",
     "AttributeError: 'NoneType' object has no attribute 'items'"),
])
def test_an_error_reading_the_launch_s_settings_file_is_the_settings(source: str,
                                                                      error: str) -> None:
    log = "\n".join([
        "Traceback (most recent call last):",
        f'  File "{_VLLM_ARGPARSE}", line 524, in _pull_args_from_config',
        "    config_args = self.load_config_file(file_path)",
        f'  File "{_VLLM_ARGPARSE}", line 607, in load_config_file',
        source, error]) + "\n"
    v = classify_text(log, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH, Cause.INVALID_CONFIG)


def test_the_same_error_outside_the_settings_reader_is_not_the_settings() -> None:
    """guard: an AttributeError raised elsewhere at launch names no setting."""
    log = "\n".join([
        "Traceback (most recent call last):",
        '  File "/venv/lib/python3.11/site-packages/vllm/entrypoints/cli/main.py", line 70, in '
        "main",
        "    args.dispatch_function(args)",
        "AttributeError: 'NoneType' object has no attribute 'items'"]) + "\n"
    assert classify_text(log, engine="vllm").cause is not Cause.INVALID_CONFIG


# --- the API server's own settings (the 116th and 117th batches) -----------------------------

_APP = f"{VL}/entrypoints/launchers/api_server"


_ENGINE_UP = ("(EngineCore pid=26320) INFO 12-06 09:53:30 [core.py:402] init engine (profile, "
              "create kv cache, warmup model) took 9.51 s\n")


def test_a_middleware_of_the_wrong_kind_is_the_setting() -> None:
    """vLLM's --middleware given a plain function, refused as the API server builds its app
    once the engine is up: the refusal names the setting (cu102)."""
    log = _ENGINE_UP + tb((f"{_APP}/entry.py", "build_and_serve", "app = build_app(args)"),
             (f"{VL}/entrypoints/serve/middleware/register.py", "init_entrypoints_middleware",
              "raise ValueError("),
             error="ValueError: Invalid middleware tenant_mw.add_tenant_header. Must be a "
                   "function or a class.")
    assert cause_of(log, "vllm") is Cause.INVALID_CONFIG
    # guard: an 'Invalid ...' line that names no kind the setting must be is no such refusal
    log = _ENGINE_UP + tb((f"{_APP}/entry.py", "build_and_serve", "app = build_app(args)"),
             error="ValueError: Invalid prompt. The prompt is empty.")
    assert cause_of(log, "vllm") is not Cause.INVALID_CONFIG


def test_a_tool_server_not_there_at_startup_is_the_setting() -> None:
    """vLLM's --tool-server naming an address where no MCP server listens: its client's
    connection error as the app state is built (cu104)."""
    frames = [(f"{_APP}/app_state.py", "init_app_state", "await init_tool_server(args)"),
              (f"{VL}/entrypoints/mcp/tool_server.py", "init_tool_server",
               "await tool_server.add_tool_server(args.tool_server)"),
              (f"{VL}/entrypoints/mcp/tool_server.py", "add_tool_server",
               "initialize_response, list_tools_response = await list_server_and_tools(url)"),
              (f"{VL}/entrypoints/mcp/tool_server.py", "list_server_and_tools",
               "async with sse_client(url=server_url) as streams, ClientSession("),
              ("/venv/lib/python3.11/site-packages/httpx/_transports/default.py",
               "map_httpcore_exceptions", "raise mapped_exc(message) from exc")]
    log = tb(*frames, error="httpx.ConnectError: All connection attempts failed")
    assert cause_of(log, "vllm") is Cause.INVALID_CONFIG
    # guard: the same connection error under another caller names no setting
    log = tb(frames[0], frames[-1], error="httpx.ConnectError: All connection attempts failed")
    assert cause_of(log, "vllm") is not Cause.INVALID_CONFIG


def test_pooling_parameters_the_model_refuses_are_the_settings() -> None:
    """vLLM checking the pooling parameters of its startup's dummy pooler run against the
    model: a --pooler-config value the model cannot take (cv105)."""
    frames = [(f"{VL}/v1/worker/gpu_model_runner.py", "_dummy_pooler_run_task",
               "dummy_pooling_params.verify(self.model_config)"),
              (f"{VL}/pooling_params.py", "verify", "self._set_default_parameters(model_config)"),
              (f"{VL}/pooling_params.py", "_set_default_parameters", "raise VLLMValidationError(")]
    error = ("vllm.exceptions.VLLMValidationError: Model '/m/llama' does not support Matryoshka "
             "embeddings; dimensions must be unset (received dimensions=64).")
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: the dummy run failing otherwise, outside the parameters' check, is not the settings
    other = error.replace("vllm.exceptions.VLLMValidationError", "ValueError")
    assert cause_of(tb(frames[0], error=other), "vllm") is not Cause.INVALID_CONFIG


def test_the_models_own_code_lacking_a_class_its_auto_map_names_is_the_checkpoint() -> None:
    """config.json's auto_map naming a class the model's own configuration file does not
    define: transformers imports the file and finds no such class (da106)."""
    frames = [(f"{SG}/utils/hf_transformers/config.py", "get_config", "config = parse()"),
              ("/venv/lib/python3.11/site-packages/transformers/dynamic_module_utils.py",
               "get_class_in_module", "return getattr(module, class_name)")]
    error = ("AttributeError: module 'transformers_modules.tiny.0074f147d83bd2e7."
             "configuration_tinylm' has no attribute 'TinyLMConfigV2'. Did you mean: "
             "'TinyLMConfig'?")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.CORRUPT_CHECKPOINT
    # guard: an attribute missing from another module names no checkpoint
    other = error.replace("transformers_modules.tiny.0074f147d83bd2e7.", "sglang.srt.")
    assert cause_of(tb(*frames, error=other), "sglang") is not Cause.CORRUPT_CHECKPOINT


# -- the 123rd-126th blind batches (load formats, speculative decoding, KV offloading, Inductor)
LOAD_PT = [(f"{VL}/model_executor/model_loader/default_loader.py", "load_weights",
            "self.get_all_weights(model_config, model)"),
           (f"{VL}/model_executor/model_loader/weight_utils.py", "pt_weights_iterator",
            "state = torch.load(bin_file, map_location=pt_load_map_location, weights_only=True)")]


def test_a_checkpoint_deserialised_onto_cuda_without_cuda_is_the_setting() -> None:
    """--pt-load-map-location cuda on a CPU host (or a GPU-saved .pt loaded without a
    map_location): torch's own words name the setting (db101)."""
    error = ("RuntimeError: Attempting to deserialize object on a CUDA device but "
             "torch.cuda.is_available() is False. If you are running on a CPU-only machine, "
             "please use torch.load with map_location=torch.device('cpu') to map your storages "
             "to the CPU.")
    assert cause_of(tb(*LOAD_PT, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: a CUDA device torch can use, failing otherwise, is no such setting
    other = "RuntimeError: Attempting to deserialize object on CUDA device 3 but torch only has 1"
    assert cause_of(tb(*LOAD_PT, error=other), "vllm") is not Cause.INVALID_CONFIG


def test_a_pickle_holding_more_than_tensors_is_the_checkpoint() -> None:
    """The engines load .bin weights with weights_only=True: a state dict saved with other
    objects in it cannot be read as weights (db103, db106)."""
    error = ("_pickle.UnpicklingError: Weights only load failed. This file can still be loaded, "
             "to do so you have two options, do those steps only if you trust the source of the "
             "checkpoint.")
    text = tb(*LOAD_PT, error=error) + "WeightsUnpickler error: Unsupported global: GLOBAL " \
        "argparse.Namespace was not an allowed global by default.\n"
    assert cause_of(text, "vllm") is Cause.CORRUPT_CHECKPOINT
    # guard: another unpickling error of the same loader names nothing of the kind
    assert cause_of(tb(*LOAD_PT, error="_pickle.UnpicklingError: pickle data was truncated"),
                    "vllm") is not Cause.INVALID_CONFIG


@pytest.mark.parametrize(("error", "cause"), [
    # a training checkpoint saved whole: its top-level keys read as tensor names (db102, db110)
    ("ValueError: There is no module or parameter named '' in LlamaModel. The available "
     "parameters belonging to  (LlamaModel) are: {'norm.weight'}", Cause.CORRUPT_CHECKPOINT),
    ("ValueError: No module or parameter named 'model.model' in TransformersForCausalLM.",
     Cause.CORRUPT_CHECKPOINT),
    # a module of another head or architecture: the class built is not the checkpoint's
    # (corrupt_checkpoint since the corpus README settled the family in round 2, session 41)
    ("ValueError: There is no module or parameter named 'score' in Qwen2ForCausalLM",
     Cause.CORRUPT_CHECKPOINT),
    ("ValueError: No module or parameter named 'language_model' in Gemma3ForCausalLM.",
     Cause.CORRUPT_CHECKPOINT),
    # a LoRA adapter's tensors (PEFT's `base_model.model.` prefix, its lora_A / lora_B) in the
    # base model's folder, loaded with every *.safetensors there (en103, en104)
    ("ValueError: There is no module or parameter named 'base_model' in LlamaForCausalLM. The "
     "available parameters belonging to  (LlamaForCausalLM) are: {'model.norm.weight'}",
     Cause.CORRUPT_CHECKPOINT),
    ("ValueError: No module or parameter named 'model.base_model' in TransformersForCausalLM.",
     Cause.CORRUPT_CHECKPOINT),
    ("ValueError: No module or parameter named 'model.layers.0.self_attn.q_proj.lora_A' in "
     "TransformersForCausalLM.", Cause.CORRUPT_CHECKPOINT),
    # (a head named like it is still another head: `base_models` is no PEFT prefix)
    ("ValueError: There is no module or parameter named 'base_models' in Qwen2ForCausalLM",
     Cause.CORRUPT_CHECKPOINT),
], ids=["empty-name", "prefix-doubled", "other-head", "other-head-sglang-words", "peft-prefix",
        "peft-prefix-sglang-words", "lora-matrix", "not-peft"])
def test_tensor_names_that_are_no_tensor_names_are_the_checkpoint(error: str,
                                                                  cause: Cause) -> None:
    frames = [(f"{VL}/model_executor/models/utils.py", "_load_module", "raise ValueError(msg)")]
    assert cause_of(tb(*frames, error=error), "vllm") is cause


def test_full_precision_weights_under_a_quantized_checkpoint_s_config() -> None:
    """A quantization config left beside bf16 weights: SGLang builds FP8 parameters and its
    loader refuses to narrow the weights into them (en102)."""
    frames = [(f"{SG}/model_loader/loader.py", "load_weights_and_postprocess",
               "model.load_weights(weights)"),
              (f"{SG}/layers/parameter.py", "copy_with_check", "raise ValueError(")]
    error = ("ValueError: Downcasting not allowed: target.dtype=torch.float8_e4m3fn, "
             "loaded_weight.dtype=torch.bfloat16")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.CORRUPT_CHECKPOINT
    # guard: a float32 parameter given bf16 weights is no quantized checkpoint
    plain = error.replace("float8_e4m3fn", "float32")
    assert cause_of(tb(*frames, error=plain), "sglang") is not Cause.CORRUPT_CHECKPOINT


def test_a_package_version_the_code_asks_for_is_the_environment() -> None:
    """`Please use torchao version >= 0.15.0 to load torchao safetensors checkpoint` (vLLM's
    --safetensors-load-strategy torchao without torchao): the installed stack (db108)."""
    error = "ValueError: Please use torchao version >= 0.15.0 to load torchao safetensors checkpoint"
    assert cause_of(tb(*LOAD_PT, error=error), "vllm") is Cause.IMPORT_ERROR
    # guard: a version of the model's own config is no package
    other = "ValueError: Please use a config version >= 2 for this model"
    assert cause_of(tb(*LOAD_PT, error=other), "vllm") is not Cause.IMPORT_ERROR


SPEC_HOOK = [(f"{SG}/arg_groups/resolution_hooks.py", "run_hook", "step(server_args)"),
             (f"{SG}/arg_groups/speculative_hook.py", "handle_speculative_decoding",
              "algo.handle_server_args(server_args)"),
             (f"{SG}/speculative/spec_info.py", "handle_server_args",
              "_handle_eagle_family(server_args)"),
             (f"{SG}/arg_groups/speculative_hook.py", "_handle_eagle_family",
              "raise NotImplementedError(")]


@pytest.mark.parametrize("error", [
    "NotImplementedError: --speculative-use-rejection-sampling is only supported for EAGLE / "
    "EAGLE3 / NEXTN, not speculative_algorithm=STANDALONE.",
    "AssertionError"], ids=["refusal-in-words", "bare-assert"])
def test_the_speculative_arguments_refused_at_resolution_are_the_settings(error: str) -> None:
    """SGLang's speculative argument hook refusing a combination of flags (dc106, dc109):
    nothing of speculative decoding ran - the settings, not the draft."""
    assert cause_of(tb(*SPEC_HOOK, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: the draft's own code failing while it runs is still the draft's
    running = [(f"{SG}/speculative/eagle_worker.py", "draft_forward", "self.draft_model_runner()")]
    text = tb(*running, error="RuntimeError: draft model produced no tokens")
    assert cause_of(text, "sglang") is Cause.SPECULATIVE_DECODING_ERROR


def test_vllms_rejection_sampler_failing_is_speculative_decoding() -> None:
    """vLLM's rejection sampler only checks drafted tokens: a bare assert in it as a request runs
    is speculative decoding's (dc111: 300 speculative tokens over a 256-token window)."""
    frames = [(f"{VL}/v1/worker/gpu_model_runner.py", "sample_tokens", "self._sample(logits)"),
              (f"{VL}/v1/sample/rejection_sampler.py", "forward",
               "assert metadata.max_spec_len <= MAX_SPEC_LEN")]
    assert cause_of(tb(*frames, error="AssertionError"), "vllm") is \
        Cause.SPECULATIVE_DECODING_ERROR
    # guard: the plain sampler is not
    plain = [frames[0], (f"{VL}/v1/sample/sampler.py", "forward", "assert logits is not None")]
    assert cause_of(tb(*plain, error="AssertionError"), "vllm") is not \
        Cause.SPECULATIVE_DECODING_ERROR


def test_the_hierarchical_caches_host_tier_not_fitting_is_the_kv_cache() -> None:
    """SGLang's HiCache sizing its host pool beyond the host's memory (dd104)."""
    frames = [(f"{SG}/mem_cache/pool_host/base.py", "_allocate_host_buffer", "raise ValueError(")]
    error = ("ValueError: Not enough host memory available. Requesting 8.02 GB but only have "
             "-5.31 GB free. Please reduce the size of the hierarchical cache.")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.KV_CACHE_OOM
    # guard: host memory short for something else is not the KV cache
    other = "ValueError: Not enough host memory available for pinned staging buffers."
    assert cause_of(tb(*frames[:0], (f"{SG}/utils.py", "pin", "raise ValueError("), error=other),
                    "sglang") is not Cause.KV_CACHE_OOM


def test_an_inductor_option_torch_does_not_have_is_the_setting() -> None:
    """vLLM's --compilation-config inductor_compile_config with a misspelt key: torch's config
    module refuses it by name (de101)."""
    frames = [(f"{VL}/compilation/backends.py", "__call__", "self.compiler_manager.compile("),
              ("/venv/lib/python3.12/site-packages/torch/utils/_config_module.py", "patch",
               "raise RuntimeError(")]
    error = ("RuntimeError: Unexpected optimization option max_autotune_gemm_backendz, known "
             "options are ['TYPE_CHECKING', 'inplace_padding']")
    assert cause_of(tb(*frames, error=error, prefix=CORE), "vllm") is Cause.INVALID_CONFIG
    # guard: torch's other runtime errors there are not a setting's
    other = "RuntimeError: Unexpected type of output from the compiled graph"
    assert cause_of(tb(*frames, error=other, prefix=CORE), "vllm") is not Cause.INVALID_CONFIG


# -- the 127th-130th blind batches (offline scripts, less-used endpoints, timeouts, identities)
VLLM_UP = ("(EngineCore pid=9) INFO 12-06 14:06:15 [core.py:402] init engine (profile, create kv "
           "cache, warmup model) took 8.91 s\n")
OFFLINE = f"{VL}/entrypoints/common/offline.py"


def test_an_offline_call_refused_before_the_engine_took_it_is_no_serving() -> None:
    """vLLM's LLM.chat failing as it renders the messages (a message without a role): nothing
    reached the engine, which is up and idle - warmup, as ca106 and df104 are labelled; a
    call that reached the engine's run is serving."""
    frames = [(f"{VL}/entrypoints/llm.py", "chat", "return self._run_chat("),
              (OFFLINE, "_preprocess_chat", "self._preprocess_chat_one(m)"),
              (f"{VL}/renderers/hf.py", "render_messages", "msg['role']")]
    assert verdict_of(VLLM_UP + tb(*frames, error="KeyError: 'role'"), "vllm")[:2] == \
        (Outcome.CRASHED, Phase.WARMUP)
    # guard: the engine running the prompts
    ran = [frames[0], (f"{VL}/entrypoints/llm.py", "_run_engine", "step_outputs = self.step()")]
    assert verdict_of(VLLM_UP + tb(*ran, error="RuntimeError: boom"), "vllm")[:2] == \
        (Outcome.CRASHED, Phase.SERVING)


def test_vllms_validation_error_ending_a_run_is_the_runs_settings() -> None:
    """`VLLMValidationError` is what a server answers with a 400: ending a run (an offline
    script's prompt past the window), the run's own inputs or settings were refused (df102)."""
    frames = [(f"{VL}/entrypoints/llm.py", "generate", "return self._run_completion("),
              (f"{VL}/renderers/params.py", "_token_len_check", "raise VLLMValidationError(")]
    error = ("vllm.exceptions.VLLMValidationError: This model's maximum context length is 256 "
             "tokens. However, your prompt contains at least 257 input tokens.")
    assert cause_of(VLLM_UP + tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: another exception there is no refusal of the kind
    assert cause_of(VLLM_UP + tb(*frames, error="RuntimeError: tokenizer pool crashed"),
                    "vllm") is not Cause.INVALID_CONFIG


def test_sglangs_offline_engine_call_is_serving_and_its_request_check_the_setting() -> None:
    """SGLang's offline Engine: a script's engine.generate reached the request handler of a
    built Engine - serving (ca114, df106) - and the tokenizer manager refusing the request
    there is the caller's input (df109), a 400 on a server."""
    call = (f"{SG}/entrypoints/engine.py", "generate", "return loop.run_until_complete(gen)")
    shards = "Multi-thread loading shards: 100% Completed | 4/4 [00:00<00:00, 1172.49it/s]\n"
    loop = tb(call, ("/usr/lib/python3.11/asyncio/base_events.py", "_check_running",
                     "raise RuntimeError('This event loop is already running')"),
              error="RuntimeError: This event loop is already running")
    assert verdict_of(shards + loop, "sglang")[:2] == (Outcome.CRASHED, Phase.SERVING)
    check_ = tb(call, (f"{SG}/managers/tokenizer_manager.py", "_validate_one_request",
                       "raise ValueError("),
                error="ValueError: The input (2972 tokens) is longer than the model's context "
                      "length (2048 tokens).")
    assert verdict_of(shards + check_, "sglang") == \
        (Outcome.CRASHED, Phase.SERVING, Cause.INVALID_CONFIG)
    # guard: the same words from the scheduler's own step are no caller's input
    step = tb((f"{SG}/managers/scheduler.py", "run_batch", "self.forward(batch)"),
              error="ValueError: The input (2972 tokens) is longer than the model's context "
                    "length (2048 tokens).")
    assert cause_of(shards + step, "sglang") is not Cause.INVALID_CONFIG


def test_no_usable_temporary_folder_is_the_environment_not_the_import() -> None:
    """Python's tempfile finding no folder it may write (TMPDIR, /tmp, ... all refused: a server
    run as a user without one) while a library imports: the process's setting (di109)."""
    frames = [("/venv/lib/python3.11/site-packages/dill/_dill.py", "<module>",
               "_dill_tmp = tempfile.gettempdir()"),
              ("/usr/lib/python3.11/tempfile.py", "_get_default_tempdir", "raise FileNotFoundError(")]
    error = ("FileNotFoundError: [Errno 2] No usable temporary directory found in ['/tmp', "
             "'/var/tmp', '/usr/tmp', '/srv']")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: a module missing at the same import stays the environment's import
    assert cause_of(tb(frames[0], error="ModuleNotFoundError: No module named 'dill'"),
                    "sglang") is Cause.IMPORT_ERROR


def test_a_logging_errors_call_stack_names_no_cause() -> None:
    """Python's logging reporting a record it could not write (a closed stdout): its `Call
    stack:` is where the record was logged from - here vLLM's chat-template resolution - not an
    error's frames (df105)."""
    text = ("--- Logging error ---\n" + tb(
        ("/usr/lib/python3.11/logging/__init__.py", "emit", "stream.write(msg)"),
        error="BrokenPipeError: [Errno 32] Broken pipe") + "Call stack:\n" + "\n".join(
        f'  File "{f}", line 10, in {fn}\n    x()' for f, fn in [
            (f"{VL}/renderers/hf.py", "resolve_chat_template_content_format"),
            (f"{VL}/entrypoints/openai/cli_args.py", "validate_parsed_serve_args")]) +
        "\nMessage: 'Detected the chat template content format to be %s.'\nArguments: ('x',)\n")
    died = tb(("/tmp/gen.py", "<module>", "print(out)"),
              error="BrokenPipeError: [Errno 32] Broken pipe")
    assert cause_of(text + died, "vllm") is not Cause.INVALID_CONFIG
    # guard: the same frames in a real traceback still name the setting
    real = tb((f"{VL}/entrypoints/openai/cli_args.py", "validate_parsed_serve_args",
               "raise TypeError("),
              error="TypeError: Error: --enable-auto-tool-choice requires --tool-call-parser")
    assert cause_of(real, "vllm") is Cause.INVALID_CONFIG


def test_a_compiled_library_on_a_noexec_mount_is_the_hosts_setting() -> None:
    """A kernel compiled into a cache or temporary folder mounted noexec: dlopen cannot map it
    executable (`failed to map segment from shared object`, torch's inductor adding the noexec
    hint, or dlopen's own `: Operation not permitted`) - where the launch put its caches, not
    the compiler's failure (dk101)."""
    frames = [(f"{VL}/v1/worker/cpu_model_runner.py", "warming_up_model", "self._dummy_run()"),
              ("/venv/lib/python3.11/site-packages/torch/_inductor/cpp_builder.py", "load",
               "raise OSError(")]
    so = "/tmp/home/.cache/vllm/torch_compile_cache/inductor_cache/ng/cng.main.so"
    torch_words = (f"torch._inductor.exc.InductorError: OSError: {so}: failed to map segment "
                   "from shared object.  The most common reason this may occur is if the /tmp "
                   "folder is mounted with noexec (e.g., by default Docker mounts tmp file "
                   "systems as noexec).  Please remount /tmp with exec enabled")
    assert cause_of(tb(*frames, error=torch_words), "vllm") is Cause.INVALID_CONFIG
    dlopen_words = f"OSError: {so}: failed to map segment from shared object: Operation not permitted"
    assert cause_of(tb(*frames, error=dlopen_words), "vllm") is Cause.INVALID_CONFIG
    # guard: the same compile failing for want of memory is not the mount's
    no_memory = f"OSError: {so}: failed to map segment from shared object: Cannot allocate memory"
    assert cause_of(tb(*frames, error=no_memory), "vllm") is not Cause.INVALID_CONFIG
    # guard: inductor's own compile error stays the compiler's
    assert cause_of(tb(*frames, error="torch._inductor.exc.InductorError: CppCompileError: C++ "
                       "compile error"), "vllm") is Cause.TRITON_COMPILE_ERROR


def test_histogram_buckets_a_flag_gave_out_of_order_are_the_setting() -> None:
    """prometheus_client refusing a histogram's buckets, built from the launch's bucket flags
    (SGLang's --bucket-time-to-first-token 1 0.5 0.1): a setting, in the library's words
    (dp109)."""
    frames = [(f"{SG}/observability/metrics_collector.py", "__init__",
               "self.histogram_time_to_first_token = Histogram("),
              ("/venv/lib/python3.11/site-packages/prometheus_client/metrics.py",
               "_prepare_buckets", "raise ValueError('Buckets not in sorted order')")]
    assert cause_of(tb(*frames, error="ValueError: Buckets not in sorted order"),
                    "sglang") is Cause.INVALID_CONFIG
    assert cause_of(tb(*frames, error="ValueError: Must have at least two buckets"),
                    "sglang") is Cause.INVALID_CONFIG
    # guard: another ValueError of the same library names nothing
    assert cause_of(tb(*frames, error="ValueError: Duplicated timeseries in CollectorRegistry"),
                    "sglang") is not Cause.INVALID_CONFIG


def test_a_quantization_config_class_refusing_its_values_is_the_setting() -> None:
    """A quantization method's config class checking what it was given - SGLang's AWQ refusing
    8 bits from the model's quantization_config as the loader reads it (dq107): a config
    value refused on the engine's own terms."""
    quant = f"{SG}/layers/quantization/awq/awq.py"
    frames = [(f"{SG}/model_loader/weight_utils.py", "get_quant_config",
               "model_config, quant_cls.from_config(hf_quant_config)"),
              (quant, "from_config", "return cls(weight_bits, group_size, zero_point)"),
              (quant, "__init__", "raise ValueError(")]
    error = ("ValueError: Currently, only 4-bit weight quantization is supported for AWQ, but "
             "got 8 bits.")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: the same class failing in a call of its own (not its check) names nothing
    assert cause_of(tb(*frames[:2], (quant, "apply", "out = torch.matmul(x, w)"),
                       error="RuntimeError: mat1 and mat2 shapes cannot be multiplied"),
                    "sglang") is not Cause.INVALID_CONFIG


def test_vllms_logging_configuration_refused_is_the_launchs_setting() -> None:
    """vLLM configuring its logging from what the launch gave, and refusing it in its own
    words (VLLM_CONFIGURE_LOGGING=0 with VLLM_LOGGING_CONFIG_PATH set: `RuntimeError: Logging
    configuration is disabled, but a Python logging config file was given`, dp105)."""
    frames = [(f"{VL}/logger.py", "configure_logging", "_configure_vllm_root_logger(config)"),
              (f"{VL}/logger.py", "_configure_vllm_root_logger", "raise RuntimeError(")]
    error = ("RuntimeError: Logging configuration is disabled, but a Python logging config "
             "file was given. pylogging_config_file requires configure_logging to be enabled.")
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: a handler class the file names failing to import stays the import's
    assert cause_of(tb(*frames[:1], ("/usr/lib/python3.11/logging/config.py", "resolve",
                                     "found = self.importer(used)"),
                       error="ModuleNotFoundError: No module named 'acme_logship'"),
                    "vllm") is Cause.IMPORT_ERROR


SG_DECODE_ARGS = ("[2026-12-06 17:48:50] server_args={'model_path': '/m', 'decode_log_interval': %s, "
           "'tp_size': 1}")


def test_dividing_by_a_setting_the_launch_set_to_zero_is_the_setting() -> None:
    """`--decode-log-interval 0`: SGLang takes it and its scheduler divides by it on the first
    decode step (`self.forward_ct_decode % self.decode_log_interval` -> `ZeroDivisionError:
    integer modulo by zero`, dp108). The divisor is a setting of this launch at zero: the
    setting, and the evidence names it."""
    crash = tb((f"{SG}/managers/scheduler.py", "event_loop_overlap", "pop_and_process()"),
               (f"{SG}/managers/scheduler_components/metrics_reporter.py",
                "report_decode_stats",
                "if self.forward_ct_decode % self.decode_log_interval != 0:"),
               error="ZeroDivisionError: integer modulo by zero")
    v = classify_text(SG_DECODE_ARGS % "0" + "\n" + crash, engine="sglang")
    assert v.cause is Cause.INVALID_CONFIG, v
    assert v.evidence[-1].endswith("--decode-log-interval 0"), v.evidence
    # guard: the same division by a setting that is not zero (something else was) names none
    assert classify_text(SG_DECODE_ARGS % "40" + "\n" + crash, engine="sglang").cause is not \
        Cause.INVALID_CONFIG


def test_sglang_missing_a_numbered_layer_is_a_checkpoint_of_more_layers() -> None:
    """SGLang's Transformers backend loading a checkpoint that holds a layer its model lacks
    (`ValueError: No module or parameter named 'model.layers.2' in TransformersForCausalLM.`,
    a deeper model's weights pushed by /update_weights_from_disk, ds103): config and weights
    disagree - corrupt_checkpoint, as vLLM's words for it are read."""
    frames = [(f"{SG}/model_executor/model_runner.py", "update_weights_from_disk",
               "model = model_load_weights(model, iter)"),
              (f"{SG}/models/utils.py", "_load_module", "raise ValueError(")]
    deeper = "ValueError: No module or parameter named 'model.layers.2' in TransformersForCausalLM."
    assert cause_of(tb(*frames, error=deeper), "sglang") is Cause.CORRUPT_CHECKPOINT
    # guard: no layer 0 at all - the stack was built empty, the config's own value
    empty = "ValueError: No module or parameter named 'model.layers.0' in TransformersForCausalLM."
    assert cause_of(tb(*frames, error=empty), "sglang") is Cause.INVALID_CONFIG
    # a module of another head is the checkpoint too (the README's rule, session 41)
    head = "ValueError: No module or parameter named 'score' in TransformersForCausalLM."
    assert cause_of(tb(*frames, error=head), "sglang") is Cause.CORRUPT_CHECKPOINT


# --- the 147th batch's kinds (real engines; a helper blind to the rules) ----------------------

_HUB = ("/x/site-packages/transformers/utils/hub.py", "cached_files",
        'raise OSError(f"There was a specific connection error when trying to load {p}:\\n{e}")')


def test_credentials_the_hub_refuses_are_the_launchs_token() -> None:
    # a revoked HF_TOKEN: huggingface_hub 1.x's httpx error, then the hub's own words (dz101)
    text = tb(_HUB, error="OSError: There was a specific connection error when trying to load "
                          "tiny-org/llama-tiny:") + (
        "Client error '401 Unauthorized' for url 'http://hub/tiny-org/llama-tiny/resolve/main/"
        "config.json'\nInvalid credentials in Authorization header\n")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    # guard: a gated repository the launch has no access to is the model's
    gated = tb(_HUB, error="OSError: You are trying to access a gated repo. 401 Client Error. "
                           "Cannot access gated repo for url https://huggingface.co/org/m.")
    assert cause_of(gated, "vllm") is Cause.MODEL_NOT_FOUND


# --- the 150th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_logging_without_its_own_functions_is_a_shadowed_module_not_a_log_level() -> None:
    # a stray logging.py in the working folder, met as torch is imported (ec104)
    text = tb((f"{VL}/__init__.py", "<module>", "import vllm.env_override  # noqa: F401"),
              (f"{VL}/env_override.py", "<module>", "import torch"),
              ("/x/site-packages/torch/__init__.py", "<module>", "from torch._utils import ("),
              ("/x/site-packages/torch/_utils.py", "<module>",
               "logger = logging.getLogger(__name__)"),
              error="AttributeError: module 'logging' has no attribute 'getLogger'")
    assert cause_of(text, "vllm") is Cause.IMPORT_ERROR


# --- the 148th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_the_batch_invariant_mode_failing_in_its_own_ops_is_the_mode_the_launch_chose() -> None:
    # vLLM's VLLM_BATCH_INVARIANT=1 on the CPU build: its Triton softmax kernel is a plain
    # function there, met in the memory-profiling run's sampler (ea102)
    text = tb((f"{VL}/v1/sample/ops/topk_topp_sampler.py", "apply_top_k_top_p_pytorch",
               "probs_sort = logits_sort.softmax(dim=-1)"),
              (f"{VL}/model_executor/determinism/batch_invariant.py", "softmax_batch_invariant",
               "return softmax(input, dim=-1)"),
              (f"{VL}/model_executor/determinism/batch_invariant.py", "softmax",
               "_softmax_kernel[(n_rows,)]("),
              error="TypeError: 'function' object is not subscriptable")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    # guard: the same error in a sampler with the mode off names nothing
    plain = tb((f"{VL}/v1/sample/ops/topk_topp_sampler.py", "apply_top_k_top_p_pytorch",
                "probs_sort = kernel[(n,)](x)"),
               error="TypeError: 'function' object is not subscriptable")
    assert cause_of(plain, "vllm") is Cause.UNKNOWN


def test_an_accelerator_only_feature_on_a_host_without_one_is_the_launchs_setting() -> None:
    # SGLang's --enable-deterministic-inference on a CPU host (ea104)
    text = tb((f"{SG}/batch_invariant_ops/batch_invariant_ops.py", "enable_batch_invariant_mode",
               "dispatch_key = get_dispatch_device_backend()"),
              (f"{SG}/utils/common.py", "get_dispatch_device_backend",
               'raise RuntimeError("No supported accelerator (CUDA/XPU) available")'),
              error="RuntimeError: No supported accelerator (CUDA/XPU) available")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG
    bare = tb((f"{SG}/utils/common.py", "get_dispatch_device_backend", "raise RuntimeError(x)"),
              error="RuntimeError: No supported accelerator (CUDA/XPU) available")
    assert cause_of(bare, "sglang") is Cause.INVALID_CONFIG


# --- the 151st batch's kinds (real engines; a helper blind to the rules) ----------------------

_RUN_BATCH = f"{VL}/entrypoints/launchers/run_batch.py"
_AIOHTTP = "/x/site-packages/aiohttp/connector.py"
_REFUSED = ("aiohttp.client_exceptions.ClientConnectorError: Cannot connect to host "
            "127.0.0.1:49551 ssl:default [Connect call failed ('127.0.0.1', 49551)]")


@pytest.mark.parametrize("text", [
    # run_batch's input given as a URL nobody serves (ed103)
    tb((_RUN_BATCH, "run_batch", "async for line in read_file(args.input_file)"),
       (_RUN_BATCH, "read_file", "async with session.get(path_or_url) as resp:"),
       (_AIOHTTP, "_wrap_create_connection", "raise client_error(req.connection_key, exc)"),
       error=_REFUSED),
    # ... its output uploaded to one (ed105)
    tb((_RUN_BATCH, "write_file", "await upload_data(path_or_url, output, from_file=False)"),
       (_RUN_BATCH, "upload_data", "raise Exception("),
       error="Exception: Failed to upload data (attempt 5). Error message: Cannot connect to "
             "host 127.0.0.1:37243 ssl:default [Connect call failed ('127.0.0.1', 37243)]."),
    # SGLang's benchmark reading a ShareGPT file whose turns lack `value` (ed106)
    tb(("/x/site-packages/sglang/bench_offline_throughput.py", "throughput_test",
        "input_requests = get_dataset(args, tokenizer)"),
       ("/x/site-packages/sglang/benchmark/datasets/sharegpt.py", "sample_sharegpt_requests",
        "dataset = ["), error="KeyError: 'value'"),
])
def test_an_offline_job_refused_the_files_its_command_named(text) -> None:
    assert cause_of(text, "vllm" if "vllm" in text else "sglang") is Cause.INVALID_CONFIG


def test_a_connection_refused_elsewhere_is_not_the_jobs_files() -> None:
    # guard: the same aiohttp error in a user's own client names no job file
    text = tb(("/home/u/client.py", "fetch_all", "await session.get(url)"),
              (_AIOHTTP, "_wrap_create_connection", "raise client_error(k, exc)"), error=_REFUSED)
    assert cause_of(text, "vllm") is not Cause.INVALID_CONFIG


# --- the 156th batch's kinds (real engines; a helper blind to the rules) ----------------------

_MODELS = f"{VL}/entrypoints/openai/models/serving.py"


def test_a_lora_module_the_api_server_refuses_at_startup_is_the_launchs_setting() -> None:
    # --lora-modules tiny=... with --served-model-name tiny (ei103): refused as the API server
    # adds its static adapters, after the engine is up - not one request's error
    up = ("(EngineCore pid=5886) INFO 12-06 21:53:16 [core.py:402] init engine (profile, create "
          "kv cache, warmup model) took 2.22 s\n")
    text = up + tb((f"{VL}/entrypoints/launchers/api_server/app_state.py", "init_app_state",
                    "await state.openai_serving_models.init_static_loras()"),
                   (_MODELS, "init_static_loras", "raise ValueError(load_result.error.message)"),
                   error="ValueError: The lora adapter 'tiny' conflicts with a served base model.")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    # guard: the same module's request handler failing is one request's error
    served = up + tb((_MODELS, "load_lora_adapter", "raise ValueError(x)"),
                     error="ValueError: The lora adapter 'tiny' conflicts with a served base model.")
    assert verdict_of(served, "vllm")[0] is not Outcome.CRASHED


# --- the 165th batch's kinds (real engines; a hundredth helper blind to the rules) -------------

@pytest.mark.parametrize("error", [
    # vLLM's --kv-offloading-size on its CPU build (er101)
    "Exception: CPU Offloading is currently only supported on CUDA-alike and XPU GPUs",
    # vLLM's EPLB on a host of another kind (co107's words)
    "ValueError: Expert parallelism load balancing is only supported on CUDA devices or ROCm "
    "devices or XPU devices",
])
def test_a_feature_only_other_kinds_of_device_run_is_the_setting(error: str) -> None:
    frames = [(f"{VL}/v1/worker/gpu_model_runner.py", "initialize_kv_cache",
               "self.initialize_kv_cache_tensors(kv_cache_config)"),
              (f"{VL}/v1/kv_offload/cpu.py", "__init__", "raise Exception(")]
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: a GPU too old for a kernel names its compute capability - not this rule
    old = ("ValueError: FA2 is only supported on devices with compute capability >= 8")
    assert cause_of(tb(*frames, error=old), "vllm") is not Cause.INVALID_CONFIG


def test_a_failure_inside_the_weight_offloader_the_launch_set_is_the_setting() -> None:
    """SGLang's layer-wise offloader (--offload-group-size 2 --offload-num-in-group 1) failing
    in its own words as it wraps the layers (er105)."""
    frames = [(f"{SG}/model_executor/model_runner.py", "load_model",
               "get_offloader().post_init()"),
              (f"{SG}/utils/offloader.py", "post_init", "self.offloaders[0].start_onload()")]
    error = "IndexError: list index out of range"
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: the same error in the loader proper names no setting
    loader = [(f"{SG}/model_loader/loader.py", "load_model", "weights = self._get_weights()")]
    assert cause_of(tb(*loader, error=error), "sglang") is not Cause.INVALID_CONFIG


# --- the 166th batch's kinds (real engines; a hundred-and-first helper blind to the rules) -----

_INSPECT = ("pydantic_core._pydantic_core.ValidationError: 1 validation error for ModelConfig\n"
            "  Value error, Model architectures ['AcmeLlamaForCausalLM'] failed to be inspected. "
            "Please check the logs for more details. [type=value_error]\n")


def test_a_failed_inspection_is_the_error_its_subprocess_logged() -> None:
    """vLLM inspects an architecture in a subprocess and logs its traceback; ModelConfig's
    validation error only relays it (es102: an out-of-tree model importing a package not
    installed; ab308: a flash-attention extension missing)."""
    logged = tb((f"{VL}/model_executor/models/registry.py", "load_model_cls",
                 "mod = importlib.import_module(self.module_name)"),
                ("/srv/acme_vllm_models/llama.py", "<module>", "import acme_fused_kernels"),
                error="ModuleNotFoundError: No module named 'acme_fused_kernels'",
                prefix="(APIServer pid=1) ERROR 12-07 00:28:44 [registry.py:1120] ")
    assert cause_of(logged + _INSPECT, "vllm") is Cause.IMPORT_ERROR
    # guard: with nothing logged above, the validation error stands (tt310)
    assert cause_of(_INSPECT, "vllm") is Cause.INVALID_CONFIG
    # ... and so where the logged error names no cause (di103: a permission refused)
    refused = logged.replace("ModuleNotFoundError: No module named 'acme_fused_kernels'",
                             "PermissionError: [Errno 13] Permission denied: '/srv/x'")
    assert cause_of(refused + _INSPECT, "vllm") is Cause.INVALID_CONFIG


# --- the 177th batch's kinds (real engines; a helper blind to the rules) ----------------------

_LORA_INIT = [(f"{SG}/model_executor/model_runner.py", "init_lora_manager",
               "self.lora_manager = LoRAManager("),
              (f"{SG}/lora/lora_manager.py", "init_state", "self.init_lora_adapters(lora_paths)")]


def test_a_json_error_relayed_in_a_readers_own_words_is_the_file_it_read() -> None:
    """SGLang's LoRA manager wraps the JSONDecodeError of an adapter_config.json cut by a
    trailing comma: `RuntimeError: Failed to load LoRA adapter ad: Expecting property name
    enclosed in double quotes: line 23 column 1 (char 464)` (fd106)."""
    frames = _LORA_INIT + [(f"{SG}/lora/lora_manager.py", "init_lora_adapters",
                            "raise RuntimeError(")]
    error = ("RuntimeError: Failed to load LoRA adapter ad: Expecting property name enclosed in "
             "double quotes: line 23 column 1 (char 464)")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.CORRUPT_CHECKPOINT
    # guard: the same words raised by a request's handler (a client's JSON body) name no file
    handler = [(f"{SG}/entrypoints/http_server.py", "openai_v1_chat_completions",
                "raise RuntimeError(")]
    assert verdict(tb(*handler, error=error), engine="sglang").cause \
        is not Cause.CORRUPT_CHECKPOINT


def test_sglang_sizing_its_lora_pool_for_a_module_it_does_not_know_is_the_adapter() -> None:
    """An adapter whose own target modules are another family's names (wq, wv) on a Llama:
    SGLang dies sizing its LoRA memory pool (fd107), as vLLM's `expected target modules in
    ... but received` is the adapter's."""
    frames = _LORA_INIT + [(f"{SG}/lora/mem_pool.py", "get_lora_A_shape",
                            "input_dim, _ = get_hidden_dim(module_name, self.base_hf_config"),
                           (f"{SG}/lora/utils.py", "get_default_hidden_dim",
                            'raise NotImplementedError("get_hidden_dim not implemented for "')]
    error = "NotImplementedError: get_hidden_dim not implemented for wq"
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.CORRUPT_CHECKPOINT


# --- the 178th batch's kinds (real engines; a helper blind to the rules) ----------------------

TF_LLAMA = "/venv/lib/python3.11/site-packages/transformers/models/llama/modeling_llama.py"


def test_a_key_error_on_a_lookup_by_a_config_value_is_that_value() -> None:
    """config.json's hidden_act "swiglu", an activation no table holds: the model's MLP looks it
    up (`ACT2FN[config.hidden_act]`) and dies of a bare KeyError (fe104)."""
    frames = [(f"{SG}/model_loader/loader.py", "_initialize_model", "return model_class("),
              (TF_LLAMA, "__init__", "self.act_fn = ACT2FN[config.hidden_act]"),
              ("/venv/lib/python3.11/site-packages/transformers/activations.py", "__getitem__",
               "content = super().__getitem__(key)")]
    assert cause_of(tb(*frames, error="KeyError: 'swiglu'"), "sglang") is Cause.INVALID_CONFIG
    # guard: a key looked up by a name the weights gave (a checkpoint's tensor) is no setting
    loader = [(f"{SG}/model_loader/loader.py", "load_weights_and_postprocess",
               "model.load_weights(weights)"),
              (f"{SG}/models/llama.py", "load_weights", "param = params_dict[name]")]
    text = tb(*loader, error="KeyError: 'model.layers.2.mlp.up_proj.weight'")
    assert cause_of(text, "sglang") is not Cause.INVALID_CONFIG


# --- the 179th batch's kinds (real engines; a helper blind to the rules) ----------------------

@pytest.mark.parametrize("line", [
    # DDP's prefix (vLLM's AutoWeightsLoader stops at the first name it lacks)
    "ValueError: There is no module or parameter named 'module' in LlamaForCausalLM",
    # torch.compile's, in SGLang's words (its Transformers backend puts `model.` first)
    "ValueError: No module or parameter named 'model._orig_mod' in TransformersForCausalLM",
    # a training run's state saved beside the weights in one pytorch_model.bin
    "ValueError: There is no module or parameter named 'optimizer' in LlamaForCausalLM",
    "ValueError: No module or parameter named 'model.optimizer' in TransformersForCausalLM",
])
def test_a_trainers_wrapper_prefix_or_state_read_as_tensors_is_the_checkpoint(line) -> None:
    """Checkpoints as a trainer saved them (ff101-ff104): the files are not the model's
    weights, as a state dict saved whole (`named ''`) is not."""
    assert cause_of(line, "vllm") is Cause.CORRUPT_CHECKPOINT


def test_a_head_the_model_class_lacks_is_the_checkpoint_too() -> None:
    # a checkpoint saved for another head or class (a regression head's `score`): the weights
    # and the class disagree, as the trainer's prefixes above (the README's rule, session 41)
    line = "ValueError: There is no module or parameter named 'score' in Qwen2ForCausalLM"
    assert cause_of(line, "vllm") is Cause.CORRUPT_CHECKPOINT


# --- the 181st batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_sqlite_unable_to_open_a_caches_database_is_where_the_cache_was_put() -> None:
    """OUTLINES_CACHE_DIR naming a regular file: SGLang imports its outlines backend, whose
    top level opens Outlines' disk cache there (fh106) - the cache's location, not a package
    that failed to import."""
    frames = [(f"{SG}/constrained/base_grammar_backend.py", "create_grammar_backend",
               "from sglang.srt.constrained.outlines_backend import OutlinesGrammarBackend"),
              (f"{SG}/constrained/outlines_backend.py", "<module>",
               "from sglang.srt.constrained.outlines_jump_forward import OutlinesJumpForwardMap"),
              (f"{SG}/constrained/outlines_jump_forward.py", "<module>", "@disk_cache()"),
              ("/x/site-packages/diskcache/core.py", "_con", "con = self._local.con = sqlite3.connect(")]
    text = tb(*frames, error="sqlite3.OperationalError: unable to open database file")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG
    # guard: the same cache on a full disk names no setting (dy106)
    full = tb(*frames, error="sqlite3.OperationalError: database or disk is full")
    assert cause_of(full, "sglang") is Cause.UNKNOWN


# --- the 182nd batch's kinds (real engines; a helper blind to the rules) ----------------------

@pytest.mark.parametrize("error", [
    "ValueError: Invalid connector type: /root/.cache/models/llama-tiny-v3",  # SGLang, fi106
    "ValueError: Unsupported connector type: LMCacheConnectorV1",  # vLLM's KV connectors
])
def test_a_connector_the_engine_does_not_know_is_the_setting(error) -> None:
    frames = [(f"{SG}/model_loader/loader.py", "load_model",
               "with create_remote_connector(model_weights) as client:"),
              (f"{SG}/connector/__init__.py", "create_remote_connector",
               'raise ValueError(f"Invalid connector type: {url}")')]
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG


# --- the 183rd batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_request_without_the_routers_bootstrap_room_is_the_deployment() -> None:
    """SGLang's DP controller under --load-balance-method follow_bootstrap_room on a launch with
    no PD router: its own warm-up request has no bootstrap room (fj107)."""
    frames = [(f"{SG}/managers/data_parallel_controller.py", "event_loop",
               "self._request_dispatcher(recv_req)"),
              (f"{SG}/managers/data_parallel_controller.py", "follow_bootstrap_room_scheduler",
               "assert req.bootstrap_room is not None, (")]
    error = ("AssertionError: req.bootstrap_room should not be None. Do not send requests "
             "directly to prefill or decode instances; send to the router instead.")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: another assertion in the same dispatcher names no setting
    other = tb(*frames, error="AssertionError: unexpected request type")
    assert cause_of(other, "sglang") is not Cause.INVALID_CONFIG


# --- the 188th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_shard_of_another_shape_than_the_config_builds_is_the_checkpoint() -> None:
    """config.json saying 8 experts over weights that hold 4: vLLM's linear layer refuses the
    shard in its own words (fo103)."""
    frames = [(f"{VL}/model_executor/models/utils.py", "_load_param",
               "weight_loader(param, weight_data)"),
              (f"{VL}/model_executor/layers/linear.py", "weight_loader",
               "assert param_data.shape == loaded_weight.shape, (")]
    error = ("AssertionError: Tried to load weights of size torch.Size([4, 128])to a parameter "
             "of size torch.Size([8, 128])")
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.CORRUPT_CHECKPOINT
    # guard: a shape check in a forward names no file
    step = [(f"{VL}/model_executor/layers/linear.py", "forward", "assert x.shape == y.shape")]
    assert cause_of(tb(*step, error=error), "vllm") is not Cause.CORRUPT_CHECKPOINT


def test_a_top_k_over_fewer_experts_as_the_model_is_traced_is_the_config() -> None:
    """num_experts_per_tok 6 over 4 experts: Dynamo's fake-tensor run of the router's topk fails
    under the profiling run (fo104)."""
    text = ("torch._dynamo.exc.TorchRuntimeError: RuntimeError when making fake tensor call\n"
            "  Explanation: Dynamo failed to run FX node with fake tensors: call_function "
            "<built-in method topk>(*(FakeTensor(..., size=(s72, 4)),), **{'k': 6}): got "
            "RuntimeError('k not in range for dimension')\n")
    assert cause_of(text, "vllm") is Cause.INVALID_CONFIG
    # guard: eager torch's words for a request's top_logprobs over the vocabulary name no
    # setting (ee106)
    eager = "RuntimeError: selected index k out of range\n"
    assert cause_of(eager, "vllm") is not Cause.INVALID_CONFIG


# --- the 197th batch's kinds (real engines; a helper blind to the rules) ----------------------

@pytest.mark.parametrize("error", [
    # transformers 4.5x+, under a hub client's TooManyRedirects (fy107)
    "OSError: Can't load the configuration of 'corp-models/llama-tiny'. If you were trying to "
    "load it from 'https://huggingface.co/models', make sure you don't have a local directory "
    "with the same name. Otherwise, make sure 'corp-models/llama-tiny' is the correct path to a "
    "directory containing a config.json file",
    # older transformers' words for the same failure
    "OSError: Can't load config for 'acme/llm-7b'. Make sure that: - 'acme/llm-7b' is a correct "
    "model identifier listed on 'https://huggingface.co/models'",
])
def test_transformers_getting_no_config_at_all_is_the_model_not_found(error) -> None:
    frames = [(f"{SG}/utils/hf_transformers_utils.py", "get_config",
               "config = AutoConfig.from_pretrained("),
              ("/x/site-packages/transformers/configuration_utils.py", "_get_config_dict",
               "raise OSError(")]
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.MODEL_NOT_FOUND
    # guard: a tokenizer transformers cannot load beside a config it read is the checkpoint's
    # missing files (c057), not the model's path
    tok = error.replace("the configuration of", "tokenizer for").replace("config for", "tokenizer for")
    assert cause_of(tb(*frames, error=tok), "sglang") is not Cause.MODEL_NOT_FOUND


# --- the 196th batch's kinds (real engines; a helper blind to the rules) ----------------------

SG_NODE1_UP = (
    "[2026-12-07 06:50:57] server_args={'model_path': '/m/llama-tiny', 'nnodes': 2, "
    "'node_rank': 1, 'tp_size': 2, 'dist_init_addr': '127.0.0.1:58281'}\n"
    "[2026-12-07 06:51:17 TP1] Load weight begin. avail mem=19.52 GB\n"
    "[2026-12-07 06:51:17 TP1] Load weight end. elapsed=0.06 s, type=LlamaForCausalLM, "
    "avail mem=19.51 GB, mem usage=0.01 GB.\n"
    "[2026-12-07 06:51:18 TP1] KV Cache is allocated. dtype: torch.bfloat16, #tokens: 4096\n"
    "[2026-12-07 06:51:18 TP1] Memory pool end. avail mem=19.47 GB\n"
    "[2026-12-07 06:51:18] Dummy health check server started in background thread at "
    "127.0.0.1:52933\n")
SG_BROADCAST = [
    (f"{SG}/managers/scheduler.py", "run_scheduler_process", "scheduler.run_event_loop()"),
    (f"{SG}/managers/scheduler.py", "event_loop_overlap", "self.ingest_requests()"),
    (f"{SG}/utils/common.py", "broadcast_pyobj",
     "dist.broadcast(tensor_size, src=src, group=dist_group)"),
    (f"{TORCH}/distributed/distributed_c10d.py", "broadcast", "work.wait()")]
GLOO_RESET = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:545]"
              " Read error [127.0.0.1]:48364: Connection reset by peer. This is typically caused "
              "by a remote worker hanging or bugs in the application.")


def test_a_collectives_peer_gone_on_a_launch_across_nodes_is_the_other_node() -> None:
    """Node 1's log as node 0 is killed after both served: gloo's transport finds the
    broadcast's peer gone (fx101, fx105; vLLM's headless node in fx102, fx104)."""
    text = SG_NODE1_UP + "[2026-12-07 06:51:49 TP1] Scheduler hit an exception: " + \
        tb(*SG_BROADCAST, error=GLOO_RESET)
    assert verdict_of(text, "sglang") == (Outcome.CRASHED, Phase.SERVING,
                                           Cause.MULTINODE_RANK_FAILURE)
    # guard: on one node the peer is a local rank, whose own error is the root - the
    # transport's words alone name no node (and the event loop before a ready line on node 0
    # ran SGLang's warmup)
    one_node = SG_NODE1_UP.replace("'nnodes': 2, 'node_rank': 1", "'nnodes': 1, 'node_rank': 0")
    one_node = one_node.replace("Dummy health check server started in background thread at",
                                "Uvicorn running on http://")
    text = one_node + "[2026-12-07 06:51:49 TP0] Scheduler hit an exception: " + \
        tb(*SG_BROADCAST, error=GLOO_RESET)
    assert verdict_of(text, "sglang")[1:] == (Phase.WARMUP, Cause.UNKNOWN)


def test_a_headless_vllm_nodes_collective_losing_its_peer_is_the_other_node() -> None:
    head = ("INFO 12-07 06:52:00 [serve.py:224] Launching vLLM (v0.32.0) headless multiproc "
            "executor, with head node address 127.0.0.1:58559\n")
    error = ("RuntimeError: [/__w/pytorch/pytorch/third_party/gloo/gloo/transport/tcp/pair.cc:553]"
             " Connection closed by peer [127.0.0.1]:19653. This is typically caused by a remote "
             "worker crashing.")
    frames = [(f"{VL}/distributed/device_communicators/cpu_communicator.py", "all_gather",
               "self.dist_module.all_gather_into_tensor("),
              (f"{TORCH}/distributed/distributed_c10d.py", "all_gather_single", "work.wait()")]
    assert cause_of(head + tb(*frames, error=error), "vllm") is Cause.MULTINODE_RANK_FAILURE
    assert cause_of(tb(*frames, error=error), "vllm") is not Cause.MULTINODE_RANK_FAILURE


# --- the 199th batch's kinds (real engines; a helper blind to the rules) ----------------------

SPAWNING_CHILD_INTERRUPTED = (
    "OpenBLAS blas_thread_init: pthread_create failed for thread 1 of 2: Resource temporarily "
    "unavailable\n"
    "OpenBLAS blas_thread_init: RLIMIT_NPROC 96367 current, 96367 max\n"
    "Traceback (most recent call last):\n"
    '  File "<string>", line 1, in <module>\n'
    '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 122, in spawn_main\n'
    "    exitcode = _main(fd, parent_sentinel)\n"
    '  File "/usr/lib/python3.11/multiprocessing/spawn.py", line 131, in _main\n'
    "    prepare(preparation_data)\n"
    f'  File "{SG}/utils/common.py", line 84, in <module>\n'
    "    import numpy as np\n"
    "KeyboardInterrupt\n")


def test_a_child_interrupted_while_spawning_then_the_scheduler_failing_is_a_crash() -> None:
    """A pids limit reached as SGLang starts its children: one child, still importing, cannot
    start OpenBLAS's threads and OpenBLAS raises SIGINT in it (a KeyboardInterrupt no person
    sent, as gu106's); the scheduler dies of its own error and tells the launcher (ga107)."""
    sched = ("[2026-12-07 07:24:17] Scheduler hit an exception: " + tb(
        (f"{SG}/managers/scheduler.py", "run_scheduler_process",
         "scheduler = Scheduler(server_args, port_args)"),
        (f"{TORCH}/distributed/distributed_c10d.py", "_create_gloo_process_group",
         "backend_class = ProcessGroupGloo("),
        error="RuntimeError: Resource temporarily unavailable"))
    quit_ = ("[2026-12-07 07:24:17] Received sigquit from a child process. It usually means the "
             "child failed.\n[2026-12-07 07:24:17] kill_process_tree called: parent_pid=29565\n")
    text = "[2026-12-07 07:24:07] server_args={'model_path': '/m'}\n" + \
        SPAWNING_CHILD_INTERRUPTED + sched + quit_
    assert verdict_of(text, "sglang")[0] is Outcome.CRASHED
    # guard: a Ctrl-C of the run interrupts the children (no library's words before theirs)
    # and the launcher too (az122): a stop
    launcher = tb(("<frozen runpy>", "_run_module_as_main", ""),
                  (f"{SG}/entrypoints/engine.py", "_wait_for_scheduler_ready", ""),
                  ("/usr/lib/python3.11/selectors.py", "select", ""), error="KeyboardInterrupt")
    child = SPAWNING_CHILD_INTERRUPTED[SPAWNING_CHILD_INTERRUPTED.index("Traceback"):]
    stopped = "[2026-12-07 07:24:07] server_args={'model_path': '/m'}\n" + child + launcher
    assert verdict_of(stopped, "sglang")[0] is not Outcome.CRASHED


# --- the 204th batch's kinds (real engines; a helper blind to the rules) ----------------------

@pytest.mark.parametrize("error", [
    # SGLang's FA3 backend named on a host without Ampere/Hopper (gf102)
    "AssertionError: FlashAttention v3 Backend requires SM>=80 and SM<=90. Please use "
    "`--attention-backend flashinfer`.",
    "RuntimeError: this kernel requires compute capability >= 9.0",
])
def test_a_backend_naming_the_sms_it_needs_is_the_architecture(error) -> None:
    frames = [(f"{SG}/model_executor/model_runner.py", "init_attention_backends",
               "backends = build_attention_backends(model_runner=self)"),
              (f"{SG}/layers/attention/attention_registry.py", "create_flashattention_v3_backend",
               "assert (major == 8 and not runner.use_mla_backend) or major == 9, (")]
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.UNSUPPORTED_ARCH
    # guard: "requires" before a word that is no SM names no architecture
    other = "AssertionError: the page table requires smaller pages. Please use --page-size 1."
    assert cause_of(tb(*frames, error=other), "sglang") is not Cause.UNSUPPORTED_ARCH


# --- the 207th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_benchmarks_dataset_not_found_is_the_runs_dataset_not_the_model() -> None:
    """SGLang's offline throughput benchmark sampling its random prompts from ShareGPT on the
    Hub, on a host offline: the hub client's file-not-found is the run's dataset (gj105)."""
    error = ("huggingface_hub.errors.LocalEntryNotFoundError: Cannot find the requested files in "
             "the disk cache and outgoing traffic has been disabled.")
    frames = [(f"{SG}/../benchmark/offline_throughput.py", "throughput_test",
               "input_requests = get_dataset(bench_args, tokenizer, model_id)"),
              (f"{SG}/../benchmark/datasets/random.py", "sample_random_requests",
               "dataset_path = download_and_cache_hf_file("),
              ("/x/site-packages/huggingface_hub/file_download.py", "hf_hub_download",
               "raise LocalEntryNotFoundError(")]
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: the same words while the launch fetched its model are the model not found
    model = [(f"{SG}/utils/hf_transformers_utils.py", "get_config",
              "config = AutoConfig.from_pretrained("),
             ("/x/site-packages/huggingface_hub/file_download.py", "hf_hub_download",
              "raise LocalEntryNotFoundError(")]
    assert cause_of(tb(*model, error=error), "sglang") is Cause.MODEL_NOT_FOUND


# --- the 208th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_component_for_another_device_refusing_this_one_is_the_setting() -> None:
    """--worker-cls naming vLLM's GPU worker on the CPU build: its init_device refuses the
    device (gk102) - the class the launch chose."""
    frames = [(f"{VL}/v1/worker/gpu_worker.py", "init_device",
               'raise RuntimeError(f"Unsupported device type: {self.device_config.device}")')]
    error = "RuntimeError: Unsupported device type: cpu"
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: a dtype the device lacks is no component's device
    other = "RuntimeError: Unsupported dtype: torch.float8_e4m3fn"
    assert cause_of(tb(*frames, error=other), "vllm") is not Cause.INVALID_CONFIG


# --- the 209th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_rendezvous_port_out_of_range_is_the_setting() -> None:
    """MASTER_PORT=70000 left by a launcher, read by torch's env:// rendezvous (gl102)."""
    frames = [(f"{TORCH}/distributed/rendezvous.py", "_create_c10d_store",
               'raise ValueError(f"port must have value from 0 to 65535 but was {port}.")')]
    error = "ValueError: port must have value from 0 to 65535 but was 70000."
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: the port in use is port_in_use, not the setting's range
    taken = "OSError: [Errno 98] Address already in use"
    assert cause_of(tb(*frames, error=taken), "vllm") is Cause.PORT_IN_USE


# --- the 214th batch's kinds (real engines; a helper blind to the rules) ----------------------

_INIT_PARALLEL = "[2026-12-07 10:34:40] Init parallel begin.\n"


def _c10d_retry(target: str, host: str) -> str:
    """c10d's store client retrying: a connect that failed, then the retry's own warning."""
    return (f"[W1207 10:34:43.504687598 socket.cpp:764] [c10d] {target}\n"
            f"[W1207 10:34:43.505614438 TCPStore.cpp:340] [c10d] TCP client failed to "
            f"connect/validate to host {host}:25923 - retrying (try=0, timeout=1800000ms, "
            f"delay=529ms): The client socket has failed to connect to any network address "
            f"of ({host}, 25923).\n")


def test_a_connect_out_of_local_ports_is_no_setting() -> None:
    """Every ephemeral port reserved: the store client's connect to its own 127.0.0.1 fails with
    EADDRNOTAVAIL (gq106) - the host had no local port to connect from, no address the launch
    gave was wrong."""
    failed = ("The client socket has failed to connect to 113.85.0.0:33389 (errno: 99 - Cannot "
              "assign requested address).")
    v = classify_text(_INIT_PARALLEL + _c10d_retry(failed, "127.0.0.1") * 3, engine="sglang")
    assert v.cause is not Cause.INVALID_CONFIG, v
    # guard: the store's server failing to bind the address it was given is that address
    bind = ("The server socket has failed to bind to 10.9.9.9:25923 (errno: 99 - Cannot assign "
            "requested address).")
    v = classify_text(_INIT_PARALLEL + _c10d_retry(bind, "10.9.9.9") * 3, engine="sglang")
    assert v.cause is Cause.INVALID_CONFIG, v


def test_a_rendezvous_address_of_a_family_the_host_lacks_is_the_setting() -> None:
    """--host ::1 with IPv6 disabled (gq104), a link-local address without its scope (bw113):
    SGLang meets at its --host, and c10d cannot resolve it in any family the host has."""
    lacks = ("The IPv4 network addresses of (::1, 24052) cannot be retrieved (gai error: -9 - "
             "Address family for hostname not supported).")
    v = classify_text(_INIT_PARALLEL + _c10d_retry(lacks, "::1") * 3, engine="sglang")
    assert v.cause is Cause.INVALID_CONFIG, v
    # guard: a name that does not resolve at all is no family's
    unknown = ("The IPv4 network addresses of (node-7, 24052) cannot be retrieved (gai error: -2 - "
               "Name or service not known).")
    v = classify_text(_INIT_PARALLEL + _c10d_retry(unknown, "node-7") * 3, engine="sglang")
    assert v.cause is not Cause.INVALID_CONFIG, v


# --- the 216th batch's kinds (real engines; a helper blind to the rules) ----------------------

_IDLE_CORE = "(EngineCore pid=9) ERROR 12-07 10:45:48 [core.py:1512] "
_IDLE_API = "(APIServer pid=8) ERROR 12-07 10:45:48 [async_llm.py:906] "
_IDLE_UP = ["(EngineCore pid=9) INFO 12-07 10:45:21 [core.py:402] init engine (profile, create kv "
       "cache, warmup model) took 7.26 s",
       "INFO:     Started server process [8]", "INFO:     Waiting for application startup.",
       "INFO:     Application startup complete."]


def _worker_gone_under_the_core() -> list[str]:
    """A worker killed (-9) under vLLM V1's engine core: the executor's own failure message
    read from the core's input queue, then the API server's EngineDeadError."""
    core = [(f"{VL}/v1/engine/core.py", "run_engine_core", "engine_core.run_busy_loop()"),
            (f"{VL}/v1/engine/core.py", "run_busy_loop", "self._process_input_queue()"),
            (f"{VL}/v1/engine/core.py", "_process_input_queue",
             "self._handle_client_request(*req)"),
            (f"{VL}/v1/engine/core.py", "_handle_client_request",
             'raise RuntimeError("Executor failed.")')]
    api = [(f"{VL}/v1/engine/async_llm.py", "output_handler",
            "outputs = await engine_core.get_output_async()"),
           (f"{VL}/v1/engine/core_client.py", "get_output_async",
            "raise self._format_exception(outputs) from None")]
    return [
        "(EngineCore pid=9) ERROR 12-07 10:45:48 [multiproc_executor.py:315] Worker proc "
        "VllmWorker-0 died unexpectedly (exit code: -9), shutting down executor.",
        _IDLE_CORE + "EngineCore encountered a fatal error.",
        *(_IDLE_CORE + line for line in tb(*core, error="RuntimeError: Executor failed.").splitlines()),
        _IDLE_API + "AsyncLLM output_handler failed.",
        *(_IDLE_API + line for line in tb(*api, error="vllm.v1.engine.exceptions.EngineDeadError: "
                                     "EngineCore encountered an issue. See stack trace (above) "
                                     "for the root cause.").splitlines())]


def test_a_worker_gone_under_an_idle_server_is_no_request_served() -> None:
    """The OOM killer took vLLM's worker while the server sat idle after its ready line
    (gs102): the core's busy-loop frames and `EngineCore encountered a fatal error` come from
    its input queue, not a step - crashed in ready, nothing was served."""
    v = verdict(*_IDLE_UP, *_worker_gone_under_the_core(), engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.READY), v
    # guard: with a request answered before the death, the server was serving
    served = 'INFO:     127.0.0.1:4242 - "POST /v1/completions HTTP/1.1" 200 OK'
    v = verdict(*_IDLE_UP, served, *_worker_gone_under_the_core(), engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v


# --- the 218th batch's kinds (real engines; a helper blind to the rules) ----------------------

_BLAS_FAILED = [
    "OpenBLAS blas_thread_init: pthread_create failed for thread 1 of 2: Operation not permitted",
    "OpenBLAS blas_thread_init: ensure that your address space and process count limits are big "
    "enough (ulimit -a)",
    "OpenBLAS blas_thread_init: RLIMIT_NPROC 96367 current, 96367 max"]


def _interrupted_import() -> str:
    """SGLang's import of numpy interrupted inside importlib (gu106's traceback)."""
    return tb((f"{SG}/../__init__.py", "<module>",
               "from sglang.srt.utils.hf_transformers_patches import apply_all"),
              (f"{SG}/utils/common.py", "<module>", "import numpy as np"),
              ("/x/site-packages/numpy/_core/multiarray.py", "<module>",
               "from . import _multiarray_umath, overrides"),
              ("<frozen importlib._bootstrap>", "_find_and_load", ""),
              error="KeyboardInterrupt")


def test_openblas_raising_sigint_when_it_cannot_start_threads_is_no_stop() -> None:
    """A seccomp filter denying clone3 (gu106): OpenBLAS cannot start its threads at import,
    says so, and raises SIGINT itself - the KeyboardInterrupt under the import is a failure of
    the import, not a Ctrl-C."""
    v = verdict(*_BLAS_FAILED, _interrupted_import(), engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.IMPORT_ERROR), v
    # guard: the same interrupt with no library's words before it is a person's Ctrl-C
    v = verdict(_interrupted_import(), engine="sglang")
    assert v.outcome is not Outcome.CRASHED, v


# --- the 222nd batch's kinds (real engines; a helper blind to the rules) ----------------------

def _core_input_thread_died(error: str) -> str:
    """vLLM V1's engine core's input thread dying as it decoded a request (gy105)."""
    return ("Exception in thread Thread-1 (process_input_sockets):\n" + tb(
        ("/x/lib/python3.11/threading.py", "run", "self._target(*self._args, **self._kwargs)"),
        (f"{VL}/v1/engine/core.py", "process_input_sockets",
         "req: EngineCoreRequest = add_request_decoder.decode(data_frames)"),
        (f"{VL}/v1/serial_utils.py", "decode", "return self.decoder.decode(bufs[0])"),
        error=error))


def test_a_request_field_of_the_wrong_type_in_the_engine_core_is_the_setting() -> None:
    """generation_config.json's eos id written as text (gy105): the API server puts it into the
    request's stop ids, and the core's decoder refuses it after the server was up - serving,
    the model's setting (a client's fields are checked at the API, a 400)."""
    up = ["INFO:     Application startup complete.",
          'INFO:     127.0.0.1:55522 - "GET /v1/models HTTP/1.1" 200 OK']
    error = "msgspec.ValidationError: Expected `int`, got `str` - at `$[3].stop_token_ids[0]`"
    v = verdict(*up, _core_input_thread_died(error), engine="vllm")
    assert (v.outcome, v.phase, v.cause) == \
        (Outcome.CRASHED, Phase.SERVING, Cause.INVALID_CONFIG), v
    # guard: the same thread dying of its socket closed names no setting
    closed = "zmq.error.ContextTerminated: Context was terminated"
    v = verdict(*up, _core_input_thread_died(closed), engine="vllm")
    assert v.cause is not Cause.INVALID_CONFIG, v


# --- the 221st batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_platform_capability_an_engine_asserts_is_the_architecture() -> None:
    """SGLang resolving a hybrid model's mamba cache on this CPU build (gx105): the assertion
    names a capability the platform lacks, not a value of the launch."""
    frames = [(f"{SG}/server_args.py", "resolve_once", "run_resolution_pipeline(self)"),
              (f"{SG}/arg_groups/mamba_hook.py", "validate_mamba_extra_buffer",
               "assert _platform_supports_mamba_cache_extra_buffer(), (")]
    error = ("AssertionError: extra_buffer requires platform support for Mamba cache state "
             "snapshots.")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.UNSUPPORTED_ARCH
    # guard: the same check refusing a pair of settings is the launch's
    pair = "AssertionError: extra_buffer requires --enable-prefix-caching to be set."
    assert cause_of(tb(*frames, error=pair), "sglang") is Cause.INVALID_CONFIG


# --- the 224th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_package_named_to_run_is_the_command_not_a_missing_module() -> None:
    """`python -m vllm.entrypoints.launchers.api_server` (ha104): the package is installed and
    runpy cannot run it - the command named the wrong thing."""
    line = ("/venv/bin/python: No module named vllm.entrypoints.launchers.api_server.__main__; "
            "'vllm.entrypoints.launchers.api_server' is a package and cannot be directly "
            "executed")
    assert cause_of(line + "\n", "vllm") is Cause.INVALID_CONFIG
    # guard: a module that is not there is the install's
    missing = "/venv/bin/python: No module named vllm.entrypoints.api_server"
    assert cause_of(missing + "\n", "vllm") is Cause.IMPORT_ERROR


def test_an_engines_command_line_refusing_its_command_is_the_setting() -> None:
    """`sglang generate` on a language model (ha105): SGLang's CLI raises a bare Exception of
    its own - the command line it was given."""
    top = SG.removesuffix("/srt")
    cli = [(f"{top}/cli/main.py", "main", "generate(args, extra_argv)"),
           (f"{top}/cli/generate.py", "generate", "raise Exception(")]
    error = "Exception: Generate subcommand is not yet supported for model: /models/llama"
    assert cause_of(tb(*cli, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: the same bare Exception raised deeper, in the engine's own work, is not the CLI's
    deeper = [*cli[:1], (f"{SG}/managers/scheduler.py", "event_loop_normal",
                         "raise Exception(")]
    assert cause_of(tb(*deeper, error=error), "sglang") is not Cause.INVALID_CONFIG


# --- the 223rd batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_an_external_model_package_that_failed_to_import_is_the_import() -> None:
    """SGLANG_EXTERNAL_MODEL_PACKAGE's module importing a misspelt name (gz105): SGLang's
    registry skips it with a warning, then cannot find the architecture it would have
    registered - the import failed, the architecture is not the launch's mistake."""
    frames = [(f"{SG}/models/registry.py", "resolve_model_cls",
               "return self._raise_for_unsupported(architectures)")]
    error = ("ValueError: Cannot find model module. 'MyLlamaForCausalLM' is not a registered "
             "model in the Transformers library (only relevant if the model is meant to be in "
             "Transformers)")
    skipped = ("[2026-12-07 11:44:50] Ignore import error when loading mypkg.my_llama: cannot "
               "import name 'LlamaForCausalLMM' from 'sglang.srt.models.llama'")
    assert cause_of(skipped + "\n" + tb(*frames, error=error), "sglang") is Cause.IMPORT_ERROR
    # guard: SGLang's own model files skipped on this build say nothing of the model served
    own = ("[2026-12-07 11:44:50] Ignore import error when loading sglang.srt.models.mamba: "
           "No module named 'mamba_ssm'")
    assert cause_of(own + "\n" + tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG


# --- a label settled in round 2, session 41: a tensor the model lacks ---------------------------

_NO_PARAM_WORKER = "(Worker pid=6520) ERROR 12-07 11:40:41 [multiproc_executor.py:953] "


@pytest.mark.parametrize("name, model", [
    ("score", "Qwen2VLForConditionalGeneration"),     # a regression head, a generation class
    ("language_model", "Gemma3ForCausalLM"),          # a multimodal save, a text-only class
    ("layers.0.ffn_norm", "LlamaModel"),              # a class renaming its own parameters
])
def test_a_checkpoint_tensor_the_model_lacks_is_the_checkpoint(name, model) -> None:
    """Weights and model disagree, whatever made the names differ (u309, oo306, gz101): the
    corpus README's rule, 13 of 15 such logs labelled so."""
    line = f"{_NO_PARAM_WORKER}ValueError: There is no module or parameter named '{name}' in {model}"
    assert cause_of(line + "\n", "vllm") is Cause.CORRUPT_CHECKPOINT
    sglang = f"ValueError: No module or parameter named 'model.{name}' in TransformersForCausalLM"
    assert cause_of(sglang + "\n", "sglang") is Cause.CORRUPT_CHECKPOINT


def test_a_layer_stack_the_config_builds_empty_is_the_setting() -> None:
    """A layer count of zero or less (bo103) is the config wrong in itself, in either engine's
    words: vLLM's empty listing, SGLang's missing first layer."""
    vllm = (f"{_NO_PARAM_WORKER}ValueError: There is no module or parameter named 'layers.0' in "
            "LlamaModel. The available parameters belonging to layers (ModuleList) are: set()")
    assert cause_of(vllm + "\n", "vllm") is Cause.INVALID_CONFIG
    sglang = "ValueError: No module or parameter named 'model.layers.0' in TransformersForCausalLM"
    assert cause_of(sglang + "\n", "sglang") is Cause.INVALID_CONFIG
    # guard: a later layer missing is more layers in the weights than the config builds
    deeper = sglang.replace("layers.0", "layers.2")
    assert cause_of(deeper + "\n", "sglang") is Cause.CORRUPT_CHECKPOINT


# --- the 226th batch's kinds (real engines; a helper blind to the rules) ----------------------

_NAN_ARGS = ("[2026-12-07 13:43:07] server_args={'model_path': '/m', 'mem_fraction_static': %s, "
             "'tp_size': 1, 'watchdog_timeout': 300}")
_NAN_CRASH = tb((f"{SG}/managers/scheduler.py", "run_scheduler_process",
                 "scheduler = Scheduler(server_args, port_args)"),
                (f"{SG}/model_executor/model_runner.py", "init_memory_pool",
                 "self.max_total_num_tokens = int(rest_memory * (1 << 30) // cell_size)"),
                error="ValueError: cannot convert float NaN to integer")


def test_arithmetic_meeting_a_setting_given_as_nan_is_the_setting() -> None:
    """`--mem-fraction-static nan` (hc105): float() takes it, argparse passes it on, and the
    scheduler dies sizing its KV pool - the setting, named in the evidence. SGLang's dump
    writes the value as a bare `nan`, which must not lose the dump's other settings."""
    v = classify_text(_NAN_ARGS % "nan" + "\n" + _NAN_CRASH, engine="sglang")
    assert v.cause is Cause.INVALID_CONFIG, v
    assert v.evidence[-1].endswith("--mem-fraction-static nan"), v.evidence
    # guard: the same error with every setting finite names none (a NaN the model computed)
    assert classify_text(_NAN_ARGS % "0.8" + "\n" + _NAN_CRASH, engine="sglang").cause \
        is Cause.UNKNOWN
    # guard: a NaN setting beside an error that is no arithmetic on it names none either
    other = _NAN_CRASH.replace("ValueError: cannot convert float NaN to integer",
                               "KeyError: 'layers'")
    assert classify_text(_NAN_ARGS % "nan" + "\n" + other, engine="sglang").cause \
        is not Cause.INVALID_CONFIG


def test_a_dump_holding_a_bare_infinity_keeps_its_settings() -> None:
    from supervisor.diagnosis.settings import log_settings
    dump = _NAN_ARGS % "-inf"
    assert log_settings([dump]) == {"model_path": "/m", "mem_fraction_static": "-inf",
                                    "tp_size": "1", "watchdog_timeout": "300"}
    assert log_settings(["server_args=ServerArgs(model_path='/m', watchdog_timeout=inf, "
                         "tp_size=2)"]) == \
        {"model_path": "/m", "watchdog_timeout": "inf", "tp_size": "2"}


# --- the 229th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_hierarchical_cache_with_no_host_memory_left_is_the_kv_cache() -> None:
    """SGLang's HiCache auto-sizing finding nothing left after its reserve (hf106), in the
    words of a check that names flags to set: the KV tier does not fit, as dd104's sizing."""
    frames = [(f"{SG}/mem_cache/hicache_auto_size.py", "auto_size_hicache", "raise ValueError(")]
    error = ("ValueError: No host memory is left for HiCache after the 10 GiB reserve; set "
             "--hicache-ratio or --hicache-size explicitly.")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.KV_CACHE_OOM
    # guard: another check of the same module naming its flags stays the setting
    other = "ValueError: --hicache-ratio must be at least 1; set --hicache-size instead."
    assert cause_of(tb(*frames, error=other), "sglang") is not Cause.KV_CACHE_OOM


def test_a_gpu_only_path_meeting_the_cpu_builds_cuda_stand_ins_is_the_setting() -> None:
    """SimpleCPUOffloadConnector on vLLM's CPU build (hf104): it asks the CPU runner's stand-in
    for a CUDA stream for a CUDA attribute - the feature the setting turned on needs a GPU."""
    frames = [(f"{VL}/distributed/kv_transfer/kv_connector/v1/simple_cpu_offload_connector.py",
               "register_kv_caches", "lo, hi = torch.cuda.Stream.priority_range()")]
    error = "AttributeError: type object '_StreamPlaceholder' has no attribute 'priority_range'"
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: an attribute missing from another class names nothing
    plain = "AttributeError: type object 'StreamPool' has no attribute 'priority_range'"
    assert cause_of(tb(*frames, error=plain), "vllm") is not Cause.INVALID_CONFIG


# --- the 233rd batch's kinds (real engines; a helper blind to the rules) ----------------------

@pytest.mark.parametrize("engine, loader", [
    ("vllm", f"{VL}/model_executor/model_loader/weight_utils.py"),
    ("sglang", f"{SG}/model_loader/weight_utils.py"),
])
def test_a_checkpoint_tensor_of_another_shape_than_its_parameter_is_the_checkpoint(
        engine, loader) -> None:
    """GPT-2's n_positions edited below its 512-row position table (hj103): the engines'
    default_weight_loader asserts the shapes agree - weights and config disagree."""
    frames = [(loader, "default_weight_loader", "assert param.size() == loaded_weight.size(), (")]
    error = ("AssertionError: Attempted to load weight (torch.Size([512, 128])) into parameter "
             "(torch.Size([128, 128]))")
    assert cause_of(tb(*frames, error=error), engine) is Cause.CORRUPT_CHECKPOINT
    # guard: the dtype warning of the same loader (a cast it makes and goes on) names nothing
    warning = ("WARNING 12-06 17:01:42 [utils.py:333] Attempted to load weight "
               "embed_tokens.weight with dtype torch.bfloat16 into parameter with dtype "
               "torch.float16\n")
    # (over a bare assertion of another statement: the shape check's own bare form is read
    # by its statement, test_a_loader_assertion_quoting_the_checkpoint_tensors_shape_...)
    other = [(loader, "default_weight_loader", "assert param.dtype == loaded_weight.dtype")]
    assert cause_of(warning + tb(*other, error="AssertionError"), engine) \
        is not Cause.CORRUPT_CHECKPOINT


# --- the 237th batch's kinds (real engines; a helper blind to the rules) ----------------------

@pytest.mark.parametrize("words", ["Read-only file system", "Not a directory",
                                   "Operation not permitted"])
def test_an_ipc_folder_no_socket_can_be_made_in_is_the_setting(words) -> None:
    """VLLM_RPC_BASE_PATH on a read-only mount, naming a stale socket file, or an immutable
    folder (hn103, hn102, ja101 of the 276th batch): ZMQ's bind of the API server's ipc://
    socket fails in the filesystem's words."""
    frames = [(f"{VL}/utils/network_utils.py", "make_zmq_socket", "socket.bind(path)"),
              ("zmq/backend/cython/_zmq.py", "zmq.backend.cython._zmq._check_rc",
               "raise ZMQError(errno)")]
    error = f"zmq.error.ZMQError: {words} (addr='ipc:///mnt/ro/8cc976d5-2563-4588')"
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: the same bind on a full filesystem names no setting (hn101, as dy101)
    full = "zmq.error.ZMQError: No space left on device (addr='ipc:///mnt/x/9dbfec67')"
    assert cause_of(tb(*frames, error=full), "vllm") is Cause.UNKNOWN


# --- the 240th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_range_check_written_with_a_comparison_is_the_setting() -> None:
    """`--weight-loader-prefetch-num-threads 0` (hq108): SGLang's loader checks the count in
    a comparison's symbols, `must be >= 1`, as others write `must be positive`."""
    frames = [(f"{SG}/model_loader/weight_utils.py", "_prefetch_all_checkpoints",
               'raise ValueError("weight loader prefetch num_threads must be >= 1")')]
    error = "ValueError: weight loader prefetch num_threads must be >= 1"
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: a comparison that is no range check of a value names nothing
    other = "ValueError: expected the shards to be >> the ranks"
    assert cause_of(tb(*frames, error=other), "sglang") is not Cause.INVALID_CONFIG


# --- the 247th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_loader_assertion_quoting_the_checkpoint_tensors_shape_is_the_checkpoint() -> None:
    """config.json's vocab_size edited above the embedding's rows (hx106): SGLang's
    VocabParallelEmbedding asserts in an f-string's `name=value` words."""
    frames = [(f"{SG}/model_loader/loader.py", "load_weights_and_postprocess",
               "model.load_weights(weights)"),
              (f"{SG}/layers/vocab_parallel_embedding.py", "weight_loader",
               "assert loaded_weight.shape[output_dim] == self.org_vocab_size, (")]
    error = ("AssertionError: self.org_vocab_size=1024 self.use_presharded_weights=False "
             "loaded_weight.shape[output_dim]=512")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.CORRUPT_CHECKPOINT
    # the same check's bare assertion says it in its statement (av108, p116, ir102, jd105:
    # relabelled or labelled so in round 2, session 44)
    assert cause_of(tb(*frames, error="AssertionError"), "sglang") is Cause.CORRUPT_CHECKPOINT
    # ... also behind a worker's prefix, Python 3.11's carets under the statement
    prefix = "(Worker pid=26096) ERROR 12-08 00:16:19 [multiproc_executor.py:953] "
    carets = tb(*frames, error="").rstrip("\n").split("\n")
    text = "\n".join(prefix + line for line in [*carets, "           ^^^^^^^^^^^^^^^^",
                                                  "AssertionError"]) + "\n"
    assert cause_of(text, "vllm") is Cause.CORRUPT_CHECKPOINT
    # guard: a bare assertion of another statement in the loader names no checkpoint
    other = [*frames[:1], (f"{SG}/layers/vocab_parallel_embedding.py", "weight_loader",
                           "assert self.quant_method is not None")]
    assert cause_of(tb(*other, error="AssertionError"), "sglang") is not \
        Cause.CORRUPT_CHECKPOINT
    # guard: a loader's assertion on the tensor's dtype is no shape disagreement
    dtype = "AssertionError: loaded_weight.dtype=torch.float8_e4m3fn is not supported here"
    assert cause_of(tb(*frames, error=dtype), "sglang") is not Cause.CORRUPT_CHECKPOINT


def test_a_default_dtype_that_is_no_floating_type_is_the_setting() -> None:
    """config.json's torch_dtype "int8" (hx105): torch refuses it as the default dtype the
    loader sets while it builds the model."""
    frames = [(f"{SG}/model_loader/utils.py", "set_default_torch_dtype",
               "torch.set_default_dtype(dtype)"),
              (f"{TORCH}/__init__.py", "set_default_dtype", "_C._set_default_dtype(d)")]
    error = "TypeError: only floating-point types are supported as the default type"
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: another TypeError of the same function names no setting
    other = "TypeError: set_default_dtype(): argument 'd' must be torch.dtype, not str"
    assert cause_of(tb(*frames, error=other), "sglang") is not Cause.INVALID_CONFIG


# --- the 251st batch's kinds (real engines; a helper blind to the rules) ----------------------

LORA_INIT = (f"{SG}/lora/lora_manager.py", "init_lora_adapters", "raise RuntimeError(")


def test_a_check_naming_the_only_values_a_field_may_take_is_the_setting() -> None:
    """adapter_config.json's target_modules as a regex string (ib105): SGLang's LoRA manager
    says which strings it takes."""
    error = ("RuntimeError: Failed to load LoRA adapter ad: Only 'all' or 'all-linear' can be "
             "used as the string for target module")
    assert cause_of(tb(LORA_INIT, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: the same wrapper over a file the adapter lacks stays what the file says
    missing = ("RuntimeError: Failed to load LoRA adapter ad: only one file can be read at a "
               "time: [Errno 2] No such file or directory: '/x/adapter_config.json'")
    assert cause_of(tb(LORA_INIT, error=missing), "sglang") is not Cause.INVALID_CONFIG
    # guard: "only" in other words is no list of allowed values
    other = "RuntimeError: only the first shard was written before the disk filled"
    assert cause_of(tb(LORA_INIT, error=other), "sglang") is not Cause.INVALID_CONFIG


def test_a_name_the_launch_gave_twice_is_the_setting() -> None:
    """`--lora-paths ad=A ad=B` (ib107): SGLang's LoRA registry refuses the second `ad`."""
    frames = [(f"{SG}/lora/lora_registry.py", "_register_adapter", "raise ValueError(")]
    error = "ValueError: LoRA with name ad already exists. Loaded LoRAs: odict_keys(['ad'])"
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: a file that exists is no name given twice
    exists = "FileExistsError: [Errno 17] File exists: '/tmp/ad'"
    assert cause_of(tb(*frames, error=exists), "sglang") is not Cause.INVALID_CONFIG


# --- the 256th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_class_a_flag_names_that_its_module_lacks_is_code_not_installed() -> None:
    """`--scheduler-cls vllm.v1.core.sched.scheduler.FairScheduler` (ig103): the module
    imports, the lookup by name finds no such class."""
    frames = [(f"{VL}/config/scheduler.py", "get_scheduler_cls",
               "return resolve_obj_by_qualname(self.scheduler_cls)"),
              (f"{VL}/utils/import_utils.py", "resolve_obj_by_qualname",
               "return getattr(module, obj_name)")]
    error = ("AttributeError: module 'vllm.v1.core.sched.scheduler' has no attribute "
             "'FairScheduler'")
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.IMPORT_ERROR
    # guard: the same words from the engine's own attribute access name no flag
    own = [(f"{VL}/v1/engine/core.py", "__init__", "self.scheduler = sched.FairScheduler(")]
    assert cause_of(tb(*own, error=error), "vllm") is not Cause.IMPORT_ERROR


# --- the 262nd batch's kinds (real engines; a helper blind to the rules) ----------------------

_VLLM_DP_ARGS = ("(APIServer pid=2403) INFO 12-07 20:24:51 [api_utils.py:286] non-default args: "
                 "{'host': '127.0.0.1', 'port': 35181, 'model': '/m', 'data_parallel_size': 2, "
                 "'data_parallel_address': '%s'%s}")
_DP_COORDINATOR = ("(APIServer pid=2403) INFO 12-07 20:24:58 [coordinator.py:68] Started DP "
                   "Coordinator process (PID: 2440)")


def test_a_one_node_data_parallel_launch_meeting_at_another_hosts_address_is_the_address() -> None:
    """`--data-parallel-size 2 --data-parallel-address 192.0.2.10` on one host (im102): every
    rank is local, so no other node will answer at the head node's address a cluster recipe
    gave - the setting, as SGLang's dist_init_addr on one node reads (hd107)."""
    retry = _RETRY.replace("10.99.99.99:24888", "192.0.2.10:46879")
    lines = (_VLLM_DP_ARGS % ("192.0.2.10", ""), _DP_COORDINATOR, retry, *_RETRY_TRACE, retry,
             *_RETRY_TRACE)
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, Cause.INVALID_CONFIG), v
    assert v.evidence[-1] == ("a launch of one node meeting at an address not this host's: "
                              "--data-parallel-address 192.0.2.10"), v.evidence
    # once the store gives up, the same setting (the crash it would have come to)
    failed = tb((f"{TORCH}/distributed/rendezvous.py", "_create_c10d_store", "return TCPStore("),
                error="torch.distributed.DistNetworkError: The client socket has timed out after "
                      "300000ms while trying to connect to (192.0.2.10, 46879).")
    end = verdict(*lines[:4], failed, engine="vllm")
    assert (end.outcome, end.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), end
    # guard: a head node with ranks elsewhere (--data-parallel-size-local 1) may meet its peer
    head = (_VLLM_DP_ARGS % ("192.0.2.10", ", 'data_parallel_size_local': 1"),) + lines[1:]
    assert verdict(*head, engine="vllm").cause is Cause.UNKNOWN
    headless = (_VLLM_DP_ARGS % ("192.0.2.10", ", 'headless': True"),) + lines[1:4]
    assert verdict(*headless, failed, engine="vllm").cause is Cause.MULTINODE_RANK_FAILURE
    # guard: its own loopback retrying names no setting
    loop = retry.replace("192.0.2.10", "127.0.0.1")
    local = verdict(_VLLM_DP_ARGS % ("127.0.0.1", ""), _DP_COORDINATOR, loop, *_RETRY_TRACE,
                    engine="vllm")
    assert local.cause is Cause.UNKNOWN, local


# --- the 260th batch's kinds (real engines; a helper blind to the rules) ----------------------

_INDUCTOR_STACK = [
    "Current thread 0x00007f9d4e6e37c0 (most recent call first):",
    f'  File "{TORCH}/_inductor/codecache.py", line 1969 in cache_hit_post_compile',
    f'  File "{VL}/compilation/decorators.py", line 305 in _try_load_aot_compiled_fn',
    f'  File "{VL}/v1/worker/gpu_model_runner.py", line 6193 in profile_run']
_CORE_STACK = [
    "Current thread 0x00007fe5191f87c0 (most recent call first):",
    f'  File "{VL}/v1/engine/core.py", line 247 in _initialize_kv_caches']


def test_an_abort_sent_to_the_process_group_names_no_cause_from_where_each_process_was() -> None:
    """`timeout -s ABRT` on a CI job's process group (ik103): every process dumps `Fatal Python
    error: Aborted` at once; the worker happened to be loading inductor's cache - no
    compilation failed."""
    together = verdict("Fatal Python error: Fatal Python error: AbortedAborted", "",
                       *_INDUCTOR_STACK, "", "Fatal Python error: Aborted", "", *_CORE_STACK,
                       engine="vllm")
    assert (together.outcome, together.cause) == (Outcome.CRASHED, Cause.UNKNOWN), together
    # guard: one process aborting under the compiler is read by its frames, as before
    alone = verdict("Fatal Python error: Aborted", "", *_INDUCTOR_STACK, engine="vllm")
    assert alone.cause is Cause.TRITON_COMPILE_ERROR, alone
    # guard: another fatal signal among the reports is no abort sent from outside
    segv = verdict("Fatal Python error: Segmentation fault", "", *_INDUCTOR_STACK, "",
                   "Fatal Python error: Aborted", "", *_CORE_STACK, engine="vllm")
    assert segv.cause is Cause.TRITON_COMPILE_ERROR, segv


# --- the 263rd batch's kinds (real engines; a helper blind to the rules) ----------------------

def _core_killed_at_ready() -> list[str]:
    """vLLM V1's engine core killed by a signal while the server sat idle (in104, dl104): no word
    of its own, the API server's MPClient warning and its output handler's EngineDeadError."""
    api = [(f"{VL}/v1/engine/async_llm.py", "output_handler",
            "outputs = await engine_core.get_output_async()"),
           (f"{VL}/v1/engine/core_client.py", "get_output_async",
            "raise self._format_exception(outputs) from None")]
    return [
        _IDLE_API + "[shutdown] MPClient: engine core exited unexpectedly; starting cleanup",
        _IDLE_API + "AsyncLLM output_handler failed.",
        *(_IDLE_API + line for line in tb(*api, error="vllm.v1.engine.exceptions.EngineDeadError: "
                                     "EngineCore encountered an issue. See stack trace (above) "
                                     "for the root cause.").splitlines())]


_FAILED_AFTER = 'INFO:     127.0.0.1:4243 - "POST /v1/completions HTTP/1.1" 500 Internal Server Error'


def test_requests_failed_after_the_engine_died_at_ready_are_no_request_served() -> None:
    """SIGUSR2 to vLLM's engine core at its ready line (in104; dl104 the same with SIGSEGV): the
    output handler raises EngineDeadError with no request in flight, and the completions sent
    after get 500 - crashed in ready, nothing was served."""
    v = verdict(*_IDLE_UP, *_core_killed_at_ready(), _FAILED_AFTER, _FAILED_AFTER,
                engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.READY), v
    # guard: a request answered before the death was served
    served = 'INFO:     127.0.0.1:4242 - "POST /v1/completions HTTP/1.1" 200 OK'
    v = verdict(*_IDLE_UP, served, *_core_killed_at_ready(), _FAILED_AFTER, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    # guard: a fragment cut below its startup may have served before the cut (gc101)
    v = verdict(*_core_killed_at_ready(), _FAILED_AFTER, engine="vllm")
    assert v.phase is Phase.SERVING, v


def test_the_live_tracker_counts_no_request_failed_after_the_engine_died() -> None:
    """The daemon's own phase, line by line (live equals offline): a 500 after the API server
    said its engine core died is no traffic; a 500 before it is."""
    from supervisor.engines.vllm import VLLMTracker
    dead = VLLMTracker()
    for line in (*_IDLE_UP, *_core_killed_at_ready(), _FAILED_AFTER):
        dead.feed(line)
    assert dead.phase is Phase.READY, dead.phase
    alive = VLLMTracker()
    for line in (*_IDLE_UP, _FAILED_AFTER):
        alive.feed(line)
    assert alive.phase is Phase.SERVING, alive.phase


# --- the 264th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_working_directory_the_process_may_not_enter_is_the_launchs_folder() -> None:
    """vLLM run as a service user from a folder it may not enter (io102): the engine core that
    multiprocessing spawns dies entering its parent's working directory."""
    spawn = "/py/lib/python3.11/multiprocessing/spawn.py"
    frames = [(spawn, "spawn_main", "exitcode = _main(fd, parent_sentinel)"),
              (spawn, "_main", "prepare(preparation_data)"),
              (spawn, "prepare", "os.chdir(data['dir'])")]
    error = "PermissionError: [Errno 13] Permission denied: '/srv/admin'"
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: the same words from opening a file name no working directory
    opened = frames[:2] + [(spawn, "prepare", "open(data['path'])")]
    assert cause_of(tb(*opened, error=error), "vllm") is not Cause.INVALID_CONFIG


def test_the_hubs_own_words_for_a_cache_folder_it_may_not_use_are_the_setting() -> None:
    """HF_HOME a folder only root may read (io106): Transformers' hub wraps the PermissionError
    and says to check the cache directory's permissions."""
    hub = [(f"{SG}/configs/model_config.py", "load_pointer_head", "cached_file("),
           ("/x/site-packages/transformers/utils/hub.py", "cached_files", "raise OSError(")]
    error = ("OSError: PermissionError at /srv/hf/token when downloading org/tiny. Check cache "
             "directory permissions. Common causes: 1) another user is downloading the same "
             "model (please wait); 2) a previous download was canceled")
    assert cause_of(tb(*hub, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: the hub failing a download for another reason names no setting
    other = "OSError: We couldn't connect to 'https://huggingface.co' to load the files"
    assert cause_of(tb(*hub, error=other), "sglang") is not Cause.INVALID_CONFIG


# --- the 269th batch's kinds (real engines; a helper blind to the rules) ----------------------

_PASSED_OVER = ("(EngineCore pid=9) ERROR 12-07 21:14:29 [repo_utils.py:126] Error parsing config "
                "for /srv/tok: Unrecognized model in /srv/tok. Should have a `model_type` key in "
                "its config.json.")
_INDEX_PAST = ["terminate called after throwing an instance of 'std::runtime_error'",
               "  what():  kernel, /x/inductor_cache/am/c.main.cpp:31, index out of bounds: "
               "0 <= tmp3 < 512L",
               "(EngineCore pid=9) ERROR 12-07 21:14:33 [multiproc_executor.py:315] Worker proc "
               "VllmWorker-0 died unexpectedly (exit code: -6), shutting down executor."]


def test_an_error_the_startup_passed_over_does_not_outrank_the_death_after_it() -> None:
    """`--tokenizer` a folder with no config.json (it103): the engine logs that it could not
    read the folder's config, passes over it and comes up; the first request's token ids run
    past the embedding - the death is the index, not the config read at startup."""
    up = [_IDLE_UP[0], _PASSED_OVER, *_IDLE_UP[1:]]
    v = verdict(*up, *_INDEX_PAST, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.ILLEGAL_MEMORY_ACCESS), v
    # guard: a death after it that names nothing leaves the startup's error the only hint
    silent = ["(EngineCore pid=9) ERROR 12-07 21:14:33 [multiproc_executor.py:315] Worker proc "
              "VllmWorker-0 died unexpectedly (exit code: -6), shutting down executor."]
    v = verdict(*up, *silent, engine="vllm")
    assert v.cause is Cause.CORRUPT_CHECKPOINT, v


# --- the 267th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_tensors_the_checkpoint_does_not_hold_are_the_checkpoint() -> None:
    """A sharded-state checkpoint with one part file lost (ir101): vLLM's loader names the keys
    the loaded state lacks; torch's strict state_dict load says the same."""
    frames = [(f"{VL}/model_executor/model_loader/sharded_state_loader.py", "load_weights",
               'raise ValueError(f"Missing keys {tuple(state_dict)} in loaded state!")')]
    error = ("ValueError: Missing keys ('model.layers.0.self_attn.qkv_proj.weight', "
             "'model.norm.weight') in loaded state!")
    assert cause_of(tb(*frames, error=error), "vllm") is Cause.CORRUPT_CHECKPOINT
    torch_words = ('RuntimeError: Error(s) in loading state_dict for LlamaForCausalLM:\n\t'
                   'Missing key(s) in state_dict: "lm_head.weight".')
    assert cause_of(tb(*frames, error=torch_words), "vllm") is Cause.CORRUPT_CHECKPOINT
    # guard: a missing key of a request or a config names no checkpoint
    other = "KeyError: 'Missing key temperature in the request'"
    assert cause_of(tb(*frames, error=other), "vllm") is not Cause.CORRUPT_CHECKPOINT


def test_a_gguf_file_naming_no_tokenizer_is_a_checkpoint_without_one() -> None:
    """A GGUF written without tokenizer metadata, served with no tokenizer folder (ir105)."""
    frames = [(f"{SG}/managers/tokenizer_manager.py", "__init__", "self.tokenizer = get_tokenizer(")]
    error = ("ValueError: Cannot build a tokenizer from a GGUF file stating tokenizer None. "
             "Supported: ['gemma4', 'gpt2', 'llama', 't5'].")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.CORRUPT_CHECKPOINT
    # guard: the other words a tokenizer build fails in stay what they say
    other = "ValueError: Tokenizer class LlamaTokenizerX does not exist or is not imported."
    assert cause_of(tb(*frames, error=other), "sglang") is not Cause.CORRUPT_CHECKPOINT


# --- the 271st batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_transformers_failing_to_compute_the_rope_block_is_the_config() -> None:
    """`--json-model-override-args` with a rope factor as a string (iv106) and longrope's factor
    lists of another length than the head's (iv107): Transformers fails computing the rope
    parameters as SGLang's Transformers backend builds the model."""
    tf = "/x/site-packages/transformers"
    build = [(f"{SG}/model_loader/loader.py", "_initialize_model", "model = model_class(**kwargs)"),
             (f"{SG}/models/transformers.py", "__init__",
              "self.model: PreTrainedModel = AutoModel.from_config("),
             (f"{tf}/modeling_utils.py", "_from_config", "model = cls(config, **kwargs)"),
             (f"{tf}/models/llama/modeling_llama.py", "__init__",
              "self.rotary_emb = LlamaRotaryEmbedding(config=config)"),
             (f"{tf}/models/llama/modeling_llama.py", "__init__",
              "inv_freq, self.attention_scaling = rope_init_fn(self.config)")]
    linear = build + [(f"{tf}/modeling_rope_utils.py",
                       "_compute_linear_scaling_rope_parameters", "inv_freq /= factor")]
    error = "TypeError: unsupported operand type(s) for /=: 'Tensor' and 'str'"
    assert cause_of(tb(*linear, error=error), "sglang") is Cause.INVALID_CONFIG
    longrope = build + [(f"{tf}/modeling_rope_utils.py",
                         "_compute_longrope_parameters", "inv_freq = 1.0 / (ext_factors * base**x)")]
    error = ("RuntimeError: The size of tensor a (48) must match the size of tensor b (32) at "
             "non-singleton dimension 0")
    assert cause_of(tb(*longrope, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: the same error in the model's own layers names no rope block
    assert cause_of(tb(*build, error=error), "sglang") is not Cause.INVALID_CONFIG


# --- kinds no batch has shown yet: torch.load reading a weight file ---------------------------

def test_an_error_torch_load_raises_reading_a_weight_file_is_the_checkpoint() -> None:
    """vLLM's `pt` loader (and any `.bin` checkpoint) reads each file with torch.load: an empty
    file (a bare `EOFError`), bytes that are no pickle (`KeyError: 101`), a legacy file cut
    short (`unexpected EOF, expected 1000 more bytes`) - torch's words as it really raises
    them, none naming a checkpoint - are the checkpoint's bytes."""
    read = [(f"{VL}/model_executor/model_loader/weight_utils.py", "pt_weights_iterator",
             'state = torch.load(bin_file, map_location="cpu", weights_only=True)'),
            (f"{TORCH}/serialization.py", "load", "return _legacy_load(")]
    unpickle = read + [(f"{TORCH}/serialization.py", "_legacy_load",
                        "magic_number = pickle_module.load(f, **pickle_load_args)"),
                       (f"{TORCH}/_weights_only_unpickler.py", "load",
                        "return Unpickler(file, encoding=encoding).load()"),
                       (f"{TORCH}/_weights_only_unpickler.py", "load", "raise EOFError")]
    assert cause_of(tb(*unpickle, error="EOFError"), "vllm") is Cause.CORRUPT_CHECKPOINT
    memo = unpickle[:-1] + [(f"{TORCH}/_weights_only_unpickler.py", "load",
                             "self.append(self.memo[idx])")]
    assert cause_of(tb(*memo, error="KeyError: 101"), "vllm") is Cause.CORRUPT_CHECKPOINT
    cut = read + [(f"{TORCH}/serialization.py", "_legacy_load",
                   "typed_storage._untyped_storage._set_from_file(")]
    error = "RuntimeError: unexpected EOF, expected 1000 more bytes. The file might be corrupted."
    assert cause_of(tb(*cut, error=error), "vllm") is Cause.CORRUPT_CHECKPOINT
    assert cause_of(error + "\n", "vllm") is Cause.CORRUPT_CHECKPOINT  # words alone
    # guard: the setting torch.load refuses says so in its own words (db101: a file saved on a
    # CUDA device, read on a host without one)
    refused = ("RuntimeError: Attempting to deserialize object on a CUDA device but "
               "torch.cuda.is_available() is False. If you are running on a CPU-only machine, "
               "please use torch.load with map_location=torch.device('cpu') to map your "
               "storages to the CPU.")
    assert cause_of(tb(*cut, error=refused), "vllm") is not Cause.CORRUPT_CHECKPOINT
    # guard: the same errors away from torch.load name no checkpoint
    assert cause_of(tb(*read[:1], error="KeyError: 101"), "vllm") is not Cause.CORRUPT_CHECKPOINT


# --- the 275th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_the_model_registry_refusing_what_a_plugin_registers_is_the_setting() -> None:
    """A general plugin registering an architecture with a dotted class path (iz102): vLLM's
    registry refuses the value in a bare traceback while building its argument parser."""
    plugin = [(f"{VL}/engine/arg_utils.py", "add_cli_args", "load_general_plugins()"),
              (f"{VL}/plugins/__init__.py", "load_general_plugins", "func()"),
              ("/opt/acme/acme_vllm_models/__init__.py", "register",
               'ModelRegistry.register_model("AcmeLlamaV1ForCausalLM",')]
    refused = plugin + [(f"{VL}/model_executor/models/registry.py", "register_model",
                         "raise ValueError(msg)")]
    error = "ValueError: Expected a string in the format `<module>:<class>`"
    assert cause_of(tb(*refused, error=error), "vllm") is Cause.INVALID_CONFIG
    # guard: the plugin failing in its own code, before any registry call, is not the setting
    own = "RuntimeError: acme-vllm-plugin: licence check failed"
    assert cause_of(tb(*plugin, error=own), "vllm") is not Cause.INVALID_CONFIG


# --- the 273rd batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_lazy_library_module_without_the_name_asked_for_is_the_installed_library() -> None:
    """Transformers' lazy module lacking a config class (ix101: a copy on PYTHONPATH cut short;
    the same words from a release older than the class): vLLM logs `Error parsing config` and
    dies in AutoConfig. The library installed, not the model's config."""
    tf = "/x/site-packages/transformers"
    frames = [(f"{VL}/transformers_utils/config.py", "get_config",
               "config = AutoConfig.from_pretrained("),
              (f"{tf}/models/auto/configuration_auto.py", "__getitem__",
               "return getattr(self._extra_content.get(key) or transformers, value)"),
              (f"{tf}/utils/import_utils.py", "__getattr__",
               'raise AttributeError(f"module {self.__name__} has no attribute {name}")')]
    lines = ["ERROR 12-07 23:40:40 [repo_utils.py:124] Error parsing config for /m: module "
             "transformers has no attribute LlamaConfig"]
    error = "AttributeError: module transformers has no attribute LlamaConfig"
    assert cause_of("\n".join(lines) + "\n" + tb(*frames, error=error), "vllm") \
        is Cause.IMPORT_ERROR
    # guard: Python's own words for a name a setting gave (quoted) stay that setting's
    quoted = "AttributeError: module 'torch' has no attribute 'bf16'"
    assert cause_of(tb(*frames[:1], error=quoted), "vllm") is not Cause.IMPORT_ERROR


# --- the 278th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_preloaded_allocator_aborting_on_its_own_setting_is_invalid_config() -> None:
    """jemalloc preloaded with MALLOC_CONF holding a value it refuses and abort_conf (jc101):
    its two lines are the whole log; the process is aborted before the engine prints."""
    v = verdict("<jemalloc>: Invalid conf value: dirty_decay_ms:10s",
                "<jemalloc>: Abort (abort_conf:true) on invalid conf value (see above).",
                engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG), v
    # guard: without abort_conf it only warns, and the engine runs on (jc104)
    v = verdict("<jemalloc>: Invalid conf pair: background_threads:true",
                "INFO 12-07 23:50:01 [api_server.py:1] vLLM API server version 0.32.0",
                engine="vllm")
    assert v.outcome is not Outcome.CRASHED, v



# --- the 277th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_out_of_descriptors_under_a_generous_launch_limit_is_no_setting() -> None:
    """The worker's open-files limit cut from outside at load (jb103, prlimit): vLLM's warning
    shows the launch had 20000; the worker dies in its message-queue setup. Not the launch's
    setting; the same death under a launch given 64 (ax117) is."""
    def log(limit: int) -> str:
        warning = (f"(APIServer pid=1) WARNING 12-07 23:59:24 [system_utils.py:255] Found ulimit "
                   f"of {limit} and failed to automatically increase with error current limit "
                   "exceeds maximum limit. This can cause fd limit errors like `OSError: [Errno "
                   "24] Too many open files`. Consider increasing with ulimit -n\n")
        frames = [(f"{VL}/v1/executor/multiproc_executor.py", "_init_message_queues",
                   "self.worker_response_mq = MessageQueue.create_from_handle("),
                  ("/usr/lib/python3.12/multiprocessing/shared_memory.py", "__init__",
                   "self._fd = _posixshmem.shm_open(")]
        return warning + tb(*frames, error="OSError: [Errno 24] Too many open files")
    assert cause_of(log(20000), "vllm") is Cause.UNKNOWN
    assert cause_of(log(64), "vllm") is Cause.INVALID_CONFIG
    # guard: with no warning (SGLang, a fragment), the service's limit, as before
    frames = [(f"{SG}/managers/scheduler.py", "__init__", "self.recv = ctx.socket(")]
    text = tb(*frames, error="zmq.error.ZMQError: Too many open files")
    assert cause_of(text, "sglang") is Cause.INVALID_CONFIG


# --- the 283rd batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_threads_death_the_server_outlived_is_no_crash() -> None:
    """SGLang's warm-up thread killed by an API key with a byte-order mark it could not encode
    (jh107): Python prints `Exception in thread ...` and the thread's traceback; the server then
    answers requests (401, 500) and its health probe (503). Never ready, not dead."""
    up = ["[2026-12-08 00:38:16] INFO:     Uvicorn running on http://127.0.0.1:50673",
          "Exception in thread Thread-1 (_wait_and_warmup):"]
    frames = [(f"{SG}/entrypoints/http_server.py", "_wait_and_warmup",
               "if not _execute_server_warmup(server_args):"),
              ("/usr/lib/python3.11/http/client.py", "putheader",
               "values[i] = one_value.encode('latin-1')")]
    error = ("UnicodeEncodeError: 'latin-1' codec can't encode character '\\ufeff' in position 7: "
             "ordinal not in range(256)")
    after = ['[2026-12-08 00:39:47] INFO:     127.0.0.1:55978 - "GET /v1/models HTTP/1.1" 401 '
             'Unauthorized',
             '[2026-12-08 00:39:47] INFO:     127.0.0.1:56000 - "GET /health HTTP/1.1" 503 '
             'Service Unavailable']
    text = "\n".join(up) + "\n" + tb(*frames, error=error)
    v = classify_text(text + "\n".join(after) + "\n", engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, Cause.WARMUP_FAILED), v
    # guard: the same thread's death with nothing after it is the run's end, as before
    v = classify_text(text, engine="sglang")
    assert v.outcome is Outcome.CRASHED, v


# --- the 285th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_an_environment_value_refused_by_the_converter_its_reader_called_is_the_setting() -> None:
    """HF_HUB_DOWNLOAD_TIMEOUT=0.5 (jj107): huggingface_hub's constants read the variable into
    `_as_int(...)`, whose `int(value)` refuses it as SGLang imports - the variable's value."""
    hub = "/x/site-packages/huggingface_hub"
    read = [(f"{hub}/utils/tqdm.py", "<module>",
             "from ..constants import HF_HUB_DISABLE_PROGRESS_BARS"),
            (f"{hub}/constants.py", "<module>",
             'HF_HUB_DOWNLOAD_TIMEOUT: int = _as_int(os.environ.get("HF_HUB_DOWNLOAD_TIMEOUT")) '
             "or DEFAULT_DOWNLOAD_TIMEOUT"),
            (f"{hub}/constants.py", "_as_int", "return int(value)")]
    error = "ValueError: invalid literal for int() with base 10: '0.5'"
    assert cause_of(tb(*read, error=error), "sglang") is Cause.INVALID_CONFIG
    # guard: a converter whose caller reads no variable names no setting
    other = [*read[:1], (f"{hub}/constants.py", "<module>", "LIMIT: int = _as_int(DEFAULT)"),
             read[2]]
    assert cause_of(tb(*other, error=error), "sglang") is not Cause.INVALID_CONFIG


# --- the 289th batch's kinds (real engines; a helper blind to the rules) ----------------------

def test_a_backend_refusing_every_gpu_but_a_list_of_architectures_is_unsupported_arch() -> None:
    """A B200 recipe's `--prefill-attention-backend trtllm_mha` on this host (jn105): SGLang
    names the architectures the backend needs as a list, as it names one elsewhere."""
    frames = [(f"{SG}/server_args.py", "_handle_attention_backend_compatibility",
               "raise ValueError(")]
    error = ("ValueError: TRTLLM MHA backend for prefill requires Hopper (SM90), Blackwell "
             "(SM100), or SM120 GPUs. Please use a different prefill backend.")
    assert cause_of(tb(*frames, error=error), "sglang") is Cause.UNSUPPORTED_ARCH
    # guard: a requirement that only starts with an architecture names a setting
    other = "ValueError: this kernel requires SM90 and a page size of 64 on all GPUs"
    assert cause_of(tb(*frames, error=other), "sglang") is not Cause.UNSUPPORTED_ARCH
