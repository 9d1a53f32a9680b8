"""The SMTP submission server, served on the gateway's own loop.

aiosmtpd's thread-based `Controller` would run a second loop (and cannot bind
port 0); the gateway instead calls `loop.create_server(...)` with a socket it
bound itself, as it does for HTTP. With a TLS context, the submission port offers
STARTTLS (RFC 3207) and an optional second port speaks TLS from the first byte
(RFC 8314 "implicit TLS", the `smtps` of mail clients). A listener may take its
clients' addresses from a trusted proxy's PROXY header (core/proxied/).
"""

from __future__ import annotations

import asyncio
import functools
import socket
import ssl
from collections.abc import Awaitable, Callable
from typing import Any, AnyStr

from aiosmtpd.smtp import SMTP, AuthResult, LoginPassword, Session, syntax

from core import metrics
from core.errors import DomainError, RateLimited
from core.identity.keys import require_bound_agent
from core.identity.login_guard import LoginGuard, login_name
from core.identity.signed_in import Held, SignedIn
from core.principal import Principal
from core.proxied.listener import Listen, PeerFactory, listen_directly
from core.proxied.peer import Peer, socket_peer
from core.tasks import cancel_and_wait
from smtp_in.aiosmtpd_compat import CompatSMTP, QuietSession
from smtp_in.data_reader import receive_data
from smtp_in.handler import SubmissionHandler
from smtp_in.mx_handler import MxHandler
from smtp_in.protocol_replies import with_code
from smtp_in.session_limits import (
    IDLE_OVER,
    SESSION_OVER,
    TOO_MANY_COMMANDS,
    TOO_MANY_CONNECTIONS,
    SessionLimits,
)

TOO_BIG = "552 5.3.4 message too big: at most {limit} bytes"
# RFC 5321 §3.8: a server that must shut down answers 421 and closes; 4.3.2 "system not
# accepting network messages" (RFC 3463). A client retries later, elsewhere or here.
SHUTTING_DOWN = "421 4.3.2 the gateway is shutting down: try again in a moment"
# The key or password the session logged in with was revoked or changed (RFC 3463
# 4.7.0, security or policy status): the client logs in again, and is refused if it was.
CREDENTIAL_ENDED = "421 4.7.0 the key or password of this session was revoked or changed"


def _capture(server: SMTP, session: Any, envelope: Any, mechanism: str, data: Any) -> AuthResult:
    """Hands the decoded credentials back to `Submission._verify` (aiosmtpd's
    authenticator is synchronous; checking a password or a key needs the store)."""
    return AuthResult(success=True, handled=False, auth_data=data)


def _smtp_keys(principal: Principal) -> None:
    """SMTP takes a user key, or the key of a registered agent, as the password."""
    if principal.is_agent:
        require_bound_agent(principal)


def _say_and_close(transport: asyncio.BaseTransport, reply: str) -> None:
    """Send a last reply outside the command loop, then close (the reply is flushed first)."""
    if isinstance(transport, asyncio.WriteTransport):
        transport.write(reply.encode() + b"\r\n")
    transport.close()


class Submission(CompatSMTP):
    """aiosmtpd's SMTP with AUTH checked against the store and RFC 3463 codes on every reply."""

    def __init__(
        self,
        handler: SubmissionHandler | MxHandler,
        *,
        max_bytes: int,
        allow_plaintext_auth: bool,
        sessions: set[Submission],
        guard: LoginGuard | None,
        signed_in: SignedIn | None = None,
        tls_context: ssl.SSLContext | None = None,
        implicit_tls: bool = False,
        limits: SessionLimits | None = None,
        peer: Peer | None = None,
    ) -> None:
        """`guard` None: no AUTH is taken (the MX listener). `tls_context` offers
        STARTTLS; `implicit_tls` says the transport is TLS already (then STARTTLS is not
        offered again). `peer`: the client a trusted proxy named (None: the socket's)."""
        limits = limits or SessionLimits()
        super().__init__(
            handler,
            data_size_limit=max_bytes,
            timeout=limits.idle_seconds,
            auth_required=True,
            auth_require_tls=True,
            authenticator=_capture,
            hostname=handler.domain,
            ident="AgentMail",
            tls_context=None if implicit_tls else tls_context,
        )
        # aiosmtpd's TLS rule knows no loopback and no implicit TLS, and warns on every
        # connection when it is off; `_verify` applies ours instead ("TLS, loopback or
        # explicitly allowed", RFC 4954 §4), so aiosmtpd's is turned off after it ran.
        self.drop_tls_rule()
        self._greeted = False
        self._in_ehlo = False
        self._submission = handler
        self._allow_plaintext_auth = allow_plaintext_auth
        self._sessions = sessions
        self._guard = guard
        self._signed_in = signed_in
        self._held: Held | None = None  # the credential it logged in with, once it has
        self._implicit_tls = implicit_tls
        self._limits = limits
        self._peer = peer
        self._address: str | None = None  # counted in `_limits.open` while connected
        self._refused = False
        self._deadline: asyncio.TimerHandle | None = None
        self._commands = 0
        self._in_hook = 0
        self._over: str | None = None  # the 421 to end with once the hook running is done
        self._in_data = False  # receiving or storing a message: a shutdown lets it finish
        self.wrap_verbs(self._bounded)
        sessions.add(self)

    def connection_made(self, transport: asyncio.BaseTransport) -> None:
        if self._address is None and not self._refused:  # not again after STARTTLS
            if self._peer is None:
                self._peer = socket_peer(transport.get_extra_info("peername"))
            address = self._peer.host
            if not self._limits.admit(address):
                self._refused = True
                count = self._limits.max_per_address
                _say_and_close(transport, TOO_MANY_CONNECTIONS.format(count=count))
                return
            self._address = address
            metrics.CONNECTIONS.labels("smtp").inc()
            metrics.CONNECTIONS_OPEN.labels("smtp").inc()
            self._deadline = asyncio.get_running_loop().call_later(
                self._limits.max_seconds, self._session_over
            )
        super().connection_made(transport)
        if self._implicit_tls and self.session is not None:
            # aiosmtpd records TLS only when it ran STARTTLS itself; say it here too,
            # so AUTH and eof handling know the channel is encrypted.
            self.session.ssl = {"ssl_object": transport.get_extra_info("ssl_object")}

    def connection_lost(self, exc: Exception | None) -> None:
        self._sessions.discard(self)
        if self._held is not None and self._signed_in is not None:
            self._signed_in.release(self._held)
            self._held = None
        if self._refused:
            return  # refused at connection_made: aiosmtpd never started
        if self._deadline is not None:
            self._deadline.cancel()
        if self._address is not None:
            self._limits.release(self._address)
            metrics.CONNECTIONS_OPEN.labels("smtp").dec()
            self._address = None
        super().connection_lost(exc)

    def _bounded(self, method: Callable[[str | None], Awaitable[None]]) -> Any:
        """`method` (one verb's) counted against `max_commands`, and the session ended
        after it when its time ran out while it ran."""

        @functools.wraps(method)
        async def run(arg: str | None) -> None:
            self._commands += 1
            if self._commands > self._limits.max_commands:
                await self._end(TOO_MANY_COMMANDS.format(count=self._limits.max_commands))
                return
            await method(arg)
            if self._over is not None:
                await self._end(self._over)

        return run

    async def run_hook(self, command: str, *args: Any) -> Any:
        # A hook may be storing a message: the session's end waits for its reply, so
        # what was stored is acknowledged (RFC 5321 §4.1.1.4) and not sent twice.
        self._in_hook += 1
        try:
            return await super().run_hook(command, *args)
        finally:
            self._in_hook -= 1

    def _session_over(self) -> None:
        self._over = SESSION_OVER.format(seconds=self._limits.max_seconds)
        if self._in_hook == 0 and self.transport is not None:
            # Between commands or in the middle of one (a trickling DATA): end now.
            _say_and_close(self.transport, self._over)

    def idle_timeout(self) -> None:
        """aiosmtpd's idle timer (its own closes without a word), ended
        with a 421 as RFC 5321 §3.8 lets a server do. A message being stored (the
        timer runs on between lines) is answered first, as at the session's end."""
        self._over = IDLE_OVER.format(host=self.hostname)
        if self._in_hook == 0 and self.transport is not None and not self.transport.is_closing():
            _say_and_close(self.transport, self._over)

    def credential_ended(self) -> None:
        """The key or password of this session no longer holds (core/identity/signed_in.py):
        421 and close now, between commands or in the middle of receiving a message (which
        is then not stored); a message being stored is answered first, as at a shutdown."""
        self._over = CREDENTIAL_ENDED
        transport = self.transport
        if self._in_hook == 0 and transport is not None and not transport.is_closing():
            _say_and_close(transport, self._over)

    def shut_down(self) -> None:
        """SIGTERM: end with 421, but a message being received or stored is finished and
        answered first (its 250 means committed), so no client resends a stored mail and
        none loses one it was sending."""
        self._over = SHUTTING_DOWN
        transport = self.transport
        if self._in_hook == 0 and not self._in_data and transport and not transport.is_closing():
            _say_and_close(transport, self._over)

    @syntax("DATA")
    async def smtp_DATA(self, arg: str) -> None:
        self._in_data = True
        try:
            await receive_data(self, arg)
        finally:
            self._in_data = False

    async def _end(self, reply: str) -> None:
        await self.push(reply)
        if self.transport is not None:
            self.transport.close()

    def new_session(self) -> Session:
        peer = self._peer  # pinned when a proxy named it (else aiosmtpd's own, as ever)
        return QuietSession(self.loop, peer.address if peer is not None and peer.proxy else None)

    @syntax("EHLO hostname")
    async def smtp_EHLO(self, hostname: str) -> None:
        self._in_ehlo = True
        try:
            await super().smtp_EHLO(hostname)
        finally:
            self._in_ehlo = False

    @syntax("HELO hostname")
    async def smtp_HELO(self, hostname: str) -> None:
        self._in_ehlo = True
        try:
            await super().smtp_HELO(hostname)
        finally:
            self._in_ehlo = False

    async def push(self, status: AnyStr) -> None:
        text = status.decode() if isinstance(status, bytes) else status
        greeting, self._greeted = not self._greeted, True
        if (greeting and text.startswith("220")) or (self._in_ehlo and text.startswith("250")):
            # RFC 2034 §3: the greeting and the EHLO/HELO lines carry no enhanced code.
            await super().push(status)
        elif text.startswith("552 Error"):
            # aiosmtpd's oversize refusal (RFC 3463 X.3.4: message too big for system).
            await super().push(TOO_BIG.format(limit=self.data_size_limit))
        else:
            reply = with_code(text)
            if reply[:1] in ("4", "5"):
                # The reason is the reply code and enhanced status (RFC 3463): "550 5.7.1".
                metrics.REFUSALS.labels("smtp", " ".join(reply.split(" ", 2)[:2])).inc()
            await super().push(reply)

    async def auth_PLAIN(self, _: Any, args: list[str]) -> AuthResult:
        return await self._verify(await super().auth_PLAIN(_, args))

    async def auth_LOGIN(self, _: Any, args: list[str]) -> AuthResult:
        return await self._verify(await super().auth_LOGIN(_, args))

    async def _verify(self, captured: AuthResult) -> AuthResult:
        if not captured.success or not isinstance(captured.auth_data, LoginPassword):
            return captured
        if self._guard is None:
            return AuthResult(success=False, handled=False, message="502 5.5.1 no AUTH here")
        assert self.session is not None
        encrypted = self.session.ssl is not None
        loopback = self._peer is not None and self._peer.loopback
        if not (self._allow_plaintext_auth or encrypted or loopback):
            # RFC 4954 §4: a password in the clear off this host needs TLS first.
            return AuthResult(
                success=False,
                handled=False,
                message="538 5.7.11 encryption required: plaintext AUTH only on loopback",
            )
        login = captured.auth_data.login.decode("utf-8", "replace")
        secret = captured.auth_data.password.decode("utf-8", "replace")
        peer = self._peer.host if self._peer else ""
        store = self._submission.store
        since = store.credentials.generation
        name = login_name(login, self._submission.domain)
        try:
            principal = await self._guard.check(store, name, secret, peer, "smtp", _smtp_keys)
        except RateLimited as exc:
            # RFC 4954 §6: 454 4.7.0, a temporary authentication failure (Postfix's AUTH
            # rate limit says 450 4.7.1): the client tries later, without asking the user
            # for another password. Nothing was checked.
            return AuthResult(success=False, handled=False, message=f"454 4.7.0 {exc.message}")
        except DomainError as exc:
            return AuthResult(
                success=False, handled=False, message=f"535 5.7.8 {' '.join(exc.message.split())}"
            )
        if self._signed_in is not None and self.transport is not None:
            self._held = self._signed_in.hold(principal, "smtp", self.credential_ended, since)
        return AuthResult(success=True, auth_data=principal)


async def start_smtp(
    handler: SubmissionHandler,
    sock: socket.socket,
    *,
    max_bytes: int,
    allow_plaintext_auth: bool,
    guard: LoginGuard,
    signed_in: SignedIn | None = None,
    tls_context: ssl.SSLContext | None = None,
    implicit_tls: bool = False,
    limits: SessionLimits | None = None,
    backlog: int = 2048,
    shutdown_grace: float = 20.0,
    guard_factory: Callable[[PeerFactory], PeerFactory] | None = None,
    listen: Listen = listen_directly,
) -> Callable[[], Awaitable[None]]:
    """Serve SMTP on `sock` (bound and listening) on the running loop; returns `stop`.

    With `implicit_tls` every connection starts with the TLS handshake (`tls_context`
    is then required); otherwise `tls_context`, when given, is offered by STARTTLS.
    `backlog` is passed on: asyncio listens again with its own default (100) otherwise.
    `guard_factory` wraps the protocol factory (the gateway logs what asyncio would
    drop silently: an error while a connection's protocol is built). `listen` accepts
    the connections (core/proxied/listener.py: directly, or behind a PROXY header).
    `stop` closes the listener, lets messages in DATA finish for up to `shutdown_grace`
    seconds, says 421 to every session and then cuts what is left.
    """
    if implicit_tls and tls_context is None:
        raise ValueError("implicit TLS needs a TLS context")
    sessions: set[Submission] = set()

    def session(peer: Peer | None) -> Submission:
        return Submission(
            handler,
            max_bytes=max_bytes,
            allow_plaintext_auth=allow_plaintext_auth,
            sessions=sessions,
            guard=guard,
            signed_in=signed_in,
            tls_context=tls_context,
            implicit_tls=implicit_tls,
            limits=limits,
            peer=peer,
        )

    factory: PeerFactory = session if guard_factory is None else guard_factory(session)
    ssl_context = tls_context if implicit_tls else None
    return await serve(factory, sessions, sock, ssl_context, backlog, shutdown_grace, listen)


async def serve(
    factory: PeerFactory,
    sessions: set[Submission],
    sock: socket.socket,
    ssl_context: ssl.SSLContext | None,
    backlog: int,
    shutdown_grace: float,
    listen: Listen = listen_directly,
) -> Callable[[], Awaitable[None]]:
    """Serve `factory`'s sessions on `sock`; returns `stop` (the end `start_smtp` says)."""
    server = await listen(factory, sock, ssl_context, backlog)

    async def stop() -> None:
        server.close()
        for protocol in list(sessions):
            protocol.shut_down()
        running = [s.handler_task for s in sessions if s.handler_task is not None]
        if running:
            await asyncio.wait(running, timeout=shutdown_grace)
        # Sessions still open are cut (Server.close_clients is Python 3.13+); a mail
        # mid-DATA was not acknowledged, so nothing of it is stored.
        tasks = [s.handler_task for s in sessions if s.handler_task is not None]
        for protocol in list(sessions):
            if protocol.transport is not None:
                protocol.transport.close()
        await cancel_and_wait(tasks, "SMTP sessions")
        await server.wait_closed()

    return stop
