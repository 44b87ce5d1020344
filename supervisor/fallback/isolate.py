"""Isolating the culprit change(s) of a failing profile (DESIGN §7), as pure logic.

The search is written as a *step generator*: it yields the subset of changes it wants tested
(``parent + subset``) and is sent back ``True`` when that launch failed, ``False`` when it became
ready. It never launches anything itself, so the same code is driven by the daemon (one run per
yielded subset) and by unit tests (a plain function as the oracle). Results are memoised: a
subset is never yielded twice, and the failing full set is known from the start.

Strategy:
- up to ``SMALL`` changes: each change alone (A alone, B alone, ...); every change whose solo run
  fails is a culprit. If none fails alone, they only fail together: delta debugging over the set
  names the smallest failing combination.
- more changes: delta debugging (Zeller's ddmin) finds a minimal failing subset; those culprits
  are removed, the rest is tested, and while the rest still fails ddmin runs again on it, so
  independent culprits are all found.
- ``good`` is the best working combination: every change that is not a culprit, or a larger
  subset already seen working.
"""

from __future__ import annotations

from collections.abc import Callable, Generator, Sequence
from dataclasses import dataclass, field

SMALL = 3

Subset = tuple[str, ...]
Steps = Generator[Subset, bool, "Isolation"]


@dataclass
class Isolation:
    culprits: list[str]
    good: list[str]
    complete: bool = True
    tested: dict[frozenset[str], bool] = field(default_factory=dict)  # subset -> failed
    order: list[Subset] = field(default_factory=list)               # launches, in order


class _Memo:
    """Known outcomes; ``test`` yields only subsets never seen before."""

    def __init__(self, items: Sequence[str], full_failed: bool = True) -> None:
        self.items = list(items)
        self.known: dict[frozenset[str], bool] = {frozenset(self.items): full_failed}
        self.order: list[Subset] = []

    def ordered(self, subset: Sequence[str]) -> Subset:
        s = set(subset)
        return tuple(c for c in self.items if c in s)

    def test(self, subset: Sequence[str]) -> Generator[Subset, bool, bool]:
        key = frozenset(subset)
        if key not in self.known:
            sub = self.ordered(subset)
            self.order.append(sub)
            self.known[key] = bool((yield sub))
        return self.known[key]


def _split(items: list[str], n: int) -> list[list[str]]:
    """``items`` in ``n`` contiguous chunks of (nearly) equal size."""
    out, start = [], 0
    for i in range(n):
        end = start + (len(items) - start) // (n - i)
        out.append(items[start:end])
        start = end
    return [c for c in out if c]


def ddmin_steps(items: Sequence[str], memo: _Memo) -> Generator[Subset, bool, list[str]]:
    """A 1-minimal failing subset of ``items`` (which must be known to fail)."""
    items = list(items)
    n = 2
    while len(items) >= 2:
        chunks = _split(items, n)
        reduced = False
        for chunk in chunks:                       # a failing chunk: zoom in
            if (yield from memo.test(chunk)):
                items, n, reduced = chunk, 2, True
                break
        if not reduced and len(chunks) > 2:        # a failing complement: drop one chunk
            for chunk in chunks:
                comp = [x for x in items if x not in chunk]
                if (yield from memo.test(comp)):
                    items, n, reduced = comp, max(n - 1, 2), True
                    break
        if not reduced:
            if n >= len(items):
                break                              # every single change is needed
            n = min(len(items), 2 * n)
    return list(memo.ordered(items))


def isolate_steps(changes: Sequence[str], *, small: int = SMALL) -> Steps:
    """The whole isolation: yields subsets to test, returns the verdict."""
    memo = _Memo(changes)
    items = memo.items
    culprits: list[str] = []
    if len(items) <= small:
        for c in items:
            if (yield from memo.test([c])):
                culprits.append(c)
        if not culprits and len(items) > 1:
            culprits = yield from ddmin_steps(items, memo)
        elif not culprits:
            culprits = list(items)  # one change, and the full set (= that change) failed
    else:
        remaining = list(items)
        while remaining:
            found = yield from ddmin_steps(remaining, memo)
            culprits += found
            remaining = [c for c in remaining if c not in found]
            if not remaining or not (yield from memo.test(remaining)):
                break
    culprits = list(memo.ordered(culprits))
    return Isolation(culprits, best_good(memo, culprits), True, dict(memo.known),
                     list(memo.order))


def best_good(memo: _Memo, culprits: Sequence[str]) -> list[str]:
    """Every non-culprit change, unless a larger subset is already known to work."""
    rest = [c for c in memo.items if c not in culprits]
    best = rest
    for subset, failed in memo.known.items():
        if not failed and len(subset) > len(best):
            best = list(memo.ordered(subset))
    return best


def partial_result(steps_memo_known: dict[frozenset[str], bool], items: Sequence[str],
                   ) -> Isolation:
    """What is known when the budget ran out: suspects = single changes seen failing; good =
    the largest subset seen working (possibly none)."""
    memo = _Memo(items)
    memo.known.update(steps_memo_known)
    culprits = [c for c in memo.items if memo.known.get(frozenset([c])) is True]
    working = [s for s, failed in memo.known.items() if not failed]
    good = list(memo.ordered(max(working, key=len))) if working else []
    return Isolation(culprits, good, False, dict(memo.known))


def run_isolation(changes: Sequence[str], failed: Callable[[Subset], bool],
                  budget: int | None = None, *, small: int = SMALL) -> Isolation:
    """Drive ``isolate_steps`` with a synchronous oracle (``failed(subset) -> bool``), calling
    it at most ``budget`` times. A pure function: tests and offline what-ifs use it."""
    steps = isolate_steps(changes, small=small)
    known: dict[frozenset[str], bool] = {frozenset(changes): True}
    calls = 0
    try:
        subset = next(steps)
        while True:
            if budget is not None and calls >= budget:
                steps.close()
                return partial_result(known, changes)
            calls += 1
            outcome = bool(failed(subset))
            known[frozenset(subset)] = outcome
            subset = steps.send(outcome)
    except StopIteration as stop:
        return stop.value


def ddmin(items: Sequence[str], failed: Callable[[Subset], bool]) -> list[str]:
    """Plain ddmin over a synchronous oracle: a 1-minimal failing subset of ``items``."""
    memo = _Memo(items)
    gen = ddmin_steps(items, memo)
    try:
        subset = next(gen)
        while True:
            subset = gen.send(bool(failed(subset)))
    except StopIteration as stop:
        return list(stop.value or [])
