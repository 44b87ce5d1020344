"""The two-hundred-and-fortieth batch's scenarios (tests/fixtures/corpus/fresh239): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind240.py OUT

Themes: what an optimisation campaign does to make each launch start faster, one shortcut per
scenario. vLLM: --load-format dummy (random weights, for a dry run) left on in a real launch
that then serves real completions; the engine's startup timeout shortened in the environment and
written with its unit (VLLM_ENGINE_READY_TIMEOUT_S=30s); the model copied to a fast scratch
folder and served from there while the copy of its shards is still running (24 KiB/s, the
JSON and tokenizer files already there); VLLM_FORCE_AOT_LOAD=1 to make sure the torch.compile
cache copied in from another host (VLLM_CACHE_ROOT at a copy holding that host's AOT artifact
under that host's hash) is loaded instead of rebuilt. SGLang: the same copy still running;
--enable-torch-compile mixed with --disable-cuda-graph (the graph runner that compiles switched
off); --skip-tokenizer-init to save the tokenizer's load, then what a benchmark client sends (text
/v1/completions, then a token-id /generate whose ids the client took from a Llama-style 32k
tokenizer, two of them past this model's 512-id vocabulary); the shards prefetched into the page
cache (--weight-loader-prefetch-checkpoints) with --weight-loader-prefetch-num-threads 0.

Earlier batches already had (not repeated): SGLang --load-format dummy (94th) and vLLM's latency
benchmark on dummy weights (207th); SGLang --skip-server-warmup, --warmups and a client's own
warm-up burst (187th); SGLANG_WARMUP_TIMEOUT (107th, 129th); VLLM_ENGINE_READY_TIMEOUT_S=3 (68th,
77th) and short ready or watchdog timeouts under CPU quotas or a frozen group (100th, 199th);
short --watchdog-timeout values (129th, 201st, 234th); vLLM compile caches damaged (103rd),
cleared by a neighbour (118th), on a full or read-only disk (69th, 132nd, 146th),
VLLM_DISABLE_COMPILE_CACHE=true (91st); shards rewritten in place while the server starts (118th);
--enable-torch-compile alone and --torch-compile-max-bs 0 on CPU (126th); --disable-cuda-graph
alone, --enforce-eager with cudagraph_mode FULL (173rd); --skip-tokenizer-init with a text
/generate (154th), with chat and token ids past the vocabulary on vLLM (78th, 189th, 202nd); the
loaders' own options (182nd: --model-loader-extra-config, tensorizer, layered, ...);
--safetensors-load-strategy torchao (123rd, 138th); back-to-back launches (211th).

Recorded 2026-12-07 in two invocations (raw1: the first table's six scenarios; raw2:
v-force-aot-load-copied-cache and s-prefetch-threads-zero, added to make eight), waiting turns
with other helpers' recorders; each scenario once. About 5m15s of recording (vLLM 44+8+29+44 s,
SGLang 34+61+70+25 s). All 8 kept (final files hq101-hq108); none dropped. The copy step is a
thread of the recorder writing under /tmp/blind240/copies (a plain folder, no tmpfs mounted). In
s-skip-tokenizer-completions the token ids past the vocabulary were this table's own request (ids
written for a Llama-size vocabulary), not intended as the fault; the log is kept as recorded and
labelled by what it shows.

What the engines did. vLLM on dummy weights reads no weight file (`Initializing model took`, no
`Loading weights took`), recompiles over a stale cache entry (`Compiling model again due to a load
failure`), comes up and answers three completions 200 (hq101, ready in serving). The unit in the
ready timeout ends the API server at once, importing the engine client: `ValueError: invalid
literal for int() with base 10: '30s'` from envs.py (hq102, crashed at launch). The copy still
running ends vLLM's loader with `FileNotFoundError: Weight files referenced in index but missing:
{... model-00002/3/4 ...}` (hq103, weight_loading) and SGLang's with `RuntimeError:
model.safetensors.index.json references 3 shard file(s) missing from ... (incomplete download?)`
(hq105, weight_loading). Forced AOT loading with no artifact under this launch's hash kills the
worker in the profile run: `FileNotFoundError: [Errno 2] No such file or directory:
'.../torch_compile_cache/torch_aot_compile/5dae2f8b.../rank_0_0/model'` and `Engine core
initialization failed` (hq104, kv_cache_alloc). SGLang warns only that --disable-cuda-graph is
deprecated, compiles nothing (`cpu graph: False`) and serves (hq106, ready in serving). With the
tokenizer skipped it answers text completions `400 Bad Request` and dies on the token ids past the
vocabulary in the embedding (`IndexError: index out of range in self`, `SIGQUIT received`, hq107,
crashed in serving). Prefetch with no threads dies as the loader starts it: `ValueError: weight
loader prefetch num_threads must be >= 1` (hq108, weight_loading). Crashed: hq102, hq103, hq104,
hq105, hq107, hq108; ready in serving: hq101, hq106; none hung.
"""

from __future__ import annotations

import shutil
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, serve_a_little, until_exit, up  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind240")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
COPY_BPS = 24 * 1024        # the copy's pace: the 2.9 MB of shards take about two minutes


COPIED_CACHE = ROOT / "vc-copied"     # a vLLM cache root copied in from another host


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    # what `rsync -a otherhost:~/.cache/vllm/` brings: another host's AOT artifact, under the
    # hash of that host's config and version
    art = (COPIED_CACHE / "torch_compile_cache" / "torch_aot_compile" / ("3f" * 32) / "rank_0_0")
    art.mkdir(parents=True, exist_ok=True)
    if not (art / "model").exists():
        (art / "model").write_bytes(bytes(range(256)) * 64)


_setup()


def copy_still_running(name: str) -> object:
    """A copy of the tiny model to a fast folder that is still being written when the engine
    starts: the JSON and tokenizer files at once, then the shards in order, each opened and
    written in 24 KiB pieces a second (as `cp -r` to a RAM disk looks on a slow source)."""
    def make(work: Path) -> Path:
        dest = ROOT / "copies" / name
        if dest.exists():
            shutil.rmtree(dest)
        dest.mkdir(parents=True)
        files = sorted(p for p in LLAMA.dir.iterdir() if p.name != ".complete")
        small = [p for p in files if not p.name.endswith(".safetensors")]
        shards = [p for p in files if p.name.endswith(".safetensors")]
        for p in small:
            shutil.copyfile(p, dest / p.name)

        def copy() -> None:
            for p in shards:
                data = p.read_bytes()
                with open(dest / p.name, "wb") as f:
                    for i in range(0, len(data), COPY_BPS):
                        f.write(data[i:i + COPY_BPS])
                        f.flush()
                        time.sleep(1)
        threading.Thread(target=copy, daemon=True).start()
        return dest
    return make


def sg_ends_or_serves(ctx: Ctx) -> None:
    """Let SGLang end by itself; if it comes up, two completions and a pause."""
    if ctx.wait_for(SG_READY, 300) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        time.sleep(10)
    else:
        linger(ctx, 15)


def sg_text_completions(ctx: Ctx) -> None:
    """With --skip-tokenizer-init: a benchmark client's text /v1/completions, then token ids."""
    if ctx.wait_for(SG_READY, 300) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        ctx.post("/generate", {"input_ids": [1, 450, 4996, 17354],
                               "sampling_params": {"max_new_tokens": 8}})
        ctx.complete(1)
        linger(ctx, 12)
    else:
        linger(ctx, 15)


def v_serve_or_end(ctx: Ctx) -> None:
    if up(ctx, 240) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(3, max_tokens=24)
        time.sleep(12)
    else:
        linger(ctx, 15)


SCENARIOS = [
    Scenario("v-load-dummy-serve", "vllm",
             "--load-format dummy (random weights, for a dry run of the launch) left on, then "
             "real completions", [*VLLM_BASE, "--load-format", "dummy"], act=serve_a_little),
    Scenario("v-ready-timeout-unit", "vllm",
             "VLLM_ENGINE_READY_TIMEOUT_S shortened and written with its unit (30s)",
             VLLM_BASE, env={"VLLM_ENGINE_READY_TIMEOUT_S": "30s"}, act=until_exit),
    Scenario("v-copy-still-running", "vllm",
             "the model copied to a fast scratch folder and served from there while the copy "
             "of its shards is still running (24 KiB/s)", VLLM_BASE,
             model=copy_still_running("v-copy-still-running"), act=v_serve_or_end),
    Scenario("v-force-aot-load-copied-cache", "vllm",
             "VLLM_FORCE_AOT_LOAD=1 to be sure the compile cache copied in from another host "
             "(VLLM_CACHE_ROOT, another host's artifact under its own hash) is loaded, not "
             "rebuilt", VLLM_BASE,
             env={"VLLM_FORCE_AOT_LOAD": "1", "VLLM_CACHE_ROOT": str(COPIED_CACHE)},
             act=v_serve_or_end),
    Scenario("s-copy-still-running", "sglang",
             "the model copied to a fast scratch folder and served from there while the copy "
             "of its shards is still running (24 KiB/s)", SG,
             model=copy_still_running("s-copy-still-running"), act=sg_ends_or_serves),
    Scenario("s-torch-compile-no-graph", "sglang",
             "--enable-torch-compile together with --disable-cuda-graph (compile asked for, the "
             "graph runner that compiles switched off)",
             [*SG, "--enable-torch-compile", "--disable-cuda-graph"], act=sg_ends_or_serves),
    Scenario("s-skip-tokenizer-completions", "sglang",
             "--skip-tokenizer-init to save the tokenizer's load time, then a benchmark "
             "client's text /v1/completions (and token-id /generate)",
             [*SG, "--skip-tokenizer-init"], act=sg_text_completions),
    Scenario("s-prefetch-threads-zero", "sglang",
             "--weight-loader-prefetch-checkpoints (the shards read into the page cache before "
             "loading) with --weight-loader-prefetch-num-threads 0",
             [*SG, "--weight-loader-prefetch-checkpoints", "--weight-loader-prefetch-num-threads",
              "0"], act=sg_ends_or_serves),
]
