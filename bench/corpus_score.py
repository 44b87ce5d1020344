"""Score the classifier on every labelled log: per field, per part, with a confusion table.

    python bench/corpus_score.py                 # this tree
    python bench/corpus_score.py --src /tmp/base # another copy of supervisor/ (A/B)
    python bench/corpus_score.py --show tune     # list the misses of the tuning part
    python bench/corpus_score.py --cost          # also the classifier's cost per line

Parts: ``sglang-logs`` (the logs the classifier was built on), ``corpus`` (tuning part of the
public corpus), ``heldout`` (tests/fixtures/corpus/heldout, chosen by a hash of the file name
before any verdict was seen; measured blind once, tuning data since) and ``real-engines`` (runs
made here). A label ``hung``/``timeout``/``incomplete`` expects ``incomplete`` offline; ``stopped``
(a run stopped on request) expects ``ready`` if it had reached ready, else ``incomplete``.
"""

from __future__ import annotations

import argparse
import re
import sys
import time
from collections import Counter
from pathlib import Path
from typing import Any

REPO = Path(__file__).resolve().parents[1]
FIXTURES = REPO / "tests" / "fixtures"


def ordinal(n: int) -> str:
    """`sixty-second` for 62: the batches' names in docs/classifier.md."""
    firsts = ("", "first", "second", "third", "fourth", "fifth", "sixth", "seventh", "eighth",
              "ninth", "tenth", "eleventh", "twelfth", "thirteenth", "fourteenth", "fifteenth",
              "sixteenth", "seventeenth", "eighteenth", "nineteenth")
    tens = ("", "", "twenty", "thirty", "forty", "fifty", "sixty", "seventy", "eighty", "ninety")
    if n < 20:
        return firsts[n]
    if n >= 100:  # (101st, 112th, 183rd: the teens take -th)
        suffix = "th" if n % 100 in (11, 12, 13) else {1: "st", 2: "nd", 3: "rd"}.get(n % 10, "th")
        return f"{n}{suffix}"
    ten, one = divmod(n, 10)
    return f"{tens[ten]}-{firsts[one]}" if one else tens[ten][:-1] + "ieth"


def batch_folders() -> list[Path]:
    """The blind batches after the first two, in the order they came: corpus/fresh2 (the
    third batch), fresh3, ... A new batch is a new numbered folder."""
    found = [d for d in (FIXTURES / "corpus").glob("fresh[0-9]*") if d.is_dir()]
    return sorted(found, key=lambda d: int(d.name.removeprefix("fresh")))


BATCHES = batch_folders()
PARTS = {
    "sglang-logs": FIXTURES / "sglang-logs",
    "corpus": FIXTURES / "corpus",
    "heldout": FIXTURES / "corpus" / "heldout",
    "real-engines": FIXTURES / "real-engines",
    "fresh": FIXTURES / "corpus" / "fresh",
    "fresh-heldout": FIXTURES / "corpus" / "fresh" / "heldout",
    **{d.name: d for d in BATCHES},
}
# parts whose misses are never listed by --show tune: what is scored but not tuned on
UNTOUCHED = ("heldout", "fresh-heldout", *(d.name for d in BATCHES))
# each part's cause confusion, under its title (fresh2 is the third batch)
CONFUSIONS = (("corpus", "tuning part (corpus)"), ("heldout", "held-out part"),
              ("fresh", "fresh part (tuning)"), ("fresh-heldout", "fresh held-out part"),
              *((d.name, f"{ordinal(int(d.name.removeprefix('fresh')) + 1)} batch ({d.name})")
                for d in BATCHES))
FIELDS = ("outcome", "phase", "cause")


def split_fixture(path: Path) -> tuple[dict[str, str], str]:
    """Header labels and the log body (the header ends at the first blank line)."""
    lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
    labels: dict[str, str] = {}
    i = 0
    while i < len(lines) and lines[i].startswith("#"):
        m = re.match(r"# (\w+): (.*)", lines[i])
        if m:
            labels[m[1]] = m[2].strip()
        i += 1
    return labels, "".join(lines[i + 1:])


def expected(labels: dict[str, str]) -> dict[str, str]:
    """What ``diagnose`` should say for these labels (outcome, phase, cause as strings)."""
    outcome, phase = labels["outcome"], labels["phase_at_end"]
    if outcome in ("hung", "timeout", "incomplete"):
        outcome = "incomplete"
    elif outcome == "stopped":
        outcome = "ready" if phase in ("ready", "serving") else "incomplete"
    cause = labels["cause"]
    if outcome == "ready" or cause == "none":
        cause = "none"
    return {"outcome": outcome, "phase": phase, "cause": cause}


def fixtures(part: str) -> list[Path]:
    folder = PARTS[part]
    return sorted(folder.glob("*.log")) if folder.is_dir() else []


def verdict(body: str) -> dict[str, str]:
    from supervisor.diagnosis.classifier import classify_text
    v = classify_text(body)
    return {"outcome": v.outcome.value, "phase": v.phase.value,
            "cause": v.cause.value if v.cause is not None else "none"}


def score(parts: list[str]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for part in parts:
        rows = []
        for path in fixtures(part):
            labels, body = split_fixture(path)
            rows.append((path.name, expected(labels), verdict(body)))
        out[part] = rows
    return out


def table(results: dict[str, Any]) -> str:
    lines = ["| part | logs | outcome | phase | cause | cause (crashed logs) |",
             "|---|---|---|---|---|---|"]
    total: Counter[str] = Counter()
    for part, rows in results.items():
        if not rows:
            continue
        ok = Counter()
        n_cause = 0
        for _name, want, got in rows:
            for f in FIELDS:
                ok[f] += want[f] == got[f]
            if want["outcome"] == "crashed":
                n_cause += 1
                ok["crashed_cause"] += want["cause"] == got["cause"]
        total.update({"n": len(rows), "nc": n_cause, **ok})
        n = len(rows)
        lines.append(f"| {part} | {n} | {_pct(ok['outcome'], n)} | {_pct(ok['phase'], n)} | "
                     f"{_pct(ok['cause'], n)} | {_pct(ok['crashed_cause'], n_cause)} |")
    n = total["n"]
    lines.append(f"| all | {n} | {_pct(total['outcome'], n)} | {_pct(total['phase'], n)} | "
                 f"{_pct(total['cause'], n)} | {_pct(total['crashed_cause'], total['nc'])} |")
    return "\n".join(lines)


def _pct(k: int, n: int) -> str:
    return f"{k}/{n} ({100 * k / n:.0f} %)" if n else "-"


def confusion(rows: list[tuple[str, dict[str, str], dict[str, str]]]) -> str:
    """Label cause against diagnosed cause, every log (`none` for a ready one): the diagonal
    as a count per label, then the off-diagonal cells."""
    pairs = Counter((w["cause"], g["cause"]) for _n, w, g in rows)
    labels = sorted({w for w, _ in pairs})
    lines = ["| labelled cause | right | diagnosed instead |", "|---|---|---|"]
    for lab in labels:
        right = pairs[(lab, lab)]
        wrong = ", ".join(f"{g} x{k}" for (w, g), k in sorted(pairs.items())
                          if w == lab and g != lab)
        lines.append(f"| {lab} | {right} | {wrong or '-'} |")
    return "\n".join(lines)


def misses(rows: list[tuple[str, dict[str, str], dict[str, str]]]) -> list[str]:
    out = []
    for name, want, got in rows:
        bad = [f"{f}: {want[f]} -> {got[f]}" for f in FIELDS if want[f] != got[f]]
        if bad:
            out.append(f"  {name}: " + "; ".join(bad))
    return out


def cost_per_line(reps: int = 20) -> tuple[float, float, float, int]:
    """CPU µs per line of classify_lines over every labelled log (each classified whole):
    with the engine given (the daemon's verdict) and detected (``diagnose FILE``). What the
    classifier keeps across logs (the places of traceback frames) is emptied before each pass:
    a pass is every log seen once, as a daemon's first runs would be."""
    from supervisor.diagnosis import classifier
    from supervisor.diagnosis.classifier import classify_lines

    def forget() -> None:
        for kept in ("_PLACE_PHASES", "_PLACE_HINTS", "_REQUEST_PLACES"):  # absent before them
            getattr(classifier, kept, {}).clear()
    logs = [(split_fixture(p)[0].get("engine"), split_fixture(p)[1].splitlines())
            for part in PARTS for p in fixtures(part)]
    n_lines = sum(len(b) for _, b in logs)
    out = []
    for given in (True, False):
        best = float("inf")
        for _ in range(5):
            t0 = time.process_time()
            for _ in range(reps):
                forget()
                for engine, body in logs:
                    classify_lines(body, engine=engine if given else None)
            best = min(best, time.process_time() - t0)
        out.append(best / reps / n_lines * 1e6)
    # one long log (every labelled log end to end, as a live tail of many lines): the per-line
    # scan dominates, not the per-log decision
    tail = [line for _, body in logs for line in body]
    best = float("inf")
    for _ in range(5):
        t0 = time.process_time()
        for _ in range(reps):
            forget()
            classify_lines(tail, engine="sglang")
        best = min(best, time.process_time() - t0)
    out.append(best / reps / len(tail) * 1e6)
    return out[0], out[1], out[2], n_lines


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    ap.add_argument("--src", type=Path, help="a folder holding another supervisor/ package")
    ap.add_argument("--show", choices=["none", "tune", "all"], default="none",
                    help="list the misses (tune: every part but the two held-out ones)")
    ap.add_argument("--cost", action="store_true", help="measure µs per classified line")
    args = ap.parse_args()
    sys.path.insert(0, str(args.src.resolve() if args.src else REPO))
    results = score(list(PARTS))
    print(table(results))
    every = [row for rows in results.values() for row in rows]
    for part, title in CONFUSIONS:
        print(f"\nCauses, {title}:\n" + confusion(results[part]))
    print("\nCauses, all labelled logs:\n" + confusion(every))
    if args.show != "none":
        for part, rows in results.items():
            if part in UNTOUCHED and args.show != "all":
                continue
            found = misses(rows)
            if found:
                print(f"\nmisses in {part}:\n" + "\n".join(found))
    if args.cost:
        given, detected, long, n = cost_per_line()
        print(f"\ncost, µs of CPU per line ({n} lines, best of 5): {given:.1f} classifying each "
              f"log with its engine given (live verdicts), {detected:.1f} detecting the engine "
              f"(diagnose FILE), {long:.1f} for all of them as one long log")


if __name__ == "__main__":
    main()
