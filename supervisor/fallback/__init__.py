"""Automatic config fallback: what to try after a failed run (DESIGN §7).

``plan_attempts`` is an async generator the arbiter drives: each yielded Attempt is launched,
its outcome written to ``attempt.result``, and the generator decides what comes next.

- ``isolate``  (``isolate.py``): the profile's own changes against its parent; culprits named,
  then the best working combination (parent + good changes, else the parent alone).
- ``remedies`` (``remedies.py``): known fixes for the failed run's cause, cumulative.
- ``chain``    (``chain.py``): other profiles in order; also runs after isolate/remedies fail.

``max_attempts`` counts every launch of the request, the first included; ``time_budget`` is
seconds since the request started. Every decision becomes a checklist item with evidence.
"""

from __future__ import annotations

import re
import time
from collections.abc import AsyncIterator, Sequence
from dataclasses import dataclass
from typing import Any, Protocol

from ..profiles import Change, ProfileError, ProfileSet, ResolvedProfile
from ..states import ChecklistStatus as S
from .chain import chain_profiles
from .isolate import Isolation, isolate_steps, partial_result
from .remedies import NOT_A_CHANGE, UNFIXABLE, failure_kind, merge_extras, next_remedy


# What the fallback needs of the daemon: narrow on purpose. The fallback reads the profiles,
# the run that is current and writes checklist items; it never reaches into the arbiter.
class Run(Protocol):
    id: int
    profile: ResolvedProfile
    evidence: list[str]
    status: Any
    phase: Any
    cause: Any


class Checklist(Protocol):
    def set_key(self, key: str, status: S, evidence: list[str] | None = None,
                title: str | None = None, run_id: int | None = None) -> Any: ...


class Host(Protocol):
    profiles: ProfileSet
    checklist: Checklist

    @property
    def current(self) -> Run | None: ...


class Request(Protocol):
    id: int
    started: float
    notes: list[str]
    culprits: list[str]


@dataclass
class Attempt:
    profile: ResolvedProfile
    reason: str
    result: bool | None = None


async def plan_attempts(arbiter: Host, req: Request, first: ResolvedProfile,
                        failed_run: Run) -> AsyncIterator[Attempt]:
    spec = first.fallback
    if spec.strategy == "none" or spec.max_attempts <= 1:
        return
    plan = _Plan(arbiter, req, first, failed_run)
    plan.item("start", S.IN_PROGRESS,
              [f"requested profile {first.name!r} failed: {_describe(failed_run)}",
               f"strategy {spec.strategy}, at most {spec.max_attempts} attempts"
               + (f", {spec.time_budget:g} s" if spec.time_budget else "")
               + (f", then chain {list(spec.chain)}" if spec.chain and
                  spec.strategy != "chain" else "")],
              f"Fallback for {first.name} (strategy {spec.strategy})")
    if spec.strategy == "isolate":
        async for attempt in plan.isolate():
            yield attempt
    elif spec.strategy == "remedies":
        async for attempt in plan.remedies():
            yield attempt
    if not plan.ok:
        async for attempt in plan.chain():
            yield attempt
    plan.finish()


class _Plan:
    def __init__(self, arbiter: Host, req: Request, first: ResolvedProfile,
                 failed_run: Run) -> None:
        self.arbiter = arbiter
        self.req = req
        self.first = first
        self.spec = first.fallback
        self.failed_run = failed_run
        self.used = 1                   # the first launch was an attempt
        self.ok = False                 # something is serving
        self.exhausted_note: str | None = None
        self.n_items = 0

    # -- budget ---------------------------------------------------------------------------
    def left(self) -> int:
        """Launches still allowed (0 once the attempts or the time budget are spent)."""
        left = self.spec.max_attempts - self.used
        budget = self.spec.time_budget
        if budget is not None and time.time() - self.req.started >= budget:
            if left > 0 and self.exhausted_note is None:
                self.exhausted_note = (f"time budget of {budget:g} s spent after "
                                       f"{self.used} attempt(s)")
                self.req.notes.append(self.exhausted_note)
            return 0
        if left <= 0 and self.exhausted_note is None:
            self.exhausted_note = f"max_attempts ({self.spec.max_attempts}) reached"
            self.req.notes.append(self.exhausted_note)
        return max(left, 0)

    # -- checklist ------------------------------------------------------------------------
    def item(self, key: str, status: S, evidence: list[str], title: str | None = None,
             run_id: int | None = None) -> None:
        self.arbiter.checklist.set_key(f"req{self.req.id}:{key}", status, evidence,
                                       title=title, run_id=run_id)

    async def launch(self, key: str, title: str, profile: ResolvedProfile,
                     reason: str) -> AsyncIterator[Attempt]:
        """Yield one attempt, with its checklist item in progress, then done/failed."""
        self.used += 1
        changes = "+".join(profile.changes) or "no changes"
        self.item(key, S.IN_PROGRESS, [f"launching {profile.name} [{changes}] "
                                       f"(hash {profile.hash}): {reason}"], title)
        attempt = Attempt(profile, reason)
        yield attempt
        run = self.arbiter.current
        evidence = [f"{profile.name} [{changes}]: {_describe(run)}"]
        if run is not None and not attempt.result:
            evidence += list(run.evidence or [])[:2]
        self.item(key, S.DONE if attempt.result else S.FAILED, evidence, title,
                  run.id if run is not None else None)

    def finish(self) -> None:
        if self.ok:
            run = self.arbiter.current
            self.item("start", S.DONE, [f"serving {run.profile.name} "
                                        f"[{'+'.join(run.profile.changes) or 'no changes'}] "
                                        f"(run #{run.id}) after {self.used} attempt(s)"]
                      if run is not None else [])
            return
        why = self.exhausted_note or "nothing left to try"
        self.req.notes.append(f"fallback gave up: {why}")
        self.item("start", S.FAILED, [f"no attempt became ready: {why}",
                                      f"{self.used} attempt(s) made"])

    # -- isolate --------------------------------------------------------------------------
    async def isolate(self) -> AsyncIterator[Attempt]:
        first, req = self.first, self.req
        names = [c.name for c in first.own_changes if c.name in first.changes]
        kind = failure_kind(*_cause_phase_status(self.failed_run))
        if not names:
            req.notes.append(f"{first.name} has no changes of its own to isolate")
            self.item("isolate:verdict", S.SKIPPED, ["the profile has no [[changes]]"],
                      "Isolate the culprit change(s)")
            return
        if kind in NOT_A_CHANGE:
            req.notes.append(f"cause {kind} is not caused by a config change; not isolating")
            self.item("isolate:verdict", S.SKIPPED, [f"cause {kind}: the environment, not the"
                                                     " config, is at fault"],
                      "Isolate the culprit change(s)")
            return
        names = suspects_first(names, first.own_changes, kind)
        if names and _touches_collectives(_change(first.own_changes, names[0])) and \
                kind in COLLECTIVE_KINDS:
            req.notes.append(f"{kind}: changes that touch all-reduce/NCCL are tried first")
        steps = isolate_steps(names)
        known: dict[frozenset[str], bool] = {frozenset(names): True}
        log = [f"{'+'.join(names)} (requested): failed, {_describe(self.failed_run)}"]
        last: tuple[tuple[str, ...], bool] | None = None
        result: Isolation | None = None
        try:
            subset = next(steps)
            while True:
                if self.left() < 2:           # keep one launch to run the best combination
                    steps.close()
                    break
                label = "+".join(subset) or "parent"
                profile = self._resolve(changes=list(subset))
                if profile is None:
                    steps.close()
                    break
                attempt: Attempt | None = None
                async for attempt in self.launch(
                        f"isolate:{label}", f"Isolate: {first.name} parent + {label}",
                        profile, f"isolate: parent + {label}"):
                    yield attempt
                ok = bool(attempt and attempt.result)
                known[frozenset(subset)] = not ok
                last = (tuple(subset), ok)
                log.append(f"{label}: {'ready' if ok else 'failed'}, "
                           f"{_describe(self.arbiter.current)}")
                subset = steps.send(not ok)
        except StopIteration as stop:
            result = stop.value
        if result is None:
            result = partial_result(known, names)
            req.notes.append("isolation stopped before a verdict (attempt/time budget)")
        req.culprits[:] = result.culprits
        verdict = (f"culprit change(s): {', '.join(result.culprits)}" if result.culprits
                   else "no culprit named")
        if not result.complete:
            verdict = "incomplete; suspects so far: " + (", ".join(result.culprits) or "none")
        good = result.good
        self.item("isolate:verdict", S.DONE if result.complete else S.FAILED,
                  [verdict, f"best working combination: parent + "
                            f"{'+'.join(good) or 'nothing'}", *log],
                  f"Verdict: {verdict}")
        req.notes.append(f"isolate verdict: {verdict}")
        if last is not None and last[1] and set(last[0]) == set(good):
            self.ok = True                    # the last test is the best combination, serving
            self.item("isolate:serve", S.DONE, [
                f"parent + {'+'.join(good) or 'nothing'} is ready and stays (run "
                f"#{self.arbiter.current.id if self.arbiter.current else '?'})"],
                f"Serve {first.name} without the culprit(s)")
            return
        candidates = [good] + ([[]] if good else [])
        for subset in candidates:
            if known.get(frozenset(subset)) is True:
                continue
            if self.left() < 1:
                return
            profile = self._resolve(changes=subset)
            if profile is None:
                return
            label = "+".join(subset) or "nothing"
            attempt = None
            async for attempt in self.launch(
                    f"isolate:serve:{label}", f"Serve {first.name}: parent + {label}",
                    profile, f"best working combination: parent + {label}"):
                yield attempt
            if attempt is not None and attempt.result:
                self.ok = True
                return

    # -- remedies -------------------------------------------------------------------------
    async def remedies(self) -> AsyncIterator[Attempt]:
        first, req = self.first, self.req
        allowed = list(self.spec.remedies)
        if not allowed:
            req.notes.append("no remedies listed in [fallback] remedies")
            self.item("remedies", S.SKIPPED, ["[fallback] remedies is empty"], "Remedies")
            return
        extras: tuple[Change, ...] = ()
        applied: list[str] = []
        profile = first
        run: Any = self.failed_run
        step = 0
        while True:
            cause, phase, status = _cause_phase_status(run)
            kind = failure_kind(cause, phase, status)
            if kind in UNFIXABLE:
                req.notes.append(f"cause {kind} is not fixable by flags; no remedy tried")
                self.item("remedies", S.SKIPPED, [f"cause {kind}: environment problem"],
                          "Remedies")
                return
            pick = next_remedy(allowed, applied, profile, cause, phase, status,
                               getattr(run, "evidence", ()))
            if pick is None:
                msg = (f"no {'further ' if applied else ''}remedy in {allowed} fits cause "
                       f"{kind} (phase {phase})")
                req.notes.append(msg)
                self.item("remedies", S.SKIPPED if not applied else S.FAILED, [msg],
                          "Remedies")
                return
            if self.left() < 1:
                return
            name, change = pick
            extras = merge_extras(extras, change)
            try:
                profile = self.arbiter.profiles.resolve(first.name, extra=extras)
            except ProfileError as exc:
                req.notes.append(f"remedy {name} could not be applied: {exc}")
                return
            applied.append(name)
            step += 1
            what = ", ".join([*(f"--{k}={v}" for k, v in change.args),
                              *(f"{k}={v}" for k, v in change.env)])
            attempt = None
            async for attempt in self.launch(
                    f"remedy:{step}:{name}", f"Remedy {step}: {name} ({what}) for {kind}",
                    profile, f"remedy {name} (cause {kind})"):
                yield attempt
            if attempt is not None and attempt.result:
                self.ok = True
                req.notes.append(f"remedies {'+'.join(dict.fromkeys(applied))} made "
                                 f"{first.name} ready")
                return
            run = self.arbiter.current

    # -- chain ----------------------------------------------------------------------------
    async def chain(self) -> AsyncIterator[Attempt]:
        for name, profile in chain_profiles(self.arbiter.profiles, self.spec.chain,
                                            self.req.notes):
            if self.left() < 1:
                return
            attempt = None
            async for attempt in self.launch(f"chain:{name}", f"Fallback chain: {name}",
                                             profile, f"fallback chain: {name}"):
                yield attempt
            if attempt is not None and attempt.result:
                self.ok = True
                return

    def _resolve(self, **kw: Any) -> ResolvedProfile | None:
        try:
            return self.arbiter.profiles.resolve(self.first.name, **kw)
        except ProfileError as exc:
            self.req.notes.append(f"cannot resolve {self.first.name} {kw}: {exc}")
            return None


# Failures that point at the collectives: a hang in a collective (seen in the stacks), a hang
# in graph capture (where all-reduce fusion and custom all-reduce are captured), NCCL errors.
COLLECTIVE_KINDS = frozenset({"collective_hang", "capture_hang", "nccl_timeout", "nccl_error",
                              "custom_allreduce_error"})
_COLLECTIVE_WORDS = re.compile(
    r"all.?reduce|allgather|all.?gather|nccl|fusion|custom.?ar|p2p|comm|collective", re.I)


def suspects_first(names: list[str], changes: Sequence[Change], kind: str) -> list[str]:
    """For a collective-looking failure, the changes that touch all-reduce or NCCL are
    tested first (a stable order otherwise): with a budget of launches, the likely culprit
    is named sooner."""
    if kind not in COLLECTIVE_KINDS:
        return names
    return sorted(names, key=lambda n: not _touches_collectives(_change(changes, n)))


def _change(changes: Sequence[Change], name: str) -> Change | None:
    return next((c for c in changes if c.name == name), None)


def _touches_collectives(change: Change | None) -> bool:
    if change is None:
        return False
    words = [change.name, change.description, *(k for k, _ in change.env),
             *(str(k) for k, _ in change.args)]
    if change.patch is not None:
        words.append(change.patch.text)
    return any(_COLLECTIVE_WORDS.search(w) for w in words)


def _cause_phase_status(run: Any) -> tuple[str | None, str | None, str | None]:
    if run is None:
        return None, None, None
    cause = run.cause.value if getattr(run, "cause", None) is not None else None
    return cause, run.phase.value, run.status.value


def _describe(run: Any) -> str:
    if run is None:
        return "no run"
    cause, phase, status = _cause_phase_status(run)
    return f"run #{run.id} {status} in {phase}" + (f", cause {cause}" if cause else "")

