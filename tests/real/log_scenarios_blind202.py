"""The two-hundred-and-second batch's scenarios (tests/fixtures/corpus/fresh201): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind202.py OUT

Themes: pairs of launch flags that the engines cross-check against each other while resolving
their arguments - each flag valid alone, the pair refused (or accepted and failing later).

Each flag of a pair is valid alone. vLLM (VLLM_BASE's settings): --max-num-active-seqs over
--max-num-seqs (SchedulerConfig); --enable-per-request-metrics with --disable-log-stats (the API
server's argument checks); --runner pooling with an n-gram --speculative-config. SGLang (--device cpu
--model-impl transformers): --chunked-prefill-size not a multiple of --page-size;
--enable-torch-compile with --disable-cuda-graph-padding; --max-loaded-loras below
--max-loras-per-batch (with --enable-lora).

Earlier batches already had (not repeated): single flags and values refused (98th, 114th, ...);
--max-num-batched-tokens below the context without chunked prefill, --max-num-seqs against
--max-num-batched-tokens, --max-cpu-loras below --max-loras, --async-scheduling with n-gram
speculative decoding (198th), prefix caching with xxhash, --skip-tokenizer-init with chat
(fresh188/fq101), --enable-auto-tool-choice without a parser (67th), --enable-log-outputs without
--enable-log-requests, --enable-dp-attention without --dp, --max-prefill-tokens against
--chunked-prefill-size, --hicache without the radix cache, priority scheduling with lpm and
--retraction-policy priority without it, --ssl-keyfile without --ssl-certfile, HTTP worker
reuseport with one worker, --pp-size 2 and --tp 3 on this host, LoRA paths over --max-loaded-loras
(134th).

Recorded 2026-12-07 in one invocation (raw1, engines alternating), waiting turns with two other
helpers' recorders; each scenario once. About 3.2 minutes of recording (vLLM 8+9+49+50 s, SGLang
18+16+26+14 s). 6 kept (final files gd101-gd106). Dropped, and removed from the table:
v-skip-tok-init-tool-parser (--skip-tokenizer-init with --enable-auto-tool-choice --tool-call-parser
hermes: vLLM accepted the pair, logged `"auto" tool choice has been enabled.` and the known `Chat
template warmup failed ... Tokenizer not available when skip_tokenizer_init=True` warning, served,
and the chat request died in the handler on `assert tokenizer is not None` (500) - the same log as
fresh188/fq101's --skip-tokenizer-init chat, the tool parser never showing: a repeat) and
s-mixed-chunk-ngram-spec (--enable-mixed-chunk with --speculative-algorithm NGRAM: SGLang does not
refuse the pair, it logs `The mixed chunked prefill are disabled because of using ngram speculative
decoding.` and then dies building the n-gram worker, `ImportError: [sgl_kernel] CRITICAL: Could not
load any common_ops library!` / `libcuda.so.1` - the same ending as the 124th and 198th batches'
NGRAM on CPU: a repeat).

What the engines did: five of the six kept pairs are refused while the arguments are resolved,
before any engine process or weight: vLLM in SchedulerConfig's pydantic validation
(`ValidationError: 1 validation error for SchedulerConfig / Value error, max_num_active_seqs (8)
cannot be greater than max_num_seqs (4).`) and, before even its banner, in
`validate_parsed_serve_args` (`ValueError: Error: --enable-per-request-metrics requires engine
statistics logging; remove --disable-log-stats ...`); SGLang in `check_server_args`
(validation_hook.py, lora_hook.py) with bare asserts (`AssertionError: chunked_prefill_size must be
divisible by page_size`, `... --disable-cuda-graph-padding is incompatible with
--enable-torch-compile ...`, `max_loaded_loras should be greater than or equal to
max_loras_per_batch. max_loaded_loras=1, max_loras_per_batch=2`), each after `kill_process_tree
called` and in 14-18 s. vLLM takes --runner pooling with n-gram speculative decoding without a word
against it: it loads a drafter (`Loading drafter model...`) beside an embedding runner, comes up
(`Supported tasks: ['token_embed', 'embed']`) and answers completions and chat 404 Not Found.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind202")
ROOT.mkdir(parents=True, exist_ok=True)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
NGRAM = '{"method": "ngram", "num_speculative_tokens": 3, "prompt_lookup_max": 3}'


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a chat request, a short pause."""
    ctx.wait_any([READY_LINE], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        ctx.post("/v1/chat/completions", {"model": ctx.model_name(), "max_tokens": 8,
                                          "messages": [{"role": "user", "content": "hi"}]})
        time.sleep(6)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions); a pause."""
    found = ctx.wait_any([SG_READY], 120)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def v(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=v_until)


def s(name: str, what: str, args: list[str]) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=s_until)


SCENARIOS = [
    v("v-active-seqs-over-max-seqs", "--max-num-active-seqs 8 with --max-num-seqs 4 (each "
      "valid alone)", ["--max-num-seqs", "4", "--max-num-active-seqs", "8"]),
    s("s-chunked-prefill-not-page-multiple", "--chunked-prefill-size 100 with --page-size 64 "
      "(each valid alone)", ["--chunked-prefill-size", "100", "--page-size", "64"]),
    v("v-per-request-metrics-no-log-stats", "--enable-per-request-metrics with "
      "--disable-log-stats", ["--enable-per-request-metrics", "--disable-log-stats"]),
    s("s-torch-compile-no-graph-padding", "--enable-torch-compile with "
      "--disable-cuda-graph-padding", ["--enable-torch-compile", "--disable-cuda-graph-padding"]),
    v("v-pooling-runner-ngram-spec", "--runner pooling with an n-gram --speculative-config "
      "(speculative decoding on a runner that generates nothing)",
      ["--runner", "pooling", "--speculative-config", NGRAM]),
    s("s-lora-loaded-below-per-batch", "--enable-lora --max-lora-rank 8 --lora-target-modules "
      "all with --max-loras-per-batch 2 and --max-loaded-loras 1",
      ["--enable-lora", "--max-lora-rank", "8", "--lora-target-modules", "all",
       "--max-loras-per-batch", "2", "--max-loaded-loras", "1"]),
]
