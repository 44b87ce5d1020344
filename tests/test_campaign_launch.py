"""The campaign's launcher seam: a group profile goes through the cluster service, any other
through this node's arbiter; a group profile without one is refused with what to do."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from supervisor.campaign import judge
from supervisor.campaign_launch import GroupLauncher, LocalLauncher, choose
from supervisor.campaign_plan import Experiment
from supervisor.profiles import ProfileSet
from supervisor.runtime.arbiter import ArbiterError

LOCAL = 'engine = "sglang"\n[launch]\nmodel = "m"\n'
GROUP = LOCAL + '[group]\nnodes = ["a", "b"]\ndist_init_port = 5000\n'


class Profiles:
    """What choose() asks of the arbiter: resolve a profile by name."""

    def __init__(self, folder: Path) -> None:
        self.set = ProfileSet.load_dir(folder)

    def resolve(self, name: str, **kw: Any) -> Any:
        return self.set.resolve(name, **kw)


class Cluster:
    def publish_changes(self, name: str, changes: list[str]) -> None: ...


@pytest.fixture
def arbiter(tmp_path: Path) -> Any:
    (tmp_path / "one.toml").write_text(LOCAL)
    (tmp_path / "big.toml").write_text(GROUP)
    return Profiles(tmp_path)


def test_the_launcher_follows_the_profile_and_is_kept(arbiter: Any) -> None:
    cache: dict[str, Any] = {}
    cluster = Cluster()
    local = choose(arbiter, cluster, "one", cache)
    group = choose(arbiter, cluster, "big", cache)
    assert isinstance(local, LocalLauncher) and isinstance(group, GroupLauncher)
    assert choose(arbiter, cluster, "big", cache) is group   # one per kind, per drive
    assert choose(arbiter, None, "one", {}).__class__ is LocalLauncher


@pytest.mark.parametrize("cluster", [None, object()])  # no [cluster]; Slurm/LWS placement
def test_a_group_profile_needs_the_etcd_cluster_service(arbiter: Any, cluster: Any) -> None:
    with pytest.raises(ArbiterError) as err:
        choose(arbiter, cluster, "big", {})
    assert err.value.message == (
        "profile big is a launch group (nodes a, b) but this daemon has no [cluster] etcd in "
        "its config; add it (docs/multi-node.md) or use a profile without [group]")


def test_a_group_step_names_its_root_rank_in_the_verdict() -> None:
    verdict = {"rank": 2, "node": "c", "status": "crashed", "phase": "cuda_graph_capture",
               "cause": "cuda_oom", "evidence": ["OOM"], "consequences": [
                   {"rank": 0, "cause": "stopped_by_group"}]}
    group = {"group": "a+b+c", "attempt": 3, "status": "crashed", "ranks": [],
             "verdict": verdict}
    outcome = {"ok": False, "request": None, "verdict": verdict, "culprits": [],
               "benchmark": None, "run_id": 7, "changes": ["x"], "attempts": [],
               "log": None, "notes": [], "group": group}
    row = judge(Experiment("e", "big", ("x",)), outcome, {"benchmark": {}})
    assert row["verdict"] == "crashed in cuda_graph_capture (cuda_oom) on rank 2 (c)"
    assert row["why"] == "not ready: crashed in cuda_graph_capture (cuda_oom) on rank 2 (c)"
    assert row["group"] is group and row["evidence"]["lines"] == ["OOM"]
    local = judge(Experiment("e", "one", None), {**outcome, "group": None,
                                                 "verdict": {**verdict, "rank": None}},
                  {"benchmark": {}})
    assert local["verdict"] == "crashed in cuda_graph_capture (cuda_oom)" and "group" not in local
