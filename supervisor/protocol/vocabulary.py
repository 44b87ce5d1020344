"""Words the daemon, supervisor-ctl and the TUI share on the wire, defined once.

The daemon produces them, the clients show them: a word added or renamed here is seen by
every side at once (tests/test_vocabulary.py checks the two agree). A leaf module: no
imports from the project, so the TUI may use it under its import contract.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

# -- event topics ---------------------------------------------------------------------------

#: What a client may ``subscribe`` to.
TOPICS: Final = ("run", "log", "gpus", "checklist", "fallback", "verdict", "daemon")
#: Which subscription topic carries each event kind (a verdict comes with its run).
TOPIC_OF: Final[Mapping[str, str]] = {
    "run": "run", "verdict": "run", "log": "log", "gpus": "gpus", "checklist": "checklist",
    "fallback": "fallback", "daemon": "daemon", "phase": "run"}

# -- GPU health -----------------------------------------------------------------------------

#: A GPU's ``health.level``, in rising severity; ``unknown``: the sample carried no signal.
GPU_LEVELS: Final = ("unknown", "ok", "warn", "critical", "lost")

#: NVML clock-event (throttle) reasons that are normal under LLM load or idle: never a flag.
BENIGN_THROTTLE: Final = frozenset(
    {"gpu_idle", "applications_clocks", "sw_power_cap", "sync_boost", "display_clocks"})
#: Hardware slowdowns.
HW_THROTTLE: Final = frozenset({"hw_slowdown", "hw_thermal", "hw_power_brake"})

# -- activity of a run ----------------------------------------------------------------------

#: ``run.activity.state``: output lately; no output but the processes work; neither (or busy
#: in a wait that never ends) -- what the hung verdict counts.
ACTIVITY_STATES: Final = ("working", "quiet", "silent")
