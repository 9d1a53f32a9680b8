"""`/healthz`, `/readyz` and `/api/v1/version`, open to anyone.

`/readyz` is 200 only while every listener is up, the database answers and the
schema is at the newest migration; each failing check is named in its 503.
"""

from __future__ import annotations

import httpx
from sqlalchemy import text

from core.store.migrate import head_revisions
from core.version import VERSION
from gateway.server import Gateway
from tests.support.http import ok


async def test_healthz_and_readyz_answer_without_credentials(gateway: Gateway) -> None:
    async with httpx.AsyncClient(base_url=gateway.http_url) as client:
        assert ok(await client.get("/healthz")) == {"status": "ok"}
        ready = ok(await client.get("/readyz"))
        assert ready["status"] == "ready"
        assert ready["checks"] == {"listeners": "ok", "database": "ok", "migrations": "ok"}
        assert ok(await client.get("/api/v1/version")) == {"version": VERSION}


async def test_readyz_names_a_missing_migration(gateway: Gateway) -> None:
    assert gateway.store is not None
    (head,) = head_revisions()
    await gateway.store.write(
        lambda session: session.execute(text("UPDATE alembic_version SET version_num = '0011k'"))
    )
    async with httpx.AsyncClient(base_url=gateway.http_url) as client:
        response = await client.get("/readyz")
        assert response.status_code == 503, response.text
        body = response.json()
        assert body["status"] == "not_ready"
        assert body["checks"]["migrations"] == f"not applied: {head}"
        assert body["checks"]["database"] == "ok"
        assert ok(await client.get("/healthz")) == {"status": "ok"}  # alive all the same
    await gateway.store.write(
        lambda session: session.execute(
            text("UPDATE alembic_version SET version_num = :head"), {"head": head}
        )
    )


async def test_readyz_is_503_once_shutdown_begins(gateway: Gateway) -> None:
    """A draining gateway leaves the load balancer's rotation before its listeners close."""
    async with httpx.AsyncClient(base_url=gateway.http_url) as client:
        assert (await client.get("/readyz")).status_code == 200
        gateway.begin_draining()
        response = await client.get("/readyz")
        assert response.status_code == 503, response.text
        assert response.json()["checks"]["listeners"] == "not serving (starting or stopping)"


async def test_readyz_is_ready_on_a_newer_release_s_schema(gateway: Gateway) -> None:
    """During a rolling upgrade the first new replica migrates the database to a
    revision the old replicas do not know: they stay ready (the migration only adds)."""
    assert gateway.store is not None
    await gateway.store.write(
        lambda session: session.execute(text("UPDATE alembic_version SET version_num = 'newer'"))
    )
    async with httpx.AsyncClient(base_url=gateway.http_url) as client:
        ready = ok(await client.get("/readyz"))
        assert ready["checks"]["migrations"] == "ok"
