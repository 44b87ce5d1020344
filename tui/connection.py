"""Where the TUI connects: targets (local sockets or SSH hosts) and the default connector.

The App receives a ``Connector`` in its constructor; tests pass one that yields a fake client.
Only ``supervisor.protocol`` is imported from the daemon's package.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

from supervisor.protocol.client import connect_ssh, connect_unix

SYSTEM_SOCKET = "/run/gpu-node-supervisor/control.sock"


class Client(Protocol):
    """What the TUI needs of a connection (``DaemonClient`` satisfies it)."""

    hello: dict[str, Any]

    async def request(self, cmd: str, **args: Any) -> Any: ...

    def events(self) -> Any: ...


@dataclass(frozen=True)
class Target:
    """One node: a local Unix socket, or a host reached with ``ssh HOST supervisor-ctl bridge``."""

    kind: str  # "unix" | "ssh"
    address: str  # socket path, or ssh host
    remote_socket: str | None = None
    ssh_options: tuple[str, ...] = field(default=())

    @property
    def label(self) -> str:
        if self.kind == "ssh":
            return self.address
        return "local" if self.address == default_socket() else self.address

    @classmethod
    def unix(cls, path: str | os.PathLike[str]) -> Target:
        return cls("unix", os.fspath(path))

    @classmethod
    def ssh(cls, host: str, remote_socket: str | None = None,
            ssh_options: Sequence[str] = ()) -> Target:
        return cls("ssh", host, remote_socket, tuple(ssh_options))


Connector = Callable[[Target], AbstractAsyncContextManager[Client]]


def default_socket(env: dict[str, str] | None = None) -> str:
    """``$GNS_SOCKET``, else the system socket if it exists, else the per-user one."""
    env = dict(os.environ) if env is None else env
    if env.get("GNS_SOCKET"):
        return env["GNS_SOCKET"]
    if Path(SYSTEM_SOCKET).exists():
        return SYSTEM_SOCKET
    runtime = env.get("XDG_RUNTIME_DIR") or f"/run/user/{os.getuid()}"
    return os.path.join(runtime, "gpu-node-supervisor", "control.sock")


def connect(target: Target) -> AbstractAsyncContextManager[Client]:
    """The real connector: a Unix socket or an SSH bridge."""
    if target.kind == "ssh":
        return connect_ssh(target.address, target.remote_socket,
                           ssh_options=target.ssh_options)
    return connect_unix(target.address)
