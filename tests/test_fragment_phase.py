"""Phase and outcome of fragments from what they carry of requests having run, by kind of line.

Synthetic lines, one kind each (the fifth batch's real logs are in test_classifier.py). A
fragment that nothing dates stays at launch; these are the kinds of evidence that it ran
requests (or died), each checked against the engines' sources.
"""

from __future__ import annotations

import pytest
from classifier_lines import VL, frame_lines, tracker_phase, verdict

from supervisor.diagnosis.classifier import classify_text
from supervisor.diagnosis.normalize import docker_json_records, strip_wrappers
from supervisor.engines import get_engine
from supervisor.states import Cause, Outcome, Phase

_SITE = "/usr/local/lib/python3.10/site-packages"


# --- NCCL watchdog sequence numbers -----------------------------------------------------------

_WATCHDOG_OLD = ("[rank5]:[E226 11:16:37.121617583 ProcessGroupNCCL.cpp:616] [Rank 5] Watchdog "
                 "caught collective operation timeout: WorkNCCL(SeqNum={n}, OpType=ALLREDUCE, "
                 "NumelIn=58720256, NumelOut=58720256, Timeout(ms)=600000) ran for 600028 "
                 "milliseconds before timing out.")
_WATCHDOG_NEW = ("[rank16]:[E214 06:46:21.341531487 ProcessGroupNCCL.cpp:1834] [PG ID 2 PG GUID 3 "
                 "Rank 16] Timeout at NCCL work: {n}, last enqueued NCCL work: {n}, last "
                 "completed NCCL work: {m}.")


def test_watchdog_timeout_of_the_first_collectives_stays_launch() -> None:
    # guard: the distributed init's check (SeqNum=1) and a startup's tens of collectives
    for n in (1, 32):
        assert verdict(_WATCHDOG_OLD.format(n=n), engine="sglang").phase is Phase.LAUNCH
        assert verdict(_WATCHDOG_NEW.format(n=n, m=n - 1), engine="sglang").phase \
            is Phase.LAUNCH


# --- startup markers of old vLLM builds, wrappers ---------------------------------------------

def test_cloud_logging_resource_label_is_stripped() -> None:
    line = ("INFO 2025-11-19T20:16:36.096675816Z [resource.labels.containerName: vllm] "
            "(EngineCore_DP0 pid=270) ERROR 11-19 12:16:36 [v1/engine/core.py:842] File "
            '"/x/vllm/v1/worker/gpu_worker.py", line 507, in compile_or_warm_up_model')
    assert strip_wrappers(line).startswith('File "/x/vllm/v1/worker/gpu_worker.py"')


# --- a PD decode instance's request failures --------------------------------------------------

_MOONCAKE = ("(Worker_DP0_TP5 pid=2543213) ERROR 12-10 03:24:54 [mooncake_connector.py:410] "
             "Mooncake transfer failed for request cmpl-09be0283-e039-40ce-aefa-da0f36c8cd46-0")


def test_kv_connector_failing_a_request_is_serving_traffic() -> None:
    assert tracker_phase(_MOONCAKE) is Phase.SERVING
    v = verdict(_MOONCAKE, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)


# --- live: the exit status of a run whose log ends inside a traceback -------------------------

def test_exit_1_after_traceback_frames_is_not_a_port_in_use() -> None:
    # uvicorn exits 1 without a traceback when it cannot bind; frames of a cut traceback (here
    # the warmup's) say the exit was something else
    text = ("INFO 11-19 12:16:00 [api_server.py:1] Started server process [1]\n"
            '  File "/x/vllm/v1/worker/gpu_worker.py", line 507, in compile_or_warm_up_model\n'
            "    self.model_runner._dummy_sampler_run(hidden_states=last_hidden_states)\n")
    v = classify_text(text, engine="vllm", exit_code=1)
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.WARMUP, Cause.UNKNOWN)


def test_exit_1_with_no_traceback_in_warmup_is_still_a_port_in_use() -> None:
    # guard: the bind failure itself (uvicorn started once the engine was up)
    text = ("INFO 11-19 12:15:58 [api_server.py:1] vLLM API server version 0.11.0\n"
            "INFO 11-19 12:16:00 [api_server.py:1] Started server process [1]\n")
    v = classify_text(text, engine="vllm", exit_code=1)
    assert v.cause is Cause.PORT_IN_USE


# --- the sixth batch's kinds: deaths without a traceback, dated by what they carry -------------

_BUSY_PREFILL = ("[2025-07-02 03:22:34] Prefill batch. #new-seq: 2, #new-token: 32, #cached-token: "
                 "0, token usage: 0.01, #running-req: 45, #queue-req: 81")


# --- one request's application error is no death -----------------------------------------------

_ASGI = ["xinference-server  | Exception in ASGI application",
         "xinference-server  | Traceback (most recent call last):",
         f'xinference-server  |   File "{_SITE}/uvicorn/protocols/http/httptools_impl.py", line '
         "401, in run_asgi",
         "xinference-server  |     result = await app(  # type: ignore[func-returns-value]",
         f'xinference-server  |   File "{_SITE}/starlette/middleware/errors.py", line 165, in '
         "__call__",
         "xinference-server  |     await self.app(scope, receive, _send)"]


def test_request_error_logged_by_uvicorn_is_serving_not_a_crash() -> None:
    v = verdict('xinference-server  | [2025-05-30 17:49:54] INFO:     127.0.0.1:46354 - "POST '
                 '/generate HTTP/1.1" 200 OK', *_ASGI, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)


def test_request_error_during_a_startup_seen_from_the_start_is_not_ready() -> None:
    """With startup markers the run is seen from its start: only its ready line makes it
    ready (the server's own warmup request goes through the app too)."""
    tracker = get_engine("sglang").new_tracker()
    for line in ("[2025-05-30 17:49:00] Load weight begin. avail mem=70.00 GB", _ASGI[0]):
        tracker.feed(line)
    assert not tracker.ready


def _request_frames(*where: tuple[str, str]) -> list[str]:
    """Frames of a traceback whose header (and uvicorn's line above it) a paste cut away."""
    return frame_lines(*where)[1:]


_HANDLER = (f"{_SITE}/starlette/routing.py", "app")
_CHAT = (f"{_SITE}/vllm/entrypoints/openai/serving_chat.py", "create_chat_completion")
_SGLANG_V1 = (f"{_SITE}/sglang/srt/openai_api/adapter.py", "v1_chat_completions")


@pytest.mark.parametrize("where, engine", [
    ((_HANDLER, _CHAT), "vllm"), ((_CHAT,), "vllm"), ((_SGLANG_V1,), "sglang"),
    # (vLLM's 2026 layout, entrypoints/openai/<kind>/serving.py)
    (((f"{_SITE}/vllm/entrypoints/openai/completion/serving.py",
       "completion_stream_generator"),), "vllm"),
    (((f"{_SITE}/sglang/srt/entrypoints/http_server.py", "openai_v1_chat_completions"),
      (f"{_SITE}/sglang/srt/entrypoints/openai/serving_base.py", "handle_request")), "sglang")])
def test_a_request_handlers_traceback_without_its_header_is_serving_not_a_crash(where,
                                                                                  engine) -> None:
    # the paste kept only the frames and the error: the server answered that request with a
    # 500 and went on
    v = verdict(*_request_frames(*where), "ValueError: n must be 1 for this model", engine=engine)
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)


def test_a_handlers_constructor_is_no_request() -> None:
    # guard: vLLM builds its OpenAI handlers at startup (OpenAIServingChat.__init__ loading the
    # chat template): an error there is a launch's
    v = verdict(*frame_lines((f"{_SITE}/vllm/entrypoints/openai/serving_chat.py", "__init__")),
                "ValueError: the chat template could not be read", engine="vllm")
    assert v.outcome is Outcome.CRASHED


def test_a_request_handlers_traceback_during_a_startup_is_still_a_crash() -> None:
    # guard: with startup markers and no ready line, the request is the server's own warmup,
    # whose failure ends the startup
    v = verdict("[2025-05-30 17:49:00] Load weight begin. avail mem=70.00 GB",
                *frame_lines(_SGLANG_V1), "ValueError: bad request", engine="sglang")
    assert v.outcome is Outcome.CRASHED


def test_the_engine_loops_death_carried_by_a_request_is_a_crash() -> None:
    # vLLM V0: the background loop's error re-raised into the request in flight, chained to
    # the request's own traceback: the engine died, not one request
    loop = frame_lines((f"{_SITE}/vllm/engine/async_llm_engine.py", "_raise_exception_on_finish"),
                       (f"{_SITE}/vllm/engine/async_llm_engine.py", "run_engine_loop"))[1:]
    v = verdict(*loop, "asyncio.exceptions.TimeoutError", "",
                "The above exception was the direct cause of the following exception:", "",
                *frame_lines((f"{_SITE}/uvicorn/protocols/http/httptools_impl.py", "run_asgi"),
                             _HANDLER), "vllm.engine.async_llm_engine.AsyncEngineDeadError: "
                "Task finished unexpectedly.", engine="vllm")
    assert v.outcome is Outcome.CRASHED


def test_an_exception_groups_boxed_error_is_read_as_an_error() -> None:
    # the error line in an exception group's box is indented like source code under a frame;
    # the box's text starts at its edge
    box = ["  |   File \"/home/u/vllm/vllm/engine/multiprocessing/client.py\", line 598, in "
           "_process_request", "  |     raise request_output",
           "  | vllm.engine.multiprocessing.MQEngineDeadError: Engine loop is not running."]
    v = verdict(*[f"  |   File \"{p}\", line 10, in {f}" for p, f in (_CHAT,)], *box,
                engine="vllm")
    assert v.outcome is Outcome.CRASHED
    assert any("MQEngineDeadError" in line for line in v.evidence)


# --- stacks of a live process, tracebacks as IPython shows them ---------------------------------

_PYSPY = ["Process 231810: sglang::scheduler_DP1_TP3", "Python v3.10.12 (/usr/bin/python3.10)",
          'Thread 231810 (active): "MainThread"',
          "    draft (sglang/srt/speculative/eagle_worker.py:397)",
          "    forward_batch_speculative_generation (eagle_worker.py:267)",
          "    run_batch (sglang/srt/managers/scheduler.py:1573)",
          "    event_loop_normal (sglang/srt/managers/scheduler.py:646)",
          "    run_scheduler_process (sglang/srt/managers/scheduler.py:2313)"]


def test_a_py_spy_dump_dates_the_phase_and_is_no_death() -> None:
    # py-spy shows a process still running: its frames date the phase (the scheduler's event
    # loop: serving), but the log does not end inside a traceback, and the draft's frames name
    # no cause of a stall
    v = verdict(*_PYSPY, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.INCOMPLETE, Phase.SERVING, Cause.UNKNOWN)


def test_a_py_spy_dump_of_the_warmup_batch_stays_warmup() -> None:
    # the watchdog's stuck batch of one request before ready is SGLang's warmup: the event
    # loop's frames in the dump that follows ran the warmup
    stuck = ("[2025-06-05 08:28:03 DP3 TP7] self.cur_batch.batch_size()=1, self.cur_batch.reqs="
             "[Req(rid=713801f4, input_ids=[0, 671, 6102, 4593, 294, 8760, 344], output_ids=[1])]")
    assert verdict(stuck, *_PYSPY, engine="sglang").phase is Phase.WARMUP


def test_ipython_frames_are_read_as_a_traceback() -> None:
    # a notebook's traceback, its header and error cut: IPython's `File PATH:LINE, in
    # Class.method(args)` frames, the log ends inside them
    v = verdict("    347 if not self.model_config.embedding_mode:",
                "    348     self._initialize_kv_caches()",
                "File ~/envs/v/lib/python3.10/site-packages/vllm/executor/"
                "distributed_gpu_executor.py:26, in DistributedGPUExecutor.__init__(self, *args)",
                "     24 def __init__(self, *args, **kwargs):", engine="vllm")
    assert v.outcome is Outcome.CRASHED
    assert any("distributed_gpu_executor.py:26" in line for line in v.evidence)


def test_jupyterlabs_linked_frames_are_read_as_frames() -> None:
    # JupyterLab pastes each frame's path as a link (`File [PATH:LINE](URL), in ...`): the
    # cache engine's allocation in it dates the failure to the KV cache, not the launch
    v = verdict("File [~/envs/q/lib/python3.11/site-packages/vllm/worker/cache_engine.py:64]"
                "(http://10.0.0.1:8888/lab/tree/envs/q/lib/python3.11/site-packages/vllm/worker/"
                "cache_engine.py#line=63), in CacheEngine._allocate_kv_cache(self, num_blocks)",
                "---> 64         torch.empty(kv_cache_shape,",
                "OutOfMemoryError: CUDA out of memory. Tried to allocate 642.00 MiB.",
                engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC,
                                             Cause.CUDA_OOM)


def test_sglangs_prefix_tree_built_on_the_pools_is_kv_cache_alloc() -> None:
    v = verdict(*frame_lines((f"{_SITE}/sglang/srt/managers/scheduler.py",
                              "init_cache_with_memory_pool"),
                             (f"{_SITE}/sglang/srt/mem_cache/mamba_radix_cache.py", "__init__")),
                "AssertionError", engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC)


# --- a paste that begins at its error ----------------------------------------------------------

_OOM_FIRST = ("torch.cuda.OutOfMemoryError: [address=0.0.0.0:43411, pid=101] CUDA out of memory. "
              "Tried to allocate 70.00 MiB.")
_V0_CAPTURE = ("INFO 07-11 13:46:49 model_runner.py:854] Capturing the model for CUDA graphs. "
               "This may lead to unexpected consequences if the model is not static.")


def test_error_pasted_above_the_lines_it_followed_is_a_crash() -> None:
    v = verdict(_OOM_FIRST, _V0_CAPTURE, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.CUDA_GRAPH_CAPTURE,
                                             Cause.CUDA_OOM)


def test_error_first_then_a_stop_on_request_is_no_crash() -> None:
    v = verdict(_OOM_FIRST, _V0_CAPTURE, "INFO 07-11 13:46:50 launcher.py:1] Received SIGTERM, "
                 "shutting down", engine="vllm")
    assert v.outcome is not Outcome.CRASHED


# --- vLLM with separate API server processes ---------------------------------------------------

_ENGINES_UP = ("(EngineCore_0 pid=245165) INFO 06-22 23:19:36 [core.py:172] init engine (profile, "
               "create kv cache, warmup model) took 2.55 seconds")
_WAIT_API = "INFO 06-22 23:19:37 [utils.py:569] Waiting for API servers to complete ..."


# --- a Ray actor's traceback flattened into one line -------------------------------------------

def test_flattened_ray_traceback_is_read_frame_by_frame() -> None:
    w = "(SGLangWorker pid=38138)"
    mr = f"{_SITE}/sglang/srt/model_executor/model_runner.py"
    line = " ".join([
        f'{w} Traceback (most recent call last): {w} File "{mr}", line 233, in **init**',
        f"{w} self.initialize(min_per_gpu_memory) {w} File \"{mr}\", line 314, in initialize",
        f"{w} self.init_cuda_graphs() {w} File \"{mr}\", line 500, in init_cuda_graphs",
        f"{w} self.cuda_graph_runner = CudaGraphRunner(self) {w} Exception: Capture cuda graph "
        "failed: Internal Triton PTX codegen error"])
    v = verdict(line, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.CUDA_GRAPH_CAPTURE)


def test_flattened_vllm_worker_records_glued_without_a_space_are_split() -> None:
    # a paste that lost its newlines, each record's process prefix glued to the one before
    w = "(VllmWorker rank=0 pid=234357)"
    h = "ERROR 09-26 01:47:48 [multiproc_executor.py:546]"
    line = "".join([
        f"{w} object_tensor = torch.frombuffer(pickle.dumps(obj), dtype=torch.uint8)",
        f"{w} {h} WorkerProc hit an exception.",
        f'{w} {h}   File "{_SITE}/vllm/v1/executor/multiproc_executor.py", line 541, in '
        "worker_busy_loop",
        f"{w} {h}     output = func(*args, **kwargs)",
        f'{w} {h}   File "{_SITE}/vllm/v1/worker/gpu_worker.py", line 207, in execute_model',
        f"{w} {h} RuntimeError: send failed"])
    v = verdict(line, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)


def test_a_crash_after_the_api_server_listed_its_routes_is_past_warmup() -> None:
    # the routes are listed once the engine is up: whatever killed it after, it got there
    v = verdict("INFO 04-07 02:07:25 [launcher.py:34] Route: /v1/models, Methods: GET",
                "RuntimeError: the engine died", engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.WARMUP)


_SEGV_DUMP = ["Fatal Python error: Segmentation fault", "",
              "Thread 0x00007fb60fffe640 (most recent call first):",
              f'  File "{_SITE}/sglang/srt/managers/scheduler.py", line 461 in watchdog_thread',
              '  File "/usr/lib/python3.10/threading.py", line 953 in run', "",
              "Current thread 0x00007fb617fff640 (most recent call first):",
              f'  File "{_SITE}/torch/distributed/distributed_c10d.py", line 2501 in all_reduce',
              f'  File "{_SITE}/sglang/srt/distributed/parallel_state.py", line 410 in all_reduce']


def test_a_segfault_inside_a_collective_is_an_nccl_error_of_a_built_scheduler() -> None:
    # faulthandler's dump: the current thread died in torch.distributed's all_reduce (the native
    # crash is NCCL's); the scheduler's watchdog thread runs only once the scheduler is built
    v = verdict(*_SEGV_DUMP, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.WARMUP, Cause.NCCL_ERROR)


def test_a_segfault_elsewhere_is_not_an_nccl_error() -> None:
    dump = [*_SEGV_DUMP[:6], f'  File "{_SITE}/sglang/srt/models/llama.py", line 90 in forward']
    assert verdict(*dump, engine="sglang").cause is not Cause.NCCL_ERROR


# --- the seventh batch's kinds ------------------------------------------------------------------


_STATS = ("INFO 08-28 02:29:15 [loggers.py:118] Engine 000: Avg prompt throughput: 0.5 tokens/s, "
          "Avg generation throughput: 0.1 tokens/s, Running: 0 reqs, Waiting: 0 reqs, GPU KV "
          "cache usage: 0.1%, Prefix cache hit rate: 0.0%")


def test_vllm_dump_of_a_failed_step_is_a_crash_in_serving() -> None:
    for dump in ("Dumping input data", "Dumping input data for V1 LLM engine (v0.9.1) with "
                 "config: model='m', "):
        v = verdict(_STATS, f"(EngineCore_0 pid=2) ERROR 08-28 02:34:09 [dump_input.py:69] {dump}",
                     engine="vllm")
        assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), dump


def test_colour_codes_and_carriage_returns_shown_as_caret_text_are_stripped() -> None:
    line = ("^[[0;36m(APIServer pid=1)^[[0;0m ERROR 07-28 01:29:15 [async_llm.py:538] "
            "vllm.v1.engine.exceptions.EngineDeadError: EngineCore encountered an issue.^M")
    assert strip_wrappers(line) == ("vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
                                    "encountered an issue.")
    v = verdict(line, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.READY)


# a vLLM V0 multiproc worker's error prefix (its pid is the placeholder)
_W = "(VllmWorkerProcess pid=2368{}) ERROR 12-08 23:22:14 multiproc_worker_utils.py:229] "


# --- one fragment each: its outcome and phase -----------------------------------------------------

@pytest.mark.parametrize(("lines", "engine", "outcome", "phase"), [
    # NCCL watchdog sequence numbers:
    pytest.param(
        (_WATCHDOG_OLD.format(n=5653),),
        "sglang", Outcome.CRASHED, Phase.SERVING,
        id="watchdog-timeout-after-thousands-of-collectives-is-serving"),
    # frames of code that runs only on requests:
    pytest.param(
        ("Exception in callback functools.partial(<function _raise_exception_on_finish at 0x7f>)",
         *frame_lines((f"{_SITE}/vllm/engine/async_llm_engine.py", "_raise_exception_on_finish")),
         "torch.cuda.OutOfMemoryError: CUDA out of memory. Tried to allocate 96.00 MiB."),
        "vllm", Outcome.CRASHED, Phase.SERVING, id="vllm-v0-background-loop-callback-is-serving"),
    pytest.param(
        ("(EngineCore pid=652) ERROR 05-20 20:35:26 [core.py:1161] EngineCore "
         "encountered a fatal error.",
         "(APIServer pid=539) vllm.v1.engine.exceptions.EngineDeadError: EngineCore "
         "encountered an issue. See stack trace (above) for the root cause."),
        # (the busy loop's own report: serving, as 24 of the 25 labelled logs that show it)
        "vllm", Outcome.CRASHED, Phase.SERVING,
        id="v1-engine-cores-fatal-error-comes-from-its-busy-loop"),
    # deaths reported without a traceback:
    pytest.param(
        ('INFO:     10.0.0.4:5 - "POST /v1/chat/completions HTTP/1.0" 200 OK',
         "CRITICAL 02-12 10:00:00 launcher.py:99] MQLLMEngine is already dead, "
         "terminating server process"),
        "vllm", Outcome.CRASHED, Phase.SERVING,
        id="v0-api-server-finding-its-engine-dead-is-a-crash"),
    # the sixth batch's kinds: deaths without a traceback, dated by what they carry:
    pytest.param(
        (_BUSY_PREFILL, "Memory access fault by GPU node-2 (Agent handle: 0xdedb180) on "
         "address 0x7f57d9a00000. Reason: Unknown."),
        "sglang", Outcome.CRASHED, Phase.SERVING,
        id="rocm-memory-access-fault-while-serving-is-a-crash"),
    pytest.param(
        ("INFO 12-16 10:12:47 [__init__.py:216] Automatically detected platform cuda.",
         'E1216 02:12:49.624646 179 model.py:248] "[vllm] Failed to start engine: '
         'NoneType: None\\n"'),
        "vllm", Outcome.CRASHED, Phase.LAUNCH,
        id="triton-vllm-backend-failing-to-start-its-engine-is-a-crash"),
    # A fragment with no startup marker: the 500 of the request in flight comes after the report
    # of the dead engine, and the server had been up all along.
    pytest.param(
        ("ERROR 12-01 13:05:02 client.py:282] RuntimeError('Engine process (pid 76) "
         "died.')", "ERROR 12-01 13:05:02 client.py:282] NoneType: None",
         "CRITICAL 12-01 13:05:02 launcher.py:99] MQLLMEngine is already dead, "
         "terminating server process",
         'INFO:     10.42.0.118:60606 - "POST /v1/completions HTTP/1.1" 500 Internal '
         "Server Error", "INFO:     Shutting down"),
        "vllm", Outcome.CRASHED, Phase.SERVING,
        id="v0-engine-death-reported-above-the-failed-request-is-a-crash-in-serving"),
    pytest.param(
        ("[2026-03-07 03:03:55 TP9 EP9] Scheduler hit an exception: Traceback (most "
         "recent call last):",
         f'  File "{_SITE}/sglang/srt/managers/scheduler.py", line 3253, in '
         "run_scheduler_process", "    scheduler.run_event_loop()",
         "AssertionError"),
        "sglang", Outcome.CRASHED, Phase.SERVING,
        id="sglang-scheduler-event-loop-entry-is-serving"),
    pytest.param(
        ("[2026-08-06 02:49:32] Engine startup timings (s): load_weight=16.00, "
         "kv_cache_allocation=0.48, scheduler_e2e=35.97, cuda_graph={prefill=0.00}",
         "[2026-08-06 02:49:32] Scheduler hit an exception: Traceback (most recent call "
         "last):",
         *frame_lines((f"{_SITE}/sglang/srt/managers/scheduler.py", "run_scheduler_process"),
                  (f"{_SITE}/sglang/srt/managers/scheduler.py", "run_event_loop")),
         "AttributeError: 'runtime_knobs' object has no attribute 'x'"),
        "sglang", Outcome.CRASHED, Phase.WARMUP,
        id="sglang-startup-timings-then-event-loop-failure-is-warmup"),
    pytest.param(
        ('.../sglang/python/sglang/srt/speculative/eagle_info.py", line 781, in '
         "merge_batch", "    self.hidden_states = torch.cat(",
         "RuntimeError: Sizes of tensors must match except in dimension 0.",
         "[2025-11-22 10:52:56] SIGQUIT received. signum=None, frame=None. It usually "
         "means one child failed."),
        "sglang", Outcome.CRASHED, Phase.SERVING, id="sglang-merge-batch-frame-is-serving"),
    pytest.param(
        ("ERROR 03-31 15:19:44 [async_llm_engine.py:68] torch.OutOfMemoryError: CUDA out "
         "of memory. Tried to allocate 318.00 MiB.",
         "Exception in callback _log_task_completion(error_callback=<bound method...>)("
         "<Task finishe...>) at /x/vllm/engine/async_llm_engine.py:45",
         "Traceback (most recent call last):"),
        "vllm", Outcome.CRASHED, Phase.SERVING, id="vllm-v0-engine-loop-done-callback-is-serving"),
    # one request's application error is no death:
    pytest.param(
        (*_ASGI, "xinference-server  | ValueError: bad logprobs",
         "[2025-05-30 17:50:00] Scheduler hit an exception: Traceback (most recent call "
         "last):", *frame_lines((f"{_SITE}/sglang/srt/managers/scheduler.py",
                             "event_loop_normal")),
         "RuntimeError: CUDA error: an illegal memory access was encountered"),
        "sglang", Outcome.CRASHED, Phase.SERVING,
        id="request-error-then-a-scheduler-death-is-still-a-crash"),
    # vLLM with separate API server processes:
    pytest.param(
        (_ENGINES_UP, _WAIT_API),
        "vllm", Outcome.INCOMPLETE, Phase.WARMUP,
        id="engines-up-while-api-servers-start-is-not-ready"),
    # the seventh batch's kinds:
    # SGLang's rpyc model servers of early 2024 log `Rank 1: load weight begin.`
    pytest.param(
        ("2024-02-20 11:42:02 | INFO | MODELRPCSERVER/10015 | welcome ('127.0.0.1', 1)",
         "2024-02-20 11:42:05 | INFO | model_runner | Rank 1: load weight begin."),
        "sglang", Outcome.INCOMPLETE, Phase.WEIGHT_LOADING,
        id="sglang-2024-lowercase-load-weight-begin-is-weight-loading"),
    pytest.param(
        ('[rank0]: File "/w/vllm/worker/hpu_model_runner.py", line 2904, in warmup_model',
         "[rank0]: self.warmup_graphs(",
         '[rank0]: File "/w/vllm/worker/hpu_model_runner.py", line 2714, in warmup_graphs',
         "[rank0]: raise NotImplementedError",
         "[rank0]: NotImplementedError"),
        "vllm", Outcome.CRASHED, Phase.WARMUP, id="hpu-model-runner-warmup-frames-are-warmup"),
    pytest.param(
        ('  File "/x/vllm/model_executor/layers/quantization/awq_marlin.py", line 141, '
         "in get_quant_method",
         "    logger.warning_one(",
         "AttributeError: 'Logger' object has no attribute 'warning_one'"),
        "vllm", Outcome.CRASHED, Phase.WEIGHT_LOADING,
        id="quantization-method-chosen-while-a-layer-is-built-is-weight-loading"),
    pytest.param(
        ('INFO:     10.0.0.2:36750 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
         "[7018] [2025-12-19 14:29:37:967] torch.distributed: [ERROR] [7186] Find "
         "exception when finishedNPUExecutionInternal, query:build/x.ts:59 NPU function "
         "error: acl::AclQueryEventRecordedStatus(event_, &currStatus), error code is "
         "507011",
         "[ERROR] 2025-12-19-14:29:37 (PID:7018, Device:2, RankID:-1) ERR00100 PTA call "
         "acl api failed"),
        "vllm", Outcome.CRASHED, Phase.SERVING, id="torch-npu-watchdog-exception-is-a-crash"),
    pytest.param(
        ("[2025-04-23 20:31:56 TP0] Decode batch. #running-req: 1, #token: 469, token "
         "usage: 0.02, gen throughput (token/s): 36.08, #queue-req: 0,",
         "ERROR:xoscar.api:Destroy generator eab6f4f0 due to an error encountered.",
         "Traceback (most recent call last):",
         '  File "/x/xoscar/api.py", line 419, in __xoscar_next__',
         "    r = await asyncio.create_task(_async_wrapper(gen))",
         '  File "/x/xinference/model/llm/sglang/core.py", line 472, in stream_results'),
        "sglang", Outcome.READY, Phase.SERVING,
        id="xinference-stream-error-is-one-request-not-a-death"),
    # the eighth batch's kinds:
    # several workers' tracebacks interleaved line by line: a source line away from its frame
    pytest.param(
        (_W.format(1) + "    output = executor(*args, **kwargs)",
         _W.format(2) + "Traceback (most recent call last):",
         _W.format(0) + "    self.model_runner.profile_run()",
         _W.format(2) + f'  File "{_SITE}/vllm/executor/multiproc_worker_utils.py", line 223, '
         "in _run_worker_process",
         _W.format(1) + f'  File "{_SITE}/torch/utils/_contextlib.py", line 116, in '
         "decorate_context"),
        "vllm", Outcome.CRASHED, Phase.KV_CACHE_ALLOC,
        id="interleaved-workers-source-line-of-the-profile-run-is-kv-cache-alloc"),
    pytest.param(
        (_W.format(1) + "Traceback (most recent call last):",
         _W.format(0) + "Traceback (most recent call last):",
         _W.format(1) + "    self.model_runner.load_model()",
         _W.format(0) + f'  File "{_SITE}/vllm/worker/worker_base.py", line 465, in '
         "init_worker"),
        "vllm", Outcome.CRASHED, Phase.WEIGHT_LOADING,
        id="interleaved-workers-source-line-of-the-model-load-is-weight-loading"),
    # SGLang's piecewise-capture advice ends one rank's error; a paste that starts inside it
    # shows the next rank's scheduler exception after it
    pytest.param(
        ("  To work around this error, add --disable-piecewise-cuda-graph to your launch "
         "command.",
         "[2026-06-10 12:47:55 TP4] Scheduler hit an exception: Traceback (most recent call "
         "last):",
         *frame_lines((f"{_SITE}/sglang/srt/managers/scheduler.py", "run_scheduler_process"),
                      (f"{_SITE}/sglang/srt/model_executor/model_runner.py", "__init__"))[1:]),
        "sglang", Outcome.CRASHED, Phase.CUDA_GRAPH_CAPTURE,
        id="piecewise-advice-above-the-scheduler-exception-is-capture"),
])
def test_a_fragment_has_its_outcome_and_phase(lines, engine, outcome, phase) -> None:
    v = verdict(*lines, engine=engine)
    assert (v.outcome, v.phase) == (outcome, phase)


# --- one fragment each: its phase -----------------------------------------------------------------

@pytest.mark.parametrize(("lines", "engine", "phase"), [
    # NCCL watchdog sequence numbers:
    pytest.param(
        (_WATCHDOG_NEW.format(n=9301, m=9300),),
        "sglang", Phase.SERVING, id="watchdog-work-number-of-newer-torch-counts-like-seqnum"),
    # frames of code that runs only on requests:
    pytest.param(
        (*frame_lines((f"{_SITE}/vllm/worker/worker_base.py", "start_worker_execution_loop"),
                  (f"{_SITE}/vllm/worker/worker_base.py", "execute_model")),
         "RuntimeError: boom"),
        "vllm", Phase.SERVING, id="vllm-v0-worker-execution-loop-is-serving"),
    pytest.param(
        (*frame_lines((f"{_SITE}/sglang/srt/managers/schedule_batch.py",
                   "get_model_worker_batch")),
         "RuntimeError: CUDA error: an illegal memory access was encountered"),
        "sglang", Phase.SERVING, id="sglang-batch-path-without-markers-is-serving"),
    # Ray's deduplicated summary of earlier capture lines, printed as the actor dies
    pytest.param(
        (*frame_lines((f"{_SITE}/sglang/srt/managers/schedule_batch.py",
                   "get_model_worker_batch")),
         "RuntimeError: CUDA error: an illegal memory access was encountered",
         "[2025-05-23 18:02:42] Received sigquit from a child process. It usually means "
         "the child failed.",
         "Capturing batches (avail_mem=29.01 GB):  87%|########6 | 20/23 [00:07<00:00, "
         " 3.19it/s] [repeated 22x across cluster]"),
        "sglang", Phase.SERVING, id="marker-printed-after-the-death-does-not-cap-at-warmup"),
    # guard: SGLang's warmup request takes the same path
    pytest.param(
        ("[2025-05-23 18:00:00 TP0] Load weight begin. avail mem=70.00 GB",
         "[2025-05-23 18:00:10 TP0] Capture cuda graph end. Time elapsed: 3.00 s",
         *frame_lines((f"{_SITE}/sglang/srt/managers/scheduler.py", "run_batch"),
                  (f"{_SITE}/sglang/srt/managers/schedule_batch.py",
                   "get_model_worker_batch")),
         "RuntimeError: boom"),
        "sglang", Phase.WARMUP, id="sglang-batch-path-after-startup-markers-is-still-the-warmup"),
    pytest.param(
        (*frame_lines(("/work/verl/verl/trainer/main_ppo.py", "main_task"),
                  ("/work/verl/verl/trainer/ppo/ray_trainer.py", "fit")),
         "ray.exceptions.RayTaskError(OutOfMemoryError): ray::main_task() (pid=5, "
         "ip=10.1.200.6)"),
        "sglang", Phase.SERVING, id="rl-trainer-loop-is-serving"),
    # a tensor op routed by torch's default-device context: the loader building the model
    pytest.param(
        (*frame_lines((f"{_SITE}/vllm/executor/executor_base.py", "__init__"),
                  (f"{_SITE}/torch/utils/_device.py", "__torch_function__")),
         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 136.00 MiB."),
        "vllm", Phase.WEIGHT_LOADING, id="a-default-device-context-is-the-model-being-built"),
    # guard: the same context around a later phase's frames keeps the later phase
    pytest.param(
        (*frame_lines((f"{_SITE}/sglang/srt/model_executor/cuda_graph_runner.py", "__init__"),
                  (f"{_SITE}/torch/utils/_device.py", "__torch_function__")),
         "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 36.00 MiB."),
        "sglang", Phase.CUDA_GRAPH_CAPTURE, id="a-default-device-context-under-capture-is-capture"),
    # the twenty-eighth batch: the scheduler building the draft worker after the target's pool
    pytest.param(
        ("[2025-08-11 12:58:54 TP0] Scheduler hit an exception: Traceback (most recent call "
         "last):", f'  File "{_SITE}/sglang/srt/managers/scheduler.py", line 327, in __init__',
         "    self.draft_worker = EAGLEWorker("),
        "sglang", Phase.KV_CACHE_ALLOC, id="the-scheduler-building-its-draft-worker-is-past-the-pool"),
    # V1's Ray executor: the future of a step's output the busy loop waits on
    pytest.param(
        (*frame_lines((f"{_SITE}/vllm/v1/executor/ray_utils.py", "result"),
                  (f"{_SITE}/ray/_private/worker.py", "get")),
         "ray.exceptions.RayTaskError(KeyError): ray::RayWorkerWrapper.execute_method()"),
        "vllm", Phase.SERVING, id="the-ray-executors-step-future-is-serving"),
    # V0's model runner running the model: the profile run first, once every worker loaded
    pytest.param(
        ("(RayWorkerWrapper pid=16311) INFO 08-02 01:43:14 model_runner.py:680] Starting to "
         "load model /models/llama",
         *frame_lines((f"{_SITE}/vllm/worker/model_runner.py", "execute_model"),
                  (f"{_SITE}/vllm/model_executor/models/llama.py", "forward")),
         "RuntimeError: boom"),
        "vllm", Phase.KV_CACHE_ALLOC, id="a-v0-model-runner-running-the-model-is-past-loading"),
    # an operation the runtime refuses while a graph is being captured
    pytest.param(
        (*frame_lines((f"{_SITE}/vllm/worker/habana_worker.py", "_warm_up_model")),
         "RuntimeError: collective nonSFG is not supported during hpu graph capturing"),
        "vllm", Phase.CUDA_GRAPH_CAPTURE, id="refused-during-graph-capturing-is-capture"),
    # SGLang-JAX's lazy loader and its bar
    pytest.param(
        ("[2026-01-06 07:50:27 TP0] Starting parallel weight loading via JAX Lazy Loader...",
         "Loading Regular Weights:   3%|#        | 9/314 [00:00<00:09, 33.09it/s]"),
        "sglang", Phase.WEIGHT_LOADING, id="a-jax-lazy-loader-is-weight-loading"),
    # guard: a core that dies in startup fails the client's construction, no EngineDeadError
    pytest.param(
        ("RuntimeError: Engine core initialization failed. See root cause above.",),
        "vllm", Phase.LAUNCH, id="engine-initialization-failure-stays-launch"),
    # guard: an indented line far from any traceback is no source line (a config dump's)
    pytest.param(
        (*frame_lines((f"{_SITE}/vllm/entrypoints/openai/api_server.py", "run_server")),
         "RuntimeError: boom", "INFO 12-08 23:22:15 api_server.py:1] args:",
         "INFO 12-08 23:22:15 api_server.py:1] note", "INFO 12-08 23:22:15 api_server.py:1] x",
         "    profile_run(enabled)"),
        "vllm", Phase.LAUNCH, id="indented-line-far-from-a-traceback-is-no-source-line"),
])
def test_a_fragment_has_its_phase(lines, engine, phase) -> None:
    assert verdict(*lines, engine=engine).phase is phase


# --- one fragment each: its outcome ---------------------------------------------------------------

@pytest.mark.parametrize(("lines", "engine", "outcome"), [
    # deaths reported without a traceback:
    pytest.param(
        ("[rank6]:[E1113 23:24:11.476061221 ProcessGroupNCCL.cpp:2068] [PG ID 2 PG GUID 3 "
         "Rank 6] Process group watchdog thread terminated with exception: CUDA error: an "
         "illegal memory access was encountered",),
        "sglang", Outcome.CRASHED, id="nccl-watchdog-thread-ending-on-an-error-is-a-crash"),
    # the sixth batch's kinds: deaths without a traceback, dated by what they carry:
    pytest.param(
        ("[rank3]:[W1031 21:35:04.838006795 compiler_depend.ts:57] Warning: EZ9999: Inner "
         "Error!", "       Kernel task happen error, retCode=0x31, [vector core "
         "exception].[FUNC:PreCheckTaskErr][FILE:davinci_kernel_task.cc][LINE:1539]"),
        "sglang", Outcome.CRASHED, id="ascend-kernel-task-error-is-a-crash"),
    # Only a report of a death counts back to a mid-run fragment's first line, not an error line
    # the server survived.
    pytest.param(
        ("[2025-09-24 05:48:14] Health check failed. Server couldn't get a response from "
         "detokenizer for last 20 seconds.",
         '[2025-09-24 05:48:56] INFO:     10.109.14.1:43954 - "POST /v1/chat/completions '
         'HTTP/1.1" 200 OK'),
        "sglang", Outcome.READY, id="unhealthy-probe-before-later-traffic-is-no-crash"),
    # vLLM with separate API server processes:
    pytest.param(
        (_ENGINES_UP, _WAIT_API, "(ApiServer_0 pid=245170) INFO 06-22 23:19:45 "
         "[launcher.py:28] Available routes are:", "(ApiServer_0 pid=245170) INFO "
         "06-22 23:19:45 [launcher.py:36] Route: /openapi.json, Methods: HEAD, GET"),
        "vllm", Outcome.READY, id="api-server-up-after-the-wait-is-ready"),
    # one streamed response failing in vLLM's OpenAI layer: that request's error
    pytest.param(
        ("(APIServer pid=78) INFO 02-05 08:06:45 [loggers.py:257] Engine 000: Avg prompt "
         "throughput: 1852.2 tokens/s, Avg generation throughput: 3.1 tokens/s, Running: 1 reqs, "
         "Waiting: 0 reqs, GPU KV cache usage: 2.3%, Prefix cache hit rate: 0.0%",
         "(APIServer pid=78) ERROR 02-05 08:06:47 [serving_chat.py:1343] Error in chat "
         "completion stream generator.",
         "(APIServer pid=78) ERROR 02-05 08:06:47 [serving_chat.py:1343] Traceback (most recent "
         "call last):"),
        "vllm", Outcome.READY, id="a-streamed-responses-error-is-no-death"),
])
def test_a_fragment_has_its_outcome(lines, engine, outcome) -> None:
    assert verdict(*lines, engine=engine).outcome is outcome


# --- one fragment each: the vLLM tracker's phase on the lines -------------------------------------

@pytest.mark.parametrize(("lines", "phase"), [
    # startup markers of old vLLM builds, wrappers:
    pytest.param(
        ("(VllmWorkerProcess pid=1222518) INFO 08-17 23:29:30 model_runner.py:1007] Capturing "
         "the model for CUDA graphs. This may lead to unexpected consequences if the model is "
         "not static.",),
        Phase.CUDA_GRAPH_CAPTURE, id="vllm-v0-capture-message-is-capture"),
    pytest.param(
        ("INFO 01-24 14:52:55 weight_utils.py:164] Using model weights format "
         "['*.safetensors']",),
        Phase.WEIGHT_LOADING, id="vllm-v0-weights-format-is-weight-loading"),
    # the loader downloading the files the hub cache lacks, on a Ray worker of a V1 engine
    pytest.param(
        ("(EngineCore_DP0 pid=1769) (RayWorkerWrapper pid=405) INFO 11-13 06:21:04 "
         "[weight_utils.py:441] Time spent downloading weights for rednote-hilab/dots.ocr: "
         "170.155065 seconds",),
        Phase.WEIGHT_LOADING, id="vllm-weights-download-time-is-weight-loading"),
    # vLLM-Ascend's ACL graph capture: its start line and its bar (t309)
    pytest.param(("(EngineCore_DP0 pid=9) INFO 10-11 14:53:58 [model_runner_v1.py:3021] Starting "
                  "to capture ACL graphs for cases: [8, 4, 2, 1], mode: FULL",),
                 Phase.CUDA_GRAPH_CAPTURE, id="vllm-ascend-acl-capture-start-is-capture"),
    pytest.param(("Capturing ACL graphs (decode, FULL):  14%|\u2588\u258d        | 1/7 [00:03<00:21,"
                  "  3.67s/it]",),
                 Phase.CUDA_GRAPH_CAPTURE, id="vllm-ascend-acl-capture-bar-is-capture"),
    # late-2025 builds naming the attention backend as the model's layers are built
    pytest.param(
        ("(EngineCore_DP0 pid=1356) (RayWorkerWrapper pid=383, ip=192.168.200.12) INFO 02-04 "
         "18:47:06 [cuda.py:345] Using AttentionBackendEnum.FLASHINFER backend.",),
        Phase.WEIGHT_LOADING, id="vllm-attention-backend-enum-is-weight-loading"),
    pytest.param(("INFO 11-13 06:18:13 [cuda.py:417] Using FLASH_ATTN backend.",),
                 Phase.WEIGHT_LOADING, id="vllm-attention-backend-name-is-weight-loading"),
    # guard: V0's words for its choice, logged by the model runner before it loads
    pytest.param(("INFO 08-17 23:29:30 selector.py:135] Using Flash Attention backend.",),
                 Phase.LAUNCH, id="vllm-v0-attention-backend-words-stay-launch"),
    # the Spyre plugin's worker starting its load_model, in its two forms
    pytest.param(("INFO 03-17 18:51:10 [spyre_worker.py:200] load model...",),
                 Phase.WEIGHT_LOADING, id="vllm-spyre-load-model-is-weight-loading"),
    pytest.param(("[SpyreWorker] load model...",),
                 Phase.WEIGHT_LOADING, id="vllm-spyre-tagged-load-model-is-weight-loading"),
    # guard: the words inside another message
    pytest.param(("INFO 03-17 18:51:10 [api_server.py:9] will load model... later",),
                 Phase.LAUNCH, id="vllm-load-model-words-inside-a-message-stay-launch"),
    # a PD decode instance's request failures:
    # guard: a connector's own setup failing names no client's request
    pytest.param(
        ("ERROR 12-10 03:24:54 [mooncake_connector.py:200] Mooncake transfer "
         "engine failed to initialize",),
        Phase.LAUNCH, id="kv-connector-failure-without-a-request-is-not-traffic"),
    # the sixth batch's kinds: deaths without a traceback, dated by what they carry:
    pytest.param(
        ("INFO 06-29 08:29:08 [gpu_model_runner.py:2195] Encoder cache will be initialized with "
         "a budget of 16384 tokens, and profiled with 1 image items of the maximum feature "
         "size.",),
        Phase.KV_CACHE_ALLOC, id="vllm-encoder-cache-profiling-is-kv-cache-alloc"),
])
def test_the_vllm_tracker_reaches_its_phase(lines, phase) -> None:
    assert tracker_phase(*lines) is phase


# --- a Ctrl-C: the stack it interrupted is the stop, not a death ------------------------------

_CTRL_C = [*frame_lines((f"{_SITE}/vllm/entrypoints/openai/api_server.py", "<module>"),
                        (f"{_SITE}/uvloop/__init__.py", "run"),
                        ("/usr/lib/python3.11/asyncio/runners.py", "run")),
           "KeyboardInterrupt",
           "/usr/lib/python3.11/multiprocessing/resource_tracker.py:254: UserWarning: "
           "resource_tracker: There appear to be 1 leaked semaphore objects to clean up at "
           "shutdown"]


def test_the_stack_a_ctrl_c_interrupted_is_a_stop() -> None:
    v = verdict(*_CTRL_C, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, None), v


def test_a_crash_before_the_ctrl_c_is_still_a_crash() -> None:
    crash = [*frame_lines((f"{_SITE}/vllm/worker/model_runner.py", "load_model")),
             "RuntimeError: CUDA error: an illegal memory access was encountered"]
    v = verdict(*crash, *_CTRL_C, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.ILLEGAL_MEMORY_ACCESS), v


# --- a utility call the engine core failed and answered: one client's error ------------------

_CORE_ERR = "(EngineCore_DP0 pid=22) ERROR 09-24 20:59:57 [core.py:790] "
_CALL_FAILED = [_CORE_ERR + "Invocation of collective_rpc method failed",
                *(_CORE_ERR + line for line in frame_lines(
                    (f"{_SITE}/vllm/v1/engine/core.py", "_handle_client_request"),
                    (f"{_SITE}/vllm/v1/engine/core.py", "collective_rpc"))),
                _CORE_ERR + "RuntimeError: update_weights failed on rank 1"]


def test_a_utility_call_the_engine_core_failed_is_no_death() -> None:
    v = verdict(*_CALL_FAILED, engine="vllm")
    assert v.outcome is not Outcome.CRASHED, v
    # only the core's busy loop handles a client's call: a fragment that starts there was up
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.READY, None)
    assert tracker_phase(*_CALL_FAILED) is Phase.READY
    # the same traceback without the core's line saying it answered the call: a death
    v = verdict(*_CALL_FAILED[1:], engine="vllm")
    assert v.outcome is Outcome.CRASHED, v


# --- errors raised only while a stream captures a graph ---------------------------------------

_WK = "(Worker_TP1 pid=15193) ERROR 05-08 19:06:38 [multiproc_executor.py:962] "


@pytest.mark.parametrize("lines", [
    # the tail of a CUDA error report, then the next traceback cut at its header
    (_WK + "Search for `cudaErrorStreamCaptureUnsupported' in https://docs.nvidia.com/cuda/"
           "cuda-runtime-api/group__CUDART__TYPES.html for more information.",
     _WK + "Traceback (most recent call last):"),
    ("RuntimeError: CUDA error: operation not permitted when stream is capturing",),
    ("torch._dynamo.exc.InternalTorchDynamoError: RuntimeError: Cannot call "
     "CUDAGeneratorImpl::current_seed during CUDA graph capture. If you need this call to be "
     "captured, please file an issue.",),
    # cudaErrorCapturedEvent as HIP words it on ROCm, reported by torch's NCCL watchdog thread
    ("Process group watchdog thread terminated with exception:",
     "HIP error: operation not permitted on an event last recorded in a capturing stream"),
])
def test_an_error_only_a_capturing_stream_raises_dates_the_capture(lines) -> None:
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.CUDA_GRAPH_CAPTURE), v


def test_a_capture_error_never_moves_a_serving_run_back() -> None:
    served = ['INFO:     10.0.0.9:50028 - "POST /v1/completions HTTP/1.1" 200 OK',
              "RuntimeError: CUDA error: operation not permitted when stream is capturing"]
    assert verdict(*served, engine="vllm").phase is Phase.SERVING


# --- frames of a request being answered, or of a scheduled step's own work ---------------------

_V = f"{_SITE}/vllm"
_SG = f"{_SITE}/sglang/srt"


@pytest.mark.parametrize(("frames", "engine"), [
    pytest.param(((f"{_V}/entrypoints/openai/api_server.py", "create_completion"),),
                 "vllm", id="vllm-api-server-route"),
    pytest.param(((f"{_V}/engine/async_llm_engine.py", "generate"),),
                 "vllm", id="vllm-v0-async-engine-generate"),
    pytest.param(((f"{_V}/engine/multiprocessing/client.py", "_process_request"),),
                 "vllm", id="vllm-v0-mq-client-request"),
    pytest.param(((f"{_V}/entrypoints/openai/rpc/server.py", "generate"),),
                 "vllm", id="vllm-05-rpc-server-generate"),
    pytest.param((("/app/run.py", "main"), (f"{_V}/entrypoints/llm.py", "generate"),
                  (f"{_V}/entrypoints/llm.py", "_run_engine")), "vllm", id="vllm-offline-generate"),
    pytest.param(((f"{_V}/worker/multi_step_model_runner.py", "execute_model"),
                  (f"{_V}/_custom_ops.py", "advance_step_flashattn")),
                 "vllm", id="vllm-v0-multi-step-advance-step"),
    pytest.param(((f"{_V}/v1/sample/sampler.py", "apply_penalties"),
                  (f"{_V}/v1/sample/ops/penalties.py", "apply_all_penalties"),
                  (f"{_V}/model_executor/layers/utils.py", "get_token_bin_counts_and_mask")),
                 "vllm", id="vllm-penalties-of-a-batch"),
    pytest.param(((f"{_V}/v1/engine/core.py", "step"),
                  (f"{_V}/v1/core/sched/scheduler.py", "schedule")),
                 "vllm", id="vllm-v1-core-step-scheduling"),
    pytest.param(((f"{_V}/v1/engine/core.py", "add_request"),),
                 "vllm", id="vllm-v1-core-taking-a-request"),
    pytest.param(((f"{_V}/engine/llm_engine.py", "step"),
                  (f"{_V}/core/scheduler.py", "_schedule_default")),
                 "vllm", id="vllm-v0-engine-step"),
    pytest.param(((f"{_SG}/managers/tokenizer_manager.py", "generate_request"),
                  (f"{_SG}/managers/tokenizer_manager.py", "_wait_one_response")),
                 "sglang", id="sglang-tokenizer-manager-request"),
    pytest.param(((f"{_SG}/managers/tokenizer_manager.py", "handle_loop"),
                  (f"{_SG}/managers/tokenizer_manager.py", "_handle_abort_req")),
                 "sglang", id="sglang-request-aborted"),
    pytest.param(((f"{_V}/v1/worker/gpu_model_runner.py", "execute_model"),),
                 "vllm", id="vllm-v1-runner-step"),
    pytest.param((("/vllm-workspace/vllm-ascend/vllm_ascend/worker/model_runner_v1.py",
                   "_process_reqs"),), "vllm", id="vllm-ascend-runner-step"),
    pytest.param(((f"{_V}/v1/worker/gpu_model_runner.py", "_get_prompt_logprobs_dict"),),
                 "vllm", id="vllm-prompt-logprobs"),
    pytest.param(((f"{_SG}/managers/scheduler.py", "move_ready_grammar_requests"),),
                 "sglang", id="sglang-grammar-queue"),
    pytest.param((("/w/verl/workers/rollout/vllm_rollout/utils.py", "update_weights_from_ipc"),),
                 "vllm", id="verl-refit"),
    pytest.param((("/w/nemo_rl/models/generation/vllm/vllm_worker_async.py",
                   "update_weights_via_ipc_zmq_async"),), "vllm", id="nemo-rl-refit"),
    pytest.param(((f"{_SG}/model_executor/model_runner.py", "init_weights_update_group"),),
                 "sglang", id="sglang-refit-group"),
    pytest.param(((f"{_SITE}/swift/llm/infer/infer_engine/vllm_engine.py", "infer_async"),),
                 "vllm", id="ms-swift-infer"),
])
def test_frames_of_a_request_being_answered_are_serving(frames, engine) -> None:
    # (an error raised in the HTTP handlers themselves is that request's alone: below,
    # test_a_request_handlers_traceback_without_its_header_is_serving_not_a_crash)
    v = verdict(*frame_lines(*frames), "RuntimeError: boom", engine=engine)
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)


@pytest.mark.parametrize(("frames", "engine"), [
    # the same modules' startup steps: building the handlers, opening the socket
    pytest.param(((f"{_V}/entrypoints/openai/api_server.py", "run_server"),
                  (f"{_V}/entrypoints/openai/api_server.py", "create_server_socket")),
                 "vllm", id="vllm-api-server-socket"),
    pytest.param(((f"{_V}/entrypoints/openai/api_server.py", "init_app_state"),
                  (f"{_V}/entrypoints/openai/serving_chat.py", "__init__")),
                 "vllm", id="vllm-openai-handler-construction"),
    pytest.param(((f"{_V}/entrypoints/llm.py", "__init__"),),
                 "vllm", id="vllm-offline-engine-construction"),
    pytest.param(((f"{_V}/v1/engine/core.py", "__init__"),
                  (f"{_V}/v1/engine/core.py", "_initialize_kv_caches")),
                 "vllm", id="vllm-v1-core-construction"),
    # the profiling sampler run enters the sampler's apply_penalties and returns at once
    pytest.param(((f"{_V}/v1/worker/gpu_model_runner.py", "_dummy_sampler_run"),
                  (f"{_V}/v1/sample/sampler.py", "apply_penalties")),
                 "vllm", id="vllm-profiling-sampler-run"),
    # SGLang's health probe is no request of a client
    pytest.param(((f"{_SG}/entrypoints/http_server.py", "health_generate"),),
                 "sglang", id="sglang-health-generate"),
    # V0's memory profile runs the model through execute_model; V1's through _dummy_run
    pytest.param(((f"{_V}/worker/worker.py", "determine_num_available_blocks"),
                  (f"{_V}/worker/model_runner.py", "profile_run"),
                  (f"{_V}/worker/model_runner.py", "execute_model")),
                 "vllm", id="vllm-v0-profile-run-execute-model"),
    pytest.param(((f"{_V}/v1/worker/gpu_model_runner.py", "profile_run"),
                  (f"{_V}/v1/worker/gpu_model_runner.py", "_dummy_run")),
                 "vllm", id="vllm-v1-profile-dummy-run"),
])
def test_startup_frames_of_the_same_modules_are_not_serving(frames, engine) -> None:
    v = verdict(*frame_lines(*frames), "RuntimeError: boom", engine=engine)
    assert v.phase is not Phase.SERVING


def test_sglang_warmup_request_frames_after_startup_markers_stay_warmup() -> None:
    v = verdict("[2025-05-23 18:00:00 TP0] Load weight begin. avail mem=70.00 GB",
                "[2025-05-23 18:00:10 TP0] Capture cuda graph end. Time elapsed: 3.00 s",
                *frame_lines((f"{_SG}/entrypoints/http_server.py", "generate_request"),
                             (f"{_SG}/managers/tokenizer_manager.py", "generate_request")),
                "RuntimeError: boom", engine="sglang")
    assert v.phase is Phase.WARMUP


def test_frames_inside_an_exception_group_box_are_read() -> None:
    # Python 3.11's (and the exceptiongroup backport's) boxed sub-exception: an ASGI app's task
    # group re-raising the error of a completion stream
    v = verdict("  + Exception Group Traceback (most recent call last):",
                "  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
                "  +-+---------------- 1 ----------------",
                "    | Traceback (most recent call last):",
                f'    |   File "{_V}/entrypoints/openai/serving_completion.py", line 262, in '
                "completion_stream_generator",
                "    |     async for prompt_idx, res in result_generator:",
                "    | RuntimeError: boom",
                "    +------------------------------------",
                "RuntimeError: boom", engine="vllm")
    assert v.phase is Phase.SERVING


def test_requests_answered_500_around_a_dead_mq_engine_are_served_requests() -> None:
    # behind a log shipper's prefix the header is not at the line's start; CRITICAL is a vLLM
    # level too, so the launcher's lines name the engine, and vLLM's API server answers only
    # once the engine is up: the POSTs answered 500 were clients' requests reaching it
    pre = "[Sidecar abc]: 2024-11-13T03:15:08.672Z 1 stdout: "
    dead = pre + ("CRITICAL 11-12 19:15:08 launcher.py:99] MQLLMEngine is already dead, "
                  "terminating server process")
    answered = pre + 'INFO:     127.0.0.1:41034 - "POST /v1/chat/completions HTTP/1.1" 500 ' \
        "Internal Server Error"
    v = verdict(dead, answered, dead, answered)
    assert (v.engine, v.outcome, v.phase) == ("vllm", Outcome.CRASHED, Phase.SERVING)


def test_sglang_flashinfer_autotune_line_dates_a_failed_startup_past_the_kv_pool() -> None:
    autotune = ("[2026-09-21 13:38:19 TP0] Running FlashInfer autotune with cache: "
                "/root/.cache/sglang/flashinfer/autotune/0.6.18/sm120/b6/rank_tp0_pp0_dp0.json")
    tb = [*frame_lines((f"{_SG}/managers/scheduler.py", "run_scheduler_process"),
                       (f"{_SG}/managers/scheduler.py", "__init__")),
          "RuntimeError: boom"]
    v = verdict(autotune, *tb, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC)
    # guard: the same traceback without it stays undated
    assert verdict(*tb, engine="sglang").phase is Phase.LAUNCH


_RAYLET = "(EngineCore_DP0 pid=37804)     /usr/lib/ray/core/src/ray/raylet/raylet(+0xebef22) " \
    "[0x5d9928c2bf22] boost::asio::io_context::run()"
_LIBC = "(EngineCore_DP0 pid=37804)     /lib/x86_64-linux-gnu/libc.so.6(__libc_start_main+0x80) " \
    "[0x77f524e20e40] __libc_start_main"
_UVICORN_DOWN = ["(APIServer pid=37667) INFO:     Shutting down",
                 "(APIServer pid=37667) INFO:     Application shutdown complete.",
                 "(APIServer pid=37667) INFO:     Finished server process [37667]"]


def test_a_native_stack_dump_then_the_api_server_going_down_is_a_crash_of_a_ready_server() -> None:
    # vLLM V1's process prefixes name the engine; the bottom of a glog/abseil failure
    # handler's stack (a process dying on a signal or a CHECK) is a death, and uvicorn shutting
    # down after it is its consequence, not a stop on request
    v = verdict(_RAYLET, _LIBC, *_UVICORN_DOWN)
    assert (v.engine, v.outcome, v.phase) == ("vllm", Outcome.CRASHED, Phase.READY)
    # guard: the API server shutting down alone is a stop of a ready server
    v = verdict(*_UVICORN_DOWN)
    assert (v.engine, v.outcome) == ("vllm", Outcome.READY)


# --- the eleventh batch's kinds --------------------------------------------------------------

_V0_STATS = ("INFO 09-18 16:11:03 metrics.py:351] Avg prompt throughput: {p} tokens/s, Avg "
             "generation throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: "
             "{q} reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%.")
_CLIENT = 'INFO:     10.0.0.99:58210 - "POST /v1/chat/completions HTTP/1.1" 200 OK'


def test_vllm_requests_queued_with_none_running_and_no_tokens_is_a_stall() -> None:
    v = verdict(_CLIENT, _V0_STATS.format(p="70.6", q=12), _V0_STATS.format(p="0.0", q=22),
                engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.INCOMPLETE, Phase.SERVING, Cause.UNKNOWN)
    # guard: an idle server (nothing queued) is not stalled
    v = verdict(_CLIENT, _V0_STATS.format(p="0.0", q=0), engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING)


_ENGINE_UP = ("INFO 04-06 00:55:21 [llm_engine.py:447] init engine (profile, create kv cache, "
              "warmup model) took 71.33 seconds")
_MQ_WAIT = "DEBUG 04-06 00:55:29 [client.py:193] Waiting for output from MQLLMEngine."


def test_a_v0_engine_under_an_api_server_is_up_at_uvicorn_not_at_init_engine() -> None:
    v = verdict(_ENGINE_UP, _MQ_WAIT, "DEBUG 04-06 00:55:55 [engine.py:157] Starting Engine Loop.",
                engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.INCOMPLETE, Phase.WARMUP)
    v = verdict(_ENGINE_UP, _MQ_WAIT, "INFO:     Application startup complete.", engine="vllm")
    assert v.outcome is Outcome.READY
    # guard: an offline engine (no API server) is up at its init line
    assert verdict(_ENGINE_UP, engine="vllm").outcome is Outcome.READY


@pytest.mark.parametrize("prefix", [
    "[2025-11-25 16:01:47] [/bin/sh@<0,0>]: ",
    "ms-pd-llm-d-modelservice-decode-6c8f9c4df6-vh88z vllm (APIServer pid=1) ",
    "    2025-06-06T19:02:34.252Z DEBUG dynamo_run::subprocess: ",
])
def test_launcher_and_multi_pod_viewer_prefixes_are_wrappers(prefix: str) -> None:
    assert strip_wrappers(prefix + '  File "/x/y.py", line 3, in run') == \
        '  File "/x/y.py", line 3, in run'


@pytest.mark.parametrize(("line", "message"), [
    # the two forms that start with spaces: a CI page's bar before a stamp, a tracing stamp
    ("  | [2025-11-06T02:10:00.702Z] Load weight end.", "Load weight end."),
    ("    2025-06-06T19:02:34.252Z DEBUG dynamo_run::subprocess: x", "x"),
    # an indented message behind no wrapper is kept whole, indentation included
    ('  File "/x/y.py", line 3, in run', '  File "/x/y.py", line 3, in run'),
    ("    raise RuntimeError('a | b')", "    raise RuntimeError('a | b')"),
    ("          2025 was the year", "          2025 was the year"),  # past 8 spaces
    ("   ", "   "), ("", ""),
])
def test_indented_lines_are_stripped_only_of_the_forms_that_start_with_spaces(
        line: str, message: str) -> None:
    assert strip_wrappers(line) == message


def test_sglang_router_model_rpc_step_frames_are_serving() -> None:
    lines = [*frame_lines((f"{_SG}/managers/router/model_rpc.py", "exposed_step"),
                          (f"{_SG}/managers/router/model_rpc.py", "forward_step"),
                          (f"{_SG}/managers/router/model_rpc.py", "forward_fill_batch"),
                          (f"{_SG}/managers/router/infer_batch.py", "prepare_for_extend")),
             "AttributeError: 'NoneType' object has no attribute 'cpu'"]
    v = verdict("Exception in ModelRpcClient:", *lines, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)


# --- the twelfth batch's kinds ---------------------------------------------------------------

_NIXL_ALLOC = ("(EngineCore_2 pid=2085) DEBUG 08-17 18:19:26 [nixl_connector.py:303] NIXLConnector "
               "update_state_after_alloc: num_external_tokens=0, kv_transfer_params="
               "{'do_remote_decode': True, 'do_remote_prefill': False}")
_LMCACHE_STORE = ("(VllmWorker rank=1 pid=1034) [2025-09-08 21:48:38,604] LMCache INFO: Storing KV "
                  "cache for 6 out of 6 tokens (skip_leading_tokens=0) for request "
                  "cmpl-f870c93bda2647ab91bf1cbed5859bab-0 (vllm_v1_adapter.py:1057:lmcache)")
_WORKER_FAILED = ("(VllmWorker TP0 pid=2940) ERROR 08-17 18:19:26 [multiproc_executor.py:601] "
                  "WorkerProc hit an exception.")


@pytest.mark.parametrize("line", [_NIXL_ALLOC, _LMCACHE_STORE])
def test_a_kv_connector_working_on_a_request_is_serving_traffic(line: str) -> None:
    assert tracker_phase(line) is Phase.SERVING
    v = verdict(line, _WORKER_FAILED, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v


def test_a_kv_connector_line_naming_no_request_is_no_traffic() -> None:
    # guard: a connector's startup line (its handshake listener) names no client request
    line = ("(EngineCore_DP0 pid=7) INFO 08-17 18:10:02 [nixl_connector.py:512] Initializing NIXL "
            "wrapper; KV cache for 0 out of 0 tokens")
    assert tracker_phase(line) is Phase.LAUNCH


_V0_RUNNER = "/usr/local/lib/python3.10/dist-packages/vllm"


def test_v0_speculative_decoding_step_frames_are_serving() -> None:
    lines = [*frame_lines((f"{_V0_RUNNER}/spec_decode/spec_decode_worker.py",
                           "_run_speculative_decoding_step"),
                          (f"{_V0_RUNNER}/spec_decode/batch_expansion.py", "score_proposals"),
                          (f"{_V0_RUNNER}/worker/model_runner.py", "execute_model")),
             "KeyError: 8"]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    # guard: the model runner's execute_model alone is also the profiling run: not serving,
    # only past loading
    v = verdict(*frame_lines((f"{_V0_RUNNER}/worker/model_runner.py", "execute_model")),
                "KeyError: 8", engine="vllm")
    assert v.phase is Phase.KV_CACHE_ALLOC, v


@pytest.mark.parametrize(("method", "phase"), [
    ("start_worker_execution_loop", Phase.SERVING),
    ("execute_model", Phase.SERVING),
    # guard: a startup method of the worker is its own step (the KV sizing), not serving
    ("determine_num_available_blocks", Phase.KV_CACHE_ALLOC),
])
def test_a_v0_worker_failing_in_its_execution_loop_is_serving(method: str, phase: Phase) -> None:
    prefix = "(VllmWorkerProcess pid=267340) ERROR 08-27 01:19:33 multiproc_worker_utils.py:226] "
    v = verdict(f"{prefix}Exception in worker VllmWorkerProcess while processing method "
                f"{method}: 40, Traceback (most recent call last):",
                f'{prefix}  File "{_V0_RUNNER}/worker/model_runner.py", line 1399, in '
                "execute_model", f"{prefix}    model_executable = self.graph_runners[ve][bs]",
                f"{prefix}KeyError: 40", engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, phase), v


def test_a_log_viewers_service_tag_is_a_wrapper() -> None:
    assert strip_wrappers('[vllm]: [rank0]:   File "/x/y.py", line 3, in run') == \
        '  File "/x/y.py", line 3, in run'
    # guard: a bracketed word that is the message itself stays (no colon, or an upper-case tag)
    assert strip_wrappers("[Errno 12] Cannot allocate memory") == \
        "[Errno 12] Cannot allocate memory"
    assert strip_wrappers("[ERROR]: disk full") == "[ERROR]: disk full"


def test_a_traceback_behind_a_service_tag_and_rank_prefix_is_a_crash() -> None:
    # a piece that starts mid-traceback and ends at the raise, its exception line cut away
    p = "[vllm]: [rank0]: "
    v = verdict(f'{p}  File "{_V0_RUNNER}/distributed/device_communicators/pynccl.py", line 89, '
                "in __init__", f"{p}    self.comm: ncclComm_t = self.nccl.ncclCommInitRank(",
                f'{p}  File "{_V0_RUNNER}/distributed/device_communicators/pynccl_wrapper.py", '
                "line 223, in NCCL_CHECK",
                f'{p}    raise RuntimeError(f"NCCL error: {{error_str}}")', engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.NCCL_ERROR), v


_SG_RANK = "[2026-01-30 20:54:{s:02d} PP{pp} TP{tp}] "


def _sglang_weights(*events: tuple[str, int, int]) -> list[str]:
    words = {"begin": "Load weight begin. avail mem=78.38 GB",
             "end": "Load weight end. elapsed=6.21 s, type=Qwen3ForCausalLM, avail mem=76.05 GB"}
    return [_SG_RANK.format(s=50 + i, pp=pp, tp=tp) + words[what]
            for i, (what, pp, tp) in enumerate(events)]


def test_sglang_weight_loading_ends_when_every_rank_that_began_it_has_ended() -> None:
    ranks = [(pp, tp) for pp in (0, 1) for tp in (0, 1)]
    begun = _sglang_weights(*(("begin", pp, tp) for pp, tp in ranks))
    one_done = begun + _sglang_weights(("end", 1, 1))
    assert tracker_phase(*one_done, engine="sglang") is Phase.WEIGHT_LOADING
    assert verdict(*one_done, engine="sglang").phase is Phase.WEIGHT_LOADING
    all_done = begun + _sglang_weights(*(("end", pp, tp) for pp, tp in ranks))
    assert tracker_phase(*all_done, engine="sglang") is Phase.KV_CACHE_ALLOC
    # a single rank (no tag in old builds) and a piece that shows only the end lines
    assert tracker_phase("Load weight begin. avail mem=70 GB", "Load weight end. avail mem=60 GB",
                         engine="sglang") is Phase.KV_CACHE_ALLOC
    assert tracker_phase(*_sglang_weights(("end", 0, 0)), engine="sglang") is \
        Phase.KV_CACHE_ALLOC


def test_sglang_jax_creating_its_fused_kv_buffers_is_kv_cache_alloc() -> None:
    lines = ["[2025-09-15 15:35:31] TPU Memory profiling: available_device_memory=16.6GB, "
             "available_kv_cache=10.4GB, max_tokens=21227, cell_size=524288bytes",
             "[2025-09-15 15:35:31] Creating fused KV buffers for 32 layers"]
    assert tracker_phase(*lines, engine="sglang") is Phase.KV_CACHE_ALLOC
    v = verdict(*lines, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.INCOMPLETE, Phase.KV_CACHE_ALLOC), v


def test_a_source_line_behind_other_workers_lines_shows_the_call_in_progress() -> None:
    # several workers' tracebacks interleaved line by line: rank 7's frame, three lines of other
    # ranks, then rank 7's source line of that frame, then the captured graph's forward
    pre = "(VllmWorker rank={r} pid=3{r}) ERROR 08-21 08:26:21 [multiproc_executor.py:546] "
    lines = [pre.format(r=7) + '  File "/vllm-workspace/vllm-ascend/vllm_ascend/worker/'
             'worker_v1.py", line 261, in compile_or_warm_up_model',
             pre.format(r=3) + '  File "/usr/lib/python3.11/site-packages/torch/nn/modules/'
             'module.py", line 1751, in _wrapped_call_impl',
             pre.format(r=4) + "           ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
             pre.format(r=2) + "    return self._call_impl(*args, **kwargs)",
             pre.format(r=7) + "    self.model_runner.capture_model()",
             pre.format(r=4) + '  File "<eval_with_key>.98", line 882, in forward']
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.CUDA_GRAPH_CAPTURE), v


def test_verl_flush_cache_never_awaited_shows_a_built_sglang_engine() -> None:
    pre = "(WorkerDict pid=281552) "
    lines = [pre + "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 3.84 GiB. "
             "GPU 1 has a total capacity of 94.50 GiB of which 4.33 GiB is free.",
             pre + "[2025-04-23 19:23:11] Received sigquit from a child process. It usually "
             "means the child failed.",
             pre + "/usr/local/lib/python3.12/dist-packages/sglang/srt/entrypoints/verl_engine"
             ".py:160: RuntimeWarning: coroutine 'TokenizerManager.flush_cache' was never "
             "awaited",
             pre + "  self._engine.tokenizer_manager.flush_cache()"]
    assert tracker_phase(*lines, engine="sglang") is Phase.READY
    v = verdict(*lines, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.READY, Cause.CUDA_OOM), v


def test_nixl_releasing_a_prefilled_requests_expired_blocks_is_serving_traffic() -> None:
    line = ("(EngineCore_DP0 pid=3747544) WARNING 09-24 16:35:21 [nixl_connector.py:1048] "
            "Releasing expired KV blocks for request cmpl-3da205a6-0 which were retrieved by 0 "
            "decode worker(s) within 120 seconds.")
    v = verdict(line, line, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None), v


def test_sglang_grammar_refusing_a_requests_token_is_serving_traffic() -> None:
    line = ("[2026-02-11 09:59:34 DP2 TP2 EP2] Grammar accept_token failed for req "
            "fa35174b137d41d7a336f83005ce2423 with token [443]: Tokens not accepted: 443")
    v = verdict(line, "Accepted tokens: [24313, 443]", engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None), v


def test_a_vllm_workers_execute_model_is_a_scheduled_step() -> None:
    pre = "(VllmWorker rank=1 pid=2587) ERROR 08-18 06:39:05 [multiproc_executor.py:527] "
    lines = [pre + "WorkerProc hit an exception."] + [pre + x for x in frame_lines(
        ("/venv/vllm/v1/executor/multiproc_executor.py", "worker_busy_loop"),
        ("/venv/vllm/v1/worker/gpu_worker.py", "execute_model"))]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    # guard: the model runner's execute_model also runs the dummy runs of startup
    lines = [pre + "WorkerProc hit an exception."] + [pre + x for x in frame_lines(
        ("/venv/vllm/v1/executor/multiproc_executor.py", "worker_busy_loop"),
        ("/venv/vllm/v1/worker/gpu/model_runner.py", "execute_model"))]
    assert verdict(*lines, engine="vllm").phase is not Phase.SERVING


def test_an_rpc_on_a_built_offline_llm_shows_it_ready() -> None:
    pre = "(ActorModelRayActor pid=700388) "
    lines = [pre + x for x in frame_lines(
        ("/venv/openrlhf/trainer/ray/vllm_engine.py", "init_process_group"),
        ("/venv/lib/python3.12/site-packages/vllm/entrypoints/llm.py", "collective_rpc"))]
    lines.append(pre + "AttributeError: 'LLMEngine' object has no attribute 'model_executor'")
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.READY), v
    # guard: the LLM's constructor failing is its startup
    lines = [pre + x for x in frame_lines(
        ("/venv/lib/python3.12/site-packages/vllm/entrypoints/llm.py", "__init__"))]
    lines.append(pre + "AttributeError: 'LLMEngine' object has no attribute 'model_executor'")
    assert verdict(*lines, engine="vllm").phase is Phase.LAUNCH


def test_xinference_launching_a_model_is_no_request_to_the_engine() -> None:
    lines = ["RuntimeError: [address=0.0.0.0:36797, pid=6075] Engine core initialization "
             "failed. See root cause above. Failed core proc(s): {}",
             '2026-08-07T18:25:43.679Z INFO uvicorn.access pid:1 role:local address:0.0.0.0:9997 '
             'node:3d67e2e62a71 172.19.0.1:34608 - "POST /v1/models HTTP/1.1" 503']
    assert tracker_phase(*lines, engine="vllm") is Phase.LAUNCH  # live, the same
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.LAUNCH), v
    # guard: a completion answered from another host is a request to a server that was up
    lines[1] = lines[1].replace("POST /v1/models", "POST /v1/chat/completions")
    assert verdict(*lines, engine="vllm").phase is not Phase.LAUNCH


def test_verls_agent_loop_sending_requests_is_serving() -> None:
    pre = "[2026-03-12 11:50:36] (TaskRunner pid=3483799) "
    lines = [pre + "The actor is dead because its worker process has died. Worker exit type: "
             "SYSTEM_ERROR Worker exit detail: Worker unexpectedly exits with a connection error "
             "code 2. End of file."] + [pre + x for x in frame_lines(
                 ("/app/verl/experimental/agent_loop/agent_loop.py", "_run_agent_loop"),
                 ("/app/verl/experimental/agent_loop/single_turn_agent_loop.py", "run"))]
    v = verdict(*lines, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    # guard: verl's trainer code elsewhere dates nothing
    lines = lines[:1] + [pre + x for x in frame_lines(
        ("/app/verl/trainer/main_ppo.py", "run"))]
    assert verdict(*lines, engine="sglang").phase is Phase.LAUNCH


@pytest.mark.parametrize("tokens, phase", [(21, Phase.SERVING), (7, Phase.WARMUP)])
def test_a_lone_prefill_longer_than_the_warmup_prompt_is_a_clients(tokens, phase) -> None:
    lines = [f"[2025-02-20 04:26:58 TP0] Prefill batch. #new-seq: 1, #new-token: {tokens}, "
             "#cached-token: 0, cache hit rate: 0.00%, token usage: 0.00, #running-req: 0, "
             "#queue-req: 0",
             "[2025-02-20 04:27:00 TP5] Scheduler hit an exception: Traceback (most recent call "
             "last):"]
    assert tracker_phase(*lines[:1], engine="sglang") is phase
    assert verdict(*lines, engine="sglang").phase is phase


def test_the_watchdogs_dump_of_a_one_request_batch_is_the_warmup() -> None:
    line = ("[2025-10-03 20:42:19 DP0 TP0 EP0] self.cur_batch.batch_size()=1, "
            "self.cur_batch.reqs=[Req(rid=5dae8f8f882644bd84ed47e7351445a8, input_ids=[785, "
            "6722, 3283, 315, 9621, 374], output_ids=[], self.grammar=None")
    nccl = "sam-test-0:1:1 [0] NCCL INFO Connected all trees"
    assert tracker_phase(nccl, line, engine="sglang") is Phase.WARMUP
    v = verdict(nccl, line, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.INCOMPLETE, Phase.WARMUP), v


def test_an_sglang_workers_per_batch_entry_runs_a_scheduled_batch() -> None:
    where = [("/sgl-workspace/sglang/python/sglang/srt/speculative/eagle_worker_v2.py",
              "forward_batch_generation"),
             ("/sgl-workspace/sglang/python/sglang/srt/speculative/eagle_worker_v2.py", "verify")]
    v = verdict(*frame_lines(*where), engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    # guard: after startup markers the same batch is the warmup's
    v = verdict("[2025-11-20 10:00:00] Capture cuda graph end. Time elapsed: 9.12 s",
                *frame_lines(*where), engine="sglang")
    assert v.phase is Phase.WARMUP, v


# --- forks' lines that date a fragment: Ascend graph replay, Gaudi sampler warmup -------------

_ACL_REPLAY = ("(Worker_DP1_TP0_EP4 pid=17312) INFO 11-25 12:01:16 [acl_graph.py:187] "
               "Replaying aclgraph")
_SHM_WAIT = ("(EngineCore_DP0 pid=16899) INFO 11-25 12:02:16 [shm_broadcast.py:466] No available "
             "shared memory broadcast block found in 60 seconds.")
_HPU_SAMPLER = ("(Worker_TP0 pid=635023) INFO 04-09 11:25:43 [hpu_model_runner.py:4675] "
                "Starting sampler warmup...")


def test_ascend_graph_replay_is_a_served_batch() -> None:
    assert tracker_phase(_ACL_REPLAY, _SHM_WAIT) is Phase.SERVING
    v = verdict(_ACL_REPLAY, _SHM_WAIT, engine="vllm")
    assert v.phase is Phase.SERVING


def test_gaudi_sampler_warmup_is_the_warmup() -> None:
    assert tracker_phase(_HPU_SAMPLER) is Phase.WARMUP
    assert verdict(_HPU_SAMPLER, engine="vllm").phase is Phase.WARMUP


# --- frames and lines that date a fragment: a request handed to vLLM V1, SGLang 0.2's step, a
# KV connector's registration, RL trainers' bars, Dynamo's prefill queue --------------------

def test_a_request_handed_to_vllm_v1s_engine_is_serving() -> None:
    where = [("/usr/local/lib/python3.12/dist-packages/swift/llm/infer/infer_engine/"
              "vllm_engine.py", "_add_request"),
             (f"{VL}/v1/engine/llm_engine.py", "add_request"),
             (f"{VL}/v1/engine/core_client.py", "add_request")]
    v = verdict("ERROR 01-29 08:37:48 [core_client.py:564] Engine core proc EngineCore_DP1 died "
                "unexpectedly, shutting down client.", *frame_lines(*where), engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    # guard: the constructor's frames are startup, not a request
    v = verdict(*frame_lines((f"{VL}/v1/engine/llm_engine.py", "__init__"),
                             (f"{VL}/v1/engine/core_client.py", "__init__")), engine="vllm")
    assert v.phase is Phase.LAUNCH, v


def test_sglang_02s_model_tp_server_stepping_a_batch_is_serving() -> None:
    tp = "/usr/local/lib/python3.10/dist-packages/sglang/srt/managers/tp_worker.py"
    lines = ["[14:47:01 TP0] Exception in ModelTpServer:",
             *frame_lines((tp, "exposed_step"), (tp, "forward_step"),
                          (tp, "forward_prefill_batch"))]
    v = verdict(*lines, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    # guard: the ModelTpServer being built is startup
    v = verdict(*frame_lines((tp, "__init__")), engine="sglang")
    assert v.phase is not Phase.SERVING, v


def test_a_kv_connector_registering_the_kv_cache_is_kv_cache_alloc() -> None:
    where = [(f"{VL}/distributed/kv_transfer/kv_connector/v1/nixl_connector.py",
              "register_kv_caches"),
             ("/opt/dynamo/venv/lib/python3.12/site-packages/nixl/_api.py", "prep_xfer_dlist")]
    v = verdict(*frame_lines(*where), "nixl._bindings.nixlNotFoundError: NIXL_ERR_NOT_FOUND",
                engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC), v


_EPISODE = ("Episode [1/10000]:   7%|▋         | 11/147 [3:34:08<44:07:37, 1168.07s/it, "
            "policy_loss=-0.115, actor_lr=2e-6]")
_TRAIN_EPOCH = ("Train epoch [1/1]:  88%|████████▊ | 7/8 [01:46<00:14, 14.28s/it, pg=-0.795, "
                "rm=0.525]")


_VERL_STEP = "Training Progress:  33%|███▎      | 1/3 [02:39<05:18, 159.11s/it]"


@pytest.mark.parametrize("bar", [_EPISODE, _TRAIN_EPOCH, _VERL_STEP])
@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_an_rl_trainers_bar_past_its_first_step_shows_the_engines_served(bar, engine) -> None:
    assert tracker_phase(bar, engine=engine) is Phase.SERVING
    v = verdict(bar, engine=engine)
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING), v


@pytest.mark.parametrize("bar", ["Episode [1/16]:   0%|          | 0/309 [03:58<?, ?it/s]",
                                 "Training Progress:   0%|          | 0/3 [00:00<?, ?it/s]"])
def test_an_rl_trainers_bar_still_at_zero_shows_nothing(bar: str) -> None:
    assert tracker_phase(bar) is Phase.LAUNCH
    assert verdict(bar, engine="vllm").phase is Phase.LAUNCH


@pytest.mark.parametrize("where", [
    ("/usr/local/lib/python3.10/site-packages/vllm/engine/llm_engine.py", "add_request"),
    ("/usr/local/lib/python3.10/site-packages/vllm/engine/llm_engine.py",
     "_add_processed_request"),
    ("/sgl-workspace/sglang/python/sglang/srt/managers/detokenizer_manager.py", "event_loop"),
    ("/sgl-workspace/sglang/python/sglang/srt/speculative/multi_layer_eagle_worker_v2.py",
     "_draft_extend_for_decode"),
])
def test_frames_of_a_request_being_taken_or_answered_are_serving(where) -> None:
    """vLLM V0's engine taking a request in, SGLang's detokenizer loop handling a batch's
    output, an EAGLE draft extending after a decode step: none runs before requests do."""
    v = verdict("Traceback (most recent call last):", *frame_lines(where),
                "RuntimeError: boom", engine="sglang" if "sgl" in where[0] else "vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v


def test_dynamos_prefill_worker_dequeuing_a_request_is_serving() -> None:
    line = ("2025-04-24T07:46:08.693Z  INFO prefill_worker.prefill_queue_handler: Dequeued "
            "prefill request: 2a3f7b10-5626-46a1-a301-a9962e156746")
    assert tracker_phase(line) is Phase.SERVING
    v = verdict("2025-04-24T07:42:44.118Z  INFO prefill_worker.async_init: PrefillWorker "
                "initialized", line, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None), v


# --- the nineteenth batch's kinds of log -------------------------------------------------------

def test_journald_under_a_cjk_locale_is_a_wrapper() -> None:
    line = ("6月 10 16:45:05 ma-MS-TZZ-Z690M bash[107468]: RuntimeError: CUDA error: an illegal "
            "memory access was encountered")
    assert strip_wrappers(line).startswith("RuntimeError: CUDA error")
    v = verdict(line, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.ILLEGAL_MEMORY_ACCESS), v


def test_v0_records_pasted_without_newlines_are_split_in_the_older_header_form() -> None:
    """vLLM 0.5's header had no opening bracket (`ERROR 06-19 11:25:01 async_llm_engine.py:52]`):
    a paste that lost its newlines is split there too."""
    stats = ("INFO 06-19 11:23:59 metrics.py:341] Avg prompt throughput: 3526.1 tokens/s, Avg "
             "generation throughput: 115.2 tokens/s, Running: 8 reqs, Swapped: 0 reqs, Pending: 0 "
             "reqs, GPU KV cache usage: 0.9%, CPU KV cache usage: 0.0%.")
    glued = (f"{stats} ERROR 06-19 11:25:01 async_llm_engine.py:52] Engine background task "
             "failed ERROR 06-19 11:25:01 async_llm_engine.py:52] Traceback (most recent call "
             "last): ERROR 06-19 11:25:01 async_llm_engine.py:52] asyncio.exceptions.TimeoutError")
    v = verdict(glued, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v


def test_a_prefill_finding_a_longer_cached_prefix_than_the_warmup_prompt_is_a_client() -> None:
    line = ("[2025-02-26 15:44:36 TP0] Prefill batch. #new-seq: 1, #new-token: 11, #cached-token: "
            "24, cache hit rate: 26.67%, token usage: 0.00, #running-req: 0, #queue-req: 0")
    assert tracker_phase(line, engine="sglang") is Phase.SERVING
    warmup = line.replace("#cached-token: 24", "#cached-token: 0").replace("#new-token: 11",
                                                                            "#new-token: 7")
    assert tracker_phase(warmup, engine="sglang") is not Phase.SERVING


def test_v0_mq_engine_up_then_the_routes_listed_is_ready() -> None:
    lines = ["INFO 05-13 14:15:31 [executor_base.py:117] Maximum concurrency for 4096 tokens per "
             "request: 2.00x",
             "INFO 05-13 14:15:32 [llm_engine.py:437] init engine (profile, create kv cache, "
             "warmup model) took 2.93 seconds",
             "DEBUG 05-13 14:15:32 [engine.py:137] Starting Startup Loop.",
             "INFO 05-13 14:15:33 [api_server.py:1090] Starting vLLM API server on "
             "http://0.0.0.0:8000",
             "INFO 05-13 14:15:33 [launcher.py:28] Available routes are:",
             "INFO 05-13 14:15:33 [launcher.py:36] Route: /health, Methods: GET"]
    v = verdict("DEBUG 05-13 14:15:30 [client.py:176] Waiting for output from MQLLMEngine.",
                *lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.WARMUP), v
    # the engine up and its MQ client waiting, no routes yet: not ready
    v = verdict("DEBUG 05-13 14:15:30 [client.py:176] Waiting for output from MQLLMEngine.",
                *lines[:3], engine="vllm")
    assert v.outcome is Outcome.INCOMPLETE, v


@pytest.mark.parametrize(("line", "engine"), [
    ("(EngineCore_0 pid=309588) INFO 08-19 07:06:33 [gpu_model_runner.py:2721] Graph capturing "
     "for 488 input tokens", "vllm"),
    ("[2025-09-03 04:38:57] [EXTEND] begin to precompile", "sglang"),
    ("[2025-09-03 04:38:57] [DECODE] precompile (bs=8, num_tokens=8)", "sglang"),
])
def test_per_shape_capture_and_tpu_precompile_lines_are_the_capture(line: str, engine: str) -> None:
    assert tracker_phase(line, engine=engine) is Phase.CUDA_GRAPH_CAPTURE


def test_offline_generate_bars_alone_are_vllm_serving() -> None:
    bar = ("Processed prompts: 100%|█| 1/1 [00:03<00:00,  3.77s/it, est. speed input: 269.00 "
           "toks/s")
    v = classify_text(f"{bar}\n{bar}\n")
    assert (v.engine, v.outcome, v.phase) == ("vllm", Outcome.READY, Phase.SERVING), v


@pytest.mark.parametrize("where", [
    ("/sgl-workspace/sglang/python/sglang/srt/mem_cache/hiradix_cache.py", "__init__"),
    ("/sgl-workspace/sglang/python/sglang/srt/speculative/eagle_worker.py", "__init__"),
])
def test_sglang_building_what_sits_on_the_target_pool_is_past_the_pool(where) -> None:
    """The scheduler builds the hierarchical cache's host pool and a draft worker only once its
    model worker (weights, KV pool) is up."""
    v = verdict(*frame_lines(
        ("/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", "run_scheduler_process"),
        ("/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", "__init__"), where),
        "RuntimeError: boom", engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC), v


def test_vllm_checking_a_prompt_longer_than_max_model_len_is_a_request_refused() -> None:
    v = verdict(*frame_lines((f"{VL}/v1/engine/processor.py", "process_inputs"),
                             (f"{VL}/v1/engine/processor.py", "_validate_model_input")),
                "ValueError: The decoder prompt (length 44) is longer than the maximum model "
                "length of 16. Make sure that `max_model_len` is no smaller than the number of "
                "text tokens.", engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING,
                                             Cause.INVALID_CONFIG), v


# --- the twentieth batch: what a death report, an RPC's name or a route list dates -----------

_ADVICE = ("3. disable torch compile by not using --enable-torch-compile",
           "4. disable cuda graph by --disable-cuda-graph. (Not recommonded. Huge perf loss)",
           "Open an issue on GitHub https://github.com/sgl-project/sglang/issues/new/choose")


@pytest.mark.parametrize("advice", [
    _ADVICE[1], "4. disable CUDA graph by --disable-cuda-graph. (Not recommended. Huge "
                "performance loss)"])
def test_sglang_capture_failure_advice_alone_is_a_crash_in_capture(advice: str) -> None:
    v = verdict(_ADVICE[0], advice, _ADVICE[2], engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.CUDA_GRAPH_CAPTURE)


def test_a_launch_command_turning_graphs_off_is_no_capture_failure() -> None:
    v = verdict("python3 -m sglang.launch_server --model-path m --disable-cuda-graph",
                engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.INCOMPLETE, Phase.LAUNCH)


_OVERLAP_DIED = "[2025-09-17 06:54:37 TP0] TpModelWorkerClient hit an exception: Traceback " \
                "(most recent call last):"


def test_sglang_overlap_worker_thread_death_is_serving() -> None:
    v = verdict("RuntimeError: kernel launch failed", _OVERLAP_DIED, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)


def test_sglang_overlap_worker_thread_death_during_startup_is_its_warmup() -> None:
    # startup markers and no ready line: the thread was running the warmup request
    v = verdict("[2025-09-17 06:54:30 TP0] Capture cuda graph end. Time elapsed: 3.5 s",
                _OVERLAP_DIED, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.WARMUP)


_WORKER_METHOD = ("(VllmWorkerProcess pid=245) ERROR 03-31 03:33:02 multiproc_worker_utils.py:242]"
                  " Exception in worker VllmWorkerProcess while processing method {}.")


@pytest.mark.parametrize("method, phase", [
    ("load_model", Phase.WEIGHT_LOADING),
    ("determine_num_available_blocks", Phase.KV_CACHE_ALLOC),
    ("initialize_cache", Phase.KV_CACHE_ALLOC),
    ("start_worker_execution_loop", Phase.SERVING),
    ("init_device", Phase.LAUNCH),
])
def test_vllm_v0_worker_failing_a_method_is_dated_by_the_method(method: str,
                                                                 phase: Phase) -> None:
    v = verdict(_WORKER_METHOD.format(method), "Traceback (most recent call last):",
                engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, phase)


@pytest.mark.parametrize("call, phase", [
    ('self.collective_rpc("load_model")', Phase.WEIGHT_LOADING),
    ("self.collective_rpc('determine_available_memory')", Phase.KV_CACHE_ALLOC),
    ('self._run_workers("load_model", max_concurrent_workers=None)', Phase.WEIGHT_LOADING),
    ('self.collective_rpc("init_device")', Phase.LAUNCH),
])
def test_vllm_executor_rpc_by_name_dates_a_traceback_cut_before_the_worker(call: str,
                                                                             phase: Phase) -> None:
    lines = ["Traceback (most recent call last):",
             f'  File "{VL}/executor/uniproc_executor.py", line 47, in _init_executor',
             f"    {call}",
             f'  File "{VL}/executor/uniproc_executor.py", line 56, in collective_rpc']
    v = verdict(*lines, engine="vllm")
    assert v.phase is phase


_ROUTES = ("INFO 08-12 01:42:39 [gpu_model_runner.py:1985] Model loading took 2.8871 GiB and "
           "5.965132 seconds",
           "(APIServer pid=13457) INFO 08-12 01:42:41 [launcher.py:37] Route: /openapi.json, "
           "Methods: HEAD, GET",
           "(APIServer pid=13457) INFO 08-12 01:42:41 [launcher.py:37] Route: /health, "
           "Methods: GET")


def test_vllm_routes_listed_after_a_gap_are_past_warmup() -> None:
    # a paste that lost the KV sizing, capture and warmup between the loader and the routes:
    # the API server lists them only once the engine is up
    assert tracker_phase(*_ROUTES, engine="vllm") is Phase.KV_CACHE_ALLOC
    v = verdict(*_ROUTES, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.WARMUP)


# --- the twenty-first batch: idle stats, an RL trainer's engine cycle, Ray's worker death -----

_IDLE_STATS = ("INFO 08-22 20:52:46 metrics.py:406] Avg prompt throughput: 0.0 tokens/s, Avg "
               "generation throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: "
               "0 reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%.")


def test_vllm_idle_stats_alone_are_a_ready_engine_not_serving() -> None:
    v = verdict(_IDLE_STATS, _IDLE_STATS, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.READY, None)
    # busy stats are traffic: serving
    busy = _IDLE_STATS.replace("Running: 0 reqs", "Running: 2 reqs")
    assert verdict(busy, engine="vllm").phase is Phase.SERVING


_FELL_ASLEEP = ("(WorkerDict pid=1113316) INFO 04-24 04:12:06 [executor_base.py:210] It took "
                "1.503383 seconds to fall asleep.")


@pytest.mark.parametrize("line", [
    "(WorkerDict pid=1113929) INFO 04-24 04:11:19 [executor_base.py:226] It took 0.510937 "
    "seconds to wake up tags ['weights']",
    "(LLMRayActor pid=95409) INFO 04-24 18:22:16 [block_pool.py:264] Successfully reset prefix "
    "cache",
])
def test_vllm_cycled_by_an_rl_trainer_is_up_and_serving(line: str) -> None:
    v = verdict(line, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING)
    assert verdict(_FELL_ASLEEP, line, engine="vllm").phase is Phase.SERVING


@pytest.mark.parametrize("line", [
    _FELL_ASLEEP,
    "(LLMRayActor pid=1212157) INFO 06-20 01:36:37 worker.py:133] Sleep mode freed 46.35 GiB "
    "memory, 26.10 GiB memory is still in use.",
])
def test_vllm_put_to_sleep_is_up_not_yet_serving(line: str) -> None:
    """Trainers put the engine to sleep right after building it, before the first rollout."""
    v = verdict(line, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.READY)
    up = ("(WorkerDict pid=9) INFO 04-24 04:11:19 [core.py:159] init engine (profile, create kv "
          "cache, warmup model) took 41.20 seconds")
    assert verdict(up, line, engine="vllm").phase is Phase.READY


def test_vllm_loading_weights_is_not_an_engine_cycle() -> None:
    # guard: the loader's own timing line is startup, not the sleep cycle
    v = verdict("INFO 04-24 18:22:16 [default_loader.py:262] Loading weights took 5.43 seconds",
                engine="vllm")
    assert v.outcome is Outcome.INCOMPLETE


def test_ray_worker_killed_by_a_system_error_ends_a_serving_engine() -> None:
    died = ("(raylet) A worker died or was killed while executing a task by an unexpected system "
            "error. To troubleshoot the problem, check the logs for the dead worker. RayTask ID: "
            "ffff Worker ID: 66 Node ID: 77 Worker IP address: 10.0.0.1 Worker port: 10003 "
            "Worker PID: 1212157 Worker exit type: SYSTEM_ERROR")
    v = verdict(_IDLE_STATS, died, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.READY, Cause.UNKNOWN)


def test_xinference_actor_address_before_a_config_rejection() -> None:
    v = verdict("ValueError: [address=127.0.0.1:37657, pid=3125985] User-specified max_model_len "
                "(4096) is greater than the derived max_model_len (seq_length=2048 or "
                "model_max_length=None in model's config.json).", engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.INVALID_CONFIG)


# --- the twenty-second batch: locales, a viewer's stamp, the API server's tasks, peer faults --

@pytest.mark.parametrize("stamp", ["авг 18 14:15:04 llm python3[27876]: ",
                                   "Mär 08 12:29:21 host sglang[123]: ",
                                   "févr. 08 12:29:21 host vllm[9]: "])
def test_journald_with_the_month_in_the_hosts_locale_is_a_wrapper(stamp: str) -> None:
    assert strip_wrappers(stamp + "(APIServer pid=1) INFO 08-18 14:15:04 [api_server.py:592] "
                          "Supported tasks: ['generate']") == "Supported tasks: ['generate']"


def test_a_word_then_numbers_is_no_journald_stamp() -> None:
    assert strip_wrappers("Step 12 12:00:00 done") == "Step 12 12:00:00 done"


def test_a_log_viewers_bare_stamp_keeps_a_tracebacks_indentation() -> None:
    lines = ["04-20 13:32:25.784  File \"/app/sglang/python/sglang/srt/managers/tp_worker.py\", "
             "line 260, in __init__",
             "04-20 13:32:25.784    self._init_model_runner()"]
    assert strip_wrappers(lines[0]).lstrip().startswith('File "/app/sglang')
    v = verdict(*lines, engine="sglang")
    assert v.outcome is Outcome.CRASHED  # a paste cut inside a traceback


def test_vllm_api_server_naming_its_tasks_is_up() -> None:
    v = verdict("(EngineCore pid=6783) INFO 07-15 04:35:17 [vllm.py:1090] Asynchronous "
                "scheduling is enabled.",
                "(APIServer pid=5711) INFO 07-15 04:35:17 [api_server.py:673] Supported tasks: "
                "['generate']", engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.WARMUP)


def test_cuda_invalid_peer_memory_access_is_an_illegal_memory_access() -> None:
    v = verdict("torch.AcceleratorError: CUDA error: Invalid access of peer GPU memory over "
                "nvlink or a hardware error", engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.ILLEGAL_MEMORY_ACCESS)


# --- the twenty-third batch: Gaudi's profile run, a Triton kernel's assert, KV backends -------

_HPU = "/usr/local/lib/python3.10/dist-packages/vllm/worker"


@pytest.mark.parametrize(("caller", "phase"), [
    ("profile_run", Phase.KV_CACHE_ALLOC),   # the memory profile run calls it too
    ("warmup_graphs", Phase.WARMUP),
])
def test_gaudi_warmup_scenario_is_dated_by_its_caller(caller: str, phase: Phase) -> None:
    lines = frame_lines((f"{_HPU}/hpu_model_runner.py", caller),
                        (f"{_HPU}/hpu_model_runner.py", "warmup_scenario"))
    assert verdict(*lines, "RuntimeError: x", engine="vllm").phase is phase


def test_a_triton_kernels_index_assert_alone_is_a_crash_of_illegal_memory_access() -> None:
    line = ("/venv/lib64/python3.12/site-packages/torch/_inductor/runtime/compile_tasks.py:45: "
            "<module>: block: [337,0,0], thread: [{t},0,0] Assertion `index out of bounds: 0 <= "
            "tl.broadcast_to(tmp10, [XBLOCK]) < 4096` failed.")
    v = verdict(line.format(t=112), line.format(t=113), engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.ILLEGAL_MEMORY_ACCESS)


def test_vllm_choosing_the_kv_cache_groups_attention_backends_is_kv_sizing() -> None:
    lines = frame_lines((f"{VL}/v1/worker/gpu_model_runner.py", "get_attn_backends_for_group"),
                        (f"{VL}/config/vllm.py", "get_layers_from_vllm_config"))
    v = verdict(*lines, "KeyError: 'language_model.model.layers.30.self_attn.attn'",
                engine="vllm")
    assert v.phase is Phase.KV_CACHE_ALLOC


def test_an_engine_death_carried_by_the_first_request_seen_is_a_crash_in_serving() -> None:
    """A fragment up by a request's traceback, whose error is the engine's death: crashed, in
    serving (the request was being served), with the engine's root error as its cause."""
    v = verdict("Error in chat completion stream generator.", *frame_lines(
        (f"{_SITE}/vllm/entrypoints/openai/serving_chat.py", "chat_completion_stream_generator"),
        ("/workspace/components/processor.py", "_generate_responses")),
        "ValueError: a python exception was caught while processing the async generator: "
        "MQEngineDeadError: Engine loop is not running. Inspect the stacktrace to find the "
        "original error: RuntimeError('Aborted due to the lack of CPU swap space.').",
        engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING,
                                             Cause.KV_CACHE_OOM), v


# --- the thirtieth batch's rules ---------------------------------------------------------------

_STATS = ("INFO 01-30 16:15:44 metrics.py:453] Avg prompt throughput: 0.0 tokens/s, Avg "
          "generation throughput: 32.5 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 "
          "reqs, GPU KV cache usage: 1.4%, CPU KV cache usage: 0.0%.")


def test_a_request_the_client_aborted_is_no_death_but_the_engine_loops_error_repr_is() -> None:
    aborted = "INFO 01-30 16:15:59 engine.py:291] Aborted request chatcmpl-04d27b242dbc4bc0b07."
    v = verdict(_STATS, aborted, _STATS.replace("Running: 1", "Running: 0"), engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING), v
    # MQLLMEngine ending its loop with logger.exception(repr(e)), its traceback cut, and the
    # carriage return a terminal paste shows as ^M
    v = verdict(_STATS, aborted, "ERROR 07-29 14:42:58 [engine.py:163] KeyError('chatcmpl-2fdd"
                "35648efc418db366c6690c29c4da')^M", engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    # shell's own abort report still is a death
    assert verdict(_STATS, "Aborted (core dumped)", engine="vllm").outcome is Outcome.CRASHED


def test_the_scheduler_stats_of_a_failed_steps_dump_are_a_crash_in_serving() -> None:
    v = verdict("(EngineCore_DP0 pid=143) ERROR 11-18 07:48:24 [dump_input.py:79] Dumping "
                "scheduler stats: SchedulerStats(num_running_reqs=12, num_waiting_reqs=1, "
                "step_counter=0, current_wave=0, kv_cache_usage=0.33)", engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v


def test_uvicorn_starting_before_any_engine_line_is_a_wrappers_app() -> None:
    """ms-swift's rollout server and TRL's vllm-serve build the engine inside their own app's
    startup: uvicorn's first lines come before the engine's; vLLM's own API server starts
    uvicorn only once the engine is up."""
    uvicorn = ["INFO:     Started server process [221294]",
               "INFO:     Waiting for application startup."]
    assert tracker_phase(*uvicorn, engine="vllm") is Phase.LAUNCH
    up = ("INFO 07-18 17:12:01 [llm_engine.py:431] init engine (profile, create kv cache, warmup "
          "model) took 5.68 seconds")
    assert tracker_phase("INFO 07-18 17:11:01 [default_loader.py:262] Loading weights took 3.1 "
                         "seconds", *uvicorn, engine="vllm") is Phase.WARMUP
    assert tracker_phase(up, engine="vllm") is Phase.WARMUP


def test_v1_attention_layers_choosing_their_backend_is_the_model_being_built() -> None:
    line = ("Using FLASHINFER attention backend out of potential backends: ['FLASHINFER', "
            "'TRITON_ATTN'].")
    v = verdict(line)  # no header: the wording alone says vLLM
    assert (v.engine, v.phase) == ("vllm", Phase.WEIGHT_LOADING), v


def test_a_native_crash_handlers_segfault_banner_is_a_death() -> None:
    v = verdict("[aiter] import [module_rmsnorm] under /opt/aiter/jit/module_rmsnorm.so",
                "!!!!!!! Segfault encountered !!!!!!!", "  ck_tile::Rmsnorm2dFwd<",
                engine="vllm")
    assert v.outcome is Outcome.CRASHED, v


# --- the thirty-first batch's rules ------------------------------------------------------------

def test_uvicorns_request_error_header_keeping_its_level_is_a_requests_error() -> None:
    v = verdict("ERROR:    Exception in ASGI application", *frame_lines(
        (f"{_SITE}/uvicorn/protocols/http/httptools_impl.py", "run_asgi"),
        (f"{_SITE}/starlette/middleware/errors.py", "__call__")), engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING), v


def test_stall_reports_with_rays_daemon_lines_between_them_are_a_hang() -> None:
    stall = ("INFO 02-23 14:22:58 llm_engine.py:877] Avg prompt throughput: 0.0 tokens/s, Avg "
             "generation throughput: 0.0 tokens/s, Running: 20 reqs, Swapped: 0 reqs, Pending: 0 "
             "reqs, GPU KV cache usage: 5.8%, CPU KV cache usage: 0.0%")
    raylet = ("(raylet) [2024-02-23 14:23:05,101 E 2215919 2215949] (raylet) "
              "file_system_monitor.cc:111: /tmp/ray/session_x is over 95% full")
    v = verdict(stall, raylet, stall, raylet, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.INCOMPLETE, Phase.SERVING, Cause.UNKNOWN), v


def test_a_method_a_v0_worker_failed_to_run_dates_the_failure() -> None:
    """worker_base's `Error executing method X`: an RL trainer's weight update is serving."""
    v = verdict("(LLMRayActor pid=116812) ERROR 06-13 13:24:49 worker_base.py:148] Error "
                "executing method update_weight. This might cause deadlock in distributed "
                "execution.", "RuntimeError: NCCL error: unhandled cuda error", engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v
    v = verdict("ERROR 06-13 13:24:49 worker_base.py:148] Error executing method load_model. This "
                "might cause deadlock in distributed execution.", "RuntimeError: boom",
                engine="vllm")
    assert v.phase is Phase.WEIGHT_LOADING, v


@pytest.mark.parametrize("frame", [
    (f"{_SITE}/sglang/bench_latency.py", "run_once"),
    (f"{_SITE}/sglang/multimodal_gen/runtime/entrypoints/diffusion_generator.py", "generate"),
])
def test_sglangs_offline_benchmark_and_diffusion_generator_are_serving(frame) -> None:
    v = verdict(*frame_lines(frame), "AttributeError: 'NoneType' object has no attribute 'evict'",
                engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v


def test_an_rl_trainer_resuming_the_engines_memory_is_the_rollout_cycle() -> None:
    v = verdict("(SGLangHttpServer pid=250977) [torch_memory_saver.cpp] CUresult error: 2 (out of "
                "memory)  file=csrc/utils.h func=cu_mem_create line=194",
                "(WorkerDict pid=209740) WARNING:2025-11-28 16:00:45,396:Async request to "
                "resume_memory_occupation timed out (attempt 1)",
                "(SGLangHttpServer pid=250976) [torch_memory_saver.cpp] CUresult error: 2 (out of "
                "memory)  file=csrc/utils.h func=cu_mem_create line=194 [repeated 7x across "
                "cluster]", engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING, Cause.CUDA_OOM), v


# --- the thirty-second batch's rules -----------------------------------------------------------

def test_a_whole_call_printed_over_lines_with_is_profile_is_the_profile_run() -> None:
    lines = ['  File "/x/vllm/v1/worker/gpu_model_runner.py", line 5501, in profile_run_caller',
             "    hidden_states, last_hidden_states = self._dummy_run(",
             "        self.max_num_tokens, is_profile=True", "    )",
             '  File "/x/torch/utils/_contextlib.py", line 120, in decorate_context']
    v = verdict(*lines, engine="vllm")
    assert v.phase is Phase.KV_CACHE_ALLOC, v


def test_a_model_loader_modules_frames_are_weight_loading() -> None:
    v = verdict(*frame_lines(("/x/tpu_commons/models/jax/model_loader.py", "get_flax_model")),
                "KeyError: 'Qwen2_5_VLForConditionalGeneration'", engine="vllm")
    assert v.phase is Phase.WEIGHT_LOADING, v


def test_bare_uvicorn_lines_vote_for_vllm() -> None:
    """vLLM leaves uvicorn's default format; SGLang stamps the lines with its time (2025 on)."""
    v = verdict("INFO:     Started server process [4803]", "INFO:     Waiting for application "
                "startup.", "INFO:     Application startup complete.")
    assert (v.engine, v.outcome, v.phase) == ("vllm", Outcome.READY, Phase.READY), v


# --- the thirty-third batch's rules ------------------------------------------------------------

def test_an_error_line_of_v0s_worker_base_is_a_workers_fatal_error() -> None:
    """execute_method logs the exception of the method it ran and re-raises it: any ERROR line
    of worker_base.py is a worker dying, even with only the exception's own lines kept."""
    v = verdict("(RayWorkerWrapper pid=118835) ERROR 02-26 09:45:37 worker_base.py:572]         "
                "open device 1 failed, runtime result = 107001.", engine="vllm")
    assert v.outcome is Outcome.CRASHED, v
    # guard: an INFO line of the same module is nothing
    v = verdict("(RayWorkerWrapper pid=118835) INFO 02-26 09:45:37 worker_base.py:572] "
                "open device 1 done", engine="vllm")
    assert v.outcome is Outcome.INCOMPLETE, v


def test_vllm_omnis_stage_tag_is_a_wrapper() -> None:
    assert strip_wrappers('[Stage-0] ERROR 01-06 14:27:33 [gpu_worker.py:226]   File "/x.py", '
                          'line 660, in forward') == '  File "/x.py", line 660, in forward'


def test_a_data_parallel_ranks_dummy_batch_is_serving() -> None:
    v = verdict("WorkerProc hit an exception.", *frame_lines(("/x/vllm/v1/executor/multiproc_executor.py", "worker_busy_loop"),
                             ("/x/vllm_ascend/worker/worker.py", "execute_dummy_batch")),
                "RuntimeError: stream sync failed", engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING), v


def test_a_request_handler_of_the_2026_openai_layout_is_a_requests_error() -> None:
    """entrypoints/openai/<kind>/serving.py: a request's traceback, the server goes on."""
    v = verdict("(APIServer pid=9880) ERROR 02-21 11:34:27 [serving.py:120] Error in "
                "preprocessing prompt inputs", *frame_lines((f"{_SITE}/vllm/entrypoints/openai/completion/serving.py",
                              "render_completion_request")), engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING), v


def test_a_requests_traceback_through_v1s_output_handler_carries_the_engines_death() -> None:
    v = verdict(*frame_lines(
        (f"{_SITE}/vllm/entrypoints/openai/chat_completion/serving.py",
         "chat_completion_stream_generator"),
        (f"{_SITE}/vllm/v1/engine/async_llm.py", "generate"),
        (f"{_SITE}/vllm/v1/engine/output_processor.py", "get"),
        (f"{_SITE}/vllm/v1/engine/async_llm.py", "output_handler")), engine="vllm")
    assert v.outcome is Outcome.CRASHED, v


# --- the thirty-fourth batch's rules -----------------------------------------------------------

def test_a_launch_scripts_tag_and_bar_are_a_wrapper() -> None:
    assert strip_wrappers("[switch]   | (APIServer pid=1)   File \"/x.py\", line 136, in f") == \
        '  File "/x.py", line 136, in f'


def test_systemd_reporting_the_main_process_failed_is_a_death() -> None:
    line = ("Nov 13 01:50:25 host systemd[1]: vllm-minimax.service: Main process exited, "
            "code=exited, status=1/FAILURE")
    v = verdict("INFO 11-13 01:50:20 [api_server.py:1] vLLM API server version 0.11.0", line,
                engine="vllm")
    assert v.outcome is Outcome.CRASHED, v
    # guard: the SIGTERM of a stop is no failure
    v = verdict("INFO 11-13 01:50:20 [api_server.py:1] vLLM API server version 0.11.0",
                line.replace("code=exited, status=1/FAILURE", "code=killed, status=15/TERM"),
                engine="vllm")
    assert v.outcome is not Outcome.CRASHED, v


def test_torchs_inductor_log_lines_are_vllms_profiling_compile() -> None:
    assert tracker_phase(
        "(EngineCore pid=627) (RayWorkerWrapper pid=828) [rank0]:W0324 14:40:02.216000 828 "
        "torch/_inductor/triton_bundler.py:395] Directory /tmp/x is not empty - skipping!"
    ) is Phase.KV_CACHE_ALLOC


def test_vllm_010s_worker_tag_with_its_rank_is_a_wrapper() -> None:
    assert strip_wrappers("(VllmWorker TP0 pid=2748156) ERROR 08-13 22:40:00 [multiproc_executor"
                          ".py:596]     return fn(*args, **kwargs)") == "    return fn(*args, **kwargs)"


@pytest.mark.parametrize("tag, path, func", [
    ("chat_utils.py:1475", "vllm/entrypoints/chat_utils.py", "apply_hf_chat_template"),
    # (2026: the renderer)
    ("hf.py:484", "vllm/renderers/hf.py", "safe_apply_chat_template"),
])
def test_a_chat_templates_traceback_is_one_requests_error_of_a_server_serving(tag, path, func):
    """vLLM's API server applying a chat request's template: the handler logs the failure and
    answers 400; the fragment shows a server up and serving."""
    p = f"(APIServer pid=1058477) ERROR 09-15 07:05:30 [{tag}] "
    text = "\n".join([
        f"{p}An error occurred in `transformers` while applying chat template",
        f"{p}Traceback (most recent call last):",
        f'{p}  File "/venv/lib/python3.12/site-packages/{path}", line 1462, in {func}',
        f"{p}    return tokenizer.apply_chat_template(",
    ]) + "\n"
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING), v


def test_a_requests_exception_group_box_is_still_that_requests_error():
    """Starlette's task group wraps a streamed request's error in an ExceptionGroup: the box's
    nested traceback is the same request's, not a death."""
    p = "(APIServer pid=85502) "
    text = "\n".join([
        f'{p}INFO:     127.0.0.1:5000 - "POST /v1/responses HTTP/1.1" 200 OK',
        f"{p}ERROR:    Exception in ASGI application",
        f"{p}  + Exception Group Traceback (most recent call last):",
        f'{p}  |   File "/venv/lib/python3.12/site-packages/starlette/responses.py", line 270, in '
        "__call__",
        f"{p}  |     async with anyio.create_task_group() as task_group:",
        f"{p}  | ExceptionGroup: unhandled errors in a TaskGroup (1 sub-exception)",
        f"{p}  +-+---------------- 1 ----------------",
        f"{p}    | Traceback (most recent call last):",
    ]) + "\n"
    v = classify_text(text, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING), v


# --- the forty-first batch's kinds ----------------------------------------------------------

_JOURNAL = "Dec 09 13:35:40 host deepseek-ocr[206214]: (EngineCore_DP0 pid=86) "


def test_a_journals_unindented_source_line_still_dates_the_frame_above() -> None:
    # journald keeps no indentation: the engine core's busy loop shows only as a source line
    lines = [_JOURNAL + "Traceback (most recent call last):",
             _JOURNAL + f'File "{VL}/v1/engine/core.py", line 835, in run_engine_core',
             _JOURNAL + "engine_core.run_busy_loop()"]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)
    # guard: an exception line right under a source line is no source line
    ray = ["Traceback (most recent call last):",
           '  File "/x/ray/_private/worker.py", line 906, in get_objects',
           "    raise value.as_instanceof_cause()",
           "ray.exceptions.RayTaskError(OutOfMemoryError): ray::main_task() (pid=5, ip=10.1.2.6)",
           '  File "/x/verl/trainer/main_ppo.py", line 168, in main_task',
           "    trainer.fit()",
           "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB."]
    assert verdict(*ray, engine="sglang").cause is Cause.CUDA_OOM


@pytest.mark.parametrize("cut", ["Traceback (most recent call las", "Traceback (most rec",
                                 "Traceback (most recent call last):"])
def test_a_log_ending_on_a_traceback_header_cut_mid_word_is_a_crash(cut: str) -> None:
    loaded = ("INFO 09-03 07:45:49 habana_model_runner.py:486] Loading model weights took in "
              "total 14.21 GiB of device memory (14.22 GiB/93.55 GiB used)")
    v = verdict(loaded, f"[rank0]: {cut}", engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC)
    # guard: a line merely starting with the word is no header
    assert verdict(loaded, "Traceback (abridged) follows", engine="vllm").outcome is \
        Outcome.INCOMPLETE


def test_transformers_neuronx_moving_the_model_to_the_device_is_weight_loading() -> None:
    nx = "/home/ubuntu/venv/lib/python3.10/site-packages/transformers_neuronx"
    lines = [*frame_lines((f"{nx}/decoder.py", "to_neuron"), (f"{nx}/decoder.py", "init_caches"),
                          (f"{nx}/ops.py", "parallel_to_nc"))]
    v = verdict(*[f"ERROR 01-26 10:27:42 engine.py:381] {line}" for line in lines],
                engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.WEIGHT_LOADING)


def test_the_client_finding_its_engine_core_gone_after_a_requested_shutdown_is_no_crash() -> None:
    died = ("ERROR 05-12 11:36:01 [core_client.py:704] Engine core proc EngineCore died "
            "unexpectedly, shutting down client.")
    lines = ["(EngineCore pid=970) INFO 05-12 11:36:00 [core.py:1201] Shutdown initiated "
             "(timeout=0)",
             "(EngineCore pid=970) INFO 05-12 11:36:00 [core.py:1224] Shutdown complete", died]
    v = verdict(*lines, engine="vllm")
    assert v.outcome is not Outcome.CRASHED and v.cause is None
    # guard: with no shutdown of its own before it, the core died
    assert verdict(died, engine="vllm").outcome is Outcome.CRASHED


def test_an_engine_config_line_cut_short_is_no_evidence() -> None:
    lines = ["INFO 08-06 01:29:13 [core.py:455] Waiting for init message from front-end.",
             "INFO 08-06 01:29:13 [core.py:70] Initializing a V1 LLM engine (v0.9.1) with "
             "config: model='/DotsOCR', speculative_config=None"]
    v = verdict(*lines, engine="vllm")
    assert v.evidence == (lines[0],)


# --- the forty-second batch's kinds ---------------------------------------------------------


def test_a_docker_json_file_log_is_read_as_its_records() -> None:
    records = ('{"log":"\\u001b[36m(WorkerDict pid=616, ip=10.0.0.9)\\u001b[0m frame #44: '
               '\\u003cunknown function\\u003e + 0x29ac5d (0x55ba19095c5d in sglang::scheduler_'
               'TP0)\\n","stream":"stderr","time":"2025-03-08T12:29:21.1Z"} '
               '{"log":"\\u001b[36m(WorkerDict pid=616, ip=10.0.0.9)\\u001b[0m frame #45: '
               'PyEval_EvalCode + 0x4d')
    assert docker_json_records(records) == [
        "(WorkerDict pid=616, ip=10.0.0.9) frame #44: <unknown function> + 0x29ac5d "
        "(0x55ba19095c5d in sglang::scheduler_TP0)",
        "(WorkerDict pid=616, ip=10.0.0.9) frame #45: PyEval_EvalCode + 0x4d"]
    # a record cut inside an escape keeps what is whole; the log ends on a native frame
    v = verdict(records + '\\n","stream":"stderr"} {"log":"\\u001b[36m(WorkerDict pid=616)\\u00')
    assert v.outcome is Outcome.CRASHED
    # an escaped quote inside a record does not end it
    assert docker_json_records('{"log":"say \\"hi\\"\\n"}') == ['say "hi"']


@pytest.mark.parametrize("end", ["段错误", "段错误 (核心已转储)",
                                 "run.sh: 行 3: 1234 已杀死 python -m vllm.entrypoints"])
def test_a_chinese_shells_report_of_a_fatal_signal_ends_the_run(end: str) -> None:
    started = "INFO 08-20 16:12:38 [api_server.py:1043] vLLM API server version 0.8.5.post1"
    assert verdict(started, "Started engine process with PID 118001", end,
                   engine="vllm").outcome is Outcome.CRASHED
    # guard: a word that only starts like one
    assert verdict(started, "段错误了吗", engine="vllm").outcome is Outcome.INCOMPLETE


def test_each_v0_worker_rank_ends_its_own_load() -> None:
    took = "(VllmWorker rank={r} pid=15{r}) INFO 08-06 10:40:26 [default_loader.py:262] " \
           "Loading weights took 35.04 seconds"
    end = "(VllmWorker rank={r} pid=15{r}) INFO 08-06 10:40:27 [model_runner_v1.py:2070] " \
          "Loading model weights took 16.4610 GB"
    lines = [took.format(r=r) for r in range(4)]
    assert tracker_phase(*lines, end.format(r=3)) is Phase.WEIGHT_LOADING
    assert tracker_phase(*lines, *(end.format(r=r) for r in range(4))) is Phase.KV_CACHE_ALLOC


def test_a_tool_parsers_logged_error_is_one_requests() -> None:
    api = "(APIServer pid=85343) "
    err = api + "ERROR 10-09 09:39:54 [hermes_tool_parser.py:157] "
    lines = [api + 'INFO:     10.0.0.7:50001 - "POST /v1/chat/completions HTTP/1.1" 200 OK',
             err + "Error in extracting tool call from response.",
             err + "Traceback (most recent call last):",
             err + f'  File "{VL}/entrypoints/openai/tool_parsers/hermes_tool_parser.py", '
                   'line 135, in extract_tool_calls',
             err + "    json.loads(match[0] if match[0] else match[1])",
             err + "json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)"]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)


# --- the forty-third batch's kinds ----------------------------------------------------------


@pytest.mark.parametrize("frame", [
    (f"{VL}/model_executor/models/utils.py", "make_layers"),
    ("/vllm-workspace/vllm-ascend/vllm_ascend/models/deepseek_v2.py", "__init__"),
])
def test_building_the_models_layers_is_weight_loading(frame: tuple[str, str]) -> None:
    lines = frame_lines((f"{VL}/v1/executor/multiproc_executor.py", "__init__"), frame)
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.WEIGHT_LOADING)


def test_canns_device_synchronisation_timing_out_ends_a_serving_run() -> None:
    lines = ['(APIServer pid=9893) INFO:     10.0.0.5:35496 - "POST /v1/chat/completions '
             'HTTP/1.1" 200 OK',
             "EE9999[PID: 10180] 2026-06-10-17:20:44.486.049 (EE9999):  "
             "rtDeviceSynchronizeWithTimeout execution failed, reason=vector core timeout",
             "TraceBack (most recent call last):",
             "       wait for compute device to finish failed, runtime result = 507034."
             "[FUNC:ReportCallError][FILE:log_inner.cpp][LINE:148]"]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)


def test_the_shells_quit_core_dumped_as_the_last_line_is_a_death() -> None:
    waiting = ("2025-03-21T07:56:53.878390Z  INFO dynamo_llm::engines::sglang::worker: Waiting "
               "for sglang0 to signal that it's ready")
    assert verdict(waiting, "Quit (core dumped)", engine="sglang").outcome is Outcome.CRASHED
    assert verdict(waiting, "Quit (core dumped) is what it said", engine="sglang").outcome \
        is Outcome.CRASHED
    assert verdict(waiting, "Quitting", engine="sglang").outcome is Outcome.INCOMPLETE


# --- the forty-fourth batch's kinds ---------------------------------------------------------


@pytest.mark.parametrize(("tag", "message"), [
    ("[VLLM LOG] (Worker_TP3 pid=51793) ERROR 02-25 02:56:51 [multiproc_executor.py:783] ",
     '  File "/x/vllm/model_executor/models/utils.py", line 3, in load_weights'),
    ("[RAW SERVER] ", "INFO 09-01 10:00:00 [api_server.py:1] x"),
    ("[DP0 TP0 EP0] ", "Scheduler hit an exception"),
])
def test_a_launchers_upper_case_tag_is_a_wrapper(tag: str, message: str) -> None:
    expected = message if message.startswith("  File") else message.split("] ", 1)[-1] \
        if message.startswith("INFO") else message
    assert strip_wrappers(tag + message) == expected
    # guard: a single level word in brackets is the message's own
    assert strip_wrappers("[ERROR] Failed to activate environment") == \
        "[ERROR] Failed to activate environment"


def test_profiling_the_cuda_graphs_memory_is_kv_sizing_not_capture() -> None:
    line = ("(EngineCore pid=91294) INFO 04-14 23:39:44 [gpu_model_runner.py:5876] Profiling "
            "CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)")
    assert tracker_phase(line) is Phase.KV_CACHE_ALLOC


def test_a_repository_without_generation_config_is_no_missing_model() -> None:
    lines = ["[2026-08-01 22:25:30] Failed to load generation config for org/m: org/m does not "
             "appear to have a file named generation_config.json. Checkout "
             "'https://huggingface.co/org/m/tree/main' for available files.",
             "[2026-08-01 22:25:31] Load weight begin. avail mem=97.74 GB"]
    v = verdict(*lines, engine="sglang")
    assert v.outcome is Outcome.INCOMPLETE and v.cause is not Cause.MODEL_NOT_FOUND


# --- the forty-fifth batch's kinds ----------------------------------------------------------


def test_an_online_weight_update_is_a_serving_engine_not_its_startup() -> None:
    lines = ["[2026-02-02 01:12:24] Start update_weights. Load format=auto",
             "[2026-02-02 01:12:24] Update engine weights online from disk begin. avail mem=22.7 GB",
             "[2026-02-02 01:12:24] Beginning to load weights",
             "Loading safetensors checkpoint shards:  75% Completed | 3/4 [00:05<00:01,  1.8s/it]"]
    v = verdict(*lines, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING)
    # guard: the startup's own load stays weight_loading
    v = verdict(*lines[2:], engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.INCOMPLETE, Phase.WEIGHT_LOADING)


@pytest.mark.parametrize("leak", [
    "ValueError: token_to_kv_pool_allocator memory leak detected! available_size=3189424, "
    "protected_size=0, self.max_total_num_tokens=3185200",
    "KV cache pool leak detected!",
])
def test_the_idle_checks_pool_leak_is_a_server_that_served(leak: str) -> None:
    assert tracker_phase(leak, engine="sglang") is Phase.SERVING
    # guard: the pool's size reported at startup is no leak
    assert tracker_phase("max_total_num_tokens=3185200, chunked_prefill_size=4096",
                         engine="sglang") is not Phase.SERVING


@pytest.mark.parametrize(("path", "func"), [
    (f"{VL}/v1/worker/gpu_worker.py", "sample_tokens"),
    (f"{VL}/v1/structured_output/__init__.py", "_create_grammar"),
])
def test_sampling_a_step_or_compiling_a_requests_grammar_is_serving(path: str, func: str) -> None:
    lines = frame_lines((f"{VL}/v1/executor/multiproc_executor.py", "worker_busy_loop"),
                        (path, func))
    assert verdict(*lines, engine="vllm").phase is Phase.SERVING
    # guard: the busy loop alone dates nothing
    assert verdict(*lines[:3], engine="vllm").phase is Phase.LAUNCH


def test_a_prefix_cache_reset_refused_is_an_engine_in_its_rollout_cycle() -> None:
    line = ("(WorkerDict pid=6249) WARNING 11-08 04:43:11 [block_pool.py:304] Failed to reset prefix "
            "cache because some blocks (512) are not freed yet")
    v = verdict(line, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING)


def test_rays_unhandled_error_of_a_task_is_a_death() -> None:
    lines = ["(TaskRunner pid=5757) Unhandled error (suppress with 'RAY_IGNORE_UNHANDLED_ERRORS=1'): "
             "ray::WorkerDict.actor_rollout_generate_sequences() (pid=6249, ip=10.1.2.3)",
             "(TaskRunner pid=5757)            ^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^^",
             '(TaskRunner pid=5757)   File "/local/apps/verl/single_controll']
    assert verdict(*lines, engine="vllm").outcome is Outcome.CRASHED
    # guard: without Ray's report the cut frame alone is no death
    assert verdict(*lines[1:], engine="vllm").outcome is Outcome.INCOMPLETE


def test_a_terminals_ctrl_c_echo_is_a_stop() -> None:
    lines = ["2025-07-08 19:57:04  INFO sglang_router_rs::router: src/router.rs:354: Worker is not "
             "ready yet",
             "^C^C^C2025-07-08 19:58:04  INFO sglang_router_rs::router: src/router.rs:354: Worker "
             "is not ready yet",
             "2025-07-08 19:58:04  INFO sglang_router_rs::router: src/router.rs:354: Worker is not "
             "ready yet"]
    v = verdict(*lines, engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, None)
    # guard: without the echo the router waiting on its worker names no stop
    assert verdict(lines[0], lines[2], engine="sglang").cause is Cause.UNKNOWN


def test_a_crashed_container_as_the_last_line_is_a_death() -> None:
    lines = ['16:52:53 - "vllm-standalone-llama-3-1b-845945945-dljsw" pod running',
             "16:52:53 - Waiting for pods to be Ready (timeout=900s)",
             "16:53:24 - ❌ Crashed container in pod: vllm-standalone-llama-3-1b-845945945-dljsw"]
    assert verdict(*lines, engine="vllm").outcome is Outcome.CRASHED
    assert verdict(*lines[:2], engine="vllm").outcome is Outcome.INCOMPLETE


def test_a_routers_health_check_of_another_service_dates_nothing() -> None:
    lines = ["2026-09-30 11:27:30  INFO smg::server: src/server.rs:792: Starting router on "
             "10.10.1.2:8001",
             'Error: "PVD vector group default failed validation: PVD vector coordinator health '
             'check failed: error sending request for url (http://10.10.1.2:9100/health)"']
    v = verdict(*lines, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.LAUNCH,
                                             Cause.HEALTH_CHECK_FAILED)
    # guard: SGLang's own /health failing on its detokenizer is a server that was up
    sglang_own = ("[2025-03-01 10:00:00] Health check failed. Server couldn't get a response from "
                  "detokenizer for last 20 seconds. tic start time: 10:00:00. last_heartbeat time: "
                  "09:59:00")
    assert verdict(sglang_own, engine="sglang").phase is Phase.READY


def test_a_log_ending_in_a_rust_panic_ended_on_it() -> None:
    lines = ["thread 'tokio-runtime-worker' panicked at lib/llm/src/engines/vllm/worker.rs:247:17:",
             "Failed to import python 'vllm' module. Are we running in the correct venv? "
             "AttributeError: class must define a '_type_' attribute",
             "stack backtrace:",
             "   0: rust_begin_unwind",
             "   1: core::panicking::panic_fmt",
             "   2: dynamo_llm::engines::vllm::worker::python_imports",
             "  15: tokio::runtime::blocking::pool::"]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.IMPORT_ERROR)
    assert v.evidence and "Failed to import python 'vllm' module" in " ".join(v.evidence)
    # guard: numbered lines with no panic above them are no panic's report
    assert verdict(*lines[3:], engine="vllm").outcome is Outcome.INCOMPLETE


# --- the forty-sixth batch's kinds ----------------------------------------------------------


def test_a_log_that_restarted_after_a_death_is_judged_on_its_last_run() -> None:
    first = ["INFO 09-20 10:00:00 api_server.py:1] vLLM API server version 0.6.1",
             "ERROR 09-20 10:00:30 launcher.py:1] [Errno 98] error while attempting to bind on "
             "address ('0.0.0.0', 8000): address already in use",
             "OSError: [Errno 98] Address already in use"]
    again = ["vllm exited with code 1 (restarting)",
             "INFO 09-20 10:00:40 api_server.py:1] vLLM API server version 0.6.1",
             "INFO 09-20 10:00:40 api_server.py:2] args: Namespace(model='m')"]
    v = verdict(*first, *again, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, Cause.UNKNOWN)
    # guard: the run that died, alone, died of its port
    v = verdict(*first, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.PORT_IN_USE)


def test_the_workers_warm_up_caps_the_frames_under_it() -> None:
    outer = (f"{VL}/v1/worker/gpu_worker.py", "compile_or_warm_up_model")
    under = [(f"{VL}/v1/worker/gpu/warmup.py", "warmup_kernels"),
             (f"{VL}/v1/worker/gpu_worker.py", "sample_tokens")]
    assert verdict(*frame_lines(outer, *under), engine="vllm").phase is Phase.WARMUP
    # guard: the same sampling in a step of the engine's is serving
    assert verdict(*frame_lines(*under[1:]), engine="vllm").phase is Phase.SERVING


# --- the forty-seventh batch's kinds --------------------------------------------------------


def test_v0s_engine_loop_dying_is_a_death_in_serving() -> None:
    lines = ["INFO 08-16 10:12:59 async_llm_engine.py:494] Received request cmpl-a50b-0: prompt: "
             "'San Francisco is a'",
             "INFO 08-16 10:13:09 metrics.py:217] Avg prompt throughput: 0.0 tokens/s, Avg "
             "generation throughput: 0.0 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs",
             "ERROR 08-16 10:13:19 async_llm_engine.py:41] Engine background task failed",
             "ERROR 08-16"]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)
    assert verdict(*lines[:2], engine="vllm").outcome is not Outcome.CRASHED


def test_requests_failed_because_the_engine_died_are_a_death_in_serving() -> None:
    lines = [f"INFO 06-25 04:34:01 [async_llm.py:345] Request cmpl-{k}f-0 failed (engine dead)."
             for k in range(3)]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)
    # guard: a request that failed for itself is no engine's death
    v = verdict("INFO 06-25 04:34:01 [async_llm.py:345] Request cmpl-1f-0 failed.", engine="vllm")
    assert v.outcome is not Outcome.CRASHED


def test_the_engine_cores_fatal_error_comes_from_its_busy_loop() -> None:
    lines = ["(EngineCore_DP0 pid=3004) ERROR 01-09 03:49:46 [core.py:902] EngineCore encountered "
             "a fatal error.",
             "(EngineCore_DP0 pid=3004) ERROR 01-09 03:49:46 [core.py:902] Traceback (most recent "
             "call last):"]
    assert verdict(*lines, engine="vllm").phase is Phase.SERVING
    # guard: a failure before the loop says it failed to start
    start = lines[0].replace("EngineCore encountered a fatal error.", "EngineCore failed to start.")
    assert verdict(start, lines[1], engine="vllm").phase is Phase.LAUNCH


def test_a_request_cut_at_raise_engine_dead_error_met_a_dead_engine() -> None:
    pre = "(APIServer pid=1) ERROR 03-12 17:42:19 [serving.py:1377] "
    lines = [pre + "Error in chat completion stream generator.",
             *(pre + line for line in frame_lines(
                 (f"{VL}/entrypoints/openai/serving_chat.py", "chat_completion_stream_generator"),
                 (f"{VL}/v1/engine/async_llm.py", "add_request"))[:-1]),
             pre + "    raise EngineDeadError()",
             pre + "vllm.v1.engine.ex"]
    assert verdict(*lines, engine="vllm").outcome is Outcome.CRASHED
    # guard: the same request cut at another raise is the request's error
    other = [line.replace("raise EngineDeadError()", "raise ValueError(msg)") for line in lines]
    assert verdict(*other, engine="vllm").outcome is not Outcome.CRASHED


def test_a_vllm_tag_with_its_bracket_rendered_twice_is_a_wrapper() -> None:
    line = ("(APIServer pid=1) ERROR 10-20 03:20:50 [async_llm.py:485[]   File \"/x/vllm/v1/engine/"
            "async_llm.py\", line 444, in output_handler")
    assert strip_wrappers(line) == '  File "/x/vllm/v1/engine/async_llm.py", line 444, in ' \
        'output_handler'


# --- the forty-eighth batch's kinds ---------------------------------------------------------


def test_uvicorns_graceful_end_after_ready_is_a_stop_not_a_silent_death() -> None:
    lines = ["(APIServer pid=9) INFO:     Application startup complete.",
             "(APIServer pid=9) INFO:     Shutting down",
             "[rank0]:[W328 13:28:26.872265262 ProcessGroupNCCL.cpp:1553] Warning: WARNING: "
             "destroy_process_group() was not called before program exit, which can leak resources.",
             "(APIServer pid=9) INFO:     Waiting for application shutdown.",
             "(APIServer pid=9) INFO:     Application shutdown complete.",
             "(APIServer pid=9) INFO:     Finished server process [9]"]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.READY, None)
    # guard: the exit-time warning with no graceful end, then an error the process printed
    # as it went, is a death (the warning alone, nothing fatal printed, is a kill from outside)
    died = [*lines[:3], "Traceback (most recent call last):",
            '  File "/x/vllm/entrypoints/cli/main.py", line 7, in main']
    assert verdict(*died, engine="vllm").outcome is Outcome.CRASHED


def test_the_compiled_graph_cached_or_loaded_is_the_profiling_runs_compile() -> None:
    for line in ("(Worker_TP0 pid=794) INFO 04-30 08:58:51 [backends.py:376] Cache the graph of "
                 "compile range (1, 64) for later use",
                 "INFO 03-02 10:00:00 [backends.py:1] Directly load the compiled graph(s) for "
                 "compile range (1, 8192) from the cache, took 5.1 s"):
        assert tracker_phase(line) is Phase.KV_CACHE_ALLOC


# --- the forty-ninth batch's kinds ----------------------------------------------------------


def test_the_api_server_starting_alone_shows_the_engine_up() -> None:
    # run_server logs it only once the engine client is built: ready in warmup, as the
    # engine's own `init engine ... took` line says
    for line in ("(APIServer pid=2520) INFO 09-24 11:04:27 [api_server.py:1019] Starting vLLM "
                 "API server 0 on http://0.0.0.0:8000",
                 "INFO 04-14 22:04:45 [api_server.py:1081] Starting vLLM API server on "
                 "http://0.0.0.0:8000"):
        v = verdict(line, engine="vllm")
        assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.WARMUP, None)
    # guard: a launch script's own announcement before the engine starts
    assert verdict("Starting vLLM server...", engine="vllm").outcome is Outcome.INCOMPLETE


_TRANSFER_ERROR = [
    "[2026-07-21 08:06:26 TP0 EP0] Prefill batch, #new-seq: 2, #new-token: 20224, "
    "#cached-token: 0, token usage: 0.01, #running-req: 0, #queue-req: 7,",
    "[2026-07-21 08:06:26 TP1 EP1] Unexpected transfer worker error for room 5839938415251080346",
    "Traceback (most recent call last):",
    '  File "/x/sglang/srt/disaggregation/nixl/conn.py", line 568, in transfer_worker',
    "    kv_xfer_handle = self.send_kvcache(",
]


def test_a_pd_senders_transfer_error_for_one_room_is_that_requests() -> None:
    # SGLang logs it, marks the room failed and tells decode; the worker thread goes on
    v = verdict(*_TRANSFER_ERROR, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)
    # guard: the same traceback under no such report is a death
    v = verdict(*(_TRANSFER_ERROR[:1] + _TRANSFER_ERROR[2:]), engine="sglang")
    assert v.outcome is Outcome.CRASHED


def test_a_captured_graphs_update_before_a_replay_is_no_capture() -> None:
    # torch_npu's NPUGraph.update rewrites a captured graph's inputs before each replay
    lines = frame_lines((f"{_SITE}/torch_npu/npu/graphs.py", "update"),
                        (f"{_SITE}/torch_npu/npu/graphs.py", "update_capture_record"))
    lines.append("RuntimeError: NPU function error: c10_npu::acl::AclmdlRICaptureTaskUpdateEnd")
    assert verdict(*lines, engine="sglang").phase is Phase.LAUNCH
    # guard: the capture's own frame still dates the capture
    lines = frame_lines((f"{_SITE}/sglang/srt/model_executor/npu_graph_runner.py",
                         "capture_one_batch_size"))
    lines.append("RuntimeError: NPU function error")
    assert verdict(*lines, engine="sglang").phase is Phase.CUDA_GRAPH_CAPTURE


# --- the fiftieth batch's kinds -------------------------------------------------------------


def test_sglang_loaders_own_lines_date_weight_loading() -> None:
    for line in ("Cloning 16 replicas of the shared expert into MoE:  97%|█████████▋| 56/58 "
                 "[00:43<00:01,  1.31it/s]",
                 "[2025-08-28 06:59:48 DP1] Some weights are not initialized from checkpoints "
                 "{'language_model.model.layers.13.self_attn.qk_norm.weight'}"):
        assert tracker_phase(line, engine="sglang") is Phase.WEIGHT_LOADING
        assert verdict(line, engine="sglang").phase is Phase.WEIGHT_LOADING


def test_a_kv_connectors_registration_line_is_kv_cache_alloc() -> None:
    line = ("(EngineCore_DP0 pid=169) INFO 12-17 22:07:02 [nixl_connector.py:749] Registering "
            "KV_Caches. use_mla: False, kv_buffer_device: cuda, use_host_buffer: False")
    assert tracker_phase(line) is Phase.KV_CACHE_ALLOC


def test_v0s_input_dump_of_a_failed_step_dates_it_as_its_frame() -> None:
    line = ("torch.OutOfMemoryError: Error in model execution (input dumped to /tmp/err_execute_"
            "model_input_20241108-023641.pkl): CUDA out of memory. Tried to allocate 296.00 MiB.")
    v = verdict(line, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.KV_CACHE_ALLOC, Cause.CUDA_OOM)


# --- the fifty-first batch's kinds ----------------------------------------------------------


def test_the_custom_all_reduce_registering_graph_buffers_is_the_capture() -> None:
    line = ('  File "/sgl-workspace/sglang/python/sglang/srt/distributed/device_communicators/'
            'custom_all_reduce.py", line 307, in register_graph_buffers')
    v = verdict("Traceback (most recent call last):", line, engine="sglang")
    assert v.phase is Phase.CUDA_GRAPH_CAPTURE


# --- the fifty-second batch's kinds ---------------------------------------------------------

_SHARDS_DONE = ("Loading safetensors checkpoint shards: 100% Completed | 4/4 "
                "[00:01<00:00,  2.31it/s]")


def test_a_bare_bar_after_the_shards_are_loaded_is_sglangs_capture() -> None:
    # an offline Engine at log level error (SGLang 0.4's docs notebooks): the shard bar, then
    # the capture loop's own bar, which has no description in those builds
    bar = "100%|██████████| 23/23 [00:06<00:00,  3.67it/s]"
    assert tracker_phase(_SHARDS_DONE, bar, engine="sglang") is Phase.CUDA_GRAPH_CAPTURE
    assert verdict(_SHARDS_DONE, bar, engine="sglang").phase is Phase.CUDA_GRAPH_CAPTURE
    # guards: a bar with a description is someone else's; a bare bar while shards still load
    # is no capture
    named = "Fetching 4 files: 100%|██████████| 4/4 [00:00<00:00, 12.1it/s]"
    assert tracker_phase(_SHARDS_DONE, named, engine="sglang") is Phase.WEIGHT_LOADING
    half = "Loading safetensors checkpoint shards:  50% Completed | 2/4 [00:01<00:01,  1.87it/s]"
    assert tracker_phase(half, bar, engine="sglang") is Phase.WEIGHT_LOADING


def test_aphrodites_weights_loaded_line_ends_weight_loading() -> None:
    # Aphrodite, the vLLM fork: each Ray worker's and the driver's end line
    lines = ("(RayWorkerAphrodite pid=2015) INFO:     Model weights loaded. Memory usage: "
             "21.13 GiB x 2 = 42.27 GiB",
             "(RayWorkerAphrodite pid=2015) ERROR:    Error executing method")
    assert tracker_phase(lines[0]) is Phase.KV_CACHE_ALLOC
    v = verdict(*lines)  # (engine detected: the fork's worker prefix is vLLM's)
    assert (v.engine, v.outcome, v.phase) == ("vllm", Outcome.CRASHED, Phase.KV_CACHE_ALLOC)


def test_vllm_omnis_orchestrator_enqueuing_a_prompt_is_serving() -> None:
    lines = ("INFO 02-25 02:59:56 [omni.py:463] [Orchestrator] All stages initialized "
             "successfully",
             "DEBUG 02-25 02:59:56 [omni.py:933] [Orchestrator] Enqueued request "
             "0_5837994d-e129-4f91-bec9-fe65d96c1394 to stage-0")
    assert tracker_phase(*lines) is Phase.SERVING
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)


def test_a_500_then_uvicorn_shutting_down_is_the_engines_death() -> None:
    # vLLM's launcher answers 500 for a dead engine and sets its server to exit
    lines = ['(APIServer pid=1) INFO:     10.88.0.1:39996 - "POST /v1/chat/completions '
             'HTTP/1.1" 500 Internal Server Error',
             "(APIServer pid=1) INFO:     Shutting down"]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, Phase.SERVING, Cause.UNKNOWN)
    # guards: the same shutdown after a 200, or after a stop asked for, is a stop
    ok = [lines[0].replace("500 Internal Server Error", "200 OK"), lines[1]]
    assert verdict(*ok, engine="vllm").outcome is Outcome.READY
    asked = [lines[0], "(APIServer pid=1) INFO 12-04 10:00:00 [launcher.py:99] Shutting down "
             "FastAPI HTTP server.", lines[1]]
    assert verdict(*asked, engine="vllm").outcome is not Outcome.CRASHED


def test_a_launchers_command_tag_and_a_bracketed_process_prefix_are_stripped() -> None:
    line = ("[2026-01-22 20:05:33] [/bin/sh]: [EngineCore_DP0][pid=1242] ERROR 01-22 "
            "12:05:33.129 [core.py:1302]     return self._get_mm_max_tokens(seq_len)")
    assert strip_wrappers(line) == "    return self._get_mm_max_tokens(seq_len)"
    # (the command with its node and rank, as before; a bracketed word alone is a message)
    assert strip_wrappers("[/bin/sh@<0,1>]: INFO ready") == "INFO ready"
    assert strip_wrappers("[ERROR]: disk full") == "[ERROR]: disk full"


# --- the fifty-third batch's kinds ----------------------------------------------------------


def test_an_engine_error_then_uvicorn_shutting_down_is_the_engines_death() -> None:
    # V0's MQLLMEngine logging the exception that ended its loop; its client ends the server
    lines = ['ERROR 02-27 20:00:22 engine.py:140]     raise Exception("Transfer Return Error")',
             "ERROR 02-27 20:00:22 engine.py:140] Exception: Transfer Return Error",
             "INFO:     Shutting down", "INFO:     Waiting for application shutdown.",
             "INFO:     Application shutdown complete.", "INFO:     Finished server process [605]"]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.cause) == (Outcome.CRASHED, Cause.UNKNOWN)
    # guard: a Ctrl-C's KeyboardInterrupt before the shutdown is a stop asked for
    stop = ["^C", "KeyboardInterrupt", *lines[2:]]
    assert verdict(*stop, engine="vllm").outcome is not Outcome.CRASHED


def test_a_ray_jobs_prefix_with_a_comma_is_stripped() -> None:
    line = "(vllm-test, pid=2150) (APIServer pid=3945)     async with build_async_engine_client("
    assert strip_wrappers(line) == "    async with build_async_engine_client("


def test_vllm_03s_init_cache_frame_is_kv_sizing() -> None:
    # a faulthandler dump through the executor's _init_cache (profile, then cache engines)
    lines = ["Fatal Python error: Aborted", "",
             'Thread 0x00007f8c (most recent call first):',
             '  File "/x/vllm/executor/ray_gpu_executor.py", line 318 in _run_workers',
             '  File "/x/vllm/executor/ray_gpu_executor.py", line 221 in _init_cache',
             '  File "/x/vllm/engine/llm_engine.py", line 103 in __init__']
    assert verdict(*lines, engine="vllm").phase is Phase.KV_CACHE_ALLOC


def test_v0s_failed_step_input_written_is_a_death() -> None:
    lines = ["INFO:     Application startup complete.",
             "INFO 01-21 20:35:45 engine.py:267] Added request cmpl-34ec2cb5ef5-0.",
             "INFO 01-21 20:35:45 model_runner_base.py:120] Writing input of failed execution "
             "to /tmp/err_execute_model_input_20250121-203545.pkl...",
             "INFO 01-21 20:35:45 model_runner_base.py:149] Completed writing input of failed "
             "execution to /tmp/err_execute_model_input_20250121-203545.pkl."]
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)


def test_v0s_pd_decode_redoing_a_forward_is_serving_traffic() -> None:
    lines = ("WARNING 06-06 09:39:00 [mooncake_store_connector.py:182] [rank0]: Failed to receive "
             "all KVs and hidden states, redo model forwarding.",)
    assert tracker_phase(*lines) is Phase.SERVING
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)


# --- the fifty-fourth batch's kinds ---------------------------------------------------------


def test_lines_of_v1s_failed_step_dump_are_a_death_in_serving() -> None:
    # the dump's header and the engine core's fatal error cut from the paste
    lines = ("(EngineCore_DP0 pid=62963) ERROR 12-09 14:04:41 [dump_input.py:79]        "
             "dtype=torch.float16), field=MultiModalFlatField(slices=[[slice(0, 1176, None)]])",
             ", 84, 85],),num_computed_tokens=0,lora_request=None), NewRequestData(req_id=4,"
             "prompt_token_ids_len=308,mm_features=[MultiModalFeatureSpec(data={",
             "(EngineCore_DP0 pid=62963) ERROR 12-09 14:04:41 [dump_input.py:79]")
    v = verdict(*lines, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)
    # guard: the same words under another logger tag are no dump
    other = tuple(line.replace("dump_input.py", "loader.py") for line in lines)
    assert verdict(*other, engine="vllm").outcome is not Outcome.CRASHED


# --- the fifty-fifth batch's kinds ----------------------------------------------------------


@pytest.mark.parametrize("line", [
    "[12-31 12:00:32] Processing prompt 1/1: A curious raccoon",
    "[01-09 15:15:49] Running pipeline stages: ['input_validation_stage', 'prompt_encoding']",
    "[12-16 08:13:07] [DenoisingStage] started...",
    "[05-08 23:21:00] [DenoisingStage] average time per step: 0.1479 seconds",
    "[12-16 08:15:15] Saved output to outputs/A_curious_raccoon_20251216-081302_483bc3b0.mp4",
])
def test_sglang_diffusion_working_on_a_request_is_serving(line: str) -> None:
    assert tracker_phase(line, engine="sglang") is Phase.SERVING
    v = verdict(line, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)


def test_a_diffusion_servers_own_warmup_generation_is_no_traffic() -> None:
    # uvicorn up, the ready line not yet printed: the first generation is the warmup's
    lines = ("[2026-06-17 13:46:50] INFO:     Uvicorn running on http://0.0.0.0:30000",
             "[06-17 13:46:52] [DenoisingStage] started...")
    assert tracker_phase(*lines, engine="sglang") is Phase.WARMUP


def test_the_diffusion_workers_execute_forward_frame_is_a_request() -> None:
    lines = frame_lines((f"{_SITE}/sglang/multimodal_gen/runtime/managers/gpu_worker.py",
                         "execute_forward"))
    assert verdict("Traceback (most recent call last):", *lines,
                   engine="sglang").phase is Phase.SERVING


# --- the fifty-seventh batch's kinds --------------------------------------------------------


def test_cloud_logging_severity_label_is_stripped() -> None:
    line = ("ERROR 2026-02-18T14:43:05.821474181Z [severity: ERROR] File "
            '"/sgl-workspace/sglang/python/sglang/srt/managers/scheduler.py", line 3076, in '
            "run_scheduler_process")
    assert strip_wrappers(line).startswith('File "/sgl-workspace/')


def test_speculative_verify_of_a_decode_step_is_serving() -> None:
    for func in ("verify", "_mamba_verify_update"):
        lines = frame_lines((f"{_SITE}/sglang/srt/speculative/eagle_worker_v2.py", func))
        assert verdict(*lines, "AttributeError: 'X' object has no attribute 'y'",
                       engine="sglang").phase is Phase.SERVING
    # guard: the draft worker's own init is a startup step, no request
    lines = frame_lines((f"{_SITE}/sglang/srt/speculative/eagle_worker_v2.py", "__init__"))
    assert verdict(*lines, "AttributeError: 'X' object has no attribute 'y'",
                   engine="sglang").phase is not Phase.SERVING


def test_vllm_01_stats_with_a_request_pending_and_nothing_running_is_a_stall() -> None:
    stats = ("INFO 08-01 03:08:51 scheduler.py:271] Throughput: {} tokens/s, Running: {} reqs, "
             "Swapped: 0 reqs, Pending: {} reqs, GPU KV cache usage: 0.0%, CPU KV cache "
             "usage: 0.0%")
    serving = stats.format("185.4", 1, 0)
    stalled = [stats.format("0.0", 0, 1)] * 3
    v = verdict(serving, *stalled, engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.INCOMPLETE, Phase.SERVING, Cause.UNKNOWN)
    # guard: idle stats (nothing pending) are a server up and waiting
    v = verdict(serving, *[stats.format("0.0", 0, 0)] * 3, engine="vllm")
    assert v.outcome is Outcome.READY


# --- the fifty-eighth batch's kinds ---------------------------------------------------------

_LEAKED = ("/usr/lib/python3.10/multiprocessing/resource_tracker.py:224: UserWarning: "
           "resource_tracker: There appear to be 2 leaked semaphore objects to clean up at "
           "shutdown", "  warnings.warn('resource_tracker: There appear to be %d '")


def test_a_run_gone_with_only_exit_warnings_was_killed_not_crashed() -> None:
    served = ("[2026-05-20 10:14:20] The server is fired up and ready to roll!",
              '[2026-05-20 10:14:30] INFO:     10.0.0.7:33540 - "POST /generate HTTP/1.1" 200 OK')
    v = verdict(*served, *_LEAKED, engine="sglang")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)
    loading = ("(EngineCore_DP0 pid=9) INFO 05-08 00:37:14 [gpu_model_runner.py:3476] Starting to "
               "load model m...",)
    v = verdict(*loading, *_LEAKED, engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.INCOMPLETE, Phase.WEIGHT_LOADING)
    # guard: an error the process printed after its exit output began is its death
    died = ("[rank0]:[W514 11:29:56.61 ProcessGroupNCCL.cpp:1496] Warning: WARNING: "
            "destroy_process_group() was not called before program exit, which can leak resources.",
            "Traceback (most recent call last):",
            '  File "/x/vllm/entrypoints/cli/main.py", line 7, in main', "    args.func(args)")
    assert verdict(*loading, *died, engine="vllm").outcome is Outcome.CRASHED


def test_sglang_health_checks_failing_until_killed_is_a_stall() -> None:
    failed = ("[2026-07-28 09:34:37] Health check failed. Server couldn't get a response from "
              "detokenizer for last 20 seconds. tic start time: 09:34:17.")
    lines = ("[2026-07-28 09:32:08] The server is fired up and ready to roll!",
             '[2026-07-28 09:33:17] INFO:     10.0.0.7:51676 - "POST /generate HTTP/1.1" 200 OK',
             failed,
             "/x/sglang/srt/entrypoints/openai/serving_chat.py:1273: FastAPIDeprecationWarning: "
             "ORJSONResponse is deprecated", "  return self.create_error_response(str(e))",
             failed, *_LEAKED)
    v = verdict(*lines, engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.INCOMPLETE, Cause.HEALTH_CHECK_FAILED)


def test_vllm_kv_transfer_metrics_with_transfers_are_traffic() -> None:
    line = ("(APIServer pid=388692) INFO 05-15 02:58:00 [metrics.py:103] KV Transfer metrics: "
            "Num successful transfers={}, Avg xfer time (ms)=63.33")
    assert tracker_phase(line.format(2)) is Phase.SERVING
    v = verdict(line.format(2), engine="vllm")
    assert (v.outcome, v.phase) == (Outcome.READY, Phase.SERVING)
    # guard: none moved is no request
    assert tracker_phase(line.format(0)) is Phase.LAUNCH


def test_sglang_scheduling_and_result_frames_are_a_served_batch() -> None:
    for path, func in (("srt/managers/scheduler_components/batch_result_processor.py",
                        "process_batch_result_decode"),
                       ("srt/managers/schedule_policy.py", "add_first_chunk_req")):
        lines = frame_lines((f"{_SITE}/sglang/{path}", func))
        assert verdict(*lines, "AssertionError: x", engine="sglang").phase is Phase.SERVING, func
    # guard: the policy built at the scheduler's init is a startup step
    lines = frame_lines((f"{_SITE}/sglang/srt/managers/schedule_policy.py", "__init__"))
    assert verdict(*lines, "AssertionError: x", engine="sglang").phase is not Phase.SERVING


def test_sglang_model_runner_kv_cache_mixin_builds_the_pools() -> None:
    lines = frame_lines((f"{_SITE}/sglang/srt/model_executor/model_runner_kv_cache_mixin.py",
                         "_init_pools"))
    v = verdict(*lines, "torch.OutOfMemoryError: CUDA out of memory.", engine="sglang")
    assert (v.phase, v.cause) == (Phase.KV_CACHE_ALLOC, Cause.CUDA_OOM)


# --- the fifty-ninth batch's kinds ----------------------------------------------------------


def test_ray_serve_replica_handling_a_request_is_one_requests_error() -> None:
    replica = "/home/ray/anaconda3/lib/python3.11/site-packages/ray/serve/_private/replica.py"
    lines = frame_lines((replica, "handle_request_with_rejection"),
                        (replica, "_call_user_generator"))
    v = verdict(*lines, "asyncio.exceptions.CancelledError", engine="vllm")
    assert (v.outcome, v.phase, v.cause) == (Outcome.READY, Phase.SERVING, None)
    # guard: the deployment's construction is where the engine is built
    lines = frame_lines((replica, "initialize_and_get_metadata"))
    assert verdict(*lines, "RuntimeError: x", engine="vllm").outcome is Outcome.CRASHED


# --- the sixtieth batch's kinds -------------------------------------------------------------


def test_ctrl_c_through_two_processes_printing_at_once_is_a_stop() -> None:
    stack = ('  File "/x/sglang/srt/managers/scheduler.py", line 789, in event_loop_overlap',
             "    recv_reqs = self.recv_requests()")
    lines = ("[2025-08-14 21:04:50] The server is fired up and ready to roll!",
             "Process Process-2:", "Process Process-1:",
             "Traceback (most recent call last):", "Traceback (most recent call last):",
             *stack, "KeyboardInterrupt", *stack, "KeyboardInterrupt",
             "[2025-08-14 21:18:35] INFO:     Shutting down")
    v = verdict(*lines, engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.READY, None)
    # guard: a failure's traceback before the Ctrl-C stays the failure
    failed = ("Traceback (most recent call last):", *stack,
              "RuntimeError: CUDA error: an illegal memory access was encountered")
    v = verdict(lines[0], *failed, *lines[1:], engine="sglang")
    assert v.outcome is Outcome.CRASHED



FLATTENED = (
    "Aug 04  00:35:11.716 | Process EngineCore_0: Traceback (most recent call last):   File "
    '"/usr/local/lib/python3.12/multiprocessing/process.py", line 314, in _bootstrap     '
    'self.run()   File "/usr/local/lib/python3.12/site-packages/vllm/v1/engine/core.py", line '
    "519, in run_engine_core     engine_core = EngineCoreProc(*args, **kwargs)   File "
    '"/usr/local/lib/python3.12/site-packages/vllm/v1/engine/core.py", line 94, in '
    "_initialize_kv_caches     available_gpu_memory = self.model_executor.determine_available_"
    "memory()   RuntimeError: the profile run failed")


def test_a_traceback_flattened_into_one_line_is_read_frame_by_frame() -> None:
    # a log viewer's copy that lost the newlines: its frames still say what the engine was
    # doing (sizing the KV cache), as they would on lines of their own
    v = classify_text(FLATTENED, engine="vllm")
    assert v.outcome is Outcome.CRASHED and v.phase is Phase.KV_CACHE_ALLOC


def test_srun_label_prefixes_are_stripped_so_the_frames_are_read() -> None:
    # `srun --label` puts the task number before every line of a multi-node SGLang run: the
    # traceback under it (a trainer's weight-update group, which only a built engine takes) is
    # read as it is without the label; an indented Rust backtrace's `0:` is no label
    assert strip_wrappers('3:   File "/x/model_runner.py", line 463, in f') == \
        '  File "/x/model_runner.py", line 463, in f'
    assert strip_wrappers("  0: rust_begin_unwind") == "  0: rust_begin_unwind"
    log = "\n".join(
        "0: " + line for line in [
            "[2025-03-05 03:55:55 TP0] Scheduler hit an exception: Traceback (most recent call "
            "last):",
            '  File "/sgl/python/sglang/srt/model_executor/model_runner.py", line 463, in '
            "init_weights_update_group",
            "    dist.barrier(group=self._model_update_group)",
            "torch.distributed.DistBackendError: NCCL error in: ProcessGroupNCCL.cpp:2045"])
    v = classify_text(log, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.CRASHED, Phase.SERVING)


@pytest.mark.parametrize("line", [
    "[rank1]:ValueError: The decoder prompt (length 16476) is longer than the maximum model "
    "length of 16384. Make sure that `max_model_len` is no smaller than the number of text "
    "tokens plus multimodal tokens.",
    "ValueError: Input prompt (9000 tokens) is too long and exceeds limit of 8192",
])
def test_vllm_refusing_a_prompt_for_the_model_s_length_was_serving(line: str) -> None:
    # vLLM sends itself no request at startup: only a client's prompt meets this check
    v = classify_text(line + "\n", engine="vllm")
    assert v.phase is Phase.SERVING


# --- faulthandler's dumps of a live process (the 121st batch's debugging aids) ---------------

_SG_UP = "[2026-12-06 10:10:35] The server is fired up and ready to roll!"
_SG_SERVED = ('[2026-12-06 10:10:35] INFO:     127.0.0.1:43472 - "POST /v1/completions HTTP/1.1" '
              "200 OK")
_DUMP = ["Thread 0x00007fc317fff6c0 (most recent call first):",
         f'  File "{_SITE}/sglang/srt/utils/watchdog.py", line 120 in _watchdog_once',
         "Current thread 0x00007fc49e433b80 (most recent call first):",
         f'  File "{_SITE}/sglang/srt/managers/scheduler.py", line 1200 in event_loop_overlap']


def test_a_thread_dump_the_server_served_after_is_no_death() -> None:
    """faulthandler registered on SIGUSR1 dumps every thread, headerless, and the scheduler
    goes on serving (cz105): the dump was a look, not a death."""
    v = verdict(_SG_UP, _SG_SERVED, *_DUMP, _SG_SERVED, engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.READY, None), v
    # guard: the same dump as the log's last lines is still read as a death
    assert verdict(_SG_UP, _SG_SERVED, *_DUMP, engine="sglang").outcome is Outcome.CRASHED
    # guard: a fatal signal's report stays one, whatever follows from other processes
    fatal = ["Fatal Python error: Segmentation fault", "", *_DUMP]
    assert verdict(_SG_UP, _SG_SERVED, *fatal, _SG_SERVED, engine="sglang").outcome \
        is Outcome.CRASHED


def test_every_dump_of_a_timer_shown_to_repeat_is_no_death() -> None:
    """dump_traceback_later(15, repeat=True): each `Timeout (0:00:15)!` dump is a live process's,
    the one the log ends on too, once an earlier one was followed by progress (cz109). A single
    timer dump at the end may be exit=True's last word (cz104): still a death."""
    timer = ["Timeout (0:00:15)!", *_DUMP]
    v = verdict(_SG_UP, *timer, _SG_SERVED, *timer, engine="sglang")
    assert (v.outcome, v.cause) == (Outcome.READY, None), v
    assert verdict(_SG_UP, _SG_SERVED, *timer, engine="sglang").outcome is Outcome.CRASHED


def test_an_operators_py_spy_dump_after_the_last_progress_is_a_stall() -> None:
    """A server up and serving, a request's batch, then `$ py-spy dump --pid N` of its
    processes pasted and nothing more (cz106): someone looking at why it stopped answering -
    incomplete, not ready. The engine's own watchdog dump on a timer proves nothing (f115)."""
    dump = ["$ py-spy dump --pid 1747", "Process 1747: python -m sglang.launch_server",
            'Thread 1747 (idle): "MainThread"',
            "    event_loop_overlap (sglang/srt/managers/scheduler.py:1200)",
            "    run_scheduler_process (sglang/srt/managers/scheduler.py:3100)"]
    batch = ("[2026-12-06 10:10:36] Decode batch, #running-req: 1, #token: 10, token usage: "
             "0.00, cpu graph: False, gen throughput (token/s): 11.54, #queue-req: 0")
    v = verdict(_SG_UP, _SG_SERVED, batch, *dump, engine="sglang")
    assert (v.outcome, v.phase) == (Outcome.INCOMPLETE, Phase.SERVING), v
    # guard: the same stacks with no operator's command (a watchdog's) leave it up
    v = verdict(_SG_UP, _SG_SERVED, batch, *dump[1:], engine="sglang")
    assert v.outcome is Outcome.READY, v
    # guard: a dump followed by more traffic was only a look
    assert verdict(_SG_UP, *dump, _SG_SERVED, engine="sglang").outcome is Outcome.READY


# --- a LoRA adapter added through the engine core's add_lora ---------------------------------

_LORA_ADD = (f"{_SITE}/vllm/v1/engine/core.py", "add_lora")
_LORA_MIXIN = (f"{_SITE}/vllm/v1/worker/lora_model_runner_mixin.py", "add_lora")
_LORA_LOAD = (f"{_SITE}/vllm/lora/worker_manager.py", "_load_adapter")


def test_an_adapter_added_through_add_lora_was_added_before_serving() -> None:
    # the API server's --lora-modules are added once the engine is up (nn114)
    lines = [*frame_lines(_LORA_ADD, _LORA_MIXIN, (f"{_SITE}/vllm/lora/worker_manager.py",
                                                   "add_adapter"), _LORA_LOAD),
             "ValueError: base_model_name_or_path is not set in the adapter's config"]
    assert verdict(*lines, engine="vllm").phase is Phase.WARMUP


def test_an_adapter_loaded_without_add_lora_stays_undated() -> None:
    # guard: _load_adapter alone runs for add_lora and for a request's step alike
    lines = [*frame_lines(_LORA_LOAD), "ValueError: no adapter found at /lora/x"]
    assert verdict(*lines, engine="vllm").phase is Phase.LAUNCH


_SG_SRT = f"{_SITE}/sglang/srt"


def test_sglang_building_its_lora_manager_at_launch_is_weight_loading() -> None:
    # the adapters given at launch loaded and the layers wrapped, right after the base weights
    # (w315: a MoE layer the LoRA wrapper does not know)
    lines = [*frame_lines((f"{_SG_SRT}/model_executor/model_runner.py", "initialize"),
                          (f"{_SG_SRT}/model_executor/model_runner.py", "init_lora_manager"),
                          (f"{_SG_SRT}/lora/lora_manager.py", "__init__"),
                          (f"{_SG_SRT}/lora/layers.py", "get_lora_layer")),
             "AttributeError: 'FusedMoE' object has no attribute 'w13_weight'"]
    assert verdict(*lines, engine="sglang").phase is Phase.WEIGHT_LOADING
    # guard: an adapter loaded later through the manager alone dates nothing
    later = [*frame_lines((f"{_SG_SRT}/lora/lora_manager.py", "load_lora_adapter"),
                          (f"{_SG_SRT}/lora/lora_manager.py", "load_lora_weights")),
             "ValueError: LoRA adapter x not found"]
    assert verdict(*later, engine="sglang").phase is Phase.LAUNCH


def test_sglang_01s_own_words_for_the_load_end_and_the_pool_are_read_as_sglangs() -> None:
    # SGLang 0.1 printed vLLM's weight_utils lines while it loaded, then its own bare rank lines
    # (oo301): the log is SGLang's, and the pool's size is KV-cache sizing
    from supervisor.diagnosis.classifier import detect_engine
    lines = ["INFO 03-27 19:02:43 weight_utils.py:163] Using model weights format ['*.bin']",
             "INFO 03-27 19:02:43 weight_utils.py:163] Using model weights format ['*.bin']",
             "Rank 0: load weight end.", "Rank 1: load weight end.",
             "Rank 1: max_total_num_token=52656, max_prefill_num_token=8776, context_len=4096, "
             "model_mode=[]"]
    assert detect_engine(lines) == "sglang"
    assert tracker_phase(lines[-1], engine="sglang") is Phase.KV_CACHE_ALLOC
    assert verdict(*lines).phase is Phase.KV_CACHE_ALLOC


def test_sglang_01s_server_arguments_and_batch_lines_outvote_uvicorns_bare_lines() -> None:
    # SGLang 0.1 under uvicorn's bare lines (gg203): its own lines are few, but its own
    from supervisor.diagnosis.classifier import detect_engine
    lines = ["Rank 0: load weight begin.", "Rank 0: load weight end.",
             "Rank 0: max_total_num_token=1569, max_prefill_num_token=32768, context_len=32768, ",
             "disable_radix_cache=False, enable_flashinfer=False, disable_disk_cache=False",
             "INFO:     Started server process [9624]", "INFO:     Waiting for application startup.",
             "INFO:     Application startup complete.",
             "INFO:     Uvicorn running on http://127.0.0.1:30000 (Press CTRL+C to quit)",
             'INFO:     127.0.0.1:50064 - "GET /get_model_info HTTP/1.1" 200 OK',
             "new fill batch. #seq: 1. #cached_token: 0. #new_token: 9. #remaining_req: 0. "
             "#running_req: 0. tree_cache_hit_rate: 0.00%."]
    assert detect_engine(lines) == "sglang"
    assert verdict(*lines).phase is Phase.WARMUP


@pytest.mark.parametrize("where", [
    # SGLang 0.5's scheduler building its grammar backend after its model worker (dy106)
    (f"{_SG_SRT}/managers/scheduler.py", "init_grammar_manager"),
    # SGLang 0.1's router building its FSM cache after the pool (vv313)
    (f"{_SITE}/sglang/srt/constrained/fsm_cache.py", "__init__"),
])
def test_sglang_building_its_grammar_backend_is_past_kv_sizing(where) -> None:
    lines = [*frame_lines((f"{_SG_SRT}/managers/scheduler.py", "__init__"), where),
             "AttributeError: 'str' object has no attribute 'eos_token_id'"]
    assert verdict(*lines, engine="sglang").phase is Phase.KV_CACHE_ALLOC


def test_dynamo_tracing_a_graph_in_the_profiling_run_is_no_graph_capture() -> None:
    """torch.compile's Dynamo tracing the model (convert_frame.py's fullgraph_capture, called
    as `capture_output = convert_frame.fullgraph_capture(...)`) runs in whatever step compiles
    first: under vLLM's profile_run it is kv_cache_alloc (en101), not a CUDA-graph capture."""
    torch = "/venv/lib/python3.11/site-packages/torch"
    text = "\n".join([
        "Traceback (most recent call last):",
        f'  File "{VL}/v1/worker/gpu_model_runner.py", line 6193, in profile_run',
        "    hidden_states, last_hidden_states = self._dummy_run(",
        f'  File "{VL}/v1/worker/gpu_model_runner.py", line 5843, in _dummy_run',
        "    outputs = self.model(",
        f'  File "{torch}/_dynamo/aot_compile.py", line 344, in aot_compile_fullgraph',
        "    capture_output = convert_frame.fullgraph_capture(model, args, kwargs)",
        f'  File "{torch}/_dynamo/convert_frame.py", line 1422, in fullgraph_capture',
        "    return _fullgraph_capture_frame(",
        f'  File "{torch}/_dynamo/convert_frame.py", line 1493, in _fullgraph_capture_frame',
        "    raise",
        "AttributeError: '_OpNamespace' '_C' object has no attribute 'silu_and_mul_quant'"])
    assert verdict(text, engine="vllm").phase is Phase.KV_CACHE_ALLOC
    # a capture function of the engine's own still dates its capture
    capture = text.replace("in profile_run", "in capture_model")
    assert verdict(capture, engine="vllm").phase is Phase.CUDA_GRAPH_CAPTURE


def test_the_schedule_policy_s_name_checked_at_its_construction_is_startup() -> None:
    """SGLang's scheduler building its policy at init (init_schedule_policy -> SchedulePolicy
    __init__ -> _validate_and_adjust_policy) refusing `--schedule-policy priority` (eq108):
    not the policy admitting a request; the phase stays the markers' (kv_cache_alloc)."""
    sg = "/venv/lib/python3.11/site-packages/sglang/srt"
    markers = ["[2026-12-07 00:28:20] Load weight begin. avail mem=20.9 GB",
               "[2026-12-07 00:28:21] Load weight end. elapsed=0.03 s",
               "[2026-12-07 00:28:29] Memory pool end. avail mem=5.76 GB"]

    def dies_in(*where: tuple[str, str]) -> Phase:
        return verdict("\n".join(markers + frame_lines(*where) + [
            "ValueError: Unknown schedule_policy: policy='priority'"]), engine="sglang").phase

    init = [(f"{sg}/managers/scheduler.py", "init_schedule_policy"),
            (f"{sg}/managers/schedule_policy.py", "__init__"),
            (f"{sg}/managers/schedule_policy.py", "_validate_and_adjust_policy")]
    assert dies_in(*init) is Phase.KV_CACHE_ALLOC
    # guard: the policy admitting a request to a prefill batch is the event loop's work - with
    # startup markers before it and no ready line, the warmup's request
    assert dies_in((f"{sg}/managers/schedule_policy.py", "add_one_req")) is Phase.WARMUP
