"""Shared memory a killed run leaves in /dev/shm is removed at its end, and nothing else is.

Real processes making and mapping real files in the real /dev/shm (as shm_open does: a file
there, ftruncated and mapped shared), killed with SIGKILL so that they cannot unlink them;
a real Run (and, for the checklist, a real Arbiter) watching them. Every name carries the
test's own tag, and the test removes whatever is left of its files."""

from __future__ import annotations

import mmap
import os
import secrets
import signal
import subprocess
import sys
import textwrap
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import anyio
import pytest
from runkit import (
    HTTP_SERVER,
    command_profile,
    live_pids,
    make_profiles,
    running_arbiter,
    stop_within,
    wait_for,
)
from test_run_unit import _Parts, _profile

from supervisor.states import Status

pytestmark = [pytest.mark.anyio,
              pytest.mark.skipif(not os.path.isdir("/dev/shm"), reason="needs /dev/shm")]

SHM = Path("/dev/shm")

# Maps, the way engines do: its own queue (rw, shared), a child's queue, a file made before the
# launch, a file another process also maps, a file it only reads (a model copied there), one in
# a folder; then serves /health (runkit's server, which says "listening"). With "clean", it
# unlinks its own on SIGTERM.
SERVER = textwrap.dedent("""\
    import mmap, os, signal, sys
    tag, clean = sys.argv[2], sys.argv[3] == "clean"
    SHM = "/dev/shm/"
    maps = []

    def make(name, size=1 << 20, prot=mmap.PROT_READ | mmap.PROT_WRITE):
        fd = os.open(SHM + name, os.O_RDWR | os.O_CREAT, 0o600)
        if os.fstat(fd).st_size < size:
            os.ftruncate(fd, size)
        maps.append(mmap.mmap(fd, size, mmap.MAP_SHARED, prot))
        os.close(fd)

    make(f"gns-{tag}-queue")
    make(f"gns-{tag}-before")
    make(f"gns-{tag}-peer")
    make(f"gns-{tag}-weights", prot=mmap.PROT_READ)
    os.makedirs(SHM + f"gns-{tag}-dir", exist_ok=True)
    make(f"gns-{tag}-dir/queue")
    if os.fork() == 0:
        make(f"gns-{tag}-child")
        os.write(1, b"child mapped\\n")  # one write: lines of two processes do not mix
        signal.pause()
        os._exit(0)

    def bye(*_):
        if clean:
            for n in ("queue", "peer", "weights", "dir/queue", "before"):
                os.unlink(SHM + f"gns-{tag}-{n}")
        os._exit(0)

    signal.signal(signal.SIGTERM, bye)
    """) + HTTP_SERVER

# Maps an existing /dev/shm file and waits: a process outside the run using the same memory.
HOLDER = textwrap.dedent("""\
    import mmap, os, sys, time
    fd = os.open(sys.argv[1], os.O_RDWR)
    m = mmap.mmap(fd, os.fstat(fd).st_size, mmap.MAP_SHARED)
    print("held", flush=True)
    time.sleep(120)
    """)


@pytest.fixture
def tag() -> Iterator[str]:
    tag = secrets.token_hex(5)
    yield tag
    for path in SHM.glob(f"gns-{tag}-*"):
        if path.is_dir():
            for inner in path.iterdir():
                inner.unlink()
            path.rmdir()
        else:
            path.unlink()


def _names(tag: str) -> set[str]:
    return {p.name.removeprefix(f"gns-{tag}-") for p in SHM.glob(f"gns-{tag}-*")}


def _profile_for(tmp: Path, tag: str, mode: str, **kw: Any) -> Any:
    script = SERVER.replace('sys.argv[2]', repr(tag)).replace('sys.argv[3]', repr(mode))
    return _profile(tmp, "mapper", script, **kw)


def _before_launch(tag: str) -> None:
    """A file that existed before the run: never the run's to remove."""
    with open(SHM / f"gns-{tag}-before", "wb") as f:
        f.truncate(1 << 20)


def _hold(tag: str) -> subprocess.Popen[bytes]:
    """Another process (not the run's) maps the peer file, once the server has made it."""
    proc = subprocess.Popen([sys.executable, "-c", HOLDER, str(SHM / f"gns-{tag}-peer")],
                            stdout=subprocess.PIPE)
    assert proc.stdout is not None and proc.stdout.readline() == b"held\n"
    return proc


async def _mapped(run: Any, tag: str) -> None:
    try:
        await wait_for(lambda: {"listening", "child mapped"} <= set(run.pipe.tail(5)),
                       "the server and its child to map their files")
    except AssertionError as exc:
        raise AssertionError(f"{exc}; the run is {run.status.value}, its last lines: "
                             f"{run.pipe.tail(5)}") from None
    # The ledger places a new file within a watch tick (1 s here) of its appearing.
    want = {f"gns-{tag}-queue", f"gns-{tag}-child", f"gns-{tag}-peer"}
    await wait_for(lambda: want <= set(run.shm.owned), "the ledger to see the run's files", 15)


async def test_a_killed_run_s_shared_memory_is_removed_and_nothing_else(
        tmp_path: Path, tag: str) -> None:
    _before_launch(tag)
    parts = _Parts(tmp_path)
    run = parts.run(_profile_for(tmp_path, tag, "kill"))
    holder = None
    try:
        async with anyio.create_task_group() as tg:
            with anyio.fail_after(10):
                await tg.start(run.supervise)
            await _mapped(run, tag)
            holder = _hold(tag)
            assert run.pgid is not None
            os.killpg(run.pgid, signal.SIGKILL)  # the OOM killer, a crash: nothing unlinks
            with anyio.fail_after(15):
                await run.settled.wait()
    finally:
        if holder is not None:
            holder.kill()
            holder.wait()
            assert holder.stdout is not None
            holder.stdout.close()
    assert run.status == Status.CRASHED and not live_pids(run)
    # Removed: the run's own queues, parent's and child's. Kept: what was there before, what
    # another process maps, what the run only read, what is in a folder.
    assert _names(tag) == {"before", "peer", "weights", "dir"}
    (event,) = [e for e in parts.store.events(run_id=run.id) if e["kind"] == "shm_removed"]
    assert sorted(event["data"]["files"]) == [f"gns-{tag}-child", f"gns-{tag}-queue"]
    assert event["data"]["bytes"] == 2 << 20
    (line,) = run.shm_removed
    assert line.startswith("removed 2 shared-memory file(s) the run left in /dev/shm (2.0 MiB)")


async def test_a_run_that_cleans_up_after_itself_has_nothing_removed(
        tmp_path: Path, tag: str) -> None:
    _before_launch(tag)
    parts = _Parts(tmp_path)
    run = parts.run(_profile_for(tmp_path, tag, "clean", stop_grace=10))
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(10):
            await tg.start(run.supervise)
        await _mapped(run, tag)
        await stop_within(run, 10)
    # The server unlinked its own files on SIGTERM; the group's SIGTERM also ended its child
    # (the default action), which could not: the child's queue alone is removed.
    assert run.status == Status.STOPPED and not live_pids(run)
    assert _names(tag) == {"dir"}
    (event,) = [e for e in parts.store.events(run_id=run.id) if e["kind"] == "shm_removed"]
    assert event["data"]["files"] == [f"gns-{tag}-child"]


async def test_the_failed_run_s_checklist_says_what_was_removed(
        tmp_path: Path, monkeypatch: Any, tag: str) -> None:
    _before_launch(tag)
    script = SERVER.replace('sys.argv[2]', repr(tag)).replace('sys.argv[3]', repr("kill"))
    make_profiles(tmp_path, mapper=(script, lambda s, p: command_profile(s, port=p)))
    async with running_arbiter(tmp_path, monkeypatch) as kit:
        arb = kit.arbiter
        with anyio.fail_after(20):
            req = await arb.switch("mapper")
            await req.done.wait()
        run = arb.current
        assert run is not None and run.status == Status.READY
        await _mapped(run, tag)
        os.killpg(run.pgid, signal.SIGKILL)
        with anyio.fail_after(15):
            await run.settled.wait()
        await wait_for(lambda: any(i["title"] == f"Run #{run.id}: check leftovers"
                                   for i in arb.checklist.view()), "the failure's checklist")
        (item,) = [i for i in arb.checklist.view()
                   if i["title"] == f"Run #{run.id}: check leftovers"]
    assert item["evidence"][0] == "nothing of the run is left"
    assert item["evidence"][1].startswith("removed 3 shared-memory file(s) the run left in "
                                          "/dev/shm (3.0 MiB): gns-")
    assert _names(tag) == {"before", "weights", "dir"}


def test_a_file_is_mapped_shared_and_writable_to_count(tag: str) -> None:
    """The maps parser itself, on a real process's maps: a read-only mapping of a /dev/shm
    file is not a queue; a shared writable one is; one in a folder is neither."""
    from supervisor.runtime.shm import ShmLedger

    ledger = ShmLedger()
    paths = {n: SHM / f"gns-{tag}-{n}" for n in ("rw", "ro")}
    held = []
    for name, path in paths.items():
        with open(path, "wb") as f:
            f.truncate(4096)
        fd = os.open(path, os.O_RDWR)
        prot = mmap.PROT_READ | (mmap.PROT_WRITE if name == "rw" else 0)
        held.append(mmap.mmap(fd, 4096, mmap.MAP_SHARED, prot))
        os.close(fd)
    inos = {n: p.stat().st_ino for n, p in paths.items()}
    assert ledger._mapped_by([os.getpid()]) >= {inos["rw"]}
    assert inos["ro"] not in ledger._mapped_by([os.getpid()])
    assert {inos["rw"], inos["ro"]} <= ledger._mapped_by([os.getpid()], writable_only=False)
    for m in held:
        m.close()


async def test_a_run_stopped_before_any_watch_tick_has_its_shared_memory_removed(
        tmp_path: Path, tag: str, monkeypatch: Any) -> None:
    """The ledger also looks at the stop (before the SIGTERM and before the SIGKILL): a run
    stopped within a second of its start - before the watch loop ever sampled it - or one
    that made a file during its grace still has it removed."""
    from supervisor.watchdogs import watch

    monkeypatch.setattr(watch, "ACTIVITY_INTERVAL", 3600.0)  # no watch tick in this test
    _before_launch(tag)
    parts = _Parts(tmp_path)
    script = SERVER.replace('sys.argv[2]', repr(tag)).replace('sys.argv[3]', repr("kill"))
    script = script.replace("signal.signal(signal.SIGTERM, bye)",
                            "signal.signal(signal.SIGTERM, signal.SIG_IGN)")
    run = parts.run(_profile(tmp_path, "mapper", script, stop_grace=0.5))
    async with anyio.create_task_group() as tg:
        with anyio.fail_after(10):
            await tg.start(run.supervise)
        await wait_for(lambda: {"listening", "child mapped"} <= set(run.pipe.tail(5)),
                       "the server and its child to map their files")
        assert not run.shm.owned  # no tick has looked yet
        await stop_within(run, 10)
    assert run.status == Status.STOPPED and not live_pids(run)
    assert _names(tag) == {"before", "weights", "dir"}


def test_a_failing_look_never_stops_the_ledger_or_the_stop(tag: str) -> None:
    """The ledger is an aid: when what it is given fails (the scan of the run's processes
    raising), it logs and goes on; and kill_run signals the run whatever its look raises."""
    from supervisor.runtime import process as proc_mod
    from supervisor.runtime.shm import ShmLedger

    ledger = ShmLedger()
    with open(SHM / f"gns-{tag}-new", "wb") as f:  # a new file: the ledger asks for the pids
        f.truncate(4096)

    def broken() -> list[int]:
        raise RuntimeError("scan failed")

    ledger.observe(broken)  # no raise
    victim = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"],
                              start_new_session=True)
    try:
        def look() -> None:
            raise RuntimeError("look failed")

        async def stop() -> set[int]:
            with anyio.fail_after(10):
                return await proc_mod.kill_run("no-such-token", victim.pid, grace=5,
                                               before_signals=look)

        assert anyio.run(stop) == set()
        assert victim.wait(5) == -signal.SIGTERM
    finally:
        if victim.poll() is None:
            victim.kill()
            victim.wait()
