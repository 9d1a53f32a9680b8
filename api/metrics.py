"""`GET /metrics` (Prometheus text format) and the REST side of the metrics.

Who may scrape: clients on loopback or in `AGENTMAIL_METRICS_ALLOW` (addresses or
CIDRs: the Prometheus server), as decided by the one client-address rule
(`AGENTMAIL_TRUSTED_PROXIES`); anyone else needs an admin's credentials, since
the figures tell who is busy. The metric definitions are in core/metrics.py.

REST sends are counted by `api/edge.py` (it sees the status as the response
starts and never buffers a body): a 2xx on a send route (`SEND_ROUTES`) is a mail
accepted, its duration the send→commit latency (the response is written only
after the commit).
"""

from __future__ import annotations

import ipaddress
import os
import re
from collections.abc import Iterator
from contextlib import contextmanager
from functools import cache

from fastapi import APIRouter, Depends, Request
from fastapi.responses import Response
from prometheus_client import CONTENT_TYPE_LATEST, CollectorRegistry, Histogram, generate_latest
from prometheus_client.multiprocess import MultiProcessCollector

from api.deps import ClientAddress, SettingsDep, StoreDep, current_principal
from core import metrics
from core.approvals.permissions import count_open_requests
from core.errors import Forbidden
from core.settings import Settings
from core.store.events import StoredEvent
from core.store.models import utcnow

router = APIRouter(include_in_schema=False)

# Every REST route that stores a mail (docs/architecture.md: the one write path).
SEND_ROUTES = re.compile(
    r"^/api/v1/(?:me/)?(?:mail/send|mail/[^/]+/forward|permission/request|drafts/[^/]+/send)$"
)


def _allowed(settings: Settings, address: str) -> bool:
    try:
        ip = ipaddress.ip_address(address)
    except ValueError:
        return False
    return ip.is_loopback or any(ip in network for network in settings.metrics_networks)


async def scraper(request: Request, settings: SettingsDep, address: ClientAddress) -> None:
    """Loopback and the allowed networks pass; anyone else must be an admin (401/403)."""
    if _allowed(settings, address):
        return
    principal = await current_principal(request)
    if not (principal.is_human and principal.is_admin):
        raise Forbidden(
            "metrics are for loopback, AGENTMAIL_METRICS_ALLOW addresses, or an admin's key"
        )


@router.get("/metrics", dependencies=[Depends(scraper)])
async def scrape(store: StoreDep) -> Response:
    metrics.OPEN_PERMISSION_REQUESTS.set(await count_open_requests(store))
    return Response(_exposition(), media_type=CONTENT_TYPE_LATEST)


def _exposition() -> bytes:
    """This process's metrics; under `serve --workers`, those of every worker together
    (core/metrics.py), without the per-process `process_*` and `python_*`."""
    directory = os.environ.get("PROMETHEUS_MULTIPROC_DIR")
    if not directory:
        return generate_latest()
    registry = CollectorRegistry()
    MultiProcessCollector(registry, path=directory)  # type: ignore[no-untyped-call]
    return generate_latest(registry)


@contextmanager
def sse_connection() -> Iterator[None]:
    metrics.CONNECTIONS.labels("sse").inc()
    metrics.CONNECTIONS_OPEN.labels("sse").inc()
    try:
        yield
    finally:
        metrics.CONNECTIONS_OPEN.labels("sse").dec()


@cache
def _push_seconds() -> Histogram:
    """Looked up at the first push, in the process that serves the stream."""
    return metrics.COMMIT_PUSH_SECONDS.labels("sse")


def observe_push(event: StoredEvent) -> None:
    if event.created_at is not None:
        seconds = (utcnow() - event.created_at).total_seconds()
        _push_seconds().observe(max(0.0, seconds))
