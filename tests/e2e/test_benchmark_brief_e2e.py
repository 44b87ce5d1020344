"""Benchmarks measured once a run is ready, compared per profile; the Markdown brief."""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import emulator_profile, free_port

pytestmark = pytest.mark.e2e

CHAT = '\n[benchmark]\nkind = "chat"\nmax_tokens = 120\n'  # a rate needs >= 0.5 s of decoding


def test_chat_benchmark_measured_and_compared_with_baseline(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "base", emulator_profile(
        "base", port=free_port(), env={"SGLANG_EMULATOR_TOKENS_PER_S": "200"}, extra=CHAT))
    write_profile(workdir, "spec", emulator_profile(
        "spec", port=free_port(), extends="base",
        env={"SGLANG_EMULATOR_TOKENS_PER_S": "100"}, extra=CHAT))
    d = make_daemon()
    for name in ("base", "spec"):
        d.ctl("switch", name, "--wait", "--timeout", "60", check=True)
        run = d.wait_run(lambda r: r.get("benchmark") is not None, 30, f"{name}'s benchmark")
        assert "error" not in run["benchmark"], run["benchmark"]
    hist = d.ctl_json("history")
    by = {b["profile"]: b for b in hist["benchmarks"]}
    assert 120 <= by["base"]["tokens_per_s"] <= 260, by["base"]
    assert 60 <= by["spec"]["tokens_per_s"] <= 130, by["spec"]
    assert by["spec"]["baseline"] == "base"
    assert 0.3 <= by["spec"]["vs_baseline"] <= 0.75
    assert by["base"]["ttft_ms"] > 0
    text = d.ctl("history").stdout
    assert "tok/s" in text and "ratio" in text


def test_command_benchmark_parses_numbers(workdir: Path, make_daemon) -> None:
    cmd = json.dumps([sys.executable, "-c",
                      "import os; print('throughput 123.5 tok/s on', os.environ['BENCH_URL'])"])
    extra = f'\n[benchmark]\nkind = "command"\ncommand = {cmd}\nregex = "throughput (?P<tokens_per_s>[0-9.]+)"\n'
    write_profile(workdir, "cmd", emulator_profile("cmd", port=free_port(), extra=extra))
    d = make_daemon()
    d.ctl("switch", "cmd", "--wait", "--timeout", "60", check=True)
    run = d.wait_run(lambda r: r.get("benchmark") is not None, 30, "the command benchmark")
    assert run["benchmark"]["tokens_per_s"] == 123.5


def test_brief_names_verdict_last_good_and_open_items(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    write_profile(workdir, "broken", emulator_profile(
        "broken", port=free_port(), fault="crash:cuda_graph_capture:cuda_oom"))
    d = make_daemon()
    d.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
    d.ctl("switch", "broken", "--wait", "--timeout", "60")
    d.ctl("checklist", "add", "retry with mem-fraction-static 0.8", check=True)
    md = d.ctl("brief", "--since", "1h").stdout
    assert md.startswith("# Handoff")
    assert "broken" in md and "cuda_oom" in md and "crashed" in md
    assert "Last known good: **good**" in md
    assert "retry with mem-fraction-static 0.8" in md
    assert "## Suggested next steps" in md and "mem-fraction-static" in md
    as_json = d.ctl_json("brief")
    assert as_json["markdown"].startswith("# Handoff")


def test_switch_no_benchmark_leaves_the_profiles_benchmark_out_of_that_launch(
        workdir: Path, make_daemon) -> None:
    """`switch --no-benchmark` serves without the profile's [benchmark] (a server already
    measured, put back to serve); a plain switch of the same profile measures again."""
    write_profile(workdir, "base", emulator_profile(
        "base", port=free_port(), env={"SGLANG_EMULATOR_TOKENS_PER_S": "200"}, extra=CHAT))
    d = make_daemon()
    d.ctl("switch", "base", "--wait", "--timeout", "60", check=True)
    measured = d.wait_run(lambda r: r.get("benchmark") is not None, 30, "the benchmark")
    took = measured["benchmark"]["duration_s"]
    res = d.ctl("switch", "base", "--no-benchmark", "--wait", "--timeout", "60", "--json",
                check=True)
    run_id = json.loads(res.stdout)["run"]["id"]
    assert run_id != measured["id"]
    # as long as a benchmark took and more: none came for this run
    time.sleep(max(3.0, 3 * took))
    run = d.run()
    assert (run["id"], run["status"], run["benchmark"]) == (run_id, "ready", None), run
    assert not [e for e in d.events(run_id) if e["kind"] == "benchmark"]
    # guard: the same profile switched plainly is measured again
    d.ctl("switch", "base", "--wait", "--timeout", "60", check=True)
    again = d.wait_run(lambda r: r.get("benchmark") is not None, 30, "the benchmark again")
    assert again["id"] > run_id
    # a malformed flag is refused, and changes nothing
    with pytest.raises(AssertionError, match="benchmark"):
        d.request("switch", profile="base", benchmark="no")
    assert d.run()["id"] == again["id"]
