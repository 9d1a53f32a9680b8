"""`\\Recent` (RFC 3501 §2.3.2, §7.3.2 RECENT, §6.4.4 SEARCH NEW/OLD/RECENT) as Dovecot
2.3 keeps it, replayed on both servers and compared (Dovecot's answer is the oracle).

Three sessions of one person: mail arrives by APPEND (from a session with the folder
selected, with it examined, with nothing selected), by COPY and by MOVE; sessions
SELECT, EXAMINE, ask STATUS, NOOP, FETCH FLAGS, SEARCH, STORE and EXPUNGE. What each
reply says of messages and flags (EXISTS, RECENT, EXPUNGE, FETCH FLAGS, SEARCH, STATUS,
UNSEEN, the tagged status) must be the same on the gateway and on Dovecot; the
script's comments say what Dovecot answers. Then what the script cannot show on
Dovecot: mail delivered to a person is new in INBOX and in its conversation's folder
alike, and an IDLE session is told `* n RECENT` with the EXISTS.
"""

from __future__ import annotations

import asyncio
import re
from pathlib import Path

import httpx
import pytest

from tests.support.dovecot import running_dovecot
from tests.support.gateway import Api
from tests.support.http import ok
from tests.support.raw_imap import RawImap

D = "agentmail.localhost"
MAIL = (
    f"From: stranger@example.org\r\nTo: alice@{D}\r\nSubject: hello\r\n"
    "Message-ID: <{n}@example.org>\r\n\r\nhello\r\n"
)
Step = tuple[int, bytes]  # (session, command); APPEND's message follows as a literal
Transcript = list[tuple[int, str, list[str]]]  # (session, command, what its reply said)

SCRIPT: list[Step] = [
    (0, b"CREATE Box2"),
    (0, b"APPEND INBOX"),
    (0, b"APPEND INBOX"),
    (1, b"EXAMINE INBOX"),  # 2 RECENT: counted, not claimed
    (1, b"FETCH 1:* (FLAGS)"),  # \Recent in the examining session
    (1, b"SEARCH RECENT"),
    (2, b"STATUS INBOX (MESSAGES RECENT UNSEEN)"),  # RECENT 2
    (0, b"SELECT INBOX"),  # 2 RECENT: claimed
    (0, b"FETCH 1:* (FLAGS)"),
    (0, b"SEARCH NEW"),
    (0, b"SEARCH OLD"),
    (1, b"NOOP"),
    (1, b"FETCH 1:* (FLAGS)"),  # still \Recent for the examining session
    (2, b"STATUS INBOX (RECENT)"),  # RECENT 0
    (2, b"SELECT INBOX"),  # 0 RECENT: the first SELECT had them
    (2, b"FETCH 1:* (FLAGS)"),
    (0, b"STATUS INBOX (RECENT)"),  # the selected mailbox: this session's 2
    (1, b"APPEND INBOX"),  # to the examining session: 3 EXISTS, 3 RECENT
    (2, b"NOOP"),  # 3 EXISTS, 1 RECENT: the first read-write session to see it
    (0, b"NOOP"),  # 3 EXISTS only
    (0, b"FETCH 1:* (FLAGS)"),
    (2, b"FETCH 1:* (FLAGS)"),
    (0, b"APPEND INBOX"),  # into its own selected folder: 4 EXISTS, 3 RECENT
    (0, b"STORE 2 +FLAGS (\\Seen)"),
    (0, b"SEARCH NEW"),  # 1 4
    (0, b"SEARCH OLD"),  # 3
    (0, b"SEARCH RECENT SEEN"),  # 2
    (0, b"STORE 1 +FLAGS (\\Deleted)"),
    (0, b"EXPUNGE"),  # 1 EXPUNGE, 2 RECENT
    (2, b"NOOP"),  # 1 EXPUNGE, 3 EXISTS
    (1, b"SELECT Box2"),
    (2, b"EXAMINE Box2"),
    (0, b"MOVE 1 Box2"),  # 1 EXPUNGE, 1 RECENT
    (2, b"NOOP"),  # the examining session first: 1 EXISTS, 1 RECENT
    (1, b"NOOP"),  # 1 EXISTS, 1 RECENT: claimed
    (2, b"FETCH 1:* (FLAGS)"),
    (1, b"FETCH 1:* (FLAGS)"),
    (0, b"COPY 2 Box2"),
    (1, b"NOOP"),  # the selecting session first: 2 EXISTS, 2 RECENT
    (2, b"NOOP"),  # 2 EXISTS only: claimed already
    (2, b"FETCH 1:* (FLAGS)"),
    (0, b"STATUS Box2 (MESSAGES RECENT UNSEEN)"),  # RECENT 0
    (1, b"CLOSE"),
    (0, b"UNSELECT"),
    (0, b"APPEND Box2"),
    (0, b"STATUS Box2 (MESSAGES RECENT UNSEEN)"),  # RECENT 1
    (0, b"EXAMINE Box2"),  # 1 RECENT
    (0, b"FETCH 1:* (FLAGS)"),
    (0, b"SELECT Box2"),  # 1 RECENT: claimed
    (0, b"SEARCH RECENT"),
    (0, b"SELECT Box2"),  # 0 RECENT
    (0, b"SEARCH RECENT"),
    (2, b"NOOP"),  # 3 EXISTS only
    (2, b"SEARCH RECENT"),
]

_COUNT = re.compile(rb"\* (\d+) (EXISTS|RECENT|EXPUNGE)\r\n", re.I)
_FLAGS = re.compile(rb"\* (\d+) FETCH \(.*FLAGS \(([^)]*)\)", re.I)
_STATUS = re.compile(rb"\* STATUS \S+ \(([^)]*)\)", re.I)
_KEPT = re.compile(rb"\* (SEARCH[^\r]*|OK \[UNSEEN \d+\])[^\r]*\r\n", re.I)


def _said(command: bytes, lines: list[bytes]) -> list[str]:
    """What a reply says of messages and flags, in order. FETCH lines only in a FETCH's
    or STORE's reply: the gateway also sends the FLAGS of new messages unasked."""
    verb = command.split(b" ", 1)[0].upper()
    said = []
    for line in lines:
        if found := _COUNT.fullmatch(line):
            said.append(f"* {int(found[1])} {found[2].decode().upper()}")
        elif (found := _FLAGS.match(line)) and verb in (b"FETCH", b"STORE"):
            flags = sorted(found[2].decode().lower().split())
            said.append(f"* {int(found[1])} FLAGS {' '.join(flags)}")
        elif found := _STATUS.match(line):
            words = found[1].decode().upper().split()
            pairs = sorted(zip(words[::2], words[1::2], strict=True))
            said.append("* STATUS " + " ".join(f"{item} {value}" for item, value in pairs))
        elif found := _KEPT.fullmatch(line):
            said.append("* " + found[1].decode().upper().rstrip())
        elif not line.startswith(b"*"):
            said.append(line.split(b" ")[1].decode().upper())  # the tagged status
    return said


async def _run(sessions: list[RawImap]) -> Transcript:
    transcript = []
    for n, (who, command) in enumerate(SCRIPT):
        tag = b"r%d" % n
        if command.startswith(b"APPEND "):
            literal = MAIL.replace("{n}", str(n)).encode()
            await sessions[who].send(
                b"%s %s {%d+}\r\n%s\r\n" % (tag, command, len(literal), literal)
            )
            lines = await sessions[who].tagged(tag)
        else:
            lines = await sessions[who].command(tag + b" " + command)
        transcript.append((who, command.decode(), _said(command, lines)))
    return transcript


async def _dovecot_transcript(workdir: Path) -> Transcript:
    async with running_dovecot(workdir) as dovecot:
        sessions = [await RawImap.dovecot(dovecot) for _ in range(3)]
        try:
            return await _run(sessions)
        finally:
            for raw in sessions:
                await raw.close()


@pytest.fixture(scope="module")
def dovecots(tmp_path_factory: pytest.TempPathFactory) -> Transcript:
    """Dovecot's answers, once for both databases' runs (on a loop of its own)."""
    return asyncio.run(_dovecot_transcript(tmp_path_factory.mktemp("dovecot")))


async def test_recent_is_dovecots(api: Api, dovecots: Transcript) -> None:
    await api.human("alice")
    sessions = [await RawImap.open(api.gateway.imap_port) for _ in range(3)]
    try:
        for raw in sessions:
            await raw.login("alice")
        ours = await _run(sessions)
    finally:
        for raw in sessions:
            await raw.close()
    for mine, dovecot in zip(ours, dovecots, strict=True):
        assert mine == dovecot, (mine, dovecot)
    said = {(who, command): lines for who, command, lines in ours}  # a few, spelled out
    assert said[1, "EXAMINE INBOX"][:2] == ["* 2 EXISTS", "* 2 RECENT"]
    assert said[2, "STATUS INBOX (RECENT)"] == ["* STATUS RECENT 0", "OK"]
    assert said[2, "SELECT INBOX"][:2] == ["* 2 EXISTS", "* 0 RECENT"]
    assert said[0, "MOVE 1 Box2"] == ["* 1 EXPUNGE", "* 1 RECENT", "OK"]


async def _send(agent: httpx.AsyncClient, subject: str, **where: str) -> str:
    """An agent's mail to alice in the conversation `chat`; its conversation's id."""
    mail = {"to": "alice@", "subject": subject, "body": "x", **(where or {"session_alias": "chat"})}
    conversation: str = ok(await agent.post("/api/v1/mail/send", json=mail))["session_id"]
    return conversation


async def test_delivered_mail_is_new_in_each_folder_and_idle_is_told(api: Api) -> None:
    await api.human("alice")
    builder = await api.agent("builder")
    chat = await _send(builder, "first")
    raw = await RawImap.open(api.gateway.imap_port)
    try:
        await raw.login("alice")
        for folder in (b"INBOX", b"Sessions/chat"):  # one claim in each folder
            selected = await raw.command(b"s SELECT " + folder)
            assert b"* 1 RECENT\r\n" in selected, selected
        selected = await raw.command(b"s SELECT INBOX")
        assert b"* 0 RECENT\r\n" in selected, selected
        await raw.send(b"i IDLE\r\n")
        assert (await raw.line()).startswith(b"+ ")
        await _send(builder, "second", session_id=chat)
        told = [await raw.line()]
        while not told[-1].endswith(b" RECENT\r\n"):
            told.append(await raw.line())
        assert told[-2:] == [b"* 2 EXISTS\r\n", b"* 1 RECENT\r\n"], told
        await raw.send(b"DONE\r\n")
        assert (await raw.tagged(b"i"))[-1].startswith(b"i OK")
        searched = await raw.command(b"n SEARCH NEW")
        assert searched[0] == b"* SEARCH 2\r\n", searched
        status = await raw.command(b't STATUS "Sessions/chat" (RECENT)')
        assert b"(RECENT 1)" in status[0], status  # claimed by no one there yet
    finally:
        await raw.close()
