"""Profiles re-read on file change (watchfiles), debounced (DESIGN §10).

``Arbiter.reload_profiles`` does the work (load, diff, validate, swap; a bad file is reported in
``profiles`` and never disturbs the running server; it may be a coroutine that loads off the
event loop, and is awaited then); this task only decides *when*. SIGHUP is handled in
``service._signals``.

Cancellation: ``watchfiles.awatch`` waits in a worker thread that anyio cannot interrupt, so a
sibling task sets the watcher's stop event the moment this task is cancelled; the thread sees
it within ``STEP_MS`` and the daemon's shutdown is never held up by the watcher.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from pathlib import Path
from typing import Any

import anyio

log = logging.getLogger(__name__)

DEBOUNCE_MS = 400      # group an editor's truncate + write + rename into one reload
STEP_MS = 50
MISSING_DIR_POLL_S = 2.0
_TEMP_SUFFIXES = (".swp", ".swx", ".tmp", "~")


def is_profile_file(path: str) -> bool:
    """A change worth a reload: a ``*.toml`` file, not an editor's temporary file."""
    name = Path(path).name
    if name.startswith((".#", ".")) or name.endswith(_TEMP_SUFFIXES):
        return False
    return name.endswith(".toml")


async def watch_profiles(arbiter: Any, *, task_status: Any = anyio.TASK_STATUS_IGNORED,
                         debounce_ms: int = DEBOUNCE_MS,
                         on_reload: Callable[[dict[str, Any]], None] | None = None) -> None:
    """Reload ``arbiter``'s profiles whenever a profile file changes; runs until cancelled."""
    stop = anyio.Event()
    async with anyio.create_task_group() as tg:
        tg.start_soon(_watch_loop, arbiter, stop, debounce_ms, on_reload)
        task_status.started()
        try:
            await anyio.sleep_forever()
        finally:
            stop.set()


async def _watch_loop(arbiter: Any, stop: anyio.Event, debounce_ms: int,
                      on_reload: Callable[[dict[str, Any]], None] | None) -> None:
    from watchfiles import awatch

    directory = Path(arbiter.config.profiles_dir)
    adir = anyio.Path(directory)
    while not stop.is_set():
        if not await adir.is_dir():
            # Nothing to watch yet; look again later (and reload once it appears).
            await _sleep_or_stop(stop, MISSING_DIR_POLL_S)
            if await adir.is_dir():
                await _reload(arbiter, "profiles directory appeared", on_reload)
            continue
        try:
            async for changes in awatch(directory, stop_event=stop, debounce=debounce_ms,
                                        step=STEP_MS, recursive=False,
                                        watch_filter=lambda _c, p: is_profile_file(p)):
                names = sorted({Path(p).name for _c, p in changes})
                await _reload(arbiter, f"file change: {', '.join(names)}", on_reload)
        except (OSError, RuntimeError) as exc:
            # The directory went away or the watcher failed: say so and start over.
            log.warning("watching %s for profile changes failed: %s", directory, exc)
            await _sleep_or_stop(stop, MISSING_DIR_POLL_S)


async def _reload(arbiter: Any, why: str,
                  on_reload: Callable[[dict[str, Any]], None] | None) -> None:
    try:
        diff = arbiter.reload_profiles(why)
        if inspect.isawaitable(diff):  # a reload that loads off the event loop
            diff = await diff
    except Exception:  # a reload bug must not end the watcher (or the daemon)
        log.exception("reloading profiles (%s) failed", why)
        return
    log.info("profiles reloaded (%s): %s", why, _summary(diff))
    if on_reload is not None:
        on_reload(diff)


def _summary(diff: Any) -> str:
    if not isinstance(diff, dict):
        return str(diff)
    parts = [f"{k} {', '.join(map(str, v))}" for k, v in diff.items()
             if isinstance(v, (list, tuple)) and v]
    return "; ".join(parts) or "no change"


async def _sleep_or_stop(stop: anyio.Event, seconds: float) -> None:
    with anyio.move_on_after(seconds):
        await stop.wait()
