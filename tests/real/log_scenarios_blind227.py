"""The two-hundred-and-twenty-seventh batch's scenarios (tests/fixtures/corpus/fresh226): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind227.py OUT

Themes: a Kubernetes manifest's `args` and `env` as the kubelet hands them to the engine - what a
person meets moving a working launch into a Deployment. vLLM: `command: [python3]` with the whole
command line as ONE `args` item (the interpreter takes everything after `-m` as the module's
name); `--max-model-len $(MAX_MODEL_LEN)` with the variable not defined in the container's env
(the kubelet passes the reference literally); `--served-model-name $MODEL_NAME` in shell syntax,
which the kubelet does not expand (the client sends the name meant); VLLM_LOGGING_LEVEL from a
ConfigMap block scalar, 'INFO\\n' with its trailing newline. SGLang: `--port $(SERVER_PORT)` where
the env names the variable otherwise (passed literally); `--enable-metrics=True`, a template
writing back a YAML `on` read as a boolean; `--host $(HOST_IP)` from the downward API's
status.hostIP (the node's address, not the pod's own) where status.podIP was meant.

Earlier batches already had (not repeated): quoted env values (VLLM_CPU_KVCACHE_SPACE="1",
SGLANG_WARMUP_TIMEOUT="600") and VLLM_PORT as a Kubernetes service URI (107th); a model path or a
key read with its trailing newline or CR, misspelt engine env vars, an unquoted `$NAME` split into
words, an unset variable letting a flag meet the next flag, `--host ADDR:PORT` (114th, 157th);
VLLM_LOGGING_LEVEL=LOUD (68th); SGLang `--port http` (75th, the nearest kin of s-port-unexpanded:
the same refusal of a word, here the kubelet's literal reference); `python -m
sglang.launch_server "$SGLANG_ARGS"`, the arguments quoted into one word (224th); a
readOnlyRootFilesystem, probes and grace periods, seccomp, cgroup limits and the OOM killer
(132nd, 143rd, 199th, 216th, 218th); --dist-init-addr unreachable, unresolvable or IPv6 (169th and
before).

Recorded 2026-12-07 in one invocation (raw1, all seven scenarios), waiting turns with other
helpers' recorders; each scenario once. vLLM 0+11+79+11 s, SGLang 10+10+220 s. All seven kept
(final files hd101-hd107); none dropped.

What the engines did. vLLM: the one-item command line ends in the interpreter's one line `Error
while finding module specification for ' vllm.entrypoints.openai.api_server --model ...'
(ModuleNotFoundError: No module named ' vllm')`; `$(MAX_MODEL_LEN)` is refused by argparse
(`invalid human_readable_int_or_auto value: '$(MAX_MODEL_LEN)'`); `$MODEL_NAME` is taken as the
served name (`'served_model_name': ['$MODEL_NAME']`), the intended name gets a bare `404 Not
Found` access line with no message of vLLM's, and the server answers the literal name; 'INFO\\n'
kills the logging set-up (`ValueError: Unknown level: 'INFO\\n'`, then `Unable to configure
handler 'vllm'`). SGLang: `argument --port: invalid int value: '$(SERVER_PORT)'` and `argument
--enable-metrics: ignored explicit argument 'True'` after the whole usage text; with --host
10.0.3.17 the one-node scheduler meets its own c10d store at that address and retries it for ever
(`TCP client failed to connect/validate to host 10.0.3.17:29690 - retrying (try=13,
timeout=1800000ms ...)`: something else answers there, `HTTP` where the store's ping was
expected) until the recorder kills it after 220 s. Crashed at launch: hd101, hd102, hd104, hd105,
hd106; ready in serving: hd103; hung at launch: hd107.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind227")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
HOSTPORT = ["--host", "127.0.0.1", "--port", "{port}"]


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


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


def intended_name_then_served(ctx: Ctx) -> None:
    """The client sends the name the manifest meant (llama-tiny), then the name served."""
    if ctx.wait_any([READY_LINE], 240) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.post("/v1/completions", {"model": "llama-tiny", "prompt": "fox", "max_tokens": 8})
        ctx.complete(1)
        time.sleep(12)
    else:
        linger(ctx, 20)


SCENARIOS = [
    Scenario("v-python-args-one-item", "vllm",
             "Deployment `command: [python3]`, `args:` the whole command line as ONE list item "
             "(`-m vllm.entrypoints.openai.api_server --model ... --port ...`)",
             [" ".join(["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}",
                        *HOSTPORT, *VLLM_BASE])],
             entry="python", act=ends_or_serves),
    Scenario("v-max-len-unexpanded", "vllm",
             "args `--max-model-len $(MAX_MODEL_LEN)` with MAX_MODEL_LEN not defined in the "
             "container's env: the kubelet passes the reference literally",
             ["--dtype", "bfloat16", "--gpu-memory-utilization", "0.25", "--max-model-len",
              "$(MAX_MODEL_LEN)"], act=ends_or_serves),
    Scenario("v-served-name-shell-var", "vllm",
             "args `--served-model-name $MODEL_NAME` (shell syntax, which the kubelet does not "
             "expand; env MODEL_NAME=llama-tiny set); the client sends llama-tiny",
             [*VLLM_BASE, "--served-model-name", "$MODEL_NAME"],
             env={"MODEL_NAME": "llama-tiny"}, act=intended_name_then_served),
    Scenario("v-logging-level-configmap-newline", "vllm",
             "env VLLM_LOGGING_LEVEL from a ConfigMap written as a YAML block scalar "
             "(`|`): the value 'INFO\\n' with its trailing newline",
             VLLM_BASE, env={"VLLM_LOGGING_LEVEL": "INFO\n"}, act=ends_or_serves),
    Scenario("s-port-unexpanded", "sglang",
             "args `--port $(SERVER_PORT)` with SERVER_PORT not defined in the container's env "
             "(the manifest's env names it SGLANG_SERVER_PORT): passed literally",
             [*SG, "--port", "$(SERVER_PORT)"], act=ends_or_serves),
    Scenario("s-bool-flag-equals-true", "sglang",
             "args `--enable-metrics={{ .Values.metrics }}` rendered from a values file whose "
             "`metrics: on` YAML read as a boolean and a Python template wrote `True`",
             [*SG, "--enable-metrics=True"], act=ends_or_serves),
    Scenario("s-host-downward-hostip", "sglang",
             "args `--host $(HOST_IP)` with HOST_IP from the downward API's status.hostIP "
             "(10.0.3.17, the node's address, not this pod's network namespace's)",
             [*SG, "--host", "10.0.3.17"], act=ends_or_serves),
]
