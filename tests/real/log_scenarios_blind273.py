"""The two-hundred-and-seventy-third batch's scenarios (tests/fixtures/corpus/fresh272): faults
chosen, recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind273.py OUT

Themes: broken packages under the engines, a new round - what a person meets after a `pip
install` that half-worked or a container layer that mixed versions. The engines' venvs are never
touched: each scenario puts a copy of one package, changed, first on PYTHONPATH
(/tmp/blind273/ov/NAME, made when this table is loaded). vLLM: transformers whose
models/llama/configuration_llama.py is cut to half its size (a copy cut short; meant for the
model-config phase); tokenizers with an older release's unchecked-hash __init__ bytecode left in
__pycache__ beside the current source (a stale .pyc that Python never checks against its .py;
it imports AddedVocabulary); xgrammar whose compiler.py is cut to half its size (meant for the
first constrained request); a project's own opentelemetry/ package (a regular package of
tracing defaults) shadowing the opentelemetry namespace package, with --otlp-traces-endpoint.
SGLang: pydantic one release newer (installed --no-deps), requiring a pydantic-core the
environment does not have; tokenizers without its compiled tokenizers.abi3.so (a half-done
uninstall); transformers with an older release's unchecked-hash modeling_llama bytecode left in
__pycache__ (it imports LossKwargs from transformers.utils; meant for the model-building phase,
--model-impl transformers); xgrammar with structural_tag.py deleted (meant for the grammar
backend / a constrained request).

Earlier batches already had (not repeated): uvloop, triton, llguidance (vLLM and SGLang),
orjson, psutil and safetensors broken on PYTHONPATH, a logging.py and a typing_extensions.py in
the working directory (150th); typing_extensions 4.1.1 and numpy 1.26.4 pinned on PYTHONPATH,
the other engine's virtualenv and the apt packages on PYTHONPATH, a sitecustomize importing a
missing APM agent, a sitecustomize adding a site folder whose .pth imports a missing module,
json.py, token.py and a triton/ package in the working directory (93rd); a half-copied
safetensors and a stale transformers on PYTHONPATH (71st); an xgrammar copy without its compiled
bindings and the other engine's outlines_core (120th); tokenizers.py, random.py, triton.py, a
safetensors/ folder, requests.py, uvloop.py, safetensors.py and a legacy tokenizers.pyc (no
source) in the working directory (236th); plugin and external-model packages on PYTHONPATH
(166th, 223rd); interpreter options (158th, 260th).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in one invocation (/tmp/blind273/raw1), each scenario once, waiting for
the shared recording lock between scenarios: 4 to 47 s a scenario (v-otel-shadow 47 s,
s-llama-modeling-stale-pyc 26 s, s-xgrammar-file-deleted 20 s, the rest 4-14 s). All eight kept
(fresh272/ix101-ix108); none dropped.

What the engines did. Seven of the eight crashed; one served, then crashed. vLLM:
v-llama-config-cut parsed its arguments, then `Error parsing config for MODEL: module
transformers has no attribute LlamaConfig` (twice, retried) and a traceback from
AutoConfig.from_pretrained ending in that AttributeError (transformers' lazy module hides the
SyntaxError); v-tokenizers-stale-pyc died importing its own modules, `ImportError: cannot import
name 'AddedVocabulary' from 'tokenizers.tokenizers'` under a source line that does not name it;
v-xgrammar-compiler-cut died the same way, before any log line (vLLM 0.32 imports xgrammar at
import time, via vllm/parser), `SyntaxError: unterminated triple-quoted string literal`;
v-otel-shadow did not refuse --otlp-traces-endpoint, started and served, then on the first
request's output `AsyncLLM output_handler failed` ... `AttributeError: type object 'Any' has no
attribute 'SERVER'` (do_tracing's SpanKind stand-in), a 500, and the server shut itself down.
SGLang: s-pydantic-core-mismatch died importing sglang, pydantic's own `SystemError: The
installed pydantic-core version (2.50.5) is incompatible ...`; s-tokenizers-so-deleted died
importing sglang (its transformers patches), `No module named 'tokenizers.tokenizers'` chained
into transformers' `Could not import module 'PretrainedConfig'`; s-llama-modeling-stale-pyc ran
its launcher (`LlamaFlashAttention2 compat patch not applied`), then the scheduler died resolving
the model class, before loading weights, `ImportError: cannot import name 'LossKwargs' from
'transformers.utils'`, and `Received sigquit from a child process`; s-xgrammar-file-deleted died
importing its HTTP server (xgrammar imported by the function-call parser), `No module named
'xgrammar.structural_tag'`. The phases aimed at (model config, model building, the first
constrained request) were mostly not reached: every package but opentelemetry is imported at
launch.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402
from setup_engines import SGLANG, VLLM  # noqa: E402

ROOT = Path("/tmp/blind273")
OV = ROOT / "ov"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
VSITE = VLLM.dir / "lib" / "python3.11" / "site-packages"
SSITE = SGLANG.dir / "lib" / "python3.11" / "site-packages"

# An unchecked-hash .pyc (as `compileall --invalidation-mode unchecked-hash` writes for
# reproducible images) compiled from OLD and put beside the package's current source: Python
# never compares it with the .py, so the old bytecode runs.
STALE_PYC = (
    "import py_compile, sys\n"
    "py_compile.compile(sys.argv[1], cfile=sys.argv[2], doraise=True,\n"
    "                   invalidation_mode=py_compile.PycInvalidationMode.UNCHECKED_HASH)\n")

OTEL_INIT = '''"""Our services' tracing defaults (collector address, sampling) - imported by the
deploy scripts as `import opentelemetry.defaults`."""
COLLECTOR = "http://otel-collector.observability:4317"
SAMPLE_RATIO = 0.05
'''


def _copy_pkg(site: Path, pkg: str, name: str) -> Path:
    dest = OV / name / pkg
    if dest.exists():
        shutil.rmtree(dest)
    shutil.copytree(site / pkg, dest, ignore=shutil.ignore_patterns("__pycache__"))
    return dest


def _stale_pyc(python: Path, source: Path, old_text: str) -> None:
    """``source``'s __pycache__ gets an unchecked-hash .pyc compiled from ``old_text``."""
    old = ROOT / "old-src" / source.name
    old.parent.mkdir(parents=True, exist_ok=True)
    old.write_text(old_text)
    cfile = source.parent / "__pycache__" / f"{source.stem}.cpython-311.pyc"
    cfile.parent.mkdir(exist_ok=True)
    subprocess.run([str(python), "-c", STALE_PYC, str(old), str(cfile)], check=True)


def _setup() -> None:
    if (OV / ".done").exists():
        return
    OV.mkdir(parents=True, exist_ok=True)
    # vLLM: transformers whose configuration_llama.py was cut to half its size (a copy cut short)
    d = _copy_pkg(VSITE, "transformers", "v-llama-config-cut")
    f = d / "models" / "llama" / "configuration_llama.py"
    f.write_text(f.read_text()[: len(f.read_text()) // 2])
    # vLLM: tokenizers with an older release's unchecked-hash __init__ bytecode left in
    # __pycache__ (it imports AddedVocabulary, which 0.23's extension does not have)
    d = _copy_pkg(VSITE, "tokenizers", "v-tokenizers-stale-pyc")
    src = d / "__init__.py"
    text = src.read_text()
    assert "    AddedToken,\n" in text
    _stale_pyc(VLLM.python, src, text.replace("    AddedToken,\n",
                                              "    AddedToken,\n    AddedVocabulary,\n", 1))
    # vLLM: xgrammar whose compiler.py was cut to half its size
    d = _copy_pkg(VSITE, "xgrammar", "v-xgrammar-compiler-cut")
    f = d / "compiler.py"
    f.write_text(f.read_text()[: len(f.read_text()) // 2])
    # vLLM: a project's own opentelemetry/ package (a regular one, with __init__.py) on
    # PYTHONPATH, shadowing the opentelemetry namespace package
    p = OV / "v-otel-shadow" / "opentelemetry"
    p.mkdir(parents=True, exist_ok=True)
    (p / "__init__.py").write_text(OTEL_INIT)
    # SGLang: pydantic upgraded one step with --no-deps: it wants a newer pydantic-core
    d = _copy_pkg(SSITE, "pydantic", "s-pydantic-core-mismatch")
    f = d / "version.py"
    text = f.read_text()
    assert "_COMPATIBLE_PYDANTIC_CORE_VERSION = '2.50.5'" in text
    f.write_text(text.replace("_COMPATIBLE_PYDANTIC_CORE_VERSION = '2.50.5'",
                              "_COMPATIBLE_PYDANTIC_CORE_VERSION = '2.51.0'", 1)
                 .replace("VERSION = '2.14.4'", "VERSION = '2.14.5'", 1))
    # SGLang: tokenizers whose compiled extension was deleted (a half-done uninstall)
    d = _copy_pkg(SSITE, "tokenizers", "s-tokenizers-so-deleted")
    (d / "tokenizers.abi3.so").unlink()
    # SGLang: transformers with an older release's unchecked-hash modeling_llama bytecode left
    # in __pycache__ (it imports LossKwargs from transformers.utils, which 5.19 has no more)
    d = _copy_pkg(SSITE, "transformers", "s-llama-modeling-stale-pyc")
    src = d / "models" / "llama" / "modeling_llama.py"
    text = src.read_text()
    line = "from ...utils import TransformersKwargs, auto_docstring, can_return_tuple, logging\n"
    assert line in text
    _stale_pyc(SGLANG.python, src, text.replace(
        line, "from ...utils import LossKwargs, TransformersKwargs, auto_docstring, "
              "can_return_tuple, logging\n", 1))
    # SGLang: xgrammar whose structural_tag.py was deleted
    d = _copy_pkg(SSITE, "xgrammar", "s-xgrammar-file-deleted")
    (d / "structural_tag.py").unlink()
    (OV / ".done").write_text("")


_setup()


def ov(name: str) -> dict[str, str]:
    return {"PYTHONPATH": str(OV / name)}


# --- steps -------------------------------------------------------------------------------------

def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.output():
        ctx.complete(2)
        time.sleep(10)


SCHEMA = {"type": "object", "properties": {"name": {"type": "string"}},
          "required": ["name"]}


def v_json_request(ctx: Ctx) -> None:
    """Up: a plain completion, one constrained by a JSON schema, another plain one."""
    if up(ctx, 240):
        name = ctx.model_name()
        ctx.complete(1)
        ctx.post("/v1/completions", {"model": name, "prompt": "A person as JSON:",
                                     "max_tokens": 24, "structured_outputs": {"json": SCHEMA}})
        time.sleep(2)
        ctx.complete(1)
        linger(ctx, 12)
    else:
        linger(ctx, 10)


def sg_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a pause."""
    found = ctx.wait_any([SG_READY], 240)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(2)
        time.sleep(10)
    else:
        linger(ctx, 10)


def sg_json_request(ctx: Ctx) -> None:
    """Up: a plain completion, one constrained by a JSON schema, another plain one."""
    found = ctx.wait_any([SG_READY], 240)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        name = ctx.model_name()
        ctx.complete(1)
        ctx.post("/v1/completions", {"model": name, "prompt": "A person as JSON:",
                                     "max_tokens": 24, "response_format": {
                                         "type": "json_schema",
                                         "json_schema": {"name": "person", "schema": SCHEMA}}})
        time.sleep(2)
        ctx.complete(1)
        linger(ctx, 12)
    else:
        linger(ctx, 10)


SCENARIOS = [
    Scenario("v-llama-config-cut", "vllm",
             "transformers copied first on PYTHONPATH (/tmp/blind273/ov/v-llama-config-cut) "
             "with models/llama/configuration_llama.py cut to half its size (a copy cut short)",
             VLLM_BASE, env=ov("v-llama-config-cut"), act=v_until),
    Scenario("v-tokenizers-stale-pyc", "vllm",
             "tokenizers copied first on PYTHONPATH with an older release's unchecked-hash "
             "__pycache__/__init__.cpython-311.pyc left beside the current __init__.py (its "
             "bytecode imports AddedVocabulary)",
             VLLM_BASE, env=ov("v-tokenizers-stale-pyc"), act=v_until),
    Scenario("v-xgrammar-compiler-cut", "vllm",
             "xgrammar copied first on PYTHONPATH with compiler.py cut to half its size; a "
             "completion constrained by a JSON schema between two plain ones",
             VLLM_BASE, env=ov("v-xgrammar-compiler-cut"), act=v_json_request),
    Scenario("v-otel-shadow", "vllm",
             "a project's own opentelemetry/ package (with an __init__.py of tracing defaults) "
             "first on PYTHONPATH, shadowing the opentelemetry namespace package; "
             "--otlp-traces-endpoint set",
             [*VLLM_BASE, "--otlp-traces-endpoint", "http://127.0.0.1:4317"],
             env=ov("v-otel-shadow"), act=v_until),
    Scenario("s-pydantic-core-mismatch", "sglang",
             "pydantic copied first on PYTHONPATH as one release newer (2.14.5, installed "
             "--no-deps): it requires pydantic-core 2.51.0 over the installed 2.50.5",
             SG, env=ov("s-pydantic-core-mismatch"), act=sg_until),
    Scenario("s-tokenizers-so-deleted", "sglang",
             "tokenizers copied first on PYTHONPATH without its compiled tokenizers.abi3.so "
             "(a half-done uninstall)",
             SG, env=ov("s-tokenizers-so-deleted"), act=sg_until),
    Scenario("s-llama-modeling-stale-pyc", "sglang",
             "transformers copied first on PYTHONPATH with an older release's unchecked-hash "
             "models/llama/__pycache__/modeling_llama.cpython-311.pyc beside the current source "
             "(its bytecode imports LossKwargs from transformers.utils)",
             SG, env=ov("s-llama-modeling-stale-pyc"), act=sg_until),
    Scenario("s-xgrammar-file-deleted", "sglang",
             "xgrammar copied first on PYTHONPATH with structural_tag.py deleted; a completion "
             "constrained by a JSON schema between two plain ones",
             SG, env=ov("s-xgrammar-file-deleted"), act=sg_json_request),
]
