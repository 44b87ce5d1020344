"""The protocol codec and the bounded outbox."""

from __future__ import annotations

import json
from contextlib import asynccontextmanager

import pytest
from hypothesis import given
from hypothesis import strategies as st

from supervisor.events import Hub, Outbox
from supervisor.protocol import wire


def test_line_splitter_handles_split_and_joined_messages() -> None:
    sp = wire.LineSplitter(limit=100)
    assert sp.feed(b'{"a":1}\n{"b"') == [b'{"a":1}']
    assert sp.feed(b':2}\n\n') == [b'{"b":2}']


def test_line_splitter_refuses_oversize_once_and_recovers() -> None:
    sp = wire.LineSplitter(limit=10)
    assert sp.feed(b"x" * 8) == []
    assert sp.feed(b"y" * 8) == [None]          # over the limit: reported once
    assert sp.feed(b"z" * 50) == []             # rest of the same line skipped
    assert sp.feed(b"zz\nok\n") == [b"ok"]      # next line is fine again


def test_line_splitter_oversize_in_one_chunk() -> None:
    sp = wire.LineSplitter(limit=4)
    assert sp.feed(b"123456789\nabc\n") == [None, b"abc"]


@pytest.mark.parametrize("line, code", [
    (b"nope", wire.BAD_JSON), (b"\xff\xfe", wire.BAD_JSON), (b"[1]", wire.BAD_REQUEST),
    (b'{"cmd": 3}', wire.BAD_REQUEST), (b'{"cmd": ""}', wire.BAD_REQUEST),
    (b'{"cmd": "x", "args": []}', wire.BAD_REQUEST), (b'{"id": [1], "cmd": "x"}',
                                                       wire.BAD_REQUEST),
])
def test_parse_request_errors(line: bytes, code: str) -> None:
    with pytest.raises(wire.ProtocolError) as err:
        wire.parse_request(line)
    assert err.value.code == code


def test_parse_request_ok() -> None:
    req = wire.parse_request(b'{"id": "a", "cmd": "status"}')
    assert req == wire.Request("a", "status", {})


def test_outbox_drops_events_never_replies_and_reports_drops() -> None:
    box = Outbox(max_events=4)
    hub = Hub()
    hub.subscribe(box, ["log"])
    for i in range(10):
        hub.publish("log", {"i": i})
    box.put_reply(wire.encode(wire.reply_ok(1, "r")))
    assert box.dropped_total == 6
    out = [json.loads(x) for x in box.take().splitlines()]
    kinds = [m.get("event", "reply") for m in out]
    assert kinds.count("log") == 4 and kinds.count("reply") == 1
    assert "dropped" not in kinds  # the notice is owed, sent once there is room
    hub.publish("log", {"i": 99})
    out2 = [json.loads(x) for x in box.take().splitlines()]
    assert out2[0]["event"] == "dropped" and out2[0]["data"] == {"count": 6, "total": 6}
    assert out2[1]["data"] == {"i": 99}


def test_hub_routes_by_topic() -> None:
    a, b = Outbox(), Outbox()
    hub = Hub()
    hub.subscribe(a, ["run"])
    hub.subscribe(b, ["log", "run"])
    hub.publish("log", {"x": 1})
    hub.publish("verdict", {"y": 2})
    assert [json.loads(x)["event"] for x in a.take().splitlines()] == ["verdict"]
    assert [json.loads(x)["event"] for x in b.take().splitlines()] == ["log", "verdict"]


def test_encode_is_utf8_json_and_falls_back_for_what_orjson_refuses() -> None:
    assert wire.encode({"text": "█ ok\n", 3: (1, 2)}) == '{"text":"█ ok\\n","3":[1,2]}\n'.encode()
    huge = 2 ** 70  # over 64 bits: orjson refuses, the stdlib takes it
    assert json.loads(wire.encode({"n": huge})) == {"n": huge}
    # a lone surrogate (a non-UTF-8 byte in a process's argv, via psutil) still encodes
    assert json.loads(wire.encode({"cmdline": "a\udcffb"})) == {"cmdline": "a\udcffb"}


def test_log_event_lines_reads_text_and_old_lists() -> None:
    assert wire.log_event_lines({"text": "a\n\nb\n"}) == ["a", "b"]
    assert wire.log_event_lines({"lines": ["a", "", None, 3]}) == ["a", "3"]
    assert wire.log_event_lines(None) == [] and wire.log_event_lines({"text": 5}) == []


def test_hub_wants_only_followed_topics() -> None:
    hub = Hub()
    assert not hub.wants("log")
    box = Outbox()
    hub.subscribe(box, ["run"])
    assert hub.wants("run") and not hub.wants("log")


@asynccontextmanager
async def _connection(tmp_path, sndbuf: int):
    """A daemon-side Connection over a real Unix socket (send buffer ``sndbuf``), its client
    end and its raw socket."""
    import socket

    import anyio

    from supervisor.protocol.server import Connection, Peer

    path = str(tmp_path / "s.sock")
    listener = await anyio.create_unix_listener(path)
    client = await anyio.connect_unix(path)
    server_side = await listener.accept()
    raw = server_side.extra(anyio.abc.SocketAttribute.raw_socket)
    raw.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, sndbuf)
    try:
        yield Connection(server_side, Peer(None, None, None), True, None), client, raw
    finally:
        for s in (client, server_side, listener):
            await s.aclose()


def test_connection_sends_at_once_and_keeps_order_when_the_socket_is_full(tmp_path) -> None:
    """Direct sends go out on the producer's call; what a full socket leaves over is sent by
    the writer task before anything queued later, so a client reads every message in order."""
    import anyio

    big = {"event": "log", "data": {"text": "x" * 300_000}}

    async def main() -> list[dict]:
        async with _connection(tmp_path, 4096) as (conn, client, _raw):
            conn.send({"id": 1, "ok": True})
            # nothing is waiting for the writer: the small reply went out on the call
            first = await client.receive(65536)
            assert json.loads(first) == {"id": 1, "ok": True}
            conn.outbox.put_event(wire.encode(big))      # more than the socket takes now
            assert conn._rest is not None
            assert conn.outbox.unsent == len(conn._rest) > 0  # counts against a follower's room
            conn.send({"id": 2, "ok": True})             # must not overtake the rest of `big`
            conn.outbox.put_event(wire.encode({"event": "run", "data": {"n": 3}}))
            got = bytearray()
            async with anyio.create_task_group() as tg:
                tg.start_soon(conn.write_loop)
                with anyio.fail_after(10):
                    while got.count(b"\n") < 3:
                        got += await client.receive(1 << 20)
                assert conn.outbox.unsent == 0
                conn.closed = True
                tg.cancel_scope.cancel()
        return [json.loads(line) for line in bytes(got).splitlines()]

    msgs = anyio.run(main)
    assert [m.get("id") or m["event"] for m in msgs] == ["log", 2, "run"]
    assert msgs[0] == big


@pytest.mark.parametrize("topics", [["log", "run"], ["run", "gpus"]])
def test_a_log_follower_gets_a_send_buffer_for_a_whole_batch(tmp_path, topics) -> None:
    import socket
    from types import SimpleNamespace

    import anyio

    from supervisor import commands

    async def main() -> tuple[int, int]:
        async with _connection(tmp_path, 65536) as (conn, _client, raw):
            before = raw.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)
            daemon = SimpleNamespace(hub=Hub())  # all `subscribe` uses
            await commands.subscribe(daemon, conn, {"topics": topics})
            return before, raw.getsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF)

    before, after = anyio.run(main)
    if "log" not in topics:
        assert after == before  # only a log follower needs it
        return
    # the kernel caps it at net.core.wmem_max (and doubles it for its bookkeeping)
    with open("/proc/sys/net/core/wmem_max") as f:
        cap = int(f.read())
    assert after > before and after >= 2 * min(cap, 2**20)


_OUTPUTS = [
    b"", b"plain ascii\n", b'quotes " and \\ backslashes\\n\n',
    "Capturing batches: 40%|████      | 20/51\n".encode(), "模型加载完成 ✓ 🚀\n".encode(),
    "tab\there █ and \x1b[31mred\x1b[0m\n".encode(), "█ then \x00 nul\n".encode(),
    "█ bell \x07 and \x0c form feed and \x7f del\n".encode(), "█\r\n█\r".encode(),
    b"\xff\xfe not utf-8 \xe2\x96", "█".encode() + b"\xed\xa0\x80 a surrogate, encoded",
    "█ u2028 \u2028 and u2029 \u2029\n".encode(),
]


@pytest.mark.parametrize("raw", _OUTPUTS)
def test_output_text_reads_back_as_the_replace_decode(raw: bytes) -> None:
    msg = wire.encode({"event": "log", "data": {"text": wire.output_text(raw)}})
    assert msg.endswith(b"\n") and b"\n" not in msg[:-1]
    msg.decode("utf-8")  # valid UTF-8 on the wire, whatever the process wrote
    assert json.loads(msg)["data"]["text"] == raw.decode("utf-8", "replace")


@given(st.binary(max_size=300) | st.text(max_size=100).map(
    lambda s: s.encode("utf-8", "surrogatepass")))
def test_output_text_reads_back_for_any_bytes(raw: bytes) -> None:
    msg = wire.encode({"data": {"text": wire.output_text(raw)}})
    msg.decode("utf-8")
    assert json.loads(msg)["data"]["text"] == raw.decode("utf-8", "replace")


def test_output_text_skips_the_str_for_valid_non_ascii() -> None:
    # The point of it: non-ASCII output is not decoded into a str and encoded back.
    assert isinstance(wire.output_text("█ bar \"q\"\n".encode()), wire.EscapedText)
    assert isinstance(wire.output_text(b"ascii\n"), str)
    assert isinstance(wire.output_text(b"\xff bad"), str)


def test_escaped_text_survives_the_stdlib_fallback() -> None:
    # An int over 64 bits sends the whole message down the stdlib path, which cannot read a
    # Fragment back: the text must still be there.
    raw = "█ bar \"q\"\n".encode()
    msg = wire.encode({"event": "log", "seq": 2**70, "data": {"text": wire.output_text(raw)}})
    assert json.loads(msg)["data"]["text"] == raw.decode()


def test_handling_time_percentiles_by_nearest_rank() -> None:
    from collections import deque

    from supervisor.protocol.server import _percentiles_ms

    assert _percentiles_ms(deque()) == {"n": 0, "p50": None, "p99": None}
    times = deque([i / 1000 for i in range(1, 101)])  # 1 .. 100 ms
    assert _percentiles_ms(times) == {"n": 100, "p50": 51.0, "p99": 100.0}
