"""The two-hundred-and-forty-third batch's scenarios (tests/fixtures/corpus/fresh242): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind243.py OUT

Themes: sleep mode, memory release and weight-sync control on a live server, as RL frameworks
(verl, slime, OpenRLHF) drive them, with a plain request before and after each call. vLLM:
/sleep, /is_sleeping and /wake_up on a server launched without VLLM_SERVER_DEV_MODE (the
variable that exposes them); /sleep?level=1 while two streaming completions run; /wake_up sent
twice after one /sleep; /release_kv_cache_memory on an engine neither paused nor asleep. SGLang:
/release_memory_occupation while four generations run (then /resume_memory_occupation);
/resume_memory_occupation on a server whose memory was never released; /pause_generation
in_place while generations run, then /flush_cache while they are paused, then
/continue_generation.

Earlier batches already had (not repeated): vLLM's --enable-sleep-mode (refused on this
platform, 67th), /sleep?level=1 with a completion sent while asleep, /reset_prefix_cache in
flight (95th), /collective_rpc naming a missing method and /pause?mode=keep never resumed
(90th), reload_weights through /collective_rpc from a missing and another-shaped checkpoint,
/start_weight_update with no weight-transfer engine, /sleep?level=2 with /wake_up of an unknown
tag (140th); SGLang's /update_weights_from_disk to a missing path, a cut shard (95th), a deeper
model, a folder without shards (140th), a half-copied checkpoint (210th), /flush_cache and
/pause_generation in abort mode with requests in flight (95th).

vLLM runs VLLM_BASE's settings (no --enable-sleep-mode: the CPU build refuses it, 67th);
SGLang --device cpu --model-impl transformers, without --enable-memory-saver. The in-flight
requests run in threads started 2.5 s before the control call.

Recorded 2026-12-07 in one invocation (raw1, all seven), taking turns with other helpers'
recorders for the lock (waits of two to five minutes); each scenario once. vLLM 53+47+46+42 s,
SGLang 93+70+56 s. All 7 kept (final files ht101-ht107), none dropped. Two faults did not show
and are kept as fair logs of the ground, labelled ready: the two streams of
v-sleep-during-stream and the four generations of s-pause-inplace-flush ended before the sleep
or the pause came (the tiny model decodes 200 tokens in about two seconds here).

What the engines did. vLLM without VLLM_SERVER_DEV_MODE has no sleep routes: /sleep,
/is_sleeping and /wake_up are 404 Not Found and it serves on (ready). /sleep?level=1 during the
streams pauses the scheduler (`setting pause state to PAUSED_NEW`, `sleep mode is not supported
on CPU, ignore it.`), /wake_up unpauses it, the next completion is 200 OK (ready). A second
/wake_up is only warned of (`Executor is not sleeping.`) and answered 200 (ready).
/release_kv_cache_memory with no pause is refused (`RuntimeError: release_kv_cache_memory()
requires a completed pause first`, 500 with uvicorn's ASGI traceback) and the server serves on
(ready). SGLang kills its scheduler on both memory-occupation misuses: the release with four
generations running (`AssertionError: release_memory_occupation should be called only when
server is idle.`) and the resume with nothing released (`KeyError: 'kv_cache'` in
weight_updater's resume_memory_occupation), each followed by `SIGQUIT received` and
`kill_process_tree called` (crashed in serving). /pause_generation in_place, /flush_cache
(`Cache flushed successfully!`) and /continue_generation on an idle server all answer 200 and it
serves on (ready). None hung.
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
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
)

ROOT = Path("/tmp/blind243")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
DEV = {"VLLM_SERVER_DEV_MODE": "1"}

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


def alive(ctx: Ctx) -> bool:
    return ctx.proc is not None and ctx.proc.poll() is None


def in_background(ctx: Ctx, path: str, bodies: list[dict], timeout: float = 90) -> list:
    """Start one request thread per body; the threads, already running."""
    threads = [threading.Thread(target=request, args=(ctx, path, b, timeout), daemon=True)
               for b in bodies]
    for t in threads:
        t.start()
    return threads


def join(threads: list, timeout: float = 90) -> None:
    end = time.monotonic() + timeout
    for t in threads:
        t.join(max(0.0, end - time.monotonic()))


# --- vLLM ------------------------------------------------------------------------------------

def v_serving(fn):
    """If it serves: a completion, ``fn(ctx, name)``, a completion, a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([READY_LINE], 200)
        if not alive(ctx) or READY_LINE not in ctx.text():
            linger(ctx, 5)
            return
        name = ctx.model_name()
        ctx.complete(1, max_tokens=12)
        fn(ctx, name)
        time.sleep(1)
        if alive(ctx):
            request(ctx, "/v1/completions", {"model": name, "prompt": "after", "max_tokens": 8},
                    timeout=40)
        linger(ctx, 6)
    return act


def v_sleep_no_dev(ctx: Ctx, name: str) -> None:
    request(ctx, "/sleep?level=1", {}, timeout=30)
    request(ctx, "/is_sleeping", None, timeout=20)
    request(ctx, "/wake_up", {}, timeout=30)


def v_sleep_during_stream(ctx: Ctx, name: str) -> None:
    body = {"model": name, "prompt": "once upon a time", "max_tokens": 200, "stream": True,
            "ignore_eos": True}
    threads = in_background(ctx, "/v1/completions", [body, body], timeout=90)
    time.sleep(2.5)
    request(ctx, "/sleep?level=1", {}, timeout=60)
    request(ctx, "/is_sleeping", None, timeout=20)
    request(ctx, "/wake_up", {}, timeout=60)
    join(threads, 60)


def v_wake_twice(ctx: Ctx, name: str) -> None:
    request(ctx, "/sleep?level=1", {}, timeout=60)
    request(ctx, "/wake_up", {}, timeout=60)
    request(ctx, "/wake_up", {}, timeout=60)
    request(ctx, "/is_sleeping", None, timeout=20)


def v_release_kv_no_pause(ctx: Ctx, name: str) -> None:
    request(ctx, "/release_kv_cache_memory", {}, timeout=60)
    request(ctx, "/is_sleeping", None, timeout=20)


def v(name: str, what: str, fn, env: dict[str, str] | None = None) -> Scenario:
    env = DEV if env is None else env
    mode = "VLLM_SERVER_DEV_MODE=1" if env else "no VLLM_SERVER_DEV_MODE"
    return Scenario(name, "vllm", f"{mode}; served, then {what}", [*VLLM_BASE], env=env,
                    act=v_serving(fn))


# --- SGLang ----------------------------------------------------------------------------------

def gen(n: int = 8) -> dict:
    return {"text": "the quick fox", "sampling_params": {"max_new_tokens": n}}


def long_gen() -> dict:
    return {"text": "once upon a time", "sampling_params": {"max_new_tokens": 200,
                                                            "ignore_eos": True}}


def sg_serving(fn):
    """If it is fired up: a generation, ``fn(ctx)``, a generation, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 200) is None or not alive(ctx):
            linger(ctx, 5)
            return
        request(ctx, "/generate", gen(), timeout=60)
        fn(ctx)
        time.sleep(1)
        if alive(ctx):
            request(ctx, "/generate", gen(), timeout=40)
        linger(ctx, 6)
    return act


def s_release_inflight(ctx: Ctx) -> None:
    threads = in_background(ctx, "/generate", [long_gen() for _ in range(4)], timeout=90)
    time.sleep(2.5)
    request(ctx, "/release_memory_occupation", {}, timeout=60)
    time.sleep(1)
    request(ctx, "/resume_memory_occupation", {}, timeout=60)
    join(threads, 60)


def s_resume_unreleased(ctx: Ctx) -> None:
    request(ctx, "/resume_memory_occupation", {}, timeout=60)


def s_pause_inplace_flush(ctx: Ctx) -> None:
    threads = in_background(ctx, "/generate", [long_gen() for _ in range(4)], timeout=90)
    time.sleep(2.5)
    request(ctx, "/pause_generation", {"mode": "in_place"}, timeout=30)
    request(ctx, "/flush_cache", {}, timeout=30)
    request(ctx, "/continue_generation", {}, timeout=30)
    join(threads, 60)


def s(name: str, what: str, fn) -> Scenario:
    return Scenario(name, "sglang", f"--model-impl transformers; served, then {what}",
                    [*SG], act=sg_serving(fn))


SCENARIOS = [
    v("v-sleep-without-dev-mode", "/sleep?level=1, /is_sleeping, /wake_up on a server started "
      "without the dev-mode variable that exposes them", v_sleep_no_dev, env={}),
    s("s-release-memory-inflight", "/release_memory_occupation (no --enable-memory-saver) while "
      "four 200-token generations run, then /resume_memory_occupation", s_release_inflight),
    v("v-sleep-during-stream", "/sleep?level=1 while two 200-token streaming completions run, "
      "/is_sleeping, /wake_up", v_sleep_during_stream),
    s("s-resume-unreleased", "/resume_memory_occupation on a server whose memory was never "
      "released", s_resume_unreleased),
    v("v-wake-up-twice", "/sleep?level=1, /wake_up, /wake_up again, /is_sleeping",
      v_wake_twice),
    s("s-pause-inplace-flush", "/pause_generation in_place while four 200-token generations "
      "run, /flush_cache while they are paused, /continue_generation", s_pause_inplace_flush),
    v("v-release-kv-cache-no-pause", "/release_kv_cache_memory with the engine not paused or "
      "asleep, /is_sleeping", v_release_kv_no_pause),
]
