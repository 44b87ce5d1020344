"""The run log file: one rotation bounds it; a failed write is reported and retried."""

from __future__ import annotations

import errno
from pathlib import Path

from supervisor.runtime import logpipe
from supervisor.runtime.logpipe import LogPipe, RunLog, lines_of


def test_rotation_bounds_the_log(tmp_path: Path) -> None:
    log = RunLog(tmp_path / "run.log", max_bytes=1000)
    for _ in range(50):
        log.write(b"x" * 99 + b"\n")
    log.close()
    assert (tmp_path / "run.log").stat().st_size <= 1000
    assert (tmp_path / "run.log.1").stat().st_size <= 1000
    assert not (tmp_path / "run.log.2").exists()


def test_write_error_is_reported_then_retried(tmp_path: Path, monkeypatch) -> None:
    log = RunLog(tmp_path / "run.log")

    class Full:
        def write(self, data: bytes) -> int:
            raise OSError(errno.ENOSPC, "No space left on device")

        def close(self) -> None:
            pass

    log._file.close()
    log._file = Full()
    log.write(b"lost\n")
    assert log.error is not None and "disk full" in log.error
    log.write(b"too early\n")               # no retry before the back-off
    assert log._file is None
    now = [logpipe.time.monotonic() + 10]
    monkeypatch.setattr(logpipe.time, "monotonic", lambda: now[0])
    log.write(b"back\n")
    log.close()
    assert log.error is None
    assert (tmp_path / "run.log").read_bytes().endswith(b"back\n")


def test_pipe_splits_on_cr_and_lf_and_keeps_partials(tmp_path: Path) -> None:
    chunks: list[bytes] = []
    pipe = LogPipe(RunLog(tmp_path / "run.log"), on_chunk=chunks.append)
    pipe.feed(b"a\r\nbar 1/3\rbar 2/3\rb")
    pipe.feed(b"c\n\n")
    pipe.feed(b"no newline yet")
    # only complete lines; \r -> \n (so \r\n -> an empty line, which readers skip)
    assert chunks == [b"a\n\nbar 1/3\nbar 2/3\n", b"bc\n\n"]
    pipe.flush()
    pipe.log.close()
    assert chunks[-1] == b"no newline yet\n"
    assert [line for c in chunks for line in lines_of(c)] == \
        ["a", "bar 1/3", "bar 2/3", "bc", "no newline yet"]
    assert pipe.tail(2) == ["bc", "no newline yet"]
    assert pipe.tail(100) == ["a", "bar 1/3", "bar 2/3", "bc", "no newline yet"]
    # the file holds the bytes as written, \r included
    assert (tmp_path / "run.log").read_bytes() == b"a\r\nbar 1/3\rbar 2/3\rbc\n\nno newline yet"


def test_a_line_without_end_is_cut_at_the_partial_limit(tmp_path: Path) -> None:
    chunks: list[bytes] = []
    pipe = LogPipe(RunLog(tmp_path / "run.log"), on_chunk=chunks.append)
    pipe.feed(b"x" * (logpipe.MAX_PARTIAL + 1))
    assert chunks == [b"x" * (logpipe.MAX_PARTIAL + 1) + b"\n"]
    pipe.log.close()


def test_ring_keeps_at_least_its_limit_of_newest_output(tmp_path: Path) -> None:
    pipe = LogPipe(RunLog(tmp_path / "run.log"), ring_bytes=1000)
    for i in range(200):
        pipe.feed(f"line {i:04d}\n".encode())   # 10 bytes a line
    pipe.log.close()
    assert 1000 <= pipe.ring_bytes < 1000 + 10
    assert pipe.tail(3) == ["line 0197", "line 0198", "line 0199"]
    assert len(pipe.tail(10_000)) == pipe.ring_bytes // 10
    pipe.seed(["adopted 1", "adopted 2"])
    assert pipe.tail(2) == ["adopted 1", "adopted 2"]


def test_pump_reads_a_real_pipe_to_eof(tmp_path: Path) -> None:
    import os

    import anyio

    r, w = logpipe.open_pipe()
    chunks: list[bytes] = []
    pipe = LogPipe(RunLog(tmp_path / "run.log"), on_chunk=chunks.append)

    async def main() -> None:
        async with anyio.create_task_group() as tg:
            tg.start_soon(pipe.pump, r)
            for i in range(3):
                os.write(w, f"tick {i}\r".encode())
                await anyio.sleep(0.01)
            os.write(w, b"tail without newline")
            os.close(w)
            with anyio.fail_after(5):
                await pipe.eof.wait()

    anyio.run(main)
    os.close(r)  # the caller owns the read end
    pipe.log.close()
    assert pipe.tail(10) == ["tick 0", "tick 1", "tick 2", "tail without newline"]


def test_tail_over_many_small_chunks_keeps_order(tmp_path: Path) -> None:
    pipe = LogPipe(RunLog(tmp_path / "run.log"))
    for i in range(5000):
        pipe.feed(f"{i}\n".encode())
    pipe.log.close()
    assert pipe.tail(3) == ["4997", "4998", "4999"]
    assert pipe.tail(5000) == [str(i) for i in range(5000)]
