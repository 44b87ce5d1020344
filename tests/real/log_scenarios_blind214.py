"""The two-hundred-and-fourteenth batch's scenarios (tests/fixtures/corpus/fresh213): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind214.py OUT

Themes: the network namespace's own settings, as a container runtime or a hardened host leaves
them. Each engine runs in a network namespace of its own (`unshare -n`, then `ip link set lo
up`) with one per-namespace setting changed: the loopback carrying 10.77.0.1/8 instead of
127.0.0.1 (the server told to listen on 10.77.0.1; both engines); IPv6 disabled in the namespace
(net.ipv6.conf.{all,default,lo}.disable_ipv6=1) with the server told `--host ::1` (both
engines); an ephemeral port range of two ports (net.ipv4.ip_local_port_range "40000 40001",
vLLM, a burst of clients to follow once up); an ephemeral range of eight ports all listed in
net.ipv4.ip_local_reserved_ports (SGLang).

Earlier batches already had (not repeated): a container with no network but the loopback
(87th, `unshare -n` with lo up and nothing changed), a namespace whose loopback is down (88th),
the engines' internal ports set by flags and environment (VLLM_PORT, VLLM_RPC_BASE_PATH,
--nccl-port, --dist-init-addr, 107th, 169th), IPv6 listeners beside IPv4 ones on one port
(118th).

Each scenario runs entry="python" on /tmp/blind214/wrap.py (written when this table is loaded),
which execs `unshare -n sh -c 'ip link set lo up && <the scenario's settings> && exec ENGINE'`:
the engine process keeps the recorder's pid. Requests are sent from inside the engine's
namespace by /tmp/blind214/client.py run under `nsenter --net=/proc/PID/ns/net` (the recorder
itself is outside it); the client's own results go to /tmp/blind214/client-NAME.txt, not the
log. SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in two invocations (raw1: the table's first eight scenarios as first written,
stopped by its pid while it waited 6 minutes for the lock before its last, v-lo-mtu-576; raw2:
v-ipv6-off-host-lo6, added once v-ipv6-off-host-any had served), taking turns with two other
helpers' recorders; each scenario once. About 6.5 minutes of recording (vLLM 26+46+9+26 s, SGLang
20+126+78+53 s). The two SGLang runs that hung were ended by the helper (SIGKILL to the run's
process group, by its pid) after 126 s and 78 s, to free the lock; the table's step would have
waited 300 s for a ready line. 6 kept (final files gq101-gq106). Dropped and removed from the
table: v-ipv6-off-host-any (IPv6 disabled, vLLM told `--host ::`, listened on `http://[::]:PORT`
dual-stack and served three completions from `::ffff:127.0.0.1` without a word of IPv6 - the
fault never shows), s-somaxconn-1-burst (net.core.somaxconn 1, 32 concurrent completions: SGLang
logged 30 answered `200 OK` within 2 s; the two refused connections - ConnectionResetError on the
client's side - leave nothing in the log), and v-lo-mtu-576 (the loopback's MTU 576, vLLM; not
recorded: stopped while waiting for the lock, and like the two above it would most likely have
served without a trace of the fault).

What the engines did. Both start the process group of their CPU collectives (gloo, torch's c10d
store) before any weight is read, and every fault kept here ends there, at launch. A loopback
without 127.0.0.1: the same words from torch in both engines, `RuntimeError: Cannot resolve
127.0.0.1 to a (local) address` from ProcessGroupGloo (vLLM's worker under `WorkerProc failed to
start`, SGLang's scheduler under `Scheduler hit an exception`), after gloo's `Unable to resolve
hostname ... Using the loopback address as fallback`; --host 10.77.0.1 itself was never the
trouble. Two ephemeral ports (vLLM): the first gloo group is made, the second (the CPU group, in
new_group) fails with the same misleading `Cannot resolve 127.0.0.1` though 127.0.0.1 is there.
Every ephemeral port reserved (SGLang): no error at all - c10d's store client retries
`TCP client failed to connect/validate to host 127.0.0.1:PORT` (errno 99, Cannot assign requested
address) with a C++ backtrace each time, timeout 1800000 ms: a hang. IPv6 off with --host ::1:
vLLM dies at once binding its HTTP socket (`OSError: [Errno 99] Cannot assign requested
address`); SGLang carries ::1 into its rendezvous and hangs retrying `The IPv4 network addresses of
(::1, PORT) cannot be retrieved (gai error: -9 - Address family for hostname not supported)`.
"""

from __future__ import annotations

import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, Step, linger  # noqa: E402
from setup_engines import VLLM  # noqa: E402

ROOT = Path("/tmp/blind214")
WRAP = ROOT / "wrap.py"
CLIENT = ROOT / "client.py"
SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]

WRAPPER = r'''"""Run the engine in a network namespace of its own, with the settings B214_NET names."""
import os
import sys

net = os.environ.pop("B214_NET", "true")
sh = "ip link set lo up && " + net + ' && exec "$@"'
os.execv("/usr/bin/unshare", ["unshare", "-n", "--", "sh", "-c", sh, "sh", sys.executable,
                              *sys.argv[1:]])
'''

CLIENT_CODE = r'''"""Requests from inside the engine's namespace: HOST PORT N CONCURRENCY MAX_TOKENS OUT."""
import json
import sys
import threading
import time
import urllib.request

host, port, n, conc, mt, out = sys.argv[1], sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), \
    int(sys.argv[5]), sys.argv[6]
h = f"[{host}]" if ":" in host else host
base = f"http://{h}:{port}"
res = []


def note(s):
    res.append(f"{time.strftime('%H:%M:%S')} {s}")


try:
    with urllib.request.urlopen(base + "/v1/models", timeout=20) as r:
        name = json.loads(r.read())["data"][0]["id"]
except Exception as e:
    note(f"models: {e!r}")
    name = "model"


def one(i):
    body = json.dumps({"model": name, "prompt": f"fox {i}", "max_tokens": mt}).encode()
    req = urllib.request.Request(base + "/v1/completions", data=body,
                                 headers={"Content-Type": "application/json"})
    try:
        with urllib.request.urlopen(req, timeout=90) as r:
            note(f"{i}: {r.status}")
    except Exception as e:
        note(f"{i}: {e!r}")


sem = threading.Semaphore(conc)


def run(i):
    with sem:
        one(i)


ts = [threading.Thread(target=run, args=(i,)) for i in range(n)]
for t in ts:
    t.start()
for t in ts:
    t.join()
open(out, "w").write("\n".join(res) + "\n")
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    WRAP.write_text(WRAPPER)
    CLIENT.write_text(CLIENT_CODE)


_setup()


def vllm(host: str) -> list[str]:
    return [str(WRAP), "-m", "vllm.entrypoints.openai.api_server", "--model", "{model}",
            "--host", host, "--port", "{port}", *VLLM_BASE]


def sglang(host: str) -> list[str]:
    return [str(WRAP), "-m", "sglang.launch_server", "--model-path", "{model}", "--host", host,
            "--port", "{port}", *SG]


def serve_in_ns(name: str, ready: str, host: str, n: int = 3, conc: int = 1,
                max_tokens: int = 16, after_s: float = 15) -> Step:
    """Once ``ready`` is logged, ``n`` completions (``conc`` at a time) from inside the engine's
    namespace; then the run goes on ``after_s`` s. A run that ends first is left to end."""
    def act(ctx: Ctx) -> None:
        assert ctx.proc is not None
        if ctx.wait_any([ready], 300) is None or ctx.proc.poll() is not None:
            linger(ctx, 5)
            return
        time.sleep(1)
        try:
            subprocess.run(["nsenter", f"--net=/proc/{ctx.proc.pid}/ns/net", str(VLLM.python),
                            str(CLIENT), host, str(ctx.port), str(n), str(conc), str(max_tokens),
                            str(ROOT / f"client-{name}.txt")], timeout=150, check=False)
        except subprocess.TimeoutExpired:
            pass
        linger(ctx, after_s)
    return act


NO_127 = "ip addr del 127.0.0.1/8 dev lo && ip addr add 10.77.0.1/8 dev lo"
NO_V6 = ("sysctl -qw net.ipv6.conf.all.disable_ipv6=1 && sysctl -qw net.ipv6.conf.default."
         "disable_ipv6=1 && sysctl -qw net.ipv6.conf.lo.disable_ipv6=1")
RANGE_TWO = 'sysctl -qw net.ipv4.ip_local_port_range="40000 40001"'
RESERVED = ('sysctl -qw net.ipv4.ip_local_port_range="40000 40007" && '
            "sysctl -qw net.ipv4.ip_local_reserved_ports=40000-40007")
NS = "in a network namespace of its own (unshare -n, lo up)"

SCENARIOS = [
    Scenario("v-lo-no-127", "vllm",
             f"{NS} whose loopback carries 10.77.0.1/8 instead of 127.0.0.1 ({NO_127}); the "
             "server told --host 10.77.0.1; three completions to it once up",
             vllm("10.77.0.1"), entry="python", env={"B214_NET": NO_127},
             act=serve_in_ns("v-lo-no-127", READY_LINE, "10.77.0.1")),
    Scenario("s-lo-no-127", "sglang",
             f"{NS} whose loopback carries 10.77.0.1/8 instead of 127.0.0.1 ({NO_127}); the "
             "server told --host 10.77.0.1; three completions to it once up",
             sglang("10.77.0.1"), entry="python", env={"B214_NET": NO_127},
             act=serve_in_ns("s-lo-no-127", SG_READY, "10.77.0.1")),
    Scenario("v-ipv6-off-host-lo6", "vllm",
             f"{NS} with IPv6 disabled ({NO_V6}); the server told --host ::1; three "
             "completions to ::1 once up",
             vllm("::1"), entry="python", env={"B214_NET": NO_V6},
             act=serve_in_ns("v-ipv6-off-host-lo6", READY_LINE, "::1")),
    Scenario("s-ipv6-off-host-lo6", "sglang",
             f"{NS} with IPv6 disabled ({NO_V6}); the server told --host ::1; three "
             "completions to ::1 once up",
             sglang("::1"), entry="python", env={"B214_NET": NO_V6},
             act=serve_in_ns("s-ipv6-off-host-lo6", SG_READY, "::1")),
    Scenario("v-port-range-two", "vllm",
             f"{NS} whose ephemeral port range is two ports ({RANGE_TWO}); once up, 12 "
             "completions, 6 at a time",
             vllm("127.0.0.1"), entry="python", env={"B214_NET": RANGE_TWO},
             act=serve_in_ns("v-port-range-two", READY_LINE, "127.0.0.1", n=12, conc=6)),
    Scenario("s-reserved-ephemeral", "sglang",
             f"{NS} whose ephemeral port range is eight ports, all listed in "
             f"ip_local_reserved_ports ({RESERVED}); three completions once up",
             sglang("127.0.0.1"), entry="python", env={"B214_NET": RESERVED},
             act=serve_in_ns("s-reserved-ephemeral", SG_READY, "127.0.0.1")),
]
