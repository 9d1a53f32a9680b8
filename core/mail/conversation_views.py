"""Conversations as a viewer sees them, a page at a time in a fixed number of statements.

A conversation list shows, per conversation, how many of its mails the viewer
may see and how many of those are unread, the newest of them (sender, plain
excerpt, time), the task list of the newest that has one, and who takes part
(kind and presence). Asking per conversation would be N+1 statements; here each is one
statement for the whole page (tests/integration/test_session_list.py counts them):
the counts and newest seqs grouped, those mails, the participants, the agents
among them, the humans' recent web logins.
"""

from __future__ import annotations

from collections.abc import Sequence
from datetime import timedelta
from typing import Any, Literal, NamedTuple

from sqlalchemy import and_, case, false, func, or_, select
from sqlalchemy.orm import Session

from core.identity.external import stored_party
from core.mail.conversation_rows import ConversationState
from core.store.models import Agent, Conversation, Delivery, Key, Mail, Participant, utcnow
from core.views import LatestMail, ParticipantBrief, SessionView, TaskProgress

EXCERPT_CHARS = 140
# A human counts as online while one of their web logins was used this recently
# (a login's last use is written at most once a minute).
HUMAN_ONLINE = timedelta(minutes=5)


def budget_remaining(conv: ConversationState) -> int | Literal["unlimited"]:
    if conv.budget_limit is None:
        return "unlimited"
    return max(0, conv.budget_limit - conv.budget_used)


def excerpt(body: str) -> str:
    """The start of a body as one plain line (whitespace collapsed)."""
    flat = " ".join(body.split())
    return flat if len(flat) <= EXCERPT_CHARS else flat[: EXCERPT_CHARS - 1] + "…"


def conversation_views(
    session: Session, convs: Sequence[Conversation], viewer: str
) -> list[SessionView]:
    ids = [conv.id for conv in convs]
    if not ids:
        return []
    stats, latest = _mail_stats(session, ids, viewer)
    members: dict[str, list[str]] = {conv_id: [] for conv_id in ids}
    for conv_id, name in session.execute(
        select(Participant.session_id, Participant.name)
        .where(Participant.session_id.in_(ids))
        .order_by(Participant.name)
    ):
        members[conv_id].append(name)
    briefs = _briefs(session, sorted({name for group in members.values() for name in group}))
    views = []
    for conv in convs:
        stat = stats.get(conv.id, _Stats(0, 0, 0, 0))
        row = latest.get(stat.newest)
        tasked = latest.get(stat.tasked)
        views.append(
            SessionView(
                session_id=conv.id,
                session_alias=conv.alias,
                subject=conv.subject,
                status=conv.status,
                budget_limit="unlimited" if conv.budget_limit is None else conv.budget_limit,
                budget_used=conv.budget_used,
                budget_remaining=budget_remaining(conv),
                participants=members[conv.id],
                created_by=conv.created_by,
                mail_count=stat.mails,
                created_at=conv.created_at,
                updated_at=conv.updated_at,
                latest=None
                if row is None
                else LatestMail(
                    mail_id=row[1],
                    from_=stored_party(row[2], row[3], conv.alias).native(),
                    excerpt=excerpt(row[4] or ""),
                    created_at=row[5],
                ),
                unread=stat.unread,
                tasks=None
                if tasked is None
                else TaskProgress(mail_id=tasked[1], done=tasked[6], total=tasked[7]),
                participant_details=[briefs[name] for name in members[conv.id]],
            )
        )
    return views


class _Stats(NamedTuple):
    mails: int
    newest: int
    unread: int
    tasked: int  # the newest seq with a task list, 0 for none


def _mail_stats(
    session: Session, ids: list[str], viewer: str
) -> tuple[dict[str, _Stats], dict[int, Any]]:
    """Per conversation, the viewer's mails counted, the newest seq, the unread ones and
    the newest with a task list, in one grouped statement; those mails in another."""
    mine = and_(Delivery.mail_seq == Mail.seq, Delivery.recipient == viewer)
    unread = case((and_(Delivery.is_read == false(), Delivery.deleted == false()), 1), else_=0)
    stats = {
        conv_id: _Stats(int(count), int(newest), int(unread or 0), int(tasked or 0))
        for conv_id, count, newest, unread, tasked in session.execute(
            select(
                Mail.session_id,
                func.count(),
                func.max(Mail.seq),
                func.sum(unread),
                func.max(case((Mail.tasks_total > 0, Mail.seq))),
            )
            .outerjoin(Delivery, mine)
            .where(
                Mail.session_id.in_(ids),
                or_(Mail.from_name == viewer, Delivery.id.is_not(None)),
            )
            .group_by(Mail.session_id)
        )
    }
    seqs = {seq for stat in stats.values() for seq in (stat.newest, stat.tasked) if seq}
    latest_rows = session.execute(
        select(
            Mail.seq,
            Mail.id,
            Mail.from_name,
            Mail.from_path,
            func.coalesce(Mail.excerpt, func.substr(Mail.body, 1, EXCERPT_CHARS * 4)),
            Mail.created_at,
            Mail.tasks_done,
            Mail.tasks_total,
        ).where(Mail.seq.in_(sorted(seqs)))
    ).all()
    return stats, {row[0]: row for row in latest_rows}


def _briefs(session: Session, names: list[str]) -> dict[str, ParticipantBrief]:
    """Each participant's kind and presence: an agent's status, a human's recent login."""
    agents = {
        name: status
        for name, status in session.execute(
            select(Agent.name, Agent.status).where(Agent.name.in_(names))
        )
    }
    humans = [name for name in names if name not in agents]
    present = set(
        session.scalars(
            select(Key.owner).where(
                Key.kind == "login",
                Key.owner.in_(humans),
                Key.revoked_at.is_(None),
                Key.last_used_at > utcnow() - HUMAN_ONLINE,
            )
        ).all()
    )
    return {
        name: ParticipantBrief(name=name, kind="agent", online=agents[name] == "online")
        if name in agents
        else ParticipantBrief(name=name, kind="human", online=name in present)
        for name in names
    }
