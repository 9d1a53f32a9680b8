"""The built web UI (`web/dist`) at `/`, with the SPA fallback.

Every GET outside `/api/` that names no file gets `index.html`, so a deep link
like `/inbox/<mail_id>` opens the app there. The fallback lives in the 404
handler rather than in a catch-all route: a catch-all would turn a POST to an
unknown API path into `405` and shadow the router's own `405`s.

Assets under `/assets/` have content hashes in their names and are cached for
a year, and are served from the build's brotli or gzip copy when the client accepts
one (api/compression.py); `index.html` is revalidated on every load. Without a build, `/` says
how to make one and the API works as before.
"""

from __future__ import annotations

import asyncio
import inspect
import stat
from collections.abc import Awaitable, Callable
from mimetypes import guess_type
from pathlib import Path
from typing import Any

from fastapi import FastAPI, Request
from fastapi.responses import FileResponse, HTMLResponse
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.responses import Response
from starlette.staticfiles import StaticFiles
from starlette.types import Scope

from api.compression import accepted_codings, precompressed

API_PATH = "/api/"
ASSETS = "/assets"
IMMUTABLE = "public, max-age=31536000, immutable"
REVALIDATE = "no-cache"

# In the wheel the build ships inside the package (pyproject.toml force-include);
# in a checkout it is the repository's web/dist.
_PACKAGED = Path(__file__).resolve().parent / "web_dist"
_CHECKOUT = Path(__file__).resolve().parent.parent / "web" / "dist"

NOT_BUILT = """<!doctype html><meta charset="utf-8"><title>AgentMail</title>
<h1>AgentMail gateway</h1>
<p>The API is running: see <a href="/api/v1/docs">/api/v1/docs</a>.</p>
<p>The web UI is not built. <code>make run</code> builds it when Node.js is installed,
or build it yourself: <code>cd web &amp;&amp; npm ci &amp;&amp; npm run build</code>,
then restart the gateway.</p>"""

Handler = Callable[[Request, Any], Response | Awaitable[Response]]


def find_dist() -> Path | None:
    """The built UI: the packaged copy, else the checkout's; None when neither exists."""
    for candidate in (_PACKAGED, _CHECKOUT):
        if (candidate / "index.html").is_file():
            return candidate
    return None


class _Assets(StaticFiles):
    async def get_response(self, path: str, scope: Scope) -> Response:
        response = await super().get_response(path, scope)
        if response.status_code == 200:
            response = await self._compressed(path, scope) or response
            response.headers["Cache-Control"] = IMMUTABLE
            response.headers["Vary"] = "Accept-Encoding"
        return response

    async def _compressed(self, path: str, scope: Scope) -> Response | None:
        """The build's compressed copy of the file (`<name>.br`, `<name>.gz`) this
        client accepts, with the file's own type; None when there is none."""
        for coding, suffix in precompressed(accepted_codings(scope)):
            full_path, found = await asyncio.to_thread(self.lookup_path, path + suffix)
            if found is None or not stat.S_ISREG(found.st_mode):
                continue
            response = self.file_response(full_path, found, scope)
            if response.status_code == 200:
                response.media_type = guess_type(path)[0] or "application/octet-stream"
                response.headers["Content-Type"] = response.media_type
                response.headers["Content-Encoding"] = coding
            return response
        return None


def _file_in(dist: Path, url_path: str) -> Path | None:
    """A file of the build named by the URL path, never anything outside it."""
    relative = url_path.lstrip("/")
    if not relative:
        return None
    candidate = (dist / relative).resolve()
    if candidate.is_relative_to(dist) and candidate.is_file():
        return candidate
    return None


def mount_web_ui(app: FastAPI, dist: Path | None = None) -> None:
    """Serve the UI built in `dist` (default: `find_dist()`); call after the API routes."""
    dist = (dist or find_dist() or Path("/nonexistent")).resolve()
    index = dist / "index.html"
    if not index.is_file():

        async def not_built() -> HTMLResponse:
            return HTMLResponse(NOT_BUILT, headers={"Cache-Control": REVALIDATE})

        app.add_api_route("/", not_built, methods=["GET", "HEAD"], include_in_schema=False)
        return

    def index_response() -> FileResponse:
        return FileResponse(index, media_type="text/html", headers={"Cache-Control": REVALIDATE})

    async def home() -> FileResponse:
        return index_response()

    app.add_api_route("/", home, methods=["GET", "HEAD"], include_in_schema=False)
    if (dist / "assets").is_dir():
        app.mount(ASSETS, _Assets(directory=dist / "assets"), name="web-assets")

    fallback: Handler = app.exception_handlers[StarletteHTTPException]

    async def spa_fallback(request: Request, exc: Exception) -> Response:
        path = request.url.path
        is_page = (
            isinstance(exc, StarletteHTTPException)
            and exc.status_code == 404
            and request.method in ("GET", "HEAD")
            and not path.startswith(API_PATH)
            and path != API_PATH.rstrip("/")
            and not path.startswith(f"{ASSETS}/")
        )
        if not is_page:
            answer = fallback(request, exc)
            return await answer if inspect.isawaitable(answer) else answer
        found = _file_in(dist, path)
        if found is not None:
            return FileResponse(found, headers={"Cache-Control": REVALIDATE})
        return index_response()

    app.add_exception_handler(StarletteHTTPException, spa_fallback)
