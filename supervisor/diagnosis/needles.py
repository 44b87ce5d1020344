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
    anchored_branch,
    anchored_branches,
    literal_trie,
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
        self._finder = _longest_needle_finder(self.by_needle)
        # a needle found also stands for every needle it starts with (see below)
        self._of_found = {found: frozenset(i for needle, idxs in self.by_needle.items()
                                           if found.startswith(needle) for i in idxs)
                          for found in self.by_needle}

    def candidates(self, text: str) -> set[int]:
        """One regex walks the text once: at each place where needles start it finds the
        longest of them, which starts with every other one found there. Searching again from
        the next character finds the needles that overlap it. (``needle in text`` for each of
        ~300 needles, or each of ~80 shared pieces, cost twice as much a line.)"""
        out = set(self.always)
        if self._finder is None:
            return out
        m = self._finder.search(text)
        while m is not None:
            out |= self._of_found[m.group()]
            m = self._finder.search(text, m.start() + 1)
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
    bits of the literal it found (branches of one text share a group: their bits are or-ed)."""
    by_anchor = anchored_branches(bit_of, anchor_from=anchor_from)
    if not by_anchor:
        return None, [0]
    bits_of_group = [0]
    alts = []
    for anchor, branches in sorted(by_anchor.items()):
        bits_of_rest: dict[str, int] = {}
        for rest, literal, _ in branches:
            bits_of_rest[rest] = bits_of_rest.get(rest, 0) | bit_of[literal]
        rests = []
        for rest, bits in sorted(bits_of_rest.items()):
            rests.append(rest + "()")
            bits_of_group.append(bits)
        alts.append(anchored_branch(anchor, rests))
    return re.compile("|".join(alts)), bits_of_group


def _or(bits: Iterable[int]) -> int:
    out = 0
    for b in bits:
        out |= b
    return out


def _longest_needle_finder(found: Iterable[str]) -> re.Pattern[str] | None:
    """A trie of the needles whose match is the longest needle starting where it matches (the
    engines' prefilters are built by the same function). None for no needles."""
    source = literal_trie(found, longest=True)
    return re.compile(source) if source else None
