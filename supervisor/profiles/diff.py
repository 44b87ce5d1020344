"""Differences between resolved profiles (``show``) and between profile sets (hot reload)."""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from supervisor.profiles.model import ResolvedProfile, thaw, vars_of

if TYPE_CHECKING:
    from supervisor.profiles.resolve import ProfileSet

_LAUNCH = ("command", "model", "host", "port", "cwd", "version")


def flatten(profile: ResolvedProfile) -> dict[str, Any]:
    """Every setting under a dotted key, values JSON-ready: the unit a diff line talks about."""
    flat: dict[str, Any] = {"engine": profile.engine, "description": profile.description}
    for key in _LAUNCH:
        flat[f"launch.{key}"] = thaw(getattr(profile, key))
    for key, value in profile.args:
        flat[f"launch.args.{key}"] = thaw(value)
    for key, value in profile.env:
        flat[f"env.{key}"] = value
    for table in ("timeouts", "health", "fallback"):
        for key, value in vars_of(getattr(profile, table)).items():
            flat[f"{table}.{key}"] = thaw(value)
    for key, value in (profile.benchmark or {}).items():
        flat[f"benchmark.{key}"] = thaw(value)
    for patch in profile.patches:
        flat[f"patch.{patch.change}"] = f"{patch.path} (sha256 {patch.hash})"
    return flat


def diff_resolved(old: ResolvedProfile | None, new: ResolvedProfile) -> list[dict[str, Any]]:
    """``[{key, old, new}]`` for every setting that differs; ``old=None`` lists all of new."""
    before = flatten(old) if old is not None else {}
    after = flatten(new)
    out = [
        {"key": key, "old": before.get(key), "new": value}
        for key, value in after.items()
        if key not in before or before[key] != value
    ]
    out += [{"key": key, "old": value, "new": None} for key, value in before.items()
            if key not in after]
    return out


def diff_from_parent(pset: ProfileSet, name: str) -> list[dict[str, Any]]:
    """What ``name`` changes relative to the profile it extends (everything, if none)."""
    profile = pset.resolve(name)
    parent = pset.resolve(profile.parent) if profile.parent else None
    return diff_resolved(parent, profile)


def _fingerprint(pset: ProfileSet, name: str) -> dict[str, Any]:
    data = pset.resolve(name).to_dict()
    data.pop("source", None)  # moving a file is not a change of settings
    return data


def diff_sets(old: ProfileSet, new: ProfileSet) -> dict[str, list[str]]:
    """Compare valid profiles of two loads (pure; the daemon decides what to do).

    ``removed``: valid before, no file now. ``invalid``: valid before, its file now has
    errors (a bad edit: keep using the old one). ``errors``: all errors of the new set.
    """
    before, after = set(old.names()), set(new.names())
    now_invalid = sorted(n for n in before - after if new.source_of(n) is not None)
    return {
        "added": sorted(after - before),
        "removed": sorted(before - after - set(now_invalid)),
        "changed": sorted(n for n in before & after
                          if _fingerprint(old, n) != _fingerprint(new, n)),
        "invalid": now_invalid,
        "errors": [str(e) for e in new.errors],
    }
