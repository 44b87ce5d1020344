"""The two-hundred-and-seventy-fourth batch's scenarios (tests/fixtures/corpus/fresh273): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind274.py OUT

Themes: the local Hugging Face cache's layout, a new round. The model is given by its hub id
(lumen-ai/llama-tiny) with HF_HUB_OFFLINE=1 (as the recorder sets) and resolved from a cache built
by hand under /tmp/blind274/hf/NAME (HF_HOME) in the real layout (`hub/models--lumen-ai--llama-tiny/
{blobs,refs,snapshots/<commit>/}`, each snapshot file a relative symlink to its blob), one fault
each: a tag (refs/v0.1) naming an older snapshot whose config.json gives 128 positions, pinned
with `--revision v0.1` (both engines: vLLM at --max-model-len 256, SGLang at --context-length
1024); tokenizer.json's blob deleted under its link (vLLM); the cache under TRANSFORMERS_CACHE,
an old image's setting, with HF_HOME an empty cache (vLLM); HF_HOME on a read-only bind mount, in
a mount namespace of the engine's own made by /tmp/blind274/romount.py (vLLM); a leftover
`.no_exist/<commit>/tokenizer.json` marker beside a complete snapshot (SGLang); the shard index's
blob truncated to 300 bytes under its link (SGLang); a killed re-download's `.locks/.../<blob>.lock`
and `<blob>.incomplete` left beside a complete snapshot (SGLang).

Earlier batches already had (not repeated): refs/main naming an absent snapshot, --revision
naming an absent commit, a shard's blob `.incomplete` with no link, a shard's blob truncated,
config.json's blob removed, the shard index's blob `.incomplete` with no link, tokenizer or
weights only in an older snapshot, an older partial snapshot beside a complete one,
--download-dir elsewhere, HF_HUB_CACHE one level too high (103rd); a shard's blob removed under
its link (132nd); refs/main written with a newline, no refs folder, a `.no_exist` marker for
config.json, snapshot links as text files, --revision pinning an older complete snapshot while
main's is partial (174th); HF_HOME under a spaced, non-ASCII folder (181st); a mirror's broken
downloads (147th, 197th); root's hub cache shared read-only by permissions with a service account
(264th).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings. A run
that serves is given two plain completions and a short pause.

Recorded 2026-12-07 in one invocation (raw1: four vLLM, then four SGLang), taking turns with
other helpers' recorders; each scenario once. About 4 minutes of recording (228 s: vLLM 8+11+9+66
s, SGLang 12+15+23+84 s). All 8 kept (final files iy101-iy108); none dropped. A slip of this
table, kept as it ran: s-hub-lock-left's lock file went under HF_HOME/.locks/<repo>/ rather than
HF_HOME/hub/.locks/<repo>/ where huggingface_hub keeps its locks (the `.incomplete` blob is where a
download leaves it); the run served, and the note of iy108 says so.

What the engines did. A tag pinned with --revision whose snapshot's config.json gives 128
positions: both engines take the tag's snapshot and refuse the length asked at launch (vLLM's
ModelConfig `User-specified max_model_len (256) is greater than the derived max_model_len
(max_position_embeddings=128.0 ...)`; SGLang in resolve_once `ValueError: Warning: User-specified
context_length (1024) is greater than the derived context_length (128)`) - crashed. tokenizer.json's
blob deleted (vLLM) and a `.no_exist` marker for tokenizer.json (SGLang, which trusts the marker
over the intact file): both die building the tokenizer, before any weights, in transformers'
`Couldn't instantiate the backend tokenizer from one of: ...` - crashed. The cache only under
TRANSFORMERS_CACHE: vLLM's argument handling dies at once on `LocalEntryNotFoundError: Cannot find
an appropriate cached snapshot folder ...` (neither transformers 5 nor huggingface_hub reads that
variable) - crashed. The shard index's blob cut to 300 bytes: SGLang warns `Failed to read index
file`, then its scheduler dies in the loader on the same `JSONDecodeError` after `Load weight
begin` - crashed. HF_HOME read-only (vLLM) and a lock file with a partial `.incomplete` blob
(SGLang): nothing shows; both load and serve two completions - ready. No run hung.
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

ROOT = Path("/tmp/blind274")
HF = ROOT / "hf"
HUB_ID = "lumen-ai/llama-tiny"
REPO = "models--lumen-ai--llama-tiny"
NEW = "9b41e07c2d5a8f36e1c04b7d92a5f8e013c6d74b"      # refs/main's commit
OLD = "3e7d2a90c14b6f85d0e29a1c7b48f3d65e0a9c12"      # the v0.1 tag's commit
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V = list(VLLM_BASE)
RO_WRAP = ROOT / "romount.py"


def model_files() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(LLAMA.dir.iterdir())
            if p.is_file() and not p.name.startswith(".")}


def blob_name(name: str, data: bytes) -> str:
    if name.endswith(".safetensors"):
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def snapshot(repo: Path, commit: str, files: dict[str, bytes]) -> dict[str, Path]:
    """snapshots/<commit>/ holding ``files`` as relative links to blobs/; the blobs by name."""
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True, exist_ok=True)
    blobs = {}
    for name, data in files.items():
        blob = repo / "blobs" / blob_name(name, data)
        blob.write_bytes(data)
        (snap / name).symlink_to(Path("../../blobs") / blob.name)
        blobs[name] = blob
    return blobs


def ref(repo: Path, commit: str, name: str = "main") -> None:
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / name).write_text(commit)


def build_cache(home: Path, build: Callable[[Path, dict[str, bytes]], None]) -> None:
    if home.exists():
        shutil.rmtree(home)
    repo = home / "hub" / REPO
    repo.mkdir(parents=True)
    build(repo, model_files())


def hub(name: str, build: Callable[[Path, dict[str, bytes]], None]) -> Callable[[Path], Path]:
    """A model callable: builds HF/name's cache by ``build`` and returns the hub id."""
    def make(work: Path) -> Path:
        build_cache(HF / name, build)
        return Path(HUB_ID)
    return make


def complete(repo: Path, files: dict[str, bytes]) -> None:
    snapshot(repo, NEW, files)
    ref(repo, NEW)


def tag_short_context(repo: Path, files: dict[str, bytes]) -> None:
    """main: the model as it is; tag v0.1: an older commit whose config.json gave 128
    positions (the same weights and tokenizer)."""
    complete(repo, files)
    cfg = files["config.json"].decode().replace('"max_position_embeddings": 2048',
                                                '"max_position_embeddings": 128')
    snapshot(repo, OLD, {**files, "config.json": cfg.encode()})
    ref(repo, OLD, "v0.1")


def tokenizer_blob_deleted(repo: Path, files: dict[str, bytes]) -> None:
    blobs = snapshot(repo, NEW, files)
    ref(repo, NEW)
    blobs["tokenizer.json"].unlink()


def index_blob_truncated(repo: Path, files: dict[str, bytes]) -> None:
    blobs = snapshot(repo, NEW, files)
    ref(repo, NEW)
    blobs["model.safetensors.index.json"].write_bytes(
        files["model.safetensors.index.json"][:300])


def no_exist_tokenizer(repo: Path, files: dict[str, bytes]) -> None:
    complete(repo, files)
    marker = repo / ".no_exist" / NEW / "tokenizer.json"
    marker.parent.mkdir(parents=True)
    marker.write_bytes(b"")


def lock_left(repo: Path, files: dict[str, bytes]) -> None:
    """A download killed while it re-fetched the last shard: its lock file and a partial
    `.incomplete` blob left beside the complete snapshot. (As recorded, the lock went under
    HF_HOME/.locks, not HF_HOME/hub/.locks where huggingface_hub keeps them: see Recorded.)"""
    blobs = snapshot(repo, NEW, files)
    ref(repo, NEW)
    shard = blobs["model-00004-of-00004.safetensors"]
    locks = repo.parent.parent / ".locks" / REPO
    locks.mkdir(parents=True)
    (locks / f"{shard.name}.lock").write_bytes(b"")
    (repo / "blobs" / f"{shard.name}.incomplete").write_bytes(shard.read_bytes()[:65536])


def transformers_cache_only(name: str) -> Callable[[Path], Path]:
    """The model's cache under TRANSFORMERS_CACHE (an old image's setting); HF_HOME an empty
    cache of its own."""
    def make(work: Path) -> Path:
        build_cache(HF / f"{name}-tc", complete)
        empty = HF / name
        if empty.exists():
            shutil.rmtree(empty)
        (empty / "hub").mkdir(parents=True)
        return Path(HUB_ID)
    return make


def tc_env(name: str) -> dict[str, str]:
    return {"HF_HOME": str(HF / name), "TRANSFORMERS_CACHE": str(HF / f"{name}-tc" / "hub")}


def home(name: str) -> dict[str, str]:
    return {"HF_HOME": str(HF / name)}


RO_WRAP.parent.mkdir(parents=True, exist_ok=True)
RO_WRAP.write_text(
    "import os, sys\n"
    "# python romount.py DIR ARGS...: DIR bind-mounted read-only in a mount namespace of its\n"
    "# own, then this interpreter on ARGS\n"
    "d, rest = sys.argv[1], sys.argv[2:]\n"
    "script = ('mount --bind \"$1\" \"$1\" && mount -o remount,bind,ro \"$1\" && shift && '\n"
    "          'exec \"$@\"')\n"
    "os.execvp('unshare', ['unshare', '-m', '--propagation', 'private', 'sh', '-c', script,\n"
    "                      'sh', d, sys.executable, *rest])\n")


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
TAG = (f"{OFF}: --revision v0.1, a tag whose older snapshot's config.json gives "
       "max_position_embeddings 128 (refs/main's snapshot 2048)")
TOKDEL = (f"{OFF}: tokenizer.json's blob deleted by a cache cleanup, its snapshot link left "
          "dangling")
IDXCUT = (f"{OFF}: model.safetensors.index.json's blob truncated to 300 bytes under its "
          "intact link")
NOEXTOK = f"{OFF}: a leftover .no_exist/<commit>/tokenizer.json marker beside a complete snapshot"
LOCK = (f"{OFF}: a killed re-download's .locks/.../<blob>.lock and <blob>.incomplete left "
        "beside a complete snapshot")
TC = ("hub id offline: the model's cache under TRANSFORMERS_CACHE (an old image's setting), "
      "HF_HOME an empty cache")
RO = f"{OFF}: HF_HOME on a read-only bind mount (a model volume mounted ro)"
RO_NAME = "v-hub-cache-ro-mount"

SCENARIOS = [
    v("v-hub-revision-tag-short-context", TAG, tag_short_context, ("--revision", "v0.1")),
    v("v-hub-tokenizer-blob-deleted", TOKDEL, tokenizer_blob_deleted),
    Scenario("v-hub-transformers-cache-only", "vllm", TC, V,
             model=transformers_cache_only("v-hub-transformers-cache-only"),
             env=tc_env("v-hub-transformers-cache-only"), act=v_serve),
    Scenario(RO_NAME, "vllm", RO,
             [str(RO_WRAP), str(HF / RO_NAME), "-m", "vllm.entrypoints.openai.api_server",
              "--model", "{model}", "--host", "127.0.0.1", "--port", "{port}", *V],
             model=hub(RO_NAME, complete), env=home(RO_NAME), act=v_serve, entry="python"),
    s("s-hub-revision-tag-short-context", TAG, tag_short_context,
      ("--revision", "v0.1", "--context-length", "1024")),
    s("s-hub-no-exist-tokenizer", NOEXTOK, no_exist_tokenizer),
    s("s-hub-index-blob-truncated", IDXCUT, index_blob_truncated),
    s("s-hub-lock-left", LOCK, lock_left),
]
