"""A typed async client for the gateway's agent API (docs/api.md), over httpx.

Every call is one HTTP request; a refusal raises `GatewayError` with the gateway's
stable `code`. Which requests are tried again, and how: transport.py.
"""

from __future__ import annotations

import asyncio
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any, Literal, Self

import httpx

from bridges.client.backoff import Backoff
from bridges.client.errors import GatewayError, KeyNotRegistered
from bridges.client.keys import load_key, store_permanent_key
from bridges.client.models import (
    Attachment,
    Budget,
    Candidate,
    Contact,
    Heartbeat,
    Mail,
    MailList,
    Participants,
    Registered,
    SendResult,
    Session,
    SessionDetail,
    TreeChunk,
    Workspace,
)
from bridges.client.sse import EventStream
from bridges.client.transport import Connection

URL_ENV = "AGENTMAIL_URL"
DEFAULT_URL = "http://127.0.0.1:8180"
_log = logging.getLogger("agentmail.bridge.client")


class AgentClient(Connection):
    """One agent's connection to one gateway. Use as `async with AgentClient(...)`."""

    @classmethod
    async def from_environment(cls, base_url: str | None = None, **options: Any) -> Self:
        """`AGENTMAIL_URL` (default http://127.0.0.1:8180) and the key of `keys.load_key`."""
        key = await asyncio.to_thread(load_key)
        return cls(base_url or os.environ.get(URL_ENV, DEFAULT_URL), key, **options)

    # -- registration and presence ------------------------------------------------

    async def register(
        self,
        name: str,
        workspaces: list[Workspace] | list[dict[str, str]],
        platform: str = "",
        *,
        attempts: int | None = None,
    ) -> Registered:
        """Register (or update) the agent. With an enrolment key the answer carries the
        permanent key: it is stored in the key file and used from now on."""
        spaces = [w.model_dump() if isinstance(w, Workspace) else w for w in workspaces]
        body = {"name": name, "workspaces": spaces, "platform": platform}
        answer = await self._json(
            "POST", "/agent/register", json=body, safe=True, attempts=attempts
        )
        registered = Registered.model_validate(answer)
        if registered.agent_key and self.key.source == "enrolment":
            self.key = await asyncio.to_thread(store_permanent_key, self.key, registered.agent_key)
            self._http.headers["Authorization"] = f"Bearer {self.key.secret}"
        return registered

    async def register_when_accepted(
        self,
        name: str,
        workspaces: list[Workspace] | list[dict[str, str]],
        platform: str = "",
        *,
        poll: Backoff = Backoff(2.0, 60.0),
        reach: Backoff = Backoff(0.5, 30.0),
    ) -> Registered:
        """Register, waiting while the key is unknown (a generated key an admin has
        not registered yet: the log repeats the key's SHA-256, never the key) and
        while the gateway cannot be reached (down, restarting, answering 5xx): one
        log line per attempt, `reach`'s backoff between them, never an exception."""
        attempt = 0
        while True:
            wait = poll
            try:
                return await self.register(name, workspaces, platform, attempts=1)
            except KeyNotRegistered:
                _log.warning(
                    "the gateway does not know this agent key yet; an admin registers it "
                    "with POST /api/v1/admin/agent-keys {key_sha256: %s}",
                    self.key.sha256,
                )
            except (httpx.TransportError, GatewayError) as error:
                if isinstance(error, GatewayError) and not error.retryable:
                    raise
                wait = reach
                _log.warning(
                    "the gateway at %s is not reachable (%s); trying again (attempt %d)",
                    self.base_url,
                    _reason(error),
                    attempt + 1,
                )
            await asyncio.sleep(wait.delay(attempt))
            attempt += 1

    async def heartbeat(self) -> Heartbeat:
        return Heartbeat.model_validate(await self._json("POST", "/agent/heartbeat", safe=True))

    # -- reading ------------------------------------------------------------------

    async def inbox(
        self,
        status: Literal["unread", "read", "all", "archived"] = "unread",
        *,
        limit: int = 50,
        offset: int = 0,
        order: Literal["newest", "oldest"] = "newest",
        mark_read: bool = False,
        include_body: bool = False,
    ) -> MailList:
        params = {
            "status": status,
            "limit": limit,
            "offset": offset,
            "order": order,
            "mark_read": _flag(mark_read),
            "include_body": _flag(include_body),
        }
        # mark_read=true changes state; repeating it changes nothing more.
        return MailList.model_validate(await self._json("GET", "/mail/inbox", params=params))

    async def read(self, mail_id: str) -> Mail:
        """One mail with its body (it is not marked read: `mark_read` does that)."""
        return Mail.model_validate(await self._json("GET", f"/mail/{mail_id}"))

    async def mark_read(self, mail_id: str) -> None:
        await self._json("POST", f"/mail/{mail_id}/read", safe=True)

    async def thread(
        self,
        mail_id: str,
        *,
        direction: Literal["around", "ancestors", "descendants"] = "around",
        limit: int = 50,
        cursor: str | None = None,
        include_body: bool = True,
    ) -> TreeChunk:
        params: dict[str, Any] = {
            "direction": direction,
            "limit": limit,
            "include_body": _flag(include_body),
        }
        if cursor is not None:
            params["cursor"] = cursor
        return TreeChunk.model_validate(
            await self._json("GET", f"/mail/{mail_id}/tree", params=params)
        )

    async def session(self, session_id: str) -> SessionDetail:
        return SessionDetail.model_validate(await self._json("GET", f"/sessions/{session_id}"))

    async def participants(self, session_id: str) -> Participants:
        return Participants.model_validate(
            await self._json("GET", f"/sessions/{session_id}/participants")
        )

    async def suggest(self, q: str = "", *, limit: int = 10) -> list[Candidate]:
        found = await self._json("GET", "/addresses/suggest", params={"q": q, "limit": limit})
        return [Candidate.model_validate(item) for item in found["candidates"]]

    async def contacts(self, *, limit: int = 50) -> list[Contact]:
        found = await self._json("GET", "/contacts", params={"limit": limit})
        return [Contact.model_validate(item) for item in found["contacts"]]

    # -- writing ------------------------------------------------------------------

    async def send(
        self,
        to: str,
        body: str = "",
        *,
        subject: str = "",
        cc: list[str] | None = None,
        reply_to: str | None = None,
        session_id: str | None = None,
        session_alias: str | None = None,
        from_workspace: str | None = None,
        budget: Budget | None = None,
        mail_type: Literal["normal", "question", "final_summary", "turn_failed"] = "normal",
        auto: bool = False,
        propose_alias: str | None = None,
        propose_reason: str | None = None,
        attachment_ids: list[str] | None = None,
        idempotency_key: str | None = None,
    ) -> SendResult:
        """Send one mail. Give `idempotency_key` a value that is stable across restarts
        (the runtime derives it from the mail it answers) to be safe after a crash;
        without one a fresh key still makes this call's own retries safe."""
        request: dict[str, Any] = {
            "to": to,
            "body": body,
            "subject": subject,
            "cc": cc or [],
            "mail_type": mail_type,
            "auto": auto,
            "attachment_ids": attachment_ids or [],
        }
        optional = {
            "reply_to": reply_to,
            "session_id": session_id,
            "session_alias": session_alias,
            "from_workspace": from_workspace,
            "budget": budget,
            "propose_alias": propose_alias,
            "propose_reason": propose_reason,
        }
        request.update({k: v for k, v in optional.items() if v is not None})
        return await self._keyed("/mail/send", request, idempotency_key)

    async def forward(
        self,
        mail_id: str,
        to: str,
        body: str = "",
        *,
        cc: list[str] | None = None,
        subject: str | None = None,
        from_workspace: str | None = None,
    ) -> SendResult:
        request: dict[str, Any] = {"to": to, "body": body, "cc": cc or []}
        if subject is not None:
            request["subject"] = subject
        if from_workspace is not None:
            request["from_workspace"] = from_workspace
        answer = await self._json("POST", f"/mail/{mail_id}/forward", json=request)
        return SendResult.model_validate(answer)

    async def request_permission(
        self,
        to: str,
        question: str,
        *,
        options: list[str] | None = None,
        context: str = "",
        session_id: str | None = None,
        reply_to: str | None = None,
        expires_in: str | int | None = None,
        action: str | None = None,
        from_workspace: str | None = None,
        cc: list[str] | None = None,
        auto: bool = False,
        idempotency_key: str | None = None,
    ) -> SendResult:
        """Ask a human; `action` is the exact action, so the decision is bound to it
        (its SHA-256 comes back with the decision)."""
        request: dict[str, Any] = {
            "to": to,
            "question": question,
            "context": context,
            "cc": cc or [],
            "auto": auto,
        }
        optional = {
            "options": options,
            "session_id": session_id,
            "reply_to": reply_to,
            "expires_in": expires_in,
            "action": action,
            "from_workspace": from_workspace,
        }
        request.update({k: v for k, v in optional.items() if v is not None})
        return await self._keyed("/permission/request", request, idempotency_key)

    async def wait_for_decision(self, mail_id: str, *, poll: float = 2.0) -> Mail:
        """The request once decided or expired (`permission_state` is no longer `open`);
        bound it with `asyncio.timeout(...)`. A bridge follows `permission_decision`
        events instead; this is for callers without a stream (the MCP tool)."""
        while True:
            mail = await self.read(mail_id)
            if mail.permission_state != "open":
                return mail
            await asyncio.sleep(poll)

    async def sync_session(
        self, session_id: str, *, session_alias: str | None = None, title: str | None = None
    ) -> Session:
        """The platform's title or slug for the conversation; the gateway settles the alias
        (a taken one gets `-2`, a human's rename wins) and answers it."""
        body = {"session_alias": session_alias, "title": title}
        return Session.model_validate(
            await self._json("POST", f"/sessions/{session_id}/sync", json=body, safe=True)
        )

    async def upload_attachment(
        self, content: bytes, filename: str, content_type: str = "application/octet-stream"
    ) -> Attachment:
        files = {"file": (filename, content, content_type)}
        return Attachment.model_validate(await self._json("POST", "/attachments", files=files))

    async def download_attachment(self, attachment_id: str) -> bytes:
        response = await self._send("GET", f"/attachments/{attachment_id}", safe=True)
        return response.content

    # -- events -------------------------------------------------------------------

    def events(
        self,
        last_event_id: int | None = None,
        *,
        backoff: Backoff = Backoff(),
        idle_timeout: float = 60.0,
        on_connected: Callable[[bool], Awaitable[None]] | None = None,
    ) -> EventStream:
        """The agent's event stream from `last_event_id` (None: from now); sse.py says
        when `on_connected` is awaited."""
        return EventStream(
            self._http,
            last_event_id=last_event_id,
            backoff=backoff,
            idle_timeout=idle_timeout,
            on_connected=on_connected,
        )


def _reason(error: Exception) -> str:
    """One line for the log: the error's kind, and the gateway's refusal if any."""
    return str(error) if isinstance(error, GatewayError) else type(error).__name__


def _flag(value: bool) -> str:
    return "true" if value else "false"
