"""The hundred-and-ninety-sixth batch's scenarios (tests/fixtures/corpus/fresh195): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind196.py OUT

Themes: the other node's log - what the non-head node (node 1) of a two-node launch shows when
the head node (node 0) is disturbed after both came up. Two "nodes" on this one host, as the
102nd batch made them: vLLM tensor parallel 2 across --nnodes 2 (--master-addr 127.0.0.1), node 1
run headless by /tmp/blind196/headless.py; SGLang --tp 2 --nnodes 2 --dist-init-addr
127.0.0.1:PORT --node-rank 0/1, --device cpu --model-impl transformers. The RECORDED log is node
1's; node 0 is started by the scenario's act (its output in /tmp/blind196/peers/NAME.log),
disturbed, and node 1 is left to run on 50-75 s.
The faults: node 0 SIGKILLed while idle after serving, SIGKILLed 1 s after it logs `Starting to
load model`, SIGKILLed with a 200-token generation in flight, stopped (SIGSTOP, never continued)
with a generation in flight for longer than --dist-timeout 30, SIGTERMed cleanly after serving,
and (dropped, below) SIGKILLed then started again 5 s later. vLLM runs with VLLM_BASE's
settings, threads bound to core 0 (node 0) and 1 (node 1). SGLang runs with --device cpu
--model-impl transformers --max-total-tokens 4096 and, on both nodes, SGLANG_NCCL_SO_PATH naming a
path with no library: SGLang's tensor-parallel group otherwise loads NCCL and its PyNccl
communicator dies on `Expected a cuda device` (the 102nd batch), while a library that fails to
load disables it (`Failed to load NCCL library ... It is expected if you are not running on
NVIDIA/AMD/MTHREADS GPUs`, an ERROR line each node logs, not fatal) - as on a CPU-only cluster.
The link-level faults (the rendezvous port closed, the loopback traffic dropped by iptables) were
not recorded: this host has no iptables.

Earlier batches already had (not repeated): node 0's log with node 1 never started (vLLM and
SGLang), SIGKILLed while serving (102nd, vLLM's not kept), started late, or started with another
--tp; node 1 against a rendezvous port answered by a non-TCPStore listener (102nd), against a
master that accepts and never answers (cn107, cn115: 109th), with its head not up at all
(fresh73/be121), against a head host that does not resolve (119th); --node-rank 1 on a one-node
launch and --nnodes 2 on tensor parallel 1 (119th).

Recorded 2026-12-07 in two invocations (raw1: a first take of s-node1-head-killed-idle, then
stopped by hand; raw2: the six kept), waiting turns with two other helpers' recorders; each kept
scenario once. About 8 minutes of recording (SGLang 66+72+58 s, vLLM 85+109+99 s) plus the 89 s
first take. 6 kept (final files fx101-fx106). Dropped: the first take of s-node1-head-killed-idle
(SGLang uncapped: node 0 sized a KV pool of 38.8 M tokens, 18.5 GB, and the host's OOM killer
took node 1's scheduler as it allocated - `Rank 0 scheduler died during initialization (exit
code: -9)`, not the fault; the table then gained --max-total-tokens 4096 and the scenario was
recorded again in raw2); s-node1-head-restarted (node 0 SIGKILLed and started again 5 s later:
never recorded, still waiting for the lock when the time given ran out; removed from the table).
s-node1-head-sigterm is kept although its log reads as s-node1-head-killed-idle's (the same
frames and words): a different fault, and it differs from vLLM's response to the same stop.

What the engines did. SGLang's other node dies within a second of the head going, SIGKILLed or
SIGTERMed alike: its TP1 scheduler, idle in its event loop, fails the gloo broadcast of requests
(`Read error [127.0.0.1]:PORT: Connection reset by peer. This is typically caused by a remote
worker hanging or bugs in the application`), then `Received sigquit from a child process` and
kill_process_tree. With the head stopped (SIGSTOP) mid-generation, node 1 fails a decode step's
tensor-parallel all-reduce after --dist-timeout (`unbound_buffer.cc:78] Timed out waiting 30000ms
for recv operation to complete`) and exits the same way. vLLM's headless node never exits by
itself: a head SIGKILLed as it loads leaves node 1's worker to fail its profiling dummy run 30 s
later, when its compile ends (`Connection closed by peer ... typically caused by a remote worker
crashing`, in profile_run); a head SIGKILLed with a request in flight fails the worker's
execute_model (the logits all-gather: `Connection reset by peer`); in both the worker logs
`WorkerProc hit an exception` and the process stays up silent. A head SIGTERMed while idle leaves
node 1 with no line at all: its log ends on `Auto set ... GiB for KV cache` and it waits on,
unaware. A non-head node of either engine logs no request lines and no ready line.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, SGLANG, VLLM  # noqa: E402

ROOT = Path("/tmp/blind196")
PEERS = ROOT / "peers"
HEADLESS_PY = ROOT / "headless.py"
SG_READY = "The server is fired up and ready to roll!"
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
           "DO_NOT_TRACK": "1"}
# --max-total-tokens 4096: uncapped, each rank sizes its KV pool from the whole host's free
# memory (18.5 GB for node 0 in the first take) and the host's OOM killer takes the other node.
SG = ["--device", "cpu", "--model-impl", "transformers", "--max-total-tokens", "4096"]
# SGLang's tensor-parallel groups build a PyNccl communicator unless the NCCL library fails to
# load (then it is disabled): on this GPU-less host the library loads and the communicator dies
# on `Expected a cuda device` (102nd batch), so both nodes point it at a path with no library,
# as a CPU-only deployment would leave it.
SG_ENV = {"SGLANG_CPU_OMP_THREADS_BIND": "0|1", "SGLANG_NCCL_SO_PATH": "/opt/no-nccl/libnccl.so.2"}
V_ENV0 = {"VLLM_CPU_OMP_THREADS_BIND": "0"}
V_ENV1 = {"VLLM_CPU_OMP_THREADS_BIND": "1"}

HEADLESS = """import sys
from vllm.entrypoints.serve.utils.api_utils import cli_env_setup
from vllm.utils.argparse_utils import FlexibleArgumentParser
from vllm.entrypoints.launchers.cli_args import make_arg_parser
from vllm.entrypoints.cli.serve import run_headless
if __name__ == "__main__":          # workers are spawned: the main module is re-imported
    cli_env_setup()
    args = make_arg_parser(FlexibleArgumentParser()).parse_args()
    if args.api_server_count is None:
        args.api_server_count = 0      # `vllm serve --headless` sets this default itself
    run_headless(args)
"""


def _setup() -> None:
    PEERS.mkdir(parents=True, exist_ok=True)
    HEADLESS_PY.write_text(HEADLESS)


_setup()


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def dfl() -> None:
    """SIGINT and SIGQUIT at their defaults (a background shell's recorder has them ignored)."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def dfl_signals(ctx: Ctx) -> None:
    dfl()


# --- node 0, started by the act ---------------------------------------------------------------

class Head:
    def __init__(self, ctx: Ctx, engine: str, dist: int, extra: list[str], suffix: str = ""):
        self.engine = engine
        self.port = free_port()
        self.log = PEERS / f"{ctx.log.stem}{suffix}.log"
        if engine == "vllm":
            argv = [str(VLLM.python), "-m", "vllm.entrypoints.openai.api_server", "--model",
                    str(LLAMA.dir), "--host", "127.0.0.1", "--port", str(self.port), *VLLM_BASE,
                    *v_node(dist), "--node-rank", "0", *extra]
            env = V_ENV0
        else:
            argv = [str(SGLANG.python), "-m", "sglang.launch_server", "--model-path",
                    str(LLAMA.dir), "--host", "127.0.0.1", "--port", str(self.port), *SG,
                    *s_node(dist), "--node-rank", "0", *extra]
            env = SG_ENV
        f = open(self.log, "wb")
        f.write((" ".join(argv) + "\n\n").encode())
        f.flush()
        self.proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, start_new_session=True,
                                     env={**os.environ, **OFFLINE, **env}, cwd=ctx.work,
                                     preexec_fn=dfl)
        f.close()
        self.ctx = Ctx(port=self.port, log=self.log, work=ctx.work, proc=self.proc)

    def ready(self, timeout: float = 240) -> bool:
        return self.ctx.wait_for(READY_LINE if self.engine == "vllm" else SG_READY, timeout)

    def signal(self, sig: int) -> None:
        try:
            os.killpg(self.proc.pid, sig)
        except ProcessLookupError:
            pass

    def kill(self) -> None:
        self.signal(signal.SIGCONT)
        self.signal(signal.SIGKILL)
        try:
            self.proc.wait(20)
        except subprocess.TimeoutExpired:
            pass

    def long_request(self) -> threading.Thread:
        """A long generation sent to node 0 in the background (it may never be answered)."""
        body = {"model": self.ctx.model_name(), "prompt": "the long road", "max_tokens": 200,
                "ignore_eos": True}
        t = threading.Thread(target=self.ctx.post, args=("/v1/completions", body, 90),
                             daemon=True)
        t.start()
        return t


def v_node(dist: int) -> list[str]:
    return ["--tensor-parallel-size", "2", "--nnodes", "2", "--master-addr", "127.0.0.1",
            "--master-port", str(dist)]


def s_node(dist: int) -> list[str]:
    return ["--tp", "2", "--nnodes", "2", "--dist-init-addr", f"127.0.0.1:{dist}",
            "--dist-timeout", "30"]


def head_then(engine: str, dist: int, what: str, after_s: float = 50) -> object:
    """Node 0 started beside the recorded node 1, then disturbed: ``what`` is
    kill-loading (SIGKILL once node 0 logs its weights loading), kill-idle (served two
    completions, then SIGKILL), kill-inflight (a long generation running, then SIGKILL),
    term (served, then SIGTERM), stop (served, then SIGSTOP with a request in flight, never
    continued) or restart (served, SIGKILL, started again 5 s later)."""
    def act(ctx: Ctx) -> None:
        head = Head(ctx, engine, dist, [])
        heads = [head]
        try:
            if what == "kill-loading":
                needles = ["Starting to load model", "Load weight begin"]
                if head.ctx.wait_any(needles, 240) is None:
                    linger(ctx, 10)
                    return
                time.sleep(1)
                head.kill()
                linger(ctx, after_s)
                return
            if not head.ready():
                linger(ctx, 10)
                return
            head.ctx.complete(2, max_tokens=16)
            time.sleep(3)
            if what == "kill-idle":
                head.kill()
            elif what == "kill-inflight":
                head.long_request()
                time.sleep(2)
                head.kill()
            elif what == "term":
                head.signal(signal.SIGTERM)
            elif what == "stop":
                head.long_request()
                time.sleep(1)
                head.signal(signal.SIGSTOP)
            elif what == "restart":
                head.kill()
                time.sleep(5)
                heads.append(Head(ctx, engine, dist, [], suffix="-restart"))
            linger(ctx, after_s)
        finally:
            for h in heads:
                h.kill()
    return act


# --- node 1, the recorded run -------------------------------------------------------------------

def v_node1(name: str, what: str, desc: str, after_s: float = 50) -> Scenario:
    dist = free_port()
    return Scenario(name, "vllm", f"node 1 of two (headless, --nnodes 2 --node-rank 1, tensor "
                    f"parallel 2 across the nodes, master 127.0.0.1) with node 0 started beside it: "
                    f"{desc}; node 1 left to run on {after_s:.0f} s",
                    [str(HEADLESS_PY), "--model", "{model}", "--headless", "--port", "{port}",
                     *VLLM_BASE, *v_node(dist), "--node-rank", "1"], entry="python", env=V_ENV1,
                    tp=2, before=dfl_signals, act=head_then("vllm", dist, what, after_s))


def s_node1(name: str, what: str, desc: str, after_s: float = 50) -> Scenario:
    dist = free_port()
    return Scenario(name, "sglang", f"node 1 of two (--tp 2 --nnodes 2 --node-rank 1, "
                    f"--dist-init-addr 127.0.0.1, --dist-timeout 30, --max-total-tokens 4096, SGLANG_NCCL_SO_PATH on a path "
                    f"with no library on both nodes) with node 0 started beside it: {desc}; node 1 "
                    f"left to run on {after_s:.0f} s",
                    [*SG, *s_node(dist), "--node-rank", "1"], env=SG_ENV, tp=2,
                    before=dfl_signals, act=head_then("sglang", dist, what, after_s))


SCENARIOS = [
    s_node1("s-node1-head-killed-idle", "kill-idle",
            "both up, node 0 served two completions, then node 0 SIGKILLed (idle)"),
    v_node1("v-node1-head-killed-loading", "kill-loading",
            "node 0 SIGKILLed once it logs the weights starting to load"),
    s_node1("s-node1-head-stopped", "stop",
            "both up, two completions, then a long request sent to node 0 and node 0 stopped "
            "(SIGSTOP, never continued)", after_s=75),
    v_node1("v-node1-head-killed-inflight", "kill-inflight",
            "both up, two completions, then node 0 SIGKILLed with a long generation in flight"),
    s_node1("s-node1-head-sigterm", "term",
            "both up, two completions, then node 0 SIGTERMed (a clean stop)"),
    v_node1("v-node1-head-sigterm", "term",
            "both up, two completions, then node 0 SIGTERMed (a clean stop)"),
]
