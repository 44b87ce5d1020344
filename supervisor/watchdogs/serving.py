"""Serving liveness after ready: requests in flight but no tokens, confirmed by a canary.

``/health`` answering 200 proves the HTTP layer, not generation: a scheduler or worker can hang
with the API server still up (sglang #33858, #4191; a SIGSTOPped vLLM worker). The serving
metrics (``engines.serving_stats``) say whether tokens move. A run is *suspect* when its last
stats line showed requests running or queued and no progress has come for ``silence`` seconds,
or when the engine itself warned of a hang (vLLM's shared-memory broadcast wait, SGLang's
watchdog). A suspect run gets one canary generation (SGLang's ``/health_generate``, a 1-token
``/v1/completions`` for vLLM) with its own timeout: an answer proves life (SGLang logs nothing
when it goes idle, so a stale "#running-req: 5" is common); no answer is a serving stall.

A slow prefill that still logs its chunks is progress, so it never becomes suspect.
"""

from __future__ import annotations

import json
import time
from dataclasses import dataclass
from typing import Any, Protocol

import anyio

from ..engines.serving_stats import ServingStats
from ..profiles import ResolvedProfile
from ..states import Cause
from .activity import ActivityTracker
from .health import ProbeResult, probe

CANARY_MIN_TIMEOUT = 5.0


@dataclass(frozen=True)
class Stall:
    cause: Cause
    evidence: list[str]


class ServingWatched(Protocol):
    profile: ResolvedProfile
    serving: ServingStats | None
    activity: ActivityTracker

    @property
    def engine_name(self) -> str: ...
    def publish(self) -> None: ...
    def serving_seen(self) -> None: ...
    def log_evidence(self, n: int = 3) -> list[str]: ...


class ServingWatch:
    """Called once a tick while the run is ready: samples the metrics, decides on stalls."""

    def __init__(self, run: ServingWatched) -> None:
        self.run = run
        self.since: float | None = None      # first tick after ready (monotonic)
        self.next_canary = 0.0
        self.canaries = 0
        self.canary_failures = 0

    async def check(self, now: float) -> Stall | None:
        stats = self.run.serving
        if stats is None:
            return None
        if self.since is None:
            self.since = now
        if stats.sample(time.time(), self.run.activity.gpu_util):
            self.run.publish()
        if stats.load > 0:
            self.run.serving_seen()
        window = self.run.profile.timeouts.silence
        quiet = now - max(stats.progress_m or self.since, self.since)
        suspect = bool(stats.signs) or (stats.load > 0 and quiet >= window)
        if not suspect or now < self.next_canary:
            return None
        timeout = self.canary_timeout()
        self.next_canary = now + max(window, timeout)
        what, result = await self.canary(timeout)
        self.canaries += 1
        if result.ok:
            stats.progressed()     # it generated: tokens move
            stats.forget_load()    # and the requests of the last line are gone
            return None
        if result.status is not None and result.status != 503:
            return None            # it answered, if not with a token: not a hang we can prove
        self.canary_failures += 1
        return await self._verdict(stats, now - (stats.progress_m or self.since), window,
                                   what, result)

    def canary_timeout(self) -> float:
        return max(CANARY_MIN_TIMEOUT, self.run.profile.health.timeout)

    async def canary(self, timeout: float) -> tuple[str, ProbeResult]:
        """One short generation; (what was asked, the answer)."""
        p = self.run.profile
        if self.run.engine_name == "vllm":
            body = {"model": served_model(p), "prompt": "Hello", "max_tokens": 1}
            return ("POST /v1/completions (max_tokens 1)",
                    await post(p.host, p.port, "/v1/completions", body, timeout))
        return "GET /health_generate", await probe(p.host, p.port, "/health_generate", timeout)

    async def _verdict(self, stats: ServingStats, quiet: float, window: float, what: str,
                       result: ProbeResult) -> Stall:
        p = self.run.profile
        v = stats.values
        age = "" if stats.updated is None else \
            f", last stats line {time.time() - stats.updated:.0f} s ago"
        if stats.load > 0:
            why = (f"{int(v.get('running', 0))} requests running, {int(v.get('queued', 0))} "
                   f"queued{age}")
        else:
            why = "the engine warned of a hang"
        evidence = [
            f"no tokens generated for {quiet:.0f} s while serving (window = silence "
            f"{window:g} s): {why}",
            f"canary {what} -> {result.error or f'HTTP {result.status}'}",
        ]
        health = await probe(p.host, p.port, p.health.path, p.health.timeout)
        evidence.append(f"GET {p.health.path} -> "
                        + ("200 (the HTTP layer answers, generation does not)" if health.ok
                           else health.error or f"HTTP {health.status}"))
        evidence += [f"engine warning: {s}" for s in stats.signs]
        evidence.append("last serving metrics: " + describe(v))
        return Stall(Cause.SERVING_STALL, evidence + self.run.log_evidence(3))


def describe(values: dict[str, Any]) -> str:
    """One line of the newest values, for evidence and plain output."""
    parts = []
    for key, label, fmt in (("gen_throughput", "gen", "{:.1f} tok/s"),
                            ("prompt_throughput", "prompt", "{:.1f} tok/s"),
                            ("running", "running", "{:.0f}"), ("queued", "queued", "{:.0f}"),
                            ("token_usage", "KV usage", "{:.0%}"),
                            ("cache_hit_rate", "cache hit", "{:.0%}"),
                            ("accept_len", "accept len", "{:.2f}")):
        value = values.get(key)
        if isinstance(value, (int, float)) and value == value:
            parts.append(f"{label} {fmt.format(value)}")
    return ", ".join(parts) or "none"


def served_model(profile: ResolvedProfile) -> str:
    """The name vLLM serves the model under: --served-model-name, else the model path."""
    for key, value in profile.args:
        if key.replace("_", "-") == "served-model-name" and value:
            return str(value[0] if isinstance(value, (list, tuple)) else value)
    return profile.model or "default"


async def post(host: str, port: int, path: str, body: dict[str, Any],
               timeout: float) -> ProbeResult:
    """POST a JSON body; the status line is all we need (the body is read to its end, so the
    server never logs a client that went away)."""
    connect_host = "127.0.0.1" if host in ("0.0.0.0", "") else host
    data = json.dumps(body).encode()
    try:
        with anyio.fail_after(timeout):
            stream = await anyio.connect_tcp(connect_host, port)
            async with stream:
                head = (f"POST {path} HTTP/1.0\r\nHost: {connect_host}:{port}\r\n"
                        f"Content-Type: application/json\r\nContent-Length: {len(data)}\r\n"
                        "Connection: close\r\n\r\n").encode()
                await stream.send(head + data)
                got = b""
                try:
                    while len(got) < 65536:
                        got += await stream.receive(4096)
                except anyio.EndOfStream:
                    pass
    except TimeoutError:
        return ProbeResult(None, f"no answer within {timeout:g} s")
    except (OSError, anyio.BrokenResourceError) as exc:
        return ProbeResult(None, str(exc) or type(exc).__name__)
    try:
        return ProbeResult(int(got.split(b" ", 2)[1]))
    except (IndexError, ValueError):
        return ProbeResult(None, f"bad answer: {got[:60]!r}")
