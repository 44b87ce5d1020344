"""The hundred-and-eighty-seventh batch's scenarios (tests/fixtures/corpus/fresh186): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind187.py OUT

Themes: the server's own warm-up and the first requests it meets - what a person changes to start
faster or to warm a server up their own way. SGLang: --skip-server-warmup and a burst as the first
real traffic; --warmups naming a warm-up function that does not exist, one that does
(prefill_shapes, written for long-context models) and a list (an unknown name, then voice_chat);
the warm-up request failing because of another setting (--context-length 4). vLLM: its startup
warm-up shaped by its settings (--compilation-config compile_sizes over the step budget,
--max-num-batched-tokens 1 --max-num-seqs 1, --max-num-seqs 0), and a client's own warm-up
script that fires a large first batch the moment /health answers.

Earlier batches already had (not repeated): SGLANG_WARMUP_TIMEOUT (107th, 129th), signals to
SGLang's processes during its warmup request (100th, 106th, 109th, 133rd), --max-total-tokens 16
refusing the warmup request (73rd), an API key the warmup sends back (157th), compile_sizes [4]
with a burst (108th), --max-num-batched-tokens below --max-model-len, 8, 16, 32, 64, 300, 65536
(90th, 104th, 108th, 115th, 139th, 162nd), --max-num-seqs 1/2/300 under bursts (68th, 111th,
139th, 162nd).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in three invocations (raw1: four SGLang, stopped by its helper while it
waited for the lock, to put the vLLM scenarios ahead of the last SGLang one; raw2: three vLLM and
one SGLang; raw3: one vLLM added later), taking turns with two other helpers' recorders; each
scenario once. About 6m45s of recording (SGLang 68+48+44+46+33 s, vLLM 50+9+57+48 s). 6 kept
(final files fn101-fn106). Dropped, and removed from SCENARIOS: s-warmups-list-voice-chat
(`--warmups my_warmup,voice_chat`, 46 s: `Could not find custom warmup my_warmup`, then `Running
warmup voice_chat` and the same `Scheduler hit an exception` / `IndexError: index out of range in
self` and `kill_process_tree called` as s-warmups-prefill-shapes - the same log twice in this
batch); v-compile-sizes-over-budget (`--compilation-config '{"compile_sizes": [1024]}'`, 50 s:
vLLM served two completions and said nothing of the size beyond listing it in its args - the
fault never shows); v-batched-tokens-1-seqs-1 (48 s: `Chunked prefill is enabled with
max_num_batched_tokens=1.`, a warm-up run of 0.00 s, then two completions served - the same
response as the 162nd batch's eight-token budget, taken without a word).

What the engines did: SGLang's --warmups are run in the HTTP application's startup, before
uvicorn listens: an unknown name gets one line (`Could not find custom warmup ...`, then `Warmup
ended`) and the server serves; a registered one meant for other models (prefill_shapes' random
ids up to 65,535 over a 512-token vocabulary) kills the scheduler in its first prefill
(`IndexError: index out of range in self` in the embedding; `SIGQUIT received ... It usually means
one child failed.`, `kill_process_tree called`; crashed in warmup, no ready line). With
--skip-server-warmup the ready line comes in the second uvicorn starts, and a cold burst of six
is served at once. --context-length 4 is accepted, and SGLang's own warm-up request is refused
(`The input (20 tokens) is longer than the model's context length (4 tokens).`, 400) and ends the
run with `Initialization failed. warmup error: ... AssertionError` (crashed in warmup). vLLM
refuses --max-num-seqs 0 while building its config (`ValidationError: 2 validation errors for
SchedulerConfig`: max_num_batched_tokens and max_num_seqs must be >= 1, launch), and serves a
32-request burst sent at the first 200 from /health with --max-num-seqs 4 without a word of
queueing (ready in serving).
"""

from __future__ import annotations

import json
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind187")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

ROOT.mkdir(parents=True, exist_ok=True)


def request(ctx: Ctx, path: str, body: dict | None = None, timeout: float = 120) -> int:
    """A request whose whole body is read; the status, 0 if none."""
    url = f"http://127.0.0.1:{ctx.port}{path}"
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(url, data=data, headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def in_threads(ctx: Ctx, calls: list[tuple[str, dict]], timeout: float = 120) -> None:
    threads = [threading.Thread(target=request, args=(ctx, p, b, timeout), daemon=True)
               for p, b in calls]
    for t in threads:
        t.start()
    for t in threads:
        t.join(timeout)


def alive(ctx: Ctx) -> bool:
    return ctx.proc is not None and ctx.proc.poll() is None


# --- SGLang ----------------------------------------------------------------------------------

def sg_serve(ctx: Ctx) -> None:
    """Until fired up (or the end); then a few requests and a pause."""
    if ctx.wait_any([SG_READY], 170) != SG_READY or not alive(ctx):
        linger(ctx, 10)
        return
    request(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 16}})
    ctx.complete(2)
    linger(ctx, 10)


def sg_first_burst(ctx: Ctx) -> None:
    """The moment the ready line shows (no warmup ran): six requests at once, then more."""
    if ctx.wait_any([SG_READY], 170) != SG_READY or not alive(ctx):
        linger(ctx, 10)
        return
    body = {"text": "The quick brown fox", "sampling_params": {"max_new_tokens": 32}}
    in_threads(ctx, [("/generate", body)] * 4 + [("/v1/completions", {
        "model": "default", "prompt": "fox", "max_tokens": 16})] * 2, timeout=90)
    ctx.complete(2)
    linger(ctx, 10)


# --- vLLM ------------------------------------------------------------------------------------

def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a pause."""
    ctx.wait_any([READY_LINE], 200)
    if alive(ctx) and READY_LINE in ctx.text():
        ctx.complete(2)
        linger(ctx, 8)


def v_burst_at_health(ctx: Ctx) -> None:
    """A client's warm-up script: poll /health every 0.2 s; the moment it answers 200, 32
    completions of 128 tokens at once."""
    end = time.monotonic() + 240
    while time.monotonic() < end and alive(ctx):
        if request(ctx, "/health", timeout=2) == 200:
            break
        time.sleep(0.2)
    else:
        linger(ctx, 5)
        return
    name = ctx.model_name()
    calls = [("/v1/completions", {"model": name, "prompt": f"warm up {i} " * (1 + i % 8),
                                  "max_tokens": 128, "ignore_eos": True}) for i in range(32)]
    in_threads(ctx, calls, timeout=150)
    ctx.complete(1)
    linger(ctx, 12)


def v(name: str, what: str, args: list[str], act=v_until) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=act)


def s(name: str, what: str, args: list[str], act=sg_serve) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=act)


SCENARIOS = [
    s("s-skip-warmup-first-burst", "--skip-server-warmup (to start faster); the first real "
      "traffic is six requests at once the moment the ready line shows",
      ["--skip-server-warmup"], act=sg_first_burst),
    s("s-warmups-unknown-name", "--warmups warm_llama_prompts, a warm-up function of the "
      "user's own that is not in SGLang's warmup.py registry", ["--warmups", "warm_llama_prompts"]),
    s("s-warmups-prefill-shapes", "--warmups prefill_shapes (a registered warm-up: random-id "
      "prefills of 64 to 32,768 tokens) on the tiny model (2,048 positions, 512-token vocab)",
      ["--warmups", "prefill_shapes"]),
    v("v-max-num-seqs-0", "--max-num-seqs 0 (meant as 'no limit')", ["--max-num-seqs", "0"]),
    v("v-client-burst-at-health", "--max-num-seqs 4; a client's own warm-up script polls "
      "/health and, the moment it answers, sends 32 completions of 128 tokens at once",
      ["--max-num-seqs", "4"], act=v_burst_at_health),
    s("s-context-length-4-warmup", "--context-length 4: shorter than SGLang's own warm-up "
      "request's prompt", ["--context-length", "4"]),
]
