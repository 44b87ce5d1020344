"""Real SGLang serving under the real daemon, on a host without a GPU.

SGLang's own Llama module needs CUDA kernels, but its Transformers backend (``--model-impl
transformers``) runs on CPU: weights, KV pool, server, warmup request - the real startup lines
the phase tracker reads, then the scheduler's real batch lines the serving metrics come from.
Then the scheduler process is killed under load: the verdict must be a crash in serving, the
whole tree must be gone, and the daemon must outlive SGLang killing its own process group.
"""

from __future__ import annotations

import http.client
import json
import os
import signal
import threading
from pathlib import Path

import pytest
from e2e.harness import free_port

from .conftest import EventFollower, sglang_profile, write_profile
from .test_vllm_real import all_gone, group_processes, save_log, switch_wait

pytestmark = pytest.mark.timeout(900)

NO_RESTART = "\n[restart]\non_failure = \"none\"\n"
# A small KV pool (SGLang sizes it from free memory otherwise: 15 GB of host RAM here) and a
# batch line at every decode step, so a short load shows in the metrics.
SERVE_ARGS = {"device": "cpu", "model-impl": "transformers", "max-total-tokens": 4096,
              "decode-log-interval": 1}


def _complete(port: int, model: Path, max_tokens: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", "/v1/completions", body=json.dumps({
            "model": str(model), "prompt": "one two three four", "max_tokens": max_tokens,
            "ignore_eos": True}), headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        resp.read()
        return resp.status
    except (OSError, http.client.HTTPException):
        return 0  # the server died under it
    finally:
        conn.close()


def _stream(port: int, model: Path, decoding: threading.Event) -> None:
    """A long streamed completion: ``decoding`` is set once its first token has come."""
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=120)
    try:
        conn.request("POST", "/v1/completions", body=json.dumps({
            "model": str(model), "prompt": "one two", "max_tokens": 2000, "ignore_eos": True,
            "stream": True}), headers={"Content-Type": "application/json"})
        resp = conn.getresponse()
        if resp.status == 200 and resp.readline():
            decoding.set()
        resp.read()
    except (OSError, http.client.HTTPException):
        pass  # the server dies under it (a connection reset, a chunk cut): that is the point
    finally:
        conn.close()


def test_sglang_serves_on_cpu_then_its_scheduler_killed_is_a_crash_in_serving(
        workdir: Path, make_daemon, sglang_python, tiny_model) -> None:
    port = free_port()
    write_profile(workdir, "sg", sglang_profile(sglang_python, tiny_model, port,
                                                args=SERVE_ARGS) + NO_RESTART)
    d = make_daemon()
    events = EventFollower(d)
    try:
        events.subscribed(d)
        code, res = switch_wait(d, "sg")
    finally:
        events.close()
    run = d.run()
    assert code == 0 and run["status"] == "ready", (res, d.ctl("logs", "-n", "40").stdout)
    # SGLang's own startup lines drove the phases, in order (no graph capture on CPU)
    live = [p for p in events.phases() if p != "launch"]
    assert live[:2] == ["weight_loading", "kv_cache_alloc"], live
    hist = {p["phase"]: p for p in d.ctl_json("history")["runs"][-1]["phases"]}
    assert {"weight_loading", "kv_cache_alloc", "ready"} <= hist.keys(), hist
    assert "cuda_graph_capture" not in hist, hist

    # a load: the scheduler's `Decode batch` lines become the run's serving metrics
    statuses: list[int] = []
    workers = [threading.Thread(target=lambda: statuses.extend(
        _complete(port, tiny_model, 150) for _ in range(3)), daemon=True) for _ in range(3)]
    for t in workers:
        t.start()
    run = d.wait_run(lambda r: ((r["serving"] or {}).get("gen_throughput") or 0) > 0, 120,
                     "SGLang's batch lines in status.run.serving")
    s = run["serving"]
    assert s["engine"] == "sglang" and run["phase"] == "serving", s
    assert 0 <= s["token_usage"] <= 1 and s["running"] >= 1, s
    for t in workers:
        t.join(180)
    assert statuses and set(statuses) == {200}, statuses

    # the scheduler killed under load: SGLang's launcher takes its group down
    pgid = run["pid"]
    procs = group_processes(pgid)
    scheduler = [pid for pid, cmd in procs.items() if cmd.startswith("sglang::scheduler")]
    assert scheduler, procs
    decoding = threading.Event()
    threading.Thread(target=_stream, args=(port, tiny_model, decoding), daemon=True).start()
    assert decoding.wait(60), "the last request never streamed a token"
    os.kill(scheduler[0], signal.SIGKILL)
    run = d.wait_run(lambda r: r["status"] not in ("ready", "starting"), 120, "the verdict")
    save_log(d, "sglang-serving-scheduler-killed")
    assert (run["status"], run["phase"]) == ("crashed", "serving"), run
    # SGLang's launcher names the child that died and how: that line leads the evidence
    assert "crashed with exit code -9" in run["evidence"][0], run["evidence"]
    all_gone(d, pgid)
    assert d.proc.poll() is None, "the daemon died with SGLang's process group"
    assert d.ctl("status").returncode == 0
