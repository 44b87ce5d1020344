"""Fixtures of the TUI tests: the anyio backend, a frozen clock, app factories."""

from __future__ import annotations

import pytest
from fakedaemon import T0


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"  # Textual runs on asyncio


def frozen_clock() -> float:
    return T0 + 100
