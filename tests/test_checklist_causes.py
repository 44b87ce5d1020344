"""Checklist items for the causes no flag fixes: bad launch arguments, a damaged checkpoint."""

from __future__ import annotations

from types import SimpleNamespace

import pytest

from supervisor.diagnosis.checklist import OPERATOR_ACTIONS, Checklist, plan_for_failure
from supervisor.fallback.remedies import UNFIXABLE, is_relevant
from supervisor.states import Cause, Phase, Status
from supervisor.store import Store


def _run(cause: Cause, evidence: list[str]) -> SimpleNamespace:
    return SimpleNamespace(id=7, status=Status.CRASHED, phase=Phase.LAUNCH, cause=cause,
                           evidence=evidence)


@pytest.mark.parametrize("cause,line", [
    (Cause.INVALID_CONFIG, "launch_server.py: error: unrecognized arguments: --enable-reasoning"),
    (Cause.CORRUPT_CHECKPOINT, "safetensors_rust.SafetensorError: Error while deserializing "
                               "header: MetadataIncompleteBuffer"),
])
def test_unfixable_cause_gets_an_open_operator_item_with_the_root_line(tmp_path, cause, line):
    checklist = Checklist(Store(tmp_path / "h.sqlite3"), lambda kind, data: None)
    plan_for_failure(checklist, _run(cause, [line]), {})
    items = {i["key"]: i for i in checklist.view()}
    fix = items["run7:fix"]
    assert fix["status"] == "pending" and fix["evidence"] == [line]
    assert OPERATOR_ACTIONS[cause.value] in fix["title"]
    # no flag of the fallback ladder is tried for it
    assert cause.value in UNFIXABLE
    assert not any(is_relevant(r, cause.value, "launch") for r in (
        "disable_cuda_graph", "disable_torch_compile", "lower_mem_fraction"))


def test_other_causes_get_no_operator_item(tmp_path):
    checklist = Checklist(Store(tmp_path / "h.sqlite3"), lambda kind, data: None)
    plan_for_failure(checklist, _run(Cause.CUDA_OOM, ["torch.OutOfMemoryError"]), {})
    assert "run7:fix" not in {i["key"] for i in checklist.view()}
