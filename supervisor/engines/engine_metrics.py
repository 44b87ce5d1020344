"""Serving metrics from the engine's own Prometheus ``/metrics`` (``[health] engine_metrics``).

SGLang serves it with ``--enable-metrics`` (``sglang:num_running_reqs``, ``num_queue_reqs``,
``gen_throughput``, ``token_usage``, ``cache_hit_rate``, ``spec_accept_length``); vLLM always
(``vllm:num_requests_running``, ``num_requests_waiting``, ``kv_cache_usage_perc`` — before
0.10 ``gpu_cache_usage_perc`` —, counters for tokens, prefix-cache hits and queries,
preemptions, speculative drafts and accepted tokens). Gauges map straight onto the serving
fields (``engines.serving_stats.FIELDS``); counters become rates between two scrapes.

A generated-token counter that grows is progress, exact where the log is not: vLLM prints its
stats every 10 s and SGLang's throughput gauge keeps its last value when generation stops.
Several label sets (data-parallel ranks, engines) are summed; ratios are averaged.
"""

from __future__ import annotations

import math
import re
import time

import anyio

BODY_LIMIT = 4 * 2**20   # a /metrics page with histograms is tens of KiB; stop well past it
SCRAPE_GAP = 1.0         # seconds between two scrapes

# gauge name -> (field, how several label sets combine)
_GAUGES: dict[str, tuple[str, str]] = {
    "sglang:num_running_reqs": ("running", "sum"),
    "sglang:num_queue_reqs": ("queued", "sum"),
    "sglang:gen_throughput": ("gen_throughput", "sum"),
    "sglang:token_usage": ("token_usage", "mean"),
    "sglang:cache_hit_rate": ("cache_hit_rate", "mean"),
    "sglang:spec_accept_length": ("accept_len", "mean"),
    "sglang:num_used_tokens": ("tokens", "sum"),
    "vllm:num_requests_running": ("running", "sum"),
    "vllm:num_requests_waiting": ("queued", "sum"),
    "vllm:kv_cache_usage_perc": ("token_usage", "mean"),
    "vllm:gpu_cache_usage_perc": ("token_usage", "mean"),
}
# counter (without _total) -> what its rate is
_COUNTERS = {
    "sglang:generation_tokens": "gen",
    "sglang:prompt_tokens": "prompt",
    "vllm:generation_tokens": "gen",
    "vllm:prompt_tokens": "prompt",
    "vllm:prefix_cache_hits": "hits",
    "vllm:prefix_cache_queries": "queries",
    "vllm:num_preemptions": "preempted",
    "vllm:spec_decode_num_accepted_tokens": "accepted",
    "vllm:spec_decode_num_drafts": "drafts",
}
_SAMPLE = re.compile(r"^([a-zA-Z_:][a-zA-Z0-9_:]*)(\{[^}]*\})?\s+(\S+)")


def parse(text: str) -> tuple[dict[str, float], dict[str, float]]:
    """(gauge fields, counter totals) from a Prometheus text page; unknown names skipped."""
    gauges: dict[str, list[float]] = {}
    how: dict[str, str] = {}
    counters: dict[str, float] = {}
    for line in text.splitlines():
        if not line or line[0] == "#" or not (line.startswith("sglang:")
                                              or line.startswith("vllm:")):
            continue
        m = _SAMPLE.match(line)
        if m is None:
            continue
        try:
            value = float(m[3])
        except ValueError:
            continue
        if not math.isfinite(value):
            continue
        name = m[1]
        if name in _GAUGES:
            field, combine = _GAUGES[name]
            gauges.setdefault(field, []).append(value)
            how[field] = combine
            continue
        base = name.removesuffix("_total")
        if base in _COUNTERS:
            key = _COUNTERS[base]
            counters[key] = counters.get(key, 0.0) + value
    values = {f: (sum(v) if how[f] == "sum" else sum(v) / len(v)) for f, v in gauges.items()}
    return values, counters


class Scraper:
    """One run's scrapes: the values to merge, rates from counters, and whether tokens moved."""

    def __init__(self, host: str, port: int, path: str = "/metrics") -> None:
        self.host = "127.0.0.1" if host in ("0.0.0.0", "") else host
        self.port = port
        self.path = path
        self.next_m = 0.0
        self.error: str | None = None     # the last scrape's failure, for status
        self.answered_m: float | None = None  # when a scrape last answered (monotonic)
        self.moved_m: float | None = None     # when one last saw a token counter grow
        self._prev: tuple[float, dict[str, float]] | None = None

    def due(self, now_m: float) -> bool:
        return now_m >= self.next_m

    async def scrape(self, now_m: float, timeout: float) -> tuple[dict[str, float], bool]:
        """(fields, tokens moved since the last scrape); ({}, False) when it fails."""
        self.next_m = now_m + SCRAPE_GAP
        try:
            text = await fetch(self.host, self.port, self.path, timeout)
        except TimeoutError:
            self.error = f"GET {self.path}: no answer within {timeout:g} s"
            return {}, False
        except (OSError, ValueError, anyio.BrokenResourceError) as exc:
            self.error = f"GET {self.path}: {str(exc) or type(exc).__name__}"
            return {}, False
        self.error = None
        values, counters = parse(text)
        t = time.monotonic()
        moved = self._rates(values, counters, t)
        self.answered_m = t
        if moved:
            self.moved_m = t
        return values, moved

    def moved_since(self, t: float) -> bool | None:
        """Whether a token counter grew since monotonic time ``t``; None when no scrape has
        answered since then (the counters cannot say)."""
        if self.answered_m is None or self.answered_m < t:
            return None
        return self.moved_m is not None and self.moved_m >= t

    def _rates(self, values: dict[str, float], counters: dict[str, float], t: float) -> bool:
        prev, self._prev = self._prev, (t, counters)
        if prev is None or t <= prev[0]:
            return False
        dt = t - prev[0]
        d = {k: counters[k] - prev[1].get(k, 0.0) for k in counters}
        if any(v < 0 for v in d.values()):
            return False  # the engine restarted its counters
        if "gen" in d:
            values["gen_throughput"] = d["gen"] / dt
        if "prompt" in d:
            values["prompt_throughput"] = d["prompt"] / dt
        if d.get("queries", 0) > 0:
            values["cache_hit_rate"] = d.get("hits", 0.0) / d["queries"]
        if d.get("drafts", 0) > 0:
            values["accept_len"] = 1 + d.get("accepted", 0.0) / d["drafts"]
        if "preempted" in counters:
            values["retracted"] = counters["preempted"]
        return d.get("gen", 0) > 0 or d.get("prompt", 0) > 0


async def fetch(host: str, port: int, path: str, timeout: float) -> str:
    """GET a text page over HTTP/1.0 (the server closes, no chunking); raises on failure."""
    with anyio.fail_after(timeout):
        stream = await anyio.connect_tcp(host, port)
        async with stream:
            await stream.send(f"GET {path} HTTP/1.0\r\nHost: {host}:{port}\r\n"
                              "Accept: text/plain\r\nConnection: close\r\n\r\n".encode())
            got = bytearray()
            try:
                while len(got) < BODY_LIMIT:
                    got += await stream.receive(65536)
            except anyio.EndOfStream:
                pass
    head, _, body = bytes(got).partition(b"\r\n\r\n")
    status = head.split(b" ", 2)[1:2]
    if status != [b"200"]:
        raise ValueError(f"HTTP {status[0].decode(errors='replace') if status else '?'}")
    return body.decode("utf-8", "replace")
