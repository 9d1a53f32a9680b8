"""Folders of one's own from real clients: mutt (in tmux) makes one and saves a mail into
it, and a phone-style client (imapclient) runs a whole session of folder work; the web
UI's REST view shows the result. Both databases."""

from __future__ import annotations

import asyncio
import shutil
import uuid
from dataclasses import dataclass, field
from email.message import EmailMessage
from pathlib import Path

import pytest
from imapclient import IMAPClient

from tests.integration.test_imap_clients import MUTTRC, Terminal
from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok

D = "agentmail.localhost"


async def filed_in(api: Api, name: str, folder: str, *subjects: str) -> bool:
    """Whether REST (what the web UI shows) has those mails in that folder, within seconds."""
    client = await api.login(name, PASSWORD)
    for _ in range(75):
        folders = {f["name"]: f for f in ok(await client.get("/api/v1/me/folders"))["folders"]}
        if folder in folders:
            listed = ok(
                await client.get(
                    "/api/v1/me/mail/inbox", params={"folder_id": folders[folder]["folder_id"]}
                )
            )
            if sorted(m["subject"] for m in listed["mails"]) == sorted(subjects):
                return True
        await asyncio.sleep(0.2)
    return False


@pytest.mark.skipif(
    shutil.which("mutt") is None or shutil.which("tmux") is None, reason="needs mutt and tmux"
)
async def test_mutt_saves_a_mail_into_a_folder_it_creates(api: Api, tmp_path: Path) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    ok(await builder.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "file me"}))
    config = tmp_path / "muttrc"
    config.write_text(MUTTRC.format(port=api.gateway.imap_port, password=PASSWORD))
    terminal = Terminal(f"agentmail-test-{uuid.uuid4().hex[:12]}")
    await terminal.start(f"TERM=xterm mutt -n -F {config}")
    try:
        await terminal.shows("file me")
        await terminal.keys("s")  # save: mutt asks where, then whether to create it
        await terminal.shows("Save to mailbox")
        await terminal.keys("C-u", "+Projects/Kept", "Enter")
        await terminal.shows("Create")
        await terminal.keys("y")
        await terminal.keys("$")  # sync: the saved mail leaves INBOX
        assert await filed_in(api, "jianf", "Projects/Kept", "file me")
    finally:
        await terminal.stop()
    assert ok(await jianf.get("/api/v1/me/mail/inbox", params={"status": "unread"}))["total"] == 0


@dataclass
class Seen:
    append: bytes = b""
    moved: list[int] = field(default_factory=list)
    renamed: list[str] = field(default_factory=list)
    bodies: list[bytes] = field(default_factory=list)
    after_delete: list[str] = field(default_factory=list)
    archive: int = 0
    sorted_by_subject: list[int] = field(default_factory=list)
    threads: list[tuple[int, ...]] = field(default_factory=list)


def phone_session(port: int) -> Seen:
    """What a phone's mail app does with folders, in one session."""
    seen = Seen()
    with IMAPClient("127.0.0.1", port=port, ssl=False) as client:
        client.login("jianf", PASSWORD)
        client.create_folder("Trips")
        client.create_folder("Trips/2027")
        note = EmailMessage()
        note["From"], note["To"], note["Subject"] = f"jianf@{D}", f"jianf@{D}", "Tickets"
        note["Message-ID"] = "<tickets@phone>"
        note.set_content("the tickets, attached")
        note.add_attachment(b"%PDF-1.4 tickets", maintype="application", subtype="pdf",
                            filename="tickets.pdf")  # fmt: skip
        seen.append = client.append("Trips", note.as_bytes(), flags=[b"\\Seen"])
        client.select_folder("INBOX")
        [inbox_uid] = client.search("ALL")
        client.move([inbox_uid], "Trips/2027")
        client.select_folder("Trips/2027")
        seen.moved = client.search("ALL")
        client.select_folder("Trips")
        client.append("Trips", _reply_to(note).as_bytes())
        seen.sorted_by_subject = client.sort(["SUBJECT", "REVERSE", "SIZE"], "ALL")
        seen.threads = [tuple(t) for t in client.thread("REFERENCES", "ALL")]
        client.unselect_folder()
        client.rename_folder("Trips", "Travel")
        seen.renamed = sorted(name for _, _, name in client.list_folders(pattern="Travel*"))
        client.select_folder("Travel")
        fetched = client.fetch(client.search("ALL"), ["BODY.PEEK[]", "FLAGS"])
        seen.bodies = [data[b"BODY[]"] for data in fetched.values()]
        client.unselect_folder()
        client.delete_folder("Travel/2027")
        seen.after_delete = sorted(name for _, _, name in client.list_folders())
        client.select_folder("Archive")
        seen.archive = len(client.search("ALL"))
    return seen


def _reply_to(note: EmailMessage) -> EmailMessage:
    reply = EmailMessage()
    reply["From"], reply["To"], reply["Subject"] = f"jianf@{D}", f"jianf@{D}", "Re: Tickets"
    reply["Message-ID"], reply["In-Reply-To"] = "<reply@phone>", str(note["Message-ID"])
    reply.set_content("and the hotel")
    return reply


async def test_a_phone_client_works_with_folders(api: Api) -> None:
    await api.human("jianf")
    builder = await api.agent("builder")
    ok(await builder.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "Itinerary"}))
    seen = await asyncio.to_thread(phone_session, api.gateway.imap_port)
    assert b"APPENDUID" in seen.append
    assert seen.moved == [1]
    assert seen.sorted_by_subject == [1, 2]  # one base subject (RFC 5256); the larger first
    assert seen.threads == [(1, 2)]  # the reply under the note it answers
    assert seen.renamed == ["Travel", "Travel/2027"]
    first, _ = seen.bodies
    assert b"tickets.pdf" in first
    assert "Travel" in seen.after_delete and "Travel/2027" not in seen.after_delete
    assert seen.archive == 1  # the deleted folder's mail
    assert await filed_in(api, "jianf", "Travel", "Tickets", "Re: Tickets")
