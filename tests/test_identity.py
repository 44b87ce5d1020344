"""The import package is named like supervisord's: guard against shadowing."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def test_import_from_neutral_directory(tmp_path: Path) -> None:
    res = subprocess.run([sys.executable, "-c",
                          "import supervisor; supervisor.check_identity(); print(supervisor.IDENTITY)"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stdout.strip() == "gpu-node-supervisor"


def test_shadowing_package_gives_a_clear_error(tmp_path: Path) -> None:
    fake = tmp_path / "supervisor"
    (fake / "cli").mkdir(parents=True)
    (fake / "__init__.py").write_text("# supervisord's package\n")
    (fake / "cli" / "__init__.py").write_text((REPO / "supervisor/cli/__init__.py").read_text())
    res = subprocess.run([sys.executable, "-c",
                          "from supervisor.cli import guard_identity; guard_identity()"],
                         cwd=tmp_path, capture_output=True, text=True, timeout=60,
                         env={"PYTHONPATH": str(tmp_path), "PATH": "/usr/bin:/bin"})
    assert res.returncode == 2
    assert "not gpu-node-supervisor" in res.stderr and "supervisord" in res.stderr


def test_daemon_never_imports_the_tui() -> None:
    code = ("import sys, supervisor.service, supervisor.cli.ctl, supervisor.cli.daemon;"
            "bad = [m for m in sys.modules if m.split('.')[0] in ('tui', 'textual', 'rich')];"
            "print(bad); sys.exit(1 if bad else 0)")
    res = subprocess.run([sys.executable, "-c", code], cwd=REPO, capture_output=True,
                         text=True, timeout=60)
    assert res.returncode == 0, res.stdout + res.stderr


def test_no_supervisord_names_in_the_tree() -> None:
    names = {"supervisord", "supervisorctl", "supervisor.service"}
    found = [p for p in REPO.rglob("*") if p.name in names
             and not any(part.startswith(".venv") for part in p.parts)]
    assert not found
