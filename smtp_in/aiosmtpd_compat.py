"""aiosmtpd's private internals, reached here and nowhere else.

The submission server needs a few things aiosmtpd has no public form for: a wrapper
around every handler hook (a session's end waits for a message being stored), its idle
timer (ended with a 421 instead of a silent close), each verb's method (counted against
the session's bounds), the stream reader, a new envelope and the task serving a session
(DATA read in chunks, a shutdown that lets DATA finish), its TLS rule for AUTH (replaced
by ours) and a session without the deprecation warning on `login_data`.
`CompatSMTP` gives each a public name; `check()` runs at start-up and in
tests/unit/test_library_compat.py, so an aiosmtpd release that moved one fails there,
naming the version, before a session is served.
"""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from typing import Any

import aiosmtpd
from aiosmtpd.smtp import SMTP, Envelope, Session

__all__ = ["CompatSMTP", "InternalMissing", "QuietSession", "check"]

Verb = Callable[[str | None], Awaitable[None]]


class InternalMissing(RuntimeError):
    """An internal of aiosmtpd this gateway relies on is not where it was."""


class QuietSession(Session):
    """aiosmtpd's session without the deprecation warning it logs on every AUTH when it
    sets `login_data` (the gateway reads `auth_data`, the principal). Given `peer` (the
    client a trusted proxy's PROXY header named), that is its `peer` whatever aiosmtpd
    sets it to from the socket, so its logs and every hook see the client."""

    def __init__(self, loop: asyncio.AbstractEventLoop, peer: tuple[str, int] | None = None):
        self._pinned = peer
        super().__init__(loop)

    @property
    def peer(self) -> Any:
        return self._peer

    @peer.setter
    def peer(self, value: Any) -> None:
        self._peer = self._pinned if self._pinned is not None else value

    @property
    def login_data(self) -> Any:
        return self._login_data

    @login_data.setter
    def login_data(self, value: Any) -> None:
        self._login_data = value


class CompatSMTP(SMTP):
    """aiosmtpd's `SMTP` with its private hooks given public names: override `run_hook`,
    `idle_timeout` and `new_session`; call the rest."""

    # aiosmtpd → us: the private methods it calls, forwarded to the public ones.
    async def _call_handler_hook(self, command: str, *args: Any) -> Any:
        return await self.run_hook(command, *args)

    def _timeout_cb(self) -> None:
        self.idle_timeout()

    def _create_session(self) -> Session:
        return self.new_session()

    # The defaults: aiosmtpd's own behaviour.
    async def run_hook(self, command: str, *args: Any) -> Any:
        """Run the handler's `handle_<command>` hook."""
        return await SMTP._call_handler_hook(self, command, *args)

    def idle_timeout(self) -> None:
        """The idle timer ran out (aiosmtpd closes without a reply)."""
        SMTP._timeout_cb(self)  # type: ignore[no-untyped-call]

    def new_session(self) -> Session:
        return SMTP._create_session(self)

    # Us → aiosmtpd: its private state.
    def new_envelope(self) -> Envelope:
        return self._create_envelope()

    @property
    def reader(self) -> asyncio.StreamReader:
        return self._reader

    @property
    def handler_task(self) -> asyncio.Task[None] | None:
        """The task serving this session's commands, once connected."""
        return self._handler_coroutine

    def drop_tls_rule(self) -> None:
        """Turn off aiosmtpd's own "AUTH needs TLS" rule (after `__init__` ran it)."""
        self._auth_require_tls = False

    def take_no_auth(self) -> None:
        """No AUTH at all (the MX listener): none required before MAIL, no mechanism
        offered, and EHLO lists none (aiosmtpd lists AUTH unless its TLS rule hides it)."""
        self._auth_required = False
        self._auth_methods = {}
        self._auth_require_tls = True

    def wrap_verbs(self, wrap: Callable[[Verb], Verb]) -> None:
        """Every `smtp_<VERB>` method as the command loop calls it, through `wrap`."""
        self._smtp_methods = {verb: wrap(method) for verb, method in self._smtp_methods.items()}


# (what, parameter names of a method or None for an attribute)
_METHODS: dict[str, list[str]] = {
    "_call_handler_hook": ["self", "command", "args"],
    "_timeout_cb": ["self"],
    "_create_session": ["self"],
    "_create_envelope": ["self"],
}
_INSTANCE_ATTRIBUTES = (
    "_smtp_methods",
    "_auth_require_tls",
    "_auth_required",
    "_auth_methods",
    "_handler_coroutine",
)


def check() -> None:
    """Raise `InternalMissing` (naming aiosmtpd's version) unless every internal used is
    where it was: the methods with their parameters, the attributes a new instance has,
    the stream reader set on connection."""
    missing: list[str] = []
    for name, parameters in _METHODS.items():
        method = getattr(SMTP, name, None)
        if not callable(method):
            missing.append(f"SMTP.{name}")
        elif list(inspect.signature(method).parameters) != parameters:
            missing.append(f"SMTP.{name}({', '.join(parameters)})")
    loop = asyncio.new_event_loop()
    try:
        server = SMTP(handler=object(), loop=loop)
        missing += [f"SMTP().{a}" for a in _INSTANCE_ATTRIBUTES if not hasattr(server, a)]
        if not isinstance(getattr(server, "_smtp_methods", None), dict):
            missing.append("SMTP()._smtp_methods as a dict")
        if not hasattr(Session(loop), "_login_data"):
            missing.append("Session()._login_data")
    finally:
        loop.close()
    connected = getattr(SMTP, "_cb_client_connected", None)
    if connected is None or "self._reader = " not in inspect.getsource(connected):
        missing.append("SMTP._reader (set in _cb_client_connected)")
    if missing:
        raise InternalMissing(
            f"aiosmtpd {aiosmtpd.__version__} lacks internals smtp_in/ relies on: "
            + ", ".join(missing)
            + " (see smtp_in/aiosmtpd_compat.py and docs/architecture.md)"
        )
