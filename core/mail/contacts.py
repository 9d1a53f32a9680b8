"""Contacts: everyone the caller shares a conversation with (the reference `list_contacts`).

A model that wants to write back to someone asks here first: each contact comes
with the address they were last reached at (an agent's workspace from the mails
the caller saw), all their addresses, and how recently and how much the two
have worked together.
"""

from __future__ import annotations

from datetime import datetime
from typing import Literal

from sqlalchemy import ColumnElement, func, or_, select
from sqlalchemy.orm import Session, aliased

from core.address import Address, parse_native
from core.identity.external import is_external_cc
from core.mail.directory import agents_by_name, presence, reachable_workspace
from core.principal import Principal
from core.store.engine import Store
from core.store.models import Delivery, Mail, Participant, User
from core.views import View


class Contact(View):
    name: str
    kind: Literal["agent", "human"]
    address: str
    email: str
    addresses: list[str]
    status: Literal["online", "offline"] | None
    last_interaction: datetime | None
    shared_sessions: int


class ContactList(View):
    contacts: list[Contact]
    total: int


def _shared_conversations(session: Session, me: str) -> dict[str, int]:
    mine, theirs = aliased(Participant), aliased(Participant)
    rows = session.execute(
        select(theirs.name, func.count())
        .join(mine, mine.session_id == theirs.session_id)
        .where(mine.name == me, theirs.name != me)
        .group_by(theirs.name)
    )
    return {name: int(count) for name, count in rows}


def _seen_by(me: str) -> ColumnElement[bool]:
    """The mails the caller saw: sent or received."""
    return or_(
        Mail.from_name == me,
        Mail.seq.in_(select(Delivery.mail_seq).where(Delivery.recipient == me)),
    )


def _last_seen_with(
    session: Session, me: str
) -> tuple[dict[str, datetime], dict[str, tuple[datetime, str]]]:
    """When each person was last in a mail the caller saw, and the workspace they last used.

    Someone is in a mail as its sender or `to` (the columns hold the workspace) or a
    cc (from the deliveries; the workspace is only in the mail's cc list).
    """
    seen = _seen_by(me)
    last: dict[str, datetime] = {}
    used: dict[str, tuple[datetime, str]] = {}
    for name, path in ((Mail.from_name, Mail.from_path), (Mail.to_name, Mail.to_path)):
        query = select(name, path, func.max(Mail.created_at)).where(seen).group_by(name, path)
        for who, workspace, when in session.execute(query):
            last[who] = max(when, last.get(who, when))
            if who not in used or when > used[who][0]:
                used[who] = (when, workspace)
    cc = (
        select(Delivery.recipient, func.max(Mail.created_at))
        .join(Mail, Mail.seq == Delivery.mail_seq)
        .where(seen, Delivery.kind == "cc")
        .group_by(Delivery.recipient)
    )
    for who, when in session.execute(cc):
        last[who] = max(when, last.get(who, when))
    last.pop(me, None)
    return last, used


def _cc_workspace(session: Session, me: str, name: str) -> str | None:
    """The workspace an agent was last cc'd at, in a mail the caller saw."""
    newest = session.scalar(
        select(Mail.cc)
        .join(Delivery, Delivery.mail_seq == Mail.seq)
        .where(_seen_by(me), Delivery.recipient == name, Delivery.kind == "cc")
        .order_by(Mail.seq.desc())
        .limit(1)
    )
    for text in newest or []:
        if is_external_cc(text):
            continue
        address = parse_native(text)
        if address.name == name:
            return address.path
    return None


async def list_contacts(
    store: Store, domain: str, principal: Principal, *, limit: int = 50, offset: int = 0
) -> ContactList:
    """The caller's contacts, the most recent interaction first (then by name)."""

    def run(session: Session) -> list[Contact]:
        shared = _shared_conversations(session, principal.name)
        last, used = _last_seen_with(session, principal.name)
        agents = agents_by_name(session, shared)
        humans = set(session.scalars(select(User.name).where(User.name.in_(list(shared)))))
        contacts = []
        for name, count in shared.items():
            agent = agents.get(name)
            if agent is not None:
                workspace = used[name][1] if name in used else None
                if workspace is None and name in last:
                    workspace = _cc_workspace(session, principal.name, name)
                address = Address(name, reachable_workspace(agent, workspace))
                every = [Address(name, ws["name"]).native() for ws in agent.workspaces]
            elif name in humans:
                address = Address(name)
                every = [address.native()]
            else:
                continue
            contacts.append(
                Contact(
                    name=name,
                    kind="agent" if agent else "human",
                    address=address.native(),
                    email=address.email(domain),
                    addresses=every,
                    status=presence(agent) if agent else None,
                    last_interaction=last.get(name),
                    shared_sessions=count,
                )
            )
        return contacts

    contacts = await store.read(run)
    # Newest first; contacts never seen in a mail of the caller's go last; then by name.
    contacts.sort(
        key=lambda c: (
            c.last_interaction is None,
            -c.last_interaction.timestamp() if c.last_interaction else 0.0,
            c.name,
        )
    )
    return ContactList(contacts=contacts[offset : offset + limit], total=len(contacts))
