"""Every kind of caller, made once against one gateway with real keys, for the
authorization matrix (tests/integration/test_authorization_matrix.py).

Alice (web login and her user key) and the agent `builder` take part in one
conversation; Bob, the admin and the agent `other` do not. The rest hold
credentials that must open nothing: none, a revoked agent key and user key, an
expired and a used key; an agent key never registered may only register.
"""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Literal

import httpx
from sqlalchemy.orm import Session

from core.store.models import ExternalAddress
from tests.support.gateway import ADMIN_PASSWORD, PASSWORD, Api, running_gateway
from tests.support.http import ok

Kind = Literal["invalid", "human", "agent", "unbound"]
V1 = "/api/v1"


@dataclass
class Identity:
    label: str
    kind: Kind
    client: httpx.AsyncClient
    login: str = ""  # for SMTP and IMAP: the name signed in with `secret`
    secret: str = ""
    participant: bool = False
    admin: bool = False
    cookie: bool = False  # a web login: logging out ends it, so logout gets a fresh one


@dataclass
class World:
    api: Api
    identities: list[Identity]
    session_id: str = ""
    mail_for: dict[str, str] = field(default_factory=dict)  # "human"/"agent" → a mail it got
    attachment_for: dict[str, str] = field(default_factory=dict)
    draft_id: str = ""
    folder_id: str = ""  # a folder of Alice's own
    user_key_id: str = ""  # one of Alice's keys that may be revoked
    agent_key_id: str = ""  # an agent key that may be revoked
    alice: httpx.AsyncClient | None = None
    builder: httpx.AsyncClient | None = None
    proposals: int = 0
    folders: int = 0
    push_subscriptions: int = 0
    webhook_id: str = ""  # an endpoint of Alice's, owed an event (`webhook_event_id`)
    webhook_event_id: int = 0
    webhooks: int = 0
    external_addresses: int = 0

    def by_label(self, label: str) -> Identity:
        return next(i for i in self.identities if i.label == label)

    async def fresh_draft(self) -> str:
        assert self.alice is not None
        made = await self.alice.post(f"{V1}/me/drafts", json={"to": "carol@", "subject": "d"})
        assert made.status_code == 201, made.text
        draft_id: str = made.json()["draft_id"]
        return draft_id

    async def fresh_folder(self) -> str:
        """A folder of Alice's of its own, to be deleted by the request."""
        assert self.alice is not None
        self.folders += 1
        made = await self.alice.post(f"{V1}/me/folders", json={"name": f"spare {self.folders}"})
        assert made.status_code == 201, made.text
        folder_id: str = made.json()["folder_id"]
        return folder_id

    async def fresh_login(self) -> str:
        """A web login of Alice's of its own, to be revoked by the request."""
        client = await self.api.login("alice", PASSWORD)
        listed = ok(await client.get(f"{V1}/me/logins"))["logins"]
        login_id: str = next(login["login_id"] for login in listed if login["current"])
        return login_id

    async def fresh_push_subscription(self) -> str:
        """A push subscription of Alice's, to be revoked by the request (on loopback's
        discard port: the matrix gateway allows it, and nothing listens there)."""
        assert self.alice is not None
        self.push_subscriptions += 1
        body = {
            "endpoint": f"https://127.0.0.1:9/push/matrix-{self.push_subscriptions}",
            "keys": {"p256dh": "B" + "A" * 86, "auth": "A" * 22},
        }
        made = await self.alice.post(f"{V1}/me/push/subscriptions", json=body)
        assert made.status_code == 201, made.text
        subscription_id: str = made.json()["subscription_id"]
        return subscription_id

    async def fresh_external_address(self) -> str:
        """An external address of Alice's (written in the store: the matrix gateway has
        no smarthost, so `POST /me/external-addresses` could not mail its code)."""
        store = self.api.gateway.store
        assert store is not None
        self.external_addresses += 1
        row = ExternalAddress(owner="alice", address=f"alice{self.external_addresses}@outside.test")

        def add(session: Session) -> str:
            session.add(row)
            session.flush()
            return row.id

        return await store.write(add)

    async def fresh_webhook(self) -> str:
        """A webhook endpoint of Alice's, to be deleted by the request (on loopback's
        discard port, as the push subscriptions)."""
        assert self.alice is not None
        self.webhooks += 1
        made = await self.alice.post(f"{V1}/me/webhooks", json={"url": _hook(self.webhooks)})
        assert made.status_code == 201, made.text
        webhook_id: str = made.json()["webhook_id"]
        return webhook_id

    async def fresh_proposal(self) -> str:
        """An alias proposal by `builder` in the conversation, pending."""
        assert self.alice is not None and self.builder is not None
        self.proposals += 1
        alias = f"proposed-{self.proposals}"
        body = {"to": "alice@", "reply_to": self.mail_for["agent"], "propose_alias": alias}
        ok(await self.builder.post(f"{V1}/mail/send", json=body))
        url = f"{V1}/me/sessions/{self.session_id}/proposals"
        found = ok(await self.alice.get(url, params={"state": "pending"}))["proposals"]
        proposal_id: str = next(p["proposal_id"] for p in found if p["alias"] == alias)
        return proposal_id


def _hook(n: int) -> str:
    return f"http://127.0.0.1:9/hooks/matrix-{n}"


async def _issued(client: httpx.AsyncClient, url: str, **body: Any) -> dict[str, Any]:
    response = await client.post(url, json=body)
    assert response.status_code == 201, response.text
    issued: dict[str, Any] = response.json()
    return issued


async def _register(api: Api, key: str, name: str) -> httpx.AsyncClient:
    client = api.client(key)
    body = {"name": name, "workspaces": [{"name": "ModelRouter", "path": f"/srv/{name}"}]}
    ok(await client.post(f"{V1}/agent/register", json=body))
    return client


async def _upload(client: httpx.AsyncClient, url: str) -> str:
    uploaded = ok(await client.post(url, files={"file": ("a.txt", b"matrix")}))
    attachment_id: str = uploaded["attachment_id"]
    return attachment_id


async def build_world(api: Api) -> World:
    admin = await api.admin()
    alice = await api.human("alice")
    bob = await api.human("bob")
    await api.human("carol")
    # The expiring key first: it is dead by the time everything else is made.
    timed = await _issued(alice, f"{V1}/me/keys", lifecycle="timed", expires_in=1)
    expires = asyncio.get_running_loop().time() + 1.2
    one_time = await _issued(alice, f"{V1}/me/keys", lifecycle="one_time")
    ok(await api.client(one_time["key"]).get(f"{V1}/me"))  # its one request
    user_key = await _issued(alice, f"{V1}/me/keys", lifecycle="permanent")
    spare_user_key = await _issued(alice, f"{V1}/me/keys", lifecycle="permanent")
    revoked_user_key = await _issued(alice, f"{V1}/me/keys", lifecycle="permanent")
    ok(await alice.delete(f"{V1}/me/keys/{revoked_user_key['key_id']}"))

    builder_key = (await _issued(admin, f"{V1}/admin/agent-keys"))["key"]
    builder = await _register(api, builder_key, "builder")
    other_key = (await _issued(admin, f"{V1}/admin/agent-keys"))["key"]
    other = await _register(api, other_key, "other")
    unbound = (await _issued(admin, f"{V1}/admin/agent-keys"))["key"]
    retired = await _issued(admin, f"{V1}/admin/agent-keys")
    await _register(api, retired["key"], "retired")
    ok(await admin.delete(f"{V1}/admin/agent-keys/{retired['key_id']}"))
    spare_agent_key = await _issued(admin, f"{V1}/admin/agent-keys")

    # Alice's webhook endpoint hears builder's answer below.
    made_hook = await alice.post(f"{V1}/me/webhooks", json={"url": _hook(0)})
    assert made_hook.status_code == 201, made_hook.text
    hook = made_hook.json()
    # The conversation: Alice's task to builder, and builder's answer, each with a file.
    mine = await _upload(alice, f"{V1}/me/attachments")
    task = ok(
        await alice.post(
            f"{V1}/me/mail/send",
            json={
                "to": "builder@ModelRouter",
                "subject": "Matrix task",
                "budget": "unlimited",
                "attachment_ids": [mine],
            },
        )
    )
    theirs = await _upload(builder, f"{V1}/attachments")
    answer = ok(
        await builder.post(
            f"{V1}/mail/send",
            json={"to": "alice@", "reply_to": task["mail_id"], "attachment_ids": [theirs]},
        )
    )
    hook_url = f"{V1}/me/webhooks/{hook['webhook_id']}"
    (owed,) = await _deliveries(alice, hook_url)
    draft = await alice.post(f"{V1}/me/drafts", json={"to": "builder@", "subject": "later"})
    assert draft.status_code == 201, draft.text
    folder = await alice.post(f"{V1}/me/folders", json={"name": "Matrix"})
    assert folder.status_code == 201, folder.text

    identities = [
        Identity("anonymous", "invalid", api.client()),
        Identity("cookie user", "human", alice, "alice", PASSWORD, participant=True, cookie=True),
        Identity("other user", "human", bob, "bob", PASSWORD, cookie=True),
        Identity("admin", "human", admin, "admin", ADMIN_PASSWORD, admin=True, cookie=True),
        Identity("user key", "human", api.client(user_key["key"]), "alice", user_key["key"], True),
        Identity("agent key", "agent", builder, "builder", builder_key, participant=True),
        Identity("other agent's key", "agent", other, "other", other_key),
        Identity("unregistered agent key", "unbound", api.client(unbound), "nobody", unbound),
        Identity("revoked key", "invalid", api.client(retired["key"]), "retired", retired["key"]),
        Identity(
            "revoked user key",
            "invalid",
            api.client(revoked_user_key["key"]),
            "alice",
            revoked_user_key["key"],
        ),
        Identity("expired timed key", "invalid", api.client(timed["key"]), "alice", timed["key"]),
        Identity(
            "used one-time key", "invalid", api.client(one_time["key"]), "alice", one_time["key"]
        ),
    ]
    await asyncio.sleep(max(0.0, expires - asyncio.get_running_loop().time()))
    return World(
        api=api,
        identities=identities,
        session_id=task["session_id"],
        mail_for={"agent": task["mail_id"], "human": answer["mail_id"]},
        attachment_for={"agent": mine, "human": theirs},
        draft_id=draft.json()["draft_id"],
        folder_id=folder.json()["folder_id"],
        user_key_id=spare_user_key["key_id"],
        agent_key_id=spare_agent_key["key_id"],
        alice=alice,
        builder=builder,
        webhook_id=hook["webhook_id"],
        webhook_event_id=owed["event_id"],
    )


async def _deliveries(owner: httpx.AsyncClient, hook_url: str) -> list[dict[str, object]]:
    """The endpoint's deliveries once there are any: they are made from the events just
    after their commit (core/webhooks/fanout.py)."""
    async with asyncio.timeout(30):
        while not (found := ok(await owner.get(f"{hook_url}/deliveries"))["deliveries"]):
            await asyncio.sleep(0.02)
    return list(found)


@asynccontextmanager
async def matrix_world(data: Path) -> AsyncIterator[World]:
    """A gateway on SQLite in `data` with every identity; login failures are neither
    refused nor slowed."""
    async with running_gateway(
        f"sqlite:///{data / 'agentmail.db'}",
        data / "data",
        login_failures_per_address=1000,
        login_delay_seconds=0,
        push_allow_private_endpoints=True,
        webhook_allow_private_endpoints=True,
    ) as gateway:
        api = Api(gateway)
        try:
            yield await build_world(api)
        finally:
            await api.close()
