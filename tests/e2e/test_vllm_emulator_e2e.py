"""The daemon on the emulator's vLLM mode (engine = "vllm"): the phases of a real vLLM CPU-build
start, live, each with its duration, then ready (the marker lines are held to the real log in
tests/test_emulator_vllm.py)."""

from __future__ import annotations

import json
import textwrap
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import free_port

pytestmark = pytest.mark.e2e


def test_vllm_mode_walks_every_phase_to_ready(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "vemu", textwrap.dedent(f"""\
        description = "the emulator's vLLM mode"
        engine = "vllm"

        [launch]
        command = ["{{python}}", "-m", "supervisor.emulator.vllm_mode"]
        model = "/models/tiny"
        host = "127.0.0.1"
        port = {free_port()}
        env = {{ SGLANG_EMULATOR_TIME_SCALE = "0.1" }}

        [timeouts]
        silence = 5
        stop_grace = 2
        """))
    d = make_daemon()
    res = d.ctl("switch", "vemu", "--wait", "--timeout", "60", "--json")
    assert res.returncode == 0, res.stdout + res.stderr
    run = json.loads(res.stdout)["run"]
    assert (run["status"], run["phase"]) == ("ready", "ready")
    phases = [p["phase"] for p in run["phases"]]
    assert phases == ["launch", "weight_loading", "kv_cache_alloc", "warmup", "ready"], phases
    assert all(p["duration"] is not None for p in run["phases"][:4])
    # the compile warmup (kv_cache_alloc) took its 4 s at scale 0.1
    by = {p["phase"]: p["duration"] for p in run["phases"]}
    assert by["kv_cache_alloc"] >= 0.3, by
    d.ctl("stop", check=True)
    assert d.run()["status"] == "stopped"


def test_remedies_fit_the_memory_the_engine_reported_and_the_node_serves(
        workdir: Path, make_daemon) -> None:
    # The engine finds 7 of 10 GiB free and refuses 0.95 at worker init (as real vLLM did,
    # tests/fixtures/real-engines/r02); the remedy reads the numbers and asks for 0.68.
    write_profile(workdir, "greedy", textwrap.dedent(f"""\
        description = "vLLM asking for more memory than is free"
        engine = "vllm"

        [launch]
        command = ["{{python}}", "-m", "supervisor.emulator.vllm_mode"]
        model = "/models/tiny"
        host = "127.0.0.1"
        port = {free_port()}
        args = {{ gpu-memory-utilization = 0.95 }}
        env = {{ SGLANG_EMULATOR_TIME_SCALE = "0.1", VLLM_EMULATOR_MEMORY = "7.0/10.0" }}

        [timeouts]
        silence = 5
        stop_grace = 2

        [fallback]
        strategy = "remedies"
        remedies = ["lower_mem_fraction", "disable_cuda_graph"]
        max_attempts = 4
        """))
    d = make_daemon()
    res = d.ctl("switch", "greedy", "--wait", "--timeout", "90", "--json")
    out = json.loads(res.stdout)
    assert res.returncode == 1, out            # the requested config itself failed ...
    v = out["verdict"]
    assert (v["status"], v["phase"], v["cause"]) == ("crashed", "launch", "cuda_oom"), v
    assert "less than desired CPU memory utilization (0.95" in v["evidence"][0], v["evidence"]
    # ... and one remedy launch, at the fraction that fits, serves
    assert [a["reason"] for a in out["attempts"][1:]] == [
        "remedy lower_mem_fraction (cause cuda_oom)"], out["attempts"]
    assert out["serving"]["changes"] == ["lower_mem_fraction"], out["serving"]
    run = d.run()
    assert (run["status"], run["phase"]) == ("ready", "ready")
    cmdline = Path(f"/proc/{run['pid']}/cmdline").read_bytes().split(b"\0")
    assert cmdline[cmdline.index(b"--gpu-memory-utilization") + 1] == b"0.68", cmdline
    hist = d.ctl_json("history")["runs"]
    assert [r["status"] for r in hist[-2:]] == ["crashed", "ready"]
    d.ctl("stop", check=True)
