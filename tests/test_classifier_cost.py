"""The classifier's shortcuts for cost per line say what the work they skip would have said."""

from __future__ import annotations

import itertools
import re
from pathlib import Path

from supervisor.diagnosis import classifier as K
from supervisor.diagnosis.classifier import classify_lines
from supervisor.diagnosis.normalize import strip_wrappers
from supervisor.engines.base import literal_prefilter, literal_trie

FIXTURES = Path(__file__).parent / "fixtures"


def _counted(msgs: list[str], raw: list[str]) -> str:
    """Engine detection as it was: every line counted, then the majority (vLLM only if it
    has more lines than SGLang)."""
    sg = vl = 0
    for msg, line in zip(msgs, raw):
        if K._SGLANG_HINTS.search(msg) or K._SGLANG_RANK.search(line):
            sg += 1
        elif K._VLLM_HINTS.search(msg) or K._VLLM_HEADER.search(line) or \
                K._VLLM_PROCESS.search(line):
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


def test_one_trie_builder_for_prefilters_and_longest_finders() -> None:
    # a yes/no prefilter drops what extends a shorter fragment; a finder keeps it, greedy
    assert literal_prefilter("ab", "abc", "b").pattern == "(?:ab|b)"
    finder = re.compile(literal_trie(["ab", "abc", "b"], longest=True))
    assert finder.search("xabcx").group() == "abc"
    assert finder.search("xabx").group() == "ab"
    assert finder.search("xbx").group() == "b"
    assert literal_trie([], longest=True) == ""
