"""The hundred-and-sixty-ninth batch's scenarios (tests/fixtures/corpus/fresh168): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind169.py OUT

Themes: the engines' internal ports and channels - what a person meets running several servers
on one host or behind a firewall. vLLM: VLLM_PORT=65535 (the base from which vLLM scans upward
for the data-parallel master ports) on a --data-parallel-size 2 launch while another listener
holds 65535; VLLM_RPC_BASE_PATH (the folder of the API server's ZMQ IPC sockets to the engine
core) an existing folder whose path is longer than a Unix socket's address may be;
--data-parallel-rpc-port 0. SGLang: --nccl-port 0; --gated-launch-port (the control server a
launch opens before loading) held by another listener; --dist-init-addr 127.0.0.1:70000 on a
one-node launch; SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE=env:// left by a launcher script
without MASTER_ADDR/MASTER_PORT.

Earlier batches already had (not repeated): --port 70000 (vLLM), VLLM_PORT as a Kubernetes URI,
VLLM_RPC_BASE_PATH missing, its sockets reaped, the KV-events ZMQ port taken, SGLang's
--nccl-port 70000, taken and equal to --port, --dist-init-addr without a port, unreachable,
unresolvable, IPv6 and its port taken (two nodes), the metrics port taken, SGLANG_PORT as text,
two-node master ports held.

The listeners that hold ports are plain Python sockets bound on 0.0.0.0 (no SO_REUSEADDR),
opened by the scenario's `before` step and closed by the recorder when the run ends. The long
RPC folder is made under /tmp/blind169/ when this table is loaded. SGLang runs with --device
cpu --model-impl transformers (its own Llama module imports vllm); vLLM with VLLM_BASE's
settings.

Recorded 2026-12-07 in two invocations taking turns with two other helpers' recorders (raw1:
v-vllm-port-held and s-nccl-port-0, then stopped by its pid while it waited for the lock, to
replace its next scenario; raw2: the other six), each scenario once. About 5 minutes of
recording (vLLM 39+8+10+9 s, SGLang 41+160+28+26 s). 7 kept (final files ev101-ev107).
Dropped: v-vllm-port-held (recorded, 39 s: VLLM_PORT set to a port another listener held; the
one-rank CPU launch never opened a port from VLLM_PORT - its rendezvous is a file:// method - and
served three completions without a word of the port: the fault never shows); removed from the
table. Its planned sequel, VLLM_PORT=65535 held on a one-rank launch, was turned into
v-dp2-vllm-port-65535-held before recording (data parallelism 2 is what makes vLLM scan from
VLLM_PORT).

What the engines did. vLLM: with VLLM_PORT=65535 taken, the scan for data-parallel master ports
logs `Port 65535 is already in use, trying port 65536` and dies in ParallelConfig with
`OverflowError: bind(): port must be 0-65535.` (the scan has no upper bound); an over-long
VLLM_RPC_BASE_PATH kills the API server as it binds its first socket to the engine core
(`ZMQError: ipc path ... is longer than 107 characters`), before any engine core starts;
--data-parallel-rpc-port 0 is refused by pydantic (`Input should be greater than or equal to
1`) even with one engine. All three at launch, within 10 s. SGLang: --nccl-port 0 is taken
without a word and the one-rank server serves (ready, serving); --dist-init-addr
127.0.0.1:70000 passes the parser and dies in the scheduler (`ValueError: Port out of range
(0-65535): 70000`); env:// without MASTER_ADDR dies in torch's rendezvous (`environment
variable MASTER_ADDR expected, but not set`). A held --gated-launch-port is the surprise: the
scheduler logs `Gated launch control server started`, uvicorn's `[Errno 98] error while
attempting to bind on address ... address already in use` follows, and the launch waits for an
activation that cannot come (`Gated launch still waiting for activation` every 10 s, 130 s when
the run was killed): hung at launch.
"""

from __future__ import annotations

import socket
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind169")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
# a folder that exists, whose path (about 190 characters) is longer than the 107 bytes a Unix
# socket's address may hold
LONG_RPC = ROOT / "rpc" / ("sockets-of-the-engine-core-" * 3) / ("behind-the-firewall-" * 3)


def _free() -> int:
    with socket.socket() as s:
        s.bind(("0.0.0.0", 0))
        return s.getsockname()[1]


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    LONG_RPC.mkdir(parents=True, exist_ok=True)


_setup()
GATE_PORT_HELD = _free()


def hold(port: int) -> Callable[[Ctx], None]:
    """Another listener on ``port`` (all interfaces) for the whole run."""
    def before(ctx: Ctx) -> None:
        s = socket.socket()
        s.bind(("0.0.0.0", port))
        s.listen(4)
        ctx.keep.append(s)
    return before


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, three completions and a pause."""
    ctx.wait_any([READY_LINE], 180)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(3, max_tokens=16)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions); a pause."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def v(name: str, what: str, args: list[str] | None = None,
      before: Callable[[Ctx], None] | None = None, **env: str) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *(args or [])], env=env, before=before,
                    act=v_until)


def s(name: str, what: str, args: list[str] | None = None,
      before: Callable[[Ctx], None] | None = None, **env: str) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *(args or [])], env=env, before=before,
                    act=s_until)


SCENARIOS = [
    s("s-nccl-port-0", "--nccl-port 0 (port 0 for the scheduler's torch.distributed rendezvous)",
      ["--nccl-port", "0"]),
    v("v-dp2-vllm-port-65535-held", "--data-parallel-size 2 with VLLM_PORT=65535 while another "
      "listener holds port 65535 (vLLM scans upward from VLLM_PORT for its data-parallel master "
      "ports)", ["--data-parallel-size", "2"], before=hold(65535), VLLM_PORT="65535"),
    s("s-gated-launch-port-held", f"--gated-launch-port {GATE_PORT_HELD}, a port another "
      "listener (a plain Python socket on 0.0.0.0) already holds",
      ["--gated-launch-port", str(GATE_PORT_HELD)], before=hold(GATE_PORT_HELD)),
    v("v-rpc-base-path-too-long", f"VLLM_RPC_BASE_PATH={LONG_RPC} (an existing folder whose path "
      f"is {len(str(LONG_RPC))} characters, longer than a Unix socket address may be)",
      VLLM_RPC_BASE_PATH=str(LONG_RPC)),
    s("s-dist-init-addr-70000", "--dist-init-addr 127.0.0.1:70000 on a one-node launch (a port "
      "above 65535)", ["--dist-init-addr", "127.0.0.1:70000"]),
    v("v-dp-rpc-port-0", "--data-parallel-rpc-port 0", ["--data-parallel-rpc-port", "0"]),
    s("s-dist-init-override-env-no-master", "SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE=env:// left "
      "in the environment by a launcher script, with no MASTER_ADDR / MASTER_PORT set",
      SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE="env://"),
]
