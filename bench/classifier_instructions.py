"""The classifier's cost per line in instructions (cachegrind), for comparing two trees exactly.

    python bench/classifier_instructions.py TREE [TREE...] [--mode given|detected] [--seeds 0 1 2 3]

Each TREE is a folder holding a ``supervisor/`` package (a worktree of another commit, or a copy
of this one). Timing on shared machines moves by more than a rule costs; instructions do not:
valgrind's cachegrind counts them (``--cache-sim=no``) for a warm-up pass plus one pass, then a
warm-up pass plus three, of ``classify_lines`` over the 828 logs of the parts up to fresh14
(10,025 lines), and the difference over two passes, per line, is the figure. What the
classifier keeps across logs (the places of traceback frames) is emptied before each pass, as
a daemon's first runs would find it. Copy the trees to folders of the same name length: the
path is in the interpreter's strings and moves the count by a few hundred. Needs valgrind.

Where objects land in memory moves the count too (CPython's attribute caches are indexed by
the addresses of names): two trees whose modules differ by one import or one constant's place
can differ by up to ~1,000 instructions a line for no other reason. ``--layouts K`` measures
each seed under K layouts (a different padding allocated before the import) and prints the
median and every figure: compare medians, and read a difference inside the spreads as none.
The measured process gets a fixed environment (PATH, HOME and the bench's own variables):
the environment's size alone moved one tree's count by ~650 instructions a line between two
invocations.
"""

from __future__ import annotations

import argparse
import os
import re
import subprocess
import sys
from pathlib import Path

FIXTURES = Path(__file__).resolve().parents[1] / "tests" / "fixtures"
FOLDERS = [FIXTURES / "sglang-logs", FIXTURES / "corpus", FIXTURES / "corpus" / "heldout",
           FIXTURES / "real-engines", FIXTURES / "corpus" / "fresh",
           FIXTURES / "corpus" / "fresh" / "heldout",
           *(FIXTURES / "corpus" / f"fresh{i}" for i in range(2, 15))]


def load_logs() -> list[tuple[str | None, list[str]]]:
    """(engine label, body lines) of every log in FOLDERS."""
    logs = []
    for folder in FOLDERS:
        for path in sorted(folder.glob("*.log")):
            lines = path.read_text(encoding="utf-8", errors="replace").splitlines(keepends=True)
            labels, i = {}, 0
            while i < len(lines) and lines[i].startswith("#"):
                m = re.match(r"# (\w+): (.*)", lines[i])
                if m:
                    labels[m[1]] = m[2].strip()
                i += 1
            logs.append((labels.get("engine"), "".join(lines[i + 1:]).splitlines()))
    return logs


def run_passes(tree: str, mode: str, passes: int) -> None:
    """The measured workload (run under valgrind by :func:`count`)."""
    # --layouts: objects and a buffer allocated before the import, kept alive, so that what
    # the classifier allocates lands at other addresses (its dicts and sets of objects hashed
    # by address probe differently; see the module's docstring)
    layout = int(os.environ.get("GNS_BENCH_LAYOUT", "0"))
    _pad.extend([object() for _ in range(layout * 997)] + [bytearray(layout * 4099)])
    sys.path.insert(0, tree)
    from supervisor.diagnosis import classifier
    logs = load_logs()
    for _ in range(passes):
        for kept in ("_PLACE_PHASES", "_PLACE_HINTS", "_REQUEST_PLACES"):
            getattr(classifier, kept, {}).clear()
        for engine, body in logs:
            classifier.classify_lines(body, engine=engine if mode == "given" else None)


_pad: list[object] = []


def count(tree: str, mode: str, passes: int, seed: int, layout: int = 0) -> int:
    # (a fixed environment: its strings sit on the new process's stack, and their length moves
    # the count by hundreds of instructions a line - two invocations from shells whose
    # environments differ were not comparable)
    env = {"PATH": os.environ.get("PATH", os.defpath), "HOME": os.environ.get("HOME", "/"),
           "PYTHONHASHSEED": str(seed), "PYTHONDONTWRITEBYTECODE": "1",
           "GNS_BENCH_LAYOUT": str(layout)}
    out = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         sys.executable, __file__, "--run", tree, "--mode", mode, "--passes", str(passes)],
        env=env, capture_output=True, text=True, check=True).stderr
    m = re.search(r"I\s+refs:\s+([\d,]+)", out)
    if m is None:
        raise SystemExit(f"no instruction count in valgrind's output:\n{out[-2000:]}")
    return int(m[1].replace(",", ""))


def main() -> None:
    ap = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    ap.add_argument("trees", nargs="*")
    ap.add_argument("--mode", choices=("given", "detected"), default="given")
    ap.add_argument("--seeds", type=int, nargs="+", default=[0])
    ap.add_argument("--layouts", type=int, default=1,
                    help="measure each seed under this many memory layouts; print the median")
    ap.add_argument("--run", help=argparse.SUPPRESS)
    ap.add_argument("--passes", type=int, default=1, help=argparse.SUPPRESS)
    args = ap.parse_args()
    if args.run:
        run_passes(args.run, args.mode, args.passes)
        return
    if not args.trees:
        ap.error("name at least one tree (a folder holding supervisor/)")
    lines = sum(len(body) for _, body in load_logs())
    for tree in args.trees:
        for seed in args.seeds:
            figures = sorted((count(tree, args.mode, 3, seed, k) -
                              count(tree, args.mode, 1, seed, k)) // 2 // lines
                             for k in range(args.layouts))
            spread = f" (layouts: {', '.join(f'{f:,}' for f in figures)})" \
                if args.layouts > 1 else ""
            print(f"{tree} {args.mode} seed={seed}: {figures[len(figures) // 2]:,} "
                  f"instructions a line ({lines:,} lines){spread}")


if __name__ == "__main__":
    main()
