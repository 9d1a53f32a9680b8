"""Kept structures of stored mails: read for the mails' current contents, made for those
that have none, written back.

A mail that came in as bytes has its structure kept by its bytes' sha256, made when
the bytes were stored (core/store/raw_messages.py). A mail served as its rendering has
it kept by its content key (`content_key`: the conversation's alias and the permission
state its rendering is made from): a rename or a decision changes the key in its own
transaction, so the row kept for the old bytes is never read for the new ones; the new
bytes' structure is made when they are next read, or by the backfill, and written back.
Readers (`kept_summaries`) get a summary only for the content a mail has now.
"""

from __future__ import annotations

import json
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import datetime

from sqlalchemy import delete, select
from sqlalchemy.orm import Session

from core.mime.kept import KEPT_VERSION, KeptStructure, kept_structure
from core.rendering.batch import content_key, content_keys, render_loaded
from core.rendering.stored import RenderInputs
from core.store.blobs import BlobStore
from core.store.models import Mail, MessageStructure, RenderedStructure, table_of
from core.store.port import insert_or_skip
from core.store.raw_messages import keep_structure

__all__ = ["KeptWrite", "kept_summaries", "key_text", "made_structures", "write_kept"]

_RENDERED = table_of(RenderedStructure)


def key_text(key: tuple[object, ...]) -> str:
    """A rendered mail's content key as the text its kept row is found by."""
    return json.dumps(
        [value.isoformat() if isinstance(value, datetime) else value for value in key[1:]],
        separators=(",", ":"),
    )


def kept_summaries(
    session: Session, keys: Mapping[int, tuple[object, ...]]
) -> dict[int, str | None]:
    """Per mail seq, the summary kept for its current content (None: kept without one,
    IMAP parses it); a mail with nothing kept for its content is left out. `keys` are
    the mails' content keys (core/rendering/batch.py), a one-item key being an original's."""
    originals = [seq for seq, key in keys.items() if len(key) == 1]
    rendered = {seq: key_text(key) for seq, key in keys.items() if len(key) > 1}
    found: dict[int, str | None] = {}
    if originals:
        rows = session.execute(
            select(Mail.seq, MessageStructure.summary)
            .join(MessageStructure, MessageStructure.sha256 == Mail.raw_sha256)
            .where(Mail.seq.in_(originals), MessageStructure.version == KEPT_VERSION)
        )
        found.update((int(seq), summary) for seq, summary in rows)
    if rendered:
        kept_rows = session.execute(
            select(
                RenderedStructure.mail_seq, RenderedStructure.content_key, RenderedStructure.summary
            ).where(
                RenderedStructure.mail_seq.in_(list(rendered)),
                RenderedStructure.version == KEPT_VERSION,
            )
        )
        for seq, key, summary in kept_rows:
            if rendered.get(int(seq)) == key:
                found[int(seq)] = summary
    return found


@dataclass(frozen=True, slots=True)
class KeptWrite:
    """A structure made at read time, to be kept: by sha256 (an original) or by mail and
    content key (a rendering)."""

    kept: KeptStructure
    sha256: str | None = None
    mail_seq: int | None = None
    content_key: str | None = None


def made_structures(
    loaded: Mapping[int, bytes | RenderInputs],
    originals: Mapping[int, str],
    blobs: BlobStore,
    domain: str,
) -> dict[int, tuple[bytes, KeptWrite]]:
    """Sync, CPU work (run it in a worker thread): each loaded mail's bytes (rendered if
    need be) and its kept structure, ready to write. `originals` names the sha256 of
    each original's bytes."""
    made: dict[int, tuple[bytes, KeptWrite]] = {}
    for seq, data in render_loaded(dict(loaded), blobs, domain).items():
        kept = kept_structure(data)
        item = loaded[seq]
        if isinstance(item, bytes):
            made[seq] = (data, KeptWrite(kept, sha256=originals[seq]))
        else:
            key = key_text(content_key(seq, item))
            made[seq] = (data, KeptWrite(kept, mail_seq=seq, content_key=key))
    return made


def write_kept(session: Session, writes: Sequence[KeptWrite]) -> None:
    """Keep these structures: an original's once (a row never changes); a rendering's
    in place of the row kept for another content of the same mail."""
    for write in writes:
        if write.sha256 is not None:
            keep_structure(session, write.sha256, write.kept)
    rendered = {w.mail_seq: w for w in writes if w.mail_seq is not None}
    if not rendered:
        return
    exists = select(Mail.seq).where(Mail.seq.in_(list(rendered)))
    present = set(session.scalars(exists))
    session.execute(delete(RenderedStructure).where(RenderedStructure.mail_seq.in_(present)))
    rows = [
        {
            "mail_seq": seq,
            "content_key": write.content_key,
            "version": write.kept.version,
            "structure": write.kept.structure,
            "summary": write.kept.summary,
        }
        for seq, write in rendered.items()
        if seq in present
    ]
    if rows:  # another process that kept it meanwhile kept the same content's: skipped
        insert_or_skip(session, _RENDERED).run(session.connection(), rows)


def stale_renderings(session: Session, seqs: list[int]) -> list[int]:
    """Those of these rendered mails with nothing kept for their content as it is now
    (never kept, an older version, or another alias or permission state)."""
    live = {seq: (key_text(key), KEPT_VERSION) for seq, key in content_keys(session, seqs).items()}
    kept = {
        int(seq): (str(key), int(version))
        for seq, key, version in session.execute(
            select(
                RenderedStructure.mail_seq, RenderedStructure.content_key, RenderedStructure.version
            ).where(RenderedStructure.mail_seq.in_(seqs))
        )
    }
    return [seq for seq, wanted in live.items() if kept.get(seq) != wanted]
