"""Where the TUI connects: targets (local sockets or SSH hosts) and the default connector.

The App receives a ``Connector`` in its constructor; tests pass one that yields a fake client.
Only ``supervisor.protocol`` is imported from the daemon's package.
"""

from __future__ import annotations

import os
from collections.abc import Callable, Mapping, Sequence
from contextlib import AbstractAsyncContextManager
from dataclasses import dataclass, field
from typing import Any, Protocol

from supervisor.protocol.client import connect_ssh, connect_unix
from supervisor.protocol.paths import client_socket


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


def default_socket(env: Mapping[str, str] | None = None) -> str:
    """The socket supervisor-ctl would use: ``$GNS_SOCKET``, else the system socket when
    there is one (or as root), else the per-user one."""
    return os.fspath(client_socket(env))


def connect(target: Target) -> AbstractAsyncContextManager[Client]:
    """The real connector: a Unix socket or an SSH bridge."""
    if target.kind == "ssh":
        return connect_ssh(target.address, target.remote_socket,
                           ssh_options=target.ssh_options)
    return connect_unix(target.address)
