"""LIST's SUBSCRIBED selection, RECURSIVEMATCH's CHILDINFO (RFC 5258 §3.1, §3.5) and
LSUB after CREATE, as Dovecot 2.3 answers them (imaptest's listext found the gateway
marking a parent `\\Subscribed` that only a child of it was).

The same folders are made and subscribed on the gateway and on Dovecot
(tests/support/dovecot.py; its hierarchy delimiter is `.`, the gateway's `/`), then
each command below is asked of both: every reply names the same folders, each with
`\\Subscribed` or not and CHILDINFO or not alike. A folder CREATE made is not
subscribed until SUBSCRIBE (RFC 3501 §6.3.3 subscribes nothing).
"""

from __future__ import annotations

import re
from pathlib import Path

from tests.support.dovecot import running_dovecot
from tests.support.gateway import PASSWORD, Api
from tests.support.imap_values import read_response
from tests.support.raw_imap import RawImap

# imaptest's listext tree: `box` is created, some of the names below it subscribed.
CREATED = ["box", "box/a", "box/b/c", "box/d", "box/e/f", "box/e/fg", "box/g", "box/h/h",
           "box/i/i", "box/i/j", "box/k", "box/k/l"]  # fmt: skip
SUBSCRIBED = ["box/a", "box/b/c", "box/g", "box/h/h", "box/i/i", "box/i/j", "box/k", "box/k/l"]
DELETED = ["box/g"]  # subscribed, then deleted: listed `\NonExistent \Subscribed`
ASKED = [
    b'LIST (SUBSCRIBED) "" box/*',
    b'LIST (SUBSCRIBED) "" box/%',
    b'LIST (SUBSCRIBED RECURSIVEMATCH) "" box/b% RETURN (CHILDREN)',
    b'LIST (SUBSCRIBED RECURSIVEMATCH) "" box/%',
    b'LIST (SUBSCRIBED RECURSIVEMATCH) "" box/*',
    b'LIST (SUBSCRIBED RECURSIVEMATCH) "" box*h',
    b'LIST (SUBSCRIBED RECURSIVEMATCH) "" box*i',
    b'LIST (SUBSCRIBED RECURSIVEMATCH) "" (box/b)',
    b'LIST (SUBSCRIBED RECURSIVEMATCH) "" (box/b box/b/c)',
    b'LIST "" box/% RETURN (CHILDREN SUBSCRIBED)',
    b'LIST "" box/* RETURN (SUBSCRIBED)',
    b'LSUB "" box/*',
    b'LSUB "" box/%',
]
_LINE = re.compile(rb'^\* (LIST|LSUB) \(([^)]*)\) "(?:[^"]*)" ("?)(.+?)\3( \(.*\))?$')


class _Session:
    def __init__(self, raw: RawImap, delimiter: bytes) -> None:
        self.raw, self.delimiter, self.n = raw, delimiter, 0

    async def command(self, line: bytes) -> list[bytes]:
        self.n += 1
        tag = b"c%d" % self.n
        await self.raw.send(tag + b" " + line.replace(b"/", self.delimiter) + b"\r\n")
        reply = (await read_response(self.raw.reader, tag)).split(b"\r\n")
        assert reply[-2].startswith(tag + b" OK"), (line, reply)
        return reply[:-2]


def _selected(reply: list[bytes], delimiter: bytes) -> dict[bytes, tuple[bool, bool]]:
    """Each listed name (with `/` between levels): (`\\Subscribed`, CHILDINFO)."""
    found = {}
    for line in reply:
        match = _LINE.match(line)
        assert match is not None, line
        attributes, name, extended = match.group(2), match.group(4), match.group(5) or b""
        found[name.replace(delimiter, b"/")] = (
            b"\\subscribed" in attributes.lower(),
            b"childinfo" in extended.lower(),
        )
    return found


async def _answers(port: int, user: str, password: str, delimiter: bytes) -> list[object]:
    session = _Session(await RawImap.open(port), delimiter)
    await session.command(b'LOGIN "%s" "%s"' % (user.encode(), password.encode()))
    for name in CREATED:
        await session.command(b"CREATE " + name.encode())
    created = _selected(await session.command(b'LSUB "" box*'), delimiter)
    for name in SUBSCRIBED:
        await session.command(b"SUBSCRIBE " + name.encode())
    for name in DELETED:
        await session.command(b"DELETE " + name.encode())
    answers: list[object] = [created]
    for line in ASKED:
        answers.append(_selected(await session.command(line), delimiter))
    await session.raw.close()
    return answers


async def test_subscribed_selection_answers_as_dovecot(api: Api, tmp_path: Path) -> None:
    await api.human("alice")
    ours = await _answers(api.gateway.imap_port, "alice", PASSWORD, b"/")
    async with running_dovecot(tmp_path / "dovecot", plaintext=True) as dovecot:
        theirs = await _answers(dovecot.port, dovecot.user, dovecot.password, b".")
    assert ours[0] == {}, ours[0]  # CREATE subscribes nothing
    for line, mine, dovecots in zip([b"LSUB", *ASKED], ours, theirs, strict=True):
        assert mine == dovecots, (line, mine, dovecots)
