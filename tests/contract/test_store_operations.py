"""Every store operation of the domain, run the same way on SQLite and PostgreSQL, in
process: the rows they leave must be the same (tests/contract/rows.py compares every
table), whichever way each backend writes them (core/store/port.py).

Each scenario is a list of operations on one store; a scenario runs on both
stores, one operation after the other, then every table is compared.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from typing import Any

import pytest
from sqlalchemy import select
from sqlalchemy.orm import Session

from core.approvals.permissions import decide_permission
from core.mail.conversations import SessionChange, update_conversation
from core.mail.drafts import DraftInput, save_draft, send_draft
from core.mail.forward import ForwardRequest, forward_mail
from core.mail.reading import set_delivery_state
from core.mail.send import Permission, SendRequest, mail_writer, send_mail, send_mails
from core.mailboxes.keywords import KeywordLimits, change_keywords
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Mail
from tests.contract.conftest import Stores
from tests.contract.rows import dump

D = "agentmail.localhost"
ANA = Principal(kind="human", name="ana")
BO = Principal(kind="human", name="bo")
BUILDER = Principal(kind="agent", name="builder")
Scenario = Callable[[Store], Awaitable[None]]


async def _send(store: Store, who: Principal, to: str, subject: str, **more: Any) -> str:
    fields = {k: more.pop(k) for k in ("cc", "reply_to", "session_alias") if k in more}
    if more.pop("question", False):
        fields["mail_type"] = "question"
    request = SendRequest(to=to, subject=subject, body=f"body of {subject}", **fields)
    return (await send_mail(store, D, who, request, **more)).mail_id


async def sends(store: Store) -> None:
    """New conversations and folders, replies (\\Answered), a question and its answer
    (the status read back), cc, permission requests, a new conversation by alias."""
    await _send(store, ANA, "builder@ws", "first")
    await _send(store, ANA, "builder@ws", "second")
    answer = await _send(store, BUILDER, "ana@", "an answer")
    await _send(store, BUILDER, "ana@", "another answer")
    await _send(store, ANA, "builder@ws", "thanks", reply_to=answer)
    await _send(store, BUILDER, "ana@", "which branch?", question=True)
    await _send(store, ANA, "builder@ws", "main")
    await _send(store, ANA, "builder@ws", "with bo", cc=["bo@"])
    await _send(store, ANA, "builder@ws", "with bo again", cc=["bo@", "builder@ws"])
    permission = Permission(["yes", "no"], action="rm -rf build")
    for n in range(2):
        await _send(
            store,
            BUILDER,
            "ana@",
            f"may I {n}",
            mail_type="permission_request",
            permission=permission,
        )
    await _send(store, BO, "ana@", "hello")
    await _send(store, ANA, "bo@", "hello back")
    await _send(store, BUILDER, "bo@.new", "a new one")
    await _send(store, ANA, "builder@ws", "named", session_alias="release")


async def sends_in_one_transaction(store: Store) -> None:
    """Several mails in one transaction (an SMTP message to several conversations)."""
    await _send(store, ANA, "builder@ws", "before")
    writes = [
        mail_writer(D, ANA, SendRequest(to=to, subject=f"together {n}"))
        for n, to in enumerate(["builder@ws", "bo@", "builder@ws"])
    ]
    await send_mails(store, writes)


async def _mail_ids(store: Store) -> list[str]:
    def read(session: Session) -> list[str]:
        return list(session.scalars(select(Mail.id).order_by(Mail.seq)))

    return await store.read(read)


async def flags_and_keywords(store: Store) -> None:
    """Read, archived, trash, restored; keywords added and removed."""
    first = await _send(store, BUILDER, "ana@", "one")
    second = await _send(store, BUILDER, "ana@", "two")
    await _send(store, BUILDER, "ana@", "three")
    await set_delivery_state(store, ANA, first, read=True)
    await set_delivery_state(store, ANA, first, archived=True)
    await set_delivery_state(store, ANA, second, deleted=True)
    await set_delivery_state(store, ANA, second, deleted=False, read=True)

    def keywords(session: Session) -> None:
        seqs = list(session.scalars(select(Mail.seq).order_by(Mail.seq)))
        limits = KeywordLimits()
        change_keywords(session, "ana", {"$label1": seqs, "todo": seqs[:1]}, {}, limits)
        change_keywords(session, "ana", {}, {"$label1": seqs[1:2]}, limits)

    await store.write(keywords)


async def decisions(store: Store) -> None:
    """Permission requests decided; the conversation's status follows."""
    permission = Permission(["yes", "no"], action="deploy")
    asked = [
        await _send(
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
    await decide_permission(store, ANA, asked[2], "no", None)


async def forwards_and_drafts(store: Store) -> None:
    """A forward (its parent across conversations), a draft saved then sent."""
    original = await _send(store, BUILDER, "ana@", "report")
    await forward_mail(store, D, ANA, original, ForwardRequest(to="bo@", body="see below"))
    draft = await save_draft(store, D, ANA, DraftInput(to="builder@ws", subject="later", body="x"))
    await send_draft(store, D, ANA, draft.draft_id)


async def conversation_changes(store: Store) -> None:
    """A human renames, retitles, re-budgets and closes a conversation; agents spend rounds."""
    await _send(store, ANA, "builder@ws", "task", session_alias="task")
    await _send(store, BUILDER, "ana@.task", "working")
    conversation = (await store.read(lambda s: s.scalars(select(Mail.session_id)).first())) or ""
    await update_conversation(store, ANA, conversation, SessionChange(session_alias="renamed"))
    await update_conversation(
        store, ANA, conversation, SessionChange(subject="A task", budget_limit=5)
    )
    await _send(store, BUILDER, "ana@.renamed", "done")
    await update_conversation(store, ANA, conversation, SessionChange(status="completed"))
    await _send(store, ANA, "builder@ws.renamed", "one more thing")


SCENARIOS = [
    sends,
    sends_in_one_transaction,
    flags_and_keywords,
    decisions,
    forwards_and_drafts,
    conversation_changes,
]


@pytest.mark.parametrize("scenario", SCENARIOS, ids=lambda s: s.__name__)
async def test_both_backends_leave_the_same_rows(stores: Stores, scenario: Scenario) -> None:
    sqlite, postgres = stores
    for store in stores:
        await scenario(store)
    expected, found = await dump(sqlite), await dump(postgres)
    assert dict(expected)["mails"], "the scenario stored no mail"
    assert found == expected
