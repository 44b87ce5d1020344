"""Optional Prometheus endpoint (DESIGN §10): off by default, loopback when on.

Enabled by the config's ``metrics_port`` (``metrics_host`` defaults to 127.0.0.1). Needs
``prometheus-client`` (the ``metrics`` extra); without it the daemon runs and says why there
are no metrics.

``MetricsState`` is fed from the Hub's listeners (``hub.listeners``) on the event loop: it keeps
the latest run snapshot and GPU samples and monotonic counters (runs started, fallback attempts,
verdicts by cause, phase durations). A custom collector turns that into metric families at
scrape time, in the HTTP server's thread, under one lock; the listener does O(1) work per event
and returns at once for log batches, so it never slows the log pipeline.

Metrics (all prefixed ``gns_``):

- ``run_info{run_id,profile,changes}`` 1 for the current run; ``run_status{status}`` and
  ``run_phase{phase}`` one-hot; ``run_phase_since_timestamp_seconds``; ``run_log_error`` 1
  while the run's log cannot be written (disk full, unwritable directory).
- ``phase_duration_seconds{phase}`` histogram of finished phases;
  ``last_phase_duration_seconds{phase}`` of the latest run.
- ``runs_started_total{profile,trigger}`` (trigger: request, restart, fallback, startup);
  ``fallback_attempts_total{strategy}``; ``verdicts_total{status,cause,phase}``.
- ``serving_*{engine,profile}`` of the current run, from the engine's own log lines (SGLang
  batch lines, vLLM stats lines): ``serving_gen_throughput_tokens_per_second``,
  ``serving_prompt_throughput_tokens_per_second``, ``serving_running_requests``,
  ``serving_queued_requests``, ``serving_kv_cache_usage_ratio``, ``serving_cache_hit_ratio``,
  ``serving_spec_accept_length``, ``serving_spec_accept_rate``,
  ``serving_last_progress_timestamp_seconds``, ``serving_gpu_utilization_percent``,
  ``serving_gpu_power_ratio``; from the engine's /metrics too when the profile scrapes it
  (``[health] engine_metrics``); the canary's ``serving_canaries``, ``serving_canary_failures``,
  ``serving_canary_ok``, ``serving_canary_timestamp_seconds``.
- ``gpu_utilization_percent``, ``gpu_memory_used_bytes``, ``gpu_memory_total_bytes``,
  ``gpu_temperature_celsius``, ``gpu_power_watts`` by ``gpu``; ``gpu_health{gpu,level}``.
- ``protocol_clients``, ``protocol_connections_total``, ``protocol_requests_total``,
  ``protocol_errors_total``, ``protocol_oversize_total``, ``protocol_events_dropped_total``,
  ``hub_subscribers``.
"""

from __future__ import annotations

import logging
import threading
from collections.abc import Callable
from typing import Any

import anyio

from .states import Phase, Status

log = logging.getLogger(__name__)

PREFIX = "gns_"
PHASE_BUCKETS = (1, 5, 15, 30, 60, 120, 300, 600, 1200, 1800, 3600, 7200, float("inf"))
STATUSES = tuple(s.value for s in Status)
PHASES = tuple(p.value for p in Phase)
_MIB = 2**20


class MetricsState:
    """What the collector reports; fed by ``on_event`` (a Hub listener)."""

    def __init__(self, protocol_stats: Callable[[], dict[str, Any]] | None = None,
                 hub_stats: Callable[[], dict[str, Any]] | None = None) -> None:
        self.lock = threading.Lock()
        self.protocol_stats = protocol_stats
        self.hub_stats = hub_stats
        self.run: dict[str, Any] | None = None
        self.gpus: list[dict[str, Any]] = []
        self.runs_started: dict[tuple[str, str], int] = {}
        self.fallback_attempts: dict[str, int] = {}
        self.verdicts: dict[tuple[str, str, str], int] = {}
        # histogram per phase: bucket counts (cumulative at render), sum, count
        self.phase_hist: dict[str, tuple[list[int], float, int]] = {}
        self.last_phase: dict[str, float] = {}
        # Run and request ids only grow, so "seen" is a high-water mark (bounded state).
        self._max_run = 0
        self._observed: set[str] = set()          # phases of the newest run in the histogram
        self._max_verdict_run = 0
        self._max_attempt_run = 0
        self._max_request = 0

    # -- feeding (event loop) ---------------------------------------------------------------
    def on_event(self, kind: str, data: Any) -> None:
        if kind == "log":
            return
        try:
            if kind == "run":
                self._on_run(data)
            elif kind == "verdict":
                self._on_verdict(data)
            elif kind == "gpus":
                with self.lock:
                    self.gpus = list(data.get("gpus") or [])
            elif kind == "fallback":
                self._on_fallback(data)
        except Exception:  # metrics must never break the daemon's event flow
            log.exception("metrics: cannot account for a %s event", kind)

    def _on_run(self, snap: dict[str, Any]) -> None:
        run_id = snap.get("id")
        with self.lock:
            self.run = snap
            if run_id is None:
                return
            if run_id < self._max_run:
                return  # a late event of an older run
            if run_id > self._max_run:
                self._max_run = run_id
                self._observed = set()
                self.last_phase = {}
                # A request's first run is the request itself; later runs of the same request
                # are its fallback's attempts.
                req = snap.get("request_id")
                trigger = "fallback" if req is not None and req <= self._max_request \
                    else _trigger(snap.get("reason"))
                if req is not None:
                    self._max_request = max(self._max_request, req)
                key = (str(snap.get("profile")), trigger)
                self.runs_started[key] = self.runs_started.get(key, 0) + 1
            for ph in snap.get("phases") or []:
                duration = ph.get("duration")
                name = ph.get("phase")
                if duration is None or name is None or name in self._observed:
                    continue
                self._observed.add(name)
                self.last_phase[name] = float(duration)
                buckets, total, count = self.phase_hist.get(
                    name, ([0] * len(PHASE_BUCKETS), 0.0, 0))
                for i, bound in enumerate(PHASE_BUCKETS):
                    if duration <= bound:
                        buckets[i] += 1
                        break
                self.phase_hist[name] = (buckets, total + float(duration), count + 1)

    def _on_verdict(self, v: dict[str, Any]) -> None:
        run_id = v.get("run_id") or 0
        with self.lock:
            if run_id <= self._max_verdict_run:
                return  # one verdict per run
            self._max_verdict_run = run_id
            key = (str(v.get("status")), str(v.get("cause") or "unknown"),
                   str(v.get("phase")))
            self.verdicts[key] = self.verdicts.get(key, 0) + 1

    def _on_fallback(self, fb: dict[str, Any]) -> None:
        attempts = fb.get("attempts") or []
        with self.lock:
            # The first attempt is the request itself; the ones after it are the fallback's.
            for att in attempts[1:]:
                rid = att.get("run_id")
                if rid is None or rid <= self._max_attempt_run:
                    continue
                self._max_attempt_run = rid
                strategy = str(fb.get("strategy") or "none")
                self.fallback_attempts[strategy] = self.fallback_attempts.get(strategy, 0) + 1

    # -- collecting (HTTP thread) -----------------------------------------------------------
    def collect(self) -> Any:
        from prometheus_client.core import (
            CounterMetricFamily,
            GaugeMetricFamily,
            HistogramMetricFamily,
        )

        with self.lock:
            run = dict(self.run) if self.run else None
            gpus = list(self.gpus)
            runs_started = dict(self.runs_started)
            fallback = dict(self.fallback_attempts)
            verdicts = dict(self.verdicts)
            hist = {k: (list(b), s, c) for k, (b, s, c) in self.phase_hist.items()}
            last_phase = dict(self.last_phase)

        info = GaugeMetricFamily(PREFIX + "run_info", "The current (or last) run",
                                 labels=["run_id", "profile", "changes"])
        st = GaugeMetricFamily(PREFIX + "run_status", "Status of the current run (one-hot)",
                               labels=["status"])
        ph = GaugeMetricFamily(PREFIX + "run_phase", "Phase of the current run (one-hot)",
                               labels=["phase"])
        since = GaugeMetricFamily(PREFIX + "run_phase_since_timestamp_seconds",
                                  "When the current run entered its phase (Unix time)")
        log_err = GaugeMetricFamily(PREFIX + "run_log_error",
                                    "1 while the run's log file cannot be written")
        if run is not None:
            info.add_metric([str(run.get("id")), str(run.get("profile")),
                             ",".join(run.get("changes") or [])], 1)
            for s in STATUSES:
                st.add_metric([s], 1 if run.get("status") == s else 0)
            for p in PHASES:
                ph.add_metric([p], 1 if run.get("phase") == p else 0)
            if run.get("phase_since") is not None:
                since.add_metric([], float(run["phase_since"]))
            log_err.add_metric([], 1 if run.get("log_error") else 0)
        yield from (info, st, ph, since, log_err)

        h = HistogramMetricFamily(PREFIX + "phase_duration_seconds",
                                  "Duration of finished startup phases", labels=["phase"])
        for name, (buckets, total, _count) in sorted(hist.items()):
            cum, acc = [], 0
            for bound, n in zip(PHASE_BUCKETS, buckets):
                acc += n
                cum.append(("+Inf" if bound == float("inf") else repr(float(bound)), acc))
            h.add_metric([name], cum, total)
        yield h
        last = GaugeMetricFamily(PREFIX + "last_phase_duration_seconds",
                                 "Phase durations of the latest run", labels=["phase"])
        for name, value in sorted(last_phase.items()):
            last.add_metric([name], value)
        yield last

        started = CounterMetricFamily(PREFIX + "runs_started", "Runs (launch attempts) started",
                                      labels=["profile", "trigger"])
        for (profile, trigger), n in sorted(runs_started.items()):
            started.add_metric([profile, trigger], n)
        yield started
        fb = CounterMetricFamily(PREFIX + "fallback_attempts",
                                 "Attempts made by a fallback strategy", labels=["strategy"])
        for strategy, n in sorted(fallback.items()):
            fb.add_metric([strategy], n)
        yield fb
        vc = CounterMetricFamily(PREFIX + "verdicts", "Failure verdicts",
                                 labels=["status", "cause", "phase"])
        for (status, cause, phase), n in sorted(verdicts.items()):
            vc.add_metric([status, cause, phase], n)
        yield vc

        yield from _serving_families(run, GaugeMetricFamily)
        yield from _gpu_families(gpus, GaugeMetricFamily)
        yield from self._protocol_families(GaugeMetricFamily, CounterMetricFamily)

    def _protocol_families(self, gauge: Any, counter: Any) -> Any:
        stats: dict[str, Any] = {}
        if self.protocol_stats is not None:
            try:
                stats = dict(self.protocol_stats())
            except Exception:  # noqa: BLE001 - read racing the loop: skip this scrape
                stats = {}
        g = gauge(PREFIX + "protocol_clients", "Clients connected to the control socket")
        g.add_metric([], stats.get("clients", 0))
        yield g
        for key, name, doc in (
                ("connections", "protocol_connections", "Connections accepted"),
                ("requests", "protocol_requests", "Request lines received"),
                ("errors", "protocol_errors", "Requests answered with an error"),
                ("oversize", "protocol_oversize", "Messages over the size limit"),
                ("dropped_total", "protocol_events_dropped",
                 "Events dropped for clients that did not keep up")):
            c = counter(PREFIX + name, doc)
            c.add_metric([], stats.get(key, stats.get("dropped", 0) if key == "dropped_total"
                                       else 0))
            yield c
        if self.hub_stats is not None:
            try:
                subs = self.hub_stats().get("subscribers", 0)
            except Exception:  # noqa: BLE001
                subs = 0
            s = gauge(PREFIX + "hub_subscribers", "Clients subscribed to events")
            s.add_metric([], subs)
            yield s


_SERVING_GAUGES = (
    ("serving_gen_throughput_tokens_per_second", "Generation throughput (engine log)",
     "gen_throughput"),
    ("serving_prompt_throughput_tokens_per_second", "Prompt throughput (engine log)",
     "prompt_throughput"),
    ("serving_running_requests", "Requests running (engine log)", "running"),
    ("serving_queued_requests", "Requests queued (engine log)", "queued"),
    ("serving_kv_cache_usage_ratio", "KV cache token usage, 0-1 (engine log)", "token_usage"),
    ("serving_cache_hit_ratio", "Prefix cache hit rate, 0-1 (engine log)", "cache_hit_rate"),
    ("serving_spec_accept_length", "Speculative decoding accept length", "accept_len"),
    ("serving_spec_accept_rate", "Speculative decoding accept rate, 0-1", "accept_rate"),
    ("serving_last_progress_timestamp_seconds", "When tokens last moved (Unix time)",
     "last_progress"),
    ("serving_gpu_utilization_percent", "GPU utilisation while serving (busiest GPU)",
     "gpu_util"),
    ("serving_gpu_power_ratio", "GPU power draw over its limit while serving, 0-1 (busy at low"
     " power with no tokens: spinning)", "gpu_power_frac"),
)
_CANARY_GAUGES = (
    ("serving_canaries", "Canary generations sent since ready", "count"),
    ("serving_canary_failures", "Canary generations unanswered since ready", "failures"),
    ("serving_canary_ok", "Whether the newest canary generation answered (1) or not (0)", "ok"),
    ("serving_canary_timestamp_seconds", "When the newest canary was judged (Unix time)", "t"),
)


def _serving_families(run: dict[str, Any] | None, gauge: Any) -> Any:
    """The current run's serving metrics (``status.run.serving``), labelled by engine."""
    srv = (run or {}).get("serving") or {}
    labels = [str(srv.get("engine")), str((run or {}).get("profile"))]
    for name, doc, key in _SERVING_GAUGES:
        fam = gauge(PREFIX + name, doc, labels=["engine", "profile"])
        value = srv.get(key)
        if isinstance(value, (int, float)) and not isinstance(value, bool):
            fam.add_metric(labels, float(value))
        yield fam
    answers = srv.get("answers") or {}
    fam = gauge(PREFIX + "serving_answers", "Requests the current run answered since ready, "
                "by status class, from its access lines (polls of health, metrics and "
                "model-list routes and the daemon's own canaries left out)",
                labels=["engine", "profile", "status_class"])
    for cls, n in sorted(answers.items()):
        if isinstance(n, int):
            fam.add_metric([*labels, cls], float(n))
    yield fam
    canary = srv.get("canary") or {}
    for name, doc, key in _CANARY_GAUGES:
        fam = gauge(PREFIX + name, doc, labels=["engine", "profile"])
        value = canary.get(key)
        if isinstance(value, (int, float)):  # ok is a bool: 1 or 0
            fam.add_metric(labels, float(value))
        yield fam


def _gpu_families(gpus: list[dict[str, Any]], gauge: Any) -> Any:
    specs = (
        ("gpu_utilization_percent", "GPU utilisation", "utilization_gpu", 1.0),
        ("gpu_memory_used_bytes", "GPU memory used", "memory_used_mib", _MIB),
        ("gpu_memory_total_bytes", "GPU memory total", "memory_total_mib", _MIB),
        ("gpu_temperature_celsius", "GPU temperature", "temperature_c", 1.0),
        ("gpu_power_watts", "GPU power draw", "power_w", 1.0),
    )
    for name, doc, key, scale in specs:
        fam = gauge(PREFIX + name, doc, labels=["gpu"])
        for g in gpus:
            value = g.get(key)
            if isinstance(value, (int, float)) and not isinstance(value, bool):
                fam.add_metric([str(g.get("index"))], float(value) * scale)
        yield fam
    health = gauge(PREFIX + "gpu_health", "GPU health level (one-hot per GPU)",
                   labels=["gpu", "level"])
    for g in gpus:
        level = (g.get("health") or {}).get("level") or "unknown"
        health.add_metric([str(g.get("index")), str(level)], 1)
    yield health


def _trigger(reason: Any) -> str:
    text = str(reason or "")
    if text.startswith("restart"):
        return "restart"
    if text.startswith("startup"):
        return "startup"
    return "request"


class _Collector:
    def __init__(self, state: MetricsState) -> None:
        self.state = state

    def collect(self) -> Any:
        return self.state.collect()


def make_registry(state: MetricsState) -> Any:
    from prometheus_client import CollectorRegistry, ProcessCollector

    registry = CollectorRegistry(auto_describe=False)
    registry.register(_Collector(state))
    ProcessCollector(namespace="gns_daemon", registry=registry)
    return registry


async def serve_metrics(state: MetricsState, host: str, port: int, *,
                        on_problem: Callable[[str], None] | None = None,
                        task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
    """Serve ``/metrics`` on host:port until cancelled. A failure to start is reported, never
    fatal: supervision matters more than its metrics."""
    try:
        from prometheus_client import start_http_server
    except ImportError:
        _problem(on_problem, "metrics_port is set but prometheus-client is not installed "
                 "(pip install 'gpu-node-supervisor[metrics]'); no metrics endpoint")
        task_status.started()
        return
    try:
        server, thread = start_http_server(port, addr=host, registry=make_registry(state))
    except OSError as exc:
        _problem(on_problem, f"metrics endpoint {host}:{port} not started: {exc}")
        task_status.started()
        return
    log.info("metrics on http://%s:%s/metrics", host, port)
    task_status.started()
    try:
        await anyio.sleep_forever()
    finally:
        server.shutdown()
        server.server_close()


def _problem(on_problem: Callable[[str], None] | None, text: str) -> None:
    log.error("%s", text)
    if on_problem is not None:
        on_problem(text)
