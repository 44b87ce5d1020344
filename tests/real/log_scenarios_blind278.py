"""The two-hundred-and-seventy-eighth batch's scenarios (tests/fixtures/corpus/fresh277): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind278.py OUT

Themes: memory allocator and heap settings, a new round - real allocators this time (jemalloc
5.3.0 and gperftools 2.10 from Debian bookworm's libjemalloc2, libtcmalloc-minimal4 and
libgoogle-perftools4, unpacked under /tmp/blind278/sys, what `apt-get install` puts in /usr/lib)
with the settings a tuning guide or an image copies beside them. vLLM: jemalloc with
MALLOC_CONF=background_thread:true,dirty_decay_ms:10s,abort_conf:true (a decay given with a unit
where jemalloc wants milliseconds, made fatal by a hardening guide's abort_conf); tcmalloc with
TCMALLOC_HEAP_LIMIT_MB=2048 (a container image's per-process heap cap); LD_PRELOAD of a
libjemalloc.so.2 of the wrong architecture (copied out of an arm64 image: e_machine aarch64).
SGLang: tcmalloc_minimal with TCMALLOC_LARGE_ALLOC_REPORT_THRESHOLD=67108864 (every allocation
over 64 MiB reported, as in notebook images); jemalloc with MALLOC_CONF asking for transparent
huge pages (thp:always, metadata_thp:always, narenas:2) and one key misspelt
(background_threads); gperftools' debugging allocator libtcmalloc_debug.so.4 preloaded (a
leak-hunting guide).

Earlier batches already had (not repeated): LD_PRELOAD naming a tcmalloc that is not installed
(69th, vLLM; 184th with libiomp5, vLLM), LD_PRELOAD=/lib/libiomp5.so:/lib/libtcmalloc.so (91st,
SGLang), an allocator file that is a saved web page, a jemalloc needing a newer glibc, a tcmalloc
missing its libunwind.so.1, LD_PRELOAD set to a folder (184th), MALLOC_MMAP_THRESHOLD_=0 and
MALLOC_CHECK_=3 (184th, dropped: nothing shown), PYTHONMALLOC=jemalloc (82nd), =debug (158th),
=mimalloc (184th, dropped), PYTHONTRACEMALLOC (84th), GLIBC_TUNABLES (86th, 184th),
PYTORCH_CUDA_ALLOC_CONF with --device cpu (110th, SGLang), address-space limits from the start
(ulimit -v 1, 3, 6 and 16 GiB: 67th, 72nd) and at a process's size (69th, 83rd, 85th),
RLIMIT_DATA (78th). None preloaded a real jemalloc or tcmalloc, so none had their own settings.

vLLM runs with VLLM_BASE's settings, SGLang with --device cpu --model-impl transformers; each is
given up to 300 s (vLLM) or 240 s (SGLang) to come up, then three completions of 24 tokens and a
pause for a stats line.

Recorded 2026-12-07/08 in one invocation (/tmp/blind278/raw1, all six in table order), taking
turns with other helpers' recorders; each scenario once. vLLM 0+42+72 s, SGLang 55+50+250 s. All
six kept (final files jc101-jc106); none dropped. s-tcmalloc-large-alloc-report is kept although
its fault never shows (a fair log of the ground, labelled ready).

What the engines did. jemalloc with an invalid MALLOC_CONF value and abort_conf:true kills the
first interpreter before vLLM prints a line: the whole log is `<jemalloc>: Invalid conf value:
dirty_decay_ms:10s` and `<jemalloc>: Abort (abort_conf:true) on invalid conf value (see above).`,
exit -6 (crashed, launch). tcmalloc_minimal with a 64 MiB large-allocation report threshold
printed no report at all, even for SGLang's 14.9 GB KV pool; SGLang served (ready). tcmalloc with
TCMALLOC_HEAP_LIMIT_MB=2048 is silent itself; vLLM loads and warms up, sizes 5.16 GiB of KV cache,
and its worker dies in allocate_kv_cache with `DefaultCPUAllocator: can't allocate memory: you
tried to allocate 5544607744 bytes. Error code 12`, then `Engine core initialization failed`
(crashed, kv_cache_alloc). jemalloc with a misspelt key prints `<jemalloc>: Invalid conf pair:
background_threads:true` at each of SGLang's six process starts, takes the rest (THP asked for)
silently, and SGLang serves at the usual speed (ready). An aarch64 jemalloc in LD_PRELOAD is
refused by ld.so with the words for a missing file (`cannot be preloaded (cannot open shared object
file): ignored.`, eleven times), vLLM's worker warns `libtcmalloc is not found in LD_PRELOAD`, and
it serves (ready). gperftools' debugging allocator makes SGLang crawl: after the launcher's
server_args nothing more than one subprocess's Triton warning in 240 s, no scheduler line, killed
by the recorder (incomplete, launch). Crashed: jc101, jc103; ready in serving: jc102, jc104,
jc105; incomplete (hung in all but words): jc106.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind278")
SYS = ROOT / "sys" / "usr" / "lib" / "x86_64-linux-gnu"   # Debian bookworm's packages, unpacked
JEMALLOC = SYS / "libjemalloc.so.2"
TCMALLOC = SYS / "libtcmalloc.so.4"
TCMALLOC_MINIMAL = SYS / "libtcmalloc_minimal.so.4"
TCMALLOC_DEBUG = SYS / "libtcmalloc_debug.so.4"
ARM64_JEMALLOC = ROOT / "arm64" / "libjemalloc.so.2"   # e_machine set to EM_AARCH64 (183)
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
DEBS = ("libjemalloc2", "libtcmalloc-minimal4", "libgoogle-perftools4")


def _setup() -> None:
    """Unpack jemalloc and gperftools from Debian bookworm's packages under ROOT (what
    `apt-get install libjemalloc2 google-perftools` would put in /usr/lib), and copy the
    jemalloc with its ELF header's machine field set to aarch64, as one copied out of an arm64
    image would be."""
    if not (JEMALLOC.is_file() and TCMALLOC_DEBUG.is_file()):
        debs = ROOT / "debs"
        debs.mkdir(parents=True, exist_ok=True)
        if not list(debs.glob("libjemalloc2_*.deb")):
            subprocess.run(["apt-get", "download", *DEBS], cwd=debs, check=True)
        for deb in debs.glob("*.deb"):
            subprocess.run(["dpkg-deb", "-x", str(deb), str(ROOT / "sys")], check=True)
    if not ARM64_JEMALLOC.is_file():
        ARM64_JEMALLOC.parent.mkdir(parents=True, exist_ok=True)
        shutil.copyfile(JEMALLOC, ARM64_JEMALLOC)
        with ARM64_JEMALLOC.open("r+b") as f:
            f.seek(18)
            f.write((183).to_bytes(2, "little"))


_setup()


def v_serve(ctx: Ctx) -> None:
    """vLLM: until it ends, or, once up, three completions and a pause for a stats line."""
    if up(ctx, 300):
        ctx.complete(3, max_tokens=24)
        time.sleep(12)


def s_serve(ctx: Ctx) -> None:
    """SGLang: until it ends or is fired up (then three completions and a pause)."""
    found = ctx.wait_any([SG_READY], 240)
    if ctx.proc is not None and ctx.proc.poll() is None:
        if found == SG_READY:
            ctx.complete(3, max_tokens=24)
        linger(ctx, 10)


def v(name: str, what: str, env: dict[str, str]) -> Scenario:
    return Scenario(name, "vllm", what, list(VLLM_BASE), env=env, act=v_serve, wait_s=320)


def s(name: str, what: str, env: dict[str, str]) -> Scenario:
    return Scenario(name, "sglang", what, list(SG), env=env, act=s_serve, wait_s=260)


SCENARIOS = [
    v("v-jemalloc-conf-abort", "jemalloc preloaded with MALLOC_CONF="
      "background_thread:true,dirty_decay_ms:10s,abort_conf:true (a decay written with a unit, "
      "which jemalloc wants in plain milliseconds, and abort_conf from a hardening guide)",
      {"LD_PRELOAD": str(JEMALLOC),
       "MALLOC_CONF": "background_thread:true,dirty_decay_ms:10s,abort_conf:true"}),
    s("s-tcmalloc-large-alloc-report", "tcmalloc_minimal preloaded with "
      "TCMALLOC_LARGE_ALLOC_REPORT_THRESHOLD=67108864 (report every allocation over 64 MiB)",
      {"LD_PRELOAD": str(TCMALLOC_MINIMAL),
       "TCMALLOC_LARGE_ALLOC_REPORT_THRESHOLD": "67108864"}),
    v("v-tcmalloc-heap-limit", "tcmalloc preloaded with TCMALLOC_HEAP_LIMIT_MB=2048 (a "
      "container image's cap on each process's heap)",
      {"LD_PRELOAD": str(TCMALLOC), "TCMALLOC_HEAP_LIMIT_MB": "2048"}),
    s("s-jemalloc-conf-typo-thp", "jemalloc preloaded with MALLOC_CONF="
      "background_threads:true,thp:always,metadata_thp:always,narenas:2 (huge pages asked "
      "for; 'background_threads' misspelt)",
      {"LD_PRELOAD": str(JEMALLOC),
       "MALLOC_CONF": "background_threads:true,thp:always,metadata_thp:always,narenas:2"}),
    v("v-preload-jemalloc-arm64", "LD_PRELOAD names a libjemalloc.so.2 copied out of an arm64 "
      "image (an aarch64 ELF on this x86-64 host)",
      {"LD_PRELOAD": str(ARM64_JEMALLOC)}),
    s("s-tcmalloc-debug-preload", "gperftools' debugging allocator preloaded "
      "(libtcmalloc_debug.so.4, from a leak-hunting guide)",
      {"LD_PRELOAD": str(TCMALLOC_DEBUG)}),
]
