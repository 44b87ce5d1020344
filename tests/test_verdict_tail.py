"""The lines of a live tail that the classifier gets at a verdict (diagnosis/tail.py)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from supervisor.diagnosis.classifier import classify_lines, strip_comment_header
from supervisor.diagnosis.tail import verdict_lines

LOGS = sorted((Path(__file__).parent / "fixtures" / "sglang-logs").glob("*.log"))

_BAR = re.compile(r"(.*?)\s*\d{1,3}%\|[^|]*\|\s*(\d+)/(\d+)\s*\[[^\]]*\]\s*")


def bar(desc: str, done: int, total: int, tail: str = "") -> str:
    pct = done * 100 // total
    return (f"{desc}: {pct:3d}%|{'#' * (pct // 10):10s}| {done}/{total} "
            f"[00:0{done % 10}<00:03,  5.91it/s]{tail}")


def capture(bs: int, done: int, total: int = 36, tail: str = "") -> str:
    return bar(f"Capturing batches (bs={bs} avail_mem={70 - done / 10:.2f} GB)", done, total,
               tail)


DECODE = "[2025-06-01 12:00:00 TP0] Decode batch. #running-req: 3, #token: 900, gen throughput"
ACCESS = '[2025-06-01 12:00:00] INFO:     127.0.0.1:40000 - "POST /generate HTTP/1.1" 200 OK'


def test_redraws_of_one_bar_keep_the_first_and_the_latest_and_routine_lines_go():
    head = []
    for i in range(80):
        head += [capture(512 - 4 * i, i * 35 // 79), DECODE, ACCESS]
    last = [f"line {i}" for i in range(50)]
    out = verdict_lines(head + last, keep_last=50)
    # (the first two and the last routine line of each kind stay: the sign that requests were
    # served - the first may be the engine's own warmup request; the bar's redraws between
    # them collapse again)
    assert out == [capture(512, 0), DECODE, ACCESS, capture(508, 0), DECODE, ACCESS,
                   capture(504, 0), capture(512 - 4 * 79, 35), DECODE, ACCESS] + last


def test_routine_lines_stay_among_the_newest_and_in_short_tails():
    lines = [DECODE, ACCESS, "x"] * 100
    # (before the newest 50: the first two and the last of each kind, 249 and 247)
    assert verdict_lines(lines, keep_last=50) == [DECODE, ACCESS, "x", DECODE, ACCESS] + \
        ["x"] * 81 + [ACCESS, "x", DECODE] + lines[-50:]
    assert verdict_lines(lines[:200], keep_last=50) == lines[:200]
    redrawn = [capture(8, i) for i in range(30)]
    assert verdict_lines(redrawn, keep_last=50) == [redrawn[0], redrawn[-1]]  # even there


@pytest.mark.parametrize("between", [
    pytest.param(["Traceback (most recent call last):"], id="a line between"),
    pytest.param([], id="adjacent"),
])
def test_different_bars_and_interrupted_redraws_stay(between):
    a = capture(512, 3)
    other_total = capture(512, 3, total=40)
    other_desc = bar("Loading pt checkpoint shards", 3, 36)
    glued = capture(256, 4, tail="[2025-06-01 12:00:01 TP0] Scheduler hit an exception")
    head = [a, *between, other_total, *between, other_desc, *between, glued, *between,
            capture(128, 5)]
    out = verdict_lines(head + ["x"] * 300, keep_last=300)
    assert out[:len(head)] == head
    if between:  # a line that is not routine ends a run of redraws
        lines = [a, capture(510, 4), *between, capture(500, 5), capture(490, 6), capture(480, 7)]
        assert verdict_lines(lines + ["x"] * 300, keep_last=300)[:5] == lines[:4] + [lines[-1]]
    # several ranks drawing the same bar in turn: the count goes down, so no line is dropped
    ranks = [capture(512, 5), capture(512, 3), capture(512, 6), capture(512, 4)]
    assert verdict_lines(ranks + ["x"] * 300, keep_last=300)[:4] == ranks


def redraws(line: str, k: int) -> list[str]:
    """``k`` earlier states of the tqdm bar ``line`` (counting up to it), then ``line``."""
    m = _BAR.fullmatch(line)
    assert m is not None
    desc, done, total = m[1].rstrip(":").rstrip(), int(m[2]), int(m[3])
    return [bar(desc, i * done // k, total) for i in range(k)] + [line]


def log_lines(path: Path) -> list[str]:
    """A labelled log's body as the live pipeline splits it (at \n and at \r)."""
    return re.split(r"\r\n|\r|\n", strip_comment_header(path.read_text(encoding="utf-8")))


def _expandable(path: Path) -> bool:
    return any(_BAR.fullmatch(x) for x in log_lines(path))


@pytest.mark.parametrize("path", [p for p in LOGS if _expandable(p)],
                         ids=lambda p: p.name.split("-")[0])
def test_fixtures_with_many_redraws_keep_their_verdict(path: Path):
    """Each bar of a real log redrawn 500 times: the classifier, given only what verdict_lines
    keeps, reaches the same verdict with the same evidence as on the log itself."""
    lines = log_lines(path)
    expanded: list[str] = []
    for line in lines:
        expanded += redraws(line, 500) if _BAR.fullmatch(line) else [line]
    kept = verdict_lines(expanded, keep_last=50)
    assert len(kept) < len(lines) + 50
    assert classify_lines(kept) == classify_lines(expanded)
    want, got = classify_lines(lines), classify_lines(kept)
    assert (got.outcome, got.phase, got.cause) == (want.outcome, want.phase, want.cause)


KV = "INFO 06-22 02:54:36 [kv_cache_utils.py:716] GPU KV cache size: 1,000 tokens"
GRAPHS = "Capturing CUDA graphs (mixed prefill-decode, PIECEWISE)"
BEGIN = "[2025-06-01 12:00:00 DP0 TP0] Capture cuda graph begin. This can take up to several minutes."
DP1 = "[2025-06-01 12:00:00 DP1 TP0]"


@pytest.mark.parametrize(("lines", "engine"), [
    pytest.param([KV, *(bar(GRAPHS, i, 67) for i in range(26)),
                  "RuntimeError: CUDA error: an illegal memory access was encountered"],
                 "vllm", id="the bar's first line moved the phase"),
    pytest.param([KV, *(bar(GRAPHS, i, 67) for i in range(7, 26))], "vllm",
                 id="a hang in capture"),
    pytest.param([BEGIN, capture(8, 5), f"{DP1} Traceback (most recent call last):",
                  f'{DP1}   File "x.py", line 1, in f', f"{DP1} ValueError: retrying",
                  capture(8, 6), capture(8, 5)], "sglang",
                 id="ranks in turn after a survived traceback"),
    pytest.param([BEGIN, capture(512, 0), capture(512, 3), capture(512, 0)], "sglang",
                 id="one rank stuck at 0"),
])
def test_cutting_redraws_keeps_the_verdict_of_tricky_tails(lines: list[str], engine: str):
    for n in (0, 400):  # the tail as it is, and after 400 routine lines
        tail = [DECODE] * n + lines
        assert classify_lines(verdict_lines(tail, keep_last=10), engine=engine, exit_code=1) \
            == classify_lines(tail, engine=engine, exit_code=1)


def test_the_clients_traffic_after_the_engine_s_own_warmup_request_stays():
    """SGLang answers its own warmup request (`POST /generate`) before its ready line; the
    clients' requests come after it. A long tail keeps the last answered POST as well as the
    first: without it the verdict read the warmup's as the only traffic (ready, not serving)."""
    warmup = '[2026-12-05 23:53:30] INFO:     127.0.0.1:49392 - "POST /generate HTTP/1.1" 200 OK'
    ready = "[2026-12-05 23:53:30] The server is fired up and ready to roll!"
    client = ('[2026-12-05 23:53:33] INFO:     127.0.0.1:49400 - "POST /v1/completions '
              'HTTP/1.1" 200 OK')
    lines = [warmup, ready, client] + ["x"] * 300
    out = verdict_lines(lines, keep_last=50)
    assert out[:3] == [warmup, ready, client]
    lines = [warmup, ready] + [client, "x"] * 150 + ["x"] * 50
    assert client in verdict_lines(lines, keep_last=50)[2:-50]


def test_a_clients_prefill_stays_where_the_later_ones_look_like_probes():
    """SGLang's /health prefills one new token; so does a client's prompt the radix cache holds
    all but one token of. Where every later prefill looked so (fl105: the same prompt sent
    again and again), the first client's prefill is the only sign of traffic: it stays."""
    prefill = "[2026-12-07 04:05:57] Prefill batch, #new-seq: 1, #new-token: {}, #cached-token: {}, "
    warmup = prefill.format(20, 0)
    ready = "[2026-12-07 04:05:57] The server is fired up and ready to roll!"
    client = prefill.format(4, 0)
    cached = prefill.format(1, 4)
    lines = [warmup, ready, client] + [cached] * 50
    out = verdict_lines(lines, keep_last=10)
    assert out[:3] == [warmup, ready, client]
    v = classify_lines(out, engine="sglang")
    assert v.phase is classify_lines(lines, engine="sglang").phase
