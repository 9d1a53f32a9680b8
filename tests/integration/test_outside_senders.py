"""Imported mail with outside senders (on SQLite and PostgreSQL): its conversations are
history (`completed`), `from:`/`to:` find outside addresses, and a reply goes to the
gateway's own participants while a send to the outside address is a clear refusal."""

from __future__ import annotations

from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Any

import httpx

from tests.support.cli import agentmail, summary
from tests.support.gateway import Api
from tests.support.http import HUMAN_MAIL, HUMAN_SEND, ok
from tests.support.mail_archive import DOMAIN, message, write_mbox

WHEN = datetime(2024, 6, 3, 8, tzinfo=UTC)


async def _import(api: Api, tmp_path: Path) -> None:
    gateway = api.gateway
    path = tmp_path / "outside.mbox"
    write_mbox(
        path,
        [
            message(
                "<invoice@mail.example>",
                "bob@example.com",
                [f"alice@{DOMAIN}"],
                "Invoice 7",
                "please pay",
                WHEN,
                cc=[f"builder+ModelRouter@{DOMAIN}"],
            ),
            message(
                "<paid@mail.example>",
                f"alice@{DOMAIN}",
                ["bob@example.com"],
                "Re: Invoice 7",
                "paid",
                WHEN + timedelta(hours=1),
                cc=["eve@example.org"],
                parents=["<invoice@mail.example>"],
            ),
        ],
    )
    result = await agentmail(
        "import", str(path), db=gateway.settings.database_url, data_dir=gateway.settings.data_dir
    )
    assert summary(result.output)["imported"] == 2, result.output


async def _found(client: httpx.AsyncClient, q: str) -> list[str]:
    hits: list[dict[str, Any]] = ok(await client.get("/api/v1/me/search", params={"q": q}))["mails"]
    return sorted(hit["subject"] for hit in hits)


async def test_imported_threads_are_completed_and_from_finds_outside_senders(
    api: Api, tmp_path: Path
) -> None:
    alice = await api.human("alice")
    builder = await api.agent("builder")
    await _import(api, tmp_path)

    [conversation] = ok(await alice.get("/api/v1/me/sessions"))["sessions"]
    assert conversation["status"] == "completed"
    [seen_by_agent] = ok(await builder.get("/api/v1/sessions"))["sessions"]
    assert seen_by_agent["status"] == "completed"
    open_ones = ok(await builder.get("/api/v1/sessions", params={"status": "active"}))
    assert open_ones["sessions"] == []

    root, reply = "Invoice 7", "Re: Invoice 7"
    assert await _found(alice, "from:bob") == [root]
    assert await _found(alice, "from:bob@example.com") == [root]
    assert await _found(alice, "from:BOB@Example.COM") == [root]
    assert await _found(alice, "from:example.com") == [root]
    assert await _found(alice, "from:alice") == [reply]
    assert await _found(alice, "to:bob") == [reply]
    assert await _found(alice, "to:eve@example.org") == [reply]
    assert await _found(alice, "to:builder") == [root]
    assert await _found(alice, "from:bob paid") == []
    assert await _found(alice, "from:carol") == []


async def test_a_reply_goes_to_the_gateway_participants_and_the_outside_address_is_refused(
    api: Api, tmp_path: Path
) -> None:
    alice = await api.human("alice")
    builder = await api.agent("builder")
    await _import(api, tmp_path)
    inbox = ok(await alice.get(f"{HUMAN_MAIL}/inbox"))["mails"]
    [from_bob] = [m for m in inbox if m["from"] == "mailto:bob@example.com"]
    assert from_bob["cc"] == ["builder@ModelRouter.invoice-7"]

    refused = await alice.post(
        HUMAN_SEND,
        json={
            "to": "mailto:bob@example.com",
            "subject": "Re",
            "body": "x",
            "reply_to": from_bob["mail_id"],
        },
    )
    # An outside address is mail beyond the gateway: refused here, with no smarthost
    # and no admin's leave (docs/external-mail.md), and nothing stored.
    assert refused.status_code == 403, refused.text
    assert refused.json()["error"]["code"] == "outbound_not_allowed"

    sent = ok(
        await alice.post(
            HUMAN_SEND,
            json={
                "to": "builder@ModelRouter",
                "subject": "Re: Invoice 7",
                "body": "check it",
                "reply_to": from_bob["mail_id"],
            },
        )
    )
    assert sent["session_id"] == from_bob["session_id"]
    # A new mail in an imported (completed) conversation makes it open work again.
    [conversation] = ok(await builder.get("/api/v1/sessions"))["sessions"]
    assert conversation["status"] == "active"
