"""The unit file passes systemd-analyze verify (with ExecStart pointed at this venv)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[1]
UNIT = REPO / "systemd" / "gpu-node-supervisor.service"


def test_unit_has_the_contract_settings() -> None:
    text = UNIT.read_text()
    for line in ("Type=notify", "WatchdogSec=", "RuntimeDirectory=gpu-node-supervisor",
                 "StateDirectory=gpu-node-supervisor", "Restart=on-failure", "KillMode=mixed"):
        assert line in text


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze not found")
def test_systemd_analyze_verify(tmp_path: Path) -> None:
    daemon = Path(sys.executable).with_name("supervisor-daemon")
    assert daemon.exists()
    unit = tmp_path / UNIT.name
    unit.write_text(UNIT.read_text().replace("/opt/gpu-node-supervisor/bin/supervisor-daemon",
                                             str(daemon)))
    res = subprocess.run(["systemd-analyze", "verify", str(unit)], capture_output=True,
                         text=True, timeout=60)
    problems = [ln for ln in (res.stdout + res.stderr).splitlines()
                if UNIT.name in ln or "Unknown" in ln or "error" in ln.lower()]
    assert not problems, res.stdout + res.stderr
