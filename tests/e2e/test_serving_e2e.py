"""Serving after ready, on the emulator under the real daemon: live metrics from the batch lines,
a stall (health 200, no tokens) called hung in serving, and a slow prefill that is not."""

from __future__ import annotations

import http.client
import json
import threading
import time
from pathlib import Path
from typing import Any

import pytest

from .conftest import write_profile
from .harness import emulator_profile, free_port, wait_until
from .test_ops_e2e import _scrape, _value, write_config

pytestmark = pytest.mark.e2e

SILENCE = 3.0


def _profile(workdir: Path, name: str, fault: str = "none") -> int:
    port = free_port()
    write_profile(workdir, name, emulator_profile(
        name, port=port, fault=fault, silence=SILENCE,
        env={"SGLANG_EMULATOR_TOKENS_PER_S": "200"}))
    return port


def _complete(port: int, max_tokens: int, timeout: float) -> dict[str, Any]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    try:
        conn.request("POST", "/v1/completions", body=json.dumps(
            {"model": "test/model", "prompt": "count the stars one by one",
             "max_tokens": max_tokens}), headers={"Content-Type": "application/json"})
        res = conn.getresponse()
        return json.loads(res.read())
    finally:
        conn.close()


def _in_background(port: int, max_tokens: int, timeout: float) -> threading.Event:
    """A completion on its own thread; the event is set when it has an answer."""
    done = threading.Event()

    def go() -> None:
        try:
            _complete(port, max_tokens, timeout)
            done.set()
        except OSError:
            pass  # a stalled server never answers: the request times out

    threading.Thread(target=go, daemon=True).start()
    return done


def _health(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=5)
    try:
        conn.request("GET", "/health")
        return conn.getresponse().status
    finally:
        conn.close()


def test_live_serving_metrics_under_load(workdir: Path, make_daemon) -> None:
    pytest.importorskip("prometheus_client")
    port = _profile(workdir, "serve")
    mport = free_port()
    d = make_daemon(config=write_config(workdir, f"[metrics]\nmetrics_port = {mport}\n"))
    d.ctl("switch", "serve", "--wait", "--timeout", "60", check=True)
    assert d.run()["serving"] is None, "no serving metrics before any request"
    loads = [_in_background(port, 400, 30) for _ in range(3)]
    run = d.wait_run(lambda r: (r["serving"] or {}).get("last_line") == "Decode batch", 20,
                     "decode batch lines in status.run.serving")
    s = run["serving"]
    assert run["phase"] == "serving" and run["status"] == "ready"
    assert s["engine"] == "sglang" and s["source"] == "log"
    assert 1 <= s["running"] <= 3 and s["queued"] == 0
    assert s["gen_throughput"] > 0 and s["last_progress"] > time.time() - 5
    assert 0 <= s["token_usage"] < 1 and s["tokens"] > 0

    # the series: one row a second while stats lines come
    m = wait_until(lambda: (lambda r: r if len(r["series"]) >= 2 else None)(
        d.ctl_json("metrics")), 10, "two samples in metrics --json")
    assert (m["run_id"], m["profile"], m["engine"]) == (run["id"], "serve", "sglang")
    row = m["series"][-1]
    assert row["t"] <= time.time() and row["running"] >= 1 and row["gen_throughput"] > 0
    assert [r["t"] for r in m["series"]] == sorted(r["t"] for r in m["series"])
    newest = d.ctl_json("metrics", "--since", "1s")["series"]
    assert len(newest) < len(d.ctl_json("metrics")["series"]) or len(newest) <= 2
    human = d.ctl("metrics", check=True).stdout
    assert human.startswith(f"run #{run['id']} serve (sglang, ready)\nnow:  gen ")
    assert "gen tok/s" in human and "running" in human
    assert "serving:  gen " in d.ctl("status", check=True).stdout
    bad = d.ctl("metrics", "--since", "yesterday-ish")
    assert bad.returncode == 2 and "--since 'yesterday-ish'" in bad.stderr

    # Prometheus, labelled by engine
    scraped = wait_until(lambda: (lambda x: x if _value(
        x, "gns_serving_running_requests", engine="sglang") else None)(_scrape(mport)), 10,
        "serving gauges on /metrics")
    assert _value(scraped, "gns_serving_gen_throughput_tokens_per_second", engine="sglang",
                  profile="serve") > 0
    assert _value(scraped, "gns_serving_last_progress_timestamp_seconds",
                  engine="sglang") > time.time() - 30
    for done in loads:
        assert done.wait(30), "the completions finish"
    assert d.run()["status"] == "ready"


def test_stall_is_hung_in_serving_while_health_answers(workdir: Path, make_daemon) -> None:
    port = _profile(workdir, "stall", fault="stall")
    d = make_daemon()
    d.ctl("switch", "stall", "--wait", "--timeout", "60", check=True)
    _in_background(port, 50, 60)
    # A wait for an event, generous for a loaded CI host (a full-suite run once took >10 s).
    run = d.wait_run(lambda r: (r["serving"] or {}).get("last_line") == "Prefill batch", 30,
                     "the request's prefill line")
    t0 = time.time()
    assert _health(port) == 200, "/health answers while nothing is generated"
    assert run["status"] == "ready"
    run = d.wait_run(lambda r: r["status"] != "ready", SILENCE + 15, "the stall verdict")
    took = d.verdict_after(run, t0)
    assert (run["status"], run["phase"], run["cause"]) == ("hung", "serving", "serving_stall")
    ev = run["evidence"]
    assert ev[0].startswith("no tokens generated for") and "1 requests running" in ev[0]
    assert ev[1] == "canary GET /health_generate -> no answer within 5 s"
    assert ev[2].startswith("GET /health -> 200")
    assert any(e.startswith("last serving metrics: ") for e in ev)
    # window + canary timeout + the /health probe for evidence + a tick
    assert took < SILENCE + 5 + 1 + 3, took


def test_slow_prefill_that_progresses_is_not_a_stall(workdir: Path, make_daemon) -> None:
    prefill_s = 7
    port = _profile(workdir, "slowpf", fault=f"slow_prefill:{prefill_s}")
    d = make_daemon()
    d.ctl("switch", "slowpf", "--wait", "--timeout", "60", check=True)
    t0 = time.monotonic()
    done = _in_background(port, 20, 60)
    d.wait_run(lambda r: (r["serving"] or {}).get("last_line") == "Prefill batch", 10,
               "prefill chunks")
    # The prefill outlasts the stall window by far; its chunks keep coming.
    assert wait_until(done.is_set, prefill_s + 10, "the slow request to finish")
    assert time.monotonic() - t0 >= prefill_s > 2 * SILENCE
    run = d.run()
    assert (run["status"], run["phase"]) == ("ready", "serving"), run["evidence"]
    assert run["serving"]["running"] >= 1 and run["serving"]["last_progress"] > time.time() - 5


def _post(port: int, path: str) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("POST", path, body=b"{}", headers={"Content-Type": "application/json"})
        res = conn.getresponse()
        res.read()
        return res.status
    finally:
        conn.close()


def test_refused_requests_are_counted_where_no_batch_line_shows_them(workdir: Path,
                                                                     make_daemon) -> None:
    """Requests the server refuses run no batch: only the access lines show them. The
    daemon's own health probes are not counted."""
    pytest.importorskip("prometheus_client")
    port = _profile(workdir, "refuses")
    mport = free_port()
    d = make_daemon(config=write_config(workdir, f"[metrics]\nmetrics_port = {mport}\n"))
    d.ctl("switch", "refuses", "--wait", "--timeout", "60", check=True)
    assert all(_post(port, "/v1/no-such-route") == 404 for _ in range(3))
    run = d.wait_run(lambda r: ((r["serving"] or {}).get("answers") or {}).get("4xx") == 3,
                     15, "three refused requests in status.run.serving.answers")
    s = run["serving"]
    assert s["answers"] == {"2xx": 0, "4xx": 3, "5xx": 0}, s["answers"]
    assert '"POST /v1/no-such-route HTTP/1.1" 404' in s["last_refused"]
    human = d.ctl("metrics", check=True).stdout
    assert "answers 0 ok, 3 refused (4xx)" in human, human
    assert 'last refused: ' in human and "/v1/no-such-route" in human
    # /metrics shows the run as last published (the watch loop's next tick, under a second)
    wait_until(lambda: _value(_scrape(mport), "gns_serving_answers", engine="sglang",
                              profile="refuses", status_class="4xx") == 3, 15,
               "three refused requests in gns_serving_answers")
    _complete(port, 8, 30)
    run = d.wait_run(lambda r: r["serving"]["answers"]["2xx"] == 1, 15, "the good request")
    assert run["serving"]["answers"]["4xx"] == 3
