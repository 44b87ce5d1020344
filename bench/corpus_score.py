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
PARTS = {
    "sglang-logs": FIXTURES / "sglang-logs",
    "corpus": FIXTURES / "corpus",
    "heldout": FIXTURES / "corpus" / "heldout",
    "real-engines": FIXTURES / "real-engines",
    "fresh": FIXTURES / "corpus" / "fresh",
    "fresh-heldout": FIXTURES / "corpus" / "fresh" / "heldout",
    "fresh2": FIXTURES / "corpus" / "fresh2",
    "fresh3": FIXTURES / "corpus" / "fresh3",
    "fresh4": FIXTURES / "corpus" / "fresh4",
    "fresh5": FIXTURES / "corpus" / "fresh5",
    "fresh6": FIXTURES / "corpus" / "fresh6",
    "fresh7": FIXTURES / "corpus" / "fresh7",
    "fresh8": FIXTURES / "corpus" / "fresh8",
    "fresh9": FIXTURES / "corpus" / "fresh9",
    "fresh10": FIXTURES / "corpus" / "fresh10",
    "fresh11": FIXTURES / "corpus" / "fresh11",
    "fresh12": FIXTURES / "corpus" / "fresh12",
    "fresh13": FIXTURES / "corpus" / "fresh13",
    "fresh14": FIXTURES / "corpus" / "fresh14",
    "fresh15": FIXTURES / "corpus" / "fresh15",
    "fresh16": FIXTURES / "corpus" / "fresh16",
    "fresh17": FIXTURES / "corpus" / "fresh17",
    "fresh18": FIXTURES / "corpus" / "fresh18",
    "fresh19": FIXTURES / "corpus" / "fresh19",
    "fresh20": FIXTURES / "corpus" / "fresh20",
    "fresh21": FIXTURES / "corpus" / "fresh21",
    "fresh22": FIXTURES / "corpus" / "fresh22",
    "fresh23": FIXTURES / "corpus" / "fresh23",
    "fresh24": FIXTURES / "corpus" / "fresh24",
    "fresh25": FIXTURES / "corpus" / "fresh25",
    "fresh26": FIXTURES / "corpus" / "fresh26",
    "fresh27": FIXTURES / "corpus" / "fresh27",
    "fresh28": FIXTURES / "corpus" / "fresh28",
    "fresh29": FIXTURES / "corpus" / "fresh29",
    "fresh30": FIXTURES / "corpus" / "fresh30",
    "fresh31": FIXTURES / "corpus" / "fresh31",
    "fresh32": FIXTURES / "corpus" / "fresh32",
    "fresh33": FIXTURES / "corpus" / "fresh33",
    "fresh34": FIXTURES / "corpus" / "fresh34",
    "fresh35": FIXTURES / "corpus" / "fresh35",
    "fresh36": FIXTURES / "corpus" / "fresh36",
    "fresh37": FIXTURES / "corpus" / "fresh37",
    "fresh38": FIXTURES / "corpus" / "fresh38",
    "fresh39": FIXTURES / "corpus" / "fresh39",
    "fresh40": FIXTURES / "corpus" / "fresh40",
    "fresh41": FIXTURES / "corpus" / "fresh41",
    "fresh42": FIXTURES / "corpus" / "fresh42",
    "fresh43": FIXTURES / "corpus" / "fresh43",
    "fresh44": FIXTURES / "corpus" / "fresh44",
    "fresh45": FIXTURES / "corpus" / "fresh45",
    "fresh46": FIXTURES / "corpus" / "fresh46",
    "fresh47": FIXTURES / "corpus" / "fresh47",
    "fresh48": FIXTURES / "corpus" / "fresh48",
    "fresh49": FIXTURES / "corpus" / "fresh49",
    "fresh50": FIXTURES / "corpus" / "fresh50",
    "fresh51": FIXTURES / "corpus" / "fresh51",
    "fresh52": FIXTURES / "corpus" / "fresh52",
    "fresh53": FIXTURES / "corpus" / "fresh53",
    "fresh54": FIXTURES / "corpus" / "fresh54",
    "fresh55": FIXTURES / "corpus" / "fresh55",
    "fresh56": FIXTURES / "corpus" / "fresh56",
    "fresh57": FIXTURES / "corpus" / "fresh57",
    "fresh58": FIXTURES / "corpus" / "fresh58",
    "fresh59": FIXTURES / "corpus" / "fresh59",
    "fresh60": FIXTURES / "corpus" / "fresh60",
    "fresh61": FIXTURES / "corpus" / "fresh61",
}
# parts whose misses are never listed by --show tune: what is scored but not tuned on
UNTOUCHED = ("heldout", "fresh-heldout", "fresh2", "fresh3", "fresh4", "fresh5",
             "fresh6", "fresh7", "fresh8", "fresh9", "fresh10", "fresh11", "fresh12", "fresh13",
             "fresh14", "fresh15", "fresh16", "fresh17",
             "fresh18", "fresh19", "fresh20", "fresh21", "fresh22", "fresh23", "fresh24", "fresh25",
             "fresh26", "fresh27", "fresh28", "fresh29", "fresh30",
             "fresh31", "fresh32", "fresh33", "fresh34", "fresh35",
             "fresh36", "fresh37", "fresh38", "fresh39", "fresh40",
             "fresh41", "fresh42", "fresh43", "fresh44", "fresh45", "fresh46", "fresh47",
             "fresh48", "fresh49", "fresh50", "fresh51", "fresh52", "fresh53", "fresh54", "fresh55",
             "fresh56", "fresh57", "fresh58", "fresh59", "fresh60", "fresh61")
# each part's cause confusion, under its title
CONFUSIONS = (("corpus", "tuning part (corpus)"), ("heldout", "held-out part"),
              ("fresh", "fresh part (tuning)"), ("fresh-heldout", "fresh held-out part"),
              ("fresh2", "third batch (fresh2)"), ("fresh3", "fourth batch (fresh3)"),
              ("fresh4", "fifth batch (fresh4)"), ("fresh5", "sixth batch (fresh5)"),
              ("fresh6", "seventh batch (fresh6)"), ("fresh7", "eighth batch (fresh7)"),
              ("fresh8", "ninth batch (fresh8)"), ("fresh9", "tenth batch (fresh9)"),
              ("fresh10", "eleventh batch (fresh10)"),
              ("fresh11", "twelfth batch (fresh11)"),
              ("fresh12", "thirteenth batch (fresh12)"),
              ("fresh13", "fourteenth batch (fresh13)"),
              ("fresh14", "fifteenth batch (fresh14)"),
              ("fresh15", "sixteenth batch (fresh15)"),
              ("fresh16", "seventeenth batch (fresh16)"),
              ("fresh17", "eighteenth batch (fresh17)"),
              ("fresh18", "nineteenth batch (fresh18)"),
              ("fresh19", "twentieth batch (fresh19)"),
              ("fresh20", "twenty-first batch (fresh20)"),
              ("fresh21", "twenty-second batch (fresh21)"),
              ("fresh22", "twenty-third batch (fresh22)"),
              ("fresh23", "twenty-fourth batch (fresh23)"),
              ("fresh24", "twenty-fifth batch (fresh24)"),
              ("fresh25", "twenty-sixth batch (fresh25)"),
              ("fresh26", "twenty-seventh batch (fresh26)"),
              ("fresh27", "twenty-eighth batch (fresh27)"),
              ("fresh28", "twenty-ninth batch (fresh28)"),
              ("fresh29", "thirtieth batch (fresh29)"),
              ("fresh30", "thirty-first batch (fresh30)"),
              ("fresh31", "thirty-second batch (fresh31)"),
              ("fresh32", "thirty-third batch (fresh32)"),
              ("fresh33", "thirty-fourth batch (fresh33)"),
              ("fresh34", "thirty-fifth batch (fresh34)"),
              ("fresh35", "thirty-sixth batch (fresh35)"),
              ("fresh36", "thirty-seventh batch (fresh36)"),
              ("fresh37", "thirty-eighth batch (fresh37)"),
              ("fresh38", "thirty-ninth batch (fresh38)"),
              ("fresh39", "fortieth batch (fresh39)"),
              ("fresh40", "forty-first batch (fresh40)"),
              ("fresh41", "forty-second batch (fresh41)"),
              ("fresh42", "forty-third batch (fresh42)"),
              ("fresh43", "forty-fourth batch (fresh43)"),
              ("fresh44", "forty-fifth batch (fresh44)"),
              ("fresh45", "forty-sixth batch (fresh45)"),
              ("fresh46", "forty-seventh batch (fresh46)"),
              ("fresh47", "forty-eighth batch (fresh47)"),
              ("fresh48", "forty-ninth batch (fresh48)"),
              ("fresh49", "fiftieth batch (fresh49)"),
              ("fresh50", "fifty-first batch (fresh50)"),
              ("fresh51", "fifty-second batch (fresh51)"),
              ("fresh52", "fifty-third batch (fresh52)"),
              ("fresh53", "fifty-fourth batch (fresh53)"),
              ("fresh54", "fifty-fifth batch (fresh54)"),
              ("fresh55", "fifty-sixth batch (fresh55)"),
              ("fresh56", "fifty-seventh batch (fresh56)"),
              ("fresh57", "fifty-eighth batch (fresh57)"),
              ("fresh58", "fifty-ninth batch (fresh58)"),
              ("fresh59", "sixtieth batch (fresh59)"),
              ("fresh60", "sixty-first batch (fresh60)"),
              ("fresh61", "sixty-second batch (fresh61)"))
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
