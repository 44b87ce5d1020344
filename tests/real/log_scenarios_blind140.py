"""The hundred-and-fortieth batch's scenarios (tests/fixtures/corpus/fresh139): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind140.py OUT

Themes: the administrative endpoints RL frameworks and operators call on a running server
(verl, slime, OpenRLHF). vLLM (VLLM_SERVER_DEV_MODE=1, which exposes the dev and RL routes):
/collective_rpc calling the worker's reload_weights on a checkpoint folder that is not there, and
on one of another shape (layers.1.mlp.down_proj half as wide); the RL route /start_weight_update
(then /finish_weight_update) with no weight-transfer engine configured; /sleep?level=2 then
/wake_up with a tag it does not know. SGLang: /update_weights_from_disk naming a checkpoint of a
deeper model (four decoder layers for the server's two), and one whose shards were never written
(config and tokenizer only).

Earlier batches already had (not repeated): SGLang's /update_weights_from_disk to a missing path
and to a cut shard, /start_profile unwritable, /stop_profile unstarted, /flush_cache,
/abort_request and /pause_generation (abort mode) with requests in flight (95th); vLLM's
--enable-sleep-mode (refused on this platform, 67th), /sleep level 1 without sleep mode,
/reset_prefix_cache in flight, the profiler endpoints (95th), /collective_rpc naming a method
that does not exist and /pause?mode=keep never resumed (90th).

vLLM runs VLLM_BASE's settings; SGLang --device cpu --model-impl transformers. The broken
checkpoint copies are made under /tmp/blind140/ckpt while the scenario runs.

Recorded 2026-12-06 in two invocations (raw1: v-rpc-reload-weights-missing and
s-update-weights-other-shape; raw2: the other five), taking turns with two other helpers'
recorders (the lock came about every five minutes); each scenario once. About 6 minutes of
recording (vLLM 35+56+44+84 s, SGLang 55+47+48 s). 6 kept (final files ds101-ds106).
Dropped: s-update-weights-other-shape (recorded: SGLang's transformers backend took a
down_proj weight half as wide as the model's without a word - `Update weights end.`,
`Cache flushed successfully!`, 200 OK, and served on - so the fault never shows; removed from
the table). Not recorded, to finish within the time given (the lock was held by the other
recorders for long stretches), and removed from the table: a SGLang update from a checkpoint
missing a tensor (replaced before its turn by the deeper model, since the other-shape take
suggested it would be as silent), /release_memory_occupation with generations running,
/pause_generation in_place then /flush_cache, --enable-memory-saver with release/resume, and
vLLM's /release_kv_cache_memory without a pause. So this batch has four vLLM logs and two SGLang.

What the engines did. vLLM's in-place reload (reload_weights through /collective_rpc) is not
transactional: a failed reload (`HFValidationError: Repo id must be ...` for the missing folder,
`RuntimeError: start (0) + length (512) exceeds dimension size (256).` for the other shape) is
answered 500 and the engine looks alive, but the next completion segfaults the worker
(`!!!!!!! Segfault encountered !!!!!!!`, an Inductor kernel's bf16 loads) and the engine dies
(`Worker proc VllmWorker-0 died unexpectedly`, `EngineDeadError`): both crashed in serving. The RL
routes without a weight-transfer config fail with `Weight transfer not configured` (500) and the
server serves on. /sleep?level=2 on CPU pauses the scheduler (`sleep mode is not supported on
CPU, ignore it.`); /wake_up with an unknown tag only warns (`Tag weights_v2 is not in sleeping
tags {'kv_cache', 'weights'}`), answers 200 and leaves the engine asleep, so the next request
stalls silently. SGLang kills its scheduler on a checkpoint of another model (`ValueError: No
module or parameter named 'model.layers.2' in TransformersForCausalLM.`, raised again by its
fall-back load, then `SIGQUIT received`), but refuses a folder without shards with a 400
(`Cannot find any model weights with ...`) and serves on.
"""

from __future__ import annotations

import json
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    linger,
)
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind140")
CKPT = ROOT / "ckpt"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
DEV = {"VLLM_SERVER_DEV_MODE": "1"}

ROOT.mkdir(parents=True, exist_ok=True)
CKPT.mkdir(parents=True, exist_ok=True)

EDIT_TENSOR = (
    "import sys, glob\nfrom safetensors.torch import load_file, save_file\n"
    "mode = sys.argv[2]\n"
    "for f in sorted(glob.glob(sys.argv[1] + '/model-*.safetensors')):\n"
    "    t = load_file(f)\n"
    "    k = [k for k in t if 'layers.1.mlp.down_proj' in k]\n"
    "    if k:\n"
    "        if mode == 'drop':\n"
    "            del t[k[0]]\n"
    "        elif mode == 'deeper':\n"
    "            for n in (2, 3):\n"
    "                for key in [x for x in t if 'layers.1.' in x]:\n"
    "                    t[key.replace('layers.1.', f'layers.{n}.')] = t[key].clone()\n"
    "        else:\n"
    "            w = t[k[0]]\n"
    "            t[k[0]] = w[:, : w.shape[1] // 2].contiguous()\n"
    "        save_file(t, f, metadata={'format': 'pt'}); break\n")


def ckpt(name: str, mode: str) -> Path:
    """A copy of the tiny model under CKPT (a trainer's step folder) with the fault applied."""
    d = copy_model(CKPT, name)
    if mode in ("drop", "shape", "deeper"):
        subprocess.run([str(VLLM.python), "-c", EDIT_TENSOR, str(d), mode], check=True)
    if mode == "deeper":
        cfg = d / "config.json"
        cfg.write_text(json.dumps({**json.loads(cfg.read_text()), "num_hidden_layers": 4},
                                  indent=2))
    elif mode == "no-shards":
        for f in d.glob("*.safetensors"):
            f.unlink()
        for f in d.glob("*.safetensors.index.json"):
            f.unlink()
    return d


def request(ctx: Ctx, path: str, body: dict | None = None, timeout: float = 120) -> int:
    """A request whose whole body is read; the status, 0 if none."""
    url = f"http://127.0.0.1:{ctx.port}{path}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def alive(ctx: Ctx) -> bool:
    return ctx.proc is not None and ctx.proc.poll() is None


# --- vLLM ------------------------------------------------------------------------------------

def v_serving(fn):
    """If it serves: a completion, ``fn(ctx, name)``, a completion, a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([READY_LINE], 200)
        if not alive(ctx) or READY_LINE not in ctx.text():
            return
        name = ctx.model_name()
        ctx.complete(1, max_tokens=12)
        fn(ctx, name)
        time.sleep(1)
        if alive(ctx):
            request(ctx, "/v1/completions", {"model": name, "prompt": "after", "max_tokens": 8},
                    timeout=40)
        linger(ctx, 10)
    return act


def v_reload(folder: str, mode: str):
    def fn(ctx: Ctx, name: str) -> None:
        path = str(ckpt(folder, mode)) if mode else str(CKPT / folder)
        request(ctx, "/collective_rpc", {"method": "reload_weights",
                                         "kwargs": {"weights_path": path}}, timeout=90)
    return fn


def v_start_update(ctx: Ctx, name: str) -> None:
    request(ctx, "/start_weight_update", {}, timeout=60)
    request(ctx, "/finish_weight_update", {}, timeout=30)


def v_sleep2_unknown_tag(ctx: Ctx, name: str) -> None:
    request(ctx, "/sleep?level=2", {}, timeout=60)
    request(ctx, "/is_sleeping", None, timeout=20)
    request(ctx, "/wake_up?tags=weights_v2", {}, timeout=60)
    request(ctx, "/is_sleeping", None, timeout=20)


def v(name: str, what: str, fn, args: list[str] | None = None) -> Scenario:
    return Scenario(name, "vllm", f"VLLM_SERVER_DEV_MODE=1; served, then {what}",
                    [*VLLM_BASE, *(args or [])], env=DEV, act=v_serving(fn))


# --- SGLang ----------------------------------------------------------------------------------

def gen(n: int = 8) -> dict:
    return {"text": "the quick fox", "sampling_params": {"max_new_tokens": n}}


def sg_serving(fn):
    """If it is fired up: a generation, ``fn(ctx)``, a generation, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 200) is None or not alive(ctx):
            linger(ctx, 5)
            return
        request(ctx, "/generate", gen(), timeout=60)
        fn(ctx)
        time.sleep(1)
        if alive(ctx):
            request(ctx, "/generate", gen(), timeout=40)
        linger(ctx, 10)
    return act


def s_update(folder: str, mode: str):
    def fn(ctx: Ctx) -> None:
        request(ctx, "/update_weights_from_disk", {"model_path": str(ckpt(folder, mode))},
                timeout=120)
    return fn


def s(name: str, what: str, fn, args: list[str] | None = None) -> Scenario:
    return Scenario(name, "sglang", f"--model-impl transformers; served, then {what}",
                    [*SG, *(args or [])], act=sg_serving(fn))


SCENARIOS = [
    v("v-rpc-reload-weights-missing", "/collective_rpc calling the worker's reload_weights with "
      "weights_path a checkpoint folder that is not there", v_reload("step-0400-missing", "")),
    v("v-rpc-reload-weights-other-shape", "/collective_rpc calling the worker's reload_weights "
      "with weights_path a checkpoint copy whose layers.1.mlp.down_proj weight is half as wide "
      "as the model's", v_reload("v-other-shape", "shape")),
    s("s-update-weights-deeper-model", "/update_weights_from_disk naming a checkpoint of a "
      "deeper model (four decoder layers, config.json saying so; the server runs two)",
      s_update("sg-deeper", "deeper")),
    v("v-start-weight-update-no-engine", "the RL route /start_weight_update (then "
      "/finish_weight_update) with no weight-transfer engine initialised", v_start_update),
    s("s-update-weights-no-shards", "/update_weights_from_disk naming a checkpoint folder with "
      "config and tokenizer files but no weight shards (a save not yet written)",
      s_update("sg-no-shards", "no-shards")),
    v("v-sleep2-wake-unknown-tag", "/sleep?level=2, /is_sleeping, /wake_up?tags=weights_v2 (a "
      "tag it does not know), /is_sleeping", v_sleep2_unknown_tag),
]
