"""The fallback chain: other profiles, tried in order (DESIGN §7)."""

from __future__ import annotations

from collections.abc import Iterator

from ..profiles import ProfileError, ProfileSet, ResolvedProfile


def chain_profiles(profiles: ProfileSet, chain: tuple[str, ...],
                   notes: list[str]) -> Iterator[tuple[str, ResolvedProfile]]:
    """The chain's profiles that resolve; a broken one is skipped with a note."""
    for name in chain:
        try:
            yield name, profiles.resolve(name)
        except ProfileError as exc:
            notes.append(f"chain profile {name!r} skipped: {exc}")
