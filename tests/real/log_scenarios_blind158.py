"""The hundred-and-fifty-eighth batch's scenarios (tests/fixtures/corpus/fresh157): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind158.py OUT

Themes: the Python interpreter's own options and environment around the engine, as a person
meets them launching with settings meant for debugging or hardening: isolated mode (`-I`) that
drops the PYTHONPATH a launch relied on, EncodingWarning made fatal (PYTHONWARNDEFAULTENCODING=1
with PYTHONWARNINGS=error::EncodingWarning, both engines), a PYTHONWARNINGS filter naming a
category that does not exist (a typo), Python's development mode (`-X dev`, SGLang), only
DeprecationWarning made fatal (SGLang) and only FutureWarning made fatal (vLLM).

Earlier batches already had (not repeated): PYTHONWARNINGS=error (72nd, both engines),
PYTHONHASHSEED=abc (72nd), PYTHONOPTIMIZE=2 (78th, both), PYTHONMALLOC=jemalloc (82nd),
PYTHONHOME missing (77th, both), PYTHONINTMAXSTRDIGITS=5 (84th), PYTHONIOENCODING=ascii (78th),
PYTHONFAULTHANDLER with signals (80th), -X importtime and PYTHONDEVMODE over a killed vLLM engine
core (121st), PYTHONUNBUFFERED unset (104th).

Each scenario runs entry="python": the engine's interpreter with the options named, then the
server module. vLLM with VLLM_BASE's settings; SGLang with --device cpu --model-impl
transformers. The middleware module of v-isolated-drops-pythonpath is written to
/tmp/blind158/plug/ when this table is loaded.

Recorded 2026-12-06 in two invocations (raw1: the first eight scenarios in table order; raw2:
s-deprecationwarning-error and v-futurewarning-error, added after s-futurewarning-error showed
nothing), taking turns with two other helpers' recorders; each scenario once. About 5m25s of
recording (vLLM 34+1+44+48+25 s, SGLang 1+58+53+51+10 s). 7 kept (final files ek101-ek107).
Dropped, and removed from the table: s-futurewarning-error (`python -W error::FutureWarning` on
SGLang: it served three completions without a FutureWarning raised or a word of the filter -
the fault never shows; the same option kills vLLM's worker, kept as v-futurewarning-error),
s-pythonmalloc-debug and v-pythonmalloc-debug (PYTHONMALLOC=debug: both engines served three
completions, their logs the same as a plain run's; the debug hooks found nothing to report).

What the engines did. PYTHONWARNDEFAULTENCODING=1 with EncodingWarning made an error kills both
engines within a second, before any line of their own, at the same place: `import torch` ->
torch.utils.data -> dill's `open(os.devnull, ...)` without an encoding (`EncodingWarning:
'encoding' argument not specified`). `-W error::DeprecationWarning` lets SGLang's launcher warn
(its UserWarnings pass) and kills it 10 s later in `server_args.resolve_once()`, importing the
quantization methods down to flashinfer's cute_dsl kernels (`DeprecationWarning:
cutlass.utils.LayoutEnum is deprecated`), after a `kill_process_tree called` line; the 72nd
batch's PYTHONWARNINGS=error dies earlier, at the launcher's own UserWarning. `-W
error::FutureWarning` is passed on to vLLM's spawned processes: the worker dies in `init_worker`
on `torch.distributed.reduce_op is deprecated` (a warning every ordinary run prints and survives)
and the API server ends `Engine core initialization failed`; SGLang under the same option
serves. `python -I` hides PYTHONPATH from vLLM silently until the engine is up (`init engine ...
took`): only then does build_app import the --middleware module, `ModuleNotFoundError: No module
named 'b158mw'`, after the engine core is shut down (the engine's words are those of a
--middleware module never installed; the fault is the flag that hid an installed one). A
misspelt category in PYTHONWARNINGS gives
`Invalid -W option ignored: unknown warning category: 'DepreciationWarning'` once per process
(four times) and vLLM serves. `-X dev` makes SGLang print some 57 lines of DeprecationWarnings
(SWIG types, cutlass) in each of its processes and serve as usual; no ResourceWarning or asyncio
slow-callback report appeared in the short run.
"""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind158")
PLUG = ROOT / "plug"
SG_READY = "The server is fired up and ready to roll!"


def _setup() -> None:
    PLUG.mkdir(parents=True, exist_ok=True)
    (PLUG / "b158mw.py").write_text(
        '"""A pass-through HTTP middleware (the team\'s request logger)."""\n\n\n'
        "async def mw(request, call_next):\n"
        "    return await call_next(request)\n")


_setup()


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, three completions and a pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(3, max_tokens=24)
        linger(ctx, 12)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (three completions, a pause)."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and found == SG_READY:
        ctx.complete(3, max_tokens=24)
        linger(ctx, 12)


def server_v(*opts: str) -> list[str]:
    return [*opts, "-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", *VLLM_BASE]


def server_s(*opts: str) -> list[str]:
    return [*opts, "-m", "sglang.launch_server", "--model-path", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", "--device", "cpu", "--model-impl", "transformers"]


def v(name: str, what: str, args: list[str], **env: str) -> Scenario:
    return Scenario(name, "vllm", what, args, env=env, act=v_until, entry="python")


def s(name: str, what: str, args: list[str], **env: str) -> Scenario:
    return Scenario(name, "sglang", what, args, env=env, act=s_until, entry="python")


SCENARIOS = [
    v("v-isolated-drops-pythonpath", "python -I (isolated mode, a hardening flag) while the "
      "launch relies on PYTHONPATH=/tmp/blind158/plug for its --middleware b158mw.mw",
      [*server_v("-I"), "--middleware", "b158mw.mw"], PYTHONPATH=str(PLUG)),
    v("v-encodingwarning-error", "PYTHONWARNDEFAULTENCODING=1 with PYTHONWARNINGS="
      "error::EncodingWarning (a lint setting for open() without encoding= made fatal)",
      server_v(), PYTHONWARNDEFAULTENCODING="1", PYTHONWARNINGS="error::EncodingWarning"),
    s("s-encodingwarning-error", "PYTHONWARNDEFAULTENCODING=1 with PYTHONWARNINGS="
      "error::EncodingWarning (a lint setting for open() without encoding= made fatal)",
      server_s(), PYTHONWARNDEFAULTENCODING="1", PYTHONWARNINGS="error::EncodingWarning"),
    v("v-warnings-category-typo", "PYTHONWARNINGS=ignore::DepreciationWarning (a typo of the "
      "category in a deployment's environment)", server_v(),
      PYTHONWARNINGS="ignore::DepreciationWarning"),
    s("s-dev-mode", "python -X dev (development mode: asyncio debug, ResourceWarnings shown, "
      "faulthandler) over a launch that serves", server_s("-X", "dev")),
    s("s-deprecationwarning-error", "python -W error::DeprecationWarning (deprecations made "
      "fatal, a CI habit carried to a server; other warnings left alone)",
      server_s("-W", "error::DeprecationWarning")),
    v("v-futurewarning-error", "python -W error::FutureWarning (the libraries' future changes "
      "made fatal, other warnings left alone)", server_v("-W", "error::FutureWarning")),
]
