"""The ninety-fifth batch's scenarios (tests/fixtures/corpus/fresh94): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind95.py OUT

Themes: a serving server's admin and control endpoints - SGLang's /update_weights_from_disk
(a path that is not there, a folder of truncated weights), /start_profile into a folder it
cannot write, /stop_profile with no profile running, /flush_cache and /abort_request while
requests run, /pause_generation in abort mode with requests in flight, /configure_logging with
values out of range, /load_lora_adapter on a server without LoRA; vLLM's profiler endpoints with
no profiler configured, with an unwritable trace folder, stop without start, and its development
endpoints (VLLM_SERVER_DEV_MODE: /sleep on a server without sleep mode, /reset_prefix_cache
while requests run, /scale_elastic_ep on a server that is not elastic); log and trace
configuration (VLLM_LOGGING_CONFIG_PATH naming bad JSON, a handler class that does not exist, a
file handler in a folder that is not there; SGLang's --log-requests-level out of its choices,
--crash-dump-folder unwritable when the scheduler crashes, --enable-trace to a closed port);
and request values at the server's limits (temperature 1e30, top_k beyond the vocabulary, a
seed beyond 64 bits, max_tokens beyond the context, min above max).

SGLang's own Llama module cannot be built on this host (it imports vllm), so its serving
scenarios run the model through the Transformers backend (--model-impl transformers).
The files the faults need (logging configs, folders) are written under /tmp/blind95/.

Recorded 2026-12-05: v-dev-reset-prefix-inflight was first recorded with two 120-token
completions, which finished before the reset came; re-recorded with six of 230 tokens (the SGLang
in-flight scenarios use the same). s-trace-port-closed never reached its endpoint: this SGLang
environment lacks the OpenTelemetry SDK, so --enable-trace kills the scheduler at init.
s-crash-dump-unwritable leaves the HTTP server up with a dead scheduler (its SIGQUIT handler dies
writing the dump), so the run lasts until the client's two one-minute timeouts.
"""

from __future__ import annotations

import json
import sys
import threading
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
    truncated_shard,
)

BASE = VLLM_BASE
SG = ["--device", "cpu"]
SG_SERVE = [*SG, "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
TMP = Path("/tmp/blind95")
DEV = {"VLLM_SERVER_DEV_MODE": "1"}


def write_file(path: Path, text: str):
    def before(ctx: Ctx) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(text)
    return before


def log_config(handler: dict) -> str:
    return json.dumps({
        "version": 1, "disable_existing_loggers": False,
        "formatters": {"plain": {"format": "%(levelname)s %(asctime)s %(name)s: %(message)s"}},
        "handlers": {"ship": {**handler, "formatter": "plain"}},
        "loggers": {"vllm": {"handlers": ["ship"], "level": "INFO", "propagate": False}},
    }, indent=2)


BAD_JSON = TMP / "logging-bad.json"
NO_CLASS = TMP / "logging-no-class.json"
NO_DIR = TMP / "logging-no-dir.json"


def in_background(ctx: Ctx, path: str, body: dict, n: int = 6) -> list[threading.Thread]:
    ts = [threading.Thread(target=ctx.post, args=(path, body), kwargs={"timeout": 120})
          for _ in range(n)]
    for t in ts:
        t.start()
    return ts


def get(ctx: Ctx, path: str) -> None:
    try:
        urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}{path}", timeout=30).read()
    except OSError:
        pass


# --- vLLM steps ---------------------------------------------------------------------------------

def v_serving(fn):
    """If it serves: a completion, ``fn(ctx, name)``, a completion, a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([READY_LINE], 150)
        if ctx.proc is None or ctx.proc.poll() is not None or READY_LINE not in ctx.text():
            return
        name = ctx.model_name()
        ctx.complete(1)
        fn(ctx, name)
        time.sleep(1)
        ctx.complete(1)
        linger(ctx, 10)
    return act


def v_profile(ctx: Ctx, name: str) -> None:
    ctx.post("/start_profile", {})
    ctx.complete(1)
    ctx.post("/stop_profile", {})


def v_stop_profile(ctx: Ctx, name: str) -> None:
    ctx.post("/stop_profile", {})


def v_sleep(ctx: Ctx, name: str) -> None:
    ctx.post("/sleep?level=1", {})
    get(ctx, "/is_sleeping")
    ctx.complete(1)
    ctx.post("/wake_up", {})


def v_reset_inflight(ctx: Ctx, name: str) -> None:
    ts = in_background(ctx, "/v1/completions", {"model": name, "prompt": "the fox",
                                                "max_tokens": 230, "ignore_eos": True})
    time.sleep(0.4)
    ctx.post("/reset_prefix_cache", {})
    for t in ts:
        t.join(130)


def v_scale_ep(ctx: Ctx, name: str) -> None:
    ctx.post("/scale_elastic_ep", {"new_data_parallel_size": 2, "drain_timeout": 10})
    ctx.post("/is_scaling_elastic_ep", {})


def v_extremes(ctx: Ctx, name: str) -> None:
    base = {"model": name, "prompt": "the quick brown fox", "max_tokens": 8}
    ctx.post("/v1/completions", {**base, "temperature": 1e30})
    ctx.post("/v1/completions", {**base, "top_k": 1000000})
    ctx.post("/v1/completions", {**base, "seed": 2 ** 70})
    ctx.post("/v1/completions", {**base, "max_tokens": 1000000})
    ctx.post("/v1/completions", {**base, "presence_penalty": 1e30, "frequency_penalty": -1e30})
    ctx.post("/v1/completions", {**base, "min_tokens": 50, "max_tokens": 4})


# --- SGLang steps -------------------------------------------------------------------------------

def sg_generate(ctx: Ctx, n: int = 2, **extra: object) -> None:
    for i in range(n):
        ctx.post("/generate", {"text": f"fox {i}",
                               "sampling_params": {"max_new_tokens": 8, **extra}})


def sg_serving(fn):
    """If it serves: a generation, ``fn(ctx)``, a generation, a pause."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([SG_READY], 180)
        if ctx.proc is None or ctx.proc.poll() is not None or SG_READY not in ctx.text():
            linger(ctx, 5)
            return
        sg_generate(ctx, 1)
        fn(ctx)
        time.sleep(1)
        sg_generate(ctx, 1)
        linger(ctx, 10)
    return act


LONG = {"text": "the fox", "sampling_params": {"max_new_tokens": 230, "ignore_eos": True}}


def s_update_missing(ctx: Ctx) -> None:
    ctx.post("/update_weights_from_disk", {"model_path": "/models/llama-next/no-such-folder"})


def s_update_truncated(ctx: Ctx) -> None:
    d = truncated_shard(ctx.work)
    ctx.post("/update_weights_from_disk", {"model_path": str(d)}, timeout=120)


def s_profile_unwritable(ctx: Ctx) -> None:
    ctx.post("/start_profile", {"output_dir": "/proc/sglang-profile"})
    sg_generate(ctx, 1)
    ctx.post("/stop_profile", {})


def s_stop_profile(ctx: Ctx) -> None:
    ctx.post("/stop_profile", {})


def s_flush_inflight(ctx: Ctx) -> None:
    ts = in_background(ctx, "/generate", LONG)
    time.sleep(0.4)
    ctx.post("/flush_cache", {})
    for t in ts:
        t.join(130)


def s_pause_abort(ctx: Ctx) -> None:
    ts = in_background(ctx, "/generate", LONG)
    time.sleep(0.4)
    ctx.post("/pause_generation", {"mode": "abort"})
    for t in ts:
        t.join(130)
    ctx.post("/continue_generation", {})


def s_abort_all(ctx: Ctx) -> None:
    ts = in_background(ctx, "/generate", LONG)
    time.sleep(0.4)
    ctx.post("/abort_request", {"abort_all": True})
    for t in ts:
        t.join(130)


def s_configure_logging(ctx: Ctx) -> None:
    ctx.post("/configure_logging", {"log_requests": True, "log_requests_level": 9,
                                    "dump_requests_folder": "/proc/sglang-dump",
                                    "dump_requests_threshold": 1})
    sg_generate(ctx, 2)


def s_lora_off(ctx: Ctx) -> None:
    ctx.post("/load_lora_adapter", {"lora_name": "sql", "lora_path": "/models/lora/sql-adapter"})
    ctx.post("/generate", {"text": "fox", "lora_path": "sql",
                           "sampling_params": {"max_new_tokens": 8}})


def s_set_internal_state(ctx: Ctx) -> None:
    ctx.post("/set_internal_state", {"server_args": {"max_running_requests": "many",
                                                     "chunked_prefill_size": -5}})


def s_crash_with_dump(ctx: Ctx) -> None:
    ctx.post("/generate", {"text": "the quick brown fox", "return_logprob": True,
                           "top_logprobs_num": 100000, "sampling_params": {"max_new_tokens": 4}})


def s_extremes(ctx: Ctx) -> None:
    sp = {"max_new_tokens": 8}
    for extra in ({"temperature": 1e30}, {"top_k": 1000000}, {"sampling_seed": 2 ** 70},
                  {"max_new_tokens": 1000000}, {"min_new_tokens": 50, "max_new_tokens": 4},
                  {"frequency_penalty": 1e30}):
        ctx.post("/generate", {"text": "the quick brown fox", "sampling_params": {**sp, **extra}})


SCENARIOS = [
    # --- vLLM ---------------------------------------------------------------------------------
    Scenario("v-logconf-bad-json", "vllm", "VLLM_LOGGING_CONFIG_PATH naming a logging config "
             "whose JSON is cut (a trailing comma and no closing brace)", BASE,
             env={"VLLM_LOGGING_CONFIG_PATH": str(BAD_JSON)},
             before=write_file(BAD_JSON, log_config({"class": "logging.StreamHandler"})[:-40]
                               + ","), act=v_serving(lambda c, n: None)),
    Scenario("v-logconf-handler-missing", "vllm", "VLLM_LOGGING_CONFIG_PATH naming a logging "
             "config whose handler class (acme_logship.ShipHandler) is not installed", BASE,
             env={"VLLM_LOGGING_CONFIG_PATH": str(NO_CLASS)},
             before=write_file(NO_CLASS, log_config({"class": "acme_logship.ShipHandler"})),
             act=v_serving(lambda c, n: None)),
    Scenario("v-logconf-dir-missing", "vllm", "VLLM_LOGGING_CONFIG_PATH naming a logging config "
             "whose FileHandler writes into a folder that is not there", BASE,
             env={"VLLM_LOGGING_CONFIG_PATH": str(NO_DIR)},
             before=write_file(NO_DIR, log_config({"class": "logging.FileHandler",
                                                   "filename": "/var/log/vllm-nosuch/api.log"})),
             act=v_serving(lambda c, n: None)),
    Scenario("v-profile-not-configured", "vllm", "served; /start_profile, a completion and "
             "/stop_profile on a server started without --profiler-config", BASE,
             act=v_serving(v_profile)),
    Scenario("v-profile-dir-unwritable", "vllm", "--profiler-config with the torch profiler "
             "writing into /proc/vllm-profile (cannot be created); /start_profile, a "
             "completion, /stop_profile",
             [*BASE, "--profiler-config",
              '{"profiler": "torch", "torch_profiler_dir": "/proc/vllm-profile"}'],
             act=v_serving(v_profile)),
    Scenario("v-stop-profile-unstarted", "vllm", "--profiler-config torch into a writable "
             "folder; /stop_profile with no profile started",
             [*BASE, "--profiler-config",
              '{"profiler": "torch", "torch_profiler_dir": "/tmp/blind95/vllm-profile"}'],
             act=v_serving(v_stop_profile)),
    Scenario("v-dev-sleep-no-mode", "vllm", "VLLM_SERVER_DEV_MODE=1 without "
             "--enable-sleep-mode; /sleep?level=1, /is_sleeping, a completion, /wake_up", BASE,
             env=DEV, act=v_serving(v_sleep)),
    Scenario("v-dev-reset-prefix-inflight", "vllm", "VLLM_SERVER_DEV_MODE=1; "
             "/reset_prefix_cache while six 230-token completions run", BASE, env=DEV,
             act=v_serving(v_reset_inflight)),
    Scenario("v-dev-scale-elastic-ep", "vllm", "VLLM_SERVER_DEV_MODE=1; /scale_elastic_ep to "
             "data-parallel size 2 on a server launched without elastic EP", BASE, env=DEV,
             act=v_serving(v_scale_ep)),
    Scenario("v-request-extremes", "vllm", "served; completions with temperature 1e30, top_k "
             "1e6, seed 2**70, max_tokens 1e6 (context 256), penalties +-1e30, min_tokens "
             "above max_tokens", BASE, act=v_serving(v_extremes)),
    # --- SGLang -------------------------------------------------------------------------------
    Scenario("s-update-weights-missing", "sglang", "--model-impl transformers; served, then "
             "/update_weights_from_disk naming a folder that is not there", SG_SERVE,
             act=sg_serving(s_update_missing)),
    Scenario("s-update-weights-truncated", "sglang", "--model-impl transformers; served, then "
             "/update_weights_from_disk naming a copy of the model whose last shard is cut in "
             "half", SG_SERVE, act=sg_serving(s_update_truncated)),
    Scenario("s-profile-dir-unwritable", "sglang", "--model-impl transformers; served, then "
             "/start_profile with output_dir /proc/sglang-profile, a generation, /stop_profile",
             SG_SERVE, act=sg_serving(s_profile_unwritable)),
    Scenario("s-stop-profile-unstarted", "sglang", "--model-impl transformers; served, then "
             "/stop_profile with no profile started", SG_SERVE, act=sg_serving(s_stop_profile)),
    Scenario("s-flush-cache-inflight", "sglang", "--model-impl transformers; /flush_cache while "
             "six 230-token generations run", SG_SERVE, act=sg_serving(s_flush_inflight)),
    Scenario("s-pause-abort-inflight", "sglang", "--model-impl transformers; "
             "/pause_generation in abort mode while six 230-token generations run, then "
             "/continue_generation", SG_SERVE, act=sg_serving(s_pause_abort)),
    Scenario("s-abort-all-inflight", "sglang", "--model-impl transformers; /abort_request "
             "with abort_all while six 230-token generations run", SG_SERVE,
             act=sg_serving(s_abort_all)),
    Scenario("s-configure-logging-bad", "sglang", "--model-impl transformers; "
             "/configure_logging with log_requests_level 9 and a dump folder under /proc "
             "(threshold 1), then generations", SG_SERVE, act=sg_serving(s_configure_logging)),
    Scenario("s-lora-load-lora-off", "sglang", "--model-impl transformers; /load_lora_adapter "
             "on a server launched without --enable-lora, then a generation naming it",
             SG_SERVE, act=sg_serving(s_lora_off)),
    Scenario("s-log-requests-level-9", "sglang", "--log-requests --log-requests-level 9 "
             "(the levels are 0-3)", [*SG_SERVE, "--log-requests", "--log-requests-level", "9"],
             act=sg_serving(lambda c: None)),
    Scenario("s-crash-dump-unwritable", "sglang", "--model-impl transformers; "
             "--crash-dump-folder /proc/sglang-crash (cannot be created); then a request that "
             "crashes the scheduler (top_logprobs_num 100000)",
             [*SG_SERVE, "--crash-dump-folder", "/proc/sglang-crash"],
             act=sg_serving(s_crash_with_dump)),
    Scenario("s-trace-port-closed", "sglang", "--model-impl transformers; --enable-trace with "
             "--otlp-traces-endpoint 127.0.0.1:9 (nothing listens); two generations",
             [*SG_SERVE, "--enable-trace", "--otlp-traces-endpoint", "127.0.0.1:9"],
             act=sg_serving(lambda c: sg_generate(c, 1))),
    Scenario("s-request-extremes", "sglang", "--model-impl transformers; generations with "
             "temperature 1e30, top_k 1e6, sampling_seed 2**70, max_new_tokens 1e6, "
             "min_new_tokens above max_new_tokens, frequency_penalty 1e30", SG_SERVE,
             act=sg_serving(s_extremes)),
]
