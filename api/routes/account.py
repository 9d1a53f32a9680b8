"""A human's own account: the password, and the web logins (not `/me/sessions`:
those are conversations)."""

from __future__ import annotations

from fastapi import APIRouter, Request
from pydantic import BaseModel, Field

from api.deps import ClientAddress, Human, LoginGuardDep, SettingsDep, StoreDep
from api.mail_settings import Listeners, MailSettings, mail_settings
from core.identity import accounts, logins, passwords
from core.views import LoginView

router = APIRouter(tags=["auth"])

Password = Field(max_length=accounts.MAX_PASSWORD_LENGTH)


class PasswordChange(BaseModel):
    current_password: str = Password
    new_password: str = Field(
        min_length=accounts.MIN_PASSWORD_LENGTH, max_length=accounts.MAX_PASSWORD_LENGTH
    )


class LoginList(BaseModel):
    logins: list[LoginView]


@router.post("/me/password")
async def change_password(
    body: PasswordChange,
    human: Human,
    store: StoreDep,
    guard: LoginGuardDep,
    address: ClientAddress,
) -> dict[str, str]:
    """Every other web login of yours ends; your user keys stay."""
    await passwords.change_password(
        store, guard, human, body.current_password, body.new_password, address
    )
    return {"status": "changed"}


@router.get("/me/mail-settings")
async def get_mail_settings(human: Human, settings: SettingsDep, request: Request) -> MailSettings:
    """What to type into a mail client: the SMTP and IMAP servers, your user name
    (the password is your web password, or a user key) and your address."""
    listeners: Listeners = request.app.state.listeners
    host = request.url.hostname or settings.host
    return mail_settings(settings, listeners, human.name, host)


@router.get("/me/logins")
async def list_logins(human: Human, store: StoreDep) -> LoginList:
    current = human.key_id if human.via == "login" else None
    return LoginList(logins=await logins.list_logins(store, human.name, current))


@router.delete("/me/logins/{login_id}")
async def revoke_login(login_id: str, human: Human, store: StoreDep) -> dict[str, str]:
    await logins.revoke_login(store, human.name, login_id)
    return {"status": "revoked"}
