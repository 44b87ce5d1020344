"""Live verdicts on the emulator: hangs per phase, quiet work, crashes, unhealthy, GPU faults."""

from __future__ import annotations

import json
import os
import subprocess
import sys
import time
from pathlib import Path

import pytest

from .conftest import write_profile
from .harness import emulator_profile, free_port, wait_until

pytestmark = pytest.mark.e2e

SILENCE = 2.0


@pytest.mark.parametrize("phase", ["launch", "weight_loading", "kv_cache_alloc",
                                   "cuda_graph_capture", "warmup"])
def test_hang_in_each_startup_phase_is_called_hung_with_stacks(workdir: Path, make_daemon,
                                                               phase: str) -> None:
    write_profile(workdir, "hangs", emulator_profile(
        "hangs", port=free_port(), fault=f"hang:{phase}", silence=SILENCE))
    d = make_daemon()
    t0 = time.time()
    res = d.ctl("switch", "hangs", "--wait", "--timeout", "90", "--json")
    assert res.returncode == 1, res.stdout + res.stderr
    v = json.loads(res.stdout)["verdict"]
    assert (v["status"], v["phase"]) == ("hung", phase)
    assert "no output for" in v["evidence"][0]
    run = d.run()
    took = d.verdict_after(run, t0)
    assert run["stacks"], "stack dumps are saved before the run is stopped"
    for path in run["stacks"]:
        text = Path(path).read_text()
        assert text.startswith("pid ")
    # startup at scale 0.01 takes < 2 s; the verdict comes within the silence window + margin
    assert took < 2 + SILENCE + 8, took
    items = {i["title"]: i for i in d.status()["checklist"]}
    stacks_item = next(i for t, i in items.items() if "dump stacks" in t)
    assert stacks_item["status"] == "done" and stacks_item["evidence"] == run["stacks"]
    assert d.run_processes() == {}


def test_slow_but_active_weight_loading_is_not_hung(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "slow", emulator_profile(
        "slow", port=free_port(), fault="slow:weight_loading:6",
        silence=SILENCE))
    d = make_daemon()
    d.ctl("switch", "slow", check=True)
    run = d.wait_run(lambda r: r["phase"] == "weight_loading" and
                     r["activity"]["quiet_s"] > SILENCE + 0.5, 30, "a quiet weight load")
    assert run["status"] == "starting"
    assert run["activity"]["state"] == "quiet" and run["activity"]["cpu_percent"] > 3
    final = d.wait_run(lambda r: r["status"] != "starting", 40, "the slow load to finish")
    assert final["status"] == "ready", final


def test_unhealthy_after_ready(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "sick", emulator_profile("sick", port=free_port(), fault="unhealthy"))
    d = make_daemon()
    d.ctl("switch", "sick", "--wait", "--timeout", "60", check=True)
    run = d.wait_run(lambda r: r["status"] != "ready", 40, "the health probe to fail")
    assert run["status"] == "unhealthy" and run["cause"] == "health_check_failed"
    assert "consecutive health probes failed" in run["evidence"][0]


@pytest.mark.parametrize("phase, cause, exit_code", [
    ("launch", "import_error", 1),
    ("kv_cache_alloc", "kv_cache_oom", -9),
    ("cuda_graph_capture", "cuda_oom", -9),
    ("cuda_graph_capture", "custom_allreduce_error", -9),
    ("weight_loading", "bus_error", 1),
    ("warmup", "warmup_failed", -9),
    ("launch", "nccl_error", -9),
])
def test_crash_verdicts(workdir: Path, make_daemon, phase: str, cause: str,
                        exit_code: int) -> None:
    write_profile(workdir, "crash", emulator_profile(
        "crash", port=free_port(), fault=f"crash:{phase}:{cause}"))
    d = make_daemon()
    res = d.ctl("switch", "crash", "--wait", "--timeout", "60", "--json")
    assert res.returncode == 1
    v = json.loads(res.stdout)["verdict"]
    assert (v["status"], v["phase"], v["cause"]) == ("crashed", phase, cause), v
    assert d.run()["exit_code"] == exit_code


def test_port_in_use_is_refused_before_launch(workdir: Path, make_daemon) -> None:
    import socket

    port = free_port()
    holder = socket.socket()
    holder.bind(("127.0.0.1", port))
    holder.listen()
    try:
        write_profile(workdir, "busy", emulator_profile("busy", port=port))
        d = make_daemon()
        res = d.ctl("switch", "busy", "--wait", "--timeout", "30", "--json")
        assert res.returncode == 1
        v = json.loads(res.stdout)["verdict"]
        assert v["cause"] == "port_in_use" and v["phase"] == "launch"
        assert d.run()["pid"] is None  # nothing was started
    finally:
        holder.close()


def test_foreign_gpu_process_refuses_the_launch(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    d = make_daemon()
    squatter = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(60)"])
    try:
        d.ctl("gpus", "--fault", f"foreign:1:{squatter.pid}:40000", check=True)
        res = d.ctl("switch", "good", "--wait", "--timeout", "30", "--json")
        assert res.returncode == 1
        v = json.loads(res.stdout)["verdict"]
        assert v["cause"] == "gpu_fault"
        assert f"pid {squatter.pid}" in v["evidence"][0]
    finally:
        squatter.kill()
        squatter.wait()


def test_xid_during_a_run_reaches_checklist_and_gpus(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "good", emulator_profile("good", port=free_port()))
    d = make_daemon()
    d.ctl("switch", "good", "--wait", "--timeout", "60", check=True)
    d.ctl("gpus", "--fault", "xid:0:79", check=True)
    deadline = time.monotonic() + 15
    while time.monotonic() < deadline:
        items = d.status()["checklist"]
        if any("XID 79" in i["title"] for i in items):
            break
        time.sleep(0.2)
    else:
        raise AssertionError("no checklist item for the XID")
    gpus = d.ctl_json("gpus")["gpus"]
    assert gpus[0]["health"]["level"] == "critical"
    assert any("79" in f for f in gpus[0]["health"]["flags"])


def test_diagnose_offline_needs_no_daemon(tmp_path: Path) -> None:
    fixture = Path(__file__).parents[1] / "fixtures/sglang-logs/07-watchdog-timeout-tp8-killed.log"
    res = subprocess.run([sys.executable, "-m", "supervisor.cli.ctl", "diagnose", str(fixture),
                          "--json"], capture_output=True, text=True, timeout=60,
                         env={**os.environ, "GNS_SOCKET": str(tmp_path / "none.sock")})
    assert res.returncode == 0, res.stderr
    out = json.loads(res.stdout)
    assert set(out) == {"engine", "outcome", "phase", "cause", "evidence"}
    assert out["cause"] == "watchdog_timeout" and out["outcome"] == "crashed"


def test_phase_deadline_gives_timeout(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "slowload", emulator_profile(
        "slowload", port=free_port(), fault="slow:weight_loading:30", silence=20,
        timeouts="weight_loading = 2"))
    d = make_daemon()
    res = d.ctl("switch", "slowload", "--wait", "--timeout", "60", "--json")
    assert res.returncode == 1
    v = json.loads(res.stdout)["verdict"]
    assert (v["status"], v["phase"], v["cause"]) == ("timeout", "weight_loading",
                                                     "slow_weight_loading")
    assert "past its 2 s budget" in v["evidence"][0]
    assert d.run_processes() == {}


def test_operator_checklist_items_and_history(workdir: Path, make_daemon) -> None:
    write_profile(workdir, "crash", emulator_profile(
        "crash", port=free_port(), fault="crash:kv_cache_alloc:kv_cache_oom"))
    d = make_daemon()
    d.ctl("switch", "crash", "--wait", "--timeout", "60")
    added = d.ctl_json("checklist", "add", "ask the vendor about the new driver")["items"]
    mine = [i for i in added if i["title"] == "ask the vendor about the new driver"]
    assert len(mine) == 1 and mine[0]["status"] == "pending" and not mine[0]["auto"]
    done = d.ctl_json("checklist", "done", str(mine[0]["id"]))["items"]
    assert next(i for i in done if i["id"] == mine[0]["id"])["status"] == "done"
    assert d.ctl("checklist", "done", "99999").returncode == 1
    runs = d.ctl_json("history")["runs"]
    titles = [i["title"] for i in runs[-1]["checklist"]]
    assert any("root error" in t for t in titles)
    assert "ask the vendor about the new driver" in titles


def test_failure_after_ready_restarts_with_backoff_until_flapping(workdir: Path,
                                                                  make_daemon) -> None:
    restart = "\n[restart]\nmax_restarts = 1\nbackoff = 0.5\nwindow = 600\n"
    write_profile(workdir, "sick", emulator_profile("sick", port=free_port(), fault="unhealthy",
                                                    extra=restart))
    d = make_daemon()
    d.ctl("switch", "sick", "--wait", "--timeout", "60", check=True)
    first = d.run()["id"]
    d.wait_run(lambda r: r["id"] != first and r["status"] == "ready", 40, "the restart")
    d.wait_run(lambda r: r["id"] != first and r["status"] == "unhealthy", 40, "the 2nd failure")
    # The restart policy's answer to the 2nd failure is on the checklist: no third run.
    wait_until(lambda: any("flapping" in i["title"] for i in d.status()["checklist"]), 20,
               "the restart policy's decision after the 2nd failure")
    runs = d.ctl_json("history")["runs"]
    assert [r["status"] for r in runs] == ["unhealthy", "unhealthy"]
    titles = [i["title"] for i in d.status()["checklist"]]
    assert any(t.startswith("Restart sick") for t in titles)
    assert any("flapping" in t for t in titles)


def test_a_switch_during_a_restart_backoff_cancels_the_restart_and_the_daemon_carries_on(
        workdir: Path, make_daemon) -> None:
    """An operator's switch beats a pending restart: nothing is relaunched after the switch, the
    daemon carries on (the interleaving where the switch's checklist reset comes first is
    tests/test_arbiter_unit.py::test_a_restart_cancelled_after_the_checklist_was_reset_...)."""
    restart = "\n[restart]\nmax_restarts = 3\nbackoff = 30\nwindow = 600\n"
    write_profile(workdir, "sick", emulator_profile("sick", port=free_port(), fault="unhealthy",
                                                    extra=restart))
    write_profile(workdir, "fine", emulator_profile("fine", port=free_port()))
    d = make_daemon()
    d.ctl("switch", "sick", "--wait", "--timeout", "60", check=True)
    wait_until(lambda: any(i["title"].startswith("Restart sick") and i["status"] ==
                           "in_progress" for i in d.status()["checklist"]), 40,
               "the restart waiting out its backoff")
    d.ctl("switch", "fine", "--wait", "--timeout", "60", check=True)
    status = d.status()
    assert status["run"]["profile"] == "fine" and status["run"]["status"] == "ready"
    assert d.proc.poll() is None, "the daemon is still running"
    assert [r["profile"] for r in d.ctl_json("history")["runs"]] == ["sick", "fine"]


# A server that refuses what it was given, in words no rule of the classifier knows: only the
# launch's own settings (the profile's args and env, which the live daemon has) say it is a
# configuration the engine refused.
_REFUSING_SERVER = """\
import os, sys
args = sys.argv[1:]
mode = args[args.index("--frobnicate-mode") + 1] if "--frobnicate-mode" in args else \\
    os.environ.get("FROB_MODE", "zigzag")
print("INFO starting the server", flush=True)
raise ValueError(f"cannot honour {mode!r} on this build")
"""


def _refusing_profile(script: Path, port: int, settings: str) -> str:
    return (f'engine = "vllm"\n\n[launch]\ncommand = ["{{python}}", "{script}"]\n'
            f'model = "test/model"\nhost = "127.0.0.1"\nport = {port}\n{settings}\n\n'
            "[timeouts]\nsilence = 30\nstop_grace = 1\n")


@pytest.mark.parametrize(("settings", "named"), [
    ('args = { frobnicate-mode = "zigzag" }', "--frobnicate-mode zigzag"),
    ('env = { FROB_MODE = "zigzag" }', "FROB_MODE=zigzag"),
    ("", None),  # the same words, from nothing the launch set: no cause to name
])
def test_an_error_naming_what_the_launch_set_is_a_refused_configuration(
        workdir: Path, make_daemon, settings: str, named: str | None) -> None:
    script = workdir / "refuse.py"
    script.write_text(_REFUSING_SERVER)
    write_profile(workdir, "refused", _refusing_profile(script, free_port(), settings))
    d = make_daemon()
    res = d.ctl("switch", "refused", "--wait", "--timeout", "60", "--json")
    assert res.returncode == 1, res.stdout + res.stderr
    v = json.loads(res.stdout).get("verdict")
    assert v is not None, res.stdout
    assert v["status"] == "crashed"
    assert v["evidence"][0] == "ValueError: cannot honour 'zigzag' on this build"
    if named is None:
        assert v["cause"] == "unknown"
    else:
        assert v["cause"] == "invalid_config"
        assert f"it names a setting of this launch: {named}" in v["evidence"]
    assert d.run_processes() == {}


def test_diagnose_reads_the_settings_it_is_given_as_the_daemon_reads_its_profile(
        tmp_path: Path) -> None:
    log = tmp_path / "run.log"
    log.write_text('INFO starting the server\nTraceback (most recent call last):\n'
                   f'  File "{tmp_path}/refuse.py", line 6, in <module>\n'
                   "    serve(mode)\nValueError: cannot honour 'zigzag' on this build\n")

    def diagnose(*extra: str) -> subprocess.CompletedProcess[str]:
        return subprocess.run([sys.executable, "-m", "supervisor.cli.ctl", "diagnose", str(log),
                               *extra], capture_output=True, text=True, timeout=60,
                              env={**os.environ, "GNS_SOCKET": str(tmp_path / "none.sock")})

    assert json.loads(diagnose("--json").stdout)["cause"] == "unknown"
    out = json.loads(diagnose("--json", "--set", "FROB_MODE=zigzag").stdout)
    assert out["cause"] == "invalid_config"
    assert out["evidence"][-1] == "it names a setting of this launch: FROB_MODE=zigzag"
    out = json.loads(diagnose("--json", "--set", "frob-mode=zigzag").stdout)
    assert out["evidence"][-1] == "it names a setting of this launch: --frob-mode zigzag"
    bad = diagnose("--set", "zigzag")
    assert bad.returncode == 2 and "expected KEY=VALUE" in bad.stderr
    assert "Traceback" not in bad.stderr


# An engine that prints its fatal error and then does not exit: its parent missed the child's
# death (SGLang's sigquit lost), or its teardown is slow. A child keeps the tree alive too.
_CRASHED_BUT_ALIVE = """\
import subprocess, sys, time
child = subprocess.Popen([sys.executable, "-c", "import time; time.sleep(600)"])
print("INFO Capture cuda graph begin. This can take up to several minutes.", flush=True)
print('''Traceback (most recent call last):
  File "/opt/engine/model_runner.py", line 1200, in capture
    self.graph_runner = CudaGraphRunner(self)
torch.OutOfMemoryError: CUDA out of memory. Tried to allocate 2.00 GiB. GPU 0 has a total \
capacity of 79.11 GiB of which 1.06 GiB is free.''', flush=True)
time.sleep(600)
"""


def test_a_fatal_error_whose_processes_do_not_exit_is_a_crash_not_a_hang(
        workdir: Path, make_daemon) -> None:
    script = workdir / "crash_alive.py"
    script.write_text(_CRASHED_BUT_ALIVE)
    write_profile(workdir, "lingers", (
        f'engine = "vllm"\n\n[launch]\ncommand = ["{{python}}", "{script}"]\n'
        f'model = "test/model"\nhost = "127.0.0.1"\nport = {free_port()}\n\n'
        f"[timeouts]\nsilence = {SILENCE}\nstop_grace = 1\n"))
    d = make_daemon()
    res = d.ctl("switch", "lingers", "--wait", "--timeout", "60", "--json")
    assert res.returncode == 1, res.stdout + res.stderr
    v = json.loads(res.stdout)["verdict"]
    assert (v["status"], v["cause"]) == ("crashed", "cuda_oom"), v
    assert v["evidence"][0].startswith("the log ends in a fatal error and its processes had "
                                       "not exited"), v["evidence"]
    assert any("CUDA out of memory" in e for e in v["evidence"]), v["evidence"]
    wait_until(lambda: d.run_processes() == {}, 20, "the lingering tree killed")
