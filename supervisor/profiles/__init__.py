"""Launch profiles (DESIGN §3): TOML files, validated with file/key/line, resolved through
``extends`` and named ``changes`` into frozen values that render to argv and env.

One concern per module: errors, model (values), lines (key -> line), load (one file),
resolve (a set: extends, changes), render (argv), diff (show and hot reload).
"""

from __future__ import annotations

from supervisor.profiles.diff import diff_from_parent, diff_resolved, diff_sets
from supervisor.profiles.errors import ProfileError, UnknownProfileError
from supervisor.profiles.model import (
    DEFAULT_COMMANDS,
    ENGINES,
    KNOWN_REMEDIES,
    STRATEGIES,
    Change,
    FallbackSpec,
    FrozenMap,
    HealthSpec,
    ResolvedProfile,
    RestartSpec,
    Timeouts,
)
from supervisor.profiles.render import render_args
from supervisor.profiles.resolve import ProfileSet, validate_path

__all__ = [
    "DEFAULT_COMMANDS",
    "ENGINES",
    "KNOWN_REMEDIES",
    "STRATEGIES",
    "Change",
    "FallbackSpec",
    "RestartSpec",
    "FrozenMap",
    "HealthSpec",
    "ProfileError",
    "ProfileSet",
    "ResolvedProfile",
    "Timeouts",
    "UnknownProfileError",
    "diff_from_parent",
    "diff_resolved",
    "diff_sets",
    "render_args",
    "validate_path",
]
