"""The hundred-and-forty-seventh batch's scenarios (tests/fixtures/corpus/fresh146): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind147.py OUT

Themes: Hugging Face Hub access settings as a person meets them on a host whose network is
closed or filtered (this host has no outside network; HF_HUB_OFFLINE=0 and
TRANSFORMERS_OFFLINE=0 here, an empty HF_HOME of the scenario's own under /tmp/blind147/hf).
A local mirror of this table's own (HF_ENDPOINT=http://127.0.0.1:PORT, a ThreadingHTTPServer run
in the recorder's process while the scenario runs, its requests written to
/tmp/blind147/mirror-NAME.log) answering every request with 401 (a revoked HF_TOKEN) or with a
captive portal's HTML page, or serving one repository (tiny-org/llama-tiny, the tiny model's
files, revision main only): a hub id whose organisation is misspelt (404 RepoNotFound), a
--revision naming a branch the mirror lacks (404 RevisionNotFound), --download-dir on a
read-only mount (a read-only tmpfs at /tmp/blind147/ro-models, mounted when the table is loaded
and unmounted by hand after), HF_HUB_ENABLE_HF_TRANSFER=1 with no hf_transfer installed. And
huggingface.co itself, unreachable (it does not resolve here): --tokenizer a hub id while the
model is a local path (vLLM).

Earlier batches already had (not repeated): HF_ENDPOINT at a port nobody listens on (73rd, both
engines), a CA bundle missing (91st), an https proxy refused (92nd), --tokenizer a hub id with
the hub offline (75th, 114th), the HF cache damaged or stale and --revision naming an absent
commit offline, --download-dir elsewhere (103rd), a relative model path from the wrong folder
(105th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers.

Recorded 2026-12-06 in two invocations (raw1: four vLLM; raw2: one vLLM, three SGLang), taking
turns with two other helpers' recorders; each scenario once. About 5 minutes of recording
(297 s: vLLM 11+10+10+153+33 s, SGLang 13+12+55 s). 8 kept (final files dz101-dz108). Dropped:
s-hub-id-no-network (the model by hub id with huggingface.co unreachable; not recorded: raw1's
recorder was stopped, between scenarios, after v-tokenizer-hub-id-no-network had shown that a
name that does not resolve costs about 100 s of retries, to finish within the time given; the
73rd's mirror that is down already has SGLang's retry loop), removed from the table.

What the engines did: every fault here but the read-only --download-dir ends the launch within
seconds at its first config read, in both engines with transformers' and huggingface_hub's words
(vLLM in create_engine_config's speculators check, SGLang in server_args.resolve_once's
get_config). A 401 is not retried: `OSError: There was a specific connection error when trying
to load tiny-org/llama-tiny: Client error '401 Unauthorized' ... Invalid credentials in
Authorization header`. A mirror answering HTML fails huggingface_hub's check for the
X-Repo-Commit header (`does not seem to be served by a Hugging Face Hub endpoint`), ending in the
same `We couldn't connect to ... and couldn't find them in the cached files` as a mirror that is
down. A misspelt organisation is `RepositoryNotFoundError` / `... is not a local folder and is
not a valid model identifier`; a missing branch `RevisionNotFoundError` / `v2-instruct is not a
valid git identifier` (SGLang asks twice: config.json, then head.pt). A host name that does not
resolve makes vLLM retry each request five times (1-8 s back-off) inside its own two tries, about
100 s before `We couldn't connect to 'https://huggingface.co'` (raised in the tokenizer's
from_pretrained, before the engine core). A read-only --download-dir gets past the config (read
through HF_HOME's cache) and fails in the worker's weight download on its lock file (`OSError:
[Errno 30] Read-only file system: '/tmp/blind147/ro-models/...tiny-org-llama-tiny.lock'`),
`Engine core initialization failed`. HF_HUB_ENABLE_HF_TRANSFER=1 no longer fails: huggingface_hub
1.33 (SGLang's) only warns `The HF_HUB_ENABLE_HF_TRANSFER environment variable is deprecated as
'hf_transfer' is not used anymore`, downloads the shards from the mirror in SGLang's loader and
serves.
"""

from __future__ import annotations

import hashlib
import json
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind147")
HF = ROOT / "hf"
RO = ROOT / "ro-models"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
REPO = "tiny-org/llama-tiny"
SHA = hashlib.sha1(b"blind147 tiny-org/llama-tiny").hexdigest()
PORTAL = (b"<!DOCTYPE html>\n<html><head><title>Network login</title></head><body><h1>Welcome"
          b" to the guest network</h1><p>Please sign in to continue.</p></body></html>\n")


def _setup() -> None:
    for d in (ROOT, HF, RO):
        d.mkdir(parents=True, exist_ok=True)
    # a read-only mount for --download-dir (taken down by hand after the recording)
    if subprocess.run(["mountpoint", "-q", str(RO)]).returncode != 0:
        subprocess.run(["mount", "-t", "tmpfs", "-o", "ro,size=1m", "blind147-ro", str(RO)],
                       check=False)


_setup()


# --- the mirror --------------------------------------------------------------------------------

def _files() -> dict[str, Path]:
    return {p.name: p for p in sorted(LLAMA.dir.iterdir())
            if p.is_file() and not p.name.startswith(".")}


class _Mirror(BaseHTTPRequestHandler):
    mode = "ok"
    log_path: Path = ROOT / "mirror.log"
    protocol_version = "HTTP/1.1"

    def log_message(self, fmt: str, *args: object) -> None:
        with open(self.log_path, "a") as f:
            f.write(f"{time.strftime('%H:%M:%S')} {fmt % args}\n")

    def _send(self, code: int, body: bytes = b"", ctype: str = "application/json",
              headers: dict[str, str] | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body)))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body)

    def _error(self, code: int, error_code: str, message: str) -> None:
        self._send(code, json.dumps({"error": message}).encode(),
                   headers={"X-Error-Code": error_code, "X-Error-Message": message})

    def do_HEAD(self) -> None:   # noqa: N802
        self.do_GET()

    def do_GET(self) -> None:   # noqa: N802
        self.log_message("%s %s (%s)", self.command, self.path, self.headers.get("Authorization",
                                                                                 "no token"))
        if self.mode == "401":
            self._send(401, b'{"error":"Invalid credentials in Authorization header"}',
                       headers={"X-Error-Message": "Invalid credentials in Authorization header"})
            return
        if self.mode == "html":
            self._send(200, PORTAL, "text/html; charset=utf-8")
            return
        path = self.path.split("?")[0]
        parts = [p for p in path.split("/") if p]
        api = parts[:2] == ["api", "models"]
        repo = "/".join(parts[2:4] if api else parts[:2])
        if repo != REPO:
            self._error(404, "RepoNotFound", "Repository not found")
            return
        files = _files()
        rest = parts[4:] if api else parts[2:]
        if api:
            rev = rest[1] if len(rest) >= 2 else "main"
            if rev not in ("main", SHA):
                self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
                return
            if rest[:1] == ["tree"]:
                body = [{"type": "file", "oid": hashlib.sha1(n.encode()).hexdigest(),
                         "size": p.stat().st_size, "path": n} for n, p in files.items()]
            else:
                body = {"_id": "blind147", "id": REPO, "modelId": REPO, "sha": SHA,
                        "private": False, "disabled": False, "gated": False,
                        "tags": ["safetensors", "llama"], "library_name": "transformers",
                        "siblings": [{"rfilename": n} for n in files]}
            self._send(200, json.dumps(body).encode())
            return
        if len(rest) < 3 or rest[0] != "resolve":
            self._error(404, "EntryNotFound", "Entry not found")
            return
        rev, name = rest[1], "/".join(rest[2:])
        if rev not in ("main", SHA):
            self._error(404, "RevisionNotFound", f"Invalid rev id: {rev}")
            return
        if name not in files:
            self._error(404, "EntryNotFound", "Entry not found")
            return
        data = files[name].read_bytes()
        etag = '"' + hashlib.sha256(data).hexdigest() + '"'
        self._send(200, data, "application/octet-stream",
                   {"ETag": etag, "X-Repo-Commit": SHA, "Accept-Ranges": "bytes"})


class _Running:
    """The mirror while a scenario runs; close() (the recorder's, after the run) stops it."""

    def __init__(self, server: ThreadingHTTPServer) -> None:
        self.server = server
        threading.Thread(target=server.serve_forever, daemon=True).start()

    def close(self) -> None:
        self.server.shutdown()
        self.server.server_close()


def _free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


MIRROR_PORTS: dict[str, int] = {}


def mirror(name: str, mode: str) -> Callable[[Ctx], None]:
    """Start the mirror on the port this scenario's environment names."""
    def before(ctx: Ctx) -> None:
        handler = type(f"Mirror_{mode}", (_Mirror,),
                       {"mode": mode, "log_path": ROOT / f"mirror-{name}.log"})
        srv = ThreadingHTTPServer(("127.0.0.1", MIRROR_PORTS[name]), handler)
        ctx.keep.append(_Running(srv))
    return before


def env_for(name: str, mirrored: bool, **extra: str) -> dict[str, str]:
    home = HF / name
    home.mkdir(parents=True, exist_ok=True)
    env = {"HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0", "HF_HOME": str(home), **extra}
    if mirrored:
        MIRROR_PORTS[name] = _free_port()
        env["HF_ENDPOINT"] = f"http://127.0.0.1:{MIRROR_PORTS[name]}"
    return env


# --- steps ---------------------------------------------------------------------------------------

def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions); a pause."""
    found = ctx.wait_any([SG_READY], 200)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def hub_id(repo: str) -> Callable[[Path], Path]:
    return lambda work: Path(repo)


def v(name: str, what: str, model: Callable[[Path], Path] | None, mode: str | None,
      extra: list[str] | None = None, **env: str) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *(extra or [])], model=model,
                    env=env_for(name, mode is not None, **env),
                    before=mirror(name, mode) if mode else None, act=v_until)


def s(name: str, what: str, model: Callable[[Path], Path] | None, mode: str | None,
      extra: list[str] | None = None, **env: str) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *(extra or [])], model=model,
                    env=env_for(name, mode is not None, **env),
                    before=mirror(name, mode) if mode else None, act=s_until)


ONLINE = "hub online (HF_HUB_OFFLINE=0), empty HF_HOME"
M_OK = f"HF_ENDPOINT a local mirror serving {REPO} (revision main only)"
TOKEN = "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"

SCENARIOS = [
    v("v-hub-token-revoked-401", f"model by hub id ({REPO}), {ONLINE}, HF_TOKEN a revoked token; "
      "HF_ENDPOINT a local mirror answering every request 401 Invalid credentials",
      hub_id(REPO), "401", HF_TOKEN=TOKEN),
    v("v-hub-mirror-html-portal", f"model by hub id ({REPO}), {ONLINE}; HF_ENDPOINT a local "
      "mirror answering every request 200 with a captive portal's HTML page", hub_id(REPO),
      "html"),
    v("v-hub-org-typo", f"model by hub id with the organisation misspelt (tiny-orq/llama-tiny), "
      f"{ONLINE}; {M_OK}, 404 RepoNotFound for others", hub_id("tiny-orq/llama-tiny"), "ok"),
    v("v-tokenizer-hub-id-no-network", f"the model a local path, --tokenizer a hub id ({REPO}), "
      f"{ONLINE}, default endpoint (huggingface.co does not resolve here)", None, None,
      ["--tokenizer", REPO]),
    v("v-download-dir-readonly", f"model by hub id ({REPO}), {ONLINE}; {M_OK}; --download-dir "
      f"{RO}, a read-only tmpfs", hub_id(REPO), "ok", ["--download-dir", str(RO)]),
    s("s-hub-mirror-html-portal", f"model by hub id ({REPO}), {ONLINE}; HF_ENDPOINT a local "
      "mirror answering every request 200 with a captive portal's HTML page", hub_id(REPO),
      "html"),
    s("s-hub-revision-branch-missing", f"model by hub id ({REPO}), {ONLINE}; {M_OK}; --revision "
      "v2-instruct, a branch the mirror lacks (404 RevisionNotFound)", hub_id(REPO), "ok",
      ["--revision", "v2-instruct"]),
    s("s-hf-transfer-not-installed", f"model by hub id ({REPO}), {ONLINE}; {M_OK}; "
      "HF_HUB_ENABLE_HF_TRANSFER=1 with no hf_transfer package installed", hub_id(REPO), "ok",
      HF_HUB_ENABLE_HF_TRANSFER="1"),
]
