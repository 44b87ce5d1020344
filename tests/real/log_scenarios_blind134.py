"""The hundred-and-thirty-fourth batch's scenarios (tests/fixtures/corpus/fresh133): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind134.py OUT

Themes: LoRA adapters loaded, used and unloaded while the server runs, as a multi-tenant
deployment does. vLLM runs with --enable-lora --max-lora-rank 8 and
VLLM_ALLOW_RUNTIME_LORA_UPDATING=True, adapters added with POST /v1/load_lora_adapter, removed
with /v1/unload_lora_adapter and used by naming them as the request's model: a rank-16 adapter;
an adapter whose adapter_model.safetensors was cut in half; a folder with no adapter_config.json;
an adapter saved for another base model (hidden size 1024); --max-loras 1 --max-cpu-loras 1 with
two tenants loaded in turn and the evicted one's folder removed by a clean-up before it is asked
for again; an adapter unloaded while a long request uses it, then asked for again. SGLang runs
with --enable-lora --max-lora-rank 8 --lora-target-modules q_proj k_proj v_proj o_proj
--lora-backend torch_native (the default csgmv backend is Triton's); its runtime side cannot be
reached here (below), so one log shows that, and the others give the adapters at launch
(--lora-paths): an adapter for the MLP on a server started for the attention projections only,
one whose adapter_model.safetensors was cut in half, one with no adapter_config.json, and three
adapters against --max-loaded-loras 2.

Earlier batches already had (not repeated): LoRA flags at launch - --max-lora-rank 3, --max-loras
0, --lora-modules JSON cut, a static adapter whose path is missing, whose adapter_config.json is
cut, with no weights, for another base, targeting `wq`, with DoRA (vLLM); --enable-lora with no
rank, --lora-target-modules wq, --lora-paths JSON cut, DoRA (SGLang); a runtime load of a rank-64
adapter with junk weights in vLLM (fresh66/ax119, which never reached the load: the first
completion killed the worker with SIGILL), and SGLang's /load_lora_adapter on a server without
--enable-lora (fresh94/bz119). Here vLLM's adapters are all loaded at runtime, into a server that is up.

Adapters are written by /tmp/blind134/make_adapter.py (written when this table is loaded) with
the vLLM venv's torch and safetensors, as PEFT writes them (adapter_config.json with r,
lora_alpha, target_modules, base_model_name_or_path; tensors
base_model.model.model.layers.N.self_attn.q_proj.lora_A.weight ...), into /tmp/blind134/adapters
by each scenario's `before`. The tiny model: hidden 256, intermediate 512, 2 KV heads of 64.

SGLang's runtime side could not be reached on this host: its LoRA layers pin host memory
(`torch.tensor(..., device="cpu", pin_memory=True)` in set_lora_info), which needs a CUDA
driver, so every --enable-lora launch dies building the LoRA manager, before the server is up
(`RuntimeError: Found no NVIDIA driver on your system`). One such log is kept
(s-rt-unload-mid-request, the first SGLang take, meant as the runtime unload); the other SGLang
scenarios give their adapters at launch with --lora-paths, in faults SGLang checks before that
point (adapter targets against --lora-target-modules, the adapter's files, --max-loaded-loras
against the list), none of which an earlier batch recorded with SGLang's Transformers backend.

Recorded 2026-12-06 in two invocations (raw1: v-rt-unload-mid-request, s-rt-unload-mid-request;
raw2: the other ten), taking turns with three other helpers' recorders; each scenario once,
except the vLLM unload, re-made once with a longer request. About 7m40s of recording (vLLM
48+48+45+44+46+35+55 s, SGLang 23+22+21+24+14 s) inside some 35 minutes of waiting for the lock.
11 kept (final files dm101-dm111). Dropped: v-rt-unload-mid-request (raw1: its 200-token
completion had finished before the unload came, so the log shows a load, a completion, a removal
and a 404 - not an adapter unloaded in use; re-made as v-rt-unload-mid-long-request with 1,800
tokens and --max-model-len 2048, kept), removed from the table. Not recorded, for the reason
above: SGLang's runtime faults (a rank-16 adapter, an MLP adapter on an attention-only server, an
adapter with no weights file or of another base, --max-loaded-loras exceeded by loads, unload
mid-request), all of which the table first had.

What the engines did. vLLM on this host served LoRA adapters at runtime without trouble (no
SIGILL, unlike fresh66/ax119). A bad adapter loaded at runtime never harms the server: the
worker's add_lora raises (`ValueError: LoRA rank 16 is greater than max_lora_rank 8.`,
`SafetensorError: Error while deserializing header: incomplete metadata, file not fully
covered`, `LoRAAdapterNotFoundError: Loading lora no-config failed: No adapter found for ...`
for a missing adapter_config.json, `RuntimeError: The size of tensor a (256) must match the size
of tensor b (1024)` for another base), the engine core logs `Invocation of add_lora method
failed`, the load is answered 500 (404 for the missing config), and the server serves on: four
logs end ready in serving. The same failure inside an engine step kills it: with
--max-cpu-loras 1 an evicted adapter is read from disk again when a request names it, and with
its folder gone the step raises LoRAAdapterNotFoundError, `EngineCore encountered a fatal
error`, EngineDeadError, and the API server exits (crashed, serving). vLLM's unload only drops
the name from the API server's table: a request already running on the adapter finishes 200 and
the next one naming it is 404, with no log line but the removal. SGLang refuses an MLP adapter
under an attention-only --lora-target-modules (`ValueError: LoRA adapter 'mlp' contains target
modules ['down_proj', 'gate_up_proj'] that are not included in ...`), a cut or config-less
adapter (`RuntimeError: Failed to load LoRA adapter cut: Error while deserializing header ...`,
`... nocfg: [Errno 2] No such file or directory: '.../adapter_config.json'`), all in the
scheduler after `Load weight end` (kv_cache_alloc), and three --lora-paths over
--max-loaded-loras 2 in its argument checks (`AssertionError: The number of LoRA paths should not
exceed max_loaded_loras.`, launch).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind134")
ADAPTERS = ROOT / "adapters"
MAKER = ROOT / "make_adapter.py"
SG_READY = "The server is fired up and ready to roll!"
ATTN = ["q_proj", "k_proj", "v_proj", "o_proj"]
MLP = ["gate_proj", "up_proj", "down_proj"]

MAKER_CODE = r'''"""Write a PEFT-style LoRA adapter: make_adapter.py DIR R TARGETS HIDDEN INTER KV [BASE]."""
import json
import sys
from pathlib import Path

import torch
from safetensors.torch import save_file

out, r, targets, hidden, inter, kv = (Path(sys.argv[1]), int(sys.argv[2]), sys.argv[3].split(","),
                                      int(sys.argv[4]), int(sys.argv[5]), int(sys.argv[6]))
base = sys.argv[7] if len(sys.argv) > 7 else "llama-tiny"
dims = {"q_proj": (hidden, hidden), "k_proj": (hidden, kv), "v_proj": (hidden, kv),
        "o_proj": (hidden, hidden), "gate_proj": (hidden, inter), "up_proj": (hidden, inter),
        "down_proj": (inter, hidden)}
torch.manual_seed(0)
out.mkdir(parents=True, exist_ok=True)
t = {}
for i in range(2):
    for m in targets:
        part = "self_attn" if m in ("q_proj", "k_proj", "v_proj", "o_proj") else "mlp"
        p = f"base_model.model.model.layers.{i}.{part}.{m}"
        d_in, d_out = dims[m]
        t[p + ".lora_A.weight"] = torch.randn(r, d_in) * 0.01
        t[p + ".lora_B.weight"] = torch.randn(d_out, r) * 0.01
save_file(t, str(out / "adapter_model.safetensors"), metadata={"format": "pt"})
(out / "adapter_config.json").write_text(json.dumps({
    "alpha_pattern": {}, "auto_mapping": None, "base_model_name_or_path": base, "bias": "none",
    "fan_in_fan_out": False, "inference_mode": True, "init_lora_weights": True,
    "lora_alpha": 2 * r, "lora_dropout": 0.0, "modules_to_save": None, "peft_type": "LORA",
    "r": r, "rank_pattern": {}, "revision": None, "target_modules": targets,
    "task_type": "CAUSAL_LM", "use_dora": False, "use_rslora": False}, indent=2))
'''


def _setup() -> None:
    ADAPTERS.mkdir(parents=True, exist_ok=True)
    MAKER.write_text(MAKER_CODE)


_setup()


# --- adapters ----------------------------------------------------------------------------------

def make(name: str, r: int = 8, targets: list[str] | None = None, hidden: int = 256,
         inter: int = 512, kv: int = 128, base: str = "llama-tiny") -> Path:
    d = ADAPTERS / name
    if d.exists():
        shutil.rmtree(d)
    subprocess.run([str(VLLM.python), str(MAKER), str(d), str(r), ",".join(targets or ATTN),
                    str(hidden), str(inter), str(kv), base], check=True)
    return d


def adapters(*specs: tuple[str, dict], fault: Callable[[Path], None] | None = None
             ) -> Callable[[Ctx], None]:
    """`before`: write the adapters named; ``fault`` is applied to the first."""
    def before(ctx: Ctx) -> None:
        made = [make(name, **kw) for name, kw in specs]
        if fault:
            fault(made[0])
    return before


def cut_weights(d: Path) -> None:
    f = d / "adapter_model.safetensors"
    f.write_bytes(f.read_bytes()[: f.stat().st_size // 2])


def no_config(d: Path) -> None:
    (d / "adapter_config.json").unlink()


def no_weights(d: Path) -> None:
    (d / "adapter_model.safetensors").unlink()


# --- requests ----------------------------------------------------------------------------------

def request(ctx: Ctx, path: str, body: dict, timeout: float = 120) -> int:
    """A request whose whole body is read; the status, 0 if none."""
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def background(ctx: Ctx, path: str, body: dict, timeout: float = 150) -> threading.Thread:
    t = threading.Thread(target=request, args=(ctx, path, body, timeout), daemon=True)
    t.start()
    return t


def v_load(ctx: Ctx, name: str) -> int:
    return request(ctx, "/v1/load_lora_adapter",
                   {"lora_name": name, "lora_path": str(ADAPTERS / name)})


def v_unload(ctx: Ctx, name: str) -> int:
    return request(ctx, "/v1/unload_lora_adapter", {"lora_name": name})


def v_complete(ctx: Ctx, model: str, max_tokens: int = 16, **extra: object) -> int:
    return request(ctx, "/v1/completions", {"model": model, "prompt": "the fox",
                                            "max_tokens": max_tokens, **extra})


def s_load(ctx: Ctx, name: str) -> int:
    return request(ctx, "/load_lora_adapter",
                   {"lora_name": name, "lora_path": str(ADAPTERS / name)})


def s_unload(ctx: Ctx, name: str) -> int:
    return request(ctx, "/unload_lora_adapter", {"lora_name": name})


def s_generate(ctx: Ctx, lora: str | None, max_new_tokens: int = 16, **extra: object) -> int:
    body: dict = {"text": "the fox", "sampling_params": {"max_new_tokens": max_new_tokens,
                                                         **extra}}
    if lora is not None:
        body["lora_path"] = lora
    return request(ctx, "/generate", body)


# --- vLLM acts ---------------------------------------------------------------------------------

def v_load_then_use(name: str) -> Callable[[Ctx], None]:
    """Load ``name`` into the running server, ask for it, then a base completion."""
    def act(ctx: Ctx) -> None:
        if not up(ctx, 240):
            return
        v_load(ctx, name)
        time.sleep(1)
        v_complete(ctx, name)
        v_complete(ctx, ctx.model_name())
        linger(ctx, 12)
    return act


def v_evicted_folder_gone(ctx: Ctx) -> None:
    """--max-cpu-loras 1: load A, load B (A evicted), A's folder removed, then A asked for."""
    if not up(ctx, 240):
        return
    v_load(ctx, "tenant-a")
    v_load(ctx, "tenant-b")
    shutil.rmtree(ADAPTERS / "tenant-a")
    time.sleep(1)
    v_complete(ctx, "tenant-a")
    time.sleep(2)
    v_complete(ctx, "tenant-b")
    linger(ctx, 15)


def v_unload_mid_request_tokens(tokens: int) -> Callable[[Ctx], None]:
    """A ``tokens``-token request on the adapter; unloaded 1 s in; then asked for again."""
    def act(ctx: Ctx) -> None:
        if not up(ctx, 240):
            return
        v_load(ctx, "tenant-long")
        t = background(ctx, "/v1/completions", {"model": "tenant-long", "prompt": "the fox",
                                                "max_tokens": tokens, "ignore_eos": True})
        time.sleep(1.0)
        v_unload(ctx, "tenant-long")
        t.join(150)
        v_complete(ctx, "tenant-long")
        v_complete(ctx, ctx.model_name())
        linger(ctx, 12)
    return act



# --- SGLang acts -------------------------------------------------------------------------------

def sg_up(ctx: Ctx, timeout: float = 240) -> bool:
    return ctx.wait_for(SG_READY, timeout)


def s_unload_mid_request(ctx: Ctx) -> None:
    """A 200-token generation on the adapter; unloaded 1 s in; then asked for again."""
    if not sg_up(ctx):
        return
    s_load(ctx, "tenant-long")
    t = background(ctx, "/generate", {"text": "the fox", "lora_path": "tenant-long",
                                      "sampling_params": {"max_new_tokens": 200,
                                                          "ignore_eos": True}})
    time.sleep(1.0)
    s_unload(ctx, "tenant-long")
    t.join(150)
    s_generate(ctx, "tenant-long")
    s_generate(ctx, None)
    linger(ctx, 10)


def sg_until_exit_or_up(ctx: Ctx) -> None:
    """Until the launch ends (150 s at most); if it comes up, a base generation."""
    if ctx.wait_any([SG_READY], 150) and ctx.proc is not None and ctx.proc.poll() is None:
        s_generate(ctx, None)
        linger(ctx, 8)


# --- the table ---------------------------------------------------------------------------------

V_LORA = [*VLLM_BASE, "--enable-lora", "--max-lora-rank", "8"]
V_ENV = {"VLLM_ALLOW_RUNTIME_LORA_UPDATING": "True"}
SG_LORA = ["--device", "cpu", "--model-impl", "transformers", "--enable-lora",
           "--max-lora-rank", "8", "--lora-backend", "torch_native"]
SG_ATTN = [*SG_LORA, "--lora-target-modules", *ATTN]


def v(name: str, what: str, args: list[str], before: Callable[[Ctx], None],
      act: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "vllm", what, args, env=V_ENV, before=before, act=act)


def s(name: str, what: str, args: list[str], before: Callable[[Ctx], None],
      act: Callable[[Ctx], None]) -> Scenario:
    return Scenario(name, "sglang", what, args, before=before, act=act)


OTHER_BASE = {"hidden": 1024, "inter": 2816, "kv": 256, "base": "other-org/llama-1b"}

SCENARIOS = [
    # vLLM
    v("v-rt-rank16-over-max8", "--enable-lora --max-lora-rank 8, runtime updating on; once "
      "up, POST /v1/load_lora_adapter of a rank-16 adapter (valid weights), a completion naming "
      "it, a base completion", V_LORA, adapters(("rank16", {"r": 16})),
      v_load_then_use("rank16")),
    v("v-rt-safetensors-cut", "runtime LoRA loading of an adapter whose "
      "adapter_model.safetensors was cut to half its size (a copy interrupted); a completion "
      "naming it, a base completion", V_LORA,
      adapters(("cut-weights", {}), fault=cut_weights), v_load_then_use("cut-weights")),
    v("v-rt-adapter-config-missing", "runtime LoRA loading of an adapter folder holding "
      "adapter_model.safetensors but no adapter_config.json; a completion naming it, a base "
      "completion", V_LORA, adapters(("no-config", {}), fault=no_config),
      v_load_then_use("no-config")),
    v("v-rt-other-base", "runtime LoRA loading of an adapter saved for another base model "
      "(hidden size 1024, intermediate 2816: tensors of other shapes); a completion naming "
      "it, a base completion", V_LORA, adapters(("other-base-v", OTHER_BASE)),
      v_load_then_use("other-base-v")),
    v("v-rt-evicted-folder-removed", "--max-loras 1 --max-cpu-loras 1: adapters tenant-a and "
      "tenant-b loaded at runtime in turn (a evicted from the CPU cache), tenant-a's folder "
      "then removed by a clean-up, a completion naming tenant-a, one naming tenant-b",
      [*V_LORA, "--max-loras", "1", "--max-cpu-loras", "1"],
      adapters(("tenant-a", {}), ("tenant-b", {})), v_evicted_folder_gone),
    v("v-rt-unload-mid-long-request", "an adapter loaded at runtime, an 1800-token completion "
      "naming it (--max-model-len 2048), /v1/unload_lora_adapter 1 s into it, then a "
      "completion naming it again and a base completion", [*V_LORA, "--max-model-len", "2048"],
      adapters(("tenant-long", {})), v_unload_mid_request_tokens(1800)),
    # SGLang
    s("s-rt-unload-mid-request", "an adapter loaded at runtime, a 200-token generation with "
      "it, /unload_lora_adapter 1 s into it, then a generation naming it again and a base "
      "generation", SG_ATTN, adapters(("tenant-long", {})), s_unload_mid_request),
    # SGLang, adapters given at launch (--lora-paths): its runtime side is never reached here
    s("s-paths-mlp-not-targeted", "--lora-target-modules q_proj k_proj v_proj o_proj with "
      "--lora-paths naming an adapter for gate_proj/up_proj/down_proj (modules the server is "
      "not started for)", [*SG_ATTN, "--lora-paths", f"mlp={ADAPTERS / 'mlp-only'}"],
      adapters(("mlp-only", {"targets": MLP})), sg_until_exit_or_up),
    s("s-paths-weights-cut", "--lora-paths naming an adapter whose adapter_model.safetensors "
      "was cut to half its size (a copy interrupted)",
      [*SG_ATTN, "--lora-paths", f"cut={ADAPTERS / 'cut-weights-s'}"],
      adapters(("cut-weights-s", {}), fault=cut_weights), sg_until_exit_or_up),
    s("s-paths-config-missing", "--lora-paths naming an adapter folder with "
      "adapter_model.safetensors but no adapter_config.json",
      [*SG_ATTN, "--lora-paths", f"nocfg={ADAPTERS / 'no-config-s'}"],
      adapters(("no-config-s", {}), fault=no_config), sg_until_exit_or_up),
    s("s-paths-over-max-loaded", "--max-loaded-loras 2 --max-loras-per-batch 2 with three "
      "adapters in --lora-paths (a third tenant added to the list)",
      [*SG_ATTN, "--max-loaded-loras", "2", "--max-loras-per-batch", "2", "--lora-paths",
       *(f"{n}={ADAPTERS / n}" for n in ("tenant-a", "tenant-b", "tenant-c"))],
      adapters(("tenant-a", {}), ("tenant-b", {}), ("tenant-c", {})), sg_until_exit_or_up),
]
