"""SIGKILL during sends with attachments, the attachments in the object store: every
acknowledged mail is there exactly once with its attachment, and every attachment row
that committed, acknowledged or not, has its content in the bucket.

An `agentmail serve` child process on PostgreSQL with AGENTMAIL_BLOB_URL set takes
REST uploads then sends (a human and an agent) and SMTP messages with an attachment
(three clients), each attachment's bytes its own, and is killed with SIGKILL in the
middle of it. After a restart on the same database and bucket, the checks above hold
and an acknowledged attachment downloads byte for byte. The crash-safety checks
without attachments are tests/integration/test_crash_safety.py's, on the file store.
"""

from __future__ import annotations

import asyncio
import hashlib
import os
import uuid
from email.message import EmailMessage
from pathlib import Path
from typing import Any

import httpx
import pytest
from botocore.exceptions import ClientError
from sqlalchemy import text
from sqlalchemy.orm import Session

from core.store.blobs import content_key
from core.store.engine import Store
from core.store.engine import database_url as store_url
from tests.support.gateway import PASSWORD, Api
from tests.support.seaweedfs import BUCKET, SeaweedFS
from tests.support.serve_process import ServedGateway, serve, serve_env
from tests.support.smtp import logged_in

D = "agentmail.localhost"
KILL_AFTER = 30  # acknowledged mails before the kill


class Acks:
    def __init__(self) -> None:
        self.sent: dict[str, str] = {}  # subject → its attachment's sha256, acknowledged
        self.attempted: set[str] = set()
        self.enough = asyncio.Event()

    def acknowledge(self, subject: str, sha256: str) -> None:
        self.sent[subject] = sha256
        if len(self.sent) >= KILL_AFTER:
            self.enough.set()


def _content(subject: str) -> tuple[bytes, str]:
    data = subject.encode() + os.urandom(60_000)
    return data, hashlib.sha256(data).hexdigest()


async def _rest_sender(
    client: httpx.AsyncClient, prefix: str, to: str, tag: str, acks: Acks
) -> None:
    for index in range(10_000):
        subject = f"kill {tag} {index}"
        data, sha256 = _content(subject)
        acks.attempted.add(subject)
        upload = await client.post(f"{prefix}/attachments", files={"file": ("a.bin", data)})
        assert upload.status_code == 200, upload.text
        mail = {
            "to": to,
            "subject": subject,
            "body": "b",
            "attachment_ids": [upload.json()["attachment_id"]],
        }
        response = await client.post(f"{prefix}/mail/send", json=mail)
        assert response.status_code == 200, response.text
        acks.acknowledge(subject, sha256)


async def _smtp_sender(port: int, tag: str, acks: Acks) -> None:
    async with logged_in(port, "jianf", PASSWORD) as smtp:
        for index in range(10_000):
            subject = f"kill smtp {tag} {index}"
            data, sha256 = _content(subject)
            mail = EmailMessage()
            mail["From"], mail["To"], mail["Subject"] = f"jianf@{D}", f"builder+ws@{D}", subject
            mail.set_content("Attached.")
            mail.add_attachment(
                data, maintype="application", subtype="octet-stream", filename="a.bin"
            )
            acks.attempted.add(subject)
            await smtp.send_message(mail)
            acks.acknowledge(subject, sha256)


async def _load_until_killed(gateway: ServedGateway, acks: Acks) -> None:
    api = Api(gateway)  # type: ignore[arg-type]  # a served gateway has the ports Api reads
    try:
        jianf = await api.human("jianf")
        builder = await api.agent("builder", [("ws", "/srv/ws")])
        senders = [
            _rest_sender(jianf, "/api/v1/me", "builder@ws", "human", acks),
            _rest_sender(builder, "/api/v1", "jianf@.new", "agent", acks),
            *(_smtp_sender(gateway.smtp_port, str(n), acks) for n in range(3)),
        ]
        tasks = [asyncio.create_task(sender) for sender in senders]
        try:
            async with asyncio.timeout(60):
                await acks.enough.wait()
        finally:
            await gateway.kill()
            results = await asyncio.gather(*tasks, return_exceptions=True)
    finally:
        await api.close()
    # The kill cuts every client's connection; any other failure (a refusal) is a bug.
    refused = [r for r in results if isinstance(r, AssertionError)]
    assert not refused, refused


def _stored(session: Session) -> tuple[dict[str, tuple[int, int, str]], set[str]]:
    rows = session.execute(
        text(
            "SELECT m.subject, count(DISTINCT m.seq), count(a.id), min(a.sha256) FROM mails m"
            " LEFT JOIN attachments a ON a.mail_seq = m.seq"
            " WHERE m.subject LIKE 'kill %' GROUP BY m.subject"
        )
    ).all()
    named = set(session.scalars(text("SELECT DISTINCT sha256 FROM attachments")))
    return {subject: (mails, files, sha) for subject, mails, files, sha in rows}, named


def _in_bucket(client: Any, prefix: str, sha256: str) -> bool:
    try:
        body = client.get_object(Bucket=BUCKET, Key=f"{prefix}/{content_key(sha256)}")["Body"]
    except ClientError:
        return False
    with body:
        return hashlib.sha256(body.read()).hexdigest() == sha256


@pytest.mark.parametrize("backend", ["postgresql"])  # the store replicas share
async def test_sigkill_with_attachments_in_the_object_store_loses_nothing(
    database_url: str, tmp_path: Path, seaweedfs: SeaweedFS
) -> None:
    prefix = f"kill-{uuid.uuid4().hex}"
    env = serve_env(database_url, tmp_path / "data")
    env["AGENTMAIL_NEW_CONVERSATIONS_PER_HOUR"] = "100000"  # the agent opens one per mail
    settings = seaweedfs.settings(prefix)
    env |= {f"AGENTMAIL_{name.upper()}": str(value) for name, value in settings.items()}
    acks = Acks()
    gateway = await serve(env)
    try:
        await _load_until_killed(gateway, acks)
    finally:
        await gateway.kill()
    assert acks.attempted - acks.sent.keys(), "the kill should cut mails in flight"
    assert any(" smtp " in s for s in acks.sent) and any(" human " in s for s in acks.sent)

    store = Store(store_url(database_url, Path("unused.db")))
    try:
        stored, named = await store.read(_stored)
    finally:
        await store.close()
    assert not acks.sent.keys() - stored.keys(), "acknowledged mails were lost"
    assert stored.keys() <= acks.attempted, "mails that were never sent"
    for subject, sha256 in acks.sent.items():
        assert stored[subject] == (1, 1, sha256), subject  # once, with its attachment
    client = seaweedfs.client()
    lacking = [sha for sha in named if not await asyncio.to_thread(_in_bucket, client, prefix, sha)]
    assert not lacking, "attachment rows committed without their content"

    restarted = await serve(env)
    api = Api(restarted)  # type: ignore[arg-type]
    try:
        jianf = await api.login("jianf", PASSWORD)
        sent = (await jianf.get("/api/v1/me/mail/sent")).json()["mails"]
        mail = next(m for m in sent if m["subject"] in acks.sent)
        [attachment] = mail["attachments"]
        download = await jianf.get(f"/api/v1/me/attachments/{attachment['attachment_id']}")
        assert hashlib.sha256(download.content).hexdigest() == acks.sent[mail["subject"]]
    finally:
        await api.close()
        assert await restarted.stop() == 0
