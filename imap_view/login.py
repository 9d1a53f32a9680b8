"""IMAP login: a human's password or user key, never an agent key.

pymap hands `Login.authenticate` a pysasl credential whose `verify` compares the
secret synchronously. Checking a password (bcrypt) or a key needs the store, so
`_SecretCapture` takes the secret out through that check, and the real check runs
asynchronously here, in the store's threads, before a session is opened.
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

from core.address import parse_email
from core.errors import AuthenticationFailed, InvalidAddress
from core.folders.catalog import ensure_folders
from core.identity.accounts import check_user_password
from core.identity.keys import authenticate
from core.identity.throttle import LoginThrottle
from core.principal import Principal
from core.store.engine import Store
from imap_view.backend import Backend
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
    if "@" in login:
        try:
            return parse_email(login, domain).name
        except InvalidAddress:
            return ""
    return login.strip().lower()


def _is_text(value: str) -> bool:
    try:
        value.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


async def check_human(store: Store, domain: str, login: str, secret: str) -> Principal:
    """The human a login and a password or user key stand for; AuthenticationFailed else."""
    # pysasl keeps bytes that are not UTF-8 as lone surrogates (`LOGIN {2+}` then
    # `\x0c\x8c`): no name or secret is such text, and hashing it raised.
    if not (_is_text(login) and _is_text(secret)):
        raise AuthenticationFailed("the name or the password is not valid UTF-8")
    name = login_name(login, domain)
    try:
        principal = await authenticate(store, secret)
    except AuthenticationFailed:
        return await check_user_password(store, name, secret)
    if not principal.is_human or principal.via == "login":
        raise AuthenticationFailed("IMAP takes a user's password or user key, not this key")
    if principal.name != name:
        raise AuthenticationFailed(f"this key belongs to '{principal.name}', not '{name}'")
    return principal


class Login(LoginInterface):
    def __init__(self, backend: Backend, throttle: LoginThrottle) -> None:
        self.backend = backend
        self._throttle = throttle
        self._tokens = AllTokens(backend.config)

    @property
    def tokens(self) -> TokensInterface:
        return self._tokens

    async def authenticate(self, credentials: ServerCredentials) -> Identity:
        capture = _SecretCapture()
        if not credentials.verify(capture) or capture.secret is None:
            raise InvalidAuth()
        peer = str(socket_info.get().peername_ip or "")
        await self._throttle.wait(peer)
        backend = self.backend
        try:
            principal = await check_human(
                backend.store, backend.domain, credentials.authcid, capture.secret
            )
        except AuthenticationFailed as exc:
            self._throttle.failed(peer)
            raise refusal_for(exc) from None
        return Identity(principal.name, backend)

    async def authorize(self, authenticated: IdentityInterface, authzid: str) -> Identity:
        """Only as oneself: a login (or SASL authzid) names the human signing in."""
        name = login_name(authzid, self.backend.domain)
        if name != authenticated.name or not isinstance(authenticated, Identity):
            raise AuthorizationFailure()
        return authenticated


class Identity(IdentityInterface):
    def __init__(self, name: str, backend: Backend) -> None:
        self._name = name
        self.backend = backend

    @property
    def name(self) -> str:
        return self._name

    @property
    def roles(self) -> frozenset[str]:
        return frozenset()

    @asynccontextmanager
    async def new_session(self) -> AsyncIterator[Session]:
        await ensure_folders(self.backend.store, self._name)
        with self.backend.store.bus.subscribe(self._name) as wakes:
            yield Session(self._name, self.backend, wakes)

    async def new_token(self, *, expiration: datetime | None = None) -> str | None:
        return None  # keys are issued over REST (POST /api/v1/me/keys)

    async def get(self) -> UserMetadata:
        raise NotAllowedError("accounts are managed over REST and the CLI")

    async def set(self, metadata: UserMetadata) -> int | None:
        raise NotAllowedError("accounts are managed over REST and the CLI")

    async def delete(self) -> None:
        raise NotAllowedError("accounts are managed over REST and the CLI")
