"""The floor for fanning a flood out to followers: the least a supervisor can do.

    fanout.py SOCKET N LOG RESULT -- CMD...
Listens on SOCKET; each client's first line (the bench's subscribe request) is answered with
an `"id":1` line, like the daemon's reply. Once N clients are in, runs CMD with its stdout on a
pipe and, per read (up to 1 MiB): appends the bytes to LOG, and offers them to every client
that has nothing left unsent: one non-blocking send, the rest kept for when its socket has
room; a client still behind skips the read (the daemon skips for followers that are behind,
too). Reads go out at the daemon's pace for followers (4 MiB/s on average, 1 MiB bursts); a
read beyond it is skipped for everyone. No parsing, no JSON, no ring, no phases. Prints
"ready" once listening; when CMD has exited and its output is all read, writes its own CPU
seconds to RESULT and exits.
"""
import fcntl
import json
import os
import selectors
import socket
import subprocess
import sys
import time

path, n, log_path, result = sys.argv[1], int(sys.argv[2]), sys.argv[3], sys.argv[4]
cmd = sys.argv[sys.argv.index("--") + 1:]
srv = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
srv.bind(path)
srv.listen(n)
print("ready", flush=True)
clients = []
for _ in range(n):
    c, _addr = srv.accept()
    buf = b""
    while b"\n" not in buf:
        buf += c.recv(65536)
    c.sendall(b'{"id":1,"ok":true,"result":{}}\n')
    c.setsockopt(socket.SOL_SOCKET, socket.SO_SNDBUF, 1 << 20)  # as the daemon's followers
    c.setblocking(False)
    clients.append(c)
unsent = {c: memoryview(b"") for c in clients}
sel = selectors.DefaultSelector()
t0 = os.times()
child = subprocess.Popen(cmd, stdout=subprocess.PIPE)
fd = child.stdout.fileno()
os.set_blocking(fd, False)
fcntl.fcntl(fd, 1031, 1 << 20)  # F_SETPIPE_SZ: a 1 MiB pipe, as the daemon uses
sel.register(fd, selectors.EVENT_READ)
log = open(log_path, "ab", buffering=0)


def offer(c: socket.socket, data: memoryview) -> None:
    try:
        sent = c.send(data)
    except BlockingIOError:
        sent = 0
    except OSError:
        sent = len(data)
    unsent[c] = data[sent:]
    if len(unsent[c]):
        sel.register(c, selectors.EVENT_WRITE)


RATE, BURST = 4 * 2**20, 256 * 1024  # as supervisor/runtime/logfeed.py
allowance, refilled = float(BURST), time.monotonic()
open_pipe = True
while open_pipe:
    for key, _ in sel.select():
        if key.fileobj == fd:
            try:
                data = os.read(fd, 1 << 20)
            except BlockingIOError:
                continue
            if not data:
                open_pipe = False
                break
            log.write(data)
            now = time.monotonic()
            allowance = min(BURST, allowance + (now - refilled) * RATE)
            refilled = now
            if allowance <= 0:
                continue
            allowance -= len(data)
            view = memoryview(data)
            for c in clients:
                if not len(unsent[c]):
                    offer(c, view)
        else:
            sel.unregister(key.fileobj)
            offer(key.fileobj, unsent[key.fileobj])
child.wait()
t = os.times()  # the CPU of the flood alone, as for the daemon (not start-up)
with open(result + ".tmp", "w") as f:
    json.dump({"cpu_s": t.user + t.system - t0.user - t0.system}, f)
os.replace(result + ".tmp", result)
