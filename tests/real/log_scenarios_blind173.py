"""The hundred-and-seventy-third batch's scenarios (tests/fixtures/corpus/fresh172): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind173.py OUT

Themes: graph capture and eager settings, as a person copies them from a GPU recipe to this CPU
host. vLLM: --compilation-config with cudagraph_capture_sizes an empty list, --cudagraph-capture-
sizes with a zero, the removed --max-seq-len-to-capture of older recipes, --enforce-eager together
with a compilation config asking for cudagraph_mode FULL. SGLang: the deprecated
--disable-cuda-graph on the command line, --cuda-graph-max-bs-decode -1, --cuda-graph-bs-decode
with sizes above --max-running-requests, and --cuda-graph-config naming a backend the phase
does not have (`piecewise`, an older recipe's word).

Earlier batches already had (not repeated): cudagraph_mode FULL_AND_PIECEWISE with capture sizes
and --cuda-graph-max-bs 512 (110th: ambiguous flag), cudagraph_capture_sizes a word (94th),
compile_sizes [4] (108th), --enable-torch-compile and --torch-compile-max-bs 0 on CPU (126th),
--enforce-eager true (98th), compilation mode 9 (75th), disable-cuda-graph in a YAML config
(107th), --enforce-eager with a full VLLM_CACHE_ROOT (146th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. A run
that serves is given two completions (vLLM also a chat request) and a short pause.

Recorded 2026-12-07 in 1 invocation (raw1: four vLLM, then four SGLang, taking turns with two
other helpers' recorders); each scenario once. About 4m08s of recording (248 s: vLLM 38+37+8+31
s, SGLang 41+41+41+11 s). 8 kept (final files ez101-ez108). Dropped: none (v-capture-sizes-zero
ends as v-capture-sizes-empty does, but its argument line shows the 0 taken and then dropped, so
both are kept; no log repeats an earlier batch's). What the engines did: the CPU build of vLLM
takes an empty capture list and a zero size without a word (`non-default args` show `[]` and
`[0]`; the engine core's config has `'cudagraph_mode': <CUDAGraphMode.NONE: 0>`,
`'cudagraph_capture_sizes': []`) and serves; --enforce-eager beside cudagraph_mode FULL gets a
warning, eager winning (`Enforce eager set, disabling torch.compile, CUDAGraphs, and JIT kernel
warmup. This is equivalent to setting -cc.mode=none -cc.cudagraph_mode=none ...`), and it
serves; the removed --max-seq-len-to-capture ends at argument parsing (`api_server.py: error:
unrecognized arguments: --max-seq-len-to-capture`, exit 2, launch). SGLang 0.5.23 on CPU warns
of the deprecated --disable-cuda-graph (`Use '--cuda-graph-backend-{decode,prefill}=disabled'
instead.`) and serves; it takes --cuda-graph-max-bs-decode -1 silently (the resolved decode
max_bs stays 32) and capture sizes up to 32 above --max-running-requests 4 silently, serving
both (`cpu graph: False`, `cuda_graph={prefill=0.00, decode=0.00, ...}`: nothing is captured on
CPU); a --cuda-graph-config backend it does not know is refused while it resolves its arguments
(`ValueError: --cuda-graph-config[decode].backend='piecewise' not allowed; allowed: ('full',
'breakable', 'disabled')`, exit 1 after 11 s, launch).
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a chat request, a short pause."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        ctx.post("/v1/chat/completions", {"model": ctx.model_name(), "max_tokens": 8,
                                          "messages": [{"role": "user", "content": "hi"}]})
        time.sleep(6)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions); a pause."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def v(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=v_until)


def s(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=s_until)


SCENARIOS = [
    v("v-capture-sizes-empty", "--compilation-config with cudagraph_capture_sizes an empty list "
      "(a GPU recipe's list emptied to 'capture nothing')",
      ["--compilation-config", json.dumps({"cudagraph_capture_sizes": []})]),
    v("v-capture-sizes-zero", "--cudagraph-capture-sizes 0 (zero meant as 'no capture')",
      ["--cudagraph-capture-sizes", "0"]),
    v("v-max-seq-len-to-capture", "--max-seq-len-to-capture 8192 from an older GPU recipe",
      ["--max-seq-len-to-capture", "8192"]),
    v("v-eager-with-full-cudagraph", "--enforce-eager together with --compilation-config "
      "cudagraph_mode FULL (two recipes merged)",
      ["--enforce-eager", "--compilation-config", json.dumps({"cudagraph_mode": "FULL"})]),
    s("s-disable-cuda-graph-cli", "--disable-cuda-graph on the command line (a GPU recipe's "
      "deprecated switch)", ["--disable-cuda-graph"]),
    s("s-cuda-graph-max-bs-decode-neg", "--cuda-graph-max-bs-decode -1 (meant as 'no limit')",
      ["--cuda-graph-max-bs-decode", "-1"]),
    s("s-cuda-graph-bs-over-running", "--cuda-graph-bs-decode 1 2 4 8 16 32 with "
      "--max-running-requests 4 (sizes above the running limit)",
      ["--max-running-requests", "4", "--cuda-graph-bs-decode", "1", "2", "4", "8", "16",
       "32"]),
    s("s-cuda-graph-config-piecewise", "--cuda-graph-config with decode backend 'piecewise' (an "
      "older recipe's word; the phases take full, breakable, disabled)",
      ["--cuda-graph-config", json.dumps({"decode": {"backend": "piecewise", "max_bs": 64}})]),
]
