"""One SMTP message is bounded: at most 100 recipients,
its bytes stored once, one Message-ID for all its mails."""

from __future__ import annotations

import os
from email.message import EmailMessage
from email.parser import BytesParser
from email.policy import default

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.store.models import Mail, RawMessage
from core.store.raw_messages import originals_of
from tests.support.gateway import PASSWORD, Api
from tests.support.smtp import D, message, send, session


async def _humans(api: Api, names: list[str]) -> None:
    admin = await api.admin()
    for name in names:
        response = await admin.post(
            "/api/v1/admin/users", json={"name": name, "password": PASSWORD, "is_admin": False}
        )
        assert response.status_code == 201, response.text


async def _mails(api: Api) -> list[Mail]:
    store = api.gateway.store
    assert store is not None
    return list(await store.read(lambda s: s.scalars(select(Mail).order_by(Mail.seq)).all()))


async def test_the_101st_recipient_gets_452_and_the_first_100_get_the_message(api: Api) -> None:
    names = [f"r{n:03d}" for n in range(101)]
    await _humans(api, ["alice", *names])
    client = await session(api, "alice", PASSWORD)
    try:
        code, _ = await client.execute_command(f"MAIL FROM:<alice@{D}>".encode())
        assert code == 250
        for name in names[:100]:
            code, text = await client.execute_command(f"RCPT TO:<{name}@{D}>".encode())
            assert code == 250, text
        code, text = await client.execute_command(f"RCPT TO:<{names[100]}@{D}>".encode())
        assert code == 452 and text.startswith("4.5.3 Too many recipients"), text
        body = message(f"alice@{D}", f"{names[0]}@{D}", "to a hundred").as_bytes()
        code, text = await client.data(body)
        assert code == 250 and f"{code} {text}" == "250 2.0.0 100 mails stored", text
    finally:
        await client.quit()
    mails = await _mails(api)
    assert sorted(m.to_name for m in mails) == names[:100]


async def test_a_1_mb_message_to_50_recipients_stores_its_bytes_once(api: Api) -> None:
    names = [f"r{n:02d}" for n in range(50)]
    await _humans(api, ["alice", *names])
    big = EmailMessage()
    big["From"] = f"alice@{D}"
    big["To"] = ", ".join(f"{name}@{D}" for name in names)
    big["Subject"] = "the big one"
    big["Message-ID"] = "<big@client.example>"
    big.set_content("see the file")
    big.add_attachment(os.urandom(1 << 20), maintype="application", subtype="octet-stream")
    await send(api, "alice", PASSWORD, big)
    store = api.gateway.store
    assert store is not None

    def counts(s: Session) -> tuple[int, int, set[str | None]]:
        rows = s.scalar(select(func.count()).select_from(RawMessage)) or 0
        total = s.scalar(select(func.sum(RawMessage.size))) or 0
        shas = set(s.scalars(select(Mail.raw_sha256)).all())
        return rows, total, shas

    rows, total, shas = await store.read(counts)
    assert len(await _mails(api)) == 50
    assert rows == 1 and len(shas) == 1 and None not in shas
    assert (1 << 20) < total < 2 * (1 << 20)  # one copy (base64), not fifty
    # The attachment's content is one file on disk, whatever the number of mails.
    files = [p for p in api.gateway.settings.attachments_dir.rglob("*") if p.is_file()]
    assert len(files) == 1


async def test_a_message_without_message_id_gives_all_its_mails_one(api: Api) -> None:
    await _humans(api, ["alice", "bob", "carol", "dave"])
    mail = message(f"alice@{D}", f"bob@{D}, carol@{D}, dave@{D}", "no id")
    assert "Message-ID" not in mail
    await send(api, "alice", PASSWORD, mail)
    mails = await _mails(api)
    assert len(mails) == 3 and len({m.to_name for m in mails}) == 3
    [message_id] = {m.message_id for m in mails}
    assert message_id.endswith(f"@{D}>")
    store = api.gateway.store
    assert store is not None
    originals = await store.read(lambda s: originals_of(s, [m.seq for m in mails]))
    # The bytes served (IMAP BODY[], export) carry that same id.
    for raw in originals.values():
        assert BytesParser(policy=default).parsebytes(raw)["Message-ID"] == message_id
