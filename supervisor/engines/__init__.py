"""Engines: one module per engine kind (phase markers, ready signal, health path, flag names)."""

from __future__ import annotations

from .base import Engine, PhaseTracker, PhaseUpdate, parse_version
from .command import CommandEngine
from .sglang import SGLangEngine
from .vllm import VLLMEngine

ENGINES: dict[str, Engine] = {e.name: e for e in (SGLangEngine(), VLLMEngine(), CommandEngine())}


def get_engine(name: str) -> Engine:
    """The engine named ``name`` (``sglang``, ``vllm``, ``command``); ValueError otherwise."""
    try:
        return ENGINES[name.strip().lower()]
    except (KeyError, AttributeError):
        raise ValueError(
            f"unknown engine {name!r}; known: {', '.join(sorted(ENGINES))}") from None


__all__ = ["ENGINES", "Engine", "PhaseTracker", "PhaseUpdate", "get_engine", "parse_version"]
