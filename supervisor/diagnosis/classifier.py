"""The verdict on a log: outcome, last phase reached, cause, and the lines that show it.

One classifier serves the live daemon (on a run's log tail, with the exit status when there is
one) and ``supervisor-ctl diagnose FILE`` (offline, the file alone).

- **Outcome.** ``ready`` when the engine's ready line was reached and no fatal error follows;
  ``crashed`` when a fatal error is present (a scheduler exception, SGLang's sigquit, a rank
  reported dead, a C++ abort, a faulthandler dump, a watchdog, a traceback after which nothing
  happened, vLLM's engine-core failure, ``Killed``, ...); ``incomplete`` otherwise (still
  running, hung, or cut off).
- **Phase.** The last phase the engine's markers reached (the same tracker the daemon runs
  live); the frames of a traceback can prove a later phase (a bare traceback through
  ``init_cuda_graphs`` was in capture); a log with no markers at all takes the phase its cause
  implies (SGLang's watchdog only fires on a running batch: serving).
- **Cause.** The highest-priority signature (see ``signatures``) among the lines of the
  failure, so the root error wins over what other ranks and the launcher print around it (NCCL
  errors of the survivors, sigquit, ``Killed``, ``terminate called``, vLLM's "See root cause
  above"). Without a message signature, weaker evidence in order: frames of the traceback, a
  rank killed with -9 (host OOM killer), a faulthandler dump in the weight loader (SIGBUS from a
  mmap'd file), the exit status, speculative decoding switched on, death during KV-pool
  sizing, and for an incomplete log a very slow weight load. Otherwise ``unknown``.
"""

from __future__ import annotations

import bisect
import operator
import os
import re
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import Any

from ..engines import get_engine
from ..engines.base import ASGI_REQUEST_ERROR, parse_access
from ..engines.literals import holds_any, literal_prefilter
from ..states import Cause, Outcome, Phase
from . import signatures as S
from .evidence import evidence_lines
from .needles import LiteralSets, lowered_needles
from .normalize import (
    DOCKER_JSON_START,
    UNGLUE_MIN,
    docker_json_records,
    split_lines,
    strip_wrappers,
    unglue,
)
from .raised_where import raised_where_hits
from .refusals import (
    ASKED_FOR_NO_PROCESSES,
    MEETS_ELSEWHERE,
    a_benchmarks_dataset,
    divided_by_a_zero_setting,
    impossible_launch,
    launch_refusal,
    met_a_non_finite_setting,
    refusal_evidence,
    refused_building_the_model,
    refused_setting,
    settings_of,
    stuck_meeting_elsewhere,
    tokenizer_missing_from_model,
    unreachable_own_rendezvous,
    weights_of_another_format,
)
from .scan import Scan

# exit statuses that mean "someone stopped it", not "it failed"
_STOP_CODES = frozenset({0, -15, 143, -2, 130})


@dataclass(frozen=True)
class Verdict:
    engine: str
    outcome: Outcome
    phase: Phase
    cause: Cause | None
    evidence: tuple[str, ...] = ()

    def to_dict(self) -> dict[str, Any]:
        return {
            "engine": self.engine,
            "outcome": self.outcome.value,
            "phase": self.phase.value,
            "cause": self.cause.value if self.cause is not None else None,
            "evidence": list(self.evidence),
        }


@dataclass
class _Candidate:
    cause: Cause
    priority: int
    index: int
    implies: Phase | None = None
    message: bool = False   # a message signature (not frames / exit status / context)
    support: int | None = None  # a line that makes a bare message this cause (its frame)


# --- public API -------------------------------------------------------------------------------


def classify_lines(lines: Iterable[str], *, engine: str | None = None,
                   exit_code: int | None = None,
                   settings: Mapping[str, str] | None = None) -> Verdict:
    """Classify a log given as lines (each may still contain ``\\r``/``\\n``).

    ``settings``: what the launch was given beyond what the log shows (the live run's profile
    args and env, settings.launch_settings) - an error naming one is a refused configuration.
    """
    if not isinstance(lines, list):
        lines = list(lines)
    if lines and lines[0].startswith(DOCKER_JSON_START):
        # a docker json-file log (every line a record; asked of the first line only): read as
        # the lines its records hold
        lines = [text for line in split_lines(lines) for text in docker_json_records(line)]
    # (one search of the whole log for a line still holding a line break, instead of two per
    # line: most callers pass lines already split)
    blob = "".join(lines)
    items = lines if "\n" not in blob and "\r" not in blob else split_lines(lines)
    bars = "it/s]" in blob or "s/it]" in blob  # (tqdm's rates, which a glued line follows)
    raw: list[str] = []
    for line in items:
        if len(line) <= UNGLUE_MIN and not (bars and ("it/s]" in line or "s/it]" in line)):
            raw.append(line)  # nothing glued to it (unglue's own tests, asked first)
        else:
            raw.extend(unglue(line))
    msgs = [strip_wrappers(line) for line in raw]
    name = engine or _detect(msgs, raw)
    eng = get_engine(name)
    scan = _scan(raw, msgs, eng.new_tracker())
    verdict = _decide(raw, msgs, scan, eng.name, exit_code, settings)
    if verdict.outcome is Outcome.CRASHED:
        again = _restarted_at(msgs, scan)
        if again is not None:
            # a log that holds the run that died and the one started after it (a container's
            # restart policy, a wrapper's retry loop): the verdict is the last run's
            raw, msgs = raw[again:], msgs[again:]
            verdict = _decide(raw, msgs, _scan(raw, msgs, eng.new_tracker()), eng.name,
                              exit_code, settings)
    return verdict


# A run of the engine starting: vLLM's API server announcing its version (to 0.10) or its
# arguments (`non-default args: {...}`, 0.9 on), SGLang's argument dump (`server_args=
# ServerArgs(...)`, 0.5's `server_args={...}`) - markers of the trackers, so the scan notes
# them. After a death, a new run.
_RUN_START = re.compile(r"\bvLLM API server version \S|\bnon-default args: \{"
                        r"|(?<![\w.(])server_args=(?:ServerArgs\(|\{)")


def _restarted_at(msgs: list[str], scan: Scan) -> int | None:
    """Where the last run of a log that restarted after its first death starts, or None."""
    if len(scan.run_starts) < 2:
        return None
    death = min((i for i, _ in scan.fatal[:1] + scan.exceptions[:1]), default=None)
    last = scan.run_starts[-1]
    if death is None or last < death or not _RUN_START.search(msgs[last]):
        return None
    return last


def classify_text(text: str, **kw: Any) -> Verdict:
    return classify_lines(re.split(r"\r\n|\r|\n", text), **kw)


def classify_file(path: str | os.PathLike[str], **kw: Any) -> Verdict:
    """Classify a log file. A leading block of ``#`` comment lines (a labelled fixture's
    header) is metadata, not log, and is skipped."""
    with open(path, "rb") as fh:
        text = fh.read().decode("utf-8", errors="replace")
    return classify_text(strip_comment_header(text), **kw)


def diagnose_dict(path: str | os.PathLike[str],
                  settings: Mapping[str, str] | None = None) -> dict[str, Any]:
    """What ``supervisor-ctl diagnose FILE --json`` prints (``--set`` gives ``settings``)."""
    return classify_file(path, settings=settings).to_dict()


def strip_comment_header(text: str) -> str:
    """Drop leading lines starting with ``#`` up to and including the first blank line."""
    if not text.startswith("#"):
        return text
    lines = text.splitlines(keepends=True)
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        i += 1
    if i < len(lines) and not lines[i].strip():
        i += 1
    return "".join(lines[i:])


_VLLM_HINTS = literal_prefilter(*(
    "vllm", "vLLM", "VLLM", "EngineCore", "Loading weights took", "Model loading took",
    "GPU KV cache size", "Available KV cache memory", "init engine (profile",
    "Graph capturing finished", "Avg prompt throughput", "gpu_memory_utilization",
    # V1's capture bar, `Capturing CUDA graphs (mixed prefill-decode, PIECEWISE): 61%|...`:
    # a fragment cut inside the capture has nothing else (SGLang's says "Capturing batches")
    "Capturing CUDA graphs (",
    # the bar of offline LLM.generate (`Processed prompts: 100%|...| 1/1 [...]`)
    "Processed prompts: ",
    # V1's platform choosing an attention backend (`Using FLASHINFER attention backend out of
    # potential backends: [...]`), printed without a header by some launchers
    "out of potential backends"))
# vLLM's own logger header, `[file.py:N]` (2025 on) or `file.py:N]` (2024); old SGLang builds
# print a few vLLM-style lines too, which is why a log is vLLM only if these dominate. CRITICAL
# too: V0's launcher logs `MQLLMEngine is already dead, terminating server process` at it.
_VLLM_HEADER = re.compile(r"(?:INFO|WARNING|ERROR|DEBUG|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d "
                          r"(?:\[[\w./]+:\d+\]|[\w.]+\.py:\d+\])")
_SGLANG_HINTS = literal_prefilter(*(
    "sglang", "SGLang", "sgl_kernel", "sgl-kernel", "server_args=", "hit an exception",
    "Received sigquit", "fired up and ready", "Capture cuda graph", "KV Cache is allocated",
    # (SGLang 0.1's `Rank 0: load weight end.`, `Rank 0: max_total_num_token=52656, ...`, its
    # server arguments' `disable_radix_cache=False, ...` and batch lines, `new fill batch. #seq:
    # 1. ...`)
    "oad weight begin", "oad weight end", "Memory pool end", "max_total_num_token",
    "disable_radix_cache=", "new fill batch. #",
    "Decode batch", "Prefill batch", "scheduler is dead"))
# vLLM's process prefixes (V1's `(APIServer pid=N)`, `(EngineCore_DP0 pid=N)`, V0's
# `(VllmWorkerProcess pid=N)`, its Ray workers', and those of Aphrodite, the vLLM fork): on
# the raw line, as a wrapper strips them
_VLLM_PROCESS = re.compile(r"\((?:APIServer|EngineCore(?:_\w+)?|VllmWorker\w*(?: rank=\d+)?"
                           r"|RayWorker(?:Wrapper|Vllm|Aphrodite)) pid=\d+")
# uvicorn's own access and lifecycle lines in its default format, as vLLM's API server leaves
# them (`INFO:     Started server process [4803]`); SGLang gives them its timestamp from 2025
# (`[2025-07-01 15:50:49] INFO:     ...`), its 2024 builds did not (3 of the 24 labelled logs
# with bare ones): one vote among the others
_UVICORN_BARE = "INFO:     "
_SGLANG_RANK = re.compile(r"\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d(?: [A-Z]+\d+)+\]")


def detect_engine(lines: list[str]) -> str:
    """sglang or vllm, by which engine's own lines dominate (old SGLang builds import vLLM and
    print a few vLLM-style lines, so a bare mention is not enough)."""
    return _detect([strip_wrappers(line) for line in lines], lines)


def _detect(msgs: list[str], raw: list[str]) -> str:
    sg = vl = 0
    left = len(msgs)
    for msg, line in zip(msgs, raw):
        # decided once the lines left could not turn the count (a log of engine lines only
        # is decided about halfway)
        if sg >= vl + left:
            return "sglang"
        if vl > sg + left:
            return "vllm"
        left -= 1
        # on the message: a compose service named "sglang" proves nothing
        if _SGLANG_HINTS.search(msg) or ("[" in line and _SGLANG_RANK.search(line)):
            sg += 1
        elif _VLLM_HINTS.search(msg) or (".py:" in line and _VLLM_HEADER.search(line)) or \
                (" pid=" in line and _VLLM_PROCESS.search(line)) or line.startswith(_UVICORN_BARE):
            vl += 1
    return "vllm" if vl > sg else "sglang"


# --- the scan ---------------------------------------------------------------------------------


def _scan(raw: list[str], msgs: list[str], tracker: Any) -> Scan:
    """One pass: the live tracker on the raw line, structure and signatures on the message."""
    scan = Scan()
    prev_frame_or_code = False
    in_current_thread: list[str] | None = None
    markers = 0
    request_error = False  # inside the traceback of uvicorn's `Exception in ASGI application`
    matched: dict[str, tuple[S.Signature, ...]] = {}  # message -> the signatures it matches
    gates_of: dict[str, int] = {}  # message -> its _LINE_GATES bits (_gates_of)
    routes_listed = False
    worker_error = False  # a V0 worker_base ERROR line seen (_WORKER_BASE_ERROR)
    call_failures: list[int] = []  # vLLM's engine core reporting a utility call failed
    logging_stack = False  # inside the `Call stack:` of a record logging failed to write
    for i, line in enumerate(raw):
        msg = msgs[i]
        # live tracker (phase markers, ready, serving; a log that starts mid-run is ready at
        # its first traffic: engines/midrun.py)
        update = tracker.feed(line)
        if tracker.markers_seen != markers:
            markers = tracker.markers_seen
            scan.last_marker = i
            if scan.first_marker is None:
                scan.first_marker = i
            if "args" in msg and ("server_args=" in msg or "non-default args" in msg) or \
                    "API server version" in msg:
                scan.run_starts.append(i)  # (_restarted_at; asked of marker lines only)
        elif tracker.phase is Phase.SERVING and "args" in msg and _RUN_START.search(msg):
            # (a serving tracker reads no more markers: a run started after it died, by a
            # container's restart or a launcher's retry, is seen here)
            scan.run_starts.append(i)
        if update is not None:
            if update.progress and update.progress.get("kind") == "cuda_graph_bs":
                scan.capture_started = True
                scan.batches_captured = int(update.progress.get("done") or 0)
            scan.last_update = i
            scan.activity.append(i)
            if update.changed_phase:
                scan.phase_lines.append(i)
                scan.phases.append(tracker.phase)
                if scan.first_startup_read is None and not tracker.ready and \
                        "HTTP/" not in line:
                    scan.first_startup_read = i
        route = msg.startswith(S.ROUTE_LISTED)
        if scan.ready_index is None and (tracker.ready or tracker.started or route):
            scan.ready_index = i  # vLLM lists its routes only once the engine core is up
        elif update is None and tracker.ready and ("HTTP/" in line or " batch" in line):
            scan.activity.append(i)
        if route or "API servers" in msg:
            scan.api_servers_pending = i if not tracker.ready and \
                _API_SERVERS_PENDING.search(msg) else None
            if route:
                routes_listed = True  # the API server has its engine client: it is up
        if "MQLLMEngine" in msg and _MQ_CLIENT.search(msg):
            scan.mq_client = True
        if scan.mq_client and tracker.started and not tracker.ready and \
                scan.api_servers_pending is None and not routes_listed:
            scan.api_servers_pending = i  # an engine under an API server: up at uvicorn's line

        if not msg or msg.isspace():
            continue  # blank lines (also from \r\n split twice) end nothing
        if logging_stack:
            # Python's logging reporting a record it could not write (`--- Logging error ---`,
            # the handler's own traceback, then `Call stack:` down to the log call and
            # `Message: ...`): that stack is where a record was logged from, no error's - its
            # frames date and name nothing (df105: a closed stdout, every record of a shutdown)
            if msg.startswith(("Message: ", "Arguments: ")):
                logging_stack = False
            elif 'File "' in msg or msg[0] == " ":
                continue
        elif msg == "Call stack:":
            logging_stack = True
            continue
        if scan.first_text is None:
            scan.first_text = i
        if 'File "' in msg or msg.startswith(("...", "File ")):
            fm = S.frame_match(msg)
            if fm:
                path = fm[1]
                if "\\" in path:  # a Windows build's path: the frame tables' `/` separators
                    path = path.replace("\\", "/")
                where = f"{path}:{fm[2]}"
                scan.frames.append((i, where))
                if where[-1] == ">" and where.endswith(":<module>"):
                    scan.module_frames.append(i)
                if not scan.maybe_request and ("v1_" in where or "/serving" in where or
                                               "routing.py:" in where or "_llm_engine" in where
                                               or "_chat_template" in where
                                               or "_parser" in where
                                               or "function_call/" in where
                                               or "serve/_private/replica" in where):
                    scan.maybe_request = True  # _REQUEST_LITERALS: asked of few logs' frames
                if in_current_thread is not None:
                    in_current_thread.append(where)
                prev_frame_or_code = True
                continue
        if msg[-1] == ")" and msg[0] == " " and ".py:" in msg:
            pm = S.PYSPY_FRAME.match(msg)
            if pm:
                # a py-spy dump's frame: dates the phase; neither a death nor a cause's hint
                scan.frames.append((i, f"/{pm[2]}:{pm[1]}"))
                scan.dump_frames.add(i)
                continue
        if prev_frame_or_code:
            if (msg[0].isspace() or set(msg.strip()) <= {"^", "~"}) \
                    and not ("| " in msg and _boxed_error(msg)):
                # source code under a frame: `raise RuntimeError(f"NCCL error: ...")`; its call
                # was in progress too (a traceback cut after `scheduler.event_loop_normal()` and
                # a decorator's frame was in the event loop). Also a few lines further down,
                # behind other workers' lines (interleaved tracebacks, as below): vLLM-Ascend's
                # ranks printing `compile_or_warm_up_model` then, three lines on, its
                # `self.model_runner.capture_model()`
                if "(" in msg and scan.frames and (scan.frames[-1][0] == i - 1 or
                                                   _detached_source(scan, i)):
                    call = _source_call(msg)
                    if call:
                        scan.frames.append((i, call))
                elif "is_profile=True" in msg:
                    # a whole call printed over lines (Python 3.13): vLLM's `_dummy_run(
                    # self.max_num_tokens, is_profile=True)` is the memory profile run
                    scan.frames.append((i, "<call>:profile_run"))
                continue
            if not msg[0].isspace() and "(" in msg and _unindented_source(scan, i, msg):
                continue
        if msg.startswith("    ") and "(" in msg and _detached_source(scan, i) \
                and not ("| " in msg and _boxed_error(msg)):
            # several workers' tracebacks interleaved line by line (vLLM's multiproc workers
            # all logging through one terminal): a source line lands away from its own frame,
            # yet the call it shows was in progress in that worker (`self.model_runner.
            # profile_run()` among three workers' lines dates them to the memory profile run)
            call = _source_call(msg)
            if call:
                scan.frames.append((i, call))
            continue
        prev_frame_or_code = False
        in_current_thread = None

        if request_error or ASGI_REQUEST_ERROR in msg:
            # (uvicorn's own header keeps its level, `ERROR:    Exception in ASGI application`)
            request_error = _in_request_error(msg) or ASGI_REQUEST_ERROR in msg
            if tracker.probe_failed and ASGI_REQUEST_ERROR in msg:
                scan.probe_errors.append(i)
        if "Traceback (most recent call last)" in msg:
            scan.tracebacks.append(i)
            if not request_error and i and _CALL_ERROR_BEFORE.search(msgs[i - 1].strip()):
                request_error = True  # read on as uvicorn's request error is
                if _UTILITY_CALL_FAILED.match(msgs[i - 1].strip()):
                    call_failures.append(i - 1)  # (logged with its traceback: asked here)
            if request_error:
                scan.request_tracebacks.add(i)
        # the three rare gates, asked only of a line that holds one of their literals lowercased;
        # a long line is asked directly (see _LONG_LINE) and walked only once it is no dump
        gates = None if len(msg) > _LONG_LINE else _gates_of(msg, gates_of)
        rare = S.RARE_GATE.search(msg) if gates is None else \
            gates & _RARE_BIT and S.RARE_GATE.search(msg)
        if rare:
            if S.LIFECYCLE_GATE.search(msg):
                _lifecycle(scan, i, msg, msgs)
            if S.FATAL_GATE.search(msg):
                in_current_thread = _fatal_markers(scan, i, msg, raw[i - 1] if i else "")
                if "died unexpectedly" in msg and scan.stop_at is None:
                    _requested_core_shutdown(scan, i, msgs)
                elif "exited unexpectedly" in msg and scan.stop_at is not None:
                    _core_stopped_alone(scan, i, msgs)
                elif "scheduler died" in msg and scan.stop_at is not None:
                    _scheduler_stopped_alone(scan, i, msgs)
        is_exc = S.is_exception_line(msg) if gates is None or gates & _EXCEPTION_BIT else False
        if is_exc:
            scan.exceptions.append((i, bool(S.WRAPPER_EXCEPTIONS.search(msg))))
            for phase, rx, literals in S.PHASE_MESSAGES_GATED:
                if (literals is None or holds_any(msg, literals)) and rx.search(msg):
                    scan.named_phases.append((i, phase))
            if "EngineDeadError" in msg and _ENGINE_DEAD_ERROR.search(msg):
                scan.named_phases.append((i, Phase.READY))
            if _raised_by_config_check(scan, i, msg):
                scan.config_rejections.append(i)
            raised_where_hits(scan, msgs, i, msg)
            if "JSONDecodeError" in msg or "UnicodeDecodeError" in msg or \
                    "decoding a JSON" in msg or S.JSON_SHAPE_ERROR.match(msg) or \
                    " column " in msg and S.JSON_DECODER_WORDS.search(msg) or \
                    "[Errno 5]" in msg and S.DISK_READ_ERROR.match(msg):
                _json_not_parsed(scan, msgs, i)
            elif "ize of tensor" in msg or "mismatch" in msg or "exceeds dimension" in msg \
                    or "weights of size" in msg:
                _shapes_not_the_models(scan, i, msg)
            if "Read timed out" in msg and S.SELF_REQUEST_TIMEOUT.search(msg):
                scan.self_timeouts.append(i)
        elif "_log_task_completion" in msg and _ENGINE_LOOP_DONE.search(msg):
            scan.named_phases.append((i, Phase.SERVING))
        elif "processing method " in msg or "executing method " in msg:
            m = _WORKER_METHOD_FAILED.search(msg)
            if m:
                phase = Phase.SERVING if m[1] in _WORKER_STEP_METHODS else \
                    next(iter(_place_phases(f"<method>:{m[1]}")), None)
                if phase is not None:
                    scan.named_phases.append((i, phase))
        if "aptur" in msg and (S.CAPTURE_ONLY_ERROR.search(msg) or _CAPTURED_EVENT in msg or
                               _HIP_CAPTURE in msg or _CAPTURED_STREAM in msg):
            scan.named_phases.append((i, Phase.CUDA_GRAPH_CAPTURE))
        if "xit code" in msg:
            for m in S.EXIT_CODE_LINE.finditer(msg):
                scan.exit_codes.append((i, int(m[1])))
        if "eqNum=" in msg or " work: " in msg:
            m = S.SEQ_NUM.search(msg) or _WATCHDOG_WORK.search(msg)
            if m:
                scan.seq_nums.append((i, int(m[1])))
        if "Dumping " in msg:
            if S.STEP_DUMP in msg:
                scan.step_dumps.append(i)
            elif _STEP_FAILED_DUMP.match(msg) or msg.startswith(S.STEP_STATS_DUMP):
                scan.step_dumps.append(i)
                scan.fatal.append((i, True))
        if "shards" in msg and scan.slow_load is None:
            _check_slow_load(scan, i, msg)

        if rare and S.ARGS_GATE.search(msg) and S.ARGS_DUMP.search(msg):
            if scan.spec_line is None and S.SPECULATIVE_ON.search(msg):
                scan.spec_line = i
            continue
        if gates is None:
            gates = _gates_of(msg, gates_of)
        if not gates & _SIGNATURE_BIT or gates & _BENIGN_BIT:
            continue
        # (asked only here: the exception's lines a worker logged read as errors)
        if not worker_error and "worker_base.py:" in line and _WORKER_BASE_ERROR.search(line):
            worker_error = True
            scan.fatal.append((i, False))
        if ("Caught signal " in msg or "ailed to start " in msg or "ault by GPU" in msg or
                "task happen error" in msg or "NPUExecution" in msg or
                "device to finish" in msg) and _DEATH_LINE.search(msg):
            scan.fatal.append((i, False))  # (past the gate: all say fault / fail / error)
        if ("already dead" in msg or "thread terminated" in msg) and _DEATH_REPORT.search(msg):
            scan.fatal.append((i, True))
        _match_signatures(scan, i, line, msg, is_exc, matched)
    for i in call_failures:
        _worker_errors_of_the_call(scan, i, raw)
    scan.final_phase = tracker.phase
    scan.server_up = tracker.ready
    if tracker.ready:
        scan.api_servers_pending = None
    if scan.ready_index is None and scan.first_marker is None and scan.frames:
        handled = [f for f in _request_frames(scan) if not _of_a_probe(scan, f)]
        if scan.probe_errors and scan.tracebacks:
            # (frames above the first traceback's header are a traceback cut by the tail's
            # start: where the whole ones are failed polls', it reads as one of them)
            handled = [f for f in handled if f > scan.tracebacks[0]]
        if handled:
            # a fragment whose first sign of life is a request being handled (its error's
            # traceback): up and serving from there, as midrun.py reads traffic
            scan.ready_index = handled[0]
            scan.final_phase = Phase.SERVING
    return scan


def _of_a_probe(scan: Scan, frame: int) -> bool:
    """The request frame is in the traceback of a local poll's error (scan.probe_errors: its
    header just above the traceback): the poll's 500 says the server is up, not serving."""
    if not scan.probe_errors:
        return False
    head = max((t for t in scan.tracebacks if t < frame), default=None)
    return head is not None and any(0 < head - p <= 2 for p in scan.probe_errors)


def _boxed_error(msg: str) -> bool:
    """An exception group's error line inside its box (`  | MQEngineDeadError: ...`, Python
    3.11 and the exceptiongroup backport): indented like source code, but the box's own text
    starts at its edge, where its source lines are indented further."""
    body = msg.lstrip()
    return body.startswith("| ") and len(body) > 2 and not body[2].isspace()


_HANDLER, _LOOP = 1, 2
_CAPTURED_EVENT, _HIP_CAPTURE, _CAPTURED_STREAM = S.CAPTURE_ONLY_WORDS


def _request_frames(scan: Scan) -> list[int]:
    """The indices of the request handlers' frames (S.REQUEST_HANDLER_FRAME); the engine loop's
    (S.ENGINE_LOOP_FRAME) are kept in scan.loop_frames on the way. Read once, on demand: most
    logs never ask."""
    if scan.request_frames is None:
        scan.request_frames = []
        if not scan.maybe_request:
            return scan.request_frames
        for i, where in scan.frames:
            kind = _request_place(where)
            if kind:
                (scan.request_frames if kind == _HANDLER else scan.loop_frames).append(i)
    return scan.request_frames


# a literal that each alternative of S.REQUEST_HANDLER_FRAME and S.ENGINE_LOOP_FRAME holds


def _request_place(where: str) -> int:
    """_HANDLER: the frame's place runs only while an HTTP request is handled
    (S.REQUEST_HANDLER_FRAME); _LOOP: it is the engine's own loop (S.ENGINE_LOOP_FRAME); else 0
    (kept for the process, as _place_phases)."""
    known = _REQUEST_PLACES.get(where)
    if known is None:
        if len(_REQUEST_PLACES) >= _PLACES_KEPT:
            _REQUEST_PLACES.clear()
        # (a module's top level runs as it is imported, never for a request: an import chain
        # through a parser's module at startup is no request being handled)
        known = 0 if where.endswith(":<module>") else \
            _HANDLER if S.REQUEST_HANDLER_FRAME.search(where) else \
            _LOOP if S.ENGINE_LOOP_FRAME.search(where) else 0
        _REQUEST_PLACES[where] = known
    return known


# The scan's literal gates of a message, in one walk over it (needles.LiteralSets) instead of a
# search each: the signature gate and the benign list (both on the lowercased message), and the
# rare gates' literals lowercased, which a message holds whenever it holds them as they are.
# A fourth set, the endings of an exception's name lowercased: a line holding none of them is no
# exception line, and is_exception_line is asked only of the few that hold one.
_LINE_GATES = LiteralSets(S.SIGNATURE_LITERALS, S.BENIGN_LITERALS,
                          [literal.lower() for literal in S.RARE_LITERALS],
                          [suffix.lower() for suffix in S.EXC_SUFFIXES])
_SIGNATURE_BIT, _BENIGN_BIT, _RARE_BIT, _EXCEPTION_BIT = 1, 2, 4, 8
# The walk costs some 450 instructions a character. The argument dumps (SGLang's server_args,
# vLLM's non-default args and engine config) run to thousands of characters and are never
# matched against the signatures: the rare gate alone finds them, early in the line.
_LONG_LINE = 600


def _gates_of(msg: str, memo: dict[str, int]) -> int:
    """The message's _LINE_GATES bits; each distinct message is walked once a scan (``memo``):
    the ranks of a run print the same lines (and is lowercased only then)."""
    gates = memo.get(msg)
    if gates is None:
        gates = memo[msg] = _LINE_GATES.found(msg.lower())
    return gates


def _match_signatures(scan: Scan, i: int, line: str, msg: str, is_exc: bool,
                      matched: dict[str, tuple[S.Signature, ...]]) -> None:
    """Record the signatures the message matches. The ranks of a run print the same lines:
    each distinct message of a log is matched once (``matched``, kept for one scan; a message
    logged at two levels is read as its first line was)."""
    found = matched.get(msg)
    if found is None:
        found = matched[msg] = _signatures_of(msg.lower(), is_exc, line, len(line) - len(msg))
    for sig in found:
        scan.hits.append((sig, i))
        if sig.fatal and not _not_itself_fatal(msg):
            scan.fatal.append((i, False))


def _not_itself_fatal(msg: str) -> bool:
    """A line a fatal signature matches that proves no death by itself: a retry still under
    way (c10d's `TCP client failed to connect ... - retrying (try=3, ...)`), or a frame of a C++
    backtrace (`frame #2: c10::DistNetworkError::DistNetworkError(...)`), whose head line
    (S.NATIVE_TRACE_HEAD) says whether the exception was fatal or a warning's."""
    return "retrying (try=" in msg or msg.startswith("frame #")


def _signatures_of(low: str, is_exc: bool, line: str = "",
                   header: int = 0) -> tuple[S.Signature, ...]:
    """The signatures the lowercased message matches, in SIGNATURES' order. Whether the line
    reads as an error - an exception line, error words (ERRORISH), or logged at error level in
    its ``header`` (`ERROR 08-03 11:35:28 [nixl_connector.py:343] NIXL is not available`) - is
    only asked once a signature of scope "error" could match: most lines here have no
    candidate at all, and that search is one of the dearest of the scan."""
    found: list[S.Signature] = []
    errorish: bool | None = True if is_exc else None
    for k in sorted(S.SIGNATURE_NEEDLES.candidates(low)):  # in SIGNATURES' order
        sig = S.SIGNATURES[k]
        if sig.scope == "error":
            if errorish is None:
                errorish = S.ERRORISH.search(low) is not None or \
                    line.find("ERROR", 0, header) >= 0
            if not errorish:
                continue
        if sig.pattern.search(low):
            found.append(sig)
    return tuple(found)


# What uvicorn's log of one request's application error is made of (its header, the
# traceback's header, exception lines, Python's chaining lines): frames and source lines are
# skipped before this is asked. The traceback is that request's: uvicorn answers it with a 500
# and the server goes on (Xinference's or a custom handler's bug, a rejected argument).
_REQUEST_ERROR_PART = re.compile(r"Exception in ASGI application|Traceback \(most recent call"
                                 r"|During handling of the above exception|The above exception "
                                 r"was the direct cause|  \+ Exception Group Traceback"
                                 # (and the group's box: its separators, `  +-+---- 1 ----`,
                                 # and every line inside it, `    | Traceback ...`)
                                 r"|\s+\+-|\s+\| ")


# Xinference's actor framework ending one streamed response on an error (`ERROR:xoscar.api:
# Destroy generator <id> due to an error encountered.`, then its traceback through xoscar's
# __xoscar_next__ and the model's stream): xoscar logs it and re-raises to the caller, the
# REST request; the model actor and the engine under it go on (SGLang and vLLM under Xinference)
# vLLM V1's engine core failing a utility call a client made (`Invocation of collective_rpc
# method failed`, core.py _invoke_utility_method: logged with its traceback and returned to the
# caller as the call's failure - an RL trainer's weight sync, a profiler start); the engine core
# goes on serving.
# vLLM's OpenAI layer failing one streamed response (`Error in chat completion stream
# generator.`, serving_chat.py / serving_completion.py `logger.exception`): the stream gets an
# error event and the server goes on, unless the engine itself died (its EngineDeadError, read
# as a death in its own right).
# SGLang's PD KV sender failing one request's transfer (`Unexpected transfer worker error for
# room 5839938415251080346`, disaggregation/nixl/conn.py transfer_worker: `logger.exception`,
# then the room is marked failed and decode told, the worker thread goes on - "catch all
# exceptions to prevent silently killing this worker thread"): that request's error.
# Python's logging failing to write a record (`--- Logging error ---`, then the traceback of
# the handler's write - `BrokenPipeError: [Errno 32] Broken pipe` from a log shipper that died,
# `OSError: [Errno 28] No space left on device` from a stdout on a full disk - then `Call
# stack:` and the record): logging.Handler.handleError prints it and the program goes on; the
# record is lost, not the server.
_CALL_ERROR_BEFORE = re.compile(r"\bDestroy generator \w+ due to an error encountered"
                                r"|^Invocation of \w+ method failed$"
                                r"|^Error in (?:chat )?completion stream generator\.?$"
                                r"|^Unexpected transfer worker error for room \d+$"
                                r"|^--- Logging error ---$")


_UTILITY_CALL_FAILED = re.compile(r"^Invocation of \w+ method failed$")
_ANSWERED = re.compile(r'"(?:GET|POST) \S+ HTTP/[\d.]+" 2\d\d\b')
# how far above the engine core's report its workers' own report of the call may start
_UTILITY_CALL_REACH = 60


def _worker_errors_of_the_call(scan: Scan, i: int, raw: list[str]) -> None:
    """vLLM's engine core reporting a utility call failed (line ``i``, `Invocation of
    collective_rpc method failed`), and the server answering a request after it: the workers'
    reports just above it - the traceback of the method the call ran and `WorkerProc hit an
    exception.`, which each worker logs and then returns the failure to its caller - were that
    call's error, not a worker's death. (A caller that dies of the failure - vLLM's API server
    loading its static LoRA adapters at startup - answers nothing after it.)"""
    if not any(_ANSWERED.search(line) for line in raw[i + 1:]):
        return
    start = i - _UTILITY_CALL_REACH
    for head in scan.tracebacks:
        if start <= head < i and "Worker" in raw[head]:
            scan.request_tracebacks.add(head)
    scan.fatal = [(at, quits) for at, quits in scan.fatal
                  if not (start <= at < i and "WorkerProc hit an exception" in raw[at])]


def _source_call(msg: str) -> str | None:
    """The place a traceback's source line calls, as ``<call>:name``: the function it calls, or
    for vLLM's executors running a worker method by name (`self.collective_rpc("load_model")`,
    V0's `self._run_workers("determine_num_available_blocks")`) that method, which dates a
    traceback cut before the worker's own frames as the method's frame would. Not the workers'
    `compile_or_warm_up_model`: compile warmup, capture and sampler warmup in one, which only
    the worker's frames below it tell apart."""
    call = S.SOURCE_CALL.search(msg)
    if call is None:
        return None
    if call[1] in ("collective_rpc", "_run_workers"):
        rpc = S.RPC_BY_NAME.match(msg, call.end())
        if rpc and rpc[1] != "compile_or_warm_up_model":
            return f"<call>:{rpc[1]}"
    return f"<call>:{call[1]}"


def _unindented_source(scan: Scan, i: int, msg: str) -> bool:
    """A frame's source line at column 0, right under its frame (not an exception line,
    `ray.exceptions.RayTaskError(OutOfMemoryError): ...`): a journal (journald, some log
    shippers) strips the indentation of every line it stores (`engine_core.run_busy_loop()`
    under `File ".../core.py", line 835, in run_engine_core`). Its call is recorded as the
    indented line's would be."""
    if scan.frames[-1][0] != i - 1 or scan.frames[-1][1][0] == "<" or \
            not _UNINDENTED_CALL.match(msg) or S.is_exception_line(msg):
        return False
    call = _source_call(msg)
    if call:
        scan.frames.append((i, call))
    return call is not None


def _detached_source(scan: Scan, i: int) -> bool:
    """An indented line a few lines after a traceback's header or frame, with something else
    in between: a source line of an interleaved traceback (see the scan), not a message."""
    last = max(scan.frames[-1][0] if scan.frames else -1,
               scan.tracebacks[-1] if scan.tracebacks else -1)
    return last >= 0 and i - last <= _INTERLEAVE_SPAN


# how far (in lines) an interleaved source line may be from the last traceback header or frame
_INTERLEAVE_SPAN = 3
# A statement that calls something (`self.run()`, `x = f(a)`, `return await g()`), as a frame's
# source line reads once a journal has stripped its indentation.
_UNINDENTED_CALL = re.compile(r"(?:(?:return|await|raise|yield) |[\w.,\[\] ]+ [-+*/]?= )*"
                              r"(?:await )?[A-Za-z_][\w.]*\(")


def _in_request_error(msg: str) -> bool:
    return S.is_exception_line(msg) or _REQUEST_ERROR_PART.match(msg) is not None


# vLLM with separate API server processes (`--api-server-count` > 1, data parallel): the
# launcher starts the engines, then the API servers, and waits on them (`Waiting for API servers
# to complete ...`, serve.py run_multi_api_server). The engines' `init engine ... took` does not
# make the server ready here: the API servers start after it and say so themselves (their
# `Application startup complete`, their routes); a log that ends at the wait is incomplete
_API_SERVERS_PENDING = re.compile(r"\bWaiting for API servers to complete\b")
# vLLM V0's OpenAI server runs its engine in a process of its own (MQLLMEngine) and its client
# polls it while it starts (engine/multiprocessing/client.py, `Waiting for output from
# MQLLMEngine.`, logged only in the API server's process): the engine's `init engine ... took`
# then says the engine is up, not the server - that is uvicorn's line, as for V1's engine cores
# (a V0 API-server log cut between the two: warmup, incomplete).
_MQ_CLIENT = re.compile(r"Waiting for output from MQLLMEngine")

# Fatal lines outside the engines' own wording:
# - a native library's signal handler reporting the crash of the process it is in, then its
#   backtrace (UCX / UCS, used by NIXL and Mooncake transfers: `[host:pid:tid] Caught signal 11
#   (Segmentation fault: invalid permissions for mapped object at address 0x7f...)`)
_NATIVE_CRASH = re.compile(r"\bCaught signal \d+ \((?:Segmentation fault|Bus error|Aborted"
                           r"|Illegal instruction|Floating point exception)")
# - a serving wrapper's last word before it exits 1: KServe's model server (`kserve ERROR
#   [__main__.py:<module>():254] Failed to start model server: <the error>`), Triton's vLLM
#   backend failing to build its engine (`E... model.py:248] "[vllm] Failed to start engine:
#   ..."`, then the model instance fails to initialize)
_WRAPPER_START_FAILED = re.compile(r"\bFailed to start (?:the )?model server: "
                                   r"|\[vllm\] Failed to start engine\b")
# - the ROCm runtime's one-line report of a GPU memory fault, after which it aborts the process
#   (`Memory access fault by GPU node-2 (Agent handle: 0x...) on address 0x.... Reason: ...`):
#   no traceback follows, the process is gone (AMD's form of an illegal memory access)
_ROCM_MEMORY_FAULT = re.compile(r"\bMemory access fault by GPU node-\d+ .*\bon address "
                                r"0x[0-9a-f]+\. Reason: ")
# - Ascend CANN's runtime reporting a kernel task that failed on the device (`Kernel task
#   happen error, retCode=0x31, [vector core exception]`, under an `EZ9999: Inner Error!`
#   device report): the NPU stream is broken and every later operation fails, as a CUDA
#   kernel's illegal memory access is sticky
_CANN_TASK_ERROR = re.compile(r"\bKernel task happen error, retCode=0x[0-9a-f]+, "
                              r"\[[\w ]*exception\]")
# - torch_npu's HCCL watchdog finding a failed device event (`torch.distributed: [ERROR] ... Find
#   exception when finishedNPUExecutionInternal, ... NPU function error: acl::AclQueryEvent
#   RecordedStatus ...`): ProcessGroupHCCL logs it and throws in its watchdog thread, which ends
#   the process as NCCL's watchdog does (vLLM-Ascend and SGLang on NPUs, serving or not; the
#   `driver shutting down` case of a clean exit is logged at info level instead)
_HCCL_WATCHDOG = re.compile(r"\bFind exception when finishedNPUExecutionInternal\b")
# - Ascend CANN's runtime giving up on the device finishing its work (`wait for compute device to
#   finish failed, runtime result = 507034.`, under `rtDeviceSynchronizeWithTimeout execution
#   failed, reason=vector core timeout`): the device stopped answering, the stream is lost
_CANN_SYNC_FAILED = re.compile(r"\bwait for compute device to finish failed, runtime result = ")
_DEATH_LINE = re.compile("|".join(rx.pattern for rx in (
    _NATIVE_CRASH, _WRAPPER_START_FAILED, _ROCM_MEMORY_FAULT, _CANN_TASK_ERROR, _HCCL_WATCHDOG,
    _CANN_SYNC_FAILED)))

# - vLLM V0's API server finding its engine process dead (0.6-0.8's MQLLMEngine front end, which
#   then terminates itself: `MQLLMEngine is already dead, terminating server process`), and
#   torch's NCCL watchdog thread ending on an error (`Process group watchdog thread terminated
#   with exception: CUDA error: ...`), after which torch aborts the process: reports of a death
_DEATH_REPORT = re.compile(r"\bMQLLMEngine is already dead, terminating server process"
                          # (torch 2.1 and before: `NCCL watchdog thread terminated ...`)
                          r"|\b(?:Process group|NCCL) watchdog thread terminated with exception")
# vLLM V1's engine client raising EngineDeadError (v1/engine/exceptions.py): the API server's
# output handler or a request finding the engine core dead, which happens only once the client
# is up (a core that dies in startup fails the client's construction with `Engine core
# initialization failed` instead): ready. Not serving by itself: AsyncLLM starts its output
# handler eagerly inside the API server's loop (async_llm.py __init__ -> _run_output_handler),
# so a core that dies idle raises it too; a request's own frames or traffic say serving
_ENGINE_DEAD_ERROR = re.compile(r"\bv1\.engine\.exceptions\.EngineDeadError\b|^EngineDeadError:")
# vLLM V0's AsyncLLMEngine reporting the end of its background loop (asyncio's `Exception in
# callback _log_task_completion(error_callback=...)`, the loop task's done callback): the loop
# is started by the first request (add_request, start_engine_loop), so it was serving
_ENGINE_LOOP_DONE = re.compile(r"^Exception in callback _log_task_completion\(")
# vLLM V0's multiproc workers (executor/multiproc_worker_utils.py) reporting the method that
# raised (`Exception in worker VllmWorkerProcess while processing method
# start_worker_execution_loop: ...`): the executor starts the workers' execution loop from its
# execute_model, at the first scheduled step, and a worker's execute_model runs one (profiling,
# KV sizing and capture are methods of their own): that worker died serving
# Any other method it names is a phase's own step, dated as a frame of that name would be
# (`load_model`: weight loading; `determine_num_available_blocks`, `initialize_cache`: the KV
# cache; `init_device`: launch), for a paste cut before the worker's frames.
# (and V0's worker_base.execute_method logging the method a driver's RPC ran, `Error executing
# method update_weight. This might cause deadlock in distributed execution.`)
_WORKER_METHOD_FAILED = re.compile(r"\b(?:Exception in worker \S+ while processing|Error "
                                   r"executing) method '?(\w+)")
_WORKER_STEP_METHODS = ("start_worker_execution_loop", "execute_model")
# Any ERROR line that vLLM V0's worker_base.py logs comes from that handler: execute_method
# logs the exception of the method it ran (`logger.exception`) and re-raises it, and the
# driver's RPC fails with it. So an ERROR line of it is a worker's fatal error even where the
# paste kept only the exception's own lines (an Ascend worker's CANN report of a device it
# could not open, under `(RayWorkerWrapper pid=...) ERROR 02-26 09:45:37 worker_base.py:572]`).
_WORKER_BASE_ERROR = re.compile(r"\bERROR \d\d-\d\d [\d:]+(?:\.\d+)? \[?worker_base\.py:\d+\]")
# vLLM V1's engine core dumping the input of a model step that raised (`Dumping input data for
# V1 LLM engine (v...) with config: ...`, dump_input.py): EngineCore.log_error_detail wraps only
# the execute_model of a scheduled step, prints this and re-raises into the busy loop, which
# has no handler for it: the engine core is dying in serving (a paste often stops at this line,
# before the config dump and the traceback that follow it; vLLM-Ascend and upstream V1). Its
# last part, `Dumping scheduler stats: SchedulerStats(...)` (S.STEP_STATS_DUMP), says the same.
_STEP_FAILED_DUMP = re.compile(r"Dumping input data(?: for V1 LLM engine\b|\s*$)")
# torch's NCCL watchdog numbering the collective it caught (torch 2.4 on: `Exception (either an
# error or timeout) detected by watchdog at work: 9301`, `Timeout at NCCL work: 9301`), the same
# sequence number as older builds' `WorkNCCL(SeqNum=9301, ...)`
_WATCHDOG_WORK = re.compile(r"\b(?:detected by watchdog at|Timeout at NCCL) work: (\d+)")

# Frames of code that runs only on requests, beyond S.FRAME_PHASES' engine loops (a fragment
# through them was serving; for SGLang the warmup request takes the same path, so startup markers
# before the failure still cap them at warmup, see _phase):
# - vLLM V0's AsyncLLMEngine: the background loop starts at the first request, and its done
#   callback (`_raise_exception_on_finish`, "Task finished unexpectedly") or a request's abort
#   (`_engine_abort`) run only once it did
# - vLLM V0's workers (0.5-0.6, multiproc and Ray): the executor starts the workers'
#   `start_worker_execution_loop` from its execute_model, and a worker's `execute_model` runs a
#   scheduled step (profiling and capture call the model runner directly)
# - SGLang's scheduler turning a batch into a forward: `run_batch`, `get_model_worker_batch`
# - an RL trainer driving the engine as its rollout (verl's `RayPPOTrainer.fit`, its workers'
#   `generate_sequences`): the engine was built before the training loop
# - SGLang's scheduler entering its loop (2026 builds: `run_scheduler_process` ->
#   `scheduler.run_event_loop()`, which picks event_loop_normal / overlap / pp), and merging a
#   finished prefill into the running batch (`merge_batch` of ScheduleBatch or of the
#   speculative batch info, eagle_info.py): the loop runs only once the scheduler is built
_SERVING_WORK_FRAMES = re.compile(
    r"async_llm_engine\.py:(?:_raise_exception_on_finish|_engine_abort)$"
    r"|worker_base\.py:(?:start_worker_execution_loop|execute_model)$"
    r"|scheduler\.py:run_batch$|schedule_batch\.py:get_model_worker_batch$"
    # (and its policy admitting a request or its chunk to a prefill batch, schedule_policy.py's
    # PrefillAdder: add_one_req, add_first_chunk_req; not the policy's construction at init,
    # nor the check of the policy's name that construction runs, _validate_and_adjust_policy:
    # eq108; and the result of a batch being processed: process_batch_result_prefill /
    # _decode, in scheduler_output_processor_mixin.py and 2026's scheduler_components/)
    r"|/schedule_policy\.py:(?!__init__$|_validate\w*$)\w+$|:process_batch_result\w*$"
    r"|(?:scheduler\.py|<call>):run_event_loop$|(?:schedule_batch|_info)\.py:merge_batch$"
    r"|ray_trainer\.py:fit$|:generate_sequences$"
    # (ms-swift's inference engines - swift/llm/infer/infer_engine/vllm_engine.py,
    # sglang_engine.py - running requests through a built engine: infer, infer_async)
    r"|/infer_engine/\w+_engine\.py:_?infer\w*$"
    # - vLLM V0's speculative decoding (spec_decode/, 0.4-0.6): SpecDecodeWorker.execute_model
    #   and the proposal / scoring / verification of a step it runs (`_run_speculative_decoding_
    #   step` -> the scorer's `score_proposals`); its KV sizing and capture go through the
    #   target and draft workers' own methods, so only a scheduled batch reaches these
    r"|spec_decode/spec_decode_worker\.py:(?:execute_model|_run_speculative_decoding_step"
    r"|_run_no_spec|_run_non_driver_rank|_verify_tokens)$"
    r"|spec_decode/\w+\.py:score_proposals$"
    # - SGLang 0.1.x (router era): the router's RPC into the model worker, `exposed_step` ->
    #   `forward_step` -> `forward_fill_batch` / `forward_decode_batch` (managers/router/
    #   model_rpc.py), runs a batch of received requests; the worker's init is `exposed_init_*`
    r"|router/model_rpc\.py:(?:exposed_step|forward_step|forward_fill_batch"
    r"|forward_decode_batch)$"
    # a request being answered (none is sent before ready: vLLM sends no warmup request, and
    # SGLang's warmup request is capped at warmup by the markers before it, see _phase):
    # - vLLM's OpenAI layer (entrypoints/openai/serving_*.py to 2025, <kind>/serving.py in 2026
    #   builds) and SGLang's (srt/entrypoints/openai/serving_*.py): the handlers, not __init__
    r"|/entrypoints/openai/(?:serving_\w+|\w+/serving)\.py:(?:create_\w+|_create_\w+"
    r"|\w+_(?:stream|full)_generator|render_\w+_request|_preprocess\w*|_tokenize_prompt\w*"
    r"|_normalize_prompt\w*|_validate_input|_check_model|handle_request|_handle_\w+_request)$"
    # - their routes: vLLM's api_server.py (not create_server_socket, a startup step),
    #   SGLang's http_server.py (not health_generate, a probe) and its old openai_api adapter
    r"|api_server\.py:(?:create_(?:chat_completion|completion|embedding|transcription|response)s?"
    r"|generate)$|http_server\.py:(?:(?:serve_)?generate_request|openai_v1_\w+|v1_\w+)$"
    r"|openai_api/adapter\.py:v1_\w+$"
    # - vLLM V0's AsyncLLMEngine taking a request (generate, its stream's generator), the MQ
    #   client (engine/multiprocessing/client.py) and the 0.5 RPC server passing one on
    r"|async_llm_engine\.py:(?:generate|generator|add_request(?:_async)?|encode)$"
    r"|multiprocessing/client\.py:(?:_process_request|generate|encode)$"
    r"|/rpc/server\.py:generate$"
    # - SGLang's offline benchmark stepping its batches once the model runner is built
    #   (bench_latency.py / bench_one_batch.py: latency_test -> run_once, correctness_test), and
    #   its diffusion runtime's offline generator (multimodal_gen/.../diffusion_generator.py
    #   generate) and scheduler handling a generation request
    r"|/sglang/bench_(?:latency|one_batch)\.py:(?:run_once|latency_test\w*|correctness_test)$"
    r"|/multimodal_gen/runtime/entrypoints/\w+\.py:generate$"
    r"|/multimodal_gen/runtime/managers/scheduler\.py:(?:_handle_generation"
    r"|_dispatch_single_request)$"
    # - offline vLLM: LLM.generate/chat/encode running the built engine over prompts, once
    #   they are handed to it (llm.py, 2026's entrypoints/common/offline.py: _add_request,
    #   _run_engine); not the prompts' rendering and checks before that (offline.py's
    #   _preprocess_* / _render_*, the renderers, the chat template): nothing reached the
    #   engine, which is up and idle (ca106, df102, df104)
    r"|entrypoints/llm\.py:(?:_run_engine|_validate_and_add_requests|_add_request)$"
    r"|entrypoints/common/offline\.py:_run_engine$"
    # - SGLang's offline Engine taking a script's call (engine.generate / encode, S.
    #   OFFLINE_ENGINE_CALL): only an Engine whose constructor returned takes one, and the
    #   call goes straight to its request handler (ca114, df106: labelled serving)
    r"|/srt/entrypoints/engine\.py:(?:async_)?(?:generate|encode|score|rerank)$"
    # - SGLang's tokenizer manager handling a request (tokenizer_manager.py; the health probe's
    #   request comes through http_server.py:health_generate, not listed, and after ready), or
    #   a request's abort (a client gone, a timeout: only a request in flight is aborted)
    r"|tokenizer_manager\.py:(?:generate_request|_wait_one_response|_handle_batch_request"
    r"|_send_one_request|_tokenize_one_request|_handle_abort_req|abort_request)$"
    # - SGLang's detokenizer loop handling a batch's output (detokenizer_manager.py event_loop:
    #   it idles in recv until a batch runs; like the scheduler's loop, capped at warmup by
    #   startup markers before it), and the EAGLE workers' draft extend after a decode step
    #   (`_draft_extend_for_decode`, `forward_draft_extend_after_decode`) and their verify step
    #   of the target's output (`verify`, the hybrid models' `_mamba_verify_update`): the capture
    #   runs its own graph runners over the model, not these
    r"|detokenizer_manager\.py:event_loop$"
    r"|/speculative/\w+\.py:(?:_draft_extend_for_decode|forward_draft_extend_after_decode"
    r"|verify|_mamba_verify_update)$"
    # - a scheduled step's own work: vLLM V0 multi-step decoding advancing its inputs between
    #   steps (advance_step of the attention metadata / _custom_ops, multi_step_model_runner;
    #   profiling and capture call the base runner), and penalties applied to a batch's logits
    #   (V1 ops/penalties.py apply_all_penalties, layers/utils.py apply_penalties: the profiling
    #   sampler run sets no penalties and returns before them)
    # - a step of scheduled requests below the loops: vLLM V1's EngineCore.step and the
    #   scheduler's schedule / update_from_output it calls (v1/engine/core.py, v1/core/sched/),
    #   the core taking a request in (add_request, preprocess_add_request), V0's LLMEngine.step
    #   and its scheduler (engine/llm_engine.py, core/scheduler.py): only a step calls them
    r"|/v1/engine/core\.py:(?:step|add_request|preprocess_add_request)$"
    r"|/v1/core/sched/\w+\.py:(?:schedule|update_from_output)$"
    # - vLLM V1's Ray executor handing the engine core's busy loop the future of a step's
    #   output (FutureWrapper.result in v1/executor/ray_utils.py, ray_distributed_executor.py:
    #   "to meet the interface of .execute_model()", pipeline parallelism's batch queue)
    r"|/v1/executor/ray_\w+\.py:result$"
    r"|/engine/llm_engine\.py:(?:step|_process_model_outputs|add_request|_add_processed_request)$"
    # - vLLM V1's input processor checking a request's prompt (process_inputs, called by
    #   add_request of LLM and AsyncLLM: only with a request to add)
    r"|/v1/engine/\w*processor\.py:(?:process_inputs|_validate_model_inputs?)$"
    r"|/core/scheduler\.py:(?:schedule|_schedule\w*)$"
    r"|:advance_step\w*$|ops/penalties\.py:apply_all_penalties$"
    r"|layers/utils\.py:(?:apply_penalties|get_token_bin_counts_and_mask)$"
    # - vLLM's runner computing the prompt logprobs a request asked for (V1 gpu_model_runner
    #   `_get_prompt_logprobs_dict`: the profile and capture runs ask for none)
    r"|model_runner\.py:_get_prompt_logprobs\w*$"
    # - vLLM V1's runner stepping a scheduled batch: gpu_model_runner's execute_model, and
    #   vLLM-Ascend's model_runner_v1 (execute_model -> _process_reqs); the profile run and the
    #   capture go through _dummy_run (V0's profile_run calls execute_model: not listed)
    r"|/v1/worker/gpu_model_runner\.py:execute_model$"
    # - vLLM V1's worker sampling a scheduled step's tokens (0.11 on: the engine core calls
    #   `sample_tokens(grammar_output)` after execute_model, gpu_worker.py -> the runner's; the
    #   profile run samples through `_dummy_sampler_run`, the capture samples nothing; the V2
    #   runner's sampler warm-up goes through it too, under compile_or_warm_up_model, which
    #   caps the frames at warmup: _frame_phase)
    r"|/v1/worker/gpu_(?:worker|model_runner)\.py:sample_tokens$"
    # - vLLM V1's structured-output manager compiling the grammar of a request that asked for
    #   one (v1/structured_output/__init__.py `_create_grammar` / `grammar_init`, then the
    #   backend's compile_grammar): only clients' requests carry a grammar, as SGLang's below
    r"|/v1/structured_output/__init__\.py:(?:_create_grammar|grammar_init)$"
    r"|/worker/model_runner_v1\.py:(?:execute_model|_process_reqs)$"
    # - a data-parallel rank with nothing scheduled stepping a dummy batch in lockstep with
    #   ranks that have requests (V1's DP engine core -> the worker's execute_dummy_batch; upstream
    #   and vLLM-Ascend): only while some rank serves
    r"|worker\w*\.py:execute_dummy_batch$"
    # - SGLang's scheduler moving requests whose grammar finished compiling into the waiting
    #   queue (structured output): only clients' requests carry a grammar
    r"|scheduler\.py:move_ready_grammar_requests$"
    # - a trainer pushing new weights into the running engine (RL refits: verl's
    #   update_weights_from_ipc, SGLang's update_weights_from_tensor / _disk / _distributed,
    #   NeMo-RL's update_weights_via_ipc_zmq; the group they go over, SGLang's
    #   init_weights_update_group): only a built engine takes them, between rollouts
    # (and the bare name RL frameworks give the method they run on vLLM's workers, OpenRLHF's
    # WorkerWrap.update_weight)
    r"|:update_weights?(?:_(?:from|via)_\w+)?$|:init_weights?_update_group$")
# Frames of one startup phase beyond S.FRAME_PHASES:
# - a quantization config choosing the method of a layer being built (`get_quant_method`, called
#   from LinearBase / FusedMoE / embedding constructors in vLLM's and SGLang's layers/
#   quantization/): the model is being constructed by the loader, weight loading
# - the Gaudi (HPU) model runner's graph warmup (vLLM's HPU fork and vllm-gaudi: `warmup_model`
#   -> `warmup_graphs` -> `warmup_scenario`, run from the worker's compile_or_warm_up_model
#   after the KV cache is allocated): warmup, as that container is read elsewhere; not
#   `warmup_scenario` by itself, which the memory profile run (profile_run) calls too
_STARTUP_FRAMES = (
    (Phase.WEIGHT_LOADING, re.compile(r"/layers/quantization/[\w/]+\.py:get_quant_method$")),
    (Phase.WARMUP, re.compile(r"hpu\w*\.py:warmup_(?:model|graphs)$")),
    # - TPU runners precompiling the model over its padded shapes, their counterpart of graph
    #   capture (both called from the worker's capture_model step): tpu-inference's
    #   runner/compilation_manager.py (`_run_compilation`, `model_fn_wrapper`, `_precompile_*`)
    #   and vLLM's own v1/worker/tpu_model_runner.py `_precompile_*`
    (Phase.CUDA_GRAPH_CAPTURE,
     re.compile(r"/compilation_manager\.py:|tpu_model_runner\.py:_precompile_\w+$")),
    # - vLLM V0's model runners running the model (`ModelRunner.execute_model`; the CPU, XPU,
    #   HPU runners alike): first from the memory profile run that sizes the KV cache - the
    #   driver calls it on every worker only once every worker's load_model returned - then for
    #   served steps. At least kv_cache_alloc, whatever rank a worker's line showed loading
    #   (V1's gpu_model_runner.execute_model is serving, above)
    (Phase.KV_CACHE_ALLOC, re.compile(r"/worker/\w*model_runner\w*\.py:execute_model$")),
)
_FRAME_PHASES = (*S.FRAME_PHASES, (Phase.SERVING, _SERVING_WORK_FRAMES), *_STARTUP_FRAMES)


def _frame_gate(patterns: Iterable[re.Pattern[str]]) -> re.Pattern[str] | None:
    """One search, on a lowercased frame, for every literal that any of ``patterns`` needs to
    match (needles.py); None when one of them needs none. Most frames (torch's, asyncio's) hold
    none of the literals: one search then stands for all the frame regexes, and each search,
    however simple, costs about a microsecond here."""
    found = [lowered_needles(rx) for rx in patterns]
    if not all(found):
        return None
    return literal_prefilter(*(n for needles in found for n in needles or ()))


def _may_match(gate: re.Pattern[str] | None, where: str) -> bool:
    """The gate is only sound on ASCII text (IGNORECASE folds a few non-ASCII letters onto
    ASCII ones, ``ſ`` onto ``s``): any other frame is always tried."""
    return gate is None or not where.isascii() or gate.search(where.lower()) is not None


_FRAME_PHASE_GATE = _frame_gate(rx for _, rx in _FRAME_PHASES)
_FRAME_PHASE_GATES = tuple(_frame_gate([rx]) for _, rx in _FRAME_PHASES)
_FRAME_HINT_GATE = _frame_gate(rx for _, rx, _ in S.FRAME_HINTS)
_FRAME_HINT_GATES = tuple(_frame_gate([rx]) for _, rx, _ in S.FRAME_HINTS)

# Where a startup that died was, from what its failure shows beyond frames of one phase:
# - SGLang's advice printed when its piecewise CUDA graph fails (PIECEWISE_CUDA_GRAPH_CAPTURE_
#   FAILED_MSG, raised from the capture at startup; a runtime recompilation in serving prints
#   it too, after traffic, which keeps the later phase)
_PIECEWISE_ADVICE = "--disable-piecewise-cuda-graph to your launch command"
# - SGLang's `Running FlashInfer autotune with cache: ...` (model_executor/runner/
#   flashinfer_autotune.py): logged from the graph runner's warmup before capture (2026 builds;
#   the model runner's kernel warmup earlier), both after the KV pool exists: at least
#   kv_cache_alloc (a frame of the capture that follows still dates it later)
_SGLANG_AUTOTUNE = "Running FlashInfer autotune"
# (Frames of a model's forward - its layers, attention or GEMM kernels, the torch.compile'd
# graph and inductor's generated code - are not dated: they run in the memory-profiling run,
# the graph capture and every served step alike. A frame of the step that calls them dates the
# run (profile_run, a capture function, a request's handler); the corpus README labels a
# forward alone `launch`, as 21 of the 31 logs that showed one were labelled blind; the other
# ten were relabelled by that rule.)


def _startup_hints(raw: list[str], start: int, engine: str) -> list[Phase]:
    """Phases that a startup's failure shows without a frame of that phase. The advice is
    looked for in the whole region, not only from the first error: it ends the message of the
    exception it is part of, so in a paste that starts inside one rank's error it comes before
    the next rank's `Scheduler hit an exception` (a CI run of 8 ranks pasted from the middle)."""
    hints: list[Phase] = []
    if engine == "sglang" and any(_PIECEWISE_ADVICE in line for line in raw[start:]):
        hints.append(Phase.CUDA_GRAPH_CAPTURE)
    if engine == "sglang" and any(_SGLANG_AUTOTUNE in line for line in raw):
        hints.append(Phase.KV_CACHE_ALLOC)  # reached before the failure, wherever pasted
    return hints


def _raised_by_config_check(scan: Scan, i: int, msg: str) -> bool:
    """The exception line ``msg`` ends a traceback whose innermost frame (a few lines up: its
    source line and carets between) is a configuration check (S.CONFIG_FRAME), or Transformers
    refusing the model's config (S.HF_MODEL_TYPE_LOOKUP; S.HF_CONFIG_ATTRIBUTE called from a
    configuration check)."""
    places = _innermost_places(scan, i)
    if not places:
        return False
    where = places[0]
    if S.SETTINGS_FILE_READER.search(where):
        return True  # (any error reading the launch's own settings file is the file's)
    if S.CONFIG_FRAME.search(where):
        return S.CONFIG_REJECTION.match(msg) is not None
    if S.CLI_FRAME.search(where):
        return S.CLI_REFUSAL.match(msg) is not None
    if "run_batch" in where or "datasets" in where or (
            len(places) > 1 and "run_batch" in places[1]):
        return _batch_files_refused(places, msg)
    if S.HF_MODEL_TYPE_LOOKUP.search(where):
        return msg.partition(":")[0].rpartition(".")[2] == "KeyError"
    if S.HF_CONFIG_ATTRIBUTE.search(where) and S.CONFIG_ATTRIBUTE_MISSING.match(msg):
        return len(places) > 1 and S.CONFIG_FRAME.search(places[1]) is not None
    return False


def _batch_files_refused(places: list[str], msg: str) -> bool:
    """vLLM's offline batch runner (`run_batch -i FILE -o FILE`), or a benchmark tool reading
    its dataset, failing on the files its arguments name: opening one that is not there or
    cannot be written (an OS error raised in its read_file / write_local_file / the dataset's
    loader), or a line of the input that is no request (pydantic's ValidationError as it
    parses one) - the run's own input, as a flag's value."""
    if S.BATCH_FILE_FRAME.search(places[0]):
        return S.FILE_ACCESS_ERROR.match(msg) is not None
    return len(places) > 1 and S.PYDANTIC_VALIDATE_FRAME.search(places[0]) is not None and \
        S.BATCH_FILE_FRAME.search(places[1]) is not None and "ValidationError" in msg


def _json_not_parsed(scan: Scan, msgs: list[str], i: int) -> None:
    """What the JSONDecodeError on line ``i`` could not parse - or what parsed into another
    shape than its reader expects (S.JSON_SHAPE_ERROR), or nested deeper than the decoder
    recurses (`RecursionError: ... while decoding a JSON array`), or could not even read (the
    disk under the file failing: `OSError: [Errno 5] Input/output error` as a model's
    config.json or tokenizer.json is read) - from the first frame of its
    traceback above the json module's own: a model file (a checkpoint reader,
    S.CHECKPOINT_JSON_READER) or a launch argument (a configuration check, S.CONFIG_FRAME:
    SGLang's --json-model-override-args, vLLM's JSON-valued flags). A checkpoint reader's
    statement that walks the launch's overrides (`for key, value in
    model_override_args.items():`, S.OVERRIDES_READ) was handed the argument, not a file."""
    last = i
    for idx, where in reversed(scan.frames):
        if last - idx > 4:
            return
        last = idx
        if where.startswith("<call>:") or S.JSON_FRAME.search(where):
            continue
        if S.CHECKPOINT_JSON_READER.search(where) and not any(
                S.OVERRIDES_READ.search(m) for m in msgs[idx + 1:i]):
            scan.checkpoint_misread.append(i)
        elif S.CONFIG_FRAME.search(where) or S.CHECKPOINT_JSON_READER.search(where):
            scan.config_rejections.append(i)
        return


def _innermost_places(scan: Scan, i: int) -> list[str]:
    """The innermost frame of the traceback that line ``i`` ends (within 4 lines above it) and
    the one that called it (empty if no frame is that close)."""
    out: list[str] = []
    last = i
    for idx, where in reversed(scan.frames):
        if last - idx > 4:
            break
        if not where.startswith("<call>:"):
            out.append(where)
            if len(out) == 2:
                break
            last = idx
    return out


def _fatal_markers(scan: Scan, i: int, msg: str, above: str) -> list[str] | None:
    """Record what a line with a fatal-marker literal proves; the frames list of a faulthandler
    dump's current thread when this line starts one. (A C++ backtrace under a warning of the
    native code, raw line ``above`` - c10d's retry of a connection - proves nothing fatal.)"""
    current: list[str] | None = None
    if S.FAULTHANDLER_CURRENT.match(msg):
        current = []
        scan.current_thread.append((i, current))
    for rx, consequence, literals in S.FATAL_MARKERS_GATED:
        if literals is not None and not holds_any(msg, literals):
            continue
        if rx.search(msg):
            if rx is S.NATIVE_TRACE_HEAD and S.NATIVE_WARNING.search(above):
                break
            scan.fatal.append((i, consequence))
            if rx is S.THREAD_DUMP_HEAD:
                scan.thread_dumps.append(i)
                if S.TIMER_DUMP_HEAD.search(above.strip()):
                    scan.timer_dumps.append(i)
            if rx is S.SHELL_KILLED and scan.shell_killed is None:
                scan.shell_killed = i
            # (each report that names a phase is also a marker: asked only of a marker's line)
            for phase, report in S.FATAL_REPORT_PHASES:
                if report.search(msg):
                    scan.named_phases.append((i, phase))
            break
    if msg.startswith("Fatal Python error:"):
        scan.fatal_python.append((i, msg))
    if S.RANK_DEAD.search(msg):
        scan.rank_dead.append(i)
    return current


def _ready_of_another_server(msgs: list[str], scan: Scan, ready: int) -> bool:
    """A ready line after this run's own HTTP server failed to bind (uvicorn's `[Errno 98]
    error while attempting to bind on address ... address already in use`, then `Waiting for
    application shutdown`): uvicorn gives up on every address once one is refused, so this
    server never listened, and SGLang's ready line - printed once its warmup request to the
    port returns - says that another process holding the port answered it (cw109, dn105: a
    neighbour, an orphan of the run before)."""
    start = max((i for i in scan.run_starts if i < ready), default=0)
    return any(start <= i < ready and _UVICORN_BIND_FAILED.search(msgs[i])
               for i, _ in scan.fatal)


_UVICORN_BIND_FAILED = re.compile(r"\berror while attempting to bind on address\b", re.I)


def _requested_core_shutdown(scan: Scan, i: int, msgs: list[str]) -> None:
    """vLLM V1's engine core logging its own requested shutdown (2026 builds, core.py:
    `Shutdown initiated (timeout=0)`, `Shutdown complete`) just before its client reports the
    process gone (`Engine core proc EngineCore died unexpectedly, shutting down client.`): an
    offline LLM torn down after its run, or a stop; the client's line is the shutdown's
    consequence. Asked only of a line reporting a death, not of every line."""
    for j in range(i - 1, max(-1, i - _SHUTDOWN_SPAN), -1):
        if msgs[j].startswith(("Shutdown initiated (timeout=", "Shutdown complete")):
            scan.stop_at = j
            return


_SHUTDOWN_SPAN = 5  # lines back from the client's report to the engine core's shutdown


def _core_stopped_alone(scan: Scan, i: int, msgs: list[str]) -> None:
    """vLLM's client reporting its engine core gone (2026 builds: `[shutdown] MPClient: engine
    core exited unexpectedly`) after only the engine core logged a signal (`EngineCore: trigger
    received signal=SIGTERM`): the core was stopped or killed alone, not the run - a death,
    not a stop. A stop of the whole run makes the API server begin its own shutdown (`API
    server: shutdown triggered`) before the core is gone, and its client then expects the
    exit. So does the signal reaching the workers too (a worker gone on its own with exit code
    0 or -15 before the core asked, `Worker proc VllmWorker-0 died unexpectedly (exit code:
    0)`): the whole group was signalled (`timeout`, `docker stop`) while the API server was
    still waiting for its core, before its own handler was up. Asked only of the client's
    line."""
    stop = scan.stop_at
    if stop is None or "EngineCore" not in msgs[stop]:
        return
    if not any("API server" in m or "shutdown triggered" in m or
               "died unexpectedly" in m and _WORKER_SIGNALLED.search(m) for m in msgs[stop:i]):
        scan.stop_at = None


# a vLLM worker that exited cleanly or of SIGTERM by itself: it got the stop signal too
_WORKER_SIGNALLED = re.compile(r"Worker proc \S+ died unexpectedly \(exit code: (?:0|-15)\)")


def _client_closed_its_engine(scan: Scan, msgs: list[str]) -> bool:
    """vLLM's client closing its own engine core with nothing wrong anywhere: an offline `LLM`
    at the script's end or its `del` (`[shutdown] Process manager: send sigterm to process
    EngineCore`, the core's `trigger received signal=SIGTERM`, the client's own `engine core
    exited unexpectedly; starting cleanup` on its way to `MPClient: complete`). No error line,
    no exception, no death reported before the teardown nor any but the client's after it: the
    teardown was asked for - a stop, not a death. (The API server tearing its core down for an
    error of its own prints that error, and is a death.)"""
    t = scan.own_teardown
    if t is None or scan.exceptions or scan.tracebacks:
        return False
    return all(i > t and "exited unexpectedly" in msgs[i] for i, *_ in scan.fatal) and \
        not any(sig.fatal for sig, _ in scan.hits)


def _scheduler_stopped_alone(scan: Scan, i: int, msgs: list[str]) -> None:
    """SGLang's launcher reporting its scheduler dead (`Rank 0 scheduler died during
    initialization (exit code: 1)`) after the only stop the log shows was the scheduler's own
    Ctrl-C (`KeyboardInterrupt` ending its traceback): the signal reached that process alone,
    and the launcher died of losing it - a death, not a stop. A Ctrl-C of the whole run ends
    the launcher in its own KeyboardInterrupt (two in the log), and its scheduler's death is
    then no failure. Asked only of the launcher's line."""
    stop = scan.stop_at
    if stop is None or not msgs[stop].startswith("KeyboardInterrupt"):
        return
    if not any(m.startswith("KeyboardInterrupt") for m in msgs[stop + 1:i]):
        scan.stop_at = None


def _shapes_not_the_models(scan: Scan, i: int, msg: str) -> None:
    """A tensor-shape mismatch raised by a weight loader (S.SHAPE_MISMATCH under
    S.WEIGHT_LOADER_FRAME): the checkpoint does not hold the model its config describes; or
    as a LoRA adapter's tensors are placed (S.LORA_PLACEMENT_FRAME): an adapter made for
    another base model."""
    places = _innermost_places(scan, i)
    if places and (S.WEIGHT_LOADER_FRAME.search(places[0]) or
                   S.LORA_PLACEMENT_FRAME.search(places[0])) and S.SHAPE_MISMATCH.search(msg):
        scan.checkpoint_misread.append(i)


def _lifecycle(scan: Scan, i: int, msg: str, msgs: list[str]) -> None:
    """A requested stop, or the interpreter's exit-time output (leaked-semaphore warnings,
    ``Fatal Python error: ... at interpreter shutdown``): after these, tracebacks are shutdown
    noise, not failures. vLLM's API server stopping its engine core unasked (2026 builds:
    `[shutdown] Process manager: send sigterm to process EngineCore`, with no stop before it:
    its own error tears the engine down, and the traceback follows) makes the core's `trigger
    received signal=SIGTERM` that teardown's echo, not a stop of the run - unless the traceback
    that follows is a Ctrl-C's: a `KeyboardInterrupt` with nothing raised since the teardown
    but the cancelled awaits it interrupted (a SIGINT to the API server alone, held by its
    event loop until the engine was up, dl102). Then the teardown was the stop."""
    if scan.stop_at is None and scan.own_teardown is None and "send sigterm to process" in msg:
        scan.own_teardown = i
    elif scan.stop_at is None and scan.own_teardown is None and S.STOP_REQUEST.search(msg) \
            and not _library_raised_sigint(scan, msgs, msg):
        scan.stop_at = i
    elif scan.stop_at is None and scan.own_teardown is not None and \
            msg.startswith("KeyboardInterrupt") and \
            all(_CANCELLED.match(msgs[k]) for k, _ in scan.exceptions if k > scan.own_teardown):
        scan.stop_at = scan.own_teardown
    if scan.exit_at is None and S.EXIT_NOISE.search(msg):
        scan.exit_at = i - 1 if msg.startswith("Python runtime state") else i


def _library_raised_sigint(scan: Scan, msgs: list[str], msg: str) -> bool:
    """A KeyboardInterrupt no person sent: OpenBLAS, when it cannot start its threads at load
    (`blas_thread_init: pthread_create failed for thread 1 of 2: Operation not permitted`: a
    seccomp filter denying clone3, a pids limit), prints why and raises SIGINT in its own
    process, and Python turns it into a KeyboardInterrupt wherever the import was (gu106). Its
    lines come just before the traceback the interrupt ends: a failure, not a stop."""
    if not msg.startswith("KeyboardInterrupt"):
        return False
    start = scan.tracebacks[-1] if scan.tracebacks else len(msgs)
    return any(_BLAS_THREADS_FAILED in m for m in msgs[max(0, start - 8):start])


# OpenBLAS's report of a thread it could not start (driver/others/blas_server.c)
_BLAS_THREADS_FAILED = "blas_thread_init: pthread_create failed"


# what an interrupted await raises (asyncio's, in the chain a Ctrl-C's traceback ends)
_CANCELLED = re.compile(r"(?:asyncio\.(?:exceptions\.)?)?CancelledError\s*$")


def _check_slow_load(scan: Scan, i: int, msg: str) -> None:
    m = S.SHARD_TIMING.search(msg)
    if m is None:
        return
    elapsed = _seconds(m[3])
    remaining = _seconds(m[4]) if "?" not in m[4] else 0
    per_shard = float(m[5]) if m[5] else 0.0
    if elapsed + remaining >= S.SLOW_LOAD_TOTAL_S or per_shard >= S.SLOW_LOAD_PER_SHARD_S:
        scan.slow_load = i


def _seconds(clock: str) -> int:
    total = 0
    for part in clock.split(":"):
        total = total * 60 + int(part or 0)
    return total


# --- the decision -----------------------------------------------------------------------------


def _decide(raw: list[str], msgs: list[str], scan: Scan, engine: str,
            exit_code: int | None, settings: Mapping[str, str] | None = None) -> Verdict:
    ready = scan.ready_index
    if ready is not None and scan.api_servers_pending is not None:
        ready = None  # the engines are up; the API servers that serve them were not yet
    if ready is not None and _ready_of_another_server(msgs, scan, ready):
        ready = None
    last_activity = scan.activity[-1] if scan.activity else -1
    closed = scan.stop_at is None and _client_closed_its_engine(scan, msgs)
    if closed:
        scan.stop_at = scan.own_teardown

    fatal = _fatal(scan, last_activity, _survived_before(scan, msgs, last_activity)
                   | _thread_deaths_outlived(scan, msgs))
    after = ready if ready is not None else -1
    # a fragment that starts mid-run (no startup marker, traffic later on: midrun.py) was up
    # from its first line: a report of a death printed before the traffic that shows it (vLLM
    # V0's `MQLLMEngine is already dead` above the 500 of the request in flight) is the death of
    # a ready server. Only a death report: a root error line there (an unhealthy probe, a
    # request's error) may have been survived, as the traffic after it shows.
    midrun = ready is not None and scan.first_marker is None
    # (up by a request's traceback: from the fragment's first line, as the request came in
    # before its traceback began - the engine's death that it carries counts)
    by_request = midrun and (scan.request_frames or [None])[0] == ready
    fatal_after = [f for f in fatal if f[0] > after or (midrun and f[1]) or by_request]
    if not fatal_after and ready is None:
        fatal_after = _error_end(raw, msgs, scan)
    if not fatal_after and scan.frames:
        fatal_after = _cut_at_engine_dead(raw, scan)
    if not fatal_after and ready is not None:
        fatal_after = _dead_engine_shutdown(msgs, scan)
    if not fatal_after and engine == "vllm":
        fatal_after = _failed_step_dump(raw, scan.stop_at)
    if not fatal_after and ready is None and scan.stop_at is None:
        scan.stop_at = _ctrl_c_echo(raw)  # (a ready log stopped is ready all the same)
    stopped = scan.stop_at is not None and not fatal_after

    if fatal_after:
        outcome = Outcome.CRASHED
    elif ready is not None and not (scan.dump_frames and _dumped_after_last_progress(
            scan, msgs, last_activity, stopped)):
        outcome = Outcome.READY
    else:
        outcome = Outcome.INCOMPLETE
    if outcome is not Outcome.CRASHED and exit_code is not None and exit_code not in _STOP_CODES:
        outcome = Outcome.CRASHED

    # A log with no marker, no traffic, no dating frame or message stays in LAUNCH, fragment or
    # not. Live that is exact (the run is seen from its first line). Offline, most such files
    # are fragments without a run's beginning, yet of the 70 undated fragments among the 210
    # labelled logs 47 are labelled launch: what gets pasted is the error of a launch that
    # failed (argparse, imports, rendezvous, engine init). Defaulting them to serving turned 52
    # right verdicts wrong for 7 wrong ones right; only for a cause of unknown, 22 for 7; also
    # guarded by launch evidence (init frames and failures, tracebacks), 7 for 6. A later phase
    # comes only from evidence: frames, PHASE_MESSAGES, causes that imply one, traffic.
    tracker_phase = scan.final_phase
    deaths = [i for i, consequence in fatal_after if consequence]
    if deaths:
        tracker_phase = _phase_at(scan, deaths[0])
        if midrun and scan.phases and deaths[0] < scan.phase_lines[0]:
            tracker_phase = scan.phases[0]  # up from the first line: as its traffic first shows
        if by_request:
            tracker_phase = scan.final_phase  # up and serving a request: its death came there
    if stopped and outcome is Outcome.INCOMPLETE:
        # stopped on request before it was ready: neither a failure nor a success
        ev = [i for i in (scan.stop_at, scan.last_marker) if i is not None]
        return Verdict(engine, outcome, tracker_phase, None, evidence_lines(raw, msgs, ev))
    if outcome is Outcome.READY:
        if tracker_phase.rank < Phase.WARMUP.rank:
            # up by a sign that comes only after the engine's init (vLLM's API server listing
            # its routes once the engine core reported ready) in a paste that lost the lines
            # between: profile, KV cache, capture and warmup were all done. (Not the tracker's
            # doing: route lines are many, and a run seen live has every line before them.)
            tracker_phase = Phase.WARMUP
        if closed and tracker_phase.rank < Phase.READY.rank:
            tracker_phase = Phase.READY  # (its client outlived the engine's construction)
        # (up to the interpreter's exit output, where a run killed while stalled ends; none in
        # a run stopped on request: a stall before the stop is what the operator stopped (b304),
        # and what its shutdown waits on after it - uvicorn holding connections to a drained
        # engine, its stats lines still counting their requests (dh105) - is the stop's)
        stalls = [] if stopped else _trailing_stalls(
            msgs if scan.exit_at is None else msgs[:scan.exit_at])
        if stalls:
            # up, then only stall reports to the end: hung where the tracker was (a file cannot
            # time the silence that follows, nor say why it stalled - but SGLang's own health
            # check failing names it)
            ev = [stalls[0], stalls[-1], *scan.phase_lines[-1:]]
            cause = Cause.HEALTH_CHECK_FAILED if any(
                _HEALTH_CHECK_FAILED in msgs[i] for i in stalls) else Cause.UNKNOWN
            return Verdict(engine, Outcome.INCOMPLETE, tracker_phase, cause,
                           evidence_lines(raw, msgs, ev))
        ev = [i for i in ([ready] + scan.phase_lines[-1:]) if i is not None]
        return Verdict(engine, outcome, tracker_phase, None, evidence_lines(raw, msgs, ev))

    start = after + 1 if outcome is Outcome.CRASHED else 0
    if midrun and fatal_after and fatal_after[0][0] < start:
        # a fragment whose death report comes above the traffic that dates it (vLLM V1's
        # `EngineCore encountered a fatal error` and its traceback, then the API server's last
        # polls): the failure's own lines are above the first traffic too
        start = 0
    region_frames = [(i, w) for i, w in scan.frames if i >= start]
    stepped = any(i >= start for i in scan.step_dumps)
    named = [p for i, p in scan.named_phases if i >= start]
    if outcome is Outcome.CRASHED and ready is None:
        named += _startup_hints(raw, start, engine)
    framed = None if stepped else _frame_phase(region_frames)  # read twice below
    if framed is None and not stepped and outcome is Outcome.CRASHED and engine == "vllm" \
            and _step_dump_lines(raw, scan, start):
        stepped = True  # (only where no frame dates the failure: the dump's own lines)
    if ready is not None and tracker_phase.rank < Phase.WARMUP.rank:
        tracker_phase = Phase.WARMUP  # up before it died: as a ready log is (above)
    if engine == "vllm" and scan.first_marker is not None and not scan.server_up and \
            _idle_output_handler(region_frames):
        # (the engine core died under an API server still starting: nothing was served)
        framed = None if framed is Phase.SERVING else framed
        named = [p for p in named if p.rank < Phase.READY.rank]
    if engine == "vllm" and framed is Phase.SERVING and scan.server_up and \
            tracker_phase.rank < Phase.SERVING.rank and (_idle_busy_loop(region_frames) or (
                scan.first_marker is not None and _idle_output_handler(region_frames))):
        # (the core died reading its input queue on a server that saw no request: neither its
        # loop's frames nor its `EngineCore encountered a fatal error` say one was served; nor
        # does the output handler's EngineDeadError where the core died of a signal while the
        # server sat idle, in a log that shows its startup - so any request before the death
        # - and whose only requests failed after: dl104, in104. A fragment cut below its start
        # line may have served before the cut: gc101)
        framed = None
        named = [p for p in named if p is not Phase.SERVING]
    # (a SGLang node of rank 1 or more never prints the ready line, node 0 alone does: its own
    # "startup over" line says its event loop ran requests, not a warmup of its own)
    in_loop = engine != "vllm" and not (
        ready is None and framed is Phase.SERVING and
        any(S.NON_HEAD_NODE_UP in line for line in raw[start:]))
    phase = _phase(tracker_phase, scan, region_frames, ready is not None, stepped, named,
                   warmup_in_loop=in_loop, framed=framed)

    cands = _candidates(scan, start, region_frames, outcome, phase, exit_code, ready is not None,
                        engine, raw)
    cands += _engine_iteration_timeout(scan, msgs, start)
    if outcome is Outcome.CRASHED and ready is not None:
        cands = _after_ready_if_any(cands, _server_up_line(msgs, ready))
    best = max(cands, key=lambda c: (c.priority, -c.index), default=None)
    cause = best.cause if best else Cause.UNKNOWN

    meet_at = unreachable_own_rendezvous(msgs, scan, best.index) \
        if best and cause is Cause.MULTINODE_RANK_FAILURE else None
    if best and best.priority == S.HOST_ALLOC_PRIORITY and cause is Cause.HOST_OOM_KILLED and \
            any(_KV_ALLOCATION.search(w) for _, w in region_frames):
        # host memory refused to the KV cache's own allocation (vLLM's CPU build keeps the
        # cache in host memory: a cache sized past what the process may have) - the pool's
        # size, not the host's other users
        cause = Cause.KV_CACHE_OOM
    if best and cause is Cause.MODEL_NOT_FOUND and tokenizer_missing_from_model(msgs, scan,
                                                                             best.index):
        cause = Cause.CORRUPT_CHECKPOINT
    elif best and cause is Cause.MODEL_NOT_FOUND and a_benchmarks_dataset(scan, best.index):
        cause = Cause.INVALID_CONFIG
    if best and cause is Cause.INVALID_CONFIG and \
            _own_model_module_failed(msgs, msgs[best.index]):
        cause = Cause.IMPORT_ERROR
    if best and cause is Cause.INVALID_CONFIG and \
            _out_of_descriptors_under_a_generous_limit(msgs, msgs[best.index]):
        cause = Cause.UNKNOWN
    if best and cause is Cause.CORRUPT_CHECKPOINT and weights_of_another_format(
            msgs, scan, best.index, settings_of(msgs, scan, settings)):
        cause = Cause.INVALID_CONFIG
    if best and cause is Cause.WARMUP_FAILED and refused_setting(
            msgs, scan, start, settings_of(msgs, scan, settings)) is not None:
        # SGLang's own warmup request refused for a setting the launch gave (a default
        # sampling parameter misspelt, `--preferred-sampling-params '{"temprature": 0.2}'`:
        # `TypeError: Unexpected keyword argument 'temprature'`): the setting, which the
        # warmup only happened to meet first
        cause = Cause.INVALID_CONFIG
    if best and phase is Phase.LAUNCH and scan.last_marker is None and not framed:
        phase = _implied_phase(best, scan) or phase
    if best and best.cause is Cause.WARMUP_FAILED and phase.rank < Phase.WARMUP.rank:
        # the warmup request is only sent once the server is up: whatever markers the log
        # shows, startup had got that far (the lines in between were trimmed)
        phase = Phase.WARMUP

    evidence = _failure_evidence(raw, msgs, scan, start, best, fatal_after, outcome) or \
        _last_line(raw, msgs)
    if meet_at:
        cause = Cause.INVALID_CONFIG  # (the evidence's connect failures name the address)
    stuck = stuck_meeting_elsewhere(msgs, scan, start) \
        if outcome is Outcome.INCOMPLETE and cause is Cause.UNKNOWN else None
    if stuck is not None:
        # the same launch not yet given up: its rendezvous still retrying that address
        # (the last try and the address: the frames under the tries say nothing more)
        cause, evidence = Cause.INVALID_CONFIG, refusal_evidence(raw, msgs, stuck, (),
                                                                 MEETS_ELSEWHERE)
    if outcome is Outcome.CRASHED and best is None:
        # (no rule named a cause, nor said on purpose that none can be named)
        launch = settings_of(msgs, scan, settings)
        refused = refused_setting(msgs, scan, start, launch) or \
            divided_by_a_zero_setting(msgs, scan, start, launch) or \
            met_a_non_finite_setting(msgs, scan, start, launch)
        impossible = None if refused else impossible_launch(scan, start, launch)
        if refused is not None:
            cause, evidence = Cause.INVALID_CONFIG, refusal_evidence(raw, msgs, refused,
                                                                     evidence)
        elif impossible is not None:
            cause, evidence = Cause.INVALID_CONFIG, refusal_evidence(
                raw, msgs, impossible, evidence, ASKED_FOR_NO_PROCESSES)
        elif phase is Phase.LAUNCH:
            cause = launch_refusal(msgs, scan, start) or cause
        elif phase is Phase.WEIGHT_LOADING and refused_building_the_model(msgs, scan, start):
            cause = Cause.INVALID_CONFIG
    return Verdict(engine, outcome, phase, cause, evidence)


# A process out of file descriptors (`OSError: [Errno 24] Too many open files`), and vLLM's
# start-up warning of the open-files limit the launch gave it (`Found ulimit of 64 and failed to
# automatically increase`): below this, the launch's own setting.
_OUT_OF_DESCRIPTORS = re.compile(r"^(?:\w+\.)*(?:OSError|ZMQError): (?:\[Errno 24\] )?"
                                 r"Too many open files")
_FOUND_ULIMIT = re.compile(r"\bFound ulimit of (\d+) and failed to automatically increase")
_LOW_NOFILE = 1024


def _out_of_descriptors_under_a_generous_limit(msgs: list[str], line: str) -> bool:
    """The engine ran out of file descriptors though its launch's limit, as vLLM warned of it,
    is a generous one (20000 where vLLM asks for 65536): the limit was cut under one of its
    processes from outside (prlimit), or descriptors leaked - no setting of the launch's
    (jb103). A launch given 64 (ax117) is its setting; with no warning, the service's limit
    (LimitNOFILE) is the likeliest, as before."""
    if not _OUT_OF_DESCRIPTORS.search(line):
        return False
    found = next((m for m in map(_FOUND_ULIMIT.search, msgs) if m), None)
    return found is not None and int(found.group(1)) >= _LOW_NOFILE


# vLLM's allocation of the KV cache's tensors (V1's worker utils allocate_kv_cache and the
# model runner's initialize_kv_cache_tensors, V0's CacheEngine._allocate_kv_cache)
_KV_ALLOCATION = re.compile(r":(?:allocate_kv_cache|_allocate_kv_cache\w*"
                            r"|initialize_kv_cache_tensors)$"
                            # ... and SGLang's KV pool making its buffers (memory_pool.py's
                            # _create_buffers, 0.5.x; a CPU host keeps them in host memory:
                            # jb105, under `ulimit -v`)
                            r"|/mem_cache/memory_pool\.py:_create_buffers\w*$")


# Reports of a server that is up but stuck. A log whose lines after its last progress are only
# these ended hung, not ready (each for the kind of log named):
_STALL_REPORT = re.compile(
    # vLLM's message queue: the engine waits on a worker that stopped reading (V1, any fork)
    r"No available shared memory broadcast block found in \d+"
    # vLLM PD disaggregation (NIXL, llm-d): a decode request whose KV blocks never arrive
    r"|is still in WAITING_FOR_REMOTE_KVS state"
    # SGLang PD: a request's bootstrap or KV transfer gave up waiting (not one that failed fast,
    # which a serving PD pair logs and carries on after)
    r"|\b(?:Prefill|Decode) (?:bootstrap|transfer) failed for request .* timed out"
    # SGLang's soft watchdog: the scheduler's batch has not moved (it only warns)
    r"|[Ww]atchdog timeout \(self\.watchdog_timeout=[\d.]+, self\.soft=True\)"
    # SGLang's /health handler getting nothing from the detokenizer (it answers 503 and the
    # server lives on, stalled)
    r"|Health check failed\. Server couldn't get a response"
    # (not SGLang's `Decode out of memory happened. #retracted_reqs`: the scheduler retracts
    # requests under KV pressure and carries on decoding - traffic, not a stall; k115)
    # vLLM's stats (V0 and V1): requests running, or none running while requests queue
    # (V0's `Pending`, V1's `Waiting`: the scheduler admits nothing), and no token in or out
    # since the last line (vLLM 0.1's scheduler printed one figure: `Throughput: 0.0 tokens/s,
    # Running: 0 reqs, Swapped: 0 reqs, Pending: 1 reqs`)
    r"|(?:Avg prompt throughput: 0\.0 tokens/s, Avg generation throughput|^Throughput): "
    r"0\.0 tokens/s, "
    r"Running: (?:[1-9]|0 reqs?, (?:Swapped: \d+ reqs?, )?(?:Pending|Waiting): [1-9])")
_HEALTH_CHECK_FAILED = "Health check failed"
# What may sit between and after stall reports: a paste's elision marks, a dump's indented or
# thread-header lines (py-spy under a soft watchdog), Ray's own daemons' periodic lines
# (`[2024-02-23 14:23:05,101 E 2215919 2215949] (raylet) file_system_monitor.cc:111: ...`),
# a Python warning's report (`.../serving_chat.py:1273: FastAPIDeprecationWarning: ...`)
_ELISION = re.compile(r"\s*(?:\.{3,}|…|\[\.\.\.\])?\s*$|\s|Thread (?:0x)?[0-9a-f]+ "
                      r"|\[[\d-]+ [\d:,]+ [IWE] \d+ \d+\] \((?:raylet|gcs_server)\) "
                      r"|\S+\.py:\d+: \w*Warning: ")


def _trailing_stalls(msgs: list[str]) -> list[int]:
    """Indices of the stall reports that end the log, when nothing but them (and elisions or
    dump lines) follows its last other line; empty otherwise."""
    found: list[int] = []
    for i in range(len(msgs) - 1, -1, -1):
        msg = msgs[i]
        if _STALL_REPORT.search(msg):
            found.append(i)
        elif not _ELISION.match(msg):
            break
    return found[::-1]


def _phase_at(scan: Scan, index: int) -> Phase:
    """The markers' phase when the first report of a dead process was printed (a consequence
    line: a root error's header may head a paste whose earlier lines follow it, so it does not
    date the death). What a launcher prints after its ranks died (SGLang's parent starting the
    HTTP server once every scheduler has exited, a wrapper's teardown) is not progress of the
    run that died: a late marker does not move the crash past the phase it happened in."""
    phase = Phase.LAUNCH
    for i, p in zip(scan.phase_lines, scan.phases):
        if i > index:
            break
        phase = p
    return phase


def _last_line(raw: list[str], msgs: list[str]) -> tuple[str, ...]:
    """Where a log with no marker or error line ends: its last line that is not a dump."""
    for i in range(len(raw) - 1, -1, -1):
        ev = evidence_lines(raw, msgs, [i])
        if ev:
            return ev
    return ()


def _survived_before(scan: Scan, msgs: list[str], last_activity: int) -> set[int]:
    """The lines of the tracebacks after the last progress whose error the run already met
    before it - the same exception line, word for word, with progress after it: an error the
    process logs and goes on from (SGLang's metrics exporter failing to write each request's
    record to a full disk, then serving the next request), not its death."""
    if last_activity < 0 or not scan.exceptions or scan.exceptions[-1][0] <= last_activity:
        return set()
    before = {msgs[i].strip() for i, wrapper in scan.exceptions
              if i < last_activity and not wrapper}
    out: set[int] = set()
    for i, wrapper in scan.exceptions:
        if i > last_activity and not wrapper and msgs[i].strip() in before:
            head = _traceback_of(scan, i)
            out.update(range(i if head is None or head <= last_activity else head, i + 1))
    return out


_THREAD_DIED = "Exception in thread "


def _thread_deaths_outlived(scan: Scan, msgs: list[str]) -> set[int]:
    """The lines of a traceback Python printed for one thread's uncaught exception (`Exception
    in thread Thread-1 (_wait_and_warmup):` above it) where the server answered HTTP requests
    after its error line: the thread died, the process did not (jh107: SGLang's warm-up thread
    killed by an API key it could not encode; its server then answered 401, 500 and the
    health probe's 503). A thread's death the process did not outlive is read as before."""
    out: set[int] = set()
    for t in scan.tracebacks:
        if t == 0 or not msgs[t - 1].lstrip().startswith(_THREAD_DIED):
            continue
        end = next((i for i, _ in scan.exceptions if i > t), None)
        if end is None:
            continue
        if any("HTTP/1." in m and parse_access(m) for m in msgs[end + 1:]):
            out.update(range(t - 1, end + 1))
    return out


def _fatal(scan: Scan, last_activity: int, survived: set[int]) -> list[tuple[int, bool]]:
    """(index, consequence) of the lines that prove a death: explicit markers, fatal signatures,
    and tracebacks / exception lines / traceback frames (a log cut inside a traceback) after
    which the log shows no more progress. After a requested stop or once the interpreter is
    exiting, only a message signature still counts (shutdown prints tracebacks of its own); exit
    output followed by an error the process printed as it went is a death in itself, its own
    error unread (torch's `destroy_process_group` warning above the CLI's traceback). Exit output
    with nothing fatal printed anywhere is not: the engines' failures say so (SGLang's scheduler
    exception and `Received sigquit`, vLLM's engine-core traceback), and their processes go
    with only resource_tracker's leaked-semaphore warnings when killed from outside (a harness's
    `kill -9`, a `pkill`, a job killed mid-load: seven labelled logs end so, none a crash); the
    kernel's OOM kill shows as the shell's `Killed`."""
    live = _live_dumps(scan, last_activity) if scan.thread_dumps else set()
    fatal = set(scan.fatal) - live
    stop = _stop_traceback(scan)
    for idx in [*scan.tracebacks, *(i for i, _ in scan.exceptions)]:
        if idx > last_activity and not _of_request(scan, idx) and idx not in stop \
                and idx not in survived:
            fatal.add((idx, False))
    tail = [i for i, _ in scan.frames if i > last_activity and i not in scan.dump_frames
            and i not in survived]
    # (the frames of a live dump at the log's end are its stacks, not a traceback cut short)
    in_live_dump = bool(tail and live) and any(last_activity < i < tail[0] for i, _ in live)
    if tail and not in_live_dump and not _of_request(scan, tail[0]) and tail[0] not in stop:
        fatal.add((tail[0], False))
    if scan.exceptions and scan.exceptions[0] == (scan.first_text, False) and \
            scan.stop_at is None:
        # a paste that begins at its error: an exception line first, before the lines it
        # followed (Xinference's `torch.cuda.OutOfMemoryError: [address=...] CUDA out of
        # memory` above vLLM's `Capturing the model for CUDA graphs`). It is what the paster
        # came for: every labelled log that opens with one is a crash (21 of 21). Not in a
        # run stopped on request: a startup that printed one first and went on was stopped.
        fatal.add((scan.exceptions[0][0], False))
    quiet = min((i for i in (scan.stop_at, scan.exit_at) if i is not None), default=None)
    if quiet is not None:
        real = {i for sig, i in scan.hits if sig.fatal}
        printed = bool(fatal)  # an error printed after the exit output began
        fatal = {f for f in fatal if f[0] < quiet or f[0] in real}
        if scan.stop_at is None and not fatal and printed:
            fatal.add((quiet, True))
    return sorted(fatal)


def _dumped_after_last_progress(scan: Scan, msgs: list[str], last_activity: int,
                                stopped: bool) -> bool:
    """A server up, then an operator's `py-spy dump --pid N` of its processes after its last
    progress, and nothing else: someone looking at why it stopped answering - a stall
    (incomplete), not a server still serving. (The engine's own watchdog dumps on a timer,
    `Pyspy dump for PID`, a look that proves nothing; a dump followed by traffic neither.)"""
    if stopped or max(scan.dump_frames) < last_activity:
        return False
    return any(_OPERATOR_DUMP.search(m) for m in msgs[last_activity + 1:max(scan.dump_frames)])


_OPERATOR_DUMP = re.compile(r"\bpy-spy dump\b.*--pid\b")


def _live_dumps(scan: Scan, last_activity: int) -> set[tuple[int, bool]]:
    """faulthandler's thread dumps that were no death: the run went on after them (a dump on
    SIGUSR1, a debugging timer's); and every dump of a timer shown to repeat (dump_traceback_later
    with repeat=True: one of its `Timeout (0:00:15)!` dumps was followed by progress), the
    last one included. A fatal signal's dump is headed `Fatal Python error:`, a fatal marker of
    its own that stays."""
    live = {i for i in scan.thread_dumps if i < last_activity}
    if any(i < last_activity for i in scan.timer_dumps):
        live.update(scan.thread_dumps)
    return {(i, False) for i in live}


# A traceback's header, which a paste or a store may cut mid-word as the log's last line
# (`[rank0]: Traceback (most recent call las`): a traceback began, as the whole header says.
_TRACEBACK_HEADER = "Traceback (most recent call last):"
# The shell reporting its child's death by a signal under a Chinese locale, as its last line
# (bash's `段错误 (核心已转储)`: Segmentation fault (core dumped); `已杀死`: Killed; `已放弃`:
# Aborted; `总线错误`: Bus error; `非法指令`: Illegal instruction), alone or after the script's
# `run.sh: 行 3: 1234 `. The English words are fatal markers of every line (S.FATAL_MARKERS);
# these are asked of the last line only, as a literal of the per-line gate costs every line.
# (and the shell's `Quit (core dumped)`: its child died of SIGQUIT, asked of the last line only
# for the same reason)
# A Rust panic's report (the runtime's default hook: `thread 'main' panicked at src/x.rs:247:17:`,
# its message, then `note: run with RUST_BACKTRACE=1 ...` or `stack backtrace:` and numbered
# frames `  3: dynamo_run::run::{{closure}}` with their `at src/...` lines): the engines' Rust
# parts and launchers (Dynamo's `dynamo run`, SGLang's router, tokenizers, llguidance) print it as
# they go down. A log that ends inside one ended on that failure, as on an error line.
_RUST_PANIC_TAIL = re.compile(r"\s*(?:\d+: \S|at \S|stack backtrace:$"
                              r"|note: (?:run with `RUST_BACKTRACE|Some details are omitted))")
_RUST_PANIC = re.compile(r"\s*thread '[^']*' panicked at \S")


def _rust_panic_above(msgs: list[str], last: int) -> int | None:
    """The `panicked at` line of the panic report the log ends in, or None: above the report's
    tail (frames, notes), at most three lines of its message."""
    i = last
    while i > 0 and last - i < 400 and _RUST_PANIC_TAIL.match(msgs[i]):
        i -= 1
    for j in range(i, max(i - 4, -1), -1):
        if "panicked at" in msgs[j] and _RUST_PANIC.match(msgs[j]):
            return j
    return None


_QUIT_CORE_DUMPED = re.compile(r"(?:.*: line \d+: +\d+ )?Quit \(core dumped\)")
_LOCALIZED_SHELL_DEATH = re.compile(r"(?:.*: 行 \d+: +\d+ )?"
                                    r"(?:段错误|已杀死|已放弃|总线错误|非法指令)(?:\s.*)?$")


def _ctrl_c_echo(raw: list[str]) -> int | None:
    """The terminal's echo of Ctrl-C at a line's start (`^C`, then whatever the process printed
    as it went down, or on: a router polling its workers) among the log's last lines: the
    operator pressed it. (Asked per log, not per line: a `^` literal in the line gates would be
    met at every caret of Python's tracebacks.)"""
    for i in range(len(raw) - 1, max(len(raw) - _CTRL_C_TAIL, 0) - 1, -1):
        if raw[i].startswith("^C"):
            return i
    return None


_CTRL_C_TAIL = 40


def _error_end(raw: list[str], msgs: list[str], scan: Scan) -> list[tuple[int, bool]]:
    """A startup log (not stopped, not exiting) whose last line states an error
    (S.ENDS_ON_ERROR): it ended on that error, the root of its death."""
    last = len(raw) - 1
    while last >= 0 and not msgs[last].strip():  # (a wrapper with no message is no line)
        last -= 1
    if last < 0 or scan.stop_at is not None or scan.exit_at is not None:
        return []
    line, msg = raw[last], msgs[last]
    # (literals first: most logs end on a line that holds none)
    if ("rocess" in line and S.CHILD_RAISED.match(msg.strip())) or \
            ("frame #" in line and S.NATIVE_FRAME_END.match(msg.lstrip())
             and not _native_trace_of_a_warning(raw, msgs, last)) or \
            ("Traceback (" in line and _TRACEBACK_HEADER.startswith(msg.strip())):
        return [(last, False)]
    if (not line.isascii() and _LOCALIZED_SHELL_DEATH.match(msg.strip())) or \
            ("core dumped" in line and _QUIT_CORE_DUMPED.match(msg.strip())):
        return [(last, True)]
    if _RUST_PANIC_TAIL.match(msg):
        panic = _rust_panic_above(msgs, last)
        return [] if panic is None else [(panic, False)]
    if not ("ERROR" in line or "rror: " in line or "ailed" in line or "FAILED" in line
            or "CRITICAL" in line or "Crash" in line or "shared libraries" in line
            or "(required by" in line):
        return []
    if not msg.strip() or not S.ENDS_ON_ERROR.search(line) or S.NOT_AN_ERROR_END.search(line) \
            or S.BENIGN.search(msg.lower()):
        return []
    if "[W" in line and S.NATIVE_WARNING.search(line):
        # torch's C++ at warning level (`[W1205 16:25:50 socket.cpp:764] [c10d] The IPv4
        # network addresses of (host, port) cannot be retrieved (gai error: -9 ...)`): c10d
        # retrying its rendezvous, a log cut there still retrying, not dead of it
        return []
    return [(last, False)]


def _native_trace_of_a_warning(raw: list[str], msgs: list[str], last: int) -> bool:
    """The C++ backtrace the log ends in is a warning's: torch's c10d prints one under each
    `[W... TCPStore.cpp] ... retrying (try=N, ...)` as it retries a connection, so a log cut
    there is still retrying, not dead of it."""
    i = last
    while i > 0 and (msgs[i].lstrip().startswith(("frame #", "<omitting python frames>"))
                     or not msgs[i].strip()):
        i -= 1
    if not S.NATIVE_TRACE_HEAD.match(msgs[i]):
        return False
    return i > 0 and S.NATIVE_WARNING.search(raw[i - 1]) is not None


def _stop_traceback(scan: Scan) -> range:
    """The lines of the traceback that the stop request ends: a Ctrl-C's `KeyboardInterrupt`
    is the exception line of the stack it interrupted, and that stack is the stop, not a
    death. Empty when the request is no exception line."""
    stop = scan.stop_at
    if stop is None or all(i != stop for i, _ in scan.exceptions):
        return range(0)
    opened = _traceback_of(scan, stop)
    if opened is None:
        return range(stop, stop + 1)
    # (a Ctrl-C reaches every process of the group, and those that print at once interleave:
    # `Traceback ...` twice, then both stacks; the headers before the first exception line
    # are all the stop's)
    exceptions = [i for i, _ in scan.exceptions if i < opened]
    last_exc = max(exceptions, default=-1)
    first = min((t for t in scan.tracebacks if last_exc < t <= opened), default=opened)
    return range(first, stop + 1)


def _chain_start(scan: Scan, head: int) -> int:
    """Where the traceback before the one at ``head`` starts (-1: the log's start): its chained
    predecessor, when Python printed one."""
    return max((t for t in scan.tracebacks if t < head), default=-1)


def _traceback_of(scan: Scan, index: int) -> int | None:
    """The header of the latest traceback at or before the line (None: none before it)."""
    return max((t for t in scan.tracebacks if t <= index), default=None)


def _of_request(scan: Scan, index: int) -> bool:
    """The line is part of the traceback of one request's error that uvicorn logged (the
    latest traceback at or before it is one): not a death."""
    if scan.request_tracebacks and _traceback_of(scan, index) in scan.request_tracebacks:
        return True
    # a traceback through a request handler's frames (S.REQUEST_HANDLER_FRAME), its header and
    # uvicorn's line cut from the paste, of a server that was up before it: SGLang's own warmup
    # request fails a startup through the same handlers
    ready = scan.ready_index
    if ready is None or (ready > index and ready != (scan.request_frames or [None])[0]):
        return False
    requests = _request_frames(scan)
    if not requests:
        return False
    head = _traceback_of(scan, index)
    begin = -1 if head is None else head
    end = min((t for t in scan.tracebacks if t > index), default=scan.frames[-1][0] + 1)
    # (a chained traceback's earlier part - `The above exception was the direct cause` - that
    # ran through the engine's loop: the engine died, and the request only carried it)
    return any(begin < r < end for r in requests) and \
        not any(_chain_start(scan, begin) < r < end for r in scan.loop_frames)


def _frame_phase(frames: list[tuple[int, str]]) -> Phase | None:
    best: Phase | None = None
    container = False
    # each place once: the ranks of a run print the same traceback, and a repeat changes nothing
    for where in dict.fromkeys(where for _, where in frames):
        phases = _place_phases(where)
        if phases is _CONTAINER:
            container = True   # capture, then warmup: what it was doing is in deeper frames
            continue
        for phase in phases:  # the first of _FRAME_PHASES that matches and ranks above best
            if best is None or phase.rank > best.rank:
                best = phase
                break
        if best is Phase.SERVING and not container:
            return best  # no frame phase ranks above it: the frames left cannot change it
    if container and (best is None or best.rank < Phase.CUDA_GRAPH_CAPTURE.rank
                      or best.rank > Phase.WARMUP.rank):
        # (and nothing under the worker's warm-up serves: vLLM's V2 runner warms its sampler
        # up through the worker's own sample_tokens, a serving frame anywhere else)
        return Phase.WARMUP
    return best


# What a place ("file:function") says is a pure function of its text, and the same places
# (the engines' and torch's functions) recur in the tracebacks of run after run: both readings
# of a place are kept for the process (bounded: cleared once it holds _PLACES_KEPT).
_CONTAINER: tuple[Phase, ...] = (Phase.WARMUP,)  # a warmup container (compared by identity)
_PLACE_PHASES: dict[str, tuple[Phase, ...]] = {}
_PLACE_HINTS: dict[str, tuple[Cause, int] | None] = {}
_REQUEST_PLACES: dict[str, int] = {}
_PLACES_KEPT = 20_000


def _matching_phases(where: str) -> tuple[Phase, ...]:
    out: list[Phase] = []
    # each regex asked only where its own literals are (the shared gate lets a place through
    # for any one of them; the serving alternation alone is 2,000 characters of pattern)
    low = where.lower() if where.isascii() else None
    for (phase, rx), gate in zip(_FRAME_PHASES, _FRAME_PHASE_GATES):
        if gate is not None and low is not None and gate.search(low) is None:
            continue
        if rx.search(where):
            out.append(phase)
            if phase is Phase.SERVING:
                break  # it outranks all: _frame_phase never reads past it
    return tuple(out)


def _place_phases(where: str) -> tuple[Phase, ...]:
    """The phases of the _FRAME_PHASES regexes the place matches, in their order (empty for
    none, _CONTAINER for a warmup that runs a capture)."""
    found = _PLACE_PHASES.get(where)
    if found is None:
        if len(_PLACE_PHASES) >= _PLACES_KEPT:
            _PLACE_PHASES.clear()
        if where.endswith(":<module>"):  # an import chain: module code says nothing of the
            found = ()                   # phase (a loader imported while parsing arguments)
        elif "warm_up" in where and S.WARMUP_CONTAINER.search(where):
            found = _CONTAINER
        elif not _may_match(_FRAME_PHASE_GATE, where):
            found = ()
        else:
            found = _matching_phases(where)
        _PLACE_PHASES[where] = found
    return found


def _phase(tracker_phase: Phase, scan: Scan, frames: list[tuple[int, str]],
           was_ready: bool, stepped: bool = False, named: list[Phase] | None = None,
           warmup_in_loop: bool = True, framed: Phase | None = None) -> Phase:
    """The latest of the markers' phase and what the failure shows: its frames (``framed``,
    their _frame_phase), a message raised in one phase only (``named``), or a dump of the step
    of real requests that failed (serving, whatever the markers reached: a fragment that starts
    at the failure has none)."""
    if stepped:
        return Phase.SERVING
    fp = max([p for p in [framed, *(named or ())] if p is not None],
             key=lambda p: p.rank, default=None)
    if fp is None:
        return tracker_phase
    if warmup_in_loop and _marker_before(scan, frames) and not was_ready and \
            fp.rank > Phase.WARMUP.rank and not _offline_engine_call(frames):
        # startup markers say startup was not over: the event loop ran the warmup (SGLang's
        # warmup request goes through its scheduler's loop; vLLM's engine loop only starts once
        # the engine is built and warmed up, and runs only requests: serving). Only a
        # marker counts: an access line alone (a local /health poll at the top of a fragment,
        # which any long run prints) says the HTTP server was up, not that startup was going on
        fp = Phase.WARMUP
    return fp if fp.rank > tracker_phase.rank else tracker_phase


# the HTTP server's own "up" lines: uvicorn's (vLLM's API server, SGLang's) and SGLang's
_SERVER_UP = ("Application startup complete", "fired up and ready to roll")


def _server_up_line(msgs: list[str], ready: int) -> int:
    """The first line from ``ready`` on where the HTTP server says it is up (vLLM's engine
    core reports itself up first, its API server then builds the tokenizer and the routes);
    ``ready`` where none is."""
    return next((i for i in range(ready, len(msgs))
                 if any(word in msgs[i] for word in _SERVER_UP)), ready)


def _after_ready_if_any(cands: list[_Candidate], ready: int) -> list[_Candidate]:
    """A run that came up and then died: the errors its startup logged and passed over (a
    tokenizer folder's config read and given up on, it103) did not stop it then, and a cause
    read after the ready line outranks them; where none is, they stand."""
    after = [c for c in cands if c.index > ready]
    return after or cands


def _offline_engine_call(frames: list[tuple[int, str]]) -> bool:
    """A caller's request through SGLang's offline Engine (`engine.generate(...)` in a
    script: srt/entrypoints/engine.py's generate, encode and their async forms), which only an
    Engine whose constructor returned takes: no warmup request comes that way, so the request
    path it ran is a client's (the offline Engine logs at error level only: no ready line)."""
    return any(S.OFFLINE_ENGINE_CALL.search(where) for _, where in frames)


def _failed_step_dump(raw: list[str], stop: int | None) -> list[tuple[int, bool]]:
    """A line under vLLM V1's dump_input.py logger tag (`ERROR 12-09 14:04:41 [dump_input.py:79]
    ...NewRequestData(req_id=4, ...`), its header and the error cut from the paste: V1 dumps
    the scheduler output of a step only when the step raised, on its way to the engine core's
    fatal error - a death (21 of 21 labelled logs with such lines are crashes in serving). Not
    a dump after a stop request: a Ctrl-C or SIGTERM to the whole group ends the step it
    interrupts (`RuntimeError: cancelled` as the core shuts down, df110) - the stop's."""
    if _DUMP_TAG not in "".join(raw):
        return []
    first = next(i for i, line in enumerate(raw) if _DUMP_TAG in line)
    return [] if stop is not None and stop < first else [(first, False)]


_DUMP_TAG = "[dump_input.py:"


def _step_dump_lines(raw: list[str], scan: Scan, start: int) -> bool:
    """Lines of the dump itself (its config, scheduler output and stats) under the logger tag of
    vLLM V1's dump_input.py, its header line cut from the paste (`ERROR 11-28 13:11:39
    [dump_input.py:79]  dtype=torch.bfloat16), ...`): only a failed step is dumped. Asked of a
    crashed log only, on its raw lines past the last marker (the tag is not in the message; the
    dump comes after every startup marker, where it comes at all)."""
    after = max(start, scan.phase_lines[-1] if scan.phase_lines else 0)
    return _DUMP_TAG in "\n".join(raw[after:])


# vLLM V1's output handler (the API server's task that reads the engine core's outputs)
_OUTPUT_HANDLER = re.compile(r"/v1/engine/async_llm\.py:output_handler$")


def _own_model_module_failed(msgs: list[str], root: str) -> bool:
    """SGLang cannot find the model's architecture (`Cannot find model module. 'MyLlama...' is
    not a registered model`) after its registry skipped a module of a package not its own
    (`Ignore import error when loading mypkg.my_llama: cannot import name ...`: the package
    SGLANG_EXTERNAL_MODEL_PACKAGE names, gz105): the module that would have registered it
    failed to import - import_error, not an architecture the launch got wrong. (SGLang's own
    model files failing to import on this build, sglang.srt.models.mamba and the like, are
    logged in every run and say nothing of the model served.)"""
    if not _ARCH_NOT_FOUND.search(root):
        return False
    return any("Ignore import error when loading" in m and _FOREIGN_MODULE_SKIPPED.search(m)
               for m in msgs)


_ARCH_NOT_FOUND = re.compile(r"Cannot find model module|is not a registered model")
_FOREIGN_MODULE_SKIPPED = re.compile(r"Ignore import error when loading (?!sglang\.)[\w.]+")


def _idle_busy_loop(frames: list[tuple[int, str]]) -> bool:
    """vLLM V1's engine core failing in its busy loop while it read its input queue
    (`_process_input_queue`), not in a step: a worker gone while the server sat idle comes to
    the core as the executor's own failure message (`RuntimeError: Executor failed.`, gs102),
    and the API server's output handler raises EngineDeadError after it. With no request in
    the log, neither loop's frames say a request was served: the server was up, idle."""
    return _serving_frames_all(frames, _IDLE_LOOP) and \
        any(w.endswith(":_process_input_queue") for _, w in frames)


# the two loops of an idle vLLM V1 server: the engine core's busy loop, the output handler
_IDLE_LOOP = re.compile(r"(?:/v1/engine/core\.py|<call>):run_busy_loop$"
                        r"|/v1/engine/async_llm\.py:output_handler$")


def _idle_output_handler(frames: list[tuple[int, str]]) -> bool:
    """The failure's only serving frame is vLLM V1's output handler: up to 0.1x it was started
    by the first request (serving), but later releases start it with the engine client, before
    the API server is up - a core that dies then raises EngineDeadError through it with no
    request in flight. In a log that shows the startup (its markers) and never the server up,
    neither it nor the EngineDeadError says more than the markers do."""
    return _serving_frames_all(frames, _OUTPUT_HANDLER)


def _serving_frames_all(frames: list[tuple[int, str]], rx: re.Pattern[str]) -> bool:
    """The failure has frames that date serving, and every one of them is of ``rx``."""
    serving = [w for _, w in frames if Phase.SERVING in _place_phases(w)]
    return bool(serving) and all(rx.search(w) for w in serving)


def _marker_before(scan: Scan, frames: list[tuple[int, str]]) -> bool:
    """A startup marker came before the failure's frames. One printed only after them is no
    sign that startup was going on when it failed: Ray's deduplicated summary of earlier lines
    (`Capturing batches ... [repeated 22x across cluster]`, printed as the actor dies), or a
    paste that puts the error first and the earlier log after it."""
    first = scan.first_marker
    if first is None:
        first = scan.first_startup_read  # no marker: a stuck warmup batch
    if first is None:
        return False
    return not frames or first < frames[0][0]


def _implied_phase(best: _Candidate, scan: Scan) -> Phase | None:
    if best.cause is Cause.NCCL_TIMEOUT:
        if any(n >= S.SERVING_SEQ_NUM for _, n in scan.seq_nums):
            return Phase.SERVING
        return None
    return best.implies


# the program counter line of abseil's signal report (Ray's failure handler) in NCCL: its API
# (`ncclAllReduce`) or its proxy thread's functions (`addProxyOpIfNeeded`, `ncclProxyProgress`)
_NCCL_PC = re.compile(r"\bPC: @ +0x[0-9a-f]+ .*\b(?:nccl\w+|\w*Proxy\w*)\(\)")


# SGLang's processes that hold no weights and no KV cache (its launcher's names for them)
_SMALL_PROCESS = re.compile(r"\bSubprocess (?:detokenizer|tokenizer\w*) \(pid=")


def _candidates(scan: Scan, start: int, frames: list[tuple[int, str]], outcome: Outcome,
                phase: Phase, exit_code: int | None, was_ready: bool,
                engine: str, raw: list[str]) -> list[_Candidate]:
    cands = [_Candidate(sig.cause, sig.priority, i, sig.implies, True)
             for sig, i in scan.hits if i >= start and not _received_not_read(scan, sig, i)
             and not _foreign_actor(raw, sig, i) and not _inspection_relayed(scan, raw, sig, i)]
    # A traceback through the speculative draft's code that the log cuts before its exception
    # line says where it failed, not why (the draft's code runs the target's kernels,
    # allocators and collectives too): the corpus labels such a log unknown, the draft in
    # `also`. Those frames are read only for what they add to a kernel's index assert above
    # them (_draft_index_fault).
    drafts_cut: list[_Candidate] = []
    last_exception = scan.exceptions[-1][0] if scan.exceptions else -1
    cut: bool | None = None  # the log ends in a traceback cut before its exception (asked once)
    sent = _aborted_together(scan, raw)
    for i, where in _run_frames(frames):
        if i in scan.dump_frames or (sent is not None and i > sent):
            continue
        hint = _frame_hint(where)  # kept per place for the process (ranks repeat places)
        if hint is not None:
            cand = _Candidate(hint[0], hint[1], i)
            if i > last_exception and cut is None:
                cut = _ends_in_cut_traceback(scan, frames, raw)
            (drafts_cut if i > last_exception and (
                cut or hint[0] is Cause.SPECULATIVE_DECODING_ERROR) else cands).append(cand)
    rejections = [i for i in scan.config_rejections if i >= start]
    if rejections:
        cands = _not_the_draft_but_its_arguments(cands, rejections, scan)
    cands.extend(_Candidate(Cause.INVALID_CONFIG, S.CONFIG_REJECTION_PRIORITY, i, Phase.LAUNCH)
                 for i in rejections)
    cands.extend(_Candidate(Cause.CORRUPT_CHECKPOINT, S.CHECKPOINT_MISREAD_PRIORITY, i)
                 for i in scan.checkpoint_misread if i >= start)
    cands.extend(_cut_at_raise(scan, frames))
    cands.extend(_cut_at_raise_statement(scan, frames, raw))
    cands.extend(_bare_assert_by_its_statement(scan, start, raw))
    cands.extend(_keyed_by_a_config_value(scan, start, raw))
    cands.extend(_raised_on_import(scan, start, frames, raw))
    cands.extend(_peer_node_gone(scan, start, raw))
    cands.extend(_draft_index_fault(cands + drafts_cut if drafts_cut else cands))
    if outcome is Outcome.INCOMPLETE:
        if scan.slow_load is not None:
            cands.append(_Candidate(Cause.SLOW_WEIGHT_LOADING, 5, scan.slow_load))
        # A checker's probe of another process failing (a router's `HTTP health check failed
        # for grpc://...` of a worker) in a log that shows no death: the worker had not answered
        # yet, it may still be starting - no failure of the run's own. SGLang's own server
        # failing its check (implies ready) is a started server that stopped answering.
        return [c for c in cands
                if c.cause is not Cause.HEALTH_CHECK_FAILED or c.implies is not None]

    first_fatal = next((i for i, _ in scan.fatal if i >= start), None)
    anchor = first_fatal if first_fatal is not None else start
    # A rank that vanished with SIGKILL and left no traceback: the host's OOM killer. Not
    # SGLang's detokenizer or tokenizer process: the OOM killer takes the process holding the
    # most memory, the scheduler with the weights and the KV pool, never those first - their
    # SIGKILL came from elsewhere (ep104: the detokenizer killed as the thread that started it
    # ended, some 21 GiB free)
    dead = [i for i in scan.rank_dead if i >= start and not _SMALL_PROCESS.search(raw[i])]
    logged = {c for i, c in scan.exit_codes if i >= start}
    codes = logged | ({exit_code} if exit_code is not None else set())
    # (the dead rank's own status where the log gives it - SGLang's `Exit code: -6` under `Rank
    # 0 scheduler is dead` - says how it died; the run's own -9 is then SGLang killing its tree)
    if dead and (logged or codes) & {-9, 137}:
        cands.append(_Candidate(Cause.HOST_OOM_KILLED, 48, dead[0]))
    # The shell's `Killed` with no error of the run's own (no traceback, no exception line, no
    # root error line; only its consequences, workers reporting their parent gone, and SGLang's
    # `Received sigquit` which follows an error of its own): SIGKILL from outside the run, which
    # on an inference host is the kernel's OOM killer (weights and KV cache on top of what else
    # the host holds: a Jetson's shared RAM, a container's memory limit). SGLang's SIGKILL of
    # its own tree prints it too, but after an error. Lowest of all: any cause the lines name
    # wins.
    # Not after SGLang's `Received sigquit from a child process`: its handler kills its own
    # process tree with SIGKILL, and the shell's `Killed` is that, the child's failure unseen.
    killed = scan.shell_killed
    if killed is not None and killed >= start and not scan.tracebacks and \
            not scan.exceptions and all(i == killed or after for i, after in scan.fatal) and \
            not any(i < killed and "sigquit" in raw[i] for i, _ in scan.fatal):
        cands.append(_Candidate(Cause.HOST_OOM_KILLED, 4, killed))
    # A faulthandler dump of a thread copying weights out of mmap'd safetensors: SIGBUS,
    # unless faulthandler names another signal.
    other_signal = any("Bus error" not in m for i, m in scan.fatal_python if i >= start)
    if not other_signal:
        for i, where in scan.current_thread:
            if i >= start and _frame_phase([(i, w) for w in where]) is Phase.WEIGHT_LOADING:
                cands.append(_Candidate(Cause.BUS_ERROR, 25, i))
                break
    # A faulthandler dump of a segfault or abort whose current thread was in a collective
    # (torch.distributed's all_reduce / broadcast / all_gather ..., vLLM's pynccl): the native
    # crash was in the communication library (NCCL crashing with SIGSEGV under SGLang and vLLM
    # ranks), unless faulthandler names a bus error (a mmap'd file, above)
    if other_signal:
        for i, where in scan.current_thread:
            if i >= start and where and S.COLLECTIVE_CALL.search(where[0]):
                cands.append(_Candidate(Cause.NCCL_ERROR, 25, i))
                break
    # abseil's report of a fatal signal whose faulting PC is NCCL's own code (a Ray worker's
    # `*** SIGSEGV received at time=...`, then `PC: @ 0x7f0c73d2944a (unknown)
    # addProxyOpIfNeeded()`): the crash was in the communication library, as above
    for i, _ in scan.fatal:
        if i >= start and "received at time=" in raw[i] and i + 1 < len(raw) and \
                _NCCL_PC.search(raw[i + 1]):
            cands.append(_Candidate(Cause.NCCL_ERROR, 25, i))
            break
    if codes & {-7, 135}:
        cands.append(_Candidate(Cause.BUS_ERROR, 20, dead[0] if dead else anchor))
    if not was_ready:
        # Speculative decoding on and the startup died without a more specific error: the
        # draft model / its KV pool / its graphs are the usual suspects.
        if scan.spec_line is not None:
            cands.append(_Candidate(Cause.SPECULATIVE_DECODING_ERROR, 15, anchor))
        # SGLang died after the weights and before the KV pool was done, and the error itself
        # is not in the log: the pool-sizing check ("Not enough memory") is what fails there,
        # unless SGLang's own report says the weights left most of the memory free.
        # Only when its markers got there (a traceback alone dated by its frames says nothing
        # of the weights being done). (vLLM's phase of the same name also compiles and profiles
        # the model: no such guess.)
        # (Not once SGLang reported the pool made, `KV Cache is allocated` / `Memory pool end`:
        # the sizing check passed, and what failed after it - the attention backend's init,
        # the graphs' setup - is not named by the pool.)
        visible_root = any(i >= start and not w for i, w in scan.exceptions)
        if phase is Phase.KV_CACHE_ALLOC and scan.final_phase is Phase.KV_CACHE_ALLOC \
                and not visible_root and engine == "sglang" and \
                not _weights_left_room(raw, scan) and not any(
                    "Memory pool end" in line or "KV Cache is allocated" in line
                    for line in raw[start:]):
            cands.append(_Candidate(Cause.KV_CACHE_OOM, 12, anchor))
        # SGLang died in CUDA-graph capture at its very first batch, the error text cut off: a
        # kernel that cannot launch at all on this GPU (no kernel image for its architecture)
        # fails there, at SGLang's first forward pass; an OOM would have printed its message.
        # (vLLM runs the model to profile memory before capturing: such a kernel fails there,
        # so its capture dying says nothing of the architecture.)
        # (not where a C++ exception's own message is shown, `terminate called after throwing
        # an instance of ...` then `  what():  ...`: the error is there, and names no cause)
        # Only where the traceback reaches a batch's own capture (`capture_one_batch_size`):
        # one cut in the scheduler's or the runner's constructor shows the capture began, not
        # that the first forward failed (6 of 9 such corpus logs, labelled unknown, are cut
        # there; the two reaching it and labelled unknown are known misses).
        if phase is Phase.CUDA_GRAPH_CAPTURE and not visible_root and scan.capture_started \
                and scan.batches_captured == 0 and engine == "sglang" and \
                not any("what():" in line for line in raw[start:]) and \
                any("capture_one_batch_size" in line for line in raw[start:]):
            cands.append(_Candidate(Cause.UNSUPPORTED_ARCH, 10, anchor))
        # SGLang's own warmup request to its local address timed out (the "warmup error" line
        # itself trimmed away): the warmup failed. Below any message signature: a root error
        # shown elsewhere (a peer's NCCL failure) wins.
        if engine == "sglang":
            timeouts = [i for i in scan.self_timeouts if i >= start]
            if timeouts:
                cands.append(_Candidate(Cause.WARMUP_FAILED, 24, timeouts[0], Phase.WARMUP))
        # uvicorn exits 1 without a traceback when it cannot bind; a traceback (its header,
        # or only its frames in a log cut inside one) or a fatal line (a worker died, the engine
        # core's fatal error) says the exit was something else
        if exit_code == 1 and phase is Phase.WARMUP and not scan.exceptions \
                and not scan.tracebacks and not frames and first_fatal is None:
            cands.append(_Candidate(Cause.PORT_IN_USE, 8, anchor))
    return cands


def _not_the_draft_but_its_arguments(cands: list[_Candidate], rejections: list[int],
                                     scan: Scan) -> list[_Candidate]:
    """A refusal raised by the check of the launch's arguments is the arguments' fault, even
    when the check is the speculative one and its words or frames name the draft (SGLang 0.5's
    speculative_hook.py / spec_info.py handle_server_args: `--speculative-use-rejection-sampling
    is only supported for EAGLE / EAGLE3 / NEXTN`, a bare AssertionError of a missing
    --speculative-num-steps): nothing of speculative decoding ran. The speculative reading of
    that traceback's own lines gives way."""
    spans = []
    for i in rejections:
        head = max((t for t in scan.tracebacks if t < i), default=i)
        spans.append((head, i))
    return [c for c in cands if c.cause is not Cause.SPECULATIVE_DECODING_ERROR
            or not any(lo <= c.index <= hi for lo, hi in spans)]


def _draft_index_fault(cands: list[_Candidate]) -> list[_Candidate]:
    """Kernel index asserts followed by a traceback through the speculative draft's own code
    (SGLang's eagle_draft_cuda_graph_runner capturing, the EAGLE workers; vLLM's spec_decode /
    v1/spec_decode): the draft indexed past a table of the target's (an EAGLE3 draft's vocabulary
    map, the target's hidden-state layers it reads) - the draft does not fit the target, a
    speculative-decoding failure, above the memory-fault reading of the same asserts."""
    index = next((c for c in cands if c.message and c.priority == S.INDEX_ASSERT_PRIORITY
                  and c.cause is Cause.ILLEGAL_MEMORY_ACCESS), None)
    if index is None:
        return []
    draft = next((c for c in cands if not c.message and c.index > index.index
                  and c.cause is Cause.SPECULATIVE_DECODING_ERROR), None)
    if draft is None:
        return []
    return [_Candidate(draft.cause, index.priority + 1, index.index)]


# Code that deserialises what a peer sent, not a file: vLLM's KV-transfer pipes and lookup
# buffers (distributed/kv_transfer/, `_recv_impl` -> pickle.loads of the received bytes; the
# Mooncake and PyNccl pipes of V0 PD disaggregation) and multiprocessing's connection.recv. A
# pickle error raised there (`UnpicklingError: invalid load key`) is bytes from the wire, not a
# checkpoint: the checkpoint signature does not apply.
_RECEIVING_FRAME = re.compile(r"/kv_transfer/[\w/]+\.py:|multiprocessing/connection\.py:recv")


def _foreign_actor(raw: list[str], sig: S.Signature, i: int) -> bool:
    """Ray's `ActorDiedError: The actor died unexpectedly ...` at ``i`` naming, on the lines
    under it, an actor class that is not one of the engine's rank workers (`class_name:
    create_colocated_worker_cls.<locals>.WorkerDict`: verl's trainer worker). The multinode
    reading is for vLLM's Ray ranks on other nodes; another framework's actor dying names no
    cause the log shows."""
    if sig.cause is not Cause.MULTINODE_RANK_FAILURE or S.ACTOR_DIED not in raw[i]:
        return False
    for line in raw[i + 1:i + 3]:
        m = _ACTOR_CLASS.search(line)
        if m:
            return m[1] not in _ENGINE_ACTORS
    return False


_ACTOR_CLASS = re.compile(r"\bclass_name: (?:[\w.<>]+\.)?(\w+)\s*$")
# the engines' own Ray actors: vLLM's rank workers (V0's RayWorkerWrapper, V1's RayWorkerProc)
_ENGINE_ACTORS = frozenset(("RayWorkerWrapper", "RayWorkerProc", "RayWorkerVllm"))


# vLLM's model registry reporting that inspecting the architecture failed (its pydantic
# ModelConfig: `Value error, Model architectures ['X'] failed to be inspected. Please check
# the logs for more details.`) - the inspection ran in a subprocess, whose error it logged above
_INSPECTION_FAILED = re.compile(r"\bfailed to be inspected\b")


def _inspection_relayed(scan: Scan, raw: list[str], sig: S.Signature, i: int) -> bool:
    """The hit at ``i`` is the config validation error that relays vLLM's failed inspection
    of the architecture (the next lines say so), and the inspecting subprocess's own error is
    logged above it: that error, not a value of the launch's, is the cause (es102: an
    out-of-tree model importing a package not installed). Where the log lacks it, or a rule
    names no cause for it (a permission refused, di103), the validation error stands."""
    if sig.cause is not Cause.INVALID_CONFIG or "validation error" not in raw[i]:
        return False
    if not any(_INSPECTION_FAILED.search(line) for line in raw[i + 1:i + 3]):
        return False
    raised = {k for k, wrapper in scan.exceptions if k < i and not wrapper}
    return any(k in raised and other.cause is not Cause.INVALID_CONFIG
               for other, k in scan.hits)


def _received_not_read(scan: Scan, sig: S.Signature, i: int) -> bool:
    """The checkpoint-corruption hit at ``i`` is an exception raised inside a receiving frame
    (the innermost frame within a few lines above it)."""
    if sig.cause is not Cause.CORRUPT_CHECKPOINT or not scan.frames:
        return False
    for idx, where in reversed(scan.frames):
        if idx >= i:
            continue
        if i - idx > 4:
            return False
        if not where.startswith("<call>:"):
            return _RECEIVING_FRAME.search(where) is not None
    return False


# faulthandler's report of a signal (`Fatal Python error: Aborted`); the fatal signals it names
_FAULT_REPORT = "Fatal Python error: "
_FAULT_SIGNALS = ("Aborted", "Segmentation fault", "Bus error", "Floating point exception",
                  "Illegal instruction")


def _aborted_together(scan: Scan, raw: list[str]) -> int | None:
    """The first line of faulthandler's reports of SIGABRT from two processes or more at once
    (their dumps interleave: `Fatal Python error: Fatal Python error: AbortedAborted`), with no
    other fatal signal: an abort sent to the process group from outside (a CI job's `timeout -s
    ABRT`, `kill -ABRT -PGID` for core files: ik103). Each stack under it is where a process
    happened to be, not what failed, so its frames name no cause. (One process aborting dumps
    once; a native abort's own message, `terminate called`, is read by its signature.) The
    reports are counted from the run's start (a restarted run's dumps are its own)."""
    if not scan.thread_dumps:
        return None
    start = max((i for i in scan.run_starts if i < scan.thread_dumps[0]), default=0)
    first = next((i for i in range(start, len(raw)) if _FAULT_REPORT in raw[i]), None)
    if first is None:
        return None
    tail = "\n".join(raw[first:])
    if tail.count(_FAULT_REPORT) < 2 or "Aborted" not in tail or any(
            name in tail for name in _FAULT_SIGNALS[1:]):
        return None
    return first


def _frame_hint(where: str) -> tuple[Cause, int] | None:
    """The cause (and its priority) that the first S.FRAME_HINTS regex matching the frame names
    (kept for the process, as _place_phases)."""
    if where in _PLACE_HINTS:
        return _PLACE_HINTS[where]
    if len(_PLACE_HINTS) >= _PLACES_KEPT:
        _PLACE_HINTS.clear()
    hint = None
    # (an import chain's module code names no cause: SGLang's http_server importing, through
    # dp_attention, the pynccl allocator's module is no NCCL failure)
    if not where.endswith(":<module>") and _may_match(_FRAME_HINT_GATE, where):
        low = where.lower() if where.isascii() else None  # each regex behind its own literals
        hint = next(((cause, prio) for (cause, rx, prio), gate in zip(S.FRAME_HINTS,
                                                                       _FRAME_HINT_GATES)
                     if (gate is None or low is None or gate.search(low)) and rx.search(where)),
                    None)
    _PLACE_HINTS[where] = hint
    return hint


def _run_frames(frames: list[tuple[int, str]]) -> list[tuple[int, str]]:
    """The frames of code that ran: a traceback listing (frames a few lines apart) that shows a
    Dynamo polyfill is the user code Dynamo was tracing (S.DYNAMO_TRACED), left out."""
    blocks: list[list[tuple[int, str]]] = []
    for f in frames:
        if blocks and f[0] - blocks[-1][-1][0] <= 4:
            blocks[-1].append(f)
        else:
            blocks.append([f])
    return [f for b in blocks if not any(S.DYNAMO_TRACED.search(w) for _, w in b) for f in b]


def _cut_at_raise(scan: Scan, frames: list[tuple[int, str]]) -> list[_Candidate]:
    """The log ends inside a traceback whose innermost frame is a function raising only one
    cause's message (S.RAISE_SITES), the exception line cut away: that cause."""
    # (and the call on that frame's source line, where the paste ends before its own frame)
    cut = _cut_frame(scan, frames)
    if cut is None:
        return []
    last = frames[cut]
    called = frames[cut + 1:cut + 2]
    return [_Candidate(cause, prio, i) for i, where in [last, *called]
            for cause, rx, prio in S.RAISE_SITES if rx.search(where)]


def _cut_at_engine_dead(raw: list[str], scan: Scan) -> list[tuple[int, bool]]:
    """A log cut right under a traceback's `raise EngineDeadError(` (vLLM V1's client raising it
    for a request once its engine core is gone: async_llm.py add_request / generate): the
    engine had died - a death's consequence, as the exception line itself is (FATAL_MARKERS)."""
    k = _cut_frame(scan, scan.frames)
    if k is None:
        return []
    source = scan.frames[k][0] + 1
    if source >= len(raw) or len(raw) - source > 3 or "raise EngineDeadError" not in raw[source]:
        return []
    return [(source, True)]


def _dead_engine_shutdown(msgs: list[str], scan: Scan) -> list[tuple[int, bool]]:
    """vLLM's API server shutting its uvicorn down right after a 500 or an exception, near the
    log's end, with no stop asked for before: the launcher's handlers for a dead engine
    (entrypoints/launcher.py: EngineDeadError, AsyncEngineDeadError and the engine's
    RuntimeErrors answer the request 500 and set the server to exit; V0's MQLLMEngine logs
    the exception that ended its loop, engine.py, and its client's watchdog ends the server)
    - the engine died, though its own error may not be in the log (a paste of the API
    server's lines). A signal's stop logs the same `Shutting down` without either just before
    it (and a Ctrl-C's KeyboardInterrupt is a stop asked for). Asked once a log, of its last
    lines, where the error came before what made the log read as up."""
    end = len(msgs)
    for i in range(end - 1, max(-1, end - _SHUTDOWN_TAIL), -1):
        if _UVICORN_SHUTTING_DOWN.match(msgs[i]):
            if scan.stop_at is not None and scan.stop_at < i:
                return []
            errors = {k for k, _ in scan.exceptions}
            for j in range(i - 1, max(-1, i - 3), -1):
                if ('" 500' in msgs[j] and "HTTP/" in msgs[j]) or \
                        (j in errors and not _of_request(scan, j)):
                    return [(j, True)]
            return []
    return []


_SHUTDOWN_TAIL = 10  # lines from the end where uvicorn's `Shutting down` is looked for
_UVICORN_SHUTTING_DOWN = re.compile(r"INFO:\s+Shutting down\s*$")


def _cut_frame(scan: Scan, frames: list[tuple[int, str]]) -> int | None:
    """The position in ``frames`` of the innermost real frame (not a ``<call>:`` of a source
    line) of a traceback the log cuts there: no exception line after it. None otherwise."""
    if not frames or (scan.exceptions and scan.exceptions[-1][0] > frames[-1][0]):
        return None  # (an exception line after the last frame: not cut there)
    k = len(frames) - 1
    while k >= 0 and frames[k][1].startswith("<call>:"):
        k -= 1
    if k < 0 or (scan.exceptions and scan.exceptions[-1][0] > frames[k][0]):
        return None
    return k


def _ends_in_cut_traceback(scan: Scan, frames: list[tuple[int, str]], raw: list[str]) -> bool:
    """The log ends inside a Python traceback cut before its exception line: its frames say
    where it failed, not why (the corpus labels it unknown, the frames' suggestion in `also`).
    Not a faulthandler dump (a `Fatal Python error` names its signal, the dump where it hit),
    nor a traceback cut at its raise statement (`raise CalledProcessError(...)`: the
    exception is in view), nor one logged under the exception's own line (vLLM's RPC client
    logging `TimeoutError("Server didn't reply within 5000 ms")`, then its traceback)."""
    cut = _cut_frame(scan, frames)
    if cut is None or (scan.fatal_python and scan.fatal_python[-1][0] < frames[cut][0]):
        return False
    header = _traceback_of(scan, frames[cut][0])
    if header is not None and any(i == header - 1 for i, _ in scan.exceptions[-2:]):
        return False
    after = frames[cut][0] + 1
    return after >= len(raw) or not strip_wrappers(raw[after]).lstrip().startswith("raise ")


# A `raise` statement's source line with its message as a literal: `raise TimeoutError("Timed
# out waiting for engines to send"` (the paste may cut the literal, or its continuation lines)
_RAISE_STATEMENT = re.compile(r"(?:^|[\s\]|]) *raise (\w+(?:\.\w+)*)\(\s*f?r?[\"']([^\"'{]{12,})")


def _cut_at_raise_statement(scan: Scan, frames: list[tuple[int, str]],
                            raw: list[str]) -> list[_Candidate]:
    """The log ends inside a traceback, at its innermost frame, whose source line is the raise
    statement itself with its message written out: that message is the exception line the
    paste lost, read as one (its signatures)."""
    # (cheapest first: every crashed log asks; the line is read raw, past any wrapper)
    cut = _cut_frame(scan, frames)
    if cut is None:
        return []
    last = frames[cut][0]
    if last + 1 >= len(raw) or "raise " not in raw[last + 1]:
        return []
    m = _RAISE_STATEMENT.search(raw[last + 1])
    if m is None:
        return []
    low = f"{m[1]}: {m[2]}".lower()
    return [_Candidate(sig.cause, sig.priority, last + 1, sig.implies, True)
            for sig in _signatures_of(low, True)]


# An assert statement of divisibility (`assert self.total_num_heads % tp_size == 0`, the
# models' attention layers under tensor parallelism; `assert n % world_size == 0`)
_DIVISIBILITY_ASSERT = re.compile(r"\bassert [^#]*\S %\s*\S[^#]*==\s*0\b")


# the weight loaders' own shape checks of a checkpoint tensor (vLLM's and SGLang's name for it
# is `loaded_weight`): `assert param_data.shape == loaded_weight.shape`, `assert
# loaded_weight.shape[output_dim] == self.org_vocab_size`
_SHAPE_ASSERT = re.compile(r"\bassert\b[^#]*\bloaded_weight\.(?:shape\b|size\(|numel\()")


def _bare_assert_by_its_statement(scan: Scan, start: int, raw: list[str]) -> list[_Candidate]:
    """A bare `AssertionError` (no message) raised by an assert statement, its source line
    just above, read by what it checks: divisibility is a size the parallel layout must divide
    and does not - the same family as the checks that say `not divisible by` (S.SIGNATURES,
    invalid_config); a loader's shape check of the tensor it read is a checkpoint tensor of
    another shape than the model the config built, as the loaders' worded check (`Attempted to
    load weight (...) into parameter (...)`) is: corrupt_checkpoint (ir102, jd105; p116, av108
    relabelled so)."""
    out: list[_Candidate] = []
    for i, wrapper in scan.exceptions:
        if wrapper or "AssertionError" not in raw[i] or i < start \
                or not raw[i].rstrip().endswith("AssertionError"):
            continue
        # (Python 3.11's carets under the statement, behind a rank's prefix too)
        above = [raw[j] for j in range(max(i - 3, 0), i)
                 if strip_wrappers(raw[j]).strip(" ^~\t")]
        if above and _DIVISIBILITY_ASSERT.search(above[-1]):
            out.append(_Candidate(Cause.INVALID_CONFIG, 40, i, None, True))
        elif above and _SHAPE_ASSERT.search(above[-1]):
            out.append(_Candidate(Cause.CORRUPT_CHECKPOINT, 40, i, None, True))
    return out


# a subscript by a value of the model's config (`ACT2FN[config.hidden_act]`,
# `ROPE_INIT_FUNCTIONS[self.config.rope_scaling["rope_type"]]`)
_KEYED_BY_CONFIG = re.compile(r"\[\s*(?:self\.)?\w*config\.\w+(?:\[[^\]]*\])?\s*\]")


def _keyed_by_a_config_value(scan: Scan, start: int, raw: list[str]) -> list[_Candidate]:
    """A bare `KeyError: 'swiglu'` whose traceback's last source lines look a key up by a
    value of the model's config (`self.act_fn = ACT2FN[config.hidden_act]` in the model's MLP,
    a table of activations or RoPE types): the value names nothing the engine has - a config
    value wrong in itself (invalid_config), as an unknown RoPE type's message is (fe104)."""
    out: list[_Candidate] = []
    for i, wrapper in scan.exceptions:
        if wrapper or i < start or "KeyError" not in raw[i] \
                or not _BARE_KEY_ERROR.match(strip_wrappers(raw[i]).lstrip()):
            continue
        above = raw[max(i - 8, 0):i]
        if any(_KEYED_BY_CONFIG.search(line) for line in above if 'File "' not in line):
            out.append(_Candidate(Cause.INVALID_CONFIG, 40, i, None, True))
    return out


def _peer_node_gone(scan: Scan, start: int, raw: list[str]) -> list[_Candidate]:
    """Gloo's transport finding a collective's peer gone (`Connection reset by peer`) in a log
    of a launch across nodes: another node's ranks died or left (multinode_rank_failure), as a
    TCPStore's peer gone is read. The log's own words for nodes are looked for only once such
    an error is there. On one node the peer is a local rank, whose own error is the root."""
    gone = [i for i, _ in scan.exceptions if i >= start and "by peer" in raw[i]
            and S.GLOO_PEER_GONE.search(raw[i].lower())]
    if not gone or not any(S.NODES_SPANNED.search(line.lower()) for line in raw):
        return []
    return [_Candidate(Cause.MULTINODE_RANK_FAILURE, 58, gone[0], None, True)]


_BARE_KEY_ERROR = re.compile(r"(?:\w+\.)*KeyError: '[^']*'\s*$")


def _raised_on_import(scan: Scan, start: int, frames: list[tuple[int, str]],
                      raw: list[str]) -> list[_Candidate]:
    """The last exception raised while a module was being imported: its traceback has a frame
    on an import statement (`from lightop import gemmopt`, a plugin's `from DotsOCR import
    modeling_dots_ocr_vllm`) followed by the imported module's top level (`<module>`), so all
    below ran inside that import. Whatever its type (`AttributeError` from a plugin patching a
    class the installed vLLM no longer has, a vendor library's version probe failing on None),
    a package failed to import: import_error, below every cause the message itself names.
    (The last exception that is no report of another process's failure: vLLM's API server
    raising `Engine core initialization failed. See root cause above.` after its engine core's
    traceback is that traceback's consequence.)"""
    if not scan.module_frames or not scan.exceptions:
        return []
    reports = {i for i, consequence in scan.fatal if consequence}
    k = len(scan.exceptions) - 1
    while k > 0 and scan.exceptions[k][0] in reports:
        k -= 1
    last = scan.exceptions[k][0]
    if last < start or S.STORAGE_FULL.search(raw[last]):
        return []
    # from its header (a paste may cut it: then from the exception before, if any)
    header = _traceback_of(scan, last)
    if header is None:
        header = scan.exceptions[k - 1][0] if k > 0 else -1
    lo = bisect.bisect_right(frames, header, key=_line_of)
    for module in scan.module_frames:
        if not header < module < last:
            continue
        k = bisect.bisect_left(frames, module, key=_line_of)
        # the real frame above it (no source-call pseudo-frame, none of importlib's own)
        above = next((i for i, where in reversed(frames[lo:k]) if where[0] != "<"
                      and not where.startswith(_FROZEN)), None)
        if above is not None and \
                strip_wrappers(raw[above + 1]).lstrip().startswith(("from ", "import ")):
            cause = Cause.INVALID_CONFIG if _engine_check(frames, last, raw) \
                else Cause.IMPORT_ERROR
            return [_Candidate(cause, _RAISED_ON_IMPORT_PRIORITY, last)]
    return []


def _engine_check(frames: list[tuple[int, str]], last: int, raw: list[str]) -> bool:
    """The exception was raised by a check in the engine's own code (its innermost frame in
    vLLM's or SGLang's package, a `raise RuntimeError(...)` or an `assert`), not by a package
    failing to load: vLLM refusing two platform plugins as it resolves the platform, SGLang's
    model registry asserting on a model class exported twice. The import only carried the
    check; what it refused is what the launch set up (invalid_config)."""
    if not _ENGINE_CHECK_TYPE.match(strip_wrappers(raw[last]).lstrip()):
        return False
    k = bisect.bisect_left(frames, last, key=_line_of)
    # the innermost real frame (no source-call pseudo-frame: `<call>:RuntimeError`)
    where = next((w for _, w in reversed(frames[:k]) if w[0] != "<"), "")
    return bool(_ENGINE_PACKAGE.search(where))


# the engine's package, not its op-library wrappers (`vllm/_custom_ops.py`, `.../ops/...`,
# whose RuntimeError at import is a compiled library missing: the installation)
_ENGINE_PACKAGE = re.compile(r"(?:^|/)(?:vllm|sglang)/(?!(?:[^:]*/)?(?:_C|_custom_ops|ops)\b)")
_ENGINE_CHECK_TYPE = re.compile(r"(?:RuntimeError|AssertionError|ValueError): \S")


_FROZEN = "<frozen "  # importlib's frames (`File "<frozen importlib._bootstrap>", ...`)
_line_of = operator.itemgetter(0)
_RAISED_ON_IMPORT_PRIORITY = 12  # under every message signature (the lowest is 30)


# vLLM V0's AsyncLLMEngine bounds each engine iteration (ENGINE_ITERATION_TIMEOUT_S): 0.4.0
# awaited `asyncio.wait_for(...)` in run_engine_loop and logged nothing, later builds an
# `asyncio_timeout(...)` block (whose __aexit__ raises). A bare TimeoutError raised right there
# is that step watchdog firing; the same error from any other await (a client's, V1's shared-
# memory broadcast) names no watchdog.
_BARE_TIMEOUT = re.compile(r"^(?:asyncio\.(?:exceptions\.)?)?TimeoutError\s*$")
_TIMEOUT_RAISER = re.compile(r"asyncio/tasks\.py:wait_for$|timeouts?\.py:(?:__aexit__|_do_exit)$")


def _engine_iteration_timeout(scan: Scan, msgs: list[str], start: int) -> list[_Candidate]:
    out: list[_Candidate] = []
    for i, wrapper in scan.exceptions:
        if i < start or wrapper or "TimeoutError" not in msgs[i] \
                or not _BARE_TIMEOUT.match(msgs[i].strip()):
            continue
        opened = _traceback_of(scan, i)
        opened = -1 if opened is None else opened
        framed = [(j, w) for j, w in scan.frames
                  if opened < j < i and not w.startswith("<call>:")]
        # the innermost frame raised the timeout; the last of the engine's own code above it
        engine_frames = [(j, w) for j, w in framed if not _TIMEOUT_RAISER.search(w)]
        if framed and _TIMEOUT_RAISER.search(framed[-1][1]) and engine_frames \
                and engine_frames[-1][1].endswith("async_llm_engine.py:run_engine_loop"):
            # the bare `TimeoutError` says nothing alone: the loop's frame goes beside it
            out.append(_Candidate(Cause.WATCHDOG_TIMEOUT, 45, i, Phase.SERVING,
                                  support=engine_frames[-1][0]))
    return out


def _weights_left_room(raw: list[str], scan: Scan) -> bool:
    """SGLang's `Load weight end` (the marker into KV-cache sizing) reports far more memory
    free than the weights took (S.ROOMY_AFTER_WEIGHTS): the pool's sizing had room. Or the
    sizing is over: SGLang reported the pool it made (0.1's `max_total_num_token=14425`, later
    `max_total_num_tokens=`), so what failed came after it."""
    if any("max_total_num_token" in line for line in raw):
        return True
    for i in scan.phase_lines:
        m = S.WEIGHTS_MEMORY.search(raw[i]) if "avail mem=" in raw[i] else None
        if m:
            return float(m[1]) >= S.ROOMY_AFTER_WEIGHTS * float(m[2])
    return False


def _failure_evidence(raw: list[str], msgs: list[str], scan: Scan, start: int,
                      best: _Candidate | None, fatal: list[tuple[int, bool]],
                      outcome: Outcome) -> tuple[str, ...]:
    """Root error line first, then the lines that support the verdict."""
    idx: list[int] = []
    roots = [i for i, wrapper in scan.exceptions if i >= start and not wrapper]
    if best is not None and best.message:
        idx.append(best.index)
        idx.extend(i for sig, i in scan.hits
                   if i >= start and sig.cause is best.cause and i != best.index)
    elif roots:
        idx.append(roots[0])
    if best is not None:
        idx.append(best.index)
        if best.support is not None:
            idx.append(best.support)
        if best.cause is Cause.BUS_ERROR:
            idx.extend([i for i, _ in scan.frames if i > best.index][:2])
    idx.extend(roots[:1])
    marked = set(scan.fatal)
    idx.extend(i for i, consequence in fatal if (i, consequence) in marked and not consequence)
    idx.extend(i for i, consequence in fatal if (i, consequence) in marked and consequence)
    idx.extend(i for i, _ in scan.exit_codes if i >= start)
    if best is not None:
        if best.cause is Cause.NCCL_TIMEOUT:
            idx.extend(i for i, _ in scan.seq_nums[:1])
        if best.cause is Cause.SPECULATIVE_DECODING_ERROR and scan.spec_line is not None:
            idx.append(scan.spec_line)
        if best.cause is Cause.SLOW_WEIGHT_LOADING and scan.slow_load is not None:
            idx.append(scan.slow_load)
    if not idx and outcome is Outcome.CRASHED:
        idx.extend(i for i, _ in fatal)
    for i in (scan.phase_lines[-1] if scan.phase_lines else None, scan.last_marker,
              scan.last_update if outcome is Outcome.INCOMPLETE else None,
              scan.ready_index if outcome is Outcome.CRASHED else None):
        if i is not None:
            idx.append(i)
    return evidence_lines(raw, msgs, idx)
