"""Security issue, hole 13: the matrix's callers against SMTP and IMAP (one table each).

SMTP: AUTH, `MAIL FROM` someone else's address and one's own, `RCPT TO` the
conversation's alias (from each caller's side). IMAP: LOGIN, then SELECT of the
conversation's folder. The callers are tests/support/identities.py's; one
gateway on SQLite for the module.
"""

from __future__ import annotations

import asyncio
import imaplib
from collections.abc import AsyncIterator

import aiosmtplib
import pytest
import pytest_asyncio

from tests.support.http import ok
from tests.support.identities import Identity, World, matrix_world
from tests.support.smtp import D
from tests.support.summary import note

pytestmark = pytest.mark.asyncio(loop_scope="module")

OUT = None  # the step is not reached: the one before refused
# identity → (AUTH, MAIL FROM someone else, MAIL FROM oneself, RCPT TO the alias)
SMTP: dict[str, tuple[int | None, int, int, int | None]] = {
    "anonymous": (OUT, 530, 530, OUT),
    "cookie user": (235, 553, 250, 250),
    "other user": (235, 553, 250, 550),
    "admin": (235, 553, 250, 550),
    "user key": (235, 553, 250, 250),
    "agent key": (235, 553, 250, 250),
    "other agent's key": (235, 553, 250, 550),
    "unregistered agent key": (535, 530, 530, OUT),
    "revoked key": (535, 530, 530, OUT),
    "revoked user key": (535, 530, 530, OUT),
    "expired timed key": (535, 530, 530, OUT),
    "used one-time key": (535, 530, 530, OUT),
}
# identity → (LOGIN, SELECT Sessions/<alias>); agents never sign in to IMAP.
IMAP: dict[str, tuple[str | None, str]] = {
    "anonymous": (OUT, "BAD"),
    "cookie user": ("OK", "OK"),
    "other user": ("OK", "NO"),
    "admin": ("OK", "NO"),
    "user key": ("OK", "OK"),
    "agent key": ("NO", "BAD"),
    "other agent's key": ("NO", "BAD"),
    "unregistered agent key": ("NO", "BAD"),
    "revoked key": ("NO", "BAD"),
    "revoked user key": ("NO", "BAD"),
    "expired timed key": ("NO", "BAD"),
    "used one-time key": ("NO", "BAD"),
}


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def world(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[World]:
    async with matrix_world(tmp_path_factory.mktemp("protocols")) as built:
        yield built


async def _alias(world: World) -> str:
    assert world.alice is not None
    detail = ok(await world.alice.get(f"/api/v1/me/sessions/{world.session_id}"))
    alias: str = detail["session"]["session_alias"]
    return alias


def _addresses(who: Identity, alias: str) -> tuple[str, str, str]:
    """(someone else's address, one's own, the conversation seen from one's side)."""
    if who.kind in ("agent", "unbound") or who.label == "revoked key":
        return f"alice@{D}", f"{who.login}+ModelRouter@{D}", f"alice++{alias}@{D}"
    other = f"bob@{D}" if who.login != "bob" else f"alice@{D}"
    return other, f"{who.login or 'nobody'}@{D}", f"builder+ModelRouter+{alias}@{D}"


async def _smtp(world: World, who: Identity, alias: str) -> tuple[int | None, ...]:
    client = aiosmtplib.SMTP(
        hostname="127.0.0.1", port=world.api.gateway.smtp_port, start_tls=False
    )
    await client.connect()
    try:
        await client.ehlo()
        auth: int | None = OUT
        if who.label != "anonymous":
            try:
                auth = (await client.login(who.login, who.secret)).code
            except aiosmtplib.SMTPAuthenticationError as exc:
                auth = exc.code
        other, own, conversation = _addresses(who, alias)
        steps: list[int | None] = [auth]
        for sender in (other, own):
            reply = await client.execute_command(b"MAIL", f"FROM:<{sender}>".encode())
            steps.append(reply.code)
        rcpt: int | None = OUT
        if steps[-1] == 250:
            rcpt = (await client.execute_command(b"RCPT", f"TO:<{conversation}>".encode())).code
        steps.append(rcpt)
        return tuple(steps)
    finally:
        await client.quit()


def _imap(port: int, who: Identity, alias: str) -> tuple[str | None, str]:
    client = imaplib.IMAP4("127.0.0.1", port, timeout=15)
    try:
        login: str | None = OUT
        if who.label != "anonymous":
            try:
                login = client.login(who.login, who.secret)[0]
            except imaplib.IMAP4.error:
                login = "NO"
        if login != "OK":
            # imaplib will not send SELECT before LOGIN: the raw command, as a client could.
            client.send(f'x1 SELECT "Sessions/{alias}"\r\n'.encode())
            return login, client.readline().split()[1].decode()
        try:
            return login, client.select(f'"Sessions/{alias}"')[0]
        except imaplib.IMAP4.error:
            return login, "NO"
    finally:
        client.shutdown()


async def test_smtp_table(world: World) -> None:
    alias = await _alias(world)
    got = {who.label: await _smtp(world, who, alias) for who in world.identities}
    assert got == SMTP
    note(f"authorization matrix (SMTP AUTH/MAIL FROM/RCPT): {len(got)} identities x 4 steps")


async def test_imap_table(world: World) -> None:
    alias = await _alias(world)
    port = world.api.gateway.imap_port
    got = {who.label: await asyncio.to_thread(_imap, port, who, alias) for who in world.identities}
    assert got == IMAP
    note(f"authorization matrix (IMAP LOGIN/SELECT): {len(got)} identities x 2 steps")
