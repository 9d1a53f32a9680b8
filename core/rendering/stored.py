"""Rendering a stored mail: load its inputs in one read transaction, render in a thread.

The row, its conversation's alias, the Message-IDs of its parent chain (for
`References`, RFC 5322 §3.6.4) and its attachments' metadata come from one
snapshot; the attachment bytes are read from the blob store (core/store/blobs.py) by
`render_mail` itself, in a worker thread, so no file or network I/O runs on the
event loop.
"""

from __future__ import annotations

import asyncio
import functools
from dataclasses import dataclass
from typing import Final

from sqlalchemy import select
from sqlalchemy.orm import Session

from core.errors import NotFound
from core.rendering.render import AttachmentPart, render_mail
from core.store.blobs import BlobStore
from core.store.engine import Store
from core.store.models import Attachment, Conversation, Mail

__all__ = ["MAX_REFERENCES", "RenderInputs", "load_render_inputs", "parts_of", "render_stored"]

# A deep thread names at most this many ancestors; the parent is always among them.
MAX_REFERENCES: Final = 20


@dataclass(frozen=True, slots=True)
class RenderInputs:
    mail: Mail
    alias: str | None
    references: list[str]  # oldest first; the last one is the parent's
    attachments: list[tuple[str, str, str]]  # (filename, content type, sha256)


def load_render_inputs(session: Session, mail_id: str) -> RenderInputs:
    """Everything `render_mail` needs but attachment bytes; NotFound for an unknown id."""
    mail = session.scalar(select(Mail).where(Mail.id == mail_id))
    if mail is None:
        raise NotFound(f"no mail {mail_id}")
    alias = session.scalar(select(Conversation.alias).where(Conversation.id == mail.session_id))
    references: list[str] = []
    parent_id = mail.parent_id
    seen = {mail.id}
    while parent_id is not None and parent_id not in seen and len(references) < MAX_REFERENCES:
        seen.add(parent_id)
        row = session.execute(
            select(Mail.message_id, Mail.parent_id).where(Mail.id == parent_id)
        ).first()
        if row is None:
            break
        references.append(row.message_id)
        parent_id = row.parent_id
    references.reverse()
    rows = session.execute(
        select(Attachment.filename, Attachment.content_type, Attachment.sha256)
        .where(Attachment.mail_seq == mail.seq)
        .order_by(Attachment.created_at, Attachment.id)
    ).all()
    session.expunge(mail)  # rendered after the transaction, in another thread
    return RenderInputs(mail, alias, references, [(r[0], r[1], r[2]) for r in rows])


def parts_of(blobs: BlobStore, attachments: list[tuple[str, str, str]]) -> list[AttachmentPart]:
    """Attachment parts whose content is read from the blob store when rendered (in the
    thread: `load` is the port's call for code in a worker thread)."""
    return [
        AttachmentPart(filename, content_type, functools.partial(blobs.load, sha256))
        for filename, content_type, sha256 in attachments
    ]


async def render_stored(store: Store, blobs: BlobStore, domain: str, mail_id: str) -> bytes:
    """The RFC 5322 rendering of a stored mail (docs/mail-format.md)."""
    inputs = await store.read(lambda session: load_render_inputs(session, mail_id))
    return await asyncio.to_thread(
        render_mail,
        inputs.mail,
        inputs.alias,
        domain,
        references=inputs.references,
        attachments=parts_of(blobs, inputs.attachments),
    )
