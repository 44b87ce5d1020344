"""The hundred-and-nineteenth batch's scenarios (tests/fixtures/corpus/fresh118): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind119.py OUT

Themes: distributed settings on one host - what a person meets when a launch inherits or is
given the settings of a multi-process job. vLLM: --distributed-executor-backend choices that do
not fit the launch (ray, which is not installed, for tensor parallel 2; uni, one process, for
tensor parallel 2); the external_launcher backend under a torchrun-like environment (RANK,
LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT) whose second rank was never started, whose
MASTER_PORT another process already holds, and as rank 1 whose MASTER_ADDR names a head host
that does not resolve; VLLM_DP_SIZE / VLLM_DP_RANK left in the environment by an offline
data-parallel job script; data parallel 2 with the second engine core stopped (SIGSTOP) as it
starts; tensor parallel 3 and pipeline parallel 3 on a model of 4 heads and 2 layers; --nnodes 2
on a tensor-parallel-1 launch. SGLang (one rank only runs on CPU here): --dp-size 2, --pp-size 2
and --ep-size 2 on the CPU build; --node-rank 1 on a one-node launch; --nccl-port given the same
port as the HTTP server's; node 0 of two whose --dist-init-addr port another process already
holds; node 1 of two whose --dist-init-addr names a head host that does not resolve.

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm);
vLLM with VLLM_BASE's settings (two ranks with VLLM_CPU_OMP_THREADS_BIND 0|1). Ports that a
scenario's environment names are chosen when this table is loaded; the listeners that hold
them are opened by the scenario's `before` step and closed when the run ends.

Recorded 2026-12-06 in four invocations, sharing the recorder's lock with five other helpers'
(most of the 50 minutes went to waiting for turns; about 7.5 minutes of my own recording:
vLLM 11+75+75+18+9+75+9+8 s, SGLang 33+24+24+90 s); 12 logs kept. Not recorded (no turn in
the time left): v-dp2-stop-core1-start, s-ep2-tp1, s-node1-head-unresolved, and v-pp3 (its
turn came after another of my invocations, ending, had removed the OUT/.work folder both used:
Popen's cwd was gone - give concurrent invocations different OUT folders);
s-2node-head-port-held was dropped unrecorded (fresh86/br118 already holds SGLang's
--dist-init-addr port taken). What the engines did: `--distributed-executor-backend uni` with
tensor parallel 2 is silently replaced by the multiprocess executor (two workers; it serves);
ray fails ParallelConfig's validation (`Failed to import Ray`). external_launcher reads the
torchrun variables (env:// rendezvous): with WORLD_SIZE=2 and no rank 1, rank 0 waits silently
after `world_size=2 rank=0 ... distributed_init_method=env://`; a held MASTER_PORT is TCPStore's
EADDRINUSE; an unresolvable MASTER_ADDR on rank 1 gives c10d `gai error: -2` warnings at
growing intervals, no error within 75 s. VLLM_DP_SIZE=2 in the environment of a dense-model
launch: `Offline data parallel mode is not supported/useful for dense models.`
SGLang --dp-size 2 and --pp-size 2 on CPU die in init_threads_binding (more ranks than the one
NUMA node, SGLANG_CPU_OMP_THREADS_BIND unset); --node-rank 1 with one node fails the runtime
context's topology check; --nccl-port equal to --port lets the scheduler's store take the port,
then uvicorn's bind fails (Errno 98) and the launcher hangs in `Waiting for application shutdown.`
"""

from __future__ import annotations

import signal
import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    child_signal_when,
    linger,
)

SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
TP2_ENV = {"VLLM_CPU_OMP_THREADS_BIND": "0|1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


HELD_PORT = free_port()      # held by another process's listener during the run
MASTER_PORT = free_port()


def hold_port(ctx: Ctx) -> None:
    """Another process's listener on HELD_PORT (a job left behind on the node)."""
    s = socket.socket()
    s.bind(("0.0.0.0", HELD_PORT))
    s.listen(4)
    ctx.keep.append(s)


def torchrun_env(rank: int, world: int, addr: str = "127.0.0.1", port: int = MASTER_PORT,
                 local_rank: int | None = None) -> dict[str, str]:
    return {"RANK": str(rank), "LOCAL_RANK": str(rank if local_rank is None else local_rank),
            "WORLD_SIZE": str(world), "LOCAL_WORLD_SIZE": str(world), "MASTER_ADDR": addr,
            "MASTER_PORT": str(port), "TORCHELASTIC_RUN_ID": "job-4417"}


def sg_serve_or_exit(ctx: Ctx) -> None:
    """Wait for SGLang's ready line (or the run's end); if it serves, two completions."""
    if ctx.wait_any([SG_READY], 100) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        linger(ctx, 8)
    else:
        linger(ctx, 5)


def sg_linger(seconds: float):
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], seconds) and ctx.proc is not None \
                and ctx.proc.poll() is None:
            ctx.complete(2)
            linger(ctx, 8)
    return act


def v(name: str, what: str, args: list[str], **kw) -> Scenario:
    kw.setdefault("wait_s", 90)
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], **kw)


def s(name: str, what: str, args: list[str], **kw) -> Scenario:
    kw.setdefault("act", sg_serve_or_exit)
    return Scenario(name, "sglang", what, [*SG, *args], **kw)


EXT = ["--distributed-executor-backend", "external_launcher"]

SCENARIOS = [
    # --- vLLM ---------------------------------------------------------------------------------
    v("v-tp2-backend-ray", "--tensor-parallel-size 2 --distributed-executor-backend ray (a "
      "cluster's launch line; Ray is not installed here)",
      ["--tensor-parallel-size", "2", "--distributed-executor-backend", "ray"], env=TP2_ENV,
      tp=2, wait_s=75),
    v("v-tp2-backend-uni", "--tensor-parallel-size 2 --distributed-executor-backend uni (one "
      "process for a world of two ranks)",
      ["--tensor-parallel-size", "2", "--distributed-executor-backend", "uni"], env=TP2_ENV,
      tp=2, wait_s=75),
    v("v-extl-tp2-rank1-never", "--distributed-executor-backend external_launcher with tensor "
      "parallel 2, started as rank 0 of a torchrun job (RANK=0 WORLD_SIZE=2 MASTER_ADDR="
      "127.0.0.1) whose rank 1 was never started", [*EXT, "--tensor-parallel-size", "2"],
      env={**TP2_ENV, **torchrun_env(0, 2)}, tp=2, wait_s=75),
    v("v-extl-master-port-held", "--distributed-executor-backend external_launcher as rank 0 "
      "of a torchrun job of one (RANK=0 WORLD_SIZE=1) whose MASTER_PORT another process "
      "already listens on", EXT, env=torchrun_env(0, 1, port=HELD_PORT), before=hold_port),
    v("v-extl-rank1-master-unresolved", "--distributed-executor-backend external_launcher "
      "with tensor parallel 2 as rank 1 of a torchrun job (RANK=1 LOCAL_RANK=1 WORLD_SIZE=2) "
      "whose MASTER_ADDR names a head host that does not resolve (gpu-head-0.cluster.invalid)",
      [*EXT, "--tensor-parallel-size", "2"],
      env={**TP2_ENV, **torchrun_env(1, 2, addr="gpu-head-0.cluster.invalid")}, tp=2,
      wait_s=75),
    v("v-env-dp-size-left", "VLLM_DP_SIZE=2 VLLM_DP_RANK=1 left in the environment by an "
      "offline data-parallel job script, for a plain launch of a dense model", [],
      env={"VLLM_DP_SIZE": "2", "VLLM_DP_RANK": "1", "VLLM_DP_MASTER_IP": "127.0.0.1",
           "VLLM_DP_MASTER_PORT": str(MASTER_PORT)}),
    v("v-dp2-stop-core1-start", "--data-parallel-size 2: the second engine core "
      "(EngineCore_DP1) stopped with SIGSTOP as it starts, never continued",
      ["--data-parallel-size", "2"],
      act=child_signal_when("EngineCore_DP1", ["EngineCore_DP1 pid="], signal.SIGSTOP,
                            delay=1.0, after_s=70)),
    v("v-tp3", "--tensor-parallel-size 3 (the model has 4 attention heads, 2 KV heads)",
      ["--tensor-parallel-size", "3"], tp=3, wait_s=75),
    v("v-pp3", "--pipeline-parallel-size 3 (the model has 2 layers)",
      ["--pipeline-parallel-size", "3"], wait_s=75),
    v("v-nnodes2-tp1", "--nnodes 2 --node-rank 0 on a tensor-parallel-1 launch (a two-node "
      "line kept for a one-rank model)", ["--nnodes", "2", "--node-rank", "0", "--master-addr",
                                          "127.0.0.1", "--master-port", str(MASTER_PORT)],
      wait_s=75),
    # --- SGLang -------------------------------------------------------------------------------
    s("s-dp2-cpu", "--dp-size 2 on the CPU build (two schedulers of one rank each)",
      ["--dp-size", "2"]),
    s("s-pp2-cpu", "--pp-size 2 on the CPU build (the model has 2 layers)", ["--pp-size", "2"]),
    s("s-ep2-tp1", "--ep-size 2 on a dense model with tensor parallel 1", ["--ep-size", "2"]),
    s("s-node-rank1-one-node", "--node-rank 1 on a one-node launch (--nnodes left at 1), with "
      "--dist-init-addr 127.0.0.1", ["--node-rank", "1", "--dist-init-addr",
                                     f"127.0.0.1:{MASTER_PORT}"], act=sg_linger(75)),
    Scenario("s-nccl-port-is-http-port", "sglang", "--nccl-port given the same port as the "
             "HTTP server's --port", ["-m", "sglang.launch_server", "--model-path", "{model}",
                                       "--host", "127.0.0.1", "--port", "{port}", *SG,
                                       "--nccl-port", "{port}"],
             entry="python", act=sg_linger(90)),
    s("s-2node-head-port-held", "node 0 of two (--tp 2 --nnodes 2 --node-rank 0, "
      "--dist-timeout 30) whose --dist-init-addr port another process already listens on",
      ["--tp", "2", "--nnodes", "2", "--node-rank", "0", "--dist-init-addr",
       f"127.0.0.1:{HELD_PORT}", "--dist-timeout", "30"], before=hold_port, tp=2,
      act=sg_linger(75)),
    s("s-node1-head-unresolved", "node 1 of two (--tp 2 --nnodes 2 --node-rank 1, "
      "--dist-timeout 30) whose --dist-init-addr names a head host that does not resolve "
      "(gpu-head-0.cluster.invalid)", ["--tp", "2", "--nnodes", "2", "--node-rank", "1",
                                       "--dist-init-addr", "gpu-head-0.cluster.invalid:29500",
                                       "--dist-timeout", "30"], tp=2, act=sg_linger(75)),
]
