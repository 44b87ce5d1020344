"""What counting answers costs the log pipeline: ``ServingStats.feed_chunk`` on serving logs,
with the answers counter and without it, against a bare pass over the same bytes, in one run.

    python bench/serving_answers.py [--mb 64] [--reps 5]

Three streams of 64 KiB reads, as the daemon's pipe reader hands them to a ready run:
- ``access``: every line an access line (a server answering small requests as fast as it can;
  one in 20 refused, one in 50 the daemon's own health probe) - the counter's worst case;
- ``mixed``: a vLLM-style log, one stats line per 40 access lines and SGLang-style batch lines
  in between (what a loaded server prints);
- ``batch``: batch lines only, no access line (an engine with its access log off): the counter's
  ``b'HTTP/1.' in chunk`` test alone.
"No counter" is the same class with ``_count_answers`` replaced by a no-op; "bare" is
``chunk.count(b"\\n")``, one pass over the bytes, the floor any reader pays. The figures are
ns per line (median of --reps), and the counter's cost as a share of the pipeline's own
~130-160 ns a line (README: 6.4-7.5 M lines/s).
"""
from __future__ import annotations

import argparse
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from bench.common import median  # noqa: E402
from supervisor.engines.serving_stats import ServingStats  # noqa: E402

READ = 64 * 1024
ACCESS_OK = b'INFO:     127.0.0.1:51234 - "POST /v1/completions HTTP/1.1" 200 OK\n'
ACCESS_BAD = b'INFO:     127.0.0.1:51236 - "POST /v1/completions HTTP/1.1" 400 Bad Request\n'
PROBE = b'INFO:     127.0.0.1:51240 - "GET /health HTTP/1.1" 200 OK\n'
VLLM_STATS = (b"INFO 12-07 20:10:11 [loggers.py:123] Engine 000: Avg prompt throughput: 812.4 "
              b"tokens/s, Avg generation throughput: 301.2 tokens/s, Running: 12 reqs, Waiting: "
              b"0 reqs, GPU KV cache usage: 31.2%, Prefix cache hit rate: 12.0%\n")
SGLANG_BATCH = (b"[2026-12-07 20:10:11] Decode batch. #running-req: 12, #token: 5120, token "
                b"usage: 0.31, cuda graph: True, gen throughput (token/s): 301.20, #queue-req: 0\n")


def _stream(kind: str, total: int) -> list[bytes]:
    """``total`` bytes of log lines of one kind, cut into reads of READ bytes (lines split
    across reads, as a pipe splits them)."""
    if kind == "access":
        unit = [ACCESS_OK] * 18 + [ACCESS_BAD] + [PROBE if i % 2 else ACCESS_OK for i in range(2)]
    elif kind == "mixed":
        unit = [ACCESS_OK] * 38 + [ACCESS_BAD, VLLM_STATS] + [SGLANG_BATCH] * 4
    else:
        unit = [SGLANG_BATCH] * 20
    block = b"".join(unit)
    data = block * (total // len(block) + 1)
    return [data[i:i + READ] for i in range(0, total, READ)]


class NoCounter(ServingStats):
    def _count_answers(self, chunk: bytes) -> None:
        return None


def _feed(stats: ServingStats, reads: list[bytes]) -> float:
    t = time.perf_counter()
    for chunk in reads:
        stats.feed_chunk(chunk)
    return time.perf_counter() - t


def _bare(reads: list[bytes]) -> float:
    t = time.perf_counter()
    for chunk in reads:
        chunk.count(b"\n")
    return time.perf_counter() - t


def main() -> None:
    ap = argparse.ArgumentParser()
    ap.add_argument("--mb", type=int, default=64)
    ap.add_argument("--reps", type=int, default=5)
    args = ap.parse_args()
    print(f"{'stream':8} {'ns/line':>9} {'no counter':>11} {'bare pass':>10} "
          f"{'counter':>8}  answers counted")
    for kind in ("access", "mixed", "batch"):
        reads = _stream(kind, args.mb * 1024 * 1024)
        lines = sum(c.count(b"\n") for c in reads)
        times: dict[str, list[float]] = {"with": [], "without": [], "bare": []}
        answers = {}
        for _ in range(args.reps):  # interleaved: a busy neighbour slows all three alike
            s = ServingStats("vllm", probe_path="/health")
            times["with"].append(_feed(s, reads))
            answers = s.answers
            times["without"].append(_feed(NoCounter("vllm", probe_path="/health"), reads))
            times["bare"].append(_bare(reads))
        ns = {k: median(v) / lines * 1e9 for k, v in times.items()}
        extra = ns["with"] - ns["without"]
        print(f"{kind:8} {ns['with']:9.2f} {ns['without']:11.2f} {ns['bare']:10.2f} "
              f"{extra:+8.2f}  {answers}")


if __name__ == "__main__":
    main()
