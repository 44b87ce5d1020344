"""Campaign plans: ``campaigns/NAME.toml`` in the profiles folder, checked against its profiles.

```toml
description = "The seed's plan"
baseline = "demo-baseline"          # measured first: the reference of every comparison
time_budget = 900                   # seconds for the whole campaign (default 3600)
baseline_max_age = 600              # re-measure the baseline before an experiment when it is
                                    # older (default 1800 s); also re-measured when an
                                    # experiment ran under other GPU clocks / throttling
stop = "end"                        # end | first_failure | first_success
finish = "best"                     # best: end serving the passing experiment with the best
                                    # rate (else the baseline); last: leave the last one

[[experiments]]                     # tried from the first, then as the branches say
name = "fewchan_fusion"
profile = "demo-fewchan-fusion"
changes = ["nccl_fewchan", "flashinfer_fusion"]   # default: all of the profile's changes
success = { min_speedup = 1.0, max_ttft_ms = 500 }  # ready, and these (each optional)
on_success = "eagle3_fewchan"       # an experiment's name, or "stop"
on_failure = "nccl_alone"           # default for both: the next experiment in the file
timeout = 600                       # seconds for this experiment (default: what is left)
```
"""

from __future__ import annotations

import math
import sys
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

if sys.version_info >= (3, 11):
    import tomllib
else:  # pragma: no cover - Python 3.10
    import tomli as tomllib

from supervisor.profiles import ProfileError, ProfileSet
from supervisor.profiles.files import read_profile_bytes

CAMPAIGNS_DIR = "campaigns"
STOP = "stop"
STOP_WHEN = ("end", "first_failure", "first_success")
FINISH = ("best", "last")
TOP_KEYS = ("description", "baseline", "time_budget", "baseline_max_age", "stop", "finish",
            "experiments")
EXPERIMENT_KEYS = ("name", "profile", "changes", "success", "on_success", "on_failure",
                   "timeout", "description")
SUCCESS_KEYS = ("min_speedup", "max_ttft_ms")
MAX_EXPERIMENTS = 64


class PlanError(ValueError):
    """A campaign file that cannot be run; the message names the file and the key."""


@dataclass(frozen=True)
class Experiment:
    name: str
    profile: str
    changes: tuple[str, ...] | None
    min_speedup: float | None = None
    max_ttft_ms: float | None = None
    on_success: str | None = None
    on_failure: str | None = None
    timeout: float | None = None
    description: str = ""

    def criterion(self) -> str:
        parts = ["ready"]
        if self.min_speedup is not None:
            parts.append(f"tok/s >= {self.min_speedup:g} x baseline")
        if self.max_ttft_ms is not None:
            parts.append(f"TTFT <= {self.max_ttft_ms:g} ms")
        return ", ".join(parts)

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "profile": self.profile,
                "changes": list(self.changes) if self.changes is not None else None,
                "success": self.criterion(), "on_success": self.on_success,
                "on_failure": self.on_failure, "timeout": self.timeout}


@dataclass(frozen=True)
class Plan:
    name: str
    source: str
    baseline: str
    experiments: tuple[Experiment, ...]
    time_budget: float = 3600.0
    stop: str = "end"
    description: str = ""
    by_name: dict[str, Experiment] = field(default_factory=dict, compare=False)
    baseline_max_age: float = 1800.0
    finish: str = "best"

    def next_after(self, exp: Experiment, ok: bool) -> tuple[str | None, str]:
        """The experiment that follows ``exp`` (None: the campaign ends) and why."""
        branch = exp.on_success if ok else exp.on_failure
        key = "on_success" if ok else "on_failure"
        if (self.stop == "first_failure" and not ok) or (self.stop == "first_success" and ok):
            return None, f"stop = {self.stop}"
        if branch == STOP:
            return None, f"{key} = stop"
        if branch is not None:
            return branch, f"{key} = {branch}"
        index = self.experiments.index(exp)
        if index + 1 < len(self.experiments):
            return self.experiments[index + 1].name, "the next experiment in the plan"
        return None, "the last experiment of the plan"

    def to_dict(self) -> dict[str, Any]:
        return {"name": self.name, "source": self.source, "baseline": self.baseline,
                "time_budget": self.time_budget, "stop": self.stop,
                "baseline_max_age": self.baseline_max_age, "finish": self.finish,
                "description": self.description,
                "experiments": [e.to_dict() for e in self.experiments]}


def campaign_path(profiles_dir: Path, name: str) -> Path:
    if not name or "/" in name or name.startswith(".") or "\0" in name:
        raise PlanError(f"{name!r} is not a campaign name (a file stem in "
                        f"{profiles_dir / CAMPAIGNS_DIR})")
    return profiles_dir / CAMPAIGNS_DIR / f"{name}.toml"


def list_campaigns(profiles_dir: Path) -> list[str]:
    folder = profiles_dir / CAMPAIGNS_DIR
    try:
        return sorted(p.stem for p in folder.iterdir() if p.suffix == ".toml")[:1000]
    except OSError:
        return []


def load_plan(profiles_dir: Path, name: str, profiles: ProfileSet) -> Plan:
    """The plan ``name``, checked against ``profiles``; raises PlanError."""
    path = campaign_path(profiles_dir, name)
    if not path.exists():
        known = ", ".join(list_campaigns(profiles_dir)) or "none"
        raise PlanError(f"no campaign {name!r}: {path} does not exist (campaigns: {known})")
    try:
        data = tomllib.loads(read_profile_bytes(path).decode("utf-8"))
    except ProfileError as exc:
        raise PlanError(str(exc)) from None
    except (UnicodeDecodeError, tomllib.TOMLDecodeError) as exc:
        raise PlanError(f"{path}: {exc}") from None
    return _plan(name, str(path), data, profiles)


def _plan(name: str, source: str, data: dict[str, Any], profiles: ProfileSet) -> Plan:
    def fail(key: str, message: str) -> PlanError:
        return PlanError(f"{source}: {key}: {message}")

    for key in data:
        if key not in TOP_KEYS:
            raise fail(key, f"unknown key (allowed: {', '.join(TOP_KEYS)})")
    baseline = data.get("baseline")
    if not isinstance(baseline, str) or baseline not in profiles:
        raise fail("baseline", f"must name a valid profile, got {baseline!r}")
    budget = _seconds(data.get("time_budget", 3600.0), lambda m: fail("time_budget", m))
    max_age = _seconds(data.get("baseline_max_age", 1800.0),
                       lambda m: fail("baseline_max_age", m))
    stop = data.get("stop", "end")
    if stop not in STOP_WHEN:
        raise fail("stop", f"must be one of {', '.join(STOP_WHEN)}, got {stop!r}")
    finish = data.get("finish", "best")
    if finish not in FINISH:
        raise fail("finish", f"must be one of {', '.join(FINISH)}, got {finish!r}")
    raw = data.get("experiments")
    if not isinstance(raw, list) or not raw or not all(isinstance(e, dict) for e in raw):
        raise fail("experiments", "must be a non-empty array of tables ([[experiments]])")
    if len(raw) > MAX_EXPERIMENTS:
        raise fail("experiments", f"at most {MAX_EXPERIMENTS}")
    experiments = tuple(_experiment(f"experiments[{i}]", e, profiles, fail)
                        for i, e in enumerate(raw))
    by_name = {e.name: e for e in experiments}
    if len(by_name) != len(experiments):
        raise fail("experiments", "experiment names must be unique")
    for i, exp in enumerate(experiments):
        for key in ("on_success", "on_failure"):
            target = getattr(exp, key)
            if target is not None and target != STOP and target not in by_name:
                raise fail(f"experiments[{i}].{key}", f"names no experiment: {target!r} "
                                                      f"(known: {', '.join(by_name)}, or stop)")
    description = data.get("description", "")
    if not isinstance(description, str):
        raise fail("description", "must be a string")
    return Plan(name, source, baseline, experiments, budget, stop, description, by_name,
                max_age, finish)


def _experiment(prefix: str, table: dict[str, Any], profiles: ProfileSet, fail: Any
                ) -> Experiment:
    for key in table:
        if key not in EXPERIMENT_KEYS:
            raise fail(f"{prefix}.{key}", f"unknown key (allowed: {', '.join(EXPERIMENT_KEYS)})")
    name, profile = table.get("name"), table.get("profile")
    if not isinstance(name, str) or not name or name in (STOP, "baseline"):
        raise fail(f"{prefix}.name", f"must be a non-empty string other than 'stop' and "
                                     f"'baseline', got {name!r}")
    if not isinstance(profile, str) or profile not in profiles:
        raise fail(f"{prefix}.profile", f"must name a valid profile, got {profile!r}")
    changes = table.get("changes")
    if changes is not None:
        own = [c.name for c in profiles.own_changes(profile)]
        if not isinstance(changes, list) or not all(isinstance(c, str) for c in changes):
            raise fail(f"{prefix}.changes", "must be a list of change names")
        unknown = [c for c in changes if c not in own]
        if unknown:
            raise fail(f"{prefix}.changes", f"{profile} has no change {unknown[0]!r} "
                                            f"(it has: {', '.join(own) or 'none'})")
    success = table.get("success", {})
    if not isinstance(success, dict):
        raise fail(f"{prefix}.success", "must be a table")
    for key in success:
        if key not in SUCCESS_KEYS:
            raise fail(f"{prefix}.success.{key}", f"unknown (allowed: {', '.join(SUCCESS_KEYS)})")
    bounds = {k: _number(success[k], lambda m, k=k: fail(f"{prefix}.success.{k}", m))
              for k in SUCCESS_KEYS if k in success}
    branches = {}
    for key in ("on_success", "on_failure"):
        value = table.get(key)
        if value is not None and not isinstance(value, str):
            raise fail(f"{prefix}.{key}", "must be an experiment's name or 'stop'")
        branches[key] = value
    timeout = table.get("timeout")
    if timeout is not None:
        timeout = _seconds(timeout, lambda m: fail(f"{prefix}.timeout", m))
    return Experiment(name, profile, tuple(changes) if changes is not None else None,
                      bounds.get("min_speedup"), bounds.get("max_ttft_ms"),
                      branches["on_success"], branches["on_failure"], timeout,
                      str(table.get("description", "")))


def _number(value: Any, fail: Any) -> float:
    if isinstance(value, bool) or not isinstance(value, (int, float)) \
            or not math.isfinite(value) or value <= 0:
        raise fail(f"must be a positive number, got {value!r}")
    return float(value)


def _seconds(value: Any, fail: Any) -> float:
    seconds = _number(value, fail)
    if seconds > 7 * 86400:
        raise fail(f"at most a week (604800 s), got {value!r}")
    return seconds
