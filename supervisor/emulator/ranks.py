"""Multi-node ranks: ``--nnodes N --node-rank R --dist-init-addr HOST:PORT``.

A real TCP rendezvous on the dist-init port, as torch's TCPStore does it: rank 0 listens, the
other ranks connect (retrying until the dist timeout), and rank 0 says go once all N are in.
The connections stay open while the server lives: when a peer dies its socket closes, and
after the (time-scaled) dist timeout the survivors print what torch prints then (rank 0: the
NCCL watchdog's collective timeout; the others: c10d's lost TCPStore) and exit.
"""

from __future__ import annotations

import socket
import threading
import time
from collections.abc import Callable

from supervisor.emulator import faults
from supervisor.emulator.logfmt import emit

DEFAULT_DIST_TIMEOUT = 600.0  # seconds, torch's default for NCCL process groups
# The ranks' processes start at real speed, whatever the time scale: a rendezvous scaled down
# to a fraction of a second fails on a busy host before the other ranks have even started.
JOIN_FLOOR_S = 5.0


def split_addr(addr: str) -> tuple[str, int]:
    host, _, port = addr.rpartition(":")
    if not host or not port.isdigit():
        raise ValueError(f"--dist-init-addr must be HOST:PORT, got {addr!r}")
    return host.strip("[]"), int(port)


class Rendezvous:
    def __init__(self, nnodes: int, rank: int, addr: str, timeout_s: float,
                 on_fatal: Callable[[list[str]], None], shown_s: float | None = None) -> None:
        self.nnodes = nnodes
        self.rank = rank
        self.host, self.port = split_addr(addr)
        self.timeout_s = timeout_s          # what this rank waits (time-scaled)
        self.join_s = max(timeout_s, JOIN_FLOOR_S)  # what it waits for the others to join
        self.shown_s = shown_s or timeout_s  # what the lines say (the engine's own value)
        self.on_fatal = on_fatal
        self.peers: list[socket.socket] = []
        self.listener: socket.socket | None = None

    def join(self) -> None:
        """Blocks until every rank is in; on timeout, the c10d lines and ``on_fatal``."""
        if self.rank == 0:
            self._serve()
        else:
            self._connect()
        for peer in self.peers:
            threading.Thread(target=self._watch, args=(peer,), daemon=True).start()

    def _serve(self) -> None:
        lst = socket.socket()
        lst.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEADDR, 1)
        try:
            lst.bind((self.host, self.port))
        except OSError as exc:
            self.on_fatal([f"torch.distributed.DistNetworkError: The server socket has failed "
                           f"to listen on any local network address. port: {self.port}, "
                           f"useIpv6: false, code: -98, name: EADDRINUSE, message: {exc}"])
        lst.listen(self.nnodes)
        self.listener = lst
        deadline = time.monotonic() + self.join_s
        while len(self.peers) < self.nnodes - 1:
            lst.settimeout(max(0.01, deadline - time.monotonic()))
            try:
                conn, _ = lst.accept()
            except (TimeoutError, OSError):
                self.on_fatal(self._never_came())
                return
            conn.recv(16)  # the joining rank's hello
            self.peers.append(conn)
        for peer in self.peers:
            peer.sendall(b"go\n")

    def _connect(self) -> None:
        deadline = time.monotonic() + self.join_s
        while True:
            try:
                conn = socket.create_connection((self.host, self.port), timeout=1)
                conn.sendall(f"rank {self.rank}\n".encode())
                conn.settimeout(max(0.01, deadline - time.monotonic()))
                if conn.recv(16).startswith(b"go"):
                    conn.settimeout(None)
                    self.peers.append(conn)
                    return
                conn.close()
            except OSError:
                pass
            if time.monotonic() >= deadline:
                self.on_fatal(self._never_came())
                return
            time.sleep(0.05)

    def _never_came(self) -> list[str]:
        secs = int(self.shown_s)
        if self.rank == 0:
            return [f"[rank{self.rank}]:[W socket.cpp:752] [c10d] Timed out after {secs} seconds "
                    f"waiting for clients. {len(self.peers) + 1}/{self.nnodes} clients joined.",
                    "torch.distributed.DistStoreError: Timed out after "
                    f"{secs} seconds waiting for clients. {len(self.peers) + 1}/{self.nnodes} "
                    "clients joined."]
        return [f"[rank{self.rank}]:[W socket.cpp:752] [c10d] The client socket has timed out "
                f"after {secs}s while trying to connect to ({self.host}, {self.port}).",
                "torch.distributed.DistNetworkError: The client socket has timed out after "
                f"{secs}s while trying to connect to ({self.host}, {self.port})."]

    def _watch(self, peer: socket.socket) -> None:
        """A peer's socket closing is its death; the survivors notice only when their next
        collective times out."""
        try:
            while peer.recv(4096):
                pass
        except OSError:
            pass
        time.sleep(self.timeout_s)
        self.on_fatal(self._peer_lost_lines())

    def _peer_lost_lines(self) -> list[str]:
        r = self.rank
        if r == 0:
            return faults.CAUSES["nccl_timeout"].lines("serving", faults.Ctx(rank=r))
        remote = f"[{self.host}]:{self.port}"
        return [
            f"[rank{r}]:[W socket.cpp:464] [c10d] recvValue failed on SocketImpl(fd=57, "
            f"addr=[::ffff:127.0.0.1]:51234, remote={remote}): failed to recv, got 0 bytes. "
            "Connection was likely closed. Did the remote server shutdown or crash?",
            f"[rank{r}]:[E ProcessGroupNCCL.cpp:1746] [PG ID 0 PG GUID 0(default_pg) Rank {r}] "
            "Failed to check the \"should dump\" flag on TCPStore, (maybe TCPStore server has "
            "shut down too early), with error: failed to recv, got 0 bytes",
        ]


def emit_fatal(lines: list[str]) -> None:
    emit(*lines)
