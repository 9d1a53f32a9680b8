"""IMAP login: a human's password or user key, never an agent key.

pymap hands `Login.authenticate` a pysasl credential whose `verify` compares the
secret synchronously. Checking a password (bcrypt) or a key needs the store, so
`_SecretCapture` takes the secret out through that check, and the real check runs
asynchronously here, through the login guard every protocol shares (one guess
budget, core/identity/login_guard.py), before a session is opened. The session is
held with the credential it logged in with, and ended (`* BYE`) when that is
revoked or changed (core/identity/signed_in.py).
"""

from __future__ import annotations

from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from datetime import datetime

from pymap.context import socket_info
from pymap.exceptions import AuthorizationFailure, InvalidAuth, NotAllowedError
from pymap.interfaces.login import IdentityInterface, LoginInterface
from pymap.interfaces.token import TokensInterface
from pymap.token import AllTokens
from pymap.user import UserMetadata
from pysasl.creds.server import ServerCredentials

from core.errors import AuthenticationFailed, DomainError
from core.identity.login_guard import LoginGuard
from core.identity.login_guard import login_name as _login_name
from core.identity.signed_in import SignedIn
from core.mailboxes.folders import ensure_folders
from core.principal import Principal
from core.store.engine import Store
from imap_view.backend import Backend
from imap_view.connection import CURRENT_CONNECTION
from imap_view.replies import refusal_for
from imap_view.session import Session

__all__ = ["Identity", "Login", "check_human", "login_name"]


class _SecretCapture:
    """A pysasl identity that accepts any secret and remembers it (see module doc)."""

    def __init__(self) -> None:
        self.secret: str | None = None

    @property
    def authcid(self) -> str:
        return ""

    def compare_authcid(self, authcid: str) -> bool:
        return True

    def compare_secret(self, secret: str) -> bool:
        self.secret = secret
        return True

    def get_clear_secret(self) -> str | None:
        return None


def login_name(login: str, domain: str) -> str:
    """`jianf`, `JianF` and `jianf@<domain>` all name the human `jianf`."""
    return _login_name(login, domain)


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _imap_keys(principal: Principal) -> None:
    """IMAP takes a user key as the password; not an agent key, not a web login's."""
    if not principal.is_human or principal.via == "login":
        raise AuthenticationFailed("IMAP takes a user's password or user key, not this key")


async def check_human(
    store: Store, domain: str, guard: LoginGuard, login: str, secret: str, address: str
) -> Principal:
    """The human a login and a password or user key stand for; AuthenticationFailed else
    (RateLimited, unchecked, from an address that failed too often)."""
    # pysasl keeps bytes that are not UTF-8 as lone surrogates (`LOGIN {2+}` then
    # `\x0c\x8c`): no name or secret is such text, and hashing it raised.
    if not (_is_text(login) and _is_text(secret)):
        raise AuthenticationFailed("the name or the password is not valid UTF-8")
    name = login_name(login, domain)
    return await guard.check(store, name, secret, address, "imap", _imap_keys)


class Login(LoginInterface):
    def __init__(
        self, backend: Backend, guard: LoginGuard, signed_in: SignedIn | None = None
    ) -> None:
        self.backend = backend
        self._guard = guard
        self._signed_in = signed_in
        self._tokens = AllTokens(backend.config)

    @property
    def tokens(self) -> TokensInterface:
        return self._tokens

    async def authenticate(self, credentials: ServerCredentials) -> Identity:
        capture = _SecretCapture()
        if not credentials.verify(capture) or capture.secret is None:
            raise InvalidAuth()
        peer = str(socket_info.get().peername_ip or "")
        backend = self.backend
        since = backend.store.credentials.generation
        try:
            principal = await check_human(
                backend.store,
                backend.domain,
                self._guard,
                credentials.authcid,
                capture.secret,
                peer,
            )
        except DomainError as exc:  # a wrong credential, or an address refused (UNAVAILABLE)
            raise refusal_for(exc) from None
        return Identity(principal.name, backend, self._signed_in, principal, since)

    async def authorize(self, authenticated: IdentityInterface, authzid: str) -> Identity:
        """Only as oneself: a login (or SASL authzid) names the human signing in."""
        name = login_name(authzid, self.backend.domain)
        if name != authenticated.name or not isinstance(authenticated, Identity):
            raise AuthorizationFailure()
        return authenticated


class Identity(IdentityInterface):
    def __init__(
        self,
        name: str,
        backend: Backend,
        signed_in: SignedIn | None = None,
        principal: Principal | None = None,
        since: int = 0,
    ) -> None:
        self._name = name
        self.backend = backend
        self._signed_in = signed_in
        self._principal = principal
        self._since = since  # the credential cache's generation before the login's check

    @property
    def name(self) -> str:
        return self._name

    @property
    def roles(self) -> frozenset[str]:
        return frozenset()

    @asynccontextmanager
    async def new_session(self) -> AsyncIterator[Session]:
        await ensure_folders(self.backend.store, self._name)
        held = None
        connection = CURRENT_CONNECTION.get(None)
        if self._signed_in is not None and self._principal is not None and connection:
            held = self._signed_in.hold(self._principal, "imap", connection.end, self._since)
        try:
            with self.backend.store.bus.subscribe(self._name) as wakes:
                yield Session(self._name, self.backend, wakes)
        finally:
            if held is not None and self._signed_in is not None:
                self._signed_in.release(held)

    async def new_token(self, *, expiration: datetime | None = None) -> str | None:
        return None  # keys are issued over REST (POST /api/v1/me/keys)

    async def get(self) -> UserMetadata:
        raise NotAllowedError("accounts are managed over REST and the CLI")

    async def set(self, metadata: UserMetadata) -> int | None:
        raise NotAllowedError("accounts are managed over REST and the CLI")

    async def delete(self) -> None:
        raise NotAllowedError("accounts are managed over REST and the CLI")
