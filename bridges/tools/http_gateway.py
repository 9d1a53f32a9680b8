"""GatewayApi over httpx: the agent API's REST calls the tools make.

Provisional: the typed client SDK (`bridges/client`) is the one client of the
agent API; once it is merged this class delegates to it, and keeps only the
translation of its answers and errors into what the tools expect.
"""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Any
from urllib.parse import quote

import httpx

from bridges.tools.gateway_api import GatewayRefusal, GatewayUnreachable, Json

API = "/api/v1"


class HttpGateway:
    def __init__(self, url: str, key: str, *, timeout: float = 30.0) -> None:
        self.url = url.rstrip("/")
        self.key = key
        self._http = httpx.AsyncClient(base_url=self.url + API, timeout=timeout)

    async def aclose(self) -> None:
        await self._http.aclose()

    async def _call(self, method: str, path: str, **options: Any) -> Json:
        headers = {"Authorization": f"Bearer {self.key}"}
        try:
            response = await self._http.request(method, path, headers=headers, **options)
        except httpx.TransportError as error:
            raise GatewayUnreachable(f"{type(error).__name__}: {error}") from error
        if response.is_success:
            answer: Json = response.json()
            return answer
        raise _refusal(response)

    async def register(self, name: str, workspaces: list[Json], platform: str) -> Json:
        body = {"name": name, "workspaces": workspaces, "platform": platform}
        registered = await self._call("POST", "/agent/register", json=body)
        if registered.get("agent_key"):
            self.key = registered["agent_key"]  # an enrolment key became a permanent one
        return registered

    async def heartbeat(self) -> Json:
        return await self._call("POST", "/agent/heartbeat")

    async def send_mail(self, body: Json) -> Json:
        return await self._call("POST", "/mail/send", json=body)

    async def inbox(self, *, status: str, limit: int, mark_read: bool, include_body: bool) -> Json:
        params = {
            "status": status,
            "limit": limit,
            "mark_read": str(mark_read).lower(),
            "include_body": str(include_body).lower(),
        }
        return await self._call("GET", "/mail/inbox", params=params)

    async def get_mail(self, mail_id: str) -> Json:
        return await self._call("GET", f"/mail/{_segment(mail_id)}")

    async def mark_read(self, mail_id: str) -> Json:
        return await self._call("POST", f"/mail/{_segment(mail_id)}/read")

    async def mail_tree(self, mail_id: str, *, limit: int, include_body: bool) -> Json:
        params = {"limit": limit, "include_body": str(include_body).lower()}
        return await self._call("GET", f"/mail/{_segment(mail_id)}/tree", params=params)

    async def forward_mail(self, mail_id: str, body: Json) -> Json:
        return await self._call("POST", f"/mail/{_segment(mail_id)}/forward", json=body)

    async def request_permission(self, body: Json) -> Json:
        return await self._call("POST", "/permission/request", json=body)

    async def upload_attachment(self, path: Path, filename: str) -> Json:
        content = await asyncio.to_thread(path.read_bytes)
        files = {"file": (filename, content, "application/octet-stream")}
        return await self._call("POST", "/attachments", files=files)

    async def download_attachment(self, attachment_id: str, target: Path, max_bytes: int) -> int:
        headers = {"Authorization": f"Bearer {self.key}"}
        path = f"/attachments/{_segment(attachment_id)}"
        written = 0
        try:
            async with self._http.stream("GET", path, headers=headers) as response:
                if not response.is_success:
                    await response.aread()
                    raise _refusal(response)
                with target.open("wb") as out:
                    async for chunk in response.aiter_bytes():
                        written += len(chunk)
                        if written > max_bytes:
                            raise GatewayRefusal(413, "too_large", f"over {max_bytes} bytes")
                        await asyncio.to_thread(out.write, chunk)
        except httpx.TransportError as error:
            raise GatewayUnreachable(f"{type(error).__name__}: {error}") from error
        return written

    async def suggest_addresses(self, query: str, limit: int) -> Json:
        return await self._call("GET", "/addresses/suggest", params={"q": query, "limit": limit})

    async def contacts(self, *, limit: int, offset: int) -> Json:
        return await self._call("GET", "/contacts", params={"limit": limit, "offset": offset})

    async def session_participants(self, session_id: str) -> Json:
        return await self._call("GET", f"/sessions/{_segment(session_id)}/participants")


def _segment(value: str) -> str:
    """One path segment, escaped: an id can never reach another route."""
    return quote(value, safe="")


def _refusal(response: httpx.Response) -> GatewayRefusal:
    try:
        error = response.json()["error"]
        return GatewayRefusal(response.status_code, error["code"], error["message"])
    except (ValueError, KeyError, TypeError):
        return GatewayRefusal(response.status_code, "http_error", response.reason_phrase)
