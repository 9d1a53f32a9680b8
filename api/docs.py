"""The interactive API docs (Swagger UI), served by the gateway itself.

No CDN (a gateway may have no internet, and a CDN is a third party running
script on our origin) and no inline script, so the page lives under the content
security policy of `api/headers.py` (inline styles are allowed on this page
only): Swagger UI's files come from the `fastapi-offline` package, and the few
lines that start it are a file of their own, which reads the OpenAPI
document's URL from the page.
"""

from __future__ import annotations

from html import escape
from pathlib import Path

import fastapi_offline
from fastapi import FastAPI
from fastapi.responses import HTMLResponse, Response
from fastapi.staticfiles import StaticFiles

from api.headers import DOCS_CONTENT_SECURITY_POLICY as DOCS_CSP

ASSETS = Path(fastapi_offline.__file__).parent / "static"

_START = """\
"use strict";
window.addEventListener("DOMContentLoaded", function () {
  var root = document.getElementById("swagger-ui");
  window.ui = SwaggerUIBundle({
    url: root.dataset.openapiUrl,
    dom_id: "#swagger-ui",
    layout: "BaseLayout",
    deepLinking: true,
    showExtensions: true,
    showCommonExtensions: true,
    presets: [SwaggerUIBundle.presets.apis, SwaggerUIBundle.SwaggerUIStandalonePreset],
  });
});
"""


def _page(title: str, openapi_url: str, assets: str, start_url: str) -> str:
    return f"""<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>{escape(title)}</title>
<link rel="icon" href="{assets}/favicon.png">
<link rel="stylesheet" href="{assets}/swagger-ui.css">
</head>
<body>
<div id="swagger-ui" data-openapi-url="{escape(openapi_url)}"></div>
<script src="{assets}/swagger-ui-bundle.js"></script>
<script src="{start_url}"></script>
</body>
</html>
"""


def install_docs(app: FastAPI, docs_url: str, assets_url: str) -> None:
    """`docs_url` (the page), `docs_url`/start.js, and the assets under `assets_url`."""
    assert app.openapi_url is not None
    page = _page(f"{app.title} API", app.openapi_url, assets_url, f"{docs_url}/start.js")

    async def docs() -> HTMLResponse:
        return HTMLResponse(page, headers={"Content-Security-Policy": DOCS_CSP})

    async def start() -> Response:
        return Response(_START, media_type="text/javascript")

    # On the app itself, not through an included router: its routes stay plain routes
    # the route index (api/route_index.py) can see past.
    app.add_api_route(docs_url, docs, methods=["GET"], include_in_schema=False)
    app.add_api_route(f"{docs_url}/start.js", start, methods=["GET"], include_in_schema=False)
    app.mount(assets_url, StaticFiles(directory=ASSETS), name="docs-assets")
