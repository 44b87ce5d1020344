"""A log that starts mid-run: traffic before any startup marker means the server is up.

A fragment pasted from a long run, the tail of a run the daemon adopted after a restart, or a
log whose startup lines were rotated away begins with serving output. Real requests seen before
any phase marker can only come from a server that was already ready: a completed API request
(an OpenAI route, or any request from another host), vLLM's stats with requests running, or
vLLM's request log (``Received request X`` / ``Added request X``, with ``--enable-log-requests``),
or an SGLang prefill batch with other requests running or queued (its warmup sends one request),
or an SGLang PD transfer or bootstrap failing for a request or its requests retracted for want of
KV cache (both serving at once: they name running requests), or a vLLM PD decode request waiting
for its KV blocks or failing to receive them (V0's decode redoing the forward), or the progress
bar of vLLM's offline ``LLM.generate`` (vLLM-Omni's orchestrator enqueuing a prompt), or
uvicorn's error for one request (``Exception in ASGI application``, base.py).
The live trackers and the offline classifier apply this one rule, so both reach the same phase.
"""

from __future__ import annotations

import re

from .base import is_launcher_call, is_loopback, is_probe, parse_access

# vLLM's periodic stats (V1 `Avg prompt throughput: 0.0 tokens/s, ..., Running: 0 reqs, Waiting:
# 2 reqs`; V0 `..., Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs`): requests running or
# queued, or tokens processed since the last line, are a client's (V1 logs them only when busy).
_BUSY_STATS = re.compile(r"\b(?:Running|Waiting|Pending): [1-9]\d* reqs"
                         r"|throughput: (?:[1-9]|0\.\d*[1-9])")
_REQUEST_LOG = re.compile(r"\b(?:Added|Received) request \S")
# The tail of that request line (`..., params: SamplingParams(n=16, ...), prompt_token_ids:`)
# where a long prompt wrapped it and the paste kept only its continuation: the same request.
_REQUEST_PARAMS = "params: SamplingParams("
# SGLang's batch statistics: its warmup is one short request, so a prefill batch with requests
# already running or waiting in the queue is traffic (DP-attention ranks log one line each), and
# so is one prefilling more new tokens than the warmup's prompt has (`The capital city of
# France is`, 6-8 tokens in any tokenizer the engines serve; the health check's 1 token; 3
# input ids with --skip-tokenizer-init): a client's prompt. So is one that found more tokens in
# the prefix cache than that whole prompt (`#cached-token: 24`): an earlier request's prefix.
_BUSY_BATCH = re.compile(r"Prefill batch\b.*(?:#(?:running-req|queue-req): [1-9]"
                         r"|#new-token: (?:1[6-9]|[2-9]\d|\d{3,}),"
                         r"|#cached-token: (?:9|[1-9]\d+),)")
# SGLang PD disaggregation failing one request's KV transfer or bootstrap (`Prefill transfer
# failed for request rank=0 req.rid='...'`, `Decode transfer failed ...`, `Prefill bootstrap
# failed for request ...`): such a line names a client's request, so the server was taking them.
_PD_REQUEST_FAILURE = re.compile(r"\b(?:Prefill|Decode) (?:transfer|bootstrap) failed for request ")
# SGLang's scheduler retracting running requests when the KV cache runs out mid-decode (`Decode
# out of memory happened. #retracted_reqs: 1, #new_token_ratio: ...`): only decoding requests
# can be retracted, so the server was serving.
_RETRACTION = "retracted_reqs: "
# SGLang's grammar backend refusing the token a request under structured output just sampled
# (`Grammar accept_token failed for req <rid> with token [443]: Tokens not accepted`; the
# scheduler's batch result processing, PD prefill and decode alike): logged and the request
# aborted, the server goes on - a client's request was being decoded.
_GRAMMAR_REJECT = "Grammar accept_token failed for req "
# vLLM PD disaggregation's KV connectors failing one request's transfer from the prefill side
# (vLLM-Ascend's Mooncake connector: `Mooncake transfer failed for request cmpl-...`, `Failed to
# transfer KV cache for request cmpl-...: ...`; NIXL's `... transfer failed for request ...`):
# a decode instance taking a client's request, the server was up and serving.
_KV_CONNECTOR_FAILURE = re.compile(r"\b(?:[Tt]ransfer failed|Failed to transfer KV cache) "
                                   r"for request (?:chat)?cmpl-")

# vLLM's KV connectors at work on one client's request: the scheduler side's hook on a request
# it just allocated blocks for (`NIXLConnector update_state_after_alloc: num_external_tokens=0,
# kv_transfer_params={...}`, the Mooncake connector's alike; v1/core/sched/scheduler.py calls
# it only while scheduling requests), and a connector naming
# the OpenAI request it stores or loads KV for (LMCache's `Storing KV cache for 6 out of 6
# tokens ... for request cmpl-...`; vLLM's OpenAI layer makes the `cmpl-` / `chatcmpl-` ids,
# offline LLM numbers its requests). Profiling and capture run dummy batches, never a request.
_KV_CONNECTOR_HOOK = "Connector update_state_after_alloc"
# vLLM's NIXL connector on a prefill instance giving up the KV blocks of a request it prefilled
# whose decode side never read them (`Releasing expired KV blocks for request cmpl-... which
# were retrieved by 0 decode worker(s) within 120 seconds`, nixl_connector.py; `... by 0 remote
# worker(s) before lease expired.` in later builds): only a prefilled client request holds
# blocks to send, so the prefill server was serving.
_KV_EXPIRED = "Releasing expired KV blocks for request "
# vLLM's KV connector stats (`KV Transfer metrics: Num successful transfers=2, Avg xfer time
# (ms)=63.33, ...`, v1/metrics): logged for the transfers since the last line, and a PD pair
# moves KV only for a client's requests
_KV_TRANSFERS = re.compile(r"KV Transfer metrics: Num successful transfers=[1-9]")
# vllm-ascend's ACLGraphWrapper.__call__ (compilation/acl_graph.py) logs `Replaying aclgraph`
# (info_once) the first time a captured graph runs again: capture_model only captures (each
# shape's first call), so a replay is execute_model running a scheduled batch, or an idle DP
# rank's dummy batch while its peers serve: Ascend runs with graph modes, serving.
_ACLGRAPH_REPLAY = "Replaying aclgraph"
_KV_FOR_REQUEST = re.compile(r"\bKV cache for \d+ out of \d+ (?:required )?tokens\b.* for request "
                             r"(?:chat)?cmpl-")

# LMCache's scheduler-side lookup of a request's prefix in its store (`Reqid: chatcmpl-..., Total
# tokens 263, LMCache hit tokens: 256, need to load: 256`, vllm_v1_adapter.py): asked for each
# request the scheduler takes, named by the OpenAI layer's id.
_LMCACHE_LOOKUP = re.compile(r"\bReqid: (?:chat)?cmpl-\S+, Total tokens \d+")

# vLLM V1's client failing a request in flight because its engine core died (`Request
# cmpl-61b1... failed (engine dead).`, async_llm.py): requests were being served when it died.
_FAILED_ENGINE_DEAD = re.compile(r"\bRequest \S+ failed \(engine dead\)")

# vLLM PD disaggregation (NIXL / llm-d decode): the scheduler keeps a request it was sent in
# WAITING_FOR_REMOTE_KVS until the prefill side's KV blocks arrive (`cmpl-... is still in
# WAITING_FOR_REMOTE_KVS state.`, DEBUG): a client's request, on a server that is up.
_PD_REMOTE_KV_WAIT = "WAITING_FOR_REMOTE_KVS"
# vLLM V0's PD decode side (the simple, LMCache and Mooncake-store connectors' recv) missing a
# request's KV from its prefill peer and computing it itself: `[rank0]: Failed to receive all
# KVs and hidden states, redo model forwarding.` - asked only for a real request's step (the
# memory-profiling run has no KV to receive)
_PD_KV_REDO = "redo model forwarding"
# vLLM's offline LLM.generate / LLM.chat (`Processed prompts:  25%|...| 1/4 [...]`): the bar of
# the requests it added, printed only once the engine is constructed: the engine is serving them.
_OFFLINE_BAR = re.compile(r"Processed prompts:\s*\d+%\|")
# Before that bar, LLM.generate adds its prompts to the built engine under a bar of its own
# (`Adding requests: 100%|...| 4/4`, 2025 builds; `Rendering prompts:   2%|...| 32/2000`, 2026):
# with a prompt added the engine has requests. At 0 it has none yet (an engine just built, as
# fresh42/ww208 is labelled warmup).
_PROMPTS_ADDED = re.compile(r"(?:Adding requests|Rendering prompts):\s*\d+%\|[^|]*\|\s*"
                            r"[1-9]\d*/\d+")
# vLLM's offline batch runner (`-m vllm.entrypoints.openai.run_batch -i FILE -o FILE`) running
# the file's requests on the built engine under its own bar (`Running batch: 100% Completed |
# 2/2 [...]`): with a request done, it served.
_BATCH_RUN = re.compile(r"Running batch:\s*\d+% Completed \|\s*[1-9]\d*/\d+")
# (vLLM-Omni's offline Orchestrator handing each prompt of a generate() call to its first stage,
# `[Orchestrator] Enqueued request 0_5837... to stage-0`: its counterpart of that bar)
_OMNI_ENQUEUED = re.compile(r"\[Orchestrator\] Enqueued request \S+ to stage-\d+")
# OpenRLHF's PPO trainer driving vLLM rollout engines (LLMRayActor): each step of its
# `Episode [i/N]` bar (ppo_trainer.py) generates rollouts on the engines before training, and
# the actor's `Train epoch [i/N]` bar (ppo_actor.py) trains on rollouts already generated; a
# bar with a step done shows the engines served (Ray job logs of RL runs, the trainer's lines
# among the engines'). verl's RayPPOTrainer.fit does the same under its `Training Progress`
# bar (ray_trainer.py: each step's generate_sequences on the rollout engines first). A bar still
# at 0 shows nothing yet.
_RL_TRAINER_BAR = re.compile(r"(?:(?:Episode|Train epoch) \[\d+/\d+\]|Training Progress):\s*\d+%\|"
                             r"[^|]*\|\s*[1-9]\d*/\d+")
# Dynamo's disaggregated vLLM prefill worker (prefill_worker.py's queue handler) taking a
# client's request off its NATS prefill queue (`Dequeued prefill request: <id>`): the worker
# is up and serving (Dynamo's PD deployments on vLLM).
_PREFILL_DEQUEUED = "Dequeued prefill request"
# vLLM's engine put through an RL trainer's rollout cycle (verl, OpenRLHF, EasyR1, ms-swift
# drive a colocated engine: generate, then `LLM.sleep()` to free its memory for training, then
# `wake_up()` and `reset_prefix_cache()` before the next rollout): `It took 0.5 seconds to wake
# up tags [...]`, `Successfully reset prefix cache`. Only an engine that was built is cycled:
# up, and in the trainer's generate/train loop (serving). The reset refused because a request
# still holds blocks (`Failed to reset prefix cache because some blocks (512) are not freed
# yet`, block_pool.py) says the same, and that requests ran.
_ENGINE_CYCLED = re.compile(r"\b(?:Successfully|Failed to) reset prefix cache|\bIt took [\d.]+ "
                            r"seconds to wake up\b")
# The same engine put to sleep (`It took 1.06 seconds to fall asleep.`, `Sleep mode freed 23.72
# GiB memory`): the trainers also do it right after building the engine, before the first
# rollout (verl's and ms-swift's colocated modes, SkyRL), so it shows the engine up, not that it
# served (three labelled logs that end asleep after startup are labelled ready).
_ENGINE_RESTING = re.compile(r"\bIt took [\d.]+ seconds to fall asleep\b"
                             r"|\bSleep mode freed [\d.]+ GiB")


def is_serving_traffic(line: str) -> bool:
    """A line only a serving engine prints (SGLang's decode batches already mean serving)."""
    if "HTTP/" in line:
        access = parse_access(line)
        # a poll of /health or /metrics (from a load balancer or a scraper) is not a request
        return access is not None and '" 2' in line and not is_probe(access[1], access[2]) \
            and not is_launcher_call(access[1], access[2]) \
            and (access[2].startswith("/v1/") or not is_loopback(access[0]))
    if "-req: " in line:
        return _BUSY_BATCH.search(line) is not None
    if "failed for req" in line or _RETRACTION in line:
        return is_request_trouble(line)
    return is_engine_traffic(line)


def is_request_trouble(line: str) -> bool:
    """SGLang naming a client's request it could not go on with (a PD transfer or bootstrap
    failing, requests retracted for want of KV cache): requests were being served."""
    if _RETRACTION in line:
        return "Decode out of memory" in line
    if _GRAMMAR_REJECT in line:
        return True
    return "failed for request " in line and (_PD_REQUEST_FAILURE.search(line) is not None or
                                              _KV_CONNECTOR_FAILURE.search(line) is not None)


def is_engine_traffic(line: str) -> bool:
    """A line of vLLM's engine working on requests (stats, request log, PD wait, offline bar):
    before any marker the server was up; after ready, it is serving."""
    if "Running: " in line or "throughput: " in line:
        return _BUSY_STATS.search(line) is not None
    if _PD_REMOTE_KV_WAIT in line or _PD_KV_REDO in line:
        return True
    if "(engine dead)" in line:
        return _FAILED_ENGINE_DEAD.search(line) is not None
    if "Reqid: " in line and _LMCACHE_LOOKUP.search(line):
        return True
    if " for request " in line and (_KV_CONNECTOR_FAILURE.search(line) or
                                    _KV_FOR_REQUEST.search(line)):
        return True
    if _KV_CONNECTOR_HOOK in line or _KV_EXPIRED in line or _ACLGRAPH_REPLAY in line:
        return True
    if "Processed prompts" in line or "Enqueued request" in line or "Running batch" in line \
            or "%|" in line and ("Adding requests" in line or "Rendering prompts" in line):
        return is_offline_generate(line)
    if _PREFILL_DEQUEUED in line:
        return True
    if "successful transfers=" in line:
        return _KV_TRANSFERS.search(line) is not None
    if ("prefix cache" in line or "seconds to " in line) and _ENGINE_CYCLED.search(line):
        return True
    if "%|" in line and is_rollout_bar(line):
        return True
    return is_request_log(line)


def is_engine_resting(line: str) -> bool:
    """vLLM's engine put to sleep by its trainer: built and up, whether or not it served yet."""
    return ("seconds to " in line or "Sleep mode" in line) and \
        _ENGINE_RESTING.search(line) is not None


def is_rollout_bar(line: str) -> bool:
    """An RL trainer's progress bar past its first step: its rollout engines served."""
    return ("Episode [" in line or "Train epoch [" in line or "Training Progress" in line) and \
        _RL_TRAINER_BAR.search(line) is not None


def is_offline_generate(line: str) -> bool:
    """The progress bar of vLLM's offline LLM.generate (or vLLM-Omni's orchestrator handing a
    prompt to its first stage): the engine is up and serving."""
    if "Enqueued request" in line:
        return _OMNI_ENQUEUED.search(line) is not None
    if "Processed prompts" in line:
        return _OFFLINE_BAR.search(line) is not None
    if "Running batch" in line:
        return _BATCH_RUN.search(line) is not None
    return ("Adding requests" in line or "Rendering prompts" in line) and \
        _PROMPTS_ADDED.search(line) is not None


def is_request_log(line: str) -> bool:
    """vLLM logging a request it accepted: the API server is up and taking requests."""
    return " request " in line and _REQUEST_LOG.search(line) is not None \
        or _REQUEST_PARAMS in line
