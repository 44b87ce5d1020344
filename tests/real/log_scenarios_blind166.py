"""The hundred-and-sixty-sixth batch's scenarios (tests/fixtures/corpus/fresh165): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind166.py OUT

Themes: plugins and extension hooks that load at startup - what a person meets adding
out-of-tree code to an engine. vLLM: a general plugin (`vllm.general_plugins` entry point) whose
register function raises (a licence check that cannot reach its server); an out-of-tree model
registered by a plugin (ModelRegistry.register_model, lazily as "module:Class") whose module
imports a kernel package that is not installed; a plugin whose entry point names its register
function with a typo, so the model it should register is never there; two platform plugins
(`vllm.platform_plugins`) that both claim the host. SGLang: SGLANG_EXTERNAL_MODEL_PACKAGE naming
a package that is not installed; an external model class whose __init__ wants a config.json key
the checkpoint does not have; an external package whose two modules both export the same
EntryClass (a v1 module left beside v2); a general plugin (`sglang.srt.plugins` entry point)
whose function raises.

Earlier batches already had (not repeated): a platform plugin's leftover dist-info with no
package (93rd), a --tool-parser-plugin file missing (88th) or buggy (136th), a
--reasoning-parser-plugin that raises or has the old API (153rd), --worker-cls naming a module
that is not installed (69th), an unknown architecture in config.json (log_faults).

The plugin packages are plain folders under /tmp/blind166/site-* (a package and a hand-written
`*.dist-info` with METADATA and entry_points.txt, as `pip install --no-deps --target` leaves
them), written when this table is loaded and put on PYTHONPATH for the one scenario that uses
it; nothing goes into the engines' venvs. Models are copies of the tiny Llama made in the
recorder's work folder; where a plugin's model is to be used, the copy's config.json names its
architecture (AcmeLlamaForCausalLM). vLLM runs VLLM_BASE's settings; SGLang runs --device cpu
--model-impl transformers, except where the external model is to be picked (its default
--model-impl auto: with transformers it would never be looked up).

Recorded 2026-12-07 in 1 invocation (raw1: the four vLLM scenarios, then the four SGLang ones,
taking turns with other helpers' recorders); each scenario once. About 2m40s of recording
(162 s: vLLM 8+16+8+5 s, SGLang 22+24+22+57 s). 8 kept (final files es101-es108). Dropped: none;
every scenario showed its fault.

What the engines did: vLLM runs a general plugin's function while it builds its argument parser
(`AsyncEngineArgs.add_cli_args` -> `load_general_plugins`), before its banner, and does not catch
what it raises: es101 is a bare traceback ending in the plugin's `RuntimeError` (launch, 8 s).
It does catch an entry point that fails to load (`Failed to load plugin acme_models`,
`AttributeError: ... has no attribute 'regsiter'`, es103) and goes on to die on the model config
(`Model architectures ['AcmeLlamaForCausalLM'] are not supported for now`). An out-of-tree model
registered lazily is imported first in vLLM's model-inspection subprocess, whose traceback is
logged at ERROR (`Error in inspecting model architecture`, `ModuleNotFoundError: No module named
'acme_fused_kernels'`) before `... failed to be inspected` (es102). Two platform plugins end the
launch at the first import of vllm.config, before any log line: `RuntimeError: Only one platform
plugin can be activated, but got: ['zeta', 'acme_npu']` (es104). SGLang imports
SGLANG_EXTERNAL_MODEL_PACKAGE only in the scheduler, when the model registry is first imported
(`get_model_architecture`, before `Load weight begin`): a package not installed
(`ModuleNotFoundError`, es105) and two modules exporting one EntryClass (`AssertionError:
Duplicated model implementation for AcmeLlamaForCausalLM`, es107) end the launch there; an external
class that raises in __init__ ends it in weight loading (`_initialize_model`, es106). Each ends
`Received sigquit from a child process` / `kill_process_tree called`. SGLang catches a general
plugin that raises (`Failed to execute general plugin: acme_metrics`, three times, once per
process) and serves without it (es108, ready in serving).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Scenario, config_with, linger  # noqa: E402

ROOT = Path("/tmp/blind166")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
ACME = "AcmeLlamaForCausalLM"


def dist(site: str, name: str, files: dict[str, str], entry_points: str = "") -> str:
    """Write a package folder (files) and its dist-info under ROOT/site; return the folder."""
    base = ROOT / site
    for rel, text in files.items():
        p = base / rel
        p.parent.mkdir(parents=True, exist_ok=True)
        p.write_text(text)
    di = base / f"{name}-1.0.0.dist-info"
    di.mkdir(parents=True, exist_ok=True)
    (di / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {name}\nVersion: 1.0.0\n")
    (di / "RECORD").write_text("")
    if entry_points:
        (di / "entry_points.txt").write_text(entry_points)
    return str(base)


V_LICENCE = '''"""Acme's vLLM plugin: checks the site licence, then registers Acme's models."""
import os


def register():
    server = os.environ.get("ACME_LICENSE_SERVER", "licence.acme.internal:27000")
    raise RuntimeError(f"acme-vllm-plugin: licence check failed: cannot reach {server} "
                       "(set ACME_LICENSE_SERVER or ACME_OFFLINE_LICENSE)")
'''

V_REGISTER = '''"""Acme's vLLM plugin: registers Acme's Llama variant with vLLM."""


def register():
    from vllm import ModelRegistry

    if "AcmeLlamaForCausalLM" not in ModelRegistry.get_supported_archs():
        ModelRegistry.register_model("AcmeLlamaForCausalLM",
                                     "acme_vllm_models.llama:AcmeLlamaForCausalLM")
'''

V_MODEL_NEEDS_KERNELS = '''"""Acme's Llama variant: vLLM's Llama with Acme's fused kernels."""
import acme_fused_kernels  # noqa: F401  (Acme's CUDA/CPU kernels, a separate wheel)
from vllm.model_executor.models.llama import LlamaForCausalLM


class AcmeLlamaForCausalLM(LlamaForCausalLM):
    pass
'''

V_MODEL_PLAIN = '''"""Acme's Llama variant: vLLM's Llama under Acme's name."""
from vllm.model_executor.models.llama import LlamaForCausalLM


class AcmeLlamaForCausalLM(LlamaForCausalLM):
    pass
'''

V_PLATFORM = '''"""{name}: a vLLM platform plugin that claims the host."""


def activate():
    return "{name}.platform.{cls}"
'''

V_PLATFORM_CLS = '''from vllm.platforms.cpu import CpuPlatform


class {cls}(CpuPlatform):
    pass
'''

S_MODEL_INIT_RAISES = '''"""Acme's Llama variant for SGLang: needs Acme's block size in config.json."""
import torch


class AcmeLlamaForCausalLM(torch.nn.Module):
    def __init__(self, config, quant_config=None, prefix=""):
        super().__init__()
        block = getattr(config, "acme_block_size", None)
        if block is None:
            raise ValueError("AcmeLlamaForCausalLM: config.json has no 'acme_block_size'; "
                             "convert the checkpoint with acme-convert first")
        self.block = block


EntryClass = AcmeLlamaForCausalLM
'''

S_IMPL = '''"""Acme's Llama variant for SGLang (shared implementation)."""
import torch


class AcmeLlamaForCausalLM(torch.nn.Module):
    def __init__(self, config, quant_config=None, prefix=""):
        super().__init__()
        self.config = config
'''

S_ENTRY = '''"""Acme's Llama variant for SGLang, {ver}."""
from acme_sgl_models._impl import AcmeLlamaForCausalLM

EntryClass = AcmeLlamaForCausalLM
'''

S_PLUGIN_RAISES = '''"""Acme's SGLang plugin: patches the scheduler's metrics with Acme's exporter."""


def register():
    import acme_metrics_exporter  # noqa: F401  (not installed on this host)
'''


def _setup() -> dict[str, str]:
    ROOT.mkdir(parents=True, exist_ok=True)
    gp = "[vllm.general_plugins]\n"
    return {
        "v-raises": dist("site-v-raises", "acme_vllm_plugin",
                         {"acme_vllm_plugin/__init__.py": V_LICENCE},
                         gp + "acme_models = acme_vllm_plugin:register\n"),
        "v-kernels": dist("site-v-kernels", "acme_vllm_models",
                          {"acme_vllm_models/__init__.py": V_REGISTER,
                           "acme_vllm_models/llama.py": V_MODEL_NEEDS_KERNELS},
                          gp + "acme_models = acme_vllm_models:register\n"),
        "v-typo": dist("site-v-typo", "acme_vllm_models",
                       {"acme_vllm_models/__init__.py": V_REGISTER,
                        "acme_vllm_models/llama.py": V_MODEL_PLAIN},
                       gp + "acme_models = acme_vllm_models:regsiter\n"),
        "v-platforms": ":".join([
            dist("site-v-plat-a", "acme_npu",
                 {"acme_npu/__init__.py": V_PLATFORM.format(name="acme_npu", cls="AcmeNPU"),
                  "acme_npu/platform.py": V_PLATFORM_CLS.format(cls="AcmeNPU")},
                 "[vllm.platform_plugins]\nacme_npu = acme_npu:activate\n"),
            dist("site-v-plat-b", "zeta_accel",
                 {"zeta_accel/__init__.py": V_PLATFORM.format(name="zeta_accel", cls="Zeta"),
                  "zeta_accel/platform.py": V_PLATFORM_CLS.format(cls="Zeta")},
                 "[vllm.platform_plugins]\nzeta = zeta_accel:activate\n"),
        ]),
        "s-init": dist("site-s-init", "acme_sgl_models",
                       {"acme_sgl_models/__init__.py": "",
                        "acme_sgl_models/acme_llama.py": S_MODEL_INIT_RAISES}),
        "s-dup": dist("site-s-dup", "acme_sgl_models",
                      {"acme_sgl_models/__init__.py": "",
                       "acme_sgl_models/_impl.py": S_IMPL,
                       "acme_sgl_models/acme_llama_v1.py": S_ENTRY.format(ver="v1"),
                       "acme_sgl_models/acme_llama_v2.py": S_ENTRY.format(ver="v2")}),
        "s-plugin": dist("site-s-plugin", "acme_sgl_plugin",
                         {"acme_sgl_plugin/__init__.py": S_PLUGIN_RAISES},
                         "[sglang.srt.plugins]\nacme_metrics = acme_sgl_plugin:register\n"),
    }


SITES = _setup()


def acme_model(name: str):
    def make(work: Path) -> Path:
        return config_with(work, name, architectures=[ACME])
    return make


# --- steps -------------------------------------------------------------------------------------

def v_until(ctx) -> None:
    """Until the run ends; if it serves, two completions, a short pause."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(6)


def s_until(ctx) -> None:
    """SGLang: until it ends or is fired up (two completions); a pause."""
    found = ctx.wait_any([SG_READY], 120)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def v(name: str, what: str, site: str, model=None, **env: str) -> Scenario:
    return Scenario(name, "vllm", what, VLLM_BASE, model=model,
                    env={"PYTHONPATH": SITES[site], **env}, act=v_until)


def s(name: str, what: str, site: str | None, model=None, args: list[str] | None = None,
      **env: str) -> Scenario:
    e = {"PYTHONPATH": SITES[site]} if site else {}
    return Scenario(name, "sglang", what, SG if args is None else args, model=model,
                    env={**e, **env}, act=s_until)


SCENARIOS = [
    v("v-general-plugin-raises", "a general plugin (vllm.general_plugins entry point "
      "acme_models, installed in a folder on PYTHONPATH) whose register() raises RuntimeError: "
      "its licence check cannot reach its licence server", "v-raises"),
    v("v-oot-model-missing-kernels", "a general plugin registers an out-of-tree model "
      "(ModelRegistry.register_model('AcmeLlamaForCausalLM', 'acme_vllm_models.llama:...')) "
      "whose module imports acme_fused_kernels, a package not installed; the model copy's "
      "config.json names AcmeLlamaForCausalLM", "v-kernels", acme_model("acme-v-kernels")),
    v("v-plugin-entry-point-typo", "a general plugin whose entry point names its register "
      "function with a typo (acme_vllm_models:regsiter), so the out-of-tree model it should "
      "register is never registered; the model copy's config.json names AcmeLlamaForCausalLM",
      "v-typo", acme_model("acme-v-typo")),
    v("v-two-platform-plugins", "two platform plugins (vllm.platform_plugins acme_npu and zeta, "
      "each a CpuPlatform subclass) installed side by side on PYTHONPATH, both claiming the "
      "host", "v-platforms"),
    s("s-external-model-pkg-missing", "SGLANG_EXTERNAL_MODEL_PACKAGE=acme_sgl_models, a "
      "package that is not installed", None, SGLANG_EXTERNAL_MODEL_PACKAGE="acme_sgl_models"),
    s("s-external-model-init-raises", "SGLANG_EXTERNAL_MODEL_PACKAGE=acme_sgl_models (on "
      "PYTHONPATH) whose AcmeLlamaForCausalLM raises ValueError in __init__: config.json has no "
      "'acme_block_size'; the model copy's config.json names AcmeLlamaForCausalLM; default "
      "--model-impl", "s-init", acme_model("acme-s-init"), ["--device", "cpu"],
      SGLANG_EXTERNAL_MODEL_PACKAGE="acme_sgl_models"),
    s("s-external-model-duplicate-entry", "SGLANG_EXTERNAL_MODEL_PACKAGE=acme_sgl_models (on "
      "PYTHONPATH) whose modules acme_llama_v1 and acme_llama_v2 both export EntryClass "
      "AcmeLlamaForCausalLM; the model copy's config.json names it; default --model-impl",
      "s-dup", acme_model("acme-s-dup"), ["--device", "cpu"],
      SGLANG_EXTERNAL_MODEL_PACKAGE="acme_sgl_models"),
    s("s-general-plugin-raises", "a general plugin (sglang.srt.plugins entry point "
      "acme_metrics, on PYTHONPATH) whose function raises ModuleNotFoundError: it imports "
      "acme_metrics_exporter, not installed", "s-plugin"),
]
