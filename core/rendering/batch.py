"""The RFC 5322 bytes of many stored mails, loaded with a few set queries.

IMAP fetches a thousand messages in one command; `load_render_inputs` costs
several queries per mail. Here the rows, their conversations' aliases and their
attachments come in one query each, and the parent chains (`References`) one
query per generation for all mails at once, so the cost grows with the depth of
the deepest thread, not with the number of mails.

A mail that arrived as RFC 5322 (SMTP, import) is served as its original bytes.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TypeVar

from sqlalchemy import bindparam, select
from sqlalchemy.orm import Session

from core.rendering.render import render_mail
from core.rendering.stored import MAX_REFERENCES, RenderInputs, parts_of
from core.store.blobs import BlobStore
from core.store.engine import Transaction
from core.store.models import Attachment, Conversation, Mail
from core.store.prepared import Prepared
from core.store.raw_messages import marked_originals_of

T = TypeVar("T")

__all__ = [
    "content_key",
    "content_keys",
    "load_many",
    "references_of",
    "render_loaded",
]


def load_many(
    session: Session,
    seqs: Sequence[int],
    marks: dict[int, bool | None] | None = None,
    shas: dict[int, str] | None = None,
) -> dict[int, bytes | RenderInputs]:
    """Per mail seq: its original bytes, or what `render_mail` needs (unknown seqs are
    left out). `marks` gets each original's opaque mark (core/store/raw_messages.py),
    `shas` the sha256 it is stored by."""
    rows = session.execute(
        select(Mail, Conversation.alias)
        .join(Conversation, Conversation.id == Mail.session_id)
        .where(Mail.seq.in_(seqs))
    ).all()
    originals = marked_originals_of(
        session, [mail.seq for mail, _ in rows if mail.raw_sha256 is not None], shas
    )
    found: dict[int, bytes | RenderInputs] = {seq: data for seq, (data, _) in originals.items()}
    if marks is not None:
        marks.update((seq, mark) for seq, (_, mark) in originals.items())
    to_render: list[tuple[Mail, str | None]] = []
    for mail, alias in rows:
        if mail.raw_sha256 is None:
            to_render.append((mail, alias))
        session.expunge(mail)  # rendered after the transaction, in another thread
    if not to_render:
        return found
    chains = references_of(session, {mail.seq: mail.parent_id for mail, _ in to_render})
    attached: dict[int, list[tuple[str, str, str]]] = {}
    for row in session.execute(
        select(Attachment.mail_seq, Attachment.filename, Attachment.content_type, Attachment.sha256)
        .where(Attachment.mail_seq.in_([mail.seq for mail, _ in to_render]))
        .order_by(Attachment.created_at, Attachment.id)
    ):
        assert row.mail_seq is not None
        attached.setdefault(row.mail_seq, []).append((row[1], row[2], row[3]))
    for mail, alias in to_render:
        found[mail.seq] = RenderInputs(
            mail, alias, chains.get(mail.seq, []), attached.get(mail.seq, [])
        )
    return found


def references_of(session: Session, parents: dict[int, str | None]) -> dict[int, list[str]]:
    """Per mail seq (by its parent's id), the Message-IDs of its ancestors, oldest first (at
    most MAX_REFERENCES): the `References` of its rendering."""
    chains: dict[int, list[str]] = {seq: [] for seq in parents}
    # Each mail's walk: the ancestor id it waits for, and the ids it has passed (cycles).
    walking = {seq: (parent, {parent}) for seq, parent in parents.items() if parent is not None}
    for _ in range(MAX_REFERENCES):
        if not walking:
            break
        wanted = {parent for parent, _ in walking.values()}
        rows = session.execute(
            select(Mail.id, Mail.message_id, Mail.parent_id).where(Mail.id.in_(wanted))
        ).all()
        by_id = {row.id: (row.message_id, row.parent_id) for row in rows}
        still: dict[int, tuple[str, set[str]]] = {}
        for seq, (parent, seen) in walking.items():
            if parent not in by_id:
                continue
            message_id, grandparent = by_id[parent]
            chains[seq].append(message_id)
            if grandparent is not None and grandparent not in seen:
                still[seq] = (grandparent, seen | {grandparent})
        walking = still
    for chain in chains.values():
        chain.reverse()
    return chains


def content_key(seq: int, item: bytes | RenderInputs) -> tuple[object, ...]:
    """What a mail's bytes depend on: equal keys, equal bytes (for caches).

    Original bytes never change. A rendering changes with the conversation's alias
    (it is in every address) and the permission state (the footer, core/rendering/render.py).
    """
    if isinstance(item, bytes):
        return (seq,)
    mail = item.mail
    return (
        seq,
        item.alias,
        mail.permission_state,
        mail.decision,
        mail.decision_note,
        mail.decided_by,
        mail.decided_at,
        mail.expires_at,
    )


_KEYS = Prepared(
    select(
        Mail.seq,
        Mail.raw_sha256.is_not(None),
        Conversation.alias,
        Mail.permission_state,
        Mail.decision,
        Mail.decision_note,
        Mail.decided_by,
        Mail.decided_at,
        Mail.expires_at,
    )
    .join(Conversation, Conversation.id == Mail.session_id)
    .where(Mail.seq.in_(bindparam("seqs", expanding=True)))
)


def content_keys(session: Session, seqs: Sequence[int]) -> dict[int, tuple[object, ...]]:
    """`content_key` of each mail from a few columns, without loading the mails: a
    cache that holds their contents needs nothing more (unknown seqs are left out)."""
    rows = _KEYS.run(session.connection(), {"seqs": list(seqs)})
    return {int(row[0]): (int(row[0]),) if row[1] else (int(row[0]), *row[2:]) for row in rows}


def content_keys_and(
    seqs: Sequence[int], alongside: Transaction[T] | None
) -> Transaction[tuple[dict[int, tuple[object, ...]], T | None]]:
    """A read of `content_keys` and, in the same transaction, `alongside`."""

    def run(session: Session) -> tuple[dict[int, tuple[object, ...]], T | None]:
        keys = content_keys(session, seqs) if seqs else {}
        return keys, (alongside(session) if alongside is not None else None)

    return run


def render_loaded(
    loaded: dict[int, bytes | RenderInputs], blobs: BlobStore, domain: str
) -> dict[int, bytes]:
    """Sync (run it in a thread): renders what has no original bytes."""
    out: dict[int, bytes] = {}
    for seq, item in loaded.items():
        if isinstance(item, bytes):
            out[seq] = item
        else:
            out[seq] = render_mail(
                item.mail,
                item.alias,
                domain,
                references=item.references,
                attachments=parts_of(blobs, item.attachments),
            )
    return out
