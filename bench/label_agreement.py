"""How often two people labelling by the same rules agree, against how often the classifier
agrees with either: the ceiling that label noise puts on any score against these labels.

    python bench/label_agreement.py            # this tree
    python bench/label_agreement.py --src DIR  # another copy of supervisor/

bench/data/second_labels.tsv holds a second, independent labelling of 80 corpus logs drawn at
random (by two helpers who followed tests/fixtures/corpus/README.md, saw neither the files'
labels nor any verdict, and ran no classifier code). Each field is compared as `diagnose`
reads it (corpus_score.expected: hung/timeout/incomplete are one outcome, a stopped run's is
its phase's).
"""

from __future__ import annotations

import argparse
import sys
from collections import Counter
from pathlib import Path

from corpus_score import FIELDS, FIXTURES, expected, split_fixture, verdict

SECOND = Path(__file__).resolve().parent / "data" / "second_labels.tsv"


def read_second() -> list[tuple[str, dict[str, str]]]:
    rows = []
    for line in SECOND.read_text(encoding="utf-8").splitlines():
        if not line or line.startswith("#"):
            continue
        name, outcome, phase, cause, *_ = line.split("\t")
        rows.append((name, {"outcome": outcome, "phase_at_end": phase, "cause": cause}))
    return rows


def agreement(pairs: list[tuple[dict[str, str], dict[str, str]]]) -> str:
    n = len(pairs)
    ok = Counter(f for a, b in pairs for f in FIELDS if a[f] == b[f])
    return " / ".join(f"{f} {ok[f]}/{n} ({100 * ok[f] / n:.1f} %)" for f in FIELDS)


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--src", help="a folder holding another supervisor/ package")
    args = ap.parse_args()
    sys.path.insert(0, args.src or str(Path(__file__).resolve().parents[1]))
    first, second, ours = [], [], []
    for name, labels in read_second():
        file_labels, body = split_fixture(FIXTURES / name)
        first.append(expected(file_labels))
        second.append(expected(labels))
        ours.append(verdict(body))
    print(f"{len(first)} logs labelled twice")
    print("first labeller (the file) vs second:", agreement(list(zip(first, second))))
    print("classifier vs the first labeller:   ", agreement(list(zip(ours, first))))
    print("classifier vs the second labeller:  ", agreement(list(zip(ours, second))))
    both = [(o, a) for o, a, b in zip(ours, first, second) if a == b]
    print(f"classifier on the {len(both)} logs the two label alike:", agreement(both))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
