"""Render a resolved profile to the argv and environment of its launch."""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING, Any

from supervisor.profiles.model import arg_key

if TYPE_CHECKING:
    from supervisor.profiles.model import ResolvedProfile


def render_value(value: Any) -> str:
    # str(0.85) == "0.85"; bools never reach here (they are flags).
    return str(value)


def render_args(args: Iterable[tuple[str, Any]]) -> list[str]:
    """``tp=8`` -> ``--tp 8``; ``true`` -> ``--flag``; ``false`` -> omitted; list -> ``--k a b``."""
    out: list[str] = []
    for key, value in args:
        flag = "--" + arg_key(key)
        if value is False:
            continue  # false also lets a child drop an inherited flag
        if value is True:
            out.append(flag)
        elif isinstance(value, (list, tuple)):
            out += [flag, *(render_value(v) for v in value)]
        else:
            out += [flag, render_value(value)]
    return out


def engine_args(profile: ResolvedProfile) -> list[str]:
    """The flags the engine itself needs: model, host and port (none for a bare command)."""
    if profile.engine == "command":
        return []
    model_flag = "--model-path" if profile.engine == "sglang" else "--model"
    out = [model_flag, profile.model] if profile.model else []
    return out + ["--host", profile.host, "--port", str(profile.port)]


def render_argv(profile: ResolvedProfile) -> list[str]:
    return [*profile.command, *engine_args(profile), *render_args(profile.args)]
