"""sd_notify in a few lines of our own: READY, STATUS, STOPPING, RELOADING, WATCHDOG.

Does nothing when NOTIFY_SOCKET is unset (not under systemd).
"""

from __future__ import annotations

import os
import socket
import time


class Notifier:
    def __init__(self, address: str | None = None) -> None:
        self.address = address if address is not None else os.environ.get("NOTIFY_SOCKET")
        self.sent: list[str] = []
        self._sock: socket.socket | None = None
        if self.address:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)
            # Never block the event loop on systemd: a full queue drops the message.
            self._sock.setblocking(False)

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def notify(self, *fields: str) -> bool:
        if self._sock is None or not self.address:
            return False
        addr = self.address
        if addr.startswith("@"):  # abstract namespace
            addr = "\0" + addr[1:]
        message = "\n".join(fields)
        try:
            self._sock.sendto(message.encode(), addr)
        except OSError:
            return False
        self.sent.append(message)
        return True

    def ready(self, status: str | None = None) -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def stopping(self) -> bool:
        return self.notify("STOPPING=1")

    def reloading(self) -> bool:
        usec = time.clock_gettime_ns(time.CLOCK_MONOTONIC) // 1000
        return self.notify("RELOADING=1", f"MONOTONIC_USEC={usec}")

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")


def watchdog_interval() -> float | None:
    """Half of WATCHDOG_USEC when the watchdog is for us, else None."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or (pid and pid != str(os.getpid())):
        return None
    try:
        return int(usec) / 1e6 / 2
    except ValueError:
        return None
