"""``python -m supervisor.emulator.vllm_mode --model M --port P``: a vLLM stand-in.

It prints the startup of vLLM's CPU build (0.32) as a real run printed it (the labelled real
log tests/fixtures/real-engines/r01: its phase-marker lines, by the same processes and source
files, in the same order), phase by phase, then serves ``/health``, ``/v1/models`` and a
``/v1/completions`` that answers at once, with uvicorn's access lines, until SIGTERM.
``SGLANG_EMULATOR_TIME_SCALE`` shortens the phases as for the SGLang emulator. A test
(tests/test_emulator_vllm.py) holds these lines to the real log, so the two cannot drift apart.

``VLLM_EMULATOR_MEMORY="FREE/TOTAL"`` (GiB) is the memory the worker finds at startup: when
``--gpu-memory-utilization`` (default 0.92) asks for more than is free, the worker refuses to
start and the engine dies as the real one did (tests/fixtures/real-engines/r02), held to that
log by the same test. Unset, everything fits.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import threading
import time
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer

from supervisor.emulator import logfmt

VERSION = "0.32.0"
DEFAULT_UTILIZATION = 0.92
SITE = "/usr/local/lib/python3.12/site-packages/vllm"
# seconds per phase at scale 1 (the real run on 2 cores: launch 13 s, compile warmup 18 s)
PHASE_S = {"launch": 3.0, "weight_loading": 1.0, "kv_cache_alloc": 4.0, "warmup": 1.0}
SHARDS = 4


def _stamp() -> str:
    return time.strftime("%m-%d %H:%M:%S")


class _Log:
    """vLLM's logger format: ``(Proc pid=N) LEVEL MM-DD HH:MM:SS [file.py:line] message``."""

    def __init__(self) -> None:
        pid = os.getpid()
        self.pids = {"APIServer": pid, "EngineCore": pid + 107, "Worker": pid + 288,
                     "VllmWorker-0": pid + 288}

    def __call__(self, proc: str, where: str, msg: str, level: str = "INFO") -> None:
        logfmt.emit(f"({proc} pid={self.pids[proc]}) {level} {_stamp()} [{where}] {msg}")


def _startup(log: _Log, a: argparse.Namespace, scale: float) -> None:
    def phase_sleep(phase: str, share: float = 1.0) -> None:
        time.sleep(PHASE_S[phase] * share * scale)

    args = {"host": a.host, "port": a.port, "model": a.model, "max_model_len": 2048}
    log("APIServer", "api_utils.py:286", f"non-default args: {args}")
    log("APIServer", "model.py:733", "Resolved architecture: LlamaForCausalLM")
    log("APIServer", "model.py:2152", "Using max model len 2048")
    phase_sleep("launch")
    log("EngineCore", "core.py:133", f"Initializing a V1 LLM engine (v{VERSION}) with config: "
        f"model='{a.model}', speculative_config=None, tokenizer='{a.model}', "
        "skip_tokenizer_init=False, dtype=torch.bfloat16, max_seq_len=2048, device_config=cpu")
    refusal = _memory_refusal(a.gpu_memory_utilization)
    if refusal:
        _die_at_worker_init(log, refusal)
    log("Worker", "cpu_model_runner.py:68", f"Starting to load model {a.model}...")
    for k in range(SHARDS + 1):
        if k == 0 or k == SHARDS:
            logfmt.emit(f"Loading safetensors checkpoint shards: {100 * k // SHARDS:3d}% "
                        f"Completed | {k}/{SHARDS} [00:00<00:00, 4.00it/s]")
        if k < SHARDS:
            phase_sleep("weight_loading", 1 / SHARDS)
    log("Worker", "default_loader.py:501", "Loading weights took 0.00 seconds")
    log("Worker", "cpu_model_runner.py:87", "Warming up model for the compilation...")
    phase_sleep("kv_cache_alloc")
    log("Worker", "cpu_model_runner.py:91", "Warming up done.")
    log("Worker", "cpu_worker.py:260", "Auto set (1.83/10.09) GiB for KV cache on node 0, "
        "with 2.52 GiB requested memory for the worker. 0.69 GiB memory was consumed by "
        "non-kv usages.")
    log("EngineCore", "kv_cache_utils.py:2327", "CPU KV cache size: 1,921,408 tokens, Maximum "
        "concurrency for 2,048 tokens per request: 938.19x")
    took = sum(PHASE_S[p] for p in ("weight_loading", "kv_cache_alloc")) * scale
    log("EngineCore", "core.py:402",
        f"init engine (profile, create kv cache, warmup model) took {took:.2f} s")
    phase_sleep("warmup")
    log("APIServer", "entry.py:140", f"Starting vLLM server on http://{a.host}:{a.port}")
    for route, methods in (("/health", "GET"), ("/v1/models", "GET"),
                           ("/v1/completions", "POST")):
        log("APIServer", "launcher.py:195", f"Route: {route}, Methods: {methods}")


def _memory_refusal(utilization: float) -> str | None:
    """vLLM's CPU worker check at init: the requested fraction of the node's memory must be
    free now. The message is the real one (cpu_worker.py), numbers from VLLM_EMULATOR_MEMORY."""
    spec = os.environ.get("VLLM_EMULATOR_MEMORY", "")
    try:
        free, total = (float(x) for x in spec.split("/"))
    except ValueError:
        return None
    wanted = total * utilization
    if wanted <= free:
        return None
    return (f"Available memory on node 0 ({free:.2f}/{total:.2f} GiB) on startup is less than "
            f"desired CPU memory utilization ({utilization}, {wanted:.2f} GiB). On the CPU "
            "backend, the `--gpu-memory-utilization` flag controls the fraction of CPU memory "
            "reserved (despite its name). To resolve: decrease `--gpu-memory-utilization` (e.g. "
            "`--gpu-memory-utilization 0.5`) or reduce CPU memory used by other processes.")


def _traceback(frames: list[tuple[str, int, str, str]], last: str) -> list[str]:
    out = ["Traceback (most recent call last):"]
    for path, lineno, func, code in frames:
        out += [f'  File "{SITE}/{path}", line {lineno}, in {func}', f"    {code}"]
    return out + [last]


def _die_at_worker_init(log: _Log, refusal: str) -> None:
    """The real sequence: the worker's traceback, the engine core's, the API server's, exit 1."""
    worker = _traceback([("v1/executor/multiproc_executor.py", 920, "worker_main",
                          "worker = WorkerProc(*args, **kwargs)"),
                         ("v1/worker/worker_base.py", 338, "init_worker",
                          "self.worker = worker_class(**kwargs)"),
                         ("v1/worker/cpu_worker.py", 83, "__init__", "raise ValueError(")],
                        f"ValueError: {refusal}")
    for text in ["WorkerProc failed to start.", *worker]:
        log("VllmWorker-0", "multiproc_executor.py:953", text, level="ERROR")
    log("EngineCore", "multiproc_executor.py:479",
        "[shutdown] Executor: waiting for worker exit count=1")
    core_exc = ("Exception: WorkerProc initialization failed due to an exception in a "
                "background process. See stack trace for root cause.")
    core = _traceback([("v1/engine/core.py", 1482, "run_engine_core",
                        "engine_core = EngineCoreProc(*args, engine_index=dp_rank, **kwargs)"),
                       ("v1/executor/multiproc_executor.py", 815, "wait_for_ready",
                        "raise e from None")], core_exc)
    for text in ["EngineCore failed to start.", *core]:
        log("EngineCore", "core.py:1510", text, level="ERROR")
    logfmt.emit("Process EngineCore:", *core)
    api = _traceback([("v1/engine/utils.py", 1431, "wait_for_engine_startup",
                       "raise RuntimeError(")],
                     "RuntimeError: Engine core initialization failed. See root cause above. "
                     "Failed core proc(s): {}")
    logfmt.emit(*api)
    os._exit(1)


class _Api(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"

    def _reply(self, body: dict | None = None) -> None:
        data = json.dumps(body).encode() if body is not None else b""
        self.send_response(200)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(data)))
        self.end_headers()
        self.wfile.write(data)

    def do_GET(self) -> None:  # noqa: N802 (http.server's name)
        if self.path == "/v1/models":
            model = self.server.model  # type: ignore[attr-defined]
            self._reply({"object": "list", "data": [{"id": model, "object": "model"}]})
        else:
            self._reply()

    def do_POST(self) -> None:  # noqa: N802
        length = int(self.headers.get("Content-Length") or 0)
        self.rfile.read(length)
        self._reply({"object": "text_completion", "choices": [{"index": 0, "text": " Paris",
                                                                "finish_reason": "length"}],
                     "usage": {"prompt_tokens": 1, "completion_tokens": 1, "total_tokens": 2}})

    def log_message(self, format: str, *args: object) -> None:  # noqa: A002
        pass

    def log_request(self, code: int | str = "-", size: int | str = "-") -> None:
        host, port = self.client_address[:2]
        status = f"{code} OK" if str(code) == "200" else str(code)
        logfmt.emit(f'INFO:     {host}:{port} - "{self.requestline}" {status}')


def _serve(a: argparse.Namespace) -> ThreadingHTTPServer:
    server = ThreadingHTTPServer((a.host, a.port), _Api)
    server.model = a.model  # type: ignore[attr-defined]
    logfmt.emit(f"INFO:     Started server process [{os.getpid()}]",
                "INFO:     Waiting for application startup.",
                "INFO:     Application startup complete.")
    threading.Thread(target=server.serve_forever, kwargs={"poll_interval": 0.2},
                     daemon=True).start()
    return server


def parse_args(argv: list[str]) -> argparse.Namespace:
    p = argparse.ArgumentParser(prog="vllm serve (emulated)", allow_abbrev=False)
    p.add_argument("--model", default="facebook/opt-125m")
    p.add_argument("--host", default="0.0.0.0")
    p.add_argument("--port", type=int, default=8000)
    p.add_argument("--gpu-memory-utilization", type=float, default=DEFAULT_UTILIZATION)
    args, _unknown = p.parse_known_args(argv)
    return args


def main(argv: list[str] | None = None) -> int:
    a = parse_args(sys.argv[1:] if argv is None else argv)
    done, serving = threading.Event(), threading.Event()

    def on_term(*_: object) -> None:
        if not serving.is_set():
            os._exit(0)  # stopped during startup: nothing to shut down
        done.set()

    signal.signal(signal.SIGTERM, on_term)
    scale = float(os.environ.get("SGLANG_EMULATOR_TIME_SCALE") or 1.0)
    log = _Log()
    _startup(log, a, scale)
    try:
        server = _serve(a)
    except OSError as e:
        logfmt.emit(f"ERROR:    [Errno {e.errno}] error while attempting to bind on address "
                    f"('{a.host}', {a.port}): {e.strerror}")
        return 1
    serving.set()
    done.wait()
    log("APIServer", "launcher.py:110", "Shutting down FastAPI HTTP server.")
    server.shutdown()
    return 0


if __name__ == "__main__":
    sys.exit(main())
