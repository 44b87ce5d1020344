"""Real vLLM (CPU build) under the real daemon, with the canary on an interval and its own
Prometheus /metrics scraped: the scraped running counts and token rates join the serving
metrics, canaries pass while it serves, and the model process stopped while idle (no request
in flight, so no stats line shows one) is hung in serving from the canaries alone."""

from __future__ import annotations

import os
import signal
import threading
import time
from pathlib import Path

import pytest
from e2e.harness import free_port, wait_until

from .conftest import vllm_profile, write_profile
from .test_vllm_real import save_log, switch_wait
from .test_vllm_serving_real import NO_RESTART, _health, _request, _titles

pytestmark = pytest.mark.timeout(900)

CANARY = "canary_interval = 2\ncanary_timeout = 4\nengine_metrics = true\n"


def test_vllm_metrics_scraped_and_idle_stopped_worker_caught_by_canaries(
        workdir: Path, make_daemon, vllm_python, tiny_model) -> None:
    port = free_port()
    write_profile(workdir, "canary", vllm_profile(vllm_python, tiny_model, port, silence=10,
                                                  extra=CANARY + NO_RESTART))
    d = make_daemon()
    code, res = switch_wait(d, "canary")
    assert code == 0, res
    seen: list[dict] = []

    enough = threading.Event()
    answered: list[int] = []

    def load() -> None:  # until the scraped values are seen (a short load can fall between)
        while not enough.is_set():
            conn, resp = _request(port, tiny_model, 200)
            resp.read()
            conn.close()
            answered.append(resp.status)
    workers = [threading.Thread(target=load, daemon=True) for _ in range(3)]
    for t in workers:
        t.start()
    # vLLM's own /metrics: requests running and a token rate, with no stats line asked for
    try:
        run = d.wait_run(lambda r: seen.append(r["serving"] or {}) or (
            (r["serving"] or {}).get("source") == "log+metrics"
            # the latest scrape answered (on 2 cores a busy CPU engine can miss one: it says so)
            and (r["serving"] or {}).get("scrape_error") is None
            and ((r["serving"] or {}).get("running") or 0) >= 1
            and ((r["serving"] or {}).get("gen_throughput") or 0) > 0), 120,
            "scraped running requests and a token rate")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; serving seen last: {seen[-3:]}") from None
    finally:
        enough.set()
    s = run["serving"]
    assert s["scrape_error"] is None and s["engine"] == "vllm"
    assert 0 <= s["token_usage"] <= 1, s
    for t in workers:
        t.join(120)
    run = d.wait_run(lambda r: (((r["serving"] or {}).get("canary") or {}).get("count") or 0)
                     >= 2, 60, "two canaries")
    c = run["serving"]["canary"]
    assert (c["request"], c["ok"], c["failures"]) == (
        "POST /v1/completions (max_tokens 1)", True, 0), c
    assert run["status"] == "ready"
    # the answers are the clients' alone: the canaries (real completions too) are left out
    assert answered and set(answered) == {200}, answered
    run = d.wait_run(lambda r: r["serving"]["answers"]["2xx"] >= len(answered), 30,
                     "the clients' answers counted")
    assert run["serving"]["answers"] == {"2xx": len(answered), "4xx": 0, "5xx": 0}, \
        (run["serving"]["answers"], len(answered), run["serving"]["canary"])

    # idle, then the model process stopped: no request in flight, no stats line shows one
    titles = _titles(d.run()["pid"])
    stopped = [pid for pid, t in titles.items() if "Worker" in t] or [
        pid for pid, t in titles.items() if "EngineCore" in t]
    assert stopped, titles
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    t_stop = time.time()
    try:
        assert _health(port) == 200
        run = d.wait_run(lambda r: r["status"] != "ready", 60, "the canaries' verdict")
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
    save_log(d, "vllm-canary-idle-worker-sigstop")
    assert (run["status"], run["phase"], run["cause"]) == ("hung", "serving", "serving_stall"), \
        run["evidence"]
    ev = run["evidence"]
    assert ev[0].startswith("3 canary generations in a row unanswered (every 2 s"), ev
    assert ev[1].startswith("canary POST /v1/completions (max_tokens 1) at "), ev
    assert any(e.startswith("GET /health -> 200") for e in ev), ev
    # up to an interval, three canaries of 4 s (each retry on the tick the last failed), the
    # ticks, the /health probe for evidence; by the daemon's clock
    decided = d.verdict_after(run, t_stop)
    assert decided <= 2 + 3 * 4 + 8, f"decided {decided:.1f} s after SIGSTOP"
    wait_until(lambda: not d.run_processes(), 60, "every vLLM process to be gone")
