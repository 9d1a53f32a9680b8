"""Bad input never yields a 500: malformed requests.

Malformed JSON, oversized bodies, wrong types, missing fields, unknown paths, wrong
methods and bad queries each get a 4xx with exactly
`{"error": {"code": <snake_case>, "message": <text>}}` (tests/support/refusals.py).
Bad values: test_bad_values.py; generated JSON: test_fuzzed_input.py.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator
from pathlib import Path
from typing import Any

from tests.support.gateway import Api, running_gateway
from tests.support.refusals import (
    all_of,
    assert_422_naming_fields,
    assert_error_shape,
    parties,
    send_raw,
)

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
    # A body that does not say it is JSON is 415, as docs/api.md promises:
    # text/plain, a form (curl -d's default), or no Content-Type at all.
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
