"""A real IMAP client against a running gateway: stdlib imaplib, each call in a worker thread."""

from __future__ import annotations

import asyncio
import contextlib
import imaplib
import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from typing import Any, Protocol

import aioimaplib

from gateway.server import Gateway
from tests.support.gateway import PASSWORD


class Imap:
    """`await imap("select", "INBOX")` runs `IMAP4.select("INBOX")` off the loop."""

    def __init__(self, client: imaplib.IMAP4) -> None:
        self.client = client

    async def __call__(self, method: str, *args: Any) -> tuple[str, list[Any]]:
        typ, data = await asyncio.to_thread(getattr(self.client, method), *args)
        return str(typ), list(data)

    async def ok(self, method: str, *args: Any) -> list[Any]:
        """The data of a command that must succeed."""
        typ, data = await self(method, *args)
        assert typ == "OK", (method, args, typ, data)
        return data

    async def uid(self, command: str, *args: Any) -> list[Any]:
        return await self.ok("uid", command, *args)

    async def search_uids(self, *criteria: str) -> list[int]:
        [line] = await self.uid("SEARCH", None, *criteria)
        return [int(n) for n in line.split()]


async def connect(gateway: Gateway) -> Imap:
    client = await asyncio.to_thread(imaplib.IMAP4, "127.0.0.1", gateway.imap_port, timeout=15)
    return Imap(client)


@asynccontextmanager
async def imap_login(gateway: Gateway, name: str, secret: str = PASSWORD) -> AsyncIterator[Imap]:
    imap = await connect(gateway)
    try:
        await imap.ok("login", name, secret)
        yield imap
    finally:
        with contextlib.suppress(imaplib.IMAP4.error, OSError):
            await asyncio.to_thread(imap.client.logout)


def fetched(data: list[Any]) -> dict[int, dict[str, Any]]:
    """FETCH data per message sequence number: `FLAGS`, `UID`, literals by their item name.

    imaplib splits a response at each literal: `(b'1 (BODY[] {9}', b'...')`, then
    `b' UID 1)'`; pieces that do not start with a number continue the message before.
    """
    out: dict[int, dict[str, Any]] = {}
    entry: dict[str, Any] = {}
    for item in data:
        head = item[0] if isinstance(item, tuple) else item
        start = re.match(rb"(\d+) \(", head)
        if start is not None:
            entry = out.setdefault(int(start.group(1)), {"raw": b""})
        entry["raw"] += head
        if isinstance(item, tuple):
            key = re.search(rb"(BODY\[[^\]]*\](?:<\d+>)?|RFC822(?:\.\w+)?) \{\d+\}$", item[0])
            assert key is not None, item[0]
            entry[key.group(1).decode()] = item[1]
        uid = re.search(rb"UID (\d+)", head)
        if uid:
            entry["UID"] = int(uid.group(1))
        flags = re.search(rb"FLAGS \(([^)]*)\)", head)
        if flags:
            entry["FLAGS"] = set(flags.group(1).decode().split())
    return out


class ImapServer(Protocol):
    """Where an IMAP client connects (a gateway process, a replica, nginx in front)."""

    @property
    def host(self) -> str: ...
    @property
    def imap_port(self) -> int: ...


WAIT = 30.0  # the most one IMAP step waits: far beyond a busy machine's answer


async def idle_client(server: ImapServer, login: str) -> aioimaplib.IMAP4:
    """An aioimaplib client with INBOX selected, ready for IDLE (RFC 2177)."""
    client = aioimaplib.IMAP4(server.host, server.imap_port, timeout=WAIT)
    await client.wait_hello_from_server()
    assert (await client.login(login, PASSWORD)).result == "OK"
    assert (await client.select("INBOX")).result == "OK"
    return client


async def exists_reaches(client: aioimaplib.IMAP4, count: int) -> None:
    """Server pushes during IDLE until `* count EXISTS` (RFC 3501 §7.3.1)."""
    wanted = f"{count} EXISTS".encode()
    async with asyncio.timeout(WAIT):
        while True:
            push = await client.wait_server_push(timeout=WAIT)
            assert isinstance(push, list), push
            if any(wanted in (p if isinstance(p, bytes) else p.encode()) for p in push):
                return
