"""The engines' own Prometheus /metrics: names onto serving fields, counters into rates, and a
real scrape of the emulator's page."""

from __future__ import annotations

import anyio
import pytest

from supervisor.engines import engine_metrics
from supervisor.engines.engine_metrics import Scraper, parse

SGLANG = """\
# HELP sglang:num_running_reqs The number of running requests.
# TYPE sglang:num_running_reqs gauge
sglang:num_running_reqs{model_name="qwen",engine_type="unified",tp_rank="0"} 3.0
sglang:num_queue_reqs{model_name="qwen",engine_type="unified",tp_rank="0"} 1.0
sglang:gen_throughput{model_name="qwen",engine_type="unified",tp_rank="0"} 178.86
sglang:token_usage{model_name="qwen",engine_type="unified",tp_rank="0"} 0.25
sglang:cache_hit_rate{model_name="qwen",engine_type="unified",tp_rank="0"} 0.5
sglang:spec_accept_length{model_name="qwen",engine_type="unified",tp_rank="0"} 2.17
sglang:generation_tokens_total{model_name="qwen"} 1000.0
sglang:e2e_request_latency_seconds_bucket{le="0.1",model_name="qwen"} 2.0
"""
VLLM = """\
vllm:num_requests_running{engine="0",model_name="m"} 2.0
vllm:num_requests_running{engine="1",model_name="m"} 3.0
vllm:num_requests_waiting{engine="0",model_name="m"} 4.0
vllm:kv_cache_usage_perc{engine="0",model_name="m"} 0.5
vllm:kv_cache_usage_perc{engine="1",model_name="m"} 0.25
vllm:prefix_cache_queries_total{engine="0",model_name="m"} 100.0
vllm:prefix_cache_hits_total{engine="0",model_name="m"} 20.0
vllm:generation_tokens_total{engine="0",model_name="m"} 500.0
vllm:num_preemptions_total{engine="0",model_name="m"} 1.0
vllm:gpu_cache_usage_perc{model_name="m"} NaN
"""


def test_sglang_gauges_map_onto_serving_fields() -> None:
    values, counters = parse(SGLANG)
    assert values == {"running": 3, "queued": 1, "gen_throughput": 178.86, "token_usage": 0.25,
                      "cache_hit_rate": 0.5, "accept_len": 2.17}
    assert counters == {"gen": 1000.0}


def test_vllm_label_sets_sum_counts_and_average_ratios() -> None:
    values, counters = parse(VLLM)
    assert values == {"running": 5, "queued": 4, "token_usage": 0.375}
    assert counters == {"queries": 100, "hits": 20, "gen": 500, "preempted": 1}


def test_counters_become_rates_and_growth_is_progress() -> None:
    s = Scraper("0.0.0.0", 1)
    first, c1 = parse(VLLM)
    assert s._rates(first, c1, 10.0) is False and "gen_throughput" not in first
    later = VLLM.replace("generation_tokens_total{engine=\"0\",model_name=\"m\"} 500.0",
                         "generation_tokens_total{engine=\"0\",model_name=\"m\"} 700.0")
    later = later.replace("queries_total{engine=\"0\",model_name=\"m\"} 100.0",
                          "queries_total{engine=\"0\",model_name=\"m\"} 110.0")
    later = later.replace("hits_total{engine=\"0\",model_name=\"m\"} 20.0",
                          "hits_total{engine=\"0\",model_name=\"m\"} 25.0")
    second, c2 = parse(later)
    assert s._rates(second, c2, 12.0) is True
    assert second["gen_throughput"] == 100.0 and second["cache_hit_rate"] == 0.5
    assert second["retracted"] == 1
    same, c3 = parse(later)
    assert s._rates(same, c3, 13.0) is False and same["gen_throughput"] == 0.0


def test_a_scrape_of_the_emulators_page(monkeypatch: pytest.MonkeyPatch) -> None:
    """The emulator's HTTP server (its real handler) with --enable-metrics, and one without."""
    import threading

    from supervisor.emulator import api
    from supervisor.emulator.config import parse_args

    class Emu:
        frozen = stalled = spec = False
        running_reqs, running_tokens, max_total_tokens, tokens_per_s = 2, 100, 1000, 50.0
        prompt_tokens_total, generated_tokens_total = 30, 400

        def __init__(self, flags: list[str]) -> None:
            self.args = parse_args(["--model-path", "m", *flags])

    for flags, want in ((["--enable-metrics"], True), ([], False)):
        server = api.make_server(Emu(flags), "127.0.0.1", 0)
        threading.Thread(target=server.serve_forever, daemon=True).start()
        try:
            scraper = Scraper("127.0.0.1", server.server_address[1])
            values, moved = anyio.run(scraper.scrape, 0.0, 5.0)
        finally:
            server.shutdown()
            server.server_close()
        if want:
            assert values["running"] == 2 and values["token_usage"] == 0.1
            assert values["gen_throughput"] == 100.0 and not moved and scraper.error is None
        else:
            assert values == {} and scraper.error == "GET /metrics: HTTP 404"
    assert engine_metrics.SCRAPE_GAP > 0


def test_a_scrape_that_gets_no_answer_says_so_in_words() -> None:
    """A listener that accepts and never answers: the error names the wait, not an empty
    exception text (str(TimeoutError()) is '')."""
    import socket

    with socket.socket() as listener:
        listener.bind(("127.0.0.1", 0))
        listener.listen(1)
        scraper = Scraper("127.0.0.1", listener.getsockname()[1])
        values, moved = anyio.run(scraper.scrape, 0.0, 0.2)
    assert values == {} and not moved
    assert scraper.error == "GET /metrics: no answer within 0.2 s"
