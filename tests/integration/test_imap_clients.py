"""Real IMAP clients from Debian against the gateway: curl, mbsync (isync), mutt in tmux."""

from __future__ import annotations

import asyncio
import shutil
import subprocess
import uuid
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.test_imap_fetch import D, submit, submitted_with_attachment
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


MUTTRC = """set folder="imap://jianf@127.0.0.1:{port}/"
set spoolfile="+INBOX"
set imap_pass="{password}"
set imap_idle=yes
set timeout=1
set ssl_starttls=no
set ssl_force_tls=no
set record=""
set move=no
set header_cache=""
set message_cachedir=""
set sort=date
set wait_key=no
"""


class Terminal:
    """A program running in its own tmux server (its own socket), read off the screen."""

    def __init__(self, name: str) -> None:
        # Unique per run: tmux sockets are per user, and concurrent runs (another
        # checkout's test) with one name shared one server and killed each other's.
        self.socket = name

    def tmux(self, *args: str) -> str:
        done = subprocess.run(["tmux", "-L", self.socket, *args], capture_output=True, text=True)
        assert done.returncode == 0, done.stderr
        return done.stdout

    async def start(self, command: str) -> None:
        await asyncio.to_thread(self.tmux, "new-session", "-d", "-x", "160", "-y", "40", command)

    async def keys(self, *keys: str) -> None:
        await asyncio.to_thread(self.tmux, "send-keys", *keys)

    async def shows(self, text: str, timeout: float = 15.0) -> str:
        screen = ""
        for _ in range(int(timeout / 0.2)):
            screen = await asyncio.to_thread(self.tmux, "capture-pane", "-p")
            if text in screen:
                return screen
            await asyncio.sleep(0.2)
        raise AssertionError(f"{text!r} never showed up on:\n{screen}")

    async def stop(self) -> None:
        await asyncio.to_thread(subprocess.run, ["tmux", "-L", self.socket, "kill-server"])


@pytest.mark.skipif(
    shutil.which("mutt") is None or shutil.which("tmux") is None, reason="needs mutt and tmux"
)
async def test_mutt_shows_pushed_mail_and_opens_an_attachment(api: Api, tmp_path: Path) -> None:
    await api.human("jianf")
    await api.human("bob")
    builder = await api.agent("builder")
    ok(await builder.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "first mail"}))
    config = tmp_path / "muttrc"
    config.write_text(MUTTRC.format(port=api.gateway.imap_port, password=PASSWORD))
    terminal = Terminal(f"agentmail-test-{uuid.uuid4().hex[:12]}")
    await terminal.start(f"TERM=xterm mutt -n -F {config}")
    try:
        await terminal.shows("first mail")
        ok(await builder.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "pushed mail"}))
        await terminal.shows("pushed mail")  # IDLE told mutt; nobody reopened the box
        await submit(api, submitted_with_attachment())
        await terminal.shows("Report with data")
        await terminal.keys("3", "Enter")  # jump to message 3
        await terminal.keys("Enter")  # open it
        screen = await terminal.shows("data.bin")
        assert "Numbers attached." in screen
        assert "application/octet-stream" in screen
    finally:
        await terminal.stop()


async def changed(jianf: httpx.AsyncClient, mail: dict[str, Any], field: str, value: Any) -> bool:
    """Whether the mail's REST view shows `field == value` within a few seconds."""
    for _ in range(75):
        if ok(await jianf.get(f"/api/v1/me/mail/{mail['mail_id']}"))[field] == value:
            return True
        await asyncio.sleep(0.2)
    return False


@pytest.mark.skipif(
    shutil.which("mutt") is None or shutil.which("tmux") is None, reason="needs mutt and tmux"
)
async def test_mutt_flags_and_deletes_to_trash(api: Api, tmp_path: Path) -> None:
    """mutt's `F` and `d` + `$` (sync) with `trash` set: \\Flagged kept, the mail in Trash."""
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    send = "/api/v1/mail/send"
    keep = ok(await builder.post(send, json={"to": "jianf@", "subject": "keep me"}))
    gone = ok(await builder.post(send, json={"to": "jianf@", "subject": "delete me"}))
    config = tmp_path / "muttrc"
    extra = 'set trash="+Trash"\nset delete=yes\n'
    config.write_text(MUTTRC.format(port=api.gateway.imap_port, password=PASSWORD) + extra)
    terminal = Terminal(f"agentmail-test-{uuid.uuid4().hex[:12]}")
    await terminal.start(f"TERM=xterm mutt -n -F {config}")
    try:
        await terminal.shows("delete me")
        await terminal.keys("1", "Enter", "F")  # flag message 1
        await terminal.keys("2", "Enter", "d")  # delete message 2
        await terminal.keys("$")  # one sync: COPY to Trash, STORE the flags, EXPUNGE
        assert await changed(jianf, gone, "status", "deleted")
        assert await changed(jianf, keep, "flagged", True)
        await terminal.shows("keep me")
    finally:
        await terminal.stop()
    assert ok(await jianf.get(f"/api/v1/me/mail/{keep['mail_id']}"))["flagged"] is True
    trash = ok(await jianf.get("/api/v1/me/mail/inbox", params={"status": "deleted"}))
    assert [m["mail_id"] for m in trash["mails"]] == [gone["mail_id"]]


@pytest.mark.skipif(shutil.which("mbsync") is None, reason="isync (mbsync) is not installed")
async def test_mbsync_pushes_flags_deletes_and_drafts(api: Api, tmp_path: Path) -> None:
    """`Sync All` + `Expunge Both`: a local flag, a local delete (moved to Trash, not
    destroyed) and a new local draft reach the gateway."""
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    send = "/api/v1/mail/send"
    keep = ok(await builder.post(send, json={"to": "jianf@", "subject": "keep me"}))
    gone = ok(await builder.post(send, json={"to": "jianf@", "subject": "delete me"}))
    maildir = tmp_path / "mail"
    maildir.mkdir()
    config = tmp_path / "mbsyncrc"
    settings = MBSYNCRC.format(port=api.gateway.imap_port, password=PASSWORD, maildir=maildir)
    settings = settings.replace("Patterns *", "Patterns INBOX Trash Drafts")
    config.write_text(
        settings.replace("Sync Pull", "Sync All").replace("Expunge None", "Expunge Both")
    )

    async def sync() -> None:
        command = ["mbsync", "--config", str(config), "--all"]
        done = await asyncio.to_thread(subprocess.run, command, capture_output=True, timeout=60)
        assert done.returncode == 0, (done.stdout, done.stderr)

    await sync()
    files = {
        subject: path
        for path in (maildir / "INBOX").rglob("*")
        if path.is_file()
        for subject in ("keep me", "delete me")
        if f"Subject: {subject}".encode() in path.read_bytes()
    }
    assert set(files) == {"keep me", "delete me"}
    for subject, flag in (("keep me", "F"), ("delete me", "T")):  # flagged; trashed
        path = files[subject]
        base = path.name.split(":2,")[0]
        path.rename(path.parent.parent / "cur" / f"{base}:2,{flag}")
    draft = f"From: jianf@{D}\r\nTo: bob@{D}\r\nSubject: from mbsync\r\n\r\nlater\r\n"
    (maildir / "Drafts" / "cur" / "1.local.draft:2,DS").write_text(draft)
    await sync()
    assert ok(await jianf.get(f"/api/v1/me/mail/{keep['mail_id']}"))["flagged"] is True
    assert ok(await jianf.get(f"/api/v1/me/mail/{gone['mail_id']}"))["status"] == "deleted"
    drafts = ok(await jianf.get("/api/v1/me/drafts", params={"include_body": True}))["drafts"]
    assert [(d["subject"], d["to"], d["body"]) for d in drafts] == [
        ("from mbsync", "bob@", "later\n")
    ]
    await sync()  # the deleted mail comes back from Trash
    settled = maildir_files(maildir)
    assert sum(name.startswith("Trash/") for name in settled) == 1
    await sync()
    assert maildir_files(maildir) == settled
