"""What a STORE leaves when another session changed the flags first, as Dovecot leaves it.

Two sessions of one user on one message, on the gateway and on Dovecot 2.3
(tests/support/dovecot.py) alike. The second changes the message's flags and keywords;
the first, which has not looked since, stores with FLAGS, +FLAGS and -FLAGS. Dovecot
applies each STORE to the flags the message has (RFC 3501 §6.4.6: FLAGS replaces
them, +FLAGS adds, -FLAGS removes), not to those the session last saw: the flags every
FETCH then shows must be the same on both servers.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.dovecot import running_dovecot
from tests.support.gateway import Api, running_gateway
from tests.support.raw_imap import RawImap

SCRIPT = [  # (session, command): session 0 never looks between its STOREs
    (0, b"f0 FETCH 1 (FLAGS)"),
    (1, b"b1 STORE 1 +FLAGS.SILENT (\\Answered $Foo)"),
    (0, b"a1 STORE 1 FLAGS.SILENT (\\Seen)"),  # replaces what session 1 added too
    (0, b"f1 FETCH 1 (FLAGS)"),
    (1, b"b2 STORE 1 -FLAGS.SILENT (\\Seen)"),
    (0, b"a2 STORE 1 +FLAGS.SILENT (\\Seen)"),  # the session still sees it \\Seen
    (0, b"f2 FETCH 1 (FLAGS)"),
    (1, b"b3 STORE 1 +FLAGS.SILENT ($Bar \\Flagged)"),
    (0, b"a3 STORE 1 -FLAGS.SILENT (\\Flagged)"),  # the session does not see it \\Flagged
    (0, b"f3 FETCH 1 (FLAGS)"),
    (1, b"f4 FETCH 1 (FLAGS)"),
]
_FLAGS = re.compile(rb"\* 1 FETCH \(.*?FLAGS \(([^)]*)\)")
BODY = b"From: alice@example.org\r\nTo: alice@example.org\r\nSubject: flags\r\n\r\nhello\r\n"


def _flags(reply: list[bytes]) -> frozenset[bytes]:
    """The flags the last `* 1 FETCH` line of a reply shows (\\Recent left out)."""
    found = [_FLAGS.search(line) for line in reply]
    shown = [match.group(1) for match in found if match is not None]
    assert shown, reply
    return frozenset(shown[-1].split()) - {b"\\Recent"}


async def _run(sessions: list[RawImap]) -> list[frozenset[bytes]]:
    seen = []
    for number, line in SCRIPT:
        reply = await sessions[number].command(line)
        assert reply[-1].split(b" ")[1] == b"OK", reply
        if line.split(b" ")[1] == b"FETCH":
            seen.append(_flags(reply))
    return seen


async def test_a_store_changes_the_flags_the_message_has(tmp_path: Path) -> None:
    """The protocol alone, so on SQLite alone."""
    async with running_gateway(f"sqlite:///{tmp_path / 'agentmail.db'}", tmp_path / "data") as gw:
        api = Api(gw)
        alice = await api.human("alice")
        mail = {"to": "alice@", "subject": "flags", "body": "hello"}
        assert (await alice.post("/api/v1/me/mail/send", json=mail)).status_code == 200
        sessions = []
        for _ in range(2):
            raw = await RawImap.open(gw.imap_port)
            await raw.login("alice")
            assert (await raw.command(b"s SELECT INBOX"))[-1].startswith(b"s OK")
            sessions.append(raw)
        ours = await _run(sessions)
        for raw in sessions:
            await raw.close()
        await api.close()
    async with running_dovecot(tmp_path) as dovecot:
        dovecot.place("1.test:2,", BODY)
        connections = [await RawImap.dovecot(dovecot, b"INBOX") for _ in range(2)]
        theirs = await _run(connections)
        for raw in connections:
            await raw.close()
    assert ours == theirs, (ours, theirs)
