"""The store operations of external addresses and replies from outside (core/replies),
run the same way on SQLite and PostgreSQL: an address added (its code's mail queued),
a code sent again, a wrong code counted, the right one verifying, choices changed, an
address deleted; a permission request copied to the verified address with its reply
token; a reply with the proof deciding it, a replay and a reply from another address
deciding nothing (each marked, the notice written); replies collected from a mailbox,
each UID taken once."""

from __future__ import annotations

import functools

import pytest
from sqlalchemy import select

from core.errors import InvalidRequest
from core.mail.send import Permission
from core.mailauth.verdict import DkimSignature, Verdict
from core.replies.addresses import add_address, delete_address, resend_code, set_choices
from core.replies.codes import verify_address
from core.replies.collected import claim_uid, read_cursor, skip_uid
from core.replies.inbound import OutsideMail, Stored, store_collected_mail, store_outside_mail
from core.replies.recipients import Accepted
from core.secrets.box import SecretBox
from core.secrets.reply_token import ensure_reply_key
from core.settings import Limits
from core.store.engine import Store
from core.store.models import ReplyToken
from core.store.raw_messages import Original
from tests.contract.scenario import BUILDER, D, assert_same_rows, send
from tests.support.two_stores import Stores

BOX = SecretBox(b"the contract suite's secret key, 32+ characters")
PASS = Verdict("pass", "ana@out.test", (DkimSignature("out.test", "s", "pass"),), "pass",
               "out.test", "reject")  # fmt: skip


def _reply(sender: str, text: str) -> OutsideMail:
    raw = f"From: {sender}\r\nSubject: Re: deploy\r\n\r\n{text}\r\n".encode()
    return OutsideMail([sender], "Re: deploy", text, None, Original.of(raw))


async def addresses_and_replies(store: Store) -> None:
    await ensure_reply_key(store, BOX)
    added = await add_address(store, D, "ana", "ana@out.test", configured=True,
                              make_code=lambda: "123456")  # fmt: skip
    spare = await add_address(store, D, "ana", "old@out.test", configured=True,
                              make_code=lambda: "111111")  # fmt: skip
    await resend_code(store, D, "ana", spare.address_id, configured=True,
                      make_code=lambda: "222222")  # fmt: skip
    with pytest.raises(InvalidRequest):
        await verify_address(store, "ana", added.address_id, "654321")
    await verify_address(store, "ana", added.address_id, "123456")
    await set_choices(store, "ana", added.address_id, None, True)
    await delete_address(store, "ana", spare.address_id)

    request = await send(store, BUILDER, "ana@", "deploy?",
                         permission=Permission(["approve", "reject"]),
                         mail_type="permission_request",
                         limits=Limits(outbound=True))  # fmt: skip
    token = await store.read(
        lambda s: s.scalar(select(ReplyToken).where(ReplyToken.mail_id == request))
    )
    assert token is not None
    accepted = Accepted("ana", token.id, request, "ana@out.test")
    other = await store_outside_mail(store, D, accepted, _reply("eve@out.test", "1"), PASS, "mx")
    assert not other.decided
    decided = await store_outside_mail(store, D, accepted, _reply("ana@out.test", "1"), PASS, "mx")
    assert decided.decided
    again = await store_outside_mail(store, D, accepted, _reply("ana@out.test", "1"), PASS, "mx")
    assert not again.decided and again.reason == "this reply address has already decided once"
    own = Accepted("ana", None, None, "ana@out.test")  # to her own address, from hers
    kept = await store_outside_mail(store, D, own, _reply("ana@out.test", "a note"), PASS, "mx")
    assert (
        not kept.decided and kept.reason == "mail to your own address from outside decides nothing"
    )
    await collected_replies(store, accepted)


async def collected_replies(store: Store, accepted: Accepted) -> None:
    """Replies collected from a mailbox: one taken, a copy of it and a UID taken before
    refused, one passed over; the cursor's row the same on both."""
    mailbox = "imaps://replies@mail.out.test/INBOX"
    raw = Original.of(b"From: ana@out.test\r\n\r\nthanks\r\n")
    note = OutsideMail(["ana@out.test"], "Re: deploy", "thanks", "<n1@out.test>", raw)

    async def collect(uid: int, message_id: str | None) -> Stored | None:
        claim = functools.partial(claim_uid, mailbox=mailbox, uidvalidity=7, uid=uid,
                                  message_id=message_id)  # fmt: skip
        return await store_collected_mail(store, D, accepted, note, PASS, claim)

    taken = await collect(3, "<n1@out.test>")
    assert taken is not None and not taken.decided
    assert await collect(4, "<n1@out.test>") is None  # a copy: the same Message-ID
    assert await collect(2, None) is None  # a UID the cursor passed
    await skip_uid(store, mailbox, 7, 9)
    cursor = await store.read(lambda s: read_cursor(s, mailbox, 7))
    assert cursor is not None and cursor.uid == 9


async def test_both_backends_leave_the_same_rows(stores: Stores) -> None:
    await assert_same_rows(stores, addresses_and_replies)
