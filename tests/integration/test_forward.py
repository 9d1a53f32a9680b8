"""Forwarding: the quote, the carried attachments, the parent link, the conversation, refusals."""

from __future__ import annotations

from datetime import datetime
from email.utils import format_datetime
from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.http import AGENT_MAIL, HUMAN_MAIL, HUMAN_SEND, ok, refused


def rfc5322(stamp: str) -> str:
    """The API's RFC 3339 time as a mail's Date header writes it."""
    return format_datetime(datetime.fromisoformat(stamp))


HUMAN_FILES = "/api/v1/me/attachments"
AGENT_FILES = "/api/v1/attachments"


async def upload(client: httpx.AsyncClient, url: str, name: str, data: bytes) -> str:
    attachment_id: str = ok(await client.post(url, files={"file": (name, data)}))["attachment_id"]
    return attachment_id


async def send(client: httpx.AsyncClient, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", f"to {to}")
    body.setdefault("body", "hello")
    return ok(await client.post(HUMAN_SEND, json={"to": to, **body}))


async def forward(
    client: httpx.AsyncClient, mails: str, mail_id: str, **body: Any
) -> dict[str, Any]:
    return ok(await client.post(f"{mails}/{mail_id}/forward", json=body))


async def test_forward_quotes_the_original_and_carries_its_attachments(api: Api) -> None:
    jianf = await api.human("jianf")
    lin = await api.human("lin")
    builder = await api.agent("builder")
    report = b"%PDF-1.7 " + bytes(range(256)) * 100
    attachment = await upload(jianf, HUMAN_FILES, "report.pdf", report)
    original = await send(
        jianf,
        "builder@ModelRouter",
        subject="Fix the leak",
        body="line one\n\nline three",
        session_alias="fix-leak",
        attachment_ids=[attachment],
    )
    seen = ok(await builder.get(f"{AGENT_MAIL}/{original['mail_id']}"))

    note = "FYI, see below."
    sent = await forward(builder, AGENT_MAIL, original["mail_id"], to="lin@", body=note)
    inbox = ok(await lin.get(f"{HUMAN_MAIL}/inbox"))["mails"]
    assert [m["mail_id"] for m in inbox] == [sent["mail_id"]]
    mail = ok(await lin.get(f"{HUMAN_MAIL}/{sent['mail_id']}"))
    assert mail["mail_type"] == "forward"
    assert mail["subject"] == "Fwd: Fix the leak"
    assert mail["parent_mail_id"] == original["mail_id"]
    # A new default conversation of builder and lin, named from the forward's subject.
    assert mail["from"] == "builder@ModelRouter.fwd-fix-the-leak"
    assert mail["session_id"] not in (original["session_id"], None)
    assert mail["body"] == (
        "FYI, see below.\n"
        "\n"
        "> **Forwarded message**\n"
        ">\n"
        "> - **From:** jianf@.fix-leak\n"
        "> - **To:** builder@ModelRouter.fix-leak\n"
        f"> - **Date:** {rfc5322(seen['created_at'])}\n"
        "> - **Subject:** Fix the leak\n"
        ">\n"
        "> line one\n"
        ">\n"
        "> line three\n"
    )

    # The same content under a new attachment id, which the new recipient may fetch.
    [carried] = mail["attachments"]
    [first] = seen["attachments"]
    assert carried["attachment_id"] != first["attachment_id"]
    assert {k: carried[k] for k in ("filename", "size", "sha256")} == {
        k: first[k] for k in ("filename", "size", "sha256")
    }
    assert (await lin.get(f"{HUMAN_FILES}/{carried['attachment_id']}")).content == report
    refused(await lin.get(f"{HUMAN_FILES}/{first['attachment_id']}"), 404, "not_found")
    for url in (carried["attachment_id"], first["attachment_id"]):
        assert (await builder.get(f"{AGENT_FILES}/{url}")).content == report
    root = api.gateway.settings.attachments_dir
    assert len([p for p in root.rglob("*") if p.is_file()]) == 1

    # A forward of a forward: the quote nests, the attachments follow, the chain is kept.
    again = await forward(lin, HUMAN_MAIL, sent["mail_id"], to="jianf@", subject="look")
    twice = ok(await jianf.get(f"{HUMAN_MAIL}/{again['mail_id']}"))
    assert twice["subject"] == "look"
    assert twice["parent_mail_id"] == sent["mail_id"]
    assert twice["body"].startswith("> **Forwarded message**\n>\n> - **From:** builder@ModelRouter")
    assert "> > **Forwarded message**\n" in twice["body"]
    assert "> > line three\n" in twice["body"]
    [grandchild] = twice["attachments"]
    assert grandchild["sha256"] == first["sha256"]
    assert (await jianf.get(f"{HUMAN_FILES}/{grandchild['attachment_id']}")).content == report


async def test_the_address_decides_the_conversation_not_the_original(api: Api) -> None:
    jianf = await api.human("jianf")
    await api.agent("builder")
    original = await send(jianf, "builder@ModelRouter", session_alias="fix-leak")
    default = await send(jianf, "builder@ModelRouter", subject="plain")
    assert default["session_id"] != original["session_id"]

    to_default = await forward(jianf, HUMAN_MAIL, original["mail_id"], to="builder@ModelRouter")
    assert to_default["session_id"] == default["session_id"]
    to_new = await forward(jianf, HUMAN_MAIL, original["mail_id"], to="builder@ModelRouter.new")
    assert to_new["session_id"] not in (default["session_id"], original["session_id"])
    to_alias = await forward(jianf, HUMAN_MAIL, original["mail_id"], to="builder@.fix-leak")
    assert to_alias["session_id"] == original["session_id"]
    response = await jianf.post(
        f"{HUMAN_MAIL}/{original['mail_id']}/forward", json={"to": "builder@ModelRouter.nope"}
    )
    refused(response, 422, "unknown_alias")

    for result in (to_default, to_new, to_alias):
        mail = ok(await jianf.get(f"{HUMAN_MAIL}/{result['mail_id']}"))
        assert (mail["parent_mail_id"], mail["mail_type"]) == (original["mail_id"], "forward")
        assert mail["subject"] == "Fwd: to builder@ModelRouter"
        assert mail["body"].startswith("> **Forwarded message**\n")


async def test_only_the_sender_and_recipients_may_forward(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    mallory = await api.human("mallory")
    builder = await api.agent("builder")
    other = await api.agent("other")
    original = await send(jianf, "builder@", cc=["alice@"], subject="team only")
    mail_id = original["mail_id"]

    # For anyone else the mail does not exist (Security issue, hole 2: nothing revealed).
    response = await mallory.post(f"{HUMAN_MAIL}/no-such-mail/forward", json={"to": "jianf@"})
    unknown = refused(response, 404, "not_found")
    for client, mails in ((mallory, HUMAN_MAIL), (other, AGENT_MAIL)):
        response = await client.post(f"{mails}/{mail_id}/forward", json={"to": "jianf@"})
        assert refused(response, 404, "not_found") == unknown.replace("no-such-mail", mail_id)
    assert ok(await mallory.get(f"{HUMAN_MAIL}/sent"))["total"] == 0

    for client, mails in ((jianf, HUMAN_MAIL), (alice, HUMAN_MAIL), (builder, AGENT_MAIL)):
        await forward(client, mails, mail_id, to="mallory@")
    got = ok(await mallory.get(f"{HUMAN_MAIL}/inbox"))["mails"]
    assert sorted(m["from"].split("@")[0] for m in got) == ["alice", "builder", "jianf"]
    assert {m["parent_mail_id"] for m in got} == {mail_id}

    # The request is checked like a send's.
    refused(await jianf.post(f"{HUMAN_MAIL}/{mail_id}/forward", json={}), 422, "invalid_request")
    response = await jianf.post(f"{HUMAN_MAIL}/{mail_id}/forward", json={"to": "nobody@"})
    refused(response, 422, "unknown_recipient")
    response = await jianf.post(f"{AGENT_MAIL}/{mail_id}/forward", json={"to": "alice@"})
    refused(response, 403, "forbidden")
