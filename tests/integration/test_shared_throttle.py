"""The login throttle over several gateway processes (PostgreSQL): a failure on one is
counted by all (core/store/login_notices.py), so spreading guesses over workers or
replicas is no faster than guessing against one."""

from __future__ import annotations

import asyncio
from collections.abc import AsyncIterator

import pytest
import pytest_asyncio

from tests.support import databases
from tests.support.cluster import replicas
from tests.support.gateway import ADMIN_PASSWORD, Api

pytestmark = [pytest.mark.asyncio(loop_scope="module"), pytest.mark.postgres]

PER_ACCOUNT = 3
LOGIN = "/api/v1/auth/login"


@pytest_asyncio.fixture(scope="module", loop_scope="module")
async def pair(tmp_path_factory: pytest.TempPathFactory) -> AsyncIterator[list[Api]]:
    url = await databases.create_empty_postgres_database()
    env = {
        "AGENTMAIL_LOGIN_FAILURES_PER_ACCOUNT": str(PER_ACCOUNT),
        "AGENTMAIL_LOGIN_FAILURES_PER_ADDRESS": "1000",  # the account's limit is the one tried
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
        await databases.drop_postgres_database(url)


async def test_failed_logins_on_one_replica_throttle_the_account_on_another(
    pair: list[Api],
) -> None:
    first, second = pair[0].client(), pair[1].client()
    right = {"username": "admin", "password": ADMIN_PASSWORD}
    assert (await second.post(LOGIN, json=right)).status_code == 200
    wrong = {"username": "admin", "password": "a guess"}
    for _ in range(PER_ACCOUNT):
        assert (await first.post(LOGIN, json=wrong)).status_code == 401
    assert (await first.post(LOGIN, json=right)).status_code == 429

    # The other replica learns of the failures by NOTIFY. The right password is what it
    # is asked: a throttled account is refused before the password is checked, and a
    # success counts no failure, so only the first replica's failures can make it 429.
    statuses = []
    for _ in range(50):
        response = await second.post(LOGIN, json=right)
        statuses.append(response.status_code)
        if response.status_code == 429:
            break
        await asyncio.sleep(0.1)
    assert statuses[-1] == 429, statuses
    assert int(response.headers["Retry-After"]) >= 1
