"""The SGLang emulator (``python -m supervisor.emulator``), over real subprocesses.

Every wait is bounded; every process started here is killed in ``finally``.
"""

from __future__ import annotations

import http.client
import json
import os
import re
import signal
import socket
import subprocess
import sys
import threading
import time
import uuid
from pathlib import Path

import psutil
import pytest

from supervisor.emulator.config import FaultError, parse_faults
from supervisor.emulator.faults import CAUSES

FIXTURES = Path(__file__).parent / "fixtures" / "sglang-logs"
READY = "The server is fired up and ready to roll!"
SIGQUIT_LINE = "Received sigquit from a child process. It usually means the child failed."


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


class Emu:
    """One emulator process (own session), its merged output collected by a thread."""

    def __init__(self, *args: str, fault: str = "none", scale: float = 0.01,
                 env: dict[str, str] | None = None, cwd: Path | None = None) -> None:
        self.port = free_port()
        e = dict(os.environ, SGLANG_EMULATOR_FAULT=fault, SGLANG_EMULATOR_TIME_SCALE=str(scale))
        e.update(env or {})
        argv = [sys.executable, "-m", "supervisor.emulator", "--model-path",
                "/models/Qwen2.5-7B-Instruct", "--port", str(self.port), *args]
        self.proc = subprocess.Popen(argv, stdout=subprocess.PIPE, stderr=subprocess.STDOUT,
                                     stdin=subprocess.DEVNULL, env=e, cwd=cwd,
                                     start_new_session=True)
        self._buf = bytearray()
        self._lock = threading.Lock()
        self._reader = threading.Thread(target=self._read, daemon=True)
        self._reader.start()

    def _read(self) -> None:
        fd = self.proc.stdout.fileno()
        try:
            while True:
                data = os.read(fd, 65536)
                if not data:
                    return
                with self._lock:
                    self._buf += data
        except OSError:
            return
        finally:
            self.proc.stdout.close()

    @property
    def raw(self) -> bytes:
        with self._lock:
            return bytes(self._buf)

    @property
    def text(self) -> str:
        return self.raw.decode(errors="replace")

    def wait_for(self, needle: str, timeout: float = 15.0) -> None:
        deadline = time.monotonic() + timeout
        while time.monotonic() < deadline:
            if needle in self.text:
                return
            if self.proc.poll() is not None:
                time.sleep(0.1)  # let the reader drain
                if needle in self.text:
                    return
                break
            time.sleep(0.01)
        raise AssertionError(f"{needle!r} not seen within {timeout}s (rc={self.proc.poll()}); "
                             f"output tail:\n{self.text[-3000:]}")

    def wait_exit(self, timeout: float = 15.0) -> int:
        return self.proc.wait(timeout)

    def children(self) -> list[psutil.Process]:
        try:
            return psutil.Process(self.proc.pid).children(recursive=True)
        except psutil.NoSuchProcess:
            return []

    def get(self, path: str, timeout: float = 5.0) -> tuple[int, bytes]:
        conn = http.client.HTTPConnection("127.0.0.1", self.port, timeout=timeout)
        try:
            conn.request("GET", path)
            res = conn.getresponse()
            return res.status, res.read()
        finally:
            conn.close()

    def close(self) -> None:
        try:
            os.killpg(self.proc.pid, signal.SIGKILL)
        except OSError:
            pass
        try:
            self.proc.wait(5)
        except subprocess.TimeoutExpired:
            pass
        self._reader.join(3)  # EOF once every writer (leaked helpers included) is gone


@pytest.fixture
def emus():
    started: list[Emu] = []

    def start(*args: str, **kw) -> Emu:
        emu = Emu(*args, cwd=kw.pop("cwd", None) or Path("/tmp"), **kw)
        started.append(emu)
        return emu

    yield start
    for emu in started:
        emu.close()


def cpu_seconds(procs: list[psutil.Process]) -> float:
    total = 0.0
    for p in procs:
        try:
            t = p.cpu_times()
            total += t.user + t.system
        except psutil.NoSuchProcess:
            pass
    return total


def wait_gone(procs: list[psutil.Process], timeout: float) -> list[psutil.Process]:
    """Wait until each process is gone or a zombie (reaping orphans is init's job); return the
    ones still alive at the deadline."""
    deadline = time.monotonic() + timeout
    while True:
        alive = []
        for p in procs:
            try:
                if p.status() != psutil.STATUS_ZOMBIE:
                    alive.append(p)
            except psutil.NoSuchProcess:
                pass
        if not alive or time.monotonic() > deadline:
            return alive
        time.sleep(0.02)


def refused(port: int) -> bool:
    try:
        socket.create_connection(("127.0.0.1", port), timeout=1).close()
    except ConnectionRefusedError:
        return True
    return False


# --- normal start ---------------------------------------------------------------------------


def test_normal_start_phases_in_order_port_and_health(emus):
    emu = emus(fault="slow:warmup:1")  # a slow warmup makes the 503 window observable
    emu.wait_for("Load weight begin")
    assert refused(emu.port), "the HTTP port must stay closed until graph capture ends"
    emu.wait_for("Uvicorn running on")
    assert "The server is fired up" not in emu.text
    assert emu.get("/health")[0] == 503
    assert emu.get("/get_model_info")[0] == 200
    emu.wait_for(READY)
    markers = ["server_args=ServerArgs(", "Init torch distributed begin.",
               "Init torch distributed ends.", "Load weight begin.",
               "Loading safetensors checkpoint shards:", "Load weight end.",
               "KV Cache is allocated.", "Memory pool end.", "Capture cuda graph begin.",
               "Capture cuda graph bs [", "Capturing batches (bs=", "Capture cuda graph end.",
               "max_total_num_tokens=", "Started server process", "Uvicorn running on http://",
               '"GET /get_model_info HTTP/1.1" 200 OK', "Prefill batch, #new-seq: 1",
               '"POST /generate HTTP/1.1" 200 OK', READY]
    text = emu.text
    positions = [text.find(m) for m in markers]
    assert all(p >= 0 for p in positions), dict(zip(markers, positions))
    assert positions == sorted(positions), dict(zip(markers, positions))
    assert "\rLoading safetensors checkpoint shards:  50% Completed | 7/14 [" in text
    assert "\rCapturing batches (bs=" in text
    assert re.search(r"^\[\d{4}-\d\d-\d\d \d\d:\d\d:\d\d\] Init torch distributed begin\.$",
                     text, re.M), "tp=1: no TPn prefix"
    status, body = emu.get("/health")
    assert status == 200
    status, body = emu.get("/get_model_info")
    info = json.loads(body)
    assert status == 200 and info["is_generation"] is True
    assert info["model_path"] == "/models/Qwen2.5-7B-Instruct"
    assert emu.get("/v1/models")[0] == 200
    assert emu.get("/nope")[0] == 404
    kids = emu.children()
    emu.proc.send_signal(signal.SIGTERM)
    assert emu.wait_exit(5) == 0
    assert not wait_gone(kids, 3)


def test_process_titles_and_children_die_with_parent(emus):
    emu = emus("--tp", "2")
    emu.wait_for("Init torch distributed begin.")
    assert "[" in emu.text and " TP1] Init torch distributed begin." in emu.text
    kids = emu.children()
    cmdlines = sorted(" ".join(p.cmdline()) for p in kids)
    titles = sorted(c.split()[0] for c in cmdlines)
    assert titles == ["sglang::detokenizer", "sglang::scheduler_TP0", "sglang::scheduler_TP1"]
    for p in kids:
        with open(f"/proc/{p.pid}/cmdline", "rb") as f:
            assert f.read().startswith(b"sglang::")
        deadline = time.monotonic() + 3  # the child sets comm (prctl) once Python is up
        while not Path(f"/proc/{p.pid}/comm").read_text().startswith("sglang::"):
            assert time.monotonic() < deadline, Path(f"/proc/{p.pid}/comm").read_text()
            time.sleep(0.02)
    os.kill(emu.proc.pid, signal.SIGKILL)  # PR_SET_PDEATHSIG takes the children down
    emu.wait_exit(5)
    assert not wait_gone(kids, 5)


def test_streaming_chat_completion_rate(emus):
    rate, n = 100.0, 30
    emu = emus(env={"SGLANG_EMULATOR_TOKENS_PER_S": str(rate)})
    emu.wait_for(READY)
    conn = http.client.HTTPConnection("127.0.0.1", emu.port, timeout=10)
    try:
        conn.request("POST", "/v1/chat/completions", body=json.dumps({
            "model": "m", "stream": True, "max_tokens": n,
            "messages": [{"role": "user", "content": "Tell me a story"}]}),
            headers={"Content-Type": "application/json"})
        res = conn.getresponse()
        assert res.status == 200
        assert res.getheader("Content-Type", "").startswith("text/event-stream")
        stamps, contents, done = [], [], False
        while True:
            raw = res.readline()
            if not raw:
                break
            line = raw.decode().strip()
            if not line.startswith("data: "):
                continue
            payload = line[len("data: "):]
            if payload == "[DONE]":
                done = True
                break
            chunk = json.loads(payload)
            assert chunk["object"] == "chat.completion.chunk"
            content = chunk["choices"][0]["delta"].get("content")
            if content:
                stamps.append(time.monotonic())
                contents.append(content)
    finally:
        conn.close()
    assert done and len(contents) == n
    measured = (n - 1) / (stamps[-1] - stamps[0])
    assert abs(measured - rate) / rate < 0.4, measured
    # non-streaming: the whole completion with usage
    conn = http.client.HTTPConnection("127.0.0.1", emu.port, timeout=10)
    try:
        conn.request("POST", "/v1/chat/completions", body=json.dumps({
            "messages": [{"role": "user", "content": "hi"}], "max_tokens": 5}))
        body = json.loads(conn.getresponse().read())
    finally:
        conn.close()
    assert body["usage"]["completion_tokens"] == 5 and body["choices"][0]["message"]["content"]


# --- faults ---------------------------------------------------------------------------------


def test_crash_weight_loading_cuda_oom_dies_like_sglang(emus):
    emu = emus("--tp", "2", fault="crash:weight_loading:cuda_oom")
    assert emu.wait_exit(15) == -signal.SIGKILL
    emu.wait_for(SIGQUIT_LINE, 2)
    text = emu.text
    oom = text.find("torch.OutOfMemoryError: CUDA out of memory.")
    assert 0 <= text.find("Load weight begin") < text.find(" TP0] Scheduler hit an exception: "
                                                            "Traceback (most recent call last):")
    assert 0 <= oom < text.find(SIGQUIT_LINE)
    assert "in load_model" in text and READY not in text
    assert not wait_gone(emu.children(), 3)


def test_crash_host_oom_killed_reports_dead_rank(emus):
    emu = emus(fault="crash:kv_cache_alloc:host_oom_killed")
    assert emu.wait_exit(15) == 1
    emu.wait_for("Exit code: -9", 2)
    assert "Rank 0 scheduler is dead. Please check if there are relevant logs." in emu.text
    assert "Traceback" in emu.text and SIGQUIT_LINE not in emu.text


def test_hang_cuda_graph_capture_goes_silent_and_idle(emus):
    emu = emus(fault="hang:cuda_graph_capture")
    emu.wait_for("Capture cuda graph begin.")
    time.sleep(0.3)
    before, kids = emu.raw, emu.children()
    cpu0 = cpu_seconds(kids)
    time.sleep(1.0)
    assert emu.raw == before, "a hung server prints nothing"
    assert emu.proc.poll() is None
    assert len(kids) == 2 and all(k.is_running() for k in kids)
    assert cpu_seconds(kids) - cpu0 < 0.15, "a hung server does no work"
    assert refused(emu.port)
    assert "Capture cuda graph end" not in emu.text


def test_slow_weight_loading_is_silent_but_active(emus):
    emu = emus(fault="slow:weight_loading:2")
    emu.wait_for("0/14 [")
    time.sleep(0.2)
    scheds = [p for p in emu.children() if p.cmdline()[0].startswith("sglang::scheduler")]
    before, cpu0 = emu.raw, cpu_seconds(scheds)
    io0 = sum(p.io_counters().read_chars for p in scheds)
    time.sleep(1.2)
    assert emu.raw == before, "no output during the slow stretch"
    assert cpu_seconds(scheds) - cpu0 > 0.15, "schedulers burn CPU while silent"
    assert sum(p.io_counters().read_chars for p in scheds) > io0, "and read from disk"
    emu.wait_for(READY, 15)


def test_leak_leaves_setsid_sigterm_ignoring_grandchildren(emus):
    tag = uuid.uuid4().hex
    emu = emus(fault="leak", env={"EMU_TEST_TAG": tag, "SGLANG_EMULATOR_LEAK_TTL": "60"})
    leaked: list[psutil.Process] = []
    try:
        emu.wait_for(READY)
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and len(leaked) < 2:
            sid = os.getsid(emu.proc.pid)
            leaked = [p for p in emu.children() if os.getsid(p.pid) != sid]
            time.sleep(0.05)
        assert len(leaked) == 2
        for p in leaked:
            with open(f"/proc/{p.pid}/environ", "rb") as f:
                assert f"EMU_TEST_TAG={tag}".encode() in f.read()
        emu.proc.send_signal(signal.SIGTERM)
        assert emu.wait_exit(5) == 0
        # SIGTERM is ignored (the kernel discards it at once), not merely slow to act on.
        deadline = time.monotonic() + 5
        while time.monotonic() < deadline and not all(map(_ignores_sigterm, leaked)):
            time.sleep(0.01)
        assert all(map(_ignores_sigterm, leaked))
        for p in leaked:
            p.send_signal(signal.SIGTERM)
        assert all(p.is_running() and p.status() != psutil.STATUS_ZOMBIE for p in leaked)
    finally:
        for p in leaked:
            try:
                p.kill()
            except psutil.NoSuchProcess:
                pass
        assert not wait_gone(leaked, 3)


def _ignores_sigterm(p: psutil.Process) -> bool:
    with open(f"/proc/{p.pid}/status") as f:
        mask = next(int(ln.split()[1], 16) for ln in f if ln.startswith("SigIgn:"))
    return bool(mask & (1 << (signal.SIGTERM - 1)))


def test_unhealthy_health_stops_answering(emus):
    emu = emus(fault="unhealthy")
    emu.wait_for(READY)
    assert emu.get("/health")[0] == 200
    emu.wait_for("Health check failed. Server couldn't get a response from detokenizer", 5)
    with pytest.raises((socket.timeout, TimeoutError)):
        emu.get("/health", timeout=1.0)
    assert emu.proc.poll() is None


def test_flood_rate(emus):
    emu = emus(fault="flood:5000")
    emu.wait_for(READY)
    time.sleep(0.2)
    n0 = emu.raw.count(b"Decode batch, ")
    time.sleep(1.0)
    assert emu.raw.count(b"Decode batch, ") - n0 >= 2000


# --- replay, parsing ------------------------------------------------------------------------


def test_replay_fixtures_are_in_the_repository():
    # A fresh clone must run the replay tests, not skip them.
    repo = Path(__file__).resolve().parents[1]
    assert FIXTURES.resolve().is_relative_to(repo)
    for name in ("11-ready-tp1-docs-ci-2026-full-startup.log",
                 "06-nccl-unhandled-system-error-init.log"):
        assert (FIXTURES / name).read_text().startswith("# source: ")


def test_replay_reproduces_a_real_log(emus):
    fixture = FIXTURES / "11-ready-tp1-docs-ci-2026-full-startup.log"
    emu = emus("--replay", str(fixture), "--speed", "200")
    assert emu.wait_exit(15) == 0
    time.sleep(0.1)
    lines = fixture.read_bytes().split(b"\n")
    body = lines[lines.index(b"") + 1:]
    assert emu.raw.rstrip(b"\n") == b"\n".join(body).rstrip(b"\n")


def test_replay_of_a_crash_ends_with_sigkill(emus):
    fixture = FIXTURES / "06-nccl-unhandled-system-error-init.log"
    emu = emus("--replay", str(fixture), "--speed", "100")
    assert emu.wait_exit(15) == -signal.SIGKILL
    emu.wait_for("NCCL error: unhandled system error", 2)


@pytest.mark.parametrize("fault", ["bogus", "crash:launch:no_such_cause", "hang:nowhere",
                                   "slow:weight_loading:soon", "crash:launch",
                                   "crash:serving:health_check_failed"])
def test_bad_fault_exits_2(fault):
    res = subprocess.run([sys.executable, "-m", "supervisor.emulator"], capture_output=True,
                         env=dict(os.environ, SGLANG_EMULATOR_FAULT=fault), timeout=15)
    assert res.returncode == 2
    assert b"supervisor.emulator:" in res.stderr


def test_fault_grammar_and_conditions():
    plan = parse_faults(" slow:weight_loading:3 , leak,crash:capture:cuda_oom ", [], {})
    assert plan.slow == {"weight_loading": 3.0} and plan.leak
    assert plan.crash == {"cuda_graph_capture": "cuda_oom"}
    argv = ["--enable-flashinfer-allreduce-fusion", "--tp", "8"]
    cond = "hang:cuda_graph_capture@enable-flashinfer-allreduce-fusion@NCCL_MAX_NCHANNELS"
    assert parse_faults(cond, argv, {"NCCL_MAX_NCHANNELS": "2"}).hang == {"cuda_graph_capture"}
    assert parse_faults(cond, argv, {}).hang == set()
    assert parse_faults("crash:launch:cuda_oom@!disable-custom-all-reduce", argv, {}).crash
    assert parse_faults("crash:warmup:import_error", [], {}).crash == {"launch": "import_error"}
    with pytest.raises(FaultError):
        parse_faults("flood:0", [], {})
    design_causes = {
        "cuda_oom", "kv_cache_oom", "host_oom_killed", "nccl_error", "nccl_timeout",
        "custom_allreduce_error", "illegal_memory_access", "unsupported_arch",
        "flashinfer_error", "triton_compile_error", "import_error", "watchdog_timeout",
        "bus_error", "multinode_rank_failure", "warmup_failed", "speculative_decoding_error",
        "port_in_use", "model_not_found", "gpu_fault", "unknown",
        "invalid_config", "corrupt_checkpoint"}  # added with the real-log corpus
    assert design_causes == set(CAUSES)


@pytest.mark.parametrize("cause", sorted(CAUSES))
def test_every_cause_renders_in_every_phase(cause):
    from supervisor.emulator.faults import Ctx

    for phase in ("launch", "weight_loading", "kv_cache_alloc", "cuda_graph_capture", "warmup",
                  "ready", "serving"):
        lines = CAUSES[cause].lines(phase, Ctx(rank=0, tp_size=2, prefix=" TP0"))
        assert all(isinstance(s, str) and "\n" not in s for s in lines)
        assert lines or cause == "host_oom_killed"


def test_hang_serving_first_request_and_then_http_hang(emus):
    emu = emus(fault="hang:serving")
    emu.wait_for(READY)
    assert emu.get("/health")[0] == 200
    conn = http.client.HTTPConnection("127.0.0.1", emu.port, timeout=1.0)
    try:
        with pytest.raises((socket.timeout, TimeoutError)):
            conn.request("POST", "/generate", body=json.dumps({"text": "hi"}))
            conn.getresponse().read()
    finally:
        conn.close()
    with pytest.raises((socket.timeout, TimeoutError)):
        emu.get("/health", timeout=0.5)
    assert emu.proc.poll() is None


def test_real_port_conflict_is_uvicorns_bind_error(emus):
    with socket.socket() as busy:
        busy.bind(("127.0.0.1", 0))
        busy.listen()
        port = busy.getsockname()[1]
        emu = emus("--port", str(port))  # the last --port wins
        assert emu.wait_exit(15) == 1
    emu.wait_for("ERROR:    [Errno 98] error while attempting to bind on address "
                 f"('127.0.0.1', {port}): address already in use", 2)
    assert READY not in emu.text


def test_cause_names_are_designs():
    from supervisor.emulator import PHASES
    from supervisor.emulator.faults import PRODUCED_ELSEWHERE
    from supervisor.states import Cause, Phase

    assert set(CAUSES) | set(PRODUCED_ELSEWHERE) == {c.value for c in Cause}
    assert list(PHASES) == [p.value for p in Phase]
