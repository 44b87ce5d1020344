"""The lines a verdict shows as its evidence: the few that say what went wrong, each once.

Which lines to show is the classifier's to choose (the root error first); this module keeps
what is never worth showing out of them - argument and config dumps, banners, an exception
line whose message is on the next lines, a C++ backtrace where a message says more - and
folds the copies of one message that ranks and retries print.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

from . import signatures as S

MAX_EVIDENCE = 5
EVIDENCE_CLIP = 300   # characters of one evidence line; longer ones end in "…"

# "ImportError: " with its message on the following lines: the message is the evidence.
_BARE_EXCEPTION = re.compile(r"^[\w.]*(?:Error|Exception):\s*$")
# the rank names that tell the ranks' copies of a message apart
_RANK_PREFIX = re.compile(r"\b(?:rank|Rank|TP|DP|EP|PP) ?\d+\b")
_NO_DIGITS = str.maketrans("", "", "0123456789")


def evidence_lines(raw: list[str], msgs: list[str], idx: Iterable[int]) -> tuple[str, ...]:
    """The lines at ``idx``: at most MAX_EVIDENCE distinct ones, each clipped to EVIDENCE_CLIP
    characters; the same message from several ranks or tries counts once; argument/config dumps
    and banners are never evidence (a vLLM engine-config line runs to 4,000 characters); a C++
    backtrace's frames only where nothing else is left to show."""
    out: list[str] = []
    frames: list[str] = []
    seen: set[str] = set()
    for i in dict.fromkeys(idx):  # a line listed twice (root error and best cause) adds nothing
        line, msg = raw[i], msgs[i]
        key = dedup_key(msg)
        if not key or key in seen or is_dump(msg) or _BARE_EXCEPTION.match(key):
            continue
        seen.add(key)
        clipped = line if len(line) <= EVIDENCE_CLIP else line[:EVIDENCE_CLIP - 1] + "…"
        (frames if native_backtrace(msg) else out).append(clipped)
        if len(out) >= MAX_EVIDENCE:
            break
    return tuple((out + frames)[:MAX_EVIDENCE])


def dedup_key(msg: str) -> str:
    """The message without what tells copies of one message apart: rank names, and numbers
    (timestamps, c10d's `retrying (try=2, ..., delay=1679ms)`, a port, a pid). Every word
    _RANK_PREFIX can start with holds "ank" or "P": most lines have neither, and skip it."""
    if "ank" in msg or "P" in msg:
        msg = _RANK_PREFIX.sub("", msg)
    return msg.strip().translate(_NO_DIGITS)  # (cheaper than a regex substitution)


def native_backtrace(msg: str) -> bool:
    """A line of c10's C++ backtrace: its head (`Exception raised from run at .../socket.cpp:820
    (most recent call first):`) or a frame (`frame #2: c10::DistNetworkError::DistNetworkError(
    ...) + 0x72 (... libc10.so)`). They say where the exception was thrown, its message what
    went wrong."""
    msg = msg.lstrip()
    return (msg.startswith("frame #") and S.NATIVE_FRAME_END.match(msg) is not None) or \
        (msg.startswith("Exception raised from ") and S.NATIVE_TRACE_HEAD.match(msg) is not None)


def is_dump(msg: str) -> bool:
    """An argument or config dump, or a banner: never what went wrong."""
    if (len(msg) > 160 or "non-default args" in msg or "ServerArgs(" in msg or
            "with config:" in msg) and S.ARGS_GATE.search(msg) and S.ARGS_DUMP.search(msg):
        # the flags it was launched with are context, never what went wrong (vLLM's
        # `non-default args: {...}` however short, SGLang's `server_args=ServerArgs(...` cut
        # short by a paste, vLLM's engine config cut after its first fields); a short line
        # that only names a call (`server_args = prepare_server_args(sys.argv[1:])`) is a
        # traceback's source line
        return True
    # a tqdm bar's blocks are not a banner: a log that hangs inside a bar ends on it
    return not msg.isascii() and "%|" not in msg and S.BANNER.search(msg) is not None

