"""The store operations of identity (core/identity), run the same way on SQLite and
PostgreSQL, in process, as the routes and the CLI call them: users and the first
admin, passwords and web logins, keys of every lifecycle, agents registered (with an
admin's key and an enrolment key), their beats, budgets, workspaces and silence.
"""

from __future__ import annotations

import hashlib
from datetime import timedelta
from pathlib import Path

import pytest

from core.errors import (
    AuthenticationFailed,
    Forbidden,
    InvalidRequest,
    NameTaken,
    NotFound,
    WorkspaceConflict,
)
from core.identity.accounts import create_user, ensure_admin, logout
from core.identity.agents import (
    heartbeat,
    mark_silent_agents_offline,
    register_agent,
    set_default_budget,
)
from core.identity.keys import authenticate, issue_key, revoke_key, revoke_token
from core.identity.login_guard import LoginGuard
from core.identity.logins import open_login, revoke_login
from core.identity.passwords import change_password, set_admin, set_password
from core.identity.throttle import LoginThrottle
from core.identity.workspaces import Workspace, remove_workspace
from core.store.engine import Store
from tests.contract.rows import differences, dump
from tests.contract.scenario import ANA, Scenario, assert_same_rows, send
from tests.support.two_stores import Stores, two_stores

WEEK = timedelta(days=7)
PASSWORD = "password123"  # tests/support/two_stores.py's


async def accounts_and_passwords(store: Store) -> None:
    """A user made (a name an agent holds refused); passwords set by an admin and
    changed by their user (every other web login ends); logins opened, revoked, logged
    out; the admin flag given and taken back, never from the last admin."""
    await create_user(store, "cy", PASSWORD, is_admin=True)
    with pytest.raises(NameTaken):
        await create_user(store, "builder", PASSWORD)
    await set_password(store, "bo", "another password")
    ended = await open_login(store, "ana", WEEK, "Firefox")
    current = await open_login(store, "ana", WEEK, "phone")
    guard = LoginGuard(LoginThrottle(), per_address=10, per_account=10)
    ana = await authenticate(store, current)
    with pytest.raises(AuthenticationFailed):
        await change_password(store, guard, ana, "wrong password", "a new password", "::1")
    await change_password(store, guard, ana, PASSWORD, "a new password", "::1")
    with pytest.raises(AuthenticationFailed):
        await authenticate(store, ended)
    tablet = await open_login(store, "ana", WEEK, "tablet")
    tablet_id = (await authenticate(store, tablet)).key_id
    assert tablet_id is not None
    with pytest.raises(NotFound):
        await revoke_login(store, "bo", tablet_id)  # not bo's
    await revoke_login(store, "ana", tablet_id)
    await logout(store, current)
    await set_admin(store, "bo", True)
    await set_admin(store, "bo", False)
    with pytest.raises(Forbidden):
        await set_admin(store, "cy", False)  # ana and bo are none: cy is the last
    await set_admin(store, "ana", True)
    await set_admin(store, "cy", False)
    with pytest.raises(Forbidden):
        await set_admin(store, "ana", False)


async def keys(store: Store) -> None:
    """User keys (permanent, timed, one-time: used once), agent keys made by their
    client (the key, or only its SHA-256), revoked by id or by the key itself."""
    laptop = await issue_key(
        store, kind="user", lifecycle="permanent", owner="ana", label="laptop", created_by="ana"
    )
    hour = await issue_key(
        store, kind="user", lifecycle="timed", owner="ana", label="an hour", expires_in="1h"
    )
    once = await issue_key(store, kind="user", lifecycle="one_time", owner="bo", label="once")
    assert once.key is not None and laptop.key is not None
    await authenticate(store, once.key)
    with pytest.raises(AuthenticationFailed):
        await authenticate(store, once.key)
    mine = "a key its client made, long enough"
    client = await issue_key(store, kind="agent", lifecycle="permanent", label="made", token=mine)
    digest = hashlib.sha256(b"never sent").hexdigest()
    await issue_key(store, kind="agent", lifecycle="permanent", label="hash", token_digest=digest)
    with pytest.raises(InvalidRequest):
        await issue_key(store, kind="agent", lifecycle="permanent", label="again", token=mine)
    await revoke_key(store, hour.key_id, kind="user", owner="ana")
    with pytest.raises(NotFound):
        await revoke_key(store, laptop.key_id, kind="user", owner="bo")
    await revoke_key(store, client.key_id, kind="agent")
    await revoke_token(store, laptop.key)


async def agents(store: Store) -> None:
    """Agents registered with an admin's key (again: a workspace added, a path changed)
    and with an enrolment key (a permanent key issued); beats, a default budget,
    workspaces removed (not one with open conversations unless forced, never the
    last); silent agents go offline."""
    await set_password(store, "ana", "another password")  # her row changed: told in order
    given = await issue_key(store, kind="agent", lifecycle="permanent", label="for pi")
    assert given.key is not None
    root = Workspace(name="root", path="/home/pi")
    await register_agent(store, await authenticate(store, given.key), "pi", [root], "pi", 30)
    pi = await authenticate(store, given.key)
    more = [Workspace(name="docs", path="/home/pi/docs"), Workspace(name="root", path="/srv/pi")]
    await register_agent(store, pi, "pi", more, "pi", None)
    enrolment = await issue_key(store, kind="agent", lifecycle="one_time", label="enrol")
    assert enrolment.key is not None
    proj = [Workspace(name="proj", path="/p")]
    enrolled = await authenticate(store, enrolment.key)
    await register_agent(store, enrolled, "oc", proj, "opencode", None)
    with pytest.raises(AuthenticationFailed):
        await register_agent(store, enrolled, "oc", proj, "opencode", None)
    await heartbeat(store, pi)
    await send(store, ANA, "pi@root", "a task")
    await heartbeat(store, pi)
    await set_default_budget(store, "oc", 5)
    with pytest.raises(WorkspaceConflict):
        await remove_workspace(store, "pi", "root", force=False)
    await remove_workspace(store, "pi", "root", force=True)
    with pytest.raises(WorkspaceConflict):
        await remove_workspace(store, "pi", "docs", force=True)
    assert await mark_silent_agents_offline(store, timedelta(seconds=-1)) == ["oc", "pi"]


SCENARIOS: list[Scenario] = [accounts_and_passwords, keys, agents]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
async def test_both_backends_leave_the_same_rows(stores: Stores, scenario: Scenario) -> None:
    await assert_same_rows(stores, scenario)


async def test_a_new_store_gets_its_first_admin(tmp_path: Path) -> None:
    """`agentmail serve` on an empty store makes the admin (its password drawn when none
    is given), and never again once there is a user."""
    async with two_stores(tmp_path, accounts=False) as stores:
        for store in stores:
            assert await ensure_admin(store, "admin", "") is not None
            assert await ensure_admin(store, "root", PASSWORD) is None
        assert differences(await dump(stores[0]), await dump(stores[1])) == {}
