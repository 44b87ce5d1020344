"""The two-hundred-and-eighty-fifth batch's scenarios (tests/fixtures/corpus/fresh284): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind285.py OUT

Themes: downloads from a Hugging Face mirror that break partway, a new round, as a person meets
them on a host that pulls models at launch through a corporate or regional mirror. The model is
given by its hub id (northwind-ml/llama-tiny) with HF_HUB_OFFLINE=0 and TRANSFORMERS_OFFLINE=0, an
empty HF_HOME of the scenario's own under /tmp/blind285/hf/NAME, and HF_ENDPOINT=http://127.0.0.1:PORT,
a local mirror of this table's own (a ThreadingHTTPServer run in the recorder's process while the
scenario runs, the 197th batch's API paths and Hub headers - X-Repo-Commit, ETag, X-Linked-Etag/-Size
- its requests written to /tmp/blind285/mirror-NAME.log), with ONE fault each. vLLM: the shard
model-00002-of-00004.safetensors answered on GET with a Content-Length of half the file (and that
half, the connection kept) while its HEAD's X-Linked-Size says the whole; a rate limiter answering
the mirror's first three requests 429 with Retry-After: 2; HF_HUB_DOWNLOAD_TIMEOUT=2 while the shard
comes over a slow link (32 KiB, then 4 s of nothing); every /resolve/ download redirected (301) to
https:// at the mirror's own plain-HTTP port. SGLang: the shard redirected (302) to a storage host
whose name does not resolve (a `.invalid` name); HF_HUB_ETAG_TIMEOUT=1 while the mirror holds every
HEAD answer 3 s; HF_HUB_DOWNLOAD_TIMEOUT=0.5 (a fraction where the Hub client reads an integer), the
mirror healthy; the shard's HEAD answered with a stale upload's ETag and X-Linked-Etag while its GET
carries the right one (two cache nodes out of step).

Earlier batches already had (not repeated): a shard cut at half with a Content-Length saying
the whole (both engines), config.json answered 200 with an HTML error page, tokenizer.json answered
503 with Retry-After, a shard redirected to a port nobody listens on (vLLM), a shard answered 500,
config.json in an endless redirect loop, a shard trickled a byte every 25 s past the default read
timeout (SGLang) (197th); HF_ENDPOINT at a port nobody listens on, the whole mirror down (73rd,
both engines); a CA bundle missing (91st); an https proxy refused (92nd); a mirror answering 401 or
a captive portal's HTML to everything, 404 for a repository or a branch, --download-dir read-only,
HF_HUB_ENABLE_HF_TRANSFER=1 without hf_transfer (147th); the local cache's layout damaged or a blob
truncated on disk (103rd, 132nd, 174th, 274th).

Recorded 2026-12-08 in one invocation (raw1: four vLLM, then four SGLang), waiting turns with
other helpers' recorders for the shared lock; each scenario once. About 7.5 minutes of recording
(443 s: vLLM 28+61+44+9 s, SGLang 28+210+5+58 s). 8 kept (final files jj101-jj108). Dropped: none;
s-mirror-shard-etag-mismatch never showed its fault and is kept as a fair log of the ground
(labelled ready).

What the engines did. Four crashed, four served; none hung. vLLM: the shard whose GET says half
its size is caught by huggingface_hub's size check at once, no retry: `OSError: Consistency check
failed: file should be of size 919408 but has size 459704 ... This is usually due to network
issues`, in the worker's `load_model` -> `download_weights_from_hf` (`WorkerProc failed to start.`,
`Engine core initialization failed`), weight_loading. The 429s cost one `HTTP Error 429 thrown
while requesting HEAD .../config.json` and `Rate limited. Waiting 3.0s before retry [Retry 1/5].`,
then it served two completions. The slow link under HF_HUB_DOWNLOAD_TIMEOUT=2 gives six `Error while
downloading from ...: timed out` 3 s apart, `Trying to resume download...`, `Max retries exceeded.`
and `httpx2.ReadTimeout: timed out` in the loader, weight_loading. The https redirect is never
followed: the 301 lacks the Hub's headers, so the API server's first config read ends at launch on
`FileMetadataError: ... is missing the 'X-Repo-Commit' header ... If HF_ENDPOINT is set, check that
it points to a Hub-compatible endpoint` and `OSError: We couldn't connect to 'http://127.0.0.1:PORT'
to load the files, and couldn't find them in the cached files.` SGLang: the unresolvable redirect
target gives six `Error while downloading from http://lfs-cdn.mirror-store.invalid/...: [Errno -2]
Name or service not known` a second apart, `Max retries exceeded.`, `Scheduler hit an exception`
ending `httpx.ConnectError: [Errno -2] Name or service not known`, `Received sigquit from a child
process`, weight_loading. HF_HUB_ETAG_TIMEOUT=1 against 3 s HEADs slows the start to three minutes
(SGLang's hf_quant_config.json probe logs tracebacks ending `httpx.ReadTimeout: timed out`, `retry()
failed once ...` and `Failed to load hf_quant_config.json ...: retry() exceed maximum number of
retries.` five times; 47 s of silence while the tokenizer's optional files time out) and then it
is fired up and serves. HF_HUB_DOWNLOAD_TIMEOUT=0.5 ends the interpreter at once, before any line
of SGLang's, in huggingface_hub's constants as the sglang package imports transformers: `ValueError:
invalid literal for int() with base 10: '0.5'`. The shard's stale ETag on HEAD is not checked at
all (the blob is stored under the stale name, only its size compared) and it serves.
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

ROOT = Path("/tmp/blind285")
HF = ROOT / "hf"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
REPO = "northwind-ml/llama-tiny"
SHA = hashlib.sha1(b"blind285 northwind-ml/llama-tiny").hexdigest()
SHARD = "model-00002-of-00004.safetensors"
DEAD_HOST = "lfs-cdn.mirror-store.invalid"


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
    """Serves REPO (revision main) the way the Hub's API does; ``fault`` breaks one thing."""
    fault = "none"
    target = ""
    log_path: Path = ROOT / "mirror.log"
    protocol_version = "HTTP/1.1"
    counter = [0]
    lock = threading.Lock()

    def log_message(self, fmt: str, *args: object) -> None:
        with open(self.log_path, "a") as f:
            f.write(f"{time.strftime('%H:%M:%S')} {fmt % args}\n")

    def _send(self, code: int, body: bytes = b"", ctype: str = "application/json",
              headers: dict[str, str] | None = None, length: int | None = None) -> None:
        self.send_response(code)
        self.send_header("Content-Type", ctype)
        self.send_header("Content-Length", str(len(body) if length is None else length))
        for k, v in (headers or {}).items():
            self.send_header(k, v)
        self.end_headers()
        if self.command != "HEAD":
            self.wfile.write(body if length is None else body[:length])

    def _error(self, code: int, error_code: str, message: str) -> None:
        self._send(code, json.dumps({"error": message}).encode(),
                   headers={"X-Error-Code": error_code, "X-Error-Message": message})

    def do_HEAD(self) -> None:   # noqa: N802
        if self.fault == "slow-head":
            # the mirror's metadata answers take 3 s (an overloaded proxy in front of it)
            self.log_message("HEAD %s held 3 s", self.path)
            time.sleep(3)
        self.do_GET()

    def do_GET(self) -> None:   # noqa: N802
        self.log_message("%s %s (range %s)", self.command, self.path,
                         self.headers.get("Range", "-"))
        if self.fault == "429-first":
            with self.lock:
                self.counter[0] += 1
                n = self.counter[0]
            if n <= 3:
                msg = "Too Many Requests: rate limit exceeded, retry later"
                self._send(429, json.dumps({"error": msg}).encode(),
                           headers={"Retry-After": "2", "X-Error-Message": msg})
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
                body = {"_id": "blind285", "id": REPO, "modelId": REPO, "sha": SHA,
                        "private": False, "disabled": False, "gated": False,
                        "tags": ["safetensors", "llama"], "library_name": "transformers",
                        "siblings": [{"rfilename": n} for n in files]}
            self._send(200, json.dumps(body).encode())
            return
        if len(rest) < 3 or rest[0] != "resolve":
            self._error(404, "EntryNotFound", "Entry not found")
            return
        if self.fault == "https-redirect":
            # the mirror's front end now forces TLS on file downloads; no TLS on this port
            loc = f"https://127.0.0.1:{self.server.server_port}{self.path}"
            self._send(301, b"", "text/html", {"Location": loc})
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
        if name == self.target and self._fault(name, data, meta):
            return
        self._send(200, data, "application/octet-stream", meta)

    def _fault(self, name: str, data: bytes, meta: dict[str, str]) -> bool:
        """Break this file's answer; False: answer it normally after all."""
        f = self.fault
        if f == "short-length" and self.command == "GET":
            # the mirror's GET says (and sends) half the file; its HEAD said the whole size
            self._send(200, data, "application/octet-stream", meta, length=len(data) // 2)
            return True
        if f == "etag-mismatch":
            # HEAD and GET answered by two cache nodes: the HEAD's ETag is a stale upload's
            if self.command == "HEAD":
                stale = '"' + hashlib.sha256(b"older upload " + data[:64]).hexdigest() + '"'
                meta = {**meta, "ETag": stale, "X-Linked-Etag": stale}
            self._send(200, data, "application/octet-stream", meta)
            return True
        if f == "dead-host":
            loc = f"http://{DEAD_HOST}/repos/{SHA[:8]}/{meta['ETag'].strip(chr(34))}"
            self._send(302, b"", "text/plain", {**meta, "Location": loc})
            return True
        if f == "slow" and self.command == "GET":
            start = 0
            rng = self.headers.get("Range", "")
            if rng.startswith("bytes="):
                try:
                    start = int(rng[6:].split("-")[0])
                except ValueError:
                    start = 0
            self.send_response(206 if start else 200)
            self.send_header("Content-Type", "application/octet-stream")
            self.send_header("Content-Length", str(len(data) - start))
            if start:
                self.send_header("Content-Range", f"bytes {start}-{len(data) - 1}/{len(data)}")
            for k, v in meta.items():
                self.send_header(k, v)
            self.end_headers()
            self.close_connection = True
            # a slow link: 32 KiB, then 4 s, then 32 KiB ... (a whole file in about 2 minutes)
            pos = start
            while pos < len(data):
                try:
                    self.wfile.write(data[pos:pos + 32768])
                    self.wfile.flush()
                except OSError:
                    break
                pos += 32768
                time.sleep(4)
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
                       {"fault": fault, "target": target, "counter": [0],
                        "lock": threading.Lock(), "log_path": ROOT / f"mirror-{name}.log"})
        srv = _Server(("127.0.0.1", MIRROR_PORTS[name]), handler)
        ctx.keep.append(_Running(srv))
    return before


def env_for(name: str, **extra: str) -> dict[str, str]:
    home = HF / name
    home.mkdir(parents=True, exist_ok=True)
    MIRROR_PORTS[name] = _free_port()
    return {"HF_HUB_OFFLINE": "0", "TRANSFORMERS_OFFLINE": "0", "HF_HOME": str(home),
            "HF_ENDPOINT": f"http://127.0.0.1:{MIRROR_PORTS[name]}", **extra}


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


def v(name: str, what: str, fault: str, target: str = "", **extra: str) -> Scenario:
    return Scenario(name, "vllm", f"{BASE}; {what}", [*VLLM_BASE], model=hub_id,
                    env=env_for(name, **extra), before=mirror(name, fault, target), act=v_until)


def s(name: str, what: str, fault: str, target: str = "", **extra: str) -> Scenario:
    return Scenario(name, "sglang", f"{BASE}; {what}", [*SG], model=hub_id,
                    env=env_for(name, **extra), before=mirror(name, fault, target), act=s_until)


BASE = (f"model by hub id ({REPO}), hub online (HF_HUB_OFFLINE=0), empty HF_HOME; HF_ENDPOINT "
        "a local mirror serving the tiny model's files")

SCENARIOS = [
    v("v-mirror-shard-short-content-length", f"{SHARD}'s GET answered with a Content-Length of "
      "half the file (and half the bytes, the connection kept), its HEAD's X-Linked-Size the "
      "whole", "short-length", SHARD),
    v("v-mirror-rate-limit-429-first-requests", "the mirror's rate limiter answers its first "
      "three requests 429 Too Many Requests with Retry-After: 2, then serves everything",
      "429-first"),
    v("v-mirror-slow-link-download-timeout", f"HF_HUB_DOWNLOAD_TIMEOUT=2 while the mirror sends "
      f"{SHARD} 32 KiB at a time, 4 s apart", "slow", SHARD, HF_HUB_DOWNLOAD_TIMEOUT="2"),
    v("v-mirror-https-redirect-plain-port", "every /resolve/ download answered 301 to the same "
      "URL on https:// at the mirror's own port, which speaks plain HTTP", "https-redirect"),
    s("s-mirror-shard-redirect-unresolvable", f"{SHARD} redirected (302) to a storage host whose "
      f"name does not resolve ({DEAD_HOST})", "dead-host", SHARD),
    s("s-mirror-slow-head-etag-timeout", "HF_HUB_ETAG_TIMEOUT=1 while the mirror holds every "
      "HEAD (metadata) answer 3 s", "slow-head", HF_HUB_ETAG_TIMEOUT="1"),
    s("s-hub-download-timeout-float", "HF_HUB_DOWNLOAD_TIMEOUT=0.5 (a fraction, the variable is "
      "read as an integer), the mirror healthy", "none", HF_HUB_DOWNLOAD_TIMEOUT="0.5"),
    s("s-mirror-shard-etag-mismatch", f"{SHARD}'s HEAD answered with a stale upload's ETag and "
      "X-Linked-Etag, its GET with the right one (two cache nodes out of step)", "etag-mismatch",
      SHARD),
]
