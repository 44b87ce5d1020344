"""The classifier's shortcuts for cost per line say what the work they skip would have said."""

from __future__ import annotations

import itertools
from pathlib import Path

from hypothesis import given, settings
from hypothesis import strategies as st

from supervisor.diagnosis import classifier as K
from supervisor.diagnosis.classifier import classify_lines
from supervisor.diagnosis.needles import LiteralSets
from supervisor.diagnosis.normalize import strip_wrappers
from supervisor.engines.literals import literal_prefilter

FIXTURES = Path(__file__).parent / "fixtures"


def _counted(msgs: list[str], raw: list[str]) -> str:
    """Engine detection as it was: every line counted, then the majority (vLLM only if it
    has more lines than SGLang)."""
    sg = vl = 0
    for msg, line in zip(msgs, raw):
        if K._SGLANG_HINTS.search(msg) or K._SGLANG_RANK.search(line):
            sg += 1
        elif K._VLLM_HINTS.search(msg) or K._VLLM_HEADER.search(line) or \
                K._VLLM_PROCESS.search(line) or line.startswith(K._UVICORN_BARE):
            vl += 1
    return "vllm" if vl > sg else "sglang"


def test_detection_that_stops_once_decided_says_what_counting_every_line_says() -> None:
    logs = sorted(FIXTURES.rglob("*.log"))
    assert len(logs) > 700
    for path in logs:
        raw = path.read_text(errors="replace").splitlines()
        msgs = [strip_wrappers(line) for line in raw]
        assert K._detect(msgs, raw) == _counted(msgs, raw), path
    # every order of up to 7 lines of each kind: ties, a late majority, a lead overturned
    kinds = ["[2025-03-08 12:29:21 TP0] Load weight begin. avail mem=70.1 GB",
             "INFO 06-22 02:54:36 [gpu_model_runner.py:1595] Model loading took 14.9 GiB",
             "some other line"]
    for n in range(8):
        for lines in itertools.product(kinds, repeat=n):
            raw = list(lines)
            msgs = [strip_wrappers(line) for line in raw]
            assert K._detect(msgs, raw) == _counted(msgs, raw), raw


def test_a_long_line_is_matched_unless_it_is_an_argument_dump() -> None:
    """A line over _LONG_LINE characters asks the rare gate before the gate walk: an argument
    dump is still never matched against the signatures, any other long line still is."""
    pad = " ".join(f"field_{k}=value_{k}" for k in range(60))
    oom = "torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. " + pad
    assert len(oom) > K._LONG_LINE
    verdict = classify_lines(["Load weight begin. avail mem=70.1 GB", oom], engine="sglang")
    assert verdict.outcome.value == "crashed"
    assert verdict.cause is not None and verdict.cause.value == "cuda_oom"
    dump = f"server_args=ServerArgs(model_path='m', note='CUDA out of memory', {pad})"
    assert len(dump) > K._LONG_LINE
    verdict = classify_lines([dump, "Load weight begin. avail mem=70.1 GB"], engine="sglang")
    assert verdict.outcome.value == "incomplete"
    assert verdict.cause is None or verdict.cause.value != "cuda_oom"


def test_an_anchored_prefilter_starts_each_fragment_at_a_rare_character() -> None:
    # `out of memory` is found from its `f` (rarer than any other of its letters), the rest
    # read on and the whole looked behind at its end; a fragment that holds another is dropped
    rx = literal_prefilter("out of memory", "HTTP/", "HTTP/1.1 200")
    assert rx.pattern == r"HTTP/|f\ memory(?<=out\ of\ memory)"
    # fragments under one anchor share what follows it (a trie), each looked behind at its end
    xid = literal_prefilter("xid 79", "xid 48", "pxid")
    assert xid.pattern == r"xid(?:\ (?:48|79)|(?<=pxid))"
    assert xid.search("nvrm: xid 48") and xid.search("pxid") and not xid.search("xid 5")
    assert rx.search("CUDA out of memory. Tried") and rx.search("GET / HTTP/1.1")
    assert not rx.search("out of memor") and not rx.search("ut of memory")
    assert not literal_prefilter().search("anything")


_TEXT = st.text(alphabet="abcdefghijklmnopqrstuvwxyz ABCDEFGHIJKLMNOPQRSTUVWXYZ%(/.:_0123456789",
                max_size=60)


@settings(max_examples=400, deadline=None)
@given(st.lists(st.text(alphabet="abcdefghijkrst ()%:AB", min_size=1, max_size=6),
                min_size=1, max_size=12), st.lists(_TEXT, max_size=6))
def test_an_anchored_prefilter_says_what_substring_tests_say(fragments: list[str],
                                                             texts: list[str]) -> None:
    rx = literal_prefilter(*fragments)
    # texts built from the fragments too, so that most hold some
    for text in [*texts, "".join(fragments), " ".join(fragments[::2]) + "x",
                 "x".join(f[1:] for f in fragments)]:
        assert bool(rx.search(text)) == any(f in text for f in fragments), (fragments, text)


@settings(max_examples=300, deadline=None)
@given(st.lists(st.lists(st.text(alphabet="abcder ()%", min_size=1, max_size=5), max_size=6),
                min_size=1, max_size=3), st.lists(_TEXT, max_size=5))
def test_literal_sets_find_every_set_that_occurs(sets: list[list[str]],
                                                 texts: list[str]) -> None:
    found = LiteralSets(*sets)
    pieces = [lit for literals in sets for lit in literals]
    for text in [*texts, "".join(pieces), "".join(reversed(pieces)),
                 "-".join(p[:-1] + "e" for p in pieces)]:
        want = sum(1 << k for k, literals in enumerate(sets) if any(lit in text for lit in literals))
        assert found.found(text) == want, (sets, text)


def test_literal_sets_find_a_set_whose_literal_overlaps_an_earlier_sets() -> None:
    # `warn` (set 0) inside `userwarning` (set 1): the search that found `warn` goes on from
    # its anchor, where the other set's literal is anchored too
    gates = LiteralSets(["warn"], ["userwarning"], ["zzz"])
    assert gates.found("x.py:12: userwarning: triton is not supported") == 0b011
    assert gates.found("warn only") == 0b001


def _frame_phase_uncached(frames: list[tuple[int, str]]) -> object:
    """_frame_phase as it was before places were kept: every place read afresh."""
    best = None
    container = False
    for where in dict.fromkeys(w for _, w in frames):
        if where.endswith(":<module>"):
            continue
        if "warm_up" in where and K.S.WARMUP_CONTAINER.search(where):
            container = True
            continue
        if not K._may_match(K._FRAME_PHASE_GATE, where):
            continue
        for phase, rx in K._FRAME_PHASES:
            if (best is None or phase.rank > best.rank) and rx.search(where):
                best = phase
                break
        if best is K.Phase.SERVING and not container:
            return best
    if container and (best is None or best.rank < K.Phase.CUDA_GRAPH_CAPTURE.rank
                      or best.rank > K.Phase.WARMUP.rank):
        return K.Phase.WARMUP
    return best


def test_places_kept_for_the_process_read_as_places_read_afresh() -> None:
    """The phase and the cause hint of a place are kept across logs (_place_phases,
    _frame_hint): every labelled log's frames, in every order of its places' first reading,
    date the failure as reading each place afresh does; the store is bounded."""
    logs = sorted(FIXTURES.rglob("*.log"))
    frames_of = []
    for path in logs:
        raw = path.read_text(errors="replace").splitlines()
        msgs = [strip_wrappers(line) for line in raw]
        scan = K._scan(raw, msgs, K.get_engine("sglang").new_tracker())
        if scan.frames:
            frames_of.append(scan.frames)
    assert len(frames_of) > 300
    for order in (frames_of, frames_of[::-1]):
        K._PLACE_PHASES.clear()
        K._PLACE_HINTS.clear()
        for frames in order:
            assert K._frame_phase(frames) == _frame_phase_uncached(frames), frames
            for _, where in frames:
                want = next(((c, p) for c, rx, p in K.S.FRAME_HINTS if rx.search(where)), None) \
                    if K._may_match(K._FRAME_HINT_GATE, where) and \
                    not where.endswith(":<module>") else None
                assert K._frame_hint(where) == want, where
    assert 0 < len(K._PLACE_PHASES) <= K._PLACES_KEPT
    kept = K._PLACES_KEPT
    try:
        K._PLACES_KEPT = 3
        for k in range(10):
            K._place_phases(f"/x/y{k}.py:f")
        assert len(K._PLACE_PHASES) <= 3
    finally:
        K._PLACES_KEPT = kept
