"""Bad input never yields a 500 (issue 2, point 8).

Malformed JSON, oversized bodies, wrong types, missing fields, bad addresses,
unknown paths and methods each get a 4xx with exactly
`{"error": {"code": <snake_case>, "message": <text>}}`; unknown fields are
ignored. A hypothesis pass throws generated JSON at the main write endpoints.
"""

from __future__ import annotations

import asyncio
import functools
import json
import re
from collections.abc import AsyncIterator, Awaitable, Iterable
from pathlib import Path
from typing import Any

import httpx
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

from tests.support.gateway import Api, running_gateway

CODE = re.compile(r"[a-z][a-z0-9]*(_[a-z0-9]+)*")
WORKSPACES = (("ModelRouter", "/home/u/ModelRouter"), ("infra", "/srv/infra"))


def assert_error_shape(
    response: httpx.Response, status: int | None = None, code: str | None = None
) -> str:
    """Exactly `{"error": {"code", "message"}}`, a 4xx (this status and code); the message."""
    where = f"{response.request.method} {response.request.url.path}"
    if status is None:
        assert 400 <= response.status_code < 500, (where, response.status_code, response.text)
    else:
        assert response.status_code == status, (where, response.status_code, response.text)
    assert response.headers.get("content-type", "").startswith("application/json"), where
    body = response.json()
    assert isinstance(body, dict) and set(body) == {"error"}, (where, body)
    error = body["error"]
    assert isinstance(error, dict) and set(error) == {"code", "message"}, (where, body)
    assert isinstance(error["code"], str) and CODE.fullmatch(error["code"]), (where, body)
    assert isinstance(error["message"], str) and error["message"].strip(), (where, body)
    if code is not None:
        assert error["code"] == code, (where, body)
    message: str = error["message"]
    return message


def problem(response: httpx.Response) -> str | None:
    """What is wrong with a response that must be a success or a well-formed 4xx, if anything."""
    request = response.request
    where = f"{request.method} {request.url.path} {request.content[:200]!r}"
    try:
        assert response.status_code < 500
        if response.status_code >= 400:
            assert_error_shape(response)
    except AssertionError:
        return f"{where} -> {response.status_code} {response.text[:200]}"
    return None


def assert_no_server_errors(responses: Iterable[httpx.Response]) -> None:
    """Every response is a success or a well-formed 4xx; lists all that are not."""
    problems = [p for p in map(problem, responses) if p is not None]
    assert not problems, f"{len(problems)} bad responses:\n" + "\n".join(problems[:20])


async def all_of(calls: Iterable[Awaitable[httpx.Response]]) -> list[httpx.Response]:
    """Independent requests, made concurrently; responses in order."""
    return list(await asyncio.gather(*calls))


async def send_raw(
    client: httpx.AsyncClient, method: str, path: str, content: bytes | str
) -> httpx.Response:
    """A request whose JSON body is exactly these bytes (no client-side encoding)."""
    return await client.request(
        method, path, content=content, headers={"Content-Type": "application/json"}
    )


async def parties(api: Api) -> tuple[httpx.AsyncClient, httpx.AsyncClient]:
    """The human `jianf` and the agent `builder` (workspaces ModelRouter and infra)."""
    await api.admin()
    human, agent = await asyncio.gather(api.human("jianf"), api.agent("builder", WORKSPACES))
    return human, agent


Case = tuple[httpx.AsyncClient, str, dict[str, Any], str]


async def assert_422_naming_fields(cases: list[Case]) -> None:
    """Each `(client, path, body, field)` is a 422 `invalid_request` naming `field`."""
    responses = await all_of(client.post(path, json=body) for client, path, body, _ in cases)
    for (_, path, body, field), response in zip(cases, responses, strict=True):
        message = assert_error_shape(response, 422, "invalid_request")
        assert re.search(rf"(^|[;.\s]){re.escape(field)}[.:]", message), (path, body, message)


# --- malformed, non-object and oversized bodies -----------------------------------------


async def test_malformed_json_is_400_and_other_non_objects_4xx(api: Api) -> None:
    human, builder = await parties(api)
    admin = await api.admin()
    targets = [
        (api.client(), "POST", "/api/v1/auth/login"),
        (human, "POST", "/api/v1/me/mail/send"),
        (human, "POST", "/api/v1/me/keys"),
        (admin, "POST", "/api/v1/admin/users"),
        (builder, "POST", "/api/v1/mail/send"),
        (builder, "POST", "/api/v1/agent/register"),
        (builder, "POST", "/api/v1/permission/request"),
    ]
    junk = ['{"to": ', "{'to': 'x'}", "[1, 2", '{"a": 1}}', "nul", "{,}", '{"a" 1}', "\x00"]
    calls = [(client, method, path, body) for client, method, path in targets for body in junk]
    responses = await all_of(send_raw(c, m, p, body) for c, m, p, body in calls)
    for response in responses:
        assert_error_shape(response, 400, "malformed_json")

    send = "/api/v1/me/mail/send"
    not_objects = ["[]", "null", '"text"', "42", "true", "[{}]", ""]
    responses = await all_of(send_raw(human, "POST", send, body) for body in not_objects)
    for response in responses:
        assert_error_shape(response, 422, "invalid_request")
    strange = [
        b'{"to": "\xff\xfe", "subject": "x"}',
        b"\xff\xfe\x00\x01",
        b"[" * 100_000 + b"]" * 100_000,
        b'{"to": ' * 50_000,
        b'{"subject": ' + b"9" * 5000 + b"}",
    ]
    for response in await all_of(send_raw(human, "POST", send, body) for body in strange):
        assert_error_shape(response)
    # A body that does not say it is JSON is 415, as docs/api.md promises (issue 11,
    # item 15): text/plain, a form (curl -d's default), or no Content-Type at all.
    body = b'{"to": "jianf@"}'
    for content_type in ("text/plain", "application/x-www-form-urlencoded", None):
        headers = {"Content-Type": content_type} if content_type else {}
        request = human.build_request("POST", send, content=body, headers=headers)
        assert ("content-type" in request.headers) == (content_type is not None)
        message = assert_error_shape(await human.send(request), 415, "unsupported_media_type")
        assert "application/json" in message, content_type


async def test_body_over_the_limit_with_content_length_is_413(
    database_url: str, tmp_path: Path
) -> None:
    async with running_gateway(database_url, tmp_path / "d", max_body_bytes=2048) as gateway:
        api = Api(gateway)
        try:
            human = await api.human("jianf")
            small = {"to": "jianf@", "subject": "fits", "body": "x" * 1500}
            big = {"to": "jianf@", "subject": "too big", "body": "x" * 5000}
            assert (await human.post("/api/v1/me/mail/send", json=small)).status_code == 200

            response = await human.post("/api/v1/me/mail/send", json=big)
            assert int(response.request.headers["content-length"]) > 2048
            message = assert_error_shape(response, 413, "payload_too_large")
            assert "2048" in message
            # Before authentication too.
            response = await api.client().post(
                "/api/v1/auth/login", json={"username": "x" * 5000, "password": "p"}
            )
            assert_error_shape(response, 413, "payload_too_large")
            # Nothing was stored, and the gateway goes on.
            sent = await human.get("/api/v1/me/mail/sent")
            assert [m["subject"] for m in sent.json()["mails"]] == ["fits"]
            assert (await human.post("/api/v1/me/mail/send", json=small)).status_code == 200
        finally:
            await api.close()


async def test_chunked_body_over_the_limit_is_413(database_url: str, tmp_path: Path) -> None:
    async with running_gateway(database_url, tmp_path / "d", max_body_bytes=2048) as gateway:
        api = Api(gateway)
        try:
            human = await api.human("jianf")

            def chunked(body: dict[str, Any]) -> AsyncIterator[bytes]:
                payload = json.dumps(body).encode()

                async def chunks() -> AsyncIterator[bytes]:
                    for start in range(0, len(payload), 512):
                        yield payload[start : start + 512]

                return chunks()

            small = {"to": "jianf@", "subject": "fits", "body": "x" * 1500}
            response = await human.post(
                "/api/v1/me/mail/send",
                content=chunked(small),
                headers={"Content-Type": "application/json"},
            )
            assert response.request.headers.get("transfer-encoding") == "chunked"
            assert response.status_code == 200, response.text

            big = {"to": "jianf@", "subject": "too big", "body": "x" * 5000}
            response = await human.post(
                "/api/v1/me/mail/send",
                content=chunked(big),
                headers={"Content-Type": "application/json"},
            )
            assert "content-length" not in response.request.headers
            assert_error_shape(response, 413, "payload_too_large")
            sent = await human.get("/api/v1/me/mail/sent")
            assert [m["subject"] for m in sent.json()["mails"]] == ["fits"]
        finally:
            await api.close()


# --- wrong types and missing fields -----------------------------------------------------


async def test_wrong_types_and_missing_fields_are_422_naming_the_field(api: Api) -> None:
    human, builder = await parties(api)
    admin = await api.admin()
    anonymous = api.client()
    good = {"to": "builder@ModelRouter", "subject": "s", "body": "b"}
    await assert_422_naming_fields(
        [
            (human, "/api/v1/me/mail/send", {**good, "subject": 5}, "subject"),
            (human, "/api/v1/me/mail/send", {**good, "to": ["x"]}, "to"),
            (human, "/api/v1/me/mail/send", {**good, "cc": "x"}, "cc"),
            (human, "/api/v1/me/mail/send", {**good, "cc": [1]}, "cc"),
            (human, "/api/v1/me/mail/send", {**good, "body": {"md": "x"}}, "body"),
            (human, "/api/v1/me/mail/send", {**good, "budget": "lots"}, "budget"),
            (human, "/api/v1/me/mail/send", {**good, "budget": 1.5}, "budget"),
            (human, "/api/v1/me/mail/send", {**good, "reply_to": 7}, "reply_to"),
            (builder, "/api/v1/mail/send", {**good, "to": "jianf@", "auto": "maybe"}, "auto"),
            (builder, "/api/v1/agent/register", {"name": 5, "workspaces": [{"name": "w"}]}, "name"),
            (builder, "/api/v1/agent/register", {"name": "b", "workspaces": "w"}, "workspaces"),
            (builder, "/api/v1/agent/register", {"name": "b", "workspaces": []}, "workspaces"),
            (
                builder,
                "/api/v1/permission/request",
                {"to": "jianf@", "question": "q?", "options": "yes"},
                "options",
            ),
            (human, "/api/v1/me/permission/decide", {"mail_id": "x", "decision": 1}, "decision"),
            (human, "/api/v1/me/keys", {"lifecycle": "forever"}, "lifecycle"),
            (human, "/api/v1/me/keys", {"lifecycle": "timed", "expires_in": [1]}, "expires_in"),
            (anonymous, "/api/v1/auth/login", {"username": ["a"], "password": "p"}, "username"),
            # Missing fields.
            (human, "/api/v1/me/mail/send", {"subject": "s", "body": "b"}, "to"),
            (builder, "/api/v1/mail/send", {"subject": "s"}, "to"),
            (builder, "/api/v1/agent/register", {"workspaces": [{"name": "w"}]}, "name"),
            (builder, "/api/v1/agent/register", {"name": "builder"}, "workspaces"),
            (
                builder,
                "/api/v1/agent/register",
                {"name": "b", "workspaces": [{"path": "/"}]},
                "name",
            ),
            (builder, "/api/v1/permission/request", {"to": "jianf@"}, "question"),
            (builder, "/api/v1/permission/request", {"question": "q?"}, "to"),
            (human, "/api/v1/me/permission/decide", {"decision": "approve"}, "mail_id"),
            (human, "/api/v1/me/permission/decide", {"mail_id": "x"}, "decision"),
            (anonymous, "/api/v1/auth/login", {"username": "admin"}, "password"),
            (anonymous, "/api/v1/auth/login", {"password": "admin-password"}, "username"),
            (admin, "/api/v1/admin/users", {"password": "password123"}, "name"),
            (admin, "/api/v1/admin/users", {"name": "eve"}, "password"),
            (admin, "/api/v1/admin/users", {"name": "eve", "password": "short"}, "password"),
        ]
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


# --- routing and query parameters -------------------------------------------------------


async def test_unknown_paths_wrong_methods_and_bad_queries(api: Api) -> None:
    human, builder = await parties(api)
    anonymous = api.client()
    unknown = ("/api/v1/nope", "/api/v2/me", "/api/v1/me/mail/inbox/extra/parts")
    responses = await all_of(client.get(path) for client in (anonymous, human) for path in unknown)
    for response in responses:
        assert_error_shape(response, 404, "not_found")

    wrong_methods = [
        ("GET", "/api/v1/auth/login"),
        ("PUT", "/api/v1/health"),
        ("DELETE", "/api/v1/me/mail/send"),
        ("GET", "/api/v1/agent/register"),
        ("PATCH", "/api/v1/admin/users"),
    ]
    responses = await all_of(anonymous.request(method, path) for method, path in wrong_methods)
    for response in responses:
        assert_error_shape(response, 405, "method_not_allowed")
        assert response.headers.get("allow")

    bad_queries: list[dict[str, Any]] = [
        {"limit": "lots"},
        {"limit": 0},
        {"limit": 10**6},
        {"offset": -1},
        {"status": "spam"},
        {"mark_read": "perhaps"},
    ]
    responses = await all_of(
        [human.get("/api/v1/me/mail/inbox", params=q) for q in bad_queries]
        + [builder.get("/api/v1/mail/inbox", params=q) for q in bad_queries]
        + [builder.get("/api/v1/agents", params={"status": "asleep"})]
    )
    for response in responses:
        assert_error_shape(response, 422, "invalid_request")
    for response in await all_of(
        [human.get("/api/v1/me/mail/no-such-id"), human.get("/api/v1/me/sessions/no-such-id")]
    ):
        assert_error_shape(response, 404, "not_found")


# --- fuzzing ----------------------------------------------------------------------------

# Characters that have broken gateways: NUL, lone surrogates, address punctuation, non-ASCII.
SPECIALS = ["\x00", "\ud800", "\udfff", "@", ".", " ", "\n", "+", "=", "/", "é", "排"]
_TEXT = st.one_of(
    st.text(max_size=12),
    st.lists(st.one_of(st.sampled_from(SPECIALS), st.characters()), max_size=8).map("".join),
)
_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([0, -1, 2**31, 2**63, 10**30]),
    st.floats(),
    _TEXT,
)
JSON_VALUES = st.recursive(
    _SCALARS,
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(_TEXT, inner, max_size=4),
    max_leaves=8,
)


class Endpoint:
    """A write endpoint, who calls it, a valid body, and plausible values for its fields."""

    def __init__(
        self, method: str, path: str, caller: str, valid: dict[str, Any], more: dict[str, list[Any]]
    ) -> None:
        self.method, self.path, self.caller, self.valid = method, path, caller, valid
        self.plausible = {name: [value] for name, value in valid.items()}
        for name, values in more.items():
            self.plausible.setdefault(name, []).extend(values)

    def __repr__(self) -> str:
        return f"{self.method} {self.path}"


_SEND_MORE: dict[str, list[Any]] = {
    "to": ["builder@ModelRouter.new", "builder@infra", "jianf@.new", "builder+infra@agentmail"],
    "cc": [["jianf@"], ["builder@infra"], []],
    "reply_to": ["{mail_id}"],
    "session_alias": ["fuzz", "new", "x" * 64],
    "from_workspace": ["infra", "ModelRouter"],
    "budget": [1, "unlimited", 0],
    "attachment_ids": [[]],
    "auto": [True],
}
ENDPOINTS = [
    Endpoint(
        "POST",
        "/api/v1/me/mail/send",
        "human",
        {"to": "builder@ModelRouter", "subject": "hello", "body": "hi"},
        _SEND_MORE,
    ),
    Endpoint(
        "POST",
        "/api/v1/mail/send",
        "agent",
        {"to": "jianf@", "subject": "hello", "body": "hi"},
        _SEND_MORE,
    ),
    Endpoint(
        "POST",
        "/api/v1/permission/request",
        "agent",
        {"to": "jianf@", "question": "May I?", "options": ["yes", "no"]},
        {
            "options": [["Yes", "yes"], [], ["a\nb"]],
            "context": ["ctx"],
            "session_id": ["{session_id}"],
            "reply_to": ["{mail_id}"],
            "expires_in": [60, "1h", "30m", 0],
            "action": ["rm -rf build/"],
            "from_workspace": ["infra"],
            "auto": [True],
        },
    ),
    Endpoint(
        "POST",
        "/api/v1/me/permission/decide",
        "human",
        {"mail_id": "{mail_id}", "decision": "yes"},
        {"decision": ["no", "1", "YES"], "note": ["fine"]},
    ),
    Endpoint(
        "POST",
        "/api/v1/agent/register",
        "agent",
        {"name": "builder", "workspaces": [{"name": "ModelRouter", "path": "/m"}]},
        {"name": ["other"], "platform": ["test"], "workspaces": [[{"name": "a"}, {"name": "a"}]]},
    ),
    Endpoint(
        "POST",
        "/api/v1/auth/login",
        "anonymous",
        {"username": "jianf", "password": "password123"},
        {"username": ["admin", "JIANF"], "password": ["wrong"]},
    ),
    Endpoint(
        "POST",
        "/api/v1/admin/users",
        "admin",
        {"name": "eve", "password": "password123"},
        {"name": ["builder", "jianf"], "is_admin": [True]},
    ),
    Endpoint(
        "POST",
        "/api/v1/me/keys",
        "human",
        {"lifecycle": "timed", "expires_in": "1h"},
        {"label": ["k"], "lifecycle": ["permanent", "one_time"], "expires_in": [1, 0]},
    ),
    Endpoint(
        "POST",
        "/api/v1/admin/agent-keys",
        "admin",
        {"lifecycle": "permanent", "label": "k"},
        {"lifecycle": ["timed", "one_time"], "expires_in": [1, "1h"], "key": ["k" * 40]},
    ),
    Endpoint(
        "PATCH",
        "/api/v1/me/sessions/{session_id}",
        "human",
        {"subject": "renamed"},
        {
            "session_alias": ["renamed", "new"],
            "clear_alias": [True],
            "status": ["completed", "active", "waiting"],
        },
    ),
]


def _bodies(endpoint: Endpoint) -> st.SearchStrategy[Any]:
    """Mostly the valid body with a few fields changed or dropped; also anything at all."""

    def value(name: str) -> st.SearchStrategy[Any]:
        plausible = endpoint.plausible[name]
        texts = [v for v in plausible if isinstance(v, str)] or ["x"]
        spiced = st.tuples(st.sampled_from(texts), st.integers(0, 64), st.sampled_from(SPECIALS))
        return st.one_of(
            st.sampled_from(plausible),
            spiced.map(lambda t: t[0][: t[1]] + t[2] + t[0][t[1] :]),
            _TEXT,
            JSON_VALUES,
        )

    names = sorted(endpoint.plausible)
    changes = st.fixed_dictionaries({}, optional={name: value(name) for name in names})
    mutated = st.tuples(
        changes,
        st.sets(st.sampled_from(names), max_size=1),
        st.dictionaries(_TEXT, JSON_VALUES, max_size=2),
    ).map(
        lambda t: {
            **t[2],
            **{k: v for k, v in {**endpoint.valid, **t[0]}.items() if k not in t[1]},
        }
    )
    return st.one_of(mutated, mutated, mutated, changes, JSON_VALUES)


REQUESTS = st.sampled_from(ENDPOINTS).flatmap(
    lambda endpoint: st.tuples(st.just(endpoint), _bodies(endpoint))
)


@functools.cache
def generate_requests(count: int) -> list[tuple[Endpoint, Any]]:
    """`count` (endpoint, body) pairs drawn by hypothesis; the same ones every run (and backend)."""
    drawn: list[tuple[Endpoint, Any]] = []

    @settings(
        max_examples=count,
        database=None,
        derandomize=True,
        deadline=None,
        phases=[Phase.generate],
        suppress_health_check=list(HealthCheck),
    )
    @given(REQUESTS)
    def collect(request: tuple[Endpoint, Any]) -> None:
        drawn.append(request)

    collect()
    return drawn


def _fill(value: Any, real: dict[str, str]) -> Any:
    """Put the real ids in place of the `{mail_id}` / `{session_id}` placeholders."""
    if isinstance(value, str) and value in ("{mail_id}", "{session_id}"):
        return real[value.strip("{}")]
    if isinstance(value, dict):
        return {k: _fill(v, real) for k, v in value.items()}
    return value


FUZZ_REQUESTS = 150


async def test_fuzzed_bodies_never_give_a_500(api: Api) -> None:
    human, builder = await parties(api)
    admin = api.client(await api.user_key(await api.admin()))
    task = await human.post(
        "/api/v1/me/mail/send", json={"to": "builder@ModelRouter", "subject": "task"}
    )
    assert task.status_code == 200, task.text
    asked = await builder.post(
        "/api/v1/permission/request",
        json={
            "to": "jianf@",
            "question": "May I?",
            "options": ["yes", "no"],
            "session_id": task.json()["session_id"],
        },
    )
    assert asked.status_code == 200, asked.text
    real = {"mail_id": asked.json()["mail_id"], "session_id": task.json()["session_id"]}
    callers = {"human": human, "agent": builder, "admin": admin, "anonymous": api.client()}

    by_endpoint: dict[str, list[str]] = {}
    for endpoint, body in generate_requests(FUZZ_REQUESTS):
        # NaN and Infinity on purpose: Python's JSON reader takes them.
        by_endpoint.setdefault(repr(endpoint), []).append(json.dumps(_fill(body, real)))
    assert len(by_endpoint) == len(ENDPOINTS)

    responses: list[httpx.Response] = []

    async def replay(endpoint: Endpoint, bodies: list[str]) -> None:
        # One endpoint's requests go one after another, the endpoints side by side.
        client = callers[endpoint.caller]
        for raw in bodies:
            path = endpoint.path.format(**real)
            responses.append(await send_raw(client, endpoint.method, path, raw))

    await asyncio.gather(*(replay(e, by_endpoint[repr(e)]) for e in ENDPOINTS))
    assert len(responses) == FUZZ_REQUESTS
    assert_no_server_errors(responses)
    # The generated bodies reach past validation too.
    assert sum(r.status_code < 300 for r in responses) > FUZZ_REQUESTS // 10
