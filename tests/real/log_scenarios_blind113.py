"""The hundred-and-thirteenth batch's scenarios (tests/fixtures/corpus/fresh112): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind113.py OUT

Themes: resource limits that only traffic reaches - a server that starts inside its limits and
meets one under load. An open-files limit (256, soft and hard) set at launch, which the startup
fits and a burst of 400 concurrent client connections exhausts; a memory cgroup whose limit,
set once the server is up (before any request), leaves it 64 MiB over what it holds, met by a
burst of very long prompts (about 2 MB of text each, which the server must tokenize before it can
refuse them); a pids cgroup whose limit is set to the tasks the server has once it is up, met by
its first requests (any thread they start); the server's own log file (a logging config with a
file handler, request logging on) on a small tmpfs that another writer fills once the server is
up; a torch profiler started over HTTP whose trace folder is a 128 KiB tmpfs; a CPU quota (cpu
cgroup, CFS) cut to a fraction of a percent once the server is up, with requests from clients
that give up after 20 s - and SGLang with --watchdog-timeout 10, whose watchdog watches running
batches.

Each scenario runs entry="python" on WRAP (`-c`): it puts its own pid into the cgroups listed in
B113_CGS and sets RLIMIT_NOFILE to B113_NOFILE where given, then execs the engine's interpreter
on the engine's usual module (so every process of the run is inside the limits from its start).
The limits that must wait for the server to be up are set by the acts (cgroup files). The tmpfs
folders are mounted under /tmp/blind113/fs when a scenario starts. vLLM runs with VLLM_BASE's
settings; SGLang with --device cpu --model-impl transformers, with which it serves here.

Recorded 2026-12-06 in five invocations, one engine each, alternating with the other helpers'
recorders (about 12.5 minutes of recording: vLLM 142 + 204 + 56 s, SGLang 133 + 214 s), each
scenario once (the two logfile scenarios' first takes are replaced: see below); 8 of the 13
scenarios kept: v-pids-first-requests, v-logfile-disk-full, v-cpu-quota-serving,
v-profiler-dir-full, s-memcg-long-prompts, s-logfile-disk-full, s-profiler-dir-full,
s-pids-first-requests. Dropped, their fault not in the log: v-nofile-conn-burst and
s-nofile-conn-burst (the first vLLM take of 400 short completions was served whole; with 300
long ones held open, about 70 of them in either engine were never answered and neither engine
nor uvicorn logged a word of it - no EMFILE line, the burst just looks smaller);
v-memcg-long-prompts and v-memcg-token-prompts (vLLM refused the long prompts, text or token
ids, with bare 400s and its memory never grew past the 64 / 32 MiB margin);
s-cpu-quota-watchdog-serving (at 0.1% of a CPU the run printed nothing after the quota was
cut - no batch line, and the 10 s watchdog, throttled with the rest, never spoke - so the log
is a served run that just stops). The first take of v-pids-first-requests' burst named the model
"model" (12 404s before the 500s; the act as recorded is kept). s-logfile-disk-full's first
take left 2 KiB free, which the log file's last tmpfs page absorbed (no error): both logfile
scenarios were recorded with the disk filled whole. What the engines did: a pids limit reached
after startup fails every request that hands work to a thread pool (vLLM's tokenizer executor,
SGLang's OpenAI adapter) with `RuntimeError: can't start new thread` and a 500, the server
living on; a full disk under a logging FileHandler gives Python's `--- Logging error ---`
reports (OSError: [Errno 28]) and the request goes on; vLLM's profiler stop on a full disk only
warns (`Failed to stop profiler: [Errno 28] No space left on device`) while SGLang's scheduler
dies of the same error in export_chrome_trace; SGLang's memory cgroup OOM kill takes the
scheduler (it holds the 15 GB KV cache) although the tokenizer's memory grew; vLLM at 0.5% of
a CPU keeps its stats lines (`Running: 4 reqs`, 1.9 tokens/s) and drops requests whose clients
hung up without a line.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
)

ROOT = Path("/tmp/blind113")
FS = ROOT / "fs"
CG = Path("/sys/fs/cgroup")
SG_READY = "The server is fired up and ready to roll!"

WRAP = ("import os,sys,resource as r; [open(d+'/cgroup.procs','w').write(str(os.getpid())) for d "
        "in os.environ.get('B113_CGS','').split()]; n=int(os.environ.get('B113_NOFILE','0')); "
        "n and r.setrlimit(r.RLIMIT_NOFILE,(n,n)); os.execv(sys.executable,[sys.executable]+"
        "sys.argv[1:])")
V_HEAD = ["-c", WRAP, "-m", "vllm.entrypoints.openai.api_server", "--model", "{model}",
          "--host", "127.0.0.1", "--port", "{port}", *VLLM_BASE]
S_HEAD = ["-c", WRAP, "-m", "sglang.launch_server", "--model-path", "{model}", "--host",
          "127.0.0.1", "--port", "{port}", "--device", "cpu", "--model-impl", "transformers"]

# --- logging configs with a file handler (the server's own log file) -----------------------

def _log_config(logger: str, file: Path) -> dict:
    return {
        "version": 1, "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(levelname)s %(asctime)s [%(filename)s:%(lineno)d] "
                                           "%(message)s", "datefmt": "%m-%d %H:%M:%S"}},
        "handlers": {
            "console": {"class": "logging.StreamHandler", "formatter": "plain",
                        "stream": "ext://sys.stdout"},
            "file": {"class": "logging.FileHandler", "formatter": "plain",
                     "filename": str(file)}},
        "loggers": {logger: {"handlers": ["console", "file"], "level": "INFO",
                             "propagate": False}},
    }


ROOT.mkdir(parents=True, exist_ok=True)
(ROOT / "vllm-logging.json").write_text(json.dumps(
    _log_config("vllm", FS / "v-logfile-disk-full" / "vllm-server.log"), indent=2))
(ROOT / "sglang-logging.json").write_text(json.dumps(
    _log_config("sglang", FS / "s-logfile-disk-full" / "sglang-server.log"), indent=2))


# --- set-up before launch ------------------------------------------------------------------

def tmpfs(name: str, size: str):
    """A fresh tmpfs of ``size`` at FS/name."""
    def before(ctx: Ctx) -> None:
        d = FS / name
        d.mkdir(parents=True, exist_ok=True)
        if subprocess.run(["mountpoint", "-q", str(d)]).returncode == 0:
            subprocess.run(["umount", "-l", str(d)], check=False)
        subprocess.run(["mount", "-t", "tmpfs", "-o", f"size={size}", "tmpfs", str(d)],
                       check=True)
    return before


def cgroup(ctrl: str, name: str):
    """A fresh cgroup (v1) without limits; the wrapper puts the engine in it."""
    def before(ctx: Ctx) -> None:
        d = CG / ctrl / name
        d.mkdir(exist_ok=True)
        if ctrl == "memory":
            (d / "memory.limit_in_bytes").write_text("-1")
        elif ctrl == "cpu":
            (d / "cpu.cfs_period_us").write_text("100000")
            (d / "cpu.cfs_quota_us").write_text("-1")
        elif ctrl == "pids":
            (d / "pids.max").write_text("max")
    return before


def both(*steps):
    def before(ctx: Ctx) -> None:
        for s in steps:
            s(ctx)
    return before


def cg_env(ctrl: str, name: str) -> dict[str, str]:
    return {"B113_CGS": str(CG / ctrl / name)}


# --- waiting and traffic ---------------------------------------------------------------------

def logged(ctx: Ctx, needle: str, timeout: float) -> bool:
    """``needle`` in the run's output (after the header, which quotes the description)."""
    end = time.monotonic() + timeout
    while time.monotonic() < end:
        body = ctx.text().split("\n\n", 1)[-1]
        if needle in body:
            return True
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return needle in ctx.text().split("\n\n", 1)[-1]
        time.sleep(0.3)
    return False


def http_up(ctx: Ctx, timeout: float = 150) -> bool:
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


def ready(engine: str, ctx: Ctx) -> bool:
    return logged(ctx, READY_LINE if engine == "vllm" else SG_READY, 150)


def burst(ctx: Ctx, n: int, prompt: str | list[int] | None = None, max_tokens: int = 16,
          timeout: float = 30, name: str | None = None) -> None:
    """``n`` concurrent completions (each its own connection), waited for."""
    model = name or "model"
    threads = []
    for i in range(n):
        body = {"model": model, "prompt": prompt if prompt is not None else f"the fox {i}",
                "max_tokens": max_tokens}
        t = threading.Thread(target=ctx.post, args=("/v1/completions", body, timeout),
                             daemon=True)
        t.start()
        threads.append(t)
    for t in threads:
        t.join(timeout + 5)


def post_quiet(ctx: Ctx, path: str, body: dict, timeout: float = 60) -> None:
    ctx.post(path, body, timeout)


# --- acts ------------------------------------------------------------------------------------

def conn_burst(engine: str):
    """Up; 300 concurrent completions of 120 tokens each (300 connections held open while they
    generate), then one more completion."""
    def act(ctx: Ctx) -> None:
        if not ready(engine, ctx):
            return
        name = ctx.model_name()
        burst(ctx, 300, max_tokens=120, timeout=40, name=name)
        ctx.complete(1, max_tokens=8)
        linger(ctx, 6)
    return act


def memcg_long_prompts(engine: str, name: str, margin_mb: int = 64, token_ids: bool = False):
    """Up; the memory limit set to what the server holds (rss, mapped files, shmem) + 64 MiB;
    one completion, then 6 concurrent completions with ~2 MB prompts; one more completion."""
    def act(ctx: Ctx) -> None:
        if not ready(engine, ctx):
            return
        d = CG / "memory" / name
        stat = dict(line.split() for line in (d / "memory.stat").read_text().splitlines())
        held = sum(int(stat.get(k, 0)) for k in ("total_rss", "total_mapped_file",
                                                   "total_shmem"))
        limit = held + (margin_mb << 20)
        for _ in range(40):
            try:
                (d / "memory.limit_in_bytes").write_text(str(limit))
                break
            except OSError:
                limit += 32 << 20
        mname = ctx.model_name()
        ctx.complete(1, max_tokens=8)
        prompt = ([5, 300, 301, 302] * 100_000 if token_ids
                  else "the quick brown fox " * 100_000)
        burst(ctx, 6, prompt=prompt, max_tokens=4, timeout=45, name=mname)
        ctx.complete(1, max_tokens=8)
        linger(ctx, 8)
    return act


def pids_first_requests(engine: str, name: str):
    """Up (no request yet); pids.max set to the tasks the run has now; a burst of 12
    completions, a streamed one and a /tokenize; then one more completion."""
    def act(ctx: Ctx) -> None:
        if not ready(engine, ctx):
            return
        d = CG / "pids" / name
        (d / "pids.max").write_text((d / "pids.current").read_text().strip())
        burst(ctx, 12, max_tokens=16, timeout=30)
        mname = ctx.model_name()
        post_quiet(ctx, "/v1/completions", {"model": mname, "prompt": "fox", "max_tokens": 8,
                                            "stream": True}, 30)
        post_quiet(ctx, "/tokenize", {"model": mname, "prompt": "the fox"}, 20)
        burst(ctx, 12, max_tokens=16, timeout=30, name=mname)
        ctx.complete(1, max_tokens=8)
        linger(ctx, 6)
    return act


def fill_disk(name: str, leave: int = 0):
    """Up; another writer fills the tmpfs FS/name to ``leave`` bytes; 3 then 24 concurrent
    completions (each logged by the server); one more."""
    def act(ctx: Ctx) -> None:
        if not http_up(ctx, 150):
            return
        time.sleep(2)
        mname = ctx.model_name()
        ctx.complete(2, max_tokens=8)
        d = FS / name
        st = os.statvfs(d)
        free = st.f_bavail * st.f_frsize
        with open(d / "rotated-2026-12-06.log", "wb") as f:
            f.write(b"x" * max(0, free - leave))
        ctx.complete(3, max_tokens=8)
        burst(ctx, 24, max_tokens=12, timeout=30, name=mname)
        ctx.complete(1, max_tokens=8)
        linger(ctx, 6)
    return act


def cpu_quota_serving(engine: str, name: str, quota_us: int, period_us: int, n: int = 4,
                      after_s: float = 25):
    """Up; two completions, then the CFS quota cut to quota_us per period_us; ``n`` concurrent
    completions whose clients give up after 20 s; the run left ``after_s`` s more."""
    def act(ctx: Ctx) -> None:
        if not ready(engine, ctx):
            return
        mname = ctx.model_name()
        ctx.complete(2, max_tokens=8)
        d = CG / "cpu" / name
        (d / "cpu.cfs_period_us").write_text(str(period_us))
        (d / "cpu.cfs_quota_us").write_text(str(quota_us))
        burst(ctx, n, max_tokens=48, timeout=20, name=mname)
        linger(ctx, after_s)
    return act


def vllm_profile(ctx: Ctx) -> None:
    """Up; /start_profile, three completions, /stop_profile, one more completion."""
    if not ready("vllm", ctx):
        return
    mname = ctx.model_name()
    ctx.complete(1, max_tokens=8)
    post_quiet(ctx, "/start_profile", {}, 60)
    ctx.complete(3, max_tokens=24)
    post_quiet(ctx, "/stop_profile", {}, 90)
    ctx.complete(1, max_tokens=8)
    post_quiet(ctx, "/v1/completions", {"model": mname, "prompt": "fox", "max_tokens": 8}, 30)
    linger(ctx, 8)


def sglang_profile(ctx: Ctx) -> None:
    """Up; /start_profile for 6 steps (CPU activities), then completions while it records."""
    if not ready("sglang", ctx):
        return
    ctx.complete(1, max_tokens=8)
    post_quiet(ctx, "/start_profile", {"num_steps": 6, "activities": ["CPU"]}, 60)
    ctx.complete(3, max_tokens=24)
    time.sleep(3)
    ctx.complete(1, max_tokens=8)
    linger(ctx, 10)


def v(name, what, extra=(), act=None, env=None, before=None) -> Scenario:
    return Scenario(name, "vllm", what, [*V_HEAD, *extra], act=act, env=env or {},
                    before=before, entry="python")


def s(name, what, extra=(), act=None, env=None, before=None) -> Scenario:
    return Scenario(name, "sglang", what, [*S_HEAD, *extra], act=act, env=env or {},
                    before=before, entry="python")


VPROF = json.dumps({"profiler": "torch", "torch_profiler_dir": str(FS / "v-profiler-dir-full")})

SCENARIOS = [
    # --- vLLM ------------------------------------------------------------------------------------
    v("v-nofile-conn-burst", "RLIMIT_NOFILE 256 (soft and hard) set at launch for every process "
      "of the run (a container's nofile limit), which the startup fits; once up, 300 concurrent "
      "completions of 120 tokens from 300 client connections, then one more",
      act=conn_burst("vllm"), env={"B113_NOFILE": "256"}),
    v("v-memcg-long-prompts", "the run in a memory cgroup from launch; once up, its limit set "
      "to what it holds (rss + mapped files + shmem) plus 64 MiB; one completion, then 6 "
      "concurrent completions with prompts of about 2 MB of text each, then one more",
      act=memcg_long_prompts("vllm", "blind113-vmem"), env=cg_env("memory", "blind113-vmem"),
      before=cgroup("memory", "blind113-vmem")),
    v("v-memcg-token-prompts", "the run in a memory cgroup from launch; once up, its limit set "
      "to what it holds (rss + mapped files + shmem) plus 32 MiB; one completion, then 6 "
      "concurrent completions whose prompts are lists of 400,000 token ids each (a client "
      "sending pre-tokenized long inputs), then one more",
      act=memcg_long_prompts("vllm", "blind113-vmemt", 32, token_ids=True),
      env=cg_env("memory", "blind113-vmemt"), before=cgroup("memory", "blind113-vmemt")),
    v("v-pids-first-requests", "the run in a pids cgroup from launch; once up, before any "
      "request, pids.max set to the tasks it has (a container's pids limit reached); 12 "
      "concurrent completions, a streamed one, a /tokenize, 12 more, then one",
      act=pids_first_requests("vllm", "blind113-vpids"), env=cg_env("pids", "blind113-vpids"),
      before=cgroup("pids", "blind113-vpids")),
    v("v-logfile-disk-full", "VLLM_LOGGING_CONFIG_PATH with a console and a file handler, the "
      "log file on a 1 MiB tmpfs, --enable-log-requests; once up and two completions served, "
      "another writer fills the tmpfs (no block left); 3 completions, 24 concurrent, one more",
      ["--enable-log-requests"], act=fill_disk("v-logfile-disk-full"),
      env={"VLLM_LOGGING_CONFIG_PATH": str(ROOT / "vllm-logging.json")},
      before=tmpfs("v-logfile-disk-full", "1m")),
    v("v-cpu-quota-serving", "the run in a cpu cgroup from launch; once up and two completions "
      "served, its CFS quota cut to 1 ms per 200 ms (0.5% of a CPU); 4 concurrent completions "
      "whose clients give up after 20 s; left 25 s more",
      act=cpu_quota_serving("vllm", "blind113-vcpu", 1000, 200000),
      env=cg_env("cpu", "blind113-vcpu"), before=cgroup("cpu", "blind113-vcpu")),
    v("v-profiler-dir-full", "--profiler-config with the torch profiler and torch_profiler_dir "
      "a 128 KiB tmpfs; once up, POST /start_profile, three completions, POST /stop_profile "
      "(the traces are written), then two more completions",
      ["--profiler-config", VPROF], act=vllm_profile,
      before=tmpfs("v-profiler-dir-full", "128k")),
    # --- SGLang ----------------------------------------------------------------------------------
    s("s-nofile-conn-burst", "RLIMIT_NOFILE 256 (soft and hard) set at launch for every process "
      "of the run (a container's nofile limit), which the startup fits; once up, 300 concurrent "
      "completions of 120 tokens from 300 client connections, then one more",
      act=conn_burst("sglang"), env={"B113_NOFILE": "256"}),
    s("s-memcg-long-prompts", "the run in a memory cgroup from launch; once up, its limit set "
      "to what it holds (rss + mapped files + shmem) plus 64 MiB; one completion, then 6 "
      "concurrent completions with prompts of about 2 MB of text each, then one more",
      act=memcg_long_prompts("sglang", "blind113-smem"), env=cg_env("memory", "blind113-smem"),
      before=cgroup("memory", "blind113-smem")),
    s("s-logfile-disk-full", "SGLANG_LOGGING_CONFIG_PATH with a console and a file handler, "
      "the log file on a 1 MiB tmpfs, --log-requests; once up and two completions served, "
      "another writer fills the tmpfs (no block left); 3 completions, 24 concurrent, one more",
      ["--log-requests"], act=fill_disk("s-logfile-disk-full"),
      env={"SGLANG_LOGGING_CONFIG_PATH": str(ROOT / "sglang-logging.json")},
      before=tmpfs("s-logfile-disk-full", "1m")),
    s("s-cpu-quota-watchdog-serving", "--watchdog-timeout 10; the run in a cpu cgroup from "
      "launch; once up and two completions served, its CFS quota cut to 1 ms per second (0.1% "
      "of a CPU); 4 concurrent completions whose clients give up after 20 s; left 25 s more",
      ["--watchdog-timeout", "10"],
      act=cpu_quota_serving("sglang", "blind113-scpu", 1000, 1000000),
      env=cg_env("cpu", "blind113-scpu"), before=cgroup("cpu", "blind113-scpu")),
    s("s-profiler-dir-full", "SGLANG_TORCH_PROFILER_DIR a 128 KiB tmpfs; once up, POST "
      "/start_profile for 6 steps (CPU activities), completions while it records (the trace is "
      "written when the steps are done), then one more",
      act=sglang_profile, env={"SGLANG_TORCH_PROFILER_DIR": str(FS / "s-profiler-dir-full")},
      before=tmpfs("s-profiler-dir-full", "128k")),
    s("s-pids-first-requests", "the run in a pids cgroup from launch; once up (its own warm-up "
      "request done), pids.max set to the tasks it has (a container's pids limit reached); 12 "
      "concurrent completions, a streamed one, a /tokenize, 12 more, then one",
      act=pids_first_requests("sglang", "blind113-spids"), env=cg_env("pids", "blind113-spids"),
      before=cgroup("pids", "blind113-spids")),
]
