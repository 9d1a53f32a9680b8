"""The store operations of Web Push (core/push), run the same way on SQLite and
PostgreSQL, in process, as the routes and the gateway's start call them: the VAPID key
made once and kept, subscriptions kept (the same endpoint again replaces the old one)
and revoked by their owner only, and a permission request and a question queueing one
push per subscription of each person they ask.
"""

from __future__ import annotations

import pytest

from core.errors import NotFound
from core.push.keys import ensure_vapid_key
from core.push.subscriptions import list_subscriptions, revoke_subscription, subscribe
from core.secrets.box import SecretBox
from core.secrets.stored import read_secret
from core.store.engine import Store
from tests.contract.scenario import ANA, BUILDER, assert_same_rows, send
from tests.support.two_stores import Stores

# A push service's endpoint and a browser's keys, as a browser gives them (RFC 8291 §3).
ENDPOINT = "http://127.0.0.1:9/push/"
P256DH = "BNcRdreALRFXTkOOUHK1EtK2wtaz5Ry4YfYCA_0QTpQtUbVlUls0VJXg7A8u-Ts1XbjhazAkj7I99e8QcYP7DkM"
AUTH = "tBHItJI5svbpez7KI4CCXg"
BOX = SecretBox(b"the contract suite's secret key, 32+ characters")


async def keys_and_subscriptions(store: Store) -> None:
    """The key made at the first start and kept at the next; ana's two devices, the
    first subscribed again (replaced), one revoked (not by bo); a request and a
    question from builder queue a push for each device of ana's."""
    first = await ensure_vapid_key(store, BOX)
    stored = await read_secret(store, BOX, "vapid_private_key")
    assert await ensure_vapid_key(store, BOX) == first == (stored or b"").decode()
    phone = await subscribe(
        store, "ana", ENDPOINT + "phone", P256DH, AUTH, "phone", allow_private=True
    )
    await subscribe(
        store, "ana", ENDPOINT + "phone", P256DH, AUTH, "phone, again", allow_private=True
    )
    laptop = await subscribe(
        store, "ana", ENDPOINT + "laptop", P256DH, AUTH, "laptop", allow_private=True
    )
    gone = await subscribe(store, "ana", ENDPOINT + "old", P256DH, AUTH, "old", allow_private=True)
    with pytest.raises(NotFound):
        await revoke_subscription(store, "bo", gone.subscription_id)
    await revoke_subscription(store, "ana", gone.subscription_id)
    with pytest.raises(NotFound):
        await revoke_subscription(store, "ana", phone.subscription_id)  # replaced above
    kept = await list_subscriptions(store, "ana")
    assert {s.user_agent for s in kept} == {"phone, again", "laptop"}
    assert laptop.subscription_id in {s.subscription_id for s in kept}
    await send(store, BUILDER, "ana@", "May I deploy?", question=True)
    await send(store, ANA, "builder@", "Thanks")  # a person's mail to an agent: no push


async def test_both_backends_leave_the_same_rows(stores: Stores) -> None:
    await assert_same_rows(stores, keys_and_subscriptions)
