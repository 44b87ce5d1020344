"""The two-hundred-and-eighteenth batch's scenarios (tests/fixtures/corpus/fresh217): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind218.py OUT

Themes: a container's syscall filter - what a person meets moving an engine into docker or
Kubernetes under a seccomp profile that denies one syscall the engine or its libraries call.
Docker's default profile denies the NUMA memory-policy calls (mbind, set_mempolicy,
get_mempolicy, migrate_pages, move_pages) to a container without CAP_SYS_NICE, and docker
releases before 20.10.10 answered clone3 (glibc 2.34's thread creation) with EPERM instead of
ENOSYS. Each scenario makes ONE syscall fail with EPERM in the engine's whole process tree.

Earlier batches already had (not repeated): capability drops for file access (CAP_DAC_OVERRIDE /
CAP_DAC_READ_SEARCH, 92nd, 97th, 159th); the server run as nobody (130th); RLIMIT_NPROC and pids
cgroups (71st, 91st, 113th, 176th); CPU/NUMA topology hidden or replayed (105th, 132nd, 190th).
No earlier batch installed a seccomp filter.

Each scenario runs entry="python" on /tmp/blind218/seccomp_exec.py (written when this table is
loaded) with the engine's own interpreter: it builds a classic-BPF seccomp program with ctypes
(check the arch is x86_64, load the syscall number, SECCOMP_RET_ERRNO|EPERM for the chosen
syscall, SECCOMP_RET_ALLOW otherwise), sets PR_SET_NO_NEW_PRIVS, installs it with
prctl(PR_SET_SECCOMP, SECCOMP_MODE_FILTER) and execs the engine (the filter is inherited by every
process and thread the engine starts). SGLang runs with --device cpu --model-impl transformers;
vLLM with VLLM_BASE's settings.

Recorded 2026-12-07 in one invocation (raw1: four vLLM, then four SGLang), waiting turns with
the other helpers' recorders; each scenario once. About 4m30s of recording (vLLM 44+44+43+1 s,
SGLang 47+46+46+0 s). 6 kept (final files gu101-gu106). Dropped, their fault never in the log:
s-seccomp-mbind and s-seccomp-get-mempolicy (SGLang served three completions; their logs are
line for line that of s-seccomp-set-mempolicy, kept as the one SGLang log of a filter it never
meets: on this host its scheduler says `init_cpu_threads_env and shared memory based AllReduce
is disabled, only intel amx backend and arm64 are supported` and binds no NUMA memory). Both
were removed from SCENARIOS.

What the engines did. vLLM binds the worker's OpenMP threads and memory (`OpenMP thread binding
info`, VLLM_CPU_OMP_THREADS_BIND='auto') through libnuma, so every NUMA call denied shows as a
warning in the worker's setup and the server then serves: set_mempolicy - libnuma's
`set_mempolicy: Operation not permitted` and `numa_set_membind failed. errno: 1 (function
init_cpu_memory_env)`; migrate_pages - `numa_migrate_pages failed. errno: 1`, then `NUMA
binding: Using MEMBIND policy ...`; get_mempolicy - libnuma's `get_mempolicy: Operation not
permitted`, the binding going ahead. SGLang makes none of these calls here and never notices.
clone3 denied with EPERM (no thread can be created) kills both at their first import of numpy,
before any engine line: OpenBLAS's `blas_thread_init: pthread_create failed for thread 1 of 2:
Operation not permitted`, then in vLLM `RuntimeError: CPU dispatcher tracer already initlized`
(numpy imported a second time under torch) and in SGLang `KeyboardInterrupt` (OpenBLAS raises
SIGINT itself when its threads cannot start; exit -2).
"""

from __future__ import annotations

import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import READY_LINE, VLLM_BASE, Ctx, Scenario, linger  # noqa: E402

ROOT = Path("/tmp/blind218")
WRAP = ROOT / "seccomp_exec.py"
SG_READY = "The server is fired up and ready to roll!"

WRAPPER = r'''"""seccomp_exec.py SYSCALL ERRNO ARGS...: deny SYSCALL with ERRNO, then exec this Python on ARGS."""
import ctypes
import errno
import os
import struct
import sys

NR = {"mbind": 237, "set_mempolicy": 238, "get_mempolicy": 239, "migrate_pages": 256,
      "move_pages": 279, "clone3": 435, "sched_setaffinity": 203, "io_uring_setup": 425}
AUDIT_ARCH_X86_64 = 0xC000003E
RET_ALLOW, RET_ERRNO = 0x7FFF0000, 0x00050000
LD_W_ABS, JEQ_K, RET_K = 0x20, 0x15, 0x06


def insn(code, jt, jf, k):
    return struct.pack("HBBI", code, jt, jf, k)


name, err = sys.argv[1], getattr(errno, sys.argv[2])
prog = b"".join([
    insn(LD_W_ABS, 0, 0, 4),                 # seccomp_data.arch
    insn(JEQ_K, 1, 0, AUDIT_ARCH_X86_64),
    insn(RET_K, 0, 0, RET_ALLOW),            # another arch: leave it alone
    insn(LD_W_ABS, 0, 0, 0),                 # seccomp_data.nr
    insn(JEQ_K, 0, 1, NR[name]),
    insn(RET_K, 0, 0, RET_ERRNO | err),
    insn(RET_K, 0, 0, RET_ALLOW),
])
buf = ctypes.create_string_buffer(prog)


class SockFprog(ctypes.Structure):
    _fields_ = [("len", ctypes.c_ushort), ("filter", ctypes.c_void_p)]


fprog = SockFprog(len(prog) // 8, ctypes.addressof(buf))
libc = ctypes.CDLL(None, use_errno=True)
libc.prctl.argtypes = [ctypes.c_int, ctypes.c_ulong, ctypes.c_void_p, ctypes.c_ulong,
                       ctypes.c_ulong]
if libc.prctl(38, 1, None, 0, 0) != 0:          # PR_SET_NO_NEW_PRIVS
    raise OSError(ctypes.get_errno(), "PR_SET_NO_NEW_PRIVS")
if libc.prctl(22, 2, ctypes.byref(fprog), 0, 0) != 0:   # PR_SET_SECCOMP, SECCOMP_MODE_FILTER
    raise OSError(ctypes.get_errno(), "PR_SET_SECCOMP")
os.execv(sys.executable, [sys.executable, *sys.argv[3:]])
'''


def _setup() -> None:
    ROOT.mkdir(parents=True, exist_ok=True)
    WRAP.write_text(WRAPPER)


_setup()


def v_until(ctx: Ctx) -> None:
    """Until the run ends; if it serves, three completions and a pause for a stats line."""
    ctx.wait_any([READY_LINE], 200)
    if ctx.proc is not None and ctx.proc.poll() is None and READY_LINE in ctx.text():
        ctx.complete(3, max_tokens=16)
        time.sleep(12)


def s_until(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then three completions); a pause."""
    found = ctx.wait_any([SG_READY], 180)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(3, max_tokens=16)
        linger(ctx, 10)


def v(name: str, syscall: str, what: str, err: str = "EPERM") -> Scenario:
    args = [str(WRAP), syscall, err, "-m", "vllm.entrypoints.openai.api_server", "--model", "{model}", "--host",
            "127.0.0.1", "--port", "{port}", *VLLM_BASE]
    return Scenario(name, "vllm", f"seccomp filter: {syscall} fails with {err} in the whole "
                    f"process tree ({what})", args, act=v_until, entry="python")


def s(name: str, syscall: str, what: str, err: str = "EPERM") -> Scenario:
    args = [str(WRAP), syscall, err, "-m", "sglang.launch_server",
            "--model-path", "{model}", "--host", "127.0.0.1", "--port", "{port}",
            "--device", "cpu", "--model-impl", "transformers"]
    return Scenario(name, "sglang", f"seccomp filter: {syscall} fails with {err} in the whole "
                    f"process tree ({what})", args, act=s_until, entry="python")


NUMA = "docker's default profile without CAP_SYS_NICE"
CLONE3 = "docker before 20.10.10 under glibc 2.34+"

SCENARIOS = [
    v("v-seccomp-set-mempolicy", "set_mempolicy", NUMA),
    v("v-seccomp-migrate-pages", "migrate_pages", NUMA),
    v("v-seccomp-get-mempolicy", "get_mempolicy", NUMA),
    v("v-seccomp-clone3", "clone3", CLONE3),
    s("s-seccomp-set-mempolicy", "set_mempolicy", NUMA),
    s("s-seccomp-clone3", "clone3", CLONE3),
]
