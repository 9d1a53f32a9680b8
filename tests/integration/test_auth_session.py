"""`GET /auth/session`: who the login cookie signs in, or null, never a refusal
(the web UI asks it before it knows whether to show the login form), on SQLite
and PostgreSQL."""

from __future__ import annotations

from tests.support.gateway import PASSWORD, Api
from tests.support.http import ok

SESSION = "/api/v1/auth/session"


async def test_the_session_is_the_cookies_login_or_null(api: Api) -> None:
    await api.human("jianf")
    assert ok(await api.client().get(SESSION)) == {"user": None}

    browser = await api.login("jianf", PASSWORD)
    user = ok(await browser.get(SESSION))["user"]
    assert user == ok(await browser.get("/api/v1/me"))["user"]
    assert user["name"] == "jianf"

    ended = api.client()
    ended.cookies.update(browser.cookies)  # kept after the logout: a login that has ended
    ok(await browser.post("/api/v1/auth/logout"))
    assert ok(await browser.get(SESSION)) == {"user": None}
    assert (await ended.get("/api/v1/me")).status_code == 401
    assert ok(await ended.get(SESSION)) == {"user": None}


async def test_only_the_cookie_is_read(api: Api) -> None:
    human = await api.human("jianf")
    key = await api.user_key(human)
    one_time = await api.user_key(human, "one_time")
    assert ok(await api.client(key).get(SESSION)) == {"user": None}
    assert ok(await api.client(one_time).get(SESSION)) == {"user": None}
    assert (await api.client(one_time).get("/api/v1/me")).status_code == 200  # not spent
    planted = api.client()
    planted.cookies.set("agentmail_session", key)  # a key is no login
    assert ok(await planted.get(SESSION)) == {"user": None}
    junk = api.client()
    junk.cookies.set("agentmail_session", "ams_" + "x" * 40)
    assert ok(await junk.get(SESSION)) == {"user": None}
