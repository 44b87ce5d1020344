"""sd_notify against a real datagram socket."""

from __future__ import annotations

import os
import socket
import tempfile

from supervisor.systemd import Notifier, watchdog_interval


def test_notify_sequence_on_a_datagram_socket() -> None:
    d = tempfile.mkdtemp(dir="/tmp")
    path = os.path.join(d, "notify")
    sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM)
    sock.bind(path)
    sock.settimeout(5)
    try:
        n = Notifier(path)
        assert n.ready("idle") and n.status("baseline: starting (launch)")
        assert n.watchdog() and n.reloading() and n.stopping()
        got = [sock.recv(4096).decode() for _ in range(5)]
        n.close()
    finally:
        sock.close()
        os.unlink(path)
        os.rmdir(d)
    assert got[0] == "READY=1\nSTATUS=idle"
    assert got[1] == "STATUS=baseline: starting (launch)"
    assert got[2] == "WATCHDOG=1"
    assert got[3].startswith("RELOADING=1\nMONOTONIC_USEC=") and got[3].split("=")[-1].isdigit()
    assert got[4] == "STOPPING=1"


def test_without_notify_socket_nothing_is_sent(monkeypatch) -> None:
    monkeypatch.delenv("NOTIFY_SOCKET", raising=False)
    n = Notifier()
    assert not n.enabled and n.ready() is False


def test_watchdog_interval(monkeypatch) -> None:
    monkeypatch.setenv("WATCHDOG_USEC", "20000000")
    monkeypatch.setenv("WATCHDOG_PID", str(os.getpid()))
    assert watchdog_interval() == 10.0
    monkeypatch.setenv("WATCHDOG_PID", "1")
    assert watchdog_interval() is None
