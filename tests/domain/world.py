"""People and agents of one in-process store, acting through core's functions.

Each method calls what the REST route of the same name calls (api/routes), with the
caller a real `Principal` authenticated from a real key, and returns the view as the
route would put it in JSON (`by_alias`, JSON types), so a domain test asserts the
same values an HTTP test does, without a gateway. Only this module names core's
service modules: when one moves, its import changes here.
"""

from __future__ import annotations

from collections.abc import Awaitable, Sequence
from typing import Any, Literal

import pytest
from pydantic import BaseModel, ValidationError

from core.approvals import permissions
from core.errors import DomainError
from core.identity.accounts import create_user
from core.identity.agents import register_agent
from core.identity.keys import authenticate, issue_key
from core.identity.workspaces import Workspace
from core.mail import conversations, naming, reading
from core.mail.idempotency import write_once
from core.mail.send import SendRequest, mail_writer, send_mail
from core.principal import Principal
from core.settings import Limits
from core.store import events
from core.store.engine import Store
from core.views import SendResult

D = "agentmail.localhost"
PASSWORD = "password123"
MODEL_ROUTER = (("ModelRouter", "/home/u/ModelRouter"),)


def as_json(view: BaseModel) -> dict[str, Any]:
    """What FastAPI writes for a response model: aliases, JSON types."""
    dumped: dict[str, Any] = view.model_dump(mode="json", by_alias=True)
    return dumped


async def refused(action: Awaitable[object], code: str) -> str:
    """The domain error's code (what every transport maps); returns its message. A
    request model's own validation is `invalid_request`, as api/errors.py maps it."""
    with pytest.raises((DomainError, ValidationError)) as caught:
        await action
    error = caught.value
    if isinstance(error, ValidationError):
        assert code == "invalid_request", error
        return str(error)
    assert error.code == code, error.message
    return error.message


class World:
    """One store, its mail domain and limits, and the accounts made in it."""

    def __init__(
        self, store: Store, domain: str = D, limits: Limits | None = None, default_budget: int = 20
    ) -> None:
        self.store = store
        self.domain = domain
        self.limits = limits or Limits()
        self.default_budget = default_budget

    async def human(self, name: str, *, is_admin: bool = False) -> Actor:
        """A user, acting with a user key of their own (as `POST /me/keys` issues)."""
        await create_user(self.store, name, PASSWORD, is_admin=is_admin)
        issued = await issue_key(
            self.store, kind="user", lifecycle="permanent", owner=name, created_by=name
        )
        assert issued.key is not None
        return Actor(self, await authenticate(self.store, issued.key))

    async def agent(
        self,
        name: str,
        workspaces: Sequence[tuple[str, str]] = MODEL_ROUTER,
        platform: str = "test",
    ) -> Actor:
        """An agent registered with an admin-issued key (`POST /agent/register`)."""
        store = self.store
        issued = await issue_key(store, kind="agent", lifecycle="permanent", created_by="admin")
        assert issued.key is not None
        unbound = await authenticate(store, issued.key)
        listed = [Workspace(name=n, path=p) for n, p in workspaces]
        await register_agent(store, unbound, name, listed, platform, self.default_budget)
        return Actor(self, await authenticate(store, issued.key))


class Actor:
    """A principal and the calls its routes make, views returned as JSON."""

    def __init__(self, world: World, principal: Principal) -> None:
        self.world = world
        self.principal = principal
        self._cursor = 0

    @property
    def name(self) -> str:
        return self.principal.name

    async def send(self, **body: Any) -> dict[str, Any]:
        """`POST …/mail/send` with this JSON body."""
        world = self.world
        request = SendRequest.model_validate(body)
        write = mail_writer(world.domain, self.principal, request, limits=world.limits)
        return as_json((await write_once(world.store, self.principal, None, write)).result)

    async def send_core(self, request: SendRequest, **options: Any) -> SendResult:
        """The one write path with what no REST body carries (a cc'd permission request,
        a mail into a given conversation), as SMTP and import call it."""
        world = self.world
        return await send_mail(
            world.store, world.domain, self.principal, request, limits=world.limits, **options
        )

    async def ask(self, **body: Any) -> dict[str, Any]:
        """`POST /permission/request` with this JSON body."""
        world = self.world
        request = permissions.PermissionRequest.model_validate(body)
        write = permissions.permission_writer(world.domain, self.principal, request, world.limits)
        return as_json((await write_once(world.store, self.principal, None, write)).result)

    async def decide(self, mail_id: str, decision: str, note: str | None = None) -> dict[str, Any]:
        """`POST /me/permission/decide`: what its answer carries."""
        mail = await permissions.decide_permission(
            self.world.store, self.principal, mail_id, decision, note
        )
        return {"mail_id": mail.id, "decision": mail.decision, "action_sha256": mail.action_sha256}

    async def requests(
        self,
        state: str | None = None,
        limit: int = 50,
        offset: int = 0,
        order: Literal["newest", "oldest"] = "newest",
    ) -> dict[str, Any]:
        """`GET /me/permissions`: the requests addressed to this human."""
        world = self.world
        found = await permissions.list_requests(
            world.store,
            world.domain,
            self.principal,
            state,
            limit,
            offset,
            order,  # type: ignore[arg-type]
        )
        return as_json(found)

    async def inbox(self, **query: Any) -> list[dict[str, Any]]:
        """`GET …/mail/inbox` with the route's defaults; the mails."""
        params: dict[str, Any] = {"status": "all", "limit": 50, "offset": 0, "order": "newest"}
        params |= {"mark_read": False, "include_body": False, **query}
        found = await reading.inbox(self.world.store, self.world.domain, self.principal, **params)
        mails: list[dict[str, Any]] = as_json(found)["mails"]
        return mails

    async def mail(self, mail_id: str) -> dict[str, Any]:
        """`GET …/mail/{mail_id}`."""
        world = self.world
        return as_json(await reading.get_mail(world.store, world.domain, self.principal, mail_id))

    async def sessions(self, status: str | None = None, limit: int = 500) -> list[dict[str, Any]]:
        """`GET /sessions`: the conversations this caller takes part in."""
        views, _ = await conversations.list_conversations(
            self.world.store, self.principal, status, limit, 0
        )
        return [as_json(view) for view in views]

    async def listing(
        self, status: str | None = None, limit: int = 50, offset: int = 0
    ) -> tuple[dict[str, dict[str, Any]], int]:
        """`GET /sessions` as its page: the views by id, and the total."""
        views, total = await conversations.list_conversations(
            self.world.store, self.principal, status, limit, offset
        )
        return {view.session_id: as_json(view) for view in views}, total

    async def change_session(self, session_id: str, **body: Any) -> dict[str, Any]:
        """`PATCH /sessions/{session_id}` with this JSON body."""
        change = conversations.SessionChange.model_validate(body)
        view = await conversations.update_conversation(
            self.world.store, self.principal, session_id, change
        )
        return as_json(view)

    async def sync_session(
        self, session_id: str, alias: str | None = None, title: str | None = None
    ) -> dict[str, Any]:
        """`POST /sessions/{session_id}/sync`: a platform's own naming."""
        view = await naming.sync_conversation(
            self.world.store, self.principal, session_id, alias=alias, title=title
        )
        return as_json(view)

    async def proposals(self, session_id: str, state: str | None = None) -> list[dict[str, Any]]:
        """`GET /sessions/{session_id}/proposals`."""
        found = await naming.list_proposals(self.world.store, self.principal, session_id, state)
        return [as_json(proposal) for proposal in found]

    async def decide_proposal(
        self, session_id: str, proposal_id: str, *, accept: bool
    ) -> dict[str, Any]:
        """`POST /sessions/{session_id}/proposals/{proposal_id}/accept` (or `reject`)."""
        view = await naming.decide_proposal(
            self.world.store, self.principal, session_id, proposal_id, accept=accept
        )
        return as_json(view)

    async def session_ids(self) -> set[str]:
        return {s["session_id"] for s in await self.sessions()}

    async def session(self, session_id: str) -> dict[str, Any]:
        """`GET /sessions/{session_id}`: the conversation and its mails."""
        world = self.world
        detail = await conversations.conversation_detail(
            world.store, world.domain, self.principal, session_id
        )
        return as_json(detail)

    async def listen(self) -> None:
        """Start reading events from now, as a new SSE stream does."""
        self._cursor = await events.latest_event_id(self.world.store)

    async def events(self, type_: str | None = None) -> list[dict[str, Any]]:
        """The payloads of this caller's events since the last call (or `listen`), in
        the stream's order; of one type when given."""
        batch = await events.events_after(self.world.store, self.name, self._cursor)
        if batch.events:
            self._cursor = batch.events[-1].id
        return [e.payload for e in batch.events if type_ is None or e.type == type_]
