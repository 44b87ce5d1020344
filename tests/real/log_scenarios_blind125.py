"""The hundred-and-twenty-fifth batch's scenarios (tests/fixtures/corpus/fresh124): faults
chosen, recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind125.py OUT

Themes: KV-cache offloading, prefix caching and disaggregation settings. vLLM: a
--kv-transfer-config naming a connector whose package is not installed (LMCache, NIXL), a key of
that JSON misspelt (`kv_conector`), the example shared-storage connector given a storage path it
cannot create (under /proc) and then served requests sharing a prefix, and --kv-events-config
publishing KV-cache events on a ZMQ endpoint whose port another process holds. SGLang: the
hierarchical (host-memory) cache on the CPU build, with a host/device ratio below one, with a
storage backend whose package is not installed (mooncake), and plainly (the last two with the
device pool cut to --mem-fraction-static 0.1, since on CPU both tiers take host memory), a prefill server of PD
disaggregation given the `fake` transfer backend, and the radix cache turned off together with
the longest-prefix-match schedule policy, served a burst of requests sharing a prefix.

SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm);
vLLM with VLLM_BASE's settings.

Recorded 2026-12-06 in four invocations (about 5 minutes of recording, 10 scenarios, each once;
all 10 kept). What the engines did: vLLM creates the KV connector only after sizing the KV cache
(`CPU KV cache size`), so LMCache and NIXL missing fail there (`No module named 'lmcache'`;
NIXL only warns `NIXL is not available` at start, then raises it as a RuntimeError); a misspelt
key of --kv-transfer-config stops in argparse (pydantic `unexpected_keyword_argument`). The
example connector's storage path is first used when a request's KV is saved: the first
completion kills the engine (FileNotFoundError in save_kv_layer, EngineDeadError, 500s). The
KV-events publisher binds its ZMQ socket after `init engine ... took`, as the scheduler is built
(`ZMQError: Address already in use`). SGLang on CPU puts its device KV pool in host memory
(about 15 GB at the default fraction), so a HiCache host tier does not fit (`Not enough host
memory available`) unless --mem-fraction-static is cut; with room, the host pool is pinned
through CUDA and dies `Found no NVIDIA driver` - HiCache cannot run on this CPU build. The
mooncake storage backend fails at `Init parallel` (ImportError), before loading. A prefill
server refuses the fake backend while resolving arguments (AssertionError). With the radix cache
off, lpm is taken silently and the shared prefix is never reused (#cached-token: 0). s-hicache-cpu
and s-hicache-mooncake-missing were given --mem-fraction-static 0.1 after s-hicache-ratio-half
showed the host tier cannot fit otherwise.
"""

from __future__ import annotations

import socket
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    up,
)

BASE = VLLM_BASE
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
EVENTS_PORT = 25731
PREFIX = "The quick brown fox jumps over the lazy dog near the river bank. " * 8


def shared_prefix_burst(ctx: Ctx, ready: str | None = None) -> None:
    """Up, then six completions whose prompts share their first ~200 tokens, then a pause."""
    ok = ctx.wait_for(ready, 240) if ready else up(ctx, 240)
    if not ok:
        linger(ctx, 20)
        return
    name = ctx.model_name()
    for i in range(6):
        ctx.post("/v1/completions", {"model": name, "prompt": f"{PREFIX} Question {i}:",
                                     "max_tokens": 8})
    time.sleep(12)


def v_burst_or_exit(ctx: Ctx) -> None:
    """vLLM: a shared-prefix burst if it comes up, else until it ends."""
    shared_prefix_burst(ctx)


def sg_burst_or_exit(ctx: Ctx) -> None:
    """SGLang: a shared-prefix burst once it is fired up, else until it ends."""
    shared_prefix_burst(ctx, SG_READY)


def sg_exit_or_serve(ctx: Ctx) -> None:
    """SGLang: wait for it to end (up to 120 s); if it comes up, a short shared-prefix burst."""
    found = ctx.wait_any([SG_READY], 120)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        name = ctx.model_name()
        for i in range(3):
            ctx.post("/v1/completions", {"model": name, "prompt": f"{PREFIX} Q{i}:",
                                         "max_tokens": 8})
        time.sleep(8)


def hold_events_port(ctx: Ctx) -> None:
    """Another process already listens on the KV-events port (all addresses)."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("0.0.0.0", EVENTS_PORT))
    s.listen(1)
    ctx.keep.append(s)


def v(name: str, what: str, extra: list[str], **kw: object) -> Scenario:
    kw.setdefault("act", v_burst_or_exit)
    return Scenario(name, "vllm", what, [*BASE, *extra], **kw)  # type: ignore[arg-type]


def s(name: str, what: str, extra: list[str], **kw: object) -> Scenario:
    kw.setdefault("act", sg_exit_or_serve)
    return Scenario(name, "sglang", what, [*SG, *extra], **kw)  # type: ignore[arg-type]


SCENARIOS = [
    # vLLM
    v("v-lmcache-not-installed", "--kv-transfer-config naming LMCacheConnectorV1 (kv_both) on "
      "a host without the lmcache package",
      ["--kv-transfer-config", '{"kv_connector": "LMCacheConnectorV1", "kv_role": "kv_both"}']),
    v("v-nixl-not-installed", "--kv-transfer-config naming NixlConnector (a prefill node, "
      "kv_producer) on a host without the nixl package",
      ["--kv-transfer-config", '{"kv_connector": "NixlConnector", "kv_role": "kv_producer"}']),
    v("v-kv-transfer-key-misspelt", "--kv-transfer-config with its connector key misspelt "
      "(kv_conector), then requests sharing a prefix",
      ["--kv-transfer-config", '{"kv_conector": "ExampleConnector", "kv_role": "kv_both"}']),
    v("v-shared-storage-unwritable", "--kv-transfer-config with the example shared-storage "
      "connector whose shared_storage_path is under /proc (cannot be created), then requests "
      "sharing a prefix",
      ["--kv-transfer-config", '{"kv_connector": "ExampleConnector", "kv_role": "kv_both", '
       '"kv_connector_extra_config": {"shared_storage_path": "/proc/kvcache-store"}}']),
    v("v-kv-events-port-taken", f"--kv-events-config publishing KV-cache events over ZMQ on "
      f"tcp://*:{EVENTS_PORT}, a port another process already listens on",
      ["--kv-events-config", '{"enable_kv_cache_events": true, "publisher": "zmq", '
       f'"endpoint": "tcp://*:{EVENTS_PORT}"}}', "--enable-prefix-caching"],
      before=hold_events_port),
    # SGLang
    s("s-hicache-ratio-half", "--enable-hierarchical-cache with --hicache-ratio 0.5 (a host "
      "pool smaller than the device pool)",
      ["--enable-hierarchical-cache", "--hicache-ratio", "0.5"]),
    s("s-hicache-mooncake-missing", "--enable-hierarchical-cache with --hicache-storage-backend "
      "mooncake on a host without the mooncake package",
      ["--enable-hierarchical-cache", "--hicache-storage-backend", "mooncake",
       "--mem-fraction-static", "0.1"]),
    s("s-hicache-cpu", "--enable-hierarchical-cache (host-memory KV cache tier) on the CPU "
      "build (device pool cut to --mem-fraction-static 0.1 so that the host tier fits), then "
      "requests sharing a prefix", ["--enable-hierarchical-cache", "--mem-fraction-static", "0.1"],
      act=sg_burst_or_exit),
    s("s-pd-prefill-fake", "--disaggregation-mode prefill with --disaggregation-transfer-backend "
      "fake (a decode-benchmark backend)",
      ["--disaggregation-mode", "prefill", "--disaggregation-transfer-backend", "fake"]),
    s("s-no-radix-lpm-burst", "--disable-radix-cache with --schedule-policy lpm (longest prefix "
      "match needs the radix cache), then a burst of requests sharing a prefix",
      ["--disable-radix-cache", "--schedule-policy", "lpm"], act=sg_burst_or_exit),
]
