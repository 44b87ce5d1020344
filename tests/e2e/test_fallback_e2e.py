"""End-to-end fallback: the real daemon drives isolate / remedies / chain over emulator runs.

The emulator fails on request: ``SGLANG_EMULATOR_FAULT`` items may carry conditions
(``crash:...@NAME`` applies only when ``--NAME`` is on the command line or env ``NAME`` is
set; ``@!NAME`` only when it is not), so a [[changes]] entry that sets a marker env var or a
flag can make the emulator fail, and a remedy's flag can make it succeed.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import emulator_profile, free_port, wait_until

pytestmark = pytest.mark.e2e


def _switch(d, name: str, timeout: int = 90) -> tuple[int, dict]:
    res = d.ctl("switch", name, "--wait", "--timeout", str(timeout), "--json",
                timeout=timeout + 30)
    assert res.stdout.strip(), res.stderr
    return res.returncode, json.loads(res.stdout)


def _items(d) -> list[dict]:
    return d.status()["checklist"]


def _base(workdir: Path, port: int, fault: str) -> None:
    write_profile(workdir, "base", emulator_profile("base", port=port, fault=fault))


def test_isolate_two_changes_names_the_hanging_one(workdir: Path, make_daemon) -> None:
    port = free_port()
    _base(workdir, port, "hang:cuda_graph_capture@GNS_BAD")
    write_profile(workdir, "tuned", 'extends = "base"\n' + """
[[changes]]
name = "good_env"
env = { GNS_GOOD = "1" }

[[changes]]
name = "bad_env"
env = { GNS_BAD = "1" }

[fallback]
strategy = "isolate"
max_attempts = 6
""")
    d = make_daemon()
    rc, out = _switch(d, "tuned")
    assert rc == 1, out
    assert out["ok"] is False
    v = out["verdict"]
    assert v["status"] == "hung" and v["phase"] == "cuda_graph_capture"
    assert out["culprits"] == ["bad_env"]
    assert out["serving"]["profile"] == "tuned"
    assert out["serving"]["changes"] == ["good_env"]
    att = [(a["changes"], a["status"]) for a in out["attempts"]]
    assert att == [(["good_env", "bad_env"], "hung"), (["good_env"], "stopped"),
                   (["bad_env"], "hung"), (["good_env"], "ready")], att
    hist = d.ctl_json("history")["runs"]
    assert [r["id"] for r in hist[-4:]] == [a["run_id"] for a in out["attempts"]]
    items = {i["key"]: i for i in _items(d) if i["key"]}
    rid = out["request"]
    assert items[f"req{rid}:isolate:good_env"]["status"] == "done"
    assert items[f"req{rid}:isolate:bad_env"]["status"] == "failed"
    verdict = items[f"req{rid}:isolate:verdict"]
    assert "bad_env" in verdict["title"] and verdict["evidence"]
    _only_current_run(d)
    # The handoff names the culprit, what serves now, and what is still open.
    d.ctl("checklist", "add", "report bad_env upstream", check=True)
    md = d.ctl("brief").stdout
    assert "Culprit change(s) found by isolation: **bad_env**" in md
    assert "Serving: tuned ['good_env']" in md
    assert "report bad_env upstream" in md.split("## Open checklist items")[1]
    assert "Investigate bad_env" in md


def _probes_seen(d, run_id: int) -> int:
    """How many of the daemon's health probes the run's server has logged."""
    res = d.ctl("logs", "-n", "500", "--run", str(run_id), check=True)
    return res.stdout.count('"GET /health')


def _only_current_run(d) -> None:
    """Exactly one run's processes are alive, and they are the current run's."""
    procs = d.run_processes()
    assert len(set(procs.values())) == 1, procs
    assert d.run()["pid"] in procs


def _changes(names_env: dict[str, str | None]) -> str:
    out = []
    for name, var in names_env.items():
        env = f'{{ {var} = "1" }}' if var else '{ GNS_HARMLESS = "1" }'
        out.append(f'[[changes]]\nname = "{name}"\nenv = {env}\n')
    return "\n".join(out)


def test_isolate_four_changes_finds_two_culprits(workdir: Path, make_daemon) -> None:
    # two independent culprits that fail in different ways: a crash in graph capture and an
    # NCCL crash in KV-cache allocation, each keyed on its own marker variable
    _base(workdir, free_port(),
          "crash:cuda_graph_capture:cuda_oom@GNS_BAD1,crash:kv_cache_alloc:nccl_error@GNS_BAD2")
    write_profile(workdir, "tuned", 'extends = "base"\n' + _changes(
        {"c1": None, "c2": "GNS_BAD1", "c3": None, "c4": "GNS_BAD2"}) + """
[fallback]
strategy = "isolate"
max_attempts = 10
""")
    d = make_daemon()
    rc, out = _switch(d, "tuned", timeout=120)
    assert rc == 1, out
    assert out["culprits"] == ["c2", "c4"], out["notes"]
    assert out["serving"]["changes"] == ["c1", "c3"]
    assert len(out["attempts"]) <= 10
    # every attempt a run in history, the ddmin steps visible in the checklist
    hist = {r["id"]: r for r in d.ctl_json("history", "-n", "50")["runs"]}
    assert all(a["run_id"] in hist for a in out["attempts"])
    keys = {i["key"] for i in _items(d) if i["key"]}
    rid = out["request"]
    assert f"req{rid}:isolate:c1+c2" in keys and f"req{rid}:isolate:verdict" in keys
    _only_current_run(d)


def test_remedies_fix_a_custom_allreduce_crash(workdir: Path, make_daemon) -> None:
    # custom all-reduce crashes in capture unless --disable-custom-all-reduce is given
    _base(workdir, free_port(),
          "crash:cuda_graph_capture:custom_allreduce_error@!disable-custom-all-reduce")
    write_profile(workdir, "fast", """extends = "base"
[fallback]
strategy = "remedies"
remedies = ["lower_mem_fraction", "nccl_p2p_disable", "disable_custom_all_reduce",
            "disable_cuda_graph"]
max_attempts = 5
""")
    d = make_daemon()
    rc, out = _switch(d, "fast")
    assert rc == 1, out                       # the requested config itself failed
    assert out["verdict"]["cause"] == "custom_allreduce_error"
    reasons = [a["reason"] for a in out["attempts"][1:]]
    # lower_mem_fraction does not fit the cause; the two all-reduce fixes apply, cumulatively
    assert reasons == ["remedy nccl_p2p_disable (cause custom_allreduce_error)",
                       "remedy disable_custom_all_reduce (cause custom_allreduce_error)"]
    assert out["serving"]["changes"] == ["nccl_p2p_disable", "disable_custom_all_reduce"]
    run = d.run()
    assert run["status"] == "ready"
    hist = d.ctl_json("history")["runs"]
    assert [r["status"] for r in hist[-3:]] == ["crashed", "crashed", "ready"]
    items = [i for i in _items(d) if (i["key"] or "").startswith(f"req{out['request']}:remedy")]
    assert [i["status"] for i in items] == ["failed", "done"]
    assert any("--disable-custom-all-reduce" in e for i in items for e in [i["title"]])


def test_chain_runs_when_isolation_finds_no_working_config(workdir: Path,
                                                           make_daemon) -> None:
    port = free_port()
    _base(workdir, port, "crash:weight_loading:cuda_oom")   # the parent fails as well
    write_profile(workdir, "tuned", 'extends = "base"\n' + _changes({"a": None}) + """
[fallback]
strategy = "isolate"
chain = ["safe"]
max_attempts = 4
""")
    write_profile(workdir, "safe", emulator_profile("safe", port=port))
    d = make_daemon()
    rc, out = _switch(d, "tuned")
    assert rc == 1 and out["ok"] is False and out["requested"] == "tuned"
    assert out["verdict"]["cause"] == "cuda_oom"
    assert [(a["profile"], a["changes"], a["status"]) for a in out["attempts"]] == [
        ("tuned", ["a"], "crashed"), ("tuned", [], "crashed"), ("safe", [], "ready")]
    assert out["serving"]["profile"] == "safe"
    _only_current_run(d)


def test_max_attempts_is_respected(workdir: Path, make_daemon) -> None:
    port = free_port()
    for name in ("bad1", "bad2", "bad3"):
        write_profile(workdir, name, emulator_profile(name, port=port,
                                                      fault="crash:kv_cache_alloc:nccl_error"))
    write_profile(workdir, "good", emulator_profile("good", port=port))
    write_profile(workdir, "start", emulator_profile(
        "start", port=port, fault="crash:kv_cache_alloc:nccl_error",
        extra='\n[fallback]\nstrategy = "chain"\nchain = ["bad1", "bad2", "bad3", "good"]\n'
              'max_attempts = 3\n'))
    d = make_daemon()
    rc, out = _switch(d, "start")
    assert rc == 1
    assert [a["profile"] for a in out["attempts"]] == ["start", "bad1", "bad2"]
    assert out["serving"] is None
    assert any("max_attempts (3)" in n for n in out["notes"])
    assert d.run_processes() == {}


def test_operator_switch_cancels_a_fallback_in_progress(workdir: Path, make_daemon) -> None:
    port = free_port()
    _base(workdir, port, "hang:cuda_graph_capture@GNS_BAD")
    write_profile(workdir, "tuned", 'extends = "base"\n' + _changes(
        {"a": "GNS_BAD", "b": "GNS_BAD", "c": "GNS_BAD"}) + """
[fallback]
strategy = "isolate"
max_attempts = 6
""")
    write_profile(workdir, "other", emulator_profile("other", port=free_port()))
    d = make_daemon()
    d.ctl("switch", "tuned", check=True)
    # wait until the fallback is under way (its second attempt has started)
    wait_until(lambda: len(d.status()["fallback"]["attempts"]) >= 2, 40,
               "the fallback's second attempt")
    rc, out = _switch(d, "other")
    assert rc == 0 and out["ok"] is True, out
    run = d.run()
    assert run["profile"] == "other" and run["status"] == "ready"
    _only_current_run(d)
    # The cancelled fallback launches nothing more: a leftover campaign would have stopped
    # `other` at once; three of the daemon's health probes of it later, it still serves.
    wait_until(lambda: _probes_seen(d, run["id"]) >= 3, 20, "three health probes of other")
    hist = d.ctl_json("history")["runs"]
    assert hist[-1]["id"] == run["id"] and d.run()["status"] == "ready"
    _only_current_run(d)
    old = [r for r in hist if r["profile"] == "tuned"]
    assert all(r["status"] not in ("starting", "ready") for r in old)
