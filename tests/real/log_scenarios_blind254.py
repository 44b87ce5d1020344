"""The two-hundred-and-fifty-fourth batch's scenarios (tests/fixtures/corpus/fresh253): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind254.py OUT

Themes: the API server's own flags as a deployment sets them - the HTTP front of each engine,
not the model. vLLM: --middleware naming a deployment's own ASGI class that is there and imports
but raises in its constructor (a secret it reads from the environment is not set);
--allowed-methods given as a comma list ("GET, POST") where a JSON list is expected; --api-key on
the command line and VLLM_API_KEY in the environment, each a different secret, clients holding
the environment's; --api-key "" (a launch script's `--api-key "$API_KEY"` with the variable
empty). SGLang: --api-key with the right key written in other cases and spacings of the Bearer
scheme (lower and upper case, two spaces, a trailing space, the key capitalised, `Token`,
X-API-Key); --api-key with --admin-api-key and an operator sending the admin key to the ordinary
routes (/generate, /v1/completions, /v1/models) and to /flush_cache; --ssl-keyfile naming an
encrypted key with --ssl-keyfile-password an old, wrong passphrase.

Earlier batches already had (not repeated): --middleware naming a module not installed (67th), a
plain (not async) function and Starlette's HTTPSRedirectMiddleware (116th); --allowed-origins a
plain URL (73rd); VLLM_API_KEY from another deployment (116th); vLLM --api-key given no value,
two keys comma-separated, the Bearer scheme misspelt (`Baerer`, `Token`, bare, X-API-Key,
`bearer`) (157th); --root-path and SGLang's --fastapi-root-path (116th); --uvicorn-log-level
bogus (83rd); --max-log-len 0 and -1, --enable-request-id-headers with duplicate or huge ids,
--return-tokens-as-token-ids under a burst; SGLang --api-key with clients sending none, the
ordinary key to /flush_cache with --admin-api-key (116th), --admin-api-key alone, --api-key from a
key file with its newline or given the file's path, --api-key with no value (157th),
--log-level-http bogus, --log-requests-target unmakeable (116th), --enable-http2 without granian,
--enable-http-worker-reuseport; TLS: files missing, key only, mismatched key, a passphrase key
with no password flag (vLLM), --ssl-cert-reqs without CA, DER certificate, chain in the wrong
order, a CA that did not sign it (241st).

Recorded 2026-12-07 in one invocation (raw1: the seven scenarios of this table, in order),
waiting turns with other helpers' recorders for most of twenty minutes; each scenario once.
About 7.5 minutes of recording (vLLM 47+12+62+59 s, SGLang 104+94+66 s). 7 kept (final files
ie101-ie107), none dropped; v-api-key-empty-string's fault shows as no error (the server simply
serves unlocked) and is kept as a fair log of the ground, labelled ready.

What the engines did. vLLM: the middleware class imports, the engine comes up (`init engine
(profile, create kv cache, warmup model) took 13.33 s`), then build_app's
build_middleware_stack constructs it, the engine is shut down and the API server dies on
`KeyError: 'TENANT_AUTH_SECRET'` raised in corp_mw.py's __init__ (crashed, ie101); the comma
list ends in argparse's `error: argument --allowed-methods: invalid loads value: 'GET, POST'`
(crashed at launch, ie102); with both keys the flag wins without a word - the environment's key
gets `401 Unauthorized` on /v1/completions and /v1/models, the flag's 200 (ready, serving,
ie103); `--api-key ""` logs only `'api_key': '***'` and serves clients with no key or any key
200 OK (ready, serving, ie104). SGLang: the Bearer scheme's case does not matter (`bearer`,
`BEARER` 200), two spaces, a capitalised key, `Token` and X-API-Key get 401, a trailing space
is stripped by the client and served (ready, serving, ie105); the admin key is refused on
/generate, /v1/completions and /v1/models (401) and opens /flush_cache (`Cache flushed
successfully!`, 200), the user key serves (ready, serving, ie106); the wrong key passphrase
lets everything load (`Engine startup timings (s)`, `SSL enabled: ...`) and then uvicorn's
load_cert_chain raises `ssl.SSLError: [SSL] PEM lib (_ssl.c:3926)`, the detokenizer is killed
(-9) in the teardown (crashed in warmup, ie107). Crashed: ie101, ie102, ie107; ready in
serving: ie103-ie106; nothing hung.
"""

from __future__ import annotations

import json
import ssl
import subprocess
import sys
import urllib.error
import urllib.request
from collections.abc import Callable
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind254")
MW = ROOT / "mw"
TLS = ROOT / "tls"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"

# A deployment's own auth middleware: its constructor reads a secret from the environment.
MW_PY = '''import os


class TenantAuth:
    """Checks X-Tenant-Token against the secret the deployment puts in TENANT_AUTH_SECRET."""

    def __init__(self, app):
        self.app = app
        self.secret = os.environ["TENANT_AUTH_SECRET"]

    async def __call__(self, scope, receive, send):
        await self.app(scope, receive, send)
'''


def _setup() -> None:
    MW.mkdir(parents=True, exist_ok=True)
    (MW / "corp_mw.py").write_text(MW_PY)


_setup()


def request(ctx: Ctx, path: str, body: dict | None = None, headers: dict | None = None,
            scheme: str = "http", timeout: float = 60) -> int:
    """One request (POST when ``body``), its status (0: no answer)."""
    data = json.dumps(body).encode() if body is not None else None
    h = {"Content-Type": "application/json", **(headers or {})}
    req = urllib.request.Request(f"{scheme}://127.0.0.1:{ctx.port}{path}", data=data,
                                 headers=h)
    context = None
    if scheme == "https":
        context = ssl.create_default_context()
        context.check_hostname = False
        context.verify_mode = ssl.CERT_NONE
    try:
        with urllib.request.urlopen(req, timeout=timeout, context=context) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def bearer(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


def completion(ctx: Ctx, headers: dict | None = None, prompt: str = "fox") -> int:
    return request(ctx, "/v1/completions", {"model": MODEL_NAME, "prompt": prompt,
                                            "max_tokens": 8}, headers)


MODEL_NAME = "tiny"   # every scenario serves the model under this name


def served(ready: str, clients: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    """Once ``ready`` is logged, ``clients``, then a pause; a run that ends first just ends."""
    def act(ctx: Ctx) -> None:
        found = ctx.wait_any([ready], 300)
        if found and ctx.proc is not None and ctx.proc.poll() is None:
            clients(ctx)
            linger(ctx, 12)
        else:
            linger(ctx, 20)
    return act


# --- vLLM clients ---------------------------------------------------------------------------

def v_plain_clients(ctx: Ctx) -> None:
    request(ctx, "/health")
    completion(ctx)
    completion(ctx, prompt="The quick brown fox")


def v_flag_and_env_clients(ctx: Ctx) -> None:
    """Clients holding the key from the environment's secret, then the flag's, then none."""
    completion(ctx, bearer("sk-env-7d21"))
    request(ctx, "/v1/models", headers=bearer("sk-env-7d21"))
    completion(ctx, bearer("sk-flag-3a90"))
    completion(ctx)


def v_empty_key_clients(ctx: Ctx) -> None:
    """Clients of a server meant to be locked: no key, a made-up key."""
    completion(ctx)
    completion(ctx, bearer("anything"))
    request(ctx, "/v1/models")


# --- SGLang clients -------------------------------------------------------------------------

def s_generate(ctx: Ctx, headers: dict | None = None, scheme: str = "http") -> int:
    return request(ctx, "/generate", {"text": "The quick brown fox",
                                      "sampling_params": {"max_new_tokens": 8}}, headers,
                   scheme)


def s_scheme_clients(ctx: Ctx) -> None:
    """The right key written in other cases and spacings of the Bearer scheme."""
    for auth in ("bearer k3y", "BEARER k3y", "Bearer  k3y", "Bearer k3y ", "Bearer K3Y",
                 "Token k3y"):
        s_generate(ctx, {"Authorization": auth})
    s_generate(ctx, {"X-API-Key": "k3y"})
    s_generate(ctx, bearer("k3y"))
    completion(ctx, bearer("k3y"))


def s_admin_on_user_routes(ctx: Ctx) -> None:
    """An operator sends the admin key to the ordinary routes, and the user key to an admin
    one."""
    s_generate(ctx, bearer("adm-254"))
    completion(ctx, bearer("adm-254"))
    request(ctx, "/v1/models", headers=bearer("adm-254"))
    request(ctx, "/flush_cache", {}, bearer("adm-254"))
    s_generate(ctx, bearer("k3y"))


def s_tls_clients(ctx: Ctx) -> None:
    s_generate(ctx, scheme="https")
    s_generate(ctx, scheme="https")


def make_encrypted_key(ctx: Ctx) -> None:
    """A self-signed certificate and its key, encrypted with the passphrase `right-pass`."""
    TLS.mkdir(parents=True, exist_ok=True)
    subprocess.run(["openssl", "req", "-x509", "-newkey", "rsa:2048", "-days", "30",
                    "-subj", "/CN=localhost", "-keyout", str(TLS / "server.key"),
                    "-out", str(TLS / "server.pem"), "-passout", "pass:right-pass"],
                   check=True, capture_output=True)


V = "vllm"
S = "sglang"
VB = [*VLLM_BASE, "--served-model-name", MODEL_NAME]
SB = [*SG, "--served-model-name", MODEL_NAME]

SCENARIOS = [
    Scenario("v-middleware-init-raises", V, "--middleware corp_mw.TenantAuth, a deployment's "
             "own ASGI class whose constructor reads TENANT_AUTH_SECRET, not set in this "
             "environment (PYTHONPATH=/tmp/blind254/mw); /health and two completions",
             [*VB, "--middleware", "corp_mw.TenantAuth"], env={"PYTHONPATH": str(MW)},
             act=served(READY_LINE, v_plain_clients)),
    Scenario("v-allowed-methods-csv", V, "--allowed-methods \"GET, POST\" (a comma list where "
             "a JSON list is expected)", [*VB, "--allowed-methods", "GET, POST"],
             act=served(READY_LINE, v_plain_clients)),
    Scenario("v-api-key-flag-and-env", V, "--api-key sk-flag-3a90 and VLLM_API_KEY=sk-env-7d21 "
             "(the secret the clients were given); clients send the environment's key, then "
             "the flag's, then none", [*VB, "--api-key", "sk-flag-3a90"],
             env={"VLLM_API_KEY": "sk-env-7d21"},
             act=served(READY_LINE, v_flag_and_env_clients)),
    Scenario("v-api-key-empty-string", V, "--api-key \"\" (a launch script's `--api-key "
             "\"$API_KEY\"` with API_KEY empty); clients send no key and a made-up key",
             [*VB, "--api-key", ""], act=served(READY_LINE, v_empty_key_clients)),
    Scenario("s-bearer-case-spacing", S, "--api-key k3y; clients send the key as `bearer k3y`, "
             "`BEARER k3y`, `Bearer  k3y` (two spaces), with a trailing space, as K3Y, as "
             "`Token k3y`, in X-API-Key; then `Bearer k3y`", [*SB, "--api-key", "k3y"],
             act=served(SG_READY, s_scheme_clients)),
    Scenario("s-admin-key-on-user-routes", S, "--api-key k3y --admin-api-key adm-254; an "
             "operator sends the admin key to /generate, /v1/completions, /v1/models and "
             "/flush_cache; then the user key to /generate",
             [*SB, "--api-key", "k3y", "--admin-api-key", "adm-254"],
             act=served(SG_READY, s_admin_on_user_routes)),
    Scenario("s-ssl-key-password-wrong", S, "--ssl-keyfile naming a key encrypted with "
             "`right-pass`, --ssl-keyfile-password wrong-pass (an old secret)",
             [*SB, "--ssl-keyfile", str(TLS / "server.key"), "--ssl-certfile",
              str(TLS / "server.pem"), "--ssl-keyfile-password", "wrong-pass"],
             before=make_encrypted_key, act=served(SG_READY, s_tls_clients)),
]
