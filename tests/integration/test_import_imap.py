"""`agentmail import imaps://...` against a real Dovecot (tests/support/dovecot.py),
through the CLI code path, on SQLite and PostgreSQL."""

from __future__ import annotations

from collections.abc import AsyncIterator
from datetime import UTC, datetime, timedelta
from pathlib import Path

import aioimaplib
import pytest
from pymap.parsing.modutf7 import modutf7_encode
from sqlalchemy import select

from core.store.models import Mail
from core.store.raw_messages import originals_of
from tests.support.cli import agentmail, created, open_store, summary
from tests.support.dovecot import Dovecot, running_dovecot
from tests.support.mail_archive import BROKEN, DOMAIN, message

START = datetime(2024, 9, 1, 12, tzinfo=UTC)


@pytest.fixture
async def dovecot(tmp_path: Path) -> AsyncIterator[Dovecot]:
    async with running_dovecot(tmp_path) as server:
        yield server


async def _append(server: Dovecot, messages: list[bytes], mailbox: str = "INBOX") -> None:
    client = aioimaplib.IMAP4_SSL(server.host, server.port, ssl_context=server.ssl_context())
    await client.wait_hello_from_server()
    assert (await client.login(server.user, server.password)).result == "OK"
    name = '"' + modutf7_encode(mailbox).decode() + '"'
    if mailbox != "INBOX":
        assert (await client.create(name)).result == "OK"
    for raw in messages:
        assert (await client.append(raw, mailbox=name)).result == "OK"
    await client.logout()


async def test_import_from_imaps_threads_and_is_idempotent(
    dovecot: Dovecot, database_url: str, tmp_path: Path
) -> None:
    root = message(
        "<r@x.example>", "bob@x.example", [f"alice@{DOMAIN}"], "Over IMAP", "root body", START
    )
    reply = message(
        "<a@x.example>", f"alice@{DOMAIN}", ["bob@x.example"], "Re: Over IMAP", "reply body",
        START + timedelta(hours=1), parents=["<r@x.example>"],
        attachments=[("log.txt", b"\x00binary\xff")],
    )  # fmt: skip
    # The reply is in the mailbox first (placed as a Maildir file), the root after it.
    dovecot.place("1700000000.1.host", reply)
    await _append(dovecot, [root, BROKEN[0]])
    data = tmp_path / "data"
    await created(database_url, data)
    env = {"AGENTMAIL_IMPORT_PASSWORD": dovecot.password}
    url = dovecot.url()

    first = await agentmail(
        "import", url, "--cafile", str(dovecot.ca_file), db=database_url, data_dir=data, env=env
    )
    assert first.exit_code == 0, first.output
    assert summary(first.output) == {"read": 3, "imported": 2, "failed: no From address": 1}
    assert "INBOX UID 3: no From address" in first.output

    store = open_store(database_url)
    try:
        rows = await store.read(
            lambda s: {
                m.message_id: (m.parent_id, m.session_id, m.id, originals_of(s, [m.seq]).get(m.seq))
                for m in s.scalars(select(Mail))
            }
        )
    finally:
        await store.close()
    assert rows["<a@x.example>"][0] == rows["<r@x.example>"][2]
    assert rows["<a@x.example>"][1] == rows["<r@x.example>"][1]
    # The bytes kept are what the server sent (Dovecot serves CRLF line ends).
    assert rows["<r@x.example>"][3] == root.replace(b"\n", b"\r\n")

    second = await agentmail(
        "import", url, "--cafile", str(dovecot.ca_file), db=database_url, data_dir=data, env=env
    )
    assert summary(second.output) == {
        "read": 3,
        "imported": 0,
        "skipped: already stored (same Message-ID)": 2,
        "failed: no From address": 1,
    }, second.output

    # A mailbox name with spaces and non-ASCII letters (modified UTF-7 on the wire).
    other = message("<g@x.example>", "bob@x.example", [f"alice@{DOMAIN}"], "Größe", "x", START)
    await _append(dovecot, [other], "Projekte Größe")
    folder = dovecot.url("Projekte%20Gr%C3%B6%C3%9Fe")
    third = await agentmail(
        "import", folder, "--cafile", str(dovecot.ca_file), db=database_url, data_dir=data, env=env
    )
    assert summary(third.output) == {"read": 1, "imported": 1}, third.output

    # Without AGENTMAIL_IMPORT_PASSWORD the password is asked for.
    asked = await agentmail(
        "import", folder, "--cafile", str(dovecot.ca_file), db=database_url, data_dir=data,
        env={"AGENTMAIL_IMPORT_PASSWORD": None}, stdin=f"{dovecot.password}\n",
    )  # fmt: skip
    assert "IMAP password for alice" in asked.output
    assert summary(asked.output) == {
        "read": 1,
        "imported": 0,
        "skipped: already stored (same Message-ID)": 1,
    }, asked.output


async def test_imaps_refusals_are_clear(
    dovecot: Dovecot, database_url: str, tmp_path: Path
) -> None:
    data = tmp_path / "data"
    await created(database_url, data)
    # Without the test CA the certificate is not trusted; --insecure skips the check.
    env = {"AGENTMAIL_IMPORT_PASSWORD": dovecot.password}
    untrusted = await agentmail("import", dovecot.url(), db=database_url, data_dir=data, env=env)
    assert untrusted.exit_code == 1
    assert "certificate verify failed" in untrusted.output
    insecure = await agentmail(
        "import", dovecot.url(), "--insecure", db=database_url, data_dir=data, env=env
    )
    assert summary(insecure.output) == {"read": 0, "imported": 0}, insecure.output

    missing = await agentmail(
        "import", dovecot.url("Nope"), "--cafile", str(dovecot.ca_file),
        db=database_url, data_dir=data, env=env,
    )  # fmt: skip
    assert missing.exit_code == 1 and "cannot open Nope" in missing.output
    bad_url = await agentmail("import", "imap://alice@host/INBOX", db=database_url, data_dir=data)
    assert bad_url.exit_code == 2 and "only imaps://" in bad_url.output
    # Last: Dovecot slows down logins from an address after a failed one.
    wrong = await agentmail(
        "import", dovecot.url(), "--cafile", str(dovecot.ca_file),
        db=database_url, data_dir=data, env={"AGENTMAIL_IMPORT_PASSWORD": "wrong"},
    )  # fmt: skip
    assert wrong.exit_code == 1
    assert "IMAP login as alice refused" in wrong.output
