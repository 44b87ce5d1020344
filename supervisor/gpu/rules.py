"""GPU health rules: thresholds, the XID catalog and :func:`evaluate` (a pure function).

Source: ``reference/gpu-health.md`` §1 (signal table) and §4 (XID catalog). Levels rise
ok < warn < critical < lost; "unknown" means the sample carried no signal at all. NA is
"no signal": it never makes a GPU healthier or sicker.

Actions are the reference's supervisor actions, spelled for an operator:

* ``reboot node`` (NODE-STOP / RESTART_BM), ``drain and reset GPU`` (STOP + reset),
* ``restart the server`` (RESTART-APP: the GPU is fine),
* ``degrade GPU ...`` / ``reset GPU at next idle window`` / ``watch ...`` (WARN / DEGRADE).
"""

from __future__ import annotations

import re
from collections.abc import Sequence
from typing import Final

from ..protocol.vocabulary import BENIGN_THROTTLE, HW_THROTTLE
from .types import LEVELS, NA, GpuHealth, GpuSample, NAType, XidEvent

__all__ = [
    "ACTION_REBOOT",
    "ACTION_RESET",
    "ACTION_RESTART_APP",
    "APP_XID_WINDOW_S",
    "BENIGN_THROTTLE",
    "HW_THROTTLE",
    "PCIE_REPLAYS_PER_MIN",
    "REMAPPED_ROWS_UNC_MAX",
    "TEMP_CRIT_C",
    "TEMP_MARGIN_C",
    "TEMP_WARN_C",
    "THROTTLE_BITS",
    "XID_TABLE",
    "decode_throttle",
    "describe_xid",
    "evaluate",
    "worst",
]

# --- thresholds ---------------------------------------------------------------------------

#: Absolute temperature rules, used when NVML gives no slowdown threshold (row 19).
TEMP_WARN_C: Final = 85.0
TEMP_CRIT_C: Final = 90.0
#: With a known slowdown threshold: warn when closer than this, critical at/above it.
TEMP_MARGIN_C: Final = 5.0
#: DCGM warns above 8 PCIe replays a minute (row 16).
PCIE_REPLAYS_PER_MIN: Final = 8.0
#: Azure NHC fails a GPU above 512 uncorrectable row remaps (row 11).
REMAPPED_ROWS_UNC_MAX: Final = 512
#: Utilisation above which a PCIe generation below max counts as downtrained (row 17).
PCIE_GEN_LOAD_UTIL: Final = 50.0
#: Application-class XIDs (RESTART-APP) matter this long; GPU-class ones until a reset.
APP_XID_WINDOW_S: Final = 600.0
#: Two or more contained memory errors (XID 94) in this window -> degrade (row 8).
XID94_WINDOW_S: Final = 24 * 3600.0

ACTION_REBOOT: Final = "reboot node"
ACTION_RESET: Final = "drain and reset GPU"
ACTION_RESTART_APP: Final = "restart the server"
ACTION_RMA: Final = "drain and reset GPU; RMA candidate, keep out of service"
ACTION_DEGRADE: Final = "degrade GPU (avoid for new launches)"
ACTION_IDLE_RESET: Final = "reset GPU at next idle window"
ACTION_COOLING: Final = "stop new launches on GPU; check cooling"
ACTION_WATCH: Final = "watch (degrade if sustained)"

# --- clock event (throttle) reasons --------------------------------------------------------

#: NVML clock event reason bits -> short names (nvmlClocksEventReason*, legacy extras).
THROTTLE_BITS: Final = {
    0x1: "gpu_idle",
    0x2: "applications_clocks",
    0x4: "sw_power_cap",
    0x8: "hw_slowdown",
    0x10: "sync_boost",
    0x20: "sw_thermal",
    0x40: "hw_thermal",
    0x80: "hw_power_brake",
    0x100: "display_clocks",
    0x200: "board_limit",
    0x400: "reliability",
}
# BENIGN_THROTTLE (normal under LLM load or idle, rows 19, 21: never a flag) and HW_THROTTLE
# (hardware slowdowns, row 18) are shared with the clients: ..protocol.vocabulary.


def decode_throttle(mask: int) -> tuple[str, ...]:
    """Bitmask -> names in bit order; unknown bits become ``bit_0x...``."""
    names = []
    for bit in range(0, 64):
        b = 1 << bit
        if mask & b:
            names.append(THROTTLE_BITS.get(b, f"bit_{b:#x}"))
    return tuple(names)


# --- XID catalog (reference §4) ------------------------------------------------------------

_C, _W = "critical", "warn"
#: xid -> (description, level, action)
XID_TABLE: Final[dict[int, tuple[str, str, str]]] = {
    8: ("GPU stopped processing (FIFO idle timeout)", _W, ACTION_RESTART_APP),
    11: ("invalid or corrupted push buffer stream", _W, ACTION_RESTART_APP),
    13: ("graphics engine exception", _W, ACTION_RESTART_APP),
    25: ("invalid or corrupted push buffer stream", _W, ACTION_RESTART_APP),
    31: ("GPU memory page fault", _W, ACTION_RESTART_APP),
    32: ("invalid or corrupted push buffer stream", _W, ACTION_RESTART_APP),
    43: ("GPU stopped processing (channel reset)", _W, ACTION_RESTART_APP),
    45: ("preemptive cleanup after earlier errors", _W, "act on the XID that came with it"),
    46: ("GPU stopped processing (timeout)", _C, ACTION_RESET),
    48: ("double-bit ECC error", _C, ACTION_RESET),
    61: ("internal micro-controller breakpoint/warning", _W, ACTION_WATCH),
    62: ("internal micro-controller halt", _C, ACTION_RESET),
    63: ("row remap / page retirement event (reset to activate)", _W, ACTION_IDLE_RESET),
    64: ("row remap / page retirement failure", _C, ACTION_RMA),
    68: ("video decoder exception", _W, ACTION_RESTART_APP),
    69: ("graphics engine class error", _W, ACTION_RESTART_APP),
    74: ("NVLink error", _C, ACTION_RESET),
    79: ("GPU fell off the bus", _C, ACTION_REBOOT),
    80: ("corrupted data sent to GPU", _W, ACTION_RESTART_APP),
    92: ("excessive single-bit ECC rate", _W, ACTION_DEGRADE),
    94: ("contained memory error", _W, ACTION_RESTART_APP),
    95: ("uncontained memory error", _C, ACTION_RESET),
    109: ("context switch timeout", _C, ACTION_RESET),
    110: ("security fault error", _C, ACTION_RESET),
    119: ("GSP RPC timeout", _C, ACTION_RESET),
    120: ("GSP error", _C, ACTION_RESET),
    136: ("NVLink link training failed", _C, ACTION_RESET),
    140: ("unrecovered ECC error", _C, ACTION_RESET),
    143: ("GPU initialisation error", _C, ACTION_RESET),
    154: ("GPU recovery action changed", _W, ACTION_WATCH),
    155: ("NVLink SW-defined error", _C, ACTION_RESET),
    156: ("resource retirement event", _W, ACTION_IDLE_RESET),
    157: ("resource retirement failure", _C, ACTION_RMA),
    158: ("GPU fatal timeout", _C, ACTION_RESET),
    171: ("uncorrectable error detail (DRAM)", _C, ACTION_RESET),
    172: ("uncorrectable error detail (SRAM)", _C, ACTION_RESET),
}
for _x in range(144, 151):
    XID_TABLE[_x] = ("NVLink5 unit error", _W, "decode NVLink error; reset GPU if fatal")
del _x

#: XIDs whose action is RESTART-APP: they age out after APP_XID_WINDOW_S.
APP_XIDS: Final = frozenset(x for x, (_, _, a) in XID_TABLE.items() if a == ACTION_RESTART_APP) | {
    45
}


def describe_xid(xid: int) -> str:
    entry = XID_TABLE.get(xid)
    return entry[0] if entry else "unknown XID"


def _xid_verdict(ev: XidEvent) -> tuple[str, str]:
    """(level, action) for one XID event."""
    if ev.xid == 154:  # recovery action changed: key on the target in its text
        text = ev.description.lower()
        if "reboot" in text:
            return _C, ACTION_REBOOT
        if "reset" in text or "flr" in text:
            return _C, ACTION_RESET
        if "drain p2p" in text:
            return _C, "drain P2P: no multi-GPU launches across this GPU"
    entry = XID_TABLE.get(ev.xid)
    if entry is None:
        return _W, "investigate XID (see NVIDIA XID catalog)"
    return entry[1], entry[2]


# --- recovery action field 230 --------------------------------------------------------------

_RECOVERY: Final[dict[int, tuple[str, str, str]]] = {
    1: ("NVIDIA recovery action: GPU reset", _C, ACTION_RESET),
    2: ("NVIDIA recovery action: node reboot", _C, ACTION_REBOOT),
    3: (
        "NVIDIA recovery action: drain P2P",
        _C,
        "drain P2P: no multi-GPU launches across this GPU",
    ),
    4: ("NVIDIA recovery action: drain and reset", _C, ACTION_RESET),
    5: ("NVIDIA recovery action: recover IMEX domain", _W, "recover IMEX domain"),
    6: ("NVIDIA recovery action: bus reset", _C, ACTION_RESET),
    7: ("NVIDIA recovery action: system reboot", _C, ACTION_REBOOT),
}

_RANK: Final = {level: rank for rank, level in enumerate(LEVELS)}


def worst(levels: Sequence[str]) -> str:
    return max(levels, key=lambda lv: _RANK[lv], default="ok")


def _num(v: object) -> float | None:
    return None if v is NA or v is None else float(v)  # type: ignore[arg-type]


def _fmt(v: float) -> str:
    return f"{v:g}" if v == int(v) else f"{v:.1f}"


_SIGNAL_FIELDS: Final = (
    "utilization_gpu",
    "memory_used_mib",
    "temperature_c",
    "power_w",
    "throttle_reasons",
    "ecc_volatile_uncorrected",
    "remapped_rows_pending",
    "pcie_replay_counter",
)


def evaluate(
    sample: GpuSample,
    recent_xids: Sequence[XidEvent] = (),
    baseline: GpuSample | None = None,
) -> GpuHealth:
    """Apply the rules of gpu-health.md §1/§4 to one sample.

    ``recent_xids`` may hold events of any GPU; only ``sample.index``'s count. Hardware XIDs
    count for as long as the caller keeps them (until a reset); application-class XIDs only
    within :data:`APP_XID_WINDOW_S` of ``sample.timestamp``. ``baseline`` is an earlier
    sample of the same GPU for counter deltas (PCIe replays, aggregate ECC).
    """
    found: list[tuple[str, str, str | None]] = []  # (level, flag, action)

    def add(level: str, flag: str, action: str | None) -> None:
        found.append((level, flag, action))

    if sample.lost:
        add("lost", "GPU lost (NVML: GPU is lost / fell off the bus)", ACTION_REBOOT)

    # XIDs
    n94 = 0
    for ev in recent_xids:
        if ev.gpu_index != sample.index:
            continue
        age = sample.timestamp - ev.timestamp if sample.timestamp else 0.0
        if ev.xid == 94 and age <= XID94_WINDOW_S:
            n94 += 1
        if ev.xid in APP_XIDS and age > APP_XID_WINDOW_S:
            continue
        level, action = _xid_verdict(ev)
        add(level, f"XID {ev.xid}: {ev.description or describe_xid(ev.xid)}", action)
    if n94 >= 2:
        add("warn", f"XID 94 x{n94} within 24 h", ACTION_DEGRADE)

    # NVIDIA's own recovery verdict
    ra = sample.recovery_action
    if isinstance(ra, int) and ra:
        desc, level, action = _RECOVERY.get(
            ra, (f"NVIDIA recovery action {ra}", _W, "investigate recovery action")
        )
        add(level, desc, action)

    # ECC, row remapping, page retirement
    vol = _num(sample.ecc_volatile_uncorrected)
    if vol is not None and vol > 0:
        add(_C, f"ECC uncorrected errors (volatile {int(vol)})", ACTION_RESET)
    agg = _num(sample.ecc_aggregate_uncorrected)
    agg0 = _num(baseline.ecc_aggregate_uncorrected) if baseline is not None else None
    if agg is not None and agg0 is not None and agg > agg0 and not (vol and vol > 0):
        add(_C, f"ECC uncorrected errors (aggregate +{int(agg - agg0)})", ACTION_RESET)
    if sample.remapped_rows_failure is True:
        add(_C, "row remapping failure", ACTION_RMA)
    if sample.remapped_rows_pending is True:
        add(_W, "row remap pending (reset to activate)", ACTION_IDLE_RESET)
    unc = _num(sample.remapped_rows_uncorrectable)
    if unc is not None and unc > REMAPPED_ROWS_UNC_MAX:
        add(_W, f"{int(unc)} uncorrectable remapped rows > {REMAPPED_ROWS_UNC_MAX}", ACTION_DEGRADE)
    if sample.retired_pages_pending is True:
        add(_W, "page retirement pending (reset to activate)", ACTION_IDLE_RESET)

    # temperature
    temp = _num(sample.temperature_c)
    if temp is not None:
        slow = _num(sample.temperature_slowdown_c)
        crit = slow if slow is not None else TEMP_CRIT_C
        warn = slow - TEMP_MARGIN_C if slow is not None else TEMP_WARN_C
        if temp >= crit:
            add(_C, f"temperature {_fmt(temp)} C >= {_fmt(crit)} C", ACTION_COOLING)
        elif temp >= warn:
            add(_W, f"temperature {_fmt(temp)} C >= {_fmt(warn)} C", ACTION_WATCH)

    # clock event (throttle) reasons
    reasons = sample.throttle_reasons
    if not isinstance(reasons, NAType):
        for r in reasons:
            if r in HW_THROTTLE:
                add(
                    _W,
                    f"hardware slowdown ({r})",
                    "degrade GPU if sustained; check power and cooling",
                )
            elif r == "sw_thermal":
                add(_W, "software thermal slowdown (sw_thermal)", ACTION_WATCH)
            elif r not in BENIGN_THROTTLE:
                add(_W, f"clock slowdown ({r})", ACTION_WATCH)

    # PCIe
    replay = _num(sample.pcie_replay_counter)
    replay0 = _num(baseline.pcie_replay_counter) if baseline is not None else None
    if replay is not None and replay0 is not None and replay > replay0:
        delta = replay - replay0
        dt = sample.timestamp - baseline.timestamp if baseline is not None else 0.0
        # DCGM: > 8 a minute. Over windows shorter than a minute, require > 8 in the window,
        # so a couple of replays between two close samples do not read as a high rate.
        limit = PCIE_REPLAYS_PER_MIN * max(dt / 60.0, 1.0)
        if delta > limit:
            add(
                _W,
                f"PCIe replays +{int(delta)} in {max(dt, 0.0):.0f} s "
                f"(> {PCIE_REPLAYS_PER_MIN:g}/min)",
                ACTION_WATCH,
            )
    w, wmax = _num(sample.pcie_link_width), _num(sample.pcie_link_width_max)
    if w is not None and wmax is not None and 0 < w < wmax:
        add(_W, f"PCIe link width x{int(w)} < x{int(wmax)}", ACTION_DEGRADE)
    g, gmax = _num(sample.pcie_link_gen), _num(sample.pcie_link_gen_max)
    util = _num(sample.utilization_gpu)
    if (
        g is not None
        and gmax is not None
        and 0 < g < gmax
        and util is not None
        and util >= PCIE_GEN_LOAD_UTIL
    ):
        add(_W, f"PCIe link gen {int(g)} < gen {int(gmax)} under load", ACTION_WATCH)

    if not found:
        if not sample.lost and all(getattr(sample, f) is NA for f in _SIGNAL_FIELDS):
            return GpuHealth(index=sample.index, level="unknown", flags=("no signal",), action=None)
        return GpuHealth(index=sample.index, level="ok", flags=(), action=None)

    found.sort(key=lambda t: -_RANK[t[0]])  # stable: keeps rule order within a level
    flags: list[str] = []
    for _, flag, _a in found:
        if flag not in flags:
            flags.append(flag)
    top = found[0]
    return GpuHealth(index=sample.index, level=top[0], flags=tuple(flags), action=top[2])


# Kernel-log XID lines, for callers that also tail /dev/kmsg (reference §4).
XID_LOG_RE: Final = re.compile(r"NVRM: Xid \(PCI:([0-9a-fA-F:.]+)\): (\d+),\s*(.*)")
