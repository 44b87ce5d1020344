"""The hundred-and-fifty-seventh batch's scenarios (tests/fixtures/corpus/fresh156): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind157.py OUT

Themes: API keys and authentication on the server - what a person meets locking an
OpenAI-compatible server behind a key. vLLM: --api-key given with no value (a launch script's
`--api-key $API_KEY` with the variable unset, the flag left last); two keys written as one
comma-separated value (`--api-key sk-a,sk-b`, where this build takes several keys as separate
words) with clients sending either key; clients with the right key but `Bearer` misspelt, another
scheme or the key in another header (`Baerer`, `Token`, bare, `X-API-Key`, `api-key`, `Bearer:`),
then `bearer` in lower case. SGLang: a key read from a file with its trailing newline (SGLang's
own warmup request sends it back as a header); the key file's path given where the key belongs,
clients sending the file's content; --admin-api-key alone (meant to lock the server; ordinary
routes stay open) with clients sending no key; --api-key with no value.

Earlier batches already had (not repeated): --api-key with clients sending none, then the key
(log_scenarios.py v-api-key); VLLM_API_KEY set from another deployment's secret with clients
sending their own key (116th); SGLang --api-key with clients sending none, and
--admin-api-key with the ordinary key on an admin route (116th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers. The
key file /tmp/blind157/api.key and the launcher /tmp/blind157/with_key.py (which reads the file,
newline and all, into the argument `@KEY`: a key with a newline in argv would otherwise break
the recorder's one-line source header) are written when this table is loaded. SIGINT and
SIGQUIT are reset to their defaults before each launch (dfl_signals, as the 133rd table does),
since SGLang signals its own processes when it gives up.

Recorded 2026-12-06 in one invocation (raw1, eight scenarios, taking turns with two other
helpers' recorders for the lock; about 15 minutes from start to end, most of it waiting); each
scenario once. About 6m48s of recording (vLLM 8+44+48+51 s, SGLang 156+49+44+8 s). 7 kept
(final files ej101-ej107). Dropped: v-api-key-trailing-newline (vLLM --api-key
'sk-blind157-a\\n' through the launcher, clients sending the key: a health poll 200 and six
401s, line for line the same log as the kept v-api-key-comma-list and as fresh115/cu101 - vLLM
masks the key as '***' in its non-default args, so the newline never shows); removed from the
table.

What the engines did: an --api-key left without a value ends both launches in argparse within
8 s (vLLM `expected at least one argument`: this build takes several keys; SGLang `expected one
argument`). vLLM masks the key in its non-default args (`'api_key': '***'`); SGLang prints its
server_args with api_key and admin_api_key in clear. vLLM refuses every misspelt or misplaced
key with a bare `401 Unauthorized` access line (no log line says why), accepts `bearer` in lower
case, and leaves /health open; a comma-joined pair of keys is one key no client holds. SGLang's
own warmup sends the server's key back as a Bearer header, so a key with a trailing newline
kills the server after uvicorn is up: two silent minutes of retries, then `Initialization
failed. warmup error: ... requests.exceptions.InvalidHeader: Invalid leading whitespace, reserved
character(s), or return character(s) in header value: 'Bearer sk-blind157-a\\n'` and
`kill_process_tree called` (crashed in warmup). A key file's path given as the key passes that
warmup (it sends the path back) and turns away every client holding the real key.
--admin-api-key alone leaves /generate, /v1/completions and /v1/models open to keyless clients
(served 200, no warning) and guards only the admin route (/flush_cache 401).
"""

from __future__ import annotations

import json
import signal
import sys
import urllib.error
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind157")
ROOT.mkdir(parents=True, exist_ok=True)
KEY_FILE = ROOT / "api.key"
KEY_FILE.write_text("sk-blind157-a\n")
WITH_KEY = ROOT / "with_key.py"
WITH_KEY.write_text(
    '"""A launcher that reads the server key from a file (newline and all) into argv."""\n'
    "import os, sys\n"
    f"key = open({str(KEY_FILE)!r}).read()\n"
    "argv = [key if a == '@KEY' else a for a in sys.argv[1:]]\n"
    "os.execv(sys.executable, [sys.executable, *argv])\n")
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]


def launched_with_key(engine: str, args: list[str]) -> list[str]:
    """The server's arguments through with_key.py: '@KEY' becomes the key file's content."""
    if engine == "vllm":
        head = ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}"]
    else:
        head = ["-m", "sglang.launch_server", "--model-path", "{model}"]
    return [str(WITH_KEY), *head, "--host", "127.0.0.1", "--port", "{port}", *args]


def dfl_signals(ctx: Ctx) -> None:
    """SIGINT and SIGQUIT back to their default actions before the launch: a recorder started
    in the background by a shell inherits both ignored, and the engine would inherit that."""
    signal.signal(signal.SIGINT, signal.SIG_DFL)
    signal.signal(signal.SIGQUIT, signal.SIG_DFL)


def call(ctx: Ctx, path: str, body: dict | None = None, headers: dict | None = None,
         timeout: float = 60) -> int:
    """One request with the headers given; its status, 0 if none came back."""
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}{path}", data=data,
                                 headers={"Content-Type": "application/json",
                                          **(headers or {})})
    try:
        with urllib.request.urlopen(req, timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError, ValueError):
        return 0


def bearer(key: str) -> dict:
    return {"Authorization": f"Bearer {key}"}


def completion(ctx: Ctx, headers: dict, prompt: str = "fox") -> int:
    return call(ctx, "/v1/completions", {"model": "model", "prompt": prompt, "max_tokens": 8},
                headers)


def v_served(client) -> object:
    """vLLM: until ready (or the end); then the clients; a pause for a stats line."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([READY_LINE], 240) and ctx.proc is not None and ctx.proc.poll() is None:
            client(ctx)
            linger(ctx, 12)
        else:
            linger(ctx, 5)
    return act


def s_served(client) -> object:
    """SGLang: until fired up (or the end: a warmup that fails takes 120 s); then the clients."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 260) == SG_READY and ctx.proc is not None \
                and ctx.proc.poll() is None:
            client(ctx)
            linger(ctx, 8)
        else:
            linger(ctx, 10)
    return act


def until_end(ctx: Ctx) -> None:
    linger(ctx, 90)


# --- clients ---------------------------------------------------------------------------------

def v_model_name(ctx: Ctx, headers: dict) -> str:
    req = urllib.request.Request(f"http://127.0.0.1:{ctx.port}/v1/models", headers=headers)
    try:
        with urllib.request.urlopen(req, timeout=10) as r:
            return json.loads(r.read())["data"][0]["id"]
    except (OSError, ValueError, KeyError, IndexError):
        return "model"


def v_comma_clients(ctx: Ctx) -> None:
    """Team A's client with sk-a, team B's with sk-b; each twice; a health poll."""
    call(ctx, "/health")
    for key in ("sk-a", "sk-b", "sk-a", "sk-b"):
        name = v_model_name(ctx, bearer(key))
        call(ctx, "/v1/completions", {"model": name, "prompt": "fox", "max_tokens": 8},
             bearer(key))


def v_scheme_clients(ctx: Ctx) -> None:
    """The right key, in the wrong scheme or header; then one client that gets it right."""
    name = v_model_name(ctx, bearer("k3y"))
    body = {"model": name, "prompt": "fox", "max_tokens": 8}
    for h in ({"Authorization": "Baerer k3y"}, {"Authorization": "Token k3y"},
              {"Authorization": "k3y"}, {"X-API-Key": "k3y"}, {"api-key": "k3y"},
              {"Authorization": "Bearer: k3y"}):
        call(ctx, "/v1/completions", body, h)
    call(ctx, "/v1/completions", body, {"Authorization": "bearer k3y"})


def s_file_clients(ctx: Ctx) -> None:
    """Clients sending the key file's content (stripped), as a secret mount gives it them."""
    call(ctx, "/health")
    for _ in range(2):
        call(ctx, "/v1/models", None, bearer("sk-blind157-a"))
        completion(ctx, bearer("sk-blind157-a"))
        call(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}},
             bearer("sk-blind157-a"))


def s_open_clients(ctx: Ctx) -> None:
    """Clients sending no key at all to ordinary routes; one admin-ish route without it."""
    call(ctx, "/v1/models")
    completion(ctx, {})
    call(ctx, "/generate", {"text": "fox", "sampling_params": {"max_new_tokens": 8}})
    call(ctx, "/flush_cache", {})
    completion(ctx, {}, "dog")


# --- the table -------------------------------------------------------------------------------

V = "vllm"
S = "sglang"

SCENARIOS = [
    Scenario("v-api-key-unset-var", V, "--api-key given no value (a launch script's "
             "`--api-key $API_KEY` with API_KEY unset, the flag last)", [*VLLM_BASE, "--api-key"],
             before=dfl_signals, act=until_end),
    Scenario("v-api-key-comma-list", V, "--api-key sk-a,sk-b (two keys written as one "
             "comma-separated value); clients send sk-a or sk-b", [*VLLM_BASE, "--api-key",
                                                                    "sk-a,sk-b"],
             before=dfl_signals, act=v_served(v_comma_clients)),
    Scenario("v-bearer-misspelt", V, "--api-key k3y; clients send the key as `Baerer k3y`, "
             "`Token k3y`, bare, in X-API-Key and api-key headers, `Bearer: k3y`; then "
             "`bearer k3y`", [*VLLM_BASE, "--api-key", "k3y"], before=dfl_signals,
             act=v_served(v_scheme_clients)),
    Scenario("s-api-key-trailing-newline", S, "--api-key read from a key file with its trailing "
             "newline ('sk-blind157-a\\n', by a launcher reading /tmp/blind157/api.key into argv: "
             "@KEY below)", launched_with_key(S, [*SG, "--api-key", "@KEY"]), entry="python",
             before=dfl_signals, act=s_served(s_file_clients)),
    Scenario("s-api-key-file-path", S, f"--api-key {KEY_FILE} (the key file's path where the "
             "key belongs); clients send the file's content", [*SG, "--api-key", str(KEY_FILE)],
             before=dfl_signals, act=s_served(s_file_clients)),
    Scenario("s-admin-key-only", S, "--admin-api-key adm-157 alone, meant to lock the server; "
             "clients send no key", [*SG, "--admin-api-key", "adm-157"], before=dfl_signals,
             act=s_served(s_open_clients)),
    Scenario("s-api-key-unset-var", S, "--api-key given no value (a launch script's "
             "`--api-key $API_KEY` with API_KEY unset, the flag last)", [*SG, "--api-key"],
             before=dfl_signals, act=until_end),
]
