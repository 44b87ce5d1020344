"""The hundred-and-seventy-fourth batch's scenarios (tests/fixtures/corpus/fresh173): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind174.py OUT

Themes: the local Hugging Face cache's layout as offline hosts and copied caches have it. The
model is given by its hub id (acme-lab/llama-tiny) with HF_HUB_OFFLINE=1 (as the recorder sets)
and resolved from a cache built under /tmp/blind174/hf/NAME (HF_HOME) in the real layout
(`hub/models--acme-lab--llama-tiny/{blobs,refs/main,snapshots/<commit>/}`, each snapshot file a
relative symlink to its blob, refs/main holding the commit with no newline), in states people
leave it in: refs/main written by hand with `echo` (the commit and a newline); a cache copied
without its refs folder (vLLM; the 103rd's SGLang take of it was dropped there); a leftover
`.no_exist/<commit>/config.json` marker beside a complete snapshot (a marker left by an earlier
run that asked for the file while the download was cut); a cache carried through a tool without
symlinks (a zip or a git checkout with core.symlinks=false), each snapshot link become a small
text file holding its target path; two snapshots with `--revision` pinning the older, complete
one while refs/main's newer snapshot holds only config.json (its download stopped).

Earlier batches already had (not repeated): refs/main naming an absent snapshot, --revision
naming an absent commit, a shard's blob `.incomplete`, a blob truncated, config.json's blob
removed, tokenizer or weights only in an older snapshot, an older partial snapshot beside a
complete one, --download-dir elsewhere, HF_HUB_CACHE one level too high, SGLang with no refs
folder (103rd); a shard's blob removed under its link (132nd, vLLM); an HF mirror's 401, HTML,
missing repository or branch (147th).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in one invocation (raw1: four SGLang, then five vLLM), taking turns with two
other helpers' recorders; each scenario once. About 4 minutes of recording (234 s: SGLang
40+11+11+41 s, vLLM 8+53+8+8+54 s). 6 kept (final files fa101-fa106). Dropped: v-hub-no-refs and
v-hub-refs-echo-newline (vLLM, a cache with no refs folder, and refs/main holding the commit and
a newline): the two logs are the same to the byte but for times, pids and port, and both read
line for line as fresh102's v-hub-refs-dangling, the hub id and dates aside (`arg_utils.py __post_init__` -> `get_model_path` ->
`snapshot_download`: `LocalEntryNotFoundError: Cannot find an appropriate cached snapshot folder
for the specified revision on the local disk`) - repeats; vLLM's huggingface_hub reads refs/main
without stripping it, so the newline makes the commit name a folder that is not there.
s-hub-refs-echo-newline (SGLang over the same cache) served: `Found local HF snapshot ... at
.../snapshots/5d0c7e2a...` and two completions, nothing of the newline in the log - the fault
never shows. All three removed from the table.

What the engines did: a leftover `.no_exist/<commit>/config.json` marker beside a complete
snapshot ends SGLang's launch in transformers' config lookup, which trusts the marker (`ValueError:
Unrecognized model in acme-lab/llama-tiny. Should have a `model_type` key in its config.json.`,
before server_args), while vLLM resolves the snapshot folder first (`HF_HUB_OFFLINE is True,
replace model_id [...] to model_path [.../snapshots/<commit>]`), reads config.json from the path
and serves. Snapshot links turned into text files end both at their first config read, at launch,
with transformers' `OSError: It looks like the config file at '.../config.json' is not a valid
JSON file.` (SGLang in server_args.resolve_once's get_config, vLLM in create_engine_config's
speculators check). `--revision` pinning an older complete snapshot while refs/main's newer one
holds only config.json: both engines take model and tokenizer from the pinned snapshot and serve.
"""

from __future__ import annotations

import hashlib
import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind174")
HF = ROOT / "hf"
HUB_ID = "acme-lab/llama-tiny"
REPO = "models--acme-lab--llama-tiny"
NEW = "5d0c7e2a91f4b83c6e17a0d4f29b8c51e6a3d7f0"      # refs/main's commit
OLD = "a83f1c6d0e92b7415c3e8d06f1a2b9c74e5d8310"      # an earlier commit
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V = list(VLLM_BASE)


def model_files() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(LLAMA.dir.iterdir())
            if p.is_file() and not p.name.startswith(".")}


def blob_name(name: str, data: bytes) -> str:
    if name.endswith(".safetensors"):
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def snapshot(repo: Path, commit: str, files: dict[str, bytes], only: tuple[str, ...] = (),
             as_text: bool = False) -> None:
    """snapshots/<commit>/ holding ``files`` (or ``only`` those) as links to blobs/ (or, with
    ``as_text``, as text files holding the link's target, as a copy without symlinks has it)."""
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        if only and name not in only:
            continue
        blob = repo / "blobs" / blob_name(name, data)
        blob.write_bytes(data)
        target = Path("../../blobs") / blob.name
        if as_text:
            (snap / name).write_text(str(target))
        else:
            (snap / name).symlink_to(target)


def ref(repo: Path, commit: str, text: str | None = None) -> None:
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(commit if text is None else text)


def hub(name: str, build: Callable[[Path, dict[str, bytes]], None]) -> Callable[[Path], Path]:
    """A model callable: builds HF/name's cache by ``build`` and returns the hub id."""
    def make(work: Path) -> Path:
        home = HF / name
        if home.exists():
            shutil.rmtree(home)
        repo = home / "hub" / REPO
        repo.mkdir(parents=True)
        build(repo, model_files())
        return Path(HUB_ID)
    return make


def no_exist_config(repo: Path, files: dict[str, bytes]) -> None:
    snapshot(repo, NEW, files)
    ref(repo, NEW)
    marker = repo / ".no_exist" / NEW / "config.json"
    marker.parent.mkdir(parents=True)
    marker.write_bytes(b"")


def symlinks_as_text(repo: Path, files: dict[str, bytes]) -> None:
    snapshot(repo, NEW, files, as_text=True)
    ref(repo, NEW)


def older_pinned_main_partial(repo: Path, files: dict[str, bytes]) -> None:
    snapshot(repo, OLD, files)
    snapshot(repo, NEW, files, only=("config.json",))
    ref(repo, NEW)


def home(name: str) -> dict[str, str]:
    return {"HF_HOME": str(HF / name)}


def v_serve(ctx: Ctx) -> None:
    if ctx.wait_for(READY_LINE, 150):
        ctx.complete(2, max_tokens=16)
        time.sleep(11)


def s_serve(ctx: Ctx) -> None:
    if ctx.wait_for(SG_READY, 150):
        ctx.complete(2, max_tokens=16)
        time.sleep(6)
    linger(ctx, 3)


def v(name: str, what: str, build, extra: tuple[str, ...] = ()) -> Scenario:
    return Scenario(name, "vllm", what, [*V, *extra], model=hub(name, build), env=home(name),
                    act=v_serve)


def s(name: str, what: str, build, extra: tuple[str, ...] = ()) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *extra], model=hub(name, build), env=home(name),
                    act=s_serve)


OFF = "hub id from the HF cache (HF_HOME, offline)"
NOEX = (f"{OFF}: a complete snapshot, and a leftover .no_exist/<commit>/config.json marker "
        "beside it")
TEXT = (f"{OFF}, copied by a tool without symlinks: each snapshot file a text file holding its "
        "link's target (../../blobs/<hash>), the blobs beside them")
PIN = (f"{OFF}: --revision pins an older complete snapshot; refs/main names a newer snapshot "
       "holding only config.json (its download stopped)")

SCENARIOS = [
    s("s-hub-no-exist-config", NOEX, no_exist_config),
    s("s-hub-symlinks-as-text", TEXT, symlinks_as_text),
    s("s-hub-revision-older-main-partial", PIN, older_pinned_main_partial,
      ("--revision", OLD)),
    v("v-hub-no-exist-config", NOEX, no_exist_config),
    v("v-hub-symlinks-as-text", TEXT, symlinks_as_text),
    v("v-hub-revision-older-main-partial", PIN, older_pinned_main_partial,
      ("--revision", OLD)),
]
