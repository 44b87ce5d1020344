"""The hundred-and-seventeenth batch's scenarios (tests/fixtures/corpus/fresh116): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind117.py OUT

Themes: a model served for a task it was not built for, or a pooling model set up wrong. A
generative server asked for embeddings, pooling, scores, reranking and classification; an
embedding server asked for reranking, reduced dimensions and token ids past the vocabulary;
vLLM's --pooler-config from an older recipe (the removed `normalize` key), with matryoshka
`dimensions` on a model that has none, and with a STEP (process-reward) pooling whose
step_tag_id and returned_token_ids lie past the vocabulary; the Qwen3-reranker recipe
(--hf-overrides classifier_from_token ["yes", "no"], method from_2_way_softmax) on a model whose
vocabulary holds neither word as a token; config.json copies of the tiny Llama (under the
recorder's work folder, never the cached model) whose `architectures` names
LlamaForSequenceClassification (without a `score` head beside the weights, and with one),
Qwen2ForRewardModel over Llama weights, and a classifier whose `num_labels` (3) disagrees with
its `id2label` (2 labels) over a 3-row score head; a sequence classifier launched with
--runner generate; SGLang's --json-model-override-args making the generative checkpoint a
one-label classifier at launch.

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm,
which is not in its environment here); vLLM with VLLM_BASE's settings. Earlier batches already
had: --runner pooling and --convert classify on the generative checkpoint (94th), SGLang's
--is-embedding followed by /generate (94th), vLLM on a LlamaForSequenceClassification config
without a head (71st), a BERT embedding model on SGLang (101st).

Recorded 2026-12-06 in seven invocations (separate output folders where two waited for the lock
at once: each invocation removes its work folder when it ends), each scenario once, about 11
minutes of recording in all (vLLM 7m00s for 8, SGLang 4m18s for 6); 14 kept. Three scenarios
written first (v-classifier-cross-encoder, s-reward-arch-qwen2, s-classifier-chat) were dropped
unrecorded for time and removed from the table. What the engines did: vLLM refuses the removed
`normalize` key at argument parsing; it refuses pooler `dimensions` on a non-matryoshka model
only in the memory-profile run (`VLLMValidationError ... does not support Matryoshka
embeddings`), and the STEP pooler's returned_token_ids 600 die there too (`IndexError: index 600
is out of bounds for dimension 0 with size 256`). It serves, with no word about the fault, the
reranker recipe whose tokens are missing, a classifier whose num_labels and id2label disagree
(transformers only warns `You passed num_labels=3 which is incompatible to the id2label map of
length 2`), and a Qwen2ForRewardModel config over Llama weights
(`supported_tasks=('token_classify',)`; /pooling 400, /classify 404). A classifier checkpoint
launched with --runner generate is resolved to TransformersForCausalLM and dies loading the head
(`There is no module or parameter named 'score' in TransformersForCausalLM`). A generative vLLM
answers 404 on every pooling route. SGLang answers 400 to embeddings, rerank and classify on a
generative server; an --is-embedding server answers /v1/rerank (200) and refuses `dimensions`
with a bare 400; its TransformersForSequenceClassification loads a classifier config with no
head silently and answers /classify and /v1/score, but a /generate to it kills the scheduler
(the bare `assert self.logits_processor is not None and self.lm_head is not None`); an embedding
request of token ids past the vocabulary kills the scheduler too (`IndexError: index out of
range in self` in F.embedding) - SGLang does not check input ids against the vocabulary.
"""

from __future__ import annotations

import json
import subprocess
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
from setup_engines import VLLM  # noqa: E402

BASE = VLLM_BASE
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
TEXT = "the quick brown fox jumps over the lazy dog"

# --- checkpoints ------------------------------------------------------------------------------


def with_score_head(name: str, rows: int, **changes: object) -> Callable[[Path], Path]:
    """A copy whose config.json has ``changes`` and whose weights gain a `score.weight` of
    ``rows`` x 256 (a classifier head, in a file of its own listed in the index)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        cfg = d / "config.json"
        cfg.write_text(json.dumps({**json.loads(cfg.read_text()), **changes}, indent=2))
        code = ("import sys, torch\nfrom safetensors.torch import save_file\n"
                "torch.manual_seed(0)\n"
                "save_file({'score.weight': (torch.randn(int(sys.argv[2]), 256) * 0.02)"
                ".to(torch.bfloat16)}, sys.argv[1] + '/model-score.safetensors',"
                " metadata={'format': 'pt'})\n")
        subprocess.run([str(VLLM.python), "-c", code, str(d), str(rows)], check=True)
        idx = d / "model.safetensors.index.json"
        data = json.loads(idx.read_text())
        data["weight_map"]["score.weight"] = "model-score.safetensors"
        idx.write_text(json.dumps(data, indent=2))
        return d
    return make


SEQ_CLS = ["LlamaForSequenceClassification"]
seq_cls_no_head = json_edit("seq-cls-no-head", "config.json", architectures=SEQ_CLS,
                            num_labels=2, id2label={"0": "negative", "1": "positive"},
                            label2id={"negative": 0, "positive": 1})
seq_cls_2 = with_score_head("seq-cls-2", 2, architectures=SEQ_CLS,
                            id2label={"0": "negative", "1": "positive"},
                            label2id={"negative": 0, "positive": 1})
labels_disagree = with_score_head("labels-disagree", 3, architectures=SEQ_CLS, num_labels=3,
                                  id2label={"0": "negative", "1": "positive"},
                                  label2id={"negative": 0, "positive": 1})
qwen2_reward = json_edit("qwen2-reward", "config.json", architectures=["Qwen2ForRewardModel"],
                         num_labels=1)

# --- steps ------------------------------------------------------------------------------------

Req = tuple[str, dict]


def requests_when_up(ready: str, reqs: Callable[[str], list[Req]], wait: float = 200,
                     after: float = 12) -> Callable[[Ctx], None]:
    """Once ``ready`` is logged, each request of ``reqs(model name)`` in turn, then a pause;
    a run that ends first is left to end."""
    def act(ctx: Ctx) -> None:
        found = ctx.wait_any([ready], wait)
        if found is None or ctx.proc is None or ctx.proc.poll() is not None:
            linger(ctx, 5)
            return
        name = ctx.model_name()
        for path, body in reqs(name):
            ctx.post(path, {"model": name, **body} if "model" not in body else body,
                     timeout=40)
            time.sleep(1)
        linger(ctx, after)
    return act


def v_act(reqs: Callable[[str], list[Req]]) -> Callable[[Ctx], None]:
    return requests_when_up(READY_LINE, reqs)


def s_act(reqs: Callable[[str], list[Req]]) -> Callable[[Ctx], None]:
    return requests_when_up(SG_READY, reqs)


EMBED: Req = ("/v1/embeddings", {"input": TEXT})
POOLING: Req = ("/pooling", {"input": TEXT})
SCORE: Req = ("/score", {"queries": "what jumps?", "documents": ["the fox jumps", "a dog"]})
RERANK: Req = ("/rerank", {"query": "what jumps?", "documents": ["the fox jumps", "a dog"]})
CLASSIFY: Req = ("/classify", {"input": TEXT})
COMPLETE: Req = ("/v1/completions", {"prompt": "fox", "max_tokens": 8})

SCENARIOS = [
    # --- vLLM ---------------------------------------------------------------------------------
    Scenario("v-generate-asked-pooling", "vllm", "the generative checkpoint served as it is, "
             "then asked for embeddings, pooling, a score, a rerank and a classification (a "
             "client pointed at the wrong server), then a completion", BASE,
             act=v_act(lambda n: [EMBED, POOLING, SCORE, RERANK, CLASSIFY, COMPLETE])),
    Scenario("v-pooler-normalize-removed", "vllm", "--runner pooling with --pooler-config "
             "{\"pooling_type\": \"MEAN\", \"normalize\": true} copied from an older recipe",
             [*BASE, "--runner", "pooling", "--pooler-config",
              '{"pooling_type": "MEAN", "normalize": true}'],
             act=v_act(lambda n: [EMBED])),
    Scenario("v-pooler-dimensions", "vllm", "--runner pooling with --pooler-config "
             "{\"dimensions\": 64} (matryoshka truncation) on a model that has no matryoshka "
             "dimensions; then embeddings, one asking dimensions 32",
             [*BASE, "--runner", "pooling", "--pooler-config", '{"dimensions": 64}'],
             act=v_act(lambda n: [EMBED, ("/v1/embeddings", {"input": TEXT,
                                                              "dimensions": 32})])),
    Scenario("v-step-tag-oov", "vllm", "--runner pooling with a process-reward pooler "
             "(--pooler-config STEP pooling, step_tag_id 99999 and returned_token_ids [600, "
             "601], past the 512-entry vocabulary); then /pooling requests",
             [*BASE, "--runner", "pooling", "--pooler-config",
              '{"pooling_type": "STEP", "step_tag_id": 99999, '
              '"returned_token_ids": [600, 601]}'],
             act=v_act(lambda n: [POOLING, ("/pooling", {"input": TEXT,
                                                         "task": "token_classify"}),
                                  COMPLETE])),
    Scenario("v-reranker-tokens-missing", "vllm", "the Qwen3-reranker recipe on the tiny "
             "model: --hf-overrides architectures LlamaForSequenceClassification, "
             "classifier_from_token [\"yes\", \"no\"], method from_2_way_softmax (neither word "
             "is a token of this vocabulary); then /rerank",
             [*BASE, "--hf-overrides",
              '{"architectures": ["LlamaForSequenceClassification"], '
              '"classifier_from_token": ["yes", "no"], "method": "from_2_way_softmax"}'],
             act=v_act(lambda n: [RERANK, SCORE])),
    Scenario("v-labels-disagree", "vllm", "config.json LlamaForSequenceClassification with "
             "num_labels 3 but an id2label of 2 labels, over weights with a 3-row score head; "
             "then /classify", BASE, model=labels_disagree,
             act=v_act(lambda n: [CLASSIFY])),
    Scenario("v-reward-arch-qwen2", "vllm", "config.json architectures Qwen2ForRewardModel "
             "(a reward model's config) over the Llama weights; then /pooling", BASE,
             model=qwen2_reward, act=v_act(lambda n: [POOLING, CLASSIFY])),
    Scenario("v-classifier-runner-generate", "vllm", "a sequence classifier (config.json "
             "LlamaForSequenceClassification, 2 labels, a score head) launched with --runner "
             "generate to get completions from it", [*BASE, "--runner", "generate"],
             model=seq_cls_2, act=v_act(lambda n: [COMPLETE])),
    # --- SGLang -------------------------------------------------------------------------------
    Scenario("s-generate-asked-pooling", "sglang", "the generative checkpoint served as it is, "
             "then asked for embeddings, a rerank and a classification (a client pointed at "
             "the wrong server), then a generation", SG,
             act=s_act(lambda n: [EMBED, ("/v1/rerank", {"query": "what jumps?",
                                                          "documents": ["the fox", "a dog"]}),
                                  ("/classify", {"text": TEXT}),
                                  ("/generate", {"text": "fox", "sampling_params":
                                                 {"max_new_tokens": 8}})])),
    Scenario("s-embed-rerank-dims", "sglang", "--is-embedding on the generative checkpoint; "
             "an embedding, then a rerank and an embedding with dimensions 32 (no matryoshka)",
             [*SG, "--is-embedding"],
             act=s_act(lambda n: [EMBED, ("/v1/rerank", {"query": "what jumps?",
                                                          "documents": ["the fox", "a dog"]}),
                                  ("/v1/embeddings", {"input": TEXT, "dimensions": 32}),
                                  EMBED])),
    Scenario("s-embed-token-ids-oov", "sglang", "--is-embedding; an embedding, then an "
             "embedding of token ids past the 512-entry vocabulary ([5, 9000, 70000])",
             [*SG, "--is-embedding"],
             act=s_act(lambda n: [EMBED, ("/v1/embeddings", {"input": [5, 9000, 70000]}),
                                  EMBED])),
    Scenario("s-seq-cls-no-head", "sglang", "config.json architectures "
             "LlamaForSequenceClassification (2 labels) over the causal-LM weights (no score "
             "head); then /classify and a generation", SG, model=seq_cls_no_head,
             act=s_act(lambda n: [("/classify", {"text": TEXT}),
                                  ("/generate", {"text": "fox", "sampling_params":
                                                 {"max_new_tokens": 8}})])),
    Scenario("s-labels-disagree", "sglang", "config.json LlamaForSequenceClassification with "
             "num_labels 3 but an id2label of 2 labels, over weights with a 3-row score head; "
             "then /classify", SG, model=labels_disagree,
             act=s_act(lambda n: [("/classify", {"text": TEXT})])),
    Scenario("s-override-arch-classify", "sglang", "--json-model-override-args turning the "
             "generative checkpoint into LlamaForSequenceClassification with num_labels 1 at "
             "launch; then /classify and /v1/score",
             [*SG, "--json-model-override-args",
              '{"architectures": ["LlamaForSequenceClassification"], "num_labels": 1}'],
             act=s_act(lambda n: [("/classify", {"text": TEXT}),
                                  ("/v1/score", {"query": "what jumps?",
                                                 "items": ["the fox", "a dog"]})])),
]
