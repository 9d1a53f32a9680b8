"""Probes for load balancers and service managers: `/healthz`, `/readyz`, and the version.

`/healthz` says only that the process answers (a liveness probe must not fail
because the database is slow, or the orchestrator restarts a healthy process).
`/readyz` says whether this gateway should be sent traffic: the database answers
within a bound, every listener serves (it answers HTTP, and SMTP's greeting and
EHLO and IMAP's greeting are read from the bound ports, gateway/listener_probe.py,
at most once every two seconds however often it is polled) and the schema is at
the newest migration; otherwise `503` with the reasons, so a replica that is
starting, draining on SIGTERM, cut off from PostgreSQL or whose SMTP or IMAP
listener closes every connection is taken out of rotation.
Both are open (api/policies.py) and outside the OpenAPI contract of `/api/v1`.
"""

from __future__ import annotations

import asyncio

from fastapi import APIRouter, Request
from fastapi.responses import JSONResponse
from pydantic import BaseModel
from sqlalchemy import text

from api.deps import StoreDep
from api.mail_settings import Listeners
from core.store.migrate import schema_problem
from core.version import VERSION

DATABASE_TIMEOUT_SECONDS = 2.0

router = APIRouter(include_in_schema=False)
version_router = APIRouter(tags=["meta"])


class Version(BaseModel):
    version: str


@version_router.get("/version")
async def version() -> Version:
    """The gateway's version (the same as `agentmail --version`)."""
    return Version(version=VERSION)


@router.get("/healthz")
async def healthz() -> dict[str, str]:
    return {"status": "ok"}


@router.get("/readyz")
async def readyz(request: Request, store: StoreDep) -> JSONResponse:
    listeners: Listeners = request.app.state.listeners
    checks: dict[str, str] = {}
    check = listeners.check if listeners.serving else None
    probed = None if check is None else asyncio.ensure_future(check())  # beside the database's
    checks["listeners"] = "ok" if listeners.serving else "not serving (starting or stopping)"
    try:
        async with asyncio.timeout(DATABASE_TIMEOUT_SECONDS):
            await store.read(lambda session: session.execute(text("SELECT 1")).scalar())
            problem = await schema_problem(store)
        checks["database"] = "ok"
        checks["migrations"] = problem or "ok"
    except TimeoutError:
        checks["database"] = f"no answer within {DATABASE_TIMEOUT_SECONDS:g} s"
    except Exception as error:  # any failure to reach the store is a reason, not a 500
        checks["database"] = f"unreachable: {type(error).__name__}"
    if probed is not None:
        failing = [f"{name} {why}" for name, why in (await probed).items() if why != "ok"]
        if failing:
            checks["listeners"] = "; ".join(failing)
    ready = all(value == "ok" for value in checks.values())
    body: dict[str, object] = {
        "status": "ready" if ready else "not_ready",
        "version": VERSION,
        "checks": checks,
    }
    worker = getattr(request.app.state, "worker", None)
    if worker is not None:  # which of `serve --workers N` answered ("2/4")
        body["worker"] = worker
    return JSONResponse(body, status_code=200 if ready else 503)
