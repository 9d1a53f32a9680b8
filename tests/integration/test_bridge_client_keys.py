"""The client's key bootstrap against a real gateway, both DBs: a generated key known to
the gateway only by its SHA-256, `AGENTMAIL_AGENT_KEY`, and a one-time enrolment key
exchanged for a permanent one that is stored."""

from __future__ import annotations

import asyncio
import logging
import stat
from pathlib import Path

import pytest

from bridges.client import AgentClient, Backoff, KeyNotRegistered, load_key
from bridges.client.keys import ENROLMENT_ENV, KEY_DIR_ENV, KEY_ENV
from tests.support.gateway import Api

WORKSPACES = [{"name": "root", "path": "/srv/root"}]


async def test_a_generated_key_is_registered_by_its_sha256(
    api: Api, tmp_path: Path, caplog: pytest.LogCaptureFixture
) -> None:
    environ = {KEY_DIR_ENV: str(tmp_path / "keys")}
    with caplog.at_level(logging.INFO):
        key = load_key(environ)
    path = tmp_path / "keys" / "agent.key"
    assert key.source == "generated" and path.read_text().strip() == key.secret
    assert stat.S_IMODE(path.stat().st_mode) == 0o600
    assert stat.S_IMODE(path.parent.stat().st_mode) == 0o700
    assert key.sha256 in caplog.text and key.secret not in caplog.text
    assert key.secret not in repr(key)
    assert load_key(environ) == type(key)(key.secret, "file", path)  # the next start

    async with AgentClient(api.base_url, key) as client:
        with pytest.raises(KeyNotRegistered):
            await client.register("builder", WORKSPACES)
        waiting = asyncio.create_task(
            client.register_when_accepted("builder", WORKSPACES, poll=Backoff(0.05, 0.1))
        )
        admin = await api.admin()
        issued = await admin.post("/api/v1/admin/agent-keys", json={"key_sha256": key.sha256})
        assert issued.status_code == 201 and issued.json()["key"] is None
        async with asyncio.timeout(10):
            registered = await waiting
        assert registered.agent.agent_name == "builder"
        assert (await client.heartbeat()).status == "ok"


async def test_the_environment_key_comes_first(api: Api, tmp_path: Path) -> None:
    given = await api.agent_key()
    environ = {KEY_DIR_ENV: str(tmp_path), KEY_ENV: given, ENROLMENT_ENV: "ignored"}
    key = load_key(environ)
    assert (key.source, key.secret) == ("environment", given)
    assert not (tmp_path / "agent.key").exists()  # never written anywhere


async def test_an_enrolment_key_is_exchanged_for_a_stored_permanent_key(
    api: Api, tmp_path: Path
) -> None:
    enrolment = await api.agent_key("one_time")
    environ = {KEY_DIR_ENV: str(tmp_path), ENROLMENT_ENV: enrolment}
    key = load_key(environ)
    assert key.source == "enrolment"
    async with AgentClient(api.base_url, key) as client:
        registered = await client.register("builder", WORKSPACES)
        assert registered.agent_key is not None
        assert client.key.source == "file" and client.key.secret == registered.agent_key
        assert (await client.heartbeat()).status == "ok"  # now with the permanent key
    stored = tmp_path / "agent.key"
    assert stored.read_text().strip() == registered.agent_key
    assert stat.S_IMODE(stored.stat().st_mode) == 0o600
    again = load_key(environ)  # the next start reads the file, not the dead enrolment key
    assert (again.source, again.secret) == ("file", registered.agent_key)
    async with AgentClient(api.base_url, enrolment) as dead:
        with pytest.raises(KeyNotRegistered):
            await dead.register("builder", WORKSPACES)
