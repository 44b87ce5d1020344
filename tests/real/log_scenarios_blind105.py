"""The hundred-and-fifth batch's scenarios (tests/fixtures/corpus/fresh104): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind105.py OUT

Themes: the launch scripts and wrappers people put around the engine. The engine is not started
directly but by a shell script, a Makefile or a small Python launcher, whose own lines and
failures share the log: a `start.sh` with `set -euo pipefail` meeting an unset variable before
it execs the engine, or after the engine exits (a status file under an unset folder); a script
that sources an env file with a stray word on a line (`MAX_MODEL_LEN=256 tokens`: bash runs
`tokens`, the variable stays empty) or an env file that is not there; a preflight check
(`import flash_attn`) or a `pip install` (offline here: no index) before the engine, aborting or
going on; `timeout N python -m ...` that kills the engine mid-startup; `taskset -c` naming CPUs
the host lacks; `env -i` dropping PATH, so that `python3` is the system's, without the engine; a
Python launcher (subprocess) that restarts the engine once after it dies (two startups in one
log); a script that starts the engine in the background with nohup and follows its log file
with `tail -F`, from a working folder where the relative model path does not exist; a wrapper
that health-checks the engine with curl in a loop and kills it after N failures (too short a
startup budget; a wrong probe path); a wrapper without `exec` whose SIGTERM trap kills the engine
with SIGKILL; a Makefile target run without MODEL=, and one whose recipe is indented with
spaces.

Each scenario runs entry="python" on WRAP (`-c`), which puts the engine's interpreter in $PY and
execs the scenario's runner (bash, make, or the engine's interpreter for the launcher) on its script (/tmp/blind105/scripts/NAME/..., written when this table is loaded)
with the model and port as $1 and $2. SGLang runs with --device cpu --model-impl transformers
(its own Llama module imports vllm); vLLM with VLLM_BASE's settings.

Recorded 2026-12-05/06 in two invocations, one per engine (about 13 minutes of recording: vLLM
3m35s, SGLang 9m17s), each scenario once; all 20 kept. What the engines did: `timeout 30` sent
its SIGTERM just as vLLM's engine was up (init engine took 9.81 s); the engine core shut down
and the API server logged EngineDeadError and then never exited, so the script's exit line never
came. `timeout` runs in a process group of its own, outside the recorder's: its children
survive the recorder's kill (kill them by pid). SGLang here does log SIGTERM once it is up
(`SIGTERM received ... Draining requests and shutting down...`), though not during startup
(`timeout 20` left no line of it). SGLang with its port taken gets through loading and KV cache
allocation, then uvicorn logs `[Errno 98] ... address already in use` and the process hangs in
`Waiting for application shutdown.` - so s-post-step-unset's script never reached its post-step
(the unbound variable never shows). A launcher restarting SGLang after its scheduler's SIGKILL
serves again on the same port.
"""

from __future__ import annotations

import signal
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    signal_quietly,
    take_port,
)

ROOT = Path("/tmp/blind105")
SCRIPTS = ROOT / "scripts"
WRAP = ("import os,sys; os.environ['PY'] = sys.executable; a = sys.argv[1:]; "
        "a[0] = sys.executable if a[0] == 'PY' else a[0]; os.execv(a[0], a)")
V_ARGS = " ".join(VLLM_BASE)
SG_ARGS = "--device cpu --model-impl transformers"

# --- the scripts -----------------------------------------------------------------------------

FILES: dict[str, str] = {
    # vLLM
    "v-start-unset-var/start.sh": r'''#!/usr/bin/env bash
# start.sh - launch the vLLM OpenAI server for the team's model
set -euo pipefail
MODEL="$1"
PORT="$2"
echo "[start.sh] $(date -u +%FT%TZ) starting vLLM for ${MODEL} on port ${PORT}"
echo "[start.sh] tensor parallel size: ${TP_SIZE:-1}, dtype: ${DTYPE:-bfloat16}"
echo "[start.sh] max model len: ${MAX_MODEL_LEN}"
exec "$PY" -m vllm.entrypoints.openai.api_server --model "$MODEL" --host 127.0.0.1 \
    --port "$PORT" --max-model-len "$MAX_MODEL_LEN" --dtype "${DTYPE:-bfloat16}" \
    --gpu-memory-utilization 0.25
''',
    "v-env-file-stray-word/serve.env": '''# serving settings for llama-tiny (sourced by start.sh)
DTYPE=bfloat16
GPU_MEM_UTIL=0.25
MAX_MODEL_LEN=256 tokens
''',
    "v-env-file-stray-word/start.sh": r'''#!/usr/bin/env bash
cd "$(dirname "$0")"
set -a
source ./serve.env
set +a
echo "[start.sh] launching vLLM: dtype=$DTYPE gpu_mem_util=$GPU_MEM_UTIL max_model_len=$MAX_MODEL_LEN"
exec "$PY" -m vllm.entrypoints.openai.api_server --model "$1" --host 127.0.0.1 --port "$2" \
    --dtype "$DTYPE" --gpu-memory-utilization "$GPU_MEM_UTIL" --max-model-len "$MAX_MODEL_LEN"
''',
    "v-timeout-startup/serve.sh": r'''#!/usr/bin/env bash
# serve.sh - a startup budget of 30 s "so a stuck launch does not hold the node"
echo "[serve.sh] $(date -u +%T) starting vLLM (startup budget 30s)"
timeout 30 "$PY" -m vllm.entrypoints.openai.api_server --model "$1" --host 127.0.0.1 \
    --port "$2" ''' + V_ARGS + r'''
rc=$?
echo "[serve.sh] $(date -u +%T) vLLM exited with status $rc"
exit $rc
''',
    "v-launcher-restart-port/launcher.py": r'''"""launcher.py - runs the engine and restarts it once if it dies."""
import logging, subprocess, sys, time

logging.basicConfig(format="%(asctime)s launcher %(levelname)s %(message)s", level=logging.INFO)
log = logging.getLogger("launcher")
engine, model, port = sys.argv[1], sys.argv[2], sys.argv[3]
if engine == "vllm":
    cmd = [sys.executable, "-m", "vllm.entrypoints.openai.api_server", "--model", model,
           "--host", "127.0.0.1", "--port", port, *"''' + V_ARGS + r'''".split()]
else:
    cmd = [sys.executable, "-m", "sglang.launch_server", "--model-path", model,
           "--host", "127.0.0.1", "--port", port, *"''' + SG_ARGS + r'''".split()]
MAX_RESTARTS = 1
attempt = 0
while True:
    log.info("starting %s (attempt %d): %s", engine, attempt + 1, " ".join(cmd[1:4]))
    rc = subprocess.call(cmd)
    log.warning("%s exited with code %d", engine, rc)
    if attempt >= MAX_RESTARTS:
        log.error("%s failed %d times, giving up", engine, attempt + 1)
        sys.exit(1)
    attempt += 1
    log.info("restarting %s in 3 s (restart %d of %d)", engine, attempt, MAX_RESTARTS)
    time.sleep(3)
''',
    "v-bg-tail-relative-model/run.sh": r'''#!/usr/bin/env bash
# run.sh - start vLLM in the background and follow its log
cd "$(dirname "$0")"
mkdir -p logs
rm -f logs/engine.log
nohup "$PY" -m vllm.entrypoints.openai.api_server --model models/llama-tiny-v3 \
    --host 127.0.0.1 --port "$2" ''' + V_ARGS + r''' > logs/engine.log 2>&1 &
echo "[run.sh] vLLM started in the background (pid $!), following logs/engine.log"
exec tail -n +1 -F logs/engine.log
''',
    "v-health-startup-budget/entrypoint.sh": r'''#!/usr/bin/env bash
# entrypoint.sh - start vLLM, wait for /health, kill it if it is not healthy in time
"$PY" -m vllm.entrypoints.openai.api_server --model "$1" --host 127.0.0.1 --port "$2" \
    ''' + V_ARGS + r''' &
pid=$!
echo "[entrypoint] vLLM pid $pid, waiting for http://127.0.0.1:$2/health"
for i in $(seq 1 12); do
    sleep 2
    if curl -sf -o /dev/null "http://127.0.0.1:$2/health"; then
        echo "[entrypoint] healthy after $((i * 2))s"
        wait $pid
        exit $?
    fi
    echo "[entrypoint] health check $i/12 failed"
done
echo "[entrypoint] vLLM not healthy after 24s, killing pid $pid"
kill -9 $pid
exit 1
''',
    "v-taskset-bad-cpus/start.sh": r'''#!/usr/bin/env bash
# start.sh - pin the server to the cores of NUMA node 1
set -euo pipefail
CPUS="${CPUS:-4-7}"
echo "[start.sh] pinning vLLM to CPUs $CPUS"
exec taskset -c "$CPUS" "$PY" -m vllm.entrypoints.openai.api_server --model "$1" \
    --host 127.0.0.1 --port "$2" ''' + V_ARGS + r'''
''',
    "v-make-model-unset/Makefile": '''# make serve MODEL=/path/to/model [PORT=8000]
PY ?= python
PORT ?= 8000
HOST ?= 127.0.0.1
VLLM_ARGS = ''' + V_ARGS + '''

.PHONY: serve
serve:
\t$(PY) -m vllm.entrypoints.openai.api_server --model $(MODEL) --host $(HOST) --port $(PORT) $(VLLM_ARGS)
''',
    "v-preflight-import/start.sh": r'''#!/usr/bin/env bash
# start.sh - check the kernels are there, then serve
set -euo pipefail
echo "[start.sh] $(date -u +%FT%TZ) preflight: checking attention kernels"
"$PY" -c "import flash_attn; print('flash_attn', flash_attn.__version__)"
echo "[start.sh] preflight ok, starting vLLM"
exec "$PY" -m vllm.entrypoints.openai.api_server --model "$1" --host 127.0.0.1 --port "$2" \
    ''' + V_ARGS + r'''
''',
    "v-trap-kill9-serving/run.sh": r'''#!/usr/bin/env bash
# run.sh - run vLLM as a child so that we can "clean up" on SIGTERM
"$PY" -m vllm.entrypoints.openai.api_server --model "$1" --host 127.0.0.1 --port "$2" \
    ''' + V_ARGS + r''' &
pid=$!
trap 'echo "[run.sh] $(date -u +%T) got SIGTERM, killing vLLM (pid $pid)"; kill -9 $pid' TERM
wait $pid
wait $pid
rc=$?
echo "[run.sh] $(date -u +%T) vLLM exited with status $rc"
exit $rc
''',
    # SGLang
    "s-source-missing-env/start.sh": r'''#!/usr/bin/env bash
# start.sh - launch SGLang with the node's settings
set -euo pipefail
echo "[start.sh] $(date -u +%FT%TZ) loading node settings"
source /etc/sglang/serve.env
echo "[start.sh] starting SGLang: tp=${TP:-1} mem_fraction=${MEM_FRACTION:-0.8}"
exec "$PY" -m sglang.launch_server --model-path "$1" --host 127.0.0.1 --port "$2" ''' + SG_ARGS + r'''
''',
    "s-tee-missing-dir/start.sh": r'''#!/usr/bin/env bash
# start.sh - serve and keep a copy of the log
set -uo pipefail
echo "[start.sh] $(date -u +%FT%TZ) starting SGLang, log copy in /var/log/sglang/server.log"
"$PY" -m sglang.launch_server --model-path "$1" --host 127.0.0.1 --port "$2" ''' + SG_ARGS + r''' \
    2>&1 | tee -a /var/log/sglang/server.log
rc=$?
echo "[start.sh] SGLang pipeline exited with status $rc"
exit $rc
''',
    "s-timeout-startup/serve.sh": r'''#!/usr/bin/env bash
# serve.sh - a startup budget of 20 s "so a stuck launch does not hold the node"
echo "[serve.sh] $(date -u +%T) starting SGLang (startup budget 20s)"
timeout 20 "$PY" -m sglang.launch_server --model-path "$1" --host 127.0.0.1 --port "$2" \
    ''' + SG_ARGS + r'''
rc=$?
echo "[serve.sh] $(date -u +%T) SGLang exited with status $rc"
exit $rc
''',
    "s-health-wrong-path/supervise.sh": r'''#!/usr/bin/env bash
# supervise.sh - start SGLang, probe it, kill it when the probe keeps failing
"$PY" -m sglang.launch_server --model-path "$1" --host 127.0.0.1 --port "$2" ''' + SG_ARGS + r''' &
pid=$!
echo "[supervise.sh] SGLang pid $pid; liveness probe GET /healthz every 3s after 50s, threshold 4"
sleep 50
fails=0
while kill -0 $pid 2>/dev/null; do
    if curl -sf -o /dev/null "http://127.0.0.1:$2/healthz"; then
        fails=0
    else
        fails=$((fails + 1))
        echo "[supervise.sh] $(date -u +%T) liveness probe failed ($fails/4): GET /healthz"
    fi
    if [ $fails -ge 4 ]; then
        echo "[supervise.sh] $(date -u +%T) liveness probe failed 4 times, killing SGLang (pid $pid)"
        kill -TERM $pid
        wait $pid
        echo "[supervise.sh] SGLang exited with status $?"
        exit 1
    fi
    sleep 3
done
''',
    "s-env-i-system-python/start.sh": r'''#!/usr/bin/env bash
# start.sh - start SGLang with a clean environment (only what it needs)
echo "[start.sh] $(date -u +%FT%TZ) starting SGLang with a clean environment"
exec env -i HOME="$HOME" HF_HUB_OFFLINE=1 python3 -m sglang.launch_server --model-path "$1" \
    --host 127.0.0.1 --port "$2" ''' + SG_ARGS + r'''
''',
    "s-relative-model-wrong-cwd/start.sh": r'''#!/usr/bin/env bash
# start.sh - meant to be run from ~/.cache/gpu-node-supervisor
echo "[start.sh] starting SGLang from $(pwd)"
exec "$PY" -m sglang.launch_server --model-path models/llama-tiny-v3 --host 127.0.0.1 \
    --port "$2" ''' + SG_ARGS + r'''
''',
    "s-pip-fails-then-start/bootstrap.sh": r'''#!/usr/bin/env bash
# bootstrap.sh - make sure the router extra is installed, then serve
echo "[bootstrap] $(date -u +%FT%TZ) installing sglang-router"
"$PY" -m pip install --no-index --disable-pip-version-check "sglang-router==0.2.1" \
    || echo "[bootstrap] WARNING: pip install failed, starting SGLang anyway"
exec "$PY" -m sglang.launch_server --model-path "$1" --host 127.0.0.1 --port "$2" ''' + SG_ARGS + r'''
''',
    "s-makefile-spaces/Makefile": '''# make serve MODEL=/path/to/model PORT=30000
PY ?= python
PORT ?= 30000

.PHONY: serve
serve:
        $(PY) -m sglang.launch_server --model-path $(MODEL) --host 127.0.0.1 --port $(PORT) ''' + SG_ARGS + '''
''',
    "s-makefile-spaces/deploy.sh": r'''#!/usr/bin/env bash
echo "[deploy] $(date -u +%FT%TZ) deploying sglang on $(hostname)"
cd "$(dirname "$0")"
make serve MODEL="$1" PORT="$2"
rc=$?
echo "[deploy] make serve exited with status $rc"
exit $rc
''',
    "s-post-step-unset/run-sglang.sh": r'''#!/usr/bin/env bash
# run-sglang.sh - run SGLang, then record how it exited for the node agent
set -euo pipefail
echo "[run-sglang.sh] $(date -u +%FT%TZ) starting SGLang on port $2"
"$PY" -m sglang.launch_server --model-path "$1" --host 127.0.0.1 --port "$2" ''' + SG_ARGS + r''' \
    && rc=0 || rc=$?
echo "[run-sglang.sh] $(date -u +%FT%TZ) SGLang exited with status $rc"
echo "$(date -u +%FT%TZ) exit=$rc" >> "${STATUS_DIR}/last-exit"
exit $rc
''',
}

for rel, text in FILES.items():
    f = SCRIPTS / rel
    f.parent.mkdir(parents=True, exist_ok=True)
    f.write_text(text)
    if f.suffix in (".sh", ".py"):
        f.chmod(0o755)


# --- acts ------------------------------------------------------------------------------------

def http_up(ctx: Ctx, timeout: float = 150) -> bool:
    """The server answers GET /v1/models within ``timeout`` s (False: it did not, or ended)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}/v1/models",
                                        timeout=5) as r:
                if r.status == 200:
                    return True
        except (OSError, ValueError):
            pass
        time.sleep(1)
    return False


def logged(ctx: Ctx, needle: str, timeout: float) -> bool:
    """``needle`` in the run's output (after the header, which quotes the description)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        body = ctx.text().split("\n\n", 1)[-1]
        if needle in body:
            return True
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return needle in ctx.text().split("\n\n", 1)[-1]
        time.sleep(0.5)
    return False


def until_end_or_serve(ctx: Ctx) -> None:
    """A launch expected to fail: wait for it to end; if it serves instead, two requests."""
    if http_up(ctx, 120):
        time.sleep(3)
        ctx.complete(2, max_tokens=12)
        linger(ctx, 8)


def serve_then_linger(after_s: float):
    def act(ctx: Ctx) -> None:
        if http_up(ctx, 150):
            time.sleep(2)
            ctx.complete(2, max_tokens=12)
        linger(ctx, after_s)
    return act


def serve_then_term_script(ctx: Ctx) -> None:
    """Up, two completions, then SIGTERM to the wrapper script (the run's own process)."""
    if http_up(ctx, 150):
        time.sleep(3)
        ctx.complete(2, max_tokens=12)
        time.sleep(2)
        assert ctx.proc is not None
        signal_quietly(ctx.proc, signal.SIGTERM)
        linger(ctx, 15)


def kill_child_then_restart(child: str):
    """Up, two completions, SIGKILL to ``child``; once the launcher restarts the engine and it
    is up again, one completion."""
    def act(ctx: Ctx) -> None:
        if not http_up(ctx, 150):
            return
        time.sleep(3)
        ctx.complete(2, max_tokens=12)
        for p in ctx.children(child)[-1:]:
            signal_quietly(p, signal.SIGKILL)
        if logged(ctx, "restart 1 of 1", 60) and http_up(ctx, 150):
            time.sleep(3)
            ctx.complete(1, max_tokens=8)
            linger(ctx, 6)
    return act


def script(engine: str, rel: str, runner: str = "/bin/bash") -> list[str]:
    return ["-c", WRAP, runner, str(SCRIPTS / rel), "{model}", "{port}"]


def v(name, what, args, act=until_end_or_serve, before=None, wait_s=90.0) -> Scenario:
    return Scenario(name, "vllm", what, args, act=act, before=before, entry="python",
                    wait_s=wait_s)


def s(name, what, args, act=until_end_or_serve, before=None, wait_s=90.0) -> Scenario:
    return Scenario(name, "sglang", what, args, act=act, before=before, entry="python",
                    wait_s=wait_s)


def just_wait(ctx: Ctx) -> None:
    assert ctx.proc is not None
    linger(ctx, 45)


SCENARIOS = [
    # --- vLLM ------------------------------------------------------------------------------------
    v("v-start-unset-var", "start.sh with `set -euo pipefail` echoes its settings, one of them "
      "MAX_MODEL_LEN, which the deployment never set: bash stops on the unbound variable before "
      "it execs vLLM", script("vllm", "v-start-unset-var/start.sh")),
    v("v-env-file-stray-word", "start.sh sources serve.env (set -a) whose line "
      "`MAX_MODEL_LEN=256 tokens` has a stray word: bash runs `tokens` (not found) and the "
      "variable stays empty, so vLLM gets `--max-model-len ''`",
      script("vllm", "v-env-file-stray-word/start.sh")),
    v("v-timeout-startup", "serve.sh runs vLLM under `timeout 30` (a startup budget), too short "
      "for this host's startup: timeout sends SIGTERM mid-startup and the script reports status "
      "124", script("vllm", "v-timeout-startup/serve.sh"), act=just_wait),
    v("v-launcher-restart-port", "a Python launcher (subprocess) that restarts the engine once "
      "if it dies; the server's port already taken by another listener, so both startups fail "
      "and the launcher gives up",
      ["-c", WRAP, "PY", str(SCRIPTS / "v-launcher-restart-port/launcher.py"), "vllm",
       "{model}", "{port}"], before=take_port, wait_s=120.0),
    v("v-bg-tail-relative-model", "run.sh starts vLLM in the background with nohup, output to "
      "logs/engine.log, and follows it with `tail -F`; the model given as the relative path "
      "models/llama-tiny-v3, which does not exist under the script's folder (it was meant to run "
      "from another working folder); tail goes on after vLLM dies",
      script("vllm", "v-bg-tail-relative-model/run.sh"), act=just_wait),
    v("v-health-startup-budget", "entrypoint.sh starts vLLM in the background and polls /health "
      "with curl every 2 s; after 12 failures (24 s, shorter than this host's startup) it kills "
      "vLLM's API server with SIGKILL and exits 1",
      script("vllm", "v-health-startup-budget/entrypoint.sh"), act=just_wait),
    v("v-taskset-bad-cpus", "start.sh pins the server with `taskset -c 4-7` (the cores of "
      "another machine's NUMA node) on a 2-core host: taskset cannot set the affinity and vLLM "
      "never starts", script("vllm", "v-taskset-bad-cpus/start.sh")),
    v("v-make-model-unset", "`make serve` run without MODEL=: the recipe's `--model $(MODEL)` "
      "expands to nothing, so vLLM's --model takes no value",
      ["-c", WRAP, "/usr/bin/make", "-f", str(SCRIPTS / "v-make-model-unset/Makefile"), "serve",
       "PORT={port}"]),
    v("v-preflight-import", "start.sh (set -euo pipefail) runs a preflight check "
      "`import flash_attn` before the engine; the package is not installed here (a CPU host), "
      "the check fails and the script stops before vLLM starts",
      script("vllm", "v-preflight-import/start.sh")),
    v("v-trap-kill9-serving", "run.sh runs vLLM as a child without exec and traps SIGTERM with "
      "`kill -9` of the child; the script SIGTERMed while the server serves (a deployment "
      "stopping it): vLLM's API server is SIGKILLed, its engine core left",
      script("vllm", "v-trap-kill9-serving/run.sh"), act=serve_then_term_script),
    # --- SGLang ----------------------------------------------------------------------------------
    s("s-source-missing-env", "start.sh (set -euo pipefail) sources /etc/sglang/serve.env, which "
      "this node does not have: bash stops before it execs SGLang",
      script("sglang", "s-source-missing-env/start.sh")),
    s("s-tee-missing-dir", "start.sh pipes SGLang's output through `tee -a "
      "/var/log/sglang/server.log`, a folder that does not exist: tee says so and goes on "
      "copying to stdout; SGLang serves", script("sglang", "s-tee-missing-dir/start.sh"),
      act=serve_then_linger(8)),
    s("s-timeout-startup", "serve.sh runs SGLang under `timeout 20` (a startup budget), too "
      "short for this host's startup: timeout sends SIGTERM mid-startup (SGLang prints nothing "
      "on it) and the script reports status 124", script("sglang", "s-timeout-startup/serve.sh"),
      act=just_wait),
    s("s-launcher-restart-kill", "a Python launcher (subprocess) that restarts the engine once "
      "if it dies; SGLang's scheduler SIGKILLed while serving, the launcher starts SGLang again "
      "and the second startup serves",
      ["-c", WRAP, "PY", str(SCRIPTS / "v-launcher-restart-port/launcher.py"), "sglang",
       "{model}", "{port}"], act=kill_child_then_restart("sglang::scheduler")),
    s("s-health-wrong-path", "supervise.sh starts SGLang in the background and probes GET "
      "/healthz with curl (SGLang's endpoint is /health) every 3 s after 50 s; after 4 failures "
      "it SIGTERMs SGLang and exits 1, though SGLang was serving",
      script("sglang", "s-health-wrong-path/supervise.sh"), act=serve_then_linger(60)),
    s("s-env-i-system-python", "start.sh execs `env -i HOME=... python3 -m sglang.launch_server` "
      "for a clean environment: PATH is gone, so python3 is the system's (/usr/bin), which has no "
      "SGLang", script("sglang", "s-env-i-system-python/start.sh")),
    s("s-relative-model-wrong-cwd", "start.sh gives --model-path models/llama-tiny-v3, a path "
      "relative to the folder it was meant to run from, but runs from another working folder "
      "where it does not exist", script("sglang", "s-relative-model-wrong-cwd/start.sh")),
    s("s-pip-fails-then-start", "bootstrap.sh runs `pip install sglang-router==0.2.1` first "
      "(no package index reachable: it fails), warns and starts SGLang anyway, which serves",
      script("sglang", "s-pip-fails-then-start/bootstrap.sh"), act=serve_then_linger(8)),
    s("s-makefile-spaces", "deploy.sh runs `make serve`, whose Makefile's recipe is indented "
      "with spaces, not a tab: make stops at the Makefile and SGLang never starts",
      script("sglang", "s-makefile-spaces/deploy.sh")),
    s("s-post-step-unset", "run-sglang.sh (set -euo pipefail) runs SGLang without exec, then "
      "writes its exit status under ${STATUS_DIR}, never set; the server's port already taken "
      "by another listener, so SGLang fails and the script's post-step then stops on the unbound "
      "variable", script("sglang", "s-post-step-unset/run-sglang.sh"), before=take_port),
]
