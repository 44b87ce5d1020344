"""End-to-end: a hang that spins is still a hang. The emulator's ranks busy-wait in a
collective (CPU busy, fake GPUs 100 % at low power, no output); the daemon samples their
stacks and calls it hung, naming the frame."""

from __future__ import annotations

import json
import socket
import threading
import time
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import emulator_profile, free_port, wait_until

pytestmark = pytest.mark.e2e

SILENCE = 3.0


def test_ranks_spinning_in_graph_capture_are_hung_with_the_frame(workdir: Path,
                                                                 make_daemon) -> None:
    write_profile(workdir, "spins", emulator_profile(
        "spins", port=free_port(), fault="spin:cuda_graph_capture", silence=SILENCE))
    d = make_daemon()
    t0 = time.time()
    res = d.ctl("switch", "spins", "--wait", "--timeout", "90", "--json", timeout=120)
    assert res.returncode == 1, res.stdout + res.stderr
    v = json.loads(res.stdout)["verdict"]
    assert (v["status"], v["phase"], v["cause"]) == ("hung", "cuda_graph_capture",
                                                     "collective_hang"), v
    head = v["evidence"][0]
    assert "custom_all_reduce" in head and "sglang::scheduler_TP0" in head, head
    assert any("of its power limit" in e for e in v["evidence"]), v["evidence"]
    # startup < 2 s at this scale; then silence, with stack samples taken inside it
    took = d.verdict_after(d.run(), t0)
    assert took < 2 + SILENCE + 10, took
    assert d.run_processes() == {}


def test_ranks_spinning_while_serving_are_hung(workdir: Path, make_daemon) -> None:
    port = free_port()
    write_profile(workdir, "spins", emulator_profile(
        "spins", port=port, fault="spin:serving", silence=SILENCE))
    d = make_daemon()
    d.ctl("switch", "spins", "--wait", "--timeout", "60", check=True)

    def request() -> None:  # it never returns: the ranks spin instead of decoding
        try:
            with socket.create_connection(("127.0.0.1", port), timeout=SILENCE * 6) as s:
                body = json.dumps({"text": "hi", "sampling_params": {"max_new_tokens": 8}})
                s.sendall(f"POST /generate HTTP/1.0\r\nContent-Type: application/json\r\n"
                          f"Content-Length: {len(body)}\r\n\r\n{body}".encode())
                s.recv(100)
        except OSError:
            pass

    threading.Thread(target=request, daemon=True).start()
    run = d.wait_run(lambda r: r["status"] != "ready", 30, "the spinning server's verdict")
    assert (run["status"], run["phase"], run["cause"]) == ("hung", "serving",
                                                           "collective_hang"), run
    assert "custom_all_reduce" in run["evidence"][0]
    # the verdict is recorded first, then the run is taken down (Run.fail): status polled over
    # the socket can see "hung" while the group is still being stopped
    wait_until(lambda: d.run_processes() == {}, 15, "nothing of the hung run left")


def test_a_long_busy_capture_that_is_not_a_wait_is_not_hung(workdir: Path,
                                                            make_daemon) -> None:
    """A compile or autotune: CPU busy in one long call with no output for longer than the
    silence window. Its stacks are sampled, show no wait, and the run is left alone."""
    write_profile(workdir, "compiles", emulator_profile(
        "compiles", port=free_port(), fault="compile:cuda_graph_capture:8", silence=SILENCE,
        scale=0.01))
    d = make_daemon()
    d.ctl("switch", "compiles", check=True)
    run = d.wait_run(lambda r: r["phase"] == "cuda_graph_capture" and
                     r["activity"]["stack_samples"] >= 3, 30, "stack samples of the capture")
    assert run["status"] == "starting" and run["activity"]["stuck"] is None, run["activity"]
    final = d.wait_run(lambda r: r["status"] != "starting", 40, "the long capture to finish")
    assert final["status"] == "ready", final
