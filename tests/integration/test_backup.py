"""`agentmail backup` of a running gateway, `agentmail restore` elsewhere.

While an agent keeps sending (light load), the backup is taken; it is restored
into an empty data dir (and, on PostgreSQL, an empty database); a gateway on
the restored data has the same mails, attachments (byte for byte), keys and
read states as the source had for everything written before the backup began,
and nothing the source never had. A restore into a target with data is refused
unless --force; a damaged archive is refused before anything is written. The data dir's
secret key file travels with the backup: the restored gateway opens the sealed secrets.
"""

from __future__ import annotations

import asyncio
import io
import stat
import tarfile
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from core.store.models import Delivery, Key, Mail
from gateway.server import Gateway
from tests.support import databases
from tests.support.cli import agentmail, open_store
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.http import ok

HUMAN_FILES = "/api/v1/me/attachments"


@pytest.fixture
async def gateway(database_url: str, tmp_path: Path) -> AsyncIterator[Gateway]:
    """A gateway with no secret key set: its secrets are sealed with the data dir's key
    file, which the backup must carry for a restored gateway to open them."""
    async with running_gateway(database_url, tmp_path / "data", secret_key=None) as running:
        yield running


def _state(session: Session) -> dict[str, Any]:
    mails = {m.id: (m.subject, m.body) for m in session.scalars(select(Mail))}
    reads = {(d.mail_seq, d.recipient, d.is_read) for d in session.scalars(select(Delivery))}
    keys = {(k.id, k.token_sha256, k.revoked_at is not None) for k in session.scalars(select(Key))}
    return {"mails": mails, "reads": reads, "keys": keys}


async def _restored_url(backend: str, tmp_path: Path) -> str:
    if backend == "sqlite":
        return f"sqlite:///{tmp_path / 'restored' / 'agentmail.db'}"
    return await databases.create_empty_postgres_database()


async def test_backup_under_load_restores_the_same_data(
    api: Api, gateway: Gateway, backend: str, database_url: str, tmp_path: Path
) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    report = bytes(range(256)) * 64
    upload = ok(await jianf.post(HUMAN_FILES, files={"file": ("report.bin", report)}))
    sent = ok(
        await jianf.post(
            "/api/v1/me/mail/send",
            json={
                "to": "builder@ModelRouter",
                "subject": "with a file",
                "body": "see attached",
                "attachment_ids": [upload["attachment_id"]],
            },
        )
    )
    ok(await builder.post(f"/api/v1/mail/{sent['mail_id']}/read"))
    await api.user_key(jianf)
    assert gateway.store is not None
    before = await gateway.store.read(_state)

    stop = asyncio.Event()

    async def load() -> None:
        n = 0
        while not stop.is_set():
            # A new conversation each time: a slow pg_dump must not run one out of rounds.
            body = {"to": "jianf@.new", "subject": f"during backup {n}", "body": "busy"}
            ok(await builder.post("/api/v1/mail/send", json=body))
            n += 1

    loader = asyncio.create_task(load())
    archive = tmp_path / "backup.tar"
    data_dir = gateway.settings.data_dir
    try:
        result = await agentmail("backup", str(archive), db=database_url, data_dir=data_dir)
    finally:
        stop.set()
        await loader
    assert result.exit_code == 0, result.output
    after = await gateway.store.read(_state)

    target = await _restored_url(backend, tmp_path)
    try:
        restored_dir = tmp_path / "restored"
        result = await agentmail("restore", str(archive), db=target, data_dir=restored_dir)
        assert result.exit_code == 0, result.output
        store = open_store(target)
        try:
            restored = await store.read(_state)
        finally:
            await store.close()
        assert before["mails"].items() <= restored["mails"].items()
        assert restored["mails"].items() <= after["mails"].items()
        assert before["reads"] <= restored["reads"] <= after["reads"]
        assert restored["keys"] == after["keys"]

        # No secret key set: the restored data dir's key file must open the secrets.
        async with running_gateway(target, restored_dir, secret_key=None) as copy:
            restored_api = Api(copy)
            try:
                again = await restored_api.login("jianf", PASSWORD)
                mail = ok(await again.get(f"/api/v1/me/mail/{sent['mail_id']}"))
                (attachment,) = mail["attachments"]
                download = await again.get(f"{HUMAN_FILES}/{attachment['attachment_id']}")
                assert download.content == report
            finally:
                await restored_api.close()

        # The target now holds data: refused, then replaced with --force.
        result = await agentmail("restore", str(archive), db=target, data_dir=restored_dir)
        assert result.exit_code == 1 and "holds data" in result.output, result.output
        result = await agentmail(
            "restore", str(archive), "--force", db=target, data_dir=restored_dir
        )
        assert result.exit_code == 0, result.output
    finally:
        if backend == "postgresql":
            await databases.release_postgres_database(target)


async def test_a_damaged_archive_is_refused(tmp_path: Path) -> None:
    """The archive's mode and checks do not depend on the database: SQLite is enough."""
    source = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(source, tmp_path / "data") as gateway:
        helper = Api(gateway)
        try:
            await helper.human("jianf")
        finally:
            await helper.close()
    archive = tmp_path / "backup.tar"
    result = await agentmail("backup", str(archive), db=source, data_dir=tmp_path / "data")
    assert result.exit_code == 0, result.output
    # Password and key hashes and all mail: the owner's alone, whatever the umask.
    assert stat.S_IMODE(archive.stat().st_mode) == 0o600
    damaged = tmp_path / "damaged.tar"
    with tarfile.open(archive) as original, tarfile.open(damaged, "w") as copy:
        for member in original.getmembers():
            data = original.extractfile(member)
            assert data is not None
            content = data.read()
            if member.name == "database.sqlite":
                content = content[:-1] + bytes([content[-1] ^ 1])
            copy.addfile(member, io.BytesIO(content))
    empty = tmp_path / "empty"
    target = f"sqlite:///{empty / 'agentmail.db'}"
    result = await agentmail("restore", str(damaged), db=target, data_dir=empty)
    assert result.exit_code == 1 and "checksum mismatch" in result.output, result.output
    assert not (empty / "agentmail.db").exists()


async def test_an_attachment_missing_on_disk_is_named(api: Api, database_url: str) -> None:
    """A file the database names but the disk lacks makes the backup exit 1, naming it."""
    jianf = await api.human("jianf")
    await api.agent("builder")
    upload = ok(await jianf.post(HUMAN_FILES, files={"file": ("gone.bin", b"soon gone")}))
    body = {"to": "builder@ModelRouter", "subject": "s", "body": "b"}
    ok(
        await jianf.post(
            "/api/v1/me/mail/send", json={**body, "attachment_ids": [upload["attachment_id"]]}
        )
    )
    data_dir = api.gateway.settings.data_dir
    (path,) = [p for p in (data_dir / "attachments").rglob(upload["sha256"])]
    path.unlink()
    archive = data_dir.parent / "backup.tar"
    result = await agentmail("backup", str(archive), db=database_url, data_dir=data_dir)
    assert result.exit_code == 1, result.output
    assert upload["sha256"] in result.output
