"""The two-hundred-and-thirty-seventh batch's scenarios (tests/fixtures/corpus/fresh236): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind237.py OUT

Themes: the engines' inter-process channels as the host's limits and paths shape them - the
folder where each engine makes its ZMQ IPC socket files, and the local ports it takes for
itself. vLLM: VLLM_RPC_BASE_PATH (the folder of the API server's IPC sockets to the engine core)
a tmpfs whose inodes are all taken by leftover files of killed runs, bytes still free; the same
variable naming a stale Unix socket file a killed run left where a folder should be; the same
variable a folder on a read-only mount (a filesystem that refuses to make the socket files);
VLLM_PORT (the base of its internal ports) on a port another listener already holds. SGLang:
TMPDIR (where SGLang names its IPC files with tempfile, never removing them) a tmpfs whose
inodes its own leftovers of killed runs have nearly used up, one left free; TMPDIR naming a stale
Unix socket file instead of a folder; --dist-init-addr 127.0.0.1:PORT on a one-node launch while
another listener already holds that port. Each mount is a tmpfs of this table's under
/tmp/blind237/mnt, mounted as the scenario starts and lazily unmounted when it ends.

Earlier batches already had (not repeated): VLLM_RPC_BASE_PATH missing (69th), longer than a
Unix socket address (169th), its sockets reaped by a tmp cleaner (118th); TMPDIR missing, long
(85th, both engines), full in bytes (89th), frozen, removed at load; /dev/shm tiny, full,
read-only or swept (87th, 88th, 100th, 225th); VLLM_PORT as a Kubernetes URI and at 65535 with
--data-parallel-size 2 (169th); --port 70000; the KV-events ZMQ port taken; SGLang's --nccl-port
70000, 0, taken and equal to --port, --gated-launch-port held, --dist-init-addr without a port,
unreachable, unresolvable, at port 70000, IPv6 and its port taken on two nodes; MASTER_PORT held
(torchrun env, 119th); VLLM_HOST_IP (79th); RLIMIT_NOFILE met by a burst of connections
(113th).

Recorded 2026-12-07 in one invocation (raw1: all seven scenarios), waiting turns with other
helpers' recorders; each scenario once. About 3 minutes of recording (vLLM 10+11+11+50 s,
SGLang 11+51+21 s). 7 kept (final files hn101-hn107), none dropped; two faults never showed
(v-vllm-port-held, s-tmpdir-stale-socket) and are kept as fair ready logs of the ground.

What the engines did. vLLM: the three VLLM_RPC_BASE_PATH faults all end the API server as it
binds its input socket to the engine core, before any engine core starts, in ZMQ's words
(`ZMQError: No space left on device`, `Not a directory`, `Read-only file system`, each with the
ipc:// address); VLLM_PORT on a held port is silent - the one-process launch makes its process
group over a file:// init method, never touching the port - and it served two completions.
SGLang: TMPDIR on the inode-starved tmpfs dies before any progress line, not where SGLang names
its IPC files but importing flashinfer, whose cuda.tile probe calls tempfile.mkdtemp() (`OSError:
[Errno 28] No space left on device`); TMPDIR naming a stale socket file only draws CUTLASS DSL's
warning (`Could not determine user or create cache directory ... Not a directory`) - tempfile
falls back to /tmp - and it served; --dist-init-addr on a held port kills the scheduler at
`Init parallel begin` in TCPStore's `DistNetworkError: ... EADDRINUSE, message: address already
in use`, then `Received sigquit from a child process` and the launcher kills its tree. Crashed at
launch: hn101, hn102, hn103, hn105, hn107; ready in serving: hn104, hn106.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402
from record_logs import free_port  # noqa: E402

ROOT = Path("/tmp/blind237")
MNT = ROOT / "mnt"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
V_PORT = free_port()        # VLLM_PORT, held by a listener of this table's
S_DIST_PORT = free_port()   # --dist-init-addr's port, held by a listener of this table's


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)


_setup()


def _mount_tmpfs(name: str, opts: str) -> Path:
    d = MNT / name
    d.mkdir(parents=True, exist_ok=True)
    subprocess.run(["umount", "-l", str(d)], capture_output=True)
    subprocess.run(["mount", "-t", "tmpfs", "-o", opts, f"b237-{name}", str(d)], check=True)
    return d


def _fill_inodes(d: Path, leave: int) -> None:
    """Leftover IPC files of killed runs (tmpXXXXXXXX) until the inodes run out; then ``leave``
    of them removed again."""
    made: list[Path] = []
    i = 0
    while True:
        f = d / f"tmp{i:08x}"
        try:
            f.touch()
        except OSError:
            break
        made.append(f)
        i += 1
    for f in made[-leave:] if leave else []:
        f.unlink()


def inodes_before(name: str, leave: int):
    def before(ctx: Ctx) -> None:
        d = _mount_tmpfs(name, "size=8m,nr_inodes=48,mode=1777")
        _fill_inodes(d, leave)
    return before


def readonly_before(name: str):
    def before(ctx: Ctx) -> None:
        _mount_tmpfs(name, "size=1m,mode=1777,ro")
    return before


def stale_socket(path: Path):
    """A Unix socket file left behind by a killed run (bound, never unlinked)."""
    def before(ctx: Ctx) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        if path.exists() or path.is_symlink():
            path.unlink()
        s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
        s.bind(str(path))
        s.close()
    return before


def hold_port(port: int):
    def before(ctx: Ctx) -> None:
        s = socket.socket()
        s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        s.bind(("127.0.0.1", port))
        s.listen(8)
        ctx.keep.append(s)
    return before


def ends_or_serves(unmount: str | None = None):
    """Let the run end by itself; if it serves instead, two completions and a pause. A mount
    of the scenario's is lazily unmounted at the end."""
    def act(ctx: Ctx) -> None:
        try:
            found = ctx.wait_any([READY_LINE], 200)
            if found and ctx.proc is not None and ctx.proc.poll() is None:
                if "sglang" in ctx.text().split("\n", 1)[0]:
                    ctx.wait_any([SG_READY], 90)
                ctx.complete(2)
                time.sleep(10)
            else:
                linger(ctx, 20)
        finally:
            if unmount:
                if ctx.proc is not None and ctx.proc.poll() is None:
                    os.killpg(ctx.proc.pid, 9)
                    ctx.proc.wait(30)
                subprocess.run(["umount", "-l", str(MNT / unmount)], capture_output=True)
    return act


SCENARIOS = [
    Scenario("v-rpc-path-no-inodes", "vllm",
             "VLLM_RPC_BASE_PATH (the folder of its ZMQ IPC sockets) a tmpfs (nr_inodes=48) "
             "whose inodes are all used by leftover files of killed runs, bytes still free",
             VLLM_BASE, env={"VLLM_RPC_BASE_PATH": str(MNT / "v-inodes")},
             before=inodes_before("v-inodes", 0), act=ends_or_serves("v-inodes")),
    Scenario("v-rpc-path-stale-socket", "vllm",
             "VLLM_RPC_BASE_PATH names a stale Unix socket file a killed run left "
             "(/tmp/blind237/v-engine.sock), not a folder",
             VLLM_BASE, env={"VLLM_RPC_BASE_PATH": str(ROOT / "v-engine.sock")},
             before=stale_socket(ROOT / "v-engine.sock"), act=ends_or_serves()),
    Scenario("v-rpc-path-readonly-mount", "vllm",
             "VLLM_RPC_BASE_PATH a folder on a read-only tmpfs mount (a filesystem that "
             "refuses to create the IPC socket files)",
             VLLM_BASE, env={"VLLM_RPC_BASE_PATH": str(MNT / "v-ro")},
             before=readonly_before("v-ro"), act=ends_or_serves("v-ro")),
    Scenario("v-vllm-port-held", "vllm",
             f"VLLM_PORT={V_PORT} (the base of its internal ports) while another listener "
             "already holds that port",
             VLLM_BASE, env={"VLLM_PORT": str(V_PORT)},
             before=hold_port(V_PORT), act=ends_or_serves()),
    Scenario("s-tmpdir-no-inodes", "sglang",
             "TMPDIR (where SGLang names its ZMQ IPC files) a tmpfs (nr_inodes=48) filled with "
             "leftover tmpXXXXXXXX files of killed runs, one inode left free",
             SG, env={"TMPDIR": str(MNT / "s-inodes")},
             before=inodes_before("s-inodes", 1), act=ends_or_serves("s-inodes")),
    Scenario("s-tmpdir-stale-socket", "sglang",
             "TMPDIR names a stale Unix socket file a killed run left "
             "(/tmp/blind237/s-sched.sock), not a folder",
             SG, env={"TMPDIR": str(ROOT / "s-sched.sock")},
             before=stale_socket(ROOT / "s-sched.sock"), act=ends_or_serves()),
    Scenario("s-dist-init-addr-port-held", "sglang",
             f"--dist-init-addr 127.0.0.1:{S_DIST_PORT} on a one-node launch while another "
             "listener already holds that port",
             [*SG, "--dist-init-addr", f"127.0.0.1:{S_DIST_PORT}"],
             before=hold_port(S_DIST_PORT), act=ends_or_serves()),
]
