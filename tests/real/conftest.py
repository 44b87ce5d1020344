"""The real-engine tier: real vLLM and SGLang under the real daemon (``make test-real``).

Not part of ``make test`` (pyproject's addopts ignore this folder). The engines' environments
and the tiny models come from setup_engines.py, which ``make test-real`` runs first; a test that
finds them missing fails and says how to make them.
"""

from __future__ import annotations

import json
import os
import textwrap
from pathlib import Path

import pytest
from e2e.conftest import make_daemon, workdir, write_profile  # noqa: F401  (fixtures)

from .setup_engines import LLAMA, LLAMA_HD16, SGLANG, VLLM, EngineEnv, TinyModel

# Offline: no hub look-ups (there is no network), no usage reports.
OFFLINE_ENV = {"HF_HUB_OFFLINE": "1", "TRANSFORMERS_OFFLINE": "1", "VLLM_NO_USAGE_STATS": "1",
               "DO_NOT_TRACK": "1"}


def _need(thing: EngineEnv | TinyModel) -> Path:
    if not thing.ready:
        pytest.fail(f"{thing.dir} is missing: run `make test-real` (or python "
                    "tests/real/setup_engines.py) to install the engines and make the models")
    return thing.python if isinstance(thing, EngineEnv) else thing.dir


@pytest.fixture
def vllm_python() -> Path:
    return _need(VLLM)


@pytest.fixture
def sglang_python() -> Path:
    return _need(SGLANG)


@pytest.fixture
def tiny_model() -> Path:
    return _need(LLAMA)


@pytest.fixture
def hd16_model() -> Path:
    return _need(LLAMA_HD16)


def toml_table(items: dict[str, object]) -> str:
    def value(v: object) -> str:
        if isinstance(v, bool):
            return "true" if v else "false"
        if isinstance(v, (int, float)):
            return repr(v)
        return '"' + str(v).replace("\\", "\\\\").replace('"', '\\"') + '"'
    return "{ " + ", ".join(f"{k} = {value(v)}" for k, v in items.items()) + " }"


def vllm_profile(python: Path, model: Path, port: int, *, util: float = 0.25,
                 args: dict[str, object] | None = None, env: dict[str, str] | None = None,
                 silence: float = 60, health_interval: float = 2, stop_grace: float = 20,
                 extra: str = "") -> str:
    """A profile that launches the cached vLLM (CPU build) on a tiny model."""
    all_args = {"max-model-len": 256, "dtype": "bfloat16", "gpu-memory-utilization": util,
                **(args or {})}
    return textwrap.dedent(f"""\
        description = "real vLLM (CPU build) on a tiny Llama"
        engine = "vllm"

        [launch]
        command = ["{python}", "-m", "vllm.entrypoints.openai.api_server"]
        model = "{model}"
        host = "127.0.0.1"
        port = {port}
        args = {toml_table(all_args)}
        env = {toml_table({**OFFLINE_ENV, **(env or {})})}

        [timeouts]
        launch = 400
        weight_loading = 300
        kv_cache_alloc = 300
        warmup = 300
        silence = {silence}
        stop_grace = {stop_grace}

        [health]
        interval = {health_interval}
        timeout = 5
        failures = 3
        """) + extra


def sglang_profile(python: Path, model: Path, port: int, *, args: dict[str, object],
                   env: dict[str, str] | None = None) -> str:
    return textwrap.dedent(f"""\
        description = "real SGLang on a host without a GPU"
        engine = "sglang"

        [launch]
        command = ["{python}", "-m", "sglang.launch_server"]
        model = "{model}"
        host = "127.0.0.1"
        port = {port}
        args = {toml_table(args)}
        env = {toml_table({**OFFLINE_ENV, **(env or {})})}

        [timeouts]
        launch = 400
        weight_loading = 300
        silence = 120
        stop_grace = 20
        """)


def keep_tmp() -> bool:
    return bool(os.environ.get("GNS_KEEP_TMP"))


class EventFollower:
    """`supervisor-ctl events -f --json` in the background: every pushed event, in order."""

    def __init__(self, d) -> None:
        import subprocess
        import sys
        import threading

        from e2e.harness import REPO, test_env

        self.events: list[dict] = []
        self.proc = subprocess.Popen(
            [sys.executable, "-m", "supervisor.cli.ctl", "--socket", str(d.sock), "events",
             "-f", "--json"], stdout=subprocess.PIPE, stderr=subprocess.DEVNULL, cwd=REPO,
            env=test_env())
        self.thread = threading.Thread(target=self._read, daemon=True)
        self.thread.start()

    def _read(self) -> None:
        assert self.proc.stdout is not None
        for raw in self.proc.stdout:
            try:
                self.events.append(json.loads(raw))
            except ValueError:
                continue

    def subscribed(self, d) -> None:
        """Return once the follower sees events: a checklist item added shows up."""
        from e2e.harness import wait_until

        for _ in range(10):
            d.ctl("checklist", "add", "follower is listening", check=True)
            try:
                wait_until(lambda: any("follower is listening" in json.dumps(e)
                                       for e in self.events), 3, "the follower")
                return
            except AssertionError:
                continue
        raise AssertionError("events -f never showed the checklist item")

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.thread.join(10)
        if self.proc.stdout is not None:
            self.proc.stdout.close()

    def progress(self, kind: str) -> list[int]:
        """The `done` counts of every pushed progress of ``kind``, in order."""
        out: list[int] = []
        for ev in self.events:
            stack = [ev]
            while stack:
                item = stack.pop()
                if isinstance(item, dict):
                    p = item.get("progress")
                    if isinstance(p, dict) and p.get("kind") == kind:
                        out.append(int(p["done"]))
                        continue
                    stack.extend(item.values())
                elif isinstance(item, list):
                    stack.extend(item)
        return out

    def phases(self) -> list[str]:
        """The run's phase in every pushed run snapshot, each change once, in order: what a
        subscriber (the TUI) saw live. A poll of `status` can miss a phase that lasts less
        than a poll (vLLM's warmup, from `init engine ... took` to `Application startup
        complete`, is ~1 s on the CPU build); a push cannot."""
        out: list[str] = []
        for ev in self.events:
            data = ev.get("data")
            if ev.get("event") == "run" and isinstance(data, dict) and data.get("phase"):
                if not out or out[-1] != data["phase"]:
                    out.append(data["phase"])
        return out
