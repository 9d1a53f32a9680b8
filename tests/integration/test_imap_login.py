"""IMAP login with imaplib: a human's password or user key, never an agent key."""

from __future__ import annotations

import asyncio
import contextlib
import imaplib
from pathlib import Path

import pytest

from imap_view.config import GatewayImapConfig
from tests.support.gateway import PASSWORD, Api, running_gateway
from tests.support.imap import connect, imap_login

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


async def test_repeated_failed_logins_are_slowed_down(database_url: str, tmp_path: Path) -> None:
    async with running_gateway(
        database_url,
        tmp_path / "data",
        smtp_auth_failures_before_delay=2,
        smtp_auth_failure_delay_seconds=0.5,
    ) as gateway:
        api = Api(gateway)
        try:
            await api.human("jianf")
            imap = await connect(gateway)
            loop = asyncio.get_running_loop()
            took = []
            for secret in ["bad-1", "bad-2", "bad-3", PASSWORD]:
                started = loop.time()
                with contextlib.suppress(imaplib.IMAP4.error):
                    await imap("login", "jianf", secret)
                took.append(loop.time() - started)
            assert max(took[:2]) < 0.5 <= min(took[2:])
            await imap("logout")
        finally:
            await api.close()
