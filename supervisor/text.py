"""Small pieces of human output shared by the daemon's messages and supervisor-ctl's."""

from __future__ import annotations

from collections.abc import Sequence


def first_few(names: Sequence[str], shown: int = 4) -> str:
    """`a, b, c, d and 3 more`: a list of names kept to one readable line."""
    more = len(names) - shown
    return ", ".join(names[:shown]) + (f" and {more} more" if more > 0 else "")
