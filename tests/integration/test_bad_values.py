"""Bad input never yields a 500: well-formed requests, bad values.

Bad and undeliverable addresses say why; unknown fields are ignored; numbers
beyond what the store or the clock holds, NUL characters and lone surrogates are a
4xx or stored as given, never a 500.
"""

from __future__ import annotations

from collections.abc import Awaitable, Iterable
from typing import Any

import httpx

from tests.support.gateway import Api
from tests.support.refusals import (
    all_of,
    assert_error_shape,
    assert_no_server_errors,
    parties,
    send_raw,
)

# --- addresses --------------------------------------------------------------------------


async def test_bad_and_undeliverable_addresses_say_why(api: Api) -> None:
    human, builder = await parties(api)
    calls = []
    for to in ("no-at-sign", "bad name@x", "builder@Model Router", "@ModelRouter", "", "a@b@c"):
        body = {"to": to, "subject": "s", "body": "b"}
        calls.append(human.post("/api/v1/me/mail/send", json=body))
        calls.append(builder.post("/api/v1/mail/send", json=body))
    calls.append(
        human.post(
            "/api/v1/me/mail/send",
            json={"to": "builder@ModelRouter", "cc": ["bad name@x"], "subject": "s"},
        )
    )
    calls.append(
        builder.post("/api/v1/permission/request", json={"to": "no-at-sign", "question": "q?"})
    )
    for response in await all_of(calls):
        assert_error_shape(response, 422, "invalid_address")

    def send(to: str, cc: Iterable[str] = ()) -> Awaitable[httpx.Response]:
        body = {"to": to, "cc": list(cc), "subject": "s", "body": "b"}
        return human.post("/api/v1/me/mail/send", json=body)

    (
        nobody,
        nobody_path,
        nobody_email,
        nobody_cc,
        no_path,
        no_workspace,
        no_alias,
    ) = await all_of(
        [
            send("nobody@"),
            send("nobody@somewhere"),
            send("nobody@agentmail.localhost"),
            send("builder@ModelRouter", ["nobody@"]),
            send("builder@/home/elsewhere"),
            send("builder@NoSuchWs"),
            send("builder@ModelRouter.no-such-alias"),
        ]
    )
    for response in (nobody, nobody_path, nobody_email, nobody_cc):
        assert "nobody" in assert_error_shape(response, 422, "unknown_recipient")
    for response in (no_path, no_workspace):
        message = assert_error_shape(response, 422, "unknown_workspace")
        assert "ModelRouter" in message and "infra" in message, message
    message = assert_error_shape(no_alias, 422, "unknown_alias")
    assert "no conversation 'no-such-alias'" in message
    # The refusals created nothing.
    assert (await builder.get("/api/v1/mail/inbox")).json()["total"] == 0
    assert (await human.get("/api/v1/me/sessions")).json()["total"] == 0


async def test_unknown_fields_are_ignored(api: Api) -> None:
    human, builder = await parties(api)
    sent, registered, logged_in = await all_of(
        [
            human.post(
                "/api/v1/me/mail/send",
                json={
                    "to": "builder@ModelRouter",
                    "subject": "s",
                    "body": "b",
                    "future_field": 1,
                    "x_other": {"nested": [1, 2]},
                },
            ),
            builder.post(
                "/api/v1/agent/register",
                json={
                    "name": "builder",
                    "workspaces": [{"name": "ModelRouter", "path": "/m", "color": "red"}],
                    "platform": "test",
                    "future_field": 1,
                },
            ),
            api.client().post(
                "/api/v1/auth/login",
                json={"username": "jianf", "password": "password123", "remember_me": True},
            ),
        ]
    )
    for response in (sent, registered, logged_in):
        assert response.status_code == 200, response.text


# --- values beyond what the store or the clock holds ------------------------------------


async def test_out_of_range_numbers_are_4xx(api: Api) -> None:
    """Numbers beyond what a column or a datetime holds are refused, never a 500."""
    human, builder = await parties(api)
    admin = await api.admin()
    calls = []
    for number in (2**31, 2**63, 10**30):
        calls.append(
            human.post(
                "/api/v1/me/mail/send",
                json={"to": "builder@ModelRouter.new", "subject": "s", "budget": number},
            )
        )
        calls.append(admin.patch("/api/v1/admin/agents/builder", json={"default_budget": number}))
    for expires_in in (10**12, 10**30, "999999999d", "999999999w"):
        timed = {"lifecycle": "timed", "expires_in": expires_in}
        calls.append(admin.post("/api/v1/admin/agent-keys", json=timed))
        calls.append(human.post("/api/v1/me/keys", json=timed))
        calls.append(
            builder.post(
                "/api/v1/permission/request",
                json={"to": "jianf@", "question": "q?", "expires_in": expires_in},
            )
        )
    assert_no_server_errors(await all_of(calls))


async def test_nul_characters_are_4xx_or_stored(api: Api) -> None:
    """PostgreSQL text cannot hold U+0000: refuse it (or handle it), never a 500."""
    human, builder = await parties(api)
    admin = await api.admin()
    to = "builder@ModelRouter"
    calls: list[tuple[httpx.AsyncClient, str, dict[str, Any]]] = [
        (api.client(), "/api/v1/auth/login", {"username": "jianf\x00", "password": "password123"}),
        (api.client(), "/api/v1/auth/login", {"username": "jianf", "password": "pass\x00word"}),
        (human, "/api/v1/me/mail/send", {"to": to, "subject": "a\x00b"}),
        (human, "/api/v1/me/mail/send", {"to": to, "body": "a\x00b"}),
        (human, "/api/v1/me/mail/send", {"to": to, "reply_to": "\x00"}),
        (human, "/api/v1/me/mail/send", {"to": "builder@Model\x00Router"}),
        (human, "/api/v1/me/permission/decide", {"mail_id": "\x00", "decision": "approve"}),
        (human, "/api/v1/me/keys", {"label": "a\x00b"}),
        (admin, "/api/v1/admin/agent-keys", {"label": "a\x00b"}),
        (admin, "/api/v1/admin/users", {"name": "eve", "password": "pass\x00word"}),
        (builder, "/api/v1/agent/register", {"name": "builder", "workspaces": [{"name": "w\x00"}]}),
        (
            builder,
            "/api/v1/agent/register",
            {"name": "builder", "workspaces": [{"name": "ModelRouter"}], "platform": "p\x00"},
        ),
        (builder, "/api/v1/permission/request", {"to": "jianf@", "question": "q\x00?"}),
        (
            builder,
            "/api/v1/permission/request",
            {"to": "jianf@", "question": "q?", "context": "\x00"},
        ),
    ]
    responses = await all_of(client.post(path, json=body) for client, path, body in calls)
    responses += await all_of(
        [human.get("/api/v1/me/mail/%00"), human.get("/api/v1/me/sessions/%00")]
    )
    assert_no_server_errors(responses)


async def test_lone_surrogates_are_4xx_or_stored(api: Api) -> None:
    r"""JSON may carry `\ud800`, which no UTF-8 encoder takes: never a 500."""
    human, builder = await parties(api)
    admin = await api.admin()
    s = "\\ud800"
    calls: list[tuple[httpx.AsyncClient, str, str]] = [
        (api.client(), "/api/v1/auth/login", f'{{"username": "jianf", "password": "{s}"}}'),
        (api.client(), "/api/v1/auth/login", f'{{"username": "{s}", "password": "x"}}'),
        (admin, "/api/v1/admin/users", f'{{"name": "eve", "password": "password{s}"}}'),
        (human, "/api/v1/me/mail/send", f'{{"to": "builder@ModelRouter", "subject": "{s}"}}'),
        (human, "/api/v1/me/mail/send", f'{{"to": "builder@ModelRouter", "body": "{s}"}}'),
        (human, "/api/v1/me/mail/send", f'{{"to": "builder@{s}"}}'),
        (human, "/api/v1/me/mail/send", f'{{"to": "builder@ModelRouter", "reply_to": "{s}"}}'),
        (human, "/api/v1/me/keys", f'{{"label": "{s}"}}'),
        (admin, "/api/v1/admin/agent-keys", f'{{"key": "{"k" * 40}{s}"}}'),
        (builder, "/api/v1/permission/request", f'{{"to": "jianf@", "question": "q{s}"}}'),
    ]
    responses = await all_of(send_raw(client, "POST", path, raw) for client, path, raw in calls)
    assert_no_server_errors(responses)
