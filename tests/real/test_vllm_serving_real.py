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
CANARY_S = 8  # the interval canary's timeout
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
    # A liveness canary on an interval: once the worker is stopped, vLLM logs no more stats
    # lines (they come with the engine's outputs), so only a generation can tell. (Its timeout
    # leaves room for the first burst's batches on a slow host: with 4 s, CI once saw three
    # canaries unanswered and no token for 12 s as the load began - a verdict of hung before
    # any series row, the stats line with the burst's throughput logged as the run stopped.)
    write_profile(workdir, "serve", vllm_profile(vllm_python, tiny_model, port,
                                                 silence=SILENCE, env=STATS_ENV,
                                                 extra=NO_RESTART).replace(
        "failures = 3\n", f"failures = 3\ncanary_interval = 2\ncanary_timeout = {CANARY_S}\n"))
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
    # the run must still be up, or the series below says nothing of the metrics
    after = d.run()
    assert after["status"] == "ready", (after["status"], after.get("cause"), after.get("evidence"))
    metrics = d.ctl_json("metrics")
    series = metrics["series"]
    assert any(row.get("gen_throughput", 0) > 0 and row.get("running", 0) >= 1
               for row in series), (series, metrics["serving"], after.get("activity"))

    # the worker stopped, then a request: accepted and scheduled, no token ever comes, and
    # /health still answers 200. (Stopping it mid-stream raced the stream's end on a fast
    # host: 220 tokens of this model can be done before the signal lands.)
    titles = _titles(d.run()["pid"])
    # the process that runs the model: vLLM's worker, or its engine core when that runs it
    stopped = [pid for pid, t in titles.items() if "Worker" in t] or [
        pid for pid, t in titles.items() if "EngineCore" in t]
    assert stopped, titles
    for pid in stopped:
        os.kill(pid, signal.SIGSTOP)
    t_stop = time.time()
    held: dict[str, object] = {}

    def ask() -> None:  # never answered while the worker is stopped
        try:
            held["conn"], resp = _request(port, tiny_model, 220, stream=True,
                                          timeout=SILENCE + 90)
            resp.read(6)
        except Exception:  # the connection is closed under it at the end: that is all
            pass

    threading.Thread(target=ask, daemon=True).start()
    try:
        assert _health(port) == 200
        run = d.wait_run(lambda r: r["status"] != "ready", 3 * CANARY_S + 40,
                         "the serving verdict")
    finally:
        for pid in stopped:
            try:
                os.kill(pid, signal.SIGCONT)
            except OSError:
                pass
        conn = held.get("conn")
        if isinstance(conn, http.client.HTTPConnection):
            conn.close()
    save_log(d, "vllm-serving-worker-sigstop")
    assert (run["status"], run["phase"], run["cause"]) == ("hung", "serving", "serving_stall"), \
        run["evidence"]
    ev = run["evidence"]
    assert any(e.startswith("canary POST /v1/completions (max_tokens 1)") and
               ("no answer" in e or "unanswered" in e or "timed out" in e) for e in ev), ev
    assert any(e.startswith("GET /health -> 200") for e in ev), ev
    # up to an interval, three canaries, the ticks, on a host vLLM keeps busy
    took = d.verdict_after(run, t_stop)
    assert took <= 2 + 3 * CANARY_S + 10, took
    wait_until(lambda: not d.run_processes(), 60, "every vLLM process to be gone")
