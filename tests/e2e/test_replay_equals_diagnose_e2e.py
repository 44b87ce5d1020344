"""Live equals offline: every labelled log, replayed through the real daemon, ends with the
outcome, phase and cause that ``diagnose`` gives for the file.

A daemon replays the logs one after another (``switch`` from one replay profile to the next;
one daemon for each group of up to 1,000 logs, under the daemon's limit of profiles a folder),
each at a speed that makes its timestamps' gaps vanish; the replay ends the way the logged
process did (``SGLANG_EMULATOR_REPLAY_END=live``: a crash dies, anything else stays up, silent).
The live outcome is the run's status at the end: ``crashed``; ``ready`` (the whole log shown and
the run ready or serving); ``hung`` after ``silence`` for a log that ends neither ready nor
crashed, which ``diagnose`` calls ``incomplete``. A failed run always has a cause (``unknown``
where ``diagnose`` names none).

The whole set (2,889 logs) takes about 35 min on 2 cores: ``make test-replay`` (GNS_REPLAY_ALL=1)
runs it, ``.ci/run`` with it; the normal suite replays a sample: every cause and every
(engine, outcome, phase) at least once.
"""

from __future__ import annotations

import os
import re
import time
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest

from supervisor.diagnosis.classifier import classify_text
from supervisor.emulator.replay import DONE_TITLE
from supervisor.protocol.client import ConnectionLost, DaemonClient, DaemonError, connect_unix
from tests.test_classifier import ALL_LOGS, split_fixture

from .harness import RUN_VAR, Daemon, cleanup, free_port, kill_env_processes, short_tmpdir

pytestmark = pytest.mark.e2e

SILENCE = 2.0       # hung this long after the end; shorter, and an interpreter still starting on
                    # 2 busy cores (no output, little CPU) reads as hung (at 1 s, one replay of
                    # 2,769 in a fresh-clone CI, jj217, was called hung between its last two lines)
SPEED = 1e6         # timestamp gaps of the log divided by this: none left
PER_LOG_S = 20.0    # the end of one replay, at most
ALL = os.environ.get("GNS_REPLAY_ALL") == "1"

# Where the live run cannot agree with the file, and why.
_API_UP = ("the log ends once vLLM's engine core is up, before the API server's 'Application "
           "startup complete': diagnose says ready in warmup (its last marker); live, the health "
           "probe passes and the run is ready in phase ready")
_FRAMES_ONLY = ("a paste of traceback frames only, cut at both ends: diagnose reads a log cut "
                "inside a traceback as crashed (a known classifier miss, labelled incomplete); "
                "live, the replayed process stays up, silent, and the daemon calls it hung "
                "(incomplete)")
_STALL_END = ("the log ends in stall reports after the server was up: diagnose says incomplete "
              "(hung, cause unknown); live, the replay is ready and serving once its log is out, "
              "and only the serving watchdog's unanswered canary (after `silence`) calls it hung")
_ROUTES_ONLY = ("a paste whose last startup line before the API server's task or route list is "
                "far "
                "behind it (the loader's end, or none): diagnose says ready in warmup (the "
                "routes come only once the engine is up); live, the daemon probes the port only "
                "from warmup's markers and calls the silent replay hung where the markers were "
                "(a run watched live has every line between; the tracker does not read route "
                "lines, too many to pay for)")
_REQUEST_FRAMES = ("a fragment whose only sign of life is one request's traceback, its header cut: "
                   "diagnose reads the request handler's frames as a server up and serving "
                   "(ready, as labelled); live, the replay stays up with no marker and its probe "
                   "unanswered: incomplete (the trackers do not read frames, too many to pay for)")
_DUMP_FRAMES = ("a py-spy dump of a stuck process and nothing else: diagnose dates it by the dump's "
                "frames (the scheduler's event loop: serving, as labelled); live, the trackers do "
                "not read frames (too many to pay for) and the silent replay is hung at launch")
_RESTARTS = ("a log of several runs - a wrapper restarting the engine inside the one process the "
             "daemon watches (a restart loop, a unit's Restart=): diagnose reads the last run; "
             "live, the run's phase only moves forward and keeps what an earlier run reached "
             "(serving), though the outcome and cause agree")
_TWO_PROCESSES = ("a wrapper's log of two processes, a benchmark client and the server it drove: "
                  "diagnose reads the client's traceback as the run's death (crashed, a known "
                  "miss); live, the replayed server stays up and serving to the end, as the "
                  "server itself did (the label says it was stopped by the wrapper)")
_LABEL_LIVE = ("a classifier miss (tests/test_classifier.py KNOWN_MISSES): the replay ends the way "
               "the labelled run did (dies, or stays up and answers its probe), so live agrees "
               "with the label where the file alone does not")
_ERROR_END = ("a serving fragment with no marker of the engine's that ends on a wrapper's ERROR "
              "line (labelled ready): diagnose reads a log not yet up that ends on an error line "
              "as dead of it (crashed, a known miss); live, the replay stays up, silent, and the "
              "daemon calls it hung where its markers left it (incomplete)")
LIVE_MISSES: dict[str, str] = {
    # (Since session 42 a run whose log ends in a fatal error is crashed when its silence
    # passes, whatever its processes do: the sixteen logs here that diagnose reads crashed
    # while their replay stays up, which the daemon had called hung or left incomplete, now
    # end live as diagnose says and left this list - i113, u117, v218, e115, a304, pp304,
    # pp305, pp317, vv107, xx116, ab211, ac108, aj103, al302, ev103 and i403.)
    "29-vllm-v1-startup-kv-and-graph-capture-sm120.log": _API_UP,
    "c022-vllm-rtx5090-routes-then-started.log": _API_UP,
    "c067-vllm-084-lora-3h-graph-capture-then-up.log": _API_UP,
    # (a real vLLM CPU run here whose API server was SIGKILLed during loading, the engine core
    # going on to be up: replayed, the emulator's port answers the probe; the real server's
    # port was closed - what the live daemon makes of that is not what this test replays)
    "ax112-vllm-cpu-032-kill-api-during-load.log": _API_UP,
    # (the 104th batch: a wrapper's 8 KiB buffer never flushed, the log cut at the engine
    # core's `init engine ... took`)
    "ci110-vllm-cpu-032-buffered-wrap-worker-stopped.log": _API_UP,
    # (the 276th batch: the API server SIGKILLed at its handshake with the engine core, which
    # went on to `init engine ... took` with no HTTP server; as ax112)
    "ja103-vllm-cpu-032-api-server-killed-at-handshake.log": _API_UP,
    # a log that was up, then ends in stall reports: diagnose says hung (incomplete, cause
    # unknown). Live, the replay is ready with its whole log out (what the test waits for) and
    # stays up, silent: a hung server is the serving watchdog's to call, with a canary after
    # `silence` (serving_stall when it goes unanswered), not the log's
    "g203-vllm-ascend-2025-offline-generate-shm-broadcast-stall.log": _STALL_END,
    # (a real vLLM CPU run here, its worker SIGSTOPped with a request in flight: the real
    # daemon calls it hung through its canary, tests/real/test_vllm_canary_real.py)
    "at130-vllm-cpu-032-serve-stop-worker.log": _STALL_END,
    # (the same kind with two tensor-parallel ranks, rank 1 SIGSTOPped while serving: the 102nd
    # batch)
    "cg104-vllm-cpu-032-tp2-stop-rank1-serving.log": _STALL_END,
    "g205-vllm-llmd-pd-decode-waiting-for-remote-kvs.log": _STALL_END,
    "g208-sglang-pd-prefill-bootstrap-timeout-after-hang.log": _STALL_END,
    "h206-vllm-dp8-full-cudagraph-requests-hang.log": _STALL_END,
    # the live run's phase only moves forward: its tracker reached warmup at the launcher's
    # 'Started server process' printed after every scheduler had exited with 255; diagnose
    # dates the crash at the first dead rank (launch), which the live run cannot go back to
    "f111-sglang-2node-deepep-nvshmem-init-terminated-255.log":
        "diagnose says launch (the phase when the ranks died); live, the run's phase had "
        "already moved to warmup at the launcher's later 'Started server process' and a run's "
        "phase never moves back",
    # the fifth batch (fresh4): the file alone and the live run read the end differently
    "i106-sglang-2405-llava8b-create-weights-traceback-fragment.log": _FRAMES_ONLY,
    "i401-vllm-ray-tp8-serving-watchdog-allreduce-timeout.log":
        "an NCCL watchdog timeout after serving, no exit shown: diagnose reads the watchdog as "
        "fatal (crashed, nccl_timeout; a known classifier miss, labelled hung); live, the "
        "replayed process stays up and its run stays ready and serving",
    # (i403, NCCL watchdog timeouts of the first collective and no exit shown, was listed
    # here: live, the replayed process stays up, silent, and the daemon called it hung. Since
    # session 42 a run whose log ends in a fatal error is crashed when its silence passes,
    # whatever its processes do, and live equals diagnose: crashed, nccl_timeout)
    # the sixth batch (fresh5)
    "j212-vllm-073-v1-int8-graphs-then-api-routes.log": _API_UP,
    # the eighth batch (fresh7): labelled hung (live: silent after vLLM's engine-up line, hung in
    # warmup; diagnose: ready), ready (live: the probe answered, ready; diagnose: a /health poll
    # only, incomplete in warmup), crashed (live: exit status 1 at launch; diagnose: incomplete)
    "l116-vllm-0151-swift-rollout-after-init-engine-hang.log": _LABEL_LIVE,
    # the ninth batch (fresh8): labelled incomplete (live: silent after vLLM's engine-up line,
    # hung in warmup; diagnose: ready)
    "m309-vllm-pd-nixl-engine-init-done-then-stuck.log": _LABEL_LIVE,
    "m210-sglang-mi300-glm53-interleaved-faulthandler-dump.log":
        "faulthandler dumps interleaved character by character: diagnose finds no fatal line "
        "(incomplete, a known classifier miss, labelled crashed); live, the replayed process "
        "exits with the labelled run's failure and the daemon calls it crashed (launch either way)",
    # the tenth batch (fresh9): labelled crashed (live: exit status 1 at launch; diagnose: a
    # traceback behind a logging prefix, cut before its exception, incomplete)
    "n118-vllm-v04-ctrl-c-stack-in-load-model.log":
        "a stack pasted after a Ctrl-C, cut in load_model: diagnose reads it as crashed (a "
        "known classifier miss, labelled stopped in weight_loading); live, the replayed "
        "process stays up, silent, and the daemon calls it hung at launch (incomplete)",
    "n314-vllm-ascend-0101rc1-docker-routes-listing-cut.log": _API_UP,
    # the eleventh batch (fresh10)
    "o107-vllm-v0-multistep-pr-requests-pile-pending.log": _STALL_END,
    "o106-vllm-v1-2505-running-one-req-zero-throughput-hang.log": _STALL_END,
    # labelled crashed (live: the replay exits; diagnose: no death in the file, incomplete)
    # labelled hung (live: the replay stays up, silent: hung; diagnose: a live stack dump's
    # 'Thread 0x...' headers read as a death, crashed)
    "o212-sglang-multinode-scheduler-stack-broadcast-recv.log": _LABEL_LIVE,
    "o310-sglang-gpustack-ascend-npu-graph-replay-watchdog-pyspy.log":
        "labelled crashed: the replay exits, so live says crashed where diagnose finds no death "
        "(incomplete in warmup, a known classifier miss); live names port_in_use from the exit "
        "alone: with none of SGLang's kill markers in the piece the replay exits 1 (its "
        "stand-in for a Python error's exit), and an SGLang exit 1 in warmup with no traceback "
        "is how uvicorn failing to bind its port ends",
    # the twelfth batch (fresh11)
    "p106-vllm-v1-2507-mp-backend-init-engine-then-cut.log": _API_UP,
    # the thirteenth batch (fresh12)
    "q117-vllm-2508-eager-init-engine-took-apiserver-startup-cut.log": _API_UP,
    # the fourteenth batch (fresh13)
    "r110-vllm-ascend-full-decode-only-aclgraph-replay-stall.log":
        "Ascend's graph replay (serving), then only the engine core's shared-memory broadcast "
        "waits: diagnose reads them as a stall (incomplete, unknown); the live run, replayed "
        "fast, ends ready in serving before any wait is long enough to call it hung",
    # known classifier misses (KNOWN_MISSES) where diagnose reads a fatal the live run does not
    "r303-vllm-ray-serve-example-request-attributeerror.log": _REQUEST_FRAMES,
    "r306-sglang-verl-ctrlc-after-hang.log":
        "diagnose reads the stacks after Ctrl-C as a crash (labelled stopped); live: incomplete",
    # known classifier misses (tests/test_classifier.py KNOWN_MISSES)
    # that the live run reads as labelled, from the replay's exit status or its silence
    # the sixtieth batch (fresh59), as scored blind
    "ao101-vllm-pr-2603-qwen35-122b-gptq-tp2-mamba-align-routes-cut.log": _API_UP,
    "ao102-vllm-pr-2601-dedup-sampling-params-init-engine-83s-apiserver-cut.log": _API_UP,
    "ao201-vllm-082-v1-offline-llama32-1b-workshop-notebook-init-engine-took.log": _API_UP,
    "ao203-vllm-082-v0-unsloth-wsl-rtx4070ti-qwen25-15b-bnb-grpo-notebook-init-engine-took.log": _API_UP,
    "ao204-vllm-073-v0-unsloth-h100-llama31-8b-bnb-notebook-init-engine-then-merge-save.log": _API_UP,
    "ao208-vllm-0101-v0-unsloth-colab-t4-qwen25-3b-bnb-fa2-error-line-notebook-init-engine-took.log": _API_UP,
    "ao216-vllm-054-v0-internvl2-2b-turing-multiprocess-worker-nameerror-then-keyboardinterrupt.log": _LABEL_LIVE,
    "ao305-vllm-0160-neuron-keyerror-then-restart-loading-neff.log": _LABEL_LIVE,
    # the fifty-ninth batch (fresh58), as scored blind
    "an205-vllm-072-v0-offline-qwen2-7b-notebook-init-engine-took.log": _API_UP,
    "an207-vllm-0130-v1-wsl-offline-smollm2-eager-notebook-init-engine-took.log": _API_UP,
    "an210-vllm-072-v0-offline-405b-bnb-tp8-40gb-notebook-init-engine-took.log": _API_UP,
    "an213-vllm-085post1-v1-autodl-offline-mixtral-gptq-eager-notebook-engine-ready.log": _API_UP,
    "an216-vllm-072-v0-offline-qwen25-math-15b-assignment-notebook-init-engine-took.log": _API_UP,
    "an310-vllm-2503-ray-serve-dsv3-h20-request-failed-replica-traceback-cut.log": _REQUEST_FRAMES,
    # the fifty-eighth batch (fresh57), as scored blind
    "am104-vllm-pr-085-api-server-entrypoint-fixed-init-engine-routes-cut.log": _API_UP,
    "am110-vllm-pr-2602-qwen3coder-tool-parser-docker-apiserver-routes-cut.log": _API_UP,
    # the fifty-seventh batch (fresh56), as scored blind
    "al111-vllm-2602-fips-ansi-colour-api-server-routes.log": _API_UP,
    "al311-vllm-2023-t4-scheduler-throughput-zero-pending-hung.log": _STALL_END,
    # the fifty-sixth batch (fresh55), as scored blind
    "ak305-vllm-v0-runpod-worker-exit-code-136-after-added-request.log": _LABEL_LIVE,
    # the fifty-fifth batch (fresh54), as scored blind
    # the fifty-fourth batch (fresh53), as scored blind
    "ai103-vllm-054-modal-volume-bnb-cannot-find-any-model-weights.log": _LABEL_LIVE,
    # the fifty-third batch (fresh52), as scored blind
    "ah203-vllm-v1-mooncake-connector-v1-prefill-init-engine-took-cut.log": _API_UP,
    "ah301-vllm-art-0100-lora-api-server-routes-cut.log": _API_UP,
    "ah204-vllm-0210-glm5-mooncake-store-completion-stream-request-traceback-cut.log":
        _REQUEST_FRAMES,
    "ah212-sglang-py313-1p1d-mooncake-tcp-thread-dump-watchdog-overlap-worker.log": _LABEL_LIVE,
    # the fifty-second batch (fresh51), as scored blind
    "ag409-vllm-2603-minimax-m25-local-path-error-retrieving-safetensors-retry-one-line.log":
        _LABEL_LIVE,
    # the fifty-first batch (fresh50), as scored blind
    "af113-vllm-ci-2601-pytorch-210-release-test-wait-for-engine-startup-listing-cut.log":
        _LABEL_LIVE,
    "af118-vllm-ascend-0140rc1-dsv32-a2-2node-chat-stream-generator-request-error-cut.log":
        "a request's traceback through the output handler, cut: diagnose reads the handler's "
        "death (crashed, a known miss, labelled ready); live, the replay stays up and silent "
        "with no marker read (the trackers do not read frames) and the daemon calls it hung",
    # the forty-ninth batch (fresh48), as scored blind
    "ad108-vllm-pr-2609-glm53-flash-eplb-after-api-routes-listed.log": _ROUTES_ONLY,
    "ad308-vllm-010x-2509-blog-autodl-qwen3-8b-modelscope-starting-api-server-one-line.log":
        _API_UP,
    # the forty-eighth batch (fresh47), as scored blind
    "omniserver-stopping.log":
        "a test's request answered 500 and a harness's 'FAILED' glued to the last line: diagnose "
        "reads a crash (a known miss, labelled stopped); live, the replay stays up and silent "
        "with no marker read, and the daemon calls it hung at launch",
    "ac301-vllm-0101-2509-v0-mq-docker-enable-log-outputs-routes-listed-cut.log": _ROUTES_ONLY,
    "ac316-sglang-056post2-2512-fedora-16gb-bench-one-batch-lfm2-700m-triton-mamba-cache-warmup-"
    "benchmark-finished.log":
        "SGLang's bench_one_batch (no server): diagnose reads its pool line as a startup in "
        "warmup (a known miss, labelled ready); live, the replayed process answers its health "
        "probe: ready in phase ready",
    # the forty-seventh batch (fresh46), as scored blind
    "ab115-vllm-09x-2506-qwen3-embedding-rerank-routes-listed-then-cut.log": _ROUTES_ONLY,
    "ab207-vllm-ascend-2601-ais-bench-qwen-multimodal-apiserver-chat-stream-generator-output-"
    "processor-raise-cut.log": _LABEL_LIVE,
    "frames-cut.log": _LABEL_LIVE,
    "ab215-sglang-0116-2405-fastchat-sglang-worker-llava-multimodal-worker-generate-500-asgi-"
    "exception-cut.log": _LABEL_LIVE,
    "ab305-vllm-v0-2503-intel-core-ultra-155h-arc-igpu-xpu-init-engine-took-routes-listed.log":
        _API_UP,
    # the forty-sixth batch (fresh45), as scored blind
    "zz216-vllm-05x-2407-python-logging-wrapper-internlm25-1m-running-1-zero-throughput-stall.log":
        _STALL_END,
    "zz210-vllm-v0-2503-two-a10-mqllmengine-spawnprocess-exit-join-keyboardinterrupt-"
    "terminated.log": _LABEL_LIVE,
    # the forty-fifth batch (fresh44), as scored blind
    "yy115-sglang-jax-2026-tpu-v1-score-request-handler-frames-tokenizer-manager-gather-cut.log":
        _LABEL_LIVE,
    "yy214-vllm-0221-2606-sleep-wake-kv-offloading-apiserver-engine-exception-caught-chat-"
    "request-frames-cut.log": _LABEL_LIVE,
    "yy215-vllm-v1-2603-ubi-image-two-apiservers-is-sleeping-polls-wake-up-500-asgi-exception-"
    "frames-cut.log": _LABEL_LIVE,
    "yy207-vllm-nightly-2601-docker-qwen3-vl-8b-async-scheduling-apiserver-routes-listing-"
    "cut.log": _ROUTES_ONLY,
    "yy314-vllm-spyre-next-2603-pr-cpu-model-runner-aot-compile-init-engine-took-then-llm-"
    "cut.log": _API_UP,
    # the forty-fourth batch (fresh43), as scored blind
    "overlay-nvlink-new-start.log": _LABEL_LIVE,
    "xx316-vllm-v1-2603-spark-vllm-docker-gb10-qwen3-coder-next-fp8-starting-server-routes-user-"
    "thinks-stuck.log": _API_UP,
    # the forty-third batch (fresh42), as scored blind
    "ww109-vllm-2605-club3090-2x3090-tp2-graphs-captured-init-engine-took-then-processor-"
    "warnings-cut.log": _API_UP,
    "ww208-vllm-v1-2508-minicpm-v4-offline-llm-kv-cache-graphs-init-engine-took-then-adding-"
    "requests-0pct.log": _API_UP,
    # the forty-second batch (fresh41), as scored blind
    "exception-traceback-cut.log":
        "a worker's handled transfer failure logged with the start of its traceback, the log cut "
        "there: diagnose reads the cut traceback as a death (a known miss, labelled ready); "
        "live, the replay stays up as labelled, silent, with no marker of the tracker's in the "
        "fragment: hung at launch",
    "vv210-vllm-2603-compose-autoround-awq-qwen35-9b-route-listing-cut-before-startup-complete.log":
        _ROUTES_ONLY,
    # the forty-first batch (fresh40), as scored blind
    "uu101-vllm-0101-gptoss-2508-2xh100-chat-stream-generator-harmonyerror-unexpected-token.log":
        _REQUEST_FRAMES,
    "uu213-vllm-ascend-2509-npu-glm45-air-tp8-graph-capturing-finished-init-engine-took-ready.log":
        _API_UP,
    # the fortieth batch (fresh39), as scored blind
    "tt209-vllm-xpu-llm-scaler-0140-b81-2605-4x-b70-completions-200-shm-broadcast-60s-"
    "throughput-stats-serving.log": _STALL_END,
    "tt217-vllm-2605-club3090-bench-strix-halo-egpu-3090-5070ti-tp2-capture-bars-graph-pool-"
    "init-engine-took.log": _API_UP,
    "tt311-vllm-v1-2601-hunyuan-mt-kv-cache-graphs-init-engine-took-supported-tasks.log": _API_UP,
    # the thirty-eighth batch (fresh37), as scored blind
    "rr104-vllm-pr-2601-gb10-dgx-spark-supported-tasks-chat-template-warmup-cut.log": _ROUTES_ONLY,
    "rr107-vllm-085post1-2507-v0-spec-decode-json-object-request-draft-runner-compute-logits-"
    "traceback-cut.log": _LABEL_LIVE,
    "rr212-vllm-2603-next-ai-draw-io-qwen35-apiserver-chat-template-render-error-traceback-cut.log":
        _REQUEST_FRAMES,
    # the thirty-seventh batch (fresh36), as scored blind
    "qq103-vllm-2605-dp2-ep-qwen35-35b-mtp-apiservers-startup-routes-cut.log": _API_UP,
    # the thirty-sixth batch (fresh35), as scored blind
    "pp109-vllm-0150-2602-lmcache-0313-scheduler-connector-then-api-server-start-routes-cut.log": _API_UP,
    "pp202-vllm-2603-notes-repo-startup-log-starting-server-6006-routes-listing-cut.log": _API_UP,
    # the thirty-fifth batch (fresh34), as scored blind
    "oo116-vllm-011x-2511-ragflow-user-starting-api-server-0-routes-listing-cut.log": _API_UP,
    "oo204-vllm-0110-2510-glm41v-4090-torch-compile-cache-kv-graphs-init-engine-took-cache-config-info.log": _API_UP,
    "oo312-vllm-v1-2504-openrlhf-llmrayactor-a100-compile-cache-kv-graphs-init-engine-took-then-stuck.log": _API_UP,
    "oo313-vllm-v04-2406-glm4-9b-chat-1m-ray-request-500-asgi-exception-then-driver-execute-model-frames-cut.log": _LABEL_LIVE,
    "oo218-vllm-0102-2509-internvl3-apiserver-request-chat-template-jinja-error-traceback-cut.log":
        _REQUEST_FRAMES,
    # the thirty-fourth batch (fresh33), as scored blind
    "nn212-vllm-2080ti-definitive-2607-tp2-sm75-service-manager-startup-failed-worker-piecewise-compile-frames.log": _LABEL_LIVE,
    "nn112-vllm-2607-club3090-2x3090-fp8-mtp-mm-warmup-starting-server-routes-cut.log": _ROUTES_ONLY,
    # the thirty-third batch (fresh32)
    "mm106-vllm-v1-2506-k8s-llama32-compile-cache-graphs-17s-init-engine-took-34s.log": _API_UP,
    "mm205-vllm-0151-2602-orpheus-tts-apiserver-ignored-voice-field-preprocessing-prompt-traceback-cut.log": _REQUEST_FRAMES,
    # the thirty-second batch (fresh31)
    "ll108-vllm-2608-club3090-2x-rtx5090-qwen38-27b-starting-server-routes-cut.log": _API_UP,
    # the thirty-first batch (fresh30)
    "kk302-vllm-v0-2402-qwen15-tp2-ray-stats-20-running-zero-throughput-stuck.log": _STALL_END,
    # the thirtieth batch (fresh29)
    "jj111-vllm-2605-club3090-qwen36-27b-dual-pcie-mm-warmup-starting-server-routes.log": _API_UP,
    "jj112-vllm-2602-h100-tp2-qwen3-17b-full-graphs-captured-init-engine-chat-template-warmup.log": _API_UP,
    "jj301-vllm-2605-club3090-dual-3090-nvlink-qwen36-27b-supported-tasks-starting-server-routes-cut.log": _API_UP,
    "jj115-vllm-0150-docker-2xh100nvl-qwen3-coder-next-tp2-gdn-causal-conv1d-update-frames-cut.log": _LABEL_LIVE,
    "jj205-sglang-2506-pd-decode-node2-nccl-bootstrap-socket-connect-link-local-abort.log": _LABEL_LIVE,
    # the twenty-eighth batch (fresh27)
    "hh107-vllm-pr-2608-s390x-cpu-tcmalloc-supported-tasks-starting-server-routes-cut.log": _ROUTES_ONLY,
    "hh313-vllm-v0-2503-dynamo-disagg-two-engines-kv-blocks-capture-0-of-35-init-engine-took.log": _API_UP,
    "hh318-vllm-v0-2503-aibrix-base-model-capture-done-init-engine-routes-cut.log": _API_UP,
    # the twenty-sixth batch (fresh25)
    "d102-vllm-pr-2512-qwen3-8b-dev-mode-starting-api-server-routes-cut.log": _API_UP,
    "d309-vllm-metal-2601-apple-silicon-ray-minimax-m2-4bit-apiserver-routes-cut.log": _ROUTES_ONLY,
    "d307-vllm-omni-2603-stage0-free-memory-less-than-utilization-stage1-diffusion-loaded.log": _LABEL_LIVE,
    "d315-sglang-2607-amd-mi355-glm52-mxfp4-pd-decode-dpa-mtp-ready-then-first-request-deadlock-health-check.log":
        "SGLang's health check failing to the end, then the interpreter's exit warnings: "
        "diagnose says hung (incomplete, health_check_failed, as labelled); live, the replay "
        "stays up serving and its probe is answered: ready (_STALL_END's case)",
    # the twenty-fifth batch (fresh24)
    "b102-vllm-pr-2510-openpangu-ultra-moe-apiserver-routes-listing-cut.log": _ROUTES_ONLY,
    "b202-sglang-ktransformers-2506-journald-uvicorn-up-sched-rpc-cut.log": _LABEL_LIVE,
    "b217-sglang-2507-pd-decode-deepep-nvshmem-ibrc-modify-qp-failed.log": _LABEL_LIVE,
    # the twenty-fourth batch (fresh23)
    "a118-vllm-v1-2503-gemma3-init-engine-took-sampling-params-empty-responses.log": _API_UP,
    "a318-vllm-2607-gpustack-mrv2-apiserver-starting-server-routes-cut.log": _API_UP,
    "a208-sglang-2508-gptoss-120b-h20-tp2-dp4-request-error-expected-2-messages.log":
        _REQUEST_FRAMES,
    # the twenty-third batch (fresh22)
    "e114-vllm-v1-2507-gemma3-27b-json-object-running-1-zero-throughput-hang.log": _STALL_END,
    "e305-vllm-v1-2507-gpustack-qwen3-06b-init-engine-starting-api-server-status-starting.log":
        _API_UP,
    # the twenty-second batch (fresh21)
    "z102-vllm-strix-halo-gfx1151-toolbox-2604-routes-listed.log": _API_UP,
    "z116-vllm-1cat-fork-2608-v100-journald-ru-supported-tasks.log": _ROUTES_ONLY,
    "z305-sglang-2508-mineru-gradio-engine-mode-capture-end-init-successfully.log": _LABEL_LIVE,
    "z312-sglang-2509-sgl-router-pd-1p1d-idle-stream-request-excgroup-frames.log":
        _REQUEST_FRAMES,
    # the twenty-first batch (fresh20)
    "y102-vllm-2607-r9700-toolbox-supported-tasks-mm-warmup-done.log": _ROUTES_ONLY,
    "y110-vllm-016rc-pr-s390x-cpu-fp16-docker-banner-then-routes.log": _ROUTES_ONLY,
    "y112-vllm-v1-2504-gemma3-12b-fp8-lora-init-engine-then-api-server-start-cut.log": _API_UP,
    "y311-vllm-0102-lmcache-cpu-offload-example-init-engine-took-connector-scheduler-role.log":
        _API_UP,
    # the twentieth batch (fresh19)
    "x115-vllm-0101-pr-return-token-ids-ts-prefixed-load-then-routes-listing-cut.log":
        _ROUTES_ONLY,
    "x315-sglang-2503-olmocr-pylogging-capture-end-then-server-ready-worker-processing.log":
        _LABEL_LIVE,
    # the nineteenth batch (fresh18)
    "w105-vllm-085-v0-mqllmengine-init-engine-then-routes-cut.log": _API_UP,
    "w306-vllm-v0-2508-lighteval-tp4-graph-capture-finished-init-engine-took-tasks-cut.log":
        _API_UP,
    # known classifier misses (tests/test_classifier.py KNOWN_MISSES): the live run ends as
    # the labelled run did
    "w106-vllm-2509-enginecore0-uniproc-load-model-wrapped-frames-cut.log": _LABEL_LIVE,
    # the eighteenth batch (fresh17)
    # the seventeenth batch (fresh16): known classifier misses, labelled crashed (the replay
    # exits; diagnose finds no death in the file)
    "u309-vllm-ms-swift-qwen2vl-regression-score-param-load-weights.log": _LABEL_LIVE,
    # the 106th batch (fresh105, runs that stall): the engine core up, its API server stopped
    # or its data-parallel coordinator never answering (the replay's server answers the probe)
    "ck102-vllm-cpu-032-stop-api-kvcache.log": _API_UP,
    "ck104-vllm-cpu-032-dp2-remote-never.log": _API_UP,
    # the 109th batch (fresh108): the API server blocked reading a --chat-template pipe
    "cn102-vllm-cpu-032-chat-template-fifo.log": _API_UP,
    # the 105th batch (fresh104, launch scripts and wrappers): a `timeout` around the launch
    # (labelled stopped)
    "cj103-vllm-cpu-032-timeout-startup.log": _LABEL_LIVE,
    # the 133rd batch (fresh132): a Ctrl-C held until the engine core was up, as cj103's stop
    "dl102-vllm-cpu-032-int-api-compile.log": _LABEL_LIVE,
    # the 135th batch (fresh134): a restart loop inside the supervised process, several runs
    "dn102-vllm-cpu-032-tee-orphan-holds-port.log": _RESTARTS,
    "dn105-sglang-0523-tee-orphan-holds-port.log": _RESTARTS,
    "dn107-sglang-0523-systemd-killed-twice.log": _RESTARTS,
    # the 151st batch (fresh150): a benchmark client's death, then its server's stop
    "ed108-sglang-0523-bench-serving-no-gpt-turns.log": _TWO_PROCESSES,
    # (the 169th batch: a bind error, then the launcher's own heartbeat - the replay stays up)
    # the 137th batch (fresh136): every record after the engine's start a logging error, the
    # API server's own lines among them (its `Application startup complete` never printed)
    "dp104-vllm-cpu-032-logconf-missing-field.log": _API_UP,
    # the 143rd batch (fresh142): a probe killed the API server during loading; its engine core
    # went on to `init engine ... took` alone
    "dv101-vllm-cpu-032-probe-grace1-main-load.log": _API_UP,
    # the 146th batch (fresh145): the API server killed by SIGBUS (a full Prometheus folder) as
    # its engine core came up, silently
    "dy103-vllm-cpu-032-prom-dir-full-at-launch.log": _API_UP,
    # the 121st batch (fresh120): an operator's py-spy dump of a server whose last request
    # went unanswered (a stopped detokenizer), pasted after its last progress
    "cz106-sglang-0523-pyspy-detok-stopped.log": _STALL_END,
    # the sixteenth batch (fresh15)
    "t118-vllm-2606-mrv2-pr-apiserver-routes-listing-cut.log": _API_UP,
    "t302-vllm-ray-serve-llm-direct-streaming-init-engine-took.log": _API_UP,
    # known classifier misses (tests/test_classifier.py KNOWN_MISSES) that the live run reads
    # as labelled
    "t312-vllm-085-trl-vllm-serve-collective-rpc-nccl-unhandled-cuda.log":
        "diagnose reads a client's failed collective_rpc (NCCL error, traceback elided) as a "
        "crash (labelled ready); live: ready",
    "t317-sglang-slime-megatron-train-start-engine-metrics-polls.log":
        "diagnose reads metrics polls from another host as probes, incomplete in warmup "
        "(labelled ready in serving); live: the replay is up and the daemon's probe passes, ready",
    # the fourteenth batch (fresh13)
    "r202-sglang-pyspy-dump-overlap-hang.log": _DUMP_FRAMES,
    # the fifteenth batch (fresh14)
    "s205-sglang-2408-chat-n2-handler-traceback.log": _REQUEST_FRAMES,
    # the seventy-eighth batch (fresh77): the API server killed as the engine core came up
    "bi114-vllm-cpu-032-kill-api-warmup.log": _API_UP,
    # the seventy-ninth batch (fresh78): the API server stopped (SIGSTOP) as the core came up
    "bj109-vllm-cpu-032-stop-api-load.log": _API_UP,
}


def _name(path: Path) -> str:
    return "r-" + re.sub(r"[^a-z0-9-]", "-", path.stem.lower())[:60]


def _offline(path: Path) -> dict[str, Any]:
    _, body = split_fixture(path)
    return classify_text(body).to_dict()


# Logs on which the live path once disagreed, always in the sample: the warmup request and the
# ready line in one read (not serving), a watchdog that implies serving, a fragment that starts
# mid-run with traffic.
ALWAYS = ("11-ready-tp1-docs-ci-2026-full-startup.log", "07-watchdog-timeout-tp8-killed.log",
          "c019-vllm-v0-kserve-serving-metrics.log")


def _sample(paths: list[Path]) -> list[Path]:
    """Every cause, and every (engine, outcome, phase), at least once."""
    seen: set[tuple[str, ...]] = set()
    out = [p for p in paths if p.name in ALWAYS]
    for p in [*out, *(p for p in paths if p.name not in ALWAYS)]:
        d = _offline(p)
        keys = {("cause", str(d["cause"])), (d["engine"], d["outcome"], d["phase"])}
        if not keys <= seen and p not in out:
            out.append(p)
        seen |= keys
    return out


# GNS_REPLAY_ONLY=TEXT[,TEXT...] replays only the logs whose path holds one of the TEXTs
# (`/fresh19/`: one batch; `/m101-,/x113-`: two logs; an empty item, `a,` or `a,,b`, is no
# TEXT: it would hold every path)
ONLY = [t for t in os.environ.get("GNS_REPLAY_ONLY", "").split(",") if t]
LIVE_LOGS = [p for p in ALL_LOGS if any(t in str(p) for t in ONLY)] if ONLY else ALL_LOGS
SELECTED = LIVE_LOGS if ALL else _sample(LIVE_LOGS)


def _profile(path: Path, engine: str, port: int) -> str:
    return (
        f'description = "replay of {path.name}"\n'
        f'engine = "{engine}"\n\n'
        "[launch]\n"
        f'command = ["{{python}}", "-m", "supervisor.emulator", "--replay", "{path}", '
        f'"--speed", "{SPEED:g}"]\n'
        'model = "test/model"\nhost = "127.0.0.1"\n'
        f"port = {port}\n"
        'env = { SGLANG_EMULATOR_REPLAY_END = "live" }\n\n'
        "[timeouts]\n"
        f"silence = {SILENCE}\nstop_grace = 1\n\n"
        # Nothing answers HTTP in a replay: probes after ready must not make it unhealthy.
        "[health]\ninterval = 3600\ntimeout = 1\nfailures = 1000\n")


# A daemon reads at most MAX_FILES profiles from its folder (supervisor/profiles/files.py): the
# logs are split into groups under it, one daemon a group, each started on first use.
GROUP = 1000
_GROUP_OF = {p: k // GROUP for k, p in enumerate(SELECTED)}


@pytest.fixture(scope="module")
def replay_daemons() -> Iterator[Callable[[Path], Daemon]]:
    started: dict[int, tuple[Daemon, Path]] = {}

    def daemon_for(path: Path) -> Daemon:
        group = _GROUP_OF[path]
        if group not in started:
            started[group] = _start_replay_daemon(SELECTED[group * GROUP:(group + 1) * GROUP])
        return started[group][0]

    try:
        yield daemon_for
    finally:
        for d, work in started.values():
            try:
                d.stop()
            finally:
                d.kill()
                kill_env_processes(RUN_VAR, marker=d.marker)
                if not os.environ.get("GNS_KEEP_TMP"):
                    cleanup(work)


def _start_replay_daemon(paths: list[Path]) -> tuple[Daemon, Path]:
    work = short_tmpdir()
    (work / "profiles").mkdir()
    (work / "state").mkdir()
    port = free_port()
    for path in paths:
        engine = _offline(path)["engine"]
        (work / "profiles" / f"{_name(path)}.toml").write_text(_profile(path, engine, port))
    d = Daemon(work / "profiles", work / "state", work / "s.sock")
    try:
        d.start()
    except BaseException:
        d.kill()
        cleanup(work)
        raise
    return d, work


def _last_line(body: str) -> str:
    return [s for s in re.split(r"\r\n|\r|\n", body) if s.strip()][-1].rstrip()


def _replay_done(pid: int | None) -> bool:
    """The replay wrote the whole log and stays up (its process title says so)."""
    try:
        with open(f"/proc/{pid}/comm") as f:
            return f.read().strip() == DONE_TITLE
    except OSError:
        return False


async def _live(client: DaemonClient, name: str, last: str) -> dict[str, Any]:
    """Switch to the replay ``name`` and return its run once the log's end is known: settled
    (crashed, hung), or ready with the whole log out and the process still up."""
    before = (await client.request("status"))["run"]
    prev = before["id"] if before else None
    await client.request("switch", profile=name)
    with anyio.fail_after(PER_LOG_S):
        while True:
            run = (await client.request("status"))["run"]
            if run is not None and run["id"] != prev and run["profile"] == name:
                if run["status"] in ("crashed", "hung", "timeout", "unhealthy", "stopped"):
                    return dict(run)
                if run["status"] == "ready" and _replay_done(run["pid"]):
                    tail = (await client.request("logs", n=1))["lines"]
                    if tail and tail[-1].rstrip().endswith(last):
                        return dict((await client.request("status"))["run"])
            await anyio.sleep(0.02)


def _live_verdict(run: dict[str, Any]) -> tuple[str, str, str | None]:
    outcome = {"crashed": "crashed", "ready": "ready", "hung": "incomplete"}.get(
        run["status"], run["status"])
    return outcome, run["phase"], run["cause"]


def _ids(p: Path) -> str:
    return f"{p.parent.name}/{p.stem[:40]}"


def _params(paths: list[Path]) -> list[Any]:
    return [pytest.param(p, marks=pytest.mark.xfail(strict=True, reason=LIVE_MISSES[p.name]))
            if p.name in LIVE_MISSES else p for p in paths]


@pytest.mark.parametrize("path", _params(SELECTED), ids=_ids)
def test_replay_ends_as_diagnose_says(replay_daemons: Callable[[Path], Daemon],
                                      path: Path) -> None:
    replay_daemon = replay_daemons(path)
    offline = _offline(path)
    _, body = split_fixture(path)

    async def go() -> dict[str, Any]:
        async with connect_unix(replay_daemon.sock) as client:
            return await _live(client, _name(path), _last_line(body))

    t0 = time.monotonic()
    try:
        run = anyio.run(go)
    except (OSError, DaemonError, ConnectionLost) as exc:
        # the daemon itself is in question: what it logged says why (a crash, a signal)
        tail = replay_daemon.log.read_text(errors="replace").splitlines()[-40:]
        raise AssertionError(f"{exc}; daemon exit status {replay_daemon.proc.poll()}; its "
                             "log ends:\n" + "\n".join(tail)) from exc
    took = time.monotonic() - t0
    want_cause = offline["cause"] or "unknown" if offline["outcome"] != "ready" else None
    want = (offline["outcome"], offline["phase"], want_cause)
    assert _live_verdict(run) == want, (run["evidence"], offline["evidence"], took)
