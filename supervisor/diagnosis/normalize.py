"""Turning raw captured lines into the engine's own messages, for the offline classifier.

Raw lines keep their wrappers (evidence shows them as captured); the classifier looks at the
*message*: the line with docker-compose / ``docker logs -t`` / log-shipper / journald / Ray /
vLLM-process prefixes, vLLM's ``LEVEL MM-DD HH:MM:SS [file.py:N]`` header, SGLang's
``[date time TPn]`` header and ANSI colours removed, so that a Python exception line is again at
column 0 and a traceback frame again starts with ``  File "...``.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Iterator

_C = re.compile

_ANSI = _C(r"\x1b\[[0-9;?]*[A-Za-z]")
_RAY_REPEAT = _C(r"\s*\[repeated \d+x across cluster\]\s*$")
_WRAPPER_PATTERNS: tuple[str, ...] = (
    # docker-compose: `sglang-1  | ` (the service name, padding, a bar, one space)
    r"[A-Za-z0-9][\w.\-]{0,80}+\s++\| ?",
    # docker logs -t / CRI (`2025-03-08T12:29:21.123456789Z stdout F `) / shipper ISO stamps
    r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d++)?(?:Z|[+-]\d\d:?\d\d)?"
    r"(?: (?:stdout|stderr) [FP])?(?: \||:)? ?",
    # journald / syslog: `Mar 08 12:29:21 host sglang[123]: `
    r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.\-]++ [\w.\-/@]++(?:\[\d+\])?: ",
    # Ray and vLLM process prefixes: `(SGLangEngine pid=123)`, `(EngineCore_DP0 pid=9)`,
    # `(VllmWorker rank=0 pid=7)`, `(raylet, ip=10.0.0.1)`
    r"\((?:[\w.:\-]++)(?: rank=\d+)?(?: pid=\d+)?(?:, ip=[\d.]+)?\) ?",
    # vLLM logger header: `INFO 06-22 02:54:36 [backends.py:193] ` / older `... file.py:260] `
    r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? "
    r"\[?[\w./\-]++:\d+\] ?",
    # SGLang: `[2025-03-08 12:29:21 DP0 TP0] `, `[12-11 17:47:40] ` (multimodal), `[... .123]`
    r"\[(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?(?: [A-Z_]+\d+)*\] ?",
)
_WRAPPER = _C("^(?:" + "|".join(f"(?:{p})" for p in _WRAPPER_PATTERNS) + ")")
# tqdm glues the next line after a bar fragment when the bar ends without a newline
_GLUED = _C(r"(?:(?<=it/s\])|(?<=s/it\]))(?=\S)")


def split_lines(items: Iterable[str]) -> Iterator[str]:
    """Each element may still hold several lines (``\\r`` bar updates): split on \\r and \\n."""
    for item in items:
        if "\r" in item or "\n" in item:
            yield from re.split(r"\r\n|\r|\n", item.rstrip("\r\n"))
        else:
            yield item


def unglue(line: str) -> list[str]:
    """``...| 0/13 [00:00<?, ?it/s][2025-03-08 12:29:21 TP1] Capture ...`` -> two lines."""
    if "it/s]" not in line and "s/it]" not in line:
        return [line]
    parts = _GLUED.split(line)
    return parts if len(parts) > 1 else [line]


def strip_wrappers(line: str) -> str:
    """The message inside wrappers. Leading indentation of the message is kept."""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if "repeated" in line:
        line = _RAY_REPEAT.sub("", line)
    for _ in range(8):
        m = _WRAPPER.match(line)
        if m is None or m.end() == 0:
            break
        line = line[m.end():]
    return line
