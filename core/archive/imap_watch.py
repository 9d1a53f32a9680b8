"""A remote IMAP mailbox watched for new messages: the import source, kept open.

New messages are those past a UID (`UID SEARCH UID n:*`, RFC 3501 §6.4.4: the range
always holds the highest UID, so it is filtered again here). Between rounds the
connection waits in IDLE where the server offers it (RFC 2177: the server tells of a
new message at once; IDLE is renewed before its 29 minutes), else it simply sleeps.
"""

from __future__ import annotations

import asyncio
import contextlib
from typing import Final

import aioimaplib  # type: ignore[import-untyped]

from core.archive.imap_source import TIMEOUT, ImapError, ImapSource, response_text

__all__ = ["WatchedMailbox"]

IDLE_LIMIT: Final = 25 * 60.0  # seconds: under the 29 minutes a server may end IDLE after


class WatchedMailbox(ImapSource):
    async def open(self) -> None:
        """Connect, log in and select, unless connected."""
        if self._client is None:
            self._client = await self._connect()

    def _connected(self) -> aioimaplib.IMAP4:
        if self._client is None:
            raise ImapError("not connected: open() first")
        return self._client

    async def _search(self, *criteria: str) -> set[int]:
        found = await self._connected().uid_search(*criteria, charset=None)
        if found.result != "OK":
            raise ImapError(f"UID SEARCH failed: {response_text(found.lines)}")
        words = found.lines[0].split() if len(found.lines) > 1 else []
        return {int(word) for word in words if word.isdigit()}

    async def uids_after(self, uid: int, max_bytes: int) -> tuple[list[int], list[int]]:
        """The UIDs past `uid`, ascending: those of at most `max_bytes`, and the larger."""
        span = f"{uid + 1}:*"
        every = {found for found in await self._search("UID", span) if found > uid}
        if not every:
            return [], []
        larger = await self._search("UID", span, "LARGER", str(max_bytes))
        return sorted(every - larger), sorted(every & larger)

    async def message(self, uid: int) -> bytes:
        [raw] = await self.fetch([str(uid)])
        return raw

    async def wait_for_news(self, seconds: float) -> None:
        """Until the server tells of a change (IDLE) or `seconds` pass."""
        client = self._connected()
        if not client.has_capability("IDLE"):
            await asyncio.sleep(seconds)
            return
        idle = await client.idle_start(timeout=min(seconds, IDLE_LIMIT))
        try:
            with contextlib.suppress(TimeoutError):
                await client.wait_server_push(timeout=min(seconds, IDLE_LIMIT) + TIMEOUT)
        finally:
            if client.has_pending_idle():
                client.idle_done()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(TIMEOUT):
                    await idle
