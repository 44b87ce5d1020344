"""The two-hundred-and-forty-sixth batch's scenarios (tests/fixtures/corpus/fresh245): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind246.py OUT

Themes: the names a server answers to and the model a request asks for, as gateways, client
libraries and launch templates name the model. vLLM (VLLM_BASE's settings): the model given as
`current`, the head of a release-link chain 42 links deep (each deploy linked the new release to
the previous link instead of to the folder), past the kernel's 40 links per lookup;
--served-model-name a hub id with a slash (meta-llama/Llama-3.1-8B-Instruct, what a gateway
expects) with clients asking GET /v1/models/{name} raw and %2F-encoded and naming the model by the
id's last part; --served-model-name tiny "" (a template's second name from an unset variable,
quoted); served under its path, clients naming it by the path with a trailing slash, in `~/`
form, in upper case and by the folder's name alone. SGLang (--device cpu --model-impl
transformers): --served-model-name with a slash and clients asking /v1/models/{name} raw,
%2F-encoded and by the last part, then naming it in lower case; --served-model-name left last with
no value (`--served-model-name $SERVED_NAME`, the variable unset); --revision v1.1 given with a
local model folder; --served-model-name "Tiny Llama Chat" (spaces, quoted) with clients asking
/v1/models/{name} %20- and +-encoded and naming it with dashes. Each odd request sits between
plain good completions, so the log shows whether the server kept serving.

Earlier batches already had (not repeated): --served-model-name an empty string alone (89th,
both engines), split by the shell into words (114th), two names with clients sending the path,
`model` a number, a list or missing, a LoRA module named as the served model (156th, vLLM); two
names, a colon tag, clients sending the path, other case and no model field, `model` a number or
list (156th, SGLang); a `model` the server does not serve (log_faults' serve_bad_requests);
LoRA names not loaded (67th, 74th, 95th, 134th); --tokenizer-revision for a local folder (154th,
dropped: it never showed), --revision naming a commit an offline HF cache lacks (103rd, 174th);
a quoted `~/` path (88th), a relative path from the wrong folder (105th), a dangling symlink
(80th), a symlink loop (114th), a double and a trailing slash in vLLM's --model (159th);
`--served-model-name $MODEL_NAME` unexpanded by the kubelet (227th); two servers on one port
(118th, 211th).

Recorded 2026-12-07 in one invocation (raw1: all eight scenarios, taking turns with other
helpers' recorders for the machine's lock); each scenario once. About 5.5 minutes of recording
(vLLM 9+49+10+50 s, SGLang 64+8+58+74 s). 8 kept (final files hw101-hw108), none dropped;
s-revision-local-folder's fault never showed (SGLang names the revision only in server_args and
serves), kept as a fair ready log of the ground.

What the engines did. vLLM: the 42-link chain is no folder to it, so it takes the path for a hub
id and ends at once in `HFValidationError: Repo id must be in the form 'repo_name' or
'namespace/repo_name': '/tmp/blind246/chain/current'` (from get_model_path's snapshot_download);
the hub-id served name serves, both GET /v1/models/{name} forms answered 404 (this build has only
/v1/models) and the id's last part 404 on completions, good requests 200 between; `tiny ""`
becomes `['tiny', None]` and pydantic's `2 validation errors for ModelConfig` (`Input should be a
valid string`) ends the launch; served under its path, the path with a trailing slash, in `~/`
form, in upper case and the folder name alone each get a bare `POST /v1/completions` 404 and it
serves on. SGLang: the slashed served name's /v1/models/{name} answers 200 raw and %2F-encoded,
404 for the last part, and a completion naming it in lower case is served (SGLang does not check
the name); --served-model-name with no value ends in argparse's `sglang serve: error: argument
--served-model-name: expected one argument` after the usage text; --revision v1.1 on a local
folder is ignored (served); the spaced name's retrieval answers 200 %20-encoded and 404 with +,
and a dashed name's completion is served. Crashed at launch: hw101, hw103, hw106; ready in
serving: hw102, hw104, hw105, hw107, hw108. None hung.
"""

from __future__ import annotations

import os
import sys
import time
import urllib.error
import urllib.parse
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind246")
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
HUB_NAME = "meta-llama/Llama-3.1-8B-Instruct"
SPACED_NAME = "Tiny Llama Chat"


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def symlink_chain(work: Path) -> Path:
    """A release link chain 42 links deep (each deploy linked `current` to the previous link
    instead of to the folder): past the kernel's 40 links in one path lookup."""
    d = ROOT / "chain"
    d.mkdir(parents=True, exist_ok=True)
    prev = LLAMA.dir
    for i in range(42):
        link = d / f"release-{i:02d}"
        if link.is_symlink():
            link.unlink()
        link.symlink_to(prev)
        prev = link
    cur = d / "current"
    if cur.is_symlink():
        cur.unlink()
    cur.symlink_to(prev)
    return cur


def get(ctx: Ctx, path: str) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}{path}", timeout=20) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def good(ctx: Ctx, name: str | None = None) -> None:
    """One plain completion naming the model as /v1/models lists it (or ``name``)."""
    ctx.post("/v1/completions", {"model": name or ctx.model_name(), "prompt": "The quick fox",
                                 "max_tokens": 8})


def is_up(ctx: Ctx, timeout: float = 300) -> bool:
    """The server is up (vLLM's ready line; SGLang's, after its own warmup) and still running."""
    found = ctx.wait_any([READY_LINE], timeout)
    if not found or ctx.proc is None or ctx.proc.poll() is not None:
        return False
    if "# engine: sglang" in ctx.text()[:4000]:
        ctx.wait_any([SG_READY], 90)
    return ctx.proc.poll() is None


def odd_then_good(odd: list[tuple[str, object]]) -> object:
    """Once up: a good completion, then each odd step (("get", PATH) or ("model", NAME) for a
    completion naming NAME, None: no model field) followed by a good completion; a pause. If it
    never comes up: let it end by itself."""
    def act(ctx: Ctx) -> None:
        if not is_up(ctx):
            linger(ctx, 20)
            return
        good(ctx)
        for kind, value in odd:
            if kind == "get":
                get(ctx, str(value))
            else:
                body = {"prompt": "The quick fox", "max_tokens": 8}
                if value is not None:
                    body["model"] = value
                ctx.post("/v1/completions", body)
            good(ctx)
        time.sleep(12)
    return act


def q(name: str) -> str:
    return urllib.parse.quote(name, safe="")


HOME_FORM = "~/" + str(LLAMA.dir.relative_to(Path.home())) if str(LLAMA.dir).startswith(
    str(Path.home()) + os.sep) else str(LLAMA.dir)
CASE_FORM = str(LLAMA.dir.parent / LLAMA.dir.name.upper())

SCENARIOS = [
    Scenario("v-model-symlink-chain-too-deep", "vllm",
             "--model given as `current`, the head of a release-link chain 42 links deep (each "
             "deploy linked the new release to the previous link), past the kernel's 40",
             [*VLLM_BASE], model=symlink_chain, act=odd_then_good([])),
    Scenario("v-served-name-hub-id-retrieve", "vllm",
             f"--served-model-name {HUB_NAME} (the hub id a gateway expects, with a slash) on "
             "the local model; clients GET /v1/models/{name} (raw and %2F-encoded) and name it",
             [*VLLM_BASE, "--served-model-name", HUB_NAME],
             act=odd_then_good([("get", f"/v1/models/{HUB_NAME}"),
                                ("get", f"/v1/models/{q(HUB_NAME)}"),
                                ("model", HUB_NAME.split("/")[1])])),
    Scenario("v-served-names-one-empty", "vllm",
             "--served-model-name tiny \"\" (a launch template's second name from an unset "
             "variable, quoted), clients naming tiny, the empty name and the path",
             [*VLLM_BASE, "--served-model-name", "tiny", ""],
             act=odd_then_good([("model", "tiny"), ("model", ""), ("model", str(LLAMA.dir))])),
    Scenario("v-request-model-path-forms", "vllm",
             "served under its path (no --served-model-name); clients name the model by the path "
             "with a trailing slash, in '~/' form, in upper case and by its folder name alone",
             [*VLLM_BASE],
             act=odd_then_good([("model", str(LLAMA.dir) + "/"), ("model", HOME_FORM),
                                ("model", CASE_FORM), ("model", LLAMA.dir.name)])),
    Scenario("s-served-name-slash-retrieve", "sglang",
             f"--served-model-name {HUB_NAME} (with a slash); clients GET /v1/models, "
             "/v1/models/{name} raw and %2F-encoded and by its last part, then name it",
             [*SG, "--served-model-name", HUB_NAME],
             act=odd_then_good([("get", "/v1/models"), ("get", f"/v1/models/{HUB_NAME}"),
                                ("get", f"/v1/models/{q(HUB_NAME)}"),
                                ("get", f"/v1/models/{HUB_NAME.split('/')[1]}"),
                                ("model", HUB_NAME.lower())])),
    Scenario("s-served-name-no-value", "sglang",
             "--served-model-name left last with no value (a launch script's "
             "`--served-model-name $SERVED_NAME` with the variable unset, unquoted)",
             [*SG, "--served-model-name"], act=odd_then_good([])),
    Scenario("s-revision-local-folder", "sglang",
             "--revision v1.1 (a tag of the hub repository the folder was copied from) given "
             "with a local model folder",
             [*SG, "--revision", "v1.1"], act=odd_then_good([("get", "/v1/models")])),
    Scenario("s-served-name-spaces-retrieve", "sglang",
             f"--served-model-name \"{SPACED_NAME}\" (a display name with spaces, quoted); clients "
             "GET /v1/models/{name} %20-encoded and with + for spaces, and name it with dashes",
             [*SG, "--served-model-name", SPACED_NAME],
             act=odd_then_good([("get", f"/v1/models/{urllib.parse.quote(SPACED_NAME)}"),
                                ("get", f"/v1/models/{urllib.parse.quote_plus(SPACED_NAME)}"),
                                ("model", SPACED_NAME.replace(' ', '-').lower())])),
]
