"""The needle gate only ever skips signature searches that would have failed."""

from __future__ import annotations

import random
import re
from pathlib import Path

import pytest

from supervisor.diagnosis import classifier as K
from supervisor.diagnosis import signatures as S
from supervisor.diagnosis.needles import LiteralSets, NeedleIndex, lowered_needles, needles
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


def test_index_finds_needles_that_overlap_or_start_one_another() -> None:
    # "abc" starts "abcde", "bcd" and "cdef" overlap it, "abx" shares its start and is absent
    pats = [re.compile(p) for p in ("abcde", "bcd", "cdef", "abc", "abx", "zzz")]
    index = NeedleIndex(pats)
    assert index.candidates("..abcdef..") == {0, 1, 2, 3}
    assert index.candidates("abc") == {3}
    assert index.candidates("abcabx") == {3, 4}
    assert index.candidates("") == set()
    # the same as a test of every needle on its own, on every slice of a made-up text
    text = "xabcdefabxbcdzzzabcd"
    for i in range(len(text)):
        for j in range(i, len(text) + 1):
            want = {k for k, p in enumerate(pats) if p.pattern in text[i:j]}
            assert index.candidates(text[i:j]) == want, text[i:j]


def _present(index: NeedleIndex, text: str) -> set[int]:
    """What candidates() must say: the patterns of every needle the text holds, tested one by
    one."""
    out = set(index.always)
    for needle, idxs in index.by_needle.items():
        if needle in text:
            out.update(idxs)
    return out


def test_signature_candidates_are_the_needles_present_on_real_lines() -> None:
    """The anchored finder stops at the needles' anchors only and tests the needles that could
    share a place directly: on real lines it says exactly what a test of each needle says."""
    index = S.SIGNATURE_NEEDLES
    folders = ["sglang-logs", "real-engines", *(f"corpus/fresh{k}" for k in range(60, 70))]
    lines = 0
    for path in sorted(p for d in folders for p in (FIXTURES.parent / d).glob("*.log")):
        for line in path.read_text(errors="replace").splitlines():
            low = strip_wrappers(line).lower()
            if S.SIGNATURE_GATE.search(low):
                lines += 1
                assert index.candidates(low) == _present(index, low), low
    assert lines > 2000


def test_signature_candidates_on_needles_run_together() -> None:
    """Needles overlapping, one inside another, sharing an anchor at one place: random texts
    made of pieces of the real needles, each found as testing every needle finds it."""
    index = S.SIGNATURE_NEEDLES
    pieces = sorted(index.by_needle)
    rng = random.Random(7)
    for _ in range(3000):
        parts = []
        for _ in range(rng.randint(1, 5)):
            needle = rng.choice(pieces)
            i = rng.randint(0, len(needle) - 1)
            parts.append(needle[i:] if rng.random() < 0.5 else needle[:i + 1])
            if rng.random() < 0.3:
                parts.append(rng.choice(pieces))
        text = "".join(parts)
        assert index.candidates(text) == _present(index, text), text


def test_literal_sets_say_which_sets_occur() -> None:
    sets = LiteralSets(("abcde", "zzz"), ("abc", "cdef"), ("bcd",))
    assert sets.found("..abcdef..") == 0b111
    assert sets.found("xabcx") == 0b010        # "abc" starts "abcde", which is absent
    assert sets.found("zzz bcd") == 0b101
    assert sets.found("") == 0
    assert LiteralSets(()).found("anything") == 0


def test_line_gates_are_the_three_gates_on_real_log_lines() -> None:
    """The scan's one walk says what the signature gate and the benign list say, and never
    hides a line the rare gate (case-sensitive, on the message) would pass."""
    scored = ["sglang-logs", "real-engines", "corpus", "corpus/heldout", "corpus/fresh",
              "corpus/fresh/heldout", *(f"corpus/fresh{k}" for k in range(2, 10))]
    for path in sorted(p for d in scored for p in (FIXTURES.parent / d).glob("*.log")):
        for line in path.read_text(errors="replace").splitlines():
            msg = strip_wrappers(line)
            low = msg.lower()
            bits = K._LINE_GATES.found(low)
            assert bool(bits & K._SIGNATURE_BIT) == bool(S.SIGNATURE_GATE.search(low)), low
            assert bool(bits & K._BENIGN_BIT) == bool(S.BENIGN.search(low)), low
            if S.RARE_GATE.search(msg):
                assert bits & K._RARE_BIT, msg


def test_lowered_needles_also_of_a_case_insensitive_pattern() -> None:
    rx = re.compile(r"\bEAGLE3?\b|:draft_\w*$", re.IGNORECASE)
    assert needles(rx) is None
    assert lowered_needles(rx) == ("eagle", ":draft_")
    assert lowered_needles(re.compile(r"ncclCommInitRank")) == ("ncclcomminitrank",)
    assert lowered_needles(re.compile(r"a.b")) is None
    # "ſpec" matches "spec" case-insensitively: a non-ASCII literal gives no needles
    assert re.search(r"ſpec", "spec", re.IGNORECASE)
    assert lowered_needles(re.compile(r"ſpec", re.IGNORECASE)) is None


_FRAMES = [
    "/sgl-workspace/sglang/python/sglang/srt/speculative/eagle_worker.py:forward_draft_extend",
    "/opt/vllm/vllm/spec_decode/MultiStepWorker.py:EAGLE_propose",
    "/usr/lib/python3/dist-packages/torch/nn/modules/module.py:_call_impl",
    "/site-packages/sglang/srt/managers/scheduler.py:event_loop_overlap",
    "/site-packages/vllm/v1/worker/gpu_model_runner.py:profile_run",
    "/site-packages/flashinfer/jit/core.py:build_and_load",
    "/ſpeculative/eagle.py:f",   # not ASCII: no gate, always tried
]


def test_frame_gates_never_hide_a_frame_rule() -> None:
    """One literal search per frame stands for the frame-phase regexes, one for the frame
    hints (classifier._FRAME_PHASE_GATE, _FRAME_HINT_GATE): it may only skip frames that no
    regex of its set matches."""
    sets = [(K._FRAME_PHASE_GATE, [rx for _, rx in K._FRAME_PHASES]),
            (K._FRAME_HINT_GATE, [rx for _, rx, _ in S.FRAME_HINTS])]
    matched = 0
    for gate, rules in sets:
        assert gate is not None  # every rule of the set has literals to gate on
        for where in _FRAMES + _corpus_frames():
            if any(rx.search(where) for rx in rules):
                matched += 1
                assert K._may_match(gate, where), where
    assert matched > 10
    assert not K._may_match(K._FRAME_HINT_GATE, _FRAMES[2])  # a plain torch frame: skipped


def test_each_frame_rules_own_gate_never_hides_it() -> None:
    """Behind the shared gate each frame-phase regex and each frame hint is asked only where
    its own literals are (classifier._FRAME_PHASE_GATES, _FRAME_HINT_GATES): a place it
    matches always passes its gate."""
    pairs = [*zip((rx for _, rx in K._FRAME_PHASES), K._FRAME_PHASE_GATES),
             *zip((rx for _, rx, _ in S.FRAME_HINTS), K._FRAME_HINT_GATES)]
    matched = 0
    for where in _FRAMES + _corpus_frames():
        for rx, gate in pairs:
            if rx.search(where):
                matched += 1
                assert K._may_match(gate, where), (rx.pattern[:60], where)
    assert matched > 10


def _corpus_frames() -> list[str]:
    out = []
    for path in sorted(FIXTURES.glob("*.log")):
        for line in path.read_text(errors="replace").splitlines():
            m = S.frame_match(strip_wrappers(line))
            if m:
                out.append(f"{m[1]}:{m[2]}")
    return out


def _forms_in_written_order() -> tuple[str, ...]:
    """Every wrapper form, the frequent ones in their place among the common ones (last)."""
    from supervisor.diagnosis import normalize as N
    return (*N._WRAPPER_PATTERNS, *N._FREQUENT_WRAPPER_FORMS, *N._RARE_WRAPPER_FORMS)


def _stripped_one_at_a_time(line: str) -> str:
    """strip_wrappers as a loop of single matches (what its one repeated match must equal)."""
    one = re.compile("(?:" + "|".join(f"(?:{p})" for p in _forms_in_written_order()) + ")")
    for _ in range(8):
        m = one.match(line)
        if m is None or m.end() == 0:
            break
        line = line[m.end():]
    return line


@pytest.mark.parametrize("line", [
    "sglang-1  | [2025-03-08 12:29:21 TP0] Load weight begin",
    "2025-03-08T12:29:21.123456789Z stdout F (EngineCore_DP0 pid=9) INFO 06-22 02:54:36 "
    "[core.py:1] x",
    "[rank0]: [rank0]: Traceback (most recent call last):",
    "sglang-1  | " * 9 + "nine compose prefixes: eight are stripped",
    "│ [1;36m(VllmWorker rank=0 pid=7)[0;0m ERROR 06-22 02:54:36 [w.py:2] boom",
    '  File "x.py", line 1, in <module>',
])
def test_wrappers_are_stripped_in_one_match_as_one_at_a_time(line: str):
    # the repeated match reads each wrapper where the previous one ended: sound only while no
    # wrapper form looks behind or anchors on the start of the text
    assert not [p for p in _forms_in_written_order() if re.search(r"\(\?<[=!]|\\[bBA]|^\^", p)]
    assert strip_wrappers(line) == _stripped_one_at_a_time(line)


def test_frequent_wrapper_forms_tried_first_strip_every_labelled_line_alike():
    # strip_wrappers tries the frequent forms first; on every line of every labelled log that
    # must match exactly what the forms in their written order match
    from supervisor.diagnosis.normalize import _WRAPPERS, unglue
    written = re.compile("(?:" + "|".join(f"(?:{p})" for p in _forms_in_written_order())
                         + "){0,8}")
    differ, lines = [], 0
    for path in sorted(FIXTURES.parent.rglob("*.log")):
        for raw in path.read_text(errors="replace").splitlines():
            for line in unglue(raw):
                lines += 1
                if _WRAPPERS.match(line).end() != written.match(line).end():
                    differ.append(line)
    assert lines > 10_000 and not differ[:5]
