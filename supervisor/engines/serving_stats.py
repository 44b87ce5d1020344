"""Serving metrics from the engines' own periodic log lines, kept as a bounded series per run.

SGLang prints a ``Prefill batch`` line per prefill (chunk) and a ``Decode batch`` line every
``--decode-log-interval`` decode steps (#running-req, #queue-req, token usage, gen throughput,
accept len); vLLM's API server prints ``Avg prompt throughput ... Running: N reqs, Waiting: M
reqs, ... KV cache usage: Z%, Prefix cache hit rate: W%`` every 10 s (reference/
sglang-facts.md §2, real-engines.md).

Cost: the run feeds every chunk read after ready. A serving log runs at thousands of lines a
second, nearly all of them batch lines that say the same thing, so a chunk is never split and
not even every chunk is looked at: at most one every ``SCAN_GAP`` seconds is (``rfind`` from
the end finds the newest line of each kind at once, and only that line is parsed), and the
newest chunk that came in between is looked at on the next tick. What stall detection needs is
whether tokens moved in the last seconds, and the metrics want the newest values: neither needs
every line. A full scan of a 64 KiB read costs ~0.2 us a line, more than the whole pipeline.

Progress means tokens moved: a batch line (SGLang logs one only after a prefill chunk or 40
decode steps) or a vLLM stats line with a throughput above zero. Access lines are not: uvicorn
logs a streamed request when its response starts, before any token. The engines' hang warnings
are kept apart as *signs*: output, but not life.
"""

from __future__ import annotations

import re
import time
from collections import deque
from collections.abc import Callable, Iterator
from typing import Any

from .base import CANARY_QUERY, PROBE_PATHS

# The values a sample carries, in this order (series rows are tuples: (t, *values)).
FIELDS = ("gen_throughput", "prompt_throughput", "running", "queued", "token_usage",
          "tokens", "cache_hit_rate", "accept_len", "accept_rate", "retracted", "gpu_util",
          "gpu_power_frac")
SERIES_LEN = 3600        # one sample a second at most: an hour
ROW_EVERY_S = 1.0        # the series' resolution: the watch loop ticks faster than this
SCAN_GAP = 0.2           # seconds between two chunks looked at
_SIGNS_KEPT = 3

# Answers, from uvicorn's access lines (`"POST /v1/completions HTTP/1.1" 400 Bad Request`):
# counted in every chunk, not only the ones scanned, with two regex passes (no line split): one
# keeps each access line's status digit, one finds the polls' lines to take off (cost in
# bench/serving_answers.py and docs/performance.md). A server that refuses every request (a bad
# default in the model's generation config) logs no batch line at all; these counts are then
# the only sign.
_VERSIONS = (b'HTTP/1.1" ', b'HTTP/1.0" ')
_ANSWER = rb'HTTP/1\.[01]" ([245])'
_ANSWER_RE = re.compile(_ANSWER)
ANSWER_CLASSES = ("2xx", "4xx", "5xx")
# The daemon's own vLLM canary (a real completion, engines.base.CANARY_QUERY): looked for only
# in a read that holds its query, so client floods pay one memchr-speed `in` for it.
_CANARY = CANARY_QUERY.encode()
_CANARY_RE = re.compile(rb'POST [^ "?]*\?(?:[^ "]*&)?' + re.escape(_CANARY) + rb'(?:&[^ "]*)? '
                        + _ANSWER)

# --- SGLang ---------------------------------------------------------------------------------
_SG_KV = re.compile(r"(#running-req|#queue-req|#token|#new-seq|#new-token|#cached-token"
                    r"|#retracted-req|token usage|accept len|accept rate|cache hit rate"
                    r"|gen throughput \(token/s\)|input throughput \(token/s\)): ([\d.]+)")
# "Health check failed" is not one: it is SGLang's /health failing, which the health probe sees.
_SG_SIGNS = (b"atchdog timeout",)


def _sglang_line(line: str) -> dict[str, float]:
    kv: dict[str, float] = {}
    for m in _SG_KV.finditer(line):
        try:
            kv.setdefault(m[1], float(m[2]))  # hybrid models: "full token usage" comes first
        except ValueError:
            continue
    out: dict[str, float] = {}
    for key, name in (("#running-req", "running"), ("#queue-req", "queued"),
                      ("token usage", "token_usage"), ("#token", "tokens"),
                      ("accept len", "accept_len"), ("accept rate", "accept_rate"),
                      ("#retracted-req", "retracted"),
                      ("gen throughput (token/s)", "gen_throughput"),
                      ("input throughput (token/s)", "prompt_throughput")):
        if key in kv:
            out[name] = kv[key]
    if "cache hit rate" in kv:
        out["cache_hit_rate"] = kv["cache hit rate"] / 100
    elif "#cached-token" in kv and "#new-token" in kv:
        total = kv["#cached-token"] + kv["#new-token"]
        if total > 0:
            out["cache_hit_rate"] = kv["#cached-token"] / total
    if "#new-seq" in kv and "running" in out:
        # A prefill line counts the running requests before the new ones join them.
        out["running"] += kv["#new-seq"]
    return out


# --- vLLM -----------------------------------------------------------------------------------
_VL_FIELDS = (
    ("prompt_throughput", re.compile(r"Avg prompt throughput: ([\d.]+)"), 1.0),
    ("gen_throughput", re.compile(r"Avg generation throughput: ([\d.]+)"), 1.0),
    ("running", re.compile(r"Running: (\d+) reqs"), 1.0),
    ("queued", re.compile(r"(?:Waiting|Pending): (\d+) reqs"), 1.0),
    ("token_usage", re.compile(r"KV cache usage: ([\d.]+)%"), 0.01),
    ("cache_hit_rate", re.compile(r"Prefix cache hit rate: ([\d.]+)%"), 0.01),
    ("retracted", re.compile(r"Preemptions: (\d+)"), 1.0),
)
_VL_SPEC = (
    ("accept_len", re.compile(r"Mean acceptance length: ([\d.]+)"), 1.0),
    ("accept_rate", re.compile(r"Avg Draft acceptance rate: ([\d.]+)%"), 0.01),
)
_VL_SIGNS = (b"shared memory broadcast block",)


def _fields(line: str, table: tuple[tuple[str, re.Pattern[str], float], ...]
            ) -> dict[str, float]:
    out: dict[str, float] = {}
    for name, rx, scale in table:
        m = rx.search(line)
        if m is not None:
            try:
                out[name] = float(m[1]) * scale
            except ValueError:
                continue
    return out


def _vllm_stats(line: str) -> dict[str, float]:
    return _fields(line, _VL_FIELDS)


def _vllm_spec(line: str) -> dict[str, float]:
    return _fields(line, _VL_SPEC)


# marker -> (parser of the newest line that has it, whether any such line is progress)
_Parser = Callable[[str], dict[str, float]]
_ENGINES: dict[str, tuple[tuple[tuple[bytes, _Parser, bool], ...], tuple[bytes, ...]]] = {
    "sglang": (((b"Decode batch", _sglang_line, True),
                (b"Prefill batch", _sglang_line, True)), _SG_SIGNS),
    "vllm": (((b"Avg prompt throughput", _vllm_stats, False),
              (b"SpecDecoding metrics", _vllm_spec, False)), _VL_SIGNS),
}
# Engines whose stats line is an average over the interval since the last one (vLLM: 10 s), not
# a moment of progress: the line printed just after a hang still shows the tokens before it.
_AVERAGED = frozenset({"vllm"})


class Ring:
    """A fixed-size series: the newest ``size`` rows, oldest first; older rows drop off."""

    __slots__ = ("_rows",)

    def __init__(self, size: int = SERIES_LEN) -> None:
        self._rows: deque[tuple[float, ...]] = deque(maxlen=size)

    def append(self, row: tuple[float, ...]) -> None:
        self._rows.append(row)

    def last_time(self) -> float | None:
        return self._rows[-1][0] if self._rows else None

    def since(self, t: float | None) -> Iterator[tuple[float, ...]]:
        """Rows whose first item (the time) is >= t, oldest first."""
        if t is None:
            yield from self._rows
            return
        for row in self._rows:
            if row[0] >= t:
                yield row

    def __len__(self) -> int:
        return len(self._rows)


def _line_at(chunk: bytes, j: int) -> str:
    start = chunk.rfind(b"\n", 0, j) + 1
    end = chunk.find(b"\n", j)
    return chunk[start:end if end >= 0 else len(chunk)].decode("utf-8", "replace")


class ServingStats:
    """One run's serving metrics: the latest values, a bounded series, and progress counters.

    ``feed_chunk`` runs on the log pipeline (cheap, see the module doc); ``sample`` runs once a
    tick from the watch loop and appends a row when new values arrived since the last one.
    """

    def __init__(self, engine: str, size: int = SERIES_LEN, probe_path: str | None = None,
                 ) -> None:
        self.engine = engine
        # polls of health, metrics and model-list routes are not requests anyone sent: the
        # daemon's own health probe, its SGLang canary and /metrics scrapes, a balancer's checks
        self._polls_re, self._poll_re = _poll_patterns(probe_path)
        self.answers = dict.fromkeys(ANSWER_CLASSES, 0)
        self.last_refused: str | None = None       # the newest 4xx/5xx access line
        self._answers_news = False
        self._markers, self._signs = _ENGINES[engine]
        self.averaged = engine in _AVERAGED        # its lines' rates span the last interval
        self.values: dict[str, float] = {}
        self.series = Ring(size)
        self.updated: float | None = None          # wall time of the newest stats line
        self.last_line: str | None = None           # kind of the newest one (its marker)
        self.progress_m: float | None = None        # monotonic time of the last progress
        self.progress_wall: float | None = None
        self.signs: list[str] = []                  # hang warnings since the last progress
        self.load_known = False                     # running/queued come from a line we trust
        self.canary: dict[str, Any] | None = None   # the newest canary (watchdogs/serving)
        self.scraped: float | None = None           # wall time of the newest /metrics scrape
        self.scrape_error: str | None = None        # why the last one failed
        self._fresh = False
        self._scanned_m = -SCAN_GAP
        self._pending: bytes | None = None

    @classmethod
    def for_engine(cls, engine: str, probe_path: str | None = None) -> ServingStats | None:
        """Stats for an engine that logs them; None for one that does not (``command``)."""
        return cls(engine, probe_path=probe_path) if engine in _ENGINES else None

    # -- the log pipeline ---------------------------------------------------------------------
    def feed_chunk(self, chunk: bytes) -> None:
        if b'HTTP/1.' in chunk:
            self._count_answers(chunk)
        now = time.monotonic()
        if now - self._scanned_m < SCAN_GAP:
            self._pending = chunk  # the newest one is looked at by the next tick at the latest
            return
        self._scan(chunk, now)

    def _scan(self, chunk: bytes, now: float) -> None:
        self._scanned_m = now
        self._pending = None
        newest = []
        for marker, parse, always_progress in self._markers:
            j = chunk.rfind(marker)
            if j >= 0:
                newest.append((j, marker, parse, always_progress))
        progressed = False
        for j, marker, parse, always_progress in sorted(newest):  # the newest line last
            values = parse(_line_at(chunk, j))
            if values:
                self.values.update(values)
                self._fresh = self.load_known = True
                self.updated = time.time()
                self.last_line = marker.decode()
            progressed = progressed or always_progress or (
                values.get("gen_throughput", 0) > 0 or values.get("prompt_throughput", 0) > 0)
        if progressed:
            self.progressed()
        for sign in self._signs:
            j = chunk.rfind(sign)
            if j >= 0:
                self.signs = (self.signs + [_line_at(chunk, j)[:300]])[-_SIGNS_KEPT:]

    def _count_answers(self, chunk: bytes) -> None:
        digits = b"".join(_ANSWER_RE.findall(chunk))  # b"2224..": one byte an access line
        if not digits:
            return
        probes = b"".join(self._polls_re.findall(chunk))
        if chunk[:1] in (b"G", b"H") and (head := self._poll_re.match(chunk)):
            probes += head.group(1)
        if _CANARY in chunk:
            probes += b"".join(_CANARY_RE.findall(chunk))
        refused = -1
        for digit, key in zip(b"245", ANSWER_CLASSES):
            n = digits.count(digit) - probes.count(digit)
            if n <= 0:
                continue
            self.answers[key] += n
            self._answers_news = True
            if key != "2xx":
                for version in _VERSIONS:
                    needle = version + bytes((digit,))
                    refused = max(refused, _newest_not_probe(chunk, needle, self._is_poll))
        if refused >= 0:
            self.last_refused = _line_at(chunk, refused)[:300]

    def _is_poll(self, line: bytes) -> bool:
        return bool(self._poll_re.search(line) or (_CANARY in line and _CANARY_RE.search(line)))

    def take_answers_news(self) -> bool:
        """True once after requests were answered (the run's snapshot should say so)."""
        news, self._answers_news = self._answers_news, False
        return news

    def progressed(self) -> None:
        """Tokens moved (a batch line, a stats line with throughput, our canary's answer)."""
        self.progress_m = time.monotonic()
        self.progress_wall = time.time()
        self.signs = []

    def forget_load(self) -> None:
        """The engine answered while its last line still showed requests: they have finished
        since (SGLang logs nothing when it goes idle), so that count is stale."""
        self.load_known = False

    # -- what stall detection reads -----------------------------------------------------------
    @property
    def load(self) -> int:
        """Requests running or queued, as of the newest stats line (0 if unknown or stale)."""
        if not self.load_known:
            return 0
        return int(self.values.get("running", 0) + self.values.get("queued", 0))

    # -- the watch loop's tick ----------------------------------------------------------------
    def catch_up(self) -> None:
        """Look at the chunk the throttle held back (before judging progress)."""
        if self._pending is not None:
            self._scan(self._pending, time.monotonic())

    def merge(self, values: dict[str, float]) -> None:
        """Values from the engine's own Prometheus /metrics (``engines.engine_metrics``):
        exact where the log rounds, and there even when the log is quiet."""
        if values:
            self.values.update(values)
            self.scraped = time.time()
            self._fresh = True
            if "running" in values or "queued" in values:
                self.load_known = True  # current, unlike a log line's count

    def sample(self, now: float, gpu_util: float | None = None,
               gpu_power_frac: float | None = None) -> bool:
        """Append a row if new values came in since the last call; True if one was added.
        The GPUs' utilisation and power fraction ride along (busy at low power is a sign)."""
        self.catch_up()
        if gpu_util is not None:
            self.values["gpu_util"] = gpu_util
        if gpu_power_frac is not None:
            self.values["gpu_power_frac"] = gpu_power_frac
        if not self._fresh:
            return False
        last = self.series.last_time()
        if last is not None and now - last < ROW_EVERY_S:
            return False   # keep the news for the next row: the latest values still show it
        self._fresh = False
        self.series.append((now, *(self.values.get(k, float("nan")) for k in FIELDS)))
        return True

    def latest(self) -> dict[str, Any] | None:
        """``status.run.serving``: the newest values and the counters; None before any."""
        # (answers alone are news: an engine run with --disable-log-stats prints no stats line)
        if self.updated is None and not self.signs and self.canary is None \
                and self.scraped is None and not any(self.answers.values()):
            return None
        out: dict[str, Any] = {k: _num(self.values[k]) for k in FIELDS if k in self.values}
        source = "log+metrics" if self.scraped is not None else "log"
        out.update(engine=self.engine, source=source, updated=self.updated,
                   last_progress=self.progress_wall, last_line=self.last_line,
                   hang_signs=list(self.signs), samples=len(self.series),
                   canary=self.canary, scraped=self.scraped, scrape_error=self.scrape_error,
                   answers=dict(self.answers), last_refused=self.last_refused)
        return out

    def observed(self, t0: float, t1: float) -> dict[str, Any] | None:
        """What the engine reported between wall times t0 and t1 (a benchmark's span): the
        mean and max of each field over the samples taken then; None without any."""
        rows = [r for r in self.series.since(t0) if r[0] <= t1]
        if not rows:
            return None
        out: dict[str, Any] = {"samples": len(rows), "source": "log+metrics" if self.scraped
                               is not None else "log"}
        for i, key in enumerate(FIELDS, 1):
            vals = [r[i] for r in rows if r[i] == r[i]]
            if vals:
                out[key] = {"mean": _num(sum(vals) / len(vals)), "max": _num(max(vals))}
        return out

    def rows(self, since: float | None = None) -> list[dict[str, Any]]:
        """The series as dicts (``metrics``): time ``t`` plus the fields that had a value."""
        out = []
        for row in self.series.since(since):
            d: dict[str, Any] = {"t": row[0]}
            for k, v in zip(FIELDS, row[1:]):
                if v == v:  # not NaN: the engine reported it
                    d[k] = _num(v)
            out.append(d)
        return out


def _poll_patterns(health_path: str | None) -> tuple[re.Pattern[bytes], re.Pattern[bytes]]:
    """The access line of a poll (``engines.base.is_probe``: a GET or HEAD of a health,
    metrics or model-list route, or of the profile's own health path) with its status's first
    digit: led by the request's opening quote, for ``findall`` over a read (a literal first
    byte keeps the search fast: without it the regex tries every G and H, three times the
    cost), and without it, for a read that starts just after that quote and for one line."""
    paths = PROBE_PATHS | ({health_path.rstrip("/")} if health_path else set())
    alt = b"|".join(re.escape(p.encode()) for p in sorted(paths, key=len, reverse=True))
    bare = rb'(?:GET|HEAD) (?:' + alt + rb')/?(?:\?[^ "]*)? ' + _ANSWER
    return re.compile(b'"' + bare), re.compile(bare)


def _newest_not_probe(chunk: bytes, needle: bytes, is_poll: Callable[[bytes], bool]) -> int:
    """Where the newest access line with ``needle`` that is not a poll is; -1 if none is."""
    end = len(chunk)
    while (j := chunk.rfind(needle, 0, end)) >= 0:
        if not is_poll(_line_at(chunk, j).encode()):
            return j
        end = j
    return -1


def _num(v: float) -> float | int:
    return int(v) if v.is_integer() and abs(v) < 2**53 else round(v, 4)
