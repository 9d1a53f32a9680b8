"""The excerpt and task counts are kept by the entrances that store mail without a
send: `agentmail import` and IMAP APPEND (REST and SMTP: test_list_rows.py)."""

from __future__ import annotations

from email.message import EmailMessage
from pathlib import Path

from sqlalchemy import Select, select

from core.store.models import Mail
from tests.support.cli import agentmail, created, open_store, summary
from tests.support.gateway import Api
from tests.support.imap import imap_login

D = "agentmail.localhost"
BODY = "## Done\n\n- [x] **parse** the log\n- [ ] fix it\n"
PLAIN = ("Done parse the log fix it", 1, 2)


def _message(subject: str, to: str, **headers: str) -> bytes:
    mail = EmailMessage()
    mail["From"] = "ana@example.org"
    mail["To"] = to
    mail["Subject"] = subject
    for name, value in headers.items():
        mail[name.replace("_", "-")] = value
    mail.set_content(BODY)
    return mail.as_bytes(policy=mail.policy.clone(linesep="\r\n"))


def _listed(subject: str) -> Select[str | None, int, int]:
    return select(Mail.excerpt, Mail.tasks_done, Mail.tasks_total).where(Mail.subject == subject)


async def test_an_imported_message_keeps_its_excerpt(database_url: str, tmp_path: Path) -> None:
    data = tmp_path / "data"
    await created(database_url, data)
    eml = tmp_path / "one.eml"
    eml.write_bytes(_message("imported", f"bob@{D}", Message_ID="<one@mail.example>"))
    done = await agentmail("import", str(eml), db=database_url, data_dir=data)
    assert summary(done.output)["imported"] == 1, done.output
    store = open_store(database_url)
    try:
        row = await store.read(lambda session: session.execute(_listed("imported")).one())
        assert tuple(row) == PLAIN
    finally:
        await store.close()


async def test_an_appended_message_keeps_its_excerpt(api: Api) -> None:
    await api.human("jianf")
    async with imap_login(api.gateway, "jianf") as imap:
        raw = _message("appended", f"jianf@{D}")
        typ, data = await imap("append", "INBOX", "()", None, raw)
        assert typ == "OK", data
    store = api.gateway.store
    assert store is not None
    row = await store.read(lambda session: session.execute(_listed("appended")).one())
    assert tuple(row) == PLAIN
