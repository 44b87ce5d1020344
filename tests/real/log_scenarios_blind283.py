"""The two-hundred-and-eighty-third batch's scenarios (tests/fixtures/corpus/fresh282): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind283.py OUT

Themes: a Kubernetes manifest's `args` and `env` as the kubelet (and the Helm template that
wrote them) hands them to the engine, a new round - what a person meets moving a working launch
into a Deployment. vLLM (VLLM_BASE's settings): `- "--max-model-len 256"`, a flag and its value
in ONE args item (one argv element holding a space); `--max-num-batched-tokens
{{ .Values.maxBatchedTokens }}` with 1000000 in values.yaml, which Helm holds as a float64 and
renders `1e+06`; `--model $(MODEL_PATH)` where the env list defines MODEL_PATH as
`$(MODEL_ROOT)/tiny-llama` before MODEL_ROOT, so the kubelet leaves the inner reference literal;
a Service named `vllm-dp-master` in the namespace, whose service-link variables
(VLLM_DP_MASTER_PORT=tcp://10.96.0.20:29500, VLLM_DP_MASTER_SERVICE_HOST, ...) shadow one of
vLLM's own. SGLang (--device cpu --model-impl transformers): `--chat-template
{{ .Values.chatTemplate }}` with the key missing, rendered `<no value>`; `--tokenizer-path
$(TOKENIZER_PATH)` from a ConfigMap key left empty (an empty argv element); `--api-key
$(API_KEY)` from a secret made from a key file saved with a UTF-8 BOM ('\ufeffk3y'), the
clients sending k3y; `--dtype $(DTYPE)` from a ConfigMap made from a file with Windows line
ends ('bfloat16\r').

Earlier batches already had (not repeated): the whole command line as one args item for
`command: [python3]`, `--max-model-len $(MAX_MODEL_LEN)` and `--port $(SERVER_PORT)` left
literal, `--served-model-name $MODEL_NAME` unexpanded, VLLM_LOGGING_LEVEL 'INFO\n' from a
ConfigMap, `--enable-metrics=True`, `--host $(HOST_IP)` from status.hostIP (227th);
`python -m sglang.launch_server "$SGLANG_ARGS"` quoted into one word (224th); VLLM_PORT as a
Kubernetes service URI and quoted env values (107th); SGLANG_PORT=tcp://10.96.0.12:30000 (77th,
so this batch's first choice, SGLang's own service link, was replaced by s-tokenizer-path-empty
before recording) and SGLANG_PORT as text (80th); VLLM_DP_SIZE/RANK/MASTER_PORT left from an
offline data-parallel job, a number (119th); a model path or a key read with its trailing
newline or CR, misspelt engine env vars, an unquoted `$NAME` split into words (114th, 157th);
config and tokenizer files and request bodies with a BOM (76th, 89th, 244th).

Recorded 2026-12-08 in one invocation (raw1, all eight scenarios), waiting turns with other
helpers' recorders; each scenario once. vLLM 42+8+8+8 s, SGLang 14+14+144+7 s. All eight kept
(final files jh101-jh108); none dropped (SGLang's service-link SGLANG_PORT, first chosen, was
found in the 77th batch and replaced by s-tokenizer-path-empty before anything was recorded).

What the engines did. vLLM: the one-item `--max-model-len 256` was taken as the positional
model_tag (`non-default args: {'model_tag': '--max-model-len 256', ...}`), nothing warned, the
server came up with `Using max model len 2048` and served two completions; `1e+06` is refused by
argparse (`invalid human_readable_int value: '1e+06'`); `$(MODEL_ROOT)/tiny-llama` is no folder,
so it is taken for a hub id and refused (`HFValidationError: Repo id must use alphanumeric chars
...`); the service link's VLLM_DP_MASTER_PORT kills vLLM as it builds its parser, before any flag
is read (`ValidationError: 1 validation error for ParallelConfig ... invalid literal for int()
with base 10: 'tcp://10.96.0.20:29500'`). SGLang: `RuntimeError: Chat template <no value> is not a
built-in template name or a valid chat template file path.`; the empty --tokenizer-path ends in
transformers' `OSError: Repo id must use alphanumeric chars ... : ''.`; with the BOM key the
server loads, allocates its KV cache and starts uvicorn, then its own warm-up request dies in
its thread (`UnicodeEncodeError: 'latin-1' codec can't encode character '\ufeff'`), the ready
line never comes, clients' requests with the plain key get 500 (`TypeError: comparing strings
with non-ASCII characters is not supported` in the auth middleware), one without a key 401 and
/health 503, until the recorder killed it; `argument --dtype: invalid choice: 'bfloat16\r'`.
Crashed at launch: jh102, jh103, jh104, jh105, jh106, jh108; ready in serving: jh101; incomplete
in warmup (the server up but never ready): jh107.
"""

from __future__ import annotations

import sys
import time
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind283")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
BOM = "\ufeff"


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


def model_literal_reference(work: Path) -> Path:
    """`--model $(MODEL_PATH)` where the env list defines MODEL_PATH=$(MODEL_ROOT)/tiny-llama
    before MODEL_ROOT: the kubelet leaves the inner reference literal."""
    return Path("$(MODEL_ROOT)/tiny-llama")


def _get(ctx: Ctx, path: str, key: str | None) -> int:
    headers = {"Authorization": f"Bearer {key}"} if key is not None else {}
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=30) as r:
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except OSError:
        return 0


def clients_with_plain_key(ctx: Ctx) -> None:
    """The clients hold the key as typed (k3y, no BOM): /v1/models and a completion with it,
    one request with no key, then the key again."""
    if ctx.wait_any([READY_LINE], 240) and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.wait_any([SG_READY], 90)
        _get(ctx, "/v1/models", "k3y")
        _get(ctx, "/v1/models", None)
        body = b'{"model": "default", "prompt": "fox", "max_tokens": 8}'
        req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}/v1/completions", data=body,
                                     headers={"Content-Type": "application/json",
                                              "Authorization": "Bearer k3y"})
        try:
            urllib.request.urlopen(req, timeout=60).read()
        except OSError:
            pass
        _get(ctx, "/health", None)
        time.sleep(12)
    else:
        linger(ctx, 20)


# Kubernetes' service-link variables for a Service named NAME on port PORT at ADDR, as the
# kubelet puts them in every container of the namespace (enableServiceLinks defaults to true).
def service_links(name: str, addr: str, port: int) -> dict[str, str]:
    n = name.upper().replace("-", "_")
    return {f"{n}_SERVICE_HOST": addr, f"{n}_SERVICE_PORT": str(port),
            f"{n}_PORT": f"tcp://{addr}:{port}", f"{n}_PORT_{port}_TCP": f"tcp://{addr}:{port}",
            f"{n}_PORT_{port}_TCP_PROTO": "tcp", f"{n}_PORT_{port}_TCP_PORT": str(port),
            f"{n}_PORT_{port}_TCP_ADDR": addr}


SCENARIOS = [
    Scenario("v-max-len-one-item", "vllm",
             "Deployment args list with `- \"--max-model-len 256\"`: the flag and its value "
             "in ONE argv element (the other flags one item each)",
             ["--max-model-len 256", "--dtype", "bfloat16", "--gpu-memory-utilization", "0.25"],
             act=ends_or_serves),
    Scenario("v-batched-tokens-helm-float", "vllm",
             "args `--max-num-batched-tokens {{ .Values.maxBatchedTokens }}` with "
             "maxBatchedTokens: 1000000 in values.yaml: Helm reads it as a float64 and renders "
             "`1e+06`",
             [*VLLM_BASE, "--max-num-batched-tokens", "1e+06"], act=ends_or_serves),
    Scenario("v-model-ref-env-order", "vllm",
             "args `--model $(MODEL_PATH)`; the env list defines MODEL_PATH: "
             "`$(MODEL_ROOT)/tiny-llama` BEFORE MODEL_ROOT, so the kubelet leaves the inner "
             "reference literal: --model '$(MODEL_ROOT)/tiny-llama'",
             VLLM_BASE, model=model_literal_reference, act=ends_or_serves),
    Scenario("v-service-link-dp-master-port", "vllm",
             "a Service named `vllm-dp-master` (port 29500) in the namespace: the kubelet's "
             "service-link variables, VLLM_DP_MASTER_PORT=tcp://10.96.0.20:29500 among them, "
             "in the container's env (enableServiceLinks left on)",
             VLLM_BASE, env=service_links("vllm-dp-master", "10.96.0.20", 29500),
             act=ends_or_serves),
    Scenario("s-chat-template-helm-no-value", "sglang",
             "args `--chat-template {{ .Values.chatTemplate }}` with the key missing from "
             "values.yaml: Helm renders `<no value>`",
             [*SG, "--chat-template", "<no value>"], act=ends_or_serves),
    Scenario("s-tokenizer-path-empty", "sglang",
             "args `--tokenizer-path $(TOKENIZER_PATH)`, TOKENIZER_PATH from a ConfigMap key "
             "left empty (`TOKENIZER_PATH: \"\"`): an empty argv element",
             [*SG, "--tokenizer-path", ""], act=ends_or_serves),
    Scenario("s-api-key-secret-bom", "sglang",
             "args `--api-key $(API_KEY)`, API_KEY from secretKeyRef of a secret made with "
             "`kubectl create secret --from-file` from a key file saved with a UTF-8 BOM "
             "(value '\\ufeffk3y'); the clients send k3y",
             [*SG, "--api-key", BOM + "k3y"], act=clients_with_plain_key),
    Scenario("s-dtype-configmap-cr", "sglang",
             "args `--dtype $(DTYPE)`, DTYPE from a ConfigMap created from a file with Windows "
             "line ends: 'bfloat16\\r'",
             [*SG, "--dtype", "bfloat16\r"], act=ends_or_serves),
]
