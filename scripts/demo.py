"""The demo: a real daemon on a temporary state dir, the demo profiles on the SGLang emulator
and 8 fake GPUs, running the seed's campaign (profiles/demo/campaigns/seed.toml) unattended,
with the TUI attached (or `supervisor-ctl events -f` with --no-tui, ending on the report).

    make demo                # TUI; the report: supervisor-ctl campaign status
    make demo ARGS=--no-tui  # plain event stream, then the campaign's report
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import threading
import time
from collections.abc import Callable
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


def ctl_json(ctl: list[str], env: dict[str, str], say: Callable[[str], object],
             *args: str) -> dict:
    """One ``supervisor-ctl --json`` answer; {} when it fails, after saying why."""
    res = subprocess.run(ctl[:3] + ["--json"] + ctl[3:] + list(args), env=env,
                         capture_output=True, text=True, timeout=150)
    if res.returncode != 0:
        say(f"demo: supervisor-ctl {' '.join(args)} failed: "
            f"{(res.stderr or res.stdout).strip()[-300:]}")
        return {}
    try:
        return json.loads(res.stdout)
    except ValueError:
        return {}


CAMPAIGN = "seed"
CAMPAIGN_WAIT_S = 900   # the plan's own time budget


def story(ctl: list[str], env: dict[str, str], say: Callable[[str], object]) -> dict:
    """The seed's campaign, run by the daemon (its steps are in the event stream, as the
    daemon's campaign notes): started, then followed until it ends; its final state."""
    say(f"demo: running campaign {CAMPAIGN} (profiles/demo/campaigns/{CAMPAIGN}.toml) on the "
        "daemon")
    if not ctl_json(ctl, env, say, "campaign", "run", CAMPAIGN):
        return {}
    deadline = time.monotonic() + CAMPAIGN_WAIT_S
    state: dict = {}
    while time.monotonic() < deadline:
        state = ctl_json(ctl, env, say, "campaign", "status") or state
        if state.get("status") not in ("running", None):
            break
        time.sleep(0.5)
    return state


class EventRelay:
    """``supervisor-ctl events -f``, relayed line by line. ``subscribed`` is set once the
    stream is known to be live: until then the daemon is asked to re-read its profiles
    (SIGHUP, a no-op here) and the stream's echo of that is swallowed, so nothing of the
    campaign is lost to a follower that has not subscribed yet."""

    PROBE = "profiles reloaded (SIGHUP)"

    def __init__(self, ctl: list[str], env: dict[str, str]) -> None:
        self.proc = subprocess.Popen(ctl + ["events", "-f"], env=env, stdout=subprocess.PIPE,
                                     text=True)
        self.subscribed = threading.Event()
        self.thread = threading.Thread(target=self._relay, daemon=True)
        self.thread.start()

    def _relay(self) -> None:
        assert self.proc.stdout is not None
        for line in self.proc.stdout:
            if not self.subscribed.is_set() and self.PROBE in line:
                self.subscribed.set()
                continue
            print(line, end="", flush=True)

    def wait_live(self, daemon: subprocess.Popen, timeout: float = 20) -> bool:
        deadline = time.monotonic() + timeout
        while not self.subscribed.is_set() and time.monotonic() < deadline:
            daemon.send_signal(signal.SIGHUP)
            self.subscribed.wait(0.5)
        return self.subscribed.is_set()

    def close(self) -> None:
        self.proc.terminate()
        self.proc.wait(10)
        self.thread.join(5)


def no_tui(ctl: list[str], env: dict[str, str], daemon: subprocess.Popen) -> int:
    """The event stream while the campaign runs, then its report; the exit status is the
    campaign's (0 completed)."""
    events = EventRelay(ctl, env)
    try:
        if not events.wait_live(daemon):
            print("demo: the event stream did not start (supervisor-ctl events -f); the "
                  "campaign runs anyway")
        state = story(ctl, env, print)
    finally:
        events.close()
    if not state.get("report"):
        print(f"demo: the campaign did not end with a report (status "
              f"{state.get('status', 'unknown')}): supervisor-ctl campaign status")
        return 1
    print("demo: the campaign's report (also: supervisor-ctl campaign status; files: "
          f"{(state.get('files') or {}).get('markdown')})\n")
    print(state["report"].rstrip("\n"))
    return 0 if state.get("status") == "completed" else 1


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawTextHelpFormatter)
    ap.add_argument("--no-tui", action="store_true", help="follow events instead of the TUI")
    ap.add_argument("--keep", action="store_true", help="keep the temporary state dir")
    args = ap.parse_args()
    # A closed terminal (SIGHUP) or a kill (SIGTERM) must still stop the demo's daemon.
    for sig in (signal.SIGHUP, signal.SIGTERM):
        signal.signal(sig, lambda *_: (_ for _ in ()).throw(KeyboardInterrupt()))
    tmp = Path(tempfile.mkdtemp(prefix="gns-demo-", dir="/tmp"))
    sock = tmp / "control.sock"
    env = dict(os.environ, PYTHONPATH=str(REPO))
    daemon = subprocess.Popen(
        [sys.executable, "-m", "supervisor.cli.daemon", "--socket", str(sock), "--profiles",
         str(REPO / "profiles" / "demo"), "--state-dir", str(tmp / "state"), "--fake-gpus", "8"],
        stdout=open(tmp / "daemon.log", "wb"), stderr=subprocess.STDOUT, env=env)
    try:
        deadline = time.monotonic() + 20
        while not sock.exists():
            if daemon.poll() is not None or time.monotonic() > deadline:
                print((tmp / "daemon.log").read_text(), file=sys.stderr)
                return 1
            time.sleep(0.1)
        ctl = [sys.executable, "-m", "supervisor.cli.ctl", "--socket", str(sock)]
        print(f"daemon pid {daemon.pid}, socket {sock}, state {tmp / 'state'}")
        print("story: the seed's campaign. The baseline is launched and measured (3 "
              "repetitions: a mean and its spread); then NCCL 2 channels + the FlashInfer "
              "fusion source patch, which hangs in CUDA-graph capture: the daemon isolates the "
              "patch and serves NCCL alone; the campaign branches to EAGLE-3 with the new NCCL "
              "settings and ends on its report (any time: supervisor-ctl --socket "
              f"{sock} campaign status).")
        if args.no_tui:
            return no_tui(ctl, env, daemon)
        # The campaign runs on the daemon; the TUI watches it (a print would tear the TUI).
        threading.Thread(target=story, args=(ctl, env, lambda *_: None), daemon=True).start()
        return subprocess.call([sys.executable, "-m", "tui.app", "--socket", str(sock)], env=env)
    except KeyboardInterrupt:
        return 0
    finally:
        daemon.send_signal(signal.SIGTERM)
        try:
            daemon.wait(30)
        except subprocess.TimeoutExpired:
            daemon.kill()
        if not args.keep:
            shutil.rmtree(tmp, ignore_errors=True)


if __name__ == "__main__":
    raise SystemExit(main())
