"""The node list shows each node's launch group: the real TUI (Pilot) watching three real
daemons that form a group over a real etcd, and a fourth daemon without [cluster]."""

from __future__ import annotations

import os
from collections.abc import Iterator

import anyio
import pytest
from fakedaemon import wait_for
from textual.widgets import OptionList

from tests.e2e.harness import Daemon, cleanup, short_tmpdir, wait_until
from tests.e2e.test_group_e2e import Group
from tests.etcd_server import EtcdServer, etcd_binary
from tui.app import SupervisorApp
from tui.connection import Target
from tui.screens.nodes import NodesScreen

pytestmark = [pytest.mark.e2e, pytest.mark.anyio, pytest.mark.skipif(
    etcd_binary() is None, reason="etcd not installed (scripts/ensure-test-tools.sh installs "
    "etcd-server as root)")]


@pytest.fixture
def fleet() -> Iterator[tuple[Group, Daemon]]:
    root = short_tmpdir()
    etcd = EtcdServer().start()
    group = Group(root, etcd)
    (root / "lone" / "profiles").mkdir(parents=True)
    (root / "lone" / "state").mkdir()
    lone = Daemon(root / "lone" / "profiles", root / "lone" / "state", root / "lone" / "s.sock")
    try:
        group.start()
        lone.start()
        yield group, lone
    finally:
        try:
            lone.stop()
        finally:
            lone.kill()
        group.close()
        etcd.close()
        if not os.environ.get("GNS_KEEP_TMP"):
            cleanup(root)


def lines(app: SupervisorApp) -> list[str]:
    found = app.screen.query(OptionList)
    if not found:
        return []
    options = found.first()
    return [str(options.get_option_at_index(i).prompt) for i in range(options.option_count)]


async def open_nodes(app: SupervisorApp, pilot) -> None:
    app.action_nodes()
    await wait_for(lambda: isinstance(app.screen, NodesScreen), pilot, what="the node list")


async def shown(app: SupervisorApp, pilot, want: str) -> list[str]:
    """The node list's lines once every node has answered and `want` is among them."""
    got = await wait_for(lambda: (ls := lines(app)) and not any("asking" in x for x in ls)
                         and want in "\n".join(ls) and ls, pilot, timeout=25,
                         what=f"{want!r} in the node list")
    return list(got)


async def test_the_node_list_shows_group_membership(fleet: tuple[Group, Daemon]) -> None:
    group, lone = fleet
    d0, d1, d2 = group.daemons
    assert d1.ctl("switch", "grp", "--wait", "--timeout", "30").returncode == 0
    targets = [Target.unix(d.sock) for d in (*group.daemons, lone)]
    app = SupervisorApp(targets, reconnect_delays=(0.05,))
    async with app.run_test(size=(140, 36)) as pilot:
        await wait_for(lambda: app.connected, pilot, what="the first node")
        await open_nodes(app, pilot)
        ready = await shown(app, pilot, "rank 2/3")
        assert ready[0].endswith("group n0+n1+n2 · rank 0/3 · ready"), ready
        assert ready[1].endswith("group n0+n1+n2 · rank 1/3 · ready"), ready
        assert ready[2].endswith("group n0+n1+n2 · rank 2/3 · ready"), ready
        assert ready[3].endswith("no group"), ready

        # the list stays open: it asks again while open, so what changes now shows in it
        group.etcd.stop()   # the ranks keep serving; every node says coordination is degraded
        for d in group.daemons:   # in a thread: the app under test shares this event loop
            await anyio.to_thread.run_sync(
                wait_until, lambda d=d: d.ctl_json("group", "status")["coordination"]["state"]
                == "degraded", 20, "coordination degraded")
        degraded = await wait_for(
            lambda: (ls := lines(app)) and sum("degraded" in x for x in ls) == 3 and ls,
            pilot, timeout=25, what="three degraded nodes in the open list")
        assert isinstance(app.screen, NodesScreen)
        for line in degraded[:3]:
            assert line.endswith(" · ready · coordination degraded"), degraded
        assert degraded[3].endswith("no group"), degraded
        group.etcd.start()
