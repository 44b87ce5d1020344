"""The campaign (``campaign status``): the plan as a tree with the branches taken, the
experiment in progress and its phase, the results so far against the baseline, and the
Markdown report once the campaign has ended.

Campaign state changes only between experiments, so the screen asks again a moment after
each answer (by completion, not by the clock) while it is open.
"""

from __future__ import annotations

from typing import Any

from rich.console import Group
from rich.table import Table
from rich.text import Text
from rich.tree import Tree
from textual import work
from textual.app import ComposeResult
from textual.binding import Binding
from textual.containers import VerticalScroll
from textual.timer import Timer
from textual.widgets import Footer, Markdown, Static

from .. import formatting as fmt
from .base import DaemonScreen, Request

LIVE = ("running", "paused")
STATUS_STYLE = {"running": "bold yellow", "paused": "bold magenta", "completed": "bold green",
                "failed": "bold red", "timeout": "bold red", "stopped": "dim"}


def _setup(profile: Any, changes: Any) -> str:
    names = fmt.str_list(changes)
    return fmt.text(profile, "?") + (" + " + ", ".join(names) if names else "")


def _rate(bench: Any) -> str:
    tps = fmt.num(fmt.as_dict(bench).get("tokens_per_s"))
    return f"{tps:g} tok/s" if tps is not None else "no rate"


def _vs(bench: Any) -> str:
    ratio = fmt.num(fmt.as_dict(bench).get("vs_baseline"))
    return f"{ratio:.2f}× baseline" if ratio is not None else "–"


def header(state: dict[str, Any], run: dict[str, Any]) -> Text:
    """Name, status, where it is (the current experiment and its run's phase), the note."""
    out = Text()
    status = fmt.text(state.get("status"), "unknown")
    out.append(f"campaign {fmt.text(state.get('campaign'), '?')} ", "bold")
    out.append(f" {status} ", STATUS_STYLE.get(status, "bold"))
    current = state.get("current")
    if status in LIVE and current:
        out.append(f"  at {current}", "bold")
        phase = current_phase(state, run)
        if phase:
            out.append(f" · {phase}")
    note = state.get("note")
    if note:
        out.append(f"\n{note}", "dim")
    return out


def current_phase(state: dict[str, Any], run: dict[str, Any]) -> str:
    """The phase of the run now, when it is the current experiment's profile."""
    exp = next((e for e in _plan(state) if e.get("name") == state.get("current")), None)
    if state.get("current") == "baseline":
        profile = fmt.as_dict(state.get("plan")).get("baseline")
    else:
        profile = fmt.as_dict(exp).get("profile")
    if not run or not profile or run.get("profile") != profile:
        return ""
    status = fmt.text(run.get("status"), "")
    phase = fmt.PHASE_SHORT.get(str(run.get("phase")), fmt.text(run.get("phase"), ""))
    return f"run #{fmt.text(run.get('id'))} {status} in {phase}" if phase else status


def _plan(state: dict[str, Any]) -> list[dict[str, Any]]:
    plan = fmt.as_dict(state.get("plan"))
    return [fmt.as_dict(e) for e in fmt.as_list(plan.get("experiments"))]


def plan_tree(state: dict[str, Any], run: dict[str, Any]) -> Tree:
    """Baseline, then each experiment of the plan: its result, its criterion and both
    branches, the one taken marked with why."""
    results = {fmt.as_dict(r).get("name"): fmt.as_dict(r)
               for r in fmt.as_list(state.get("experiments"))}
    current = state.get("current") if state.get("status") in LIVE else None
    plan = fmt.as_dict(state.get("plan"))
    tree = Tree(Text(f"plan {fmt.text(plan.get('name') or state.get('campaign'), '?')}",
                     "bold"), guide_style="dim")
    base = fmt.as_dict(state.get("baseline"))
    label = Text("baseline ", "bold")
    label.append(_setup(plan.get("baseline") or base.get("profile"), None))
    if base:
        label.append(f"  {_rate(base.get('benchmark'))}", "green")
    elif current == "baseline":
        label.append("  ▶ measuring", "bold yellow")
    tree.add(label)
    for exp in _plan(state):
        tree.add(_experiment_node(exp, results.get(exp.get("name")), exp.get("name") == current,
                                  run, state))
    return tree


def _default_next(state: dict[str, Any], exp: dict[str, Any]) -> str:
    """Where a branch the plan leaves unset leads: the next experiment, or the end."""
    names = [e.get("name") for e in _plan(state)]
    i = names.index(exp.get("name")) if exp.get("name") in names else len(names)
    return f"{names[i + 1]} (the next in the plan)" if i + 1 < len(names) else "end"


def _experiment_node(exp: dict[str, Any], result: dict[str, Any] | None, current: bool,
                     run: dict[str, Any], state: dict[str, Any]) -> Tree:
    name = fmt.text(exp.get("name"), "?")
    label = Text()
    if result:
        ok = result.get("ok") is True
        label.append("✔ " if ok else "✘ ", "green" if ok else "bold red")
    elif current:
        label.append("▶ ", "bold yellow")
    else:
        label.append("· ", "dim")
    label.append(name, "bold")
    label.append(f"  {_setup(exp.get('profile'), exp.get('changes'))}", "cyan")
    if result:
        label.append(f"  {fmt.text(result.get('verdict'))}",
                     "green" if result.get("ok") is True else "red")
        if fmt.num(fmt.as_dict(result.get("benchmark")).get("tokens_per_s")) is not None:
            label.append(f" · {_rate(result.get('benchmark'))} · "
                         f"{_vs(result.get('benchmark'))}")
        culprits = fmt.str_list(result.get("culprits"))
        if culprits:
            label.append(" · culprit ")
            label.append(", ".join(culprits), "bold red")
    elif current:
        phase = current_phase(state, run)
        label.append("  in progress" + (f": {phase}" if phase else ""), "yellow")
    else:
        label.append("  not reached", "dim")
    node = Tree(label)
    node.add(Text(f"success: {fmt.text(exp.get('success'))}", "dim"))
    if result and result.get("ok") is not True:
        why = fmt.text(result.get("why"), "")
        if why and not why.startswith("not ready"):  # a criterion missed, not a failure
            node.add(Text(f"missed: {why}", "yellow"))
        for line in fmt.str_list(fmt.as_dict(result.get("evidence")).get("lines"))[:2]:
            node.add(Text(f"evidence: {line}", "dim"))
    taken = fmt.as_dict(fmt.as_dict(result).get("branch"))
    for key, word in (("on_failure", "on failure"), ("on_success", "on success")):
        target = exp.get(key) or _default_next(state, exp)
        line = Text(f"{word} → {target}", "dim")
        if taken.get("taken") == key:
            line = Text(f"{word} → {taken.get('next') or 'end'}", "bold")
            line.append(f"  ← taken ({fmt.text(taken.get('why'))})", "yellow")
        node.add(line)
    return node


def results_table(state: dict[str, Any]) -> Table:
    """The results so far, the baseline first: tok/s and TTFT and their ratio to it."""
    table = Table(expand=False, box=None, header_style="bold", pad_edge=False)
    for col in ("experiment", "verdict", "tok/s", "vs base", "TTFT", "culprit", "next"):
        wraps = col in ("verdict", "culprit")
        table.add_column(col, no_wrap=not wraps, overflow="fold",
                         min_width=10 if col == "verdict" else None)
    base = fmt.as_dict(state.get("baseline"))
    if base:
        bench = fmt.as_dict(base.get("benchmark"))
        verdict = fmt.as_dict(base.get("verdict")).get("status")
        table.add_row(f"baseline {fmt.text(base.get('profile'))}", fmt.text(verdict),
                      fmt.text(fmt.num(bench.get("tokens_per_s"))), "1.00×",
                      _ms(bench.get("ttft_ms")), "–", "–")
    for r in (fmt.as_dict(x) for x in fmt.as_list(state.get("experiments"))):
        bench = fmt.as_dict(r.get("benchmark"))
        ratio = fmt.num(bench.get("vs_baseline"))
        table.add_row(fmt.text(r.get("name")),
                      Text(fmt.text(r.get("verdict")), "green" if r.get("ok") is True else "red"),
                      fmt.text(fmt.num(bench.get("tokens_per_s"))),
                      f"{ratio:.2f}×" if ratio is not None else "–",
                      _ms(bench.get("ttft_ms")),
                      fmt.text(fmt.str_list(r.get("culprits"))),
                      fmt.text(fmt.as_dict(r.get("branch")).get("next"), "end"))
    return table


def _ms(value: Any) -> str:
    v = fmt.num(value)
    return f"{v:.0f} ms" if v is not None else "–"


def serving_text(state: dict[str, Any]) -> Text:
    s = fmt.as_dict(state.get("serving"))
    out = Text("serving now: ", "bold")
    if s:
        out.append(_setup(s.get("profile"), s.get("changes")), "green")
    else:
        out.append("nothing", "dim")
    finish = fmt.as_dict(state.get("finish"))
    if finish:  # the campaign chose it at its end (plan key finish = "best")
        what = f"experiment {finish['experiment']}" if finish.get("experiment") else \
            "the baseline"
        how = "launched again" if finish.get("relaunched") else "left serving"
        if finish.get("relaunched") and finish.get("ok") is False:
            out.append(f"  ({what}, the best measured, was launched again and did not come "
                       "up)", "bold red")
        else:
            out.append(f"  ({what}, the best measured, {how})", "dim")
    return out


class CampaignScreen(DaemonScreen):
    BINDINGS = [Binding("escape", "app.pop_screen", "Back"), Binding("r", "reload", "Reload")]
    DEFAULT_CSS = """
    CampaignScreen VerticalScroll { padding: 0 1; }
    CampaignScreen #campaign-head { margin-bottom: 1; }
    CampaignScreen #campaign-results { margin-top: 1; }
    CampaignScreen Markdown { display: none; margin: 1 0 0 0; }
    CampaignScreen Markdown.-shown { display: block; }
    """

    def __init__(self, request: Request, *, poll_s: float = 2.0, **state: Any) -> None:
        super().__init__(request, id="campaign", **state)
        self.poll_s = poll_s
        self.campaign_state: dict[str, Any] = {}
        self._report_shown: str | None = None
        self._poll: Timer | None = None

    def compose(self) -> ComposeResult:
        with VerticalScroll():
            yield Static("asking the daemon for the campaign…", id="campaign-head")
            yield Static("", id="campaign-plan")
            yield Static("", id="campaign-results")
            yield Markdown("", id="campaign-report")
        yield Footer()

    def on_mount(self) -> None:
        self.action_reload()

    def watch_run(self) -> None:
        if self.campaign_state and self.is_mounted:
            self.show()

    @work(exclusive=True, group="campaign", exit_on_error=False)
    async def action_reload(self) -> None:
        try:
            answer = await self.daemon_request("campaign", action="status")
            self.campaign_state = fmt.as_dict(answer)
        except Exception as exc:  # noqa: BLE001 — say why, keep what was shown
            self.query_one("#campaign-head", Static).update(
                Text(f"cannot read the campaign: {exc} (r to try again)", "bold red"))
            return
        await self.show_report()
        self.show()
        if self._poll is not None:
            self._poll.stop()
        if self.campaign_state.get("status") in LIVE:
            self._poll = self.set_timer(self.poll_s, self.action_reload)

    def show(self) -> None:
        state, run = self.campaign_state, fmt.as_dict(self.run)
        head = self.query_one("#campaign-head", Static)
        if not state.get("campaign"):
            head.update(Text("no campaign has run on this node — start one with "
                             "supervisor-ctl campaign run NAME", "dim"))
            return
        head.update(header(state, run))
        self.query_one("#campaign-plan", Static).update(plan_tree(state, run))
        self.query_one("#campaign-results", Static).update(
            Group(Text("results so far", "bold underline"), results_table(state),
                  serving_text(state)))

    async def show_report(self) -> None:
        report = self.campaign_state.get("report")
        md = self.query_one(Markdown)
        done = self.campaign_state.get("status") not in LIVE and isinstance(report, str) and report
        md.set_class(bool(done), "-shown")
        if done and report != self._report_shown:
            self._report_shown = report
            await md.update(report)
