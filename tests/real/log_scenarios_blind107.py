"""The hundred-and-seventh batch's scenarios (tests/fixtures/corpus/fresh106): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind107.py OUT

Themes: settings given through files and the environment rather than flags. vLLM's and
SGLang's `--config FILE.yaml` (a key the engine does not know, a tab in the indentation, a file
that is not there, an empty file, a file not named .yaml, a quoted "true" for a switch, a
percentage where a fraction is wanted, a YAML list at the root, a GPU node's key SGLang's merger
refuses - `disable-cuda-graph` - and a key given in the file and on the command line with
different values, where the command line wins); environment variables a deployment sets from
a .env file or a Kubernetes manifest (a value with its quotes kept: VLLM_CPU_KVCACHE_SPACE="1",
SGLANG_WARMUP_TIMEOUT="600"; VLLM_PORT set by Kubernetes service discovery to a URI; HF_HOME
naming a plain file); a model path with its .env quotes kept; a tokenizer_config.json saved
with a UTF-8 byte-order mark; generation_config.json defaults the engine takes for requests
that leave them out (max_new_tokens 0 for vLLM, Hugging Face's top_k 0 for SGLang).

The config files are written under /tmp/blind107/cfg when this table is loaded. SGLang runs
with --device cpu --model-impl transformers (its own Llama module imports vllm); vLLM with
VLLM_BASE's settings.

Recorded 2026-12-06 in three invocations (vLLM 4m50s, SGLang 3m55s, then the two
generation_config scenarios 1m25s: about 10 minutes), each scenario once; all 22 kept. What the
engines did: vLLM turns each YAML key into a flag, so an unknown key is argparse's `unrecognized
arguments` (its value taken as the model tag), an empty file dies on `NoneType ... items`, and
a file not named .yaml/.yml is refused by name; the command line beats the file in both engines,
silently. SGLang's YAML merger refuses `disable-cuda-graph` (`Unsupported config option
'disable_cuda_graph' with action 'DeprecatedStoreTrueAction'`) and a list at the root. vLLM reads
VLLM_PORT only in the worker, after its weights are read, so the Kubernetes URI fails there; a
quoted VLLM_CPU_KVCACHE_SPACE fails in VllmConfig's validation. SGLang's environment fields
only warn on a bad value (SGLANG_WARMUP_TIMEOUT falls back to -1 and the server serves).
HF_HOME naming a file is harmless with a local model offline. transformers' GenerationConfig
refuses max_new_tokens 0 as vLLM's API server builds its input processor; SGLang takes top_k 0
from generation_config.json and serves.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    json_edit,
    linger,
    up,
)
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind107")
CFG = ROOT / "cfg"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"

FILES: dict[str, str] = {
    "v-unknown-key.yaml": "# vLLM serving settings (from the team's GPU template)\n"
                          "max-num-seqs: 16\nmax-batch-size: 8\nenforce-eager: true\n",
    "v-tab.yaml": "max-num-seqs: 16\ncompilation-config:\n\tmode: 0\n",
    "v-empty.yaml": "",
    "v-serve.conf": "max-num-seqs: 16\nenforce-eager: true\n",
    "v-vs-flag.yaml": "# node defaults\nmax-model-len: 4096\ndtype: float16\nmax-num-seqs: 8\n",
    "s-unknown-key.yaml": "# SGLang serving settings\nmem-fraction-static: 0.8\nmax-batch-size: 8\n",
    "s-cuda-graph.yaml": "# copied from the GPU nodes' config\nmem-fraction-static: 0.8\n"
                         "disable-cuda-graph: true\n",
    "s-quoted-bool.yaml": "mem-fraction-static: 0.8\nenable-metrics: \"true\"\n",
    "s-percent.yaml": "mem-fraction-static: 80%\nmax-running-requests: 8\n",
    "s-root-list.yaml": "- --mem-fraction-static\n- 0.8\n- --max-running-requests\n- 8\n",
    "s-serve.conf": "mem-fraction-static: 0.8\nmax-running-requests: 8\n",
    "s-vs-flag.yaml": "# GPU node defaults\ndevice: cuda\nmax-running-requests: 8\n",
}
CFG.mkdir(parents=True, exist_ok=True)
for _name, _text in FILES.items():
    (CFG / _name).write_text(_text)
(ROOT / "hf-home").write_text("HF_HOME=/data/hf\n")   # a file where a folder is expected


def cfg(name: str) -> list[str]:
    return ["--config", str(CFG / name)]


def quoted_model(work: Path) -> Path:
    """The model path as a .env file's `MODEL_PATH="/models/..."` passes it: quotes kept."""
    return Path(f'"{LLAMA.dir}"')


def tokconfig_bom(work: Path) -> Path:
    d = copy_model(work, "tokconfig-bom")
    f = d / "tokenizer_config.json"
    f.write_bytes(b"\xef\xbb\xbf" + f.read_bytes())
    return d


def v_end_or_serve(ctx: Ctx) -> None:
    """A launch expected to fail: wait for it to end; if it serves instead, two requests."""
    if up(ctx, 110):
        time.sleep(2)
        ctx.complete(2, max_tokens=12)
        linger(ctx, 8)


def s_end_or_serve(ctx: Ctx) -> None:
    if ctx.wait_for(SG_READY, 110):
        time.sleep(2)
        ctx.complete(2, max_tokens=12)
        linger(ctx, 8)


def s_warmup_wait(ctx: Ctx) -> None:
    """Up to 80 s for the ready line (the warmup request may never come back)."""
    if ctx.wait_for(SG_READY, 80):
        ctx.complete(2, max_tokens=12)
        linger(ctx, 8)


def v_requests_without_max_tokens(ctx: Ctx) -> None:
    """Up: two completions that leave max_tokens to the server's defaults, then one with it."""
    if up(ctx, 150):
        time.sleep(2)
        name = ctx.model_name()
        for i in range(2):
            ctx.post("/v1/completions", {"model": name, "prompt": f"fox {i}"})
        ctx.complete(1, max_tokens=12)
        linger(ctx, 12)


def v(name, what, args, act=v_end_or_serve, **kw) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=act, wait_s=90, **kw)


def s(name, what, args, act=s_end_or_serve, **kw) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=act, wait_s=90, **kw)


SCENARIOS = [
    # --- vLLM ------------------------------------------------------------------------------------
    v("v-yaml-unknown-key", "--config serve.yaml with a key vLLM has no flag for "
      "(max-batch-size: 8, from another server's template)", cfg("v-unknown-key.yaml")),
    v("v-yaml-tab-indent", "--config serve.yaml whose nested compilation-config line is "
      "indented with a tab (a YAML syntax error)", cfg("v-tab.yaml")),
    v("v-yaml-missing", "--config naming /etc/vllm/serve.yaml, a ConfigMap that was not "
      "mounted (no such file)", ["--config", "/etc/vllm/serve.yaml"]),
    v("v-yaml-empty", "--config serve.yaml that is empty (0 bytes: a ConfigMap key left empty)",
      cfg("v-empty.yaml")),
    v("v-yaml-conf-extension", "--config naming serve.conf (valid YAML content, but the file "
      "not named .yaml/.yml)", cfg("v-serve.conf")),
    v("v-yaml-vs-flag", "--config serve.yaml gives max-model-len 4096 and dtype float16 while "
      "the command line gives --max-model-len 256 --dtype bfloat16: the command line wins, the "
      "server serves", cfg("v-vs-flag.yaml")),
    v("v-env-kv-space-quoted", "VLLM_CPU_KVCACHE_SPACE=\"1\" from a .env file with its quotes "
      "kept in the value", [], env={"VLLM_CPU_KVCACHE_SPACE": '"1"'}),
    v("v-env-port-k8s-uri", "VLLM_PORT=tcp://10.96.0.15:8000, set by Kubernetes service "
      "discovery for a Service named vllm", [], env={"VLLM_PORT": "tcp://10.96.0.15:8000"}),
    v("v-hf-home-file", "HF_HOME naming a plain file (a .env file mounted where the cache "
      "folder should be)", [], env={"HF_HOME": str(ROOT / "hf-home")}),
    v("v-model-path-quoted", "the model path from a .env file's MODEL_PATH=\"/models/...\" "
      "passed with its quotes kept (--model '\"/.../llama-tiny\"')", [], model=quoted_model),
    v("v-genconfig-max-new-tokens-0", "generation_config.json with max_new_tokens 0 (vLLM takes "
      "it as the default max_tokens); two completions without max_tokens, then one with it",
      [], model=json_edit("genconfig-mnt0", "generation_config.json", max_new_tokens=0),
      act=v_requests_without_max_tokens),
    # --- SGLang ----------------------------------------------------------------------------------
    s("s-yaml-unknown-key", "--config serve.yaml with a key SGLang has no flag for "
      "(max-batch-size: 8)", cfg("s-unknown-key.yaml")),
    s("s-yaml-disable-cuda-graph", "--config serve.yaml copied from the GPU nodes with "
      "disable-cuda-graph: true, a key SGLang's config merger does not support",
      cfg("s-cuda-graph.yaml")),
    s("s-yaml-quoted-bool", "--config serve.yaml with enable-metrics: \"true\" (a quoted string, "
      "so the switch gets a value)", cfg("s-quoted-bool.yaml")),
    s("s-yaml-percent", "--config serve.yaml with mem-fraction-static: 80% (a percentage where "
      "a fraction is wanted)", cfg("s-percent.yaml")),
    s("s-yaml-root-list", "--config serve.yaml written as a YAML list of flags and values, not a "
      "mapping", cfg("s-root-list.yaml")),
    s("s-yaml-conf-extension", "--config naming serve.conf (valid YAML content, but the file not "
      "named .yaml/.yml)", cfg("s-serve.conf")),
    s("s-yaml-vs-flag", "--config serve.yaml from the GPU nodes gives device: cuda while the "
      "command line gives --device cpu: the command line wins, the server serves",
      cfg("s-vs-flag.yaml")),
    s("s-env-warmup-timeout-quoted", "SGLANG_WARMUP_TIMEOUT=\"600\" from a .env file with its "
      "quotes kept (not a float); it is read when the warmup request is sent",
      [], act=s_warmup_wait, env={"SGLANG_WARMUP_TIMEOUT": '"600"'}),
    s("s-tokconfig-bom", "tokenizer_config.json saved with a UTF-8 byte-order mark", [],
      model=tokconfig_bom),
    s("s-genconfig-top-k-0", "generation_config.json with do_sample true and top_k 0 (Hugging "
      "Face's 'no top-k filtering'; SGLang takes the model's sampling defaults), then two "
      "completions that leave top_k to those defaults", [],
      model=json_edit("genconfig-topk0", "generation_config.json", do_sample=True, top_k=0)),
    s("s-model-path-quoted", "the model path from a .env file's MODEL_PATH=\"/models/...\" "
      "passed with its quotes kept", [], model=quoted_model),
]
