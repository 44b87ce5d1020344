"""The hundred-and-ninety-third batch's scenarios (tests/fixtures/corpus/fresh192): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind193.py OUT

Themes: the clock as the engine reads it - a host whose time is wrong or jumps (a VM restored
from a snapshot, a container with a fake clock, NTP stepping the time), made with libfaketime
(LD_PRELOAD=/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1 in the launched engine's
environment, so every process it starts inherits it). vLLM: a clock running fifty times fast
(FAKETIME="+0 x50", wall and monotonic alike, so the engine's own startup and RPC timeouts run
out fifty times sooner), a clock set to 1975 (before the ZIP format's 1980 epoch; every file on
disk "modified in the future"), and a clock stepped back a day while the server serves
(FAKETIME_TIMESTAMP_FILE rewritten from "+0" to "-1d", the monotonic clock with it). SGLang: a
clock running a hundred times fast (FAKETIME="+0 x100": its 300 s scheduler watchdog is then 3 s
of real time), a clock stepped forward three hours while a long generation runs (the timestamp
file rewritten to "+3h"), and a wall clock set before the epoch (1969-12-31) with the
monotonic clock left real (FAKETIME_DONT_FAKE_MONOTONIC=1).

Earlier batches already had (not repeated): none used faketime or the clock; the engines' own
timers set too small (SGLang's watchdogs, warm-up and request timeouts, vLLM's execute-model
RPC timeout met by a SIGSTOP'd worker, the chat-template render timeout, --shutdown-timeout)
were the 129th batch's - here the timers keep their defaults and the clock moves instead.

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. The
timestamp files live in /tmp/blind193/ (written when this table is loaded and before each
launch); FAKETIME_NO_CACHE=1 makes libfaketime re-read them on every call.

Recorded 2026-12-07 in one invocation (raw1), taking turns with two other helpers' recorders;
each scenario once. About 14 minutes of recording (vLLM 240+54+64 s, SGLang 174+77+240 s). 6
kept (final files fu101-fu106). Dropped: s-tz-nonexistent (TZ=Mars/Olympus_Mons; never
recorded: the recorder was stopped while it waited for the lock, to finish within the time
given - glibc falls back to UTC for an unknown zone, so the log would most likely have shown
nothing of it); removed from the table. v-clock-jump-back-1d is kept although its only trace
is an absence (see below).

What the engines did. A fast clock: vLLM at x50 never came up in 240 s - Inductor's ISA probe
timed out (`VecISA dlopen probe for avx512 ... hung after 60s`, three times), the cached AOT
artifact then failed to rebuild without a vector ISA (a WARNING `Compiling model again due to a
load failure ... reason: C++ compile error`, g++'s `'at::vec' has not been declared`), the model
was compiled again, and the engine core printed `No available shared memory broadcast block
found in 60 seconds` about once a real second (172 times) until the run was killed after `CPU
KV cache size` (incomplete in kv_cache_alloc, three fake hours in the timestamps). SGLang at
x100 came up and served: every duration it reports is inflated (`kv_cache_allocation=9771.48`,
0.01-0.13 token/s), its post-warm-up /freeze_gc call died of `ReadTimeout ... (read timeout=10)`
with a traceback, yet the ready line followed and three completions were answered; its 300 s
watchdog never fired. A clock in 1975 (vLLM) and before the epoch (SGLang, monotonic real):
every process's clock starts at the given instant when the process starts, so the dates run
backwards between processes; vLLM served normally in 1975, but SGLang at 1969-12-31 hung after
`Uvicorn running on` without ever sending its warm-up request (incomplete in warmup). A clock
stepped forward three hours (SGLang): the next lines are dated 3 h later and the next batch's
throughput reads 0.00 token/s; nothing else. A clock stepped back a day (vLLM): all four
completions answered, but vLLM's periodic stats line never came - uvicorn's access lines
carry no dates, so that silence is the step's only trace.
"""

from __future__ import annotations

import sys
import threading
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind193")
LIB = "/usr/lib/x86_64-linux-gnu/faketime/libfaketime.so.1"
SG_READY = "The server is fired up and ready to roll!"
SG_ARGS = ["--device", "cpu", "--model-impl", "transformers"]

ROOT.mkdir(parents=True, exist_ok=True)


def fake(spec: str | None = None, **extra: str) -> dict[str, str]:
    env = {"LD_PRELOAD": LIB, **extra}
    if spec is not None:
        env["FAKETIME"] = spec
    return env


def ts_file(name: str) -> Path:
    return ROOT / f"ts-{name}"


def ts_env(name: str) -> dict[str, str]:
    return fake(FAKETIME_TIMESTAMP_FILE=str(ts_file(name)), FAKETIME_NO_CACHE="1")


def ts_reset(name: str):
    def before(ctx: Ctx) -> None:
        ts_file(name).write_text("+0\n")
    return before


def long_request(ctx: Ctx, tokens: int) -> threading.Thread:
    name = ctx.model_name()
    t = threading.Thread(target=ctx.post, args=("/v1/completions", {
        "model": name, "prompt": "the quick brown fox", "max_tokens": tokens,
        "ignore_eos": True}), kwargs={"timeout": 120}, daemon=True)
    t.start()
    return t


def v_serve(ctx: Ctx) -> None:
    """vLLM: until it ends or is up; if up, three completions and one stats interval."""
    ctx.wait_any([READY_LINE], 240)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(3, max_tokens=24)
        linger(ctx, 14)


def s_serve(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up; if up, three completions and a pause."""
    ctx.wait_any([SG_READY], 240)
    if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in ctx.text():
        ctx.complete(3, max_tokens=24)
        linger(ctx, 14)


def jump_while_serving(name: str, ready: str, to: str, tokens: int) -> callable:
    """Up: two completions, a long generation, the clock stepped to ``to`` while it runs, one
    more completion, a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([ready], 240)
        if ctx.proc is None or ctx.proc.poll() is not None or ready not in ctx.text():
            return
        ctx.complete(2, max_tokens=16)
        t = long_request(ctx, tokens)
        time.sleep(3)
        ts_file(name).write_text(f"{to}\n")
        t.join(90)
        ctx.complete(1, max_tokens=16)
        linger(ctx, 20)
    return act


def v(name: str, what: str, env: dict[str, str], act=v_serve, before=None) -> Scenario:
    return Scenario(name, "vllm", what, list(VLLM_BASE), env=env, act=act, before=before)


def s(name: str, what: str, env: dict[str, str], act=s_serve, before=None) -> Scenario:
    return Scenario(name, "sglang", what, list(SG_ARGS), env=env, act=act, before=before)


FT = "libfaketime preloaded into the engine (LD_PRELOAD)"

SCENARIOS = [
    v("v-clock-x50", f"{FT}, FAKETIME='+0 x50': wall and monotonic clocks run fifty times fast "
      "from the launch", fake("+0 x50")),
    s("s-clock-x100", f"{FT}, FAKETIME='+0 x100': wall and monotonic clocks run a hundred times "
      "fast from the launch", fake("+0 x100")),
    v("v-clock-1975", f"{FT}, FAKETIME='@1975-06-01 12:00:00': the clock set to 1975, before "
      "ZIP's 1980 epoch, every file on disk modified in the future", fake("@1975-06-01 12:00:00")),
    s("s-clock-jump-forward-3h", f"{FT}, FAKETIME_TIMESTAMP_FILE '+0' rewritten to '+3h' (wall "
      "and monotonic) while a 400-token generation runs after two completions",
      ts_env("s-fwd"), jump_while_serving("s-fwd", SG_READY, "+3h", 400), ts_reset("s-fwd")),
    v("v-clock-jump-back-1d", f"{FT}, FAKETIME_TIMESTAMP_FILE '+0' rewritten to '-1d' (wall and "
      "monotonic) while a 200-token generation runs after two completions",
      ts_env("v-back"), jump_while_serving("v-back", READY_LINE, "-1d", 200),
      ts_reset("v-back")),
    s("s-wall-1969-monotonic-real", f"{FT}, FAKETIME='@1969-12-31 20:00:00' with "
      "FAKETIME_DONT_FAKE_MONOTONIC=1: the wall clock before the epoch, the monotonic clock real",
      fake("@1969-12-31 20:00:00", FAKETIME_DONT_FAKE_MONOTONIC="1")),
]
