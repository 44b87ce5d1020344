"""Launch groups owned by an orchestrator (Slurm, Kubernetes LeaderWorkerSet), without etcd.

The orchestrator already knows the group: it tells each node's daemon its rank, the group's
size and rank 0's host in the environment, and it restarts (LWS) or tears down (Slurm with
``srun --kill-on-bad-exit=1``) the whole group when one member exits non-zero. So the daemon
launches its rank of the startup profile and, when that rank fails, exits non-zero with the
verdict on stderr: the orchestrator does the rest.

- LWS: ``LWS_LEADER_ADDRESS`` (rank 0's host), ``LWS_GROUP_SIZE``, ``LWS_WORKER_INDEX``
  (0 is the leader).
- Slurm: ``SLURM_NODEID`` (this node's index in the job), ``SLURM_NNODES``, and the job's
  first host, expanded from ``SLURM_JOB_NODELIST`` (or ``SLURM_NODELIST``) in Slurm's compact
  form, e.g. ``gpu[01-03,07],login5``.
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass

KINDS = ("auto", "slurm", "lws")
DEFAULT_PORT = 5000


class OrchestratorError(ValueError):
    """The orchestrator's environment is missing or inconsistent; the message says which
    variable and what was expected."""


@dataclass(frozen=True)
class Placement:
    """This node's place in an orchestrated group."""

    kind: str        # "slurm" or "lws"
    rank: int
    nnodes: int
    leader: str      # rank 0's host: every rank's rendezvous address
    group: str       # the job or LWS group, for status and messages

    def describe(self) -> str:
        return (f"{self.kind} group {self.group}: rank {self.rank} of {self.nnodes}, "
                f"rank 0 at {self.leader}")


def expand_hostlist(text: str) -> list[str]:
    """Slurm's compact host list: ``a[01-03,07],b`` -> a01 a02 a03 a07 b (zero padding kept)."""
    hosts: list[str] = []
    for item in _split_top(text.strip()):
        m = re.fullmatch(r"([^\[\]]*)\[([^\[\]]+)\]([^\[\]]*)", item)
        if m is None:
            if "[" in item or "]" in item:
                raise OrchestratorError(f"host list {text!r}: cannot read {item!r}")
            hosts.append(item)
            continue
        head, ranges, tail = m.groups()
        for part in ranges.split(","):
            lo, _, hi = part.partition("-")
            if not lo.isdigit() or (hi and not hi.isdigit()):
                raise OrchestratorError(f"host list {text!r}: bad range {part!r}")
            width = len(lo)
            for n in range(int(lo), int(hi or lo) + 1):
                hosts.append(f"{head}{n:0{width}d}{tail}")
    if not hosts:
        raise OrchestratorError(f"host list {text!r} names no host")
    return hosts


def _split_top(text: str) -> list[str]:
    """Split on the commas outside brackets."""
    items, depth, cur = [], 0, ""
    for ch in text:
        depth += (ch == "[") - (ch == "]")
        if ch == "," and depth == 0:
            items.append(cur)
            cur = ""
        else:
            cur += ch
    items.append(cur)
    return [i for i in items if i]


def _int(env: Mapping[str, str], name: str) -> int:
    value = env.get(name, "")
    if not value.strip().isdigit():
        raise OrchestratorError(f"{name}={value!r}: expected a whole number (set by the "
                                "orchestrator; is the daemon started inside the job/pod?)")
    return int(value)


def detect(env: Mapping[str, str]) -> str | None:
    if "LWS_LEADER_ADDRESS" in env or "LWS_WORKER_INDEX" in env:
        return "lws"
    if "SLURM_NODEID" in env and "SLURM_NNODES" in env:
        return "slurm"
    return None


def placement(env: Mapping[str, str], kind: str = "auto") -> Placement:
    """This node's rank, the group's size and rank 0's host from the orchestrator's
    environment; ``kind`` auto picks the one whose variables are set."""
    if kind not in KINDS:
        raise OrchestratorError(f"orchestrator {kind!r}: use one of {', '.join(KINDS)}")
    found = detect(env) if kind == "auto" else kind
    if found is None:
        raise OrchestratorError("no orchestrator environment found: neither LWS_* "
                                "(LeaderWorkerSet) nor SLURM_NODEID/SLURM_NNODES (Slurm) is "
                                "set; start the daemon inside the pod or the srun step")
    place = _lws(env) if found == "lws" else _slurm(env)
    if not 0 <= place.rank < place.nnodes:
        raise OrchestratorError(f"{found}: rank {place.rank} is outside a group of "
                                f"{place.nnodes} node(s)")
    return place


def _lws(env: Mapping[str, str]) -> Placement:
    leader = env.get("LWS_LEADER_ADDRESS", "").strip()
    if not leader:
        raise OrchestratorError("LWS_LEADER_ADDRESS is empty: LeaderWorkerSet sets it in "
                                "every pod of a group")
    return Placement("lws", _int(env, "LWS_WORKER_INDEX"), _int(env, "LWS_GROUP_SIZE"),
                     leader, env.get("LWS_NAME", "") + ("/" if env.get("LWS_NAME") else "")
                     + leader.split(".")[0])


def _slurm(env: Mapping[str, str]) -> Placement:
    nodelist = env.get("SLURM_JOB_NODELIST") or env.get("SLURM_NODELIST") or ""
    if not nodelist.strip():
        raise OrchestratorError("SLURM_JOB_NODELIST (or SLURM_NODELIST) is empty: it gives "
                                "the job's first host, rank 0's")
    hosts = expand_hostlist(nodelist)
    nnodes = _int(env, "SLURM_NNODES")
    if len(hosts) != nnodes:
        raise OrchestratorError(f"SLURM_NNODES={nnodes} but the node list {nodelist!r} has "
                                f"{len(hosts)} host(s)")
    return Placement("slurm", _int(env, "SLURM_NODEID"), nnodes, hosts[0],
                     f"job {env['SLURM_JOB_ID']}" if env.get("SLURM_JOB_ID") else "the job")


def dist_port(profile_port: int | None, env: Mapping[str, str]) -> int:
    """The rendezvous port: the profile's [group] dist_init_port, else GNS_DIST_INIT_PORT,
    else 5000."""
    if profile_port:
        return profile_port
    raw = env.get("GNS_DIST_INIT_PORT")
    if raw is None:
        return DEFAULT_PORT
    if not raw.isdigit() or not 1 <= int(raw) <= 65535:
        raise OrchestratorError(f"GNS_DIST_INIT_PORT={raw!r}: expected a port 1-65535")
    return int(raw)
