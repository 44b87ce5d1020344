"""End-to-end: source-patch changes through a per-run overlay. One installation of the (emulated)
engine serves a patched and an unpatched run that behave differently, the installed files are
byte-for-byte the same afterwards, a patch that does not apply refuses the run before any process
starts, and `show` and history carry the patch's hash."""

from __future__ import annotations

import hashlib
import json
import sqlite3
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import REPO, emulator_profile, free_port

pytestmark = pytest.mark.e2e

SILENCE = 3.0
DIFF = (REPO / "profiles" / "demo" / "patches" / "flashinfer_fusion.diff").read_text()
ENGINE = REPO / "supervisor" / "emulator"   # the emulated engine's installed package


def package_hash(root: Path) -> str:
    digest = hashlib.sha256()
    for path in sorted(root.rglob("*.py")):
        digest.update(str(path.relative_to(root)).encode() + b"\0" + path.read_bytes())
    return digest.hexdigest()


def fusion_profiles(workdir: Path, diff: str) -> None:
    """``plain``: fusion asked for on the command line (off on the emulated SM120, as in SGLang);
    ``fused``: the same plus the two-line source patch that enables it for SM120."""
    (workdir / "profiles" / "patches").mkdir(exist_ok=True)
    (workdir / "profiles" / "patches" / "fusion.diff").write_text(diff)
    plain = emulator_profile("plain", port=free_port(), silence=SILENCE)
    write_profile(workdir, "plain", plain.replace(
        "args = { tp-size = 2 }", "args = { tp-size = 2, enable-flashinfer-allreduce-fusion = true }"))
    write_profile(workdir, "fused", 'extends = "plain"\n'
                  '[[changes]]\nname = "fusion"\npatch = "patches/fusion.diff"\n')


def test_patched_and_unpatched_runs_from_one_installation(workdir: Path, make_daemon) -> None:
    fusion_profiles(workdir, DIFF)
    before = package_hash(ENGINE)
    d = make_daemon()
    res = d.ctl("switch", "fused", "--wait", "--timeout", "90", "--json", timeout=120)
    assert res.returncode == 1, res.stdout + res.stderr
    v = json.loads(res.stdout)["verdict"]
    assert (v["status"], v["phase"], v["cause"]) == ("hung", "cuda_graph_capture",
                                                     "collective_hang"), v
    assert "custom_all_reduce" in v["evidence"][0]
    fused_run = d.status()["run"]
    log = Path(fused_run["log_path"]).read_text()
    assert "source patch fusion (sha256 " in log and "installed files untouched" in log

    res = d.ctl("switch", "plain", "--wait", "--timeout", "60", "--json", timeout=90)
    assert res.returncode == 0, res.stdout + res.stderr
    assert d.status()["run"]["status"] == "ready"
    assert package_hash(ENGINE) == before
    assert not (ENGINE / "engine_flags.py.orig").exists()

    # History records each run's patches with their hash (in its resolved profile).
    patch_hash = hashlib.sha256(DIFF.encode()).hexdigest()[:16]
    with sqlite3.connect(workdir / "state" / "history.sqlite3") as db:
        rows = dict(db.execute("SELECT profile, resolved FROM runs").fetchall())
    assert [(p["change"], p["hash"]) for p in json.loads(rows["fused"])["patches"]] == [
        ("fusion", patch_hash)]
    assert json.loads(rows["plain"])["patches"] == []

    shown = d.ctl("show", "fused", check=True).stdout
    assert f"patch fusion: patches/fusion.diff  sha256 {patch_hash}" in shown
    assert "+FLASHINFER_ALLREDUCE_FUSION_SM = (90, 100, 120)" in shown
    assert f"patch.fusion: (unset) -> patches/fusion.diff (sha256 {patch_hash})" in shown


def test_a_patch_that_does_not_apply_refuses_the_run(workdir: Path, make_daemon) -> None:
    stale = DIFF.replace("-FLASHINFER_ALLREDUCE_FUSION_SM = (90, 100)",
                         "-FLASHINFER_ALLREDUCE_FUSION_SM = (90,)")
    fusion_profiles(workdir, stale)
    before = package_hash(ENGINE)
    d = make_daemon()
    res = d.ctl("switch", "fused", "--wait", "--timeout", "30", "--json", timeout=60)
    assert res.returncode == 1, res.stdout + res.stderr
    v = json.loads(res.stdout)["verdict"]
    assert (v["status"], v["phase"], v["cause"]) == ("crashed", "launch", "invalid_config"), v
    text = "\n".join(v["evidence"])
    assert "does not apply to the installed engine: supervisor 0.1.0 at" in text, text
    assert "Hunk #1 FAILED" in text and "-FLASHINFER_ALLREDUCE_FUSION_SM = (90,)" in text, text
    run = d.status()["run"]
    assert run["pid"] is None  # a verdict without a process
    assert package_hash(ENGINE) == before
