"""The GPU watchdog's sampler: the single choke point between the event loop and NVML.

Every backend call goes through :meth:`GpuMonitor._call`, which runs it in a worker thread
(``anyio.to_thread.run_sync``) under a lock and a deadline, never on the event loop. Two
lanes keep the blocking XID wait from delaying samples: ``sample`` (gauges, counters,
process lists, init/probe/shutdown) and ``xid`` (``wait_xid`` with short timeouts). NVML
is thread-safe, so the lanes may overlap; calls within one lane never do.

A round is ONE thread call: a closure that loops over the GPUs inside the worker thread
(:meth:`_batch`), so an idle daemon pays one event-loop/thread hand-off per round, not one
per GPU. The closure records each GPU's result as it goes; if the call stalls past its
deadline it is abandoned, the GPUs already done are used and the rest keep their last good
sample with the telemetry ("stale") flag. The XID lane blocks for ``xid_poll`` seconds per
call (long by default: the backend's wait wakes on an event, and ``shutdown()`` ends it).
:meth:`snapshot` is built once per change (per GPU, then the list) and reused until the next
sample, XID or injection; its dicts are shared and must be treated as read-only.

Three loops, each scheduled by completion (the next round starts ``interval`` after the
previous one finished): gauges every ``gauge_interval``, counters and process lists every
``slow_interval``, and the XID waiter. A call that stalls past ``call_timeout`` is
abandoned: the last good sample is kept and the GPU's health carries a telemetry flag
(reference row 33).
"""

from __future__ import annotations

import functools
import logging
import math
import threading
import time
from collections import deque
from collections.abc import Callable, Sequence
from dataclasses import replace
from typing import Any, TypeVar

import anyio
import anyio.abc
import anyio.lowlevel
import anyio.to_thread

from .fake import FakeBackend
from .rules import evaluate, worst
from .types import COUNTER_FIELDS, NA, GpuBackend, GpuHealth, GpuProcess, GpuSample, XidEvent

log = logging.getLogger(__name__)

__all__ = ["GpuMonitor"]

T = TypeVar("T")

#: History series kept per GPU: name -> sample field.
HISTORY_FIELDS = {
    "util": "utilization_gpu",
    "mem": "memory_used_mib",
    "temp": "temperature_c",
    "power": "power_w",
    "link": "link_bytes",
}
SHOWN_HISTORY = frozenset({"util", "mem", "temp", "power"})  # in snapshots (TUI sparklines)
#: "Recent" for utilization(): this many seconds of gauge samples.
UTIL_WINDOW_S = 5.0
#: A single backend call slower than this is a telemetry warning (reference row 33).
SLOW_CALL_S = 2.0
#: Hardware XIDs count towards health for this long (or until clear_xids()).
XID_KEEP_S = 24 * 3600.0
#: Default blocking wait per XID-lane thread call (events wake it at once).
XID_WAIT_S = 5.0

#: One GPU's outcome inside a batched round: (index, sample or error, seconds, procs or error).
_Row = tuple[int, Any, float, Any]


class GpuMonitor:
    def __init__(
        self,
        backend: GpuBackend,
        *,
        gauge_interval: float = 1.0,
        slow_interval: float = 10.0,
        history: int = 120,
        on_update: Callable[[list[dict[str, Any]]], None] | None = None,
        on_xid: Callable[[XidEvent], None] | None = None,
        call_timeout: float = 5.0,
        xid_poll: float = XID_WAIT_S,
    ) -> None:
        if gauge_interval <= 0 or slow_interval <= 0 or history < 1:
            raise ValueError("intervals must be > 0 and history >= 1")
        self._backend = backend
        self._gauge_interval = gauge_interval
        self._slow_interval = slow_interval
        self._history = history
        self._on_update = on_update
        self._on_xid = on_xid
        self._call_timeout = call_timeout
        self._xid_poll = xid_poll
        self._locks = {"sample": threading.Lock(), "xid": threading.Lock()}
        self._limiter = anyio.CapacityLimiter(4)

        self._running = False
        self._available = False
        self._reason: str | None = getattr(backend, "reason", None)
        self._count = 0
        self._caps: dict[int, dict[str, bool]] = {}
        self._samples: dict[int, GpuSample] = {}
        self._counters: dict[int, GpuSample] = {}
        self._baseline: dict[int, GpuSample] = {}
        self._health: dict[int, GpuHealth] = {}
        self._procs: dict[int, list[GpuProcess]] = {}
        self._hist: dict[int, dict[str, deque[float | None]]] = {}
        self._xids: dict[int, deque[XidEvent]] = {}
        self._telemetry: dict[int, str] = {}
        self._views: dict[int, dict[str, Any]] = {}  # per-GPU snapshot dicts, built on demand
        self._snap: list[dict[str, Any]] | None = None  # the snapshot list, until a change
        self._stats: dict[str, Any] = {
            "samples": 0,
            "gauge_rounds": 0,
            "slow_rounds": 0,
            "calls": 0,
            "errors": 0,
            "timeouts": 0,
            "slow_calls": 0,
            "xid_events": 0,
            "callback_errors": 0,
            "last_sample_duration_s": None,
            "max_sample_duration_s": 0.0,
            "last_slow_duration_s": None,
            "last_error": None,
        }

    # -- the choke point -----------------------------------------------------------------------

    async def _call(
        self,
        fn: Callable[..., T],
        *args: Any,
        lane: str = "sample",
        deadline_s: float | None = None,
        **kwargs: Any,
    ) -> T:
        """Run one backend call in a worker thread, serialised per lane, under a deadline."""
        lock = self._locks[lane]
        deadline = self._call_timeout if deadline_s is None else deadline_s
        call = functools.partial(fn, *args, **kwargs)
        timing: list[float] = []

        def work() -> T:
            if not lock.acquire(timeout=deadline):
                raise TimeoutError(f"GPU {lane} lane busy: an earlier call is stalled")
            try:
                t0 = time.monotonic()
                try:
                    return call()
                finally:
                    timing.append(time.monotonic() - t0)
            finally:
                lock.release()

        self._stats["calls"] += 1
        try:
            with anyio.fail_after(deadline + 0.5):
                result = await anyio.to_thread.run_sync(
                    work, abandon_on_cancel=True, limiter=self._limiter
                )
        except TimeoutError:
            self._stats["timeouts"] += 1
            raise
        if timing and lane == "sample" and timing[0] > SLOW_CALL_S:
            self._stats["slow_calls"] += 1
        return result

    # -- the service ---------------------------------------------------------------------------

    async def run(
        self, *, task_status: anyio.abc.TaskStatus[None] = anyio.TASK_STATUS_IGNORED
    ) -> None:
        """Init the backend, probe, take first samples, report started, then loop forever."""
        b = self._backend
        try:
            await self._call(b.init)
            self._count = int(await self._call(b.device_count))
            self._available = b.name != "none"
            if self._available:
                self._reason = None
        except Exception as e:  # noqa: BLE001 - any init failure means "no GPU signal"
            self._count = 0
            self._available = False
            self._reason = self._reason or f"GPU backend {b.name} failed to start: {e}"
            log.warning("%s", self._reason)
        if not self._available and self._reason:
            log.warning("GPU watchdog: no GPU signal (%s)", self._reason)
        for i in range(self._count):
            self._hist[i] = {k: deque(maxlen=self._history) for k in HISTORY_FIELDS}
            self._xids[i] = deque(maxlen=64)
            try:
                self._caps[i] = dict(await self._call(b.probe, i))
            except Exception as e:  # noqa: BLE001
                self._note_error(f"probe GPU {i}: {e}")
                self._caps[i] = {}
            self._touch(i)
        self._running = True
        try:
            if self._count:
                await self._slow_round()
                await self._gauge_round()
            task_status.started()
            if not self._count:
                await anyio.sleep_forever()
            async with anyio.create_task_group() as tg:
                tg.start_soon(self._loop, self._gauge_round, self._gauge_interval)
                tg.start_soon(self._loop, self._slow_round, self._slow_interval)
                tg.start_soon(self._xid_loop)
        finally:
            self._running = False
            with anyio.CancelScope(shield=True):
                try:
                    await self._call(b.shutdown)
                except Exception as e:  # noqa: BLE001
                    log.debug("GPU backend shutdown: %s", e)

    async def _loop(self, round_fn: Callable[[], Any], interval: float) -> None:
        while True:
            await anyio.sleep(interval)  # by completion: counted from the end of the last round
            await round_fn()

    def _batch(self, indices: Sequence[int], *, counters: bool, procs: bool
               ) -> tuple[Callable[[], None], list[_Row]]:
        """A closure that samples ``indices`` in one worker-thread call, and its result rows.

        Rows are appended as each GPU finishes, so a round abandoned past its deadline still
        yields the GPUs done before the stall. Errors are per GPU, as with one call each.
        """
        b = self._backend
        rows: list[_Row] = []

        def work() -> None:
            for i in indices:
                t0 = time.monotonic()
                try:
                    s: Any = b.sample(i, counters=counters)
                except Exception as e:  # noqa: BLE001 - reported per GPU by the caller
                    s = e
                dt = time.monotonic() - t0
                p: Any = None
                if procs:
                    try:
                        p = list(b.processes(i))
                    except Exception as e:  # noqa: BLE001
                        p = e
                rows.append((i, s, dt, p))

        return work, rows

    async def _round(self, *, counters: bool, procs: bool) -> list[_Row]:
        """Sample every GPU in ONE thread call through :meth:`_call`; flag GPUs left undone."""
        indices = list(range(self._count))
        work, rows = self._batch(indices, counters=counters, procs=procs)
        timed_out = False
        try:
            await self._call(work)
        except TimeoutError:
            timed_out = True
        except Exception as e:  # noqa: BLE001 - work() catches per GPU; this is the lane itself
            self._note_error(f"sample round: {e}")
        done = list(rows)  # an abandoned thread may still append: ignore what comes later
        if timed_out:
            seen = {r[0] for r in done}
            for i in indices:
                if i not in seen:
                    self._stale(i)
        return done

    def _stale(self, i: int) -> None:
        self._telemetry[i] = (
            f"GPU sample timed out (> {self._call_timeout:g} s); showing last good sample"
        )
        self._reevaluate(i)

    def _accept(self, i: int, s: Any, dt: float) -> GpuSample | None:
        """Per-GPU bookkeeping of one sample result (was: one ``_call`` per GPU)."""
        if isinstance(s, TimeoutError):
            self._stats["timeouts"] += 1
            self._stale(i)
            return None
        if isinstance(s, Exception):
            self._note_error(f"sample GPU {i}: {s}")
            return None
        if dt > SLOW_CALL_S:
            self._telemetry[i] = f"GPU sample took {dt:.1f} s (> {SLOW_CALL_S:g} s)"
        else:
            self._telemetry.pop(i, None)
        self._stats["samples"] += 1
        return s  # type: ignore[no-any-return]

    async def _gauge_round(self) -> None:
        t0 = time.monotonic()
        for i, res, dt, _ in await self._round(counters=False, procs=False):
            s = self._accept(i, res, dt)
            if s is None:
                continue
            c = self._counters.get(i)
            if c is not None and not s.lost:
                carry = {f: getattr(c, f) for f in COUNTER_FIELDS if getattr(s, f) is NA}
                if carry:
                    s = replace(s, **carry)
            self._update(i, s)
        dt = time.monotonic() - t0
        self._stats["gauge_rounds"] += 1
        self._stats["last_sample_duration_s"] = dt
        self._stats["max_sample_duration_s"] = max(self._stats["max_sample_duration_s"], dt)
        self._notify()

    async def _slow_round(self) -> None:
        t0 = time.monotonic()
        for i, res, dt, procs in await self._round(counters=True, procs=True):
            s = self._accept(i, res, dt)
            if s is not None:
                prev = self._counters.get(i)
                if prev is not None:
                    self._baseline[i] = prev
                if not s.lost:
                    self._counters[i] = s
                self._update(i, s)
            if isinstance(procs, Exception):
                self._note_error(f"processes GPU {i}: {procs}")
            else:
                self._procs[i] = procs
                self._touch(i)
        self._stats["slow_rounds"] += 1
        self._stats["last_slow_duration_s"] = time.monotonic() - t0

    async def _xid_loop(self) -> None:
        while True:
            try:
                events = await self._call(
                    self._backend.wait_xid,
                    self._xid_poll,
                    lane="xid",
                    deadline_s=self._xid_poll + self._call_timeout,
                )
            except TimeoutError:
                continue
            except Exception as e:  # noqa: BLE001
                self._note_error(f"wait_xid: {e}")
                await anyio.sleep(1.0)
                continue
            for ev in events:
                self._record_xid(ev)
            if events:
                self._notify()
            await anyio.lowlevel.checkpoint()

    # -- state ---------------------------------------------------------------------------------

    def _record_xid(self, ev: XidEvent) -> None:
        self._stats["xid_events"] += 1
        log.warning("GPU %d: XID %d (%s)", ev.gpu_index, ev.xid, ev.description)
        if ev.gpu_index in self._xids:
            self._xids[ev.gpu_index].append(ev)
            self._reevaluate(ev.gpu_index)
        if self._on_xid is not None:
            try:
                self._on_xid(ev)
            except Exception:  # noqa: BLE001
                self._stats["callback_errors"] += 1
                log.exception("on_xid callback failed")

    def _update(self, i: int, s: GpuSample) -> None:
        self._samples[i] = s
        if not s.lost:
            for key, fname in HISTORY_FIELDS.items():
                v = getattr(s, fname)
                self._hist[i][key].append(None if v is NA else v)
        self._reevaluate(i)

    def _reevaluate(self, i: int) -> None:
        self._touch(i)
        s = self._samples.get(i)
        if s is None:
            return
        now = s.timestamp or time.time()
        xids = [e for e in self._xids.get(i, ()) if now - e.timestamp <= XID_KEEP_S]
        h = evaluate(s, xids, self._baseline.get(i))
        tele = self._telemetry.get(i)
        if tele:
            h = GpuHealth(
                index=h.index,
                level=worst([h.level, "warn"]) if h.level != "unknown" else "warn",
                flags=h.flags + (tele,),
                action=h.action or "re-probe GPU; degrade if it persists",
            )
        self._health[i] = h

    def _touch(self, i: int) -> None:
        """GPU ``i``'s visible state changed: rebuild its snapshot dict on the next query."""
        self._views.pop(i, None)
        self._snap = None

    def _note_error(self, msg: str) -> None:
        self._stats["errors"] += 1
        self._stats["last_error"] = msg
        log.debug("GPU monitor: %s", msg)

    def _notify(self) -> None:
        if self._on_update is None:
            return
        try:
            self._on_update(self.snapshot())
        except Exception:  # noqa: BLE001
            self._stats["callback_errors"] += 1
            log.exception("on_update callback failed")

    # -- queries -------------------------------------------------------------------------------

    def snapshot(self) -> list[dict[str, Any]]:
        """Latest state per GPU, JSON-safe; [] without GPUs.

        Built once per change and shared: a new list each call, but the per-GPU dicts are the
        cached ones (rebuilt, never edited, on the next change), so treat them as read-only.
        """
        snap = self._snap
        if snap is None:
            snap = self._snap = [self._view(i) for i in sorted(self._samples)]
        return list(snap)

    def _view(self, i: int) -> dict[str, Any]:
        d = self._views.get(i)
        if d is not None:
            return d
        d = self._samples[i].to_dict()
        h = self._health.get(i)
        d["health"] = h.to_dict() if h else {"level": "unknown", "flags": [], "action": None}
        d["processes"] = [p.to_dict() for p in self._procs.get(i, [])]
        # The link counter is for activity(), not for display: kept out of the snapshot.
        d["history"] = {k: list(dq) for k, dq in self._hist.get(i, {}).items()
                        if k in SHOWN_HISTORY}
        d["xids"] = [e.to_dict() for e in self._xids.get(i, ())]
        d["capabilities"] = dict(self._caps.get(i, {}))
        d["stale"] = i in self._telemetry
        self._views[i] = d
        return d

    def health(self, index: int) -> GpuHealth | None:
        return self._health.get(index)

    def status(self) -> dict[str, Any]:
        return {
            "backend": self._backend.name,
            "available": self._available,
            "reason": self._reason,
            "count": self._count,
        }

    def utilization(self, indices: Sequence[int] | None = None) -> float | None:
        """Max utilisation (%) over the last few seconds on those GPUs; None = no signal."""
        n = max(1, math.ceil(UTIL_WINDOW_S / self._gauge_interval))
        best: float | None = None
        for i in self._pick(indices):
            dq = self._hist.get(i, {}).get("util")
            if not dq:
                continue
            for v in list(dq)[-n:]:
                if v is not None and (best is None or v > best):
                    best = float(v)
        return best

    def activity(self, indices: Sequence[int] | None = None,
                 ) -> tuple[float, float | None, float | None] | None:
        """(utilisation %, power as a fraction of the limit, PCIe bytes/s) of the busiest of
        those GPUs over the last few seconds; None = no signal. High utilisation at low power
        is a GPU spinning on a flag (a collective waiting for a peer), not computing; bytes
        moving over the link are work (None where the driver does not count them)."""
        util = self.utilization(indices)
        if util is None:
            return None
        frac: float | None = None
        n = max(1, math.ceil(UTIL_WINDOW_S / self._gauge_interval))
        for i in self._pick(indices):
            utils = list(self._hist.get(i, {}).get("util") or [])[-n:]
            powers = list(self._hist.get(i, {}).get("power") or [])[-n:]
            sample = self._samples.get(i)
            limit = getattr(sample, "power_limit_w", None)
            if not utils or not powers or not isinstance(limit, (int, float)) or limit <= 0:
                continue
            if max((u for u in utils if u is not None), default=-1.0) >= util:
                watts = [p for p in powers if p is not None]
                frac = max(watts) / limit if watts else None
        return util, frac, self._link_rate(indices, n)

    def _link_rate(self, indices: Sequence[int] | None, n: int) -> float | None:
        """The fastest of those GPUs' PCIe byte rates over the window, from the counters."""
        best: float | None = None
        for i in self._pick(indices):
            moved = [b for b in list(self._hist.get(i, {}).get("link") or [])[-n:]
                     if b is not None]
            if len(moved) >= 2:  # samples come one gauge interval apart
                rate = max(0.0, (moved[-1] - moved[0]) / ((len(moved) - 1)
                                                         * self._gauge_interval))
                best = rate if best is None else max(best, rate)
        return best

    async def foreign_processes(
        self, indices: Sequence[int] | None, our_pids: set[int]
    ) -> list[GpuProcess]:
        """Fresh NVML query: compute processes on those GPUs whose pid is not in ``our_pids``."""
        picked = self._pick(indices)
        if not picked:
            return []
        b = self._backend
        got: list[tuple[int, list[GpuProcess]]] = []

        def work() -> None:  # one thread call for all of them, as a round
            for i in picked:
                got.append((i, list(b.processes(i))))

        try:
            await self._call(work)
        finally:
            out: list[GpuProcess] = []
            for i, procs in list(got):
                self._procs[i] = procs
                self._touch(i)
                out.extend(p for p in procs if p.pid not in our_pids)
        return out

    async def inject(self, spec: str) -> None:
        """Inject a fault into the fake backend (``--fake-gpus`` only) and refresh at once."""
        if not isinstance(self._backend, FakeBackend):
            raise ValueError("fault injection needs --fake-gpus")
        await self._call(self._backend.inject, spec)
        parts = spec.strip().split(":")
        if parts[0].lower() == "clear":
            self.clear_xids(int(parts[1]) if len(parts) > 1 else None)
        if self._running:
            await self._slow_round()
            self._notify()

    def clear_xids(self, index: int | None = None) -> None:
        """Forget recorded XIDs (after a GPU reset), for one GPU or all."""
        for i in self._pick(None if index is None else [index]):
            if i in self._xids:
                self._xids[i].clear()
            self._reevaluate(i)

    def statistics(self) -> dict[str, Any]:
        stats = dict(self._stats)
        stats["backend_errors"] = dict(getattr(self._backend, "errors", {}) or {})
        return stats

    def _pick(self, indices: Sequence[int] | None) -> list[int]:
        if indices is None:
            return list(range(self._count))
        return [i for i in indices if 0 <= i < self._count]
