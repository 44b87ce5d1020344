"""Campaigns: a plan of experiments (campaign_plan.py) run unattended by the daemon.

The baseline is launched and measured first; then each experiment is a switch to its profile
(with the changes it names), so the profile's own fallback (isolation, chain) deals with a
failed experiment as with any switch. Once its request settles and its benchmark is in, the
experiment is judged against its success criterion and the plan's branch picks what comes next.

State lives in the store's meta table (SQLite) after every step: a daemon killed mid-way resumes
at the experiment in progress. An operator's switch replaces the campaign's request: the
campaign pauses and says so; ``campaign run NAME`` resumes it. Every ending writes one report,
Markdown and JSON (campaign_report.py), into ``STATE/campaigns/``.

The baseline is a reference only while it still stands for the machine: before an experiment
it is re-measured when older than the plan's ``baseline_max_age``, and after one when the
experiment ran under other GPU conditions (throttle reasons, SM clocks); a re-measure whose
mean moved beyond the noise is flagged as drift. Rows compare means with their spread, and a
difference within the noise is said to be so rather than read as a winner.
"""

from __future__ import annotations

import logging
import math
import time
from pathlib import Path
from typing import Any

import anyio

from .benchmark import conditions_differ, noise, rate_of
from .campaign_launch import Launcher, Preempted, choose
from .campaign_plan import Experiment, Plan, PlanError, load_plan
from .campaign_report import write_report
from .runtime.arbiter import Arbiter, ArbiterError

log = logging.getLogger(__name__)

META = "campaign"
ACTIVE = ("running",)
ENDED = ("completed", "failed", "timeout", "stopped")


class CampaignError(Exception):
    def __init__(self, code: str, message: str) -> None:
        super().__init__(message)
        self.code = code
        self.message = message


class Campaigns:
    """The daemon's one campaign at a time: started, resumed, paused, stopped, reported."""

    def __init__(self, arbiter: Arbiter, cluster: Any = None) -> None:
        self.arbiter = arbiter
        self.cluster = cluster   # the etcd ClusterService: group profiles launch through it
        self.store = arbiter.store
        self.hub = arbiter.hub
        self.reports_dir = arbiter.config.state_dir / "campaigns"
        self.state: dict[str, Any] | None = arbiter.store.get_meta(META)
        self._tg: Any = None
        self._scope: anyio.CancelScope | None = None
        self._launchers: dict[str, Launcher] = {}
        self._last: Launcher | None = None   # the launcher of the latest step in this drive
        self.finished = anyio.Event()

    # -- service ------------------------------------------------------------------------------
    async def serve(self, *, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
        async with anyio.create_task_group() as tg:
            self._tg = tg
            task_status.started()
            if self.state is not None and self.state.get("status") in ACTIVE:
                self._note("resumed after a daemon restart at "
                           f"{self.state.get('current') or 'its end'}")
                tg.start_soon(self._drive)
            await anyio.sleep_forever()

    # -- commands -----------------------------------------------------------------------------
    def run(self, name: str) -> dict[str, Any]:
        """Start ``name``, or resume it when it is the paused one."""
        if self._tg is None:
            raise CampaignError("unavailable", "the campaign service is not running yet")
        state = self.state
        if state is not None and state["status"] == "running":
            raise CampaignError("conflict", f"campaign {state['campaign']} is running "
                                            f"(supervisor-ctl campaign stop, first)")
        try:
            plan = load_plan(self.arbiter.config.profiles_dir, name, self.arbiter.profiles)
        except PlanError as exc:
            raise CampaignError("bad_request", str(exc)) from None
        if state is not None and state["status"] == "paused" and state["campaign"] == name:
            state["status"] = "running"
            self._note(f"resumed by request at {state['current'] or 'its end'}")
        else:
            self.state = state = new_state(plan, self._next_id())
        self.finished = anyio.Event()
        self._save()
        self._tg.start_soon(self._drive)
        return self.view()

    async def stop(self) -> dict[str, Any]:
        state = self.state
        if state is None or state["status"] not in ("running", "paused"):
            raise CampaignError("conflict", "no campaign is running or paused")
        if state["status"] == "paused":
            self._finish("stopped", "stopped by request while paused")
        elif self._scope is not None:
            self._scope.cancel()
            with anyio.fail_after(30):
                await self.finished.wait()
        return self.view()

    def view(self) -> dict[str, Any]:
        """The JSON of DESIGN §13: {campaign, status, baseline, experiments, serving, report}
        and the rest of the state (current, note, plan, files...)."""
        if self.state is None:
            return {"campaign": None, "status": "none", "baseline": None, "experiments": [],
                    "serving": None, "report": None}
        return dict(self.state)

    # -- driving ------------------------------------------------------------------------------
    async def _drive(self) -> None:
        state = self.state
        assert state is not None
        self._last = None
        with anyio.CancelScope() as scope:
            self._scope = scope
            try:
                plan = load_plan(self.arbiter.config.profiles_dir, state["campaign"],
                                 self.arbiter.profiles)
                left = state["deadline"] - time.time()
                if left <= 0:
                    raise TimeoutError
                with anyio.fail_after(left):
                    await self._steps(plan, state)
            except PlanError as exc:
                self._finish("failed", f"the plan cannot be run any more: {exc}")
            except Preempted as exc:
                self._pause(f"paused: {exc} replaced the campaign's request; supervisor-ctl "
                            f"campaign run {state['campaign']} resumes it at "
                            f"{state.get('current')}")
            except TimeoutError:
                self._finish("timeout", f"the time budget ({state['plan']['time_budget']:g} s) "
                                        f"ran out during {state.get('current') or 'the end'}")
            except ArbiterError as exc:
                self._finish("failed", f"{state.get('current')}: {exc.message}")
        if scope.cancelled_caught and state["status"] == "running":
            self._finish("stopped", "stopped by request")
        self._scope = None
        self.finished.set()

    async def _steps(self, plan: Plan, state: dict[str, Any]) -> None:
        if state["baseline"] is None:
            await self._baseline(plan, state)
            if state["status"] != "running":
                return
        while state["current"] is not None:
            exp = plan.by_name.get(state["current"])
            if exp is None:
                raise PlanError(f"the plan has no experiment {state['current']!r} any more")
            await self._fresh_baseline(plan, state)
            outcome = await self._experiment(plan, exp)
            other = conditions_differ(state["baseline"]["benchmark"], outcome["benchmark"])
            if other:
                await self._remeasure(plan, state, f"{exp.name} ran under other GPU "
                                                   f"conditions: {other}")
            result = judge(exp, outcome, state["baseline"])
            nxt, why = plan.next_after(exp, result["ok"])
            if nxt is not None and any(r["name"] == nxt for r in state["experiments"]):
                nxt, why = None, f"{why}, which was already tried"
            result["branch"] = {"taken": "on_success" if result["ok"] else "on_failure",
                                "next": nxt, "why": why}
            state["experiments"].append(result)
            state["current"] = nxt
            state["serving"] = self._serving()
            self._note(f"{exp.name}: {result['verdict']}; next: {nxt or 'end'} ({why})")
            stops = why in ("on_failure = stop", "stop = first_failure")
            if nxt is None and not result["ok"] and stops:
                self._finish("failed", f"stopped on failure: {exp.name} ({result['why']})")
                return
        if plan.finish == "best":
            await self._serve_best(plan, state)
        self._finish("completed", "the plan has run to its end")

    async def _serve_best(self, plan: Plan, state: dict[str, Any]) -> None:
        """End on the best measured configuration, not on whatever ran last: an experiment
        that missed its criterion (or fell back) is not what a campaign should leave."""
        name, profile, changes, run_id = best_step(plan, state)
        serving = state.get("serving") or {}
        label = "the baseline" if name is None else f"experiment {name}"
        if serving.get("run_id") is not None and serving.get("run_id") == run_id:
            state["finish"] = {"experiment": name, "run_id": run_id, "relaunched": False}
            self._note(f"left serving {label} (run #{run_id}), the best measured")
            return
        self._note(f"relaunching {label} ({profile}), the best measured: what ran last "
                   f"(run #{serving.get('run_id')}) is not it")
        # (measured already: its benchmark is not run again on the server left serving)
        outcome = await self._launch(profile, changes, f"campaign {plan.name}: serving the "
                                                       f"best, {label}", benchmark=False)
        state["finish"] = {"experiment": name, "run_id": outcome["run_id"], "relaunched": True,
                           "ok": outcome["ok"]}
        state["serving"] = self._serving()
        if not outcome["ok"]:
            self._note(f"{label} did not come up again: {_verdict_text(outcome)}")

    async def _experiment(self, plan: Plan, exp: Experiment) -> dict[str, Any]:
        with anyio.move_on_after(exp.timeout if exp.timeout is not None else math.inf) as scope:
            return await self._launch(exp.profile, exp.changes,
                                      f"campaign {plan.name}: {exp.name}")
        assert scope.cancelled_caught and exp.timeout is not None and self._last is not None
        outcome = {**self._last.timed_out(exp.timeout), "changes": list(exp.changes or ())}
        self._record(outcome)
        return outcome

    async def _baseline(self, plan: Plan, state: dict[str, Any]) -> None:
        outcome = await self._launch(plan.baseline, None, f"campaign {plan.name}: baseline")
        bench = outcome["benchmark"] or {}
        state["baseline"] = baseline_entry(plan, outcome)
        state["current"] = plan.experiments[0].name
        if not outcome["ok"] or bench.get("tokens_per_s") is None:
            why = ("it did not become ready" if not outcome["ok"] else
                   f"it has no benchmark rate ({_why_no_rate(bench)})")
            self._finish("failed", f"the baseline {plan.baseline} cannot be the reference: "
                                   f"{why}")
            return
        self._note(f"baseline {plan.baseline} measured: {_measured(bench)}")

    async def _fresh_baseline(self, plan: Plan, state: dict[str, Any]) -> None:
        age = time.time() - float(state["baseline"].get("measured_at") or 0)
        if age > plan.baseline_max_age:
            await self._remeasure(plan, state, f"it was {age:.0f} s old (baseline_max_age = "
                                               f"{plan.baseline_max_age:g} s)")

    async def _remeasure(self, plan: Plan, state: dict[str, Any], why: str) -> None:
        """Measure the baseline again; flag drift when its mean moved beyond the noise. A
        re-measure that fails keeps the earlier baseline, and says so."""
        old = state["baseline"]
        self._note(f"re-measuring the baseline: {why}")
        outcome = await self._launch(plan.baseline, None,
                                     f"campaign {plan.name}: baseline re-measured")
        bench = outcome["benchmark"] or {}
        if not outcome["ok"] or rate_of(bench) is None:
            failed = _why_no_rate(bench) if outcome["ok"] else "it did not become ready"
            self._note(f"the baseline could not be re-measured ({failed}); comparisons keep "
                       f"the one of run #{old.get('run_id')}")
            return
        entry = baseline_entry(plan, outcome)
        entry["remeasured"] = why
        entry["drift"] = drift(old.get("benchmark") or {}, bench)
        entry["previous"] = [*old.get("previous", []), _summary(old)]
        state["baseline"] = entry
        self._note(f"baseline re-measured: {_measured(bench)}, was "
                   f"{_measured(old.get('benchmark') or {})}: {entry['drift']['text']}")

    async def _launch(self, profile: str, changes: tuple[str, ...] | None, reason: str,
                      benchmark: bool = True) -> dict[str, Any]:
        """Launch one step with the launcher its profile needs (this node, or every rank of
        a launch group), wait until it settles and its benchmark is in."""
        if self._last is not None:  # an operator may have switched between two steps
            self._last.check()
        launcher = self._last = choose(self.arbiter, self.cluster, profile, self._launchers)
        outcome = await launcher.launch(profile, changes, reason, benchmark)
        self._record(outcome)
        return outcome

    def _record(self, outcome: dict[str, Any]) -> None:
        assert self.state is not None
        if outcome.get("request") is not None:
            self.state.setdefault("requests", []).append(outcome["request"])
        if outcome.get("group"):
            self.state.setdefault("group_attempts", []).append(
                {"group": outcome["group"]["group"], "attempt": outcome["group"]["attempt"]})
        self._save()

    def _serving(self) -> dict[str, Any] | None:
        if self._last is not None:
            return self._last.serving()
        serving: dict[str, Any] | None = self.arbiter.fallback_view()["serving"]
        return serving

    # -- state ----------------------------------------------------------------------------------
    def _next_id(self) -> int:
        n = int(self.store.get_meta("last_campaign_id", 0)) + 1
        self.store.set_meta("last_campaign_id", n)
        return n

    def _save(self) -> None:
        if self.state is not None:
            self.store.set_meta(META, self.state)
            self.hub.publish("daemon", {"campaign": {
                k: self.state.get(k) for k in ("id", "campaign", "status", "current", "note")}})

    def _note(self, text: str) -> None:
        if self.state is not None:
            self.state["note"] = text
            self.state.setdefault("log", []).append(f"{_clock()} {text}")
            self.store.add_event("campaign", {"campaign": self.state["campaign"], "note": text})
            self._save()

    def _pause(self, why: str) -> None:
        assert self.state is not None
        self.state["status"] = "paused"
        self._note(why)

    def _finish(self, status: str, why: str) -> None:
        state = self.state
        assert state is not None
        state["status"] = status
        state["ended"] = time.time()
        state["serving"] = self._serving()
        self._note(why)
        try:
            md, js, text = write_report(state, self.reports_dir)
            state["report"] = text
            state["files"] = {"markdown": str(md), "json": str(js)}
            self._save()
            js.write_text(_json(self.view()))
        except Exception as exc:   # a report that cannot be written must not end the daemon
            log.exception("campaign report")
            state["report"] = (f"the report could not be written to {self.reports_dir}: "
                               f"{type(exc).__name__}: {exc} (the daemon's log has the trace)")
            self._save()


def new_state(plan: Plan, campaign_id: int) -> dict[str, Any]:
    now = time.time()
    return {"id": campaign_id, "campaign": plan.name, "status": "running", "started": now,
            "ended": None, "deadline": now + plan.time_budget, "plan": plan.to_dict(),
            "baseline": None, "current": "baseline", "experiments": [],
            "serving": None, "report": None, "files": None, "note": "started", "log": []}


def judge(exp: Experiment, outcome: dict[str, Any], baseline: dict[str, Any]) -> dict[str, Any]:
    """An experiment's result row: its verdict, the numbers against the baseline, and whether
    it met its success criterion (and why not)."""
    bench = outcome["benchmark"] or {}
    base = baseline.get("benchmark") or {}
    tps, ttft = bench.get("tokens_per_s"), bench.get("ttft_ms")
    base_tps, base_ttft = base.get("tokens_per_s"), base.get("ttft_ms")
    speedup = round(tps / base_tps, 3) if tps and base_tps else None
    verdict_info = outcome["verdict"] or {}
    if outcome["ok"]:
        verdict = "ready"
    else:
        verdict = (f"{verdict_info.get('status', 'failed')} in {verdict_info.get('phase')}"
                   + (f" ({verdict_info['cause']})" if verdict_info.get("cause") else "")
                   + _on_rank(verdict_info))
    gap = noise(bench, base)
    why = exp.criterion()
    ok = outcome["ok"]
    if not ok:
        why = f"not ready: {verdict}"
    elif exp.min_speedup is not None and (speedup is None or speedup < exp.min_speedup):
        ok, why = False, (f"{tps} tok/s is {speedup}x the baseline, below {exp.min_speedup:g}x"
                          if speedup is not None else "no benchmark rate to compare")
    elif exp.max_ttft_ms is not None and (ttft is None or ttft > exp.max_ttft_ms):
        ok, why = False, f"TTFT {ttft} ms above {exp.max_ttft_ms:g} ms"
    if outcome["ok"] and speedup is not None and gap["within_noise"]:
        why += "; the difference from the baseline is within the noise: no winner"
    return {"name": exp.name, "profile": exp.profile, "changes": outcome["changes"],
            "verdict": verdict, "ok": ok, "why": why, "culprits": outcome["culprits"],
            "benchmark": {"tokens_per_s": tps, "ttft_ms": ttft, "vs_baseline": speedup,
                          "ttft_vs_baseline": round(ttft / base_ttft, 3)
                          if ttft and base_ttft else None,
                          "samples": len(bench.get("samples") or ()) if tps is not None else 0,
                          "spread": (bench.get("spread") or {}).get("tokens_per_s"),
                          "within_noise": gap["within_noise"] if speedup is not None else None,
                          "noise": gap["noise"] if speedup is not None else None,
                          "gpu": bench.get("gpu"), "baseline_run": baseline.get("run_id")},
            "run_id": outcome["run_id"], "request": outcome["request"],
            "evidence": {"log": outcome["log"],
                         "lines": list((verdict_info.get("evidence") or [])[:3])},
            "attempts": outcome["attempts"], "notes": outcome["notes"],
            "criterion": exp.criterion(), **_group_of(outcome)}


def _on_rank(verdict: dict[str, Any]) -> str:
    """A group's verdict names its root rank: ' on rank 2 (gpu-c)'."""
    if verdict.get("rank") is None:
        return ""
    return f" on rank {verdict['rank']} ({verdict.get('node')})"


def _group_of(outcome: dict[str, Any]) -> dict[str, Any]:
    """A group step's record: {group: {group, attempt, status, ranks, verdict}} (the verdict
    with its root rank, cause and consequences); nothing for a step on this node alone."""
    return {"group": outcome["group"]} if outcome.get("group") else {}


def best_step(plan: Plan, state: dict[str, Any],
              ) -> tuple[str | None, str, tuple[str, ...] | None, int | None]:
    """(experiment name or None for the baseline, profile, changes, run id) of the best
    measured step: the passing experiment with the highest rate, else the baseline."""
    passed = [e for e in state["experiments"]
              if e["ok"] and (e["benchmark"] or {}).get("tokens_per_s") is not None]
    if not passed:
        return None, plan.baseline, None, state["baseline"].get("run_id")
    best = max(passed, key=lambda e: e["benchmark"]["tokens_per_s"])
    return best["name"], best["profile"], tuple(best["changes"] or ()), best["run_id"]


def _verdict_text(outcome: dict[str, Any]) -> str:
    v = outcome.get("verdict") or {}
    return f"{v.get('status', 'failed')} in {v.get('phase')} ({v.get('cause') or 'no cause'})"


def baseline_entry(plan: Plan, outcome: dict[str, Any]) -> dict[str, Any]:
    bench = outcome["benchmark"] or {}
    return {"profile": plan.baseline, "run_id": outcome["run_id"], "verdict": outcome["verdict"],
            "benchmark": bench, "measured_at": time.time(),
            "samples": len(bench.get("samples") or ()) if bench.get("tokens_per_s") else 0,
            **_group_of(outcome)}


def drift(old: dict[str, Any], new: dict[str, Any]) -> dict[str, Any]:
    """Whether the baseline moved beyond its spread between two measures."""
    gap = noise(old, new)
    if gap["within_noise"] is None:
        return {"drifted": None, "text": f"drift unknown: {gap['noise']}"}
    if gap["within_noise"]:
        return {"drifted": False, "text": f"no drift ({gap['noise']})"}
    return {"drifted": True, "text": f"DRIFT: {old.get('tokens_per_s')} -> "
                                     f"{new.get('tokens_per_s')} tok/s, {gap['noise']}"}


def _summary(entry: dict[str, Any]) -> dict[str, Any]:
    bench = entry.get("benchmark") or {}
    return {"run_id": entry.get("run_id"), "measured_at": entry.get("measured_at"),
            "tokens_per_s": bench.get("tokens_per_s"),
            "spread": (bench.get("spread") or {}).get("tokens_per_s"), "gpu": bench.get("gpu")}


def _measured(bench: dict[str, Any]) -> str:
    """'82.01 +/- 0.13 tok/s (3 samples)': a rate with its spread, in a note."""
    spread = (bench.get("spread") or {}).get("tokens_per_s") or {}
    sd = f" +/- {spread['stdev']:g}" if spread.get("stdev") is not None else ""
    n = spread.get("n") or 1
    return f"{bench.get('tokens_per_s')}{sd} tok/s ({n} sample{'s' if n != 1 else ''})"


def _why_no_rate(bench: dict[str, Any]) -> str:
    if not bench:
        return "its profile has no [benchmark], or none came"
    return str(bench.get("error") or bench.get("note") or "the benchmark gave no rate")


def _clock() -> str:
    return time.strftime("%H:%M:%S")


def _json(obj: Any) -> str:
    import json

    return json.dumps(obj, indent=1, default=str)


def reports_dir(state_dir: Path) -> Path:
    return state_dir / "campaigns"
