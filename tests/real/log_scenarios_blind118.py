"""The hundred-and-eighteenth batch's scenarios (tests/fixtures/corpus/fresh117): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind118.py OUT

Themes: a second server or job beside a running one on the same host - what goes wrong when two
things share a machine. Two servers on one port through different addresses (a neighbour on
127.0.0.1 while vLLM binds the IPv6 wildcard `::`; a neighbour on the dual-stack `[::]` while
SGLang binds 127.0.0.1; a neighbour SGLang-like server on `[::1]` while this SGLang binds
`localhost`, in a namespace whose /etc/hosts lists `::1 localhost` first, so that SGLang's own
warm-up request goes to the neighbour); a shared compile cache folder (VLLM_CACHE_ROOT and
TORCHINDUCTOR_CACHE_DIR) that another job's start script keeps clearing while vLLM compiles; a
tmp reaper of another job deleting the socket files in vLLM's VLLM_RPC_BASE_PATH as they appear;
CPU pinning copied from a neighbour's plan (VLLM_CPU_OMP_THREADS_BIND=2-3, cores this host
lacks; `0|1`, a two-rank binding, on a one-rank launch, both engines); a sync job that swaps the
model folder for another size of the same family (llama-hd16) once the engine has read its
config; a second download job rewriting the model's shards in place (same bytes, written slowly
from the start) while the server starts; a second server holding the engine's own download lock
for a hub id (SGLang, offline HF cache) so that this one waits on it.

Helper processes (the neighbours) are started by the scenario's act with a session of their own
and killed (their whole group) when the act ends; sockets held in the recorder are closed by it.
SGLang runs with --device cpu --model-impl transformers (its own Llama module imports vllm);
vLLM with VLLM_BASE's settings. Files go under /tmp/blind118/.

Recorded 2026-12-06 in four invocations, taking turns with five other helpers' recorders (most
of the wall time was waiting for the lock): vLLM 143 s (four scenarios) and 157 s (three),
SGLang 332 s (four) and 61 s (two) - 693 s, about 11.5 minutes; each scenario once, all 13
recorded kept. s-model-swapped-at-init did not do what its description says: its needle, `Init
torch distributed begin`, is in the run's own source line (and this SGLang prints `Init parallel
begin`), so the folder was swapped at once, before SGLang read anything, and the run served the
other model whole (its log is labelled so). Planned and dropped before
recording: v-vllm-port-neighbour (VLLM_PORT naming a port a torchrun job holds) - the CPU
build's one-rank executor meets its worker through a file store (`distributed_init_method=
file:///tmp/vllm_dist_...`), so VLLM_PORT is never used and the log would be a plain serving
run. What the engines did: vLLM `--host ::` collides with a 127.0.0.1 listener at once
(`OSError: [Errno 98]` in create_server_socket, before any engine process). SGLang with a
dual-stack [::] neighbour gets through loading and KV cache, then uvicorn's bind fails and it
hangs in `Waiting for application shutdown.`. SGLang with --host localhost, where localhost is
::1 first, binds ::1 (not 127.0.0.1) and so collides with the [::1] neighbour; its warm-up
thread meanwhile talks to the neighbour and even prints `The server is fired up and ready to
roll!` before the launcher shuts down (exit 3). VLLM_CPU_OMP_THREADS_BIND=2-3 dies in the worker
with the bare `libgomp: Thread creation failed: Invalid argument`; `0|1` on one rank takes core 0
silently in both engines and serves. A cache folder cleared under vLLM's compile gives Inductor's
`CppCompileError` (`cc1plus: fatal error: ... .main.cpp: No such file or directory`) in
profile_run. A tmp reaper deleting vLLM's IPC socket files leaves the engine core silent right
after it starts (no `Initializing a V1 LLM engine`, no error). A model folder swapped for
llama-hd16 after vLLM's engine core read the config: `The size of tensor a (256) must match the
size of tensor b (64)` in the embedding's weight loader. Shards being rewritten in place: SGLang
`SafetensorError: ... incomplete metadata, file not fully covered`. A held download lock
(SGLang, hub id): silent after `Load weight begin` / `Using Transformers backend.`. SGLang here
sizes its KV cache from the memory free at launch: one run took 19.8 GB of the host's 23.6 and
then served at 0.17 tokens/s.
"""

from __future__ import annotations

import hashlib
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import threading
import time
from collections.abc import Callable
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    linger,
    take_port,
)
from setup_engines import LLAMA  # noqa: E402

ROOT = Path("/tmp/blind118")
ROOT.mkdir(parents=True, exist_ok=True)
OTHER_MODEL = LLAMA.dir.parent / "llama-hd16-v3"   # another size of the same family
SG = ["--device", "cpu", "--model-impl", "transformers"]
S_READY = "The server is fired up and ready to roll!"
V_READY = READY_LINE

# --- neighbours: processes beside the server, killed when the act ends ----------------------

_NEIGHBOURS: list[subprocess.Popen] = []


def start_neighbour(name: str, code: str, *args: str) -> subprocess.Popen:
    log = open(ROOT / f"neighbour-{name}.log", "wb")
    p = subprocess.Popen([sys.executable, "-c", code, *args], stdout=subprocess.PIPE,
                         stderr=log, stdin=subprocess.DEVNULL, start_new_session=True)
    _NEIGHBOURS.append(p)
    return p


def stop_neighbours() -> None:
    while _NEIGHBOURS:
        p = _NEIGHBOURS.pop()
        try:
            os.killpg(p.pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
        try:
            p.wait(10)
        except subprocess.TimeoutExpired:
            pass


def end_or_serve(engine: str, timeout: float, extra: tuple[str, ...] = ()) -> Callable[[Ctx], None]:
    """Wait for the run to end, or to say it is up (then two completions and a pause), or to
    log one of ``extra`` (then a short pause); at most ``timeout`` s."""
    ready = V_READY if engine == "vllm" else S_READY

    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        hit = ctx.wait_any([ready, *extra], timeout)
        if ctx.proc.poll() is not None:
            return
        if hit == ready:
            ctx.complete(2, max_tokens=16)
            time.sleep(8)
        elif hit is not None:
            linger(ctx, 10)
    return act


def with_neighbour(name: str, code: str, args: Callable[[Ctx], list[str]],
                   then: Callable[[Ctx], None], wait_line: bool = False) -> Callable[[Ctx], None]:
    """Start a neighbour process (``code`` on ``args(ctx)``) as the server starts; run ``then``;
    kill the neighbour."""
    def act(ctx: Ctx) -> None:
        try:
            p = start_neighbour(name, code, *args(ctx))
            if wait_line and p.stdout is not None:
                p.stdout.readline()          # the neighbour says it holds what it takes
            then(ctx)
        finally:
            stop_neighbours()
    return act


# the neighbours' code
CLEANER = r'''
import shutil, sys, time
# another job's start script: "clear the shared compile cache" - in a loop, as its retries do
while True:
    for d in sys.argv[1:]:
        shutil.rmtree(d, ignore_errors=True)
    time.sleep(0.3)
'''

REAPER = r'''
import os, sys, time
# a tmp reaper: removes every file in the folder (stale sockets, it thinks) as it appears
d = sys.argv[1]
while True:
    try:
        for n in os.listdir(d):
            try:
                os.unlink(os.path.join(d, n))
            except OSError:
                pass
    except OSError:
        pass
    time.sleep(0.2)
'''

REWRITER = r'''
import pathlib, sys, time
# a second download job writing the same revision into the serving folder, in place
d, src = pathlib.Path(sys.argv[1]), pathlib.Path(sys.argv[2])
for f in sorted(d.glob("model-*.safetensors")):
    data = (src / f.name).read_bytes()
    with open(f, "wb") as out:
        for i in range(0, len(data), 8192):
            out.write(data[i:i + 8192]); out.flush(); time.sleep(0.2)
time.sleep(600)
'''

LOCKER = r'''
import fcntl, os, sys, time
# another server downloading the same hub model holds the engine's download lock
fd = os.open(sys.argv[1], os.O_RDWR | os.O_CREAT, 0o666)
fcntl.flock(fd, fcntl.LOCK_EX)
print("locked", flush=True)
time.sleep(600)
'''


# --- steps ----------------------------------------------------------------------------------

def take_port_dualstack(ctx: Ctx) -> None:
    """A neighbour listening on [::]:port with IPV6_V6ONLY off (IPv4 too)."""
    s = socket.socket(socket.AF_INET6)
    s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
    s.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 0)
    s.bind(("::", ctx.port))
    s.listen(8)
    ctx.keep.append(s)


def fresh(*dirs: Path) -> Callable[[Ctx], None]:
    def before(ctx: Ctx) -> None:
        for d in dirs:
            shutil.rmtree(d, ignore_errors=True)
            d.mkdir(parents=True, exist_ok=True)
    return before


SHARED = ROOT / "shared-cache"
RPC = ROOT / "rpc"


def swap_model_when(name: str, needles: list[str], then: Callable[[Ctx], None]):
    """The model folder ``work/name`` replaced (two renames, as a sync job does it) by a copy of
    OTHER_MODEL as soon as one of ``needles`` is logged."""
    def model(work: Path) -> Path:
        d = copy_model(work, name)
        nxt = work / f"{name}.next"
        shutil.rmtree(nxt, ignore_errors=True)
        shutil.copytree(OTHER_MODEL, nxt)
        shutil.rmtree(work / f"{name}.prev", ignore_errors=True)
        return d

    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        end = time.monotonic() + 120
        while time.monotonic() < end and ctx.proc.poll() is None:
            if any(n in ctx.text() for n in needles):
                d = ctx.work / name
                d.rename(ctx.work / f"{name}.prev")
                (ctx.work / f"{name}.next").rename(d)
                break
            time.sleep(0.05)
        then(ctx)
    return model, act


def inplace_copy(name: str) -> Callable[[Path], Path]:
    def model(work: Path) -> Path:
        return copy_model(work, name)
    return model


def rewriter_args(name: str) -> Callable[[Ctx], list[str]]:
    return lambda ctx: [str(ctx.work / name), str(LLAMA.dir)]


# hub cache for the lock scenario
HUB = ROOT / "hub"
REPO_ID = "acme/llama-tiny"
COMMIT = "5d3c2b1a0f9e8d7c6b5a49382716f5e4d3c2b1a0"


def build_hub(ctx: Ctx) -> None:
    repo = HUB / ("models--" + REPO_ID.replace("/", "--"))
    shutil.rmtree(repo, ignore_errors=True)
    snap = repo / "snapshots" / COMMIT
    shutil.copytree(LLAMA.dir, snap, ignore=shutil.ignore_patterns(".complete"))
    (repo / "refs").mkdir(parents=True, exist_ok=True)
    (repo / "refs" / "main").write_text(COMMIT)


def lock_path(repo_id: str) -> str:
    name = repo_id.replace("/", "-")
    return f"/tmp/{hashlib.sha256(name.encode()).hexdigest()}{name}.lock"


# the neighbour SGLang-like server on [::1]:port, and the /etc/hosts this run sees
HOSTS = ROOT / "hosts"
HOSTS.write_text("::1 localhost ip6-localhost\n127.0.0.1 localhost\n127.0.0.1 vm\n")


class _V6Server(ThreadingHTTPServer):
    address_family = socket.AF_INET6

    def server_bind(self) -> None:
        self.socket.setsockopt(socket.IPPROTO_IPV6, socket.IPV6_V6ONLY, 1)
        super().server_bind()


class _OtherSglang(BaseHTTPRequestHandler):
    """Another team's SGLang server (another model) answering on [::1] on the same port."""

    def _json(self, body: dict) -> None:
        data = json.dumps(body).encode()
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:   # noqa: N802
        if self.path.startswith("/model_info") or self.path.startswith("/get_model_info"):
            self._json({"model_path": "/models/team-b/qwen2-0.5b-instruct",
                        "tokenizer_path": "/models/team-b/qwen2-0.5b-instruct",
                        "is_generation": True, "preferred_sampling_params": None,
                        "weight_version": "default", "has_image_understanding": False,
                        "has_audio_understanding": False, "model_type": "qwen2",
                        "architectures": ["Qwen2ForCausalLM"]})
        else:
            self.send_error(404)

    def do_POST(self) -> None:  # noqa: N802
        n = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(n)
        if self.path.startswith("/generate"):
            self._json({"text": " Paris, and its largest", "meta_info": {
                "id": "b2f1", "finish_reason": {"type": "length", "length": 8},
                "prompt_tokens": 6, "completion_tokens": 8, "cached_tokens": 0}})
        else:
            self.send_error(404)

    def log_message(self, *a: object) -> None:
        pass


def other_server_on_v6(then: Callable[[Ctx], None]) -> Callable[[Ctx], None]:
    def act(ctx: Ctx) -> None:
        srv = _V6Server(("::1", ctx.port), _OtherSglang)
        t = threading.Thread(target=srv.serve_forever, daemon=True)
        t.start()
        try:
            then(ctx)
        finally:
            srv.shutdown()
            srv.server_close()
    return act


# SGLang launched in a private mount namespace whose /etc/hosts lists ::1 localhost first
LOCALHOST_NS = (
    "import os, sys; m, p = sys.argv[1], sys.argv[2]; "
    "os.execvp('unshare', ['unshare', '-m', 'sh', '-c', "
    f"'mount --bind {HOSTS} /etc/hosts && exec \"$0\" \"$@\"', sys.executable, "
    "'-m', 'sglang.launch_server', '--model-path', m, '--host', 'localhost', '--port', p, "
    "'--device', 'cpu', '--model-impl', 'transformers'])"
)


def v(name: str, what: str, args: list[str], act: Callable[[Ctx], None], **kw) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *args], act=act, **kw)


def s(name: str, what: str, args: list[str], act: Callable[[Ctx], None], **kw) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *args], act=act, **kw)


_v_swap_model, _v_swap_act = swap_model_when(
    "swap-at-load", ["Initializing a V1 LLM engine"], end_or_serve("vllm", 90))
_s_swap_model, _s_swap_act = swap_model_when(
    "swap-at-init", ["Init torch distributed begin"], end_or_serve("sglang", 90))

SCENARIOS: list[Scenario] = [
    # --- vLLM -----------------------------------------------------------------------------------
    v("v-dualstack-host-v4-taken", "--host :: (the IPv6 wildcard, dual-stack) while a neighbour "
      "server already listens on 127.0.0.1 on the same port", ["--host", "::"],
      end_or_serve("vllm", 60), before=take_port),
    v("v-cache-cleared-by-neighbour", "VLLM_CACHE_ROOT and TORCHINDUCTOR_CACHE_DIR in a folder "
      "shared with another job whose start script keeps clearing it (rmtree every 0.3 s) while "
      "this server starts and compiles", [],
      with_neighbour("cleaner", CLEANER,
                     lambda ctx: [str(SHARED / "vllm"), str(SHARED / "inductor")],
                     end_or_serve("vllm", 150)),
      env={"VLLM_CACHE_ROOT": str(SHARED / "vllm"),
           "TORCHINDUCTOR_CACHE_DIR": str(SHARED / "inductor")},
      before=fresh(SHARED / "vllm", SHARED / "inductor")),
    v("v-rpc-sockets-reaped", "VLLM_RPC_BASE_PATH a folder another job's tmp reaper sweeps "
      "(every file in it deleted every 0.2 s, the engine's IPC socket files as they appear)", [],
      with_neighbour("reaper", REAPER, lambda ctx: [str(RPC)], end_or_serve("vllm", 75)),
      env={"VLLM_RPC_BASE_PATH": str(RPC)}, before=fresh(RPC)),
    v("v-omp-bind-absent-cores", "VLLM_CPU_OMP_THREADS_BIND=2-3 (the second server's share of a "
      "4-core plan: cores 0-1 for the first server, 2-3 for this one) on this 2-core host", [],
      end_or_serve("vllm", 90), env={"VLLM_CPU_OMP_THREADS_BIND": "2-3"}),
    v("v-omp-bind-two-ranks-tp1", "VLLM_CPU_OMP_THREADS_BIND=0|1 (a neighbour's two-rank binding "
      "copied from its env file) on this one-rank launch", [],
      end_or_serve("vllm", 120), env={"VLLM_CPU_OMP_THREADS_BIND": "0|1"}),
    v("v-model-swapped-at-load", "a sync job swaps the model folder (two renames) for another "
      "size of the same family (hidden 64, not 256) as soon as the engine core logs its config",
      [], _v_swap_act, model=_v_swap_model),
    v("v-shards-rewritten-in-place", "a second download job writes the same revision into the "
      "serving folder in place (each shard truncated, then rewritten slowly, 8 KiB every 0.2 s) "
      "from the moment the server starts", [],
      with_neighbour("v-rewriter", REWRITER, rewriter_args("v-rewrite"),
                     end_or_serve("vllm", 90)), model=inplace_copy("v-rewrite")),
    # --- SGLang ---------------------------------------------------------------------------------
    s("s-dualstack-neighbour-port", "a neighbour server listens on [::] (dual-stack, IPv4 too) "
      "on the port this server binds on 127.0.0.1", [],
      end_or_serve("sglang", 90, ("address already in use",)), before=take_port_dualstack),
    Scenario("s-localhost-v6-neighbour", "sglang", "--host localhost in a namespace whose /etc/hosts lists "
      "`::1 localhost` first, while another team's SGLang-like server answers on [::1] on the "
      "same port (IPv6 only): this server's bind of localhost and its own warm-up request both go "
      "to ::1, the neighbour's; "
      "then two completions to 127.0.0.1",
      ["-c", LOCALHOST_NS, "{model}", "{port}"],
      act=other_server_on_v6(end_or_serve("sglang", 120)), entry="python"),
    s("s-hub-lock-held", "model by hub id from an offline HF cache while a second server "
      "downloading the same model holds the engine's download lock (/tmp/<sha256>acme-llama-"
      "tiny.lock, flock)", [],
      with_neighbour("locker", LOCKER, lambda ctx: [lock_path(REPO_ID)],
                     end_or_serve("sglang", 75), wait_line=True),
      model=lambda work: Path(REPO_ID), env={"HF_HUB_CACHE": str(HUB)}, before=build_hub),
    s("s-shards-rewritten-in-place", "a second download job writes the same revision into the "
      "serving folder in place (each shard truncated, then rewritten slowly, 8 KiB every 0.2 s) "
      "from the moment the server starts", [],
      with_neighbour("s-rewriter", REWRITER, rewriter_args("s-rewrite"),
                     end_or_serve("sglang", 90)), model=inplace_copy("s-rewrite")),
    s("s-omp-bind-two-ranks-tp1", "SGLANG_CPU_OMP_THREADS_BIND=0|1 (a neighbour's two-rank "
      "binding copied from its env file) on this one-rank launch", [],
      end_or_serve("sglang", 100), env={"SGLANG_CPU_OMP_THREADS_BIND": "0|1"}),
    s("s-model-swapped-at-init", "a sync job swaps the model folder (two renames) for another "
      "size of the same family (hidden 64, not 256) as soon as the scheduler logs `Init torch "
      "distributed begin`", [], _s_swap_act, model=_s_swap_model),
]
