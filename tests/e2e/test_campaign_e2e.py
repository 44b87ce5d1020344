"""End-to-end: campaign plans run by the daemon. The demo's campaign (the seed's plan) from the
baseline to EAGLE-3 with its branches; a campaign whose daemon is SIGKILLed mid-way resumes and
completes; an operator's switch pauses it; an experiment past its timeout takes its failure
branch; ``campaign stop`` ends a running campaign with its report; the baseline is measured again
when it is too old or an experiment ran under other GPU conditions, and drift is flagged."""

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
    # EAGLE-3 ran last but missed its criterion: the campaign ends on the best that passed
    assert (r["serving"]["profile"], r["serving"]["changes"]) == (
        "demo-fewchan-fusion", ["nccl_fewchan"]), r["serving"]
    assert r["finish"] == {"experiment": "nccl_alone", "run_id": r["serving"]["run_id"],
                           "relaunched": True, "ok": True}, r["finish"]
    assert r["serving"]["run_id"] > eagle["run_id"]
    # measured already: the relaunch serves without running its benchmark again
    assert d.run()["id"] == r["serving"]["run_id"] and d.run()["benchmark"] is None
    assert not [e for e in d.events(r["serving"]["run_id"]) if e["kind"] == "benchmark"]
    assert any("relaunching experiment nccl_alone" in line for line in r["log"]), r["log"]
    assert "Serving at the end: demo-fewchan-fusion + nccl_fewchan" in r["report"]
    assert d.run()["status"] == "ready" and d.run()["profile"] == "demo-fewchan-fusion"
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
    (workdir / "profiles" / "campaigns").mkdir(exist_ok=True)
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


def plan_file(workdir: Path, name: str, text: str) -> None:
    folder = workdir / "profiles" / "campaigns"
    folder.mkdir(exist_ok=True)
    (folder / f"{name}.toml").write_text(text)


def hanging_plan(workdir: Path, timeout: str = "") -> None:
    """base (benchmarked), and an experiment whose server hangs in weight loading (the silence
    watchdog set far off, so only the campaign's own limits end it)."""
    port = free_port()
    write_profile(workdir, "base", emulator_profile(
        "base", port=port, extra=BENCH, env={"SGLANG_EMULATOR_TOKENS_PER_S": "60"}))
    write_profile(workdir, "stuck", emulator_profile(
        "stuck", port=port, extends="base", fault="hang:weight_loading", silence=120))
    plan_file(workdir, "hang", 'baseline = "base"\ntime_budget = 300\n'
              f'[[experiments]]\nname = "stuck"\nprofile = "stuck"\non_failure = "two"\n{timeout}'
              '[[experiments]]\nname = "two"\nprofile = "base"\n')


def test_an_experiment_past_its_timeout_fails_and_takes_its_failure_branch(
        workdir: Path, make_daemon) -> None:
    hanging_plan(workdir, timeout="timeout = 3\n")
    d = make_daemon()
    res = d.ctl("campaign", "run", "hang", "--wait", "--timeout", "200", "--json", timeout=220)
    assert res.returncode == 0, res.stdout + res.stderr
    r = json.loads(res.stdout)
    assert r["status"] == "completed", r["note"]
    stuck, two = r["experiments"]
    assert (stuck["name"], stuck["ok"]) == ("stuck", False)
    assert stuck["verdict"] == "timed_out in the experiment", stuck
    assert stuck["evidence"]["lines"] == ["not settled within its timeout (3 s)"]
    assert stuck["branch"] == {"taken": "on_failure", "next": "two", "why": "on_failure = two"}
    assert two["verdict"] == "ready" and r["serving"]["profile"] == "base"
    assert "| 1 | stuck | stuck | timed_out in the experiment |" in r["report"]


def test_campaign_stop_ends_a_running_campaign_with_its_report(workdir: Path,
                                                               make_daemon) -> None:
    hanging_plan(workdir)
    d = make_daemon()
    d.ctl_json("campaign", "run", "hang")
    wait_until(lambda: status(d)["current"] == "stuck"
               and (d.status()["run"] or {}).get("profile") == "stuck", 90,
               "the hanging experiment launched")
    res = d.ctl("campaign", "stop", check=True)
    assert res.stdout.startswith("# Campaign hang: stopped"), res.stdout
    s = status(d)
    assert s["status"] == "stopped" and s["note"] == "stopped by request", s
    assert s["experiments"] == [] and s["baseline"]["benchmark"]["tokens_per_s"] > 0
    assert Path(s["files"]["markdown"]).read_text() == s["report"]
    assert json.loads(Path(s["files"]["json"]).read_text())["status"] == "stopped"
    again = d.ctl("campaign", "stop")
    assert again.returncode == 1 and "no campaign is running or paused" in again.stderr
    assert d.ctl_json("campaign", "run", "hang")["id"] == 2   # a stopped one starts anew


def command_bench(command: str) -> str:
    """A command benchmark: the rate is whatever the command prints (2 repetitions)."""
    return (f'\n[benchmark]\nkind = "command"\ncommand = ["sh", "-c", {json.dumps(command)}]\n'
            'regex = "(?P<tokens_per_s>[0-9.]+)"\ntimeout = 120\nrepeat = 2\n')


def test_the_baseline_is_measured_again_under_other_gpu_conditions_and_drift_is_flagged(
        workdir: Path, make_daemon) -> None:
    rate, go = workdir / "rate", workdir / "go"
    rate.write_text("60\n")
    port = free_port()
    write_profile(workdir, "base", emulator_profile(
        "base", port=port, extra=command_bench(f"cat {rate}")))
    # The experiment's benchmark waits for the test: the GPU throttles and the machine slows
    # down (the rate it prints halves) while it runs, not before.
    write_profile(workdir, "exp", emulator_profile("exp", port=port, extends="base", extra=(
        command_bench(f"while [ ! -e {go} ]; do sleep 0.1; done; cat {rate}"))))
    plan_file(workdir, "drift", 'baseline = "base"\nbaseline_max_age = 300\n'
              '[[experiments]]\nname = "one"\nprofile = "exp"\n')
    d = make_daemon()
    d.ctl_json("campaign", "run", "drift")
    wait_until(lambda: (d.status()["run"] or {}).get("profile") == "exp"
               and d.status()["run"]["status"] == "ready", 90, "the experiment ready")
    d.ctl("gpus", "--fault", "throttle:0:hw_thermal", check=True)
    rate.write_text("30\n")
    go.touch()
    done = wait_until(lambda: (s := status(d))["status"] != "running" and s, 120,
                      "the campaign's end")
    assert done["status"] == "completed", done["note"]
    row = done["experiments"][0]
    assert row["benchmark"]["gpu"]["throttle_reasons"] == ["hw_thermal"]
    base_now = done["baseline"]
    assert base_now["remeasured"] == ("one ran under other GPU conditions: throttle reasons "
                                      "differ (none then hw_thermal)")
    assert base_now["benchmark"]["gpu"]["throttle_reasons"] == ["hw_thermal"]
    earlier = base_now["previous"][0]
    assert earlier["tokens_per_s"] == 60 and earlier["gpu"]["throttle_reasons"] == []
    assert base_now["benchmark"]["tokens_per_s"] == 30
    assert base_now["drift"]["drifted"] is True
    assert base_now["drift"]["text"].startswith("DRIFT: 60.0 -> 30.0 tok/s, beyond the noise")
    # compared with the baseline measured under the same conditions: no difference
    assert row["benchmark"]["baseline_run"] == base_now["run_id"]
    assert row["benchmark"]["vs_baseline"] == 1.0 and row["ok"]
    assert "re-measured because one ran under other GPU conditions" in done["report"]
    assert "re-measuring the baseline: one ran under other GPU" in "\n".join(done["log"])


def test_a_baseline_older_than_its_max_age_is_measured_again(workdir: Path,
                                                             make_daemon) -> None:
    small_plan(workdir)   # experiment one takes seconds: the baseline is older before two
    plan_file(workdir, "small", 'baseline = "base"\nbaseline_max_age = 1\n'
              '[[experiments]]\nname = "one"\nprofile = "exp"\n'
              '[[experiments]]\nname = "two"\nprofile = "exp"\n')
    d = make_daemon()
    res = d.ctl("campaign", "run", "small", "--wait", "--timeout", "150", "--json", timeout=170)
    assert res.returncode == 0, res.stdout + res.stderr
    r = json.loads(res.stdout)
    base = r["baseline"]
    assert "remeasured" in base, r["log"]
    assert base["remeasured"].endswith(" s old (baseline_max_age = 1 s)"), base["remeasured"]
    assert base["run_id"] > 1 and base["previous"][0]["run_id"] == 1
    assert r["experiments"][1]["benchmark"]["baseline_run"] == base["run_id"]
    assert "re-measuring the baseline: it was " in "\n".join(r["log"])
