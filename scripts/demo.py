"""The demo: a real daemon on a temporary state dir, the demo profiles on the SGLang emulator
and 8 fake GPUs, then the TUI attached to it (or `supervisor-ctl events -f` with --no-tui).

    make demo                # TUI
    make demo ARGS=--no-tui  # plain event stream
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]


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
        print("story: baseline ready and measured; then the two-change profile, which hangs in "
              "CUDA-graph capture; the daemon isolates the culprit and falls back.")
        subprocess.Popen(ctl + ["switch", "demo-baseline", "--wait"], env=env,
                         stdout=subprocess.DEVNULL).wait(120)
        subprocess.Popen(ctl + ["switch", "demo-fewchan-fusion"], env=env,
                         stdout=subprocess.DEVNULL)
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
