"""Measuring a config once it is ready: the profile's optional [benchmark] step.

kind = "chat"    a streaming chat completion: time to first token and decode tokens/s
                 (keys: prompt, max_tokens, path = "/v1/chat/completions", model, timeout)
kind = "completion"  the same over a streaming text completion, for base models that have no
                 chat template (keys: as chat, path = "/v1/completions", ignore_eos)
kind = "command" any command; numbers are parsed from its output with `regex` (named groups)
                 (keys: command = [...], regex, timeout); BENCH_HOST/BENCH_PORT/BENCH_URL set

Results are plain dicts stored with the run; the keys tokens_per_s and ttft_ms are what the
history and the brief compare across profiles. A benchmark that did not run to its end (the
server went away, the stream was cut, the command failed) is recorded as
``{"complete": false, "error": ...}`` and never carries a rate; a chat benchmark carries one
only over at least MIN_RATE_TOKENS tokens and MIN_RATE_SECONDS of decoding.
"""

from __future__ import annotations

import http.client
import json
import math
import os
import re
import subprocess
import time
from collections.abc import Mapping
from typing import Any

DEFAULT_PROMPT = "Write a short essay on the history of the transistor."

# Below these, a rate measures the timer and the scheduler more than the server (a trial cut
# off after 2 tokens in 0.047 s read as 21,296 tok/s).
MIN_RATE_TOKENS = 16
MIN_RATE_SECONDS = 0.5


class BenchmarkError(Exception):
    pass


def run_benchmark(spec: Mapping[str, Any], host: str, port: int, model: str | None,
                  ) -> dict[str, Any]:
    """Blocking; the daemon runs it in a worker thread. Whatever happens, a result."""
    kind = str(spec.get("kind", "chat"))
    started = time.time()
    try:
        if kind in ("chat", "completion"):
            result = chat_benchmark(spec, host, port, model, kind)
        elif kind == "command":
            result = command_benchmark(spec, host, port)
        else:
            raise BenchmarkError(f"unknown benchmark kind {kind!r} (chat | completion | command)")
    except BenchmarkError as exc:
        result = {"complete": False, "error": str(exc)}
    except (OSError, http.client.HTTPException, subprocess.SubprocessError, ValueError) as exc:
        result = {"complete": False, "error": f"did not complete: {type(exc).__name__}: {exc}"}
    return {"kind": kind, "started": started, "duration_s": round(time.time() - started, 3),
            "complete": True, **result}


async def measure(profile: Any) -> dict[str, Any]:
    """The profile's [benchmark] against its ready server, in a worker thread (abandoned if
    the run ends first). Never raises: a broken benchmark never takes supervision down."""
    import anyio

    spec = dict(profile.benchmark or {})
    try:
        return await anyio.to_thread.run_sync(
            run_benchmark, spec, profile.host, profile.port, profile.model,
            abandon_on_cancel=True)
    except Exception as exc:
        return {"kind": spec.get("kind", "chat"), "complete": False,
                "error": f"{type(exc).__name__}: {exc}"}


PATHS = {"chat": "/v1/chat/completions", "completion": "/v1/completions"}


def _request_body(spec: Mapping[str, Any], model: str | None, kind: str) -> str:
    prompt = spec.get("prompt", DEFAULT_PROMPT)
    body: dict[str, Any] = {
        "model": spec.get("model") or model or "default",
        "max_tokens": int(spec.get("max_tokens", 128)), "stream": True,
        "stream_options": {"include_usage": True}, "temperature": 0,
    }
    if kind == "completion":
        body["prompt"] = prompt
    else:
        body["messages"] = [{"role": "user", "content": prompt}]
    if "ignore_eos" in spec:   # vLLM and SGLang extension: decode max_tokens, EOS or not
        body["ignore_eos"] = bool(spec["ignore_eos"])
    return json.dumps(body)


# uvicorn logs "Application startup complete" (the ready line) a moment before it listens.
CONNECT_GRACE_S = 10.0


def _connect(conn: http.client.HTTPConnection) -> None:
    """Connect, retrying a refused connection for a few seconds after the ready line."""
    deadline = time.monotonic() + CONNECT_GRACE_S
    while True:
        try:
            conn.connect()
            return
        except ConnectionRefusedError:
            if time.monotonic() >= deadline:
                raise
            time.sleep(0.1)


def _refusal(status: int, body: bytes, kind: str) -> str:
    """What an HTTP error answer means, in words where the server told us why."""
    text = body.decode("utf-8", "replace")
    if kind == "chat" and status == 400 and "chat template" in text.lower():
        return ("the model has no chat template, so the server refuses chat completions "
                f"(HTTP 400): benchmark a base model with kind = \"completion\" "
                f"(/v1/completions). The server said: {text[:200]}")
    return f"HTTP {status}: {text[:300]}"


def chat_benchmark(spec: Mapping[str, Any], host: str, port: int,
                   model: str | None, kind: str = "chat") -> dict[str, Any]:
    connect = "127.0.0.1" if host in ("0.0.0.0", "") else host
    body = _request_body(spec, model, kind)
    conn = http.client.HTTPConnection(connect, port, timeout=float(spec.get("timeout", 120)))
    try:
        _connect(conn)
        t0 = time.perf_counter()
        conn.request("POST", str(spec.get("path", PATHS[kind])), body,
                     {"Content-Type": "application/json"})
        resp = conn.getresponse()
        if resp.status != 200:
            raise BenchmarkError(_refusal(resp.status, resp.read(2000), kind))
        stream = _read_stream(resp)
    finally:
        conn.close()
    first, last, tokens, usage, finished = stream
    if first is None or last is None:
        raise BenchmarkError("the stream carried no token"
                             + ("" if finished else " and ended without [DONE]"))
    timing = {"ttft_ms": round((first - t0) * 1000, 1), "e2e_s": round(last - t0, 3)}
    if not finished:
        return {"complete": False, "tokens": tokens, **timing,
                "error": f"the stream ended after {tokens} token(s) in {last - t0:.3f} s "
                         "without [DONE]: the server stopped or cut the reply"}
    n = int(usage.get("completion_tokens") or tokens) if usage else tokens
    decode_s = last - first
    return {"tokens": n, "decode_s": round(decode_s, 3), **timing, **_rate(n, decode_s)}


def _rate(tokens: int, decode_s: float) -> dict[str, Any]:
    if tokens >= MIN_RATE_TOKENS and decode_s >= MIN_RATE_SECONDS:
        return {"tokens_per_s": round((tokens - 1) / decode_s, 2)}
    return {"tokens_per_s": None,
            "note": f"no rate from {tokens} token(s) over {decode_s:.3f} s: a rate needs at "
                    f"least {MIN_RATE_TOKENS} tokens over {MIN_RATE_SECONDS} s (raise "
                    "max_tokens)"}


def _read_stream(resp: http.client.HTTPResponse) -> tuple[float | None, float | None, int,
                                                          dict[str, Any], bool]:
    """First and last token times, tokens, usage, and whether the stream reached [DONE]."""
    first = last = None
    tokens = 0
    usage: dict[str, Any] = {}
    for raw in resp:
        line = raw.decode("utf-8", "replace").strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            return first, last, tokens, usage, True
        try:
            chunk = json.loads(data)
        except ValueError:
            continue
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            # chat streams carry delta.content, text completions carry text
            if (choice.get("delta") or {}).get("content") or choice.get("text"):
                now = time.perf_counter()
                first = first if first is not None else now
                last = now
                tokens += 1
    return first, last, tokens, usage, False


def command_benchmark(spec: Mapping[str, Any], host: str, port: int) -> dict[str, Any]:
    argv = spec.get("command")
    if not isinstance(argv, (list, tuple)) or not argv:
        raise BenchmarkError("command benchmark needs command = [...]")
    env = dict(os.environ, BENCH_HOST=host, BENCH_PORT=str(port),
               BENCH_URL=f"http://{host}:{port}")
    res = subprocess.run([str(a) for a in argv], capture_output=True, text=True, env=env,
                         timeout=float(spec.get("timeout", 600)))
    out = res.stdout + res.stderr
    if res.returncode != 0:
        raise BenchmarkError(f"exit {res.returncode}: {out.strip()[-300:]}")
    pattern = spec.get("regex")
    if not pattern:
        return {"output": out[-2000:]}
    match = re.search(str(pattern), out)
    if match is None:
        raise BenchmarkError(f"regex {pattern!r} found nothing in the output")
    return {k: _number(v) for k, v in match.groupdict().items()}


def _number(text: str | None) -> Any:
    try:
        return float(text) if text is not None else None
    except ValueError:
        return text


def complete(bench: Any) -> bool:
    """A result that ran to its end (older records say so by carrying no error)."""
    return isinstance(bench, Mapping) and not bench.get("error") and \
        bench.get("complete") is not False


def rate_of(bench: Any) -> float | None:
    """The tokens/s a result may stand for; None for an incomplete or too short one.

    Older records carry no ``complete`` or ``decode_s``: their token count and rate still say
    whether the rate came from enough tokens over enough time.
    """
    if not complete(bench):
        return None
    tps = bench.get("tokens_per_s")
    if isinstance(tps, bool) or not isinstance(tps, (int, float)) or not math.isfinite(tps) \
            or tps <= 0:
        return None
    tokens = bench.get("tokens")
    if bench.get("kind", "chat") in ("chat", "completion") and isinstance(tokens, (int, float)):
        decode_s = bench.get("decode_s", (tokens - 1) / tps)
        if tokens < MIN_RATE_TOKENS or decode_s < MIN_RATE_SECONDS:
            return None
    return float(tps)


def checked(bench: Any) -> Any:
    """A stored result as it may be shown: a rate it cannot stand for is taken out."""
    if not isinstance(bench, Mapping) or bench.get("tokens_per_s") is None \
            or rate_of(bench) is not None:
        return bench
    out = {k: v for k, v in bench.items() if k != "tokens_per_s"}
    if complete(bench):
        out["note"] = (f"no rate: a rate needs at least {MIN_RATE_TOKENS} tokens over "
                       f"{MIN_RATE_SECONDS} s of decoding")
    return out


def compare(rows: list[dict[str, Any]], root_of: Any) -> list[dict[str, Any]]:
    """Latest complete benchmark per (profile, changes), side by side with its root profile's."""
    latest: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}
    for r in rows:
        if complete(r.get("benchmark")):
            latest[(r["profile"], tuple(r.get("changes") or ()))] = r
    out = []
    for (profile, changes), r in latest.items():
        b = r["benchmark"]
        base = latest.get((root_of(profile), ()))
        tps = rate_of(b)
        base_tps = rate_of(base["benchmark"]) if base else None
        out.append({"profile": profile, "changes": list(changes), "run_id": r["id"],
                    "tokens_per_s": tps, "ttft_ms": b.get("ttft_ms"),
                    "baseline": root_of(profile), "baseline_tokens_per_s": base_tps,
                    "vs_baseline": round(tps / base_tps, 3) if tps and base_tps else None})
    return out
