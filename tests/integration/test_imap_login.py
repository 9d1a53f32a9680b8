"""IMAP login with imaplib: a human's password or user key, never an agent key."""

from __future__ import annotations

import imaplib
from pathlib import Path

import pytest

from imap_view.config import GatewayImapConfig
from tests.support.gateway import PASSWORD, Api, guess_budget_gateway
from tests.support.imap import connect, imap_login
from tests.support.metrics import login_outcomes, scrape
from tests.support.raw_lines import raw_connection

D = "agentmail.localhost"


@pytest.mark.parametrize("login", ["jianf", "JianF", f"jianf@{D}"])
async def test_login_with_password(api: Api, login: str) -> None:
    await api.human("jianf")
    async with imap_login(api.gateway, login) as imap:
        assert b"IDLE" in b" ".join(await imap.ok("capability"))
        assert await imap.ok("select", "INBOX") == [b"0"]


async def test_login_with_user_key(api: Api) -> None:
    jianf = await api.human("jianf")
    key = await api.user_key(jianf)
    async with imap_login(api.gateway, "jianf", key) as imap:
        await imap.ok("select", "INBOX")


async def test_authenticate_plain(api: Api) -> None:
    await api.human("jianf")
    imap = await connect(api.gateway)
    try:
        typ, _ = await imap("authenticate", "PLAIN", lambda _: f"\0jianf\0{PASSWORD}".encode())
        assert typ == "OK"
        await imap.ok("select", "INBOX")
    finally:
        await imap("logout")


@pytest.mark.parametrize("case", ["wrong_password", "unknown_user", "agent_key", "other_key"])
async def test_refused_logins(api: Api, case: str) -> None:
    await api.human("jianf")
    bob = await api.human("bob")
    secrets = {
        "wrong_password": ("jianf", "not-the-password"),
        "unknown_user": ("nobody", PASSWORD),
        "agent_key": ("builder", await api.agent_key()),
        "other_key": ("jianf", await api.user_key(bob)),
    }
    if case == "agent_key":
        agent = api.client(secrets["agent_key"][1])
        response = await agent.post(
            "/api/v1/agent/register",
            json={"name": "builder", "workspaces": [{"name": "w", "path": "/w"}], "platform": "t"},
        )
        assert response.status_code == 200
    login, secret = secrets[case]
    imap = await connect(api.gateway)
    try:
        with pytest.raises(imaplib.IMAP4.error) as refused:
            await imap("login", login, secret)
        assert "AUTHENTICATIONFAILED" in str(refused.value)
    finally:
        await imap("logout")


async def test_an_agent_key_with_the_agents_name_is_refused_too(api: Api) -> None:
    key = await api.agent_key()
    agent = api.client(key)
    response = await agent.post(
        "/api/v1/agent/register",
        json={"name": "builder", "workspaces": [{"name": "w", "path": "/w"}], "platform": "t"},
    )
    assert response.status_code == 200
    imap = await connect(api.gateway)
    try:
        with pytest.raises(imaplib.IMAP4.error, match="not this key"):
            await imap("login", "builder", key)
    finally:
        await imap("logout")


def test_no_login_in_the_clear_off_loopback_unless_allowed() -> None:
    """pymap offers LOGIN to loopback peers (tls_auth); others get `initial_auth`."""
    strict = GatewayImapConfig(domain=D, allow_plaintext_auth=False)
    assert strict.initial_auth.server_mechanisms == []
    relaxed = GatewayImapConfig(domain=D, allow_plaintext_auth=True)
    assert {m.name for m in relaxed.initial_auth.server_mechanisms} == {b"PLAIN", b"LOGIN"}


async def test_repeated_failed_logins_are_refused_then_slowed(
    database_url: str, tmp_path: Path
) -> None:
    """The one guess budget over IMAP, seen in the server's own account (its replies and
    `/metrics`), never by a stopwatch: after two failures from one address the next
    login from it is refused unchecked, even with the right password; from another
    address the account's failures slow the right password, which still logs in."""
    async with guess_budget_gateway(database_url, tmp_path) as (gateway, api):
        before = await scrape(api.client())
        async with raw_connection(gateway.imap_port, source="127.0.0.2") as imap:
            assert (await imap.line()).startswith(b"* OK")
            for tag, secret in ((b"a", b"bad-1"), (b"b", b"bad-2")):
                reply = await imap.imap(tag, tag + b" LOGIN jianf " + secret + b"\r\n")
                assert reply[-1].startswith(tag + b" NO [AUTHENTICATIONFAILED]"), reply
            right = b"c LOGIN jianf " + PASSWORD.encode() + b"\r\n"
            reply = await imap.imap(b"c", right)
            assert reply[-1].startswith(b"c NO [UNAVAILABLE]"), reply  # RFC 5530: later
        async with imap_login(gateway, "jianf") as imap:  # from 127.0.0.1
            await imap.ok("select", "INBOX")
        after = await scrape(api.client())
        outcomes = login_outcomes(before, after, "imap")
        assert outcomes == {"failed": 2, "refused": 1, "ok": 1, "slowed": 1}, outcomes
