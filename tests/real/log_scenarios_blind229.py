"""The two-hundred-and-twenty-ninth batch's scenarios (tests/fixtures/corpus/fresh228): faults chosen, recorded and labelled by a helper who
had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind229.py OUT

Themes: prefill-decode disaggregation and KV transfer set up on one host, as a person tries the
engines' PD recipes on a single machine before a cluster. vLLM: the decode (kv_consumer) half of
the shared-storage example (ExampleConnector) started alone and sent completions straight, with
no proxy and no prefill server; an out-of-tree connector named through kv_connector_module_path
whose package is not installed; the prefill (kv_producer) half of the Mooncake recipe
(MooncakeConnector) without the mooncake transfer engine; the simple KV offloading connector
(SimpleCPUOffloadConnector) on the CPU build; and the shared-storage pair on one host, the prefill
server (started by the scenario's `before`, its output to /tmp/blind229/prefill.log) SIGKILLed
while the decode one serves. SGLang: a decode server (--disaggregation-mode decode, fake transfer
backend) started alone, to be sent requests straight without a router; a prefill server with the
mooncake_tcp backend (mooncake over TCP, for a host without RDMA) and mooncake not installed; a
decode server with the fake backend and --disaggregation-decode-enable-radix-cache.

Earlier batches already had (not repeated): vLLM --kv-transfer-config naming LMCacheConnectorV1
and NixlConnector not installed, its connector key misspelt, the example connector's storage path
unwritable, --kv-events-config's port taken (125th), the JSON cut short (82nd), an unknown
kv_role and an unknown connector name (94th), kv_transfer_params sent to a server without a
connector and as a string in vllm_xargs (149th), the native KV offloading tier and its LMCache
backend (--kv-offloading-size, --kv-offloading-backend: 165th); SGLang a prefill server with the
fake backend, the hierarchical cache with a mooncake storage backend, the radix cache off with
lpm (125th), a decode server with the nixl backend, --disaggregation-decode-retraction-backup
without PD (90th), bootstrap_host / bootstrap_room in requests (105th, 127th),
--load-balance-method follow_bootstrap_room on a plain launch (183rd). (vLLM 0.32.0 has no
P2pNcclConnector, so the P2P NCCL recipe would only repeat the 94th's unknown connector name.)

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in one invocation (raw2, all eight, each once, taking turns with other
helpers' recorders; a first invocation, raw1, was stopped while it still waited for the lock,
before anything was recorded, to add v-prefill-killed-decode-serves). Seconds per scenario: vLLM
70, 10, 44, 49, 55; SGLang 47,
27, 13 (about 5.5 minutes of recording, most of the half hour spent waiting for the lock). 8 kept
(final files hf101-hf108); dropped: none.

What the engines did. Served (ready in serving): vLLM's shared-storage consumer alone answered
its three completions 200, each with `External Cache Hit!` and `In connector.start_load_kv, but
the attn_metadata is None` although the store was empty; in the pair, the decode server served
the same way before and after the prefill server was SIGKILLed - the shared-storage connector
never talks to its peer, so its log shows nothing of the peer's death. Crashed: an out-of-tree
connector's module missing stops vLLM in VllmConfig's HMA check (`ModuleNotFoundError: No module
named 'acme_kv'`, 10 s, no engine core); MooncakeConnector warns `Please install mooncake` early,
then after the KV cache is sized dies creating the connector (`RuntimeError: Mooncake is not
available`, `Engine core initialization failed`), as the 125th's NIXL did;
SimpleCPUOffloadConnector dies registering the KV caches on CUDA streams the CPU torch lacks
(`AttributeError: type object '_StreamPlaceholder' has no attribute 'priority_range'`). SGLang's
decode server with the fake backend never came up to be sent its requests: after allocating its
device KV pool in host memory (17.5 GB) it sizes a host tier by itself and dies in
auto_size_hicache (`ValueError: No host memory is left for HiCache after the 10 GiB reserve; set
--hicache-ratio or --hicache-size explicitly.`); the mooncake_tcp prefill server is rewritten to
mooncake with MC_FORCE_TCP=1, starts its bootstrap server on 8998 and dies at `Init parallel`
(`ImportError: Please install mooncake ...`); the decode radix cache with the fake backend is
refused while the arguments resolve (`ValueError: ... is incompatible with
--disaggregation-transfer-backend fake`). None hung.
"""

from __future__ import annotations

import json
import os
import signal
import subprocess
import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402
from setup_engines import LLAMA, VLLM  # noqa: E402

ROOT = Path("/tmp/blind229")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
KV_STORE = ROOT / "kvstore"
KV_STORE2 = ROOT / "kvstore-pair"
PREFILL_LOG = ROOT / "prefill.log"
PREFILL_PORT = 18229
_PREFILL: list[subprocess.Popen] = []


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def kvt(**cfg: object) -> list[str]:
    return ["--kv-transfer-config", json.dumps(cfg)]


def ends_or_serves(ctx: Ctx) -> None:
    """Let the run end by itself; if it serves instead, two completions and a pause."""
    found = ctx.wait_any([READY_LINE], 200)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        if "sglang" in ctx.text().split("\n", 1)[0]:
            ctx.wait_any([SG_READY], 90)
        ctx.complete(2)
        time.sleep(10)
    else:
        linger(ctx, 20)


def fresh_store(ctx: Ctx) -> None:
    """An empty shared-storage folder, as on a host where no prefill server ever wrote."""
    KV_STORE.mkdir(parents=True, exist_ok=True)
    for f in KV_STORE.rglob("*"):
        if f.is_file():
            f.unlink()


def v_straight_to_decode(ctx: Ctx) -> None:
    """The decode (consumer) server sent ordinary completions, no proxy, no prefill."""
    if up(ctx, 300):
        ctx.complete(3, max_tokens=16)
        time.sleep(12)
    else:
        linger(ctx, 20)


def s_straight_to_decode(ctx: Ctx) -> None:
    """SGLang's decode server sent /generate and a completion directly (no router, no
    bootstrap_host / bootstrap_room)."""
    found = ctx.wait_any([SG_READY], 300)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.post("/generate", {"text": "The quick brown fox",
                               "sampling_params": {"max_new_tokens": 8}}, timeout=60)
        ctx.complete(1, max_tokens=8)
        time.sleep(12)
    else:
        linger(ctx, 20)


def start_prefill(ctx: Ctx) -> None:
    """The pair's other half: a vLLM prefill (kv_producer) server of the shared-storage example
    on port 18229, its output to /tmp/blind229/prefill.log, up before the decode one starts."""
    KV_STORE2.mkdir(parents=True, exist_ok=True)
    for f in KV_STORE2.rglob("*"):
        if f.is_file():
            f.unlink()
    argv = [str(VLLM.python), "-m", "vllm.entrypoints.openai.api_server", "--model",
            str(LLAMA.dir), "--host", "127.0.0.1", "--port", str(PREFILL_PORT), *VLLM_BASE,
            *kvt(kv_connector="ExampleConnector", kv_role="kv_producer",
                 kv_connector_extra_config={"shared_storage_path": str(KV_STORE2)})]
    env = {**os.environ, "HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1",
           "VLLM_NO_USAGE_STATS": "1", "DO_NOT_TRACK": "1"}
    with open(PREFILL_LOG, "wb") as f:
        proc = subprocess.Popen(argv, stdout=f, stderr=subprocess.STDOUT,
                                stdin=subprocess.DEVNULL, start_new_session=True, env=env,
                                cwd=ctx.work)
    _PREFILL.append(proc)
    end = time.monotonic() + 240
    while time.monotonic() < end and proc.poll() is None:
        if READY_LINE in PREFILL_LOG.read_text(errors="replace"):
            return
        time.sleep(0.5)


def stop_prefill() -> None:
    for proc in _PREFILL:
        try:
            os.killpg(proc.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            proc.wait(30)
        except subprocess.TimeoutExpired:
            pass
    _PREFILL.clear()


def post_prefill(body: dict) -> None:
    req = urllib.request.Request(f"http://127.0.0.1:{PREFILL_PORT}/v1/completions",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        urllib.request.urlopen(req, timeout=60).read()
    except (OSError, urllib.error.HTTPError):
        pass


def pair_then_prefill_killed(ctx: Ctx) -> None:
    """As the example proxy does: a prompt to the prefill server (max_tokens 1), then the same
    to the decode server; then the prefill server SIGKILLed, and the decode server sent the
    same prompt again and a new one whose KV no prefill server ever saved."""
    try:
        if not up(ctx, 300):
            linger(ctx, 20)
            return
        name = ctx.model_name()
        prompt = "The quick brown fox jumps over the lazy dog because"
        post_prefill({"model": name, "prompt": prompt, "max_tokens": 1})
        ctx.post("/v1/completions", {"model": name, "prompt": prompt, "max_tokens": 16})
        stop_prefill()
        time.sleep(2)
        ctx.post("/v1/completions", {"model": name, "prompt": prompt, "max_tokens": 16})
        ctx.post("/v1/completions", {"model": name, "prompt": "A new prompt the prefill "
                                     "server never saw, about a red kite over hills",
                                     "max_tokens": 16})
        time.sleep(12)
    finally:
        stop_prefill()


SCENARIOS = [
    Scenario("v-example-consumer-direct", "vllm",
             "--kv-transfer-config ExampleConnector as kv_consumer (the decode side of the "
             "shared-storage PD example) over an empty /tmp/blind229/kvstore, started alone and "
             "sent three completions straight, no proxy and no prefill server",
             [*VLLM_BASE, *kvt(kv_connector="ExampleConnector", kv_role="kv_consumer",
                               kv_connector_extra_config={"shared_storage_path": str(KV_STORE)})],
             before=fresh_store, act=v_straight_to_decode),
    Scenario("v-connector-module-missing", "vllm",
             "--kv-transfer-config naming an out-of-tree connector through "
             "kv_connector_module_path (acme_kv.connector), a package not installed here",
             [*VLLM_BASE, *kvt(kv_connector="AcmeKVConnector",
                               kv_connector_module_path="acme_kv.connector", kv_role="kv_both")],
             act=ends_or_serves),
    Scenario("v-mooncake-connector-missing", "vllm",
             "--kv-transfer-config MooncakeConnector as kv_producer (the prefill side of "
             "vLLM's Mooncake PD recipe) with the mooncake transfer engine not installed",
             [*VLLM_BASE, *kvt(kv_connector="MooncakeConnector", kv_role="kv_producer")],
             act=ends_or_serves),
    Scenario("v-simple-cpu-offload", "vllm",
             "--kv-transfer-config SimpleCPUOffloadConnector (kv_both), the simple KV "
             "offloading connector, on the CPU build",
             [*VLLM_BASE, *kvt(kv_connector="SimpleCPUOffloadConnector", kv_role="kv_both")],
             act=ends_or_serves),
    Scenario("v-prefill-killed-decode-serves", "vllm",
             "the shared-storage PD example's pair on one host: a kv_producer server "
             "(ExampleConnector, port 18229, its log /tmp/blind229/prefill.log) and this "
             "kv_consumer one over /tmp/blind229/kvstore-pair; one prompt through both as the "
             "example proxy sends it, then the prefill server SIGKILLed and the decode server "
             "sent that prompt again and a new one",
             [*VLLM_BASE, *kvt(kv_connector="ExampleConnector", kv_role="kv_consumer",
                               kv_connector_extra_config={"shared_storage_path": str(KV_STORE2)})],
             before=start_prefill, act=pair_then_prefill_killed),
    Scenario("s-pd-decode-fake-direct", "sglang",
             "--disaggregation-mode decode with --disaggregation-transfer-backend fake, started "
             "alone, sent /generate and a completion straight (no router, no prefill server)",
             [*SG, "--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "fake"],
             act=s_straight_to_decode),
    Scenario("s-pd-prefill-mooncake-tcp", "sglang",
             "--disaggregation-mode prefill with --disaggregation-transfer-backend mooncake_tcp "
             "(mooncake over TCP, for a host without RDMA) and mooncake not installed",
             [*SG, "--disaggregation-mode", "prefill", "--disaggregation-transfer-backend",
              "mooncake_tcp"], act=ends_or_serves),
    Scenario("s-pd-decode-radix-fake", "sglang",
             "--disaggregation-mode decode with the fake transfer backend and "
             "--disaggregation-decode-enable-radix-cache",
             [*SG, "--disaggregation-mode", "decode", "--disaggregation-transfer-backend", "fake",
              "--disaggregation-decode-enable-radix-cache"], act=ends_or_serves),
]
