"""Auth boundaries: the lifecycles of keys.

Enrolment keys exchanged once for a permanent key, one-time and timed keys,
revocation at once, client-generated agent keys. Over HTTP against a real gateway,
on SQLite and on PostgreSQL.
"""

from __future__ import annotations

import asyncio
import secrets
from datetime import UTC, datetime, timedelta

from tests.support.credentials import assert_error, issue_agent_key, issue_user_key, register
from tests.support.gateway import Api
from tests.support.sse import open_stream

# --- enrolment (one-time agent) keys ----------------------------------------------------


async def test_enrolment_key_is_exchanged_for_a_permanent_key(api: Api) -> None:
    human = await api.human("jianf")
    enrolment_key = await api.agent_key("one_time")
    enrolment = api.client(enrolment_key)

    # Unused, it is good for nothing but register.
    assert_error(await enrolment.post("/api/v1/agent/heartbeat"), 403, "forbidden")
    assert_error(
        await enrolment.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "s"}),
        403,
        "forbidden",
    )
    assert_error(await enrolment.get("/api/v1/mail/inbox"), 403, "forbidden")
    assert_error(await enrolment.get("/api/v1/events/stream"), 403, "forbidden")
    assert_error(await enrolment.get("/api/v1/agents"), 403, "forbidden")

    # Refused for a taken name, it stays unused.
    await api.agent("taken")
    assert_error(await register(enrolment, "taken"), 409, "name_taken")

    registered = await register(enrolment, "builder")
    assert registered.status_code == 200, registered.text
    permanent_key = registered.json()["agent_key"]
    assert isinstance(permanent_key, str) and permanent_key != enrolment_key

    # The one-time key is dead, for register too.
    assert_error(await register(enrolment, "builder"), 401, "unauthorized")
    assert_error(await enrolment.post("/api/v1/agent/heartbeat"), 401, "unauthorized")

    # The permanent key is the agent's.
    agent = api.client(permanent_key)
    assert (await agent.post("/api/v1/agent/heartbeat")).status_code == 200
    sent = await agent.post("/api/v1/mail/send", json={"to": "jianf@", "subject": "hi"})
    assert sent.status_code == 200, sent.text
    inbox = (await human.get("/api/v1/me/mail/inbox")).json()["mails"]
    assert [m["from"] for m in inbox] == ["builder@ModelRouter.hi"]
    assert (await register(agent, "builder")).json()["agent_key"] is None
    assert_error(await register(agent, "other"), 403, "forbidden")

    admin = await api.admin()
    listed = (await admin.get("/api/v1/admin/agent-keys")).json()["keys"]
    keys = {k["lifecycle"]: k for k in listed if k["owner"] == "builder"}
    assert keys["one_time"]["active"] is False
    assert keys["one_time"]["owner"] == "builder"
    assert keys["permanent"]["active"] is True
    assert keys["permanent"]["owner"] == "builder"


async def test_enrolment_key_enrols_once_even_when_raced(api: Api) -> None:
    """Two registrations racing with one enrolment key: only one permanent key comes out."""
    enrolment = api.client(await api.agent_key("one_time"))
    responses = await asyncio.gather(*(register(enrolment, f"agent{n}") for n in range(4)))
    ok = [r for r in responses if r.status_code == 200]
    assert len(ok) == 1, [(r.status_code, r.text) for r in responses]
    for response in responses:
        if response.status_code != 200:
            assert_error(response, 401, "unauthorized")
    admin = await api.admin()
    agents = (await admin.get("/api/v1/agents")).json()["agents"]
    assert len(agents) == 1


# --- one-time user keys -----------------------------------------------------------------


async def test_one_time_user_key_serves_exactly_one_request(api: Api) -> None:
    human = await api.human("jianf")
    client = api.client(await api.user_key(human, "one_time"))
    assert (await client.get("/api/v1/me")).status_code == 200
    assert_error(await client.get("/api/v1/me"), 401, "unauthorized")
    assert_error(await client.get("/api/v1/me/mail/inbox"), 401, "unauthorized")


async def test_one_time_user_key_serves_one_of_concurrent_requests(api: Api) -> None:
    human = await api.human("jianf")
    client = api.client(await api.user_key(human, "one_time"))
    responses = await asyncio.gather(*(client.get("/api/v1/me") for _ in range(5)))
    assert sorted(r.status_code for r in responses) == [200, 401, 401, 401, 401]


# --- timed keys -------------------------------------------------------------------------


async def test_timed_keys_need_expires_in(api: Api) -> None:
    human = await api.human("jianf")
    admin = await api.admin()
    for client, path in ((admin, "/api/v1/admin/agent-keys"), (human, "/api/v1/me/keys")):
        message = assert_error(
            await client.post(path, json={"lifecycle": "timed"}), 422, "invalid_request"
        )
        assert "expires_in" in message
        for bad in ("soon", 0, -5, "1y", ""):
            response = await client.post(path, json={"lifecycle": "timed", "expires_in": bad})
            assert_error(response, 422, "invalid_request")


async def test_timed_keys_stop_working_when_they_expire(api: Api) -> None:
    human = await api.human("jianf")
    agent = api.client((await issue_agent_key(api, "timed", expires_in=1))["key"])
    user = api.client((await issue_user_key(human, "timed", expires_in=1))["key"])
    assert (await register(agent, "builder")).status_code == 200
    assert (await user.get("/api/v1/me")).status_code == 200

    await asyncio.sleep(1.2)
    assert_error(await agent.post("/api/v1/agent/heartbeat"), 401, "unauthorized")
    assert_error(await user.get("/api/v1/me"), 401, "unauthorized")


async def test_expires_in_accepts_text(api: Api) -> None:
    human = await api.human("jianf")
    for issued in (
        await issue_agent_key(api, "timed", expires_in="1h"),
        await issue_user_key(human, "timed", expires_in="1h"),
        await issue_user_key(human, "timed", expires_in=3600),
    ):
        assert issued["lifecycle"] == "timed"
        expires_at = datetime.fromisoformat(issued["expires_at"])
        ahead = expires_at - datetime.now(UTC)
        assert timedelta(minutes=59) < ahead <= timedelta(hours=1), ahead
    permanent = await issue_user_key(human)
    assert permanent["expires_at"] is None


# --- revocation -------------------------------------------------------------------------


async def test_admin_revokes_an_agent_key_at_once(api: Api) -> None:
    issued = await issue_agent_key(api)
    agent = api.client(issued["key"])
    assert (await register(agent, "builder")).status_code == 200
    admin = await api.admin()
    async with open_stream(agent):
        revoked = await admin.delete(f"/api/v1/admin/agent-keys/{issued['key_id']}")
        assert revoked.status_code == 200, revoked.text
        assert_error(await agent.post("/api/v1/agent/heartbeat"), 401, "unauthorized")
    assert_error(await agent.get("/api/v1/mail/inbox"), 401, "unauthorized")
    assert_error(await register(agent, "builder"), 401, "unauthorized")
    listed = (await admin.get("/api/v1/admin/agent-keys")).json()["keys"]
    [view] = [k for k in listed if k["key_id"] == issued["key_id"]]
    assert view["active"] is False and view["revoked_at"] is not None
    assert_error(await admin.delete("/api/v1/admin/agent-keys/no-such-key"), 404, "not_found")


async def test_user_revokes_own_key_but_not_anothers(api: Api) -> None:
    jianf = await api.human("jianf")
    other = await api.human("other")
    mine = await issue_user_key(jianf)
    theirs = await issue_user_key(other)
    their_client = api.client(theirs["key"])

    assert_error(await jianf.delete(f"/api/v1/me/keys/{theirs['key_id']}"), 404, "not_found")
    assert (await their_client.get("/api/v1/me")).status_code == 200
    # Nor through the admin endpoint for agent keys, nor an agent key through /me/keys.
    admin = await api.admin()
    assert_error(await admin.delete(f"/api/v1/admin/agent-keys/{theirs['key_id']}"), 404)
    agent_key = await issue_agent_key(api)
    assert_error(await jianf.delete(f"/api/v1/me/keys/{agent_key['key_id']}"), 404, "not_found")
    assert_error(await admin.delete(f"/api/v1/me/keys/{agent_key['key_id']}"), 404, "not_found")
    assert (await register(api.client(agent_key["key"]), "builder")).status_code == 200

    my_client = api.client(mine["key"])
    assert (await my_client.get("/api/v1/me")).status_code == 200
    revoked = await jianf.delete(f"/api/v1/me/keys/{mine['key_id']}")
    assert revoked.status_code == 200, revoked.text
    assert_error(await my_client.get("/api/v1/me"), 401, "unauthorized")
    assert (await their_client.get("/api/v1/me")).status_code == 200
    # The login that issued it is unaffected.
    assert (await jianf.get("/api/v1/me")).status_code == 200


# --- client-generated agent keys --------------------------------------------------------


async def test_client_generated_agent_key(api: Api) -> None:
    key = "client-" + secrets.token_hex(24)
    issued = await issue_agent_key(api, key=key, label="my laptop")
    assert issued["key"] is None
    assert key not in str(issued)
    client = api.client(key)
    assert (await register(client, "builder")).status_code == 200
    assert (await client.post("/api/v1/agent/heartbeat")).status_code == 200

    admin = await api.admin()
    too_short = await admin.post(
        "/api/v1/admin/agent-keys", json={"lifecycle": "permanent", "key": "x" * 31}
    )
    assert_error(too_short, 422, "invalid_request")
    assert_error(await api.client("x" * 31).post("/api/v1/agent/heartbeat"), 401)
    # The same key cannot be registered twice.
    duplicate = await admin.post("/api/v1/admin/agent-keys", json={"key": key})
    assert duplicate.status_code in (409, 422), duplicate.text
    assert_error(duplicate, duplicate.status_code)
