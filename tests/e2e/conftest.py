from __future__ import annotations

import os
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from .harness import RUN_VAR, Daemon, cleanup, kill_env_processes, short_tmpdir


@pytest.fixture
def workdir() -> Iterator[Path]:
    d = short_tmpdir()
    (d / "profiles").mkdir()
    (d / "state").mkdir()
    yield d
    if not os.environ.get("GNS_KEEP_TMP"):
        cleanup(d)


@pytest.fixture
def make_daemon(workdir: Path) -> Iterator[Callable[..., Daemon]]:
    started: list[Daemon] = []

    def make(**kw: object) -> Daemon:
        d = Daemon(workdir / "profiles", workdir / "state", workdir / "s.sock", **kw)
        started.append(d)
        return d.start()

    yield make
    for d in started:
        try:
            d.stop()
        finally:
            d.kill()
    # Nothing a test started may outlive it.
    for d in started:
        leftovers = d.run_processes()
        kill_env_processes(RUN_VAR, marker=d.marker)
        assert not leftovers, f"processes outlived the daemon: {leftovers}"


def write_profile(workdir: Path, name: str, text: str) -> Path:
    path = workdir / "profiles" / f"{name}.toml"
    path.write_text(text)
    os.utime(path)
    return path
