"""What runs inside the emulator's child processes.

Roles: ``scheduler`` (one per TP rank), ``detokenizer``, ``leak`` (a helper that changed session,
ignores SIGTERM and sleeps). Schedulers and the detokenizer die with their parent
(PR_SET_PDEATHSIG) and take one command per line on stdin from the main process:

- ``work SECONDS DUTY [read]``  burn DUTY of a core for SECONDS (and read files from disk)
- ``hang``                      stop working; sleep until killed
- ``spin``                      busy-wait in ``custom_all_reduce`` until killed
- ``crash CAUSE PHASE``         print the cause's lines and die the way SGLang's rank would
- ``leak N TTL``                spawn N leak helpers
"""

from __future__ import annotations

import json
import os
import resource
import select
import signal
import subprocess
import sys
import time

from supervisor.emulator import faults, logfmt, procs

SLICE = 0.02  # seconds per burn/sleep slice


class _Reader:
    """Cycles through the stdlib's files, so a slow phase shows disk reads (rchar)."""

    def __init__(self) -> None:
        root = os.path.dirname(os.__file__)
        self.files = [os.path.join(root, n) for n in sorted(os.listdir(root))
                      if n.endswith(".py")] or [os.__file__]
        self.i = 0

    def read(self, budget: int = 256 * 1024) -> None:
        while budget > 0:
            path = self.files[self.i % len(self.files)]
            self.i += 1
            try:
                with open(path, "rb") as f:
                    budget -= len(f.read(budget)) + 1
            except OSError:
                budget -= 1


def _burn(seconds: float) -> None:
    end = time.perf_counter() + seconds
    x = 0
    while time.perf_counter() < end:
        for i in range(200):
            x += i * i
    return None


FAKE_GPU_DIR_VAR = "GNS_FAKE_GPU_DIR"  # set by a daemon running fake GPUs
SPIN_POWER_FRACTION = 0.15             # a GPU spinning on a flag: busy, drawing little


def custom_all_reduce(rank: int, gpu_dir: str | None) -> None:
    """Stands for a collective whose peer never arrives: spins on a flag that never flips, as
    a custom all-reduce or a CUDA stream synchronize does, and tells the fake GPUs that this
    rank's GPU is 100 % busy at low power. Everything stays inline, so the innermost Python
    frame of every stack sample is this function."""
    arrived = False
    report = os.path.join(gpu_dir, f"gpu{rank}") if gpu_dir else None
    next_report = 0.0
    x = 0
    while not arrived:
        x += 1
        if x % 20000 == 0:
            now = time.monotonic()
            if report is not None and now >= next_report:
                try:
                    with open(report + ".tmp", "w") as f:
                        f.write(f"100 {SPIN_POWER_FRACTION} {time.time()}")
                    os.replace(report + ".tmp", report)
                except OSError:
                    report = None
                next_report = now + 0.5
            time.sleep(0.002)  # a spinning rank, but kind to a 2-core machine


class Scheduler:
    def __init__(self, cfg: dict) -> None:
        self.cfg = cfg
        self.ctx = faults.Ctx(
            rank=cfg.get("rank", 0), tp_size=cfg.get("tp_size", 1), prefix=cfg.get("prefix", ""),
            host=cfg.get("host", "127.0.0.1"), port=cfg.get("port", 30000),
            model_path=cfg.get("model_path", ""),
            mem_fraction_static=cfg.get("mem_fraction_static", 0.88),
            watchdog_timeout=int(cfg.get("watchdog_timeout", 300)), pid=os.getpid())
        self.work_until = 0.0
        self.duty = 0.0
        self.read = False
        self.reader: _Reader | None = None
        self.hung = False
        self.buf = b""

    # --- commands -------------------------------------------------------------------------

    def handle(self, cmd: list[str]) -> None:
        if not cmd or self.hung:
            return
        op = cmd[0]
        if op == "work":
            self.work_until = time.monotonic() + float(cmd[1])
            self.duty = min(1.0, max(0.0, float(cmd[2])))
            self.read = len(cmd) > 3 and cmd[3] == "read"
            if self.read and self.reader is None:
                self.reader = _Reader()
        elif op == "hang":
            self.hung = True
            self.work_until = 0.0
        elif op == "spin":
            custom_all_reduce(self.ctx.rank, os.environ.get(FAKE_GPU_DIR_VAR))
        elif op == "crash":
            self.crash(cmd[1], cmd[2])
        elif op == "leak":
            spawn_leakers(int(cmd[1]), float(cmd[2]), self.cfg)

    def crash(self, cause_name: str, phase: str) -> None:
        cause = faults.CAUSES[cause_name]
        if cause_name == "watchdog_timeout":  # fires after the (scaled) timeout has passed
            time.sleep(min(5.0, max(0.05, 5.0 * self.cfg.get("scale", 1.0))))
        lines = cause.lines(phase, self.ctx)
        if lines:
            logfmt.emit(*lines)
        if cause.death == "dead_rank":
            resource.setrlimit(resource.RLIMIT_CORE, (0, 0))  # no core files in anyone's cwd
            if cause.signal != signal.SIGKILL:
                signal.signal(cause.signal, signal.SIG_DFL)
            os.kill(os.getpid(), cause.signal)
            time.sleep(5)
            os._exit(128 + cause.signal)
        # sigquit: tell the parent, then wait to be killed with the tree.
        try:
            os.kill(os.getppid(), signal.SIGQUIT)
        except OSError:
            pass
        self.hung = True
        time.sleep(30)
        os._exit(0)

    # --- loop -----------------------------------------------------------------------------

    def _poll_stdin(self, timeout: float) -> bool:
        """Read and handle commands; False at EOF (the parent is gone)."""
        r, _, _ = select.select([0], [], [], timeout)
        if not r:
            return True
        data = os.read(0, 65536)
        if not data:
            return False
        self.buf += data
        while b"\n" in self.buf:
            raw, self.buf = self.buf.split(b"\n", 1)
            self.handle(raw.decode().split())
        return True

    def run(self) -> None:
        while True:
            if self.hung:
                time.sleep(3600)
                continue
            if time.monotonic() < self.work_until and self.duty > 0:
                _burn(SLICE * self.duty)
                if self.read and self.reader is not None:
                    self.reader.read()
                if not self._poll_stdin(SLICE * (1 - self.duty)):
                    return
            elif not self._poll_stdin(1.0):
                return


def spawn_leakers(n: int, ttl: float, cfg: dict) -> None:
    """Grandchildren that change session, ignore SIGTERM and outlive everyone (for ``ttl``).

    They inherit the environment and the stdout/stderr pipes, like a leaked compiler worker."""
    code = ("import os, signal, time; signal.signal(signal.SIGTERM, signal.SIG_IGN); "
            f"os.setsid() if os.getsid(0) != os.getpid() else None; time.sleep({ttl!r})")
    for _ in range(n):
        subprocess.Popen(["sglang::jit_worker", "-c", code], executable=cfg["executable"],
                         start_new_session=True, stdin=subprocess.DEVNULL, close_fds=True)


def main(cfg_json: str) -> None:
    cfg = json.loads(cfg_json)
    procs.set_comm(cfg["title"])
    procs.die_with_parent()
    if os.getppid() != cfg["parent"]:  # the parent died before prctl took effect
        os._exit(0)
    signal.signal(signal.SIGINT, signal.SIG_IGN)  # Ctrl-C goes to the main process
    try:
        Scheduler(cfg).run()  # the detokenizer is a scheduler that is never sent work
    except KeyboardInterrupt:
        pass
    sys.exit(0)
