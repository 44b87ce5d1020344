"""The hundred-and-third batch's scenarios (tests/fixtures/corpus/fresh102): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind103.py OUT

Themes: the caches a host keeps between runs, found damaged or stale. The model named by its
hub id (tiny-org/llama-tiny) with the hub offline (HF_HUB_OFFLINE=1, as the recorder sets),
resolved from a Hugging Face cache built under /tmp/blind103/hf/NAME in the real layout
(`hub/models--tiny-org--llama-tiny/{blobs,refs/main,snapshots/<commit>/}`, each snapshot file a
relative symlink to its blob, named by the file's sha256 for weights and its git blob sha1 for
the rest) in the states people find it: a download cut short (a shard's blob still
`.incomplete`, its snapshot link absent), a blob truncated under an intact link, refs/main
naming a commit whose snapshot is not there, no refs folder at all, `--revision` naming a commit
the cache lacks, a new snapshot without the tokenizer files that only the old one holds, a
config.json link whose blob was removed, an older partial snapshot beside a complete one,
`--download-dir` pointing at an empty folder while the cache holding the model is HF_HOME's,
HF_HUB_CACHE set one level too high (the HF_HOME folder, not its hub/). And vLLM's
torch.compile cache left by earlier runs (a copy of this host's ~/.cache/vllm as VLLM_CACHE_ROOT)
with its compiled .so files cut in half, its AOT `model` artifacts replaced by random bytes, or
every file in it emptied (a disk that filled up while it was written). Faults the engine
survives are labelled ready.

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm).

Recorded 2026-12-05 in three invocations (about 11 minutes of recording: vLLM 7m08s for 11
scenarios, SGLang 3m43s for 10, then 35 s for s-hub-config-blob-gone and
s-hub-weights-old-snapshot); 20 logs kept. Dropped: s-hub-no-refs, s-hub-cache-one-level-up and
s-hub-config-blob-gone, whose logs are byte for byte s-hub-refs-dangling's (times and pid aside):
SGLang fails all four in transformers' config lookup with the same LocalEntryNotFoundError /
`couldn't find them in the cached files` before it prints server_args. What the engines did
here: both resolve a hub id from the cache offline (vLLM says `HF_HUB_OFFLINE is True, replace
model_id [...] to model_path [.../snapshots/<commit>]`, SGLang `Found local HF snapshot ...;
skipping download.`), ignore an older or partial snapshot beside refs/main's, and ignore
--download-dir when HF_HOME's cache holds the model; both refuse a missing shard by the index
(SGLang: `(incomplete download?)`), a truncated blob (SafetensorError) and a snapshot without
tokenizer files; SGLang loads four shards with no index; refs/main naming an absent snapshot and
--revision naming an absent commit fail alike in each engine. vLLM recompiles over every damaged
compile cache (`Compiling model again due to a load failure ..., reason: ...`: `invalid load
key`, `Compile cache file corrupted.`, or, for .so files cut in half, a `C++ compile error`
block quoting g++) and serves. vLLM writes new AOT artifacts into ~/.cache/vllm when
VLLM_CACHE_ROOT is not set.
"""

from __future__ import annotations

import hashlib
import os
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
)
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind103")
HF = ROOT / "hf"
HUB_ID = "tiny-org/llama-tiny"
REPO = "models--tiny-org--llama-tiny"
NEW = "7c1e0b9a4d2f86e35a10c4b7e9d2f0a61b8c3e57"      # refs/main's commit
OLD = "2a9f4c61e0b7d3a58c2e91f4b6a07d3c5e18f92b"      # an earlier snapshot
GONE = "e41d7b02c9a86f35d1e0b4c7a92f6e83d05b1c4a"     # a commit the cache lacks
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
V = list(VLLM_BASE)
TOKENIZER = ("tokenizer.json", "tokenizer_config.json")
SHARDS = [f"model-0000{i}-of-00004.safetensors" for i in range(1, 5)]


def model_files() -> dict[str, bytes]:
    return {p.name: p.read_bytes() for p in sorted(LLAMA.dir.iterdir())
            if p.is_file() and not p.name.startswith(".")}


def blob_name(name: str, data: bytes) -> str:
    if name.endswith(".safetensors"):
        return hashlib.sha256(data).hexdigest()
    return hashlib.sha1(b"blob %d\0" % len(data) + data).hexdigest()


def snapshot(repo: Path, commit: str, files: dict[str, bytes], skip: tuple[str, ...] = ()) -> None:
    """snapshots/<commit>/ holding ``files`` (less ``skip``) as links to blobs/."""
    (repo / "blobs").mkdir(parents=True, exist_ok=True)
    snap = repo / "snapshots" / commit
    snap.mkdir(parents=True, exist_ok=True)
    for name, data in files.items():
        if name in skip:
            continue
        blob = repo / "blobs" / blob_name(name, data)
        blob.write_bytes(data)
        link = snap / name
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(Path("../../blobs") / blob.name)


def fresh_repo(name: str) -> Path:
    home = HF / name
    if home.exists():
        shutil.rmtree(home)
    repo = home / "hub" / REPO
    repo.mkdir(parents=True)
    return repo


def ref(repo: Path, commit: str) -> None:
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(commit)


def hub(name: str, damage=None):
    """A model callable: builds HF/name's cache (complete at NEW unless ``damage`` changes it)
    and returns the hub id."""
    def make(work: Path) -> Path:
        repo = fresh_repo(name)
        files = model_files()
        if damage is None:
            snapshot(repo, NEW, files)
            ref(repo, NEW)
        else:
            damage(repo, files)
        (ROOT / "dl").mkdir(parents=True, exist_ok=True)
        return Path(HUB_ID)
    return make


def shard_incomplete(repo: Path, files: dict[str, bytes]) -> None:
    """The download cut short in the third shard: its blob `<sha256>.incomplete` with 40% of
    the bytes, no link for it in the snapshot."""
    snapshot(repo, NEW, files, skip=(SHARDS[2],))
    data = files[SHARDS[2]]
    (repo / "blobs" / (blob_name(SHARDS[2], data) + ".incomplete")).write_bytes(
        data[: len(data) * 2 // 5])
    ref(repo, NEW)


def blob_truncated(repo: Path, files: dict[str, bytes]) -> None:
    snapshot(repo, NEW, files)
    data = files[SHARDS[1]]
    (repo / "blobs" / blob_name(SHARDS[1], data)).write_bytes(data[: len(data) * 2 // 5])
    ref(repo, NEW)


def refs_dangling(repo: Path, files: dict[str, bytes]) -> None:
    snapshot(repo, OLD, files)
    ref(repo, NEW)


def no_refs(repo: Path, files: dict[str, bytes]) -> None:
    snapshot(repo, NEW, files)


def tokenizer_in_old(repo: Path, files: dict[str, bytes]) -> None:
    snapshot(repo, OLD, files)
    snapshot(repo, NEW, files, skip=TOKENIZER)
    ref(repo, NEW)


def config_blob_gone(repo: Path, files: dict[str, bytes]) -> None:
    snapshot(repo, NEW, files)
    (repo / "blobs" / blob_name("config.json", files["config.json"])).unlink()
    ref(repo, NEW)


def weights_in_old(repo: Path, files: dict[str, bytes]) -> None:
    """refs/main's snapshot holds config and tokenizer but no weight files (nor index): the
    weights only in the older snapshot."""
    snapshot(repo, OLD, files)
    snapshot(repo, NEW, files, skip=(*SHARDS, "model.safetensors.index.json"))
    ref(repo, NEW)


def stale_partial_old(repo: Path, files: dict[str, bytes]) -> None:
    """An older snapshot cut short (config and two shards) beside the complete current one."""
    snapshot(repo, OLD, {k: v for k, v in files.items() if k in ("config.json", *SHARDS[:2])})
    snapshot(repo, NEW, files)
    ref(repo, NEW)


def index_incomplete(repo: Path, files: dict[str, bytes]) -> None:
    """The shard index's download cut short: its blob `.incomplete`, no link; the four shards
    and the rest complete."""
    idx = "model.safetensors.index.json"
    snapshot(repo, NEW, files, skip=(idx,))
    data = files[idx]
    (repo / "blobs" / (blob_name(idx, data) + ".incomplete")).write_bytes(data[:300])
    ref(repo, NEW)


def home(name: str) -> dict[str, str]:
    return {"HF_HOME": str(HF / name)}


# --- vLLM's compile cache: a copy of this host's ~/.cache/vllm, damaged ---------------------

def compile_cache(name: str, how: str):
    def before(ctx: Ctx) -> None:
        dest = ROOT / "vc" / name
        if dest.exists():
            shutil.rmtree(dest)
        shutil.copytree(Path.home() / ".cache" / "vllm", dest, symlinks=True)
        for p in (dest / "torch_compile_cache").rglob("*"):
            if not p.is_file() or p.is_symlink():
                continue
            if how == "so-half" and p.suffix == ".so":
                data = p.read_bytes()
                p.write_bytes(data[: len(data) // 2])
            elif how == "model-garbage" and p.name == "model" and p.parent.name.startswith("rank_"):
                p.write_bytes(os.urandom(p.stat().st_size))
            elif how == "empty":
                p.write_bytes(b"")
    return before


def vc_env(name: str) -> dict[str, str]:
    return {"VLLM_CACHE_ROOT": str(ROOT / "vc" / name)}


# --- acts ------------------------------------------------------------------------------------

def v_serve(ctx: Ctx) -> None:
    if ctx.wait_for(READY_LINE, 150):
        ctx.complete(2, max_tokens=16)
        time.sleep(11)


def s_serve(ctx: Ctx) -> None:
    if ctx.wait_for(SG_READY, 150):
        ctx.complete(2, max_tokens=16)
        time.sleep(6)


def v(name, what, model, env, extra=(), before=None) -> Scenario:
    return Scenario(name, "vllm", what, [*V, *extra], model=model, env=env, before=before,
                    act=v_serve, wait_s=90.0)


def s(name, what, model, env, extra=()) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *extra], model=model, env=env, act=s_serve,
                    wait_s=90.0)


SCENARIOS = [
    # vLLM, model by hub id from a damaged or stale local cache
    v("v-hub-stale-partial-snapshot", "hub id from the HF cache (offline): refs/main's snapshot "
      "complete, an older snapshot beside it cut short (config and two shards)",
      hub("v-stale", stale_partial_old), home("v-stale")),
    v("v-hub-shard-incomplete", "hub id from the HF cache (offline), download cut short: the "
      "third shard's blob still .incomplete (40%), no snapshot link for it",
      hub("v-incomplete", shard_incomplete), home("v-incomplete")),
    v("v-hub-blob-truncated", "hub id from the HF cache (offline): the second shard's blob cut "
      "to 40% under an intact snapshot link", hub("v-trunc", blob_truncated), home("v-trunc")),
    v("v-hub-refs-dangling", "hub id from the HF cache (offline): refs/main names a commit whose "
      "snapshot is not there (only an older one is)", hub("v-refs", refs_dangling),
      home("v-refs")),
    v("v-hub-revision-missing", "hub id from a complete HF cache (offline), --revision naming a "
      "commit the cache lacks", hub("v-rev"), home("v-rev"), extra=["--revision", GONE]),
    v("v-hub-tokenizer-old-snapshot", "hub id from the HF cache (offline): refs/main's snapshot "
      "lacks the tokenizer files, only the older snapshot holds them",
      hub("v-tok", tokenizer_in_old), home("v-tok")),
    v("v-hub-config-blob-gone", "hub id from the HF cache (offline): config.json's blob removed, "
      "its snapshot link dangling", hub("v-cfg", config_blob_gone), home("v-cfg")),
    v("v-download-dir-elsewhere", "hub id in a complete HF cache (HF_HOME, offline), "
      "--download-dir naming an empty folder elsewhere", hub("v-dl"), home("v-dl"),
      extra=["--download-dir", str(ROOT / "dl")]),
    # vLLM, its torch.compile cache from earlier runs damaged
    v("v-compile-cache-so-half", "VLLM_CACHE_ROOT a copy of the host's vLLM cache, every "
      "compiled .so in torch_compile_cache cut in half", None, vc_env("so-half"),
      before=compile_cache("so-half", "so-half")),
    v("v-compile-cache-model-garbage", "VLLM_CACHE_ROOT a copy of the host's vLLM cache, every "
      "AOT artifact (rank_*/model) replaced by random bytes of its size", None,
      vc_env("garbage"), before=compile_cache("garbage", "model-garbage")),
    v("v-compile-cache-emptied", "VLLM_CACHE_ROOT a copy of the host's vLLM cache with every "
      "file in torch_compile_cache empty (a disk that filled while it was written)", None,
      vc_env("empty"), before=compile_cache("empty", "empty")),
    # SGLang, model by hub id from a damaged or stale local cache
    s("s-hub-stale-partial-snapshot", "hub id from the HF cache (offline): refs/main's snapshot "
      "complete, an older snapshot beside it cut short (config and two shards)",
      hub("s-stale", stale_partial_old), home("s-stale")),
    s("s-hub-shard-incomplete", "hub id from the HF cache (offline), download cut short: the "
      "third shard's blob still .incomplete (40%), no snapshot link for it",
      hub("s-incomplete", shard_incomplete), home("s-incomplete")),
    s("s-hub-blob-truncated", "hub id from the HF cache (offline): the second shard's blob cut "
      "to 40% under an intact snapshot link", hub("s-trunc", blob_truncated), home("s-trunc")),
    s("s-hub-refs-dangling", "hub id from the HF cache (offline): refs/main names a commit whose "
      "snapshot is not there (only an older one is)", hub("s-refs", refs_dangling),
      home("s-refs")),
    s("s-hub-no-refs", "hub id from the HF cache (offline): a complete snapshot but no refs "
      "folder (a cache copied without it)", hub("s-norefs", no_refs), home("s-norefs")),
    s("s-hub-revision-missing", "hub id from a complete HF cache (offline), --revision naming a "
      "commit the cache lacks", hub("s-rev"), home("s-rev"), extra=["--revision", GONE]),
    s("s-hub-tokenizer-old-snapshot", "hub id from the HF cache (offline): refs/main's snapshot "
      "lacks the tokenizer files, only the older snapshot holds them",
      hub("s-tok", tokenizer_in_old), home("s-tok")),
    s("s-hub-index-incomplete", "hub id from the HF cache (offline): the shard index's blob "
      "still .incomplete, no link for it; the four shards complete",
      hub("s-idx", index_incomplete), home("s-idx")),
    s("s-hub-config-blob-gone", "hub id from the HF cache (offline): config.json's blob "
      "removed, its snapshot link dangling", hub("s-cfg", config_blob_gone), home("s-cfg")),
    s("s-hub-weights-old-snapshot", "hub id from the HF cache (offline): refs/main's snapshot "
      "holds config and tokenizer but no weight files, only the older snapshot holds them",
      hub("s-wold", weights_in_old), home("s-wold")),
    s("s-download-dir-elsewhere", "hub id in a complete HF cache (HF_HOME, offline), "
      "--download-dir naming an empty folder elsewhere", hub("s-dl"), home("s-dl"),
      extra=["--download-dir", str(ROOT / "dl")]),
    s("s-hub-cache-one-level-up", "hub id, HF_HUB_CACHE set to the HF_HOME folder (which holds "
      "hub/models--...) instead of its hub/ subfolder, offline", hub("s-up"),
      {"HF_HUB_CACHE": str(HF / "s-up")}),
]
