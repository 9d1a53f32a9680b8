"""The send routes' own handler (api/send_handler.py) answers exactly as FastAPI's, both DBs.

Two copies of the gateway's app share one running gateway's store: one as the gateway
builds it (the send routes served by `SendHandler`), one with the handler left out (the
same routes served by FastAPI's request handler). The same requests go to both, in
process (no socket, so nothing but the app sets a header): every refusal must be the
same bytes, status, body and headers (security headers included); a success the same
status and headers, and the same JSON, byte for byte, when one copy replays what the
other sent under an `Idempotency-Key`. The order FastAPI gives the checks (400 for
malformed JSON before 401, 401 and 403 before 415 and 422) and a one-time key's single
use are checked through the same comparison.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from dataclasses import dataclass
from typing import Any

import httpx
import pytest
from fastapi import FastAPI, Query

from api import app as app_module
from api import send_handler
from api.deps import Human
from api.routers import build_routes
from api.send_handler import HANDLED, SendHandler
from gateway.server import Gateway
from tests.support.gateway import Api
from tests.support.refusals import WORKSPACES

HUMAN_SEND = "/api/v1/me/mail/send"
AGENT_SEND = "/api/v1/mail/send"
JSON = {"Content-Type": "application/json"}


@dataclass
class Twins:
    own: httpx.AsyncClient  # the app as the gateway builds it
    fastapi: httpx.AsyncClient  # the same app, its send routes served by FastAPI's handler
    human_key: str
    agent_key: str
    api: Api
    human: httpx.AsyncClient  # jianf's login, to make more keys


@pytest.fixture
async def twins(gateway: Gateway, api: Api) -> AsyncIterator[Twins]:
    human = await api.human("jianf")
    human_key = await api.user_key(human)
    agent = await api.agent("builder", WORKSPACES)
    agent_key = agent.headers["Authorization"].removeprefix("Bearer ")
    own = app_module.create_app(gateway.settings, gateway.store)
    plain_routes = build_routes(send_handlers=False)
    plain = app_module.create_app(gateway.settings, gateway.store, routes=plain_routes)
    for path in (HUMAN_SEND, AGENT_SEND):
        assert isinstance(_route_app(own, path), SendHandler), path
        assert not isinstance(_route_app(plain, path), SendHandler), path
    base = "http://127.0.0.1"
    async with (
        httpx.AsyncClient(transport=httpx.ASGITransport(app=own), base_url=base) as a,
        httpx.AsyncClient(transport=httpx.ASGITransport(app=plain), base_url=base) as b,
    ):
        yield Twins(a, b, human_key, agent_key, api, human)


def _route_app(app: FastAPI, path: str) -> object:
    return next(r.app for r in app.router.routes if getattr(r, "path", None) == path)


def _bearer(key: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {key}"}


def _seen(response: httpx.Response) -> tuple[int, list[tuple[str, str]], bytes]:
    return response.status_code, response.headers.multi_items(), response.content


async def _both(
    twins: Twins, path: str, headers: dict[str, str], content: bytes
) -> tuple[httpx.Response, httpx.Response]:
    own = await twins.own.post(path, headers=headers, content=content)
    fastapi = await twins.fastapi.post(path, headers=headers, content=content)
    return own, fastapi


def _mail(**extra: Any) -> bytes:
    return json.dumps({"to": "builder@ModelRouter", "subject": "s", "body": "b", **extra}).encode()


BAD_KEY = "am_not_a_real_key"
VALID = _mail()
# (body, content type or None): each sent with no key, a bad key, the wrong caller's key
# and the right one, to both routes.
REFUSED_BODIES: list[tuple[bytes, str | None]] = [
    (b'{"to": ', "application/json"),
    (b"{'to': 'x'}", "application/json"),
    (b"", "application/json"),
    (b"[]", "application/json"),
    (b"null", "application/json"),
    (b'"text"', "application/json"),
    (b"{}", "application/json"),
    (
        json.dumps({"to": 5, "cc": "x", "budget": 0, "mail_type": "nope"}).encode(),
        "application/json",
    ),
    (_mail(budget="lots", attachment_ids=["a"] * 500), "application/json"),
    (_mail(subject="x" * 999), "application/json"),
    (VALID, "text/plain"),
    (VALID, "application/x-www-form-urlencoded"),
    (VALID, None),
    (VALID, "application/jsonx"),
    (b'{"to": "a\x01@"}', "application/json"),
    (b'{"to": "a@", "x": ' + b"9" * 5000 + b"}", "application/json"),
    (b'{"to": "a@", "x": ' + b"[" * 3000 + b"]" * 3000 + b"}", "application/json"),
    (b'{"to": "a@", "x": "\xff"}', "application/json"),
    (b'{"to": "nobody@nowhere", "subject": "s"}', "application/json"),
    (_mail(reply_to="no-such-mail"), "application/json"),
]


async def test_refusals_are_the_same_bytes(twins: Twins) -> None:
    callers = {
        HUMAN_SEND: [{}, _bearer(BAD_KEY), _bearer(twins.agent_key), _bearer(twins.human_key)],
        AGENT_SEND: [{}, _bearer(BAD_KEY), _bearer(twins.human_key), _bearer(twins.agent_key)],
    }
    statuses = set()
    for path, auths in callers.items():
        for body, content_type in REFUSED_BODIES:
            for auth in auths:
                headers = {**auth, **({"Content-Type": content_type} if content_type else {})}
                own, fastapi = await _both(twins, path, headers, body)
                assert _seen(own) == _seen(fastapi), (path, headers, body[:60])
                assert own.status_code >= 400, (path, headers, body[:60], own.text)
                statuses.add(own.status_code)
    # Every kind of refusal was compared, in FastAPI's order (400 before 401, 401 before 422).
    assert statuses == {400, 401, 403, 404, 415, 422}


async def test_idempotency_key_refusals_are_the_same_bytes(twins: Twins) -> None:
    for path, key in ((HUMAN_SEND, twins.human_key), (AGENT_SEND, twins.agent_key)):
        for auth in ({}, _bearer(key)):
            for bad in ("x" * 256, "", b"caf\xe9", " ~", "a\tb"):
                headers = {**auth, **JSON, "Idempotency-Key": bad}
                own, fastapi = await _both(twins, path, headers, VALID)
                assert _seen(own) == _seen(fastapi), (path, auth, bad)
                assert own.status_code in (401, 422), (bad, own.text)


async def test_successes_and_replays_are_the_same_bytes(twins: Twins) -> None:
    for path, key in ((HUMAN_SEND, twins.human_key), (AGENT_SEND, twins.agent_key)):
        headers = {**_bearer(key), "Content-Type": "application/json; charset=utf-8"}
        own, fastapi = await _both(twins, path, headers, VALID)
        assert own.status_code == fastapi.status_code == 200, (own.text, fastapi.text)
        assert [n for n, _ in own.headers.multi_items()] == [
            n for n, _ in fastapi.headers.multi_items()
        ]
        assert own.json().keys() == fastapi.json().keys()
        for first, second in ((twins.own, twins.fastapi), (twins.fastapi, twins.own)):
            keyed = {**headers, "Idempotency-Key": f"k-{path}-{id(first)}"}
            made = await first.post(path, headers=keyed, content=_mail(subject="keyed"))
            again = await second.post(path, headers=keyed, content=_mail(subject="keyed"))
            assert made.status_code == again.status_code == 200
            assert "idempotent-replayed" not in made.headers
            assert again.headers["idempotent-replayed"] == "true"
            assert again.content == made.content  # the first result, serialised by the other
            reused = [
                await c.post(path, headers=keyed, content=_mail(subject="other"))
                for c in (first, second)
            ]
            assert _seen(reused[0]) == _seen(reused[1])
            assert reused[0].json()["error"]["code"] == "idempotency_key_reused"
    # JSON spelled otherwise (duplicate keys: the last wins; an ignored NaN) is a send too.
    odd = b'{"to": "nobody@", "to": "builder@ModelRouter", "subject": "s", "x": NaN}'
    own, fastapi = await _both(twins, HUMAN_SEND, {**_bearer(twins.human_key), **JSON}, odd)
    assert own.status_code == fastapi.status_code == 200, (own.text, fastapi.text)


async def test_a_one_time_key_is_used_once_and_not_by_a_malformed_body(twins: Twins) -> None:
    human = twins.human
    outcomes = []
    for client in (twins.own, twins.fastapi):
        key = await twins.api.user_key(human, lifecycle="one_time")
        headers = {**_bearer(key), **JSON}
        steps = [b'{"to": ', VALID, VALID]
        responses = [await client.post(HUMAN_SEND, headers=headers, content=b) for b in steps]
        outcomes.append([r.status_code for r in responses])
        key = await twins.api.user_key(human, lifecycle="one_time")
        headers = {**_bearer(key), **JSON}
        responses = [
            await client.post(HUMAN_SEND, headers=headers, content=b) for b in (b"{}", VALID)
        ]
        outcomes.append([r.status_code for r in responses])
    # Malformed JSON is refused before the key is looked at; a 422 comes after it was used.
    assert outcomes == [[400, 200, 401], [422, 401]] * 2


def test_a_route_the_handler_does_not_know_is_refused_at_start_up() -> None:
    app = FastAPI()

    @app.post("/send")
    async def send(caller: Human, limit: int = Query(1)) -> dict[str, int]:
        return {"limit": limit}

    HANDLED[send] = HANDLED[next(iter(HANDLED))]
    try:
        with pytest.raises(RuntimeError, match="no path, query or cookie parameter"):
            send_handler.install(app.router.routes)
    finally:
        del HANDLED[send]
