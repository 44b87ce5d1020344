"""The chat benchmark against the real emulator: complete, too short, cut off, and killed.

A small TCP proxy sits between the benchmark and the emulator, so a stream can be ended or the
server killed after a given number of tokens, at a point the test chooses rather than by timing.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
from collections.abc import Iterator

import pytest

from supervisor.benchmark import (
    MIN_RATE_SECONDS,
    MIN_RATE_TOKENS,
    checked,
    compare,
    rate_of,
    run_benchmark,
)

READY = "The server is fired up and ready to roll!"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


class Emulator:
    def __init__(self, tokens_per_s: float) -> None:
        self.port = free_port()
        env = dict(os.environ, SGLANG_EMULATOR_TIME_SCALE="0.01",
                   SGLANG_EMULATOR_TOKENS_PER_S=str(tokens_per_s))
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "supervisor.emulator", "--model-path", "/models/m", "--port",
             str(self.port)], stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
            stdin=subprocess.DEVNULL, env=env, cwd="/tmp", start_new_session=True)
        self.seen = threading.Event()
        self.out = bytearray()
        self.reader = threading.Thread(target=self._read, daemon=True)
        self.reader.start()
        if not self.seen.wait(30):
            self.close()
            raise AssertionError(f"emulator not ready in 30 s: {bytes(self.out[-2000:])!r}")

    def _read(self) -> None:
        for line in self.proc.stdout:  # type: ignore[union-attr]
            self.out += line
            if READY.encode() in line:
                self.seen.set()

    def kill(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass

    def close(self) -> None:
        self.kill()
        self.proc.wait(10)
        self.reader.join(5)  # EOF once the emulator's process group is gone
        self.proc.stdout.close()  # type: ignore[union-attr]


class CuttingProxy:
    """Forwards one HTTP exchange; after ``tokens`` SSE events of the response it either ends
    the HTTP response cleanly without [DONE] (``end``) or kills the server (``kill``)."""

    def __init__(self, upstream: int, tokens: int, mode: str, emu: Emulator) -> None:
        self.upstream, self.tokens, self.mode, self.emu = upstream, tokens, mode, emu
        self.listener = socket.create_server(("127.0.0.1", 0))
        self.port = self.listener.getsockname()[1]
        self.thread = threading.Thread(target=self._serve, daemon=True)
        self.thread.start()

    def _serve(self) -> None:
        with self.listener:
            client, _ = self.listener.accept()
        server = socket.create_connection(("127.0.0.1", self.upstream))
        threading.Thread(target=self._pipe, args=(client, server), daemon=True).start()
        try:
            self._response(server, client)
        finally:
            for sock in (client, server):  # shutdown: the other pipe thread is blocked in recv
                try:
                    sock.shutdown(socket.SHUT_RDWR)
                except OSError:
                    pass
                sock.close()

    @staticmethod
    def _pipe(src: socket.socket, dst: socket.socket) -> None:
        try:
            while data := src.recv(65536):
                dst.sendall(data)
        except OSError:
            pass

    def _response(self, server: socket.socket, client: socket.socket) -> None:
        buf = b""
        while b"\r\n\r\n" not in buf:
            buf += server.recv(65536)
        head, _, buf = buf.partition(b"\r\n\r\n")
        client.sendall(head + b"\r\n\r\n")
        events = 0
        for chunk in _chunks(server, buf):
            client.sendall(chunk)
            events += chunk.count(b"data: ")
            if events >= self.tokens:
                break
        if self.mode == "end":
            client.sendall(b"0\r\n\r\n")  # a clean end of the HTTP body, without [DONE]
            return
        self.emu.kill()
        self._pipe(server, client)  # whatever was still in flight, then EOF


def _chunks(sock: socket.socket, buf: bytes) -> Iterator[bytes]:
    """Whole HTTP chunks (size line, data, CRLF) as they arrive."""
    while True:
        while b"\r\n" not in buf:
            more = sock.recv(65536)
            if not more:
                return
            buf += more
        size = int(buf.split(b"\r\n", 1)[0], 16)
        end = buf.index(b"\r\n") + 2 + size + 2
        while len(buf) < end:
            more = sock.recv(65536)
            if not more:
                return
            buf += more
        chunk, buf = buf[:end], buf[end:]
        if size == 0:
            return
        yield chunk


@pytest.fixture
def emulator() -> Iterator[Emulator]:
    emu = Emulator(tokens_per_s=100)
    yield emu
    emu.close()


def bench(port: int, max_tokens: int) -> dict:
    return run_benchmark({"kind": "chat", "max_tokens": max_tokens, "timeout": 20}, "127.0.0.1",
                         port, None)


def test_a_complete_benchmark_has_a_rate(emulator: Emulator) -> None:
    res = bench(emulator.port, 80)  # 0.8 s at 100 tok/s
    assert res["complete"] is True and "error" not in res, res
    assert res["tokens"] == 80 and res["decode_s"] >= MIN_RATE_SECONDS
    assert 60 <= res["tokens_per_s"] <= 130 and rate_of(res) == res["tokens_per_s"]


def test_a_short_benchmark_completes_without_a_rate(emulator: Emulator) -> None:
    res = bench(emulator.port, 4)
    assert res["complete"] is True and res["tokens"] == 4
    assert res["tokens_per_s"] is None and rate_of(res) is None
    assert f"at least {MIN_RATE_TOKENS} tokens" in res["note"]


@pytest.mark.parametrize("mode", ["end", "kill"])
def test_a_stream_cut_mid_way_is_incomplete(emulator: Emulator, mode: str) -> None:
    proxy = CuttingProxy(emulator.port, tokens=2, mode=mode, emu=emulator)
    res = bench(proxy.port, 200)
    proxy.thread.join(10)
    assert res["complete"] is False, res
    assert "tokens_per_s" not in res and rate_of(res) is None
    assert res["error"], res
    if mode == "end":
        assert res["tokens"] == 2 and "without [DONE]" in res["error"]


def test_a_dead_server_is_an_incomplete_benchmark() -> None:
    res = bench(free_port(), 16)  # nothing listens there
    assert res["complete"] is False and "ConnectionRefusedError" in res["error"]


# -- what is shown and compared -------------------------------------------------------------
OLD_NONSENSE = {"kind": "chat", "tokens": 2, "ttft_ms": 12.0, "tokens_per_s": 21295.6,
                "e2e_s": 0.059}
GOOD = {"kind": "chat", "tokens": 128, "ttft_ms": 30.0, "tokens_per_s": 82.0, "e2e_s": 1.6,
        "complete": True}
CUT = {"kind": "chat", "complete": False, "error": "the stream ended", "tokens": 3}


def test_compare_treats_incomplete_and_too_short_results_as_no_rate() -> None:
    def root(name: str) -> str:
        return "base"

    rows = [{"id": 1, "profile": "base", "changes": [], "benchmark": GOOD},
            {"id": 2, "profile": "base", "changes": [], "benchmark": CUT},
            {"id": 3, "profile": "trial", "changes": ["c1"], "benchmark": OLD_NONSENSE},
            {"id": 4, "profile": "trial", "changes": ["c2"], "benchmark": CUT}]
    out = {(b["profile"], tuple(b["changes"])): b for b in compare(rows, root)}
    assert out[("base", ())]["run_id"] == 1 and out[("base", ())]["tokens_per_s"] == 82.0
    assert out[("trial", ("c1",))]["tokens_per_s"] is None
    assert out[("trial", ("c1",))]["vs_baseline"] is None
    assert ("trial", ("c2",)) not in out


def test_checked_takes_an_unfounded_rate_out_of_an_old_record() -> None:
    shown = checked(OLD_NONSENSE)
    assert "tokens_per_s" not in shown and "no rate" in shown["note"]
    assert checked(GOOD) is GOOD and checked(CUT) is CUT and checked(None) is None

