"""A local smarthost for outbound mail's tests: aiosmtpd on a free loopback port, in the
test's own loop (`loop.create_server`, not aiosmtpd's Controller thread), recording
every message it accepts and answering with the codes a test queues for DATA.

`answers` holds the replies to give, first to last (`"451 4.3.0 try later"`); when it
is empty the message is accepted (`250`). `received` is what was accepted, as bytes.
With `login=(user, password)` it offers AUTH (over plain text: a test on loopback) and
takes only that login.
"""

from __future__ import annotations

import asyncio
from collections import deque
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from email import message_from_bytes

from aiosmtpd.smtp import SMTP, AuthResult, Envelope, LoginPassword
from aiosmtpd.smtp import Session as SmtpSession


@dataclass
class Received:
    mail_from: str
    rcpt_tos: list[str]
    data: bytes

    @property
    def message_id(self) -> str:
        return str(message_from_bytes(self.data)["Message-ID"])


@dataclass
class Smarthost:
    port: int = 0
    answers: deque[str] = field(default_factory=deque)
    received: list[Received] = field(default_factory=list)
    tried: int = 0  # DATA commands seen, accepted or not
    arrived: asyncio.Event = field(default_factory=asyncio.Event)
    slow: float = 0.0  # seconds each message waits before its reply: a slow smarthost
    taking: asyncio.Event = field(default_factory=asyncio.Event)  # set as a DATA comes in
    hold_from: int | None = None  # from this DATA on, replies wait for `release`
    release: asyncio.Event = field(default_factory=asyncio.Event)

    @property
    def address(self) -> str:
        return f"127.0.0.1:{self.port}"

    async def handle_DATA(self, _server: SMTP, _session: SmtpSession, envelope: Envelope) -> str:
        self.tried += 1
        self.taking.set()
        if self.answers:
            return self.answers.popleft()
        data = envelope.original_content or b""
        self.received.append(Received(str(envelope.mail_from), list(envelope.rcpt_tos), data))
        self.arrived.set()
        # Queued, then slow to say so: as an MTA whose client is gone after the end of
        # the data, it delivers the message all the same (RFC 5321 §4.1.1.4: the client
        # that saw no reply sends it again; a duplicate is the price of none lost).
        await asyncio.sleep(self.slow)
        if self.hold_from is not None and self.tried >= self.hold_from:
            await self.release.wait()
        return "250 2.0.0 queued"


def _only(login: tuple[str, str]) -> object:
    def authenticate(
        _server: SMTP, _session: SmtpSession, _envelope: Envelope, _mechanism: str, data: object
    ) -> AuthResult:
        given = (
            (data.login.decode(), data.password.decode())
            if isinstance(data, LoginPassword)
            else None
        )
        return AuthResult(success=given == login, handled=False)  # aiosmtpd replies 535

    return authenticate


@asynccontextmanager
async def smarthost(
    port: int = 0, host: Smarthost | None = None, login: tuple[str, str] | None = None
) -> AsyncIterator[Smarthost]:
    """A smarthost on `port` (0: a free one); `host` keeps recording across restarts."""
    host = host or Smarthost()
    loop = asyncio.get_running_loop()
    auth: dict[str, object] = (
        {"authenticator": _only(login), "auth_require_tls": False} if login else {}
    )
    server = await loop.create_server(
        lambda: SMTP(host, hostname="smarthost.test", decode_data=False, **auth),  # type: ignore[arg-type]
        "127.0.0.1",
        port,
    )
    host.port = server.sockets[0].getsockname()[1]
    try:
        yield host
    finally:
        server.close()
        await server.wait_closed()
