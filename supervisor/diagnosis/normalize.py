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
# The forms on most wrapped lines (4 in 5): Ray's and vLLM's process prefixes, vLLM's and SGLang's
# headers. Tried first, which saves a fifth of the stripping; no other form can match where one
# of them does (each starts with its own character, or with a level word that no other form
# follows with `NN-NN`), so the order changes no result.
_FREQUENT_WRAPPER_FORMS: tuple[str, ...] = (
    # Ray and vLLM process prefixes: `(SGLangEngine pid=123)`, `(EngineCore_DP0 pid=9)`,
    # `(VllmWorker rank=0 pid=7)`, 0.10's `(VllmWorker TP0 pid=7)`, `(raylet, ip=10.0.0.1)`
    # (and a Ray job's or named actor's, `(vllm-test, pid=2150) `)
    r"\((?:[\w.:\-]++)(?: (?:rank=|[A-Z]{2})\d+(?:_[A-Z]{2}\d+)*+)?(?:,? pid=\d+)?"
    r"(?:, ip=[\d.]+)?\) ?",
    # Ray Data actors: `(MapWorker(MapBatches(vLLMEngineStageUDF)) pid=162837) `
    r"\([\w.:\-()]{1,120}? pid=\d+(?:, ip=[\d.]+)?\) ?",
    # vLLM logger header: `INFO 06-22 02:54:36 [backends.py:193] ` / older `... file.py:260] `
    # (and `[async_llm.py:485[] `, the closing bracket as some pastes render it)
    r"(?:DEBUG|INFO|WARNING|WARN|ERROR|CRITICAL) \d\d-\d\d \d\d:\d\d:\d\d(?:\.\d+)? "
    r"\[?[\w./\-]++:\d+\[?\] ?",
    # SGLang: `[2025-03-08 12:29:21 DP0 TP0] `, `[12-11 17:47:40] ` (multimodal), `[... .123]`
    r"\[(?:\d{4}-)?\d\d-\d\d \d\d:\d\d:\d\d(?:[.,]\d+)?(?: [A-Z_]+\d+)*\] ?",
)
_WRAPPER_PATTERNS: tuple[str, ...] = (
    # docker-compose: `sglang-1  | ` (the service name, padding, a bar, one space)
    r"[A-Za-z0-9][\w.\-]{0,80}+\s++\| ?",
    # docker logs -t / CRI (`2025-03-08T12:29:21.123456789Z stdout F `) / shipper ISO stamps
    r"\d{4}-\d\d-\d\d[T ]\d\d:\d\d:\d\d(?:[.,]\d++)?(?:Z|[+-]\d\d:?\d\d)?"
    r"(?: (?:stdout|stderr) [FP])?(?: \||:)? ?",
    # CI pages and job runners: `[2025-11-06T02:10:00.702Z] `, `  | [...] ` (Buildkite), and an
    # RL launcher's `[2025-12-18T16:24:02+08:00] <pod> >> `
    r"\s{0,4}\| (?=\[)",
    r"\[\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:[.,]\d+)?(?:Z|[+-]\d\d:?\d\d)?\](?: \S+ >>)? ?",
    # Google Cloud Logging's export of a container's lines: severity, then an RFC 3339 stamp
    # with nanoseconds (`ERROR 2026-06-15T14:10:59.392125190Z `), on every line of a paste, and
    # in the Logs Explorer's copy the resource label it was filtered on (`[resource.labels.
    # containerName: vllm] `) or the entry's severity again (`[severity: ERROR] `)
    r"(?:DEFAULT|DEBUG|INFO|NOTICE|WARNING|ERROR|CRITICAL|ALERT|EMERGENCY) "
    r"\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z "
    r"(?:\[(?:resource\.[\w.]+|severity): [^\]]*\] )?",
    # Python logging of a wrapper process: `... - __main__ - INFO - `, `[Info] `
    r"- [\w.]+ - (?:DEBUG|INFO|WARNING|ERROR|CRITICAL) - ",
    r"\[(?:Info|Debug|Warn|Warning|Error|Trace)\] ",
    # Python logging with `%(levelname)s %(process)d [%(filename)s:%(lineno)d] ` after a date
    # stamp (the stamp is the ISO wrapper above): `ERROR 228 [http_server.py:734] `
    r"(?:DEBUG|INFO|WARNING|ERROR|CRITICAL) \d+ \[[\w.\-]+\.py:\d+\] ?",
    # mpirun --tag-output: `Thu Jan 23 11:55:50 2025[1,1]<stderr>:`
    r"(?:[A-Z][a-z]{2} [A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d \d{4})?\[\d+,\d+\]<std(?:out|err)>:",
    # torch's C++ logging: `[rank0]:`, `[W514 11:29:56.613774080 ProcessGroupNCCL.cpp:1496] `
    r"\[rank\d+\]: ?",
    r"\[[IWEF]\d{3,4} \d\d:\d\d:\d\d\.\d+ [\w.]+:\d+\] ?",
    # ANSI colour codes whose ESC byte a paste lost (`[1;36m(EngineCore_DP0 pid=9)[0;0m `):
    # web log viewers and copies from a terminal (and the caret text of one, `^[[0;36m`, once
    # strip_wrappers has dropped its `^[`)
    r"\[\d+(?:;\d+)*m ?",
    # a log viewer's box around each line (k9s, lens)
    r"│ ?",
    # journald / syslog: `Mar 08 12:29:21 host sglang[123]: `
    r"[A-Z][a-z]{2} [ \d]\d \d\d:\d\d:\d\d [\w.\-]++ [\w.\-/@]++(?:\[\d+\])?: ",
)
# Wrapper forms seen in one or two sources each, tried after every common form (no common
# form matches their text): a wrapper the common forms strip no longer tries them first, only
# the message's start does, where each fails within its first characters (possessive runs, the
# pod form behind a lookahead that scans its two names once). Among the common forms they cost
# every line 0.04 us (10 % of the stripping); here 0.02 us.
_RARE_WRAPPER_FORMS: tuple[str, ...] = (
    # journald under a CJK locale, the month as a number: `6月 10 16:45:05 host bash[107468]: `
    r"\d{1,2}月 [ \d]?\d \d\d:\d\d:\d\d [\w.\-]++ [\w.\-/@]++(?:\[\d+\])?: ",
    # a deployment's log viewer tagging each line with its service (Akash providers' lease
    # logs: `[vllm]: [rank0]:     raise RuntimeError(...)`): a lowercase name, a colon, a space
    r"\[[a-z][\w.\-]{0,62}+\]: ",
    # a Rust `tracing` subscriber re-emitting a child's lines (dynamo-run's
    # `    2025-06-06T19:02:34.252Z DEBUG dynamo_run::subprocess: `): indent, stamp, level and a
    # module path with `::`
    r" {0,8}+\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(?:\.\d+)?Z +(?:TRACE|DEBUG|INFO|WARN|ERROR) "
    r"\w+(?:::\w+)+: ",
    # a log viewer's bare stamp, month-day and milliseconds, before each line as captured
    # (`04-20 13:32:25.784  File "..."`: a traceback's indentation kept after it)
    r"\d\d-\d\d \d\d:\d\d:\d\d\.\d{3}(?!\d) ?",
    # a job launcher's per-process tag after its own stamp, `[/bin/sh@<0,0>]: ` (the command,
    # then <node,rank>), around an SGLang server's lines; or the command alone, `[/bin/sh]: `
    # (Alibaba PAI's launcher around vLLM's lines)
    r"\[(?:[\w./\-]{1,120}+@<\d+,\d+>|/[\w./\-]{1,120}+)\]: ?",
    # a process prefix in brackets, `[EngineCore_DP0][pid=1242] ` (that launcher's vLLM build
    # in place of `(EngineCore_DP0 pid=1242) `)
    r"\[[A-Za-z][\w.\-]{0,60}+\]\[pid=\d+\] ?",
    # a multi-pod log viewer (stern, kubetail): `<pod> <container> ` before each line; a pod of
    # a Deployment ends in its ReplicaSet hash and a 5-character suffix. Only where a process
    # prefix follows (`(APIServer pid=1) `), as in llm-d's and vLLM's multi-process logs.
    r"(?=[a-z0-9.\-]{7,207}+ [a-z0-9\-]{1,63}+ \([\w.:\-]+ pid=)"
    r"[a-z0-9][a-z0-9.\-]{0,200}-[a-z0-9]{5} [a-z0-9][a-z0-9\-]{0,62} ",
    # vLLM-Omni's stage tag before each line of a stage's engine (`[Stage-0] ERROR 01-06 ...`)
    r"\[Stage-\d+\] ",
    # a launcher's tag of two or more upper-case words before each line it relays (`[VLLM LOG]
    # (Worker_TP3 pid=51793) ERROR ...`, `[RAW SERVER] `), and SGLang's rank tags without their
    # stamp (`[DP0 TP0 EP0] `); not a single level word (`[ERROR] Failed to activate ...`)
    r"\[[A-Z][A-Z0-9_]*+(?: [A-Z0-9_]++)++\] ",
    # SLURM's `srun --label` (-l): the task number and a colon before each line of every task
    # (`0: [2025-03-05 03:55:55 TP0] Scheduler hit an exception: ...`, `3:   File "..."`), the
    # usual way multi-node runs are started under SLURM. Before text or a frame (a Rust
    # backtrace's `  0: rust_begin_unwind` is indented: no wrapper starts with a space there)
    r"\d{1,4}: (?=\S| {2,}File \")",
    # a launch script relaying a container's last lines behind its own tag and a bar, as
    # docker compose does behind the service name (`[switch]   | (APIServer pid=1)   File ...`)
    r"\[[a-z][\w.\-]{0,30}+\] {1,8}+\| ",
)
# Up to 8 wrappers in a row, in one match: each repetition takes the first form that matches
# where the previous one ended, as matching the remainder again would (no form looks behind),
# without a call and a copy of the line per wrapper.
_WRAPPERS = _C("(?:" + "|".join(f"(?:{p})" for p in (*_FREQUENT_WRAPPER_FORMS, *_WRAPPER_PATTERNS,
                                                       *_RARE_WRAPPER_FORMS))
               + "){0,8}")
# journald under a locale whose month names are not ASCII (`авг 18 14:15:04 llm python3[28059]: `,
# `Mär`, `févr.`): asked only of a line that is not all ASCII (a flag of the string), as one more
# branch of _WRAPPERS would cost every line
_LOCALE_JOURNALD = _C(r"[^\W\d_]{3,5}+\.? [ \d]\d \d\d:\d\d:\d\d [\w.\-]++ "
                      r"[\w.\-/@]++(?:\[\d+\])?: ")
# tqdm glues the next line after a bar fragment when the bar ends without a newline
_GLUED = _C(r"(?:(?<=it/s\])|(?<=s/it\]))(?=\S)")


def split_lines(items: Iterable[str]) -> Iterator[str]:
    """Each element may still hold several lines (``\\r`` bar updates): split on \\r and \\n."""
    for item in items:
        if "\r" in item or "\n" in item:
            yield from re.split(r"\r\n|\r|\n", item.rstrip("\r\n"))
        else:
            yield item


# A paste that lost its newlines runs log records together: split before each embedded vLLM
# record header and NCCL's `host:pid:tid [dev] NCCL INFO` (only in long lines: cheap to skip).
_EMBEDDED = _C(r" (?=(?:DEBUG|INFO|WARNING|ERROR) \d\d-\d\d \d\d:\d\d:\d\d \[?[\w./\-]+\.py:\d+\])"
               r"| (?=[\w.\-]+:\d+:\d+ \[\d+\] NCCL INFO)"
               # a vLLM process's prefix glued to the record before it with no space
               # (`...uint8)(VllmWorker rank=0 pid=234357) ERROR 09-26 01:47:48 [...]`)
               r"|(?<=[^\s(])(?=\([\w.:\-]+ (?:rank=\d+ )?pid=\d+\) (?:DEBUG|INFO|WARNING|ERROR) "
               r"\d\d-\d\d )")
_EMBEDDED_MIN = 300
UNGLUE_MIN = _EMBEDDED_MIN  # a line no longer than this, with no tqdm rate in it, is one line
# A Ray actor's traceback flattened into one long line (a paste that lost its newlines, every
# line still behind its `(SGLangWorker pid=38138) ` prefix): split before each prefix, so that
# frames and the exception line are lines again.
_RAY_EMBEDDED = _C(r" (?=\([\w.:\-]+ pid=\d+(?:, ip=[\d.]+)?\) )")
# A bare Python traceback flattened the same way (a log viewer's copy, a web form: `Traceback
# (most recent call last): File "a.py", line 3, in f x = g() File "b.py", ...`): split before
# each frame, so that the frames (what the process was doing: its phase) are lines again. Each
# frame keeps its source text after it; the exception stays with the last one.
_FLAT_FRAME = _C(r" +(?=File \"[^\"]+\", line \d+, in \S)")
_FLAT_FRAME_MARK = '", line '


def unglue(line: str) -> list[str]:
    """``...| 0/13 [00:00<?, ?it/s][2025-03-08 12:29:21 TP1] Capture ...`` -> two lines; a long
    line of several log records pasted without newlines -> one line each."""
    if len(line) > _EMBEDDED_MIN and line.count("] ") > 1 and (
            "ERROR " in line or "INFO " in line or "WARNING " in line):
        parts = [p for p in _EMBEDDED.split(line) if p]
        while len(parts) > 1 and not strip_wrappers(parts[0]).strip():
            parts[:2] = [parts[0] + " " + parts[1]]  # a header after wrappers only: one record
        if len(parts) > 1:
            return [q for p in parts for q in unglue_bars(p)]
    if len(line) > _EMBEDDED_MIN and line.count(" pid=") > 2:
        parts = [p for p in _RAY_EMBEDDED.split(line) if p]
        if len(parts) > 2:
            return [q for p in parts for q in unglue_bars(p)]
    if len(line) > _EMBEDDED_MIN and line.count(_FLAT_FRAME_MARK) > 1:
        parts = _FLAT_FRAME.split(line)
        if len(parts) > 2:
            return [parts[0], *("  " + p for p in parts[1:])]
    return unglue_bars(line)


# Docker's json-file log driver (`/var/lib/docker/containers/<id>/<id>-json.log`, and pastes of
# it): each line is a record, `{"log":"<the line, JSON-escaped>\n","stream":"stderr","time":...}`;
# a paste that lost its newlines runs several records together, and may cut the last one.
DOCKER_JSON_START = '{"log":"'
_JSON_ESCAPE = _C(r'\\(?:u([0-9a-fA-F]{4})|(.))')
_JSON_ESCAPED = {"n": "\n", "t": "\t", "r": "\r", "b": "\b", "f": "\f"}


def docker_json_records(line: str) -> list[str]:
    """The lines a run of docker json-file records holds, escapes decoded and colour codes
    dropped (what `docker logs` would have shown); a record cut short keeps what is there."""
    out: list[str] = []
    for record in line.split(DOCKER_JSON_START)[1:]:
        end = _JSON_STRING_END.search(record)
        text = record[:end.start()] if end else _CUT_ESCAPE.sub("", record)
        text = _JSON_ESCAPE.sub(_unescape, text)
        out.extend(part for part in _ANSI.sub("", text).split("\n") if part)
    return out or [line]


_JSON_STRING_END = _C(r'(?<!\\)(?:\\\\)*"')
_CUT_ESCAPE = _C(r"(?<!\\)(?:\\\\)*\\(?:u[0-9a-fA-F]{0,3})?$")  # an escape the cut split


def _unescape(m: re.Match[str]) -> str:
    if m[1]:
        return chr(int(m[1], 16))
    return _JSON_ESCAPED.get(m[2], m[2])


def unglue_bars(line: str) -> list[str]:
    if "it/s]" not in line and "s/it]" not in line:
        return [line]
    parts = _GLUED.split(line)
    return parts if len(parts) > 1 else [line]


def strip_wrappers(line: str) -> str:
    """The message inside wrappers. Leading indentation of the message is kept."""
    if not line:
        return line  # (a tenth of the lines: pastes keep their blank lines)
    if "\x1b" in line:
        line = _ANSI.sub("", line)
    if "repeated" in line:
        line = _RAY_REPEAT.sub("", line)
    if "^" in line:
        # ESC and CR shown as caret text (`^[[0;36m`, a trailing `^M`: `cat -v`, less, some web
        # viewers): the colour codes are then read as codes that lost their ESC byte
        if "^[" in line:
            line = line.replace("^[", "")
        if line.endswith("^M"):  # (with colour codes or without)
            line = line[:-2]
    if not line.isascii():
        journald = _LOCALE_JOURNALD.match(line)
        if journald:
            line = line[journald.end():]
    if line[:1] == " ":
        # An indented line (a traceback's frames and source lines: a quarter of the lines) can
        # only be behind the two forms that start with spaces, a bar or a stamp after at most 8
        # of them: anything else is its message, without trying the other forms one by one.
        k = len(line) - len(line.lstrip())
        if k > 8 or k == len(line) or not (line[k] == "|" or line[k].isdigit()):
            return line
    end = _WRAPPERS.match(line).end()
    return line[end:] if end else line
