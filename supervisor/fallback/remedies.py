"""Known fixes by failure cause (reference/sglang-facts.md §6), as pure logic.

A remedy is a ``Change`` built for the failing profile's engine and version (flag names come
from ``Engine.flag``). Remedies are applied *cumulatively*: each attempt keeps the remedies
already tried and adds the next one, re-chosen from the cause of the latest failure. The ladder
in the sources is cumulative in spirit (a lower mem fraction *and* a smaller graph batch, then no
CUDA graph), a fixed remedy usually uncovers the next problem rather than undoing the first, and
a one-at-a-time search would spend the budget on combinations that cannot help.

When the engine said how much memory is free (vLLM refuses a ``--gpu-memory-utilization`` above
it at worker init, naming free and total), ``lower_mem_fraction`` goes straight to the fraction
that fits, less a small headroom, instead of stepping down one launch at a time: on a GPU each
of those launches costs minutes.

Order: the profile's ``remedies`` list, filtered to those relevant to the cause and that change
something, each once, with ``disable_cuda_graph`` (a huge performance loss) moved last; once
all were tried, ``lower_mem_fraction`` may take further 0.05 steps (down to 0.5).
"""

from __future__ import annotations

import math
import re
from collections.abc import Sequence
from typing import Any

from ..engines import get_engine
from ..profiles import Change, ResolvedProfile
from ..states import Cause

MEM_STEP = 0.05
MEM_MIN = 0.5
MEM_DEFAULT_START = 0.85   # when the profile leaves mem-fraction-static to the engine
MEM_FIT_HEADROOM = 0.02   # of total: what else starts on the device between two launches
MEM_FIT_MIN = 0.05        # a fit below this leaves nothing for the model: no remedy
GRAPH_BS = 16
LAST = "disable_cuda_graph"

# Causes no flag can fix: the environment itself is wrong.
UNFIXABLE: frozenset[str] = frozenset({
    Cause.IMPORT_ERROR.value, Cause.MODEL_NOT_FOUND.value, Cause.PORT_IN_USE.value,
    Cause.HOST_OOM_KILLED.value, Cause.GPU_FAULT.value, Cause.INVALID_CONFIG.value,
    Cause.CORRUPT_CHECKPOINT.value,
})

# Causes of the environment, not of a config change: isolating the changes cannot help. An
# invalid config is unfixable by flags but is exactly what a bad change produces.
NOT_A_CHANGE: frozenset[str] = UNFIXABLE - {Cause.INVALID_CONFIG.value}

CAPTURE_HANG = "capture_hang"   # a hang or timeout in graph capture with no clearer cause

# remedy -> the causes it is a known fix for. ``cuda_oom`` only counts after weight loading:
# none of these flags helps an OOM while loading weights (facts §6).
RELEVANT: dict[str, frozenset[str]] = {
    "disable_custom_all_reduce": frozenset({
        "custom_allreduce_error", "nccl_error", "nccl_timeout", "illegal_memory_access",
        "watchdog_timeout", "collective_hang", CAPTURE_HANG}),
    "nccl_p2p_disable": frozenset({"nccl_error", "custom_allreduce_error", "collective_hang",
                                   CAPTURE_HANG}),
    "nccl_shm_disable": frozenset({"nccl_error"}),
    "nccl_ib_disable": frozenset({"nccl_error", "nccl_timeout", "multinode_rank_failure"}),
    "lower_mem_fraction": frozenset({"cuda_oom", "speculative_decoding_error"}),
    "smaller_cuda_graph_bs": frozenset({"cuda_oom", "speculative_decoding_error"}),
    "triton_attention": frozenset({"flashinfer_error", "unsupported_arch",
                                   "illegal_memory_access"}),
    "disable_torch_compile": frozenset({"cuda_oom", "illegal_memory_access",
                                        "triton_compile_error", "unknown"}),
    "disable_cuda_graph": frozenset({
        "cuda_oom", "illegal_memory_access", "nccl_timeout", "custom_allreduce_error",
        "watchdog_timeout", "speculative_decoding_error", "unknown", "collective_hang",
        CAPTURE_HANG}),
}


# vLLM's reservation check, GPU ("Free memory on device (F/T GiB) on startup is less than desired
# GPU memory utilization (U, R GiB)") and CPU build ("Available memory on node 0 (F/T GiB) ...").
_RESERVATION_REFUSED = re.compile(
    r"(?:Free|Available) memory on (?:device|node)\b[^(]*\((?P<free>\d+(?:\.\d+)?)/"
    r"(?P<total>\d+(?:\.\d+)?) GiB\) on startup is less than desired")


def reported_fit(evidence: Sequence[str]) -> float | None:
    """The memory fraction that fits what the engine reported free at startup (two decimals,
    rounded down, less the headroom), or None when no evidence line reports it."""
    for line in evidence:
        m = _RESERVATION_REFUSED.search(line)
        if m and float(m["total"]) > 0:
            fit = float(m["free"]) / float(m["total"]) - MEM_FIT_HEADROOM
            return math.floor(round(fit * 100, 6)) / 100
    return None


def failure_kind(cause: str | None, phase: str | None, status: str | None) -> str:
    """The key the ladder is chosen by: the cause, or ``capture_hang`` for a hang/timeout in
    graph capture whose log names no cause."""
    c = cause or "unknown"
    if status in ("hung", "timeout") and phase == "cuda_graph_capture" and c == "unknown":
        return CAPTURE_HANG
    return c


def is_relevant(remedy: str, cause: str | None, phase: str | None = None,
                status: str | None = None) -> bool:
    kind = failure_kind(cause, phase, status)
    if kind in UNFIXABLE:
        return False
    if kind == "cuda_oom" and phase == "weight_loading":
        return False  # the weights do not fit: a larger TP or quantization, not these flags
    if kind == "cuda_oom" and phase == "launch":
        # Refused before any weight: the memory reservation itself (vLLM's "Free memory on
        # device ... is less than desired GPU memory utilization"). A smaller one is the fix.
        return remedy == "lower_mem_fraction"
    return kind in RELEVANT.get(remedy, frozenset())


def _truthy(value: Any) -> bool:
    return value not in (None, False, 0, "false", "0", "")


def _flag(profile: ResolvedProfile, logical: str) -> str | None:
    try:
        engine = get_engine(profile.engine)
    except ValueError:
        return None
    return engine.flag(logical, profile.version)


def build_remedy(remedy: str, profile: ResolvedProfile, fit: float | None = None,
                 ) -> Change | None:
    """The change that applies ``remedy`` to ``profile`` (already carrying earlier remedies),
    or None when the remedy cannot change anything (no such flag, already in effect, floor).
    ``fit``: the memory fraction the engine reported as available (see ``reported_fit``)."""
    args = profile.args_dict()
    env = profile.env_dict()

    def set_env(name: str) -> Change | None:
        return None if env.get(name) == "1" else Change(name=remedy, env={name: "1"})

    if remedy == "nccl_p2p_disable":
        return set_env("NCCL_P2P_DISABLE")
    if remedy == "nccl_shm_disable":
        return set_env("NCCL_SHM_DISABLE")
    if remedy == "nccl_ib_disable":
        return set_env("NCCL_IB_DISABLE")
    if remedy in ("disable_custom_all_reduce", "disable_cuda_graph"):
        flag = _flag(profile, remedy)
        if flag is None or _truthy(args.get(flag)):
            return None
        return Change(name=remedy, args={flag: True})
    if remedy == "lower_mem_fraction":
        return _lower_mem_fraction(profile, args, fit)
    if remedy == "smaller_cuda_graph_bs":
        flag = _flag(profile, "cuda_graph_max_bs")
        if flag is None:
            return None
        current = args.get(flag)
        if isinstance(current, int) and not isinstance(current, bool) and current <= GRAPH_BS:
            return None
        new: dict[str, Any] = {flag: GRAPH_BS}
        # a profile written for the other SGLang version: drop that spelling (false = omitted)
        for other in ("cuda-graph-max-bs", "cuda-graph-max-bs-decode"):
            if other != flag and other in args:
                new[other] = False
        return Change(name=remedy, args=new)
    if remedy == "triton_attention":
        attn = _flag(profile, "attention_backend")
        samp = _flag(profile, "sampling_backend")
        if attn is None:
            return None
        if args.get(attn) == "triton" and (samp is None or args.get(samp) == "pytorch"):
            return None
        new = {attn: "triton"}
        if samp is not None:
            new[samp] = "pytorch"
        return Change(name=remedy, args=new)
    if remedy == "disable_torch_compile":
        new = {}
        for logical in ("enable_torch_compile", "enable_piecewise_cuda_graph"):
            flag = _flag(profile, logical)
            if flag is not None and _truthy(args.get(flag)):
                new[flag] = False
        return Change(name=remedy, args=new) if new else None
    return None


def _lower_mem_fraction(profile: ResolvedProfile, args: dict[str, Any],
                        fit: float | None) -> Change | None:
    """One step down (to the floor) or, when the engine reported what is free, to the fit."""
    flag = _flag(profile, "mem_fraction_static")
    if flag is None:
        return None
    current = args.get(flag)
    try:
        value = float(current) - MEM_STEP if current is not None else MEM_DEFAULT_START
    except (TypeError, ValueError):
        return None
    value = round(value, 2)
    if fit is not None:
        # the engine's own numbers beat the blind floor: below it only if that is what fits
        if fit < MEM_FIT_MIN - 1e-9:
            return None
        value = min(value, fit)
    elif value < MEM_MIN - 1e-9:
        return None
    return Change(name="lower_mem_fraction", args={flag: value})


def next_remedy(allowed: Sequence[str], applied: Sequence[str], profile: ResolvedProfile,
                cause: str | None, phase: str | None = None, status: str | None = None,
                evidence: Sequence[str] = (),
                ) -> tuple[str, Change] | None:
    """The next remedy to add on top of ``profile`` (which carries ``applied`` already):
    the first relevant, effective, not yet applied one in ``allowed`` order with
    ``disable_cuda_graph`` moved last (SGLang's own hint order); once each was tried, further
    ``lower_mem_fraction`` steps while the floor allows. ``evidence``: the failure's lines,
    read for the free memory the engine reported."""
    fit = reported_fit(evidence)

    def effective(name: str) -> Change | None:
        if not is_relevant(name, cause, phase, status):
            return None
        return build_remedy(name, profile, fit)

    for name in [*(n for n in allowed if n != LAST), *(n for n in allowed if n == LAST)]:
        if name in applied:
            continue
        change = effective(name)
        if change is not None:
            return name, change
    if "lower_mem_fraction" in allowed and "lower_mem_fraction" in applied:
        change = effective("lower_mem_fraction")
        if change is not None:
            return "lower_mem_fraction", change
    return None


def merge_extras(extras: Sequence[Change], change: Change) -> tuple[Change, ...]:
    """Earlier remedies plus ``change``; a repeated remedy (another mem step) replaces its
    previous value so the resolved ``changes`` name it once."""
    return (*[c for c in extras if c.name != change.name], change)
