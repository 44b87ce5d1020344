"""The hundred-and-seventy-sixth batch's scenarios (tests/fixtures/corpus/fresh175): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind176.py OUT

Themes: limits on processes and threads, as a shared host, a container or a service account sets
them - what a person meets when the engine cannot start the threads and processes it needs. A
per-user process limit (RLIMIT_NPROC, which counts every thread of the user's) on a launch run as
an unprivileged service account (uid/gid 41760 through setpriv; root is exempt from the limit):
small enough that the launch itself cannot start what it needs, and, set on the running server's
processes once it is up (prlimit --nproc, as a supervisor tightening the account's limits would)
to a couple of tasks over what it has, met by its first requests; OpenMP's thread count set far
above the host's two cores (OMP_NUM_THREADS=2048, a value copied from a big host's unit file);
OpenMP's worker-thread stack set tiny (OMP_STACKSIZE=16K, the least a thread may have).

Earlier batches already had (not repeated): a pids cgroup at launch (71st: 40 tasks vLLM, 24
SGLang) and a pids cgroup's limit reached once up or while serving (91st, 113th) - the cgroup,
not the per-user rlimit, whose words and reach (every process of the account, threads included)
may differ; OMP_NUM_THREADS=0 and `auto` (70th, 75th, 144th); VLLM_CPU_OMP_THREADS_BIND values
(98th, 118th, 144th); RLIMIT_STACK 192/256 KiB for the whole server (72nd, 78th) - the main
thread's limit, not OpenMP's worker stacks; the server run as nobody (130th) and a uid without a
passwd entry (97th); open-files limits (67th, 69th, 99th, 113th).

The nproc scenarios run entry="python" on /tmp/blind176/wrap.py (written when this table is
loaded): it sets RLIMIT_NPROC from B176_NPROC where given (soft and hard), enters a mount
namespace of its own (`unshare -m`), puts a world-readable view over /root (binds of
/root/.cache and /root/.pyenv, where the engines and their interpreter live; /root itself is
0700 here), and execs the engine through setpriv as uid/gid 41760 with no groups (no passwd
entry; USER, LOGNAME and HOME are set). The model copies (under the recorder's work folder) are
made readable by all. HOME is a folder of the scenario's own under /tmp/blind176/home, owned by
the account. The OpenMP scenarios run the engine as usual (root) with the variable set. SGLang
runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in five invocations (raw1: the first table's eight scenarios, four vLLM then
four SGLang; raw2: v-nproc-76-launch; raw3: v-nproc-56-launch; raw4: s-nproc-44-launch; raw5:
s-nproc-34-launch - the later limits were chosen from what raw1 showed, the tasks each server ran
once up), waiting turns with the other helpers' recorders; each scenario once. About 13 minutes of
recording (vLLM 35+73+43+47+65+34 s, SGLang 20+62+62+74+23+~200 s). 5 kept (final files
fc101-fc105). Dropped, their fault never in the log: v-nproc-once-up and s-nproc-once-up (once up,
every process's RLIMIT_NPROC set with prlimit to the account's tasks plus 2 - 73 in vLLM, 57 in
SGLang - then 3 completions and a burst of 8: both served every request 200 without a word, the
two spare tasks enough); v-nproc-76-launch (76 from the start: vLLM served as usual);
v-omp-stacksize-16k and s-omp-stacksize-16k (OMP_STACKSIZE=16K: both served two completions
without a word - vLLM runs torch on one thread here, `Reducing Torch threads from 2 to 1`, so no
OpenMP worker thread exists; SGLang's two were enough); s-omp-threads-2048 (SGLang binds its own
OpenMP threads, `local_omp_cpuid=0,1`, and served without a word of the variable). Dropped as a
repeat: s-nproc-24-launch (RLIMIT_NPROC 24: the scheduler's `ProcessGroupGloo(` ends `RuntimeError:
Resource temporarily unavailable`, then `Received sigquit from a child process` - the same log as
the 71st batch's pids cgroup of 24, fresh70/bb119, but for SGLang's `Fail to set RLIMIT_NOFILE`
line). All dropped scenarios were removed from SCENARIOS.

What the engines did: a per-user task limit is met wherever the next thread starts, and the
engines' words change with the limit. vLLM at 32 dies in the worker's gloo process group
(`RuntimeError: Resource temporarily unavailable`, `WorkerProc failed to start`, `Engine core
initialization failed`); at 56 the worker gets past it, tqdm warns `can't start new thread`, the
shards load and libzmq aborts the worker (`Resource temporarily unavailable (src/thread.cpp:241)`,
no traceback; `Failed core proc(s): {}`); at 76 it serves. SGLang at 24 dies in gloo as under the
pids cgroup; at 34 (its scheduler, detokenizer and launcher at exactly 34 threads) it hangs after
`Init parallel begin.` with nothing more logged; at 44 the scheduler passes the parallel init and
libzmq aborts it creating its IPC sockets (`Fatal Python error: Aborted`, `Rank 0 scheduler died
during initialization (exit code: -6)`). vLLM answers OMP_NUM_THREADS=2048 with a warning (`leaving
Torch threads at 2 for serving`) and serves; SGLang says nothing of it.
"""

from __future__ import annotations

import os
import shutil
import sys
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, linger  # noqa: E402

ROOT = Path("/tmp/blind176")
WRAP = ROOT / "wrap.py"
RV = ROOT / "rv"            # the view put over /root in the engine's mount namespace
HOMES = ROOT / "home"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
UID = 41760

WRAPPER = r'''"""Set RLIMIT_NPROC, enter a mount namespace, give /root a readable view, exec as 41760."""
import os
import resource
import sys

n = os.environ.pop("B176_NPROC", "")
if n:
    resource.setrlimit(resource.RLIMIT_NPROC, (int(n), int(n)))
rv = "/tmp/blind176/rv"
sh = [f"mount --bind /root/.cache {rv}/.cache", f"mount --bind /root/.pyenv {rv}/.pyenv",
      f"mount --rbind {rv} /root",
      'exec setpriv --reuid 41760 --regid 41760 --clear-groups -- "$@"']
os.execv("/usr/bin/unshare", ["unshare", "-m", "--", "sh", "-c", " && ".join(sh), "sh",
                              sys.executable, *sys.argv[1:]])
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    ROOT.chmod(0o755)
    for d in (RV / ".cache", RV / ".pyenv", HOMES):
        d.mkdir(parents=True, exist_ok=True)
    for d in (RV, RV / ".cache", RV / ".pyenv", HOMES):
        d.chmod(0o755)
    WRAP.write_text(WRAPPER)
    WRAP.chmod(0o644)


_setup()


def readable(name: str) -> Callable[[Path], Path]:
    def make(work: Path) -> Path:
        work.chmod(0o755)
        work.parent.chmod(0o755)
        d = copy_model(work, name)
        d.chmod(0o755)
        for f in d.iterdir():
            f.chmod(0o644)
        return d
    return make


def fresh_home(name: str) -> Callable[[Ctx], None]:
    def before(ctx: Ctx) -> None:
        h = HOMES / name
        if h.exists():
            shutil.rmtree(h)
        h.mkdir(parents=True)
        os.chown(h, UID, UID)
        h.chmod(0o700)
    return before


# --- steps -------------------------------------------------------------------------------------

def until_end_or_serve(ready: str) -> Callable[[Ctx], None]:
    """Until the run ends; if it comes up, two completions and a short pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([ready], 200)
        if ctx.proc is not None and ctx.proc.poll() is None and ready in ctx.text():
            ctx.complete(2)
            linger(ctx, 10)
    return act


def server_v() -> list[str]:
    return ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", *VLLM_BASE]


def server_s() -> list[str]:
    return ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
            "--port", "{port}", *SG]


def account_env(name: str, **extra: str) -> dict[str, str]:
    return {"HOME": str(HOMES / name), "USER": "svc-llm", "LOGNAME": "svc-llm", **extra}


def v_acct(name: str, what: str, act: Callable[[Ctx], None], **extra: str) -> Scenario:
    return Scenario(name, "vllm", what, [str(WRAP), *server_v()], model=readable(name),
                    env=account_env(name, **extra), before=fresh_home(name), act=act,
                    entry="python")


def s_acct(name: str, what: str, act: Callable[[Ctx], None], **extra: str) -> Scenario:
    return Scenario(name, "sglang", what, [str(WRAP), *server_s()], model=readable(name),
                    env=account_env(name, **extra), before=fresh_home(name), act=act,
                    entry="python")


AS = ("the server run as a service account (setpriv --reuid 41760 --regid 41760 "
      "--clear-groups; root is exempt from RLIMIT_NPROC)")

SCENARIOS = [
    v_acct("v-nproc-32-launch", f"{AS} with RLIMIT_NPROC 32 (ulimit -u 32, soft and hard) from "
           "its start", until_end_or_serve(READY_LINE), B176_NPROC="32"),
    v_acct("v-nproc-56-launch", f"{AS} with RLIMIT_NPROC 56 (ulimit -u 56, soft and hard) from "
           "its start: between the 32 its worker's start exceeds (v-nproc-32-launch) and the 73 "
           "tasks it runs once up", until_end_or_serve(READY_LINE), B176_NPROC="56"),
    Scenario("v-omp-threads-2048", "vllm", "OMP_NUM_THREADS=2048 on a 2-core host (a big host's "
             "unit file copied)", VLLM_BASE, env={"OMP_NUM_THREADS": "2048"},
             act=until_end_or_serve(READY_LINE)),
    s_acct("s-nproc-34-launch", f"{AS} with RLIMIT_NPROC 34 (ulimit -u 34, soft and hard) from "
           "its start", until_end_or_serve(SG_READY), B176_NPROC="34"),
    s_acct("s-nproc-44-launch", f"{AS} with RLIMIT_NPROC 44 (ulimit -u 44, soft and hard) from "
           "its start: between the 24 it cannot start with and the 57 tasks it runs once up "
           "(s-nproc-once-up)", until_end_or_serve(SG_READY), B176_NPROC="44"),
]
