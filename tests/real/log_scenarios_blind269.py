"""The two-hundred-and-sixty-ninth batch's scenarios (tests/fixtures/corpus/fresh268): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind269.py OUT

Themes: the tokenizer a launch names, a new round - what a person meets pointing the engine at
a tokenizer other than the model's own, or at tokenizer settings copied from another model's
launch; where a server comes up, two plain completions and a chat completion. Tokenizer folders
are made under /tmp/blind269/tok when this table is loaded, from the tiny model's own files
(never the cached model). vLLM (VLLM_BASE's settings): --tokenizer-mode custom with no custom
tokenizer registered; --tokenizer-mode deepseek_v32 (another family's mode) on the Llama's
Hugging Face folder; --tokenizer at another family's tokenizer with a larger vocabulary (the same
byte-level BPE with every ordinary id moved up by 1000, ids to 1352 against the embedding's 512
rows); --tokenizer at a tokenizer-only folder holding tokenizer.json but missing
tokenizer_config.json. SGLang (--device cpu --model-impl transformers): --tokenizer-mode slow on
a folder with only a fast tokenizer.json; --tokenizer-path at the same larger-vocabulary
tokenizer; --tokenizer-path at a BERT-family WordPiece tokenizer folder (lower-casing,
[CLS]/[SEP] around each text, 190 ids); --skip-tokenizer-init together with
--tokenizer-worker-num 2, then input ids, text completions and a chat.

Earlier batches already had (not repeated): --tokenizer-mode slow on vLLM (73rd; SGLang's was
dropped then, unrecorded), a --tokenizer-mode that is not a mode on SGLang (83rd),
--tokenizer-mode mistral on vLLM (fresh64, 154th), --tokenizer-worker-num 0 (73rd) and 2 serving
(154th), 2 with a worker killed (183rd) and 2 with --enable-metrics (208th),
--skip-tokenizer-init with text, token-id, chat, stop-string and out-of-vocabulary requests
(78th, 154th, 189th, 202nd, 240th), --tokenizer at an empty folder (67th), at tokenizer.json
(159th) and SGLang's --tokenizer-path at it (72nd), at a folder missing (206th), a tokenizer
folder without tokenizer.json (154th, both engines), SGLang's --tokenizer-path at a folder
without tokenizer_config.json (154th), a vocabulary cut to 128 ids (154th, both engines),
added tokens past the embedding (92nd), --tokenizer a hub id offline (75th, 114th, 147th),
--tokenizer-revision for a local folder (154th, dropped: it never showed), tokenizer
configuration files of many kinds in the model's own folder (69th, 70th, 79th, 238th).

Recorded 2026-12-07 in one invocation (raw1: all eight scenarios in table order), taking turns
with other helpers' recorders for the machine's lock; each scenario once. About 6 minutes of
recording (vLLM 11+46+52+52 s, SGLang 58+41+54+69 s). 8 kept (final files it101-it108), none
dropped; three faults never showed (vLLM's json-only tokenizer folder, SGLang's slow mode and the
WordPiece tokenizer served as if nothing were wrong) and are kept as fair ready logs of the
ground.

What the engines did. vLLM: --tokenizer-mode custom passes the argument parser (the mode is
any string) and ends the launch in the API server's renderer with `ValueError: No tokenizer
registered for tokenizer_mode='custom'.` (crashed, launch); --tokenizer-mode deepseek_v32 on the
Llama is taken silently and serves - both completions and even the chat completion 200 (the
DeepSeek mode builds the chat prompt itself where other runs here get 400 for want of a chat
template); a --tokenizer folder without config.json logs `ERROR ... Error parsing config for
<folder>: Unrecognized model ... model_type`, twice in the API server and twice in the engine
core, and goes on: the json-only folder serves (two 200s, chat 400), the larger-vocabulary
tokenizer comes up and dies on the first completion in inductor's CPU kernel (`index out of
bounds: 0 <= tmp3 < 512L`, the worker exit -6, `EngineCore encountered a fatal error`, three 500s,
the API server shut down: crashed, serving). SGLang: --tokenizer-mode slow is taken silently and
serves (two 200s, chat 400); the larger-vocabulary --tokenizer-path dies in its own warmup
request, before the ready line (`Scheduler hit an exception`, `IndexError: index out of range in
self` from the embedding, `SIGQUIT received`: crashed, warmup); the WordPiece tokenizer serves
(ids all under 512; [CLS] counted as a cached token); --skip-tokenizer-init with two tokenizer
workers comes up twice over (each worker warms up and prints the ready line), serves input ids,
refuses text completions with 400 and the chat with a 500 and a traceback (`'NoneType' object has
no attribute 'apply_chat_template'`), and serves on. Crashed: it101 (launch), it103 (serving),
it106 (warmup); ready in serving: it102, it104, it105, it107, it108; none hung.
"""

from __future__ import annotations

import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind269")
TOK = ROOT / "tok"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
OFFSET = 1000        # the other family's ids start past the tiny model's 512-row embedding


def _offset_ids() -> None:
    """The tiny model's byte-level BPE with every ordinary token's id moved up by OFFSET (the
    three special tokens keep 0-2): a tokenizer of a family with a larger vocabulary (1353 ids)
    whose ids for the same text lie past the model's embedding."""
    d = TOK / "offset-ids"
    d.mkdir(parents=True, exist_ok=True)
    t = json.loads((LLAMA.dir / "tokenizer.json").read_text())
    vocab = t["model"]["vocab"]
    t["model"]["vocab"] = {k: (v if v < 3 else v + OFFSET) for k, v in vocab.items()}
    (d / "tokenizer.json").write_text(json.dumps(t, ensure_ascii=False))
    (d / "tokenizer_config.json").write_text((LLAMA.dir / "tokenizer_config.json").read_text())


def _json_only() -> None:
    """A tokenizer-only folder holding tokenizer.json but not tokenizer_config.json."""
    d = TOK / "json-only"
    d.mkdir(parents=True, exist_ok=True)
    (d / "tokenizer.json").write_text((LLAMA.dir / "tokenizer.json").read_text())


def _wordpiece() -> None:
    """A BERT-family WordPiece tokenizer (lower-casing, [CLS]/[SEP] around each text, 190 ids),
    as a person points at the encoder's tokenizer folder of a RAG stack by mistake."""
    d = TOK / "bert-wordpiece"
    d.mkdir(parents=True, exist_ok=True)
    vocab: dict[str, int] = {"[PAD]": 0}
    for i in range(1, 100):
        vocab[f"[unused{i}]"] = i
    vocab.update({"[UNK]": 100, "[CLS]": 101, "[SEP]": 102, "[MASK]": 103})
    words = ["the", "quick", "brown", "fox", "hello", "world", "a", "is", "of", "and"]
    chars = list("abcdefghijklmnopqrstuvwxyz0123456789.,!?'")
    for w in [*words, *chars, *[f"##{c}" for c in chars if c.isalnum()]]:
        vocab.setdefault(w, len(vocab))
    special = [("[PAD]", 0), ("[UNK]", 100), ("[CLS]", 101), ("[SEP]", 102), ("[MASK]", 103)]
    t = {
        "version": "1.0", "truncation": None, "padding": None,
        "added_tokens": [{"id": i, "content": c, "single_word": False, "lstrip": False,
                          "rstrip": False, "normalized": False, "special": True}
                         for c, i in special],
        "normalizer": {"type": "BertNormalizer", "clean_text": True,
                       "handle_chinese_chars": True, "strip_accents": None,
                       "lowercase": True},
        "pre_tokenizer": {"type": "BertPreTokenizer"},
        "post_processor": {
            "type": "TemplateProcessing",
            "single": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                       {"Sequence": {"id": "A", "type_id": 0}},
                       {"SpecialToken": {"id": "[SEP]", "type_id": 0}}],
            "pair": [{"SpecialToken": {"id": "[CLS]", "type_id": 0}},
                     {"Sequence": {"id": "A", "type_id": 0}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 0}},
                     {"Sequence": {"id": "B", "type_id": 1}},
                     {"SpecialToken": {"id": "[SEP]", "type_id": 1}}],
            "special_tokens": {
                "[CLS]": {"id": "[CLS]", "ids": [101], "tokens": ["[CLS]"]},
                "[SEP]": {"id": "[SEP]", "ids": [102], "tokens": ["[SEP]"]}}},
        "decoder": {"type": "WordPiece", "prefix": "##", "cleanup": True},
        "model": {"type": "WordPiece", "unk_token": "[UNK]", "continuing_subword_prefix": "##",
                  "max_input_chars_per_word": 100, "vocab": vocab},
    }
    (d / "tokenizer.json").write_text(json.dumps(t))
    (d / "tokenizer_config.json").write_text(json.dumps({
        "tokenizer_class": "BertTokenizer", "do_lower_case": True, "cls_token": "[CLS]",
        "sep_token": "[SEP]", "pad_token": "[PAD]", "unk_token": "[UNK]",
        "mask_token": "[MASK]", "model_max_length": 512}))
    (d / "vocab.txt").write_text("".join(f"{k}\n" for k in sorted(vocab, key=vocab.get)))


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    _offset_ids()
    _json_only()
    _wordpiece()


_setup()


def _chat(ctx: Ctx) -> None:
    ctx.post("/v1/chat/completions", {"model": ctx.model_name(), "max_tokens": 16,
                                      "messages": [{"role": "user", "content": "Hello there"}]})


def v_requests(ctx: Ctx) -> None:
    """Let a launch end by itself; if it serves, two completions, a chat completion, a pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.output():
        ctx.complete(2)
        _chat(ctx)
        time.sleep(12)
    else:
        linger(ctx, 15)


def s_requests(ctx: Ctx) -> None:
    """The SGLang form: wait for its ready line, two completions, a chat completion, a pause."""
    ctx.wait_any([SG_READY], 240)
    if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in ctx.output():
        ctx.complete(2)
        _chat(ctx)
        time.sleep(12)
    else:
        linger(ctx, 15)


def s_skip_init_workers(ctx: Ctx) -> None:
    """Up with --skip-tokenizer-init and two tokenizer workers: a /generate of input ids, two
    text completions, a chat completion, the ids again."""
    ctx.wait_any([SG_READY], 240)
    if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in ctx.output():
        ids = {"input_ids": [0, 5, 17, 40], "sampling_params": {"max_new_tokens": 8}}
        ctx.post("/generate", ids)
        ctx.complete(2)
        _chat(ctx)
        ctx.post("/generate", ids)
        time.sleep(12)
    else:
        linger(ctx, 15)


def v(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=v_requests)


def s(name: str, what: str, args: list[str], act=s_requests) -> Scenario:  # noqa: ANN001
    return Scenario(name, "sglang", what, [*SG, *args], act=act)


SCENARIOS = [
    v("v-tokenizer-mode-custom", "--tokenizer-mode custom with no custom tokenizer registered "
      "(the mode a README for a plug-in tokenizer names)", ["--tokenizer-mode", "custom"]),
    v("v-tokenizer-mode-deepseek-v32", "--tokenizer-mode deepseek_v32 (copied from a DeepSeek "
      "launch) on the tiny Llama's Hugging Face folder", ["--tokenizer-mode", "deepseek_v32"]),
    v("v-tokenizer-larger-vocab-ids", f"--tokenizer a folder of another family's tokenizer with "
      f"a larger vocabulary: the same BPE with ordinary ids moved up by {OFFSET} (ids up to "
      f"1352; the model's embedding has 512 rows)", ["--tokenizer", str(TOK / "offset-ids")]),
    v("v-tokenizer-dir-json-only", "--tokenizer a tokenizer-only folder holding tokenizer.json "
      "but missing tokenizer_config.json", ["--tokenizer", str(TOK / "json-only")]),
    s("s-tokenizer-mode-slow", "--tokenizer-mode slow on a model with only a fast "
      "tokenizer.json (no tokenizer.model)", ["--tokenizer-mode", "slow"]),
    s("s-tokenizer-path-larger-vocab-ids", f"--tokenizer-path a folder of another family's "
      f"tokenizer with a larger vocabulary: the same BPE with ordinary ids moved up by {OFFSET} "
      f"(ids up to 1352; the model's embedding has 512 rows)",
      ["--tokenizer-path", str(TOK / "offset-ids")]),
    s("s-tokenizer-path-bert-wordpiece", "--tokenizer-path a BERT-family WordPiece tokenizer "
      "folder (an encoder's, 190 ids, [CLS]/[SEP] added to each text) for the Llama",
      ["--tokenizer-path", str(TOK / "bert-wordpiece")]),
    s("s-skip-tokenizer-init-workers-2", "--skip-tokenizer-init with --tokenizer-worker-num 2 "
      "(two tokenizer workers for a server told to load no tokenizer)",
      ["--skip-tokenizer-init", "--tokenizer-worker-num", "2"], act=s_skip_init_workers),
]
