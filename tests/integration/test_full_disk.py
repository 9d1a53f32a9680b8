"""A full disk: clear refusals on every entrance, no corruption, and the
gateway recovers by itself once space returns.

The data directory is a small tmpfs (`mount -t tmpfs -o size=…`; the suite runs
as root) holding the SQLite database, its WAL and the attachments. A file fills
it to the last page; then a send over REST, an upload, a submission over SMTP and
an APPEND over IMAP are refused — `507 storage_full`, `452 4.3.1`, `NO [OVERQUOTA]`
— while reading goes on. The file is removed and the same requests succeed, on
the same running gateway; the database passes `PRAGMA integrity_check` and holds
exactly what was acknowledged.
"""

from __future__ import annotations

import asyncio
import contextlib
import errno
import imaplib
import sqlite3
import subprocess
from collections.abc import AsyncIterator, Iterator
from pathlib import Path

import aiosmtplib
import pytest

from gateway.server import Gateway
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.http import AGENT_SEND, HUMAN_MAIL, ok, refused
from tests.support.imap import Imap, connect, imap_login
from tests.support.smtp import D, message, session

SIZE = "8m"
BIG = "x" * 300_000  # more than the WAL and the database have free: they must grow


@pytest.fixture
def small_dir(tmp_path: Path) -> Iterator[Path]:
    mount = tmp_path / "small"
    mount.mkdir()
    done = subprocess.run(
        ["mount", "-t", "tmpfs", "-o", f"size={SIZE},mode=0700", "tmpfs", str(mount)],
        capture_output=True,
        text=True,
        check=False,
    )
    if done.returncode != 0:
        pytest.skip(f"cannot mount a small tmpfs (needs root): {done.stderr.strip()}")
    try:
        yield mount
    finally:
        subprocess.run(["umount", "--lazy", str(mount)], check=False)


@contextlib.asynccontextmanager
async def full(directory: Path) -> AsyncIterator[None]:
    """The file system of `directory` without a free page, until the block ends."""
    filler = directory / "filler"
    with filler.open("wb", buffering=0) as file:
        for size in (1 << 20, 4096, 1):
            with contextlib.suppress(OSError):
                while True:
                    file.write(b"\0" * size)
    with pytest.raises(OSError) as raised:
        (directory / "probe").write_bytes(b"\0" * 4096)
    assert raised.value.errno == errno.ENOSPC
    try:
        yield
    finally:
        filler.unlink()


async def _append(imap: Imap, body: str) -> tuple[str, list[bytes]]:
    raw = f"From: jianf@{D}\r\nTo: builder+ModelRouter@{D}\r\nSubject: draft\r\n\r\n{body}"
    return await imap("append", "Drafts", None, None, raw.encode())


async def _first_login(gateway: Gateway, name: str) -> tuple[str, list[bytes]]:
    """A human's first IMAP login, which creates their folders."""
    imap = await connect(gateway)
    try:
        return await imap("login", name, PASSWORD)
    except imaplib.IMAP4.error as error:
        return "NO", [str(error).encode()]
    finally:
        with contextlib.suppress(imaplib.IMAP4.error, OSError):
            await asyncio.to_thread(imap.client.logout)


async def _submit(api: Api, body: str) -> int:
    client = await session(api, "jianf", PASSWORD)
    try:
        await client.send_message(
            message(f"jianf@{D}", f"builder+ModelRouter@{D}", "by smtp", body)
        )
    except aiosmtplib.SMTPResponseException as error:
        assert error.code == 452 and error.message.startswith("4.3.1"), error
        return error.code
    finally:
        await client.quit()
    return 250


async def test_a_full_disk_is_refused_everywhere_and_passes_by_itself(small_dir: Path) -> None:
    url = f"sqlite:///{small_dir / 'agentmail.db'}"
    async with running_gateway(url, small_dir) as gateway:
        api = Api(gateway)
        try:
            jianf = await api.human("jianf")
            builder = await api.agent("builder")
            mail = {"to": "jianf@", "subject": "big", "body": BIG}
            content = bytes(range(256)) * 400
            upload = {"file": ("data.bin", content, "application/octet-stream")}
            ok(await builder.post(AGENT_SEND, json={**mail, "subject": "small", "body": "small"}))
            await api.human("late")
            async with imap_login(gateway, "jianf") as imap, full(small_dir):
                answer = await builder.post(AGENT_SEND, json=mail)
                assert "storage is full" in refused(answer, 507, "storage_full")
                assert answer.headers["Retry-After"] == "60"
                refused(
                    await builder.post("/api/v1/attachments", files=upload), 507, "storage_full"
                )
                assert await _submit(api, BIG) == 452
                typ, data = await _append(imap, BIG)
                assert typ == "NO" and b"[OVERQUOTA]" in data[0], (typ, data)
                typ, data = await _first_login(gateway, "late")
                assert typ == "NO" and b"[OVERQUOTA]" in data[0], (typ, data)
                # Reading needs no room.
                inbox = ok(await jianf.get(f"{HUMAN_MAIL}/inbox"))
                assert [m["subject"] for m in inbox["mails"]] == ["small"]

            # Space is back: the same requests go through, on the same process.
            ok(await builder.post(AGENT_SEND, json=mail))
            attachment = ok(await builder.post("/api/v1/attachments", files=upload))
            assert await _submit(api, BIG) == 250
            async with imap_login(gateway, "jianf") as imap:
                typ, data = await _append(imap, BIG)
            assert typ == "OK", (typ, data)
            assert (await _first_login(gateway, "late"))[0] == "OK"
            download = await builder.get(f"/api/v1/attachments/{attachment['attachment_id']}")
            assert download.content == content
            inbox = ok(await jianf.get(f"{HUMAN_MAIL}/inbox"))
            assert sorted(m["subject"] for m in inbox["mails"]) == ["big", "small"]
        finally:
            await api.close()

    leftovers = [p.name for p in (small_dir / "attachments").iterdir() if p.name.startswith(".")]
    assert leftovers == []
    with contextlib.closing(sqlite3.connect(small_dir / "agentmail.db")) as db:
        assert db.execute("PRAGMA integrity_check").fetchone() == ("ok",)
        mails = db.execute("SELECT subject, length(body) FROM mails ORDER BY seq").fetchall()
        drafts = db.execute("SELECT count(*) FROM drafts").fetchone()
    # Exactly what was acknowledged: the small mail, then the two big ones and the draft.
    assert [subject for subject, _ in mails] == ["small", "big", "by smtp"]
    assert drafts == (1,)
