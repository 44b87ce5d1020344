"""The needle gate only ever skips signature searches that would have failed."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

from supervisor.diagnosis import signatures as S
from supervisor.diagnosis.needles import NeedleIndex, needles
from supervisor.diagnosis.normalize import strip_wrappers

FIXTURES = Path(__file__).parent / "fixtures" / "sglang-logs"


@pytest.mark.parametrize("pattern,matches,expected", [
    (r"fallen off the bus", ["gpu has fallen off the bus"], ("fallen off the bus",)),
    (r"failed to (?:bind|listen).{0,80}errno: 98", ["failed to bind: errno: 98"],
     ("failed to ",)),
    (r"\bxid\b.{0,40}\b(?:79|48)\b", ["nvrm: xid (pci:0000): 79"], ("xid",)),
    # re factors the shared "o" out of the branches: "o" + one of the rest
    (r"(?:out of memory|oom-kill)", ["cuda out of memory", "oom-kill"],
     ("ut of memory", "om-kill")),
    (r"(?:out of memory|\d+)", ["42"], None),   # a branch needs no literal we know
    (r"\d+ bytes", ["12 bytes"], (" bytes",)),
    (r"a.b", ["axb"], None),                     # nothing of 3+ characters
    (r"(?i:kernel image)", ["kernel image"], None),  # case-insensitive: not a substring test
])
def test_needles_of_a_pattern(pattern: str, matches: list[str],
                              expected: tuple[str, ...] | None) -> None:
    rx = re.compile(pattern)
    assert needles(rx) == expected
    for text in matches:
        assert rx.search(text)
        assert expected is None or any(n in text for n in expected)


def _messages() -> list[str]:
    out = []
    for path in sorted(FIXTURES.glob("*.log")):
        for line in path.read_text(errors="replace").splitlines():
            out.append(strip_wrappers(line).lower())
    return out


def test_gate_never_hides_a_match_on_real_log_lines() -> None:
    index = S.SIGNATURE_NEEDLES
    checked = matched = 0
    for msg in _messages():
        possible = index.candidates(msg)
        for k, sig in enumerate(S.SIGNATURES):
            checked += 1
            if sig.pattern.search(msg):
                matched += 1
                assert k in possible, (sig.pattern.pattern, msg)
    assert matched > 20 and checked > 50_000  # the fixtures exercise the signatures


def test_index_on_made_up_lines() -> None:
    pats = [re.compile(p) for p in (r"nccl (?:error|timeout)", r"\d+", r"segfault")]
    index = NeedleIndex(pats)
    assert index.candidates("nccl timeout after 600s") == {0, 1}   # 1 is always tried
    assert index.candidates("all good") == {1}
