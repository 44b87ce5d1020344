"""The two-hundred-and-twenty-second batch's scenarios (tests/fixtures/corpus/fresh221): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind222.py OUT

Themes: a fine-tune's special tokens as training frameworks leave them - copies of the tiny
Llama (512 embedding rows, a tokenizer of 353 tokens) whose eos / pad ids disagree with the
vocabulary or are of the wrong type: generation_config.json's eos list [1, 600] with one id past
the embedding, met by a request with min_tokens (vLLM) / min_new_tokens (SGLang); config.json's
pad_token_id 512 with tokenizer_config.json's pad_token "<pad>" (a [PAD] appended to the
vocabulary without resizing the embedding); generation_config.json's eos_token_id given as the
token's text "</s>" instead of its id, then a request with min_tokens / min_new_tokens.

Earlier batches already had (not repeated): config.json eos_token_id "</s>", generation_config
eos_token_id [1, 70000] with plain requests, tokenizer_config eos/pad tokens the vocabulary
lacks, special_tokens_map.json cut or its eos a number, added tokens past the embedding in
tokenizer.json, added_tokens_decoder keys that are not ids, stop_token_ids past the vocabulary
in a request with min_tokens, padding_side bad, a chat template calling an unknown filter.

SGLang runs with --device cpu --model-impl transformers, with which it serves here; vLLM with
VLLM_BASE's settings. Broken model copies go to the recorder's work folder under OUT.

Recorded 2026-12-07 in one invocation (raw1: eight scenarios, vLLM and SGLang alternating),
waiting turns with two other helpers' recorders; each scenario once. About 9.5 minutes of
recording (571 s: vLLM 48+55+55+237 s, SGLang 57+22+50+47 s). 6 kept (final files
gy101-gy106). Dropped: v-chat-template-oov-tokens and s-chat-template-oov-tokens (a ChatML
chat_template in tokenizer_config.json emitting <|im_start|> / <|im_end|>, which the tokenizer
lacks, then chat requests with skip_special_tokens false and stop "<|im_end|>"): both engines
served every request 200 OK without a word of it (the byte-level tokenizer spells the markers
out in ordinary tokens) - the fault never shows; both removed from the table. Kept though its log reads as
fresh144/dx101's: s-genconf-eos-list-bad-min-new-tokens (the id comes from the model's
generation_config, not the request; SGLang's words are the same).

What the engines did: no fault here stops vLLM's launch. Its only word at load is transformers'
warning for the pad id (`pad_token_id must be None or an integer within the vocabulary (between
0 and 511), got 512`), and it serves that copy (its own Llama has no padding_idx). The eos list
with id 600 passes vLLM's API server (unlike the same id in a request's stop_token_ids, refused
400 in fresh144/dx102) and kills the worker on the min_tokens request: `IndexError: index 600 is
out of bounds for dimension 1 with size 512` in the min-tokens logits processor, EngineDeadError,
500, shutdown. The eos text "</s>" kills the engine core's input thread on the first completion
(`msgspec.ValidationError: Expected int, got str - at $[3].stop_token_ids[0]`) and the server
then answers nothing, with no further line: the log ends on that traceback. SGLang (transformers
backend) refuses the pad id while building the model in weight loading (`AssertionError:
Padding_idx must be within num_embeddings`, from torch's nn.Embedding under transformers'
LlamaModel); it serves the two eos faults until a min_new_tokens request, where its
min-new-tokens penalizer kills the scheduler (`RuntimeError: index 600 is out of bounds for
dimension 1 with size 513`, the same traceback as fresh144/dx101's request-borne id; `TypeError:
'str' object cannot be interpreted as an integer` for the text, which it had hinted at startup
in XGrammar's `Cannot convert from type Array[index 1: ffi.SmallStr] to Array<int>`).
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, linger  # noqa: E402

ROOT = Path("/tmp/blind222")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


# --- model copies ------------------------------------------------------------------------------

def edited(name: str, **files: dict) -> Callable[[Path], Path]:
    """A copy of the tiny model whose JSON files get the changes given (file stem: changes)."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        for stem, changes in files.items():
            f = d / f"{stem}.json"
            f.write_text(json.dumps({**json.loads(f.read_text()), **changes}, indent=2))
        return d
    return make


# --- steps -------------------------------------------------------------------------------------

Req = tuple[str, dict]


def serving(ready: str, startup: float, requests: Callable[[str], list[Req]]) -> Callable:
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(ready, startup):
            linger(ctx, 5)
            return
        name = ctx.model_name()
        for path, body in requests(name):
            if ctx.proc is not None and ctx.proc.poll() is not None:
                break
            ctx.post(path, {"model": name, **body}, timeout=60)
            time.sleep(1)
        linger(ctx, 10)
    return act


def comp(**kw: object) -> Req:
    return "/v1/completions", {"prompt": "the fox", "max_tokens": 8, **kw}


def gen(**sp: object) -> Req:
    return "/generate", {"text": "the fox", "sampling_params": {"max_new_tokens": 8, **sp}}


def v(name: str, what: str, model: Callable[[Path], Path],
      requests: Callable[[str], list[Req]]) -> Scenario:
    return Scenario(name, "vllm", what, VLLM_BASE, model=model,
                    act=serving(READY_LINE, 200, requests))


def s(name: str, what: str, model: Callable[[Path], Path],
      requests: Callable[[str], list[Req]]) -> Scenario:
    return Scenario(name, "sglang", what, SG, model=model,
                    act=serving(SG_READY, 200, requests))


EOS_LIST_BAD = {"generation_config": {"eos_token_id": [1, 600]}}
PAD_PAST = {"config": {"pad_token_id": 512}, "tokenizer_config": {"pad_token": "<pad>"}}
EOS_TEXT = {"generation_config": {"eos_token_id": "</s>"}}

SCENARIOS = [
    v("v-genconf-eos-list-bad-min-tokens", "generation_config.json eos_token_id [1, 600] (600 "
      "past the 512-row embedding); two completions, then one with min_tokens 4, then one more",
      edited("eos-list-bad-v", **EOS_LIST_BAD),
      lambda n: [comp(), comp(), comp(min_tokens=4), comp()]),
    s("s-genconf-eos-list-bad-min-new-tokens", "generation_config.json eos_token_id [1, 600] "
      "(600 past the 512-row embedding); two /generate, then one with min_new_tokens 4, then one "
      "more", edited("eos-list-bad-s", **EOS_LIST_BAD),
      lambda n: [gen(), gen(), gen(min_new_tokens=4), gen()]),
    v("v-config-pad-id-past-vocab", "config.json pad_token_id 512 and tokenizer_config.json "
      "pad_token \"<pad>\" (a pad added one past the 512-row embedding without resizing it); "
      "completions, one with ignore_eos", edited("pad-past-v", **PAD_PAST),
      lambda n: [comp(), comp(ignore_eos=True, max_tokens=16), comp()]),
    s("s-config-pad-id-past-vocab", "config.json pad_token_id 512 and tokenizer_config.json "
      "pad_token \"<pad>\" (a pad added one past the 512-row embedding without resizing it); "
      "completions, one with ignore_eos", edited("pad-past-s", **PAD_PAST),
      lambda n: [comp(), comp(ignore_eos=True, max_tokens=16), comp()]),
    v("v-genconf-eos-text", "generation_config.json eos_token_id \"</s>\" (the token's text, "
      "not its id); completions, one with min_tokens 4", edited("eos-text-v", **EOS_TEXT),
      lambda n: [comp(), comp(min_tokens=4), comp()]),
    s("s-genconf-eos-text", "generation_config.json eos_token_id \"</s>\" (the token's text, "
      "not its id); /generate, one with min_new_tokens 4", edited("eos-text-s", **EOS_TEXT),
      lambda n: [gen(), gen(min_new_tokens=4), gen()]),
]
