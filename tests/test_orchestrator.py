"""Slurm and LeaderWorkerSet placement from their environment, and the docs' sbatch script and
LWS manifest driven through the daemon's own argument parsing and env mapping."""

from __future__ import annotations

import re
import shlex
from pathlib import Path

import pytest

from supervisor.cli.daemon import check_placement, parse_args
from supervisor.cluster.orchestrator import (
    OrchestratorError,
    dist_port,
    expand_hostlist,
    placement,
)
from supervisor.config import ConfigError, load

DOC = Path(__file__).resolve().parent.parent / "docs" / "multi-node.md"


def block(lang: str, contains: str) -> str:
    blocks = re.findall(rf"```{lang}\n(.*?)```", DOC.read_text(), re.S)
    return next(b for b in blocks if contains in b)


def test_hostlist() -> None:
    assert expand_hostlist("node[01-03,07]") == ["node01", "node02", "node03", "node07"]
    assert expand_hostlist("gpu5,a[8-10]x,b[1]") == ["gpu5", "a8x", "a9x", "a10x", "b1"]
    assert expand_hostlist("127.0.0.[1-2]") == ["127.0.0.1", "127.0.0.2"]
    for bad in ("node[01-x]", "node[", ""):
        with pytest.raises(OrchestratorError):
            expand_hostlist(bad)


def test_placement_and_its_errors() -> None:
    slurm = {"SLURM_NODEID": "2", "SLURM_NNODES": "4", "SLURM_JOB_ID": "9",
             "SLURM_NODELIST": "gpu[07-08],cpu[1-2]"}
    p = placement(slurm)
    assert (p.kind, p.rank, p.nnodes, p.leader, p.group) == ("slurm", 2, 4, "gpu07", "job 9")
    with pytest.raises(OrchestratorError, match="SLURM_NNODES=3 but the node list"):
        placement({**slurm, "SLURM_NNODES": "3"})
    with pytest.raises(OrchestratorError, match="rank 4 is outside a group of 4"):
        placement({**slurm, "SLURM_NODEID": "4"})
    with pytest.raises(OrchestratorError, match="no orchestrator environment"):
        placement({})
    with pytest.raises(OrchestratorError, match="LWS_GROUP_SIZE=''"):
        placement({"LWS_LEADER_ADDRESS": "x", "LWS_WORKER_INDEX": "0"}, "lws")
    assert dist_port(6000, {"GNS_DIST_INIT_PORT": "7000"}) == 6000
    assert dist_port(None, {"GNS_DIST_INIT_PORT": "7000"}) == 7000
    assert dist_port(None, {}) == 5000


def test_config_orchestrator(tmp_path: Path) -> None:
    path = tmp_path / "s.toml"
    path.write_text('startup_profile = "big"\n[cluster]\norchestrator = "lws"\n')
    cfg = load(str(path))
    # the rank's part is launched by the cluster service, not as is at start
    assert (cfg.cluster_orchestrator, cfg.cluster_profile, cfg.startup_profile) == (
        "lws", "big", None)
    for text, message in [('[cluster]\norchestrator = "lws"\n', "needs the profile"),
                          ('startup_profile = "b"\n[cluster]\norchestrator = "pbs"\n',
                           "must be one of auto, slurm, lws"),
                          ('startup_profile = "b"\n[cluster]\norchestrator = "auto"\n'
                           'etcd = "http://h:2379"\n', "both etcd and orchestrator")]:
        path.write_text(text)
        with pytest.raises(ConfigError, match=message):
            load(str(path))


def test_the_docs_sbatch_script_places_every_rank(tmp_path: Path,
                                                  monkeypatch: pytest.MonkeyPatch) -> None:
    script = block("bash", "srun")
    nodes = int(re.search(r"#SBATCH --nodes=(\d+)", script).group(1))  # type: ignore[union-attr]
    srun = shlex.split(script[script.index("srun"):].replace("\\\n", " "))
    assert "--kill-on-bad-exit=1" in srun
    argv = srun[srun.index("supervisor-daemon") + 1:]
    exports = dict(re.findall(r"export (\w+)=(\S+)", script))
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))  # no user config file read
    hosts = "gpu[07-08]"  # what Slurm sets for a 2-node allocation
    for rank in range(nodes):
        env = {"SLURM_NODEID": str(rank), "SLURM_NNODES": str(nodes), "SLURM_JOB_ID": "1",
               "SLURM_JOB_NODELIST": hosts, **exports}
        for k, v in env.items():
            monkeypatch.setenv(k, v)
        args = parse_args([a.replace("$SLURM_JOB_ID", "1") for a in argv])
        cfg = load(None,
                   startup_profile=args.startup_profile, cluster_orchestrator=args.orchestrator,
                   state_dir=tmp_path, socket=tmp_path / "s.sock", profiles_dir=tmp_path)
        check_placement(cfg)
        p = placement(env, args.orchestrator)
        assert (p.rank, p.nnodes, p.leader) == (rank, nodes, "gpu07")
        assert cfg.cluster_profile == "deepseek-v3" and dist_port(None, env) == 5000


def test_the_docs_lws_manifest_places_every_rank(tmp_path: Path,
                                                 monkeypatch: pytest.MonkeyPatch) -> None:
    manifest = block("yaml", "LeaderWorkerSet")
    size = int(re.search(r"size: (\d+)", manifest).group(1))  # type: ignore[union-attr]
    assert "restartPolicy: RecreateGroupOnPodRestart" in manifest
    command = re.search(r"command: (\[.*?\])", manifest, re.S).group(1)  # type: ignore[union-attr]
    argv = [a.strip().strip('"') for a in command.strip("[]").replace("\n", " ").split(",")]
    assert argv[0] == "supervisor-daemon"
    env = dict(re.findall(r"- name: (\w+)\n\s+value: \"([^\"]*)\"", manifest))
    for probe in ("startup", "readiness", "liveness"):
        assert f'command: ["supervisor-ctl", "probe", "{probe}"]' in manifest
    monkeypatch.setenv("XDG_CONFIG_HOME", str(tmp_path))
    for index in range(size):
        # what the LWS controller injects into each pod of group 0
        pod = {**env, "LWS_LEADER_ADDRESS": "deepseek-v3-0.deepseek-v3.default",
               "LWS_GROUP_SIZE": str(size), "LWS_WORKER_INDEX": str(index)}
        for k, v in pod.items():
            monkeypatch.setenv(k, v)
        args = parse_args(argv[1:])
        cfg = load(None, startup_profile=args.startup_profile,
                   cluster_orchestrator=args.orchestrator, state_dir=tmp_path,
                   socket=tmp_path / "s.sock", profiles_dir=tmp_path)
        check_placement(cfg)
        p = placement(pod, args.orchestrator)
        assert (p.kind, p.rank, p.nnodes) == ("lws", index, size)
        assert p.leader == "deepseek-v3-0.deepseek-v3.default"
        assert dist_port(None, pod) == 5000
