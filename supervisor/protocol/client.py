"""Async client of the control socket, used by ``supervisor-ctl`` and the TUI.

    async with connect_unix(path) as client:
        status = await client.request("status")
        await client.request("subscribe", topics=["run", "log"])
        async for event in client.events():
            ...

``connect_ssh(host)`` runs ``supervisor-ctl bridge`` on the host and speaks the same protocol
over its stdio.
"""

from __future__ import annotations

import itertools
import json
import os
import shlex
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from typing import Any

import anyio
from anyio.abc import ByteStream, UNIXSocketStream
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from anyio.streams.stapled import StapledByteStream

from . import wire
from .paths import check_socket_folders


class DaemonError(Exception):
    """The daemon answered a request with an error."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(f"{code}: {message}")
        self.code = code
        self.message = message


class ConnectionLost(Exception):
    """The connection to the daemon closed."""


class DaemonClient:
    """One connection. Create with :func:`connect_unix`, :func:`connect_ssh` or :func:`attach`."""

    def __init__(self, stream: ByteStream, *, event_buffer: int = 4096) -> None:
        self._stream = stream
        self._ids = itertools.count(1)
        self._pending: dict[Any, anyio.Event] = {}
        self._replies: dict[Any, dict[str, Any]] = {}
        send, recv = anyio.create_memory_object_stream[dict[str, Any]](event_buffer)
        self._event_send: MemoryObjectSendStream[dict[str, Any]] = send
        self._event_recv: MemoryObjectReceiveStream[dict[str, Any]] = recv
        self.hello: dict[str, Any] = {}
        self._hello_seen = anyio.Event()
        self._closed = anyio.Event()
        self.events_dropped = 0
        self._write_lock = anyio.Lock()

    @property
    def closed(self) -> bool:
        return self._closed.is_set()

    async def request(self, cmd: str, **args: Any) -> Any:
        """Send one request and wait for its reply; raises DaemonError or ConnectionLost."""
        if self.closed:
            raise ConnectionLost("not connected")
        req_id = next(self._ids)
        done = anyio.Event()
        self._pending[req_id] = done
        try:
            async with self._write_lock:
                await self._stream.send(wire.encode({"id": req_id, "cmd": cmd, "args": args}))
            await done.wait()
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError) as exc:
            raise ConnectionLost(str(exc)) from None
        finally:
            self._pending.pop(req_id, None)
        reply = self._replies.pop(req_id, None)
        if reply is None:
            raise ConnectionLost("connection closed before the reply")
        if not reply.get("ok"):
            err = reply.get("error") or {}
            raise DaemonError(str(err.get("code", "internal")), str(err.get("message", "")))
        return reply.get("result")

    async def send_raw(self, data: bytes) -> None:
        """Send bytes as they are (tests of hostile input; the bridge)."""
        async with self._write_lock:
            await self._stream.send(data)

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        """Pushed events, in order, until the connection closes."""
        try:
            async for event in self._event_recv:
                yield event
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return

    async def _read_loop(self) -> None:
        splitter = wire.LineSplitter(limit=64 * wire.MAX_MESSAGE_BYTES)
        try:
            while True:
                try:
                    data = await self._stream.receive(65536)
                except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError,
                        OSError):
                    break
                for line in splitter.feed(data):
                    if line is not None:
                        self._dispatch(json.loads(line))
        finally:
            self._closed.set()
            self._hello_seen.set()
            for done in self._pending.values():
                done.set()
            self._event_send.close()

    def _dispatch(self, msg: dict[str, Any]) -> None:
        if "hello" in msg:
            self.hello = msg
            self._hello_seen.set()
        elif "event" in msg:
            try:
                self._event_send.send_nowait(msg)
            except anyio.WouldBlock:
                self.events_dropped += 1
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                pass  # nobody takes events any more (close_events): replies still come
        elif "id" in msg:
            done = self._pending.get(msg["id"])
            if done is not None:
                self._replies[msg["id"]] = msg
                done.set()

    def close_events(self) -> None:
        """Stop taking pushed events: :meth:`events` ends and later events are discarded,
        while requests still get their replies. Leaves nothing open for the garbage
        collector to warn about (a ResourceWarning otherwise)."""
        self._event_recv.close()

    async def aclose(self) -> None:
        await self._stream.aclose()


@asynccontextmanager
async def attach(stream: ByteStream, *, hello_timeout: float = 10.0) -> AsyncIterator[DaemonClient]:
    """Run a client over an already open byte stream (socket or ssh stdio).

    Errors raised by the body come out as themselves, not wrapped in an ExceptionGroup.
    """
    client = DaemonClient(stream)
    error: Exception | None = None
    async with anyio.create_task_group() as tg:
        tg.start_soon(client._read_loop)
        try:
            with anyio.fail_after(hello_timeout):
                await client._hello_seen.wait()
            if not client.hello:
                raise ConnectionLost("the daemon closed the connection before its hello")
            if client.hello.get("protocol") != wire.PROTOCOL_VERSION:
                raise ConnectionLost(f"daemon speaks protocol {client.hello.get('protocol')}, "
                                     f"this client {wire.PROTOCOL_VERSION}")
            yield client
        except Exception as exc:
            error = exc
        finally:
            tg.cancel_scope.cancel()
            with anyio.CancelScope(shield=True):
                await stream.aclose()
            # here, not after the block: a body cancelled from outside (a TUI worker replaced
            # or the app quitting) leaves through the task group's exit, skipping what follows
            client.close_events()
    if error is not None:
        raise error


async def open_unix(path: str | os.PathLike[str]) -> UNIXSocketStream:
    """Connect to the socket at ``path`` once its folders are known safe: no other user
    could have put their own socket there (raises SocketPathError otherwise)."""
    check_socket_folders(path)
    return await anyio.connect_unix(os.fspath(path))


@asynccontextmanager
async def connect_unix(path: str | os.PathLike[str]) -> AsyncIterator[DaemonClient]:
    stream = await open_unix(path)
    async with attach(stream) as client:
        yield client


def ssh_command(host: str, socket_path: str | None = None,
                ssh_options: Sequence[str] = ()) -> list[str]:
    """The ssh command line that runs the bridge on ``host``."""
    remote = ["supervisor-ctl"]
    if socket_path:
        remote += ["--socket", socket_path]
    remote.append("bridge")
    return ["ssh", "-T", "-o", "BatchMode=yes", *ssh_options, host, shlex.join(remote)]


@asynccontextmanager
async def connect_ssh(host: str, socket_path: str | None = None, *,
                      ssh_options: Sequence[str] = (),
                      command: Sequence[str] | None = None) -> AsyncIterator[DaemonClient]:
    """Speak the protocol through ``ssh HOST supervisor-ctl bridge``."""
    argv = list(command) if command else ssh_command(host, socket_path, ssh_options)
    process = await anyio.open_process(argv, stderr=None)
    assert process.stdin is not None and process.stdout is not None
    stream = StapledByteStream(process.stdin, process.stdout)
    try:
        async with attach(stream, hello_timeout=30.0) as client:
            yield client
    finally:
        with anyio.CancelScope(shield=True):
            if process.returncode is None:
                process.terminate()
                with anyio.move_on_after(2):
                    await process.wait()
                if process.returncode is None:
                    process.kill()
                    await process.wait()
