"""Phase markers read for what they mean, where builds print the same line at different points
of the startup; and a log that starts mid-run, for the live trackers as for the classifier."""

from __future__ import annotations

import pytest

from supervisor.engines import get_engine
from supervisor.states import Phase

TS = "[2026-03-25 09:32:19]"
POOL = (f"{TS} max_total_num_tokens=105600, chunked_prefill_size=4096, max_prefill_tokens=16384,"
        " max_running_requests=2048, context_len=40960, available_gpu_mem=21.09 GB")


def _walk(engine: str, lines: list[str]) -> Phase:
    tracker = get_engine(engine).new_tracker()
    for line in lines:
        tracker.feed(line)
    return tracker.phase


def test_sglang_pool_report_before_capture_is_kv_cache_alloc() -> None:
    """2026 builds report the KV pool, then set up HiCache and capture graphs."""
    lines = [f"{TS} Load weight end. elapsed=2.01 s, type=Qwen3ForCausalLM, avail mem=36.61 GB",
             f"{TS} KV Cache is allocated. #tokens: 105600, K size: 7.26 GB, V size: 7.26 GB",
             POOL, f"{TS} Allocating 15.58 GB host memory for hierarchical KV cache."]
    assert _walk("sglang", lines) is Phase.KV_CACHE_ALLOC
    capture = f"{TS} Capture cuda graph begin. This can take up to several minutes."
    assert _walk("sglang", [*lines, capture]) is Phase.CUDA_GRAPH_CAPTURE


def test_sglang_pool_report_after_capture_is_warmup() -> None:
    """0.4/0.5 builds capture inside the model runner's init and report the pool after it."""
    lines = [f"{TS} Memory pool end. avail mem=21.66 GB",
             f"{TS} Capture cuda graph begin. This can take up to several minutes.",
             f"{TS} Capture cuda graph end. Time elapsed: 1.01 s. mem usage=0.07 GB.", POOL]
    assert _walk("sglang", lines) is Phase.WARMUP


def test_sglang_pool_report_of_a_build_before_mid_2025_is_warmup() -> None:
    """Builds that print no `available_gpu_mem` (0.4.3 on every rank) always reported the pool
    at the end of the scheduler's init: graphs captured, warmup next."""
    old = (f"{TS} max_total_num_tokens=66295, chunked_prefill_size=4096, max_prefill_tokens="
           "16384, max_running_requests=2049, context_len=163840")
    assert _walk("sglang", [old]) is Phase.WARMUP
    assert _walk("sglang", [POOL]) is Phase.KV_CACHE_ALLOC  # a 2026 build's: before capture


def test_sglang_cpu_builds_pool_report_is_a_2026_builds() -> None:
    """The CPU build (0.5.23) reports the host memory left, `available_cpu_mem=`, where GPU
    builds say `available_gpu_mem=`: the same 2026 report, before the scheduler's last steps
    (grammar backend, tree cache), so still kv_cache_alloc (cy107, cy108, cn112)."""
    cpu = (f"{TS} max_total_num_tokens=15582879, chunked_prefill_size=4096, max_prefill_tokens="
           "16384, max_running_requests=4096, context_len=2048, available_cpu_mem=5.02 GB")
    assert _walk("sglang", [cpu]) is Phase.KV_CACHE_ALLOC


VLLM_KV = ("(EngineCore pid=127) INFO 04-15 13:41:18 [kv_cache_utils.py:1319] GPU KV cache size: "
           "1,126,400 tokens")
VLLM_WARM = ("(Worker pid=185) INFO 04-15 13:41:24 [cpu_model_runner.py:116] Warming up model "
             "for the compilation...")


def test_vllm_warming_up_after_the_kv_cache_is_sized_is_warmup() -> None:
    """A build that sizes the KV cache first warms the model up after it (s390x, 2026)."""
    assert _walk("vllm", [VLLM_KV, VLLM_WARM]) is Phase.WARMUP


def test_vllm_warming_up_before_the_kv_cache_is_sized_profiles_the_model() -> None:
    """The 0.32 CPU build compiles and profiles with it, then sizes the KV cache."""
    assert _walk("vllm", [VLLM_WARM]) is Phase.KV_CACHE_ALLOC
    assert _walk("vllm", [VLLM_WARM, VLLM_KV]) is Phase.KV_CACHE_ALLOC


@pytest.mark.parametrize("engine,line", [
    ("sglang", '[2025-01-01 10:00:00] INFO:     10.0.0.7:5000 - "POST /generate HTTP/1.1" 200 OK'),
    ("vllm", 'INFO:     127.0.0.1:5000 - "POST /v1/chat/completions HTTP/1.1" 200 OK'),
    ("vllm", "INFO 08-01 10:00:00 [loggers.py:123] Engine 000: Avg prompt throughput: 1.0 "
             "tokens/s, Running: 3 reqs, Waiting: 0 reqs"),
])
def test_a_log_that_starts_with_traffic_is_ready_and_serving(engine: str, line: str) -> None:
    tracker = get_engine(engine).new_tracker()
    update = tracker.feed(line)
    assert update is not None and update.ready
    assert tracker.ready and tracker.phase.rank >= Phase.READY.rank


def test_our_own_health_probe_before_any_marker_is_not_traffic() -> None:
    for engine in ("sglang", "vllm"):
        tracker = get_engine(engine).new_tracker()
        tracker.feed('INFO:     127.0.0.1:5000 - "GET /health HTTP/1.1" 200 OK')
        assert not tracker.ready and tracker.phase.rank < Phase.READY.rank


def test_files_being_read_are_weight_loading_and_a_loaded_tpu_model_is_kv_sizing() -> None:
    """tpu-inference names the checkpoint file it reads, then reports the model built
    (`Init model | hbm=`); the RunAI streamer sums up the files it streamed (both engines)."""
    read = ("(EngineCore_DP0 pid=29) INFO 10-20 00:02:30 [weight_utils.py:122] Loading weights "
            "from /root/.cache/huggingface/hub/models--Qwen--Qwen3-0.6B/model.safetensors")
    built = ("(EngineCore_DP0 pid=29) INFO 10-20 00:02:33 [tpu_jax_runner.py:309] Init model | "
             "hbm=[(1.11, 30.75)]GiB")
    assert _walk("vllm", [read]) is Phase.WEIGHT_LOADING
    assert _walk("vllm", [read, built]) is Phase.KV_CACHE_ALLOC
    streamed = ("[01-08 15:05:39] [RunAI Streamer] Overall time to stream 10.6 GiB of all files "
                "to cpu: 13.12s, 825.8 MiB/s")
    assert _walk("sglang", [streamed]) is Phase.WEIGHT_LOADING
    assert _walk("vllm", [streamed]) is Phase.WEIGHT_LOADING
    # a sentence about weights, not a file read, moves nothing
    assert _walk("vllm", ["INFO Loading weights from the cache is disabled."]) is Phase.LAUNCH


def _worker(tag: str, text: str) -> str:
    return f"({tag}) INFO 06-27 15:29:21 [gpu_model_runner.py:5132] {text}"


def test_vllm_weights_are_loaded_once_every_loading_rank_has_ended() -> None:
    """Each worker logs its own loader end line: one rank done while another still loads its
    drafter is still weight loading; the last one's end line starts KV sizing."""
    tp1_drafter = _worker("Worker_TP1 pid=96", "Detected MTP model. Sharing target model "
                                               "lm_head weights with the draft model.")
    tp0_done = _worker("Worker_TP0 pid=91", "Model loading took 14.68 GiB memory and 22.8 s")
    tp1_done = _worker("Worker_TP1 pid=96", "Model loading took 14.68 GiB memory and 23.1 s")
    assert _walk("vllm", [tp1_drafter, tp0_done]) is Phase.WEIGHT_LOADING
    assert _walk("vllm", [tp1_drafter, tp0_done, tp1_done]) is Phase.KV_CACHE_ALLOC
    # a fragment with only an end line, and Ray folding the other workers' end into one
    assert _walk("vllm", [tp0_done]) is Phase.KV_CACHE_ALLOC
    folded = _worker("RayWorkerWrapper pid=7, ip=10.0.0.2",
                     "Model loading took 13.2 GiB memory [repeated 7x across cluster]")
    assert _walk("vllm", [tp1_drafter, tp0_done, folded]) is Phase.KV_CACHE_ALLOC


def test_vllm_driver_bar_short_of_its_total_keeps_weight_loading() -> None:
    """Ray runs: the driver's shard bar (untagged) still short of its total when a worker on
    another node logs its end line: the driver is still loading."""
    bar = "Loading safetensors checkpoint shards:  98% Completed | 54/55 [01:01<00:01,  1.15s/it]"
    done = ("(RayWorkerWrapper pid=77774) INFO 07-28 13:56:37 model_runner.py:692] Loading "
            "model weights took 28.7795 GB")
    assert _walk("vllm", [bar, done]) is Phase.WEIGHT_LOADING
    full = bar.replace(" 98%", "100%").replace("54/55", "55/55")
    assert _walk("vllm", [bar, full, done]) is Phase.KV_CACHE_ALLOC


def test_a_cache_flush_refused_for_requests_in_flight_is_serving() -> None:
    """SGLang's flush_cache answering an RL trainer's call with requests running: a built
    scheduler with requests, whatever a weight update's loader printed before it."""
    reload = "Loading pt checkpoint shards:   0% Completed | 0/2 [00:00<?, ?it/s]"
    busy = (f"{TS} Cache not flushed because there are pending requests. #queue-req: 0, "
            "#running-req: 2")
    assert _walk("sglang", [reload, busy]) is Phase.SERVING
    idle = busy.replace("#running-req: 2", "#running-req: 0")
    assert _walk("sglang", [reload, idle]) is Phase.WEIGHT_LOADING


def test_a_checkpoint_tensor_passed_over_by_load_weights_is_weight_loading() -> None:
    line = ("(EngineCore pid=3505) WARNING 04-21 09:41:09 [qwen3_5.py:432] Parameter "
            "visual.blocks.0.attn.qkv.weight not found in params_dict, skip loading")
    assert _walk("vllm", [line]) is Phase.WEIGHT_LOADING


@pytest.mark.parametrize("line", [
    "(VllmWorker rank=0 pid=783) Loading safetensors using Runai Model Streamer:   8% Completed "
    "| 9/118 [00:31<05:05,  2.80s/it]",
    "(VllmWorker rank=7 pid=790) [RunAI Streamer] CPU Buffer size: 3.7 GiB for file: "
    "model-00010-of-00118.safetensors",
    "(StageEngineCoreProc_stage0_replica0 pid=12964) INFO 08-30 12:56:32 [weight_utils.py:792] "
    "Prefetching checkpoint files: 20% (2/4)",
])
def test_vllm_reading_its_checkpoint_files_is_weight_loading(line) -> None:
    assert _walk("vllm", [line]) is Phase.WEIGHT_LOADING


def test_a_moe_layer_built_with_expert_parallelism_is_weight_loading() -> None:
    """FusedMoE's constructor logs its expert placement as the loader builds the model."""
    line = ("(Worker_DP0_TP0_EP0 pid=749) INFO 12-29 03:12:31 [layer.py:494] [EP Rank 0/16] "
            "Expert parallelism is enabled. Expert placement strategy: linear. Local/global "
            "number of experts: 16/256. Experts local to global index map: 0->0, 1->1")
    assert _walk("vllm", [line]) is Phase.WEIGHT_LOADING
    assert _walk("vllm", ["Expert parallelism is disabled."]) is Phase.LAUNCH


@pytest.mark.parametrize("line", [
    "(EngineCore_0 pid=3856547) INFO 10-26 21:47:59 [monitor.py:34] torch.compile takes 3.70 s "
    "in total",
    "(EngineCore pid=83) INFO 07-26 12:29:33 [monitor.py:53] torch.compile took 0.45 s in total",
])
def test_vllm_compile_time_of_the_profiling_run_is_kv_cache_alloc(line) -> None:
    assert _walk("vllm", [line]) is Phase.KV_CACHE_ALLOC


def test_vllm_v1_capturing_one_shape_at_debug_level_is_graph_capture() -> None:
    line = ("vllm     | (Worker_TP0_EP0 pid=42) DEBUG 09-13 16:16:38 [compilation/cuda_graph.py:134] "
            "Capturing a cudagraph on (PIECEWISE,BatchDescriptor(num_tokens=8, "
            "uniform_decode=False))")
    assert _walk("vllm", [line]) is Phase.CUDA_GRAPH_CAPTURE


def test_sglang_pd_warmup_request_from_the_bind_address_is_not_traffic() -> None:
    """A PD server sends its warmup to the address it binds (not loopback): until its end line,
    the request is the warmup's, and the ready line after it is ready, not serving."""
    ts = "[2026-02-26 15:46:16]"
    lines = [f"{ts} INFO:     Uvicorn running on http://10.99.91.49:30001 (Press CTRL+C to quit)",
             f"{ts} Start of pd disaggregation warmup ...",
             f'{ts} INFO:     10.99.91.49:44376 - "POST /generate HTTP/1.1" 200 OK',
             f"{ts} End of prefill disaggregation mode warmup with status 200, resp: [{{}}]",
             f"{ts} The server is fired up and ready to roll!"]
    assert _walk("sglang", lines) is Phase.READY
    # (a client's request after the warmup's end is traffic)
    after = [*lines, f'{ts} INFO:     10.99.91.50:5000 - "POST /generate HTTP/1.1" 200 OK']
    assert _walk("sglang", after) is Phase.SERVING
