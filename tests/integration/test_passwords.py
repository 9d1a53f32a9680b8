"""Security issue, hole 7: changing passwords, the admin flag, and web logins one
can list and revoke — on SQLite and PostgreSQL.
"""

from __future__ import annotations

from pathlib import Path

import httpx

from tests.support.cli import agentmail
from tests.support.gateway import ADMIN_PASSWORD, PASSWORD, Api
from tests.support.http import ok, refused

NEW_PASSWORD = "a-new-password-42"


async def status(client: httpx.AsyncClient) -> int:
    return (await client.get("/api/v1/me")).status_code


async def login_status(api: Api, name: str, password: str) -> int:
    response = await api.client().post(
        "/api/v1/auth/login", json={"username": name, "password": password}
    )
    return response.status_code


async def test_changing_ones_password_ends_the_other_web_logins(api: Api) -> None:
    here = await api.human("jianf")
    elsewhere = await api.login("jianf", PASSWORD)
    key = await api.user_key(here)
    keyed = api.client(key)

    wrong = {"current_password": "not-it", "new_password": NEW_PASSWORD}
    refused(await here.post("/api/v1/me/password", json=wrong), 401, "unauthorized")
    short = {"current_password": PASSWORD, "new_password": "short"}
    refused(await here.post("/api/v1/me/password", json=short), 422, "invalid_request")

    change = {"current_password": PASSWORD, "new_password": NEW_PASSWORD}
    assert ok(await here.post("/api/v1/me/password", json=change)) == {"status": "changed"}
    assert await status(here) == 200  # the login that changed it goes on
    assert await status(elsewhere) == 401  # every other one ended
    assert await status(keyed) == 200  # keys stay
    assert await login_status(api, "jianf", PASSWORD) == 401  # the old password is dead
    assert await login_status(api, "jianf", NEW_PASSWORD) == 200

    # By a user key: every web login ends (none of them made the change).
    back = {"current_password": NEW_PASSWORD, "new_password": PASSWORD}
    assert ok(await keyed.post("/api/v1/me/password", json=back))["status"] == "changed"
    assert await status(here) == 401
    assert await login_status(api, "jianf", PASSWORD) == 200


async def test_wrong_current_passwords_are_throttled(api: Api) -> None:
    human = await api.human("jianf")
    wrong = {"current_password": "not-it", "new_password": NEW_PASSWORD}
    answers = [(await human.post("/api/v1/me/password", json=wrong)).status_code for _ in range(7)]
    assert answers == [401] * 5 + [429] * 2


async def test_web_logins_are_listed_and_revocable(api: Api) -> None:
    human = await api.human("jianf")
    other = api.client()
    other.headers["User-Agent"] = "Thunderbird-ish/1.0"
    login = {"username": "jianf", "password": PASSWORD}
    assert (await other.post("/api/v1/auth/login", json=login)).status_code == 200

    logins = ok(await human.get("/api/v1/me/logins"))["logins"]
    assert len(logins) == 2
    current = [entry for entry in logins if entry["current"]]
    assert len(current) == 1 and current[0]["user_agent"].startswith("python-httpx")
    foreign = next(entry for entry in logins if not entry["current"])
    assert foreign["user_agent"] == "Thunderbird-ish/1.0"
    assert foreign["last_used_at"] is not None and foreign["expires_at"] is not None
    # Conversations are elsewhere: /me/sessions is untouched by this.
    assert "sessions" in ok(await human.get("/api/v1/me/sessions"))

    # Another user can neither see nor revoke them.
    bob = await api.human("bob")
    assert len(ok(await bob.get("/api/v1/me/logins"))["logins"]) == 1
    response = await bob.delete(f"/api/v1/me/logins/{foreign['login_id']}")
    refused(response, 404, "not_found")
    assert await status(other) == 200

    ok(await human.delete(f"/api/v1/me/logins/{foreign['login_id']}"))
    assert await status(other) == 401  # the revoked login's cookie
    assert [e["login_id"] for e in ok(await human.get("/api/v1/me/logins"))["logins"]] == [
        current[0]["login_id"]
    ]
    # A user key's listing marks none as current; keys are not logins.
    keyed = api.client(await api.user_key(human))
    listed = ok(await keyed.get("/api/v1/me/logins"))["logins"]
    assert [entry["current"] for entry in listed] == [False]
    refused(await human.delete("/api/v1/me/logins/no-such-login"), 404, "not_found")


async def test_an_admin_resets_a_password(api: Api) -> None:
    human = await api.human("jianf")
    admin = await api.admin()
    keyed = api.client(await api.user_key(human))
    reset = {"new_password": NEW_PASSWORD}
    assert ok(await admin.post("/api/v1/admin/users/jianf/password", json=reset))
    assert await status(human) == 401
    assert await status(keyed) == 200
    assert await login_status(api, "jianf", PASSWORD) == 401
    assert await login_status(api, "jianf", NEW_PASSWORD) == 200
    refused(await human.post("/api/v1/admin/users/jianf/password", json=reset), 401, "unauthorized")
    user = await api.login("jianf", NEW_PASSWORD)
    refused(await user.post("/api/v1/admin/users/admin/password", json=reset), 403, "forbidden")
    response = await admin.post("/api/v1/admin/users/nobody/password", json=reset)
    refused(response, 404, "not_found")
    # Resetting one's own keeps the login that did it.
    assert ok(await admin.post("/api/v1/admin/users/admin/password", json=reset))
    assert await status(admin) == 200


async def test_the_admin_flag_and_the_last_admin(api: Api) -> None:
    admin = await api.admin()
    await api.human("jianf")
    made = ok(await admin.patch("/api/v1/admin/users/jianf", json={"is_admin": True}))
    assert made["is_admin"] is True
    jianf = await api.login("jianf", PASSWORD)
    assert (await jianf.get("/api/v1/admin/users")).status_code == 200

    # Two admins: one may step down; then the last one may not.
    assert ok(await jianf.patch("/api/v1/admin/users/admin", json={"is_admin": False}))
    message = refused(
        await jianf.patch("/api/v1/admin/users/jianf", json={"is_admin": False}), 403, "forbidden"
    )
    assert "last admin" in message
    refused(await admin.get("/api/v1/admin/users"), 403, "forbidden")  # no longer an admin
    users = ok(await jianf.get("/api/v1/admin/users"))["users"]
    assert [u["name"] for u in users if u["is_admin"]] == ["jianf"]
    response = await jianf.patch("/api/v1/admin/users/nobody", json={"is_admin": True})
    refused(response, 404, "not_found")


async def test_agentmail_user_passwd_reads_stdin(
    api: Api, database_url: str, tmp_path: Path
) -> None:
    human = await api.human("jianf")
    data_dir = api.gateway.settings.data_dir
    result = await agentmail(
        "user", "passwd", "jianf", db=database_url, data_dir=data_dir, stdin=NEW_PASSWORD + "\n"
    )
    assert result.exit_code == 0, result.output
    assert NEW_PASSWORD not in result.output
    assert await status(human) == 401
    assert await login_status(api, "jianf", PASSWORD) == 401
    assert await login_status(api, "jianf", NEW_PASSWORD) == 200
    too_short = await agentmail(
        "user", "passwd", "jianf", db=database_url, data_dir=data_dir, stdin="short\n"
    )
    assert too_short.exit_code == 1 and "characters" in too_short.output
    unknown = await agentmail(
        "user", "passwd", "nobody", db=database_url, data_dir=data_dir, stdin=NEW_PASSWORD + "\n"
    )
    assert unknown.exit_code == 1 and "no user named" in unknown.output
    assert await login_status(api, "admin", ADMIN_PASSWORD) == 200  # others unconcerned
