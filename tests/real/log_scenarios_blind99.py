"""The ninety-ninth batch's scenarios (tests/fixtures/corpus/fresh98): faults chosen,
recorded and labelled by a helper who had not read the classifier's rules.

    .venv/bin/python tests/real/record_logs.py --scenarios tests/real/log_scenarios_blind99.py OUT

Themes: what happens to a server that is up when the world around it changes. Files it still
needs removed or moved under it while it serves (the tokenizer files, the chat template file, the
model folder renamed, the Prometheus multiproc folder deleted); its resources taken away while it
serves (a memory cgroup's limit lowered after it is moved in, its nofile limit lowered with
prlimit, its priority lowered with renice); clients misbehaving (three hundred connections opened
that never send, a request with a 200 KB header, a body shorter than its Content-Length); and
signals a deployment sends (SIGHUP, SIGUSR1, SIGWINCH) to the server's main process - the API
server (vLLM) or the launcher that runs the HTTP server (SGLang) - while it serves.

SGLang scenarios run with --device cpu --model-impl transformers, with which it serves here.
Every scenario serves two completions, then meets its fault, then one or two more requests
(short client timeouts) and a pause.

Recorded 2026-12-05 in three invocations (about 17 minutes in all), each scenario once. Both
engines served through every fault but two: SIGHUP and SIGUSR1 to SGLang's launch_server main
process kill it silently (default action; the log ends on resource_tracker's leaked-semaphore
warning). With nofile lowered to 16 the next connection is never accepted and nothing is logged
(both engines). vLLM answers the deleted Prometheus folder's scrape with a bare 400 and takes a
200 KB header (200); SGLang's uvicorn logs `Invalid HTTP request received.` for it. Deleted
tokenizer files, chat template and a renamed model folder change nothing (all read at startup).
A memory cgroup's limit lowered after the move bites nothing: cgroup v1 leaves existing charges
behind (usage peaked at ~0.5 MiB). Idle connections, a short body, SIGWINCH and renice: no trace.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import sys
import time
import urllib.request
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
from log_faults import (  # noqa: E402
    READY_LINE,
    VLLM_BASE,
    Ctx,
    Scenario,
    copy_model,
    linger,
)

SG_READY = "The server is fired up and ready to roll!"
SG = ["--device", "cpu", "--model-impl", "transformers"]
ROOT = Path("/tmp/blind99")
CHAT_JINJA = ("{% for m in messages %}{{ m['role'] }}: {{ m['content'] }}\n{% endfor %}"
              "{% if add_generation_prompt %}assistant:{% endif %}")


def post(ctx: Ctx, path: str, body: dict, timeout: float = 20) -> int:
    return ctx.post(path, body, timeout=timeout)


def get(ctx: Ctx, path: str, timeout: float = 15) -> int:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{ctx.port}{path}", timeout=timeout) as r:
            r.read()
            return r.status
    except urllib.error.HTTPError as e:
        return e.code
    except (OSError, TimeoutError):
        return 0


def tree(ctx: Ctx) -> list[int]:
    import psutil
    assert ctx.proc is not None
    try:
        return [ctx.proc.pid, *(p.pid for p in psutil.Process(ctx.proc.pid).children(True))]
    except psutil.Error:
        return [ctx.proc.pid]


def serving(fault, ready: str, chat: bool = False, after: float = 12):
    """Up; two completions; ``fault``; two more requests (completion, chat if asked); pause."""
    def act(ctx: Ctx) -> None:
        if ctx.wait_any([ready], 240) is None:
            return
        if ctx.proc is None or ctx.proc.poll() is not None or ready not in ctx.text():
            return
        name = ctx.model_name()
        for i in range(2):
            post(ctx, "/v1/completions", {"model": name, "prompt": f"fox {i}", "max_tokens": 12},
                 60)
        fault(ctx)
        time.sleep(2)
        post(ctx, "/v1/completions", {"model": name, "prompt": "fox 2", "max_tokens": 12})
        if chat:
            post(ctx, "/v1/chat/completions", {"model": name, "max_tokens": 12,
                                               "messages": [{"role": "user", "content": "hi"}]})
        linger(ctx, after)
    return act


# --- faults -------------------------------------------------------------------------------------

def rm_tokenizer(name: str):
    def f(ctx: Ctx) -> None:
        d = ctx.work / name
        for p in ("tokenizer.json", "tokenizer_config.json", "special_tokens_map.json",
                  "tokenizer.model", "vocab.json", "merges.txt"):
            (d / p).unlink(missing_ok=True)
    return f


def rename_model(name: str):
    def f(ctx: Ctx) -> None:
        d = ctx.work / name
        d.rename(d.with_name(name + "-old"))
    return f


def rm_file(path: Path):
    def f(ctx: Ctx) -> None:
        path.unlink(missing_ok=True)
    return f


def rm_prom(path: Path):
    def f(ctx: Ctx) -> None:
        shutil.rmtree(path, ignore_errors=True)
        get(ctx, "/metrics")
    return f


def nofile(n: int):
    def f(ctx: Ctx) -> None:
        assert ctx.proc is not None
        subprocess.run(["prlimit", "--pid", str(ctx.proc.pid), f"--nofile={n}:{n}"])
    return f


def renice(ctx: Ctx) -> None:
    subprocess.run(["renice", "-n", "19", "-p", *map(str, tree(ctx))],
                   stdout=subprocess.DEVNULL)


def signal_main(sig: int):
    def f(ctx: Ctx) -> None:
        assert ctx.proc is not None
        try:
            os.kill(ctx.proc.pid, sig)
        except OSError:
            pass
    return f


def idle_conns(n: int):
    def f(ctx: Ctx) -> None:
        for _ in range(n):
            s = socket.socket()
            try:
                s.connect(("127.0.0.1", ctx.port))
            except OSError:
                s.close()
                break
            ctx.keep.append(s)
        time.sleep(3)
    return f


def raw(ctx: Ctx, data: bytes, hold: float = 0) -> None:
    s = socket.create_connection(("127.0.0.1", ctx.port), timeout=15)
    try:
        s.sendall(data)
        time.sleep(hold)
        s.settimeout(5)
        try:
            s.recv(4096)
        except OSError:
            pass
    except OSError:
        pass
    finally:
        s.close()


def huge_header(ctx: Ctx) -> None:
    raw(ctx, b"GET /v1/models HTTP/1.1\r\nHost: localhost\r\nX-Trace: " + b"a" * 200_000
        + b"\r\n\r\n")


def short_body(ctx: Ctx) -> None:
    body = b'{"model": "m", "prompt": "fox", "max'
    raw(ctx, b"POST /v1/completions HTTP/1.1\r\nHost: localhost\r\nContent-Type: "
        b"application/json\r\nContent-Length: 400\r\n\r\n" + body, hold=6)


def memcg_lowered(cg: str, limit: str):
    """Every process of the run moved into a fresh memory cgroup, then its limit lowered."""
    def f(ctx: Ctx) -> None:
        d = Path("/sys/fs/cgroup/memory") / cg
        d.mkdir(exist_ok=True)
        for pid in tree(ctx):
            try:
                (d / "cgroup.procs").write_text(str(pid))
            except OSError:
                pass
        try:
            (d / "memory.limit_in_bytes").write_text(limit)
        except OSError as e:
            print(f"{cg}: limit not set: {e}", flush=True)
    return f


def write_template(path: Path):
    def f(ctx: Ctx) -> None:
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(CHAT_JINJA)
    return f


def model_copy(name: str):
    return lambda work: copy_model(work, name)


def v(name: str, what: str, fault, extra: list[str] | None = None, env=None, model=None,
      before=None, chat=False) -> Scenario:
    return Scenario(name, "vllm", what, [*VLLM_BASE, *(extra or [])], env=env or {},
                    model=model, before=before, act=serving(fault, READY_LINE, chat))


def s(name: str, what: str, fault, extra: list[str] | None = None, env=None, model=None,
      before=None, chat=False) -> Scenario:
    return Scenario(name, "sglang", what, [*SG, *(extra or [])], env=env or {}, model=model,
                    before=before, act=serving(fault, SG_READY, chat))


V_TEMPLATE = ROOT / "chat-v.jinja"
V_PROM = ROOT / "prom-v"


def make_prom(path: Path):
    def f(ctx: Ctx) -> None:
        shutil.rmtree(path, ignore_errors=True)
        path.mkdir(parents=True)
    return f


SCENARIOS = [
    v("v-tokenizer-removed-serving", "served two completions, then the model copy's tokenizer "
      "files (tokenizer.json, tokenizer_config.json, special_tokens_map.json) deleted under it",
      rm_tokenizer("tok-gone-v"), model=model_copy("tok-gone-v")),
    v("v-model-dir-renamed-serving", "served two completions, then the model folder renamed "
      "(a redeploy moving the old version aside)", rename_model("moved-v"),
      model=model_copy("moved-v")),
    v("v-chat-template-removed-serving", "--chat-template FILE; served two completions, then "
      "the template file deleted (a config map swapped), then a completion and a chat request",
      rm_file(V_TEMPLATE), extra=["--chat-template", str(V_TEMPLATE)],
      before=write_template(V_TEMPLATE), chat=True),
    v("v-prom-dir-deleted-serving", "PROMETHEUS_MULTIPROC_DIR set to a folder that exists; "
      "served two completions, then the folder deleted (a tmp reaper), a GET /metrics, a "
      "completion", rm_prom(V_PROM), env={"PROMETHEUS_MULTIPROC_DIR": str(V_PROM)},
      before=make_prom(V_PROM)),
    v("v-nofile-lowered-serving", "served two completions, then the API server's nofile limit "
      "lowered to 16 with prlimit --pid, then a completion", nofile(16)),
    v("v-idle-conns-serving", "served two completions, then 300 client connections opened that "
      "never send a byte, then a completion", idle_conns(300)),
    v("v-short-body-serving", "served two completions, then a POST /v1/completions whose body "
      "stops 360 bytes short of its Content-Length (held 6 s, then closed)", short_body),
    v("v-sigwinch-api-serving", "served two completions, then SIGWINCH (a terminal resize) to "
      "the API server process", signal_main(signal.SIGWINCH)),
    v("v-memcg-lowered-serving", "served two completions, then every process of the run moved "
      "into a fresh memory cgroup whose limit is then set to 300 MiB",
      memcg_lowered("blind99-v", "300M")),
    v("v-huge-header-serving", "served two completions, then a GET /v1/models with a 200 KB "
      "header, then a completion", huge_header),
    s("s-sighup-main-serving", "served two completions, then SIGHUP (a log rotation's signal) "
      "to the launch_server main process (HTTP server and tokenizer manager)",
      signal_main(signal.SIGHUP)),
    s("s-sigusr1-main-serving", "served two completions, then SIGUSR1 to the launch_server "
      "main process", signal_main(signal.SIGUSR1)),
    s("s-tokenizer-removed-serving", "served two completions, then the model copy's tokenizer "
      "files deleted under it", rm_tokenizer("tok-gone-s"), model=model_copy("tok-gone-s")),
    s("s-model-dir-renamed-serving", "served two completions, then the model folder renamed",
      rename_model("moved-s"), model=model_copy("moved-s")),
    s("s-nofile-lowered-serving", "served two completions, then the main process's nofile "
      "limit lowered to 16 with prlimit --pid, then a completion", nofile(16)),
    s("s-renice-serving", "served two completions, then every process of the run reniced to "
      "19", renice),
    s("s-huge-header-serving", "served two completions, then a GET /v1/models with a 200 KB "
      "header, then a completion", huge_header),
    s("s-memcg-lowered-serving", "served two completions, then every process of the run moved "
      "into a fresh memory cgroup whose limit is then set to 300 MiB",
      memcg_lowered("blind99-s", "300M")),
    s("s-idle-conns-serving", "served two completions, then 300 client connections opened that "
      "never send a byte, then a completion", idle_conns(300)),
    s("s-short-body-serving", "served two completions, then a POST /v1/completions whose body "
      "stops 360 bytes short of its Content-Length (held 6 s, then closed)", short_body),
]
