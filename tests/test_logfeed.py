"""Run output on its way to followers: batched in time, sent at once when big, handed out one
subscriber per loop iteration, in order for everyone, bounded when followers fall behind."""

from __future__ import annotations

import json

import anyio
import pytest

from supervisor.events import Hub, Outbox
from supervisor.runtime import logfeed
from supervisor.runtime.logfeed import LogFeed


def _texts(box: Outbox) -> list[str]:
    out = []
    for item in box.items:
        msg = json.loads(item)
        if msg.get("event") == "log":
            out.append(msg["data"]["text"])
    return out


def _hub(n: int) -> tuple[Hub, list[Outbox]]:
    hub = Hub()
    boxes = [Outbox(max_events=10_000, max_bytes=1 << 30) for _ in range(n)]
    for box in boxes:
        hub.subscribe(box, ["log"])
    return hub, boxes


async def _sending(tg, feed: LogFeed, reads: list[bytes]) -> None:
    """Start the feed's sender task in ``tg``, then hand it ``reads`` as the pipe would."""
    tg.start_soon(feed.run)
    await anyio.lowlevel.checkpoint()
    for chunk in reads:
        feed.add(chunk)


def _polls(hub: Hub) -> list[str]:
    """A record of the sender's looks at its followers (one per poll while it holds output
    back): what it did not send after a few looks, it decided not to send."""
    seen: list[str] = []
    real = hub.wants
    hub.wants = lambda topic: seen.append(topic) or real(topic)  # type: ignore[method-assign]
    return seen


async def _polled(seen: list[str], n: int) -> None:
    start = len(seen)
    with anyio.fail_after(5):
        while len(seen) < start + n:  # noqa: ASYNC110
            await anyio.sleep(0.005)


def test_without_followers_nothing_is_kept() -> None:
    hub = Hub()
    feed = LogFeed(hub, 1, "run.log")
    feed.add(b"a\n")
    assert not feed.pending and feed.pending_bytes == 0


def test_without_a_sender_task_output_goes_at_once() -> None:
    hub, (box,) = _hub(1)
    feed = LogFeed(hub, 1, "run.log")
    feed.add(b"refused: port in use\n")
    assert _texts(box) == ["refused: port in use\n"]


def test_small_reads_are_batched_big_ones_go_at_once_and_order_holds() -> None:
    hub, boxes = _hub(3)
    feed = LogFeed(hub, 7, "run.log")
    big = b"x" * logfeed.BATCH_BYTES + b"\n"

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            await _sending(tg, feed, [f"line {i}\n".encode() for i in range(5)])
            assert all(not _texts(b) for b in boxes), "small reads wait for the batch"
            with anyio.fail_after(5):  # the timer, then one subscriber per iteration
                while not all(_texts(b) for b in boxes):  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            feed.add(b"after\n")
            feed.add(big)  # a flood: sent without waiting for the timer
            feed.add(b"tail\n")
            tg.cancel_scope.cancel()  # the sender's end flushes what is left

    anyio.run(main)
    for box in boxes:
        texts = _texts(box)
        assert texts[0] == "".join(f"line {i}\n" for i in range(5))  # one event for 5 reads
        assert "".join(texts) == texts[0] + "after\n" + big.decode() + "tail\n"


def test_a_batch_is_handed_out_one_subscriber_per_iteration() -> None:
    hub, boxes = _hub(4)
    seen: list[int] = []

    async def main() -> None:
        async def count() -> None:
            while len(seen) < 4:
                seen.append(sum(1 for b in boxes if b.items))
                await anyio.lowlevel.checkpoint()

        async with anyio.create_task_group() as tg:
            tg.start_soon(count)
            await hub.publish_spread("log", {"run_id": 1, "text": "x\n"})

    anyio.run(main)
    # between subscribers the loop ran other tasks: they saw the event reach one box at a time
    assert seen[:3] == sorted(seen[:3]) and len(set(seen)) >= 3, seen


def test_followers_far_behind_skip_the_oldest_and_are_told(monkeypatch) -> None:
    monkeypatch.setattr(logfeed, "MAX_PENDING", 100)
    hub, (box,) = _hub(1)
    feed = LogFeed(hub, 1, "/state/runs/1/run.log")
    feed._spreading = True  # a batch is being handed out: new output waits behind it
    for i in range(30):
        feed.add(f"line {i:02d}\n".encode())  # 8 bytes each
    assert feed.pending_bytes <= 100 and feed.skipped_total > 0
    feed._spreading = False
    feed.flush()
    (text,) = _texts(box)
    first, *rest = text.splitlines()
    assert f"{feed.skipped_total} bytes of output skipped" in first and "run.log" in first
    assert rest[-1] == "line 29" and len(rest) == 100 // 8


def test_nothing_is_built_while_every_follower_is_behind(monkeypatch) -> None:
    monkeypatch.setattr(logfeed, "FOLLOW_BURST", 4 * logfeed.BATCH_BYTES)  # room, not pace
    built: list[int] = []
    real = logfeed.wire.output_text
    monkeypatch.setattr(logfeed.wire, "output_text",
                        lambda raw: built.append(len(raw)) or real(raw))
    hub = Hub()
    box = Outbox(max_events=100, max_bytes=4 * logfeed.BATCH_BYTES)
    hub.subscribe(box, ["log"])
    feed = LogFeed(hub, 1, "run.log")
    chunk = b"y" * (logfeed.BATCH_BYTES - 1) + b"\n"

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            await _sending(tg, feed, [chunk, chunk])  # a flood: each read is a full batch
            assert len(built) == 2 and not box.has_room() and not hub.has_room("log")
            polls = _polls(hub)
            for _ in range(3):
                feed.add(chunk)  # the follower is behind: output gathers, unbuilt
            await _polled(polls, 3)
            assert len(built) == 2 and feed.pending_bytes == 3 * len(chunk)
            box.items.clear()  # the follower catches up ...
            box.n_events = box.event_bytes = 0
            with anyio.fail_after(5):  # ... and gets what gathered, as one event
                while len(built) < 3:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            assert built[2] == 3 * len(chunk) and len(box.items) == 1
            tg.cancel_scope.cancel()

    anyio.run(main)


@pytest.mark.parametrize("batch_bytes", [32 * 1024, 1 << 30], ids=["on-read", "by-sender"])
def test_a_flood_goes_to_followers_at_the_pace_and_the_rest_is_skipped(
        monkeypatch, batch_bytes: int) -> None:
    rate, burst = 256 * 1024, 64 * 1024
    step = burst
    monkeypatch.setattr(logfeed, "FOLLOW_RATE", rate)
    monkeypatch.setattr(logfeed, "FOLLOW_BURST", burst)
    monkeypatch.setattr(logfeed, "MAX_PENDING", 4 * step)
    monkeypatch.setattr(logfeed, "BATCH_BYTES", batch_bytes)  # who sends: add() or run()
    hub, (box,) = _hub(1)
    feed = LogFeed(hub, 1, "run.log")
    chunks = [f"{i:05d}\n".encode() * 2730 for i in range(200)]  # 16 KiB reads, 3.2 MB/s
    during: list[int] = []

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(feed.run)
            await anyio.lowlevel.checkpoint()
            t0 = anyio.current_time()
            for chunk in chunks:
                feed.add(chunk)
                await anyio.sleep(0.005)
            elapsed = anyio.current_time() - t0
            during.append(sum(map(len, _texts(box))))
            # no more than the burst and the pace allow (one read's worth of rounding) ...
            assert during[0] <= burst + rate * elapsed + len(chunks[0]) + 200
            # ... and not much less: paced, not stalled
            assert during[0] >= 0.5 * rate * elapsed
            tg.cancel_scope.cancel()  # the end: what is pending goes out

    anyio.run(main)
    text = "".join(_texts(box))
    assert "bytes of output skipped here: too fast to follow live" in text
    assert text.endswith(chunks[-1].decode())  # the latest output reaches followers
    assert feed.skipped_total >= sum(map(len, chunks)) - during[0] - 4 * step - len(chunks[0])
    kept = [line for line in text.splitlines() if not line.startswith("[gpu-node-supervisor]")]
    assert kept == sorted(kept)  # in order; what is missing was skipped, nothing repeated


def test_bytes_still_being_sent_count_against_room() -> None:
    box = Outbox(max_bytes=1000)
    assert box.has_room()
    box.unsent = 600  # a connection's direct send left this much for its writer task
    assert not box.has_room()


def test_a_backlog_goes_out_in_steps_in_order() -> None:
    hub, (box,) = _hub(1)
    feed = LogFeed(hub, 1, "run.log")
    lines = [f"{i:07d}\n".encode() * 4096 for i in range(48)]  # 48 reads of 32 KiB
    feed._spreading = True  # output waits behind a batch being handed out
    for chunk in lines:
        feed.add(chunk)
    feed._spreading = False
    feed.flush()
    texts = _texts(box)
    assert "".join(texts) == b"".join(lines).decode()
    assert len(texts) > 1 and all(len(t) <= logfeed.FOLLOW_BURST for t in texts)


@pytest.mark.parametrize("held_back_by", ["room", "pace"])
def test_a_backlog_is_forgotten_when_the_followers_leave(monkeypatch, held_back_by) -> None:
    # Output held back (a follower that never reads, or a flood beyond the pace), then the
    # followers leave: a later follower must not get that old output after the tail it was
    # shown when it came.
    hub = Hub()
    if held_back_by == "room":
        first = Outbox(max_events=100, max_bytes=2 * logfeed.BATCH_BYTES)
        reads = [b"old\n" * (logfeed.BATCH_BYTES // 4)] * 4
    else:
        monkeypatch.setattr(logfeed, "FOLLOW_RATE", 1024)
        monkeypatch.setattr(logfeed, "FOLLOW_BURST", 1024)
        first = Outbox(max_events=100, max_bytes=1 << 30)
        reads = [b"old\n" * 256] * 64  # 1 KiB reads: a second of the pace each
    hub.subscribe(first, ["log"])
    feed = LogFeed(hub, 1, "run.log")

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            polls = _polls(hub)
            await _sending(tg, feed, reads)
            await _polled(polls, 2)
            assert feed.pending and hub.has_room("log") == (held_back_by == "pace")
            hub.unsubscribe(first)
            with anyio.fail_after(5):
                while feed.pending:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            fresh = Outbox(max_events=100, max_bytes=1 << 30)
            hub.subscribe(fresh, ["log"])
            feed.add(b"new\n")
            with anyio.fail_after(5):
                while not fresh.items:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            assert _texts(fresh) == ["new\n"]
            tg.cancel_scope.cancel()

    anyio.run(main)


def test_skip_notices_do_not_wear_down_the_count_of_pending_bytes(monkeypatch) -> None:
    monkeypatch.setattr(logfeed, "MAX_PENDING", 64)
    monkeypatch.setattr(logfeed, "FOLLOW_BURST", 16)
    hub, (box,) = _hub(1)
    feed = LogFeed(hub, 1, "run.log")
    feed._spreading = True
    for _ in range(50):
        for _ in range(6):
            feed.add(b"0123456789abcde\n")   # 16 bytes each: past 64 the oldest are skipped
        assert feed.skipped_bytes
        hub.publish("log", feed._take())     # one 16-byte step out, after a skip notice
        assert feed.pending_bytes == sum(len(c) for c in feed.pending)
    assert "bytes of output skipped" in _texts(box)[-1]


def test_a_follower_still_sending_the_last_batch_skips_the_next() -> None:
    hub = Hub()
    busy, idle = Outbox(), Outbox()  # room: under 1 MiB queued or unsent
    for box in (busy, idle):
        hub.subscribe(box, ["log"])
    busy.unsent = 1 << 20  # its connection is still copying a 1 MiB batch into the socket
    assert hub.has_room("log")  # the idle one has room: the batch is built ...
    hub.publish("log", {"run_id": 1, "text": "x\n"}, only_if_room=True)
    assert len(idle.items) == 1  # ... and goes to it
    assert not busy.items and busy.dropped_pending == 1  # the busy one is told it missed one


def test_a_big_read_goes_out_in_steps_cut_at_line_ends() -> None:
    hub, (box,) = _hub(1)
    feed = LogFeed(hub, 1, "run.log")
    read = b"".join(f"{i:06d} decode\n".encode() for i in range(80_000))  # 1.1 MB, one read
    feed.add(read)  # no sender task: everything goes now, in steps
    texts = _texts(box)
    assert "".join(texts) == read.decode()
    assert len(texts) >= len(read) // logfeed.FOLLOW_BURST
    assert all(len(t) <= logfeed.FOLLOW_BURST and t.endswith("\n") for t in texts)


def test_at_the_end_of_the_output_only_the_newest_burst_of_the_backlog_goes(monkeypatch):
    monkeypatch.setattr(logfeed, "FOLLOW_RATE", 1)  # after the first burst: held back
    hub, (box,) = _hub(1)
    feed = LogFeed(hub, 1, "run.log")
    reads = [f"{i:04d}\n".encode() * 3277 for i in range(64)]  # 16 KiB each, 1 MiB in all

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            await _sending(tg, feed, reads)
            with anyio.fail_after(5):
                while not box.items:  # noqa: ASYNC110
                    await anyio.sleep(0.01)
            first = len(_texts(box)[0])
            assert first <= logfeed.FOLLOW_BURST and feed.pending_bytes > 2 * first
            tg.cancel_scope.cancel()  # the output ends

    anyio.run(main)
    first, *last = _texts(box)
    end = "".join(last)
    notice, _, newest = end.partition("\n")
    assert "bytes of output skipped here" in notice
    assert 0 < len(newest) <= logfeed.FOLLOW_BURST
    assert newest.endswith(reads[-1].decode())
    assert len(first) + feed.skipped_total + len(newest) == sum(map(len, reads))
