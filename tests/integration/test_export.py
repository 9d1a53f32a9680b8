"""`agentmail export`: export → import into an empty gateway → export gives the same
messages (Message-ID, From, To, Cc, Date, Subject, In-Reply-To, body text,
attachment bytes) and the same threads, as mbox and as Maildir."""

from __future__ import annotations

import mailbox
import os
from collections.abc import AsyncIterator
from datetime import UTC, datetime
from email import policy
from email.message import EmailMessage
from email.parser import BytesParser
from email.utils import getaddresses
from pathlib import Path
from typing import Any, cast

import pytest
from sqlalchemy import select

from core.archive.sources import mboxrd_unquote
from core.store.engine import Store
from core.store.models import Mail
from tests.support import databases
from tests.support.cli import agentmail, created, open_store, summary
from tests.support.gateway import Api
from tests.support.http import HUMAN_SEND, ok
from tests.support.mail_archive import DOMAIN, message, write_mbox

Fields = tuple[Any, ...]


@pytest.fixture
async def empty_database(backend: str, tmp_path: Path) -> AsyncIterator[str]:
    """A second, empty database on the same backend."""
    if backend == "sqlite":
        yield f"sqlite:///{tmp_path / 'second.db'}"
        return
    url = await databases.create_postgres_database()
    try:
        yield url
    finally:
        await databases.release_postgres_database(url)


def _fields(raw: bytes) -> Fields:
    msg = cast(EmailMessage, BytesParser(policy=policy.default).parsebytes(raw))

    def addresses(name: str) -> list[str]:
        return [a for _, a in getaddresses([str(v) for v in msg.get_all(name, [])])]

    plain = msg.get_body(preferencelist=("plain",))
    files = sorted(
        (part.get_filename() or "", cast(bytes, part.get_payload(decode=True)))
        for part in msg.iter_attachments()
    )
    return (
        str(msg["Message-ID"]),
        addresses("From"),
        addresses("To"),
        addresses("Cc"),
        str(msg["Date"]),
        str(msg["Subject"]),
        str(msg.get("In-Reply-To", "")),
        str(plain.get_content()) if plain is not None else None,
        files,
    )


def _read_mbox(path: Path) -> list[bytes]:
    box = mailbox.mbox(path, create=False)
    try:
        return [mboxrd_unquote(box.get_bytes(key)) for key in box.iterkeys()]
    finally:
        box.close()


def _read_maildir(path: Path) -> list[bytes]:
    box = mailbox.Maildir(path, factory=None, create=False)
    return [box.get_bytes(key) for key in sorted(box.keys())]


async def _threads(store: Store) -> tuple[dict[str, str | None], set[frozenset[str]]]:
    """Parent of each Message-ID, and the Message-IDs grouped by conversation."""

    def run(session: Any) -> tuple[dict[str, str | None], set[frozenset[str]]]:
        rows = session.execute(select(Mail.id, Mail.message_id, Mail.parent_id, Mail.session_id))
        rows = list(rows)
        by_id = {r.id: r.message_id for r in rows}
        groups: dict[str, set[str]] = {}
        for r in rows:
            groups.setdefault(r.session_id, set()).add(r.message_id)
        parents = {r.message_id: by_id.get(r.parent_id) for r in rows}
        return parents, {frozenset(g) for g in groups.values()}

    result: tuple[dict[str, str | None], set[frozenset[str]]] = await store.read(run)
    return result


async def _fill(api: Api, tmp_path: Path) -> None:
    """Mail born in the API (rendered on export) and an imported thread with an outsider."""
    alice = await api.human("alice")
    await api.human("carol")
    builder = await api.agent("builder")
    data = os.urandom(20_000)
    upload = ok(
        await alice.post(
            "/api/v1/me/attachments", files={"file": ("plan v2.bin", data, "application/x-plan")}
        )
    )
    first = ok(
        await alice.post(
            HUMAN_SEND,
            json={
                "to": "builder@ModelRouter",
                "cc": ["carol@"],
                "subject": "Plan review — größer",
                "body": "Please **review**.\nFrom the top, line two.\n\n> quoted",
                "attachment_ids": [upload["attachment_id"]],
            },
        )
    )
    answer = ok(
        await builder.post(
            "/api/v1/mail/send",
            json={"to": "alice@", "reply_to": first["mail_id"], "body": "Reviewed: fine."},
        )
    )
    ok(
        await alice.post(
            HUMAN_SEND, json={"to": "builder@", "reply_to": answer["mail_id"], "body": "Thanks"}
        )
    )
    outside = tmp_path / "outside.mbox"
    write_mbox(
        outside,
        [
            message("<o1@partner.example>", "Bob <bob@partner.example>", [f"alice@{DOMAIN}"],
                    "Hello from outside", "Hi Alice", _when(1)),
            message("<o2@partner.example>", f"alice@{DOMAIN}", ["bob@partner.example"],
                    "Re: Hello from outside", "Hi Bob", _when(2), cc=["dan@elsewhere.example"],
                    parents=["<o1@partner.example>"]),
        ],
    )  # fmt: skip
    settings = api.gateway.settings
    result = await agentmail(
        "import", str(outside), db=settings.database_url, data_dir=settings.data_dir
    )
    assert summary(result.output)["imported"] == 2, result.output


def _when(hour: int) -> datetime:
    return datetime(2024, 1, 2, hour, tzinfo=UTC)


async def test_export_import_export_keeps_messages_and_threads(
    api: Api, empty_database: str, tmp_path: Path
) -> None:
    await _fill(api, tmp_path)
    settings = api.gateway.settings
    one, two = tmp_path / "one.mbox", tmp_path / "two.mbox"
    first = await agentmail(
        "export", str(one), "--user", "alice", db=settings.database_url, data_dir=settings.data_dir
    )
    assert first.exit_code == 0, first.output
    assert "exported 5 messages" in first.output

    data = tmp_path / "second-data"
    await created(empty_database, data)
    imported = await agentmail("import", str(one), db=empty_database, data_dir=data)
    assert summary(imported.output) == {"read": 5, "imported": 5}, imported.output
    second = await agentmail(
        "export", str(two), "--user", "alice", db=empty_database, data_dir=data
    )
    assert second.exit_code == 0, second.output

    before = sorted(_fields(raw) for raw in _read_mbox(one))
    after = sorted(_fields(raw) for raw in _read_mbox(two))
    assert after == before
    by_id = {f[0]: f for f in before}
    assert by_id["<o2@partner.example>"][1:4] == (
        [f"alice@{DOMAIN}"],
        ["bob@partner.example"],
        ["dan@elsewhere.example"],
    )
    with_file = [f for f in before if f[8]]
    assert len(with_file) == 1 and with_file[0][3] == [f"carol++plan-review-grosser@{DOMAIN}"]
    assert with_file[0][8][0][0] == "plan v2.bin" and len(with_file[0][8][0][1]) == 20_000

    assert api.gateway.store is not None
    store = open_store(empty_database)
    try:
        assert await _threads(store) == await _threads(api.gateway.store)
    finally:
        await store.close()

    # Maildir: the same messages; importing them again adds nothing.
    folder = tmp_path / "Maildir"
    as_maildir = await agentmail(
        "export", str(folder), "--user", "alice", "--format", "maildir",
        db=settings.database_url, data_dir=settings.data_dir,
    )  # fmt: skip
    assert as_maildir.exit_code == 0, as_maildir.output
    assert sorted(_fields(raw) for raw in _read_maildir(folder)) == before
    again = await agentmail("import", str(folder), db=empty_database, data_dir=data)
    assert summary(again.output) == {
        "read": 5,
        "imported": 0,
        "skipped: already stored (same Message-ID)": 5,
    }, again.output


async def test_export_one_conversation_and_refusals(api: Api, tmp_path: Path) -> None:
    await _fill(api, tmp_path)
    settings = api.gateway.settings
    target = tmp_path / "conv.mbox"

    async def export(*args: str) -> Any:
        return await agentmail(
            "export", *args, db=settings.database_url, data_dir=settings.data_dir
        )

    result = await export(str(target), "--session", "plan-review-grosser")
    assert result.exit_code == 0, result.output
    subjects = [_fields(raw)[5] for raw in _read_mbox(target)]
    assert subjects == ["Plan review — größer"] * 3
    exists = await export(str(target), "--session", "plan-review-grosser")
    assert exists.exit_code == 2 and "never overwrites" in exists.output
    unknown = await export(str(tmp_path / "x.mbox"), "--session", "no-such-thing")
    assert unknown.exit_code == 1 and "no conversation no-such-thing" in unknown.output
    neither = await export(str(tmp_path / "y.mbox"))
    assert neither.exit_code == 2
