"""The hundred-and-eighty-first batch's scenarios (tests/fixtures/corpus/fresh180): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind181.py OUT

Themes: cache and state folders given through the environment, as a person sets them moving the
caches off a small root disk or into a container volume. vLLM: VLLM_CACHE_ROOT naming a regular
file; TORCHINDUCTOR_CACHE_DIR a dangling symlink (a volume's link whose target is not mounted);
XDG_CACHE_HOME and TORCHINDUCTOR_CACHE_DIR under a folder whose name has spaces and Greek letters
(`/tmp/blind181/Cache Volume/κρύπτη μοντέλων`); the model by its hub id offline with HF_HOME a
copy of the cache under that spaced, non-ASCII folder. SGLang: SGLANG_CACHE_DIR naming a regular
file; OUTLINES_CACHE_DIR naming a regular file with --grammar-backend outlines (JSON-schema and
regex requests were to follow); the model by hub id with HF_HOME under the spaced folder.

Earlier batches already had (not repeated): HF_HOME naming a plain file with a local model
(107th), VLLM_CACHE_ROOT an empty read-only folder (86th) and on a nearly full tmpfs (69th),
SGLang's cache folder a read-only volume (132nd), a umask that leaves caches unfillable (130th),
a frozen cache root (100th, 109th), a compile cache cleared repeatedly while vLLM compiles
(118th), damaged HF hub caches and --download-dir elsewhere (103rd, 132nd, 174th), a relative
model path from the wrong folder (105th), Outlines' cache on a full disk (146th),
PROMETHEUS_MULTIPROC_DIR a regular file (86th).

vLLM runs with VLLM_BASE's settings and a VLLM_CACHE_ROOT of its own under /tmp/blind181/vc
(a cold compile) unless the scenario sets it; SGLang with --device cpu --model-impl transformers.
A run that serves is given two completions and a short pause. Helper files (the regular files,
the dangling link, the HF caches in the hub layout) live under /tmp/blind181, made when this
table is loaded.

Recorded 2026-12-07 in three invocations (raw1: the first table's eight scenarios; raw2:
s-hf-home-spaces-hub-id; raw3: v-hf-home-spaces-hub-id), taking turns with two other helpers'
recorders; each scenario once. About 6 minutes of recording (vLLM 36+3+40+59+61 s, SGLang
55+5+44+11+46 s). 7 kept (final files fh101-fh107). Dropped, and removed from SCENARIOS:
v-cache-volume-removed (VLLM_CACHE_ROOT on a tmpfs volume lazily unmounted and its mount point
removed at `Warming up model for the compilation...`: vLLM re-made the folder on the root disk,
logged `saved AOT compiled function to /tmp/blind181/vol-cache/vllm/...` and served two
completions - the fault never shows); s-xdg-cache-dangling-link (XDG_CACHE_HOME a dangling
symlink, SGLANG_CACHE_DIR unset: SGLang's cache follows ~/.cache, not XDG, and it served without
a word - never shows); s-hf-home-relative-hub-id (the model by hub id with HF_HOME=hf relative,
the cache beside another working folder: SGLang fails in `apply_muse_spark_env_defaults` ->
get_config with `LocalEntryNotFoundError` / `OSError: We couldn't connect to
'https://huggingface.co' ... couldn't find them in the cached files.` before server_args, line
for line fresh102/ch115's - a repeat).

What the engines did: a cache path that cannot be a folder ends both engines where the path is
first made. vLLM with VLLM_CACHE_ROOT a file logs `Error saving model info cache.`
(NotADirectoryError on .../modelinfos) and goes on, then its worker dies in profile_run at the
compile decorator's `os.makedirs(inductor_cache)` (NotADirectoryError .../torch_compile_cache).
TORCHINDUCTOR_CACHE_DIR as a dangling link kills vLLM as it imports (torch._dynamo makes its
cache dir at import: `FileExistsError: [Errno 17] File exists`), before the banner;
SGLANG_CACHE_DIR a file kills SGLang on the same import (`NotADirectoryError`). Outlines takes
a file for its folder and SQLite fails (`unable to open database file`) as the scheduler imports
the outlines backend, after the KV cache is allocated. A space in the cache path breaks
Inductor's g++ command (the path unquoted: `g++: fatal error: input file '/tmp/blind181/Cache'
is the same as output file`, CppCompileError in profile_run); vLLM puts Inductor's cache under
its own cache root (XDG here), not under TORCHINDUCTOR_CACHE_DIR. A hub cache under a spaced,
non-ASCII HF_HOME is read by both engines without a word (`replace model_id ... to model_path`,
`Found local HF snapshot ...`) and both serve.
"""

from __future__ import annotations

import json
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind181")
VC = ROOT / "vc"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
HUB_ID = "acme-lab/llama-tiny"
HUB_COMMIT = "3f1c9a0b7d2e4c6a8b0d1e2f3a4b5c6d7e8f9a01"
SPACED = ROOT / "Cache Volume" / "κρύπτη μοντέλων"


def _setup() -> None:
    for d in (ROOT, VC):
        d.mkdir(parents=True, exist_ok=True)
    for name in ("vllm-cache-root.file", "sglang-cache.file", "outlines-cache.file"):
        (ROOT / name).write_text("this is a file, not a folder\n")
    link = ROOT / "inductor-link"     # a volume's link whose target is not mounted
    if link.is_symlink() or link.exists():
        link.unlink()
    link.symlink_to("/mnt/cache-volume/inductor")
    SPACED.mkdir(parents=True, exist_ok=True)
    # an HF cache with the model under its hub id, in the layout huggingface_hub reads, built
    # under /tmp/blind181/launch/hf (the dropped s-hf-home-relative-hub-id's HF_HOME=hf)
    repo = ROOT / "launch" / "hf" / "hub" / f"models--{HUB_ID.replace('/', '--')}"
    snap = repo / "snapshots" / HUB_COMMIT
    if not snap.is_dir():
        snap.mkdir(parents=True)
        for f in LLAMA.dir.iterdir():
            if f.is_file() and f.name != ".complete":
                shutil.copy2(f, snap / f.name)
        (repo / "refs").mkdir(exist_ok=True)
        (repo / "refs" / "main").write_text(HUB_COMMIT)
    # the same cache copied into a volume whose path has spaces and Greek letters
    spaced_hf = SPACED / "hf home"
    if not spaced_hf.is_dir():
        shutil.copytree(ROOT / "launch" / "hf", spaced_hf)


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


def s_structured(ctx: Ctx) -> None:
    """SGLang: once fired up, a plain completion, then a JSON-schema and a regex request."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and found == SG_READY:
        ctx.complete(1)
        schema = {"type": "object", "properties": {"name": {"type": "string"}},
                  "required": ["name"]}
        ctx.post("/generate", {"text": "A person as JSON:", "sampling_params": {
            "max_new_tokens": 24, "json_schema": json.dumps(schema)}}, timeout=90)
        ctx.post("/generate", {"text": "A year:", "sampling_params": {
            "max_new_tokens": 8, "regex": "(19|20)[0-9]{2}"}}, timeout=90)
        linger(ctx, 8)


def v_env(name: str, **extra: str) -> dict[str, str]:
    return {"VLLM_CACHE_ROOT": str(VC / name), **extra}


def hub_model(work: Path) -> Path:
    return Path(HUB_ID)


SCENARIOS = [
    Scenario("v-cache-root-is-file", "vllm", "VLLM_CACHE_ROOT names a regular file "
             "(/tmp/blind181/vllm-cache-root.file)", VLLM_BASE,
             env={"VLLM_CACHE_ROOT": str(ROOT / "vllm-cache-root.file")}, act=v_until),
    Scenario("v-inductor-cache-dangling-link", "vllm", "TORCHINDUCTOR_CACHE_DIR is a dangling "
             "symlink (/tmp/blind181/inductor-link -> /mnt/cache-volume/inductor, a volume not "
             "mounted)", VLLM_BASE,
             env=v_env("inductor-link", TORCHINDUCTOR_CACHE_DIR=str(ROOT / "inductor-link")),
             act=v_until),
    Scenario("v-caches-spaces-non-ascii", "vllm", "XDG_CACHE_HOME and TORCHINDUCTOR_CACHE_DIR "
             "under a folder named with spaces and Greek letters (/tmp/blind181/Cache Volume/"
             "κρύπτη μοντέλων), VLLM_CACHE_ROOT unset", VLLM_BASE,
             env={"XDG_CACHE_HOME": str(SPACED / "xdg"),
                  "TORCHINDUCTOR_CACHE_DIR": str(SPACED / "inductor cache")}, act=v_until),
    Scenario("v-hf-home-spaces-hub-id", "vllm", f"the model by hub id ({HUB_ID}) offline, "
             "HF_HOME a copy of the cache under a folder named with spaces and Greek letters "
             "(/tmp/blind181/Cache Volume/κρύπτη μοντέλων/hf home)", VLLM_BASE, model=hub_model,
             env=v_env("hf-spaces", HF_HOME=str(SPACED / "hf home")), act=v_until),
    Scenario("s-sglang-cache-dir-is-file", "sglang", "SGLANG_CACHE_DIR names a regular file "
             "(/tmp/blind181/sglang-cache.file)", SG,
             env={"SGLANG_CACHE_DIR": str(ROOT / "sglang-cache.file")}, act=s_until),
    Scenario("s-outlines-cache-is-file", "sglang", "OUTLINES_CACHE_DIR names a regular file "
             "(/tmp/blind181/outlines-cache.file), --grammar-backend outlines, then a JSON-schema "
             "and a regex request", [*SG, "--grammar-backend", "outlines"],
             env={"OUTLINES_CACHE_DIR": str(ROOT / "outlines-cache.file")}, act=s_structured),
    Scenario("s-hf-home-spaces-hub-id", "sglang", f"the model by hub id ({HUB_ID}) offline, "
             "HF_HOME a copy of the cache under a folder named with spaces and Greek letters "
             "(/tmp/blind181/Cache Volume/κρύπτη μοντέλων/hf home)", SG, model=hub_model,
             env={"HF_HOME": str(SPACED / "hf home")}, act=s_until),
]

assert all(os.sep not in s.name for s in SCENARIOS)
