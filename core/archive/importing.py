"""`agentmail import`: bring an archive's messages in through the one write path.

Two passes over the source. The first reads only headers and orders the messages
so every parent is stored before its replies (core/archive/order.py). The second
reads them in batches, with CRLF line ends (core/archive/parse.py,
`canonical_lines`): a message whose Message-ID is already stored, or came
earlier in this import, is skipped (a message without one gets a stable id made
from its bytes, core/archive/parse.py), so running the same import twice adds
nothing. The rest are parsed (a malformed one is reported and skipped) and
written a batch per transaction (core/archive/write.py); the next batch is read
and parsed while one is written. `dry_run` does all of it and rolls back.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections.abc import Awaitable, Callable, Iterator, Sequence
from dataclasses import dataclass, field
from typing import Final, TypeVar

from sqlalchemy import select

from core.archive.order import import_order
from core.archive.parse import (
    Header,
    Malformed,
    canonical_lines,
    read_header,
    read_message,
)
from core.archive.parse import synthetic_message_id as synthetic_id
from core.archive.sources import Source
from core.archive.write import ALREADY, STORED, Pending, write_batch
from core.mail.imported import FILED
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.store.models import Mail

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
    order = list(_chunks(import_order(headers), batch_size))
    seen: set[str] = set()
    limit = max_attachment_bytes

    def prepare(chunk: Sequence[int], in_flight: set[str]) -> Awaitable[list[Pending]]:
        return _prepare(store, source, domain, keys, headers, chunk, seen, in_flight, limit, report)

    # Batch N+1 is read and parsed while batch N is written (the CPU-bound parse and
    # the database overlap); what N+1 shares with N is settled once N is written.
    ready: list[Pending] = []
    if order:
        ready = await _settle_held(await prepare(order[0], set()), seen, limit, source, report)
    done = 0
    for number, chunk in enumerate(order):
        following = None
        if number + 1 < len(order):
            in_flight = {item.message_id for item in ready}
            following = asyncio.ensure_future(prepare(order[number + 1], in_flight))
        try:
            outcomes = await write_batch(store, blobs, domain, ready, dry_run)
            _count(ready, outcomes, seen, source, report)
            done += len(chunk)
            if progress is not None:
                progress("import", done, len(keys))
            if following is not None:
                ready = await _settle_held(await following, seen, limit, source, report)
        finally:  # a failed write leaves no read-ahead running, or its error unseen
            if following is not None and not following.done():
                following.cancel()
                with contextlib.suppress(asyncio.CancelledError):
                    await following
            elif following is not None and not following.cancelled():
                following.exception()
    return report


def _count(
    items: list[Pending], outcomes: list[str], seen: set[str], source: Source, report: ImportReport
) -> None:
    for item, outcome in zip(items, outcomes, strict=True):
        if outcome == STORED:
            report.imported += 1
            seen.add(item.message_id)
        elif outcome == ALREADY:
            report.skip(SKIP_STORED)
        else:
            report.failed.append(Failure(source.label(item.key), outcome))


async def _prepare(
    store: Store,
    source: Source,
    domain: str,
    keys: list[str],
    headers: list[Header],
    chunk: Sequence[int],
    seen: set[str],
    in_flight: set[str],
    limit: int,
    report: ImportReport,
) -> list[Pending]:
    """Read, identify, filter and parse one batch. A message sharing its Message-ID
    with the batch being written meanwhile is held, unparsed, until that is known."""
    batch = [keys[i] for i in chunk]
    raws = await asyncio.to_thread(_canonical, await source.fetch(batch))
    items = [
        Pending(key, raw, headers[i].message_id or synthetic_id(raw, domain))
        for i, key, raw in zip(chunk, batch, raws, strict=True)
    ]
    items = await _fresh(store, items, seen, in_flight, report)
    return await asyncio.to_thread(_parse, items, limit, source, report, in_flight)


async def _settle_held(
    items: list[Pending], seen: set[str], limit: int, source: Source, report: ImportReport
) -> list[Pending]:
    """Held messages: a repeat if the batch before stored their id, else parsed now."""
    held = [item for item in items if item.parsed is None]
    if held:
        repeats = {id(item) for item in held if item.message_id in seen}
        for _ in repeats:
            report.skip(SKIP_REPEATED)
        await asyncio.to_thread(
            _parse, [i for i in held if id(i) not in repeats], limit, source, report, set()
        )
        items = [item for item in items if item.parsed is not None]
    return _first_copies(items, report)


def _canonical(raws: list[bytes]) -> list[bytes]:
    return [canonical_lines(raw) for raw in raws]


def _read_headers(raws: list[bytes]) -> list[Header]:
    return [read_header(raw) for raw in raws]


async def _fresh(
    store: Store, items: list[Pending], seen: set[str], in_flight: set[str], report: ImportReport
) -> list[Pending]:
    """The items whose Message-ID is neither stored nor imported earlier in this run
    (a dry run stores nothing, so `seen` remembers for it); those of the batch being
    written meanwhile (`in_flight`) stay, to be settled after it."""
    wanted = list({item.message_id for item in items if item.message_id not in in_flight})
    query = select(Mail.message_id).where(Mail.message_id.in_(wanted), Mail.mail_type != FILED)
    stored = await store.read(lambda session: set(session.scalars(query)))
    fresh = []
    for item in items:
        if item.message_id in in_flight:
            fresh.append(item)
        elif item.message_id in stored:
            report.skip(SKIP_STORED)
        elif item.message_id in seen:
            report.skip(SKIP_REPEATED)
        else:
            fresh.append(item)
    return fresh


def _first_copies(items: list[Pending], report: ImportReport) -> list[Pending]:
    """Within a batch, the first readable copy of each Message-ID; later ones are skipped."""
    first: dict[str, Pending] = {}
    for item in items:
        if item.message_id in first:
            report.skip(SKIP_REPEATED)
        else:
            first[item.message_id] = item
    return list(first.values())


def _parse(
    items: list[Pending], limit: int, source: Source, report: ImportReport, hold: set[str]
) -> list[Pending]:
    """Parse in a worker thread; a malformed message is reported and dropped; one whose
    Message-ID is in `hold` is kept unparsed."""
    parsed = []
    for item in items:
        if item.message_id in hold:
            parsed.append(item)
            continue
        try:
            item.parsed = read_message(item.raw, limit)
        except Malformed as error:
            report.failed.append(Failure(source.label(item.key), str(error)))
            continue
        parsed.append(item)
    return parsed
