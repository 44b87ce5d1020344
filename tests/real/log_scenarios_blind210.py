"""The two-hundred-and-tenth batch's scenarios (tests/fixtures/corpus/fresh209): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind210.py OUT

Themes: the model's folder changed under an engine that is loading it or serving from it, as a
deploy job, a sync job or a person replacing a checkpoint in place meets it. A plain `cp` of a
shard over itself (O_TRUNC, then the bytes written back at 20 kB/s) started once vLLM has resolved
the architecture, so that the loader meets a shard still being written; the shards shrunk in
place (`rsync --inplace` of a smaller file: truncate) once the server serves (vLLM to half,
SGLang to nothing), then more requests; a symlinked "current" checkpoint swapped (`ln -sfn`),
between SGLang's config read and its weight loading, to a new release folder whose deploy has
copied config and tokenizer but no shards yet; and SGLang's /update_weights_from_disk called by a
deploy job on the folder it serves from while the job is still rewriting the shards (each cut to
half).

Earlier batches already had (not repeated): every broken checkpoint made before launch (shards
cut, empty or missing, tensors missing, configs cut or of another model: log_faults.py and the
tables since the 67th), a sync job swapping the model folder for another size of the same family
once the engine had read its config and a second download job rewriting the shards in place with
the same bytes while the server starts (118th), a folder or file only root may read (92nd,
130th).

Model copies live under the recorder's work folder (never the cached model); the changes are
made from the recorder's own process (threads and file calls), each timed by a log line the
engine prints, never one in the run's source line. SGLang runs with --device cpu --model-impl
transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in two invocations (raw1: v-cp-shard-during-load, v-shards-shrunk-serving;
raw2: s-shards-emptied-serving, v-symlink-swapped-load, s-symlink-swapped-load,
s-reload-from-half-copied), taking turns with two other helpers' recorders (most of the 25
minutes was waiting for the lock; each recorder was stopped only while it waited, holding no
engine); each scenario once. About 3m50s of recording (vLLM 26+59+27 s, SGLang 55+22+42 s). 5
kept (final files gm101-gm105). Dropped: v-symlink-swapped-load (recorded, 27 s: the vLLM twin of
s-symlink-swapped-load, swapped when the engine core printed `Initializing a V1 LLM engine`; the
worker's `RuntimeError: Cannot find any model weights with .../v-link-current` is the same log as
fresh77/bi102's shards deleted at that very line - a repeat), and, never recorded for lack of
time (the lock's turns came every 3-5 minutes), v-folder-deleted-serving (the model folder rm -rf
after two completions, then completions, chat, /tokenize, /v1/models) and
s-folder-renamed-serving (the same with the folder renamed); all three removed from the table.
Two kept logs answer as earlier ones did, kept for the fault's timing, each note saying so:
gm101's mid-load rewrite gives the words of a shard cut before launch (`SafetensorError: Error
while deserializing header: incomplete metadata, file not fully covered`), gm105's in-place
reload those of fresh94/bz112 (a separate copy's shard cut).

What the engines did. Neither engine showed a mapping of its shards: vLLM with every shard cut
to half and SGLang with every shard emptied under them served every later request 200 OK without
a word (ready/serving; no SIGBUS). vLLM's loader meeting the shard that `cp` was still writing
died in weight loading (`WorkerProc failed to start`, `Engine core initialization failed`).
SGLang, its `current` symlink repointed after the scheduler had read the config, died at `Load
weight begin` with `RuntimeError: Cannot find any model weights with .../s-link-current` (the
path of the link, not of the release). SGLang's /update_weights_from_disk on its half-rewritten
folder did not roll back: the scheduler's event loop raised the SafetensorError and the server
died (`SIGQUIT received ... It usually means one child failed.`).
"""

from __future__ import annotations

import os
import sys
import threading
import time
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, linger  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind210")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def shards(d: Path) -> list[Path]:
    return sorted(d.glob("model-*.safetensors"))


# --- model copies ------------------------------------------------------------------------------

def plain(name: str) -> Callable[[Path], Path]:
    def make(work: Path) -> Path:
        return copy_model(work, name)
    return make


def current_link(name: str) -> Callable[[Path], Path]:
    """work/NAME-current -> NAME-rel1 (a whole copy); NAME-rel2 holds config and tokenizer only
    (a deploy that has not copied the weights yet)."""
    def make(work: Path) -> Path:
        copy_model(work, f"{name}-rel1")
        copy_model(work, f"{name}-rel2", skip=("*.safetensors", "*.safetensors.index.json"))
        link = work / f"{name}-current"
        if link.is_symlink() or link.exists():
            link.unlink()
        link.symlink_to(work / f"{name}-rel1")
        return link
    return make


# --- steps -------------------------------------------------------------------------------------

def get(ctx: Ctx, path: str) -> None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}{path}", timeout=30) as r:
            r.read()
    except OSError:
        pass


def ready_line(ctx: Ctx) -> str:
    return SG_READY if "sglang" in ctx.text().split("\n", 1)[0] else READY_LINE


def serve_tail(ctx: Ctx) -> None:
    """If the run serves: two completions and a pause; else let it end by itself."""
    found = ctx.wait_any([READY_LINE, SG_READY], 200)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        if found == READY_LINE and "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 60)
        ctx.complete(2)
        time.sleep(10)
    else:
        linger(ctx, 20)


def slow_cp_when(needle: str, shard_index: int, rate: int = 20_000) -> Callable[[Ctx], None]:
    """`cp` of a shard over itself, started once ``needle`` is logged: the file is cut to nothing
    (O_TRUNC) and its bytes written back at ``rate`` bytes a second."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(needle, 200):
            shard = shards(ctx.work / "v-cp-shard")[shard_index]
            data = (LLAMA.dir / shard.name).read_bytes()

            def write() -> None:
                with open(shard, "wb") as f:
                    for i in range(0, len(data), rate // 10):
                        f.write(data[i:i + rate // 10])
                        f.flush()
                        time.sleep(0.1)

            threading.Thread(target=write, daemon=True).start()
        serve_tail(ctx)
    return act


def shrink_serving(model: str, keep: float) -> Callable[[Ctx], None]:
    """Served two completions; then every shard cut in place to ``keep`` of its size (an
    `rsync --inplace` of a smaller file), then more requests."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(ready_line(ctx), 240):
            ctx.complete(2)
            for s in shards(ctx.work / model):
                os.truncate(s, int(s.stat().st_size * keep))
            time.sleep(1)
            ctx.complete(3, max_tokens=24)
            get(ctx, "/v1/models")
            linger(ctx, 15)
    return act


def swap_link_when(name: str, needle: str) -> Callable[[Ctx], None]:
    """The `current` symlink repointed at the half-deployed release once ``needle`` is logged."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(needle, 200):
            link = ctx.work / f"{name}-current"
            tmp = ctx.work / f"{name}-current.new"
            tmp.symlink_to(ctx.work / f"{name}-rel2")
            os.replace(tmp, link)     # as `ln -sfn` does it: atomically
        serve_tail(ctx)
    return act


def update_weights_midcopy(model: str) -> Callable[[Ctx], None]:
    """Served; a deploy job rewrites the shards in place (each cut to half, the copy not done)
    and asks the server to reload its weights from that folder; then more requests."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(SG_READY, 240):
            ctx.complete(2)
            d = ctx.work / model
            for s in shards(d):
                data = (LLAMA.dir / s.name).read_bytes()
                with open(s, "wb") as f:
                    f.write(data[: len(data) // 2])
            ctx.post("/update_weights_from_disk", {"model_path": str(d)}, timeout=90)
            time.sleep(2)
            ctx.complete(2)
            get(ctx, "/v1/models")
            linger(ctx, 15)
    return act


SCENARIOS = [
    Scenario("v-cp-shard-during-load", "vllm", "a plain cp rewriting shard 1 of 4 over itself "
             "(truncated, then written back at 20 kB/s) from the API server's architecture line "
             "on, so that the loader meets it half written",
             VLLM_BASE, model=plain("v-cp-shard"),
             act=slow_cp_when("Resolved architecture", 0)),
    Scenario("v-shards-shrunk-serving", "vllm", "every shard cut in place to half its size "
             "(rsync --inplace of smaller files) once the server had served two completions; "
             "then three more", VLLM_BASE, model=plain("v-shrunk"),
             act=shrink_serving("v-shrunk", 0.5)),
    Scenario("s-shards-emptied-serving", "sglang", "every shard cut in place to 0 bytes "
             "(rsync --inplace of empty files) once the server had served two completions; "
             "then three more", SG, model=plain("s-emptied"),
             act=shrink_serving("s-emptied", 0.0)),
    Scenario("s-symlink-swapped-load", "sglang", "the model path a symlink 'current'; "
             "repointed (ln -sfn) at a new release folder holding config and tokenizer but no "
             "shards yet once the scheduler began its parallel setup", SG,
             model=current_link("s-link"),
             act=swap_link_when("s-link", "Init parallel begin")),
    Scenario("s-reload-from-half-copied", "sglang", "a deploy job rewriting the shards in place "
             "(each cut to half, its copy unfinished) calls /update_weights_from_disk on the "
             "same folder; then two completions", SG, model=plain("s-reload"),
             act=update_weights_midcopy("s-reload")),
]
