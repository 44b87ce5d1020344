"""Line formats (SGLang logging, uvicorn, tqdm) and unbuffered writes.

Everything is written with ``os.write`` in one call per block, so lines from several threads or
processes sharing a pipe do not interleave inside a line, and nothing sits in a buffer when the
process dies by SIGKILL.
"""

from __future__ import annotations

import os
import time

STDOUT = 1
STDERR = 2


def ts() -> str:
    """SGLang's ``datefmt="%Y-%m-%d %H:%M:%S"``."""
    return time.strftime("%Y-%m-%d %H:%M:%S")


def rank_prefix(tp_rank: int, tp_size: int, dp_rank: int | None = None) -> str:
    """`` DP{d} TP{t}`` as in run_scheduler_process; TP only when tp_size > 1."""
    prefix = ""
    if dp_rank is not None:
        prefix += f" DP{dp_rank}"
    if tp_size > 1:
        prefix += f" TP{tp_rank}"
    return prefix


def scheduler_title(prefix: str) -> str:
    """``sglang::scheduler`` + prefix with spaces as underscores (``sglang::scheduler_TP0``)."""
    return "sglang::scheduler" + prefix.replace(" ", "_")


def line(msg: str, prefix: str = "") -> str:
    return f"[{ts()}{prefix}] {msg}"


def uvicorn(msg: str, level: str = "INFO") -> str:
    """uvicorn's ``levelprefix`` padding inside SGLang's date format: ``INFO:     msg``."""
    return f"[{ts()}] {level}:" + " " * (8 - len(level)) + f" {msg}"


def write(text: str | bytes, fd: int = STDERR) -> None:
    """Write everything, ignoring a closed reader (the supervisor's problem, not ours)."""
    data = text.encode() if isinstance(text, str) else text
    try:
        while data:
            n = os.write(fd, data)
            data = data[n:]
    except OSError:
        pass


def emit(*lines: str, fd: int = STDERR) -> None:
    """Write complete lines (each gets a trailing newline) in one write."""
    if lines:
        write("".join(s + "\n" for s in lines), fd)


# --- tqdm -----------------------------------------------------------------------------------

_BLOCKS = " ▏▎▍▌▋▊▉█"


def _interval(t: float) -> str:
    mins, s = divmod(int(t), 60)
    h, m = divmod(mins, 60)
    return f"{h:d}:{m:02d}:{s:02d}" if h else f"{m:02d}:{s:02d}"


def _rate(n: int, elapsed: float) -> str:
    """tqdm's rate_fmt: ``?it/s``, `` 1.74it/s`` or ``85.53s/it``."""
    if n <= 0 or elapsed <= 0:
        return "?it/s"
    rate = n / elapsed
    return f"{rate:5.2f}it/s" if rate >= 1 else f"{1 / rate:5.2f}s/it"


def _times(n: int, total: int, elapsed: float) -> str:
    rate_fmt = _rate(n, elapsed)
    if n <= 0 or elapsed <= 0:
        remaining = "?"
    else:
        remaining = _interval((total - n) * elapsed / n)
    return f"[{_interval(elapsed)}<{remaining}, {rate_fmt}]"


def weight_bar(n: int, total: int, elapsed: float,
               desc: str = "Loading safetensors checkpoint shards") -> str:
    """SGLang's _BAR_FORMAT: ``{desc}: {percentage:3.0f}% Completed | {n}/{total} [...]``."""
    pct = 100.0 * n / total if total else 100.0
    return f"{desc}: {pct:3.0f}% Completed | {n}/{total} {_times(n, total, elapsed)}"


def tqdm_bar(desc: str, n: int, total: int, elapsed: float, width: int = 10) -> str:
    """Plain tqdm: ``{desc}: {pct:3.0f}%|{bar}| {n}/{total} [elapsed<remaining, rate]``."""
    frac = n / total if total else 1.0
    full, rem = divmod(int(frac * width * 8), 8)
    bar = "█" * full
    if full < width:
        bar += (_BLOCKS[rem] if rem else " ") + " " * (width - full - 1)
    return f"{desc}: {frac * 100:3.0f}%|{bar}| {n}/{total} {_times(n, total, elapsed)}"
