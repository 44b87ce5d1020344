"""The daemon's parts in-process, for unit tests: a real Arbiter over a real Store (SQLite in a
tmp folder), a real Hub and real profiles from a tmp folder, serving tiny real servers (a
Python HTTP server, a process that ignores SIGTERM). No daemon subprocess, no socket."""

from __future__ import annotations

import signal
import socket
import textwrap
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

import anyio

from supervisor.config import Config
from supervisor.events import Hub
from supervisor.runtime import process as proc_mod
from supervisor.runtime.arbiter import Arbiter
from supervisor.store import Store

# Answers GET /health with 200 once it listens: readiness comes from the daemon's own probe.
HTTP_SERVER = textwrap.dedent("""\
    import http.server, sys

    class Health(http.server.BaseHTTPRequestHandler):
        def do_GET(self):
            self.send_response(200 if self.path == "/health" else 404)
            self.send_header("Content-Length", "0")
            self.end_headers()

        def log_message(self, *args):
            pass

    server = http.server.HTTPServer(("127.0.0.1", int(sys.argv[1])), Health)
    print("listening", flush=True)
    server.serve_forever()
    """)

# Ignores SIGTERM, says so, then waits: only the SIGKILL after stop_grace ends it.
TERM_IGNORER = textwrap.dedent("""\
    import signal, time
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    print("ignoring SIGTERM", flush=True)
    time.sleep(600)
    """)

# Fails the way a broken install does: a traceback naming the missing module, exit 1.
IMPORT_FAILER = textwrap.dedent("""\
    import sys
    print("Traceback (most recent call last):", flush=True)
    print('  File "server.py", line 1, in <module>', flush=True)
    print("ModuleNotFoundError: No module named 'sgl_kernel'", flush=True)
    sys.exit(1)
    """)


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return int(s.getsockname()[1])


def command_profile(script: Path, *, port: int, stop_grace: float = 2.0,
                    silence: float = 30.0, extra: str = "") -> str:
    """A `command` profile running ``script`` with the port as its argument; no restarts."""
    return textwrap.dedent(f"""\
        engine = "command"
        [launch]
        command = ["{{python}}", "{script}", "{port}"]
        port = {port}
        [timeouts]
        silence = {silence}
        stop_grace = {stop_grace}
        [health]
        interval = 0.2
        timeout = 1
        failures = 3
        [restart]
        on_failure = "none"
        """) + extra


@dataclass
class Kit:
    """One in-process daemon core and what a test reads of it."""

    tmp: Path
    config: Config
    store: Store
    hub: Hub
    arbiter: Arbiter
    events: list[tuple[str, Any]] = field(default_factory=list)
    runs: dict[int, Any] = field(default_factory=dict)  # every Run the arbiter made current
    forced: list[str] = field(default_factory=list)     # what the teardown had to force

    def note(self, kind: str, data: Any) -> None:
        self.events.append((kind, data))
        run = self.arbiter.current
        if kind == "run" and run is not None and run.id == data["id"]:
            self.runs[run.id] = run

    def statuses(self, run_id: int) -> list[str]:
        """The run's published statuses, in order, each once."""
        seen: list[str] = []
        for kind, data in self.events:
            if kind == "run" and data["id"] == run_id and data["status"] not in seen[-1:]:
                seen.append(data["status"])
        return seen


def make_profiles(tmp: Path, **scripts: tuple[str, Callable[[Path, int], str]]) -> Path:
    """Write each NAME=(script text, profile maker) as NAME.toml with its script beside it."""
    folder = tmp / "profiles"
    folder.mkdir(exist_ok=True)
    for name, (code, make) in scripts.items():
        script = tmp / f"{name}.py"
        script.write_text(code)
        (folder / f"{name}.toml").write_text(make(script, free_port()))
    return folder


@asynccontextmanager
async def running_arbiter(tmp: Path, monkeypatch: Any, gpus: Any = None) -> AsyncIterator[Kit]:
    """Serve an Arbiter over ``tmp/profiles`` (written first) until the block ends; on the way
    out, the daemon's shutdown path stops whatever still runs."""
    # Not the pytest process: orphans of other tests' processes must not become its children.
    monkeypatch.setattr(proc_mod, "become_subreaper", lambda: False)
    (tmp / "state").mkdir(exist_ok=True)
    config = Config(profiles_dir=tmp / "profiles", state_dir=tmp / "state",
                    socket=tmp / "s.sock")
    store = Store(tmp / "state" / "history.sqlite3")
    hub = Hub()
    arbiter = Arbiter(config, store, hub, gpus)
    kit = Kit(tmp, config, store, hub, arbiter)
    hub.listeners.append(kit.note)
    try:
        async with anyio.create_task_group() as outer:
            async with anyio.create_task_group() as tg:
                with anyio.fail_after(10):
                    await tg.start(arbiter.serve)
                try:
                    yield kit
                finally:
                    outer.start_soon(_last_resort, kit, TEARDOWN_S)
                    tg.cancel_scope.cancel()  # the daemon's shutdown path: stop what runs
            outer.cancel_scope.cancel()
    finally:
        store.close()
    assert not kit.forced, (f"the shutdown's stop did not end the run within {TEARDOWN_S} s; "
                            f"forced so that the test ends: {'; '.join(kit.forced)}")


# A run's stop waits, shielded, until nothing of it is left: a stop path that fails to kill
# would hang the test run for good. Past this, the test kills what is left and fails instead.
TEARDOWN_S = 20.0


async def _last_resort(kit: Kit, delay: float) -> None:
    await anyio.sleep(delay)
    current = kit.arbiter.current
    runs = list({**kit.runs, **({current.id: current} if current else {})}.values())
    for run in runs:
        pids = live_pids(run) | ({run.pid} if run.pid and alive(run.pid) else set())
        kit.forced.append(f"run {run.id}: SIGKILL {sorted(pids)}")
        proc_mod.signal_pids(pids, signal.SIGKILL)
    await anyio.sleep(5)
    for run in runs:
        if not run.settled.is_set():  # nothing left to kill and still waiting: release it
            kit.forced.append(f"run {run.id}: never settled")
            run.settled.set()


async def stop_within(run: Any, within: float, reason: str = "stopped by the test") -> float:
    """Stop ``run`` and return how long it took; fail, never hang, when it takes longer than
    ``within`` (what is left is SIGKILLed so that the shielded stop can return)."""
    t0 = time.monotonic()
    async with anyio.create_task_group() as tg:
        tg.start_soon(run.stop, reason)
        with anyio.move_on_after(within):
            await run.settled.wait()
        late = not run.settled.is_set()
        if late:
            proc_mod.signal_pids({p for p in live_pids(run) | {run.pid} if p}, signal.SIGKILL)
            with anyio.move_on_after(5):
                await run.settled.wait()
            run.settled.set()  # nothing left to kill and still waiting: release the stop
    assert not late, f"run {run.id} not stopped within {within} s"
    return time.monotonic() - t0


async def wait_for(pred: Callable[[], Any], what: str, timeout: float = 10.0) -> Any:
    """Poll ``pred`` on the loop until it is truthy; fail naming ``what`` after ``timeout``."""
    try:
        with anyio.fail_after(timeout):
            while not (value := pred()):  # noqa: ASYNC110 - state of real processes
                await anyio.sleep(0.01)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout} s waiting for {what}") from None
    return value


def live_pids(run: Any) -> set[int]:
    """Every process of the run still alive (cgroup, token, group)."""
    return proc_mod.run_pids(run.token, run.pgid)


def alive(pid: int) -> bool:
    try:
        with open(f"/proc/{pid}/stat", "rb") as f:
            stat = f.read()
    except OSError:
        return False
    return stat[stat.rfind(b")") + 2:][:1] != b"Z"
