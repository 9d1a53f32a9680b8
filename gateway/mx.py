"""The MX listener started with the gateway's settings (off unless `AGENTMAIL_MX_PORT`)."""

from __future__ import annotations

import socket
from collections.abc import Awaitable, Callable

from core.secrets.box import SecretBox
from core.settings import Settings
from core.store.engine import Store
from gateway.protocol_errors import LoggedFactories
from smtp_in.mx_handler import MxHandler
from smtp_in.mx_server import start_mx
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
    )
