"""The MCP server's tools: their schemas, descriptions for a model, and what each asks the daemon.

Nothing here knows the MCP SDK: a tool answers an ``Answer`` (text for the model, the daemon's
JSON beside it) or raises ``ToolError`` with supervisor-ctl's words. The text is what
supervisor-ctl prints where ctl_format renders it, else the JSON itself.
"""

from __future__ import annotations

import functools
import json
import re
import time
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, replace
from typing import Any

import anyio

from ..protocol.client import ConnectionLost, DaemonClient, DaemonError
from .ctl_campaign import format_campaign
from .ctl_format import (
    EventStory,
    format_history,
    format_profiles,
    format_status,
    format_wait,
    gpu_line,
    text,
)
from .mcp_link import DaemonLink, ToolError

SWITCH_TIMEOUT_S = 600  # an agent's default wait: longer than any profile's startup budget
# a daemon that answers nothing at all is not waited for past the requested timeout by this
ANSWER_GRACE_S = 30
LOG_SCAN_LINES = 5000
PROGRESS_TOPICS = ["run", "verdict", "fallback"]
CAMPAIGN_TIMEOUT_S = 3600  # a plan's default time budget
CAMPAIGN_TOPICS = [*PROGRESS_TOPICS, "daemon"]   # the campaign's steps come as daemon events


@dataclass(frozen=True)
class Answer:
    text: str
    data: dict[str, Any]


@dataclass
class Call:
    """What a tool is given besides its arguments."""
    link: DaemonLink
    progress: Callable[[str], Awaitable[None]]


Handler = Callable[[Call, dict[str, Any]], Awaitable[Answer]]


@dataclass(frozen=True)
class Tool:
    name: str
    title: str
    description: str
    schema: dict[str, Any]
    handler: Handler
    mutating: bool = False  # offered only to a peer the daemon lets change its state
    read_only: bool = True  # changes nothing (the MCP annotation)


def _schema(props: dict[str, Any] | None = None, required: tuple[str, ...] = ()) -> dict[str, Any]:
    return {"type": "object", "properties": props or {}, "required": list(required),
            "additionalProperties": False}


def _json(data: Any) -> str:
    return json.dumps(data, indent=1, default=str)


# -- handlers -----------------------------------------------------------------------------------
async def _status(call: Call, args: dict[str, Any]) -> Answer:
    res = await call.link.request("status")
    return Answer(format_status(res), res)


async def _profiles(call: Call, args: dict[str, Any]) -> Answer:
    res = await call.link.request("profiles")
    return Answer(format_profiles(res), res)


async def _show_profile(call: Call, args: dict[str, Any]) -> Answer:
    res = await call.link.request("show", profile=args["profile"])
    return Answer(_json(res), res)


async def _switch(call: Call, args: dict[str, Any]) -> Answer:
    profile = args["profile"]
    # (sent only when false: a daemon of an older release knows no such argument)
    extra = {} if args.get("benchmark", True) else {"benchmark": False}
    if not args.get("wait", True):
        res = await call.link.request("switch", profile=profile, **extra)
        run = f" (run {res['run_id']})" if res.get("run_id") is not None else ""
        return Answer(_warned(f"started {res['profile']}{run}", res), res)
    timeout = args.get("timeout", SWITCH_TIMEOUT_S)
    async with call.link.connect() as client:
        await client.request("subscribe", topics=PROGRESS_TOPICS)
        res = await _settled(client, call, profile, timeout, extra)
    return Answer(_warned(format_wait(res), res), res)


async def _settled(client: DaemonClient, call: Call, profile: str, timeout: float,
                   extra: dict[str, Any]) -> dict[str, Any]:
    """switch --wait, reporting each phase change, verdict and fallback step meanwhile."""
    outcome: list[Any] = []
    async with anyio.create_task_group() as tg:
        tg.start_soon(_follow, client, call)
        try:
            with anyio.fail_after(timeout + ANSWER_GRACE_S):
                outcome.append(await client.request("switch", profile=profile, wait=True,
                                                    timeout=timeout, **extra))
        except (DaemonError, ConnectionLost, TimeoutError) as exc:
            outcome.append(exc)  # out of the task group as itself, not in an ExceptionGroup
        tg.cancel_scope.cancel()
    result = outcome[0]
    if isinstance(result, DaemonError) and result.code == "timeout":
        raise ToolError(f"{result.code}: {result.message}; the launch goes on: call status "
                        "to follow it (history records how it ends)")
    if isinstance(result, TimeoutError):
        raise ToolError(f"the daemon at {call.link.path} did not answer switch within "
                        f"{timeout + ANSWER_GRACE_S:g} s; call status to see where it stands")
    if isinstance(result, Exception):
        raise result
    return dict(result)


async def _follow(client: DaemonClient, call: Call) -> None:
    story = EventStory()
    async for event in client.events():
        for line in story.lines(event):
            await call.progress(line)


def _warned(body: str, res: dict[str, Any]) -> str:
    return f"warning: {res['warning']}\n{body}" if res.get("warning") else body


async def _stop(call: Call, args: dict[str, Any]) -> Answer:
    res = await call.link.request("stop")
    said = ("nothing was running" if res.get("run_id") is None
            else f"run {res['run_id']}: {res['status']}")
    return Answer(said, res)


async def _history(call: Call, args: dict[str, Any]) -> Answer:
    res = await call.link.request("history", n=args.get("n", 20))
    return Answer(format_history(res), res)


async def _logs(call: Call, args: dict[str, Any]) -> Answer:
    n = args.get("n", 100)
    pattern = args.get("filter")
    try:
        match = re.compile(pattern, re.IGNORECASE).search if pattern else None
    except re.error as exc:
        raise ToolError(f"filter {pattern!r} is not a regular expression: {exc}") from None
    scan = args.get("scan", LOG_SCAN_LINES) if match else n
    kwargs: dict[str, Any] = {"n": scan}
    if args.get("run_id") is not None:
        kwargs["run_id"] = args["run_id"]
    res = await call.link.request("logs", **kwargs)
    lines = [x for x in res["lines"] if match(x)][-n:] if match else res["lines"]
    data = {"run_id": res["run_id"], "lines": lines, "scanned": len(res["lines"])}
    if res["run_id"] is None:
        return Answer("no run yet: no log", data)
    if not lines:
        return Answer(f"run {res['run_id']}: no line of the last {len(res['lines'])} matches "
                      f"{pattern!r}" if match else f"run {res['run_id']}: the log is empty", data)
    return Answer("\n".join(lines), data)


async def _checklist(call: Call, args: dict[str, Any]) -> Answer:
    action = args.get("action", "list")
    kwargs: dict[str, Any] = {"action": action}
    if action == "add":
        if not args.get("text"):
            raise ToolError("checklist add needs TEXT")
        kwargs["text"] = args["text"]
    elif action != "list":
        if args.get("item") is None:
            raise ToolError(f"checklist {action} needs an item ID")
        kwargs["item"] = args["item"]
    res = await call.link.request("checklist", **kwargs)
    rows = [f"{EventStory.ICONS.get(i['status'], '[?]')} {i['id']:>4}  {i['title']}"
            for i in res["items"]]
    return Answer("\n".join(rows) or "checklist is empty", res)


async def _stacks(call: Call, args: dict[str, Any]) -> Answer:
    res = await call.link.request("stacks")
    return Answer("\n".join(res.get("files", [])) or "no processes", res)


async def _gpus(call: Call, args: dict[str, Any]) -> Answer:
    res = await call.link.request("gpus")
    if not res["gpus"]:
        b = res["backend"]
        return Answer(f"no GPUs ({b.get('backend')}: {b.get('reason') or 'none found'})", res)
    return Answer("\n".join(f"GPU{g['index']} {g.get('name') or ''}  {gpu_line(g)}"
                            for g in res["gpus"]), res)


async def _brief(call: Call, args: dict[str, Any]) -> Answer:
    hours = args.get("since_hours")
    kwargs = {"since": time.time() - hours * 3600} if hours is not None else {}
    res = await call.link.request("brief", **kwargs)
    return Answer(res["markdown"], res)


async def _diagnose(call: Call, args: dict[str, Any]) -> Answer:
    from ..diagnosis.classifier import diagnose_dict

    path = args["path"]
    # (as ctl's --set: a flag's name without its dashes, or an environment variable's)
    settings = {key.strip().lstrip("-"): value
                for key, value in args.get("settings", {}).items()} or None
    try:
        res = await anyio.to_thread.run_sync(
            functools.partial(diagnose_dict, path, settings=settings))
    except OSError as exc:
        raise ToolError(f"{path}: {exc.strerror or exc}") from None
    lines = [f"engine:  {text(res['engine'])}", f"outcome: {text(res['outcome'])}",
             f"phase:   {text(res['phase'])}", f"cause:   {text(res['cause'])}", "evidence:"]
    return Answer("\n".join(lines + [f"  {e}" for e in res["evidence"]]), res)


async def _campaign_status(call: Call, args: dict[str, Any]) -> Answer:
    res = await call.link.request("campaign", action="status")
    return Answer(format_campaign(res), res)


async def _campaign_run(call: Call, args: dict[str, Any]) -> Answer:
    """campaign run NAME; with wait, until it ends, its steps and the runs' phases reported
    as progress meanwhile. A campaign that ends failed or out of time is an answer."""
    name = args["name"]
    if not args.get("wait", True):
        res = await call.link.request("campaign", action="run", name=name)
        return Answer(format_campaign(res), res)
    timeout = args.get("timeout", CAMPAIGN_TIMEOUT_S)
    outcome: list[Any] = []
    async with call.link.connect() as client:
        await client.request("subscribe", topics=CAMPAIGN_TOPICS)
        async with anyio.create_task_group() as tg:
            tg.start_soon(_follow, client, call)
            try:
                with anyio.fail_after(timeout + ANSWER_GRACE_S):
                    outcome.append(await client.request("campaign", action="run", name=name,
                                                        wait=True, timeout=timeout))
            except (DaemonError, ConnectionLost, TimeoutError) as exc:
                outcome.append(exc)
            tg.cancel_scope.cancel()
    result = outcome[0]
    if isinstance(result, DaemonError) and result.code == "timeout":
        raise ToolError(f"{result.code}: {result.message}")
    if isinstance(result, TimeoutError):
        raise ToolError(f"the daemon at {call.link.path} did not answer campaign run within "
                        f"{timeout + ANSWER_GRACE_S:g} s; call campaign_status to see where it "
                        "stands")
    if isinstance(result, DaemonError):
        raise ToolError(f"{result.code}: {result.message}")
    if isinstance(result, Exception):
        raise result
    return Answer(format_campaign(result), dict(result))


# -- the catalogue ------------------------------------------------------------------------------
_PROFILE = {"type": "string", "minLength": 1,
            "description": "a profile name, as the profiles tool lists them"}

TOOLS = [
    Tool("status", "Where things stand",
         "Where things stand on this GPU node now. Returns daemon {version, pid, uptime_s}; "
         "run {id, profile, changes (names of the changes applied), status, phase, phase_since, "
         "cause, pid, progress, evidence} or null when nothing was run; checklist [items]; gpus "
         "[health per GPU]; fallback {strategy, attempts, culprits (changes found to break the "
         "launch), serving (what runs now)}. Call it first, and instead of polling a server "
         "yourself: the daemon already watches it.",
         _schema(), _status),
    Tool("profiles", "Launch profiles",
         "The launch profiles the daemon knows: name, engine, the profile it extends, its named "
         "changes, and whether it is valid (an invalid one says why and cannot be launched). "
         "Use these names with show_profile and switch.",
         _schema(), _profiles),
    Tool("show_profile", "One profile, resolved",
         "One profile resolved: the exact argv and environment the daemon would launch, its "
         "hash, its changes, the profile it extends and the settings that differ from it (diff: "
         "[{key, old, new}]).",
         _schema({"profile": _PROFILE}, ("profile",)), _show_profile),
    Tool("switch", "Launch a profile and wait for the verdict",
         "Stop what runs (nothing of it is left afterwards) and launch PROFILE. With wait (the "
         "default) the call returns only once the daemon has decided the request: PROFILE is "
         "ready, or it failed and the profile's fallback (e.g. isolate: relaunching subsets of "
         "its changes to find the ones that break it) has run its course. Progress "
         "notifications report each phase change, verdict and fallback step meanwhile; do not "
         "poll. Returns ok (true only if PROFILE itself became ready), requested, verdict "
         "{status (crashed, hung, ...), phase, cause, evidence (log lines)}, culprits (names of "
         "the changes found to break it), serving {profile, changes, run_id} (what runs now), "
         "attempts and notes. A failed launch is an answer (ok false), not an error. If "
         "timeout seconds pass first the call fails with a timeout error while the launch goes "
         "on: follow it with status. Without wait it returns at once with the run id.",
         _schema({"profile": _PROFILE,
                  "wait": {"type": "boolean", "default": True,
                           "description": "return only once the request is decided"},
                  "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 86400,
                              "default": SWITCH_TIMEOUT_S,
                              "description": "seconds to wait at most (with wait)"},
                  "benchmark": {"type": "boolean", "default": True,
                                "description": "false: leave the profile's [benchmark] out "
                                               "of this launch"}},
                 ("profile",)),
         _switch, mutating=True, read_only=False),
    Tool("stop", "Stop the server",
         "Stop the server that runs now and wait until nothing of it is left (its whole process "
         "tree). Returns {run_id, status, leftovers}; run_id null when nothing was running.",
         _schema(), _stop, mutating=True, read_only=False),
    Tool("history", "Past runs",
         "Past runs, oldest first and newest last: id, profile, changes, status, phase, cause, "
         "started, ended, exit_code, hash, benchmark, phases; and benchmarks compared with the "
         "baseline (tokens_per_s, ttft_ms, vs_baseline). What was tried before and how each "
         "attempt ended.",
         _schema({"n": {"type": "integer", "minimum": 1, "maximum": 10000, "default": 20,
                        "description": "how many of the latest runs"}}), _history),
    Tool("logs", "A server's log",
         "The tail of a server's log: the current run's, or an earlier run's with run_id. With "
         "filter, only the lines matching it (a case-insensitive regular expression such as "
         "'error|Traceback|OOM') among the last `scan` lines, at most n of them. A failed run's "
         "verdict evidence is in status and switch already; read the log around it here. "
         "Returns {run_id, lines, scanned}.",
         _schema({"n": {"type": "integer", "minimum": 1, "maximum": 5000, "default": 100,
                        "description": "lines to return at most (the last ones)"},
                  "filter": {"type": "string", "minLength": 1,
                             "description": "regular expression, case-insensitive"},
                  "scan": {"type": "integer", "minimum": 1, "maximum": 100000,
                           "default": LOG_SCAN_LINES,
                           "description": "with filter: how many of the last lines to search"},
                  "run_id": {"type": "integer", "minimum": 1,
                             "description": "an earlier run (history lists them)"}}),
         _logs),
    Tool("checklist", "The diagnostic checklist",
         "The diagnostic checklist: items {id, status (pending, in_progress, done, failed, "
         "skipped), title}; the fallback records its steps here. action list (the default) "
         "reads it; add adds an item with text; done, fail and skip set an item's status.",
         _schema({"action": {"type": "string", "enum": ["list", "add", "done", "fail", "skip"],
                             "default": "list"},
                  "text": {"type": "string", "minLength": 1, "maxLength": 500,
                           "description": "the item to add (action add)"},
                  "item": {"type": "integer", "minimum": 1,
                           "description": "the item's id (actions done, fail, skip)"}}),
         _checklist, read_only=False),
    Tool("stacks", "Dump the run's stacks",
         "Dump the stacks of every process of the run now (py-spy) into files next to its log; "
         "returns {run_id, files}. For a run that seems stuck, to see where.",
         _schema(), _stacks, mutating=True, read_only=False),
    Tool("gpus", "GPU health",
         "GPU health and use: per GPU its health level and flags (XID errors, ECC, "
         "throttling), utilisation, memory, temperature, power and processes; backend says how "
         "they are read (NVML or fake GPUs).",
         _schema(), _gpus),
    Tool("diagnose", "Classify a log file",
         "Classify a server log file offline, without the daemon or a running server: engine, "
         "outcome (ready; crashed; or incomplete: neither ready nor a fatal error, i.e. still "
         "running, hung or cut off), the phase it reached, the cause, and the evidence lines. "
         "path is a file on the machine this MCP server runs on. settings: what the launch "
         "was given that the log may not print (its environment; arguments refused before the "
         "engine printed them), as "
         "{flag or environment variable: value}, e.g. {\"tool-call-parser\": \"hermes\"}: an "
         "error naming one of them reads as a rejected configuration (invalid_config).",
         _schema({"path": {"type": "string", "minLength": 1,
                           "description": "the log file (absolute, or relative to the MCP "
                                          "server's working directory)"},
                  "settings": {"type": "object", "maxProperties": 500,
                               "propertyNames": {"minLength": 1, "maxLength": 200,
                                                 "pattern": "^-*[A-Za-z_][A-Za-z0-9_.-]*$"},
                               "additionalProperties": {"type": "string", "maxLength": 4096},
                               "description": "the launch's flags and environment "
                                              "variables, name -> value"}}, ("path",)),
         _diagnose),
    Tool("brief", "Handoff brief",
         "A Markdown handoff of the work on this node for whoever picks it up: what runs and "
         "how it was decided, runs and verdicts, culprits, benchmarks against the baseline, and "
         "the open checklist items. Read it first when you take over someone's work.",
         _schema({"since_hours": {"type": "number", "exclusiveMinimum": 0,
                                  "description": "only the last N hours (default: all)"}}),
         _brief),
    Tool("campaign_run", "Run a campaign plan and wait for its report",
         "Run the campaign plan NAME (PROFILES/campaigns/NAME.toml: a baseline profile and "
         "experiments, each a profile with changes, a success criterion and branches) on the "
         "daemon, unattended: the baseline is launched and benchmarked, then each experiment "
         "is launched (a failed one goes through its profile's fallback, e.g. isolation), "
         "benchmarked, judged against the baseline and the plan's branch picks the next. A "
         "paused campaign of that name (an operator's switch replaced its request) resumes. "
         "With wait (the default) the call returns when the campaign ends, with progress "
         "notifications for each step and phase meanwhile; do not poll. Returns {campaign, "
         "status (completed, failed, timeout, stopped), baseline {benchmark {tokens_per_s "
         "(mean), spread, gpu}}, experiments [{name, profile, changes, verdict, ok, why, "
         "culprits, benchmark {tokens_per_s, vs_baseline, within_noise}, branch {taken, next, "
         "why}}], serving, report (Markdown)}. A difference within_noise is no winner. If "
         "timeout seconds pass first the call fails while the campaign goes on: follow it "
         "with campaign_status. Without wait it returns at once.",
         _schema({"name": {"type": "string", "minLength": 1,
                           "description": "the campaign's file stem in PROFILES/campaigns"},
                  "wait": {"type": "boolean", "default": True,
                           "description": "return only once the campaign has ended"},
                  "timeout": {"type": "number", "exclusiveMinimum": 0, "maximum": 7 * 86400,
                              "default": CAMPAIGN_TIMEOUT_S,
                              "description": "seconds to wait at most (with wait)"}},
                 ("name",)),
         _campaign_run, mutating=True, read_only=False),
    Tool("campaign_status", "The campaign's state or report",
         "The daemon's campaign (one at a time): while it runs or is paused, its status, the "
         "experiment in progress, its latest note, the baseline and the results so far; once "
         "it has ended, its report (Markdown: a table of experiments with verdict, culprit, "
         "tok/s and TTFT against the baseline with their spread, the branch taken and why, "
         "and what serves at the end). The JSON has every field; campaign null when none ran.",
         _schema(), _campaign_status),
]
BY_NAME = {t.name: t for t in TOOLS}

_READ_ONLY_CHECKLIST = replace(
    BY_NAME["checklist"],
    description="The diagnostic checklist (read-only for this peer: the daemon lets it change "
                "nothing): items {id, status (pending, in_progress, done, failed, skipped), "
                "title}; the fallback records its steps here.",
    schema=_schema({"action": {"type": "string", "enum": ["list"], "default": "list"}}),
    read_only=True)


def offered(can_mutate: bool | None) -> list[Tool]:
    """The tools for a peer: all of them unless the daemon says it may only read (when the
    daemon cannot be asked, all: a refused call then says why)."""
    if can_mutate is not False:
        return list(TOOLS)
    return [_READ_ONLY_CHECKLIST if t.name == "checklist" else t
            for t in TOOLS if not t.mutating]
