"""Web login with a cookie, logout, and who am I."""

from __future__ import annotations

from datetime import timedelta

from fastapi import APIRouter, Request, Response
from pydantic import BaseModel

from api.deps import SESSION_COOKIE, Human, SettingsDep, StoreDep
from core.identity import accounts
from core.views import UserView

router = APIRouter(tags=["auth"])


class LoginBody(BaseModel):
    username: str
    password: str


class UserOut(BaseModel):
    user: UserView


@router.post("/auth/login")
async def login(
    body: LoginBody, response: Response, store: StoreDep, settings: SettingsDep
) -> UserOut:
    lifetime = timedelta(days=settings.session_cookie_days)
    token, user = await accounts.login(store, body.username, body.password, lifetime)
    response.set_cookie(
        SESSION_COOKIE,
        token,
        max_age=int(lifetime.total_seconds()),
        httponly=True,
        samesite="lax",
        secure=settings.cookie_secure,
        path="/",
    )
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
async def whoami(human: Human, store: StoreDep, settings: SettingsDep) -> UserOut:
    user = await accounts.get_user(store, human.name)
    return UserOut(user=accounts.user_view(user, settings.domain))
