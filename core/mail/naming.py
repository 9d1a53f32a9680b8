"""Naming conversations: aliases from subjects, platform sync, and agents' proposals.

The alias is the human's way to address a conversation (`builder@ModelRouter.alias`),
so precedence is: a human's rename > the platform's naming (sync) > the subject.
An agent may only *propose* a better name; a human accepts or rejects it, and a
rejected name is never proposed again for that conversation.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from datetime import datetime
from typing import Literal

from pydantic import BaseModel
from slugify import slugify
from sqlalchemy import select
from sqlalchemy.orm import Session

from core.address import NEW_SESSION, is_valid_alias, normalize_alias
from core.errors import AlreadyDecided, Forbidden, NotFound
from core.mail.conversation_rows import ConversationState
from core.mail.conversations import (
    MAX_ALIAS,
    conversation_view,
    emit_session_update,
    lock_creation,
    participants,
    rename_to,
    visible_conversation,
)
from core.mail.subjects import checked_subject
from core.principal import Principal
from core.store.engine import Store
from core.store.models import AliasProposal, new_id, utcnow
from core.views import SessionView

# The wire form of a proposal inside a mail body (the reference's HTML comment marker):
#   <!-- agentmail:propose-alias alias="fix-session-cookie" reason="it is about cookies" -->
_MARKER = re.compile(
    r"<!--\s*agentmail:propose-alias\s+alias=\"(?P<alias>[^\"]*)\""
    r"(?:\s+reason=\"(?P<reason>[^\"]*)\")?\s*-->\n?",
    re.IGNORECASE,
)


def alias_from_subject(subject: str) -> str | None:
    """`排查登录问题` → `pai-cha-deng-lu-wen-ti`; None when nothing usable is left."""
    slug = slugify(subject, max_length=MAX_ALIAS, word_boundary=True, separator="-")
    slug = slug.strip("-_")[:MAX_ALIAS]
    if slug == NEW_SESSION:  # reserved: it means "a new conversation"
        slug = "new-conversation"
    return slug if is_valid_alias(slug) else None


@dataclass(frozen=True, slots=True)
class Proposal:
    alias: str
    reason: str


def extract_proposal(body: str) -> tuple[str, Proposal | None]:
    """Strip the proposal marker from a body; the first valid one is the proposal."""
    found: Proposal | None = None
    for match in _MARKER.finditer(body):
        if found is None and is_valid_alias(match.group("alias")):
            found = Proposal(match.group("alias").lower(), match.group("reason") or "")
    return _MARKER.sub("", body), found


def record_proposal(
    session: Session, conv: ConversationState, proposal: Proposal, proposed_by: str, mail_id: str
) -> None:
    """Keep a proposal unless it is the current alias or was proposed before."""
    if proposal.alias == conv.alias:
        return
    earlier = session.scalar(
        select(AliasProposal.id).where(
            AliasProposal.session_id == conv.id,
            AliasProposal.alias == proposal.alias,
            AliasProposal.state.in_(("pending", "rejected")),
        )
    )
    if earlier is None:
        row = AliasProposal(
            id=new_id(),
            session_id=conv.id,
            alias=proposal.alias,
            reason=proposal.reason[:1000],
            proposed_by=proposed_by,
            mail_id=mail_id,
        )
        session.add(row)
        # The humans see it at once (the web UI shows a banner to accept or reject).
        announced = {"proposal_id": row.id, "alias": row.alias, "reason": row.reason}
        emit_session_update(
            session, conv, participants(session, conv.id), {"alias_proposal": announced}
        )


class ProposalView(BaseModel):
    proposal_id: str
    session_id: str
    alias: str
    reason: str
    proposed_by: str
    mail_id: str | None
    state: Literal["pending", "accepted", "rejected"]
    decided_by: str | None
    decided_at: datetime | None
    created_at: datetime


def _proposal_view(row: AliasProposal) -> ProposalView:
    return ProposalView(
        proposal_id=row.id,
        session_id=row.session_id,
        alias=row.alias,
        reason=row.reason,
        proposed_by=row.proposed_by,
        mail_id=row.mail_id,
        state=row.state,
        decided_by=row.decided_by,
        decided_at=row.decided_at,
        created_at=row.created_at,
    )


async def list_proposals(
    store: Store, principal: Principal, conv_id: str, state: str | None
) -> list[ProposalView]:
    def run(session: Session) -> list[ProposalView]:
        visible_conversation(session, principal, conv_id)
        query = select(AliasProposal).where(AliasProposal.session_id == conv_id)
        if state is not None:
            query = query.where(AliasProposal.state == state)
        return [
            _proposal_view(p) for p in session.scalars(query.order_by(AliasProposal.created_at))
        ]

    return await store.read(run)


async def decide_proposal(
    store: Store, principal: Principal, conv_id: str, proposal_id: str, accept: bool
) -> SessionView:
    """Accepting renames the conversation as a human rename would (it then wins over syncs)."""
    if not principal.is_human:
        raise Forbidden("only a human accepts or rejects an alias proposal")

    def run(session: Session) -> SessionView:
        conv = visible_conversation(session, principal, conv_id, lock=True)
        proposal = session.get(AliasProposal, proposal_id)
        if proposal is None or proposal.session_id != conv.id:
            raise NotFound(f"no alias proposal {proposal_id} in this conversation")
        if proposal.state != "pending":
            raise AlreadyDecided(f"this proposal is already {proposal.state}")
        if accept:
            lock_creation(session)
            # Taken by now: `-2`, `-3` …, as a rename (nothing said about the holder).
            rename_to(session, conv, proposal.alias)
            conv.alias_source = "human"
            conv.updated_at = utcnow()
            emit_session_update(session, conv, participants(session, conv.id))
        proposal.state = "accepted" if accept else "rejected"
        proposal.decided_by = principal.name
        proposal.decided_at = utcnow()
        return conversation_view(session, conv, principal.name)

    return await store.write(run)


async def sync_conversation(
    store: Store, principal: Principal, conv_id: str, *, alias: str | None, title: str | None
) -> SessionView:
    """A platform writes back its own naming; ignored where a human has renamed."""
    wanted_alias = normalize_alias(alias) if alias is not None else None
    wanted_title = checked_subject(title, "title") if title is not None else None

    def run(session: Session) -> SessionView:
        conv = visible_conversation(session, principal, conv_id, lock=True)
        changed = False
        if conv.alias_source != "human":
            if wanted_alias is not None and wanted_alias != conv.alias:
                lock_creation(session)
                rename_to(session, conv, wanted_alias)
                conv.alias_source = "platform"
                changed = True
            if wanted_title is not None and wanted_title != conv.subject:
                conv.subject = wanted_title
                changed = True
        if changed:
            conv.updated_at = utcnow()
            emit_session_update(session, conv, participants(session, conv.id))
        return conversation_view(session, conv, principal.name)

    return await store.write(run)
