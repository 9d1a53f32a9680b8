"""An agent's recent activity, as its page in the web UI shows it: turns, decisions, failures.

Every kind is read from the mails the agent sent, the one record of what it did:

* `turns` — each mail it sent (a reply, a question, a summary, a request);
* `decisions` — its permission requests, with what a human decided (or that one is
  still open, or expired);
* `failures` — its reports of turns that did not finish (`turn_failed`, sent by a
  bridge with the machine-readable failure marker).

The rule of the conversation list holds: a human sees the activity of the
conversations they take part in, so an agent's work elsewhere stays out of sight;
an admin, who manages agents, sees all of it. Newest first, a page at a time.
"""

from __future__ import annotations

from typing import Any, Literal

from sqlalchemy import func, select
from sqlalchemy.orm import Session

from core.errors import NotFound
from core.mail.conversation_views import excerpt
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Agent, Conversation, Mail, Participant
from core.views import ActivityItem

__all__ = ["ActivityKind", "agent_activity"]

ActivityKind = Literal["turns", "decisions", "failures"]
_FAILED = "turn_failed"
_REQUEST = "permission_request"


def _of_kind(kind: ActivityKind) -> Any:
    if kind == "decisions":
        return Mail.mail_type == _REQUEST
    if kind == "failures":
        return Mail.mail_type == _FAILED
    return Mail.mail_type != _FAILED


async def agent_activity(
    store: Store, principal: Principal, name: str, kind: ActivityKind, limit: int, offset: int
) -> tuple[list[ActivityItem], int]:
    """One page of the agent's activity of one kind, and how many there are in all."""
    agent = name.lower()
    query = (
        select(Mail, Conversation.alias)
        .join(Conversation, Conversation.id == Mail.session_id)
        .where(Mail.from_name == agent, _of_kind(kind))
    )
    if not principal.is_admin:
        mine = select(Participant.session_id).where(Participant.name == principal.name)
        query = query.where(Mail.session_id.in_(mine))

    def run(session: Session) -> tuple[list[ActivityItem], int]:
        if session.scalar(select(Agent.id).where(Agent.name == agent)) is None:
            raise NotFound(f"no agent {name}")
        total = session.scalar(select(func.count()).select_from(query.subquery()))
        rows = session.execute(query.order_by(Mail.seq.desc()).limit(limit).offset(offset))
        return [_item(mail, alias) for mail, alias in rows], int(total or 0)

    return await store.read(run)


def _item(mail: Mail, alias: str | None) -> ActivityItem:
    return ActivityItem(
        mail_id=mail.id,
        session_id=mail.session_id,
        session_alias=alias,
        subject=mail.subject,
        mail_type=mail.mail_type,
        excerpt=excerpt(mail.body),
        created_at=mail.created_at,
        permission_state=mail.permission_state,
        decision=mail.decision,
        decided_by=mail.decided_by,
        decided_at=mail.decided_at,
    )
