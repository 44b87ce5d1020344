"""supervisor-daemon: one root task group, services started with start(), signals in one place."""

from __future__ import annotations

import argparse
import logging
import os
import sys
from typing import Any

import anyio

from . import guard_identity

if sys.version_info < (3, 11):  # pragma: no cover - anyio brings the backport there
    from exceptiongroup import BaseExceptionGroup


def parse_args(argv: list[str] | None = None) -> argparse.Namespace:
    p = argparse.ArgumentParser(
        prog="supervisor-daemon",
        description="Supervise LLM inference servers on this GPU host.")
    p.add_argument("--config", help="config file (default /etc/gpu-node-supervisor/"
                   "supervisor.toml, or ~/.config/gpu-node-supervisor/supervisor.toml)")
    p.add_argument("--profiles", dest="profiles_dir", help="profiles directory")
    p.add_argument("--state-dir", dest="state_dir", help="history, logs and run folders")
    p.add_argument("--socket", help="control socket path")
    p.add_argument("--fake-gpus", dest="fake_gpus", type=int, metavar="N",
                   help="simulate N GPUs instead of NVML (demo, tests)")
    p.add_argument("--orchestrator", choices=("auto", "slurm", "lws"),
                   help="launch this node's rank of a group that Slurm or a Kubernetes "
                   "LeaderWorkerSet placed (rank, size, rank 0's host from their environment); "
                   "exit 1 when the rank fails, so the orchestrator stops the whole group")
    p.add_argument("--startup-profile", dest="startup_profile", metavar="NAME",
                   help="profile to launch at start (with --orchestrator: this rank's part)")
    p.add_argument("--log-level", default=os.environ.get("GNS_LOG_LEVEL", "INFO"))
    return p.parse_args(argv)


def main(argv: list[str] | None = None) -> None:
    guard_identity()
    from ..config import ConfigError, load

    args = parse_args(argv)
    logging.basicConfig(level=args.log_level.upper(),
                        format="%(asctime)s %(levelname)s %(name)s: %(message)s")
    try:
        config = load(args.config, profiles_dir=args.profiles_dir, state_dir=args.state_dir,
                      socket=args.socket, fake_gpus=args.fake_gpus,
                      startup_profile=args.startup_profile,
                      cluster_orchestrator=args.orchestrator)
        check_placement(config)
    except ConfigError as exc:
        sys.stderr.write(f"supervisor-daemon: {exc}\n")
        raise SystemExit(2) from None
    if config.fake_gpus is not None and config.fake_gpus < 0:
        sys.stderr.write("supervisor-daemon: --fake-gpus must be >= 0\n")
        raise SystemExit(2)
    from ..service import run_daemon

    try:
        anyio.run(run_daemon, config)
    except KeyboardInterrupt:  # pragma: no cover
        pass
    except Exception as exc:
        from ..cluster.orchestrated import exit_line, report

        line = exit_line(exc)
        if line is not None:  # this rank failed: the orchestrator stops the group
            report(line)
            raise SystemExit(1) from None
        reason = refusal(exc)
        if reason is None:
            raise
        sys.stderr.write(f"supervisor-daemon: {reason}\n")
        raise SystemExit(1) from None


def check_placement(config: Any) -> None:
    """With an orchestrator, its environment must place this node before anything starts."""
    if config.cluster_orchestrator is None:
        return
    from ..cluster.orchestrator import OrchestratorError, placement
    from ..config import ConfigError

    try:
        place = placement(os.environ, config.cluster_orchestrator)
    except OrchestratorError as exc:
        raise ConfigError(f"--orchestrator {config.cluster_orchestrator}: {exc}") from None
    logging.getLogger("supervisor").info("placed by %s", place.describe())


def refusal(exc: BaseException) -> str | None:
    """The one line to print when the daemon refused to start, also from inside a task group
    (an ExceptionGroup); None for a crash, which keeps its traceback."""
    from ..protocol.paths import SocketPathError
    from ..service import StartupRefused

    if isinstance(exc, BaseExceptionGroup):
        found = (refusal(e) for e in exc.exceptions)
        return next((r for r in found if r is not None), None)
    if isinstance(exc, (StartupRefused, SocketPathError)):
        return str(exc)
    return None


if __name__ == "__main__":
    main()
