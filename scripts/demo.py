"""The demo: a real daemon on a temporary state dir, the demo profiles on the SGLang emulator
and 8 fake GPUs, then the TUI attached to it (or `supervisor-ctl events -f` with --no-tui).

    make demo                # TUI
    make demo ARGS=--no-tui  # plain event stream
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


def story(ctl: list[str], env: dict[str, str], say: Callable[[str], object]) -> None:
    """Baseline up and benchmarked first (``switch --wait`` returns at ready, before the
    benchmark), then the profile that hangs."""
    say("demo: switching to demo-baseline")
    ctl_json(ctl, env, say, "switch", "demo-baseline", "--wait", "--timeout", "120")
    bench = None
    deadline = time.monotonic() + 60
    while bench is None and time.monotonic() < deadline:
        run = ctl_json(ctl, env, say, "status").get("run") or {}
        if run.get("status") not in ("starting", "ready"):
            break
        bench = run.get("benchmark")
        time.sleep(0.5)
    tps = (bench or {}).get("tokens_per_s")
    say(f"demo: baseline measured: {tps} tok/s" if tps else
        f"demo: the baseline has no benchmark ({(bench or {}).get('error', 'none came')})")
    say("demo: switching to demo-fewchan-fusion (nccl_fewchan + flashinfer_fusion)")
    ctl_json(ctl, env, say, "switch", "demo-fewchan-fusion")


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
        print("story: the baseline is launched and measured (the reference of every 'vs "
              "baseline'); then the two-change profile, which hangs in CUDA-graph capture; the "
              "daemon isolates the culprit and falls back.")
        # The story runs beside the viewer, so the baseline's launch is seen as it happens.
        say = print if args.no_tui else (lambda *_: None)  # (a print would tear the TUI)
        threading.Thread(target=story, args=(ctl, env, say), daemon=True).start()
        if args.no_tui:
            return subprocess.call(ctl + ["events", "-f"], env=env)
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
