"""Record real engine logs for the labelled corpus: faults induced on the real engines here.

    .venv/bin/python tests/real/record_logs.py OUT_DIR [SCENARIO ...]     (list: --list)
    .venv/bin/python tests/real/record_logs.py --scenarios MINE.py OUT_DIR [SCENARIO ...]

Each scenario launches the real vLLM (CPU build) or SGLang from setup_engines.py's cache with
one fault of a kind users meet - a bad flag, a broken checkpoint, a port taken, a signal to an
engine process while it serves - and writes the engine's whole output (stdout and stderr, as
the daemon's run log holds it) to OUT_DIR/NAME.log under a `# source:` line saying how it was
made. The labels (outcome, phase_at_end, cause) are written by a person reading the log, as for
every file of the corpus: the fault induced is what the note says, not the label itself.

One engine at a time (2 cores): each scenario holds a lock on a file in the temporary folder
while it runs, so recorders started at once (helpers sharing the machine) take turns scenario by
scenario instead of polling for each other. Every run's process group is killed at the end,
whatever happened. Fast failures take 10-40 s; a scenario that serves takes 1-3 minutes.

The default scenarios are log_scenarios.py's table; their building blocks (broken copies of
the tiny model, steps that act on a running server) are log_faults.py's. `--scenarios FILE`
records a table of one's own instead: a Python file defining SCENARIOS from those blocks.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import importlib.util
import os
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
from collections.abc import Iterator
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import Ctx, Scenario  # noqa: E402
from setup_engines import LLAMA, SGLANG, VLLM  # noqa: E402

OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
               "DO_NOT_TRACK": "1"}


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def command(sc: Scenario, model: Path, port: int) -> list[str]:
    if sc.entry == "python":
        # the engine's own interpreter on the scenario's arguments, `{model}` and `{port}`
        # filled in: an offline entry point (`-m vllm.entrypoints.openai.run_batch ...`,
        # `-m sglang.bench_one_batch ...`) or a script driving the engine's Python API
        python = VLLM.python if sc.engine == "vllm" else SGLANG.python
        return [str(python), *(a.replace("{model}", str(model)).replace("{port}", str(port))
                               for a in sc.args)]
    if sc.engine == "vllm":
        if sc.entry == "serve":
            head = [str(VLLM.dir / "bin" / "vllm"), "serve", str(model)]
        else:
            head = [str(VLLM.python), "-m", "vllm.entrypoints.openai.api_server", "--model",
                    str(model)]
        return [*head, "--host", "127.0.0.1", "--port", str(port), *sc.args]
    return [str(SGLANG.python), "-m", "sglang.launch_server", "--model-path", str(model),
            "--host", "127.0.0.1", "--port", str(port), *sc.args]


def kill_group(proc: subprocess.Popen) -> None:
    for sig in (signal.SIGCONT, signal.SIGKILL):
        try:
            os.killpg(proc.pid, sig)
        except ProcessLookupError:
            pass
    try:
        proc.wait(30)
    except subprocess.TimeoutExpired:
        pass


def record(sc: Scenario, out: Path, work: Path) -> Path:
    model = sc.model(work) if sc.model else LLAMA.dir
    port = free_port()
    log = out / f"{sc.name}.log"
    ctx = Ctx(port=port, log=log, work=work)
    if sc.before:
        sc.before(ctx)
    argv = command(sc, model, ctx.port)
    version = VLLM.version if sc.engine == "vllm" else SGLANG.version
    package = VLLM.package if sc.engine == "vllm" else SGLANG.package
    shown = " ".join(a.replace(str(model), "MODEL") for a in argv[1:])
    header = (f"# source: real run on this machine kind (2 cores, no GPU), "
              f"{time.strftime('%Y-%m-%d')}, {package} {version}, tests/real/record_logs.py "
              f"scenario {sc.name}: {sc.what}; {shown}\n# engine: {sc.engine}\n# tp: {sc.tp}\n\n")
    t0 = time.monotonic()
    with open(log, "wb") as f:
        f.write(header.encode())
        f.flush()
        ctx.proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, start_new_session=True,
                                    env={**os.environ, **OFFLINE_ENV, **sc.env}, cwd=work)
        try:
            if sc.act:
                sc.act(ctx)
            else:
                ctx.proc.wait(sc.wait_s)
        except (subprocess.TimeoutExpired, AssertionError):
            pass
        finally:
            kill_group(ctx.proc)
            for s in ctx.keep:
                s.close()   # type: ignore[attr-defined]
    print(f"{sc.name}: exit {ctx.proc.returncode}, {time.monotonic() - t0:.0f} s, "
          f"{len(log.read_text(errors='replace').splitlines())} lines", flush=True)
    return log


def load_scenarios(path: Path | None) -> list[Scenario]:
    """The table to record: log_scenarios.py's, or SCENARIOS from the file given."""
    if path is None:
        from log_scenarios import SCENARIOS
        return SCENARIOS
    spec = importlib.util.spec_from_file_location("user_scenarios", path)
    if spec is None or spec.loader is None or not path.is_file():
        raise SystemExit(f"--scenarios {path}: not a Python file; give a .py defining SCENARIOS")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    table = getattr(module, "SCENARIOS", None)
    if not isinstance(table, list) or not all(isinstance(s, Scenario) for s in table):
        raise SystemExit(f"--scenarios {path}: it defines no SCENARIOS list of Scenario; "
                         "see tests/real/log_scenarios.py for the form")
    return table


@contextlib.contextmanager
def one_recording_at_a_time() -> Iterator[None]:
    """Hold the machine's recording lock for one scenario (blocking while another recorder
    holds it): two engines at once on 2 cores would slow both into faults of their own."""
    path = Path(tempfile.gettempdir()) / "gns-record-logs.lock"
    with open(path, "a+") as lock:
        try:
            fcntl.flock(lock, fcntl.LOCK_EX | fcntl.LOCK_NB)
        except BlockingIOError:
            print(f"waiting for another recorder (lock {path})", flush=True)
            fcntl.flock(lock, fcntl.LOCK_EX)
        yield  # (closing the file releases the lock, whatever happened in the scenario)


def main(argv: list[str]) -> int:
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("out", type=Path, nargs="?")
    p.add_argument("names", nargs="*")
    p.add_argument("--list", action="store_true")
    p.add_argument("--scenarios", type=Path, metavar="FILE",
                   help="a Python file defining SCENARIOS (default: log_scenarios.py)")
    a = p.parse_args(argv)
    scenarios = load_scenarios(a.scenarios)
    if a.list or a.out is None:
        for sc in scenarios:
            print(f"{sc.name:24} {sc.engine:7} {sc.what}")
        return 0
    chosen = [s for s in scenarios if not a.names or s.name in a.names]
    missing = set(a.names) - {s.name for s in scenarios}
    if missing:
        raise SystemExit(f"no scenario named {', '.join(sorted(missing))}: see --list")
    a.out.mkdir(parents=True, exist_ok=True)
    # one scratch folder per invocation: two recorders writing to the same folder would
    # otherwise share one, and the first to finish would delete the other's model copies
    work = a.out / f".work-{os.getpid()}"
    work.mkdir(exist_ok=True)
    for sc in chosen:
        with one_recording_at_a_time():
            record(sc, a.out, work)
    shutil.rmtree(work, ignore_errors=True)
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
