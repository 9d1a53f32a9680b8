"""`agentmail backup` and `restore` with attachments in the object store, both ways.

A gateway keeps its attachments in SeaweedFS; its backup holds exactly the blobs its
rows name (not an object no row names); that backup restores into a data dir with
files, whose own backup restores into the object store again, and the attachments
read back byte for byte at each step. A blob missing from the bucket fails the
backup, naming it. The database is SQLite: the snapshot's two kinds are
tests/integration/test_backup.py's; here the blob stores are the point.
"""

from __future__ import annotations

import hashlib
import os
import tarfile
import uuid
from pathlib import Path
from typing import Any

from core.store.blobs import content_key
from tests.support.cli import agentmail
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.http import ok
from tests.support.seaweedfs import BUCKET, SeaweedFS
from tests.support.smtp import D, message, send

CHART = os.urandom(70_000)
PDF = b"%PDF-1.7\n" + os.urandom(2_500_000)  # more than one chunk of every copy
FILES = "/api/v1/me/attachments"


def _s3_env(seaweedfs: SeaweedFS, prefix: str) -> dict[str, str | None]:
    settings = seaweedfs.settings(prefix)
    return {
        "AGENTMAIL_BLOB_URL": settings["blob_url"],
        "AGENTMAIL_S3_ENDPOINT": settings["s3_endpoint"],
        "AGENTMAIL_S3_ACCESS_KEY": settings["s3_access_key"],
        "AGENTMAIL_S3_SECRET_KEY": settings["s3_secret_key"],
    }


def _blobs_in(archive: Path) -> set[str]:
    with tarfile.open(archive) as tar:
        return {n.rsplit("/", 1)[-1] for n in tar.getnames() if n.startswith("attachments/")}


async def _sent_with_attachments(api: Api) -> list[str]:
    """jianf sends the chart over REST and the PDF over SMTP; their attachment ids."""
    jianf = await api.human("jianf")
    await api.agent("builder")
    upload = ok(await jianf.post(FILES, files={"file": ("chart.png", CHART, "image/png")}))
    mail = {"to": "builder@ModelRouter", "subject": "the chart", "body": "Here."}
    ok(
        await jianf.post(
            "/api/v1/me/mail/send", json={**mail, "attachment_ids": [upload["attachment_id"]]}
        )
    )
    smtp = message(f"jianf@{D}", f"builder+ModelRouter@{D}", "the report", "Attached.")
    smtp.add_attachment(PDF, maintype="application", subtype="pdf", filename="report.pdf")
    await send(api, "jianf", PASSWORD, smtp)
    sent = ok(await jianf.get("/api/v1/me/mail/sent"))["mails"]
    return [a["attachment_id"] for m in sent for a in m["attachments"]]


async def _read_back(url: str, data_dir: Path, ids: list[str], **settings: Any) -> None:
    """A gateway on the restored data gives back every attachment, byte for byte."""
    async with running_gateway(url, data_dir, **settings) as restored:
        api = Api(restored)
        try:
            jianf = await api.login("jianf", PASSWORD)
            got = {(await jianf.get(f"{FILES}/{id_}")).content for id_ in ids}
        finally:
            await api.close()
    assert got == {CHART, PDF}


async def test_backups_carry_attachments_from_the_bucket_to_files_and_back(
    seaweedfs: SeaweedFS, tmp_path: Path
) -> None:
    source = f"sqlite:///{tmp_path / 'source.db'}"
    prefix = f"backup-{uuid.uuid4().hex}"
    async with running_gateway(source, tmp_path / "source", **seaweedfs.settings(prefix)) as gw:
        api = Api(gw)
        try:
            ids = await _sent_with_attachments(api)
        finally:
            await api.close()
    stray = os.urandom(1000)  # content no row names: not part of the backup
    stray_key = f"{prefix}/{content_key(hashlib.sha256(stray).hexdigest())}"
    seaweedfs.client().put_object(Bucket=BUCKET, Key=stray_key, Body=stray)

    from_bucket = tmp_path / "from-bucket.tar"
    env = _s3_env(seaweedfs, prefix)
    result = await agentmail(
        "backup", str(from_bucket), db=source, data_dir=tmp_path / "source", env=env
    )
    assert result.exit_code == 0, result.output
    assert "attachments read: 2/2" in result.output  # the progress of the long part
    named = {hashlib.sha256(CHART).hexdigest(), hashlib.sha256(PDF).hexdigest()}
    assert _blobs_in(from_bucket) == named

    files_db = f"sqlite:///{tmp_path / 'files' / 'agentmail.db'}"
    result = await agentmail("restore", str(from_bucket), db=files_db, data_dir=tmp_path / "files")
    assert result.exit_code == 0, result.output
    assert {p.name for p in (tmp_path / "files" / "attachments").rglob("*")} >= named
    await _read_back(files_db, tmp_path / "files", ids)

    from_files = tmp_path / "from-files.tar"
    result = await agentmail("backup", str(from_files), db=files_db, data_dir=tmp_path / "files")
    assert result.exit_code == 0, result.output
    again = f"restored-{uuid.uuid4().hex}"
    bucket_db = f"sqlite:///{tmp_path / 'bucket' / 'agentmail.db'}"
    env = _s3_env(seaweedfs, again)
    result = await agentmail(
        "restore", str(from_files), db=bucket_db, data_dir=tmp_path / "bucket", env=env
    )
    assert result.exit_code == 0, result.output
    assert not (tmp_path / "bucket" / "attachments").exists()
    await _read_back(bucket_db, tmp_path / "bucket", ids, **seaweedfs.settings(again))

    # The bucket's prefix now holds content: a second restore there is refused.
    other_db = f"sqlite:///{tmp_path / 'other' / 'agentmail.db'}"
    result = await agentmail(
        "restore", str(from_files), db=other_db, data_dir=tmp_path / "other", env=env
    )
    assert result.exit_code == 1 and "holds data" in result.output, result.output


async def test_a_blob_missing_from_the_bucket_fails_the_backup_naming_it(
    seaweedfs: SeaweedFS, tmp_path: Path, database_url: str
) -> None:
    prefix = f"missing-{uuid.uuid4().hex}"
    data_dir = tmp_path / "data"
    async with running_gateway(database_url, data_dir, **seaweedfs.settings(prefix)) as gw:
        api = Api(gw)
        try:
            await _sent_with_attachments(api)
        finally:
            await api.close()
    gone = hashlib.sha256(CHART).hexdigest()
    seaweedfs.client().delete_object(Bucket=BUCKET, Key=f"{prefix}/{content_key(gone)}")
    archive = tmp_path / "backup.tar"
    env = _s3_env(seaweedfs, prefix)
    result = await agentmail("backup", str(archive), db=database_url, data_dir=data_dir, env=env)
    assert result.exit_code == 1, result.output
    assert gone in result.output and "missing" in result.output
    assert _blobs_in(archive) == {hashlib.sha256(PDF).hexdigest()}  # the rest is kept
