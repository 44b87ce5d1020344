"""A log that starts mid-run: traffic before any startup marker means the server is up.

A fragment pasted from a long run, the tail of a run the daemon adopted after a restart, or a
log whose startup lines were rotated away begins with serving output. Real requests seen before
any phase marker can only come from a server that was already ready: a completed API request
(an OpenAI route, or any request from another host), vLLM's stats with requests running, or
vLLM's request log (``Received request X`` / ``Added request X``, with ``--enable-log-requests``),
or an SGLang prefill batch with other requests running or queued (its warmup sends one request),
or an SGLang PD transfer or bootstrap failing for a request.
The live trackers and the offline classifier apply this one rule, so both reach the same phase.
"""

from __future__ import annotations

import re

from .base import is_loopback, is_probe, parse_access

# vLLM's periodic stats (V1 `Avg prompt throughput: 0.0 tokens/s, ..., Running: 0 reqs, Waiting:
# 2 reqs`; V0 `..., Running: 1 reqs, Swapped: 0 reqs, Pending: 0 reqs`): requests running or
# queued, or tokens processed since the last line, are a client's (V1 logs them only when busy).
_BUSY_STATS = re.compile(r"\b(?:Running|Waiting|Pending): [1-9]\d* reqs"
                         r"|throughput: (?:[1-9]|0\.\d*[1-9])")
_REQUEST_LOG = re.compile(r"\b(?:Added|Received) request \S")
# SGLang's batch statistics: its warmup is one short request, so a prefill batch with requests
# already running or waiting in the queue is traffic (DP-attention ranks log one line each).
_BUSY_BATCH = re.compile(r"Prefill batch\b.*#(?:running-req|queue-req): [1-9]")
# SGLang PD disaggregation failing one request's KV transfer or bootstrap (`Prefill transfer
# failed for request rank=0 req.rid='...'`, `Decode transfer failed ...`, `Prefill bootstrap
# failed for request ...`): such a line names a client's request, so the server was taking them.
_PD_REQUEST_FAILURE = re.compile(r"\b(?:Prefill|Decode) (?:transfer|bootstrap) failed for request ")


def is_serving_traffic(line: str) -> bool:
    """A line only a serving engine prints (SGLang's decode batches already mean serving)."""
    if "HTTP/" in line:
        access = parse_access(line)
        # a poll of /health or /metrics (from a load balancer or a scraper) is not a request
        return access is not None and '" 2' in line and not is_probe(access[1], access[2]) \
            and (access[2].startswith("/v1/") or not is_loopback(access[0]))
    if "-req: " in line:
        return _BUSY_BATCH.search(line) is not None
    if "failed for request " in line:
        return _PD_REQUEST_FAILURE.search(line) is not None
    return is_engine_traffic(line)


def is_engine_traffic(line: str) -> bool:
    """A line of vLLM's engine working on requests (busy stats, the request log): before any
    marker the server was up; after ready, it is serving."""
    if "Running: " in line or "throughput: " in line:
        return _BUSY_STATS.search(line) is not None
    return is_request_log(line)


def is_request_log(line: str) -> bool:
    """vLLM logging a request it accepted: the API server is up and taking requests."""
    return " request " in line and _REQUEST_LOG.search(line) is not None
