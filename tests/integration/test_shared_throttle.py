"""Logins over several gateway processes (PostgreSQL): a failure on one is counted by all
(core/cluster/login_notices.py), so spreading guesses over workers or replicas is no
faster than guessing against one; and a key revoked or a password changed on one ends
the sessions it opened on every other (core/identity/signed_in.py)."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.support import databases
from tests.support.cluster import replicas
from tests.support.gateway import ADMIN_PASSWORD, PASSWORD, Api
from tests.support.metrics import Samples, moved, scrape
from tests.support.sessions import ended, imap_as, serves, smtp_as

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.postgres]

PER_ACCOUNT = 3
LOGIN = "/api/v1/auth/login"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pair(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[list[Api]]:
    url = await databases.create_empty_postgres_database()
    env = {
        "AGENTMAIL_LOGIN_FAILURES_PER_ACCOUNT": str(PER_ACCOUNT),
        "AGENTMAIL_LOGIN_FAILURES_PER_ADDRESS": "1000",  # the account's limit is the one tried
        "AGENTMAIL_LOGIN_DELAY_SECONDS": "0.05",
    }
    try:
        async with replicas(url, tmp_path_factory.mktemp("throttle"), 2, **env) as running:
            apis = [Api(replica) for replica in running]  # type: ignore[arg-type]
            try:
                yield apis
            finally:
                for api in apis:
                    await api.close()
    finally:
        await databases.release_postgres_database(url)


async def test_failed_logins_on_one_replica_slow_the_account_on_another(
    pair: list[Api],
) -> None:
    first, second = pair[0].client(), pair[1].client()
    right = {"username": "admin", "password": ADMIN_PASSWORD}
    assert (await second.post(LOGIN, json=right)).status_code == 200
    wrong = {"username": "admin", "password": "a guess"}
    for _ in range(PER_ACCOUNT):
        assert (await first.post(LOGIN, json=wrong)).status_code == 401
    before = await scrape(first)
    assert (await first.post(LOGIN, json=right)).status_code == 200  # slowed, not refused
    assert slowed(before, await scrape(first)) == 1

    # The other replica learns of the failures by NOTIFY: its next right password is
    # slowed too (its own /metrics count the wait), and still logs in.
    for _ in range(50):
        before = await scrape(second)
        assert (await second.post(LOGIN, json=right)).status_code == 200
        if slowed(before, await scrape(second)) == 1:
            break
        await asyncio.sleep(0.1)
    else:
        raise AssertionError("the second replica never slowed the account")


def slowed(before: Samples, after: Samples) -> float:
    return moved(before, after, "agentmail_login_delay_seconds_count", protocol="web")


async def test_a_key_revoked_or_a_password_changed_on_one_replica_ends_sessions_on_another(
    pair: list[Api],
) -> None:
    one, other = pair
    alice = await one.human("alice")
    key = await one.user_key(alice)
    replica = other.gateway  # a ServedGateway: its ports are attributes, as a Gateway's
    async with (
        imap_as(replica.imap_port, "alice", key) as by_key,
        imap_as(replica.imap_port, "alice", PASSWORD) as by_password,
        smtp_as(replica.smtp_port, "alice", PASSWORD) as smtp_by_password,
    ):
        keys = await alice.get("/api/v1/me/keys")
        [key_id] = [k["key_id"] for k in keys.json()["keys"] if k["active"]]
        assert (await alice.delete(f"/api/v1/me/keys/{key_id}")).status_code == 200
        await ended(by_key, b"* BYE [EXPIRED]")
        await serves(by_password, smtp_by_password)
        change = {"current_password": PASSWORD, "new_password": "changed-on-one"}
        assert (await alice.post("/api/v1/me/password", json=change)).status_code == 200
        await ended(by_password, b"* BYE [EXPIRED]")
        await ended(smtp_by_password, b"421 4.7.0")
