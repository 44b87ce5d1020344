"""The two-hundred-and-fifty-seventh batch's scenarios (tests/fixtures/corpus/fresh256): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind257.py OUT

Themes: observability as an SRE wires it up, a new round - tracing, metrics and logging settings
on a launch that otherwise serves, then a few completions and two scrapes of /metrics where it
comes up. vLLM: --otlp-traces-endpoint given host:port with no scheme (SGLang's form of the same
flag), no collector listening; --collect-detailed-traces given a guessed module name (scheduler)
beside an endpoint; PROMETHEUS_MULTIPROC_DIR naming an empty read-only mount (a pod's readOnly
volume, a 1 MiB tmpfs mounted ro by this table for the run); VLLM_LOGGING_LEVEL=10 (Python's
numeric DEBUG). SGLang: --enable-metrics --extra-metric-labels env=prod (key=value where the flag
takes JSON); --enable-metrics --bucket-e2e-request-latency 0.5,1,5,30 (one comma-separated word);
--enable-metrics --tokenizer-metrics-allowed-custom-labels without
--tokenizer-metrics-custom-labels-header; --collect-tokens-histogram without --enable-metrics.

Earlier batches already had (not repeated): an OTLP endpoint nothing listens on (72nd, with a
scheme), a collector that stalls, OTEL_EXPORTER_OTLP_TRACES_PROTOCOL=http/json and
--collect-detailed-traces with no endpoint (137th); SGLang --enable-trace to a closed port (95th);
PROMETHEUS_MULTIPROC_DIR missing (70th), a regular file (86th), holding an earlier server's files
(93rd), deleted while serving (99th), full (146th) and, for SGLang only, a sysfs folder no process
may write (208th); --bucket-time-to-first-token and --custom-histogram-buckets decreasing (137th),
--prompt-tokens-buckets with units (91st); --log-requests-level 9 and 3, --crash-dump-folder
unwritable and with a killed scheduler, --max-log-len 0, --log-requests-target unmakeable (95th,
137th, 168th, 116th); --enable-request-time-stats-logging (137th); VLLM_LOGGING_LEVEL LOUD,
DEBUG, WARNING and from a ConfigMap with a newline (68th, 104th, 137th, 227th),
VLLM_LOGGING_CONFIG_PATH faults of many kinds (67th, 95th, 104th, 113th, 137th); --disable-log-stats
with per-request metrics (202nd); --metrics-port text and taken (83rd, 86th).

Recorded 2026-12-07 in one invocation (raw1), waiting turns with other helpers' recorders; each
scenario once. About 3.5 minutes of recording (vLLM 49+9+39+9 s, SGLang 8+6+62+8 s). 8 kept
(final files ih101-ih108), none dropped; two faults never showed and are kept as fair ready logs
of the ground: v-otlp-endpoint-no-scheme (the gRPC exporter takes host:port as it is) and
s-custom-labels-without-header (the header flag has a default, x-custom-labels).

What the engines did. vLLM: the endpoint without a scheme is dialled as given: ten OpenTelemetry
exporter lines (`Transient error StatusCode.UNAVAILABLE encountered while exporting traces to
127.0.0.1:4317`, `Failed to export traces ... Connection refused`) among an ordinary startup, three
completions and two /metrics 200s - it serves; the guessed module ends in argparse's `invalid
choice: 'scheduler' (choose from 'all', 'model', 'worker', None)` at once; the read-only
Prometheus folder lets the engine come up (`init engine (profile, create kv cache, warmup model)
took 10.68 s`) and the API server dies building its stat loggers (`OSError: [Errno 30] Read-only
file system: '/tmp/blind257/prom-ro/counter_20858.db'` from prometheus_client's MmapedDict), the
engine core shut down after it; VLLM_LOGGING_LEVEL=10 dies before the banner in dictConfig
(`ValueError: Unknown level: '10'`, `Unable to configure handler 'vllm'`). SGLang: the key=value
labels and the comma-separated buckets end in argparse's usage and `invalid loads value:
'env=prod'` / `invalid float value: '0.5,1,5,30'`; the allowed custom labels without the header
flag serve (the header defaults to x-custom-labels), answering three completions and two /metrics
scrapes; --collect-tokens-histogram is not a flag of 0.5.23 (`unrecognized arguments:
--collect-tokens-histogram`). Crashed at launch: ih102, ih104, ih105, ih106, ih108; crashed in
warmup: ih103; ready in serving: ih101, ih107; none hung.
"""

from __future__ import annotations

import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind257")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
PROM_RO = ROOT / "prom-ro"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def scrape(ctx: Ctx) -> None:
    """One GET of /metrics, as a Prometheus scraper does; its answer is not kept."""
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}/metrics", timeout=15) as r:
            r.read()
    except OSError:
        pass


def serve_and_scrape(ctx: Ctx) -> None:
    """If it comes up: three completions, two scrapes of /metrics, a pause; else let it end."""
    sglang = "sglang" in ctx.text().split("\n", 1)[0]
    ready = ctx.wait_for(SG_READY, 300) if sglang else up(ctx, 300)
    if ready and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(3, max_tokens=16)
        scrape(ctx)
        time.sleep(6)
        scrape(ctx)
        time.sleep(8)
    else:
        linger(ctx, 20)


def mount_ro_prom(ctx: Ctx) -> None:
    """An empty read-only tmpfs at PROM_RO, as a readOnly volume mount in a pod."""
    PROM_RO.mkdir(parents=True, exist_ok=True)
    subprocess.run(["umount", "-l", str(PROM_RO)], capture_output=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "tmpfs", str(PROM_RO)],
                   check=True)


def serve_scrape_unmount(ctx: Ctx) -> None:
    try:
        serve_and_scrape(ctx)
    finally:
        subprocess.run(["umount", "-l", str(PROM_RO)], capture_output=True)


SCENARIOS = [
    Scenario("v-otlp-endpoint-no-scheme", "vllm",
             "--otlp-traces-endpoint 127.0.0.1:4317 (host:port with no scheme, as SGLang's "
             "flag of the same name takes it; no collector listens), then completions and "
             "/metrics scrapes",
             [*VLLM_BASE, "--otlp-traces-endpoint", "127.0.0.1:4317"], act=serve_and_scrape),
    Scenario("v-detailed-traces-module-guess", "vllm",
             "--collect-detailed-traces scheduler (a module name guessed; vLLM takes model, "
             "worker, all) beside --otlp-traces-endpoint http://127.0.0.1:4317",
             [*VLLM_BASE, "--otlp-traces-endpoint", "http://127.0.0.1:4317",
              "--collect-detailed-traces", "scheduler"], act=serve_and_scrape),
    Scenario("v-prom-dir-readonly-mount", "vllm",
             "PROMETHEUS_MULTIPROC_DIR naming an empty read-only mount (a readOnly volume), "
             "then completions and /metrics scrapes",
             [*VLLM_BASE], env={"PROMETHEUS_MULTIPROC_DIR": str(PROM_RO)},
             before=mount_ro_prom, act=serve_scrape_unmount),
    Scenario("v-logging-level-numeric", "vllm",
             "VLLM_LOGGING_LEVEL=10 (Python's numeric value of DEBUG, as a logging config "
             "elsewhere takes it)",
             [*VLLM_BASE], env={"VLLM_LOGGING_LEVEL": "10"}, act=serve_and_scrape),
    Scenario("s-extra-metric-labels-key-value", "sglang",
             "--enable-metrics --extra-metric-labels env=prod (key=value, where the flag takes "
             "a JSON object)",
             [*SG, "--enable-metrics", "--extra-metric-labels", "env=prod"],
             act=serve_and_scrape),
    Scenario("s-e2e-buckets-comma-list", "sglang",
             "--enable-metrics --bucket-e2e-request-latency 0.5,1,5,30 (one comma-separated "
             "word, where the flag takes space-separated floats)",
             [*SG, "--enable-metrics", "--bucket-e2e-request-latency", "0.5,1,5,30"],
             act=serve_and_scrape),
    Scenario("s-custom-labels-without-header", "sglang",
             "--enable-metrics --tokenizer-metrics-allowed-custom-labels tenant without "
             "--tokenizer-metrics-custom-labels-header",
             [*SG, "--enable-metrics", "--tokenizer-metrics-allowed-custom-labels", "tenant"],
             act=serve_and_scrape),
    Scenario("s-tokens-histogram-no-metrics", "sglang",
             "--collect-tokens-histogram without --enable-metrics (the histogram asked for, "
             "the metrics it belongs to not), then completions and /metrics scrapes",
             [*SG, "--collect-tokens-histogram"],
             act=serve_and_scrape),
]
