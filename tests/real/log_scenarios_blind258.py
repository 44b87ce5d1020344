"""The two-hundred-and-fifty-eighth batch's scenarios (tests/fixtures/corpus/fresh257): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind258.py OUT

Themes: pooling models (embeddings, rewards, classifiers), a new round - one fault each, in a
sentence-transformers folder built by hand, a request body or a launch. vLLM (VLLM_BASE's
settings): a sentence-transformers copy of the tiny Llama (modules.json, 1_Pooling/config.json)
whose pooling_mode is "weightedmean" (sentence-transformers' weighted mean, which vLLM has no
pooler of); a sentence-transformers copy whose modules.json lists a 2_Dense projection
(in 256, out 128) whose folder holds its config.json but no weights; an embedding server sent
/v1/embeddings with an empty input list; an embedding server sent /v1/embeddings with
truncate_prompt_tokens 300, past --max-model-len 256. SGLang (--device cpu --model-impl
transformers): an --is-embedding server sent /v1/embeddings with an empty input list; an
--is-embedding server with --context-length 64 sent an embedding input of about 600 tokens; a
reward model launch (config.json architectures Qwen2ForRewardModel, num_labels 1, over the
Llama weights) then /classify. Where a server comes up, two plain requests of the kind it
serves are sent before and after the odd one.

Earlier batches already had (not repeated): --runner pooling and --convert classify on the
generative checkpoint, SGLang --is-embedding followed by /generate (94th); a
LlamaForSequenceClassification config without a head (71st, 117th); a BERT embedding model on
SGLang (101st); a generative server asked for embeddings, pooling, score, rerank and classify,
the removed `normalize` pooler key, pooler `dimensions` on a non-matryoshka model, STEP pooling
past the vocabulary, the Qwen3-reranker recipe without its tokens, num_labels against id2label,
Qwen2ForRewardModel over Llama weights on vLLM, a classifier with --runner generate, SGLang's
embedding server asked for rerank, dimensions 32 and token ids past the vocabulary,
--json-model-override-args making a classifier (117th); --runner pooling with n-gram
speculative decoding (202nd); --is-embedding with --prefill-only-disable-kv-cache (162nd);
truncate_prompt_tokens on completions and chat (175th, 231st, 248th).

Recorded 2026-12-07 in two invocations (/tmp/blind258/raw1 with the first seven scenarios,
raw2 with s-embed-empty-token-row, added afterwards as an eighth so that SGLang had four; each
waited for other helpers' recorders at the shared lock), each scenario once, 55-64 s each
(vLLM 64, 64, 62, 55 s; SGLang 61, 62, 56, 60 s). All eight kept, none dropped; the faults
of v-st-dense-no-weights and s-reward-qwen2-arch did not show, and those logs are kept as fair
ready logs of the ground.

What the engines did. vLLM, v-st-pooling-weightedmean: reads the folder, warns `Unable to
determine Sentence Transformers pooling type from 1_Pooling/config.json; ... fall back to the
model architecture default`, resolves LAST pooling and serves (4 x 200) - served.
v-st-dense-no-weights: resolves MEAN pooling from the folder, says nothing of the Dense module or
its missing weights, serves - served. v-embed-empty-input-list and v-embed-truncate-over-len:
the odd request answered `400 Bad Request` (no reason logged), the plain ones 200 - served.
SGLang, s-embed-empty-input-list and s-embed-over-context (context_len=64): the odd request
`400 Bad Request`, the others 200 - served. s-reward-qwen2-arch: `Cannot resolve model class for
'Qwen2ForRewardModel' ... Skipping compatibility gate`, loads a
TransformersForSequenceClassification and answers /classify 200 four times - served.
s-embed-empty-token-row: the empty token-id row is accepted and the scheduler dies on a bare
`AssertionError` in mem_cache/common.py's release_kv_cache (`assert (not req.kv.holds_kv) ==
req.kv.is_kv_released`) processing the prefill batch's result; SIGQUIT, kill_process_tree -
crashed while serving. No run hung.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    json_edit,
    linger,
)

ROOT = Path("/tmp/blind258")
BASE = VLLM_BASE
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
TEXT = "the quick brown fox jumps over the lazy dog"
LONG = " ".join(["the quick brown fox jumps over the lazy dog"] * 60)

# --- checkpoints ------------------------------------------------------------------------------

ST_POOL = "sentence_transformers.models.Pooling"
ST_DENSE = "sentence_transformers.models.Dense"
ST_NORM = "sentence_transformers.models.Normalize"
ST_T = "sentence_transformers.models.Transformer"


def st_folder(name: str, pooling: dict, dense: bool = False) -> Callable[[Path], Path]:
    """A sentence-transformers style copy of the tiny model: modules.json, 1_Pooling/config.json
    ``pooling``, optionally a 2_Dense folder with its config.json and no weights."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        modules = [{"idx": 0, "name": "0", "path": "", "type": ST_T},
                   {"idx": 1, "name": "1", "path": "1_Pooling", "type": ST_POOL}]
        if dense:
            modules.append({"idx": 2, "name": "2", "path": "2_Dense", "type": ST_DENSE})
            (d / "2_Dense").mkdir()
            (d / "2_Dense" / "config.json").write_text(json.dumps(
                {"in_features": 256, "out_features": 128, "bias": True,
                 "activation_function": "torch.nn.modules.linear.Identity"}, indent=2))
        modules.append({"idx": len(modules), "name": str(len(modules)),
                        "path": f"{len(modules)}_Normalize", "type": ST_NORM})
        (d / "modules.json").write_text(json.dumps(modules, indent=2))
        (d / "1_Pooling").mkdir()
        (d / "1_Pooling" / "config.json").write_text(json.dumps(
            {"word_embedding_dimension": 256, **pooling}, indent=2))
        (d / "sentence_bert_config.json").write_text(json.dumps(
            {"max_seq_length": 256, "do_lower_case": False}))
        return d
    return make


MEAN_OFF = {"pooling_mode_cls_token": False, "pooling_mode_mean_tokens": False,
            "pooling_mode_max_tokens": False, "pooling_mode_mean_sqrt_len_tokens": False,
            "pooling_mode_lasttoken": False}
st_weightedmean = st_folder("st-weightedmean",
                            {**MEAN_OFF, "pooling_mode_weightedmean_tokens": True,
                             "pooling_mode": "weightedmean"})
st_dense_no_weights = st_folder("st-dense-no-weights",
                                {**MEAN_OFF, "pooling_mode_mean_tokens": True}, dense=True)
qwen2_reward = json_edit("qwen2-reward", "config.json", architectures=["Qwen2ForRewardModel"],
                         num_labels=1)

# --- steps ------------------------------------------------------------------------------------

Req = tuple[str, dict]


def around(ready: str, plain: Req, odd: list[Req], wait: float = 240,
           after: float = 12) -> Callable[[Ctx], None]:
    """Once ``ready`` is logged: two ``plain`` requests, each ``odd`` one, two ``plain`` again,
    then a pause; a run that ends first is left to end."""
    def act(ctx: Ctx) -> None:
        found = ctx.wait_any([ready], wait)
        if found is None or ctx.proc is None or ctx.proc.poll() is not None:
            linger(ctx, 5)
            return
        name = ctx.model_name()
        for path, body in [plain, plain, *odd, plain, plain]:
            ctx.post(path, {"model": name, **body}, timeout=40)
            time.sleep(1)
        linger(ctx, after)
    return act


EMBED: Req = ("/v1/embeddings", {"input": TEXT})
CLASSIFY_S: Req = ("/classify", {"text": TEXT})
POOL = [*BASE, "--runner", "pooling"]
EMB = [*BASE, "--runner", "pooling", "--convert", "embed"]

SCENARIOS = [
    # --- vLLM ---------------------------------------------------------------------------------
    Scenario("v-st-pooling-weightedmean", "vllm", "a sentence-transformers folder built around "
             "the tiny model (modules.json, 1_Pooling/config.json, Normalize) whose pooling_mode "
             "is weightedmean, served with --runner pooling; then embeddings", POOL,
             model=st_weightedmean, act=around(READY_LINE, EMBED, [])),
    Scenario("v-st-dense-no-weights", "vllm", "a sentence-transformers folder whose modules.json "
             "lists a 2_Dense projection (256 -> 128) whose folder has its config.json but no "
             "weights, served with --runner pooling; then embeddings", POOL,
             model=st_dense_no_weights, act=around(READY_LINE, EMBED, [])),
    Scenario("v-embed-empty-input-list", "vllm", "--runner pooling --convert embed; two "
             "embeddings, one with an empty input list ([]), two more", EMB,
             act=around(READY_LINE, EMBED, [("/v1/embeddings", {"input": []})])),
    Scenario("v-embed-truncate-over-len", "vllm", "--runner pooling --convert embed; two "
             "embeddings, one of a ~600-token input with truncate_prompt_tokens 300 (past "
             "--max-model-len 256), two more", EMB,
             act=around(READY_LINE, EMBED, [("/v1/embeddings", {
                 "input": LONG, "truncate_prompt_tokens": 300})])),
    # --- SGLang -------------------------------------------------------------------------------
    Scenario("s-embed-empty-input-list", "sglang", "--is-embedding; two embeddings, one with an "
             "empty input list ([]), two more", [*SG, "--is-embedding"],
             act=around(SG_READY, EMBED, [("/v1/embeddings", {"input": []})])),
    Scenario("s-embed-over-context", "sglang", "--is-embedding --context-length 64; two "
             "embeddings, one of a ~600-token input (past the context), two more",
             [*SG, "--is-embedding", "--context-length", "64"],
             act=around(SG_READY, EMBED, [("/v1/embeddings", {"input": LONG})])),
    Scenario("s-reward-qwen2-arch", "sglang", "a reward model launch: config.json architectures "
             "Qwen2ForRewardModel (num_labels 1) over the Llama weights, --is-embedding; then "
             "/classify", [*SG, "--is-embedding"], model=qwen2_reward,
             act=around(SG_READY, CLASSIFY_S, [])),
    Scenario("s-embed-empty-token-row", "sglang", "--is-embedding; two embeddings, one whose "
             "input is a batch of token-id lists with an empty row ([[5, 6, 7], []]), two more",
             [*SG, "--is-embedding"],
             act=around(SG_READY, EMBED, [("/v1/embeddings", {"input": [[5, 6, 7], []]})])),
]
