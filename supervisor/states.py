"""Run phases, statuses and failure causes: the names of DESIGN.md §4, in one leaf module.

Nothing here imports the rest of the package; every other module may import this one.
"""

from __future__ import annotations

import enum


class Phase(str, enum.Enum):
    """The last startup phase a run reached, in the order an engine passes through them."""

    LAUNCH = "launch"
    WEIGHT_LOADING = "weight_loading"
    KV_CACHE_ALLOC = "kv_cache_alloc"
    CUDA_GRAPH_CAPTURE = "cuda_graph_capture"
    WARMUP = "warmup"
    READY = "ready"
    SERVING = "serving"

    def __str__(self) -> str:
        return self.value

    @property
    def rank(self) -> int:
        """The position in PHASE_ORDER (set once below: asked for every marker line)."""
        return self._rank  # type: ignore[attr-defined, no-any-return]


PHASE_ORDER: tuple[Phase, ...] = tuple(Phase)
for _i, _phase in enumerate(PHASE_ORDER):
    _phase._rank = _i  # type: ignore[attr-defined]
STARTUP_PHASES: frozenset[Phase] = frozenset(PHASE_ORDER[:5])
# Phases whose budget comes from [timeouts]; READY/SERVING have no deadline.
DEADLINE_PHASES: tuple[Phase, ...] = PHASE_ORDER[:5]


class Status(str, enum.Enum):
    STARTING = "starting"
    READY = "ready"
    STOPPING = "stopping"
    STOPPED = "stopped"
    CRASHED = "crashed"
    HUNG = "hung"
    TIMEOUT = "timeout"
    UNHEALTHY = "unhealthy"

    def __str__(self) -> str:
        return self.value


ACTIVE_STATUSES: frozenset[Status] = frozenset({Status.STARTING, Status.READY, Status.STOPPING})
FAILED_STATUSES: frozenset[Status] = frozenset(
    {Status.CRASHED, Status.HUNG, Status.TIMEOUT, Status.UNHEALTHY}
)
FINAL_STATUSES: frozenset[Status] = FAILED_STATUSES | {Status.STOPPED}

# Allowed transitions. A failed status may still move to STOPPING/STOPPED: the verdict stays
# recorded separately (HUNG then stopped by us keeps status HUNG; see runtime.run).
TRANSITIONS: dict[Status, frozenset[Status]] = {
    Status.STARTING: frozenset(
        {Status.READY, Status.STOPPING, Status.STOPPED} | FAILED_STATUSES
    ),
    Status.READY: frozenset({Status.STOPPING, Status.STOPPED} | FAILED_STATUSES),
    Status.STOPPING: frozenset({Status.STOPPED} | FAILED_STATUSES),
    Status.STOPPED: frozenset(),
    Status.CRASHED: frozenset(),
    Status.HUNG: frozenset(),
    Status.TIMEOUT: frozenset(),
    Status.UNHEALTHY: frozenset(),
}


class InvalidTransition(ValueError):
    pass


def check_transition(old: Status, new: Status) -> None:
    if new not in TRANSITIONS[old]:
        raise InvalidTransition(f"run status cannot go from {old} to {new}")


class Cause(str, enum.Enum):
    CUDA_OOM = "cuda_oom"
    KV_CACHE_OOM = "kv_cache_oom"
    HOST_OOM_KILLED = "host_oom_killed"
    NCCL_ERROR = "nccl_error"
    NCCL_TIMEOUT = "nccl_timeout"
    CUSTOM_ALLREDUCE_ERROR = "custom_allreduce_error"
    ILLEGAL_MEMORY_ACCESS = "illegal_memory_access"
    UNSUPPORTED_ARCH = "unsupported_arch"
    FLASHINFER_ERROR = "flashinfer_error"
    TRITON_COMPILE_ERROR = "triton_compile_error"
    IMPORT_ERROR = "import_error"
    WATCHDOG_TIMEOUT = "watchdog_timeout"
    BUS_ERROR = "bus_error"
    MULTINODE_RANK_FAILURE = "multinode_rank_failure"
    WARMUP_FAILED = "warmup_failed"
    HEALTH_CHECK_FAILED = "health_check_failed"
    SPECULATIVE_DECODING_ERROR = "speculative_decoding_error"
    PORT_IN_USE = "port_in_use"
    MODEL_NOT_FOUND = "model_not_found"
    SLOW_WEIGHT_LOADING = "slow_weight_loading"
    GPU_FAULT = "gpu_fault"
    SERVING_STALL = "serving_stall"  # ready, requests in flight, no tokens for `silence` s
    # Not in DESIGN.md's first list: bad launch arguments or a configuration the engine rejects
    # (unknown flag, invalid value, unsupported quantization), and a checkpoint with missing or
    # damaged files (truncated safetensors, no weight files, no tokenizer files).
    INVALID_CONFIG = "invalid_config"
    CORRUPT_CHECKPOINT = "corrupt_checkpoint"
    # A hang, not a crash: every rank stuck in a collective (all-reduce, barrier, broadcast)
    # that a peer never joins, seen from their stacks; the seed's fusion-in-capture case.
    COLLECTIVE_HANG = "collective_hang"
    UNKNOWN = "unknown"

    def __str__(self) -> str:
        return self.value


class Outcome(str, enum.Enum):
    """What an offline log shows by itself (``supervisor-ctl diagnose``)."""

    READY = "ready"
    CRASHED = "crashed"
    INCOMPLETE = "incomplete"

    def __str__(self) -> str:
        return self.value


class ChecklistStatus(str, enum.Enum):
    PENDING = "pending"
    IN_PROGRESS = "in_progress"
    DONE = "done"
    FAILED = "failed"
    SKIPPED = "skipped"

    def __str__(self) -> str:
        return self.value
