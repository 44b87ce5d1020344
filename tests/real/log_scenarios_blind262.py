"""The two-hundred-and-sixty-second batch's scenarios (tests/fixtures/corpus/fresh261): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind262.py OUT

Themes: several engine cores on one host, a new round of data parallelism - what a person meets
scaling a server out on one machine or trying a cluster recipe's commands on it. vLLM:
--data-parallel-size 2 with --data-parallel-backend ray (the cluster guide's backend, Ray not
installed); --data-parallel-size 2 with --data-parallel-address the head node's address of a
recipe (192.0.2.10, not this host's); the second node's headless command run alone
(--data-parallel-size 2 --data-parallel-size-local 1 --data-parallel-start-rank 1 --headless,
the head never started); --data-parallel-size 2 with EngineCore_DP1 stopped (SIGSTOP) while the
other core serves. SGLang (--dp-size 2, thread binding 0|1, --max-total-tokens 4096):
--load-balance-method total_requests with the DP1 scheduler stopped (SIGSTOP) while serving; the
data parallel controller process SIGKILLed while both ranks serve; node 0 of a two-node
data-parallel recipe (--nnodes 2 --node-rank 0 --dist-init-addr 127.0.0.1:PORT) alone.

Earlier batches already had (not repeated): vLLM --data-parallel-size 2 serving (67th),
--api-server-count 2, 3 and 4, --headless alone, --data-parallel-size-local above the size
(90th), data parallel 2 with the remote half never started (106th: the head waiting), the second
engine core SIGSTOPped at start and VLLM_DP_SIZE/VLLM_DP_RANK left in the environment (119th),
VLLM_PORT held for the DP master ports and --data-parallel-rpc-port 0 (169th), EngineCore_DP1
SIGKILLed while serving and --data-parallel-external-lb without a rank (183rd), the executor's
--distributed-executor-backend ray without Ray (65th, 119th); SGLang --dp-size 0 (74th, 80th),
--dp-size 2 without the thread binding and --pp-size 2 (119th), --enable-dp-attention with
--dp-size 2 (90th) and alone (83rd, 180th), --load-balance-method not a method (82nd) and
follow_bootstrap_room on a plain launch (183rd), the DP1 scheduler SIGKILLed while serving,
uncapped and capped (183rd), --node-rank 1 on a one-node launch and --dist-init-addr variants
(119th, 169th, 237th).

Recorded 2026-12-07 in one invocation (raw1: all seven scenarios, in table order), each
scenario once, waiting turns with other helpers' recorders for the lock before most scenarios.
About 10 minutes of recording (vLLM 9+155+102+157 s, SGLang 111+44+13 s). 7 kept (final files
im101-im107), none dropped. The process trees of the signal steps are written to
/tmp/blind262/ptree-NAME.txt before the signal.

What the engines did. vLLM: --data-parallel-backend ray dies in ParallelConfig's validation
(`Failed to import Ray: No module named 'ray'`) 9 s in - the same words as the executor
backend's, crashed at launch; the foreign --data-parallel-address makes the API server's c10d
store client retry `192.0.2.10:46879 ... (errno: 113 - No route to host)` (try 0 to 10, 300 s
timeout) after `Started DP Coordinator process`, no engine core logging, until killed at 155 s
(incomplete, launch); the headless rank-1 command warns `data_parallel_hybrid_lb is not
eligible ... autoswitch to data_parallel_external_lb` and then sits silent 95 s (incomplete,
launch: no line says it waits for the head); EngineCore_DP1 stopped is never named - of the
next burst two completions are answered and two never are, the later singles go to DP0,
`Engine 001` stats stop while `Engine 000` logs on (ready, serving). SGLang: total_requests with
the DP1 scheduler stopped behaves likewise silently - DP0 answers, DP1's two requests never
return, the balancer sends the next ones to DP0 (ready, serving); the DP controller SIGKILLed is
reported as `Subprocess scheduler_0 (pid=...) crashed with exit code -9`, then SIGQUIT, crash
diagnostics and kill_process_tree: the whole server ends within 5 s (crashed, serving); node 0
of two with --dp-size 2 is refused before any process starts (`AssertionError: tp_size must be
divisible by number of nodes`: SGLang spreads tensor parallelism, not DP ranks, over nodes;
crashed, launch).
"""

from __future__ import annotations

import signal
import socket
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind262")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
# Two SGLang DP ranks on this host: one core each, each rank's KV pool capped (183rd batch).
SG_DP2 = [*SG, "--dp-size", "2", "--max-total-tokens", "4096"]
BIND2 = {"SGLANG_CPU_OMP_THREADS_BIND": "0|1"}
VDP2 = [*VLLM_BASE, "--data-parallel-size", "2"]


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


ROOT.mkdir(parents=True, exist_ok=True)
DIST_PORT = _free_port()


# --- steps -------------------------------------------------------------------------------------

def burst(ctx: Ctx, n: int, max_tokens: int = 24, timeout: float = 60) -> None:
    """``n`` completions at once (concurrent clients); each gives up after ``timeout`` s."""
    name = ctx.model_name()
    with ThreadPoolExecutor(n) as pool:
        for i in range(n):
            pool.submit(ctx.post, "/v1/completions",
                        {"model": name, "prompt": f"fox {i}", "max_tokens": max_tokens}, timeout)


def tree(ctx: Ctx, name: str) -> None:
    """The run's processes, written to ROOT/ptree-NAME.txt."""
    lines = []
    for p in ctx.children(""):
        try:
            lines.append(f"{p.pid} {p.ppid()} {p.name()} {' '.join(p.cmdline())[:200]}")
        except Exception:   # noqa: BLE001 - a process gone meanwhile
            continue
    (ROOT / f"ptree-{name}.txt").write_text("\n".join(lines) + "\n")


def serve_burst(ready: str, startup: float = 300) -> object:
    """Until it ends or is up; if up, two bursts of 4 concurrent completions and a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(ready, startup) and ctx.proc is not None and ctx.proc.poll() is None:
            burst(ctx, 4)
            burst(ctx, 4)
            linger(ctx, 15)
        else:
            linger(ctx, 5)
    return act


def signal_rank_while_serving(name: str, needles: list[str], ready: str, sig: int,
                              startup: float = 300, after: float = 30) -> object:
    """Up, a burst of 4; ``sig`` to the first process matching a needle; then a burst of 4
    (each request giving up after 40 s), two single requests, and ``after`` s more."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(ready, startup):
            linger(ctx, 5)
            return
        burst(ctx, 4)
        time.sleep(3)
        tree(ctx, name)
        for needle in needles:
            found = ctx.children(needle)
            if found:
                victim = found[-1]
                with (ROOT / f"ptree-{name}.txt").open("a") as f:
                    f.write(f"signal {sig} to {victim.pid} ({needle})\n")
                victim.send_signal(sig)
                break
        time.sleep(3)
        burst(ctx, 4, timeout=40)
        ctx.complete(2, max_tokens=8)
        linger(ctx, after)
    return act


def wait_alone(seconds: float) -> object:
    """A launch that has no peer: let it run ``seconds`` s (it ends by itself or waits)."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(READY_LINE, seconds) or ctx.wait_for(SG_READY, 1):
            burst(ctx, 4)
            linger(ctx, 10)
        else:
            linger(ctx, 1)
    return act


SCENARIOS = [
    # vLLM
    Scenario("v-dp2-backend-ray", "vllm", "--data-parallel-size 2 --data-parallel-backend ray "
             "(the Ray backend of a cluster guide; Ray is not installed on this host); then two "
             "bursts of 4 concurrent completions", [*VDP2, "--data-parallel-backend", "ray"],
             act=serve_burst(READY_LINE, 150)),
    Scenario("v-dp2-address-foreign", "vllm", "--data-parallel-size 2 with "
             "--data-parallel-address 192.0.2.10 (the head node's address of a cluster recipe, "
             "not an address of this host); then two bursts of 4 concurrent completions",
             [*VDP2, "--data-parallel-address", "192.0.2.10"],
             act=serve_burst(READY_LINE, 150)),
    Scenario("v-dp2-headless-rank1-no-head", "vllm", "--data-parallel-size 2 "
             "--data-parallel-size-local 1 --data-parallel-start-rank 1 --headless "
             "--data-parallel-address 127.0.0.1 --data-parallel-rpc-port 13345 (the second "
             "node's command of a two-node recipe run alone: the head with the API server never "
             "started)",
             [*VDP2, "--data-parallel-size-local", "1", "--data-parallel-start-rank", "1",
              "--headless", "--data-parallel-address", "127.0.0.1",
              "--data-parallel-rpc-port", "13345"],
             act=wait_alone(100)),
    Scenario("v-dp2-stop-core-dp1-serving", "vllm", "--data-parallel-size 2; a burst of 4 "
             "concurrent completions, then EngineCore_DP1 stopped (SIGSTOP) while the other "
             "core serves, then more requests",
             VDP2, act=signal_rank_while_serving("v-dp2-stop-core-dp1-serving",
                                                 ["EngineCore_DP1", "EngineCore"], READY_LINE,
                                                 signal.SIGSTOP)),
    # SGLang
    Scenario("s-dp2-total-requests-stop-dp1", "sglang", "--dp-size 2 with --load-balance-method "
             "total_requests (thread binding 0|1, --max-total-tokens 4096); a burst of 4 "
             "concurrent completions, then the DP rank 1 scheduler stopped (SIGSTOP), then more "
             "requests", [*SG_DP2, "--load-balance-method", "total_requests"], env=BIND2,
             act=signal_rank_while_serving("s-dp2-total-requests-stop-dp1",
                                           ["scheduler_DP1", "DP1"], SG_READY, signal.SIGSTOP)),
    Scenario("s-dp2-kill-dp-controller", "sglang", "--dp-size 2 (thread binding 0|1, "
             "--max-total-tokens 4096); a burst of 4 concurrent completions, then the data "
             "parallel controller process SIGKILLed while both ranks serve, then more requests",
             SG_DP2, env=BIND2,
             act=signal_rank_while_serving("s-dp2-kill-dp-controller",
                                           ["data_parallel_controller"], SG_READY,
                                           signal.SIGKILL)),
    Scenario("s-dp2-nnodes2-node0-alone", "sglang", "--dp-size 2 --nnodes 2 --node-rank 0 "
             f"--dist-init-addr 127.0.0.1:{DIST_PORT} (node 0 of a two-node data-parallel "
             "recipe on one host; node 1 never started)",
             [*SG_DP2, "--nnodes", "2", "--node-rank", "0", "--dist-init-addr",
              f"127.0.0.1:{DIST_PORT}"], env=BIND2, act=wait_alone(110)),
]
