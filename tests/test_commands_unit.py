"""Control commands through ``Daemon.dispatch`` in-process: a Connection without a socket (its
peer and permission as the server would set them), a real Arbiter, Store and Hub (runkit).
One permission and audit path for every mutating request."""

from __future__ import annotations

import itertools
import json
from pathlib import Path
from typing import Any

import anyio
import pytest
from runkit import HTTP_SERVER, Kit, command_profile, live_pids, make_profiles, running_arbiter

from supervisor.commands import Daemon
from supervisor.protocol import wire
from supervisor.protocol.server import Connection, Peer

pytestmark = pytest.mark.anyio

_ids = itertools.count(1)


def _conn(can_mutate: bool) -> Connection:
    peer = Peer(pid=4242, uid=1234, gid=1234)
    reason = None if can_mutate else "uid 1234 is not allowed to change the daemon"
    return Connection(None, peer, can_mutate, reason)  # no socket: replies stay queued


def _daemon(kit: Kit) -> Daemon:
    return Daemon(kit.arbiter, store=kit.store, hub=kit.hub)


async def _call(d: Daemon, conn: Connection, cmd: str, **args: Any) -> Any:
    return await d.dispatch(conn, wire.Request(next(_ids), cmd, args))


def _audit(kit: Kit) -> list[tuple[str, dict[str, Any], bool, str]]:
    rows = kit.store.audit_rows(50)
    return [(r["cmd"], json.loads(r["args"]) if isinstance(r["args"], str) else r["args"],
             bool(r["ok"]), r["result"]) for r in rows]


async def test_checklist_from_a_read_only_peer_is_refused_and_audited(
        tmp_path: Path, monkeypatch: Any) -> None:
    make_profiles(tmp_path)
    async with running_arbiter(tmp_path, monkeypatch) as kit:
        d, ro = _daemon(kit), _conn(can_mutate=False)
        before = kit.arbiter.checklist.view()
        with pytest.raises(wire.ProtocolError) as err:
            await _call(d, ro, "checklist", action="add", text="reseat GPU3")
        assert err.value.code == wire.NOT_PERMITTED
        assert "uid 1234 is not allowed" in err.value.message
        assert kit.arbiter.checklist.view() == before  # nothing changed
        ((cmd, args, ok, result),) = _audit(kit)
        assert (cmd, args, ok, result) == ("checklist", {"action": "add", "text": "reseat GPU3"},
                                           False, "not permitted")
        # Reading is anyone's, and not audited.
        assert (await _call(d, ro, "checklist"))["items"] == before
        assert len(_audit(kit)) == 1


async def test_checklist_from_a_permitted_peer_is_applied_and_audited(
        tmp_path: Path, monkeypatch: Any) -> None:
    make_profiles(tmp_path)
    async with running_arbiter(tmp_path, monkeypatch) as kit:
        d, rw = _daemon(kit), _conn(can_mutate=True)
        items = (await _call(d, rw, "checklist", action="add", text="reseat GPU3"))["items"]
        (item,) = [i for i in items if i["title"] == "reseat GPU3"]
        assert item["status"] == "pending" and not item["auto"]
        done = await _call(d, rw, "checklist", action="done", item=item["id"])
        assert next(i for i in done["items"] if i["id"] == item["id"])["status"] == "done"
        with pytest.raises(wire.ProtocolError) as err:
            await _call(d, rw, "checklist", action="done", item=99999)
        assert err.value.code == wire.NOT_FOUND
        audit = _audit(kit)
        assert [(cmd, ok) for cmd, _, ok, _ in audit] == [
            ("checklist", True), ("checklist", True), ("checklist", False)]
        assert audit[0][1] == {"action": "add", "text": "reseat GPU3"}
        assert "reseat GPU3" in audit[0][3]            # the result, shortened
        assert audit[2][3] == "no checklist item 99999"


async def test_switch_wait_then_stop_through_dispatch(tmp_path: Path, monkeypatch: Any) -> None:
    make_profiles(tmp_path, web=(HTTP_SERVER, lambda s, p: command_profile(s, port=p)))
    async with running_arbiter(tmp_path, monkeypatch) as kit:
        d, rw, ro = _daemon(kit), _conn(can_mutate=True), _conn(can_mutate=False)
        with pytest.raises(wire.ProtocolError) as err:
            await _call(d, ro, "switch", profile="web")
        assert err.value.code == wire.NOT_PERMITTED and kit.arbiter.current is None
        with anyio.fail_after(20):
            out = await _call(d, rw, "switch", profile="web", wait=True, timeout=15)
        assert out["ok"] is True and out["run"]["status"] == "ready" and out["warning"] is None
        run = kit.arbiter.current
        assert run is not None and out["run"]["id"] == run.id
        status = await _call(d, ro, "status")
        assert status["run"]["status"] == "ready" and status["daemon"]["store"]["problem"] is None
        with pytest.raises(wire.ProtocolError) as err:
            await _call(d, rw, "switch", profile="wbe")
        assert err.value.code == "not_found" and "did you mean 'web'" in err.value.message
        with anyio.fail_after(15):
            stopped = await _call(d, rw, "stop")
        assert stopped == {"run_id": run.id, "status": "stopped", "leftovers": []}
        assert not live_pids(run)
        assert [(cmd, ok) for cmd, _, ok, _ in _audit(kit)] == [
            ("switch", False), ("switch", True), ("switch", False), ("stop", True)]


async def test_bad_arguments_and_unknown_commands_change_nothing(
        tmp_path: Path, monkeypatch: Any) -> None:
    make_profiles(tmp_path)
    async with running_arbiter(tmp_path, monkeypatch) as kit:
        d, rw = _daemon(kit), _conn(can_mutate=True)
        with pytest.raises(wire.ProtocolError) as err:
            await _call(d, rw, "nope")
        assert err.value.code == wire.UNKNOWN_COMMAND and "known: " in err.value.message
        with pytest.raises(wire.ProtocolError) as err:
            await _call(d, rw, "checklist", action="add", text=7)
        assert err.value.code == wire.BAD_REQUEST and "'text'" in err.value.message
        with pytest.raises(wire.ProtocolError) as err:
            await _call(d, rw, "checklist", action="explode")
        assert err.value.code == wire.BAD_REQUEST
        assert kit.arbiter.checklist.view() == []
        assert [(cmd, ok) for cmd, _, ok, _ in _audit(kit)] == [
            ("checklist", False), ("checklist", False)]  # the unknown command is not a mutation
