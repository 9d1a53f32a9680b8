"""Request dependencies: the store, the attachment content, the settings and who is calling."""

from __future__ import annotations

from typing import Annotated

from fastapi import Depends, Header, Request

from core.errors import AuthenticationFailed, Forbidden
from core.identity.keys import authenticate, require_bound_agent
from core.identity.login_guard import LoginGuard
from core.identity.security import TOKEN_PREFIX
from core.mail.idempotency import MAX_KEY_LENGTH
from core.principal import Principal
from core.secrets.box import SecretBox
from core.settings import Settings
from core.store.blobs import BlobStore
from core.store.engine import Store

SESSION_COOKIE = "agentmail_session"

# The dependencies below are `async def` although they never wait: FastAPI runs a plain
# `def` dependency in a worker thread: a thread hop per dependency per request.


async def get_store(request: Request) -> Store:
    store: Store = request.app.state.store
    return store


async def get_settings(request: Request) -> Settings:
    settings: Settings = request.app.state.settings
    return settings


async def get_secrets(request: Request) -> SecretBox:
    box: SecretBox = request.app.state.secrets
    return box


async def get_blobs(request: Request) -> BlobStore:
    blobs: BlobStore = request.app.state.blobs
    return blobs


async def get_login_guard(request: Request) -> LoginGuard:
    guard: LoginGuard = request.app.state.login_guard
    return guard


async def client_address(request: Request) -> str:
    """The client's address: the peer's, or what a trusted proxy says (uvicorn applies
    `AGENTMAIL_TRUSTED_PROXIES` before the app runs: the one place that decides)."""
    return request.client.host if request.client else ""


StoreDep = Annotated[Store, Depends(get_store)]
SecretsDep = Annotated[SecretBox, Depends(get_secrets)]
SettingsDep = Annotated[Settings, Depends(get_settings)]
BlobsDep = Annotated[BlobStore, Depends(get_blobs)]
LoginGuardDep = Annotated[LoginGuard, Depends(get_login_guard)]
ClientAddress = Annotated[str, Depends(client_address)]


_LOGGED_OUT = "not logged in: the login has ended (logged out, revoked or expired)"


def credentials(request: Request) -> tuple[str, bool]:
    """The caller's token, and whether it is the login cookie's."""
    header = request.headers.get("authorization", "")
    scheme, _, token = header.partition(" ")
    if scheme.lower() == "bearer" and token.strip():
        return token.strip(), False
    cookie = request.cookies.get(SESSION_COOKIE)
    if cookie:
        return cookie, True
    raise AuthenticationFailed(
        "authentication required: 'Authorization: Bearer <key>' or a login cookie"
    )


async def current_principal(request: Request) -> Principal:
    """Anyone authenticated; one-time keys are consumed here, once per request."""
    # `request.state` keeps its attributes in `scope["state"]`; read there, since
    # `getattr(request.state, "principal", None)` raised and caught an AttributeError
    # inside Starlette's `State` on every request.
    state: dict[str, object] | None = request.scope.get("state")
    cached = state.get("principal") if state is not None else None
    if not isinstance(cached, Principal):
        token, from_cookie = credentials(request)
        # The cookie carries a web login and nothing else: a key planted in it (by a
        # script on a sibling subdomain, or pasted) would act with the browser's
        # ambient authority. Refused before the store is asked, so a one-time key is
        # not spent; the kind of the key found is checked as well.
        if from_cookie and not token.startswith(TOKEN_PREFIX["login"]):
            raise AuthenticationFailed(_LOGGED_OUT)
        try:
            cached = await authenticate(request.app.state.store, token)
        except AuthenticationFailed as error:
            if from_cookie:
                # A browser's cookie, not a key: say what the human can do about it.
                raise AuthenticationFailed(_LOGGED_OUT) from error
            raise
        if from_cookie and cached.via != "login":
            raise AuthenticationFailed(_LOGGED_OUT)
        request.state.principal = cached
    return cached


async def signed_in_human(request: Request) -> Principal | None:
    """The human the login cookie signs in, or None (no cookie, or a login that has
    ended): for the one route that asks without requiring anyone (`GET /auth/session`).
    Only the cookie is read: a key in `Authorization` (a one-time one) is not spent."""
    token = request.cookies.get(SESSION_COOKIE)
    if not token or not token.startswith(TOKEN_PREFIX["login"]):
        return None
    try:
        principal = await authenticate(request.app.state.store, token)
    except AuthenticationFailed:
        return None
    return principal if principal.via == "login" else None


# Each kind of caller below is ONE dependency that calls `current_principal` itself
# rather than a chain of `Depends`: FastAPI (0.165) solves every dependency of the
# chain on every request, recomputing its cache key and kind each time, so a chain of
# three cost three solves.


async def any_registered(request: Request) -> Principal:
    """A human, or an agent whose key is bound to a registered agent."""
    principal = await current_principal(request)
    if principal.is_agent:
        require_bound_agent(principal)
    return principal


async def current_agent(request: Request) -> Principal:
    principal = await current_principal(request)
    if not principal.is_agent:
        raise Forbidden("this endpoint is for agent keys; humans use /api/v1/me/...")
    return principal


async def registered_agent(request: Request) -> Principal:
    agent = await current_agent(request)
    require_bound_agent(agent)
    return agent


async def current_human(request: Request) -> Principal:
    principal = await current_principal(request)
    if not principal.is_human:
        raise Forbidden("this endpoint is for humans (login or user key), not agent keys")
    return principal


async def current_admin(request: Request) -> Principal:
    human = await current_human(request)
    if not human.is_admin:
        raise Forbidden("admins only")
    return human


# What a route depends on when it needs a caller (api/openapi_errors.py: 401 and 403).
PRINCIPAL_DEPENDENCIES = frozenset(
    {
        current_principal,
        any_registered,
        current_agent,
        registered_agent,
        current_human,
        current_admin,
    }
)

AnyPrincipal = Annotated[Principal, Depends(any_registered)]
AgentKey = Annotated[Principal, Depends(current_agent)]
Agent = Annotated[Principal, Depends(registered_agent)]
Human = Annotated[Principal, Depends(current_human)]
Admin = Annotated[Principal, Depends(current_admin)]


# draft-ietf-httpapi-idempotency-key-header: the same key again within 24 hours
# answers the first result (core/mail/idempotency.py checks the characters).
IdempotencyKeyHeader = Annotated[
    str | None,
    Header(
        alias="Idempotency-Key",
        min_length=1,
        max_length=MAX_KEY_LENGTH,
        description="1 to 255 printable ASCII characters. The same key from the same caller "
        "on this endpoint within 24 hours answers the first result and stores nothing new; "
        "with a different request it is 422 `idempotency_key_reused`.",
    ),
]
SignedIn = Annotated[Principal | None, Depends(signed_in_human)]
