"""My mailboxes outside the gateway: where permission requests and questions (and, if I
choose, other mail) are also sent, and the only outside senders the MX listener takes
my replies from (docs/external-mail.md, "External addresses").

An address counts once verified: `POST` mails it a code (from `postmaster`, through the
outbound queue), `POST …/verify` with the code proves the mailbox is mine.
"""

from __future__ import annotations

from fastapi import APIRouter
from pydantic import BaseModel, Field

from api.deps import Human, SettingsDep, StoreDep
from core.replies import addresses
from core.replies.codes import verify_address
from core.views import ExternalAddressView

router = APIRouter(tags=["external addresses"])


class NewAddress(BaseModel):
    address: str = Field(
        min_length=3, max_length=254, description="An RFC 5321 mailbox: `me@example.com`."
    )


class Choices(BaseModel):
    requests: bool | None = Field(
        None, description="Send permission requests and questions there (default: yes)."
    )
    other_mail: bool | None = Field(None, description="Send other mail there (default: no).")


class Code(BaseModel):
    code: str = Field(pattern=r"^\s*[0-9]{6}\s*$", max_length=20, description="The 6 digits.")


class AddressList(BaseModel):
    addresses: list[ExternalAddressView]


@router.get("/me/external-addresses")
async def list_external_addresses(human: Human, store: StoreDep) -> AddressList:
    return AddressList(addresses=await addresses.list_addresses(store, human.name))


@router.post("/me/external-addresses", status_code=201)
async def add_external_address(
    body: NewAddress, human: Human, store: StoreDep, settings: SettingsDep
) -> ExternalAddressView:
    return await addresses.add_address(
        store, settings.domain, human.name, body.address, configured=bool(settings.smarthost)
    )


@router.patch("/me/external-addresses/{address_id}")
async def change_external_address(
    address_id: str, body: Choices, human: Human, store: StoreDep
) -> ExternalAddressView:
    return await addresses.set_choices(
        store, human.name, address_id, body.requests, body.other_mail
    )


@router.post("/me/external-addresses/{address_id}/verify")
async def verify_external_address(
    address_id: str, body: Code, human: Human, store: StoreDep
) -> ExternalAddressView:
    return await verify_address(store, human.name, address_id, body.code)


@router.post("/me/external-addresses/{address_id}/code")
async def send_new_code(
    address_id: str, human: Human, store: StoreDep, settings: SettingsDep
) -> ExternalAddressView:
    return await addresses.resend_code(
        store, settings.domain, human.name, address_id, configured=bool(settings.smarthost)
    )


@router.delete("/me/external-addresses/{address_id}")
async def delete_external_address(address_id: str, human: Human, store: StoreDep) -> dict[str, str]:
    await addresses.delete_address(store, human.name, address_id)
    return {"status": "deleted"}
