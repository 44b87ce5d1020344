"""Command line (launch_server's flags, unknown ones ignored), environment, fault grammar.

``SGLANG_EMULATOR_FAULT`` is a comma-separated list of items::

    none | crash:<phase>:<cause> | hang:<phase> | spin:<phase> | slow:<phase>:<seconds>
         | compile:<phase>:<seconds> | leak
         | flood:<lines_per_second> | unhealthy | stall | slow_prefill:<seconds>

Each item may end with conditions ``@NAME`` / ``@!NAME``: the item applies only when ``--NAME``
is on the command line (and not ``false``/``0``) or the environment variable ``NAME`` is set and
non-empty (``@!``: only when not). Example:
``hang:cuda_graph_capture@enable-flashinfer-allreduce-fusion@NCCL_MAX_NCHANNELS`` hangs only
when both changes are applied, which is what isolation tests need.
"""

from __future__ import annotations

import argparse
import os
from dataclasses import dataclass, field

from supervisor.emulator import PHASES
from supervisor.emulator.faults import CAUSES, PRODUCED_ELSEWHERE

PHASE_ALIASES = {
    "load": "weight_loading", "weights": "weight_loading", "weight_load": "weight_loading",
    "kv": "kv_cache_alloc", "kv_cache": "kv_cache_alloc",
    "capture": "cuda_graph_capture", "graph_capture": "cuda_graph_capture",
    "cuda_graph": "cuda_graph_capture",
}


class FaultError(ValueError):
    """SGLANG_EMULATOR_FAULT (or another emulator setting) cannot be understood."""


@dataclass
class FaultPlan:
    crash: dict[str, str] = field(default_factory=dict)    # phase -> cause
    hang: set[str] = field(default_factory=set)            # phases
    spin: set[str] = field(default_factory=set)            # phases: ranks busy-wait, stuck
    slow: dict[str, float] = field(default_factory=dict)   # phase -> seconds (unscaled)
    compile: dict[str, float] = field(default_factory=dict)  # CPU only, no reads, no output
    leak: bool = False
    flood: float | None = None                              # lines per second after ready
    unhealthy: bool = False
    stall: bool = False                  # after ready: requests accepted, no tokens
    slow_prefill: float | None = None   # after ready: seconds of chunked prefill

    def crash_cause(self, phase: str) -> str | None:
        return self.crash.get(phase)


def _phase(word: str, item: str) -> str:
    p = word.strip().lower().replace("-", "_")
    p = PHASE_ALIASES.get(p, p)
    if p not in PHASES:
        raise FaultError(f"unknown phase {word!r} in {item!r}; phases: {', '.join(PHASES)}")
    return p


def _number(word: str, item: str, what: str) -> float:
    try:
        v = float(word)
    except ValueError:
        raise FaultError(f"{what} must be a number in {item!r}, got {word!r}") from None
    if not v >= 0 or v == float("inf"):
        raise FaultError(f"{what} must be a finite number >= 0 in {item!r}")
    return v


def _condition_holds(cond: str, argv: list[str], env: dict[str, str]) -> bool:
    negate = cond.startswith("!")
    name = cond[1:] if negate else cond
    if not name:
        raise FaultError("empty condition after '@'")
    flag = "--" + name.lstrip("-")
    present = False
    for i, a in enumerate(argv):
        if a == flag or a.startswith(flag + "="):
            value = a.split("=", 1)[1] if "=" in a else (
                argv[i + 1] if i + 1 < len(argv) and not argv[i + 1].startswith("--") else "")
            present = value.strip().lower() not in ("false", "0")
            break
    if not present:
        present = bool(env.get(name, ""))
    return present != negate


def parse_faults(spec: str | None, argv: list[str] | None = None,
                 env: dict[str, str] | None = None) -> FaultPlan:
    argv = argv or []
    env = dict(os.environ) if env is None else env
    plan = FaultPlan()
    for raw in (spec or "").split(","):
        item = raw.strip()
        if not item:
            continue
        body, *conds = item.split("@")
        applies = all(_condition_holds(c.strip(), argv, env) for c in conds)
        parts = [p.strip() for p in body.split(":")]
        kind = parts[0].lower()
        if kind in ("none", "") and len(parts) == 1:
            continue
        if kind == "crash":
            if len(parts) != 3:
                raise FaultError(f"expected crash:<phase>:<cause>, got {item!r}")
            phase = _phase(parts[1], item)
            cause = parts[2].lower().replace("-", "_")
            if cause in PRODUCED_ELSEWHERE:
                raise FaultError(f"cause {cause!r} is not a crash: {PRODUCED_ELSEWHERE[cause]}")
            if cause not in CAUSES:
                raise FaultError(f"unknown cause {parts[2]!r} in {item!r}; causes: "
                                 f"{', '.join(sorted(CAUSES))}")
            phase = CAUSES[cause].phase or phase  # main-process causes have their own phase
            if applies:
                plan.crash.setdefault(phase, cause)
        elif kind in ("hang", "spin"):  # idle or busy-waiting: both stuck in that phase
            if len(parts) != 2:
                raise FaultError(f"expected {kind}:<phase>, got {item!r}")
            phase = _phase(parts[1], item)
            if applies:
                (plan.hang if kind == "hang" else plan.spin).add(phase)
        elif kind in ("slow", "compile"):  # busy for a while: with disk reads, or CPU only
            if len(parts) != 3:
                raise FaultError(f"expected {kind}:<phase>:<seconds>, got {item!r}")
            phase = _phase(parts[1], item)
            seconds = _number(parts[2], item, "seconds")
            if applies:
                (plan.slow if kind == "slow" else plan.compile)[phase] = seconds
        elif kind == "leak" and len(parts) == 1:
            plan.leak = plan.leak or applies
        elif kind == "flood":
            if len(parts) != 2:
                raise FaultError(f"expected flood:<lines_per_second>, got {item!r}")
            rate = _number(parts[1], item, "lines_per_second")
            if rate <= 0:
                raise FaultError(f"lines_per_second must be > 0 in {item!r}")
            if applies:
                plan.flood = rate
        elif kind == "unhealthy" and len(parts) == 1:
            plan.unhealthy = plan.unhealthy or applies
        elif kind in ("stall", "slow_prefill"):
            _serving_fault(plan, kind, parts, item, applies)
        else:
            raise FaultError(f"unknown fault {item!r}; expected none, crash:<phase>:<cause>, "
                             "hang:<phase>, spin:<phase>, slow:<phase>:<seconds>, "
                             "compile:<phase>:<seconds>, leak, "
                             "flood:<lines_per_second>, unhealthy, stall, "
                             "slow_prefill:<seconds>")
    return plan


def _serving_fault(plan: FaultPlan, kind: str, parts: list[str], item: str,
                   applies: bool) -> None:
    """stall: /health 200, requests accepted (a Prefill batch line), no token ever;
    slow_prefill:<seconds>: each request's prefill logs a chunk a second for that long."""
    if kind == "stall":
        if len(parts) != 1:
            raise FaultError(f"expected stall (no arguments), got {item!r}")
        plan.stall = plan.stall or applies
        return
    if len(parts) != 2:
        raise FaultError(f"expected slow_prefill:<seconds>, got {item!r}")
    seconds = _number(parts[1], item, "seconds")
    if applies:
        plan.slow_prefill = seconds


def env_float(env: dict[str, str], name: str, default: float, *, positive: bool = True) -> float:
    raw = env.get(name, "").strip()
    if not raw:
        return default
    try:
        v = float(raw)
    except ValueError:
        raise FaultError(f"{name} must be a number, got {raw!r}") from None
    if (positive and not v > 0) or v != v or v == float("inf"):
        raise FaultError(f"{name} must be a finite number > 0, got {raw!r}")
    return v


def _bool_flag(p: argparse.ArgumentParser, *names: str) -> None:
    p.add_argument(*names, action="store_true")


def build_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(
        prog="python -m supervisor.emulator", allow_abbrev=False,
        description="SGLang stand-in: accepts sglang.launch_server's arguments "
                    "(unknown ones are ignored); see supervisor/emulator/__init__.py.")
    p.add_argument("--model-path", "--model", dest="model_path", default="/models/emulated")
    p.add_argument("--tokenizer-path", default=None)
    p.add_argument("--served-model-name", default=None)
    p.add_argument("--host", default="127.0.0.1")
    p.add_argument("--port", type=int, default=30000)
    p.add_argument("--tp-size", "--tp", "--tensor-parallel-size", dest="tp_size", type=int,
                   default=1)
    p.add_argument("--dp-size", "--dp", "--data-parallel-size", dest="dp_size", type=int,
                   default=1)
    p.add_argument("--ep-size", "--ep", dest="ep_size", type=int, default=1)
    p.add_argument("--pp-size", dest="pp_size", type=int, default=1)
    p.add_argument("--nnodes", type=int, default=1)
    p.add_argument("--node-rank", type=int, default=0)
    p.add_argument("--dist-init-addr", default=None)
    p.add_argument("--mem-fraction-static", type=float, default=None)
    p.add_argument("--context-length", type=int, default=None)
    p.add_argument("--chunked-prefill-size", type=int, default=None)
    p.add_argument("--max-running-requests", type=int, default=None)
    p.add_argument("--max-total-tokens", type=int, default=None)
    p.add_argument("--kv-cache-dtype", default="auto")
    p.add_argument("--dtype", default="auto")
    p.add_argument("--quantization", default=None)
    p.add_argument("--attention-backend", default=None)
    p.add_argument("--sampling-backend", default=None)
    p.add_argument("--speculative-algorithm", default=None)
    p.add_argument("--speculative-draft-model-path", "--speculative-draft-model",
                   dest="speculative_draft_model_path", default=None)
    p.add_argument("--speculative-num-steps", type=int, default=None)
    p.add_argument("--speculative-eagle-topk", type=int, default=None)
    p.add_argument("--speculative-num-draft-tokens", type=int, default=None)
    p.add_argument("--cuda-graph-max-bs", type=int, default=None)
    p.add_argument("--cuda-graph-bs", type=int, nargs="+", default=None)
    p.add_argument("--watchdog-timeout", type=float, default=300)
    p.add_argument("--dist-timeout", type=int, default=None)
    p.add_argument("--decode-log-interval", type=int, default=40)
    p.add_argument("--log-level", default="info")
    p.add_argument("--api-key", default=None)
    p.add_argument("--random-seed", type=int, default=None)
    p.add_argument("--torch-compile-max-bs", type=int, default=32)
    for flag in ("--disable-cuda-graph", "--disable-cuda-graph-padding",
                 "--enable-flashinfer-allreduce-fusion", "--disable-custom-all-reduce",
                 "--trust-remote-code", "--skip-server-warmup", "--enable-torch-compile",
                 "--enable-p2p-check", "--enable-metrics", "--disable-radix-cache",
                 "--disable-overlap-schedule", "--enable-dp-attention",
                 "--enable-piecewise-cuda-graph"):
        _bool_flag(p, flag)
    # emulator-only
    p.add_argument("--replay", default=None, metavar="FILE",
                   help="replay a real log with its timing instead of emulating")
    p.add_argument("--speed", type=float, default=1.0,
                   help="replay speed factor (gaps are divided by it, each capped at 5 s/speed)")
    return p


def parse_args(argv: list[str]) -> argparse.Namespace:
    args, _unknown = build_parser().parse_known_args(argv)
    args.tp_size = max(1, args.tp_size)
    args.dp_size = max(1, args.dp_size)
    if args.tokenizer_path is None:
        args.tokenizer_path = args.model_path
    if args.mem_fraction_static is None:
        args.mem_fraction_static = 0.88
    return args
