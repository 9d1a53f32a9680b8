"""A human's mail as it arrives, to wait on without sleeping.

The human's event stream (SSE) is read in the background; every `new_mail` is
kept, and `wait` returns the first one a predicate accepts — already there, or as
soon as it comes. The platform suites wait on a bridge's replies this way.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import AsyncIterator, Callable
from typing import Any

import httpx

from tests.support.http import ok
from tests.support.sse import SseStream, open_stream

MailEvent = dict[str, Any]


class Mailbox:
    def __init__(self, human: httpx.AsyncClient, stream: SseStream) -> None:
        self.human = human
        self.mails: list[MailEvent] = []
        self._stream = stream
        self._arrived = asyncio.Condition()

    async def _pump(self) -> None:
        while True:
            event = await self._stream.events.get()
            if event.event == "new_mail":
                async with self._arrived:
                    self.mails.append(event.json)
                    self._arrived.notify_all()

    async def wait(self, accept: Callable[[MailEvent], bool], timeout: float = 60.0) -> MailEvent:
        async with asyncio.timeout(timeout), self._arrived:
            while True:
                for mail in self.mails:
                    if accept(mail):
                        return mail
                await self._arrived.wait()

    async def reply(self, session_id: str, mail_type: str, timeout: float = 60.0) -> MailEvent:
        """The first mail of this type in this conversation."""
        return await self.wait(
            lambda m: m["session_id"] == session_id and m["mail_type"] == mail_type, timeout
        )

    async def until(
        self, session_id: str, mail_type: str, count: int, timeout: float = 60.0
    ) -> list[MailEvent]:
        """Once this conversation has `count` mails of this type: all of them."""
        async with asyncio.timeout(timeout), self._arrived:
            while len(found := self.of(session_id, mail_type)) < count:
                await self._arrived.wait()
        return found

    def of(self, session_id: str, mail_type: str) -> list[MailEvent]:
        return [
            m for m in self.mails if m["session_id"] == session_id and m["mail_type"] == mail_type
        ]

    async def read(self, mail_id: str) -> dict[str, Any]:
        return ok(await self.human.get(f"/api/v1/me/mail/{mail_id}"))


@contextlib.asynccontextmanager
async def mailbox(human: httpx.AsyncClient) -> AsyncIterator[Mailbox]:
    async with open_stream(human) as stream:
        box = Mailbox(human, stream)
        pump = asyncio.create_task(box._pump())
        try:
            yield box
        finally:
            pump.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await pump
