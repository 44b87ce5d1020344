"""The control socket server: peers, per-client outboxes, request dispatch.

It only translates requests into calls on the command table; it never waits for a client
(each client has a writer task draining its own bounded outbox).
"""

from __future__ import annotations

import contextvars
import logging
import socket
import struct
import time
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import anyio
from anyio.abc import SocketAttribute, SocketListener, SocketStream

from ..events import Hub, Outbox
from . import wire
from .socketfile import BoundSocket

log = logging.getLogger(__name__)

MAX_IN_FLIGHT = 16
MAX_PENDING_REPLY_BYTES = 8 * 2**20
# A log follower's send buffer: room for one batch (up to 1 MiB), so that a batch usually goes
# into the socket with one send rather than five rounds of wait-for-writable. The kernel caps
# it at net.core.wmem_max (208 KiB by default; raise it on a host with many followers).
FOLLOWER_SNDBUF = 2**20


@dataclass(frozen=True)
class Peer:
    pid: int | None
    uid: int | None
    gid: int | None
    groups: frozenset[int] = frozenset()

    def to_dict(self) -> dict[str, Any]:
        return {"pid": self.pid, "uid": self.uid, "gid": self.gid}


def peer_of(stream: Any) -> Peer:
    """SO_PEERCRED of a Unix socket peer, plus its supplementary groups from /proc."""
    try:
        sock: socket.socket = stream.extra(SocketAttribute.raw_socket)
        raw = sock.getsockopt(socket.SOL_SOCKET, socket.SO_PEERCRED, struct.calcsize("3i"))
        pid, uid, gid = struct.unpack("3i", raw)
    except Exception:  # not a Unix socket (tests over pipes): unknown peer
        return Peer(None, None, None)
    return Peer(pid, uid, gid, frozenset(_groups_of(pid)) | {gid})


def _groups_of(pid: int) -> list[int]:
    try:
        with open(f"/proc/{pid}/status") as f:
            for line in f:
                if line.startswith("Groups:"):
                    return [int(g) for g in line.split()[1:]]
    except (OSError, ValueError):
        pass
    return []


class Connection:
    """One client: its peer, outbox, in-flight requests.

    Whatever is queued goes out at once when the socket has room (a plain non-blocking send,
    on the producer's call): a verdict or a reply does not wait for the loop to schedule the
    writer task. What the socket cannot take now, the writer task sends, in order, when it
    can (``_rest`` first, then the outbox).
    """

    def __init__(self, stream: Any, peer: Peer, can_mutate: bool, reason: str | None) -> None:
        self.stream = stream
        self.peer = peer
        self.can_mutate = can_mutate
        self.read_only_reason = reason
        self.wake = anyio.Event()
        self.outbox = Outbox(on_ready=self._ready)
        self.in_flight = 0
        self.closed = False
        self._sock: socket.socket | None = _raw_socket(stream)
        self._writing = False           # the writer task has a send in progress
        self._rest: memoryview | None = None  # the unsent end of a direct send

    def _ready(self) -> None:
        if not self._writing and self._rest is None and self._sock is not None \
                and not self.closed:
            self._send_now()
        if self.outbox.items or self._rest is not None:
            self.wake.set()

    def _send_now(self) -> None:
        data = self.outbox.take()
        try:
            sent = self._sock.send(data)  # type: ignore[union-attr]
        except (BlockingIOError, InterruptedError):
            sent = 0
        except OSError:  # gone: the reader or writer will see it and end the connection
            sent = 0
        if sent < len(data):
            self._rest = memoryview(data)[sent:]
            self.outbox.unsent = len(self._rest)

    def send(self, obj: Any) -> None:
        self.outbox.put_reply(wire.encode(obj))

    def expect_bulk(self) -> None:
        """This client follows the log: ask for a send buffer that holds a batch."""
        if self._sock is None:
            return
        try:
            if self._sock.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF) < FOLLOWER_SNDBUF:
                self._sock.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, FOLLOWER_SNDBUF)
        except OSError:  # a socket that will not: batches take more sends, nothing else
            pass

    async def write_loop(self) -> None:
        while not self.closed:
            await self.wake.wait()
            self.wake = anyio.Event()
            while True:
                if self._rest is not None:
                    data: bytes | memoryview = self._rest
                    self._rest = None
                elif self.outbox.items or self.outbox.dropped_pending:
                    data = self.outbox.take()
                    if not data:
                        break
                else:
                    break
                self._writing = True
                self.outbox.unsent = len(data)
                try:
                    await self.stream.send(data)
                finally:
                    self._writing = False
                    self.outbox.unsent = 0


def _raw_socket(stream: Any) -> socket.socket | None:
    try:
        sock = stream.extra(SocketAttribute.raw_socket)
    except Exception:  # not a socket stream (a bridge in tests): the writer task does it all
        return None
    return sock if isinstance(sock, socket.socket) else None


Dispatch = Callable[[Connection, wire.Request], Awaitable[Any]]


class ControlServer:
    def __init__(self, path: Path, hub: Hub, dispatch: Dispatch,
                 access: Callable[[Peer], tuple[bool, str | None]],
                 hello_extra: Callable[[], dict[str, Any]] | None = None,
                 socket_gid: int | None = None) -> None:
        self.path = path
        self.socket_gid = socket_gid  # the group that may connect (socket is 0660)
        self.hub = hub
        self.dispatch = dispatch
        self.access = access
        self.hello_extra = hello_extra or (lambda: {})
        self.connections: set[Connection] = set()
        self.stats = {"connections": 0, "requests": 0, "errors": 0, "oversize": 0,
                      "dropped_closed": 0}  # events dropped by clients now gone
        # Seconds from reading a request to its reply being ready, for the latest requests:
        # the daemon's own share of a round trip (the rest is transport and the scheduler).
        # A request that waited on a run (see waits_on_run) is kept apart in waited_s.
        self.handle_s: deque[float] = deque(maxlen=512)
        self.waited_s: deque[float] = deque(maxlen=512)

    async def serve(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        bound = BoundSocket(self.path, self.socket_gid)
        try:
            listener = await SocketListener.from_socket(bound.sock)
            async with listener:
                task_status.started()
                await listener.serve(self.handle)
        finally:
            bound.release()  # only the file bound here: never another daemon's socket

    async def handle(self, stream: SocketStream) -> None:
        await self.serve_stream(stream, peer_of(stream))

    async def serve_stream(self, stream: Any, peer: Peer) -> None:
        """Speak the protocol on any byte stream (the socket, or a bridge in tests)."""
        can_mutate, reason = self.access(peer)
        conn = Connection(stream, peer, can_mutate, reason)
        self.connections.add(conn)
        self.stats["connections"] += 1
        conn.send({"hello": wire.HELLO_NAME, "protocol": wire.PROTOCOL_VERSION,
                   "peer": peer.to_dict(), "can_mutate": can_mutate,
                   "read_only_reason": reason, **self.hello_extra()})
        try:
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._writer, conn, tg.cancel_scope)
                await self._read_loop(conn, tg)
                tg.cancel_scope.cancel()
        except Exception as exc:  # a broken client never takes the daemon down
            log.debug("client connection ended: %r", exc)
        finally:
            conn.closed = True
            self.stats["dropped_closed"] += conn.outbox.dropped_total
            self.hub.unsubscribe(conn.outbox)
            self.connections.discard(conn)
            with anyio.CancelScope(shield=True):
                await stream.aclose()

    async def _writer(self, conn: Connection, scope: anyio.CancelScope) -> None:
        try:
            await conn.write_loop()
        except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
            pass
        scope.cancel()

    async def _read_loop(self, conn: Connection, tg: Any) -> None:
        splitter = wire.LineSplitter()
        while True:
            try:
                data = await conn.stream.receive(65536)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError,
                    OSError):
                return
            read_at = time.monotonic()
            for line in splitter.feed(data):
                if line is None:
                    self.stats["oversize"] += 1
                    conn.send(wire.reply_error(None, wire.TOO_LARGE,
                                               f"message over {wire.MAX_MESSAGE_BYTES} bytes"))
                    continue
                self._accept(conn, line, tg, read_at)
            if sum(len(i) for i in conn.outbox.items) > MAX_PENDING_REPLY_BYTES:
                return  # a client that sends but never reads: drop it, not the daemon

    def _accept(self, conn: Connection, line: bytes, tg: Any, read_at: float) -> None:
        self.stats["requests"] += 1
        try:
            req = wire.parse_request(line)
        except wire.ProtocolError as exc:
            self.stats["errors"] += 1
            conn.send(wire.reply_error(None, exc.code, exc.message))
            return
        if conn.in_flight >= MAX_IN_FLIGHT:
            conn.send(wire.reply_error(req.id, wire.BUSY,
                                       f"more than {MAX_IN_FLIGHT} requests in flight"))
            return
        conn.in_flight += 1
        tg.start_soon(self._run_request, conn, req, read_at)

    async def _run_request(self, conn: Connection, req: wire.Request, read_at: float) -> None:
        waited = _Waited()
        _WAITED.set(waited)  # this request's task has its own copy of the context
        try:
            result = await self.dispatch(conn, req)
            reply = wire.reply_ok(req.id, result)
        except wire.ProtocolError as exc:
            self.stats["errors"] += 1
            reply = wire.reply_error(req.id, exc.code, exc.message)
        except Exception as exc:
            self.stats["errors"] += 1
            log.exception("command %s failed", req.cmd)
            reply = wire.reply_error(req.id, wire.INTERNAL, f"{type(exc).__name__}: {exc}")
        finally:
            conn.in_flight -= 1
        (self.waited_s if waited.on_run else self.handle_s).append(time.monotonic() - read_at)
        try:
            conn.send(reply)
        except (TypeError, ValueError) as exc:
            conn.send(wire.reply_error(req.id, wire.INTERNAL, f"unencodable result: {exc}"))

    def statistics(self) -> dict[str, Any]:
        dropped = sum(c.outbox.dropped_total for c in self.connections)
        return {**self.stats, "clients": len(self.connections), "dropped": dropped,
                "log_bytes_skipped": self.hub.log_bytes_skipped,
                "dropped_total": dropped + self.stats["dropped_closed"],
                "handle_ms": _percentiles_ms(self.handle_s),
                "waited_ms": _percentiles_ms(self.waited_s)}


class _Waited:
    on_run = False


_WAITED: contextvars.ContextVar[_Waited] = contextvars.ContextVar("request_waited")


def waits_on_run() -> None:
    """Called by a command that waits on a run (to start, stop or settle): its time is the
    run's, not the daemon's own, so it counts in ``waited_ms`` rather than ``handle_ms``."""
    waited = _WAITED.get(None)
    if waited is not None:
        waited.on_run = True


def _percentiles_ms(seconds: deque[float]) -> dict[str, Any]:
    """p50 and p99 in ms of the latest requests (nearest rank); None before any."""
    if not seconds:
        return {"n": 0, "p50": None, "p99": None}
    s = sorted(seconds)
    p50, p99 = (round(s[min(len(s) - 1, int(q * len(s)))] * 1000, 3) for q in (0.50, 0.99))
    return {"n": len(s), "p50": p50, "p99": p99}
