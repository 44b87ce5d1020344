"""N clients of the daemon's socket subscribed to the log (and run) topics, reading and discarding.

    subscribers.py SOCKET N RESULT_JSON
Prints "ready" once every subscription is confirmed; on SIGTERM writes bytes received.
"""
import json
import selectors
import signal
import socket
import sys

path, n, result = sys.argv[1], int(sys.argv[2]), sys.argv[3]
sel = selectors.DefaultSelector()
socks = []
for _ in range(n):
    s = socket.socket(socket.AF_UNIX, socket.SOCK_STREAM)
    s.connect(path)
    s.sendall(b'{"id":1,"cmd":"subscribe","args":{"topics":["log","run"]}}\n')
    buf = b""
    while b'"id":1' not in buf:
        buf += s.recv(65536)
    s.setblocking(False)
    sel.register(s, selectors.EVENT_READ)
    socks.append(s)
print("ready", flush=True)
stats = {"bytes": 0, "dropped_notices": 0}
running = True


def stop(*_):
    global running
    running = False


signal.signal(signal.SIGTERM, stop)
while running:
    for key, _ in sel.select(0.2):
        try:
            data = key.fileobj.recv(1 << 20)
        except BlockingIOError:
            continue
        except OSError:
            data = b""
        if not data:
            sel.unregister(key.fileobj)
            continue
        stats["bytes"] += len(data)
        stats["dropped_notices"] += data.count(b'"event":"dropped"')
with open(result, "w") as f:
    json.dump(stats, f)
