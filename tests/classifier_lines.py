"""Synthetic log lines for the classifier's rule tests, and the verdict helpers they share.

The lines are built the way the engines print them (a traceback's frames, then the raised
message); the helpers classify them and return (or check) the fields a test asserts.
"""

from __future__ import annotations

from supervisor.diagnosis.classifier import Verdict, classify_text
from supervisor.engines import get_engine
from supervisor.states import Cause, Outcome, Phase

VL = "/usr/local/lib/python3.12/dist-packages/vllm"
SG = "/usr/local/lib/python3.12/dist-packages/sglang/srt"
TORCH = "/usr/local/lib/python3.12/dist-packages/torch"
# a vLLM V1 engine core's error prefix
CORE = "(EngineCore_DP0 pid=2211) ERROR 03-02 10:11:12 [core.py:932] "


def tb(*frames: tuple[str, str, str], error: str = "", prefix: str = "") -> str:
    """A traceback: (file, function, source line) per frame, then the exception line (none:
    the paste was cut after the last frame)."""
    lines = ["Traceback (most recent call last):"]
    for path, func, source in frames:
        lines += [f'  File "{path}", line 100, in {func}', f"    {source}"]
    if error:
        lines.append(error)
    return "\n".join(prefix + line for line in lines) + "\n"


def frame_lines(*where: tuple[str, str]) -> list[str]:
    """A traceback's header and (file, function) frames with a dummy source line, no error."""
    out = ["Traceback (most recent call last):"]
    for path, func in where:
        out += [f'  File "{path}", line 10, in {func}', "    x = y()"]
    return out


def verdict(*lines: str, engine: str | None = None) -> Verdict:
    """The verdict on a fragment of the given lines."""
    return classify_text("\n".join(lines) + "\n", engine=engine)


def cause_of(text: str, engine: str) -> Cause | None:
    """The cause of a fragment that must read as a crash."""
    v = classify_text(text, engine=engine)
    assert v.outcome is Outcome.CRASHED, v
    return v.cause


def verdict_of(text: str, engine: str) -> tuple[Outcome, Phase, Cause | None]:
    v = classify_text(text, engine=engine)
    return v.outcome, v.phase, v.cause


def check(text: str, engine: str, phase: Phase, cause: Cause) -> None:
    """The fragment is a crash in `phase` of `cause`."""
    v = classify_text(text, engine=engine)
    assert (v.outcome, v.phase, v.cause) == (Outcome.CRASHED, phase, cause), v


def tracker_phase(*lines: str, engine: str = "vllm") -> Phase:
    """The phase an engine's live tracker reaches on the lines."""
    tracker = get_engine(engine).new_tracker()
    for line in lines:
        tracker.feed(line)
    return tracker.phase
