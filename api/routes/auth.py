"""Web login with a cookie, logout, and who am I."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel, Field

from api.deps import (
    SESSION_COOKIE,
    ClientAddress,
    Human,
    LoginGuardDep,
    SettingsDep,
    SignedIn,
    StoreDep,
)
from core.identity import accounts
from core.identity.logins import open_login
from core.views import UserView

router = APIRouter(tags=["auth"])


class LoginBody(BaseModel):
    username: str = Field(max_length=256)
    password: str = Field(max_length=accounts.MAX_PASSWORD_LENGTH)


class UserOut(BaseModel):
    user: UserView


class MeLimits(BaseModel):
    """The gateway's limits a client checks before it asks (an upload refused after
    25 MiB of it were sent wastes the person's time)."""

    max_attachment_bytes: int = Field(description="Largest attachment upload (413 beyond).")


class MeOut(UserOut):
    limits: MeLimits


class SessionOut(BaseModel):
    user: UserView | None = Field(
        description="The human signed in, or null: no login (or one that has ended)."
    )


@router.post("/auth/login")
async def login(
    body: LoginBody,
    request: Request,
    response: Response,
    store: StoreDep,
    settings: SettingsDep,
    guard: LoginGuardDep,
    address: ClientAddress,
) -> UserOut:
    """Refused per address (`429` with `Retry-After`), slowed but never refused per account."""
    principal = await guard.check(store, body.username, body.password, address, "web")
    lifetime = timedelta(days=settings.session_cookie_days)
    user_agent = request.headers.get("user-agent", "")
    token = await open_login(store, principal.name, lifetime, user_agent)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(lifetime.total_seconds()),
        httponly=True,
        samesite="strict",
        # Over TLS, or behind a trusted proxy that says so (X-Forwarded-Proto).
        secure=settings.cookie_secure or request.url.scheme == "https",
        path="/",
    )
    user = await accounts.get_user(store, principal.name)
    return UserOut(user=accounts.user_view(user, settings.domain))


@router.post("/auth/logout")
async def logout(
    request: Request, response: Response, store: StoreDep, _human: Human
) -> dict[str, str]:
    token = request.cookies.get(SESSION_COOKIE)
    if token:
        await accounts.logout(store, token)
    response.delete_cookie(SESSION_COOKIE, path="/")
    return {"status": "logged_out"}


@router.get("/me")
async def whoami(human: Human, store: StoreDep, settings: SettingsDep) -> MeOut:
    user = await accounts.get_user(store, human.name)
    limits = MeLimits(max_attachment_bytes=settings.max_attachment_bytes)
    return MeOut(user=accounts.user_view(user, settings.domain), limits=limits)


@router.get("/auth/session")
async def session(caller: SignedIn, store: StoreDep, settings: SettingsDep) -> SessionOut:
    """Who is signed in, if anyone, never refused: a page asks this before it knows
    whether to show the login form, where `GET /me`'s `401` would be an error in the
    browser's console on every visit."""
    if caller is None:
        return SessionOut(user=None)
    user = await accounts.get_user(store, caller.name)
    return SessionOut(user=accounts.user_view(user, settings.domain))
