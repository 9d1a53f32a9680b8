"""The FastAPI application: `/api/v1` REST + SSE, built from settings and a store."""

from __future__ import annotations

from collections.abc import Sequence

from fastapi import FastAPI
from starlette.routing import BaseRoute

from api import web_ui
from api.docs import install_docs
from api.edge import Edge
from api.errors import install_error_handlers
from api.mail_settings import Listeners
from api.openapi_errors import declare_errors
from api.route_index import index_routes
from api.routers import API_PREFIX, shared_routes
from api.routes import attachments
from api.slash_redirects import install_relative_slash_redirects
from api.uploads import MULTIPART_OVERHEAD
from core.identity.login_guard import LoginGuard, guard_from_settings
from core.identity.signed_in import SignedIn
from core.identity.throttle import LoginThrottle
from core.secrets.box import SecretBox
from core.secrets.configured import secret_box
from core.settings import Settings
from core.store.blob_choice import open_blobs
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.version import VERSION

DOCS_ASSETS = f"{API_PREFIX}/docs-assets"


def create_app(
    settings: Settings,
    store: Store,
    guard: LoginGuard | None = None,
    signed_in: SignedIn | None = None,
    routes: Sequence[BaseRoute] | None = None,
    secrets: SecretBox | None = None,
    blobs: BlobStore | None = None,
) -> FastAPI:
    """`guard`: the login guard SMTP and IMAP use too (one per process); `signed_in`:
    where SSE streams are held, to end with their key (none: streams are not held);
    `routes`: the API's routes (default: the process's shared ones, api/routers.py);
    `secrets`: the gateway's secret box (default: the one the settings name); `blobs`:
    the attachment store (default: the one the settings name)."""
    app = FastAPI(
        title="AgentMail",
        version=VERSION,
        summary="Humans and AI agents working together by mail.",
        openapi_url=f"{API_PREFIX}/openapi.json",
        docs_url=None,  # api/docs.py serves it without a CDN or an inline script
        redoc_url=None,
        # FastAPI's native OpenTelemetry looks up the global providers (and the
        # environment) on every request even when none is configured. The gateway's
        # metrics are its own (api/metrics.py, GET /metrics).
        telemetry={"tracing": False, "metrics": False, "logs": False},
    )
    app.state.settings = settings
    app.state.store = store
    app.state.blobs = blobs or open_blobs(settings)
    app.state.secrets = secrets or secret_box(settings)
    app.state.listeners = Listeners()  # the gateway fills it once SMTP and IMAP are bound
    app.state.login_guard = guard or guard_from_settings(settings, LoginThrottle())
    app.state.signed_in = signed_in
    install_error_handlers(app)
    install_docs(app, f"{API_PREFIX}/docs", DOCS_ASSETS)
    declare_errors(app)
    app.router.routes.extend(shared_routes() if routes is None else routes)
    web_ui.mount_web_ui(app)
    index_routes(app)
    install_relative_slash_redirects(app)

    upload_limit = settings.max_attachment_bytes + MULTIPART_OVERHEAD
    app.add_middleware(
        Edge,
        public_origin=settings.public_origin,
        login_path=f"{API_PREFIX}/auth/login",
        max_body_bytes=settings.max_body_bytes,
        streamed={f"{API_PREFIX}{r.prefix}": upload_limit for r in attachments.routers},
        cacheable_prefix=DOCS_ASSETS,
    )
    return app
