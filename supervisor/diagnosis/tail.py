"""Which lines of a live run's log tail the classifier needs for a verdict.

At a verdict the daemon classifies the last few thousand lines. Two kinds of line are most of
a busy tail and can never be a root error:

- routine serving lines (decode/prefill batch stats, 200 access lines): the live tracker
  already knows the phase;
- redraws of one progress bar (tqdm writes ``\\r`` and the bar again, the pipeline makes each a
  line): the first says where it began, the latest how far it got (the capture stopped at
  37 %); those in between say nothing more.

Dropping them keeps the verdict and its evidence the same and saves the classifier most of its
work (a 3,000-line tail of the bench's flood, half of it bar redraws: 48 ms of CPU at the
verdict before, about 15 ms now).
"""

from __future__ import annotations

import re

# A line that is nothing but a tqdm bar: "DESC:  37%|███▋      | 19/51 [00:03<00:05, 5.9it/s]".
# Anything after the closing bracket (an error glued on by a missing newline) keeps it whole.
_BAR_END = re.compile(r"\|[^|]*\|\s*(\d+)/(\d+)\s*\[[^\]]*\]\s*")  # after the "NN%"
_DIGIT = re.compile(r"\d")


def _routine_kind(line: str) -> str | None:
    """Which kind of routine serving line this is, or None (substring tests: 3x faster than
    one regex)."""
    if "Decode batch" in line:
        return "decode"
    if "Prefill batch" in line:
        return "prefill"
    if '" 200 OK' in line:
        return "post" if '"POST ' in line else "call"
    return None


def verdict_lines(lines: list[str], keep_last: int = 50) -> list[str]:
    """``lines`` with each run of redraws of one progress bar cut to its first and last line,
    and without routine serving lines except among the newest ``keep_last`` (the classifier
    reads recent serving as a sign that an earlier traceback was survived).

    The first line of a run is where the bar began (the classifier cites it as the line that
    moved the phase), the last how far it got. Two bar lines are redraws of one bar when they
    follow each other (dropped lines between do not count), have the same total and the same
    description up to its first digit (SGLang redraws "Capturing batches (bs=512 avail_mem=12.3
    GB)" with a new bs each step), and the count does not go down: bars of several ranks
    drawn in turn are not one bar, and each of their lines stays.
    """
    routine_before = len(lines) - keep_last if len(lines) > 4 * keep_last else 0
    # the first two and the last routine line of each kind stay (a decode batch, a prefill
    # batch, an answered call, an answered POST): the sign that requests were served, where
    # nothing later says so - more than the first because it may be the engine's own warmup
    # request (SGLang's `POST /generate` before its ready line), the clients' traffic after
    # it; the second as well as the last because the last may look like a probe (SGLang's
    # /health prefills one new token, and so does a client's prompt the radix cache holds
    # all but one token of: fl105, where only the first client's prefill showed more)
    kinds_kept: dict[str, int] = {}
    last_of = _last_routine(lines, routine_before)
    out: list[str] = []
    run: tuple[str, str, int] | None = None  # the bar of the run so far: description, total, count
    run_len = 0
    for i, line in enumerate(lines):
        if i < routine_before:
            kind = _routine_kind(line)
            if kind is not None:
                if kinds_kept.get(kind, 0) >= 2 and last_of.get(kind) != i:
                    continue
                kinds_kept[kind] = kinds_kept.get(kind, 0) + 1
        bar = _bar(line)
        if bar is not None and run is not None and bar[:2] == run[:2] and bar[2] >= run[2]:
            if run_len >= 2:
                out[-1] = line  # a redraw: the newer state replaces the older
            else:
                out.append(line)
            run_len += 1
        else:
            out.append(line)
            run_len = 1
        run = bar
    return out


def _last_routine(lines: list[str], before: int) -> dict[str, int]:
    """Where the last routine line of each kind is among ``lines[:before]`` (a walk back that
    stops once every kind is found)."""
    last: dict[str, int] = {}
    for i in range(before - 1, -1, -1):
        kind = _routine_kind(lines[i])
        if kind is not None and kind not in last:
            last[kind] = i
            if len(last) == 4:
                break
    return last


def _bar(line: str) -> tuple[str, str, int] | None:
    """A bar line's description (up to its first digit), total and count; None for others."""
    at = line.find("%|")
    if at < 1 or not line[at - 1].isdigit():
        return None
    m = _BAR_END.fullmatch(line, at + 1)
    if m is None:
        return None
    first_digit = _DIGIT.search(line, 0, at)  # found: the percentage's, if none before
    return line[:first_digit.start() if first_digit else at].rstrip(), m[2], int(m[1])
