"""Run briefly, write the exit time (epoch seconds) to BENCH_STAMP, exit 1 at once."""
import os
import sys
import time

time.sleep(float(os.environ.get("BENCH_SLEEP", "0.15")))
sys.stdout.write("bench: simulated failure, exiting with code 1\n")
sys.stdout.flush()
with open(os.environ["BENCH_STAMP"], "a") as f:
    f.write(f"{time.time():.6f}\n")
os._exit(1)
