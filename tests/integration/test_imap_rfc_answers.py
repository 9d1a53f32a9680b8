"""FETCH BINARY.PEEK's reply item, and a new keyword's `* FLAGS`, as Dovecot answers them.

Dovecot 2.3 (tests/support/dovecot.py), given the same commands on the same kind of
mailbox, answered `* 1 FETCH (BINARY[1] ~{11}` to `FETCH 1 (BINARY.PEEK[1])`
(RFC 3516 §4.2: the item is BINARY; here a part without NUL goes as a plain
literal, which §4.2 recommends and imapclient reads, where Dovecot writes `~{n}`),
and sent `* FLAGS (... $Foo)` and `* OK [PERMANENTFLAGS (...)]` before the first
FETCH showing `$Foo`: to the session whose STORE added it (a silent STORE too) and
to every other session at its next command or in IDLE (RFC 3501 §7.2.6); a keyword
removed stays listed.
"""

from __future__ import annotations

import asyncio
import re
import smtplib
from email.message import EmailMessage
from pathlib import Path
from typing import Any

from imapclient import IMAPClient

from tests.support.dovecot import running_dovecot
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.raw_imap import RawImap

D = "agentmail.localhost"
ATTACHMENT = bytes(range(256)) * 2  # NUL among them
ANNOUNCED = re.compile(rb"\* FLAGS \(([^)]*)\)\r\n")


async def _two_mails(api: Api) -> None:
    alice = await api.human("alice")
    for subject in ("one", "two"):
        mail = {"to": "alice@", "subject": subject, "body": "hello world"}
        sent = await alice.post("/api/v1/me/mail/send", json=mail)
        assert sent.status_code == 200, sent.text


async def _selected(api: Api) -> RawImap:
    raw = await RawImap.open(api.gateway.imap_port)
    await raw.login("alice")
    assert (await raw.command(b"s SELECT INBOX"))[-1].startswith(b"s OK")
    return raw


def _submit_with_attachment(port: int) -> None:
    message = EmailMessage()
    message["From"], message["To"], message["Subject"] = "alice@" + D, "alice@" + D, "data"
    message.set_content("hello world\n")
    message.add_attachment(ATTACHMENT, maintype="application", subtype="octet-stream")
    with smtplib.SMTP("127.0.0.1", port, timeout=30) as client:
        client.login("alice", PASSWORD)
        client.send_message(message)


async def test_binary_peek_is_answered_as_binary(api: Api) -> None:
    await api.human("alice")
    await asyncio.to_thread(_submit_with_attachment, api.gateway.smtp_port)
    raw = await _selected(api)
    lines = await raw.command(b"f FETCH 1 (BINARY.PEEK[1] BINARY.PEEK[1]<0.5> BINARY.PEEK[2])")
    await raw.close()
    reply = b"".join(lines)
    assert b"PEEK" not in reply, reply
    # RFC 3516 §4.2: text without NUL as a plain literal, a part with NUL as a literal8.
    assert re.match(rb"\* 1 FETCH \(BINARY\[1\] \{\d+\}\r\nhello world\r\n", reply), reply
    assert b" BINARY[1]<0> {5}\r\nhello " in reply, reply
    assert b" BINARY[2] ~{%d}\r\n%b)\r\n" % (len(ATTACHMENT), ATTACHMENT) in reply

    def with_imapclient() -> dict[bytes, Any]:
        with IMAPClient("127.0.0.1", port=api.gateway.imap_port, ssl=False) as client:
            client.login("alice", PASSWORD)
            client.select_folder("INBOX")
            fetched: dict[bytes, Any] = client.fetch([1], ["BINARY.PEEK[1]", "FLAGS"])[1]
            return fetched

    fetched = await asyncio.to_thread(with_imapclient)
    assert fetched[b"BINARY[1]"].startswith(b"hello world\r\n"), fetched
    assert b"\\Seen" not in fetched[b"FLAGS"]  # a peek


def _flags_of(lines: list[bytes]) -> set[bytes] | None:
    """The flags of the `* FLAGS` line among `lines`, or None if there is none."""
    found = [ANNOUNCED.fullmatch(line) for line in lines]
    listed = [match.group(1).split() for match in found if match is not None]
    assert len(listed) <= 1, lines
    return set(listed[0]) if listed else None


def _before_every_fetch(lines: list[bytes]) -> None:
    """`* FLAGS` and then `* OK [PERMANENTFLAGS`, both ahead of the first FETCH."""
    flags = next(i for i, line in enumerate(lines) if line.startswith(b"* FLAGS "))
    assert lines[flags + 1].startswith(b"* OK [PERMANENTFLAGS ("), lines
    fetches = [i for i, line in enumerate(lines) if b" FETCH (" in line]
    assert all(flags < i for i in fetches), lines


async def test_a_new_keyword_is_announced_before_the_fetch_that_shows_it(api: Api) -> None:
    await _two_mails(api)
    one, two = await _selected(api), await _selected(api)
    try:
        stored = await one.command(b"t STORE 1 +FLAGS ($Foo)")
        assert b"$Foo" in (_flags_of(stored) or set()), stored
        _before_every_fetch(stored)
        silent = await one.command(b"t2 STORE 2 +FLAGS.SILENT ($Bar)")
        assert {b"$Foo", b"$Bar"} <= (_flags_of(silent) or set()), silent
        again = await one.command(b"t3 STORE 1 +FLAGS ($Foo \\Flagged)")
        assert _flags_of(again) is None, again  # told already

        # The other session: at its next command, ahead of the FETCH of its own command.
        fetched = await two.command(b"f FETCH 1:2 (FLAGS)")
        assert {b"$Foo", b"$Bar"} <= (_flags_of(fetched) or set()), fetched
        _before_every_fetch(fetched)

        # ... and in IDLE.
        await two.send(b"i IDLE\r\n")
        assert (await two.line()).startswith(b"+ ")
        await one.command(b"t4 UID STORE 1 +FLAGS ($Baz)")
        pushed = [await two.line()]
        while b" FETCH (" not in pushed[-1]:
            pushed.append(await two.line())
        assert b"$Baz" in (_flags_of(pushed) or set()), pushed
        _before_every_fetch(pushed)
        await two.send(b"DONE\r\n")
        assert (await two.tagged(b"i"))[-1].startswith(b"i OK")

        # Removing a keyword announces nothing: the list only grows while selected.
        removed = await one.command(b"t5 STORE 1 -FLAGS ($Baz $Foo)")
        assert _flags_of(removed) is None, removed
        assert _flags_of(await two.command(b"n NOOP")) is None
    finally:
        await one.close()
        await two.close()


# --- the same commands to Dovecot ------------------------------------------------------
# What each reply is made of, in order: `FLAGS`, `PERMANENTFLAGS`, `FETCH <items>` (the
# names of the items, values left out), the tagged status; lines of one kind in a row
# count once (Dovecot may send a FETCH twice where pymap merges them).

SCRIPT = [  # (session, command)
    (0, b"f FETCH 1 (BINARY.PEEK[1])"),
    (0, b"t STORE 1 +FLAGS ($Foo)"),
    (0, b"t2 STORE 2 +FLAGS.SILENT ($Bar)"),
    (0, b"t3 STORE 1 +FLAGS (\\Flagged)"),
    (1, b"n FETCH 1:2 (FLAGS)"),
    (0, b"t4 STORE 1 -FLAGS ($Foo)"),
    (1, b"n2 NOOP"),
]
_ITEM = re.compile(rb"([A-Z][A-Z0-9.]*(?:\[[^\]]*\])?(?:<\d+>)?) (?:\(|\{|\d|\")")
MULTIPART = (
    b"From: alice@example.org\r\nTo: alice@example.org\r\nSubject: hi\r\nMIME-Version: 1.0\r\n"
    b'Content-Type: multipart/alternative; boundary="b"\r\n\r\n--b\r\n'
    b"Content-Type: text/plain\r\n\r\nhello world\r\n--b\r\nContent-Type: text/html\r\n\r\n"
    b"<p>hello world</p>\r\n--b--\r\n"
)


_LITERAL = re.compile(rb"~?\{(\d+)\}\r\n")


def _without_literals(lines: list[bytes]) -> list[bytes]:
    """The reply's lines with each literal's octets left out (`{}` where it stood)."""
    blob, kept, at = b"".join(lines), bytearray(), 0
    while (found := _LITERAL.search(blob, at)) is not None:
        kept += blob[at : found.start()] + b"{}"
        at = found.end() + int(found.group(1))
    kept += blob[at:]
    return bytes(kept).split(b"\r\n")


def _shape(lines: list[bytes]) -> list[bytes]:
    kinds: list[bytes] = []
    for line in _without_literals(lines):
        if line.startswith(b"* FLAGS "):
            kind = b"FLAGS"
        elif line.startswith(b"* OK [PERMANENTFLAGS "):
            kind = b"PERMANENTFLAGS"
        elif re.match(rb"\* \d+ FETCH \(", line):
            items = _ITEM.findall(line, line.index(b"(") + 1)
            kind = b"FETCH " + b" ".join(sorted(set(items) - {b"UID"}))
        elif line and not line.startswith(b"*"):
            kind = line.split(b" ")[1]  # the tagged status
        else:
            continue
        if not kinds or kinds[-1] != kind:
            kinds.append(kind)
    return kinds


async def _run_script(connections: list[RawImap]) -> list[list[bytes]]:
    return [_shape(await connections[n].command(line)) for n, line in SCRIPT]


async def test_the_replies_take_dovecots_shape(tmp_path: Path) -> None:
    """The protocol alone, so on SQLite alone."""
    database = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(database, tmp_path / "data") as gateway:
        api = Api(gateway)
        await _two_mails(api)
        sessions = [await _selected(api), await _selected(api)]
        ours = await _run_script(sessions)
        for session in sessions:
            await session.close()
        await api.close()
    async with running_dovecot(tmp_path) as dovecot:
        dovecot.place("1.test", MULTIPART)
        dovecot.place("2.test", MULTIPART)
        connections = [await RawImap.dovecot(dovecot, b"INBOX") for _ in range(2)]
        theirs = await _run_script(connections)
        for connection in connections:
            await connection.close()
    assert ours == theirs, (ours, theirs)
