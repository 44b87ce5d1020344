"""The ``campaign`` control command (registered with the others in commands.py's table).

{"cmd": "campaign", "args": {"action": "run", "name": NAME, "wait": bool, "timeout": s}}
{"cmd": "campaign", "args": {"action": "status"}} / {"action": "stop"}
-> {campaign, status, baseline, experiments: [{name, profile, changes, verdict, culprits,
    benchmark, branch, ...}], serving, report, ...} (DESIGN §13)
"""

from __future__ import annotations

from typing import Any

import anyio

from .campaign import CampaignError, Campaigns
from .commands import Daemon, _arg, command
from .protocol import wire
from .protocol.server import Connection

ACTIONS = ("run", "status", "stop")


def _mutating(args: dict[str, Any]) -> bool:
    return args.get("action") in ("run", "stop")


@command("campaign", mutating=_mutating, waits=True)
async def campaign(d: Daemon, conn: Connection, args: dict[str, Any]) -> Any:
    action = _arg(args, "action", str, "status")
    if action not in ACTIONS:
        raise wire.ProtocolError(wire.BAD_REQUEST, f"unknown campaign action {action!r}; "
                                                   f"known: {', '.join(ACTIONS)}")
    runner: Campaigns | None = getattr(d, "campaigns", None)
    if runner is None:
        raise wire.ProtocolError(wire.BUSY, "this daemon runs no campaign service")
    try:
        if action == "status":
            return runner.view()
        if action == "stop":
            return await runner.stop()
        runner.run(_arg(args, "name", str))
    except CampaignError as exc:
        raise wire.ProtocolError(exc.code if exc.code in (wire.BAD_REQUEST, wire.CONFLICT)
                                 else wire.BUSY, exc.message) from None
    if not _arg(args, "wait", bool, False):
        return runner.view()
    timeout = _arg(args, "timeout", (int, float), None)
    with anyio.move_on_after(timeout) as scope:
        await runner.finished.wait()
    if scope.cancelled_caught:
        state = runner.view()
        raise wire.ProtocolError(wire.TIMEOUT, f"campaign {state['campaign']} still "
                                               f"{state['status']} after {timeout} s (at "
                                               f"{state.get('current')}); it goes on: "
                                               f"supervisor-ctl campaign status")
    return runner.view()
