"""A group member's part of the launch: its rank's engine flags and its own host.

SGLang: ``--nnodes N --node-rank R --dist-init-addr HOST:PORT`` (every rank the same address:
rank 0's). vLLM (multiprocessing executor, no Ray): ``--nnodes N --node-rank R --master-addr
HOST --master-port PORT``, and ``--headless`` on every rank but 0 (only rank 0 serves the API).
The ``command`` engine gets the same facts in its environment (GNS_NNODES, GNS_NODE_RANK,
GNS_DIST_INIT_ADDR), as every engine does.
"""

from __future__ import annotations

from dataclasses import replace
from typing import Any

from ..profiles.model import Change, FallbackSpec, ResolvedProfile, RestartSpec

LOOPBACK = ("127.", "localhost", "::1")


def rank_args(engine: str, nnodes: int, rank: int, host: str, port: int) -> dict[str, Any]:
    if engine == "sglang":
        return {"nnodes": nnodes, "node-rank": rank, "dist-init-addr": f"{host}:{port}"}
    if engine == "vllm":
        args: dict[str, Any] = {"nnodes": nnodes, "node-rank": rank, "master-addr": host,
                                "master-port": port}
        if rank > 0:
            args["headless"] = True
        return args
    return {}


def rank_env(nnodes: int, rank: int, host: str, port: int) -> dict[str, str]:
    return {"GNS_NNODES": str(nnodes), "GNS_NODE_RANK": str(rank),
            "GNS_DIST_INIT_ADDR": f"{host}:{port}"}


def rank_profile(profile: ResolvedProfile, extra_resolve: Any, rank: int, rank0_address: str,
                 my_address: str, changes: list[str] | None = None) -> ResolvedProfile:
    """The profile this node launches for ``rank``: the group's flags added as an unnamed
    change (it shows in argv, not in the list of changes); a loopback host becomes this node's
    address (other ranks and the group's probes must reach it); no per-node restart or
    fallback (the group decides, together); the [benchmark] on rank 0 alone, the rank that
    serves the API (a headless vLLM rank has none)."""
    group = profile.group
    assert group is not None
    n = len(group.nodes)
    delta = Change(name="", args=rank_args(profile.engine, n, rank, rank0_address,
                                           group.dist_init_port),
                   env=rank_env(n, rank, rank0_address, group.dist_init_port))
    resolved: ResolvedProfile = extra_resolve(profile.name, changes=changes, extra=[delta])
    host = my_address if resolved.host.startswith(LOOPBACK) else resolved.host
    return replace(resolved, host=host, restart=RestartSpec(on_failure="none"),
                   fallback=FallbackSpec(),
                   benchmark=resolved.benchmark if rank == 0 else None)  # rank 0 serves


def placed_profile(profile: ResolvedProfile, extra_resolve: Any, nnodes: int, rank: int,
                   leader: str, port: int) -> ResolvedProfile:
    """The profile a node launches for its rank when an orchestrator placed it (Slurm, LWS):
    the group's flags from the orchestrator's facts; no per-node restart or fallback (the
    orchestrator restarts the whole group)."""
    delta = Change(name="", args=rank_args(profile.engine, nnodes, rank, leader, port),
                   env=rank_env(nnodes, rank, leader, port))
    resolved: ResolvedProfile = extra_resolve(profile.name, extra=[delta])
    return replace(resolved, group=None, restart=RestartSpec(on_failure="none"),
                   fallback=FallbackSpec())
