"""Automatic config fallback: what to try after a failed run (DESIGN §7).

``plan_attempts`` is an async generator the arbiter drives: each yielded Attempt is launched,
its outcome written to ``attempt.result``, and the generator decides what comes next.
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

from ..profiles import ProfileError, ResolvedProfile

if TYPE_CHECKING:
    from ..runtime.arbiter import Arbiter, Request
    from ..runtime.run import Run


@dataclass
class Attempt:
    profile: ResolvedProfile
    reason: str
    result: bool | None = None


async def plan_attempts(arbiter: Arbiter, req: Request, first: ResolvedProfile,
                        failed_run: Run) -> AsyncIterator[Attempt]:
    spec = first.fallback
    budget = spec.max_attempts - 1          # the first launch was an attempt
    if spec.strategy == "none" or budget <= 0:
        return
    if spec.strategy == "chain":
        async for attempt in _chain(arbiter, req, spec.chain, budget):
            yield attempt
        return
    req.notes.append(f"fallback strategy {spec.strategy!r} is not available yet")


async def _chain(arbiter: Arbiter, req: Request, chain: tuple[str, ...],
                 budget: int) -> AsyncIterator[Attempt]:
    for name in chain[:budget]:
        try:
            profile = arbiter.profiles.resolve(name)
        except ProfileError as exc:
            req.notes.append(f"chain profile {name!r} skipped: {exc}")
            continue
        attempt = Attempt(profile, f"fallback chain: {name}")
        yield attempt
        if attempt.result:
            return


def describe(attempts: list[dict[str, Any]]) -> str:
    return ", ".join(f"{a['profile']}={a.get('status')}" for a in attempts)
