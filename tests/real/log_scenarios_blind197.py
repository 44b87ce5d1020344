"""The hundred-and-ninety-seventh batch's scenarios (tests/fixtures/corpus/fresh196): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind197.py OUT

Themes: downloads from a Hugging Face mirror that break partway, as a person meets them on a host
that pulls models through a corporate or regional mirror. The model is given by its hub id
(corp-models/llama-tiny) with HF_HUB_OFFLINE=0 and TRANSFORMERS_OFFLINE=0, an empty HF_HOME of the
scenario's own under /tmp/blind197/hf/NAME, and HF_ENDPOINT=http://127.0.0.1:PORT, a local mirror
of this table's own (a ThreadingHTTPServer run in the recorder's process while the scenario runs,
the 147th batch's API paths, its requests written to /tmp/blind197/mirror-NAME.log) that serves
the tiny model's files with the Hub's headers (X-Repo-Commit, ETag, X-Linked-Etag/-Size for the
shards) and breaks ONE file's download: model-00002-of-00004.safetensors cut at half with a
Content-Length (and Range answers) saying the whole size (both engines); config.json answered 200
with an nginx 502 HTML page (vLLM); tokenizer.json answered 503 with Retry-After (vLLM); the shard
redirected (302) to a storage URL on a port nobody listens on (vLLM); the shard answered 500
(SGLang); config.json redirected into an endless /loop/a <-> /loop/b loop (SGLang); the shard
trickled, 4 KiB then a byte every 25 s, past the client's read timeout (SGLang).

Earlier batches already had (not repeated): HF_ENDPOINT at a port nobody listens on, the whole
mirror down (73rd, both engines); a CA bundle missing (91st); an https proxy refused (92nd); a
mirror answering 401 to everything, captive-portal HTML to everything, 404 for a repository or a
branch, --download-dir read-only, HF_HUB_ENABLE_HF_TRANSFER=1 (147th); the local cache's layout
damaged or a blob truncated on disk (103rd, 132nd, 174th).

vLLM runs with VLLM_BASE's settings; SGLang with --device cpu --model-impl transformers.

Recorded 2026-12-07 in one invocation (raw1: four vLLM, then four SGLang), taking turns with two
other helpers' recorders; each scenario once. About 5 minutes of recording (307 s: vLLM 40+10+33+42
s, SGLang 28+47+16+91 s). 8 kept (final files fy101-fy108). Dropped: none.

What the engines did: every fault ended the launch with the engine's own error; none served, none
hung. A fault in config.json or the tokenizer ends it at launch, in the API server (vLLM) or the
launcher's server_args resolution (SGLang), before any engine core or scheduler; a fault in a
weight shard ends it in weight_loading, since both engines download the weights lazily inside
their loader (vLLM's worker `load_model` -> `download_weights_from_hf`; SGLang's scheduler after
`Load weight begin`, `Local HF snapshot ... has no files matching ...; will attempt download.`).
huggingface_hub (1.x, httpx) retries a broken body five times (`Error while downloading from ...:
peer closed connection without sending complete message body (received 459704 bytes, expected
919408)` / `[Errno 111] Connection refused` / `timed out`, `Trying to resume download...`, `Max
retries exceeded.`), a second apart for a cut or a refused redirect target and one read timeout
(10 s) apart for the trickle, then raises httpx's error (`RemoteProtocolError`, `ConnectError`,
`ReadTimeout`): vLLM `WorkerProc failed to start.` ... `Engine core initialization failed` (for the
dead redirect target `Failed core proc(s): {}`, no core named), SGLang `Scheduler hit an exception`,
`Received sigquit from a child process`, `kill_process_tree called`. It retries a 500 on the
shard's HEAD silently (seven HEADs over 23 s, nothing logged), then `LocalEntryNotFoundError:
An error happened while trying to locate the file on the Hub and we cannot find the requested files
in the local cache`. A 503 gets `Rate limited. Waiting 2.0s before retry [Retry 1/5]` lines, and
then the missing tokenizer.json is passed over in silence (`Fetching 5 files` stops at 4/5): vLLM
dies later in AutoTokenizer with `Couldn't instantiate the backend tokenizer ... You need to have
sentencepiece or tiktoken installed`. An HTML page served 200 with the Hub's headers is stored as
config.json without complaint: `OSError: It looks like the config file at '...' is not a valid JSON
file.` A redirect loop is cut at once: `httpx.TooManyRedirects: Exceeded 20 redirects`, then
SGLang's `Can't load the configuration of 'corp-models/llama-tiny'`.
"""

from __future__ import annotations

import hashlib
import json
import socket
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind197")
HF = ROOT / "hf"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
REPO = "corp-models/llama-tiny"
SHA = hashlib.sha1(b"blind197 corp-models/llama-tiny").hexdigest()
SHARD = "model-00002-of-00004.safetensors"
ERROR_PAGE = (b"<!DOCTYPE html>\n<html><head><title>502 Bad Gateway</title></head><body>\n"
              b"<h1>Bad Gateway</h1><p>The proxy server received an invalid response from an "
              b"upstream server.</p><hr><address>nginx/1.24.0</address></body></html>\n")


def _setup() -> None:
    for d in (ROOT, HF):
        d.mkdir(parents=True, exist_ok=True)


_setup()


# --- the mirror --------------------------------------------------------------------------------

def _files() -> dict[str, Path]:
    return {p.name: p for p in sorted(LLAMA.dir.iterdir())
            if p.is_file() and not p.name.startswith(".")}


def _lfs(name: str) -> bool:
    return name.endswith(".safetensors")


class _Mirror(BaseHTTPRequestHandler):
    """Serves REPO (revision main); ``fault`` breaks one file's download: ``target`` names it."""
    fault = "none"
    target = ""
    log_path: Path = ROOT / "mirror.log"
    protocol_version = "HTTP/1.1"
    dead_port = 9

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
        self.log_message("%s %s (range %s)", self.command, self.path,
                         self.headers.get("Range", "-"))
        path = self.path.split("?")[0]
        parts = [p for p in path.split("/") if p]
        if parts[:1] == ["loop"]:
            # a redirect loop between two URLs of the mirror (a CDN rule gone wrong)
            other = "b" if parts[1:2] == ["a"] else "a"
            self._send(302, b"", headers={"Location": f"http://127.0.0.1:{self.server.server_port}"
                                          f"/loop/{other}/{self.target}"})
            return
        api = parts[:2] == ["api", "models"]
        repo = "/".join(parts[2:4] if api else parts[:2])
        if repo != REPO:
            self._error(404, "RepoNotFound", "Repository not found")
            return
        files = _files()
        rest = parts[4:] if api else parts[2:]
        if api:
            if rest[:1] == ["tree"]:
                body = []
                for n, p in files.items():
                    entry: dict[str, object] = {"type": "file", "size": p.stat().st_size,
                                                "path": n,
                                                "oid": hashlib.sha1(n.encode()).hexdigest()}
                    if _lfs(n):
                        entry["lfs"] = {"oid": hashlib.sha256(p.read_bytes()).hexdigest(),
                                        "size": p.stat().st_size, "pointerSize": 134}
                    body.append(entry)
            else:
                body = {"_id": "blind197", "id": REPO, "modelId": REPO, "sha": SHA,
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
        sha256 = hashlib.sha256(data).hexdigest()
        etag = f'"{sha256}"' if _lfs(name) else f'"{hashlib.sha1(data).hexdigest()}"'
        meta = {"ETag": etag, "X-Repo-Commit": SHA, "Accept-Ranges": "bytes"}
        if _lfs(name):
            meta.update({"X-Linked-Etag": etag, "X-Linked-Size": str(len(data))})
        if name == self.target and self.fault != "none":
            if self._fault(name, data, meta):
                return
        self._send(200, data, "application/octet-stream", meta)

    def _fault(self, name: str, data: bytes, meta: dict[str, str]) -> bool:
        """Break this file's answer; False: answer it normally after all."""
        f = self.fault
        if f == "html200":
            self._send(200, ERROR_PAGE, "text/html; charset=utf-8",
                       {"X-Repo-Commit": SHA, "ETag": '"' + hashlib.sha1(ERROR_PAGE).hexdigest()
                        + '"'})
            return True
        if f in ("500", "503"):
            code = int(f)
            msg = ("Internal Server Error" if code == 500 else
                   "Service Unavailable: upstream fetch in progress, retry later")
            self._send(code, json.dumps({"error": msg}).encode(),
                       headers={"X-Error-Message": msg, **({"Retry-After": "1"}
                                                          if code == 503 else {})})
            return True
        if f == "dead-redirect":
            # the mirror hands the file to a storage backend on a port nobody listens on
            loc = f"http://127.0.0.1:{self.dead_port}/lfs-store/{meta['ETag'].strip(chr(34))}"
            self._send(302, b"", "text/plain", {**meta, "Location": loc})
            return True
        if f == "loop":
            self._send(302, b"", "text/plain",
                       {**meta, "Location": f"http://127.0.0.1:{self.server.server_port}"
                                            f"/loop/a/{name}"})
            return True
        if f in ("cut", "trickle"):
            start = 0
            rng = self.headers.get("Range", "")
            if rng.startswith("bytes="):
                try:
                    start = int(rng[6:].split("-")[0])
                except ValueError:
                    start = 0
            code = 206 if start else 200
            self.send_response(code)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data) - start))
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            for k, v in meta.items():
                self.send_header(k, v)
            self.end_headers()
            if self.command == "HEAD":
                return True
            self.close_connection = True
            if f == "cut":
                # the mirror's copy stops at half the file; the headers say the whole size
                end = max(start, len(data) // 2)
                self.wfile.write(data[start:end])
                self.wfile.flush()
                return True
            # trickle: 4 KiB, then a byte every 25 s (past the client's read timeout)
            self.wfile.write(data[start:start + 4096])
            self.wfile.flush()
            pos = start + 4096
            for _ in range(6):
                time.sleep(25)
                try:
                    self.wfile.write(data[pos:pos + 1])
                    self.wfile.flush()
                except OSError:
                    break
                pos += 1
            return True
        return False


class _Server(ThreadingHTTPServer):
    daemon_threads = True
    block_on_close = False


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


def mirror(name: str, fault: str, target: str) -> Callable[[Ctx], None]:
    """Start the mirror on the port this scenario's environment names."""
    def before(ctx: Ctx) -> None:
        handler = type(f"Mirror_{fault}", (_Mirror,),
                       {"fault": fault, "target": target, "dead_port": _free_port(),
                        "log_path": ROOT / f"mirror-{name}.log"})
        srv = _Server(("127.0.0.1", MIRROR_PORTS[name]), handler)
        ctx.keep.append(_Running(srv))
    return before


def env_for(name: str) -> dict[str, str]:
    home = HF / name
    home.mkdir(parents=True, exist_ok=True)
    MIRROR_PORTS[name] = _free_port()
    return {"HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0", "HF_HOME": str(home),
            "HF_ENDPOINT": f"http://127.0.0.1:{MIRROR_PORTS[name]}"}


# --- steps ---------------------------------------------------------------------------------------

def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 210)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then two completions); a pause."""
    found = ctx.wait_any([SG_READY], 210)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(2)
        linger(ctx, 10)


def hub_id(work: Path) -> Path:
    return Path(REPO)


def v(name: str, what: str, fault: str, target: str) -> Scenario:
    return Scenario(name, "vllm", f"{BASE}; {what}", [*VLLM_BASE], model=hub_id,
                    env=env_for(name), before=mirror(name, fault, target), act=v_until)


def s(name: str, what: str, fault: str, target: str) -> Scenario:
    return Scenario(name, "sglang", f"{BASE}; {what}", [*SG], model=hub_id,
                    env=env_for(name), before=mirror(name, fault, target), act=s_until)


BASE = (f"model by hub id ({REPO}), hub online (HF_HUB_OFFLINE=0), empty HF_HOME; HF_ENDPOINT "
        "a local mirror serving the tiny model's files")

SCENARIOS = [
    v("v-mirror-shard-cut-short", f"the mirror's copy of {SHARD} stops at half the file, its "
      "Content-Length (and Range answers) saying the whole size, the connection closed there",
      "cut", SHARD),
    v("v-mirror-config-html-200", "config.json answered 200 with an nginx 502 Bad Gateway HTML "
      "page (text/html) in place of the JSON", "html200", "config.json"),
    v("v-mirror-tokenizer-503", "tokenizer.json alone answered 503 Service Unavailable "
      "(Retry-After: 1) every time", "503", "tokenizer.json"),
    v("v-mirror-shard-redirect-dead-port", f"{SHARD} redirected (302) to a storage backend URL on "
      "127.0.0.1 at a port nobody listens on", "dead-redirect", SHARD),
    s("s-mirror-shard-cut-short", f"the mirror's copy of {SHARD} stops at half the file, its "
      "Content-Length (and Range answers) saying the whole size, the connection closed there",
      "cut", SHARD),
    s("s-mirror-shard-500", f"{SHARD} alone answered 500 Internal Server Error every time", "500",
      SHARD),
    s("s-mirror-config-redirect-loop", "config.json redirected (302) to the mirror's /loop/a, "
      "which redirects to /loop/b and back, without end", "loop", "config.json"),
    s("s-mirror-shard-trickle", f"{SHARD} sent 4 KiB, then a byte every 25 s (past the client's "
      "read timeout), on every connection and every Range retry", "trickle", SHARD),
]
