"""``python -m supervisor.emulator.vllm_mode --model M --port P``: a vLLM stand-in.

It prints the startup of vLLM's CPU build (0.32) as a real run printed it (the labelled real
log tests/fixtures/real-engines/r01: its phase-marker lines, by the same processes and source
files, in the same order), phase by phase, then serves ``/health``, ``/v1/models`` and a
``/v1/completions`` that answers at once, with uvicorn's access lines, until SIGTERM.
``SGLANG_EMULATOR_TIME_SCALE`` shortens the phases as for the SGLang emulator. A test
(tests/test_emulator_vllm.py) holds these lines to the real log, so the two cannot drift apart.
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
# seconds per phase at scale 1 (the real run on 2 cores: launch 13 s, compile warmup 18 s)
PHASE_S = {"launch": 3.0, "weight_loading": 1.0, "kv_cache_alloc": 4.0, "warmup": 1.0}
SHARDS = 4


def _stamp() -> str:
    return time.strftime("%m-%d %H:%M:%S")


class _Log:
    """vLLM's logger format: ``(Proc pid=N) LEVEL MM-DD HH:MM:SS [file.py:line] message``."""

    def __init__(self) -> None:
        pid = os.getpid()
        self.pids = {"APIServer": pid, "EngineCore": pid + 107, "Worker": pid + 288}

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
