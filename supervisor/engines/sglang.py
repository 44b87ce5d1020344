"""SGLang: phase markers (reference/sglang-facts.md §2 and §9), progress, flags per version.

Lines are matched loosely, anywhere in the line, across 0.4.x, 0.5.x and the 0.5.23 rewrite:
``Capture cuda graph begin`` and 0.5.23's ``Capture target decode CUDA graph begin`` alike; the
rank prefix (``TP0``, ``DP3 TP3``) is optional; ``Decode batch.`` and ``Decode batch,`` both count.
"""

from __future__ import annotations

import re

from ..states import Phase
from .base import (
    PLAIN_BAR_RE,
    Engine,
    MarkerTracker,
    is_loopback,
    parse_access,
    parse_version,
)
from .literals import literal_prefilter
from .midrun import is_request_trouble, is_rollout_bar, is_serving_traffic

_C = re.compile

# One alternation of literal fragments: a line that matches none of them cannot change anything.
_PREFILTER = literal_prefilter(
    "server_args", "Init torch dist", "using nccl", "Load weight", "shards", "load weight",
    "Loading model from", "is allocated", "Memory pool end", "SWAKVPool", "raph begin",
    "raph end", "graph bs", "Capturing batches", "Registering ", "max_total_num_token",
    "Uvicorn running", "Started server process", "disaggregation warmup", "prefill warmup",
    "fired up and ready", " batch", "HTTP/", "%|", "failed for req", "retracted_reqs",
    "startup timings", "ASGI app", "fused KV buffers", "flush_cache", "cur_batch", "] precompile",
    "Cache not flushed", "_memory_occupation", "weights online", "leak detected",
    "] begin to precompile",
    # stack-dump frames of the capture (_CAPTURE_FRAME_RE), on first letters already above
    "raph_runner.py:", "graphs (", "raph_setup.py:",
    # the MXFP4 MoE weights being laid out for FlashInfer's kernel, per layer (weight loading)
    "Shuffling MoE weights", "RunAI Streamer", "weight loading", " Weights: ",
    "replicas of the shared expert", "not initialized from checkpoints",
    # the diffusion runtime working on a request (_DIFFUSION_REQUEST_RE)
    "Processing prompt", "pipeline stages", "Stage] ", "Saved output to",
)

_MARKERS: tuple[tuple[re.Pattern[str], Phase], ...] = (
    # (the launch's argument dump, `server_args=ServerArgs(...)` or `server_args={...}`; not a
    # traceback's source line calling with them: `prepare_server_args(sys.argv[1:])`,
    # `launch_engine(server_args=server_args)`)
    # (`server_args=` then the dump itself: not a keyword argument in a call's source line,
    # `server_args=server_args,`, which Python 3.13's tracebacks print whole)
    (_C(r"(?<![\w.(])server_args(?:=(?:ServerArgs\(|\{)|\()|Init torch distributed"
        r"|sglang is using nccl"), Phase.LAUNCH),
    # (SGLang of early 2024, rpyc model servers: `Rank 1: load weight begin.`, lower case)
    # (and the MXFP4 MoE path on Blackwell laying each layer's expert weights out for
    # FlashInfer's kernel once loaded, `Shuffling MoE weights for FlashInfer MXFP4 moe kernel
    # (layer: model.layers.1.mlp.experts), it might take a while...`: still loading)
    (_C(r"[Ll]oad weight begin|Loading \w+ checkpoint shards|Multi-thread loading shards"
        r"|Beginning to load weights|Loading model from|Shuffling MoE weights for"
        # (the RunAI model streamer's summary of the files it read, as in vllm.py)
        r"|RunAI Streamer\] Overall time to stream"
        # (SGLang-JAX's loader: `Starting parallel weight loading via JAX Lazy Loader...`, then
        # its `Loading Regular Weights:  3%|...| 9/314` bar)
        r"|Starting (?:\w+ )?weight loading|Loading \w+ Weights:\s+\d+%"
        # (DeepSeek's load_weights copying the shared expert into the routed experts under
        # shared-experts fusion, a bar per MoE layer: `Cloning 16 replicas of the shared expert
        # into MoE:  97%|...`; a model's load_weights reporting the parameters the checkpoint
        # left unset at its end: `Some weights are not initialized from checkpoints {...}`)
        r"|Cloning \d+ replicas of the shared expert|Some weights are not initialized from "
        r"checkpoints"),
     Phase.WEIGHT_LOADING),
    # max_total_num_tokens= is the scheduler reporting its KV pool once its model runner is set
    # up: after a graph capture it also means the capture is over (_special).
    # (SGLang-JAX, the TPU port: its memory pool's `_create_buffers` logs `Creating fused KV
    # buffers for 32 layers` as it allocates the pool, after its TPU memory profiling)
    (_C(r"Cache is allocated|Memory pool end|SWAKVPool mem usage"
        r"|max_total_num_tokens?=|Creating fused KV buffers for \d+ layers"), Phase.KV_CACHE_ALLOC),
    # (SGLang-JAX precompiles its forward for each padded batch shape, `[EXTEND] begin to
    # precompile`, `[DECODE] precompile (bs=8, ...)`: the TPU's counterpart of graph capture)
    (_C(r"Capture\b.*?(?i:graph) (?:begin|end)|Capture cuda graph bs|Capturing batches"
        r"|Registering \d+ cuda graph addresses|\[(?:EXTEND|DECODE)\] (?:begin to )?precompile"),
     Phase.CUDA_GRAPH_CAPTURE),
    # 2026 builds sum up the startup once every scheduler is built (`Engine startup timings
    # (s): load_weight=..., kv_cache_allocation=..., cuda_graph={...}, tokenizer_e2e=...`):
    # weights, KV pool and graphs are done, the HTTP server and its warmup request are next -
    # unless no scheduler ran (`scheduler_e2e=0.00`, every figure zero: a launch that started
    # none, `--tp-size 0`), which proves nothing was built
    (_C(r"Uvicorn running on|INFO:\s+Started server process"
        r"|Start of pd disaggregation warmup"
        r"|Engine startup timings \(s\): (?!.*\bscheduler_e2e=0(?:\.0+)?\b)"), Phase.WARMUP),
    (_C(r"The server is fired up and ready to roll"), Phase.READY),
)

# Each rank's model runner logs its own `Load weight begin` / `Beginning to load weights` and
# `Load weight end` (model_runner.py load_model), under its tag (`[... PP1 TP0]`; none on a
# single rank). Weight loading is over when every rank that began it has ended it: one rank's
# end while others still load (pipeline stages and TP ranks finish at different times) is no
# evidence that the run reached KV-cache sizing.
_WEIGHTS_BEGIN_RE = _C(r"[Ll]oad weight begin|Beginning to load weights")
_WEIGHTS_END_RE = _C(r"[Ll]oad weight end")
_RANK_TAG_RE = _C(r"\[(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?((?: [A-Z_]+\d+)+)\]"
                  r"|\bRank (\d+): ")

# A stack dump's frame in the capture: SGLang's watchdogs (the soft one only warns) print a
# py-spy dump of the stuck scheduler, one `function (file.py:line)` a line, innermost first
# (`capture (cuda_graph_runner.py:867)`, `init_device_graphs (model_runner.py:2776)`). Only
# startup captures graphs (serving replays them), so a hang dumped there is dated to the capture
# even when the log has no marker. A marker, checked in _special behind its own literals.
_CAPTURE_FRAME_RE = _C(r"\b(?:capture\w*|_capture_graph\w*|init_(?:cuda|device)_graphs) "
                       r"\((?:\S*/)?(?:\w*graph_runner|model_runner|cuda_graph_setup)\.py:\d+\)")
_CAPTURE_BS_RE = _C(r"Capture cuda graph bs \[([^\]]*)\]")
_CAPTURE_BAR_RE = _C(r"Capturing batches[^:]*:\s*\d+%\|[^|]*\|\s*(\d+)/(\d+)")
_BATCH_RE = _C(r"(Decode|Prefill) batch(?: \[\d+\])?[.,]")
# verl's in-process SGLang wrapper (entrypoints/verl_engine.py, 2025) calling the tokenizer
# manager of its engine without awaiting it: Python's `RuntimeWarning: coroutine
# 'TokenizerManager.flush_cache' was never awaited` at exit or GC. VerlEngine only holds an
# Engine once Engine() returned - its schedulers up and ready - so a piece with no startup line
# that shows this was up, as a mid-run fragment is at its first traffic (midrun.py).
_BUILT_ENGINE_CALL_RE = _C(r"coroutine 'TokenizerManager\.flush_cache' was never awaited")
# SGLang's scheduler watchdog (scheduler.py watchdog_thread, 2025 builds) dumping the batch that
# stopped moving before it kills the process: `self.cur_batch.batch_size()=1,
# self.cur_batch.reqs=[Req(rid=..., input_ids=[...], ...)]`
_STUCK_BATCH_RE = _C(r"\bself\.cur_batch\.batch_size\(\)=(\d+)")
_OCCUPATION_CALL_RE = _C(r"\b(?:release|resume)_memory_occupation\b")
# The running server loading new weights for a request to its update endpoint (an RL trainer's
# refit or an operator's /update_weights_from_disk: model_runner's `Update engine weights online
# from disk begin. avail mem=22.72 GB`, then the loader's own lines and shard bar again): only a
# built engine takes the request, so it was up and serving, and the load that follows is not
# the startup's.
_ONLINE_UPDATE_RE = _C(r"Update engine weights online from \w+ begin")
# The scheduler's idle self-check finding KV slots that no request holds (0.4 on: `ValueError:
# token_to_kv_pool_allocator memory leak detected! available_size=...`, 2026: `pool memory leak
# detected!`; 0.1: `KV cache pool leak detected!` printed each idle round): it runs in the event
# loop between batches, and only requests served leave slots behind - serving.
_POOL_LEAK_RE = _C(r"\b(?:memory|KV cache pool) leak detected!")
# SGLang's diffusion runtime (sglang.multimodal_gen: `sglang generate`, its Engine and server)
# working on one request: `Processing prompt 1/1: ...`, `Running pipeline stages: [...]`, each
# stage of the pipeline (`[DenoisingStage] started...`, `... finished in 0.0020 seconds`,
# `... average time per step: 2.36 seconds`), `Saved output to outputs/x.mp4`. Only a built
# pipeline runs them: up and serving - except in a server's own warmup (uvicorn up, not ready),
# where its first generation is the warmup's.
_DIFFUSION_REQUEST_RE = _C(r"Processing prompt \d+/\d+|Running pipeline stages: \["
                           r"|\[\w+Stage\] (?:started|finished in|average time per step)"
                           r"|Saved output to ")
_PENDING_FLUSH_RE = _C(r"Cache not flushed because there are pending requests\. #queue-req: "
                       r"(\d+), #running-req: (\d+)")
# SGLang's /health runs a 1-token generation (input_ids=[0]): a prefill of exactly one new token
# after ready is our own probe, not a user's request.
_PROBE_PREFILL_RE = _C(r"#new-seq: 1, #new-token: 1,")
# The routes of the server's own warmup request (_execute_server_warmup: /generate, or /encode
# for an embedding model), sent to its local address.
_WARMUP_ROUTES = ("/generate", "/encode")
# PD disaggregation's warmup (_send_disaggregation_warmup_requests; a prefill server's in 2025
# builds) logs its end after every warmup request was answered.
# (2026: `End of prefill disaggregation mode warmup with status 200`). Its requests go to the
# address the server was told to bind, not always a loopback one: from `Start of pd
# disaggregation warmup` to that end, a request's access line is the warmup's.
_PD_WARMUP_END_RE = _C(r"End of (?:disaggregation|prefill)(?: disaggregation mode)? warmup")


def _rank_tag(line: str) -> str:
    m = _RANK_TAG_RE.search(line)
    return "" if m is None else (m[1] or m[2] or "").strip()


class SGLangTracker(MarkerTracker):
    """``warmup_answered``: the access line of the server's own warmup request was seen."""

    __slots__ = ("warmup_answered", "loading_ranks", "pd_warmup")
    PREFILTER = _PREFILTER
    MARKERS = _MARKERS

    def __init__(self) -> None:
        super().__init__()
        self.warmup_answered = False
        self.loading_ranks: set[str] = set()
        self.pd_warmup = False  # inside a PD server's warmup (its requests are not clients')

    def _special(self, line: str) -> bool:
        changed = False
        if "oad weight" in line or "to load weights" in line:
            changed = self._weights_of_rank(line)
        if not self.ready and self.markers_seen == 0 and is_serving_traffic(line):
            changed = self.mark_ready(line) is not None  # a log that starts mid-run (midrun.py)
        if "Cache not flushed" in line:
            changed = self._pending_flush(line) or changed
        if "_memory_occupation" in line and not self.ready and self.markers_seen == 0 and \
                _OCCUPATION_CALL_RE.search(line):
            # an RL trainer releasing or resuming the engine's memory between rollouts (verl,
            # slime: SGLang's release_memory_occupation / resume_memory_occupation, called on
            # a built engine): a fragment that shows one was up, in the rollout cycle
            changed = self._up_and_serving(line) or changed
        if ("weights online" in line and _ONLINE_UPDATE_RE.search(line)) or \
                ("leak detected" in line and _POOL_LEAK_RE.search(line)):
            changed = self._up_and_serving(line) or changed
        if "flush_cache" in line and not self.ready and self.markers_seen == 0 and \
                _BUILT_ENGINE_CALL_RE.search(line):
            changed = self.mark_ready(line) is not None
        if "cur_batch" in line:
            changed = self._stuck_batch(line) or changed
        if ("prompt" in line or "Stage] " in line or "Saved output" in line) and \
                self.phase is not Phase.WARMUP and _DIFFUSION_REQUEST_RE.search(line):
            changed = self._up_and_serving(line) or changed
        if "ASGI app" in line:
            changed = self._request_error(line) or changed
        if self.ready and "%|" in line and is_rollout_bar(line):
            # an RL trainer's step done on the engines' rollouts (midrun.py): serving
            self.requests_seen = max(self.requests_seen, 1)
            changed = self._advance(Phase.SERVING) or changed
        if self.ready and ("failed for req" in line or "retracted_reqs" in line) \
                and is_request_trouble(line):
            # a client's request named (PD transfer failed, retracted): serving
            self.requests_seen = max(self.requests_seen, 1)
            changed = self._advance(Phase.SERVING) or changed
        if "shards" in line:
            changed = self._shard_progress(line) or changed
        if ".py:" in line and ("raph_runner.py:" in line or "graphs (" in line
                               or "raph_setup.py:" in line) and \
                _CAPTURE_FRAME_RE.search(line):
            self.markers_seen += 1
            changed = self._advance(Phase.CUDA_GRAPH_CAPTURE) or changed
        if "max_total_num_tokens=" in line and (
                self.phase is Phase.CUDA_GRAPH_CAPTURE or
                ("context_len=" in line and "available_" not in line)):
            # 0.4/0.5 builds capture inside the model runner's init and report the pool after
            # it: the capture is over, the HTTP server is next (warmup). Builds before mid-2025
            # (no `available_gpu_mem` in the line; 0.4.3 printed it on every rank) always did:
            # their report ends the scheduler's init. 2026 builds report it before HiCache
            # setup and graph capture, with the memory left (`available_gpu_mem=`, the CPU
            # build's `available_cpu_mem=`): there it stays kv_cache_alloc (MARKERS).
            changed = self._advance(Phase.WARMUP) or changed
        if "apturing batches" in line or "graph bs" in line or "%|" in line:
            changed = self._capture_progress(line) or changed
        if " batch" in line:
            changed = self._batch(line) or changed
        if " warmup" in line:
            if "End of " in line and _PD_WARMUP_END_RE.search(line):
                # a PD server's warmup logs its end once its requests were answered: any
                # request access line after it is a client's
                self.warmup_answered = True
                self.pd_warmup = False
            elif "Start of pd disaggregation warmup" in line and not self.warmup_answered:
                self.pd_warmup = True
        if self.pd_warmup:
            if self.ready:
                self.pd_warmup = False  # (its end in a wording not looked for: ready ends it)
            elif '"POST /' in line:
                return changed  # the PD warmup's own request, from whatever address
        if "HTTP/" in line and not self._warmup_access(line):
            changed = self._access(line) or changed
        return changed

    def _weights_of_rank(self, line: str) -> bool:
        """A rank beginning or ending its weight loading; the last one to end moves the run to
        kv_cache_alloc (the begin itself is a marker)."""
        if _WEIGHTS_BEGIN_RE.search(line):
            self.loading_ranks.add(_rank_tag(line))
            return False
        if not _WEIGHTS_END_RE.search(line):
            return False
        self.loading_ranks.discard(_rank_tag(line))
        self.markers_seen += 1
        return not self.loading_ranks and self._advance(Phase.KV_CACHE_ALLOC)

    def _warmup_access(self, line: str) -> bool:
        """The access line of the warmup's own request (a local POST /generate). uvicorn
        writes it when the response is sent, which races SGLang's ready line printed once the
        same response arrives: it can come just after the ready line, and is not a client's.
        Once only (the first such line, before ready too: a piece that starts inside the
        startup), never in a log that starts mid-run; a batch after ready (a client's prefill)
        has already moved the run to serving."""
        if self.warmup_answered or '"POST /' not in line or (self.ready and
                                                             self.markers_seen == 0):
            return False
        access = parse_access(line)
        if access is None or access[1] != "POST" or not is_loopback(access[0]) or \
                access[2].partition("?")[0] not in _WARMUP_ROUTES:
            return False
        self.warmup_answered = True
        return self.ready and self.phase is Phase.READY  # before ready it proves HTTP is up

    def _capture_progress(self, line: str) -> bool:
        m = _CAPTURE_BS_RE.search(line)
        if m:
            total = len(re.findall(r"\d+", m[1]))
            changed = self._advance(Phase.CUDA_GRAPH_CAPTURE)
            if self.phase is Phase.CUDA_GRAPH_CAPTURE:
                self.progress = {"kind": "cuda_graph_bs", "done": 0, "total": total}
            return changed
        m = _CAPTURE_BAR_RE.search(line)
        if m is None and "Completed |" not in line and (
                self.phase is Phase.CUDA_GRAPH_CAPTURE or self._shards_all_loaded()):
            # the unlabelled tqdm bar of 0.3-0.4 builds' capture loop (fixture 02); also right
            # after the shard bar reached its total, where an offline Engine (log level error:
            # the docs' notebooks) prints no capture marker and no bar but the capture's comes
            # next. A bar with a description is someone else's.
            m = PLAIN_BAR_RE.search(line)
            if m is not None and self.phase is not Phase.CUDA_GRAPH_CAPTURE and \
                    line[:m.start()].strip(" \r\t"):
                m = None
        if m is None:
            return False
        changed = self._advance(Phase.CUDA_GRAPH_CAPTURE)
        if self.phase is Phase.CUDA_GRAPH_CAPTURE:
            self.progress = {"kind": "cuda_graph_bs", "done": int(m[1]), "total": int(m[2])}
        return changed

    def _shards_all_loaded(self) -> bool:
        """Weight loading, its shard bar at its total."""
        bar = self.progress
        return self.phase is Phase.WEIGHT_LOADING and bar is not None and \
            bar.get("kind") == "weight_shards" and bar.get("done") == bar.get("total")

    def _pending_flush(self, line: str) -> bool:
        """A cache flush refused for requests in flight (scheduler.flush_cache: `Cache not
        flushed because there are pending requests. #queue-req: 0, #running-req: 2`): only a
        built scheduler takes the call (RL trainers send it around their weight updates), and
        requests were there: up and serving, whatever loading lines a weight update printed."""
        m = _PENDING_FLUSH_RE.search(line)
        if m is None or (m[1] == "0" and m[2] == "0"):
            return False
        return self._up_and_serving(line)

    def _stuck_batch(self, line: str) -> bool:
        """The scheduler watchdog's dump of the batch it found stuck: a batch was running, so
        the server was past its graphs. A batch of one request before ready is the warmup's
        (its one request is the first batch): warmup. A larger batch is clients' requests,
        left to the traffic and the watchdog's own line to date (the dump follows that fatal
        line: no ready from it)."""
        m = _STUCK_BATCH_RE.search(line)
        return m is not None and m[1] == "1" and not self.ready and \
            self._advance(Phase.WARMUP)

    def _batch(self, line: str) -> bool:
        m = _BATCH_RE.search(line)
        if m is None:
            return False
        if m[1] == "Decode":
            if not self.ready and self.markers_seen and self.phase.rank >= Phase.WARMUP.rank:
                # the warmup request's own decode steps, logged because the launch logs every
                # step or few (`--decode-log-interval 1`): the server is not up yet, as its
                # ready line still to come says
                return False
            # The warmup request decodes 8 tokens; decode stats are logged every 40 steps by
            # default, so a decode line means real generation: the server is up and serving
            # (an excerpt may start here, after the ready line).
            self.requests_seen = max(self.requests_seen, 1)
            return self._advance(Phase.SERVING)
        if self.ready:
            if _PROBE_PREFILL_RE.search(line):
                return False
            self.requests_seen = max(self.requests_seen, 1)
            return self._advance(Phase.SERVING)
        return self._advance(Phase.WARMUP)  # the warmup request ("The capital city of France")


# flag names that changed with 0.5.23's argument rewrite: (first version, old, new)
_NEW_GRAPH_FLAGS = (0, 5, 23)
_VERSIONED: dict[str, tuple[tuple[int, ...], str, str]] = {
    "cuda_graph_max_bs": (_NEW_GRAPH_FLAGS, "cuda-graph-max-bs", "cuda-graph-max-bs-decode"),
    "cuda_graph_bs": (_NEW_GRAPH_FLAGS, "cuda-graph-bs", "cuda-graph-bs-decode"),
}
_FLAGS: dict[str, str] = {
    "mem_fraction": "mem-fraction-static",
    "mem_fraction_static": "mem-fraction-static",
    # still accepted (deprecated) by 0.5.23, where it disables decode and prefill graphs
    "disable_cuda_graph": "disable-cuda-graph",
    "disable_cuda_graph_padding": "disable-cuda-graph-padding",
    "disable_custom_all_reduce": "disable-custom-all-reduce",
    "enable_p2p_check": "enable-p2p-check",
    "enable_flashinfer_allreduce_fusion": "enable-flashinfer-allreduce-fusion",
    "attention_backend": "attention-backend",
    "sampling_backend": "sampling-backend",
    "enable_torch_compile": "enable-torch-compile",
    "torch_compile_max_bs": "torch-compile-max-bs",
    "enable_piecewise_cuda_graph": "enable-piecewise-cuda-graph",
    "tp_size": "tp-size",
    "dp_size": "dp-size",
    "ep_size": "ep-size",
    "pp_size": "pp-size",
    "context_length": "context-length",
    "max_running_requests": "max-running-requests",
    "max_total_tokens": "max-total-tokens",
    "chunked_prefill_size": "chunked-prefill-size",
    "kv_cache_dtype": "kv-cache-dtype",
    "quantization": "quantization",
    "cpu_offload_gb": "cpu-offload-gb",
    "disable_overlap_schedule": "disable-overlap-schedule",
    "disable_radix_cache": "disable-radix-cache",
    "watchdog_timeout": "watchdog-timeout",
    "dist_timeout": "dist-timeout",
    "skip_server_warmup": "skip-server-warmup",
    "speculative_algorithm": "speculative-algorithm",
    "speculative_draft_model_path": "speculative-draft-model-path",
    "speculative_num_steps": "speculative-num-steps",
    "speculative_eagle_topk": "speculative-eagle-topk",
    "speculative_num_draft_tokens": "speculative-num-draft-tokens",
    "model_path": "model-path",
    "host": "host",
    "port": "port",
    "nnodes": "nnodes",
    "node_rank": "node-rank",
    "dist_init_addr": "dist-init-addr",
    "log_level": "log-level",
    "decode_log_interval": "decode-log-interval",
    "enable_metrics": "enable-metrics",
}


def normalize_logical(logical: str) -> str:
    return logical.strip().lstrip("-").replace("-", "_").lower()


class SGLangEngine(Engine):
    name = "sglang"
    default_command = ("python3", "-m", "sglang.launch_server")
    model_flag = "--model-path"
    tracker_class = SGLangTracker

    def flag(self, logical: str, version: str | None = None) -> str | None:
        """Flag name for this SGLang version. An unknown version means the newest behaviour."""
        key = normalize_logical(logical)
        if key in _VERSIONED:
            since, old, new = _VERSIONED[key]
            v = parse_version(version)
            return new if v is None or v >= since else old
        return _FLAGS.get(key)
