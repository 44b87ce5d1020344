"""The hundred-and-eighty-fifth batch's scenarios (tests/fixtures/corpus/fresh184): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind185.py OUT

Themes: the engine's standard streams as service managers, wrappers and shells leave them - what
a person meets when the server's output goes somewhere odd. vLLM logs to stdout (its
VLLM_LOGGING_STREAM default) and leaves tracebacks, warnings and progress bars on stderr; SGLang
logs to stderr and leaves only uvicorn's access lines on stdout. So each scenario spoils the
stream the recorded log does not get, or passes the other one on through a pipe that goes bad:
vLLM with stderr closed (`2>&-`) or on /dev/full (`2>/dev/full`), stdout recorded; vLLM with
stdout in a one-page pipe whose reader stops reading once the server is up (a frozen log
shipper), stderr recorded, then a stream of small requests; vLLM under `... 2>&1 | tee FILE`
whose FILE is in a folder that does not exist; SGLang with stdout (the access log) or stderr (its
own log) in a one-page pipe whose reader stops reading once it is up, the other stream recorded,
then a stream of small requests; SGLang with stderr in a pipe whose reader exits once the server
is up (every later log write meets EPIPE), stdout recorded.

Earlier batches already had (not repeated): a log shipper (tee) on vLLM's stdout SIGKILLed
while serving, a one-page log pipe frozen while vLLM loads, stdout closed (both engines), stdout
on /dev/full and stdin closed (SGLang) (93rd); a wrapper's block buffer never flushed with
PYTHONUNBUFFERED removed (104th); an offline script piped into `head -n 3` (127th); a launcher
through `sh -c '... | tee -a FILE'` in a restart loop (135th).

Each scenario runs entry="python": the engine's interpreter on /tmp/blind185/wrap.py (written
when this table is loaded), which sets SIGINT, SIGQUIT and SIGPIPE back to their defaults (as a
shell launching it would have them), sets the streams up by its first argument and execs the
engine (the pipe modes fork a reader that copies the pipe onto the recorded log, and stops
reading, or exits, when the scenario's act creates a flag file once the server answers on its
port). The acts find the server up by polling its HTTP port, not by a log line, since the
ready line may be on the stream that is spoiled. SGLang runs with --device cpu --model-impl
transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in two invocations (raw1: the table's first seven scenarios in order, with
SGLang's stderr on /dev/full among them; raw2: s-stderr-pipe-stalls-serving, added when that one
showed nothing), taking turns with two other helpers' recorders; each scenario once. About 8
minutes of recording (vLLM 47+27+80+53 s, SGLang 33+98+94+57 s). 7 kept (final files
fl101-fl107). Dropped, and removed from the table: s-stderr-dev-full (SGLang with stderr on
/dev/full and stdout recorded: the file holds nothing but its header - SGLang writes every line
of its own, uvicorn's startup lines and any traceback to stderr; the run ended by itself within
33 s, before it answered on its port, and the log cannot show why: nothing of its fault shows).

What the engines did. vLLM: with stderr closed it serves normally; the file lacks only what vLLM
leaves on stderr - warnings, the shard-loading progress bar and uvicorn's `Started server
process` / `Application startup complete` - so the log has traffic and no ready line (ready in
serving). With stderr on /dev/full the worker dies loading weights: tqdm's progress-bar write
raises `OSError: [Errno 28] No space left on device` inside `safetensors_weights_iterator`
(`WorkerProc failed to start`, then `EngineCore failed to start` ... `WorkerProc initialization
failed`; the API server's own last error is lost with stderr): crashed in weight_loading. With
stdout in a frozen one-page pipe once up, the log ends on the probe's access line: the requests
that followed hung (the run took 80 s, two 15 s timeouts) and the file shows no line of them
(ready). Under `| tee` into a missing folder the log's first line is `tee: ...: No such file or
directory` and the server serves through tee's stdout. SGLang: its uvicorn access lines go to
stdout (in SGLang's own `[time]` format), everything else to stderr. A frozen stdout pipe lets the
scheduler log 50 `Prefill batch` lines with no access lines, then the API process blocks and the
log falls silent; a frozen stderr pipe leaves 20 access lines (`POST /generate 200`) after the
ready line and no batch lines, the scheduler blocked on its log write - both ready in serving,
the stall only in also. With stderr's reader gone SGLang serves on, its own log silent (no
`--- Logging error ---`, no BrokenPipeError: that report goes to the same broken stream), only
the access lines on stdout showing traffic.
"""

from __future__ import annotations

import json
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind185")
WRAP = ROOT / "wrap.py"
FLAGS = ROOT / "flags"

WRAPPER = r'''"""Set the engine's standard streams up as a wrapper would, then exec it."""
import fcntl
import os
import select
import signal
import sys
import time

for s in (signal.SIGINT, signal.SIGQUIT, signal.SIGPIPE):
    signal.signal(s, signal.SIG_DFL)
mode, flag, sep, *argv = sys.argv[1:]
assert sep == "--"
eng = [sys.executable, *argv]


def reader(r, stop_mode):
    """Copy the pipe onto the recorded log (fd 1) until the flag file appears; then stop
    reading and hold the pipe open (stall) or exit (gone)."""
    while True:
        if os.path.exists(flag):
            break
        ready, _, _ = select.select([r], [], [], 0.3)
        if ready:
            data = os.read(r, 65536)
            if not data:
                os._exit(0)
            os.write(1, data)
    if stop_mode == "gone":
        os._exit(0)
    while True:
        time.sleep(3600)


if mode == "stderr-closed":
    os.close(2)
elif mode == "stderr-full":
    fd = os.open("/dev/full", os.O_WRONLY)
    os.dup2(fd, 2)
    os.close(fd)
elif mode in ("stdout-stall", "stderr-stall", "stderr-gone"):
    target = 1 if mode.startswith("stdout") else 2
    r, w = os.pipe()
    fcntl.fcntl(w, 1031, 4096)          # F_SETPIPE_SZ: one page
    if os.fork() == 0:
        os.close(w)
        reader(r, mode.split("-")[1])
    os.close(r)
    os.dup2(w, target)
    os.close(w)
elif mode == "tee-missing":
    os.execv("/bin/bash", ["bash", "-c", '"$@" 2>&1 | tee ' + flag, "bash", *eng])
os.execv(eng[0], eng)
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    FLAGS.mkdir(parents=True, exist_ok=True)
    WRAP.write_text(WRAPPER)


_setup()


def flag_of(name: str) -> Path:
    return FLAGS / name


def clear_flag(name: str):
    def before(ctx: Ctx) -> None:
        flag_of(name).unlink(missing_ok=True)
    return before


def answers(ctx: Ctx, timeout: float = 240) -> bool:
    """The server answers GET /v1/models within ``timeout`` s (False: it did not, or ended)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return False
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}/v1/models", timeout=5):
                return True
        except (OSError, ValueError):
            time.sleep(1)
    return False


def post_ok(ctx: Ctx, path: str, body: dict, timeout: float) -> bool:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
        return True
    except urllib.error.HTTPError:
        return True
    except (OSError, TimeoutError):
        return False


def serve_then(flag: str | None, stream: int = 0, sglang: bool = False):
    """Up (by its port), then: the flag file made (the reader stops or exits) if any; then
    three completions, or a stream of up to ``stream`` one-token requests that stops after
    two in a row time out (15 s each); a pause."""
    def act(ctx: Ctx) -> None:
        if not answers(ctx):
            linger(ctx, 20)
            return
        time.sleep(8 if sglang else 3)
        if flag:
            flag_of(flag).touch()
            time.sleep(1)
        name = ctx.model_name()
        if stream:
            missed = 0
            for i in range(stream):
                if sglang:
                    ok = post_ok(ctx, "/generate", {"text": f"fox {i}", "sampling_params":
                                                    {"max_new_tokens": 1}}, 15)
                else:
                    ok = post_ok(ctx, "/v1/completions", {"model": name, "prompt": f"fox {i}",
                                                          "max_tokens": 1}, 15)
                missed = 0 if ok else missed + 1
                if missed >= 2:
                    break
        else:
            ctx.complete(3, max_tokens=16)
        linger(ctx, 12)
    return act


def server_v() -> list[str]:
    return ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", *VLLM_BASE]


def server_s() -> list[str]:
    return ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
            "--port", "{port}", "--device", "cpu", "--model-impl", "transformers"]


def v(name: str, what: str, mode: str, stream: int = 0, flag: str | None = None) -> Scenario:
    return Scenario(name, "vllm", what, [str(WRAP), mode, flag or str(flag_of(name)), "--",
                                         *server_v()],
                    before=clear_flag(name), act=serve_then(
                        name if mode.endswith(("stall", "gone")) else None, stream),
                    entry="python", wait_s=240)


def s(name: str, what: str, mode: str, stream: int = 0) -> Scenario:
    return Scenario(name, "sglang", what, [str(WRAP), mode, str(flag_of(name)), "--",
                                           *server_s()],
                    before=clear_flag(name), act=serve_then(
                        name if mode.endswith(("stall", "gone")) else None, stream, sglang=True),
                    entry="python", wait_s=240)


SCENARIOS = [
    v("v-stderr-closed", "started with stderr closed (`2>&-` in an init script); stdout, where "
      "vLLM logs, on the file; three completions if it serves", "stderr-closed"),
    v("v-stderr-dev-full", "stderr on a full filesystem (`2>/dev/full`: every write ENOSPC); "
      "stdout, where vLLM logs, on the file; three completions if it serves", "stderr-full"),
    v("v-stdout-pipe-stalls-serving", "stdout (vLLM's log) in a one-page pipe to a log shipper "
      "that stops reading once the server answers on its port; stderr on the file; then up to "
      "120 one-token completions, 15 s each, until two in a row time out", "stdout-stall",
      stream=120),
    v("v-tee-log-dir-missing", "run as `vllm ... 2>&1 | tee /var/log/vllm-b185/server.log`, "
      "the folder /var/log/vllm-b185 missing; tee's stdout on the file; three completions",
      "tee-missing", flag="/var/log/vllm-b185/server.log"),
    s("s-stdout-pipe-stalls-serving", "--model-impl transformers; stdout (uvicorn's access "
      "log) in a one-page pipe to a log shipper that stops reading once the server answers on "
      "its port; stderr on the file; then up to 150 one-token /generate requests, 15 s each, "
      "until two in a row time out", "stdout-stall", stream=150),
    s("s-stderr-pipe-stalls-serving", "--model-impl transformers; stderr, where SGLang logs, "
      "in a one-page pipe to a log shipper that stops reading once the server answers on its "
      "port; stdout (uvicorn's access log) on the file; then up to 150 one-token /generate "
      "requests, 15 s each, until two in a row time out", "stderr-stall", stream=150),
    s("s-stderr-reader-exits", "--model-impl transformers; stderr, where SGLang logs, in a "
      "pipe to a log shipper that exits once the server answers on its port (the next log "
      "write meets EPIPE); stdout on the file; three completions", "stderr-gone"),
]
