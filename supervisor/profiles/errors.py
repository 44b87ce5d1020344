"""Profile errors: every problem names the file, the key and the line (DESIGN §3)."""

from __future__ import annotations

from typing import Any


class ProfileError(Exception):
    """A problem with one profile file, or an unknown profile name (``file`` is None then).

    ``str(e)`` is ``FILE:LINE: KEY: MESSAGE`` with the parts that are None left out, the shape
    editors and compilers use, so a terminal can jump to the spot.
    """

    def __init__(
        self,
        message: str,
        *,
        file: str | None = None,
        key: str | None = None,
        line: int | None = None,
    ) -> None:
        super().__init__(message)
        self.message = message
        self.file = file
        self.key = key
        self.line = line

    def __str__(self) -> str:
        where = ""
        if self.file is not None:
            where = self.file + (f":{self.line}" if self.line is not None else "") + ": "
        key = f"{self.key}: " if self.key else ""
        return f"{where}{key}{self.message}"

    def __repr__(self) -> str:
        return f"ProfileError({str(self)!r})"

    def __reduce__(self) -> Any:
        # Keyword-only fields would be lost by Exception's default pickling (args only).
        return (_rebuild, (type(self), self.message, self.file, self.key, self.line))

    def to_dict(self) -> dict[str, Any]:
        return {
            "file": self.file,
            "key": self.key,
            "line": self.line,
            "message": self.message,
            "text": str(self),
        }


class UnknownProfileError(ProfileError, KeyError):
    """``resolve`` of a name that no file defines; also a KeyError for dict-like callers."""

    def __str__(self) -> str:  # KeyError.__str__ would repr() the message
        return ProfileError.__str__(self)


def _rebuild(cls: type[ProfileError], message: str, file: str | None, key: str | None,
             line: int | None) -> ProfileError:
    return cls(message, file=file, key=key, line=line)
