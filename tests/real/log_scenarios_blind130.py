"""The hundred-and-thirtieth batch's scenarios (tests/fixtures/corpus/fresh129): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind130.py OUT

Themes: the server run as another user, or with a narrowed identity - what a person meets
moving a launch from root to a service account (`setpriv --reuid=65534 --regid=65534
--clear-groups`, as a container's `--user 65534` or a systemd unit's User=nobody would). The
user nobody with a home of its own: a model copy whose config.json (vLLM) or whole folder
(SGLang) only root may read; a model folder (vLLM) or its tokenizer files (SGLang) readable by
the group `ml` (gid 2000) only, the group the account was meant to get, dropped by
--clear-groups; a umask of 0277 set before the launch (every folder the user then makes is r-x
for itself only, so its caches and temporary folders cannot be filled); a --chat-template file
only root may read (both engines); and /tmp and /var/tmp writable by root only (a hardened
image where the service user has no temporary folder; SGLang).

Earlier batches already had (not repeated): nobody with HOME=/root and a user whose home folder
is missing (97th), a uid with no passwd entry (97th), HOME=/proc/self (82nd), a privileged port
and config.json / shard / folder modes for a root without CAP_DAC_* (92nd), TMPDIR
missing/long/full/frozen, /dev/shm full, tiny or read-only.

Each scenario runs entry="python" on /tmp/blind130/wrap.py (written when this table is loaded),
which enters a mount namespace of its own (`unshare -m`), puts a world-readable view over /root
(a bind of /root/.cache and /root/.pyenv, where the engines and their interpreter live: /root
itself is 0700 here, as an image whose engines sit in /opt would not be), optionally hides
/tmp, sets the umask, and execs the engine through setpriv as uid/gid 65534 with no groups. The
model copies (made under the recorder's work folder, never the cached model) are made readable
by all (the cached shards are 0600 root) before the fault is applied. HOME is a folder of the
scenario's own under /tmp/blind130/home, owned by nobody. SGLang runs with --device cpu
--model-impl transformers (its own Llama module imports vllm); vLLM with VLLM_BASE's settings.

Recorded 2026-12-06 in four invocations (raw1: three vLLM; raw2: two vLLM; raw3: three SGLang;
raw4: one vLLM, two SGLang), waiting turns with three other helpers' recorders; each scenario
once. About 3m25s of recording (205 s: vLLM 10+8+8+16+62+58 s, SGLang 13+11+13+5+1 s). 9 kept
(final files di101-di109). Dropped: v-nobody-port-80 (recorded, 10 s: `sock.bind(addr)` /
`PermissionError: [Errno 13] Permission denied` at launch, the same log as fresh91/bw104's
privileged port for a capless root - a repeat) and v-nobody-genconfig-root-only
(generation_config.json mode 0600 root: vLLM served two completions without a word of it - the
fault never shows); both removed from the table, as was s-nobody-port-443 (not recorded, a repeat
of the 92nd's s-port-privileged). What the engines did: every fault here ends the launch within
16 s except the chat template in vLLM, read only after `init engine ... took` (VLLMValidationError
... failed to be opened, after the engine was shut down). vLLM over a folder it cannot enter says
`Invalid repository ID or local directory`; SGLang says `Unrecognized model ... Should have a
model_type key`. Under umask 0277 vLLM's model-registry subprocess cannot write into the
temporary folder it made (`Model architectures ['LlamaForCausalLM'] failed to be inspected`) and
SGLang dies importing torch._dynamo (Inductor's cache_dir under ~/.cache/sglang). With no
writable temporary folder SGLang dies importing torch (dill calls tempfile.gettempdir()). As a
non-root user both engines warn that the open-files limit cannot be raised.
"""

from __future__ import annotations

import os
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, linger  # noqa: E402

ROOT = Path("/tmp/blind130")
WRAP = ROOT / "wrap.py"
RV = ROOT / "rv"            # the view put over /root in the engine's mount namespace
HOMES = ROOT / "home"
SG_READY = "The server is fired up and ready to roll!"
NOBODY = 65534
ML_GID = 2000

WRAPPER = r'''"""Enter a mount namespace, give /root a readable view, then exec the engine as nobody."""
import os
import sys

argv = sys.argv[1:]
rv = "/tmp/blind130/rv"
sh = [f"mount --bind /root/.cache {rv}/.cache", f"mount --bind /root/.pyenv {rv}/.pyenv"]
hide_tmp = os.environ.pop("B130_HIDE_TMP", "")
if hide_tmp:
    # the model moves into the /root view, since /tmp is hidden below
    i = argv.index("--model-path") + 1
    sh.append(f"mount --bind {argv[i]} {rv}/model")
    argv[i] = "/root/model"
sh.append(f"mount --rbind {rv} /root")
if hide_tmp:
    sh += ["mount --bind /tmp/blind130/roottmp /var/tmp", "mount --bind /tmp/blind130/roottmp /tmp"]
umask = os.environ.pop("B130_UMASK", "")
if umask:
    sh.append(f"umask {umask}")
sh.append('exec setpriv --reuid 65534 --regid 65534 --clear-groups -- "$@"')
os.execv("/usr/bin/unshare", ["unshare", "-m", "--", "sh", "-c", " && ".join(sh), "sh",
                              sys.executable, *argv])
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    ROOT.chmod(0o755)
    for d in (RV / ".cache", RV / ".pyenv", RV / "model", ROOT / "roottmp", HOMES):
        d.mkdir(parents=True, exist_ok=True)
    for d in (RV, RV / ".cache", RV / ".pyenv", RV / "model", ROOT / "roottmp", HOMES):
        d.chmod(0o755)
    WRAP.write_text(WRAPPER)
    WRAP.chmod(0o644)
    tpl = ROOT / "chat-root-only.jinja"
    tpl.write_text("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                   "{% if add_generation_prompt %}assistant:{% endif %}")
    tpl.chmod(0o600)


_setup()


# --- model copies: readable by all, then the fault -------------------------------------------

def readable(name: str, fault: Callable[[Path], None] | None = None) -> Callable[[Path], Path]:
    def make(work: Path) -> Path:
        work.chmod(0o755)
        d = copy_model(work, name)
        d.chmod(0o755)
        for f in d.iterdir():
            f.chmod(0o644)
        if fault:
            fault(d)
        return d
    return make


def config_root_only(d: Path) -> None:
    (d / "config.json").chmod(0o600)


def folder_root_only(d: Path) -> None:
    d.chmod(0o700)


def folder_group_ml(d: Path) -> None:
    os.chown(d, 0, ML_GID)
    d.chmod(0o750)


def tokenizer_group_ml(d: Path) -> None:
    for f in ("tokenizer.json", "tokenizer_config.json"):
        os.chown(d / f, 0, ML_GID)
        (d / f).chmod(0o640)


# --- steps -------------------------------------------------------------------------------------

def home_of(name: str, base: Path = HOMES) -> Path:
    return base / name


def fresh_home(name: str, base: Path = HOMES) -> Callable[[Ctx], None]:
    def before(ctx: Ctx) -> None:
        h = home_of(name, base)
        if h.exists():
            shutil.rmtree(h)
        h.mkdir(parents=True)
        os.chown(h, NOBODY, NOBODY)
        h.chmod(0o700)
    return before


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a chat request, a short pause."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        ctx.post("/v1/chat/completions", {"model": ctx.model_name(), "max_tokens": 8,
                                          "messages": [{"role": "user", "content": "hi"}]})
        time.sleep(6)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends, is fired up (two completions) or logs a bind error; a pause."""
    found = ctx.wait_any([SG_READY, "error while attempting to bind"], 120)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def server_v(port: str = "{port}") -> list[str]:
    return ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", port, *VLLM_BASE]


def server_s(port: str = "{port}") -> list[str]:
    return ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
            "--port", port, "--device", "cpu", "--model-impl", "transformers"]


def env_for(name: str, base: Path = HOMES, **extra: str) -> dict[str, str]:
    home = home_of(name, base)
    if base.is_relative_to(RV):     # seen through the view over /root
        home = Path("/root") / home.relative_to(RV)
    return {"HOME": str(home), "USER": "nobody", "LOGNAME": "nobody", **extra}


def v(name: str, what: str, model: Callable[[Path], Path], args: list[str] | None = None,
      **extra: str) -> Scenario:
    return Scenario(name, "vllm", what, [str(WRAP), *(args or server_v())], model=model,
                    env=env_for(name, **extra), before=fresh_home(name), act=v_until,
                    entry="python")


def s(name: str, what: str, model: Callable[[Path], Path], args: list[str] | None = None,
      base: Path = HOMES, **extra: str) -> Scenario:
    return Scenario(name, "sglang", what, [str(WRAP), *(args or server_s())], model=model,
                    env=env_for(name, base, **extra), before=fresh_home(name, base),
                    act=s_until, entry="python")


AS = ("the server run as nobody (setpriv --reuid 65534 --regid 65534 --clear-groups) with a "
      "writable home of its own")

SCENARIOS = [
    v("v-nobody-config-root-only", f"{AS}; the model copy's config.json mode 0600 owned by "
      "root (the rest readable)", readable("nobody-v-cfg", config_root_only)),
    v("v-groups-cleared-model", f"{AS}; the model folder is 0750 root:ml (gid 2000), readable "
      "through the group ml the account was meant to have, which --clear-groups dropped",
      readable("nobody-v-grp", folder_group_ml)),
    v("v-nobody-umask-277", f"{AS}, its home empty, umask 0277 set before the launch (folders "
      "it makes are r-x for itself only: its caches cannot be filled)", readable("nobody-v-um"),
      B130_UMASK="0277"),
    v("v-nobody-chat-template-root-only", f"{AS}; --chat-template names a file mode 0600 owned "
      "by root", readable("nobody-v-chat"),
      [*server_v(), "--chat-template", str(ROOT / "chat-root-only.jinja")]),
    s("s-nobody-chat-template-root-only", f"{AS}; --chat-template names a file mode 0600 owned "
      "by root", readable("nobody-s-chat"),
      [*server_s(), "--chat-template", str(ROOT / "chat-root-only.jinja")]),
    s("s-nobody-model-root-only", f"{AS}; the model copy's folder mode 0700 owned by root",
      readable("nobody-s-dir", folder_root_only)),
    s("s-groups-cleared-tokenizer", f"{AS}; tokenizer.json and tokenizer_config.json 0640 "
      "root:ml (gid 2000), readable through the group ml the account was meant to have, which "
      "--clear-groups dropped", readable("nobody-s-tok", tokenizer_group_ml)),
    s("s-nobody-umask-277", f"{AS}, its home empty, umask 0277 set before the launch (folders "
      "it makes are r-x for itself only: its caches cannot be filled)", readable("nobody-s-um"),
      B130_UMASK="0277"),
    s("s-nobody-no-tmp", f"{AS} (home under /root's view); /tmp and /var/tmp are root's 0755 "
      "folders in its mount namespace and its working folder is root's: no temporary folder it "
      "can write", readable("nobody-s-tmp"), base=RV / "home", B130_HIDE_TMP="1"),
]
