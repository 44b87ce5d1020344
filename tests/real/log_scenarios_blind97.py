"""The ninety-seventh batch's scenarios (tests/fixtures/corpus/fresh96): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind97.py OUT

Themes: the process's identity and the host's names and facts as containers and locked-down
hosts present them. A uid with no entry in /etc/passwd (4242, given CAP_DAC_OVERRIDE and
CAP_DAC_READ_SEARCH as ambient capabilities so that only its name is missing: getpass and
pwd.getpwuid fail; uid 0 cannot be used for this here, the systemd NSS module names root even
with /etc/passwd empty), a non-root user (nobody) who can read but not write root's files with
HOME still /root, a hostname that does not resolve (a UTS namespace: `unshare -u`, `hostname
gpu-node-17`), an /etc/hosts without localhost, and host facts replaced by bind mounts in a
mount namespace of the server's own (`unshare -m`): /sys/devices/system/cpu/online empty or
claiming 64 CPUs, the NUMA node folder /sys/devices/system/node emptied, /proc/cpuinfo from a
machine without AVX (the flags line filtered), /proc/meminfo from a 1 GiB machine; a user whose
/etc/passwd entry names a home folder that does not exist and cannot be made (a passwd bound in a
mount namespace, then setpriv).

Each scenario runs entry="python" on /tmp/blind97/wrap.py (written by the `before` step), which
changes what its mode needs and then execs the engine's own interpreter on the server's module
(vLLM's api_server with VLLM_BASE; SGLang's launch_server with --device cpu --model-impl
transformers, with which it serves here) through /usr/bin/unshare or /usr/bin/setpriv.

Recorded 2026-12-05 in three invocations (about 11 minutes in all), each scenario once. Most host
facts changed nothing the engines show: both served with the hostname unresolvable (a gloo warning
only), no localhost, cpu/online empty or 0-63, the NUMA folder empty and the AVX flags gone; vLLM
also with /proc/meminfo at 1 GiB (its KV cache is sized from the NUMA node), where SGLang refuses to
size its KV pool. The uid without a passwd entry served in both (SGLang's CUTLASS DSL warns); the
user nobody with HOME=/root and a user whose home folder is missing both crash, vLLM in its compile
cache during memory profiling, SGLang while importing (flashinfer's JIT log, torch's cache folder).
Note: on this host the systemd NSS module names uid 0 (and 65534) even with /etc/passwd empty, so a
"root without a passwd entry" cannot be made by masking /etc/passwd.
"""

from __future__ import annotations

import re
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

TMP = Path("/tmp/blind97")
WRAP = TMP / "wrap.py"
SG_READY = "The server is fired up and ready to roll!"

WRAPPER = r'''"""Change the process's identity or the host facts it sees, then exec the engine."""
import os
import sys

mode, cmd = sys.argv[1], [sys.executable, *sys.argv[2:]]
T = "/tmp/blind97/"
MOUNTS = {
    "hosts-nolocal": [(T + "hosts-nolocal", "/etc/hosts")],
    "online-empty": [(T + "empty", "/sys/devices/system/cpu/online")],
    "online-64": [(T + "online-64", "/sys/devices/system/cpu/online")],
    "numa-hidden": [(T + "emptydir", "/sys/devices/system/node")],
    "cpuinfo-noavx": [(T + "cpuinfo-noavx", "/proc/cpuinfo")],
    "meminfo-1g": [(T + "meminfo-1g", "/proc/meminfo")],
}
if mode in MOUNTS:
    sh = " && ".join(f"mount --bind {s} {t}" for s, t in MOUNTS[mode])
    os.execv("/usr/bin/unshare", ["unshare", "-m", "--", "sh", "-c", sh + ' && exec "$@"', "sh", *cmd])
if mode == "hostname":
    os.execv("/usr/bin/unshare", ["unshare", "-u", "--", "sh", "-c",
                                  'hostname gpu-node-17 && exec "$@"', "sh", *cmd])
if mode == "uid-4242":
    for k in ("USER", "LOGNAME", "LNAME", "USERNAME"):
        os.environ.pop(k, None)
    caps = "+dac_override,+dac_read_search"
    os.execv("/usr/bin/setpriv", ["setpriv", "--reuid", "4242", "--regid", "4242", "--clear-groups",
                                  "--inh-caps", caps, "--ambient-caps", caps, "--", *cmd])
if mode == "nobody":
    os.environ["USER"] = os.environ["LOGNAME"] = "nobody"
    caps = "+dac_read_search"
    os.execv("/usr/bin/setpriv", ["setpriv", "--reuid", "65534", "--regid", "65534", "--clear-groups",
                                  "--inh-caps", caps, "--ambient-caps", caps, "--", *cmd])
if mode == "home-missing":
    os.environ.update(HOME="/home/app", USER="app", LOGNAME="app")
    caps = "+dac_read_search"
    os.execv("/usr/bin/unshare", ["unshare", "-m", "--", "sh", "-c",
             f"mount --bind {T}passwd-app /etc/passwd && exec setpriv --reuid 4242 --regid 4242 "
             f"--clear-groups --inh-caps {caps} --ambient-caps {caps} -- " + '"$@"', "sh", *cmd])
raise SystemExit(f"wrap.py: unknown mode {mode}")
'''


def prepare(ctx: Ctx) -> None:
    """The wrapper and the files its bind mounts put in place."""
    TMP.mkdir(parents=True, exist_ok=True)
    WRAP.write_text(WRAPPER)
    (TMP / "empty").write_text("")
    (TMP / "emptydir").mkdir(exist_ok=True)
    (TMP / "online-64").write_text("0-63\n")
    (TMP / "passwd-app").write_text(Path("/etc/passwd").read_text()
                                    + "app:x:4242:4242:app:/home/app:/bin/sh\n")
    (TMP / "hosts-nolocal").write_text("127.0.0.1 vm runsc\n")
    no_avx = re.sub(r" (avx\w*|fma|f16c|amx\w*|vaes|vpclmulqdq|gfni)(?=[ \n])", "",
                    Path("/proc/cpuinfo").read_text())
    (TMP / "cpuinfo-noavx").write_text(no_avx)
    mem = {"MemTotal": 1048576, "MemFree": 614400, "MemAvailable": 716800, "Buffers": 8192,
           "Cached": 102400, "SwapTotal": 0, "SwapFree": 0}
    lines = []
    for ln in Path("/proc/meminfo").read_text().splitlines():
        key = ln.split(":")[0]
        lines.append(f"{key + ':':<16}{mem[key]:>8} kB" if key in mem else ln)
    (TMP / "meminfo-1g").write_text("\n".join(lines) + "\n")


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, two completions and a short pause."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(2)
        time.sleep(6)


def s_until(ctx: Ctx) -> None:
    """SGLang: until the run ends or is fired up; if it serves, two completions, a pause."""
    ctx.wait_any([SG_READY], 150)
    if ctx.proc is not None and ctx.proc.poll() is None and SG_READY in ctx.text():
        ctx.complete(2)
        linger(ctx, 6)


V_SERVER = ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", *VLLM_BASE]
S_SERVER = ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
            "--port", "{port}", "--device", "cpu", "--model-impl", "transformers"]


def v(name: str, mode: str, what: str) -> Scenario:
    return Scenario(name, "vllm", what, [str(WRAP), mode, *V_SERVER], before=prepare,
                    act=v_until, entry="python")


def s(name: str, mode: str, what: str) -> Scenario:
    return Scenario(name, "sglang", what, [str(WRAP), mode, *S_SERVER], before=prepare,
                    act=s_until, entry="python")


UID = ("the server run as uid 4242, which has no entry in /etc/passwd (a container started "
       "with --user 4242), with USER/LOGNAME unset; ambient CAP_DAC_OVERRIDE/DAC_READ_SEARCH so "
       "only its name is missing")
NOBODY = ("the server run as nobody (uid 65534) with HOME still /root: it can read root's "
          "files (ambient CAP_DAC_READ_SEARCH) but not write root's caches")
HOSTNAME = ("the hostname set to gpu-node-17, a name that does not resolve (UTS namespace; "
            "/etc/hosts and DNS know nothing of it)")
HOSTS = "/etc/hosts without localhost (only '127.0.0.1 vm runsc'), bind-mounted"
ONLINE_EMPTY = "/sys/devices/system/cpu/online masked by an empty file (bind mount)"
ONLINE_64 = "/sys/devices/system/cpu/online claiming CPUs 0-63 on a 2-CPU host (bind mount)"
NUMA = "/sys/devices/system/node masked by an empty folder (no NUMA nodes seen; bind mount)"
NOAVX = ("/proc/cpuinfo replaced by one whose flags lack AVX, AVX2, AVX-512, FMA and F16C "
         "(a CPU model masked by the hypervisor; bind mount)")
MEM1G = ("/proc/meminfo replaced by one of a 1 GiB machine (MemTotal 1048576 kB, MemAvailable "
         "700 MiB; bind mount)")

HOME_MISSING = ("the server run as user app (uid 4242, in /etc/passwd with home /home/app) "
                "whose home folder does not exist and cannot be made (/home is root's; the image "
                "never created it); it can read root's files (ambient CAP_DAC_READ_SEARCH)")

SCENARIOS = [
    v("v-uid-no-passwd", "uid-4242", UID),
    v("v-nobody-root-home", "nobody", NOBODY),
    v("v-hostname-unresolvable", "hostname", HOSTNAME),
    v("v-hosts-no-localhost", "hosts-nolocal", HOSTS),
    v("v-cpu-online-empty", "online-empty", ONLINE_EMPTY),
    v("v-cpu-online-64", "online-64", ONLINE_64),
    v("v-numa-hidden", "numa-hidden", NUMA),
    v("v-cpuinfo-no-avx", "cpuinfo-noavx", NOAVX),
    v("v-meminfo-1g", "meminfo-1g", MEM1G),
    v("v-home-missing", "home-missing", HOME_MISSING),
    s("s-uid-no-passwd", "uid-4242", UID),
    s("s-nobody-root-home", "nobody", NOBODY),
    s("s-hostname-unresolvable", "hostname", HOSTNAME),
    s("s-hosts-no-localhost", "hosts-nolocal", HOSTS),
    s("s-cpu-online-empty", "online-empty", ONLINE_EMPTY),
    s("s-cpuinfo-no-avx", "cpuinfo-noavx", NOAVX),
    s("s-meminfo-1g", "meminfo-1g", MEM1G),
    s("s-home-missing", "home-missing", HOME_MISSING),
    s("s-cpu-online-64", "online-64", ONLINE_64),
    s("s-numa-hidden", "numa-hidden", NUMA),
]
