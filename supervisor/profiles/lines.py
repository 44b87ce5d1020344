"""Find the line of a key in TOML source by a light scan (tomllib keeps no positions).

Paths look like ``launch.port``, ``launch.args.tp`` or ``changes[1].env.X``. A key inside a
one-line inline table (``args = { tp = 8 }``) maps to that line; a key that cannot be found
falls back to its nearest ancestor that can.
"""

from __future__ import annotations

import re

_HEADER = re.compile(r"^\s*(\[\[?)\s*([^\]]+?)\s*\]\]?\s*(#.*)?$")
_KEY = re.compile(r'^\s*((?:"[^"]*"|[A-Za-z0-9_\-]+)(?:\s*\.\s*(?:"[^"]*"|[A-Za-z0-9_\-]+))*)\s*=')
_INLINE_KEY = re.compile(r'[{,]\s*("[^"]*"|[A-Za-z0-9_\-]+)\s*=')


def _parts(dotted: str) -> list[str]:
    return [p.strip().strip('"') for p in re.findall(r'"[^"]*"|[^.]+', dotted)]


class LineIndex:
    """Maps key paths to the 1-based line where they are first written."""

    def __init__(self, text: str) -> None:
        self.lines: dict[str, int] = {}
        self._scan(text)

    def _record(self, path: str, line: int) -> None:
        self.lines.setdefault(path, line)

    def _scan(self, text: str) -> None:
        prefix = ""
        arrays: dict[str, int] = {}
        in_multiline = False
        for number, raw in enumerate(text.splitlines(), start=1):
            # Skip the inside of multi-line strings, where `x =` is just text.
            quotes = raw.count('"""') + raw.count("'''")
            if in_multiline:
                in_multiline = quotes % 2 == 0
                continue
            if quotes % 2 == 1:
                in_multiline = True
            header = _HEADER.match(raw)
            if header:
                name = ".".join(_parts(header.group(2)))
                if header.group(1) == "[[":
                    arrays[name] = arrays.get(name, -1) + 1
                    name = f"{name}[{arrays[name]}]"
                prefix = name
                self._record(prefix, number)
                continue
            key = _KEY.match(raw)
            if not key:
                continue
            path = ".".join([p for p in [prefix] if p] + _parts(key.group(1)))
            self._record(path, number)
            rest = raw[key.end():]
            if "{" in rest:
                for member in _INLINE_KEY.finditer(rest):
                    self._record(f"{path}.{member.group(1).strip(chr(34))}", number)

    def find(self, path: str | None) -> int | None:
        """Line of ``path`` or of its nearest recorded ancestor; None if nothing matches."""
        while path:
            if path in self.lines:
                return self.lines[path]
            cut = max(path.rfind("."), path.rfind("["))
            path = path[:cut] if cut > 0 else ""
        return None
