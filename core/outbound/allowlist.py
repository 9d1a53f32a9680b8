"""Each agent's outbound allowlist: the outside mailboxes it may mail directly.

An admin sets the whole list at once (`PUT /admin/agents/{name}/outbound-allowlist`);
the agent reads it. An agent's mail to an outside recipient that no entry allows is
stored and held for a human's decision (core/mail/outside_hold.py) instead of queued.
Humans have no allowlist: their outbound switch is the whole policy.

Entries, each checked as core/address/mailto.py checks a mailbox (ASCII only: an
international domain in its A-label form `xn--…`, never a U-label; fully qualified;
never the gateway's own domain), stored in a canonical form:

* `bob@example.com` (or `mailto:bob@example.com`): that mailbox only. The domain
  compares case-insensitively, the local part exactly as written (RFC 5321 §2.4: only
  the receiving host may say `Bob` and `bob` are one mailbox, so the leash does not);
* `example.com`: any mailbox at exactly that domain, not at its subdomains;
* `*.example.com`: any mailbox at a subdomain of `example.com`, at any depth
  (`a.example.com`, `a.b.example.com`), not at `example.com` itself (list both to
  allow both). The domain after `*.` is fully qualified too (no `*.com`); a `*`
  anywhere else is refused.
"""

from __future__ import annotations

from collections.abc import Collection, Sequence
from typing import Final

from sqlalchemy import delete, insert, select
from sqlalchemy.orm import Session

from core.address.mailto import MAILTO, is_mailto, parse_mailbox
from core.errors import InvalidAddress, InvalidRequest, NotFound
from core.store.engine import Store
from core.store.models import Agent, OutboundAllowlistEntry, table_of, utcnow

__all__ = [
    "MAX_ENTRIES",
    "MAX_ENTRY_LENGTH",
    "agent_allowlist",
    "allows",
    "parse_allowlist",
    "parse_entry",
    "read_allowlist",
    "set_agent_allowlist",
]

MAX_ENTRIES: Final = 200
MAX_ENTRY_LENGTH: Final = 256
WILDCARD: Final = "*."
_ENTRIES = table_of(OutboundAllowlistEntry)


def _invalid(text: str, why: str) -> InvalidAddress:
    return InvalidAddress(f"allowlist entry {text!r}: {why}")


def _checked_domain(text: str, domain: str, own: str) -> str:
    try:
        checked = parse_mailbox(f"postmaster@{domain}").rpartition("@")[2]
    except InvalidAddress as error:
        raise _invalid(text, str(error).partition(": ")[2]) from None
    if checked == own:
        raise _invalid(text, f"it is at this gateway's own domain {own!r}")
    return checked


def parse_entry(text: str, own_domain: str) -> str:
    """One entry in its canonical form (the rules are in the module docstring)."""
    entry = text.strip()
    own = own_domain.lower()
    if len(entry) > MAX_ENTRY_LENGTH:
        raise _invalid(text[:64] + "…", f"longer than {MAX_ENTRY_LENGTH} characters")
    if is_mailto(entry):
        entry = entry[len(MAILTO) :]
    if "@" in entry:
        try:
            mailbox = parse_mailbox(entry)
        except InvalidAddress as error:
            raise _invalid(text, str(error).partition(": ")[2]) from None
        _checked_domain(text, mailbox.rpartition("@")[2], own)
        return mailbox
    if entry.startswith(WILDCARD):
        return WILDCARD + _checked_domain(text, entry[len(WILDCARD) :], own)
    if "*" in entry:
        raise _invalid(text, "a wildcard is only `*.` before a domain (*.example.com)")
    return _checked_domain(text, entry, own)


def parse_allowlist(entries: Sequence[str], own_domain: str) -> list[str]:
    """A whole list: at most MAX_ENTRIES, each parsed; duplicates kept once, sorted."""
    if len(entries) > MAX_ENTRIES:
        raise InvalidRequest(f"an allowlist has at most {MAX_ENTRIES} entries")
    return sorted({parse_entry(entry, own_domain) for entry in entries})


def allows(entries: Collection[str], mailbox: str) -> bool:
    """Whether a canonical outside mailbox (core/address/mailto.py: domain lower-cased)
    is allowed by canonical entries."""
    domain = mailbox.rpartition("@")[2]
    if mailbox in entries or domain in entries:
        return True
    labels = domain.split(".")
    return any(WILDCARD + ".".join(labels[i:]) in entries for i in range(1, len(labels) - 1))


def read_allowlist(session: Session, agent: str) -> list[str]:
    query = select(_ENTRIES.c.entry).where(_ENTRIES.c.agent == agent).order_by(_ENTRIES.c.entry)
    return list(session.scalars(query).all())


def _known_agent(session: Session, name: str) -> None:
    if session.scalar(select(Agent.id).where(Agent.name == name)) is None:
        raise NotFound(f"no agent named '{name}'")


async def agent_allowlist(store: Store, agent: str) -> list[str]:
    def run(session: Session) -> list[str]:
        _known_agent(session, agent)
        return read_allowlist(session, agent)

    return await store.read(run)


async def set_agent_allowlist(
    store: Store, agent: str, entries: Sequence[str], own_domain: str
) -> list[str]:
    """An admin's whole new list for an agent (the name as stored, lower case)."""
    parsed = parse_allowlist(entries, own_domain)

    def run(session: Session) -> list[str]:
        _known_agent(session, agent)
        session.execute(delete(_ENTRIES).where(_ENTRIES.c.agent == agent))
        if parsed:
            now = utcnow()
            rows = [{"agent": agent, "entry": entry, "created_at": now} for entry in parsed]
            session.execute(insert(_ENTRIES), rows)
        return parsed

    return await store.write(run)
