"""The hundred-and-thirty-seventh batch's scenarios (tests/fixtures/corpus/fresh136): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind137.py OUT

Themes: observability settings - what a person turns on to watch a server, set wrong or met by
load. vLLM: --collect-detailed-traces with no --otlp-traces-endpoint; an OTLP endpoint with
OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json (a protocol the OpenTelemetry spec names, vLLM does
not take); an OTLP collector that accepts the connection and never answers; a logging config
(VLLM_LOGGING_CONFIG_PATH) whose format names a record field (%(request_id)s) that log records do
not have; VLLM_CONFIGURE_LOGGING=0 left in an environment that also sets VLLM_LOGGING_CONFIG_PATH;
--custom-histogram-buckets whose bounds decrease; VLLM_LOGGING_LEVEL=DEBUG with a burst of
traffic. SGLang: --decode-log-interval 0 (meant as "do not log decode batches"); --enable-metrics
with --bucket-time-to-first-token bounds that decrease; --log-requests --log-requests-level 3
with long prompts.

Earlier batches already had (not repeated): PROMETHEUS_MULTIPROC_DIR missing, a file, leftover
(70th, 86th, 93rd, 99th); an OTLP endpoint nothing listens on (72nd); /metrics scraped every
0.2 s during a burst (111th); VLLM_LOGGING_CONFIG_PATH missing (67th), bad JSON, a handler class
that does not exist, a file handler in a missing folder (95th), a valid JSON/ISO config (104th),
a file handler on a full disk (113th); VLLM_LOGGING_LEVEL=LOUD and --log-level LOUD (68th);
VLLM_CONFIGURE_LOGGING=0 alone (77th); VLLM_LOGGING_STREAM and --uvicorn-log-level bogus (83rd);
--log-level debug with the port taken, --log-requests with a stopped scheduler (104th);
--log-requests-level 9, --crash-dump-folder unwritable, --enable-trace (95th);
--log-requests-target unmakeable, --log-level-http bogus (116th); --metrics-port text (83rd) or
taken (86th); --prompt-tokens-buckets with units (91st).

vLLM runs with VLLM_BASE's settings; SGLang with
--device cpu --model-impl transformers, with which it serves here. Helper files (logging configs)
are written under /tmp/blind137/ when this table is loaded; the stalled collector is a socket this
table binds and listens on (backlog only, never accepted) for the run.

Recorded 2026-12-06 in four invocations (raw1: v-detailed-traces-no-endpoint,
v-otlp-protocol-http-json; raw2: v-otlp-collector-stalls, v-logconf-missing-field; raw3:
v-debug-level-burst, s-log-requests-level-3-long; raw4: v-configure-logging-0-with-config,
v-histogram-buckets-decreasing, s-decode-log-interval-0, s-ttft-buckets-decreasing), taking
turns with seven other recorders of three other helpers; each scenario once. About 8 minutes of
recording (vLLM 11+9+72+240+43+8+8 s, SGLang 55+45+14 s) in some 37 minutes of waiting for the
lock. 10 kept (final files dp101-dp110). Dropped, never recorded for the time budget (the shared
lock gave this table about one turn in four; removed from SCENARIOS): s-export-metrics-dir-
unmakeable (--export-metrics-to-file with --export-metrics-to-file-dir /proc/sglang-metrics),
s-debug-level-traffic (--log-level debug with three generations and a completion) and
s-request-time-stats-logging (--enable-request-time-stats-logging with a short generation,
three 940-token prompts at once and a completion). So the batch has seven vLLM logs and three
SGLang ones, one SGLang short of the brief's four.

What the engines did: vLLM refuses --collect-detailed-traces without an endpoint and decreasing
--custom-histogram-buckets in its config validation (pydantic `ValidationError: 1 validation
error for ObservabilityConfig`, launch, ~10 s), OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json as
AsyncLLM builds its tracer (`ValueError: Unsupported OTLP protocol 'http/json' is configured`),
and VLLM_CONFIGURE_LOGGING=0 beside VLLM_LOGGING_CONFIG_PATH before its first log line
(`RuntimeError: Logging configuration is disabled, but a Python logging config file was
given.`). A collector that takes the connection and never answers costs vLLM nothing but
`Failed to export traces ... StatusCode.DEADLINE_EXCEEDED` and `connection attempt timed out
before receiving SETTINGS frame` lines while it serves. A format naming %(request_id)s turns
every vLLM record into a `--- Logging error ---` block (`ValueError: Formatting field not found
in record: 'request_id'`, then `Message:`/`Arguments:`), and uvicorn's own lines vanish too, so
the recorder, waiting for `Application startup complete`, never sent a request: the log ends,
after 240 s, on the last route's block, with the engine up (`init engine ... took` as a Message
line; /health answered 200 from outside). VLLM_LOGGING_LEVEL=DEBUG adds DEBUG tracebacks of the
missing chat template and per-step worker lines, and serves. SGLang takes --decode-log-interval
0 and dies on the warmup request's first decode (`ZeroDivisionError: integer modulo by zero` in
`report_decode_stats`, then `SIGQUIT received`); decreasing --bucket-time-to-first-token kills
the launcher in prometheus_client (`ValueError: Buckets not in sorted order`) before any
scheduler line; --log-requests-level 3 logs every prompt and output whole (lines up to 19,173
characters) and serves.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind137")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
# about 940 tokens
LONG_PROMPT = " ".join(f"fox{i % 97} jumps over the lazy dog" for i in range(120))
STALL_PORT = 43137

LOGCONF_FIELD = ROOT / "vllm-logging-request-id.json"
LOGCONF_OK = ROOT / "vllm-logging-plain.json"


def _log_config(fmt: str) -> str:
    return json.dumps({
        "version": 1, "disable_existing_loggers": False,
        "formatters": {"plain": {"format": fmt}},
        "handlers": {"console": {"class": "logging.StreamHandler", "formatter": "plain",
                                 "stream": "ext://sys.stdout"}},
        "loggers": {"vllm": {"handlers": ["console"], "level": "INFO", "propagate": False}},
    }, indent=2)


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    LOGCONF_FIELD.write_text(_log_config(
        "%(asctime)s %(levelname)s [%(request_id)s] %(name)s: %(message)s"))
    LOGCONF_OK.write_text(_log_config("%(asctime)s %(levelname)s %(name)s: %(message)s"))


_setup()


# --- requests ----------------------------------------------------------------------------------

def request(ctx: Ctx, path: str, body: dict, timeout: float = 90) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def together(ctx: Ctx, calls: list[tuple[str, dict]], timeout: float = 90) -> None:
    ts = [threading.Thread(target=request, args=(ctx, p, b, timeout), daemon=True)
          for p, b in calls]
    for t in ts:
        t.start()
    for t in ts:
        t.join(timeout + 5)


# --- acts ----------------------------------------------------------------------------------------

def v_act(traffic: Callable[[Ctx], None], pause: float = 12) -> Callable[[Ctx], None]:
    """Until the run ends or is up (then ``traffic``, a pause)."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([READY_LINE], 240)
        if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
            traffic(ctx)
            linger(ctx, pause)
    return act


def s_act(traffic: Callable[[Ctx], None], pause: float = 10) -> Callable[[Ctx], None]:
    """SGLang: until it ends or is fired up (then ``traffic``, a pause)."""
    def act(ctx: Ctx) -> None:
        ctx.wait_any([SG_READY], 200)
        if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in ctx.text():
            traffic(ctx)
            linger(ctx, pause)
    return act


def v_three(ctx: Ctx) -> None:
    ctx.complete(3, max_tokens=24)


def v_burst(ctx: Ctx) -> None:
    name = ctx.model_name()
    ctx.complete(1, max_tokens=16)
    together(ctx, [("/v1/completions", {"model": name, "prompt": f"the fox {i}",
                                        "max_tokens": 32}) for i in range(4)])
    ctx.complete(1, max_tokens=16)


def s_gen(ctx: Ctx) -> None:
    for i in range(3):
        request(ctx, "/generate", {"text": f"the fox {i}",
                                   "sampling_params": {"max_new_tokens": 24}})
    ctx.complete(1, max_tokens=16)


def s_long(ctx: Ctx) -> None:
    request(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
    together(ctx, [("/generate", {"text": LONG_PROMPT, "sampling_params": {
        "max_new_tokens": 32}})] * 3)
    ctx.complete(1, max_tokens=16)


def stalled_collector(ctx: Ctx) -> None:
    """A collector that takes connections (the kernel's backlog) and never answers."""
    s = socket.socket()
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.bind(("127.0.0.1", STALL_PORT))
    s.listen(16)
    ctx.keep.append(s)


def v(name: str, what: str, args: list[str], traffic: Callable[[Ctx], None] = v_three,
      pause: float = 12, **kw: object) -> Scenario:
    return Scenario(name, "vllm", what, args, act=v_act(traffic, pause), **kw)  # type: ignore[arg-type]


def s(name: str, what: str, args: list[str], traffic: Callable[[Ctx], None] = s_gen,
      **kw: object) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=s_act(traffic), **kw)  # type: ignore[arg-type]


SCENARIOS = [
    # vLLM
    v("v-detailed-traces-no-endpoint", "--collect-detailed-traces all with no "
      "--otlp-traces-endpoint (detailed traces turned on, nowhere to send them)",
      [*VLLM_BASE, "--collect-detailed-traces", "all"]),
    v("v-otlp-protocol-http-json", "--otlp-traces-endpoint http://127.0.0.1:4318/v1/traces with "
      "OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json (a protocol vLLM's exporter does not take)",
      [*VLLM_BASE, "--otlp-traces-endpoint", "http://127.0.0.1:4318/v1/traces"],
      env={"OTEL_EXPORTER_OTLP_TRACES_PROTOCOL": "http/json"}),
    v("v-otlp-collector-stalls", f"--otlp-traces-endpoint http://127.0.0.1:{STALL_PORT}, a "
      "collector that accepts the TCP connection and never answers; three completions, then "
      "35 s for the exporter", [*VLLM_BASE, "--otlp-traces-endpoint",
                                f"http://127.0.0.1:{STALL_PORT}"],
      pause=35, before=stalled_collector),
    v("v-logconf-missing-field", "VLLM_LOGGING_CONFIG_PATH naming a config whose format has "
      "%(request_id)s, a field log records do not carry; three completions", VLLM_BASE,
      env={"VLLM_LOGGING_CONFIG_PATH": str(LOGCONF_FIELD)}),
    v("v-configure-logging-0-with-config", "VLLM_CONFIGURE_LOGGING=0 left in an environment that "
      "also sets VLLM_LOGGING_CONFIG_PATH (a valid config file)", VLLM_BASE,
      env={"VLLM_CONFIGURE_LOGGING": "0", "VLLM_LOGGING_CONFIG_PATH": str(LOGCONF_OK)}),
    v("v-histogram-buckets-decreasing", "--custom-histogram-buckets with time-to-first-token "
      "bounds that decrease ([1, 0.5, 0.1])",
      [*VLLM_BASE, "--custom-histogram-buckets", '{"time_to_first_token": [1, 0.5, 0.1]}']),
    v("v-debug-level-burst", "VLLM_LOGGING_LEVEL=DEBUG; a completion, four at once, one more",
      VLLM_BASE, traffic=v_burst, env={"VLLM_LOGGING_LEVEL": "DEBUG"}),
    # SGLang
    s("s-decode-log-interval-0", "--decode-log-interval 0 (meant as: no decode-batch log "
      "lines); three generations", ["--decode-log-interval", "0"]),
    s("s-ttft-buckets-decreasing", "--enable-metrics --bucket-time-to-first-token 1 0.5 0.1 "
      "(bounds that decrease)", ["--enable-metrics", "--bucket-time-to-first-token", "1", "0.5",
                                 "0.1"]),
    s("s-log-requests-level-3-long", "--log-requests --log-requests-level 3 (every input and "
      "output in full); a short generation, three 940-token prompts at once, a completion",
      ["--log-requests", "--log-requests-level", "3"], traffic=s_long),
]
