"""Campaign plans on a launch group, end to end: a real etcd and three real daemons on one
machine as nodes n0, n1, n2. The campaign runs on n1 (not rank 0): every step launches on all
ranks through etcd, a step's outcome is the group's, its benchmark is rank 0's."""

from __future__ import annotations

import json
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor

import pytest

from tests.etcd_server import etcd_binary

from .harness import emulator_profile, free_port, wait_until
from .test_group_e2e import NODES, Group, running_group

pytestmark = pytest.mark.e2e
needs_etcd = pytest.mark.skipif(etcd_binary() is None, reason="etcd not installed "
                                "(scripts/ensure-test-tools.sh installs etcd-server as root)")

BENCH = '\n[benchmark]\nkind = "chat"\nmax_tokens = 48\n'
RATE = {"SGLANG_EMULATOR_TOKENS_PER_S": "60"}
# bad_env crashes rank 2 in graph capture; good_env is harmless
CHANGES = """
[[changes]]
name = "good_env"
env = { GNS_GOOD = "1" }

[[changes]]
name = "bad_env"
env = { GNS_BAD = "1" }
"""


def plan(*experiments: str) -> str:
    """A campaign on the group's baseline: each experiment a TOML table body."""
    body = "".join(f"\n[[experiments]]\n{e}" for e in experiments)
    return f'baseline = "gbase"\ntime_budget = 400\n{body}'


ISO_PLAN = plan('name = "stuck"\nprofile = "ghiso"\nchanges = ["good_env"]\n')
HANG_PLAN = plan('name = "stuck"\nprofile = "ghang"\n')
PLAN = plan('name = "fatal"\nprofile = "gexp"\nchanges = ["bad_env"]\non_failure = "good"\n',
            'name = "good"\nprofile = "gexp"\nchanges = ["good_env"]\n')


class CampaignGroup(Group):
    def start(self) -> None:
        for node in NODES:
            (self.root / node / "profiles" / "campaigns").mkdir(parents=True)
            (self.root / node / "profiles" / "campaigns" / "gc.toml").write_text(PLAN)
            (self.root / node / "profiles" / "campaigns" / "gh.toml").write_text(HANG_PLAN)
            (self.root / node / "profiles" / "campaigns" / "gi.toml").write_text(ISO_PLAN)
        self.write_bench("gbase")
        self.write_bench("gexp", fault="crash:cuda_graph_capture:cuda_oom@GNS_TEST_N2@GNS_BAD",
                         extra=CHANGES)
        # rank 2 silent in graph capture, its silence watchdog far off: only the campaign
        # (its stop, an operator's switch) ends this experiment
        self.write_bench("ghang", fault="hang:cuda_graph_capture@GNS_TEST_N2", silence=120)
        # the same, isolating its changes when it fails: every attempt of the isolation comes
        # from the campaign's own node, with the same profile
        self.write_bench("ghiso", fault="hang:cuda_graph_capture@GNS_TEST_N2", silence=120,
                         extra=CHANGES + '\n[fallback]\nstrategy = "isolate"\n')
        super().start()

    def write_bench(self, name: str, fault: str = "none", extra: str = "",
                    silence: float = 3) -> None:
        """A group profile with a [benchmark] (the emulator at 60 tok/s)."""
        nodes = ", ".join(f'"{n}"' for n in NODES)
        text = emulator_profile(name, port=self.port, fault=fault, env=RATE,
                                silence=silence) + BENCH + \
            extra + f"\n[group]\nnodes = [{nodes}]\ndist_init_port = {self.dist_port}\n"
        for node in NODES:
            (self.root / node / "profiles" / f"{name}.toml").write_text(text)


@pytest.fixture
def group() -> Iterator[CampaignGroup]:
    with running_group(CampaignGroup) as g:
        yield g


@needs_etcd
def test_a_campaign_on_a_group_profile_runs_every_step_on_every_rank(
        group: CampaignGroup) -> None:
    d0, d1, d2 = group.daemons
    res = d1.ctl("campaign", "run", "gc", "--wait", "--timeout", "300", "--json", timeout=330)
    assert res.returncode == 0, res.stdout + res.stderr
    r = json.loads(res.stdout)
    assert r["status"] == "completed", r["note"]
    # the baseline is rank 0's benchmark of the group, measured once every rank was ready
    base = r["baseline"]
    assert base["benchmark"]["tokens_per_s"] > 0, base
    assert base["group"]["group"] == "n0+n1+n2" and base["group"]["status"] == "ready"

    fatal, good = r["experiments"]
    assert (fatal["name"], fatal["ok"]) == ("fatal", False)
    assert fatal["verdict"] == "crashed in cuda_graph_capture (cuda_oom) on rank 2 (n2)", fatal
    v = fatal["group"]["verdict"]
    assert (v["rank"], v["node"], v["cause"]) == (2, "n2", "cuda_oom")
    assert sorted(c["rank"] for c in v["consequences"]) == [0, 1]
    assert fatal["evidence"]["lines"], fatal
    assert fatal["branch"]["next"] == "good"
    assert "| fatal |" in r["report"] and "on rank 2 (n2)" in r["report"]

    assert (good["name"], good["verdict"], good["ok"]) == ("good", "ready", True), good
    assert good["changes"] == ["good_env"]
    assert good["benchmark"]["tokens_per_s"] > 0 and good["benchmark"]["vs_baseline"]
    assert good["group"]["status"] == "ready"
    assert r["serving"]["profile"] == "gexp" and r["serving"]["changes"] == ["good_env"]
    assert r["serving"]["group"] == "n0+n1+n2"

    # the group is left serving the best, on every rank
    st = d0.ctl_json("group", "status")
    assert (st["profile"], st["status"]) == ("gexp", "ready"), st
    for d in group.daemons:
        run = d.run()
        assert run["status"] == "ready" and run["changes"] == ["good_env"], run
    # every rank saw each launch: baseline, fatal, good, in that order
    for d in group.daemons:
        runs = d.ctl_json("history")["runs"]
        seen = [(x["profile"], list(x.get("changes") or [])) for x in runs]
        assert seen == [("gbase", []), ("gexp", ["bad_env"]), ("gexp", ["good_env"])], seen

    # a group switched with --no-benchmark: every rank launches, rank 0 measures nothing
    res = d1.ctl("switch", "gbase", "--no-benchmark", "--wait", "--timeout", "120", "--json",
                 timeout=150)
    assert res.returncode == 0, res.stdout + res.stderr
    for d in group.daemons:
        d.wait_run(lambda r: r["profile"] == "gbase" and r["status"] == "ready", 60,
                   "the group's rank ready")
    time.sleep(max(3.0, 3 * base["benchmark"]["duration_s"]))
    rank0 = d0.run()
    assert (rank0["profile"], rank0["benchmark"]) == ("gbase", None), rank0
    assert not [e for e in d0.events(rank0["id"]) if e["kind"] == "benchmark"]


def stuck_on_every_rank(group: CampaignGroup) -> None:
    for d in group.daemons:
        d.wait_run(lambda r: r["profile"] == "ghang", 60, "the hanging experiment on a rank")


@needs_etcd
def test_campaign_stop_stops_the_group_and_a_switch_elsewhere_pauses_it(
        group: CampaignGroup) -> None:
    d0, d1, d2 = group.daemons
    assert d1.ctl_json("campaign", "run", "gh")["status"] == "running"
    stuck_on_every_rank(group)
    res = d1.ctl("campaign", "stop", check=True)
    assert res.stdout.startswith("# Campaign gh: stopped"), res.stdout
    for d in group.daemons:   # the campaign's step is stopped on every rank
        d.wait_run(lambda r: r["status"] == "stopped", 15, "the rank stopped")
    assert d0.ctl_json("group", "status")["status"] == "stopped"

    assert d1.ctl_json("campaign", "run", "gh")["status"] == "running"
    stuck_on_every_rank(group)
    assert d0.ctl("switch", "grp", "--wait", "--timeout", "30").returncode == 0
    st = wait_until(lambda: (s := d1.ctl_json("campaign", "status"))["status"] == "paused"
                    and s, 30, "the campaign paused")
    assert "group n0+n1+n2 attempt" in st["note"] and "for grp (switched from node n0)" in \
        st["note"], st["note"]
    assert "campaign run gh resumes it at stuck" in st["note"]
    assert d2.ctl_json("group", "status")["profile"] == "grp"   # the operator's, untouched


@needs_etcd
def test_an_operator_re_switching_the_step_s_own_isolating_profile_from_its_node_pauses_it(
        group: CampaignGroup) -> None:
    """Each step's attempts are tagged with the step's request in etcd: a launch of the same
    profile from the same node that is not the step's own is an operator's, not the step's
    isolation, and pauses the campaign (it used to wait out the step's timeout)."""
    d0, d1, d2 = group.daemons
    assert d1.ctl_json("campaign", "run", "gi")["status"] == "running"
    for d in group.daemons:
        d.wait_run(lambda r: r["profile"] == "ghiso", 60, "the step on a rank")
    assert d1.ctl("switch", "ghiso").returncode == 0   # no --wait: rank 2 hangs on purpose
    st = wait_until(lambda: (s := d1.ctl_json("campaign", "status"))["status"] == "paused"
                    and s, 30, "the campaign paused")
    assert "for ghiso (switched from node n1)" in st["note"], st["note"]
    assert "campaign run gi resumes it at stuck" in st["note"]
    desired = d0.ctl_json("group", "status")
    assert desired["profile"] == "ghiso" and desired["attempt"] == 3, desired


@needs_etcd
def test_a_waiting_switch_replaced_by_a_newer_launch_of_the_group_returns_and_says_so(
        group: CampaignGroup) -> None:
    """`switch --wait` on a group whose launch another node replaces before it settles ends
    at once with the replacement named (it used to wait for an attempt that never settles)."""
    d0, d1, d2 = group.daemons
    with ThreadPoolExecutor(1) as pool:
        waiting = pool.submit(d1.ctl, "switch", "ghang", "--wait", "--timeout", "120",
                              timeout=150)
        for d in group.daemons:
            d.wait_run(lambda r: r["profile"] == "ghang", 60, "the hanging launch on a rank")
        assert d0.ctl("switch", "gbase", "--wait", "--timeout", "60").returncode == 0
        res = waiting.result(timeout=20)
    said = res.stdout + res.stderr
    assert res.returncode != 0, said
    assert "was replaced by attempt" in said and "of gbase (requested from node n0)" in said, said


def test_a_group_campaign_on_a_daemon_without_cluster_fails_and_says_why(
        workdir, make_daemon) -> None:
    text = emulator_profile("g", port=free_port()) + \
        '\n[group]\nnodes = ["a", "b"]\ndist_init_port = 5000\n'
    (workdir / "profiles" / "g.toml").write_text(text)
    (workdir / "profiles" / "campaigns").mkdir()
    (workdir / "profiles" / "campaigns" / "c.toml").write_text(
        'baseline = "g"\n[[experiments]]\nname = "one"\nprofile = "g"\n')
    d = make_daemon()
    res = d.ctl("campaign", "run", "c", "--wait", "--timeout", "30", "--json")
    r = json.loads(res.stdout)
    assert r["status"] == "failed", r
    assert r["note"] == ("baseline: profile g is a launch group (nodes a, b) but this daemon "
                         "has no [cluster] etcd in its config; add it (docs/multi-node.md) or "
                         "use a profile without [group]"), r["note"]
    assert d.run() is None   # nothing was launched
