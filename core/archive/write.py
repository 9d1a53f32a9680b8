"""Writing one batch of an import: attachments staged, one transaction, a fallback.

The batch goes in through the import mode of the write path (core/mail/imported.py)
in one transaction (several when its messages' bytes pass `MAX_TRANSACTION_BYTES`,
so a transaction stays short for the other writers). Should the database refuse
any of it, the batch is written again one message per transaction, so a bad
message fails alone and the rest goes in. Attachment contents are staged before
the transaction and put in place after it commits, as REST uploads are
(core/store/blobs.py); a dry run rolls back and keeps none. Addresses at the
gateway's domain become names through the one parser (core/address/),
registered or not yet (`agentmail user add` later gives that person the mail);
any other address is an external participant (core/identity/external.py).
"""

from __future__ import annotations

import asyncio
import hashlib
from dataclasses import dataclass, field
from datetime import datetime
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.address import at_domain, parse_email
from core.archive.parse import Parsed
from core.errors import DomainError, InvalidAddress, UnknownWorkspace
from core.identity.endpoints import Endpoint, agent_row, workspace_of
from core.identity.external import external_endpoint
from core.mail.imported import ImportedMail, Stored, import_writer
from core.store.blobs import BlobStore, Staged
from core.store.engine import Store
from core.store.models import User, utcnow
from core.store.raw_messages import Original

__all__ = ["ALREADY", "STORED", "Pending", "write_batch"]

# What became of a message: stored, found stored already (by another import or
# SMTP meanwhile), or else the reason it was not stored.
STORED: Final = "stored"
# Message bytes written in one import transaction (besides the 500 messages a batch has
# at most, core/archive/importing.py); a single bigger message goes alone.
MAX_TRANSACTION_BYTES: Final = 32 << 20
ALREADY: Final = "already stored"


@dataclass(slots=True)
class Pending:
    """A message on its way in: where it is, its bytes, its id, what it says."""

    key: str
    raw: bytes
    message_id: str
    parsed: Parsed | None = None
    attachments: list[tuple[str, str, int, str]] = field(default_factory=list)
    original: Original | None = None  # `raw` hashed, in `_stage`'s worker thread


class _RolledBack(Exception):
    """Ends a dry run's transaction without committing; carries what it found."""

    def __init__(self, outcomes: list[str]) -> None:
        super().__init__("dry run")
        self.outcomes = outcomes


class _Refused(Exception):
    """The database refused something in a batch."""


async def write_batch(
    store: Store, blobs: BlobStore, domain: str, items: list[Pending], dry_run: bool
) -> list[str]:
    """Write parsed messages (parents first); one outcome per message.

    A batch of many big messages is written as several transactions of at most
    `MAX_TRANSACTION_BYTES` of message bytes each (a single bigger message alone), so
    no import transaction holds the writer long enough to starve other writers.
    """
    outcomes: list[str] = []
    for group in _by_size(items, MAX_TRANSACTION_BYTES):
        outcomes += await _write_group(store, blobs, domain, group, dry_run)
    return outcomes


def _by_size(items: list[Pending], limit: int) -> list[list[Pending]]:
    """Consecutive groups (parents stay before their replies) of at most `limit` bytes."""
    groups: list[list[Pending]] = []
    size = 0
    for item in items:
        if not groups or size + len(item.raw) > limit:
            groups.append([])
            size = 0
        groups[-1].append(item)
        size += len(item.raw)
    return groups


async def _write_group(
    store: Store, blobs: BlobStore, domain: str, items: list[Pending], dry_run: bool
) -> list[str]:
    if not items:
        return []
    staged = await asyncio.to_thread(_stage, blobs, items)
    fallback = utcnow()
    keep: set[str] = set()
    try:
        try:
            outcomes = await _run(store, domain, items, fallback, dry_run, alone=False)
        except _Refused:
            outcomes = [
                (await _run(store, domain, [item], fallback, dry_run, alone=True))[0]
                for item in items
            ]
        if not dry_run:
            for item, outcome in zip(items, outcomes, strict=True):
                if outcome == STORED:
                    keep.update(sha256 for *_, sha256 in item.attachments)
        return outcomes
    finally:
        await asyncio.to_thread(_settle, blobs, staged, keep)


def _stage(blobs: BlobStore, items: list[Pending]) -> dict[str, Staged]:
    """Write each distinct attachment content once, not yet placed (core/store/blobs.py)."""
    staged: dict[str, Staged] = {}
    for item in items:
        assert item.parsed is not None
        item.original = Original.of(item.raw)
        for filename, content_type, content in item.parsed.attachments:
            sha256 = hashlib.sha256(content).hexdigest()
            if sha256 not in staged:
                staged[sha256] = blobs.stage(content)
            item.attachments.append((filename, content_type, len(content), sha256))
    return staged


def _settle(blobs: BlobStore, staged: dict[str, Staged], keep: set[str]) -> None:
    for sha256, held in staged.items():
        if sha256 in keep:
            blobs.place(held)
        else:
            blobs.discard(held)


async def _run(
    store: Store,
    domain: str,
    items: list[Pending],
    fallback: datetime,
    dry_run: bool,
    *,
    alone: bool,
) -> list[str]:
    """One transaction; `alone` (one message) turns a refusal into its reason."""

    def run(session: Session) -> list[str]:
        written = _write_all(session, domain, items, fallback)
        outcomes = [STORED if w is not None else ALREADY for w in written]
        if dry_run:
            raise _RolledBack(outcomes)
        return outcomes

    try:
        return await store.write(run)
    except _RolledBack as rolled_back:
        return rolled_back.outcomes
    except DomainError as error:
        if not alone:
            raise _Refused from error
        return [error.message]
    except Exception as error:  # the database refused it (a constraint, a value)
        if not alone:
            raise _Refused from error
        return [f"not stored: {type(error).__name__}: {str(error).splitlines()[0]}"]


def _write_all(
    session: Session, domain: str, items: list[Pending], fallback: datetime
) -> list[Stored | None]:
    endpoints: dict[str, Endpoint] = {}

    def endpoint(address: str) -> Endpoint:
        if address not in endpoints:
            endpoints[address] = _resolve(session, address, domain)
        return endpoints[address]

    mails = []
    for item in items:
        parsed = item.parsed
        assert parsed is not None
        to, cc = (parsed.to, parsed.cc) if parsed.to else (parsed.cc[:1], parsed.cc[1:])
        mails.append(
            ImportedMail(
                sender=endpoint(parsed.sender),
                to=endpoint(to[0]),
                cc=[endpoint(a) for a in [*to[1:], *cc]],
                subject=parsed.subject,
                body=parsed.body,
                message_id=item.message_id,
                raw=item.original or Original.of(item.raw),
                created_at=parsed.date or fallback,
                replies_to=parsed.replies_to,
                attachments=item.attachments,
            )
        )
    return import_writer(mails)(session)


def _resolve(session: Session, address: str, domain: str) -> Endpoint:
    """A name at the gateway's domain (registered or not), else an external participant."""
    if not at_domain(address, domain):
        return external_endpoint(address)
    try:
        parsed = parse_email(address, domain)
    except InvalidAddress:
        return external_endpoint(address)  # at our domain, but no name of ours
    agent = agent_row(session, parsed.name)
    if agent is not None:
        try:
            return Endpoint(agent.name, workspace_of(agent, parsed.path), agent)
        except UnknownWorkspace:
            return Endpoint(agent.name, parsed.path, agent)
    if session.scalar(select(User.id).where(User.name == parsed.name)):
        return Endpoint(parsed.name, "", None)
    return Endpoint(parsed.name, parsed.path, None)
