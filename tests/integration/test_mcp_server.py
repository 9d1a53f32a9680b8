"""`agentmail mcp` itself: the HTTP transport's bearer guard and loopback default, and
starting with a key that cannot act yet. On SQLite only (no database logic here)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from pathlib import Path

import httpx
import pytest

from tests.support.gateway import Api, running_gateway
from tests.support.mcp_server import AGENTMAIL, http_server, mcp_env, workspace_args

INITIALIZE = {
    "jsonrpc": "2.0",
    "id": 1,
    "method": "initialize",
    "params": {
        "protocolVersion": "2025-06-18",
        "capabilities": {},
        "clientInfo": {"name": "test", "version": "0"},
    },
}
MCP_HEADERS = {"Accept": "application/json, text/event-stream"}


@pytest.fixture
async def api(tmp_path: Path) -> AsyncIterator[Api]:
    database = f"sqlite:///{tmp_path / 'agentmail.db'}"
    async with running_gateway(database, tmp_path / "data") as gateway:
        helper = Api(gateway)
        try:
            yield helper
        finally:
            await helper.close()


async def test_http_needs_the_agent_key_as_bearer_token(api: Api, tmp_path: Path) -> None:
    key = await api.agent_key()
    args = workspace_args([("work", tmp_path)])
    async with http_server(mcp_env(api.base_url, key), args) as url:
        assert url.startswith("http://127.0.0.1:")  # loopback unless told otherwise
        async with httpx.AsyncClient(timeout=30) as http:
            for headers in ({}, {"Authorization": "Bearer amk_wrong"}, {"Authorization": key}):
                refused = await http.post(url, json=INITIALIZE, headers={**MCP_HEADERS, **headers})
                assert refused.status_code == 401, headers
                assert refused.headers["www-authenticate"].startswith("Bearer")
                assert refused.json()["error"]["code"] == "unauthorized"
            accepted = await http.post(
                url,
                json=INITIALIZE,
                headers={**MCP_HEADERS, "Authorization": f"Bearer {key}"},
            )
            assert accepted.status_code == 200, accepted.text
            assert "agentmail" in accepted.text


async def _run_mcp(env: dict[str, str], *args: str) -> tuple[int, str]:
    process = await asyncio.create_subprocess_exec(
        *AGENTMAIL,
        "mcp",
        *args,
        env=env,
        stdin=asyncio.subprocess.DEVNULL,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
    )
    out, err = await asyncio.wait_for(process.communicate(), 60)
    assert out == b"", "over stdio, nothing but the protocol may reach stdout"
    assert process.returncode is not None
    return process.returncode, err.decode()


async def test_an_unbound_key_without_a_name_says_what_to_set(api: Api, tmp_path: Path) -> None:
    key = await api.agent_key()
    code, err = await _run_mcp(mcp_env(api.base_url, key, name=None))
    assert code == 1
    assert "not bound to an agent yet" in err and "AGENTMAIL_AGENT_NAME" in err


async def test_a_revoked_key_is_refused_at_start(api: Api, tmp_path: Path) -> None:
    admin = await api.admin()
    issued = (await admin.post("/api/v1/admin/agent-keys", json={"lifecycle": "permanent"})).json()
    assert (await admin.delete(f"/api/v1/admin/agent-keys/{issued['key_id']}")).is_success
    code, err = await _run_mcp(
        mcp_env(api.base_url, issued["key"]), *workspace_args([("w", tmp_path)])
    )
    assert code == 1
    assert "revoked, expired or unknown" in err
