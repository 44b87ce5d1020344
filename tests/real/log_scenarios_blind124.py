"""The hundred-and-twenty-fourth batch's scenarios (tests/fixtures/corpus/fresh123): faults
chosen, recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind124.py OUT

Themes: speculative decoding set up wrong - what a person meets turning on a draft model or
n-gram lookup. vLLM's --speculative-config: a draft model whose vocabulary is larger than the
target's (a copy of the tiny model with its embedding and head resized to 1024 rows), a draft of
another hidden and head size (a copy of the tiny llama-hd16, head_dim 16), a draft checkpoint
whose last shard was cut short (a partial download), the tiny Llama given as a Medusa head,
num_speculative_tokens 0, 300 (more than the whole --max-model-len 256), a misspelt key
(`prompt_lookup_maximum`), and a speculative max_model_len above the draft's. SGLang: n-gram
speculation on the CPU device with --model-impl transformers (meant to serve greedy and sampled
requests), EAGLE given --speculative-eagle-topk without --speculative-num-steps, STANDALONE with
--speculative-use-rejection-sampling, STANDALONE whose draft has a shard cut short, STANDALONE
with --speculative-draft-sink-size and no window size.

Earlier batches already had (not repeated): a draft path that does not exist (both engines),
EAGLE without a draft, --speculative-config not JSON / a list / ngram without its token count /
ngram lookup min above max, the suffix method, MTP on Llama, eagle with the plain tiny model,
a draft tensor-parallel size of 2, the tiny model as its own draft (vLLM serves; SGLang
STANDALONE dies in the KV pool's Triton kernel), NGRAM on SGLang without --model-impl
transformers, an unknown --speculative-algorithm, n-gram serving under a burst.

Draft copies are written under /tmp/blind124/drafts by each scenario's `before` step (never the
cached models). SGLang runs with --device cpu --model-impl transformers (its own Llama module
imports vllm); vLLM with VLLM_BASE's settings. Requests, where a run serves: two greedy and two
sampled (temperature 0.8, top_p 0.95) completions on repetitive prompts.

Recorded 2026-12-06 in five invocations sharing the recorder's lock with three other helpers
(about 4m50s of my own recording: vLLM 25+7+7+7+8+65+26+36 s, SGLang 23+11+11+27+24+11 s), each
scenario once; 13 kept (dc101-dc113). Dropped: s-spec-eagle3-plain-draft (recorded, 27 s: SGLang
loads the plain Llama draft for EAGLE3 without a word and dies in the KV pool's Triton kernel,
`RuntimeError: 0 active drivers ([]). There should only be one.`, as fresh93/by116's STANDALONE
run did - the fault never shows), and s-spec-ngram-corpus-missing (NGRAM with
--speculative-ngram-external-corpus-path naming a missing file; dropped unrecorded, since the
NGRAM worker dies importing sgl_kernel before it would read the corpus). Both removed from the
table. What the engines did: vLLM refuses at configuration (pydantic's ValidationError for
SpeculativeConfig, before any engine core) num_speculative_tokens 0, an unknown key, a
speculative max_model_len above the draft's and a draft of another vocabulary size (`Target and
draft model should have the same vocabulary size`). It accepts num_speculative_tokens 300 with
--max-model-len 256 and a head_dim-16 draft, serves (`Application startup complete`), and the
first completion kills the engine: a bare AssertionError in the rejection sampler (300 drafted
tokens) and `Unsupported CPU attention configuration: head_dim=16` (the draft's layers). Medusa
with a plain Llama checkpoint dies building the drafter (`Duplicate layer name:
model.layers.0.self_attn.attn`); a draft with a cut shard dies in the draft's load
(SafetensorError). SGLang's NGRAM with --model-impl transformers gets past loading and dies
making the n-gram worker, which imports sgl_kernel (only a CUDA sm100 build is installed:
`Could not load any common_ops library`, `libcuda.so.1`); EAGLE-family flag combinations are
refused in server_args' speculative hook (a bare AssertionError for topk without num-steps,
NotImplementedError for rejection sampling with STANDALONE, ValueError for a sink size without a
window); a STANDALONE draft with a cut shard dies in the draft worker's load. No speculative run
served on either engine here.
"""

from __future__ import annotations

import json
import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
)
from setup_engines import LLAMA, LLAMA_HD16, VLLM  # noqa: E402

ROOT = Path("/tmp/blind124")
DRAFTS = ROOT / "drafts"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
V_READY = "Application startup complete"


# --- draft checkpoints ------------------------------------------------------------------------

def draft_copy(name: str, src: Path = LLAMA.dir) -> Path:
    d = DRAFTS / name
    if d.exists():
        shutil.rmtree(d)
    d.parent.mkdir(parents=True, exist_ok=True)
    shutil.copytree(src, d, ignore=shutil.ignore_patterns(".complete"))
    return d


RESIZE = """
import glob, json, sys, torch
from safetensors.torch import load_file, save_file
d, n = sys.argv[1], int(sys.argv[2])
for f in sorted(glob.glob(d + '/model-*.safetensors')):
    t = load_file(f)
    changed = False
    for k in list(t):
        if k.endswith('embed_tokens.weight') or k.endswith('lm_head.weight'):
            w = t[k]
            extra = torch.randn(n - w.shape[0], w.shape[1], dtype=w.dtype) * 0.02
            t[k] = torch.cat([w, extra]).contiguous()
            changed = True
    if changed:
        save_file(t, f, metadata={'format': 'pt'})
cfg = json.load(open(d + '/config.json'))
cfg['vocab_size'] = n
json.dump(cfg, open(d + '/config.json', 'w'), indent=2)
"""


def make_vocab_draft(ctx: Ctx) -> None:
    d = draft_copy("draft-vocab-1024")
    subprocess.run([str(VLLM.python), "-c", RESIZE, str(d), "1024"], check=True)


def make_hd16_draft(ctx: Ctx) -> None:
    draft_copy("draft-hd16", LLAMA_HD16.dir)


def make_truncated_draft(ctx: Ctx) -> None:
    d = draft_copy("draft-truncated")
    shard = sorted(d.glob("model-*.safetensors"))[-1]
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])


def make_truncated_draft_s(ctx: Ctx) -> None:
    d = draft_copy("draft-truncated-s")
    shard = sorted(d.glob("model-*.safetensors"))[-1]
    shard.write_bytes(shard.read_bytes()[: shard.stat().st_size // 2])


def make_plain_draft(name: str):
    def make(ctx: Ctx) -> None:
        draft_copy(name)
    return make


# --- acts -------------------------------------------------------------------------------------

def post(ctx: Ctx, path: str, body: dict, timeout: float = 90) -> int:
    return ctx.post(path, body, timeout=timeout)


def spec_requests(ctx: Ctx) -> None:
    """Two greedy and two sampled completions on prompts that repeat themselves (what n-gram
    lookup and a draft are meant to speed up)."""
    name = ctx.model_name()
    prompts = ["the fox jumps over the fox jumps over the fox jumps over the",
               "one two three one two three one two three one two"]
    for p in prompts:
        post(ctx, "/v1/completions", {"model": name, "prompt": p, "max_tokens": 24,
                                      "temperature": 0})
    for i, p in enumerate(prompts):
        post(ctx, "/v1/completions", {"model": name, "prompt": p, "max_tokens": 24,
                                      "temperature": 0.8, "top_p": 0.95, "seed": 7 + i})


def ready_or_end(ready: str, after_s: float = 12, timeout: float = 150):
    """Wait for the ready line or the end; if it serves, the spec requests and a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(ready, timeout) and ctx.proc is not None and ctx.proc.poll() is None:
            time.sleep(2)
            spec_requests(ctx)
            linger(ctx, after_s)
        else:
            linger(ctx, 20)
    return act


def spec(cfg: dict) -> list[str]:
    return [*VLLM_BASE, "--speculative-config", json.dumps(cfg)]


def v(name, what, cfg, before=None, wait_s=90.0) -> Scenario:
    return Scenario(name, "vllm", what, spec(cfg), before=before, act=ready_or_end(V_READY),
                    wait_s=wait_s)


def s(name, what, args, before=None, wait_s=90.0) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], before=before,
                    act=ready_or_end(SG_READY), wait_s=wait_s)


SCENARIOS = [
    # --- vLLM ------------------------------------------------------------------------------------
    v("v-spec-draft-vocab-1024", "--speculative-config with a draft model whose vocabulary is "
      "1024 tokens (a copy of the tiny model with embedding and head resized, config vocab_size "
      "1024) for a target of 512",
      {"model": str(DRAFTS / "draft-vocab-1024"), "num_speculative_tokens": 2},
      before=make_vocab_draft),
    v("v-spec-draft-hd16", "--speculative-config with a draft model of another hidden and head "
      "size (a copy of the tiny llama-hd16: hidden 64, head_dim 16) for the head_dim-64 target",
      {"model": str(DRAFTS / "draft-hd16"), "num_speculative_tokens": 3},
      before=make_hd16_draft),
    v("v-spec-draft-truncated", "--speculative-config with a draft model whose last weight "
      "shard was cut to half its size (a partial download of the draft)",
      {"model": str(DRAFTS / "draft-truncated"), "num_speculative_tokens": 2},
      before=make_truncated_draft),
    v("v-spec-medusa-plain", "--speculative-config method medusa with the plain tiny Llama "
      "given as the Medusa heads' checkpoint",
      {"method": "medusa", "model": str(DRAFTS / "draft-medusa"), "num_speculative_tokens": 2},
      before=make_plain_draft("draft-medusa")),
    v("v-spec-ngram-k0", "--speculative-config ngram with num_speculative_tokens 0 (meant to "
      "turn speculation off)",
      {"method": "ngram", "num_speculative_tokens": 0, "prompt_lookup_max": 4,
       "prompt_lookup_min": 2}),
    v("v-spec-key-misspelt", "--speculative-config ngram with a misspelt key "
      "(`prompt_lookup_maximum` for prompt_lookup_max)",
      {"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_maximum": 4}),
    v("v-spec-max-len-over", "--speculative-config with a draft model (a copy of the tiny model) "
      "and max_model_len 4096, above the draft's 2048 positions and the target's 256",
      {"model": str(DRAFTS / "draft-maxlen"), "num_speculative_tokens": 2,
       "max_model_len": 4096}, before=make_plain_draft("draft-maxlen")),
    v("v-spec-ngram-k-huge", "--speculative-config ngram with num_speculative_tokens 300, "
      "more than the whole --max-model-len of 256, then greedy and sampled completions",
      {"method": "ngram", "num_speculative_tokens": 300, "prompt_lookup_max": 4,
       "prompt_lookup_min": 2}),
    # --- SGLang ----------------------------------------------------------------------------------
    s("s-spec-ngram-serve", "--speculative-algorithm NGRAM with --model-impl transformers on the "
      "CPU device, then greedy and sampled completions on repetitive prompts",
      ["--speculative-algorithm", "NGRAM"]),
    s("s-spec-topk-no-steps", "--speculative-algorithm EAGLE with a draft (a copy of the tiny "
      "model) and --speculative-eagle-topk 4 but no --speculative-num-steps",
      ["--speculative-algorithm", "EAGLE", "--speculative-draft-model-path",
       str(DRAFTS / "draft-eagle-s"), "--speculative-eagle-topk", "4"],
      before=make_plain_draft("draft-eagle-s")),
    s("s-spec-standalone-rejection", "--speculative-algorithm STANDALONE (draft: a copy of the "
      "tiny model, 2 steps, topk 1, 3 draft tokens) with --speculative-use-rejection-sampling",
      ["--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path",
       str(DRAFTS / "draft-standalone-s"), "--speculative-num-steps", "2",
       "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3",
       "--speculative-use-rejection-sampling"], before=make_plain_draft("draft-standalone-s")),
    s("s-spec-standalone-draft-truncated", "--speculative-algorithm STANDALONE (2 steps, topk "
      "1, 3 draft tokens) whose draft (a copy of the tiny model) has its last weight shard cut "
      "to half its size (a partial download of the draft)",
      ["--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path",
       str(DRAFTS / "draft-truncated-s"), "--speculative-num-steps", "2",
       "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3"],
      before=make_truncated_draft_s),
    s("s-spec-sink-no-window", "--speculative-algorithm STANDALONE (draft: a copy of the tiny "
      "model, 2 steps, topk 1, 3 draft tokens) with --speculative-draft-sink-size 4 and no "
      "--speculative-draft-window-size",
      ["--speculative-algorithm", "STANDALONE", "--speculative-draft-model-path",
       str(DRAFTS / "draft-sink-s"), "--speculative-num-steps", "2",
       "--speculative-eagle-topk", "1", "--speculative-num-draft-tokens", "3",
       "--speculative-draft-sink-size", "4"], before=make_plain_draft("draft-sink-s")),
]
