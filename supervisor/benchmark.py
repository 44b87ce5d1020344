"""Measuring a config once it is ready: the profile's optional [benchmark] step.

kind = "chat"    a streaming chat completion: time to first token and decode tokens/s
                 (keys: prompt, max_tokens, path = "/v1/chat/completions", model, timeout)
kind = "completion"  the same over a streaming text completion, for base models that have no
                 chat template (keys: as chat, path = "/v1/completions", ignore_eos)
kind = "command" any command; numbers are parsed from its output with `regex` (named groups)
                 (keys: command = [...], regex, timeout); BENCH_HOST/BENCH_PORT/BENCH_URL set

Any kind takes ``repeat = N`` (1 by default): the benchmark runs N times; tokens_per_s and
ttft_ms are then the means, ``spread`` their n/mean/stdev/min/max, ``samples`` each repetition,
and ``gpu`` the SM clocks, throttle reasons and temperature the GPU monitor saw meanwhile.

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
import statistics
import subprocess
import time
from collections.abc import Callable, Mapping
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


async def measure(profile: Any, sample_gpus: GpuSampler | None = None) -> dict[str, Any]:
    """The profile's [benchmark] against its ready server, ``repeat`` times, each in a worker
    thread (abandoned if the run ends first), with the GPUs sampled throughout (their clocks,
    throttle reasons and temperature say under which conditions the numbers were taken).
    Never raises: a broken benchmark never takes supervision down."""
    import anyio

    spec = dict(profile.benchmark or {})
    repeat = int(spec.get("repeat", 1))
    watch = GpuWatch(sample_gpus)
    results: list[dict[str, Any]] = []
    try:
        async with anyio.create_task_group() as tg:
            tg.start_soon(watch.run)
            for _ in range(repeat):
                result = await anyio.to_thread.run_sync(
                    run_benchmark, spec, profile.host, profile.port, profile.model,
                    abandon_on_cancel=True)
                results.append(result)
                if not complete(result):
                    break
            tg.cancel_scope.cancel()
    except Exception as exc:
        results.append({"kind": spec.get("kind", "chat"), "complete": False,
                        "error": f"{type(exc).__name__}: {exc}"})
    return summarize(results, repeat, watch.summary())


def summarize(results: list[dict[str, Any]], repeat: int, gpu: dict[str, Any]
              ) -> dict[str, Any]:
    """One result from ``repeat`` repetitions: the mean as tokens_per_s / ttft_ms (what the
    history and the brief compare), the spread of each, every sample, and the GPU conditions.
    A repetition that did not complete makes the whole incomplete (and ends the series)."""
    last = results[-1]
    out = {**last, "started": results[0].get("started"),
           "duration_s": round(sum(r.get("duration_s") or 0 for r in results), 3),
           "repeat": repeat, "gpu": gpu,
           "samples": [{k: r.get(k) for k in SAMPLE_KEYS} for r in results]}
    if not complete(last):
        if repeat > 1:
            out["error"] = f"repetition {len(results)} of {repeat}: {last.get('error')}"
        out.pop("tokens_per_s", None)
        return out
    rates = [x for x in (rate_of(r) for r in results) if x is not None]
    ttfts = [float(r["ttft_ms"]) for r in results if _finite(r.get("ttft_ms"))]
    out["spread"] = {"tokens_per_s": spread(rates), "ttft_ms": spread(ttfts)}
    if rates:
        out["tokens_per_s"] = round(statistics.fmean(rates), 2)
        # the shortest repetition still carried a rate: what rate_of checks the mean against
        out["tokens"] = min(int(r.get("tokens") or 0) for r in results if rate_of(r))
        out["decode_s"] = min(float(r.get("decode_s") or 0) for r in results if rate_of(r))
        out.pop("note", None)
    if ttfts:
        out["ttft_ms"] = round(statistics.fmean(ttfts), 1)
    return out


SAMPLE_KEYS = ("tokens_per_s", "ttft_ms", "tokens", "duration_s", "error")
SERVING_SLACK_S = 1.5  # a sample is taken on the watch tick after the line that carries it


def with_serving(result: dict[str, Any], serving: Any) -> dict[str, Any]:
    """Add ``serving``: what the engine itself reported while the benchmark ran (mean and max
    of each serving metric, e.g. accept length next to tok/s), from the run's serving stats
    (``engines.serving_stats.ServingStats.observed``); None when it reported nothing then."""
    started, took = result.get("started"), result.get("duration_s")
    if serving is None or not _finite(started):
        return result
    end = float(started) + (float(took) if _finite(took) else 0.0) + SERVING_SLACK_S
    result["serving"] = serving.observed(float(started), end)
    return result


def spread(values: list[float]) -> dict[str, Any] | None:
    """n, mean, standard deviation (None for one value), min and max; None for no value."""
    if not values:
        return None
    return {"n": len(values), "mean": round(statistics.fmean(values), 2),
            "stdev": round(statistics.stdev(values), 2) if len(values) > 1 else None,
            "min": round(min(values), 2), "max": round(max(values), 2)}


def noise(a: Any, b: Any, key: str = "tokens_per_s") -> dict[str, Any]:
    """Whether two results' difference in ``key`` is beyond their noise: ``within_noise`` is
    True when their [min, max] ranges overlap or the difference is at most twice the larger
    standard deviation; None when either was measured once (no spread to judge by)."""
    sa, sb = _spread_of(a, key), _spread_of(b, key)
    if sa is None or sb is None:
        return {"within_noise": None, "noise": "one sample: no spread measured, so a small "
                                               "difference is not evidence"}
    diff = abs(sa["mean"] - sb["mean"])
    overlap = sa["min"] <= sb["max"] and sb["min"] <= sa["max"]
    sd = 2 * max(sa["stdev"] or 0.0, sb["stdev"] or 0.0)
    if overlap or diff <= sd:
        why = ("their ranges overlap" if overlap else f"{diff:.2f} is within 2 x stdev {sd:.2f}")
        return {"within_noise": True, "noise": f"within the noise ({why})"}
    return {"within_noise": False, "noise": f"beyond the noise (difference {diff:.2f}, ranges "
                                            f"{sa['min']:g}-{sa['max']:g} and "
                                            f"{sb['min']:g}-{sb['max']:g} apart)"}


def _spread_of(bench: Any, key: str) -> Mapping[str, Any] | None:
    if not isinstance(bench, Mapping):
        return None
    s = (bench.get("spread") or {}).get(key)
    return s if isinstance(s, Mapping) and (s.get("n") or 0) >= 2 else None


def _finite(x: Any) -> bool:
    return isinstance(x, (int, float)) and not isinstance(x, bool) and math.isfinite(x)


GpuSampler = Callable[[], list[dict[str, Any]]]
GPU_SAMPLE_S = 0.5   # the monitor's gauges refresh every second: this sees each of them
IDLE_REASON = "gpu_idle"   # NVML's "nothing to do": not a throttle of the work measured


class GpuWatch:
    """The GPU monitor's snapshots, taken while the benchmark runs, summed up."""

    def __init__(self, sampler: GpuSampler | None) -> None:
        self.sampler = sampler
        self.rows: dict[tuple[Any, Any], dict[str, Any]] = {}   # (gpu, timestamp) -> sample

    async def run(self) -> None:
        import anyio

        while self.sampler is not None:
            self.take()
            await anyio.sleep(GPU_SAMPLE_S)

    def take(self) -> None:
        try:
            snap = self.sampler() if self.sampler is not None else []
        except Exception:   # telemetry is a nice-to-have here, never a reason to fail
            return
        for g in snap:
            if not g.get("lost"):
                self.rows[(g.get("index"), g.get("timestamp"))] = g

    def summary(self) -> dict[str, Any]:
        self.take()
        rows = list(self.rows.values())
        if not rows:
            return {"gpus": 0, "samples": 0, "note": "no GPU telemetry during the benchmark"}
        clocks = [float(r["sm_clock_mhz"]) for r in rows if _finite(r.get("sm_clock_mhz"))]
        temps = [float(r["temperature_c"]) for r in rows if _finite(r.get("temperature_c"))]
        reasons = sorted({x for r in rows for x in (r.get("throttle_reasons") or ())
                          if x != IDLE_REASON})
        return {"gpus": len({r.get("index") for r in rows}), "samples": len(rows),
                "sm_clock_mhz": spread(clocks), "temperature_c": spread(temps),
                "throttle_reasons": reasons}


CLOCK_TOLERANCE = 0.10   # SM clocks this far apart (relative) are different conditions


def conditions_differ(a: Any, b: Any) -> str | None:
    """Why two benchmarks ran under different GPU conditions (throttle reasons, SM clocks),
    or None when they did not or one has no telemetry."""
    ga = a.get("gpu") if isinstance(a, Mapping) else None
    gb = b.get("gpu") if isinstance(b, Mapping) else None
    if not ga or not gb or not ga.get("samples") or not gb.get("samples"):
        return None
    ra, rb = ga.get("throttle_reasons") or [], gb.get("throttle_reasons") or []
    if ra != rb:
        return (f"throttle reasons differ ({', '.join(ra) or 'none'} then "
                f"{', '.join(rb) or 'none'})")
    ca, cb = (ga.get("sm_clock_mhz") or {}).get("max"), (gb.get("sm_clock_mhz") or {}).get("max")
    if ca and cb and abs(ca - cb) > CLOCK_TOLERANCE * max(ca, cb):
        return f"SM clocks differ (up to {ca:g} MHz then {cb:g} MHz)"
    return None


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
        row = {"profile": profile, "changes": list(changes), "run_id": r["id"],
               "tokens_per_s": tps, "ttft_ms": b.get("ttft_ms"),
               "spread": (b.get("spread") or {}).get("tokens_per_s"),
               "baseline": root_of(profile), "baseline_tokens_per_s": base_tps,
               "vs_baseline": round(tps / base_tps, 3) if tps and base_tps else None}
        if base is not None and row["vs_baseline"] is not None \
                and (profile, changes) != (root_of(profile), ()):
            row.update(noise(b, base["benchmark"]))
        out.append(row)
    return out
