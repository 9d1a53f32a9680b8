"""`agentmail mcp` starting with a key that cannot act: it says what to do and
exits 1, before serving anything. In-process (typer's runner), on SQLite only;
the transports themselves are tested in test_mcp_tools.py."""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from click.testing import Result
from typer.testing import CliRunner

from gateway.cli import app
from tests.support.gateway import Api, running_gateway
from tests.support.mcp_server import workspace_args


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    database = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(database, tmp_path / "data") as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


async def _mcp(api: Api, key: str, name: str | None, *args: str) -> Result:
    env = {
        "AGENTMAIL_URL": api.base_url,
        "AGENTMAIL_AGENT_KEY": key,
        "AGENTMAIL_AGENT_NAME": name,
        "COLUMNS": "200",
    }
    # The command runs its own loop: in a thread, so this loop keeps serving the gateway.
    return await asyncio.to_thread(CliRunner().invoke, app, ["mcp", *args], env=env)


async def test_an_unbound_key_without_a_name_says_what_to_set(api: Api) -> None:
    result = await _mcp(api, await api.agent_key(), None)
    assert result.exit_code == 1, result.output
    assert "not bound to an agent yet" in result.output
    assert "AGENTMAIL_AGENT_NAME" in result.output


async def test_a_revoked_key_is_refused_at_start(api: Api, tmp_path: Path) -> None:
    admin = await api.admin()
    issued = (await admin.post("/api/v1/admin/agent-keys", json={"lifecycle": "permanent"})).json()
    assert (await admin.delete(f"/api/v1/admin/agent-keys/{issued['key_id']}")).is_success
    result = await _mcp(api, issued["key"], "helper", *workspace_args([("w", tmp_path)]))
    assert result.exit_code == 1, result.output
    assert "revoked, expired or unknown" in result.output


async def test_no_key_at_all_generates_one_and_shows_only_its_sha256(
    api: Api, tmp_path: Path
) -> None:
    env = {"AGENTMAIL_URL": api.base_url, "AGENTMAIL_AGENT_KEY": None}
    env["AGENTMAIL_KEY_DIR"] = str(tmp_path / "keys")
    result = await asyncio.to_thread(CliRunner().invoke, app, ["mcp"], env=env)
    assert result.exit_code == 1, result.output
    key_file = tmp_path / "keys" / "agent.key"
    secret = key_file.read_text().strip()
    assert key_file.stat().st_mode & 0o777 == 0o600
    assert f"key_sha256={hashlib.sha256(secret.encode()).hexdigest()}" in result.output
    assert secret not in result.output


def test_the_help_shows_the_environment_and_options() -> None:
    shown = CliRunner().invoke(app, ["mcp", "--help"], env={"COLUMNS": "200"}).output
    for name in (
        "AGENTMAIL_URL",
        "AGENTMAIL_AGENT_KEY",
        "AGENTMAIL_KEY_DIR",
        "AGENTMAIL_ENROLMENT_KEY",
        "AGENTMAIL_AGENT_NAME",
        "--workspace",
        "--http",
        "--host",
        "--port",
    ):
        assert name in shown, name
