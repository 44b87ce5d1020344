"""The canary on an interval, on the emulator under the real daemon: a stall that starts before
any request (no stats line ever shows one) is hung in serving; a healthy server passes."""

from __future__ import annotations

import http.client
import time
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import emulator_profile, free_port, wait_until
from .test_ops_e2e import _scrape, _value, write_config

pytestmark = pytest.mark.e2e

SILENCE = 3.0
CANARY = "canary_interval = 1\ncanary_timeout = 1.5\n"


def _profile(workdir: Path, name: str, fault: str = "none") -> int:
    port = free_port()
    write_profile(workdir, name, emulator_profile(name, port=port, fault=fault,
                                                  silence=SILENCE, extra=CANARY))
    return port


def _health(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/health")
        return conn.getresponse().status
    finally:
        conn.close()


def test_stall_before_any_request_is_caught_by_the_interval_canary(workdir: Path,
                                                                    make_daemon) -> None:
    port = _profile(workdir, "stall0", fault="stall")
    d = make_daemon()
    d.ctl("switch", "stall0", "--wait", "--timeout", "60", check=True)
    t0 = time.time()
    assert d.run()["serving"] is None, "no request, no stats line"
    assert _health(port) == 200
    # failures = 2: the canary at 1 s, its retry; each waits 1.5 s; then /health for evidence
    run = d.wait_run(lambda r: r["status"] != "ready", 20, "the canary's verdict")
    took = d.verdict_after(run, t0)
    assert (run["status"], run["phase"], run["cause"]) == ("hung", "ready", "serving_stall"), \
        run["evidence"]
    ev = run["evidence"]
    assert ev[0] == ("2 canary generations in a row unanswered (every 1 s, timeout 1.5 s; "
                     "failures = 2), no tokens generated in the log meanwhile"), ev
    assert ev[1].startswith("canary GET /health_generate at ")
    assert ev[1].endswith(" -> no answer within 1.5 s") and ev[2].endswith("within 1.5 s")
    assert ev[3].startswith("GET /health -> 200 (the HTTP layer answers")
    assert took < 1 + 2 * 1.5 + 1 + 4, took


def test_healthy_server_passes_its_canaries(workdir: Path, make_daemon) -> None:
    pytest.importorskip("prometheus_client")
    _profile(workdir, "fine")
    mport = free_port()
    d = make_daemon(config=write_config(workdir, f"[metrics]\nmetrics_port = {mport}\n"))
    d.ctl("switch", "fine", "--wait", "--timeout", "60", check=True)
    run = d.wait_run(lambda r: ((r["serving"] or {}).get("canary") or {}).get("count", 0) >= 3,
                     20, "three canaries")
    c = run["serving"]["canary"]
    assert (c["request"], c["ok"], c["answer"], c["failures"]) == (
        "GET /health_generate", True, "HTTP 200", 0)
    assert run["status"] == "ready" and run["cause"] is None
    human = d.ctl("metrics", check=True).stdout
    assert "\ncanary: GET /health_generate -> HTTP 200 " in human, human
    assert " sent, 0 unanswered)" in human
    scraped = wait_until(lambda: (lambda x: x if (_value(x, "gns_serving_canaries",
                                                          engine="sglang") or 0) >= 3 else None)(
        _scrape(mport)), 10, "canary gauges on /metrics")
    assert _value(scraped, "gns_serving_canaries", engine="sglang", profile="fine") >= 3
    assert _value(scraped, "gns_serving_canary_ok", engine="sglang") == 1
    assert _value(scraped, "gns_serving_canary_failures", engine="sglang") == 0


def test_engine_metrics_scraped_into_the_serving_samples(workdir: Path, make_daemon) -> None:
    from .test_serving_e2e import _in_background

    port = free_port()
    text = emulator_profile("scraped", port=port, silence=SILENCE,
                            env={"SGLANG_EMULATOR_TOKENS_PER_S": "100"},
                            extra="canary_interval = 0\nengine_metrics = true\n")
    text = text.replace("args = { tp-size = 2 }", "args = { tp-size = 2, enable-metrics = true }")
    write_profile(workdir, "scraped", text)
    d = make_daemon()
    d.ctl("switch", "scraped", "--wait", "--timeout", "60", check=True)
    done = _in_background(port, 300, 30)
    run = d.wait_run(lambda r: (r["serving"] or {}).get("source") == "log+metrics"
                     and (r["serving"] or {}).get("gen_throughput", 0) > 0, 20,
                     "scraped values in status.run.serving")
    s = run["serving"]
    assert s["scraped"] > time.time() - 5 and s["scrape_error"] is None
    assert s["running"] == 1 and 20 <= s["gen_throughput"] <= 300, s
    # a row a second at most: the series may take the value a moment after status shows it
    wait_until(lambda: any(r.get("gen_throughput", 0) > 0
                           for r in d.ctl_json("metrics")["series"]), 10,
               "a token rate in the metrics series")
    assert done.wait(30), "the completion finishes"


def test_benchmark_records_the_serving_metrics_seen_meanwhile(workdir: Path,
                                                              make_daemon) -> None:
    port = free_port()
    write_profile(workdir, "benched", emulator_profile(
        "benched", port=port, silence=SILENCE, env={"SGLANG_EMULATOR_TOKENS_PER_S": "200"},
        extra='canary_interval = 0\n\n[benchmark]\nkind = "chat"\nmax_tokens = 400\n'))
    d = make_daemon()
    d.ctl("switch", "benched", "--wait", "--timeout", "60", check=True)
    run = d.wait_run(lambda r: r.get("benchmark") is not None, 30, "the benchmark")
    b = run["benchmark"]
    assert b["complete"] and b["tokens_per_s"] > 0, b
    s = b["serving"]
    assert s["samples"] >= 1 and s["source"] == "log", s
    assert s["gen_throughput"]["mean"] > 0 and s["running"]["max"] == 1
