"""The two-hundred-and-sixtieth batch's scenarios (tests/fixtures/corpus/fresh259): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind260.py OUT

Themes: the Python interpreter's own settings around the engine, a new round - what a shell
profile, an image or a CI runner sets for every Python process. vLLM: `-W
error::DeprecationWarning` (158th had it on SGLang only); PYTHONSAFEPATH=1 while a
--logits-processors module lies in the working directory the launch starts from; `-X
faulthandler` under a CI job's `timeout -s ABRT` fired at the process group once the weights
are loaded; `-X dev` over a launch that serves. SGLang: PYTHONWARNINGS='error:ORJSONResponse is
deprecated' (one FastAPI deprecation made fatal by its message); PYTHONPYCACHEPREFIX=/proc/self/
pycache (a bytecode cache nothing can write); `-X importtime` over a launch that serves.

Earlier batches already had (not repeated): PYTHONWARNINGS=error (72nd, both engines),
EncodingWarning made fatal (93rd, 158th, both), a misspelt PYTHONWARNINGS category (158th, vLLM),
`-W error::DeprecationWarning` (158th, SGLang only), `-W error::FutureWarning` (158th, vLLM; SGLang
showed nothing), `-X dev` (158th, SGLang) and PYTHONDEVMODE over a killed engine core (121st,
vLLM), PYTHONPROFILEIMPORTTIME over a vLLM launch refused at configuration (121st),
faulthandler armed from sitecustomize.py and PYTHONFAULTHANDLER with SIGSEGV/SIGFPE (80th, 121st),
`python -I` dropping PYTHONPATH for a vLLM --middleware (158th), PYTHONOPTIMIZE=2 (78th, both),
PYTHONMALLOC=jemalloc (82nd) and =debug (158th), PYTHONTRACEMALLOC=lots (84th, SGLang),
PYTHONIOENCODING=ascii (78th) and =latin-1 (160th), PYTHONUTF8=0 with the C locale (93rd,
160th), PYTHONPYCACHEPREFIX on a full tmpfs (146th, vLLM), PYTHONHASHSEED=abc (72nd) and =0
(148th), PYTHONINTMAXSTRDIGITS=5 (84th), PYTHONHOME missing (77th), PYTHONUNBUFFERED unset
(104th).

Recorded 2026-12-07 in two invocations (raw1: the first table's seven scenarios; raw2:
v-dev-mode-serving, added after v-tracemalloc-25 was dropped), waiting turns with two other
helpers' recorders; each scenario once. vLLM 7+32+22+52 s, SGLang 51+83+52 s. 7 kept (final files
ik101-ik107). Dropped, and removed from the table: v-tracemalloc-25 (`python -X tracemalloc=25`,
every allocation traced 25 frames deep: in 200 s the launch printed not one line, so the log
holds only the recorder's header - nothing of the run to label).

What the engines did. vLLM under `-W error::DeprecationWarning` dies within a second in its
imports, at torch's `DeprecationWarning: `torch.jit.script_method` is deprecated` (vllm.utils.
deep_gemm's torch.compile pulling in inductor and torch.utils.mkldnn), before its own two
deprecation warnings (crashed, launch). PYTHONSAFEPATH hides the working directory silently
until the worker builds its model runner: `Failed to load 0th LogitsProcessor plugin
b260lp:KeepAll: No module named 'b260lp'`, then `Engine core initialization failed` (crashed,
launch). The group's SIGABRT under `-X faulthandler` gives three processes' `Fatal Python error:
Aborted` dumps interleaved character by character, the worker in `profile_run` (crashed,
kv_cache_alloc). `-X dev` makes vLLM's children print the DeprecationWarnings a plain run hides,
a `ResourceWarning: Unclosed context <zmq.Context()>` and asyncio's `Executing <Task pending
name='Task-1' ...> took 30.232 seconds`, and it serves (ready). SGLang under the ORJSONResponse
filter starts and is fired up as usual (its warm-up request passes), then answers each `GET
/v1/models` 500 with `fastapi.exceptions.FastAPIDeprecationWarning: ORJSONResponse is deprecated`
and serves the completions (ready). PYTHONPYCACHEPREFIX at /proc shows nothing (scheduler_e2e
18.56 s against 17.26 s; ready). `-X importtime` adds 22,303 `import time:` lines from four
processes and serves (ready). Crashed: ik101, ik102, ik103; ready in serving: ik104-ik107; none
hung.
"""

from __future__ import annotations

import os
import signal
import subprocess
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind260")
SG_READY = "The server is fired up and ready to roll!"
LP_MODULE = (
    '"""The team\'s logits processor: nothing banned yet (a placeholder kept in the repo)."""\n\n'
    "from vllm.v1.sample.logits_processor import AdapterLogitsProcessor\n\n\n"
    "class KeepAll(AdapterLogitsProcessor):\n"
    "    @classmethod\n"
    "    def validate_params(cls, params):\n"
    "        return None\n\n"
    "    def is_argmax_invariant(self):\n"
    "        return True\n\n"
    "    def new_req_logits_processor(self, params):\n"
    "        return None\n")


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.output():
        ctx.complete(2, max_tokens=16)
        linger(ctx, 12)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (two completions, a pause)."""
    found = ctx.wait_any([SG_READY], 220)
    if ctx.proc is not None and ctx.proc.poll() is None and found == SG_READY:
        ctx.complete(2, max_tokens=16)
        linger(ctx, 12)


def ci_timeout_abort(ctx: Ctx) -> None:
    """A CI job's `timeout -s ABRT` firing on the whole group once the weights are loaded."""
    if ctx.wait_any(["Loading weights took", "Model loading took"], 240) is None:
        return
    linger(ctx, 2)
    assert ctx.proc is not None
    try:
        os.killpg(ctx.proc.pid, signal.SIGABRT)
    except ProcessLookupError:
        return
    try:
        ctx.proc.wait(40)
    except subprocess.TimeoutExpired:
        pass


def lp_in_workdir(ctx: Ctx) -> None:
    """The logits processor's module in the working directory the launch starts from."""
    (ctx.work / "b260lp.py").write_text(LP_MODULE)


def server_v(*opts: str) -> list[str]:
    return [*opts, "-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", *VLLM_BASE]


def server_s(*opts: str) -> list[str]:
    return [*opts, "-m", "sglang.launch_server", "--model-path", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", "--device", "cpu", "--model-impl", "transformers"]


SCENARIOS = [
    Scenario("v-deprecationwarning-error", "vllm",
             "python -W error::DeprecationWarning (deprecations made fatal, a CI habit carried to "
             "a server)", server_v("-W", "error::DeprecationWarning"), entry="python",
             act=v_until),
    Scenario("v-safepath-cwd-logits-processor", "vllm",
             "PYTHONSAFEPATH=1 (a hardened image's profile) while the launch relies on the "
             "working directory for its --logits-processors b260lp:KeepAll",
             [*server_v(), "--logits-processors", "b260lp:KeepAll"],
             env={"PYTHONSAFEPATH": "1"}, entry="python", before=lp_in_workdir, act=v_until),
    Scenario("v-faulthandler-ci-timeout-abrt", "vllm",
             "python -X faulthandler under a CI job's `timeout -s ABRT` that fires on the whole "
             "process group once the weights are loaded", server_v("-X", "faulthandler"),
             entry="python", act=ci_timeout_abort),
    Scenario("v-dev-mode-serving", "vllm",
             "python -X dev (development mode: asyncio debug, ResourceWarnings and every "
             "DeprecationWarning shown) over a launch that serves", server_v("-X", "dev"),
             entry="python", act=v_until),
    Scenario("s-orjson-deprecation-error", "sglang",
             "PYTHONWARNINGS='error:ORJSONResponse is deprecated' (one known deprecation made "
             "fatal by a CI profile, to catch it before an upgrade)", server_s(),
             env={"PYTHONWARNINGS": "error:ORJSONResponse is deprecated"}, entry="python",
             act=s_until),
    Scenario("s-pycache-prefix-proc", "sglang",
             "PYTHONPYCACHEPREFIX=/proc/self/pycache (bytecode cache pointed at a place nothing "
             "can be written or read)", server_s(),
             env={"PYTHONPYCACHEPREFIX": "/proc/self/pycache"}, entry="python", act=s_until),
    Scenario("s-importtime-serving", "sglang",
             "python -X importtime (import profiling left on) over a launch that serves",
             server_s("-X", "importtime"), entry="python", act=s_until),
]
