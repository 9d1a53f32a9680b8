"""Mail from the internet, as the settings say: the MX listener (off unless
`AGENTMAIL_MX_PORT`) and the reply mailbox (off unless `AGENTMAIL_REPLY_MAILBOX`)."""

from __future__ import annotations

import asyncio
import socket
from collections.abc import Awaitable, Callable

from core.archive import aioimaplib_compat
from core.archive.imap_source import parse_imap_url
from core.secrets.box import SecretBox
from core.settings import Settings
from core.store.engine import Store
from core.tasks import cancel_and_wait
from gateway.protocol_errors import LoggedFactories
from gateway.sockets import listen_for
from smtp_in.mx_handler import MxHandler
from smtp_in.mx_server import start_mx
from smtp_in.reply_mailbox import ReplyMailbox
from smtp_in.session_limits import SessionLimits


async def start_mx_listener(
    settings: Settings, store: Store, box: SecretBox, sock: socket.socket
) -> Callable[[], Awaitable[None]]:
    """Serve the MX listener on `sock` with submission's session bounds (its own count of
    connections per address); returns its `stop`."""
    limits = SessionLimits(
        max_seconds=settings.smtp_max_session_seconds,
        idle_seconds=settings.smtp_idle_timeout_seconds,
        max_commands=settings.smtp_max_commands,
        max_per_address=settings.smtp_max_connections_per_address,
    )
    return await start_mx(
        MxHandler(store, settings.domain, box),
        sock,
        max_bytes=settings.smtp_max_message_bytes,
        limits=limits,
        backlog=settings.listen_backlog,
        shutdown_grace=settings.shutdown_grace_seconds,
        guard_factory=LoggedFactories("MX"),
        listen=listen_for(settings, "mx"),
    )


def start_reply_mailbox(
    settings: Settings, store: Store, box: SecretBox
) -> Callable[[], Awaitable[None]]:
    """Watch the reply mailbox (`AGENTMAIL_REPLY_MAILBOX`) in a task; returns its `stop`.
    A URL that is not `imaps://user@host[:port]/MAILBOX` stops the start here."""
    parse_imap_url(settings.reply_mailbox)
    aioimaplib_compat.check()  # the library's internal the connection's close relies on
    password = settings.reply_mailbox_password
    watcher = ReplyMailbox(
        store,
        settings.domain,
        box,
        settings.reply_mailbox,
        password.get_secret_value() if password is not None else "",
        poll_seconds=settings.reply_mailbox_poll_seconds,
        max_bytes=settings.smtp_max_message_bytes,
        cafile=settings.reply_mailbox_cafile,
    )
    task = asyncio.create_task(watcher.run(), name="reply mailbox")

    async def stop() -> None:
        await cancel_and_wait([task], "reply mailbox")

    return stop
