"""The two-hundred-and-seventy-sixth batch's
scenarios (tests/fixtures/corpus/fresh275): faults chosen, recorded and labelled by a helper who
had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind276.py \
        /tmp/blind276/raw1 [NAME ...]

Themes: the engines' internal ports and channels, a new round - a channel's folder that refuses
its socket files, a rendezvous or NCCL port that collides with a listener the engine does not
expect, and a process killed at the moment it joins its peers. vLLM: VLLM_RPC_BASE_PATH (the
folder of the API server's ZMQ ipc:// sockets to the engine core) an existing folder a hardening
script made immutable (chattr +i: even root cannot create files in it); the EngineCore SIGKILLed
the moment it has connected back over the handshake socket (at `Initializing a V1 LLM engine`);
the API server alone SIGKILLed at the same moment, the engine core left without its peer.
SGLang: --dist-init-addr 127.0.0.1 at the server's own --port on a one-node launch (a script
reusing PORT for the rendezvous); --nccl-port P while another service listens on [::1]:P only
(an IPv6-only loopback listener, V6ONLY); the scheduler SIGKILLed the moment it starts its
process-group rendezvous (at `Init parallel begin`).

Earlier batches already had (not repeated): VLLM_RPC_BASE_PATH missing (69th), longer than a
Unix socket address (169th), its sockets reaped (118th), on an inode-starved tmpfs, a stale
socket file and a read-only mount (237th); VLLM_PORT as a Kubernetes URI (107th), at 65535 with
--data-parallel-size 2 (169th), held (237th); --data-parallel-rpc-port 0 (169th); the
EngineCore SIGKILLed while serving and 15 s after it appeared, and stopped at load (earlier
batches); VLLM_ENGINE_READY_TIMEOUT_S short (68th and later); SGLang --nccl-port 70000, 0, taken
by an IPv4 listener and equal to --port (107th, 169th and before); --dist-init-addr without a port,
unreachable, unresolvable, at port 70000, IPv6, held by another listener (169th, 237th and
before); --gated-launch-port held (169th); TMPDIR missing, long, full, inode-starved, a stale
socket file (85th, 89th, 237th); SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE=env:// with and without
MASTER_ADDR/MASTER_PORT (169th, 209th), MASTER_PORT held under torchrun's env (119th); the
scheduler SIGKILLed as soon as it appears and at `Load weight begin`, the detokenizer SIGKILLed
and SIGSTOPped at start.

Not chosen: a port below 1024 for a non-root user (the engines run as root here, so it binds),
ports in ip_local_reserved_ports (an explicit bind ignores the list; it only steers ephemeral
ports), SGLANG_ZMQ_ALLOWED_PEERS (applied to tcp:// sockets only, which a one-node launch without
DP attention does not use) and MASTER_ADDR/MASTER_PORT on a plain launch (neither engine reads
them: vLLM meets at a file:// store, SGLang at tcp://127.0.0.1:<nccl port>).

The immutable folder is made by the scenario's `before` step under /tmp/blind276/ and its flag is
cleared when the act ends (and when this table is loaded). The IPv6 listener is a plain Python
socket opened by `before` and closed by the recorder. SGLang runs with --device cpu --model-impl
transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07/08 in one invocation (/tmp/blind276/raw1, all six scenarios, each once,
waiting between scenarios for other helpers' recorders): v-rpc-path-immutable 10 s,
v-core-killed-at-handshake 18 s, v-api-server-killed-at-handshake 61 s,
s-dist-init-addr-server-port 240 s, s-nccl-port-held-v6 99 s, s-scheduler-killed-at-dist-init
27 s. All six kept (ja101-ja106); none dropped.

What the engines did. vLLM: the immutable VLLM_RPC_BASE_PATH kills the API server before any
engine core starts, in make_zmq_socket's bind (`zmq.error.ZMQError: Operation not permitted
(addr='ipc:///tmp/blind276/rpc-immutable/...')`); the EngineCore SIGKILLed at its config line
leaves only the API server's `RuntimeError: Engine core initialization failed. See root cause
above. Failed core proc(s): {'EngineCore': -9}`; with the API server SIGKILLed at the same
moment the orphaned engine core goes on alone - loads, warms up, `init engine (profile, create
kv cache, warmup model) took 10.44 s` - and then says nothing, no error and no HTTP server, until
the recorder kills it. SGLang: --dist-init-addr at its own --port lets the scheduler's store take
the port silently; everything loads, then uvicorn fails (`ERROR: [Errno 98] error while
attempting to bind on address ('127.0.0.1', PORT): address already in use`, `Waiting for
application shutdown.`) and the process hangs silent until killed; the IPv6-only listener on the
--nccl-port never shows (the IPv4 side was free) and it served two completions; the scheduler
SIGKILLed at `Init parallel begin` dies just after `Init parallel ends`, and the launcher reports
`RuntimeError: Rank 0 scheduler died during initialization (exit code: -9). If exit code is -9
(SIGKILL), a common cause is the OS OOM killer.` Crashed at launch: ja101, ja102, ja106; crashed
in warmup: ja104; ready in warmup: ja103 (the engine up, its front end gone); ready in serving:
ja105.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from record_logs import free_port  # noqa: E402

ROOT = Path("/tmp/blind276")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
RPC_IMMUTABLE = ROOT / "rpc-immutable"


def _chattr(flag: str, path: Path) -> None:
    if path.exists():
        subprocess.run(["chattr", flag, str(path)], check=False)


def ends_or_serves(engine_ready: str, first: float = 240, after: float = 20) -> object:
    """Wait for the ready line or the end; if it serves, two completions and a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([engine_ready], first)
        if ctx.proc is not None and ctx.proc.poll() is None and engine_ready in ctx.output():
            ctx.complete(2)
            linger(ctx, after)
    return act


def immutable_rpc_folder(ctx: Ctx) -> None:
    """A run folder a hardening script made immutable (chattr +i): root cannot add files."""
    _chattr("-i", RPC_IMMUTABLE)
    RPC_IMMUTABLE.mkdir(parents=True, exist_ok=True)
    _chattr("+i", RPC_IMMUTABLE)


def then_unlock(step: object) -> object:
    def act(ctx: Ctx) -> None:
        try:
            step(ctx)  # type: ignore[operator]
        finally:
            _chattr("-i", RPC_IMMUTABLE)
    return act


def kill_child_at(child: str, needles: list[str], delay: float, after_s: float) -> object:
    """SIGKILL to the run's process named ``child`` once one of ``needles`` is logged."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any(needles, 240) is None:
            return
        time.sleep(delay)
        for p in ctx.children(child):
            try:
                p.kill()
            except Exception:  # noqa: BLE001 - it may be gone already
                pass
        linger(ctx, after_s)
    return act


def kill_api_server_at(needles: list[str], after_s: float) -> object:
    """SIGKILL to the API server alone (the recorder's process) once a line is logged; its
    engine core, orphaned, keeps writing to the same log for ``after_s`` s."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any(needles, 240) is None:
            return
        assert ctx.proc is not None
        os.kill(ctx.proc.pid, signal.SIGKILL)
        time.sleep(after_s)
    return act


# Arguments filled in by a `before` step once the recorder has chosen the run's port.
DIST_ARGS: list[str] = [*SG]
V6_ARGS: list[str] = [*SG]


def dist_init_at_server_port(ctx: Ctx) -> None:
    DIST_ARGS[len(SG):] = ["--dist-init-addr", f"127.0.0.1:{ctx.port}"]


def nccl_port_held_on_v6_loopback(ctx: Ctx) -> None:
    """Another service (a dev server) listening on [::1]:P only; SGLang told --nccl-port P."""
    port = free_port()
    s = socket.socket(socket.AF_INET6, socket.SOCK_STREAM)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
    s.bind(("::1", port))
    s.listen(8)
    ctx.keep.append(s)
    V6_ARGS[len(SG):] = ["--nccl-port", str(port)]


ROOT.mkdir(parents=True, exist_ok=True)
_chattr("-i", RPC_IMMUTABLE)

SCENARIOS = [
    Scenario("v-rpc-path-immutable", "vllm",
             "VLLM_RPC_BASE_PATH (the folder of the API server's ZMQ ipc:// sockets to the engine "
             "core) an existing folder a hardening script made immutable (chattr +i), so even "
             "root cannot create the socket files in it",
             VLLM_BASE, env={"VLLM_RPC_BASE_PATH": str(RPC_IMMUTABLE)},
             before=immutable_rpc_folder, act=then_unlock(ends_or_serves(READY_LINE))),
    Scenario("v-core-killed-at-handshake", "vllm",
             "the EngineCore process SIGKILLed the moment it has connected back to the API "
             "server's handshake socket and logs its engine config",
             VLLM_BASE, act=kill_child_at("EngineCore", ["Initializing a V1 LLM engine"], 0.0,
                                          60)),
    Scenario("v-api-server-killed-at-handshake", "vllm",
             "the API server process alone SIGKILLed the moment its EngineCore has connected "
             "back and logs its engine config (the core is left without its peer)",
             VLLM_BASE, act=kill_api_server_at(["Initializing a V1 LLM engine"], 45)),
    Scenario("s-dist-init-addr-server-port", "sglang",
             "one-node launch with --dist-init-addr 127.0.0.1 at the server's own --port (a "
             "script reusing PORT for the rendezvous)",
             DIST_ARGS, before=dist_init_at_server_port, act=ends_or_serves(SG_READY)),
    Scenario("s-nccl-port-held-v6", "sglang",
             "--nccl-port P while another service listens on [::1]:P only (IPv6 loopback, "
             "V6ONLY)", V6_ARGS, before=nccl_port_held_on_v6_loopback,
             act=ends_or_serves(SG_READY)),
    Scenario("s-scheduler-killed-at-dist-init", "sglang",
             "the scheduler process SIGKILLed the moment it starts its process-group rendezvous",
             SG, act=kill_child_at("sglang::scheduler", ["Init parallel begin"], 0.0, 60)),
]
