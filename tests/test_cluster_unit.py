"""Launch groups without etcd: [cluster] config, [group] profiles, rank flags, the verdict."""

from __future__ import annotations

from pathlib import Path

import pytest

from supervisor.cluster.probes import evaluate
from supervisor.cluster.ranks import rank_args, rank_profile
from supervisor.cluster.verdict import group_status, group_verdict, slowest_phase
from supervisor.config import ConfigError, load
from supervisor.profiles import ProfileSet

GROUP = '''engine = "sglang"
[launch]
model = "m"
host = "127.0.0.1"
[group]
nodes = ["a", "b", "c"]
dist_init_port = 5000
'''


def test_cluster_config(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('[cluster]\netcd = ["http://10.0.0.1:2379", "http://10.0.0.2:2379"]\n'
                    'node = "gpu-a"\naddress = "10.0.1.5"\nlease_ttl = 5\n')
    cfg = load(str(path))
    assert cfg.cluster_etcd == ("http://10.0.0.1:2379", "http://10.0.0.2:2379")
    assert (cfg.cluster_node, cfg.cluster_address, cfg.cluster_lease_ttl) == (
        "gpu-a", "10.0.1.5", 5)


@pytest.mark.parametrize("body, message", [
    ('etcd = "10.0.0.1:2379"', "etcd must be"),
    ('etcd = []', "etcd must be"),
    ('node = "a b"', "node must be"),
    ('lease_ttl = 1', "lease_ttl must be"),
    ('nodes = ["a"]', "unknown key"),
])
def test_cluster_config_errors(tmp_path: Path, body: str, message: str) -> None:
    path = tmp_path / "s.toml"
    path.write_text(f"[cluster]\n{body}\n")
    with pytest.raises(ConfigError, match=message):
        load(str(path))


def test_group_profile_and_errors_with_lines(tmp_path: Path) -> None:
    (tmp_path / "g.toml").write_text(GROUP)
    (tmp_path / "dup.toml").write_text(GROUP.replace('"b", "c"', '"a"').replace("5000", "0"))
    (tmp_path / "half.toml").write_text(GROUP.replace("dist_init_port = 5000\n", ""))
    pset = ProfileSet.load_dir(tmp_path)
    g = pset.resolve("g").group
    assert g is not None and g.nodes == ("a", "b", "c") and g.name == "a+b+c"
    errors = [str(e) for e in pset.errors]
    assert any("dup.toml:6: group.nodes: each node may appear once" in e for e in errors)
    assert any("dup.toml:7: group.dist_init_port: must be an integer" in e for e in errors)
    assert any("half.toml:5: group: [group] needs dist_init_port" in e for e in errors)


def test_rank_flags_per_engine(tmp_path: Path) -> None:
    assert rank_args("sglang", 2, 1, "10.0.0.1", 5000) == {
        "nnodes": 2, "node-rank": 1, "dist-init-addr": "10.0.0.1:5000"}
    assert rank_args("vllm", 2, 1, "10.0.0.1", 5000) == {
        "nnodes": 2, "node-rank": 1, "master-addr": "10.0.0.1", "master-port": 5000,
        "headless": True}
    assert "headless" not in rank_args("vllm", 2, 0, "10.0.0.1", 5000)
    (tmp_path / "g.toml").write_text(GROUP)
    pset = ProfileSet.load_dir(tmp_path)
    mine = rank_profile(pset.resolve("g"), pset.resolve, 2, "10.0.0.1", "10.0.0.3")
    argv = mine.argv()
    assert argv[argv.index("--node-rank") + 1] == "2"
    assert argv[argv.index("--dist-init-addr") + 1] == "10.0.0.1:5000"
    assert mine.host == "10.0.0.3" and mine.changes == ()  # loopback -> the node's address
    assert mine.restart.on_failure == "none" and mine.env_dict()["GNS_NODE_RANK"] == "2"


def rank(r: int, status: str, t: float | None = None, **kw: object) -> dict:
    return {"node": f"n{r}", "rank": r, "status": status, "phase": "cuda_graph_capture",
            "cause": None, "evidence": [], "failed_at": t, "stopped_for": None, **kw}


def test_verdict_root_is_first_failure_that_is_not_a_consequence() -> None:
    ranks = [
        rank(0, "crashed", 10.0, cause="nccl_timeout"),          # earlier, but a consequence
        rank(1, "crashed", 11.0, cause="multinode_rank_failure",
             evidence=["... (maybe TCPStore server has shut down too early) ..."]),
        rank(2, "crashed", 12.0, cause="cuda_oom", evidence=["CUDA out of memory"]),
        rank(3, "stopped", 12.5, stopped_for="group g: rank 2 (n2) crashed (cuda_oom)"),
    ]
    v = group_verdict(ranks)
    assert v is not None
    assert (v["rank"], v["node"], v["cause"], v["evidence"]) == (2, "n2", "cuda_oom",
                                                                 ["CUDA out of memory"])
    assert v["consequences"] == [{"rank": 0, "cause": "nccl_timeout"},
                                 {"rank": 1, "cause": "multinode_rank_failure"},
                                 {"rank": 3, "cause": "stopped_by_group"}]
    assert group_status(ranks, 4, v, False) == "crashed"


def test_verdict_only_consequences_takes_the_first_and_none_without_failure() -> None:
    v = group_verdict([rank(0, "crashed", 5.0, cause="multinode_rank_failure"),
                       rank(1, "crashed", 4.0, cause="multinode_rank_failure")])
    assert v is not None and v["rank"] == 1
    ready = [rank(0, "ready"), rank(1, "ready")]
    assert group_verdict(ready) is None
    assert group_status(ready, 2, None, False) == "ready"
    assert group_status(ready[:1], 2, None, False) == "starting"
    assert slowest_phase(["ready", "warmup", "serving"]) == "warmup"


def test_probes() -> None:
    ready = {"id": 1, "status": "ready", "phase": "ready", "deadline_s": None}
    starting = {"id": 1, "status": "starting", "phase": "weight_loading", "deadline_s": 3600}
    assert evaluate("readiness", ready, None)[0]
    assert not evaluate("readiness", starting, None)[0]
    assert evaluate("liveness", starting, None) == (
        True, "run 1 starting in weight_loading (phase budget 3600 s)")
    assert not evaluate("liveness", {**ready, "status": "hung"}, None)[0]
    group = {"group": "a+b", "attempt": 1, "status": "starting", "phase": "warmup",
             "verdict": None}
    assert not evaluate("readiness", ready, group)[0]
    lost = {**group, "verdict": {"rank": 1, "node": "b", "status": "lost", "phase": "ready",
                                 "cause": "node_lost"}}
    assert evaluate("liveness", ready, lost) == (
        False, "group a+b: rank 1 (b) lost in ready, cause node_lost")


def test_hang_verdict_points_at_the_rank_the_others_wait_for() -> None:
    wait = ("2 processes (sglang::scheduler_TP0, sglang::scheduler_TP1) in custom_all_reduce "
            "(child.py), unchanged over 4 s of stack samples")
    ranks = [  # ranks 0 and 1 hang first, in a collective; rank 2 silent, stopped by the group
        rank(0, "hung", 10.0, cause="collective_hang", evidence=[f"stuck in phase x: {wait}"],
             activity={"state": "silent", "stuck": wait, "stack_samples": 4}),
        rank(1, "hung", 10.5, cause="collective_hang",
             activity={"state": "silent", "stuck": wait, "stack_samples": 4}),
        rank(2, "stopped", 11.0, stopped_for="group g: rank 0 (n0) hung (collective_hang)",
             evidence=["group g: rank 0 (n0) hung (collective_hang)"],
             activity={"state": "silent", "stuck": None, "stack_samples": 0}),
    ]
    v = group_verdict(ranks)
    assert v is not None
    assert (v["rank"], v["node"], v["status"], v["phase"]) == (
        2, "n2", "hung", "cuda_graph_capture")
    assert v["evidence"][0] == (
        "rank 2 (n2) is the one the group waits for: silent in cuda_graph_capture (activity "
        "silent, 0 stack sample(s), none in a collective) while rank(s) 0, 1 wait in a "
        "collective")
    assert v["evidence"][1] == f"rank 0: {wait}"
    assert v["consequences"] == [{"rank": 0, "cause": "collective_hang"},
                                 {"rank": 1, "cause": "collective_hang"}]
    # every rank in the collective, or a crash first: no rank to blame for silence
    ranks[2] = rank(2, "crashed", 9.0, cause="cuda_oom")
    assert group_verdict(ranks)["rank"] == 2 and group_verdict(ranks)["cause"] == "cuda_oom"
    all_wait = [ranks[0], ranks[1]]
    assert group_verdict(all_wait)["rank"] == 0


@pytest.mark.anyio
async def test_waiting_on_a_group_attempt_before_any_is_seen_and_after_a_newer_one(
        tmp_path: Path) -> None:
    """The wait for a launch's attempt to settle, fed the watch's events as etcd would send
    them: before any attempt is seen it just waits (its timeout), and a newer attempt from
    another node ends it at once, naming the replacement. No etcd is contacted."""
    import json

    from supervisor.cluster.group import ClusterService
    from supervisor.config import Config
    from supervisor.runtime.arbiter import ArbiterError

    config = Config(profiles_dir=tmp_path, state_dir=tmp_path, socket=tmp_path / "s",
                    cluster_etcd=("http://127.0.0.1:9",), cluster_node="a")
    svc = ClusterService(config, arbiter=None, hub=None)  # type: ignore[arg-type]
    with pytest.raises(ArbiterError) as err:
        await svc._wait_settled("a+b", 1, "grp", 0.2)
    assert err.value.code == "timeout"
    desired = {"profile": "other", "attempt": 2, "nodes": ["a", "b"], "action": "run",
               "requested_by": "b", "request": "x"}
    svc._apply_put(svc._key("groups", "a+b", "desired"), json.dumps(desired).encode())
    with pytest.raises(ArbiterError) as err:
        await svc._wait_settled("a+b", 1, "grp", 5)
    assert err.value.code == "conflict"
    assert err.value.message == ("group a+b attempt 1 of grp was replaced by attempt 2 of other "
                                 "(requested from node b) before it settled")
