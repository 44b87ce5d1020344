"""The hundred-and-fourteenth batch's scenarios (tests/fixtures/corpus/fresh113): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind114.py OUT

Themes: an operator's slips at the shell - the mistakes people make typing or scripting a
launch, of kinds the earlier batches had not used. A launch script saved with Windows line
endings (CRLF: `MODEL="$1"\\r` keeps a carriage return on the model path); a model path read
from a file by a Python launcher without strip() (a trailing newline); a model path that is a
symlink loop (models/current -> models/latest -> models/current, a re-link gone wrong); a model
path naming a file of the model (config.json, a weight shard) instead of its folder; an
environment variable misspelt so that the setting silently does not apply
(VLLM_ALLOW_LONG_MAX_MODEL_LENGTH for VLLM_ALLOW_LONG_MAX_MODEL_LEN, SGLANG_ALLOW_OVERWRITE_
LONGER_CONTEXT_LENGTH for ..._LEN, both with a context over the model's; SGLANG_DISABLE_MODEL_ARCHS
for SGLANG_DISABLED_MODEL_ARCHS, meant to send the Llama family to the Transformers backend); an
unquoted shell variable split into words (a JSON value `--hf-overrides $OVERRIDES`, a served
name with spaces `--served-model-name $NAME`); a JSON value pasted from a web page with curly
quotes; a flag given twice (a template's `--gpu-memory-utilization 0.9` appended after the
operator's 0.25; the later wins); a flag pasted with an en dash (`–-max-model-len`); a
--tokenizer given as a hub id with the hub offline; a vLLM habit carried into an SGLang launch
(`--model` beside `--model-path`), and a positional model beside a template's --model naming
another model in one vLLM api_server line; `--device CPU` in capitals; an unset variable
unquoted, so that a flag meets the next flag (`--max-model-len $MAX_LEN`, `--context-length
$CTX`); `--host 127.0.0.1:8000`, address and port in one value.

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm)
except where the scenario says; vLLM with VLLM_BASE's settings. The one launch script
(/tmp/blind114/scripts/, written when this table is loaded) runs through WRAP (entry="python"),
which puts the engine's interpreter in $PY and execs bash on it with the model and port.

Recorded 2026-12-06 in six invocations (about 6m40s of recording: vLLM 49 s + 128 s + 67 s
with s-unset-var-vanishes, SGLang 75 s + 54 s, the two host-with-port runs 28 s), each scenario
once; all 23 kept. What the engines did: both take a model path they cannot open as a folder
(trailing CR or newline, symlink loop, a file of the model) for a hub id and fail validating it
(`Repo id must be in the form ...`; vLLM for config.json: `Invalid repository ID or local
directory`), so no log says the link loops or the path ends in a control character except by
quoting it. vLLM warns `Unknown vLLM environment variable detected` for a misspelt VLLM_ name,
SGLang says nothing of a misspelt SGLANG_ one. vLLM's api_server takes a stray positional word
as an unused model_tag (the second half of a split JSON value, an en-dashed flag, a `vllm
serve`-style model) and serves --model silently; --served-model-name takes the split words as
three names and serves. SGLang accepts `--model` for --model-path (the later wins). The second
tiny model here (llama-hd16-v3, head_dim 16) loads and starts under vLLM, then its first request
dies: `Unsupported CPU attention configuration: head_dim=16 isa=2`. --gpu-memory-utilization 0.9
serves on this host (20.56 GiB of KV cache). SGLang uses --host for its torch.distributed
rendezvous, so `127.0.0.1:30000` fails in the scheduler (`Port could not be cast to integer value
as '30000:25761'`), vLLM's at its socket bind (`Name or service not known`).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
)
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind114")
SCRIPTS = ROOT / "scripts"
WRAP = ("import os,sys; os.environ['PY'] = sys.executable; a = sys.argv[1:]; "
        "a[0] = sys.executable if a[0] == 'PY' else a[0]; os.execv(a[0], a)")
V_NOLEN = ["--dtype", "bfloat16", "--gpu-memory-utilization", "0.25"]
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"

# A launch script saved on Windows: every line ends in CR LF.
CRLF_SCRIPT = "\r\n".join([
    "#!/usr/bin/env bash",
    "# start.sh - edited on a laptop, copied to the node",
    'MODEL="$1"',
    'PORT="$2"',
    'echo "[start.sh] starting vLLM for $MODEL on port $PORT"',
    'exec "$PY" -m vllm.entrypoints.openai.api_server --model "$MODEL" --host 127.0.0.1 '
    '--port "$PORT" --max-model-len 256 --dtype bfloat16 --gpu-memory-utilization 0.25',
    "",
])
SCRIPTS.mkdir(parents=True, exist_ok=True)
(SCRIPTS / "start-crlf.sh").write_bytes(CRLF_SCRIPT.encode())
(SCRIPTS / "start-crlf.sh").chmod(0o755)


# --- model paths ----------------------------------------------------------------------------

def path_newline(work: Path) -> Path:
    """The model path read from a file without strip(): a trailing newline."""
    return Path(str(LLAMA.dir) + "\n")


def link_loop(work: Path) -> Path:
    """models/current -> models/latest -> models/current."""
    d = work / "models"
    d.mkdir(exist_ok=True)
    for n in ("current", "latest"):
        p = d / n
        if p.is_symlink() or p.exists():
            p.unlink()
    (d / "current").symlink_to("latest")
    (d / "latest").symlink_to("current")
    return d / "current"


def config_file(work: Path) -> Path:
    return LLAMA.dir / "config.json"


def other_model(work: Path) -> Path:
    """Another tiny model of this host's (head dim 16), as a stale template's --model."""
    return LLAMA.dir.parent / "llama-hd16-v3"


def shard_file(work: Path) -> Path:
    return sorted(LLAMA.dir.glob("model-*.safetensors"))[0]


# --- acts -----------------------------------------------------------------------------------

def end_or_serve(ready: str, limit: float = 90) -> object:
    """Wait for the run to end by itself (up to ``limit`` s); if it serves, two completions."""
    def act(ctx: Ctx) -> None:
        found = ctx.wait_any([ready], limit)
        if found and ctx.proc is not None and ctx.proc.poll() is None:
            ctx.complete(2)
            time.sleep(8)
        else:
            linger(ctx, 5)
    return act


def v(name: str, what: str, args: list[str], model=None, env=None, entry="api_server",
      limit: float = 90) -> Scenario:
    return Scenario(name, "vllm", what, args, model=model, env=env or {}, entry=entry,
                    act=end_or_serve(READY_LINE, limit))


def s(name: str, what: str, args: list[str], model=None, env=None, limit: float = 90) -> Scenario:
    return Scenario(name, "sglang", what, args, model=model, env=env or {},
                    act=end_or_serve(SG_READY, limit))


SCENARIOS = [
    # vLLM
    v("v-crlf-start-script", "start.sh saved with Windows line endings (CRLF): MODEL=\"$1\"\\r "
      "keeps a carriage return on the model path",
      ["-c", WRAP, "/bin/bash", str(SCRIPTS / "start-crlf.sh"), "{model}", "{port}"],
      entry="python"),
    v("v-long-len-env-typo", "VLLM_ALLOW_LONG_MAX_MODEL_LENGTH=1 (misspelt: the variable is "
      "VLLM_ALLOW_LONG_MAX_MODEL_LEN) with --max-model-len 4096 over the model's 2048",
      ["--max-model-len", "4096", *V_NOLEN], env={"VLLM_ALLOW_LONG_MAX_MODEL_LENGTH": "1"}),
    v("v-json-word-split", "--hf-overrides $OVERRIDES unquoted: the JSON value "
      "{\"max_position_embeddings\": 4096} split by the shell into two words",
      [*VLLM_BASE, "--hf-overrides", '{"max_position_embeddings":', "4096}"]),
    v("v-served-name-split", "--served-model-name $NAME unquoted, NAME='llama tiny v3': three "
      "words; two completions if it serves",
      [*VLLM_BASE, "--served-model-name", "llama", "tiny", "v3"], limit=150),
    v("v-model-link-loop", "the model path a symlink loop (models/current -> models/latest -> "
      "models/current)", VLLM_BASE, model=link_loop),
    v("v-model-is-config-file", "--model naming the model's config.json instead of its folder",
      VLLM_BASE, model=config_file),
    v("v-tokenizer-hub-offline", "--tokenizer a hub id (meta-llama/Llama-3.2-1B) with the hub "
      "offline (HF_HUB_OFFLINE=1) and nothing cached",
      [*VLLM_BASE, "--tokenizer", "meta-llama/Llama-3.2-1B"]),
    v("v-gpu-util-twice", "--gpu-memory-utilization given twice: the operator's 0.25, then a "
      "template's 0.9 appended after it (the later wins)",
      [*VLLM_BASE, "--gpu-memory-utilization", "0.9"]),
    v("v-en-dash-flag", "--max-model-len pasted from a web page with an en dash "
      "(\u2013-max-model-len 256)",
      ["\u2013-max-model-len", "256", *V_NOLEN]),
    v("v-unset-var-vanishes", "--max-model-len $MAX_LEN unquoted with MAX_LEN unset: the word "
      "vanishes and --max-model-len meets the next flag",
      ["--max-model-len", *V_NOLEN]),
    v("v-positional-vs-model", "a positional model (llama-tiny-v3, the one meant, `vllm serve` "
      "style) and a template's --model naming another model (llama-hd16-v3) in one api_server "
      "line; two completions if it serves",
      [*VLLM_BASE, str(LLAMA.dir)], model=other_model, limit=150),
    v("v-host-with-port", "--host 127.0.0.1:8000 (the address and port in one value, as in a "
      "URL) after the launch's own --host; the later wins",
      [*VLLM_BASE, "--host", "127.0.0.1:8000"]),
    # SGLang
    s("s-model-path-newline", "the model path read from a file by a Python launcher without "
      "strip(): a trailing newline", SG, model=path_newline),
    s("s-disable-archs-typo", "SGLANG_DISABLE_MODEL_ARCHS=llama (misspelt: the variable is "
      "SGLANG_DISABLED_MODEL_ARCHS), meant to send Llama to the Transformers backend; no "
      "--model-impl", ["--device", "cpu"], env={"SGLANG_DISABLE_MODEL_ARCHS": "llama"}),
    s("s-long-ctx-env-typo", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LENGTH=1 (misspelt: the "
      "variable ends _LEN) with --context-length 4096 over the model's 2048",
      [*SG, "--context-length", "4096"],
      env={"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LENGTH": "1"}),
    s("s-served-name-split", "--served-model-name $NAME unquoted, NAME='llama tiny v3': three "
      "words", [*SG, "--served-model-name", "llama", "tiny", "v3"]),
    s("s-model-link-loop", "the model path a symlink loop (models/current -> models/latest -> "
      "models/current)", SG, model=link_loop),
    s("s-model-is-shard-file", "--model-path naming the model's first safetensors shard instead "
      "of its folder", SG, model=shard_file),
    s("s-smart-quotes-json", "--json-model-override-args pasted from a web page with curly "
      "quotes ({\u201cmax_position_embeddings\u201d: 1024})",
      [*SG, "--json-model-override-args", "{\u201cmax_position_embeddings\u201d: 1024}"]),
    s("s-model-flag-vllm-style", "a launch line edited from a vLLM command: `--model` with an "
      "older folder (models/llama-tiny-v2, not there) left after --model-path",
      [*SG, "--model", str(LLAMA.dir.parent / "llama-tiny-v2")]),
    s("s-device-upper", "--device CPU in capitals (the later --device wins)",
      ["--model-impl", "transformers", "--device", "CPU"]),
    s("s-unset-var-vanishes", "--context-length $CTX unquoted with CTX unset: the word vanishes "
      "and --context-length meets the next flag", ["--context-length", *SG]),
    s("s-host-with-port", "--host 127.0.0.1:30000 (the address and port in one value, as in a "
      "URL) after the launch's own --host; the later wins", [*SG, "--host", "127.0.0.1:30000"]),
]
