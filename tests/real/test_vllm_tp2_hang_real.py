"""Real vLLM (CPU build) with tensor parallel 2: one worker stopped while a request is in
flight. On CPU a collective hang is idle, not spinning: the other rank and the engine core
block at 0 % CPU. The daemon calls it hung in serving, and its verdict says where each rank
is: the stopped one, and the frame the other one waits in."""

from __future__ import annotations

import os
import signal
import time
from pathlib import Path

import pytest
from e2e.harness import free_port, wait_until

from .conftest import vllm_profile, write_profile
from .test_vllm_real import save_log, switch_wait
from .test_vllm_serving_real import NO_RESTART, STATS_ENV, _request, _titles

pytestmark = pytest.mark.timeout(900)

SILENCE = 10.0
TP2_ENV = {"VLLM_CPU_OMP_THREADS_BIND": "0|1", **STATS_ENV}


def test_vllm_tp2_worker_stopped_is_hung_in_serving_with_both_ranks_named(
        workdir: Path, make_daemon, vllm_python, tiny_model) -> None:
    port = free_port()
    write_profile(workdir, "tp2", vllm_profile(
        vllm_python, tiny_model, port, util=0.15, args={"tensor-parallel-size": 2},
        env=TP2_ENV, silence=SILENCE, extra=NO_RESTART))
    d = make_daemon()
    code, res = switch_wait(d, "tp2")
    assert code == 0, res
    titles = _titles(d.run()["pid"])
    workers = {pid: t for pid, t in titles.items() if "Worker_TP" in t}
    assert len(workers) == 2, titles
    stopped = next(pid for pid, t in workers.items() if "Worker_TP1" in t)

    conn, resp = _request(port, tiny_model, 220, stream=True)
    assert resp.read(6) == b"data: "  # generating
    os.kill(stopped, signal.SIGSTOP)
    t_stop = time.time()
    try:
        run = d.wait_run(lambda r: r["status"] != "ready", SILENCE + 60, "the serving verdict")
    finally:
        try:
            os.kill(stopped, signal.SIGCONT)
        except OSError:
            pass
        conn.close()
    save_log(d, "vllm-tp2-worker-sigstop")
    assert (run["status"], run["phase"]) == ("hung", "serving"), run["evidence"]
    where = next((e for e in run["evidence"] if e.startswith("where each process is:")), "")
    assert "Worker_TP1 stopped" in where, run["evidence"]
    # the rank that still runs is named with the frame it waits in
    assert "Worker_TP0 in " in where, where
    assert any(e.startswith("stack dumps:") for e in run["evidence"]), run["evidence"]
    took = d.verdict_after(run, t_stop)
    assert took <= SILENCE + 30, took
    wait_until(lambda: not _titles(d.run()["pid"] or 0), 60, "every vLLM process to be gone")
