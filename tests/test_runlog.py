"""The run log file: one rotation bounds it; a failed write is reported and retried."""

from __future__ import annotations

import errno
from pathlib import Path

from supervisor.runtime import logpipe
from supervisor.runtime.logpipe import LogPipe, RunLog


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
    lines: list[str] = []
    pipe = LogPipe(RunLog(tmp_path / "run.log"), on_line=lines.append)
    pipe.feed(b"a\r\nbar 1/3\rbar 2/3\rb")
    pipe.feed(b"c\n\n")
    pipe.flush()
    pipe.log.close()
    assert lines == ["a", "bar 1/3", "bar 2/3", "bc"]
    assert pipe.tail(2) == ["bar 2/3", "bc"]
