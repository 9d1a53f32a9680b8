"""`agentmail import`: bring an archive's messages in through the one write path.

Two passes over the source. The first reads only headers and orders the messages
so every parent is stored before its replies (core/import_order.py). The second
reads them in batches, with CRLF line ends (core/import_parse.py,
`canonical_lines`): a message whose Message-ID is already stored, or came
earlier in this import, is skipped (a message without one gets a stable id made
from its bytes, core/import_parse.py), so running the same import twice adds
nothing. The rest are parsed (a malformed one is reported and skipped), their
attachments staged in the blob store, and the batch is written in one
transaction; should the database refuse any of it, the batch is written again one
message per transaction, so a bad message fails alone and the rest goes on.
`dry_run` does all of it and rolls back.

Addresses at the gateway's domain go through the one parser (core/address.py) to
names, registered or not yet (`agentmail user add` later gives that person the
mail); any other address is an external participant (core/external.py).
"""

from __future__ import annotations

import asyncio
from collections.abc import Callable, Iterator, Sequence
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Final, TypeVar

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.address import at_domain, parse_email
from core.agents import get_agent
from core.blobs import BlobStore
from core.endpoints import Endpoint, workspace_of
from core.errors import DomainError, InvalidAddress, UnknownWorkspace
from core.external import external_endpoint
from core.import_order import import_order
from core.import_parse import (
    Header,
    Malformed,
    Parsed,
    canonical_lines,
    read_header,
    read_message,
)
from core.import_parse import synthetic_message_id as synthetic_id
from core.import_sources import Source
from core.mail_import import ImportedMail, Stored, import_writer
from core.models import Mail, User, utcnow
from core.store import Store

__all__ = ["SKIP_REPEATED", "SKIP_STORED", "Failure", "ImportReport", "import_messages"]

BATCH: Final = 500
SKIP_STORED: Final = "already stored (same Message-ID)"
SKIP_REPEATED: Final = "repeated in this import (same Message-ID)"
Progress = Callable[[str, int, int], None]  # phase ("scan" or "import"), done, total
T = TypeVar("T")


@dataclass(frozen=True, slots=True)
class Failure:
    where: str
    why: str


@dataclass(slots=True)
class ImportReport:
    total: int = 0
    imported: int = 0
    skipped: dict[str, int] = field(default_factory=dict)
    failed: list[Failure] = field(default_factory=list)
    dry_run: bool = False

    def skip(self, why: str) -> None:
        self.skipped[why] = self.skipped.get(why, 0) + 1


@dataclass(slots=True)
class _Item:
    key: str
    raw: bytes
    message_id: str
    parsed: Parsed | None = None
    attachments: list[tuple[str, str, int, str]] = field(default_factory=list)
    stored: bool = False  # written (or, in a dry run, would have been)


class _RolledBack(Exception):
    """Ends a dry run's transaction without committing; carries what it found."""

    def __init__(self, outcomes: list[str]) -> None:
        super().__init__("dry run")
        self.outcomes = outcomes


def _chunks(items: Sequence[T], size: int) -> Iterator[Sequence[T]]:
    for start in range(0, len(items), size):
        yield items[start : start + size]


async def import_messages(
    store: Store,
    blobs: BlobStore,
    domain: str,
    source: Source,
    *,
    max_attachment_bytes: int,
    dry_run: bool = False,
    batch_size: int = BATCH,
    progress: Progress | None = None,
) -> ImportReport:
    """Import every message of `source`; the report says what became of each."""
    report = ImportReport(dry_run=dry_run)
    keys = await source.keys()
    report.total = len(keys)
    headers: list[Header] = []
    for some_keys in _chunks(keys, batch_size):
        raws = await source.fetch_headers(some_keys)
        headers += await asyncio.to_thread(_read_headers, raws)
        if progress is not None:
            progress("scan", len(headers), len(keys))
    seen: set[str] = set()
    done = 0
    for chunk in _chunks(import_order(headers), batch_size):
        batch = [keys[i] for i in chunk]
        raws = await asyncio.to_thread(_canonical, await source.fetch(batch))
        items = [
            _Item(key, raw, headers[i].message_id or synthetic_id(raw, domain))
            for i, key, raw in zip(chunk, batch, raws, strict=True)
        ]
        items = await _fresh(store, items, seen, report)
        items = await asyncio.to_thread(_parse, items, max_attachment_bytes, source, report)
        items = _first_copies(items, report)
        await _write(store, blobs, domain, items, dry_run, source, report)
        seen.update(item.message_id for item in items if item.stored)
        done += len(batch)
        if progress is not None:
            progress("import", done, len(keys))
    return report


def _canonical(raws: list[bytes]) -> list[bytes]:
    return [canonical_lines(raw) for raw in raws]


def _read_headers(raws: list[bytes]) -> list[Header]:
    return [read_header(raw) for raw in raws]


async def _fresh(
    store: Store, items: list[_Item], seen: set[str], report: ImportReport
) -> list[_Item]:
    """The items whose Message-ID is neither stored nor imported earlier in this run
    (a dry run stores nothing, so `seen` remembers for it)."""
    wanted = list({item.message_id for item in items})
    query = select(Mail.message_id).where(Mail.message_id.in_(wanted))
    stored = await store.read(lambda session: set(session.scalars(query)))
    fresh = []
    for item in items:
        if item.message_id in stored:
            report.skip(SKIP_STORED)
        elif item.message_id in seen:
            report.skip(SKIP_REPEATED)
        else:
            fresh.append(item)
    return fresh


def _first_copies(items: list[_Item], report: ImportReport) -> list[_Item]:
    """Within a batch, the first readable copy of each Message-ID; later ones are skipped."""
    first: dict[str, _Item] = {}
    for item in items:
        if item.message_id in first:
            report.skip(SKIP_REPEATED)
        else:
            first[item.message_id] = item
    return list(first.values())


def _parse(items: list[_Item], limit: int, source: Source, report: ImportReport) -> list[_Item]:
    """Parse in a worker thread; a malformed message is reported and dropped."""
    parsed = []
    for item in items:
        try:
            item.parsed = read_message(item.raw, limit)
        except Malformed as error:
            report.failed.append(Failure(source.label(item.key), str(error)))
            continue
        parsed.append(item)
    return parsed


def _stage(blobs: BlobStore, items: list[_Item]) -> dict[str, Path]:
    """Write each distinct attachment content once, not yet in place (core/blobs.py)."""
    staged: dict[str, Path] = {}
    for item in items:
        assert item.parsed is not None
        for filename, content_type, content in item.parsed.attachments:
            blob, temp = blobs.stage(content)
            if blob.sha256 in staged:
                temp.unlink()
            else:
                staged[blob.sha256] = temp
            item.attachments.append((filename, content_type, blob.size, blob.sha256))
    return staged


def _settle(blobs: BlobStore, staged: dict[str, Path], keep: set[str]) -> None:
    for sha256, temp in staged.items():
        if sha256 in keep:
            blobs.place(temp, sha256)
        else:
            temp.unlink(missing_ok=True)


async def _write(
    store: Store,
    blobs: BlobStore,
    domain: str,
    items: list[_Item],
    dry_run: bool,
    source: Source,
    report: ImportReport,
) -> None:
    """The batch in one transaction; if the database refuses any of it, each message
    in its own, so one bad message does not take the others down."""
    if not items:
        return
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
        for item, outcome in zip(items, outcomes, strict=True):
            if outcome == _STORED:
                item.stored = True
                report.imported += 1
                if not dry_run:
                    keep.update(sha256 for *_, sha256 in item.attachments)
            elif outcome == _ALREADY:  # stored meanwhile (another import, SMTP)
                report.skip(SKIP_STORED)
            else:
                report.failed.append(Failure(source.label(item.key), outcome))
    finally:
        await asyncio.to_thread(_settle, blobs, staged, keep)


class _Refused(Exception):
    """The database refused something in a batch."""


# What became of one message in a transaction: stored, found stored already, or why not.
_STORED: Final = "stored"
_ALREADY: Final = "already stored"


async def _run(
    store: Store,
    domain: str,
    items: list[_Item],
    fallback: datetime,
    dry_run: bool,
    *,
    alone: bool,
) -> list[str]:
    """One transaction; `alone` (one message) turns a refusal into its reason."""

    def run(session: Session) -> list[str]:
        written = _write_all(session, domain, items, fallback)
        outcomes = [_STORED if w is not None else _ALREADY for w in written]
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
    session: Session, domain: str, items: list[_Item], fallback: datetime
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
                raw=item.raw,
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
    agent = get_agent(session, parsed.name)
    if agent is not None:
        try:
            return Endpoint(agent.name, workspace_of(agent, parsed.path), agent)
        except UnknownWorkspace:
            return Endpoint(agent.name, parsed.path, agent)
    if session.scalar(select(User.id).where(User.name == parsed.name)):
        return Endpoint(parsed.name, "", None)
    return Endpoint(parsed.name, parsed.path, None)
