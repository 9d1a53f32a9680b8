"""Auth boundaries: logins, missing or bad credentials, users and
names, secrets stored only as hashes.

Every boundary of ARCHITECTURE.md "Data model" (keys) and "Interfaces (contract)"
is checked over HTTP against a real gateway, on SQLite and on PostgreSQL; what each
kind of key reaches: test_key_scopes.py; keys' lifecycles and revocation:
test_key_lifecycle.py.
"""

from __future__ import annotations

import asyncio
import hashlib
import re
import secrets
from typing import Any

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.store.models import Base, Key, User
from tests.support.credentials import (
    ADMIN_CALLS,
    COOKIE,
    assert_error,
    call_all,
    cookie_client,
    issue_agent_key,
    issue_user_key,
    register,
    registration,
)
from tests.support.gateway import ADMIN_PASSWORD, PASSWORD, Api

# --- web login --------------------------------------------------------------------------


async def test_first_start_created_the_admin_and_login_sets_an_httponly_cookie(api: Api) -> None:
    client = api.client()
    response = await client.post(
        "/api/v1/auth/login", json={"username": "admin", "password": ADMIN_PASSWORD}
    )
    assert response.status_code == 200, response.text
    assert response.json()["user"]["name"] == "admin"
    assert response.json()["user"]["is_admin"] is True
    set_cookie = response.headers["set-cookie"]
    assert set_cookie.startswith(f"{COOKIE}="), set_cookie
    assert "httponly" in set_cookie.lower(), set_cookie
    assert client.cookies.get(COOKIE)

    me = await client.get("/api/v1/me")
    assert me.status_code == 200, me.text
    assert me.json()["user"]["name"] == "admin"
    assert me.json()["user"]["is_admin"] is True


async def test_wrong_password_and_unknown_user_look_the_same(api: Api) -> None:
    await api.human("jianf")
    client = api.client()
    wrong = await client.post(
        "/api/v1/auth/login", json={"username": "jianf", "password": "not-the-password"}
    )
    unknown = await client.post(
        "/api/v1/auth/login", json={"username": "nobody", "password": "not-the-password"}
    )
    wrong_message = assert_error(wrong, 401, "unauthorized")
    unknown_message = assert_error(unknown, 401, "unauthorized")
    assert wrong_message == unknown_message
    assert COOKIE not in wrong.headers.get("set-cookie", "")
    assert COOKIE not in unknown.headers.get("set-cookie", "")


async def test_logout_revokes_the_login_server_side(api: Api) -> None:
    human = await api.human("jianf")
    token = human.cookies.get(COOKIE)
    assert token
    assert (await human.get("/api/v1/me")).status_code == 200
    # A copy of the cookie works as long as the login lives.
    copy = cookie_client(api, token)
    assert (await copy.get("/api/v1/me")).status_code == 200

    response = await human.post("/api/v1/auth/logout")
    assert response.status_code == 200, response.text

    assert_error(await human.get("/api/v1/me"), 401, "unauthorized")
    # Replaying the old cookie value (a stolen or kept copy) no longer works either.
    assert_error(await copy.get("/api/v1/me"), 401, "unauthorized")
    assert_error(await api.client(token).get("/api/v1/me"), 401, "unauthorized")
    # The browser is told it is logged out, not that a "key" is bad.
    after_logout = (await copy.get("/api/v1/me")).json()["error"]["message"]
    assert after_logout.startswith("not logged in"), after_logout
    as_key = (await api.client(token).get("/api/v1/me")).json()["error"]["message"]
    assert "key" in as_key
    # Logging in again gives a new, working login.
    again = await api.login("jianf", PASSWORD)
    assert (await again.get("/api/v1/me")).status_code == 200
    assert again.cookies.get(COOKIE) != token


# --- no or bad credentials --------------------------------------------------------------

PROTECTED: list[tuple[str, str, dict[str, Any] | None]] = [
    ("GET", "/api/v1/me", None),
    ("POST", "/api/v1/auth/logout", None),
    ("GET", "/api/v1/me/mail/inbox", None),
    ("POST", "/api/v1/me/mail/send", {"to": "admin@", "subject": "s", "body": "b"}),
    ("GET", "/api/v1/me/keys", None),
    ("POST", "/api/v1/me/keys", {"lifecycle": "permanent"}),
    ("POST", "/api/v1/me/permission/decide", {"mail_id": "x", "decision": "approve"}),
    ("GET", "/api/v1/me/sessions", None),
    *ADMIN_CALLS,
    ("POST", "/api/v1/agent/register", registration("builder")),
    ("POST", "/api/v1/agent/heartbeat", None),
    ("GET", "/api/v1/agents", None),
    ("POST", "/api/v1/mail/send", {"to": "admin@", "subject": "s", "body": "b"}),
    ("GET", "/api/v1/mail/inbox", None),
    ("POST", "/api/v1/permission/request", {"to": "admin@", "question": "q?"}),
    ("GET", "/api/v1/sessions", None),
    ("GET", "/api/v1/events/stream", None),
]


async def test_no_credentials_is_401_everywhere_protected(api: Api) -> None:
    for method, path, response in await call_all(api.client(), PROTECTED):
        assert_error(response, 401, "unauthorized")
        assert response.headers.get("www-authenticate") == "Bearer", (method, path)


async def test_garbage_credentials_are_401(api: Api) -> None:
    await api.agent("builder")  # there are real keys in the table
    for token in ("garbage", "amk_" + "x" * 43, "amu_" + secrets.token_urlsafe(32)):
        for method, path, response in await call_all(api.client(token), PROTECTED):
            assert_error(response, 401, "unauthorized")
            assert response.headers.get("www-authenticate") == "Bearer", (method, path)
    garbage_cookie = cookie_client(api, "ams_" + secrets.token_urlsafe(32))
    assert_error(await garbage_cookie.get("/api/v1/me"), 401, "unauthorized")


async def test_a_key_in_the_login_cookie_is_not_a_login(api: Api) -> None:
    """The cookie carries a web login only: a key planted in it would act with the
    browser's ambient authority. A one-time key put there is not spent."""
    human = await api.human("jianf")
    permanent = (await issue_user_key(human))["key"]
    one_time = (await issue_user_key(human, "one_time"))["key"]
    agent = (await issue_agent_key(api))["key"]
    for key in (permanent, one_time, agent):
        message = assert_error(await cookie_client(api, key).get("/api/v1/me"), 401)
        assert message.startswith("not logged in"), message
    assert (await api.client(permanent).get("/api/v1/me")).status_code == 200
    assert (await api.client(one_time).get("/api/v1/me")).status_code == 200


# --- users and names --------------------------------------------------------------------


async def test_only_admins_create_users_and_agent_keys(api: Api) -> None:
    human = await api.human("jianf")
    new_user = {"name": "eve", "password": "password123", "is_admin": True}
    assert_error(await human.post("/api/v1/admin/users", json=new_user), 403, "forbidden")
    assert_error(await human.get("/api/v1/admin/users"), 403, "forbidden")
    assert_error(
        await human.post("/api/v1/admin/agent-keys", json={"lifecycle": "permanent"}),
        403,
        "forbidden",
    )
    assert_error(await human.get("/api/v1/admin/agent-keys"), 403, "forbidden")
    # A user key of a non-admin is no better than the login.
    user_key = api.client(await api.user_key(human))
    assert_error(await user_key.post("/api/v1/admin/users", json=new_user), 403, "forbidden")

    admin = await api.admin()
    created = await admin.post("/api/v1/admin/users", json=new_user)
    assert created.status_code == 201, created.text
    assert created.json()["name"] == "eve" and created.json()["is_admin"] is True
    listed = await admin.get("/api/v1/admin/users")
    assert {u["name"] for u in listed.json()["users"]} == {"admin", "jianf", "eve"}
    # The new admin is one.
    eve = await api.login("eve", "password123")
    assert (await eve.post("/api/v1/admin/agent-keys", json={})).status_code == 201


async def test_duplicate_user_name_is_409(api: Api) -> None:
    await api.human("jianf")
    admin = await api.admin()
    for name in ("jianf", "JianF", "admin"):
        response = await admin.post(
            "/api/v1/admin/users", json={"name": name, "password": "password123"}
        )
        assert_error(response, 409, "name_taken")


async def test_concurrent_creation_of_one_user_name_one_wins(api: Api) -> None:
    """Admins racing to create one name: one 201, the others 409 (never a 500)."""
    admin = await api.admin()
    for name in ("jianf", "eve", "mallory"):
        user = {"name": name, "password": "password123"}
        responses = await asyncio.gather(
            *(admin.post("/api/v1/admin/users", json=user) for _ in range(8))
        )
        statuses = sorted(r.status_code for r in responses)
        assert statuses == [201] + [409] * 7, [(r.status_code, r.text) for r in responses]
        for response in responses:
            if response.status_code != 201:
                assert_error(response, 409, "name_taken")


async def test_a_user_and_an_agent_racing_for_one_name_one_wins(api: Api) -> None:
    """A user created while an agent registers the same name: exactly one gets it."""
    admin = await api.admin()
    for n in range(5):
        name = f"racer{n}"
        agent = api.client(await api.agent_key())
        user, registered = await asyncio.gather(
            admin.post("/api/v1/admin/users", json={"name": name, "password": "password123"}),
            register(agent, name),
        )
        winners = (user.status_code == 201) + (registered.status_code == 200)
        assert winners == 1, (name, user.status_code, registered.status_code)
        loser = registered if user.status_code == 201 else user
        assert_error(loser, 409, "name_taken")


# --- storage of secrets -----------------------------------------------------------------


async def _all_stored_text(api: Api) -> list[str]:
    """Every value in every table of the store, as text."""
    store = api.gateway.store
    assert store is not None
    values: list[str] = []

    def read_all(session: Session) -> None:
        for table in Base.metadata.sorted_tables:
            for row in session.execute(select(table)).all():
                for value in row:
                    if isinstance(value, bytes):
                        values.append(value.decode("utf-8", "replace"))
                    elif value is not None:
                        values.append(str(value))

    await store.read(read_all)
    return values


async def test_keys_and_passwords_are_stored_only_as_hashes(api: Api) -> None:
    human = await api.human("jianf")
    login_token = human.cookies.get(COOKIE)
    assert login_token
    client_key = "client-" + secrets.token_hex(24)
    issued_keys = [
        (await issue_agent_key(api))["key"],
        (await issue_agent_key(api, "one_time"))["key"],
        (await issue_agent_key(api, "timed", expires_in="1h"))["key"],
        (await issue_user_key(human))["key"],
        (await issue_user_key(human, "one_time"))["key"],
        login_token,
    ]
    assert (await issue_agent_key(api, key=client_key))["key"] is None
    enrolled = await register(api.client(issued_keys[1]), "builder")
    issued_keys.append(enrolled.json()["agent_key"])
    issued_keys.append(client_key)
    assert all(issued_keys)

    stored = await _all_stored_text(api)
    for key in issued_keys:
        assert not any(key in value for value in stored), "a plaintext key is stored"
        for password in (PASSWORD, ADMIN_PASSWORD):
            assert not any(password in value for value in stored), "a plaintext password"

    store = api.gateway.store
    assert store is not None
    digests = set(await store.read(lambda s: s.scalars(select(Key.token_sha256)).all()))
    users = {u.name: u for u in await store.read(lambda s: s.scalars(select(User)).all())}
    for key in issued_keys:
        assert hashlib.sha256(key.encode()).hexdigest() in digests
    for user in users.values():
        assert re.fullmatch(r"\$2[aby]\$\d\d\$[./A-Za-z0-9]{53}", user.password_hash), user.name


async def test_key_listings_never_show_the_key(api: Api) -> None:
    human = await api.human("jianf")
    agent_keys = [(await issue_agent_key(api, lc))["key"] for lc in ("permanent", "one_time")]
    user_keys = [(await issue_user_key(human, lc))["key"] for lc in ("permanent", "one_time")]
    admin = await api.admin()
    admin_list = await admin.get("/api/v1/admin/agent-keys")
    my_list = await human.get("/api/v1/me/keys")
    assert admin_list.status_code == 200 and my_list.status_code == 200
    assert len(admin_list.json()["keys"]) == 2
    assert len(my_list.json()["keys"]) == 2
    for key in agent_keys + user_keys:
        assert key not in admin_list.text
        assert key not in my_list.text
    for view in admin_list.json()["keys"] + my_list.json()["keys"]:
        assert "key" not in view and "token_sha256" not in view
    # A user sees only their own keys.
    other = await api.human("other")
    assert (await other.get("/api/v1/me/keys")).json()["keys"] == []
