"""The TUI and the daemon speak one vocabulary (supervisor.protocol.vocabulary).

Each test puts the daemon's real producer (GPU rules, activity tracker, event hub) next to
what the TUI makes of its output: a word one side has and the other lacks fails here.
"""

from __future__ import annotations

import pytest
from fakedaemon import FakeState, gpu
from test_tui_app import attached

from supervisor.events import TOPICS as DAEMON_TOPICS
from supervisor.gpu.rules import THROTTLE_BITS, evaluate
from supervisor.gpu.types import GpuSample, XidEvent
from supervisor.protocol import vocabulary
from supervisor.runtime.process import TreeSample
from supervisor.watchdogs.activity import ActivityTracker
from tui import formatting as fmt


def sample(**kw: object) -> GpuSample:
    base: dict[str, object] = dict(index=0, uuid="GPU-x", name="H200", timestamp=1000.0,
                                   utilization_gpu=10.0, memory_used_mib=1000.0,
                                   memory_total_mib=143771.0, temperature_c=40.0,
                                   power_w=100.0, power_limit_w=700.0, throttle_reasons=())
    base.update(kw)
    return GpuSample(**base)  # type: ignore[arg-type]


def daemon_levels() -> set[str]:
    """The levels the daemon's rules give: healthy, a hot GPU, an XID, a lost GPU, no signal."""
    xid79 = XidEvent(gpu_index=0, xid=79, timestamp=999.0, description="fell off the bus")
    healths = [evaluate(sample()), evaluate(sample(temperature_c=86.0)),
               evaluate(sample(), [xid79]), evaluate(sample(lost=True)),
               evaluate(GpuSample(index=0))]
    assert evaluate(GpuSample(index=0)).level == "unknown"  # every field NA
    return {h.level for h in healths}


def test_every_level_the_daemon_gives_is_one_the_tui_styles() -> None:
    levels = daemon_levels()
    assert levels == set(vocabulary.GPU_LEVELS)  # the scenarios above reach every level
    assert set(fmt.LEVEL_STYLE) == set(vocabulary.GPU_LEVELS)
    for level in levels:
        row = fmt.gpu_line(gpu(0, 50, level))
        dot = next(span for span in row.spans if row.plain[span.start:span.end] == " ●")
        assert str(dot.style) == fmt.LEVEL_STYLE[level], level


@pytest.mark.parametrize("reason", sorted(set(THROTTLE_BITS.values())))
def test_the_tui_flags_a_throttle_reason_exactly_when_the_daemon_does(reason: str) -> None:
    """sw_power_cap is normal under load: the daemon raises no flag, so the TUI shows no THR."""
    health = evaluate(sample(throttle_reasons=(reason,)))
    row = gpu(0, 50, health.level, list(health.flags))
    row["throttle_reasons"] = [reason]
    shown = "THR" in fmt.gpu_line(row).plain
    assert shown == bool(health.flags), (reason, health.flags)
    assert (fmt.gpu_detail(row) is not None) == bool(health.flags)


def test_the_daemons_activity_states_are_the_ones_the_tui_words() -> None:
    """Drive the real tracker through output, a busy quiet spell and silence."""
    t = ActivityTracker(started=0.0)
    seen = set()
    t.output_seen(1.0)
    seen.add(t.state(2.0, 30.0))                               # working
    t.sample(TreeSample(when=1.0, cpu_s=0.0, read_bytes=0, count=1), None)
    t.sample(TreeSample(when=19.0, cpu_s=9.0, read_bytes=0, count=1), None)
    seen.add(t.state(20.0, 30.0))                              # quiet, but the CPU works
    seen.add(t.state(60.0, 30.0))                              # silent
    assert seen == set(vocabulary.ACTIVITY_STATES)
    for state in vocabulary.ACTIVITY_STATES:
        shown = fmt.activity_text({"state": state, "quiet_s": 40, "still_s": 40,
                                   "silence_s": 30}, "starting").plain
        assert shown.startswith("activity ") and shown.split()[1] in {"working", "quiet",
                                                                      "silent"}, shown


@pytest.mark.anyio
async def test_the_tui_subscribes_to_the_topics_the_daemon_publishes() -> None:
    async with attached(FakeState()) as (state, _app, _pilot):
        asked = [args for cmd, args in state.requests if cmd == "subscribe"]
    assert DAEMON_TOPICS == vocabulary.TOPICS
    assert asked and list(asked[0]["topics"]) == list(DAEMON_TOPICS)  # it follows everything
