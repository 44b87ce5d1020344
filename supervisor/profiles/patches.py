"""Source-patch changes: reading a change's unified diff and checking its shape.

A change may carry ``patch = "patches/NAME.diff"`` (relative to the profile's folder): a unified
diff against the engine's installed Python package, its paths relative to site-packages
(``sglang/srt/...``; git's ``a/`` ``b/`` prefixes are understood). Only the shape is checked
here (files, hunks, line counts); whether it applies to the installed version is decided at
launch (runtime/overlay.py, with the system ``patch`` tool), where the installation is known.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath

from supervisor.profiles.errors import ProfileError
from supervisor.profiles.files import read_profile_bytes
from supervisor.profiles.model import Patch

MAX_PATCH_BYTES = 256 * 1024   # a change's diff is a few lines; a whole-file rewrite is not one
MAX_PATCH_FILES = 64
_HUNK = re.compile(r"^@@ -(\d+)(?:,(\d+))? \+(\d+)(?:,(\d+))? @@")
DEV_NULL = "/dev/null"


@dataclass(frozen=True)
class FilePatch:
    """One file a diff touches: ``path`` relative to site-packages, after stripping."""

    path: str
    created: bool   # --- /dev/null
    deleted: bool   # +++ /dev/null
    hunks: int


@dataclass(frozen=True)
class DiffShape:
    files: tuple[FilePatch, ...]
    strip: int      # the -p level the patch tool needs (1 for a/ b/ prefixes)


class DiffError(ValueError):
    """The text is not a usable unified diff; the message says where."""


def load_patch(profile_source: str, change: str, path: str) -> tuple[Patch | None, str | None]:
    """The change's Patch, or None and what is wrong (for the error at ``changes[i].patch``)."""
    rel = PurePosixPath(path)
    if rel.is_absolute() or ".." in rel.parts or "\0" in path:
        return None, (f"must be a path inside the profile's folder, like "
                      f"'patches/{change}.diff', got {path!r}")
    full = Path(profile_source).parent / rel
    try:
        data = read_profile_bytes(full, limit=MAX_PATCH_BYTES)
    except ProfileError as exc:
        return None, f"{full}: {exc.message}"
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as exc:
        return None, f"{full}: not UTF-8 text (byte {exc.start})"
    try:
        parse_diff(text)
    except DiffError as exc:
        return None, f"{full}: {exc}"
    return Patch(change=change, path=path, text=text), None


def parse_diff(text: str) -> DiffShape:
    """The files a unified diff touches, checked: relative Python sources, hunks whose line
    counts add up. Raises DiffError naming the line."""
    lines = text.splitlines()
    headers: list[tuple[str, str, int]] = []   # (old, new, hunks)
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- ") and i + 1 < len(lines) and lines[i + 1].startswith("+++ "):
            headers.append((_name(line), _name(lines[i + 1]), 0))
            i += 2
            continue
        match = _HUNK.match(line)
        if match:
            if not headers:
                raise DiffError(f"line {i + 1}: a hunk before any '--- ' / '+++ ' file header")
            i = _skip_hunk(lines, i, match)
            old, new, hunks = headers[-1]
            headers[-1] = (old, new, hunks + 1)
            continue
        i += 1
    if not headers:
        raise DiffError("not a unified diff (no '--- ' / '+++ ' file headers)")
    if len(headers) > MAX_PATCH_FILES:
        raise DiffError(f"touches {len(headers)} files; at most {MAX_PATCH_FILES}")
    strip = 1 if all(_prefixed(old, new) for old, new, _ in headers) else 0
    return DiffShape(tuple(_file(old, new, hunks, strip) for old, new, hunks in headers), strip)


def _name(header: str) -> str:
    """The path of a '--- ' / '+++ ' line (a tab starts the optional timestamp)."""
    name = header[4:].split("\t", 1)[0].strip()
    if name.startswith('"') and name.endswith('"'):
        name = name[1:-1]
    return name


def _prefixed(old: str, new: str) -> bool:
    return ((old == DEV_NULL or old.startswith("a/")) and (new == DEV_NULL or new.startswith("b/"))
            and not old == new == DEV_NULL)


def _file(old: str, new: str, hunks: int, strip: int) -> FilePatch:
    named = new if new != DEV_NULL else old
    parts = PurePosixPath(named).parts[strip:]
    rel = "/".join(parts)
    if not hunks:
        raise DiffError(f"{named}: no hunks ('@@ -l,n +l,n @@')")
    for name in (old, new):  # the patch tool may pick either name
        if name != DEV_NULL and not _relative(PurePosixPath(name).parts[strip:]):
            raise DiffError(f"{name}: paths must be relative to site-packages, like "
                            f"'sglang/srt/layers/communicator.py' (or a/... b/...)")
    if not rel.endswith(".py") or len(parts) < 2:
        raise DiffError(f"{rel}: only Python sources inside a package can be patched "
                        f"(PACKAGE/.../NAME.py)")
    return FilePatch(rel, created=old == DEV_NULL, deleted=new == DEV_NULL, hunks=hunks)


def _relative(parts: tuple[str, ...]) -> bool:
    return bool(parts) and parts[0] != "/" and ".." not in parts


def _skip_hunk(lines: list[str], start: int, match: re.Match[str]) -> int:
    """The index after the hunk at ``start``; its body must hold the lines its header says."""
    old_left = int(match.group(2) or "1")
    new_left = int(match.group(4) or "1")
    i = start + 1
    while (old_left > 0 or new_left > 0) and i < len(lines):
        tag = lines[i][:1]
        if tag in (" ", ""):   # an empty line is a context line whose space was trimmed
            old_left, new_left = old_left - 1, new_left - 1
        elif tag == "-":
            old_left -= 1
        elif tag == "+":
            new_left -= 1
        elif tag != "\\":      # "\ No newline at end of file"
            break
        i += 1
    if old_left != 0 or new_left != 0:
        raise DiffError(f"line {start + 1}: the hunk {match.group(0)} does not hold the lines "
                        f"its header counts (is the diff cut or edited by hand?)")
    while i < len(lines) and lines[i].startswith("\\"):
        i += 1
    return i
