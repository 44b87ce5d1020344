"""A small etcd v3 client over its JSON gateway (``/v3/kv/*``, ``/v3/lease/*``, ``/v3/watch``).

HTTP/1.1 on anyio TCP streams, one connection per call (etcd is on a near network and calls
are few: a put per phase change, a keepalive a few seconds apart); a watch holds its own
connection and yields events as the gateway streams them. Keys and values travel base64, 64-bit
numbers as JSON strings: both are the gateway's encoding. Several endpoints are tried in turn.
"""

from __future__ import annotations

import base64
import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any
from urllib.parse import urlsplit

import anyio
from anyio.streams.buffered import BufferedByteReceiveStream

MAX_HEADER = 64 * 1024
MAX_BODY = 16 * 2**20


class EtcdError(Exception):
    """etcd could not be reached, or refused the call; the message says which endpoint."""


@dataclass(frozen=True)
class KV:
    key: str
    value: bytes
    mod_revision: int
    create_revision: int
    lease: int

    def json(self) -> Any:
        return json.loads(self.value)


@dataclass(frozen=True)
class Event:
    kind: str          # "PUT" or "DELETE"
    kv: KV
    prev: KV | None


def _b64(text: str | bytes) -> str:
    raw = text.encode() if isinstance(text, str) else text
    return base64.b64encode(raw).decode()


def _unb64(text: str | None) -> bytes:
    return base64.b64decode(text or "")


def prefix_end(prefix: str) -> bytes:
    """The range end that covers every key starting with ``prefix``."""
    raw = bytearray(prefix.encode())
    while raw:
        if raw[-1] < 0xFF:
            raw[-1] += 1
            return bytes(raw)
        raw.pop()
    return b"\0"


def _kv(data: dict[str, Any]) -> KV:
    return KV(key=_unb64(data.get("key")).decode(errors="replace"),
              value=_unb64(data.get("value")),
              mod_revision=int(data.get("mod_revision", 0)),
              create_revision=int(data.get("create_revision", 0)),
              lease=int(data.get("lease", 0)))


def parse_endpoint(url: str) -> tuple[str, int]:
    parts = urlsplit(url if "://" in url else f"http://{url}")
    if parts.scheme != "http" or not parts.hostname:
        raise ValueError(f"etcd endpoint {url!r}: expected http://HOST:PORT")
    return parts.hostname, parts.port or 2379


class Etcd:
    def __init__(self, endpoints: list[str] | str, timeout: float = 2.0) -> None:
        self.endpoints = [endpoints] if isinstance(endpoints, str) else list(endpoints)
        for url in self.endpoints:
            parse_endpoint(url)
        self.timeout = timeout
        self._preferred = 0  # the endpoint that answered last goes first

    # -- kv -----------------------------------------------------------------------------
    async def put(self, key: str, value: str | bytes, lease: int = 0) -> int:
        body: dict[str, Any] = {"key": _b64(key), "value": _b64(value)}
        if lease:
            body["lease"] = str(lease)
        res = await self.call("/v3/kv/put", body)
        return int(res.get("header", {}).get("revision", 0))

    async def get(self, key: str) -> KV | None:
        res = await self.call("/v3/kv/range", {"key": _b64(key)})
        kvs = res.get("kvs") or []
        return _kv(kvs[0]) if kvs else None

    async def get_prefix(self, prefix: str) -> tuple[list[KV], int]:
        """Every key under ``prefix`` and the store's revision at that moment."""
        res = await self.call("/v3/kv/range", {"key": _b64(prefix),
                                               "range_end": _b64(prefix_end(prefix))})
        return ([_kv(d) for d in res.get("kvs") or []],
                int(res.get("header", {}).get("revision", 0)))

    async def delete_prefix(self, prefix: str) -> None:
        await self.call("/v3/kv/deleterange", {"key": _b64(prefix),
                                               "range_end": _b64(prefix_end(prefix))})

    async def put_if_absent(self, key: str, value: str | bytes) -> bool:
        """Put ``key`` only if it does not exist (a transaction); True if this call wrote it."""
        res = await self.call("/v3/kv/txn", {
            "compare": [{"key": _b64(key), "target": "CREATE", "result": "EQUAL",
                         "create_revision": "0"}],
            "success": [{"request_put": {"key": _b64(key), "value": _b64(value)}}]})
        return bool(res.get("succeeded"))

    # -- leases -------------------------------------------------------------------------
    async def grant(self, ttl: int) -> tuple[int, int]:
        res = await self.call("/v3/lease/grant", {"TTL": str(ttl)})
        if res.get("error"):
            raise EtcdError(f"lease grant refused: {res['error']}")
        return int(res["ID"]), int(res.get("TTL", ttl))

    async def keepalive(self, lease: int) -> int:
        """Renew ``lease``; its TTL left, 0 when etcd no longer knows it (expired)."""
        res = await self.call("/v3/lease/keepalive", {"ID": str(lease)})
        return int((res.get("result") or res).get("TTL", 0))

    async def revoke(self, lease: int) -> None:
        await self.call("/v3/lease/revoke", {"ID": str(lease)})

    # -- watch --------------------------------------------------------------------------
    async def watch_prefix(self, prefix: str, start_revision: int) -> AsyncIterator[list[Event]]:
        """Events under ``prefix`` from ``start_revision`` on, batch by batch, until the
        connection ends (the caller reconnects from the last revision it saw + 1)."""
        body = {"create_request": {"key": _b64(prefix), "range_end": _b64(prefix_end(prefix)),
                                   "start_revision": str(start_revision), "prev_kv": True}}
        stream = await self._connect_any()
        async with stream:
            reader = await self._send(stream, "/v3/watch", body)
            async for message in _json_lines(reader):
                result = message.get("result") or {}
                if message.get("error"):
                    raise EtcdError(f"watch failed: {message['error']}")
                if result.get("canceled"):
                    raise EtcdError(f"watch cancelled by etcd: "
                                    f"{result.get('cancel_reason') or 'compacted?'}")
                events = [Event(kind=e.get("type", "PUT"), kv=_kv(e.get("kv") or {}),
                                prev=_kv(e["prev_kv"]) if e.get("prev_kv") else None)
                          for e in result.get("events") or []]
                if events:
                    yield events

    # -- transport ----------------------------------------------------------------------
    async def call(self, path: str, body: dict[str, Any]) -> dict[str, Any]:
        errors: list[str] = []
        for i in self._order():
            url = self.endpoints[i]
            try:
                with anyio.fail_after(self.timeout):
                    stream = await anyio.connect_tcp(*parse_endpoint(url))
                    async with stream:
                        reader = await self._send(stream, path, body)
                        data = await _read_body(reader)
                self._preferred = i
                return _decode(data, url, path)
            except (OSError, TimeoutError, anyio.EndOfStream, anyio.IncompleteRead,
                    anyio.BrokenResourceError, anyio.DelimiterNotFound) as exc:
                errors.append(f"{url}: {type(exc).__name__} {exc}".strip())
        raise EtcdError(f"etcd {path} failed on every endpoint ({'; '.join(errors)})")

    def _order(self) -> list[int]:
        n = len(self.endpoints)
        return [(self._preferred + k) % n for k in range(n)]

    async def _connect_any(self) -> Any:
        errors: list[str] = []
        for i in self._order():
            url = self.endpoints[i]
            try:
                with anyio.fail_after(self.timeout):
                    stream = await anyio.connect_tcp(*parse_endpoint(url))
                self._preferred = i
                return stream
            except (OSError, TimeoutError) as exc:
                errors.append(f"{url}: {exc}")
        raise EtcdError(f"cannot reach etcd ({'; '.join(errors)})")

    async def _send(self, stream: Any, path: str, body: dict[str, Any],
                    ) -> _Response:
        host, port = stream.extra(anyio.abc.SocketAttribute.remote_address)[:2]
        payload = json.dumps(body).encode()
        head = (f"POST {path} HTTP/1.1\r\nHost: {host}:{port}\r\n"
                f"Content-Type: application/json\r\nContent-Length: {len(payload)}\r\n"
                f"Connection: close\r\n\r\n").encode()
        await stream.send(head + payload)
        return await _Response.read(BufferedByteReceiveStream(stream))


def _decode(data: bytes, url: str, path: str) -> dict[str, Any]:
    try:
        obj = json.loads(data or b"{}")
    except ValueError:
        raise EtcdError(f"{url}{path}: not JSON: {data[:200]!r}") from None
    if isinstance(obj, dict) and "code" in obj and ("message" in obj or "error" in obj):
        raise EtcdError(f"{url}{path}: {obj.get('message') or obj.get('error')}")
    return obj if isinstance(obj, dict) else {}


class _Response:
    def __init__(self, status: int, headers: dict[str, str],
                 reader: BufferedByteReceiveStream) -> None:
        self.status = status
        self.headers = headers
        self.reader = reader

    @classmethod
    async def read(cls, reader: BufferedByteReceiveStream) -> _Response:
        status_line = await reader.receive_until(b"\r\n", MAX_HEADER)
        parts = status_line.decode("latin-1").split(" ", 2)
        if len(parts) < 2 or not parts[1].isdigit():
            raise EtcdError(f"not an HTTP response: {status_line[:100]!r}")
        headers: dict[str, str] = {}
        while True:
            line = await reader.receive_until(b"\r\n", MAX_HEADER)
            if not line:
                break
            name, _, value = line.decode("latin-1").partition(":")
            headers[name.strip().lower()] = value.strip()
        return cls(int(parts[1]), headers, reader)

    async def chunks(self) -> AsyncIterator[bytes]:
        if "chunked" in self.headers.get("transfer-encoding", "").lower():
            while True:
                size_line = await self.reader.receive_until(b"\r\n", MAX_HEADER)
                size = int(size_line.split(b";")[0] or b"0", 16)
                if size == 0:
                    return
                data = await self.reader.receive_exactly(size)
                await self.reader.receive_exactly(2)
                yield data
        elif "content-length" in self.headers:
            length = int(self.headers["content-length"])
            if length > MAX_BODY:
                raise EtcdError(f"response too large ({length} bytes)")
            if length:
                yield await self.reader.receive_exactly(length)
        else:  # until the connection closes
            while True:
                try:
                    yield await self.reader.receive()
                except anyio.EndOfStream:
                    return


async def _read_body(res: _Response) -> bytes:
    parts: list[bytes] = []
    size = 0
    async for chunk in res.chunks():
        parts.append(chunk)
        size += len(chunk)
        if size > MAX_BODY:
            raise EtcdError("response too large")
    return b"".join(parts)


async def _json_lines(res: _Response) -> AsyncIterator[dict[str, Any]]:
    """The gateway streams one JSON object per message, each ending with a newline."""
    buf = b""
    async for chunk in res.chunks():
        buf += chunk
        while b"\n" in buf:
            line, buf = buf.split(b"\n", 1)
            if line.strip():
                yield json.loads(line)
    if buf.strip():
        yield json.loads(buf)
