"""A real gateway on ephemeral ports, and real HTTP clients for humans and agents."""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import httpx

from bridges.client.transport import tls_context
from core.settings import Settings
from gateway.server import Gateway

ADMIN_PASSWORD = "admin-password"
PASSWORD = "password123"


TEST_SECRET_KEY = "the test gateways' shared secret key, 32+ characters"


@asynccontextmanager
async def running_gateway(
    database_url: str, data_dir: Path, *, background_jobs: bool = True, **settings: Any
) -> AsyncIterator[Gateway]:
    values: dict[str, Any] = {
        "host": "127.0.0.1",
        "http_port": 0,
        "smtp_port": 0,
        "imap_port": 0,
        "data_dir": data_dir,
        "database_url": database_url,
        "admin_user": "admin",
        "admin_password": ADMIN_PASSWORD,
        "sse_ping_seconds": 15.0,
        "bcrypt_rounds": 4,
        # Gateways of one test may share a database from separate data dirs, as replicas
        # do: they share the key its secrets are sealed with (None: the data dir's file).
        "secret_key": TEST_SECRET_KEY,
    }
    values.update(settings)
    gateway = Gateway(Settings(**values), background_jobs=background_jobs)
    await gateway.start()
    try:
        yield gateway
    finally:
        await gateway.stop()


class Api:
    """Makes clients against one gateway and closes them at the end of the test."""

    def __init__(self, gateway: Gateway) -> None:
        self.gateway = gateway
        self.base_url = gateway.http_url
        self._clients: list[httpx.AsyncClient] = []
        self._admin: httpx.AsyncClient | None = None

    def client(self, token: str | None = None) -> httpx.AsyncClient:
        # As a browser does on every unsafe request: the login cookie needs it (api/csrf.py).
        headers = {"Origin": self.base_url}
        if token:
            headers["Authorization"] = f"Bearer {token}"
        client = httpx.AsyncClient(
            base_url=self.base_url, headers=headers, timeout=15.0, verify=tls_context()
        )
        self._clients.append(client)
        return client

    async def login(self, name: str, password: str) -> httpx.AsyncClient:
        client = self.client()
        response = await client.post(
            "/api/v1/auth/login", json={"username": name, "password": password}
        )
        assert response.status_code == 200, response.text
        return client

    async def admin(self) -> httpx.AsyncClient:
        if self._admin is None:
            self._admin = await self.login("admin", ADMIN_PASSWORD)
        return self._admin

    async def human(self, name: str, *, is_admin: bool = False) -> httpx.AsyncClient:
        admin = await self.admin()
        response = await admin.post(
            "/api/v1/admin/users", json={"name": name, "password": PASSWORD, "is_admin": is_admin}
        )
        assert response.status_code == 201, response.text
        return await self.login(name, PASSWORD)

    async def agent_key(self, lifecycle: str = "permanent", **extra: Any) -> str:
        admin = await self.admin()
        response = await admin.post(
            "/api/v1/admin/agent-keys", json={"lifecycle": lifecycle, **extra}
        )
        assert response.status_code == 201, response.text
        key: str = response.json()["key"]
        return key

    async def agent(
        self,
        name: str,
        workspaces: Sequence[tuple[str, str]] = (("ModelRouter", "/home/u/ModelRouter"),),
        platform: str = "test",
    ) -> httpx.AsyncClient:
        client = self.client(await self.agent_key())
        response = await client.post(
            "/api/v1/agent/register",
            json={
                "name": name,
                "workspaces": [{"name": n, "path": p} for n, p in workspaces],
                "platform": platform,
            },
        )
        assert response.status_code == 200, response.text
        return client

    async def user_key(
        self, human: httpx.AsyncClient, lifecycle: str = "permanent", **extra: Any
    ) -> str:
        response = await human.post("/api/v1/me/keys", json={"lifecycle": lifecycle, **extra})
        assert response.status_code == 201, response.text
        key: str = response.json()["key"]
        return key

    async def close(self) -> None:
        for client in self._clients:
            await client.aclose()


@asynccontextmanager
async def web_gateway(tmp_path: Path, **settings: Any) -> AsyncIterator[Api]:
    """A gateway on SQLite in `tmp_path` with `settings`, and its API client."""
    url = f"sqlite:///{tmp_path / 'db.sqlite'}"
    async with running_gateway(url, tmp_path / "data", **settings) as gateway:
        api = Api(gateway)
        try:
            yield api
        finally:
            await api.close()


@asynccontextmanager
async def guess_budget_gateway(
    database_url: str, tmp_path: Path
) -> AsyncIterator[tuple[Gateway, Api]]:
    """A gateway whose guess budget runs out after two failures (per address and per
    account), with a short delay for the slowed logins, and the human `jianf`."""
    async with running_gateway(
        database_url,
        tmp_path / "data",
        login_failures_per_address=2,
        login_failures_per_account=2,
        login_delay_seconds=0.01,
    ) as gateway:
        api = Api(gateway)
        try:
            await api.human("jianf")
            yield gateway, api
        finally:
            await api.close()
