"""Parse and check one profile file, collecting every error with its file, key and line.

The result is a ``RawProfile``: only the keys the file itself sets, type-checked and
normalised. Inheritance and changes are resolve.py's business.
"""

from __future__ import annotations

import math
import re
import sys
import time
from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, cast

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from supervisor.engines.base import arg_key
from supervisor.profiles.errors import ProfileError
from supervisor.profiles.files import ReadBudget
from supervisor.profiles.lines import LineIndex
from supervisor.profiles.model import (
    ENGINES,
    KNOWN_REMEDIES,
    STRATEGIES,
    Change,
    FallbackSpec,
    HealthSpec,
    RestartSpec,
    Timeouts,
)
from supervisor.profiles.patches import load_patch

TOP_KEYS = ("description", "extends", "engine", "launch", "timeouts", "health", "changes",
            "fallback", "restart", "benchmark", "group")
GROUP_KEYS = ("nodes", "dist_init_port")
LAUNCH_KEYS = ("command", "model", "host", "port", "args", "env", "cwd", "version")
CHANGE_KEYS = ("name", "description", "env", "args", "patch")
IDENT = re.compile(r"^[A-Za-z_][A-Za-z0-9_\-]*$")
ENV_NAME = re.compile(r"^[A-Za-z_][A-Za-z0-9_]*$")
ARG_NAME = re.compile(r"^[A-Za-z0-9][A-Za-z0-9_\-]*$")
_TOML_POS = re.compile(r"\s*\(at line (\d+), column (\d+)\)\s*$")

# Sane ranges for every number a profile sets: NaN, inf, negative and absurd values are
# refused where they are written (a NaN launch budget times out at once; an infinite
# stop_grace never escalates to SIGKILL).
MIN_SECONDS = 0.01
HOUR, DAY, WEEK = 3600.0, 86400.0, 7 * 86400.0
SECONDS: dict[str, float] = {
    "timeouts.silence": DAY,
    "timeouts.stop_grace": HOUR,
    "health.interval": HOUR,
    "health.timeout": HOUR,
    "health.canary_timeout": HOUR,
    "restart.backoff": DAY,
    "restart.backoff_max": DAY,
    "benchmark.timeout": DAY,
}  # any other duration: at most a week
INT_MAX: dict[str, int] = {
    "health.failures": 1000,
    "fallback.max_attempts": 1000,
    "restart.max_restarts": 1000,
    "benchmark.max_tokens": 1_000_000,
    "benchmark.repeat": 100,
}
MAX_NESTING = 16  # tables and arrays inside each other; tomllib itself recurses


@dataclass
class RawProfile:
    """What one file sets, checked. ``errors`` non-empty means the file is invalid."""

    name: str
    source: str
    lines: LineIndex | None = None
    description: str | None = None
    extends: str | None = None
    engine: str | None = None
    launch: dict[str, Any] = field(default_factory=dict)  # command/model/host/port/cwd/version
    args: dict[str, Any] = field(default_factory=dict)  # canonical flag name -> value
    env: dict[str, str] = field(default_factory=dict)
    timeouts: dict[str, float] = field(default_factory=dict)
    health: dict[str, Any] = field(default_factory=dict)
    fallback: dict[str, Any] = field(default_factory=dict)
    restart: dict[str, Any] = field(default_factory=dict)
    benchmark: dict[str, Any] | None = None
    changes: tuple[Change, ...] = ()
    group: dict[str, Any] = field(default_factory=dict)  # nodes, dist_init_port
    errors: list[ProfileError] = field(default_factory=list)
    loaded_at: float = field(default_factory=time.time)  # when this version was read

    def error(self, key: str | None, message: str) -> ProfileError:
        """Record an error at ``key``, locating its line in the source."""
        line = self.lines.find(key) if self.lines and key else None
        err = ProfileError(message, file=self.source, key=key, line=line)
        self.errors.append(err)
        return err


def show(value: Any) -> str:
    """A value as the user wrote it in TOML, for error messages."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, dict):
        return "a table"
    return repr(value)


def is_number(value: Any) -> bool:
    return isinstance(value, (int, float)) and not isinstance(value, bool)


# -- scalar checks: each returns the value or records an error and returns None --------------


def check_str(raw: RawProfile, key: str, value: Any, *, nonempty: bool = False) -> str | None:
    if not isinstance(value, str) or (nonempty and not value):
        what = "a non-empty string" if nonempty else "a string"
        raw.error(key, f"must be {what}, got {show(value)}")
        return None
    if "\0" in value:
        raw.error(key, NUL_MESSAGE)
        return None
    return value


# exec() cannot pass a NUL in an argument or an environment value: say so at load time.
NUL_MESSAGE = "cannot contain a NUL character (\\u0000)"


def is_finite(value: Any) -> bool:
    """A number that is not NaN or infinite (TOML allows nan and inf); a TOML integer is
    unbounded, so one that does not fit in 64 bits counts as infinite too."""
    if isinstance(value, float):
        return math.isfinite(value)
    return is_number(value) and -(1 << 63) <= value < (1 << 63)


def check_seconds(raw: RawProfile, key: str, value: Any) -> float | None:
    """A duration: finite and within the range ``SECONDS`` allows for ``key``."""
    hi = SECONDS.get(key, WEEK)
    if not is_finite(value) or not MIN_SECONDS <= value <= hi:
        raw.error(key, f"must be a number of seconds from {MIN_SECONDS:g} to {hi:g}, "
                       f"got {show(value)}")
        return None
    return float(value)


def check_int(raw: RawProfile, key: str, value: Any, lo: int, hi: int | None = None) -> int | None:
    hi = INT_MAX.get(key, hi)
    ok = isinstance(value, int) and not isinstance(value, bool)
    if not ok or value < lo or (hi is not None and value > hi):
        bound = f"between {lo} and {hi}" if hi is not None else f">= {lo}"
        raw.error(key, f"must be an integer {bound}, got {show(value)}")
        return None
    return cast(int, value)


def check_str_list(raw: RawProfile, key: str, value: Any, *,
                   nonempty: bool) -> tuple[str, ...] | None:
    good = isinstance(value, list) and all(isinstance(v, str) and v for v in value)
    if not good or (nonempty and not value):
        what = "a non-empty list of strings" if nonempty else "a list of strings"
        raw.error(key, f"must be {what}, got {show(value)}")
        return None
    if any("\0" in v for v in value):
        raw.error(key, NUL_MESSAGE)
        return None
    return tuple(value)


def check_table(raw: RawProfile, key: str, value: Any) -> dict[str, Any] | None:
    if not isinstance(value, dict):
        raw.error(key, f"must be a table, got {show(value)}")
        return None
    return value


def unknown_keys(raw: RawProfile, prefix: str, table: dict[str, Any],
                 allowed: tuple[str, ...]) -> None:
    for key in table:
        if key not in allowed:
            where = f"{prefix}.{key}" if prefix else key
            raw.error(where, f"unknown key (allowed: {', '.join(allowed)})")


# -- env and args tables ---------------------------------------------------------------------


def check_env(raw: RawProfile, prefix: str, value: Any) -> dict[str, str]:
    table = check_table(raw, prefix, value) or {}
    out: dict[str, str] = {}
    for name, val in table.items():
        key = f"{prefix}.{name}"
        if not ENV_NAME.match(name):
            raw.error(key, "not a valid environment variable name")
        elif not isinstance(val, str):
            # Coercing silently would hide `= true` vs "1"; say how to write it instead.
            scalar = isinstance(val, (bool, int, float))
            hint = f' (write {name} = "{show(val)}")' if scalar else ""
            raw.error(key, f"environment values must be strings, got {show(val)}{hint}")
        elif "\0" in val:
            raw.error(key, NUL_MESSAGE)
        else:
            out[name] = val
    return out


def check_arg_value(raw: RawProfile, key: str, value: Any) -> Any:
    if isinstance(value, str) and "\0" in value or isinstance(value, list) and any(
            isinstance(v, str) and "\0" in v for v in value):
        raw.error(key, NUL_MESSAGE)
        return None
    items = value if isinstance(value, list) else [value]
    if any(is_number(v) and not is_finite(v) for v in items):
        raw.error(key, f"must be a finite number, got {show(value)}")
        return None
    if isinstance(value, (bool, int, float, str)):
        return value
    if isinstance(value, list) and value and all(
        isinstance(v, (str, int, float)) and not isinstance(v, bool) for v in value
    ):
        return tuple(value)
    raw.error(key, f"must be true/false, a number, a string or a non-empty list of them, "
                   f"got {show(value)}")
    return None


def check_args(raw: RawProfile, prefix: str, value: Any) -> dict[str, Any]:
    table = check_table(raw, prefix, value) or {}
    out: dict[str, Any] = {}
    for name, val in table.items():
        key = f"{prefix}.{name}"
        flag = arg_key(name)
        if not ARG_NAME.match(name):
            raw.error(key, "not a valid flag name (write it without leading dashes)")
        elif flag in out:
            raw.error(key, f"same flag as another key (--{flag})")
        else:
            checked = check_arg_value(raw, key, val)
            if checked is not None:
                out[flag] = checked
    return out


# -- tables ----------------------------------------------------------------------------------


def load_launch(raw: RawProfile, value: Any) -> None:
    table = check_table(raw, "launch", value) or {}
    unknown_keys(raw, "launch", table, LAUNCH_KEYS)
    checks: dict[str, Callable[[str, Any], Any]] = {
        "command": lambda k, v: check_str_list(raw, k, v, nonempty=True),
        "model": lambda k, v: check_str(raw, k, v, nonempty=True),
        "host": lambda k, v: check_str(raw, k, v, nonempty=True),
        "port": lambda k, v: check_int(raw, k, v, 1, 65535),
        "cwd": lambda k, v: check_str(raw, k, v, nonempty=True),
        "version": lambda k, v: check_str(raw, k, v, nonempty=True),
    }
    for name, check in checks.items():
        if name in table:
            checked = check(f"launch.{name}", table[name])
            if checked is not None:
                raw.launch[name] = checked
    if "args" in table:
        raw.args = check_args(raw, "launch.args", table["args"])
    if "env" in table:
        raw.env = check_env(raw, "launch.env", table["env"])


def load_timeouts(raw: RawProfile, value: Any) -> None:
    table = check_table(raw, "timeouts", value) or {}
    allowed = tuple(Timeouts.__dataclass_fields__)
    unknown_keys(raw, "timeouts", table, allowed)
    for name in allowed:
        if name in table:
            checked = check_seconds(raw, f"timeouts.{name}", table[name])
            if checked is not None:
                raw.timeouts[name] = checked


def load_health(raw: RawProfile, value: Any) -> None:
    table = check_table(raw, "health", value) or {}
    unknown_keys(raw, "health", table, tuple(HealthSpec.__dataclass_fields__))
    if "path" in table:
        path = check_str(raw, "health.path", table["path"], nonempty=True)
        if path is not None and not path.startswith("/"):
            raw.error("health.path", f"must start with '/', got {show(path)}")
        elif path is not None:
            raw.health["path"] = path
    for name in ("interval", "timeout"):
        if name in table:
            checked = check_seconds(raw, f"health.{name}", table[name])
            if checked is not None:
                raw.health[name] = checked
    if "failures" in table:
        checked = check_int(raw, "health.failures", table["failures"], 1)
        if checked is not None:
            raw.health["failures"] = checked
    load_canary(raw, table)


def load_canary(raw: RawProfile, table: dict[str, Any]) -> None:
    """canary_interval (0 turns the canary off), canary_timeout, engine_metrics."""
    if "canary_interval" in table:
        value = table["canary_interval"]
        # at least a second apart: a canary is a real generation on the served model
        if is_finite(value) and (value == 0 or 1 <= value <= DAY):
            raw.health["canary_interval"] = float(value)
        else:
            raw.error("health.canary_interval", "must be 0 (off) or a number of seconds "
                      f"from 1 to {DAY:g}, got {show(value)}")
    if "canary_timeout" in table:
        checked = check_seconds(raw, "health.canary_timeout", table["canary_timeout"])
        if checked is not None:
            raw.health["canary_timeout"] = checked
    if "engine_metrics" in table:
        if isinstance(table["engine_metrics"], bool):
            raw.health["engine_metrics"] = table["engine_metrics"]
        else:
            raw.error("health.engine_metrics",
                      f"must be true or false, got {show(table['engine_metrics'])}")


def load_fallback(raw: RawProfile, value: Any) -> None:
    table = check_table(raw, "fallback", value) or {}
    unknown_keys(raw, "fallback", table, tuple(FallbackSpec.__dataclass_fields__))
    if "strategy" in table:
        strategy = table["strategy"]
        if strategy not in STRATEGIES:
            raw.error("fallback.strategy", f"must be one of {', '.join(STRATEGIES)}, "
                                           f"got {show(strategy)}")
        else:
            raw.fallback["strategy"] = strategy
    if "chain" in table:
        chain = check_str_list(raw, "fallback.chain", table["chain"], nonempty=False)
        if chain is not None:
            raw.fallback["chain"] = chain
    if "remedies" in table:
        load_remedies(raw, table["remedies"])
    if "max_attempts" in table:
        checked = check_int(raw, "fallback.max_attempts", table["max_attempts"], 1)
        if checked is not None:
            raw.fallback["max_attempts"] = checked
    if "time_budget" in table:
        budget = check_seconds(raw, "fallback.time_budget", table["time_budget"])
        if budget is not None:
            raw.fallback["time_budget"] = budget


def load_restart(raw: RawProfile, value: Any) -> None:
    table = check_table(raw, "restart", value) or {}
    unknown_keys(raw, "restart", table, tuple(RestartSpec.__dataclass_fields__))
    if "on_failure" in table:
        if table["on_failure"] not in ("restart", "none"):
            raw.error("restart.on_failure", f"must be restart or none, "
                                            f"got {show(table['on_failure'])}")
        else:
            raw.restart["on_failure"] = table["on_failure"]
    if "max_restarts" in table:
        checked = check_int(raw, "restart.max_restarts", table["max_restarts"], 0)
        if checked is not None:
            raw.restart["max_restarts"] = checked
    for name in ("window", "backoff", "backoff_max"):
        if name in table:
            seconds = check_seconds(raw, f"restart.{name}", table[name])
            if seconds is not None:
                raw.restart[name] = seconds


def load_group(raw: RawProfile, value: Any) -> None:
    """[group]: the nodes in rank order (distinct names) and rank 0's rendezvous port."""
    table = check_table(raw, "group", value) or {}
    unknown_keys(raw, "group", table, GROUP_KEYS)
    if "nodes" in table:
        nodes = check_str_list(raw, "group.nodes", table["nodes"], nonempty=True)
        if nodes is not None and len(set(nodes)) != len(nodes):
            raw.error("group.nodes", "each node may appear once (a node runs one rank)")
        elif nodes is not None:
            raw.group["nodes"] = nodes
    if "dist_init_port" in table:
        port = check_int(raw, "group.dist_init_port", table["dist_init_port"], 1, 65535)
        if port is not None:
            raw.group["dist_init_port"] = port


def load_benchmark(raw: RawProfile, value: Any) -> dict[str, Any] | None:
    """Its keys belong to the benchmark kind (benchmark.py); the numbers it is known to use
    get their ranges, and every other number must at least be finite."""
    table = check_table(raw, "benchmark", value)
    if table is None:
        return None
    before = len(raw.errors)
    if "timeout" in table:
        check_seconds(raw, "benchmark.timeout", table["timeout"])
    if "max_tokens" in table:
        check_int(raw, "benchmark.max_tokens", table["max_tokens"], 1)
    if "repeat" in table:   # repetitions, for a mean and a spread
        check_int(raw, "benchmark.repeat", table["repeat"], 1)
    checked = ("benchmark.timeout", "benchmark.max_tokens", "benchmark.repeat")
    for key, number in numbers_in(table, "benchmark"):
        if key not in checked and not is_finite(number):
            raw.error(key, f"must be a finite number, got {show(number)}")
    return table if len(raw.errors) == before else None


def numbers_in(value: Any, prefix: str) -> list[tuple[str, Any]]:
    """``(key path, number)`` for every number inside tables and arrays (iterative)."""
    out: list[tuple[str, Any]] = []
    stack: list[tuple[str, Any]] = [(prefix, value)]
    while stack:
        key, item = stack.pop()
        if isinstance(item, dict):
            stack.extend((f"{key}.{k}", v) for k, v in item.items())
        elif isinstance(item, list):
            stack.extend((f"{key}[{i}]", v) for i, v in enumerate(item))
        elif is_number(item):
            out.append((key, item))
    return out


def nesting(value: Any) -> int:
    """How deep tables and arrays sit inside each other (iterative: no recursion limit)."""
    deepest = 0
    stack: list[tuple[Any, int]] = [(value, 0)]
    while stack:
        item, depth = stack.pop()
        if isinstance(item, (dict, list)):
            deepest = max(deepest, depth + 1)
            if deepest > MAX_NESTING:
                return deepest
            stack.extend((v, depth + 1) for v in (item.values() if isinstance(item, dict)
                                                   else item))
    return deepest


def load_remedies(raw: RawProfile, value: Any) -> None:
    remedies = check_str_list(raw, "fallback.remedies", value, nonempty=False)
    if remedies is None:
        return
    bad = [r for r in remedies if r not in KNOWN_REMEDIES]
    if bad:
        raw.error("fallback.remedies", f"unknown remedy {', '.join(map(repr, bad))} "
                                       f"(known: {', '.join(KNOWN_REMEDIES)})")
    else:
        raw.fallback["remedies"] = remedies


def load_changes(raw: RawProfile, value: Any) -> None:
    if not isinstance(value, list) or not all(isinstance(v, dict) for v in value):
        raw.error("changes", "must be an array of tables ([[changes]])")
        return
    out: list[Change] = []
    seen: set[str] = set()
    for index, table in enumerate(value):
        change = load_change(raw, f"changes[{index}]", table)
        if change is None:
            continue
        if change.name in seen:
            raw.error(f"changes[{index}].name", f"duplicate change name {change.name!r}")
            continue
        seen.add(change.name)
        out.append(change)
    raw.changes = tuple(out)


def load_change(raw: RawProfile, prefix: str, table: dict[str, Any]) -> Change | None:
    before = len(raw.errors)
    unknown_keys(raw, prefix, table, CHANGE_KEYS)
    name = table.get("name")
    if name is None:
        raw.error(prefix, "a change needs a name")
    elif not isinstance(name, str) or not IDENT.match(name):
        raw.error(f"{prefix}.name", f"must be an identifier (letters, digits, _ and -), "
                                    f"got {show(name)}")
    description = table.get("description", "")
    check_str(raw, f"{prefix}.description", description)
    env = check_env(raw, f"{prefix}.env", table["env"]) if "env" in table else {}
    args = check_args(raw, f"{prefix}.args", table["args"]) if "args" in table else {}
    patch = None
    if "patch" in table:
        path = check_str(raw, f"{prefix}.patch", table["patch"], nonempty=True)
        if path is not None and isinstance(name, str):
            patch, problem = load_patch(raw.source, name, path)
            if problem is not None:
                raw.error(f"{prefix}.patch", problem)
    if not {"env", "args", "patch"} & set(table):
        raw.error(prefix, "a change must set env or args, or a patch")
    if len(raw.errors) > before:
        return None
    # Change turns the tables into ordered pairs itself; pairs are its declared field type.
    return Change(name=cast(str, name), env=tuple(env.items()), args=tuple(args.items()),
                  description=description, patch=patch)


# -- file ------------------------------------------------------------------------------------

LOADERS: dict[str, Callable[[RawProfile, Any], None]] = {
    "launch": load_launch,
    "timeouts": load_timeouts,
    "health": load_health,
    "fallback": load_fallback,
    "restart": load_restart,
    "changes": load_changes,
    "group": load_group,
}


def load_top(raw: RawProfile, data: dict[str, Any]) -> None:
    unknown_keys(raw, "", data, TOP_KEYS)
    if "description" in data:
        raw.description = check_str(raw, "description", data["description"])
    if "extends" in data:
        raw.extends = check_str(raw, "extends", data["extends"], nonempty=True)
        if raw.extends == raw.name:
            raw.error("extends", "a profile cannot extend itself")
    if "engine" in data:
        if data["engine"] not in ENGINES:
            raw.error("engine", f"must be one of {', '.join(ENGINES)}, got {show(data['engine'])}")
        else:
            raw.engine = data["engine"]
    if "benchmark" in data:
        raw.benchmark = load_benchmark(raw, data["benchmark"])
    for key, loader in LOADERS.items():
        if key in data:
            loader(raw, data[key])


def syntax_error(source: str, exc: Exception) -> ProfileError:
    """tomllib says '... (at line N, column M)': keep the line, drop it from the message."""
    message = str(exc)
    match = _TOML_POS.search(message)
    line = int(match.group(1)) if match else getattr(exc, "lineno", None)
    if match:
        message = f"{message[:match.start()]} (column {match.group(2)})"
    return ProfileError(f"TOML syntax error: {message}", file=source, line=line)


def parse_text(text: str, source: str, name: str | None = None) -> RawProfile:
    raw = RawProfile(name=name or Path(source).stem, source=source)
    try:
        data = tomllib.loads(text)
    except tomllib.TOMLDecodeError as exc:
        raw.errors.append(syntax_error(source, exc))
        return raw
    except RecursionError:  # tomllib recurses into nested arrays and inline tables
        raw.errors.append(ProfileError(f"values nested too deeply (at most {MAX_NESTING} "
                                       f"levels)", file=source))
        return raw
    if nesting(data) > MAX_NESTING:
        raw.errors.append(ProfileError(f"values nested too deeply (at most {MAX_NESTING} "
                                       f"levels)", file=source))
        return raw
    raw.lines = LineIndex(text)
    load_top(raw, data)
    return raw


def parse_file(path: str | Path, budget: ReadBudget | None = None) -> RawProfile:
    """Never raises: an unreadable, irregular or oversized file is a RawProfile with one
    error. ``budget``: the bytes left to the whole load this file belongs to."""
    source = str(path)
    try:
        data = (budget or ReadBudget()).read(path)
        text = data.decode("utf-8")
    except ProfileError as exc:
        return failed(source, exc)
    except UnicodeDecodeError as exc:
        return failed(source, ProfileError(f"not UTF-8 text (byte {exc.start})", file=source))
    return parse_text(text, source)


def failed(source: str, error: ProfileError) -> RawProfile:
    raw = RawProfile(name=Path(source).stem, source=source)
    raw.errors.append(error)
    return raw
