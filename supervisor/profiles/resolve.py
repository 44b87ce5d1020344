"""A set of profiles: cross-file checks (extends, chain) and resolution (extends + changes).

Resolving P = P's parent fully resolved (with all of the parent's changes) + P's own keys,
then P's own ``[[changes]]`` (all, or the subset asked for, in declared order), then ``extra``
ad-hoc deltas (remedies). ``resolve(P, changes=[])`` is the parent that isolation tests
each change against.
"""

from __future__ import annotations

import copy
import errno
import os
import stat
import time
from collections.abc import Iterable, Sequence
from pathlib import Path
from typing import Any

from supervisor.engines import get_engine
from supervisor.profiles.errors import ProfileError, UnknownProfileError
from supervisor.profiles.files import ReadBudget, kind_of, list_profiles
from supervisor.profiles.load import RawProfile, parse_file
from supervisor.profiles.model import (
    DEFAULT_HOST,
    DEFAULT_PORTS,
    Change,
    FallbackSpec,
    FrozenMap,
    GroupSpec,
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
            "benchmark": None, "group": {}}


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
    settings["group"].update(raw.group)


def apply_change(settings: Settings, change: Change) -> None:
    settings["args"].update(change.args)
    settings["env"].update(change.env)
    if change.patch is not None:
        settings["patches"] = [*settings.get("patches", ()), change.patch]


def build(
    raw: RawProfile, settings: Settings, applied: Iterable[str]
) -> ResolvedProfile:
    """Turn merged settings into the frozen value, applying per-engine defaults last
    (so a child that switches engine does not inherit the parent's default command)."""
    engine = settings.get("engine") or "sglang"
    command = settings.get("command") or get_engine(engine).default_command or None
    if not command:
        raise raw_error(raw, "launch.command", f"required for engine {engine!r}")
    model = settings.get("model")
    if engine != "command" and not model:
        raise raw_error(raw, "launch.model", f"required for engine {engine!r}")
    bench = settings["benchmark"]
    group = build_group(raw, settings["group"])
    return ResolvedProfile(
        group=group,
        patches=tuple(settings.get("patches", ())),
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


def build_group(raw: RawProfile, table: dict[str, Any]) -> GroupSpec | None:
    if not table:
        return None
    for key, what in (("nodes", "the nodes in rank order"),
                      ("dist_init_port", "the port rank 0 listens on for the rendezvous")):
        if key not in table:
            raise raw_error(raw, "group", f"[group] needs {key} ({what})")
    return GroupSpec(nodes=tuple(table["nodes"]), dist_init_port=table["dist_init_port"])


def parse_files(paths: Iterable[str | Path]) -> list[RawProfile]:
    """Parse files sharing one read budget (files.py): one load reads a bounded total."""
    budget = ReadBudget()
    return [parse_file(p, budget) for p in paths]


def raw_error(raw: RawProfile, key: str | None, message: str) -> ProfileError:
    """An error for ``raw`` at ``key`` without recording it (resolve-time problems)."""
    line = raw.lines.find(key) if raw.lines and key else None
    return ProfileError(message, file=raw.source, key=key, line=line)


MAX_EXTENDS_DEPTH = 32   # a child of a child ... 32 levels below its root profile


def chain_text(names: Sequence[str], keep: int = 4) -> str:
    """``a -> b -> c``; a long chain keeps its ends and says how many are left out."""
    if len(names) <= 2 * keep + 1:
        return " -> ".join(names)
    hidden = len(names) - 2 * keep
    return " -> ".join([*names[:keep], f"... ({hidden} more)", *names[-keep:]])


class ProfileSet:
    """All profiles of a directory (or a list of files). Construction never raises."""

    def __init__(self, raws: Iterable[RawProfile], *, errors: Iterable[ProfileError] = ()
                 ) -> None:
        self._raw: dict[str, RawProfile] = {}
        self._shadowed: list[RawProfile] = []  # same name as an earlier file
        self._valid: dict[str, bool] = {}
        self._full: dict[str, Settings] = {}  # name -> settings with all its changes
        self._pending: dict[str, RawProfile] = {}  # name -> a broken edit not in force
        for raw in raws:
            self._add(raw)
        self._check()
        self.errors: list[ProfileError] = sorted(
            [*errors, *(e for raw in self._all_raws() for e in raw.errors)],
            key=lambda e: (e.file or "", e.line or 0),
        )

    # -- construction ------------------------------------------------------------------------

    @classmethod
    def load_dir(cls, directory: str | Path) -> ProfileSet:
        """Every ``*.toml`` directly in ``directory`` (not subdirectories), within the caps of
        files.py (regular files, size, count)."""
        path = Path(directory)
        if not path.is_dir():
            return cls([], errors=[ProfileError("no such directory", file=str(path))])
        listing = list_profiles(path)
        return cls(parse_files(listing.files), errors=listing.errors)

    @classmethod
    def load_files(cls, paths: Iterable[str | Path]) -> ProfileSet:
        return cls(parse_files(paths))

    def keep_valid_from(self, old: ProfileSet) -> ProfileSet:
        """This set, except that a profile valid in ``old`` and invalid here keeps its old
        definition: a bad edit never takes a working profile away. Its errors stay reported,
        and ``pending(name)`` tells about the edit that is not in force."""
        keep = [n for n in old.names() if n in self._raw and not self._valid.get(n)]
        if not keep:
            return self
        raws = [r for n, r in self._raw.items() if n not in keep]
        merged = ProfileSet([*raws, *(old._raw[n] for n in keep)])
        merged.errors = list(self.errors)
        merged._pending = {n: self._raw[n] for n in keep if merged._valid.get(n)}
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
        depth = self._check_extends()
        for raw in self._raw.values():
            self._check_chain(raw)
        # Parents before children, so validity never recurses (a chain may be deep).
        for name in sorted(self._raw, key=lambda n: (depth[n] is None, depth[n] or 0, n)):
            self._validate(name)

    def _check_extends(self) -> dict[str, int | None]:
        """Each profile's depth below the top of its extends chain (None: on a cycle or below
        a missing profile), walking every file once:
        missing parents, cycles (the error on every file of the cycle) and chains deeper
        than ``MAX_EXTENDS_DEPTH`` (the error on the first file past the cap)."""
        depth: dict[str, int | None] = {}
        for name in sorted(self._raw):
            path: list[str] = []
            index: dict[str, int] = {}
            cur: str | None = name
            while cur is not None and cur in self._raw and cur not in depth and cur not in index:
                index[cur] = len(path)
                path.append(cur)
                cur = self._raw[cur].extends
            if not path:
                continue
            above: int | None = -1  # the depth of path[-1]'s parent
            if cur is not None and cur in depth:
                above = depth[cur]
            elif cur is not None and cur in index:
                self._cycle_errors(path[index[cur]:])
                above = None
            elif cur is not None:
                self._raw[path[-1]].error("extends", f"extends unknown profile {cur!r}")
                above = None
            for member in reversed(path):
                above = None if above is None else above + 1
                depth[member] = above
                if above == MAX_EXTENDS_DEPTH + 1:
                    self._depth_error(member)
        return depth

    def _cycle_errors(self, cycle: list[str]) -> None:
        for i, member in enumerate(cycle):
            loop = [*cycle[i:], *cycle[:i], member]
            self._raw[member].error("extends", f"extends cycle: {chain_text(loop)}")

    def _depth_error(self, name: str) -> None:
        chain = [name]
        while len(chain) <= MAX_EXTENDS_DEPTH + 1:
            parent = self._raw[chain[-1]].extends
            if parent is None:
                break
            chain.append(parent)
        self._raw[name].error("extends", f"extends chain too deep ({MAX_EXTENDS_DEPTH + 1} "
                                         f"levels; at most {MAX_EXTENDS_DEPTH}): "
                                         f"{chain_text(chain)}")

    def _check_chain(self, raw: RawProfile) -> None:
        for entry in raw.fallback.get("chain", ()):
            if entry == raw.name:
                raw.error("fallback.chain", "a profile cannot fall back to itself")
            elif entry not in self._raw:
                raw.error("fallback.chain", f"unknown profile {entry!r}")

    def _validate(self, name: str) -> None:
        """Valid = no errors of its own, a valid parent (already decided: parents go first),
        and a default resolve that builds."""
        raw = self._raw[name]
        self._valid[name] = False
        if raw.errors:
            return
        if raw.extends is not None and not self._valid.get(raw.extends):
            raw.error("extends", f"extends {raw.extends!r}, which has errors")
            return
        try:
            settings = self._own_settings(raw)
            for change in raw.changes:
                apply_change(settings, change)
            build(raw, settings, ())
        except ProfileError as err:
            raw.errors.append(err)
            return
        self._full[name] = settings
        self._valid[name] = True

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
        return bool(self._valid.get(name))  # type: ignore[call-overload]

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

    def pending(self, name: str) -> dict[str, Any] | None:
        """A broken edit of ``name`` that is not in force (the last valid version is), or None:
        ``{error, errors, source, in_force_loaded_at, in_force}``."""
        broken = self._pending.get(name)
        if broken is None:
            return None
        in_force = self._raw[name].loaded_at
        errors = [str(e) for e in broken.errors] or [f"{broken.source}: invalid"]
        return {"error": errors[0], "errors": errors, "source": broken.source,
                "in_force_loaded_at": in_force,
                "in_force": f"last valid version, loaded at {clock(in_force)}"}

    def summary(self) -> list[dict[str, Any]]:
        """One row per file, invalid ones included, sorted by name. Every row has every key;
        ``pending_error``/``in_force`` say when a broken edit is not in force."""
        rows = []
        for raw in sorted(self._all_raws(), key=lambda r: (r.name, r.source)):
            valid = bool(self._valid.get(raw.name)) and self._raw.get(raw.name) is raw
            engine = raw.engine
            if valid and engine is None:
                engine = self.resolve(raw.name, changes=[]).engine
            pending = self.pending(raw.name) if valid else None
            rows.append({
                "name": raw.name,
                "description": raw.description,
                "engine": engine,
                "extends": raw.extends,
                "changes": [c.name for c in raw.changes],
                "valid": valid,
                "error": None if valid else str(raw.errors[0]) if raw.errors else "invalid",
                "source": raw.source,
                "pending_error": pending["error"] if pending else None,
                "in_force": pending["in_force"] if pending else None,
            })
        return rows


def clock(ts: float) -> str:
    return time.strftime("%Y-%m-%d %H:%M:%S", time.localtime(ts))


def validate_path(path: str | Path) -> list[ProfileError]:
    """Errors of a directory of profiles, or of one file (its extends resolved against the
    sibling ``*.toml`` files, whose own problems are not reported). Only regular files are
    read, within the caps of files.py; nothing here can block on a FIFO or a device."""
    p = Path(path)
    try:
        mode = os.stat(p).st_mode
    except OSError as exc:
        missing = exc.errno == errno.ENOENT
        message = "no such file or directory" if missing else f"cannot read: {exc.strerror}"
        return [ProfileError(message, file=str(path))]
    except ValueError:  # a NUL in the path
        return [ProfileError("not a valid path (it contains a NUL character)",
                             file=repr(str(path)))]
    if stat.S_ISDIR(mode):
        return ProfileSet.load_dir(p).errors
    if not stat.S_ISREG(mode):
        return [ProfileError(f"not a regular file ({kind_of(mode)}); profiles must be plain "
                             f"files", file=str(path))]
    target = p.resolve()
    listing = list_profiles(p.parent)
    siblings = [s for s in listing.files if s.resolve() != target]
    # The file goes first so it wins a name clash and its errors carry the path as given.
    pset = ProfileSet.load_files([p, *siblings])
    return [*listing.errors, *(e for e in pset.errors if e.file == str(p))]
