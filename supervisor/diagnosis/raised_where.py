"""Errors whose cause is read from where they were raised: the statement or frame above them.

An OS error's words name no setting (`FileNotFoundError: [Errno 2] No such file or directory`
could be a missing model, a missing socket folder or a deleted working directory). What raised
it does: a socket's bind, a makedirs told a folder already there is fine, posixpath asking for
the working directory, subprocess executing a program, a statement that reads the environment
or uses a standard stream.
Each row of ``RAISED_WHERE`` is a signature (its pattern the error's own words, lowercased),
the literals the line must hold before anything else is asked (the scan's hot path sees every
exception line), and the check of the lines above; ``raised_where_hits`` is the scan's one
loop over them.
"""

from __future__ import annotations

from collections.abc import Callable

from . import signatures as S
from .scan import Scan

# How far above the error its source line may be: the frame line, the statement, Python
# 3.11's carets, and a few frames of `os` or posixpath in between
_SOURCE_REACH = 4
_FROZEN_REACH = 12


def _source_above(msgs: list[str], i: int, reach: int = 3) -> str:
    """The last line above line ``i`` (within ``reach``) that is not Python 3.11's carets."""
    above = [m for m in msgs[max(0, i - reach):i] if m.strip(" ^~")]
    return above[-1] if above else ""


def made_over_a_file(scan: Scan, msgs: list[str], i: int) -> bool:
    """The FileExistsError was raised by a makedirs told a folder already there is fine (its
    source line a few lines up, above the frame of `os`): the path is a file."""
    return any("exist_ok=True" in m for m in msgs[max(0, i - _SOURCE_REACH):i])


def bound_where_it_cannot(scan: Scan, msgs: list[str], i: int) -> bool:
    """The error was raised by a socket's bind (its source line just above it): the address
    the launch set cannot be bound."""
    return S.BIND_STATEMENT.match(_source_above(msgs, i)) is not None


def folder_not_made(scan: Scan, msgs: list[str], i: int) -> bool:
    """The error was raised by a makedirs told a folder already there is fine (its source line
    above the os module's frames), or by pathlib's ``mkdir(parents=True, exist_ok=True)``
    (above pathlib's own frames and their statements): the folder cannot be made there. Not
    where a crash handler raised it (dumping the requests of a process already dying into a
    folder it cannot make): the death came first, and is the cause."""
    j = i - 1
    while j > 0 and j > i - _FROZEN_REACH and (
            "<frozen os>" in msgs[j] or msgs[j].lstrip().startswith("[Previous line")
            or _PATHLIB_FRAME in msgs[j] or (_PATHLIB_FRAME in msgs[j - 1]
                                             and msgs[j].startswith("    "))
            or not msgs[j].strip(" ^~")):
        j -= 1
    made = "exist_ok=True" in msgs[j] and ("makedirs" in msgs[j] or ".mkdir(" in msgs[j])
    return made and not raised_by_a_crash_handler(scan, msgs, i)


_PATHLIB_FRAME = "/pathlib.py\", line"


def raised_by_a_crash_handler(scan: Scan, msgs: list[str], i: int) -> bool:
    """A frame of the traceback that line ``i`` ends is a handler of the process's death
    (SGLang's SIGQUIT handler, its dump of the requests before a crash)."""
    return any(S.CRASH_HANDLER_FRAME.search(where) for where in _frames_of(scan, msgs, i))


def _frames_of(scan: Scan, msgs: list[str], i: int) -> list[str]:
    """The frames of the traceback that line ``i`` ends (from its `Traceback (most recent call
    last)` line, at most 200 lines up), innermost first; empty where no header is that close.
    Walks the scan's frames from the end, so a long log costs only this traceback's."""
    start = next((j for j in range(i - 1, max(-1, i - 200), -1)
                  if "Traceback (most recent call last)" in msgs[j]), None)
    if start is None:
        return []
    out: list[str] = []
    for idx, where in reversed(scan.frames):
        if idx <= start:
            break
        if idx < i:
            out.append(where)
    return out


def entered_where_it_cannot(scan: Scan, msgs: list[str], i: int) -> bool:
    """The PermissionError was raised by a chdir (its source line just above it): the process
    may not enter the folder it was to work in."""
    return S.CHDIR_STATEMENT.search(_source_above(msgs, i)) is not None


def working_directory_gone(scan: Scan, msgs: list[str], i: int) -> bool:
    """The path-less FileNotFoundError came from posixpath resolving a relative path against a
    working directory that is gone (os.getcwd() in abspath)."""
    frame = next((w for idx, w in reversed(scan.frames) if idx < i), None)
    return frame is not None and S.GETCWD_FRAME.search(frame) is not None


def program_not_found(scan: Scan, msgs: list[str], i: int) -> bool:
    """The FileNotFoundError was raised by subprocess executing a program (its innermost
    frame; the call on its source line, `raise child_exception_type(...)`, is no frame): the
    program is not on this host."""
    frame = next((w for idx, w in reversed(scan.frames)
                  if idx < i and not w.startswith("<call>:")), None)
    return frame is not None and S.EXEC_FRAME.search(frame) is not None


def environment_value_refused(scan: Scan, msgs: list[str], i: int) -> bool:
    """The ValueError / TypeError was raised by the statement that reads an environment
    variable (its innermost frame's source line), or by a converter that statement called
    (the frame above's source line: huggingface_hub's `_as_int(os.environ.get(
    "HF_HUB_DOWNLOAD_TIMEOUT"))` refusing `0.5` in `int(value)`, jj107): the variable's value
    refused."""
    frames = [idx for idx, w in reversed(scan.frames)
              if idx < i and not w.startswith("<call>:")][:2]
    if not frames or i - frames[0] > _SOURCE_REACH:
        return False
    if len(frames) == 2 and frames[0] - frames[1] > _SOURCE_REACH:
        frames = frames[:1]  # (the caller's frame is the one listed just above, or none)
    ends = [i, frames[0]]
    for frame, end in zip(frames, ends):
        source = next((m for m in msgs[frame + 1:end] if m.strip(" ^~")), "")
        if S.ENVIRONMENT_READ.search(source) is not None:
            return True
    return any(S.ENVIRONMENT_PARSER_FRAME.search(w) for w in _frames_of(scan, msgs, i))


def standard_stream_gone(scan: Scan, msgs: list[str], i: int) -> bool:
    """The AttributeError on None was raised by the statement using a standard stream (its
    source line just above it): the process was started without that stream."""
    return S.STANDARD_STREAM_USE.search(_source_above(msgs, i)) is not None


def resolved_by_name(scan: Scan, msgs: list[str], i: int) -> bool:
    """The AttributeError was raised looking an object up by its dotted name (one of the two
    innermost frames): the name a flag gave is not in its module."""
    return any(S.NAME_RESOLVER_FRAME.search(where) for where in _frames_of(scan, msgs, i)[:2])


def raised_building_the_model(scan: Scan, msgs: list[str], i: int) -> bool:
    """A frame of the traceback that line ``i`` ends builds or loads the model (its module,
    the engine's model loader)."""
    return any(S.MODEL_BUILD_FRAME.search(where) for where in _frames_of(scan, msgs, i))


Check = Callable[[Scan, list[str], int], bool]
# (signature, literals one of which the line must hold, the check of where it was raised);
# where several match one line, the first wins (they read different statements, so only a
# contrived traceback could match two)
RAISED_WHERE: tuple[tuple[S.Signature, tuple[str, ...], Check], ...] = (
    (S.FOLDER_OVER_A_FILE, ("FileExistsError",), made_over_a_file),
    (S.UNBINDABLE_ADDRESS, ("Errno", "integer"), bound_where_it_cannot),
    (S.FOLDER_NOT_MADE, ("Errno",), folder_not_made),
    (S.WORKING_DIRECTORY_GONE, ("Errno 2",), working_directory_gone),
    (S.WORKING_DIRECTORY_REFUSED, ("Errno 13",), entered_where_it_cannot),
    (S.PROGRAM_MISSING, ("Errno 2",), program_not_found),
    (S.ENVIRONMENT_VALUE_REFUSED, ("Error: ",), environment_value_refused),
    (S.STANDARD_STREAM_GONE, ("NoneType",), standard_stream_gone),
    (S.DEVICE_MISSING_FOR_MODEL, ("No accelerator",), raised_building_the_model),
    (S.NAMED_OBJECT_MISSING, ("has no attribute",), resolved_by_name),
)


def raised_where_hits(scan: Scan, msgs: list[str], i: int, msg: str) -> None:
    """Add to ``scan.hits`` the first RAISED_WHERE signature the exception line ``i`` (text
    ``msg``) matches, in its words and where it was raised."""
    lowered = None
    for signature, literals, raised_there in RAISED_WHERE:
        for word in literals:  # (a loop, not any(): no generator on the scan's hot path)
            if word in msg:
                break
        else:
            continue
        if lowered is None:
            lowered = msg.lower()
        if signature.pattern.match(lowered) and raised_there(scan, msgs, i):
            scan.hits.append((signature, i))
            return
