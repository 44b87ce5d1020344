"""The daemon's services under one root task group (STYLE 4, 5, 6).

Order: the state dir's lock and a check of the socket path (a refusal touches nothing), store,
GPU monitor, arbiter (recovers leftovers), control socket, then READY=1.
Signals are handled here only: TERM/INT stop gracefully (a second one forces), HUP reloads.
"""

from __future__ import annotations

import gc
import logging
import os
import signal
import sys
from collections.abc import Callable
from typing import Any

import anyio

from .commands import Daemon
from .config import Config
from .events import Hub
from .loopwatch import LoopWatch
from .protocol.paths import SocketPathError
from .protocol.server import ControlServer, Peer
from .protocol.socketfile import check_socket_path
from .runtime import memory
from .runtime import process as proc_mod
from .runtime.arbiter import Arbiter
from .statelock import StateLock, StateLockError
from .store import Store
from .systemd import Notifier, watchdog_interval

log = logging.getLogger("supervisor")


SWITCH_INTERVAL = 0.0005


def access_policy(config: Config) -> Any:
    """Who may mutate: root, the daemon's own user, and the configured users and groups."""
    import grp

    allowed_gids: set[int] = set()
    for name in config.allow_groups:
        try:
            allowed_gids.add(grp.getgrnam(name).gr_gid)
        except KeyError:
            log.warning("allow_groups: no group named %r", name)
    allowed_uids = {0, os.getuid(), *config.allow_uids}

    def check(peer: Peer) -> tuple[bool, str | None]:
        if peer.uid is None:
            return True, None  # a stream we opened ourselves (bridge tests)
        if peer.uid in allowed_uids or peer.groups & allowed_gids:
            return True, None
        return False, (f"uid {peer.uid} is not allowed to change the daemon's state "
                       "(config: allow_uids / allow_groups)")
    return check


def open_gpu_monitor(config: Config, hub: Hub,
                     on_xid: Callable[[Any], None] | None = None) -> Any:
    from .gpu import GpuMonitor, open_backend

    backend = open_backend(config.fake_gpus)
    return GpuMonitor(backend, on_update=lambda gpus: hub.publish("gpus", {"gpus": gpus}),
                      on_xid=on_xid)


async def run_daemon(config: Config) -> None:
    proc_mod.use_pidfd_child_watcher()  # a child's exit reaches us in ~0.1 ms, not 1-2 ms
    # Worker threads (the /proc scan of a run's tree, NVML samples) run Python code too; with
    # the default 5 ms GIL switch interval, a request arriving meanwhile waits up to 5 ms.
    sys.setswitchinterval(SWITCH_INTERVAL)
    lock = claim_state_and_socket(config)
    try:
        await _run_services(config)
    finally:
        lock.release()


class StartupRefused(Exception):
    """The daemon cannot start here; the message is one line: what was found, what to do."""


def claim_state_and_socket(config: Config) -> StateLock:
    """Before anything reads or changes the state: this daemon alone owns the state dir, and
    the socket path is safe and free (refused here, nothing is touched: no recovery, no kill).
    """
    try:
        config.state_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise StartupRefused(f"cannot create the state dir {config.state_dir}: "
                             f"{exc.strerror or exc}; create it or choose another --state-dir",
                             ) from None
    lock = StateLock(config.state_dir)
    try:
        lock.acquire()
        check_socket_path(config.socket)
    except (StateLockError, SocketPathError) as exc:
        lock.release()
        raise StartupRefused(str(exc)) from None
    return lock


async def _run_services(config: Config) -> None:
    store = Store(config.state_dir / "history.sqlite3")
    hub = Hub()
    notifier = Notifier()
    # XIDs go to the arbiter, which needs the monitor in turn: the callback looks it up when
    # an event comes (the monitor's sampler starts only after both exist).
    gpus = open_gpu_monitor(config, hub, on_xid=lambda event: arbiter.on_xid(event))
    arbiter = Arbiter(config, store, hub, gpus)
    server_box: dict[str, ControlServer] = {}
    loop_watch = LoopWatch()
    daemon = Daemon(arbiter, store=store, hub=hub, gpus=gpus,
                    server_stats=lambda: server_box["s"].statistics(), loop=loop_watch)
    server = ControlServer(config.socket, hub, daemon.dispatch, access_policy(config),
                           hello_extra=lambda: {"version": _version(), "pid": os.getpid()},
                           socket_gid=_socket_gid(config))
    server_box["s"] = server
    hub.listeners.append(_status_notifier(notifier))
    metrics_state = _metrics_state(config, hub, server)
    try:
        async with anyio.create_task_group() as root:
            services = anyio.CancelScope()
            root.start_soon(_signals, root, services, arbiter, notifier)
            async def run_services() -> None:
                with services:
                    async with anyio.create_task_group() as tg:
                        await tg.start(loop_watch.run)
                        await tg.start(gpus.run)
                        # What start-up made (modules, profiles, the store) lives as long as
                        # the daemon: out of the collector's sight, a full collection under
                        # load takes ~2 ms instead of ~35 ms (bench: status under load).
                        # Before any run exists: a run is a cycle, freed by the collector.
                        gc.collect()
                        gc.freeze()
                        await tg.start(arbiter.serve)
                        await _start_cluster(tg, config, arbiter, hub, daemon)
                        await _start_campaigns(tg, daemon)
                        await tg.start(server.serve)
                        await _start_ops(tg, config, arbiter, metrics_state)
                        tg.start_soon(_watchdog_pings, notifier)
                        tg.start_soon(memory.trim_loop)
                        notifier.ready("idle")
                        log.info("listening on %s (profiles %s, state %s, GPUs: %s)",
                                 config.socket, config.profiles_dir, config.state_dir,
                                 gpus.status().get("backend"))
                root.cancel_scope.cancel()
            root.start_soon(run_services)
    finally:  # the socket file is the server's to remove (only if it still is the one it bound)
        store.close()
        notifier.close()


# -- profile watcher, metrics endpoint, socket group ------------------------------------------
def _metrics_state(config: Config, hub: Hub, server: ControlServer) -> Any:
    """Fed from the Hub from the start (a startup profile's first events included)."""
    if config.metrics_port is None:
        return None
    from .metrics import MetricsState

    state = MetricsState(server.statistics, hub.statistics)
    hub.listeners.append(state.on_event)
    return state


async def _start_ops(tg: Any, config: Config, arbiter: Arbiter, metrics_state: Any) -> None:
    from functools import partial

    from .reload import watch_profiles

    await tg.start(watch_profiles, arbiter)
    if metrics_state is not None:
        from .metrics import serve_metrics

        await tg.start(partial(serve_metrics, metrics_state, config.metrics_host,
                               config.metrics_port, on_problem=arbiter.problems.append))


async def _start_cluster(tg: Any, config: Config, arbiter: Arbiter, hub: Hub,
                         daemon: Daemon) -> None:
    """Launch groups through etcd, with [cluster] etcd set, or placed by an orchestrator
    (Slurm, LWS) with [cluster] orchestrator (supervisor/cluster)."""
    if config.cluster_orchestrator:
        from .cluster.orchestrated import OrchestratedService

        daemon.cluster = OrchestratedService(config, arbiter, hub)
        await tg.start(daemon.cluster.run)
        return
    if not config.cluster_etcd:
        return
    from .cluster.group import ClusterService

    daemon.cluster = ClusterService(config, arbiter, hub)
    await tg.start(daemon.cluster.run)


async def _start_campaigns(tg: Any, daemon: Daemon) -> None:
    """Campaign plans run on the daemon (supervisor/campaign.py); one left running by a
    daemon that died resumes here."""
    from . import campaign_commands  # noqa: F401  registers the 'campaign' command
    from .campaign import Campaigns

    daemon.campaigns = Campaigns(daemon.arbiter, cluster=daemon.cluster)  # group profiles
    await tg.start(daemon.campaigns.serve)


def _socket_gid(config: Config) -> int | None:
    if config.socket_group is None:
        return None
    import grp

    return grp.getgrnam(config.socket_group).gr_gid


async def _signals(root: Any, services: anyio.CancelScope, arbiter: Arbiter,
                   notifier: Notifier) -> None:
    with anyio.open_signal_receiver(signal.SIGTERM, signal.SIGINT, signal.SIGHUP) as signals:
        async for sig in signals:
            if sig == signal.SIGHUP:
                notifier.reloading()
                arbiter.request_reload("SIGHUP", on_done=notifier.ready)
                continue
            if not services.cancel_called:
                log.info("signal %s: stopping the server, then exiting", sig.name)
                notifier.stopping()
                services.cancel()
                continue
            log.warning("second signal: killing the server now")
            run = arbiter.current
            if run is not None:
                proc_mod.signal_group(run.pgid, signal.SIGKILL)
                proc_mod.signal_pids(proc_mod.run_pids(run.token, run.pgid), signal.SIGKILL)
            os._exit(1)


async def _watchdog_pings(notifier: Notifier) -> None:
    interval = watchdog_interval()
    if interval is None:
        return
    while True:  # from the main loop only: a stuck loop stops the pings
        notifier.watchdog()
        await anyio.sleep(interval)


def _status_notifier(notifier: Notifier) -> Any:
    last = {"text": ""}

    def on_event(kind: str, data: Any) -> None:
        if kind != "run" or not notifier.enabled:
            return
        text = f"{data.get('profile')}: {data.get('status')} ({data.get('phase')})"
        if text != last["text"]:
            last["text"] = text
            notifier.status(text)
    return on_event


def _version() -> str:
    from . import __version__
    return __version__
