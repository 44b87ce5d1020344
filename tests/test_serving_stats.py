"""Serving metrics from real engine lines (tests/fixtures), the bounded series, the throttle."""

from __future__ import annotations

import math
import time

import pytest

from supervisor.engines import serving_stats
from supervisor.engines.base import CANARY_QUERY
from supervisor.engines.serving_stats import Ring, ServingStats
from supervisor.watchdogs.serving import describe, served_model

SG_PREFILL_05 = ("[2026-02-04 11:30:33] Prefill batch, #new-seq: 2, #new-token: 6, "
                 "#cached-token: 18, token usage: 0.04, #running-req: 3, #queue-req: 1, "
                 "input throughput (token/s): 812.50, cuda graph: False")
SG_DECODE_SPEC = ("[2025-10-22 10:27:57 TP0] Decode batch. #running-req: 1, #token: 108, "
                  "token usage: 0.00, accept len: 2.17, accept rate: 0.54, cuda graph: True, "
                  "gen throughput (token/s): 178.86, #queue-req: 0, ")
SG_PREFILL_OLD = ("[2025-02-09 20:33:56 TP0] Prefill batch. #new-seq: 1, #new-token: 5, "
                  "#cached-token: 1, cache hit rate: 7.69%, token usage: 0.00, #running-req: 0,"
                  " #queue-req: 0")
VL_V1 = ("(APIServer pid=3646) INFO 05-19 10:13:11 [loggers.py:271] Engine 000: Avg prompt "
         "throughput: 12068.8 tokens/s, Avg generation throughput: 734.9 tokens/s, Running: 18 "
         "reqs, Waiting: 33 reqs, GPU KV cache usage: 87.7%, Prefix cache hit rate: 12.5%")
VL_V0 = ("INFO 05-14 17:45:10 [metrics.py:486] Avg prompt throughput: 2.4 tokens/s, Avg "
         "generation throughput: 0.2 tokens/s, Running: 1 reqs, Swapped: 0 reqs, Pending: 2 "
         "reqs, GPU KV cache usage: 0.5%, CPU KV cache usage: 0.0%.")
VL_IDLE_STALE = ("(APIServer pid=9) INFO 12-01 10:00:01 [loggers.py:271] Engine 000: Avg prompt "
                 "throughput: 0.0 tokens/s, Avg generation throughput: 0.0 tokens/s, Running: 1"
                 " reqs, Waiting: 0 reqs, CPU KV cache usage: 0.4%")
VL_SPEC = ("(APIServer pid=1) INFO 05-07 04:56:17 [metrics.py:101] SpecDecoding metrics: Mean "
           "acceptance length: 2.63, Accepted throughput: 76.80 tokens/s, Drafted throughput: "
           "235.49 tokens/s, Per-position acceptance rate: 0.726, 0.467, Avg Draft acceptance "
           "rate: 32.6%")
VL_SHM = ("(EngineCore_DP0 pid=7) WARNING 12-01 10:01:00 [shm_broadcast.py:466] No available "
          "shared memory broadcast block found in 60 seconds. This typically happens when some "
          "processes are hanging or doing some time-consuming work")


@pytest.fixture(autouse=True)
def no_throttle(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serving_stats, "SCAN_GAP", 0.0)


def fed(engine: str, *lines: str) -> ServingStats:
    s = ServingStats(engine)
    s.feed_chunk("".join(line + "\n" for line in lines).encode())
    return s


def test_sglang_newest_line_wins_and_prefill_counts_the_new_requests() -> None:
    s = fed("sglang", SG_DECODE_SPEC, "some other line", SG_PREFILL_05)
    # the prefill line is the newest: 3 running before it + 2 new ones
    assert (s.values["running"], s.values["queued"]) == (5, 1)
    assert s.values["prompt_throughput"] == 812.5 and s.values["token_usage"] == 0.04
    assert s.values["cache_hit_rate"] == pytest.approx(18 / 24)
    assert s.values["accept_len"] == 2.17  # older values stay until a newer line has its own
    assert s.load == 6 and s.last_line == "Prefill batch" and s.progress_m is not None
    s = fed("sglang", SG_PREFILL_05, SG_DECODE_SPEC)
    assert (s.values["running"], s.values["queued"], s.values["gen_throughput"]) == (1, 0, 178.86)
    assert s.values["accept_rate"] == 0.54 and s.values["tokens"] == 108
    assert fed("sglang", SG_PREFILL_OLD).values["cache_hit_rate"] == pytest.approx(0.0769)


def test_vllm_stats_lines_v1_v0_and_speculative() -> None:
    s = fed("vllm", VL_V1)
    assert s.values == {"prompt_throughput": 12068.8, "gen_throughput": 734.9, "running": 18,
                        "queued": 33, "token_usage": pytest.approx(0.877),
                        "cache_hit_rate": pytest.approx(0.125)}
    assert s.progress_m is not None
    preempted = VL_V1.replace("Waiting: 33 reqs,", "Waiting: 33 reqs, Preemptions: 4,")
    assert fed("vllm", preempted).values["retracted"] == 4
    v0 = fed("vllm", VL_V0)
    assert (v0.values["running"], v0.values["queued"]) == (1, 2)
    assert v0.values["token_usage"] == pytest.approx(0.005)  # the first (GPU) usage
    spec = fed("vllm", VL_V1, VL_SPEC).values
    assert spec["accept_len"] == 2.63 and spec["accept_rate"] == pytest.approx(0.326)


def test_a_stats_line_without_throughput_is_no_progress_and_hang_warnings_are_signs() -> None:
    s = fed("vllm", VL_IDLE_STALE)
    assert s.load == 1 and s.progress_m is None
    s.feed_chunk((VL_SHM + "\n").encode())
    assert s.signs == [VL_SHM] and s.progress_m is None
    s.feed_chunk((VL_V1 + "\n").encode())  # tokens moved again: the warning is over
    assert s.signs == [] and s.progress_m is not None
    assert fed("sglang", "[2025-01-01 00:00:00] Watchdog timeout "
               "(self.watchdog_timeout=300)").signs
    assert not fed("sglang", "Health check failed. Server couldn't get a response").signs


def test_latest_is_none_before_any_line_and_load_can_be_forgotten() -> None:
    assert fed("sglang", "[2025-01-01 00:00:00] Load weight end.").latest() is None
    # an answered request is news (an engine run with --disable-log-stats prints nothing else),
    # but no load: an access line says nothing of what runs now
    s = fed("sglang", '127.0.0.1:5 - "POST /generate HTTP/1.1" 200 OK')
    latest = s.latest()
    assert latest is not None and latest["answers"]["2xx"] == 1 and s.load == 0
    assert "running" not in latest and latest["updated"] is None
    s = fed("sglang", SG_DECODE_SPEC)
    latest = s.latest()
    assert latest is not None and latest["running"] == 1 and latest["engine"] == "sglang"
    s.forget_load()
    assert s.load == 0 and s.latest()["running"] == 1  # shown, not trusted for a stall
    assert ServingStats.for_engine("command") is None


def test_series_is_bounded_and_sampled_only_when_new_values_came() -> None:
    s = ServingStats("vllm", size=3)
    for i in range(5):
        s.feed_chunk((VL_V1.replace("Running: 18", f"Running: {i}") + "\n").encode())
        assert s.sample(float(i), gpu_util=50.0)
        assert not s.sample(float(i) + 0.5), "no new line, no new row"
    rows = s.rows()
    assert [r["t"] for r in rows] == [2.0, 3.0, 4.0] and rows[-1]["running"] == 4
    assert rows[-1]["gpu_util"] == 50 and "accept_len" not in rows[-1]
    assert [r["t"] for r in s.rows(since=3.0)] == [3.0, 4.0]
    ring = Ring(2)
    for t in (1.0, 2.0, 3.0):
        ring.append((t, math.nan))
    assert len(ring) == 2 and [r[0] for r in ring.since(None)] == [2.0, 3.0]


def test_series_keeps_one_row_a_second_and_the_news_for_the_next() -> None:
    """The watch loop ticks several times a second; the series promises one row a second at
    most (an hour in SERIES_LEN rows). Values that came between two rows reach the next."""
    s = ServingStats("vllm")
    s.feed_chunk((VL_V1.replace("Running: 18", "Running: 1") + "\n").encode())
    assert s.sample(10.0)
    s.feed_chunk((VL_V1.replace("Running: 18", "Running: 2") + "\n").encode())
    assert not s.sample(10.4) and not s.sample(10.9), "within the second: no row"
    assert s.sample(11.0), "the news waited for the next row"
    assert [(r["t"], r["running"]) for r in s.rows()] == [(10.0, 1), (11.0, 2)]


def test_throttle_looks_at_the_newest_skipped_chunk_on_the_next_sample(
        monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serving_stats, "SCAN_GAP", 3600.0)
    s = ServingStats("sglang")
    s.feed_chunk((SG_PREFILL_05 + "\n").encode())      # looked at
    s.feed_chunk((SG_DECODE_SPEC + "\n").encode())     # within the gap: kept for later
    assert s.values["running"] == 5
    assert s.sample(time.time())
    assert s.values["running"] == 1 and s.last_line == "Decode batch"


def test_describe_and_served_model_name() -> None:
    assert describe({"gen_throughput": 812.04, "running": 3, "queued": 0,
                     "token_usage": 0.123}) == \
        "gen 812.0 tok/s, running 3, queued 0, KV usage 12%"
    assert describe({}) == "none"

    class P:
        model = "/models/tiny"
        args: tuple = ()
    assert served_model(P()) == "/models/tiny"
    P.args = (("served_model_name", "tiny"),)
    assert served_model(P()) == "tiny"


def _access(path: str, code: int, phrase: str, method: str = "POST") -> str:
    return f'INFO:     127.0.0.1:50{code} - "{method} {path} HTTP/1.1" {code} {phrase}\n'


def test_answers_are_counted_in_every_chunk_and_the_probes_left_out() -> None:
    """A server that refuses every request logs no batch line (hu102, a bad default sampling
    setting): the access lines' status classes are then the only sign."""
    st = ServingStats("vllm", probe_path="/health")
    assert st.latest() is None
    chunk = (_access("/v1/completions", 400, "Bad Request") * 3 +
             _access("/health", 200, "OK", "GET") * 2 + _access("/health", 503,
                                                               "Service Unavailable", "GET"))
    st.feed_chunk(chunk.encode())
    st.feed_chunk(chunk.encode())  # inside the scan throttle: still counted
    latest = st.latest()
    assert latest is not None
    assert latest["answers"] == {"2xx": 0, "4xx": 6, "5xx": 0}
    assert latest["last_refused"].endswith('"POST /v1/completions HTTP/1.1" 400 Bad Request')
    st.feed_chunk((_access("/v1/chat/completions", 200, "OK") +
                   _access("/v1/chat/completions", 500, "Internal Server Error") +
                   _access("/v1/models", 200, "OK", "GET")).encode())
    assert st.latest()["answers"] == {"2xx": 1, "4xx": 6, "5xx": 1}
    assert "/v1/chat/completions HTTP/1.1\" 500" in st.latest()["last_refused"]
    # guard: a stats line that quotes nothing like an access line counts nothing
    st.feed_chunk(b'INFO 12-07 [loggers.py:1] Avg prompt throughput: 1.0 tokens/s, "x" 400\n')
    assert st.latest()["answers"] == {"2xx": 1, "4xx": 6, "5xx": 1}


def test_polls_are_not_answers_whoever_sends_them() -> None:
    """A gateway polling the model list, the daemon's SGLang canary and /metrics scrapes are
    not requests: a server refusing every completion must not read "ok" because it answers
    polls. A POST to the same routes, or a GET of an API route, still counts."""
    st = ServingStats("sglang", probe_path="/ping")
    polls = (_access("/v1/models", 200, "OK", "GET") + _access("/health_generate", 200, "OK", "GET")
             + _access("/metrics", 200, "OK", "GET") + _access("/ping", 200, "OK", "HEAD")
             + _access("/health?verbose=1", 503, "Service Unavailable", "GET")
             + _access("/v1/models/", 200, "OK", "GET"))
    st.feed_chunk((polls + _access("/generate", 400, "Bad Request")).encode())
    assert st.latest()["answers"] == {"2xx": 0, "4xx": 1, "5xx": 0}
    assert st.latest()["last_refused"].endswith('"POST /generate HTTP/1.1" 400 Bad Request')
    # guard: what only starts like a poll's route is a request
    st.feed_chunk((_access("/v1/models_extra", 200, "OK", "GET")
                   + _access("/health", 404, "Not Found")
                   + _access("/metricsx", 500, "Internal Server Error", "GET")).encode())
    assert st.latest()["answers"] == {"2xx": 1, "4xx": 2, "5xx": 1}
    # a poll's refusal is not the newest refused request
    st.feed_chunk((_access("/v1/models", 401, "Unauthorized", "GET")).encode())
    assert st.latest()["answers"] == {"2xx": 1, "4xx": 2, "5xx": 1}
    assert "/metricsx" in st.latest()["last_refused"]


def test_a_poll_cut_by_the_pipe_after_its_opening_quote_is_still_a_poll() -> None:
    """The pipe hands the daemon reads, not lines: the read after one that ended in a poll's
    opening quote starts with `GET /health ...`; it is still no answer."""
    st = ServingStats("vllm", probe_path="/health")
    line = _access("/health", 200, "OK", "GET").encode()
    cut = line.index(b'"') + 1
    st.feed_chunk(line[:cut])
    st.feed_chunk(line[cut:] + _access("/v1/completions", 200, "OK").encode())
    assert st.latest()["answers"] == {"2xx": 1, "4xx": 0, "5xx": 0}
    # guard: a request cut the same way is counted
    line = _access("/v1/completions", 200, "OK").encode()
    st.feed_chunk(line[:cut])
    st.feed_chunk(line[cut:])
    assert st.latest()["answers"] == {"2xx": 2, "4xx": 0, "5xx": 0}


def test_the_daemons_own_vllm_canary_is_no_answer() -> None:
    """vLLM's canary is a real completion (max_tokens 1); its query string says it is the
    daemon's, so a server answering only the canary does not read as answering clients."""
    st = ServingStats("vllm", probe_path="/health")
    canary = f"/v1/completions?{CANARY_QUERY}"
    st.feed_chunk((_access(canary, 200, "OK") * 3 + _access(canary, 500, "Internal Server Error")
                   + _access("/v1/completions", 400, "Bad Request")).encode())
    assert st.latest()["answers"] == {"2xx": 0, "4xx": 1, "5xx": 0}
    assert st.latest()["last_refused"].endswith('"POST /v1/completions HTTP/1.1" 400 Bad Request')
    # cut by the pipe just after its opening quote: still the canary's
    line = _access(canary, 200, "OK").encode()
    cut = line.index(b'"') + 1
    st.feed_chunk(line[:cut])
    st.feed_chunk(line[cut:])
    assert st.latest()["answers"] == {"2xx": 0, "4xx": 1, "5xx": 0}
    # guard: a client's query, or the word elsewhere in the path, is a client's request
    st.feed_chunk((_access("/v1/completions?user=gns=canary1", 200, "OK")
                   + _access("/v1/completions?x=1", 200, "OK")
                   + _access("/gns=canary", 200, "OK")).encode())
    assert st.latest()["answers"] == {"2xx": 3, "4xx": 1, "5xx": 0}

