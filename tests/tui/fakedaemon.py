"""A scriptable fake of the daemon's side of the control protocol (docs/protocol.md).

``FakeState`` answers requests and pushes events; two transports serve it:

- ``FakeDaemon``: a real Unix socket server (anyio) speaking JSON lines — hello first, replies
  by id, pushed events to subscribers — so tests exercise the real client library too;
- ``FakeState.connector``: an in-memory client for the App's constructor (snapshot tests,
  which run the app in their own event loop).

Every request is recorded in ``state.requests`` as ``(cmd, args)``.
"""

from __future__ import annotations

import copy
import os
import shutil
import tempfile
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from typing import Any

import anyio
import anyio.lowlevel
from anyio.abc import SocketStream, TaskStatus

from supervisor.protocol import wire
from supervisor.protocol.client import DaemonError

T0 = 1_700_000_000.0  # the frozen "now" of tests is T0 + 100


def ready_status() -> dict[str, Any]:
    """A node serving demo-baseline, 2 GPUs, a short checklist."""
    return {
        "daemon": {"version": "0.1.0", "pid": 4242, "uptime_s": 3725},
        "run": {
            "id": 7, "profile": "demo-baseline", "changes": [], "status": "ready",
            "phase": "ready", "phase_since": T0 + 60, "deadline_s": None, "cause": None,
            "pid": 5151, "progress": None, "started": T0, "ended": None, "exit_code": None,
            "evidence": [],
            "phases": [
                {"phase": "launch", "started": T0, "ended": T0 + 2, "duration": 2.0},
                {"phase": "weight_loading", "started": T0 + 2, "ended": T0 + 44, "duration": 42.0},
                {"phase": "kv_cache_alloc", "started": T0 + 44, "ended": T0 + 47, "duration": 3.0},
                {"phase": "cuda_graph_capture", "started": T0 + 47, "ended": T0 + 58,
                 "duration": 11.0},
                {"phase": "warmup", "started": T0 + 58, "ended": T0 + 60, "duration": 2.0},
                {"phase": "ready", "started": T0 + 60, "ended": None, "duration": None},
            ],
            "activity": {"quiet_s": 3, "cpu_percent": 12, "read_mb_s": 0, "gpu_util": 35,
                         "state": "working"},
        },
        "checklist": [
            {"id": 1, "title": "launch demo-baseline", "status": "done",
             "evidence": ["ready after 60.0s"], "auto": True},
            {"id": 2, "title": "run the benchmark", "status": "in_progress", "evidence": [],
             "auto": True},
        ],
        "gpus": [gpu(0, 35), gpu(1, 40)],
        "fallback": {"strategy": "none", "attempts": [], "culprits": [], "serving": None},
    }


def gpu(index: int, util: float, level: str = "ok", flags: list[str] | None = None) -> dict:
    return {
        "index": index, "name": "Fake H100", "utilization_gpu": util,
        "memory_used_mib": 61440 + index * 1024, "memory_total_mib": 81920,
        "temperature_c": 55 + index, "power_w": 310 + index * 5, "throttle_reasons": [],
        "health": {"level": level, "flags": flags or [], "action": None},
        "history": {"util": [10, 20, 30, 50, 80, 60, 40, util], "mem": [], "temp": [],
                    "power": []},
    }


def hung_run() -> dict[str, Any]:
    """demo-fused hung in CUDA graph capture, with evidence."""
    return {
        "id": 8, "profile": "demo-fused", "changes": ["nccl_fewchan", "flashinfer_fusion"],
        "status": "hung", "phase": "cuda_graph_capture", "phase_since": T0 + 47,
        "deadline_s": 1200, "cause": "nccl_timeout", "pid": 6161, "progress":
        {"kind": "graph batch", "done": 12, "total": 36}, "started": T0, "ended": T0 + 95,
        "exit_code": None,
        "evidence": ["no output for 180s; cpu 0%, disk 0 MB/s, gpu 0%",
                     "[rank3] Watchdog caught collective operation timeout: WorkNCCL(SeqNum=3)"],
        "phases": [
            {"phase": "launch", "started": T0, "ended": T0 + 2, "duration": 2.0},
            {"phase": "weight_loading", "started": T0 + 2, "ended": T0 + 44, "duration": 42.0},
            {"phase": "kv_cache_alloc", "started": T0 + 44, "ended": T0 + 47, "duration": 3.0},
            {"phase": "cuda_graph_capture", "started": T0 + 47, "ended": None, "duration": None},
        ],
        "activity": {"quiet_s": 180, "cpu_percent": 0, "read_mb_s": 0, "gpu_util": 0,
                     "state": "silent"},
    }


def serving_series(n: int = 30) -> list[dict[str, Any]]:
    """``metrics`` rows of an SGLang server under load with speculative decoding (EAGLE-3):
    throughput climbing to ~800 tok/s, a few queued, KV usage rising."""
    rows = []
    for i in range(n):
        rows.append({"t": T0 + 60 + i, "gen_throughput": 300 + i * 17, "running": 4 + i // 5,
                     "queued": i % 4, "token_usage": round(0.2 + i * 0.015, 3),
                     "tokens": 12000 + i * 400, "cache_hit_rate": 0.42, "accept_len": 2.6,
                     "accept_rate": 0.71, "gpu_util": 90})
    return rows


def serving_now() -> dict[str, Any]:
    """``status.run.serving``: the newest values, as the daemon reports them."""
    last = serving_series()[-1]
    return {k: v for k, v in last.items() if k != "t"} | {
        "engine": "sglang", "source": "log", "updated": last["t"], "last_progress": last["t"],
        "last_line": "Decode batch", "hang_signs": [], "samples": 30}


def serving_status() -> dict[str, Any]:
    """``ready_status`` with serving metrics, and GPUs that report power limit and history."""
    status = ready_status()
    status["run"]["serving"] = serving_now()
    for g in status["gpus"]:
        g["power_limit_w"] = 700
        g["history"]["power"] = [120, 200, 310, 420, 560, 600, 640, g["power_w"]]
    return status


def campaign_running() -> dict[str, Any]:
    """The seed's campaign half-way: the fused experiment hung, NCCL alone served faster than
    the baseline, EAGLE-3 with the new NCCL settings is being launched."""
    plan = {"name": "seed", "source": "profiles/campaigns/seed.toml",
            "baseline": "demo-baseline", "time_budget": 3600.0, "stop": "end",
            "description": "the seed: NCCL few channels + FlashInfer fusion, then EAGLE-3",
            "experiments": [
                {"name": "fused", "profile": "demo-fused",
                 "changes": ["nccl_fewchan", "flashinfer_fusion"], "success": "ready",
                 "on_success": "eagle3", "on_failure": "nccl_only", "timeout": None},
                {"name": "nccl_only", "profile": "demo-fused", "changes": ["nccl_fewchan"],
                 "success": "ready, tok/s >= 1 x baseline", "on_success": "eagle3",
                 "on_failure": "stop", "timeout": None},
                {"name": "eagle3", "profile": "demo-eagle3", "changes": ["nccl_fewchan"],
                 "success": "ready", "on_success": None, "on_failure": None,
                 "timeout": None}]}
    return {
        "id": 3, "campaign": "seed", "status": "running", "started": T0, "ended": None,
        "deadline": T0 + 3600, "plan": plan, "current": "eagle3",
        "note": "nccl_only: ready; next: eagle3 (on_success = eagle3)",
        "baseline": {"profile": "demo-baseline", "run_id": 7,
                     "verdict": {"status": "ready", "phase": "ready", "cause": None},
                     "benchmark": {"tokens_per_s": 82.1, "ttft_ms": 140.0},
                     "measured_at": T0 + 60, "samples": 1},
        "experiments": [
            {"name": "fused", "profile": "demo-fused",
             "changes": ["nccl_fewchan", "flashinfer_fusion"],
             "verdict": "hung in cuda_graph_capture (nccl_timeout)", "ok": False,
             "why": "not ready: hung in cuda_graph_capture (nccl_timeout)",
             "culprits": ["flashinfer_fusion"],
             "benchmark": {"tokens_per_s": None, "ttft_ms": None, "vs_baseline": None,
                           "ttft_vs_baseline": None, "samples": 0, "spread": None},
             "branch": {"taken": "on_failure", "next": "nccl_only",
                        "why": "on_failure = nccl_only"}, "run_id": 8,
             "evidence": {"log": "/var/lib/gpu-node-supervisor/runs/8/run.log",
                          "lines": ["[rank3] Watchdog caught collective operation timeout: "
                                    "WorkNCCL(SeqNum=3)"]}},
            {"name": "nccl_only", "profile": "demo-fused", "changes": ["nccl_fewchan"],
             "verdict": "ready", "ok": True, "why": "ready, tok/s >= 1 x baseline",
             "culprits": [],
             "benchmark": {"tokens_per_s": 84.3, "ttft_ms": 131.0, "vs_baseline": 1.027,
                           "ttft_vs_baseline": 0.936, "samples": 1, "spread": None},
             "branch": {"taken": "on_success", "next": "eagle3",
                        "why": "on_success = eagle3"}, "run_id": 11}],
        "serving": {"profile": "demo-fused", "changes": ["nccl_fewchan"], "run_id": 11},
        "report": None, "files": None, "log": []}


CAMPAIGN_REPORT = """# Campaign seed: completed

| experiment | verdict | tok/s | vs baseline |
|---|---|---|---|
| baseline demo-baseline | ready | 82.1 | 1.00x |
| fused | hung in cuda_graph_capture (nccl_timeout) | – | – |
| nccl_only | ready | 84.3 | 1.03x |
| eagle3 | ready | 61.0 | 0.74x |

Serving at the end: **demo-fused + nccl_fewchan**.
"""


def campaign_done() -> dict[str, Any]:
    state = campaign_running()
    state["experiments"].append(
        {"name": "eagle3", "profile": "demo-eagle3", "changes": ["nccl_fewchan"],
         "verdict": "ready", "ok": True, "why": "ready", "culprits": [],
         "benchmark": {"tokens_per_s": 61.0, "ttft_ms": 150.0, "vs_baseline": 0.743,
                       "ttft_vs_baseline": 1.071, "samples": 1, "spread": None},
         "branch": {"taken": "on_success", "next": None, "why": "the plan has run to its end"},
         "run_id": 12})
    state.update(status="completed", current=None, ended=T0 + 900,
                 note="the plan has run to its end", report=CAMPAIGN_REPORT,
                 serving={"profile": "demo-fused", "changes": ["nccl_fewchan"], "run_id": 13},
                 finish={"experiment": "nccl_only", "run_id": 13, "relaunched": True,
                         "ok": True})
    return state


def group_failed(degraded: bool = False) -> dict[str, Any]:
    """Three nodes, rank 2 crashed in CUDA graph capture, the others stopped as consequences."""
    problem = ("coordination degraded: watch: cannot reach etcd at http://127.0.0.1:2379: "
               "connection refused") if degraded else None
    return {
        "group": "big", "profile": "big-tp16", "attempt": 2, "status": "crashed",
        "phase": "cuda_graph_capture",
        "ranks": [
            {"node": "node-a", "rank": 0, "status": "crashed", "phase": "cuda_graph_capture",
             "cause": "nccl_timeout", "pid": 7001},
            {"node": "node-b", "rank": 1, "status": "stopped", "phase": "cuda_graph_capture",
             "cause": None, "pid": 7002},
            {"node": "node-c", "rank": 2, "status": "crashed", "phase": "cuda_graph_capture",
             "cause": "cuda_oom", "pid": 7003}],
        "verdict": {"rank": 2, "node": "node-c", "status": "crashed",
                    "phase": "cuda_graph_capture", "cause": "cuda_oom",
                    "evidence": ["torch.OutOfMemoryError: CUDA out of memory. Tried to "
                                 "allocate 2.00 GiB"],
                    "consequences": [{"rank": 0, "cause": "nccl_timeout"},
                                     {"rank": 1, "cause": "stopped_by_group"}]},
        "coordination": {"etcd": ["http://127.0.0.1:2379"], "node": "node-a",
                         "address": "127.0.0.1", "state": "degraded" if degraded else "ok",
                         "problem": problem}}


def chat_bench(tokens_per_s: float) -> dict[str, Any]:
    """A chat benchmark result as the daemon stores it."""
    return {"kind": "chat", "started": T0 - 400, "duration_s": 1.62, "tokens": 128,
            "ttft_ms": 118.4, "tokens_per_s": tokens_per_s, "e2e_s": 1.7}


PROFILES = {
    "profiles": [
        {"name": "demo-baseline", "description": "the demo model, no changes", "engine": "sglang",
         "extends": None, "changes": [], "valid": True, "error": None},
        {"name": "demo-fused", "description": "NCCL 2 channels + FlashInfer fusion",
         "engine": "sglang", "extends": "demo-baseline",
         "changes": ["nccl_fewchan", "flashinfer_fusion"], "valid": True, "error": None},
        {"name": "broken", "description": None, "engine": "sglang", "extends": None,
         "changes": [], "valid": False, "error": "broken.toml: [timeouts] launch: must be > 0 "
                                                 "(line 7)"},
    ],
    "errors": ["broken.toml: [timeouts] launch: must be > 0 (line 7)"],
}


class FakeState:
    """What the fake daemon knows, what it was asked, and who listens."""

    def __init__(self, status: dict[str, Any] | None = None, *, can_mutate: bool = True,
                 read_only_reason: str | None = None) -> None:
        self.status = status if status is not None else ready_status()
        self.can_mutate = can_mutate
        self.read_only_reason = read_only_reason
        self.requests: list[tuple[str, dict[str, Any]]] = []
        self.logs = [f"[2023-11-14 22:13:{i:02d}] INFO demo line {i}" for i in range(20)]
        self.history = [
            {"id": 6, "profile": "demo-fused", "changes": ["nccl_fewchan"], "status": "ready",
             "phase": "ready", "cause": None, "started": T0 - 500, "ended": T0 - 10,
             "exit_code": 0, "hash": "ab12", "benchmark": chat_bench(812.5),
             "phases": ready_status()["run"]["phases"]},
            {"id": 7, "profile": "demo-baseline", "changes": [], "status": "ready",
             "phase": "ready", "cause": None, "started": T0, "ended": None, "exit_code": None,
             "hash": "cd34", "benchmark": chat_bench(790.0),
             "phases": ready_status()["run"]["phases"]},
        ]
        self.brief = "# Brief\n\n- demo-baseline is **ready**\n"
        self.metrics = serving_series()
        self.campaign: dict[str, Any] | None = None  # none has run
        self.group: dict[str, Any] | None = None     # None: no [cluster] in the config
        self.overrides: dict[str, Callable[[dict[str, Any]], Any]] = {}
        self.subscribers: list[Callable[[dict[str, Any]], None]] = []
        self.accepting = True
        self.daemon: Any = None  # the FakeDaemon serving this state, if any
        self._seq = 0
        self._next_item = 100
        self._disconnectors: list[Callable[[], None]] = []

    # -- requests -----------------------------------------------------------------------

    def hello(self) -> dict[str, Any]:
        return {"hello": wire.HELLO_NAME, "protocol": wire.PROTOCOL_VERSION, "version": "0.1.0",
                "pid": 4242, "peer": {"uid": os.getuid(), "gid": os.getgid(), "pid": 1},
                "can_mutate": self.can_mutate, "read_only_reason": self.read_only_reason}

    def handle(self, cmd: str, args: dict[str, Any]) -> Any:
        """The result of one request, or a raised ``wire.ProtocolError``."""
        self.requests.append((cmd, dict(args)))
        if cmd in self.overrides:
            return self.overrides[cmd](args)
        mutating = {"switch", "start", "stop", "restart", "stacks", "gpu_fault"}
        if cmd == "checklist" and args.get("action", "list") != "list":
            mutating.add("checklist")
        if cmd in mutating and not self.can_mutate:
            raise wire.ProtocolError(wire.NOT_PERMITTED, self.read_only_reason or "read-only")
        if cmd == "status":
            return copy.deepcopy(self.status)
        if cmd == "subscribe":
            return {"topics": args.get("topics") or ["run", "log"], "queue": 1024}
        if cmd == "logs":
            return {"run_id": (self.status.get("run") or {}).get("id"),
                    "lines": self.logs[-int(args.get("n", 100)):]}
        if cmd == "profiles":
            return copy.deepcopy(PROFILES)
        if cmd == "show":
            name = args.get("profile")
            if name == "broken":
                raise wire.ProtocolError(wire.INVALID_PROFILE, PROFILES["errors"][0])
            if name not in {p["name"] for p in PROFILES["profiles"]}:
                raise wire.ProtocolError(wire.NOT_FOUND, f"no profile named {name!r}")
            return {"profile": {"name": name, "engine": "sglang", "launch": {"args": {"tp": 2}}},
                    "parent": "demo-baseline" if name != "demo-baseline" else None,
                    "diff": [{"key": "env.NCCL_MAX_NCHANNELS", "old": None, "new": "2"}]
                    if name == "demo-fused" else []}
        if cmd == "switch":
            return {"run_id": 99, "profile": args.get("profile")}
        if cmd == "history":
            return {"runs": copy.deepcopy(self.history[-int(args.get("n", 20)):])}
        if cmd == "brief":
            return {"markdown": self.brief}
        if cmd == "checklist":
            items = self.status.setdefault("checklist", [])
            action = args.get("action", "list")
            if action == "add":
                self._next_item += 1
                items.append({"id": self._next_item, "title": args.get("text"),
                              "status": "pending", "evidence": [], "auto": False})
            elif action in ("done", "set"):
                for it in items:
                    if it["id"] == args.get("item"):
                        it["status"] = args.get("status", "done")
            return {"items": copy.deepcopy(items)}
        if cmd in ("start", "restart"):
            return {"run_id": 100, "profile": "demo-baseline"}
        if cmd == "stop":
            return {"run_id": 7, "status": "stopping"}
        if cmd == "metrics":
            return self._metrics(args)
        if cmd == "campaign":
            if args.get("action", "status") != "status":
                raise wire.ProtocolError(wire.BAD_REQUEST, "the fake runs no campaign")
            return copy.deepcopy(self.campaign) if self.campaign is not None else {
                "campaign": None, "status": "none", "baseline": None, "experiments": [],
                "serving": None, "report": None}
        if cmd == "group":
            if self.group is None:
                raise wire.ProtocolError(wire.BAD_REQUEST, "this daemon has no [cluster] "
                                         "config, so it is in no launch group "
                                         "(docs/multi-node.md)")
            return copy.deepcopy(self.group)
        if cmd == "ping":
            return {"pong": True, "time": T0}
        raise wire.ProtocolError(wire.UNKNOWN_COMMAND, f"unknown command {cmd!r}")

    def _metrics(self, args: dict[str, Any]) -> dict[str, Any]:
        run = self.status.get("run") or {}
        since = args.get("since")
        rows = [r for r in self.metrics if since is None or r["t"] >= since]
        return {"run_id": run.get("id"), "profile": run.get("profile"), "engine": "sglang",
                "status": run.get("status"), "serving": run.get("serving"),
                "fields": ["gen_throughput", "prompt_throughput", "running", "queued",
                           "token_usage", "tokens", "cache_hit_rate", "accept_len",
                           "accept_rate", "retracted", "gpu_util"],
                "series": copy.deepcopy(rows) if run.get("serving") else []}

    # -- events -------------------------------------------------------------------------

    def push(self, event: str, data: Any) -> None:
        """Send an event to every subscriber now; state-like events also update status."""
        self._seq += 1
        if event == "run":
            self.status["run"] = data
        elif event == "checklist":
            self.status["checklist"] = data.get("items", [])
        elif event == "gpus":
            self.status["gpus"] = data.get("gpus", [])
        elif event == "log":
            self.logs.extend(data.get("lines", []))
        msg = {"event": event, "seq": self._seq, "ts": T0 + 100, "data": data}
        for deliver in list(self.subscribers):
            deliver(msg)

    def disconnect_all(self) -> None:
        """Close every open connection (the clients see the daemon go away)."""
        for close in list(self._disconnectors):
            close()

    def sent(self, cmd: str) -> list[dict[str, Any]]:
        return [args for c, args in self.requests if c == cmd]

    # -- in-memory transport ----------------------------------------------------------------

    def connector(self, target: Any) -> Any:
        return self._connect_memory()

    @asynccontextmanager
    async def _connect_memory(self) -> AsyncIterator[MemoryClient]:
        if not self.accepting:
            raise ConnectionRefusedError("fake daemon refuses connections")
        client = MemoryClient(self)
        self._disconnectors.append(client.close)
        try:
            yield client
        finally:
            client.close()
            self._disconnectors.remove(client.close)


class MemoryClient:
    """The in-memory twin of ``DaemonClient`` over a ``FakeState``."""

    def __init__(self, state: FakeState) -> None:
        self.state = state
        self.hello = state.hello()
        self._send, self._recv = anyio.create_memory_object_stream[dict[str, Any]](10000)
        self._subscribed = False

    def _deliver(self, msg: dict[str, Any]) -> None:
        try:
            self._send.send_nowait(msg)
        except (anyio.WouldBlock, anyio.ClosedResourceError, anyio.BrokenResourceError):
            pass

    async def request(self, cmd: str, **args: Any) -> Any:
        await anyio.lowlevel.checkpoint()
        try:
            result = self.state.handle(cmd, args)
        except wire.ProtocolError as exc:
            raise DaemonError(exc.code, exc.message) from None
        if cmd == "subscribe" and not self._subscribed:
            self._subscribed = True
            self.state.subscribers.append(self._deliver)
        return copy.deepcopy(result)

    async def events(self) -> AsyncIterator[dict[str, Any]]:
        try:
            async for msg in self._recv:
                yield msg
        except (anyio.EndOfStream, anyio.ClosedResourceError):
            return

    def close_events(self) -> None:
        self._recv.close()

    def close(self) -> None:
        if self._deliver in self.state.subscribers:
            self.state.subscribers.remove(self._deliver)
        self._send.close()
        self._recv.close()


class FakeDaemon:
    """The socket transport: ``async with FakeDaemon.running(state) as fake: fake.path``."""

    def __init__(self, state: FakeState) -> None:
        self.state = state
        state.daemon = self
        self._tg: Any = None
        self._listen_scope: anyio.CancelScope | None = None
        self.dir = tempfile.mkdtemp(prefix="gnst", dir="/tmp")
        self.path = os.path.join(self.dir, "s.sock")

    @classmethod
    @asynccontextmanager
    async def running(cls, state: FakeState | None = None) -> AsyncIterator[FakeDaemon]:
        fake = cls(state or FakeState())
        try:
            async with anyio.create_task_group() as tg:
                fake._tg = tg
                await tg.start(fake._serve)
                try:
                    yield fake
                finally:
                    fake.state.disconnect_all()
                    tg.cancel_scope.cancel()
        finally:
            shutil.rmtree(fake.dir, ignore_errors=True)

    async def _serve(self, *, task_status: TaskStatus[None]) -> None:
        with anyio.CancelScope() as scope:
            self._listen_scope = scope
            listener = await anyio.create_unix_listener(self.path)
            async with listener:
                task_status.started()
                await listener.serve(self._connection)

    async def go_down(self) -> None:
        """The daemon goes away: connections close, the socket disappears."""
        if self._listen_scope is not None:
            self._listen_scope.cancel()
            self._listen_scope = None
        self.state.disconnect_all()
        await anyio.lowlevel.checkpoint()
        if os.path.exists(self.path):
            os.unlink(self.path)

    async def come_back(self) -> None:
        await self._tg.start(self._serve)

    async def _connection(self, stream: SocketStream) -> None:
        state = self.state
        if not state.accepting:
            await stream.aclose()
            return
        out_send, out_recv = anyio.create_memory_object_stream[dict[str, Any]](10000)

        def deliver(msg: dict[str, Any]) -> None:
            try:
                out_send.send_nowait(msg)
            except (anyio.WouldBlock, anyio.ClosedResourceError, anyio.BrokenResourceError):
                pass

        async with anyio.create_task_group() as tg:
            def close() -> None:
                tg.cancel_scope.cancel()

            state._disconnectors.append(close)
            try:
                tg.start_soon(self._writer, stream, out_recv)
                deliver(state.hello())
                splitter = wire.LineSplitter()
                while True:
                    try:
                        data = await stream.receive()
                    except (anyio.EndOfStream, anyio.BrokenResourceError, OSError):
                        break
                    for line in splitter.feed(data):
                        if line is None:
                            deliver(wire.reply_error(None, wire.TOO_LARGE, "too large"))
                            continue
                        tg.start_soon(self._answer, line, deliver)
                tg.cancel_scope.cancel()
            finally:
                if deliver in state.subscribers:
                    state.subscribers.remove(deliver)
                state._disconnectors.remove(close)
                out_send.close()
                out_recv.close()
                with anyio.CancelScope(shield=True):
                    await stream.aclose()

    async def _answer(self, line: bytes, deliver: Callable[[dict[str, Any]], None]) -> None:
        try:
            req = wire.parse_request(line)
        except wire.ProtocolError as exc:
            deliver(wire.reply_error(None, exc.code, exc.message))
            return
        try:
            result = self.state.handle(req.cmd, req.args)
        except wire.ProtocolError as exc:
            deliver(wire.reply_error(req.id, exc.code, exc.message))
            return
        if req.cmd == "subscribe" and deliver not in self.state.subscribers:
            deliver(wire.reply_ok(req.id, result))
            self.state.subscribers.append(deliver)
            return
        deliver(wire.reply_ok(req.id, result))

    @staticmethod
    async def _writer(stream: SocketStream, out: Any) -> None:
        async for msg in out:
            try:
                await stream.send(wire.encode(msg))
            except (anyio.BrokenResourceError, anyio.ClosedResourceError, OSError):
                return


async def wait_for(predicate: Callable[[], Any], pilot: Any = None, timeout: float = 10.0,
                   what: str = "condition") -> Any:
    """Poll ``predicate`` (letting the app run) until it is truthy, or fail after ``timeout``."""
    try:
        with anyio.fail_after(timeout):
            while True:
                value = predicate()
                if value:
                    return value
                if pilot is not None:
                    await pilot.pause(0.02)
                else:
                    await anyio.sleep(0.02)
    except TimeoutError:
        raise AssertionError(f"timed out after {timeout}s waiting for {what}") from None

