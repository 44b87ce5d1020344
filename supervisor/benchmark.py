"""Measuring a config once it is ready: the profile's optional [benchmark] step.

kind = "chat"    a streaming chat completion: time to first token and decode tokens/s
                 (keys: prompt, max_tokens, path = "/v1/chat/completions", model, timeout)
kind = "command" any command; numbers are parsed from its output with `regex` (named groups)
                 (keys: command = [...], regex, timeout); BENCH_HOST/BENCH_PORT/BENCH_URL set

Results are plain dicts stored with the run; the keys tokens_per_s and ttft_ms are what the
history and the brief compare across profiles.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import subprocess
import time
from collections.abc import Mapping
from typing import Any

DEFAULT_PROMPT = "Write a short essay on the history of the transistor."


class BenchmarkError(Exception):
    pass


def run_benchmark(spec: Mapping[str, Any], host: str, port: int, model: str | None,
                  ) -> dict[str, Any]:
    """Blocking; the daemon runs it in a worker thread."""
    kind = str(spec.get("kind", "chat"))
    started = time.time()
    if kind == "chat":
        result = chat_benchmark(spec, host, port, model)
    elif kind == "command":
        result = command_benchmark(spec, host, port)
    else:
        raise BenchmarkError(f"unknown benchmark kind {kind!r} (chat | command)")
    return {"kind": kind, "started": started, "duration_s": round(time.time() - started, 3),
            **result}


def chat_benchmark(spec: Mapping[str, Any], host: str, port: int,
                   model: str | None) -> dict[str, Any]:
    connect = "127.0.0.1" if host in ("0.0.0.0", "") else host
    body = json.dumps({
        "model": spec.get("model") or model or "default",
        "messages": [{"role": "user", "content": spec.get("prompt", DEFAULT_PROMPT)}],
        "max_tokens": int(spec.get("max_tokens", 128)), "stream": True,
        "stream_options": {"include_usage": True}, "temperature": 0,
    })
    conn = http.client.HTTPConnection(connect, port, timeout=float(spec.get("timeout", 120)))
    try:
        t0 = time.perf_counter()
        conn.request("POST", str(spec.get("path", "/v1/chat/completions")), body,
                     {"Content-Type": "application/json"})
        resp = conn.getresponse()
        if resp.status != 200:
            raise BenchmarkError(f"HTTP {resp.status}: {resp.read(300)!r}")
        first, last, tokens, usage = _read_stream(resp)
    finally:
        conn.close()
    if first is None or last is None:
        raise BenchmarkError("the stream carried no token")
    decode_s = last - first
    n = int(usage.get("completion_tokens") or tokens) if usage else tokens
    return {"tokens": n, "ttft_ms": round((first - t0) * 1000, 1),
            "tokens_per_s": round((n - 1) / decode_s, 2) if decode_s > 0 and n > 1 else None,
            "e2e_s": round(last - t0, 3)}


def _read_stream(resp: http.client.HTTPResponse) -> tuple[float | None, float | None, int,
                                                          dict[str, Any]]:
    first = last = None
    tokens = 0
    usage: dict[str, Any] = {}
    for raw in resp:
        line = raw.decode("utf-8", "replace").strip()
        if not line.startswith("data:"):
            continue
        data = line[5:].strip()
        if data == "[DONE]":
            break
        try:
            chunk = json.loads(data)
        except ValueError:
            continue
        if chunk.get("usage"):
            usage = chunk["usage"]
        for choice in chunk.get("choices") or []:
            if (choice.get("delta") or {}).get("content"):
                now = time.perf_counter()
                first = first if first is not None else now
                last = now
                tokens += 1
    return first, last, tokens, usage


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


def compare(rows: list[dict[str, Any]], root_of: Any) -> list[dict[str, Any]]:
    """Latest benchmark per (profile, changes), side by side with its root profile's."""
    latest: dict[tuple[str, tuple[str, ...]], dict[str, Any]] = {}
    for r in rows:
        if r.get("benchmark") and not r["benchmark"].get("error"):
            latest[(r["profile"], tuple(r.get("changes") or ()))] = r
    out = []
    for (profile, changes), r in latest.items():
        b = r["benchmark"]
        base = latest.get((root_of(profile), ()))
        tps = b.get("tokens_per_s")
        base_tps = base["benchmark"].get("tokens_per_s") if base else None
        out.append({"profile": profile, "changes": list(changes), "run_id": r["id"],
                    "tokens_per_s": tps, "ttft_ms": b.get("ttft_ms"),
                    "baseline": root_of(profile), "baseline_tokens_per_s": base_tps,
                    "vs_baseline": round(tps / base_tps, 3) if tps and base_tps else None})
    return out
