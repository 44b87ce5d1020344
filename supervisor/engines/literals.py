"""Finding literal fragments in log lines with `re`: yes/no prefilters and anchored finders.

Every line of a log goes through several "does it hold any of these fragments?" searches (the
trackers' prefilters, the classifier's gates) before any detailed regex runs, so they are most
of what a line costs. `re` has no Aho-Corasick; what it does have is a quick scan for a match's
possible first characters (a bitmap test a character, in C) before it enters the matcher. How
often the matcher is entered decides the cost:

- a plain trie of the fragments (``a(?:bort|lloc)|b(?:ind|us)``) starts with nearly every
  lowercase letter, so the matcher is entered at most characters of a line (~270 instructions a
  character);
- :func:`literal_prefilter` starts each fragment at one of its *rare* characters (the anchor)
  and checks the characters before it with a lookbehind: ``y(?<=out of memory)`` finds
  ``out of memory``. The anchors are few and rare (``%``, ``(``, ``K``, ``x``, ...), so the
  matcher is entered at a few places a line: about half the instructions of the trie. The
  classifier's finders that must say which fragment they found (diagnosis/needles.py) are
  built from the same anchors.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Sequence
from typing import Any

try:  # Python 3.11+
    from re import _constants as C  # type: ignore[attr-defined]
    from re import _parser as sre_parse  # type: ignore[attr-defined]
except ImportError:  # pragma: no cover - Python 3.10
    import sre_constants as C  # type: ignore[no-redef]
    import sre_parse  # type: ignore[no-redef]

# How often each character occurs in engine logs, per 10,000 characters (the raw lines of the
# 828 labelled logs in tests/fixtures, 2026-12; any other character counts as 0.5). Only the
# order matters much: it picks the anchors.
_COMMON = " erniotasl0cp1/:_d2.ugm^3h-,y54k6v7f8b9=R(])[\"FPEOwTC'INxASLDWqGMzBU*V|#<K%H>`j+?Q{Z};"
_PER_10K = (1100, 668, 411, 405, 378, 372, 362, 354, 331, 329, 265, 255, 255, 237, 219, 203, 196,
            192, 184, 176, 171, 170, 153, 141, 126, 125, 123, 113, 104, 97, 95, 87, 85, 75, 71,
            69, 69, 68, 63, 63, 61, 59, 56, 54, 52, 48, 47, 45, 45, 42, 41, 38, 34, 34, 34, 34,
            33, 21, 21, 19, 17, 17, 16, 16, 14, 11, 10, 10, 10, 9, 9, 8, 7, 7, 6, 6, 4, 3, 3,
            2, 2, 2, 2, 2, 2, 2)
CHAR_FREQ: dict[str, float] = dict(zip(_COMMON, map(float, _PER_10K), strict=True))


def literal_prefilter(*fragments: str) -> re.Pattern[str]:
    """A regex that finds whether any of the literal ``fragments`` occurs, for yes/no tests.

    Where it matches says nothing (it matches at a fragment's anchor, not at its start). A
    fragment that holds another one is dropped: it cannot change the answer. Fragments all in
    lowercase are taken to be searched in lowercased text, where a letter is as common as both
    of its cases.
    """
    return re.compile(anchored_alternation(fragments))


def anchored_alternation(fragments: Iterable[str]) -> str:
    """The regex source of :func:`literal_prefilter` (one that never matches for none)."""
    by_anchor = anchored_branches(_minimal(fragments))
    if not by_anchor:
        return r"(?!x)x"
    return "|".join(anchored_trie(anchor, branches, behind, shortest=True)
                    for anchor, branches in sorted(by_anchor.items()))


def anchored_trie(anchor: str, fragments: Iterable[tuple[str, int]],
                  leaf: Callable[[str, int], str], *, shortest: bool = False) -> str:
    """One anchor and what follows it: the fragments (each with its anchor's index in it) as a
    trie of what comes after the anchor, so that `re` reads the characters after an anchor once
    for all its fragments, and at each fragment's end ``leaf(fragment, k)`` (a lookbehind for
    the characters before the anchor, :func:`behind`, and whatever the caller's search needs
    there, e.g. an empty group naming the fragment). ``leaf`` is called in the order its text
    appears in the result, the longer fragments first at a node. With ``shortest`` (a yes/no
    test) a node where a fragment with nothing before its anchor ends matches at once.
    (Branches each opening with its lookbehind, one after another, cost more than the plain
    trie did under the common anchors: a hundred lookbehinds tried at each of them.)"""
    trie: dict[str, Any] = {}
    for frag, k in fragments:
        node = trie
        for ch in frag[k + 1:]:
            node = node.setdefault(ch, {})
        node.setdefault("", []).append((frag, k))
    return re.escape(anchor) + _trie_source(trie, leaf, shortest)


def _trie_source(node: dict[str, Any], leaf: Callable[[str, int], str], shortest: bool) -> str:
    ends = sorted(node.get("", []), key=lambda fk: (-len(fk[0]), fk[0]))
    if shortest and any(k == 0 for _, k in ends):
        return ""
    alts = [re.escape(ch) + _trie_source(sub, leaf, shortest)
            for ch, sub in sorted(node.items()) if ch]
    alts += [leaf(frag, k) for frag, k in ends]
    return alts[0] if len(alts) == 1 else "(?:" + "|".join(alts) + ")"


def behind(frag: str, k: int) -> str:
    """At a fragment's end: a lookbehind for the whole of it, where it starts before its anchor
    (the anchor and the rest were read on the way; asked only there)."""
    return f"(?<={re.escape(frag)})" if k else ""


def anchored_branches(fragments: Iterable[str], *, anchor_from: Iterable[str] = ()
                      ) -> dict[str, list[tuple[str, int]]]:
    """Each fragment with its anchor's index in it, by anchor (the characters before the
    anchor are looked behind once the rest has been read: anchored_trie). Every branch under an
    anchor starts with it, so `re` can scan for the anchors alone. The anchors are chosen for
    ``anchor_from`` too (a superset of the fragments): searches for parts of one set then
    anchor each fragment at the same place."""
    frags = list(dict.fromkeys(f for f in fragments if f))
    if not frags:
        return {}
    every = list(dict.fromkeys([*frags, *(f for f in anchor_from if f)]))
    lowered = not any(ch.isupper() for frag in every for ch in frag)
    weight = _weights(lowered)
    anchors = _anchor_set(every, weight)
    by_anchor: dict[str, list[tuple[str, int]]] = {}
    for frag in frags:
        k = min((j for j, ch in enumerate(frag) if ch in anchors),
                key=lambda j: (weight(frag[j]), -j))
        by_anchor.setdefault(frag[k], []).append((frag, k))
    return by_anchor


def _minimal(fragments: Iterable[str]) -> list[str]:
    """The fragments that hold no other one (for a yes/no search the others change nothing)."""
    kept: list[str] = []
    for frag in sorted(set(fragments), key=lambda f: (len(f), f)):
        if frag and not any(k in frag for k in kept):
            kept.append(frag)
    return kept


def _weights(lowered: bool) -> Callable[[str], float]:
    def weight(ch: str) -> float:
        w = CHAR_FREQ.get(ch, 0.5)
        if lowered and ch != ch.upper():
            w += CHAR_FREQ.get(ch.upper(), 0.0)
        return w
    return weight


def _anchor_set(fragments: list[str], weight: Callable[[str], float]) -> set[str]:
    """Characters such that every fragment holds one, as rare in all as can be found simply
    (greedy weighted set cover: take the character that covers fragments cheapest, then drop any
    that the others made unneeded, commonest first)."""
    anchors: set[str] = set()
    left = list(fragments)
    while left:
        best = min(set("".join(left)),
                   key=lambda ch: (weight(ch) / sum(ch in f for f in left), ch))
        anchors.add(best)
        left = [f for f in left if best not in f]
    for ch in sorted(anchors, key=lambda c: (-weight(c), c)):
        if all(any(a in f for a in anchors - {ch}) for f in fragments):
            anchors.discard(ch)
    return anchors


# --- the literals a regex needs --------------------------------------------------------------
# Literal text a regex cannot match without: a cheap gate in front of a search. Each pattern
# gets the literals of which at least one must occur in any text it matches (its "needles"),
# worked out from the parsed regex. Where that cannot be said simply (a case-insensitive group,
# no literal of 3+ characters) it gets none and is always tried, so a gate never changes a
# result, only skips searches that would fail. (The classifier's signatures, diagnosis/
# needles.py, and the trackers' markers, base.py, are gated so.)

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


def holds_any(text: str, literals: tuple[str, ...]) -> bool:
    """Whether ``text`` holds one of ``literals`` (a regex's needles, as a gate before it)."""
    for literal in literals:
        if literal in text:
            return True
    return False
