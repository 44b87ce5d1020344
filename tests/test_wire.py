"""The protocol codec and the bounded outbox."""

from __future__ import annotations

import json

import pytest

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
