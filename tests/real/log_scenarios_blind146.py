"""The hundred-and-forty-sixth batch's scenarios (tests/fixtures/corpus/fresh145): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind146.py OUT

Themes: disk space in the places the engines write while they start and serve. Each fault is a
small tmpfs mounted under /tmp/blind146/fs/NAME when the scenario starts (1-4 MiB), either
filled to the last byte before the launch or filled by a writer beside the engine (this table's
own process, writing one file until ENOSPC, then smaller and smaller pieces) once the server is
up; a lazy unmount ends each scenario. The places: HOME (every cache under it; vLLM);
VLLM_CACHE_ROOT with --enforce-eager (vLLM); the Prometheus multiprocess folder
(PROMETHEUS_MULTIPROC_DIR, where prometheus_client keeps its memory-mapped value files; SGLang
--enable-metrics, full at launch and filled while serving; vLLM full at launch); a vLLM logging
config whose FileHandler writes to a full disk from the launch on; Outlines' disk cache
(OUTLINES_CACHE_DIR, SGLang --grammar-backend outlines); SGLang's per-request metrics export
folder (--export-metrics-to-file-dir).

Earlier batches already had (not repeated): VLLM_CACHE_ROOT and TORCHINDUCTOR_CACHE_DIR on a
2 MiB tmpfs with 64 KiB free (69th), TMPDIR full (89th, both engines), a logging FileHandler on a
tmpfs filled once the server was up and the torch profiler's folder a 128 KiB tmpfs (113th, both
engines), stdout on a full disk (93rd), /dev/shm tiny, full or read-only (87th, 88th, 100th),
read-only cache folders, HOME and root (86th, 132nd), noexec /tmp (132nd), a frozen cache root
(100th, 109th).

Recorded 2026-12-06 in five invocations (raw1: eight scenarios of the first table; raw2: one
SGLang; raw3: one SGLang; raw4: two vLLM; raw5: two vLLM, added as the first results came in),
taking turns with two other helpers' recorders; each scenario once. About 13 minutes of
recording (794 s: vLLM 50+47+52+82+44+42+32+124 s, SGLang 76+59+51+65+48+22 s). 7 kept (final
files dy101-dy107: v-home-full, v-cache-root-full-eager, v-prom-dir-full-at-launch,
s-prom-dir-fills-serving, s-prom-dir-full-at-launch, s-outlines-cache-full,
s-metrics-export-dir-full). Dropped, and removed from SCENARIOS: s-home-full (HOME a full 2 MiB
tmpfs: SGLang on the CPU writes nothing there and served without a word of it) and
s-home-full-torch-compile (the same with --enable-torch-compile: `cpu graph: False`, nothing
compiled, served silently); v-cache-fills-at-compile (VLLM_CACHE_ROOT on an 8 MiB tmpfs filled
the moment vLLM logged `Warming up model for the compilation...`: the fill came before
Inductor's first write, and the log is fresh68/az101's, InductorError ENOSPC in cpu_vec_isa's
check_build under profile_run - a repeat); v-prom-dir-fills-serving (PROMETHEUS_MULTIPROC_DIR
filled once up: vLLM's API server served seven completions and its stats line, silent - its
value files' pages presumably all written at startup); v-pycache-prefix-full (PYTHONPYCACHEPREFIX on a
full disk: Python skips the bytecode writes silently, vLLM served); v-debug-dump-path-full
(--compilation-config debug_dump_path on a full tmpfs: served, nothing logged);
v-logfile-full-at-launch (VLLM_LOGGING_CONFIG_PATH, a FileHandler on a full tmpfs from the
launch: Python's `--- Logging error ---` / `OSError: [Errno 28]` block for every record, the
113th batch's response again; its config also left uvicorn's INFO lines unhandled, so the log
never shows the server up although /health answered 200 - stopped by hand after 124 s).

What the engines did. vLLM with HOME full logs `Error saving model info cache.` (ENOSPC, at
ERROR level) and carries on, then dies in profile_run when Inductor writes its first file
(`InductorError: OSError: [Errno 28] No space left on device`, `Engine core initialization
failed`); with --enforce-eager the same model-info errors are all, and it serves. A full
Prometheus multiprocess folder kills the process that writes metrics with SIGBUS and no word in
the log: vLLM's API server right after `init engine ... took` (the log ends on the engine core's
config warnings), SGLang's launcher (tokenizer manager) before its first scheduler line when
full at launch, and in the middle of serving when filled once up (the log ends on a decode batch
line). These three logs show the fault only as an abrupt end (the recorder saw exit code -7);
they are kept because that silence is the engines' own response, and labelled by what the log
shows, the bus error in `also`. Outlines' disk cache is opened when SGLang imports its outlines backend, during the
scheduler's init: `sqlite3.OperationalError: database or disk is full`, `Received sigquit from a
child process`. SGLang's per-request metrics export catches each failed flush (`Failed to write
perf metrics to file: [Errno 28] No space left on device` with a traceback) and goes on serving.

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers, with
which it serves here.
"""

from __future__ import annotations

import errno
import json
import os
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind146")
FS = ROOT / "fs"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

ROOT.mkdir(parents=True, exist_ok=True)
FS.mkdir(parents=True, exist_ok=True)


# --- the small disks -------------------------------------------------------------------------

def mounted(d: Path) -> bool:
    return subprocess.run(["mountpoint", "-q", str(d)]).returncode == 0


def fill(d: Path) -> None:
    """Write one file in ``d`` until the file system is full to the last byte."""
    fd = os.open(d / "filler.bin", os.O_WRONLY | os.O_CREAT | os.O_APPEND, 0o644)
    try:
        for size in (1 << 20, 1 << 16, 4096, 512, 64, 8, 1):
            chunk = b"\0" * size
            while True:
                try:
                    os.write(fd, chunk)
                except OSError as e:
                    if e.errno != errno.ENOSPC:
                        raise
                    break
    finally:
        os.close(fd)


def disk(name: str, size: str, full: bool) -> Callable[[Ctx], None]:
    """Before the launch: a fresh tmpfs of ``size`` at FS/name, filled if ``full``."""
    def before(ctx: Ctx) -> None:
        d = FS / name
        d.mkdir(parents=True, exist_ok=True)
        if mounted(d):
            subprocess.run(["umount", "-l", str(d)], check=False)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(d)],
                       check=True)
        if full:
            fill(d)
    return before


def unmount_after(name: str, step: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        try:
            step(ctx)
        finally:
            subprocess.run(["umount", "-l", str(FS / name)], check=False)
    return act


def body_text(ctx: Ctx) -> str:
    """The log after its header (the source line quotes the scenario's description)."""
    return ctx.text().split("\n\n", 1)[-1]


def wait_body(ctx: Ctx, needles: list[str], timeout: float = 240) -> str | None:
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        text = body_text(ctx)
        found = next((n for n in needles if n in text), None)
        if found is not None:
            return found
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return None
        time.sleep(0.2)
    return None


# --- requests ----------------------------------------------------------------------------------

def request(ctx: Ctx, path: str, body: dict, timeout: float = 90) -> int:
    return ctx.post(path, body, timeout)


def v_complete(ctx: Ctx, n: int, prompt: str = "fox", max_tokens: int = 16) -> None:
    name = ctx.model_name()
    for i in range(n):
        request(ctx, "/v1/completions", {"model": name, "prompt": f"{prompt} {i}",
                                         "max_tokens": max_tokens})


def s_generate(ctx: Ctx, n: int, max_new: int = 16) -> None:
    for i in range(n):
        request(ctx, "/generate", {"text": f"the fox {i}",
                                   "sampling_params": {"max_new_tokens": max_new}})


# --- acts --------------------------------------------------------------------------------------

def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in body_text(ctx):
        v_complete(ctx, 2)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two generations); a pause."""
    wait_body(ctx, [SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in body_text(ctx):
        s_generate(ctx, 2)
        linger(ctx, 8)


def s_fill_serving(name: str) -> Callable[[Ctx], None]:
    """Fired up, one generation; FS/name filled; six generations of other lengths; a pause."""
    def act(ctx: Ctx) -> None:
        if wait_body(ctx, [SG_READY], 240) is None:
            return
        s_generate(ctx, 1)
        fill(FS / name)
        for i, mt in enumerate((4, 40, 8, 64, 2, 24)):
            request(ctx, "/generate", {"text": "the quick brown fox " * (i + 1),
                                       "sampling_params": {"max_new_tokens": mt}})
        linger(ctx, 15)
    return act


SCHEMA = json.dumps({"type": "object", "properties": {"name": {"type": "string"},
                                                      "age": {"type": "integer"}},
                     "required": ["name", "age"]})


def s_json_schema(ctx: Ctx) -> None:
    """Fired up: a plain generation, two JSON-schema generations, one plain; a pause."""
    if wait_body(ctx, [SG_READY], 240) is None:
        return
    s_generate(ctx, 1)
    for _ in range(2):
        request(ctx, "/generate", {"text": "A person as JSON:",
                                   "sampling_params": {"max_new_tokens": 24,
                                                       "json_schema": SCHEMA}})
    s_generate(ctx, 1)
    linger(ctx, 10)


# --- the table ---------------------------------------------------------------------------------

def v(name: str, what: str, env: dict[str, str], size: str, full: bool,
      act: Callable[[Ctx], None], args: list[str] | None = None) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *(args or [])], env=env,
                    before=disk(name, size, full), act=unmount_after(name, act))


def s(name: str, what: str, env: dict[str, str], size: str, full: bool,
      act: Callable[[Ctx], None], args: list[str] | None = None) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *(args or [])], env=env,
                    before=disk(name, size, full), act=unmount_after(name, act))


def at(name: str) -> str:
    return str(FS / name)


SCENARIOS = [
    v("v-home-full", "HOME an empty 2 MiB tmpfs filled to the last byte (a container's small "
      "home volume full): every cache under it", {"HOME": at("v-home-full")}, "2m", True,
      v_until),
    v("v-cache-root-full-eager", "--enforce-eager (no torch.compile); VLLM_CACHE_ROOT a 1 MiB "
      "tmpfs filled to the last byte before the launch", {"VLLM_CACHE_ROOT":
      at("v-cache-root-full-eager")}, "1m", True, v_until, ["--enforce-eager"]),
    v("v-prom-dir-full-at-launch", "PROMETHEUS_MULTIPROC_DIR a 1 MiB tmpfs filled to the last "
      "byte before the launch", {"PROMETHEUS_MULTIPROC_DIR": at("v-prom-dir-full-at-launch")},
      "1m", True, v_until),
    s("s-prom-dir-fills-serving", "--enable-metrics with PROMETHEUS_MULTIPROC_DIR an empty "
      "4 MiB tmpfs; once up and one generation served, a writer fills it to the last byte; six "
      "more generations", {"PROMETHEUS_MULTIPROC_DIR": at("s-prom-dir-fills-serving")}, "4m",
      False, s_fill_serving("s-prom-dir-fills-serving"), ["--enable-metrics"]),
    s("s-prom-dir-full-at-launch", "--enable-metrics with PROMETHEUS_MULTIPROC_DIR a 1 MiB "
      "tmpfs filled to the last byte before the launch",
      {"PROMETHEUS_MULTIPROC_DIR": at("s-prom-dir-full-at-launch")}, "1m", True, s_until,
      ["--enable-metrics"]),
    s("s-outlines-cache-full", "--grammar-backend outlines with OUTLINES_CACHE_DIR a 1 MiB "
      "tmpfs filled to the last byte; once up, JSON-schema generations",
      {"OUTLINES_CACHE_DIR": at("s-outlines-cache-full")}, "1m", True, s_json_schema,
      ["--grammar-backend", "outlines"]),
    s("s-metrics-export-dir-full", "--export-metrics-to-file with --export-metrics-to-file-dir "
      "a 1 MiB tmpfs filled to the last byte; once up, generations", {},
      "1m", True, s_fill_serving("s-metrics-export-dir-full"),
      ["--export-metrics-to-file", "--export-metrics-to-file-dir",
       at("s-metrics-export-dir-full")]),
]
