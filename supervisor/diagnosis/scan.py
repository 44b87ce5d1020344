"""What one pass over a log's lines found: the classifier's scan fills it, its decision and
the fallbacks (refusals.py) read it. Every field is an index into the line list or a fact
about the lines."""

from __future__ import annotations

from dataclasses import dataclass, field

from ..states import Phase
from . import signatures as S


@dataclass
class Scan:
    """What one pass over the lines found (indices into the line list)."""

    phase_lines: list[int] = field(default_factory=list)        # a marker advanced the phase
    run_starts: list[int] = field(default_factory=list)  # a run's start line (_RUN_START)
    phases: list[Phase] = field(default_factory=list)           # the phase each one reached
    capture_started: bool = False      # a CUDA-graph capture progress bar was seen
    batches_captured: int = 0          # how many batch sizes it had captured
    last_update: int | None = None
    ready_index: int | None = None
    activity: list[int] = field(default_factory=list)           # progress after which...
    fatal: list[tuple[int, bool]] = field(default_factory=list)  # (index, consequence)
    exceptions: list[tuple[int, bool]] = field(default_factory=list)  # (index, wrapper)
    tracebacks: list[int] = field(default_factory=list)
    frames: list[tuple[int, str]] = field(default_factory=list)  # (index, "file:function")
    module_frames: list[int] = field(default_factory=list)  # frames of a module's top level
    hits: list[tuple[S.Signature, int]] = field(default_factory=list)
    current_thread: list[tuple[int, list[str]]] = field(default_factory=list)
    fatal_python: list[tuple[int, str]] = field(default_factory=list)
    thread_dumps: list[int] = field(default_factory=list)  # S.THREAD_DUMP_HEAD lines
    timer_dumps: list[int] = field(default_factory=list)   # ... of dump_traceback_later's
    rank_dead: list[int] = field(default_factory=list)
    exit_codes: list[tuple[int, int]] = field(default_factory=list)
    spec_line: int | None = None
    slow_load: int | None = None
    seq_nums: list[tuple[int, int]] = field(default_factory=list)  # NCCL collectives' numbers
    step_dumps: list[int] = field(default_factory=list)  # vLLM's dump of a failing step
    named_phases: list[tuple[int, Phase]] = field(default_factory=list)  # S.PHASE_MESSAGES
    config_rejections: list[int] = field(default_factory=list)  # raised by a config check
    # a model file the engine could not take as the model's: not JSON (_json_not_parsed), or
    # tensors of other shapes than the model's (_shapes_not_the_models)
    checkpoint_misread: list[int] = field(default_factory=list)
    self_timeouts: list[int] = field(default_factory=list)  # a request to itself timed out
    request_tracebacks: set[int] = field(default_factory=set)  # one request's, logged by uvicorn
    # uvicorn's `Exception in ASGI application` for a local poll it has just answered 5xx (the
    # tracker's probe_failed): SGLang's own warm-up, a readiness check - no request served
    probe_errors: list[int] = field(default_factory=list)
    # frames of S.REQUEST_HANDLER_FRAME and of S.ENGINE_LOOP_FRAME (_request_frames: read only
    # where a verdict needs them, None until then)
    request_frames: list[int] | None = None
    # a frame holds a literal that each of the two regexes needs, or that comes with it
    # (uvicorn's run_asgi and Starlette's streamed responses call Starlette's or FastAPI's
    # routing): only then are they asked
    maybe_request: bool = False
    loop_frames: list[int] = field(default_factory=list)
    dump_frames: set[int] = field(default_factory=set)  # S.PYSPY_FRAME: a live process's stack
    first_text: int | None = None      # the first line that is not blank
    api_servers_pending: int | None = None  # engines up, separate API servers not yet
    mq_client: bool = False            # vLLM V0's API server waiting on its MQLLMEngine
    final_phase: Phase = Phase.LAUNCH
    server_up: bool = False            # the tracker saw the server up (its `ready`)
    last_marker: int | None = None
    first_marker: int | None = None
    first_startup_read: int | None = None  # a startup phase read, not from an access line
    stop_at: int | None = None         # the run was asked to stop (SIGTERM, Ctrl-C, shutdown)
    own_teardown: int | None = None    # vLLM's API server stopping its engine, unasked
    exit_at: int | None = None         # the interpreter's exit-time output began
    shell_killed: int | None = None    # the shell's `Killed` (S.SHELL_KILLED)
