"""`daemon.protocol.handle_ms` is the daemon's own share: a request waiting on a run is not."""

from __future__ import annotations

import time
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import emulator_profile, free_port

pytestmark = pytest.mark.e2e


def test_a_switch_wait_stays_out_of_handle_ms(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "slow", emulator_profile("slow", port=free_port(), scale=0.05))
    d = make_daemon()
    t0 = time.monotonic()
    d.ctl("switch", "slow", "--wait", "--timeout", "60", check=True)
    took = time.monotonic() - t0
    assert took > 1.0, f"the switch took {took:.2f} s; the test needs a slower start"
    d.ctl("stop", check=True)
    d.status()  # one request of the daemon's own in handle_ms
    proto = d.status()["daemon"]["protocol"]
    assert proto["handle_ms"]["p99"] < 500, proto["handle_ms"]
    assert proto["handle_ms"]["n"] == 1, proto["handle_ms"]
    waited = proto["waited_ms"]
    # The wait spans at least the run's start to its ready, as the daemon's own history times
    # them (the client's clock would add its interpreter's start, seconds on a loaded host)
    (run,) = d.ctl_json("history")["runs"]
    ready = next(p["started"] for p in run["phases"] if p["phase"] == "ready")
    assert waited["n"] == 2 and waited["p99"] >= 1000 * (ready - run["started"]) - 50, waited
