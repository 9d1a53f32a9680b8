"""The store operations of mail, run the same way on SQLite and PostgreSQL, in process:
the rows they leave must be the same (tests/contract/rows.py compares every table),
whichever way each backend writes them (core/store/port.py).

Sends, replies and conversations; permission requests decided, expired; forwards and
drafts; renames, proposals and platform naming; events pruned; excerpts backfilled.
"""

from __future__ import annotations

from datetime import timedelta

import pytest
from sqlalchemy import select, update
from sqlalchemy.orm import Session

from core.approvals.permissions import (
    PermissionRequest,
    decide_permission,
    expire_permission_requests,
    request_permission,
)
from core.errors import AlreadyDecided, NotFound
from core.mail.conversations import SessionChange, update_conversation
from core.mail.drafts import DraftInput, delete_draft, replace_draft, save_draft, send_draft
from core.mail.excerpt_backfill import fill_excerpts
from core.mail.forward import ForwardRequest, forward_mail
from core.mail.naming import decide_proposal, sync_conversation
from core.mail.placing import set_delivery_state
from core.mail.send import Permission, SendRequest, mail_writer, send_mails
from core.mailboxes.keywords import KeywordLimits, change_keywords
from core.store.engine import Store
from core.store.events import prune_events
from core.store.models import AliasProposal, Mail, utcnow
from tests.contract.scenario import (
    ANA,
    BO,
    BUILDER,
    D,
    Scenario,
    assert_same_rows,
    conversation_by_alias,
    conversation_of,
    send,
)
from tests.support.two_stores import Stores

# Older than any retention, whatever the clock: a job given it prunes all there is.
ALL_OF_IT = timedelta(seconds=-1)


async def sends(store: Store) -> None:
    """New conversations and folders, replies (\\Answered), a question and its answer
    (the status read back), cc, permission requests, a new conversation by alias."""
    await send(store, ANA, "builder@ws", "first")
    await send(store, ANA, "builder@ws", "second")
    answer = await send(store, BUILDER, "ana@", "an answer")
    await send(store, BUILDER, "ana@", "another answer")
    await send(store, ANA, "builder@ws", "thanks", reply_to=answer)
    await send(store, BUILDER, "ana@", "which branch?", question=True)
    await send(store, ANA, "builder@ws", "main")
    await send(store, ANA, "builder@ws", "with bo", cc=["bo@"])
    await send(store, ANA, "builder@ws", "with bo again", cc=["bo@", "builder@ws"])
    permission = Permission(["yes", "no"], action="rm -rf build")
    for n in range(2):
        await send(
            store,
            BUILDER,
            "ana@",
            f"may I {n}",
            mail_type="permission_request",
            permission=permission,
        )
    await send(store, BO, "ana@", "hello")
    await send(store, ANA, "bo@", "hello back")
    await send(store, BUILDER, "bo@.new", "a new one")
    await send(store, ANA, "builder@ws", "named", session_alias="release")


async def sends_in_one_transaction(store: Store) -> None:
    """Several mails in one transaction (an SMTP message to several conversations)."""
    await send(store, ANA, "builder@ws", "before")
    writes = [
        mail_writer(D, ANA, SendRequest(to=to, subject=f"together {n}"))
        for n, to in enumerate(["builder@ws", "bo@", "builder@ws"])
    ]
    await send_mails(store, writes)


async def flags_and_keywords(store: Store) -> None:
    """Read, archived, trash, restored (the web's buttons); keywords added and removed."""
    first = await send(store, BUILDER, "ana@", "one")
    second = await send(store, BUILDER, "ana@", "two")
    await send(store, BUILDER, "ana@", "three")
    await set_delivery_state(store, ANA, first, read=True)
    await set_delivery_state(store, ANA, first, archived=True)
    await set_delivery_state(store, ANA, second, deleted=True)
    await set_delivery_state(store, ANA, second, deleted=False, read=True)
    await set_delivery_state(store, BUILDER, await send(store, ANA, "builder@ws", "x"), read=True)

    def keywords(session: Session) -> None:
        seqs = list(session.scalars(select(Mail.seq).order_by(Mail.seq)))
        limits = KeywordLimits()
        change_keywords(session, "ana", {"$label1": seqs, "todo": seqs[:1]}, {}, limits)
        change_keywords(session, "ana", {}, {"$label1": seqs[1:2]}, limits)

    await store.write(keywords)


async def decisions(store: Store) -> None:
    """Permission requests asked (the one write path and the REST request), decided
    once, expired by the sweep; the conversation's status follows."""
    permission = Permission(["yes", "no"], action="deploy")
    asked = [
        await send(
            store,
            BUILDER,
            "ana@",
            f"deploy {n}",
            mail_type="permission_request",
            permission=permission,
        )
        for n in range(3)
    ]
    await decide_permission(store, ANA, asked[0], "yes", "go")
    await decide_permission(store, ANA, asked[2], "NO", None)  # matched without case
    with pytest.raises(AlreadyDecided):
        await decide_permission(store, ANA, asked[0], "no", None)
    request = PermissionRequest(
        to="ana@", cc=["bo@"], question="may I tag?", options=["tag", "wait"], action="git tag"
    )
    tagged = (await request_permission(store, D, BUILDER, request)).mail_id
    await decide_permission(store, ANA, tagged, "wait", "not yet")
    # Due now: the sweep (the gateway's, every minute) finds it past its time.
    overdue = Permission(["go", "stop"], expires_at=utcnow())
    await send(store, BUILDER, "ana@", "late", mail_type="permission_request", permission=overdue)
    assert await expire_permission_requests(store) == 1
    assert await expire_permission_requests(store) == 0


async def forwards_and_drafts(store: Store) -> None:
    """A forward (its parent across conversations); drafts saved, replaced, deleted, sent."""
    original = await send(store, BUILDER, "ana@", "report")
    await forward_mail(store, D, ANA, original, ForwardRequest(to="bo@", body="see below"))
    draft = await save_draft(store, D, ANA, DraftInput(to="builder@ws", subject="later", body="x"))
    await replace_draft(store, D, ANA, draft.draft_id, DraftInput(to="bo@", subject="now"))
    dropped = await save_draft(store, D, ANA, DraftInput(subject="never mind"))
    await delete_draft(store, ANA, dropped.draft_id)
    with pytest.raises(NotFound):
        await delete_draft(store, BO, draft.draft_id)  # not bo's
    await send_draft(store, D, ANA, draft.draft_id)


async def conversation_changes(store: Store) -> None:
    """A human renames, retitles, re-budgets and closes a conversation; agents spend rounds."""
    await send(store, ANA, "builder@ws", "task", session_alias="task")
    await send(store, BUILDER, "ana@.task", "working")
    conversation = await conversation_by_alias(store, "task")
    await update_conversation(store, ANA, conversation, SessionChange(session_alias="renamed"))
    await update_conversation(
        store, ANA, conversation, SessionChange(subject="A task", budget_limit=5)
    )
    await send(store, BUILDER, "ana@.renamed", "done")
    await update_conversation(store, ANA, conversation, SessionChange(status="completed"))
    await send(store, ANA, "builder@ws.renamed", "one more thing")
    await send(store, ANA, "builder@ws.task", "by its former alias")


async def naming(store: Store) -> None:
    """An agent proposes aliases (in the body's marker and in the request); a human
    accepts one and rejects another; a platform's naming is kept until a human renames."""
    marker = '<!-- agentmail:propose-alias alias="fix-cookies" reason="about cookies" -->'
    proposed = await send(store, BUILDER, "ana@", "cookies", body=f"done\n{marker}")
    await send(store, BUILDER, "ana@", "again", reply_to=proposed, propose_alias="cookie-jar")
    conversation = await conversation_of(store, proposed)

    for alias, accept in (("fix-cookies", True), ("cookie-jar", False)):
        query = select(AliasProposal.id).where(AliasProposal.alias == alias)
        proposal_id = await store.read(lambda session, q=query: session.scalar(q))
        await decide_proposal(store, ANA, conversation, proposal_id, accept)
    synced = await conversation_of(store, await send(store, ANA, "builder@ws.new", "platform"))
    await sync_conversation(store, BUILDER, synced, alias="from-platform", title="Its title")
    await update_conversation(store, ANA, synced, SessionChange(session_alias="mine"))
    await sync_conversation(store, BUILDER, synced, alias="ignored", title="Ignored")


async def events_pruned(store: Store) -> None:
    """Events past the retention are pruned and the mark of how far is kept; the events
    written after it come after the mark (an SSE resume relies on it)."""
    await send(store, ANA, "builder@ws", "one")
    await send(store, BUILDER, "ana@", "two")
    assert await prune_events(store, ALL_OF_IT) > 0
    await send(store, ANA, "builder@ws", "three")


async def excerpts_filled(store: Store) -> None:
    """Mail stored without an excerpt (before the columns existed) is filled by the
    backfill, in batches, as a send would have kept it; a second run finds nothing."""
    await send(store, ANA, "builder@ws", "plan", body="## Plan\n\n- [x] **a**\n- [ ] b")
    await send(store, BUILDER, "ana@", "done", body="Done: see [the log](https://x.example)")
    listed = select(Mail.seq, Mail.excerpt).order_by(Mail.seq)
    kept = await store.read(lambda s: s.execute(listed).all())
    await store.write(lambda s: s.execute(update(Mail).values(excerpt=None)))
    assert await fill_excerpts(store, pause=0, batch_rows=1) == 2
    assert await store.read(lambda s: s.execute(listed).all()) == kept
    assert await fill_excerpts(store, pause=0) == 0


SCENARIOS: list[Scenario] = [
    sends,
    sends_in_one_transaction,
    flags_and_keywords,
    decisions,
    forwards_and_drafts,
    conversation_changes,
    naming,
    events_pruned,
    excerpts_filled,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
async def test_both_backends_leave_the_same_rows(stores: Stores, scenario: Scenario) -> None:
    await assert_same_rows(stores, scenario)
