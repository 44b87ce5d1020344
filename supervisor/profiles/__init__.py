"""Launch profiles (DESIGN §3): TOML files, validated with file/key/line, resolved through
``extends`` and named ``changes`` into frozen values that render to argv and env.

One concern per module: errors, model (values), lines (key -> line), load (one file),
resolve (a set: extends, changes), diff (show and hot reload). The command line is the
engine's to build (``Engine.argv``).
"""

from __future__ import annotations

from supervisor.profiles.diff import diff_from_parent, diff_resolved, diff_sets
from supervisor.profiles.errors import ProfileError, UnknownProfileError
from supervisor.profiles.model import (
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
from supervisor.profiles.resolve import ProfileSet, validate_path

__all__ = [
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
    "validate_path",
]
