"""A TCP forwarder as a process of its own, for the cluster world (cluster_world.py).

`python -m tests.support.tcp_forward LISTEN_HOST LISTEN_PORT TARGET_HOST TARGET_PORT`
prints `forwarding` once it listens, then copies bytes both ways for each connection
until either side closes. The machine's PostgreSQL listens on 127.0.0.1 alone (other
suites share it, and its configuration is not the tests' to change), while a replica
in a network namespace has a loopback of its own: this stands on the host's end of the
replicas' links for the network between the database's machine and theirs. A process,
not a task of the test's event loop, so a test that holds its loop for a moment never
stalls every replica's queries. A refused connection to the target is passed on as a
reset, as a database that is down would answer.
"""

from __future__ import annotations

import asyncio
import contextlib
import socket
import struct
import sys
from collections.abc import Awaitable, Callable
from typing import TypeAlias

_CHUNK = 65536
Reader: TypeAlias = asyncio.StreamReader
Writer: TypeAlias = asyncio.StreamWriter


async def _copy(reader: asyncio.StreamReader, writer: asyncio.StreamWriter) -> None:
    try:
        while chunk := await reader.read(_CHUNK):
            writer.write(chunk)
            await writer.drain()
        if writer.can_write_eof():
            writer.write_eof()
    except OSError:
        writer.transport.abort()


def _reset(writer: asyncio.StreamWriter) -> None:
    """Close with RST (SO_LINGER 0), as a connection refused would look from afar."""
    sock = writer.get_extra_info("socket")
    if sock is not None:
        sock.setsockopt(socket.SOL_SOCKET, socket.SO_LINGER, struct.pack("ii", 1, 0))
    writer.transport.abort()


def _handler(host: str, port: int) -> Callable[[Reader, Writer], Awaitable[None]]:
    async def forward(client_reader: Reader, client_writer: Writer) -> None:
        try:
            target_reader, target_writer = await asyncio.open_connection(host, port)
        except OSError:
            _reset(client_writer)
            return
        try:
            await asyncio.gather(
                _copy(client_reader, target_writer), _copy(target_reader, client_writer)
            )
        finally:
            for writer in (client_writer, target_writer):
                writer.close()
                with contextlib.suppress(OSError):
                    await writer.wait_closed()

    return forward


async def main(listen_host: str, listen_port: int, host: str, port: int) -> None:
    server = await asyncio.start_server(
        _handler(host, port), listen_host, listen_port, reuse_address=True, backlog=256
    )
    print("forwarding", flush=True)
    async with server:
        await server.serve_forever()


if __name__ == "__main__":
    listen_host, listen_port, target_host, target_port = sys.argv[1:5]
    asyncio.run(main(listen_host, int(listen_port), target_host, int(target_port)))
