"""The MCP server's way to the daemon: one connection per tool call, errors worded as ctl's.

A connection per call keeps nothing to repair: a daemon that went away fails the call with
supervisor-ctl's words, and the next call simply connects again (to a restarted daemon, whose
new pid the answer notes). The hello of each connection says whether this peer may change
anything, so the tools offered follow the daemon's access rules.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any

from ..protocol.client import ConnectionLost, DaemonClient, DaemonError, connect_unix
from .ctl_format import unreachable


class ToolError(Exception):
    """A tool call failed; the message is what the model reads (supervisor-ctl's words)."""


class DaemonLink:
    def __init__(self, path: str) -> None:
        self.path = path
        self._pid: Any = None  # the daemon last answered from
        self._lost = False  # the last call could not reach it
        self._news = ""

    @asynccontextmanager
    async def connect(self) -> AsyncIterator[DaemonClient]:
        """A connected client; DaemonError, a refused connect or a lost connection come out as
        ToolError with the text supervisor-ctl prints for them."""
        try:
            async with connect_unix(self.path) as client:
                self._seen(client)
                yield client
        except DaemonError as exc:
            raise ToolError(f"{exc.code}: {exc.message}") from None
        except (OSError, ConnectionLost, TimeoutError) as exc:
            self._lost = True
            raise ToolError(unreachable(self.path, exc) + "; the next call connects again"
                            ) from None

    async def request(self, cmd: str, **args: Any) -> Any:
        async with self.connect() as client:
            return await client.request(cmd, **args)

    async def can_mutate(self) -> bool | None:
        """Whether this peer may run mutating commands (the daemon's hello); None when the
        daemon cannot be reached to ask."""
        try:
            async with self.connect() as client:
                return bool(client.hello.get("can_mutate"))
        except ToolError:
            return None

    def _seen(self, client: DaemonClient) -> None:
        """Remember which daemon answered, for :meth:`news`."""
        pid = client.hello.get("pid")
        if self._pid is not None and pid != self._pid:
            self._news = f"the daemon restarted since the last call (pid {self._pid}, now {pid})"
        elif self._lost:
            self._news = f"the daemon at {self.path} answers again (pid {pid})"
        self._pid, self._lost = pid, False

    def news(self) -> str:
        """A line for the answer when the daemon came back or restarted, else ''."""
        news, self._news = self._news, ""
        return news
