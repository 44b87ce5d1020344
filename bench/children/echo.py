"""The floor for a request round trip on this machine: a minimal stdlib asyncio server that
answers each JSON request line at once (no work), over a Unix socket like the daemon's.

    echo.py SOCKET     (prints "ready" when listening)
"""
import asyncio
import json
import sys


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b'{"hello":"echo","protocol":1}\n')
    while line := await reader.readline():
        req = json.loads(line)
        writer.write(json.dumps({"id": req.get("id"), "ok": True, "result": {}}).encode() + b"\n")


async def main() -> None:
    server = await asyncio.start_unix_server(serve, sys.argv[1])
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
