"""Real IMAP clients from Debian against the gateway: curl and mbsync (isync)."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
from pathlib import Path

import pytest

from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok
from tests.support.imap import fetched, imap_login


async def curl(api: Api, path: str, secret: str = PASSWORD) -> bytes:
    url = f"imap://127.0.0.1:{api.gateway.imap_port}/{path}"
    command = ["curl", "--silent", "--show-error", "--max-time", "15", "--user", f"jianf:{secret}"]
    done = await asyncio.to_thread(subprocess.run, [*command, url], capture_output=True)
    assert done.returncode == 0, done.stderr
    return done.stdout


@pytest.mark.skipif(shutil.which("curl") is None, reason="curl is not installed")
async def test_curl_lists_searches_and_fetches(api: Api) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    body = {"to": "jianf@", "subject": "for curl", "body": "fetched by curl"}
    ok(await builder.post("/api/v1/mail/send", json=body))
    key = await api.user_key(jianf)
    listing = await curl(api, "", key)
    assert b'(\\HasNoChildren \\Sent) "/" Sent' in listing
    assert b'"/" Sessions/for-curl' in listing
    assert await curl(api, "INBOX?SUBJECT%20curl") == b"* SEARCH 1\r\n"
    served = await curl(api, "INBOX;UID=1")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        [entry] = fetched(await imap.uid("FETCH", "1", "(BODY.PEEK[])")).values()
    assert served == entry["BODY[]"]
    assert b"fetched by curl" in served


MBSYNCRC = """IMAPAccount gateway
Host 127.0.0.1
Port {port}
User jianf
Pass {password}
SSLType None
AuthMechs PLAIN

IMAPStore remote
Account gateway

MaildirStore local
Path {maildir}/
Inbox {maildir}/INBOX
SubFolders Verbatim

Channel gateway
Far :remote:
Near :local:
Patterns *
Create Near
Sync Pull
Expunge None
SyncState *
"""


def maildir_files(root: Path) -> dict[str, bytes]:
    """Every message file under the maildir, by folder and name, with its content."""
    return {
        str(path.relative_to(root)): path.read_bytes()
        for path in sorted(root.rglob("*"))
        if path.is_file() and path.parent.name in ("cur", "new")
    }


@pytest.mark.skipif(shutil.which("mbsync") is None, reason="isync (mbsync) is not installed")
async def test_mbsync_pulls_every_mailbox_and_a_second_sync_changes_nothing(
    api: Api, tmp_path: Path
) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    for n in range(3):
        body = {"to": "jianf@", "subject": f"pulled {n}", "body": f"mail {n}"}
        ok(await builder.post("/api/v1/mail/send", json=body))
    task = {"to": "builder@ModelRouter", "subject": "my task", "session_alias": "task"}
    ok(await jianf.post("/api/v1/me/mail/send", json=task))
    maildir = tmp_path / "mail"
    maildir.mkdir()
    config = tmp_path / "mbsyncrc"
    config.write_text(
        MBSYNCRC.format(port=api.gateway.imap_port, password=PASSWORD, maildir=maildir)
    )

    async def sync() -> None:
        command = ["mbsync", "--config", str(config), "--all"]
        done = await asyncio.to_thread(subprocess.run, command, capture_output=True, timeout=60)
        assert done.returncode == 0, (done.stdout, done.stderr)

    await sync()
    first = maildir_files(maildir)
    folders = {name.split("/")[0] for name in first}
    assert folders == {"INBOX", "Sent", "Sessions"}, folders
    per_folder: dict[str, int] = {}
    for name in first:
        folder = name.rsplit("/", 2)[0]
        per_folder[folder] = per_folder.get(folder, 0) + 1
    assert per_folder == {"INBOX": 3, "Sent": 1, "Sessions/pulled-0": 3, "Sessions/task": 1}
    assert (maildir / "Archive").is_dir() and (maildir / "Needs decision").is_dir()
    await sync()
    assert maildir_files(maildir) == first
