"""Admin: users, agents' default budgets, and who may send mail outside."""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import Admin, SettingsDep, StoreDep
from core.address import MAX_NAME_LENGTH
from core.identity import accounts, agents, passwords
from core.outbound.allowed import set_agent_outbound, set_user_outbound
from core.views import AgentView, BudgetInput, UserView

router = APIRouter(tags=["admin"])


class NewUser(BaseModel):
    name: str = Field(max_length=MAX_NAME_LENGTH)
    password: str = Field(
        min_length=accounts.MIN_PASSWORD_LENGTH, max_length=accounts.MAX_PASSWORD_LENGTH
    )
    is_admin: bool = False


class PasswordReset(BaseModel):
    new_password: str = Field(
        min_length=accounts.MIN_PASSWORD_LENGTH, max_length=accounts.MAX_PASSWORD_LENGTH
    )


class UserChange(BaseModel):
    is_admin: bool | None = None
    outbound_mail: bool | None = Field(
        None, description="May send mail outside the gateway (mailto: recipients)."
    )


class UserList(BaseModel):
    users: list[UserView]


class AgentSettings(BaseModel):
    default_budget: BudgetInput | None = None
    outbound_mail: bool | None = Field(
        None, description="May send mail outside the gateway (mailto: recipients)."
    )


@router.post("/admin/users", status_code=201)
async def create_user(
    body: NewUser, _admin: Admin, store: StoreDep, settings: SettingsDep
) -> UserView:
    user = await accounts.create_user(store, body.name, body.password, is_admin=body.is_admin)
    return accounts.user_view(user, settings.domain)


@router.get("/admin/users")
async def list_users(_admin: Admin, store: StoreDep, settings: SettingsDep) -> UserList:
    users = await accounts.list_users(store)
    return UserList(users=[accounts.user_view(user, settings.domain) for user in users])


@router.post("/admin/users/{name}/password")
async def reset_password(
    name: str, body: PasswordReset, admin: Admin, store: StoreDep
) -> dict[str, str]:
    """Set another user's password: all their web logins end (an admin's own, but this one)."""
    keep = admin.key_id if admin.via == "login" and name.strip().lower() == admin.name else None
    await passwords.set_password(store, name, body.new_password, keep=keep)
    return {"status": "changed"}


@router.patch("/admin/users/{name}")
async def change_user(
    name: str, body: UserChange, _admin: Admin, store: StoreDep, settings: SettingsDep
) -> UserView:
    """Grant or withdraw the admin flag (the last admin keeps it, `403`) and outbound mail."""
    name = name.strip().lower()
    user = None
    if body.is_admin is not None:
        user = await passwords.set_admin(store, name, body.is_admin)
    if body.outbound_mail is not None:
        user = await set_user_outbound(store, name, body.outbound_mail)
    if user is None:
        user = await accounts.get_user(store, name)
    return accounts.user_view(user, settings.domain)


@router.patch("/admin/agents/{name}")
async def configure_agent(
    name: str, body: AgentSettings, _admin: Admin, store: StoreDep, settings: SettingsDep
) -> AgentView:
    """An agent's default budget and whether it may send mail outside."""
    name = name.strip().lower()
    agent = None
    if body.default_budget is not None:
        budget = None if body.default_budget == "unlimited" else body.default_budget
        agent = await agents.set_default_budget(store, name, budget)
    if body.outbound_mail is not None or agent is None:
        agent = await set_agent_outbound(store, name, body.outbound_mail)
    return agents.agent_view(agent, settings.domain)
