"""The hundred-and-ninetieth batch's scenarios (tests/fixtures/corpus/fresh189): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind190.py OUT

Themes: the host as the engine probes it at startup, seen through a container's or a sandbox's
narrowed view. lscpu replaced on PATH by a shim a sandbox image ships (a notice line printed
before lscpu's JSON; a replayed topology putting both CPUs on NUMA node 1; a shim ignoring the
column list and printing lscpu's default parseable columns; a topology of two NUMA nodes, one CPU
each); the NUMA node's meminfo (/sys/devices/system/node/node0/meminfo) replaced by a bind mount
with /proc/meminfo's format (a sandbox that puts its meminfo view over both files) or with a
node of 1 GiB and 64 MiB free; a /proc/meminfo without MemAvailable and the fields psutil
estimates it from (an old kernel's or a sandbox's short meminfo).

Earlier batches already had (not repeated): /proc/cpuinfo masked, /proc/meminfo empty and lscpu
missing from PATH for vLLM (88th); cpu/online empty or 0-63, the NUMA node folder emptied,
/proc/cpuinfo without AVX, /proc/meminfo of a 1 GiB machine (97th); /sys/devices/system masked
whole, lscpu failing (132nd, both engines: lscpu missing for SGLang would be the same refusal in
the same place); CPU quotas cut at a chosen step (100th, 113th); taskset and thread binding
variables (105th, 118th, 144th).

Each scenario runs entry="python" on /tmp/blind190/wrap.py (written when this table is loaded),
which prepends a shim folder to PATH where asked (B190_SHIM) and, where bind mounts are asked
(B190_BINDS, `src=dst;...`), re-executes the engine under `unshare -m` (mounts made private, the
binds made only inside that namespace), then execs the engine's interpreter on its usual module.
SGLang runs with --device cpu --model-impl transformers; vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in one invocation (raw1: four vLLM, then four SGLang), taking turns with the
other helpers' recorders; each scenario once. About 4 minutes of recording (vLLM 17+56+26+27 s,
SGLang 20+35+22+36 s). 7 kept (final files fr101-fr107: four vLLM, three SGLang). Dropped:
s-cgroup-memory-view-full (/sys/fs/cgroup replaced by a cgroup-v2 view, memory.max 2 GiB and
memory.current 2,145,000,000: SGLang logged `Load weight begin. avail mem=0.00 GB` and died in
alloc_memory_pool with `ValueError: Loaded weights leave no GPU memory for the KV cache under
--mem-fraction-static=-0.844` - the same log, line for line but the figures, as the 97th batch's
/proc/meminfo of 1 GiB, fresh96/cb117, with nothing in it naming the cgroup: a repeat); removed
from SCENARIOS.

What the engines did. vLLM's CPU build reads lscpu's stdout as JSON in the engine core's
OpenMP binding (OMPProcessManager -> _get_cpu_list): one notice line before the JSON is
`json.decoder.JSONDecodeError: Expecting value: line 1 column 1 (char 0)` at launch. A topology
putting both CPUs on NUMA node 1 is believed: `Selected CPU core number (0) should be greater
than reserved CPU core number (1).`, `core ids=[]`, libgomp's `Invalid value for environment
variable OMP_NUM_THREADS` in every process, `Node 1 is not in available memory nodes [0].`,
then it serves (KV cache `on node 1`). The per-node meminfo is parsed by position: in
/proc/meminfo's format the worker dies in its constructor with `IndexError: list index out of
range` (launch); a node of 1 GiB with 64 MiB free is `ValueError: Available memory on node 0
(0.08/1.0 GiB) on startup is less than desired CPU memory utilization (0.25, 0.25 GiB)` in the
worker's constructor, before loading. SGLang parses `lscpu -p=CPU,Core,Socket,Node` and skips
lines of other shapes (`Skipping malformed lscpu line: ...`): with every line skipped its
scheduler counts 0 NUMA nodes and asserts in init_threads_binding (`... should be smaller than
or equal to number of numa node on the machine 0`), at launch; a topology of two nodes makes it
bind one CPU (`local_omp_cpuid=0`) and size itself from half the free memory (`avail
mem=10.46 GB` against about 21 GB), and serve. A /proc/meminfo without MemAvailable gives
psutil's `RuntimeWarning: shared, active, inactive memory stats couldn't be determined and were
set to 0` at every probe and a size from free plus cached (`avail mem=12.29 GB`); it serves.
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind190")
WRAP = ROOT / "wrap.py"
SG_READY = "The server is fired up and ready to roll!"

WRAPPER = r'''"""Put a shim folder first on PATH and/or bind files in a mount namespace; exec the engine."""
import os
import shlex
import sys

argv = [sys.executable, *sys.argv[1:]]
shim = os.environ.pop("B190_SHIM", "")
if shim:
    os.environ["PATH"] = shim + ":" + os.environ.get("PATH", "/usr/bin:/bin")
binds = os.environ.pop("B190_BINDS", "")
if binds:
    sh = ["mount --make-rprivate /"]
    for pair in binds.split(";"):
        src, dst = pair.split("=")
        sh.append(f"mount --bind {shlex.quote(src)} {shlex.quote(dst)}")
    sh.append('exec "$@"')
    os.execv("/usr/bin/unshare", ["unshare", "-m", "--", "sh", "-c", " && ".join(sh), "sh",
                                  *argv])
os.execv(argv[0], argv)
'''

SHIMS = {
    # a sandbox image's lscpu that prints a notice on stdout, then runs the real one
    "notice": '#!/bin/sh\necho "lscpu: note: CPU topology is virtualized in this sandbox"\n'
              'exec /usr/bin/lscpu "$@"\n',
    # a shim replaying a recorded topology: both CPUs on NUMA node 1 (JSON for vLLM)
    "node1": '#!/bin/sh\ncat <<EOF\n{\n   "cpus": [\n      {\n         "cpu": 0,\n'
             '         "core": 0,\n         "node": 1\n      },{\n         "cpu": 1,\n'
             '         "core": 1,\n         "node": 1\n      }\n   ]\n}\nEOF\n',
    # a shim that drops the column list: lscpu -p's default columns
    "defaultcols": '#!/bin/sh\nexec /usr/bin/lscpu -p\n',
    # a replayed topology of two NUMA nodes, one CPU each (SGLang's -p format)
    "twonodes": '#!/bin/sh\nprintf "# The following is the parsable format\\n'
                '# CPU,Core,Socket,Node\\n0,0,0,0\\n1,1,0,1\\n"\n',
}

NODE_MEMINFO_SMALL = "".join(f"Node 0 {k}: {v:>15} kB\n" for k, v in [
    ("MemTotal", 1048576), ("MemFree", 65536), ("MemUsed", 983040), ("SwapCached", 0),
    ("Active", 700000), ("Inactive", 200000), ("Active(anon)", 690000),
    ("Inactive(anon)", 196000), ("Active(file)", 10000), ("Inactive(file)", 4000),
    ("Unevictable", 0), ("Mlocked", 0), ("Dirty", 0), ("Writeback", 0), ("FilePages", 14000),
    ("Mapped", 8000), ("AnonPages", 886000), ("Shmem", 0), ("KernelStack", 4000),
    ("PageTables", 6000), ("Slab", 20000), ("SReclaimable", 8000), ("SUnreclaim", 12000)])

PROC_MEMINFO_SHORT = ("MemTotal:       16777216 kB\nMemFree:          307200 kB\n"
                      "Buffers:           40960 kB\nCached:         12582912 kB\n"
                      "SwapTotal:             0 kB\nSwapFree:              0 kB\n")


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    WRAP.write_text(WRAPPER)
    for name, text in SHIMS.items():
        d = ROOT / "shim" / name
        d.mkdir(parents=True, exist_ok=True)
        (d / "lscpu").write_text(text)
        (d / "lscpu").chmod(0o755)
    (ROOT / "proc-meminfo-copy").write_text(Path("/proc/meminfo").read_text())
    (ROOT / "node0-meminfo-small").write_text(NODE_MEMINFO_SMALL)
    (ROOT / "proc-meminfo-short").write_text(PROC_MEMINFO_SHORT)


_setup()


# --- steps -------------------------------------------------------------------------------------

def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, three completions and a pause."""
    ctx.wait_any([READY_LINE], 180)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(3, max_tokens=16)
        time.sleep(8)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (three completions); a pause."""
    found = ctx.wait_any([SG_READY], 180)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(3, max_tokens=16)
        linger(ctx, 10)


def server_v() -> list[str]:
    return ["-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", *VLLM_BASE]


def server_s() -> list[str]:
    return ["-m", "sglang.launch_server", "--model-path", "{model}", "--host", "127.0.0.1",
            "--port", "{port}", "--device", "cpu", "--model-impl", "transformers"]


def env(shim: str = "", binds: str = "") -> dict[str, str]:
    e = {}
    if shim:
        e["B190_SHIM"] = str(ROOT / "shim" / shim)
    if binds:
        e["B190_BINDS"] = binds
    return e


def v(name: str, what: str, **kw: str) -> Scenario:
    return Scenario(name, "vllm", what, [str(WRAP), *server_v()], env=env(**kw), act=v_until,
                    entry="python")


def s(name: str, what: str, **kw: str) -> Scenario:
    return Scenario(name, "sglang", what, [str(WRAP), *server_s()], env=env(**kw), act=s_until,
                    entry="python")


NODE0 = "/sys/devices/system/node/node0/meminfo"

SCENARIOS = [
    v("v-lscpu-notice-before-json", "lscpu on PATH is a sandbox image's shim that prints a "
      "notice line on stdout before running the real lscpu", shim="notice"),
    v("v-lscpu-cpus-on-node1", "lscpu on PATH is a shim replaying a recorded topology that puts "
      "both CPUs on NUMA node 1 (the host has node 0 only)", shim="node1"),
    v("v-node0-meminfo-proc-format", "/sys/devices/system/node/node0/meminfo replaced (bind mount "
      "in the server's own mount namespace) by a copy of /proc/meminfo, as a sandbox's meminfo "
      "view", binds=f"{ROOT / 'proc-meminfo-copy'}={NODE0}"),
    v("v-node0-meminfo-1g-64m-free", "/sys/devices/system/node/node0/meminfo replaced (bind mount "
      "in the server's own mount namespace) by a node of 1 GiB with 64 MiB free",
      binds=f"{ROOT / 'node0-meminfo-small'}={NODE0}"),
    s("s-lscpu-default-columns", "lscpu on PATH is a shim that drops the column list and prints "
      "lscpu -p's default columns (CPU,Core,Socket,Node,,L1d,L1i,L2,L3)", shim="defaultcols"),
    s("s-lscpu-two-numa-nodes", "lscpu on PATH is a shim replaying a topology of two NUMA nodes, "
      "one CPU each (the host has one node)", shim="twonodes"),
    s("s-meminfo-no-memavailable", "/proc/meminfo replaced (bind mount in the server's own mount "
      "namespace) by a short meminfo without MemAvailable, Active(file), Inactive(file) or "
      "SReclaimable (16 GiB, 300 MiB free, 12 GiB cached)",
      binds=f"{ROOT / 'proc-meminfo-short'}=/proc/meminfo"),
]
