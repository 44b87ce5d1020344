"""A log flooder that looks like SGLang: decode/prefill/access lines mixed with \\r progress bars.

Full speed (BENCH_LINES=N): writes N lines (a \\r-separated bar update counts as a line, as the
daemon splits on both) as fast as the pipe takes them, timing every write(2) to see how long
it was blocked, then writes a JSON report to BENCH_RESULT.
Paced (BENCH_RATE=R): R lines/s in 10 ms slices until killed; each decode line carries its
wall-clock time (`t=`) and a sequence number so a reader can tell how fresh its view is.
Stdlib only; run with -I -S.
"""
import json
import os
import time

# BENCH_ASCII=1: bars drawn with "#" (tqdm --ascii); the whole output is then ASCII.
BAR = "#" if os.environ.get("BENCH_ASCII") else "\u2588"


def template(n: int) -> list[str]:
    """n segments, each ending in \\n or \\r, about 130 bytes on average."""
    out: list[str] = []
    i = 0
    while len(out) < n:
        i += 1
        ts = f"[2025-06-01 12:{(i // 60) % 60:02d}:{i % 60:02d} TP0]"
        k = i % 20
        if k < 14:
            out.append(f"{ts} Decode batch. #running-req: {i % 64}, "
                       f"#token: {1000 + i * 37 % 90000}, token usage: 0.{i % 97:02d}, "
                       f"cuda graph: True, gen throughput (token/s):"
                       f" {1000 + i % 3000}.{i % 100:02d}, #queue-req: {i % 3}\n")
        elif k < 16:
            out.append(f"{ts} Prefill batch. #new-seq: 1, #new-token: {i % 4096}, #cached-token:"
                       f" {i % 512}, token usage: 0.{i % 97:02d}, #running-req: {i % 64},"
                       f" #queue-req: 0\n")
        elif k < 18:
            out.append(f"[2025-06-01 12:00:00] INFO:     127.0.0.1:{40000 + i % 20000} - "
                       f"\"POST /v1/chat/completions HTTP/1.1\" 200 OK\n")
        else:
            # a tqdm bar redrawn with \r, 8 updates then \n
            for step in range(8):
                pct = (i * 3 + step * 12) % 101
                fill = pct // 10
                end = "\n" if step == 7 else "\r"
                out.append(f"Capturing batches (bs={512 - (i % 32) * 16} avail_mem=12.{i % 90:02d}"
                           f" GB): {pct:3d}%|{BAR * fill}{' ' * (10 - fill)}| {pct // 2}/51 "
                           f"[00:0{step}<00:03,  9.{step}1it/s]{end}")
    return out[:n]


def write_all(fd: int, data: bytes, stats: list[float]) -> None:
    view = memoryview(data)
    while view:
        t = time.perf_counter()
        n = os.write(fd, view)
        dt = time.perf_counter() - t
        stats[0] += dt
        if dt > stats[1]:
            stats[1] = dt
        view = view[n:]


def full_speed(n_lines: int, result: str) -> None:
    block_lines = template(2000)
    block = "".join(block_lines).encode()
    slices = [block[i:i + 65536] for i in range(0, len(block), 65536)]
    reps, rest = divmod(n_lines, len(block_lines))
    tail = "".join(block_lines[:rest]).encode()
    stats = [0.0, 0.0]
    nbytes = 0
    t0 = time.time()
    p0 = time.perf_counter()
    for _ in range(reps):
        for s in slices:
            write_all(1, s, stats)
        nbytes += len(block)
    if tail:
        write_all(1, tail, stats)
        nbytes += len(tail)
    wall = time.perf_counter() - p0
    with open(result + ".tmp", "w") as f:
        json.dump({"lines": n_lines, "bytes": nbytes, "t_start": t0, "t_end": t0 + wall,
                   "wall_s": wall, "blocked_s": stats[0], "max_write_s": stats[1]}, f)
    os.replace(result + ".tmp", result)


def paced(rate: float) -> None:
    per_tick = max(1, int(rate / 100))
    seq = 0
    next_t = time.monotonic()
    bars = template(2000)
    while True:
        parts = []
        now = time.time()
        for _ in range(per_tick):
            seq += 1
            if seq % 10 == 0:
                parts.append(bars[seq % 2000])
            else:
                parts.append(f"[2025-06-01 12:00:00 TP0] t={now:.3f} seq={seq} Decode batch. "
                             f"#running-req: {seq % 64}, #token: {seq % 90000}, token usage: "
                             f"0.05, cuda graph: True, gen throughput (token/s): 2345.67, "
                             f"#queue-req: 0\n")
        os.write(1, "".join(parts).encode())
        next_t += 0.01
        delay = next_t - time.monotonic()
        if delay > 0:
            time.sleep(delay)
        else:
            next_t = time.monotonic()


if __name__ == "__main__":
    if os.environ.get("BENCH_RATE"):
        paced(float(os.environ["BENCH_RATE"]))
    else:
        full_speed(int(os.environ.get("BENCH_LINES", "1000000")), os.environ["BENCH_RESULT"])
