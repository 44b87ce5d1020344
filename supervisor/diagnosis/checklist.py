"""The diagnostic checklist: the daemon's visible plan after a verdict (DESIGN §6).

Rules turn a failed run into ordered items; the daemon performs the automatic ones itself
and fills in their evidence; operators add items and mark them over the socket.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from ..states import ChecklistStatus

Publish = Callable[[str, Any], None]

# Causes no flag fixes: what the operator has to do (an open item with the root error lines).
OPERATOR_ACTIONS: dict[str, str] = {
    "invalid_config": "fix the launch arguments or the model configuration the engine rejected "
                      "(the fallback ladder stops: no flag of its own fixes this)",
    "corrupt_checkpoint": "check the checkpoint's files (sizes against the source, safetensors "
                          "headers, tokenizer files) and download the damaged ones again",
}


class Checklist:
    """The current checklist (one per request), persisted item by item in the store."""

    def __init__(self, store: Any, publish: Publish) -> None:
        self.store = store
        self.publish = publish
        self.ids: list[int] = list(store.get_meta("checklist_ids", []) or [])
        self._view: list[dict[str, Any]] | None = None   # `status` reads it often

    def view(self) -> list[dict[str, Any]]:
        if self._view is None:
            self._view = self.store.items(ids=self.ids)
        return self._view

    def _changed(self) -> None:
        self._view = None
        self.store.set_meta("checklist_ids", self.ids)
        self.publish("checklist", {"items": self.view()})

    def reset(self) -> None:
        """A new request starts a new plan; open operator items carry over."""
        keep = [i["id"] for i in self.view()
                if not i["auto"] and i["status"] in ("pending", "in_progress")]
        self.ids = keep
        self._changed()

    def add(self, title: str, *, key: str | None = None, run_id: int | None = None,
            auto: bool = False, status: ChecklistStatus = ChecklistStatus.PENDING,
            evidence: list[str] | None = None) -> int:
        item_id = self.store.add_item(run_id=run_id, key=key, title=title, status=status.value,
                                      evidence=evidence or [], auto=auto)
        self.ids.append(item_id)
        self._changed()
        return item_id

    def set(self, item_id: int, status: ChecklistStatus,
            evidence: list[str] | None = None) -> None:
        if item_id not in self.ids:
            raise KeyError(item_id)
        self.store.update_item(item_id, status=status.value, evidence=evidence)
        self._changed()

    def find(self, key: str) -> int | None:
        for item in self.view():
            if item["key"] == key:
                return int(item["id"])
        return None

    def set_key(self, key: str, status: ChecklistStatus, evidence: list[str] | None = None,
                title: str | None = None, run_id: int | None = None) -> int:
        """Update the item with this key, creating it when missing."""
        item_id = self.find(key)
        if item_id is None:
            return self.add(title or key, key=key, run_id=run_id, auto=True, status=status,
                            evidence=evidence)
        self.set(item_id, status, evidence)
        return item_id


def plan_for_failure(checklist: Checklist, run: Any, facts: dict[str, Any]) -> None:
    """Items for a failed run, with the automatic ones already carried out.

    ``facts`` holds what the daemon gathered: processes (at the verdict), stack files,
    leftovers after the stop (and the shared memory it removed), GPU health flags, and the
    fallback strategy.
    """
    S = ChecklistStatus
    rid = run.id
    tag = f"run{rid}"
    root = (run.evidence or ["no error line found"])[:3]
    checklist.set_key(f"{tag}:log", S.DONE, root, f"Run #{rid}: read the log for the root "
                      f"error ({run.status.value} in {run.phase.value}, cause "
                      f"{run.cause.value if run.cause else 'unknown'})", rid)
    procs = facts.get("processes") or []
    checklist.set_key(f"{tag}:procs", S.DONE if procs else S.SKIPPED,
                      [f"pid {p['pid']} {p['status']} cpu {p['cpu_s']}s: {p['cmdline'][:80]}"
                       for p in procs[:12]] or ["no process was alive at the verdict"],
                      f"Run #{rid}: list the run's processes and what they do", rid)
    if run.status.value in ("hung", "timeout"):
        act = facts.get("activity") or []
        checklist.set_key(f"{tag}:activity", S.DONE, act,
                          f"Run #{rid}: compare output, CPU, disk and GPU activity", rid)
        files = facts.get("stacks") or []
        checklist.set_key(f"{tag}:stacks", S.DONE if files else S.FAILED,
                          files or ["no stack dump could be taken"],
                          f"Run #{rid}: dump stacks of every process", rid)
    left = facts.get("leftovers")
    checklist.set_key(f"{tag}:leftovers", S.DONE if not left else S.FAILED,
                      ([f"processes left after stop: {sorted(left)}"] if left else
                       ["nothing of the run is left"]) + list(facts.get("shm_removed") or []),
                      f"Run #{rid}: check leftovers", rid)
    flags = facts.get("gpu_flags") or []
    checklist.set_key(f"{tag}:gpus", S.DONE if not flags else S.FAILED,
                      flags or [facts.get("gpu_note") or "GPUs healthy"],
                      f"Run #{rid}: check GPU health", rid)
    action = OPERATOR_ACTIONS.get(run.cause.value if run.cause else "")
    if action:
        checklist.set_key(f"{tag}:fix", S.PENDING, root, f"Run #{rid}: {action}", rid)
