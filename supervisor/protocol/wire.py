"""Wire format of the control socket: JSON lines, see docs/protocol.md.

This module is the one place both sides (daemon, ``supervisor-ctl``, the TUI) share.
"""

from __future__ import annotations

import json
from dataclasses import dataclass
from typing import Any

try:  # 20x faster than json on the log events' big strings (bench/run.py, pipeline)
    import orjson
except ImportError:  # pragma: no cover - a platform without a wheel: the stdlib does it all
    orjson = None  # type: ignore[assignment]

PROTOCOL_VERSION = 1
HELLO_NAME = "gpu-node-supervisor"
MAX_MESSAGE_BYTES = 1 << 20

# Stable error codes (clients branch on these, humans read the message).
BAD_JSON = "bad_json"
BAD_REQUEST = "bad_request"
UNKNOWN_COMMAND = "unknown_command"
TOO_LARGE = "too_large"
NOT_PERMITTED = "not_permitted"
NOT_FOUND = "not_found"
INVALID_PROFILE = "invalid_profile"
BUSY = "busy"
CONFLICT = "conflict"
TIMEOUT = "timeout"
INTERNAL = "internal"


class ProtocolError(Exception):
    """An error with a stable code, sent to the client as ``{"ok": false, "error": ...}``."""

    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message

    def to_dict(self) -> dict[str, str]:
        return {"code": self.code, "message": self.message}


def encode(obj: Any) -> bytes:
    """One message as a line of compact JSON (UTF-8; text is not \\u-escaped)."""
    if orjson is not None:
        try:
            return orjson.dumps(obj, default=_orjson_default, option=_ORJSON_OPTIONS)
        except TypeError:  # an int over 64 bits, a lone surrogate: the stdlib takes them
            pass
    # ASCII escapes: text that is not valid UTF-8 (lone surrogates from a process's argv,
    # say) still encodes.
    return json.dumps(obj, separators=(",", ":"), default=_json_default).encode() + b"\n"


if orjson is not None:
    # Our objects serialise through to_dict (as with json), not field by field; dict keys
    # may be ints (GPU indices), as json allows.
    _ORJSON_OPTIONS = (orjson.OPT_APPEND_NEWLINE | orjson.OPT_PASSTHROUGH_DATACLASS
                       | orjson.OPT_NON_STR_KEYS | orjson.OPT_PASSTHROUGH_DATETIME)


def output_text(raw: bytes) -> Any:
    """A process's output (bytes, UTF-8 or not) as the ``text`` of an event, for ``encode``.

    The same as ``raw.decode("utf-8", "replace")`` on the wire, built more cheaply. ASCII
    decodes in no time. Other text (tqdm's █ bars, CJK prompts) would cost a decode into a
    2-byte-per-character str and CPython's encode of it back into UTF-8, most of a follower's
    cost (bench/run.py, pipeline). Valid UTF-8 is escaped as bytes instead, and goes into the
    message as an ``orjson.Fragment`` (held by an :class:`EscapedText`), after a decode that
    only validates it. That takes several passes over the text, each one cheap while the
    text is in the CPU's cache: so a big read is done in pieces of ``PIECE`` bytes."""
    if raw.isascii():
        return raw.decode("ascii")
    if orjson is None:
        return raw.decode("utf-8", "replace")
    out = [b'"']
    start, end = 0, len(raw)
    while start < end:
        cut = raw.find(b"\n", start + PIECE)  # a newline is never inside a UTF-8 sequence
        cut = end if cut < 0 else cut + 1
        piece = _escaped(raw[start:cut])
        if piece is None:
            return raw.decode("utf-8", "replace")
        out.append(piece)
        start = cut
    out.append(b'"')
    return EscapedText(raw, orjson.Fragment(b"".join(out)))


PIECE = 64 * 1024


class EscapedText:
    """Text already escaped as a JSON string: orjson copies ``fragment`` in as it is; the
    stdlib fallback of ``encode`` (which cannot read a Fragment back) decodes ``raw``."""

    __slots__ = ("raw", "fragment")

    def __init__(self, raw: bytes, fragment: Any) -> None:
        self.raw = raw
        self.fragment = fragment


def _escaped(piece: bytes) -> bytes | None:
    """``piece`` escaped for a JSON string, or None if it is not valid UTF-8 or holds a rare
    control character (the caller then takes the str path)."""
    try:
        piece.decode("utf-8")  # validation: JSON on the wire must be valid UTF-8
    except UnicodeDecodeError:
        return None
    if any(c in piece for c in _RARE_CONTROLS):  # one memchr each: cheaper than a regex
        return None
    for plain, escaped in _ESCAPES:
        piece = piece.replace(plain, escaped)
    return piece


# What JSON makes us escape in a string: the backslash first, then the quote and the control
# characters that logs contain (line ends, tabs, ANSI colours). The rest of U+0000..U+001F is
# rare in output; text with any of them takes the str path.
_ESCAPES = ((b"\\", b"\\\\"), (b'"', b'\\"'), (b"\n", b"\\n"), (b"\t", b"\\t"),
            (b"\x1b", b"\\u001b"))
_RARE_CONTROLS = tuple(bytes([c]) for c in range(0x20) if c not in b"\n\t\x1b")


def _orjson_default(obj: Any) -> Any:
    if isinstance(obj, EscapedText):
        return obj.fragment
    return _json_default(obj)


def _json_default(obj: Any) -> Any:
    if isinstance(obj, EscapedText):
        return obj.raw.decode("utf-8", "replace")
    if hasattr(obj, "to_dict"):
        return obj.to_dict()
    if isinstance(obj, (set, frozenset, tuple)):
        return list(obj)
    return str(obj)


def reply_ok(req_id: Any, result: Any) -> dict[str, Any]:
    return {"id": req_id, "ok": True, "result": result}


def reply_error(req_id: Any, code: str, message: str) -> dict[str, Any]:
    return {"id": req_id, "ok": False, "error": {"code": code, "message": message}}


@dataclass(frozen=True)
class Request:
    id: Any
    cmd: str
    args: dict[str, Any]


def parse_request(line: bytes) -> Request:
    """Decode one request line, raising ProtocolError with the right code."""
    try:
        obj = json.loads(line)
    except (UnicodeDecodeError, ValueError) as exc:
        raise ProtocolError(BAD_JSON, f"not valid JSON: {exc}") from None
    except RecursionError:  # "[[[[..." nested 200k deep
        raise ProtocolError(BAD_JSON, "not valid JSON: nested too deeply") from None
    if not isinstance(obj, dict):
        raise ProtocolError(BAD_REQUEST, "a request must be a JSON object")
    req_id = obj.get("id")
    if req_id is not None and not isinstance(req_id, (str, int, float, bool)):
        raise ProtocolError(BAD_REQUEST, "'id' must be a string or a number")
    cmd = obj.get("cmd")
    if not isinstance(cmd, str) or not cmd:
        raise ProtocolError(BAD_REQUEST, "'cmd' must be a non-empty string")
    args = obj.get("args", {})
    if args is None:
        args = {}
    if not isinstance(args, dict):
        raise ProtocolError(BAD_REQUEST, "'args' must be an object")
    return Request(req_id, cmd, args)


class LineSplitter:
    """Splits a byte stream into lines, refusing lines over ``limit`` bytes.

    ``feed`` returns complete lines; an oversize line is reported once as ``None`` and its
    remainder is skipped up to the next newline, so one bad message never ends the session.
    """

    def __init__(self, limit: int = MAX_MESSAGE_BYTES) -> None:
        self.limit = limit
        self._buf = bytearray()
        self._skipping = False

    def feed(self, data: bytes) -> list[bytes | None]:
        out: list[bytes | None] = []
        start = 0
        while True:
            nl = data.find(b"\n", start)
            if nl < 0:
                break
            self._take(data[start:nl], out, complete=True)
            start = nl + 1
        self._take(data[start:], out, complete=False)
        return out

    def _take(self, piece: bytes, out: list[bytes | None], *, complete: bool) -> None:
        if self._skipping:
            if complete:
                self._skipping = False
            return
        if len(self._buf) + len(piece) > self.limit:
            self._buf.clear()
            out.append(None)
            self._skipping = not complete
            return
        self._buf += piece
        if complete:
            line = bytes(self._buf)
            self._buf.clear()
            if line.strip():
                out.append(line)


def log_event_lines(data: Any) -> list[str]:
    """The lines of a ``log`` event's data: ``text`` (one read of output, ``\\n``-separated),
    or ``lines`` (older daemons); empty lines and nulls are left out."""
    if not isinstance(data, dict):
        return []
    text = data.get("text")
    if isinstance(text, str):
        return [line for line in text.split("\n") if line]
    lines = data.get("lines")
    if not isinstance(lines, list):
        return []
    return [x if isinstance(x, str) else str(x) for x in lines if x is not None and x != ""]
