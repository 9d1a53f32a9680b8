"""The store operations of outbound mail, run the same way on SQLite and PostgreSQL, in
process, as the admin routes, the send path, the sender loop and `agentmail dkim` call
them: the admin switch for a user and an agent, a mail to `mailto:` recipients
queueing one job each with the mail, and the DKIM key sealed in place of an older one
(the sealed secrets' operations with it: the key check at start, a key made once);
the jobs settled as the sender loop settles them, a bounce recorded against one, and
the prune of settled jobs past their keeping."""

from __future__ import annotations

from dataclasses import replace
from datetime import timedelta

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.approvals.permissions import decide_permission
from core.outbound.allowed import set_agent_outbound, set_user_outbound
from core.outbound.allowlist import set_agent_allowlist
from core.outbound.prune import BOUNCE_WINDOW, prune_outbound_jobs
from core.outbound.queue import Rates, claim, settle
from core.relay.bounce_record import record_bounce
from core.relay.bounces import Bounce, FailedRecipient
from core.relay.dkim_key import generate_dkim_key, load_dkim_key, save_dkim_key
from core.relay.envelope import EnvelopeId
from core.secrets.box import SecretBox
from core.secrets.stored import check_secret_key, ensure_secret, read_secret, replace_secret
from core.settings import Limits
from core.store.engine import Store
from core.store.models import OutboundJob, utcnow
from tests.contract.scenario import ANA, BUILDER, D, assert_same_rows, mail_ids, send
from tests.support.two_stores import Stores

BOX = SecretBox(b"the contract suite's secret key, 32+ characters")
OUTBOUND = replace(Limits(), outbound=True)


async def outbound_mail(store: Store) -> None:
    await check_secret_key(store, BOX)
    await set_user_outbound(store, "ana", True)
    await set_agent_outbound(store, "builder", True)
    await set_agent_outbound(store, "builder", None)  # read only: stays on
    await set_agent_allowlist(store, "builder", ["example.com", "carol@example.org"], D)
    await send(store, ANA, "mailto:bob@example.com", "Outside", cc=["builder@"], limits=OUTBOUND)
    await send(
        store,
        BUILDER,
        "ana@",
        "Copied out",
        cc=["mailto:carol@example.org", "mailto:bob@example.com"],
        limits=OUTBOUND,
    )
    await set_user_outbound(store, "ana", False)
    await ensure_secret(store, BOX, "contract_secret", lambda: b"made once")
    await replace_secret(store, BOX, "contract_secret", b"made again")
    assert await read_secret(store, BOX, "contract_secret") == b"made again"
    await save_dkim_key(store, BOX, generate_dkim_key("old", "ed25519"))
    await save_dkim_key(store, BOX, generate_dkim_key("new", "ed25519"))
    key = await load_dkim_key(store, BOX)
    assert key is not None and key.selector == "new"
    await _bounced_and_pruned(store)


async def _bounced_and_pruned(store: Store) -> None:
    now = utcnow()

    def deliver_all(session: Session) -> None:
        jobs = claim(session, now, 10, Rates(100, 100), timedelta(minutes=5))
        refused = {"carol@example.org"}
        results = [
            (job, "refused" if job.recipient in refused else "sent", "250 ok") for job in jobs
        ]
        settle(session, results, now, give_up=timedelta(days=5), minimum=timedelta(minutes=30))

    await store.write(deliver_all)
    first = await store.read(
        lambda s: s.scalars(select(OutboundJob).order_by(OutboundJob.id)).first()
    )
    assert first is not None
    failure = FailedRecipient(first.recipient, "5.1.1", "550 5.1.1 no such user")
    bounce = Bounce("", EnvelopeId(first.mail_id, first.id), (failure,), "mx.example.com")
    assert await record_bounce(store, bounce, "agentmail.test") == 1
    assert await record_bounce(store, bounce, "agentmail.test") == 0
    assert await prune_outbound_jobs(store, now + timedelta(hours=2)) == 1  # the refused one
    assert await prune_outbound_jobs(store, now + BOUNCE_WINDOW + timedelta(hours=1)) == 2


async def held_outside(store: Store) -> None:
    """An agent's mail off its allowlist: held behind a request, released by one
    approval, refused by a rejection; its allowlist replaced."""
    await set_agent_outbound(store, "builder", True)
    await set_agent_allowlist(store, "builder", ["*.example.com"], D)
    task = await send(store, ANA, "builder@", "Task")
    for subject, decision in (("Approved", "approve"), ("Rejected", "reject")):
        await send(
            store,
            BUILDER,
            "mailto:alice@outside.test",
            subject,
            cc=["mailto:bob@a.example.com"],
            reply_to=task,
            limits=OUTBOUND,
        )
        request = (await mail_ids(store))[-1]
        await decide_permission(store, ANA, request, decision, None)
    await set_agent_allowlist(store, "builder", [], D)


async def test_both_backends_leave_the_same_rows(stores: Stores) -> None:
    await assert_same_rows(stores, outbound_mail)


async def test_held_mail_leaves_the_same_rows(stores: Stores) -> None:
    await assert_same_rows(stores, held_outside)
