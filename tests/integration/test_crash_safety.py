"""SIGKILL during mixed load loses nothing acknowledged and leaves no half write.

The guard for every change to the write path: a real `agentmail serve` child
process takes concurrent REST sends (a human and an agent), SMTP messages to two
recipients, IMAP flag changes and an `agentmail import` in a process of its own,
and is killed with SIGKILL (the import too) in the middle of it. After a restart
on the same data:

- every mail that got its `200` or `250` is there exactly once (an SMTP message:
  all its mails, sharing one copy of its bytes), and nothing that was never sent;
- every flag change that got its `OK` is there;
- no half write: the schema's rules (tests/support/store_invariants.py) hold;
- the import, run again, finishes with every archive message stored once;
- SQLite says `PRAGMA integrity_check` ok and finds no broken foreign key.

A kill keeps what the OS already has, so this proves "no acknowledgement before
COMMIT", not the fsync itself (that is `synchronous=FULL`, core/store/engine.py).
"""

from __future__ import annotations

import asyncio
import imaplib
import sqlite3
import sys
import threading
from collections.abc import Iterable
from pathlib import Path

import httpx
from sqlalchemy import text
from sqlalchemy.orm import Session

from core.store.engine import Store
from core.store.engine import database_url as store_url
from tests.support.cli import agentmail
from tests.support.mail_archive import generate, write_mbox
from tests.support.serve_process import ADMIN_PASSWORD, ServedGateway, serve, serve_env
from tests.support.smtp import logged_in
from tests.support.store_invariants import broken_rules, missing_events, unfiled

D = "agentmail.localhost"
PASSWORD = "password123"
KILL_AFTER = 40  # acknowledged REST and SMTP mails before the kill
IMAP_FLAGS = ("\\Flagged", "\\Seen", "$Crash1", "$Crash2")
SEEDED = 8  # mails in the human's INBOX for IMAP to flag


class Acks:
    """What the clients were told was done, and what they tried."""

    def __init__(self) -> None:
        self.rest: set[str] = set()
        self.smtp: set[str] = set()
        self.flags: set[tuple[int, str]] = set()
        self.attempted: set[str] = set()
        self.enough = asyncio.Event()

    def acknowledge(self, into: set[str], subject: str) -> None:
        into.add(subject)
        if len(self.rest) + len(self.smtp) >= KILL_AFTER:
            self.enough.set()


async def _accounts(gateway: ServedGateway) -> tuple[str, str]:
    """The human jianf's user key and the agent builder's key (alice and reviewer exist too)."""
    base = gateway.base_url
    async with httpx.AsyncClient(base_url=base, headers={"Origin": base}, timeout=30) as http:
        login = {"username": "admin", "password": ADMIN_PASSWORD}
        assert (await http.post("/api/v1/auth/login", json=login)).status_code == 200
        for name in ("jianf", "alice"):
            user = {"name": name, "password": PASSWORD, "is_admin": False}
            assert (await http.post("/api/v1/admin/users", json=user)).status_code == 201
        agent_keys = []
        for name, workspaces in (("builder", ["ws", "ModelRouter"]), ("reviewer", ["ws"])):
            key = await http.post("/api/v1/admin/agent-keys", json={"lifecycle": "permanent"})
            spaces = [{"name": w, "path": f"/srv/{w}"} for w in workspaces]
            agent = {"name": name, "platform": "t", "workspaces": spaces}
            registered = await http.post(
                "/api/v1/agent/register",
                json=agent,
                headers={"Authorization": f"Bearer {key.json()['key']}"},
            )
            assert registered.status_code == 200, registered.text
            agent_keys.append(key.json()["key"])
        http.cookies.clear()
        login = {"username": "jianf", "password": PASSWORD}
        assert (await http.post("/api/v1/auth/login", json=login)).status_code == 200
        user_key = (await http.post("/api/v1/me/keys", json={"lifecycle": "permanent"})).json()
        return user_key["key"], agent_keys[0]


async def _rest_sender(base: str, token: str, path: str, to: str, tag: str, acks: Acks) -> None:
    headers = {"Authorization": f"Bearer {token}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=10) as http:
        for index in range(10_000):
            subject = f"rest {tag} {index}"
            acks.attempted.add(subject)
            response = await http.post(path, json={"to": to, "subject": subject, "body": "b"})
            assert response.status_code == 200, response.text
            acks.acknowledge(acks.rest, subject)


# builder+ws and reviewer+ws share one conversation (To and Cc); the Bcc to
# builder+ModelRouter is another one: two mails, stored together or not at all.
SMTP_RECIPIENTS = [f"builder+ws@{D}", f"reviewer+ws@{D}", f"builder+ModelRouter@{D}"]


def _smtp_message(subject: str) -> bytes:
    body = "a line of a message to two agents that must arrive whole or not at all\r\n" * 30
    return (
        f"From: jianf@{D}\r\nTo: builder+ws@{D}\r\nCc: reviewer+ws@{D}\r\n"
        f"Subject: {subject}\r\n\r\n{body}"
    ).encode()


async def _smtp_sender(port: int, tag: str, acks: Acks) -> None:
    async with logged_in(port, "jianf", PASSWORD) as smtp:
        for index in range(10_000):
            subject = f"smtp {tag} {index}"
            acks.attempted.add(subject)
            await smtp.sendmail(f"jianf@{D}", SMTP_RECIPIENTS, _smtp_message(subject))
            acks.acknowledge(acks.smtp, subject)


def _imap_flagger(port: int, acks: Acks, stop: threading.Event) -> None:
    """Set one flag after another on the seeded INBOX mails; note each `OK`."""
    client = imaplib.IMAP4("127.0.0.1", port, timeout=10)
    try:
        client.login("jianf", PASSWORD)
        client.select("INBOX")
        typ, data = client.uid("SEARCH", None, "ALL")  # type: ignore[arg-type]
        uids = [int(n) for n in data[0].split()]
        assert typ == "OK" and len(uids) >= SEEDED, data
        for flag in IMAP_FLAGS:
            for uid in uids:
                if stop.is_set():
                    return
                typ, _ = client.uid("STORE", str(uid), "+FLAGS.SILENT", f"({flag})")
                assert typ == "OK"
                acks.flags.add((uid, flag))
    finally:
        client.shutdown()


async def _load_until_killed(
    gateway: ServedGateway, importer: asyncio.subprocess.Process, acks: Acks, keys: tuple[str, str]
) -> None:
    user_key, agent_key = keys
    base, stop = gateway.base_url, threading.Event()
    senders = [
        _rest_sender(base, user_key, "/api/v1/me/mail/send", "builder@ws", "human", acks),
        _rest_sender(base, user_key, "/api/v1/me/mail/send", "reviewer@ws", "human2", acks),
        _rest_sender(base, agent_key, "/api/v1/mail/send", "jianf@.new", "agent", acks),
        *(_smtp_sender(gateway.smtp_port, str(n), acks) for n in range(3)),
    ]
    tasks = [asyncio.create_task(sender) for sender in senders]
    tasks.append(
        asyncio.create_task(asyncio.to_thread(_imap_flagger, gateway.imap_port, acks, stop))
    )
    try:
        async with asyncio.timeout(30):
            await acks.enough.wait()
    finally:
        stop.set()
        await gateway.kill()
        if importer.returncode is None:
            importer.kill()
        await importer.wait()
        results = await asyncio.gather(*tasks, return_exceptions=True)
    # The kill cuts every client's connection; any other failure (a refusal) is a bug.
    refused = [r for r in results if isinstance(r, AssertionError)]
    assert not refused, refused


async def _import(env: dict[str, str], mbox: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable, "-m", "gateway", "import", str(mbox), env=env,
        stdout=asyncio.subprocess.DEVNULL, stderr=asyncio.subprocess.DEVNULL,
    )  # fmt: skip


async def test_sigkill_during_mixed_load_loses_nothing_acknowledged(
    database_url: str, tmp_path: Path
) -> None:
    env = serve_env(database_url, tmp_path / "data")
    env["AGENTMAIL_NEW_CONVERSATIONS_PER_HOUR"] = "100000"  # the agent opens one per mail
    archive = generate(80, seed=14)
    mbox = tmp_path / "archive.mbox"
    write_mbox(mbox, archive.messages)
    acks = Acks()
    gateway = await serve(env)
    try:
        keys = await _accounts(gateway)
        importer = await _import(env, mbox)  # its start-up overlaps the seeding
        await asyncio.gather(*(_seed(gateway.base_url, keys[1], n) for n in range(SEEDED)))
        await _load_until_killed(gateway, importer, acks, keys)
    finally:
        await gateway.kill()
    assert acks.attempted - acks.rest - acks.smtp, "the kill should cut mails in flight"
    assert acks.smtp and acks.rest and acks.flags, "every kind of write ran before the kill"

    restarted = await serve(env)
    try:  # the store opens again, takes mail and finishes the cut import
        _, agent_key = keys
        await _seed(restarted.base_url, agent_key, 10_000)
        rerun = await agentmail("import", str(mbox), db=database_url, data_dir=tmp_path / "data")
        assert rerun.exit_code == 0, rerun.output
    finally:
        assert await restarted.stop() == 0

    store = Store(store_url(database_url, tmp_path / "data" / "agentmail.db"))
    try:
        await store.read(lambda session: _check(session, acks, archive.parent_of.keys()))
    finally:
        await store.close()
    if database_url.startswith("sqlite"):
        _check_sqlite_file(tmp_path / "data" / "agentmail.db")


async def _seed(base: str, agent_key: str, index: int) -> None:
    headers = {"Authorization": f"Bearer {agent_key}"}
    async with httpx.AsyncClient(base_url=base, headers=headers, timeout=10) as http:
        mail = {"to": "jianf@.new", "subject": f"seed {index}", "body": "flag me"}
        response = await http.post("/api/v1/mail/send", json=mail)
        assert response.status_code == 200, response.text


def _check(session: Session, acks: Acks, archived_ids: Iterable[str]) -> None:
    rows = session.execute(
        text(
            "SELECT m.subject, count(DISTINCT m.seq), count(DISTINCT m.raw_sha256),"
            " min(m.raw_sha256), count(d.id) FROM mails m JOIN deliveries d ON d.mail_seq = m.seq"
            " WHERE m.subject LIKE 'rest %' OR m.subject LIKE 'smtp %' GROUP BY m.subject"
        )
    ).all()
    stored = {
        subject: (count, raws, raw, deliveries) for subject, count, raws, raw, deliveries in rows
    }
    assert not (acks.rest | acks.smtp) - stored.keys(), "acknowledged mails were lost"
    assert stored.keys() <= acks.attempted, "mails that were never sent"
    for subject, (count, raws, raw, deliveries) in stored.items():
        if subject.startswith("rest "):
            assert (count, raw, deliveries) == (1, None, 1), subject
        else:  # one mail per conversation, both naming the one stored original
            assert (count, raws, deliveries) == (2, 1, 3) and raw is not None, subject
    assert not broken_rules(session)
    assert not unfiled(session, stored), "a mail missing from a human's INBOX or Sent"
    assert not missing_events(session, stored), "a delivery without its new_mail event"

    flags = session.execute(
        text(
            "SELECT u.uid, d.flagged, d.is_read, m.seq FROM imap_uids u"
            " JOIN imap_folders f ON f.id = u.folder_id JOIN mails m ON m.seq = u.mail_seq"
            " JOIN deliveries d ON d.mail_seq = m.seq AND d.recipient = f.owner"
            " WHERE f.owner = 'jianf' AND f.key = 'inbox'"
        )
    ).all()
    keywords = {
        (seq, keyword)
        for seq, keyword in session.execute(
            text("SELECT mail_seq, keyword FROM delivery_keywords WHERE recipient = 'jianf'")
        )
    }
    by_uid = {uid: (flagged, seen, seq) for uid, flagged, seen, seq in flags}
    for uid, flag in acks.flags:
        flagged, seen, seq = by_uid[uid]
        held = {"\\Flagged": flagged, "\\Seen": seen}.get(flag, (seq, flag) in keywords)
        assert held, (uid, flag)

    imported = session.execute(
        text(
            "SELECT message_id, count(*) FROM mails WHERE message_id LIKE '%@archive.example>'"
            " GROUP BY message_id"
        )
    ).all()
    assert {message_id for message_id, _ in imported} == set(archived_ids)
    assert all(count == 1 for _, count in imported), "an imported message stored twice"


def _check_sqlite_file(path: Path) -> None:
    with sqlite3.connect(path) as db:
        assert db.execute("PRAGMA integrity_check").fetchall() == [("ok",)]
        assert db.execute("PRAGMA foreign_key_check").fetchall() == []
