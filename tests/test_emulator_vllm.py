"""The emulator's vLLM mode against reality: the phase-marker lines a real vLLM run printed
(tests/fixtures/real-engines/r01, vLLM 0.32 CPU build, from make test-real), by the same
processes and source files, in the same order."""

from __future__ import annotations

import re
import signal
import subprocess
import sys
import urllib.request
from pathlib import Path

from supervisor.diagnosis import classify_text
from supervisor.emulator.vllm_mode import _memory_refusal
from supervisor.engines.base import SHARD_BAR_RE
from supervisor.engines.vllm import _MARKERS
from tests.e2e.harness import free_port, wait_until
from tests.e2e.harness import test_env as child_env

REAL = Path(__file__).parent / "fixtures" / "real-engines" / "r01-vllm-cpu-ready-tiny-llama.log"
UP = "Application startup complete"
# `(EngineCore pid=18327) INFO 12-01 15:46:20 [core.py:402] ...`; `VllmWorker-0` is a Worker
_HEADER = re.compile(r"\((?P<proc>[A-Za-z]+?)(?:-\d+)? pid=\d+\) [A-Z]+ \d\d-\d\d [\d:]+ "
                     r"\[(?P<file>[\w.]+):\d+\]")


def marker_lines(lines: list[str]) -> list[tuple[str, str, str]]:
    """(process, source file, the marker's text) of each line the vLLM tracker's markers or its
    shard bar match, up to and including the ready line."""
    out: list[tuple[str, str, str]] = []
    for line in lines:
        h = _HEADER.search(line)
        where = (h["proc"].replace("Vllm", ""), h["file"]) if h else ("", "")
        bar = SHARD_BAR_RE.search(line)
        if bar:
            out.append((*where, "shards " + ("begin" if bar[1] == "0" else
                                             "end" if bar[1] == bar[2] else "step")))
        for rx, _phase in _MARKERS:
            m = rx.search(line)
            if m:
                out.append((*where, m[0]))
                break
        if UP in line:
            break
    return out


def _real_body() -> list[str]:
    lines = REAL.read_text().splitlines()
    return lines[lines.index("") + 1:]


def test_the_real_log_has_every_phase_marker() -> None:
    texts = [t for _, _, t in marker_lines(_real_body())]
    for needed in ("non-default args", "Starting to load model", "shards end",
                   "Warming up model for the compilation", "CPU KV cache size",
                   "init engine (profile, create kv cache, warmup model) took", UP):
        assert needed in texts, needed


def test_vllm_mode_prints_the_real_marker_lines_in_order() -> None:
    port = free_port()
    proc = subprocess.Popen(
        [sys.executable, "-m", "supervisor.emulator.vllm_mode", "--model", "/models/tiny",
         "--host", "127.0.0.1", "--port", str(port)],
        stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True,
        env={**child_env(), "SGLANG_EMULATOR_TIME_SCALE": "0.01"})
    assert proc.stdout is not None
    try:
        out: list[str] = []
        for line in proc.stdout:
            out.append(line.rstrip("\n"))
            if UP in line:
                break
        assert marker_lines(out) == marker_lines(_real_body())
        # and it serves, as the real one does once startup is complete
        health = wait_until(lambda: _get(f"http://127.0.0.1:{port}/health"), 10, "/health")
        assert health == 200
    finally:
        proc.send_signal(signal.SIGTERM)
        proc.stdout.close()
        assert proc.wait(10) == 0


def _get(url: str) -> int | None:
    try:
        with urllib.request.urlopen(url, timeout=2) as r:
            return int(r.status)
    except OSError:
        return None


def test_marker_lines_see_a_missing_or_reordered_marker() -> None:
    real = _real_body()
    kv = next(i for i, ln in enumerate(real) if "CPU KV cache size" in ln)
    init = next(i for i, ln in enumerate(real) if "init engine" in ln)
    swapped = list(real)
    swapped[kv], swapped[init] = swapped[init], swapped[kv]
    assert marker_lines(swapped) != marker_lines(real)
    assert marker_lines(real[:kv] + real[kv + 1:]) != marker_lines(real)


REAL_REFUSED = REAL.parent / "r02-vllm-cpu-memory-utilisation-above-free.log"
# an exception's own line (`ValueError: ...`, `Exception: ...`) or a process saying it failed
_FAILURE = re.compile(r"^(?:\w*(?:Error|Exception): |\w+ failed to start\.|Process \w+:$)")


def failure_lines(lines: list[str]) -> list[tuple[str, str]]:
    """(process, the failure line with numbers and paths blanked) of each exception or
    'failed to start' line, in order: the shape of a startup crash, not its numbers."""
    out: list[tuple[str, str]] = []
    for line in lines:
        h = _HEADER.search(line)
        proc = h["proc"].replace("Vllm", "") if h else ""
        msg = line[h.end():].strip() if h else line.strip()
        if _FAILURE.match(msg):
            out.append((proc, re.sub(r"\d+(?:\.\d+)?", "#", msg)))
    return out


def test_vllm_mode_refuses_memory_it_lacks_as_the_real_worker_did() -> None:
    real = REAL_REFUSED.read_text().splitlines()
    body = real[real.index("") + 1:]
    proc = subprocess.run(
        [sys.executable, "-m", "supervisor.emulator.vllm_mode", "--model", "/models/tiny",
         "--host", "127.0.0.1", "--port", str(free_port()), "--gpu-memory-utilization", "0.99"],
        capture_output=True, text=True, timeout=30,
        env={**child_env(), "SGLANG_EMULATOR_TIME_SCALE": "0.01",
             "VLLM_EMULATOR_MEMORY": "8.35/10.46"})
    out = (proc.stdout + proc.stderr).splitlines()
    assert proc.returncode == 1
    assert failure_lines(out) == failure_lines(body)
    assert any("ValueError: Available memory on node 0 (8.35/10.46 GiB)" in ln for ln in out)
    # the same verdict from both logs
    ours, theirs = classify_text("\n".join(out)), classify_text("\n".join(body))
    assert (ours.outcome, ours.phase, ours.cause) == (theirs.outcome, theirs.phase, theirs.cause)
    assert str(ours.cause) == "cuda_oom"


def test_vllm_mode_starts_when_the_requested_memory_is_free(monkeypatch) -> None:
    monkeypatch.setenv("VLLM_EMULATOR_MEMORY", "7/10")
    assert _memory_refusal(0.69) is None
    assert "(0.71, 7.10 GiB)" in (_memory_refusal(0.71) or "")
