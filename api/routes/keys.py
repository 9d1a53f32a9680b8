"""Keys: admins issue agent keys; humans issue their own user keys."""

from __future__ import annotations

from typing import Literal

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import Admin, Human, StoreDep
from core.identity import keys
from core.views import IssuedKey, KeyView

router = APIRouter(tags=["keys"])


class AgentKeyBody(BaseModel):
    label: str = ""
    lifecycle: Literal["permanent", "one_time", "timed"] = "permanent"
    expires_in: str | int | None = Field(None, description="Seconds or text like '1h'.")
    key: str | None = Field(
        None, max_length=512, description="Register a client-generated key instead."
    )
    key_sha256: str | None = Field(
        None,
        max_length=64,
        description="Register a client-generated key by its SHA-256 (hex) only: "
        "the key itself never leaves its client.",
    )


class UserKeyBody(BaseModel):
    label: str = ""
    lifecycle: Literal["permanent", "one_time", "timed"] = "permanent"
    expires_in: str | int | None = None


class KeyList(BaseModel):
    keys: list[KeyView]


@router.post("/admin/agent-keys", status_code=201)
async def issue_agent_key(body: AgentKeyBody, admin: Admin, store: StoreDep) -> IssuedKey:
    return await keys.issue_key(
        store,
        kind="agent",
        lifecycle=body.lifecycle,
        label=body.label,
        expires_in=body.expires_in,
        created_by=admin.name,
        token=body.key,
        token_digest=body.key_sha256,
    )


@router.get("/admin/agent-keys")
async def list_agent_keys(_admin: Admin, store: StoreDep) -> KeyList:
    return KeyList(keys=await keys.list_keys(store, kind="agent"))


@router.delete("/admin/agent-keys/{key_id}")
async def revoke_agent_key(key_id: str, _admin: Admin, store: StoreDep) -> dict[str, str]:
    await keys.revoke_key(store, key_id, kind="agent")
    return {"status": "revoked"}


@router.post("/me/keys", status_code=201)
async def issue_user_key(body: UserKeyBody, human: Human, store: StoreDep) -> IssuedKey:
    return await keys.issue_key(
        store,
        kind="user",
        lifecycle=body.lifecycle,
        owner=human.name,
        label=body.label,
        expires_in=body.expires_in,
        created_by=human.name,
    )


@router.get("/me/keys")
async def list_user_keys(human: Human, store: StoreDep) -> KeyList:
    return KeyList(keys=await keys.list_keys(store, kind="user", owner=human.name))


@router.delete("/me/keys/{key_id}")
async def revoke_user_key(key_id: str, human: Human, store: StoreDep) -> dict[str, str]:
    await keys.revoke_key(store, key_id, kind="user", owner=human.name)
    return {"status": "revoked"}
