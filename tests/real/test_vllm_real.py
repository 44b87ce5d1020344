"""Real vLLM (CPU build) under the real daemon: serving, crashing, hanging, isolating.

Each test launches the real engine (60-90 s to ready on 2 cores) and stops it; one engine at a
time. The run's log is kept as a fixture candidate when GNS_SAVE_REAL_LOGS names a folder.
"""

from __future__ import annotations

import json
import os
import shutil
import signal
import time
from pathlib import Path

import pytest
from e2e.harness import free_port, wait_until

from supervisor.benchmark import run_benchmark
from supervisor.fallback.remedies import reported_fit

from .conftest import EventFollower, vllm_profile, write_profile

pytestmark = pytest.mark.timeout(900)

STARTUP = 420   # seconds: ready takes 60-90 s alone, several minutes on a busy 2-core host
STARTUP_PHASES = ["launch", "weight_loading", "kv_cache_alloc", "warmup"]


def save_log(d, name: str) -> None:
    """Copy the current run's log where GNS_SAVE_REAL_LOGS points (to become a fixture)."""
    dest = os.environ.get("GNS_SAVE_REAL_LOGS")
    run = d.run()
    if dest and run and run.get("log_path") and Path(run["log_path"]).exists():
        Path(dest).mkdir(parents=True, exist_ok=True)
        shutil.copy(run["log_path"], Path(dest) / f"{name}.log")


def switch_wait(d, name: str, timeout: int = STARTUP) -> tuple[int, dict]:
    res = d.ctl("switch", name, "--wait", "--timeout", str(timeout), "--json",
                timeout=timeout + 60)
    assert res.stdout.strip(), res.stderr
    return res.returncode, json.loads(res.stdout)


def watch_startup(d, timeout: float = STARTUP) -> list[tuple[str, object]]:
    """(phase, progress) pairs seen live in status until the run leaves `starting`."""
    seen: list[tuple[str, object]] = []

    def settled() -> bool:
        run = d.run()
        if run is None:
            return False
        pair = (run["phase"], run["progress"])
        if not seen or seen[-1] != pair:
            seen.append(pair)
        return run["status"] != "starting"
    wait_until(settled, timeout, "the vLLM run to leave starting", interval=0.2)
    return seen


def test_vllm_serves_phases_health_and_completion_benchmark(workdir: Path, make_daemon,
                                                            vllm_python, tiny_model) -> None:
    port = free_port()
    write_profile(workdir, "tiny", vllm_profile(
        vllm_python, tiny_model, port, args={"max-model-len": 2048}, extra=(
            # >= 0.5 s of decoding even at ~1,500 tokens/s (a tiny model is fast), so the benchmark carries a rate
            '\n[benchmark]\nkind = "completion"\nmax_tokens = 1536\nprompt = "The quick brown"\n'
            'ignore_eos = true\n')))
    d = make_daemon()
    events = EventFollower(d)
    try:
        events.subscribed(d)
        d.ctl("switch", "tiny", check=True)
        seen = watch_startup(d)
    finally:
        events.close()
    run = d.run()
    assert run["status"] == "ready", (run, d.ctl("logs", "-n", "40").stdout)
    # every startup phase was pushed to subscribers live, in order (the status polls in `seen`
    # may miss one shorter than a poll)
    live = events.phases()
    assert [p for p in live if p in STARTUP_PHASES] == STARTUP_PHASES, (live, seen)
    # the weight loader's shard count moved while loading (pushed to subscribers)
    shards = events.progress("weight_shards")
    assert len(set(shards)) >= 2 and shards == sorted(shards), shards
    # every startup phase is in history with its duration, then ready
    hist = d.ctl_json("history")["runs"][-1]
    phases = {p["phase"]: p for p in hist["phases"]}
    for phase in STARTUP_PHASES:
        assert phases[phase]["duration"] is not None and phases[phase]["duration"] >= 0, phases
    assert "ready" in phases, phases
    # the health probe keeps passing: still ready a few intervals later
    t_ready = time.monotonic()
    wait_until(lambda: time.monotonic() - t_ready > 6, 10, "three health intervals")
    assert d.run()["status"] in ("ready", "serving"), d.run()
    # the benchmark ran against /v1/completions and is stored with the run
    bench = wait_until(lambda: d.run()["benchmark"], 180, "the completion benchmark")
    assert bench["kind"] == "completion" and bench["complete"] is True, bench
    assert bench["tokens"] == 1536, bench
    # a rate only over >= 0.5 s of decoding: on a busy host vLLM's stream may arrive in a few
    # bursts, and then the result says why it carries none
    assert (bench.get("tokens_per_s") or 0) > 0 or "no rate" in bench.get("note", ""), bench
    stored = d.ctl_json("history")["runs"][-1]["benchmark"]
    assert stored["kind"] == "completion" and stored["tokens_per_s"] == bench["tokens_per_s"]
    # a base model: the chat kind says so rather than a bare HTTP 400
    chat = run_benchmark({"kind": "chat", "max_tokens": 8}, "127.0.0.1", port, str(tiny_model))
    assert chat["complete"] is False and "no chat template" in chat["error"], chat
    assert 'kind = "completion"' in chat["error"], chat
    save_log(d, "vllm-ready")
    pgid = d.run()["pid"]
    assert any("VLLM::Worker" in cmd for cmd in group_processes(pgid).values())
    res = d.ctl("stop", "--json")
    assert res.returncode == 0, res.stderr
    all_gone(d, pgid)


def test_vllm_memory_utilisation_above_free_crashes_in_launch(workdir: Path, make_daemon,
                                                              vllm_python, tiny_model) -> None:
    # On the CPU build the flag is the fraction of host memory; 0.99 is never free.
    write_profile(workdir, "greedy", vllm_profile(vllm_python, tiny_model, free_port(), util=0.99))
    d = make_daemon()
    rc, out = switch_wait(d, "greedy")
    assert rc == 1, out
    v = out["verdict"]
    save_log(d, "vllm-crash-memory-utilisation")
    assert (v["status"], v["phase"]) == ("crashed", "launch"), v
    assert v["cause"] == "cuda_oom", v
    assert "ValueError" in v["evidence"][0] and "memory" in v["evidence"][0], v["evidence"]
    assert all(len(line) <= 310 for line in v["evidence"]), v["evidence"]
    # the remedy reads what the real engine said is free (the emulator e2e runs the remedy:
    # a real one here would reserve and zero nearly all of this host's memory)
    fit = reported_fit(v["evidence"])
    assert fit is not None and 0 < fit < 0.99, v["evidence"]
    all_gone(d, d.run()["pid"])


def group_processes(pgid: int) -> dict[int, str]:
    """pid -> command line of every live process in process group ``pgid``. vLLM retitles its
    processes (setproctitle), which overwrites their environment: the harness' marker variable
    cannot find them, their process group can."""
    out = {}
    for name in os.listdir("/proc"):
        if not name.isdigit():
            continue
        try:
            stat = Path(f"/proc/{name}/stat").read_bytes()
            fields = stat[stat.rfind(b")") + 2:].split()
            if fields[0] == b"Z" or int(fields[2]) != pgid:
                continue
            out[int(name)] = Path(f"/proc/{name}/cmdline").read_bytes().replace(
                b"\0", b" ").decode("utf-8", "replace").strip()
        except (OSError, IndexError, ValueError):
            continue
    return out


def all_gone(d, pgid: int) -> None:
    wait_until(lambda: not group_processes(pgid) and not d.run_processes(), 60,
               "every process of the vLLM run to be gone")


def run_group(d) -> dict[int, str]:
    run = d.run()
    return group_processes(run["pid"]) if run and run.get("pid") else {}


def shm_entries() -> set[str]:
    return set(os.listdir("/dev/shm"))


def shm_mapped_by(pids) -> set[str]:
    """Names of the files directly in /dev/shm that these processes map."""
    names = set()
    for pid in pids:
        try:
            maps = Path(f"/proc/{pid}/maps").read_text()
        except OSError:
            continue
        for line in maps.splitlines():
            path = line.split(maxsplit=5)[5] if len(line.split(maxsplit=5)) > 5 else ""
            if path.startswith("/dev/shm/") and "/" not in path[9:] and not path.endswith(
                    "(deleted)"):
                names.add(path[9:])
    return names


HANG_SILENCE = 8.0


def test_vllm_worker_stopped_during_startup_is_hung_with_stacks(workdir: Path, make_daemon,
                                                                vllm_python,
                                                                tiny_model) -> None:
    write_profile(workdir, "stuck", vllm_profile(vllm_python, tiny_model, free_port(),
                                                 silence=HANG_SILENCE, stop_grace=5))
    shm_before = shm_entries()
    d = make_daemon()
    d.ctl("switch", "stuck", check=True)
    # the model-running process: vLLM's worker (its title names it)
    worker = wait_until(
        lambda: next((pid for pid, cmd in run_group(d).items() if "VLLM::Worker" in cmd), None),
        STARTUP, "vLLM's worker process")
    pgid = d.run()["pid"]
    os.kill(worker, signal.SIGSTOP)
    t_stop = time.time()
    try:
        run = d.wait_run(lambda r: r["status"] != "starting", HANG_SILENCE + 60, "the hang verdict")
    finally:
        try:
            os.kill(worker, signal.SIGCONT)
        except OSError:
            pass
    save_log(d, "vllm-hang-worker-sigstop-startup")
    assert run["status"] == "hung", run
    assert "no output for" in run["evidence"][0], run["evidence"]
    # the last line came at most at the SIGSTOP: the verdict is due within silence + 1 s of it
    # (+ 2 s for a tick on a busy 2-core host)
    took = d.verdict_after(run, t_stop)
    assert took <= HANG_SILENCE + 1 + 2, took
    stacks = [Path(p).read_text() for p in run["stacks"]]
    assert stacks and any("vllm" in text for text in stacks), stacks
    # the checklist is written once the verdict is handled
    item = wait_until(lambda: next((i for i in d.status()["checklist"]
                                    if "dump stacks" in i["title"] and i["status"] == "done"),
                                   None), 30, "the done 'dump stacks' checklist item")
    assert item["evidence"] == run["stacks"], (item, run["stacks"])
    all_gone(d, pgid)
    leaked = shm_entries() - shm_before
    assert not leaked, f"shared memory left in /dev/shm by the run: {sorted(leaked)}"


def test_vllm_killed_at_once_leaves_no_shared_memory(workdir: Path, make_daemon, vllm_python,
                                                     tiny_model) -> None:
    """Every process of a ready vLLM SIGKILLed at once (the OOM killer, a `kill -9` of the
    group): none can unlink its message queues in /dev/shm; the daemon removes them and the
    failure's checklist says so."""
    write_profile(workdir, "victim", vllm_profile(vllm_python, tiny_model, free_port()))
    d = make_daemon()
    rc, out = switch_wait(d, "victim")
    assert rc == 0, out
    pgid = d.run()["pid"]
    # What the run's processes map in /dev/shm, read here from their maps (not from the
    # daemon): vLLM's message queues while it serves
    made = shm_mapped_by(run_group(d))
    assert any(n.startswith("psm_") for n in made), made
    os.killpg(pgid, signal.SIGKILL)
    run = d.wait_run(lambda r: r["status"] != "ready", 60, "the crash verdict")
    assert run["status"] == "crashed", run
    all_gone(d, pgid)
    item = wait_until(lambda: next((i for i in d.status()["checklist"]
                                    if "check leftovers" in i["title"]), None), 30,
                      "the 'check leftovers' checklist item")
    assert any(line.startswith("removed ") and "psm_" in line for line in item["evidence"]), item
    left = made & shm_entries()
    assert not left, f"shared memory of the killed run still in /dev/shm: {sorted(left)}"


def test_vllm_head_dim_16_dies_on_first_request_and_the_run_leaves_ready(
        workdir: Path, make_daemon, vllm_python, hd16_model) -> None:
    port = free_port()
    # a long health interval: the verdict must come from the engine's death, not the next probe
    write_profile(workdir, "hd16", vllm_profile(vllm_python, hd16_model, port,
                                                health_interval=60))
    d = make_daemon()
    rc, out = switch_wait(d, "hd16")
    assert rc == 0, out   # it starts and becomes ready: the kernel is only chosen per request
    pgid = d.run()["pid"]
    t_req = time.time()
    bench = run_benchmark({"kind": "completion", "max_tokens": 8, "timeout": 60}, "127.0.0.1",
                          port, str(hd16_model))
    assert bench["complete"] is False, bench
    run = d.wait_run(lambda r: r["status"] not in ("ready", "starting"), 20,
                     "the run to leave ready")
    save_log(d, "vllm-head-dim-16-first-request")
    took = d.verdict_after(run, t_req)
    assert took < 15, took
    assert run["cause"] == "unsupported_arch", run
    assert any("Unsupported CPU attention configuration" in line for line in run["evidence"]), \
        run["evidence"]
    d.ctl("stop")
    all_gone(d, pgid)


def test_vllm_isolation_of_two_real_changes_names_the_fatal_one(workdir: Path, make_daemon,
                                                                vllm_python,
                                                                tiny_model) -> None:
    write_profile(workdir, "base", vllm_profile(vllm_python, tiny_model, free_port()))
    # two real vLLM changes: reserve nearly all memory for the KV cache (refused at start,
    # more than is free) and a smaller batch (harmless)
    write_profile(workdir, "tuned", 'extends = "base"\n' + """
[[changes]]
name = "big_kv_cache"
args = { gpu-memory-utilization = 0.99 }

[[changes]]
name = "fewer_seqs"
args = { max-num-seqs = 16 }

[fallback]
strategy = "isolate"
max_attempts = 4
""")
    d = make_daemon()
    rc, out = switch_wait(d, "tuned", timeout=3 * STARTUP)
    save_log(d, "vllm-isolation-serving")
    keep = os.environ.get("GNS_SAVE_REAL_LOGS")
    if keep:   # the closing note shows these
        for cmd in ("history", "status"):
            Path(keep, f"isolation-{cmd}.txt").write_text(d.ctl(cmd).stdout)
    assert rc == 1, out   # the profile as written failed; a working subset serves
    assert out["culprits"] == ["big_kv_cache"], out
    assert out["serving"]["profile"] == "tuned" and out["serving"]["changes"] == ["fewer_seqs"]
    assert len(out["attempts"]) <= 3, [(a["changes"], a["status"]) for a in out["attempts"]]
    assert d.run()["status"] == "ready"
    pgid = d.run()["pid"]
    d.ctl("stop")
    all_gone(d, pgid)
