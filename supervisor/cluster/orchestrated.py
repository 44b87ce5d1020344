"""A daemon whose group an orchestrator owns (Slurm, LWS): launch this rank, exit on its end.

Slurm (``srun --kill-on-bad-exit=1``) and LeaderWorkerSet (``RecreateGroupOnPodRestart``)
already stop or recreate the whole group when one member exits non-zero, so "fail together"
is the daemon exiting 1 with the rank's verdict on stderr once its run failed (crashed, hung,
timed out, unhealthy; a peer's NCCL/c10d timeout is this rank failing too). An orderly stop
(SIGTERM from the orchestrator, ``supervisor-ctl stop``) is no verdict.
"""

from __future__ import annotations

import logging
import os
import socket
import sys
from collections.abc import Mapping
from typing import Any

import anyio

from ..config import Config
from ..events import Hub
from ..runtime.arbiter import Arbiter, ArbiterError
from .orchestrator import Placement, dist_port, placement
from .ranks import placed_profile

log = logging.getLogger("supervisor.cluster")

FAILED = ("crashed", "hung", "timeout", "unhealthy")
SETTLE_S = 10.0


class GroupVerdict(Exception):
    """This rank failed: the daemon exits 1 so the orchestrator stops the group."""


class OrchestratedService:
    def __init__(self, config: Config, arbiter: Arbiter, hub: Hub,
                 env: Mapping[str, str] | None = None) -> None:
        self.env = dict(os.environ if env is None else env)
        self.place: Placement = placement(self.env, config.cluster_orchestrator or "auto")
        self.profile = config.cluster_profile
        self.arbiter = arbiter
        self.hub = hub
        self.node = config.cluster_node or socket.gethostname()
        self.reason = f"{self.place.kind} rank {self.place.rank} of {self.place.nnodes}"
        self.run_view: dict[str, Any] | None = None
        self.verdict: dict[str, Any] | None = None
        self._failed = anyio.Event()

    async def run(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        self.hub.listeners.append(self._on_hub)
        task_status.started()
        log.info("orchestrated launch: %s, profile %s", self.place.describe(), self.profile)
        if self.profile:
            try:
                await self._launch(self.profile)
            except ArbiterError as exc:  # the rank cannot run: as much a failure as a crash
                raise GroupVerdict(f"{self.place.describe()}: cannot launch profile "
                                   f"{self.profile}: {exc.message}; exiting 1") from None
        await self._failed.wait()
        run = self.arbiter.current
        if run is not None:  # its record and logs written before the daemon goes
            with anyio.move_on_after(SETTLE_S):
                await run.settled.wait()
        raise GroupVerdict(self.verdict_line())

    async def _launch(self, name: str) -> None:
        profile = self.arbiter.resolve(name)
        port = dist_port(profile.group.dist_init_port if profile.group else None, self.env)
        mine = placed_profile(profile, self.arbiter.profiles.resolve, self.place.nnodes,
                              self.place.rank, self.place.leader, port)
        await self.arbiter.switch_to(mine, reason=self.reason)

    def _on_hub(self, kind: str, data: Any) -> None:
        if kind != "run" or not isinstance(data, dict) or data.get("reason") != self.reason:
            return
        self.run_view = data
        if data.get("status") in FAILED and self.verdict is None:
            self.verdict = {"rank": self.place.rank, "node": self.node,
                            "status": data.get("status"), "phase": data.get("phase"),
                            "cause": data.get("cause"),
                            "evidence": list(data.get("evidence") or [])[:5],
                            "consequences": []}
            self._failed.set()

    def verdict_line(self) -> str:
        v = self.verdict or {}
        first = (v.get("evidence") or [""])[0]
        return (f"{self.place.describe()}: this rank {v.get('status')} in {v.get('phase')}, "
                f"cause {v.get('cause')}" + (f": {first}" if first else "") +
                f"; exiting 1 so that {self.place.kind} stops the whole group")

    def view(self, group: str | None = None) -> dict[str, Any]:
        """``group status`` as this node sees it: its own rank (the orchestrator has the
        others)."""
        run = self.run_view or {}
        status = run.get("status", "starting" if self.profile else None)
        rank = {"node": self.node, "rank": self.place.rank, "status": status,
                "phase": run.get("phase"), "cause": run.get("cause"), "pid": run.get("pid")}
        return {"group": self.place.group, "profile": self.profile, "attempt": 1,
                "status": status, "phase": run.get("phase"), "ranks": [rank],
                "verdict": self.verdict,
                "coordination": {"orchestrator": self.place.kind, "node": self.node,
                                 "leader": self.place.leader, "nnodes": self.place.nnodes,
                                 "state": "ok", "problem": None}}


def exit_line(exc: BaseException) -> str | None:
    """The verdict line when the daemon ends because its rank failed (also inside an
    ExceptionGroup), else None."""
    if isinstance(exc, GroupVerdict):
        return str(exc)
    for inner in getattr(exc, "exceptions", ()):
        line = exit_line(inner)
        if line is not None:
            return line
    return None


def report(line: str) -> None:
    sys.stderr.write(f"supervisor-daemon: {line}\n")
    sys.stderr.flush()
