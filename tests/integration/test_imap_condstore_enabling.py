"""The command that switches CONDSTORE on while a mailbox is selected starts its reply
with `* OK [HIGHESTMODSEQ n]` (RFC 7162 §3.1.2.1), as Dovecot 2.3 answers it.

Each enabling command (RFC 7162 §3.1: FETCH MODSEQ, FETCH CHANGEDSINCE, SEARCH MODSEQ
and its ESEARCH form, STORE UNCHANGEDSINCE, STATUS HIGHESTMODSEQ, and ENABLE CONDSTORE in
the selected state) runs first in a session of its own, then `FETCH 1 (MODSEQ)` after
it, on the gateway and on Dovecot (tests/support/dovecot.py) with two messages each:
both put the line first in the enabling command's reply and in no later one
(imaptest's esearch-condstore found it missing). The gateway's value is its SELECT's.
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.dovecot import running_dovecot
from tests.support.gateway import PASSWORD, Api
from tests.support.imap_values import read_response
from tests.support.raw_imap import RawImap

MESSAGE = b"From: alice@example.org\r\nSubject: hi\r\n\r\nhello\r\n"
ENABLING = [
    b"FETCH 1 (MODSEQ)",
    b"UID FETCH 1:* (FLAGS) (CHANGEDSINCE 1)",
    b"SEARCH MODSEQ 1",
    b"UID SEARCH RETURN (ALL) MODSEQ 1",
    b"STORE 1 (UNCHANGEDSINCE 1000000) +FLAGS (\\Flagged)",
    b"STATUS INBOX (HIGHESTMODSEQ)",
    b"ENABLE CONDSTORE",
]
_HIGHEST = re.compile(rb"^\* OK \[HIGHESTMODSEQ (\d+)\]", re.M)


class _Session:
    def __init__(self, raw: RawImap) -> None:
        self.raw, self.n = raw, 0

    async def command(self, line: bytes) -> bytes:
        self.n += 1
        tag = b"c%d" % self.n
        await self.raw.send(tag + b" " + line + b"\r\n")
        reply = await read_response(self.raw.reader, tag)
        assert reply[reply.rindex(tag + b" ") :].startswith(tag + b" OK"), (line, reply)
        return reply


async def _session(port: int, user: str, password: str) -> _Session:
    session = _Session(await RawImap.open(port))
    await session.command(b'LOGIN "%s" "%s"' % (user.encode(), password.encode()))
    return session


def _announced(reply: bytes) -> list[int]:
    """Where the reply's HIGHESTMODSEQ lines stand among its untagged lines."""
    lines = [line for line in reply.split(b"\r\n") if line.startswith(b"* ")]
    return [at for at, line in enumerate(lines) if _HIGHEST.match(line)]


async def _shapes(port: int, user: str, password: str) -> list[tuple[list[int], list[int]]]:
    """Per enabling command: where its reply, and the next command's, announce."""
    shapes = []
    for line in ENABLING:
        session = await _session(port, user, password)
        selected = await session.command(b"SELECT INBOX")
        enabled = await session.command(line)
        after = await session.command(b"FETCH 1 (MODSEQ)")
        shapes.append((_announced(enabled), _announced(after)))
        at_select, told = _HIGHEST.search(selected), _HIGHEST.search(enabled)
        if at_select is not None:  # the gateway's SELECT always says it; Dovecot's not yet
            assert told is not None and told.group(1) == at_select.group(1), (selected, enabled)
        await session.raw.close()
    return shapes


async def test_the_enabling_command_announces_highestmodseq_as_dovecot(
    api: Api, tmp_path: Path
) -> None:
    await api.human("alice")
    setup = await _session(api.gateway.imap_port, "alice", PASSWORD)
    for _ in range(2):
        await setup.command(b"APPEND INBOX {%d+}\r\n" % len(MESSAGE) + MESSAGE)
    await setup.raw.close()
    ours = await _shapes(api.gateway.imap_port, "alice", PASSWORD)
    async with running_dovecot(tmp_path / "dovecot", plaintext=True) as dovecot:
        setup = await _session(dovecot.port, dovecot.user, dovecot.password)
        for _ in range(2):
            await setup.command(b"APPEND INBOX {%d+}\r\n" % len(MESSAGE) + MESSAGE)
        await setup.raw.close()
        theirs = await _shapes(dovecot.port, dovecot.user, dovecot.password)
    assert ours == theirs == [([0], [])] * len(ENABLING), (ours, theirs)
