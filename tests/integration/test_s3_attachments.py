"""Attachments in the object store (AGENTMAIL_BLOB_URL=s3://…): sent over REST and SMTP,
read back over REST and IMAP; the store away answers `503` / `451`, never `200` / `250`."""

from __future__ import annotations

import asyncio
import email
import hashlib
import os
import smtplib
import uuid
from collections.abc import AsyncIterator
from pathlib import Path

import pytest

from core.settings import Settings
from gateway.doctor_blobs import check_object_store
from gateway.server import Gateway
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.http import ok
from tests.support.imap import fetched, imap_login
from tests.support.seaweedfs import BUCKET, SeaweedFS
from tests.support.smtp import D, message, send

PDF = b"%PDF-1.7\n" + os.urandom(300_000)
BUILDER = f"builder+ModelRouter@{D}"


@pytest.fixture
async def s3_api(database_url: str, tmp_path: Path, seaweedfs: SeaweedFS) -> AsyncIterator[Api]:
    prefix = f"gw-{uuid.uuid4().hex}"
    settings = seaweedfs.settings(prefix)
    async with running_gateway(database_url, tmp_path / "data", **settings) as gateway:
        api = Api(gateway)
        try:
            yield api
        finally:
            await api.close()


def _objects(seaweedfs: SeaweedFS, gateway: Gateway) -> list[str]:
    prefix = gateway.settings.blob_url.removeprefix(f"s3://{BUCKET}/")
    listed = seaweedfs.client().list_objects_v2(Bucket=BUCKET, Prefix=f"{prefix}/")
    return [item["Key"].rsplit("/", 1)[-1] for item in listed.get("Contents", [])]


async def test_attachments_sent_over_rest_and_smtp_are_read_over_rest_and_imap(
    s3_api: Api, seaweedfs: SeaweedFS
) -> None:
    jianf = await s3_api.human("jianf")
    builder = await s3_api.agent("builder")
    chart = os.urandom(70_000)
    upload = ok(
        await jianf.post(
            "/api/v1/me/attachments", files={"file": ("chart.png", chart, "image/png")}
        )
    )
    ok(
        await jianf.post(
            "/api/v1/me/mail/send",
            json={"to": "builder@ModelRouter", "subject": "the chart", "body": "Here.",
                  "attachment_ids": [upload["attachment_id"]]},
        )
    )  # fmt: skip
    mail = message(f"jianf@{D}", BUILDER, "the report", "Attached.")
    mail.add_attachment(PDF, maintype="application", subtype="pdf", filename="report.pdf")
    await send(s3_api, "jianf", PASSWORD, mail)

    stored = set(_objects(seaweedfs, s3_api.gateway))
    assert {hashlib.sha256(chart).hexdigest(), hashlib.sha256(PDF).hexdigest()} <= stored
    assert not s3_api.gateway.settings.attachments_dir.exists()  # nothing on the disk
    inbox = ok(await builder.get("/api/v1/mail/inbox"))
    [ref] = next(m for m in inbox["mails"] if m["subject"] == "the report")["attachments"]
    download = await builder.get(f"/api/v1/attachments/{ref['attachment_id']}")
    assert download.status_code == 200 and download.content == PDF
    assert download.headers["content-length"] == str(len(PDF))
    mine = await jianf.get(f"/api/v1/me/attachments/{upload['attachment_id']}")
    assert mine.content == chart

    async with imap_login(s3_api.gateway, "jianf") as imap:  # rendered from the store's bytes
        await imap.ok("select", "Sent")
        bodies = [
            e["BODY[]"] for e in fetched(await imap.ok("fetch", "1:*", "BODY.PEEK[]")).values()
        ]
    attached = {
        part.get_filename(): part.get_payload(decode=True)
        for body in bodies
        for part in email.message_from_bytes(body).walk()
        if part.get_filename()
    }
    assert attached == {"chart.png": chart, "report.pdf": PDF}


async def test_the_object_store_away_refuses_for_now_and_works_again_when_back(
    s3_api: Api, seaweedfs: SeaweedFS
) -> None:
    await s3_api.human("jianf")
    builder = await s3_api.agent("builder")
    mail = message(f"jianf@{D}", BUILDER, "while away", "Attached.")
    mail.add_attachment(PDF, maintype="application", subtype="pdf", filename="report.pdf")
    await asyncio.to_thread(seaweedfs.stop)  # the gateway's loop keeps running meanwhile
    try:
        refused = await builder.post("/api/v1/attachments", files={"file": ("a.bin", b"bytes")})
        assert refused.status_code == 503, refused.text
        assert refused.json()["error"]["code"] == "storage_unavailable"
        assert refused.headers["retry-after"] == "10"
        with pytest.raises(smtplib.SMTPDataError) as later:
            await send(s3_api, "jianf", PASSWORD, mail)
        assert later.value.smtp_code == 451
    finally:
        await asyncio.to_thread(seaweedfs.start)
    assert ok(await builder.get("/api/v1/mail/inbox"))["mails"] == []  # nothing half-stored
    ok(await builder.post("/api/v1/attachments", files={"file": ("a.bin", b"bytes")}))
    await send(s3_api, "jianf", PASSWORD, mail)
    [item] = ok(await builder.get("/api/v1/mail/inbox"))["mails"]
    [ref] = item["attachments"]
    assert (await builder.get(f"/api/v1/attachments/{ref['attachment_id']}")).content == PDF


def test_doctor_checks_the_bucket(seaweedfs: SeaweedFS, tmp_path: Path) -> None:
    settings = Settings(data_dir=tmp_path, **seaweedfs.settings("doctor"))
    [found] = check_object_store(settings)
    assert found.status == "ok", found
    wrong = Settings(data_dir=tmp_path, **{**seaweedfs.settings(), "s3_secret_key": "wrong"})
    [found] = check_object_store(wrong)
    assert found.status == "fail" and "access key" in found.todo
    assert check_object_store(Settings(data_dir=tmp_path)) == []  # files: nothing to check
