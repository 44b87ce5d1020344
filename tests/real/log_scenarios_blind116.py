"""The hundred-and-sixteenth batch's scenarios (tests/fixtures/corpus/fresh115): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind116.py OUT

Themes: the HTTP front end's settings - what a person sets on the OpenAI-compatible server and
what the log shows when it is wrong or when clients meet it. vLLM: VLLM_API_KEY set from another
deployment's secret while clients send their own key; --root-path /llm with clients calling
both the prefixed and the bare paths; --middleware naming a plain (not async) function, and
naming Starlette's HTTPSRedirectMiddleware on a plain-HTTP server; --enable-auto-tool-choice
with --tool-call-parser deepseek_v3 on a model whose tokenizer lacks that family's tool tokens,
then chat requests with tools; --enable-request-id-headers with clients reusing one X-Request-Id
for concurrent requests; --chat-template-content-format given a value it does not know;
--tool-server naming a port nothing listens on. SGLang: --api-key with clients that send none;
--admin-api-key with a client calling an admin route with the ordinary key; --fastapi-root-path
/llm; --log-level-http given a word that is not a level; --log-requests with a
--log-requests-target folder that cannot be made; --tool-server naming a port nothing listens
on; --tool-call-parser mistral with chat requests with tools.

SGLang serving runs use --device cpu --model-impl transformers (its own Llama module imports
vllm); vLLM runs VLLM_BASE's settings. Chat scenarios write a plain template to
/tmp/blind116/chat.jinja (the tiny model has none); the sync-middleware module is written to
/tmp/blind116/mw/ when this table is loaded.

Recorded 2026-12-06 in four invocations sharing the recorder's lock with three other helpers
(about 8-9 minutes of recording in all; turns came every few minutes). What the engines did:
VLLM_API_KEY alone (no flag) guards /v1 routes and turns other keys away with 401s; --root-path
/llm on vLLM accepts the paths with and without the prefix, while SGLang's --fastapi-root-path
/llm answers its own warmup as /llm/generate and 404s a client's /llm/generate (logged as
/llm/llm/generate). vLLM refuses a plain-function --middleware and a --tool-call-parser whose
tokens the tokenizer lacks only after the engine is up (crash after `init engine ... took`).
vLLM has the mcp client installed (--tool-server to a closed port dies with ConnectError);
SGLang has not (`TypeError: 'ModuleNotFoundError' object is not callable` in the lifespan).
SGLang's --log-level-http takes any word and dies in uvicorn.Config with `KeyError: 'verbose'`.
HTTPSRedirectMiddleware answers everything 307 and the clients' TLS hellos show as uvicorn's
`Invalid HTTP request received.`. Concurrent requests sharing one X-Request-Id are served.
Kept 14 of the 15 scenarios; s-tool-parser-mistral was never recorded (the shared recorder's
turns ran out of the task's time), so it is left here unrecorded.
"""

from __future__ import annotations

import json
import sys
import threading
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    linger,
)

ROOT = Path("/tmp/blind116")
TEMPLATE = ROOT / "chat.jinja"
MW = ROOT / "mw"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
CHAT = ["--chat-template", str(TEMPLATE)]


def _write_files() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    TEMPLATE.write_text("{% for m in messages %}{{ m['role'] }}: {{ m['content'] or '' }}\n"
                        "{% endfor %}{% if add_generation_prompt %}assistant:{% endif %}")
    MW.mkdir(exist_ok=True)
    (MW / "tenant_mw.py").write_text(
        '"""Adds the tenant header to every response (written as a plain function)."""\n\n'
        "def add_tenant_header(request, call_next):\n"
        "    response = call_next(request)\n"
        "    response.headers['X-Tenant'] = 'team-a'\n"
        "    return response\n")


_write_files()


def call(ctx: Ctx, path: str, body: dict | None = None, headers: dict | None = None,
         timeout: float = 60) -> int:
    """One HTTP request (POST with a JSON body, else GET); the status, 0 on a transport error."""
    h = {"Content-Type": "application/json", **(headers or {})}
    data = json.dumps(body).encode() if body is not None else None
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}", data=data, headers=h)
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError, ValueError):
        return 0


def served(ready: str, body: Callable[[Ctx], None], tail: float = 12,
           startup: float = 240) -> Callable[[Ctx], None]:
    """Wait for ``ready``; run ``body``; let the run go on ``tail`` s."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_for(ready, startup):
            body(ctx)
            linger(ctx, tail)
    return act


def until_end(ctx: Ctx) -> None:
    """A launch expected to fail: wait for it to end; if it serves, one request and a pause."""
    found = ctx.wait_any([READY_LINE, SG_READY], 200)
    if found and ctx.proc is not None and ctx.proc.poll() is None:
        ctx.complete(1)
        linger(ctx, 10)


WEATHER = [{"type": "function", "function": {
    "name": "get_weather", "description": "Current weather for a city",
    "parameters": {"type": "object", "properties": {"city": {"type": "string"}},
                   "required": ["city"]}}}]


def tool_chats(model: str | None) -> Callable[[Ctx], None]:
    def body(ctx: Ctx) -> None:
        name = model or ctx.model_name()
        ctx.complete(1)
        msgs = [{"role": "user", "content": "What is the weather in Paris?"}]
        call(ctx, "/v1/chat/completions", {"model": name, "messages": msgs, "tools": WEATHER,
                                           "tool_choice": "auto", "max_tokens": 24})
        call(ctx, "/v1/chat/completions", {"model": name, "messages": msgs, "tools": WEATHER,
                                           "tool_choice": "auto", "max_tokens": 24,
                                           "stream": True})
        call(ctx, "/v1/chat/completions", {"model": name, "messages": msgs, "max_tokens": 16})
        ctx.complete(1)
    return body


# --- vLLM ------------------------------------------------------------------------------------

def v_other_key(ctx: Ctx) -> None:
    name_hdr = {"Authorization": "Bearer sk-team-a-1234"}
    call(ctx, "/v1/models", headers=name_hdr)
    for i in range(2):
        call(ctx, "/v1/completions", {"model": "x", "prompt": f"fox {i}", "max_tokens": 8},
             headers=name_hdr)
    call(ctx, "/v1/completions", {"model": "x", "prompt": "fox", "max_tokens": 8})
    call(ctx, "/health")


def v_root_path(ctx: Ctx) -> None:
    name = ctx.model_name()
    for path in ("/llm/v1/models", "/llm/v1/completions", "/v1/completions",
                 "/llm/v1/completions"):
        body = None if path.endswith("models") else {"model": name, "prompt": "fox",
                                                      "max_tokens": 8}
        call(ctx, path, body)


def v_request_id_dup(ctx: Ctx) -> None:
    name = ctx.model_name()
    ctx.complete(1)
    hdr = {"X-Request-Id": "req-0001"}
    threads = [threading.Thread(target=call, args=(ctx, "/v1/completions", {
        "model": name, "prompt": f"the fox {i}", "max_tokens": 48}, hdr, 90)) for i in range(4)]
    for t in threads:
        t.start()
    for t in threads:
        t.join(100)
    ctx.complete(1)


def v_https_redirect(ctx: Ctx) -> None:
    ctx.complete(2)     # (urllib follows the 307 to https://, which this server does not speak)
    call(ctx, "/health")
    call(ctx, "/v1/models")


# --- SGLang ----------------------------------------------------------------------------------

def s_no_key(ctx: Ctx) -> None:
    for i in range(2):
        call(ctx, "/generate", {"text": f"fox {i}", "sampling_params": {"max_new_tokens": 8}})
    call(ctx, "/v1/completions", {"model": "x", "prompt": "fox", "max_tokens": 8})
    call(ctx, "/v1/models")
    call(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}},
         headers={"Authorization": "Bearer k3y"})


def s_admin(ctx: Ctx) -> None:
    user = {"Authorization": "Bearer k3y"}
    call(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}},
         headers=user)
    call(ctx, "/flush_cache", {}, headers=user)
    call(ctx, "/flush_cache", {})
    call(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}},
         headers=user)


def s_root_path(ctx: Ctx) -> None:
    for path in ("/llm/generate", "/generate", "/llm/v1/models"):
        body = None if path.endswith("models") else {
            "text": "fox", "sampling_params": {"max_new_tokens": 8}}
        call(ctx, path, body)


def s_log_target(ctx: Ctx) -> None:
    for i in range(2):
        call(ctx, "/generate", {"text": f"fox {i}", "sampling_params": {"max_new_tokens": 8}})


V, S = "vllm", "sglang"
SCENARIOS = [
    Scenario("v-api-key-env-other", V, "VLLM_API_KEY set from another deployment's secret; "
             "clients send their own key (Bearer sk-team-a-1234), one sends none",
             VLLM_BASE, env={"VLLM_API_KEY": "sk-prod-9f3e"}, act=served(READY_LINE, v_other_key)),
    Scenario("v-root-path-prefix", V, "--root-path /llm (a proxy prefix); clients call "
             "/llm/v1/... and /v1/... directly", [*VLLM_BASE, "--root-path", "/llm"],
             act=served(READY_LINE, v_root_path)),
    Scenario("v-middleware-sync-func", V, "--middleware naming a plain (not async) "
             "function, tenant_mw.add_tenant_header (PYTHONPATH=/tmp/blind116/mw)",
             [*VLLM_BASE, "--middleware", "tenant_mw.add_tenant_header"],
             env={"PYTHONPATH": str(MW)}, act=until_end),
    Scenario("v-middleware-https-redirect", V, "--middleware starlette.middleware."
             "httpsredirect.HTTPSRedirectMiddleware on a server without TLS; clients over http",
             [*VLLM_BASE, "--middleware",
              "starlette.middleware.httpsredirect.HTTPSRedirectMiddleware"],
             act=served(READY_LINE, v_https_redirect)),
    Scenario("v-tool-parser-deepseek-v3", V, "--enable-auto-tool-choice --tool-call-parser "
             "deepseek_v3 on a model whose tokenizer has none of that family's tool tokens; "
             "chat requests with tools (one streamed)",
             [*VLLM_BASE, *CHAT, "--enable-auto-tool-choice", "--tool-call-parser",
              "deepseek_v3"], act=served(READY_LINE, tool_chats(None))),
    Scenario("v-request-id-dup", V, "--enable-request-id-headers; four concurrent "
             "completions sent with the same X-Request-Id (req-0001)",
             [*VLLM_BASE, "--enable-request-id-headers"],
             act=served(READY_LINE, v_request_id_dup)),
    Scenario("v-content-format-bogus", V, "--chat-template-content-format markdown (not one "
             "of its formats)", [*VLLM_BASE, "--chat-template-content-format", "markdown"],
             act=until_end),
    Scenario("v-tool-server-closed", V, "--tool-server 127.0.0.1:1 (an MCP tool server "
             "address where nothing listens)", [*VLLM_BASE, "--tool-server", "127.0.0.1:1"],
             act=until_end),
    # SGLang
    Scenario("s-api-key-no-client-key", S, "--api-key k3y; clients send no key (native "
             "/generate, OpenAI completions, /v1/models), then one with it",
             [*SG, "--api-key", "k3y"], act=served(SG_READY, s_no_key)),
    Scenario("s-admin-key-flush", S, "--api-key k3y --admin-api-key adm-77; a client calls "
             "the admin route /flush_cache with the ordinary key and with none",
             [*SG, "--api-key", "k3y", "--admin-api-key", "adm-77"],
             act=served(SG_READY, s_admin)),
    Scenario("s-root-path-prefix", S, "--fastapi-root-path /llm (a proxy prefix); clients "
             "call /llm/generate and /generate directly", [*SG, "--fastapi-root-path", "/llm"],
             act=served(SG_READY, s_root_path)),
    Scenario("s-log-level-http-bogus", S, "--log-level-http verbose (not a level)",
             [*SG, "--log-level-http", "verbose"], act=until_end),
    Scenario("s-log-target-unmakeable", S, "--log-requests --log-requests-target "
             "/proc/sglang/requests (a folder that cannot be made); two generations",
             [*SG, "--log-requests", "--log-requests-target", "/proc/sglang/requests"],
             act=served(SG_READY, s_log_target)),
    Scenario("s-tool-server-closed", S, "--tool-server http://127.0.0.1:1 (a tool server "
             "address where nothing listens)", [*SG, "--tool-server", "http://127.0.0.1:1"],
             act=until_end),
    Scenario("s-tool-parser-mistral", S, "--tool-call-parser mistral on a Llama model "
             "(with a plain --chat-template); chat requests with tools (one streamed)",
             [*SG, *CHAT, "--tool-call-parser", "mistral"],
             act=served(SG_READY, tool_chats("default"))),
]
