"""The hundred-and-forty-ninth batch's scenarios (tests/fixtures/corpus/fresh148): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind149.py OUT

Themes: request fields that switch on an engine feature the server was not started for, or that
clash with how it was started - what clients written against another deployment send. SGLang
(native /generate and its OpenAI routes): return_hidden_states without
--enable-return-hidden-states; a custom_logit_processor without --enable-custom-logit-processor,
and one that raises (it reads a custom_params key the request does not send) on a server started
with the flag; a session_params naming a session never opened; the same rid sent twice at once.
vLLM: kv_transfer_params of a disaggregated prefill sent to a server with no KV connector;
vllm_xargs carrying kv_transfer_params as a string (a client that passes every extra argument
as text); cache_salt empty and of the wrong type.

Earlier batches already had (not repeated): input_embeds of the wrong width and priority on a
server with --abort-on-priority-when-disabled (128th, SGLang), priority without priority
scheduling in vLLM (128th, dropped: the log shows nothing), a reused X-Request-Id (116th),
prompt_logprobs past the limit (94th), LoRA adapters at runtime and lora_path / a LoRA model
name not loaded (67th, 74th, 95th, 134th), a model name the server does not serve (every
serve_bad_requests run), tools and structured output (67th, 74th, 91st, 116th, 120th),
bootstrap_host/room (105th, 127th).

SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings. Each
scenario first sets SIGINT and SIGQUIT back to their default actions (dfl_signals, as the 133rd
table does): SGLang's launcher is told of a dead child by SIGQUIT, which a recorder started in the
background would otherwise leave ignored. The serialized logit processors are written by
SGLang's own interpreter (dill) to /tmp/blind149/ when this table is loaded.

Recorded 2026-12-06 in one invocation (raw1: all eight, taking turns with two other helpers'
recorders); each scenario once. About 8 minutes of recording (SGLang 58+60+85+69+51 s, vLLM
45+51+57 s). 8 kept (final files eb101-eb108). Dropped: none recorded; not recorded, to keep
within the time given and off earlier batches' ground: SGLang lora_path on a server without
LoRA, bootstrap_host/room, priority; vLLM priority without --scheduling-policy priority, a reused
X-Request-Id, a LoRA model name not loaded, prompt_logprobs past the limit (all earlier batches').
What the engines did: only one request here killed an engine - SGLang with
--enable-custom-logit-processor runs the client's processor inside the scheduler's sampler, so
a processor that raises (`TypeError: 'NoneType' object is not subscriptable`, in `File
"<string>"`) ends in `Scheduler hit an exception`, `SIGQUIT received ... It usually means one
child failed.` and kill_process_tree while serving. Every other request was refused or served
and the server served on (ready in serving): SGLang answers return_hidden_states and
custom_logit_processor without their flags with `[http_server] Error: The server is not
configured to ...` and 400 on /generate, but a bare 400 (only a FastAPIDeprecationWarning) on
/v1/completions; a session never opened gives the scheduler's `Invalid request: session id ...
does not exist` and 400; the same rid twice at once gives `Duplicate request ID detected:
job-42` and 400 for the second while the first runs to the end. vLLM serves kv_transfer_params
without a connector with one engine-core warning a request (`Got kv_transfer_params, but no
KVConnector found. Disabling KVTransfer for this request.`); vllm_xargs carrying
kv_transfer_params as a string is a bare `500 Internal Server Error` access line with no
traceback or warning (the request never reached the engine core); an empty or numeric
cache_salt is three bare `400 Bad Request` lines.
"""

from __future__ import annotations

import json
import signal
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402
from setup_engines import SGLANG  # noqa: E402

ROOT = Path("/tmp/blind149")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
BOOM = ROOT / "clp-missing-param.json"
BANNED = ROOT / "clp-disallowed.json"

MAKE_PROCESSORS = r'''
import json, sys
import dill


class BanFromParams:
    """A processor as a client writes it: the banned ids come in the request's custom_params."""

    def __call__(self, logits, custom_param_list=None):
        for row, params in enumerate(custom_param_list):
            logits[row, params["banned_ids"]] = -float("inf")
        return logits


print(json.dumps({"callable": dill.dumps(BanFromParams).hex()}))
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    if not BOOM.is_file():
        out = subprocess.run([str(SGLANG.python), "-c", MAKE_PROCESSORS], check=True,
                             capture_output=True, text=True).stdout.strip()
        BOOM.write_text(out)
    if not BANNED.is_file():
        code = ("from sglang.srt.sampling.custom_logit_processor import "
                "DisallowedTokensLogitsProcessor as D; print(D.to_str())")
        out = subprocess.run([str(SGLANG.python), "-c", code], check=True,
                             capture_output=True, text=True).stdout.strip()
        BANNED.write_text(out)


_setup()


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def call(ctx: Ctx, path: str, body: dict, timeout: float = 60,
         headers: dict[str, str] | None = None) -> int:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}",
                                 data=json.dumps(body).encode(),
                                 headers={"Content-Type": "application/json", **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as resp:
            resp.read()
            return resp.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def gen(ctx: Ctx, text: str = "The quick brown fox", tokens: int = 16, **extra: object) -> int:
    return call(ctx, "/generate", {"text": text, "sampling_params": {"max_new_tokens": tokens},
                                   **extra})


def sg_serving(requests: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    """SGLang: once fired up, a plain generation, the scenario's requests, one more plain
    generation and a short pause (or until it ends, if it dies)."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 240) != SG_READY:
            linger(ctx, 10)
            return
        gen(ctx)
        requests(ctx)
        time.sleep(1)
        gen(ctx, "After that")
        linger(ctx, 10)
    return act


def v_serving(requests: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        if not up(ctx, 240):
            linger(ctx, 10)
            return
        ctx.complete(1)
        requests(ctx)
        time.sleep(1)
        ctx.complete(1)
        linger(ctx, 12)
    return act


# --- the scenarios' requests ------------------------------------------------------------------

def sg_hidden_states(ctx: Ctx) -> None:
    gen(ctx, return_hidden_states=True)
    call(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": "fox", "max_tokens": 8,
                                  "return_hidden_states": True})


def sg_clp_not_enabled(ctx: Ctx) -> None:
    gen(ctx, custom_logit_processor=BANNED.read_text(),
        sampling_params={"max_new_tokens": 16, "custom_params": {"token_ids": [1, 2]}})
    call(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": "fox", "max_tokens": 8,
                                  "custom_logit_processor": BANNED.read_text()})


def sg_clp_raises(ctx: Ctx) -> None:
    gen(ctx, custom_logit_processor=BOOM.read_text())


def sg_session_unknown(ctx: Ctx) -> None:
    gen(ctx, session_params={"id": "sess-7f3a9c", "rid": None, "offset": 0, "replace": False})


def sg_duplicate_rid(ctx: Ctx) -> None:
    def one() -> None:
        call(ctx, "/generate", {"text": "Once upon a time", "rid": "job-42",
                                "sampling_params": {"max_new_tokens": 200, "ignore_eos": True}},
             timeout=120)
    threads = [threading.Thread(target=one) for _ in range(2)]
    for t in threads:
        t.start()
        time.sleep(0.3)
    for t in threads:
        t.join(130)


def v_kv_transfer(ctx: Ctx) -> None:
    params = {"do_remote_prefill": True, "do_remote_decode": False,
              "remote_engine_id": "prefill-0", "remote_block_ids": [1, 2, 3],
              "remote_host": "10.0.0.5", "remote_port": 5600}
    for _ in range(2):
        call(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": "fox",
                                      "max_tokens": 8, "kv_transfer_params": params})


def v_xargs_string(ctx: Ctx) -> None:
    call(ctx, "/v1/completions", {"model": ctx.model_name(), "prompt": "fox", "max_tokens": 8,
                                  "vllm_xargs": {"kv_transfer_params": "do_remote_decode"}})


def v_cache_salt(ctx: Ctx) -> None:
    name = ctx.model_name()
    call(ctx, "/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8,
                                  "cache_salt": ""})
    call(ctx, "/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8,
                                  "cache_salt": 90125})
    call(ctx, "/v1/chat/completions", {"model": name, "max_tokens": 8, "cache_salt": "",
                                       "messages": [{"role": "user", "content": "hi"}]})


S, V = "sglang", "vllm"

SCENARIOS = [
    Scenario("s-clp-raises", S, "--enable-custom-logit-processor; a /generate whose "
             "custom_logit_processor (dill-serialized by the client) reads custom_params "
             "['banned_ids'], with no custom_params sent", [*SG, "--enable-custom-logit-processor"],
             before=dfl_signals, act=sg_serving(sg_clp_raises)),
    Scenario("v-xargs-kv-transfer-string", V, "no KV connector; a completion whose vllm_xargs "
             "carries kv_transfer_params as the string 'do_remote_decode'", VLLM_BASE,
             before=dfl_signals, act=v_serving(v_xargs_string)),
    Scenario("s-duplicate-rid", S, "two /generate requests sent at once with the same rid "
             "'job-42' (200 tokens each)", SG, before=dfl_signals,
             act=sg_serving(sg_duplicate_rid)),
    Scenario("v-kv-transfer-no-connector", V, "no --kv-transfer-config; two completions with "
             "kv_transfer_params of a disaggregated prefill (do_remote_prefill, remote host "
             "10.0.0.5)", VLLM_BASE, before=dfl_signals, act=v_serving(v_kv_transfer)),
    Scenario("s-hidden-states-not-enabled", S, "no --enable-return-hidden-states; /generate and "
             "/v1/completions with return_hidden_states true", SG, before=dfl_signals,
             act=sg_serving(sg_hidden_states)),
    Scenario("s-session-never-opened", S, "a /generate with session_params naming session "
             "'sess-7f3a9c', never opened with /open_session", SG, before=dfl_signals,
             act=sg_serving(sg_session_unknown)),
    Scenario("v-cache-salt-invalid", V, "completions with cache_salt '' and 90125 (a number), "
             "a chat request with cache_salt ''", VLLM_BASE, before=dfl_signals,
             act=v_serving(v_cache_salt)),
    Scenario("s-clp-not-enabled", S, "no --enable-custom-logit-processor; /generate and "
             "/v1/completions with a custom_logit_processor (DisallowedTokensLogitsProcessor)",
             SG, before=dfl_signals, act=sg_serving(sg_clp_not_enabled)),
]
