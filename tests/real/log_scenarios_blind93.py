"""The ninety-third batch's scenarios (tests/fixtures/corpus/fresh92): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind93.py OUT

Themes: the process's surroundings and lifecycle (stdout sent through a log shipper that dies
or freezes, stdout closed or on a full disk, stdin closed, an earlier run's leftover files in a
Prometheus multiprocess folder), Python's import world (a script in the working directory named
like a module the engine imports - json.py, token.py, a triton/ package - the engine launched
from inside its own source checkout, a site-wide sitecustomize or .pth hook that fails, older
packages pinned on PYTHONPATH - typing_extensions 4.1.1, numpy 1.26.4, the other engine's
virtualenv, the system's apt packages - a platform plugin's leftover entry point, Python's
development mode and encoding warnings), and locale and text (an ASCII locale with UTF-8 mode
off reading a UTF-8 chat template; ANSI colours forced by a CI variable).

How the surroundings are made: record_logs.py starts every run with stdin /dev/null and
stdout and stderr on the log file, in the working directory OUT/.work. A scenario that needs
other standard streams puts a sitecustomize.py on PYTHONPATH that rearranges them in the
launcher process only (it reads and removes B93_STDIO from the environment, so the engine's
own subprocesses start with what the launcher holds, as they would under a shell's
redirection): `tee` as the log shipper between stdout and the file, fd 1 closed, fd 1 on
/dev/full, fd 0 closed. Files put into the working directory are removed when the run ends.
The pinned packages are unpacked from wheels under /tmp/blind93/wheels (downloaded with the
engine's pip if missing).

SGLang's own Llama module cannot be built on this host (it imports vllm), so its scenarios run
the model through the Transformers backend (--model-impl transformers), with which it serves
here; a fault that does not bite then shows as a server that serves.
"""

from __future__ import annotations

import shutil
import subprocess
import sys
import time
import urllib.error
import urllib.request
import zipfile
from pathlib import Path

import psutil

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    VLLM_BASE,
    Ctx,
    Scenario,
    Step,
    linger,
    serve_short,
    until_exit,
    up,
)
from setup_engines import SGLANG, VLLM  # noqa: E402

BASE = VLLM_BASE
SG = ["--device", "cpu"]
SG_SERVE = [*SG, "--model-impl", "transformers"]
SG_READY = "The server is fired up and ready to roll!"

B93 = Path("/tmp/blind93")
SITE = B93 / "site"
PINS = B93 / "pins"
WHEELS = B93 / "wheels"
VLLM_SITE = VLLM.dir / "lib" / "python3.11" / "site-packages"
SGLANG_SITE = SGLANG.dir / "lib" / "python3.11" / "site-packages"


# --- the standard streams, rearranged in the launcher by a sitecustomize -----------------------

STDIO_HOOK = '''\
import os
import sys

_mode = os.environ.pop("B93_STDIO", "")
if _mode.startswith("ship"):
    # the launcher's stdout goes through a pipe to a log shipper (tee) that writes the file
    _r, _w = os.pipe()
    if _mode == "ship-small":
        import fcntl
        fcntl.fcntl(_w, 1031, 4096)          # F_SETPIPE_SZ: the smallest pipe, one page
    if os.fork() == 0:
        os.close(_w)
        os.dup2(_r, 0)
        os.close(_r)
        os.execvp("tee", ["tee"])
    os.close(_r)
    os.dup2(_w, 1)
    os.close(_w)
elif _mode == "close-stdout":
    # as `>&-`: no fd 1, and Python's stdout None, as it is when started so
    os.close(1)
    sys.stdout = sys.__stdout__ = None
elif _mode == "full-stdout":
    # stdout appended to a file on a full filesystem
    _fd = os.open("/dev/full", os.O_WRONLY)
    os.dup2(_fd, 1)
    os.close(_fd)
elif _mode == "close-stdin":
    # as `<&-`: no fd 0
    os.close(0)
    sys.stdin = sys.__stdin__ = None
'''


def site_hook(name: str, code: str, files: dict[str, str] | None = None) -> Step:
    """Write SITE/name/sitecustomize.py (and ``files``, paths relative to SITE/name)."""
    def before(ctx: Ctx) -> None:
        d = SITE / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        (d / "sitecustomize.py").write_text(code)
        for rel, text in (files or {}).items():
            (d / rel).parent.mkdir(parents=True, exist_ok=True)
            (d / rel).write_text(text)
    return before


def stdio(name: str, mode: str) -> tuple[dict[str, str], Step]:
    return {"PYTHONPATH": str(SITE / name), "B93_STDIO": mode}, site_hook(name, STDIO_HOOK)


def shippers(ctx: Ctx) -> list[psutil.Process]:
    return [p for p in ctx.children("tee") if p.name() == "tee"]


def kill_shipper_serving(ctx: Ctx) -> None:
    """Two completions, the log shipper SIGKILLed, three more completions and a pause."""
    if not up(ctx, 240):
        return
    ctx.complete(2)
    for p in shippers(ctx):
        p.kill()
    time.sleep(1)
    ctx.complete(3)
    linger(ctx, 12)


def freeze_shipper_at(needles: list[str], hold: float) -> Step:
    """The log shipper stopped (SIGSTOP) once a needle is logged, held, then SIGKILLed while
    stopped (so the recorder's closing SIGCONT cannot let it flush what the pipe holds)."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any(needles, 240) is None:
            return
        tees = shippers(ctx)
        for p in tees:
            p.suspend()
        linger(ctx, hold)
        for p in tees:
            try:
                p.kill()
            except psutil.Error:
                pass
    return act


# --- the working directory --------------------------------------------------------------------

JSON_PY = '''\
"""Pretty-print the request log of last night's benchmark (one JSON object a line)."""
import json
import sys


def main(path):
    with open(path) as f:
        for line in f:
            print(json.dumps(json.loads(line), indent=2, sort_keys=True))


if __name__ == "__main__":
    main(sys.argv[1])
'''

TOKEN_PY = '''\
"""Mint a bearer token for the team's inference gateway."""
import secrets
import sys


def new_token(nbytes=32):
    return "sk-team-" + secrets.token_urlsafe(nbytes)


if __name__ == "__main__":
    print(new_token(int(sys.argv[1]) if len(sys.argv) > 1 else 32))
'''

TRITON_INIT = '''\
"""Our client for the Triton Inference Server cluster (model repository in ../models)."""
from .client import TritonClient

__all__ = ["TritonClient"]
'''

TRITON_CLIENT = '''\
import json
import urllib.request


class TritonClient:
    def __init__(self, url="http://triton.internal:8000"):
        self.url = url.rstrip("/")

    def infer(self, model, inputs):
        body = json.dumps({"inputs": inputs}).encode()
        req = urllib.request.Request(f"{self.url}/v2/models/{model}/infer", data=body)
        with urllib.request.urlopen(req) as r:
            return json.loads(r.read())
'''


def in_cwd(files: dict[str, str]) -> Step:
    def before(ctx: Ctx) -> None:
        for rel, text in files.items():
            (ctx.work / rel).parent.mkdir(parents=True, exist_ok=True)
            (ctx.work / rel).write_text(text)
    return before


def vllm_checkout(ctx: Ctx) -> None:
    """The vllm package as a fresh clone has it: sources only (no compiled extensions, no
    generated _version.py), in the working directory."""
    shutil.copytree(VLLM_SITE / "vllm", ctx.work / "vllm",
                    ignore=shutil.ignore_patterns("*.so", "__pycache__", "_version.py"))


def then_clean(inner: Step, *names: str) -> Step:
    """Run ``inner``, then remove ``names`` from the working directory (later runs share it)."""
    def act(ctx: Ctx) -> None:
        try:
            inner(ctx)
        finally:
            for n in names:
                p = ctx.work / n
                if p.is_dir():
                    shutil.rmtree(p, ignore_errors=True)
                elif p.exists():
                    p.unlink()
    return act


# --- packages pinned beside the engine ----------------------------------------------------------

def pinned(name: str, spec: str) -> Step:
    """PINS/name holding the wheel of ``spec`` unpacked (a `pip install --target` folder)."""
    def before(ctx: Ctx) -> None:
        dest = PINS / name
        if dest.exists():
            return
        WHEELS.mkdir(parents=True, exist_ok=True)
        stem = spec.split("==")[0].replace("-", "_")
        wheel = next(iter(sorted(WHEELS.glob(f"{stem}-*.whl"))), None)
        if wheel is None:
            subprocess.run([str(VLLM.python), "-m", "pip", "download", "--no-deps",
                            "--only-binary=:all:", spec, "-d", str(WHEELS)], check=True)
            wheel = sorted(WHEELS.glob(f"{stem}-*.whl"))[0]
        with zipfile.ZipFile(wheel) as z:
            z.extractall(dest)
    return before


# --- leftovers of an earlier run ----------------------------------------------------------------

def prom_leftovers(name: str) -> Step:
    """A Prometheus multiprocess folder holding an earlier server's files: its counter file of
    0 bytes (killed between creating the file and sizing it) beside gauge files of its own."""
    def before(ctx: Ctx) -> None:
        d = B93 / name
        if d.exists():
            shutil.rmtree(d)
        d.mkdir(parents=True)
        (d / "counter_4242.db").write_bytes(b"")
        for f in ("gauge_all_4242.db", "histogram_4242.db"):
            (d / f).write_bytes((8).to_bytes(4, "little") + bytes(65532))
    return before


def get(ctx: Ctx, path: str, timeout: float = 30) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}{path}", timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def serve_and_scrape(ctx: Ctx) -> None:
    """Two completions, two scrapes of /metrics (as Prometheus would), one completion."""
    if not up(ctx, 240):
        return
    ctx.complete(2)
    get(ctx, "/metrics")
    time.sleep(2)
    get(ctx, "/metrics")
    ctx.complete(1)
    linger(ctx, 12)


# --- platform plugin leftover ---------------------------------------------------------------------

ASCEND_LEFTOVER = {
    "vllm_ascend-0.11.0.dist-info/METADATA": "Metadata-Version: 2.1\nName: vllm_ascend\n"
                                             "Version: 0.11.0\n",
    "vllm_ascend-0.11.0.dist-info/entry_points.txt": "[vllm.platform_plugins]\n"
                                                     "ascend = vllm_ascend:register\n\n"
                                                     "[vllm.general_plugins]\n"
                                                     "ascend_enhanced_model = "
                                                     "vllm_ascend:register_model\n",
    "vllm_ascend-0.11.0.dist-info/RECORD": "",
}


def leftover_dist(name: str, files: dict[str, str]) -> Step:
    def before(ctx: Ctx) -> None:
        d = B93 / name
        if d.exists():
            shutil.rmtree(d)
        for rel, text in files.items():
            (d / rel).parent.mkdir(parents=True, exist_ok=True)
            (d / rel).write_text(text)
    return before


# --- SGLang steps -------------------------------------------------------------------------------------

def sg_generate(ctx: Ctx, text: str, **params: object) -> int:
    return ctx.post("/generate", {"text": text,
                                  "sampling_params": {"max_new_tokens": 16, **params}}, 120)


def sg_serve(extra: Step | None = None) -> Step:
    """If it serves: two generations, ``extra``, one completion, a pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([SG_READY], 200) is None:
            return
        sg_generate(ctx, "fox")
        sg_generate(ctx, "fox 2")
        if extra is not None:
            extra(ctx)
        ctx.complete(1)
        linger(ctx, 12)
    return act


def scrape(ctx: Ctx) -> None:
    get(ctx, "/metrics")
    time.sleep(2)
    get(ctx, "/metrics")


PTH_HOOK = "import site\nsite.addsitedir('/tmp/blind93/site/s-pth-hook-broken/opt-python')\n"
PTH_FILE = ("# installed by the platform team: request tracing for every Python process\n"
            "import company_tracing; company_tracing.install()\n")

FR_TEMPLATE = ("{{ 'Vous êtes un assistant serviable — répondez brièvement, s’il vous plaît.' }}\n"
               "{% for m in messages %}{{ m['role'] }} : {{ m['content'] }}\n{% endfor %}"
               "{% if add_generation_prompt %}assistant :{% endif %}")
FR_TEMPLATE_PATH = B93 / "chat-fr.jinja"


def write_fr_template(ctx: Ctx) -> None:
    FR_TEMPLATE_PATH.parent.mkdir(parents=True, exist_ok=True)
    FR_TEMPLATE_PATH.write_text(FR_TEMPLATE, encoding="utf-8")


# --- the table ------------------------------------------------------------------------------------------

SHIP_ENV, SHIP_HOOK = stdio("v-log-shipper-dies", "ship")
STALL_ENV, STALL_HOOK = stdio("v-log-pipe-stalls-load", "ship-small")
CLOSED_ENV, CLOSED_HOOK = stdio("v-stdout-closed", "close-stdout")
FULL_ENV, FULL_HOOK = stdio("s-stdout-disk-full", "full-stdout")
NOSTDIN_ENV, NOSTDIN_HOOK = stdio("s-stdin-closed", "close-stdin")
S_CLOSED_ENV, S_CLOSED_HOOK = stdio("s-stdout-closed", "close-stdout")

SCENARIOS = [
    # vLLM: standard streams and lifecycle
    Scenario("v-log-shipper-dies", "vllm", "stdout piped to a log shipper (tee, writing the log "
             "file) that is SIGKILLed after two completions (a sidecar restarted); stderr still "
             "on the file; three more completions", BASE, env=SHIP_ENV, before=SHIP_HOOK,
             act=kill_shipper_serving),
    Scenario("v-log-pipe-stalls-load", "vllm", "stdout piped (a one-page pipe) to a log shipper "
             "that freezes (SIGSTOP) as the worker starts loading the model; stderr still on the "
             "file; held 75 s", BASE, env=STALL_ENV, before=STALL_HOOK,
             act=freeze_shipper_at(["Starting to load model"], 75)),
    Scenario("v-stdout-closed", "vllm", "started with stdout closed (`>&-` in an init script); "
             "stderr on the file", BASE, env=CLOSED_ENV, before=CLOSED_HOOK, act=until_exit),
    # vLLM: leftovers
    Scenario("v-prom-dir-leftover", "vllm", "PROMETHEUS_MULTIPROC_DIR holding an earlier "
             "server's files, its counter file 0 bytes; two completions, two scrapes of /metrics, "
             "one completion", BASE, env={"PROMETHEUS_MULTIPROC_DIR": str(B93 / "prom-v")},
             before=prom_leftovers("prom-v"), act=serve_and_scrape),
    # vLLM: the import world
    Scenario("v-cwd-json-py", "vllm", "a script named json.py (a log pretty-printer) in the "
             "working directory the server is started from", BASE,
             before=in_cwd({"json.py": JSON_PY}), act=then_clean(until_exit, "json.py")),
    Scenario("v-cwd-vllm-checkout", "vllm", "started from the root of a vLLM source checkout "
             "(a vllm/ package of sources only: no compiled extensions, no generated "
             "_version.py) with the CPU wheel installed", BASE, before=vllm_checkout,
             act=then_clean(until_exit, "vllm")),
    Scenario("v-sitecustomize-apm-missing", "vllm", "a site-wide sitecustomize.py on PYTHONPATH "
             "that starts an APM agent (import ddtrace.auto) not installed in this environment",
             BASE, env={"PYTHONPATH": str(SITE / "v-sitecustomize-apm-missing")},
             before=site_hook("v-sitecustomize-apm-missing",
                              "# platform base image: start the APM agent in every Python "
                              "process\nimport ddtrace.auto  # noqa: F401\n"),
             act=serve_short),
    Scenario("v-pin-typing-extensions", "vllm", "PYTHONPATH holding a folder of pinned packages "
             "with typing_extensions 4.1.1 (an old `pip install --target` pin)", BASE,
             env={"PYTHONPATH": str(PINS / "typing-extensions-4.1.1")},
             before=pinned("typing-extensions-4.1.1", "typing_extensions==4.1.1"),
             act=until_exit),
    Scenario("v-pythonpath-other-venv", "vllm", "PYTHONPATH naming the SGLang virtualenv's "
             "site-packages (exported by a shell profile), ahead of vLLM's own packages", BASE,
             env={"PYTHONPATH": str(SGLANG_SITE)}, act=until_exit),
    Scenario("v-pythonpath-apt-packages", "vllm", "PYTHONPATH=/usr/lib/python3/dist-packages "
             "(added to reach apt-installed modules; the system's older setuptools, PyYAML, "
             "pyparsing, cryptography ahead of the engine's)", BASE,
             env={"PYTHONPATH": "/usr/lib/python3/dist-packages"}, act=serve_short),
    Scenario("v-platform-plugin-leftover", "vllm", "the dist-info of an uninstalled vllm_ascend "
             "(platform and general plugin entry points, no package) left in a folder on "
             "PYTHONPATH; FORCE_COLOR=1 from the CI runner's environment", BASE,
             env={"PYTHONPATH": str(B93 / "ascend-leftover"), "FORCE_COLOR": "1"},
             before=leftover_dist("ascend-leftover", ASCEND_LEFTOVER), act=serve_short),
    Scenario("v-warn-default-encoding", "vllm", "PYTHONWARNDEFAULTENCODING=1 (an EncodingWarning "
             "audit switched on in the environment); three completions", BASE,
             env={"PYTHONWARNDEFAULTENCODING": "1"}, act=serve_short),
    # SGLang: standard streams
    Scenario("s-stdout-disk-full", "sglang", "--model-impl transformers; stdout appended to a "
             "log file on a full filesystem (as /dev/full: every write ENOSPC); stderr on the "
             "log; two generations and a completion", SG_SERVE, env=FULL_ENV, before=FULL_HOOK,
             act=sg_serve()),
    Scenario("s-stdin-closed", "sglang", "--model-impl transformers; started with stdin closed "
             "(`<&-`); two generations and a completion", SG_SERVE, env=NOSTDIN_ENV,
             before=NOSTDIN_HOOK, act=sg_serve()),
    Scenario("s-stdout-closed", "sglang", "--model-impl transformers; started with stdout "
             "closed (`>&-` in an init script); stderr on the file; two generations and a "
             "completion", SG_SERVE, env=S_CLOSED_ENV, before=S_CLOSED_HOOK, act=sg_serve()),
    # SGLang: leftovers
    Scenario("s-prom-dir-leftover", "sglang", "--model-impl transformers --enable-metrics; "
             "PROMETHEUS_MULTIPROC_DIR holding an earlier server's files, its counter file 0 "
             "bytes; two generations, two scrapes of /metrics, a completion",
             [*SG_SERVE, "--enable-metrics"], env={"PROMETHEUS_MULTIPROC_DIR": str(B93 / "prom-s")},
             before=prom_leftovers("prom-s"), act=sg_serve(scrape)),
    # SGLang: the import world
    Scenario("s-cwd-token-py", "sglang", "--model-impl transformers; a script named token.py "
             "(mints gateway tokens) in the working directory the server is started from",
             SG_SERVE, before=in_cwd({"token.py": TOKEN_PY}),
             act=then_clean(sg_serve(), "token.py")),
    Scenario("s-cwd-triton-package", "sglang", "--model-impl transformers; the team's own "
             "triton/ package (a Triton Inference Server client) in the working directory the "
             "server is started from", SG_SERVE,
             before=in_cwd({"triton/__init__.py": TRITON_INIT, "triton/client.py": TRITON_CLIENT}),
             act=then_clean(sg_serve(), "triton")),
    Scenario("s-pth-hook-broken", "sglang", "--model-impl transformers; a sitecustomize.py that "
             "adds a site folder whose company_hooks.pth imports a tracing module that is not "
             "installed", SG_SERVE, env={"PYTHONPATH": str(SITE / "s-pth-hook-broken")},
             before=site_hook("s-pth-hook-broken", PTH_HOOK,
                              {"opt-python/company_hooks.pth": PTH_FILE}),
             act=sg_serve()),
    Scenario("s-pin-numpy-1", "sglang", "--model-impl transformers; PYTHONPATH holding a folder "
             "of pinned packages with numpy 1.26.4 (a `numpy<2` pin) ahead of the engine's numpy "
             "2.3", SG_SERVE, env={"PYTHONPATH": str(PINS / "numpy-1.26.4")},
             before=pinned("numpy-1.26.4", "numpy==1.26.4"), act=sg_serve()),
    Scenario("s-pythonpath-other-venv", "sglang", "--model-impl transformers; PYTHONPATH naming "
             "the vLLM virtualenv's site-packages (exported by a shell profile), ahead of "
             "SGLang's own packages", SG_SERVE, env={"PYTHONPATH": str(VLLM_SITE)},
             act=sg_serve()),
    Scenario("s-devmode", "sglang", "--model-impl transformers; PYTHONDEVMODE=1 (Python's "
             "development mode left on in the environment); two generations and a completion",
             SG_SERVE, env={"PYTHONDEVMODE": "1"}, act=sg_serve()),
    # SGLang: locale and text
    Scenario("s-ascii-locale-template", "sglang", "--model-impl transformers; LC_ALL=C LANG=C "
             "PYTHONUTF8=0 TZ=Asia/Kolkata (a legacy base image's environment) and --chat-template "
             "naming a UTF-8 Jinja file whose system line is French (é, —, ’)",
             [*SG_SERVE, "--chat-template", str(FR_TEMPLATE_PATH)],
             env={"LC_ALL": "C", "LANG": "C", "PYTHONUTF8": "0", "TZ": "Asia/Kolkata"},
             before=write_fr_template, act=sg_serve()),
]


# Recorded 2026-12-05 (about 12 minutes of recording in all: the vLLM runs 7.6, the SGLang runs
# 4.6). 21 kept, as final files bx101-bx121 (vLLM bx101-bx111, SGLang bx112-bx121); two dropped
# because the fault left no trace in the log (an ordinary healthy serving log):
# v-pythonpath-apt-packages (the system's older setuptools, PyYAML, pyparsing and cryptography
# are never imported in a way that matters) and s-stdin-closed (nothing reads stdin).
# s-stdout-closed was added after them and recorded on its own.
# Found while recording: with stdout closed, vLLM's worker dies in suppress_stdout
# (sys.stdout.flush() on None) while making its process group, and the API server then aborts
# in libuv (`uv__close: Assertion fd > STDERR_FILENO failed`); SGLang dies configuring
# uvicorn's log formatter (sys.stdout.isatty() on None) once its scheduler is up. vLLM logs to
# stdout, SGLang to stderr (only uvicorn's access lines go to stdout), so a stdout that fails
# shows as `--- Logging error ---` blocks on stderr while serving goes on. A script in the
# working directory shadows the standard library under `python -m` (json.py, token.py) and
# installed packages (triton/, a vllm/ source tree). An empty .db file in
# PROMETHEUS_MULTIPROC_DIR makes every /metrics scrape a 500 (struct.error) on both engines.
# Python runs here in UTF-8 mode under LANG=C.UTF-8; LC_ALL=C with PYTHONUTF8=0 makes open()
# ASCII. The recorder host's eth0 address shows in vLLM's log as mq_connect_ip=192.0.2.2.
