"""The bytes a mail came in as (SMTP, import), stored once per content.

One SMTP message to 50 recipients becomes 50 mails; they all name one
`raw_messages` row by the sha256 of the bytes, so a 1 MB message takes 1 MB, not
50 (the very same bytes submitted again share the row too). The row is written
in the transaction of the mails that name it, in the database: it is as durable
as they are (the database syncs the commit), in every backup of the database,
never orphaned by a refused submission and never collected while a mail names it.
Readers get the bytes exactly as they came (IMAP `BODY[]`, export).

Whether the bytes are over the MIME bounds (core/mime/bounds.py) is decided here, once,
with the hash, and kept with them (`opaque`): IMAP then serves such a message as it
is and never walks its MIME (docs/imap.md). In the same pass their structure and
summary are worked out (core/mime/kept.py) and stored in the same transaction
(`message_structures`), so IMAP reads them instead of parsing the message.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from dataclasses import dataclass

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.mime.kept import KeptStructure, kept_structure
from core.store.models import Mail, MessageStructure, RawMessage, table_of, utcnow
from core.store.port import insert_or_skip

__all__ = [
    "Original",
    "keep_original",
    "keep_structure",
    "marked_originals_of",
    "originals_of",
    "originals_within",
]


@dataclass(frozen=True, slots=True)
class Original:
    """Bytes with their sha256 and whether their MIME is over the bounds, worked out
    once however many mails carry them."""

    sha256: str
    data: bytes
    opaque: bool | None = None  # None: not decided (a reader decides)
    kept: KeptStructure | None = None  # None: not worked out (the backfill does)

    @classmethod
    def of(cls, data: bytes) -> Original:
        """Hashing, the bounded walk and reading the headers IMAP lists are CPU work
        (a few milliseconds for everyday mail): call it in a worker thread."""
        kept = kept_structure(data)
        return cls(hashlib.sha256(data).hexdigest(), data, kept.opaque, kept)


# Built once, bound per call: `.values(values)` made a statement and a cache key over
# the message's bytes for every message. The same bytes stored before (or by a
# transaction racing this one) make the insert a no-op: no read first.
_RAW_MESSAGES = table_of(RawMessage)
_STRUCTURES = table_of(MessageStructure)


def keep_original(session: Session, original: Original) -> str:
    """Store the bytes unless a row has them already; returns the sha256 to name them by."""
    kept: set[str] = session.info.setdefault("agentmail_originals", set())
    if original.sha256 in kept:  # the other mails of one submission: the bytes go once
        return original.sha256
    kept.add(original.sha256)
    connection = session.connection()
    values = {
        "sha256": original.sha256,
        "size": len(original.data),
        "data": original.data,
        "created_at": utcnow(),
        "opaque": original.opaque,
    }
    insert_or_skip(session, _RAW_MESSAGES).run(connection, values)
    if original.kept is not None:
        keep_structure(session, original.sha256, original.kept)
    return original.sha256


def keep_structure(session: Session, sha256: str, kept: KeptStructure) -> None:
    """The kept structure of stored bytes, unless a row has it (the same bytes, or the
    backfill, were first): a row never changes, its bytes never do."""
    values = {
        "sha256": sha256,
        "version": kept.version,
        "structure": kept.structure,
        "summary": kept.summary,
    }
    insert_or_skip(session, _STRUCTURES).run(session.connection(), values)


def originals_of(session: Session, seqs: Sequence[int]) -> dict[int, bytes]:
    """The original bytes of those of these mails that have them, by mail seq (mails
    sharing bytes share one `bytes` object: each content is read once)."""
    return {seq: data for seq, (data, _) in marked_originals_of(session, seqs).items()}


def marked_originals_of(
    session: Session, seqs: Sequence[int], shas: dict[int, str] | None = None
) -> dict[int, tuple[bytes, bool | None]]:
    """`originals_of` with each one's opaque mark (None: stored before the mark);
    `shas` gets the sha256 each is stored by."""
    if not seqs:
        return {}
    named = session.execute(
        select(Mail.seq, Mail.raw_sha256).where(
            Mail.seq.in_(list(seqs)), Mail.raw_sha256.is_not(None)
        )
    ).all()
    wanted = {sha256 for _, sha256 in named}
    if shas is not None:
        shas.update((int(seq), str(sha256)) for seq, sha256 in named)
    if not wanted:
        return {}
    data = {
        sha256: (bytes(content), opaque)
        for sha256, content, opaque in session.execute(
            select(RawMessage.sha256, RawMessage.data, RawMessage.opaque).where(
                RawMessage.sha256.in_(wanted)
            )
        )
    }
    return {int(seq): data[sha256] for seq, sha256 in named if sha256 in data}


def originals_within(session: Session, seqs: Sequence[int], budget: int) -> dict[int, bytes]:
    """The original bytes of the first of these mails, in their order, up to `budget`
    bytes in all (the first that would go over ends it): what a client that fetches one
    whole message per command (mbsync) asks for next, read in one go."""
    if not seqs:
        return {}
    sizes = {
        int(seq): (str(sha256), int(size))
        for seq, sha256, size in session.execute(
            select(Mail.seq, RawMessage.sha256, RawMessage.size)
            .join(RawMessage, RawMessage.sha256 == Mail.raw_sha256)
            .where(Mail.seq.in_(list(seqs)))
        )
    }
    chosen: dict[int, str] = {}
    total = 0
    for seq in seqs:
        if seq not in sizes:
            continue
        sha256, size = sizes[seq]
        if total + size > budget:
            break
        chosen[seq] = sha256
        total += size
    if not chosen:
        return {}
    data = {
        str(sha256): bytes(content)
        for sha256, content in session.execute(
            select(RawMessage.sha256, RawMessage.data).where(
                RawMessage.sha256.in_(set(chosen.values()))
            )
        )
    }
    return {seq: data[sha256] for seq, sha256 in chosen.items() if sha256 in data}
