"""`supervisor-ctl mcp` end to end: the MCP SDK's own stdio client drives the real MCP server
process, which talks to a real daemon running emulated SGLang servers.

An agent's session: list the tools and resources, switch with wait on a profile whose second
change hangs the launch (isolate finds it while progress notifications tell the phases), read
what it left; a read-only peer (another uid, when the tests run as root) is not offered, and not
allowed, switch; a daemon killed under the server is a clean tool error, and the same MCP session
carries on once a daemon is back.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import subprocess
import sys
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio
import pytest
from mcp import Client, MCPError, StdioServerParameters

from .conftest import write_profile
from .harness import REPO, Daemon, emulator_profile, free_port, wait_until
from .harness import test_env as _env

pytestmark = [pytest.mark.e2e, pytest.mark.anyio]

NOBODY = 65534
ALL_TOOLS = {"status", "profiles", "show_profile", "switch", "stop", "history", "logs",
             "checklist", "stacks", "gpus", "diagnose", "brief", "campaign_run",
             "campaign_status"}
MUTATING = {"switch", "stop", "stacks", "campaign_run"}


@pytest.fixture
def anyio_backend() -> str:
    return "asyncio"


@asynccontextmanager
async def mcp_session(sock: Path, as_uid: int | None = None) -> AsyncIterator[Client]:
    """The MCP SDK's client over stdio to ``supervisor-ctl --socket SOCK mcp``."""
    argv = [sys.executable, "-m", "supervisor.cli.ctl", "--socket", str(sock), "mcp"]
    env = _env()
    if as_uid is not None:
        argv = ["setpriv", f"--reuid={as_uid}", f"--regid={as_uid}", "--clear-groups", "--",
                *argv]
        env = {**env, "HOME": "/tmp", "PYTHONDONTWRITEBYTECODE": "1"}
    params = StdioServerParameters(command=argv[0], args=argv[1:], env=env, cwd=str(REPO))
    async with Client(params, read_timeout_seconds=150) as client:
        yield client


async def call(client: Client, name: str, args: dict[str, Any] | None = None,
               progress: list[tuple[float, str]] | None = None,
               seen: tuple[str, anyio.Event] | None = None) -> tuple[bool, str, Any]:
    """(is_error, text, structured content) of one tool call; its progress notifications go
    to ``progress``, and ``seen`` = (text, event) sets the event once one of them has text."""
    async def on_progress(value: float, total: float | None, message: str | None) -> None:
        if progress is not None:
            progress.append((value, message or ""))
        if seen is not None and seen[0] in (message or ""):
            seen[1].set()
    res = await client.call_tool(name, args or {}, progress_callback=on_progress)
    assert len(res.content) == 1 and res.content[0].type == "text", res
    return res.is_error, res.content[0].text, res.structured_content


def _tuned(workdir: Path) -> None:
    """Two changes on a good base: bad_env hangs CUDA-graph capture, good_env is harmless."""
    write_profile(workdir, "base", emulator_profile(
        "base", port=free_port(), fault="hang:cuda_graph_capture@GNS_BAD"))
    write_profile(workdir, "tuned", 'extends = "base"\n' + """
[[changes]]
name = "good_env"
env = { GNS_GOOD = "1" }

[[changes]]
name = "bad_env"
env = { GNS_BAD = "1" }

[fallback]
strategy = "isolate"
max_attempts = 6
""")


async def test_tools_and_resources(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    d = make_daemon()
    async with mcp_session(d.sock) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == ALL_TOOLS
        for t in tools.values():
            assert t.input_schema["type"] == "object", t.name
            assert t.input_schema["additionalProperties"] is False, t.name
            assert len(t.description or "") > 80, t.name
            assert t.annotations.read_only_hint is (t.name not in MUTATING | {"checklist"})
        switch = tools["switch"].input_schema
        assert switch["required"] == ["profile"]
        assert set(switch["properties"]) == {"profile", "wait", "timeout", "benchmark"}
        assert tools["diagnose"].input_schema["required"] == ["path"]

        resources = {str(r.uri): r for r in (await client.list_resources()).resources}
        assert set(resources) == {"supervisor://status", "supervisor://brief"}
        status = (await client.read_resource("supervisor://status")).contents[0]
        assert status.mime_type == "application/json"
        assert json.loads(status.text)["daemon"]["pid"] == d.proc.pid
        brief = (await client.read_resource("supervisor://brief")).contents[0]
        assert brief.mime_type == "text/markdown" and brief.text.startswith("# Handoff")

        # Bad input is the model's to read, and changes nothing.
        err, text, _ = await call(client, "switch", {"profile": 3})
        assert err and text.startswith("switch: bad arguments: 3 is not of type 'string'")
        err, text, _ = await call(client, "switch", {"profile": "nope"})
        assert err and text.startswith("not_found: "), text
        err, text, _ = await call(client, "logs", {"filter": "("})
        assert err and "is not a regular expression" in text
        err, text, _ = await call(client, "nosuch")
        assert err and text.startswith("no tool named 'nosuch'")
        assert d.run() is None


async def test_switch_wait_isolates_the_hang_with_progress(workdir: Path, make_daemon) -> None:
    _tuned(workdir)
    d = make_daemon()
    progress: list[tuple[float, str]] = []
    async with mcp_session(d.sock) as client:
        with anyio.fail_after(150):
            err, text, out = await call(client, "switch", {"profile": "tuned", "timeout": 120},
                                        progress)
        assert not err, text
        # The decision, not a poll: verdict, culprit and what serves, in JSON and in words.
        assert out["ok"] is False and out["requested"] == "tuned"
        v = out["verdict"]
        assert (v["status"], v["phase"]) == ("hung", "cuda_graph_capture"), v
        assert v["evidence"], v
        assert out["culprits"] == ["bad_env"]
        assert (out["serving"]["profile"], out["serving"]["changes"]) == ("tuned", ["good_env"])
        assert "requested: tuned -> FAILED" in text
        assert "verdict:   hung in cuda_graph_capture" in text
        assert "culprits:  bad_env" in text
        assert f"serving:   tuned + good_env (run {out['serving']['run_id']})" in text

        # Progress came while it waited: each phase of the first attempt, its verdict, the
        # fallback's steps; numbered in order.
        values = [p for p, _ in progress]
        assert values == sorted(values) and len(set(values)) == len(values)
        lines = [m.split(" ", 1)[1] for _, m in progress]
        first = [ln for ln in lines if ln.startswith("run #1 ")]
        assert [ln.rsplit(" / ", 1)[1] for ln in first][:4] == [
            "launch", "weight_loading", "kv_cache_alloc", "cuda_graph_capture"], lines
        assert any(ln.startswith("VERDICT run #1 tuned + good_env, bad_env: hung in "
                                 "cuda_graph_capture") for ln in lines), lines
        assert any(ln.startswith("fallback isolate:") and "culprits: bad_env" in ln
                   for ln in lines), lines

        # What it left is there for the next call (and the next agent).
        err, text, st = await call(client, "status")
        assert not err and st["run"]["status"] == "ready"
        assert st["fallback"]["culprits"] == ["bad_env"]
        err, text, hist = await call(client, "history", {"n": 10})
        assert [r["status"] for r in hist["runs"]] == ["hung", "stopped", "hung", "ready"]
        err, text, logs = await call(client, "logs", {"filter": "capture", "n": 3,
                                                      "run_id": hist["runs"][0]["id"]})
        assert not err and 0 < len(logs["lines"]) <= 3
        assert all("capture" in ln.lower() for ln in logs["lines"])
        err, text, _ = await call(client, "brief")
        assert not err and "Culprit change(s) found by isolation: **bad_env**" in text
        err, text, cl = await call(client, "checklist", {"action": "add",
                                                         "text": "report bad_env upstream"})
        assert not err and "report bad_env upstream" in text
        item = next(i for i in cl["items"] if i["title"] == "report bad_env upstream")
        err, text, cl = await call(client, "checklist", {"action": "done", "item": item["id"]})
        assert not err and f"[x] {item['id']:>4}  report bad_env upstream" in text
        log = d.state / "runs" / str(hist["runs"][0]["id"]) / "run.log"
        err, text, diag = await call(client, "diagnose", {"path": str(log)})
        # (what a killed emulator prints as it dies may read as a crash: the phase is sure)
        assert not err and (diag["engine"], diag["phase"]) == ("sglang", "cuda_graph_capture")
        assert text.startswith("engine:  sglang\noutcome: "), text
        err, text, _ = await call(client, "stop")
        assert not err and text == f"run {st['run']['id']}: stopped"


async def test_diagnose_takes_the_settings_the_launch_was_given(workdir: Path, tmp_path: Path,
                                                                make_daemon) -> None:
    """As `ctl diagnose --set`: an error naming what the launch set is a refused configuration,
    the evidence says which; settings that are not {name: text} are refused by the schema."""
    d = make_daemon()
    log = tmp_path / "run.log"
    log.write_text('INFO starting the server\nTraceback (most recent call last):\n'
                   f'  File "{tmp_path}/refuse.py", line 6, in <module>\n'
                   "    serve(mode)\nValueError: cannot honour 'zigzag' on this build\n")
    async with mcp_session(d.sock) as client:
        err, text, diag = await call(client, "diagnose", {"path": str(log)})
        assert not err and diag["cause"] == "unknown", text
        err, text, diag = await call(client, "diagnose", {"path": str(log),
                                                          "settings": {"frob-mode": "zigzag"}})
        assert not err and diag["cause"] == "invalid_config", text
        assert text.endswith("it names a setting of this launch: --frob-mode zigzag"), text
        err, text, diag = await call(client, "diagnose", {"path": str(log),
                                                          "settings": {"FROB_MODE": "zigzag"}})
        assert not err and diag["evidence"][-1] == \
            "it names a setting of this launch: FROB_MODE=zigzag", text
        for bad in ({"frob-mode": 3}, {"": "zigzag"}, ["frob-mode=zigzag"]):
            err, text, _ = await call(client, "diagnose", {"path": str(log), "settings": bad})
            assert err and "see the tool's input schema" in text, (bad, text)
        assert "Traceback" not in text


needs_root = pytest.mark.skipif(
    os.geteuid() != 0 or shutil.which("setpriv") is None,
    reason="a peer of another uid needs root and setpriv")


@needs_root
async def test_read_only_peer_cannot_switch(workdir: Path, make_daemon) -> None:
    workdir.chmod(0o755)  # another user must reach the socket
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    cfg = workdir / "supervisor.toml"
    cfg.write_text('socket_group = "nogroup"\n')
    d = make_daemon(config=cfg)
    async with mcp_session(d.sock, as_uid=NOBODY) as client:
        tools = {t.name: t for t in (await client.list_tools()).tools}
        assert set(tools) == ALL_TOOLS - MUTATING
        assert tools["checklist"].input_schema["properties"]["action"]["enum"] == ["list"]
        assert all(t.annotations.read_only_hint for t in tools.values())
        err, text, st = await call(client, "status")
        assert not err and st["run"] is None
        # Called anyway (a client that kept an old list): the daemon's refusal, in ctl's words.
        err, text, _ = await call(client, "switch", {"profile": "good", "timeout": 30})
        assert err and text.startswith("not_permitted: switch changes the daemon's state"), text
        err, text, _ = await call(client, "checklist", {"action": "add", "text": "x"})
        assert err and text.startswith("not_permitted: checklist changes"), text
    assert d.run() is None  # nothing was started
    assert d.ctl_json("checklist")["items"] == []


def _ctl_error(d: Daemon, *args: str) -> str:
    res = d.ctl(*args)
    assert res.returncode == 2, res
    return res.stderr.strip().removeprefix("supervisor-ctl: ")


async def test_killed_daemon_is_a_tool_error_and_the_session_recovers(
        workdir: Path, make_daemon) -> None:
    write_profile(workdir, "slow", emulator_profile(
        "slow", port=free_port(), fault="slow:weight_loading:30", silence=60))
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    first = make_daemon()
    async with mcp_session(first.sock) as client:
        err, _, st = await call(client, "status")
        assert not err and st["daemon"]["pid"] == first.proc.pid
        # A wait that runs out is an error that says the launch goes on.
        err, text, _ = await call(client, "switch", {"profile": "slow", "timeout": 0.5})
        assert err and text.startswith("timeout: request 1 not settled after 0.5 s; run "
                                       "status starting; the launch goes on"), text
        # Killed while a switch waits on it: the call ends with a clean error.
        loading = anyio.Event()
        outcome: list[tuple[bool, str, Any]] = []

        async def switch() -> None:
            outcome.append(await call(client, "switch", {"profile": "slow", "timeout": 120},
                                      seen=("weight_loading", loading)))
        with anyio.fail_after(60):
            async with anyio.create_task_group() as tg:
                tg.start_soon(switch)
                await loading.wait()
                first.proc.send_signal(signal.SIGKILL)
        first.proc.wait(10)
        err, text, _ = outcome[0]
        assert err and text.startswith(f"cannot reach the daemon at {first.sock}: "), text
        # The next call: the daemon is gone, and it says so as supervisor-ctl does.
        err, text, _ = await call(client, "status")
        assert err and text.startswith(_ctl_error(first, "status")), text
        assert text.endswith("the next call connects again")
        err, text, _ = await call(client, "history")
        assert err and "Connection refused; is it running?" in text
        with pytest.raises(MCPError, match="cannot reach the daemon at .*Connection refused"):
            await client.read_resource("supervisor://status")

        # A daemon is back: the same session carries on, and is told it restarted.
        second = make_daemon()
        wait_until(lambda: second.ctl("status").returncode == 0, 30, "the new daemon")
        err, text, st = await call(client, "status")
        assert not err, text
        assert st["daemon"]["pid"] == second.proc.pid
        assert text.startswith(f"note: the daemon restarted since the last call (pid "
                               f"{first.proc.pid}, now {second.proc.pid})"), text
        err, text, out = await call(client, "switch", {"profile": "good", "timeout": 60})
        assert not err and out["ok"] is True, text
    assert first.run_processes() == {}  # the new daemon's recovery ended the orphan


def test_mcp_without_the_sdk_says_how_to_install_it(tmp_path: Path) -> None:
    # An empty module named mcp first on the path: the SDK is as good as not installed.
    (tmp_path / "mcp.py").write_text("")
    env = {**_env(), "PYTHONPATH": f"{tmp_path}{os.pathsep}{REPO}"}
    res = subprocess.run([sys.executable, "-m", "supervisor.cli.ctl", "mcp"], env=env,
                         capture_output=True, text=True, timeout=30, cwd=REPO,
                         stdin=subprocess.DEVNULL)
    assert res.returncode == 2, res
    assert "pip install 'gpu-node-supervisor[mcp]'" in res.stderr


async def test_campaign_run_waits_for_the_report_with_progress(workdir: Path,
                                                              make_daemon) -> None:
    port = free_port()
    write_profile(workdir, "base", emulator_profile(
        "base", port=port, extra='\n[benchmark]\nkind = "chat"\nmax_tokens = 48\nrepeat = 2\n',
        env={"SGLANG_EMULATOR_TOKENS_PER_S": "60"}))
    write_profile(workdir, "exp", emulator_profile("exp", port=port, extends="base"))
    (workdir / "profiles" / "campaigns").mkdir()
    (workdir / "profiles" / "campaigns" / "small.toml").write_text(
        'baseline = "base"\ntime_budget = 300\n[[experiments]]\nname = "one"\nprofile = "exp"\n')
    d = make_daemon()
    async with mcp_session(d.sock) as client:
        err, text, st = await call(client, "campaign_status")
        assert not err and st["campaign"] is None and text.startswith("no campaign has run")
        err, text, _ = await call(client, "campaign_run", {"name": "nope"})
        assert err and text.startswith("bad_request: no campaign 'nope'"), text
        progress: list[tuple[float, str]] = []
        err, text, st = await call(client, "campaign_run", {"name": "small", "timeout": 150},
                                   progress=progress)
        assert not err, text
        assert st["status"] == "completed" and [e["name"] for e in st["experiments"]] == ["one"]
        assert st["baseline"]["benchmark"]["spread"]["tokens_per_s"]["n"] == 2
        assert text.startswith("# Campaign small: completed") and "| 1 | one | exp |" in text
        said = [m for _, m in progress]
        assert any("run #1 base: ready" in m for m in said), said
        assert any(m.endswith("campaign small: running, at baseline: started") for m in said)
        # (the last note may race the answer; the baseline's comes before the experiment)
        assert any(re.search(r"campaign small: running, at one: baseline base measured: "
                             r"[\d.]+ \+/- [\d.]+ tok/s \(2 samples\)$", m) for m in said), said
        assert [v for v, _ in progress] == sorted(v for v, _ in progress)
        err, again, st2 = await call(client, "campaign_status")
        assert not err and again == text and st2["report"] == st["report"]


async def test_switch_without_benchmark_leaves_it_out_of_that_launch(workdir: Path,
                                                                     make_daemon) -> None:
    """An agent putting a measured profile back to serve: `benchmark: false` reaches the
    daemon, which runs none; the same call without it measures."""
    bench = '\n[benchmark]\nkind = "chat"\nmax_tokens = 48\n'
    write_profile(workdir, "base", emulator_profile("base", port=free_port(), extra=bench))
    d = make_daemon()
    async with mcp_session(d.sock) as client:
        err, text, st = await call(client, "switch", {"profile": "base", "timeout": 60})
        assert not err and st["ok"], text
        measured = d.wait_run(lambda r: r.get("benchmark") is not None, 30, "the benchmark")
        err, text, st = await call(client, "switch", {"profile": "base", "timeout": 60,
                                                      "benchmark": False})
        assert not err and st["ok"], text
        run_id = st["run"]["id"]
        await anyio.sleep(max(3.0, 3 * measured["benchmark"]["duration_s"]))
        run = d.run()
        assert (run["id"], run["status"], run["benchmark"]) == (run_id, "ready", None), run
        # a value of the wrong type is refused by the tool's schema, and starts nothing
        err, text, _ = await call(client, "switch", {"profile": "base", "benchmark": "no"})
        assert err, text
    assert d.run()["id"] == run_id
