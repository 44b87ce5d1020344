"""A 20-process tree: root -> 9 children -> 10 grandchildren that setsid() and ignore SIGTERM."""
import os
import signal
import sys
import time


def grandchild() -> None:
    os.setsid()
    signal.signal(signal.SIGTERM, signal.SIG_IGN)
    while True:
        signal.pause()


def middle(n_grand: int) -> None:
    for _ in range(n_grand):
        if os.fork() == 0:
            grandchild()
    while True:
        signal.pause()


def main() -> None:
    for i in range(9):
        if os.fork() == 0:
            middle(2 if i == 0 else 1)
    sys.stdout.write("bench tree: 20 processes up\n")
    sys.stdout.flush()
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main()
