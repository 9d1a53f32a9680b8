"""IMAP command lines replayed on a raw session, each checked for a well-formed answer.

The fuzz suites (tests/integration/test_imap_fuzz.py, test_imap_sort_fuzz.py) send
lines a client would never send and require, for every one, its tagged reply (OK, NO
or BAD) or a deliberate `BYE`, never `SERVERBUG` or a silent close, and a NOOP that
works after it; with a liveness baseline, the whole gateway is checked alive after
every line (tests/support/liveness.py).
"""

from __future__ import annotations

import re
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager

from gateway.server import Gateway
from tests.support.gateway import PASSWORD
from tests.support.liveness import Baseline, assert_alive
from tests.support.raw_lines import RawConnection, raw_connection

__all__ = ["TAG", "imap_session", "replay", "well_answered"]

TAG = b"F1"
_SYNCHRONIZING = re.compile(rb"\{\d+\}\r\n")


@asynccontextmanager
async def imap_session(
    gateway: Gateway, *, login: bool, mailbox: bytes = b"INBOX"
) -> AsyncIterator[RawConnection]:
    """A raw session, logged in as alice with `mailbox` selected when `login`."""
    async with raw_connection(gateway.imap_port) as imap:
        assert (await imap.line()).startswith(b"* OK")
        if login:
            assert (await imap.imap(b"L", b"L LOGIN alice " + PASSWORD.encode() + b"\r\n"))[
                -1
            ].startswith(b"L OK")
            selected = await imap.imap(b"S", b"S SELECT " + mailbox + b"\r\n")
            assert selected[-1].startswith(b"S OK"), selected
        yield imap


def well_answered(lines: list[bytes]) -> bool:
    if any(b"SERVERBUG" in line or b"Unhandled" in line for line in lines):
        return False
    last = lines[-1] if lines else b""
    return last.startswith((TAG + b" OK", TAG + b" NO", TAG + b" BAD", b"* BYE"))


def _ends_on_too_big(line: bytes) -> bool:
    """Whether a `BAD [TOOBIG]` to `line` is followed by `* BYE`: a command over its size
    limit, or a refused non-synchronizing literal already on its way (RFC 7888 §4), ends
    the connection; a refused synchronizing literal (never sent) does not."""
    return b"+}\r\n" in line or _SYNCHRONIZING.search(line) is None


async def replay(
    gateway: Gateway,
    cases: list[bytes],
    *,
    login: bool,
    since: Baseline | None = None,
    mailbox: bytes = b"INBOX",
) -> None:
    """Each line, its reply checked, a NOOP after it; with `since`, the whole gateway
    checked alive after every line (tests/support/liveness.py)."""
    session = imap_session(gateway, login=login, mailbox=mailbox)
    imap = await session.__aenter__()
    try:
        for line in cases:
            lines = await imap.imap(TAG, TAG + b" " + line + b"\r\n")
            if lines and lines[-1].startswith(b"+"):  # a continuation (AUTHENTICATE): cancel it
                lines = await imap.imap(TAG, b"*\r\n")
            if since is not None:
                await assert_alive(gateway, since)
            assert well_answered(lines), (line, lines)
            if lines[-1].startswith(TAG + b" BAD [TOOBIG]") and _ends_on_too_big(line):
                lines.append(await imap.line())
                assert lines[-1].startswith(b"* BYE"), (line, lines)
            if not imap.closed and not lines[-1].startswith(b"* BYE"):
                noop = await imap.imap(b"N", b"N NOOP\r\n")
                assert noop and noop[-1].startswith(b"N OK"), (line, noop)
            if imap.closed or lines[-1].startswith(b"* BYE"):
                await session.__aexit__(None, None, None)
                session = imap_session(gateway, login=login, mailbox=mailbox)
                imap = await session.__aenter__()
    finally:
        await session.__aexit__(None, None, None)
