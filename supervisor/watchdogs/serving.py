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

A stall can also start before any stats line shows a request (nothing was asked yet, or the
first request's line never came): ``[health] canary_interval`` sends the same canary every N
seconds after ready, with ``canary_timeout``. A failed one is retried at once; ``failures`` in
a row, with no tokens moving in the log while they waited, is a serving stall (a canary queued
behind a long prefill that logs its chunks is not). With ``engine_metrics`` on, vLLM's token
counters say whether tokens moved: its stats line averages 10 s, so the one printed just after a
hang shows tokens from before it and, from the log alone, costs the verdict one more canary.

The GPU's own sign: busy at low power (``activity.SPIN_POWER_FRACTION``) while requests are in
flight and no token moves is how a spinning hang looks (a kernel polling a flag). It makes the
run suspect after half the window instead of the whole.
"""

from __future__ import annotations

import json
import threading
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Protocol

import anyio

from ..engines.base import CANARY_QUERY
from ..engines.engine_metrics import Scraper
from ..engines.serving_stats import ServingStats
from ..profiles import ResolvedProfile
from ..states import Cause
from .activity import GPU_ACTIVE_PERCENT, SPIN_POWER_FRACTION, ActivityTracker
from .health import ProbeResult, probe

CANARY_MIN_TIMEOUT = 5.0
CANARIES_KEPT = 5       # the newest canary results, for evidence


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
        self.next_interval: float | None = None  # the next canary on the interval
        self.canaries = 0
        self.canary_failures = 0
        self.failed_in_row = 0
        self.results: deque[str] = deque(maxlen=CANARIES_KEPT)
        self.spin_since: float | None = None  # GPU busy at low power with requests in flight
        p = run.profile
        self.scraper = Scraper(p.host, p.port) if p.health.engine_metrics else None
        self.pending: Pending | None = None   # the interval canary in flight

    async def check(self, now: float) -> Stall | None:
        stats = self.run.serving
        if stats is None:
            return None
        if self.since is None:
            self.since = now
        await self._scrape(stats, now)
        a = self.run.activity
        # (no short-circuit: both flags are read, and cleared, every tick)
        if stats.sample(time.time(), a.gpu_util, a.gpu_power_frac) | stats.take_answers_news():
            self.run.publish()
        if stats.load > 0:
            self.run.serving_seen()
        stall = await self._check_suspect(stats, now)
        if stall is None:
            stall = await self._interval_canary(stats, now)
        return stall

    async def _scrape(self, stats: ServingStats, now: float) -> None:
        """The engine's own /metrics, when the profile asks for it: merged into the samples;
        a token counter that grew is progress."""
        if self.scraper is None or not self.scraper.due(now):
            return
        timeout = min(2.0, self.run.profile.health.timeout)
        values, moved = await self.scraper.scrape(now, timeout)
        stats.merge(values)
        stats.scrape_error = self.scraper.error
        if moved:
            stats.progressed()

    async def _check_suspect(self, stats: ServingStats, now: float) -> Stall | None:
        """Requests in flight and no tokens for the window (half of it with the GPU spinning),
        or the engine warned of a hang: one canary decides."""
        window = self.run.profile.timeouts.silence
        since = now if self.since is None else self.since
        last = since if stats.progress_m is None else max(stats.progress_m, since)
        quiet = now - last
        spinning = self._spinning(stats, now)
        suspect = bool(stats.signs) or (stats.load > 0 and (
            quiet >= window or (spinning >= window / 2 and quiet >= window / 2)))
        if not suspect or now < self.next_canary:
            return None
        timeout = self.canary_timeout()
        self.next_canary = now + max(window, timeout)
        what, result = await self.canary(timeout)
        # an answer other than 503, if not with a token, is not a hang we can prove
        self._record(stats, what, result, failed=result.status in (None, 503))
        if result.ok:
            stats.catch_up()
            stats.forget_load()    # the requests of the last line are gone
            return None
        if result.status not in (None, 503):
            return None
        head = self._quiet_line(stats, now - (since if stats.progress_m is None
                                              else stats.progress_m), window)
        return await self._verdict(stats, [head, f"canary {what} -> {_answer(result)}"])

    def _spinning(self, stats: ServingStats, now: float) -> float:
        """Seconds the GPU has been busy at low power with requests in flight (0 if not)."""
        a = self.run.activity
        spin = (stats.load > 0 and a.gpu_util is not None and a.gpu_util >= GPU_ACTIVE_PERCENT
                and a.gpu_power_frac is not None and a.gpu_power_frac < SPIN_POWER_FRACTION)
        if not spin:
            self.spin_since = None
            return 0.0
        if self.spin_since is None:
            self.spin_since = now
        return now - self.spin_since

    def _interval_due(self, now: float) -> bool:
        interval = self.run.profile.health.canary_interval
        if interval <= 0:
            return False
        if self.next_interval is None:
            self.next_interval = (now if self.since is None else self.since) + interval
        return now >= self.next_interval

    async def _interval_canary(self, stats: ServingStats, now: float) -> Stall | None:
        """The canary on the interval, waited for in its own thread (a hung server must not
        hold up the health probe and the other checks for the canary's timeout): started when
        due, judged on the tick after it answered or timed out."""
        if self.pending is None:
            if self._interval_due(now):
                self._start_canary()
            return None
        got = self.pending.poll()
        if got is None:
            return None
        pending, self.pending = self.pending, None
        stall = await self._judge_interval(stats, now, pending.began, *got)
        if stall is None and self.failed_in_row and self._interval_due(now):
            self._start_canary()  # the retry, on this tick: a stall is called sooner
        return stall

    def _start_canary(self) -> None:
        self.pending = Pending(self.canary, self.run.profile.health.canary_timeout,
                               self.canary_request())

    async def _judge_interval(self, stats: ServingStats, now: float, began: float, what: str,
                              result: ProbeResult) -> Stall | None:
        """``failures`` unanswered in a row, with no token moving in the log while they
        waited, is a stall."""
        health = self.run.profile.health
        stats.catch_up()
        moved = self._moved_since(stats, began)
        answered = result.status not in (None, 503)
        self._record(stats, what, result, failed=not (answered or moved))
        if result.ok:
            stats.forget_load()  # SGLang logs the canary's own prefill: not a request's load
        if answered or moved:
            self.failed_in_row = 0
            self.next_interval = now + health.canary_interval
            return None
        self.failed_in_row += 1
        self.next_interval = now  # retried at once: one miss can be bad luck
        if self.failed_in_row < health.failures:
            return None
        head = (f"{self.failed_in_row} canary generations in a row unanswered (every "
                f"{health.canary_interval:g} s, timeout {health.canary_timeout:g} s; failures ="
                f" {health.failures}), no tokens generated in the log meanwhile")
        failed = list(self.results)[-self.failed_in_row:]  # the ones in a row, not older
        return await self._verdict(stats, [head, *(f"canary {r}" for r in failed)])

    def _moved_since(self, stats: ServingStats, began: float) -> bool:
        """Tokens generated since the canary began. An engine whose stats line averages the
        last interval (vLLM) prints one just after a hang that still shows the tokens before
        it: its own /metrics counters, when scraped and answering, say exactly."""
        if stats.averaged and self.scraper is not None:
            exact = self.scraper.moved_since(began)
            if exact is not None:
                return exact
        return stats.progress_m is not None and stats.progress_m >= began

    def _record(self, stats: ServingStats, what: str, result: ProbeResult, *,
                failed: bool) -> None:
        self.canaries += 1
        self.canary_failures += failed
        answer = _answer(result)
        self.results.append(f"{what} at {time.strftime('%H:%M:%S')} -> {answer}")
        if result.ok:
            stats.progressed()     # it generated: tokens move
        stats.canary = {"t": time.time(), "request": what, "ok": result.ok, "answer": answer,
                        "count": self.canaries, "failures": self.canary_failures}
        self.run.publish()  # status and the Prometheus export show it

    def canary_timeout(self) -> float:
        return max(CANARY_MIN_TIMEOUT, self.run.profile.health.timeout)

    def canary_request(self) -> str:
        if self.run.engine_name == "vllm":
            return "POST /v1/completions (max_tokens 1)"
        return "GET /health_generate"

    async def canary(self, timeout: float) -> tuple[str, ProbeResult]:
        """One short generation; (what was asked, the answer)."""
        p = self.run.profile
        if self.run.engine_name == "vllm":
            body = {"model": served_model(p), "prompt": "Hello", "max_tokens": 1}
            return (self.canary_request(),
                    await post(p.host, p.port, f"/v1/completions?{CANARY_QUERY}", body,
                               timeout))
        return self.canary_request(), await probe(p.host, p.port, "/health_generate", timeout)

    def _quiet_line(self, stats: ServingStats, quiet: float, window: float) -> str:
        v = stats.values
        age = "" if stats.updated is None else \
            f", last stats line {time.time() - stats.updated:.0f} s ago"
        if stats.load > 0:
            why = (f"{int(v.get('running', 0))} requests running, {int(v.get('queued', 0))} "
                   f"queued{age}")
        else:
            why = "the engine warned of a hang"
        return (f"no tokens generated for {quiet:.0f} s while serving (window = silence "
                f"{window:g} s): {why}")

    async def _verdict(self, stats: ServingStats, evidence: list[str]) -> Stall:
        p = self.run.profile
        health = await probe(p.host, p.port, p.health.path, p.health.timeout)
        evidence.append(f"GET {p.health.path} -> "
                        + ("200 (the HTTP layer answers, generation does not)" if health.ok
                           else _answer(health)))
        evidence += [f"engine warning: {s}" for s in stats.signs]
        gpu = self._gpu_line()
        if gpu:
            evidence.append(gpu)
        evidence.append("last serving metrics: " + describe(stats.values))
        return Stall(Cause.SERVING_STALL, evidence + self.run.log_evidence(3))

    def _gpu_line(self) -> str | None:
        a = self.run.activity
        if a.gpu_util is None:
            return None
        if a.gpu_power_frac is None:
            return f"GPU {a.gpu_util:.0f}% busy (no power reading)"
        line = f"GPU {a.gpu_util:.0f}% busy at {a.gpu_power_frac:.0%} of its power limit"
        if self.spin_since is not None:
            line += (f" for {time.monotonic() - self.spin_since:.0f} s with requests in flight "
                     "and no tokens (spinning, not computing)")
        return line


class Pending:
    """One canary in a thread of its own (its own event loop): polled, never awaited."""

    def __init__(self, canary: Callable[[float], Awaitable[tuple[str, ProbeResult]]],
                 timeout: float, what: str) -> None:
        self.began = time.monotonic()
        self.what = what
        self.timeout = timeout
        self.got: tuple[str, ProbeResult] | None = None
        self.thread = threading.Thread(target=self._go, args=(canary,), daemon=True,
                                       name="serving-canary")
        self.thread.start()

    def _go(self, canary: Callable[[float], Awaitable[tuple[str, ProbeResult]]]) -> None:
        async def ask() -> tuple[str, ProbeResult]:
            return await canary(self.timeout)
        try:
            self.got = anyio.run(ask)
        except Exception as exc:  # noqa: BLE001 - a canary's failure is a result, never a crash
            self.got = (self.what, ProbeResult(None, f"{type(exc).__name__}: {exc}"))

    def poll(self) -> tuple[str, ProbeResult] | None:
        """The answer; a timeout of our own if the thread overran; None while waiting."""
        if self.got is not None:
            return self.got
        if time.monotonic() - self.began > self.timeout + 1.0:
            return (self.what, ProbeResult(None, f"no answer within {self.timeout:g} s"))
        return None


def _answer(result: ProbeResult) -> str:
    return result.error or f"HTTP {result.status}"


def describe(values: dict[str, Any]) -> str:
    """One line of the newest values, for evidence and plain output."""
    parts = []
    for key, label, fmt in (("gen_throughput", "gen", "{:.1f} tok/s"),
                            ("prompt_throughput", "prompt", "{:.1f} tok/s"),
                            ("running", "running", "{:.0f}"), ("queued", "queued", "{:.0f}"),
                            ("token_usage", "KV usage", "{:.0%}"),
                            ("cache_hit_rate", "cache hit", "{:.0%}"),
                            ("accept_len", "accept len", "{:.2f}"),
                            ("gpu_util", "GPU", "{:.0f}%"),
                            ("gpu_power_frac", "GPU power", "{:.0%} of limit")):
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
