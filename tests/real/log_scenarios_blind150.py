"""The hundred-and-fiftieth batch's scenarios (tests/fixtures/corpus/fresh149): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind150.py OUT

Themes: a broken Python package under the engine - what a person meets after a partial upgrade,
a conflicting `pip install --user` or a stray file in the working directory. The engines' venvs
are never touched: each scenario puts an overlay folder of its own (/tmp/blind150/ov/NAME, made
when this table is loaded) first on PYTHONPATH, shadowing one package, or writes one stray
module into the working directory the server is started from (`python -m` puts it first on
sys.path). vLLM: uvloop whose __init__ is a newer release's over the installed compiled loop
(`cannot import name`); triton without its compiled half (`import triton` raises ImportError);
llguidance whose compiled _lib is an empty file, with the guidance structured-output backend
(meant to bite on the first constrained request); a stray logging.py in the working directory.
SGLang: orjson whose extension is built for CPython 3.12 only; a stray typing_extensions.py shim
in the working directory; psutil whose __init__ raises psutil's own `version conflict`
ImportError; safetensors whose compiled module is an empty file; an older llguidance without
StructTag, with --grammar-backend llguidance.

Earlier batches already had (not repeated): json.py and token.py in the working directory, a
triton/ client package there (a Triton Inference Server client, SGLang), typing_extensions 4.1.1
and numpy 1 pinned on PYTHONPATH, the other engine's virtualenv and the apt packages on
PYTHONPATH, a sitecustomize.py importing a missing APM agent, a .pth hook (93rd); an xgrammar
copy without its compiled bindings and the other engine's outlines_core (120th); LoRA, torchao,
fastsafetensors, mooncake, LMCache and NIXL packages not installed (112th, 123rd, 125th).

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm);
vLLM with VLLM_BASE's settings.

Recorded 2026-12-06 in one invocation (raw1: the four vLLM scenarios, then the five SGLang ones),
waiting turns with two other helpers' recorders; each scenario once. About 2 minutes of
recording (vLLM 8+46+11+2 s, SGLang 0+1+0+7+44 s). 9 kept (final files ec101-ec109); none
dropped. What the engines did: eight of the nine end in an import traceback; all but one at
launch, before the engine prints a line of its own. vLLM imports uvloop (vllm/v1/utils.py) and
llguidance while the API server imports its modules - llguidance through a LazyLoader that a
class annotation (`ll_matcher: llguidance.LLMatcher`) triggers, so the fault meant for the
first constrained request ended the launch (`_lib.abi3.so: file too short`) whatever the
backend. A broken triton is caught: vLLM says `Triton is installed, but `triton.backends` could
not be imported. Disabling Triton.` in each process, falls back to the V1 model runner and
serves (ready, serving). A stray logging.py kills torch's import with `AttributeError: module
'logging' has no attribute 'getLogger'` (not an ImportError). SGLang imports orjson, psutil and
torch in sglang/__init__.py (sglang/srt/utils/common.py), so those three die at once with no
line of SGLang's; a broken safetensors kills it in server_args.resolve_once (through
transformers' lazy imports), after its own patch gave up quietly (`Could not import
transformers.models.llama.modeling_llama; LlamaFlashAttention2 compat patch not applied.`).
SGLang's grammar backend is built in the scheduler after the KV cache is allocated, so an
llguidance without StructTag ends it there (`Scheduler hit an exception: ... cannot import name
'StructTag' from 'llguidance'`, then `Received sigquit from a child process`).
"""

from __future__ import annotations

import shutil
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import SGLANG, VLLM  # noqa: E402

ROOT = Path("/tmp/blind150")
OV = ROOT / "ov"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
VSITE = VLLM.dir / "lib" / "python3.11" / "site-packages"
SSITE = SGLANG.dir / "lib" / "python3.11" / "site-packages"

LOGGING_PY = '''"""Ship this service's logs to the collector: python logging.py FILE."""
import sys
import urllib.request

COLLECTOR = "http://logs.internal:9000/ingest"


def ship(path):
    with open(path, "rb") as f:
        urllib.request.urlopen(COLLECTOR, data=f.read(), timeout=5)


if __name__ == "__main__":
    ship(sys.argv[1])
'''

TYPING_EXTENSIONS_PY = '''"""Local shim, kept from when the service ran on Python 3.7."""
from typing import Any, Callable, Dict, List, Optional, Union  # noqa: F401

try:
    from typing import Literal, Protocol, TypedDict, Final  # noqa: F401
except ImportError:  # Python 3.7
    Literal = Protocol = TypedDict = Final = None
'''

PSUTIL_INIT = '''"""psutil 5.9.0's Python half over a newer C extension (a partial upgrade)."""
raise ImportError(
    "version conflict: '/root/.local/lib/python3.11/site-packages/psutil/_psutil_linux.abi3.so' "
    "C extension module was built for another version of psutil (7.2.2 instead of 5.9.0); you "
    "may try to 'pip uninstall psutil', manually remove "
    "/root/.local/lib/python3.11/site-packages/psutil or clean the virtual env somehow, then "
    "reinstall")
'''

TRITON_INIT = '''"""triton 3.9.0 after an interrupted upgrade: libtriton.so was never unpacked."""
from ._C.libtriton import ir, passes  # noqa: F401
'''


def _copy_pkg(site: Path, pkg: str, name: str) -> Path:
    dest = OV / name / pkg
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(site / pkg, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _setup() -> None:
    OV.mkdir(parents=True, exist_ok=True)
    # vLLM: uvloop's __init__ from a newer release over the installed compiled loop module
    d = _copy_pkg(VSITE, "uvloop", "v-uvloop")
    init = d / "__init__.py"
    text = init.read_text()
    assert "from .loop import Loop as __BaseLoop" in text
    init.write_text(text.replace(
        "from .loop import Loop as __BaseLoop  # NOQA",
        "from .loop import Loop as __BaseLoop  # NOQA\nfrom .loop import LoopPolicy  # NOQA", 1))
    # vLLM: triton whose compiled half is missing
    t = OV / "v-triton" / "triton"
    t.mkdir(parents=True, exist_ok=True)
    (t / "__init__.py").write_text(TRITON_INIT)
    (t / "_C").mkdir(exist_ok=True)
    (t / "_C" / "__init__.py").write_text("")
    # vLLM: llguidance whose compiled _lib is an empty file (a copy cut short)
    d = _copy_pkg(VSITE, "llguidance", "v-llguidance")
    (d / "_lib.abi3.so").write_bytes(b"")
    # SGLang: orjson's extension built for another Python (cpython-312), none for 3.11
    d = _copy_pkg(SSITE, "orjson", "s-orjson")
    for so in d.glob("orjson.cpython-311-*.so"):
        so.rename(d / so.name.replace("cpython-311", "cpython-312"))
    # SGLang: an older llguidance __init__ without StructTag
    d = _copy_pkg(SSITE, "llguidance", "s-llguidance")
    init = d / "__init__.py"
    init.write_text(init.read_text().replace("from ._struct_tag import StructTag\n", "")
                    .replace('    "StructTag",\n', ""))
    # SGLang: safetensors' compiled module replaced by an empty file
    d = _copy_pkg(SSITE, "safetensors", "s-safetensors")
    (d / "_safetensors_rust.abi3.so").write_bytes(b"")
    # SGLang: psutil's Python half of another version than its C extension
    p = OV / "s-psutil" / "psutil"
    p.mkdir(parents=True, exist_ok=True)
    (p / "__init__.py").write_text(PSUTIL_INIT)


_setup()


# --- steps -------------------------------------------------------------------------------------

def in_cwd(files: dict[str, str]) -> Callable[[Ctx], None]:
    def before(ctx: Ctx) -> None:
        for name, text in files.items():
            (ctx.work / name).write_text(text)
    return before


def then_clean(act: Callable[[Ctx], None], *names: str) -> Callable[[Ctx], None]:
    def run(ctx: Ctx) -> None:
        try:
            act(ctx)
        finally:
            for n in names:
                (ctx.work / n).unlink(missing_ok=True)
    return run


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a pause."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def v_guided(ctx: Ctx) -> None:
    """Up: two plain completions, two constrained ones (a choice, a JSON schema), one plain."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is None or ctx.proc.poll() is not None or READY_LINE not in ctx.text():
        return
    ctx.complete(2)
    name = ctx.model_name()
    ctx.post("/v1/completions", {"model": name, "prompt": "yes or no?", "max_tokens": 4,
                                 "structured_outputs": {"choice": ["yes", "no"]}})
    ctx.post("/v1/completions", {"model": name, "prompt": "a person:", "max_tokens": 24,
                                 "structured_outputs": {"json": {
                                     "type": "object", "properties": {"name": {"type": "string"}},
                                     "required": ["name"]}}})
    time.sleep(2)
    ctx.complete(1)
    linger(ctx, 10)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up; then two completions, one JSON-schema request."""
    found = ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
            ctx.post("/generate", {"text": "a person:", "sampling_params": {
                "max_new_tokens": 16, "json_schema": '{"type": "object", "properties": '
                '{"name": {"type": "string"}}, "required": ["name"]}'}})
        linger(ctx, 10)


def ov(name: str) -> dict[str, str]:
    return {"PYTHONPATH": str(OV / name)}


SCENARIOS = [
    Scenario("v-uvloop-newer-init", "vllm", "PYTHONPATH overlay /tmp/blind150/ov/v-uvloop: uvloop "
             "whose __init__.py is a newer release's, importing a name (LoopPolicy) its "
             "installed compiled loop module lacks (a partial upgrade)", VLLM_BASE,
             env=ov("v-uvloop"), act=v_until),
    Scenario("v-triton-no-libtriton", "vllm", "PYTHONPATH overlay /tmp/blind150/ov/v-triton: a "
             "triton package whose compiled half (triton/_C/libtriton) was never unpacked (an "
             "interrupted upgrade): `import triton` raises ImportError", VLLM_BASE,
             env=ov("v-triton"), act=v_until),
    Scenario("v-llguidance-empty-so", "vllm", "PYTHONPATH overlay /tmp/blind150/ov/v-llguidance: "
             "llguidance whose compiled _lib.abi3.so is an empty file (a copy cut short); "
             "--structured-outputs-config backend guidance, then constrained requests",
             [*VLLM_BASE, "--structured-outputs-config", '{"backend": "guidance"}'],
             env=ov("v-llguidance"), act=v_guided),
    Scenario("v-cwd-logging-py", "vllm", "a script named logging.py (a log shipper) in the "
             "working directory the server is started from", VLLM_BASE,
             before=in_cwd({"logging.py": LOGGING_PY}),
             act=then_clean(v_until, "logging.py")),
    Scenario("s-orjson-cp312-so", "sglang", "PYTHONPATH overlay /tmp/blind150/ov/s-orjson: "
             "orjson whose compiled module is built for CPython 3.12 (a `pip install --user` "
             "from another interpreter), none for 3.11", SG, env=ov("s-orjson"), act=s_until),
    Scenario("s-cwd-typing-extensions-py", "sglang", "a local typing_extensions.py shim (from "
             "the Python 3.7 days) in the working directory the server is started from", SG,
             before=in_cwd({"typing_extensions.py": TYPING_EXTENSIONS_PY}),
             act=then_clean(s_until, "typing_extensions.py")),
    Scenario("s-psutil-version-conflict", "sglang", "PYTHONPATH overlay /tmp/blind150/ov/"
             "s-psutil: psutil whose Python half is of another version than its C extension "
             "(__init__ raises psutil's own `version conflict` ImportError)", SG,
             env=ov("s-psutil"), act=s_until),
    Scenario("s-safetensors-empty-so", "sglang", "PYTHONPATH overlay /tmp/blind150/ov/"
             "s-safetensors: safetensors whose compiled _safetensors_rust.abi3.so is an empty "
             "file", SG, env=ov("s-safetensors"), act=s_until),
    Scenario("s-llguidance-no-structtag", "sglang", "PYTHONPATH overlay /tmp/blind150/ov/"
             "s-llguidance: an older llguidance __init__ without StructTag; --grammar-backend "
             "llguidance", [*SG, "--grammar-backend", "llguidance"], env=ov("s-llguidance"),
             act=s_until),
]
