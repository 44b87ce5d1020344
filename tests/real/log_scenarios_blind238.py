"""The two-hundred-and-thirty-eighth batch's scenarios (tests/fixtures/corpus/fresh237): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind238.py OUT

Themes: tokenizer configuration files as conversion, merge and fine-tuning tools write them,
each served with a completion, a chat completion and another completion. vLLM:
tokenizer_config.json bos_token null with add_bos_token true; tokenizer_class Qwen2Tokenizer
(another family's class) over the Llama byte-level BPE; tokenizer.json's normalizer of the
SentencePiece family (Llama-2's Prepend and Replace with U+2581) over a byte-level BPE;
added_tokens_decoder naming <|im_end|> at id 3, an ordinary token in tokenizer.json. SGLang:
use_fast false with tokenizer_class LlamaTokenizer (the slow class) and no tokenizer.model;
chat_template a list holding only a template named tool_use (no default);
clean_up_tokenization_spaces true and legacy false; tokenizer.json's pre_tokenizer a
SentencePiece-family Metaspace in place of ByteLevel. The tiny model's own files already have
model_max_length 1e30 and merges in the list-of-pairs form, so neither was a fault to induce.

Earlier batches already had (not repeated): tokenizer_config model_max_length "2k" (74th) and
1024 with longer prompts (115th), tokenizer_class naming a class transformers lacks (69th) and
custom tokenizer classes by auto_map (122nd), a pre_tokenizer type the tokenizers library lacks
(79th), added_tokens_decoder keyed by names, not ids (82nd), added tokens past the embedding
(92nd), a chat_template list of tool_use and rag with none named default on vLLM (92nd), special
tokens the vocabulary lacks (70th), special_tokens_map.json cut or its eos a number (75th, 81st),
eos / pad ids past the embedding or given as text (222nd), a tokenizer.json of a newer format
version (112th), tokenizer files given apart with --tokenizer / --tokenizer-path (154th), chat
templates that raise or need kwargs (175th), tokenizer_config.json in Latin-1 (160th).

Recorded 2026-12-07 in one invocation (raw1), waiting turns with other helpers' recorders for
the shared lock; each scenario once. About 8.5 minutes of recording (vLLM 83+79+66+60 s, SGLang
67+66+51+50 s). 8 kept (final files ho101-ho108), none dropped; every run was ended by the
recorder after its requests (exit -9).

What the engines did. Every run served: all eight logs are ready in serving, the faults showing
at most as side lines. vLLM said nothing of any of its four faults: each log has 'Application
startup complete', two completions 200, the chat 400 (the tiny model has no chat template) and
one stats line; the SentencePiece normalizer shows only as 'Avg prompt throughput: 4.2 tokens/s'
where the others show 0.9 (longer prompts). SGLang repaired the slow-class tokenizer at INFO
level ('Fixing v5 tokenizer component mismatch ...: pre_tokenizer Metaspace -> ByteLevel, decoder
Sequence -> ByteLevel', 'Restoring add_bos_token=True ... (was False after v5 loading)', four
times each) and served; took the lone tool_use template ('Multiple HuggingFace chat templates
available: ['tool_use']', 'Using first available template: 'tool_use'') and answered the chat 200;
said nothing of the flipped flags; and said nothing of the Metaspace pre-tokenizer (no repair line
for tokenizer.json's own), the prompts only counting more tokens ('#new-token: 6' and 10 against
3 and 6). Crashed: none; hung: none; ready in serving: ho101-ho108.
"""

from __future__ import annotations

import json
import sys
import time
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, copy_model, linger  # noqa: E402

ROOT = Path("/tmp/blind238")
ROOT.mkdir(parents=True, exist_ok=True)
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


# --- model copies ------------------------------------------------------------------------------

def edited(name: str, tok_config: dict | None = None,
           tok_json: Callable[[dict], None] | None = None) -> Callable[[Path], Path]:
    """A copy of the tiny model whose tokenizer_config.json gets ``tok_config`` merged in and
    whose tokenizer.json is changed by ``tok_json``, as a converter or trainer wrote them."""
    def make(work: Path) -> Path:
        d = copy_model(work, name)
        if tok_config is not None:
            f = d / "tokenizer_config.json"
            f.write_text(json.dumps({**json.loads(f.read_text()), **tok_config}, indent=2))
        if tok_json is not None:
            f = d / "tokenizer.json"
            t = json.loads(f.read_text())
            tok_json(t)
            f.write_text(json.dumps(t, indent=2, ensure_ascii=False))
        return d
    return make


def spm_normalizer(t: dict) -> None:
    """Llama-2's SentencePiece normalizer (prepend and replace spaces by U+2581) over this
    byte-level BPE, as a merge of two families' tokenizer.json leaves it."""
    t["normalizer"] = {"type": "Sequence", "normalizers": [
        {"type": "Prepend", "prepend": "\u2581"},
        {"type": "Replace", "pattern": {"String": " "}, "content": "\u2581"}]}


def metaspace_pretokenizer(t: dict) -> None:
    """A SentencePiece-family Metaspace pre-tokenizer in place of the byte-level one."""
    t["pre_tokenizer"] = {"type": "Metaspace", "replacement": "\u2581",
                          "prepend_scheme": "always", "split": True}


def _tok(content: str) -> dict:
    return {"content": content, "lstrip": False, "normalized": False, "rstrip": False,
            "single_word": False, "special": True}


# tokenizer.json has <s>, </s>, <unk> at 0-2 and id 3 an ordinary byte-level token.
ADDED_SHIFTED = {"added_tokens_decoder": {"0": _tok("<s>"), "1": _tok("</s>"),
                                          "2": _tok("<unk>"), "3": _tok("<|im_end|>")}}
TOOL_USE_ONLY = {"chat_template": [{
    "name": "tool_use",
    "template": "{% if tools %}Tools: {{ tools | tojson }}\n{% endif %}{% for m in messages %}"
                "{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
                "{% if add_generation_prompt %}assistant: {% endif %}"}]}


# --- steps -------------------------------------------------------------------------------------

def chat_and_complete(ready: str) -> Callable[[Ctx], None]:
    """Once up: a completion, a chat completion, another completion; then 10 s more."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(ready, 240):
            linger(ctx, 10)
            return
        name = ctx.model_name()
        reqs = [("/v1/completions", {"prompt": "The quick brown fox", "max_tokens": 12}),
                ("/v1/chat/completions", {"messages": [{"role": "user", "content": "Hello there"}],
                                          "max_tokens": 12}),
                ("/v1/completions", {"prompt": "jumps over the lazy dog", "max_tokens": 12})]
        for path, body in reqs:
            if ctx.proc is not None and ctx.proc.poll() is not None:
                break
            ctx.post(path, {"model": name, **body}, timeout=60)
            time.sleep(1)
        linger(ctx, 10)
    return act


def v(name: str, what: str, model: Callable[[Path], Path]) -> Scenario:
    return Scenario(name, "vllm", what + "; a completion, a chat, a completion", VLLM_BASE,
                    model=model, act=chat_and_complete(READY_LINE))


def s(name: str, what: str, model: Callable[[Path], Path]) -> Scenario:
    return Scenario(name, "sglang", what + "; a completion, a chat, a completion", SG,
                    model=model, act=chat_and_complete(SG_READY))


SCENARIOS = [
    v("v-bos-null-add-bos", "tokenizer_config.json bos_token null with add_bos_token true",
      edited("bos-null-v", {"bos_token": None, "add_bos_token": True})),
    v("v-tokenizer-class-qwen2", "tokenizer_config.json tokenizer_class Qwen2Tokenizer (another "
      "family's class, as a merge tool leaves it) over the Llama byte-level BPE",
      edited("class-qwen2-v", {"tokenizer_class": "Qwen2Tokenizer"})),
    v("v-normalizer-spm-family", "tokenizer.json normalizer of the SentencePiece family "
      "(Prepend and Replace with U+2581, Llama-2's) over a byte-level BPE",
      edited("normalizer-spm-v", tok_json=spm_normalizer)),
    v("v-added-tokens-decoder-disagree", "tokenizer_config.json added_tokens_decoder naming "
      "<|im_end|> at id 3, an ordinary token in tokenizer.json",
      edited("added-disagree-v", ADDED_SHIFTED)),
    s("s-use-fast-false-slow-class", "tokenizer_config.json use_fast false and tokenizer_class "
      "LlamaTokenizer (the slow class) with no tokenizer.model beside it",
      edited("use-fast-false-s", {"tokenizer_class": "LlamaTokenizer", "use_fast": False})),
    s("s-chat-template-tool-use-only", "tokenizer_config.json chat_template a list holding only "
      "a template named tool_use (no default)", edited("tool-use-only-s", TOOL_USE_ONLY)),
    s("s-cleanup-legacy-flipped", "tokenizer_config.json clean_up_tokenization_spaces true and "
      "legacy false (flipped from a converter's defaults)",
      edited("cleanup-legacy-s", {"clean_up_tokenization_spaces": True, "legacy": False})),
    s("s-pretokenizer-metaspace", "tokenizer.json pre_tokenizer Metaspace (SentencePiece "
      "family) in place of ByteLevel, the byte-level vocabulary kept",
      edited("pretok-metaspace-s", tok_json=metaspace_pretokenizer)),
]
