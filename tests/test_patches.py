"""Source-patch changes: loading and checking the diff a change names, the profile hash, and the
overlay that applies it to copies (runtime/overlay.py) with the system patch tool."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from supervisor.profiles import ProfileSet
from supervisor.profiles.patches import DiffError, parse_diff
from supervisor.runtime import overlay

REPO = Path(__file__).resolve().parents[1]
DIFF = (REPO / "profiles" / "demo" / "patches" / "flashinfer_fusion.diff").read_text()
BASE = '[launch]\nmodel = "m"\n'


def load(tmp_path: Path, change: str, diff: str | None = DIFF) -> ProfileSet:
    (tmp_path / "patches").mkdir(exist_ok=True)
    if diff is not None:
        (tmp_path / "patches" / "x.diff").write_text(diff)
    (tmp_path / "p.toml").write_text(BASE + "[[changes]]\n" + change)
    return ProfileSet.load_dir(tmp_path)


def test_a_change_may_be_a_source_patch_whose_hash_is_in_the_profiles(tmp_path: Path) -> None:
    pset = load(tmp_path, 'name = "fuse"\npatch = "patches/x.diff"\n')
    assert pset.errors == []
    full, bare = pset.resolve("p"), pset.resolve("p", changes=[])
    assert [(p.change, p.path) for p in full.patches] == [("fuse", "patches/x.diff")]
    assert bare.patches == () and full.hash != bare.hash
    assert full.to_dict()["patches"][0]["hash"] == full.patches[0].hash
    # the same settings with another diff are another launch
    (tmp_path / "patches" / "x.diff").write_text(DIFF.replace("120)", "121)"))
    assert ProfileSet.load_dir(tmp_path).resolve("p").hash != full.hash


@pytest.mark.parametrize(("change", "diff", "message"), [
    ('name = "c"\npatch = "/etc/passwd"\n', DIFF, "inside the profile's folder"),
    ('name = "c"\npatch = "../x.diff"\n', DIFF, "inside the profile's folder"),
    ('name = "c"\npatch = "patches/none.diff"\n', DIFF, "cannot read"),
    ('name = "c"\npatch = 3\n', DIFF, "must be a non-empty string"),
    ('name = "c"\npatch = "patches/x.diff"\n', "just words\n", "not a unified diff"),
    ('name = "c"\npatch = "patches/x.diff"\n', DIFF.replace(" \n", "", 1), "does not hold"),
    ('name = "c"\npatch = "patches/x.diff"\n',
     DIFF.replace("engine_flags.py", "engine_flags.so"), "only Python sources"),
])
def test_bad_patches_are_refused_at_load_with_their_key(tmp_path: Path, change: str, diff: str,
                                                        message: str) -> None:
    pset = load(tmp_path, change, diff)
    assert "p" not in pset
    err = pset.errors[0]
    assert err.key == "changes[0].patch" and err.line == 5 and message in err.message, err


def test_a_patch_directory_is_refused_without_blocking(tmp_path: Path) -> None:
    (tmp_path / "patches" / "x.diff").mkdir(parents=True)
    pset = load(tmp_path, 'name = "c"\npatch = "patches/x.diff"\n', diff=None)
    assert "not a regular file" in pset.errors[0].message


def test_diff_shapes() -> None:
    shape = parse_diff(DIFF)
    assert shape.strip == 1 and [f.path for f in shape.files] == [
        "supervisor/emulator/engine_flags.py"]
    plain = DIFF.replace("--- a/", "--- ").replace("+++ b/", "+++ ")
    assert parse_diff(plain).strip == 0
    with pytest.raises(DiffError, match="relative to site-packages"):
        parse_diff(DIFF.replace("/supervisor/emulator", "/../supervisor/emulator"))


def test_overlay_patches_copies_only_and_its_python_sees_them(tmp_path: Path) -> None:
    patch = ProfileSet.load_dir(REPO / "profiles" / "demo").resolve(
        "demo-fewchan-fusion").patches[0]
    installed = (REPO / "supervisor" / "emulator" / "engine_flags.py").read_bytes()
    env = dict(os.environ, PYTHONPATH=str(REPO))
    built = overlay.build([patch], tmp_path, [sys.executable, "-m", "x"], env, None)
    assert (REPO / "supervisor" / "emulator" / "engine_flags.py").read_bytes() == installed
    code = ("import supervisor.emulator.engine_flags as f, supervisor.emulator.config as c; "
            f"print(f.FLASHINFER_ALLREDUCE_FUSION_SM, f.__file__.startswith({str(built.path)!r}), "
            f"c.__file__.startswith({str(REPO)!r}))")
    out = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True,
                         env=dict(env, PYTHONPATH=overlay.import_path(env, str(built.path))))
    assert out.stdout.split() == ["(90,", "100,", "120)", "True", "True"], out.stderr


def test_a_stale_patch_names_the_failing_hunk_and_the_version(tmp_path: Path) -> None:
    patch = ProfileSet.load_dir(REPO / "profiles" / "demo").resolve(
        "demo-fewchan-fusion").patches[0]
    stale = type(patch)(patch.change, patch.path, patch.text.replace("(90, 100)\n", "(9)\n"))
    env = dict(os.environ, PYTHONPATH=str(REPO))
    with pytest.raises(overlay.OverlayError) as info:
        overlay.build([stale], tmp_path, [sys.executable, "-m", "x"], env, None)
    text = "\n".join(info.value.evidence)
    assert "supervisor 0.1.0 at " in text and "Hunk #1 FAILED" in text
    assert "-FLASHINFER_ALLREDUCE_FUSION_SM = (9)" in text


def test_the_engine_python_comes_from_the_command_or_its_shebang(tmp_path: Path) -> None:
    script = tmp_path / "serve"
    script.write_text(f"#!{sys.executable}\nprint()\n")
    script.chmod(0o755)
    env = {"PATH": str(tmp_path)}
    assert overlay.engine_python(["serve"], env, None) == sys.executable
    assert overlay.engine_python([sys.executable, "-m", "x"], env, None) == sys.executable
    (tmp_path / "bin").write_bytes(b"\x7fELF")
    (tmp_path / "bin").chmod(0o755)
    with pytest.raises(overlay.OverlayError, match="cannot tell which Python"):
        overlay.engine_python(["bin"], env, None)
