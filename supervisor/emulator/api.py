"""The emulator's HTTP API (stdlib ThreadingHTTPServer), opened only after graph capture.

``/health`` ``/health_generate`` (503 during warmup, 200 once ready), ``/model_info``
``/get_model_info``, ``/v1/models``, ``/get_server_info`` ``/server_info``, ``POST /generate``,
``POST /v1/chat/completions`` (``stream: true`` → Server-Sent Events, one token per chunk) and
``POST /v1/completions``. Access lines go to stdout in uvicorn's format, like SGLang's.
"""

from __future__ import annotations

import json
import socket
import sys
import threading
import time
import uuid
from http.server import BaseHTTPRequestHandler, ThreadingHTTPServer
from urllib.parse import urlsplit

from supervisor.emulator import logfmt

PHRASES = {200: "OK", 400: "Bad Request", 404: "Not Found", 405: "Method Not Allowed",
           503: "Service Unavailable"}


def _hang() -> None:
    threading.Event().wait()


def _prompt_tokens(text: str) -> int:
    return max(1, int(len(text.split()) * 1.3) + 1)


class Handler(BaseHTTPRequestHandler):
    protocol_version = "HTTP/1.1"
    server_version = "uvicorn"
    sys_version = ""

    @property
    def emu(self):
        return self.server.emu  # type: ignore[attr-defined]

    # uvicorn access line: [ts] INFO:     127.0.0.1:54992 - "GET /health HTTP/1.1" 200 OK
    def log_request(self, code="-", size="-") -> None:
        code = int(code) if str(code).isdigit() else 0
        host, port = self.client_address[:2]
        logfmt.emit(logfmt.uvicorn(f'{host}:{port} - "{self.requestline}" {code} '
                                   f'{PHRASES.get(code, "")}'.rstrip()), fd=logfmt.STDOUT)

    def log_message(self, format, *args) -> None:  # noqa: A002 - stdlib signature
        pass

    def _json(self, code: int, obj) -> None:
        body = json.dumps(obj).encode()
        self.send_response(code)
        self.send_header("Content-Type", "application/json")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def _empty(self, code: int) -> None:
        self.send_response(code)
        self.send_header("Content-Length", "0")
        self.end_headers()

    def _body(self) -> dict:
        n = int(self.headers.get("Content-Length") or 0)
        raw = self.rfile.read(n) if n else b""
        try:
            data = json.loads(raw or b"{}")
        except ValueError:
            data = None
        return data if isinstance(data, dict) else {}

    def do_GET(self) -> None:  # noqa: N802 - stdlib naming
        self._route("GET")

    def do_POST(self) -> None:  # noqa: N802
        self._route("POST")

    def _route(self, method: str) -> None:
        emu = self.emu
        if emu.frozen:
            _hang()
        path = urlsplit(self.path).path
        if path == "/health_generate" and (emu.stalled or emu.plan.stall and emu.ready.is_set()):
            _hang()  # stall: /health answers, whatever generates never does (even the first)
        try:
            if path in ("/health", "/health_generate"):
                code = emu.health()
                if code is None:
                    _hang()
                self._empty(code)
            elif path in ("/model_info", "/get_model_info"):
                self._json(200, self.model_info())
            elif path == "/v1/models":
                a = emu.args
                self._json(200, {"object": "list", "data": [{
                    "id": a.served_model_name or a.model_path, "object": "model",
                    "created": int(time.time()), "owned_by": "sglang", "root": a.model_path,
                    "max_model_len": emu.context_len}]})
            elif path in ("/get_server_info", "/server_info"):
                info = {k: v for k, v in vars(emu.args).items() if k not in ("replay", "speed")}
                info.update(version="0.5.5", status="Up" if emu.ready.is_set() else "Starting",
                            max_total_num_tokens=emu.max_total_tokens,
                            internal_states=[{"last_gen_throughput": emu.tokens_per_s}])
                self._json(200, info)
            elif path == "/metrics" and emu.args.enable_metrics:
                self._text(200, self.prometheus())
            elif path == "/get_load":
                self._json(200, [{"dp_rank": 0, "num_reqs": emu.running_reqs,
                                  "num_waiting_reqs": 0, "num_tokens": emu.running_tokens}])
            elif method == "POST" and path == "/generate":
                self.generate(self._body())
            elif method == "POST" and path in ("/v1/chat/completions", "/v1/completions"):
                self.completions(self._body(), chat=path.endswith("chat/completions"))
            else:
                self._json(404, {"detail": "Not Found"})
        except (BrokenPipeError, ConnectionResetError):
            self.close_connection = True

    def _text(self, code: int, text: str) -> None:
        body = text.encode()
        self.send_response(code)
        self.send_header("Content-Type", "text/plain; version=0.0.4; charset=utf-8")
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def prometheus(self) -> str:
        """SGLang's --enable-metrics page (its names and labels), from what is being served."""
        emu = self.emu
        labels = f'{{model_name="{emu.args.served_model_name or emu.args.model_path}"}}'
        running = emu.running_reqs
        gauges = (("num_running_reqs", running), ("num_queue_reqs", 0),
                  ("num_used_tokens", emu.running_tokens),
                  ("token_usage", round(emu.running_tokens / max(1, emu.max_total_tokens), 4)),
                  ("gen_throughput", emu.tokens_per_s * running if running else 0.0),
                  ("cache_hit_rate", 0.0),
                  ("spec_accept_length", 2.17 if emu.spec else 1.0))
        out = []
        for name, value in gauges:
            out += [f"# TYPE sglang:{name} gauge", f"sglang:{name}{labels} {float(value)}"]
        for name, value in (("prompt_tokens", emu.prompt_tokens_total),
                            ("generation_tokens", emu.generated_tokens_total)):
            out += [f"# TYPE sglang:{name}_total counter",
                    f"sglang:{name}_total{labels} {float(value)}"]
        return "\n".join(out) + "\n"

    def model_info(self) -> dict:
        a = self.emu.args
        return {"model_path": a.model_path, "tokenizer_path": a.tokenizer_path,
                "is_generation": True, "preferred_sampling_params": None,
                "weight_version": "default", "has_image_understanding": False,
                "has_audio_understanding": False, "model_type": "qwen2",
                "architectures": [self.emu.arch]}

    def generate(self, req: dict) -> None:
        emu = self.emu
        emu.before_generate()
        params = req.get("sampling_params") or {}
        n = int(params.get("max_new_tokens", 16))
        prompt = _prompt_tokens(str(req.get("text", "")))
        t0 = time.monotonic()
        toks = emu.generate(prompt, n)
        self._json(200, {"text": "".join(toks), "meta_info": {
            "id": uuid.uuid4().hex, "finish_reason": {"type": "length", "length": n},
            "prompt_tokens": prompt, "completion_tokens": n, "cached_tokens": 0,
            "weight_version": "default", "e2e_latency": time.monotonic() - t0}})

    def completions(self, req: dict, chat: bool) -> None:
        emu = self.emu
        emu.before_generate()
        n = int(req.get("max_tokens") or req.get("max_completion_tokens") or 64)
        if chat:
            text = " ".join(str(m.get("content", "")) for m in req.get("messages") or []
                            if isinstance(m, dict))
        else:
            text = str(req.get("prompt", ""))
        prompt = _prompt_tokens(text)
        model = req.get("model") or emu.args.served_model_name or emu.args.model_path
        rid = uuid.uuid4().hex
        created = int(time.time())
        kind = "chat.completion" if chat else "text_completion"
        usage = {"prompt_tokens": prompt, "total_tokens": prompt + n, "completion_tokens": n,
                 "prompt_tokens_details": None}

        def choice(tok: str | None, finish: str | None, first: bool) -> dict:
            if chat:
                delta = {} if tok is None else {"role": "assistant", "content": tok} if first \
                    else {"content": tok}
                return {"index": 0, "delta": delta, "logprobs": None, "finish_reason": finish,
                        "matched_stop": None}
            return {"index": 0, "text": tok or "", "logprobs": None, "finish_reason": finish,
                    "matched_stop": None}

        if not req.get("stream"):
            toks = emu.generate(prompt, n)
            text_out = "".join(toks)
            c = ({"index": 0, "message": {"role": "assistant", "content": text_out,
                                          "reasoning_content": None, "tool_calls": None}}
                 if chat else {"index": 0, "text": text_out})
            c.update(logprobs=None, finish_reason="length", matched_stop=None)
            self._json(200, {"id": rid, "object": kind, "created": created, "model": model,
                             "choices": [c], "usage": usage})
            return

        self.send_response(200)
        self.send_header("Content-Type", "text/event-stream")
        self.send_header("Cache-Control", "no-cache")
        self.send_header("Transfer-Encoding", "chunked")
        self.end_headers()
        obj = f"{kind}.chunk" if chat else kind

        def send(payload: str) -> None:
            data = f"data: {payload}\n\n".encode()
            self.wfile.write(b"%x\r\n%s\r\n" % (len(data), data))
            self.wfile.flush()

        def chunk(ch: dict, use=None) -> str:
            return json.dumps({"id": rid, "object": obj, "created": created, "model": model,
                               "choices": [ch] if ch else [], "usage": use})

        emu.generate(prompt, n, lambda i, tok: send(chunk(choice(tok, None, i == 0))))
        send(chunk(choice(None if chat else "", "length", False)))
        if (req.get("stream_options") or {}).get("include_usage"):
            send(chunk({}, usage))
        send("[DONE]")
        self.wfile.write(b"0\r\n\r\n")
        self.wfile.flush()


class Server(ThreadingHTTPServer):
    daemon_threads = True
    allow_reuse_address = True

    def __init__(self, emu, host: str, port: int) -> None:
        self.emu = emu
        if ":" in host:
            self.address_family = socket.AF_INET6
        super().__init__((host, port), Handler)

    def handle_error(self, request, client_address) -> None:
        """A client that hung up (a probe that timed out, a benchmark cut short) is routine,
        as in uvicorn: no traceback in the server's log, where it would read as a crash."""
        exc = sys.exc_info()[1]
        if isinstance(exc, (ConnectionResetError, BrokenPipeError, ConnectionAbortedError)):
            return
        super().handle_error(request, client_address)


def make_server(emu, host: str, port: int) -> Server:
    return Server(emu, host or "0.0.0.0", port)
