"""The MX listener: the SMTP server mail from the internet comes to (RFC 5321 §5: the
host an MX record names), on its own port, separate from submission.

It is the submission server's machinery (smtp_in/server.py: the session bounds, the
size limit, the idle timeout, the 421 at shutdown, RFC 3463 codes) with no AUTH at all
— nobody logs in here; what is accepted is decided at `RCPT TO` (smtp_in/mx_handler.py).
"""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable
from typing import Any

from aiosmtpd.smtp import syntax

from core.proxied.listener import Listen, PeerFactory, listen_directly
from core.proxied.peer import Peer
from smtp_in.mx_handler import MxHandler
from smtp_in.server import Submission, serve
from smtp_in.session_limits import SessionLimits

NO_AUTH = "502 5.5.1 no AUTH here: this is the MX listener; submission has its own port"


class MxSession(Submission):
    def __init__(
        self,
        handler: MxHandler,
        *,
        max_bytes: int,
        sessions: set[Submission],
        limits: SessionLimits | None = None,
        peer: Peer | None = None,
    ) -> None:
        super().__init__(
            handler,
            max_bytes=max_bytes,
            allow_plaintext_auth=False,
            sessions=sessions,
            guard=None,
            limits=limits,
            peer=peer,
        )
        self.take_no_auth()

    @syntax("AUTH <mechanism>")
    async def smtp_AUTH(self, arg: str) -> None:
        await self.push(NO_AUTH)


async def start_mx(
    handler: MxHandler,
    sock: socket.socket,
    *,
    max_bytes: int,
    limits: SessionLimits | None = None,
    backlog: int = 2048,
    shutdown_grace: float = 20.0,
    guard_factory: Callable[[PeerFactory], PeerFactory] | None = None,
    listen: Listen = listen_directly,
) -> Callable[[], Awaitable[None]]:
    """Serve the MX listener on `sock` (bound, listening); returns `stop`. Behind a
    trusted proxy (`listen`, core/proxied/) SPF judges the client its header names."""
    sessions: set[Submission] = set()

    def session(peer: Peer | None) -> Any:
        return MxSession(handler, max_bytes=max_bytes, sessions=sessions, limits=limits, peer=peer)

    factory: PeerFactory = session if guard_factory is None else guard_factory(session)
    return await serve(factory, sessions, sock, None, backlog, shutdown_grace, listen)
