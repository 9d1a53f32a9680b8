"""offlineimap (Debian's offlineimap3) against the gateway: a full sync of every folder into
a Maildir, then changes on both sides, and a sync after which both sides agree.

offlineimap3 (8.0) speaks plain IMAP4rev1 with UIDPLUS: it uses no CONDSTORE or QRESYNC
(its source has neither), so every sync reads each folder's UIDs and flags whole. It is
the third real client the acceptance of the IMAP extensions names, beside mbsync and
mutt (test_imap_clients.py): the extensions must leave a client that asks for none of
them working as before.
"""

from __future__ import annotations

import asyncio
import re
import shutil
import subprocess
from pathlib import Path
from typing import Any

import httpx
import pytest

from tests.integration.test_imap_clients import maildir_files
from tests.support.gateway import Api
from tests.support.http import ok
from tests.support.imap import Imap, fetched, imap_login

pytestmark = pytest.mark.skipif(
    shutil.which("offlineimap") is None, reason="offlineimap3 (offlineimap) is not installed"
)

# Plain IMAP on loopback, where the gateway offers LOGIN and AUTHENTICATE PLAIN without
# TLS (docs/imap.md), as the mbsync and mutt tests connect. `fsync = false` because the
# Maildir is thrown away; `ui = basic` so a failure's log says what offlineimap did.
OFFLINEIMAPRC = """[general]
accounts = gateway
metadata = {root}/state
ui = basic
fsync = false

[Account gateway]
localrepository = local
remoterepository = remote

[Repository local]
type = Maildir
localfolders = {root}/mail

[Repository remote]
type = IMAP
remotehost = 127.0.0.1
remoteport = {port}
remoteuser = jianf
remotepass = {secret}
ssl = no
starttls = no
"""


class Offlineimap:
    """One account's configuration and Maildir; `sync()` runs `offlineimap -o -1` once.

    `-1` (single-threaded) because offlineimap otherwise overlaps its folders' work: a
    flag it pushes in INBOX could reach the conversation's folder (the same mail) only
    in the next run, or in this one, by the threads' timing. One thread makes each run
    the same, so one sync must leave both sides agreeing.
    """

    def __init__(self, root: Path, port: int, secret: str) -> None:
        self.maildir = root / "mail"
        self.config = root / "offlineimaprc"
        self.config.write_text(OFFLINEIMAPRC.format(root=root, port=port, secret=secret))

    async def sync(self) -> None:
        command = ["offlineimap", "-c", str(self.config), "-o", "-1"]
        done = await asyncio.to_thread(
            subprocess.run, command, capture_output=True, text=True, timeout=60
        )
        # offlineimap exits 0 after errors it logged and went past: its log says so.
        assert done.returncode == 0 and "ERROR" not in done.stdout + done.stderr, (
            done.stdout,
            done.stderr,
        )

    def files(self, folder: str) -> dict[str, Path]:
        """A local folder's message files by their Subject."""
        return {
            subject_of(path.read_bytes()): path
            for path in sorted((self.maildir / folder).glob("[cn][ue][rw]/*"))
        }

    def flags(self, folder: str) -> dict[str, str]:
        """A local folder's messages' Maildir flags (the letters after `:2,`) by Subject."""
        return {s: path.name.partition(":2,")[2] for s, path in self.files(folder).items()}


def subject_of(message: bytes) -> str:
    match = re.search(rb"^Subject: (.*?)\r?$", message, re.MULTILINE)
    assert match is not None, message[:200]
    return match.group(1).decode()


# The Maildir info letters (`:2,`) of IMAP's system flags, as offlineimap maps them.
LETTERS = {"\\Draft": "D", "\\Flagged": "F", "\\Answered": "R", "\\Seen": "S", "\\Deleted": "T"}


async def served(imap: Imap, folder: str) -> dict[str, str]:
    """What the gateway holds in a folder: each message's flags as Maildir letters, by Subject."""
    await imap.ok("select", f'"{folder}"', True)
    typ, data = await imap("uid", "FETCH", "1:*", "(FLAGS BODY.PEEK[HEADER])")
    assert typ == "OK", data
    return {
        subject_of(entry["BODY[HEADER]"]): "".join(sorted(LETTERS[flag] for flag in entry["FLAGS"]))
        for entry in fetched([item for item in data if item is not None]).values()
        if "BODY[HEADER]" in entry
    }


def flag_locally(path: Path, letter: str) -> None:
    """What a Maildir client does to flag a message: the letter added to its name."""
    base, _, flags = path.name.partition(":2,")
    path.rename(path.parent.parent / "cur" / f"{base}:2,{''.join(sorted(flags + letter))}")


async def send(client: httpx.AsyncClient, subject: str) -> dict[str, Any]:
    return ok(await client.post("/api/v1/mail/send", json={"to": "jianf@", "subject": subject}))


FOLDERS = {  # the server's name → offlineimap's (it joins levels with `.` in a Maildir)
    name: name.replace("/", ".")
    for name in (
        "INBOX",
        "Sent",
        "Drafts",
        "Archive",
        "Trash",
        "Needs decision",
        "Sessions/read-me",
        "Sessions/task",
    )
}


async def agree(api: Api, client: Offlineimap) -> dict[str, dict[str, str]]:
    """Every folder holds the same messages with the same flags on both sides."""
    assert sorted(p.name for p in client.maildir.iterdir()) == sorted(FOLDERS.values())
    both = {}
    async with imap_login(api.gateway, "jianf") as imap:
        for name, local in FOLDERS.items():
            both[name] = await served(imap, name)
            assert client.flags(local) == both[name], name
    return both


async def test_offlineimap_syncs_every_folder_and_changes_both_ways(
    api: Api, tmp_path: Path
) -> None:
    jianf = await api.human("jianf")
    builder = await api.agent("builder")
    subjects = ("read me", "flag here", "gone here", "flag there", "gone there", "untouched")
    mails = {subject: await send(builder, subject) for subject in subjects}
    task = {"to": "builder@ModelRouter", "subject": "my task", "session_alias": "task"}
    ok(await jianf.post("/api/v1/me/mail/send", json=task))
    client = Offlineimap(tmp_path, api.gateway.imap_port, await api.user_key(jianf))

    await client.sync()
    first = await agree(api, client)
    assert {name: len(held) for name, held in first.items()} == {
        "INBOX": 6,
        "Sent": 1,
        "Drafts": 0,
        "Archive": 0,
        "Trash": 0,
        "Needs decision": 0,
        "Sessions/read-me": 6,
        "Sessions/task": 1,
    }
    assert first["INBOX"] == dict.fromkeys(subjects, "")
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX", True)
        bodies = fetched(await imap.uid("FETCH", "1:*", "(BODY.PEEK[])"))
    # offlineimap writes the files with the local line ending (LF): else the served bytes.
    assert sorted(e["BODY[]"].replace(b"\r\n", b"\n") for e in bodies.values()) == sorted(
        p.read_bytes() for p in client.files("INBOX").values()
    )

    # On the server: read over REST, flagged over IMAP, deleted over REST.
    ok(await jianf.post(f"/api/v1/me/mail/{mails['read me']['mail_id']}/read"))
    ok(await jianf.post(f"/api/v1/me/mail/{mails['gone here']['mail_id']}/delete"))
    async with imap_login(api.gateway, "jianf") as imap:
        await imap.ok("select", "INBOX")
        [uid] = await imap.search_uids("SUBJECT", '"flag here"')
        await imap.uid("STORE", str(uid), "+FLAGS", "(\\Flagged)")
    # In the Maildir: one flagged, one deleted (its file removed).
    local = client.files("INBOX")
    flag_locally(local["flag there"], "F")
    local["gone there"].unlink()

    await client.sync()
    after = await agree(api, client)
    assert after["INBOX"] == {"read me": "S", "flag here": "F", "flag there": "F", "untouched": ""}
    # A delete is a move to Trash (EXPUNGE in INBOX, docs/imap.md); the conversation's
    # folder keeps every mail of the conversation, with the same flags as INBOX.
    assert sorted(after["Trash"]) == ["gone here", "gone there"]
    assert after["Sessions/read-me"] == after["INBOX"] | {"gone here": "", "gone there": ""}
    views = {s: ok(await jianf.get(f"/api/v1/me/mail/{m['mail_id']}")) for s, m in mails.items()}
    assert {s: (v["status"], v["flagged"]) for s, v in views.items()} == {
        "read me": ("read", False),
        "flag here": ("unread", True),
        "flag there": ("unread", True),
        "gone here": ("deleted", False),
        "gone there": ("deleted", False),
        "untouched": ("unread", False),
    }
    settled = maildir_files(client.maildir)
    await client.sync()
    assert maildir_files(client.maildir) == settled
