"""Security issue, hole 8 (HTTP): slow and idle clients are cut off, and one address
cannot hold every connection; long-lived SSE streams are not cut.

Raw sockets play the slow clients (a slowloris sends its headers a byte at a
time and never finishes). Small settings keep it fast; no test waits for a
default. HTTP only: SQLite is enough.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path

from tests.support.gateway import Api, web_gateway
from tests.support.http import HUMAN_SEND, ok
from tests.support.sse import open_stream

HEAD = b"GET /api/v1/health HTTP/1.1\r\nHost: gateway\r\n"
# Far longer than any timeout set here: a connection still open by then was not cut.
PATIENCE = 20.0


async def connect(api: Api) -> tuple[asyncio.StreamReader, asyncio.StreamWriter]:
    return await asyncio.open_connection("127.0.0.1", api.gateway.http_port)


async def until_closed(reader: asyncio.StreamReader) -> bytes:
    """Everything the server sends until it closes the connection."""
    return await asyncio.wait_for(reader.read(), PATIENCE)


def status_and_code(answer: bytes) -> tuple[int, str]:
    head, _, body = answer.partition(b"\r\n\r\n")
    return int(head.split()[1]), json.loads(body)["error"]["code"]


async def test_slowloris_connections_are_cut(tmp_path: Path) -> None:
    """The issue's replay: 300 connections that send their headers a byte at a time."""
    async with web_gateway(tmp_path, http_header_timeout_seconds=1.0) as api:
        connections = [await connect(api) for _ in range(300)]

        async def trickle(writer: asyncio.StreamWriter) -> None:
            for byte in HEAD:
                if writer.is_closing():
                    return
                writer.write(bytes([byte]))
                await asyncio.sleep(0.1)

        tricklers = [asyncio.create_task(trickle(writer)) for _, writer in connections]
        try:
            answers = await asyncio.gather(*(until_closed(reader) for reader, _ in connections))
        finally:  # a failure here must not leave 300 sockets to the next test's GC
            for task in tricklers:
                task.cancel()
            for _, writer in connections:
                writer.close()
        codes = [status_and_code(answer) for answer in answers]
        # 100 per address (the default) are let in and time out, the rest are refused
        # (more time out if connecting took longer than the timeout: they found room).
        timed_out = codes.count((408, "request_timeout"))
        refused = codes.count((503, "too_many_connections"))
        assert timed_out >= 100 and refused >= 1 and timed_out + refused == 300, codes
        # The gateway goes on serving.
        assert (await api.client().get("/api/v1/health")).status_code == 200


async def test_a_silent_connection_and_a_slow_next_request_are_cut(tmp_path: Path) -> None:
    async with web_gateway(tmp_path, http_header_timeout_seconds=0.5) as api:
        reader, writer = await connect(api)
        assert status_and_code(await until_closed(reader)) == (408, "request_timeout")
        writer.close()

        # A kept-alive connection: the first request is answered, the half-sent next one is cut.
        reader, writer = await connect(api)
        writer.write(HEAD + b"\r\n")
        first = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), PATIENCE)
        assert first.startswith(b"HTTP/1.1 200")
        length = next(
            int(line.split(b":")[1])
            for line in first.split(b"\r\n")
            if line.lower().startswith(b"content-length")
        )
        await reader.readexactly(length)
        writer.write(b"GET /api/v1/health HTTP/1.1\r\nHo")
        answer = await until_closed(reader)
        assert status_and_code(answer) == (408, "request_timeout")
        writer.close()


async def test_an_sse_stream_outlives_the_header_timeout(tmp_path: Path) -> None:
    async with web_gateway(tmp_path, http_header_timeout_seconds=0.3) as api:
        agent = await api.agent("builder")
        human = await api.human("jianf")
        async with open_stream(agent) as stream:
            await asyncio.sleep(1.5)  # five header timeouts
            sent = ok(
                await human.post(HUMAN_SEND, json={"to": "builder@", "subject": "s", "body": "b"})
            )
            assert (await stream.next_of("new_mail")).json["mail_id"] == sent["mail_id"]


async def test_connections_per_address(tmp_path: Path) -> None:
    async with web_gateway(tmp_path, http_connections_per_address=3) as api:
        held = [await connect(api) for _ in range(3)]
        reader, writer = await connect(api)
        assert status_and_code(await until_closed(reader)) == (503, "too_many_connections")
        writer.close()
        # One closes: a new connection is served again.
        _, first = held.pop()
        first.close()
        await first.wait_closed()
        async with asyncio.timeout(PATIENCE):
            while True:
                reader, writer = await connect(api)
                writer.write(HEAD + b"Connection: close\r\n\r\n")
                answer = await until_closed(reader)
                writer.close()
                if answer.startswith(b"HTTP/1.1 200"):
                    break
                await asyncio.sleep(0.05)  # the server may not have seen the close yet
        for _, other in held:
            other.close()


async def test_trusted_proxies_are_exempt_from_the_connection_limit(tmp_path: Path) -> None:
    async with web_gateway(
        tmp_path, http_connections_per_address=2, trusted_proxies="127.0.0.1"
    ) as api:
        held = [await connect(api) for _ in range(4)]
        for reader, writer in held:
            writer.write(HEAD + b"\r\n")
            answer = await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), PATIENCE)
            assert answer.startswith(b"HTTP/1.1 200"), answer
        for _, writer in held:
            writer.close()
