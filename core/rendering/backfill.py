"""Kept structures for the mail stored before they existed: a background backfill in
batches, resumable, idempotent; and the structures IMAP made at read time, written.

The migration that made the tables (18_0026s) fills nothing: a start-up must not parse
a whole store. Once the gateway serves, `Filler.run` walks the stored originals (by
sha256) and then the rendered mails in IMAP folders (by folder and UID), a batch at a
time: it reads a few rows, makes their structures in a worker thread, writes them in
one transaction and pauses, so clients are served in between. A row filled stays
filled, so a gateway stopped midway starts again at the first row still missing, and
a row someone else filled meanwhile (IMAP's write-back, another replica) is skipped.
A rendered mail's row kept for another alias or permission state (a rename or a
decision while the gateway was down) is made again too; one made stale while it runs
is made again when it is next read. Until a row is filled, IMAP makes its structure
when it reads the mail (imap_view/kept_contents.py) and hands it to `KeptQueue`,
written here too.
Progress: `agentmail_kept_structures_pending` and `…_filled_total`, and a log line
at the start, each thousand and the end.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Sequence
from dataclasses import dataclass
from functools import partial
from typing import Final

from sqlalchemy import delete, func, or_, select, tuple_, update
from sqlalchemy.orm import Session

from core.metrics import KEPT_FILLED, KEPT_PENDING
from core.mime.kept import KEPT_VERSION, kept_structure
from core.rendering.batch import load_many
from core.rendering.kept import (
    KeptWrite,
    made_structures,
    stale_renderings,
    write_kept,
)
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.store.models import ImapUid, Mail, MessageStructure, RawMessage, RenderedStructure

__all__ = ["BATCH_BYTES", "BATCH_ROWS", "Filler", "KeptQueue"]

log = logging.getLogger(__name__)
BATCH_ROWS: Final = 32
SCAN_ROWS: Final = 512  # rendered mails whose kept rows are checked in one read
BATCH_BYTES: Final = 8 * 1024 * 1024
QUEUED_AT_MOST: Final = 4096


class KeptQueue:
    """Structures IMAP made at read time, until the filler writes them; past
    `QUEUED_AT_MOST` they are dropped (a cache: the mail is made again when read)."""

    def __init__(self) -> None:
        self._pending: dict[object, KeptWrite] = {}
        self._ready = asyncio.Event()

    def add(self, write: KeptWrite) -> None:
        if len(self._pending) < QUEUED_AT_MOST:
            self._pending[write.sha256 or write.mail_seq] = write
            self._ready.set()

    def take(self) -> list[KeptWrite]:
        taken, self._pending = list(self._pending.values()), {}
        self._ready.clear()
        return taken

    async def wait(self) -> None:
        await self._ready.wait()


@dataclass(slots=True)
class Filled:
    originals: int = 0
    rendered: int = 0


_MISSING_ORIGINAL = or_(MessageStructure.sha256.is_(None), MessageStructure.version != KEPT_VERSION)
_MISSING_RENDERED = or_(
    RenderedStructure.mail_seq.is_(None), RenderedStructure.version != KEPT_VERSION
)  # counted as pending; a row of another alias or permission state is found as it goes


def _originals_after(session: Session, after: str, limit: int) -> list[tuple[str, int]]:
    rows = session.execute(
        select(RawMessage.sha256, RawMessage.size)
        .outerjoin(MessageStructure, MessageStructure.sha256 == RawMessage.sha256)
        .where(RawMessage.sha256 > after, _MISSING_ORIGINAL)
        .order_by(RawMessage.sha256)
        .limit(limit)
    )
    return [(str(sha256), int(size)) for sha256, size in rows]


def _rendered_after(session: Session, after: tuple[int, int]) -> list[tuple[int, int, int]]:
    """(folder, UID, mail seq) of the next rendered mails in IMAP folders."""
    rows = session.execute(
        select(ImapUid.folder_id, ImapUid.uid, ImapUid.mail_seq)
        .join(Mail, Mail.seq == ImapUid.mail_seq)
        .where(tuple_(ImapUid.folder_id, ImapUid.uid) > tuple_(*after), Mail.raw_sha256.is_(None))
        .order_by(ImapUid.folder_id, ImapUid.uid)
        .limit(SCAN_ROWS)
    )
    return [(int(folder), int(uid), int(seq)) for folder, uid, seq in rows]


def _pending(session: Session) -> tuple[int, int]:
    originals = session.scalar(
        select(func.count())
        .select_from(RawMessage)
        .outerjoin(MessageStructure, MessageStructure.sha256 == RawMessage.sha256)
        .where(_MISSING_ORIGINAL)
    )
    rendered = session.scalar(
        select(func.count(func.distinct(ImapUid.mail_seq)))
        .join(Mail, Mail.seq == ImapUid.mail_seq)
        .outerjoin(RenderedStructure, RenderedStructure.mail_seq == ImapUid.mail_seq)
        .where(Mail.raw_sha256.is_(None), _MISSING_RENDERED)
    )
    return int(originals or 0), int(rendered or 0)


def _bytes_of(session: Session, shas: list[str]) -> list[tuple[str, bytes]]:
    rows = session.execute(
        select(RawMessage.sha256, RawMessage.data).where(RawMessage.sha256.in_(shas))
    )
    return [(str(sha256), bytes(data)) for sha256, data in rows]


def _made_originals(rows: list[tuple[str, bytes]]) -> list[KeptWrite]:
    return [KeptWrite(kept_structure(data), sha256=sha256) for sha256, data in rows]


def _write_originals(session: Session, writes: Sequence[KeptWrite]) -> None:
    """Rows of an older version out first; the opaque mark of bytes stored before it."""
    shas = [w.sha256 for w in writes if w.sha256 is not None]
    session.execute(
        delete(MessageStructure).where(
            MessageStructure.sha256.in_(shas), MessageStructure.version != KEPT_VERSION
        )
    )
    write_kept(session, writes)
    for write in writes:
        session.execute(
            update(RawMessage)
            .where(RawMessage.sha256 == write.sha256, RawMessage.opaque.is_(None))
            .values(opaque=write.kept.opaque)
        )


class Filler:
    """The backfill and the write-back of one gateway process (see module doc)."""

    def __init__(
        self,
        store: Store,
        blobs: BlobStore,
        domain: str,
        *,
        pause: float = 0.05,
        batch_rows: int = BATCH_ROWS,
    ) -> None:
        """`pause`: seconds between two batches, so clients are served in between."""
        self.store, self.blobs, self.domain, self.pause = store, blobs, domain, pause
        self.batch_rows = batch_rows
        self.queue = KeptQueue()
        self.filled = Filled()

    async def run(self) -> None:
        """The backfill, then the write-back for as long as the gateway runs."""
        await self.backfill()
        while True:
            await self.queue.wait()
            await self.write_queued()

    async def write_queued(self) -> None:
        writes = self.queue.take()
        if writes:
            await self.store.write(lambda session: write_kept(session, writes))
            for write in writes:
                kind = "original" if write.sha256 is not None else "rendered"
                KEPT_FILLED.labels(kind, "read").inc()

    async def backfill(self) -> Filled:
        """Every stored mail without a structure of this version, filled (see module doc)."""
        originals, rendered = await self.store.read(_pending)
        KEPT_PENDING.labels("original").set(originals)
        KEPT_PENDING.labels("rendered").set(rendered)
        if originals or rendered:
            log.info("kept structures: %d originals and %d renderings to fill", originals, rendered)
        await self._originals(originals)
        await self._rendered(rendered)
        if originals or rendered:
            log.info(
                "kept structures: filled %d originals and %d renderings",
                self.filled.originals,
                self.filled.rendered,
            )
        return self.filled

    async def _originals(self, pending: int) -> None:
        after = ""
        limit = self.batch_rows
        while rows := await self.store.read(partial(_originals_after, after=after, limit=limit)):
            batch: list[str] = []
            size = 0
            for sha256, length in rows:
                if batch and size + length > BATCH_BYTES:
                    break
                batch.append(sha256)
                size += length
            after = batch[-1]
            data = await self.store.read(partial(_bytes_of, shas=batch))
            writes = await asyncio.to_thread(_made_originals, data)
            await self.store.write(partial(_write_originals, writes=writes))
            self._count("original", len(writes), pending)
            await asyncio.sleep(self.pause)

    async def _rendered(self, pending: int) -> None:
        after = (0, 0)
        while rows := await self.store.read(partial(_rendered_after, after=after)):
            after = rows[-1][:2]
            seqs = list(dict.fromkeys(seq for *_, seq in rows))
            stale = await self.store.read(partial(stale_renderings, seqs=seqs))
            await self._render(stale, pending)

    async def _render(self, seqs: list[int], pending: int) -> None:
        """These rendered mails' structures made and kept, a batch at a time."""
        for start in range(0, len(seqs), self.batch_rows):
            chunk = seqs[start : start + self.batch_rows]
            loaded = await self.store.read(partial(load_many, seqs=chunk))
            made = await asyncio.to_thread(made_structures, loaded, {}, self.blobs, self.domain)
            writes = [write for _, write in made.values()]
            await self.store.write(partial(write_kept, writes=writes))
            self._count("rendered", len(writes), pending)
            await asyncio.sleep(self.pause)

    def _count(self, kind: str, count: int, pending: int) -> None:
        filled = self.filled
        before = filled.originals if kind == "original" else filled.rendered
        done = before + count
        filled.originals, filled.rendered = (
            (done, filled.rendered) if kind == "original" else (filled.originals, done)
        )
        KEPT_FILLED.labels(kind, "backfill").inc(count)
        KEPT_PENDING.labels(kind).set(max(0, pending - done))
        if done // 1000 != before // 1000:
            log.info("kept structures: %d of %d %ss filled", done, pending, kind)
