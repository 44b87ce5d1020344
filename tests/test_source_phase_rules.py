"""Rules read from the engines' own source: a message or a frame that belongs to one startup
phase dates a pasted fragment, and a message that says what went wrong names the cause.

Each case is a fragment the way the engine prints it (an exception with a traceback frame or
two, or the engine's own error line), with no phase marker: without the rule it was `launch`
and `unknown`.
"""

from __future__ import annotations

import pytest
from classifier_lines import CORE, SG, VL, check, tb

from supervisor.diagnosis.classifier import classify_text
from supervisor.states import Cause, Outcome, Phase

# --- messages: configuration checks of argument resolution (invalid_config, launch) ---------

@pytest.mark.parametrize("error", [
    # vLLM ModelConfig.verify_with_parallel_config
    "ValueError: Total number of attention heads (28) must be divisible by tensor parallel "
    "size (8).",
    "ValueError: Total number of hidden layers (61) must be divisible by pipeline parallel "
    "size (2).",
    # vLLM's max-model-len check (_get_and_verify_max_len, before the pydantic configs)
    "ValueError: User-specified max_model_len (131072) is greater than the derived "
    "max_model_len (max_position_embeddings=32768 or model_max_length=None in model's "
    "config.json). To allow overriding this maximum, set the env var "
    "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1.",
    # SGLang ModelConfig's context-length check (its message starts with "Warning:")
    "ValueError: Warning: User-specified context_length (200000) is greater than the derived "
    "context_length (163840). This may lead to incorrect model outputs or CUDA errors. To "
    "allow overriding this maximum, set the env var SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1",
    # vLLM ModelConfig._verify_quantization
    "ValueError: Quantization method specified in the model config (fp8) does not match the "
    "quantization method specified in the `quantization` argument (awq).",
    # vLLM's platform check of the dtype (check_if_supports_dtype)
    "ValueError: Bfloat16 is only supported on GPUs with compute capability of at least 8.0. "
    "Your Tesla T4 GPU has compute capability 7.5. You can use float16 instead by explicitly "
    "setting the `dtype` flag in CLI, for example: --dtype=half.",
])
def test_configuration_checks_are_invalid_config_at_launch(error):
    text = tb((f"{VL}/engine/arg_utils.py", "create_model_config",
               "return ModelConfig("), error=error)
    check(text, "vllm", Phase.LAUNCH, Cause.INVALID_CONFIG)


def test_the_max_model_len_check_quoted_from_pydantic_is_invalid_config():
    # 2025 vLLM raises it inside a pydantic validator; a paste often keeps only this line
    v = classify_text("(APIServer pid=53)   Value error, User-specified max_model_len (65536) "
                      "is greater than the derived max_model_len (max_position_embeddings="
                      "32768.0 or model_max_length=None in model's config.json).\n",
                      engine="vllm")
    assert (v.phase, v.cause) == (Phase.LAUNCH, Cause.INVALID_CONFIG), v


def test_the_max_model_len_warning_of_an_allowed_override_is_no_failure():
    # vLLM logs the same words as a warning when VLLM_ALLOW_LONG_MAX_MODEL_LEN is set
    v = classify_text("WARNING 03-02 10:11:12 [model.py:2650] User-specified max_model_len "
                      "(131072) is greater than the derived max_model_len (32768). This may "
                      "lead to incorrect model outputs or CUDA errors.\n", engine="vllm")
    assert v.cause is not Cause.INVALID_CONFIG, v


# --- messages: the model's layers creating weights (invalid_config, weight_loading) ---------

@pytest.mark.parametrize("error", [
    "ValueError: Weight input_size_per_partition = 3696 is not divisible by min_thread_k = "
    "128. Consider reducing tensor_parallel_size or running with --quantization gptq.",
    "ValueError: Weight output_partition_size = 576 is not divisible by weight quantization "
    "block_n = 128.",
])
def test_a_tp_size_the_quantized_weights_cannot_take_is_invalid_config_in_weight_loading(error):
    text = tb((f"{VL}/model_executor/layers/linear.py", "__init__",
               "self.quant_method.create_weights("), error=error, prefix=CORE)
    check(text, "vllm", Phase.WEIGHT_LOADING, Cause.INVALID_CONFIG)


# --- messages: KV-cache sizing --------------------------------------------------------------

def test_vllm_auto_fit_of_max_model_len_without_memory_is_kv_cache_oom():
    text = (CORE + "ValueError: Cannot auto-fit max_model_len: not enough GPU memory available "
            "to serve even a single token. Try increasing `gpu_memory_utilization`.\n")
    check(text, "vllm", Phase.KV_CACHE_ALLOC, Cause.KV_CACHE_OOM)


# --- messages: the weight loaders refusing a tensor (weight_loading) ------------------------

@pytest.mark.parametrize("error, cause", [
    # a checkpoint tensor under a module the model class lacks: the weights and the model the
    # config builds disagree (the corpus README's rule since round 2, session 41)
    ("ValueError: There is no module or parameter named 'lm_head.weight_scale' in "
     "Qwen2ForCausalLM", Cause.CORRUPT_CHECKPOINT),
    # tensors the model needs are missing from the checkpoint: an incomplete checkpoint
    ("ValueError: Following weights were not initialized from checkpoint: "
     "{'model.layers.0.mlp.gate_up_proj.weight'}", Cause.CORRUPT_CHECKPOINT),
    # a tensor of another shape than its parameter: the same disagreement (session 41, hj103)
    ("AssertionError: Attempted to load weight (torch.Size([151936, 4096])) into parameter "
     "(torch.Size([152064, 4096]))", Cause.CORRUPT_CHECKPOINT),
])
def test_a_weight_loader_refusing_a_tensor_is_weight_loading(error, cause):
    text = tb((f"{VL}/v1/worker/worker_base.py", "execute_method",
               "return run_method(self, method, args, kwargs)"), error=error, prefix=CORE)
    check(text, "vllm", Phase.WEIGHT_LOADING, cause)


# --- messages: SGLang's graph runners (capture) ---------------------------------------------

@pytest.mark.parametrize("error", [
    "Exception: Capture prefill CUDA graph failed: boom",
    "Exception: Capture CPU graph failed: boom",
    "Exception: Capture frozen-KV MTP cuda graph failed: boom",
])
def test_every_sglang_graph_runner_failure_is_capture(error):
    text = tb((f"{SG}/managers/scheduler.py", "run_scheduler_process",
               "scheduler = Scheduler("), error=error)
    v = classify_text(text, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.CUDA_GRAPH_CAPTURE), v


# --- one traceback each, read by its frames or its message ----------------------------------

_BOOM = "RuntimeError: boom"
_EXECUTE_METHOD = (f"{VL}/v1/worker/worker_base.py", "execute_method",
                   "return run_method(self, method, args, kwargs)")


@pytest.mark.parametrize(("engine", "frames", "error", "prefix", "phase", "cause"), [
    # messages, KV-cache sizing: vLLM's memory profiling assertion
    pytest.param("vllm", [_EXECUTE_METHOD],
                 "AssertionError: Error in memory profiling. Initial free memory 70.1 GiB, "
                 "current free memory 72.3 GiB. This happens when other processes sharing the "
                 "same container release GPU memory while vLLM is profiling during "
                 "initialization.", CORE, Phase.KV_CACHE_ALLOC, Cause.UNKNOWN,
                 id="vllm-memory-profiling-assertion"),
    # messages: a request refused after vLLM V0's engine loop died (serving)
    pytest.param("vllm", [(f"{VL}/entrypoints/openai/serving_chat.py", "create_chat_completion",
                           "async for res in result_generator:")],
                 "vllm.engine.async_llm_engine.AsyncEngineDeadError: Background loop has "
                 "errored already.", "", Phase.SERVING, Cause.UNKNOWN,
                 id="vllm-v0-background-loop-errored"),
    # frames: vLLM V1's worker allocating the KV cache from the sized config
    pytest.param("vllm", [(f"{VL}/v1/executor/abstract.py", "initialize_from_config",
                           "self.collective_rpc(\"initialize_from_config\", "
                           "args=(kv_cache_configs,))"),
                          (f"{VL}/v1/worker/gpu_worker.py", "initialize_from_config",
                           "ensure_kv_transfer_initialized(self.vllm_config, kv_cache_config)")],
                 _BOOM, CORE, Phase.KV_CACHE_ALLOC, Cause.UNKNOWN,
                 id="vllm-v1-kv-allocation-frames"),
    # frames: vLLM V0's cache engine
    pytest.param("vllm", [(f"{VL}/worker/worker.py", "_init_cache_engine",
                           "self.cache_engine = ["),
                          (f"{VL}/worker/cache_engine.py", "_allocate_kv_cache", "torch.zeros(")],
                 _BOOM, CORE, Phase.KV_CACHE_ALLOC, Cause.UNKNOWN,
                 id="vllm-v0-cache-engine-frames"),
    # frames: vLLM V1's front end output handler
    pytest.param("vllm", [(f"{VL}/v1/engine/async_llm.py", "output_handler",
                           "outputs = await engine_core.get_output_async()"),
                          (f"{VL}/v1/engine/core_client.py", "get_output_async",
                           "raise self._format_exception(outputs) from None")],
                 _BOOM, "", Phase.SERVING, Cause.UNKNOWN, id="vllm-v1-front-end-output-handler"),
    # frames, guard: the executor's initialize_from_config alone dates nothing (the method of
    # that name also runs the workers' warmup)
    pytest.param("vllm", [(f"{VL}/v1/executor/abstract.py", "initialize_from_config",
                           "self.collective_rpc(\"compile_or_warm_up_model\")")],
                 _BOOM, "", Phase.LAUNCH, Cause.UNKNOWN,
                 id="vllm-executor-initialize-from-config-alone"),
    # frames: a configuration check that raised (invalid_config)
    pytest.param("sglang", [(f"{SG}/server_args.py", "prepare_server_args",
                             "return ServerArgs.from_cli_args(raw_args)"),
                            (f"{SG}/server_args.py", "_handle_data_parallelism",
                             "assert self.tp_size % self.dp_size == 0")],
                 "AssertionError: tp_size must be divisible by dp_size", "", Phase.LAUNCH,
                 Cause.INVALID_CONFIG, id="sglang-server-args-check"),
    pytest.param("vllm", [(f"{VL}/engine/arg_utils.py", "create_engine_config",
                           "parallel_config = ParallelConfig("),
                          (f"{VL}/config/parallel.py", "__post_init__", "raise ValueError(")],
                 "ValueError: tp_size=8 must be divisible by dcp_size=3.", "", Phase.LAUNCH,
                 Cause.INVALID_CONFIG, id="vllm-parallel-config-check"),
    pytest.param("vllm", [(f"{VL}/config.py", "_verify_cuda_graph",
                           "raise NotImplementedError(")],
                 "NotImplementedError: this combination of options is not implemented", "",
                 Phase.LAUNCH, Cause.INVALID_CONFIG, id="vllm-cuda-graph-config-check"),
    # frames, guard: an exception below a config frame is not the config check (the config
    # code called into transformers / the hub, which raised: not a refusal)
    pytest.param("vllm", [(f"{VL}/config/model.py", "__post_init__",
                           "self.hf_config = get_config("),
                          ("/usr/lib/python3/dist-packages/transformers/configuration_utils.py",
                           "get_config_dict", "raise ValueError(")],
                 "ValueError: boom", "", Phase.LAUNCH, Cause.UNKNOWN,
                 id="exception-below-a-config-frame"),
    # frames: vLLM finding no platform names no cause (no GPU visible, a wheel without this
    # platform, a plugin that did not import: the labelled logs say unknown)
    pytest.param("vllm", [(f"{VL}/engine/arg_utils.py", "create_engine_config",
                           "device_config = DeviceConfig(device=cast(Device, "
                           "current_platform.device_type))"),
                          (f"{VL}/config/device.py", "__post_init__", "raise RuntimeError(")],
                 "RuntimeError: Failed to infer device type, please set the environment "
                 "variable `VLLM_LOGGING_LEVEL=DEBUG` to turn on verbose logging to help debug "
                 "the issue.", "", Phase.LAUNCH, Cause.UNKNOWN, id="vllm-no-platform"),
])
def test_a_traceback_is_a_crash_in_its_phase_of_its_cause(engine, frames, error, prefix, phase,
                                                         cause):
    check(tb(*frames, error=error, prefix=prefix), engine, phase, cause)
