"""Literal text a regex cannot match without: a cheap gate in front of ~140 signature searches.

Most lines that pass the classifier's first gate still match no signature, and trying each
signature's regex on them cost ~0.5 us apiece (~70 us a line). A substring test is much
cheaper, so each signature gets the literals of which at least one must occur in any text it
matches (its "needles"), worked out from the parsed regex. Where that cannot be said simply
(a case-insensitive group, no literal of 3+ characters) a signature gets none and is always
tried, so the gate never changes a result, only skips searches that would fail.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence
from typing import Any

try:  # Python 3.11+
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

MIN_NEEDLE = 3


def needles(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """Literals of which one must occur in any match of ``pattern``; None if unknown."""
    if pattern.flags & re.IGNORECASE:
        return None
    return _parsed_needles(pattern)


def lowered_needles(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    """The same, lowercased, for a test on ``text.lower()``: also for a case-insensitive
    pattern. Only sound on ASCII text, and None for a non-ASCII literal: IGNORECASE folds a few
    non-ASCII letters onto ASCII ones (``ſ`` onto ``s``, the Kelvin sign onto ``k``)."""
    found = _parsed_needles(pattern)
    if not found or not all(n.isascii() for n in found):
        return None
    return tuple(dict.fromkeys(n.lower() for n in found))


def _parsed_needles(pattern: re.Pattern[str]) -> tuple[str, ...] | None:
    try:
        parsed = sre_parse.parse(pattern.pattern, pattern.flags)
    except Exception:  # an internal parser: never let it break the classifier
        return None
    return _sequence(list(parsed))


def _sequence(items: Sequence[tuple[Any, Any]]) -> tuple[str, ...] | None:
    """The best requirement of a concatenation: a run of literals, or a required group's."""
    best: tuple[str, ...] | None = None

    def consider(option: tuple[str, ...] | None) -> None:
        nonlocal best
        if option and min(map(len, option)) >= MIN_NEEDLE and (
                best is None or min(map(len, option)) > min(map(len, best))):
            best = option

    run: list[str] = []
    for op, av in [*items, (None, None)]:
        if op is C.LITERAL:
            run.append(chr(av))
            continue
        if run:
            consider(("".join(run),))
            run = []
        if op is C.SUBPATTERN:
            _group, add_flags, _del_flags, sub = av
            if not add_flags & C.SRE_FLAG_IGNORECASE:
                consider(_sequence(list(sub)))
        elif op is C.BRANCH:
            consider(_any_of(av[1]))
    return best


def _any_of(branches: Iterable[Any]) -> tuple[str, ...] | None:
    out: list[str] = []
    for branch in branches:
        req = _sequence(list(branch))
        if req is None:
            return None  # this branch can match without any literal we know of
        out.extend(req)
    return tuple(dict.fromkeys(out))


class NeedleIndex:
    """For a list of patterns: which of them can possibly match a given text."""

    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        self.always: set[int] = set()
        self.by_needle: dict[str, list[int]] = {}
        for i, pattern in enumerate(patterns):
            found = needles(pattern)
            if found is None:
                self.always.add(i)
            else:
                for needle in found:
                    self.by_needle.setdefault(needle, []).append(i)
        self._pairs = list(self.by_needle.items())
        self._groups = _group(self._pairs)

    def candidates(self, text: str) -> set[int]:
        out = set(self.always)
        for key, pairs in self._groups:
            if key in text:  # every needle of the group contains the key
                for needle, idxs in pairs:
                    if needle in text:
                        out.update(idxs)
        return out


def _group(pairs: list[tuple[str, list[int]]]) -> list[tuple[str, list[tuple[str, list[int]]]]]:
    """Needles grouped under a 4-character piece they share (the piece most needles have), so
    a text is searched for ~60 keys instead of ~200 needles (half the cost per line)."""
    grams: dict[str, int] = {}
    for needle, _ in pairs:
        for g in {needle[i:i + 4] for i in range(len(needle) - 3)}:
            grams[g] = grams.get(g, 0) + 1
    groups: dict[str, list[tuple[str, list[int]]]] = {}
    for needle, idxs in pairs:
        pieces = {needle[i:i + 4] for i in range(len(needle) - 3)} or {needle}
        key = max(pieces, key=lambda g: (grams.get(g, 0), g))
        groups.setdefault(key, []).append((needle, idxs))
    return list(groups.items())
