"""The composition root: one asyncio loop runs HTTP, SMTP and IMAP.

`Gateway.start()` opens the store, migrates it, makes sure an admin exists, binds
the servers (port 0 picks a free port; the real ports are attributes), starts the
background tasks and the loop's watchdog (gateway/loop_watchdog.py); `stop()`
undoes all of it in reverse.
"""

from __future__ import annotations

import asyncio
import logging
import socket
import ssl
from collections.abc import Mapping
from contextlib import AsyncExitStack

from api.app import create_app
from api.mail_settings import Listeners
from core.cluster.login_notices import LoginNotices
from core.identity.accounts import ensure_admin
from core.identity.login_guard import LoginGuard, guard_from_settings
from core.identity.security import set_bcrypt_rounds
from core.identity.signed_in import SignedIn
from core.identity.throttle import ConnectionsPerAddress, LoginThrottle
from core.mailauth.resolver import parse_servers, use_resolver
from core.push.keys import ensure_vapid_key
from core.rendering.backfill import Filler, KeptQueue
from core.secrets.configured import secret_box
from core.secrets.stored import check_secret_key
from core.settings import Settings
from core.store.blob_choice import open_blobs
from core.store.engine import Store, database_url
from core.store.migrate import migrate
from core.store.replicas import ReplicaListener
from core.tasks import STOP_PATIENCE_SECONDS, running_tasks
from gateway.background import BackgroundJobs
from gateway.http_server import serve_http
from gateway.listener_probe import Listener, ListenerCheck
from gateway.loop_watchdog import LoopWatchdog
from gateway.mail_limits import imap_limits, smtp_limits
from gateway.mx import start_mx_listener, start_reply_mailbox
from gateway.process import check_libraries, freeze_start_up
from gateway.protocol_errors import LoggedFactories
from gateway.sockets import bind_tcp, listen_for, mail_listeners
from gateway.tls import server_tls_context
from imap_view.server import start_imap
from smtp_in.handler import SubmissionHandler
from smtp_in.server import start_smtp

log = logging.getLogger("agentmail")


class Gateway:
    def __init__(
        self,
        settings: Settings,
        *,
        background_jobs: bool = True,
        sockets: Mapping[str, socket.socket] | None = None,
        worker: str | None = None,
    ) -> None:
        """`background_jobs=False` (tests that count statements) runs no periodic job.

        A worker of `serve --workers` (gateway/workers.py) is given the listening
        `sockets` its supervisor bound, and `worker` ("2/4", shown by /readyz); its
        supervisor has migrated the database and made the first admin already."""
        self.settings = settings
        self._background_jobs = background_jobs
        self._sockets = dict(sockets or {})
        self.worker = worker
        self.store: Store | None = None
        self.http_port: int = 0
        self.smtp_port: int = 0
        self.smtps_port: int | None = None
        self.imap_port: int = 0
        self.imaps_port: int | None = None
        self.mx_port: int | None = None
        self.tls: ssl.SSLContext | None = None
        self.generated_admin_password: str | None = None
        self._stack = AsyncExitStack()
        self._jobs: BackgroundJobs | None = None

    async def start(self) -> None:
        settings = self.settings
        # First: a bad certificate is reported before anything is opened or bound.
        self.tls = server_tls_context(settings)
        # Then the library internals the adapters rely on: a release that moved one stops
        # the start here, naming the library, its version and the internal.
        check_libraries()
        set_bcrypt_rounds(settings.bcrypt_rounds)
        if not settings.database_url:
            settings.data_dir.mkdir(parents=True, exist_ok=True)
        store = Store(
            database_url(settings.database_url, settings.sqlite_path),
            credential_ttl=settings.credential_cache_seconds,
            connections=settings.database_connections,
        )
        self.store = store
        self._stack.push_async_callback(store.close)
        # Attachment content: files in the data dir or the object store (core/store/blobs.py).
        self.blobs = open_blobs(settings)
        if self.worker is None:  # a worker's supervisor did both (gateway/workers.py)
            await migrate(store)
            self.generated_admin_password = await ensure_admin(
                store, settings.admin_user, settings.admin_password
            )
        if settings.dns_servers:  # what SPF, DKIM and DMARC are read from (core/mailauth)
            use_resolver(parse_servers(settings.dns_servers))
        # Secrets kept in the database, sealed under a key every replica must share.
        self.secrets = secret_box(settings)
        await check_secret_key(store, self.secrets)
        if self.worker is None:
            await ensure_vapid_key(store, self.secrets)  # Web Push: one key pair for all
        # One guess budget for all: guessing over the web, SMTP and IMAP at once is no faster.
        throttle = LoginThrottle()
        guard = guard_from_settings(settings, throttle)
        # The sessions each credential opened, ended when it is revoked or changed.
        signed_in = SignedIn(store)
        self._stack.push_async_callback(signed_in.close)
        if store.dialect == "postgresql":  # and nor is guessing over workers and replicas
            notices = LoginNotices(store.engine, store.token)
            throttle.tell = notices.tell
            self._stack.push_async_callback(notices.close)
            listener = ReplicaListener(store, store.bus, login_failed=throttle.failed_elsewhere)
            await listener.start()
            self._stack.push_async_callback(listener.stop)
        await self._start_http(store, guard, signed_in)
        await self._start_smtp(store, guard, signed_in)
        if settings.mx_port is not None:  # mail from the internet: replies (smtp_in/mx_server.py)
            sock = self._listening("mx", settings.mx_port)
            self._stack.callback(sock.close)
            self.mx_port = sock.getsockname()[1]
            self._stack.push_async_callback(
                await start_mx_listener(settings, store, self.secrets, sock)
            )
        if settings.reply_mailbox:  # replies collected over IMAP (smtp_in/reply_mailbox.py)
            self._stack.push_async_callback(start_reply_mailbox(settings, store, self.secrets))
        # Kept structures: the backfill of mail stored before them, and the write-back
        # of those IMAP makes meanwhile (core/rendering/backfill.py), a background job.
        filler = Filler(store, self.blobs, settings.domain)
        await self._start_imap(store, guard, signed_in, filler.queue)
        # Bound now: what the Account page tells mail clients (api/mail_settings.py).
        self._listeners.smtp_port, self._listeners.smtps_port = self.smtp_port, self.smtps_port
        self._listeners.imap_port, self._listeners.imaps_port = self.imap_port, self.imaps_port
        self._listeners.tls = self.tls is not None
        self._listeners.check = ListenerCheck(self.listeners)
        self._listeners.serving = True
        self._jobs = BackgroundJobs(
            settings, store, self.secrets, self.blobs, enabled=self._background_jobs
        )
        self._jobs.start(self._stack, signed_in, filler)
        # Serving from now on: any stall of this loop over 250 ms is logged and counted
        # (start-up's imports and migrations, before any client, are not).
        watchdog = LoopWatchdog()
        watchdog.start()
        self._stack.callback(watchdog.stop)
        freeze_start_up()

    async def _start_http(self, store: Store, guard: LoginGuard, signed_in: SignedIn) -> None:
        settings = self.settings
        app = create_app(settings, store, guard, signed_in, secrets=self.secrets, blobs=self.blobs)
        app.state.worker = self.worker
        self._listeners: Listeners = app.state.listeners
        sock = self._listening("http", settings.http_port)
        self.http_port = sock.getsockname()[1]
        stop_serving = await serve_http(app, sock, settings)

        async def stop_http() -> None:
            store.bus.close()  # SSE streams end at once, with a retry hint
            await stop_serving()
            sock.close()

        self._stack.push_async_callback(stop_http)

    async def _start_smtp(self, store: Store, guard: LoginGuard, signed_in: SignedIn) -> None:
        """The submission port (STARTTLS when a certificate is configured) and, when
        `smtps_port` is set, the implicit-TLS port; one handler and login guard for both."""
        settings = self.settings
        handler = SubmissionHandler(
            store,
            settings.domain,
            settings.limits,
            blobs=self.blobs,
            max_attachment_bytes=settings.max_attachment_bytes,
            max_recipients=settings.smtp_max_recipients,
        )
        limits = smtp_limits(settings)
        for sock, implicit_tls in self._bind("smtp", settings.smtp_port, settings.smtps_port):
            if implicit_tls:
                self.smtps_port = sock.getsockname()[1]
            else:
                self.smtp_port = sock.getsockname()[1]
            stop_smtp = await start_smtp(
                handler,
                sock,
                max_bytes=settings.smtp_max_message_bytes,
                allow_plaintext_auth=settings.smtp_allow_plaintext_auth,
                guard=guard,
                signed_in=signed_in,
                tls_context=self.tls,
                implicit_tls=implicit_tls,
                limits=limits,
                backlog=settings.listen_backlog,
                shutdown_grace=settings.shutdown_grace_seconds,
                guard_factory=LoggedFactories("SMTPS" if implicit_tls else "SMTP"),
                listen=listen_for(settings, "smtps" if implicit_tls else "smtp"),
            )
            self._stack.push_async_callback(stop_smtp)

    async def _start_imap(
        self, store: Store, guard: LoginGuard, signed_in: SignedIn, kept_writes: KeptQueue
    ) -> None:
        """The IMAP port (STARTTLS when a certificate is configured) and, when
        `imaps_port` is set, the implicit-TLS port, as for SMTP; one limit of connections
        per client address for both."""
        settings = self.settings
        limits = imap_limits(settings)
        connections = ConnectionsPerAddress(limits.max_connections_per_address)
        for sock, implicit_tls in self._bind("imap", settings.imap_port, settings.imaps_port):
            if implicit_tls:
                self.imaps_port = sock.getsockname()[1]
            else:
                self.imap_port = sock.getsockname()[1]
            stop_imap = await start_imap(
                store,
                self.blobs,
                settings.domain,
                sock,
                allow_plaintext_auth=settings.imap_allow_plaintext_auth,
                guard=guard,
                limits=limits,
                connections=connections,
                backlog=settings.listen_backlog,
                tls=self.tls,
                implicit_tls=implicit_tls,
                guard_factory=LoggedFactories("IMAPS" if implicit_tls else "IMAP"),
                listen=listen_for(settings, "imaps" if implicit_tls else "imap"),
                signed_in=signed_in,
                kept_writes=kept_writes if self._background_jobs else None,
            )
            self._stack.push_async_callback(stop_imap)

    def _bind(
        self, protocol: str, port: int, tls_port: int | None
    ) -> list[tuple[socket.socket, bool]]:
        """A protocol's plain port and, when set, its implicit-TLS port (RFC 8314),
        bound now (or inherited) and closed with the gateway; (socket, implicit TLS) each."""
        ports = [(protocol, port, False)]
        if tls_port is not None:
            ports.append((protocol + "s", tls_port, True))
        bound = []
        for name, number, implicit_tls in ports:
            sock = self._listening(name, number)
            self._stack.callback(sock.close)
            bound.append((sock, implicit_tls))
        return bound

    def _listening(self, name: str, port: int) -> socket.socket:
        """The listener `name`: the supervisor's, for a worker; else bound here."""
        if self.worker is not None:
            return self._sockets.pop(name)
        return bind_tcp(self.settings.host, port, self.settings.listen_backlog, name)

    def begin_draining(self) -> None:
        """From now on `/readyz` says 503, so a load balancer sends no new work here."""
        if hasattr(self, "_listeners"):
            self._listeners.serving = False

    async def stop(self) -> None:
        self.begin_draining()
        # Every part's stop is bounded; should one still hang, the log says where.
        slow = self.settings.shutdown_grace_seconds * 2 + STOP_PATIENCE_SECONDS * 2
        report = asyncio.get_running_loop().call_later(slow, _report_slow_stop, slow)
        try:
            if self._jobs is not None:
                await self._jobs.stop()
            await self._stack.aclose()
        finally:
            report.cancel()

    @property
    def listeners(self) -> list[Listener]:
        """The SMTP and IMAP listeners, where a client on this machine reaches them."""
        ports = {"SMTP": self.smtp_port, "IMAP": self.imap_port}
        return mail_listeners(
            self.settings, ports | {"SMTPS": self.smtps_port, "IMAPS": self.imaps_port}
        )

    @property
    def starttls(self) -> bool:
        return self.tls is not None

    @property
    def http_url(self) -> str:
        host = self.settings.host
        shown = f"[{host}]" if ":" in host else host
        return f"http://{shown}:{self.http_port}"


def _report_slow_stop(seconds: float) -> None:
    log.error("stopping has taken over %.0f s; still running:\n%s", seconds, running_tasks())
