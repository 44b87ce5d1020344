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
