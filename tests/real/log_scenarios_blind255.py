"""The two-hundred-and-fifty-fifth batch's scenarios (tests/fixtures/corpus/fresh254): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind255.py OUT

Themes: prefix and radix caching as a person tunes a shared-prompt workload, each run
then sent completions sharing a long prefix where it serves. vLLM (VLLM_BASE's settings, with
--enable-prefix-caching): --prefix-caching-hash-algo sha256-cbor (a hyphen for the underscore of
sha256_cbor); a Mistral-style copy of the tiny model with a 32-token sliding window
(its config.json changed in the copy the recorder makes in its work folder); prompt
embeddings (--enable-prompt-embeds) sharing their first 40 rows; a valid per-tenant cache_salt
on requests sharing a ~120-token prefix. SGLang (--device cpu --model-impl transformers):
--schedule-policy lpm with --max-total-tokens 320, just above one ~290-token prompt, twelve
requests sharing it; --radix-eviction-policy lfu with a 512-token pool and two alternating
~180-token prefixes; --radix-eviction-policy priority without --enable-priority-scheduling, the
same load; --max-total-tokens 128, below the shared prompt.

Earlier batches already had (not repeated): --prefix-caching-hash-algo xxhash without the package (70th),
prefix caching under a burst and SGLang dfs-weight under a burst (108th), the radix cache off
with lpm, KV-events publishing with prefix caching (125th), --disable-radix-cache with
input_embeds (128th), deterministic inference and the radix cache, PYTHONHASHSEED=0 with --seed
0 (148th), PYTHONHASHSEED=abc (72nd), cache_salt empty or a number (149th), /flush_cache and
/reset_prefix_cache while requests run (95th, 140th, 243rd), the tlru eviction policy with a
threshold below (90th), the hierarchical cache without the radix cache (90th, 202nd), lpm with
priority scheduling (164th), --schedule-policy nosuch / fifo2 (75th, 81st), prefix caching on
a hybrid Falcon-H1 without chunked prefill and a Gemma-3 window past a long prompt (221st), the
decode server's radix cache (229th), n-gram drafting with prefix caching (249th),
`--disable-radix-cache true` (98th).

Recorded 2026-12-07 in one invocation (raw1, all eight scenarios in table order), waiting
turns for the recorder's lock with other helpers' recorders; each scenario once, about 8.5
minutes of my own recording (vLLM 14+86+85+62 s, SGLang 86+69+57+50 s). All 8 kept (final files
if101-if108). None dropped. Four faults never showed (the window, prompt embeddings, the salts,
the priority eviction policy); their logs are kept as fair logs of the ground, labelled ready.

What the engines did. vLLM's argument parser refuses the hyphenated hash algorithm (`invalid
choice: 'sha256-cbor' (choose from 'sha256', 'sha256_cbor', 'xxhash', 'xxhash_cbor')`, exit 2)
- crashed at launch. The sliding-window Mistral copy, prompt embeddings and per-tenant salts
each start without a word about prefix caching and answer every request `200 OK`; each file
ends on a stats line with `Prefix cache hit rate: 0.0%` - served. SGLang warns of each small
pool (`KV pool holds 320 tokens, fewer than --context-length 2048. One full-length request
cannot fit, so long requests will be refused or truncated at serving time.`) and serves: with
lpm and 320 tokens the requests run one at a time on the cached prefix (`#cached-token: 289,
token usage: 0.91, ... #queue-req: 5`), all 200; with lfu and with the priority policy (shown
only in server_args) both prefixes hit (`#cached-token: 368`), token usage up to 0.91, all 200,
no eviction line; with 128 tokens every request is refused (`Input length (291 tokens) exceeds
the maximum allowed length (122 tokens). Use a shorter input or enable --allow-auto-truncate.`,
400 Bad Request) while the server stays up - all four served. No run hung.
"""

from __future__ import annotations

import subprocess
import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, json_edit, linger  # noqa: E402
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind255")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
V_READY = "Application startup complete"

PHRASE = "the shared system prompt tells the model to answer briefly and politely to every user"
PHRASE2 = "a second long instruction block describes the tools and the format of every reply"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def _ready(ctx: Ctx, sglang: bool) -> bool:
    found = ctx.wait_any([SG_READY if sglang else V_READY], 300)
    return bool(found) and ctx.proc is not None and ctx.proc.poll() is None


def _burst(ctx: Ctx, bodies: list[dict], path: str = "/v1/completions", width: int = 6) -> None:
    """Send ``bodies`` ``width`` at a time from threads."""
    for start in range(0, len(bodies), width):
        threads = [threading.Thread(target=ctx.post, args=(path, b, 120))
                   for b in bodies[start:start + width]]
        for t in threads:
            t.start()
        for t in threads:
            t.join()


def shared_prefix(repeats: int, n: int, tokens: int = 24, two: bool = False,
                  extra: dict | None = None, width: int = 6, sglang: bool = False):
    """If it serves: one request to warm the prefix, then ``n`` completions sharing a prefix
    of ``repeats`` phrases (two prefixes alternating where ``two``), ``width`` at a time, then
    15 s for the periodic stats; else let it end."""
    def act(ctx: Ctx) -> None:
        if not _ready(ctx, sglang):
            linger(ctx, 30)
            return
        name = ctx.model_name()
        bodies = []
        for i in range(n):
            phrase = PHRASE2 if two and i % 2 else PHRASE
            body = {"model": name, "prompt": f"{' '.join([phrase] * repeats)} question {i}:",
                    "max_tokens": tokens, "temperature": 0.0}
            for key, values in (extra or {}).items():
                body[key] = values[i % len(values)]
            bodies.append(body)
        ctx.post("/v1/completions", bodies[0], 120)
        _burst(ctx, bodies, width=width)
        time.sleep(15)
    return act


EMBEDS_CODE = (
    "import base64, io, sys, torch; torch.manual_seed(0); "
    "p = torch.randn(40, 256, dtype=torch.bfloat16) * 0.02; out = []\n"
    "for i in range(4):\n"
    "    torch.manual_seed(i + 1); t = torch.cat([p, torch.randn(6, 256, dtype=torch.bfloat16)"
    " * 0.02]); b = io.BytesIO(); torch.save(t, b); out.append(base64.b64encode(b.getvalue())"
    ".decode())\n"
    "sys.stdout.write(' '.join(out))")


def embeds_shared_prefix(ctx: Ctx) -> None:
    """Four prompt embeddings (46 x 256) sharing their first 40 rows, each sent twice, then a
    text completion, then 15 s."""
    if not _ready(ctx, False):
        linger(ctx, 30)
        return
    name = ctx.model_name()
    embs = subprocess.run([str(VLLM.python), "-c", EMBEDS_CODE], capture_output=True,
                          text=True, timeout=120).stdout.split()
    bodies = [{"model": name, "prompt_embeds": e, "max_tokens": 16, "temperature": 0.0}
              for e in embs * 2]
    _burst(ctx, bodies, width=4)
    ctx.post("/v1/completions", {"model": name, "prompt": f"{PHRASE} {PHRASE}",
                                 "max_tokens": 16}, 120)
    time.sleep(15)


mistral_window = json_edit("mistral-window", "config.json", architectures=["MistralForCausalLM"],
                           model_type="mistral", sliding_window=32)

SCENARIOS = [
    Scenario("v-hash-algo-hyphen", "vllm",
             "--enable-prefix-caching --prefix-caching-hash-algo sha256-cbor (a hyphen where "
             "the choice has an underscore, sha256_cbor)",
             [*VLLM_BASE, "--enable-prefix-caching", "--prefix-caching-hash-algo", "sha256-cbor"],
             act=shared_prefix(2, 8)),
    Scenario("v-prefix-window-mistral", "vllm",
             "--enable-prefix-caching on a Mistral-style copy of the tiny model whose config "
             "gives a 32-token sliding window, then completions sharing a ~120-token prefix",
             [*VLLM_BASE, "--enable-prefix-caching"], model=mistral_window,
             act=shared_prefix(2, 8)),
    Scenario("v-prefix-prompt-embeds", "vllm",
             "--enable-prefix-caching with --enable-prompt-embeds, then prompt embeddings "
             "sharing their first 40 rows, each sent twice",
             [*VLLM_BASE, "--enable-prefix-caching", "--enable-prompt-embeds"],
             act=embeds_shared_prefix),
    Scenario("v-cache-salt-tenants", "vllm",
             "--enable-prefix-caching, then completions sharing a ~120-token prefix, each with "
             "a per-tenant cache_salt (three tenants alternating)",
             [*VLLM_BASE, "--enable-prefix-caching"],
             act=shared_prefix(2, 9, extra={"cache_salt": ["tenant-a", "tenant-b", "tenant-c"]})),
    Scenario("s-lpm-pool-one-prompt", "sglang",
             "--schedule-policy lpm with --max-total-tokens 320, just above one ~300-token "
             "prompt, then twelve completions sharing that prefix, six at a time",
             [*SG, "--schedule-policy", "lpm", "--max-total-tokens", "320"],
             act=shared_prefix(5, 12, tokens=32, sglang=True)),
    Scenario("s-lfu-small-pool", "sglang",
             "--radix-eviction-policy lfu with --max-total-tokens 512, then completions "
             "alternating two ~180-token prefixes, so the radix tree must evict",
             [*SG, "--radix-eviction-policy", "lfu", "--max-total-tokens", "512"],
             act=shared_prefix(3, 12, tokens=32, two=True, width=3, sglang=True)),
    Scenario("s-evict-priority-no-sched", "sglang",
             "--radix-eviction-policy priority without --enable-priority-scheduling, with "
             "--max-total-tokens 512 and two alternating ~180-token prefixes",
             [*SG, "--radix-eviction-policy", "priority", "--max-total-tokens", "512"],
             act=shared_prefix(3, 12, tokens=32, two=True, width=3, sglang=True)),
    Scenario("s-pool-below-prompt", "sglang",
             "--max-total-tokens 128, below the ~300-token shared prompt a person sends, then "
             "six completions sharing it",
             [*SG, "--max-total-tokens", "128"],
             act=shared_prefix(5, 6, tokens=16, width=3, sglang=True)),
]
