"""The two-hundred-and-twenty-fifth batch's scenarios (tests/fixtures/corpus/fresh224): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind225.py OUT

Themes: a long-lived host's housekeeping touching what a running engine keeps on disk and in
shared memory - a cleanup job run while the engine loads, warms up or serves, each timed from a
log line. A disk-space reaper deleting the model's *.safetensors shards (a copy) as the engine
starts, before its weights are read (vLLM at `Initializing a V1 LLM engine`, SGLang at `Init
parallel begin.`); systemd-tmpfiles removing the server's whole TMPDIR while it starts (vLLM at
`Initializing a V1 LLM engine`, SGLang at `Load weight begin`); a cron job emptying TMPDIR and
deleting the engine's own /dev/shm files (`find $TMPDIR /dev/shm -mindepth 1 -delete`, limited
to the files the run's processes hold mapped or open) while it serves, then more traffic (both
engines); a reaper deleting the whole model folder once the weights are loaded, as vLLM's worker
starts its warm-up compile. (As recorded, the four start-up acts whose `what` quotes the line
they wait for fired at launch instead: the recorder's own `# source:` line holds that phrase, so
the shards and TMPDIR went as the server was launched - see below.)

Earlier batches already had (not repeated): the tokenizer files, chat template and Prometheus
multiproc folder removed and the model folder renamed while serving (99th); a shared compile
cache cleared repeatedly by another job while vLLM compiles and a tmp reaper deleting vLLM's
IPC socket files in VLLM_RPC_BASE_PATH as they appear (118th); /dev/shm tiny, full or read-only
(87th, 88th, 100th); TMPDIR missing, long, full or frozen (89th, 100th, 130th); HF caches with a
blob removed by a cleanup, a dangling snapshot link, a truncated blob (103rd, 132nd) or laid
out oddly (174th); cache folders naming files or dangling links (181st);
disk full under the caches (69th, 146th).

Each scenario has folders of its own under /tmp/blind225/run/NAME (TMPDIR, HF_HOME,
XDG_CACHE_HOME, VLLM_CACHE_ROOT, TRITON_CACHE_DIR, TORCHINDUCTOR_CACHE_DIR: cold caches), made
fresh when this table is loaded; model copies go to /tmp/blind225/models/NAME; what each act
deleted is written to /tmp/blind225/reaped-NAME.txt. vLLM runs with VLLM_BASE's settings;
SGLang with --device cpu --model-impl transformers.

Recorded 2026-12-07 in two invocations (raw1: the first seven scenarios of the first table;
raw2: v-model-dir-reaped-at-compile, added after raw1), waiting turns with two other helpers'
recorders; each scenario once. About 8 minutes of recording (vLLM 45+97+97+13+85 s, SGLang
34+83+85 s). 7 kept (final files hb101-hb107). Dropped (removed from the table):
v-model-dir-reaped-at-warmup (recorded, 13 s): its `what` quoted `Warming up model for the
compilation...`, the line its act waited for, so the act matched the recorder's source line and
deleted the model folder at launch; the log is vLLM's plain model-path-missing failure
(`HFValidationError: Repo id must be in the form ...` in `get_model_path`, before any engine
process), a fault the corpus has many times - replaced by v-model-dir-reaped-at-compile, whose
`what` does not quote its line. The same slip timed four kept scenarios at launch rather than at
their line (v-shards-reaped-at-engine-init, v-tmpdir-removed-at-engine-init,
s-shards-reaped-at-init-parallel, s-tmpdir-removed-at-load): kept, as fair logs of a reaper
deleting the shards, or tmpfiles the TMPDIR, as the server starts; their notes say so.

What the engines did. Shards reaped at launch: both read config and tokenizer, then fail in
their loader's `_prepare_weights` with `RuntimeError: Cannot find any model weights with
`/tmp/blind225/models/...`` (vLLM: `WorkerProc failed to start.`, `EngineCore failed to
start.`, `Engine core initialization failed`; SGLang: after `Load weight begin`, `Scheduler hit
an exception`, `Received sigquit from a child process`) - crashed in weight loading. TMPDIR
removed at launch: neither engine says anything; vLLM's gloo init file goes to /tmp instead of
TMPDIR (`distributed_init_method=file:///tmp/vllm_dist_...`) and both serve three completions -
ready. TMPDIR emptied and the engine's /dev/shm files deleted while serving (vLLM: Inductor's
folder, the gloo init file, two psm_* segments; SGLang: tmp files, Inductor's and cutlass's
folders, one sglang_loads_*.shm): both answer all five completions 200 and print nothing of it
- ready. The model folder deleted at vLLM's warm-up compile: the compile and KV cache finish
(`init engine (profile, create kv cache, warmup model) took 39.66 s`), then the engine core,
building its structured-output manager, loads the tokenizer from the vanished folder: `Error
retrieving file list: Repo id must be in the form ...`, `EngineCore failed to start.`, `OSError:
Repo id must be in the form ...` - crashed in warmup. Crashed: hb101, hb104, hb105; ready in
serving: hb102, hb103, hb106, hb107. None hung.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, linger  # noqa: E402

ROOT = Path("/tmp/blind225")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
V_ENGINE_INIT = "Initializing a V1 LLM engine"
V_WARMUP = "Warming up model for the compilation"
S_INIT_PARALLEL = "Init parallel begin."
S_LOAD_BEGIN = "Load weight begin"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def note(name: str, text: str) -> None:
    """What the housekeeping did, for the labeller (never into the engine's log)."""
    with open(ROOT / f"reaped-{name}.txt", "a") as f:
        f.write(f"{time.strftime('%H:%M:%S')} {text}\n")


def own_dirs(name: str) -> dict[str, str]:
    """Temporary and cache folders of the scenario's own under ROOT (made fresh)."""
    base = ROOT / "run" / name
    shutil.rmtree(base, ignore_errors=True)
    env = {}
    for var, sub in (("TMPDIR", "tmp"), ("HF_HOME", "hf"), ("XDG_CACHE_HOME", "cache"),
                     ("VLLM_CACHE_ROOT", "cache/vllm"), ("TRITON_CACHE_DIR", "cache/triton"),
                     ("TORCHINDUCTOR_CACHE_DIR", "cache/inductor")):
        (base / sub).mkdir(parents=True, exist_ok=True)
        env[var] = str(base / sub)
    return env


def model_copy(name: str):
    def make(work: Path) -> Path:
        (ROOT / "models").mkdir(parents=True, exist_ok=True)
        return copy_model(ROOT / "models", name)
    return make


def is_sglang(ctx: Ctx) -> bool:
    return "sglang" in ctx.text().split("\n", 1)[0]


def traffic(ctx: Ctx, n: int = 3) -> None:
    """If the server is up: n completions and a pause for a stats line; else let it end."""
    if ctx.proc is not None and ctx.proc.poll() is None:
        found = ctx.wait_any([SG_READY if is_sglang(ctx) else READY_LINE], 200)
        if found and ctx.proc.poll() is None:
            ctx.complete(n, max_tokens=16)
            time.sleep(12)
            return
    linger(ctx, 20)


def engine_shm_files(ctx: Ctx) -> set[str]:
    """/dev/shm files the run's own processes hold open or mapped (no one else's)."""
    assert ctx.proc is not None
    out: set[str] = set()
    try:
        procs = [psutil.Process(ctx.proc.pid), *psutil.Process(ctx.proc.pid).children(True)]
    except psutil.Error:
        return out
    for p in procs:
        try:
            with open(f"/proc/{p.pid}/maps") as f:
                for line in f:
                    parts = line.split(None, 5)
                    if len(parts) == 6 and parts[5].startswith("/dev/shm/"):
                        out.add(parts[5].strip().removesuffix(" (deleted)"))
            for of in p.open_files():
                if of.path.startswith("/dev/shm/"):
                    out.add(of.path)
        except (psutil.Error, OSError):
            continue
    return out


def empty_folder(path: Path) -> list[str]:
    """`find PATH -mindepth 1 -delete`: everything under it gone, the folder kept."""
    gone = []
    for p in sorted(path.rglob("*"), key=lambda q: len(q.parts), reverse=True):
        try:
            if p.is_dir() and not p.is_symlink():
                p.rmdir()
            else:
                p.unlink()
            gone.append(str(p))
        except OSError:
            continue
    return gone


def reap_shards_when(needle: str, name: str):
    """A disk-space reaper deletes the model copy's *.safetensors once ``needle`` is logged."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(needle, 240):
            d = ROOT / "models" / name
            for f in sorted(d.glob("*.safetensors")):
                f.unlink()
                note(name, f"deleted {f}")
        traffic(ctx)
    return act


def remove_tmpdir_when(needle: str, name: str, env: dict[str, str]):
    """systemd-tmpfiles removes the run's whole TMPDIR once ``needle`` is logged."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(needle, 240):
            tmp = Path(env["TMPDIR"])
            note(name, f"rm -rf {tmp}: {sorted(str(p) for p in tmp.rglob('*'))}")
            shutil.rmtree(tmp, ignore_errors=True)
        traffic(ctx)
    return act


def sweep_tmp_and_shm_serving(name: str, env: dict[str, str]):
    """Served two completions; then a cron job empties TMPDIR and /dev/shm (the run's own
    files there); then more traffic."""
    def act(ctx: Ctx) -> None:
        ready = SG_READY if is_sglang(ctx) else READY_LINE
        if ctx.wait_for(ready, 300) and ctx.proc is not None and ctx.proc.poll() is None:
            ctx.complete(2, max_tokens=16)
            gone = empty_folder(Path(env["TMPDIR"]))
            for f in sorted(engine_shm_files(ctx)):
                try:
                    os.unlink(f)
                    gone.append(f)
                except OSError:
                    pass
            note(name, f"deleted {gone}")
            time.sleep(2)
            ctx.complete(3, max_tokens=16)
            time.sleep(12)
        else:
            linger(ctx, 20)
    return act


def remove_model_when(needle: str, name: str):
    """A reaper deletes the whole model copy (an 'old' folder) once ``needle`` is logged."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(needle, 240):
            d = ROOT / "models" / name
            shutil.rmtree(d, ignore_errors=True)
            note(name, f"rm -rf {d}")
        traffic(ctx)
    return act


E = {n: own_dirs(n) for n in ("v-shards-reaped-at-engine-init", "v-tmpdir-removed-at-engine-init",
                              "v-tmp-shm-swept-serving", "v-model-dir-reaped-at-compile",
                              "s-shards-reaped-at-init-parallel", "s-tmpdir-removed-at-load",
                              "s-tmp-shm-swept-serving")}

SCENARIOS = [
    Scenario("v-shards-reaped-at-engine-init", "vllm",
             "a disk-space reaper deletes the model copy's *.safetensors shards as the engine "
             "core starts (`Initializing a V1 LLM engine`), before the weights are loaded",
             VLLM_BASE, model=model_copy("v-shards-reaped-at-engine-init"),
             env=E["v-shards-reaped-at-engine-init"],
             act=reap_shards_when(V_ENGINE_INIT, "v-shards-reaped-at-engine-init")),
    Scenario("v-tmpdir-removed-at-engine-init", "vllm",
             "systemd-tmpfiles removes the server's whole TMPDIR (its own folder under "
             "/tmp/blind225) as the engine core starts (`Initializing a V1 LLM engine`)",
             VLLM_BASE, env=E["v-tmpdir-removed-at-engine-init"],
             act=remove_tmpdir_when(V_ENGINE_INIT, "v-tmpdir-removed-at-engine-init",
                                    E["v-tmpdir-removed-at-engine-init"])),
    Scenario("v-tmp-shm-swept-serving", "vllm",
             "a cron job (`find $TMPDIR /dev/shm -mindepth 1 -delete`) empties the serving "
             "engine's TMPDIR and deletes its /dev/shm files after two completions; then three "
             "more", VLLM_BASE, env=E["v-tmp-shm-swept-serving"],
             act=sweep_tmp_and_shm_serving("v-tmp-shm-swept-serving",
                                           E["v-tmp-shm-swept-serving"])),
    # v-model-dir-reaped-at-warmup was recorded and dropped (see the docstring): its `what`
    # quoted the line its act waited for, so the act fired on the source line at launch
    Scenario("v-model-dir-reaped-at-compile", "vllm",
             "a reaper deletes the whole model folder (a copy) once the weights are loaded, as "
             "the worker begins its warm-up compile",
             VLLM_BASE, model=model_copy("v-model-dir-reaped-at-compile"),
             env=E["v-model-dir-reaped-at-compile"],
             act=remove_model_when(V_WARMUP, "v-model-dir-reaped-at-compile")),
    Scenario("s-shards-reaped-at-init-parallel", "sglang",
             "a disk-space reaper deletes the model copy's *.safetensors shards as the scheduler "
             "starts (`Init parallel begin.`), before the weights are loaded",
             SG, model=model_copy("s-shards-reaped-at-init-parallel"),
             env=E["s-shards-reaped-at-init-parallel"],
             act=reap_shards_when(S_INIT_PARALLEL, "s-shards-reaped-at-init-parallel")),
    Scenario("s-tmpdir-removed-at-load", "sglang",
             "systemd-tmpfiles removes the server's whole TMPDIR (its own folder under "
             "/tmp/blind225) as the weights start loading (`Load weight begin`)",
             SG, env=E["s-tmpdir-removed-at-load"],
             act=remove_tmpdir_when(S_LOAD_BEGIN, "s-tmpdir-removed-at-load",
                                    E["s-tmpdir-removed-at-load"])),
    Scenario("s-tmp-shm-swept-serving", "sglang",
             "a cron job (`find $TMPDIR /dev/shm -mindepth 1 -delete`) empties the serving "
             "engine's TMPDIR and deletes its /dev/shm files after two completions; then three "
             "more", SG, env=E["s-tmp-shm-swept-serving"],
             act=sweep_tmp_and_shm_serving("s-tmp-shm-swept-serving",
                                           E["s-tmp-shm-swept-serving"])),
]
