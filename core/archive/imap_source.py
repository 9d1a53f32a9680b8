"""A remote IMAP mailbox as an import source: `imaps://user@host[:port]/MAILBOX`.

aioimaplib on the gateway's loop, implicit TLS only (RFC 8314 §3.3: port 993 by
default), the certificate checked unless told otherwise. The mailbox is opened
read-only in spirit: messages are fetched with `BODY.PEEK` so their `\\Seen` flag
is left alone (RFC 3501 §6.4.5). Keys are UIDs; the first pass fetches headers
only, the second whole messages in batches.
"""

from __future__ import annotations

import asyncio
import contextlib
import re
import ssl
from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Final
from urllib.parse import unquote, urlsplit

import aioimaplib  # type: ignore[import-untyped]
from pymap.parsing.modutf7 import modutf7_encode

from core.archive.aioimaplib_compat import connecting_task
from core.archive.sources import Source

__all__ = ["ImapError", "ImapSource", "ImapTarget", "parse_imap_url", "response_text"]

IMAPS_PORT: Final = 993
TIMEOUT: Final = 60.0
_CLOSE_TURNS = 3  # loop iterations for a closed TLS transport to close its socket
# How long a closing TLS connection waits for the server's close_notify (RFC 8446
# §6.1) before the socket is cut: asyncio's own wait is 30 s, longer than a command.
_CLOSE_SECONDS: Final = 2.0
_UID: Final = re.compile(rb"UID (\d+)")
_UIDVALIDITY: Final = re.compile(rb"\[UIDVALIDITY (\d+)\]", re.IGNORECASE)


class ImapError(ConnectionError):
    """The server refused a step (login, select, fetch); the text says which."""


@dataclass(frozen=True, slots=True)
class ImapTarget:
    host: str
    port: int
    user: str
    mailbox: str


def parse_imap_url(url: str) -> ImapTarget:
    """`imaps://user@host[:port]/MAILBOX` (RFC 5092 form; the user may be %-escaped)."""
    parts = urlsplit(url)
    if parts.scheme != "imaps":
        raise ValueError(f"{url!r}: only imaps:// (IMAP over TLS) is supported")
    if not parts.hostname or not parts.username:
        raise ValueError(f"{url!r}: expected imaps://user@host[:port]/MAILBOX")
    mailbox = unquote(parts.path.lstrip("/")) or "INBOX"
    return ImapTarget(parts.hostname, parts.port or IMAPS_PORT, unquote(parts.username), mailbox)


def _uidvalidity(lines: Sequence[bytes | bytearray]) -> int:
    for line in lines:
        found = _UIDVALIDITY.search(line)
        if found is not None:
            return int(found.group(1))
    return 0


def _mailbox_name(name: str) -> str:
    """A mailbox name as IMAP wants it: modified UTF-7 (RFC 3501 §5.1.3), quoted (§4.3)."""
    encoded = modutf7_encode(name).decode("ascii")
    return '"' + encoded.replace("\\", "\\\\").replace('"', '\\"') + '"'


def _literals_by_uid(lines: Sequence[bytes | bytearray]) -> dict[str, bytes]:
    """The literal of each FETCH response, by the UID named around it."""
    found: dict[str, bytes] = {}
    pending: bytes | None = None
    uid: bytes | None = None
    for line in lines:
        if isinstance(line, bytearray):
            pending = bytes(line)
            continue
        match = _UID.search(line)
        if match is not None:
            uid = match.group(1)
        if pending is not None and uid is not None:
            found[uid.decode()] = pending
            pending, uid = None, None
        elif pending is None and match is None:
            uid = None
    return found


class ImapSource(Source):
    def __init__(
        self,
        target: ImapTarget,
        password: str,
        *,
        insecure: bool = False,
        cafile: Path | None = None,
    ) -> None:
        self.target = target
        self._password = password
        context = ssl.create_default_context(cafile=str(cafile) if cafile else None)
        if insecure:
            context.check_hostname = False
            context.verify_mode = ssl.CERT_NONE
        self._context = context
        self._client: aioimaplib.IMAP4 | None = None
        self._lost = asyncio.Event()
        self.uidvalidity = 0  # the selected mailbox's (RFC 3501 §2.3.1.1); 0: not sent

    async def _connect(self) -> aioimaplib.IMAP4:
        target = self.target
        lost = self._lost = asyncio.Event()
        # IMAP4 with a context is IMAP4_SSL (which only defaults the context) that
        # also takes the callback telling when the connection is gone.
        client = aioimaplib.IMAP4(
            target.host,
            target.port,
            ssl_context=self._context,
            timeout=TIMEOUT,
            conn_lost_cb=lambda _error: lost.set(),
        )
        try:
            await client.wait_hello_from_server()
            login = await client.login(target.user, self._password)
            if login.result != "OK":
                raise ImapError(
                    f"IMAP login as {target.user} refused: {response_text(login.lines)}"
                )
            selected = await client.select(_mailbox_name(target.mailbox))
            if selected.result != "OK":
                raise ImapError(f"cannot open {target.mailbox}: {response_text(selected.lines)}")
            self.uidvalidity = _uidvalidity(selected.lines)
        except BaseException:
            await _abandon(client, lost)
            raise
        return client

    async def keys(self) -> list[str]:
        self._client = await self._connect()
        found = await self._client.uid_search("ALL")
        if found.result != "OK":
            raise ImapError(f"UID SEARCH failed: {response_text(found.lines)}")
        words = found.lines[0].split() if len(found.lines) > 1 else []
        return [word.decode() for word in words if word.isdigit()]

    async def _fetch(self, keys: Sequence[str], item: str) -> list[bytes]:
        assert self._client is not None, "keys() first"
        if not keys:
            return []
        response = await self._client.uid("fetch", ",".join(keys), f"(UID {item})")
        if response.result != "OK":
            raise ImapError(f"UID FETCH failed: {response_text(response.lines)}")
        by_uid = _literals_by_uid(response.lines)
        missing = [key for key in keys if key not in by_uid]
        if missing:
            raise ImapError(f"the server sent no content for UIDs {', '.join(missing[:10])}")
        return [by_uid[key] for key in keys]

    async def fetch(self, keys: Sequence[str]) -> list[bytes]:
        return await self._fetch(keys, "BODY.PEEK[]")

    async def fetch_headers(self, keys: Sequence[str]) -> list[bytes]:
        return await self._fetch(keys, "BODY.PEEK[HEADER]")

    def label(self, key: str) -> str:
        return f"{self.target.mailbox} UID {key}"

    async def close(self) -> None:
        if self._client is not None:
            client, self._client = self._client, None
            await _abandon(client, self._lost)


async def _abandon(client: aioimaplib.IMAP4, lost: asyncio.Event) -> None:
    """Close a connection, whatever state it reached: LOGOUT when it can, then the
    transport itself (a server that does not hang up, a LOGOUT that timed out) and a
    connection still being made (a greeting that timed out), so no socket is left
    for the garbage collector."""
    connecting = connecting_task(client)
    if connecting is not None:
        connecting.cancel()
        with contextlib.suppress(BaseException):
            await connecting
    elif getattr(client.protocol, "transport", None) is not None:
        with contextlib.suppress(Exception):
            await client.logout()
    transport = getattr(client.protocol, "transport", None)
    if transport is not None:
        # TLS closes by close_notify both ways, so the socket stays open until the
        # server answers (a server slowing a refused login down answers late): wait a
        # little, then cut it, or a command that ends its loop right after leaves the
        # socket to the GC.
        transport.close()
        try:
            async with asyncio.timeout(_CLOSE_SECONDS):
                await lost.wait()
        except TimeoutError:
            transport.abort()
    # A socket is closed by a callback of the loop (after close(), and after a failed
    # TLS handshake, which asyncio aborts itself): let it run, or a command that ends
    # its loop right after (`agentmail import`) leaves the socket to the GC.
    for _ in range(_CLOSE_TURNS):
        await asyncio.sleep(0)


def response_text(lines: Sequence[bytes | bytearray]) -> str:
    return " ".join(bytes(line).decode("utf-8", "replace") for line in lines)[:300]
