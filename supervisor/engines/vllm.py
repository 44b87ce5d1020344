"""vLLM (V1, 2025-2026): phase markers (reference/sglang-facts.md §7), progress, flag names.

vLLM's engine core finishes profiling, KV-cache sizing, graph capture and warmup before the API
server starts; ``init engine (profile, create kv cache, warmup model) took X seconds`` is the
engine core reporting ready to the API server (``started``). The run itself is READY at uvicorn's
``Application startup complete.`` (or a passing health probe).
"""

from __future__ import annotations

import re

from ..states import Phase
from .base import Engine, MarkerTracker, is_launcher_call, is_traffic, parse_access
from .literals import literal_prefilter
from .midrun import (
    is_engine_resting,
    is_engine_traffic,
    is_offline_generate,
    is_request_log,
    is_serving_traffic,
)
from .sglang import normalize_logical

_C = re.compile

_PREFILTER = literal_prefilter(
    "vLLM API server", "non-default args", "LLM engine", "Resolved architecture", "max model len",
    "load model", "Loading model", "Loading weights", "shards", "Model loading took",
    "RunAI Streamer", "| hbm=[(", "draft model", "the target model", "params_dict",
    "out of potential backends", "Prefetching checkpoint", "Runai Model Streamer",
    "Memory profiling", "KV cache", "Warming up model", "GPU blocks", "Maximum concurrency",
    "Dynamo bytecode", "Expert parallelism is",
    "torch.compile", "Compiling a graph", "the graph of", "the compiled graph", "CUDA graph",
    "CUDA Graph", "cudagraph", "CUDAGraph", "ACL graphs",
    "Graph capturing", "init engine", "Starting vLLM", "Started server process",
    "pplication startup", "Running: ", "HTTP/", "%|", "Loading drafter", "d request ",
    # (the forks' lines below on first letters already above: each new one costs every line)
    "API server: ", "HPU blocks", "CPU blocks", "Warmup][", "Warmup finished", "Shutting down",
    "Waiting for connections", "throughput: ", "different input shapes", "prompts: ",
    "REMOTE_KVS", "model weights format", " backend.", "downloading weights",
    "transfer failed for request", "Encoder cache",
    "ASGI app", "method failed", "Connector update_state", "expired KV blocks",
    "Replaying aclgraph", "ampler warmup", "Dequeued prefill", "reset prefix cache",
    "to fall asleep", "to wake up", "Sleep mode freed", "torch/_inductor/", "Reqid: ",
    "(engine dead)", "Registering KV_Caches", "weights loaded. Memory", "redo model forwarding",
    "successful transfers=", "Running batch", "params: SamplingParams(",
    "EngineDeadError", "core exited unexpectedly",
)

_FAILED_STATUS = '" 5'  # an access line's 5xx status (`"POST /v1/completions HTTP/1.1" 500`)

_MARKERS: tuple[tuple[re.Pattern[str], Phase], ...] = (
    (_C(r"vLLM API server version|non-default args|Initializing an? (?:V1 )?LLM engine"
        r"|Resolved architecture|Using max model len"), Phase.LAUNCH),
    # the model runner loads the target model, then a speculative decoder's draft model
    (_C(r"Starting to load model|Loading model from scratch|Loading weights took"
        r"|Loading drafter model"
        # V0 0.2-0.3's weight iterator choosing the files to read (`Using model weights format
        # ['*.safetensors']`, weight_utils.py), once the model is built
        r"|Using model weights format"
        # (and its download of the files first, when the hub cache lacks them: `Time spent
        # downloading weights for org/model: 170.2 seconds`, weight_utils.py, in the loader)
        r"|Time spent downloading weights"
        # V1's attention layers choosing their backend as the model is built in the loader
        # (platforms/cuda.py: `Using TRITON_ATTN attention backend out of potential backends:
        # ['TRITON_ATTN']`, 2026 builds; not V0's `Using FlashAttention backend.`, logged by
        # the model runner before it loads)
        r"|Using \w+ attention backend out of potential backends"
        # (late-2025 builds, the same choice in fewer words: `Using FLASH_ATTN backend.`,
        # `Using AttentionBackendEnum.FLASHINFER backend.` - an enum's name, never V0's words)
        r"|Using (?:AttentionBackendEnum\.)?[A-Z][A-Z0-9_]+ backend\.$"
        # the files being read: tpu-inference's weight_utils (`Loading weights from
        # /.../model.safetensors`), the RunAI model streamer's summary per file set
        # (`[RunAI Streamer] Overall time to stream 10.6 GiB of all files`; vLLM's
        # --load-format runai_streamer, SGLang's diffusion runtime)
        r"|Loading weights from (?:[/~]|\S+\.(?:safetensors|bin|pt)\b)"
        r"|RunAI Streamer\] (?:Overall time to stream|CPU Buffer size)"
        r"|Loading safetensors using Runai Model Streamer"
        # (2026 builds reading the checkpoint files into the page cache before loading them:
        # `Prefetching checkpoint files: 20% (2/4)`, weight_utils.py)
        r"|Prefetching checkpoint files"
        r"|Loading \w+ checkpoint shards"
        # a model's load_weights passing over a checkpoint tensor it has no parameter for
        # (`Parameter visual.blocks.0.attn.qkv.weight not found in params_dict, skip loading`,
        # vLLM's Qwen and other model files): weights being read
        r"|Parameter \S+ not found in params_dict"
        # a speculative drafter being loaded beside its target (V1's proposer, 2026: `Detected
        # MTP model. Sharing target model lm_head weights with the draft model.`, `Keeping
        # separate embedding weights from the target model.`)
        # (each alternative here starts at a letter another one starts with, or a rare one: a
        # new first letter is one more place in every line where the search starts)
        r"|Sharing target model \w+ weights with the draft model"
        r"|Keeping separate \w+ weights from the target model"
        # a MoE layer being built with expert parallelism (`[EP Rank 0/16] Expert parallelism is
        # enabled. Expert placement strategy: linear. ...`, FusedMoE's constructor, vLLM and
        # vLLM-Ascend 2025-2026): the loader is constructing the model
        r"|Expert parallelism is enabled"
        # the Spyre plugin's worker starting its load_model (`load model...`, bare or behind
        # its own `[SpyreWorker] ` tag)
        r"|(?:^|\] )load model\.\.\.$"), Phase.WEIGHT_LOADING),
    # the model is loaded: what follows is the profiling run that sizes the KV cache (the
    # loader's own end lines are read per rank, _weights_of_rank)
    # (tpu-inference's JAX runner: `Init model | hbm=[(1.11, 30.75)]GiB` once it is loaded;
    # not its worker's `Init worker | rank=0 | ... | hbm=[(0.0, 31.25), ...]` before it)
    (_C(r"Memory profiling takes"
        r"|Init model \| hbm=\[\("
        r"|Available KV cache memory|GPU KV cache size"
        # `# GPU blocks`, the Gaudi fork's `# HPU blocks`, the CPU backend's `# CPU blocks`
        r"|Maximum concurrency for|# [CGH]PU blocks|Dynamo bytecode transform"
        # (`torch.compile takes 3.70 s in total`; 2026 builds: `torch.compile took 0.45 s`)
        r"|torch\.compile t(?:akes|ook) "
        r"|Compiling a graph for"
        # (and the compiled graph saved or loaded: `Cache the graph of compile range (1, 64) for
        # later use`, 0.8-0.10 `... of shape None ...`, `Directly load the compiled graph(s) for
        # compile range ... from the cache`: the same compile, in the profiling run)
        r"|Cache the graph of (?:compile range|shape)|Directly load the compiled graph"
        # torch's own log lines from Inductor compiling the model (`[rank0]:W0324 14:40:02.216000
        # 828 torch/_inductor/triton_bundler.py:395] ...`): V1 compiles in the profiling run
        r"|torch/_inductor/[\w/]+\.py:\d+\] "
        # the CPU build: compile and profile the model, then size the KV cache from host memory
        r"|Warming up model for the compilation|GiB for KV cache on node|CPU KV cache size"
        # V1's profiling run of a multimodal model sizing its encoder cache first (`Encoder
        # cache will be initialized with a budget of 16384 tokens, and profiled with 1 image
        # items ...`, gpu_model_runner.profile_run): the run that sizes the KV cache
        r"|Encoder cache will be initialized with a budget of \d+ tokens, and profiled"
        # 2026 builds measuring what the CUDA graphs will take before sizing the KV cache
        # (`Profiling CUDA graph memory: PIECEWISE=51 (largest=512), FULL=35 (largest=256)`,
        # gpu_model_runner.py, inside determine_available_memory): no capture yet
        r"|Profiling CUDA graph memory: "
        # a KV connector registering the KV cache just allocated with its transfer library
        # (NIXL's `Registering KV_Caches. use_mla: False, kv_buffer_device: cuda`, from the model
        # runner's initialize_kv_cache): PD disaggregation's KV sizing done, not yet warmed up
        r"|Registering KV_Caches\b"),
     Phase.KV_CACHE_ALLOC),
    # (V1's CUDAGraphWrapper at DEBUG, one line per captured shape: `Capturing a cudagraph on
    # (PIECEWISE,BatchDescriptor(num_tokens=8, uniform_decode=False))`)
    # (vLLM-Ascend's ACL graphs: `Starting to capture ACL graphs for cases: [...]`, its bar
    # `Capturing ACL graphs (decode, FULL):  14%|...`)
    (_C(r"(?i:capturing (?:a )?cuda ?graph)|Graph capturing (?:finished|for \d+ input tokens)"
        r"|Capturing ACL graphs|Starting to capture ACL graphs"
        # V0 0.3-0.6's capture_model (`Capturing the model for CUDA graphs. This may lead to ...`)
        r"|Capturing the model for CUDA graphs"
        # the TPU runner's capture_model: XLA compiles the model, then sampling (and other
        # heads), for each padded input shape (`Compiling the model with different input
        # shapes.`, `Compiling sampling with different input shapes.`): its graph capture
        r"|Compiling [\w ]+ with different input shapes"), Phase.CUDA_GRAPH_CAPTURE),
    # the API server starting once the engine core is up: `Starting vLLM API server 0 on
    # http://...` (2025), `Starting vLLM server on http://...` (2026 builds); not a launch
    # script's own `Starting vLLM server...` before the engine starts
    (_C(r"init engine \(profile, create kv cache, warmup model\) took"
        r"|Starting vLLM (?:API )?server (?:\d+ )?on\b"),
     Phase.WARMUP),
    (_C(r"Application startup complete"), Phase.READY),
)

# The Gaudi (HPU) fork's warmup_model, once the KV cache is allocated: a forward pass of dummy
# data per prompt and decode bucket shape (`[Warmup][Prompt][k/N] batch_size:.. seq_len:..`,
# `[Warmup][Decode][k/N]`), which compiles each shape's graph, then the HPU graph capture of
# those buckets (`[Warmup][Graph/Prompt][k/N]`), then `Warmup finished in N secs` and the API
# server. Like the CPU build's `Warming up model` after KV sizing it is the engine's warmup, one
# step: its graph capture comes after the per-shape warmup, so it cannot be a phase of its own
# (a run's phase never moves back). A marker, checked in _special behind its literals.
_HPU_WARMUP_RE = _C(r"\[Warmup\]\[[\w/]+\]\[\d+/\d+\]|Warmup finished in \d+ secs"
                    # its sampler warmup (hpu_model_runner.py warmup_sampler, in warmup_model
                    # after the buckets: `Starting sampler warmup...`, `Sampler warmup completed
                    # successfully`, per the fork's warm-up docs)
                    r"|Starting sampler warmup|Sampler warmup completed")
# (and the API server starting: its run_server logs `Starting vLLM API server 0 on http://...`
# only once build_async_engine_client has returned - the engine built and answering - V0's
# MQLLMEngine client and V1's engine cores alike; a paste may keep this line alone)
_ENGINE_UP_RE = _C(r"init engine \(profile, create kv cache, warmup model\) took"
                   r"|Starting vLLM (?:API )?server (?:\d+ )?on\b")
# Each worker (rank) loads its own part of the model and logs the loader's end line under its
# process tag (`(Worker_TP1 pid=96)`, `(RayWorkerWrapper pid=165186, ip=...)`; none for the
# driver or a single process): V1's `Model loading took`, V0 0.4-0.6's and vLLM-Ascend's
# `Loading model weights took X GB`. Loading is over once every rank the log shows loading has
# ended it (as SGLang's `Load weight end`); Ray folds the same line of other workers into one
# `[repeated 14x across cluster]`, which ends them all. (Aphrodite, the vLLM fork, 2024: `Model
# weights loaded. Memory usage: 17.15 GiB x 4 = 68.60 GiB`, each Ray worker's and the driver's.)
_WEIGHTS_END_RE = _C(r"Model loading took|Loading model weights took"
                     r"|Model weights loaded\. Memory usage:")
# (with the rank V0 and 0.8-0.9 workers name, `(VllmWorker rank=3 pid=1564)`, or 0.10's
# parallel ranks, `(VllmWorker TP0 pid=7)`, `(Worker_TP1_EP1 pid=9)`: each rank its own tag)
_PROC_TAG_RE = _C(r"\(([A-Za-z][\w-]*(?: rank=\d+| [A-Z]{2}\d+(?:_[A-Z]{2}\d+)*)? pid=\d+)"
                  r"(?:, ip=[^)]*)?\) ")
# vLLM's periodic stats, busy or idle (`Avg prompt throughput: 0.0 tokens/s, Avg generation
# throughput: 0.0 tokens/s, Running: 0 reqs, Swapped: 0 reqs, Pending: 0 reqs, ...`): printed by
# the engine's loop (V0's MQLLMEngine logs them while idle too, V1's API server's stats logger),
# which runs only once the engine is up. Idle ones show no request: ready, not serving.
_STATS_RE = _C(r"Avg prompt throughput: [\d.]+ tokens/s, Avg generation throughput: [\d.]+ "
               r"tokens/s, Running: \d+ reqs?")
# The KV cache has been sized: what follows is "warmup model" of init engine's "(profile, create kv
# cache, warmup model)".
_KV_SIZED_RE = _C(r"KV cache size: [\d,]+ tokens|# [CGH]PU blocks: \d")
_GRAPH_BAR_RE = _C(r"(?i:capturing cuda ?graph)[^:]*:\s*\d+%\|[^|]*\|\s*(\d+)/(\d+)")
# 2026 builds' shutdown sequence: the API server's launcher (serve_http, which runs only once
# the engine client is up) shutting down or draining its engine client.
# V0 builds' launcher (serve_http, likewise): `Shutting down FastAPI HTTP server.`; uvicorn's own
# `INFO:     Shutting down` (the API server's uvicorn starts only once the engine is up).
_API_SHUTDOWN_RE = _C(r"\bAPI server: (?:shutdown triggered|stopping engine client)"
                      r"|Shutting down FastAPI HTTP server|INFO:\s+Shutting down\s*$")
# V1's engine core failing a utility call a client made (core.py _handle_client_request:
# `Invocation of collective_rpc method failed`): only its busy loop handles client calls, and it
# runs once EngineCore is built, so a fragment that starts there was up.
_UTILITY_FAILED_RE = _C(r"\bInvocation of \w+ method failed\s*$")
# uvicorn shutting down with connections open (printed only when some are): clients were
# connected to the API server.
_CONNECTIONS_OPEN = "Waiting for connections to close"


class VLLMTracker(MarkerTracker):
    """``Warming up model`` means what comes before it: the CPU build (0.32) compiles and
    profiles the model with it before sizing the KV cache (kv_cache_alloc); builds that size the
    KV cache first (s390x, 2026) print it for the model warmup that follows (warmup)."""

    __slots__ = ("kv_sized", "loading_ranks", "bar_open", "engine_dead")
    PREFILTER = _PREFILTER
    MARKERS = _MARKERS

    def __init__(self) -> None:
        super().__init__()
        self.kv_sized = False
        self.loading_ranks: set[str] = set()
        self.bar_open = False  # the last checkpoint-shard bar short of its total
        self.engine_dead = False  # the API server said its engine core died (after ready)

    def _special(self, line: str) -> bool:
        # (asked only of lines past the prefilter, which holds "init engine" and "Starting
        # vLLM": no feed() of our own, whose call every line would pay)
        if not self.started and ("init engine" in line or "Starting vLLM" in line) and \
                _ENGINE_UP_RE.search(line):
            self.started = True
        changed = False
        if not self.ready and self.markers_seen == 0 and is_serving_traffic(line):
            changed = self.mark_ready(line) is not None  # a log that starts mid-run (midrun.py)
        elif not self.ready and "Running: " in line and _STATS_RE.search(line):
            changed = self.mark_ready(line) is not None  # the engine's loop is running
        elif not self.ready and " request " in line and is_request_log(line):
            # vLLM logs `Received request` / `Added request` only for a client's request (it
            # sends itself none at startup): up, whatever startup lines came before (a wrapper
            # that serves it through its own worker, FastChat's, shows no ready line of vLLM's)
            changed = self.mark_ready(line) is not None
        elif not self.ready and self.markers_seen == 0 and "HTTP/" in line and \
                _answered(line):
            # vLLM's API server only starts once the engine core is up: a fragment that starts
            # with a request answered, whatever the status (a load balancer's /health poll, a
            # completion failing with 500 as the engine dies), was ready; traffic then means
            # serving (`_access` below). A local read is a probe (ours too): it proves nothing.
            changed = self.mark_ready(line) is not None
        elif not self.ready and self.started and "HTTP/" in line and _answered_ok(line):
            # the engine up (`init engine ... took`, `Starting vLLM server on`) and a request
            # answered 2xx: uvicorn takes requests only once the app's startup is complete, so
            # the server was ready even where its `Application startup complete` was cut
            changed = self.mark_ready(line) is not None
        elif not self.ready and self.markers_seen == 0 and ("API server: " in line or
                                                          "Shutting down" in line) and \
                _API_SHUTDOWN_RE.search(line):
            # a fragment that starts at a stop: the API server being shut down had been up
            changed = self.mark_ready(line) is not None
        if not self.ready and self.markers_seen == 0 and "method failed" in line and \
                _UTILITY_FAILED_RE.search(line):
            changed = self.mark_ready(line) is not None or changed
        if self.markers_seen == 0 and _CONNECTIONS_OPEN in line:
            # a fragment that starts at a stop with clients connected: it was serving them (not
            # for a run seen from its start: our own probe may be connected when we stop it)
            changed = self._up_and_serving(line) or changed
        if "ASGI app" in line:
            changed = self._request_error(line) or changed
        if ("Started server process" in line or "Waiting for application startup" in line) \
                and self.markers_seen:
            # uvicorn starting: vLLM's API server starts it once the engine is up; a wrapper
            # that builds the engine inside its own app's startup (ms-swift's rollout server,
            # TRL's vllm-serve) starts it first, before any engine line
            self.markers_seen += 1
            changed = self._advance(Phase.WARMUP) or changed
        if "shards" in line:
            changed = self._shard_progress(line) or changed
            bar = self.progress
            if bar is not None and self.phase is Phase.WEIGHT_LOADING:
                self.bar_open = bar["done"] < bar["total"]  # (set from this bar, or unchanged)
        elif (self.line_marker is Phase.WEIGHT_LOADING or "took" in line
              or "weights loaded" in line) and self.phase.rank <= Phase.WEIGHT_LOADING.rank:
            changed = self._weights_of_rank(line) or changed
        if ("Warmup" in line or "ampler warmup" in line) and _HPU_WARMUP_RE.search(line):
            self.markers_seen += 1
            changed = self._advance(Phase.WARMUP) or changed
        if not self.kv_sized and ("KV cache" in line or "PU blocks" in line):
            self.kv_sized = _KV_SIZED_RE.search(line) is not None
        elif self.kv_sized and "Warming up model" in line:
            changed = self._advance(Phase.WARMUP) or changed
        if "%|" in line:
            m = _GRAPH_BAR_RE.search(line)
            if m:
                changed = self._advance(Phase.CUDA_GRAPH_CAPTURE) or changed
                if self.phase is Phase.CUDA_GRAPH_CAPTURE:
                    self.progress = {"kind": "cuda_graph_bs", "done": int(m[1]),
                                     "total": int(m[2])}
        if self.ready and ("EngineDeadError" in line or "core exited unexpectedly" in line):
            self.engine_dead = True
        if "HTTP/" in line:
            if self.engine_dead and _FAILED_STATUS in line:
                # a request the API server failed after its engine core died (dl104, in104: a
                # completion 500 once the core was killed at ready): nothing was served
                return changed
            changed = self._access(line) or changed
        if not self.ready and is_offline_generate(line):
            # offline LLM.generate: no API server and no ready line, the engine serves the
            # requests it was given (whatever markers came before)
            changed = self.mark_ready(line) is not None or changed
        if not self.ready and is_engine_resting(line):
            changed = self.mark_ready(line) is not None or changed  # put to sleep: it is up
        if self.ready and is_engine_traffic(line):
            # busy stats, a request accepted or waiting for its KV blocks: serving
            self.requests_seen = max(self.requests_seen, 1)
            changed = self._advance(Phase.SERVING) or changed
        return changed

    def _weights_of_rank(self, line: str) -> bool:
        """A rank loading (a weight-loading marker under its tag) or ending its load; the last
        to end, with no shard bar left short of its total (the driver's, untagged in Ray
        runs), moves the run to kv_cache_alloc."""
        if ("took" not in line and "weights loaded" not in line) or \
                _WEIGHTS_END_RE.search(line) is None:
            if self.line_marker is Phase.WEIGHT_LOADING:
                self.loading_ranks.add(_proc_tag(line))
            return False
        if "across cluster" in line:
            self.loading_ranks.clear()
        else:
            self.loading_ranks.discard(_proc_tag(line))
        self.markers_seen += 1
        return not self.loading_ranks and not self.bar_open and \
            self._advance(Phase.KV_CACHE_ALLOC)


def _proc_tag(line: str) -> str:
    """The innermost process tag of a line (a worker's inside its engine core's), or ''."""
    tags = _PROC_TAG_RE.findall(line[:200])
    return tags[-1] if tags else ""


def _answered_ok(line: str) -> bool:
    access = parse_access(line)
    return access is not None and '" 2' in line and not is_launcher_call(access[1], access[2])


def _answered(line: str) -> bool:
    access = parse_access(line)
    return access is not None and is_traffic(access[1], access[0], access[2])


_FLAGS: dict[str, str] = {
    "mem_fraction": "gpu-memory-utilization",
    "mem_fraction_static": "gpu-memory-utilization",
    "disable_cuda_graph": "enforce-eager",
    "disable_custom_all_reduce": "disable-custom-all-reduce",
    "tp_size": "tensor-parallel-size",
    "dp_size": "data-parallel-size",
    "pp_size": "pipeline-parallel-size",
    "context_length": "max-model-len",
    "max_running_requests": "max-num-seqs",
    "chunked_prefill_size": "max-num-batched-tokens",
    "kv_cache_dtype": "kv-cache-dtype",
    "quantization": "quantization",
    "cpu_offload_gb": "cpu-offload-gb",
    "disable_radix_cache": "no-enable-prefix-caching",
    "speculative_config": "speculative-config",
    "host": "host",
    "port": "port",
}


class VLLMEngine(Engine):
    name = "vllm"
    default_command = ("vllm", "serve")
    model_flag = "--model"
    tracker_class = VLLMTracker

    def flag(self, logical: str, version: str | None = None) -> str | None:
        """vLLM has no flag for SGLang-only knobs (cuda_graph_max_bs, attention/sampling backend
        (an environment variable in vLLM), enable_torch_compile (on by default)): None."""
        return _FLAGS.get(normalize_logical(logical))
