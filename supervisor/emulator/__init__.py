"""The SGLang stand-in: ``python -m supervisor.emulator [launch_server args...]``.

It accepts ``sglang.launch_server``'s arguments, prints SGLang 0.5.5's real log lines phase by
phase, spawns a process tree like SGLang's (``sglang::scheduler_TP0`` ... and
``sglang::detokenizer``), opens its HTTP port only after "graph capture", serves the health,
model-info and generation endpoints, and misbehaves on request (``SGLANG_EMULATOR_FAULT``).
``--replay FILE [--speed X]`` replays a real log with its timing instead.

Modules, one concern each:

- ``config``   command line, environment and the fault grammar (``FaultPlan``)
- ``faults``   the causes (DESIGN.md §4): each one's real error lines and how the tree dies
- ``logfmt``   SGLang/uvicorn/tqdm line formats and unbuffered writes
- ``procs``    spawning titled children, prctl, killing trees
- ``child``    what runs inside a scheduler / detokenizer / leaked helper process
- ``api``      the HTTP server (stdlib ``ThreadingHTTPServer``)
- ``server``   the launch_server main process: phases in order, fault hooks, signals
- ``replay``   ``--replay``
"""

PHASES = (
    "launch",
    "weight_loading",
    "kv_cache_alloc",
    "cuda_graph_capture",
    "warmup",
    "ready",
    "serving",
)
