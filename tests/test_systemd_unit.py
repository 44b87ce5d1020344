"""The unit file passes systemd-analyze verify (with ExecStart pointed at this venv)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
UNIT = REPO / "systemd" / "gpu-node-supervisor.service"


def test_unit_bounds_memory_and_tasks_without_starving_a_server() -> None:
    settings = dict(line.split("=", 1) for line in UNIT.read_text().splitlines()
                    if "=" in line and not line.startswith("#"))
    # The server shares the unit's cgroup: a share of the host's RAM, never a daemon-sized cap.
    assert settings["MemoryMax"].endswith("%") and 80 <= int(settings["MemoryMax"][:-1]) < 100
    assert settings["OOMPolicy"] == "continue"
    assert 8192 <= int(settings["TasksMax"]) <= 65536


def test_unit_has_the_contract_settings() -> None:
    text = UNIT.read_text()
    for line in ("Type=notify", "WatchdogSec=", "RuntimeDirectory=gpu-node-supervisor",
                 "StateDirectory=gpu-node-supervisor", "Restart=on-failure", "KillMode=mixed"):
        assert line in text


NO_ANALYZE = pytest.mark.skipif(shutil.which("systemd-analyze") is None,
                                reason="systemd-analyze not found")
VERIFY = REPO / "scripts" / "verify-unit.sh"


def verify_unit(unit: Path) -> subprocess.CompletedProcess[str]:
    """What `make verify-unit` runs, with this interpreter's venv."""
    venv = Path(sys.executable).parent.parent
    return subprocess.run(["bash", str(VERIFY), str(unit)], capture_output=True, text=True,
                          timeout=60, env={**os.environ, "VENV": str(venv)})


@NO_ANALYZE
def test_unit_verifies_as_installed() -> None:
    res = verify_unit(UNIT)
    assert res.returncode == 0, res.stdout + res.stderr
    assert "OK" in res.stdout


@NO_ANALYZE
def test_verify_unit_fails_on_a_bad_key(tmp_path: Path) -> None:
    bad = tmp_path / UNIT.name
    bad.write_text(UNIT.read_text().replace("[Service]", "[Service]\nRestartt=always", 1))
    res = verify_unit(bad)
    assert res.returncode == 1
    assert "Restartt" in res.stderr


def test_verify_unit_skips_clearly_without_systemd_analyze(tmp_path: Path) -> None:
    # A PATH with bash and the coreutils the script needs, but no systemd-analyze.
    bindir = tmp_path / "bin"
    bindir.mkdir()
    for tool in ("bash", "dirname", "basename", "mktemp", "sed", "grep", "rm"):
        found = shutil.which(tool)
        assert found, tool
        (bindir / tool).symlink_to(found)
    res = subprocess.run([str(bindir / "bash"), str(VERIFY)], capture_output=True, text=True,
                         timeout=60, env={"PATH": str(bindir)})
    assert res.returncode == 0, res.stderr
    assert "SKIPPED: systemd-analyze not found" in res.stdout
