"""The hundred-and-thirty-fifth batch's scenarios (tests/fixtures/corpus/fresh134): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind135.py OUT

Themes: restart loops - a supervisor or script around the engine that starts it again when it
dies, so that one log holds several runs, each restart announced by a line of the supervisor's
own. Four supervisors, written under /tmp/blind135/ when this table is loaded: a systemd unit
emulated as `journalctl -u NAME` shows it (Restart=on-failure, RestartSec, StartLimitBurst; every
line of the engine prefixed with the journal's stamp, host and `python[PID]:`), supervisord run
in the foreground with the program's output on its own stdout (startsecs, startretries, `gave up:
... entered FATAL state`), a bash entrypoint looping over the engine with a doubling back-off,
and a Python runner (logging) with a restart budget and an exponential back-off, which may start
the engine through `sh -c '... | tee -a FILE'` (so the process it tracks and kills is the
shell, not the server). Faults: a crash loop failing the same way until the supervisor gives up;
a first run whose shell is SIGKILLed while the server under it lives on holding the port; a
model folder filled by a sync while the loop restarts (each attempt failing otherwise, or
serving at the third); a first run killed while serving and the restart killed while it loads; a
first run killed during its compile warm-up, the restart serving; a back-off so long the log
ends in the wait; the launcher process (SGLang's main) SIGKILLed while serving.

Earlier batches already had (not repeated): a Python launcher restarting the engine once, vLLM
with its port taken by another listener (both startups fail, the launcher gives up) and SGLang
after its scheduler's SIGKILL (the restart serves) (105th); faulthandler, pdb and strace around
one run (121st); an earlier run's Prometheus multiprocess files (93rd).

Each scenario runs entry="python": the engine's interpreter on /tmp/blind135/loop.py (systemd,
supervisord, the Python runner) or, for the bash entrypoint, on a one-line exec of bash on
/tmp/blind135/entrypoint.sh, with the engine's command after `--`. SIGINT and SIGQUIT are set
back to their defaults before each launch (dfl_signals, as the 133rd batch's table does): SGLang's
scheduler tells its launcher of a failure by SIGQUIT. SGLang runs with --device cpu --model-impl
transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-06 in four invocations (raw1: two vLLM; raw2: one vLLM; raw3: three SGLang;
raw4: two SGLang), taking turns with three other helpers' recorders (eight recorders shared the
lock: the first of mine waited 10 minutes for its first turn, so raw1 and raw2 were stopped while
waiting and the rest re-queued SGLang first); each scenario once. About 10 minutes of recording
(vLLM 31+77+63 s, SGLang 74+133+88+80+93 s). 8 kept (final files dn101-dn108). Not recorded, for
the 45-minute budget, and removed from the table: v-supervisord-killed-twice (engine core
SIGKILLed serving, then again as the restart loads), v-compile-killed-restart-serves (worker
SIGKILLed in its compile warm-up, the restart serving), v-runner-backoff-wait (config.json cut,
log ending in a 40 s back-off) and s-runner-backoff-wait (--context-length 8192, the same; its
take was stopped 2 s in by hand and dropped). Nothing recorded was dropped.

What the engines did. A restart loop's log is labelled by its last run. vLLM refuses
--max-model-len 4096 at launch each time (`User-specified max_model_len (4096) is greater than
the derived max_model_len`) and the emulated systemd stops at `Start request repeated too
quickly`. A model folder not there yet is `HFValidationError: Repo id must be in the form ...` in
vLLM; half synced (two of four shards) it is `FileNotFoundError: Weight files referenced in index
but missing` in weight loading; in SGLang a folder with only the tokenizer is `Unrecognized model
... Should have a model_type key`, a half-written config.json `is not a valid JSON file`, and the
third start serves. A `sh -c '... | tee'` wrapper SIGKILLed leaves the server under it serving
and holding the port: vLLM's restarts die at once (`OSError: [Errno 98] Address already in
use`, exit status 0 through tee) while the orphan's stats lines go on in the same log; SGLang's
restarts load fully with the memory the orphan leaves (3 GB of 20), log `[Errno 98] error while
attempting to bind`, and then their warm-up request is answered by the orphan on that port, so
each prints `The server is fired up and ready to roll!` just before shutting down. SGLang's
scheduler SIGKILLed while serving ends the launcher (`Subprocess scheduler_0 ... crashed with
exit code -9. Triggering SIGQUIT`); killed right after `Load weight end` at the restart it is
`RuntimeError: Rank 0 scheduler died during initialization (exit code: -9). ... OS OOM
killer`. SGLang's launcher SIGKILLed takes its scheduler with it (the restart finds all memory
free) and writes nothing; the restart serves. A truncated shard fails SGLang the same way three
times (`SafetensorError: ... incomplete metadata`), the launcher killing itself each time, and
supervisord ends `gave up: sglang entered FATAL state`.
"""

from __future__ import annotations

import shutil
import signal
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    signal_quietly,
    truncated_shard,
)

ROOT = Path("/tmp/blind135")
LOOP = ROOT / "loop.py"
ENTRY = ROOT / "entrypoint.sh"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

LOOP_PY = r'''"""loop.py - keep an inference server running: start it again when it exits.

    loop.py STYLE NAME -- COMMAND...      (settings from the environment, LOOP_*)
"""
import datetime
import logging
import os
import socket
import subprocess
import sys
import time

style, name = sys.argv[1], sys.argv[2]
cmd = sys.argv[sys.argv.index("--") + 1:]
env = {**os.environ, "PYTHONUNBUFFERED": "1"}
host = "gpu-node-7"


def stamp():
    return datetime.datetime.now().strftime("%b %d %H:%M:%S")


def out(line):
    sys.stdout.write(line + "\n")
    sys.stdout.flush()


if style == "systemd":
    # what `journalctl -u NAME.service` shows: Restart=on-failure, StartLimitBurst
    burst = int(os.environ.get("LOOP_BURST", "3"))
    restart_sec = float(os.environ.get("LOOP_RESTART_SEC", "2"))
    unit = f"{name}.service"
    desc = os.environ.get("LOOP_DESC", "inference server")
    starts = 0
    counter = 0
    while True:
        starts += 1
        p = subprocess.Popen(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, env=env)
        out(f"{stamp()} {host} systemd[1]: Started {unit} - {desc}.")
        for raw in p.stdout:
            line = raw.decode(errors="replace").rstrip("\n")
            out(f"{stamp()} {host} python[{p.pid}]: {line}")
        rc = p.wait()
        if rc < 0:
            sig = {9: "KILL", 15: "TERM", 6: "ABRT", 11: "SEGV"}.get(-rc, str(-rc))
            out(f"{stamp()} {host} systemd[1]: {unit}: Main process exited, code=killed, "
                f"status={-rc}/{sig}")
            out(f"{stamp()} {host} systemd[1]: {unit}: Failed with result 'signal'.")
        else:
            out(f"{stamp()} {host} systemd[1]: {unit}: Main process exited, code=exited, "
                f"status={rc}/{'SUCCESS' if rc == 0 else 'FAILURE'}")
            out(f"{stamp()} {host} systemd[1]: {unit}: Failed with result 'exit-code'.")
        if starts >= burst:
            out(f"{stamp()} {host} systemd[1]: {unit}: Start request repeated too quickly.")
            out(f"{stamp()} {host} systemd[1]: {unit}: Failed with result "
                f"'{'signal' if rc < 0 else 'exit-code'}'.")
            out(f"{stamp()} {host} systemd[1]: Failed to start {unit} - {desc}.")
            sys.exit(1)
        time.sleep(restart_sec)
        counter += 1
        out(f"{stamp()} {host} systemd[1]: {unit}: Scheduled restart job, restart counter is "
            f"at {counter}.")
        out(f"{stamp()} {host} systemd[1]: Stopped {unit} - {desc}.")

elif style == "supervisord":
    # supervisord -n with the program's stdout on its own (stdout_logfile=/dev/stdout)
    startsecs = float(os.environ.get("LOOP_STARTSECS", "60"))
    startretries = int(os.environ.get("LOOP_STARTRETRIES", "3"))

    def sv(level, msg):
        t = datetime.datetime.now()
        out(f"{t:%Y-%m-%d %H:%M:%S},{t.microsecond // 1000:03d} {level} {msg}")

    sv("INFO", f"supervisord started with pid {os.getpid()}")
    retries = 0
    while True:
        p = subprocess.Popen(cmd, env=env)
        t0 = time.monotonic()
        sv("INFO", f"spawned: '{name}' with pid {p.pid}")
        running = False
        while p.poll() is None:
            time.sleep(0.2)
            if not running and time.monotonic() - t0 >= startsecs:
                running = True
                retries = 0
                sv("INFO", f"success: {name} entered RUNNING state, process has stayed up for "
                   f"> than {startsecs:g} seconds (startsecs)")
        rc = p.returncode
        how = f"terminated by SIG{'KILL' if rc == -9 else -rc}" if rc < 0 else f"exit status {rc}"
        sv("WARN" if running else "INFO", f"exited: {name} ({how}; not expected)")
        if not running:
            retries += 1
            if retries > startretries:
                sv("INFO", f"gave up: {name} entered FATAL state, too many start retries too "
                   "quickly")
                while True:     # supervisord stays up with the program FATAL
                    time.sleep(60)
            sv("INFO", f"backoff: waiting {retries} s before retry {retries} of {startretries}")
            time.sleep(retries)

else:
    # the team's Python runner: a restart budget, exponential back-off, optional `sh -c ... | tee`
    logging.basicConfig(format="%(asctime)s runner[%(process)d] %(levelname)s %(message)s",
                        level=logging.INFO)
    log = logging.getLogger("runner")
    max_restarts = int(os.environ.get("LOOP_MAX_RESTARTS", "3"))
    delay = float(os.environ.get("LOOP_BACKOFF", "3"))
    cap = float(os.environ.get("LOOP_BACKOFF_CAP", "300"))
    tee = os.environ.get("LOOP_TEE", "")
    if tee:
        q = " ".join("'" + a.replace("'", "'\\''") + "'" for a in cmd)
        cmd = ["sh", "-c", f"{q} 2>&1 | tee -a {tee}"]
    restarts = 0
    while True:
        p = subprocess.Popen(cmd, env=env)
        log.info("started %s (pid %d, restart %d of %d)", name, p.pid, restarts, max_restarts)
        rc = p.wait()
        log.warning("%s (pid %d) exited with %s", name, p.pid,
                    f"signal {-rc}" if rc < 0 else f"code {rc}")
        if restarts >= max_restarts:
            log.error("%s: restart budget (%d) used up, giving up", name, max_restarts)
            sys.exit(1)
        restarts += 1
        log.info("restarting %s in %g s (back-off)", name, delay)
        time.sleep(delay)
        delay = min(delay * 2, cap)
'''

ENTRY_SH = r'''#!/usr/bin/env bash
# entrypoint.sh - keep the server up: restart it whenever it exits, doubling the pause.
# usage: entrypoint.sh -- COMMAND...   (MAX_FAILURES=0: never give up)
shift
max=${MAX_FAILURES:-0}
delay=${RESTART_DELAY:-5}
n=0
while true; do
    echo "[entrypoint] $(date -u +%FT%TZ) starting server (attempt $((n + 1)))"
    "$@"
    rc=$?
    n=$((n + 1))
    echo "[entrypoint] $(date -u +%FT%TZ) server exited with status $rc (failure $n)"
    if [ "$max" -gt 0 ] && [ "$n" -ge "$max" ]; then
        echo "[entrypoint] $n failures in a row, giving up"
        exit "$rc"
    fi
    echo "[entrypoint] restarting in ${delay}s"
    sleep "$delay"
    delay=$((delay * 2))
    if [ "$delay" -gt 300 ]; then delay=300; fi
done
'''

BASH = "import os,sys; os.execv('/bin/bash', ['bash', *sys.argv[1:]])"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    LOOP.write_text(LOOP_PY)
    ENTRY.write_text(ENTRY_SH)
    ENTRY.chmod(0o755)


_setup()


# --- helpers -----------------------------------------------------------------------------------

def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch: a recorder started
    in the background by a shell inherits them ignored, and the engine would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def body(ctx: Ctx) -> str:
    return ctx.text().split("\n\n", 1)[-1]


def nth(ctx: Ctx, needle: str, n: int, timeout: float) -> bool:
    """The run's output (below the header) holds ``needle`` ``n`` times within ``timeout`` s."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if body(ctx).count(needle) >= n:
            return True
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return body(ctx).count(needle) >= n
        time.sleep(0.3)
    return False


def engine_args(engine: str) -> list[str]:
    if engine == "vllm":
        return ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
                "127.0.0.1", "--port", "{port}", *VLLM_BASE]
    return ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
            "--port", "{port}", *SG]


def looped(style: str, name: str, engine: str, extra: list[str] | None = None) -> list[str]:
    """loop.py's arguments: the engine's interpreter is sys.executable for loop.py too."""
    py = "{python}"
    return [str(LOOP), style, name, "--", py, *engine_args(engine), *(extra or [])]


def in_bash(engine: str, extra: list[str] | None = None) -> list[str]:
    return ["-c", BASH, str(ENTRY), "--", "{python}", *engine_args(engine), *(extra or [])]


def ready_needle(engine: str) -> str:
    return READY_LINE if engine == "vllm" else SG_READY


def kill_named(ctx: Ctx, child: str, sig: int = signal.SIGKILL, exact: bool = False) -> None:
    for p in ctx.children(child):
        try:
            if exact and p.name() != child:
                continue
        except Exception:   # noqa: BLE001 - gone already
            continue
        signal_quietly(p, sig)


def sync_stage(dest: Path, files: list[str], cut: dict[str, int] | None = None) -> None:
    """A model sync part done: ``files`` of the tiny model copied into ``dest`` (``cut``: a
    file written only to its first N characters)."""
    from setup_engines import LLAMA
    dest.mkdir(parents=True, exist_ok=True)
    for f in files:
        src = LLAMA.dir / f
        if cut and f in cut:
            (dest / f).write_text(src.read_text()[: cut[f]])
        else:
            shutil.copyfile(src, dest / f)


TOKENIZER = ["tokenizer.json", "tokenizer_config.json"]
SHARDS = [f"model-0000{i}-of-00004.safetensors" for i in range(1, 5)]
INDEX = "model.safetensors.index.json"


# --- steps --------------------------------------------------------------------------------------

def until_done(limit: float) -> Callable[[Ctx], None]:
    """A loop expected to give up: wait for the supervisor to exit (or ``limit`` s)."""
    def act(ctx: Ctx) -> None:
        linger(ctx, limit)
        time.sleep(1)
    return act


def until_giveup(needle: str, limit: float) -> Callable[[Ctx], None]:
    """Until the supervisor's give-up line (it then stays up: supervisord), a short pause."""
    def act(ctx: Ctx) -> None:
        nth(ctx, needle, 1, limit)
        time.sleep(3)
    return act


def orphan_holds_port(engine: str, after_restart_s: float) -> Callable[[Ctx], None]:
    """Serve, then SIGKILL the `sh -c` the runner tracks (the server under it lives on)."""
    def act(ctx: Ctx) -> None:
        if not nth(ctx, ready_needle(engine), 1, 240):
            return
        time.sleep(2)
        ctx.complete(2, max_tokens=12)
        kill_named(ctx, "sh", exact=True)
        if nth(ctx, "restarting", 1, 30):
            linger(ctx, after_restart_s)
    return act


def v_sync_then_giveup(dest_name: str) -> Callable[[Ctx], None]:
    """No model folder at the first start; during the first back-off the sync copies config,
    tokenizer, index and two of the four shards, and stalls there."""
    def act(ctx: Ctx) -> None:
        if nth(ctx, "restarting in", 1, 120):
            sync_stage(ctx.work / dest_name, ["config.json", "generation_config.json",
                                              *TOKENIZER, INDEX, *SHARDS[:2]])
        linger(ctx, 150)
        time.sleep(1)
    return act


def s_sync_serves(dest_name: str) -> Callable[[Ctx], None]:
    """The folder holds only the tokenizer at the first start; config.json half written at the
    second; all files at the third, which serves."""
    def act(ctx: Ctx) -> None:
        dest = ctx.work / dest_name
        if not nth(ctx, "restarting in", 1, 150):
            return
        sync_stage(dest, ["config.json", INDEX, *SHARDS], cut={"config.json": 300})
        if not nth(ctx, "restarting in", 2, 150):
            return
        sync_stage(dest, ["config.json", "generation_config.json"])
        if nth(ctx, SG_READY, 1, 200):
            time.sleep(2)
            ctx.complete(2, max_tokens=16)
            time.sleep(8)
    return act


def kill_serving_then_loading(engine: str, child: str, load_line: str,
                              giveup: str) -> Callable[[Ctx], None]:
    """Serve; SIGKILL ``child``; when the restart logs ``load_line``, SIGKILL its ``child``;
    until the supervisor's ``giveup`` line."""
    def act(ctx: Ctx) -> None:
        if not nth(ctx, ready_needle(engine), 1, 240):
            return
        time.sleep(2)
        ctx.complete(2, max_tokens=12)
        kill_named(ctx, child)
        ctx.complete(1, max_tokens=8)
        if nth(ctx, load_line, 2, 180):
            time.sleep(0.2)
            kill_named(ctx, child)
            nth(ctx, giveup, 1, 60)
            time.sleep(3)
    return act


def launcher_killed_restart_serves(ctx: Ctx) -> None:
    """SGLang's launcher (the main process) SIGKILLed while serving; the restart serves."""
    if not nth(ctx, SG_READY, 1, 240):
        return
    time.sleep(2)
    ctx.complete(2, max_tokens=12)
    assert ctx.proc is not None
    for p in ctx.children("sglang.launch_server"):
        if p.ppid() == ctx.proc.pid:     # the runner's own child: the launcher
            signal_quietly(p, signal.SIGKILL)
    if nth(ctx, SG_READY, 2, 240):
        time.sleep(2)
        ctx.complete(2, max_tokens=12)
        time.sleep(8)


# --- model folders -------------------------------------------------------------------------------

def absent(name: str) -> Callable[[Path], Path]:
    def make(work: Path) -> Path:
        d = work / name
        if d.exists():
            shutil.rmtree(d)
        return d
    return make


def tokenizer_only(name: str) -> Callable[[Path], Path]:
    def make(work: Path) -> Path:
        d = absent(name)(work)
        sync_stage(d, TOKENIZER)
        return d
    return make


def fresh_dir(name: str) -> Callable[[Ctx], None]:
    def before(ctx: Ctx) -> None:
        dfl_signals(ctx)
        d = ROOT / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
    return before


def scenario(name: str, engine: str, what: str, args: list[str], act: Callable[[Ctx], None],
             model: Callable[[Path], Path] | None = None, env: dict[str, str] | None = None,
             before: Callable[[Ctx], None] = dfl_signals) -> Scenario:
    python = "{python}"
    from setup_engines import SGLANG, VLLM
    exe = str(VLLM.python if engine == "vllm" else SGLANG.python)
    return Scenario(name, engine, what, [a.replace(python, exe) for a in args], model=model,
                    env=env or {}, before=before, act=act, entry="python")


SCENARIOS = [
    # --- SGLang ----------------------------------------------------------------------------------
    scenario("s-supervisord-truncated-fatal", "sglang", "supervisord (startsecs=60, "
             "startretries=2) running SGLang on a copy whose last weight shard is cut in half: "
             "each start fails the same way before startsecs, and supervisord gives up (FATAL)",
             looped("supervisord", "sglang", "sglang"),
             until_giveup("entered FATAL state", 200), model=truncated_shard,
             env={"LOOP_STARTSECS": "60", "LOOP_STARTRETRIES": "2"}),
    scenario("s-tee-orphan-holds-port", "sglang", "the Python runner starting SGLang through `sh "
             "-c '... 2>&1 | tee -a FILE'`; after two completions the shell it tracks is SIGKILLed: "
             "the server under it lives on holding the port, and the runner's restart meets it",
             looped("runner", "sglang", "sglang"), orphan_holds_port("sglang", 90),
             env={"LOOP_TEE": str(ROOT / "sglang-tee.log"), "LOOP_MAX_RESTARTS": "2",
                  "LOOP_BACKOFF": "3"}),
    scenario("s-model-sync-third-serves", "sglang", "the bash entrypoint (5 s doubling, never "
             "gives up) starting SGLang on a model folder a sync is filling: only the tokenizer "
             "at the first start, config.json cut at 300 characters at the second (the sync "
             "writing it), everything at the third, which serves",
             in_bash("sglang"), s_sync_serves("sync-s"), model=tokenizer_only("sync-s"),
             env={"RESTART_DELAY": "5"}),
    scenario("s-systemd-killed-twice", "sglang", "a systemd unit (Restart=on-failure, "
             "RestartSec=2, StartLimitBurst=2; the journal as journalctl -u shows it) running "
             "SGLang: the scheduler SIGKILLed after two completions, then the restart's scheduler "
             "SIGKILLed as it begins loading the weights; systemd stops at the start limit",
             looped("systemd", "sglang", "sglang"),
             kill_serving_then_loading("sglang", "sglang::scheduler", "Load weight begin",
                                       "Failed to start"),
             env={"LOOP_BURST": "2", "LOOP_DESC": "SGLang server"}),
    scenario("s-launcher-killed-restart-serves", "sglang", "the Python runner (restart budget "
             "3, 3 s back-off) over SGLang: its launcher (the launch_server main process, not "
             "the scheduler) SIGKILLed after two completions; the restart serves two more",
             looped("runner", "sglang", "sglang"), launcher_killed_restart_serves,
             env={"LOOP_MAX_RESTARTS": "3", "LOOP_BACKOFF": "3"}),
    # --- vLLM ------------------------------------------------------------------------------------
    scenario("v-systemd-maxlen-startlimit", "vllm", "a systemd unit (Restart=on-failure, "
             "RestartSec=2, StartLimitBurst=3; the journal as journalctl -u shows it) starting "
             "vLLM with --max-model-len 4096 over the model's 2048: each start fails the same way "
             "and systemd stops at the start limit",
             looped("systemd", "vllm", "vllm", ["--max-model-len", "4096"]),
             until_done(150), env={"LOOP_BURST": "3", "LOOP_DESC": "vLLM OpenAI server"}),
    scenario("v-tee-orphan-holds-port", "vllm", "a Python runner starting vLLM through `sh -c "
             "'... 2>&1 | tee -a FILE'`; after two completions the shell it tracks is SIGKILLed "
             "(kill -9 of the unit's pid): the server under it lives on holding the port, and "
             "every restart the runner makes meets it",
             looped("runner", "vllm", "vllm"), orphan_holds_port("vllm", 120),
             env={"LOOP_TEE": str(ROOT / "vllm-tee.log"), "LOOP_MAX_RESTARTS": "2",
                  "LOOP_BACKOFF": "3"}),
    scenario("v-model-sync-crashloop", "vllm", "the bash entrypoint (MAX_FAILURES=3, 5 s "
             "doubling) starting vLLM on a model folder a sync has not made yet; during the first "
             "pause the sync copies config, tokenizer, index and two of four shards and stalls: "
             "the second and third starts fail otherwise than the first, then the loop gives up",
             in_bash("vllm"), v_sync_then_giveup("sync-v"), model=absent("sync-v"),
             env={"MAX_FAILURES": "3", "RESTART_DELAY": "5"}),
]
