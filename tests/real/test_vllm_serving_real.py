"""Real vLLM (CPU build) serving under the real daemon: its own stats lines become the run's
serving metrics, and a worker stopped with a request in flight is hung in serving while
/health still answers 200 (the case of issue 21, seen by hand before this existed)."""

from __future__ import annotations

import http.client
import json
import os
import signal
import threading
import time
from pathlib import Path

import pytest
from e2e.harness import free_port, wait_until

from .conftest import vllm_profile, write_profile
from .test_vllm_real import save_log, switch_wait

pytestmark = pytest.mark.timeout(900)

SILENCE = 10.0
STATS_ENV = {"VLLM_LOG_STATS_INTERVAL": "1"}  # a stats line a second while it works
NO_RESTART = "\n[restart]\non_failure = \"none\"\n"


def _request(port: int, model: Path, max_tokens: int, stream: bool = False,
             timeout: float = 120) -> tuple[http.client.HTTPConnection, http.client.HTTPResponse]:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=timeout)
    conn.request("POST", "/v1/completions", body=json.dumps({
        "model": str(model), "prompt": "one two three four", "max_tokens": max_tokens,
        "ignore_eos": True, "stream": stream}), headers={"Content-Type": "application/json"})
    return conn, conn.getresponse()


def _titles(root: int) -> dict[int, str]:
    """pid -> title and command line of ``root``'s descendants. By parent, not by environment:
    vLLM names its processes with setproctitle, which writes over /proc/PID/environ."""
    parent: dict[int, int] = {}
    for name in os.listdir("/proc"):
        if name.isdigit():
            try:
                stat = Path(f"/proc/{name}/stat").read_bytes()
            except OSError:
                continue
            parent[int(name)] = int(stat.rsplit(b")", 1)[1].split()[1])
    tree, todo = set(), [root]
    while todo:
        pid = todo.pop()
        kids = [p for p, pp in parent.items() if pp == pid and p not in tree]
        tree.update(kids)
        todo += kids
    out = {}
    for pid in tree:
        try:
            out[pid] = Path(f"/proc/{pid}/comm").read_text().strip() + " " + Path(
                f"/proc/{pid}/cmdline").read_bytes().replace(b"\0", b" ").decode("utf-8",
                                                                                 "replace")
        except OSError:
            continue
    return out


def _health(port: int) -> int:
    conn = http.client.HTTPConnection("127.0.0.1", port, timeout=10)
    try:
        conn.request("GET", "/health")
        return conn.getresponse().status
    finally:
        conn.close()


def test_vllm_serving_metrics_and_stopped_worker_is_hung_in_serving(
        workdir: Path, make_daemon, vllm_python, tiny_model) -> None:
    port = free_port()
    write_profile(workdir, "serve", vllm_profile(vllm_python, tiny_model, port,
                                                 silence=SILENCE, env=STATS_ENV,
                                                 extra=NO_RESTART))
    d = make_daemon()
    code, res = switch_wait(d, "serve")
    assert code == 0, res

    # a few requests: the throughput and running counts come from vLLM's own lines
    def load() -> None:
        # Several seconds of work whatever the host's speed (650 to 2,000 tok/s seen here):
        # the stats line comes once a second and the series keeps the newest of each tick.
        for _ in range(24):
            conn, resp = _request(port, tiny_model, 200)
            resp.read()
            conn.close()
    workers = [threading.Thread(target=load, daemon=True) for _ in range(4)]
    for t in workers:
        t.start()
    run = d.wait_run(lambda r: ((r["serving"] or {}).get("gen_throughput") or 0) > 0, 120,
                     "vLLM's stats lines in status.run.serving")
    s = run["serving"]
    assert s["engine"] == "vllm" and s["last_line"] == "Avg prompt throughput"
    assert 0 <= s["token_usage"] <= 1 and run["phase"] == "serving"
    assert {"running", "queued", "prompt_throughput"} <= s.keys(), s
    for t in workers:
        t.join(120)
    series = d.ctl_json("metrics")["series"]
    assert any(row.get("gen_throughput", 0) > 0 and row.get("running", 0) >= 1
               for row in series), series

    # a streamed request in flight, then the worker stopped: no token, /health still 200
    titles = _titles(d.run()["pid"])
    # the process that runs the model: vLLM's worker, or its engine core when that runs it
    stopped = [pid for pid, t in titles.items() if "Worker" in t] or [
        pid for pid, t in titles.items() if "EngineCore" in t]
    assert stopped, titles
    conn, resp = _request(port, tiny_model, 220, stream=True)
    first = resp.read(6)  # the first event of the stream: it is generating
    assert first == b"data: ", first
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    t_stop = time.monotonic()
    try:
        assert _health(port) == 200
        run = d.wait_run(lambda r: r["status"] != "ready", SILENCE + 40, "the serving verdict")
        took = time.monotonic() - t_stop
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
        conn.close()
    save_log(d, "vllm-serving-worker-sigstop")
    assert (run["status"], run["phase"], run["cause"]) == ("hung", "serving", "serving_stall"), \
        run["evidence"]
    ev = run["evidence"]
    assert ev[0].startswith("no tokens generated for"), ev
    assert ev[1].startswith("canary POST /v1/completions (max_tokens 1) -> no answer"), ev
    assert ev[2].startswith("GET /health -> 200"), ev
    # one stats line after the stop (the last step's), the window, the canary, the evidence
    assert took <= 1 + SILENCE + 5 + 5 + 3, took
    wait_until(lambda: not d.run_processes(), 60, "every vLLM process to be gone")
