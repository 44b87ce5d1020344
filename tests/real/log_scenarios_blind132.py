"""The hundred-and-thirty-second batch's scenarios (tests/fixtures/corpus/fresh131): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind132.py OUT

Themes: filesystems and mounts as a container or a hardened host gives them. /tmp mounted
noexec where the engine's home (and so its compile cache) lives under /tmp (a container run with
HOME=/tmp; both engines); the whole root filesystem read-only with no writable volume
(Kubernetes' readOnlyRootFilesystem, /dev/shm left writable; vLLM); SGLang's cache folder
(SGLANG_CACHE_DIR, where it points Triton's and Inductor's caches) an empty read-only volume; the
model folder on a read-only bind mount, as a model volume is mounted (both engines: a user
expects that to work - it does); /sys/devices/system masked by an empty tmpfs (a sandbox that
hides the CPU topology, as gVisor-like runtimes give a minimal /sys; both engines); and a Hugging
Face cache whose second shard's blob was removed by a cache cleanup, its snapshot symlink left
dangling (vLLM, the model by hub id with HF_HUB_OFFLINE=1: its shard check lists the dangling
link as present).

Earlier batches already had (not repeated): TMPDIR missing, long, full or frozen; /dev/shm
full, tiny or read-only; permissions as another user and a hidden /tmp for the user nobody
(130th); VLLM_CACHE_ROOT an empty read-only folder (86th) and on a nearly full 2 MiB tmpfs
(69th); /proc/cpuinfo masked (88th); HF caches with refs/main naming a missing snapshot, a
config.json blob removed, a shard `.incomplete` with no link, a blob truncated (103rd; SGLang's
shard check fails a dangling shard link exactly as it fails ch113's missing one, so that fault
is recorded for vLLM only).

Each scenario runs entry="python" on /tmp/blind132/wrap.py (written when this table is loaded),
which enters a mount namespace of its own (`unshare -m`, mounts private), applies the fault
there (a bind mount of a folder onto itself remounted `ro` or `noexec`; `/` remounted `ro`;
an empty read-only 4 KiB tmpfs over a folder, to mask it),
changes into its working folder again (so that it is seen through the new mounts) and execs the
engine's interpreter on the engine's usual module. Every run has a HOME of its own under
/tmp/blind132/home (a cold compile cache) but v-rootfs-readonly (HOME=/root). Hub caches are
built under /tmp/blind132/hf/NAME in the real layout (blobs/, refs/main, snapshots/<commit>/
of relative symlinks). SGLang runs with --device cpu --model-impl transformers; vLLM with
VLLM_BASE's settings.

Recorded 2026-12-06 in three invocations (raw1: six vLLM; raw2: five SGLang, run beside raw1;
raw3: one of each for the masked /sys, added once the first results were in), waiting turns
with three other helpers' recorders; each scenario once. About 7m45s of recording (vLLM
50+1+35+65+63+35+26 s, SGLang 7+6+52+56+55+12 s). 9 kept (final files dk101-dk109). Dropped
(and removed from SCENARIOS): v-home-readonly (HOME an empty folder on a read-only bind: vLLM
logs `Error saving model info cache` and its worker dies in profile_run's makedirs of
~/.cache/vllm with `[Errno 30] Read-only file system` - the same log as fresh85/bq102's
read-only VLLM_CACHE_ROOT, a repeat); s-home-readonly (the same traceback as s-cache-dir-readonly,
byte for byte but the path: SGLang's cache folder defaults to ~/.cache/sglang); v-hf-cache-readonly
and s-hf-cache-readonly (a complete HF cache on a read-only volume, model by hub id offline:
both engines resolved the snapshot and served two completions without a word of the mount -
the fault never shows, and the logs are plain hub-id serving runs like fresh102's).

What the engines did: vLLM compiles its model with Inductor on first start and loads the C++
kernel from its compile cache; with that cache on a noexec /tmp the load fails in profile_run
with torch's own advice (`failed to map segment from shared object.  The most common reason
this may occur is if the /tmp folder is mounted with noexec ... set another temporary directory
with TORCHINDUCTOR_CACHE_DIR`), while SGLang on the CPU device compiles nothing and serves under
the same mount. A read-only root filesystem kills vLLM 1 s in, importing torch (dill's
tempfile.gettempdir(): `No usable temporary directory found`). An empty read-only
SGLANG_CACHE_DIR kills SGLang at `import sglang` (torch._dynamo's Inductor cache_dir makedirs,
`[Errno 30] Read-only file system`). Both engines serve from a read-only model folder. Both
run lscpu to bind CPU threads, and with /sys/devices/system masked lscpu fails (`failed to
determine number of CPUs`): vLLM's engine core dies in OMPProcessManager
(`CalledProcessError: ... 'lscpu --json --extended=CPU,CORE,NODE --online'`), SGLang while
resolving its server arguments (`RuntimeError: Unexpected error running 'lscpu'`). A dangling
shard link passes vLLM's index check (the file is listed) and fails in the loader's size count
(`FileNotFoundError ... model-00002-of-00004.safetensors`), in weight_loading.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, linger  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind132")
WRAP = ROOT / "wrap.py"
HOMES = ROOT / "home"
HF = ROOT / "hf"
SGC = ROOT / "sgcache"
SG_READY = "The server is fired up and ready to roll!"
HUB_ID = "tiny-org/llama-tiny"
REPO = "models--tiny-org--llama-tiny"
COMMIT = "5b0e2c7d19a4f3e86c21d0b7a94e5f3c6d8e1a20"
SHARDS = [f"model-0000{i}-of-00004.safetensors" for i in range(1, 5)]

WRAPPER = r'''"""Enter a mount namespace, apply the scenario's mounts, exec the engine."""
import os
import sys

argv = sys.argv[1:]
sh = []
ro = [p for p in os.environ.pop("B132_RO", "").split(":") if p]
noexec = [p for p in os.environ.pop("B132_NOEXEC", "").split(":") if p]
if os.environ.pop("B132_RO_MODEL", ""):
    flag = "--model" if "--model" in argv else "--model-path"
    ro.append(argv[argv.index(flag) + 1])
for p in ro:
    sh.append(f"mount --bind {p} {p} && mount -o remount,bind,ro {p}")
for p in noexec:
    sh.append(f"mount --bind {p} {p} && mount -o remount,bind,noexec,nosuid,nodev {p}")
for p in [p for p in os.environ.pop("B132_MASK", "").split(":") if p]:
    sh.append(f"mount -t tmpfs -o ro,size=4k tmpfs {p}")
if os.environ.pop("B132_ROOTFS_RO", ""):
    sh.append("mount -o remount,bind,ro /")
sh.append(f"cd {os.getcwd()}")
sh.append('exec "$@"')
os.execv("/usr/bin/unshare", ["unshare", "-m", "--propagation", "private", "--", "sh", "-c",
                              " && ".join(sh), "sh", sys.executable, *argv])
'''


def _setup() -> None:
    for d in (ROOT, HOMES, HF, SGC):
        d.mkdir(parents=True, exist_ok=True)
    WRAP.write_text(WRAPPER)


_setup()


# --- homes, caches, model copies ----------------------------------------------------------------

def fresh_dir(path: Path) -> Path:
    if path.exists():
        shutil.rmtree(path)
    path.mkdir(parents=True)
    return path


def before_dirs(*paths: Path) -> Callable[[Ctx], None]:
    def before(ctx: Ctx) -> None:
        for p in paths:
            fresh_dir(p)
    return before


def model_copy(name: str) -> Callable[[Path], Path]:
    def make(work: Path) -> Path:
        return copy_model(work, name)
    return make


def blob_name(name: str, data: bytes) -> str:
    if name.endswith(".safetensors"):
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def hub(name: str, remove_blob: str | None = None) -> Callable[[Path], Path]:
    """A model callable: builds HF/name's cache (complete, or with ``remove_blob``'s blob
    removed and its snapshot link left dangling) and returns the hub id."""
    def make(work: Path) -> Path:
        repo = fresh_dir(HF / name) / "hub" / REPO
        snap = repo / "snapshots" / COMMIT
        snap.mkdir(parents=True)
        (repo / "blobs").mkdir()
        (repo / "refs").mkdir()
        (repo / "refs" / "main").write_text(COMMIT)
        for p in sorted(LLAMA.dir.iterdir()):
            if not p.is_file() or p.name.startswith("."):
                continue
            data = p.read_bytes()
            blob = repo / "blobs" / blob_name(p.name, data)
            blob.write_bytes(data)
            (snap / p.name).symlink_to(Path("../../blobs") / blob.name)
            if p.name == remove_blob:
                blob.unlink()
        return Path(HUB_ID)
    return make


# --- acts -------------------------------------------------------------------------------------

def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a pause."""
    ctx.wait_any([READY_LINE], 180)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2, max_tokens=16)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions); a pause."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2, max_tokens=16)
        linger(ctx, 8)


def server_v() -> list[str]:
    return ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", *VLLM_BASE]


def server_s() -> list[str]:
    return ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
            "--port", "{port}", "--device", "cpu", "--model-impl", "transformers"]


def v(name: str, what: str, env: dict[str, str], model: Callable[[Path], Path] | None = None,
      before: Callable[[Ctx], None] | None = None) -> Scenario:
    return Scenario(name, "vllm", what, [str(WRAP), *server_v()], model=model, env=env,
                    before=before, act=v_until, entry="python")


def s(name: str, what: str, env: dict[str, str], model: Callable[[Path], Path] | None = None,
      before: Callable[[Ctx], None] | None = None) -> Scenario:
    return Scenario(name, "sglang", what, [str(WRAP), *server_s()], model=model, env=env,
                    before=before, act=s_until, entry="python")


def home(name: str) -> Path:
    return HOMES / name


SCENARIOS = [
    # --- vLLM ----------------------------------------------------------------------------------
    v("v-tmp-noexec-home-in-tmp", "/tmp mounted noexec,nosuid,nodev in the run's mount "
      "namespace, HOME an empty folder under /tmp (a container run with HOME under /tmp: vLLM's "
      "compile cache, ~/.cache/vllm, is made there)",
      {"HOME": str(home("v-noexec")), "B132_NOEXEC": "/tmp"}, model_copy("v-noexec"),
      before_dirs(home("v-noexec"))),
    v("v-rootfs-readonly", "the root filesystem remounted read-only in the run's mount "
      "namespace (readOnlyRootFilesystem with no writable volume; /dev/shm and /proc stay "
      "writable), HOME=/root, the cached model", {"HOME": "/root", "B132_ROOTFS_RO": "1"}),
    v("v-model-readonly-bind", "the model folder (a copy of the tiny model) on a read-only bind "
      "mount, as a model volume is mounted; HOME a writable folder of its own",
      {"HOME": str(home("v-model-ro")), "B132_RO_MODEL": "1"}, model_copy("v-model-ro"),
      before_dirs(home("v-model-ro"))),
    v("v-hub-shard-link-dangling", f"the model by hub id ({HUB_ID}) from an HF cache (HF_HOME, "
      "HF_HUB_OFFLINE=1) whose second shard's blob was removed by a cache cleanup, its "
      "snapshot symlink left dangling", {"HOME": str(home("v-dangle")),
                                          "HF_HOME": str(HF / "v-dangle")},
      hub("v-dangle", remove_blob=SHARDS[1]), before_dirs(home("v-dangle"))),
    v("v-sys-devices-masked", "/sys/devices/system masked by an empty read-only tmpfs in the "
      "run's mount namespace (a sandbox that hides the CPU and NUMA topology under /sys, as "
      "gVisor-like runtimes give a minimal /sys); HOME a writable folder of its own",
      {"HOME": str(home("v-sys")), "B132_MASK": "/sys/devices/system"}, model_copy("v-sys"),
      before_dirs(home("v-sys"))),
    # --- SGLang --------------------------------------------------------------------------------
    s("s-cache-dir-readonly", "SGLANG_CACHE_DIR (where SGLang points Triton's and Inductor's "
      "caches) an empty folder on a read-only bind mount (a cache volume meant to be baked, "
      "mounted empty and read-only); HOME writable",
      {"HOME": str(home("s-cache-ro")), "SGLANG_CACHE_DIR": str(SGC / "s-ro"),
       "B132_RO": str(SGC / "s-ro")}, model_copy("s-cache-ro"),
      before_dirs(home("s-cache-ro"), SGC / "s-ro")),
    s("s-model-readonly-bind", "the model folder (a copy of the tiny model) on a read-only bind "
      "mount, as a model volume is mounted; HOME a writable folder of its own",
      {"HOME": str(home("s-model-ro")), "B132_RO_MODEL": "1"}, model_copy("s-model-ro"),
      before_dirs(home("s-model-ro"))),
    s("s-sys-devices-masked", "/sys/devices/system masked by an empty read-only tmpfs in the "
      "run's mount namespace (a sandbox that hides the CPU and NUMA topology under /sys, as "
      "gVisor-like runtimes give a minimal /sys); HOME a writable folder of its own",
      {"HOME": str(home("s-sys")), "B132_MASK": "/sys/devices/system"}, model_copy("s-sys"),
      before_dirs(home("s-sys"))),
    s("s-tmp-noexec-home-in-tmp", "/tmp mounted noexec,nosuid,nodev in the run's mount "
      "namespace, HOME an empty folder under /tmp (a container run with HOME under /tmp: "
      "SGLang's cache folder ~/.cache/sglang is made there)",
      {"HOME": str(home("s-noexec")), "B132_NOEXEC": "/tmp"}, model_copy("s-noexec"),
      before_dirs(home("s-noexec"))),
]
