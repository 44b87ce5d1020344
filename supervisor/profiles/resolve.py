"""A set of profiles: cross-file checks (extends, chain) and resolution (extends + changes).

Resolving P = P's parent fully resolved (with all of the parent's changes) + P's own keys,
then P's own ``[[changes]]`` (all, or the subset asked for, in declared order), then ``extra``
ad-hoc deltas (remedies). ``resolve(P, changes=[])`` is the parent that isolation tests
each change against.
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from supervisor.profiles.errors import ProfileError, UnknownProfileError
from supervisor.profiles.load import RawProfile, parse_file
from supervisor.profiles.model import (
    DEFAULT_COMMANDS,
    DEFAULT_HOST,
    DEFAULT_PORTS,
    Change,
    FallbackSpec,
    FrozenMap,
    HealthSpec,
    ResolvedProfile,
    RestartSpec,
    Timeouts,
)

Settings = dict[str, Any]  # only explicitly set values; engine defaults are applied in build()
_SCALARS = ("description", "engine")
_LAUNCH_SCALARS = ("command", "model", "host", "port", "cwd", "version")
_TABLES = ("timeouts", "health", "fallback", "restart")


def empty_settings() -> Settings:
    return {"args": {}, "env": {}, "timeouts": {}, "health": {}, "fallback": {}, "restart": {},
            "benchmark": None}


def merge_own(settings: Settings, raw: RawProfile) -> None:
    """Apply one file's own keys over inherited settings: scalars replace, tables merge per key."""
    for key in _SCALARS:
        if getattr(raw, key) is not None:
            settings[key] = getattr(raw, key)
    settings.update(raw.launch)
    settings["args"].update(raw.args)
    settings["env"].update(raw.env)
    for key in _TABLES:
        settings[key].update(getattr(raw, key))
    if raw.benchmark is not None:
        settings["benchmark"] = {**(settings["benchmark"] or {}), **raw.benchmark}


def apply_change(settings: Settings, change: Change) -> None:
    settings["args"].update(change.args)
    settings["env"].update(change.env)


def build(
    raw: RawProfile, settings: Settings, applied: Iterable[str]
) -> ResolvedProfile:
    """Turn merged settings into the frozen value, applying per-engine defaults last
    (so a child that switches engine does not inherit the parent's default command)."""
    engine = settings.get("engine") or "sglang"
    command = settings.get("command") or DEFAULT_COMMANDS.get(engine)
    if not command:
        raise raw_error(raw, "launch.command", f"required for engine {engine!r}")
    model = settings.get("model")
    if engine != "command" and not model:
        raise raw_error(raw, "launch.model", f"required for engine {engine!r}")
    bench = settings["benchmark"]
    return ResolvedProfile(
        name=raw.name,
        description=settings.get("description") or "",
        engine=engine,
        version=settings.get("version"),
        parent=raw.extends,
        changes=tuple(applied),
        own_changes=raw.changes,
        command=tuple(command),
        model=model,
        host=settings.get("host", DEFAULT_HOST),
        port=settings.get("port", DEFAULT_PORTS[engine]),
        args=tuple(settings["args"].items()),
        env=tuple(settings["env"].items()),
        cwd=settings.get("cwd"),
        timeouts=Timeouts(**settings["timeouts"]),
        health=HealthSpec(**settings["health"]),
        fallback=FallbackSpec(**settings["fallback"]),
        restart=RestartSpec(**settings["restart"]),
        benchmark=FrozenMap(bench) if bench is not None else None,
        source=raw.source,
    )


def raw_error(raw: RawProfile, key: str | None, message: str) -> ProfileError:
    """An error for ``raw`` at ``key`` without recording it (resolve-time problems)."""
    line = raw.lines.find(key) if raw.lines and key else None
    return ProfileError(message, file=raw.source, key=key, line=line)


class ProfileSet:
    """All profiles of a directory (or a list of files). Construction never raises."""

    def __init__(self, raws: Iterable[RawProfile]) -> None:
        self._raw: dict[str, RawProfile] = {}
        self._shadowed: list[RawProfile] = []  # same name as an earlier file
        self._valid: dict[str, bool] = {}
        self._full: dict[str, Settings] = {}  # name -> settings with all its changes
        for raw in raws:
            self._add(raw)
        self._check()
        self.errors: list[ProfileError] = sorted(
            (e for raw in self._all_raws() for e in raw.errors),
            key=lambda e: (e.file or "", e.line or 0),
        )

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def load_dir(cls, directory: str | Path) -> ProfileSet:
        """Every ``*.toml`` directly in ``directory`` (not subdirectories)."""
        path = Path(directory)
        if not path.is_dir():
            pset = cls([])
            pset.errors = [ProfileError("no such directory", file=str(path))]
            return pset
        return cls.load_files(sorted(path.glob("*.toml")))

    @classmethod
    def load_files(cls, paths: Iterable[str | Path]) -> ProfileSet:
        return cls(parse_file(p) for p in paths)

    def keep_valid_from(self, old: ProfileSet) -> ProfileSet:
        """This set, except that a profile valid in ``old`` and invalid here keeps its old
        definition: a bad edit never takes a working profile away. Its errors stay reported."""
        keep = [n for n in old.names() if n in self._raw and not self._valid.get(n)]
        if not keep:
            return self
        raws = [r for n, r in self._raw.items() if n not in keep]
        merged = ProfileSet([*raws, *(old._raw[n] for n in keep)])
        merged.errors = list(self.errors)
        return merged

    def _add(self, raw: RawProfile) -> None:
        first = self._raw.get(raw.name)
        if first is not None:
            raw.error(None, f"duplicate profile name {raw.name!r} (also {first.source})")
            self._shadowed.append(raw)
        else:
            self._raw[raw.name] = raw

    def _all_raws(self) -> list[RawProfile]:
        return [*self._raw.values(), *self._shadowed]

    # -- cross-file checks -------------------------------------------------------------------

    def _check(self) -> None:
        for raw in self._raw.values():
            self._check_extends(raw)
            self._check_chain(raw)
        for name in sorted(self._raw):
            self._is_valid(name)

    def _check_extends(self, raw: RawProfile) -> None:
        """Missing parents and cycles; the error goes on every file of the cycle."""
        seen = [raw.name]
        current = raw
        while current.extends is not None:
            parent = current.extends
            if parent not in self._raw:
                if current is raw:
                    raw.error("extends", f"extends unknown profile {parent!r}")
                return
            if parent in seen:
                cycle = seen[seen.index(parent):] + [parent]
                if raw.name in cycle:
                    raw.error("extends", f"extends cycle: {' -> '.join(cycle)}")
                return
            seen.append(parent)
            current = self._raw[parent]

    def _check_chain(self, raw: RawProfile) -> None:
        for entry in raw.fallback.get("chain", ()):
            if entry == raw.name:
                raw.error("fallback.chain", "a profile cannot fall back to itself")
            elif entry not in self._raw:
                raw.error("fallback.chain", f"unknown profile {entry!r}")

    def _is_valid(self, name: str) -> bool:
        """Valid = no errors of its own, a valid parent, and a default resolve that builds."""
        if name in self._valid:
            return self._valid[name]
        raw = self._raw[name]
        self._valid[name] = False  # guards recursion; cycles already carry errors
        if raw.errors:
            return False
        if raw.extends is not None and not self._is_valid(raw.extends):
            raw.error("extends", f"extends {raw.extends!r}, which has errors")
            return False
        try:
            settings = self._own_settings(raw)
            for change in raw.changes:
                apply_change(settings, change)
            build(raw, settings, ())
        except ProfileError as err:
            raw.errors.append(err)
            return False
        self._full[name] = settings
        self._valid[name] = True
        return True

    def _own_settings(self, raw: RawProfile) -> Settings:
        """Parent with all its changes, plus this file's own keys (a fresh, mutable copy)."""
        base = self._full[raw.extends] if raw.extends is not None else empty_settings()
        settings = copy.deepcopy(base)
        merge_own(settings, raw)
        return settings

    # -- queries -----------------------------------------------------------------------------

    def names(self) -> list[str]:
        return sorted(n for n, ok in self._valid.items() if ok)

    def __contains__(self, name: object) -> bool:
        return bool(self._valid.get(name))  # type: ignore[arg-type]

    def errors_for(self, name: str) -> list[ProfileError]:
        raw = self._raw.get(name)
        return list(raw.errors) if raw else []

    def source_of(self, name: str) -> str | None:
        raw = self._raw.get(name)
        return raw.source if raw else None

    def parent_of(self, name: str) -> str | None:
        raw = self._raw.get(name)
        return raw.extends if raw else None

    def own_changes(self, name: str) -> tuple[Change, ...]:
        return self._get(name).changes

    def _get(self, name: str) -> RawProfile:
        raw = self._raw.get(name)
        if raw is None:
            raise UnknownProfileError(f"unknown profile {name!r}")
        if not self._valid.get(name):
            first = raw.errors[0] if raw.errors else ProfileError("invalid", file=raw.source)
            raise ProfileError(f"profile is invalid: {first.message}",
                               file=raw.source, key=first.key, line=first.line)
        return raw

    def resolve(
        self,
        name: str,
        *,
        changes: Sequence[str] | None = None,
        extra: Sequence[Change] = (),
    ) -> ResolvedProfile:
        """``changes=None``: all own changes; a list: that subset, applied in declared order."""
        raw = self._get(name)
        if isinstance(changes, str):
            changes = [changes]  # a lone name, not its characters
        known = [c.name for c in raw.changes]
        for wanted in changes or ():
            if wanted not in known:
                raise raw_error(raw, "changes", f"unknown change {wanted!r} "
                                                f"(this profile has: {', '.join(known) or 'none'})")
        selected = [c for c in raw.changes if changes is None or c.name in changes]
        settings = self._own_settings(raw)
        for change in [*selected, *extra]:
            apply_change(settings, change)
        applied = [c.name for c in [*selected, *extra] if c.name]
        return build(raw, settings, applied)

    def summary(self) -> list[dict[str, Any]]:
        """One row per file, invalid ones included, sorted by name."""
        rows = []
        for raw in sorted(self._all_raws(), key=lambda r: (r.name, r.source)):
            valid = bool(self._valid.get(raw.name)) and self._raw.get(raw.name) is raw
            engine = raw.engine
            if valid and engine is None:
                engine = self.resolve(raw.name, changes=[]).engine
            rows.append({
                "name": raw.name,
                "description": raw.description,
                "engine": engine,
                "extends": raw.extends,
                "changes": [c.name for c in raw.changes],
                "valid": valid,
                "error": None if valid else str(raw.errors[0]) if raw.errors else "invalid",
                "source": raw.source,
            })
        return rows


def validate_path(path: str | Path) -> list[ProfileError]:
    """Errors of a directory of profiles, or of one file (its extends resolved against the
    sibling ``*.toml`` files, whose own problems are not reported)."""
    p = Path(path)
    if p.is_dir():
        return ProfileSet.load_dir(p).errors
    if not p.is_file():
        return [ProfileError("no such file or directory", file=str(path))]
    target = p.resolve()
    siblings = [s for s in sorted(p.parent.glob("*.toml")) if s.resolve() != target]
    # The file goes first so it wins a name clash and its errors carry the path as given.
    pset = ProfileSet.load_files([p, *siblings])
    return [e for e in pset.errors if e.file == str(p)]
