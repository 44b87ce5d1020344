"""End-to-end: campaign plans run by the daemon. The demo's campaign (the seed's plan) from the
baseline to EAGLE-3 with its branches; a campaign whose daemon is SIGKILLed mid-way resumes and
completes; an operator's switch pauses it."""

from __future__ import annotations

import json
import shutil
import signal
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import REPO, emulator_profile, free_port, wait_until

pytestmark = pytest.mark.e2e

BENCH = '\n[benchmark]\nkind = "chat"\nmax_tokens = 48\n'


def copy_demo(workdir: Path) -> None:
    """The demo's profiles, patches and campaigns, on a port of this test's own."""
    dest = workdir / "profiles"
    shutil.rmtree(dest)
    shutil.copytree(REPO / "profiles" / "demo", dest)
    base = dest / "demo-baseline.toml"
    base.write_text(base.read_text().replace("port = 31000", f"port = {free_port()}"))


def test_the_demo_campaign_runs_the_seeds_plan_with_its_branches(workdir: Path,
                                                                  make_daemon) -> None:
    copy_demo(workdir)
    d = make_daemon(fake_gpus=8)
    res = d.ctl("campaign", "run", "seed", "--wait", "--timeout", "400", "--json", timeout=420)
    assert res.returncode == 0, res.stdout + res.stderr
    r = json.loads(res.stdout)
    assert {"campaign", "status", "baseline", "experiments", "serving", "report"} <= set(r)
    assert (r["campaign"], r["status"]) == ("seed", "completed"), r["note"]
    assert r["baseline"]["benchmark"]["tokens_per_s"] > 50
    rows = {e["name"]: e for e in r["experiments"]}
    assert list(rows) == ["fewchan_fusion", "nccl_alone", "eagle3_fewchan"]
    fused = rows["fewchan_fusion"]
    assert fused["verdict"].startswith("hung in cuda_graph_capture"), fused
    assert fused["culprits"] == ["flashinfer_fusion"]
    assert fused["branch"] == {"taken": "on_failure", "next": "nccl_alone",
                               "why": "on_failure = nccl_alone"}
    alone = rows["nccl_alone"]
    assert alone["verdict"] == "ready" and alone["ok"] and alone["changes"] == ["nccl_fewchan"]
    assert alone["branch"]["next"] == "eagle3_fewchan"
    eagle = rows["eagle3_fewchan"]
    assert eagle["verdict"] == "ready" and not eagle["ok"]  # slower than the baseline
    assert eagle["benchmark"]["vs_baseline"] < 0.9
    for row in rows.values():
        assert {"name", "profile", "changes", "verdict", "culprits", "benchmark",
                "branch"} <= set(row)
    assert r["serving"]["profile"] == "demo-eagle3-fewchan"
    md = Path(r["files"]["markdown"]).read_text()
    assert md == r["report"] and "| 1 | fewchan_fusion |" in md
    assert json.loads(Path(r["files"]["json"]).read_text())["status"] == "completed"
    human = d.ctl("campaign", "status", check=True).stdout
    assert human.startswith("# Campaign seed: completed")


def small_plan(workdir: Path) -> None:
    port = free_port()
    write_profile(workdir, "base", emulator_profile(
        "base", port=port, extra=BENCH, env={"SGLANG_EMULATOR_TOKENS_PER_S": "60"}))
    write_profile(workdir, "exp", emulator_profile("exp", port=port, extends="base")
                  .replace('description = "test profile exp"', 'description = "exp"'))
    (workdir / "profiles" / "campaigns").mkdir()
    (workdir / "profiles" / "campaigns" / "small.toml").write_text(
        'baseline = "base"\ntime_budget = 300\n'
        '[[experiments]]\nname = "one"\nprofile = "exp"\n'
        '[[experiments]]\nname = "two"\nprofile = "base"\n')


def status(d) -> dict:
    return d.ctl_json("campaign", "status")


def test_a_campaign_resumes_after_its_daemon_is_killed(workdir: Path, make_daemon) -> None:
    small_plan(workdir)
    d = make_daemon()
    assert d.ctl_json("campaign", "run", "small")["status"] == "running"
    wait_until(lambda: status(d)["current"] == "one", 60, "the baseline measured")
    d.proc.send_signal(signal.SIGKILL)
    d.proc.wait(10)
    d.start()
    done = wait_until(lambda: (s := status(d))["status"] != "running" and s, 120,
                      "the resumed campaign's end")
    assert done["status"] == "completed", done["note"]
    assert [e["name"] for e in done["experiments"]] == ["one", "two"]
    assert any("resumed after a daemon restart at one" in line for line in done["log"])


def test_an_operator_switch_pauses_the_campaign(workdir: Path, make_daemon) -> None:
    small_plan(workdir)
    d = make_daemon()
    d.ctl_json("campaign", "run", "small")
    wait_until(lambda: (d.status()["fallback"]["request"] or {}).get("profile") == "exp", 60,
               "experiment one launched")
    d.ctl("switch", "base", check=True)
    paused = wait_until(lambda: (s := status(d))["status"] == "paused" and s, 60, "a pause")
    assert "replaced the campaign's request" in paused["note"], paused["note"]
    assert "campaign run small resumes it at one" in paused["note"]
    assert d.status()["fallback"]["request"]["profile"] == "base"  # the operator's, untouched
    unknown = d.ctl("campaign", "run", "other")
    assert unknown.returncode == 2 and "no campaign 'other'" in unknown.stderr
    res = d.ctl("campaign", "run", "small", "--wait", "--timeout", "120", "--json",
                timeout=150)
    assert res.returncode == 0, res.stdout + res.stderr
    done = json.loads(res.stdout)
    assert done["status"] == "completed" and [e["name"] for e in done["experiments"]] == [
        "one", "two"]
    assert d.ctl("campaign", "stop").returncode == 1  # nothing left to stop
