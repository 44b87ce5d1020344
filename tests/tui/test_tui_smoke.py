from __future__ import annotations

import pytest
from conftest import frozen_clock
from fakedaemon import FakeState, wait_for

from tui.app import SupervisorApp
from tui.connection import Target

pytestmark = pytest.mark.anyio


async def test_smoke():
    state = FakeState()
    app = SupervisorApp([Target.unix("/nonexistent")], connector=state.connector,
                        clock=frozen_clock)
    async with app.run_test(size=(100, 30)) as pilot:
        await wait_for(lambda: app.connected and app.main.run, pilot, what="status")
        await pilot.pause(0.2)
        app.save_screenshot("/tmp/shot.svg")
        print(app.main.log_panel.shown_lines[:3])
