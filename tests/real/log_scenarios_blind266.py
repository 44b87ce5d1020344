"""The two-hundred-and-sixty-sixth batch's scenarios (tests/fixtures/corpus/fresh265): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind266.py OUT

Themes: compile and graph-capture settings, a new round - what a person copies from a tuning
guide to make the engine faster, one setting per scenario. vLLM: --compilation-config custom_ops
written without their "+"/"-" signs (`["rms_norm", "silu_and_mul"]`); mode DYNAMO_TRACE_ONCE with
torch's own `cudagraphs` backend (a PyTorch tuning page's backend); cudagraph_capture_sizes
[1..32] beside a max_cudagraph_capture_size of 8 (two guides that disagree); TORCH_COMPILE_DEBUG=1
left on from a debugging session. SGLang: the older guides' --cuda-graph-bs 1 2 4 8 (0.5.23 has
only per-phase flags); --enable-piecewise-cuda-graph, which 0.5.23 lacks; --enable-torch-compile
with --torch-compile-max-bs 2 below a --cuda-graph-bs-decode list up to 8;
--enable-torch-compile with --enable-torch-compile-debug-mode.

Earlier batches already had (not repeated): compilation mode 9 (75th), capture sizes a word
(94th), compile_sizes [4] and [4, 8] and [1024] (108th, 198th, 187th), inductor_compile_config's
misspelt key, freezing, simdlen 1024, pass_config given a word, debug_dump_path under /proc,
TORCHINDUCTOR_CPP_WRAPPER, TORCH_COMPILE_DISABLE, TORCHDYNAMO_REPRO_LEVEL a word (126th),
cudagraph_mode FULL and FULL_AND_PIECEWISE on CPU (110th, 180th), an empty capture list, a zero
capture size, --max-seq-len-to-capture, --enforce-eager with FULL (173rd), VLLM_FORCE_AOT_LOAD
with another host's cache (240th), damaged, shared, read-only, full or frozen compile caches
(86th, 100th, 103rd, 109th, 118th, 146th, 181st); SGLang's --enable-torch-compile on CPU and with
--torch-compile-max-bs 0 (126th), with --disable-cuda-graph (240th), with
--disable-cuda-graph-padding (202nd), --disable-cuda-graph, --cuda-graph-max-bs-decode -1,
--cuda-graph-bs-decode above --max-running-requests and --cuda-graph-config backend piecewise
(173rd).

Recorded 2026-12-07 in one invocation (raw1, all eight scenarios, after a wait for another
helper's recorder), each scenario once: vLLM 12, 48, 67, 73 s; SGLang 11, 7, 69, 74 s. All 8
kept (final files iq101-iq108); none dropped. Three faults never showed (iq103, iq107, iq108):
each is kept as a fair ready log of the ground.

What the engines did. vLLM: unsigned custom ops end in argparse's `error: argument
--compilation-config/-cc: 1 validation error for CompilationConfig` / `Invalid syntax 'rms_norm'
for custom op, must be 'all', 'none', '+op' or '-op'` (exit 2); the cudagraphs backend is taken
(`Cudagraph mode FULL_AND_PIECEWISE is not compatible with compilation mode 2. Overriding to
FULL_DECODE_ONLY.`), torch warns `[__cudagraphs] skipping cudagraphs due to ... cpu device` at the
warm-up compile, and it serves; the disagreeing capture sizes pass silently (the engine's config
shows `'cudagraph_capture_sizes': []` on CPU) and it serves; TORCH_COMPILE_DEBUG adds one
`torch/_inductor/debug.py ... debug trace: ...` warning and it serves. SGLang: `sglang serve:
error: ambiguous option: --cuda-graph-bs could match --cuda-graph-bs-decode,
--cuda-graph-bs-prefill` and `error: unrecognized arguments: --enable-piecewise-cuda-graph`
(exit 2 each, after the usage); the max-bs below the list is raised silently to 8
(`'torch_compile_max_bs': 8`) and the debug mode is taken without a word: both serve with `cpu
graph: False`. Crashed at launch: iq101, iq105, iq106; ready in serving: iq102, iq103, iq104,
iq107, iq108.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind266")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def ends_or_serves(ctx: Ctx) -> None:
    """Let the run end by itself; if it serves instead, two plain completions and a pause."""
    found = ctx.wait_any([READY_LINE], 240)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        if "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 120)
        ctx.complete(2)
        time.sleep(10)
    else:
        linger(ctx, 20)


def cc(cfg: dict) -> list[str]:
    return ["--compilation-config", json.dumps(cfg)]


def v(name: str, what: str, args: list[str], env: dict[str, str] | None = None) -> Scenario:
    """A vLLM launch with VLLM_BASE and a cold compile cache of its own."""
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args],
                    env={"VLLM_CACHE_ROOT": str(ROOT / "vc" / name), **(env or {})},
                    act=ends_or_serves)


def s(name: str, what: str, args: list[str], env: dict[str, str] | None = None) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], env=env or {}, act=ends_or_serves)


SCENARIOS = [
    v("v-custom-ops-unsigned",
      "--compilation-config '{\"custom_ops\": [\"rms_norm\", \"silu_and_mul\"]}': a tuning "
      "guide's custom ops written without their +/- signs",
      cc({"custom_ops": ["rms_norm", "silu_and_mul"]})),
    v("v-dynamo-once-cudagraphs-backend",
      "--compilation-config '{\"mode\": \"DYNAMO_TRACE_ONCE\", \"backend\": \"cudagraphs\"}': "
      "torch.compile's own cudagraphs backend from a PyTorch tuning page",
      cc({"mode": "DYNAMO_TRACE_ONCE", "backend": "cudagraphs"})),
    v("v-capture-sizes-over-max",
      "--compilation-config with cudagraph_capture_sizes [1, 2, 4, 8, 16, 32] and "
      "max_cudagraph_capture_size 8 (two guides' settings that disagree)",
      cc({"cudagraph_capture_sizes": [1, 2, 4, 8, 16, 32], "max_cudagraph_capture_size": 8})),
    v("v-torch-compile-debug",
      "TORCH_COMPILE_DEBUG=1 (TORCH_COMPILE_DEBUG_DIR under /tmp/blind266) left on from a "
      "compile-debugging session",
      [], env={"TORCH_COMPILE_DEBUG": "1",
               "TORCH_COMPILE_DEBUG_DIR": str(ROOT / "compile-debug")}),
    s("s-cuda-graph-bs-old-flag",
      "--cuda-graph-bs 1 2 4 8 (the flag of older SGLang guides; 0.5.23 has per-phase "
      "--cuda-graph-bs-decode/--cuda-graph-bs-prefill)",
      ["--cuda-graph-bs", "1", "2", "4", "8"]),
    s("s-enable-piecewise-cuda-graph",
      "--enable-piecewise-cuda-graph from a tuning guide of another SGLang release",
      ["--enable-piecewise-cuda-graph"]),
    s("s-torch-compile-max-bs-below-graph-bs",
      "--enable-torch-compile --torch-compile-max-bs 2 with --cuda-graph-bs-decode 1 2 4 8 "
      "(a capture list above the compile limit)",
      ["--enable-torch-compile", "--torch-compile-max-bs", "2",
       "--cuda-graph-bs-decode", "1", "2", "4", "8"]),
    s("s-torch-compile-debug-mode",
      "--enable-torch-compile with --enable-torch-compile-debug-mode left on",
      ["--enable-torch-compile", "--enable-torch-compile-debug-mode"]),
]
