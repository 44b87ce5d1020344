"""The floor for a request round trip on this machine: a minimal stdlib asyncio server that
answers each JSON request line at once (no work), over a Unix socket like the daemon's.

    echo.py SOCKET [STATUS_JSON]     (prints "ready" when listening)
A request {"cmd": "status"} is answered with STATUS_JSON's content as the result (a reply as
big as the daemon's, built in no time); any other with an empty result.
"""
import asyncio
import json
import sys

CANNED = open(sys.argv[2]).read() if len(sys.argv) > 2 else "{}"


async def serve(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    writer.write(b'{"hello":"echo","protocol":1}\n')
    while line := await reader.readline():
        req = json.loads(line)
        result = CANNED if req.get("cmd") == "status" else "{}"
        writer.write(f'{{"id":{json.dumps(req.get("id"))},"ok":true,"result":{result}}}\n'
                     .encode())


async def main() -> None:
    server = await asyncio.start_unix_server(serve, sys.argv[1])
    print("ready", flush=True)
    async with server:
        await server.serve_forever()


asyncio.run(main())
