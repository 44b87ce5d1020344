"""Source-patch overlays: a run's private, patched copies of the engine's Python files.

A change may carry a unified diff against the engine's installed package (profiles/patches.py).
The installation is never written to: before the launch, the files the diff touches are copied
from where the engine's own Python finds them into ``RUN_DIR/overlay/`` (same relative paths),
the system ``patch`` tool checks the diff against those copies (``--dry-run``, no fuzz) and then
applies it to them. The overlay also holds a ``sitecustomize.py`` that makes the interpreter
load exactly those modules from the overlay; the folder goes first on ``PYTHONPATH`` for the
server, so its child processes (TP ranks, spawned workers) inherit it. A copy of only the
touched files cannot simply shadow the package on ``sys.path`` (a regular package is found
once, from its first folder), hence the module-level finder. Patched and unpatched runs share
one installation, and there is nothing to revert.

A diff that does not apply refuses the run before any process starts (cause invalid_config),
with the failing hunk and the version of the package found.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import subprocess
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Protocol

import anyio

from ..profiles.model import Patch
from ..profiles.patches import DiffError, DiffShape, FilePatch, parse_diff
from ..states import Cause

OVERLAY = "overlay"
PATCH_TOOL = "patch"
_LOCATE_TIMEOUT = 60.0
_PATCH_TIMEOUT = 60.0
_PYTHON_NAME = re.compile(r"^python[0-9.]*$")
_FAILED_HUNK = re.compile(r"Hunk #(\d+) FAILED")

Refusal = tuple[Cause, list[str]]


class Launching(Protocol):
    """What the hook needs of a Run (run.py imports this module, not the other way)."""

    profile: Any
    dir: Path
    import_path: str | None
    pipe: Any

    def argv(self) -> list[str]: ...

    def env(self) -> dict[str, str]: ...


class OverlayError(Exception):
    """The overlay cannot be built; ``evidence`` says why and what to do."""

    def __init__(self, evidence: list[str]) -> None:
        super().__init__(evidence[0])
        self.evidence = evidence


@dataclass
class Package:
    """Where the engine's Python finds a top-level package, and its version."""

    name: str
    locations: list[str]
    version: str | None

    def describe(self) -> str:
        where = ", ".join(self.locations) or "nowhere"
        return f"{self.name} {self.version or '(version unknown)'} at {where}"


@dataclass
class Overlay:
    path: Path
    modules: dict[str, tuple[str, str | None]] = field(default_factory=dict)
    notes: list[str] = field(default_factory=list)


async def prepare_run(run: Launching) -> Refusal | None:
    """The arbiter's hook: build the run's overlay (when its profile has patches) and put it
    first on the run's import path, or refuse the run with the reason."""
    if not run.profile.patches:
        return None
    argv, env = run.argv(), run.env()
    try:
        built = await anyio.to_thread.run_sync(
            build, list(run.profile.patches), run.dir, argv, env, run.profile.cwd)
    except OverlayError as exc:
        return Cause.INVALID_CONFIG, exc.evidence
    run.import_path = str(built.path)
    for note in built.notes:
        run.pipe.feed(f"[gpu-node-supervisor] {note}\n".encode())
    return None


def import_path(env: dict[str, str], overlay: str) -> str:
    """``PYTHONPATH`` with the overlay first."""
    return os.pathsep.join(p for p in (overlay, env.get("PYTHONPATH")) if p)


def build(patches: list[Patch], run_dir: Path, argv: list[str], env: dict[str, str],
          cwd: str | None) -> Overlay:
    """Copy, check and patch the touched files into ``run_dir/overlay``; raises OverlayError."""
    shapes = [(p, _shape(p)) for p in patches]
    python = engine_python(argv, env, cwd)
    tops = sorted({f.path.split("/", 1)[0] for _, shape in shapes for f in shape.files})
    packages = locate(python, tops, env, cwd)
    overlay = Overlay(run_dir / OVERLAY)
    shutil.rmtree(overlay.path, ignore_errors=True)
    overlay.path.mkdir(parents=True)
    saved = run_dir / "patches"
    saved.mkdir(exist_ok=True)
    for index, (patch, shape) in enumerate(shapes, start=1):
        for fp in shape.files:
            _copy_original(overlay, fp, packages, patch)
        diff = saved / f"{index}-{patch.change}.diff"
        diff.write_text(patch.text)
        _apply(overlay.path, diff, shape.strip, patch, packages)
        names = ", ".join(f.path for f in shape.files)
        overlay.notes.append(f"source patch {patch.change} (sha256 {patch.hash}) applied in "
                             f"this run's overlay {overlay.path}: {names}; installed files "
                             f"untouched")
    _write_sitecustomize(overlay)
    return overlay


def _shape(patch: Patch) -> DiffShape:
    try:
        shape = parse_diff(patch.text)
    except DiffError as exc:  # validated at load; only a hand-edited history could get here
        raise OverlayError([f"source patch {patch.change} ({patch.path}): {exc}"]) from None
    deleted = [f.path for f in shape.files if f.deleted]
    if deleted:
        raise OverlayError([f"source patch {patch.change} deletes {', '.join(deleted)}: an "
                            f"overlay can replace or add modules, not remove them"])
    return shape


# -- the engine's interpreter and its packages -------------------------------------------------


def engine_python(argv: list[str], env: dict[str, str], cwd: str | None) -> str:
    """The Python that runs the engine: the command itself, or the interpreter its ``#!`` line
    names (a console script such as ``vllm``)."""
    exe = _which(argv[0], env, cwd)
    if exe is not None and _PYTHON_NAME.match(os.path.basename(exe)):
        return exe
    shebang = _shebang(exe) if exe is not None else None
    if shebang:
        words = shebang.split()
        if os.path.basename(words[0]) == "env" and len(words) > 1:
            words = words[1:]
        found = _which(words[0], env, cwd)
        if found is not None and _PYTHON_NAME.match(os.path.basename(found)):
            return found
    raise OverlayError([
        f"cannot tell which Python runs {argv[0]!r}, so a source patch cannot be checked "
        f"against the engine's installed package",
        "start the engine with a Python interpreter (launch.command = [\"python3\", \"-m\", "
        "...]) or a script whose #! line names one"])


def _which(exe: str, env: dict[str, str], cwd: str | None) -> str | None:
    if os.sep in exe:
        full = os.path.join(cwd or "", exe)
        return full if os.path.isfile(full) else None
    return shutil.which(exe, path=env.get("PATH", os.defpath))


def _shebang(path: str) -> str | None:
    try:
        with open(path, "rb") as f:
            first = f.read(256).split(b"\n", 1)[0]
    except OSError:
        return None
    if not first.startswith(b"#!"):
        return None
    return first[2:].decode("utf-8", "replace").strip() or None


_LOCATE = r"""
import importlib.util, json, os, re, sys
try:
    from importlib import metadata
except ImportError:
    metadata = None
found = {}
for name in sys.argv[1:]:
    try:
        spec = importlib.util.find_spec(name)
    except Exception as exc:
        found[name] = {"error": "%s: %s" % (type(exc).__name__, exc)}
        continue
    if spec is None or not spec.submodule_search_locations:
        found[name] = None
        continue
    version = None
    if metadata is not None:
        dists = metadata.packages_distributions().get(name, [name])
        for dist in dists:
            try:
                version = "%s %s" % (dist, metadata.version(dist)) if dist != name else \
                    metadata.version(dist)
                break
            except Exception:
                pass
    locations = list(spec.submodule_search_locations)
    for loc in locations if version is None else ():  # an editable or vendored install
        for fname in ("version.py", "_version.py", "__init__.py"):
            try:
                with open(os.path.join(loc, fname)) as f:
                    m = re.search(r"^__version__\s*=\s*['\"]([^'\"]+)['\"]", f.read(65536), re.M)
            except OSError:
                continue
            if m:
                version = m.group(1)
                break
    found[name] = {"locations": locations, "version": version}
print(json.dumps(found))
"""


def locate(python: str, names: list[str], env: dict[str, str], cwd: str | None,
           ) -> dict[str, Package]:
    """Ask the engine's own Python (with the run's environment) where its packages are."""
    try:
        res = subprocess.run([python, "-c", _LOCATE, *names], env=env, cwd=cwd,
                             capture_output=True, text=True, timeout=_LOCATE_TIMEOUT,
                             stdin=subprocess.DEVNULL)
        found = json.loads(res.stdout.strip().splitlines()[-1]) if res.returncode == 0 else None
    except (OSError, subprocess.TimeoutExpired, ValueError, IndexError) as exc:
        raise OverlayError([f"cannot ask {python} where {', '.join(names)} is installed: "
                            f"{exc}"]) from None
    if not isinstance(found, dict):
        raise OverlayError([f"{python} could not look up {', '.join(names)} (exit "
                            f"{res.returncode}): {(res.stderr or '').strip()[-300:]}"])
    packages: dict[str, Package] = {}
    for name in names:
        info = found.get(name)
        if not isinstance(info, dict) or "error" in info:
            why = info["error"] if isinstance(info, dict) else "no such package"
            raise OverlayError([f"a source patch touches package {name!r}, which {python} does "
                                f"not find ({why})",
                                "patch paths are relative to site-packages "
                                "(PACKAGE/.../FILE.py); install the engine, or fix the diff"])
        packages[name] = Package(name, list(info["locations"]), info.get("version"))
    return packages


# -- building --------------------------------------------------------------------------------


def _original(fp: FilePatch, packages: dict[str, Package]) -> tuple[Package, Path | None]:
    top, _, rest = fp.path.partition("/")
    package = packages[top]
    for location in package.locations:
        candidate = Path(location) / rest
        if candidate.is_file():
            return package, candidate
    return package, None


def _copy_original(overlay: Overlay, fp: FilePatch, packages: dict[str, Package],
                   patch: Patch) -> None:
    dest = overlay.path / fp.path
    if dest.exists():  # an earlier patch of this run already made (and patched) the copy
        return
    package, original = _original(fp, packages)
    dest.parent.mkdir(parents=True, exist_ok=True)
    if original is None and not fp.created:
        raise OverlayError([f"source patch {patch.change} ({patch.path}, sha256 {patch.hash}) "
                            f"changes {fp.path}, which {package.describe()} does not have",
                            "regenerate the diff against the installed version, or remove the "
                            "change"])
    if original is not None:
        shutil.copyfile(original, dest)
        pkg_dir = str(original.parent) if original.name == "__init__.py" else None
    else:
        pkg_dir = str(Path(package.locations[0]) / Path(fp.path).parent.relative_to(
            package.name)) if fp.path.endswith("/__init__.py") else None
    overlay.modules[_module_name(fp.path)] = (fp.path, pkg_dir)


def _module_name(rel: str) -> str:
    parts = rel[:-len(".py")].split("/")
    if parts[-1] == "__init__":
        parts = parts[:-1]
    return ".".join(parts)


def _patch_cmd(overlay: Path, diff: Path, strip: int, *, dry_run: bool) -> list[str]:
    tool = shutil.which(PATCH_TOOL)
    if tool is None:
        raise OverlayError(["the system 'patch' tool is not installed; it checks and applies "
                            "source patches", "install it (apt-get install patch)"])
    cmd = [tool, "--batch", "--forward", "--fuzz=0", "--no-backup-if-mismatch",
           "--reject-file=-", f"-p{strip}", "-d", str(overlay), "-i", str(diff)]
    return [*cmd, "--dry-run"] if dry_run else cmd


def _apply(overlay: Path, diff: Path, strip: int, patch: Patch,
           packages: dict[str, Package]) -> None:
    """Dry run first (nothing is written unless every hunk applies), then the real one."""
    for dry_run in (True, False):
        try:
            res = subprocess.run(_patch_cmd(overlay, diff, strip, dry_run=dry_run),
                                 capture_output=True, text=True, timeout=_PATCH_TIMEOUT,
                                 stdin=subprocess.DEVNULL)
        except (OSError, subprocess.TimeoutExpired) as exc:
            raise OverlayError([f"cannot run the patch tool: {exc}"]) from None
        if res.returncode != 0:
            raise OverlayError(_refusal(patch, res.stdout + res.stderr, packages))


def _refusal(patch: Patch, output: str, packages: dict[str, Package]) -> list[str]:
    versions = "; ".join(p.describe() for p in packages.values())
    lines = [f"source patch {patch.change} ({patch.path}, sha256 {patch.hash}) does not apply "
             f"to the installed engine: {versions}"]
    lines += [f"patch: {ln}" for ln in output.splitlines() if ln.strip()][:8]
    failed = _FAILED_HUNK.search(output)
    checking = re.findall(r"^(?:checking|patching) file (.+)$", output, re.M)
    if failed and checking:
        hunk = failing_hunk(patch.text, checking[-1].strip(), int(failed.group(1)))
        if hunk:
            lines.append(f"the failing hunk ({checking[-1].strip()} #{failed.group(1)}):")
            lines += [f"  {ln}" for ln in hunk]
    lines.append("the run was not started and nothing was written to the installation; "
                 "regenerate the diff against this version, or remove the change")
    return lines


def failing_hunk(text: str, path: str, number: int, *, limit: int = 12) -> list[str]:
    """Hunk ``number`` (1-based) of the file whose header ends with ``path``."""
    lines = text.splitlines()
    in_file = False
    seen = 0
    for i, line in enumerate(lines):
        if line.startswith("+++ "):
            in_file = line[4:].split("\t", 1)[0].strip().endswith(path)
            seen = 0
        elif in_file and line.startswith("@@ "):
            seen += 1
            if seen == number:
                body = [line]
                for nxt in lines[i + 1:]:
                    if nxt.startswith(("@@ ", "--- ", "diff ")) or len(body) >= limit:
                        break
                    body.append(nxt)
                return body
    return []


_SITECUSTOMIZE = '''\
"""Written by gpu-node-supervisor for one run: the modules below load from this run's patched
copies instead of the installed engine (which is never written to). Then the sitecustomize
this file shadows, if the environment has one, runs as usual."""
import importlib.machinery
import importlib.util
import os
import sys

_HERE = os.path.dirname(os.path.abspath(__file__))
_MODULES = {modules!r}


class _RunOverlay:
    @staticmethod
    def find_spec(name, path=None, target=None):
        entry = _MODULES.get(name)
        if entry is None:
            return None
        rel, package_dir = entry
        return importlib.util.spec_from_file_location(
            name, os.path.join(_HERE, rel),
            submodule_search_locations=[package_dir] if package_dir else None)


sys.meta_path.insert(0, _RunOverlay)


def _chain():
    rest = [p for p in sys.path if os.path.abspath(p or os.curdir) != _HERE]
    spec = importlib.machinery.PathFinder.find_spec("sitecustomize", rest)
    if spec is not None and spec.loader is not None:
        spec.loader.exec_module(importlib.util.module_from_spec(spec))


_chain()
'''


def _write_sitecustomize(overlay: Overlay) -> None:
    modules = {name: list(entry) for name, entry in sorted(overlay.modules.items())}
    (overlay.path / "sitecustomize.py").write_text(_SITECUSTOMIZE.format(modules=modules))
    (overlay.path / "overlay.json").write_text(json.dumps({"modules": modules}, indent=1))
