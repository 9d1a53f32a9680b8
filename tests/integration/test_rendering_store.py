"""Rendering stored mail (core/rendering/stored.py): sent over REST, read from the store."""

from __future__ import annotations

import os

from core.address import Address
from core.rendering.parse import parse_rendered
from core.rendering.stored import render_stored
from core.store.file_blobs import FileBlobs
from tests.support.gateway import Api
from tests.support.http import ok


async def test_a_stored_mail_renders_with_its_attachment_and_session_address(api: Api) -> None:
    gateway = api.gateway
    assert gateway.store is not None
    domain = gateway.settings.domain
    blobs = FileBlobs(gateway.settings.attachments_dir)
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    data = os.urandom(50_000) + "ü 报告".encode()
    upload = ok(
        await jianf.post(
            "/api/v1/me/attachments",
            files={"file": ("报告 final.bin", data, "application/x-thing")},
        )
    )
    first = ok(
        await jianf.post(
            "/api/v1/me/mail/send",
            json={
                "to": "builder@ModelRouter",
                "subject": "Plan — größer",
                "body": "Please **review** the plan.",
                "session_alias": "plan-review",
                "attachment_ids": [upload["attachment_id"]],
            },
        )
    )
    raw = await render_stored(gateway.store, blobs, domain, first["mail_id"])
    parsed = parse_rendered(raw, domain)
    alias = parsed.from_.session if parsed.from_ is not None else None
    assert alias == "plan-review"
    assert parsed.from_ == Address("jianf", "", "plan-review")
    assert parsed.reply_to == parsed.from_
    assert parsed.from_email == f"jianf++plan-review@{domain}"
    assert parsed.to == [Address("builder", "ModelRouter", "plan-review")]
    assert parsed.subject == "Plan — größer"
    assert parsed.body == "Please **review** the plan."
    assert parsed.message_id == f"<{first['mail_id']}@{domain}>"
    assert parsed.mail_id == first["mail_id"]
    assert parsed.session_id == first["session_id"]
    assert parsed.in_reply_to is None and parsed.references == []
    assert not parsed.auto
    assert [(a.filename, a.content_type, a.content) for a in parsed.attachments] == [
        ("报告 final.bin", "application/x-thing", data)
    ]

    # A reply names its parent: a plain Reply to the rendering lands in the conversation.
    reply = ok(
        await builder.post(
            "/api/v1/mail/send",
            json={"to": "jianf@", "body": "Looks good.", "reply_to": first["mail_id"]},
        )
    )
    again = ok(
        await jianf.post(
            "/api/v1/me/mail/send",
            json={"to": "builder@ModelRouter", "body": "Thanks", "reply_to": reply["mail_id"]},
        )
    )
    parsed_reply = parse_rendered(
        await render_stored(gateway.store, blobs, domain, reply["mail_id"]), domain
    )
    assert parsed_reply.from_ == Address("builder", "ModelRouter", "plan-review")
    assert parsed_reply.in_reply_to == parsed.message_id
    assert parsed_reply.references == [parsed.message_id]
    assert parsed_reply.attachments == []
    last = parse_rendered(
        await render_stored(gateway.store, blobs, domain, again["mail_id"]), domain
    )
    assert last.references == [parsed.message_id, parsed_reply.message_id]
    assert last.in_reply_to == parsed_reply.message_id
