"""ServingWatch's decisions with a stand-in run: the canary on an interval (retries, a canary
that waited behind progress), the GPU busy at low power as a stall sign; the [health] canary
keys' validation."""

from __future__ import annotations

import time
from types import SimpleNamespace
from typing import Any

import anyio
import pytest

from supervisor.engines import serving_stats
from supervisor.engines.serving_stats import ServingStats
from supervisor.profiles import HealthSpec, Timeouts
from supervisor.profiles.load import parse_text
from supervisor.states import Cause
from supervisor.watchdogs import serving
from supervisor.watchdogs.activity import ActivityTracker
from supervisor.watchdogs.health import ProbeResult
from supervisor.watchdogs.serving import ServingWatch

DECODE = ("[2026-01-01 10:00:00 TP0] Decode batch, #running-req: 2, #token: 90, token usage: "
          "0.01, cuda graph: True, gen throughput (token/s): 80.00, #queue-req: 0, \n")


class Run:
    def __init__(self, **health: Any) -> None:
        self.profile = SimpleNamespace(timeouts=Timeouts(silence=10.0),
                                       health=HealthSpec(**health), host="127.0.0.1", port=1,
                                       args=(), model="m")
        self.serving = ServingStats("sglang")
        self.activity = ActivityTracker(started=time.monotonic())
        self.engine_name = "sglang"
        self.published = 0

    def publish(self) -> None:
        self.published += 1

    def serving_seen(self) -> None:
        pass

    def log_evidence(self, n: int = 3) -> list[str]:
        return []


@pytest.fixture(autouse=True)
def no_throttle(monkeypatch: pytest.MonkeyPatch) -> None:
    """Every chunk looked at; /health (asked for the verdict's evidence) answers 200."""
    async def health(*_a: Any) -> ProbeResult:
        return ProbeResult(200)

    monkeypatch.setattr(serving_stats, "SCAN_GAP", 0.0)
    monkeypatch.setattr(serving, "probe", health)


def watch(run: Run, answers: list[ProbeResult], during=None) -> ServingWatch:
    w = ServingWatch(run)  # type: ignore[arg-type]
    asked: list[float] = []

    async def canary(timeout: float) -> tuple[str, ProbeResult]:
        asked.append(timeout)
        if during is not None:
            during()
        return "GET /health_generate", answers.pop(0)

    w.canary = canary  # type: ignore[method-assign]
    w.asked = asked  # type: ignore[attr-defined]
    return w


async def ticks(w: ServingWatch, *times: float) -> list[Any]:
    """check() at each time; a canary started is let finish in its thread before the next."""
    out = []
    for t in times:
        out.append(await w.check(t))
        if w.pending is not None:
            w.pending.thread.join(5)
    return out


def test_interval_canary_retries_then_calls_a_stall() -> None:
    run = Run(canary_interval=5.0, canary_timeout=2.0, failures=2)
    w = watch(run, [ProbeResult(200)] + [ProbeResult(None, "no answer within 2 s")] * 2)
    out = anyio.run(ticks, w, 0.0, 4.9, 5.0, 5.1, 10.1, 10.2, 10.3)
    # due at 5 (answered at 5.1), at 10.1; failed at 10.2 and retried on that tick; the retry
    # failed too (10.3)
    assert out[:6] == [None] * 6 and w.asked == [2.0, 2.0, 2.0]
    stall = out[6]
    assert stall is not None and stall.cause == Cause.SERVING_STALL
    assert stall.evidence[0].startswith("2 canary generations in a row unanswered (every 5 s,")
    canaries = [e for e in stall.evidence if e.startswith("canary ")]
    assert len(canaries) == 2 and all(e.endswith("-> no answer within 2 s") for e in canaries)
    assert stall.evidence[3] == "GET /health -> 200 (the HTTP layer answers, generation does not)"
    assert run.serving.canary["failures"] == 2 and run.serving.canary["ok"] is False
    assert run.serving.canary["count"] == 3


def test_interval_canary_that_waited_behind_progress_is_not_a_failure() -> None:
    run = Run(canary_interval=5.0, canary_timeout=2.0, failures=1)
    w = watch(run, [ProbeResult(None, "no answer within 2 s")],
              during=lambda: run.serving.feed_chunk(DECODE.encode()))
    assert anyio.run(ticks, w, 0.0, 5.0, 5.1) == [None] * 3
    assert w.failed_in_row == 0 and w.next_interval == 10.1 and w.asked == [2.0]


# vLLM's stats line averages the last 10 s: printed just after a hang, it still shows tokens
VLLM_STATS = ("(APIServer pid=1) INFO 12-01 23:48:09 [loggers.py:335] Engine 000: Avg prompt "
              "throughput: 10.2 tokens/s, Avg generation throughput: 140.1 tokens/s, Running: 0 "
              "reqs, Waiting: 0 reqs, CPU KV cache usage: 0.0%, Prefix cache hit rate: 0.0%\n")


def vllm_watch(counters_grew: bool | None) -> tuple[Run, ServingWatch]:
    """A vLLM run whose one canary fails while the averaged stats line comes in; the engine's
    /metrics (when scraped: ``counters_grew`` not None) answered meanwhile, its token counters
    grown or not."""
    run = Run(canary_interval=5.0, canary_timeout=2.0, failures=1,
              engine_metrics=counters_grew is not None)
    run.engine_name = "vllm"
    run.serving = ServingStats("vllm")

    def during() -> None:
        run.serving.feed_chunk(VLLM_STATS.encode())
        if w.scraper is not None:
            w.scraper.answered_m = time.monotonic()
            if counters_grew:
                w.scraper.moved_m = w.scraper.answered_m

    w = watch(run, [ProbeResult(None, "no answer within 2 s")], during=during)
    if w.scraper is not None:
        w.scraper.next_m = float("inf")  # no network: the scrape's outcome is set above
    return run, w


def test_vllm_s_averaged_stats_line_after_a_hang_is_not_progress_when_its_counters_say_so(
) -> None:
    # the real vLLM canary test's timeline: this line reset the row and cost one more canary
    run, w = vllm_watch(counters_grew=False)
    out = anyio.run(ticks, w, 0.0, 5.0, 5.1)
    stall = out[2]
    assert stall is not None and stall.cause == Cause.SERVING_STALL
    assert run.serving.progress_m is not None  # the log line still counts as progress elsewhere


def test_vllm_s_counters_that_grew_while_the_canary_waited_are_progress() -> None:
    _, w = vllm_watch(counters_grew=True)
    assert anyio.run(ticks, w, 0.0, 5.0, 5.1) == [None] * 3
    assert w.failed_in_row == 0


def test_without_its_counters_vllm_s_stats_line_is_taken_as_progress() -> None:
    # the log alone cannot tell tokens before the hang from tokens during the canary: no stall
    # on it (the next canaries decide, one later)
    _, w = vllm_watch(counters_grew=None)
    assert w.scraper is None
    assert anyio.run(ticks, w, 0.0, 5.0, 5.1) == [None] * 3
    assert w.failed_in_row == 0


def test_a_healthy_canary_and_the_off_switch() -> None:
    run = Run(canary_interval=1.0, canary_timeout=2.0)
    w = watch(run, [ProbeResult(200)])
    assert anyio.run(ticks, w, 0.0, 1.0, 1.1) == [None] * 3
    assert run.serving.canary["ok"] is True and run.serving.progress_m is not None
    off = watch(Run(canary_interval=0.0), [])
    assert anyio.run(ticks, off, 0.0, 1e6) == [None, None]
    assert off.asked == []  # type: ignore[attr-defined]


def test_gpu_busy_at_low_power_with_requests_and_no_tokens_is_suspect_at_half_the_window(
) -> None:
    run = Run(canary_interval=0.0)
    run.serving.feed_chunk(DECODE.encode())
    run.serving.progress_m = 0.0  # the last tokens moved at t = 0
    w = watch(run, [ProbeResult(None, "no answer within 5 s")])
    run.activity.gpu_util, run.activity.gpu_power_frac = 100.0, 0.12

    async def go() -> Any:
        w.since = 0.0
        assert await w.check(1.0) is None      # spinning starts
        assert await w.check(5.9) is None      # quiet < half the window (10 s)
        return await w.check(6.5)              # spinning 5.5 s, quiet 6.5 s

    stall = anyio.run(go)
    assert stall is not None and stall.cause == Cause.SERVING_STALL
    gpu = [e for e in stall.evidence if e.startswith("GPU ")]
    assert gpu and gpu[0].startswith("GPU 100% busy at 12% of its power limit for ")
    assert "with requests in flight and no tokens" in gpu[0]
    row = run.serving.rows()[-1]
    assert (row["gpu_util"], row["gpu_power_frac"]) == (100, 0.12)


def test_gpu_busy_at_full_power_is_not_the_sign() -> None:
    run = Run(canary_interval=0.0)
    run.serving.feed_chunk(DECODE.encode())
    run.serving.progress_m = 0.0
    w = watch(run, [])
    run.activity.gpu_util, run.activity.gpu_power_frac = 100.0, 0.85

    async def go() -> Any:
        w.since = 0.0
        return [await w.check(t) for t in (1.0, 6.5, 9.9)]

    assert anyio.run(go) == [None, None, None] and w.asked == []  # type: ignore[attr-defined]


@pytest.mark.parametrize(("text", "message"), [
    ("canary_interval = -1", "must be 0 (off) or a number of seconds from 1 to 86400, got -1"),
    ("canary_interval = 0.5", "from 1 to 86400, got 0.5"),
    ("canary_interval = nan", "got nan"),
    ("canary_timeout = 0", "must be a number of seconds from 0.01 to 3600, got 0"),
    ("canary_timeout = inf", "got inf"),
    ("engine_metrics = 1", "must be true or false, got 1"),
])
def test_bad_canary_keys_are_refused_at_their_line(text: str, message: str) -> None:
    raw = parse_text(f'[launch]\nmodel = "m"\n[health]\n{text}\n', "p.toml", "p")
    assert len(raw.errors) == 1, raw.errors
    err = raw.errors[0]
    assert message in str(err) and err.line == 4 and err.key == "health." + text.split()[0]


def test_canary_keys_and_their_defaults() -> None:
    raw = parse_text('[launch]\nmodel = "m"\n[health]\ncanary_interval = 0\ncanary_timeout = 4'
                     '\nengine_metrics = true\n', "p.toml", "p")
    assert not raw.errors and raw.health == {"canary_interval": 0.0, "canary_timeout": 4.0,
                                             "engine_metrics": True}
    h = HealthSpec()
    assert (h.canary_interval, h.canary_timeout, h.engine_metrics) == (60.0, 30.0, False)


def test_a_canary_that_never_answers_holds_up_nothing() -> None:
    run = Run(canary_interval=1.0, canary_timeout=0.2, failures=1)
    w = ServingWatch(run)  # type: ignore[arg-type]

    async def hung(timeout: float) -> tuple[str, ProbeResult]:
        await anyio.sleep(30)  # ignores its timeout: the thread is left behind
        raise AssertionError("unreachable")

    w.canary = hung  # type: ignore[method-assign]

    async def go() -> Any:
        assert await w.check(0.0) is None
        t0 = time.monotonic()
        assert await w.check(1.0) is None and w.pending is not None  # started, not awaited
        assert await w.check(1.1) is None
        assert time.monotonic() - t0 < 0.5
        with anyio.fail_after(5):
            while True:
                stall = await w.check(2.0)
                if stall is not None:
                    return stall
                await anyio.sleep(0.05)

    stall = anyio.run(go)
    assert stall.evidence[1].startswith("canary GET /health_generate at ")
    assert stall.evidence[1].endswith(" -> no answer within 0.2 s")
