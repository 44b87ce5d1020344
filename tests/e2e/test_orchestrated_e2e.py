"""A group placed by Slurm, without etcd: two real daemons on one machine get their rank, the
group's size and rank 0's host from SLURM_* variables; the ranks rendezvous over real TCP; a
rank that fails makes its daemon exit 1 with the verdict (what srun --kill-on-bad-exit=1 acts
on), and the peer left waiting fails too after the (time-scaled) dist timeout."""

from __future__ import annotations

import os
from collections.abc import Iterator
from pathlib import Path

import pytest

from .harness import (
    RUN_VAR,
    Daemon,
    cleanup,
    emulator_profile,
    free_port,
    kill_env_processes,
    short_tmpdir,
)

pytestmark = pytest.mark.e2e


def start_ranks(root: Path, fault: str) -> list[Daemon]:
    port, dist = free_port(), free_port()
    daemons = []
    for rank in (0, 1):
        base = root / f"n{rank}"
        (base / "profiles").mkdir(parents=True)
        (base / "state").mkdir()
        profile = emulator_profile("big", port=port, fault=fault, scale=0.01).replace(
            'host = "127.0.0.1"', f'host = "127.0.0.{rank + 1}"')
        (base / "profiles" / "big.toml").write_text(profile)
        config = base / "supervisor.toml"
        config.write_text('startup_profile = "big"\n[cluster]\norchestrator = "slurm"\n'
                          f'node = "n{rank}"\n')
        env = {"SLURM_NODEID": str(rank), "SLURM_NNODES": "2", "SLURM_JOB_ID": "77",
               "SLURM_JOB_NODELIST": "127.0.0.[1-2]", "GNS_DIST_INIT_PORT": str(dist),
               f"GNS_TEST_N{rank}": "1"}
        daemons.append(Daemon(base / "profiles", base / "state", base / "s.sock",
                              config=config, env=env))
    for d in daemons:
        d.start()
    return daemons


@pytest.fixture
def root() -> Iterator[Path]:
    path = short_tmpdir()
    yield path
    if not os.environ.get("GNS_KEEP_TMP"):
        cleanup(path)


def close(daemons: list[Daemon]) -> None:
    for d in daemons:
        try:
            d.stop()
        finally:
            d.kill()
        kill_env_processes(RUN_VAR, marker=d.marker)


def test_slurm_ranks_become_ready_with_the_rank_flags(root: Path) -> None:
    daemons = start_ranks(root, "none")
    try:
        for rank, d in enumerate(daemons):
            run = d.wait_run(lambda r: r["status"] == "ready", 30, f"rank {rank} ready")
            log = Path(run["log_path"]).read_text()
            assert f"node_rank={rank}" in log and "dist_init_addr='127.0.0.1:" in log
            st = d.ctl_json("group", "status")
            assert (st["group"], st["status"], st["verdict"]) == ("job 77", "ready", None)
            assert st["coordination"]["orchestrator"] == "slurm"
            assert st["ranks"][0]["rank"] == rank
            assert d.ctl("probe", "readiness").returncode == 0
        assert daemons[1].stop() == 0  # an orderly stop (the orchestrator's SIGTERM) is no verdict
    finally:
        close(daemons)


def test_failed_rank_exits_1_with_its_verdict_and_the_peer_follows(root: Path) -> None:
    daemons = start_ranks(root, "crash:cuda_graph_capture:cuda_oom@GNS_TEST_N1")
    try:
        d0, d1 = daemons
        assert d1.proc is not None and d0.proc is not None
        assert d1.proc.wait(30) == 1
        text = d1.log.read_text()
        assert ("supervisor-daemon: slurm group job 77: rank 1 of 2, rank 0 at 127.0.0.1: this "
                "rank crashed in cuda_graph_capture, cause cuda_oom") in text
        assert "exiting 1 so that slurm stops the whole group" in text
        # srun --kill-on-bad-exit=1 would end rank 0 now; left alone, its dist timeout does
        assert d0.proc.wait(30) == 1
        line = [x for x in d0.log.read_text().splitlines() if "exiting 1" in x][0]
        assert "rank 0 of 2" in line and "this rank crashed" in line
    finally:
        close(daemons)
