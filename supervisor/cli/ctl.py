"""supervisor-ctl: the scriptable client. JSON with --json; exit codes per DESIGN §8.

0 success, 1 the thing asked for failed, 2 usage or connection error, 3 timed out waiting.
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import sys
import time
from collections.abc import Awaitable, Callable
from typing import Any

import anyio

from ..protocol import wire
from . import guard_identity
from .ctl_campaign import add_campaign_parser, exit_code, format_campaign, request_args
from .ctl_format import (
    EventStory,
    format_history,
    format_status,
    format_stored_event,
    format_wait,
    gpu_line,
    term_safe,
    text,
    unreachable,
)

if sys.version_info < (3, 11):  # pragma: no cover - anyio brings the backport there
    from exceptiongroup import BaseExceptionGroup

EXIT_OK, EXIT_FAILED, EXIT_USAGE, EXIT_TIMEOUT = 0, 1, 2, 3


class StdoutClosed(Exception):
    """Whoever read our output went away (``| head``): stop quietly, like any Unix tool."""


class CtlExit(Exception):
    def __init__(self, code: int, message: str = "", *, to_stderr: bool = False) -> None:
        super().__init__(message)
        self.code = code
        self.message = message
        self.to_stderr = to_stderr  # stdout itself failed


def build_parser() -> argparse.ArgumentParser:
    common = argparse.ArgumentParser(add_help=False)
    common.add_argument("--json", action="store_true", default=argparse.SUPPRESS,
                        help="machine-readable JSON output")
    common.add_argument("--socket", default=argparse.SUPPRESS, help="control socket path")
    p = argparse.ArgumentParser(prog="supervisor-ctl", parents=[common],
                                description="Control and query gpu-node-supervisor.")
    sub = p.add_subparsers(dest="command", metavar="COMMAND", required=True)

    def add(name: str, help_: str) -> argparse.ArgumentParser:
        return sub.add_parser(name, parents=[common], help=help_, description=help_)

    add("status", "what runs, its phase, verdict, checklist, GPUs, fallback")
    add("profiles", "list profiles")
    s = add("show", "a resolved profile and its diff from the parent")
    s.add_argument("profile")
    s = add("validate", "validate a profile file or folder (no daemon needed)")
    s.add_argument("path")
    s = add("switch", "stop what runs and start PROFILE")
    s.add_argument("profile")
    s.add_argument("--wait", action="store_true", help="block until the daemon settles")
    s.add_argument("--timeout", type=float, default=None, help="seconds to wait at most")
    s.add_argument("--no-benchmark", action="store_true",
                   help="leave the profile's [benchmark] out of this launch")
    s = add("start", "start PROFILE (default: the last one)")
    s.add_argument("profile", nargs="?")
    s.add_argument("--wait", action="store_true")
    s.add_argument("--timeout", type=float, default=None)
    add("stop", "stop the server (nothing of it is left afterwards)")
    add("restart", "restart the current profile")
    s = add("logs", "the server's log")
    s.add_argument("-n", type=int, default=100, help="lines (default 100)")
    s.add_argument("-f", "--follow", action="store_true")
    s.add_argument("--run", type=int, dest="run_id", help="an earlier run's log")
    s = add("events", "daemon events (phases, verdicts, checklist, fallback)")
    s.add_argument("-f", "--follow", action="store_true")
    s.add_argument("-n", type=int, default=50)
    s = add("history", "past runs, newest last")
    s.add_argument("-n", type=int, default=20)
    s = add("checklist", "the diagnostic checklist: list, add TEXT, done ID")
    s.add_argument("action", nargs="?", choices=["list", "add", "done", "fail", "skip"],
                   default="list")
    s.add_argument("arg", nargs="?", help="TEXT for add, ID for done/fail/skip")
    add("stacks", "dump stacks of every process of the run now")
    s = add("gpus", "GPU health and processes")
    s.add_argument("--fault", help="inject a fault into fake GPUs (e.g. xid:0:79)")
    add("bridge", "relay stdio to the socket (for supervisor-tui --ssh)")
    add("mcp", "serve the Model Context Protocol on stdio (for AI agents; over SSH too)")
    s = add("brief", "a Markdown handoff for whoever picks the work up next")
    s.add_argument("--since", help="ISO time, epoch seconds, or an age like 2h / 30m")
    s = add("diagnose", "classify a log file offline (no daemon needed)")
    s.add_argument("file")
    s.add_argument("--set", action="append", default=[], metavar="KEY=VALUE", dest="settings",
                   help="a setting the launch was given (a flag's name, or an environment "
                        "variable) - as the daemon reads its profile's args and env, so that an "
                        "error naming it reads as a refused configuration; repeatable")
    s = add("metrics", "serving metrics of the current run, from its log: latest and series")
    s.add_argument("--since", help="samples since: an age like 5m / 90s, epoch seconds or an "
                   "ISO time (default: all kept, the last hour at most)")
    _add_cluster_commands(add)
    add_campaign_parser(add)
    return p


def _add_cluster_commands(add: Callable[[str, str], argparse.ArgumentParser]) -> None:
    s = add("group", "launch groups (a server spanning nodes): status of this node's group")
    s.add_argument("action", choices=["status"], help="status: ranks, phases and the verdict")
    s = add("probe", "Kubernetes exec probe: exit 0 if the server passes, 1 if not")
    s.add_argument("kind", choices=["startup", "readiness", "liveness"])


def main(argv: list[str] | None = None) -> None:
    guard_identity()
    parser = build_parser()
    try:
        args = parser.parse_args(argv)
    except SystemExit as exc:
        raise SystemExit(EXIT_USAGE if exc.code not in (0, None) else 0) from None
    args.json = getattr(args, "json", False)
    args.socket = getattr(args, "socket", None)
    try:
        code = dispatch(args)
        _flush_stdout()
    except CtlExit as exc:
        code = exc.code
        try:
            _report(args, exc.message, exc.to_stderr)
        except StdoutClosed:
            code = _stdout_closed()
    except StdoutClosed:
        code = _stdout_closed()
    except KeyboardInterrupt:
        code = EXIT_FAILED
    raise SystemExit(code)


def _report(args: argparse.Namespace, message: str, to_stderr: bool) -> None:
    if not message:
        return
    if args.json and not to_stderr:
        out(json.dumps({"error": message}))
        _flush_stdout()
    else:
        sys.stderr.write(f"supervisor-ctl: {_safe_for(sys.stderr, message)}\n")


def _stdout_closed() -> int:
    # Later flushes (interpreter exit) would fail again and print a traceback: point stdout
    # at /dev/null. Exit 0 like the reader's own choice to stop, not an error of ours.
    devnull = os.open(os.devnull, os.O_WRONLY)
    os.dup2(devnull, sys.stdout.fileno())
    os.close(devnull)
    return EXIT_OK


def _safe_for(stream: Any, message: str) -> str:
    try:
        return term_safe(message) if stream.isatty() else message
    except (AttributeError, ValueError):
        return message


def out(line: str, *, flush: bool = False) -> None:
    """Print one line of output; on a terminal, control characters are shown escaped."""
    try:
        sys.stdout.write(_safe_for(sys.stdout, line) + "\n")
        if flush:
            sys.stdout.flush()
    except OSError as exc:
        raise _stdout_error(exc) from None


def _flush_stdout() -> None:
    try:
        sys.stdout.flush()
    except OSError as exc:
        raise _stdout_error(exc) from None


def _stdout_error(exc: OSError) -> Exception:
    if isinstance(exc, BrokenPipeError):
        return StdoutClosed()
    return CtlExit(EXIT_FAILED, f"cannot write to standard output: {exc.strerror or exc}",
                   to_stderr=True)


def dispatch(args: argparse.Namespace) -> int:
    offline: dict[str, Callable[[argparse.Namespace], int]] = {
        "validate": cmd_validate, "diagnose": cmd_diagnose}
    if args.command in offline:
        return offline[args.command](args)
    if args.command == "bridge":
        return anyio.run(cmd_bridge, args)
    if args.command == "mcp":
        return cmd_mcp(args)
    return anyio.run(run_online, args)


def socket_path(args: argparse.Namespace) -> str:
    from ..protocol.paths import client_socket
    return args.socket or str(client_socket())


def emit(args: argparse.Namespace, obj: Any, human: Callable[[Any], str] | None = None) -> None:
    if args.json or human is None:
        out(json.dumps(obj, indent=None if args.command in ("events", "logs") else 2,
                       default=str))
    else:
        out(human(obj))


# -- offline ----------------------------------------------------------------------------
def cmd_validate(args: argparse.Namespace) -> int:
    from ..profiles import validate_path

    if not os.path.exists(args.path):
        raise CtlExit(EXIT_USAGE, f"{args.path}: no such file or directory")
    errors = [str(e) for e in validate_path(args.path)]
    emit(args, {"ok": not errors, "errors": errors},
         lambda r: "\n".join(r["errors"]) if r["errors"] else f"{args.path}: OK")
    return EXIT_OK if not errors else EXIT_FAILED


def cmd_diagnose(args: argparse.Namespace) -> int:
    from ..diagnosis.classifier import diagnose_dict

    settings = {}
    for item in args.settings:
        key, eq, value = item.partition("=")
        if not eq or not key.strip():
            raise CtlExit(EXIT_USAGE, f"--set {item}: expected KEY=VALUE (a flag's name such as "
                                      "tool-call-parser=hermes, or VLLM_LOGGING_LEVEL=DEBUG)")
        settings[key.strip().lstrip("-")] = value
    try:
        result = diagnose_dict(args.file, settings=settings or None)
    except OSError as exc:
        raise CtlExit(EXIT_USAGE, f"{args.file}: {exc.strerror or exc}") from None

    def human(r: dict[str, Any]) -> str:
        lines = [f"engine:  {text(r['engine'])}", f"outcome: {text(r['outcome'])}",
                 f"phase:   {text(r['phase'])}", f"cause:   {text(r['cause'])}", "evidence:"]
        return "\n".join(lines + [f"  {e}" for e in r["evidence"]])
    emit(args, result, human)
    return EXIT_OK


# -- online -----------------------------------------------------------------------------
async def run_online(args: argparse.Namespace) -> int:
    from ..protocol.client import ConnectionLost, DaemonError, connect_unix

    path = socket_path(args)
    try:
        async with connect_unix(path) as client:
            return await ONLINE[args.command](client, args)
    except DaemonError as exc:
        code = {"timeout": EXIT_TIMEOUT, "bad_request": EXIT_USAGE,
                "unknown_command": EXIT_USAGE}.get(exc.code, EXIT_FAILED)
        raise CtlExit(code, f"{exc.code}: {exc.message}") from None
    except (OSError, ConnectionLost, TimeoutError) as exc:
        raise CtlExit(EXIT_USAGE, unreachable(path, exc)) from None


async def cmd_status(client: Any, args: argparse.Namespace) -> int:
    emit(args, await client.request("status"), format_status)
    return EXIT_OK


async def cmd_profiles(client: Any, args: argparse.Namespace) -> int:
    from .ctl_format import format_profiles

    emit(args, await client.request("profiles"), format_profiles)
    return EXIT_OK


async def cmd_show(client: Any, args: argparse.Namespace) -> int:
    res = await client.request("show", profile=args.profile)

    def human(r: dict[str, Any]) -> str:
        prof = r["profile"]
        out = [f"{prof['name']}  hash {prof['hash']}" + (f"  extends {r['parent']}"
                                                          if r.get("parent") else ""),
               "argv: " + " ".join(prof["argv"])]
        if prof.get("env"):
            env = prof["env"]
            items = env.items() if isinstance(env, dict) else env
            out.append("env:  " + " ".join(f"{k}={v}" for k, v in items))
        if r.get("diff"):
            out.append("diff from parent:")
            out += [f"  {d['key']}: {_setting(d['old'])} -> {_setting(d['new'])}"
                    for d in r["diff"]]
        out += _patch_lines(prof.get("patches") or [])
        return "\n".join(out)
    emit(args, res, human)
    return EXIT_OK


def _patch_lines(patches: list[dict[str, Any]]) -> list[str]:
    """Each source patch of a profile: where it is, its hash, and the diff itself."""
    out: list[str] = []
    for p in patches:
        out.append(f"patch {p['change']}: {p['path']}  sha256 {p['hash']}")
        out += [f"  {ln}" for ln in str(p.get("text", "")).splitlines()]
    return out


def _setting(value: Any) -> str:
    if isinstance(value, (list, tuple)):
        return " ".join(text(v) for v in value) or "(empty)"
    return text(value, none="(unset)")


async def cmd_switch(client: Any, args: argparse.Namespace) -> int:
    kwargs: dict[str, Any] = {"profile": args.profile}
    if args.wait:
        kwargs.update(wait=True, timeout=args.timeout)
    if getattr(args, "no_benchmark", False):
        kwargs["benchmark"] = False
    cmd = "switch" if args.command == "switch" else "start"
    if cmd == "start" and not args.profile:
        kwargs.pop("profile")
    res = await client.request(cmd, **kwargs)
    _print_warning(args, res)
    if not args.wait:
        emit(args, res, lambda r: f"started {r['profile']}{_run_of(r)}")
        return EXIT_OK
    emit(args, res, format_wait)
    return EXIT_OK if res.get("ok") else EXIT_FAILED


def _print_warning(args: argparse.Namespace, res: dict[str, Any]) -> None:
    """On stderr, beside the answer: what ran is not what the file now says."""
    from .ctl_format import switch_warning

    line = switch_warning(res)
    if line and not args.json:
        sys.stderr.write(line + "\n")


def _run_of(r: dict[str, Any]) -> str:
    return f" (run {r['run_id']})" if r.get("run_id") is not None else ""


async def cmd_stop(client: Any, args: argparse.Namespace) -> int:
    res = await client.request("stop")
    emit(args, res, lambda r: "nothing was running" if r.get("run_id") is None
         else f"run {r['run_id']}: {r['status']}")
    return EXIT_OK


async def cmd_restart(client: Any, args: argparse.Namespace) -> int:
    res = await client.request("restart")
    emit(args, res, lambda r: f"restarted {r['profile']}{_run_of(r)}")
    return EXIT_OK


async def cmd_logs(client: Any, args: argparse.Namespace) -> int:
    if args.follow:
        await client.request("subscribe", topics=["log"])
    kwargs: dict[str, Any] = {"n": args.n}
    if args.run_id is not None:
        kwargs["run_id"] = args.run_id
    res = await client.request("logs", **kwargs)
    for line in res["lines"]:
        out(json.dumps({"run_id": res["run_id"], "line": line}) if args.json else line)
    if not args.follow:
        return EXIT_OK
    _flush_stdout()

    async def follow() -> None:
        async for event in client.events():
            if event.get("event") == "log":
                for line in wire.log_event_lines(event.get("data")):
                    out(json.dumps({"run_id": event["data"]["run_id"], "line": line})
                        if args.json else line)
            elif event.get("event") == "dropped":
                sys.stderr.write(f"[{event['data']['count']} log events dropped]\n")
            _flush_stdout()
    return await _until_interrupted(follow)


async def cmd_events(client: Any, args: argparse.Namespace) -> int:
    if args.follow:
        await client.request("subscribe", topics=["run", "checklist", "fallback", "daemon",
                                                  "verdict"])
        story = EventStory()

        async def follow() -> None:
            async for event in client.events():
                for line in [json.dumps(event, default=str)] if args.json else \
                        story.lines(event):
                    out(line)
                _flush_stdout()
        return await _until_interrupted(follow)
    res = await client.request("events", n=args.n)
    for ev in res["events"]:
        out(json.dumps(ev, default=str) if args.json else format_stored_event(ev))
    return EXIT_OK


async def _until_interrupted(follow: Callable[[], Awaitable[None]]) -> int:
    """A follower (`logs -f`, `events -f`) until its stream ends (0) or Ctrl-C (1, as an
    interrupt anywhere else). SIGINT is taken here, through a cancel scope: the event loop's own
    handling cancels the main task natively, and a cancel scope exiting at that moment can
    swallow that cancellation (anyio #374) - the likely reason a follower once outlived its
    SIGINT by 30 s in CI."""
    interrupted = False
    try:
        async with anyio.create_task_group() as tg:
            async def on_interrupt(*, task_status: Any = anyio.TASK_STATUS_IGNORED) -> None:
                nonlocal interrupted
                with anyio.open_signal_receiver(signal.SIGINT) as signals:
                    task_status.started()
                    async for _ in signals:
                        interrupted = True
                        tg.cancel_scope.cancel()
                        return
            # (started, not start_soon: the receiver is in place before the follower waits,
            # so a Ctrl-C in between is not left to the event loop's own handling)
            await tg.start(on_interrupt)
            await follow()
            tg.cancel_scope.cancel()
    except BaseExceptionGroup as group:  # the follower's own error (its reader gone...), as is
        raise (group.exceptions[0] if len(group.exceptions) == 1 else group) from None
    return EXIT_FAILED if interrupted else EXIT_OK


async def cmd_history(client: Any, args: argparse.Namespace) -> int:
    emit(args, await client.request("history", n=args.n), format_history)
    return EXIT_OK


async def cmd_checklist(client: Any, args: argparse.Namespace) -> int:
    kwargs: dict[str, Any] = {"action": args.action}
    if args.action == "add":
        if not args.arg:
            raise CtlExit(EXIT_USAGE, "checklist add needs TEXT")
        kwargs["text"] = args.arg
    elif args.action != "list":
        if not args.arg or not args.arg.isdigit():
            raise CtlExit(EXIT_USAGE, f"checklist {args.action} needs an item ID")
        kwargs["item"] = int(args.arg)
    res = await client.request("checklist", **kwargs)

    def human(r: dict[str, Any]) -> str:
        icons = {"pending": "[ ]", "in_progress": "[~]", "done": "[x]", "failed": "[!]",
                 "skipped": "[-]"}
        return "\n".join(f"{icons.get(i['status'], '[?]')} {i['id']:>4}  {i['title']}"
                         for i in r["items"]) or "checklist is empty"
    emit(args, res, human)
    return EXIT_OK


async def cmd_stacks(client: Any, args: argparse.Namespace) -> int:
    res = await client.request("stacks")
    emit(args, res, lambda r: "\n".join(r.get("files", [])) or "no processes")
    return EXIT_OK


async def cmd_gpus(client: Any, args: argparse.Namespace) -> int:
    if args.fault:
        emit(args, await client.request("gpu_fault", spec=args.fault),
             lambda r: f"injected {args.fault}" + (f": {text(r)}" if r else ""))
        return EXIT_OK
    res = await client.request("gpus")

    def human(r: dict[str, Any]) -> str:
        b = r["backend"]
        if not r["gpus"]:
            return f"no GPUs ({b.get('backend')}: {b.get('reason') or 'none found'})"
        return "\n".join(f"GPU{g['index']} {g.get('name') or ''}  {gpu_line(g)}"
                         for g in r["gpus"])
    emit(args, res, human)
    return EXIT_OK


async def cmd_brief(client: Any, args: argparse.Namespace) -> int:
    kwargs = {"since": parse_since(args.since)} if args.since else {}
    res = await client.request("brief", **kwargs)
    emit(args, res, lambda r: r["markdown"])
    return EXIT_OK


async def cmd_metrics(client: Any, args: argparse.Namespace) -> int:
    from .ctl_format import format_metrics

    kwargs = {"since": parse_since(args.since)} if args.since else {}
    emit(args, await client.request("metrics", **kwargs), format_metrics)
    return EXIT_OK


def parse_since(text: str) -> float:
    """'2h', '30m', '45s', '1d', epoch seconds, or an ISO time."""
    import datetime as dt

    units = {"s": 1, "m": 60, "h": 3600, "d": 86400}
    if text[-1:] in units and text[:-1].replace(".", "", 1).isdigit():
        return time.time() - float(text[:-1]) * units[text[-1]]
    try:
        return float(text)
    except ValueError:
        pass
    try:
        return dt.datetime.fromisoformat(text).timestamp()
    except ValueError:
        raise CtlExit(EXIT_USAGE, f"--since {text!r}: use 2h, 30m, epoch seconds or an "
                      "ISO time") from None


async def cmd_bridge(args: argparse.Namespace) -> int:
    """Relay bytes between stdio and the socket until either side closes."""
    from ..protocol.client import open_unix

    path = socket_path(args)
    try:
        stream = await open_unix(path)
    except OSError as exc:
        raise CtlExit(EXIT_USAGE, f"cannot reach the daemon at {path}: {exc}") from None

    async def up() -> None:
        while True:
            data = await anyio.to_thread.run_sync(os.read, 0, 65536, abandon_on_cancel=True)
            if not data:
                await stream.send_eof()
                return
            await stream.send(data)

    async def down() -> None:
        while True:
            try:
                data = await stream.receive(65536)
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                return
            try:
                await anyio.to_thread.run_sync(_write_all, 1, data)
            except BrokenPipeError:
                return  # the other end (ssh, the TUI) went away

    async with stream, anyio.create_task_group() as tg:
        async def run(fn: Callable[[], Any]) -> None:
            await fn()
            tg.cancel_scope.cancel()
        tg.start_soon(run, up)
        tg.start_soon(run, down)
    return EXIT_OK


def cmd_mcp(args: argparse.Namespace) -> int:
    """An MCP server on stdio for agents; the SDK is an optional extra, imported only here."""
    try:
        from .mcp_server import serve
    except ImportError as exc:
        raise CtlExit(EXIT_USAGE, f"supervisor-ctl mcp needs the MCP SDK ({exc}); install "
                      "it with: pip install 'gpu-node-supervisor[mcp]'") from None
    return serve(socket_path(args))


def _write_all(fd: int, data: bytes) -> None:
    view = memoryview(data)
    while view:
        n = os.write(fd, view)
        view = view[n:]


async def cmd_group(client: Any, args: argparse.Namespace) -> int:
    from .ctl_cluster import format_group

    emit(args, await client.request("group"), format_group)
    return EXIT_OK


async def cmd_probe(client: Any, args: argparse.Namespace) -> int:
    res = await client.request("probe", probe=args.kind)
    emit(args, res, lambda r: f"{r['probe']}: {'ok' if r['ok'] else 'FAIL'}: {r['reason']}")
    return EXIT_OK if res["ok"] else EXIT_FAILED


async def cmd_campaign(client: Any, args: argparse.Namespace) -> int:
    try:
        kwargs = request_args(args)
    except ValueError as exc:
        raise CtlExit(EXIT_USAGE, str(exc)) from None
    res = await client.request("campaign", **kwargs)
    emit(args, res, format_campaign)
    return exit_code(args, res)


ONLINE: dict[str, Callable[[Any, argparse.Namespace], Any]] = {
    "group": cmd_group, "probe": cmd_probe, "campaign": cmd_campaign,
    "status": cmd_status, "profiles": cmd_profiles, "show": cmd_show, "switch": cmd_switch,
    "start": cmd_switch, "stop": cmd_stop, "restart": cmd_restart, "logs": cmd_logs,
    "events": cmd_events, "history": cmd_history, "checklist": cmd_checklist,
    "stacks": cmd_stacks, "gpus": cmd_gpus, "brief": cmd_brief,
    "metrics": cmd_metrics,
}

if __name__ == "__main__":
    main()
