"""What every engine provides: live phase tracking from the log, and version-aware flag names.

A :class:`PhaseTracker` is fed every log line of one run (the daemon's pipeline has already split
on ``\\r`` and ``\\n``). Most lines change nothing, so :meth:`PhaseTracker.feed` must be cheap:
engines prefilter each line with one compiled alternation before any detailed parsing, and the
tracker returns ``None`` unless the phase, the progress or readiness changed.

Markers are searched anywhere in a line: wrappers (docker-compose, ``docker logs -t``, Ray, vLLM
process prefixes) put text in front of the engine's own line, and tqdm glues lines onto the end
of a progress-bar fragment.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Protocol

from ..states import Phase
from .literals import holds_any, needles

Progress = dict[str, Any]


@dataclass(frozen=True)
class PhaseUpdate:
    phase: Phase              # phase after this line
    progress: Progress | None  # {"kind": "weight_shards"|"cuda_graph_bs", "done": k, "total": n}
    changed_phase: bool        # the phase advanced on this line
    ready: bool                # the engine's ready line has been seen (now or earlier)
    line: str


# --- shared line patterns -------------------------------------------------------------------

# uvicorn logging an application error for one request (`Exception in ASGI application`, then
# that request's traceback; a wrapper's adapter rejecting an argument, a handler's bug): a
# client's request reached the API app, and uvicorn answers it with a 500 and goes on serving.
# Before any marker the server was up and serving (the classifier does not read the request's
# traceback as a death either).
ASGI_REQUEST_ERROR = "Exception in ASGI application"

# uvicorn access line: `127.0.0.1:49534 - "GET /health HTTP/1.1" 200 OK`
_ACCESS_TAIL = re.compile(r' - "([A-Z]+) (\S+) HTTP/[\d.]+" (\d{3})')


# A proxy's access line in Common Log Format, logged into the engine's output by a proxy that
# runs it (llama-swap: `[llama-swap] 10.0.0.7 [2025-01-30 18:39:03] "GET /x HTTP/1.1" 200 ...`)
# or shares its log (nginx: `10.0.0.7 - - [30/Jan/2025:18:39:03 +0000] "POST /v1/... HTTP/1.1"
# 200 ...`): a request that the proxy passed to the engine.
_CLF_ACCESS = re.compile(r'(\S+)(?: \S+ \S+)? \[[^\]]*\] "([A-Z]+) (\S+) HTTP/[\d.]+" \d{3}\b')


# uvicorn colours its access line when it writes to a terminal (a launch from a shell, a
# paste from one): `"\x1b[1mPOST /v1/completions HTTP/1.1\x1b[0m" \x1b[32m200 OK\x1b[0m`.
_ANSI = re.compile(r"\x1b\[[0-9;?]*[A-Za-z]")


def parse_access(line: str) -> tuple[str, str, str] | None:
    """(client host, method, path) of a uvicorn access line, anywhere in the line, or of a
    proxy's access line in Common Log Format."""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    j = line.find(' - "')
    if j <= 0:
        if '] "' not in line:
            return None
        m = _CLF_ACCESS.search(line)
        return (m[1], m[2], m[3]) if m else None
    m = _ACCESS_TAIL.match(line, j)
    if m is None:
        return None
    head = line[:j]
    k = max(head.rfind(" "), head.rfind("\t"))
    client = head[k + 1:].rpartition(":")[0]
    if not client:
        return None
    return client, m[1], m[2]


# tqdm bar of the weight loaders (SGLang's and vLLM's BAR_FORMAT):
# `Loading safetensors checkpoint shards:  50% Completed | 7/14 [00:03<00:04,  1.74it/s]`
SHARD_BAR_RE = re.compile(r"(?:checkpoint shards|loading shards)\s*:\s*\d+% Completed \| "
                          r"(\d+)/(\d+)")
# any plain tqdm bar: `  0%|     | 0/13 [00:00<?, ?it/s]`
PLAIN_BAR_RE = re.compile(r"\d+%\|[^|]*\|\s*(\d+)/(\d+)")

LOOPBACK_PREFIXES = ("127.", "::1", "[::1]", "localhost", "0:0:0:0:0:0:0:1")


def is_loopback(client: str) -> bool:
    return client.startswith(LOOPBACK_PREFIXES)


# Routes that health checkers, load balancers and metrics scrapers poll whatever the server's
# state: a poll answered proves the HTTP server is up, not that startup is over (SGLang answers
# them during its warmup). Used by the mid-run rule (midrun.py).
PROBE_PATHS = frozenset({
    "/health", "/healthz", "/health_generate", "/ready", "/readiness", "/ping", "/metrics",
    "/v1/models", "/get_model_info", "/get_server_info", "/model_info", "/server_info",
    "/version", "/favicon.ico"})


# The daemon's own vLLM canary (watchdogs/serving.py) asks for one token with this query: its
# access line then says whose it is (uvicorn logs the query string), so the answers counted
# from the log are the clients' alone. The engines ignore a query they do not know.
CANARY_QUERY = "gns=canary"

# Of those, the health checks: SGLang answers them 503 until its warmup is over.
HEALTH_PATHS = frozenset({"/health", "/health_generate"})


def is_probe(method: str, path: str) -> bool:
    """A read of a route that pollers use (health, metrics, model list)."""
    return method in ("GET", "HEAD") and path.partition("?")[0].rstrip("/") in PROBE_PATHS


def is_launcher_call(method: str, path: str) -> bool:
    """A call that is no sign of the engine's API server nor of a request:

    - a POST to /v1/models: vLLM and SGLang only list models there; it is Xinference's
      supervisor API launching one (its uvicorn access log shares the engine's output),
      answered whether or not the engine it starts ever came up;
    - a PUT to /route: SGLang's PD bootstrap server (an aiohttp app of its own) where each
      prefill rank registers itself at startup, from the host's own address. (A decode
      instance's GET of /route looks the prefill up for its first request: traffic.)
    """
    route = path.partition("?")[0].rstrip("/")
    return (method == "POST" and route == "/v1/models") or (method == "PUT" and route == "/route")


def is_traffic(method: str, client: str, path: str = "") -> bool:
    """Whether an access line is real traffic rather than a local readiness/health probe.

    Probes (SGLang's own warmup polls, our health checks, `wait_for_server` helpers) come from
    loopback and only read. Anything that writes (POST: /generate, /v1/chat/completions, ...)
    is a request; so is any request from another host (a client or a load balancer that has put
    the server in rotation), and a local read of an API resource other than the model list
    (a client polling its job: `GET /v1/videos/<id>`, `/v1/batches/<id>`, `/v1/files/<id>`).
    Not a launcher's call (is_launcher_call).
    """
    if is_launcher_call(method, path):
        return False
    return method not in ("GET", "HEAD", "OPTIONS") or not is_loopback(client) or (
        path.startswith("/v1/") and not is_probe(method, path))


def parse_version(version: str | None) -> tuple[int, ...] | None:
    """'0.5.23' -> (0, 5, 23); 'v0.4.10.post2' -> (0, 4, 10); '0.5.0rc1' -> (0, 5, 0)."""
    m = re.match(r"\s*[vV]?(\d+(?:\.\d+)*)", version or "")
    return tuple(int(p) for p in m.group(1).split(".")) if m else None


# --- trackers -------------------------------------------------------------------------------


class PhaseTracker:
    """Follows one run's log. The base class knows no markers (the ``command`` engine).

    State: ``phase`` (starts at LAUNCH, only moves forward), ``progress``, ``ready`` (the ready
    line was seen, or the daemon called :meth:`mark_ready`), ``requests_seen`` (real requests
    after ready, counted by :meth:`feed`; :meth:`feed_chunk` stops looking once serving),
    ``started`` (the engine reported its initialisation finished; for SGLang the
    same as ready, for vLLM the engine core may report it before the API server is up) and
    ``markers_seen`` (how many phase-marker lines were recognised) and ``probe_failed`` (the
    latest access line was a local poll answered 5xx).
    """

    __slots__ = ("phase", "progress", "ready", "requests_seen", "started", "markers_seen",
                 "probe_failed")

    def __init__(self) -> None:
        self.phase: Phase = Phase.LAUNCH
        self.progress: Progress | None = None
        self.ready = False
        self.requests_seen = 0
        self.started = False
        self.markers_seen = 0
        self.probe_failed = False

    def feed(self, line: str) -> PhaseUpdate | None:
        return None

    def feed_chunk(self, chunk: bytes) -> list[PhaseUpdate]:
        """The updates of one read of the live log: ``\\n``-terminated lines, ``\\r`` already
        turned into ``\\n`` (the pipeline's chunk). Same result as :meth:`feed` per line."""
        return []

    def mark_ready(self, line: str = "") -> PhaseUpdate | None:
        """The daemon decided the run is ready (health probe, or a command that runs)."""
        if self.ready:
            return None
        self.ready = self.started = True
        changed = self._advance(Phase.READY)
        return PhaseUpdate(self.phase, self.progress, changed, True, line)

    # helpers for subclasses
    def _advance(self, phase: Phase) -> bool:
        if phase.rank > self.phase.rank:
            self.phase = phase
            if phase.rank >= Phase.READY.rank:
                self.ready = self.started = True
            if self.progress is not None and not _progress_belongs(self.progress, phase):
                self.progress = None
            return True
        return False

    def _update(self, line: str, changed: bool, old_progress: Progress | None,
                old_ready: bool) -> PhaseUpdate | None:
        if changed or self.progress != old_progress or self.ready != old_ready:
            return PhaseUpdate(self.phase, self.progress, changed, self.ready, line)
        return None


def _progress_belongs(progress: Progress, phase: Phase) -> bool:
    kind = progress.get("kind")
    return (kind == "weight_shards" and phase is Phase.WEIGHT_LOADING) or (
        kind == "cuda_graph_bs" and phase is Phase.CUDA_GRAPH_CAPTURE)


class MarkerTracker(PhaseTracker):
    """A tracker driven by a table of (regex, phase) markers behind one prefilter regex.

    Subclasses set ``PREFILTER`` (one compiled alternation of cheap literal fragments),
    ``MARKERS`` (ordered (regex, phase) pairs) and override :meth:`_special` for progress bars,
    access lines and batch lines.
    """

    __slots__ = ("line_marker",)
    PREFILTER: re.Pattern[str] = re.compile(r"(?!x)x")
    MARKERS: tuple[tuple[re.Pattern[str], Phase], ...] = ()
    MARKERS_LATEST_FIRST: tuple[tuple[re.Pattern[str], Phase], ...] = ()  # __init_subclass__
    # each marker's literals (one must be in any line it matches; None: always searched): a
    # line past the prefilter holds one marker's words, if any, and `in` tests are cheap where
    # a search of each marker's alternation is not
    MARKER_GATES: tuple[tuple[str, ...] | None, ...] = ()

    def __init_subclass__(cls, **kw: Any) -> None:
        super().__init_subclass__(**kw)
        cls.MARKERS_LATEST_FIRST = tuple(sorted(cls.MARKERS, key=lambda m: -m[1].rank))
        cls.MARKER_GATES = tuple(needles(rx) for rx, _ in cls.MARKERS_LATEST_FIRST)

    def feed_chunk(self, chunk: bytes) -> list[PhaseUpdate]:
        # Serving is the last phase, and where the log runs at thousands of lines a second
        # (a decode line per batch, an access line per request): nothing there can change the
        # phase, so the chunk is not even split. Before that, output is slow (loading, capture)
        # and each line goes through feed().
        updates: list[PhaseUpdate] = []
        if self.phase is Phase.SERVING:
            return updates
        for raw in chunk.split(b"\n"):
            if raw:
                update = self.feed(raw.decode("utf-8", "replace"))
                if update is not None:
                    updates.append(update)
                if self.phase is Phase.SERVING:
                    break
        return updates

    def feed(self, line: str) -> PhaseUpdate | None:
        if self.phase is Phase.SERVING:
            # Nothing can change any more; only count requests (cheap `in` checks).
            if "HTTP/" in line:
                access = parse_access(line)
                if access and is_traffic(access[1], access[0], access[2]):
                    self.requests_seen += 1
            return None
        if self.PREFILTER.search(line) is None:
            return None
        old_progress, old_ready = self.progress, self.ready
        changed = False
        target: Phase | None = None
        for (rx, phase), gate in zip(self.MARKERS_LATEST_FIRST, self.MARKER_GATES):
            # (the latest phase a line names wins)
            if (gate is None or holds_any(line, gate)) and rx.search(line):
                target = phase
                break
        if target is not None:
            self.markers_seen += 1
            changed = self._advance(target)
        self.line_marker = target  # for _special: the phase this line's marker names, if any
        changed = self._special(line) or changed
        return self._update(line, changed, old_progress, old_ready)

    def _special(self, line: str) -> bool:
        return False

    # shared pieces
    def _shard_progress(self, line: str) -> bool:
        m = SHARD_BAR_RE.search(line)
        if m is None:
            return False
        changed = self._advance(Phase.WEIGHT_LOADING)
        if self.phase is Phase.WEIGHT_LOADING:
            self.progress = {"kind": "weight_shards", "done": int(m[1]), "total": int(m[2])}
        return changed

    def _request_error(self, line: str) -> bool:
        """A fragment that starts mid-run with a request's application error (midrun.py): up
        and serving."""
        if self.markers_seen or ASGI_REQUEST_ERROR not in line:
            return False
        if self.probe_failed:
            # the error of the local poll whose 500 uvicorn has just logged (SGLang's own
            # warm-up asking /model_info, em104): the HTTP server is up, nothing was served
            return self._advance(Phase.WARMUP)
        return self._up_and_serving(line)

    def _up_and_serving(self, line: str) -> bool:
        """The line shows the server up and requests served (whatever came before it)."""
        changed = self.mark_ready(line) is not None
        self.requests_seen = max(self.requests_seen, 1)
        return self._advance(Phase.SERVING) or changed

    def _access(self, line: str) -> bool:
        """An access line: HTTP is up (>= warmup); after ready, real traffic means serving."""
        access = parse_access(line)
        if access is None or is_launcher_call(access[1], access[2]):
            return False
        self.probe_failed = '" 5' in line and is_loopback(access[0]) and \
            is_probe(access[1], access[2])
        if self.ready:
            if is_traffic(access[1], access[0], access[2]) and not turned_away(line):
                self.requests_seen += 1
                return self._advance(Phase.SERVING)
            return False
        if _remote_client_call(access, line):
            # a client on another host using the API before the ready line (pastes drop it;
            # SGLang prints it only after its warmup): the server was in use, startup over
            self.requests_seen += 1
            return self._advance(Phase.SERVING)
        return self._advance(Phase.WARMUP)


def turned_away(line: str) -> bool:
    """A request the HTTP layer answered without the engine: redirected (3xx: an HTTPS redirect
    middleware), refused for its key (401, 403) or its method (405). The server is up; nothing
    was served. (A 400 or a 5xx came through the handler to the engine's input processing or
    the engine itself; a 404, a model name or route the server lacks, is labelled served in
    seven logs of eight: a client using the API, as a person reads it.)"""
    return _TURNED_AWAY.search(line) is not None


_TURNED_AWAY = re.compile(r'HTTP/[\d.]+" (?:3\d\d|40[135])\b')


def _remote_client_call(access: tuple[str, str, str], line: str) -> bool:
    """A call from another host answered 2xx: an API call (not a poll of metrics or the model
    list), or a health check, which SGLang answers 503 until its warmup is over (a load
    balancer's rotation). No launcher's readiness check, no warmup of the server's own (both
    come from loopback)."""
    client, method, path = access
    if '" 2' not in line or is_loopback(client):
        return False
    return not is_probe(method, path) or path.partition("?")[0].rstrip("/") in HEALTH_PATHS


def arg_key(key: str) -> str:
    """Canonical flag name: ``mem_fraction_static`` and ``mem-fraction-static`` are one flag."""
    return key.replace("_", "-")


def render_value(value: Any) -> str:
    # str(0.85) == "0.85"; bools never reach here (they are flags).
    return str(value)


def render_args(args: Iterable[tuple[str, Any]]) -> list[str]:
    """``tp=8`` -> ``--tp 8``; ``true`` -> ``--flag``; ``false`` -> omitted; list -> ``--k a b``."""
    out: list[str] = []
    for key, value in args:
        flag = "--" + arg_key(key)
        if value is False:
            continue  # false also lets a child drop an inherited flag
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            out += [flag, *(render_value(v) for v in value)]
        else:
            out += [flag, render_value(value)]
    return out


class Launch(Protocol):
    """What an engine needs of a resolved profile to build its command line."""

    # Read-only (properties): a frozen ResolvedProfile qualifies.
    @property
    def command(self) -> tuple[str, ...]: ...
    @property
    def model(self) -> str | None: ...
    @property
    def host(self) -> str: ...
    @property
    def port(self) -> int: ...
    @property
    def args(self) -> tuple[tuple[str, Any], ...]: ...


class Engine:
    """One engine kind: its default command, how it is told its model and address, its
    phase tracker and its flag names."""

    name: str = "command"
    default_command: tuple[str, ...] = ()
    model_flag: str | None = None   # None: the engine is given no model, host or port
    tracker_class: type[PhaseTracker] = PhaseTracker

    def new_tracker(self) -> PhaseTracker:
        return self.tracker_class()

    def argv(self, launch: Launch) -> list[str]:
        """The server's command line: the command, the engine's own flags, the profile's."""
        return [*launch.command, *self.engine_args(launch), *render_args(launch.args)]

    def engine_args(self, launch: Launch) -> list[str]:
        if self.model_flag is None:
            return []
        out = [self.model_flag, launch.model] if launch.model else []
        return out + ["--host", launch.host, "--port", str(launch.port)]

    def flag(self, logical: str, version: str | None = None) -> str | None:
        """The CLI flag name (without ``--``) for a logical knob, or None if there is none."""
        return None

    def __repr__(self) -> str:
        return f"<Engine {self.name}>"
