"""The two-hundred-and-ninth batch's scenarios (tests/fixtures/corpus/fresh208): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind209.py OUT

Themes: a launcher's environment left around a one-process launch - the variables torchrun,
Slurm and an elastic agent set (RANK, LOCAL_RANK, WORLD_SIZE, MASTER_ADDR, MASTER_PORT,
TORCHELASTIC_*, SLURM_*) with values that disagree with the launch, where the launch tells the
engine to take its rendezvous from the environment (vLLM's --distributed-executor-backend
external_launcher, kept in a launch script after torchrun was dropped; SGLang's
SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE=env://, kept from an orchestrator's script). A plain
launch of either engine here reads none of these variables (vLLM's one-process executor meets
at a file:// store, SGLang at tcp://127.0.0.1:<nccl port>), so each fault needs that one
setting beside it. vLLM: RANK=1 in a world of one; MASTER_PORT=70000; a torchrun worker's
TORCHELASTIC_USE_AGENT_STORE=True with no agent behind MASTER_ADDR:MASTER_PORT. SGLang: a Slurm
allocation's variables copied into a container with MASTER_ADDR naming the allocation's head
node, which does not resolve here; the elastic agent's store flag with no agent.

Earlier batches already had (not repeated): external_launcher with WORLD_SIZE=2 and no rank 1,
its MASTER_PORT held by another process, and rank 1 with an unresolvable MASTER_ADDR (119th);
VLLM_DP_SIZE / VLLM_DP_RANK in the environment (119th); SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE=
env:// without MASTER_ADDR / MASTER_PORT (169th); --node-rank 1, --nnodes 2 on one node (119th).

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm);
vLLM with VLLM_BASE's settings. Ports are chosen when this table is loaded.

Recorded 2026-12-07 in one invocation (raw1: all five, in the table's order), taking turns with
two other helpers' recorders; each scenario once. About 6.5 minutes of recording (vLLM
80+18+80 s, SGLang 105+105 s). 5 kept (final files gl101-gl105). Dropped: none. Not written
into the table, after reading the engines' code paths while choosing: the same variables in a
launch without the env:// setting - vLLM's one-process executor meets at a file:// store and
SGLang at tcp://127.0.0.1:<nccl port>, with rank 0 and world size 1 passed explicitly, so
WORLD_SIZE=2, RANK=1 or a MASTER_ADDR that does not resolve would be served without a word of
them (the fault would never show).

What the engines did. vLLM with external_launcher takes RANK/LOCAL_RANK from the environment
and WORLD_SIZE from its own tensor parallel size: RANK=1 in a world of one is logged as
`world_size=1 rank=1 local_rank=1 distributed_init_method=env:// backend=gloo` and then the
engine core waits silently (no check that the rank is below the world); MASTER_PORT=70000 dies
in torch's store creation in the worker's init_device (`ValueError: port must have value from
0 to 65535 but was 70000.`, then `Engine core initialization failed ... Failed core proc(s):
{'EngineCore': 1}`); TORCHELASTIC_USE_AGENT_STORE=True makes even rank 0 of one a client of a
store no agent hosts: the same silent wait after `world_size=1 rank=0 ...`. SGLang under the
env:// override reads MASTER_ADDR/MASTER_PORT (never the SLURM_* variables): an unresolvable
head gives c10d `gai error: -2 - Name or service not known` warnings at growing intervals and no
error within 105 s; the agent-store flag stalls it silently after `init_cpu_threads_env ...`.
Every fault here ends in launch, before any weight loading: one crash, four waits cut by the
recorder.
"""

from __future__ import annotations

import socket
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind209")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
EXT = ["--distributed-executor-backend", "external_launcher"]


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


MASTER_PORT = free_port()


def torchrun_env(rank: int = 0, world: int = 1, addr: str = "127.0.0.1",
                 port: int | str = MASTER_PORT, **extra: str) -> dict[str, str]:
    return {"RANK": str(rank), "LOCAL_RANK": str(rank), "WORLD_SIZE": str(world),
            "LOCAL_WORLD_SIZE": str(world), "MASTER_ADDR": addr, "MASTER_PORT": str(port),
            **extra}


AGENT = {"TORCHELASTIC_USE_AGENT_STORE": "True", "TORCHELASTIC_RESTART_COUNT": "0",
         "TORCHELASTIC_MAX_RESTARTS": "0", "TORCHELASTIC_RUN_ID": "job-8812",
         "GROUP_RANK": "0", "ROLE_RANK": "0", "ROLE_WORLD_SIZE": "1", "GROUP_WORLD_SIZE": "1"}

SLURM = {"SLURM_JOB_ID": "481516", "SLURM_PROCID": "0", "SLURM_LOCALID": "0", "SLURM_NTASKS": "2",
         "SLURM_NNODES": "2", "SLURM_NODEID": "0", "SLURM_JOB_NODELIST": "gpu-node-[017-018]",
         "SLURMD_NODENAME": "gpu-node-017", "SLURM_GPUS_ON_NODE": "1"}

OVERRIDE = {"SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE": "env://"}


def sg_serve_or_exit(ctx: Ctx) -> None:
    """Wait for SGLang's ready line (or the run's end); if it serves, two completions."""
    if ctx.wait_any([SG_READY], 100) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        linger(ctx, 8)
    else:
        linger(ctx, 5)


def v(name: str, what: str, args: list[str], **kw) -> Scenario:
    kw.setdefault("wait_s", 80)
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], **kw)


def s(name: str, what: str, args: list[str], **kw) -> Scenario:
    kw.setdefault("act", sg_serve_or_exit)
    return Scenario(name, "sglang", what, [*SG, *args], **kw)


SCENARIOS = [
    v("v-extl-rank1-world1", "--distributed-executor-backend external_launcher, tensor parallel "
      "1, in an environment left by a two-process torchrun job as its second worker (RANK=1 "
      "LOCAL_RANK=1) but with WORLD_SIZE=1: a rank past the world", EXT,
      env=torchrun_env(rank=1, world=1)),
    v("v-extl-master-port-70000", "--distributed-executor-backend external_launcher, tensor "
      "parallel 1, RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 and MASTER_PORT=70000 (out of range; "
      "a job script's 60000 + job offset)", EXT, env=torchrun_env(port=70000)),
    v("v-extl-agent-store-none", "--distributed-executor-backend external_launcher, tensor "
      "parallel 1, with a torchrun worker's whole environment (RANK=0 WORLD_SIZE=1 MASTER_ADDR="
      "127.0.0.1 MASTER_PORT=<free port>, TORCHELASTIC_USE_AGENT_STORE=True, ...) copied into a "
      "plain launch: no elastic agent hosts the store it is told to join", EXT,
      env=torchrun_env(**AGENT)),
    s("s-slurm-env-master-unresolved", "SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE=env:// with a "
      "Slurm allocation's variables copied into the container (SLURM_PROCID=0 SLURM_NTASKS=2 "
      "...), MASTER_ADDR=gpu-node-017.cluster.invalid (the allocation's head, which does not "
      "resolve here) and MASTER_PORT=<free port>, RANK=0 WORLD_SIZE=1", [],
      env={**OVERRIDE, **SLURM, **torchrun_env(addr="gpu-node-017.cluster.invalid")}),
    s("s-agent-store-none", "SGLANG_DISTRIBUTED_INIT_METHOD_OVERRIDE=env:// with a torchrun "
      "worker's whole environment (RANK=0 WORLD_SIZE=1 MASTER_ADDR=127.0.0.1 MASTER_PORT=<free "
      "port>, TORCHELASTIC_USE_AGENT_STORE=True, ...) copied into a plain launch: no elastic agent "
      "hosts the store it is told to join", [], env={**OVERRIDE, **torchrun_env(**AGENT)}),
]
