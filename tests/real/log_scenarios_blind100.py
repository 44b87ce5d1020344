"""The hundredth batch's scenarios (tests/fixtures/corpus/fresh99): faults chosen, recorded and
labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind100.py OUT

Themes: a startup interrupted or slowed at one of its steps by the machine, not by a setting.
The disk failing under the loader (the model copied onto a loop-mounted ext4 image whose
backing file is then cut short under the last shard's blocks, so reading it gives EIO), a
file system frozen with fsfreeze (reads go on, writes block) under the folder the engine writes
to at startup (vLLM's compile cache root, SGLang's TMPDIR); memory running short at a chosen
step (the engine launched inside a fresh memory cgroup with no limit, the limit then set just
above its usage once the weights are loaded); a CPU quota cut to 1% at a chosen step (vLLM with
a short VLLM_ENGINE_READY_TIMEOUT_S, SGLang with a short --watchdog-timeout); an engine process
stopped (SIGSTOP) at a chosen step and continued late; /dev/shm (a private 256 MiB tmpfs in
the engine's own mount namespace) filled by another process once the weights are loading.

The engine is launched by a small wrapper (entry="python", `-c WRAP`) that puts its own pid into
the scenario's cgroups and, where asked, re-executes itself under `unshare -m` with a private
/dev/shm, then execs the engine's usual entry point. SGLang runs with --device cpu
--model-impl transformers, with which it serves here.

Recorded 2026-12-05 in five invocations (about 17 minutes of recording in all; the first three
were cut short and their faulty takes re-recorded). The host is a
Firecracker VM with a real kernel (6.18): loop devices, mkfs.ext4, fsfreeze, memory and cpu
cgroups (v1) and private mount namespaces all work; device-mapper does not (no dm-error), so the
failing disk is a loop image cut short under a file's blocks (`losetup -c`), which reads EIO -
and SIGBUS through a memory map (SGLang's faulthandler says `Bus error`; vLLM's worker dies
without a word). A step's needle must be looked for after the header: the source line quotes the
scenario's description (the first take of v-memcg-tight-after-load set its limit at once and
was OOM-killed at import; re-recorded). vLLM's CPU build prints `Loading weights took`, never
`Model loading took`. The first takes had a multi-line wrapper in the source line (dropped).
s-tmpdir-frozen logged nothing at all in 83 s (SGLang blocks before its first line with TMPDIR
frozen) and was dropped; vLLM with its cache root frozen blocks right after its banner and
goes on the moment the file system is thawed. A stopped EngineCore or detokenizer, continued
late, costs only time (VLLM_ENGINE_READY_TIMEOUT_S=40 did not fire over a 55 s stop). A full
/dev/shm kills vLLM's worker as it makes its message queues; SGLang (one rank) serves.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
)
from setup_engines import LLAMA  # noqa: E402

SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
ROOT = Path("/tmp/blind100")
CG = Path("/sys/fs/cgroup")

# the wrapper: own pid into the cgroups listed in B100_CGS, private /dev/shm if B100_SHM
WRAP = ("import os,sys; [open(d + '/cgroup.procs', 'w').write(str(os.getpid())) for d in "
        "os.environ.get('B100_CGS', '').split(':') if d]; a = [sys.executable] + sys.argv[1:]; "
        "os.execvp('unshare', ['unshare', '-m', 'sh', '-c', 'mount -t tmpfs -o size=256m tmpfs "
        "/dev/shm && exec \"$@\"', 'sh'] + a) if os.environ.pop('B100_SHM', '') else "
        "os.execv(sys.executable, a)")

V_CMD = ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
         "127.0.0.1", "--port", "{port}", *VLLM_BASE]
S_CMD = ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
         "--port", "{port}", *SG]


def sh(cmd: str) -> str:
    return subprocess.run(cmd, shell=True, capture_output=True, text=True).stdout


# --- a loop-mounted disk that fails under the last shard ----------------------------------------

def loop_model(name: str, last_file: str | None = None):
    """The tiny model copied onto an ext4 image on a loop device (shards last, or
    ``last_file`` last), remounted cold, then the image's backing file cut just before the
    last file's first block."""
    def make(work: Path) -> Path:
        img, mnt = ROOT / f"{name}.img", ROOT / f"{name}-mnt"
        sh(f"umount -l {mnt} 2>/dev/null; losetup -j {img} | cut -d: -f1 | xargs -r losetup -d")
        mnt.mkdir(parents=True, exist_ok=True)
        sh(f"dd if=/dev/zero of={img} bs=1M count=16 status=none && mkfs.ext4 -q -b 4096 {img}")
        dev = sh(f"losetup -f --show {img}").strip()
        sh(f"mount {dev} {mnt}")
        dest = mnt / name
        dest.mkdir()
        shards = sorted(LLAMA.dir.glob("model-*.safetensors"))
        if last_file:
            shards = [LLAMA.dir / last_file]
        for f in sorted(LLAMA.dir.iterdir()):
            if f.is_file() and f not in shards and f.name != ".complete":
                sh(f"cp {f} {dest}/")
        for f in shards:
            sh(f"cp {f} {dest}/ && sync")
        sh(f"sync; umount {mnt}; mount {dev} {mnt}")
        last = dest / shards[-1].name
        ext = sh(f"filefrag -v -b4096 {last}").splitlines()
        row = next(ln for ln in ext if ln.strip().startswith("0:"))
        start = int(row.split(":")[2].split("..")[0])
        sh(f"truncate -s {start * 4096} {img}; losetup -c {dev}")
        return dest
    return make


def loop_cleanup(name: str) -> None:
    img, mnt = ROOT / f"{name}.img", ROOT / f"{name}-mnt"
    sh(f"umount -l {mnt}; losetup -j {img} | cut -d: -f1 | xargs -r losetup -d")


# --- a frozen file system -------------------------------------------------------------------

def frozen_dir(name: str) -> Path:
    return ROOT / f"{name}-mnt" / "dir"


def freeze_before(name: str):
    def before(ctx: Ctx) -> None:
        img, mnt = ROOT / f"{name}.img", ROOT / f"{name}-mnt"
        sh(f"umount -l {mnt} 2>/dev/null")
        mnt.mkdir(parents=True, exist_ok=True)
        sh(f"dd if=/dev/zero of={img} bs=1M count=64 status=none && mkfs.ext4 -q {img} && "
           f"mount -o loop {img} {mnt} && mkdir -p {mnt}/dir && sync && fsfreeze -f {mnt}")
    return before


def frozen_then_thaw(name: str, seconds: float):
    def act(ctx: Ctx) -> None:
        try:
            linger(ctx, seconds)
        finally:
            mnt = ROOT / f"{name}-mnt"
            sh(f"fsfreeze -u {mnt}")
            time.sleep(3)
            sh(f"umount -l {mnt}")
    return act


# --- cgroups made at launch, tightened at a step --------------------------------------------

def cgroups(name: str, *ctrls: str):
    def before(ctx: Ctx) -> None:
        for c in ctrls:
            d = CG / c / name
            d.mkdir(exist_ok=True)
            if c == "memory":
                (d / "memory.limit_in_bytes").write_text("-1")
            if c == "cpu":
                (d / "cpu.cfs_quota_us").write_text("-1")
    return before


def cg_env(name: str, *ctrls: str) -> dict[str, str]:
    return {"B100_CGS": ":".join(str(CG / c / name) for c in ctrls)}


def logged(ctx: Ctx, needles: list[str], wait: float) -> bool:
    """One of ``needles`` in the engine's output (not the header, which quotes them)."""
    end = time.monotonic() + wait
    while time.monotonic() < end:
        body = ctx.text().partition("\n\n")[2]
        if any(n in body for n in needles):
            return True
        if ctx.proc is not None and ctx.proc.poll() is not None:
            return False
        time.sleep(0.3)
    return False


def at_step(needles: list[str], fault, after_s: float = 60, ready: str | None = None,
            cleanup=None, wait: float = 200):
    def act(ctx: Ctx) -> None:
        try:
            if not logged(ctx, needles, wait):
                return
            fault(ctx)
            if ready is None:
                linger(ctx, after_s)
            elif ctx.wait_any([ready], after_s):
                ctx.complete(2, max_tokens=12)
                linger(ctx, 8)
        finally:
            if cleanup:
                cleanup()
    return act


def mem_tight(name: str, margin_mb: int):
    def f(ctx: Ctx) -> None:
        d = CG / "memory" / name
        use = int((d / "memory.usage_in_bytes").read_text())
        (d / "memory.limit_in_bytes").write_text(str(use + margin_mb * 2**20))
    return f


def cpu_quota(name: str, quota_us: int):
    def f(ctx: Ctx) -> None:
        (CG / "cpu" / name / "cpu.cfs_quota_us").write_text(str(quota_us))
    return f


def stop_then_cont(child: str, seconds: float):
    def f(ctx: Ctx) -> None:
        procs = ctx.children(child)
        for p in procs:
            p.suspend()
        time.sleep(seconds)
        for p in procs:
            try:
                p.resume()
            except Exception:
                pass
    return f


def fill_shm(ctx: Ctx) -> None:
    assert ctx.proc is not None
    target = f"/proc/{ctx.proc.pid}/root/dev/shm/zz-filler"
    sh(f"dd if=/dev/zero of={target} bs=1M count=400 status=none")


def relax(name: str, *ctrls: str):
    def f() -> None:
        for c in ctrls:
            d = CG / c / name
            try:
                if c == "cpu":
                    (d / "cpu.cfs_quota_us").write_text("-1")
                if c == "memory":
                    (d / "memory.limit_in_bytes").write_text("-1")
            except OSError:
                pass
    return f


def v(name, what, act, env=None, before=None, model=None, wait_s=90.0) -> Scenario:
    return Scenario(name, "vllm", what, ["-c", WRAP, *V_CMD], env=env or {}, before=before,
                    model=model, act=act, entry="python", wait_s=wait_s)


def s(name, what, act, env=None, before=None, model=None, extra=(), wait_s=90.0) -> Scenario:
    return Scenario(name, "sglang", what, ["-c", WRAP, *S_CMD, *extra], env=env or {},
                    before=before, model=model, act=act, entry="python", wait_s=wait_s)


V_LOAD = ["Starting to load model"]
V_LOADED = ["Loading weights took"]
S_LOAD = ["Load weight begin"]
S_LOADED = ["Load weight end"]


SCENARIOS = [
    # --- vLLM ------------------------------------------------------------------------------------
    v("v-loop-eio-last-shard", "the model on a loop-mounted ext4 image whose backing file is cut "
      "short under the last shard's blocks (reads of it give EIO; the other files read fine)",
      at_step([READY_LINE], lambda c: c.complete(2, max_tokens=12), 8,
              cleanup=lambda: loop_cleanup("v-eio"), wait=120), model=loop_model("v-eio")),
    v("v-cache-root-frozen", "VLLM_CACHE_ROOT on a file system frozen with fsfreeze -f before "
      "the launch (reads go on, writes block); thawed after 80 s",
      frozen_then_thaw("v-frz", 80), env={"VLLM_CACHE_ROOT": str(frozen_dir("v-frz"))},
      before=freeze_before("v-frz")),
    v("v-memcg-tight-after-load", "launched inside a fresh memory cgroup with no limit; once "
      "the worker logs `Loading weights took`, its limit set to its usage plus 64 MiB",
      at_step(V_LOADED, mem_tight("blind100-v", 64), 60, READY_LINE,
              relax("blind100-v", "memory")),
      env=cg_env("blind100-v", "memory"), before=cgroups("blind100-v", "memory")),
    v("v-stop-core-ready-timeout", "VLLM_ENGINE_READY_TIMEOUT_S=40; the EngineCore process "
      "stopped (SIGSTOP) as it starts loading the model, continued 55 s later",
      at_step(V_LOAD, stop_then_cont("EngineCore", 55), 40, READY_LINE),
      env={"VLLM_ENGINE_READY_TIMEOUT_S": "40"}),
    v("v-cpu-quota-at-compile", "VLLM_ENGINE_READY_TIMEOUT_S=60; launched in a fresh cpu cgroup, "
      "its CFS quota cut to 1% of a CPU once the worker logs `Loading weights took`",
      at_step(V_LOADED, cpu_quota("blind100-vq", 1000), 75, READY_LINE,
              relax("blind100-vq", "cpu")),
      env={**cg_env("blind100-vq", "cpu"), "VLLM_ENGINE_READY_TIMEOUT_S": "60"},
      before=cgroups("blind100-vq", "cpu")),
    v("v-shm-fill-at-load", "a private 256 MiB /dev/shm in the engine's mount namespace, filled "
      "to the last byte by another process as the model starts loading",
      at_step(V_LOAD, fill_shm, 60, READY_LINE), env={"B100_SHM": "1"}),
    v("v-loop-eio-config", "the model on a loop-mounted ext4 image whose backing file is cut "
      "short under config.json's blocks (reads of it give EIO; the other files read fine)",
      at_step([READY_LINE], lambda c: c.complete(2, max_tokens=12), 8,
              cleanup=lambda: loop_cleanup("v-eiocfg"), wait=120),
      model=loop_model("v-eiocfg", "config.json")),
    v("v-memcg-tight-at-load", "launched inside a fresh memory cgroup with no limit; once "
      "`Starting to load model` is logged, its limit set to its usage plus 16 MiB",
      at_step(V_LOAD, mem_tight("blind100-vl", 16), 60, READY_LINE,
              relax("blind100-vl", "memory")),
      env=cg_env("blind100-vl", "memory"), before=cgroups("blind100-vl", "memory")),
    # --- SGLang ----------------------------------------------------------------------------------
    s("s-loop-eio-last-shard", "the model on a loop-mounted ext4 image whose backing file is cut "
      "short under the last shard's blocks (reads of it give EIO; the other files read fine)",
      at_step([SG_READY], lambda c: c.complete(2, max_tokens=12), 8,
              cleanup=lambda: loop_cleanup("s-eio"), wait=120), model=loop_model("s-eio")),
    s("s-loop-eio-tokenizer", "the model on a loop-mounted ext4 image whose backing file is cut "
      "short under tokenizer.json's blocks (reads of it give EIO; the other files read fine)",
      at_step([SG_READY], lambda c: c.complete(2, max_tokens=12), 8,
              cleanup=lambda: loop_cleanup("s-eiotok"), wait=120),
      model=loop_model("s-eiotok", "tokenizer.json")),
    s("s-stop-detokenizer-init", "the detokenizer process stopped (SIGSTOP) as soon as it "
      "exists, continued 45 s later",
      at_step(["Load weight begin", "Uvicorn running on"],
              stop_then_cont("sglang::detokenizer", 45), 60, SG_READY, wait=120)),
    s("s-tmpdir-frozen", "TMPDIR on a file system frozen with fsfreeze -f before the launch "
      "(reads go on, writes block); thawed after 80 s",
      frozen_then_thaw("s-frz", 80), env={"TMPDIR": str(frozen_dir("s-frz"))},
      before=freeze_before("s-frz")),
    s("s-memcg-tight-after-load", "launched inside a fresh memory cgroup with no limit; once "
      "`Load weight end` is logged, its limit set to its usage plus 32 MiB",
      at_step(S_LOADED, mem_tight("blind100-s", 32), 60, SG_READY,
              relax("blind100-s", "memory")),
      env=cg_env("blind100-s", "memory"), before=cgroups("blind100-s", "memory")),
    s("s-cpu-quota-watchdog", "--watchdog-timeout 10; launched in a fresh cpu cgroup, its CFS "
      "quota cut to 1% of a CPU once `Load weight end` is logged",
      at_step(S_LOADED, cpu_quota("blind100-sq", 1000), 75, SG_READY,
              relax("blind100-sq", "cpu")),
      env=cg_env("blind100-sq", "cpu"), before=cgroups("blind100-sq", "cpu"),
      extra=("--watchdog-timeout", "10")),
    s("s-stop-scheduler-warmup", "the scheduler process stopped (SIGSTOP) once uvicorn is up "
      "(before the warmup request), continued 40 s later",
      at_step(["Uvicorn running on"], stop_then_cont("sglang::scheduler", 40), 60, SG_READY)),
    s("s-shm-fill-at-load", "a private 256 MiB /dev/shm in the engine's mount namespace, filled "
      "to the last byte by another process as the weights start loading",
      at_step(S_LOAD, fill_shm, 60, SG_READY), env={"B100_SHM": "1"}),
]
