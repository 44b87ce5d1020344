"""A benchmark carries the serving metrics the engine reported while it ran."""

from __future__ import annotations

import pytest

from supervisor.benchmark import with_serving
from supervisor.engines import serving_stats
from supervisor.engines.serving_stats import ServingStats

SPEC = ("[2026-01-01 10:00:00 TP0] Decode batch, #running-req: {r}, #token: 90, token usage: "
        "0.01, accept len: {a}, accept rate: 0.50, cuda graph: True, gen throughput (token/s): "
        "{g}, #queue-req: 0, \n")


def test_benchmark_gets_the_samples_of_its_span(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(serving_stats, "SCAN_GAP", 0.0)
    s = ServingStats("sglang")
    for t, (r, a, g) in zip((99.0, 101.0, 102.0, 104.0, 120.0),
                            ((0, 1.0, 0.0), (4, 2.0, 100.0), (4, 3.0, 300.0), (4, 2.5, 200.0),
                             (1, 9.0, 9.0))):
        s.feed_chunk(SPEC.format(r=r, a=a, g=g).encode())
        s.sample(t, 90.0, 0.7)
    out = with_serving({"started": 100.0, "duration_s": 3.0, "tokens_per_s": 50.0}, s)
    got = out["serving"]
    assert got["samples"] == 3 and got["source"] == "log"  # 101, 102, 104 (1.5 s slack)
    assert got["accept_len"] == {"mean": 2.5, "max": 3}
    assert got["gen_throughput"] == {"mean": 200, "max": 300}
    assert got["gpu_power_frac"] == {"mean": 0.7, "max": 0.7} and out["tokens_per_s"] == 50.0
    assert with_serving({"started": 200.0, "duration_s": 1.0}, s)["serving"] is None
    assert "serving" not in with_serving({"started": 1.0}, None)
    assert "serving" not in with_serving({"complete": False, "error": "x"}, s)
