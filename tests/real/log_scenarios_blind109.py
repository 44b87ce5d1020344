"""The hundred-and-ninth batch's scenarios (tests/fixtures/corpus/fresh108): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind109.py OUT

Themes: runs that stop making progress without dying - stalls a person must tell apart from a
slow load, at phases and in processes not used before - with the 106th batch's scenarios it
never recorded taken up again. An engine process stopped (SIGSTOP) and left stopped: vLLM's
engine core once the weights are loaded (the worker then profiling and sizing the KV cache) and
with a streamed request in flight; SGLang's scheduler as it begins loading the weights, its
detokenizer once uvicorn is up (its own warmup request in flight), and its launcher (HTTP server
and tokenizer manager) with a long request in flight. A file the engine reads replaced by a named
pipe nobody writes to (the read blocks, as on a stalled network mount): the chat template a
flag names (both engines), vLLM's config.json and a safetensors shard, SGLang's last shard and
its generation_config.json. A file system frozen (fsfreeze) under vLLM's compile cache root as
the weights start loading (a later phase than the 100th batch's freeze before launch). A
rendezvous whose master address accepts and never answers: vLLM node 1 of 2 (headless, tensor
parallel 2) and SGLang node 1 of 2. An engine whose stdout is a 4 KiB pipe its wrapper never
reads (/tmp/blind109/unread.py). A request whose generation runs long (max_tokens near the
context, ignore_eos), the server then SIGTERMed while it runs.

vLLM runs with VLLM_BASE's settings (a longer --max-model-len where the scenario says); SGLang
with --device cpu --model-impl transformers, with which it serves here.

Recorded 2026-12-06 in six invocations, alternating with the 108th batch's recorder (about 18
minutes of recording: vLLM 235 + 252 + 124 s, SGLang 225 + 205 + 43 s); 15 logs kept. Dropped:
s-stop-scheduler-load (SGLang loads the tiny model in 0.03 s, so the stop landed after `Load
weight end` and the log is fresh105/ck105's); the first take of s-endless-gen-sigterm (SIGTERM 9 s
in came after the 2000 tokens were done, at 250 tokens/s: re-recorded with 4 s). Not recorded (no
time): s-stdout-unread; s-genconf-fifo was taken out of the table. What the engines did: a named
pipe is not a stall wherever the reader checks for a regular file first - vLLM takes a FIFO
config.json for a missing one (`Invalid repository ID or local directory`), SGLang a FIFO shard
for a missing one (`references 1 shard file(s) missing ... (incomplete download?)`) - but vLLM
opens a FIFO shard (its loader's bar stays at 0/4) and both engines open a FIFO --chat-template
(vLLM's API server blocks after `init engine ... took` and `Scale-out endpoints are disabled`;
SGLang's launcher after `Loading chat template from argument`, its scheduler going on to
allocate the KV cache). vLLM's stopped engine core leaves the worker logging alone up to its KV
cache sizing; with a stream in flight the API server logs two stats lines (0 running) and goes
quiet. A frozen VLLM_CACHE_ROOT blocks the worker at `Warming up model for the compilation...`.
Neither engine's rendezvous against a silent master timed out within 80 s (SGLang's
--dist-timeout 45 did not fire). vLLM with an unread stdout pipe shows only its stderr lines. A
stopped SGLang launcher with a stream in flight leaves no `Decode batch` line after the prefill;
a group SIGTERM makes SGLang's launcher report its detokenizer `crashed with exit code -15`.
"""

from __future__ import annotations

import os
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    linger,
    signal_quietly,
)

ROOT = Path("/tmp/blind109")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
V_READY = "Application startup complete"

# A wrapper that runs the engine with its stdout on a 4 KiB pipe it never reads (stderr stays on
# the log). argv: the engine's argv, PY standing for the interpreter the wrapper runs on.
UNREAD = ROOT / "unread.py"
UNREAD.write_text('''"""unread.py - runs a command with stdout on a pipe nobody reads."""
import fcntl, os, subprocess, sys
r, w = os.pipe()
fcntl.fcntl(w, 1031, 4096)          # F_SETPIPE_SZ: one page
cmd = [sys.executable if a == "PY" else a for a in sys.argv[1:]]
p = subprocess.Popen(cmd, stdout=w)
os.close(w)
sys.exit(p.wait())                  # r stays open, never read
''')

# vLLM's node 1, run headless (what `vllm serve --headless` does; the serve CLI fails here).
HEADLESS = ROOT / "headless.py"
HEADLESS.write_text('''import sys
from vllm.entrypoints.serve.utils.api_utils import cli_env_setup
from vllm.utils.argparse_utils import FlexibleArgumentParser
from vllm.entrypoints.launchers.cli_args import make_arg_parser
from vllm.entrypoints.cli.serve import run_headless
if __name__ == "__main__":          # workers are spawned: the main module is re-imported
    cli_env_setup()
    args = make_arg_parser(FlexibleArgumentParser()).parse_args()
    if args.api_server_count is None:
        args.api_server_count = 0
    run_headless(args)
''')

CHAT_FIFO = ROOT / "chat-fifo.jinja"
FS_IMG = ROOT / "cachefs.img"
FS_DIR = ROOT / "cachefs"


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


SILENT_PORT = free_port()


def body(ctx: Ctx) -> str:
    """The log after its header (the header quotes the scenario's description)."""
    return ctx.text().split("\n\n", 1)[-1]


def wait_body(ctx: Ctx, needles: list[str], timeout: float = 240) -> str | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = body(ctx)
        found = next((n for n in needles if n in text), None)
        if found is not None:
            return found
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return next((n for n in needles if n in body(ctx)), None)
        time.sleep(0.2)
    return None


def stop_when(child: str | None, needles: list[str], after_s: float,
              delay: float = 0.0) -> Callable[[Ctx], None]:
    """SIGSTOP to the run's process(es) named ``child`` (None: the launched process) once one
    of ``needles`` is in the log; then ``after_s`` s more."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if wait_body(ctx, needles) is None:
            return
        time.sleep(delay)
        targets = [ctx.proc] if child is None else ctx.children(child)
        for p in targets:
            signal_quietly(p, signal.SIGSTOP)
        linger(ctx, after_s)
    return act


def fifo_model(name: str, file: str, last_shard: bool = False) -> Callable[[Path], Path]:
    """A copy of the tiny model whose ``file`` (or last safetensors shard) is a named pipe."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        f = sorted(d.glob("model-*.safetensors"))[-1] if last_shard else d / file
        f.unlink()
        os.mkfifo(f)
        return d
    return make


def chat_fifo(ctx: Ctx) -> None:
    if CHAT_FIFO.exists():
        CHAT_FIFO.unlink()
    os.mkfifo(CHAT_FIFO)


def silent_listener(ctx: Ctx) -> None:
    """A listener on the rendezvous port that accepts and never answers."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", SILENT_PORT))
    s.listen(16)
    ctx.keep.append(s)
    held: list[socket.socket] = []

    def accept() -> None:
        while True:
            try:
                c, _ = s.accept()
            except OSError:
                return
            held.append(c)
    threading.Thread(target=accept, daemon=True).start()


def mount_cachefs(ctx: Ctx) -> None:
    """A fresh 256 MiB ext4 on a loop device at /tmp/blind109/cachefs (vLLM's cache root)."""
    subprocess.run(["umount", str(FS_DIR)], capture_output=True)
    FS_DIR.mkdir(exist_ok=True)
    subprocess.run(["truncate", "-s", "256M", str(FS_IMG)], check=True)
    subprocess.run(["mkfs.ext4", "-q", "-F", str(FS_IMG)], check=True)
    subprocess.run(["mount", "-o", "loop", str(FS_IMG), str(FS_DIR)], check=True)
    (FS_DIR / "vcache").mkdir()


def freeze_when(needles: list[str], after_s: float) -> Callable[[Ctx], None]:
    """fsfreeze -f the cache file system once a needle is logged; thawed after ``after_s`` s
    (before the recorder kills the run, so that the kill lands)."""
    def act(ctx: Ctx) -> None:
        if wait_body(ctx, needles) is None:
            return
        subprocess.run(["fsfreeze", "-f", str(FS_DIR)], check=True)
        try:
            linger(ctx, after_s)
        finally:
            subprocess.run(["fsfreeze", "-u", str(FS_DIR)])
    return act


def endless_then_term(engine: str, delay: float = 9.0) -> Callable[[Ctx], None]:
    """Ready, one short completion, then a request for ~2000 tokens with ignore_eos; ``delay`` s
    into it, SIGTERM to the server's process group."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if wait_body(ctx, [SG_READY if engine == "sglang" else V_READY], 240) is None:
            return
        ctx.complete(1, max_tokens=8)
        if engine == "sglang":
            path, req = "/generate", {"text": "the quick brown fox",
                                      "sampling_params": {"max_new_tokens": 2000,
                                                          "ignore_eos": True}}
        else:
            path, req = "/v1/completions", {"model": ctx.model_name(),
                                            "prompt": "the quick brown fox",
                                            "max_tokens": 2000, "ignore_eos": True}
        threading.Thread(target=ctx.post, args=(path, req, 120), daemon=True).start()
        time.sleep(delay)
        os.killpg(ctx.proc.pid, signal.SIGTERM)
        linger(ctx, 30)
    return act


def inflight_then_stop(engine: str, child: str | None) -> Callable[[Ctx], None]:
    """Ready, one short completion, then a long request (1500 tokens, ignore_eos); 4 s into it,
    SIGSTOP to ``child`` (None: the launched process); left 40 s."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if wait_body(ctx, [SG_READY if engine == "sglang" else V_READY], 240) is None:
            return
        ctx.complete(1, max_tokens=8)
        if engine == "sglang":
            path, req = "/generate", {"text": "the quick brown fox", "stream": True,
                                      "sampling_params": {"max_new_tokens": 1500,
                                                          "ignore_eos": True}}
        else:
            path, req = "/v1/completions", {"model": ctx.model_name(), "stream": True,
                                            "prompt": "the quick brown fox",
                                            "max_tokens": 1500, "ignore_eos": True}
        threading.Thread(target=ctx.post, args=(path, req, 60), daemon=True).start()
        time.sleep(4)
        targets = [ctx.proc] if child is None else ctx.children(child)
        for p in targets:
            signal_quietly(p, signal.SIGSTOP)
        linger(ctx, 40)
    return act


def flood_then_hang(ctx: Ctx) -> None:
    """Ready, then many cheap requests (each one an access line on stdout), a completion, and a
    pause."""
    if wait_body(ctx, [SG_READY], 240) is None:
        return
    import urllib.request
    for _ in range(90):
        try:
            urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}/v1/models", timeout=4).read()
        except OSError:
            break
    ctx.post("/v1/completions", {"model": "default", "prompt": "fox", "max_tokens": 8},
             timeout=20)
    linger(ctx, 20)


def stdout_unread_v(ctx: Ctx) -> None:
    """vLLM under unread.py: let it go 70 s (it serves, or stalls), then a request."""
    if wait_body(ctx, [V_READY], 70) is not None:
        ctx.complete(1)
    linger(ctx, 10)


def v(name: str, what: str, args: list[str], **kw: object) -> Scenario:
    return Scenario(name, "vllm", what, args, **kw)   # type: ignore[arg-type]


def s(name: str, what: str, args: list[str], **kw: object) -> Scenario:
    return Scenario(name, "sglang", what, args, **kw)   # type: ignore[arg-type]


def long_len(base: list[str]) -> list[str]:
    out = list(base)
    out[out.index("--max-model-len") + 1] = "2048"
    return out


SCENARIOS = [
    # --- vLLM ----------------------------------------------------------------------------------
    v("v-stop-core-after-load", "the EngineCore process SIGSTOPped 1 s after the worker logs "
      "`Loading weights took` (the worker goes on to profile and size the KV cache); left "
      "stopped 45 s, then killed", VLLM_BASE,
      act=stop_when("EngineCore", ["Loading weights took"], 45, delay=1.0)),
    v("v-stop-core-streaming", "--max-model-len 2048; served, then a streamed completion for "
      "1500 tokens with ignore_eos, and 4 s into it the EngineCore process SIGSTOPped; left "
      "stopped 40 s, then killed", long_len(VLLM_BASE),
      act=inflight_then_stop("vllm", "EngineCore")),
    v("v-chat-template-fifo", "--chat-template naming a named pipe nobody writes to (a template "
      "on a stalled network mount); left 75 s",
      [*VLLM_BASE, "--chat-template", str(CHAT_FIFO)], before=chat_fifo, wait_s=75),
    v("v-config-fifo", "the model's config.json replaced by a named pipe nobody writes to (a "
      "file on a stalled network mount); left 60 s", VLLM_BASE,
      model=fifo_model("config-fifo", "config.json"), wait_s=60),
    v("v-shard-fifo", "the model's last safetensors shard replaced by a named pipe nobody "
      "writes to (a file on a stalled network mount); left 75 s", VLLM_BASE,
      model=fifo_model("shard-fifo", "", last_shard=True), wait_s=75),
    v("v-cache-frozen-at-load", "VLLM_CACHE_ROOT on a fresh ext4 (loop device) frozen with "
      "fsfreeze -f as the worker logs that it starts loading the model; left frozen 60 s, then "
      "thawed and the run killed", VLLM_BASE, env={"VLLM_CACHE_ROOT": str(FS_DIR / "vcache")},
      before=mount_cachefs, act=freeze_when(["Starting to load model"], 60)),
    v("v-node1-silent-master", "node 1 of 2 (headless, --nnodes 2 --node-rank 1, tensor "
      "parallel 2) whose --master-addr:--master-port is a listener that accepts connections "
      "and never answers; left 80 s",
      [str(HEADLESS), "--model", "{model}", "--headless", "--port", "{port}", *VLLM_BASE,
       "--tensor-parallel-size", "2", "--nnodes", "2", "--node-rank", "1", "--master-addr",
       "127.0.0.1", "--master-port", str(SILENT_PORT)], entry="python",
      env={"VLLM_CPU_OMP_THREADS_BIND": "1"}, before=silent_listener, wait_s=80),
    v("v-endless-gen-sigterm", "--max-model-len 2048; a completion for 2000 tokens with "
      "ignore_eos sent, and 9 s into it (still generating) the server SIGTERMed",
      long_len(VLLM_BASE), act=endless_then_term("vllm")),
    v("v-stdout-unread", "run by a wrapper (unread.py) that gives the server a 4 KiB stdout pipe "
      "and never reads it (stderr still on the log); vLLM logs to stdout",
      [str(UNREAD), "PY", "-m", "vllm.entrypoints.openai.api_server", "--model",
       "{model}", "--host", "127.0.0.1", "--port", "{port}", *VLLM_BASE],
      entry="python", act=stdout_unread_v),
    # --- SGLang --------------------------------------------------------------------------------
    s("s-stop-scheduler-load", "the scheduler process SIGSTOPped as it logs that weight loading "
      "begins; left stopped 45 s, then killed", SG,
      act=stop_when("sglang::scheduler", ["Load weight begin"], 45)),
    s("s-stop-detokenizer-warmup", "the detokenizer process SIGSTOPped as uvicorn says it is "
      "running (SGLang's own warmup request about to be sent); left stopped 45 s, then killed",
      SG, act=stop_when("sglang::detokenizer", ["Uvicorn running on"], 45)),
    s("s-stop-launcher-inflight", "served, then a streamed /generate for 1500 tokens with "
      "ignore_eos, and 4 s into it the launcher process (HTTP server and tokenizer manager) "
      "SIGSTOPped; left stopped 40 s, then killed", SG, act=inflight_then_stop("sglang", None)),
    s("s-chat-template-fifo", "--chat-template naming a named pipe nobody writes to (a template "
      "on a stalled network mount); left 55 s", [*SG, "--chat-template", str(CHAT_FIFO)],
      before=chat_fifo, wait_s=55),
    s("s-shard-fifo", "the model's last safetensors shard replaced by a named pipe nobody writes "
      "to (a file on a stalled network mount); left 55 s", SG,
      model=fifo_model("shard-fifo", "", last_shard=True), wait_s=55),
    s("s-node1-silent-master", "node 1 of 2 (--tp 2 --nnodes 2 --node-rank 1, "
      "--dist-timeout 45) whose --dist-init-addr is a listener that accepts connections and "
      "never answers; left 80 s",
      [*SG, "--tp", "2", "--nnodes", "2", "--node-rank", "1", "--dist-init-addr",
       f"127.0.0.1:{SILENT_PORT}", "--dist-timeout", "45"],
      env={"SGLANG_CPU_OMP_THREADS_BIND": "0|1"}, before=silent_listener, wait_s=80),
    s("s-stdout-unread", "run by a wrapper (unread.py) that gives the server a 4 KiB stdout pipe "
      "and never reads it (stderr still on the log); served, then 90 quick GET /v1/models "
      "(uvicorn's access lines go to stdout) and a completion",
      [str(UNREAD), "PY", "-m", "sglang.launch_server", "--model-path", "{model}",
       "--host", "127.0.0.1", "--port", "{port}", *SG],
      entry="python", act=flood_then_hang),
    s("s-endless-gen-sigterm", "a /generate request for 2000 new tokens with ignore_eos sent, "
      "and 4 s into it (still generating) the server SIGTERMed", SG,
      act=endless_then_term("sglang", 4.0)),
]
