"""The emulator's HTTP server treats a client that hangs up as routine: no traceback in the run's
log (an operator reads a traceback there as the server crashing)."""

from __future__ import annotations

import socket
import struct
import threading
import types
from collections.abc import Iterator

import pytest

from supervisor.emulator.api import Server


@pytest.fixture
def server() -> Iterator[Server]:
    srv = Server(types.SimpleNamespace(), "127.0.0.1", 0)
    thread = threading.Thread(target=srv.serve_forever, daemon=True)
    thread.start()
    try:
        yield srv
    finally:
        srv.shutdown()
        srv.server_close()
        thread.join(10)


def hang_up_mid_request(port: int) -> None:
    """Send half a request line, then close with a reset (SO_LINGER 0), as a probe that gave
    up does."""
    s = socket.create_connection(("127.0.0.1", port), timeout=5)
    s.sendall(b"GET /hea")
    s.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    s.close()


def test_a_client_that_hangs_up_leaves_no_traceback(server: Server,
                                                     capsys: pytest.CaptureFixture[str]) -> None:
    done = threading.Event()
    errors: list[BaseException] = []
    real = Server.handle_error

    def seen(self: Server, request: object, address: object) -> None:
        import sys
        errors.append(sys.exc_info()[1])  # type: ignore[arg-type]
        try:
            real(self, request, address)
        finally:
            done.set()

    server.handle_error = types.MethodType(seen, server)  # type: ignore[method-assign]
    hang_up_mid_request(server.server_address[1])
    assert done.wait(10), "the server never saw the reset"
    assert isinstance(errors[0], ConnectionResetError)
    err = capsys.readouterr().err
    assert "Traceback" not in err and "ConnectionResetError" not in err
