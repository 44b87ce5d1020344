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
