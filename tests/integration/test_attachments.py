"""Attachments: upload, send, list, download, refusals, storage once by sha256, collection."""

from __future__ import annotations

import asyncio
import hashlib
import logging
import os
from collections.abc import Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path
from typing import Any
from urllib.parse import unquote

import httpx
import pytest
from sqlalchemy import Engine, event

from core.mail.attachments import collect_unsent
from core.store.file_blobs import FileBlobs
from core.store.models import utcnow
from gateway.server import Gateway
from tests.support.gateway import Api, running_gateway
from tests.support.http import AGENT_SEND, HUMAN_SEND, ok, refused

HUMAN_FILES = "/api/v1/me/attachments"
AGENT_FILES = "/api/v1/attachments"


async def upload(
    client: httpx.AsyncClient, url: str, name: str, data: bytes, content_type: str = "text/plain"
) -> dict[str, Any]:
    return ok(await client.post(url, files={"file": (name, data, content_type)}))


async def send(client: httpx.AsyncClient, url: str, to: str, **body: Any) -> dict[str, Any]:
    body.setdefault("subject", f"to {to}")
    body.setdefault("body", "hello")
    return ok(await client.post(url, json={"to": to, **body}))


def stored(gateway: Gateway) -> list[Path]:
    """Every file under the attachments directory (content and anything left over)."""
    root = gateway.settings.attachments_dir
    return sorted(p for p in root.rglob("*") if p.is_file()) if root.exists() else []


def refs(attachments: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [{k: a[k] for k in ("filename", "size", "sha256")} for a in attachments]


async def test_upload_send_list_and_download_round_trip(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    report = os.urandom(300_000)
    notes = "# Notes\n\nnon-ASCII: ü 报告\n".encode()

    first = await upload(jianf, HUMAN_FILES, "report.bin", report, "application/x-thing")
    assert first["size"] == len(report)
    assert first["sha256"] == hashlib.sha256(report).hexdigest()
    assert (first["filename"], first["content_type"]) == ("report.bin", "application/x-thing")
    assert set(first) == {"attachment_id", "filename", "content_type", "size", "sha256"}
    second = await upload(jianf, HUMAN_FILES, "notes.md", notes, "text/markdown; charset=utf-8")
    assert second["content_type"] == "text/markdown"
    # The uploader may fetch an upload before sending it.
    assert (await jianf.get(f"{HUMAN_FILES}/{first['attachment_id']}")).content == report

    ids = [first["attachment_id"], second["attachment_id"]]
    sent = await send(jianf, HUMAN_SEND, "builder@ModelRouter", attachment_ids=ids)
    expected = [
        {"filename": "report.bin", "size": len(report), "sha256": first["sha256"]},
        {"filename": "notes.md", "size": len(notes), "sha256": second["sha256"]},
    ]

    # Every view of the mail lists them, for the recipient and the sender.
    inbox = ok(await builder.get("/api/v1/mail/inbox"))["mails"]
    assert refs(inbox[0]["attachments"]) == expected
    assert [a["attachment_id"] for a in inbox[0]["attachments"]] == ids
    mail = ok(await builder.get(f"/api/v1/mail/{sent['mail_id']}"))
    assert refs(mail["attachments"]) == expected
    outbox = ok(await jianf.get("/api/v1/me/mail/sent"))["mails"]
    assert refs(outbox[0]["attachments"]) == expected
    detail = ok(await jianf.get(f"/api/v1/sessions/{sent['session_id']}"))
    assert refs(detail["mails"][0]["attachments"]) == expected

    for client, url in ((builder, AGENT_FILES), (jianf, HUMAN_FILES)):
        response = await client.get(f"{url}/{ids[0]}")
        assert response.status_code == 200
        assert response.content == report
        assert response.headers["content-type"] == "application/octet-stream"
        assert (await client.get(f"{url}/{ids[1]}")).content == notes

    # And the other way: an agent uploads and mails a human.
    log = b"line\n" * 1000
    from_agent = await upload(builder, AGENT_FILES, "build.log", log)
    reply = await send(
        builder,
        AGENT_SEND,
        "jianf@",
        reply_to=sent["mail_id"],
        attachment_ids=[from_agent["attachment_id"]],
    )
    got = ok(await jianf.get(f"/api/v1/me/mail/{reply['mail_id']}"))
    assert refs(got["attachments"]) == [
        {"filename": "build.log", "size": len(log), "sha256": hashlib.sha256(log).hexdigest()}
    ]
    assert (await jianf.get(f"{HUMAN_FILES}/{from_agent['attachment_id']}")).content == log
    # A mail without attachments lists none.
    plain = await send(jianf, HUMAN_SEND, "builder@")
    assert ok(await builder.get(f"/api/v1/mail/{plain['mail_id']}"))["attachments"] == []


async def test_listings_load_attachments_in_one_query(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    for n in range(5):
        sent = await upload(jianf, HUMAN_FILES, f"f{n}.txt", f"file {n}".encode())
        await send(jianf, HUMAN_SEND, "builder@", attachment_ids=[sent["attachment_id"]])

    with statements_on("attachments") as seen:
        page = ok(await builder.get("/api/v1/mail/inbox"))
    assert [len(m["attachments"]) for m in page["mails"]] == [1] * 5
    assert len(seen) == 1, seen


@contextmanager
def statements_on(table: str) -> Iterator[list[str]]:
    """The SQL statements that read `table` while the block runs (any engine in-process)."""
    seen: list[str] = []

    def record(_conn: Any, _cursor: Any, statement: str, *_args: Any) -> None:
        if f"FROM {table}" in statement:
            seen.append(statement)

    event.listen(Engine, "before_cursor_execute", record)
    try:
        yield seen
    finally:
        event.remove(Engine, "before_cursor_execute", record)


async def test_the_same_bytes_uploaded_twice_are_stored_once(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    data = os.urandom(5 * 1024 * 1024)

    first = await upload(jianf, HUMAN_FILES, "big.bin", data)
    second = await upload(builder, AGENT_FILES, "copy.bin", data)
    assert first["attachment_id"] != second["attachment_id"]
    assert first["sha256"] == second["sha256"] == hashlib.sha256(data).hexdigest()
    files = stored(api.gateway)
    sha = first["sha256"]
    assert files == [api.gateway.settings.attachments_dir / sha[:2] / sha[2:4] / sha]
    assert files[0].read_bytes() == data
    assert (await builder.get(f"{AGENT_FILES}/{second['attachment_id']}")).content == data


async def test_html_downloads_as_an_octet_stream_attachment(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    page = b"<html><script>alert(document.cookie)</script></html>"
    sent = await upload(jianf, HUMAN_FILES, "page.html", page, "text/html")
    assert sent["content_type"] == "text/html"
    await send(jianf, HUMAN_SEND, "builder@", attachment_ids=[sent["attachment_id"]])

    response = await builder.get(f"{AGENT_FILES}/{sent['attachment_id']}")
    assert response.status_code == 200
    assert response.content == page
    assert response.headers["content-type"] == "application/octet-stream"
    assert response.headers["content-disposition"] == (
        "attachment; filename=\"page.html\"; filename*=UTF-8''page.html"
    )
    assert response.headers["x-content-type-options"] == "nosniff"


async def test_file_names_are_kept_and_encoded_safely(api: Api) -> None:
    jianf = await api.human("jianf")
    cases = {
        "报告 2026.pdf": ("2026.pdf", "报告 2026.pdf"),
        'say "hi"\r\nSet-Cookie: x=1.txt': ("say _hi___Set-Cookie_ x=1.txt", None),
        "naïve\\résumé.txt": ("resume.txt", "résumé.txt"),
        "../../etc/passwd": ("passwd", "passwd"),
        "": ("attachment", "attachment"),
    }
    for name, (fallback, kept) in cases.items():
        sent = await upload(jianf, HUMAN_FILES, name, b"x")
        assert sent["filename"] == (name if kept is None else kept)
        response = await jianf.get(f"{HUMAN_FILES}/{sent['attachment_id']}")
        assert response.status_code == 200
        disposition = response.headers["content-disposition"]
        assert response.headers.get_list("content-disposition") == [disposition]
        assert "set-cookie" not in response.headers
        assert disposition.isascii() and "\r" not in disposition and "\n" not in disposition
        plain, extended = disposition.split("; filename*=UTF-8''")
        assert plain == f'attachment; filename="{fallback}"'
        assert '"' not in fallback and "\\" not in fallback
        assert unquote(extended) == sent["filename"]
        assert " " not in extended and '"' not in extended and ";" not in extended


async def test_an_upload_over_the_limit_is_413_and_leaves_no_file(
    database_url: str, tmp_path: Path
) -> None:
    async with running_gateway(database_url, tmp_path / "d", max_attachment_bytes=1000) as gateway:
        api = Api(gateway)
        try:
            jianf = await api.human("jianf")
            # A client learns the limit before it uploads anything.
            me = ok(await jianf.get("/api/v1/me"))
            assert me["limits"] == {"max_attachment_bytes": 1000}
            fits = await upload(jianf, HUMAN_FILES, "fits.bin", b"a" * 1000)
            before = stored(gateway)
            assert len(before) == 1

            # Over by one byte: counted while streaming, the partial file removed.
            limit = [{"field": "file", "code": "too_long", "limit": 1000}]
            response = await jianf.post(HUMAN_FILES, files={"file": ("big.bin", b"b" * 1001)})
            assert "1000" in refused(response, 413, "payload_too_large")
            assert response.json()["error"]["fields"] == limit
            assert stored(gateway) == before
            # Far over: refused by its Content-Length before anything is written.
            response = await jianf.post(HUMAN_FILES, files={"file": ("huge.bin", b"c" * 200_000)})
            assert "1000" in refused(response, 413, "payload_too_large")
            assert response.json()["error"]["fields"] == limit
            assert stored(gateway) == before

            # The gateway goes on.
            kept = await jianf.get(f"{HUMAN_FILES}/{fits['attachment_id']}")
            assert kept.content == b"a" * 1000
            await upload(jianf, HUMAN_FILES, "again.bin", b"d" * 10)
        finally:
            await api.close()


async def test_bad_uploads_are_refused(api: Api) -> None:
    jianf = await api.human("jianf")
    refused(await jianf.post(HUMAN_FILES, json={"file": "x"}), 415, "unsupported_media_type")
    response = await jianf.post(HUMAN_FILES, files={"other": ("a.txt", b"x")})
    assert "file" in refused(response, 422, "invalid_request")
    response = await jianf.post(
        HUMAN_FILES, files=[("file", ("a.txt", b"x")), ("file", ("b.txt", b"y"))]
    )
    assert "one file" in refused(response, 422, "invalid_request")
    part = b'--xyz\r\nContent-Disposition: form-data; name="file"; filename="a"\r\n\r\nabc'
    for body in (b"--xyz\r\nnot a part", b"garbage", part):  # the last one is cut short
        response = await jianf.post(
            HUMAN_FILES,
            content=body,
            headers={"Content-Type": "multipart/form-data; boundary=xyz"},
        )
        refused(response, 400, "bad_request")
    # Agents upload under /attachments, humans under /me/attachments.
    builder = await api.agent("builder")
    refused(await builder.post(HUMAN_FILES, files={"file": ("a", b"x")}), 403, "forbidden")
    refused(await jianf.post(AGENT_FILES, files={"file": ("a", b"x")}), 403, "forbidden")
    refused(await api.client().post(AGENT_FILES, files={"file": ("a", b"x")}), 401, "unauthorized")
    assert stored(api.gateway) == []


async def test_only_participants_download(api: Api) -> None:
    jianf = await api.human("jianf")
    alice = await api.human("alice")
    mallory = await api.human("mallory")
    builder = await api.agent("builder")
    other = await api.agent("other")
    sent = await upload(jianf, HUMAN_FILES, "secret.txt", b"secret")
    url = sent["attachment_id"]

    # Before it is sent, only the uploader.
    refused(await builder.get(f"{AGENT_FILES}/{url}"), 404, "not_found")
    await send(jianf, HUMAN_SEND, "builder@", cc=["alice@"], attachment_ids=[url])
    for client, files in ((jianf, HUMAN_FILES), (builder, AGENT_FILES), (alice, HUMAN_FILES)):
        assert (await client.get(f"{files}/{url}")).content == b"secret"
    for client, files in ((mallory, HUMAN_FILES), (other, AGENT_FILES)):
        refused(await client.get(f"{files}/{url}"), 404, "not_found")
    refused(await jianf.get(f"{HUMAN_FILES}/no-such-id"), 404, "not_found")


async def test_only_your_own_unsent_uploads_can_be_attached(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    theirs = (await upload(builder, AGENT_FILES, "theirs.txt", b"t"))["attachment_id"]
    mine = (await upload(jianf, HUMAN_FILES, "mine.txt", b"m"))["attachment_id"]

    for ids, needle in (([theirs], theirs), ([mine, "no-such-id"], "no-such-id")):
        response = await jianf.post(
            HUMAN_SEND, json={"to": "builder@", "subject": "s", "attachment_ids": ids}
        )
        assert needle in refused(response, 422, "invalid_request")
    response = await builder.post(AGENT_SEND, json={"to": "jianf@", "attachment_ids": [mine]})
    assert mine in refused(response, 422, "invalid_request")
    assert ok(await jianf.get("/api/v1/me/mail/sent"))["total"] == 0

    # Named twice, attached once; once sent, it belongs to that mail.
    first = await send(jianf, HUMAN_SEND, "builder@", attachment_ids=[mine, mine])
    mail = ok(await builder.get(f"/api/v1/mail/{first['mail_id']}"))
    assert [a["attachment_id"] for a in mail["attachments"]] == [mine]
    response = await jianf.post(HUMAN_SEND, json={"to": "builder@", "attachment_ids": [mine]})
    assert mine in refused(response, 422, "invalid_request")
    too_many = {"to": "builder@", "attachment_ids": [f"id{n}" for n in range(51)]}
    refused(await jianf.post(HUMAN_SEND, json=too_many), 422, "invalid_request")


async def test_collection_removes_unsent_uploads_and_keeps_shared_content(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    gateway = api.gateway
    assert gateway.store is not None
    blobs = FileBlobs(gateway.settings.attachments_dir)
    shared, lonely = b"shared content", b"lonely content"

    sent = await upload(jianf, HUMAN_FILES, "sent.txt", shared)
    await send(jianf, HUMAN_SEND, "builder@", attachment_ids=[sent["attachment_id"]])
    unsent_shared = await upload(builder, AGENT_FILES, "copy.txt", shared)
    unsent = await upload(jianf, HUMAN_FILES, "lonely.txt", lonely)
    assert len(stored(gateway)) == 2
    # What a crash mid-upload or mid-collection would leave behind.
    partial = gateway.settings.attachments_dir / ".upload-crashed.part"
    partial.write_bytes(b"half")
    aside = gateway.settings.attachments_dir / f".aside-{sent['sha256']}-crashed"
    blobs.path_of(sent["sha256"]).rename(aside)
    for path in (partial, aside):
        os.utime(path, (0, 0))

    # Nothing is old enough yet.
    assert await collect_unsent(gateway.store, blobs, utcnow() - timedelta(hours=24)) == 0
    assert blobs.path_of(sent["sha256"]).is_file()  # the set-aside content was put back

    removed = await collect_unsent(gateway.store, blobs, utcnow() + timedelta(hours=1))
    assert removed == 2
    assert stored(gateway) == [blobs.path_of(sent["sha256"])]
    refused(await jianf.get(f"{HUMAN_FILES}/{unsent['attachment_id']}"), 404, "not_found")
    refused(await builder.get(f"{AGENT_FILES}/{unsent_shared['attachment_id']}"), 404, "not_found")
    assert (await builder.get(f"{AGENT_FILES}/{sent['attachment_id']}")).content == shared
    response = await jianf.post(
        HUMAN_SEND, json={"to": "builder@", "attachment_ids": [unsent["attachment_id"]]}
    )
    refused(response, 422, "invalid_request")


async def test_the_gateway_collects_unsent_uploads_by_itself(
    database_url: str, tmp_path: Path
) -> None:
    ttl_hours = 1.5 / 3600  # 1.5 s; the job then runs every second
    async with running_gateway(
        database_url, tmp_path / "d", attachment_ttl_hours=ttl_hours
    ) as gateway:
        api = Api(gateway)
        try:
            jianf = await api.human("jianf")
            sent = await upload(jianf, HUMAN_FILES, "a.txt", b"kept")
            await send(jianf, HUMAN_SEND, "jianf@", attachment_ids=[sent["attachment_id"]])
            unsent = await upload(jianf, HUMAN_FILES, "b.txt", b"dropped")
            for _ in range(100):
                if len(stored(gateway)) == 1:
                    break
                await asyncio.sleep(0.1)
            assert [p.read_bytes() for p in stored(gateway)] == [b"kept"]
            refused(await jianf.get(f"{HUMAN_FILES}/{unsent['attachment_id']}"), 404, "not_found")
        finally:
            await api.close()


async def test_an_upload_the_client_cuts_short_leaves_no_file_and_no_error(
    api: Api, caplog: pytest.LogCaptureFixture
) -> None:
    """The client closes its connection in the middle of the file: the partial bytes are
    dropped and the log says so at INFO, with no 500 and no traceback."""
    builder = await api.agent("builder")
    before = stored(api.gateway)
    url = httpx.URL(api.base_url)
    part = (
        b'--cut\r\nContent-Disposition: form-data; name="file"; filename="cut.bin"\r\n'
        b"Content-Type: application/octet-stream\r\n\r\n"
    )
    head = (
        f"POST {AGENT_FILES} HTTP/1.1\r\nHost: {url.host}:{url.port}\r\n"
        f"Authorization: {builder.headers['Authorization']}\r\n"
        "Content-Type: multipart/form-data; boundary=cut\r\n"
        f"Content-Length: {len(part) + 1_000_000}\r\n\r\n"
    ).encode()
    with caplog.at_level(logging.INFO):
        _, writer = await asyncio.open_connection(url.host, url.port)
        writer.write(head + part + b"x" * 300_000)
        await writer.drain()
        writer.close()
        await writer.wait_closed()
        for _ in range(200):  # until the gateway has seen the connection go
            if "the client left while sending POST" in caplog.text:
                break
            await asyncio.sleep(0.05)
    assert f"the client left while sending POST {AGENT_FILES}" in caplog.text
    assert [r.getMessage() for r in caplog.records if r.levelno >= logging.ERROR] == []
    assert stored(api.gateway) == before
    # The gateway goes on.
    await upload(builder, AGENT_FILES, "whole.bin", b"w" * 10)
