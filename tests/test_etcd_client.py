"""The etcd client against a real etcd: kv, leases, prefix watches, several endpoints."""

from __future__ import annotations

from collections.abc import Iterator

import anyio
import pytest

from supervisor.cluster.etcd import Etcd, EtcdError, prefix_end
from tests.etcd_server import EtcdServer, etcd_binary, free_port

pytestmark = pytest.mark.skipif(etcd_binary() is None, reason="etcd not installed "
                                "(scripts/ensure-test-tools.sh installs etcd-server as root)")


@pytest.fixture(scope="module")
def etcd() -> Iterator[EtcdServer]:
    server = EtcdServer().start()
    yield server
    server.close()


def test_prefix_end() -> None:
    assert prefix_end("/a/") == b"/a0"
    assert prefix_end("a\xff") != b""


def test_put_get_prefix_delete(etcd: EtcdServer) -> None:
    async def main() -> None:
        c = Etcd(etcd.url)
        rev = await c.put("/t1/x", '{"n": 1}')
        assert rev > 0
        await c.put("/t1/y", "2")
        kv = await c.get("/t1/x")
        assert kv is not None and kv.json() == {"n": 1} and kv.mod_revision == rev
        kvs, now = await c.get_prefix("/t1/")
        assert [k.key for k in kvs] == ["/t1/x", "/t1/y"] and now >= rev
        assert await c.put_if_absent("/t1/z", "first")
        assert not await c.put_if_absent("/t1/z", "second")
        assert (await c.get("/t1/z")).value == b"first"
        await c.delete_prefix("/t1/")
        assert await c.get("/t1/x") is None
    anyio.run(main)


def test_lease_expiry_is_watched(etcd: EtcdServer) -> None:
    """A key under a lease that is not kept alive disappears; the watch sees the DELETE."""
    async def main() -> None:
        c = Etcd(etcd.url)
        lease, ttl = await c.grant(2)
        assert ttl >= 2
        assert await c.keepalive(lease) >= 1
        _, rev = await c.get_prefix("/t2/")
        await c.put("/t2/member", "m", lease=lease)
        seen: list[tuple[str, str]] = []
        with anyio.fail_after(10):
            async for batch in c.watch_prefix("/t2/", rev + 1):
                seen += [(e.kind, e.kv.key) for e in batch]
                if ("DELETE", "/t2/member") in seen:
                    break
        assert seen[0] == ("PUT", "/t2/member")
        assert await c.keepalive(lease) == 0  # gone
    anyio.run(main)


def test_dead_endpoint_is_skipped_and_all_dead_says_so(etcd: EtcdServer) -> None:
    async def main() -> None:
        dead = f"http://127.0.0.1:{free_port()}"
        c = Etcd([dead, etcd.url], timeout=1)
        await c.put("/t3/k", "v")
        assert (await c.get("/t3/k")).value == b"v"
        with pytest.raises(EtcdError, match="every endpoint"):
            await Etcd([dead], timeout=1).get("/t3/k")
    anyio.run(main)
