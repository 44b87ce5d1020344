"""The hundred-and-fifteenth batch's scenarios (tests/fixtures/corpus/fresh114): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind115.py OUT

Themes: long contexts and the settings that size them - what a person changes to serve longer
prompts, and what the log shows when the sizes disagree. vLLM: a KV cache given fewer bytes
than one request of the model's length needs (--kv-cache-memory-bytes 1 MiB, --max-model-len
2048); VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 with a length of eight million tokens (more KV cache than
the host's share holds); --hf-overrides lowering max_position_embeddings under the
--max-model-len asked for; YaRN rope scaling given with --hf-overrides to stretch 2048 positions
to 8192 (then prompts of 6,000 and 7,800 tokens), and the same with factor 2 under a length of
8192 (past what the factor gives); max_position_embeddings raised to 4096 with --hf-overrides
and no rope scaling at all (then a 3,500-token prompt); chunked prefill with a 32-token step
budget and a 1,900-token prompt; --max-model-len -1 (fit the length to the KV cache) with a
512 KiB cache, then prompts under and over the fitted length. SGLang: --json-model-override-args
lowering max_position_embeddings under --context-length; SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN
with --context-length 8192 and prompts past the model's 2048 positions; YaRN rope scaling given
with --json-model-override-args for 8192; --max-total-tokens 1024 with a 1,800-token prompt;
--chunked-prefill-size 64 with a 1,900-token prompt; chunking turned off with
--max-prefill-tokens 256 and a 1,500-token prompt; --context-length 512 with
--allow-auto-truncate and a 1,500-token prompt; --context-length 65536 over a KV pool of 4096
tokens (--max-total-tokens) with a 6,000-token prompt.

Prompts are words of a fixed list (the tiny tokenizer makes about 3.26 tokens of each), sized in
tokens. Each run that comes up gets one short completion, its long prompts (16 new tokens each),
one more short completion and a pause. SGLang runs with --device cpu --model-impl transformers
(its own Llama module imports vllm); vLLM with VLLM_BASE's dtype and memory share, its own
--max-model-len.

Recorded 2026-12-06 in five invocations (vLLM 134 s, SGLang 119 s, vLLM 276 s, vLLM 68 s, SGLang
153 s: 750 s, about 12.5 minutes, waiting turns with three other helpers' recorders); each
scenario once, all 18 recorded kept. Planned and dropped before recording, for the time budget:
s-chunk-64-long (--chunked-prefill-size 64 with a 1,900-token prompt; v-chunk-32-long-prompt
covers the small step budget). v-disable-swa-len, v-tokconfig-maxlen-1024 and
s-tokconfig-maxlen-1024 were added after the first runs; v-yarn-len-past-factor's description was
made plainer after it was recorded (its log's source line has the first wording). What the
engines did: neither counts a YaRN factor into the length - vLLM's derived length is
max_position_embeddings as given (YaRN configs carry the stretched value), SGLang's too - so a
YaRN override without a larger max_position_embeddings is refused like any length over the
model's (`User-specified max_model_len (8192) is greater than the derived max_model_len`,
SGLang's `ValueError: Warning: User-specified context_length ...`); with max_position_embeddings
8192 in the override vLLM serves 7,800-token prompts. vLLM also caps the length at a
sliding_window when --disable-sliding-window is given. A KV cache too small for the length fails
in the engine core's _check_enough_kv_cache_memory (`... KV cache is needed, which is larger than
the available KV cache memory ... the estimated maximum model length is 896`), both with
--kv-cache-memory-bytes and with VLLM_ALLOW_LONG_MAX_MODEL_LEN and a length of eight million;
--max-model-len -1 instead fits the length (`Auto-fit max_model_len: reduced from 2048 to 384`)
and serves, refusing longer prompts with a bare 400. max_position_embeddings raised to 4096 with
no rope scaling serves a 3,500-token prompt without error (the rotary tables are built for 4096;
compare the 71st batch's v-long-len-rope, which overflowed them). Neither engine takes
tokenizer_config.json's model_max_length into the length: vLLM says nothing, SGLang's tokenizer
warns `Token indices sequence length is longer than the specified maximum sequence length for
this model (1794 > 1024)` and serves. SGLang with SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN serves
6,000-token prompts on the Transformers backend; a KV pool smaller than the context
(--max-total-tokens) is a warning at start (`KV pool holds 1024 tokens, fewer than
--context-length 2048`) and a 400 per long request (`Input length (1794 tokens) exceeds the
maximum allowed length (1018 tokens)`); --allow-auto-truncate cuts a prompt to the context
with info lines; chunking off with --max-prefill-tokens 256 still admits a 1,491-token prefill
whole. SGLang's default memory share here takes a KV pool of about 15-18 million tokens (15-18
GB of the host's 23).
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    Step,
    json_edit,
    linger,
)

V = VLLM_BASE[2:]          # dtype and memory share; each scenario gives its own length
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
WORDS = ("the quick brown fox jumps over a lazy dog while seven tired wizards quietly count "
         "their golden coins").split()
LONG = {"VLLM_ALLOW_LONG_MAX_MODEL_LEN": "1"}
SG_LONG = {"SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN": "1"}


def words(tokens: int) -> str:
    """A prompt of about ``tokens`` tokens (3.26 tokens a word with the tiny tokenizer)."""
    n = int(tokens / 3.26)
    return " ".join(WORDS[i % len(WORDS)] for i in range(n))


def long_traffic(sizes: list[int], sg: bool = False, pause: float = 10) -> Step:
    """Once up: a short completion, prompts of ``sizes`` tokens, a short one, a pause."""
    def act(ctx: Ctx) -> None:
        if not ctx.wait_for(SG_READY if sg else READY_LINE, 150):
            linger(ctx, 5)
            return
        ctx.complete(1)
        name = ctx.model_name()
        for n in sizes:
            ctx.post("/v1/completions", {"model": name, "prompt": words(n), "max_tokens": 16},
                     timeout=90)
        ctx.complete(1)
        linger(ctx, pause)
    return act


def rope(kind: str, factor: float, original: int | None = 2048, max_pos: int | None = None) -> str:
    p: dict[str, object] = {"rope_type": kind, "factor": factor, "rope_theta": 10000.0}
    if original is not None:
        p["original_max_position_embeddings"] = original
    out: dict[str, object] = {"rope_parameters": p}
    if max_pos is not None:      # YaRN configs carry the stretched length themselves
        out["max_position_embeddings"] = max_pos
    return json.dumps(out)


SCENARIOS = [
    # --- vLLM ---------------------------------------------------------------------------------
    Scenario("v-kv-short-of-len", "vllm", "--kv-cache-memory-bytes 1048576 (1 MiB, about 1,024 "
             "tokens of this model) with --max-model-len 2048",
             [*V, "--max-model-len", "2048", "--kv-cache-memory-bytes", "1048576"],
             act=long_traffic([1800])),
    Scenario("v-len-env-8m", "vllm", "VLLM_ALLOW_LONG_MAX_MODEL_LEN=1 with --max-model-len "
             "8000000 (eight million tokens over the model's 2048 positions)",
             [*V, "--max-model-len", "8000000"], env=LONG, act=long_traffic([3000])),
    Scenario("v-hf-maxpos-512-len-2048", "vllm", "--hf-overrides max_position_embeddings 512 "
             "with --max-model-len 2048",
             [*V, "--max-model-len", "2048", "--hf-overrides",
              '{"max_position_embeddings": 512}'], act=long_traffic([1800])),
    Scenario("v-yarn-stretch-8k", "vllm", "--hf-overrides YaRN rope scaling factor 4 from 2048 "
             "positions and max_position_embeddings 8192 with --max-model-len 8192, then "
             "prompts of 6,000 and 7,800 tokens",
             [*V, "--max-model-len", "8192", "--max-num-batched-tokens", "8192",
              "--hf-overrides", rope("yarn", 4.0, max_pos=8192)],
             act=long_traffic([6000, 7800])),
    Scenario("v-yarn-len-past-factor", "vllm", "--hf-overrides YaRN rope scaling factor 2 "
             "(4096 positions by the factor; max_position_embeddings left at 2048) with "
             "--max-model-len 8192",
             [*V, "--max-model-len", "8192", "--hf-overrides", rope("yarn", 2.0)],
             act=long_traffic([6000])),
    Scenario("v-maxpos-raised-4k", "vllm", "--hf-overrides max_position_embeddings 4096 (no "
             "rope scaling) with --max-model-len 4096, then a 3,500-token prompt",
             [*V, "--max-model-len", "4096", "--max-num-batched-tokens", "4096",
              "--hf-overrides", '{"max_position_embeddings": 4096}'],
             act=long_traffic([3500])),
    Scenario("v-chunk-32-long-prompt", "vllm", "chunked prefill with --max-num-batched-tokens "
             "32 (--max-num-seqs 8) and --max-model-len 2048, then a 1,900-token prompt",
             [*V, "--max-model-len", "2048", "--max-num-batched-tokens", "32",
              "--max-num-seqs", "8"], act=long_traffic([1900])),
    Scenario("v-len-auto-small-kv", "vllm", "--max-model-len -1 (fit the length to the KV "
             "cache) with --kv-cache-memory-bytes 524288 (512 KiB), then prompts of 300 and "
             "1,500 tokens",
             [*V, "--max-model-len", "-1", "--kv-cache-memory-bytes", "524288"],
             act=long_traffic([300, 1500])),
    Scenario("v-disable-swa-len", "vllm", "--hf-overrides sliding_window 512 with "
             "--disable-sliding-window and --max-model-len 2048",
             [*V, "--max-model-len", "2048", "--disable-sliding-window", "--hf-overrides",
              '{"sliding_window": 512}'], act=long_traffic([1800])),
    Scenario("v-tokconfig-maxlen-1024", "vllm", "tokenizer_config.json model_max_length 1024 "
             "(a tokenizer saved with a shorter limit) with --max-model-len 2048",
             [*V, "--max-model-len", "2048"],
             model=json_edit("tokconfig-maxlen-1024", "tokenizer_config.json",
                             model_max_length=1024), act=long_traffic([1800])),
    # --- SGLang -------------------------------------------------------------------------------
    Scenario("s-override-maxpos-512-ctx-2048", "sglang", "--json-model-override-args "
             "max_position_embeddings 512 with --context-length 2048",
             [*SG, "--json-model-override-args", '{"max_position_embeddings": 512}',
              "--context-length", "2048"], act=long_traffic([1800], sg=True)),
    Scenario("s-ctx-env-8k-long-prompt", "sglang", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 "
             "with --context-length 8192 over the model's 2048 positions, then prompts of "
             "3,000 and 6,000 tokens",
             [*SG, "--context-length", "8192"], env=SG_LONG,
             act=long_traffic([3000, 6000], sg=True)),
    Scenario("s-yarn-override-8k", "sglang", "--json-model-override-args YaRN rope scaling "
             "factor 4 from 2048 positions with --context-length 8192, then a 6,000-token prompt",
             [*SG, "--json-model-override-args", rope("yarn", 4.0), "--context-length", "8192"],
             act=long_traffic([6000], sg=True)),
    Scenario("s-max-total-1024-long", "sglang", "--max-total-tokens 1024 (a KV pool of 1,024 "
             "tokens, context 2048), then prompts of 1,800 and 900 tokens",
             [*SG, "--max-total-tokens", "1024"], act=long_traffic([1800, 900], sg=True)),
    Scenario("s-prefill-256-no-chunk", "sglang", "chunked prefill off (--chunked-prefill-size "
             "-1) with --max-prefill-tokens 256, then a 1,500-token prompt",
             [*SG, "--chunked-prefill-size", "-1", "--max-prefill-tokens", "256"],
             act=long_traffic([1500], sg=True)),
    Scenario("s-auto-truncate-512", "sglang", "--context-length 512 with --allow-auto-truncate, "
             "then a 1,500-token prompt",
             [*SG, "--context-length", "512", "--allow-auto-truncate"],
             act=long_traffic([1500], sg=True)),
    Scenario("s-ctx-64k-pool-4k", "sglang", "SGLANG_ALLOW_OVERWRITE_LONGER_CONTEXT_LEN=1 with "
             "--context-length 65536 over a KV pool of 4096 tokens (--max-total-tokens), then a "
             "6,000-token prompt",
             [*SG, "--context-length", "65536", "--max-total-tokens", "4096"], env=SG_LONG,
             act=long_traffic([6000], sg=True)),
    Scenario("s-tokconfig-maxlen-1024", "sglang", "tokenizer_config.json model_max_length 1024 "
             "(a tokenizer saved with a shorter limit; context 2048), then a 1,800-token prompt",
             SG, model=json_edit("tokconfig-maxlen-1024", "tokenizer_config.json",
                                 model_max_length=1024), act=long_traffic([1800], sg=True)),
]
