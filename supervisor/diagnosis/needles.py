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

from ..engines.literals import (
    MIN_NEEDLE,
    anchored_branches,
    anchored_trie,
    behind,
    lowered_needles,
    needles,
)

__all__ = ["MIN_NEEDLE", "LiteralSets", "NeedleIndex", "lowered_needles", "needles"]


class NeedleIndex:
    """For a list of patterns: which of them can possibly match a given text."""

    def __init__(self, patterns: Sequence[re.Pattern[str]]) -> None:
        self.by_needle: dict[str, list[int]] = {}
        always: set[int] = set()
        for i, pattern in enumerate(patterns):
            found = needles(pattern)
            if found is None:
                always.add(i)
            else:
                for needle in found:
                    self.by_needle.setdefault(needle, []).append(i)
        self.always = frozenset(always)
        # a needle found also stands for every needle it holds
        self._held = {found: frozenset(i for needle, idxs in self.by_needle.items()
                                       if needle in found for i in idxs)
                      for found in self.by_needle}
        self._finder, self._needle_of_group, self._also_at = _anchored_needle_finder(
            self.by_needle)

    def candidates(self, text: str) -> set[int]:
        """One regex walks the text: it stops only at the needles' anchors (rare characters,
        engines/literals.py), where it says which needle it found there. Other needles that may
        hold the same anchor at the same place (those that agree with the found one where they
        overlap: ``_also_at``) are tested there directly, and the search goes on from the next
        character. (The trie of the needles it replaced entered the matcher at nearly every
        character: about twice the instructions a line.)"""
        out = set(self.always)
        if self._finder is None:
            return out
        m = self._finder.search(text)
        while m is not None:
            needle = self._needle_of_group[m.lastindex or 0]
            out |= self._held[needle]
            at = m.start()
            for other, offset in self._also_at[needle]:
                if at >= offset and text.startswith(other, at - offset):
                    out |= self._held[other]
            m = self._finder.search(text, at + 1)
        return out


class LiteralSets:
    """Which of several sets of literals occur in a text, as a bit per set (bit k: set k).

    One anchored search (engines/literals.py) finds the leftmost place where a literal of any
    set not yet found occurs, and says whose it is (an empty group closes each branch); the
    next search, from there, looks for the sets still missing only. So a text costs a search
    per set found plus one, each over the rest of the text: about a third of the instructions
    of a trie walk that stops at every literal."""

    def __init__(self, *sets: Iterable[str]) -> None:
        bit_of: dict[str, int] = {}
        for k, literals in enumerate(sets):
            for literal in literals:
                bit_of[literal] = bit_of.get(literal, 0) | 1 << k
        self.every = (1 << len(sets)) - 1
        # every finder anchors a literal at the same character: a search from where the last
        # one matched then misses no literal of the sets still missing
        self._finders = {mask: _tagged_finder({lit: b for lit, b in bit_of.items() if b & mask},
                                              anchor_from=bit_of)
                         for mask in range(1, self.every + 1)}

    def found(self, text: str) -> int:
        bits, missing, pos = 0, self.every, 0
        while missing:
            finder, bits_of_group = self._finders[missing]
            if finder is None:
                break
            m = finder.search(text, pos)
            if m is None:
                break
            bits |= bits_of_group[m.lastindex or 0]
            missing = self.every & ~bits
            pos = m.start()
        return bits


def _tagged_finder(bit_of: dict[str, int], anchor_from: Iterable[str]
                   ) -> tuple[re.Pattern[str] | None, list[int]]:
    """An anchored search for any of the literals whose match tells, by its last group, the
    bits of the literal it found."""
    by_anchor = anchored_branches(bit_of, anchor_from=anchor_from)
    if not by_anchor:
        return None, [0]
    bits_of_group = [0]

    def leaf(literal: str, k: int) -> str:
        bits_of_group.append(bit_of[literal])
        return behind(literal, k) + "()"
    return re.compile("|".join(anchored_trie(anchor, branches, leaf)
                               for anchor, branches in sorted(by_anchor.items()))), bits_of_group


def _anchored_needle_finder(found: Iterable[str]) -> tuple[
        re.Pattern[str] | None, list[str], dict[str, list[tuple[str, int]]]]:
    """The needles' anchored search (engines/literals.py), whose match names the needle it
    found by its last group; and for each needle, the others under its anchor that could match
    at the same place, each with its anchor's offset in it: they agree with it on every
    character where the two overlap, and it does not hold them (what it holds is in ``_held``
    already)."""
    by_anchor = anchored_branches(found)
    if not by_anchor:
        return None, [""], {}
    needle_of_group = [""]

    def leaf(needle: str, k: int) -> str:
        needle_of_group.append(needle)
        return behind(needle, k) + "()"
    alts = []
    also_at: dict[str, list[tuple[str, int]]] = {}
    for anchor, branches in sorted(by_anchor.items()):
        alts.append(anchored_trie(anchor, branches, leaf))
        for needle, k in branches:
            also_at[needle] = [(other, j) for other, j in branches
                               if other != needle and other not in needle
                               and _agree(needle, k, other, j)]
    return re.compile("|".join(alts)), needle_of_group, also_at


def _agree(a: str, ka: int, b: str, kb: int) -> bool:
    """Whether ``a`` and ``b``, laid so that their anchors (at ``ka``, ``kb``) coincide, hold
    the same characters wherever they overlap."""
    shift = ka - kb  # b[j] lies under a[j + shift]
    return all(a[j + shift] == ch for j, ch in enumerate(b) if 0 <= j + shift < len(a))
