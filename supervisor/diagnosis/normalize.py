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
_WRAPPERS: tuple[re.Pattern[str], ...] = (
    # docker-compose: `sglang-1  | ` (the service name, padding, a bar, one space)
    _C(r"^[A-Za-z0-9][\w.\-]*\s+\| ?"),
    # docker logs -t / CRI (`2025-03-08T12:29:21.123456789Z stdout F `) / shipper ISO stamps
    _C(r"^\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?"
       r"(?: (?:stdout|stderr) [FP])?(?: \||:)? ?"),
    # journald / syslog: `Mar 08 12:29:21 host sglang[123]: `
    _C(r"^[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.\-]+ [\w.\-/@]+(?:\[\d+\])?: "),
    # Ray and vLLM process prefixes: `(SGLangEngine pid=123)`, `(EngineCore_DP0 pid=9)`,
    # `(VllmWorker rank=0 pid=7)`, `(raylet, ip=10.0.0.1)`
    _C(r"^\((?:[\w.:\-]+)(?: rank=\d+)?(?: pid=\d+)?(?:, ip=[\d.]+)?\) ?"),
    # vLLM logger header: `INFO 06-22 02:54:36 [backends.py:193] ` / older `... file.py:260] `
    _C(r"^(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? "
       r"\[?[\w./\-]+:\d+\] ?"),
    # SGLang: `[2025-03-08 12:29:21 DP0 TP0] `, `[12-11 17:47:40] ` (multimodal), `[... .123]`
    _C(r"^\[(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?(?: [A-Z_]+\d+)*\] ?"),
)
# tqdm glues the next line after a bar fragment when the bar ends without a newline
_GLUED = _C(r"(?<=\?it/s\]|[\d.]it/s\]|[\d.]s/it\]|\d\d:\d\d\])(?=\S)")


def split_lines(items: Iterable[str]) -> Iterator[str]:
    """Each element may still hold several lines (``\\r`` bar updates): split on \\r and \\n."""
    for item in items:
        if "\r" in item or "\n" in item:
            for part in re.split(r"\r\n|\r|\n", item):
                yield part
        else:
            yield item


def unglue(line: str) -> list[str]:
    """``...| 0/13 [00:00<?, ?it/s][2025-03-08 12:29:21 TP1] Capture ...`` -> two lines."""
    if "]" not in line or "/" not in line:
        return [line]
    parts = _GLUED.split(line)
    return parts if len(parts) > 1 else [line]


def strip_wrappers(line: str) -> str:
    """The message inside wrappers. Leading indentation of the message is kept."""
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if "repeated" in line:
        line = _RAY_REPEAT.sub("", line)
    for _ in range(6):
        before = line
        for rx in _WRAPPERS:
            m = rx.match(line)
            if m and m.end() > 0:
                line = line[m.end():]
        if line == before:
            break
    return line
