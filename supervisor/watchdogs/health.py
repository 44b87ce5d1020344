"""The HTTP health probe: a tiny GET over anyio, no HTTP library needed."""

from __future__ import annotations

import errno
from dataclasses import dataclass

import anyio


@dataclass(frozen=True)
class ProbeResult:
    status: int | None      # HTTP status, None when there was no answer
    error: str | None = None
    refused: bool = False   # nothing listens on the port (decided from the errno)

    @property
    def ok(self) -> bool:
        return self.status == 200


async def probe(host: str, port: int, path: str, timeout: float) -> ProbeResult:
    """GET http://host:port/path; the status line is all we need."""
    connect_host = "127.0.0.1" if host in ("0.0.0.0", "") else host
    try:
        with anyio.fail_after(timeout):
            stream = await anyio.connect_tcp(connect_host, port)
            async with stream:
                req = (f"GET {path} HTTP/1.0\r\nHost: {connect_host}:{port}\r\n"
                       "Connection: close\r\n\r\n")
                await stream.send(req.encode())
                head = b""
                while b"\r\n" not in head and len(head) < 4096:
                    head += await stream.receive(1024)
    except TimeoutError:
        return ProbeResult(None, f"no answer within {timeout:g} s")
    except (OSError, anyio.EndOfStream, anyio.BrokenResourceError) as exc:
        refused = _refused(exc)
        return ProbeResult(None, "connection refused" if refused else _describe(exc), refused)
    try:
        return ProbeResult(int(head.split(b" ", 2)[1]))
    except (IndexError, ValueError):
        return ProbeResult(None, f"bad answer: {head[:60]!r}")


def _refused(exc: BaseException) -> bool:
    """ECONNREFUSED anywhere in the chain: anyio wraps each address's failure in one
    "All connection attempts failed" OSError (a group when there were several)."""
    seen: set[int] = set()
    todo: list[BaseException] = [exc]
    while todo:
        e = todo.pop()
        if id(e) in seen:
            continue
        seen.add(id(e))
        if isinstance(e, ConnectionRefusedError) or (
                isinstance(e, OSError) and e.errno == errno.ECONNREFUSED):
            return True
        todo.extend(getattr(e, "exceptions", ()))  # an exception group's members
        for nxt in (e.__cause__, e.__context__):
            if nxt is not None:
                todo.append(nxt)
    return False


def _describe(exc: BaseException) -> str:
    if isinstance(exc, OSError) and exc.errno is not None:
        return exc.strerror or str(exc)
    return str(exc) or type(exc).__name__


def port_in_use(host: str, port: int) -> bool:
    """Would the server fail to bind host:port? (SGLang only finds out after loading.)"""
    import socket

    family = socket.AF_INET6 if ":" in host else socket.AF_INET
    with socket.socket(family, socket.SOCK_STREAM) as sock:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            sock.bind((host or "0.0.0.0", port))
        except OSError as exc:
            return exc.errno == errno.EADDRINUSE
    return False
