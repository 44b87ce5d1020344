"""The hundred-and-fourth batch's scenarios (tests/fixtures/corpus/fresh103): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind104.py OUT

Themes: ordinary faults seen through the logging set-ups deployments use. The fault itself is a
common one (an engine process killed or stopped while serving or loading, a model path that is
not there, a flag value refused, the KV cache not fitting, the port taken); what changes is how
its output reaches the log. The engines' own logging set-ups, all valid: vLLM with a
VLLM_LOGGING_CONFIG_PATH whose formatter writes JSON lines, or ISO timestamps with no level
names; VLLM_LOGGING_LEVEL=WARNING or DEBUG; VLLM_LOGGING_PREFIX; SGLang's --log-level warning
or debug, --log-requests, and its SGLANG_LOGGING_CONFIG_PATH with a JSON-lines formatter;
FORCE_COLOR=1 with TQDM_DISABLE=1. And the output passed through a wrapper the way supervisors
and shippers do it: /tmp/blind104/wrap.py (WRAP_PY below, written when this table is loaded),
run with entry="python", starts the engine with its stdout and stderr on two pipes and rewrites
the lines by B104_WRAP's mode - `pod`: each line prefixed `[pod/NAME/engine] <RFC 3339 time>`
(kubectl logs --prefix --timestamps); `cri`: `<RFC 3339 time> stdout|stderr F <line>` (the
CRI log file a kubelet writes); `syslog`: `<6>` before each stdout line, `<3>` before each
stderr line (systemd's SyslogLevelPrefix form); `split`: stdout and stderr kept apart and written
one after the other (stdout first) when the engine exits; `buffered`: the lines passed on through
an 8 KiB block buffer never flushed, PYTHONUNBUFFERED removed from the engine's environment, so a
wrapper killed with the engine loses its last lines.

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm).
The acts find the server up by polling its HTTP port (GET /v1/models), not by a log line, since
a warning-level or buffered log may not show the line in time.

Recorded 2026-12-05 in two invocations, one per engine, each scenario once (about 16 minutes of
recording: vLLM 7m01s for 11 scenarios, SGLang 9m for 10); all 21 logs kept. What the engines
did here: with VLLM_LOGGING_CONFIG_PATH set, only vLLM's loggers go through the file's config -
uvicorn's lines (Application startup complete, access lines) vanish and no stats line comes, so
a served run shows no traffic; SGLANG_LOGGING_CONFIG_PATH leaves uvicorn's and the launcher's
first lines in SGLang's plain format. VLLM_LOGGING_LEVEL=WARNING hides every progress line (the
safetensors bar still prints); SGLang's --log-level warning hides even uvicorn's lines and the
ready line; --log-level debug adds urllib3's connection lines and one line per replaced module.
FORCE_COLOR=1 colours vLLM's lines (ANSI codes, carriage returns) but not SGLang's; TQDM_DISABLE=1
does not silence either engine's weight-loading bar. vLLM accepts --max-num-batched-tokens below
--max-model-len (chunked prefill) and serves. --kv-cache-memory-bytes 65536 fails in
_initialize_kv_caches with `No available memory for the cache blocks`. SGLang's
--max-total-tokens 16 starts, then its own warmup request is refused (input over 10 tokens) and
it exits on `Initialization failed. warmup error`. SGLang with its HTTP port taken logs uvicorn's
bind error, then its warmup thread polls the port (now the other listener's) without end. A
block-buffered shipper killed with the run kept only its first flushed blocks: vLLM's log ends in
the route list, SGLang's on its server_args line.
"""

from __future__ import annotations

import json
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
    child_signal_when,
    linger,
    missing_model,
    serve_then_kill_api_server,
    signal_quietly,
    take_port,
)

ROOT = Path("/tmp/blind104")
WRAP = ROOT / "wrap.py"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V = list(VLLM_BASE)
V_NOLEN = ["--dtype", "bfloat16", "--gpu-memory-utilization", "0.25"]
V_CMD = ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
         "127.0.0.1", "--port", "{port}"]
S_CMD = ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
         "--port", "{port}"]

WRAP_PY = r'''"""A log shipper's wrapper: runs argv[1:] and rewrites its output by B104_WRAP's mode."""
import os, subprocess, sys, threading, time

mode = os.environ.pop("B104_WRAP", "pod")
pod = os.environ.pop("B104_POD", "llm-serve-7f9c6d5b8-x2kq4")
env = dict(os.environ)
if mode == "buffered":
    env.pop("PYTHONUNBUFFERED", None)
p = subprocess.Popen([sys.executable] + sys.argv[1:], stdout=subprocess.PIPE,
                     stderr=subprocess.PIPE, env=env)
out = os.fdopen(1, "wb", buffering=8192 if mode == "buffered" else 0)
lock = threading.Lock()
kept = {"stdout": [], "stderr": []}


def stamp():
    ns = time.time_ns()
    return time.strftime("%Y-%m-%dT%H:%M:%S", time.gmtime(ns // 10**9)) + ".%09dZ" % (ns % 10**9)


def pump(pipe, name):
    for raw in iter(pipe.readline, b""):
        line = raw.rstrip(b"\n")
        if mode == "split":
            kept[name].append(raw if raw.endswith(b"\n") else raw + b"\n")
            continue
        if mode == "pod":
            line = b"[pod/%s/engine] %s %s" % (pod.encode(), stamp().encode(), line)
        elif mode == "cri":
            line = b"%s %s F %s" % (stamp().encode(), name.encode(), line)
        elif mode == "syslog":
            line = (b"<6>" if name == "stdout" else b"<3>") + line
        with lock:
            out.write(line + b"\n")


threads = [threading.Thread(target=pump, args=(p.stdout, "stdout")),
           threading.Thread(target=pump, args=(p.stderr, "stderr"))]
for t in threads:
    t.start()
for t in threads:
    t.join()
rc = p.wait()
if mode == "split":
    out.write(b"".join(kept["stdout"]) + b"".join(kept["stderr"]))
out.flush()
sys.exit(rc if rc >= 0 else 128 - rc)
'''

FMT_JSON = ('{"ts": "%(asctime)s", "level": "%(levelname)s", "logger": "%(name)s", '
            '"msg": "%(message)s"}')
FMT_ISO = "%(asctime)s %(name)s: %(message)s"


def log_config(name: str, fmt: str, datefmt: str | None, logger: str) -> Path:
    f = {"format": fmt}
    if datefmt:
        f["datefmt"] = datefmt
    cfg = {"version": 1, "disable_existing_loggers": False,
           "formatters": {"lines": f},
           "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "lines",
                                    "stream": "ext://sys.stdout", "level": "INFO"}},
           "loggers": {logger: {"handlers": ["console"], "level": "INFO",
                                "propagate": False}}}
    path = ROOT / f"{name}.json"
    path.write_text(json.dumps(cfg, indent=2))
    return path


ROOT.mkdir(parents=True, exist_ok=True)
WRAP.write_text(WRAP_PY)
V_JSON = log_config("vllm-json", FMT_JSON, None, "vllm")
V_ISO = log_config("vllm-iso", FMT_ISO, "%Y-%m-%dT%H:%M:%S%z", "vllm")
S_JSON = log_config("sglang-json", FMT_JSON, None, "sglang")


# --- acts ------------------------------------------------------------------------------------

def http_up(ctx: Ctx, timeout: float = 200) -> bool:
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


def serving_signal(child: str, sig: int, settle: float = 4, after_s: float = 20):
    """Up (by HTTP), two completions, then ``sig`` to the process named ``child``; one more
    request, then the run goes on ``after_s`` s or until it ends."""
    def act(ctx: Ctx) -> None:
        if not http_up(ctx):
            return
        time.sleep(settle)
        ctx.complete(2, max_tokens=12)
        for p in ctx.children(child)[-1:]:
            signal_quietly(p, sig)
        time.sleep(2)
        ctx.complete(1, max_tokens=8)
        linger(ctx, after_s)
    return act


def serving_stop(child: str, hang_s: float = 30):
    """Up (by HTTP), two completions, ``child`` stopped (SIGSTOP), a request left waiting
    ``hang_s`` s; the run is then killed with the stop still on."""
    def act(ctx: Ctx) -> None:
        if not http_up(ctx):
            return
        time.sleep(4)
        ctx.complete(2, max_tokens=12)
        for p in ctx.children(child):
            signal_quietly(p, signal.SIGSTOP)
        ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": "hang",
                                     "max_tokens": 8}, timeout=hang_s)
        time.sleep(3)
    return act


def until_end_or_serve(ctx: Ctx) -> None:
    """A launch expected to fail: wait for it to end; if it serves instead, two requests."""
    if http_up(ctx, 150):
        time.sleep(4)
        ctx.complete(2, max_tokens=12)
        linger(ctx, 8)


def v(name, what, args, env=None, act=until_end_or_serve, model=None, before=None,
      wrap=None) -> Scenario:
    if wrap:
        return Scenario(name, "vllm", what, [str(WRAP), *V_CMD, *args],
                        env={"B104_WRAP": wrap, **(env or {})}, act=act, model=model,
                        before=before, entry="python", wait_s=90.0)
    return Scenario(name, "vllm", what, args, env=env or {}, act=act, model=model,
                    before=before, wait_s=90.0)


def s(name, what, args, env=None, act=until_end_or_serve, model=None, before=None,
      wrap=None) -> Scenario:
    if wrap:
        return Scenario(name, "sglang", what, [str(WRAP), *S_CMD, *SG, *args],
                        env={"B104_WRAP": wrap, **(env or {})}, act=act, model=model,
                        before=before, entry="python", wait_s=90.0)
    return Scenario(name, "sglang", what, [*SG, *args], env=env or {}, act=act, model=model,
                    before=before, wait_s=90.0)


SCENARIOS = [
    # --- vLLM ------------------------------------------------------------------------------------
    v("v-jsonlog-kill-core-serving", "VLLM_LOGGING_CONFIG_PATH naming a valid config whose "
      "formatter writes JSON lines; the EngineCore process SIGKILLed while serving", V,
      env={"VLLM_LOGGING_CONFIG_PATH": str(V_JSON)},
      act=serving_signal("EngineCore", signal.SIGKILL)),
    v("v-isolog-port-taken", "VLLM_LOGGING_CONFIG_PATH naming a valid config whose format has "
      "ISO 8601 timestamps and no level names; the server's port already taken by another "
      "listener", V, env={"VLLM_LOGGING_CONFIG_PATH": str(V_ISO)}, before=take_port),
    v("v-prefix-model-missing", "VLLM_LOGGING_PREFIX='[gpu-node-17] ' (a deployment's node "
      "prefix); the model path does not exist", V,
      env={"VLLM_LOGGING_PREFIX": "[gpu-node-17] "}, model=missing_model),
    v("v-warnlevel-kv-too-small", "VLLM_LOGGING_LEVEL=WARNING; --max-model-len 2048 with "
      "--kv-cache-memory-bytes 65536 (a KV cache too small for one request of that length)",
      ["--max-model-len", "2048", *V_NOLEN, "--kv-cache-memory-bytes", "65536"],
      env={"VLLM_LOGGING_LEVEL": "WARNING"}),
    v("v-debuglevel-max-len-over", "VLLM_LOGGING_LEVEL=DEBUG; --max-model-len 100000, over the "
      "model's 2048 positions", ["--max-model-len", "100000", *V_NOLEN],
      env={"VLLM_LOGGING_LEVEL": "DEBUG"}),
    v("v-pod-wrap-kill-worker", "output through a wrapper prefixing each line with the pod name "
      "and an RFC 3339 timestamp (kubectl logs --prefix --timestamps); the worker process "
      "SIGKILLed while serving", V, act=serving_signal("Worker", signal.SIGKILL), wrap="pod"),
    v("v-cri-wrap-segv-core", "output through a wrapper writing the CRI log format "
      "(`<time> stdout F <line>`); the EngineCore process sent SIGSEGV while serving", V,
      act=serving_signal("EngineCore", signal.SIGSEGV), wrap="cri"),
    v("v-syslog-wrap-batched-tokens", "output through a wrapper putting syslog priorities "
      "before each line (<6> stdout, <3> stderr); --max-num-batched-tokens 64 below "
      "--max-model-len 256", [*V, "--max-num-batched-tokens", "64"], wrap="syslog"),
    v("v-split-wrap-kill-core-load", "output through a wrapper that keeps stdout and stderr "
      "apart and writes them one after the other when the engine exits; the EngineCore process "
      "SIGKILLed 15 s after it starts (VLLM_CACHE_ROOT a fresh folder)", V,
      env={"VLLM_CACHE_ROOT": str(ROOT / "vc-split")},
      act=child_signal_when("EngineCore", None, signal.SIGKILL, 15.0, 60), wrap="split"),
    v("v-buffered-wrap-worker-stopped", "output through a block-buffered wrapper "
      "(PYTHONUNBUFFERED unset, 8 KiB buffer never flushed); the worker SIGSTOPped with a "
      "request in flight, then the run killed (the wrapper's last lines never come)", V,
      act=serving_stop("Worker"), wrap="buffered"),
    v("v-color-notqdm-kill-apiserver", "FORCE_COLOR=1 and TQDM_DISABLE=1 (a CI runner's "
      "environment); the API server process SIGKILLed while serving, its EngineCore left", V,
      env={"FORCE_COLOR": "1", "TQDM_DISABLE": "1"}, act=serve_then_kill_api_server),
    # --- SGLang ----------------------------------------------------------------------------------
    s("s-warnlevel-kill-scheduler-serving", "--log-level warning; the scheduler process "
      "SIGKILLed while serving", ["--log-level", "warning"],
      act=serving_signal("sglang::scheduler", signal.SIGKILL)),
    s("s-debuglevel-port-taken", "--log-level debug; the server's port already taken by "
      "another listener", ["--log-level", "debug"], before=take_port),
    s("s-logreq-scheduler-stopped", "--log-requests; the scheduler SIGSTOPped with a request in "
      "flight (the run hangs), then killed", ["--log-requests"],
      act=serving_stop("sglang::scheduler")),
    s("s-jsonlog-segv-scheduler", "SGLANG_LOGGING_CONFIG_PATH naming a valid config whose "
      "formatter writes JSON lines; the scheduler process sent SIGSEGV while serving", [],
      env={"SGLANG_LOGGING_CONFIG_PATH": str(S_JSON)},
      act=serving_signal("sglang::scheduler", signal.SIGSEGV)),
    s("s-pod-wrap-model-missing", "output through a wrapper prefixing each line with the pod "
      "name and an RFC 3339 timestamp (kubectl logs --prefix --timestamps); the model path "
      "does not exist", [], model=missing_model, wrap="pod"),
    s("s-cri-wrap-max-total-tokens", "output through a wrapper writing the CRI log format "
      "(`<time> stderr F <line>`); --max-total-tokens 16 (a KV pool of 16 tokens for a "
      "2048-token context)", ["--max-total-tokens", "16"], wrap="cri"),
    s("s-syslog-wrap-kill-detokenizer", "output through a wrapper putting syslog priorities "
      "before each line (<6> stdout, <3> stderr); the detokenizer process SIGKILLed while "
      "serving", [], act=serving_signal("sglang::detokenizer", signal.SIGKILL), wrap="syslog"),
    s("s-split-wrap-context-over", "output through a wrapper that keeps stdout and stderr apart "
      "and writes them one after the other when the engine exits; --context-length 100000, over "
      "the model's 2048 positions", ["--context-length", "100000"], wrap="split"),
    s("s-color-notqdm-kill-scheduler-load", "FORCE_COLOR=1 and TQDM_DISABLE=1 (a CI runner's "
      "environment); the scheduler process SIGKILLed as the weights start loading", [],
      env={"FORCE_COLOR": "1", "TQDM_DISABLE": "1"},
      act=child_signal_when("sglang::scheduler", ["Load weight begin"], signal.SIGKILL, 0.5,
                            60)),
    s("s-buffered-wrap-detok-stopped", "output through a block-buffered wrapper "
      "(PYTHONUNBUFFERED unset, 8 KiB buffer never flushed); the detokenizer SIGSTOPped with a "
      "request in flight, then the run killed (the wrapper's last lines never come)", [],
      act=serving_stop("sglang::detokenizer"), wrap="buffered"),
]
