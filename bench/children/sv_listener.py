"""supervisord event listener: stamps the arrival of every PROCESS_STATE_EXITED event."""
import os
import sys
import time

out = open(os.environ["BENCH_SV_STAMPS"], "a", buffering=1)
while True:
    sys.stdout.write("READY\n")
    sys.stdout.flush()
    header = sys.stdin.readline()
    t = time.time()
    fields = dict(x.split(":", 1) for x in header.split())
    payload = sys.stdin.read(int(fields["len"]))
    pf = dict(x.split(":", 1) for x in payload.split("\n", 1)[0].split())
    out.write(f"{t:.6f} {pf.get('processname', '?')}\n")
    sys.stdout.write("RESULT 2\nOK")
    sys.stdout.flush()
