"""A refusal about particular inputs names them as data: `error.fields`, each
`{field, code, limit?}` (docs/api.md "Errors"), so a client says it in its own
words instead of showing pydantic's English. On SQLite and PostgreSQL.
"""

from __future__ import annotations

from typing import Any

import httpx
import pytest

from tests.support.gateway import PASSWORD, Api
from tests.support.http import HUMAN_SEND, ok
from tests.support.refusals import assert_error_shape

FOLDERS = "/api/v1/me/folders"


def fields_of(response: httpx.Response, status: int, code: str) -> list[dict[str, Any]]:
    """The refusal's `fields`, after its shape, status and code are checked."""
    assert_error_shape(response, status, code)
    found: list[dict[str, Any]] = response.json()["error"].get("fields", [])
    return found


SEND_CASES: list[tuple[dict[str, Any], list[dict[str, Any]]]] = [
    (
        {"to": "jianf@", "subject": "x" * 5000},
        [{"field": "subject", "code": "too_long", "limit": 998}],
    ),
    ({"subject": "no recipient"}, [{"field": "to", "code": "missing"}]),
    ({"to": 42}, [{"field": "to", "code": "type"}]),
    ({"to": "jianf@", "cc": ["a@", 7]}, [{"field": "cc.1", "code": "type"}]),
    ({"to": "jianf@", "mail_type": "poem"}, [{"field": "mail_type", "code": "choice"}]),
    ({"to": "builder@ModelRouter", "budget": 0}, [{"field": "budget", "code": "invalid"}]),
    (
        {"to": "jianf@", "attachment_ids": ["a"] * 51},
        [{"field": "attachment_ids", "code": "too_long", "limit": 50}],
    ),
    (
        {"to": "builder@ModelRouter.new", "session_alias": "a" * 65},
        [{"field": "session_alias", "code": "too_long", "limit": 64}],
    ),
    (
        {"to": "jianf@", "subject": "two\nlines"},
        [{"field": "subject", "code": "format"}],
    ),
]


@pytest.mark.parametrize(("body", "expected"), SEND_CASES)
async def test_a_send_refused_for_its_shape_names_the_field(
    api: Api, body: dict[str, Any], expected: list[dict[str, Any]]
) -> None:
    human = await api.human("jianf")
    assert fields_of(await human.post(HUMAN_SEND, json=body), 422, "invalid_request") == expected


async def test_query_bounds_are_the_largest_and_smallest_values_allowed(api: Api) -> None:
    human = await api.human("jianf")
    inbox = "/api/v1/me/mail/inbox"
    for query, expected in [
        ("limit=501", {"field": "limit", "code": "too_large", "limit": 500}),
        ("limit=0", {"field": "limit", "code": "too_small", "limit": 1}),
        ("offset=-1", {"field": "offset", "code": "too_small", "limit": 0}),
        ("status=gone", {"field": "status", "code": "choice"}),
        ("limit=ten", {"field": "limit", "code": "type"}),
    ]:
        response = await human.get(f"{inbox}?{query}")
        assert fields_of(response, 422, "invalid_request") == [expected], query


async def test_several_problems_each_named_once(api: Api) -> None:
    admin = await api.admin()
    response = await admin.post("/api/v1/admin/users", json={"name": "n" * 65, "password": "pw"})
    assert fields_of(response, 422, "invalid_request") == [
        {"field": "name", "code": "too_long", "limit": 64},
        {"field": "password", "code": "too_short", "limit": 8},
    ]


async def test_a_wrong_current_password_is_told_apart_from_a_failed_login(api: Api) -> None:
    human = await api.human("jianf")
    wrong = {"current_password": "not-it", "new_password": "a-new-password-42"}
    response = await human.post("/api/v1/me/password", json=wrong)
    assert fields_of(response, 401, "unauthorized") == [
        {"field": "current_password", "code": "wrong"}
    ]
    short = {"current_password": PASSWORD, "new_password": "short"}
    assert fields_of(
        await human.post("/api/v1/me/password", json=short), 422, "invalid_request"
    ) == [{"field": "new_password", "code": "too_short", "limit": 8}]
    # A failed login, and a login that has ended, name no field.
    login = {"username": "jianf", "password": "not-it"}
    assert (
        fields_of(await api.client().post("/api/v1/auth/login", json=login), 401, "unauthorized")
        == []
    )
    assert (
        fields_of(await api.client().post("/api/v1/me/password", json=wrong), 401, "unauthorized")
        == []
    )


async def test_names_taken_and_reserved(api: Api) -> None:
    admin = await api.admin()
    human = await api.human("jianf")
    users = "/api/v1/admin/users"
    taken = {"name": "jianf", "password": PASSWORD}
    assert fields_of(await admin.post(users, json=taken), 409, "name_taken") == [
        {"field": "name", "code": "taken"}
    ]
    reserved = {"name": "postmaster", "password": PASSWORD}
    assert fields_of(await admin.post(users, json=reserved), 409, "name_taken") == [
        {"field": "name", "code": "reserved"}
    ]
    assert (await human.post(FOLDERS, json={"name": "Clients"})).status_code == 201
    for name, status, code, expected in [
        ("Clients", 409, "name_taken", {"field": "name", "code": "taken"}),
        ("Trash", 409, "name_taken", {"field": "name", "code": "reserved"}),
        ("Sessions/mine", 422, "invalid_request", {"field": "name", "code": "reserved"}),
        ("a//b", 422, "invalid_request", {"field": "name", "code": "format"}),
        ("a*", 422, "invalid_request", {"field": "name", "code": "format"}),
        ("x" * 256, 422, "limit_reached", {"field": "name", "code": "too_long", "limit": 255}),
    ]:
        response = await human.post(FOLDERS, json={"name": name})
        assert fields_of(response, status, code) == [expected], name


async def test_a_conversation_subject_is_one_short_line(api: Api) -> None:
    human = await api.human("jianf")
    builder = await api.agent("builder")
    sent = ok(await builder.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "Task"}))
    url = f"/api/v1/me/sessions/{sent['session_id']}"
    for change, expected in [
        ({"subject": "y" * 999}, {"field": "subject", "code": "too_long", "limit": 998}),
        ({"subject": "one\rtwo"}, {"field": "subject", "code": "format"}),
        ({"session_alias": "z" * 65}, {"field": "session_alias", "code": "too_long", "limit": 64}),
    ]:
        response = await human.patch(url, json=change)
        assert fields_of(response, 422, "invalid_request") == [expected], change


async def test_a_search_names_its_query(api: Api) -> None:
    human = await api.human("jianf")
    for query, expected in [
        ("is:maybe", {"field": "q", "code": "format"}),
        ("x" * 501, {"field": "q", "code": "too_long", "limit": 500}),
    ]:
        response = await human.get("/api/v1/me/search", params={"q": query})
        assert fields_of(response, 422, "invalid_request") == [expected], query


async def test_a_key_lifetime_is_named(api: Api) -> None:
    human = await api.human("jianf")
    for body, expected in [
        ({"lifecycle": "timed", "expires_in": "soon"}, {"field": "expires_in", "code": "format"}),
        ({"lifecycle": "timed"}, {"field": "expires_in", "code": "missing"}),
        ({"lifecycle": "timed", "expires_in": "0s"}, {"field": "expires_in", "code": "format"}),
    ]:
        response = await human.post("/api/v1/me/keys", json=body)
        assert fields_of(response, 422, "invalid_request") == [expected], body


async def test_refusals_about_no_input_carry_no_fields(api: Api) -> None:
    human = await api.human("jianf")
    for body in ("[]", "null", '"text"'):
        response = await human.post(
            HUMAN_SEND, content=body, headers={"Content-Type": "application/json"}
        )
        assert fields_of(response, 422, "invalid_request") == [], body
    assert fields_of(await human.get("/api/v1/me/mail/nope"), 404, "not_found") == []
