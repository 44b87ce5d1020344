"""Campaign plans as files: a bad key is refused naming file and key; `finish` picks what the
campaign leaves serving, and best_step says which step that is."""

from __future__ import annotations

from pathlib import Path
from typing import Any

import pytest

from supervisor.campaign import best_step
from supervisor.campaign_plan import PlanError, load_plan
from supervisor.profiles import ProfileSet

PROFILE = 'engine = "sglang"\n[launch]\nmodel = "m"\n'
PLAN = 'baseline = "base"\n[[experiments]]\nname = "one"\nprofile = "exp"\n'


def _plan(tmp_path: Path, text: str) -> Any:
    for name in ("base", "exp"):
        (tmp_path / f"{name}.toml").write_text(PROFILE)
    (tmp_path / "campaigns").mkdir(exist_ok=True)
    (tmp_path / "campaigns" / "c.toml").write_text(text)
    return load_plan(tmp_path, "c", ProfileSet.load_dir(tmp_path))


def test_finish_defaults_to_best_and_takes_last(tmp_path: Path) -> None:
    assert _plan(tmp_path, PLAN).finish == "best"
    assert _plan(tmp_path, 'finish = "last"\n' + PLAN).finish == "last"
    assert _plan(tmp_path, PLAN).to_dict()["finish"] == "best"


def test_a_bad_finish_names_the_file_the_key_and_the_choices(tmp_path: Path) -> None:
    with pytest.raises(PlanError) as err:
        _plan(tmp_path, 'finish = "fastest"\n' + PLAN)
    msg = str(err.value)
    assert "campaigns/c.toml: finish: must be one of best, last, got 'fastest'" in msg


def _row(name: str, ok: bool, tps: float | None, run_id: int) -> dict[str, Any]:
    return {"name": name, "profile": f"p-{name}", "changes": [name], "ok": ok,
            "benchmark": {"tokens_per_s": tps}, "run_id": run_id}


def test_best_step_is_the_fastest_passing_experiment_else_the_baseline(
        tmp_path: Path) -> None:
    plan = _plan(tmp_path, PLAN)
    state: dict[str, Any] = {"baseline": {"run_id": 1}, "experiments": [
        _row("slow", True, 50.0, 2), _row("fast_but_failed", False, 90.0, 3),
        _row("fast", True, 70.0, 4), _row("missed", False, None, 5)]}
    assert best_step(plan, state) == ("fast", "p-fast", ("fast",), 4)
    state["experiments"] = [_row("missed", False, 80.0, 2), _row("crashed", False, None, 3)]
    assert best_step(plan, state) == (None, "base", None, 1)
