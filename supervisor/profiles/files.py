"""Reading profile files safely: regular files only, size-capped, never blocking.

The daemon (often root) reads paths a read-only peer names in ``validate``. A symlink to a
FIFO would block a worker thread forever on open or read, and one to ``/dev/zero`` would grow
memory without end; so the final target must be a regular file, checked both before the open
(stat after resolving symlinks) and on the opened descriptor (fstat), opened non-blocking,
and read in one bounded read. A folder is listed with a cap on entries and files read, so one
request costs at most ``MAX_FILES`` x ``MAX_FILE_BYTES`` (and ``MAX_TOTAL_BYTES`` in all).
"""

from __future__ import annotations

import os
import stat
from dataclasses import dataclass, field
from pathlib import Path

from supervisor.profiles.errors import ProfileError

# Parsed TOML takes ~40x its text in memory and ~0.5 s per MiB: 4 MiB per load keeps one
# validate under ~200 MB and a few seconds of one thread, and fits 2048 profiles of 2 KiB.
MAX_FILE_BYTES = 1 << 20           # a profile is a few KiB; 1 MiB is generous
MAX_TOTAL_BYTES = 4 << 20          # one folder load or one validate, all files together
MAX_FILES = 2048                   # *.toml files read from one folder in one load
MAX_DIR_ENTRIES = 65536            # entries of any kind looked at while listing a folder

_KINDS = {stat.S_IFDIR: "a directory", stat.S_IFCHR: "a character device",
          stat.S_IFBLK: "a block device", stat.S_IFIFO: "a FIFO (named pipe)",
          stat.S_IFSOCK: "a socket", stat.S_IFLNK: "a symbolic link"}


def kind_of(mode: int) -> str:
    return _KINDS.get(stat.S_IFMT(mode), "not a regular file")


def _refuse_irregular(mode: int, source: str) -> None:
    if not stat.S_ISREG(mode):
        raise ProfileError(f"not a regular file ({kind_of(mode)}); profiles must be plain "
                           f"files", file=source)


def _too_big(size: int, source: str) -> ProfileError:
    return ProfileError(f"too large ({size:,} bytes; a profile may have at most "
                        f"{MAX_FILE_BYTES:,})", file=source)


def read_profile_bytes(path: str | Path, *, limit: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of one profile file; raises ProfileError (never blocks, never reads more
    than ``limit`` + 1 bytes)."""
    source = str(path)
    try:
        real = os.path.realpath(path)
        _refuse_irregular(os.stat(real).st_mode, source)
        # O_NOFOLLOW: the resolved path was swapped for a symlink since the stat -> ELOOP.
        # O_NONBLOCK: if it was swapped for a FIFO, open does not wait for a writer.
        fd = os.open(real, os.O_RDONLY | os.O_NONBLOCK | os.O_NOFOLLOW | os.O_NOCTTY
                     | os.O_CLOEXEC)
    except ProfileError:
        raise
    except OSError as exc:
        raise ProfileError(f"cannot read: {exc.strerror or exc}", file=source) from None
    try:
        info = os.fstat(fd)
        _refuse_irregular(info.st_mode, source)
        if info.st_size > limit:
            raise _too_big(info.st_size, source)
        data = _read_at_most(fd, limit + 1)
    except OSError as exc:
        raise ProfileError(f"cannot read: {exc.strerror or exc}", file=source) from None
    finally:
        os.close(fd)
    if len(data) > limit:  # it grew since the fstat
        raise _too_big(len(data), source)
    return data


def _read_at_most(fd: int, n: int) -> bytes:
    chunks: list[bytes] = []
    left = n
    while left > 0:
        chunk = os.read(fd, left)
        if not chunk:
            break
        chunks.append(chunk)
        left -= len(chunk)
    return b"".join(chunks)


@dataclass
class Listing:
    """The ``*.toml`` files of a folder to read (sorted), and why any were left out."""

    files: list[Path] = field(default_factory=list)
    errors: list[ProfileError] = field(default_factory=list)


def list_profiles(directory: str | Path) -> Listing:
    """``*.toml`` entries directly in ``directory``; past the caps, none and one error (a
    partial set would silently drop profiles depending on the order of the folder)."""
    path = Path(directory)
    out = Listing()
    names: list[str] = []
    try:
        with os.scandir(path) as entries:
            for seen, entry in enumerate(entries, start=1):
                if seen > MAX_DIR_ENTRIES:
                    out.errors.append(ProfileError(
                        f"more than {MAX_DIR_ENTRIES:,} entries; keep only profiles in the "
                        f"profiles folder", file=str(path)))
                    return out
                if entry.name.endswith(".toml"):
                    names.append(entry.name)
    except OSError as exc:
        out.errors.append(ProfileError(f"cannot list: {exc.strerror or exc}", file=str(path)))
        return out
    if len(names) > MAX_FILES:
        out.errors.append(ProfileError(
            f"{len(names):,} profile files; at most {MAX_FILES:,} are read in one load "
            f"(split the folder or validate one file at a time)", file=str(path)))
        return out
    out.files = [path / n for n in sorted(names)]
    return out


class ReadBudget:
    """The bytes a whole load may read; a file past it is an error (read at most
    ``MAX_FILE_BYTES`` over the budget, then refused)."""

    def __init__(self, total: int = MAX_TOTAL_BYTES) -> None:
        self.left = total
        self.total = total

    def read(self, path: str | Path) -> bytes:
        if self.left <= 0:
            raise ProfileError(f"not read: the files of this load exceed {self.total:,} bytes "
                               f"in all", file=str(path))
        data = read_profile_bytes(path)
        self.left -= len(data)
        if self.left < 0:
            raise ProfileError(f"not read: the files of this load exceed {self.total:,} bytes "
                               f"in all", file=str(path))
        return data
