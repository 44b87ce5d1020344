"""Traffic and hangs in the live trackers: which engine lines are requests (a fragment that
starts with them was up; after ready they mean serving), and which fork startup lines and stack
dumps date a run. Synthetic lines in each engine's format (the installed engines' sources)."""

from __future__ import annotations

import pytest

from supervisor.engines import get_engine
from supervisor.engines.base import parse_access
from supervisor.states import Phase

VLLM_UP = ("(EngineCore_DP0 pid=3) INFO 12-09 11:24:40 [core.py:210] init engine (profile, create "
           "kv cache, warmup model) took 41.20 seconds")
VLLM_READY = "(APIServer pid=1) INFO:     Application startup complete."
SG_TS = "[2025-02-04 05:29:20]"
SG_STARTUP = [f"{SG_TS} TP0] Load weight begin. avail mem=22.76 GB",
              f"{SG_TS} TP0] Capture cuda graph begin. This can take up to several minutes.",
              f"{SG_TS} INFO:     Uvicorn running on http://0.0.0.0:30000",
              f"{SG_TS} TP0] Prefill batch. #new-seq: 1, #new-token: 7, #cached-token: 0, "
              "token usage: 0.00, #running-req: 0, #queue-req: 0",
              f"{SG_TS} The server is fired up and ready to roll!"]


def _walk(engine: str, lines: list[str]):
    tracker = get_engine(engine).new_tracker()
    for line in lines:
        tracker.feed(line)
    return tracker


# --- vLLM: lines of an engine working on requests -------------------------------------------

OFFLINE_BAR = ("Processed prompts:   0%|          | 0/4 [00:00<?, ?it/s, est. speed input: "
               "0.00 toks/s, output: 0.00 toks/s]")
PD_WAIT = ("DEBUG 10-09 19:47:51 [scheduler.py:345] cmpl-c7da0225-3a9e-0 is still in "
           "WAITING_FOR_REMOTE_KVS state.")
V1_WAITING = ("(APIServer pid=1) INFO 08-01 10:00:00 [loggers.py:123] Engine 000: Avg prompt "
              "throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 0 reqs, "
              "Waiting: 2 reqs, GPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%")
V0_PENDING = ("INFO 08-20 02:39:37 metrics.py:411] Avg prompt throughput: 0.0 tokens/s, Avg "
              "generation throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 3 "
              "reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%.")
V0_TOKENS = ("INFO 08-20 02:39:47 metrics.py:411] Avg prompt throughput: 0.4 tokens/s, Avg "
             "generation throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 0 "
             "reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%.")
LMCACHE_LOOKUP = ("[2025-06-21 20:59:57,672] LMCache INFO: Reqid: chatcmpl-ec5a3a80c135, Total "
                  "tokens 263, LMCache hit tokens: 256, need to load: 256 (vllm_v1_adapter.py:812:"
                  "lmcache.integration.vllm.vllm_v1_adapter)")
IDLE_STATS = ("INFO 08-20 02:39:57 metrics.py:411] Avg prompt throughput: 0.0 tokens/s, Avg "
              "generation throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 0 "
              "reqs, GPU KV cache usage: 0.0%, CPU KV cache usage: 0.0%.")


@pytest.mark.parametrize("line", [OFFLINE_BAR, PD_WAIT, V1_WAITING, V0_PENDING, V0_TOKENS,
                                  LMCACHE_LOOKUP],
                         ids=["offline-bar", "pd-remote-kv-wait", "v1-waiting", "v0-pending",
                              "v0-prompt-tokens", "lmcache-lookup-of-a-request"])
def test_vllm_fragment_starting_with_engine_traffic_is_serving(line: str) -> None:
    tracker = _walk("vllm", [line])
    assert tracker.ready and tracker.phase is Phase.SERVING


@pytest.mark.parametrize("line", [PD_WAIT, V1_WAITING, V0_TOKENS, LMCACHE_LOOKUP],
                         ids=["pd-remote-kv-wait", "v1-waiting", "v0-tokens", "lmcache-lookup"])
def test_vllm_engine_traffic_after_ready_is_serving(line: str) -> None:
    tracker = _walk("vllm", [VLLM_UP, VLLM_READY])
    assert tracker.phase is Phase.READY
    tracker.feed(line)
    assert tracker.phase is Phase.SERVING


def test_vllm_idle_stats_are_not_traffic() -> None:
    # the engine's loop prints them, so the engine is up (ready), but no request ran
    alone = _walk("vllm", [IDLE_STATS])
    assert alone.ready and alone.phase is Phase.READY and not alone.requests_seen
    assert _walk("vllm", [VLLM_UP, VLLM_READY, IDLE_STATS]).phase is Phase.READY


def test_vllm_offline_generate_after_startup_markers_is_serving() -> None:
    """LLM.generate has no API server and no ready line: its bar follows the engine's init."""
    tracker = _walk("vllm", [VLLM_UP])
    assert tracker.phase is Phase.WARMUP and not tracker.ready
    tracker.feed(OFFLINE_BAR)
    assert tracker.ready and tracker.phase is Phase.SERVING


ADDING_ONE = ("Adding requests: 100%|\u2588\u2588\u2588\u2588\u2588\u2588| 4/4 [00:00<00:00, "
              "1139.21it/s]")
RENDERING_SOME = ("Rendering prompts:   2%|\u2588\u258c          | 32/2000 [00:00<00:06, "
                  "319.25it/s]")
ADDING_NONE = "Adding requests:   0%|          | 0/1 [00:00<?, ?it/s]"


@pytest.mark.parametrize("line", [ADDING_ONE, RENDERING_SOME], ids=["adding", "rendering"])
def test_vllm_offline_prompts_added_are_serving(line: str) -> None:
    """LLM.generate's bar of prompts added to the built engine (2025: `Adding requests`, 2026:
    `Rendering prompts`) with one added: the engine has requests, after its startup markers
    as in a fragment that starts there."""
    tracker = _walk("vllm", [VLLM_UP])
    tracker.feed(line)
    assert tracker.ready and tracker.phase is Phase.SERVING
    alone = _walk("vllm", [line])
    assert alone.ready and alone.phase is Phase.SERVING


def test_vllm_offline_bar_with_no_prompt_added_yet_is_no_traffic() -> None:
    tracker = _walk("vllm", [VLLM_UP, ADDING_NONE])
    assert tracker.phase is Phase.WARMUP and not tracker.requests_seen
    assert not _walk("vllm", [ADDING_NONE]).ready


def test_vllm_shm_broadcast_wait_alone_dates_nothing() -> None:
    """The message queue's long wait is printed in startup (compilation) as in serving."""
    line = ("(EngineCore_DP0 pid=3) INFO 12-09 11:25:53 [shm_broadcast.py:466] No available shared "
            "memory broadcast block found in 60 seconds. This typically happens when some "
            "processes are hanging or doing some time-consuming work (e.g. compilation).")
    tracker = _walk("vllm", [line])
    assert tracker.phase is Phase.LAUNCH and not tracker.ready


def test_vllm_v0_api_server_shutdown_atop_a_fragment_had_been_ready() -> None:
    tracker = _walk("vllm", ["INFO 01-30 18:39:18 launcher.py:57] Shutting down FastAPI HTTP "
                             "server."])
    assert tracker.ready


VLLM_ROUTES = "(APIServer pid=1) INFO 05-04 23:56:38 [launcher.py:37] Available routes are:"
DOCKER_POLL = '(APIServer pid=1) INFO:     172.17.0.1:54448 - "GET /v1/models HTTP/1.1" 200 OK'


def test_vllm_engine_up_then_a_request_answered_is_ready_without_the_startup_line() -> None:
    # the route list, then the docker host's poll answered: uvicorn had finished the app's
    # startup (its `Application startup complete` cut from the paste)
    tracker = _walk("vllm", [VLLM_UP, VLLM_ROUTES, DOCKER_POLL])
    assert tracker.ready and tracker.phase.rank >= Phase.READY.rank


def test_vllm_engine_up_then_a_request_refused_is_not_ready_yet() -> None:
    tracker = _walk("vllm", [VLLM_UP, VLLM_ROUTES, DOCKER_POLL.replace("200 OK", "503 Service "
                                                                       "Unavailable")])
    assert tracker.phase is Phase.WARMUP


# --- proxies' access lines -------------------------------------------------------------------

LLAMA_SWAP = ('[llama-swap] 192.168.0.11 [2025-01-30 18:39:03] "POST /v1/chat/completions '
              'HTTP/1.1" 200 15406 "Mozilla/5.0 (Windows NT 10.0; Win64; x64)" 3m47.157146088s')
NGINX = ('10.0.0.7 - - [30/Jan/2025:18:39:03 +0000] "GET /favicon.ico HTTP/1.1" 200 512 "-" '
         '"curl/8.5.0"')


def test_proxy_access_lines_in_common_log_format_are_parsed() -> None:
    assert parse_access(LLAMA_SWAP) == ("192.168.0.11", "POST", "/v1/chat/completions")
    assert parse_access(NGINX) == ("10.0.0.7", "GET", "/favicon.ico")
    assert parse_access("INFO 01-30 18:39:18 [x.py:1] loaded [a] \"b\" 200") is None


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
def test_a_fragment_starting_with_a_proxied_request_is_serving(engine: str) -> None:
    tracker = _walk(engine, [LLAMA_SWAP])
    assert tracker.ready and tracker.phase is Phase.SERVING


def test_a_proxied_request_from_another_host_after_ready_is_serving() -> None:
    assert _walk("vllm", [VLLM_UP, VLLM_READY, NGINX]).phase is Phase.SERVING


# uvicorn's access line as it writes it to a terminal (hs103: a launch from an SSH shell)
COLOURED = ('\x1b[32mINFO\x1b[0m:     127.0.0.1:54518 - "\x1b[1mPOST /v1/completions HTTP/1.1'
            '\x1b[0m" \x1b[32m200 OK\x1b[0m')


def test_a_coloured_access_line_is_a_request_served() -> None:
    assert parse_access(COLOURED) == ("127.0.0.1", "POST", "/v1/completions")
    assert _walk("vllm", [VLLM_UP, VLLM_READY, COLOURED]).phase is Phase.SERVING
    # guard: colour codes around a line that is no access line do not make one
    assert parse_access("\x1b[32mINFO\x1b[0m: loaded \x1b[1m\"a\"\x1b[0m 200") is None


# --- fork startup lines ----------------------------------------------------------------------

HPU_BLOCKS = "INFO 08-26 07:31:00 habana_executor.py:85] # HPU blocks: 2048, # CPU blocks: 256"
HPU_WARMUP = ("INFO 08-26 07:31:47 habana_model_runner.py:1192] [Warmup][Prompt][1/56] "
              "batch_size:64 seq_len:1024 free_mem:13.93 GiB")
HPU_GRAPH = ("INFO 08-26 08:31:47 habana_model_runner.py:1192] [Warmup][Graph/Decode][3/20] "
             "batch_size:32 seq_len:128 free_mem:9.12 GiB")


def test_gaudi_kv_blocks_then_bucket_warmup() -> None:
    assert _walk("vllm", [HPU_BLOCKS]).phase is Phase.KV_CACHE_ALLOC
    assert _walk("vllm", [HPU_BLOCKS, HPU_WARMUP]).phase is Phase.WARMUP
    assert _walk("vllm", [HPU_WARMUP]).phase is Phase.WARMUP


def test_gaudi_graph_capture_of_the_buckets_is_still_the_warmup() -> None:
    assert _walk("vllm", [HPU_GRAPH]).phase is Phase.WARMUP
    assert _walk("vllm", [HPU_WARMUP, HPU_GRAPH]).phase is Phase.WARMUP


# --- SGLang: stack dumps and the warmup's own request ----------------------------------------

SOFT = ("[2026-05-22 23:27:33 DP2 TP2 EP2] Scheduler watchdog timeout "
        "(self.watchdog_timeout=300, self.soft=True)")


def test_sglang_stack_dump_in_the_capture_dates_the_hang() -> None:
    tracker = _walk("sglang", [SOFT, "", "capture (cuda_graph_runner.py:867)",
                               "init_device_graphs (model_runner.py:2776)"])
    assert tracker.phase is Phase.CUDA_GRAPH_CAPTURE
    pyspy = ["Thread 4242 (active): \"MainThread\"",
             "    capture_one_shape (sglang/srt/model_executor/runner/"
             "decode_cuda_graph_runner.py:1368)"]
    assert _walk("sglang", pyspy).phase is Phase.CUDA_GRAPH_CAPTURE


@pytest.mark.parametrize("frame", [
    "    replay (sglang/srt/model_executor/cuda_graph_runner.py:700)",
    "    capture (sglang/srt/model_executor/runner_utils/deepep_adapter.py:30)",
    "    event_loop_overlap (sglang/srt/managers/scheduler.py:1012)",
])
def test_sglang_stack_frames_of_serving_date_nothing(frame: str) -> None:
    assert _walk("sglang", [frame]).phase is Phase.LAUNCH


WARMUP_POST = f'{SG_TS} INFO:     127.0.0.1:35348 - "POST /generate HTTP/1.1" 200 OK'


def test_sglang_warmup_request_logged_after_the_ready_line_is_not_traffic() -> None:
    tracker = _walk("sglang", [*SG_STARTUP, WARMUP_POST])
    assert tracker.phase is Phase.READY
    tracker.feed(WARMUP_POST)  # a second one is a client's
    assert tracker.phase is Phase.SERVING


def test_sglang_warmup_request_logged_before_the_ready_line_then_a_client() -> None:
    lines = [*SG_STARTUP[:-1], WARMUP_POST, SG_STARTUP[-1]]
    tracker = _walk("sglang", lines)
    assert tracker.phase is Phase.READY
    tracker.feed(WARMUP_POST)
    assert tracker.phase is Phase.SERVING


def test_sglang_piece_starting_inside_the_startup_with_the_warmup_request_then_a_client() -> None:
    """No marker before the warmup's access line (the paste starts there): it is still the
    warmup's, so the next local POST after ready is a client's."""
    tracker = _walk("sglang", [WARMUP_POST, SG_STARTUP[-1]])
    assert tracker.phase is Phase.READY
    tracker.feed(WARMUP_POST)
    assert tracker.phase is Phase.SERVING


@pytest.mark.parametrize("end", ["End of disaggregation warmup",
                                 "End of prefill warmup with status 200, resp: [{'text': 'x'}]"])
def test_sglang_pd_warmup_ended_then_a_local_post_is_a_client(end: str) -> None:
    """A PD server logs its warmup's end after its requests were answered (their access lines
    come before it, or not at all): the first local POST after ready is a client's."""
    tracker = _walk("sglang", [*SG_STARTUP[:-1], f"{SG_TS} {end}", SG_STARTUP[-1]])
    assert tracker.phase is Phase.READY
    tracker.feed(WARMUP_POST)
    assert tracker.phase is Phase.SERVING


def test_sglang_log_starting_mid_run_counts_its_first_local_post() -> None:
    """Up from a client's request, no startup seen: no warmup line to excuse."""
    tracker = _walk("sglang", [WARMUP_POST.replace("127.0.0.1", "10.0.0.7")])
    seen = tracker.requests_seen
    tracker.feed(WARMUP_POST)
    assert tracker.phase is Phase.SERVING and tracker.requests_seen == seen + 1


def _sg_access(client: str, method: str, path: str, status: str = "200 OK") -> str:
    return f'{SG_TS} INFO:     {client}:46322 - "{method} {path} HTTP/1.1" {status}'


@pytest.mark.parametrize("line", [
    _sg_access("10.1.1.33", "POST", "/v1/chat/completions"),   # a client's API call
    _sg_access("172.17.0.109", "GET", "/health_generate"),     # a balancer's check, answered
    _sg_access("172.17.0.109", "GET", "/health"),
])
def test_sglang_another_host_answered_before_the_ready_line_is_serving(line: str) -> None:
    """Pastes drop SGLang's ready line (printed after its warmup), and its health routes
    answer 503 until the warmup is over: another host's call answered means startup was over."""
    tracker = _walk("sglang", [*SG_STARTUP[:3], line])
    assert tracker.phase is Phase.SERVING and tracker.requests_seen == 1


@pytest.mark.parametrize("line", [
    WARMUP_POST,                                                  # the server's own warmup
    _sg_access("127.0.0.1", "GET", "/health"),                    # a launcher's local check
    _sg_access("10.1.1.33", "GET", "/v1/models"),                 # a model list: polled early
    _sg_access("10.1.1.33", "GET", "/get_model_info"),
    _sg_access("172.17.0.109", "GET", "/health", "503 Service Unavailable"),  # still warming
    _sg_access("10.1.1.33", "POST", "/v1/chat/completions", "500 Internal Server Error"),
    # SGLang's PD bootstrap server: a prefill rank registering itself, from the host's address
    '[2025-05-16 09:00:52] 10.8.59.192 [16/May/2025:09:00:52 +0000] "PUT /route HTTP/1.1" 200 155'
    ' "-" "python-requests/2.32.3"',
])
def test_sglang_calls_before_the_ready_line_that_prove_no_startup_over(line: str) -> None:
    tracker = _walk("sglang", [*SG_STARTUP[:3], line])
    assert tracker.phase is Phase.WARMUP and tracker.requests_seen == 0


# --- local reads of API resources ------------------------------------------------------------

def _local_get(path: str) -> str:
    return f'(APIServer pid=1) INFO:     127.0.0.1:56038 - "GET {path} HTTP/1.1" 200 OK'


def test_a_local_client_polling_its_job_after_ready_is_serving() -> None:
    tracker = _walk("vllm", [VLLM_UP, VLLM_READY, _local_get("/v1/videos/video_gen_de25")])
    assert tracker.phase is Phase.SERVING and tracker.requests_seen == 1


@pytest.mark.parametrize("engine", ["vllm", "sglang"])
@pytest.mark.parametrize("path", ["/v1/models", "/health", "/metrics", "/get_model_info"])
def test_local_reads_of_probe_routes_after_ready_are_not_traffic(engine: str, path: str) -> None:
    tracker = get_engine(engine).new_tracker()
    tracker.mark_ready()
    tracker.feed(_local_get(path))
    assert tracker.phase is Phase.READY and tracker.requests_seen == 0


# --- a fragment that starts at uvicorn's shutdown --------------------------------------------

UVICORN_DOWN = "INFO:     Shutting down"
CONNECTIONS = "INFO:     Waiting for connections to close. (CTRL+C to force quit)"


def test_vllm_fragment_starting_at_uvicorns_shutdown_had_been_ready() -> None:
    tracker = _walk("vllm", [UVICORN_DOWN])
    assert tracker.ready and tracker.phase is Phase.READY


def test_vllm_fragment_shutting_down_with_clients_connected_was_serving() -> None:
    tracker = _walk("vllm", [UVICORN_DOWN, CONNECTIONS])
    assert tracker.phase is Phase.SERVING


def test_connections_open_at_the_stop_of_a_run_seen_from_its_start_are_not_traffic() -> None:
    """Our own health probe may be connected when the daemon stops a run."""
    tracker = _walk("vllm", [VLLM_UP, VLLM_READY, UVICORN_DOWN, CONNECTIONS])
    assert tracker.phase is Phase.READY


def test_sglang_uvicorn_shutdown_atop_a_fragment_proves_nothing() -> None:
    """SGLang starts uvicorn before its warmup: a shutdown may come before ready."""
    assert not _walk("sglang", [UVICORN_DOWN, CONNECTIONS]).ready


# --- TPU: XLA precompilation of input shapes -------------------------------------------------

TPU_KV = "INFO 03-31 07:47:51 [kv_cache_utils.py:577] GPU KV cache size: 985,328 tokens"


@pytest.mark.parametrize("line", [
    "INFO 03-31 07:47:51 [tpu_model_runner.py:769] Compiling the model with different input "
    "shapes.",
    "INFO 03-31 07:48:36 [tpu_model_runner.py:780] Compiling sampling with different input "
    "shapes.",
])
def test_tpu_precompile_of_input_shapes_is_the_capture_step(line: str) -> None:
    assert _walk("vllm", [TPU_KV, line]).phase is Phase.CUDA_GRAPH_CAPTURE


# --- SGLang: a client's request named in trouble ----------------------------------------------

SG_PD_FAIL = (f"{SG_TS} TP1] Decode transfer failed for request rank=1 decode_req.req.rid='3ce8' "
              "decode_req.req.bootstrap_room=16 with exception KVTransferError(bootstrap_room=16): "
              "Failed due to an unknown reason from another rank")
SG_RETRACT = (f"{SG_TS} TP13] Decode out of memory happened. #retracted_reqs: 1, "
              "#new_token_ratio: 0.1474 -> 0.1845")


@pytest.mark.parametrize("line", [SG_PD_FAIL, SG_RETRACT], ids=["pd-transfer", "retraction"])
def test_sglang_fragment_starting_with_a_request_in_trouble_is_serving(line: str) -> None:
    tracker = _walk("sglang", [line])
    assert tracker.ready and tracker.phase is Phase.SERVING


@pytest.mark.parametrize("line", [SG_PD_FAIL, SG_RETRACT], ids=["pd-transfer", "retraction"])
def test_sglang_request_in_trouble_after_ready_is_serving(line: str) -> None:
    tracker = _walk("sglang", SG_STARTUP)
    assert tracker.phase is Phase.READY
    tracker.feed(line)
    assert tracker.phase is Phase.SERVING


def test_sglang_other_out_of_memory_lines_are_not_retractions() -> None:
    """Only the decode retraction names running requests; a KV pool line is not traffic."""
    line = f"{SG_TS} TP0] Prefill out of memory. Try to lower your batch size. retracted_reqs: ?"
    assert not _walk("sglang", [line]).ready


def test_vllm_request_log_after_startup_lines_is_up_and_serving() -> None:
    """FastChat's vLLM worker serves through its own server: no ready line of vLLM's, but vLLM
    logs each client's request it takes (it sends itself none at startup)."""
    up = "INFO 12-07 11:30:02 llm_engine.py:222] # GPU blocks: 7869, # CPU blocks: 1170"
    request = ("INFO 12-07 11:31:36 async_llm_engine.py:379] Received request a1420f6a35604e2a: "
               "prompt: 'hello', sampling params: SamplingParams(n=1)")
    tracker = _walk("vllm", [up])
    assert not tracker.ready
    tracker.feed(request)
    assert tracker.ready and tracker.phase is Phase.SERVING


@pytest.mark.parametrize("status", ["307 Temporary Redirect", "401 Unauthorized",
                                    "403 Forbidden", "405 Method Not Allowed"])
def test_a_request_turned_away_before_the_engine_is_not_serving(status: str) -> None:
    """A request the HTTP layer answered without the engine (an HTTPS redirect middleware, a
    missing or wrong API key, a method the route lacks): the server is up, nothing served."""
    line = f'INFO:     10.0.0.7:43052 - "POST /v1/completions HTTP/1.1" {status}'
    tracker = _walk("vllm", [VLLM_READY, line])
    assert tracker.ready and tracker.phase is Phase.READY


@pytest.mark.parametrize("status", ["200 OK", "400 Bad Request", "404 Not Found",
                                    "500 Internal Server Error"])
def test_a_request_the_handler_took_is_serving(status: str) -> None:
    """Answered by the API's handler (a model name it lacks, a bad request, the engine failing
    it): the server was serving."""
    line = f'INFO:     10.0.0.7:43052 - "POST /v1/completions HTTP/1.1" {status}'
    assert _walk("vllm", [VLLM_READY, line]).phase is Phase.SERVING


@pytest.mark.parametrize("engine", ["sglang", "vllm"])
def test_a_local_poll_s_error_after_its_500_is_the_server_up_not_serving(engine) -> None:
    """A fragment that starts with a local poll answered 500 and uvicorn's traceback of it
    (SGLang's own warm-up asking /model_info, em104): up, in warmup; the same for a client's
    request is a request served."""
    asgi = f"{SG_TS} ERROR:    Exception in ASGI application"
    poll = f'{SG_TS} INFO:     127.0.0.1:53908 - "GET /model_info HTTP/1.1" 500 Internal Server Error'
    assert _walk(engine, [poll, asgi]).phase is Phase.WARMUP
    client = (f'{SG_TS} INFO:     10.0.0.7:41000 - "POST /v1/completions HTTP/1.1" 500 Internal '
              "Server Error")
    assert _walk(engine, [client, asgi]).phase is Phase.SERVING
