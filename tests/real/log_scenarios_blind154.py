"""The hundred-and-fifty-fourth batch's scenarios (tests/fixtures/corpus/fresh153): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind154.py OUT

Themes: the tokenizer given at launch apart from the model (--tokenizer, --tokenizer-path), as
people do with fine-tunes and local mirrors, and the engines' tokenizer settings. Tokenizer
folders made under /tmp/blind154/tok (written when this table is loaded, from the tiny model's
own files; never the cached model): one holding tokenizer_config.json without tokenizer.json,
one holding tokenizer.json without tokenizer_config.json, one whose BPE vocabulary is cut to its
first 128 ids (the model's embedding has 512 rows; merges and the space byte go with the cut).
vLLM: --tokenizer-mode mistral on this Hugging Face tokenizer, --tokenizer at the folder without
tokenizer.json, --tokenizer at the cut vocabulary (then text and token-id prompts).
SGLang: --skip-tokenizer-init then a
text /generate (and one of input ids), --tokenizer-worker-num 2, --tokenizer-path at the folder
without tokenizer_config.json, at the folder without tokenizer.json, at the cut vocabulary.

Earlier batches already had (not repeated): --tokenizer-mode slow (73rd; SGLang's was dropped
then), a --tokenizer-mode that is not a mode (83rd), --tokenizer-worker-num 0 (73rd; the 90th's
--tokenizer-worker-num 2 died of another fault and was dropped), vLLM's --skip-tokenizer-init
with text and token-id requests (78th), tokenizer_config.json's tokenizer_class naming a class
transformers lacks (69th), special tokens the vocabulary lacks (70th), added tokens past the
embedding (92nd, both engines), the tokenizer files all removed (69th), --tokenizer at an empty
folder (67th) or at the tokenizer.json file (72nd), --tokenizer a hub id offline (75th, 114th,
147th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers.

Recorded 2026-12-06 in one invocation (raw1: nine scenarios, taking turns with two other
helpers' recorders); each scenario once. About 6m20s of recording (vLLM 9+12+52+42 s, SGLang
76+88+18+17+65 s). 8 kept (final files eg101-eg108). Dropped: v-tokenizer-revision-absent
(--tokenizer-revision no-such-branch with the tokenizer read from the local model folder: vLLM
ignores the revision for a local path, names it only in its `non-default args` and served two
completions - the fault never shows), removed from the table.

What the engines did. Four faults end the launch within 20 s, before any engine process or
weights: vLLM's --tokenizer-mode mistral on a Hugging Face tokenizer (mistral_common's
`ValueError: No tokenizer file found.`); a tokenizer folder without tokenizer.json, in both
engines (transformers' `Couldn't instantiate the backend tokenizer ... You need to have
sentencepiece or tiktoken installed`); SGLang's --tokenizer-path at a folder without
tokenizer_config.json, where SGLang hands the local path to hf_hub_download as a repo id
(`HFValidationError: Repo id must be in the form 'repo_name' or 'namespace/repo_name'`). vLLM
given any local --tokenizer folder without a config.json logs `ERROR ... Error parsing config for
<folder>: Unrecognized model ... Should have a `model_type` key`, retried once, and goes on. A
vocabulary cut to 128 ids (the embedding 512 rows) is served quietly by both engines, text and
token-id prompts alike, all 200 OK (SGLang's prefill counts show one token a character); neither
checks the tokenizer against the embedding. SGLang's --skip-tokenizer-init refuses each text
/generate with `[http_server] Error: The engine initialized with skip_tokenizer_init=True cannot
accept text prompts` and a 400, serves input_ids, and stays up. SGLang's --tokenizer-worker-num
2 serves, while uvicorn's supervisor reports `Child process [...] died` four times, before and
while serving, with no traceback.
"""

from __future__ import annotations

import json
import shutil
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind154")
TOK = ROOT / "tok"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
CUT = 128


def _setup() -> None:
    src = LLAMA.dir
    for name, files in (("config-only", ("tokenizer_config.json",)),
                        ("json-only", ("tokenizer.json",)),
                        ("vocab-cut", ("tokenizer.json", "tokenizer_config.json"))):
        d = TOK / name
        d.mkdir(parents=True, exist_ok=True)
        for f in files:
            shutil.copy(src / f, d / f)
    f = TOK / "vocab-cut" / "tokenizer.json"
    t = json.loads((src / "tokenizer.json").read_text())
    vocab = {k: i for k, i in t["model"]["vocab"].items() if i < CUT}
    t["model"]["vocab"] = vocab
    t["model"]["merges"] = [m for m in t["model"]["merges"]
                            if all(p in vocab for p in m) and "".join(m) in vocab]
    f.write_text(json.dumps(t))


_setup()


# --- steps -------------------------------------------------------------------------------------

def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2, max_tokens=16)
        time.sleep(6)


def v_cut_requests(ctx: Ctx) -> None:
    """Served: text completions (one with words the cut vocabulary lacks), a token-id prompt
    holding ids past the cut (in the model's vocabulary), one more completion."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        name = ctx.model_name()
        ctx.complete(2, max_tokens=16)
        ctx.post("/v1/completions", {"model": name, "prompt": "The quick brown fox, café",
                                     "max_tokens": 16})
        ctx.post("/v1/completions", {"model": name, "prompt": [5, 200, 300, 17],
                                     "max_tokens": 16})
        ctx.complete(1, max_tokens=16)
        time.sleep(8)


def sg_generate(ctx: Ctx, body: dict) -> None:
    ctx.post("/generate", {**body, "sampling_params": {"max_new_tokens": 16}})


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up; then /generate twice, a completion, a pause."""
    found = ctx.wait_any([SG_READY], 180)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            sg_generate(ctx, {"text": "The quick brown fox"})
            sg_generate(ctx, {"text": "fox 1"})
            ctx.complete(1, max_tokens=16)
        linger(ctx, 10)


def s_cut_requests(ctx: Ctx) -> None:
    found = ctx.wait_any([SG_READY], 180)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            sg_generate(ctx, {"text": "fox 0"})
            sg_generate(ctx, {"text": "The quick brown fox, café"})
            sg_generate(ctx, {"input_ids": [5, 200, 300, 17]})
            sg_generate(ctx, {"text": "fox 1"})
        linger(ctx, 10)


def s_skip_tok_requests(ctx: Ctx) -> None:
    """--skip-tokenizer-init: a text /generate, then one of input ids, then text again."""
    found = ctx.wait_any([SG_READY], 180)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            sg_generate(ctx, {"text": "The quick brown fox"})
            sg_generate(ctx, {"input_ids": [5, 60, 70, 17]})
            sg_generate(ctx, {"text": "fox 1"})
        linger(ctx, 10)


def v(name: str, what: str, args: list[str], act=v_until) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=act)


def s(name: str, what: str, args: list[str], act=s_until) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=act)


SCENARIOS = [
    v("v-tokenizer-mode-mistral", "--tokenizer-mode mistral on the tiny Llama, whose tokenizer is "
      "a Hugging Face tokenizer.json (no tekken.json, no tokenizer.model)",
      ["--tokenizer-mode", "mistral"]),
    v("v-tokenizer-dir-config-only", "--tokenizer a local folder holding the model's "
      "tokenizer_config.json but no tokenizer.json (a mirror copied in part)",
      ["--tokenizer", str(TOK / "config-only")]),
    v("v-tokenizer-vocab-cut-128", "--tokenizer a local folder whose tokenizer.json vocabulary is "
      "cut to ids 0-127 (no merges, no space byte; the model's embedding has 512 rows); two "
      "completions, one with words and an accent, a token-id prompt [5, 200, 300, 17], one more",
      ["--tokenizer", str(TOK / "vocab-cut")], act=v_cut_requests),
    s("s-skip-tokenizer-init-text", "--skip-tokenizer-init, then a text /generate, one of "
      "input_ids, and a text one again", ["--skip-tokenizer-init"], act=s_skip_tok_requests),
    s("s-tokenizer-workers-2", "--tokenizer-worker-num 2 (two tokenizer processes in front of "
      "the scheduler); two /generate and a completion", ["--tokenizer-worker-num", "2"]),
    s("s-tokenizer-path-json-only", "--tokenizer-path a local folder holding tokenizer.json but "
      "no tokenizer_config.json (bos/eos names absent); two /generate and a completion",
      ["--tokenizer-path", str(TOK / "json-only")]),
    s("s-tokenizer-path-config-only", "--tokenizer-path a local folder holding "
      "tokenizer_config.json but no tokenizer.json", ["--tokenizer-path", str(TOK / "config-only")]),
    s("s-tokenizer-path-vocab-cut-128", "--tokenizer-path a local folder whose tokenizer.json "
      "vocabulary is cut to ids 0-127 (the model's embedding has 512 rows); /generate of text, of "
      "words with an accent, of input_ids [5, 200, 300, 17], of text again",
      ["--tokenizer-path", str(TOK / "vocab-cut")], act=s_cut_requests),
]
