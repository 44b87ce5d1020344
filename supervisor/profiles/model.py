"""Profile value types: frozen, hashable, JSON-friendly (DESIGN §3)."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from supervisor.engines import get_engine
from supervisor.engines.base import arg_key
from supervisor.states import Phase

ENGINES: tuple[str, ...] = ("sglang", "vllm", "command")
STRATEGIES: tuple[str, ...] = ("none", "chain", "remedies", "isolate")
# Shared with supervisor.fallback: the names a [fallback] remedies list may use.
KNOWN_REMEDIES: tuple[str, ...] = (
    "disable_custom_all_reduce",
    "nccl_p2p_disable",
    "lower_mem_fraction",
    "smaller_cuda_graph_bs",
    "triton_attention",
    "disable_cuda_graph",
    "disable_torch_compile",
    "nccl_shm_disable",
    "nccl_ib_disable",
)
DEFAULT_PORTS: dict[str, int] = {"sglang": 30000, "vllm": 8000, "command": 30000}
DEFAULT_HOST = "127.0.0.1"



def freeze(value: Any) -> Any:
    """Lists become tuples and tables FrozenMaps, so resolved profiles stay hashable."""
    if isinstance(value, Mapping):
        return FrozenMap(value)
    if isinstance(value, (list, tuple)):
        return tuple(freeze(v) for v in value)
    return value


def thaw(value: Any) -> Any:
    """The inverse of freeze, for JSON: tuples become lists, FrozenMaps dicts."""
    if isinstance(value, Mapping):
        return {k: thaw(v) for k, v in value.items()}
    if isinstance(value, (list, tuple)):
        return [thaw(v) for v in value]
    return value


class FrozenMap(Mapping[str, Any]):
    """An immutable, hashable, ordered mapping (MappingProxyType is not hashable)."""

    __slots__ = ("_items", "_dict")

    def __init__(self, data: Mapping[str, Any] | None = None) -> None:
        items = tuple((str(k), freeze(v)) for k, v in (data or {}).items())
        self._items = items
        self._dict = dict(items)

    def __getitem__(self, key: str) -> Any:
        return self._dict[key]

    def __iter__(self) -> Iterator[str]:
        return iter(self._dict)

    def __len__(self) -> int:
        return len(self._items)

    def __hash__(self) -> int:
        return hash(self._items)

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Mapping) and dict(self.items()) == dict(other.items())

    def __repr__(self) -> str:
        return f"FrozenMap({self._dict!r})"


def _pairs(value: Any, *, args: bool) -> tuple[tuple[str, Any], ...]:
    items = value.items() if isinstance(value, Mapping) else value
    if args:
        return tuple((arg_key(str(k)), freeze(v)) for k, v in items)
    return tuple((str(k), str(v)) for k, v in items)


@dataclass(frozen=True)
class Patch:
    """A unified diff against the engine's installed Python package, as a change carries it.

    ``path`` is what the profile wrote (relative to its folder), ``text`` the diff itself: the
    text is read at load time, so a run launches exactly what was validated and hashed."""

    change: str
    path: str
    text: str

    @property
    def hash(self) -> str:
        return hashlib.sha256(self.text.encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return {"change": self.change, "path": self.path, "hash": self.hash, "text": self.text}


@dataclass(frozen=True)
class Change:
    """A named delta (env, args, a source patch) on top of a profile: the unit of isolation
    and of remedies.

    ``env``/``args`` may be given as dicts; they are stored as ordered tuples of pairs.
    """

    name: str
    env: tuple[tuple[str, str], ...] = ()
    args: tuple[tuple[str, Any], ...] = ()
    description: str = ""
    patch: Patch | None = None

    def __post_init__(self) -> None:
        object.__setattr__(self, "env", _pairs(self.env, args=False))
        object.__setattr__(self, "args", _pairs(self.args, args=True))

    def env_dict(self) -> dict[str, str]:
        return dict(self.env)

    def args_dict(self) -> dict[str, Any]:
        return dict(self.args)

    def to_dict(self) -> dict[str, Any]:
        out: dict[str, Any] = {
            "name": self.name,
            "description": self.description,
            "env": self.env_dict(),
            "args": thaw(self.args_dict()),
        }
        if self.patch is not None:
            out["patch"] = {"path": self.patch.path, "hash": self.patch.hash}
        return out


@dataclass(frozen=True)
class Timeouts:
    launch: float = 300.0
    weight_loading: float = 3600.0
    kv_cache_alloc: float = 300.0
    cuda_graph_capture: float = 1200.0
    warmup: float = 600.0
    silence: float = 180.0
    stop_grace: float = 30.0

    def for_phase(self, phase: Phase) -> float | None:
        """The deadline of a startup phase; None once ready (no deadline)."""
        phase = Phase(phase)
        if phase in (Phase.READY, Phase.SERVING):
            return None
        return float(getattr(self, phase.value))


@dataclass(frozen=True)
class HealthSpec:
    path: str = "/health"
    interval: float = 10.0
    timeout: float = 5.0
    failures: int = 3
    # After ready, one short generation every canary_interval seconds (0 = off), answered
    # within canary_timeout: /health answers while a hung scheduler generates nothing.
    canary_interval: float = 60.0
    canary_timeout: float = 30.0
    engine_metrics: bool = False  # scrape the engine's Prometheus /metrics while serving


@dataclass(frozen=True)
class FallbackSpec:
    strategy: str = "none"
    chain: tuple[str, ...] = ()
    remedies: tuple[str, ...] = ()
    max_attempts: int = 6
    time_budget: float | None = None


@dataclass(frozen=True)
class RestartSpec:
    """What to do when a run that was ready fails later (crash, hang, unhealthy)."""

    on_failure: str = "restart"     # restart | none
    max_restarts: int = 3           # within `window` seconds; then give up (flapping)
    window: float = 600.0
    backoff: float = 10.0           # first delay; doubles per restart in the window
    backoff_max: float = 300.0


@dataclass(frozen=True)
class GroupSpec:
    """A launch group: one server spanning nodes, each node's daemon launching its rank.
    ``nodes`` in rank order (node names of the daemons' [cluster] config); rank 0 listens on
    ``dist_init_port`` for the ranks' rendezvous."""

    nodes: tuple[str, ...]
    dist_init_port: int

    @property
    def name(self) -> str:
        """The group's key in the coordination store: its nodes, in rank order."""
        return "+".join(self.nodes)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "nodes": list(self.nodes),
                "dist_init_port": self.dist_init_port}


@dataclass(frozen=True)
class ResolvedProfile:
    """A profile after ``extends`` and ``changes``: exactly what one launch runs."""

    name: str
    description: str
    engine: str
    version: str | None
    parent: str | None
    changes: tuple[str, ...]
    own_changes: tuple[Change, ...]
    command: tuple[str, ...]
    model: str | None
    host: str
    port: int
    args: tuple[tuple[str, Any], ...]
    env: tuple[tuple[str, str], ...]
    cwd: str | None
    timeouts: Timeouts = field(default_factory=Timeouts)
    health: HealthSpec = field(default_factory=HealthSpec)
    fallback: FallbackSpec = field(default_factory=FallbackSpec)
    restart: RestartSpec = field(default_factory=RestartSpec)
    benchmark: FrozenMap | None = None
    source: str = ""
    patches: tuple[Patch, ...] = ()   # source patches of the applied changes, in order
    group: GroupSpec | None = None    # a launch group's nodes; None: this node alone

    def argv(self) -> list[str]:
        """The command line as its engine builds it ({python} not yet substituted)."""
        return get_engine(self.engine).argv(self)

    def env_dict(self) -> dict[str, str]:
        return dict(self.env)

    def args_dict(self) -> dict[str, Any]:
        return dict(self.args)

    def launch_identity(self) -> dict[str, Any]:
        """Everything that affects the launch, canonicalised (sorted; order of keys is noise)."""
        return {
            "engine": self.engine,
            "version": self.version,
            "command": list(self.command),
            "model": self.model,
            "host": self.host,
            "port": self.port,
            "args": sorted([k, thaw(v)] for k, v in self.args),
            "env": sorted([k, v] for k, v in self.env),
            "cwd": self.cwd,
            # Only when there are patches: every profile without one keeps its hash.
            **({"patches": [[p.change, p.hash] for p in self.patches]} if self.patches else {}),
            **({"group": self.group.to_dict()} if self.group is not None else {}),
        }

    @property
    def hash(self) -> str:
        """Stable across processes: sha256 of canonical JSON, never Python's salted hash()."""
        blob = json.dumps(self.launch_identity(), sort_keys=True, separators=(",", ":"))
        return hashlib.sha256(blob.encode()).hexdigest()[:16]

    def to_dict(self) -> dict[str, Any]:
        return {
            "name": self.name,
            "description": self.description,
            "engine": self.engine,
            "version": self.version,
            "parent": self.parent,
            "changes": list(self.changes),
            "own_changes": [c.to_dict() for c in self.own_changes],
            "command": list(self.command),
            "model": self.model,
            "host": self.host,
            "port": self.port,
            "args": thaw(self.args_dict()),
            "env": self.env_dict(),
            "cwd": self.cwd,
            "timeouts": vars_of(self.timeouts),
            "health": vars_of(self.health),
            "fallback": thaw(vars_of(self.fallback)),
            "restart": thaw(vars_of(self.restart)),
            "benchmark": thaw(self.benchmark) if self.benchmark is not None else None,
            "source": self.source,
            "patches": [p.to_dict() for p in self.patches],
            "group": self.group.to_dict() if self.group is not None else None,
            "argv": self.argv(),
            "hash": self.hash,
        }


def vars_of(obj: Any) -> dict[str, Any]:
    """A dataclass's fields as a plain dict (shallow; values are already frozen scalars)."""
    return {name: getattr(obj, name) for name in obj.__dataclass_fields__}
