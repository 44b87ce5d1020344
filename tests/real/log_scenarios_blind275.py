"""The two-hundred-and-seventy-fifth batch's scenarios (tests/fixtures/corpus/fresh274): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind275.py OUT

Themes: plugins and extension hooks loaded at startup, a new round - what a person meets adding
their own code to an engine. vLLM (general plugins: a package and a hand-written dist-info whose
entry_points.txt names it in `vllm.general_plugins`, in a folder on PYTHONPATH): VLLM_PLUGINS
naming a plugin that does not exist (a typo of the installed one, which registers the
architecture the model copy's config.json names); a plugin registering a legacy alias with a
dotted class path ('pkg.module.Class', no colon) after its real architecture; a plugin whose
module starts a non-daemon heartbeat thread at import that prints to stdout, the API server then
sent SIGTERM; a plugin whose register() reconfigures the root logger (logging.basicConfig at DEBUG
to stdout, force=True). SGLang (general plugins in `sglang.srt.plugins` using its HookRegistry,
and custom logit processors): an AFTER hook on a scheduler method name with a typo; an AROUND
hook on Scheduler.handle_generate_request that raises KeyError on a label no request carries; a
plugin that sleeps 30 s at import in every process; a request's custom_logit_processor
serialized by CustomLogitProcessor.to_str from a class in the client's own module, which the
server cannot import (dill pickles it by reference).

Earlier batches already had (not repeated): a general plugin whose function raises, an
out-of-tree model whose module imports a package not installed, an entry point naming its
function with a typo, two platform plugins, SGLANG_EXTERNAL_MODEL_PACKAGE not installed / raising
in __init__ / two modules exporting one EntryClass, a SGLang general plugin that raises (166th);
out-of-tree model classes with porting mistakes on both engines (223rd); --logits-processors
constructors that raise, V0 functions, update_state raising, and SGLang processors returning None,
a reduced tensor, or a string that is not a serialized processor (186th); custom_logit_processor
without --enable-custom-logit-processor and one raising on custom_params (149th); a platform
plugin's leftover dist-info (93rd); tool and reasoning parser plugins (88th, 136th, 153rd);
--worker-cls not installed (69th).

The plugin packages are plain folders under /tmp/blind275/site-* (package plus `*.dist-info` with
METADATA and entry_points.txt), written when this table is loaded and put on PYTHONPATH for the
one scenario that uses each; the client-module processor is serialized by SGLang's interpreter
with /tmp/blind275/client on its PYTHONPATH into /tmp/blind275/clp-client-module.json. vLLM runs
VLLM_BASE's settings; SGLang runs --device cpu --model-impl transformers.

Recorded 2026-12-07 23:36-23:51 in one invocation (raw1: the four vLLM scenarios, then the four
SGLang ones, taking turns for the lock with other helpers' recorders); each scenario once.
Seconds per scenario: vLLM 10, 8, 96, 41; SGLang 71, 81, 132, 66. All eight kept (final files
iz101-iz108), none dropped, none re-recorded. The faults of v-plugin-logging-stdout,
s-hook-target-typo and s-plugin-sleeps-at-import never end a run: kept as fair logs of the
ground, labelled ready.

What the engines did. vLLM filters general plugins by VLLM_PLUGINS only at DEBUG, so a name that
matches none leaves no trace: the log is an unknown architecture's (`Model architectures
['AcmeLlamaForCausalLM'] are not supported for now`, iz101, crashed at launch in 10 s). A dotted
class path is refused by vLLM's own ModelRegistry.register_model inside the plugin's register(),
run while the argument parser is built, before the banner: a bare traceback ending `ValueError:
Expected a string in the format `<module>:<class>`` (iz102, crashed at launch, 8 s). A plugin's
non-daemon thread prints its heartbeat from all three processes through an ordinary startup and
two served completions; on SIGTERM the API server runs its whole shutdown (`shutdown triggered`,
the EngineCore force-killed, `Application shutdown complete.`) and then never exits, printing nine
more heartbeats until the recorder killed it 45 s later (iz103, stopped in serving). A plugin's
logging.basicConfig adds its format to third-party loggers only (56 `acme filelock DEBUG` lines
while the worker compiles; vLLM's loggers do not propagate) and vLLM serves (iz104, ready).
SGLang catches a hook on a method that does not exist (`Failed to apply hooks to ...
handle_generate_requests`, `AttributeError: type object 'Scheduler' has no attribute ...`, three
times) and serves (iz105, ready). An AROUND hook that raises kills the scheduler on SGLang's own
warmup request, before the ready line: `Scheduler hit an exception`, `KeyError: 'x-tenant'` from
the plugin's frame under hook_registry's wrapper, `SIGQUIT received`, kill_process_tree (iz106,
crashed in warmup). A plugin sleeping 30 s at import delays the launch by about a minute (once in
the launcher, then in two child processes at once), with only its own print lines, and serves
(iz107, ready). A custom_logit_processor pickled by reference to a client module kills the
scheduler as it builds the prefill batch: dill's `find_class`, `ModuleNotFoundError: No module
named 'acme_client_lp'`, `SIGQUIT received`, kill_process_tree, no 400 (iz108, crashed in
serving). Crashed: iz101, iz102, iz106, iz108; stopped: iz103; ready in serving: iz104, iz105,
iz107; none hung.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, config_with, linger, up  # noqa: E402
from setup_engines import SGLANG  # noqa: E402

ROOT = Path("/tmp/blind275")
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


# --- vLLM plugins ------------------------------------------------------------------------------

V_REGISTER = '''"""Acme's vLLM plugin: registers Acme's Llama variant with vLLM."""


def register():
    from vllm import ModelRegistry

    ModelRegistry.register_model("AcmeLlamaForCausalLM",
                                 "acme_vllm_models.llama:AcmeLlamaForCausalLM")
'''

V_REGISTER_DOTTED = '''"""Acme's vLLM plugin: registers Acme's Llama variant, and its legacy alias."""


def register():
    from vllm import ModelRegistry

    ModelRegistry.register_model("AcmeLlamaForCausalLM",
                                 "acme_vllm_models.llama:AcmeLlamaForCausalLM")
    # the alias old checkpoints carry in config.json
    ModelRegistry.register_model("AcmeLlamaV1ForCausalLM",
                                 "acme_vllm_models.llama.AcmeLlamaForCausalLM")
'''

V_MODEL_PLAIN = '''"""Acme's Llama variant: vLLM's Llama under Acme's name."""
from vllm.model_executor.models.llama import LlamaForCausalLM


class AcmeLlamaForCausalLM(LlamaForCausalLM):
    pass
'''

V_TELEMETRY = '''"""Acme's telemetry plugin: a heartbeat thread started when the module is imported."""
import os
import threading
import time


def _beat():
    while True:
        print(f"acme-telemetry: heartbeat pid={os.getpid()}", flush=True)
        time.sleep(5)


threading.Thread(target=_beat, name="acme-telemetry").start()


def register():
    print(f"acme-telemetry: plugin registered in pid={os.getpid()}", flush=True)
'''

V_LOGGING = '''"""Acme's logging plugin: sends every log record to stdout in Acme's format."""
import logging
import sys


def register():
    logging.basicConfig(level=logging.DEBUG, stream=sys.stdout, force=True,
                        format="%(asctime)s acme %(name)s %(levelname)s %(message)s")
    logging.getLogger("acme").info("acme logging configured (root level DEBUG, stdout)")
'''

# --- SGLang plugins ----------------------------------------------------------------------------

S_HOOK_TYPO = '''"""Acme's SGLang plugin: counts the generate requests the scheduler takes."""
import logging

from sglang.srt.plugins.hook_registry import HookRegistry, HookType

log = logging.getLogger("acme_sgl_hooks")
COUNT = 0


def _count(result, *args, **kwargs):
    global COUNT
    COUNT += 1
    return result


def register():
    HookRegistry.register(
        "sglang.srt.managers.scheduler.Scheduler.handle_generate_requests",
        _count, HookType.AFTER)
'''

S_HOOK_RAISES = '''"""Acme's SGLang plugin: per-tenant accounting around each generate request."""
from sglang.srt.plugins.hook_registry import HookRegistry, HookType

USAGE = {}


def _account(original_fn, self, recv_req, *args, **kwargs):
    labels = getattr(recv_req, "custom_labels", None) or {}
    tenant = labels["x-tenant"]
    USAGE[tenant] = USAGE.get(tenant, 0) + 1
    return original_fn(self, recv_req, *args, **kwargs)


def register():
    HookRegistry.register(
        "sglang.srt.managers.scheduler.Scheduler.handle_generate_request",
        _account, HookType.AROUND)
'''

S_SLEEPS = '''"""Acme's SGLang plugin: waits for Acme's licence daemon when imported."""
import os
import time

print(f"acme-licence: waiting for licence daemon (pid={os.getpid()}) ...", flush=True)
time.sleep(30)
print("acme-licence: no answer after 30 s, continuing unlicensed", flush=True)


def register():
    pass
'''

CLIENT_LP = '''"""The team's client-side logit processors (a module of the client's own code)."""
from sglang.srt.sampling.custom_logit_processor import CustomLogitProcessor


class NoNewline(CustomLogitProcessor):
    """Bans token 13 (a newline in the team's tokenizer)."""

    def __call__(self, logits, custom_param_list=None):
        logits[:, 13] = -float("inf")
        return logits
'''

CLIENT = ROOT / "client"
CLP_CLIENT = ROOT / "clp-client-module.json"


def _setup() -> dict[str, str]:
    ROOT.mkdir(parents=True, exist_ok=True)
    gp = "[vllm.general_plugins]\n"
    sp = "[sglang.srt.plugins]\n"
    CLIENT.mkdir(parents=True, exist_ok=True)
    (CLIENT / "acme_client_lp.py").write_text(CLIENT_LP)
    if not CLP_CLIENT.is_file():
        out = subprocess.run([str(SGLANG.python), "-c",
                              "from acme_client_lp import NoNewline; print(NoNewline.to_str())"],
                             check=True, capture_output=True, text=True,
                             env={**os.environ, "PYTHONPATH": str(CLIENT)}).stdout.strip()
        CLP_CLIENT.write_text(out)
    return {
        "v-env": dist("site-v-env", "acme_vllm_models",
                      {"acme_vllm_models/__init__.py": V_REGISTER,
                       "acme_vllm_models/llama.py": V_MODEL_PLAIN},
                      gp + "acme_models = acme_vllm_models:register\n"),
        "v-dotted": dist("site-v-dotted", "acme_vllm_models",
                         {"acme_vllm_models/__init__.py": V_REGISTER_DOTTED,
                          "acme_vllm_models/llama.py": V_MODEL_PLAIN},
                         gp + "acme_models = acme_vllm_models:register\n"),
        "v-thread": dist("site-v-thread", "acme_telemetry",
                         {"acme_telemetry/__init__.py": V_TELEMETRY},
                         gp + "acme_telemetry = acme_telemetry:register\n"),
        "v-logging": dist("site-v-logging", "acme_logging",
                          {"acme_logging/__init__.py": V_LOGGING},
                          gp + "acme_logging = acme_logging:register\n"),
        "s-typo": dist("site-s-typo", "acme_sgl_hooks",
                       {"acme_sgl_hooks/__init__.py": S_HOOK_TYPO},
                       sp + "acme_hooks = acme_sgl_hooks:register\n"),
        "s-raises": dist("site-s-raises", "acme_sgl_tenants",
                         {"acme_sgl_tenants/__init__.py": S_HOOK_RAISES},
                         sp + "acme_tenants = acme_sgl_tenants:register\n"),
        "s-sleeps": dist("site-s-sleeps", "acme_sgl_licence",
                         {"acme_sgl_licence/__init__.py": S_SLEEPS},
                         sp + "acme_licence = acme_sgl_licence:register\n"),
    }


SITES = _setup()


def acme_model(name: str):
    def make(work: Path) -> Path:
        return config_with(work, name, architectures=[ACME])
    return make


# --- steps -------------------------------------------------------------------------------------

def call(ctx: Ctx, path: str, body: dict, timeout: float = 60) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def gen(ctx: Ctx, text: str = "The quick brown fox", tokens: int = 16, **extra: object) -> int:
    return call(ctx, "/generate", {"text": text, "sampling_params": {"max_new_tokens": tokens},
                                   **extra})


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions, a short pause."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(6)


def v_serve_then_sigterm_server(ctx: Ctx) -> None:
    """Once up, two completions, then SIGTERM to the API server alone; up to 45 s after."""
    if not up(ctx, 200):
        linger(ctx, 10)
        return
    ctx.complete(2)
    time.sleep(3)
    assert ctx.proc is not None
    os.kill(ctx.proc.pid, signal.SIGTERM)
    linger(ctx, 45)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (two completions); a pause."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def s_clp(ctx: Ctx) -> None:
    """SGLang: once fired up, a plain generation, one with the client-module processor, one
    more plain generation, a pause (or until it ends)."""
    if ctx.wait_any([SG_READY], 200) != SG_READY:
        linger(ctx, 10)
        return
    gen(ctx)
    gen(ctx, custom_logit_processor=CLP_CLIENT.read_text())
    time.sleep(1)
    gen(ctx, "After that")
    linger(ctx, 10)


def v(name: str, what: str, site: str, model=None, act: Callable[[Ctx], None] = v_until,
      **env: str) -> Scenario:
    return Scenario(name, "vllm", what, VLLM_BASE, model=model,
                    env={"PYTHONPATH": SITES[site], **env}, act=act)


def s(name: str, what: str, site: str | None, args: list[str] | None = None,
      act: Callable[[Ctx], None] = s_until, **env: str) -> Scenario:
    e = {"PYTHONPATH": SITES[site]} if site else {}
    return Scenario(name, "sglang", what, SG if args is None else args,
                    env={**e, **env}, act=act)


SCENARIOS = [
    v("v-plugins-env-typo", "a general plugin (vllm.general_plugins entry point acme_models, "
      "on PYTHONPATH) registers AcmeLlamaForCausalLM, the architecture the model copy's "
      "config.json names, but VLLM_PLUGINS=acme_modles (a typo) lets no plugin load",
      "v-env", acme_model("acme-v-env"), VLLM_PLUGINS="acme_modles"),
    v("v-register-dotted-class-path", "a general plugin registers AcmeLlamaForCausalLM "
      "('module:Class') and then a legacy alias AcmeLlamaV1ForCausalLM with a dotted class "
      "path 'acme_vllm_models.llama.AcmeLlamaForCausalLM' (no colon); the model copy's "
      "config.json names AcmeLlamaForCausalLM", "v-dotted", acme_model("acme-v-dotted")),
    v("v-plugin-thread-sigterm", "a general plugin (acme_telemetry) whose module starts a "
      "non-daemon heartbeat thread at import, printing to stdout every 5 s, in every process; "
      "served two completions, then SIGTERM to the API server alone", "v-thread",
      act=v_serve_then_sigterm_server),
    v("v-plugin-logging-stdout", "a general plugin (acme_logging) whose register() calls "
      "logging.basicConfig(level=DEBUG, stream=sys.stdout, force=True): every logger's DEBUG "
      "records to stdout in the team's format", "v-logging"),
    s("s-hook-target-typo", "a general plugin (sglang.srt.plugins entry point acme_hooks) "
      "registering an AFTER hook on 'sglang.srt.managers.scheduler.Scheduler."
      "handle_generate_requests' (a method that does not exist: handle_generate_request)",
      "s-typo"),
    s("s-hook-around-raises", "a general plugin (acme_tenants) registering an AROUND hook on "
      "Scheduler.handle_generate_request that reads the request's custom_labels['x-tenant'], "
      "which no request carries (KeyError)", "s-raises"),
    s("s-plugin-sleeps-at-import", "a general plugin (acme_licence) whose module sleeps 30 s at "
      "import, waiting for a licence daemon that never answers, in every process that loads "
      "plugins", "s-sleeps"),
    s("s-clp-client-module", "--enable-custom-logit-processor; a request's "
      "custom_logit_processor serialized (CustomLogitProcessor.to_str) from a class in the "
      "client's own module acme_client_lp, which the server cannot import", None,
      [*SG, "--enable-custom-logit-processor"], act=s_clp),
]
